"""Student's t distribution (location-scale family)."""

from __future__ import annotations

import math
from typing import Any

import tensorlib as _t

from . import constraints
from .chi2 import Chi2
from .distribution import Distribution
from .utils import broadcast_all


class StudentT(Distribution):
    """Student's t distribution with ``df`` degrees of freedom, shifted by ``loc`` and scaled by ``scale``."""

    arg_constraints = {"df": constraints.positive, "loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, df: Any, loc: Any = 0.0, scale: Any = 1.0, validate_args: bool | None = None) -> None:
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        # the chi-squared mixing variable (it also validates df, so torch's error message is matched)
        self._chi2 = Chi2(self.df, validate_args=validate_args)
        super().__init__(self.df.shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> StudentT:
        """This distribution with its parameters expanded to ``batch_shape``."""
        new = self._get_checked_instance(StudentT, _instance)
        batch_shape = _t.Size(batch_shape)
        new.df = self.df.expand(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        new._chi2 = self._chi2.expand(batch_shape)
        super(StudentT, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self) -> Any:
        """``loc`` when ``df > 1``, else NaN."""
        return _t.where(self.df > 1, self.loc, _t.full_like(self.loc, float("nan")))

    @property
    def mode(self) -> Any:
        """``loc``."""
        return self.loc

    @property
    def variance(self) -> Any:
        """``scale**2 df / (df - 2)`` for ``df > 2``; infinite for ``1 < df <= 2``; NaN for ``df <= 1``."""
        finite = self.scale.pow(2) * self.df / (self.df - 2)
        result = _t.where(self.df > 2, finite, _t.full_like(finite, float("inf")))
        return _t.where(self.df > 1, result, _t.full_like(finite, float("nan")))

    def rsample(self, sample_shape: Any = ()) -> Any:
        """``loc + scale z / sqrt(g / df)`` with ``z`` standard normal and ``g ~ Chi2(df)``."""
        shape = self._extended_shape(sample_shape)
        z = _t.randn(shape, dtype=self.df.dtype)
        chi2 = self._chi2.rsample(sample_shape)
        return self.loc + self.scale * z * (chi2 / self.df).rsqrt()

    def log_prob(self, value: Any) -> Any:
        """``lgamma((df+1)/2) - lgamma(df/2) - log(scale sqrt(pi df)) - (df+1)/2 log(1 + y**2/df)``."""
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        half_df = 0.5 * self.df
        log_norm = (_t.lgamma(half_df + 0.5) - _t.lgamma(half_df) - self.scale.log()
                    - 0.5 * (self.df.log() + math.log(math.pi)))
        return log_norm - (half_df + 0.5) * (y.pow(2) / self.df).log1p()

    def entropy(self) -> Any:
        """``log(scale sqrt(df) B(df/2, 1/2)) + (df+1)/2 (digamma((df+1)/2) - digamma(df/2))``."""
        half_df = 0.5 * self.df
        log_beta = _t.lgamma(half_df) + math.lgamma(0.5) - _t.lgamma(half_df + 0.5)
        return (self.scale.log() + 0.5 * self.df.log() + log_beta
                + (half_df + 0.5) * (_t.digamma(half_df + 0.5) - _t.digamma(half_df)))
