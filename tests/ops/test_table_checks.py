"""The generic checks the op table drives: forward values (NumPy, torch), method forms, gradcheck, gradgradcheck."""

from __future__ import annotations

import functools

from typing import Any, Callable

import numpy as np
import pytest

import tensorlib
from tensorlib.autograd import gradcheck, gradgradcheck

from tests.ops.opinfo import CASE_IDS, CASES, OpInfo, Sample, tl_tensor


def call(info: OpInfo, sample: Sample) -> Any:
    args, kwargs = sample.build(tl_tensor)
    return info.func(*args, **kwargs)


def apply_pre(info: OpInfo, args: tuple) -> tuple:
    """The arguments with the entry's ``pre`` applied to the first one."""
    return (info.pre(args[0]),) + tuple(args[1:]) if info.pre is not None else args


def apply_post(info: OpInfo, out: Any) -> Any:
    return info.post(out) if info.post is not None else out


def _as_tensors(expected: Any) -> Any:
    if isinstance(expected, (tuple, list)):
        return tuple(_as_tensors(e) for e in expected)
    return tensorlib.from_numpy(np.array(expected))


def _as_arrays(out: Any) -> Any:
    if isinstance(out, (tuple, list)):
        return tuple(_as_arrays(o) for o in out)
    return out.detach().numpy()


def flat_outputs(out: Any) -> list:
    """The tensors of a result, nested sequences flattened (``histogramdd``'s tuple of bin edges)."""
    return [o for e in out for o in flat_outputs(e)] if isinstance(out, (tuple, list)) else [out]


def assert_matches(actual: Any, expected: Any, info: OpInfo, check_dtype: bool = True) -> None:
    """Compare an op's output with NumPy's (arrays, or tuples of them): shape, dtype and values."""
    if isinstance(expected, (tuple, list)):
        assert isinstance(actual, (tuple, list)), f"expected a sequence of {len(expected)} results, got {type(actual)}"
        assert len(actual) == len(expected)
        for a, e in zip(actual, expected):
            assert_matches(a, e, info, check_dtype)
        return
    assert isinstance(actual, tensorlib.Tensor), type(actual)
    e = np.asarray(expected)
    a = actual.detach().numpy()
    assert a.shape == e.shape, f"shape {a.shape} != {e.shape}"
    if check_dtype:
        assert a.dtype == e.dtype, f"dtype {a.dtype} != {e.dtype}"
    np.testing.assert_allclose(a, e, rtol=info.rtol, atol=info.atol)


def _select(keep: Callable[[OpInfo, Sample], bool]) -> dict:
    """Parametrization over the table cases a check applies to."""
    pairs = [(case, case_id) for case, case_id in zip(CASES, CASE_IDS) if keep(*case)]
    return {"argvalues": [case for case, _ in pairs], "ids": [case_id for _, case_id in pairs]}


def _has_method_form(info: OpInfo, sample: Sample) -> bool:
    return info.has_method and isinstance(sample.args[0], np.ndarray)


WITH_REFERENCE = _select(lambda info, sample: info.ref is not None)
WITH_METHOD = _select(_has_method_form)
DIFFERENTIABLE = _select(lambda info, sample: info.grad and bool(sample.leaves()))
TWICE_DIFFERENTIABLE = _select(lambda info, sample: info.grad and info.gradgrad and bool(sample.leaves()))


@pytest.mark.parametrize("info,sample", **WITH_REFERENCE)
def test_forward_matches_numpy(info: OpInfo, sample: Sample) -> None:
    args, kwargs = sample.numpy()
    targs, tkwargs = sample.build(tl_tensor)
    actual = info.func(*apply_pre(info, targs), **tkwargs)
    expected = info.ref(*apply_pre(info, args), **kwargs)
    if info.post is not None:
        actual = apply_post(info, actual)
        expected = _as_arrays(apply_post(info, _as_tensors(expected)))
    assert_matches(actual, expected, info, info.check_ref_dtype)


