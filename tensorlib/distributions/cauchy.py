"""The Cauchy (Lorentz) distribution."""

from __future__ import annotations

import math
from typing import Any

import tensorlib as _t

from . import constraints
from .distribution import Distribution
from .utils import broadcast_all


class Cauchy(Distribution):
    """Cauchy distribution with median ``loc`` and half width at half maximum ``scale``."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(self.loc.shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Cauchy:
        """This distribution with its parameters expanded to ``batch_shape``."""
        new = self._get_checked_instance(Cauchy, _instance)
        batch_shape = _t.Size(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        super(Cauchy, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self) -> Any:
        """Undefined: NaN."""
        return _t.full(self._extended_shape(), float("nan"), dtype=self.loc.dtype)

    @property
    def mode(self) -> Any:
        """``loc``."""
        return self.loc

    @property
    def variance(self) -> Any:
        """Infinite."""
        return _t.full(self._extended_shape(), float("inf"), dtype=self.loc.dtype)

    def rsample(self, sample_shape: Any = ()) -> Any:
        """``loc + scale tan(pi (u - 1/2))`` with ``u`` uniform."""
        shape = self._extended_shape(sample_shape)
        u = _t.rand(shape, dtype=self.loc.dtype)
        return self.loc + self.scale * _t.tan(math.pi * (u - 0.5))

    def log_prob(self, value: Any) -> Any:
        """``-log(pi scale) - log(1 + ((value - loc) / scale) ** 2)``."""
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        return -math.log(math.pi) - self.scale.log() - z.pow(2).log1p()

    def cdf(self, value: Any) -> Any:
        """``atan((value - loc) / scale) / pi + 1/2``."""
        if self._validate_args:
            self._validate_sample(value)
        return _t.atan((value - self.loc) / self.scale) / math.pi + 0.5

    def icdf(self, value: Any) -> Any:
        """``loc + scale tan(pi (p - 1/2))``."""
        return self.loc + self.scale * _t.tan(math.pi * (value - 0.5))

    def entropy(self) -> Any:
        """``log(4 pi scale)``."""
        return math.log(4 * math.pi) + self.scale.log()
