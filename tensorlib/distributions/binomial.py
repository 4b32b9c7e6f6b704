"""The binomial distribution: successes among ``total_count`` independent trials."""

from __future__ import annotations

from typing import Any

import tensorlib as _t

from . import constraints
from .distribution import Distribution
from .utils import BinaryParameters, copy_expanded, set_count_and_probs


def _log1p_exp(x: Any) -> Any:
    """``log(1 + exp(x))`` without overflow for large ``x``."""
    return _t.logaddexp(_t.zeros_like(x), x)


class Binomial(BinaryParameters, Distribution):
    """Successes in ``total_count`` trials, each succeeding with ``probs`` (or ``sigmoid(logits)``)."""

    total_count: Any
    arg_constraints = {  # noqa: RUF012
        "total_count": constraints.nonnegative_integer,
        "probs": constraints.unit_interval,
        "logits": constraints.real,
    }
    has_enumerate_support = True

    def __init__(self, total_count: Any = 1, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:
        given = set_count_and_probs(self, total_count, probs, logits)
        super().__init__(given.shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Binomial:
        """This distribution with its parameters expanded to ``batch_shape``."""
        shape = _t.Size(batch_shape)
        new = self._get_checked_instance(Binomial, _instance)
        copy_expanded(self, new, ("total_count", "probs", "logits"), shape)
        super(Binomial, new).__init__(shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self) -> constraints.Constraint:
        """The integers ``0 .. total_count``."""
        return constraints.integer_interval(0, self.total_count)

    @property
    def param_shape(self) -> _t.Size:
        """The shape of ``probs``."""
        return self.probs.shape

    @property
    def mean(self) -> Any:
        """``n p``."""
        return self.total_count * self.probs

    @property
    def mode(self) -> Any:
        """``floor((n + 1) p)``, at most ``n``."""
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self) -> Any:
        """``n p (1 - p)``."""
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape: Any = ()) -> Any:
        """Binomial counts of shape ``sample_shape + batch_shape`` (no gradient)."""
        shape = self._extended_shape(sample_shape)
        with _t.no_grad():
            return _t.binomial(self.total_count.expand(shape), self.probs.expand(shape))

    def log_prob(self, value: Any) -> Any:
        """``log C(n, k) + k log p + (n - k) log(1 - p)``, computed from the logits."""
        if self._validate_args:
            self._validate_sample(value)
        n, k = self.total_count, value
        log_choose = _t.lgamma(n + 1) - _t.lgamma(k + 1) - _t.lgamma(n - k + 1)
        # k log p + (n - k) log(1 - p) = k * logit - n * log(1 + exp(logit)); where n is 0 every term is 0
        logits = self.logits
        weighted = k * logits - n * _log1p_exp(logits)
        weighted = _t.where((n == 0) & (k == 0), _t.zeros_like(weighted), weighted)
        return log_choose + weighted

    def entropy(self) -> Any:
        """``-sum_k P(k) log P(k)`` over the support (one ``total_count`` for the whole batch)."""
        n = int(self.total_count.max())
        if not bool((self.total_count == n).all()):
            raise NotImplementedError("Inhomogeneous total count not supported by `entropy`.")
        lp = self.log_prob(self.enumerate_support(expand=False))
        return -(lp.exp() * lp).sum(0)

    def enumerate_support(self, expand: bool = True) -> Any:
        """The values ``0 .. n``, shaped ``(n + 1,) + batch_shape`` (or ``(n + 1, 1, ...)`` without ``expand``)."""
        n = int(self.total_count.max())
        if not bool((self.total_count == n).all()):
            raise NotImplementedError("Inhomogeneous total count not supported by `enumerate_support`.")
        values = _t.arange(1 + n, dtype=self.total_count.dtype).view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + tuple(self._batch_shape)) if expand else values
