"""Gamma and Dirichlet variates whose values are differentiable in the concentration.

A standard gamma variate ``x ~ Gamma(alpha, 1)`` cannot be written as a smooth
function of ``alpha`` and parameter-free noise, so its gradient is obtained by
*implicit reparameterisation*: holding the CDF value ``u = P(alpha, x)`` fixed
(``P`` the regularised lower incomplete gamma function),

    dx/dalpha = -(dP/dalpha) / (dP/dx),        dP/dx = x**(alpha-1) exp(-x) / Gamma(alpha).

Writing ``P`` as the series ``sum_n x**(alpha+n) exp(-x) / Gamma(alpha+n+1)`` and
differentiating term by term gives, after dividing by the density,

    dx/dalpha = -sum_{n>=0} r_n (log x - digamma(alpha+n+1)),
    r_0 = x / alpha,  r_n = r_{n-1} x / (alpha + n),

which needs neither ``exp`` of large arguments nor ``lgamma``, and is summed in
NumPy (float64) until the terms no longer matter.

Public helpers (our names): :func:`standard_gamma` and :func:`sample_dirichlet`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import tensorlib as _t
from tensorlib.autograd import Function
from tensorlib.ops.creation import _rng

__all__ = ["sample_dirichlet", "standard_gamma", "standard_gamma_grad"]


def _np_digamma(z: np.ndarray) -> np.ndarray:
    """``digamma`` for positive float64 arrays: shift up with the recurrence, then the asymptotic series."""
    z = np.array(z, dtype=np.float64, copy=True)
    shift = np.zeros_like(z)
    small = z < 12.0
    while small.any():  # psi(z) = psi(z + 1) - 1/z
        shift[small] += 1.0 / z[small]
        z[small] += 1.0
        small = z < 12.0
    inv2 = 1.0 / (z * z)
    # Bernoulli-number series: log z - 1/(2z) - sum B_2k / (2k z^2k)
    series = inv2 * (1.0 / 12 - inv2 * (1.0 / 120 - inv2 * (1.0 / 252 - inv2 * (1.0 / 240 - inv2 * (1.0 / 132 - inv2 * (691.0 / 32760 - inv2 / 12))))))
    return np.log(z) - 0.5 / z - series - shift


def _series_derivative(xs: np.ndarray, a: np.ndarray) -> np.ndarray:
    """``dx/dalpha`` from the power series of ``P`` (accurate where ``P`` is not close to 1)."""
    log_x = np.log(xs)
    ratio = xs / a
    psi = _np_digamma(a + 1.0)
    total = ratio * (log_x - psi)
    n = 0
    active = np.ones(xs.shape, dtype=bool)
    # the terms rise while alpha + n < x, then fall off like a Poisson tail
    while active.any():
        n += 1
        idx = np.nonzero(active)[0]
        psi[idx] += 1.0 / (a[idx] + n)
        ratio[idx] *= xs[idx] / (a[idx] + n)
        term = ratio[idx] * (log_x[idx] - psi[idx])
        total[idx] += term
        done = (a[idx] + n > xs[idx]) & (np.abs(term) <= 1e-17 * np.abs(total[idx]))
        done |= ratio[idx] == 0
        active[idx[done]] = False
    return -total


def _fraction_derivative(xs: np.ndarray, a: np.ndarray) -> np.ndarray:
    """``dx/dalpha`` from the upper tail ``Q = 1 - P``, for ``x > alpha + 1``.

    ``Gamma(alpha, x) = x**alpha exp(-x) / K`` with Legendre's continued fraction
    ``K = b0 + c1/(b1 + c2/(b2 + ...))``, ``b_i = x + 2i + 1 - alpha``,
    ``c_i = -i (i - alpha)``. The convergents ``A_n/B_n`` of ``K`` and their
    ``alpha``-derivatives are carried together (forward mode), rescaled as they
    grow. Then ``dx/dalpha = x ((log x - digamma(alpha)) / K - K' / K**2)``.
    """
    # convergents: (A_{n-2}, A_{n-1}) and (B_{n-2}, B_{n-1}), with derivatives
    a_prev, a_cur = np.ones_like(xs), xs + 1.0 - a
    da_prev, da_cur = np.zeros_like(xs), -np.ones_like(xs)
    b_prev, b_cur = np.zeros_like(xs), np.ones_like(xs)
    db_prev, db_cur = np.zeros_like(xs), np.zeros_like(xs)
    k = a_cur / b_cur
    dk = da_cur.copy()
    active = np.ones(xs.shape, dtype=bool)
    i = 0
    while active.any() and i < 100000:
        i += 1
        idx = np.nonzero(active)[0]
        ai = a[idx]
        bi = xs[idx] + 2 * i + 1 - ai
        ci = -i * (i - ai)
        dci = float(i)  # d c_i / d alpha ; d b_i / d alpha = -1
        na = bi * a_cur[idx] + ci * a_prev[idx]
        nb = bi * b_cur[idx] + ci * b_prev[idx]
        nda = -a_cur[idx] + bi * da_cur[idx] + dci * a_prev[idx] + ci * da_prev[idx]
        ndb = -b_cur[idx] + bi * db_cur[idx] + dci * b_prev[idx] + ci * db_prev[idx]
        scale = 1.0 / nb
        a_prev[idx], a_cur[idx] = a_cur[idx] * scale, na * scale
        b_prev[idx], b_cur[idx] = b_cur[idx] * scale, np.ones_like(nb)
        da_prev[idx], da_cur[idx] = da_cur[idx] * scale, nda * scale
        db_prev[idx], db_cur[idx] = db_cur[idx] * scale, ndb * scale
        new_k = a_cur[idx]  # B_n == 1 after rescaling
        new_dk = da_cur[idx] - new_k * db_cur[idx]
        done = (np.abs(new_k - k[idx]) <= 1e-16 * np.abs(new_k)) & (np.abs(new_dk - dk[idx]) <= 1e-16 * np.abs(new_dk))
        k[idx], dk[idx] = new_k, new_dk
        active[idx[done]] = False
    return xs * ((np.log(xs) - _np_digamma(a)) / k - dk / (k * k))


def _np_gamma_sample_derivative(x: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    """``dx/dalpha`` of a standard gamma variate at fixed CDF value (float64 arrays, broadcast)."""
    x = np.asarray(x, dtype=np.float64)
    alpha = np.asarray(alpha, dtype=np.float64)
    shape = np.broadcast(x, alpha).shape
    x, alpha = np.broadcast_to(x, shape).ravel(), np.broadcast_to(alpha, shape).ravel()
    flat = np.full(x.shape, np.nan)
    ok = (x > 0) & np.isfinite(x) & (alpha > 0) & np.isfinite(alpha)
    flat[(x == 0) & (alpha > 0)] = 0.0  # a variate pinned at 0 does not move
    upper = ok & (x > alpha + 1)
    lower = ok & ~upper
    if lower.any():
        flat[lower] = _series_derivative(x[lower], alpha[lower])
    if upper.any():
        flat[upper] = _fraction_derivative(x[upper], alpha[upper])
    return flat.reshape(shape)


def standard_gamma_grad(x: Any, concentration: Any) -> Any:
    """``dx/dconcentration`` of standard gamma variates ``x`` (implicit reparameterisation), as a tensor."""
    xa = x.detach().cpu().numpy() if isinstance(x, _t.Tensor) else np.asarray(x)
    aa = concentration.detach().numpy() if isinstance(concentration, _t.Tensor) else np.asarray(concentration)
    dtype = x.dtype if isinstance(x, _t.Tensor) else _t.get_default_dtype()
    return _t.from_numpy(_np_gamma_sample_derivative(xa, aa)).to(dtype)


class _StandardGamma(Function):
    """Draws ``Gamma(concentration, 1)`` variates; backward uses the implicit derivative ``dx/dconcentration``."""

    @staticmethod
    def forward(ctx: Any, concentration: Any) -> Any:
        alpha = concentration.detach().numpy().astype(np.float64)
        draws = _rng(None).standard_gamma(alpha) if alpha.ndim else np.asarray(_rng(None).standard_gamma(alpha))
        tiny = float(_t.finfo(concentration.dtype).tiny)
        x = _t.from_numpy(np.asarray(draws, dtype=np.float64)).to(concentration.dtype).clamp(min=tiny)
        ctx.save_for_backward(x, concentration)
        return x

    @staticmethod
    def backward(ctx: Any, grad_output: Any) -> Any:
        x, concentration = ctx.saved_tensors
        return grad_output * standard_gamma_grad(x, concentration)


def standard_gamma(concentration: Any) -> Any:
    """``Gamma(concentration, 1)`` variates of ``concentration``'s shape, drawn from the default generator.

    Reproducible with :func:`tensorlib.manual_seed`; differentiable in
    ``concentration`` through the implicit gradient (see the module docstring).
    """
    if not concentration.dtype.is_floating_point:
        raise TypeError(f"standard_gamma expects a floating point concentration, got {concentration.dtype}")
    return _StandardGamma.apply(concentration)


def sample_dirichlet(concentration: Any) -> Any:
    """``Dirichlet(concentration)`` variates (over the last dim): standard gammas divided by their sum.

    The gradient in ``concentration`` flows through the gamma variates' implicit
    gradients and, by ordinary autograd, through the normalisation.
    """
    gammas = standard_gamma(concentration)
    result = gammas / gammas.sum(-1, keepdim=True)
    finfo = _t.finfo(concentration.dtype)
    return result.clamp(min=finfo.tiny, max=1 - finfo.eps)
