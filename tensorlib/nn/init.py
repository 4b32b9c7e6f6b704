"""``tensorlib.nn.init``: in-place parameter initialisers (overridable), and ``calculate_gain``."""

from __future__ import annotations

from .._namespace import build as _build
from . import _init  # noqa: F401  (declares this namespace's functions)
from ._init import _calculate_fan_in_and_fan_out  # noqa: F401  (torch's private name, used by layers in the wild)

__all__ = sorted(_build(__name__))
