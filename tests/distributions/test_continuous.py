"""Continuous families (Exponential, Gamma, Chi2, Beta, Dirichlet, Laplace, Cauchy, StudentT, FisherSnedecor):
closed forms, the implicitly reparameterised gamma sampler, sampling statistics, gradients, shapes, validation,
and parity with torch."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tensorlib
from tensorlib.autograd import gradcheck
from tensorlib.distributions import (
    Beta,
    Cauchy,
    Chi2,
    Dirichlet,
    Exponential,
    ExponentialFamily,
    FisherSnedecor,
    Gamma,
    Laplace,
    StudentT,
)
from tensorlib.distributions._gamma_sampling import sample_dirichlet, standard_gamma, standard_gamma_grad
from tests.helpers import assert_close

D = tensorlib.float64
EULER = 0.5772156649015329


def t(values):
    return tensorlib.tensor(values, dtype=D)


def _digamma(x):
    """Reference digamma: recurrence up to 20, then the asymptotic series (independent of the library's)."""
    acc = 0.0
    while x < 20:
        acc -= 1 / x
        x += 1
    x2 = 1 / (x * x)
    return acc + math.log(x) - 0.5 / x - x2 * (1 / 12 - x2 * (1 / 120 - x2 * (1 / 252 - x2 / 240)))


def _lbeta(a, b):
    return math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)


def _gammainc(a, x):
    """Reference regularised lower incomplete gamma by its power series (fine for moderate x)."""
    term = total = 1 / a
    n = 0
    while abs(term) > 1e-18 * total:
        n += 1
        term *= x / (a + n)
        total += term
    return total * math.exp(a * math.log(x) - x - math.lgamma(a))


# -- closed forms ----------------------------------------------------------------------------------


def test_exponential_closed_forms():
    rate = [0.5, 2.0, 3.5]
    e = Exponential(t(rate))
    x = [0.3, 1.7, 0.0]
    assert_close(e.log_prob(t(x)), [math.log(r) - r * v for r, v in zip(rate, x)], rtol=1e-13, atol=0)
    assert_close(e.cdf(t(x)), [1 - math.exp(-r * v) for r, v in zip(rate, x)], rtol=1e-13, atol=1e-300)
    assert_close(e.icdf(e.cdf(t(x))), x, rtol=1e-12, atol=1e-15)
    assert_close(e.entropy(), [1 - math.log(r) for r in rate], rtol=1e-13, atol=0)
    assert_close(e.mean, [1 / r for r in rate], rtol=1e-14, atol=0)
    assert_close(e.stddev, [1 / r for r in rate], rtol=1e-14, atol=0)
    assert_close(e.variance, [1 / r**2 for r in rate], rtol=1e-14, atol=0)
    assert e.mode.tolist() == [0.0, 0.0, 0.0]
    # the exponential-family entropy (from the log-normalizer) agrees with the closed form
    assert_close(ExponentialFamily.entropy(e).detach(), e.entropy(), rtol=1e-12, atol=0)


def test_gamma_closed_forms():
    conc, rate = [0.5, 2.0, 7.5], [1.5, 0.3, 2.0]
    g = Gamma(t(conc), t(rate))
    x = [0.2, 4.0, 3.3]
    expected = [a * math.log(b) + (a - 1) * math.log(v) - b * v - math.lgamma(a) for a, b, v in zip(conc, rate, x)]
    assert_close(g.log_prob(t(x)), expected, rtol=1e-13, atol=0)
    assert_close(g.cdf(t(x)), [_gammainc(a, b * v) for a, b, v in zip(conc, rate, x)], rtol=1e-10, atol=0)
    ent = [a - math.log(b) + math.lgamma(a) + (1 - a) * _digamma(a) for a, b in zip(conc, rate)]
    assert_close(g.entropy(), ent, rtol=1e-12, atol=0)
    assert_close(ExponentialFamily.entropy(g).detach(), ent, rtol=1e-12, atol=0)
    assert_close(g.mean, [a / b for a, b in zip(conc, rate)], rtol=1e-14, atol=0)
    assert_close(g.variance, [a / b**2 for a, b in zip(conc, rate)], rtol=1e-14, atol=0)
    assert_close(g.mode, [0.0, 1 / 0.3, 6.5 / 2.0], rtol=1e-14, atol=0)
    # log_prob at 0: finite for concentration 1, +inf below 1
    assert Gamma(t(1.0), t(2.0)).log_prob(t(0.0)).item() == pytest.approx(math.log(2.0))
    assert Gamma(t(0.5), t(2.0)).log_prob(t(0.0)).item() == math.inf


def test_chi2_is_gamma_with_rate_half():
    c = Chi2(t([1.0, 3.0, 10.0]))
    assert isinstance(c, Gamma)
    assert_close(c.df, [1.0, 3.0, 10.0]) and assert_close(c.rate, [0.5, 0.5, 0.5])
    g = Gamma(t([0.5, 1.5, 5.0]), t(0.5))
    x = t([0.5, 2.0, 12.0])
    assert_close(c.log_prob(x), g.log_prob(x), rtol=1e-14, atol=0)
    assert_close(c.mean, [1.0, 3.0, 10.0]) and assert_close(c.variance, [2.0, 6.0, 20.0])
    # chi2 with 2 dof is exponential with rate 1/2
    assert_close(Chi2(t(2.0)).cdf(t(3.0)), 1 - math.exp(-1.5), rtol=1e-12, atol=0)
    assert repr(c) == "Chi2()"


