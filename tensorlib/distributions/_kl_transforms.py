"""KL divergences for Independent, TransformedDistribution and the families built on transforms.

Importing this module registers them with :func:`~tensorlib.distributions.kl.register_kl`.
"""

from __future__ import annotations

import math
from typing import Any

import tensorlib as _t

from .gumbel import Gumbel
from .half_normal import HalfNormal
from .independent import Independent
from .kl import kl_divergence, register_kl
from .log_normal import LogNormal
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .uniform import Uniform

_EULER_GAMMA = 0.57721566490153286060651209008240243
_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)


def _sum_last(value: Any, ndims: int) -> Any:
    if ndims <= 0:
        return value
    return value.reshape(tuple(value.shape[: value.dim() - ndims]) + (-1,)).sum(-1)


@register_kl(Independent, Independent)
def _kl_independent_independent(p: Independent, q: Independent) -> Any:
    # the entries are independent: the divergence of the event is the sum over its entries
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    return _sum_last(kl_divergence(p.base_dist, q.base_dist), p.reinterpreted_batch_ndims)


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p: TransformedDistribution, q: TransformedDistribution) -> Any:
    # a shared bijection leaves the divergence unchanged
    if p.transforms != q.transforms:
        raise NotImplementedError
    if p.event_shape != q.event_shape:
        raise NotImplementedError
    result = kl_divergence(p.base_dist, q.base_dist)
    return _sum_last(result, result.dim() - len(p.batch_shape))


@register_kl(LogNormal, LogNormal)
def _kl_lognormal_lognormal(p: LogNormal, q: LogNormal) -> Any:
    return kl_divergence(p.base_dist, q.base_dist)


@register_kl(HalfNormal, HalfNormal)
def _kl_halfnormal_halfnormal(p: HalfNormal, q: HalfNormal) -> Any:
    # folding both centred normals at 0 keeps their divergence
    return kl_divergence(p.base_dist, q.base_dist)


def _gumbel_cross_terms(q: Gumbel, mean_x: Any, mgf_neg: Any) -> Any:
    """``-E_p[log q(X)]`` given ``E_p[X]`` and ``E_p[exp(-(X - loc_q) / scale_q)]``."""
    return q.scale.log() + (mean_x - q.loc) / q.scale + mgf_neg


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p: Gumbel, q: Gumbel) -> Any:
    # X = loc_p + scale_p G with G standard Gumbel: E[G] = gamma, E[exp(-t G)] = Gamma(1 + t)
    ratio = p.scale / q.scale
    mgf = ((q.loc - p.loc) / q.scale + (1 + ratio).lgamma()).exp()
    return _gumbel_cross_terms(q, p.mean, mgf) - p.entropy()


@register_kl(Normal, Gumbel)
def _kl_normal_gumbel(p: Normal, q: Gumbel) -> Any:
    # E[exp(-X / s)] for X normal is exp(-loc / s + scale^2 / (2 s^2))
    mgf = ((q.loc - p.loc) / q.scale + (p.scale / q.scale).pow(2) / 2).exp()
    return _gumbel_cross_terms(q, p.loc, mgf) - p.entropy()


@register_kl(Uniform, Gumbel)
def _kl_uniform_gumbel(p: Uniform, q: Gumbel) -> Any:
    # E[exp(-(X - loc_q) / s)] for X uniform on [low, high) is s (e^{(loc_q - low)/s} - e^{(loc_q - high)/s}) / width
    width = p.high - p.low
    mgf = q.scale * (((q.loc - p.low) / q.scale).exp() - ((q.loc - p.high) / q.scale).exp()) / width
    return _gumbel_cross_terms(q, p.mean, mgf) - p.entropy()


@register_kl(Gumbel, Normal)
def _kl_gumbel_normal(p: Gumbel, q: Normal) -> Any:
    # -E_p[log q(X)] = log scale_q + log sqrt(2 pi) + E[(X - loc_q)^2] / (2 scale_q^2)
    second = (p.mean - q.loc).pow(2) + p.variance
    return q.scale.log() + _HALF_LOG_2PI + second / (2 * q.scale.pow(2)) - p.entropy()


@register_kl(Gumbel, Uniform)
def _kl_gumbel_uniform(p: Gumbel, q: Uniform) -> Any:
    # a Gumbel puts mass on the whole real line, outside any interval
    shape = _t.broadcast_shapes(tuple(p.batch_shape), tuple(q.batch_shape))
    return _t.full(shape, math.inf, dtype=p.loc.dtype)
