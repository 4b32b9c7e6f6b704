"""data_parallel_step: training on shards through Dask gives the parameters single-process training on the whole
batch gives, step after step (on Dask's synchronous scheduler here; on a cluster in test_cluster.py)."""

from __future__ import annotations

import copy
import pickle
from typing import Any

import pytest

dask = pytest.importorskip("dask")

import numpy as np  # noqa: E402

import tensorlib as torch  # noqa: E402
import tensorlib.dask as td  # noqa: E402
import tensorlib.nn as nn  # noqa: E402
import tensorlib.nn.functional as F  # noqa: E402
from tensorlib.dask._training import gradient_graph  # noqa: E402
from tensorlib.testing import assert_close  # noqa: E402


@pytest.fixture(autouse=True, scope="module")
def _synchronous_scheduler():
    with dask.config.set(scheduler="synchronous"):
        yield


def _problem(dtype: Any = torch.float64, n: int = 37) -> tuple[torch.Tensor, torch.Tensor, nn.Module]:
    g = torch.Generator().manual_seed(3)
    x = torch.randn(n, 6, generator=g, dtype=dtype)
    y = torch.randint(0, 3, (n,), generator=g)
    torch.manual_seed(5)
    model = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 3)).to(dtype)
    return x, y, model


def _single_process_step(model: nn.Module, opt: Any, loss_fn: Any, x: torch.Tensor, y: torch.Tensor) -> float:
    opt.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    opt.step()
    return loss.item()


def _assert_same_parameters(a: nn.Module, b: nn.Module, **tol: float) -> None:
    for (name, p), q in zip(a.named_parameters(), b.parameters()):
        assert_close(q, p, msg=name, **tol)


@pytest.mark.parametrize("optimizer", ["sgd", "adam"])
def test_steps_equal_single_process_training_on_the_whole_batch(optimizer: str) -> None:
    x, y, reference = _problem()
    model = copy.deepcopy(reference)

    def make(m: nn.Module) -> Any:
        if optimizer == "sgd":
            return torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
        return torch.optim.Adam(m.parameters(), lr=0.01)

    opt_ref, opt = make(reference), make(model)
    shards = (td.from_tensor(x, chunks=(10, 6)), td.from_tensor(y, chunks=10))  # 10, 10, 10, 7: unequal shards
    for _ in range(4):
        want = _single_process_step(reference, opt_ref, F.cross_entropy, x, y)
        got = td.data_parallel_step(model, F.cross_entropy, shards, opt)
        assert isinstance(got, torch.Tensor) and got.dtype == torch.float64 and got.dim() == 0
        assert got.item() == pytest.approx(want, rel=1e-12)
        _assert_same_parameters(reference, model, rtol=1e-12, atol=1e-12)
    assert all(p.grad is not None for p in model.parameters())


def test_float32_model_to_float_tolerance() -> None:
    x, y, reference = _problem(torch.float32, n=64)
    model = copy.deepcopy(reference)
    opt_ref = torch.optim.SGD(reference.parameters(), lr=0.2)
    opt = torch.optim.SGD(model.parameters(), lr=0.2)
    shards = (td.from_tensor(x, chunks=(9, 6)), td.from_tensor(y, chunks=9))
    for _ in range(3):
        want = _single_process_step(reference, opt_ref, F.cross_entropy, x, y)
        got = td.data_parallel_step(model, F.cross_entropy, shards, opt, split_every=2)
        assert got.dtype == torch.float32 and got.item() == pytest.approx(want, rel=1e-5)
    _assert_same_parameters(reference, model, rtol=1e-5, atol=1e-6)


def test_sum_reduced_loss() -> None:
    x, y, reference = _problem()
    model = copy.deepcopy(reference)
    opt_ref = torch.optim.SGD(reference.parameters(), lr=0.01)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)

    def loss_fn(out: Any, target: Any) -> Any:
        return F.cross_entropy(out, target, reduction="sum")

    want = _single_process_step(reference, opt_ref, loss_fn, x, y)
    got = td.data_parallel_step(model, loss_fn, [(x[:20], y[:20]), (x[20:], y[20:])], opt, reduction="sum")
    assert got.item() == pytest.approx(want, rel=1e-12)
    _assert_same_parameters(reference, model, rtol=1e-12, atol=1e-12)


