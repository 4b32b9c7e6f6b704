"""``tensorlib.nn.utils``: gradient clipping, parameter/vector conversion, sequence padding."""

from __future__ import annotations

from ..._namespace import build as _build
from . import _clip_grad, _convert_parameters, rnn  # noqa: F401  (they declare this namespace's functions)

__all__ = sorted(_build(__name__)) + ["rnn"]
