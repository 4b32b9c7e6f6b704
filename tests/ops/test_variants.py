"""Variants of the table's ops: in-place forms (``abs_``, ``t.add_``), ``out=``, and named-tuple results."""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np
import pytest

import tensorlib
from tensorlib.autograd import gradcheck

from tests.ops.opinfo import CASES, OpInfo, Sample, tl_tensor


def _inplace_cases() -> tuple[list, list]:
    """(in-place callable name, where it lives, entry, sample) for every in-place form of a table op."""
    cases, ids = [], []
    for info, sample in CASES:
        name = info.name + "_"
        for owner, label in ((tensorlib, "fn"), (tensorlib.Tensor, "method")):
            if hasattr(owner, name) and isinstance(sample.args[0], np.ndarray):
                cases.append((name, owner, info, sample))
                ids.append(f"{label}-{name}-{len(ids)}")
    return cases, ids


INPLACE, INPLACE_IDS = _inplace_cases()
# in-place view ops change the tensor's shape instead of writing its memory
RESHAPING = {"squeeze_", "unsqueeze_", "transpose_", "swapaxes_", "swapdims_", "t_", "as_strided_"}
# comparisons and logic written in place store 1/0 in the tensor's own dtype, as in torch
CAST_TO_SELF = {f"{n}_" for n in """eq ne lt le gt ge not_equal less less_equal greater greater_equal logical_and
                                    logical_or logical_xor logical_not""".split()}


def _expected(info: OpInfo, sample: Sample) -> Any:
    args, kwargs = sample.build(tl_tensor)
    return info.func(*args, **kwargs)


def _call_inplace(name: str, owner: Any, target: Any, sample: Sample, leaves: list | None = None) -> Any:
    args, kwargs = sample.build(tl_tensor, leaves)
    args = (target,) + tuple(args[1:])
    if owner is tensorlib.Tensor:
        return getattr(target, name)(*args[1:], **kwargs)
    return getattr(tensorlib, name)(*args, **kwargs)


@pytest.mark.parametrize("name,owner,info,sample", INPLACE, ids=INPLACE_IDS)
def test_inplace_matches_out_of_place(name: str, owner: Any, info: OpInfo, sample: Sample) -> None:
    expected = _expected(info, sample)
    target = tl_tensor(sample.args[0])
    if name in CAST_TO_SELF:
        expected = expected.to(target.dtype)
    if name not in RESHAPING and (expected.shape != target.shape or expected.dtype != target.dtype):
        with pytest.raises(RuntimeError):
            _call_inplace(name, owner, target, sample)
        return
    version = target._version_value
    result = _call_inplace(name, owner, target, sample)
    assert result is target
    assert target._version_value > version
    assert target.shape == expected.shape
    np.testing.assert_allclose(target.numpy(), expected.numpy(), rtol=1e-12, atol=1e-12)


def _gradient_applies(name: str, info: OpInfo, sample: Sample) -> bool:
    """The in-place form has a gradient to check: a differentiable op whose result fits its input."""
    if not info.grad or not sample.leaves():
        return False
    return name in RESHAPING or _expected(info, sample).shape == sample.args[0].shape


_GRADIENT_CASES = [(case, case_id) for case, case_id in zip(INPLACE, INPLACE_IDS) if _gradient_applies(*case[:1], *case[2:])]


@pytest.mark.parametrize("name,owner,info,sample", [c for c, _ in _GRADIENT_CASES], ids=[i for _, i in _GRADIENT_CASES])
def test_inplace_gradient(name: str, owner: Any, info: OpInfo, sample: Sample) -> None:
    leaves = [tl_tensor(a).requires_grad_() for a in sample.leaves()]

    def fn(*ts: Any) -> Any:
        target = ts[0] * 1.0  # in-place ops need a non-leaf
        return _call_inplace(name, owner, target, sample, [target] + list(ts[1:]))

    assert gradcheck(fn, leaves)


_FLOAT_INPLACE = [case for case in INPLACE if case[3].args[0].dtype.kind == "f"]


