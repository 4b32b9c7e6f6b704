"""KL divergences between families of different groups: Pareto, Gumbel and ContinuousBernoulli against the rest,
and the generic divergence of two members of one exponential family.

The finite pairs follow ``KL(p || q) = -H(p) - E_p[log q(X)]`` with the moments of
``p`` that ``log q`` needs. A pair whose ``p`` puts mass where ``q`` has none is
infinite (Pareto's support starts at its scale; ContinuousBernoulli, Beta and
Uniform live on bounded intervals). Importing this module registers every pair.
"""

from __future__ import annotations

import math
from typing import Any

import tensorlib as _t

from .beta import Beta
from .continuous_bernoulli import ContinuousBernoulli
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .gamma import Gamma
from .gumbel import Gumbel
from .kl import register_kl
from .laplace import Laplace
from .normal import Normal
from .pareto import Pareto
from .uniform import Uniform

_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)


def _infinite(p: Any, q: Any) -> Any:
    """``inf`` over the broadcast batch of ``p`` and ``q`` (in the dtype of ``p``'s parameters)."""
    shape = _t.broadcast_shapes(tuple(p.batch_shape), tuple(q.batch_shape))
    dtype = p.mean.dtype if p.mean.is_floating_point() else _t.get_default_dtype()
    return _t.full(shape, math.inf, dtype=dtype)


def _register_infinite(*pairs: tuple[type, type]) -> None:
    for type_p, type_q in pairs:
        register_kl(type_p, type_q)(_infinite)


# the support of p reaches outside that of q
_register_infinite(
    (Beta, Pareto), (ContinuousBernoulli, Pareto), (Exponential, ContinuousBernoulli), (Exponential, Pareto),
    (Gamma, ContinuousBernoulli), (Gamma, Pareto), (Gumbel, Beta), (Gumbel, ContinuousBernoulli),
    (Gumbel, Exponential), (Gumbel, Gamma), (Gumbel, Pareto), (Laplace, ContinuousBernoulli), (Laplace, Pareto),
    (Normal, Pareto), (Pareto, Beta), (Pareto, ContinuousBernoulli), (Pareto, Uniform),
)


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_exponential_family(p: ExponentialFamily, q: ExponentialFamily) -> Any:
    """The Bregman divergence of the log-normalizer: ``F(t_q) - F(t_p) - <t_q - t_p, grad F(t_p)>``."""
    if type(p) is not type(q):
        raise NotImplementedError("The cross KL-divergence between different exponential families cannot be "
                                  "computed using Bregman divergences")
    theta_p = [t.detach().requires_grad_() for t in p._natural_params]
    theta_q = q._natural_params
    with _t.enable_grad():
        f_p = p._log_normalizer(*theta_p)
        grads = _t.autograd.grad(f_p.sum(), theta_p, create_graph=True)
    result = q._log_normalizer(*theta_q) - f_p
    for tp, tq, g in zip(theta_p, theta_q, grads):
        term = (tq - tp) * g
        result = result - term.reshape(tuple(term.shape[: len(p.batch_shape)]) + (-1,)).sum(-1)
    return result


# -- ContinuousBernoulli on [0, 1] -------------------------------------------------------------------------


def _cb_log_density_terms(q: ContinuousBernoulli, mean_x: Any) -> Any:
    """``E_p[log q(X)]`` for ``q`` continuous Bernoulli: ``log C + E[X] logit(lambda) + log(1 - lambda)``."""
    return q._log_norm_const() + mean_x * q.logits + (-q.probs).log1p()


@register_kl(Beta, ContinuousBernoulli)
def _kl_beta_continuous_bernoulli(p: Beta, q: ContinuousBernoulli) -> Any:
    return -p.entropy() - _cb_log_density_terms(q, p.mean)


@register_kl(ContinuousBernoulli, Exponential)
def _kl_continuous_bernoulli_exponential(p: ContinuousBernoulli, q: Exponential) -> Any:
    # -E_p[log q(X)] = -log rate + rate E[X]
    return -p.entropy() - q.rate.log() + q.rate * p.mean


