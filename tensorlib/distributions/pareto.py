"""The Pareto (type I) distribution: ``scale * exp(E)`` for ``E ~ Exponential(alpha)``."""

from __future__ import annotations

import math
from typing import Any

import tensorlib as _t

from . import constraints
from .exponential import Exponential
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, ExpTransform
from .utils import broadcast_all


class Pareto(TransformedDistribution):
    """Pareto distribution with density ``alpha scale^alpha / x^(alpha + 1)`` on ``x >= scale``."""

    arg_constraints = {"alpha": constraints.positive, "scale": constraints.positive}  # noqa: RUF012

    def __init__(self, scale: Any, alpha: Any, validate_args: bool | None = None) -> None:
        self.scale, self.alpha = broadcast_all(scale, alpha)
        steps = [ExpTransform(), AffineTransform(loc=0, scale=self.scale)]
        super().__init__(Exponential(self.alpha, validate_args=validate_args), steps, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Pareto:
        """This distribution with ``scale`` and ``alpha`` expanded to ``batch_shape``."""
        new = self._get_checked_instance(Pareto, _instance)
        batch_shape = _t.Size(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        new.alpha = self.alpha.expand(batch_shape)
        steps = [ExpTransform(), AffineTransform(loc=0, scale=new.scale)]
        super(Pareto, new).__init__(self.base_dist.expand(batch_shape), steps, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self) -> constraints.Constraint:
        """``[scale, inf)``."""
        return constraints.greater_than_eq(self.scale)

    @property
    def mean(self) -> Any:
        """``alpha scale / (alpha - 1)`` for ``alpha > 1``, infinite otherwise."""
        a = self.alpha.clamp(min=1)
        return _t.where(self.alpha > 1, a * self.scale / (a - 1), _t.full_like(a, math.inf))

    @property
    def mode(self) -> Any:
        """``scale``."""
        return self.scale

    @property
    def variance(self) -> Any:
        """``scale^2 alpha / ((alpha - 1)^2 (alpha - 2))`` for ``alpha > 2``, infinite otherwise."""
        a = self.alpha.clamp(min=2)
        finite = self.scale.pow(2) * a / ((a - 1).pow(2) * (a - 2))
        return _t.where(self.alpha > 2, finite, _t.full_like(finite, math.inf))

    def entropy(self) -> Any:
        """``log(scale / alpha) + 1 / alpha + 1``."""
        return (self.scale / self.alpha).log() + self.alpha.reciprocal() + 1