def test_beta_closed_forms():
    a, b = [0.5, 2.0, 3.0], [3.0, 0.7, 4.0]
    beta = Beta(t(a), t(b))
    x = [0.2, 0.9, 0.45]
    expected = [(ai - 1) * math.log(v) + (bi - 1) * math.log(1 - v) - _lbeta(ai, bi) for ai, bi, v in zip(a, b, x)]
    assert_close(beta.log_prob(t(x)), expected, rtol=1e-13, atol=0)
    ent = [_lbeta(ai, bi) - (ai - 1) * _digamma(ai) - (bi - 1) * _digamma(bi) + (ai + bi - 2) * _digamma(ai + bi)
           for ai, bi in zip(a, b)]
    assert_close(beta.entropy(), ent, rtol=1e-12, atol=0)
    assert_close(beta.mean, [ai / (ai + bi) for ai, bi in zip(a, b)], rtol=1e-14, atol=0)
    assert_close(beta.variance, [ai * bi / ((ai + bi) ** 2 * (ai + bi + 1)) for ai, bi in zip(a, b)], rtol=1e-14)
    assert_close(beta.mode, [0.0, 1.0, 2 / 5], rtol=1e-14, atol=0)
    assert_close(beta.concentration1, a) and assert_close(beta.concentration0, b)
    # Beta(1, 1) is uniform
    assert Beta(1.0, 1.0).log_prob(tensorlib.tensor(0.3)).item() == pytest.approx(0.0, abs=1e-7)
    assert Beta(1.0, 2.0).batch_shape == () and Beta(t([1.0]), 2.0).batch_shape == (1,)


def test_dirichlet_closed_forms():
    conc = [[0.5, 2.0, 3.0], [1.0, 4.0, 0.3]]
    d = Dirichlet(t(conc))
    assert d.batch_shape == (2,) and d.event_shape == (3,)
    x = [[0.2, 0.3, 0.5], [0.1, 0.6, 0.3]]
    exp_lp, exp_ent = [], []
    for c, v in zip(conc, x):
        c0 = sum(c)
        lnb = sum(math.lgamma(ci) for ci in c) - math.lgamma(c0)
        exp_lp.append(sum((ci - 1) * math.log(vi) for ci, vi in zip(c, v)) - lnb)
        exp_ent.append(lnb + (c0 - 3) * _digamma(c0) - sum((ci - 1) * _digamma(ci) for ci in c))
    assert_close(d.log_prob(t(x)), exp_lp, rtol=1e-13, atol=0)
    assert_close(d.entropy(), exp_ent, rtol=1e-12, atol=0)
    assert_close(d.mean, [[ci / sum(c) for ci in c] for c in conc], rtol=1e-14, atol=0)
    assert_close(d.variance, [[ci * (sum(c) - ci) / (sum(c) ** 2 * (sum(c) + 1)) for ci in c] for c in conc],
                 rtol=1e-13, atol=0)
    mode = Dirichlet(t([[0.5, 2.0, 3.0], [0.3, 0.5, 0.2], [2.0, 1.0, 1.0]])).mode
    assert_close(mode, [[0.0, 1 / 3, 2 / 3], [1.0, 0.0, 0.0], [1.0, 0.0, 0.0]], rtol=1e-14, atol=0)
    # a two-category Dirichlet is a Beta on its first coordinate
    beta = Beta(t(2.0), t(3.0))
    assert_close(Dirichlet(t([2.0, 3.0])).log_prob(t([0.3, 0.7])), beta.log_prob(t(0.3)), rtol=1e-13, atol=0)
    assert_close(Dirichlet(t([2.0, 3.0])).entropy(), beta.entropy(), rtol=1e-13, atol=0)


def test_laplace_closed_forms():
    loc, scale = [0.0, 1.0, -2.0], [1.0, 0.5, 3.0]
    lap = Laplace(t(loc), t(scale))
    x = [0.3, 0.2, -7.0]
    assert_close(lap.log_prob(t(x)), [-math.log(2 * s) - abs(v - m) / s for m, s, v in zip(loc, scale, x)],
                 rtol=1e-13, atol=0)
    cdf = [0.5 * math.exp((v - m) / s) if v < m else 1 - 0.5 * math.exp(-(v - m) / s)
           for m, s, v in zip(loc, scale, x)]
    assert_close(lap.cdf(t(x)), cdf, rtol=1e-13, atol=0)
    assert_close(lap.icdf(t(cdf)), x, rtol=1e-12, atol=0)
    assert_close(lap.entropy(), [1 + math.log(2 * s) for s in scale], rtol=1e-13, atol=0)
    assert_close(lap.variance, [2 * s * s for s in scale]) and assert_close(lap.stddev, [math.sqrt(2) * s for s in scale])
    assert_close(lap.mean, loc) and assert_close(lap.mode, loc)


def test_cauchy_closed_forms():
    loc, scale = [0.0, 1.0, -2.0], [1.0, 0.5, 3.0]
    c = Cauchy(t(loc), t(scale))
    x = [0.3, 0.2, -7.0]
    assert_close(c.log_prob(t(x)), [-math.log(math.pi * s * (1 + ((v - m) / s) ** 2)) for m, s, v in zip(loc, scale, x)],
                 rtol=1e-13, atol=0)
    cdf = [math.atan((v - m) / s) / math.pi + 0.5 for m, s, v in zip(loc, scale, x)]
    assert_close(c.cdf(t(x)), cdf, rtol=1e-13, atol=0)
    assert_close(c.icdf(t(cdf)), x, rtol=1e-12, atol=0)
    assert_close(c.entropy(), [math.log(4 * math.pi * s) for s in scale], rtol=1e-13, atol=0)
    assert np.isnan(c.mean.numpy()).all() and np.isinf(c.variance.numpy()).all()
    assert_close(c.mode, loc)


