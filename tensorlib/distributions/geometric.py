"""The geometric distribution: failures before the first success."""

from __future__ import annotations

from typing import Any

import tensorlib as _t

from . import constraints
from .distribution import Distribution
from .utils import BinaryParameters, broadcast_all


class Geometric(BinaryParameters, Distribution):
    """Number of failures before the first success of trials succeeding with ``probs`` (or ``sigmoid(logits)``)."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}  # noqa: RUF012
    support = constraints.nonnegative_integer

    def __init__(self, probs: Any = None, logits: Any = None, validate_args: bool | None = None) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
            given = self.probs
        else:
            (self.logits,) = broadcast_all(logits)
            given = self.logits
        super().__init__(given.shape, validate_args=validate_args)
        if self._validate_args and probs is not None:
            # a success probability of 0 leaves nothing to count: it must be strictly positive
            bad = ~(self.probs > 0)
            if bool(bad.any()):
                raise ValueError(
                    f"Expected parameter probs ({type(self.probs).__name__} of shape {tuple(self.probs.shape)}) of "
                    f"distribution {self!r} to be positive but found invalid values:\n{self.probs[bad]}"
                )

    def expand(self, batch_shape: Any, _instance: Any = None) -> Geometric:
        """This distribution with its parameter expanded to ``batch_shape``."""
        shape = _t.Size(batch_shape)
        new = self._get_checked_instance(Geometric, _instance)
        for name in ("probs", "logits"):
            if name in self.__dict__:
                new.__dict__[name] = self.__dict__[name].expand(shape)
        super(Geometric, new).__init__(shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self) -> Any:
        """``(1 - p) / p``."""
        return 1.0 / self.probs - 1.0

    @property
    def mode(self) -> Any:
        """Always 0."""
        return _t.zeros_like(self.probs)

    @property
    def variance(self) -> Any:
        """``(1 - p) / p**2``."""
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape: Any = ()) -> Any:
        """Counts by inversion: ``floor(log U / log(1 - p))`` for uniform ``U`` in ``(0, 1)``."""
        shape = self._extended_shape(sample_shape)
        with _t.no_grad():
            tiny = _t.finfo(self.probs.dtype).tiny
            u = _t.rand(shape, dtype=self.probs.dtype).clamp(min=tiny)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value: Any) -> Any:
        """``k log(1 - p) + log p`` (with ``0 * log 0 = 0`` when ``p = 1``)."""
        if self._validate_args:
            self._validate_sample(value)
        value, p = broadcast_all(value, self.probs)
        failures = _t.where(value == 0, _t.zeros_like(p), value * (-p).log1p())
        return failures + p.log()

    def entropy(self) -> Any:
        """The entropy of one trial divided by ``p``."""
        bce = _t.nn.functional.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")
        return bce / self.probs
