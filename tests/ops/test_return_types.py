"""The named tuples of ops with several outputs (``tensorlib.return_types``): tuple behaviour, field access, repr."""

from __future__ import annotations

import copy
import pickle

import pytest

import tensorlib
from tensorlib import return_types


def test_fields_index_unpack_and_compare_as_tuples():
    r = tensorlib.tensor([[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]]).max(1)
    assert type(r) is return_types.max and isinstance(r, tuple) and len(r) == 2
    assert r._fields == r.__match_args__ == ("values", "indices")
    assert r.values is r[0] and r.indices is r[1] and r[-1] is r.indices and r[:1] == (r.values,)
    values, indices = r
    assert values.tolist() == [5.0, 7.0] and indices.tolist() == [1, 0]
    assert r._asdict() == {"values": r.values, "indices": r.indices}
    assert return_types.max(1, 2) == (1, 2) == return_types.max(values=1, indices=2) == return_types.max._make([1, 2])
    assert return_types.max(1, 2)._replace(indices=5) == (1, 5)
    match r:
        case return_types.max(values=v):
            assert v is r.values
        case _:
            pytest.fail("a return type matches its fields by keyword")


def test_pickle_and_copies_keep_the_type():
    r = tensorlib.linalg.slogdet(tensorlib.eye(3, dtype=tensorlib.float64) * 2)
    for again in (pickle.loads(pickle.dumps(r)), copy.copy(r), copy.deepcopy(r)):
        assert type(again) is return_types.linalg_slogdet and again.logabsdet.item() == pytest.approx(3 * 0.6931471805599453)


@pytest.mark.parametrize("call, message", [
    (lambda: return_types.max(1), "missing required argument: 'indices'"),
    (lambda: return_types.max(1, 2, 3), "takes 2 positional arguments but 3 were given"),
    (lambda: return_types.max(1, 2, extra=3), "unexpected keyword argument 'extra'"),
    (lambda: return_types.max._make([1]), "Expected 2 arguments, got 1"),
])
def test_bad_construction_is_a_type_error(call, message):
    with pytest.raises(TypeError, match=message):
        call()


def test_bad_replace_is_a_value_error():
    with pytest.raises(ValueError, match="unexpected field names"):
        return_types.sort(1, 2)._replace(value=3)


def test_repr_matches_torch():
    torch = pytest.importorskip("torch")
    ours = repr(tensorlib.tensor([3.0, 1.0, 2.0]).sort())
    theirs = repr(torch.tensor([3.0, 1.0, 2.0]).sort())
    assert ours == theirs.replace("torch.", "tensorlib.")
