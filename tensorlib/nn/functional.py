"""``tensorlib.nn.functional``: the functional forms of layers, activations and losses (all overridable).

The functions are declared next to their implementations (``nn/_functional.py``,
``_conv``, ``_pooling``, ``_normalization``, ``_losses``, ``_attention``).
"""

from __future__ import annotations

from .._namespace import build as _build
from . import _attention, _conv, _functional, _losses, _normalization, _pooling  # noqa: F401  (they declare)

__all__ = sorted(_build(__name__))
