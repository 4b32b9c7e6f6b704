"""Ranking, embedding and likelihood losses, and ``prelu`` (raw implementations behind ``nn.functional``).

Most are compositions of tensorlib's differentiable ops, so they have
gradients (and gradients of gradients) for free; the ones torch computes in
one kernel (soft_margin_loss and the margin losses) are one node each, as in
torch (see ``_loss_nodes``).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from .._dtype import get_default_dtype
from .._registry import NN_FUNCTIONAL, TENSORLIB, op
from .._tensor import Tensor
from ..ops import broadcast, unary
from ..ops._util import (GRAD, broadcast_error, float_arg, float_only, not_implemented, result_dtype,
                          tensor_arg, type_title, wrap)
from ..ops.arithmetic import add, div, mul, rsub, sub
from ..ops.broadcast import _add_reduce  # (typed loosely: NumPy 2.5's stubs lack some overloads)
from ..ops.comparison import eq, gt, ne
from ..ops.conversion import to_dtype
from ..ops.creation import full_like, ones_like
from ..ops.indexing import gather, index_select, scatter
from ..ops.power import square
from ..ops.reduction import mean
from ..ops.selection import clamp_min, minimum, where
from ..ops.shape import reshape, unsqueeze
from ..ops.unary import exp, log, log1p, sqrt
from . import _loss_nodes as _nodes
from ._functional import _reduce, _reduction, cross_entropy, linear, logsigmoid, pairwise_distance


@op(variants="function method", namespace=(NN_FUNCTIONAL, TENSORLIB))
def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """``x`` where positive, ``weight * x`` elsewhere; ``weight`` has one value or one per channel (dim 1)."""
    float_only("prelu_cpu", input, weight)
    x = tensor_arg(input, "prelu")
    w = tensor_arg(weight, "prelu", "weight", 2)
    if w._data.dtype != x._data.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got {type_title(x._data.dtype)} and "
                           f"{type_title(w._data.dtype)}")
    n = w.numel()
    if n != 1:
        if x.dim() == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = x.shape[1] if x.dim() >= 2 else 1
        if n != channels:
            raise RuntimeError(
                "Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                f"{n} and channel size = {channels}."
            )
        if x.dim() >= 2:
            w = reshape(w, (1, n) + (1,) * (x.dim() - 2))
    elif w.dim() > 0:
        w = reshape(w, ())
    return where(gt(x, 0), x, mul(w, x))


def _check_same(a: Tensor, b: Tensor, fname: str) -> None:
    if a.shape != b.shape:
        raise ValueError(
            f"Using a target size ({b.shape!r}) that is different to the input size ({a.shape!r}) is deprecated. "
            "Please ensure they have the same size."
        )


@op(namespace=NN_FUNCTIONAL)
def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                        size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> Tensor:
    """``max(0, -target * (input1 - input2) + margin)``: ``target`` (1 or -1) says which input should rank higher."""
    x1 = tensor_arg(input1, "margin_ranking_loss", "input1")
    x2 = tensor_arg(input2, "margin_ranking_loss", "input2", 2)
    y = tensor_arg(target, "margin_ranking_loss", "target", 3)
    red = _reduction(size_average, reduce, reduction)
    if not (x1.dim() == x2.dim() == y.dim()):
        raise RuntimeError(
            "margin_ranking_loss : All input tensors should have same dimension but got sizes: "
            f"input1: {x1.shape}, input2: {x2.shape}, target: {y.shape} "
        )
    loss = clamp_min(add(mul(unary.neg(y), sub(x1, x2)), margin), 0)
    return _reduce(loss, red)


@op(namespace=NN_FUNCTIONAL)
def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0, size_average: Any = None,
                         reduce: Any = None, reduction: str = "mean") -> Tensor:
    """``input`` where ``target`` is 1, ``max(0, margin - input)`` where it is -1."""
    x = tensor_arg(input, "hinge_embedding_loss")
    y = tensor_arg(target, "hinge_embedding_loss", "target", 2)
    red = _reduction(size_average, reduce, reduction)
    if x._data.dtype.kind == "b":
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
                           "`logical_xor()` operator instead.")
    zero = wrap(x._data.dtype.type(0))
    from_margin = where(ne(y, 1), clamp_min(rsub(x, margin), 0), zero)
    if x._data.dtype.kind in "iu":  # integer inputs keep their dtype (the margin term truncated), as in torch
        from_margin = to_dtype(from_margin, x.dtype)
    from_input = where(ne(y, -1), x, zero)
    return _reduce(add(from_margin, from_input), red)


@op(namespace=NN_FUNCTIONAL)
def soft_margin_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
                     reduction: str = "mean") -> Tensor:
    """Two-class logistic loss ``log(1 + exp(-target * input))`` for targets 1 and -1.

    One ``SoftMarginLossBackward0`` node with an edge to the input (torch does not differentiate the target), in the
    input's dtype; the operands broadcast.
    """
    x = tensor_arg(input, "soft_margin_loss")
    y = tensor_arg(target, "soft_margin_loss", "target", 2)
    red = _reduction(size_average, reduce, reduction)
    a, b = x._data, y._data
    if a.dtype.kind == "b":
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
                           "invert a mask, use the `~` or `logical_not()` operator instead.")
    dt = result_dtype(x, y).np
    if dt.kind not in "fc":  # integers: the exponential makes it floating point
        dt = get_default_dtype().np
    if not np.can_cast(dt, a.dtype, "same_kind"):
        raise RuntimeError(f"result type {type_title(dt)} can't be cast to the desired output type "
                           f"{type_title(a.dtype)}")
    try:
        shape = np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        raise broadcast_error(a.shape, b.shape) from None
    if GRAD.enabled and y._requires_grad:
        raise RuntimeError("The function 'soft_margin_loss' is not differentiable with respect to argument 'target'. "
                           "This input cannot have requires_grad True.")
    bt = np.broadcast_to(b.astype(dt, copy=False), shape)
    loss = _nodes.soft_margin_forward(a.astype(dt, copy=False), bt)
    return _nodes.input_loss(_nodes.SoftMarginLossBackward0, x, loss, red, loss.size, bt)


@op(namespace=NN_FUNCTIONAL)
def multilabel_soft_margin_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average: Any = None,
                                reduce: Any = None, reduction: str = "mean") -> Tensor:
    """Per-class binary cross entropy on logits, averaged over the classes (the last dim)."""
    x = tensor_arg(input, "multilabel_soft_margin_loss")
    y = tensor_arg(target, "multilabel_soft_margin_loss", "target", 2)
    red = _reduction(size_average, reduce, reduction)
    loss = unary.neg(add(mul(y, logsigmoid(x)), mul(rsub(y, 1), logsigmoid(unary.neg(x)))))
    if weight is not None:
        loss = mul(loss, weight)
    classes = x.shape[-1] if x.dim() else 1
    loss = div(broadcast.sum(loss, -1), classes) if x.dim() else loss
    return _reduce(loss, red)


_COS_EPS = 1e-12


@op(namespace=NN_FUNCTIONAL)
def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                          size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> Tensor:
    """``1 - cos(x1, x2)`` where ``target`` is 1, ``max(0, cos(x1, x2) - margin)`` where it is -1."""
    x1 = tensor_arg(input1, "cosine_embedding_loss", "input1")
    x2 = tensor_arg(input2, "cosine_embedding_loss", "input2", 2)
    y = tensor_arg(target, "cosine_embedding_loss", "target", 3)
    red = _reduction(size_average, reduce, reduction)
    # torch's checks: the target's rank decides the inputs' (shapes that differ fail to broadcast below)
    td = y._data.ndim
    if td not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if x1._data.ndim != td + 1 or x2._data.ndim != td + 1:
        raise RuntimeError(f"{td}D target tensor expects {td + 1}D input tensors, but found inputs with sizes "
                           f"{list(x1._data.shape)} and {list(x2._data.shape)}.")
    d = td
    prod = broadcast.sum(mul(x1, x2), d)
    m1 = add(broadcast.sum(mul(x1, x1), d), _COS_EPS)
    m2 = add(broadcast.sum(mul(x2, x2), d), _COS_EPS)
    cos = div(prod, sqrt(mul(m1, m2)))
    zero = wrap(cos._data.dtype.type(0))
    pos = where(eq(y, 1), rsub(cos, 1), zero)
    neg = where(eq(y, -1), clamp_min(sub(cos, margin), 0), zero)
    return _reduce(add(pos, neg), red)


@op(namespace=NN_FUNCTIONAL)
def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0, p: float = 2,
                        eps: float = 1e-6, swap: bool = False, size_average: Any = None, reduce: Any = None,
                        reduction: str = "mean") -> Tensor:
    """``max(0, margin + d(anchor, positive) - d(anchor, negative))`` with ``d`` the pairwise ``p``-distance."""
    a = tensor_arg(anchor, "triplet_margin_loss", "anchor")
    pz = tensor_arg(positive, "triplet_margin_loss", "positive", 2)
    n = tensor_arg(negative, "triplet_margin_loss", "negative", 3)
    red = _reduction(size_average, reduce, reduction)
    if not (a.dim() == pz.dim() == n.dim()):
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number of dimensions, but "
            f"got: anchor {a.dim()}D, positive {pz.dim()}D, and negative {n.dim()}D inputs"
        )
    d_pos = pairwise_distance(a, pz, p, eps)
    d_neg = pairwise_distance(a, n, p, eps)
    if swap:
        d_neg = minimum(d_neg, pairwise_distance(pz, n, p, eps))
    return _reduce(clamp_min(add(sub(d_pos, d_neg), margin), 0), red)


@op(namespace=NN_FUNCTIONAL)
def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool = True, full: bool = False,
                     size_average: Any = None, eps: float = 1e-8, reduce: Any = None, reduction: str = "mean") -> Tensor:
    """Negative log likelihood of ``target`` under a Poisson with rate ``exp(input)`` (or ``input``)."""
    x = tensor_arg(input, "poisson_nll_loss")
    y = tensor_arg(target, "poisson_nll_loss", "target", 2)
    red = _reduction(size_average, reduce, reduction)
    if log_input:
        loss = sub(exp(x), mul(y, x))
    else:
        loss = sub(x, mul(y, log(add(x, eps))))
    if full:
        # Stirling's approximation of log(target!), counted only where target > 1
        yd = y.detach()
        stirling = add(sub(mul(yd, log(yd)), yd), mul(log(mul(yd, 2 * math.pi)), 0.5))
        loss = add(loss, where(gt(yd, 1), stirling, wrap(stirling._data.dtype.type(0))))
    return _reduce(loss, red)


@op(namespace=NN_FUNCTIONAL)
def gaussian_nll_loss(input: Tensor, target: Tensor, var: Any, full: bool = False, eps: float = 1e-6,
                      reduction: str = "mean") -> Tensor:
    """Negative log likelihood of ``target`` under Gaussians of mean ``input`` and variance ``var``."""
    x = tensor_arg(input, "gaussian_nll_loss")
    y = tensor_arg(target, "gaussian_nll_loss", "target", 2)
    if not isinstance(var, Tensor):
        if isinstance(var, bool) or not isinstance(var, (int, float)):
            raise TypeError(f"gaussian_nll_loss(): argument 'var' must be Tensor or float, not {type(var).__name__}")
        var = full_like(x, float(var))
    if var.shape != x.shape:
        if x.shape[:-1] == var.shape:
            var = unsqueeze(var, -1)
        elif not (x.shape[:-1] == var.shape[:-1] and var.shape[-1] == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    if bool((var._data < 0).any()):
        raise ValueError("var has negative entry/entries")
    # clamp the variance for stability without changing its gradient
    floor = eps._data if isinstance(eps, Tensor) else eps
    var = add(var, wrap((var.detach()._data.clip(min=floor) - var._data).astype(var._data.dtype)))
    loss = mul(add(log(var), div(square(sub(x, y)), var)), 0.5)
    if full:
        loss = add(loss, 0.5 * math.log(2 * math.pi))
    return _reduce(loss, reduction)


@op(namespace=NN_FUNCTIONAL)
def multi_margin_loss(input: Tensor, target: Tensor, p: int = 1, margin: float = 1.0, weight: Tensor | None = None,
                      size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> Tensor:
    """Multi-class hinge loss: ``sum_{i != y} max(0, margin - x[y] + x[i]) ** p / C`` per sample.

    One ``MultiMarginLossBackward0`` node with an edge to the input; ``weight`` (one value per class) is a constant,
    as torch refuses to differentiate it. Unlike torch's, the gradient is differentiable again.
    """
    x = tensor_arg(input, "multi_margin_loss")
    y = tensor_arg(target, "multi_margin_loss", "target", 2)
    red = _reduction(size_average, reduce, reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    w = None
    if weight is not None:
        w = tensor_arg(weight, "multi_margin_loss", "weight", 5)
        if w.dim() != 1:
            raise ValueError("weight must be one-dimensional")
    margin = float_arg(margin, "multi_margin_loss", "margin", 4)
    a, t = x._data, y._data
    if a.ndim > 2 or (a.ndim >= 1 and a.shape[-1] == 0):
        raise RuntimeError("Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(a.shape)}")
    n = a.shape[0] if a.ndim == 2 else 1
    if t.ndim > 1 or t.size != n:
        raise RuntimeError("multi_margin_loss: target tensor should be 1-D with size equal to the number of input "
                           f"samples (batch size). Expected target size [{n}], but got {list(t.shape)}. Input has "
                           f"shape {list(a.shape)}.")
    if t.dtype != np.int64:
        raise RuntimeError(f"expected scalar type Long but found {type_title(t.dtype)}")
    if a.dtype not in (np.float32, np.float64):
        raise not_implemented("multi_margin_loss_cpu_kernel", a.dtype)
    classes = a.shape[-1] if a.ndim else 1
    if w is not None:
        if w._data.size != classes:
            raise RuntimeError(f"inconsistent weight size, expected {classes} but got {list(w._data.shape)}")
        if w._data.dtype != a.dtype:
            raise RuntimeError(f"expected scalar type {type_title(a.dtype)} but found {type_title(w._data.dtype)}")
        if GRAD.enabled and w._requires_grad and x._requires_grad:
            raise RuntimeError("The function 'multi_margin_loss' is not differentiable with respect to argument "
                               "'weight'. This input cannot have requires_grad True.")
    yb = t.reshape(n, 1)
    if n and (yb.min() < 0 or yb.max() >= classes):
        raise RuntimeError("target out of range")
    ab = a.reshape(n, classes)
    z = ab - np.take_along_axis(ab, yb, 1) + margin
    z[np.arange(n), yb[:, 0]] = 0  # the target's own class does not count
    np.maximum(z, 0, out=z)
    coef = np.full((n, 1), 1.0 / classes, a.dtype) if w is None else (w._data[yb] / classes).astype(a.dtype)
    # the slope, for backward: coef (p = 1) or 2 z coef (p = 2) where the margin is positive, and at the target
    # minus the sum of the others
    slope = (z > 0) * coef if p == 1 else 2 * z * coef
    slope[np.arange(n), yb[:, 0]] = -_add_reduce(slope, 1)
    if p == 2:
        z *= z
    per_sample = _add_reduce(z * coef, 1)
    if red == "none" and a.ndim < 2:
        per_sample = per_sample.reshape(())
    return _nodes.input_loss(_nodes.MultiMarginLossBackward0, x, per_sample, red, n, p, margin, yb, coef, slope)


@op(namespace=NN_FUNCTIONAL)
def multilabel_margin_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
                           reduction: str = "mean") -> Tensor:
    """Multi-label hinge loss: ``sum_{j in y} sum_{i not in y} max(0, 1 - (x[j] - x[i])) / C`` per sample.

    ``target`` holds each sample's class indices, ended by the first ``-1``. One ``MultilabelMarginLossBackward0``
    node; the loss is piecewise linear, so its gradient is a constant (torch has no double backward).
    """
    x = tensor_arg(input, "multilabel_margin_loss")
    y = tensor_arg(target, "multilabel_margin_loss", "target", 2)
    red = _reduction(size_average, reduce, reduction)
    a, t = x._data, y._data
    if a.ndim > 2 or (a.ndim >= 1 and a.shape[-1] == 0):
        raise RuntimeError("Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(a.shape)}")
    if t.shape != a.shape:
        raise RuntimeError(f"inconsistent target size: {list(t.shape)} for input of size: {list(a.shape)}")
    if t.dtype != np.int64:
        raise RuntimeError(f"expected scalar type Long but found {type_title(t.dtype)}")
    if a.dtype not in (np.float32, np.float64):
        raise not_implemented("multilabel_margin_loss_forward_out_frame", a.dtype)
    c = a.shape[-1] if a.ndim else 1
    ab, tb = a.reshape(-1, c), t.reshape(-1, c)
    n = ab.shape[0]
    # a sample's targets are its entries before the first negative one, which must be -1
    negative = tb < 0
    ends = np.where(negative.any(1), negative.argmax(1), c)
    listed = np.arange(c) < ends[:, None]
    at_end = np.arange(c) == ends[:, None]
    if ((listed & (tb >= c)) | (at_end & (tb < -1))).any():
        raise RuntimeError("argument #2 'target' is out of range")
    rows = np.nonzero(listed)[0]
    is_target = np.zeros((n, c), bool)
    is_target[rows, tb[listed]] = True
    # margins[s, k, i] = 1 - x[s, target k] + x[s, i], for the listed targets k and the other classes i
    k = int(ends.max()) if n else 0
    slots = np.arange(k) < ends[:, None]
    picked = np.take_along_axis(ab, np.where(slots, tb[:, :k], 0), 1)
    margins = 1 - picked[:, :, None] + ab[:, None, :]
    active = (margins > 0) & slots[:, :, None] & ~is_target[:, None, :]
    per_sample = _add_reduce(np.where(active, margins, 0), (1, 2)) / c
    # the slope: +1/C at each other class for each active pair, -1/C at the pair's target (repeats add up)
    slope = active.sum(1).astype(a.dtype) / c
    np.add.at(slope, (np.nonzero(slots)[0], tb[:, :k][slots]), -active.sum(2)[slots].astype(a.dtype) / c)
    if a.ndim < 2:
        per_sample = per_sample.reshape(())
    if red == "mean" and n == 0:  # no samples: zero (torch's is an uninitialised number)
        red = "sum"
    return _nodes.input_loss(_nodes.MultilabelMarginLossBackward0, x, per_sample.astype(a.dtype), red, n, slope)


@op(namespace=NN_FUNCTIONAL)
def triplet_margin_with_distance_loss(anchor: Tensor, positive: Tensor, negative: Tensor, *,
                                      distance_function: Any = None, margin: float = 1.0, swap: bool = False,
                                      reduction: str = "mean") -> Tensor:
    """:func:`triplet_margin_loss` with any distance: ``max(0, margin + d(a, p) - d(a, n))``.

    ``distance_function`` (two tensors to a tensor of distances) defaults to :func:`pairwise_distance`.
    """
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    a_dim, p_dim, n_dim = anchor.ndim, positive.ndim, negative.ndim
    if not (a_dim == p_dim and p_dim == n_dim):
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number of dimensions, but "
            f"got: anchor {a_dim}D, positive {p_dim}D, and negative {n_dim}D inputs"
        )
    if distance_function is not None and not callable(distance_function):
        raise TypeError("triplet_margin_with_distance_loss(): distance_function must be callable, not "
                        f"{type(distance_function).__name__}")
    dist = pairwise_distance if distance_function is None else distance_function
    dist_pos = dist(anchor, positive)
    dist_neg = dist(anchor, negative)
    if swap:
        dist_neg = minimum(dist_neg, dist(positive, negative))
    loss = clamp_min(sub(add(dist_pos, margin), dist_neg), 0)
    if reduction == "sum":
        return broadcast.sum(loss)
    if reduction == "mean":
        return mean(loss)
    return loss


@op(namespace=NN_FUNCTIONAL)
def linear_cross_entropy(input: Tensor, linear_weight: Tensor, target: Tensor, *, linear_bias: Tensor | None = None,
                         weight: Tensor | None = None, reduction: str = "mean", ignore_index: int | None = None,
                         label_smoothing: float = 0.0, options: Any = None) -> Tensor:
    """``cross_entropy(linear(input, linear_weight, linear_bias), target, ...)`` in one call.

    ``linear_weight`` is ``(num_classes, *out_features, in_features)``: extra ``out_features`` dims give a
    K-dimensional loss over ``(N, num_classes, *out_features)`` logits. torch's ``options`` select a chunked
    computation of the same values; tensorlib computes them in one piece (and warns where torch ignores them).
    """
    x = tensor_arg(input, "linear_cross_entropy")
    w = tensor_arg(linear_weight, "linear_cross_entropy", "linear_weight", 2)
    y = tensor_arg(target, "linear_cross_entropy", "target", 3)
    if x.dim() < 1 or x.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {x.dim()}")
    if w.dim() < 2:
        raise RuntimeError(f"expected linear_weight with dimensionality at least 2, got {w.dim()}")
    num_batches = tuple(x.shape[:-1])
    in_features = x.shape[-1]
    if in_features != w.shape[-1]:
        raise RuntimeError("expected equal input and linear_weight last dimensions (in_features), "
                           f"got {x.shape[-1]} and {w.shape[-1]}, respectively")
    num_classes = w.shape[0]
    out_features = tuple(w.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (num_classes, *out_features):
        raise RuntimeError(f"expected linear_bias shape {(num_classes, *out_features)}, got "
                           f"{tuple(linear_bias.shape)}")
    if out_features and not num_batches:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape {tuple(w.shape)} requires batched "
                           f"input, (N, {in_features}), got unbatched input with shape {tuple(x.shape)}")
    logits_shape = (*num_batches, num_classes, *out_features)
    if tuple(y.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    if options is not None and (out_features or reduction not in {"mean", "sum", "none"} or label_smoothing != 0.0
                                or y._data.dtype != np.int64):
        warnings.warn(
            "linear_cross_entropy: ``options`` ignored; chunked path needs reduction in {'mean','sum','none'}, "
            "label_smoothing == 0, target.dtype == int64, out_features == (). Got "
            f"reduction={reduction!r}, label_smoothing={label_smoothing}, target.dtype={y.dtype}, "
            f"out_features={out_features}, tracing=False, linear_bias.shape="
            f"{tuple(linear_bias.shape) if linear_bias is not None else None}.",
            stacklevel=2,
        )
    if out_features:
        rows = math.prod(out_features, start=num_classes)
        w = reshape(w, (rows, in_features))
        if linear_bias is not None:
            linear_bias = reshape(linear_bias, (rows,))
    logits = reshape(linear(x, w, linear_bias), logits_shape)
    return cross_entropy(logits, y, weight=weight, reduction=reduction,
                         ignore_index=-100 if ignore_index is None else ignore_index, label_smoothing=label_smoothing)
