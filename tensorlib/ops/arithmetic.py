"""Arithmetic: add, sub, rsub, mul, div, floor_divide, remainder, fmod, pow, float_power and their backward nodes.

Gradients of broadcast operands are summed back to the operand's shape (``reduce_to``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _dtype
from .._accelerator import accel
from .._autograd.graph import NOT_IMPLEMENTED, Node, SavedTensor, rename_grad_fn, save_input
from .._registry import op
from .._tensor import Tensor
from ._pointwise import ZeroGradBackward, _apply2, _arr, _finish, _load, _meta, _save, ndarray, reduce_to
from ._util import (
    GRAD,
    Meta,
    Operand,
    binary_arrays,
    broadcast_error,
    dtypes_of,
    fit_scalar,
    needs_grad,
    not_implemented,
    number_input,
    record,
    tensor_arg,
    wrap,
    write_out,
    write_out_exact,
)
from .broadcast import _FILL_LIMIT, SumBackward0
from .conversion import conj

# -- add / sub ------------------------------------------------------------------


class AddBackward0(Node):
    __slots__ = ("alpha", "self_meta", "other_meta")
    alpha: complex | np.number | Tensor
    self_meta: Meta
    other_meta: Meta | None

    def backward(self, g: Tensor) -> tuple:
        ga = reduce_to(g, self.self_meta) if self.needs(0) else None
        gb = None
        if self.needs(1) and self.other_meta is not None:
            gb = reduce_to(g if self.alpha == 1 else mul(g, self.alpha), self.other_meta)
        return ga, gb


class SubBackward0(Node):
    __slots__ = ("alpha", "self_meta", "other_meta")
    alpha: complex | np.number | Tensor
    self_meta: Meta
    other_meta: Meta | None

    def backward(self, g: Tensor) -> tuple:
        ga = reduce_to(g, self.self_meta) if self.needs(0) else None
        gb = None
        if self.needs(1) and self.other_meta is not None:
            gb = reduce_to(neg(g) if self.alpha == 1 else mul(g, -self.alpha), self.other_meta)
        return ga, gb


def _check_alpha(x: Tensor, other: Any, alpha: Any, fname: str) -> None:
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float, complex, np.number)):
        if isinstance(alpha, Tensor) and alpha._data.size == 1:
            return
        raise TypeError(f"{fname}(): argument 'alpha' must be Number, not {type(alpha).__name__}")
    if type(alpha) is int and not -9223372036854775808 <= alpha < 18446744073709551616:
        raise OverflowError("int too big to convert")
    if isinstance(alpha, float) and x._data.dtype.kind in "iub" and (
        not isinstance(other, Tensor) or other._data.dtype.kind in "iub"
    ):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")


def _add_impl(x: Tensor, other: Any, alpha: Any, fname: str, node_cls: type, ufunc: Any) -> Tensor:
    if alpha != 1:
        _check_alpha(x, other, alpha, fname)
    a, b = binary_arrays(x, other, fname)
    if alpha != 1:
        scale = alpha.item() if isinstance(alpha, Tensor) else alpha
        if type(b) is ndarray and b.dtype.kind in "iu":
            # torch converts alpha to the tensors' dtype (checked) and scales with wrap-around in it
            scale = fit_scalar(scale, a.dtype)
        b = b * scale
        if type(b) is int:  # a scaled Python int may leave the tensor's integer range: torch's wrap-around rule
            b = fit_scalar(b, a.dtype)
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


# The compiled shortcut of add and mul (tensorlib._accel.same_dtype, subclasses allowed: dispatch has happened): two
# tensors of one dtype with no gradient to record are one ufunc call; None without the extension.
_same_dtype = None if accel is None else accel.same_dtype
_ADD_DTYPES = dtypes_of("biufc")
_SCALAR_DTYPES = dtypes_of("fc")  # a Python number next to these: ``ufunc(a, number)`` (see binary_arrays)


@op(variants="function method")
def add(input: Tensor, other: Any, *, alpha: Any = 1, out: Tensor | None = None) -> Tensor:
    """``input + alpha * other``, broadcasting."""
    if _same_dtype is not None and out is None and alpha == 1:  # (as _add_impl: alpha 1 means no scaling)
        r = _same_dtype(input, other, np.add, _ADD_DTYPES, True, _SCALAR_DTYPES)
        if r is not None:
            return r
    x = input if isinstance(input, Tensor) else number_input(input, other, "add", True)
    r = _add_impl(x, other, alpha, "add", AddBackward0, np.add)
    return r if out is None else write_out(out, r, "add")


@op(variants="function method", aliases=("subtract",))
def sub(input: Tensor, other: Any, *, alpha: Any = 1, out: Tensor | None = None) -> Tensor:
    """``input - alpha * other``, broadcasting."""
    if type(input) is not Tensor and isinstance(input, (bool, np.bool_)) and isinstance(other, Tensor):
        _check_sub_bool(other, input)
    x = input if isinstance(input, Tensor) else number_input(input, other, "sub", True)
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


@op()
def rsub(input: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    """``other - alpha * input``."""
    x = tensor_arg(input, "rsub")
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float, complex, np.number, Tensor)):
        raise TypeError(f"rsub(): argument 'alpha' must be Number, not {type(alpha).__name__}")
    if isinstance(other, Tensor):
        return rename_grad_fn(sub(other, x, alpha=alpha), "RsubBackward0")
    recorded = x._requires_grad and GRAD.enabled
    if alpha == 1 and type(other) in (int, float) and x._data.dtype.kind == "f" and not recorded:
        # one pass (formulas in backward, ``1 - y * y``): a float tensor keeps its dtype next to a Python number
        return wrap(np.subtract(other, x._data, dtype=x._data.dtype))
    return rename_grad_fn(add(mul(x, -alpha), other), "RsubBackward1")


# -- mul / div ---------------------------------------------------------------------


class MulBackward0(Node):
    __slots__ = ("self_", "other", "self_meta", "other_meta")
    _saved_slots = ("self_", "other")
    self_: SavedTensor | None
    other: Operand | None
    self_meta: Meta
    other_meta: Meta | None

    def backward(self, g: Tensor) -> tuple:
        ga = gb = None
        if self.needs(0):
            ga = reduce_to(mul(g, _conj(_load(self, self.other))), self.self_meta)
        if self.needs(1) and self.other_meta is not None:
            gb = reduce_to(mul(g, _conj(_load(self, self.self_)), ), self.other_meta)
        return ga, gb


class _ScaledBackward(MulBackward0):
    """MulBackward0 of ``x * other`` where only ``x`` needs a gradient and ``other`` is a tensor (a mask, a constant,
    an input): ``g * other``, the whole backward, on the arrays when nothing is recorded and nothing is broadcast
    or complex. Named MulBackward0, as every product's node."""

    __slots__ = ()

    other: SavedTensor  # (an input tensor: this node is recorded only then)

    def backward(self, g: Tensor) -> tuple:
        if not GRAD.enabled and type(g) is Tensor and not self._freed:  # (a freed node's slots hold FREED)
            saved = self.other
            held = saved.tensor
            gd = g._data
            if held is not None and saved.counter[0] == saved.version and gd.dtype.kind == "f":
                od = held._data
                if od.dtype.kind != "c":
                    r = gd * od
                    if type(r) is ndarray and (r.shape, r.dtype) == self.self_meta:
                        return (wrap(r), None)
        return MulBackward0.backward(self, g)


