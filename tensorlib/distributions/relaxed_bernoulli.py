"""Relaxed (continuous) Bernoulli distributions: the binary Concrete / Gumbel-softmax family."""

from __future__ import annotations

import numbers
from typing import Any

import tensorlib as _t

from . import constraints
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import SigmoidTransform
from .utils import broadcast_all, clamp_probs, lazy_property, logits_to_probs, probs_to_logits


class LogitRelaxedBernoulli(Distribution):
    """The logit of a relaxed Bernoulli: ``(logits + logistic noise) / temperature``.

    A logistic variable with location ``logits / temperature`` and scale
    ``1 / temperature``; give exactly one of ``probs`` and ``logits``.
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}  # noqa: RUF012
    support = constraints.real

    def __init__(self, temperature: Any, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:
        self.temperature = temperature
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        given = probs if probs is not None else logits
        scalar = isinstance(given, numbers.Number)
        (param,) = broadcast_all(given)
        if probs is not None:
            self.probs = param
        else:
            self.logits = param
        self._param = param
        super().__init__(_t.Size() if scalar else param.shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> LogitRelaxedBernoulli:
        """This distribution with its parameters expanded to ``batch_shape``."""
        new = self._get_checked_instance(LogitRelaxedBernoulli, _instance)
        batch_shape = _t.Size(batch_shape)
        new.temperature = self.temperature
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(batch_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(batch_shape)
            new._param = new.logits
        super(LogitRelaxedBernoulli, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args: Any, **kwargs: Any) -> Any:
        return self._param.new(*args, **kwargs)

    @lazy_property
    def logits(self) -> Any:
        """The log-odds, derived from ``probs`` when those were given."""
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> Any:
        """The probabilities, derived from ``logits`` when those were given."""
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self) -> _t.Size:
        """The shape of the given parameter."""
        return self._param.size()

    def rsample(self, sample_shape: Any = ()) -> Any:
        """``(logit(p) + logit(U)) / temperature`` with ``U`` uniform: differentiable in ``probs``."""
        shape = self._extended_shape(sample_shape)
        probs = clamp_probs(self.probs.expand(shape))
        u = clamp_probs(_t.rand(shape, dtype=probs.dtype))
        noise = u.log() - (-u).log1p()
        return (noise + probs.log() - (-probs).log1p()) / self.temperature

    def log_prob(self, value: Any) -> Any:
        """The logistic log-density ``log t + d - 2 log(1 + e^d)`` with ``d = logits - t * value``."""
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        gap = logits - value * self.temperature
        return self.temperature.log() + gap - 2 * _t.nn.functional.softplus(gap)


class RelaxedParameters:
    """``temperature``, ``logits`` and ``probs`` of a relaxed family, read from the distribution it transforms."""

    base_dist: Any

    @property
    def temperature(self) -> Any:
        """The relaxation temperature."""
        return self.base_dist.temperature

    @property
    def logits(self) -> Any:
        """The logits of the underlying discrete distribution."""
        return self.base_dist.logits

    @property
    def probs(self) -> Any:
        """The probabilities of the underlying discrete distribution."""
        return self.base_dist.probs


class RelaxedBernoulli(RelaxedParameters, TransformedDistribution):
    """A relaxed Bernoulli on ``(0, 1)``: ``sigmoid`` of a :class:`LogitRelaxedBernoulli` variable.

    Lower ``temperature`` pushes samples towards 0 and 1; give exactly one of ``probs`` and ``logits``.
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}  # noqa: RUF012
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, temperature: Any, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:
        base = LogitRelaxedBernoulli(temperature, probs, logits, validate_args=validate_args)
        super().__init__(base, SigmoidTransform(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> RelaxedBernoulli:
        """This distribution with its batch expanded to ``batch_shape``."""
        new = self._get_checked_instance(RelaxedBernoulli, _instance)
        return super().expand(batch_shape, _instance=new)  # type: ignore[return-value]
