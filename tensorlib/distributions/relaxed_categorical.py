"""Relaxed one-hot categorical distributions: the Concrete / Gumbel-softmax family."""

from __future__ import annotations

from typing import Any

import tensorlib as _t

from . import constraints
from .categorical import Categorical
from .distribution import Distribution
from .independent import _expand_dist
from .relaxed_bernoulli import RelaxedParameters
from .transformed_distribution import TransformedDistribution
from .transforms import ExpTransform
from .utils import clamp_probs


class ExpRelaxedCategorical(Distribution):
    """The log of a relaxed one-hot categorical: ``log_softmax((logits + Gumbel noise) / temperature)``.

    Values are log-probability vectors (the ExpConcrete distribution); give
    exactly one of ``probs`` and ``logits``.
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}  # noqa: RUF012
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, temperature: Any, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:
        self._categorical = Categorical(probs, logits)
        self.temperature = temperature
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> ExpRelaxedCategorical:
        """This distribution with its parameters expanded to ``batch_shape``."""
        new = self._get_checked_instance(ExpRelaxedCategorical, _instance)
        batch_shape = _t.Size(batch_shape)
        new.temperature = self.temperature
        new._categorical = _expand_dist(self._categorical, batch_shape)
        super(ExpRelaxedCategorical, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args: Any, **kwargs: Any) -> Any:
        return self._categorical.probs.new(*args, **kwargs)

    @property
    def param_shape(self) -> _t.Size:
        """The shape of the given parameter."""
        return self._categorical.param_shape

    @property
    def logits(self) -> Any:
        """The normalised log-probabilities."""
        return self._categorical.logits

    @property
    def probs(self) -> Any:
        """The probabilities."""
        return self._categorical.probs

    def rsample(self, sample_shape: Any = ()) -> Any:
        """``log_softmax((logits + G) / temperature)`` with ``G`` standard Gumbel noise."""
        shape = self._extended_shape(sample_shape)
        u = clamp_probs(_t.rand(shape, dtype=self.logits.dtype))
        gumbel = -(-u.log()).log()
        scores = (self.logits + gumbel) / self.temperature
        return scores - scores.logsumexp(dim=-1, keepdim=True)

    def log_prob(self, value: Any) -> Any:
        """The ExpConcrete log-density ``log (K-1)! + (K-1) log t + sum_k (s_k - logsumexp(s))``, ``s = logits - t * value``."""
        k = self._categorical._num_events
        if self._validate_args:
            self._validate_sample(value)
        temperature = _t.as_tensor(self.temperature, dtype=self.logits.dtype)
        normaliser = _t.full_like(temperature, float(k)).lgamma() + (k - 1) * temperature.log()
        scores = self.logits - value * temperature
        return (scores - scores.logsumexp(dim=-1, keepdim=True)).sum(-1) + normaliser


class RelaxedOneHotCategorical(RelaxedParameters, TransformedDistribution):
    """A relaxed one-hot categorical on the simplex: ``exp`` of an :class:`ExpRelaxedCategorical` variable."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}  # noqa: RUF012
    support = constraints.simplex
    has_rsample = True

    def __init__(self, temperature: Any, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:
        base = ExpRelaxedCategorical(temperature, probs, logits, validate_args=validate_args)
        super().__init__(base, ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> RelaxedOneHotCategorical:
        """This distribution with its batch expanded to ``batch_shape``."""
        new = self._get_checked_instance(RelaxedOneHotCategorical, _instance)
        return super().expand(batch_shape, _instance=new)  # type: ignore[return-value]