def test_studentt_closed_forms():
    df, loc, scale = [0.5, 3.0, 10.0], [0.0, 1.0, -2.0], [1.0, 0.5, 3.0]
    s = StudentT(t(df), t(loc), t(scale))
    x = [0.3, 0.2, -7.0]
    expected = [math.lgamma((n + 1) / 2) - math.lgamma(n / 2) - math.log(sc * math.sqrt(math.pi * n))
                - (n + 1) / 2 * math.log1p(((v - m) / sc) ** 2 / n) for n, m, sc, v in zip(df, loc, scale, x)]
    assert_close(s.log_prob(t(x)), expected, rtol=1e-13, atol=0)
    ent = [math.log(sc) + (n + 1) / 2 * (_digamma((n + 1) / 2) - _digamma(n / 2)) + 0.5 * math.log(n)
           + _lbeta(n / 2, 0.5) for n, sc in zip(df, scale)]
    assert_close(s.entropy(), ent, rtol=1e-12, atol=0)
    dfs = StudentT(t([0.5, 1.0, 1.5, 2.0, 3.0]))
    assert np.allclose(dfs.mean.numpy(), [np.nan, np.nan, 0, 0, 0], equal_nan=True)
    assert np.allclose(dfs.variance.numpy(), [np.nan, np.nan, np.inf, np.inf, 3.0], equal_nan=True)
    assert StudentT(3.0).loc.item() == 0.0 and StudentT(3.0).scale.item() == 1.0
    # one degree of freedom is the Cauchy distribution
    assert_close(StudentT(t(1.0), t(0.5), t(2.0)).log_prob(t(1.3)), Cauchy(t(0.5), t(2.0)).log_prob(t(1.3)),
                 rtol=1e-13, atol=0)


def test_fishersnedecor_closed_forms():
    d1, d2 = [1.0, 3.0, 5.0], [1.0, 4.5, 6.0]
    f = FisherSnedecor(t(d1), t(d2))
    x = [0.3, 1.2, 4.0]
    expected = [0.5 * a * math.log(a / b) + (0.5 * a - 1) * math.log(v) - 0.5 * (a + b) * math.log1p(a * v / b)
                - _lbeta(a / 2, b / 2) for a, b, v in zip(d1, d2, x)]
    assert_close(f.log_prob(t(x)), expected, rtol=1e-13, atol=0)
    assert np.allclose(f.mean.numpy(), [np.nan, 4.5 / 2.5, 1.5], equal_nan=True, rtol=1e-14)
    assert np.allclose(f.mode.numpy(), [np.nan, (1 / 3) * 4.5 / 6.5, 0.6 * 6 / 8], equal_nan=True, rtol=1e-14)
    assert np.allclose(f.variance.numpy(), [np.nan, 2 * 4.5**2 * 5.5 / (3 * 2.5**2 * 0.5), 2 * 36 * 9 / (5 * 16 * 2)],
                       equal_nan=True, rtol=1e-13)
    with pytest.raises(NotImplementedError):
        f.entropy()


# -- the implicit gamma sampler ---------------------------------------------------------------------


def _inverse_gammainc(alpha, u):
    """``x`` with ``P(alpha, x) = u`` (vectorised bisection on the library's gammainc)."""
    a = t(alpha)
    lo, hi = np.zeros(len(alpha)), np.full(len(alpha), 200.0)
    for _ in range(110):
        mid = 0.5 * (lo + hi)
        below = tensorlib.special.gammainc(a, t(mid)).numpy() < u
        lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
    return 0.5 * (lo + hi)


def test_standard_gamma_grad_matches_finite_differences_at_fixed_quantile():
    alpha = np.array([0.05, 0.3, 1.0, 2.0, 7.0, 30.0, 0.8, 1.0])
    u = np.array([0.3, 0.2, 0.5, 0.9, 0.05, 0.6, 0.999, 0.99999])
    x = _inverse_gammainc(alpha, u)
    h = 1e-5 * alpha
    fd = (_inverse_gammainc(alpha + h, u) - _inverse_gammainc(alpha - h, u)) / (2 * h)
    ours = standard_gamma_grad(t(x), t(alpha)).numpy()
    np.testing.assert_allclose(ours, fd, rtol=1e-6)


def test_standard_gamma_grad_closed_forms():
    # alpha = 1: x = -log(1 - u) and d/dalpha has the closed form log x + gamma + e^x E1(x) at large x;
    # checked here against the upper-tail integral for one point, and x -> 0 behaviour for tiny alpha:
    # for small x, P(alpha, x) ~ x^alpha / Gamma(alpha + 1), so dx/dalpha ~ x (digamma(alpha + 1) - log x) / alpha
    x, a = 1e-12, 0.3
    expected = x * (_digamma(a + 1) - math.log(x)) / a
    assert standard_gamma_grad(t(x), t(a)).item() == pytest.approx(expected, rel=1e-9)
    # far upper tail (alpha = 1, x = 40): log 40 + gamma + e^40 E1(40), E1(40) e^40 ~ 1/40 (1 - 1/40 + 2/40^2 - ...)
    e1 = sum((-1) ** k * math.factorial(k) / 40.0 ** (k + 1) for k in range(12))
    assert standard_gamma_grad(t(40.0), t(1.0)).item() == pytest.approx(math.log(40) + EULER + e1, rel=1e-9)
    assert standard_gamma_grad(t(0.0), t(2.0)).item() == 0.0


def test_standard_gamma_grad_close_to_torch():
    torch = pytest.importorskip("torch")
    alpha = np.array([0.01, 0.1, 0.5, 2.0, 10.0, 1000.0, 1e5])
    x = np.array([1e-5, 0.05, 1e-8, 0.01, 9.0, 1050.0, 1e5 + 300])
    theirs = torch._standard_gamma_grad(torch.tensor(alpha), torch.tensor(x)).numpy()
    ours = standard_gamma_grad(t(x), t(alpha)).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-4)  # torch approximates away from small x


