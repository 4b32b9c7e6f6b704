"""Powers: pow, float_power and square, with their backward nodes.

Above ``unary`` and ``selection``: the gradient of ``x ** p`` with respect to
``p`` needs ``log`` and ``where``.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from .. import _dtype
from .._autograd.graph import Node, SavedTensor, save_input, unpack
from .._registry import op
from .._tensor import Tensor
from ._pointwise import _apply2, _arr, _finish, _load, _meta, reduce_to
from ._util import (
    GRAD,
    Meta,
    Operand,
    binary_arrays,
    needs_grad,
    not_implemented,
    number_input,
    record,
    tensor_arg,
    wrap,
)
from .arithmetic import _conj, mul, sub
from .comparison import eq, ge, logical_and
from .conversion import real, to_dtype, zeros_like
from .selection import where
from .unary import log


class PowBackward0(Node):
    """Tensor ** scalar."""

    __slots__ = ("self_", "exponent")
    _saved_slots = ("self_",)
    self_: SavedTensor
    exponent: int | float | complex

    def backward(self, g: Tensor) -> tuple:
        p = self.exponent
        x = unpack(self, self.self_)
        if p == 0:
            return (zeros_like(x),)
        # complex inputs take the conjugate derivative, as all holomorphic functions do
        return (mul(g, _conj(mul(pow(x, p - 1), p))),)


def _real_part(p: Tensor) -> Tensor:
    # 0 ** p has a zero gradient in p where the real part of p is non-negative
    return real(p) if p._data.dtype.kind == "c" else p


class PowBackward1(Node):
    """Tensor ** Tensor."""

    __slots__ = ("self_", "exponent", "result", "self_meta", "exp_meta")
    _saved_slots = ("self_", "exponent", "result")
    self_: Operand
    exponent: SavedTensor
    result: SavedTensor
    self_meta: Meta
    exp_meta: Meta

    def backward(self, g: Tensor) -> tuple:
        x = _load(self, self.self_)
        p = _load(self, self.exponent)
        ga = gb = None
        if self.needs(0):
            # where p == 0 the derivative is 0 even at x == 0
            d = mul(p, pow(x, sub(p, 1)))
            d = where(eq(p, 0), 0.0, d) if isinstance(p, Tensor) else d
            ga = reduce_to(mul(g, _conj(d)), self.self_meta)
        if self.needs(1):
            gb = self.exponent_gradient(g, x, p)
        return ga, gb

    def exponent_gradient(self, g: Tensor, x: Any, p: Any) -> Tensor:
        y = unpack(self, self.result)
        d = mul(y, log(x)) if isinstance(x, Tensor) else mul(y, math.log(x) if x > 0 else float("nan"))
        # 0 ** p with p >= 0 has gradient 0 w.r.t. p, as torch defines it
        if isinstance(x, Tensor):
            d = where(logical_and(eq(x, 0), ge(_real_part(p), 0)), 0.0, d)
        elif x == 0:
            d = where(ge(_real_part(p), 0), 0.0, d)
        return reduce_to(mul(g, _conj(d)), self.exp_meta)


class PowBackward2(PowBackward1):
    """number ** Tensor: one edge, to the exponent (torch's Scalar-base overload)."""

    __slots__ = ()

    def backward(self, g: Tensor) -> tuple:
        return (self.exponent_gradient(g, _load(self, self.self_), _load(self, self.exponent)),)


_BY_PRODUCTS: dict[float, Callable[[np.ndarray], np.ndarray]] = {
    3: lambda a: a * a * a,
    0.5: np.sqrt,
    -0.5: lambda a: np.reciprocal(np.sqrt(a)),
    -1: np.reciprocal,
    -2: lambda a: np.reciprocal(a * a),
}


def _integer_power(a: np.ndarray, p: float) -> np.ndarray:
    """``a ** p`` for an integer-valued ``p``: ``|a| ** p`` in double precision, given ``a``'s sign back for odd
    ``p``. NumPy's power of a negative base takes a path some fifty times slower; in double precision the float32
    results also round as torch's do (98% of them bit for bit, against 89% for NumPy's float32 power)."""
    r = np.absolute(a, out=np.empty(a.shape, dtype=np.float64 if a.dtype.itemsize < 8 else a.dtype))  # even 0-d
    np.power(r, p, out=r)
    if p % 2:
        np.copysign(r, a, out=r)
    return r.astype(a.dtype, copy=False)


@op(variants="function method")
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
        if isinstance(exponent, (int, np.integer)) and exponent < 0 and kind in "iub":
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        if type(exponent) is int and exponent >= 9223372036854775808:
            raise RuntimeError("value cannot be converted to type int64_t without overflow")
        if kind == "b":  # bool ** bool stays bool: x ** True is x, x ** False is True
            r = a.copy() if p else np.ones_like(a)
            return _finish(wrap(r), out, "pow")
    if p == 2:
        r = a * a
    elif kind == "f" and isinstance(p, (int, float, np.integer, np.floating)) and float(p) in _BY_PRODUCTS:
        # torch's own kernels for these exponents (products, roots, reciprocals): its rounding, and NumPy's power
        # of a float by an integer costs a few hundred times more
        r = _BY_PRODUCTS[float(p)](a)
    elif kind == "f" and isinstance(p, (int, float, np.integer, np.floating)) and float(p).is_integer():
        r = _integer_power(a, float(p))
    else:
        r = np.power(a, p)
    r = _arr(r)
    if x._requires_grad and GRAD.enabled:
        res, node = record(PowBackward0, r, (x,))
        node.self_ = save_input(x)
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
        res, node = record(PowBackward1, r, (x, e)) if scalar_base is None else record(PowBackward2, r, (e,))
        node.self_ = save_input(x) if scalar_base is None else scalar_base
        node.exponent = save_input(e)
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


@op(variants="function method")
def float_power(input: Any, exponent: Any, *, out: Tensor | None = None) -> Tensor:
    """``input ** exponent`` computed in double precision (complex128 if either is complex)."""
    if not isinstance(input, Tensor) and not isinstance(exponent, Tensor):
        raise TypeError(f"float_power(): argument 'input' must be Tensor, not {type(input).__name__}")
    for name, v in (("input", input), ("exponent", exponent)):
        if isinstance(v, bool) or not isinstance(v, (Tensor, int, float, complex, np.number)):
            raise TypeError(f"float_power(): argument '{name}' must be Tensor or Number, not {type(v).__name__}")
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


@op(variants="function method", inplace="function method")
def square(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Elementwise x ** 2."""
    return pow(tensor_arg(input, "square"), 2, out=out)
