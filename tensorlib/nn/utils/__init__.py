"""``tensorlib.nn.utils``: gradient clipping, parameter/vector conversion, sequence padding, weight and spectral
normalization, batch-norm fusion, convolution weight layouts and ``skip_init``."""

from __future__ import annotations

from ..._namespace import build as _build
from . import (  # noqa: F401  (they declare this namespace's functions)
    _clip_grad,
    _convert_parameters,
    _fusion,
    _init,
    _memory_format,
    _spectral_norm,
    _weight_norm,
    rnn,
)

__all__ = sorted(_build(__name__)) + ["rnn"]
