"""The Fisher-Snedecor (F) distribution."""

from __future__ import annotations

from typing import Any

import tensorlib as _t

from . import constraints
from .distribution import Distribution
from .gamma import Gamma
from .utils import broadcast_all


class FisherSnedecor(Distribution):
    """F distribution: the ratio ``(X1 / df1) / (X2 / df2)`` of independent chi-squared variables."""

    arg_constraints = {"df1": constraints.positive, "df2": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, df1: Any, df2: Any, validate_args: bool | None = None) -> None:
        self.df1, self.df2 = broadcast_all(df1, df2)
        # Chi2(d) / d == Gamma(d / 2, d / 2): the numerator and denominator laws (these also
        # validate df1 and df2 first, as torch does)
        self._numerator = Gamma(0.5 * self.df1, 0.5 * self.df1, validate_args=validate_args)
        self._denominator = Gamma(0.5 * self.df2, 0.5 * self.df2, validate_args=validate_args)
        super().__init__(self.df1.shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> FisherSnedecor:
        """This distribution with its parameters expanded to ``batch_shape``."""
        new = self._get_checked_instance(FisherSnedecor, _instance)
        batch_shape = _t.Size(batch_shape)
        new.df1 = self.df1.expand(batch_shape)
        new.df2 = self.df2.expand(batch_shape)
        new._numerator = self._numerator.expand(batch_shape)
        new._denominator = self._denominator.expand(batch_shape)
        super(FisherSnedecor, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self) -> Any:
        """``df2 / (df2 - 2)`` for ``df2 > 2``, else NaN."""
        m = self.df2 / (self.df2 - 2)
        return _t.where(self.df2 > 2, m, _t.full_like(m, float("nan")))

    @property
    def mode(self) -> Any:
        """``(df1 - 2) / df1 * df2 / (df2 + 2)`` for ``df1 > 2``, else NaN."""
        m = (self.df1 - 2) / self.df1 * self.df2 / (self.df2 + 2)
        return _t.where(self.df1 > 2, m, _t.full_like(m, float("nan")))

    @property
    def variance(self) -> Any:
        """``2 df2**2 (df1 + df2 - 2) / (df1 (df2 - 2)**2 (df2 - 4))`` for ``df2 > 4``, else NaN."""
        d1, d2 = self.df1, self.df2
        v = 2 * d2.pow(2) * (d1 + d2 - 2) / (d1 * (d2 - 2).pow(2) * (d2 - 4))
        return _t.where(d2 > 4, v, _t.full_like(v, float("nan")))

    def rsample(self, sample_shape: Any = ()) -> Any:
        """The ratio of two scaled gamma variates (implicit gradients in ``df1`` and ``df2``)."""
        num = self._numerator.rsample(sample_shape)
        den = self._denominator.rsample(sample_shape)
        tiny = _t.finfo(num.dtype).tiny
        return (num / den).clamp(min=tiny)

    def log_prob(self, value: Any) -> Any:
        """Log density ``(d1/2) log(d1/d2) + (d1/2 - 1) log x - ((d1+d2)/2) log(1 + d1 x / d2) - log B(d1/2, d2/2)``."""
        if self._validate_args:
            self._validate_sample(value)
        h1, h2 = 0.5 * self.df1, 0.5 * self.df2
        ratio = self.df1 / self.df2
        log_beta = _t.lgamma(h1) + _t.lgamma(h2) - _t.lgamma(h1 + h2)
        return (h1 * ratio.log() + (h1 - 1) * value.log() - (h1 + h2) * (ratio * value).log1p() - log_beta)