def _torch_args(torch: Any, sample: Sample, requires_grad: bool) -> tuple[tuple, dict]:
    def conv(a: np.ndarray) -> Any:
        return torch.from_numpy(a.copy())

    leaves = [torch.from_numpy(a.copy()).requires_grad_(requires_grad) for a in sample.leaves()]
    args, kwargs = sample.build(conv, leaves)
    kwargs = {k: getattr(torch, v.name) if isinstance(v, tensorlib.dtype) else v for k, v in kwargs.items()}
    return args, kwargs


@pytest.mark.filterwarnings("ignore:Using torch.cross without specifying the dim")
@pytest.mark.parametrize("info,sample", CASES, ids=CASE_IDS)
def test_forward_matches_torch(info: OpInfo, sample: Sample) -> None:
    torch = pytest.importorskip("torch")
    leaves = [tl_tensor(a).requires_grad_() for a in sample.leaves()]
    args, kwargs = sample.build(tl_tensor, leaves)
    ours = info.func(*apply_pre(info, args), **kwargs)
    targs, tkwargs = _torch_args(torch, sample, True)
    theirs = functools.reduce(getattr, (info.torch_name or info.name).split("."), torch)(*apply_pre(info, targs),
                                                                                          **tkwargs)
    assert type(ours).__name__ == type(theirs).__name__ or (
        isinstance(ours, tensorlib.Tensor) and isinstance(theirs, torch.Tensor)
    ), f"{type(ours)} vs {type(theirs)}"
    for name in getattr(ours, "_fields", ()):  # named tuples: torch's field names
        assert getattr(ours, name) is not None and getattr(theirs, name) is not None
    ours, theirs = apply_post(info, ours), apply_post(info, theirs)
    for o, t in zip(flat_outputs(ours), flat_outputs(theirs), strict=True):
        assert o.dtype.name == str(t.dtype).split(".")[1]
        assert tuple(o.shape) == tuple(t.shape)
        assert o.requires_grad == t.requires_grad, "requires_grad differs from torch's"
        theirs_values = t.detach().resolve_conj().numpy()  # torch's conj views (ifft of a real signal)
        np.testing.assert_allclose(o.detach().numpy(), theirs_values, rtol=info.rtol, atol=info.atol)


@pytest.mark.parametrize("info,sample", **WITH_METHOD)
def test_method_form(info: OpInfo, sample: Sample) -> None:
    args, kwargs = sample.build(tl_tensor)
    expected = info.func(*args, **kwargs)
    got = getattr(args[0], info.name)(*args[1:], **kwargs)
    for g, e in zip(flat_outputs(got), flat_outputs(expected), strict=True):
        assert g.dtype == e.dtype and g.shape == e.shape
        np.testing.assert_array_equal(g.numpy(), e.numpy())


def test_methods_exist_where_torch_has_them() -> None:
    torch = pytest.importorskip("torch")
    names = {info.name for info, _ in CASES if info.method}
    missing = sorted(n for n in names if hasattr(torch.Tensor, n) and not hasattr(tensorlib.Tensor, n))
    assert not missing, f"Tensor methods torch has and tensorlib lacks: {missing}"


def _grad_fn(info: OpInfo, sample: Sample) -> Any:
    def fn(*leaves: Any) -> Any:
        args, kwargs = sample.build(tl_tensor, list(leaves))
        out = apply_post(info, info.func(*apply_pre(info, args), **kwargs))
        # Outputs get fresh memory both ways (``x * 1.0`` copies forward and backward). gradcheck
        # clones outputs itself now, as torch's does; the copy stays so the table's checks do not
        # depend on that.
        if isinstance(out, tensorlib.Tensor):
            return out * 1.0
        return tuple(o * 1.0 if o.is_floating_point() else o for o in out)

    return fn


def _leaves(sample: Sample) -> list:
    return [tl_tensor(a).requires_grad_() for a in sample.leaves()]


@pytest.mark.parametrize("info,sample", **DIFFERENTIABLE)
def test_gradcheck(info: OpInfo, sample: Sample) -> None:
    assert gradcheck(_grad_fn(info, sample), _leaves(sample))


@pytest.mark.parametrize("info,sample", **TWICE_DIFFERENTIABLE)
def test_gradgradcheck(info: OpInfo, sample: Sample) -> None:
    assert gradgradcheck(_grad_fn(info, sample), _leaves(sample))
