"""``tensorlib.nn.init``: in-place parameter initialisers (overridable), and ``calculate_gain``."""

from __future__ import annotations

from .._namespace import expose as _expose
from .._namespace import register_ignored as _register_ignored
from . import _init

globals().update(_expose(__name__, {name: getattr(_init, name) for name in _init.INITIALISERS}))
calculate_gain = _init.calculate_gain
_calculate_fan_in_and_fan_out = _init._calculate_fan_in_and_fan_out
_register_ignored(__name__, ["calculate_gain"])

__all__ = sorted(_init.INITIALISERS + ["calculate_gain"])
