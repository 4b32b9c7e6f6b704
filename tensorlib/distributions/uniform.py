"""The continuous uniform distribution on ``[low, high)``."""

from __future__ import annotations

from typing import Any

import tensorlib as _t

from . import constraints
from .distribution import Distribution
from .utils import broadcast_all


class Uniform(Distribution):
    """Uniform distribution on the half-open interval ``[low, high)`` (both broadcast)."""

    arg_constraints = {"low": constraints.real, "high": constraints.real}  # and low < high, checked below
    has_rsample = True

    def __init__(self, low: Any, high: Any, validate_args: bool | None = None) -> None:
        self.low, self.high = broadcast_all(low, high)
        super().__init__(self.low.shape, validate_args=validate_args)


    def expand(self, batch_shape: Any, _instance: Any = None) -> Uniform:
        """This distribution with ``low`` and ``high`` expanded (not copied) to ``batch_shape``."""
        new = self._get_checked_instance(Uniform, _instance)
        batch_shape = _t.Size(batch_shape)
        new.low, new.high = self.low.expand(batch_shape), self.high.expand(batch_shape)
        super(Uniform, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _constraints(self) -> dict[str, constraints.Constraint]:
        return {"low": constraints.less_than(self.high), "high": constraints.greater_than(self.low)}

    @property
    def support(self) -> constraints.Constraint:  # type: ignore[override]
        return constraints.half_open_interval(self.low, self.high)

    @property
    def mean(self) -> Any:
        return (self.high + self.low) / 2

    @property
    def mode(self) -> Any:
        return _t.full_like(self.high, float("nan"))

    @property
    def stddev(self) -> Any:
        return (self.high - self.low) / 12**0.5

    @property
    def variance(self) -> Any:
        return (self.high - self.low).pow(2) / 12

    def rsample(self, sample_shape: Any = ()) -> Any:
        shape = self._extended_shape(sample_shape)
        u = _t.rand(shape, dtype=self.low.dtype)
        return self.low + u * (self.high - self.low)

    def log_prob(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        inside = (self.low <= value).type_as(self.low) * (value < self.high).type_as(self.low)
        return inside.log() - (self.high - self.low).log()

    def cdf(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        return ((value - self.low) / (self.high - self.low)).clamp(min=0, max=1)

    def icdf(self, value: Any) -> Any:
        return value * (self.high - self.low) + self.low

    def entropy(self) -> Any:
        return (self.high - self.low).log()
