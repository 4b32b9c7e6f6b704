"""Finite mixtures whose components all belong to one (batched) distribution."""

from __future__ import annotations

from typing import Any

import tensorlib as _t

from . import constraints
from .categorical import Categorical
from .distribution import Distribution
from .one_hot_categorical import _broadcast_categorical


class MixtureSameFamily(Distribution):
    """A mixture choosing the component along the last batch dim of ``component_distribution``.

    ``mixture_distribution`` is a ``Categorical`` over the ``K`` components, with
    batch shape ``B``; ``component_distribution`` has batch shape ``B + (K,)``.
    """

    arg_constraints: dict[str, constraints.Constraint] = {}  # noqa: RUF012
    has_rsample = False

    def __init__(self, mixture_distribution: Categorical, component_distribution: Distribution,
                 validate_args: bool | None = None) -> None:
        if not isinstance(mixture_distribution, Categorical):
            raise ValueError(" The Mixture distribution needs to be an  instance of tensorlib.distributions.Categorical")  # noqa: TRY004
        if not isinstance(component_distribution, Distribution):
            raise ValueError(  # noqa: TRY004  (torch's error type)
                "The Component distribution needs to be an instance of tensorlib.distributions.Distribution")
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        mix_batch = mixture_distribution.batch_shape
        comp_batch = component_distribution.batch_shape[:-1]
        # the mixture's batch dims broadcast against the components' (the missing leading ones count as 1)
        compatible = all(a == b or a == 1 or b == 1 for a, b in zip(reversed(mix_batch), reversed(comp_batch)))
        if not compatible:
            raise ValueError(f"`mixture_distribution.batch_shape` ({mix_batch}) is not compatible with "
                             f"`component_distribution.batch_shape`({comp_batch})")
        n_mix = mixture_distribution.logits.shape[-1]
        n_comp = component_distribution.batch_shape[-1]
        if n_mix != n_comp:
            raise ValueError(f"`mixture_distribution component` ({n_mix}) does not equal "
                             f"`component_distribution.batch_shape[-1]` ({n_comp})")
        self._num_component = n_mix
        event_shape = component_distribution.event_shape
        self._event_ndims = len(event_shape)
        super().__init__(comp_batch, event_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> MixtureSameFamily:
        """This mixture with both its parts expanded to ``batch_shape``."""
        shape = _t.Size(batch_shape)
        new = self._get_checked_instance(MixtureSameFamily, _instance)
        new._component_distribution = self._component_distribution.expand(tuple(shape) + (self._num_component,))
        new._mixture_distribution = _broadcast_categorical(self._mixture_distribution, shape)
        new._num_component = self._num_component
        new._event_ndims = self._event_ndims
        super(MixtureSameFamily, new).__init__(shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property
    def support(self) -> constraints.Constraint:
        """The components' support."""
        base = self._component_distribution.support
        assert base is not None, "the component distribution has no support"
        return constraints.MixtureSameFamilyConstraint(base)

    @property
    def mixture_distribution(self) -> Categorical:
        """The ``Categorical`` choosing the component."""
        return self._mixture_distribution

    @property
    def component_distribution(self) -> Distribution:
        """The batched distribution of the components."""
        return self._component_distribution

    def _weights(self) -> Any:
        """The mixture probabilities, with trailing singleton dims to broadcast against events."""
        probs = self._mixture_distribution.probs
        return probs.reshape(tuple(probs.shape) + (1,) * self._event_ndims)

    def _component_dim(self) -> int:
        return -1 - self._event_ndims

    @property
    def mean(self) -> Any:
        """The probability-weighted mean of the component means."""
        return (self._weights() * self._component_distribution.mean).sum(self._component_dim())

    @property
    def variance(self) -> Any:
        """The law of total variance: mean of the variances plus variance of the means."""
        dim = self._component_dim()
        weights = self._weights()
        comp_means = self._component_distribution.mean
        within = (weights * self._component_distribution.variance).sum(dim)
        spread = (weights * (comp_means - self.mean.unsqueeze(dim)).pow(2)).sum(dim)
        return within + spread

    def cdf(self, value: Any) -> Any:
        """The probability-weighted sum of the component CDFs."""
        value = value.unsqueeze(self._component_dim())
        return (self._component_distribution.cdf(value) * self._mixture_distribution.probs).sum(-1)

    def log_prob(self, value: Any) -> Any:
        """``logsumexp_k(log w_k + log p_k(x))`` over the components."""
        if self._validate_args:
            self._validate_sample(value)
        value = value.unsqueeze(self._component_dim())
        per_component = self._component_distribution.log_prob(value)  # sample + batch + (K,)
        log_weights = _t.log_softmax(self._mixture_distribution.logits, dim=-1)
        return _t.logsumexp(per_component + log_weights, dim=-1)

    def sample(self, sample_shape: Any = ()) -> Any:
        """Draw each component, then keep the one chosen by the mixture (no gradient)."""
        sample_shape = tuple(self._extended_shape(sample_shape)[: len(sample_shape)])
        with _t.no_grad():
            choice = self._mixture_distribution.sample(sample_shape)  # sample + the mixture's batch
            mix_batch = tuple(self._mixture_distribution.batch_shape)
            padded = sample_shape + (1,) * (len(self._batch_shape) - len(mix_batch)) + mix_batch
            choice = choice.reshape(padded).expand(sample_shape + tuple(self._batch_shape))
            draws = self._component_distribution.sample(sample_shape)  # sample + batch + (K,) + event
            index = choice.reshape(tuple(choice.shape) + (1,) * (1 + self._event_ndims))
            index = index.expand(tuple(choice.shape) + (1,) + tuple(self._event_shape))
            return draws.gather(len(choice.shape), index).squeeze(len(choice.shape))

    def __repr__(self) -> str:
        return f"MixtureSameFamily(\n  {self._mixture_distribution},\n  {self._component_distribution})"
