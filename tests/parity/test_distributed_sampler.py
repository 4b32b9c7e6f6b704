"""utils.data.DistributedSampler with explicit num_replicas and rank (no process group), compared with torch."""

from __future__ import annotations

import pytest

import tensorlib
from tensorlib.utils.data import DataLoader, DistributedSampler, TensorDataset


def _shares(lib, n, replicas, **kw):
    return [list(lib.utils.data.DistributedSampler(range(n), num_replicas=replicas, rank=r, **kw))
            for r in range(replicas)]


@pytest.mark.parametrize("n, replicas", [(10, 3), (12, 4), (5, 8), (7, 1)])
@pytest.mark.parametrize("drop_last", [False, True])
def test_unshuffled_shares_match_torch(n, replicas, drop_last):
    torch = pytest.importorskip("torch")
    ours = _shares(tensorlib, n, replicas, shuffle=False, drop_last=drop_last)
    theirs = _shares(torch, n, replicas, shuffle=False, drop_last=drop_last)
    assert ours == theirs
    lens = [len(tensorlib.utils.data.DistributedSampler(range(n), replicas, r, drop_last=drop_last))
            for r in range(replicas)]
    assert lens == [len(s) for s in theirs]


def test_shares_by_formula():
    assert _shares(tensorlib, 10, 3, shuffle=False) == [[0, 3, 6, 9], [1, 4, 7, 0], [2, 5, 8, 1]]
    assert _shares(tensorlib, 10, 3, shuffle=False, drop_last=True) == [[0, 3, 6], [1, 4, 7], [2, 5, 8]]
    assert _shares(tensorlib, 2, 5, shuffle=False) == [[0], [1], [0], [1], [0]]


def test_shuffled_shares_partition_the_dataset_and_follow_the_epoch():
    shares = _shares(tensorlib, 12, 3, seed=7)
    assert sorted(sum(shares, [])) == list(range(12))
    assert shares == _shares(tensorlib, 12, 3, seed=7)  # every replica draws the same permutation
    assert shares != _shares(tensorlib, 12, 3, seed=8)
    sampler = DistributedSampler(range(12), num_replicas=3, rank=0, seed=7)
    first = list(sampler)
    sampler.set_epoch(1)
    assert sampler.epoch == 1 and list(sampler) != first and sorted(list(sampler)) != []
    sampler.set_epoch(0)
    assert list(sampler) == first


def test_feeds_a_dataloader():
    ds = TensorDataset(tensorlib.arange(10))
    loader = DataLoader(ds, batch_size=2, sampler=DistributedSampler(ds, num_replicas=2, rank=1, shuffle=False))
    assert [b[0].tolist() for b in loader] == [[1, 3], [5, 7], [9]]


def test_errors_match_torch():
    torch = pytest.importorskip("torch")
    for make in (lambda lib: lib.utils.data.DistributedSampler(range(4), num_replicas=2, rank=2),
                 lambda lib: lib.utils.data.DistributedSampler(range(4), num_replicas=2, rank=-1)):
        with pytest.raises(ValueError) as theirs:
            make(torch)
        with pytest.raises(ValueError) as ours:
            make(tensorlib)
        assert str(ours.value) == str(theirs.value)


def test_replicas_and_rank_are_required_without_a_process_group():
    with pytest.raises(RuntimeError, match="Requires distributed package to be available"):
        DistributedSampler(range(4))
    with pytest.raises(RuntimeError, match="Requires distributed package to be available"):
        DistributedSampler(range(4), num_replicas=2)