def test_standard_gamma_reproducible_and_differentiable():
    tensorlib.manual_seed(3)
    a = t([0.4, 2.0, 9.0]).requires_grad_()
    x1 = standard_gamma(a)
    tensorlib.manual_seed(3)
    x2 = standard_gamma(a.detach())
    assert x1.tolist() == x2.tolist() and x1.dtype == D
    x1.sum().backward()
    assert_close(a.grad, standard_gamma_grad(x1.detach(), a.detach()), rtol=1e-14, atol=0)
    f32 = standard_gamma(tensorlib.tensor([0.5, 3.0]))
    assert f32.dtype == tensorlib.float32 and (f32 > 0).all()
    with pytest.raises(TypeError):
        standard_gamma(tensorlib.tensor([1, 2]))


def test_standard_gamma_gradient_is_unbiased():
    # E[x] = alpha, so E[dx/dalpha] = 1; and E[x dx/dalpha] = d E[x^2] / 2 dalpha = alpha + 1/2
    tensorlib.manual_seed(0)
    a = t([0.3, 2.5]).requires_grad_()
    x = standard_gamma(a.expand(40000, 2))
    grads = standard_gamma_grad(x.detach(), a.detach().expand(40000, 2)).numpy()
    np.testing.assert_allclose(grads.mean(0), [1.0, 1.0], rtol=0.03)
    np.testing.assert_allclose((x.detach().numpy() * grads).mean(0), [0.8, 3.0], rtol=0.05)


def test_sample_dirichlet_gradient_is_unbiased():
    tensorlib.manual_seed(1)
    c = t([0.7, 2.0, 1.3]).requires_grad_()
    n = 30000
    x = sample_dirichlet(c.expand(n, 3))
    assert_close(x.sum(-1).detach(), np.ones(n), rtol=1e-12, atol=1e-12)
    (x[:, 0].sum() / n).backward()
    c0 = 4.0
    expected = [(c0 - 0.7) / c0**2, -0.7 / c0**2, -0.7 / c0**2]  # d(c_0 / sum c) / dc
    np.testing.assert_allclose(c.grad.numpy(), expected, atol=0.01)


# -- sampling -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("make", [
    lambda: Exponential(t([0.5, 3.0])),
    lambda: Gamma(t([0.3, 4.0]), t([2.0, 0.5])),
    lambda: Chi2(t([1.0, 5.0])),
    lambda: Beta(t([0.5, 3.0]), t([2.0, 1.5])),
    lambda: Dirichlet(t([[0.5, 2.0, 3.0], [4.0, 1.0, 1.0]])),
    lambda: Laplace(t([1.0, -2.0]), t([0.5, 2.0])),
    lambda: StudentT(t([6.0, 9.0]), t([1.0, -1.0]), t([2.0, 0.5])),
    lambda: FisherSnedecor(t([5.0, 8.0]), t([12.0, 20.0])),
], ids=["exponential", "gamma", "chi2", "beta", "dirichlet", "laplace", "studentt", "fisher"])
def test_sample_moments(make):
    d = make()
    tensorlib.manual_seed(123)
    s = d.sample((40000,))
    assert s.shape == (40000,) + tuple(d.batch_shape) + tuple(d.event_shape)
    assert not s.requires_grad
    assert bool(d.support.check(s).all())
    mean, var = d.mean.numpy(), d.variance.numpy()
    assert (np.abs(s.numpy().mean(0) - mean) <= 0.03 * np.abs(mean) + 0.03 * np.sqrt(var)).all()
    np.testing.assert_allclose(s.numpy().var(0), var, rtol=0.12)
    tensorlib.manual_seed(9)
    again = make().sample((3,))
    tensorlib.manual_seed(9)
    assert make().sample((3,)).tolist() == again.tolist()


def test_cauchy_sample_quantiles():
    tensorlib.manual_seed(5)
    c = Cauchy(t(1.0), t(2.0))
    s = np.sort(c.sample((20000,)).numpy())
    np.testing.assert_allclose([s[5000], s[10000], s[15000]], [-1.0, 1.0, 3.0], atol=0.1)


@pytest.mark.parametrize("make,param", [
    (lambda p: Exponential(p), [1.5, 0.5]),
    (lambda p: Gamma(p, t([2.0, 0.5])), [0.8, 3.0]),
    (lambda p: Gamma(t([2.0, 0.5]), p), [0.8, 3.0]),
    (lambda p: Chi2(p), [1.0, 4.0]),
    (lambda p: Beta(p, t([2.0, 0.5])), [0.8, 3.0]),
    (lambda p: Laplace(p, t([2.0, 0.5])), [0.8, -3.0]),
    (lambda p: StudentT(t(5.0), p, t(2.0)), [2.8, 5.0]),
], ids=["exp", "gamma-a", "gamma-rate", "chi2", "beta", "laplace", "studentt-loc"])
def test_rsample_mean_gradient(make, param):
    """The gradient of the sample mean approximates the gradient of the true mean (unbiasedness)."""
    tensorlib.manual_seed(7)
    p = t(param).requires_grad_()
    d = make(p)
    n = 20000
    d.rsample((n,)).mean(0).sum().backward()
    q = t(param).requires_grad_()
    truth = make(q).mean.sum()
    (expected,) = tensorlib.autograd.grad(truth, q) if truth.requires_grad else (tensorlib.zeros(2, dtype=D),)
    np.testing.assert_allclose(p.grad.numpy(), expected.numpy(), rtol=0.05, atol=0.02)