def test_shards_as_a_list_of_pairs_and_a_frozen_parameter() -> None:
    x, y, reference = _problem()
    reference[0].bias.requires_grad_(False)
    model = copy.deepcopy(reference)
    opt_ref = torch.optim.SGD([p for p in reference.parameters() if p.requires_grad], lr=0.1)
    opt = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.1)
    pairs = [(x[:5].numpy(), y[:5].numpy()), (x[5:30], y[5:30]),
             (dask.delayed(x[30:]), dask.delayed(y[30:]))]
    want = _single_process_step(reference, opt_ref, F.cross_entropy, x, y)
    got = td.data_parallel_step(model, F.cross_entropy, pairs, opt)
    assert got.item() == pytest.approx(want, rel=1e-12)
    _assert_same_parameters(reference, model, rtol=1e-12, atol=1e-12)
    assert model[0].bias.grad is None


def test_a_parameter_the_loss_does_not_use_gets_no_gradient() -> None:
    x, y, net = _problem()

    class WithSpare(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.net = net
            self.spare = nn.Linear(2, 2).double()

        def forward(self, inputs: Any) -> Any:
            return self.net(inputs)

    model = WithSpare()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    td.data_parallel_step(model, F.cross_entropy, [(x, y)], opt)
    assert model.spare.weight.grad is None and model.net[0].weight.grad is not None


def test_the_model_is_one_key_of_the_graph_and_gradients_sum_in_a_tree() -> None:
    x, y, model = _problem(n=90)
    shards = (td.from_tensor(x, chunks=(10, 6)), td.from_tensor(y, chunks=10))  # 9 shards
    total = gradient_graph(model, F.cross_entropy, shards, split_every=4)
    graph = dict(total.__dask_graph__())
    weights = model[0].weight.detach().numpy().tobytes()
    holders = [k for k, v in graph.items() if weights in pickle.dumps(v)]
    assert len(holders) == 1 and str(holders[0]).startswith("tensorlib-model-")
    names = [str(k[0] if isinstance(k, tuple) else k) for k in graph]
    assert sum(n.startswith("tensorlib-shard-gradients-") for n in names) == 9
    assert sum(n.startswith("tensorlib-sum-gradients-") for n in names) == 3 + 1  # 9 -> 3 -> 1


def test_shards_of_cuts_along_the_batch() -> None:
    x, y, _ = _problem()
    pairs = td.shards_of(td.from_tensor(x, chunks=(10, 3)), td.from_tensor(y, chunks=20))
    assert len(pairs) == 4
    xs, ys = zip(*dask.compute(*pairs))
    assert [a.shape for a in xs] == [(10, 6)] * 3 + [(7, 6)]
    assert np.array_equal(np.concatenate(ys), y.numpy())


def test_bad_arguments() -> None:
    x, y, model = _problem()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with pytest.raises(ValueError, match="reduction must be 'mean' or 'sum', got 'none'"):
        td.data_parallel_step(model, F.cross_entropy, [(x, y)], opt, reduction="none")
    with pytest.raises(ValueError, match="split_every must be an int of at least 2"):
        td.data_parallel_step(model, F.cross_entropy, [(x, y)], opt, split_every=1)
    with pytest.raises(TypeError, match="shards must be"):
        td.data_parallel_step(model, F.cross_entropy, [], opt)
    with pytest.raises(TypeError, match="shard 0 is not an"):
        td.data_parallel_step(model, F.cross_entropy, [x], opt)
    with pytest.raises(ValueError, match="same size in dimension 0"):
        td.shards_of(td.from_tensor(x), td.from_tensor(y[:5]))
    with pytest.raises(TypeError, match="expects two DaskTensors"):
        td.shards_of(x, y)
    before = [p.clone() for p in model.parameters()]
    with pytest.raises(ValueError, match="Expected input batch_size"):  # the worker's error, re-raised
        td.data_parallel_step(model, F.cross_entropy, [(x, y[:5])], opt)
    for p, q in zip(model.parameters(), before):  # a failed step changes nothing
        assert torch.equal(p, q)
