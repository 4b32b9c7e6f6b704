"""The half-Cauchy distribution: ``|X|`` for a centred Cauchy ``X``."""

from __future__ import annotations

import math
from typing import Any

import tensorlib as _t

from . import constraints
from .cauchy import Cauchy
from .transformed_distribution import TransformedDistribution
from .transforms import AbsTransform

_LOG_2 = math.log(2.0)


class HalfCauchy(TransformedDistribution):
    """``|X|`` for ``X ~ Cauchy(0, scale)``: the Cauchy density folded onto ``[0, inf)``."""

    arg_constraints = {"scale": constraints.positive}  # noqa: RUF012
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale: Any, validate_args: bool | None = None) -> None:
        super().__init__(Cauchy(0, scale, validate_args=False), AbsTransform(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> HalfCauchy:
        """This distribution with its batch expanded to ``batch_shape``."""
        new = self._get_checked_instance(HalfCauchy, _instance)
        return super().expand(batch_shape, _instance=new)  # type: ignore[return-value]

    @property
    def scale(self) -> Any:
        """The scale of the underlying Cauchy distribution."""
        return self.base_dist.scale  # type: ignore[attr-defined]

    @property
    def mean(self) -> Any:
        """Infinite: the tail is too heavy for a mean."""
        return _t.full(self._extended_shape(), math.inf, dtype=self.scale.dtype)

    @property
    def mode(self) -> Any:
        """Zero."""
        return _t.zeros_like(self.scale)

    @property
    def variance(self) -> Any:
        """Infinite."""
        return _t.full(self._extended_shape(), math.inf, dtype=self.scale.dtype)

    def log_prob(self, value: Any) -> Any:
        """Twice the Cauchy density on ``[0, inf)``; ``-inf`` below 0."""
        if self._validate_args:
            self._validate_sample(value)
        value = _t.as_tensor(value, dtype=self.scale.dtype)
        folded = self.base_dist.log_prob(value) + _LOG_2
        return _t.where(value >= 0, folded, _t.full_like(folded, -math.inf))

    def cdf(self, value: Any) -> Any:
        """``P(|X| <= v) = 2 F(v) - 1`` with ``F`` the Cauchy distribution function."""
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob: Any) -> Any:
        """The Cauchy quantile of ``(1 + p) / 2``."""
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self) -> Any:
        """The Cauchy entropy less ``log 2``."""
        return self.base_dist.entropy() - _LOG_2
