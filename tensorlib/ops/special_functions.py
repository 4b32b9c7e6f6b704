"""The special functions of ``torch.special`` beyond the elementwise basics, and their top-level forms:
the gamma family (``lgamma``, ``digamma``, ``polygamma``, ``mvlgamma``, ``igamma``/``igammac``, ``zeta``),
Bessel and Airy functions, ``erfcx``/``log_ndtr``/``ndtri`` and the classical orthogonal polynomials.

The numerics live in ``_gamma``, ``_bessel``, ``_erf`` and ``_orthopoly`` (NumPy only); this module declares
the ops: dtypes (integers compute in the default float dtype, half where torch has a half kernel, complex
refused with torch's message), broadcasting, ``out=``, and the gradients, written with tensorlib's own ops so
they are differentiable again. Where torch has no derivative the same holds here: the Bessel ``J``/``Y``,
``K``, Airy and polynomial results do not require grad, and the derivatives of ``igamma``/``igammac`` in their
first argument and of ``zeta`` in its first raise torch's error when backward reaches them.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from .. import _dtype
from .._autograd.graph import Node, SavedTensor, save_input, unpack
from .._dtype import FROM_NP
from .._registry import SPECIAL, TENSORLIB, op
from .._tensor import Tensor
from . import _bessel, _erf, _gamma, _orthopoly
from ._pointwise import _finish, _load, _meta, _save, inplace_apply, reduce_to
from ._util import GRAD, _int_scalar, broadcast_error, not_implemented, record, result_dtype, tensor_arg, wrap
from .arithmetic import add, div, mul, neg, sub
from .comparison import eq
from .selection import where
from .unary import _unary, exp, log, reciprocal, sgn

_F16 = np.dtype(np.float16)


def _float_kernel(fn: Callable[[np.ndarray], np.ndarray], kernel: str, half: bool) -> Callable[[np.ndarray], np.ndarray]:
    """A float64 kernel as a NumPy function of float arrays that returns the input's dtype (half refused with
    torch's message unless ``half``)."""
    def np_fn(a: np.ndarray) -> np.ndarray:
        if a.dtype == _F16 and not half:
            raise not_implemented(kernel, a.dtype)
        r = fn(a)
        return r if r.dtype == a.dtype else r.astype(a.dtype)

    return np_fn


def _real_in_float(kernel: str, half: bool) -> Callable[[np.ndarray, Callable], np.ndarray]:
    """Integers and bools compute in the default float dtype; complex has no kernel."""
    def other(a: np.ndarray, np_fn: Callable) -> np.ndarray:
        if a.dtype.kind == "c":
            raise not_implemented(kernel, a.dtype)
        return np_fn(a.astype(_dtype.DEFAULT.np_float))

    return other


def _differentiable(name: str, fn: Callable, grad: Callable, save: str, doc: str, *, kernel: str, half: bool = True,
                    backward_name: str | None = None, **declaration: Any) -> Callable:
    declaration.setdefault("inplace", None)
    f = _unary(name, _float_kernel(fn, kernel, half), grad, save, doc, other_dtypes=_real_in_float(kernel, half),
               backward_name=backward_name, **declaration)
    f.__module__ = __name__
    return f


def _float_input(x: Tensor, kernel: str, half: bool) -> np.ndarray:
    """``x``'s values in the dtype the result takes (int -> default float), or torch's error."""
    a = x._data
    kind = a.dtype.kind
    if kind == "c" or (a.dtype == _F16 and not half):
        raise not_implemented(kernel, a.dtype)
    return a if kind == "f" else a.astype(_dtype.DEFAULT.np_float)


def _plain(name: str, fn: Callable[[np.ndarray], np.ndarray], doc: str) -> Callable:
    """A function of ``torch.special`` torch gives no derivative: its result never requires grad."""
    kernel = name + "_cpu"

    def impl(input: Tensor, *, out: Tensor | None = None) -> Tensor:
        a = _float_input(tensor_arg(input, name), kernel, False)
        return _finish(wrap(np.asarray(fn(a)).astype(a.dtype, copy=False)), out, name)

    impl.__name__ = impl.__qualname__ = name
    impl.__doc__ = doc
    impl.__module__ = __name__
    return op(namespace=SPECIAL)(impl)


