"""The functional forms torch exposes as ``torch.X``, with torch's top-level signatures.

torch's top-level forms of layers and losses are its ATen operators, and their signatures differ from
``nn.functional``'s: arguments ``nn.functional`` defaults are required (``torch.dropout(input, p, train)``),
reductions are integers (``0`` none, ``1`` mean, ``2`` sum; any other value none), normalisations take
``cudnn_enabled`` (ignored here) and their arguments in another order, ``embedding`` and ``embedding_bag`` take
the weight first and the latter returns its four results. Each one here runs the ``nn.functional``
implementation. An omitted reduction is 0: torch documents 1, but its bindings pass 0 (``torch.kl_div(x, y)``
is unreduced in torch 2.13), and tensorlib does what torch does.

Functions whose signature is the same in both places (``conv2d``, ``pixel_shuffle``, ``prelu``, ...) are
declared once, next to their implementation, in both namespaces; importing this module declares those too.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .._registry import op
from .._tensor import Tensor
from ..ops._util import float_only, tensor_arg, write_out
from ..ops.reduction import mean
from . import (  # noqa: F401  (they declare top-level forms as well)
    _attention,
    _conv,
    _ctc,
    _embedding_bag,
    _functional,
    _losses,
    _normalization,
    _pooling,
    _rnn,
)
from ._functional import _rrelu, _threshold, binary_cross_entropy_with_logits as _bce_with_logits
from ._functional import celu as _celu, embedding as _embedding, kl_div as _kl_div, layer_norm as _layer_norm
from ._functional import selu as _selu

__all__: list[str] = []

_REDUCTIONS = {1: "mean", 2: "sum"}


def _reduction(reduction: Any, fname: str, pos: int) -> str:
    """An ATen reduction: 1 mean, 2 sum, any other int none (as ``apply_loss_reduction``)."""
    if not isinstance(reduction, int) or isinstance(reduction, bool):
        raise TypeError(f"{fname}(): argument 'reduction' (position {pos}) must be int, not "
                        f"{type(reduction).__name__}")
    return _REDUCTIONS.get(reduction, "none")


def _check_p(p: float, fname: str) -> None:
    if isinstance(p, bool) or not isinstance(p, (int, float, np.integer, np.floating)):
        raise TypeError(f"{fname}(): argument 'p' (position 2) must be float, not {type(p).__name__}")
    if not 0 <= p <= 1:  # NaN too
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")


def _feature_input(x: Tensor) -> None:
    if x._data.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")


# -- dropout -----------------------------------------------------------------------------------------------------


def _dropout_op(input: Tensor, p: float, train: bool, inplace: bool, feature: bool, alpha: bool,
                name: str) -> Tensor:
    x = tensor_arg(input, name)
    if isinstance(p, Tensor) and p.dim() == 0:
        p = p.item()
    _check_p(p, name)
    if not train or p == 0:
        return x
    if feature:
        _feature_input(x)
    return _normalization._dropout(x, p, train, inplace, 2 if feature else None, alpha)


@op()
def dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """Zero elements with probability ``p`` and scale the rest by ``1 / (1 - p)`` when ``train``."""
    return _dropout_op(input, p, train, False, False, False, "dropout")


@op()
def dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """In-place :func:`dropout`."""
    return _dropout_op(input, p, train, True, False, False, "dropout_")


@op()
def feature_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """Zero whole channels (``input[n, c]``) with probability ``p`` when ``train``, scaling the rest."""
    return _dropout_op(input, p, train, False, True, False, "feature_dropout")


@op()
def feature_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """In-place :func:`feature_dropout`."""
    return _dropout_op(input, p, train, True, True, False, "feature_dropout_")


@op()
def alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """Dropout that keeps SELU activations' mean and variance, when ``train``."""
    return _dropout_op(input, p, train, False, False, True, "alpha_dropout")


@op()
def alpha_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """In-place :func:`alpha_dropout`."""
    return _dropout_op(input, p, train, True, False, True, "alpha_dropout_")


@op()
def feature_alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """:func:`alpha_dropout` of whole channels."""
    return _dropout_op(input, p, train, False, True, True, "feature_alpha_dropout")


@op()
def feature_alpha_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """In-place :func:`feature_alpha_dropout`."""
    return _dropout_op(input, p, train, True, True, True, "feature_alpha_dropout_")


# -- activations -------------------------------------------------------------------------------------------------


