"""Elementwise ops: arithmetic, math functions, comparisons, clamp, where, dtype casts.

Each differentiable op records a node whose ``backward`` is written with these
same ops, so gradients of gradients work. Gradients of broadcast operands are
summed back to the operand's shape (``reduce_to``).
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from .. import _dtype
from .._autograd.graph import Node, SavedTensor, unpack
from .._dtype import FROM_NP
from ._util import (
    GRAD,
    Tensor,
    binary_arrays,
    broadcast_error,
    bump_version,
    check_inplace,
    needs_grad,
    not_implemented,
    number_input,
    record,
    result_dtype,
    tensor_arg,
    type_title,
    wrap,
    writable,
    write_out,
)
from . import reduction as _red

ndarray = np.ndarray


def _arr(r: Any) -> np.ndarray:
    """NumPy returns scalars for 0-d operands; tensors always hold arrays."""
    return r if type(r) is ndarray else np.asarray(r)


def _meta(v: Any) -> Any:
    """What a gradient for ``v`` must match: ``(shape, dtype)`` for tensors, None for scalars."""
    if isinstance(v, Tensor):
        return (v._data.shape, v._data.dtype)
    return None


def reduce_to(g: Tensor, meta: tuple) -> Tensor:
    """Sum a broadcast gradient back to an operand's shape and cast it to its dtype."""
    shape, npdt = meta
    if g._data.shape != shape:
        g = _red.sum_to_size(g, shape)
    if g._data.dtype != npdt:
        g = to_dtype(g, FROM_NP[npdt])
    return g


def _save(v: Any) -> Any:
    return SavedTensor(v, False) if isinstance(v, Tensor) else v


def _load(node: Node, v: Any) -> Any:
    return v.unpack(node) if isinstance(v, SavedTensor) else v


def _finish(result: Tensor, out: Any, fname: str) -> Tensor:
    return result if out is None else write_out(out, result, fname)


def _apply2(fn: Any, a: Any, b: Any) -> np.ndarray:
    """``fn(a, b)`` as an array, with torch's error for shapes that do not broadcast."""
    try:
        r = fn(a, b)
    except ValueError:
        raise broadcast_error(a, b) from None
    return r if type(r) is ndarray else np.asarray(r)


# -- add / sub ------------------------------------------------------------------


class AddBackward0(Node):
    __slots__ = ("alpha", "self_meta", "other_meta")

    def backward(self, g: Tensor) -> tuple:
        ga = reduce_to(g, self.self_meta) if self.needs(0) else None
        gb = None
        if self.needs(1):
            gb = reduce_to(g if self.alpha == 1 else mul(g, self.alpha), self.other_meta)
        return ga, gb


class SubBackward0(Node):
    __slots__ = ("alpha", "self_meta", "other_meta")

    def backward(self, g: Tensor) -> tuple:
        ga = reduce_to(g, self.self_meta) if self.needs(0) else None
        gb = None
        if self.needs(1):
            gb = reduce_to(neg(g) if self.alpha == 1 else mul(g, -self.alpha), self.other_meta)
        return ga, gb


def _check_alpha(x: Tensor, other: Any, alpha: Any, fname: str) -> None:
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float, complex, np.number)):
        if isinstance(alpha, Tensor) and alpha._data.size == 1:
            return
        raise TypeError(f"{fname}(): argument 'alpha' must be Number, not {type(alpha).__name__}")
    if isinstance(alpha, float) and x._data.dtype.kind in "iub" and (
        not isinstance(other, Tensor) or other._data.dtype.kind in "iub"
    ):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")


def _add_impl(x: Tensor, other: Any, alpha: Any, fname: str, node_cls: type, ufunc: Any) -> Tensor:
    if alpha != 1:
        _check_alpha(x, other, alpha, fname)
    a, b = binary_arrays(x, other, fname)
    if alpha != 1:
        b = b * (alpha.item() if isinstance(alpha, Tensor) else alpha)
    try:
        r = ufunc(a, b)
    except ValueError:
        raise broadcast_error(a, b) from None
    if type(r) is not ndarray:
        r = np.asarray(r)
    if (x._requires_grad or (isinstance(other, Tensor) and other._requires_grad)) and GRAD.enabled:
        out, node = record(node_cls, r, (x, other))
        node.alpha = alpha
        node.self_meta = (x._data.shape, x._data.dtype)
        node.other_meta = _meta(other)
        return out
    return wrap(r)


def add(input: Tensor, other: Any, *, alpha: Any = 1, out: Tensor | None = None) -> Tensor:
    """``input + alpha * other``, broadcasting."""
    x = input if type(input) is Tensor else number_input(input, other, "add", True)
    r = _add_impl(x, other, alpha, "add", AddBackward0, np.add)
    return r if out is None else write_out(out, r, "add")


def sub(input: Tensor, other: Any, *, alpha: Any = 1, out: Tensor | None = None) -> Tensor:
    """``input - alpha * other``, broadcasting."""
    if type(input) is not Tensor and isinstance(input, (bool, np.bool_)) and isinstance(other, Tensor):
        _check_sub_bool(other, input)
    x = input if type(input) is Tensor else number_input(input, other, "sub", True)
    t = type(other)
    if x._data.dtype.kind == "b" or (t is not float and t is not int and t is not Tensor) or (
        t is Tensor and other._data.dtype.kind == "b"
    ):
        _check_sub_bool(x, other)
    return _finish(_add_impl(x, other, alpha, "sub", SubBackward0, np.subtract), out, "sub")


subtract = sub


def _check_sub_bool(x: Tensor, other: Any) -> None:
    xb = x._data.dtype.kind == "b"
    ob = isinstance(other, (bool, np.bool_)) or (isinstance(other, Tensor) and other._data.dtype.kind == "b")
    if xb and ob:
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. "
            "Use the `^` or `logical_xor()` operator instead."
        )
    if xb or ob:
        raise RuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. "
            "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead."
        )


