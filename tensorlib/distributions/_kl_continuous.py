"""KL divergences involving the continuous families (Exponential, Gamma, Beta, Dirichlet, Laplace, Cauchy).

Most cross-family formulas use ``KL(p || q) = -H(p) - E_p[log q(x)]`` with the
moments of ``p`` that ``log q`` needs (``E[x]``, ``E[x^2]``, ``E[log x]``, ...).
Pairs whose ``p`` puts mass where ``q`` has none are infinite. Importing this
module registers every pair with :func:`register_kl`.
"""

from __future__ import annotations

import math
from typing import Any

import tensorlib as _t

from .beta import Beta
from .cauchy import Cauchy
from .dirichlet import Dirichlet
from .exponential import Exponential
from .gamma import Gamma
from .kl import register_kl
from .laplace import Laplace
from .normal import Normal
from .uniform import Uniform
from .wishart import Wishart, _multi_digamma, _tril_inverse

_EULER_GAMMA = 0.57721566490153286060
_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)


def _always_infinite(param: Any) -> Any:
    """``inf`` shaped like ``param`` (a parameter of ``p``): the support of ``p`` is not inside that of ``q``."""
    return _t.full_like(param, float("inf"))


def _infinite_where(mask: Any, value: Any) -> Any:
    return _t.where(mask, _t.full_like(value, float("inf")), value)


def _cross_entropy_normal(mean: Any, variance: Any, q: Normal) -> Any:
    """``-E_p[log q]`` for a Normal ``q`` and any ``p`` with the given mean and variance."""
    second_moment = variance + (mean - q.loc).pow(2)
    return q.scale.log() + _HALF_LOG_2PI + second_moment / (2 * q.scale.pow(2))


def _cross_entropy_gamma(mean: Any, mean_log: Any, q: Gamma) -> Any:
    """``-E_p[log q]`` for a Gamma ``q``, from ``E_p[x]`` and ``E_p[log x]``."""
    a, rate = q.concentration, q.rate
    return -a * rate.log() + _t.lgamma(a) - (a - 1) * mean_log + rate * mean


def _uniform_mean_log(low: Any, high: Any) -> Any:
    """``E[log x]`` for ``x`` uniform on ``[low, high]`` with ``low >= 0``: ``[x log x - x] / (high - low)``."""
    return (_t.xlogy(high, high) - _t.xlogy(low, low)) / (high - low) - 1


# -- same family ------------------------------------------------------------------------------------


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p: Exponential, q: Exponential) -> Any:
    ratio = q.rate / p.rate
    return ratio - ratio.log() - 1


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p: Gamma, q: Gamma) -> Any:
    a1, r1, a2, r2 = p.concentration, p.rate, q.concentration, q.rate
    return ((a1 - a2) * _t.digamma(a1) - _t.lgamma(a1) + _t.lgamma(a2)
            + a2 * (r1.log() - r2.log()) + a1 * (r2 / r1 - 1))


@register_kl(Beta, Beta)
def _kl_beta_beta(p: Beta, q: Beta) -> Any:
    a1, b1, a2, b2 = p.concentration1, p.concentration0, q.concentration1, q.concentration0
    log_beta_ratio = q._log_normalizer(a2, b2) - p._log_normalizer(a1, b1)
    return (log_beta_ratio + (a1 - a2) * _t.digamma(a1) + (b1 - b2) * _t.digamma(b1)
            + (a2 - a1 + b2 - b1) * _t.digamma(a1 + b1))


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p: Dirichlet, q: Dirichlet) -> Any:
    cp, cq = p.concentration, q.concentration
    total_p = cp.sum(-1)
    log_norm_diff = (_t.lgamma(total_p) - _t.lgamma(cq.sum(-1)) - _t.lgamma(cp).sum(-1) + _t.lgamma(cq).sum(-1))
    return log_norm_diff + ((cp - cq) * (_t.digamma(cp) - _t.digamma(total_p).unsqueeze(-1))).sum(-1)


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p: Laplace, q: Laplace) -> Any:
    gap = (p.loc - q.loc).abs()
    ratio = p.scale / q.scale
    return -ratio.log() + gap / q.scale + ratio * (-gap / p.scale).exp() - 1


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p: Cauchy, q: Cauchy) -> Any:
    numerator = (p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)
    return (numerator / (4 * p.scale * q.scale)).log()


# -- Exponential / Gamma against each other ---------------------------------------------------------


@register_kl(Exponential, Gamma)
def _kl_exponential_gamma(p: Exponential, q: Gamma) -> Any:
    mean_log = -_EULER_GAMMA - p.rate.log()
    return -p.entropy() + _cross_entropy_gamma(p.rate.reciprocal(), mean_log, q)


@register_kl(Gamma, Exponential)
def _kl_gamma_exponential(p: Gamma, q: Exponential) -> Any:
    return -p.entropy() - q.rate.log() + q.rate * p.mean


# -- against a Normal ---------------------------------------------------------------------------------


@register_kl(Exponential, Normal)
def _kl_exponential_normal(p: Exponential, q: Normal) -> Any:
    return -p.entropy() + _cross_entropy_normal(p.mean, p.variance, q)


@register_kl(Gamma, Normal)
def _kl_gamma_normal(p: Gamma, q: Normal) -> Any:
    return -p.entropy() + _cross_entropy_normal(p.mean, p.variance, q)