def test_rsample_gradients_studentt_df_and_cauchy():
    # E[(x - loc)^2] = scale^2 df / (df - 2): its df-gradient is -2 scale^2 / (df - 2)^2
    tensorlib.manual_seed(11)
    df = t([8.0, 12.0]).requires_grad_()
    x = StudentT(df, t(0.0), t(1.0)).rsample((40000,))
    x.pow(2).mean(0).sum().backward()
    np.testing.assert_allclose(df.grad.numpy(), [-2 / 36, -2 / 100], rtol=0.25)
    # a Cauchy sample is loc + scale * noise: d/dloc = 1 and d/dscale = (x - loc) / scale
    loc, scale = t(0.5).requires_grad_(), t(2.0).requires_grad_()
    y = Cauchy(loc, scale).rsample((5,))
    y.sum().backward()
    assert loc.grad.item() == 5.0
    assert scale.grad.item() == pytest.approx(((y.detach() - 0.5) / 2.0).sum().item(), rel=1e-12)


def test_rsample_gradients_fisher_and_dirichlet_exist():
    tensorlib.manual_seed(2)
    d1, d2 = t(5.0).requires_grad_(), t(9.0).requires_grad_()
    FisherSnedecor(d1, d2).rsample((100,)).sum().backward()
    assert d1.grad is not None and d2.grad is not None and math.isfinite(d1.grad.item())
    c = t([1.0, 2.0]).requires_grad_()
    Dirichlet(c).rsample((10,))[..., 0].sum().backward()
    assert np.isfinite(c.grad.numpy()).all()


# -- gradients of densities and entropies ------------------------------------------------------------


def test_gradcheck_log_prob_and_entropy():
    def p(v):
        return t(v).requires_grad_()

    x = t([0.3, 0.8])
    checks = [
        (lambda r: Exponential(r).log_prob(x), [p([0.5, 2.0])]),
        (lambda a, r: Gamma(a, r).log_prob(x), [p([0.5, 2.0]), p([1.5, 0.7])]),
        (lambda a, r: Gamma(a, r).entropy(), [p([0.5, 2.0]), p([1.5, 0.7])]),
        (lambda a, b: Beta(a, b).log_prob(x), [p([0.5, 2.0]), p([1.5, 0.7])]),
        (lambda a, b: Beta(a, b).entropy(), [p([0.5, 2.0]), p([1.5, 0.7])]),
        (lambda c: Dirichlet(c).log_prob(t([0.2, 0.3, 0.5])), [p([0.5, 2.0, 1.2])]),
        (lambda c: Dirichlet(c).entropy(), [p([0.5, 2.0, 1.2])]),
        (lambda m, s: Laplace(m, s).log_prob(t([0.3, 0.9])), [p([0.1, 2.0]), p([1.5, 0.7])]),
        (lambda m, s: Cauchy(m, s).log_prob(x), [p([0.1, 2.0]), p([1.5, 0.7])]),
        (lambda n, m, s: StudentT(n, m, s).log_prob(x), [p([0.5, 4.0]), p([0.1, 2.0]), p([1.5, 0.7])]),
        (lambda n: StudentT(n).entropy(), [p([0.5, 4.0])]),
        (lambda a, b: FisherSnedecor(a, b).log_prob(x), [p([0.5, 4.0]), p([1.5, 7.0])]),
        (lambda r: Gamma(t([0.5, 2.0]), r).cdf(x), [p([1.5, 0.7])]),
    ]
    for fn, inputs in checks:
        assert gradcheck(fn, inputs)


# -- shapes, expand, validation, repr --------------------------------------------------------------


@pytest.mark.parametrize("make", [
    lambda: Exponential(t([0.5, 3.0])),
    lambda: Gamma(t([0.3, 4.0]), t(2.0)),
    lambda: Chi2(t([1.0, 5.0])),
    lambda: Beta(t([0.5, 3.0]), t(2.0)),
    lambda: Dirichlet(t([[0.5, 2.0, 3.0], [4.0, 1.0, 1.0]])),
    lambda: Laplace(t([1.0, -2.0]), t(0.5)),
    lambda: Cauchy(t([1.0, -2.0]), t(0.5)),
    lambda: StudentT(t([6.0, 9.0])),
    lambda: FisherSnedecor(t([5.0, 8.0]), t(12.0)),
])
def test_expand_and_shapes(make):
    d = make()
    e = d.expand((4, 2))
    assert type(e) is type(d) and e.batch_shape == (4, 2) and e.event_shape == d.event_shape
    assert e._validate_args == d._validate_args
    s = e.sample((3,))
    assert s.shape == (3, 4, 2) + tuple(d.event_shape)
    lp = e.log_prob(s)
    assert lp.shape == (3, 4, 2)
    assert_close(lp[:, 0], d.log_prob(s[:, 0]), rtol=1e-14, atol=0)
    assert_close(e.mean[0], d.mean, rtol=1e-14, atol=0)
    assert d.sample().shape == tuple(d.batch_shape) + tuple(d.event_shape)
    assert d.rsample([2]).shape == (2,) + tuple(d.batch_shape) + tuple(d.event_shape)


def test_validation_errors():
    for bad in [lambda: Exponential(t(-1.0)), lambda: Gamma(t(0.0), t(1.0)), lambda: Gamma(t(1.0), t(-1.0)),
                lambda: Chi2(t(0.0)), lambda: Beta(t(-1.0), t(1.0)), lambda: Dirichlet(t([1.0, -1.0])),
                lambda: Laplace(t(0.0), t(0.0)), lambda: Cauchy(t(math.nan), t(1.0)), lambda: StudentT(t(-2.0)),
                lambda: FisherSnedecor(t(1.0), t(0.0))]:
        with pytest.raises(ValueError, match="Expected parameter"):
            bad()
    with pytest.raises(ValueError, match="must be at least one-dimensional"):
        Dirichlet(t(1.0))
    with pytest.raises(ValueError, match="to be within the support"):
        Gamma(t(1.0), t(1.0)).log_prob(t(-1.0))
    with pytest.raises(ValueError, match="to be within the support"):
        Beta(t(1.0), t(1.0)).log_prob(t(1.5))
    with pytest.raises(ValueError, match="to be within the support"):
        Dirichlet(t([1.0, 1.0])).log_prob(t([0.5, 0.6]))
    with pytest.raises(ValueError, match="to be within the support"):
        FisherSnedecor(t(1.0), t(1.0)).log_prob(t(0.0))
    Exponential(t(-1.0), validate_args=False)  # no check when asked not to