def rsub(input: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    """``other - alpha * input``."""
    x = tensor_arg(input, "rsub")
    if isinstance(other, Tensor):
        return sub(other, x, alpha=alpha)
    return add(mul(x, -alpha), other)


# -- mul / div ---------------------------------------------------------------------


class MulBackward0(Node):
    __slots__ = ("self_", "other", "self_meta", "other_meta")
    _saved_slots = ("self_", "other")

    def backward(self, g: Tensor) -> tuple:
        ga = gb = None
        if self.needs(0):
            ga = reduce_to(mul(g, _conj(_load(self, self.other))), self.self_meta)
        if self.needs(1):
            gb = reduce_to(mul(g, _conj(_load(self, self.self_)), ), self.other_meta)
        return ga, gb


def _conj(v: Any) -> Any:
    if isinstance(v, Tensor):
        return conj(v) if v._data.dtype.kind == "c" else v
    return v.conjugate() if isinstance(v, complex) else v


def mul(input: Tensor, other: Any, *, out: Tensor | None = None) -> Tensor:
    """Elementwise product, broadcasting."""
    x = input if type(input) is Tensor else number_input(input, other, "mul", True)
    a, b = binary_arrays(x, other, "mul")
    try:
        r = a * b
    except ValueError:
        raise broadcast_error(a, b) from None
    if type(r) is not ndarray:
        r = np.asarray(r)
    if (x._requires_grad or (isinstance(other, Tensor) and other._requires_grad)) and GRAD.enabled:
        res, node = record(MulBackward0, r, (x, other))
        node.self_ = SavedTensor(x, False) if node.needs(1) else None
        node.other = _save(other) if node.needs(0) else None
        node.self_meta = (x._data.shape, x._data.dtype)
        node.other_meta = _meta(other)
        return _finish(res, out, "mul")
    return wrap(r) if out is None else write_out(out, wrap(r), "mul")


multiply = mul


class DivBackward0(Node):
    __slots__ = ("self_", "other", "self_meta", "other_meta")
    _saved_slots = ("self_", "other")

    def backward(self, g: Tensor) -> tuple:
        other = _load(self, self.other)
        ga = gb = None
        if self.needs(0):
            ga = reduce_to(div(g, _conj(other)), self.self_meta)
        if self.needs(1):
            x = _load(self, self.self_)
            # d(x/y)/dy = -x / y^2
            gb = reduce_to(neg(mul(g, _conj(div(div(x, other), other)))), self.other_meta)
        return ga, gb


def div(input: Tensor, other: Any, *, rounding_mode: str | None = None, out: Tensor | None = None) -> Tensor:
    """Elementwise division; ``rounding_mode`` None (true division), ``'trunc'`` or ``'floor'``."""
    if type(input) is not Tensor:
        if rounding_mode is None and isinstance(input, (int, np.integer, np.bool_)) and isinstance(other, Tensor):
            input = float(input)  # true division: the number keeps its value (not wrapped into an int dtype)
        input = number_input(input, other, "div", True)
    x = input
    if rounding_mode is not None:
        if rounding_mode not in ("trunc", "floor"):
            raise RuntimeError(
                f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{rounding_mode}'"
            )
        a, b = binary_arrays(x, other, "div")
        _check_int_division(a, b, "div_" + rounding_mode + "_cpu")
        if rounding_mode == "floor":
            r = np.floor_divide(a, b)
        else:
            r = np.trunc(np.true_divide(a, b)) if a.dtype.kind in "fc" else _trunc_div_int(a, b)
        r = _arr(r)
        if r.dtype.kind in "fc" and needs_grad(x, other):
            res, node = record(ZeroGradBackward, r, (x, other))
            node.metas = (_meta(x), _meta(other))
            return _finish(res, out, "div")
        return _finish(wrap(r.astype(a.dtype, copy=False) if a.dtype.kind in "iu" else r), out, "div")
    a, b = binary_arrays(x, other, "div")
    if a.dtype.kind in "iub":
        # true division of integers gives the default float dtype; a scalar divisor
        # keeps its own value (binary_arrays wrapped it into the integer type)
        a = a.astype(_dtype.DEFAULT.np_float)
        b = b.astype(a.dtype) if type(b) is ndarray else (other.item() if isinstance(other, np.generic) else other)
    try:
        r = a / b
    except ValueError:
        raise broadcast_error(a, b) from None
    if type(r) is not ndarray:
        r = np.asarray(r)
    if (x._requires_grad or (isinstance(other, Tensor) and other._requires_grad)) and GRAD.enabled:
        res, node = record(DivBackward0, r, (x, other))
        node.other = _save(other)
        node.self_ = SavedTensor(x, False) if node.needs(1) else None
        node.self_meta = (x._data.shape, x._data.dtype)
        node.other_meta = _meta(other)
        return _finish(res, out, "div")
    return wrap(r) if out is None else write_out(out, wrap(r), "div")


def _check_int_division(a: np.ndarray, b: Any, kernel: str) -> None:
    """torch's errors for integer-style division: no bool or complex kernels, no integer division by zero."""
    kind = a.dtype.kind
    if kind in "bc":
        raise not_implemented(kernel, a.dtype)
    if kind in "iu" and np.any(np.asarray(b) == 0):
        raise RuntimeError("ZeroDivisionError")


def _trunc_div_int(a: np.ndarray, b: Any) -> np.ndarray:
    q = np.floor_divide(a, b)
    rem = np.remainder(a, b)
    fix = (rem != 0) & ((np.asarray(a) < 0) != (np.asarray(b) < 0))
    return np.where(fix, q + 1, q)


divide = div
true_divide = div


def floor_divide(input: Tensor, other: Any, *, out: Tensor | None = None) -> Tensor:
    """Elementwise division rounded down."""
    return div(input, other, rounding_mode="floor", out=out)


class ZeroGradBackward(Node):
    """For piecewise-constant ops: the gradient is zero everywhere it exists."""

    __slots__ = ("metas",)

    def apply(self, grads: list) -> tuple:
        return tuple(
            zeros_like_meta(m) if m is not None and self.needs(i) else None for i, m in enumerate(self.metas)
        )


def zeros_like_meta(meta: tuple) -> Tensor:
    return wrap(np.zeros(meta[0], dtype=meta[1]))


def remainder(input: Any, other: Any, *, out: Tensor | None = None) -> Tensor:
    """Python-style modulus (result has the sign of the divisor)."""
    if not isinstance(input, Tensor):
        return _finish(remainder(number_input(input, other, "remainder"), other), out, "remainder")
    a, b = binary_arrays(input, other, "remainder")
    if a.dtype.kind not in "f":
        _check_int_division(a, b, "remainder_cpu")
    r = _apply2(np.remainder, a, b)
    if needs_grad(input, other):
        res, node = record(RemainderBackward0, r, (input, other))
        node.self_meta = _meta(input)
        node.other = _save(other)
        node.self_ = SavedTensor(input, False)
        node.other_meta = _meta(other)
        return _finish(res, out, "remainder")
    return _finish(wrap(r), out, "remainder")


def full_like_scalar(value: Any, like: Any) -> Tensor:
    """A 0-dim tensor holding ``value`` in the dtype it takes next to ``like`` (out-of-range ints wrap, as in torch)."""
    dt = result_dtype(like, value) if isinstance(like, Tensor) else _dtype.scalar_dtype(value)
    return wrap(np.array(value).astype(dt.np))


class RemainderBackward0(Node):
    __slots__ = ("self_", "other", "self_meta", "other_meta")
    _saved_slots = ("self_", "other")

    def backward(self, g: Tensor) -> tuple:
        ga = reduce_to(g, self.self_meta) if self.needs(0) else None
        gb = None
        if self.needs(1):
            x, y = _load(self, self.self_), _load(self, self.other)
            gb = reduce_to(neg(mul(g, floor_divide(x, y))), self.other_meta)
        return ga, gb


def fmod(input: Tensor, other: Any, *, out: Tensor | None = None) -> Tensor:
    """C-style modulus (result has the sign of the dividend)."""
    x = tensor_arg(input, "fmod")
    a, b = binary_arrays(x, other, "fmod")
    if a.dtype.kind not in "f":
        _check_int_division(a, b, "fmod_cpu")
    r = _apply2(np.fmod, a, b)
    if needs_grad(x, other):
        res, node = record(FmodBackward0, r, (x, other))
        node.self_ = SavedTensor(x, False)
        node.other = _save(other)
        node.self_meta, node.other_meta = _meta(x), _meta(other)
        return _finish(res, out, "fmod")
    return _finish(wrap(r), out, "fmod")


class FmodBackward0(RemainderBackward0):
    __slots__ = ()

    def backward(self, g: Tensor) -> tuple:
        ga = reduce_to(g, self.self_meta) if self.needs(0) else None
        gb = None
        if self.needs(1):
            x, y = _load(self, self.self_), _load(self, self.other)
            gb = reduce_to(neg(mul(g, trunc(div(x, y)))), self.other_meta)
        return ga, gb


# -- pow -------------------------------------------------------------------------


class PowBackward0(Node):
    """Tensor ** scalar."""

    __slots__ = ("self_", "exponent")
    _saved_slots = ("self_",)

    def backward(self, g: Tensor) -> tuple:
        p = self.exponent
        x = unpack(self, self.self_)
        if p == 0:
            return (zeros_like(x),)
        return (mul(mul(g, p), pow(x, p - 1)),)


class PowBackward1(Node):
    """Tensor ** Tensor."""

    __slots__ = ("self_", "exponent", "result", "self_meta", "exp_meta")
    _saved_slots = ("self_", "exponent", "result")

    def backward(self, g: Tensor) -> tuple:
        x = _load(self, self.self_)
        p = _load(self, self.exponent)
        ga = gb = None
        if self.needs(0):
            # where p == 0 the derivative is 0 even at x == 0
            d = mul(p, pow(x, sub(p, 1)))
            d = where(eq(p, 0), 0.0, d) if isinstance(p, Tensor) else d
            ga = reduce_to(mul(g, d), self.self_meta)
        if self.needs(1):
            y = unpack(self, self.result)
            d = mul(y, log(x)) if isinstance(x, Tensor) else mul(y, math.log(x) if x > 0 else float("nan"))
            # 0 ** p with p >= 0 has gradient 0 w.r.t. p, as torch defines it
            if isinstance(x, Tensor):
                d = where(logical_and(eq(x, 0), ge(p, 0)), 0.0, d)
            elif x == 0:
                d = where(ge(p, 0), 0.0, d)
            gb = reduce_to(mul(g, d), self.exp_meta)
        return ga, gb


def pow(input: Any, exponent: Any, *, out: Tensor | None = None) -> Tensor:  # noqa: A001 - torch's name
    """``input ** exponent`` elementwise (either may be a scalar)."""
    if not isinstance(input, Tensor):
        if not isinstance(exponent, Tensor):
            raise TypeError(f"pow(): argument 'input' must be Tensor or Number, not {type(input).__name__}")
        return _pow_tensor(number_input(input, exponent, "pow"), exponent, out, scalar_base=input)
    if isinstance(exponent, Tensor):
        return _pow_tensor(input, exponent, out)
    x = input
    a, p = binary_arrays(x, exponent, "pow")
    kind = a.dtype.kind
    if kind != "f" and kind != "c":
        if kind in "iu" and isinstance(exponent, (int, np.integer)) and exponent < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        if kind == "b":  # bool ** bool stays bool: x ** True is x, x ** False is True
            r = a.copy() if p else np.ones_like(a)
            return _finish(wrap(r), out, "pow")
    if p == 2:
        r = a * a
    elif p == 0.5 and kind == "f":
        r = np.sqrt(a)
    else:
        r = np.power(a, p)
    r = _arr(r)
    if x._requires_grad and GRAD.enabled:
        res, node = record(PowBackward0, r, (x,))
        node.self_ = SavedTensor(x, False)
        node.exponent = p
        return _finish(res, out, "pow")
    return _finish(wrap(r), out, "pow")


def _pow_tensor(x: Tensor, e: Tensor, out: Any, scalar_base: Any = None) -> Tensor:
    a, b = binary_arrays(x, e, "pow")
    if a.dtype.kind in "iub":
        r = _int_pow(a, b)
    else:
        r = _apply2(np.power, a, b)
    if needs_grad(x, e):
        res, node = record(PowBackward1, r, (x, e))
        node.self_ = SavedTensor(x, False) if scalar_base is None else scalar_base
        node.exponent = SavedTensor(e, False)
        node.result = SavedTensor(res, True)
        node.self_meta, node.exp_meta = _meta(x), _meta(e)
        return _finish(res, out, "pow")
    return _finish(wrap(r), out, "pow")


def _int_pow(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Integer powers with torch's rules: bool ** bool has no kernel; negative exponents give 1 / a ** -b in integers."""
    if a.dtype.kind == "b":
        raise not_implemented("pow", a.dtype)
    neg = b < 0
    if not np.any(neg):
        return _apply2(np.power, a, b)
    r = _apply2(np.power, a, np.where(neg, 0, b))
    # 1 / a ** n truncates to 0 unless |a| == 1
    odd = (b % 2) != 0
    inv = np.where(a == 1, 1, np.where(a == -1, np.where(odd, -1, 1), 0)).astype(r.dtype)
    return np.where(neg, inv, r)


def float_power(input: Any, exponent: Any, *, out: Tensor | None = None) -> Tensor:
    """``input ** exponent`` computed in double precision (complex128 if either is complex)."""
    if not isinstance(input, Tensor) and not isinstance(exponent, Tensor):
        raise TypeError(f"float_power(): argument 'input' must be Tensor, not {type(input).__name__}")
    cplx = any(
        (v._data.dtype.kind == "c") if isinstance(v, Tensor) else isinstance(v, (complex, np.complexfloating))
        for v in (input, exponent)
    )
    dt = _dtype.complex128 if cplx else _dtype.float64

    def conv(v: Any) -> Any:
        if isinstance(v, Tensor):
            return to_dtype(v, dt)
        return complex(v) if cplx else float(v)

    return pow(conv(input), conv(exponent), out=out)


# -- unary math -------------------------------------------------------------------


def _unary(
    name: str,
    np_fn: Callable[[np.ndarray], np.ndarray],
    grad: Callable[[Tensor, Any, Any], Tensor] | None,
    save: str,
    doc: str,
    *,
    other_dtypes: Callable[[np.ndarray, Callable], np.ndarray] | None = None,
) -> tuple[Callable, Callable]:
    """Build an elementwise function and its in-place method from a NumPy function and a gradient rule.

    ``grad(g, x, y)`` gets the incoming gradient, the input and the result
    (whichever ``save`` names: ``'x'``, ``'y'``, ``'xy'`` or ``''``; the other is None).
    A None ``grad`` marks a piecewise-constant function (zero gradient).
    ``other_dtypes(a, np_fn)`` computes the result for non-float inputs (or raises
    torch's error); by default integers and bools compute in the default float dtype.
    """
    if other_dtypes is None:
        other_dtypes = _in_float
    node_name = "".join(p.capitalize() for p in name.split("_")) + "Backward0"

    def backward(self: Any, g: Tensor) -> tuple:
        x = unpack(self, self.x) if "x" in save else None
        y = unpack(self, self.y) if "y" in save else None
        if grad is None:
            return (zeros_like(g),)
        return (grad(g, x, y),)

    node_cls = type(node_name, (Node,), {"__slots__": ("x", "y"), "_saved_slots": ("x", "y"), "backward": backward})

    def compute(x: Tensor) -> np.ndarray:
        a = x._data
        r = np_fn(a) if a.dtype.kind == "f" else other_dtypes(a, np_fn)
        return r if type(r) is ndarray else np.asarray(r)

    def fn(input: Tensor, *, out: Tensor | None = None) -> Tensor:
        x = tensor_arg(input, name)
        r = compute(x)
        if x._requires_grad and GRAD.enabled and r.dtype.kind in "fc":
            res, node = record(node_cls, r, (x,))
            node.x = SavedTensor(x, False) if "x" in save else None
            node.y = SavedTensor(res, True) if "y" in save else None
            return _finish(res, out, name)
        return _finish(wrap(r), out, name)

    def fn_(self: Tensor) -> Tensor:
        return inplace_apply(self, fn, (), {}, name + "_")

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    fn_.__name__ = fn_.__qualname__ = name + "_"
    fn_.__doc__ = f"In-place version of :func:`{name}`."
    fn.__module__ = fn_.__module__ = __name__
    return fn, fn_


def _in_float(a: np.ndarray, np_fn: Callable) -> np.ndarray:
    """Integers and bools compute in the default float dtype; complex stays complex."""
    return np_fn(a if a.dtype.kind == "c" else a.astype(_dtype.DEFAULT.np_float))


def _any_dtype(name: str) -> Callable:
    """Every dtype computes in its own type, except that torch has no ``name`` kernel for bool."""

    def other(a: np.ndarray, np_fn: Callable) -> np.ndarray:
        if a.dtype.kind == "b":
            raise not_implemented(name + "_cpu", a.dtype)
        return np_fn(a)

    return other


def _rounding(name: str) -> Callable:
    """floor/ceil/trunc: integers are returned as they are; no bool or complex kernels."""

    def other(a: np.ndarray, np_fn: Callable) -> np.ndarray:
        kind = a.dtype.kind
        if kind == "b":
            raise not_implemented(name + "_vml_cpu", a.dtype)
        if kind == "c":
            raise NotImplementedError(f"{name} is not supported for complex inputs")
        return a.copy()

    return other


def _float_only(kernel: str) -> Callable:
    def other(a: np.ndarray, np_fn: Callable) -> np.ndarray:
        raise not_implemented(kernel, a.dtype)

    return other


def _real_in_float(kernel: str) -> Callable:
    """Like the default, but no complex kernel."""

    def other(a: np.ndarray, np_fn: Callable) -> np.ndarray:
        if a.dtype.kind == "c":
            raise not_implemented(kernel, a.dtype)
        return np_fn(a.astype(_dtype.DEFAULT.np_float))

    return other


def _sign_other(a: np.ndarray, np_fn: Callable) -> np.ndarray:
    kind = a.dtype.kind
    if kind == "b":
        return a.copy()
    if kind == "c":
        raise NotImplementedError(
            "Unlike NumPy, torch.sign is not intended to support complex numbers. Please use torch.sgn instead."
        )
    return np_fn(a)


def _relu_other(a: np.ndarray, np_fn: Callable) -> np.ndarray:
    kind = a.dtype.kind
    if kind == "b":
        raise RuntimeError("Boolean inputs not supported for relu")
    if kind == "c":
        raise NotImplementedError("clamp is not supported for complex types")
    return np_fn(a)


def inplace_apply(self: Tensor, op: Callable, args: tuple, kwargs: dict, fname: str) -> Tensor:
    """Run an out-of-place op and write its result into ``self``, rebasing ``self``'s history.

    While recording, the op sees a snapshot of ``self`` (so saved values are the
    originals); the result's graph node becomes ``self``'s ``grad_fn``.
    """
    if not isinstance(self, Tensor):
        raise TypeError(f"{fname}(): argument 'self' must be Tensor, not {type(self).__name__}")
    check_inplace(self, fname)
    recording = GRAD.enabled and (self._requires_grad or needs_grad(*args, *kwargs.values()))
    src = clone(self) if recording and self._requires_grad else self
    res = op(src, *args, **kwargs)
    return commit_inplace(self, res, fname)


def commit_inplace(self: Tensor, res: Tensor, fname: str) -> Tensor:
    """Copy ``res`` into ``self`` (same memory) and make ``res``'s history ``self``'s."""
    dst = writable(self)
    src = res._data
    if src.dtype != dst.dtype and not np.can_cast(src.dtype, dst.dtype, casting="same_kind"):
        raise RuntimeError(
            f"result type {_type_title(src.dtype)} can't be cast to the desired output type {_type_title(dst.dtype)}"
        )
    if src.shape != dst.shape:
        try:
            np.broadcast_to(src, dst.shape)
        except ValueError:
            raise RuntimeError(
                f"output with shape {list(dst.shape)} doesn't match the broadcast shape {list(src.shape)}"
            ) from None
    if dst.ndim == 0:
        dst[()] = src
    else:
        np.copyto(dst, src, casting="unsafe")
    bump_version(self)
    if res._grad_fn is not None:
        from .._autograd.views import rebase_history

        rebase_history(self, res)
    return self


_type_title = type_title  # the name other modules use


_LN2 = math.log(2.0)
_LN10 = math.log(10.0)

exp, exp_ = _unary("exp", np.exp, lambda g, x, y: mul(g, _conj(y)), "y", "Elementwise e ** x.")
exp2, exp2_ = _unary("exp2", np.exp2, lambda g, x, y: mul(g, mul(_conj(y), _LN2)), "y", "Elementwise 2 ** x.")
expm1, expm1_ = _unary("expm1", np.expm1, lambda g, x, y: mul(g, add(y, 1)), "y", "Elementwise e ** x - 1.")
log, log_ = _unary("log", np.log, lambda g, x, y: div(g, _conj(x)), "x", "Elementwise natural logarithm.")
log2, log2_ = _unary("log2", np.log2, lambda g, x, y: div(g, mul(x, _LN2)), "x", "Elementwise base-2 logarithm.")
log10, log10_ = _unary("log10", np.log10, lambda g, x, y: div(g, mul(x, _LN10)), "x", "Elementwise base-10 logarithm.")
log1p, log1p_ = _unary("log1p", np.log1p, lambda g, x, y: div(g, add(x, 1)), "x", "Elementwise log(1 + x).")
sqrt, sqrt_ = _unary("sqrt", np.sqrt, lambda g, x, y: div(g, mul(_conj(y), 2)), "y", "Elementwise square root.")
rsqrt, rsqrt_ = _unary(
    "rsqrt", lambda a: 1 / np.sqrt(a), lambda g, x, y: mul(g, mul(pow(y, 3), -0.5)), "y", "Elementwise 1 / sqrt(x)."
)
sin, sin_ = _unary("sin", np.sin, lambda g, x, y: mul(g, cos(x)), "x", "Elementwise sine.")
cos, cos_ = _unary("cos", np.cos, lambda g, x, y: mul(g, neg(sin(x))), "x", "Elementwise cosine.")
tan, tan_ = _unary("tan", np.tan, lambda g, x, y: mul(g, add(mul(y, y), 1)), "y", "Elementwise tangent.")
asin, asin_ = _unary("asin", np.arcsin, lambda g, x, y: div(g, sqrt(rsub(mul(x, x), 1))), "x", "Elementwise arcsine.")
acos, acos_ = _unary(
    "acos", np.arccos, lambda g, x, y: neg(div(g, sqrt(rsub(mul(x, x), 1)))), "x", "Elementwise arccosine."
)
atan, atan_ = _unary("atan", np.arctan, lambda g, x, y: div(g, add(mul(x, x), 1)), "x", "Elementwise arctangent.")
sinh, sinh_ = _unary("sinh", np.sinh, lambda g, x, y: mul(g, cosh(x)), "x", "Elementwise hyperbolic sine.")
cosh, cosh_ = _unary("cosh", np.cosh, lambda g, x, y: mul(g, sinh(x)), "x", "Elementwise hyperbolic cosine.")
tanh, tanh_ = _unary(
    "tanh", np.tanh, lambda g, x, y: mul(g, rsub(mul(y, y), 1)), "y", "Elementwise hyperbolic tangent."
)
asinh, asinh_ = _unary(
    "asinh", np.arcsinh, lambda g, x, y: div(g, sqrt(add(mul(x, x), 1))), "x", "Elementwise inverse hyperbolic sine."
)
acosh, acosh_ = _unary(
    "acosh", np.arccosh, lambda g, x, y: div(g, sqrt(sub(mul(x, x), 1))), "x", "Elementwise inverse hyperbolic cosine."
)
atanh, atanh_ = _unary(
    "atanh", np.arctanh, lambda g, x, y: div(g, rsub(mul(x, x), 1)), "x", "Elementwise inverse hyperbolic tangent."
)


def _sigmoid_np(a: np.ndarray) -> np.ndarray:
    # Split by sign so neither branch overflows.
    out = np.empty_like(a)
    pos = a >= 0
    np.divide(1, 1 + np.exp(-a, where=pos, out=np.zeros_like(a)), where=pos, out=out)
    ea = np.exp(a, where=~pos, out=np.zeros_like(a))
    np.divide(ea, 1 + ea, where=~pos, out=out)
    return out


sigmoid, sigmoid_ = _unary(
    "sigmoid", _sigmoid_np, lambda g, x, y: mul(g, mul(y, rsub(y, 1))), "y", "Elementwise logistic function 1 / (1 + e ** -x)."
)
reciprocal, reciprocal_ = _unary(
    "reciprocal", lambda a: 1 / a, lambda g, x, y: mul(g, neg(mul(y, y))), "y", "Elementwise 1 / x."
)
def square(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Elementwise x ** 2."""
    return pow(tensor_arg(input, "square"), 2, out=out)


def square_(self: Tensor) -> Tensor:
    """In-place version of :func:`square`."""
    return inplace_apply(self, square, (), {}, "square_")


def _abs_grad(g: Tensor, x: Tensor, y: Any) -> Tensor:
    return mul(g, sgn(x))


abs, abs_ = _unary("abs", np.abs, _abs_grad, "x", "Elementwise absolute value.", other_dtypes=_any_dtype("abs"))  # noqa: A001
absolute = abs


def _relu_grad(g: Tensor, x: Any, y: Tensor) -> Tensor:
    return mul(g, gt(y, 0))


relu, relu_ = _unary(
    "relu", lambda a: np.maximum(a, 0), _relu_grad, "y", "Elementwise max(x, 0).", other_dtypes=_relu_other
)

floor, floor_ = _unary("floor", np.floor, None, "", "Elementwise floor.", other_dtypes=_rounding("floor"))
ceil, ceil_ = _unary("ceil", np.ceil, None, "", "Elementwise ceiling.", other_dtypes=_rounding("ceil"))
trunc, trunc_ = _unary(
    "trunc", np.trunc, None, "", "Elementwise truncation toward zero.", other_dtypes=_rounding("trunc")
)
fix, fix_ = trunc, trunc_
frac, frac_ = _unary(
    "frac", lambda a: a - np.trunc(a), lambda g, x, y: g, "", "Elementwise fractional part.",
    other_dtypes=_float_only("frac_cpu"),
)
sign, sign_ = _unary("sign", np.sign, None, "", "Elementwise sign (-1, 0 or 1).", other_dtypes=_sign_other)


def sgn(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Sign for real tensors; ``x / |x|`` for complex ones."""
    x = tensor_arg(input, "sgn")
    a = x._data
    if a.dtype.kind == "c":
        mag = np.abs(a)
        r = np.where(mag == 0, 0, a / np.where(mag == 0, 1, mag)).astype(a.dtype)
        return _finish(wrap(r), out, "sgn")
    return sign(x, out=out)


def sgn_(self: Tensor) -> Tensor:
    """In-place version of :func:`sgn`."""
    return inplace_apply(self, sgn, (), {}, "sgn_")


def _round_np(a: np.ndarray, decimals: int = 0) -> np.ndarray:
    return np.round(a, decimals)


class RoundBackward0(ZeroGradBackward):
    __slots__ = ()


def round(input: Tensor, *, decimals: int = 0, out: Tensor | None = None) -> Tensor:  # noqa: A001
    """Elementwise rounding half to even, to ``decimals`` decimal places."""
    x = tensor_arg(input, "round")
    kind = x._data.dtype.kind
    if kind in "bc":
        raise not_implemented("round_vml_cpu", x._data.dtype)
    if kind in "iub" and decimals != 0:
        raise not_implemented("round_cpu", x._data.dtype)
    r = _arr(np.round(x._data, decimals))
    if x._requires_grad and GRAD.enabled and r.dtype.kind in "fc":
        res, node = record(RoundBackward0, r, (x,))
        node.metas = (_meta(x),)
        return _finish(res, out, "round")
    return _finish(wrap(r), out, "round")


def round_(self: Tensor, *, decimals: int = 0) -> Tensor:
    """In-place version of :func:`round`."""
    return inplace_apply(self, round, (), {"decimals": decimals}, "round_")


class NegBackward0(Node):
    __slots__ = ()

    def backward(self, g: Tensor) -> tuple:
        return (neg(g),)


def neg(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Elementwise negation."""
    x = tensor_arg(input, "neg")
    a = x._data
    if a.dtype.kind == "b":
        raise RuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported. "
            "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead."
        )
    r = _arr(np.negative(a))
    if x._requires_grad and GRAD.enabled:
        res, _ = record(NegBackward0, r, (x,))
        return _finish(res, out, "neg")
    return _finish(wrap(r), out, "neg")


negative = neg


def neg_(self: Tensor) -> Tensor:
    """In-place negation."""
    return inplace_apply(self, neg, (), {}, "neg_")


negative_ = neg_


class ConjBackward0(Node):
    __slots__ = ()

    def backward(self, g: Tensor) -> tuple:
        return (conj(g),)


def conj(input: Tensor) -> Tensor:
    """Complex conjugate (the tensor itself for real dtypes)."""
    x = tensor_arg(input, "conj")
    if x._data.dtype.kind != "c":
        return x
    r = np.conj(x._data)
    if x._requires_grad and GRAD.enabled:
        res, _ = record(ConjBackward0, r, (x,))
        return res
    return wrap(r)


class RealBackward0(Node):
    __slots__ = ("meta",)

    def backward(self, g: Tensor) -> tuple:
        return (to_dtype(g, FROM_NP[self.meta[1]]),)


def real(input: Tensor) -> Tensor:
    """The real part (a view for complex tensors, the tensor itself for real ones)."""
    x = tensor_arg(input, "real")
    if x._data.dtype.kind != "c":
        return x
    from .._tensor import _make_view

    t = _make_view(x, x._data.real)
    if x._requires_grad and GRAD.enabled:
        from ._util import edge
        from .._autograd.graph import new_node

        node = new_node(RealBackward0, (edge(x),))
        node.meta = _meta(x)
        t._grad_fn = node
        t._requires_grad = True
    return t


def imag(input: Tensor) -> Tensor:
    """The imaginary part of a complex tensor."""
    x = tensor_arg(input, "imag")
    if x._data.dtype.kind != "c":
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    res = mul(sub(x, conj(x)), -0.5j)
    return to_dtype(res, FROM_NP[x._data.dtype].to_real())


# -- binary min/max, clamp, where -----------------------------------------------------


class MaximumBackward0(Node):
    __slots__ = ("self_", "other", "self_meta", "other_meta", "is_max")
    _saved_slots = ("self_", "other")

    def backward(self, g: Tensor) -> tuple:
        x, y = unpack(self, self.self_), unpack(self, self.other)
        pick_x = gt(x, y) if self.is_max else lt(x, y)
        tie = eq(x, y)
        # ties split the gradient evenly, as torch does
        wx = add(to_dtype(pick_x, FROM_NP[g._data.dtype]), mul(to_dtype(tie, FROM_NP[g._data.dtype]), 0.5))
        ga = reduce_to(mul(g, wx), self.self_meta) if self.needs(0) else None
        gb = reduce_to(mul(g, rsub(wx, 1)), self.other_meta) if self.needs(1) else None
        return ga, gb


def _binary_extreme(input: Tensor, other: Tensor, fname: str, np_fn: Any, is_max: bool, out: Any) -> Tensor:
    x = tensor_arg(input, fname)
    y = tensor_arg(other, fname, "other", 2)
    a, b = binary_arrays(x, y, fname)
    if a.dtype.kind == "c":
        raise RuntimeError(f"{fname} not implemented for complex tensors.")
    r = _apply2(np_fn, a, b)
    if needs_grad(x, y):
        res, node = record(MaximumBackward0, r, (x, y))
        node.self_, node.other = SavedTensor(x, False), SavedTensor(y, False)
        node.self_meta, node.other_meta = _meta(x), _meta(y)
        node.is_max = is_max
        return _finish(res, out, fname)
    return _finish(wrap(r), out, fname)


def maximum(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Elementwise maximum of two tensors (NaN propagates)."""
    return _binary_extreme(input, other, "maximum", np.maximum, True, out)


def minimum(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Elementwise minimum of two tensors (NaN propagates)."""
    return _binary_extreme(input, other, "minimum", np.minimum, False, out)


def fmax(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Elementwise maximum that ignores NaN."""
    return _binary_extreme(input, other, "fmax", np.fmax, True, out)


def fmin(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Elementwise minimum that ignores NaN."""
    return _binary_extreme(input, other, "fmin", np.fmin, False, out)


class ClampBackward1(Node):
    """clamp with number bounds: the gradient passes where the input is within them."""

    __slots__ = ("self_", "min", "max")
    _saved_slots = ("self_",)

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

    def backward(self, g: Tensor) -> tuple:
        x = unpack(self, self.self_)._data
        lo, hi = self.min, self.max
        lo_a = lo._data if isinstance(lo, Tensor) else lo
        hi_a = hi._data if isinstance(hi, Tensor) else hi
        gx = reduce_to(mul(g, wrap(_in_bounds(x, lo, hi))), self.metas[0]) if self.needs(0) else None
        gl = gh = None
        if self.needs(1):
            took_min = x < lo_a
            if hi_a is not None:  # where min > max the result is max
                took_min = took_min & (lo_a <= hi_a)
            gl = reduce_to(mul(g, wrap(took_min)), self.metas[1])
        if self.needs(2):
            took_max = x > hi_a
            if lo_a is not None:
                took_max = took_max | (lo_a > hi_a)
            gh = reduce_to(mul(g, wrap(took_max)), self.metas[2])
        return gx, gl, gh


_BOUND = (int, float, type(None))


def clamp(input: Tensor, min: Any = None, max: Any = None, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    """Limit every element to ``[min, max]`` (either bound may be None, a number or a tensor)."""
    x = tensor_arg(input, "clamp")
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    a = x._data
    lo, hi = min, max
    if a.dtype.kind != "f" or type(min) not in _BOUND or type(max) not in _BOUND:
        a = _clamp_operand(x, min, max)
        lo = min._data if isinstance(min, Tensor) else _int_bound(min, a.dtype)
        hi = max._data if isinstance(max, Tensor) else _int_bound(max, a.dtype)
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
        node.self_ = SavedTensor(x, False)
        node.min, node.max = min, max
        return _finish(res, out, "clamp")
    return _finish(wrap(r), out, "clamp")


def _clamp_operand(x: Tensor, lo: Any, hi: Any) -> np.ndarray:
    """``x``'s data in the dtype torch computes clamp in: the promotion of the input and both bounds."""
    a = x._data
    dims, zeros, scalars = [], [], []
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
    if npdt.kind in "iu" and isinstance(v, int):
        info = np.iinfo(npdt)
        if not info.min <= v <= info.max:
            return np.array(v).astype(npdt)
    return v


clip = clamp


def clamp_(self: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
    """In-place :func:`clamp`."""
    tensor_arg(self, "clamp_", "self")
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    simple = not isinstance(min, Tensor) and not isinstance(max, Tensor) and self._data.dtype.kind == "f"
    if simple and not (self._requires_grad and GRAD.enabled):
        check_inplace(self, "clamp_")
        np.clip(writable(self), min, max, out=self._data)
        bump_version(self)
        return self
    return inplace_apply(self, clamp, (min, max), {}, "clamp_")


clip_ = clamp_


def clamp_min(input: Tensor, min: Any) -> Tensor:  # noqa: A002
    """:func:`clamp` with only a lower bound."""
    return clamp(input, min=min)


def clamp_max(input: Tensor, max: Any) -> Tensor:  # noqa: A002
    """:func:`clamp` with only an upper bound."""
    return clamp(input, max=max)


class WhereBackward0(Node):
    __slots__ = ("condition", "self_meta", "other_meta")

    def backward(self, g: Tensor) -> tuple:
        c = self.condition
        ga = reduce_to(mul(g, wrap(c)), self.self_meta) if self.needs(0) else None
        gb = reduce_to(mul(g, wrap(~c)), self.other_meta) if self.needs(1) else None
        return ga, gb


def where(condition: Tensor, input: Any = None, other: Any = None, *, out: Tensor | None = None) -> Any:
    """Elements of ``input`` where ``condition`` holds, else of ``other``; with one argument, ``nonzero(as_tuple=True)``."""
    c = tensor_arg(condition, "where", "condition", 1)
    if input is None and other is None:
        from .indexing import nonzero

        return nonzero(c, as_tuple=True)
    if input is None or other is None:
        raise TypeError("where(): expected both 'input' and 'other', or neither")
    if c._data.dtype.kind != "b":
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype {_type_title(c._data.dtype)}")
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

    def backward(self, g: Tensor) -> tuple:
        w = _load(self, self.weight)
        gs = reduce_to(mul(g, rsub(w, 1) if isinstance(w, Tensor) else 1 - w), self.metas[0]) if self.needs(0) else None
        ge_ = reduce_to(mul(g, w), self.metas[1]) if self.needs(1) else None
        gw = None
        if self.needs(2):
            gw = reduce_to(mul(g, sub(_load(self, self.end), _load(self, self.start))), self.metas[2])
        return gs, ge_, gw


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
        node.start, node.end = SavedTensor(x, False), SavedTensor(e, False)
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


# -- comparisons and logic (never differentiable) ----------------------------------------


def _compare(name: str, np_fn: Any, doc: str) -> Callable:
    ordered = name not in ("eq", "ne")

    def fn(input: Tensor, other: Any, *, out: Tensor | None = None) -> Tensor:
        x = tensor_arg(input, name)
        a, b = binary_arrays(x, other, name)
        if ordered and a.dtype.kind == "c":
            raise not_implemented(name + "_cpu", a.dtype)
        return _finish(wrap(_apply2(np_fn, a, b)), out, name)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    fn.__module__ = __name__
    return fn


eq = _compare("eq", np.equal, "Elementwise ``input == other`` as a bool tensor.")
ne = _compare("ne", np.not_equal, "Elementwise ``input != other`` as a bool tensor.")
lt = _compare("lt", np.less, "Elementwise ``input < other`` as a bool tensor.")
le = _compare("le", np.less_equal, "Elementwise ``input <= other`` as a bool tensor.")
gt = _compare("gt", np.greater, "Elementwise ``input > other`` as a bool tensor.")
ge = _compare("ge", np.greater_equal, "Elementwise ``input >= other`` as a bool tensor.")
greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne


def _logical(name: str, np_fn: Any, doc: str) -> Callable:
    def fn(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
        x = tensor_arg(input, name)
        o = tensor_arg(other, name, "other", 2)
        return _finish(wrap(_apply2(np_fn, x._data, o._data)), out, name)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    fn.__module__ = __name__
    return fn


logical_and = _logical("logical_and", np.logical_and, "Elementwise logical AND (nonzero is true).")
logical_or = _logical("logical_or", np.logical_or, "Elementwise logical OR (nonzero is true).")
logical_xor = _logical("logical_xor", np.logical_xor, "Elementwise logical XOR (nonzero is true).")


def logical_not(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Elementwise logical NOT (nonzero is true)."""
    x = tensor_arg(input, "logical_not")
    return _finish(wrap(_arr(np.logical_not(x._data))), out, "logical_not")


def _bitwise(name: str, np_fn: Any, doc: str) -> Callable:
    def fn(input: Tensor, other: Any, *, out: Tensor | None = None) -> Tensor:
        x = input if isinstance(input, Tensor) else number_input(input, other, name)
        a, b = binary_arrays(x, other, name)
        if a.dtype.kind not in "biu":
            raise not_implemented(name + "_cpu", a.dtype)
        return _finish(wrap(_apply2(np_fn, a, b)), out, name)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    fn.__module__ = __name__
    return fn


def _shift(name: str, np_fn: Any, kernel: str, doc: str) -> Callable:
    def fn(input: Tensor, other: Any, *, out: Tensor | None = None) -> Tensor:
        x = input if isinstance(input, Tensor) else number_input(input, other, name)
        a, b = binary_arrays(x, other, name)
        if a.dtype.kind not in "iu":
            raise not_implemented(kernel, a.dtype)
        # shifting by the width or more gives 0 (or -1 for negative values shifted right), as in C
        bits = a.dtype.itemsize * 8
        big = np.asarray(b) >= bits
        r = _apply2(np_fn, a, np.where(big, bits - 1, b).astype(a.dtype) if np.any(big) else b)
        if np.any(big):
            r = np.where(big, (np.where(a < 0, -1, 0) if np_fn is np.right_shift else 0), r).astype(a.dtype)
        return _finish(wrap(_arr(r)), out, name)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    fn.__module__ = __name__
    return fn


bitwise_left_shift = _shift("bitwise_left_shift", np.left_shift, "lshift_cpu", "Elementwise ``input << other``.")
bitwise_right_shift = _shift("bitwise_right_shift", np.right_shift, "rshift_cpu", "Elementwise ``input >> other``.")
bitwise_and = _bitwise("bitwise_and", np.bitwise_and, "Elementwise bitwise AND of integer or bool tensors.")
bitwise_or = _bitwise("bitwise_or", np.bitwise_or, "Elementwise bitwise OR of integer or bool tensors.")
bitwise_xor = _bitwise("bitwise_xor", np.bitwise_xor, "Elementwise bitwise XOR of integer or bool tensors.")


def bitwise_not(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Elementwise bitwise NOT of an integer or bool tensor."""
    x = tensor_arg(input, "bitwise_not")
    if x._data.dtype.kind not in "biu":
        raise not_implemented("bitwise_not_cpu", x._data.dtype)
    return _finish(wrap(_arr(np.invert(x._data))), out, "bitwise_not")


def isnan(input: Tensor) -> Tensor:
    """Elementwise test for NaN."""
    return wrap(_arr(np.isnan(tensor_arg(input, "isnan")._data)))


def isinf(input: Tensor) -> Tensor:
    """Elementwise test for positive or negative infinity."""
    return wrap(_arr(np.isinf(tensor_arg(input, "isinf")._data)))


def isfinite(input: Tensor) -> Tensor:
    """Elementwise test for finite values."""
    return wrap(_arr(np.isfinite(tensor_arg(input, "isfinite")._data)))


def isposinf(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Elementwise test for positive infinity."""
    a = tensor_arg(input, "isposinf")._data
    if a.dtype.kind == "c":
        raise RuntimeError("isposinf does not support complex inputs.")
    return _finish(wrap(_arr(np.isposinf(a))), out, "isposinf")


def isneginf(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Elementwise test for negative infinity."""
    a = tensor_arg(input, "isneginf")._data
    if a.dtype.kind == "c":
        raise RuntimeError("isneginf does not support complex inputs.")
    return _finish(wrap(_arr(np.isneginf(a))), out, "isneginf")


def isclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> Tensor:
    """Elementwise ``|input - other| <= atol + rtol * |other|``."""
    x = tensor_arg(input, "isclose")
    y = tensor_arg(other, "isclose", "other", 2)
    if x._data.dtype != y._data.dtype:
        raise RuntimeError(f"{x.dtype!r} did not match {y.dtype!r}")
    return wrap(_arr(np.isclose(x._data, y._data, rtol=rtol, atol=atol, equal_nan=equal_nan)))


def allclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> bool:
    """Whether every element satisfies :func:`isclose`."""
    return bool(isclose(input, other, rtol, atol, equal_nan)._data.all())


def equal(input: Tensor, other: Tensor) -> bool:
    """True if both tensors have the same shape and elements."""
    x = tensor_arg(input, "equal")
    y = tensor_arg(other, "equal", "other", 2)
    a, b = x._data, y._data
    return a.shape == b.shape and bool(np.array_equal(a, b))


def nan_to_num(
    input: Tensor, nan: float = 0.0, posinf: float | None = None, neginf: float | None = None, *, out: Tensor | None = None
) -> Tensor:
    """Replace NaN and infinities with finite numbers."""
    x = tensor_arg(input, "nan_to_num")
    a = x._data
    r = _arr(np.nan_to_num(a, nan=nan, posinf=posinf, neginf=neginf))
    if x._requires_grad and GRAD.enabled:
        res, node = record(MaskedGradBackward, r, (x,))
        node.mask = np.isfinite(a)
        return _finish(res, out, "nan_to_num")
    return _finish(wrap(r), out, "nan_to_num")


class MaskedGradBackward(Node):
    __slots__ = ("mask",)

    def backward(self, g: Tensor) -> tuple:
        return (mul(g, wrap(self.mask)),)


# -- dtype conversion -----------------------------------------------------------------


class ToCopyBackward0(Node):
    __slots__ = ("src_dtype",)

    def backward(self, g: Tensor) -> tuple:
        src = self.src_dtype
        if src.kind != "c" and g._data.dtype.kind == "c":
            g = real(g)
        return (to_dtype(g, FROM_NP[src]),)


def to_dtype(input: Tensor, dtype: _dtype.dtype, copy: bool = False) -> Tensor:
    """``input`` converted to ``dtype`` (the tensor itself if it already has it and ``copy`` is False)."""
    a = input._data
    npdt = dtype.np
    if a.dtype is npdt and not copy:
        return input
    if a.dtype.kind == "c" and npdt.kind != "c":
        import warnings

        warnings.warn("Casting complex values to real discards the imaginary part", UserWarning, stacklevel=3)
        r = a.real.astype(npdt)
    else:
        r = a.astype(npdt)
    if input._requires_grad and GRAD.enabled and npdt.kind in "fc":
        res, node = record(ToCopyBackward0, r, (input,))
        node.src_dtype = a.dtype
        return res
    return wrap(r)


def zeros_like(input: Tensor) -> Tensor:
    return wrap(np.zeros(input._data.shape, dtype=input._data.dtype))


class CloneBackward0(Node):
    __slots__ = ()

    def backward(self, g: Tensor) -> tuple:
        return (g,)


def clone(input: Tensor, *, memory_format: Any = None) -> Tensor:
    """A copy of ``input`` with its own memory; gradients flow back to ``input``."""
    x = tensor_arg(input, "clone")
    r = x._data.copy()
    if x._requires_grad and GRAD.enabled:
        res, _ = record(CloneBackward0, r, (x,))
        return res
    return wrap(r)


def positive(input: Tensor) -> Tensor:
    """``input`` itself (unary plus)."""
    x = tensor_arg(input, "positive")
    if x._data.dtype.kind == "b":
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return x


# -- fast in-place arithmetic (optimizers, init, the seeds' ``output += ...``) -------------


def _fast_inplace(self: Tensor, other: Any, fname: str, ufunc: Any, alpha: Any = 1) -> Tensor | None:
    """Apply ``ufunc`` straight into ``self``'s memory when nothing needs recording; else None."""
    if GRAD.enabled and (self._requires_grad or (isinstance(other, Tensor) and other._requires_grad)):
        return None
    a = self._data
    if isinstance(other, Tensor):
        b = other._data
        if not np.can_cast(b.dtype, a.dtype, casting="same_kind") and b.ndim != 0:
            return None
    elif isinstance(other, (bool, int, float)):
        b = other
        if isinstance(b, float) and a.dtype.kind in "iub":
            return None
    else:
        return None
    if alpha != 1:
        b = b * alpha
    if not a.flags.writeable:
        writable(self)
    try:
        ufunc(a, b, out=a, casting="same_kind")
    except ValueError:
        try:
            shape = np.broadcast_shapes(a.shape, np.shape(b))
        except ValueError:
            raise broadcast_error(a, b) from None
        raise RuntimeError(
            f"output with shape {list(a.shape)} doesn't match the broadcast shape {list(shape)}"
        ) from None
    except TypeError:
        return None
    bump_version(self)
    return self


def add_(self: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    """In-place ``self += alpha * other``."""
    if alpha != 1:
        _check_alpha(tensor_arg(self, "add_"), other, alpha, "add_")
    done = _fast_inplace(self, other, "add_", np.add, alpha)
    if done is not None:
        return done
    return inplace_apply(self, add, (other,), {"alpha": alpha}, "add_")


def sub_(self: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    """In-place ``self -= alpha * other``."""
    done = _fast_inplace(self, other, "sub_", np.subtract, alpha)
    if done is not None:
        return done
    return inplace_apply(self, sub, (other,), {"alpha": alpha}, "sub_")


def mul_(self: Tensor, other: Any) -> Tensor:
    """In-place ``self *= other``."""
    done = _fast_inplace(self, other, "mul_", np.multiply)
    if done is not None:
        return done
    return inplace_apply(self, mul, (other,), {}, "mul_")


def div_(self: Tensor, other: Any, *, rounding_mode: str | None = None) -> Tensor:
    """In-place ``self /= other``."""
    if rounding_mode is None and self._data.dtype.kind in "fc":
        done = _fast_inplace(self, other, "div_", np.true_divide)
        if done is not None:
            return done
    return inplace_apply(self, div, (other,), {"rounding_mode": rounding_mode}, "div_")


def pow_(self: Tensor, exponent: Any) -> Tensor:
    """In-place ``self **= exponent``."""
    return inplace_apply(self, pow, (exponent,), {}, "pow_")


def remainder_(self: Tensor, other: Any) -> Tensor:
    """In-place :func:`remainder`."""
    return inplace_apply(self, remainder, (other,), {}, "remainder_")


def floor_divide_(self: Tensor, other: Any) -> Tensor:
    """In-place :func:`floor_divide`."""
    return inplace_apply(self, floor_divide, (other,), {}, "floor_divide_")


def lerp_(self: Tensor, end: Tensor, weight: Any) -> Tensor:
    """In-place :func:`lerp`."""
    return inplace_apply(self, lerp, (end, weight), {}, "lerp_")


def fmod_(self: Tensor, other: Any) -> Tensor:
    """In-place :func:`fmod`."""
    return inplace_apply(self, fmod, (other,), {}, "fmod_")


def float_power_(self: Tensor, exponent: Any) -> Tensor:
    """In-place :func:`float_power` (``self`` must already be double precision)."""
    a = tensor_arg(self, "float_power_", "self")._data
    cplx = a.dtype.kind == "c" or isinstance(exponent, complex) or (
        isinstance(exponent, Tensor) and exponent._data.dtype.kind == "c"
    )
    need = np.dtype(np.complex128 if cplx else np.float64)
    if a.dtype != need:
        raise RuntimeError(
            f"the base given to float_power_ has dtype {type_title(a.dtype)} but the operation's result requires "
            f"dtype {type_title(need)}"
        )
    return inplace_apply(self, float_power, (exponent,), {}, "float_power_")


def nan_to_num_(self: Tensor, nan: float = 0.0, posinf: float | None = None, neginf: float | None = None) -> Tensor:
    """In-place :func:`nan_to_num`."""
    return inplace_apply(self, nan_to_num, (nan, posinf, neginf), {}, "nan_to_num_")


def clamp_min_(self: Tensor, min: Any) -> Tensor:  # noqa: A002
    """In-place :func:`clamp_min`."""
    return clamp_(self, min=min)


def clamp_max_(self: Tensor, max: Any) -> Tensor:  # noqa: A002
    """In-place :func:`clamp_max`."""
    return clamp_(self, max=max)


absolute_ = abs_
divide_ = true_divide_ = div_
multiply_ = mul_
subtract_ = sub_


def zero_(self: Tensor) -> Tensor:
    """Fill with zeros in place."""
    return fill_(self, 0)


class FillBackward(Node):
    __slots__ = ("value_meta",)

    def apply(self, grads: list) -> tuple:
        g = grads[0]
        gv = _red.sum(g) if self.needs(1) else None
        return zeros_like(g), gv


def fill_(self: Tensor, value: Any) -> Tensor:
    """Fill with ``value`` (a number or a 0-dim tensor) in place."""
    tensor_arg(self, "fill_", "self")
    check_inplace(self, "fill_")
    if isinstance(value, Tensor):
        if value._data.ndim != 0:
            raise RuntimeError(
                f"fill_ only supports 0-dimension value tensor but got tensor with {value._data.ndim} dimensions."
            )
        v = value._data.item()
    elif isinstance(value, (bool, int, float, complex, np.number)):
        v = value
    else:
        raise TypeError(f"fill_(): argument 'value' must be Number, not {type(value).__name__}")
    a = writable(self)
    a[...] = v
    bump_version(self)
    if GRAD.enabled and (self._requires_grad or (isinstance(value, Tensor) and value._requires_grad)):
        res, node = record(FillBackward, a.copy(), (self, value))
        from .._autograd.views import rebase_history

        rebase_history(self, res)
    return self


class CopyBackwards(Node):
    __slots__ = ("src_meta",)

    def apply(self, grads: list) -> tuple:
        g = grads[0]
        gs = reduce_to(g, self.src_meta) if self.needs(1) else None
        return (zeros_like(g) if self.needs(0) else None), gs


def copy_(self: Tensor, src: Tensor, non_blocking: bool = False) -> Tensor:
    """Copy ``src`` (broadcast, cast to this dtype) into this tensor in place."""
    tensor_arg(self, "copy_", "self")
    s = tensor_arg(src, "copy_", "src", 1)
    check_inplace(self, "copy_")
    a = writable(self)
    try:
        b = np.broadcast_to(s._data, a.shape)
    except ValueError:
        raise RuntimeError(
            f"The size of tensor a ({a.shape[-1] if a.ndim else 1}) must match the size of tensor b "
            f"({s._data.shape[-1] if s._data.ndim else 1}) at non-singleton dimension {max(a.ndim - 1, 0)}"
        ) from None
    if b.dtype.kind == "c" and a.dtype.kind != "c":
        b = b.real
    np.copyto(a, b, casting="unsafe")
    bump_version(self)
    if GRAD.enabled and (self._requires_grad or s._requires_grad) and a.dtype.kind in "fc":
        res, node = record(CopyBackwards, a.copy(), (self, s))
        node.src_meta = _meta(s)
        from .._autograd.views import rebase_history

        rebase_history(self, res)
    return self


# -- more binary and unary functions -------------------------------------------------------------
#
# Each computes its forward with NumPy in the promoted float dtype; gradients are
# written with the ops above, so they are differentiable again.


def _float_operands(fname: str, input: Any, other: Any, *, int_ok: bool = True) -> tuple[Tensor, np.ndarray, Any]:
    """``input`` as a tensor and both operands' values in the promoted floating dtype (ints give the default float)."""
    x = tensor_arg(input, fname)
    a, b = binary_arrays(x, other, fname)
    if a.dtype.kind not in "fc":
        if not int_ok:
            raise not_implemented(fname + "_cpu", a.dtype)
        a = a.astype(_dtype.DEFAULT.np_float)
        b = b.astype(a.dtype) if type(b) is ndarray else b
    if type(b) is not ndarray:
        b = np.asarray(b, dtype=a.dtype)  # keep the tensor's dtype through NumPy scalar arithmetic
    return x, a, b


def _binary_float(
    fname: str, np_fn: Any, grads: Callable, doc: str, *, int_ok: bool = True, scalar_ok: bool = True
) -> Callable:
    """A float-valued binary op with ``grads(g, x, y, result) -> (gx, gy)`` (tensors or scalars ``y``)."""
    node_cls = type(
        "".join(p.capitalize() for p in fname.split("_")) + "Backward0",
        (Node,),
        {"__slots__": ("self_", "other", "result", "metas"), "_saved_slots": ("self_", "other", "result")},
    )

    def backward(self: Any, g: Tensor) -> tuple:
        x, y = _load(self, self.self_), _load(self, self.other)
        gx, gy = grads(g, x, y, unpack(self, self.result))
        return (
            reduce_to(gx, self.metas[0]) if self.needs(0) else None,
            reduce_to(gy, self.metas[1]) if self.needs(1) and self.metas[1] is not None else None,
        )

    node_cls.backward = backward

    def fn(input: Tensor, other: Any, *, out: Tensor | None = None) -> Tensor:
        if not scalar_ok:
            tensor_arg(other, fname, "other", 2)
        x, a, b = _float_operands(fname, input, other, int_ok=int_ok)
        r = _apply2(np_fn, a, b)
        if needs_grad(x, other) and r.dtype.kind in "fc":
            res, node = record(node_cls, r, (x, other))
            node.self_, node.other = SavedTensor(x, False), _save(other)
            node.result = SavedTensor(res, True)
            node.metas = (_meta(x), _meta(other))
            return _finish(res, out, fname)
        return _finish(wrap(r), out, fname)

    def fn_(self: Tensor, other: Any) -> Tensor:
        return inplace_apply(self, fn, (other,), {}, fname + "_")

    fn.__name__ = fn.__qualname__ = fname
    fn.__doc__ = doc
    fn_.__name__ = fn_.__qualname__ = fname + "_"
    fn_.__doc__ = f"In-place :func:`{fname}`."
    fn.__module__ = fn_.__module__ = __name__
    return fn, fn_


def _atan2_grads(g: Tensor, y: Tensor, x: Any, r: Tensor) -> tuple:
    denom = add(mul(x, x), mul(y, y))
    # at the origin the gradient is taken as 0, as torch does
    zero = eq(denom, 0)
    recip = where(zero, 0.0, reciprocal(where(zero, 1.0, denom)))
    return mul(g, mul(x, recip)), mul(g, neg(mul(y, recip)))


def _hypot_grads(g: Tensor, x: Tensor, y: Any, r: Tensor) -> tuple:
    return mul(g, div(x, r)), mul(g, div(y, r))


def _logaddexp_grads(g: Tensor, x: Tensor, y: Any, r: Tensor) -> tuple:
    return mul(g, exp(sub(x, r))), mul(g, exp(rsub(r, y) if not isinstance(y, Tensor) else sub(y, r)))


_LOG2E = 1.0 / _LN2


def _logaddexp2_grads(g: Tensor, x: Tensor, y: Any, r: Tensor) -> tuple:
    gx = mul(g, exp2(sub(x, r)))
    gy = mul(g, exp2(rsub(r, y) if not isinstance(y, Tensor) else sub(y, r)))
    return gx, gy


def _xlogy_np(a: np.ndarray, b: Any) -> np.ndarray:
    # 0 * log(y) is 0 (unless y is nan), as in torch
    with np.errstate(divide="ignore", invalid="ignore"):
        r = a * np.log(b)
    return np.where((a == 0) & ~np.isnan(b), 0, r).astype(r.dtype, copy=False)


def _xlogy_grads(g: Tensor, x: Tensor, y: Any, r: Tensor) -> tuple:
    ly = log(y) if isinstance(y, Tensor) else (math.log(y) if y > 0 else (-math.inf if y == 0 else math.nan))
    return mul(g, ly), mul(g, div(x, y))


def _copysign_grads(g: Tensor, x: Tensor, y: Any, r: Tensor) -> tuple:
    # d|x| sign(y) / dx: +-1 (0 at x == 0); no gradient for the sign source
    ratio = where(eq(x, 0), 0.0, div(r, x))
    return mul(g, ratio), mul(g, 0.0)


atan2, atan2_ = _binary_float(
    "atan2", np.arctan2, _atan2_grads, "Elementwise arctangent of ``input / other`` with the quadrant.", scalar_ok=False
)
arctan2, arctan2_ = atan2, atan2_
hypot, hypot_ = _binary_float(
    "hypot", np.hypot, _hypot_grads, "Elementwise ``sqrt(input ** 2 + other ** 2)``.", int_ok=False, scalar_ok=False
)
logaddexp, _ = _binary_float(
    "logaddexp", np.logaddexp, _logaddexp_grads, "Elementwise ``log(exp(input) + exp(other))``.", int_ok=False,
    scalar_ok=False,
)
logaddexp2, _ = _binary_float(
    "logaddexp2", np.logaddexp2, _logaddexp2_grads, "Elementwise ``log2(2 ** input + 2 ** other)``.", int_ok=False,
    scalar_ok=False,
)
xlogy, xlogy_ = _binary_float("xlogy", _xlogy_np, _xlogy_grads, "Elementwise ``input * log(other)``, 0 where ``input`` is 0.")
copysign, copysign_ = _binary_float("copysign", np.copysign, _copysign_grads, "``input``'s magnitude with ``other``'s sign.")


def deg2rad(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Degrees to radians."""
    return mul(_as_float(tensor_arg(input, "deg2rad"), "deg2rad"), math.pi / 180, out=out)


def rad2deg(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Radians to degrees."""
    return mul(_as_float(tensor_arg(input, "rad2deg"), "rad2deg"), 180 / math.pi, out=out)


def deg2rad_(self: Tensor) -> Tensor:
    """In-place :func:`deg2rad`."""
    return inplace_apply(self, deg2rad, (), {}, "deg2rad_")


def rad2deg_(self: Tensor) -> Tensor:
    """In-place :func:`rad2deg`."""
    return inplace_apply(self, rad2deg, (), {}, "rad2deg_")


def _as_float(x: Tensor, fname: str) -> Tensor:
    kind = x._data.dtype.kind
    if kind == "c":
        raise RuntimeError(f"{fname} is not supported for complex tensors.")
    return x if kind == "f" else to_dtype(x, _dtype.DEFAULT.float)


def _sinc_np(a: np.ndarray) -> np.ndarray:
    return np.sinc(a)


def _sinc_grad(g: Tensor, x: Tensor, y: Tensor) -> Tensor:
    # d sinc / dx = (cos(pi x) - sinc(x)) / x, and 0 at x == 0
    px = mul(x, math.pi)
    safe = where(eq(x, 0), 1.0, x)
    return mul(g, where(eq(x, 0), 0.0, div(sub(cos(px), y), safe)))


sinc, sinc_ = _unary("sinc", _sinc_np, _sinc_grad, "xy", "Normalised sinc: ``sin(pi x) / (pi x)``, 1 at 0.")


class LogitBackward0(Node):
    __slots__ = ("self_", "eps")
    _saved_slots = ("self_",)

    def backward(self, g: Tensor) -> tuple:
        x = unpack(self, self.self_)
        d = div(g, mul(x, rsub(x, 1)))
        if self.eps is not None:  # clamped away: no gradient
            d = where(logical_or(lt(x, self.eps), gt(x, 1 - self.eps)), 0.0, d)
        return (d,)


def logit(input: Tensor, eps: float | None = None, *, out: Tensor | None = None) -> Tensor:
    """``log(p / (1 - p))``, with ``p`` clamped to ``[eps, 1 - eps]`` when ``eps`` is given."""
    x = _as_float(tensor_arg(input, "logit"), "logit")
    a = x._data if eps is None else np.clip(x._data, eps, 1 - eps)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = _arr(np.log(a / (1 - a)))
    if x._requires_grad and GRAD.enabled:
        res, node = record(LogitBackward0, r, (x,))
        node.self_, node.eps = SavedTensor(x, False), eps
        return _finish(res, out, "logit")
    return _finish(wrap(r), out, "logit")


def logit_(self: Tensor, eps: float | None = None) -> Tensor:
    """In-place :func:`logit`."""
    return inplace_apply(self, logit, (eps,), {}, "logit_")


def angle(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The argument of complex numbers; for real ones pi where negative, else 0 (nan stays nan)."""
    x = tensor_arg(input, "angle")
    a = x._data
    if a.dtype.kind == "c":
        return _finish(wrap(_arr(np.angle(a))), out, "angle")
    f = a if a.dtype.kind == "f" else a.astype(_dtype.DEFAULT.np_float)
    r = np.where(f < 0, np.pi, 0).astype(f.dtype)
    r[np.isnan(f)] = np.nan
    if x._requires_grad and GRAD.enabled:
        res, node = record(ZeroGradBackward, r, (x,))
        node.metas = (_meta(x),)
        return _finish(res, out, "angle")
    return _finish(wrap(r), out, "angle")


def signbit(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Whether the sign bit is set (true for -0.0)."""
    a = tensor_arg(input, "signbit")._data
    if a.dtype.kind == "c":
        raise RuntimeError("signbit is not implemented for complex tensors.")
    return _finish(wrap(_arr(np.signbit(a))), out, "signbit")


def heaviside(input: Tensor, values: Tensor, *, out: Tensor | None = None) -> Tensor:
    """0 where ``input < 0``, ``values`` where it is 0, 1 where it is positive (not differentiable)."""
    x = tensor_arg(input, "heaviside")
    v = tensor_arg(values, "heaviside", "values", 2)
    if x._data.dtype != v._data.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes")
    if x._data.dtype.kind == "c":
        raise RuntimeError("heaviside is not yet implemented for complex tensors.")
    return _finish(wrap(_apply2(np.heaviside, x._data, v._data).astype(x._data.dtype)), out, "heaviside")


def heaviside_(self: Tensor, values: Tensor) -> Tensor:
    """In-place :func:`heaviside`."""
    return inplace_apply(self, heaviside, (values,), {}, "heaviside_")


def addcmul(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1, out: Tensor | None = None) -> Tensor:
    """``input + value * tensor1 * tensor2``."""
    x = tensor_arg(input, "addcmul")
    t1 = tensor_arg(tensor1, "addcmul", "tensor1", 2)
    t2 = tensor_arg(tensor2, "addcmul", "tensor2", 3)
    prod = mul(t1, t2)
    return add(x, prod if value == 1 else mul(prod, value), out=out)


def addcdiv(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1, out: Tensor | None = None) -> Tensor:
    """``input + value * tensor1 / tensor2``."""
    x = tensor_arg(input, "addcdiv")
    t1 = tensor_arg(tensor1, "addcdiv", "tensor1", 2)
    t2 = tensor_arg(tensor2, "addcdiv", "tensor2", 3)
    if t1._data.dtype.kind in "iub" and t2._data.dtype.kind in "iub":
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future release addcdiv will perform a "
            "true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as "
            "(input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as "
            "(input + value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the latter "
            "implementation: (input + value * tensor1 / tensor2), for all dtypes."
        )
    q = div(t1, t2)
    return add(x, q if value == 1 else mul(q, value), out=out)


def addcmul_(self: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
    """In-place :func:`addcmul`."""
    return inplace_apply(self, addcmul, (tensor1, tensor2), {"value": value}, "addcmul_")


def addcdiv_(self: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
    """In-place :func:`addcdiv`."""
    return inplace_apply(self, addcdiv, (tensor1, tensor2), {"value": value}, "addcdiv_")


# NumPy's names for the inverse trigonometric functions
arccos, arccos_, arcsin, arcsin_, arctan, arctan_ = acos, acos_, asin, asin_, atan, atan_
arccosh, arccosh_, arcsinh, arcsinh_, arctanh, arctanh_ = acosh, acosh_, asinh, asinh_, atanh, atanh_