@op()
def celu(input: Tensor, alpha: float = 1.0) -> Tensor:
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``."""
    return _celu(input, alpha)


@op()
def selu(input: Tensor) -> Tensor:
    """Scaled ELU with the self-normalising constants."""
    return _selu(input)


@op()
def threshold(input: Tensor, threshold: float, value: float, *, out: Tensor | None = None) -> Tensor:
    """``x`` where ``x > threshold``, else ``value``."""
    res = _threshold(tensor_arg(input, "threshold"), threshold, value, False)
    return res if out is None else write_out(out, res, "threshold")


@op()
def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          generator: Any = None) -> Tensor:
    """Randomized leaky ReLU (see :func:`tensorlib.nn.functional.rrelu`); ``generator`` draws the slopes."""
    return _rrelu(input, lower, upper, training, False, generator)


# -- normalisation ----------------------------------------------------------------------------------------------


@op()
def batch_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None, running_mean: Tensor | None,
               running_var: Tensor | None, training: bool, momentum: float, eps: float,
               cudnn_enabled: bool) -> Tensor:
    """Batch normalisation (see :func:`tensorlib.nn.functional.batch_norm`); ``cudnn_enabled`` is ignored."""
    return _normalization.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


@op()
def instance_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None, running_mean: Tensor | None,
                  running_var: Tensor | None, use_input_stats: bool, momentum: float, eps: float,
                  cudnn_enabled: bool) -> Tensor:
    """Instance normalisation (see :func:`tensorlib.nn.functional.instance_norm`)."""
    return _normalization.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum,
                                        eps)


@op()
def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-05, cudnn_enabled: bool = True) -> Tensor:
    """Group normalisation (see :func:`tensorlib.nn.functional.group_norm`)."""
    return _normalization.group_norm(input, num_groups, weight, bias, eps)


@op()
def layer_norm(input: Tensor, normalized_shape: Sequence[int], weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-05, cudnn_enable: bool = True) -> Tensor:
    """Layer normalisation over the trailing ``normalized_shape`` (a sequence of ints, as torch requires)."""
    x = tensor_arg(input, "layer_norm")
    if not isinstance(normalized_shape, (tuple, list)):
        raise TypeError("layer_norm(): argument 'normalized_shape' (position 2) must be tuple of ints, not "
                        f"{type(normalized_shape).__name__}")
    return _layer_norm(x, normalized_shape, weight, bias, eps)


# -- losses ------------------------------------------------------------------------------------------------------


@op()
def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                     pos_weight: Tensor | None = None, reduction: int = 0) -> Tensor:
    """Binary cross entropy on logits; ``reduction`` 0 none, 1 mean, 2 sum."""
    red = _reduction(reduction, "binary_cross_entropy_with_logits", 5)
    return _bce_with_logits(input, target, weight, reduction=red, pos_weight=pos_weight)


@op()
def kl_div(input: Tensor, target: Tensor, reduction: int = 0, *, log_target: bool = False) -> Tensor:
    """Pointwise KL divergence; ``reduction`` 0 none, 1 mean (over every element), 2 sum."""
    red = _reduction(reduction, "kl_div", 3)
    if red == "mean":  # the mean over every element, without nn.functional's warning about it
        return mean(_kl_div(input, target, reduction="none", log_target=log_target))
    return _kl_div(input, target, reduction=red, log_target=log_target)


@op()
def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                          reduction: int = 0) -> Tensor:
    """See :func:`tensorlib.nn.functional.cosine_embedding_loss`; ``reduction`` 0 none, 1 mean, 2 sum."""
    return _losses.cosine_embedding_loss(input1, input2, target, margin,
                                         reduction=_reduction(reduction, "cosine_embedding_loss", 5))


@op()
def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0, reduction: int = 0) -> Tensor:
    """See :func:`tensorlib.nn.functional.hinge_embedding_loss`; ``reduction`` 0 none, 1 mean, 2 sum."""
    red = _reduction(reduction, "hinge_embedding_loss", 4)
    return _losses.hinge_embedding_loss(input, target, margin, reduction=red)


@op()
def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                        reduction: int = 0) -> Tensor:
    """See :func:`tensorlib.nn.functional.margin_ranking_loss`; ``reduction`` 0 none, 1 mean, 2 sum."""
    return _losses.margin_ranking_loss(input1, input2, target, margin,
                                       reduction=_reduction(reduction, "margin_ranking_loss", 5))


@op()
def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0, p: float = 2,
                        eps: float = 1e-06, swap: bool = False, reduction: int = 0) -> Tensor:
    """See :func:`tensorlib.nn.functional.triplet_margin_loss`; ``reduction`` 0 none, 1 mean, 2 sum."""
    return _losses.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                       reduction=_reduction(reduction, "triplet_margin_loss", 8))


@op()
def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool, full: bool, eps: float,
                     reduction: int) -> Tensor:
    """See :func:`tensorlib.nn.functional.poisson_nll_loss`; every argument required, ``reduction`` an int."""
    return _losses.poisson_nll_loss(input, target, log_input, full, eps=eps,
                                    reduction=_reduction(reduction, "poisson_nll_loss", 6))


@op()
def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths: Any, target_lengths: Any, blank: int = 0,
             reduction: int = 0, zero_infinity: bool = False) -> Tensor:
    """See :func:`tensorlib.nn.functional.ctc_loss`; ``reduction`` 0 none, 1 mean, 2 sum."""
    lp = tensor_arg(log_probs, "ctc_loss", "log_probs")
    tg = tensor_arg(targets, "ctc_loss", "targets", 2)
    return _ctc._ctc_loss(lp, tg, input_lengths, target_lengths, blank, _reduction(reduction, "ctc_loss", 6),
                          zero_infinity)


# -- embeddings --------------------------------------------------------------------------------------------------


@op()
def embedding(weight: Tensor, indices: Tensor, padding_idx: int = -1, scale_grad_by_freq: bool = False,
              sparse: bool = False) -> Tensor:
    """Rows of ``weight`` at ``indices``; a ``padding_idx`` of 0 or more gets no gradient (negative: none)."""
    w = tensor_arg(weight, "embedding", "weight")
    idx = tensor_arg(indices, "embedding", "indices", 2)
    return _embedding(idx, w, padding_idx if padding_idx >= 0 else None, None, 2.0, scale_grad_by_freq, sparse)


@op()
def embedding_bag(weight: Tensor, indices: Tensor, offsets: Tensor, scale_grad_by_freq: bool = False,
                  mode: int = 0, sparse: bool = False, per_sample_weights: Tensor | None = None,
                  include_last_offset: bool = False,
                  padding_idx: int | None = None) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """Bags of rows of ``weight`` (``mode`` 0 sum, 1 mean, 2 max): ``(output, offset2bag, bag_size, max_indices)``.

    ``offset2bag`` gives each index's bag; ``bag_size`` the bags' sizes (zeros for sums); ``max_indices``
    the rows picked for each bag and feature (max), the bag sizes (mean) or zeros (sum).
    """
    w = tensor_arg(weight, "embedding_bag", "weight")
    idx = tensor_arg(indices, "embedding_bag", "indices", 2)
    off = tensor_arg(offsets, "embedding_bag", "offsets", 3)
    if mode not in (0, 1, 2):
        raise RuntimeError("`mode` must be sum, mean, or max.")
    if per_sample_weights is not None and mode != 0:
        raise RuntimeError("embedding_bag: per_sample_weights only supported with mode='sum'")
    return _embedding_bag.embedding_bag_core(w, idx, off, scale_grad_by_freq, mode, per_sample_weights,
                                             include_last_offset, padding_idx)


# -- pooling -----------------------------------------------------------------------------------------------------


@op()
def adaptive_max_pool1d(input: Tensor, output_size: Any) -> tuple[Tensor, Tensor]:
    """Adaptive max pooling of ``(N, C, L)`` to ``output_size``: ``(values, indices)``."""
    return _pooling._adaptive_max(input, 1, output_size, "adaptive_max_pool1d")


@op()
def max_pool1d_with_indices(input: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0, dilation: Any = 1,
                            ceil_mode: bool = False) -> tuple[Tensor, Tensor]:
    """1-D max pooling: ``(values, indices)``; an empty ``stride`` means ``kernel_size``."""
    return _pooling._max_pool(input, 1, kernel_size, stride, padding, dilation, ceil_mode, "max_pool1d")


@op()
def max_pool1d(input: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0, dilation: Any = 1,
               ceil_mode: bool = False) -> Tensor:
    """1-D max pooling over ``(N, C, L)`` or ``(C, L)``; an empty ``stride`` means ``kernel_size``."""
    float_only("max_pool1d_impl", input)  # torch's values-only 1-D kernel is for floating types only
    return _pooling._max_pool(input, 1, kernel_size, stride, padding, dilation, ceil_mode, "max_pool1d")[0]


@op()
def max_pool2d(input: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0, dilation: Any = 1,
               ceil_mode: bool = False) -> Tensor:
    """2-D max pooling over ``(N, C, H, W)`` or ``(C, H, W)``."""
    return _pooling._max_pool(input, 2, kernel_size, stride, padding, dilation, ceil_mode, "max_pool2d")[0]


@op()
def max_pool3d(input: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0, dilation: Any = 1,
               ceil_mode: bool = False) -> Tensor:
    """3-D max pooling over ``(N, C, D, H, W)`` or ``(C, D, H, W)``."""
    return _pooling._max_pool(input, 3, kernel_size, stride, padding, dilation, ceil_mode, "max_pool3d")[0]