def test_reprs():
    assert repr(Gamma(t(1.0), t(2.0))) == "Gamma(concentration: 1.0, rate: 2.0)"
    assert repr(Beta(t(1.0), t(2.0))) == "Beta()"
    assert repr(Dirichlet(t([1.0, 2.0]))) == "Dirichlet(concentration: tensorlib.Size([2]))"
    assert repr(StudentT(t(3.0))) == "StudentT(df: 3.0, loc: 0.0, scale: 1.0)"


# -- parity with torch -----------------------------------------------------------------------------------

_PARITY = {
    "Exponential": ([[0.5, 2.0, 1.3]], [0.3, 4.0, 0.0]),
    "Gamma": ([[0.5, 2.0, 1.0], [1.5, 0.3, 2.0]], [0.3, 4.0, 0.0]),
    "Chi2": ([[0.5, 3.0, 2.0]], [0.3, 4.0, 1.0]),
    "Beta": ([[0.5, 2.0, 0.5], [1.5, 0.3, 0.5]], [0.3, 0.9, 0.5]),
    "Dirichlet": ([[[0.5, 2.0, 3.0], [1.0, 1.0, 0.2], [0.3, 0.5, 0.2]]], [[0.2, 0.3, 0.5], [0.1, 0.1, 0.8], [0.3, 0.3, 0.4]]),
    "Laplace": ([[0.5, -2.0, 0.0], [1.5, 0.3, 1.0]], [0.3, 4.0, -1.0]),
    "Cauchy": ([[0.5, -2.0, 0.0], [1.5, 0.3, 1.0]], [0.3, 4.0, -1.0]),
    "StudentT": ([[0.5, 3.0, 1.5], [1.0, 2.0, 0.0], [0.5, 3.0, 1.0]], [0.3, 4.0, -1.0]),
    "FisherSnedecor": ([[0.5, 3.0, 5.0], [5.0, 7.0, 3.0]], [0.3, 4.0, 1.0]),
}


@pytest.mark.parametrize("name", sorted(_PARITY))
def test_matches_torch(name):
    torch = pytest.importorskip("torch")
    import tensorlib.distributions as ours_mod
    args, value = _PARITY[name]
    ours = getattr(ours_mod, name)(*[t(a) for a in args])
    theirs = getattr(torch.distributions, name)(*[torch.tensor(a, dtype=torch.float64) for a in args])
    assert repr(ours).replace("tensorlib.", "torch.") == repr(theirs)
    assert ours.batch_shape == theirs.batch_shape and ours.event_shape == theirs.event_shape
    assert ours.has_rsample == theirs.has_rsample and ours.has_enumerate_support == theirs.has_enumerate_support
    assert repr(ours.support) == repr(theirs.support)
    assert {k: repr(v) for k, v in ours.arg_constraints.items()} == {k: repr(v) for k, v in
                                                                     theirs.arg_constraints.items()}
    v_ours, v_theirs = t(value), torch.tensor(value, dtype=torch.float64)
    q_ours, q_theirs = t([0.1, 0.7, 0.5]), torch.tensor([0.1, 0.7, 0.5], dtype=torch.float64)

    def both(fn_ours, fn_theirs):
        try:
            expected = fn_theirs()
        except NotImplementedError:
            with pytest.raises(NotImplementedError):
                fn_ours()
            return
        np.testing.assert_allclose(fn_ours().detach().numpy(), expected.detach().numpy(), rtol=1e-10, atol=1e-300)

    both(lambda: ours.log_prob(v_ours), lambda: theirs.log_prob(v_theirs))
    both(lambda: ours.cdf(v_ours), lambda: theirs.cdf(v_theirs))
    both(lambda: ours.icdf(q_ours), lambda: theirs.icdf(q_theirs))
    both(ours.entropy, theirs.entropy)
    for attr in ("mean", "mode", "variance", "stddev"):
        both(lambda a=attr: getattr(ours, a), lambda a=attr: getattr(theirs, a))
    if isinstance(ours, ExponentialFamily):
        both(lambda: ours._log_normalizer(*ours._natural_params),
             lambda: theirs._log_normalizer(*theirs._natural_params))
    e_ours, e_theirs = ours.expand((2, 3)), theirs.expand((2, 3))
    assert e_ours.batch_shape == e_theirs.batch_shape
    assert repr(e_ours).replace("tensorlib.", "torch.") == repr(e_theirs)


@pytest.mark.parametrize("name", sorted(_PARITY))
def test_invalid_args_like_torch(name):
    torch = pytest.importorskip("torch")
    import tensorlib.distributions as ours_mod
    args, _ = _PARITY[name]
    bad = [[-1.0 if i == 0 else v for i, v in enumerate(np.ravel(a))] for a in args]
    bad = [np.reshape(b, np.shape(a)).tolist() for b, a in zip(bad, args)]
    if name in ("Laplace", "Cauchy"):
        bad = [args[0], [0.0] + list(args[1][1:])]
    with pytest.raises(Exception) as theirs:
        getattr(torch.distributions, name)(*[torch.tensor(a, dtype=torch.float64) for a in bad])
    with pytest.raises(theirs.type) as ours:
        getattr(ours_mod, name)(*[t(a) for a in bad])
    assert str(ours.value).replace("tensorlib.", "torch.").split("\n")[0] == str(theirs.value).split("\n")[0]