# -- Gumbel as q: -E_p[log q(X)] = log s + (E[X] - loc) / s + E[exp(-(X - loc) / s)] ------------------------


def _gumbel_cross_entropy(q: Gumbel, mean_x: Any, mgf: Any) -> Any:
    return q.scale.log() + (mean_x - q.loc) / q.scale + (q.loc / q.scale).exp() * mgf


@register_kl(Exponential, Gumbel)
def _kl_exponential_gumbel(p: Exponential, q: Gumbel) -> Any:
    # E[exp(-X / s)] for X ~ Exponential(r) is r / (r + 1 / s)
    rs = p.rate * q.scale
    return _gumbel_cross_entropy(q, p.mean, rs / (rs + 1)) - p.entropy()


@register_kl(Gamma, Gumbel)
def _kl_gamma_gumbel(p: Gamma, q: Gumbel) -> Any:
    # E[exp(-X / s)] for X ~ Gamma(a, r) is (1 + 1 / (r s))^(-a)
    mgf = (-p.concentration * (q.scale * p.rate).reciprocal().log1p()).exp()
    return _gumbel_cross_entropy(q, p.mean, mgf) - p.entropy()


# -- Pareto: log(X / scale) is exponential with rate alpha ----------------------------------------------------


def _pareto_mean_log(p: Pareto) -> Any:
    """``E[log X] = log scale + 1 / alpha``."""
    return p.scale.log() + p.alpha.reciprocal()


def _where_finite(condition: Any, value: Any) -> Any:
    return _t.where(condition, value, _t.full_like(value, math.inf))


@register_kl(Pareto, Pareto)
def _kl_pareto_pareto(p: Pareto, q: Pareto) -> Any:
    # log(a_p / a_q) + a_q log(s_p / s_q) + a_q / a_p - 1, where p's support lies inside q's (s_p >= s_q)
    value = (p.alpha / q.alpha).log() + q.alpha * (p.scale / q.scale).log() + q.alpha / p.alpha - 1
    return _where_finite(p.scale >= q.scale, value)


@register_kl(Pareto, Exponential)
def _kl_pareto_exponential(p: Pareto, q: Exponential) -> Any:
    # -E_p[log q(X)] = -log rate + rate E[X]; E[X] is finite only for alpha > 1
    value = -p.entropy() - q.rate.log() + q.rate * p.mean
    return _where_finite(p.alpha > 1, value)


@register_kl(Pareto, Gamma)
def _kl_pareto_gamma(p: Pareto, q: Gamma) -> Any:
    # -E_p[log q(X)] = lgamma(a) - a log r - (a - 1) E[log X] + r E[X]
    a, r = q.concentration, q.rate
    cross = a.lgamma() - a * r.log() - (a - 1) * _pareto_mean_log(p) + r * p.mean
    return _where_finite(p.alpha > 1, cross - p.entropy())


@register_kl(Pareto, Normal)
def _kl_pareto_normal(p: Pareto, q: Normal) -> Any:
    # -E_p[log q(X)] = log(sigma sqrt(2 pi)) + (Var X + (E X - mu)^2) / (2 sigma^2); finite for alpha > 2
    second = p.variance + (p.mean - q.loc).pow(2)
    value = q.scale.log() + _HALF_LOG_2PI + second / (2 * q.scale.pow(2)) - p.entropy()
    return _where_finite(p.alpha > 2, value)


@register_kl(Uniform, Pareto)
def _kl_uniform_pareto(p: Uniform, q: Pareto) -> Any:
    # -E_p[log q(X)] = -log a - a log s + (a + 1) E[log X], E[log X] = (h log h - l log l) / (h - l) - 1
    low, high = p.low, p.high
    mean_log = (_t.xlogy(high, high) - _t.xlogy(low, low)) / (high - low) - 1
    cross = -q.alpha.log() - q.alpha * q.scale.log() + (q.alpha + 1) * mean_log
    return _where_finite(low >= q.scale, cross - p.entropy())
