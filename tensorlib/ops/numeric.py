"""Numeric helpers: integer and floating-point functions (gcd, lcm, frexp, ldexp, nextafter), membership and index
arithmetic (isin, unravel_index), numerical calculus (trapezoid, cumulative_trapezoid, gradient), statistics (cov,
corrcoef, histogram, histogramdd), flat and indexed writes (put, index_reduce), renorm and binomial sampling.

Where torch composes an op from others (cov, trapezoid, gradient, renorm), it is composed here from the same ops, so
that values, result dtypes and gradients follow theirs.
"""

from __future__ import annotations

import itertools
import operator
import warnings
from typing import Any, Sequence

import numpy as np

from .._autograd.graph import NOT_IMPLEMENTED, Node, rename_grad_fn
from .._autograd.views import take_region
from .._dtype import FROM_NP
from .._registry import op
from .._size import Size
from .._tensor import Tensor, _wrap, wrap_dim
from ..return_types import frexp as _frexp_t, histogram as _histogram_t, histogramdd as _histogramdd_t
from ._pointwise import _finish, inplace_apply
from ._util import (
    broadcast_error,
    needs_grad,
    no_complex_grad,
    no_half,
    not_implemented,
    record,
    result_dtype,
    tensor_arg,
    type_title,
    warn_once,
    write_outs,
)
from .arithmetic import add, div, mul, sub
from .broadcast import expand, sum as _sum
from .comparison import gt
from .conversion import conj, real
from .creation import Generator, _rng, linspace
from .indexing import narrow, scatter_reduce, select
from .join_split import cat, unbind
from .linalg import mm, vector_norm
from .power import pow as _pow
from .reduction import cumsum
from .selection import clamp, where
from .shape import diagonal, reshape, squeeze, t, unsqueeze, view
from .unary import imag, sqrt

# -- integers and floating point ---------------------------------------------------------------------


def _binary_operands(input: Any, other: Any, fname: str) -> tuple[Tensor, Tensor, np.dtype]:
    """Two tensor operands (torch's ``Tensor other`` overloads take no Python numbers) and their result dtype."""
    x = tensor_arg(input, fname)
    y = tensor_arg(other, fname, "other", 2)
    return x, y, result_dtype(x, y).np


def _broadcast(fn: Any, a: Any, b: Any) -> np.ndarray:
    try:
        return np.asarray(fn(a, b))
    except ValueError:
        raise broadcast_error(a, b) from None


