"""Special functions: atan2, hypot, logaddexp(2), xlogy, xlog1py, copysign, deg2rad/rad2deg, sinc, entr, logit,
angle, signbit, heaviside, addcmul, addcdiv, with their in-place forms.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import _dtype
from .._autograd.graph import Node, SavedTensor, node_name, rename_grad_fn, save_input, unpack
from .._registry import SPECIAL, TENSORLIB, op
from .._tensor import Tensor
from ._pointwise import (
    ZeroGradBackward,
    _apply2,
    _arr,
    _finish,
    _load,
    _meta,
    _save,
    inplace_apply,
    logaddexp_np,
    ndarray,
    reduce_to,
)
from ._util import GRAD, binary_arrays, needs_grad, not_implemented, number_input, record, tensor_arg, wrap
from .activation import erfc, log_softmax, softmax
from .arithmetic import add, div, mul, neg, rsub, sub
from .comparison import eq, gt, le, logical_and, logical_or, lt
from .conversion import conj, to_dtype
from .selection import where
from .unary import _LN2, _real_in_float, _safe_magnitude, _unary, cos, exp, exp2, log, reciprocal, sigmoid

# -- more binary and unary functions -------------------------------------------------------------
#
# Each computes its forward with NumPy in the promoted float dtype; gradients are
# written with the ops above, so they are differentiable again.


def _float_operands(fname: str, input: Any, other: Any, *, int_ok: bool = True,
                    complex_ok: bool = True) -> tuple[Tensor, np.ndarray, Any]:
    """``input`` as a tensor and both operands' values in the promoted floating dtype (ints give the default float)."""
    x = tensor_arg(input, fname)
    a, b = binary_arrays(x, other, fname)
    if not complex_ok and a.dtype.kind == "c":
        raise not_implemented(fname + "_cpu", a.dtype)
    if a.dtype.kind not in "fc":
        if not int_ok:
            raise not_implemented(fname + "_cpu", a.dtype)
        a = a.astype(_dtype.DEFAULT.np_float)
        b = b.astype(a.dtype) if type(b) is ndarray else b
    if type(b) is not ndarray:
        b = np.asarray(b, dtype=a.dtype)  # keep the tensor's dtype through NumPy scalar arithmetic
    return x, a, b


def _binary_float(
    fname: str, np_fn: Any, grads: Callable, doc: str, *, int_ok: bool = True, scalar_ok: bool = True,
    complex_ok: bool = True, number_first_ok: bool = False, backward_name: str | None = None, **declaration: Any,
) -> Callable:
    """Declare a float-valued binary op with ``grads(g, x, y, result) -> (gx, gy)`` (tensors or scalars ``y``).

    ``number_first_ok``: a Python number is accepted as ``input`` when ``other`` is a tensor (torch's
    ``(Number self, Tensor other)`` overload). ``declaration`` holds :func:`~tensorlib._registry.op`'s options
    (by default a function and a method).
    """
    def backward(self: Any, g: Tensor) -> tuple:
        x, y = _load(self, self.self_), _load(self, self.other)
        gx, gy = grads(g, x, y, unpack(self, self.result))
        return (
            reduce_to(gx, self.metas[0]) if self.needs(0) else None,
            reduce_to(gy, self.metas[1]) if self.needs(1) and self.metas[1] is not None else None,
        )

    node_cls = type(
        backward_name or node_name(fname),
        (Node,),
        {
            "__slots__": ("self_", "other", "result", "metas"),
            "_saved_slots": ("self_", "other", "result"),
            "backward": backward,
        },
    )

    def fn(input: Tensor, other: Any, *, out: Tensor | None = None) -> Tensor:
        if number_first_ok and not isinstance(input, Tensor) and isinstance(other, Tensor):
            input = number_input(input, other, fname)
        if not scalar_ok:
            tensor_arg(other, fname, "other", 2)
        x, a, b = _float_operands(fname, input, other, int_ok=int_ok, complex_ok=complex_ok)
        r = _apply2(np_fn, a, b)
        if needs_grad(x, other) and r.dtype.kind in "fc":
            res, node = record(node_cls, r, (x, other))
            node.self_, node.other = save_input(x), _save(other)
            node.result = SavedTensor(res, True)
            node.metas = (_meta(x), _meta(other))
            return _finish(res, out, fname)
        return _finish(wrap(r), out, fname)

    fn.__name__ = fn.__qualname__ = fname
    fn.__doc__ = doc
    fn.__module__ = __name__
    declaration.setdefault("variants", "function method")
    return op(**declaration)(fn)


