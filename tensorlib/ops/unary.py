"""Unary math: the ``_unary`` factory and the functions it builds (exp, log, sqrt, trig, sigmoid, relu, floor, ...),
with their in-place forms; square, abs, sgn, round, neg, conj, real and imag.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from .. import _dtype
from .._autograd.graph import Node, SavedTensor, node_name, save_input, unpack
from .._dtype import FROM_NP
from .._registry import SPECIAL, TENSORLIB, op
from .._tensor import Tensor
from ._pointwise import ZeroGradBackward, _arr, _finish, _meta, ndarray
from ._util import GRAD, Meta, clip_ufunc, int_arg, not_implemented, record, tensor_arg, wrap, write_out_exact
from .arithmetic import _conj, add, div, mul, neg, rsub, sub
from .comparison import eq, gt
from .conversion import _part_view, to_dtype, zeros_like
from .selection import where

# -- unary math -------------------------------------------------------------------


def _unary(
    name: str,
    np_fn: Callable[[np.ndarray], np.ndarray],
    grad: Callable[[Tensor, Any, Any], Tensor] | None,
    save: str,
    doc: str,
    *,
    other_dtypes: Callable[[np.ndarray, Callable], np.ndarray] | None = None,
    backward_name: str | None = None,
    holomorphic: bool = True,
    exact_out: bool = False,
    **declaration: Any,
) -> Callable:
    """Build an elementwise function from a NumPy function and a gradient rule, and declare it.

    ``declaration`` holds :func:`~tensorlib._registry.op`'s options; by default the
    op is a function and a method, with in-place variants of both.

    ``grad(g, x, y)`` gets the incoming gradient, the input and the result
    (whichever ``save`` names: ``'x'``, ``'y'``, ``'xy'`` or ``''``; the other is None).
    A None ``grad`` marks a piecewise-constant function (zero gradient).
    With ``holomorphic`` (the default), ``grad`` is written as ``g * f'(x)`` and a
    complex input gets ``g * conj(f'(x))`` (the convention torch's complex
    gradients follow), computed as ``conj(grad(conj(g), x, y))``; a rule for a
    function that is not holomorphic (abs) handles complex inputs itself.
    ``other_dtypes(a, np_fn)`` computes the result for non-float inputs (or raises
    torch's error); by default integers and bools compute in the default float dtype.
    """
    if other_dtypes is None:
        other_dtypes = _in_float
    backward_name = backward_name or node_name(name)

    def backward(self: Any, g: Tensor) -> tuple:
        x = unpack(self, self.x) if "x" in save else None
        y = unpack(self, self.y) if "y" in save else None
        if grad is None:
            return (zeros_like(g),)
        if holomorphic and g._data.dtype.kind == "c":
            return (_conj(grad(_conj(g), x, y)),)
        return (grad(g, x, y),)

    node_cls = type(backward_name, (Node,), {"__slots__": ("x", "y"), "_saved_slots": ("x", "y"), "backward": backward})

    def compute(x: Tensor) -> np.ndarray:
        a = x._data
        r = np_fn(a) if a.dtype.kind == "f" else other_dtypes(a, np_fn)
        return r if type(r) is ndarray else np.asarray(r)

    finish = _finish_exact if exact_out else _finish

    def fn(input: Tensor, *, out: Tensor | None = None) -> Tensor:
        x = tensor_arg(input, name)
        r = compute(x)
        if x._requires_grad and GRAD.enabled and r.dtype.kind in "fc":
            res, node = record(node_cls, r, (x,))
            node.x = save_input(x) if "x" in save else None
            node.y = SavedTensor(res, True) if "y" in save else None
            return finish(res, out, name)
        return finish(wrap(r), out, name)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    fn.__module__ = __name__
    declaration.setdefault("variants", "function method")
    declaration.setdefault("inplace", "function method")
    return op(**declaration)(fn)


def _finish_exact(result: Tensor, out: Any, fname: str) -> Tensor:
    return result if out is None else write_out_exact(out, result, fname)


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


_LN2 = math.log(2.0)
_LN10 = math.log(10.0)

exp = _unary("exp", np.exp, lambda g, x, y: mul(g, y), "y", "Elementwise e ** x.")
exp2 = _unary("exp2", np.exp2, lambda g, x, y: mul(g, mul(y, _LN2)), "y", "Elementwise 2 ** x.", namespace=(TENSORLIB, SPECIAL))
expm1 = _unary("expm1", np.expm1, lambda g, x, y: mul(g, add(y, 1)), "y", "Elementwise e ** x - 1.", namespace=(TENSORLIB, SPECIAL))
log = _unary("log", np.log, lambda g, x, y: div(g, x), "x", "Elementwise natural logarithm.")
log2 = _unary("log2", np.log2, lambda g, x, y: div(g, mul(x, _LN2)), "x", "Elementwise base-2 logarithm.")
log10 = _unary("log10", np.log10, lambda g, x, y: div(g, mul(x, _LN10)), "x", "Elementwise base-10 logarithm.")
log1p = _unary("log1p", np.log1p, lambda g, x, y: div(g, add(x, 1)), "x", "Elementwise log(1 + x).", namespace=(TENSORLIB, SPECIAL))
sqrt = _unary("sqrt", np.sqrt, lambda g, x, y: div(g, mul(y, 2)), "y", "Elementwise square root.")
rsqrt = _unary(
    "rsqrt", lambda a: 1 / np.sqrt(a), lambda g, x, y: mul(g, mul(mul(mul(y, y), y), -0.5)), "y", "Elementwise 1 / sqrt(x)."
)
sin = _unary("sin", np.sin, lambda g, x, y: mul(g, cos(x)), "x", "Elementwise sine.")
# cos and cosh are declared: the gradients of sin and sinh (above them) refer to them
cos: Callable = _unary("cos", np.cos, lambda g, x, y: mul(g, neg(sin(x))), "x", "Elementwise cosine.")
tan = _unary("tan", np.tan, lambda g, x, y: mul(g, add(mul(y, y), 1)), "y", "Elementwise tangent.")
asin = _unary("asin", np.arcsin, lambda g, x, y: div(g, sqrt(rsub(mul(x, x), 1))), "x", "Elementwise arcsine.", aliases=("arcsin",))
acos = _unary(
    "acos", np.arccos, lambda g, x, y: neg(div(g, sqrt(rsub(mul(x, x), 1)))), "x", "Elementwise arccosine.",
    aliases=("arccos",),
)
atan = _unary("atan", np.arctan, lambda g, x, y: div(g, add(mul(x, x), 1)), "x", "Elementwise arctangent.", aliases=("arctan",))
sinh = _unary("sinh", np.sinh, lambda g, x, y: mul(g, cosh(x)), "x", "Elementwise hyperbolic sine.")
cosh: Callable = _unary("cosh", np.cosh, lambda g, x, y: mul(g, sinh(x)), "x", "Elementwise hyperbolic cosine.")


def _in_place_ready(g: Tensor, y: Tensor) -> bool:
    """Whether a backward formula may compute in NumPy, in place on its own temporaries: nothing is recorded
    (no create_graph) and the gradient is a real array of the output's shape and dtype."""
    return not GRAD.enabled and g._data.shape == y._data.shape and g._data.dtype == y._data.dtype \
        and y._data.dtype.kind == "f"


def _tanh_grad(g: Tensor, x: Any, y: Tensor) -> Tensor:
    if _in_place_ready(g, y):  # g * (1 - y * y) in one buffer
        r = np.multiply(y._data, y._data, out=np.empty_like(y._data))  # an array even for 0-d inputs
        np.subtract(1, r, out=r)
        np.multiply(r, g._data, out=r)
        return wrap(r)
    return mul(g, rsub(mul(y, y), 1))


def _sigmoid_grad(g: Tensor, x: Any, y: Tensor) -> Tensor:
    if _in_place_ready(g, y):  # g * y * (1 - y) in one buffer
        r = np.subtract(1, y._data, out=np.empty_like(y._data))
        np.multiply(r, y._data, out=r)
        np.multiply(r, g._data, out=r)
        return wrap(r)
    return mul(g, mul(y, rsub(y, 1)))


tanh = _unary("tanh", np.tanh, _tanh_grad, "y", "Elementwise hyperbolic tangent.")
asinh = _unary(
    "asinh", np.arcsinh, lambda g, x, y: div(g, sqrt(add(mul(x, x), 1))), "x", "Elementwise inverse hyperbolic sine.",
    aliases=("arcsinh",),
)
acosh = _unary(
    "acosh", np.arccosh, lambda g, x, y: div(g, mul(sqrt(sub(x, 1)), sqrt(add(x, 1)))), "x", "Elementwise inverse hyperbolic cosine.",
    aliases=("arccosh",),
)
atanh = _unary(
    "atanh", np.arctanh, lambda g, x, y: div(g, rsub(mul(x, x), 1)), "x", "Elementwise inverse hyperbolic tangent.",
    aliases=("arctanh",),
)


def _sigmoid_np(a: np.ndarray) -> np.ndarray:
    # torch's formula, 1 / (1 + exp(-x)), in one buffer: for very negative x, exp(-x) overflows to inf and the
    # result is 0, as it should be (NumPy's overflow warning is silenced for tensorlib's modules)
    half = a.dtype == np.float16  # computed in float32 and rounded once, as torch computes half precision
    r = np.negative(a, out=np.empty(a.shape, dtype=np.float32 if half else a.dtype))  # (an array, even 0-d)
    np.exp(r, out=r)
    r += 1
    np.reciprocal(r, out=r)
    return r.astype(np.float16) if half else r


sigmoid = _unary(
    "sigmoid", _sigmoid_np, _sigmoid_grad, "y", "Elementwise logistic function 1 / (1 + e ** -x)."
)
reciprocal = _unary(
    "reciprocal", lambda a: 1 / a, lambda g, x, y: mul(g, neg(mul(y, y))), "y", "Elementwise 1 / x."
)


def _abs_grad(g: Tensor, x: Tensor, y: Any) -> Tensor:
    return mul(g, sgn(x))


abs = _unary("abs", np.abs, _abs_grad, "x", "Elementwise absolute value.", other_dtypes=_any_dtype("abs"), holomorphic=False,
             exact_out=True)  # noqa: A001
absolute = op(variants="function method", name="absolute", inplace="method")(abs)


def _relu_grad(g: Tensor, x: Any, y: Tensor) -> Tensor:
    if not GRAD.enabled and g._data.shape == y._data.shape:
        # nothing recorded (no create_graph): multiply by the mask directly, with no float copy of it
        return wrap(np.multiply(g._data, y._data > 0, dtype=g._data.dtype))
    return mul(g, gt(y, 0))


_RELU_BOUNDS: dict = {}


def _relu_array(a: np.ndarray) -> np.ndarray:
    # The bounds as 0-d arrays of a's dtype: NumPy converts Python numbers on every call, which costs more than the
    # pass itself on small arrays. Floats are clipped to [0, inf]: one pass, 2-3x faster than maximum on large arrays
    # (NaN-aware), and -0.0 stays -0.0, as in torch.
    bounds = _RELU_BOUNDS.get(a.dtype)
    if bounds is None:
        zero = np.zeros((), dtype=a.dtype)
        bounds = _RELU_BOUNDS[a.dtype] = (zero, np.array(np.inf, a.dtype)) if a.dtype.kind == "f" else (zero,)
    return clip_ufunc(a, *bounds) if len(bounds) == 2 else np.maximum(a, bounds[0])


relu = _unary("relu", _relu_array, _relu_grad, "y", "Elementwise max(x, 0).", other_dtypes=_relu_other)

floor = _unary("floor", np.floor, None, "", "Elementwise floor.", other_dtypes=_rounding("floor"), exact_out=True)
ceil = _unary("ceil", np.ceil, None, "", "Elementwise ceiling.", other_dtypes=_rounding("ceil"), exact_out=True)
trunc = _unary(
    "trunc", np.trunc, None, "", "Elementwise truncation toward zero.", other_dtypes=_rounding("trunc"),
    aliases=("fix",), exact_out=True,
)
frac = _unary(
    "frac", lambda a: a - np.trunc(a), lambda g, x, y: g, "", "Elementwise fractional part.",
    other_dtypes=_float_only("frac_cpu"), exact_out=True,
)
def _sign_float(a: np.ndarray) -> np.ndarray:
    """NumPy's sign with torch's sign of NaN, 0."""
    r = np.asarray(np.sign(a))
    r[r != r] = 0
    return r


sign = _unary("sign", _sign_float, None, "", "Elementwise sign (-1, 0 or 1; 0 for NaN).", other_dtypes=_sign_other,
              inplace="method", exact_out=True)


@op(variants="function method", inplace="method")
def sgn(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Sign for real tensors; ``x / |x|`` for complex ones."""
    x = tensor_arg(input, "sgn")
    a = x._data
    if a.dtype.kind == "c":
        mag = np.abs(a)
        r = np.where(mag == 0, 0, a / np.where(mag == 0, 1, mag)).astype(a.dtype)
        if x._requires_grad and GRAD.enabled:
            res, node = record(SgnBackward0, r, (x,))
            node.x, node.y = save_input(x), SavedTensor(res, True)
            return _finish_exact(res, out, "sgn")
        return _finish_exact(wrap(r), out, "sgn")
    return sign(x, out=out)


def _safe_magnitude(x: Tensor) -> tuple[Tensor, Tensor]:
    """``(|x|, zero)``: the magnitude with 1 where ``x`` is 0 (so it divides safely), and where that was."""
    mag = abs(x)
    zero = eq(mag, 0)
    return where(zero, 1.0, mag), zero


def _sgn_grad(self: Any, g: Tensor) -> tuple:
    # sgn(z) = z / |z| is not holomorphic: its gradient has a d/dz-bar part, (g - conj(g) sgn(z)^2) / (2 |z|)
    x, y = unpack(self, self.x), unpack(self, self.y)
    mag, zero = _safe_magnitude(x)
    gx = div(sub(g, mul(_conj(g), mul(y, y))), mul(mag, 2))
    return (where(zero, 0.0, gx),)


SgnBackward0 = type("SgnBackward0", (Node,), {"__slots__": ("x", "y"), "_saved_slots": ("x", "y"),
                                              "backward": _sgn_grad})


class RoundBackward0(ZeroGradBackward):
    __slots__ = ()


class RoundBackward1(ZeroGradBackward):
    """round with ``decimals`` (torch's other overload)."""

    __slots__ = ()


@op(variants="function method", namespace=(TENSORLIB, SPECIAL), inplace="function method")
def round(input: Tensor, *, decimals: int = 0, out: Tensor | None = None) -> Tensor:  # noqa: A001
    """Elementwise rounding half to even, to ``decimals`` decimal places."""
    x = tensor_arg(input, "round")
    kind = x._data.dtype.kind
    if kind in "bc":
        raise not_implemented("round_vml_cpu", x._data.dtype)
    if kind in "iub" and decimals != 0:
        raise not_implemented("round_cpu", x._data.dtype)
    decimals = int_arg(decimals, "round", "decimals")
    if not -400 <= decimals <= 400:  # NumPy takes only C longs; beyond float exponents torch scales to inf and gets NaN
        with np.errstate(all="ignore"):
            r = _arr(x._data * np.nan)
    else:
        r = _arr(np.round(x._data, decimals))
    if x._requires_grad and GRAD.enabled and r.dtype.kind in "fc":
        res, node = record(RoundBackward1 if decimals else RoundBackward0, r, (x,))
        node.metas = (_meta(x),)
        return _finish_exact(res, out, "round")
    return _finish_exact(wrap(r), out, "round")


class ImagBackward0(Node):
    __slots__ = ("meta",)
    meta: Meta

    def backward(self, g: Tensor) -> tuple:
        # the imaginary part moves along i: the gradient is g * 1j
        return (mul(to_dtype(g, FROM_NP[self.meta[1]]), 1j),)


@op()
def imag(input: Tensor) -> Tensor:
    """The imaginary part of a complex tensor, as a view."""
    x = tensor_arg(input, "imag")
    if x._data.dtype.kind != "c":
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return _part_view(x, x._data.imag, ImagBackward0)
