"""Losses as one node each, as torch records them (``MseLossBackward0``, ``HuberLossBackward0``, ...).

The forward is a few NumPy passes, reduction included, in the operands' promoted floating point dtype; the node
keeps the operands, and its gradient rule is written with differentiable ops, so gradients of any order come from
the engine. The masks of piecewise losses and everything computed from targets that cannot require grad are
arrays: constants, whose derivative is zero.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from .._autograd.graph import Node, SavedTensor, save_input, unpack
from .._tensor import Tensor
from ..ops import broadcast, unary
from ..ops._pointwise import _meta, reduce_to
from ..ops._util import GRAD, clip_ufunc, not_implemented, record, result_dtype, type_title, wrap
from ..ops.arithmetic import add, div, mul, neg, rsub, sub
from ..ops.broadcast import _add_reduce  # (typed loosely: NumPy 2.5's stubs lack some overloads)
from ..ops.indexing import gather
from ..ops.selection import clamp, clamp_min
from ..ops.shape import reshape
from . import _activations as _act

Reduction = str  # "none", "mean" or "sum"


def _reduced(loss: np.ndarray, reduction: Reduction, dtype: np.dtype) -> np.ndarray:
    """``loss`` summed or averaged as ``reduction`` says, as an array of ``dtype`` (half precision sums in float32)."""
    if reduction == "none":
        return loss.astype(dtype, copy=False)
    total = _add_reduce(loss, None, dtype=np.float32) if loss.dtype.itemsize < 4 else _add_reduce(loss, None)
    if reduction == "mean":
        total = total / np.float64(loss.size)  # an empty loss averages to nan, as torch's
    return np.asarray(total, dtype=dtype)


def _like(g: Tensor | None, x: Tensor) -> Tensor | None:
    """Gradient ``g`` at ``x``'s shape and dtype (the loss was computed in the operands' promoted dtype and, for
    soft_margin_loss, at their broadcast shape)."""
    return None if g is None else reduce_to(g, _meta(x))


class _PairLossNode(Node):
    """A loss of ``(input, target)`` with its reduction, with an edge to each: subclasses give ``gradients``."""

    __slots__ = ("input", "target", "reduction", "params")
    _saved_slots = ("input", "target")
    input: SavedTensor | None
    target: SavedTensor | None
    reduction: Reduction
    params: tuple

    def apply(self, grads: list) -> tuple:
        g = grads[0]
        if g is None:
            return None, None
        x, t = unpack(self, self.input), unpack(self, self.target)
        if self.reduction == "mean":
            g = mul(g, 1.0 / max(x._data.size, 1))  # (input and target have the loss's shape)
        gx, gt = self.gradients(g, x, t, *self.params)
        return _like(gx, x), _like(gt, t)

    def gradients(self, g: Tensor, x: Tensor, t: Tensor, *params: Any) -> tuple[Tensor | None, Tensor | None]:
        raise NotImplementedError


class _OddLossNode(_PairLossNode):
    """A loss of ``input - target``: the target's gradient is the input's, negated. Subclasses give the slope twice:
    with differentiable ops, and on arrays (used when nothing is recorded)."""

    __slots__ = ()

    def gradients(self, g: Tensor, x: Tensor, t: Tensor, *params: Any) -> tuple[Tensor | None, Tensor | None]:
        a, b, gd = x._data, t._data, g._data
        if not GRAD.enabled and type(g) is Tensor and a.dtype == b.dtype == gd.dtype:
            s = self.array_slope(np.subtract(a, b), *params)
            s *= gd
            return (wrap(s) if self.needs(0) else None), (wrap(np.negative(s)) if self.needs(1) else None)
        gx = mul(g, self.slope(sub(x, t), *params))
        return (gx if self.needs(0) else None), (neg(gx) if self.needs(1) else None)

    def slope(self, d: Tensor, *params: Any) -> Tensor:
        raise NotImplementedError

    def array_slope(self, d: np.ndarray, *params: Any) -> np.ndarray:
        """The slope at the (fresh, writable) differences ``d``, computed in place where it can."""
        raise NotImplementedError


class MseLossBackward0(_OddLossNode):
    __slots__ = ()

    def slope(self, d: Tensor, *params: Any) -> Tensor:
        return mul(d, 2.0)

    def array_slope(self, d: np.ndarray, *params: Any) -> np.ndarray:
        d *= 2
        return d


class HuberLossBackward0(_OddLossNode):
    __slots__ = ()

    def slope(self, d: Tensor, *params: Any) -> Tensor:
        delta = params[0]
        return clamp(d, -delta, delta)  # d inside the quadratic zone, +-delta outside; NaN stays NaN

    def array_slope(self, d: np.ndarray, *params: Any) -> np.ndarray:
        delta = params[0]
        return clip_ufunc(d, -delta, delta, out=d)


class SmoothL1LossBackward0(_OddLossNode):
    __slots__ = ()

    def slope(self, d: Tensor, *params: Any) -> Tensor:
        beta = params[0]
        return clamp(div(d, beta), -1.0, 1.0)

    def array_slope(self, d: np.ndarray, *params: Any) -> np.ndarray:
        d /= params[0]
        return clip_ufunc(d, -1.0, 1.0, out=d)


def mse_forward(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    d = np.subtract(a, b)
    return np.multiply(d, d, out=d)


def huber_forward(a: np.ndarray, b: np.ndarray, delta: float) -> np.ndarray:
    # m (z - m / 2) with m = min(z, delta): z * z / 2 below delta, delta (z - delta / 2) above, each rounded as
    # torch's two branches are (halving is exact); NaN stays NaN
    z = np.abs(np.subtract(a, b))
    m = clip_ufunc(z, -math.inf, delta)
    z -= 0.5 * m
    z *= m
    return z


def smooth_l1_forward(a: np.ndarray, b: np.ndarray, beta: float) -> np.ndarray:
    z = np.abs(np.subtract(a, b))
    return np.where(z < beta, 0.5 * z * z / beta, z - 0.5 * beta)


def pair_loss(node_cls: type, x: Tensor, t: Tensor, reduction: Reduction,
              forward: Callable[..., np.ndarray], *params: Any, kernel: str, same_dtype_as_input: bool = False) -> Tensor:
    """``forward(input, target, *params)`` on the arrays, reduced, recorded as one ``node_cls`` with edges to both.

    Computed in the operands' promoted dtype, which must be floating point (else torch's NotImplementedError for
    ``kernel``); the result has that dtype, or the input's if ``same_dtype_as_input`` (huber_loss, as torch).
    """
    dt = result_dtype(x, t).np
    if same_dtype_as_input and not np.can_cast(dt, x._data.dtype, "same_kind"):
        raise RuntimeError(f"result type {type_title(dt)} can't be cast to the desired output type "
                           f"{type_title(x._data.dtype)}")
    if dt.kind != "f":
        raise not_implemented(kernel, dt)
    a, b = x._data.astype(dt, copy=False), t._data.astype(dt, copy=False)
    out_dt = x._data.dtype if same_dtype_as_input else dt
    loss = _reduced(forward(a, b, *params), reduction, out_dt)
    if not (GRAD.enabled and (x._requires_grad or t._requires_grad)):
        return wrap(loss)
    res, node = record(node_cls, loss, (x, t))
    node.input, node.target = save_input(x), save_input(t)
    node.reduction, node.params = reduction, params
    return res


# -- binary cross entropy ---------------------------------------------------------------------------------------------


_BCE_EPS = 1e-12  # torch's floor of x (1 - x) in the gradient's denominator


class BinaryCrossEntropyBackward0(_PairLossNode):
    """params: the weight (an array of the input's shape, or None): a constant, as torch refuses to differentiate it."""

    __slots__ = ()

    def gradients(self, g: Tensor, x: Tensor, t: Tensor, *params: Any) -> tuple[Tensor | None, Tensor | None]:
        w = params[0]
        if w is not None:
            g = mul(g, wrap(w))
        gx = gt = None
        if self.needs(0):
            gx = mul(g, div(sub(x, t), clamp_min(mul(rsub(x, 1), x), _BCE_EPS)))
        if self.needs(1):
            gt = mul(g, neg(unary.log(div(x, rsub(x, 1)))))  # -logit(x)
        return gx, gt


def bce_forward(a: np.ndarray, b: np.ndarray, w: np.ndarray | None) -> np.ndarray:
    log_x = np.maximum(np.log(a), -100.0)
    log_1mx = np.maximum(np.log1p(-a), -100.0)
    loss = (b - 1) * log_1mx
    loss -= b * log_x
    if w is not None:
        loss *= w
    return loss


# -- binary cross entropy on logits -----------------------------------------------------------------------------------


class BinaryCrossEntropyWithLogitsBackward0(_PairLossNode):
    """params: the weight and pos_weight arrays (or None): constants, as torch refuses to differentiate them."""

    __slots__ = ()

    def gradients(self, g: Tensor, x: Tensor, t: Tensor, *params: Any) -> tuple[Tensor | None, Tensor | None]:
        weight, pos_weight = params
        w = None if weight is None else wrap(weight)
        gx = gt = None
        if self.needs(0):
            # d/dx [(1 - t) x - lw logsigmoid(x)] = lw sigmoid(x) - t lw' ... = (1 - t) - lw (1 - sigmoid(x))
            s = unary.sigmoid(x)
            if pos_weight is None:
                d = add(s, mul(t, -1.0))
            else:
                lw = add(mul(t, wrap(pos_weight - 1)), 1.0)
                d = add(rsub(t, 1), mul(lw, add(s, -1.0)))
            gx = mul(g, d if w is None else mul(d, w))
        if self.needs(1):
            # d/dt: -x - (pos_weight - 1) logsigmoid(x)
            d = mul(x, -1.0)
            if pos_weight is not None:
                ls = _act.apply(x, "LogSigmoidBackward0", _act.logsigmoid_forward, _act.logsigmoid_rule)
                d = add(d, mul(ls, wrap(1 - pos_weight)))
            gt = mul(g, d if w is None else mul(d, w))
        return gx, gt


def bce_with_logits(x: Tensor, t: Tensor, weight: Tensor | None, pos_weight: Tensor | None,
                    reduction: str) -> Tensor | None:
    """binary_cross_entropy_with_logits in NumPy passes, recorded as one node; None when the arguments need the
    composed path (dtypes other than the input's float32/float64, parameters that broadcast the loss larger)."""
    a, b = x._data, t._data
    if a.dtype.kind != "f" or a.dtype.itemsize < 4 or b.dtype != a.dtype or reduction not in ("none", "mean", "sum"):
        return None
    for p in (weight, pos_weight):
        if p is not None and (not isinstance(p, Tensor) or p._data.dtype != a.dtype
                              or np.broadcast_shapes(p._data.shape, a.shape) != a.shape):
            return None
    recording = GRAD.enabled and (x._requires_grad or t._requires_grad)
    for p, name in ((weight, "weight"), (pos_weight, "pos_weight")):
        if recording and p is not None and p._requires_grad:
            raise RuntimeError(f"The function 'binary_cross_entropy_with_logits' is not differentiable with respect "
                               f"to argument '{name}'. This input cannot have requires_grad True")
    w = None if weight is None else weight._data
    pw = None if pos_weight is None else pos_weight._data
    loss = a * (1 - b)
    log_sig = _act.logsigmoid_forward(a)
    if pw is None:
        loss -= log_sig
    else:
        loss -= log_sig * (1 + (pw - 1) * b)
    if w is not None:
        loss *= w
    loss = _reduced(loss, reduction, a.dtype)
    if not recording:
        return wrap(loss)
    res, node = record(BinaryCrossEntropyWithLogitsBackward0, loss, (x, t))
    node.input, node.target = save_input(x), save_input(t)
    node.reduction = reduction
    node.params = (None if w is None else w.copy(), None if pw is None else pw.copy())
    return res


# -- losses with an edge to the input only ----------------------------------------------------------------------------


class _InputLossNode(Node):
    """A loss whose only differentiable operand is the input: ``gradient(g, x)`` gives its gradient."""

    __slots__ = ("input", "reduction", "count", "params")
    _saved_slots = ("input",)
    input: SavedTensor | None
    reduction: Reduction
    count: int  # what a mean divides by
    params: tuple

    def apply(self, grads: list) -> tuple:
        g = grads[0]
        if g is None:
            return (None,)
        x = unpack(self, self.input)
        if self.reduction == "mean":
            g = mul(g, 1.0 / max(self.count, 1))
        return (_like(self.gradient(g, x, *self.params), x),)

    def gradient(self, g: Tensor, x: Tensor, *params: Any) -> Tensor:
        raise NotImplementedError


def input_loss(node_cls: type, x: Tensor, loss: np.ndarray, reduction: Reduction, count: int, *params: Any) -> Tensor:
    """``loss`` (per element or per sample) reduced, recorded as one ``node_cls`` with an edge to ``x``."""
    out = _reduced(loss, reduction, x._data.dtype)
    if not (GRAD.enabled and x._requires_grad):
        return wrap(out)
    res, node = record(node_cls, out, (x,))
    node.input, node.reduction, node.count, node.params = save_input(x), reduction, count, params
    return res


def _column(g: Tensor) -> Tensor:
    """A per-sample gradient (reduction 'none') as a column that broadcasts over the classes."""
    return reshape(g, (-1, 1)) if g._data.ndim == 1 else g


class SoftMarginLossBackward0(_InputLossNode):
    """params: the target, as an array of the loss's shape."""

    __slots__ = ()

    def gradient(self, g: Tensor, x: Tensor, *params: Any) -> Tensor:
        minus_t = wrap(-params[0])
        # -t sigmoid(-t x): torch's -t z / (1 + z) with z = exp(-t x), without its overflow to nan at large -t x
        gx = mul(g, mul(minus_t, unary.sigmoid(mul(x, minus_t))))
        return gx  # (summed to the input's shape by the caller)


def soft_margin_forward(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.log1p(np.exp(-(a * b)))


class MultiMarginLossBackward0(_InputLossNode):
    """params: (p, margin, the target as a column, weight[y] / classes as a column, the slope as an array)."""

    __slots__ = ()

    def gradient(self, g: Tensor, x: Tensor, *params: Any) -> Tensor:
        p, margin, y, coef, slope = params
        if p == 2 and GRAD.enabled:
            # the slope depends on x: 2 z coef at the classes with a positive margin z, minus their sum at the target
            xb = x if x._data.ndim == 2 else reshape(x, (1, -1))
            active = wrap((2 * (slope != 0) * coef).astype(x._data.dtype))
            s = mul(add(sub(xb, gather(xb, 1, wrap(y))), margin), active)
            onehot = wrap((np.arange(xb._data.shape[1]) == y).astype(x._data.dtype))
            others = mul(s, rsub(onehot, 1))
            s = sub(others, mul(onehot, broadcast.sum(others, 1, True)))
        else:
            s = wrap(slope)
        gx = mul(_column(g), s)
        return gx if gx._data.shape == x._data.shape else reshape(gx, x._data.shape)


class MultilabelMarginLossBackward0(_InputLossNode):
    """params: the slope of the loss (piecewise linear: a constant array of the input's shape, as (N, C))."""

    __slots__ = ()

    def gradient(self, g: Tensor, x: Tensor, *params: Any) -> Tensor:
        gx = mul(_column(g), wrap(params[0]))
        return gx if gx._data.shape == x._data.shape else reshape(gx, x._data.shape)
