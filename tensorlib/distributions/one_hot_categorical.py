"""The categorical distribution with one-hot encoded values."""

from __future__ import annotations

from typing import Any

import tensorlib as _t

from . import constraints
from .categorical import Categorical
from .distribution import Distribution


def _broadcast_categorical(cat: Categorical, batch_shape: Any) -> Categorical:
    """A ``Categorical`` sharing ``cat``'s parameters, expanded (not copied) to ``batch_shape``."""
    return cat.expand(_t.Size(batch_shape))


class OneHotCategorical(Distribution):
    """One of ``K`` categories as a one-hot vector, with ``probs`` or ``logits`` over the last dim."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}  # noqa: RUF012
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs: Any = None, logits: Any = None, validate_args: bool | None = None) -> None:
        self._categorical = Categorical(probs, logits, validate_args=validate_args)
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def _constraints(self) -> dict[str, constraints.Constraint]:
        return {}  # the inner Categorical has checked the parameters already

    def expand(self, batch_shape: Any, _instance: Any = None) -> OneHotCategorical:
        """This distribution with its parameters expanded to ``batch_shape``."""
        shape = _t.Size(batch_shape)
        new = self._get_checked_instance(OneHotCategorical, _instance)
        new._categorical = _broadcast_categorical(self._categorical, shape)
        super(OneHotCategorical, new).__init__(shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def _param(self) -> Any:
        cat = self._categorical
        return cat.__dict__["probs"] if "probs" in cat.__dict__ else cat.__dict__["logits"]

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
        """The probabilities themselves."""
        return self._categorical.probs

    @property
    def mode(self) -> Any:
        """The one-hot vector of the most likely category."""
        probs = self._categorical.probs
        return _t.nn.functional.one_hot(probs.argmax(-1), probs.shape[-1]).to(probs.dtype)

    @property
    def variance(self) -> Any:
        """``p (1 - p)`` for each coordinate."""
        probs = self._categorical.probs
        return probs * (1 - probs)

    def sample(self, sample_shape: Any = ()) -> Any:
        """One-hot vectors of shape ``sample_shape + batch_shape + (K,)`` (no gradient)."""
        probs = self._categorical.probs
        with _t.no_grad():
            index = self._categorical.sample(sample_shape)
            return _t.nn.functional.one_hot(index, probs.shape[-1]).to(probs.dtype)

    def log_prob(self, value: Any) -> Any:
        """The log-probability of the category marked by each one-hot ``value``."""
        if self._validate_args:
            self._validate_sample(value)
        return self._categorical.log_prob(value.argmax(-1))

    def entropy(self) -> Any:
        """The entropy of the underlying categorical distribution."""
        return self._categorical.entropy()

    def enumerate_support(self, expand: bool = True) -> Any:
        """The ``K`` one-hot vectors, shaped ``(K,) + batch_shape + (K,)`` (or with ones for the batch)."""
        width = self.event_shape[0]
        values = _t.eye(width, dtype=self._param.dtype).view((width,) + (1,) * len(self._batch_shape) + (width,))
        return values.expand((width,) + tuple(self._batch_shape) + (width,)) if expand else values
