"""The Laplace (double exponential) distribution."""

from __future__ import annotations

import math
from typing import Any

import tensorlib as _t

from . import constraints
from .distribution import Distribution
from .utils import broadcast_all


class Laplace(Distribution):
    """Laplace distribution with density ``exp(-|x - loc| / scale) / (2 scale)``."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(self.loc.shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Laplace:
        """This distribution with its parameters expanded to ``batch_shape``."""
        new = self._get_checked_instance(Laplace, _instance)
        batch_shape = _t.Size(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        super(Laplace, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self) -> Any:
        """``loc``."""
        return self.loc

    @property
    def mode(self) -> Any:
        """``loc``."""
        return self.loc

    @property
    def variance(self) -> Any:
        """``2 scale ** 2``."""
        return 2 * self.scale.pow(2)

    @property
    def stddev(self) -> Any:
        """``sqrt(2) scale``."""
        return math.sqrt(2) * self.scale

    def rsample(self, sample_shape: Any = ()) -> Any:
        """``loc - scale sign(v) log(1 - |v|)`` with ``v`` uniform on ``(-1, 1)``."""
        shape = self._extended_shape(sample_shape)
        eps = _t.finfo(self.loc.dtype).eps
        v = _t.rand(shape, dtype=self.loc.dtype) * 2 - 1
        v = v.clamp(min=-1 + eps, max=1 - eps)  # keep log1p(-|v|) finite
        return self.loc - self.scale * v.sign() * (-v.abs()).log1p()

    def log_prob(self, value: Any) -> Any:
        """``-log(2 scale) - |value - loc| / scale``."""
        if self._validate_args:
            self._validate_sample(value)
        return -(2 * self.scale).log() - (value - self.loc).abs() / self.scale

    def cdf(self, value: Any) -> Any:
        """``1/2 - sign(d) (exp(-|d| / scale) - 1) / 2`` with ``d = value - loc``."""
        if self._validate_args:
            self._validate_sample(value)
        d = value - self.loc
        return 0.5 - 0.5 * d.sign() * (-d.abs() / self.scale).expm1()

    def icdf(self, value: Any) -> Any:
        """``loc - scale sign(p - 1/2) log(1 - 2 |p - 1/2|)``."""
        centred = value - 0.5
        return self.loc - self.scale * centred.sign() * (-2 * centred.abs()).log1p()

    def entropy(self) -> Any:
        """``1 + log(2 scale)``."""
        return 1 + (2 * self.scale).log()
