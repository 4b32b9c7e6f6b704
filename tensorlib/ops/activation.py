"""Softmax-family ops and activation functions beyond the elementwise basics."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._autograd.graph import Node, SavedTensor, unpack
from .._registry import SPECIAL, TENSORLIB, op
from .._tensor import Tensor, wrap_dim
from . import broadcast
from ._kernels import last_axis_sums
from ._util import GRAD, not_implemented, record, tensor_arg, wrap
from .arithmetic import mul, neg, sub
from .conversion import to_dtype
from .unary import _real_in_float, _unary, exp


def _softmax_input(input: Tensor, dim: Any, dtype: Any, fname: str) -> tuple[Tensor, int]:
    x = tensor_arg(input, fname)
    if dtype is not None:
        x = to_dtype(x, dtype)
    if x._data.dtype.kind != "f":
        raise not_implemented(f"{fname}_lastdim_kernel_impl", x._data.dtype)
    if dim is None:
        # torch's legacy implicit-dim rule
        nd = x._data.ndim
        dim = 0 if nd in (0, 1, 3) else 1
    return x, wrap_dim(dim, x._data.ndim)


def _sums(a: np.ndarray, d: int) -> np.ndarray:
    """``np.add.reduce(a, axis=d, keepdims=True)``; along the last axis as one matrix-vector product."""
    return last_axis_sums(a) if d == a.ndim - 1 else np.add.reduce(a, axis=d, keepdims=True)


def _shifted(a: np.ndarray, d: int) -> np.ndarray:
    if a.ndim == 0:
        return a - a
    if not a.size:
        return a
    # as torch: a slice whose max is infinite becomes all NaN (inf - inf, or -inf - -inf, then the sum)
    return a - np.maximum.reduce(a, axis=d, keepdims=True)


class SoftmaxBackward0(Node):
    __slots__ = ("result", "dim")
    _saved_slots = ("result",)
    result: SavedTensor
    dim: int

    def backward(self, g: Tensor) -> tuple:
        y = unpack(self, self.result)
        gd, yd = g._data, y._data
        if not GRAD.enabled and type(g) is Tensor and gd.dtype is yd.dtype and yd.ndim:
            # nothing to record: y * (g - sum(g * y)) on the arrays, in one buffer
            r = gd * yd
            total = _sums(r, self.dim)
            np.subtract(gd, total, out=r)
            r *= yd
            return (wrap(r),)
        s = broadcast.sum(mul(g, y), self.dim, keepdim=True) if y._data.ndim else mul(g, y)
        return (mul(y, sub(g, s)),)


@op(variants="function method")
def softmax(input: Tensor, dim: Any, dtype: Any = None) -> Tensor:
    """``exp(x) / sum(exp(x))`` along ``dim``, computed stably."""
    x, d = _softmax_input(input, dim, dtype, "softmax")
    e = _shifted(x._data, d)
    if e.ndim and e.size:  # (the shifted values are a new array: exponentiated and divided in place)
        np.exp(e, out=e)
        e /= _sums(e, d)
        r = e
    else:
        e = np.exp(e)
        r = np.asarray(e / (np.add.reduce(e, axis=d, keepdims=True) if e.ndim else e))
    if x._requires_grad and GRAD.enabled:
        res, node = record(SoftmaxBackward0, r, (x,))
        node.result = SavedTensor(res, True)
        node.dim = d
        return res
    return wrap(r)


class LogSoftmaxBackward0(Node):
    __slots__ = ("result", "dim")
    _saved_slots = ("result",)
    result: SavedTensor
    dim: int

    def backward(self, g: Tensor) -> tuple:
        y = unpack(self, self.result)
        gd, yd = g._data, y._data
        if not GRAD.enabled and type(g) is Tensor and gd.dtype is yd.dtype and yd.ndim:
            # nothing to record: the formula on the arrays directly, in one buffer
            r = np.exp(yd)
            r *= _sums(gd, self.dim)
            np.subtract(gd, r, out=r)
            return (wrap(r),)
        s = broadcast.sum(g, self.dim, keepdim=True) if y._data.ndim else g
        return (sub(g, mul(exp(y), s)),)


@op(variants="function method")
def log_softmax(input: Tensor, dim: Any, dtype: Any = None) -> Tensor:
    """``log(softmax(x))`` along ``dim``, computed stably."""
    x, d = _softmax_input(input, dim, dtype, "log_softmax")
    z = _shifted(x._data, d)
    r = np.asarray(z - (np.log(_sums(np.exp(z), d)) if z.ndim else 0))
    if x._requires_grad and GRAD.enabled:
        res, node = record(LogSoftmaxBackward0, r, (x,))
        node.result = SavedTensor(res, True)
        node.dim = d
        return res
    return wrap(r)


def _erf_np(a: np.ndarray) -> np.ndarray:
    from . import _erf  # its interpolants load with the first call (import cost)

    return _erf.erf(a, single=a.dtype.itemsize < 8).astype(a.dtype, copy=False)


def _erfc_np(a: np.ndarray) -> np.ndarray:
    from . import _erf  # its interpolants load with the first call (import cost)

    return _erf.erfc(a, single=a.dtype.itemsize < 8).astype(a.dtype, copy=False)


def _erf_grad(g: Tensor, x: Tensor, y: Any) -> Tensor:
    return mul(g, mul(exp(neg(mul(x, x))), 2.0 / math.sqrt(math.pi)))


erf = _unary(
    "erf", _erf_np, _erf_grad, "x", "Elementwise Gauss error function.", other_dtypes=_real_in_float("erf_vml_cpu"),
    namespace=(TENSORLIB, SPECIAL),
)


def _erfc_grad(g: Tensor, x: Tensor, y: Any) -> Tensor:
    return neg(_erf_grad(g, x, y))


erfc = _unary(
    "erfc", _erfc_np, _erfc_grad, "x", "Elementwise complementary error function.",
    other_dtypes=_real_in_float("erfc_vml_cpu"), namespace=(TENSORLIB, SPECIAL),
)

def _erfinv_np(a: np.ndarray) -> np.ndarray:
    from . import _erf  # its interpolants load with the first call (import cost)

    return _erf.erfinv(a).astype(a.dtype, copy=False)


def _erfinv_grad(g: Tensor, x: Tensor, y: Tensor) -> Tensor:
    # d erfinv(x)/dx = sqrt(pi)/2 * exp(erfinv(x)^2)
    return mul(g, mul(exp(mul(y, y)), math.sqrt(math.pi) / 2.0))


erfinv = _unary(
    "erfinv", _erfinv_np, _erfinv_grad, "y", "Elementwise inverse error function (nan outside [-1, 1]).",
    other_dtypes=_real_in_float("erfinv_vml_cpu"), namespace=(TENSORLIB, SPECIAL),
)

for _fn in (erf, erfc, erfinv):
    _fn.__module__ = __name__  # built by the unary factory, defined here
del _fn
