"""The gamma distribution, with implicitly reparameterised samples."""

from __future__ import annotations

from typing import Any

import tensorlib as _t

from . import constraints
from ._gamma_sampling import standard_gamma
from .exp_family import ExponentialFamily
from .utils import broadcast_all


class Gamma(ExponentialFamily):
    """Gamma distribution with shape ``concentration`` and inverse scale ``rate``."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, concentration: Any, rate: Any, validate_args: bool | None = None) -> None:
        self.concentration, self.rate = broadcast_all(concentration, rate)
        super().__init__(self.concentration.shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Gamma:
        """This distribution with its parameters expanded to ``batch_shape``."""
        new = self._get_checked_instance(Gamma, _instance)
        batch_shape = _t.Size(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        new.rate = self.rate.expand(batch_shape)
        super(Gamma, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self) -> Any:
        """``concentration / rate``."""
        return self.concentration / self.rate

    @property
    def mode(self) -> Any:
        """``(concentration - 1) / rate``, or 0 when ``concentration < 1``."""
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self) -> Any:
        """``concentration / rate ** 2``."""
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape: Any = ()) -> Any:
        """Standard gamma variates (implicit gradient in ``concentration``) divided by ``rate``."""
        shape = self._extended_shape(sample_shape)
        unit = standard_gamma(self.concentration.expand(shape))
        return unit / self.rate.expand(shape)

    def log_prob(self, value: Any) -> Any:
        """``a log(rate) + (a - 1) log(value) - rate value - lgamma(a)`` with ``a = concentration``."""
        value = _t.as_tensor(value, dtype=self.rate.dtype)
        if self._validate_args:
            self._validate_sample(value)
        a = self.concentration
        return _t.xlogy(a, self.rate) + _t.xlogy(a - 1, value) - self.rate * value - _t.lgamma(a)

    def entropy(self) -> Any:
        """``a - log(rate) + lgamma(a) + (1 - a) digamma(a)``."""
        a = self.concentration
        return a - self.rate.log() + _t.lgamma(a) + (1.0 - a) * _t.digamma(a)

    def cdf(self, value: Any) -> Any:
        """The regularised lower incomplete gamma function ``P(concentration, rate * value)``."""
        if self._validate_args:
            self._validate_sample(value)
        return _t.special.gammainc(self.concentration, self.rate * value)

    @property
    def _natural_params(self) -> tuple[Any, ...]:
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, *natural_params: Any) -> Any:
        shape_minus_one, neg_rate = natural_params
        return _t.lgamma(shape_minus_one + 1) - (shape_minus_one + 1) * (-neg_rate).log()
