"""``tensorlib.linalg``: norms, inverses, decompositions and solvers (declared in :mod:`tensorlib.ops.linalg`,
:mod:`tensorlib.ops.decompositions` and :mod:`tensorlib.ops.linalg_functions`)."""

from __future__ import annotations

from ._namespace import build as _build
from .ops import decompositions as _decompositions, linalg as _linalg, linalg_functions as _functions  # noqa: F401

__all__ = sorted(_build(__name__))
