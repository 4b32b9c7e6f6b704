"""``tensorlib.nn.functional``: the functional forms of layers, activations and losses (all overridable)."""

from __future__ import annotations

from .._namespace import expose as _expose
from . import _functional as _F

_FUNCTIONS = {
    name: getattr(_F, name)
    for name in """linear bilinear relu relu_ threshold relu6 hardtanh leaky_relu elu celu selu gelu silu mish softplus
    softsign logsigmoid tanhshrink softshrink hardshrink hardsigmoid hardswish sigmoid tanh softmax softmin log_softmax
    glu dropout one_hot mse_loss l1_loss huber_loss smooth_l1_loss nll_loss cross_entropy binary_cross_entropy
    binary_cross_entropy_with_logits kl_div cosine_similarity pairwise_distance normalize embedding layer_norm
    pad""".split()
}

globals().update(_expose(__name__, _FUNCTIONS))

__all__ = sorted(_FUNCTIONS)
