"""KL divergences for the discrete and multivariate families (registered with ``kl.register_kl``)."""

from __future__ import annotations

import math
from typing import Any

import tensorlib as _t

from .bernoulli import Bernoulli
from .binomial import Binomial
from .continuous_bernoulli import ContinuousBernoulli
from .geometric import Geometric
from .kl import kl_divergence, register_kl
from .lowrank_multivariate_normal import LowRankMultivariateNormal, _lowrank_log_det, _lowrank_mahalanobis_sq
from .multivariate_normal import MultivariateNormal, _mahalanobis_sq
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .poisson import Poisson
from .uniform import Uniform


def _infinite_like(*tensors: Any) -> Any:
    """``inf`` in the broadcast shape (and dtype) of ``tensors``."""
    shape = _t.broadcast_shapes(*(tuple(x.shape) for x in tensors))
    return _t.full(shape, float("inf"), dtype=tensors[0].dtype)


def _zero_where(mask: Any, x: Any) -> Any:
    return _t.where(mask, _t.zeros_like(x), x)


def _xlogy_ratio(x: Any, a: Any, b: Any) -> Any:
    """``x * (log a - log b)`` with terms where ``x == 0`` taken as 0."""
    return _zero_where(x == 0, x * (a.log() - b.log()))


# -- counts ---------------------------------------------------------------------------------------------------


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p: Poisson, q: Poisson) -> Any:
    return _xlogy_ratio(p.rate, p.rate, q.rate) - (p.rate - q.rate)


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p: Binomial, q: Binomial) -> Any:
    # equal trial counts: n times the KL of one trial; a larger count under p than under q puts mass
    # where q has none
    if bool((p.total_count < q.total_count).any()):
        raise NotImplementedError("KL between Binomials where q.total_count > p.total_count is not implemented")
    one_trial = (_xlogy_ratio(p.probs, p.probs, q.probs)
                 + _xlogy_ratio(1 - p.probs, 1 - p.probs, 1 - q.probs))
    result = p.total_count * one_trial
    return _t.where(p.total_count > q.total_count, _t.full_like(result, float("inf")), result)


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p: Geometric, q: Geometric) -> Any:
    # E_p[k] (log(1 - p) - log(1 - q)) + log p - log q, with E_p[k] = (1 - p) / p
    expected_failures = 1.0 / p.probs - 1.0
    failures = _zero_where(expected_failures == 0,
                           expected_failures * ((-p.probs).log1p() - (-q.probs).log1p()))
    return failures + p.probs.log() - q.probs.log()


@register_kl(Bernoulli, Poisson)
def _kl_bernoulli_poisson(p: Bernoulli, q: Poisson) -> Any:
    # sum over x in {0, 1} of P(x) (log P(x) - log Q(x)), with log Q(0) = -r and log Q(1) = log r - r
    neg_entropy = -p.entropy()
    return neg_entropy + q.rate - _t.special.xlogy(p.probs, q.rate)


@register_kl(Poisson, Bernoulli)
@register_kl(Poisson, Binomial)
def _kl_poisson_bounded(p: Poisson, q: Any) -> Any:
    return _infinite_like(p.rate, q.probs)


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehot_onehot(p: OneHotCategorical, q: OneHotCategorical) -> Any:
    return kl_divergence(p._categorical, q._categorical)


# -- Gaussian vectors -----------------------------------------------------------------------------------------
#
# KL(p || q) = (tr(S_q^{-1} S_p) + (m_q - m_p)^T S_q^{-1} (m_q - m_p) - k + log det S_q - log det S_p) / 2.
# tr(S_q^{-1} S_p) is the sum of the squared Mahalanobis norms (under q) of the columns of any R with
# S_p = R R^T; each family below supplies such an R, the quadratic forms and the log-determinants.


def _check_event_shapes(p: Any, q: Any, kind: str) -> None:
    if p.event_shape != q.event_shape:
        raise ValueError(f"KL-divergence between two {kind} with different event shapes cannot be computed")


def _root_rows(p: Any) -> Any:
    """The columns of an ``R`` with ``R R^T`` the covariance of ``p``, as rows: shape ``(..., m, k)``."""
    if isinstance(p, MultivariateNormal):
        return p._unbroadcasted_scale_tril.mT
    factor_rows = p._unbroadcasted_cov_factor.mT  # (..., r, k)
    diag_rows = _t.diag_embed(p._unbroadcasted_cov_diag.sqrt())  # (..., k, k)
    batch = _t.broadcast_shapes(tuple(factor_rows.shape[:-2]), tuple(diag_rows.shape[:-2]))
    return _t.cat([factor_rows.expand(tuple(batch) + tuple(factor_rows.shape[-2:])),
                   diag_rows.expand(tuple(batch) + tuple(diag_rows.shape[-2:]))], -2)