@register_kl(Laplace, Normal)
def _kl_laplace_normal(p: Laplace, q: Normal) -> Any:
    return -p.entropy() + _cross_entropy_normal(p.mean, p.variance, q)


@register_kl(Beta, Normal)
def _kl_beta_normal(p: Beta, q: Normal) -> Any:
    return -p.entropy() + _cross_entropy_normal(p.mean, p.variance, q)


@register_kl(Normal, Laplace)
def _kl_normal_laplace(p: Normal, q: Laplace) -> Any:
    # E|x - m| for x ~ N(mu, s): s sqrt(2/pi) exp(-d^2 / 2s^2) + d erf(d / (s sqrt 2)), d = mu - m
    d = p.loc - q.loc
    mean_abs = (p.scale * math.sqrt(2 / math.pi) * (-d.pow(2) / (2 * p.scale.pow(2))).exp()
                + d * _t.erf(d / (p.scale * math.sqrt(2))))
    return -p.entropy() + (2 * q.scale).log() + mean_abs / q.scale


# -- Beta against the half-line families and the uniform --------------------------------------------


@register_kl(Beta, Exponential)
def _kl_beta_exponential(p: Beta, q: Exponential) -> Any:
    return -p.entropy() - q.rate.log() + q.rate * p.mean


@register_kl(Beta, Gamma)
def _kl_beta_gamma(p: Beta, q: Gamma) -> Any:
    mean_log = _t.digamma(p.concentration1) - _t.digamma(p.concentration1 + p.concentration0)
    return -p.entropy() + _cross_entropy_gamma(p.mean, mean_log, q)


@register_kl(Beta, Uniform)
def _kl_beta_uniform(p: Beta, q: Uniform) -> Any:
    result = -p.entropy() + (q.high - q.low).log()
    return _infinite_where((q.low > 0) | (q.high < 1), result)


@register_kl(Uniform, Beta)
def _kl_uniform_beta(p: Uniform, q: Beta) -> Any:
    a, b = q.concentration1, q.concentration0
    mean_log_x = _uniform_mean_log(p.low, p.high)
    mean_log_1mx = _uniform_mean_log(1 - p.high, 1 - p.low)
    result = -p.entropy() - (a - 1) * mean_log_x - (b - 1) * mean_log_1mx + q._log_normalizer(a, b)
    return _infinite_where((p.low < 0) | (p.high > 1), result)


@register_kl(Uniform, Exponential)
def _kl_uniform_exponential(p: Uniform, q: Exponential) -> Any:
    result = -p.entropy() - q.rate.log() + q.rate * p.mean
    return _infinite_where(p.low < 0, result)


@register_kl(Uniform, Gamma)
def _kl_uniform_gamma(p: Uniform, q: Gamma) -> Any:
    result = -p.entropy() + _cross_entropy_gamma(p.mean, _uniform_mean_log(p.low, p.high), q)
    return _infinite_where(p.low < 0, result)


# -- pairs whose support does not fit: always infinite -----------------------------------------------


@register_kl(Exponential, Beta)
@register_kl(Exponential, Uniform)
def _kl_exponential_infinite(p: Exponential, q: Any) -> Any:
    return _always_infinite(p.rate)


@register_kl(Gamma, Beta)
@register_kl(Gamma, Uniform)
def _kl_gamma_infinite(p: Gamma, q: Any) -> Any:
    return _always_infinite(p.concentration)


@register_kl(Laplace, Beta)
@register_kl(Laplace, Exponential)
@register_kl(Laplace, Gamma)
@register_kl(Laplace, Uniform)
@register_kl(Normal, Beta)
@register_kl(Normal, Exponential)
@register_kl(Normal, Gamma)
def _kl_real_line_infinite(p: Any, q: Any) -> Any:
    return _always_infinite(p.loc)


# -- between the Normal and the Uniform (not registered in kl.py) ------------------------------------


@register_kl(Uniform, Normal)
def _kl_uniform_normal(p: Uniform, q: Normal) -> Any:
    return -p.entropy() + _cross_entropy_normal(p.mean, p.variance, q)


@register_kl(Normal, Uniform)
def _kl_normal_uniform(p: Normal, q: Uniform) -> Any:
    return _always_infinite(p.loc)


# -- Wishart --------------------------------------------------------------------------------------------


@register_kl(Wishart, Wishart)
def _kl_wishart_wishart(p: Wishart, q: Wishart) -> Any:
    """``n2/2 log(|S2|/|S1|) + n1/2 (tr(S2^{-1} S1) - d) + log G_d(n2/2) - log G_d(n1/2) + (n1-n2)/2 psi_d(n1/2)``."""
    if p.event_shape != q.event_shape:
        raise RuntimeError(f"KL(Wishart || Wishart) needs equal event shapes, got {tuple(p.event_shape)} and "
                           f"{tuple(q.event_shape)}")
    d = p._dim
    n1, n2 = p.df, q.df
    # tr(S2^{-1} S1) = ||L2^{-1} L1||_F^2
    trace = _tril_inverse(q._tril).matmul(p._tril).pow(2).sum((-2, -1))
    log_det_ratio = 2 * (q._half_log_det_sigma() - p._half_log_det_sigma())
    return (0.5 * n2 * log_det_ratio + 0.5 * n1 * (trace - d) + _t.mvlgamma(0.5 * n2, p=d)
            - _t.mvlgamma(0.5 * n1, p=d) + 0.5 * (n1 - n2) * _multi_digamma(0.5 * n1, d))
