"""Reductions: sum, mean, prod, max/min, argmax/argmin, var/std, logsumexp, norms, cumulative ops."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .. import _dtype
from .._autograd.graph import Node, SavedTensor, named_node_class, rename_grad_fn, save_input, unpack
from .._dtype import FROM_NP
from .._registry import SPECIAL, TENSORLIB, op
from .._tensor import Tensor, wrap_dim
from ..return_types import (
    aminmax as _aminmax_t,
    cummax as _cummax_t,
    cummin as _cummin_t,
    max as _max_t,
    median as _median_t,
    min as _min_t,
    mode as _mode_t,
    nanmedian as _nanmedian_t,
)
from ._pointwise import ZeroGradBackward, _arr, _finish, _meta, inplace_apply, logaddexp_np
from ._util import (
    GRAD, check_sortable, int_arg, normalize_dims, not_implemented, record, tensor_arg, type_title, wrap, write_out,
)
from .arithmetic import add, div, mul, sub
from .broadcast import _add_reduce, _expand_back, _reduce_dtype, expand, sum
from .comparison import eq, isfinite, isnan, logical_not, logical_xor
from .conversion import conj, full_like_scalar, real, to_dtype
from .indexing import gather, narrow, scatter_into_zeros
from .join_split import cat
from .selection import lerp, maximum, minimum, where
from .shape import flip, movedim, permute, reshape, squeeze, unsqueeze
from .unary import exp, log, sqrt

ndarray = np.ndarray


@op(variants="function method")
def nansum(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None, out: Tensor | None = None) -> Tensor:
    """Sum treating NaN as zero."""
    x = tensor_arg(input, "nansum")
    kind = x._data.dtype.kind
    if kind == "c":
        raise RuntimeError("nansum on CPU does not support complex inputs")
    if kind == "f":
        x = where(isnan(x), 0.0, x)
    if out is not None:
        return sum(x, dim, keepdim, dtype=dtype, out=out)
    return rename_grad_fn(sum(x, dim, keepdim, dtype=dtype), "NansumBackward0")


class MeanBackward0(Node):
    __slots__ = ("dims", "shape", "keepdim", "count")
    dims: tuple[int, ...]
    shape: tuple[int, ...]
    keepdim: bool
    count: int

    def backward(self, g: Tensor) -> tuple:
        if GRAD.enabled and g._requires_grad:
            # recorded (create_graph): torch's formula, the expansion divided by the count (DivBackward1)
            return (divide_by_number(_expand_back(g, self.dims, self.shape, self.keepdim), self.count),)
        return (_expand_back(div(g, self.count), self.dims, self.shape, self.keepdim),)


class DivBackward1(Node):
    """Division by a number, as torch's derivative formulas record it (the Scalar overload: one edge)."""

    __slots__ = ("other",)
    other: Any

    def backward(self, g: Tensor) -> tuple:
        return (divide_by_number(g, self.other),)


def divide_by_number(t: Tensor, other: Any) -> Tensor:
    """``t / other`` for a Python number ``other``, recorded as ``DivBackward1``."""
    r = np.asarray(t._data / other)
    if t._requires_grad and GRAD.enabled:
        res, node = record(DivBackward1, r, (t,))
        node.other = other
        return res
    return wrap(r)


class MulBackward1(Node):
    """Multiplication by a number, as torch's derivative formulas record it (the Scalar overload: one edge)."""

    __slots__ = ("other",)
    other: Any

    def backward(self, g: Tensor) -> tuple:
        other = self.other
        return (multiply_by_number(g, other.conjugate() if isinstance(other, complex) else other),)


def multiply_by_number(t: Tensor, other: Any) -> Tensor:
    """``t * other`` for a Python number ``other``, recorded as ``MulBackward1``."""
    r = np.asarray(t._data * other)
    if t._requires_grad and GRAD.enabled:
        res, node = record(MulBackward1, r, (t,))
        node.other = other
        return res
    return wrap(r)


_MEAN_DIM_NODE = named_node_class(MeanBackward0, "MeanBackward1")  # the dim overload


@op(variants="function method")
def mean(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None, out: Tensor | None = None) -> Tensor:
    """Mean of all elements, or over ``dim``."""
    x = input if type(input) is Tensor else tensor_arg(input, "mean")
    a = x._data
    if dtype is not None:
        a = a.astype(dtype.np)
    if a.dtype.kind not in "fc":
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. "
            f"Got: {type_title(a.dtype)}"
        )
    dims = normalize_dims(dim, a.ndim)
    count = 1
    for d in dims:
        count *= a.shape[d]
    total = _add_reduce(a, axis=dims, keepdims=keepdim)
    if count:
        r = total / count
    else:
        r = np.full(np.shape(total), np.nan, dtype=a.dtype)
    if type(r) is not ndarray:
        r = np.asarray(r)
    if r.dtype != a.dtype:
        r = r.astype(a.dtype)
    if x._requires_grad and GRAD.enabled:
        res, node = record(MeanBackward0 if dim is None else _MEAN_DIM_NODE, r, (x,))
        node.dims, node.shape, node.keepdim, node.count = dims, a.shape, keepdim, count
        return _finish(res, out, "mean")
    return wrap(r) if out is None else write_out(out, wrap(r), "mean")