# -- the gamma family ------------------------------------------------------------------------------------

def _lgamma_grad(g: Tensor, x: Tensor, y: Any) -> Tensor:
    return mul(g, digamma(x))


def _digamma_grad(g: Tensor, x: Tensor, y: Any) -> Tensor:
    return mul(g, polygamma(1, x))


def _i0_grad(g: Tensor, x: Tensor, y: Any) -> Tensor:
    return mul(g, i1(x))


def _i0e_grad(g: Tensor, x: Tensor, y: Tensor) -> Tensor:
    return mul(g, sub(i1e(x), mul(sgn(x), y)))


lgamma = _differentiable(
    "lgamma", _gamma.lgamma, _lgamma_grad, "x",
    "``log |Gamma(x)|`` (inf at the poles).", kernel="lgamma_vml_cpu", variants="function method", inplace="method",
)
digamma = _differentiable(
    "digamma", _gamma.digamma, _digamma_grad, "x",
    "The logarithmic derivative of the gamma function (nan at the negative integers).", kernel="digamma",
    variants="function method", inplace="method", namespace=(TENSORLIB, SPECIAL),
)


class PolygammaBackward0(Node):
    __slots__ = ("self_", "n")
    _saved_slots = ("self_",)
    self_: SavedTensor
    n: int

    def backward(self, g: Tensor) -> tuple:
        return (mul(g, polygamma(self.n + 1, unpack(self, self.self_))),)


def _check_int(value: Any, fname: str, argname: str, pos: int) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{fname}(): argument '{argname}' (position {pos}) must be int, not {type(value).__name__}")
    if not -9223372036854775808 <= value < 9223372036854775808:
        raise ValueError("Overflow when unpacking long long")
    return int(value)


