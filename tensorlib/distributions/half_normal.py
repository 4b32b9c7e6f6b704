"""The half-normal distribution: ``|X|`` for a centred normal ``X``."""

from __future__ import annotations

import math
from typing import Any

import tensorlib as _t

from . import constraints
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import AbsTransform

_LOG_2 = math.log(2.0)


class _FoldedAtZero(TransformedDistribution):
    """``|X|`` for a distribution of ``X`` symmetric about 0: twice its density on ``[0, inf)``.

    Subclasses give the symmetric base (with a ``scale``) to ``__init__``; the
    folded density, distribution function, quantile and entropy follow from it.
    """

    arg_constraints = {"scale": constraints.positive}  # noqa: RUF012
    support = constraints.nonnegative
    has_rsample = True

    @property
    def scale(self) -> Any:
        """The scale of the underlying symmetric distribution."""
        return self.base_dist.scale  # type: ignore[attr-defined]

    @property
    def mode(self) -> Any:
        """Zero."""
        return _t.zeros_like(self.scale)

    def log_prob(self, value: Any) -> Any:
        """Twice the base density on ``[0, inf)``; ``-inf`` below 0."""
        if self._validate_args:
            self._validate_sample(value)
        value = _t.as_tensor(value, dtype=self.scale.dtype)
        folded = self.base_dist.log_prob(value) + _LOG_2
        return _t.where(value >= 0, folded, _t.full_like(folded, -math.inf))

    def cdf(self, value: Any) -> Any:
        """``P(|X| <= v) = 2 F(v) - 1`` with ``F`` the base distribution function."""
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob: Any) -> Any:
        """The base quantile of ``(1 + p) / 2``."""
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self) -> Any:
        """The base entropy less ``log 2`` (half of the mass, twice the density)."""
        return self.base_dist.entropy() - _LOG_2


class HalfNormal(_FoldedAtZero):
    """``|X|`` for ``X ~ Normal(0, scale)``: the normal density folded onto ``[0, inf)``."""

    def __init__(self, scale: Any, validate_args: bool | None = None) -> None:
        super().__init__(Normal(0, scale, validate_args=False), AbsTransform(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> HalfNormal:
        """This distribution with its batch expanded to ``batch_shape``."""
        new = self._get_checked_instance(HalfNormal, _instance)
        return super().expand(batch_shape, _instance=new)  # type: ignore[return-value]

    @property
    def mean(self) -> Any:
        """``scale * sqrt(2 / pi)``."""
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def variance(self) -> Any:
        """``scale^2 (1 - 2 / pi)``."""
        return self.scale.pow(2) * (1 - 2 / math.pi)