def _atan2_grads(g: Tensor, y: Tensor, x: Any, r: Tensor) -> tuple:
    denom = add(mul(x, x), mul(y, y))
    # at the origin the gradient is taken as 0, as torch does
    zero = eq(denom, 0)
    recip = where(zero, 0.0, reciprocal(where(zero, 1.0, denom)))
    return mul(g, mul(x, recip)), mul(g, neg(mul(y, recip)))


def _hypot_grads(g: Tensor, x: Tensor, y: Any, r: Tensor) -> tuple:
    return mul(g, div(x, r)), mul(g, div(y, r))


def _logaddexp_grads(g: Tensor, x: Tensor, y: Any, r: Tensor) -> tuple:
    # holomorphic: the conjugate of d/dx = exp(x - r)
    gx = mul(g, conj(exp(sub(x, r))))
    return gx, mul(g, conj(exp(rsub(r, y) if not isinstance(y, Tensor) else sub(y, r))))


_LOG2E = 1.0 / _LN2


def _logaddexp2_grads(g: Tensor, x: Tensor, y: Any, r: Tensor) -> tuple:
    gx = mul(g, exp2(sub(x, r)))
    gy = mul(g, exp2(rsub(r, y) if not isinstance(y, Tensor) else sub(y, r)))
    return gx, gy


def _x_times(log_fn: Callable) -> Callable:
    """``x * log_fn(y)`` with ``0 * log_fn(y)`` taken as 0 (unless ``y`` is nan), as torch's xlogy and xlog1py."""
    def np_fn(a: np.ndarray, b: Any) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            r = a * log_fn(b)
        return np.where((a == 0) & ~np.isnan(b), 0, r).astype(r.dtype, copy=False)

    return np_fn


_xlogy_np = _x_times(np.log)
_xlog1py_np = _x_times(np.log1p)


def _grad_of_x_times(fn: Callable, g: Tensor, x: Tensor, y: Any, pole: float) -> Tensor:
    """``d/dx`` of ``x * log(...)``: ``g * log(...)``, except 0 where ``x == 0`` and ``y`` is at or past the pole,
    where the function is identically 0 (torch's convention)."""
    grad = fn(g, y)
    if isinstance(y, Tensor):
        return where(logical_and(eq(x, 0), le(y, pole)), 0.0, grad)
    return where(eq(x, 0), 0.0, grad) if y <= pole else grad


def _xlogy_grads(g: Tensor, x: Tensor, y: Any, r: Tensor) -> tuple:
    return _grad_of_x_times(xlogy, g, x, y, 0.0), mul(g, div(x, y))


def _xlog1py_grads(g: Tensor, x: Tensor, y: Any, r: Tensor) -> tuple:
    gy = mul(g, div(x, add(y, 1) if isinstance(y, Tensor) else y + 1))
    return _grad_of_x_times(xlog1py, g, x, y, -1.0), gy


def _copysign_grads(g: Tensor, x: Tensor, y: Any, r: Tensor) -> tuple:
    # d|x| sign(y) / dx: +-1 (0 at x == 0); no gradient for the sign source
    ratio = where(eq(x, 0), 0.0, div(r, x))
    return mul(g, ratio), mul(g, 0.0)


