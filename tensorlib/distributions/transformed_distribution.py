"""``TransformedDistribution``: a base distribution pushed through a chain of transforms."""

from __future__ import annotations

from typing import Any

import tensorlib as _t

from . import constraints
from .distribution import Distribution
from .independent import Independent, _expand_dist
from .transforms import ComposeTransform, Transform


def _sum_last(value: Any, ndims: int) -> Any:
    """``value`` summed over its last ``ndims`` dims (a number is returned unchanged)."""
    if ndims == 0 or not isinstance(value, _t.Tensor):
        return value
    return value.reshape(tuple(value.shape[: value.dim() - ndims]) + (-1,)).sum(-1)


class TransformedDistribution(Distribution):
    """The distribution of ``f_n(... f_1(x))`` for ``x`` drawn from ``base_distribution``.

    Its density follows from the change of variables: the base log-density of
    the pulled-back value minus the log-Jacobians of every transform. When the
    transforms need more event dims than the base has, the base is wrapped in
    :class:`Independent`; when they broadcast it to a larger batch, it is expanded.
    """

    arg_constraints: dict[str, constraints.Constraint] = {}  # noqa: RUF012

    def __init__(self, base_distribution: Distribution, transforms: Transform | list[Transform],
                 validate_args: bool | None = None) -> None:
        if isinstance(transforms, Transform):
            self.transforms = [transforms]
        elif isinstance(transforms, list):
            if not all(isinstance(t, Transform) for t in transforms):
                raise ValueError("transforms must be a Transform or a list of Transforms")
            self.transforms = list(transforms)
        else:
            raise ValueError(f"transforms must be a Transform or list, but was {transforms}")  # noqa: TRY004

        base_shape = _t.Size(tuple(base_distribution.batch_shape) + tuple(base_distribution.event_shape))
        base_event_dim = len(base_distribution.event_shape)
        chain = ComposeTransform(self.transforms)
        if len(base_shape) < chain.domain.event_dim:
            raise ValueError(f"base_distribution needs to have shape with size at least {chain.domain.event_dim}, "
                             f"but got {base_shape}.")
        out_shape = chain.forward_shape(base_shape)
        needed_base_shape = chain.inverse_shape(out_shape)
        if tuple(needed_base_shape) != tuple(base_shape):
            # the transforms broadcast their input: sample the base at the larger batch
            keep = len(needed_base_shape) - base_event_dim
            base_distribution = _expand_dist(base_distribution, tuple(needed_base_shape)[:keep])
        extra = chain.domain.event_dim - base_event_dim
        if extra > 0:
            base_distribution = Independent(base_distribution, extra)
        self.base_dist = base_distribution

        grown = chain.codomain.event_dim - chain.domain.event_dim
        event_dim = max(chain.codomain.event_dim, base_event_dim + grown)
        cut = len(out_shape) - event_dim
        super().__init__(tuple(out_shape)[:cut], tuple(out_shape)[cut:], validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> TransformedDistribution:
        """This distribution with its batch expanded to ``batch_shape`` (the base is expanded to match)."""
        new = self._get_checked_instance(TransformedDistribution, _instance)
        batch_shape = _t.Size(batch_shape)
        shape: Any = _t.Size(tuple(batch_shape) + tuple(self.event_shape))
        for t in reversed(self.transforms):
            shape = t.inverse_shape(shape)
        keep = len(shape) - len(self.base_dist.event_shape)
        new.base_dist = _expand_dist(self.base_dist, tuple(shape)[:keep])
        new.transforms = self.transforms
        super(TransformedDistribution, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=False)
    def support(self) -> constraints.Constraint:
        """The last transform's codomain, widened to the event dims of this distribution."""
        if not self.transforms:
            base_support = self.base_dist.support
            assert base_support is not None
            return base_support
        result = self.transforms[-1].codomain
        if len(self.event_shape) > result.event_dim:
            result = constraints.independent(result, len(self.event_shape) - result.event_dim)
        return result

    @property
    def has_rsample(self) -> bool:  # type: ignore[override]
        """Whether the base distribution is reparameterisable."""
        return self.base_dist.has_rsample

    def sample(self, sample_shape: Any = ()) -> Any:
        """A base sample pushed through the transforms, without gradient."""
        with _t.no_grad():
            x = self.base_dist.sample(sample_shape)
            for t in self.transforms:
                x = t(x)
            return x

    def rsample(self, sample_shape: Any = ()) -> Any:
        """A reparameterised base sample pushed through the transforms."""
        x = self.base_dist.rsample(sample_shape)
        for t in self.transforms:
            x = t(x)
        return x

    def log_prob(self, value: Any) -> Any:
        """The base log-density of the pulled-back value minus the transforms' log-Jacobians."""
        if self._validate_args:
            self._validate_sample(value)
        event_dim = len(self.event_shape)
        result: Any = 0.0
        y = value
        for t in reversed(self.transforms):
            x = t.inv(y)
            event_dim += t.domain.event_dim - t.codomain.event_dim
            result = result - _sum_last(t.log_abs_det_jacobian(x, y), event_dim - t.domain.event_dim)
            y = x
        base = self.base_dist.log_prob(y)
        return result + _sum_last(base, event_dim - len(self.base_dist.event_shape))

    def _orient(self, value: Any) -> Any:
        """A cdf value of the base turned into one of this distribution (``1 - u`` for a decreasing chain)."""
        sign: Any = 1
        for t in self.transforms:
            sign = sign * t.sign
        if isinstance(sign, int) and sign == 1:
            return value
        return sign * (value - 0.5) + 0.5

    def cdf(self, value: Any) -> Any:
        """The cdf, by pulling ``value`` back through monotone transforms."""
        for t in reversed(self.transforms):
            value = t.inv(value)
        if self.base_dist._validate_args:
            self.base_dist._validate_sample(value)
        return self._orient(self.base_dist.cdf(value))

    def icdf(self, value: Any) -> Any:
        """The inverse cdf, by pushing the base quantile through monotone transforms."""
        value = self.base_dist.icdf(self._orient(value))
        for t in self.transforms:
            value = t(value)
        return value
