"""The multinomial distribution: category counts of ``total_count`` independent categorical draws."""

from __future__ import annotations

from typing import Any

import tensorlib as _t

from . import constraints
from .binomial import Binomial
from .categorical import Categorical
from .distribution import Distribution
from .one_hot_categorical import _broadcast_categorical


class Multinomial(Distribution):
    """Counts per category after ``total_count`` draws with ``probs`` (or ``logits``) over the last dim."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}  # noqa: RUF012

    def __init__(self, total_count: int = 1, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits, validate_args=validate_args)
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def _constraints(self) -> dict[str, constraints.Constraint]:
        return {}  # the inner Categorical has checked the parameters already

    def expand(self, batch_shape: Any, _instance: Any = None) -> Multinomial:
        """This distribution with its parameters expanded to ``batch_shape``."""
        shape = _t.Size(batch_shape)
        new = self._get_checked_instance(Multinomial, _instance)
        new.total_count = self.total_count
        new._categorical = _broadcast_categorical(self._categorical, shape)
        super(Multinomial, new).__init__(shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self) -> constraints.Constraint:
        """Non-negative count vectors summing to at most ``total_count``."""
        return constraints.multinomial(self.total_count)

    @property
    def probs(self) -> Any:
        """The (normalised) probability of each category."""
        return self._categorical.probs

    @property
    def logits(self) -> Any:
        """The (normalised) log-probability of each category."""
        return self._categorical.logits

    @property
    def param_shape(self) -> _t.Size:
        """The shape of ``probs``."""
        return self._categorical.param_shape

    @property
    def mean(self) -> Any:
        """``n p``."""
        return self.probs * self.total_count

    @property
    def variance(self) -> Any:
        """``n p (1 - p)`` for each category."""
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape: Any = ()) -> Any:
        """Count vectors of shape ``sample_shape + batch_shape + (K,)`` (no gradient)."""
        sample_shape = _t.Size(sample_shape)
        width = self.event_shape[0]
        probs = self.probs
        with _t.no_grad():
            draws = self._categorical.sample((self.total_count,) + tuple(sample_shape))
            counts = _t.nn.functional.one_hot(draws, width).to(probs.dtype).sum(0)
            return counts.reshape(self._extended_shape(sample_shape))

    def log_prob(self, value: Any) -> Any:
        """``log(n!) - sum_i log(x_i!) + sum_i x_i log p_i`` (a zero count ignores its probability)."""
        if self._validate_args:
            self._validate_sample(value)
        logits, value = _t.broadcast_tensors(self.logits, value)
        terms = _t.where(value == 0, _t.zeros_like(logits), value * logits)
        log_coef = _t.lgamma(value.sum(-1) + 1) - _t.lgamma(value + 1).sum(-1)
        return log_coef + terms.sum(-1)

    def entropy(self) -> Any:
        """``-log(n!) - n sum_i p_i log p_i + sum_i E[log(x_i!)]``, each ``x_i`` binomial with ``(n, p_i)``."""
        n = self.total_count
        probs = self.probs
        marginal = Binomial(_t.tensor(float(n), dtype=probs.dtype), probs, validate_args=False)
        counts = marginal.enumerate_support(expand=False)  # (n + 1, 1, ..., 1)
        pmf = marginal.log_prob(counts).exp()
        expected_log_fact = (pmf * _t.lgamma(counts + 1)).sum(0).sum(-1)
        logits = self.logits.clamp(min=_t.finfo(probs.dtype).min)
        return -_t.lgamma(_t.tensor(n + 1.0, dtype=probs.dtype)) - n * (probs * logits).sum(-1) + expected_log_fact
