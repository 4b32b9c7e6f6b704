"""The exponential distribution."""

from __future__ import annotations

from typing import Any

import tensorlib as _t

from . import constraints
from .exp_family import ExponentialFamily
from .utils import broadcast_all


class Exponential(ExponentialFamily):
    """Exponential distribution with density ``rate * exp(-rate * x)`` on ``x >= 0``."""

    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, rate: Any, validate_args: bool | None = None) -> None:
        (self.rate,) = broadcast_all(rate)
        super().__init__(self.rate.shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Exponential:
        """This distribution with ``rate`` expanded to ``batch_shape``."""
        new = self._get_checked_instance(Exponential, _instance)
        batch_shape = _t.Size(batch_shape)
        new.rate = self.rate.expand(batch_shape)
        super(Exponential, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self) -> Any:
        """``1 / rate``."""
        return self.rate.reciprocal()

    @property
    def mode(self) -> Any:
        """Zero: the density is largest at the origin."""
        return _t.zeros_like(self.rate)

    @property
    def stddev(self) -> Any:
        """``1 / rate``."""
        return self.rate.reciprocal()

    @property
    def variance(self) -> Any:
        """``rate ** -2``."""
        return self.rate.pow(-2)

    def rsample(self, sample_shape: Any = ()) -> Any:
        """Unit exponential noise ``-log(1 - u)`` divided by ``rate``."""
        shape = self._extended_shape(sample_shape)
        u = _t.rand(shape, dtype=self.rate.dtype)
        return -(-u).log1p() / self.rate

    def log_prob(self, value: Any) -> Any:
        """``log(rate) - rate * value``."""
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value: Any) -> Any:
        """``1 - exp(-rate * value)``."""
        if self._validate_args:
            self._validate_sample(value)
        return -(-self.rate * value).expm1()

    def icdf(self, value: Any) -> Any:
        """``-log(1 - value) / rate``."""
        return -(-value).log1p() / self.rate

    def entropy(self) -> Any:
        """``1 - log(rate)``."""
        return 1.0 - self.rate.log()

    @property
    def _natural_params(self) -> tuple[Any, ...]:
        return (-self.rate,)

    def _log_normalizer(self, *natural_params: Any) -> Any:
        (eta,) = natural_params
        return -(-eta).log()
