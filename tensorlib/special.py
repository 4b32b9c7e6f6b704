"""``tensorlib.special``: special functions, as ``torch.special`` names them.

Several are the same operations as functions of ``tensorlib`` under the
names SciPy made common (``expit`` is :func:`tensorlib.sigmoid`); each is
still its own overridable function, as in torch. They are declared next to
their implementations in :mod:`tensorlib.ops`.
"""

from __future__ import annotations

from . import ops as _ops  # noqa: F401  (declares this namespace's functions)
from ._namespace import build as _build

__all__ = sorted(_build(__name__))
