"""KL divergences of the continuous families: numerical integration of ``p log(p / q)``, closed forms,
infinite and missing pairs, gradients, and parity with torch."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tensorlib
from tensorlib.autograd import gradcheck
from tensorlib.distributions import (
    Bernoulli,
    Beta,
    Categorical,
    Cauchy,
    Chi2,
    Dirichlet,
    Exponential,
    FisherSnedecor,
    Gamma,
    Laplace,
    Normal,
    StudentT,
    Uniform,
    kl_divergence,
)
from tests.helpers import assert_close

D = tensorlib.float64


def t(values):
    return tensorlib.tensor(values, dtype=D)


def _integrate_kl(p, q, kind):
    """``int p log(p / q)`` by the trapezoid rule after a change of variables mapping the support to a line."""
    if kind == "positive":  # x = exp(u)
        u = np.linspace(-40.0, 7.0, 200001)
        x, jac = np.exp(u), np.exp(u)
    elif kind == "unit":  # x = sigmoid(u)
        u = np.linspace(-40.0, 40.0, 200001)
        x = 1 / (1 + np.exp(-u))
        jac = x * (1 - x)
    elif kind == "real":  # x = tan(u)
        u = np.linspace(-math.pi / 2 + 1e-7, math.pi / 2 - 1e-7, 400001)
        x, jac = np.tan(u), 1 / np.cos(u) ** 2
    else:  # a bounded interval (lo, hi): the midpoint rule (the ends may be singular)
        lo, hi = kind
        n = 1000000
        x = lo + (np.arange(n) + 0.5) * (hi - lo) / n
        lp, lq = p.log_prob(t(x)).numpy(), q.log_prob(t(x)).numpy()
        return float(np.sum(np.exp(lp) * (lp - lq)) * (hi - lo) / n)
    lp = p.log_prob(t(x)).numpy()
    lq = q.log_prob(t(x)).numpy()
    dens = np.exp(lp)
    with np.errstate(invalid="ignore", over="ignore"):  # the far ends of the grids, where the density is 0
        integrand = np.where(dens > 0, dens * (lp - lq), 0.0) * jac
    return float(np.sum((integrand[1:] + integrand[:-1]) * np.diff(u)) / 2)


_NUMERIC = [
    ("exp-exp", lambda: Exponential(t(0.7)), lambda: Exponential(t(2.5)), "positive"),
    ("gamma-gamma", lambda: Gamma(t(0.6), t(1.3)), lambda: Gamma(t(2.2), t(0.8)), "positive"),
    ("exp-gamma", lambda: Exponential(t(0.7)), lambda: Gamma(t(2.2), t(0.8)), "positive"),
    ("gamma-exp", lambda: Gamma(t(2.2), t(0.8)), lambda: Exponential(t(0.7)), "positive"),
    ("chi2-gamma", lambda: Chi2(t(3.0)), lambda: Gamma(t(1.2), t(0.4)), "positive"),
    ("beta-beta", lambda: Beta(t(0.6), t(2.5)), lambda: Beta(t(3.0), t(1.5)), "unit"),
    ("laplace-laplace", lambda: Laplace(t(0.3), t(0.8)), lambda: Laplace(t(-1.0), t(2.0)), "real"),
    ("cauchy-cauchy", lambda: Cauchy(t(0.3), t(0.8)), lambda: Cauchy(t(-1.0), t(2.0)), "real"),
    ("laplace-normal", lambda: Laplace(t(0.3), t(0.8)), lambda: Normal(t(-1.0), t(2.0)), "real"),
    ("normal-laplace", lambda: Normal(t(0.3), t(0.8)), lambda: Laplace(t(-1.0), t(2.0)), "real"),
    ("exp-normal", lambda: Exponential(t(0.9)), lambda: Normal(t(-1.0), t(2.0)), "positive"),
    ("gamma-normal", lambda: Gamma(t(2.5), t(1.5)), lambda: Normal(t(1.0), t(0.7)), "positive"),
    ("beta-normal", lambda: Beta(t(2.5), t(1.5)), lambda: Normal(t(0.2), t(0.3)), "unit"),
    ("beta-exp", lambda: Beta(t(2.5), t(1.5)), lambda: Exponential(t(1.7)), "unit"),
    ("beta-gamma", lambda: Beta(t(0.5), t(1.5)), lambda: Gamma(t(0.8), t(1.7)), "unit"),
    ("beta-uniform", lambda: Beta(t(2.5), t(1.5)), lambda: Uniform(t(-0.5), t(2.0)), "unit"),
    ("uniform-beta", lambda: Uniform(t(0.2), t(0.9)), lambda: Beta(t(2.5), t(1.5)), (0.2, 0.9)),
    ("uniform-beta-edge", lambda: Uniform(t(0.0), t(1.0)), lambda: Beta(t(2.5), t(1.5)), (0.0, 1.0)),
    ("uniform-exp", lambda: Uniform(t(0.5), t(3.0)), lambda: Exponential(t(1.7)), (0.5, 3.0)),
    ("uniform-gamma", lambda: Uniform(t(0.0), t(3.0)), lambda: Gamma(t(2.5), t(1.5)), (0.0, 3.0)),
    ("uniform-normal", lambda: Uniform(t(-1.0), t(3.0)), lambda: Normal(t(0.5), t(1.5)), (-1.0, 3.0)),
]


@pytest.mark.parametrize("make_p,make_q,kind", [c[1:] for c in _NUMERIC], ids=[c[0] for c in _NUMERIC])
def test_kl_matches_numerical_integration(make_p, make_q, kind):
    p, q = make_p(), make_q()
    p._validate_args = q._validate_args = False  # the grids reach the edges of the supports
    expected = _integrate_kl(p, q, kind)
    assert kl_divergence(p, q).item() == pytest.approx(expected, rel=2e-6, abs=1e-8)


def test_dirichlet_kl_closed_form_and_beta_consistency():
    cp, cq = [0.5, 2.0, 3.0], [1.5, 1.0, 0.7]
    sp = sum(cp)
    expected = (math.lgamma(sp) - math.lgamma(sum(cq)) - sum(math.lgamma(c) for c in cp)
                + sum(math.lgamma(c) for c in cq))
    # E[log x_i] = digamma(c_i) - digamma(sum c), with digamma by finite differences of lgamma
    def dg(x):
        return (math.lgamma(x + 1e-6) - math.lgamma(x - 1e-6)) / 2e-6

    expected += sum((a - b) * (dg(a) - dg(sp)) for a, b in zip(cp, cq))
    assert kl_divergence(Dirichlet(t(cp)), Dirichlet(t(cq))).item() == pytest.approx(expected, rel=1e-8)
    # two categories: the Beta KL
    two = kl_divergence(Dirichlet(t([[0.5, 2.0], [3.0, 1.0]])), Dirichlet(t([[1.5, 1.0], [0.7, 0.9]])))
    betas = kl_divergence(Beta(t([0.5, 3.0]), t([2.0, 1.0])), Beta(t([1.5, 0.7]), t([1.0, 0.9])))
    assert_close(two, betas, rtol=1e-12, atol=0)


def test_kl_of_a_distribution_with_itself_is_zero():
    for d in [Exponential(t([0.4, 2.0])), Gamma(t([0.4, 2.0]), t(1.5)), Beta(t([0.4, 2.0]), t(1.5)),
              Dirichlet(t([[0.4, 2.0, 1.0]])), Laplace(t([0.4, 2.0]), t(1.5)), Cauchy(t([0.4, 2.0]), t(1.5))]:
        assert_close(kl_divergence(d, d), np.zeros(d.batch_shape), rtol=0, atol=1e-13)


def test_infinite_pairs_and_their_shapes():
    inf = math.inf
    assert kl_divergence(Exponential(t([1.0, 2.0])), Beta(t(2.0), t(3.0))).tolist() == [inf, inf]
    assert kl_divergence(Exponential(t(1.0)), Beta(t([2.0, 3.0]), t(3.0))).shape == ()
    assert kl_divergence(Gamma(t([1.0, 2.0]), t(1.0)), Uniform(t(0.0), t(5.0))).tolist() == [inf, inf]
    assert kl_divergence(Chi2(t([1.0, 2.0])), Beta(t(1.0), t(1.0))).tolist() == [inf, inf]
    for q in [Exponential(t(1.0)), Gamma(t(1.0), t(1.0)), Beta(t(1.0), t(1.0)), Uniform(t(-9.0), t(9.0))]:
        assert kl_divergence(Laplace(t([0.0, 1.0]), t(1.0)), q).tolist() == [inf, inf]
    for q in [Exponential(t(1.0)), Gamma(t(1.0), t(1.0)), Beta(t(1.0), t(1.0)), Uniform(t(-9.0), t(9.0))]:
        assert kl_divergence(Normal(t([0.0, 1.0]), t(1.0)), q).tolist() == [inf, inf]
    # support-dependent pairs: infinite exactly where the support of p leaves that of q
    res = kl_divergence(Beta(t(2.0), t(3.0)), Uniform(t([0.0, -1.0, 0.2]), t([1.0, 2.0, 1.0])))
    assert np.isfinite(res.numpy()).tolist() == [True, True, False]
    res = kl_divergence(Uniform(t([0.0, -1.0, 0.2, 0.1]), t([1.0, 2.0, 1.0, 0.5])), Beta(t(2.0), t(3.0)))
    assert np.isfinite(res.numpy()).tolist() == [True, False, True, True]
    for q in [Exponential(t(2.0)), Gamma(t(0.5), t(2.0))]:
        res = kl_divergence(Uniform(t([0.0, -1.0, 0.2]), t([1.0, 2.0, 1.0])), q)
        assert np.isfinite(res.numpy()).tolist() == [True, False, True]


def test_missing_pairs_raise_not_implemented():
    for p, q in [(Cauchy(t(0.0), t(1.0)), Normal(t(0.0), t(1.0))), (StudentT(t(3.0)), StudentT(t(3.0))),
                 (FisherSnedecor(t(3.0), t(4.0)), FisherSnedecor(t(3.0), t(4.0))),
                 (Dirichlet(t([1.0, 2.0])), Categorical(t([0.5, 0.5]))), (Exponential(t(1.0)), Bernoulli(t(0.5))),
                 (Uniform(t(0.0), t(1.0)), Laplace(t(0.0), t(1.0)))]:
        with pytest.raises(NotImplementedError):
            kl_divergence(p, q)


def test_kl_gradients():
    def p(v):
        return t(v).requires_grad_()

    checks = [
        (lambda a, b: kl_divergence(Gamma(a, b), Gamma(t(1.5), t(0.7))), [p([0.5, 2.0]), p([1.5, 0.7])]),
        (lambda a, b: kl_divergence(Beta(t(1.5), t(0.7)), Beta(a, b)), [p([0.5, 2.0]), p([1.5, 0.7])]),
        (lambda c: kl_divergence(Dirichlet(c), Dirichlet(t([1.0, 2.0, 0.5]))), [p([0.5, 2.0, 1.2])]),
        (lambda m, s: kl_divergence(Normal(m, s), Laplace(t(0.2), t(1.1))), [p([0.5, -2.0]), p([1.5, 0.7])]),
        (lambda m, s: kl_divergence(Cauchy(m, s), Cauchy(t(0.2), t(1.1))), [p([0.5, -2.0]), p([1.5, 0.7])]),
        (lambda lo: kl_divergence(Uniform(lo, t(0.9)), Gamma(t(2.0), t(3.0))), [p([0.1, 0.4])]),
    ]
    for fn, inputs in checks:
        assert gradcheck(fn, inputs)


# -- parity with torch ------------------------------------------------------------------------------

_FAMILIES = {
    "Exponential": ([0.5, 2.0, 1.3],),
    "Gamma": ([0.5, 2.0, 3.1], [3.0, 0.7, 1.2]),
    "Chi2": ([0.5, 2.0, 4.5],),
    "Beta": ([0.5, 2.0, 1.4], [3.0, 0.7, 2.2]),
    "Laplace": ([0.5, -2.0, 0.1], [3.0, 0.7, 1.1]),
    "Cauchy": ([0.5, -2.0, 0.1], [3.0, 0.7, 1.1]),
    "Normal": ([0.5, -2.0, 0.3], [2.0, 0.3, 1.7]),
    "Uniform": ([0.0, -1.0, 0.2], [1.0, 2.0, 0.7]),
    "Dirichlet": ([[0.5, 2.0, 3.0], [1.0, 1.0, 4.0], [0.3, 0.2, 1.0]],),
    "StudentT": ([3.0, 4.0, 5.0],),
    "FisherSnedecor": ([3.0, 4.0, 5.0], [2.0, 7.0, 9.0]),
    "Bernoulli": ([0.2, 0.5, 0.7],),
}


def test_all_pairs_match_torch():
    torch = pytest.importorskip("torch")
    import tensorlib.distributions as ours_mod

    def build(lib_mod, conv, name, reverse):
        args = [a[::-1] for a in _FAMILIES[name]] if reverse else _FAMILIES[name]
        return getattr(lib_mod, name)(*[conv(a) for a in args], validate_args=False)

    def to_torch(a):
        return torch.tensor(a, dtype=torch.float64)

    compared = 0
    for pn in _FAMILIES:
        for qn in _FAMILIES:
            try:
                expected = torch.distributions.kl_divergence(build(torch.distributions, to_torch, pn, False),
                                                             build(torch.distributions, to_torch, qn, True))
            except NotImplementedError:
                with pytest.raises(NotImplementedError):
                    kl_divergence(build(ours_mod, t, pn, False), build(ours_mod, t, qn, True))
                continue
            ours = kl_divergence(build(ours_mod, t, pn, False), build(ours_mod, t, qn, True))
            assert tuple(ours.shape) == tuple(expected.shape), (pn, qn)
            np.testing.assert_allclose(ours.numpy(), expected.numpy(), rtol=1e-10, atol=1e-13, err_msg=f"{pn}, {qn}")
            compared += 1
    assert compared >= 45


def test_infinite_shapes_match_torch():
    torch = pytest.importorskip("torch")
    pairs = [("Exponential", ([1.0, 2.0],), "Beta", (2.0, 3.0)), ("Normal", ([1.0, 2.0], 1.0), "Gamma", (2.0, 3.0)),
             ("Normal", (1.0, 1.0), "Uniform", ([0.0, -1.0], 5.0)), ("Laplace", (1.0, [1.0, 2.0]), "Uniform", (2.0, 3.0)),
             ("Exponential", (1.0,), "Uniform", ([2.0, 1.0, 3.0], 5.0))]
    import tensorlib.distributions as ours_mod
    for pn, pa, qn, qa in pairs:
        theirs = torch.distributions.kl_divergence(
            getattr(torch.distributions, pn)(*[torch.tensor(a, dtype=torch.float64) for a in pa]),
            getattr(torch.distributions, qn)(*[torch.tensor(a, dtype=torch.float64) for a in qa]))
        ours = kl_divergence(getattr(ours_mod, pn)(*[t(a) for a in pa]), getattr(ours_mod, qn)(*[t(a) for a in qa]))
        assert tuple(ours.shape) == tuple(theirs.shape) and ours.tolist() == theirs.tolist()


# -- Wishart ---------------------------------------------------------------------------------------------


def test_wishart_kl_reduces_to_gamma_in_one_dimension():
    from tensorlib.distributions import Wishart
    p = Wishart(t([3.0, 5.5]), covariance_matrix=t([[[1.7]], [[0.4]]]))
    q = Wishart(t([2.5, 7.0]), covariance_matrix=t([[[0.9]], [[2.0]]]))
    gp = Gamma(t([1.5, 2.75]), t([1 / 3.4, 1 / 0.8]))
    gq = Gamma(t([1.25, 3.5]), t([1 / 1.8, 1 / 4.0]))
    assert_close(kl_divergence(p, q), kl_divergence(gp, gq), rtol=1e-12, atol=0)


def test_wishart_kl_monte_carlo_and_gradients():
    from tensorlib.distributions import Wishart
    p = Wishart(t(4.0), t([[2.0, 0.3], [0.3, 1.0]]))
    q = Wishart(t(3.0), t([[1.0, -0.2], [-0.2, 0.5]]))
    tensorlib.manual_seed(6)
    x = p.sample((100000,))
    mc = (p.log_prob(x) - q.log_prob(x)).numpy()
    assert abs(kl_divergence(p, q).item() - mc.mean()) < 4 * mc.std() / math.sqrt(len(mc))
    assert_close(kl_divergence(p, p), 0.0, rtol=0, atol=1e-12)
    sigma = t([[1.0, -0.2], [-0.2, 0.5]])
    assert gradcheck(lambda n, m: kl_divergence(Wishart(n, scale_tril=m.tril()), Wishart(t(3.0), sigma)),
                     [t([4.0, 2.5]).requires_grad_(), t([[1.3, 0.0], [0.4, 0.9]]).requires_grad_()])
    with pytest.raises(RuntimeError):
        kl_divergence(Wishart(t(3.0), tensorlib.eye(2, dtype=D)), Wishart(t(3.0), tensorlib.eye(3, dtype=D)))


def test_wishart_kl_matches_torch_elementwise():
    # (torch's batched Wishart KL mixes up batch elements, so each pair is compared on its own)
    torch = pytest.importorskip("torch")
    from tensorlib.distributions import Wishart
    s1 = [[[2.0, 0.3], [0.3, 1.0]], [[1.0, 0.0], [0.0, 4.0]]]
    s2 = [[[1.0, -0.2], [-0.2, 0.5]], [[3.0, 1.0], [1.0, 2.0]]]
    ours = kl_divergence(Wishart(t([3.0, 4.0]), t(s1)), Wishart(t([2.5, 6.0]), t(s2)))
    for i, (n1, n2) in enumerate([(3.0, 2.5), (4.0, 6.0)]):
        theirs = torch.distributions.kl_divergence(
            torch.distributions.Wishart(torch.tensor(n1, dtype=torch.float64), torch.tensor(s1[i], dtype=torch.float64)),
            torch.distributions.Wishart(torch.tensor(n2, dtype=torch.float64), torch.tensor(s2[i], dtype=torch.float64)))
        assert ours[i].item() == pytest.approx(theirs.item(), rel=1e-10)


def test_lkj_and_wishart_have_no_other_pairs():
    from tensorlib.distributions import LKJCholesky, Wishart
    with pytest.raises(NotImplementedError):
        kl_divergence(LKJCholesky(3, t(1.0)), LKJCholesky(3, t(2.0)))
    with pytest.raises(NotImplementedError):
        kl_divergence(Wishart(t(3.0), tensorlib.eye(2, dtype=D)), Dirichlet(t([1.0, 2.0])))
