"""The Weibull distribution: ``scale * E ** (1 / concentration)`` for a standard exponential ``E``."""

from __future__ import annotations

from typing import Any

import tensorlib as _t

from . import constraints
from .exponential import Exponential
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, PowerTransform
from .utils import broadcast_all

_EULER_GAMMA = 0.57721566490153286061


class Weibull(TransformedDistribution):
    """Weibull distribution with density ``(k / s) (x / s)^(k - 1) exp(-(x / s)^k)`` on ``x > 0``."""

    arg_constraints = {"scale": constraints.positive, "concentration": constraints.positive}  # noqa: RUF012
    support = constraints.positive

    def __init__(self, scale: Any, concentration: Any, validate_args: bool | None = None) -> None:
        self.scale, self.concentration = broadcast_all(scale, concentration)
        unit = Exponential(_t.ones_like(self.scale), validate_args=validate_args)
        steps = [PowerTransform(exponent=self.concentration.reciprocal()), AffineTransform(loc=0, scale=self.scale)]
        super().__init__(unit, steps, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Weibull:
        """This distribution with ``scale`` and ``concentration`` expanded to ``batch_shape``."""
        new = self._get_checked_instance(Weibull, _instance)
        batch_shape = _t.Size(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        steps = [PowerTransform(exponent=new.concentration.reciprocal()), AffineTransform(loc=0, scale=new.scale)]
        super(Weibull, new).__init__(self.base_dist.expand(batch_shape), steps, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self) -> Any:
        """``scale * Gamma(1 + 1 / k)``."""
        return self.scale * _t.lgamma(1 + self.concentration.reciprocal()).exp()

    @property
    def mode(self) -> Any:
        """``scale * ((k - 1) / k)^(1 / k)`` for ``k > 1``; 0 otherwise (the density peaks at the origin)."""
        k = self.concentration
        peak = self.scale * ((k - 1) / k).clamp(min=0) ** k.reciprocal()
        return _t.where(k > 1, peak, _t.zeros_like(peak))

    @property
    def variance(self) -> Any:
        """``scale^2 (Gamma(1 + 2 / k) - Gamma(1 + 1 / k)^2)``."""
        inv = self.concentration.reciprocal()
        return self.scale.pow(2) * (_t.lgamma(1 + 2 * inv).exp() - _t.lgamma(1 + inv).exp().pow(2))

    def entropy(self) -> Any:
        """``gamma (1 - 1 / k) + log(scale / k) + 1`` (``gamma``: Euler's constant)."""
        k = self.concentration
        return _EULER_GAMMA * (1 - k.reciprocal()) + (self.scale / k).log() + 1
