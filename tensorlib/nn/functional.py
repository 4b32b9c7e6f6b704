"""``tensorlib.nn.functional``: the functional forms of layers, activations and losses (all overridable).

The functions are declared next to their implementations (``nn/_functional.py``,
``_conv``, ``_pooling``, ``_normalization``, ``_losses``, ``_attention``, ``_ctc``,
``_embedding_bag``, ``_sampling``).
"""

from __future__ import annotations

from .._namespace import build as _build
from . import (  # noqa: F401  (they declare)
    _attention,
    _conv,
    _ctc,
    _embedding_bag,
    _functional,
    _losses,
    _normalization,
    _pooling,
    _sampling,
)

__all__ = sorted(_build(__name__))