@pytest.mark.parametrize("name,owner,info,sample", _FLOAT_INPLACE[:: max(1, len(_FLOAT_INPLACE) // 40)])
def test_inplace_on_leaf_requiring_grad_fails(name: str, owner: Any, info: OpInfo, sample: Sample) -> None:
    leaf = tl_tensor(sample.args[0]).requires_grad_()
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place operation"):
        _call_inplace(name, owner, leaf, sample)


def test_inplace_forms_exist_where_torch_has_them() -> None:
    torch = pytest.importorskip("torch")
    names = sorted({info.name + "_" for info, _ in CASES})
    missing_fn = [n for n in names if hasattr(torch, n) and not hasattr(tensorlib, n)]
    missing_method = [n for n in names if hasattr(torch.Tensor, n) and not hasattr(tensorlib.Tensor, n)]
    assert not missing_fn and not missing_method, (missing_fn, missing_method)


# -- out= -------------------------------------------------------------------------------------------


def _out_cases() -> tuple[list, list]:
    cases, ids = [], []
    for info, sample in CASES:
        if "out" in inspect.signature(info.func).parameters:
            cases.append((info, sample))
            ids.append(f"{info.name}-{len(ids)}")
    return cases, ids


OUT, OUT_IDS = _out_cases()
# ops returning a list of tensors whose out= form fills the list and returns None (torch's ``-> ()`` overloads)
OUT_RETURNS_NONE = {"split_copy", "split_with_sizes_copy", "unbind_copy"}


@pytest.mark.parametrize("info,sample", OUT, ids=OUT_IDS)
def test_out_argument(info: OpInfo, sample: Sample) -> None:
    expected = _expected(info, sample)
    args, kwargs = sample.build(tl_tensor)
    if isinstance(expected, tuple):
        out = tuple(tensorlib.empty(0, dtype=e.dtype) for e in expected)
        result = info.func(*args, **kwargs, out=out)
        if info.name in OUT_RETURNS_NONE:
            assert result is None
            result = out
        assert type(result) is type(expected)
        for r, o, e in zip(result, out, expected):
            assert r is o
            np.testing.assert_array_equal(o.numpy(), e.numpy())
        return
    out = tensorlib.empty(0, dtype=expected.dtype)
    result = info.func(*args, **kwargs, out=out)
    assert result is out
    assert out.shape == expected.shape
    np.testing.assert_array_equal(out.numpy(), expected.numpy())


def test_out_refuses_autograd() -> None:
    x = tensorlib.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="out=... arguments don't support automatic differentiation"):
        tensorlib.exp(x, out=tensorlib.empty(2))


def test_out_refuses_a_narrowing_cast() -> None:
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        tensorlib.add(tensorlib.ones(2), 1, out=tensorlib.empty(2, dtype=tensorlib.int64))


# -- named tuples -------------------------------------------------------------------------------------


@pytest.mark.parametrize("name,fields", [
    ("max", ("values", "indices")), ("min", ("values", "indices")), ("median", ("values", "indices")),
    ("mode", ("values", "indices")), ("sort", ("values", "indices")), ("kthvalue", ("values", "indices")),
    ("topk", ("values", "indices")), ("aminmax", ("min", "max")),
])
def test_named_tuple_results(name: str, fields: tuple) -> None:
    x = tensorlib.tensor([[3.0, 1.0, 2.0], [0.5, 4.0, -1.0]])
    args = {"kthvalue": (1, 1), "topk": (1, 1), "sort": (1,), "aminmax": ()}.get(name, (1,))
    kwargs = {"dim": 1} if name == "aminmax" else {}
    r = getattr(tensorlib, name)(x, *args, **kwargs)
    assert type(r).__name__ == name and r._fields == fields
    assert type(r).__module__ == "tensorlib.return_types"
    m = getattr(x, name)(*args, **kwargs)
    for a, b in zip(r, m):
        assert tensorlib.equal(a, b)
    values, second = r
    assert getattr(r, fields[0]) is values and getattr(r, fields[1]) is second


def test_max_forms() -> None:
    x = tensorlib.tensor([[3.0, 1.0, 2.0], [0.5, 4.0, -1.0]])
    assert x.max().item() == 4.0
    v, i = x.max(dim=1)
    assert v.tolist() == [3.0, 4.0] and i.tolist() == [0, 1] and i.dtype == tensorlib.int64
    v, i = tensorlib.max(x, 0, keepdim=True)
    assert v.shape == (1, 3) and i.tolist() == [[0, 1, 0]]
    assert tensorlib.max(x, tensorlib.zeros(3)).tolist() == [[3.0, 1.0, 2.0], [0.5, 4.0, 0.0]]
    assert x.min(1).indices.tolist() == [1, 2]
    out = (tensorlib.empty(0), tensorlib.empty(0, dtype=tensorlib.int64))
    r = tensorlib.max(x, 1, out=out)
    assert r.values is out[0] and out[1].tolist() == [0, 1]


def test_reduction_keepdim_and_dims() -> None:
    x = tensorlib.arange(24, dtype=tensorlib.float64).reshape(2, 3, 4)
    assert x.sum((0, 2), keepdim=True).shape == (1, 3, 1)
    assert x.mean(dim=[-1, 0]).shape == (3,)
    assert x.sum(()).item() == 276.0  # an empty dim list reduces everything, as in torch
    assert x.amax((1, 2)).tolist() == [11.0, 23.0]
    assert x.std(1, keepdim=True).shape == (2, 1, 4)
    assert x.logsumexp((0, 1)).shape == (4,)
    assert x.count_nonzero(1).shape == (2, 4)
    assert x.all(1).shape == (2, 4) and x.any(dim=2, keepdim=True).shape == (2, 3, 1)