# -- Wishart ---------------------------------------------------------------------------------------------

_SIGMA = [[2.0, 0.3], [0.3, 1.0]]


def _wishart_log_prob_reference(x, n, sigma):
    x, sigma = np.array(x), np.array(sigma)
    p = x.shape[0]
    log_mvgamma = p * (p - 1) / 4 * math.log(math.pi) + sum(math.lgamma(n / 2 - i / 2) for i in range(p))
    return (0.5 * (n - p - 1) * math.log(np.linalg.det(x)) - 0.5 * np.trace(np.linalg.solve(sigma, x))
            - 0.5 * n * p * math.log(2) - 0.5 * n * math.log(np.linalg.det(sigma)) - log_mvgamma)


def test_wishart_closed_forms_and_parameterisations():
    from tensorlib.distributions import Wishart
    sigma = np.array(_SIGMA)
    x = [[1.5, 0.2], [0.2, 0.8]]
    by_cov = Wishart(t([3.0, 4.5]), covariance_matrix=t(_SIGMA))
    by_prec = Wishart(t([3.0, 4.5]), precision_matrix=t(np.linalg.inv(sigma)))
    by_tril = Wishart(t([3.0, 4.5]), scale_tril=t(np.linalg.cholesky(sigma)))
    expected = [_wishart_log_prob_reference(x, n, sigma) for n in (3.0, 4.5)]
    for w in (by_cov, by_prec, by_tril):
        assert w.batch_shape == (2,) and w.event_shape == (2, 2)
        assert_close(w.log_prob(t(x)), expected, rtol=1e-12, atol=0)
        assert_close(w.covariance_matrix[1], sigma, rtol=1e-12, atol=1e-15)
        assert_close(w.precision_matrix[0], np.linalg.inv(sigma), rtol=1e-12, atol=1e-15)
        assert_close(w.scale_tril[0], np.linalg.cholesky(sigma), rtol=1e-12, atol=1e-15)
        assert_close(w.mean, [3.0 * sigma, 4.5 * sigma], rtol=1e-13, atol=0)
        outer = sigma**2 + np.outer(np.diag(sigma), np.diag(sigma))
        assert_close(w.variance, [3.0 * outer, 4.5 * outer], rtol=1e-13, atol=0)
    mode = by_cov.mode.numpy()
    assert np.isnan(mode[0]).all() and np.allclose(mode[1], 1.5 * sigma, rtol=1e-13)
    # the closed-form entropy agrees with the exponential-family one (from the log-normalizer)
    assert_close(ExponentialFamily.entropy(by_cov).detach(), by_cov.entropy(), rtol=1e-12, atol=0)
    # one dimension: a Wishart is a Gamma(df / 2, 1 / (2 sigma))
    w1 = Wishart(t(3.5), covariance_matrix=t([[1.7]]))
    g = Gamma(t(1.75), t(1 / 3.4))
    assert_close(w1.log_prob(t([[2.2]])), g.log_prob(t(2.2)), rtol=1e-12, atol=0)
    assert_close(w1.entropy(), g.entropy(), rtol=1e-12, atol=0)


def test_wishart_sampling_and_gradients():
    from tensorlib.distributions import Wishart
    tensorlib.manual_seed(4)
    df = t([3.0, 6.5]).requires_grad_()
    w = Wishart(df, t(_SIGMA))
    s = w.rsample((20000,))
    assert s.shape == (20000, 2, 2, 2)
    assert bool(w.support.check(s.detach()).all())
    np.testing.assert_allclose(s.detach().numpy().mean(0), w.mean.detach().numpy(), rtol=0.03)
    np.testing.assert_allclose(s.detach().numpy().var(0), w.variance.detach().numpy(), rtol=0.1)
    s.mean(0)[..., 0, 0].sum().backward()  # d E[X_00] / d df = sigma_00
    np.testing.assert_allclose(df.grad.numpy(), [2.0, 2.0], rtol=0.03)
    sig = t(_SIGMA).requires_grad_()
    assert gradcheck(lambda m, n: Wishart(n, covariance_matrix=(m + m.mT) / 2).log_prob(t([[1.5, 0.2], [0.2, 0.8]])),
                     [sig, t([3.0, 4.0]).requires_grad_()])
    assert gradcheck(lambda n: Wishart(n, scale_tril=t(np.linalg.cholesky(_SIGMA))).entropy(),
                     [t([3.0, 4.0]).requires_grad_()])


def test_wishart_errors_and_warnings():
    from tensorlib.distributions import Wishart
    with pytest.raises(AssertionError, match="Exactly one of"):
        Wishart(t(3.0))
    with pytest.raises(AssertionError, match="Exactly one of"):
        Wishart(t(3.0), t(_SIGMA), t(_SIGMA))
    with pytest.raises(ValueError, match="at least two-dimensional"):
        Wishart(t(3.0), t([1.0, 2.0]))
    with pytest.raises(ValueError, match=r"expected to be greater than ndim - 1 = 1"):
        Wishart(t([3.0, 0.5]), t(_SIGMA))
    with pytest.raises(ValueError, match="Expected parameter covariance_matrix"):
        Wishart(t(3.0), t([[1.0, 1.0], [1.0, 1.0]]))
    with pytest.raises(ValueError, match="Expected parameter scale_tril"):
        Wishart(t(3.0), scale_tril=t([[1.0, 1.0], [1.0, 1.0]]))
    with pytest.raises(ValueError, match="within the support"):
        Wishart(t(3.0), t(_SIGMA)).log_prob(-tensorlib.eye(2, dtype=D))
    with pytest.warns(UserWarning, match="Low df values detected"):
        Wishart(t(1.5), t(_SIGMA))
    e = Wishart(t(3.0), t(_SIGMA)).expand((3,))
    assert e.batch_shape == (3,) and e.sample((2,)).shape == (2, 3, 2, 2)
    assert repr(Wishart(3.0, t(_SIGMA))) == "Wishart(covariance_matrix: tensorlib.Size([2, 2]), df: 3.0)"


