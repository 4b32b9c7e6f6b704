"""Elementwise activations of floating point tensors as one node each, as torch records them.

Each activation is a NumPy forward with torch's formula (its branch conditions too, so NaN goes where torch sends
it) and a gradient rule written with differentiable ops: ``grad_fn`` is ``LeakyReluBackward0`` and friends, with
one edge to the input, and gradients of any order come from the engine. The masks of piecewise functions are
computed on the arrays: constants, whose derivative is zero.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from .._autograd.graph import Node, SavedTensor, save_input, unpack
from .._tensor import Tensor
from ..ops import unary
from ..ops._util import GRAD, clip_ufunc, record, wrap
from ..ops.activation import _erf_np, erf
from ..ops.arithmetic import add, mul, rsub
from ..ops.selection import clamp, where
from ..ops.unary import exp


class _ActivationNode(Node):
    """One activation: its gradient is ``rule(g, x, *params)`` (and ``aux=``, what the forward kept, if any)."""

    __slots__ = ("x", "rule", "params", "aux")
    _saved_slots = ("x", "aux")
    x: SavedTensor | None
    rule: Callable[..., Tensor]
    params: tuple
    aux: np.ndarray | None

    def backward(self, g: Tensor) -> tuple:
        x = unpack(self, self.x)
        if self.aux is None:
            return (self.rule(g, x, *self.params),)
        return (self.rule(g, x, *self.params, aux=self.aux),)


_NODES: dict[str, type] = {}


def apply(x: Tensor, name: str, forward: Callable[..., Any], rule: Callable[..., Tensor], *params: Any) -> Tensor:
    """``forward(x's array, *params)`` as a tensor, recorded as the node ``name`` when ``x`` requires grad.

    A forward may return ``(result, aux)``: an array its rule reuses when nothing is recorded (GELU's erf).
    """
    r = forward(x._data, *params)
    aux = None
    if type(r) is tuple:
        r, aux = r
    if type(r) is not np.ndarray:
        r = np.asarray(r)
    if x._requires_grad and GRAD.enabled:
        cls = _NODES.get(name)
        if cls is None:
            cls = _NODES[name] = type(name, (_ActivationNode,), {"__slots__": ()})
        res, node = record(cls, r, (x,))
        node.x, node.rule, node.params, node.aux = save_input(x), rule, params, aux
        return res
    return wrap(r)


def _mask(condition: np.ndarray) -> Tensor:
    return wrap(condition)


# -- forward formulas (torch's) and gradient rules ---------------------------------------------------------------


def leaky_relu_forward(a: np.ndarray, slope: float) -> np.ndarray:
    if a.dtype == np.float16:  # as torch: the product in float32 (the slope not rounded to half first), rounded once
        scaled = np.asarray(np.multiply(a, np.float32(slope), dtype=np.float32).astype(np.float16))
    else:
        scaled = np.multiply(a, slope, out=np.empty_like(a))  # (an array even for a 0-d input, so that out= works)
    if 0 < slope <= 1 and a.dtype.kind == "f":
        # max(x, slope * x) is x above 0 and slope * x below (NaN and signed zeros as torch's select): two passes
        # where np.where takes a mask and a pass over three arrays with unpredictable branches (4-5x slower)
        return np.maximum(a, scaled, out=scaled)
    return np.where(a > 0, a, scaled)


def leaky_relu_rule(g: Tensor, x: Tensor, slope: float) -> Tensor:
    return where(_mask(x._data > 0), g, mul(g, slope))


def scale_forward(a: np.ndarray, factors: np.ndarray) -> np.ndarray:
    """``a`` times per-element constant ``factors`` (rrelu's noise while training)."""
    return a * factors


def scale_rule(g: Tensor, x: Tensor, factors: np.ndarray) -> Tensor:
    return mul(g, wrap(factors))


def elu_forward(a: np.ndarray, alpha: float, scale: float, input_scale: float) -> np.ndarray:
    if a.dtype.kind != "f":
        negative = np.expm1(np.minimum(a, 0) * input_scale) * alpha
        return np.where(a > 0, a, negative) * scale if scale != 1 else np.where(a > 0, a, negative)
    # expm1 of the negative part (0 above 0) plus the positive part (0 below): exact sums, no mask; -0.0 stays -0.0
    # and NaN stays NaN, as in torch
    r = clip_ufunc(a, -math.inf, 0.0, out=np.empty_like(a))  # (an array even for a 0-d input)
    if input_scale != 1:
        r *= input_scale
    np.expm1(r, out=r)
    if alpha != 1:
        r *= alpha
    r += clip_ufunc(a, 0.0, math.inf)
    if scale != 1:
        r *= scale
    return r


def elu_rule(g: Tensor, x: Tensor, alpha: float, scale: float, input_scale: float) -> Tensor:
    # x <= 0 (and NaN): g * scale * alpha * input_scale * exp(x * input_scale), as torch
    negative = mul(g, mul(exp(mul(clamp(x, max=0.0), input_scale)), scale * alpha * input_scale))
    return where(_mask(x._data > 0), mul(g, scale) if scale != 1 else g, negative)


def hardtanh_forward(a: np.ndarray, lo: float, hi: float) -> np.ndarray:
    # one pass (NumPy's maximum and minimum are 3x slower each on large float arrays); -0.0 and NaN kept, as torch
    return clip_ufunc(a, lo, hi) if a.dtype.kind == "f" else np.minimum(np.maximum(a, lo), hi)


def hardtanh_rule(g: Tensor, x: Tensor, lo: float, hi: float) -> Tensor:
    a = x._data
    return where(_mask((a > lo) & (a < hi)), g, 0.0)  # 0 at the limits and for NaN, as torch


def hardsigmoid_forward(a: np.ndarray) -> np.ndarray:
    r = np.add(a, 3, out=np.empty_like(a))  # (an array even for a 0-d input, so that out= works)
    clip_ufunc(r, 0, 6, out=r)
    r /= 6
    return r


# torch scales hardsigmoid's gradient by 1/6 rounded to float32, whatever the dtype
_ONE_SIXTH = float(np.float32(1.0 / 6.0))


def hardsigmoid_rule(g: Tensor, x: Tensor) -> Tensor:
    a = x._data
    return where(_mask((a > -3) & (a < 3)), mul(g, _ONE_SIXTH), 0.0)


def hardswish_forward(a: np.ndarray) -> np.ndarray:
    r = np.add(a, 3, out=np.empty_like(a))
    clip_ufunc(r, 0, 6, out=r)
    r *= a
    r /= 6
    return r


def hardswish_rule(g: Tensor, x: Tensor) -> Tensor:
    a = x._data  # torch: 0 up to -3, g from 3
    inside = mul(g, add(mul(x, 1.0 / 3.0), 0.5))  # (NaN for NaN)
    return where(_mask(a <= -3), 0.0, where(_mask(a >= 3), g, inside))


def silu_forward(a: np.ndarray) -> np.ndarray:
    r = np.negative(a, out=np.empty_like(a))
    np.exp(r, out=r)
    r += 1
    np.divide(a, r, out=r)
    return r


def silu_rule(g: Tensor, x: Tensor) -> Tensor:
    s = unary.sigmoid(x)
    return mul(g, mul(s, add(mul(x, rsub(s, 1)), 1)))


def mish_forward(a: np.ndarray) -> np.ndarray:
    return a * np.tanh(np.log1p(np.exp(a)))


def mish_rule(g: Tensor, x: Tensor) -> Tensor:
    t = unary.tanh(softplus_tensor(x, 1.0, 20.0))
    return mul(g, add(t, mul(mul(x, unary.sigmoid(x)), rsub(mul(t, t), 1))))


def softplus_forward(a: np.ndarray, beta: float, threshold: float) -> np.ndarray:
    bx = a * beta
    soft = np.log1p(np.exp(bx)) / beta
    return np.where(bx > threshold, a, soft)


def softplus_tensor(x: Tensor, beta: float, threshold: float) -> Tensor:
    """softplus as a differentiable op of its own (the derivative rules below use it)."""
    return apply(x, "SoftplusBackward0", softplus_forward, softplus_rule, beta, threshold)


def softplus_rule(g: Tensor, x: Tensor, beta: float, threshold: float) -> Tensor:
    bx = mul(x, beta)
    return where(_mask(bx._data > threshold), g, mul(g, unary.sigmoid(bx)))


def logsigmoid_forward(a: np.ndarray) -> np.ndarray:
    return np.minimum(a, 0) - np.log1p(np.exp(-np.abs(a)))


def logsigmoid_rule(g: Tensor, x: Tensor) -> Tensor:
    return mul(g, unary.sigmoid(mul(x, -1.0)))


def threshold_forward(a: np.ndarray, threshold: float, value: float) -> np.ndarray:
    return np.where(a <= threshold, np.asarray(value, dtype=a.dtype), a)


def threshold_rule(g: Tensor, x: Tensor, threshold: float, value: float) -> Tensor:
    return where(_mask(x._data <= threshold), 0.0, g)


def hardshrink_forward(a: np.ndarray, lambd: float) -> np.ndarray:
    return np.where((a >= -lambd) & (a <= lambd), np.zeros((), dtype=a.dtype), a)


def shrink_rule(g: Tensor, x: Tensor, lambd: float) -> Tensor:
    a = x._data
    return where(_mask((a < -lambd) | (a > lambd)), g, 0.0)  # 0 for NaN, as torch


def softshrink_forward(a: np.ndarray, lambd: float) -> np.ndarray:
    return np.where(a > lambd, a - lambd, np.where(a < -lambd, a + lambd, a * 0))


_SQRT_HALF = math.sqrt(0.5)
_PDF_SCALE = 1.0 / math.sqrt(2.0 * math.pi)
_BETA = math.sqrt(2.0 / math.pi)
_KAPPA = 0.044715


def gelu_forward(a: np.ndarray, approximate: str) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
    if approximate == "tanh":
        inner = np.multiply(a, a, out=np.empty_like(a))
        inner *= a
        inner *= _KAPPA
        inner += a
        inner *= _BETA
        np.tanh(inner, out=inner)
        inner += 1
        inner *= a
        inner *= 0.5
        return inner
    cdf = _erf_np(a * _SQRT_HALF)
    cdf += 1
    cdf *= 0.5
    return a * cdf, cdf  # the backward reuses the cdf: NumPy has no erf, and ours is costly


def gelu_rule(g: Tensor, x: Tensor, approximate: str, aux: np.ndarray | None = None) -> Tensor:
    if approximate == "tanh":
        x_sq = mul(x, x)
        t = unary.tanh(mul(add(x, mul(mul(x_sq, x), _KAPPA)), _BETA))
        left_derivative = mul(add(t, 1), 0.5)
        right_derivative = mul(rsub(mul(t, t), 1), mul(add(mul(x_sq, 3 * _KAPPA), 1), _BETA))
        return mul(g, add(left_derivative, mul(mul(x, 0.5), right_derivative)))
    if aux is not None and not GRAD.enabled and type(g) is Tensor:
        a = x._data  # nothing to record: g * (cdf + x * pdf) on the arrays, with the forward's cdf
        r = np.multiply(a, a, out=np.empty_like(a))
        r *= -0.5
        np.exp(r, out=r)
        r *= _PDF_SCALE
        r *= a
        r += aux
        r *= g._data
        return wrap(r)
    cdf = mul(add(erf(mul(x, _SQRT_HALF)), 1), 0.5)
    pdf = mul(exp(mul(mul(x, x), -0.5)), _PDF_SCALE)
    return mul(g, add(cdf, mul(x, pdf)))
