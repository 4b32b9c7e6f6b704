"""Distance modules: cosine similarity and pairwise p-norm distance."""

from __future__ import annotations

from typing import Any

from .. import functional
from .module import Module


def _F() -> Any:
    return functional


class CosineSimilarity(Module):
    """Cosine of the angle between two inputs along ``dim``."""

    def __init__(self, dim: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.dim = dim
        self.eps = eps

    def forward(self, x1: Any, x2: Any) -> Any:
        return _F().cosine_similarity(x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    """``p``-norm distance between two inputs along the last dim."""

    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> None:
        super().__init__()
        self.norm = p
        self.eps = eps
        self.keepdim = keepdim

    def forward(self, x1: Any, x2: Any) -> Any:
        return _F().pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)
