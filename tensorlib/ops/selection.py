"""Selection: maximum/minimum/fmax/fmin, clamp (and clip, clamp_min, clamp_max, clamp_), where, lerp."""

from __future__ import annotations

import math

from typing import Any

import numpy as np

from .. import _dtype
from .._autograd.graph import Node, SavedTensor, named_node_class, node_name, save_input, unpack
from .._dtype import FROM_NP
from .._registry import op
from .._tensor import Tensor, bump_version
from ._pointwise import _apply2, _arr, _finish, _load, _meta, _save, inplace_apply, reduce_to
from ._util import (
    GRAD,
    Meta,
    Operand,
    binary_arrays,
    broadcast_error,
    check_inplace,
    clip_ufunc,
    float_arg,
    needs_grad,
    no_complex_grad,
    not_implemented,
    record,
    tensor_arg,
    type_title,
    wrap,
    writable,
    write_out,
)
from .arithmetic import add, mul, rsub, sub
from .comparison import eq, gt, lt
from .conversion import to_dtype

# -- binary min/max, clamp, where -----------------------------------------------------


class MaximumBackward0(Node):
    __slots__ = ("self_", "other", "self_meta", "other_meta", "is_max")
    _saved_slots = ("self_", "other")
    self_: SavedTensor
    other: SavedTensor
    self_meta: Meta
    other_meta: Meta
    is_max: bool

    def backward(self, g: Tensor) -> tuple:
        x, y = unpack(self, self.self_), unpack(self, self.other)
        pick_x = gt(x, y) if self.is_max else lt(x, y)
        tie = eq(x, y)
        # ties split the gradient evenly, as torch does
        wx = add(to_dtype(pick_x, FROM_NP[g._data.dtype]), mul(to_dtype(tie, FROM_NP[g._data.dtype]), 0.5))
        ga = reduce_to(mul(g, wx), self.self_meta) if self.needs(0) else None
        gb = reduce_to(mul(g, rsub(wx, 1)), self.other_meta) if self.needs(1) else None
        return ga, gb


_EXTREME_NODES = {f: named_node_class(MaximumBackward0, node_name(f)) for f in ("maximum", "minimum", "fmax", "fmin")}


def _binary_extreme(input: Tensor, other: Tensor, fname: str, np_fn: Any, is_max: bool, out: Any) -> Tensor:
    x = tensor_arg(input, fname)
    y = tensor_arg(other, fname, "other", 2)
    a, b = binary_arrays(x, y, fname)
    if a.dtype.kind == "c":
        raise RuntimeError(f"{fname} not implemented for complex tensors.")
    r = _apply2(np_fn, a, b)
    if needs_grad(x, y):
        res, node = record(_EXTREME_NODES[fname], r, (x, y))
        node.self_, node.other = save_input(x), save_input(y)
        node.self_meta, node.other_meta = _meta(x), _meta(y)
        node.is_max = is_max
        return _finish(res, out, fname)
    return _finish(wrap(r), out, fname)