def _quad_under(q: Any, rows: Any) -> Any:
    """``x^T S_q^{-1} x`` for each row ``x`` of ``rows`` (any leading dims broadcast with q's batch)."""
    if isinstance(q, MultivariateNormal):
        return _mahalanobis_sq(q._unbroadcasted_scale_tril, rows)
    return _lowrank_mahalanobis_sq(q._unbroadcasted_cov_factor, q._unbroadcasted_cov_diag, q._capacitance_tril, rows)


def _trace_term(p: Any, q: Any) -> Any:
    """``tr(S_q^{-1} S_p)`` as the summed quadratic forms of the rows of ``R_p``."""
    rows = _root_rows(p)  # (..., m, k)
    if isinstance(q, MultivariateNormal):
        per_row = _mahalanobis_sq(q._unbroadcasted_scale_tril.unsqueeze(-3), rows)
    else:
        per_row = _lowrank_mahalanobis_sq(q._unbroadcasted_cov_factor.unsqueeze(-3),
                                          q._unbroadcasted_cov_diag.unsqueeze(-2),
                                          q._capacitance_tril.unsqueeze(-3), rows)
    return per_row.sum(-1)


def _log_det(p: Any) -> Any:
    if isinstance(p, MultivariateNormal):
        return 2 * p._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
    return _lowrank_log_det(p._unbroadcasted_cov_factor, p._unbroadcasted_cov_diag, p._capacitance_tril)


def _kl_gaussian_vectors(p: Any, q: Any) -> Any:
    size = p.event_shape[0]
    trace = _trace_term(p, q)
    maha = _quad_under(q, q.loc - p.loc)
    result = 0.5 * (trace + maha - size + _log_det(q) - _log_det(p))
    shape = _t.broadcast_shapes(tuple(p.batch_shape), tuple(q.batch_shape))
    return result.expand(shape)


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_mvn_mvn(p: MultivariateNormal, q: MultivariateNormal) -> Any:
    _check_event_shapes(p, q, "Multivariate Normals")
    return _kl_gaussian_vectors(p, q)


@register_kl(MultivariateNormal, LowRankMultivariateNormal)
def _kl_mvn_lowrank(p: MultivariateNormal, q: LowRankMultivariateNormal) -> Any:
    _check_event_shapes(p, q, "(Low Rank) Multivariate Normals")
    return _kl_gaussian_vectors(p, q)


@register_kl(LowRankMultivariateNormal, MultivariateNormal)
def _kl_lowrank_mvn(p: LowRankMultivariateNormal, q: MultivariateNormal) -> Any:
    _check_event_shapes(p, q, "(Low Rank) Multivariate Normals")
    return _kl_gaussian_vectors(p, q)


@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)
def _kl_lowrank_lowrank(p: LowRankMultivariateNormal, q: LowRankMultivariateNormal) -> Any:
    _check_event_shapes(p, q, "Low Rank Multivariate Normals")
    return _kl_gaussian_vectors(p, q)


# -- continuous Bernoulli ---------------------------------------------------------------------------------------


def _cb_expected_log_density(q: ContinuousBernoulli, mean_x: Any) -> Any:
    """``E[log q(X)]`` for any ``X`` on ``[0, 1]`` with mean ``mean_x`` (the log-density is linear in ``x``)."""
    return q._log_norm_const() + mean_x * q.probs.log() + (1 - mean_x) * (-q.probs).log1p()


@register_kl(ContinuousBernoulli, ContinuousBernoulli)
def _kl_cb_cb(p: ContinuousBernoulli, q: ContinuousBernoulli) -> Any:
    return -p.entropy() - _cb_expected_log_density(q, p.mean)


@register_kl(ContinuousBernoulli, Normal)
def _kl_cb_normal(p: ContinuousBernoulli, q: Normal) -> Any:
    # -H(p) - E_p[log N(x)], with E_p[(x - loc)^2] = Var_p + (E_p[x] - loc)^2
    second_moment = p.variance + (p.mean - q.loc).pow(2)
    return -p.entropy() + q.scale.log() + 0.5 * math.log(2 * math.pi) + second_moment / (2 * q.scale.pow(2))


@register_kl(ContinuousBernoulli, Uniform)
def _kl_cb_uniform(p: ContinuousBernoulli, q: Uniform) -> Any:
    result = -p.entropy() + (q.high - q.low).log()
    covers = (q.low <= 0) & (q.high >= 1)
    return _t.where(covers, result, _t.full_like(result, float("inf")))


@register_kl(Uniform, ContinuousBernoulli)
def _kl_uniform_cb(p: Uniform, q: ContinuousBernoulli) -> Any:
    result = -p.entropy() - _cb_expected_log_density(q, p.mean)
    inside = (p.low >= 0) & (p.high <= 1)
    return _t.where(inside, result, _t.full_like(result, float("inf")))


@register_kl(Normal, ContinuousBernoulli)
def _kl_normal_cb(p: Normal, q: ContinuousBernoulli) -> Any:
    return _infinite_like(p.loc, q.probs)