atan2 = _binary_float(
    "atan2", np.arctan2, _atan2_grads, "Elementwise arctangent of ``input / other`` with the quadrant.", scalar_ok=False,
    aliases=("arctan2",), inplace="method",
)
hypot = _binary_float(
    "hypot", np.hypot, _hypot_grads, "Elementwise ``sqrt(input ** 2 + other ** 2)``.", int_ok=False, scalar_ok=False,
    inplace="method",
)
logaddexp = _binary_float(
    "logaddexp", logaddexp_np, _logaddexp_grads, "Elementwise ``log(exp(input) + exp(other))``.", int_ok=False,
    scalar_ok=False,
)
logaddexp2 = _binary_float(
    "logaddexp2", np.logaddexp2, _logaddexp2_grads, "Elementwise ``log2(2 ** input + 2 ** other)``.", int_ok=False,
    scalar_ok=False, complex_ok=False,
)
xlogy = _binary_float(
    "xlogy", _xlogy_np, _xlogy_grads, "Elementwise ``input * log(other)``, 0 where ``input`` is 0.",
    namespace=(TENSORLIB, SPECIAL), inplace="function method", complex_ok=False, number_first_ok=True,
)
xlog1py = _binary_float(
    "xlog1py", _xlog1py_np, _xlog1py_grads, "Elementwise ``input * log1p(other)``, 0 where ``input`` is 0.",
    complex_ok=False, number_first_ok=True,
    backward_name="SpecialXlog1PyBackward0",  # torch.special only: torch prefixes the node name
    variants="function", namespace=SPECIAL,
)
copysign = _binary_float(
    "copysign", np.copysign, _copysign_grads, "``input``'s magnitude with ``other``'s sign.", inplace="method"
)


