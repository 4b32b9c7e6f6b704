"""The half-Cauchy distribution: ``|X|`` for a centred Cauchy ``X``."""

from __future__ import annotations

import math
from typing import Any

import tensorlib as _t

from .cauchy import Cauchy
from .half_normal import _FoldedAtZero
from .transforms import AbsTransform


class HalfCauchy(_FoldedAtZero):
    """``|X|`` for ``X ~ Cauchy(0, scale)``: the Cauchy density folded onto ``[0, inf)``."""

    def __init__(self, scale: Any, validate_args: bool | None = None) -> None:
        super().__init__(Cauchy(0, scale, validate_args=False), AbsTransform(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> HalfCauchy:
        """This distribution with its batch expanded to ``batch_shape``."""
        new = self._get_checked_instance(HalfCauchy, _instance)
        return super().expand(batch_shape, _instance=new)  # type: ignore[return-value]

    @property
    def mean(self) -> Any:
        """Infinite: the tail is too heavy for a mean."""
        return _t.full(self._extended_shape(), math.inf, dtype=self.scale.dtype)

    @property
    def variance(self) -> Any:
        """Infinite."""
        return _t.full(self._extended_shape(), math.inf, dtype=self.scale.dtype)
