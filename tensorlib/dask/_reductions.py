"""Reductions on DaskTensors: sum, mean, prod, max/min (with and without dim), argmax/argmin, all/any, var/std,
logsumexp, and softmax/log_softmax and cumulative sums along a dimension.

When every reduced dimension is one chunk, each chunk is reduced by the function that was called (exact).
Otherwise the chunks' partial results are combined in a tree (``dask.array.reduction``), each step computed with
tensorlib's function; mean, var/std, logsumexp and softmax over chunked dimensions are composed of those.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import dask.array as da
import numpy as np

import tensorlib
import tensorlib.nn.functional as F
import tensorlib.special as special

from ._pointwise import pointwise, protocol_name
from ._tensor import HANDLED, DaskTensor, Template, blockwise, evaluate, letters, meta, standin

T = tensorlib.Tensor
_tl: Any = tensorlib  # tensorlib's functions, called on DaskTensors (its annotations say Tensor)


def _dims(dim: Any, ndim: int, empty_means_all: bool = True) -> tuple[int, ...]:
    """The reduced dimensions, non-negative and sorted (the arguments were checked by tensorlib already)."""
    if ndim == 0:
        return ()
    if dim is None or (empty_means_all and isinstance(dim, (tuple, list)) and len(dim) == 0):
        return tuple(range(ndim))
    dims = (dim,) if not isinstance(dim, (tuple, list)) else tuple(dim)
    return tuple(sorted({int(d) % ndim for d in dims}))


def _single_chunk(x: DaskTensor, dims: tuple[int, ...]) -> bool:
    return all(x._array.numblocks[d] == 1 for d in dims)


def _check_out(name: str, out: Any) -> None:
    if out is not None:
        raise NotImplementedError(f"{name}: out= is not supported on a DaskTensor")


def map_reduce(func: Callable, args: tuple, kwargs: dict, x: DaskTensor, dims: tuple[int, ...], keepdim: bool,
               dtype: tensorlib.dtype, pick: int | None = None) -> DaskTensor:
    """``func(*args, **kwargs)`` on each chunk of ``x`` on its own: every dimension in ``dims`` is one chunk."""
    template = Template(args, kwargs)
    (array,) = template.arrays()
    in_ind = letters("d", x.ndim)
    if keepdim:
        out_ind, options = in_ind, {"adjust_chunks": {in_ind[d]: 1 for d in dims}}
    else:
        out_ind, options = tuple(ix for i, ix in enumerate(in_ind) if i not in dims), {}
    return DaskTensor(blockwise(template.kernel(func, pick=pick), out_ind, [(array, in_ind)], dtype, **options))


class Reducer:
    """A chunk, combine or aggregate step of ``dask.array.reduction``, computed with a tensorlib reduction.

    ``func(tensor, dim=..., keepdim=..., **kwargs)``; with ``one_dim_at_a_time`` (``prod`` takes one int
    ``dim``), the dimensions are reduced one after the other.
    """

    def __init__(self, func: Callable, kwargs: dict | None = None, one_dim_at_a_time: bool = False) -> None:
        self.func = func
        self.kwargs = kwargs or {}
        self.one_dim_at_a_time = one_dim_at_a_time

    def __call__(self, block: Any, axis: Any = None, keepdims: bool = False, **_: Any) -> np.ndarray:
        t = tensorlib.from_numpy(np.asarray(block))
        dims = tuple(range(t.dim())) if axis is None else tuple(axis) if isinstance(axis, tuple) else (axis,)
        with tensorlib.no_grad():
            if self.one_dim_at_a_time:
                for d in dims:
                    t = self.func(t, dim=d, keepdim=True, **self.kwargs)
                if not keepdims:
                    t = t.reshape([n for i, n in enumerate(t.shape) if i not in dims])
            else:
                t = self.func(t, dim=dims, keepdim=keepdims, **self.kwargs)
        return t.detach().numpy()

    def __reduce__(self) -> tuple[Any, ...]:
        return Reducer, (self.func, self.kwargs, self.one_dim_at_a_time)


def tree_reduce(x: DaskTensor, dims: tuple[int, ...], keepdim: bool, first: Reducer, then: Reducer,
                dtype: tensorlib.dtype) -> DaskTensor:
    """Partial results per chunk (``first``), combined pairwise-and-up in a tree (``then``)."""
    out_ndim = x.ndim if keepdim else x.ndim - len(dims)
    return DaskTensor(da.reduction(x._array, first, then, combine=then, axis=dims, keepdims=keepdim,
                                   dtype=dtype.np, meta=meta(dtype, out_ndim), concatenate=True))


# -- sum, prod, amax, amin, all, any, nansum, count_nonzero -------------------------------------------------------


def _associative(func: Callable, combine: Callable, x: Any, dim: Any, keepdim: bool, call: tuple, kwargs: dict,
                 one_dim: bool = False, empty_means_all: bool = True) -> DaskTensor:
    result = evaluate(func, (standin(x),) + call[1:], kwargs)
    dims = _dims(dim, x.ndim, empty_means_all)
    if _single_chunk(x, dims):
        return map_reduce(func, call, kwargs, x, dims, keepdim, result.dtype)
    first_kwargs = {k: v for k, v in kwargs.items() if k == "dtype" and v is not None}
    first = Reducer(func, first_kwargs, one_dim)
    return tree_reduce(x, dims, keepdim, first, Reducer(combine, {}, one_dim), result.dtype)


@HANDLED.implements(tensorlib.sum)
def sum_(input: Any, dim: Any = None, keepdim: bool = False, *, dtype: Any = None, out: Any = None) -> Any:
    _check_out("tensorlib.sum", out)
    return _associative(tensorlib.sum, tensorlib.sum, input, dim, keepdim, (input, dim, keepdim), {"dtype": dtype})


@HANDLED.implements(T.sum)
def sum_method(self: Any, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Any:
    return sum_(self, dim, keepdim, dtype=dtype)


@HANDLED.implements(tensorlib.nansum)
def nansum(input: Any, dim: Any = None, keepdim: bool = False, *, dtype: Any = None, out: Any = None) -> Any:
    _check_out("tensorlib.nansum", out)
    return _associative(tensorlib.nansum, tensorlib.sum, input, dim, keepdim, (input, dim, keepdim), {"dtype": dtype})


@HANDLED.implements(tensorlib.prod)
def prod(input: Any, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Any:
    return _associative(tensorlib.prod, tensorlib.prod, input, dim, keepdim, (input, dim, keepdim), {"dtype": dtype},
                        one_dim=True)


@HANDLED.implements(T.prod)
def prod_method(self: Any, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Any:
    return prod(self, dim, keepdim, dtype=dtype)


def _amax_like(func: Callable, name: str) -> tuple[Callable, Callable]:
    def function(input: Any, dim: Any = (), keepdim: bool = False, *, out: Any = None) -> Any:
        _check_out(name, out)
        return _associative(func, func, input, dim, keepdim, (input, dim, keepdim), {})

    def method(self: Any, dim: Any = (), keepdim: bool = False) -> Any:
        return function(self, dim, keepdim)

    return function, method


amax, amax_method = _amax_like(tensorlib.amax, "tensorlib.amax")
amin, amin_method = _amax_like(tensorlib.amin, "tensorlib.amin")
HANDLED.implements(tensorlib.amax)(amax)
HANDLED.implements(T.amax)(amax_method)
HANDLED.implements(tensorlib.amin)(amin)
HANDLED.implements(T.amin)(amin_method)


def _all_any(func: Callable, name: str) -> tuple[Callable, Callable]:
    def function(input: Any, dim: Any = None, keepdim: bool = False, *, out: Any = None) -> Any:
        _check_out(name, out)
        return _associative(func, func, input, dim, keepdim, (input, dim, keepdim), {}, empty_means_all=False)

    def method(self: Any, dim: Any = None, keepdim: bool = False) -> Any:
        return function(self, dim, keepdim)

    return function, method


all_, all_method = _all_any(tensorlib.all, "tensorlib.all")
any_, any_method = _all_any(tensorlib.any, "tensorlib.any")
HANDLED.implements(tensorlib.all)(all_)
HANDLED.implements(T.all)(all_method)
HANDLED.implements(tensorlib.any)(any_)
HANDLED.implements(T.any)(any_method)


@HANDLED.implements(tensorlib.count_nonzero)
def count_nonzero(input: Any, dim: Any = None) -> Any:
    result = evaluate(tensorlib.count_nonzero, (standin(input), dim), {})
    dims = _dims(dim, input.ndim)
    if _single_chunk(input, dims):
        return map_reduce(tensorlib.count_nonzero, (input, dim), {}, input, dims, False, result.dtype)
    return tree_reduce(input, dims, False, Reducer(_count_nonzero_keepdim), Reducer(tensorlib.sum), result.dtype)


def _count_nonzero_keepdim(t: tensorlib.Tensor, dim: Any, keepdim: bool) -> tensorlib.Tensor:
    return tensorlib.sum(tensorlib.ne(t, 0), dim=dim, keepdim=keepdim)


# -- mean, var, std -------------------------------------------------------------------------------------------------


def _count(x: DaskTensor, dims: tuple[int, ...]) -> int:
    return math.prod(x.shape[d] for d in dims)


def _mean(func: Callable, input: Any, dim: Any, keepdim: bool, dtype: Any) -> DaskTensor:
    result = evaluate(func, (standin(input), dim, keepdim), {"dtype": dtype})
    dims = _dims(dim, input.ndim)
    if _single_chunk(input, dims):
        return map_reduce(func, (input, dim, keepdim), {"dtype": dtype}, input, dims, keepdim, result.dtype)
    total = sum_(input, dims, keepdim, dtype=result.dtype)
    return pointwise(tensorlib.div, (total, _count(input, dims)), {})


@HANDLED.implements(tensorlib.mean)
def mean(input: Any, dim: Any = None, keepdim: bool = False, *, dtype: Any = None, out: Any = None) -> Any:
    _check_out("tensorlib.mean", out)
    return _mean(tensorlib.mean, input, dim, keepdim, dtype)


@HANDLED.implements(T.mean)
def mean_method(self: Any, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Any:
    return _mean(T.mean, self, dim, keepdim, dtype)


def _correction(unbiased: Any, correction: Any) -> float:
    if correction is not None:
        return float(correction)
    return 0.0 if unbiased is False else 1.0


def _var(input: Any, dim: Any, unbiased: Any, keepdim: bool, correction: Any) -> DaskTensor:
    dims = _dims(dim, input.ndim)
    centred = input - mean(input, dims, True)
    magnitude = tensorlib.abs(centred) if centred.dtype.is_complex else centred
    total = sum_(tensorlib.square(magnitude), dims, keepdim)
    return pointwise(tensorlib.div, (total, max(0.0, _count(input, dims) - _correction(unbiased, correction))), {})


def _moments(func: Callable, input: Any, dim: Any, unbiased: Any, keepdim: bool, correction: Any, kind: str) -> Any:
    result = evaluate(func, (standin(input), dim, unbiased, keepdim), {"correction": correction})
    dims = _dims(dim, input.ndim)
    call = (input, dim, unbiased, keepdim)
    if _single_chunk(input, dims):
        if isinstance(result, tuple):
            return tuple(map_reduce(func, call, {"correction": correction}, input, dims, keepdim, r.dtype, pick=i)
                         for i, r in enumerate(result))
        return map_reduce(func, call, {"correction": correction}, input, dims, keepdim, result.dtype)
    var = _var(input, dims, unbiased, keepdim, correction)
    spread = _tl.sqrt(var) if kind.startswith("std") else var
    if kind.endswith("_mean"):
        return spread, mean(input, dims, keepdim)
    return spread


def _moment_functions(func: Callable, method: Callable | None, kind: str) -> None:
    def function(input: Any, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *, correction: Any = None,
                 out: Any = None) -> Any:
        _check_out(protocol_name(func), out)
        return _moments(func, input, dim, unbiased, keepdim, correction, kind)

    def function_no_out(input: Any, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
                        correction: Any = None) -> Any:
        return _moments(func, input, dim, unbiased, keepdim, correction, kind)

    def method_impl(self: Any, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
                    correction: Any = None) -> Any:
        return _moments(method or func, self, dim, unbiased, keepdim, correction, kind)

    HANDLED.implements(func)(function if kind in ("var", "std") else function_no_out)
    if method is not None:
        HANDLED.implements(method)(method_impl)


_moment_functions(tensorlib.var, T.var, "var")
_moment_functions(tensorlib.std, T.std, "std")
_moment_functions(tensorlib.var_mean, None, "var_mean")
_moment_functions(tensorlib.std_mean, None, "std_mean")


# -- max/min (with dim: values and indices), argmax/argmin ------------------------------------------------------------


def _arg_reduce(func: Callable, dask_func: Callable, input: Any, dim: Any, keepdim: bool) -> DaskTensor:
    result = evaluate(func, (standin(input), dim, keepdim), {})
    dims = _dims(dim, input.ndim)
    if _single_chunk(input, dims):
        if dim is None:  # the index into the flattened tensor
            flat = input.reshape(-1)
            out = map_reduce(func, (flat, 0, False), {}, flat, (0,), False, result.dtype)
            return out.reshape(result.shape) if keepdim else out
        return map_reduce(func, (input, dim, keepdim), {}, input, dims, keepdim, result.dtype)
    # Indices across chunks: Dask's own arg-reduction (first occurrence, NaN counted as the extreme, as tensorlib).
    array = dask_func(input._array, axis=None if dim is None else dims[0])
    if keepdim:
        array = array.reshape(tuple(result.shape)) if dim is None else da.expand_dims(array, dims[0])
    return DaskTensor(array.astype(result.dtype.np))


@HANDLED.implements(tensorlib.argmax)
def argmax(input: Any, dim: Any = None, keepdim: bool = False) -> Any:
    return _arg_reduce(tensorlib.argmax, da.argmax, input, dim, keepdim)


@HANDLED.implements(T.argmax)
def argmax_method(self: Any, dim: Any = None, keepdim: bool = False) -> Any:
    return _arg_reduce(T.argmax, da.argmax, self, dim, keepdim)


@HANDLED.implements(tensorlib.argmin)
def argmin(input: Any, dim: Any = None, keepdim: bool = False) -> Any:
    return _arg_reduce(tensorlib.argmin, da.argmin, input, dim, keepdim)


@HANDLED.implements(T.argmin)
def argmin_method(self: Any, dim: Any = None, keepdim: bool = False) -> Any:
    return _arg_reduce(T.argmin, da.argmin, self, dim, keepdim)


def _max_min(func: Callable, extreme: Callable, arg: Callable, input: Any, dim: Any, keepdim: bool) -> Any:
    if isinstance(dim, (DaskTensor, tensorlib.Tensor)):  # max(input, other): elementwise
        return pointwise(func, (input, dim), {})
    if dim is None:
        evaluate(func, (standin(input),), {})
        return extreme(input)
    result = evaluate(func, (standin(input), dim, keepdim), {})
    dims = _dims(dim, input.ndim)
    if _single_chunk(input, dims):
        values, indices = (map_reduce(func, (input, dim, keepdim), {}, input, dims, keepdim, r.dtype, pick=i)
                           for i, r in enumerate(result))
    else:
        values, indices = extreme(input, dim, keepdim), arg(input, dim, keepdim)
    return type(result)(values, indices)


@HANDLED.implements(tensorlib.max)
def max_(input: Any, dim: Any = None, keepdim: bool = False, *, out: Any = None) -> Any:
    _check_out("tensorlib.max", out)
    return _max_min(tensorlib.max, amax, argmax, input, dim, keepdim)


@HANDLED.implements(T.max)
def max_method(self: Any, dim: Any = None, keepdim: bool = False) -> Any:
    return _max_min(T.max, amax, argmax, self, dim, keepdim)


@HANDLED.implements(tensorlib.min)
def min_(input: Any, dim: Any = None, keepdim: bool = False, *, out: Any = None) -> Any:
    _check_out("tensorlib.min", out)
    return _max_min(tensorlib.min, amin, argmin, input, dim, keepdim)


@HANDLED.implements(T.min)
def min_method(self: Any, dim: Any = None, keepdim: bool = False) -> Any:
    return _max_min(T.min, amin, argmin, self, dim, keepdim)


# -- logsumexp, softmax, log_softmax, cumulative ----------------------------------------------------------------------


def _logsumexp(func: Callable, input: Any, dim: Any, keepdim: bool) -> DaskTensor:
    result = evaluate(func, (standin(input), dim, keepdim), {})
    dims = _dims(dim, input.ndim)
    if _single_chunk(input, dims):
        return map_reduce(func, (input, dim, keepdim), {}, input, dims, keepdim, result.dtype)
    x = input if input.dtype == result.dtype else input.to(result.dtype)
    peak = amax(x, dims, True)
    peak = tensorlib.where(tensorlib.isfinite(peak), peak, tensorlib.zeros_like(peak))  # all -inf or inf: no shift
    out = tensorlib.log(sum_(tensorlib.exp(x - peak), dims, True)) + peak
    return out if keepdim else out.reshape(result.shape if input.ndim == 0 else
                                           [n for i, n in enumerate(input.shape) if i not in dims])


@HANDLED.implements(tensorlib.logsumexp)
def logsumexp(input: Any, dim: Any, keepdim: bool = False, *, out: Any = None) -> Any:
    _check_out("tensorlib.logsumexp", out)
    return _logsumexp(tensorlib.logsumexp, input, dim, keepdim)


@HANDLED.implements(T.logsumexp)
def logsumexp_method(self: Any, dim: Any, keepdim: bool = False) -> Any:
    return _logsumexp(T.logsumexp, self, dim, keepdim)


@HANDLED.implements(special.logsumexp)
def special_logsumexp(input: Any, dim: Any, keepdim: bool = False, *, out: Any = None) -> Any:
    _check_out("tensorlib.special.logsumexp", out)
    return _logsumexp(special.logsumexp, input, dim, keepdim)


def along_dim(func: Callable, args: tuple, kwargs: dict, x: DaskTensor, dim: int,
              dtype: tensorlib.dtype) -> DaskTensor:
    """A function computed along dimension ``dim`` (softmax, cumsum): that dimension made one chunk, each chunk
    computed on its own, same shape."""
    if x._array.numblocks[dim] != 1:
        x = DaskTensor(x._array.rechunk({dim: -1}))
        args = (x,) + tuple(args[1:])
    template = Template(args, kwargs)
    ind = letters("d", x.ndim)
    return DaskTensor(blockwise(template.kernel(func), ind, [(a, ind) for a in template.arrays()], dtype))


def _softmax(func: Callable, log: bool, input: Any, dim: Any, args: tuple, kwargs: dict) -> Any:
    result = evaluate(func, (standin(input),) + args[1:], kwargs)
    if dim is None:  # tensorlib's (and torch's) legacy choice of dimension
        dim = 0 if input.ndim in (0, 1, 3) else 1
    d = int(dim) % input.ndim if input.ndim else 0
    if input.ndim == 0 or input._array.numblocks[d] == 1:
        return along_dim(func, args, kwargs, input, d, result.dtype)
    x = input if input.dtype == result.dtype else input.to(result.dtype)
    shifted = x - _logsumexp(tensorlib.logsumexp, x, d, True)
    return shifted if log else tensorlib.exp(shifted)


def _softmax_functional(func: Callable, log: bool) -> Callable:
    def impl(input: Any, dim: Any = None, _stacklevel: int = 3, dtype: Any = None) -> Any:
        return _softmax(func, log, input, dim, (input, dim, _stacklevel, dtype), {})

    return impl


def _softmax_plain(func: Callable, log: bool) -> Callable:
    def impl(input: Any, dim: Any, dtype: Any = None) -> Any:
        return _softmax(func, log, input, dim, (input, dim, dtype), {})

    return impl


def _softmax_method(func: Callable, log: bool) -> Callable:
    def impl(self: Any, dim: Any, dtype: Any = None) -> Any:
        return _softmax(func, log, self, dim, (self, dim, dtype), {})

    return impl


def _softmax_special(func: Callable, log: bool) -> Callable:
    def impl(input: Any, dim: Any, *, dtype: Any = None) -> Any:
        return _softmax(func, log, input, dim, (input, dim), {"dtype": dtype})

    return impl


HANDLED.implements(F.softmax)(_softmax_functional(F.softmax, False))
HANDLED.implements(F.log_softmax)(_softmax_functional(F.log_softmax, True))
HANDLED.implements(tensorlib.softmax)(_softmax_plain(tensorlib.softmax, False))
HANDLED.implements(tensorlib.log_softmax)(_softmax_plain(tensorlib.log_softmax, True))
HANDLED.implements(T.softmax)(_softmax_method(T.softmax, False))
HANDLED.implements(T.log_softmax)(_softmax_method(T.log_softmax, True))
HANDLED.implements(special.softmax)(_softmax_special(special.softmax, False))
HANDLED.implements(special.log_softmax)(_softmax_special(special.log_softmax, True))


def _cumulative(func: Callable) -> Callable:
    def impl(input: Any, dim: int, *, dtype: Any = None, out: Any = None) -> Any:
        _check_out(protocol_name(func), out)
        result = evaluate(func, (standin(input), dim), {"dtype": dtype})
        d = int(dim) % input.ndim if input.ndim else 0
        return along_dim(func, (input, dim), {"dtype": dtype}, input, d, result.dtype)

    return impl


def _cumulative_method(func: Callable) -> Callable:
    def impl(self: Any, dim: int, *, dtype: Any = None) -> Any:
        result = evaluate(func, (standin(self), dim), {"dtype": dtype})
        d = int(dim) % self.ndim if self.ndim else 0
        return along_dim(func, (self, dim), {"dtype": dtype}, self, d, result.dtype)

    return impl


for _f, _m in ((tensorlib.cumsum, T.cumsum), (tensorlib.cumprod, T.cumprod)):
    HANDLED.implements(_f)(_cumulative(_f))
    HANDLED.implements(_m)(_cumulative_method(_m))