@op(variants="function method")
def nanmean(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """Mean ignoring NaN values."""
    x = tensor_arg(input, "nanmean")
    kind = (x._data.dtype if dtype is None else dtype.np).kind
    if kind != "f":
        if kind == "c":
            raise RuntimeError("nansum on CPU does not support complex inputs")
        raise RuntimeError(
            f"nanmean(): expected input to have floating point or complex dtype but got {type_title(x._data.dtype)}"
        )
    mask = logical_not(isnan(x))
    return div(nansum(x, dim, keepdim, dtype=dtype), sum(mask, dim, keepdim))


class ProdBackward0(Node):
    __slots__ = ("self_", "result", "dims", "keepdim")
    _saved_slots = ("self_", "result")
    self_: SavedTensor
    result: SavedTensor
    dims: tuple[int, ...]
    keepdim: bool

    def backward(self, g: Tensor) -> tuple:
        x = unpack(self, self.self_)
        if g._data.dtype.kind == "c":  # holomorphic: the conjugate of the rule applied to conj(g)
            return (conj(self._real_rule(conj(g), x)),)
        return (self._real_rule(g, x),)

    def _real_rule(self, g: Tensor, x: Tensor) -> Tensor:
        shape = x._data.shape
        gx = _expand_back(g, self.dims, shape, self.keepdim)
        if not np.any(x._data == 0):
            y = unpack(self, self.result)
            return div(mul(gx, _expand_back(y, self.dims, shape, self.keepdim)), x)
        # Dividing by the input fails at zeros: multiply by the product of the other elements.
        return mul(gx, _prod_of_others(x, self.dims))


_PROD_DIM_NODE = named_node_class(ProdBackward0, "ProdBackward1")  # the dim overload


def _prod_of_others(x: Tensor, dims: tuple) -> Tensor:
    """Each element's product of the other elements of its reduction slice, differentiably (zeros allowed)."""
    if not dims:
        return full_like_scalar(1, x)
    nd = x._data.ndim
    perm = [d for d in range(nd) if d not in dims] + list(dims)
    moved = permute(x, perm)
    lead = moved._data.shape[: nd - len(dims)]
    flat = reshape(moved, lead + (-1,))
    n = flat._data.shape[-1]
    one = wrap(np.ones(lead + (1,), dtype=x._data.dtype))
    # exclusive products from the left and from the right, multiplied
    left = cumprod(cat([one, narrow(flat, -1, 0, n - 1)], -1), -1)
    right = flip(cumprod(cat([one, narrow(flip(flat, (-1,)), -1, 0, n - 1)], -1), -1), (-1,))
    others = reshape(mul(left, right), moved._data.shape)
    return permute(others, tuple(int(i) for i in np.argsort(perm)))


@op(variants="function method")
def prod(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """Product of all elements, or along ``dim``."""
    x = tensor_arg(input, "prod")
    a = x._data
    if dtype is not None:
        a = a.astype(dtype.np)
    if dim is None:
        dims = tuple(range(a.ndim))
        r = _arr(np.prod(a, dtype=_reduce_dtype(a, None)))
    else:
        d = wrap_dim(dim, a.ndim)
        dims = (d,) if a.ndim else ()
        # NumPy 2.5's stubs have no overload for this call (2.4's do); the ignore holds for both
        r = _arr(np.prod(a, axis=dims, keepdims=keepdim, dtype=_reduce_dtype(a, None)))  # type: ignore[call-overload, unused-ignore]
    if x._requires_grad and GRAD.enabled and r.dtype.kind in "fc":
        res, node = record(ProdBackward0 if dim is None else _PROD_DIM_NODE, r, (x,))
        node.self_ = save_input(x)
        node.result = SavedTensor(res, True)
        node.dims, node.keepdim = dims, keepdim if dim is not None else False
        return res
    return wrap(r)


# -- max / min ------------------------------------------------------------------------


class MaxBackward1(Node):
    """max()/min() over all elements: ties share the gradient evenly."""
    __slots__ = ("self_", "result")
    _saved_slots = ("self_", "result")
    self_: SavedTensor
    result: SavedTensor

    def backward(self, g: Tensor) -> tuple:
        x = unpack(self, self.self_)
        y = unpack(self, self.result)
        # a NaN result came from the NaNs
        mask = isnan(x) if np.isnan(y._data).all() and y._data.dtype.kind == "f" else eq(x, y)
        count = int(np.count_nonzero(mask._data))
        return (mul(div(g, count), mask),)


class MaxBackward0(Node):
    """max/min along a dim: the gradient goes to the selected index."""
    __slots__ = ("indices", "dim", "shape", "keepdim")
    indices: np.ndarray
    dim: int
    shape: tuple[int, ...]
    keepdim: bool

    def backward(self, g: Tensor) -> tuple:
        idx = self.indices
        if not self.keepdim:
            g = unsqueeze(g, self.dim)
            idx = np.expand_dims(idx, self.dim)

        return (scatter_into_zeros(g, self.dim, idx, self.shape),)


# the same backward, under torch's name for each op
_MIN_ALL_NODE = named_node_class(MaxBackward1, "MinBackward1")
_MIN_DIM_NODE = named_node_class(MaxBackward0, "MinBackward0")
_MEDIAN_ALL_NODE = named_node_class(MaxBackward1, "MedianBackward0")
_NANMEDIAN_ALL_NODE = named_node_class(MaxBackward1, "NanmedianBackward0")


def _extreme(input: Tensor, dim: Any, keepdim: bool, fname: str, is_max: bool, out: Any) -> Any:
    x = tensor_arg(input, fname)
    if isinstance(dim, Tensor):
        return (maximum if is_max else minimum)(x, dim, out=out)
    a = x._data
    if a.dtype.kind == "c":
        if dim is None:
            raise not_implemented(fname + "_all", a.dtype)
        raise RuntimeError(f"{fname}(): does not support complex input")
    if dim is None:
        if a.size == 0:
            raise RuntimeError(
                f"{fname}(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument."
            )
        # NumPy 2.5's stubs have no overload for this call (2.4's do); the ignore holds for both
        r = _arr((np.maximum if is_max else np.minimum).reduce(a, axis=None))  # type: ignore[call-overload, unused-ignore]
        if x._requires_grad and GRAD.enabled:
            res, node = record(MaxBackward1 if is_max else _MIN_ALL_NODE, r, (x,))
            node.self_ = save_input(x)
            node.result = SavedTensor(res, True)
            return _finish(res, out, fname)
        return _finish(wrap(r), out, fname)
    d = wrap_dim(dim, a.ndim)
    work = a if a.ndim else a.reshape(1)
    if work.shape[d] == 0:
        raise IndexError(f"{fname}(): Expected reduction dim {d} to have non-zero size.")
    # NumPy's argmax/argmin give the first NaN of a slice that has one: NaN wins, as in torch
    idx = work.argmax(axis=d, keepdims=True) if is_max else work.argmin(axis=d, keepdims=True)
    vals = np.take_along_axis(work, idx, axis=d)  # the element at the index (of equal values, -0.0 or 0.0, the first)
    if not keepdim:
        vals, idx = vals.squeeze(d), idx.squeeze(d)
    if a.ndim == 0:
        vals, idx = vals.reshape(()), idx.reshape(())
    vals = _arr(vals)
    idx = _arr(idx).astype(np.int64, copy=False)
    if x._requires_grad and GRAD.enabled:
        values, node = record(MaxBackward0 if is_max else _MIN_DIM_NODE, vals, (x,))
        node.indices = idx if keepdim or a.ndim == 0 else idx
        node.dim = d
        node.shape = a.shape
        node.keepdim = keepdim or a.ndim == 0
    else:
        values = wrap(vals)
    cls = _max_t if is_max else _min_t
    result = cls(values, wrap(idx))
    if out is not None:
        if not (isinstance(out, (tuple, list)) and len(out) == 2):
            raise TypeError(f"{fname}(): argument 'out' must be tuple of Tensors, not {type(out).__name__}")
        write_out(out[0], values, fname)
        write_out(out[1], result[1], fname)
        return cls(out[0], out[1])
    return result


@op(variants="function method")
def max(input: Tensor, dim: Any = None, keepdim: bool = False, *, out: Any = None) -> Any:  # noqa: A001
    """The largest element; with ``dim``, ``(values, indices)`` along it; with a tensor, :func:`maximum`."""
    return _extreme(input, dim, keepdim, "max", True, out)


@op(variants="function method")
def min(input: Tensor, dim: Any = None, keepdim: bool = False, *, out: Any = None) -> Any:  # noqa: A001
    """The smallest element; with ``dim``, ``(values, indices)`` along it; with a tensor, :func:`minimum`."""
    return _extreme(input, dim, keepdim, "min", False, out)


class AmaxBackward0(Node):
    __slots__ = ("self_", "result", "dims", "keepdim")
    _saved_slots = ("self_", "result")
    self_: SavedTensor
    result: SavedTensor
    dims: tuple[int, ...]
    keepdim: bool

    def backward(self, g: Tensor) -> tuple:
        x = unpack(self, self.self_)
        y = unpack(self, self.result)
        shape = x._data.shape
        yx = _expand_back(y, self.dims, shape, self.keepdim)
        mask = to_dtype(eq(x, yx), FROM_NP[g._data.dtype])
        count = _expand_back(sum(mask, self.dims, keepdim=self.keepdim), self.dims, shape, self.keepdim)
        return (div(mul(_expand_back(g, self.dims, shape, self.keepdim), mask), count),)


_AMIN_NODE = named_node_class(AmaxBackward0, "AminBackward0")


def _amax(input: Tensor, dim: Any, keepdim: bool, fname: str, np_fn: Any, out: Any) -> Tensor:
    x = tensor_arg(input, fname)
    a = x._data
    if a.dtype.kind == "c":
        raise not_implemented(fname[1:] + "_values_cpu", a.dtype)
    if dim in ((), []) and a.size == 0:
        raise RuntimeError(f"{fname}(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
                           "reduction dim with the 'dim' argument.")
    dims = normalize_dims(dim, a.ndim)
    for d in dims:
        if a.shape[d] == 0:
            raise IndexError(f"{fname}(): Expected reduction dim {d} to have non-zero size.")
    if not dims and a.ndim and a.size == 0:
        raise RuntimeError(f"{fname}(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument.")
    r = _arr(np_fn(a, axis=dims, keepdims=keepdim))
    if x._requires_grad and GRAD.enabled:
        res, node = record(AmaxBackward0 if fname == "amax" else _AMIN_NODE, r, (x,))
        node.self_ = save_input(x)
        node.result = SavedTensor(res, True)
        node.dims, node.keepdim = dims, keepdim
        return _finish(res, out, fname)
    return _finish(wrap(r), out, fname)


@op(variants="function method")
def amax(input: Tensor, dim: Any = (), keepdim: bool = False, *, out: Tensor | None = None) -> Tensor:
    """Maximum over ``dim`` (all dims by default); ties share the gradient."""
    return _amax(input, dim, keepdim, "amax", np.max, out)


@op(variants="function method")
def amin(input: Tensor, dim: Any = (), keepdim: bool = False, *, out: Tensor | None = None) -> Tensor:
    """Minimum over ``dim`` (all dims by default); ties share the gradient."""
    return _amax(input, dim, keepdim, "amin", np.min, out)


@op(variants="function method")
def aminmax(input: Tensor, *, dim: int | None = None, keepdim: bool = False) -> Any:
    """``(min, max)`` over ``dim`` or all elements."""
    x = tensor_arg(input, "aminmax")
    if x._data.dtype.kind == "c":
        raise not_implemented("aminmax_cpu", x._data.dtype)
    d = () if dim is None else dim
    return _aminmax_t(amin(x, d, keepdim), amax(x, d, keepdim))


def _arg(input: Tensor, dim: Any, keepdim: bool, fname: str, np_fn: Any) -> Tensor:
    x = tensor_arg(input, fname)
    a = x._data
    if a.dtype.kind in "bc":
        raise RuntimeError(f"{fname}(): does not support {'bool' if a.dtype.kind == 'b' else 'complex'} input")
    if dim is None:
        if a.size == 0:
            raise IndexError(f"{fname}(): Expected reduction dim to be specified for input.numel() == 0.")
        r = np.asarray(np_fn(a.reshape(-1)))
        if keepdim:
            r = r.reshape((1,) * a.ndim)
        return wrap(r.astype(np.int64))
    d = wrap_dim(dim, a.ndim)
    work = a if a.ndim else a.reshape(1)
    if work.shape[d] == 0:
        raise IndexError(f"{fname}(): Expected reduction dim {d} to have non-zero size.")
    r = np_fn(work, axis=d, keepdims=bool(keepdim and a.ndim))
    if a.ndim == 0:
        r = np.asarray(r).reshape(())
    return wrap(_arr(r).astype(np.int64, copy=False))


@op(variants="function method")
def argmax(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    """Index of the largest element (of the flattened tensor, or along ``dim``)."""
    return _arg(input, dim, keepdim, "argmax", np.ndarray.argmax)


@op(variants="function method")
def argmin(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    """Index of the smallest element (of the flattened tensor, or along ``dim``)."""
    return _arg(input, dim, keepdim, "argmin", np.ndarray.argmin)


# -- statistics ------------------------------------------------------------------------


def _correction(unbiased: Any, correction: Any) -> float:
    if correction is not None:
        if isinstance(correction, Tensor) and correction._data.ndim == 0:
            return float(correction.item())
        if isinstance(correction, bool) or not isinstance(correction, (int, float, np.number)):
            raise TypeError(f"var(): argument 'correction' must be Number, not {type(correction).__name__}")
        return correction  # type: ignore[return-value]  # an int stays an int (torch's integer correction)
    if unbiased is None:
        return 1
    return 1 if unbiased else 0


@op(variants="function method")
def var(
    input: Tensor, dim: Any = None, unbiased: bool | None = None, keepdim: bool = False, *, correction: Any = None,
    out: Tensor | None = None,
) -> Tensor:
    """Variance over ``dim`` (all elements by default), with Bessel's ``correction`` (1 by default)."""
    x = tensor_arg(input, "var")
    if isinstance(dim, bool):  # var(input, unbiased) legacy overload
        unbiased, dim = dim, None
    c = _correction(unbiased, correction)
    dims = normalize_dims(dim, x._data.ndim)
    n = 1
    for d in dims:
        n *= x._data.shape[d]
    centered = sub(x, mean(x, dims, keepdim=True))
    sq = mul(centered, conj(centered)) if x._data.dtype.kind == "c" else mul(centered, centered)
    denom = n - c
    if denom <= 0:

        warnings.warn(
            "var(): degrees of freedom is <= 0. Correction should be strictly less than the reduction factor "
            "(input numel divided by output numel).", UserWarning, stacklevel=3,
        )
    res = rename_grad_fn(div(sum(sq, dims, keepdim=keepdim), denom if denom > 0 else 0.0), "VarBackward0")
    if x._data.dtype.kind == "c":
        res = real(res)
    return _finish(res, out, "var")


@op(variants="function method")
def std(
    input: Tensor, dim: Any = None, unbiased: bool | None = None, keepdim: bool = False, *, correction: Any = None,
    out: Tensor | None = None,
) -> Tensor:
    """Standard deviation over ``dim``: ``sqrt(var(...))``; its gradient is 0 where it is 0, as in torch."""
    v = var(input, dim, unbiased, keepdim, correction=correction)
    if not (v._requires_grad and GRAD.enabled and np.any(v._data == 0)):
        return _finish(rename_grad_fn(sqrt(v), "StdBackward0"), out, "std")
    # sqrt's gradient at 0 is infinite: route zero variances around it
    zero = eq(v, 0)
    return _finish(rename_grad_fn(where(zero, 0.0, sqrt(where(zero, 1.0, v))), "StdBackward0"), out, "std")


@op(variants="function method")
def var_mean(input: Tensor, dim: Any = None, unbiased: bool | None = None, keepdim: bool = False, *, correction: Any = None) -> tuple:
    """``(var, mean)`` over ``dim``."""
    v, m = var(input, dim, unbiased, keepdim, correction=correction), mean(input, dim, keepdim)
    return rename_grad_fn(v, "VarMeanBackward0"), rename_grad_fn(m, "VarMeanBackward0")


@op(variants="function method")
def std_mean(input: Tensor, dim: Any = None, unbiased: bool | None = None, keepdim: bool = False, *, correction: Any = None) -> tuple:
    """``(std, mean)`` over ``dim``."""
    s, m = std(input, dim, unbiased, keepdim, correction=correction), mean(input, dim, keepdim)
    return rename_grad_fn(s, "StdMeanBackward0"), rename_grad_fn(m, "StdMeanBackward0")


@op(variants="function method", namespace=(TENSORLIB, SPECIAL))
def logsumexp(input: Tensor, dim: Any, keepdim: bool = False, *, out: Tensor | None = None) -> Tensor:
    """``log(sum(exp(input), dim))`` computed without overflow."""
    x = tensor_arg(input, "logsumexp")
    if x._data.dtype.kind not in "fc":
        x = to_dtype(x, _dtype.DEFAULT.float)
    dims = normalize_dims(dim, x._data.ndim)
    m = np.max(x._data, axis=dims, keepdims=True) if x._data.size else np.zeros((1,) * x._data.ndim, x._data.dtype)
    m = np.where(np.isfinite(m), m, 0)
    shifted = sub(x, wrap(m))
    res = add(log(sum(exp(shifted), dims, keepdim=True)), wrap(m))
    if not keepdim:
        res = reshape(res, tuple(s for i, s in enumerate(res._data.shape) if i not in dims))
    return _finish(rename_grad_fn(res, "LogsumexpBackward0"), out, "logsumexp")


def _bool_reduce(input: Tensor, dim: Any, keepdim: bool, out: Any, fname: str, np_fn: Any) -> Tensor:
    x = tensor_arg(input, fname)
    a = x._data
    if isinstance(out, Tensor) and out._data.dtype not in (np.bool_, np.uint8):
        raise RuntimeError(f"{fname} only supports bool tensor for result, got: {type_title(out._data.dtype)}")
    # dim=() reduces nothing here (sum's empty dim reduces everything)
    axis = None if dim is None else () if isinstance(dim, (list, tuple)) and not dim else normalize_dims(dim, a.ndim)
    r = _arr(np_fn(a, axis=axis, keepdims=keepdim and dim is not None))
    if a.dtype == np.uint8:  # torch keeps uint8 (for backward compatibility), every other dtype gives bool
        r = r.astype(np.uint8)
    return _finish(wrap(r), out, fname)


@op(variants="function method")
def all(input: Tensor, dim: Any = None, keepdim: bool = False, *, out: Tensor | None = None) -> Tensor:  # noqa: A001
    """Whether all elements (over ``dim``) are nonzero."""
    return _bool_reduce(input, dim, keepdim, out, "all", np.all)


@op(variants="function method")
def any(input: Tensor, dim: Any = None, keepdim: bool = False, *, out: Tensor | None = None) -> Tensor:  # noqa: A001
    """Whether any element (over ``dim``) is nonzero."""
    return _bool_reduce(input, dim, keepdim, out, "any", np.any)


@op(variants="function method")
def count_nonzero(input: Tensor, dim: Any = None) -> Tensor:
    """Number of nonzero elements (over ``dim``)."""
    x = tensor_arg(input, "count_nonzero")
    axis = None if dim is None else normalize_dims(dim, x._data.ndim)
    return wrap(_arr(np.count_nonzero(x._data, axis=axis or None)).astype(np.int64))


class CumsumBackward0(Node):
    __slots__ = ("dim",)
    dim: int

    def backward(self, g: Tensor) -> tuple:
        d = self.dim
        return (flip(cumsum(flip(g, (d,)), d), (d,)),)


@op(variants="function method")
def cumsum(input: Tensor, dim: int, *, dtype: Any = None, out: Tensor | None = None) -> Tensor:
    """Cumulative sum along ``dim``."""
    x = tensor_arg(input, "cumsum")
    a = x._data
    if dtype is not None:
        a = a.astype(dtype.np)
    d = wrap_dim(dim, a.ndim)
    r = np.cumsum(a if a.ndim else a.reshape(1), axis=d, dtype=_reduce_dtype(a, None)).reshape(a.shape)
    if x._requires_grad and GRAD.enabled and r.dtype.kind in "fc":
        res, node = record(CumsumBackward0, r, (x,))
        node.dim = d
        return _finish(res, out, "cumsum")
    return _finish(wrap(r), out, "cumsum")


class CumprodBackward0(Node):
    __slots__ = ("self_", "result", "dim")
    _saved_slots = ("self_", "result")
    self_: SavedTensor
    result: SavedTensor
    dim: int

    def backward(self, g: Tensor) -> tuple:
        x, y = unpack(self, self.self_), unpack(self, self.result)
        if g._data.dtype.kind == "c":  # holomorphic: the conjugate of the rule applied to conj(g)
            return (conj(_cumprod_grad(conj(g), x, y, self.dim)),)
        return (_cumprod_grad(g, x, y, self.dim),)


def _reverse_cumsum(t: Tensor, d: int) -> Tensor:
    return flip(cumsum(flip(t, (d,)), d), (d,))


def _cumprod_grad(g: Tensor, x: Tensor, y: Tensor, d: int) -> Tensor:
    """``dL/dx_i = sum_{k >= i} g_k prod_{j <= k, j != i} x_j``, written with differentiable ops."""
    if not np.any(x._data == 0):
        return div(_reverse_cumsum(mul(g, y), d), x)
    # Let z be the first zero of each slice, h = prod_{j < z} x_j and
    # t = sum_{k >= z} g_k prod_{z < j <= k} x_j. Then exactly:
    #   i < z: sum_{k < z} g_k y_k / x_i + h x_z t / x_i
    #   i = z: h t
    #   i > z: h x_z * (the same gradient for the elements after z alone)
    # The x_z terms are zero but their derivatives are not: they are only built
    # when the gradient itself is being differentiated.
    a = np.moveaxis(x._data, d, -1)
    n = a.shape[-1]
    zero = a == 0
    z = np.where(zero.any(-1), zero.argmax(-1), n)[..., None]
    k = np.arange(n)

    def m(cond: np.ndarray) -> Tensor:
        return wrap(np.moveaxis(cond, -1, d))

    before, at, after = m(k < z), m(k == z), m(k > z)
    x_after = where(after, x, 1.0)
    head = prod(where(before, x, 1.0), d, keepdim=True)
    tail = sum(mul(mul(g, cumprod(x_after, d)), logical_not(before)), d, keepdim=True)
    num = _reverse_cumsum(mul(mul(g, y), before), d)
    out = mul(head, mul(tail, at))
    if GRAD.enabled and (g._requires_grad or x._requires_grad):
        x_z = sum(mul(x, at), d, keepdim=True)
        hz = mul(head, x_z)
        num = add(num, mul(hz, tail))
        rest = _cumprod_grad(g, x_after, cumprod(x_after, d), d)
        out = add(out, mul(mul(hz, rest), after))
    return add(out, mul(div(num, where(before, x, 1.0)), before))


@op(variants="method")
def cumsum_(self: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """In-place :func:`cumsum`."""
    return inplace_apply(self, cumsum, (dim,), {"dtype": dtype}, "cumsum_")


@op(variants="method")
def cumprod_(self: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """In-place :func:`cumprod`."""
    return inplace_apply(self, cumprod, (dim,), {"dtype": dtype}, "cumprod_")


@op(variants="function method")
def cumprod(input: Tensor, dim: int, *, dtype: Any = None, out: Tensor | None = None) -> Tensor:
    """Cumulative product along ``dim``."""
    x = tensor_arg(input, "cumprod")
    a = x._data
    if dtype is not None:
        a = a.astype(dtype.np)
    d = wrap_dim(dim, a.ndim)
    r = np.cumprod(a if a.ndim else a.reshape(1), axis=d, dtype=_reduce_dtype(a, None)).reshape(a.shape)
    if x._requires_grad and GRAD.enabled and r.dtype.kind in "fc":
        res, node = record(CumprodBackward0, r, (x,))
        node.self_ = save_input(x)
        node.result = SavedTensor(res, True)
        node.dim = d
        return _finish(res, out, "cumprod")
    return _finish(wrap(r), out, "cumprod")


@op(variants="function method")
def median(input: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
    """The lower median of all elements, or ``(values, indices)`` along ``dim``; NaN if a NaN is present."""
    return _median(input, dim, keepdim, "median", ignore_nan=False)


@op(variants="function method")
def nanmedian(input: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
    """:func:`median` ignoring NaN (NaN only where a whole slice is NaN)."""
    return _median(input, dim, keepdim, "nanmedian", ignore_nan=True)


def _median(input: Tensor, dim: Any, keepdim: bool, fname: str, ignore_nan: bool) -> Any:
    x = tensor_arg(input, fname)
    a = x._data
    check_sortable(a, "median")

    if dim is None:
        if a.size == 0:
            # NaN, or for integers what converting NaN gives on torch's CPUs (the lowest value)
            empty = np.nan if a.dtype.kind in "fc" else np.iinfo(a.dtype).min if a.dtype.kind in "iu" else False
            if x._requires_grad and GRAD.enabled:  # no element to send a gradient to: zeros
                res, node = record(ZeroGradBackward, np.array(empty, dtype=a.dtype), (x,))
                node.metas = (_meta(x),)
                return res
            return wrap(np.array(empty, dtype=a.dtype))
        flat = a.reshape(-1)
        r = flat[_median_indices(flat, 0, ignore_nan)].reshape(())
        if x._requires_grad and GRAD.enabled:
            # ties share the gradient, as for max()
            res, node = record(_NANMEDIAN_ALL_NODE if ignore_nan else _MEDIAN_ALL_NODE, r, (x,))
            node.self_, node.result = save_input(x), SavedTensor(res, True)
            return res
        return wrap(r)
    d = wrap_dim(dim, a.ndim)
    if a.ndim == 0:
        return (_nanmedian_t if ignore_nan else _median_t)(x, wrap(np.zeros((), dtype=np.int64)))
    if a.shape[d] == 0:
        raise IndexError(f"{fname}(): Expected reduction dim {d} to have non-zero size.")
    idx = _median_indices(a, d, ignore_nan)
    values = gather(x, d, wrap(idx))
    if not keepdim:
        values = squeeze(values, d)
        idx = np.squeeze(idx, d)
    values = rename_grad_fn(values, "NanmedianBackward1" if ignore_nan else "MedianBackward1")
    return (_nanmedian_t if ignore_nan else _median_t)(values, wrap(idx.astype(np.int64)))


def _median_indices(a: np.ndarray, d: int, ignore_nan: bool) -> np.ndarray:
    """Per slice along ``d`` (kept as size 1), the index of the lower median."""
    if a.dtype.kind != "f" or not np.isnan(a).any():
        from .sorting import kth_indices  # (sorting loads on first use: not at import)

        return kth_indices(a, d, (a.shape[d] - 1) // 2)
    order = np.argsort(a, axis=d, kind="stable")  # NaN sorts last
    nan = np.isnan(a)
    n_valid = a.shape[d] - nan.sum(axis=d, keepdims=True)
    if ignore_nan:
        k = np.maximum(n_valid - 1, 0) // 2
        return np.take_along_axis(order, k, axis=d)
    idx = np.take(order, [(a.shape[d] - 1) // 2], axis=d)
    # a slice holding NaN has NaN as its median, at its first NaN
    first_nan = np.expand_dims(np.argmax(nan, axis=d), d)
    return np.where(n_valid < a.shape[d], first_nan, idx)


@op(variants="function method")
def mode(input: Tensor, dim: int = -1, keepdim: bool = False) -> Any:
    """The most frequent value along ``dim`` (the smallest on ties) and its last index."""
    x = tensor_arg(input, "mode")
    a = x._data
    d = wrap_dim(dim, a.ndim)
    if a.ndim == 0:
        return _mode_t(x, wrap(np.zeros((), dtype=np.int64)))
    if a.shape[d] == 0:
        raise IndexError(f"mode(): Expected reduction dim {d} to have non-zero size.")
    check_sortable(a, "mode")
    moved = np.moveaxis(a, d, -1)
    flat = moved.reshape(-1, moved.shape[-1])
    idxs = _mode_indices(flat).reshape(moved.shape[:-1])

    gi = np.expand_dims(idxs, d)
    values = gather(x, d, wrap(gi))
    if not keepdim:
        values = squeeze(values, d)
    else:
        idxs = gi
    return _mode_t(rename_grad_fn(values, "ModeBackward0"), wrap(idxs))


def _mode_indices(rows: np.ndarray) -> np.ndarray:
    """For each row, the last index of its most frequent value (the smallest such value; NaNs count as one value).

    The rows sorted, their runs of equal values counted with one bincount, and each row's first longest run found
    with two segment reductions: no loop over the rows.
    """
    r, n = rows.shape
    s = np.sort(rows, axis=1)  # NaN sorts last
    differs = s[:, 1:] != s[:, :-1]
    if s.dtype.kind in "fc":
        differs &= ~(np.isnan(s[:, 1:]) & np.isnan(s[:, :-1]))
    starts = np.concatenate([np.ones((r, 1), bool), differs], axis=1).reshape(-1)
    first = np.flatnonzero(starts)  # flat position of each run's first element
    counts = np.diff(np.append(first, r * n))
    row_of_run = first // n
    row_first = np.searchsorted(row_of_run, np.arange(r))  # each row's first run
    longest = np.maximum.reduceat(counts, row_first)
    run_no = np.arange(first.size)
    chosen = np.minimum.reduceat(np.where(counts == longest[row_of_run], run_no, first.size), row_first)
    v = s.reshape(-1)[first[chosen]]
    hit = rows == v[:, None]
    if rows.dtype.kind in "fc":
        hit |= np.isnan(v)[:, None] & np.isnan(rows)
    return n - 1 - np.argmax(hit[:, ::-1], axis=1)


# -- cumulative extremes, logcumsumexp, differences and distances ---------------------------------


class CummaxBackward0(Node):
    """The gradient of each running extreme goes to the element it came from."""
    __slots__ = ("indices", "dim", "shape")
    indices: np.ndarray
    dim: int
    shape: tuple[int, ...]

    def backward(self, g: Tensor) -> tuple:

        return (scatter_into_zeros(g, self.dim, self.indices, self.shape),)


_CUMMIN_NODE = named_node_class(CummaxBackward0, "CumminBackward0")


def _cum_extreme(input: Tensor, dim: int, fname: str, is_max: bool) -> Any:
    x = tensor_arg(input, fname)
    a = x._data
    if a.dtype.kind == "c":
        raise not_implemented(fname + "_cpu", a.dtype)
    d = wrap_dim(dim, a.ndim)
    work = a if a.ndim else a.reshape(1)
    running = (np.maximum if is_max else np.minimum).accumulate(work, axis=d)  # NaN sticks once seen, as in torch
    # the index moves wherever an element is the running extreme itself (ties move it to the later one) or is a NaN
    moves = work == running
    if a.dtype.kind == "f":
        moves |= np.isnan(work)
    shape = [1] * work.ndim
    shape[d] = -1
    positions = np.arange(work.shape[d], dtype=np.int64).reshape(shape)
    idx = np.maximum.accumulate(np.where(moves, positions, 0), axis=d).reshape(a.shape)
    values = np.take_along_axis(a if a.ndim else a.reshape(1), idx if a.ndim else idx.reshape(1), axis=d)
    values = values.reshape(a.shape)

    cls = _cummax_t if is_max else _cummin_t
    if x._requires_grad and GRAD.enabled and a.dtype.kind == "f":
        res, node = record(CummaxBackward0 if is_max else _CUMMIN_NODE, values, (x,))
        node.indices, node.dim, node.shape = idx, d, a.shape
        return cls(res, wrap(idx))
    return cls(wrap(values), wrap(idx))


@op(variants="function method")
def cummax(input: Tensor, dim: int) -> Any:
    """``(values, indices)`` of the running maximum along ``dim``."""
    return _cum_extreme(input, dim, "cummax", True)


@op(variants="function method")
def cummin(input: Tensor, dim: int) -> Any:
    """``(values, indices)`` of the running minimum along ``dim``."""
    return _cum_extreme(input, dim, "cummin", False)


class LogcumsumexpBackward0(Node):
    __slots__ = ("self_", "result", "dim")
    _saved_slots = ("self_", "result")
    self_: SavedTensor
    result: SavedTensor
    dim: int

    def backward(self, g: Tensor) -> tuple:
        # d y_k / d x_i = exp(x_i - y_k) for i <= k; shifted by each slice's last
        # (largest) output so that neither exponential overflows in common ranges
        x, y, d = unpack(self, self.self_), unpack(self, self.result), self.dim
        n = x._data.shape[d] if x._data.ndim else 1
        c = narrow(y, d, n - 1, 1) if x._data.ndim else y
        c = where(isfinite(c), c, 0.0)
        # complex inputs: the conjugate of these holomorphic derivatives
        acc = _reverse_cumsum(mul(g, conj(exp(sub(c, y)))), d) if x._data.ndim else mul(g, conj(exp(sub(c, y))))
        return (mul(acc, conj(exp(sub(x, c)))),)


@op(variants="function method")
def logcumsumexp(input: Tensor, dim: int, *, out: Tensor | None = None) -> Tensor:
    """``log(cumsum(exp(input), dim))`` computed stably."""
    x = tensor_arg(input, "logcumsumexp")
    a = x._data
    if a.dtype.kind not in "fc":
        raise not_implemented("logcumsumexp_out_cpu", a.dtype)
    d = wrap_dim(dim, a.ndim)
    if a.ndim == 0:
        r = a.copy()
    elif a.dtype.kind == "f":
        r = np.logaddexp.accumulate(a, axis=d)
    else:  # no complex ufunc to accumulate: one vectorised step per position along dim
        r = np.moveaxis(a, d, 0).copy()
        for k in range(1, r.shape[0]):
            r[k] = logaddexp_np(r[k - 1], r[k])
        r = np.moveaxis(r, 0, d)
    if x._requires_grad and GRAD.enabled:
        res, node = record(LogcumsumexpBackward0, r, (x,))
        node.self_, node.result, node.dim = save_input(x), SavedTensor(res, True), d
        return _finish(res, out, "logcumsumexp")
    return _finish(wrap(r), out, "logcumsumexp")


@op(variants="function method")
def diff(input: Tensor, n: int = 1, dim: int = -1, prepend: Tensor | None = None, append: Tensor | None = None) -> Tensor:
    """The ``n``-th forward difference along ``dim`` (after joining ``prepend`` and ``append``)."""
    x = tensor_arg(input, "diff")
    if x._data.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if type(n) is int and n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = wrap_dim(dim, x._data.ndim)
    parts = [p for p in (prepend, x, append) if p is not None]
    if len(parts) > 1:
        x = cat([p if p._data.ndim else expand(reshape(p, (1,) * x._data.ndim), x._data.shape[:d] + (1,) + x._data.shape[d + 1 :]) for p in parts], d)
    for _ in range(n):
        size = x._data.shape[d]
        if size == 0:
            break
        later, earlier = narrow(x, d, 1, size - 1), narrow(x, d, 0, size - 1)
        x = logical_xor(later, earlier) if x._data.dtype.kind == "b" else sub(later, earlier)
    return x


# -- quantiles and histograms --------------------------------------------------------------------------------

_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(input: Tensor, q: Any, dim: Any, keepdim: bool, interpolation: str, fname: str,
              ignore_nan: bool) -> Tensor:
    """Quantiles from the sorted values: a gather of the neighbouring ranks and a lerp (so differentiable)."""
    x = tensor_arg(input, fname)
    a = x._data
    if a.dtype not in (np.float32, np.float64):
        raise RuntimeError(f"{fname}() input tensor must be either float or double dtype")
    if isinstance(q, Tensor):
        if q._data.ndim > 1:
            raise RuntimeError(f"{fname}() q must be a scalar or 1D tensor")
        if q._data.dtype != a.dtype:
            raise RuntimeError(f"{fname}() q tensor must be same dtype as the input tensor")
        qs, scalar_q = q._data.reshape(-1).astype(np.float64), q._data.ndim == 0
        if ((qs < 0) | (qs > 1)).any():
            raise RuntimeError(f"{fname}() q values must be in the range [0, 1]")
    else:
        if isinstance(q, bool) or not isinstance(q, (int, float, np.number)):
            raise TypeError(f"{fname}(): argument 'q' must be float or Tensor, not {type(q).__name__}")
        qs, scalar_q = np.array([float(q)]), True
        if not 0 <= qs[0] <= 1:
            raise RuntimeError(f"{fname}() q must be in the range [0, 1] but got {q}")
    if a.size == 0:
        raise RuntimeError(f"{fname}() input tensor must be non-empty")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(
            f"{fname}() interpolation must be one of linear, lower, higher, midpoint or nearest, but got "
            f"{interpolation}"
        )
    ndim = a.ndim
    if dim is None:
        src, d = reshape(x, (-1,)), 0
    else:
        d = wrap_dim(dim, ndim)
        src = x if ndim else reshape(x, (1,))
    from .sorting import sort  # sorting loads on first use (import cost)

    srt = movedim(sort(src, d).values, d, -1)  # (..., n), NaN last
    sd = srt._data
    n = sd.shape[-1]
    nan = np.isnan(sd)
    counts = (n - nan.sum(-1)) if ignore_nan else np.full(sd.shape[:-1], n)
    rank = qs.reshape((-1,) + (1,) * (sd.ndim - 1)) * np.maximum(counts - 1, 0)  # (Q, ...)
    lo = np.floor(rank)
    if interpolation == "lower":
        idx_lo = idx_hi = lo
    elif interpolation == "higher":
        idx_lo = idx_hi = np.ceil(rank)
    elif interpolation == "nearest":
        idx_lo = idx_hi = np.round(rank)
    else:
        idx_lo, idx_hi = lo, np.ceil(rank)
    big = expand(unsqueeze(srt, 0), (len(qs),) + sd.shape)

    def at(idx: np.ndarray) -> Tensor:
        index = wrap(idx.astype(np.int64)[..., None])
        return squeeze(gather(big, -1, index), -1)

    v_lo = at(idx_lo)
    if interpolation in ("linear", "midpoint"):
        v_hi = at(idx_hi)
        w = (rank - lo) if interpolation == "linear" else np.full(rank.shape, 0.5)
        res = lerp(v_lo, v_hi, wrap(w.astype(a.dtype)))
    else:
        res = v_lo
    invalid = (counts == 0) if ignore_nan else nan.any(-1)
    if invalid.any():
        res = where(wrap(np.broadcast_to(invalid, res._data.shape)), float("nan"), res)
    if keepdim:
        if dim is None:
            res = reshape(res, (len(qs),) + (1,) * ndim)
        elif ndim:
            res = unsqueeze(res, d + 1)
    elif dim is not None and not ndim:
        res = reshape(res, (len(qs),))
    if scalar_q:
        res = squeeze(res, 0)
    return res


@op(variants="function method")
def quantile(input: Tensor, q: Any, dim: int | None = None, keepdim: bool = False, *, interpolation: str = "linear",
             out: Tensor | None = None) -> Tensor:
    """The ``q``-th quantiles of ``input`` (over all elements, or along ``dim``); NaN where a slice holds NaN."""
    return _finish(_quantile(input, q, dim, keepdim, interpolation, "quantile", False), out, "quantile")


@op(variants="function method")
def nanquantile(input: Tensor, q: Any, dim: int | None = None, keepdim: bool = False, *,
                interpolation: str = "linear", out: Tensor | None = None) -> Tensor:
    """:func:`quantile` ignoring NaN values (NaN only for slices that are all NaN)."""
    return _finish(_quantile(input, q, dim, keepdim, interpolation, "nanquantile", True), out, "nanquantile")


@op(variants="function method")
def histc(input: Tensor, bins: int = 100, min: Any = 0, max: Any = 0, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    """A histogram of ``bins`` equal-width bins over ``[min, max]`` (the data's range when both are 0);
    elements outside the range are ignored."""
    x = tensor_arg(input, "histc")
    a = x._data
    if a.dtype.kind not in "f":
        raise not_implemented("histogram_cpu", a.dtype)
    bins = int_arg(bins, "histc", "bins", 2)
    if bins <= 0:
        raise RuntimeError("tensorlib.histc(): bins must be > 0")
    for name, v in (("min", min), ("max", max)):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.number, Tensor)):
            raise TypeError(f"histc(): argument '{name}' must be Number, not {type(v).__name__}")
    lo, hi = float(min), float(max)
    if lo == hi and a.size:
        lo, hi = float(a.min()), float(a.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi:
        raise RuntimeError("tensorlib.histc: max must be larger than min")
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise RuntimeError(f"tensorlib.histc: range of [{lo}, {hi}] is not finite")
    v = a.reshape(-1).astype(np.float64)
    v = v[(v >= lo) & (v <= hi)]
    idx = np.minimum(((v - lo) * bins / (hi - lo)).astype(np.int64), bins - 1)
    counts = np.bincount(idx, minlength=bins).astype(a.dtype)
    return _finish(wrap(counts), out, "histc")
