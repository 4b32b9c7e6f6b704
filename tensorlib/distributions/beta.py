"""The beta distribution on ``[0, 1]``."""

from __future__ import annotations

import numbers
from typing import Any

import tensorlib as _t

from . import constraints
from .dirichlet import Dirichlet
from .exp_family import ExponentialFamily
from .utils import broadcast_all


class Beta(ExponentialFamily):
    """Beta distribution with density proportional to ``x**(concentration1-1) (1-x)**(concentration0-1)``."""

    arg_constraints = {"concentration1": constraints.positive, "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1: Any, concentration0: Any, validate_args: bool | None = None) -> None:
        if isinstance(concentration1, numbers.Real) and isinstance(concentration0, numbers.Real):
            pair = _t.tensor([float(concentration1), float(concentration0)], dtype=_t.get_default_dtype())
        else:
            c1, c0 = broadcast_all(concentration1, concentration0)
            pair = _t.stack([c1, c0], -1)
        # both concentrations side by side in the last dim: a two-category Dirichlet (which also
        # validates them, so an invalid concentration is reported as the Dirichlet's, as in torch)
        self._dirichlet = Dirichlet(pair, validate_args=validate_args)
        super().__init__(pair.shape[:-1], validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Beta:
        """This distribution with its parameters expanded to ``batch_shape``."""
        new = self._get_checked_instance(Beta, _instance)
        batch_shape = _t.Size(batch_shape)
        new._dirichlet = self._dirichlet.expand(batch_shape)
        super(Beta, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def concentration1(self) -> Any:
        """The exponent of ``x`` plus one."""
        return self._dirichlet.concentration[..., 0]

    @property
    def concentration0(self) -> Any:
        """The exponent of ``1 - x`` plus one."""
        return self._dirichlet.concentration[..., 1]

    @property
    def mean(self) -> Any:
        """``a / (a + b)``."""
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self) -> Any:
        """``(a - 1) / (a + b - 2)`` clipped to the support, as the two-category Dirichlet's first coordinate."""
        a, b = self.concentration1, self.concentration0
        ea, eb = (a - 1).clamp(min=0), (b - 1).clamp(min=0)
        inner = ea / (ea + eb)
        return _t.where((a < 1) & (b < 1), _t.ones_like(inner), inner)

    @property
    def variance(self) -> Any:
        """``a b / ((a + b) ** 2 (a + b + 1))``."""
        a, b = self.concentration1, self.concentration0
        total = a + b
        return a * b / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape: Any = ()) -> Any:
        """The first coordinate of a two-category Dirichlet draw (implicit gradient in both concentrations)."""
        return self._dirichlet.rsample(sample_shape)[..., 0]

    def log_prob(self, value: Any) -> Any:
        """``(a - 1) log x + (b - 1) log(1 - x) - log B(a, b)``."""
        if self._validate_args:
            self._validate_sample(value)
        a, b = self.concentration1, self.concentration0
        return _t.xlogy(a - 1, value) + _t.xlogy(b - 1, 1 - value) - self._log_normalizer(a, b)

    def entropy(self) -> Any:
        """``log B(a, b) - (a - 1) digamma(a) - (b - 1) digamma(b) + (a + b - 2) digamma(a + b)``."""
        a, b = self.concentration1, self.concentration0
        return (self._log_normalizer(a, b) - (a - 1) * _t.digamma(a) - (b - 1) * _t.digamma(b)
                + (a + b - 2) * _t.digamma(a + b))

    @property
    def _natural_params(self) -> tuple[Any, ...]:
        return (self.concentration1, self.concentration0)

    def _log_normalizer(self, *natural_params: Any) -> Any:
        a, b = natural_params
        return _t.lgamma(a) + _t.lgamma(b) - _t.lgamma(a + b)
