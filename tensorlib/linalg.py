"""``tensorlib.linalg``: norms, inverses, determinants and solvers (declared in :mod:`tensorlib.ops.linalg`)."""

from __future__ import annotations

from ._namespace import build as _build
from .ops import linalg as _linalg  # noqa: F401  (declares this namespace's functions)

__all__ = sorted(_build(__name__))
