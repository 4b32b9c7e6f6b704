"""The Gumbel (type-I extreme value) distribution."""

from __future__ import annotations

import math
from typing import Any

import tensorlib as _t

from . import constraints
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, ExpTransform
from .uniform import Uniform
from .utils import broadcast_all

_EULER_GAMMA = 0.57721566490153286060651209008240243


class Gumbel(TransformedDistribution):
    """Gumbel distribution with location ``loc`` and scale ``scale``: ``loc - scale * log(-log U)``."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}  # noqa: RUF012
    support = constraints.real

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        info = _t.finfo(self.loc.dtype)
        # U stays inside (0, 1) so that both logarithms are finite
        uniform = Uniform(_t.full_like(self.loc, info.tiny), _t.full_like(self.loc, 1 - info.eps),
                          validate_args=validate_args)
        chain = [
            ExpTransform().inv,  # log U < 0
            AffineTransform(loc=0, scale=-_t.ones_like(self.scale)),  # -log U > 0
            ExpTransform().inv,  # log(-log U)
            AffineTransform(loc=self.loc, scale=-self.scale),  # loc - scale * log(-log U)
        ]
        super().__init__(uniform, chain, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Gumbel:
        """This distribution with its batch expanded to ``batch_shape``."""
        new = self._get_checked_instance(Gumbel, _instance)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        return super().expand(batch_shape, _instance=new)  # type: ignore[return-value]

    def log_prob(self, value: Any) -> Any:
        """``-log(scale) - z - exp(-z)`` with ``z = (value - loc) / scale``."""
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        return -self.scale.log() - z - (-z).exp()

    @property
    def mean(self) -> Any:
        """``loc + scale * euler_gamma``."""
        return self.loc + self.scale * _EULER_GAMMA

    @property
    def mode(self) -> Any:
        """``loc``."""
        return self.loc

    @property
    def stddev(self) -> Any:
        """``pi / sqrt(6) * scale``."""
        return (math.pi / math.sqrt(6)) * self.scale

    @property
    def variance(self) -> Any:
        """``pi^2 / 6 * scale^2``."""
        return self.stddev.pow(2)

    def entropy(self) -> Any:
        """``log(scale) + 1 + euler_gamma``."""
        return self.scale.log() + (1 + _EULER_GAMMA)