@op(namespace=(TENSORLIB, SPECIAL))
def polygamma(n: int, input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The ``n``-th derivative of :func:`digamma` (``n >= 0``)."""
    n = _check_int(n, "polygamma", "n", 1)
    x = tensor_arg(input, "polygamma", "input", 2)
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    a = _float_input(x, {0: "digamma", 1: "trigamma"}.get(n, "polygamma"), True)
    r = _gamma.polygamma(n, a).astype(a.dtype, copy=False)
    if x._requires_grad and GRAD.enabled:
        res, node = record(PolygammaBackward0, r, (x,))
        node.self_, node.n = save_input(x), n
        return _finish(res, out, "polygamma")
    return _finish(wrap(r), out, "polygamma")


@op(variants="method", name="polygamma")
def polygamma_method(self: Tensor, n: int) -> Tensor:
    """:func:`polygamma` of this tensor."""
    return polygamma(n, self)


@op(variants="method", name="polygamma_")
def polygamma_inplace(self: Tensor, n: int) -> Tensor:
    """In-place :func:`polygamma`."""
    return inplace_apply(self, lambda s, k: polygamma(k, s), (n,), {}, "polygamma_")


class MvlgammaBackward0(Node):
    __slots__ = ("self_", "p")
    _saved_slots = ("self_",)
    self_: SavedTensor
    p: int

    def backward(self, g: Tensor) -> tuple:
        x = unpack(self, self.self_)
        total = None
        for shift in _mvlgamma_shifts(self.p):
            d = digamma(add(x, shift))
            total = d if total is None else add(total, d)
        return (mul(g, total),)


def _mvlgamma_shifts(p: int) -> list[float]:
    """``-(p-1)/2, ..., -1/2, 0``: the arguments' offsets, in torch's order."""
    start = -p * 0.5 + 0.5
    return [start + 0.5 * j for j in range(p)]


@op(variants="function method", inplace="method")
def mvlgamma(input: Tensor, p: int, *, out: Tensor | None = None) -> Tensor:
    """The log of the multivariate gamma function of dimension ``p``:
    ``p (p - 1) / 4 log(pi) + sum_{i<p} lgamma(x - i / 2)``."""
    x = tensor_arg(input, "mvlgamma")
    if x._data.dtype.kind == "b":
        raise RuntimeError("The input tensor may not be a boolean tensor.")
    p = _check_int(p, "mvlgamma", "p", 2)
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    a = _float_input(x, "arange_cpu", True)
    b = a.astype(np.float64)
    total = np.zeros_like(b)
    for shift in _mvlgamma_shifts(p):
        total = total + _gamma.lgamma(b + shift)
    r = (total + p * (p - 1) * math.log(math.pi) / 4).astype(a.dtype, copy=False)
    if x._requires_grad and GRAD.enabled:
        res, node = record(MvlgammaBackward0, r, (x,))
        node.self_, node.p = save_input(x), p
        return _finish(res, out, "mvlgamma")
    return _finish(wrap(r), out, "mvlgamma")


# -- two-argument functions ------------------------------------------------------------------------------


def _operands(fname: str, input: Any, other: Any, kernel: str, *, numbers: bool, ints: bool, half: bool,
              ) -> tuple[np.ndarray, np.ndarray, np.dtype]:
    """Both operands as arrays of the result's floating dtype (torch's promotion; ints give the default float
    when ``ints``), broadcast together; numbers are accepted on either side when ``numbers``."""
    if numbers:
        if not isinstance(input, Tensor) and not isinstance(other, Tensor):
            raise TypeError(
                f"{fname}() received an invalid combination of arguments - got ({type(input).__name__}, "
                f"{type(other).__name__}), but expected one of:\n * (Tensor input, Tensor other, *, Tensor out = None)"
                "\n * (Number self, Tensor other, *, Tensor out = None)\n * (Tensor input, Number other, *, Tensor "
                "out = None)\n"
            )
    else:
        tensor_arg(input, fname)
        tensor_arg(other, fname, "other", 2)
    rd = result_dtype(input, other).np
    if rd.kind == "c" or (rd.kind in "iub" and not ints) or (rd == _F16 and not half):
        raise not_implemented(kernel, rd)
    if rd.kind != "f":
        rd = np.dtype(_dtype.DEFAULT.np_float)
    a = np.asarray(input._data if isinstance(input, Tensor) else input).astype(rd, copy=False)
    b = np.asarray(other._data if isinstance(other, Tensor) else other).astype(rd, copy=False)
    try:
        a, b = np.broadcast_arrays(a, b)
    except ValueError:
        raise broadcast_error(a, b) from None
    return a, b, rd


def _derivative_not_implemented(what: str) -> RuntimeError:
    return RuntimeError(f"the derivative for '{what}' is not implemented.")


def _igamma_grad_x(g: Tensor, a: Any, x: Tensor) -> Tensor:
    """``d/dx P(a, x) = x^(a-1) e^-x / Gamma(a)``."""
    return mul(g, exp(sub(sub(mul(sub(a, 1), log(x)), x), lgamma(a))))


def _incomplete_gamma_node(name: str, sign: float) -> type:
    def backward(self: Any, g: Tensor) -> tuple:
        if self.needs(0):
            raise _derivative_not_implemented(f"{name}: input")
        a, x = _load(self, self.self_), _load(self, self.other)
        gx = _igamma_grad_x(g, a, x)
        return None, reduce_to(gx if sign > 0 else neg(gx), self.metas[1])

    return type(name.capitalize() + "Backward0", (Node,), {
        "__slots__": ("self_", "other", "metas"), "_saved_slots": ("self_", "other"), "backward": backward,
    })


IgammaBackward0 = _incomplete_gamma_node("igamma", 1.0)
IgammacBackward0 = _incomplete_gamma_node("igammac", -1.0)


def _incomplete_gamma(fname: str, kernel: Callable, node_cls: type, input: Tensor, other: Tensor, out: Any) -> Tensor:
    a, b, rd = _operands(fname, input, other, node_cls.__name__[:-9].lower() + "_cpu", numbers=False, ints=False,
                         half=True)
    r = kernel(a.astype(np.float64), b.astype(np.float64)).astype(rd, copy=False)
    if GRAD.enabled and (input._requires_grad or other._requires_grad):
        res, node = record(node_cls, r, (input, other))
        node.self_, node.other = save_input(input), save_input(other)
        node.metas = (_meta(input), _meta(other))
        return _finish(res, out, fname)
    return _finish(wrap(r), out, fname)


@op(variants="function method", inplace="method")
def igamma(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The regularised lower incomplete gamma function ``P(input, other)`` (differentiable in ``other`` only)."""
    return _incomplete_gamma("igamma", _gamma.igamma, IgammaBackward0, input, other, out)