def _integer_binary(np_fn: Any, name: str) -> Any:
    def impl(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
        x, y, npdt = _binary_operands(input, other, name)
        _broadcast(np.broadcast_shapes, x._data.shape, y._data.shape)  # shapes are checked before dtypes, as in torch
        if npdt.kind not in "iu":
            raise not_implemented(f"{name}_cpu", npdt)
        r = _broadcast(np_fn, x._data.astype(npdt, copy=False), y._data.astype(npdt, copy=False)).astype(npdt)
        return _finish(_wrap(r), out, name)

    impl.__name__ = impl.__qualname__ = name
    return impl


gcd = op(variants="function method", inplace="function method")(_integer_binary(np.gcd, "gcd"))
gcd.__doc__ = "The greatest common divisor of each pair of (integer) elements; ``gcd(0, 0) == 0``."
lcm = op(variants="function method", inplace="function method")(_integer_binary(np.lcm, "lcm"))
lcm.__doc__ = "The least common multiple of each pair of (integer) elements (non-negative); 0 when either is 0."


class FrexpBackward0(Node):
    __slots__ = ("exponent",)
    exponent: np.ndarray

    def backward(self, g: Tensor) -> tuple:
        return (div(g, _wrap(np.ldexp(np.ones((), dtype=g._data.dtype), self.exponent))),)


@op(variants="function method")
def frexp(input: Tensor, *, out: Any = None) -> Any:
    """Split each element into a mantissa in ``(-1, 1)`` (magnitude at least 0.5) and an int32 power of two."""
    x = tensor_arg(input, "frexp")
    a = x._data
    if a.dtype.kind != "f":
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    m, e = np.frexp(a)
    m = np.asarray(m, dtype=a.dtype)
    e = np.asarray(e, dtype=np.int32)
    if needs_grad(x):
        mantissa, node = record(FrexpBackward0, m, (x,))
        node.exponent = e
        res = _frexp_t(mantissa, _wrap(e))
    else:
        res = _frexp_t(_wrap(m), _wrap(e))
    return res if out is None else write_outs(out, res, "frexp")


class LdexpBackward0(Node):
    __slots__ = ("scale",)
    scale: np.ndarray

    def backward(self, g: Tensor) -> tuple:
        return (mul(g, _wrap(self.scale)),)


@op(variants="function method", inplace="function method")
def ldexp(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """``input * 2 ** other``; a floating-point ``input`` with integer exponents keeps its dtype (exactly scaled)."""
    x, y, _ = _binary_operands(input, other, "ldexp")
    a, b = x._data, y._data
    if a.dtype.kind == "f" and b.dtype.kind in "iub":
        if b.dtype.kind == "b":
            raise not_implemented("ldexp_cpu_exp", b.dtype)
        e = np.clip(b, -(2**31), 2**31 - 1).astype(np.int32)
        r = _broadcast(np.ldexp, a, e).astype(a.dtype)
        if needs_grad(x):
            res, node = record(LdexpBackward0, r, (_expanded(x, r.shape), y))
            node.scale = np.ldexp(np.ones((), dtype=a.dtype), e)
            return _finish(res, out, "ldexp")
        return _finish(_wrap(r), out, "ldexp")
    return _finish(rename_grad_fn(mul(x, _pow(2.0, y)), "LdexpBackward0"), out, "ldexp")


def _expanded(x: Tensor, shape: tuple) -> Tensor:
    """``x`` broadcast to ``shape`` (differentiably: its gradient is summed back)."""
    return x if x._data.shape == shape else expand(x, shape)


class NextafterBackward0(Node):
    """The identity for ``input``, zero for ``other`` (torch's convention)."""

    __slots__ = ()

    def apply(self, grads: list) -> tuple:
        g = grads[0]
        return (g if self.needs(0) else None, mul(g, 0.0) if self.needs(1) else None)


@op(variants="function method", inplace="method")
def nextafter(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The next representable floating-point value after ``input`` towards ``other``."""
    x, y, npdt = _binary_operands(input, other, "nextafter")
    if npdt.kind != "f":
        raise not_implemented("nextafter_cpu", npdt)
    r = _broadcast(np.nextafter, x._data.astype(npdt, copy=False), y._data.astype(npdt, copy=False)).astype(npdt)
    if needs_grad(x, y):
        res, _ = record(NextafterBackward0, r, (_expanded(x, r.shape), _expanded(y, r.shape)))
        return _finish(res, out, "nextafter")
    return _finish(_wrap(r), out, "nextafter")


# -- membership and indices ------------------------------------------------------------------------


def _isin_operand(v: Any, fname: str, name: str) -> np.ndarray:
    if isinstance(v, Tensor):
        a = v._data
    elif isinstance(v, (bool, int, float, np.number)):
        a = np.asarray(v)
    else:
        raise TypeError(f"{fname}(): argument '{name}' must be Tensor or Number, not {type(v).__name__}")
    if a.dtype.kind in "bc":
        raise RuntimeError(f"Unsupported input type encountered for isin(): {type_title(a.dtype)}")
    return a


@op()
def isin(elements: Any, test_elements: Any, *, assume_unique: bool = False, invert: bool = False,
         out: Tensor | None = None) -> Tensor:
    """Whether each element of ``elements`` is in ``test_elements`` (a bool tensor of ``elements``' shape)."""
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise TypeError("isin() received an invalid combination of arguments: one of elements and test_elements must "
                        "be a Tensor")
    e = _isin_operand(elements, "isin", "elements")
    te = _isin_operand(test_elements, "isin", "test_elements")
    npdt = result_dtype(elements, test_elements).np
    r = np.isin(e.astype(npdt, copy=False), te.astype(npdt, copy=False).reshape(-1), invert=bool(invert))
    return _finish(_wrap(np.asarray(r, dtype=bool).reshape(e.shape)), out, "isin")


@op()
def unravel_index(indices: Tensor, shape: Any) -> tuple:
    """The coordinates (one int64 tensor per dimension of ``shape``) of flat ``indices`` in a tensor of ``shape``."""
    x = tensor_arg(indices, "unravel_index", "indices")
    if x._data.dtype.kind not in "iu":
        raise TypeError(f"expected 'indices' to be integer dtype, but got {FROM_NP[x._data.dtype]!r}")
    dims: tuple[int, ...]
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        dims = (int(shape),)
    elif isinstance(shape, (tuple, list, Size)):
        for d in shape:
            if isinstance(d, bool) or not isinstance(d, (int, np.integer)):
                raise TypeError(f"expected 'shape' sequence to only contain ints, but got {type(d)}")
        dims = tuple(int(d) for d in shape)
    else:
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got {type(shape)}")
    if any(d < 0 for d in dims):
        raise ValueError(f"'shape' cannot have negative values, but got {dims}")
    if any(d >= 9223372036854775808 for d in dims):
        raise ValueError("Overflow when unpacking long long")
    coefs = list(reversed(list(itertools.accumulate(reversed(dims[1:] + (1,)), func=operator.mul))))
    a = x._data.astype(np.int64)[..., None]
    with np.errstate(divide="ignore"):
        res = np.mod(np.floor_divide(a, np.array(coefs, dtype=np.int64)), np.array(dims, dtype=np.int64))
    return unbind(_wrap(res), -1)


# -- numerical calculus ----------------------------------------------------------------------------------


def _as_viewed_x(x: Tensor, y: Tensor, dim: int, fname: str) -> Tensor:
    """``x`` shaped to broadcast against ``y`` along ``dim`` (torch's trapezoid rule for sample points)."""
    xa = x._data
    if xa.ndim == 1:
        if xa.shape[0] != y._data.shape[dim]:
            raise RuntimeError(f"{fname}: There must be one `x` value for each sample point")
        shape = [1] * y._data.ndim
        shape[dim] = xa.shape[0]
        return view(x, tuple(shape))
    if xa.ndim < y._data.ndim:
        return view(x, (1,) * (y._data.ndim - xa.ndim) + xa.shape)
    return x


def _left_right(v: Tensor, dim: int) -> tuple[Tensor, Tensor]:
    n = v._data.shape[dim]
    return narrow(v, dim, 0, max(n - 1, 0)), narrow(v, dim, min(1, n), max(n - 1, 0))


def _dx_scalar(dx: Any, fname: str) -> float:
    if isinstance(dx, Tensor):
        dx = dx.item()
    if isinstance(dx, (bool, complex, np.bool_, np.complexfloating)):
        raise RuntimeError(f"{fname}: Currently, we only support dx as a real number.")
    if not isinstance(dx, (int, float, np.number)):
        raise TypeError(f"{fname}(): argument 'dx' must be Number, not {type(dx).__name__}")
    return float(dx)


def _trapezoid_args(y: Any, x: Any, dx: Any, dim: int, fname: str) -> tuple[Tensor, int]:
    yt = tensor_arg(y, fname, "y")
    if yt._data.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    if x is not None and dx is not None:
        raise TypeError(
            f"{fname}() received an invalid combination of arguments - got (Tensor, Tensor, dx=...), but expected one of:\n"
            " * (Tensor y, Tensor x, *, int dim = -1)\n * (Tensor y, *, Number dx = 1, int dim = -1)"
        )
    return yt, wrap_dim(dim, yt._data.ndim)


@op()
def trapezoid(y: Tensor, x: Tensor | None = None, *, dx: Any = None, dim: int = -1) -> Tensor:
    """The trapezoidal rule along ``dim``: sample points ``x``, or a constant spacing ``dx`` (1 by default)."""
    yt, d = _trapezoid_args(y, x, dx, dim, "trapezoid")
    a = yt._data
    if a.shape[d] == 0:
        return _wrap(np.zeros(a.shape[:d] + a.shape[d + 1:], dtype=a.dtype))
    if x is not None:
        xt = tensor_arg(x, "trapezoid", "x", 2)
        if a.dtype == np.bool_ or xt._data.dtype == np.bool_:
            raise RuntimeError("trapezoid: received a bool input for `x` or `y`, but bool is not supported")
        xl, xr = _left_right(_as_viewed_x(xt, yt, d, "trapezoid"), d)
        yl, yr = _left_right(yt, d)
        return div(_sum(mul(sub(xr, xl), add(yr, yl)), d), 2.0)
    if a.dtype == np.bool_:
        raise RuntimeError("trapezoid: received a bool input for `y`, but bool is not supported")
    step = _dx_scalar(1 if dx is None else dx, "trapezoid")
    return mul(sub(_sum(yt, d), mul(add(select(yt, d, 0), select(yt, d, -1)), 0.5)), step)


@op()
def trapz(y: Tensor, x: Tensor | None = None, *, dx: Any = None, dim: int = -1) -> Tensor:
    """:func:`trapezoid` (its older name)."""
    return trapezoid(y, x, dx=dx, dim=dim)


@op()
def cumulative_trapezoid(y: Tensor, x: Tensor | None = None, *, dx: Any = None, dim: int = -1) -> Tensor:
    """The running trapezoidal integral along ``dim`` (one element fewer than ``y`` there)."""
    yt = tensor_arg(y, "cumulative_trapezoid", "y")
    if yt._data.ndim == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    yt, d = _trapezoid_args(y, x, dx, dim, "cumulative_trapezoid")
    yl, yr = _left_right(yt, d)
    if x is not None:
        xt = tensor_arg(x, "cumulative_trapezoid", "x", 2)
        if yt._data.dtype == np.bool_ or xt._data.dtype == np.bool_:
            raise RuntimeError("cumulative_trapezoid: received a bool input for `x` or `y`, but bool is not supported")
        xl, xr = _left_right(_as_viewed_x(xt, yt, d, "cumulative_trapezoid"), d)
        return cumsum(mul(div(sub(xr, xl), 2.0), add(yl, yr)), d)
    if yt._data.dtype == np.bool_:
        raise RuntimeError("cumulative_trapezoid: received a bool input for `y`, but bool is not supported")
    step = _dx_scalar(1 if dx is None else dx, "cumulative_trapezoid")
    return cumsum(mul(add(yl, yr), step / 2.0), d)


def _slice(v: Tensor, dim: int, start: int, stop: int | None = None) -> Tensor:
    n = v._data.shape[dim]
    lo = start + n if start < 0 else start
    hi = n if stop is None else (stop + n if stop < 0 else stop)
    return narrow(v, dim, lo, max(hi - lo, 0))


def _gradient_uniform(x: Tensor, h: Any, d: int, edge_order: int) -> Tensor:
    center = div(sub(_slice(x, d, 2), _slice(x, d, 0, -2)), h)
    if edge_order == 1:
        prepend = div(sub(_slice(x, d, 1, 2), _slice(x, d, 0, 1)), h)
        append = div(sub(_slice(x, d, -1), _slice(x, d, -2, -1)), h)
    else:
        prepend = div(add(add(mul(_slice(x, d, 0, 1), -1.5), mul(_slice(x, d, 1, 2), 2)), mul(_slice(x, d, 2, 3), -0.5)), h)
        append = div(add(add(mul(_slice(x, d, -3, -2), 0.5), mul(_slice(x, d, -2, -1), -2)), mul(_slice(x, d, -1), 1.5)), h)
    return cat([prepend, div(center, 2), append], d)


def _gradient_coordinates(x: Tensor, coords: Tensor, d: int, edge_order: int) -> Tensor:
    if coords._data.ndim != 1:
        raise RuntimeError("torch.gradient expected each element of spacing to have one dimension, but got an element "
                           f"with {coords._data.ndim} dimensions!")
    shape = [1] * x._data.ndim
    shape[d] = -1
    h = sub(_slice(coords, 0, 1), _slice(coords, 0, 0, -1))
    h1, h2 = _slice(h, 0, 0, -1), _slice(h, 0, 1)
    a = view(div(mul(h2, -1), mul(h1, add(h1, h2))), tuple(shape))
    b = view(div(sub(h2, h1), mul(h1, h2)), tuple(shape))
    c = view(div(h1, mul(h2, add(h1, h2))), tuple(shape))
    center = add(add(mul(a, _slice(x, d, 0, -2)), mul(b, _slice(x, d, 1, -1))), mul(c, _slice(x, d, 2)))
    first, last = select(h, 0, 0), select(h, 0, -1)
    if edge_order == 1:
        prepend = div(sub(_slice(x, d, 1, 2), _slice(x, d, 0, 1)), first)
        append = div(sub(_slice(x, d, -1), _slice(x, d, -2, -1)), last)
    else:
        second, before_last = select(h, 0, 1), select(h, 0, -2)
        a0 = div(mul(add(mul(first, 2.0), second), -1), mul(first, add(first, second)))
        b0 = div(add(first, second), mul(first, second))
        c0 = div(mul(first, -1), mul(second, add(first, second)))
        prepend = add(add(mul(a0, _slice(x, d, 0, 1)), mul(b0, _slice(x, d, 1, 2))), mul(c0, _slice(x, d, 2, 3)))
        a1 = div(last, mul(before_last, add(last, before_last)))
        b1 = div(mul(add(last, before_last), -1), mul(last, before_last))
        c1 = div(add(mul(last, 2), before_last), mul(last, add(last, before_last)))
        append = add(add(mul(a1, _slice(x, d, -3, -2)), mul(b1, _slice(x, d, -2, -1))), mul(c1, _slice(x, d, -1)))
    return cat([prepend, center, append], d)


@op()
def gradient(input: Tensor, *, spacing: Any = 1, dim: Any = None, edge_order: int = 1) -> tuple:
    """Estimate the gradient of a sampled function along each dim (or those in ``dim``) by central differences.

    ``spacing`` is one step for every dim, a list of steps (one per dim), or a list of 1-D coordinate tensors.
    ``edge_order`` (1 or 2) is the accuracy of the one-sided differences at the ends.
    """
    x = tensor_arg(input, "gradient")
    a = x._data
    if a.dtype == np.uint8:
        raise RuntimeError("torch.gradient does not support uint8 input.")
    dims_given = dim is not None
    if dims_given and a.ndim == 0:
        first = dim[0] if isinstance(dim, (list, tuple)) and dim else dim
        raise IndexError(f"Dimension specified as {first} but tensor has no dimensions")
    if dim is None:
        dims = list(range(a.ndim))
    elif isinstance(dim, (list, tuple)):
        dims = [wrap_dim(k, a.ndim) for k in dim]
        seen: set[int] = set()
        for k in dims:
            if k in seen:
                raise RuntimeError(f"dim {k} appears multiple times in the list of dims")
            seen.add(k)
    else:
        dims = [wrap_dim(dim, a.ndim)]
    if isinstance(spacing, (list, tuple)):
        steps = list(spacing)
        if not dims_given and len(steps) != a.ndim:
            raise RuntimeError(
                "torch.gradient expected spacing to be unspecified, a scalar, or a list of length equal to "
                f"'self.dim() = {a.ndim}', since dim argument was not given, but got a list of length {len(steps)}"
            )
        if dims_given and len(steps) != len(dims):
            raise RuntimeError(
                "torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim arguments to have "
                f"the same length, but got a spacing argument of length {len(steps)} and a dim argument of length "
                f"{len(dims)}."
            )
    else:
        if isinstance(spacing, Tensor):
            raise TypeError("gradient(): argument 'spacing' must be a Number, a list of Numbers or a tuple of Tensors, "
                            "not Tensor")
        steps = [spacing] * len(dims)
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    for k in dims:
        if a.shape[k] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
    out = []
    for k, h in zip(dims, steps):
        if isinstance(h, Tensor):
            out.append(_gradient_coordinates(x, h, k, edge_order))
        else:
            out.append(_gradient_uniform(x, h, k, edge_order))
    return tuple(out)


# -- statistics ----------------------------------------------------------------------------------------


def _weights(w: Any, name: str, n: int, integral: bool) -> Tensor:
    t_ = tensor_arg(w, "cov", name)
    a = t_._data
    if a.ndim > 1:
        raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions but got {name} with {a.ndim} dimensions")
    if integral and a.dtype.kind not in "iu":
        raise RuntimeError(f"cov(): expected {name} to have integral dtype but got {name} with {type_title(a.dtype)} dtype")
    if not integral and a.dtype.kind != "f":
        raise RuntimeError(
            f"cov(): expected {name} to have floating point dtype but got {name} with {type_title(a.dtype)} dtype"
        )
    if a.size != n:
        raise RuntimeError(f"cov(): expected {name} to have the same numel as there are observations in the input but "
                           f"got {a.size} != {n}")
    if n and a.min() < 0:
        raise RuntimeError(f"cov(): {name} cannot be negative")
    return t_


@op(variants="function method")
def cov(input: Tensor, *, correction: int = 1, fweights: Tensor | None = None, aweights: Tensor | None = None) -> Tensor:
    """The covariance matrix of the variables in the rows of ``input`` (observations in columns).

    ``fweights`` (integer repeat counts) and ``aweights`` (floating-point importance weights) weight the
    observations; ``correction`` is subtracted from the (weighted) number of observations (Bessel's by default).
    """
    x = tensor_arg(input, "cov")
    if x._data.ndim > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with {x._data.ndim} dimensions")
    if x._data.dtype == np.bool_:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    inp = view(x, (1, -1)) if x._data.ndim < 2 else x
    n = inp._data.shape[1]
    w = _weights(fweights, "fweights", n, True) if fweights is not None else None
    if aweights is not None:
        aw = _weights(aweights, "aweights", n, False)
        w = aw if w is None else mul(w, aw)
    w_sum: Any = _sum(w) if w is not None else _wrap(np.asarray(n, dtype=np.int64))
    if w is not None and w_sum._data == 0:
        raise RuntimeError("cov(): weights sum to zero, can't be normalized")
    avg = div(_sum(mul(inp, w) if w is not None else inp, 1), w_sum)
    if w is not None and aweights is not None and correction != 0:
        norm = sub(w_sum, div(mul(_sum(mul(w, aw)), correction), w_sum))
    else:
        norm = sub(w_sum, correction)
    if norm._data <= 0:
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less than the number of "
                      "observations.", UserWarning, stacklevel=3)
        norm = _wrap(np.zeros((), dtype=norm._data.dtype))
    centred = sub(inp, unsqueeze(avg, 1))
    c = mm(centred, conj(t(mul(centred, w) if w is not None else centred)))
    return squeeze(div(c, norm))


@op(variants="function method")
def corrcoef(input: Tensor) -> Tensor:
    """Pearson correlation coefficients of the variables in the rows of ``input``, clipped to [-1, 1]."""
    x = tensor_arg(input, "corrcoef")
    if x._data.ndim > 2:
        raise RuntimeError(f"corrcoef(): expected input to have two or fewer dimensions but got an input with {x._data.ndim} dimensions")
    c = cov(x)
    if c._data.ndim == 0:
        return div(c, c)
    d = diagonal(c)
    std = sqrt(real(d) if d._data.dtype.kind == "c" else d)
    c = div(div(c, view(std, (-1, 1))), view(std, (1, -1)))
    if c._data.dtype.kind == "c":
        return add(clamp(real(c), -1, 1), mul(clamp(imag(c), -1, 1), 1j))
    return clamp(c, -1, 1)


def _not_implemented_grad(outputs: list[Tensor], inputs: tuple, name: str) -> list[Tensor]:
    """Outputs that require grad through torch's ``NotImplemented`` node when an input does (histograms)."""
    if not needs_grad(*inputs):
        return outputs
    res = []
    for o in outputs:
        r, node = record(NOT_IMPLEMENTED, o._data, inputs)
        node.op_name = name
        res.append(r)
    return res


def _histogram_edges(sample: np.ndarray, bins: Any, range: Any, fname: str) -> list[np.ndarray]:
    """Validate the arguments of histogramdd and return each dimension's bin edges (in the input's dtype)."""
    if sample.dtype.kind != "f":
        raise not_implemented("histogramdd", sample.dtype)
    dims = sample.shape[1]
    if isinstance(bins, (int, np.integer)) and not isinstance(bins, bool):
        bins = [int(bins)] * dims
    if isinstance(bins, Tensor):
        bins = [bins]
    if not isinstance(bins, (list, tuple)):
        raise TypeError(f"{fname}(): argument 'bins' must be int, list of ints or list of Tensors, not "
                        f"{type(bins).__name__}")
    if len(bins) != dims:
        raise RuntimeError("histogramdd: The size of bins must be equal to the innermost dimension of the input.")
    if range is not None and not isinstance(range, (tuple, list)):
        raise TypeError(f"{fname}(): argument 'range' must be tuple of floats, not {type(range).__name__}")
    if range is not None and len(range) != 2 * dims:
        raise RuntimeError(f"torch.histogramdd: for a {dims}-dimensional histogram range should have {2 * dims} "
                           f"elements, but got {len(range)}")
    edges = []
    for k, b in enumerate(bins):
        if isinstance(b, Tensor):
            e = b._data
            if e.dtype != sample.dtype:
                raise RuntimeError(
                    f"torch.histogramdd: input tensor and bins tensors should have the same dtype, but got input with "
                    f"dtype {_c_name(sample.dtype)} and bins for dimension {k} with dtype {_c_name(e.dtype)}"
                )
            if e.ndim != 1 or e.size < 1:
                raise RuntimeError(f"torch.histogramdd: bins tensor should have one dimension and at least 1 element, "
                                   f"but got {e.ndim} dimensions and {e.size} elements for dimension {k}")
            edges.append(e.copy())
            continue
        if isinstance(b, bool) or not isinstance(b, (int, np.integer)):
            raise TypeError(f"{fname}(): argument 'bins' must be an int, a sequence of ints or a Tensor, not "
                            f"{type(b).__name__}")
        b = int(b)
        if b <= 0:
            raise RuntimeError(f"torch.{fname}(): bins must be > 0, but got {b} for dimension {k}")
        if range is not None:
            lo, hi = float(range[2 * k]), float(range[2 * k + 1])
        elif sample.shape[0]:
            lo, hi = float(sample[:, k].min()), float(sample[:, k].max())
        else:
            lo, hi = 0.0, 1.0
        if not (np.isfinite(lo) and np.isfinite(hi)):
            raise RuntimeError(f"torch.histogramdd: dimension {k}'s range [{_fmt(lo)}, {_fmt(hi)}] is not finite")
        if lo > hi:
            raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min {_fmt(lo)} max {_fmt(hi)} for "
                               f"dimension {k}")
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        edges.append(linspace(lo, hi, b + 1, dtype=FROM_NP[sample.dtype])._data)
    return edges


def _fmt(v: float) -> str:
    """A float as C++ streams print it: ``1``, ``2.5``, ``inf``, ``nan``."""
    return f"{v:g}"


def _c_name(npdt: np.dtype) -> str:
    return {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int",
            "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char", "bool": "bool"}.get(
        npdt.name, npdt.name)


def _histogramdd(x: Tensor, bins: Any, range: Any, weight: Any, density: bool, fname: str) -> tuple[Tensor, list[Tensor]]:
    a = x._data
    if a.ndim < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions")
    sample = a.reshape(int(np.prod(a.shape[:-1])), a.shape[-1])
    if sample.shape[1] == 0:  # a zero-dimensional histogram: one (empty) bin holding nothing, no edges
        return _wrap(np.zeros((), a.dtype if a.dtype.kind == "f" else np.float32)), []
    edges = _histogram_edges(sample, bins, range, fname)
    w = None
    if weight is not None:
        wt = tensor_arg(weight, fname, "weight")
        if wt._data.shape != a.shape[:-1]:
            raise RuntimeError(
                "torch.histogramdd: if weight tensor is provided it should have the same shape as the input tensor "
                f"excluding its innermost dimension, but got input with shape {list(a.shape)} and weight with shape "
                f"{list(wt._data.shape)}"
            )
        if wt._data.dtype != a.dtype:
            raise RuntimeError("torch.histogramdd: if weight tensor is provided, input tensor and weight tensor should "
                               f"have the same dtype, but got input({_c_name(a.dtype)}), and weight({_c_name(wt._data.dtype)})")
        w = wt._data.reshape(-1)
    with np.errstate(invalid="ignore"):
        keep = np.all(np.isfinite(sample), axis=1)
        hist, _ = np.histogramdd(sample[keep].astype(np.float64), bins=[e.astype(np.float64) for e in edges],
                                 weights=None if w is None else w[keep].astype(np.float64))
    hist = hist.astype(a.dtype)
    if density:
        total = hist.sum()
        hist = hist / total
        for k, e in enumerate(edges):
            shape = [1] * len(edges)
            shape[k] = -1
            hist = hist / np.diff(e).reshape(shape)
        hist = hist.astype(a.dtype)
    outs = _not_implemented_grad([_wrap(hist)] + [_wrap(e) for e in edges], (x,) if weight is None else (x, weight), fname)
    return outs[0], outs[1:]


@op(variants="function method")
def histogram(input: Tensor, bins: Any = 100, *, range: Sequence[float] | None = None, weight: Tensor | None = None,
              density: bool = False, out: Any = None) -> Any:
    """A histogram of the values of ``input``: ``bins`` equal bins over ``range`` (the data's by default), or the
    given bin edges (a 1-D tensor). Returns ``(hist, bin_edges)``; the last bin includes its right edge."""
    x = tensor_arg(input, "histogram")
    no_half("histogramdd", x)
    sample = reshape(x, -1, 1)
    if weight is not None:
        wt = tensor_arg(weight, "histogram", "weight")
        if wt._data.shape != x._data.shape:
            raise RuntimeError(
                "torch.histogramdd: if weight tensor is provided it should have the same shape as the input tensor "
                f"excluding its innermost dimension, but got input with shape {list(sample._data.shape)} and weight "
                f"with shape {list(wt._data.shape)}"
            )
        weight = reshape(wt, -1)
    hist, edges = _histogramdd(sample, [bins], range, weight, density, "histogram")
    res = _histogram_t(hist, edges[0])
    return res if out is None else write_outs(out, res, "histogram")


@op()
def histogramdd(input: Tensor, bins: Any, range: Sequence[float] | None = None, weight: Tensor | None = None,
                density: bool = False) -> Any:
    """A D-dimensional histogram of the points in the rows of ``input`` (its last dim is D): ``bins`` per dim (an
    int, a list of ints, or a list of 1-D edge tensors). Returns ``(hist, bin_edges)`` with one edge tensor per dim."""
    x = tensor_arg(input, "histogramdd")
    no_half("histogramdd", x)
    hist, edges = _histogramdd(x, bins, range, weight, density, "histogramdd")
    return _histogramdd_t(hist, tuple(edges))


# -- writes --------------------------------------------------------------------------------------------


class PutBackward0(Node):
    __slots__ = ("index", "accumulate", "source_shape")
    index: np.ndarray
    accumulate: bool
    source_shape: tuple[int, ...]

    def apply(self, grads: list) -> tuple:
        g = grads[0]
        gi = gs = None
        if self.needs(0):
            if self.accumulate:
                gi = g
            else:
                mask = np.ones(g._data.size, dtype=g._data.dtype)
                mask[self.index.reshape(-1)] = 0
                gi = mul(g, _wrap(mask.reshape(g._data.shape)))
        if self.needs(1):
            gs = take_region(g, self.index.reshape(self.source_shape))
        return gi, gs


@op(variants="function method")
def put(input: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """A copy of ``input`` with ``source``'s elements written (or added) at the flat positions ``index``."""
    x = tensor_arg(input, "put")
    idx_t = tensor_arg(index, "put", "index", 2)
    src = tensor_arg(source, "put", "source", 3)
    a, idx, s = x._data, idx_t._data, src._data
    if idx.dtype != np.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {type_title(idx.dtype)}")
    if s.dtype != a.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got self.dtype = "
                           f"{type_title(a.dtype)} and source.dtype = {type_title(s.dtype)}")
    if s.size != idx.size:
        raise IndexError(f"put_(): Expected source and index to have the same number of elements, but got "
                         f"source.numel() = {s.size}, index.numel() = {idx.size}")
    flat_idx = idx.reshape(-1)
    bad = flat_idx[(flat_idx >= a.size) | (flat_idx < -a.size)]
    if bad.size:
        raise IndexError(f"out of range: tried to access index {int(bad[0])} on a tensor of {a.size} elements.")
    flat_idx = np.where(flat_idx < 0, flat_idx + a.size, flat_idx)
    r = a.reshape(-1).copy()
    if accumulate:
        np.add.at(r, flat_idx, s.reshape(-1))
    else:
        r[flat_idx] = s.reshape(-1)
    r = r.reshape(a.shape)
    if needs_grad(x, src):
        res, node = record(PutBackward0, r, (x, src))
        node.index, node.accumulate, node.source_shape = flat_idx, bool(accumulate), s.shape
        return res
    return _wrap(r)


@op(variants="method")
def put_(self: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """In-place :func:`put`."""
    return inplace_apply(self, put, (index, source), {"accumulate": accumulate}, "put_")


@op(variants="function method")
def index_reduce(input: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *, include_self: bool = True,
                 out: Tensor | None = None) -> Tensor:
    """A copy of ``input`` whose slices ``index[i]`` along ``dim`` are reduced (``prod``, ``mean``, ``amax`` or
    ``amin``) with the slices ``i`` of ``source`` (and with themselves unless ``include_self`` is False)."""
    no_complex_grad("index_reduce", input, source)
    warn_once("index_reduce", "index_reduce() is in beta and the API may change at any time.")
    x = tensor_arg(input, "index_reduce")
    idx_t = tensor_arg(index, "index_reduce", "index", 3)
    s = tensor_arg(source, "index_reduce", "source", 4)
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    a, idx, sa = x._data, idx_t._data, s._data
    d = wrap_dim(dim, a.ndim)
    if idx.ndim > 1:
        raise IndexError(f"index_reduce_(): Index is supposed to be a vector, but got dim: {idx.ndim} with type: "
                         f"{type_title(idx.dtype)} and size: {list(idx.shape)}")
    if idx.dtype not in (np.int64, np.int32):
        raise RuntimeError(f"index_reduce_(): Expected dtype int32/int64 for index but got: {type_title(idx.dtype)}")
    if sa.dtype != a.dtype:
        raise RuntimeError(f"index_reduce_(): self ({type_title(a.dtype)}) and source ({type_title(sa.dtype)}) must "
                           "have the same scalar type")
    if a.ndim != sa.ndim or any(p != q for k, (p, q) in enumerate(zip(a.shape, sa.shape)) if k != d):
        raise RuntimeError("source tensor shape must match self tensor shape, excluding the specified dimension. "
                           f"Got self.shape = {list(a.shape)} source.shape = {list(sa.shape)}")
    n_src = sa.shape[d] if sa.ndim else 1
    if idx.size != n_src:
        raise RuntimeError(f"index_reduce_(): Number of indices ({idx.size}) should be equal to source.size(dim): "
                           f"({n_src}), for dim: {d}")
    if a.dtype == np.bool_ and not include_self:
        raise not_implemented("index_reduce_func_exclude_input_init", a.dtype)
    size = a.shape[d] if a.ndim else 1
    if idx.size and (idx.min() < -size or idx.max() >= size):
        raise IndexError("index out of range in self")
    if a.ndim == 0:
        res = index_reduce(view(x, (1,)), 0, view(idx_t, (-1,)), view(s, (1,)), reduce, include_self=include_self)
        return _finish(rename_grad_fn(view(res, ()), "IndexReduceBackward0"), out, "index_reduce")
    shape = [1] * sa.ndim
    shape[d] = -1
    full = expand(_wrap(np.where(idx < 0, idx + size, idx).astype(np.int64).reshape(shape)), sa.shape)
    res = scatter_reduce(x, d, full, s, reduce, include_self=include_self)
    return _finish(rename_grad_fn(res, "IndexReduceBackward0"), out, "index_reduce")


@op(variants="method")
def index_reduce_(self: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                  include_self: bool = True) -> Tensor:
    """In-place :func:`index_reduce`."""
    return inplace_apply(self, index_reduce, (dim, index, source, reduce), {"include_self": include_self},
                         "index_reduce_")


# -- norms and sampling -----------------------------------------------------------------------------------


@op(variants="function method", inplace="method")
def renorm(input: Tensor, p: float, dim: int, maxnorm: float, *, out: Tensor | None = None) -> Tensor:
    """Rescale each slice along ``dim`` whose ``p``-norm exceeds ``maxnorm`` to norm ``maxnorm``."""
    x = tensor_arg(input, "renorm")
    a = x._data
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    if a.ndim <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {a.ndim} dimensions")
    if a.dtype.kind not in "fc":
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got {type_title(a.dtype)}")
    d = wrap_dim(dim, a.ndim)
    dims = tuple(k for k in range(a.ndim) if k != d)
    norm = vector_norm(x, p, dims, keepdim=True)
    factor = where(gt(norm, maxnorm), div(_wrap(np.asarray(maxnorm, dtype=norm._data.dtype)), add(norm, 1e-7)), _wrap(np.ones((), dtype=norm._data.dtype)))
    return _finish(rename_grad_fn(mul(x, factor), "RenormBackward0"), out, "renorm")


@op()
def binomial(count: Tensor, prob: Tensor, generator: Generator | None = None) -> Tensor:
    """Binomial samples: the number of successes in ``count`` trials with success probability ``prob`` (broadcast)."""
    c = tensor_arg(count, "binomial", "count")
    pr = tensor_arg(prob, "binomial", "prob", 2)
    if c._data.dtype.kind != "f":
        raise ValueError(f"binomial only supports floating-point dtypes for count, got: {type_title(c._data.dtype)}")
    if pr._data.dtype != c._data.dtype:
        raise RuntimeError(f"Found dtype {type_title(pr._data.dtype)} but expected {type_title(c._data.dtype)}")
    try:
        n, q = np.broadcast_arrays(c._data, pr._data)
    except ValueError:
        raise broadcast_error(c._data, pr._data) from None
    trials = np.floor(np.nan_to_num(n, nan=0.0, posinf=0.0)).clip(0).astype(np.int64)
    r = np.asarray(_rng(generator).binomial(trials, np.nan_to_num(q, nan=0.0).clip(0.0, 1.0))).astype(c._data.dtype)
    return _not_implemented_grad([_wrap(r)], (c, pr), "binomial")[0]
