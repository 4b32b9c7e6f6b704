"""``tensorlib.linalg``: norms, inverses, determinants and solvers."""

from __future__ import annotations

from ._namespace import expose as _expose
from .ops import linalg as _L

_FUNCTIONS = {
    "vector_norm": _L.vector_norm,
    "matrix_norm": _L.matrix_norm,
    "norm": _L.norm,
    "inv": _L.inv,
    "det": _L.det,
    "solve": _L.solve,
    "svdvals": _L.svdvals,
    "cross": _L.cross,
    "matmul": _L.matmul,
}

globals().update(_expose(__name__, _FUNCTIONS))

__all__ = sorted(_FUNCTIONS)