@op(variants="function method", inplace="function method")
def deg2rad(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Degrees to radians."""
    x = _as_float(tensor_arg(input, "deg2rad"), "deg2rad")
    return mul(x, math.pi / 180, out=out) if out is not None else rename_grad_fn(mul(x, math.pi / 180), "Deg2RadBackward0")


@op(variants="function method", inplace="function method")
def rad2deg(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Radians to degrees."""
    x = _as_float(tensor_arg(input, "rad2deg"), "rad2deg")
    return mul(x, 180 / math.pi, out=out) if out is not None else rename_grad_fn(mul(x, 180 / math.pi), "Rad2DegBackward0")


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


sinc = _unary(
    "sinc", _sinc_np, _sinc_grad, "xy", "Normalised sinc: ``sin(pi x) / (pi x)``, 1 at 0.", namespace=(TENSORLIB, SPECIAL)
)
sinc.__module__ = __name__  # built by unary's factory, defined here


def _entr_np(a: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(a > 0, -a * np.log(a), np.where(a == 0, 0.0, -np.inf)).astype(a.dtype, copy=False)
    return np.where(np.isnan(a), a, r)


def _entr_grad(g: Tensor, x: Tensor, y: Any) -> Tensor:
    return mul(g, neg(add(log(x), 1.0)))


entr = _unary(
    "entr", _entr_np, _entr_grad, "x", "Elementwise entropy term: ``-x log x`` (0 at 0, -inf below).",
    other_dtypes=_real_in_float("entr_cpu"),
    backward_name="SpecialEntrBackward0", variants="function", inplace=None, namespace=SPECIAL,
)
entr.__module__ = __name__


class LogitBackward0(Node):
    __slots__ = ("eps", "self_")
    _saved_slots = ("self_",)
    self_: SavedTensor
    eps: float | None

    def backward(self, g: Tensor) -> tuple:
        x = unpack(self, self.self_)
        d = div(g, mul(x, rsub(x, 1)))
        if self.eps is not None:  # clamped away: no gradient
            d = where(logical_or(lt(x, self.eps), gt(x, 1 - self.eps)), 0.0, d)
        return (d,)


@op(variants="function method", namespace=(TENSORLIB, SPECIAL))
def logit(input: Tensor, eps: float | None = None, *, out: Tensor | None = None) -> Tensor:
    """``log(p / (1 - p))``, with ``p`` clamped to ``[eps, 1 - eps]`` when ``eps`` is given."""
    x = _as_float(tensor_arg(input, "logit"), "logit")
    a = x._data if eps is None else np.clip(x._data, eps, 1 - eps)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = _arr(np.log(a / (1 - a)))
    if x._requires_grad and GRAD.enabled:
        res, node = record(LogitBackward0, r, (x,))
        node.self_, node.eps = save_input(x), eps
        return _finish(res, out, "logit")
    return _finish(wrap(r), out, "logit")


@op(variants="function method")
def logit_(self: Tensor, eps: float | None = None) -> Tensor:
    """In-place :func:`logit`."""
    return inplace_apply(self, logit, (eps,), {}, "logit_")


def _angle_grad(self: Any, g: Tensor) -> tuple:
    # arg(z) = Im log z; for a real incoming g its gradient is g * i z / |z|^2 (0 at z = 0)
    x = unpack(self, self.x)
    mag, zero = _safe_magnitude(x)
    gx = mul(to_dtype(g, x.dtype), div(mul(x, 1j), mul(mag, mag)))
    return (where(zero, 0.0, gx),)


AngleBackward0 = type("AngleBackward0", (Node,), {"__slots__": ("x",), "_saved_slots": ("x",),
                                                  "backward": _angle_grad})


@op(variants="function method")
def angle(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The argument of complex numbers; for real ones pi where negative, else 0 (nan stays nan)."""
    x = tensor_arg(input, "angle")
    a = x._data
    if a.dtype.kind == "c":
        r = _arr(np.angle(a))
        if x._requires_grad and GRAD.enabled:
            res, node = record(AngleBackward0, r, (x,))
            node.x = save_input(x)
            return _finish(res, out, "angle")
        return _finish(wrap(r), out, "angle")
    f = a if a.dtype.kind == "f" else a.astype(_dtype.DEFAULT.np_float)
    r = np.where(f < 0, np.pi, 0).astype(f.dtype)
    r[np.isnan(f)] = np.nan
    if x._requires_grad and GRAD.enabled:
        res, node = record(ZeroGradBackward, r, (x,))
        node.metas = (_meta(x),)
        return _finish(res, out, "angle")
    return _finish(wrap(r), out, "angle")


@op(variants="function method")
def signbit(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Whether the sign bit is set (true for -0.0)."""
    a = tensor_arg(input, "signbit")._data
    if a.dtype.kind == "c":
        raise RuntimeError("signbit is not implemented for complex tensors.")
    if isinstance(out, Tensor) and out._data.dtype != np.bool_:
        raise RuntimeError("signbit does not support non-boolean outputs.")
    return _finish(wrap(_arr(np.signbit(a))), out, "signbit")


@op(variants="function method")
def heaviside(input: Tensor, values: Tensor, *, out: Tensor | None = None) -> Tensor:
    """0 where ``input < 0``, ``values`` where it is 0, 1 where it is positive (not differentiable)."""
    x = tensor_arg(input, "heaviside")
    v = tensor_arg(values, "heaviside", "values", 2)
    if x._data.dtype != v._data.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes")
    if x._data.dtype.kind == "c":
        raise RuntimeError("heaviside is not yet implemented for complex tensors.")
    return _finish(wrap(_apply2(np.heaviside, x._data, v._data).astype(x._data.dtype)), out, "heaviside")


@op(variants="method")
def heaviside_(self: Tensor, values: Tensor) -> Tensor:
    """In-place :func:`heaviside`."""
    return inplace_apply(self, heaviside, (values,), {}, "heaviside_")


@op(variants="function method")
def addcmul(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1, out: Tensor | None = None) -> Tensor:
    """``input + value * tensor1 * tensor2``."""
    x = tensor_arg(input, "addcmul")
    t1 = tensor_arg(tensor1, "addcmul", "tensor1", 2)
    t2 = tensor_arg(tensor2, "addcmul", "tensor2", 3)
    if any(t._data.dtype.kind == "b" for t in (x, t1, t2)):
        raise NotImplementedError("\"addcmul_cpu_out\" not implemented for 'Bool'")
    if out is None and GRAD.enabled and (x._requires_grad or t1._requires_grad or t2._requires_grad):
        return _addc_node(AddcmulBackward0, x, t1, t2, value, lambda: _addcmul(x, t1, t2, value, None))
    return _addcmul(x, t1, t2, value, out)


def _addcmul(x: Tensor, t1: Tensor, t2: Tensor, value: Any, out: Tensor | None) -> Tensor:
    prod = mul(t1, t2)
    return add(x, prod if value == 1 else mul(prod, value), out=out)


@op(variants="function method")
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
    if out is None and GRAD.enabled and (x._requires_grad or t1._requires_grad or t2._requires_grad):
        return _addc_node(AddcdivBackward0, x, t1, t2, value, lambda: _addcdiv(x, t1, t2, value, None))
    return _addcdiv(x, t1, t2, value, out)


def _addcdiv(x: Tensor, t1: Tensor, t2: Tensor, value: Any, out: Tensor | None) -> Tensor:
    q = div(t1, t2)
    return add(x, q if value == 1 else mul(q, value), out=out)


class _AddcBackward(Node):
    """``input + value * tensor1 (op) tensor2`` as one node with an edge to each tensor, as torch records
    addcmul and addcdiv; the gradients are written with differentiable ops."""

    __slots__ = ("tensor1", "tensor2", "value", "metas")
    _saved_slots = ("tensor1", "tensor2")
    tensor1: SavedTensor | None
    tensor2: SavedTensor | None
    value: Any
    metas: tuple

    def backward(self, g: Tensor) -> tuple:
        t1, t2 = unpack(self, self.tensor1), unpack(self, self.tensor2)
        value = self.value.conjugate() if isinstance(self.value, complex) else self.value  # (holomorphic in each)
        g1, g2 = self.operand_gradients(mul(g, value) if value != 1 else g, t1, t2)
        m0, m1, m2 = self.metas
        return (reduce_to(g, m0) if self.needs(0) else None, reduce_to(g1, m1) if self.needs(1) else None,
                reduce_to(g2, m2) if self.needs(2) else None)

    def operand_gradients(self, gv: Tensor, t1: Tensor, t2: Tensor) -> tuple[Tensor, Tensor]:
        raise NotImplementedError


class AddcmulBackward0(_AddcBackward):
    __slots__ = ()

    def operand_gradients(self, gv: Tensor, t1: Tensor, t2: Tensor) -> tuple[Tensor, Tensor]:
        return mul(gv, conj(t2)), mul(gv, conj(t1))


class AddcdivBackward0(_AddcBackward):
    __slots__ = ()

    def operand_gradients(self, gv: Tensor, t1: Tensor, t2: Tensor) -> tuple[Tensor, Tensor]:
        q = div(gv, conj(t2))
        return q, neg(mul(q, conj(div(t1, t2))))


def _addc_node(node_cls: type, x: Tensor, t1: Tensor, t2: Tensor, value: Any, compute: Callable[[], Tensor]) -> Tensor:
    """The composed result (its values, dtype and errors), recorded as one ``node_cls`` node."""
    enabled, GRAD.enabled = GRAD.enabled, False  # (the composition's own nodes are not wanted)
    try:
        r = compute()
    finally:
        GRAD.enabled = enabled
    res, node = record(node_cls, r._data, (x, t1, t2))
    node.tensor1, node.tensor2, node.value = save_input(t1), save_input(t2), value
    node.metas = (_meta(x), _meta(t1), _meta(t2))
    return res


@op(variants="method")
def addcmul_(self: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
    """In-place :func:`addcmul`."""
    return inplace_apply(self, addcmul, (tensor1, tensor2), {"value": value}, "addcmul_")


@op(variants="method")
def addcdiv_(self: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
    """In-place :func:`addcdiv`."""
    return inplace_apply(self, addcdiv, (tensor1, tensor2), {"value": value}, "addcdiv_")


# -- torch.special spellings ----------------------------------------------------------------------

_INV_SQRT2 = 1.0 / math.sqrt(2.0)


@op(namespace=SPECIAL)
def expit(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The logistic sigmoid ``1 / (1 + exp(-x))``."""
    return sigmoid(input, out=out)


@op(namespace=SPECIAL)
def ndtr(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The standard normal distribution function: the area under the Gaussian density left of ``x``."""
    return mul(erfc(mul(input, -_INV_SQRT2)), 0.5, out=out)


@op(namespace=SPECIAL, name="softmax")
def special_softmax(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """``exp(x) / sum(exp(x))`` along ``dim``."""
    return softmax(input, dim, dtype)


@op(namespace=SPECIAL, name="log_softmax")
def special_log_softmax(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """``log(softmax(x))`` along ``dim``, computed stably."""
    return log_softmax(input, dim, dtype)
