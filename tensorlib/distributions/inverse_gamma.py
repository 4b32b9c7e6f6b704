"""The inverse-gamma distribution: ``1 / X`` for ``X ~ Gamma(concentration, rate)``."""

from __future__ import annotations

import math
from typing import Any

import tensorlib as _t

from . import constraints
from .gamma import Gamma
from .transformed_distribution import TransformedDistribution
from .transforms import PowerTransform


class InverseGamma(TransformedDistribution):
    """Density ``rate^a / Gamma(a) x^(-a - 1) exp(-rate / x)`` on ``x > 0`` (``a`` the concentration)."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}  # noqa: RUF012
    support = constraints.positive
    has_rsample = True

    def __init__(self, concentration: Any, rate: Any, validate_args: bool | None = None) -> None:
        gamma = Gamma(concentration, rate, validate_args=validate_args)
        super().__init__(gamma, PowerTransform(-_t.ones_like(gamma.rate)), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> InverseGamma:
        """This distribution with its batch expanded to ``batch_shape``."""
        new = self._get_checked_instance(InverseGamma, _instance)
        return super().expand(batch_shape, _instance=new)  # type: ignore[return-value]

    @property
    def concentration(self) -> Any:
        """The shape ``a`` of the underlying gamma distribution."""
        return self.base_dist.concentration  # type: ignore[attr-defined]

    @property
    def rate(self) -> Any:
        """The rate of the underlying gamma distribution (the scale of this one)."""
        return self.base_dist.rate  # type: ignore[attr-defined]

    @property
    def mean(self) -> Any:
        """``rate / (a - 1)`` for ``a > 1``, infinite otherwise."""
        a = self.concentration.clamp(min=1)
        return _t.where(self.concentration > 1, self.rate / (a - 1), _t.full_like(a, math.inf))

    @property
    def mode(self) -> Any:
        """``rate / (a + 1)``."""
        return self.rate / (self.concentration + 1)

    @property
    def variance(self) -> Any:
        """``rate^2 / ((a - 1)^2 (a - 2))`` for ``a > 2``, infinite otherwise."""
        a = self.concentration.clamp(min=2)
        finite = self.rate.pow(2) / ((a - 1).pow(2) * (a - 2))
        return _t.where(self.concentration > 2, finite, _t.full_like(finite, math.inf))

    def entropy(self) -> Any:
        """``a + log(rate) + lgamma(a) - (1 + a) digamma(a)``."""
        a = self.concentration
        return a + self.rate.log() + _t.lgamma(a) - (1 + a) * _t.digamma(a)
