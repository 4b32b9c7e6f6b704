"""The Dirichlet distribution on the probability simplex."""

from __future__ import annotations

from typing import Any

import tensorlib as _t

from . import constraints
from ._gamma_sampling import sample_dirichlet
from .exp_family import ExponentialFamily


def _log_multivariate_beta(concentration: Any) -> Any:
    """``log B(c) = sum(lgamma(c)) - lgamma(sum(c))`` over the last dim."""
    return _t.lgamma(concentration).sum(-1) - _t.lgamma(concentration.sum(-1))


class Dirichlet(ExponentialFamily):
    """Dirichlet distribution over the simplex of the last dim, with positive ``concentration``."""

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration: Any, validate_args: bool | None = None) -> None:
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        super().__init__(concentration.shape[:-1], concentration.shape[-1:], validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Dirichlet:
        """This distribution with ``concentration`` expanded to ``batch_shape + event_shape``."""
        new = self._get_checked_instance(Dirichlet, _instance)
        batch_shape = _t.Size(batch_shape)
        new.concentration = self.concentration.expand(batch_shape + self.event_shape)
        super(Dirichlet, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape: Any = ()) -> Any:
        """Normalised standard gamma variates; differentiable in ``concentration``."""
        shape = self._extended_shape(sample_shape)
        return sample_dirichlet(self.concentration.expand(shape))

    def log_prob(self, value: Any) -> Any:
        """``sum((c - 1) log(value)) - log B(c)``."""
        if self._validate_args:
            self._validate_sample(value)
        return _t.xlogy(self.concentration - 1.0, value).sum(-1) - _log_multivariate_beta(self.concentration)

    @property
    def mean(self) -> Any:
        """``c / sum(c)``."""
        return self.concentration / self.concentration.sum(-1, keepdim=True)

    @property
    def mode(self) -> Any:
        """``(c - 1)+ / sum((c - 1)+)``; when every ``c < 1`` the first vertex of the simplex."""
        excess = (self.concentration - 1).clamp(min=0)
        result = excess / excess.sum(-1, keepdim=True)
        all_below_one = (self.concentration < 1).all(-1, keepdim=True)
        first_vertex = _t.zeros_like(result)
        first_vertex[..., 0] = 1
        return _t.where(all_below_one, first_vertex, result)

    @property
    def variance(self) -> Any:
        """``c (c0 - c) / (c0 ** 2 (c0 + 1))`` with ``c0 = sum(c)``."""
        total = self.concentration.sum(-1, keepdim=True)
        return self.concentration * (total - self.concentration) / (total.pow(2) * (total + 1))

    def entropy(self) -> Any:
        """``log B(c) + (c0 - k) digamma(c0) - sum((c - 1) digamma(c))``."""
        c = self.concentration
        k = c.shape[-1]
        total = c.sum(-1)
        return _log_multivariate_beta(c) + (total - k) * _t.digamma(total) - ((c - 1.0) * _t.digamma(c)).sum(-1)

    @property
    def _natural_params(self) -> tuple[Any, ...]:
        return (self.concentration,)

    def _log_normalizer(self, *natural_params: Any) -> Any:
        (c,) = natural_params
        return _log_multivariate_beta(c)
