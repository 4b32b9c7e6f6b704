"""The negative binomial distribution: successes before ``total_count`` failures."""

from __future__ import annotations

from typing import Any

import numpy as np

import tensorlib as _t

from . import constraints
from .distribution import Distribution
from .utils import BinaryParameters, copy_expanded, set_count_and_probs


def _softplus(x: Any) -> Any:
    """``log(1 + exp(x))`` without overflow."""
    return _t.logaddexp(_t.zeros_like(x), x)


class NegativeBinomial(BinaryParameters, Distribution):
    """Successes (each trial succeeding with ``probs``) counted until ``total_count`` failures occur."""

    total_count: Any
    arg_constraints = {  # noqa: RUF012
        "total_count": constraints.greater_than_eq(0),
        "probs": constraints.half_open_interval(0.0, 1.0),
        "logits": constraints.real,
    }
    support = constraints.nonnegative_integer

    def __init__(self, total_count: Any, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:
        given = set_count_and_probs(self, total_count, probs, logits)
        super().__init__(given.shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> NegativeBinomial:
        """This distribution with its parameters expanded to ``batch_shape``."""
        shape = _t.Size(batch_shape)
        new = self._get_checked_instance(NegativeBinomial, _instance)
        copy_expanded(self, new, ("total_count", "probs", "logits"), shape)
        super(NegativeBinomial, new).__init__(shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def param_shape(self) -> _t.Size:
        """The shape of ``probs``."""
        return self.probs.shape

    @property
    def mean(self) -> Any:
        """``r e^logits = r p / (1 - p)``."""
        return self.total_count * self.logits.exp()

    @property
    def mode(self) -> Any:
        """``floor((r - 1) p / (1 - p))``, at least 0."""
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self) -> Any:
        """``mean / (1 - p)``, with ``1 - p = sigmoid(-logits)``."""
        return self.mean / _t.sigmoid(-self.logits)

    def sample(self, sample_shape: Any = ()) -> Any:
        """A gamma-Poisson mixture: Poisson counts whose rate is ``Gamma(r) * p / (1 - p)`` (no gradient)."""
        shape = tuple(self._extended_shape(sample_shape))
        with _t.no_grad():
            shape_param = np.broadcast_to(self.total_count.detach().numpy(), shape)
            gammas = _t.default_generator._rng.standard_gamma(shape_param)
            rate = _t.tensor(gammas, dtype=self.probs.dtype) * self.logits.exp()
            return _t.poisson(rate)

    def log_prob(self, value: Any) -> Any:
        """``log C(k + r - 1, k) + r log(1 - p) + k log p``, computed from the logits."""
        if self._validate_args:
            self._validate_sample(value)
        r, logits = self.total_count, self.logits
        weighted = value * logits - (r + value) * _softplus(logits)
        log_choose = _t.lgamma(value + r) - _t.lgamma(value + 1) - _t.lgamma(r)
        # with r = 0 all the mass sits on 0: the coefficient is 1 there (0 elsewhere, by lgamma(0) = inf)
        log_choose = _t.where((r == 0) & (value == 0), _t.zeros_like(log_choose), log_choose)
        return log_choose + weighted