_ScaledBackward.__name__ = _ScaledBackward.__qualname__ = "MulBackward0"

if accel is not None:  # the compiled backward loop computes this node's and SumBackward0's usual case itself
    accel.setup_nodes(SumBackward0, _ScaledBackward, SavedTensor, GRAD, np.empty, _FILL_LIMIT)


def _conj(v: Any) -> Any:
    if isinstance(v, Tensor):
        return conj(v) if v._data.dtype.kind == "c" else v
    return v.conjugate() if isinstance(v, complex) else v


@op(variants="function method", aliases=("multiply",))
def mul(input: Tensor, other: Any, *, out: Tensor | None = None) -> Tensor:
    """Elementwise product, broadcasting."""
    if _same_dtype is not None and out is None:
        r = _same_dtype(input, other, np.multiply, _ADD_DTYPES, True, _SCALAR_DTYPES)
        if r is not None:
            return r
    x = input if isinstance(input, Tensor) else number_input(input, other, "mul", True)
    a, b = binary_arrays(x, other, "mul")
    try:
        r = a * b
    except ValueError:
        raise broadcast_error(a, b) from None
    if type(r) is not ndarray:
        r = np.asarray(r)
    if (x._requires_grad or (isinstance(other, Tensor) and other._requires_grad)) and GRAD.enabled:
        if type(other) is Tensor and not other._requires_grad:
            # x needs the gradient, other is a tensor (a mask, a constant, an input): the usual product, its node
            # set up directly
            res, node = record(_ScaledBackward, r, (x, other))
            node.self_ = None
            node.other = save_input(other)
            node.self_meta = (x._data.shape, x._data.dtype)
            node.other_meta = (other._data.shape, other._data.dtype)
            return res if out is None else write_out(out, res, "mul")
        res, node = record(MulBackward0, r, (x, other))
        node.self_ = save_input(x) if node.needs(1) else None
        node.other = _save(other) if node.needs(0) else None
        node.self_meta = (x._data.shape, x._data.dtype)
        node.other_meta = _meta(other)
        return _finish(res, out, "mul")
    return wrap(r) if out is None else write_out(out, wrap(r), "mul")


