"""The continuous Bernoulli distribution on ``[0, 1]``."""

from __future__ import annotations

import math
from typing import Any

import tensorlib as _t

from . import constraints
from .exp_family import ExponentialFamily
from .utils import broadcast_all, clamp_probs, lazy_property, logits_to_probs, probs_to_logits


class ContinuousBernoulli(ExponentialFamily):
    """Density ``C(p) p^x (1 - p)^(1 - x)`` on ``[0, 1]`` with ``probs`` ``p`` (or ``logits``).

    Close to ``p = 1/2`` (inside ``lims``) the normaliser, mean and variance
    use their Taylor expansions, where the closed forms lose precision.
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}  # noqa: RUF012
    support = constraints.unit_interval
    _mean_carrier_measure = 0
    has_rsample = True

    def __init__(self, probs: Any = None, logits: Any = None, lims: tuple[float, float] = (0.499, 0.501),
                 validate_args: bool | None = None) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            (probs,) = broadcast_all(probs)
            self.probs = clamp_probs(probs)
            given = self.probs
        else:
            (self.logits,) = broadcast_all(logits)
            given = self.logits
        self._lims = lims
        super().__init__(given.shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> ContinuousBernoulli:
        """This distribution with its parameter expanded to ``batch_shape``."""
        shape = _t.Size(batch_shape)
        new = self._get_checked_instance(ContinuousBernoulli, _instance)
        new._lims = self._lims
        for name in ("probs", "logits"):
            if name in self.__dict__:
                new.__dict__[name] = self.__dict__[name].expand(shape)
        super(ContinuousBernoulli, new).__init__(shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @lazy_property
    def probs(self) -> Any:
        """The shape parameter ``p`` in ``(0, 1)``."""
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    @lazy_property
    def logits(self) -> Any:
        """``log(p / (1 - p))``."""
        return probs_to_logits(self.probs, is_binary=True)

    @property
    def param_shape(self) -> _t.Size:
        """The shape of ``probs``."""
        return self.probs.shape

    # -- the region near p = 1/2 ---------------------------------------------------------------------

    def _stable(self) -> Any:
        """Where ``probs`` lies outside ``lims`` (the closed forms are accurate there)."""
        return (self.probs <= self._lims[0]) | (self.probs >= self._lims[1])

    def _probs_away_from_half(self) -> Any:
        """``probs`` with the values inside ``lims`` replaced by ``lims[0]``: the closed forms stay finite (and
        their gradients too) on the branch of ``where`` that is discarded."""
        return _t.where(self._stable(), self.probs, _t.full_like(self.probs, self._lims[0]))

    def _log_norm_const(self) -> Any:
        """``log C(p)``: ``log(2 artanh(1 - 2p) / (1 - 2p))``, or its Taylor series near ``1/2``."""
        p = self._probs_away_from_half()
        # 2 artanh(1 - 2p) = log(1 - p) - log(p)
        exact = ((-p).log1p() - p.log()).abs().log() - (1 - 2 * p).abs().log()
        x = self.probs - 0.5
        x2 = x * x
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x2) * x2
        return _t.where(self._stable(), exact, taylor)

    @property
    def mean(self) -> Any:
        """``p / (2p - 1) + 1 / (2 artanh(1 - 2p))`` (``1/2 + x/3 + 16 x^3 / 45`` near ``p = 1/2 + x``)."""
        p = self._probs_away_from_half()
        exact = p / (2 * p - 1) + 1 / ((-p).log1p() - p.log())
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * x * x) * x
        return _t.where(self._stable(), exact, taylor)

    @property
    def variance(self) -> Any:
        """``p (p - 1) / (1 - 2p)^2 + 1 / (2 artanh(1 - 2p))^2`` (a Taylor series near ``1/2``)."""
        p = self._probs_away_from_half()
        exact = p * (p - 1) / (1 - 2 * p).pow(2) + 1 / ((-p).log1p() - p.log()).pow(2)
        x2 = (self.probs - 0.5).pow(2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 + 128.0 / 945.0 * x2) * x2
        return _t.where(self._stable(), exact, taylor)

    @property
    def stddev(self) -> Any:
        """``sqrt(variance)``."""
        return self.variance.sqrt()

    # -- density, distribution function, sampling --------------------------------------------------

    def log_prob(self, value: Any) -> Any:
        """``log C(p) + x log p + (1 - x) log(1 - p)``."""
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        bernoulli_part = -_t.nn.functional.binary_cross_entropy_with_logits(logits, value, reduction="none")
        return bernoulli_part + self._log_norm_const()

    def cdf(self, value: Any) -> Any:
        """``(e^(eta x) - 1) / (e^eta - 1)`` with ``eta = logits`` (``expm1`` keeps it exact near ``p = 1/2``)."""
        if self._validate_args:
            self._validate_sample(value)
        eta = self.logits
        is_half = eta == 0
        safe_eta = _t.where(is_half, _t.ones_like(eta), eta)
        exact = (safe_eta * value).expm1() / safe_eta.expm1()
        inside = _t.where(is_half, value + _t.zeros_like(exact), exact)
        result = _t.where(value <= 0, _t.zeros_like(inside), inside)
        return _t.where(value >= 1, _t.ones_like(result), result)

    def icdf(self, value: Any) -> Any:
        """``log1p(u (e^eta - 1)) / eta`` with ``eta = logits`` (``u`` itself at ``p = 1/2``)."""
        eta = self.logits
        is_half = eta == 0
        safe_eta = _t.where(is_half, _t.ones_like(eta), eta)
        exact = (value * safe_eta.expm1()).log1p() / safe_eta
        return _t.where(is_half, value + _t.zeros_like(exact), exact)

    def rsample(self, sample_shape: Any = ()) -> Any:
        """``icdf(U)`` for uniform ``U``: differentiable in the parameter."""
        shape = self._extended_shape(sample_shape)
        u = _t.rand(shape, dtype=self.probs.dtype)
        return self.icdf(u)

    def entropy(self) -> Any:
        """``-log C(p) - E[x] log p - (1 - E[x]) log(1 - p)``."""
        mean = self.mean
        log_p, log_q = self.probs.log(), (-self.probs).log1p()
        return -self._log_norm_const() - mean * log_p - (1 - mean) * log_q

    # -- exponential family --------------------------------------------------------------------------

    @property
    def _natural_params(self) -> tuple[Any, ...]:
        return (self.logits,)

    def _log_normalizer(self, *natural_params: Any) -> Any:
        """``log((e^eta - 1) / eta)`` (``eta/2 + eta^2/24 - eta^4/2880`` near ``eta = 0``)."""
        eta = natural_params[0]
        small = eta.abs() < 1e-2
        safe = _t.where(small, _t.full_like(eta, 1.0), eta)
        exact = (safe.abs().expm1().log() - safe.abs().log()) + safe.clamp(max=0)
        e2 = eta * eta
        taylor = eta / 2 + e2 / 24 - e2 * e2 / 2880
        return _t.where(small, taylor, exact)
