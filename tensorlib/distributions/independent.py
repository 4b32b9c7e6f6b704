"""``Independent``: some batch dims of a distribution reinterpreted as event dims."""

from __future__ import annotations

from typing import Any

import tensorlib as _t

from . import constraints
from .distribution import Distribution


def _sum_last(value: Any, ndims: int) -> Any:
    """``value`` summed over its last ``ndims`` dims."""
    if ndims == 0:
        return value
    return value.reshape(tuple(value.shape[: value.dim() - ndims]) + (-1,)).sum(-1)


def _expand_dist(dist: Distribution, batch_shape: Any) -> Distribution:
    """``dist.expand(batch_shape)``, or ``dist`` itself when its batch already has that shape."""
    batch_shape = _t.Size(batch_shape)
    if tuple(batch_shape) == tuple(dist.batch_shape):
        return dist
    return dist.expand(batch_shape)


class Independent(Distribution):
    """``base_distribution`` with its rightmost ``reinterpreted_batch_ndims`` batch dims made part of the event.

    The log-density of an event is the sum of the base log-densities over those
    dims (the entries are independent); e.g. a batch of ``Normal`` becomes a
    diagonal multivariate normal.
    """

    arg_constraints: dict[str, constraints.Constraint] = {}  # noqa: RUF012

    def __init__(self, base_distribution: Distribution, reinterpreted_batch_ndims: int,
                 validate_args: bool | None = None) -> None:
        base_batch = tuple(base_distribution.batch_shape)
        if reinterpreted_batch_ndims > len(base_batch):
            raise ValueError("Expected reinterpreted_batch_ndims <= len(base_distribution.batch_shape), "
                             f"actual {reinterpreted_batch_ndims} vs {len(base_batch)}")
        full = base_batch + tuple(base_distribution.event_shape)
        cut = len(full) - (reinterpreted_batch_ndims + len(base_distribution.event_shape))
        self.base_dist = base_distribution
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims
        super().__init__(full[:cut], full[cut:], validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Independent:
        """This distribution with its batch expanded to ``batch_shape``."""
        new = self._get_checked_instance(Independent, _instance)
        batch_shape = _t.Size(batch_shape)
        moved = tuple(self.event_shape[: self.reinterpreted_batch_ndims])
        new.base_dist = _expand_dist(self.base_dist, tuple(batch_shape) + moved)
        new.reinterpreted_batch_ndims = self.reinterpreted_batch_ndims
        super(Independent, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def has_rsample(self) -> bool:  # type: ignore[override]
        """Whether the base distribution is reparameterisable."""
        return self.base_dist.has_rsample

    @property
    def has_enumerate_support(self) -> bool:  # type: ignore[override]
        """Only when no dims are reinterpreted (a cartesian product is not enumerated)."""
        if self.reinterpreted_batch_ndims > 0:
            return False
        return self.base_dist.has_enumerate_support

    @constraints.dependent_property
    def support(self) -> constraints.Constraint:
        """The base support, with the reinterpreted dims added to its event."""
        result = self.base_dist.support
        assert result is not None
        if self.reinterpreted_batch_ndims:
            result = constraints.independent(result, self.reinterpreted_batch_ndims)
        return result

    @property
    def mean(self) -> Any:
        """The base distribution's mean."""
        return self.base_dist.mean

    @property
    def mode(self) -> Any:
        """The base distribution's mode."""
        return self.base_dist.mode

    @property
    def variance(self) -> Any:
        """The base distribution's variance."""
        return self.base_dist.variance

    def sample(self, sample_shape: Any = ()) -> Any:
        """A sample of the base distribution (shapes agree)."""
        return self.base_dist.sample(sample_shape)

    def rsample(self, sample_shape: Any = ()) -> Any:
        """A reparameterised sample of the base distribution."""
        return self.base_dist.rsample(sample_shape)

    def log_prob(self, value: Any) -> Any:
        """The base log-density summed over the reinterpreted dims."""
        return _sum_last(self.base_dist.log_prob(value), self.reinterpreted_batch_ndims)

    def entropy(self) -> Any:
        """The base entropy summed over the reinterpreted dims."""
        return _sum_last(self.base_dist.entropy(), self.reinterpreted_batch_ndims)

    def enumerate_support(self, expand: bool = True) -> Any:
        """The base distribution's support values (only when no dims are reinterpreted)."""
        if self.reinterpreted_batch_ndims > 0:
            raise NotImplementedError("Enumeration over cartesian product is not implemented")
        return self.base_dist.enumerate_support(expand=expand)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.base_dist}, {self.reinterpreted_batch_ndims})"