@op(variants="function method", inplace="method")
def igammac(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The regularised upper incomplete gamma function ``Q(input, other) = 1 - P(input, other)``."""
    return _incomplete_gamma("igammac", _gamma.igammac, IgammacBackward0, input, other, out)


def _zeta_backward(self: Any, g: Tensor) -> tuple:
    if self.needs(0):
        raise _derivative_not_implemented("zeta")
    x, q = _load(self, self.self_), _load(self, self.other)
    x1 = add(x, 1) if isinstance(x, Tensor) else x + 1
    gq = mul(mul(g, zeta(x1, q)), neg(x) if isinstance(x, Tensor) else -x)
    return None, reduce_to(gq, self.metas[1])


_ZETA_NODES = tuple(
    type(f"SpecialZetaBackward{i}", (Node,), {
        "__slots__": ("self_", "other", "metas"), "_saved_slots": ("self_", "other"), "backward": _zeta_backward,
    })
    for i in range(3)
)


@op(namespace=SPECIAL)
def zeta(input: Any, other: Any, *, out: Tensor | None = None) -> Tensor:
    """The Hurwitz zeta function ``sum_k (k + other) ^ -input`` (differentiable in ``other`` only)."""
    a, b, rd = _operands("special_zeta", input, other, "zeta_cpu", numbers=True, ints=True, half=False)
    r = _gamma.zeta(a.astype(np.float64), b.astype(np.float64)).astype(rd, copy=False)
    tensors = [t for t in (input, other) if isinstance(t, Tensor)]
    if GRAD.enabled and any(t._requires_grad for t in tensors):
        kind = 0 if len(tensors) == 2 else (1 if isinstance(other, Tensor) else 2)
        res, node = record(_ZETA_NODES[kind], r, (input, other))
        node.self_, node.other = _save(input), _save(other)
        node.metas = (_meta(input), _meta(other))
        return _finish(res, out, "zeta")
    return _finish(wrap(r), out, "zeta")


@op(namespace=SPECIAL)
def gammainc(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The regularised lower incomplete gamma function (:func:`tensorlib.igamma`)."""
    return _incomplete_gamma("special_gammainc", _gamma.igamma, IgammaBackward0, input, other, out)


@op(namespace=SPECIAL)
def gammaincc(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The regularised upper incomplete gamma function (:func:`tensorlib.igammac`)."""
    return _incomplete_gamma("special_gammaincc", _gamma.igammac, IgammacBackward0, input, other, out)


@op(namespace=SPECIAL)
def gammaln(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """``log |Gamma(x)|`` (:func:`tensorlib.lgamma`)."""
    return lgamma(tensor_arg(input, "special_gammaln"), out=out)


@op(namespace=SPECIAL)
def psi(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The digamma function (:func:`tensorlib.digamma`)."""
    return digamma(tensor_arg(input, "special_psi"), out=out)


@op(namespace=SPECIAL)
def multigammaln(input: Tensor, p: int, *, out: Tensor | None = None) -> Tensor:
    """The log of the multivariate gamma function (:func:`tensorlib.mvlgamma`)."""
    return mvlgamma(input, p, out=out)


# -- Bessel functions and relatives ------------------------------------------------------------------


def _i1_grad(g: Tensor, x: Tensor, y: Tensor) -> Tensor:
    # I1' = I0 - I1 / x, with the limit 1/2 at 0
    zero = eq(x, 0)
    return mul(g, where(zero, 0.5, sub(i0(x), div(y, where(zero, 1.0, x)))))


def _i1e_grad(g: Tensor, x: Tensor, y: Tensor) -> Tensor:
    # (e^-|x| I1)' = e^-|x| I0 - (sgn(x) + 1/x) e^-|x| I1, with the limit 1/2 at 0
    zero = eq(x, 0)
    return mul(g, where(zero, 0.5, sub(i0e(x), mul(y, add(sgn(x), reciprocal(where(zero, 1.0, x)))))))


i0 = _differentiable(
    "i0", _bessel.i0, _i0_grad, "x", "The modified Bessel function of the first kind, order 0.",
    kernel="i0_vml_cpu", variants="function method", inplace="function method", namespace=(TENSORLIB, SPECIAL),
)
i0e = _differentiable(
    "i0e", _bessel.i0e, _i0e_grad, "xy",
    "The exponentially scaled modified Bessel function of order 0: ``exp(-|x|) I0(x)``.", kernel="i0e_cpu",
    backward_name="SpecialI0EBackward0", variants="function", namespace=SPECIAL,
)
i1 = _differentiable(
    "i1", _bessel.i1, _i1_grad, "xy", "The modified Bessel function of the first kind, order 1.", kernel="i1_cpu",
    backward_name="SpecialI1Backward0", variants="function", namespace=SPECIAL,
)
i1e = _differentiable(
    "i1e", _bessel.i1e, _i1e_grad, "xy",
    "The exponentially scaled modified Bessel function of order 1: ``exp(-|x|) I1(x)``.", kernel="i1e_cpu",
    backward_name="SpecialI1EBackward0", variants="function", namespace=SPECIAL,
)

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)

erfcx = _differentiable(
    "erfcx", _erf.erfcx, lambda g, x, y: mul(g, sub(mul(mul(x, y), 2.0), _TWO_OVER_SQRT_PI)), "xy",
    "The scaled complementary error function ``exp(x^2) erfc(x)``.", kernel="erfcx_cpu", half=False,
    backward_name="SpecialErfcxBackward0", variants="function", namespace=SPECIAL,
)
log_ndtr = _differentiable(
    "log_ndtr", _erf.log_ndtr, lambda g, x, y: mul(g, mul(exp(neg(add(y, mul(mul(x, x), 0.5)))), _INV_SQRT_2PI)),
    "xy", "The log of the standard normal distribution function, accurate in both tails.", kernel="log_ndtr_cpu",
    half=False, backward_name="SpecialLogNdtrBackward0", variants="function", namespace=SPECIAL,
)
ndtri = _differentiable(
    "ndtri", _erf.ndtri, lambda g, x, y: mul(g, mul(exp(mul(mul(y, y), 0.5)), math.sqrt(2.0 * math.pi))), "y",
    "The inverse of the standard normal distribution function.", kernel="ndtri_cpu", half=False,
    backward_name="SpecialNdtriBackward0", variants="function", namespace=SPECIAL,
)

airy_ai = _plain("airy_ai", _bessel.airy_ai, "The Airy function ``Ai``.")
bessel_j0 = _plain("bessel_j0", _bessel.j0, "The Bessel function of the first kind, order 0.")
bessel_j1 = _plain("bessel_j1", _bessel.j1, "The Bessel function of the first kind, order 1.")
bessel_y0 = _plain("bessel_y0", _bessel.y0, "The Bessel function of the second kind, order 0 (nan below 0).")
bessel_y1 = _plain("bessel_y1", _bessel.y1, "The Bessel function of the second kind, order 1 (nan below 0).")
modified_bessel_i0 = _plain("modified_bessel_i0", _bessel.i0, "The modified Bessel function of the first kind, order 0.")
modified_bessel_i1 = _plain("modified_bessel_i1", _bessel.i1, "The modified Bessel function of the first kind, order 1.")
modified_bessel_k0 = _plain("modified_bessel_k0", _bessel.k0, "The modified Bessel function of the second kind, order 0.")
modified_bessel_k1 = _plain("modified_bessel_k1", _bessel.k1, "The modified Bessel function of the second kind, order 1.")
scaled_modified_bessel_k0 = _plain(
    "scaled_modified_bessel_k0", _bessel.k0e, "``exp(x) K0(x)``: the scaled modified Bessel function of order 0."
)
scaled_modified_bessel_k1 = _plain(
    "scaled_modified_bessel_k1", _bessel.k1e, "``exp(x) K1(x)``: the scaled modified Bessel function of order 1."
)
spherical_bessel_j0 = _plain("spherical_bessel_j0", _bessel.spherical_j0, "The spherical Bessel function ``sin(x) / x``.")


# -- orthogonal polynomials --------------------------------------------------------------------------


def _polynomial(name: str, fn: Callable[[np.ndarray, np.ndarray], np.ndarray], doc: str) -> Callable:
    """``P_n(x)`` of ``torch.special``: either argument may be a number, ``n`` is truncated to an integer;
    the result never requires grad (torch has no derivative)."""
    def impl(input: Any, n: Any, *, out: Tensor | None = None) -> Tensor:
        for v in (input, n):
            if type(v) is int:
                _int_scalar(v)  # a Python int beyond 64 bits: torch's OverflowError, as for any scalar
        a, b, _ = _operands("special_" + name, input, n, name + "_cpu", numbers=True, ints=True, half=False)
        return _finish(wrap(fn(a, b)), out, name)

    impl.__name__ = impl.__qualname__ = name
    impl.__doc__ = doc
    impl.__module__ = __name__
    return op(namespace=SPECIAL)(impl)


chebyshev_polynomial_t = _polynomial("chebyshev_polynomial_t", _orthopoly.chebyshev_t,
                                     "The Chebyshev polynomial of the first kind ``T_n(x)``.")
chebyshev_polynomial_u = _polynomial("chebyshev_polynomial_u", _orthopoly.chebyshev_u,
                                     "The Chebyshev polynomial of the second kind ``U_n(x)``.")
chebyshev_polynomial_v = _polynomial("chebyshev_polynomial_v", _orthopoly.chebyshev_v,
                                     "The Chebyshev polynomial of the third kind ``V_n(x)``.")
chebyshev_polynomial_w = _polynomial("chebyshev_polynomial_w", _orthopoly.chebyshev_w,
                                     "The Chebyshev polynomial of the fourth kind ``W_n(x)``.")
shifted_chebyshev_polynomial_t = _polynomial("shifted_chebyshev_polynomial_t", _orthopoly.shifted_chebyshev_t,
                                             "``T_n(2x - 1)``: the Chebyshev polynomial of the first kind on [0, 1].")
shifted_chebyshev_polynomial_u = _polynomial("shifted_chebyshev_polynomial_u", _orthopoly.shifted_chebyshev_u,
                                             "``U_n(2x - 1)``: the Chebyshev polynomial of the second kind on [0, 1].")
shifted_chebyshev_polynomial_v = _polynomial("shifted_chebyshev_polynomial_v", _orthopoly.shifted_chebyshev_v,
                                             "``V_n(2x - 1)``: the Chebyshev polynomial of the third kind on [0, 1].")
shifted_chebyshev_polynomial_w = _polynomial("shifted_chebyshev_polynomial_w", _orthopoly.shifted_chebyshev_w,
                                             "``W_n(2x - 1)``: the Chebyshev polynomial of the fourth kind on [0, 1].")
hermite_polynomial_h = _polynomial("hermite_polynomial_h", _orthopoly.hermite_h,
                                   "The physicists' Hermite polynomial ``H_n(x)`` (nan past n = 512; 128 in float32).")
hermite_polynomial_he = _polynomial("hermite_polynomial_he", _orthopoly.hermite_he,
                                    "The probabilists' Hermite polynomial ``He_n(x)`` (nan past n = 512; 128 in float32).")
laguerre_polynomial_l = _polynomial("laguerre_polynomial_l", _orthopoly.laguerre_l, "The Laguerre polynomial ``L_n(x)``.")
legendre_polynomial_p = _polynomial("legendre_polynomial_p", _orthopoly.legendre_p, "The Legendre polynomial ``P_n(x)``.")
