"""The Poisson distribution over the counts ``0, 1, 2, ...``."""

from __future__ import annotations

from typing import Any

import tensorlib as _t

from . import constraints
from .exp_family import ExponentialFamily
from .utils import broadcast_all


class Poisson(ExponentialFamily):
    """Counts of events that occur independently at average ``rate`` per interval."""

    arg_constraints = {"rate": constraints.nonnegative}  # noqa: RUF012
    support = constraints.nonnegative_integer

    def __init__(self, rate: Any, validate_args: bool | None = None) -> None:
        (self.rate,) = broadcast_all(rate)
        super().__init__(self.rate.shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Poisson:
        """This Poisson with its rate expanded to ``batch_shape``."""
        shape = _t.Size(batch_shape)
        new = self._get_checked_instance(Poisson, _instance)
        new.rate = self.rate.expand(shape)
        super(Poisson, new).__init__(shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self) -> Any:
        """The mean, equal to ``rate``."""
        return self.rate

    @property
    def mode(self) -> Any:
        """The most likely count, ``floor(rate)``."""
        return self.rate.floor()

    @property
    def variance(self) -> Any:
        """The variance, equal to ``rate``."""
        return self.rate

    def sample(self, sample_shape: Any = ()) -> Any:
        """Poisson counts of shape ``sample_shape + batch_shape`` (no gradient)."""
        shape = self._extended_shape(sample_shape)
        with _t.no_grad():
            return _t.poisson(self.rate.expand(shape))

    def log_prob(self, value: Any) -> Any:
        """``k log(rate) - rate - log(k!)``; a zero rate gives the count 0 probability one."""
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return _t.special.xlogy(value, rate) - rate - _t.lgamma(value + 1)

    @property
    def _natural_params(self) -> tuple[Any, ...]:
        return (self.rate.log(),)

    def _log_normalizer(self, *natural_params: Any) -> Any:
        return natural_params[0].exp()
