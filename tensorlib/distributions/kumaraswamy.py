"""The Kumaraswamy distribution on the unit interval."""

from __future__ import annotations

import math
from typing import Any

import tensorlib as _t

from . import constraints
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, PowerTransform
from .uniform import Uniform
from .utils import broadcast_all

_EULER_GAMMA = 0.57721566490153286060651209008240243


def _raw_moment(a: Any, b: Any, n: int) -> Any:
    """``E[X^n] = b * B(1 + n/a, b)`` for ``X ~ Kumaraswamy(a, b)``."""
    shifted = 1 + n / a
    return (b.log() + shifted.lgamma() + b.lgamma() - (shifted + b).lgamma()).exp()


class Kumaraswamy(TransformedDistribution):
    """Kumaraswamy distribution, density ``a b x^(a-1) (1 - x^a)^(b-1)`` with ``a = concentration1``, ``b = concentration0``.

    Sampled in closed form: ``(1 - U^(1/b))^(1/a)`` for ``U`` uniform.
    """

    arg_constraints = {"concentration1": constraints.positive,  # noqa: RUF012
                       "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1: Any, concentration0: Any, validate_args: bool | None = None) -> None:
        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        uniform = Uniform(_t.zeros_like(self.concentration0), _t.ones_like(self.concentration0),
                          validate_args=validate_args)
        chain = [PowerTransform(exponent=self.concentration0.reciprocal()),
                 AffineTransform(loc=1.0, scale=-1.0),
                 PowerTransform(exponent=self.concentration1.reciprocal())]
        super().__init__(uniform, chain, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Kumaraswamy:
        """This distribution with its batch expanded to ``batch_shape``."""
        new = self._get_checked_instance(Kumaraswamy, _instance)
        new.concentration1 = self.concentration1.expand(batch_shape)
        new.concentration0 = self.concentration0.expand(batch_shape)
        return super().expand(batch_shape, _instance=new)  # type: ignore[return-value]

    @property
    def mean(self) -> Any:
        """``b B(1 + 1/a, b)``."""
        return _raw_moment(self.concentration1, self.concentration0, 1)

    @property
    def mode(self) -> Any:
        """``((a - 1) / (a b - 1))^(1/a)``; nan when ``a < 1`` or ``b < 1``."""
        a, b = self.concentration1, self.concentration0
        # the density's stationary point ((a - 1) / (a b - 1))^(1/a), meaningful only for a, b >= 1
        peak = ((a - 1) / (a * b - 1)).pow(a.reciprocal())
        return _t.where((a < 1) | (b < 1), _t.full_like(peak, math.nan), peak)

    @property
    def variance(self) -> Any:
        """The second moment less the squared mean."""
        a, b = self.concentration1, self.concentration0
        return _raw_moment(a, b, 2) - _raw_moment(a, b, 1).pow(2)

    def entropy(self) -> Any:
        """``(1 - 1/b) + (1 - 1/a) H_b - log(a b)``, with ``H_b`` the harmonic number ``digamma(b + 1) + gamma``."""
        a, b = self.concentration1, self.concentration0
        harmonic = _t.digamma(b + 1) + _EULER_GAMMA
        return (1 - b.reciprocal()) + (1 - a.reciprocal()) * harmonic - (a * b).log()