# -- LKJCholesky ------------------------------------------------------------------------------------------


def test_lkj_cholesky_log_prob_normalisation():
    from tensorlib.distributions import LKJCholesky
    # dim 2: L = [[1, 0], [r, sqrt(1 - r^2)]], the density of r is (1 - r^2)^(eta - 1) / (2^(2 eta - 1) B(eta, eta))
    for eta in (0.5, 1.0, 1.5, 4.0):
        r = 0.3
        value = t([[1.0, 0.0], [r, math.sqrt(1 - r * r)]])
        expected = (eta - 1) * math.log(1 - r * r) - (2 * eta - 1) * math.log(2) - _lbeta(eta, eta)
        assert LKJCholesky(2, t(eta)).log_prob(value).item() == pytest.approx(expected, rel=1e-12)
    # eta = 1 in dim 3: uniform over correlation matrices, whose volume is pi^2 / 2; at L = I the density is 1/volume
    assert LKJCholesky(3, t(1.0)).log_prob(tensorlib.eye(3, dtype=D)).item() == pytest.approx(-math.log(math.pi**2 / 2))


def test_lkj_cholesky_sampling():
    from tensorlib.distributions import LKJCholesky
    tensorlib.manual_seed(8)
    eta, d = t([0.5, 3.0]), 4
    lkj = LKJCholesky(d, eta)
    s = lkj.sample((20000,))
    assert s.shape == (20000, 2, 4, 4) and lkj.event_shape == (4, 4) and lkj.batch_shape == (2,)
    assert bool(lkj.support.check(s).all())
    corr = (s @ s.mT).numpy()
    # every off-diagonal correlation r has (r + 1) / 2 ~ Beta(b, b) with b = eta - 1 + d / 2: E r^2 = 1 / (2b + 1)
    for k, e in enumerate([0.5, 3.0]):
        b = e - 1 + d / 2
        for i, j in [(1, 0), (2, 1), (3, 0), (3, 2)]:
            assert corr[:, k, i, j].mean() == pytest.approx(0.0, abs=0.02)
            assert (corr[:, k, i, j] ** 2).mean() == pytest.approx(1 / (2 * b + 1), rel=0.05)
    assert not lkj.has_rsample
    with pytest.raises(NotImplementedError):
        lkj.rsample()
    e = lkj.expand((3, 2))
    assert e.batch_shape == (3, 2) and e.sample().shape == (3, 2, 4, 4)
    assert_close(e.log_prob(s[:3])[:, 1], lkj.log_prob(s[:3])[:, 1], rtol=1e-14, atol=0)


def test_lkj_cholesky_errors():
    from tensorlib.distributions import LKJCholesky
    with pytest.raises(ValueError, match="Expected dim to be an integer greater than or equal to 2. Found dim=1."):
        LKJCholesky(1)
    with pytest.raises(ValueError):
        LKJCholesky(3, t(-1.0))
    with pytest.raises(ValueError, match="within the support"):
        LKJCholesky(3, t(1.0)).log_prob(tensorlib.ones(3, 3, dtype=D))
    assert repr(LKJCholesky(3, t(2.0))) == "LKJCholesky(concentration: 2.0)"


def test_wishart_and_lkj_match_torch():
    torch = pytest.importorskip("torch")
    from tensorlib.distributions import LKJCholesky, Wishart
    x = [[1.5, 0.2], [0.2, 0.8]]
    sigma = np.array(_SIGMA)
    for kw, m in [("covariance_matrix", sigma), ("precision_matrix", np.linalg.inv(sigma)),
                  ("scale_tril", np.linalg.cholesky(sigma))]:
        ours = Wishart(t([3.0, 4.5]), **{kw: t(m)})
        theirs = torch.distributions.Wishart(torch.tensor([3.0, 4.5], dtype=torch.float64),
                                             **{kw: torch.tensor(m, dtype=torch.float64)})
        assert repr(ours).replace("tensorlib.", "torch.") == repr(theirs)
        for fo, ft in [(lambda d: d.log_prob(t(x)), lambda d: d.log_prob(torch.tensor(x, dtype=torch.float64))),
                       (lambda d: d.entropy(), lambda d: d.entropy()), (lambda d: d.mean, lambda d: d.mean),
                       (lambda d: d.mode, lambda d: d.mode), (lambda d: d.variance, lambda d: d.variance),
                       (lambda d: d._log_normalizer(*d._natural_params), lambda d: d._log_normalizer(*d._natural_params))]:
            np.testing.assert_allclose(fo(ours).detach().numpy(), ft(theirs).detach().numpy(), rtol=1e-10)
        assert repr(ours).replace("tensorlib.", "torch.") == repr(theirs)  # after the lazy matrices were read
        assert {k: repr(v) for k, v in ours.arg_constraints.items()} == {k: repr(v) for k, v in
                                                                         theirs.arg_constraints.items()}
    for d, c in [(2, 1.5), (3, [0.5, 2.0]), (5, [[1.0, 3.0]])]:
        ours = LKJCholesky(d, t(c))
        theirs = torch.distributions.LKJCholesky(d, torch.tensor(c, dtype=torch.float64))
        assert repr(ours).replace("tensorlib.", "torch.") == repr(theirs)
        assert ours.batch_shape == theirs.batch_shape and ours.event_shape == theirs.event_shape
        value = theirs.sample((3,))
        np.testing.assert_allclose(ours.log_prob(t(value.numpy())).numpy(), theirs.log_prob(value).numpy(), rtol=1e-10)