@op(variants="function method")
def maximum(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Elementwise maximum of two tensors (NaN propagates)."""
    return _binary_extreme(input, other, "maximum", np.maximum, True, out)


@op(variants="function method")
def minimum(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Elementwise minimum of two tensors (NaN propagates)."""
    return _binary_extreme(input, other, "minimum", np.minimum, False, out)


@op(variants="function method")
def fmax(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Elementwise maximum that ignores NaN."""
    return _binary_extreme(input, other, "fmax", np.fmax, True, out)


@op(variants="function method")
def fmin(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Elementwise minimum that ignores NaN."""
    return _binary_extreme(input, other, "fmin", np.fmin, False, out)


class ClampBackward1(Node):
    """clamp with number bounds: the gradient passes where the input is within them."""

    __slots__ = ("self_", "min", "max")
    _saved_slots = ("self_",)
    self_: SavedTensor
    min: float | np.number | None
    max: float | np.number | None

    def backward(self, g: Tensor) -> tuple:
        return (mul(g, wrap(_in_bounds(unpack(self, self.self_)._data, self.min, self.max))),)


def _in_bounds(a: np.ndarray, lo: Any, hi: Any) -> np.ndarray:
    mask = np.ones(a.shape, dtype=bool)
    if lo is not None:
        mask &= a >= (lo._data if isinstance(lo, Tensor) else lo)
    if hi is not None:
        mask &= a <= (hi._data if isinstance(hi, Tensor) else hi)
    return mask


class ClampBackward0(Node):
    """clamp with tensor bounds: a bound gets the gradient where it was the value taken."""

    __slots__ = ("self_", "min", "max", "metas")
    _saved_slots = ("self_",)
    self_: SavedTensor
    min: Tensor | float | np.number | None
    max: Tensor | float | np.number | None
    metas: tuple[Meta, Meta | None, Meta | None]

    def backward(self, g: Tensor) -> tuple:
        x = unpack(self, self.self_)._data
        lo, hi = self.min, self.max
        lo_a = lo._data if isinstance(lo, Tensor) else lo
        hi_a = hi._data if isinstance(hi, Tensor) else hi
        gx = reduce_to(mul(g, wrap(_in_bounds(x, lo, hi))), self.metas[0]) if self.needs(0) else None
        gl = gh = None
        # a bound that needs a gradient is a tensor (so it has a meta)
        lo_meta, hi_meta = self.metas[1], self.metas[2]
        if self.needs(1) and isinstance(lo, Tensor) and lo_meta is not None:
            took_min = x < lo._data
            if hi_a is not None:  # where min > max the result is max
                took_min = took_min & (lo._data <= hi_a)
            gl = reduce_to(mul(g, wrap(took_min)), lo_meta)
        if self.needs(2) and isinstance(hi, Tensor) and hi_meta is not None:
            took_max = x > hi._data
            if lo_a is not None:
                took_max = took_max | (lo_a > hi._data)
            gh = reduce_to(mul(g, wrap(took_max)), hi_meta)
        return gx, gl, gh


_BOUND = (int, float, type(None))


@op(variants="function method", aliases=("clip",))
def clamp(input: Tensor, min: Any = None, max: Any = None, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    """Limit every element to ``[min, max]`` (either bound may be None, a number or a tensor)."""
    x = tensor_arg(input, "clamp")
    for name, bound in (("min", min), ("max", max)):
        if not (bound is None or isinstance(bound, (Tensor, int, float, np.number))):
            raise TypeError(f"clamp(): argument '{name}' must be Number or Tensor, not {type(bound).__name__}")
    if min is None and max is None:
        raise RuntimeError("tensorlib.clamp: At least one of 'min' or 'max' must not be None")
    a = x._data
    lo, hi = min, max
    numbers = a.dtype.kind == "f" and type(min) in _BOUND and type(max) in _BOUND
    if not numbers:
        a = _clamp_operand(x, min, max)
        lo = min._data if isinstance(min, Tensor) else _int_bound(min, a.dtype)
        hi = max._data if isinstance(max, Tensor) else _int_bound(max, a.dtype)
    if numbers:
        # floating point, number bounds: NumPy's clip is one pass (maximum then minimum is two, each slower), and
        # keeps an input equal to a bound as it is (-0.0 stays -0.0), as torch's clamp does
        r = clip_ufunc(a, -math.inf if lo is None else lo, math.inf if hi is None else hi)
    else:
        r = a
        try:
            if lo is not None:
                r = np.maximum(r, lo)
            if hi is not None:
                r = np.minimum(r, hi)
        except ValueError:
            raise broadcast_error(a, lo, hi) from None
    r = _arr(r)
    if r.dtype != a.dtype:
        r = r.astype(a.dtype)
    if (x._requires_grad or (lo is not min or hi is not max) and needs_grad(min, max)) and GRAD.enabled:
        if isinstance(min, Tensor) or isinstance(max, Tensor):
            res, node = record(ClampBackward0, r, (x, min, max))
            node.metas = (_meta(x), _meta(min), _meta(max))
        else:
            res, node = record(ClampBackward1, r, (x,))
        node.self_ = save_input(x)
        node.min, node.max = min, max
        return _finish(res, out, "clamp")
    return _finish(wrap(r), out, "clamp")


def _clamp_operand(x: Tensor, lo: Any, hi: Any) -> np.ndarray:
    """``x``'s data in the dtype torch computes clamp in: the promotion of the input and both bounds."""
    a = x._data
    dims: list[_dtype.dtype] = []
    zeros: list[_dtype.dtype] = []
    scalars: list[Any] = []
    for v in (x, lo, hi):
        if isinstance(v, Tensor):
            (dims if v._data.ndim else zeros).append(FROM_NP[v._data.dtype])
        elif v is not None:
            if not isinstance(v, (int, float, complex, np.number, np.bool_)):
                raise TypeError(f"clamp(): argument 'min' must be Number or Tensor, not {type(v).__name__}")
            scalars.append(v)
    dt = _dtype.result_type_of(dims, zeros, scalars).np
    if dt.kind == "c":
        raise NotImplementedError("clamp is not supported for complex types")
    if dt.kind == "b" and scalars:
        raise not_implemented("clamp_min_scalar_cpu" if lo is not None else "clamp_max_scalar_cpu", a.dtype)
    return a if a.dtype == dt else a.astype(dt)


def _int_bound(v: Any, npdt: np.dtype) -> Any:
    """An integer bound wrapped into the integer dtype, as torch does (NumPy refuses out-of-range Python ints)."""
    if isinstance(v, int) and not -9223372036854775808 <= v < 18446744073709551616:
        raise OverflowError("int too big to convert")
    if npdt.kind in "iu" and isinstance(v, int):
        info = np.iinfo(npdt)
        if not info.min <= v <= info.max:
            return np.array(v).astype(npdt)
    return v


clip = clamp


@op(variants="function method", aliases=("clip_",))
def clamp_(self: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
    """In-place :func:`clamp`."""
    tensor_arg(self, "clamp_", "self")
    for name, bound in (("min", min), ("max", max)):
        if not (bound is None or isinstance(bound, (Tensor, int, float, np.number))):
            raise TypeError(f"clamp_(): argument '{name}' must be Number or Tensor, not {type(bound).__name__}")
    if min is None and max is None:
        raise RuntimeError("tensorlib.clamp: At least one of 'min' or 'max' must not be None")
    simple = not isinstance(min, Tensor) and not isinstance(max, Tensor) and self._data.dtype.kind == "f"
    if simple and not (self._requires_grad and GRAD.enabled):
        check_inplace(self, "clamp_")
        np.clip(writable(self), min, max, out=self._data)
        bump_version(self)
        return self
    return inplace_apply(self, clamp, (min, max), {}, "clamp_")


clip_ = clamp_


@op(variants="function method")
def clamp_min(input: Tensor, min: Any) -> Tensor:  # noqa: A002
    """:func:`clamp` with only a lower bound."""
    return clamp(input, min=min)


@op(variants="function method")
def clamp_max(input: Tensor, max: Any) -> Tensor:  # noqa: A002
    """:func:`clamp` with only an upper bound."""
    return clamp(input, max=max)


class WhereBackward0(Node):
    __slots__ = ("condition", "self_meta", "other_meta")
    condition: np.ndarray
    self_meta: Meta | None
    other_meta: Meta | None

    def backward(self, g: Tensor) -> tuple:
        c = self.condition
        ga = reduce_to(mul(g, wrap(c)), self.self_meta) if self.needs(0) and self.self_meta is not None else None
        gb = reduce_to(mul(g, wrap(~c)), self.other_meta) if self.needs(1) and self.other_meta is not None else None
        return ga, gb


@op()
def where(condition: Tensor, input: Any = None, other: Any = None, *, out: Tensor | None = None) -> Any:
    """Elements of ``input`` where ``condition`` holds, else of ``other``; with one argument, ``nonzero(as_tuple=True)``."""
    c = tensor_arg(condition, "where", "condition", 1)
    if input is None and other is None:

        return nonzero(c, as_tuple=True)
    if input is None or other is None:
        raise TypeError("where(): expected both 'input' and 'other', or neither")
    if c._data.dtype.kind != "b":
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype {type_title(c._data.dtype)}")
    swapped = False
    if isinstance(input, Tensor):
        x_t, y = input, other
    elif isinstance(other, Tensor):
        x_t, y, swapped = other, input, True
    else:
        dt = _dtype.result_type_of([], [], [input, other])
        x_t, y = wrap(np.asarray(input, dtype=dt.np)), other
    a, b = binary_arrays(x_t, y, "where")
    if swapped:
        a, b = b, a
    try:
        r = _arr(np.where(c._data, a, b))
    except ValueError:
        raise broadcast_error(c._data, a, b) from None
    if needs_grad(input, other):
        res, node = record(WhereBackward0, r, (input, other))
        node.condition = c._data
        node.self_meta, node.other_meta = _meta(input), _meta(other)
        return _finish(res, out, "where")
    return _finish(wrap(r), out, "where")


class LerpBackward0(Node):
    __slots__ = ("weight", "start", "end", "metas")
    _saved_slots = ("start", "end")
    weight: Operand
    start: SavedTensor
    end: SavedTensor
    metas: tuple[Meta, Meta, Meta | None]

    def backward(self, g: Tensor) -> tuple:
        w = _load(self, self.weight)
        gs = reduce_to(mul(g, rsub(w, 1) if isinstance(w, Tensor) else 1 - w), self.metas[0]) if self.needs(0) else None
        ge_ = reduce_to(mul(g, w), self.metas[1]) if self.needs(1) else None
        gw = None
        w_meta = self.metas[2]
        if self.needs(2) and w_meta is not None:
            gw = reduce_to(mul(g, sub(_load(self, self.end), _load(self, self.start))), w_meta)
        return gs, ge_, gw


@op(variants="function method")
def lerp(input: Tensor, end: Tensor, weight: Any, *, out: Tensor | None = None) -> Tensor:
    """``input + weight * (end - input)``, for floating point tensors of one dtype."""
    x = tensor_arg(input, "lerp")
    e = tensor_arg(end, "lerp", "end", 2)
    a, b = x._data, e._data
    if a.dtype.kind != "f" or b.dtype != a.dtype or isinstance(weight, Tensor) or type(weight) is not float:
        a, b = _lerp_operands(x, e, weight)
    w = weight._data if isinstance(weight, Tensor) else weight
    try:
        r = _arr(a + w * (b - a)).astype(a.dtype, copy=False)
    except ValueError:
        raise broadcast_error(a, e._data) from None
    if needs_grad(x, e, weight):
        res, node = record(LerpBackward0, r, (x, e, weight))
        node.weight = _save(weight)
        node.start, node.end = save_input(x), save_input(e)
        node.metas = (_meta(x), _meta(e), _meta(weight))
        return _finish(res, out, "lerp")
    return _finish(wrap(r), out, "lerp")


def _lerp_operands(x: Tensor, e: Tensor, weight: Any) -> tuple[np.ndarray, np.ndarray]:
    """torch's dtype rules for lerp: one floating dtype, except that a 0-dim weight promotes like a scalar."""
    a, b = x._data, e._data
    if b.dtype != a.dtype:
        raise RuntimeError(f"expected dtype {_c_name(a.dtype)} for `end` but got dtype {_c_name(b.dtype)}")
    if isinstance(weight, Tensor):
        wd = weight._data.dtype
        if weight._data.ndim and wd != a.dtype:
            raise RuntimeError(f"expected dtype {_c_name(a.dtype)} for `weight` but got dtype {_c_name(wd)}")
        dt = _dtype.PROMOTE[(FROM_NP[a.dtype], FROM_NP[wd])].np if a.dtype.kind != wd.kind else a.dtype
        kernel = "lerp_kernel_tensor"
    elif isinstance(weight, (int, float, complex, np.number, np.bool_)):
        if isinstance(weight, (complex, np.complexfloating)) and a.dtype.kind == "f":
            raise RuntimeError(f"value cannot be converted to type {_c_name(a.dtype)} without overflow")
        dt, kernel = a.dtype, "lerp_kernel_scalar"
    else:
        raise TypeError(f"lerp(): argument 'weight' (position 3) must be Number or Tensor, not {type(weight).__name__}")
    if dt.kind not in "fc":
        raise not_implemented(kernel, a.dtype)
    return (a, b) if dt == a.dtype else (a.astype(dt), b.astype(dt))


def _c_name(npdt: np.dtype) -> str:
    """The C++ type name torch's dtype-mismatch messages use."""
    return {"float32": "float", "float64": "double", "float16": "c10::Half", "complex64": "c10::complex<float>",
            "complex128": "c10::complex<double>", "int64": "long int", "int32": "int", "int16": "short int",
            "int8": "signed char", "uint8": "unsigned char", "bool": "bool"}[npdt.name]


@op(variants="function method")
def nonzero(input: Tensor, *, out: Tensor | None = None, as_tuple: bool = False) -> Any:
    """Indices of nonzero elements: an ``(n, ndim)`` tensor, or a tuple of 1-D tensors with ``as_tuple``."""
    x = tensor_arg(input, "nonzero")
    a = x._data
    if isinstance(out, Tensor) and out._data.dtype != np.int64:
        raise RuntimeError("nonzero: Expected out tensor to have scalar type Long but got scalar type"
                           f"{type_title(out._data.dtype)}")  # (torch's message has no space there)
    if as_tuple:
        if a.ndim == 0:
            return (wrap(np.nonzero(a.reshape(1))[0].astype(np.int64)),)
        return tuple(wrap(i.astype(np.int64)) for i in np.nonzero(a))
    r = np.argwhere(a).astype(np.int64) if a.ndim else np.zeros((int(bool(a)), 0), dtype=np.int64)
    res = wrap(r)
    return res if out is None else write_out(out, res, "nonzero")


@op(variants="function method")
def argwhere(input: Tensor) -> Tensor:
    """Indices of nonzero elements as an ``(n, ndim)`` tensor."""
    return nonzero(input)


def _nan_to_num_array(a: np.ndarray, nan: float, posinf: float | None, neginf: float | None) -> Any:
    if a.dtype.kind != "f" or posinf is not None or neginf is not None:
        return np.nan_to_num(a, nan=nan, posinf=posinf, neginf=neginf)
    # the infinities go to the dtype's extremes, which finite values never pass: one clip (np.nan_to_num takes 7-10x
    # longer), then the NaNs, if any
    info = np.finfo(a.dtype)
    r = clip_ufunc(a, info.min, info.max, out=np.empty_like(a))
    missing = np.isnan(r)
    if missing.any():
        r[missing] = nan
    return r


@op(variants="function method")
def nan_to_num(
    input: Tensor, nan: float | None = 0.0, posinf: float | None = None, neginf: float | None = None, *,
    out: Tensor | None = None
) -> Tensor:
    """Replace NaN and infinities with finite numbers."""
    no_complex_grad("nan_to_num", input)
    x = tensor_arg(input, "nan_to_num")
    nan = 0.0 if nan is None else float_arg(nan, "nan_to_num", "nan")  # (torch: float? nan=None)
    posinf = None if posinf is None else float_arg(posinf, "nan_to_num", "posinf")
    neginf = None if neginf is None else float_arg(neginf, "nan_to_num", "neginf")
    a = x._data
    r = _arr(_nan_to_num_array(a, nan, posinf, neginf))
    if x._requires_grad and GRAD.enabled:
        res, node = record(NanToNumBackward0, r, (x,))
        node.mask = np.isfinite(a)
        return _finish(res, out, "nan_to_num")
    return _finish(wrap(r), out, "nan_to_num")


class NanToNumBackward0(Node):
    __slots__ = ("mask",)
    mask: np.ndarray

    def backward(self, g: Tensor) -> tuple:
        return (mul(g, wrap(self.mask)),)
