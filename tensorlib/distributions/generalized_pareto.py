"""The generalized Pareto distribution (the limit law of exceedances over a high threshold)."""

from __future__ import annotations

import math
from typing import Any

import tensorlib as _t

from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

_ZERO_SHAPE_TOL = 1e-8  # a concentration this close to 0 is treated as 0 (the exponential limit)


class GeneralizedPareto(Distribution):
    """Survival function ``(1 + concentration * z)^(-1 / concentration)`` with ``z = (x - loc) / scale``.

    A concentration of 0 gives the exponential tail ``exp(-z)``; a negative one
    bounds the support above by ``loc - scale / concentration``.
    """

    arg_constraints = {  # noqa: RUF012
        "loc": constraints.real,
        "scale": constraints.positive,
        "concentration": constraints.real,
    }
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, concentration: Any, validate_args: bool | None = None) -> None:
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        super().__init__(self.loc.shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> GeneralizedPareto:
        """This distribution with its parameters expanded to ``batch_shape``."""
        shape = _t.Size(batch_shape)
        new = self._get_checked_instance(GeneralizedPareto, _instance)
        new.loc = self.loc.expand(shape)
        new.scale = self.scale.expand(shape)
        new.concentration = self.concentration.expand(shape)
        super(GeneralizedPareto, new).__init__(shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self) -> constraints.Constraint:
        """``[loc, loc - scale / concentration]`` for a negative concentration, ``[loc, inf)`` otherwise."""
        upper = _t.where(self.concentration < 0, self.loc - self.scale / self.concentration,
                         _t.full_like(self.loc, math.inf))
        return constraints.interval(self.loc, upper)

    def _split(self) -> tuple[Any, Any]:
        """Where the concentration counts as 0, and the concentration with those entries set to 1 (safe to divide)."""
        near_zero = self.concentration.abs() <= _ZERO_SHAPE_TOL
        safe = _t.where(near_zero, _t.ones_like(self.concentration), self.concentration)
        return near_zero, safe

    def _z(self, value: Any) -> Any:
        return (value - self.loc) / self.scale

    def _inside(self, value: Any) -> Any:
        upper = _t.where(self.concentration < 0, self.loc - self.scale / self.concentration,
                         _t.full_like(self.loc, math.inf))
        return (value >= self.loc) & (value <= upper)

    def log_survival_function(self, value: Any) -> Any:
        """``log P(X > x) = -log1p(c z) / c`` (``-z`` for ``c = 0``)."""
        z = self._z(value)
        near_zero, c = self._split()
        inside = self._inside(value)
        safe_z = _t.where(inside, z, _t.zeros_like(z))
        general = -(c * safe_z).log1p() / c
        result = _t.where(near_zero, -safe_z, general)
        below = value < self.loc
        result = _t.where(below, _t.zeros_like(result), result)
        return _t.where(inside | below, result, _t.full_like(result, -math.inf))

    def log_cdf(self, value: Any) -> Any:
        """``log P(X <= x) = log(1 - exp(log_survival_function(x)))``."""
        return (-self.log_survival_function(value).exp()).log1p()

    def log_prob(self, value: Any) -> Any:
        """``-log(scale) - (1 + 1/c) log1p(c z)`` (``-log(scale) - z`` for ``c = 0``); ``-inf`` off the support."""
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        near_zero, c = self._split()
        inside = self._inside(value)
        safe_z = _t.where(inside, z, _t.zeros_like(z))
        general = -(1 + 1 / c) * (c * safe_z).log1p()
        result = _t.where(near_zero, -safe_z, general) - self.scale.log()
        return _t.where(inside, result, _t.full_like(result, -math.inf))

    def cdf(self, value: Any) -> Any:
        """``1 - (1 + c z)^(-1/c)``: 0 below ``loc``, 1 above the support."""
        if self._validate_args:
            self._validate_sample(value)
        tail = self.log_survival_function(value)
        return _t.zeros_like(tail) - tail.expm1()  # (0 - 0 keeps the zero below loc positive)

    def icdf(self, value: Any) -> Any:
        """``loc + scale * ((1 - u)^(-c) - 1) / c`` (``loc - scale * log(1 - u)`` for ``c = 0``)."""
        near_zero, c = self._split()
        log_tail = (-value).log1p()
        general = (-c * log_tail).expm1() / c
        return self.loc + self.scale * _t.where(near_zero, -log_tail, general)

    def rsample(self, sample_shape: Any = ()) -> Any:
        """``icdf(U)`` for uniform ``U``: differentiable in the parameters."""
        shape = self._extended_shape(sample_shape)
        u = _t.rand(shape, dtype=self.loc.dtype)
        return self.icdf(u)

    @property
    def mean(self) -> Any:
        """``loc + scale / (1 - c)`` for ``c < 1`` (nan otherwise)."""
        finite = self.concentration < 1
        safe = _t.where(finite, self.concentration, _t.zeros_like(self.concentration))
        result = self.loc + self.scale / (1 - safe)
        return _t.where(finite, result, _t.full_like(result, math.nan))

    @property
    def mode(self) -> Any:
        """The mode, ``loc``."""
        return self.loc

    @property
    def variance(self) -> Any:
        """``scale^2 / ((1 - c)^2 (1 - 2c))`` for ``c < 1/2`` (nan otherwise)."""
        finite = self.concentration < 0.5
        safe = _t.where(finite, self.concentration, _t.zeros_like(self.concentration))
        result = self.scale.pow(2) / ((1 - safe).pow(2) * (1 - 2 * safe))
        return _t.where(finite, result, _t.full_like(result, math.nan))

    def entropy(self) -> Any:
        """``log(scale) + c + 1``."""
        return self.scale.log() + self.concentration + 1
