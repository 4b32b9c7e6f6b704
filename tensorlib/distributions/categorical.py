"""The categorical distribution over ``0 .. K-1``."""

from __future__ import annotations

from typing import Any

import tensorlib as _t

from . import constraints
from .distribution import Distribution
from .utils import logits_to_probs, probs_to_logits


class Categorical(Distribution):
    """One of ``K`` categories, with (unnormalised) ``probs`` or ``logits`` over the last dim. Give exactly one."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True

    def __init__(self, probs: Any = None, logits: Any = None, validate_args: bool | None = None) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
            param = self.probs
        else:
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
            param = self.logits
        self._num_events = param.shape[-1]
        super().__init__(param.shape[:-1], validate_args=validate_args)


    def expand(self, batch_shape: Any, _instance: Any = None) -> Categorical:
        """This distribution with its parameter (``probs`` or ``logits``) expanded to ``batch_shape``."""
        new = self._get_checked_instance(Categorical, _instance)
        batch_shape = _t.Size(batch_shape)
        for name in ("probs", "logits"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(tuple(batch_shape) + (self._num_events,)))
        new._num_events = self._num_events
        super(Categorical, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def __getattr__(self, name: str) -> Any:
        if name == "probs" and "logits" in self.__dict__:
            value = self.__dict__["probs"] = logits_to_probs(self.__dict__["logits"])
            return value
        if name == "logits" and "probs" in self.__dict__:
            value = self.__dict__["logits"] = probs_to_logits(self.__dict__["probs"])
            return value
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    @property
    def support(self) -> constraints.Constraint:  # type: ignore[override]
        return constraints.integer_interval(0, self._num_events - 1)

    @property
    def param_shape(self) -> _t.Size:
        return self.probs.shape

    @property
    def mean(self) -> Any:
        return _t.full(self._extended_shape(), float("nan"), dtype=self.probs.dtype)

    @property
    def mode(self) -> Any:
        return self.probs.argmax(dim=-1)

    @property
    def variance(self) -> Any:
        return _t.full(self._extended_shape(), float("nan"), dtype=self.probs.dtype)

    def sample(self, sample_shape: Any = ()) -> Any:
        shape = self._extended_shape(sample_shape)
        n = 1
        for s in sample_shape:
            n *= s
        with _t.no_grad():
            flat = self.probs.reshape(-1, self._num_events)
            draws = _t.multinomial(flat, n, replacement=True).t()  # (n, batch)
        return draws.reshape(shape)

    def log_prob(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        value = value.long().unsqueeze(-1)
        value, log_pmf = _t.broadcast_tensors(value, self.logits)
        return log_pmf.gather(-1, value[..., :1]).squeeze(-1)

    def entropy(self) -> Any:
        # 0 * log 0 counts as 0: clamp the logits to the smallest finite value of their dtype
        logits = self.logits.clamp(min=_t.finfo(self.logits.dtype).min)
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand: bool = True) -> Any:
        """The values ``0 .. K-1``, shaped ``(K,) + batch_shape`` (or ``(K, 1, ...)`` without ``expand``)."""
        values = _t.arange(self._num_events).view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + tuple(self._batch_shape)) if expand else values
