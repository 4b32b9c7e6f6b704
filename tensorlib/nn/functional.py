"""``tensorlib.nn.functional``: the functional forms of layers, activations and losses (all overridable)."""

from __future__ import annotations

from .._namespace import expose as _expose
from . import _attention, _conv, _losses, _normalization, _pooling
from . import _functional as _F

_FUNCTIONS = {
    name: getattr(_F, name)
    for name in """linear bilinear relu relu_ threshold relu6 hardtanh leaky_relu elu celu selu gelu silu mish softplus
    softsign logsigmoid tanhshrink softshrink hardshrink hardsigmoid hardswish sigmoid tanh softmax softmin log_softmax
    glu dropout one_hot mse_loss l1_loss huber_loss smooth_l1_loss nll_loss cross_entropy binary_cross_entropy
    binary_cross_entropy_with_logits kl_div cosine_similarity pairwise_distance normalize embedding layer_norm
    pad""".split()
}

# convolution, pooling, normalisation and resampling layers
_LAYERS = {
    _conv: "conv1d conv2d conv3d conv_transpose1d conv_transpose2d conv_transpose3d unfold fold",
    _pooling: """avg_pool1d avg_pool2d avg_pool3d max_pool1d max_pool2d max_pool3d max_pool1d_with_indices
    max_pool2d_with_indices max_pool3d_with_indices adaptive_avg_pool1d adaptive_avg_pool2d adaptive_avg_pool3d
    adaptive_max_pool1d adaptive_max_pool2d adaptive_max_pool3d adaptive_max_pool1d_with_indices
    adaptive_max_pool2d_with_indices adaptive_max_pool3d_with_indices lp_pool1d lp_pool2d lp_pool3d interpolate
    upsample upsample_nearest upsample_bilinear pixel_shuffle pixel_unshuffle""",
    _normalization: """batch_norm instance_norm group_norm local_response_norm dropout1d dropout2d dropout3d
    alpha_dropout feature_alpha_dropout""",
    _losses: """prelu margin_ranking_loss hinge_embedding_loss soft_margin_loss multilabel_soft_margin_loss
    cosine_embedding_loss triplet_margin_loss poisson_nll_loss gaussian_nll_loss multi_margin_loss""",
    _attention: "scaled_dot_product_attention",
}
_FUNCTIONS.update({name: getattr(mod, name) for mod, names in _LAYERS.items() for name in names.split()})

globals().update(_expose(__name__, _FUNCTIONS))

__all__ = sorted(_FUNCTIONS)
