"""Ranking, embedding and likelihood losses, and ``prelu`` (raw implementations behind ``nn.functional``).

All are compositions of tensorlib's differentiable ops, so they have
gradients (and gradients of gradients) for free.
"""

from __future__ import annotations

import math
from typing import Any

from .._registry import NN_FUNCTIONAL, op
from .._tensor import Tensor
from ..ops import broadcast, unary
from ..ops._util import tensor_arg, wrap
from ..ops.arithmetic import add, div, mul, rsub, sub
from ..ops.comparison import eq, gt, ne
from ..ops.creation import full_like, ones_like
from ..ops.indexing import gather, index_select, scatter
from ..ops.power import square
from ..ops.selection import clamp_min, minimum, where
from ..ops.shape import reshape, unsqueeze
from ..ops.unary import exp, log, log1p, sqrt
from ._functional import _reduce, _reduction, logsigmoid, pairwise_distance


@op(namespace=NN_FUNCTIONAL)
def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """``x`` where positive, ``weight * x`` elsewhere; ``weight`` has one value or one per channel (dim 1)."""
    x = tensor_arg(input, "prelu")
    w = tensor_arg(weight, "prelu", "weight", 2)
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
    zero = wrap(x._data.dtype.type(0))
    from_margin = where(ne(y, 1), clamp_min(rsub(x, margin), 0), zero)
    from_input = where(ne(y, -1), x, zero)
    return _reduce(add(from_margin, from_input), red)


@op(namespace=NN_FUNCTIONAL)
def soft_margin_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
                     reduction: str = "mean") -> Tensor:
    """Two-class logistic loss ``log(1 + exp(-target * input))`` for targets 1 and -1."""
    x = tensor_arg(input, "soft_margin_loss")
    y = tensor_arg(target, "soft_margin_loss", "target", 2)
    red = _reduction(size_average, reduce, reduction)
    _check_same(x, y, "soft_margin_loss")
    return _reduce(log1p(exp(unary.neg(mul(y, x)))), red)


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
    if x1.shape != x2.shape:
        raise RuntimeError(
            f"cosine_embedding_loss: Input1 and Input2 must have the same shape, but got {x1.shape} and {x2.shape}"
        )
    if x1.dim() not in (1, 2):
        raise RuntimeError(f"cosine_embedding_loss: Expected 1D or 2D input, but got {x1.dim()}D input")
    d = x1.dim() - 1
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
    var = add(var, wrap((var.detach()._data.clip(min=eps) - var._data).astype(var._data.dtype)))
    loss = mul(add(log(var), div(square(sub(x, y)), var)), 0.5)
    if full:
        loss = add(loss, 0.5 * math.log(2 * math.pi))
    return _reduce(loss, reduction)


@op(namespace=NN_FUNCTIONAL)
def multi_margin_loss(input: Tensor, target: Tensor, p: int = 1, margin: float = 1.0, weight: Tensor | None = None,
                      size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> Tensor:
    """Multi-class hinge loss: ``sum_{i != y} max(0, margin - x[y] + x[i]) ** p / C`` per sample."""
    x = tensor_arg(input, "multi_margin_loss")
    y = tensor_arg(target, "multi_margin_loss", "target", 2)
    red = _reduction(size_average, reduce, reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    unbatched = x.dim() <= 1
    xb = reshape(x, (1, -1)) if unbatched else x
    yb = reshape(y, (-1, 1))
    classes = xb.shape[1]
    picked = gather(xb, 1, yb)
    margins = clamp_min(add(sub(xb, picked), margin), 0)
    if p == 2:
        margins = mul(margins, margins)
    if weight is not None:
        margins = mul(margins, reshape(index_select(weight, 0, reshape(yb, (-1,))), (-1, 1)))

    keep = ones_like(margins)
    keep = scatter(keep, 1, yb, 0.0)
    loss = div(broadcast.sum(mul(margins, keep), 1), classes)
    if unbatched:
        loss = reshape(loss, ())
    return _reduce(loss, red)

