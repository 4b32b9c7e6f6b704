"""The Bernoulli distribution (one coin flip per batch element)."""

from __future__ import annotations

from typing import Any

import tensorlib as _t

from . import constraints
from .distribution import Distribution
from .utils import broadcast_all
from .utils import logits_to_probs, probs_to_logits


class Bernoulli(Distribution):
    """1 with probability ``probs`` (or ``sigmoid(logits)``), else 0. Give exactly one of the two."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True

    def __init__(self, probs: Any = None, logits: Any = None, validate_args: bool | None = None) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
            param = self.probs
        else:
            (self.logits,) = broadcast_all(logits)
            param = self.logits
        super().__init__(param.shape, validate_args=validate_args)


    def expand(self, batch_shape: Any, _instance: Any = None) -> Bernoulli:
        """This distribution with its parameter (``probs`` or ``logits``) expanded to ``batch_shape``."""
        new = self._get_checked_instance(Bernoulli, _instance)
        batch_shape = _t.Size(batch_shape)
        for name in ("probs", "logits"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(batch_shape))
        super(Bernoulli, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def __getattr__(self, name: str) -> Any:
        # the parameter not given is derived on first use (and kept)
        if name == "probs" and "logits" in self.__dict__:
            value = self.__dict__["probs"] = logits_to_probs(self.__dict__["logits"], is_binary=True)
            return value
        if name == "logits" and "probs" in self.__dict__:
            value = self.__dict__["logits"] = probs_to_logits(self.__dict__["probs"], is_binary=True)
            return value
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    @property
    def param_shape(self) -> _t.Size:
        return self.probs.shape

    @property
    def mean(self) -> Any:
        return self.probs

    @property
    def mode(self) -> Any:
        mode = (self.probs >= 0.5).to(self.probs.dtype)
        mode[self.probs == 0.5] = float("nan")
        return mode

    @property
    def variance(self) -> Any:
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape: Any = ()) -> Any:
        shape = self._extended_shape(sample_shape)
        with _t.no_grad():
            return _t.bernoulli(self.probs.expand(shape))

    def log_prob(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = _t.broadcast_tensors(self.logits, value)
        return -_t.nn.functional.binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self) -> Any:
        return _t.nn.functional.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand: bool = True) -> Any:
        """The values 0 and 1, shaped ``(2,) + batch_shape`` (or ``(2, 1, ...)`` without ``expand``)."""
        values = _t.arange(2, dtype=self.probs.dtype).view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + tuple(self._batch_shape)) if expand else values