multiply = mul


class DivBackward0(Node):
    __slots__ = ("self_", "other", "self_meta", "other_meta")
    _saved_slots = ("self_", "other")
    self_: SavedTensor | None
    other: Operand
    self_meta: Meta
    other_meta: Meta | None

    def backward(self, g: Tensor) -> tuple:
        other = _load(self, self.other)
        ga = gb = None
        if self.needs(0):
            ga = reduce_to(div(g, _conj(other)), self.self_meta)
        if self.needs(1) and self.other_meta is not None:
            x = _load(self, self.self_)
            # d(x/y)/dy = -x / y^2
            gb = reduce_to(neg(mul(g, _conj(div(div(x, other), other)))), self.other_meta)
        return ga, gb


@op(variants="function method", aliases=("divide", "true_divide"))
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
            r = _apply2(np.floor_divide, a, b)
        else:
            r = _apply2(np.true_divide, a, b) if a.dtype.kind in "fc" else _apply2(_trunc_div_int, a, b)
            r = np.trunc(r) if a.dtype.kind in "fc" else r
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
        node.self_ = save_input(x) if node.needs(1) else None
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


@op(variants="function method")
def floor_divide(input: Tensor, other: Any, *, out: Tensor | None = None) -> Tensor:
    """Elementwise division rounded down (torch defines no derivative: backward through it is an error)."""
    res = div(input, other, rounding_mode="floor")
    if res._requires_grad:
        # unlike div(rounding_mode="floor"), whose gradient is zero
        inputs = (input, other)
        res = res.detach()
        res, node = record(NOT_IMPLEMENTED, res._data, inputs)
        node.op_name = "floor_divide"
    return _finish(res, out, "floor_divide")


@op(variants="function method")
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
        node.self_ = save_input(input)
        node.other_meta = _meta(other)
        return _finish(res, out, "remainder")
    return _finish(wrap(r), out, "remainder")


class RemainderBackward0(Node):
    __slots__ = ("self_", "other", "self_meta", "other_meta")
    _saved_slots = ("self_", "other")
    self_: SavedTensor
    other: Operand
    self_meta: Meta
    other_meta: Meta | None

    def backward(self, g: Tensor) -> tuple:
        ga = reduce_to(g, self.self_meta) if self.needs(0) else None
        gb = None
        if self.needs(1) and self.other_meta is not None:
            x, y = _load(self, self.self_), _load(self, self.other)
            gb = reduce_to(neg(mul(g, div(x, y, rounding_mode="floor"))), self.other_meta)
        return ga, gb


@op(variants="function method")
def fmod(input: Tensor, other: Any, *, out: Tensor | None = None) -> Tensor:
    """C-style modulus (result has the sign of the dividend)."""
    x = tensor_arg(input, "fmod")
    a, b = binary_arrays(x, other, "fmod")
    if a.dtype.kind not in "f":
        _check_int_division(a, b, "fmod_cpu")
    r = _apply2(np.fmod, a, b)
    if needs_grad(x, other):
        res, node = record(FmodBackward0, r, (x, other))
        node.self_ = save_input(x)
        node.other = _save(other)
        node.self_meta, node.other_meta = _meta(x), _meta(other)
        return _finish(res, out, "fmod")
    return _finish(wrap(r), out, "fmod")


class FmodBackward0(RemainderBackward0):
    __slots__ = ()

    def backward(self, g: Tensor) -> tuple:
        ga = reduce_to(g, self.self_meta) if self.needs(0) else None
        gb = None
        if self.needs(1) and self.other_meta is not None:
            x, y = _load(self, self.self_), _load(self, self.other)
            gb = reduce_to(neg(mul(g, div(x, y, rounding_mode="trunc"))), self.other_meta)
        return ga, gb


class NegBackward0(Node):
    __slots__ = ()

    def backward(self, g: Tensor) -> tuple:
        return (neg(g),)


@op(variants="function method", aliases=("negative",), inplace="function method")
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
        return res if out is None else write_out_exact(out, res, "neg")
    return wrap(r) if out is None else write_out_exact(out, wrap(r), "neg")
