"""tensorlib.distributions multivariate families: closed forms (numpy), sampling, gradients, expand, validation, KL,
torch parity."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tensorlib
from tensorlib.autograd import gradcheck
from tensorlib.distributions import (
    Categorical,
    LowRankMultivariateNormal,
    MixtureSameFamily,
    MultivariateNormal,
    Normal,
    Poisson,
    kl_divergence,
)
from tests.helpers import assert_close

D = tensorlib.float64
COV = np.array([[2.0, 0.5, 0.1], [0.5, 1.0, 0.2], [0.1, 0.2, 3.0]])
COV2 = np.array([[1.0, 0.2, 0.0], [0.2, 1.5, 0.3], [0.0, 0.3, 1.0]])
W = np.array([[1.0, 0.3], [2.0, 0.1], [0.5, -1.0]])
DIAG = np.array([1.0, 2.0, 0.5])


def t(values):
    return tensorlib.tensor(np.asarray(values), dtype=D)


def gauss_log_pdf(x, mean, cov):
    diff = np.asarray(x) - mean
    _, logdet = np.linalg.slogdet(cov)
    return -0.5 * (len(mean) * math.log(2 * math.pi) + logdet + diff @ np.linalg.solve(cov, diff))


def gauss_entropy(cov):
    return 0.5 * (len(cov) * (1 + math.log(2 * math.pi)) + np.linalg.slogdet(cov)[1])


def gauss_kl(m1, c1, m2, c2):
    inv2 = np.linalg.inv(c2)
    d = m2 - m1
    return 0.5 * (np.trace(inv2 @ c1) + d @ inv2 @ d - len(m1) + np.linalg.slogdet(c2)[1] - np.linalg.slogdet(c1)[1])


# -- MultivariateNormal ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("param", ["covariance_matrix", "precision_matrix", "scale_tril"])
def test_mvn_closed_forms(param):
    loc = np.array([0.5, -1.0, 2.0])
    matrix = {"covariance_matrix": COV, "precision_matrix": np.linalg.inv(COV),
              "scale_tril": np.linalg.cholesky(COV)}[param]
    m = MultivariateNormal(t(loc), **{param: t(matrix)})
    assert m.batch_shape == () and m.event_shape == (3,)
    xs = np.array([[0.1, 0.2, 0.3], [1.0, -2.0, 0.0]])
    assert_close(m.log_prob(t(xs)), [gauss_log_pdf(x, loc, COV) for x in xs], rtol=1e-12)
    assert_close(m.entropy(), gauss_entropy(COV), rtol=1e-12)
    assert_close(m.covariance_matrix, COV, rtol=1e-12, atol=1e-14)
    assert_close(m.precision_matrix, np.linalg.inv(COV), rtol=1e-10, atol=1e-14)
    assert_close(m.scale_tril, np.linalg.cholesky(COV), rtol=1e-12, atol=1e-14)
    assert_close(m.variance, np.diag(COV), rtol=1e-12)
    assert_close(m.mean, loc) and assert_close(m.mode, loc)


def test_mvn_batching_and_sampling():
    locs = t(np.zeros((4, 1, 3)))
    covs = t(np.stack([COV, COV2]))
    m = MultivariateNormal(locs, covs)
    assert m.batch_shape == (4, 2) and m.event_shape == (3,)
    assert m.loc.shape == (4, 2, 3) and m.covariance_matrix.shape == (4, 2, 3, 3)
    x = t(np.ones(3))
    assert_close(m.log_prob(x)[0], [gauss_log_pdf(np.ones(3), np.zeros(3), c) for c in (COV, COV2)], rtol=1e-12)
    assert m.entropy().shape == (4, 2) and m.rsample((5,)).shape == (5, 4, 2, 3)
    tensorlib.manual_seed(0)
    s = MultivariateNormal(t([1.0, 2.0, 3.0]), t(COV)).sample((20000,))
    assert not s.requires_grad
    np.testing.assert_allclose(s.mean(0).numpy(), [1.0, 2.0, 3.0], atol=0.05)
    np.testing.assert_allclose(np.cov(s.numpy().T), COV, atol=0.08)


def test_mvn_gradients():
    x = t([0.1, 0.2, -0.3])
    loc = t([0.5, -1.0, 2.0]).requires_grad_()
    tril = t(np.linalg.cholesky(COV)).requires_grad_()
    assert gradcheck(lambda m, l: MultivariateNormal(m, scale_tril=l.tril()).log_prob(x), (loc, tril))
    assert gradcheck(lambda c: MultivariateNormal(t([0.0, 0.0, 0.0]), (c + c.mT) / 2).log_prob(x),
                     (t(COV).requires_grad_(),))
    assert gradcheck(lambda p: MultivariateNormal(t([0.0, 0.0, 0.0]), precision_matrix=(p + p.mT) / 2).entropy(),
                     (t(np.linalg.inv(COV)).requires_grad_(),))

    def draw(m, l):
        tensorlib.manual_seed(5)
        return MultivariateNormal(m, scale_tril=l.tril()).rsample((2,))

    assert gradcheck(draw, (loc, tril))


def test_mvn_errors():
    with pytest.raises(ValueError, match="loc must be at least one-dimensional."):
        MultivariateNormal(t(0.0), t(COV))
    with pytest.raises(ValueError, match="Exactly one of covariance_matrix or precision_matrix or scale_tril"):
        MultivariateNormal(t([0.0, 0.0]))
    with pytest.raises(ValueError, match="Exactly one of"):
        MultivariateNormal(t([0.0, 0.0]), t(np.eye(2)), t(np.eye(2)))
    with pytest.raises(ValueError, match="covariance_matrix must be at least two-dimensional"):
        MultivariateNormal(t([0.0, 0.0]), t([1.0, 1.0]))
    with pytest.raises(ValueError, match="scale_tril matrix must be at least two-dimensional"):
        MultivariateNormal(t([0.0, 0.0]), scale_tril=t([1.0, 1.0]))
    with pytest.raises(ValueError, match=r"to satisfy the constraint PositiveDefinite\(\)"):
        MultivariateNormal(t([0.0, 0.0]), -t(np.eye(2)))
    with pytest.raises(ValueError, match=r"to satisfy the constraint LowerCholesky\(\)"):
        MultivariateNormal(t([0.0, 0.0]), scale_tril=t([[1.0, 1.0], [0.0, 1.0]]))
    with pytest.raises(ValueError, match="The right-most size of value must match event_shape"):
        MultivariateNormal(t([0.0, 0.0]), t(np.eye(2))).log_prob(t([0.0, 0.0, 0.0]))


# -- LowRankMultivariateNormal --------------------------------------------------------------------------------


def test_lowrank_closed_forms():
    loc = np.array([0.5, -1.0, 2.0])
    cov = W @ W.T + np.diag(DIAG)
    m = LowRankMultivariateNormal(t(loc), t(W), t(DIAG))
    xs = np.array([[0.1, 0.2, 0.3], [1.0, -2.0, 0.0]])
    assert_close(m.log_prob(t(xs)), [gauss_log_pdf(x, loc, cov) for x in xs], rtol=1e-12)
    assert_close(m.entropy(), gauss_entropy(cov), rtol=1e-12)
    assert_close(m.covariance_matrix, cov, rtol=1e-12)
    assert_close(m.precision_matrix, np.linalg.inv(cov), rtol=1e-10, atol=1e-14)
    assert_close(m.scale_tril, np.linalg.cholesky(cov), rtol=1e-12, atol=1e-14)
    assert_close(m.variance, np.diag(cov), rtol=1e-12)
    assert_close(m.mean, loc) and assert_close(m.mode, loc)
    tensorlib.manual_seed(1)
    s = m.sample((20000,))
    np.testing.assert_allclose(s.mean(0).numpy(), loc, atol=0.06)
    np.testing.assert_allclose(np.cov(s.numpy().T), cov, atol=0.15)


def test_lowrank_batching_gradients_errors():
    m = LowRankMultivariateNormal(t(np.zeros((2, 1, 3))), t(np.stack([W, 2 * W])), t(DIAG))
    assert m.batch_shape == (2, 2) and m.event_shape == (3,) and m.cov_factor.shape == (2, 2, 3, 2)
    assert m.rsample((4,)).shape == (4, 2, 2, 3) and m.entropy().shape == (2, 2)
    x = t([0.1, 0.2, -0.3])
    assert gradcheck(lambda lo, f, d: LowRankMultivariateNormal(lo, f, d).log_prob(x),
                     (t([0.5, -1.0, 2.0]).requires_grad_(), t(W).requires_grad_(), t(DIAG).requires_grad_()))
    assert gradcheck(lambda f, d: LowRankMultivariateNormal(t([0.0, 0.0, 0.0]), f, d).entropy(),
                     (t(W).requires_grad_(), t(DIAG).requires_grad_()))

    def draw(f, d):
        tensorlib.manual_seed(2)
        return LowRankMultivariateNormal(t([0.0, 0.0, 0.0]), f, d).rsample((2,))

    assert gradcheck(draw, (t(W).requires_grad_(), t(DIAG).requires_grad_()))
    with pytest.raises(ValueError, match="loc must be at least one-dimensional."):
        LowRankMultivariateNormal(t(0.0), t([[1.0]]), t([1.0]))
    with pytest.raises(ValueError, match="cov_factor must be at least two-dimensional"):
        LowRankMultivariateNormal(t([0.0, 0.0]), t([1.0, 1.0]), t([1.0, 1.0]))
    with pytest.raises(ValueError, match="cov_factor must be a batch of matrices with shape 2 x m"):
        LowRankMultivariateNormal(t([0.0, 0.0]), t([[1.0, 1.0, 1.0]]), t([1.0, 1.0]))
    with pytest.raises(ValueError, match=r"cov_diag must be a batch of vectors with shape tensorlib.Size\(\[2\]\)"):
        LowRankMultivariateNormal(t([0.0, 0.0]), t([[1.0], [1.0]]), t([1.0, 1.0, 1.0]))
    with pytest.raises(ValueError, match="Incompatible batch shapes"):
        LowRankMultivariateNormal(t(np.zeros((3, 2))), t(np.ones((2, 2, 1))), t([1.0, 1.0]))
    with pytest.raises(ValueError, match=r"IndependentConstraint\(GreaterThan\(lower_bound=0.0\), 1\)"):
        LowRankMultivariateNormal(t([0.0, 0.0]), t([[1.0], [1.0]]), t([1.0, -1.0]))


# -- MixtureSameFamily ----------------------------------------------------------------------------------------


def test_mixture_closed_forms():
    w, mus, sigmas = [0.3, 0.7], [0.0, 5.0], [1.0, 2.0]
    m = MixtureSameFamily(Categorical(t(w)), Normal(t(mus), t(sigmas)))
    assert m.batch_shape == () and m.event_shape == ()
    xs = [0.1, 3.0, -2.0]

    def pdf(x):
        return sum(wi * math.exp(-0.5 * ((x - mu) / s) ** 2) / (s * math.sqrt(2 * math.pi))
                   for wi, mu, s in zip(w, mus, sigmas))

    def cdf(x):
        return sum(wi * 0.5 * (1 + math.erf((x - mu) / (s * math.sqrt(2)))) for wi, mu, s in zip(w, mus, sigmas))

    assert_close(m.log_prob(t(xs)), [math.log(pdf(x)) for x in xs], rtol=1e-12)
    assert_close(m.cdf(t(xs)), [cdf(x) for x in xs], rtol=1e-12)
    mean = sum(wi * mu for wi, mu in zip(w, mus))
    assert_close(m.mean, mean, rtol=1e-12)
    assert_close(m.variance, sum(wi * (s**2 + (mu - mean) ** 2) for wi, mu, s in zip(w, mus, sigmas)), rtol=1e-12)
    tensorlib.manual_seed(3)
    s = m.sample((20000,))
    assert s.shape == (20000,)
    assert abs(float(s.mean()) - 3.5) < 0.06 and abs(float(s.var()) / 8.35 - 1) < 0.04


def test_mixture_of_vectors_shapes_and_gradients():
    comps = MultivariateNormal(t(np.arange(12.0).reshape(3, 2, 2)), t(np.eye(2)))
    m = MixtureSameFamily(Categorical(t([[0.3, 0.7]] * 3)), comps)
    assert m.batch_shape == (3,) and m.event_shape == (2,)
    assert m.sample((4,)).shape == (4, 3, 2) and m.mean.shape == (3, 2) and m.variance.shape == (3, 2)
    x = t([0.1, 0.2])
    lp = m.log_prob(x)
    means = np.arange(12.0).reshape(3, 2, 2)
    expected = [math.log(sum(wi * math.exp(gauss_log_pdf([0.1, 0.2], means[b, k], np.eye(2)))
                             for k, wi in enumerate([0.3, 0.7]))) for b in range(3)]
    assert_close(lp, expected, rtol=1e-12)
    big = m.expand((2, 3))
    assert big.batch_shape == (2, 3) and big.sample().shape == (2, 3, 2)
    assert_close(big.log_prob(x), lp.expand((2, 3)), rtol=1e-12)
    assert gradcheck(lambda lg, mu: MixtureSameFamily(Categorical(logits=lg), Normal(mu, t([1.0, 2.0]))).log_prob(
        t([0.3, 1.5])), (t([0.2, -0.4]).requires_grad_(), t([0.0, 1.0]).requires_grad_()))
    assert isinstance(m.mixture_distribution, Categorical) and m.component_distribution is comps
    assert not m.has_rsample
    with pytest.raises(NotImplementedError):
        m.rsample()


def test_mixture_errors_and_repr():
    comp = Normal(t([0.0, 1.0]), t([1.0, 1.0]))
    with pytest.raises(ValueError, match="needs to be an  instance of tensorlib.distributions.Categorical"):
        MixtureSameFamily(Normal(0.0, 1.0), comp)
    with pytest.raises(ValueError, match="needs to be an instance of tensorlib.distributions.Distribution"):
        MixtureSameFamily(Categorical(t([0.5, 0.5])), 3)
    with pytest.raises(ValueError, match="is not compatible with"):
        MixtureSameFamily(Categorical(t([[0.5, 0.5]] * 3)), Normal(t([[0.0, 1.0]] * 2), t([1.0, 1.0])))
    with pytest.raises(ValueError, match=r"`mixture_distribution component` \(3\) does not equal"):
        MixtureSameFamily(Categorical(t([0.2, 0.3, 0.5])), comp)
    m = MixtureSameFamily(Categorical(t([0.5, 0.5])), comp, validate_args=True)
    with pytest.raises(ValueError, match=r"within the support \(MixtureSameFamilyConstraint\(Real\(\)\)\)"):
        m.log_prob(t(float("nan")))
    assert repr(m) == ("MixtureSameFamily(\n  Categorical(probs: tensorlib.Size([2]), logits: tensorlib.Size([2])),\n"
                       "  Normal(loc: tensorlib.Size([2]), scale: tensorlib.Size([2])))")
    shared = MixtureSameFamily(Categorical(t([0.3, 0.7])), Normal(t([[0.0, 5.0]] * 3), t([1.0, 2.0])))
    assert shared.batch_shape == (3,) and shared.sample((2,)).shape == (2, 3)  # one mixture for every batch entry
    single = MixtureSameFamily(Categorical(t([0.3, 0.7])), Normal(t([0.0, 5.0]), t([1.0, 2.0])))
    assert_close(shared.log_prob(t(0.1)), single.log_prob(t(0.1)).expand(3), rtol=1e-12)
    pm = MixtureSameFamily(Categorical(t([0.4, 0.6])), Poisson(t([1.0, 4.0])))
    assert_close(pm.log_prob(t(2.0)), math.log(0.4 * math.exp(-1) / 2 + 0.6 * 16 * math.exp(-4) / 2), rtol=1e-12)


# -- expand ------------------------------------------------------------------------------------------------------


def test_expand():
    x = t([0.1, 0.2, -0.3])
    for d in (MultivariateNormal(t([0.5, -1.0, 2.0]), t(COV)),
              MultivariateNormal(t([0.5, -1.0, 2.0]), precision_matrix=t(COV)),
              LowRankMultivariateNormal(t([0.5, -1.0, 2.0]), t(W), t(DIAG))):
        big = d.expand((4, 2))
        assert type(big) is type(d) and big.batch_shape == (4, 2) and big.event_shape == (3,)
        assert_close(big.log_prob(x), d.log_prob(x).expand((4, 2)), rtol=1e-12)
        assert_close(big.entropy(), d.entropy().expand((4, 2)), rtol=1e-12)
        assert big.rsample((3,)).shape == (3, 4, 2, 3)
        assert big.covariance_matrix.shape == (4, 2, 3, 3)


# -- KL ------------------------------------------------------------------------------------------------------------


def test_gaussian_kl_closed_forms():
    m1, m2 = np.array([0.0, 1.0, 2.0]), np.array([1.0, 0.0, 2.5])
    cov_lr = W @ W.T + np.diag(DIAG)
    W2, D2 = np.array([[1.0], [0.2], [-0.3]]), np.array([0.5, 1.0, 1.5])
    cov_lr2 = W2 @ W2.T + np.diag(D2)
    mvn1, mvn2 = MultivariateNormal(t(m1), t(COV)), MultivariateNormal(t(m2), scale_tril=t(np.linalg.cholesky(COV2)))
    lr1, lr2 = LowRankMultivariateNormal(t(m1), t(W), t(DIAG)), LowRankMultivariateNormal(t(m2), t(W2), t(D2))
    assert_close(kl_divergence(mvn1, mvn2), gauss_kl(m1, COV, m2, COV2), rtol=1e-12)
    assert_close(kl_divergence(mvn1, lr2), gauss_kl(m1, COV, m2, cov_lr2), rtol=1e-12)
    assert_close(kl_divergence(lr1, mvn2), gauss_kl(m1, cov_lr, m2, COV2), rtol=1e-12)
    assert_close(kl_divergence(lr1, lr2), gauss_kl(m1, cov_lr, m2, cov_lr2), rtol=1e-12)
    assert_close(kl_divergence(lr2, lr1), gauss_kl(m2, cov_lr2, m1, cov_lr), rtol=1e-12)
    assert abs(kl_divergence(mvn1, mvn1).item()) < 1e-12
    batched = kl_divergence(MultivariateNormal(t(np.zeros((4, 3))), t(COV)), lr2)
    assert batched.shape == (4,)
    with pytest.raises(ValueError, match="different event shapes"):
        kl_divergence(mvn1, MultivariateNormal(t([0.0, 0.0]), t(np.eye(2))))
    with pytest.raises(ValueError, match="different event shapes"):
        kl_divergence(lr1, LowRankMultivariateNormal(t([0.0, 0.0]), t([[1.0], [1.0]]), t([1.0, 1.0])))
    assert gradcheck(lambda lo, f: kl_divergence(LowRankMultivariateNormal(lo, f, t(DIAG)), mvn2),
                     (t(m1).requires_grad_(), t(W).requires_grad_()))


# -- against torch ------------------------------------------------------------------------------------------------


def _cases(lib):
    f = lambda v: lib.tensor(np.asarray(v), dtype=lib.float64)
    d = lib.distributions
    return {
        "mvn_cov": (d.MultivariateNormal(f(np.zeros((2, 3))), f(COV)), f([0.1, 0.2, 0.3])),
        "mvn_prec": (d.MultivariateNormal(f([0.5, 0.0, -1.0]), precision_matrix=f(np.stack([COV, COV2]))),
                     f([0.1, 0.2, 0.3])),
        "mvn_tril": (d.MultivariateNormal(f([0.5, 0.0, -1.0]), scale_tril=f(np.linalg.cholesky(COV2))),
                     f([[0.1, 0.2, 0.3], [1.0, 1.0, 1.0]])),
        "lowrank": (d.LowRankMultivariateNormal(f(np.zeros((2, 3))), f(W), f(DIAG)), f([0.1, 0.2, 0.3])),
        "mixture": (d.MixtureSameFamily(d.Categorical(f([0.3, 0.7])), d.Normal(f([0.0, 5.0]), f([1.0, 2.0]))),
                    f([0.1, 3.0])),
        "mixture_mvn": (d.MixtureSameFamily(d.Categorical(logits=f([0.3, 0.7])),
                                            d.MultivariateNormal(f([[0.0, 5.0], [1.0, 1.0]]), f(np.eye(2)))),
                        f([0.1, 3.0])),
    }


def _value(d, what, x):
    try:
        if what in ("log_prob", "cdf"):
            return getattr(d, what)(x)
        if what == "entropy":
            return d.entropy()
        return getattr(d, what)
    except NotImplementedError:
        return NotImplementedError


@pytest.mark.parametrize("name", sorted(_cases(tensorlib)))
def test_matches_torch(name):
    torch = pytest.importorskip("torch")
    ours, x = _cases(tensorlib)[name]
    theirs, tx = _cases(torch)[name]
    whats = ["log_prob", "entropy", "mean", "mode", "variance", "stddev"]
    if name.startswith(("mvn", "lowrank")):
        whats += ["covariance_matrix", "precision_matrix", "scale_tril"]
    if name == "mixture":
        whats.append("cdf")
    for what in whats:
        a, b = _value(ours, what, x), _value(theirs, what, tx)
        if a is NotImplementedError or b is NotImplementedError:
            assert a is b, what
            continue
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10, atol=1e-13, err_msg=what)
    assert tuple(ours.batch_shape) == tuple(theirs.batch_shape)
    assert tuple(ours.event_shape) == tuple(theirs.event_shape)
    assert repr(ours).replace("tensorlib.", "torch.") == repr(theirs)
    assert ours.has_rsample == theirs.has_rsample


def test_kl_matches_torch():
    torch = pytest.importorskip("torch")

    def dists(lib):
        f = lambda v: lib.tensor(np.asarray(v), dtype=lib.float64)
        d = lib.distributions
        return [d.MultivariateNormal(f(np.zeros((2, 3))), f(COV)),
                d.MultivariateNormal(f([0.5, 0.0, -1.0]), scale_tril=f(np.linalg.cholesky(COV2))),
                d.LowRankMultivariateNormal(f([1.0, 2.0, 3.0]), f(W), f(DIAG)),
                d.LowRankMultivariateNormal(f(np.ones((2, 3))), f([[1.0], [0.2], [-0.3]]), f([0.5, 1.0, 1.5]))]

    for p, tp in zip(dists(tensorlib), dists(torch)):
        for q, tq in zip(dists(tensorlib), dists(torch)):
            np.testing.assert_allclose(kl_divergence(p, q).numpy(), torch.distributions.kl_divergence(tp, tq).numpy(),
                                       rtol=1e-10, atol=1e-12)


def test_invalid_arguments_raise_like_torch():
    torch = pytest.importorskip("torch")

    def attempts(lib):
        f = lambda v: lib.tensor(np.asarray(v), dtype=lib.float64)
        d = lib.distributions
        return [
            lambda: d.MultivariateNormal(f(0.0), f(np.eye(2))),
            lambda: d.MultivariateNormal(f([0.0, 0.0])),
            lambda: d.MultivariateNormal(f([0.0, 0.0]), f([1.0, 1.0])),
            lambda: d.MultivariateNormal(f([0.0, 0.0]), precision_matrix=f([1.0, 1.0])),
            lambda: d.MultivariateNormal(f([0.0, 0.0]), -f(np.eye(2))),
            lambda: d.LowRankMultivariateNormal(f([0.0, 0.0]), f([1.0, 1.0]), f([1.0, 1.0])),
            lambda: d.LowRankMultivariateNormal(f([0.0, 0.0]), f([[1.0, 1.0, 1.0]]), f([1.0, 1.0])),
            lambda: d.LowRankMultivariateNormal(f([0.0, 0.0]), f([[1.0], [1.0]]), f([1.0, 1.0, 1.0])),
            lambda: d.LowRankMultivariateNormal(f(np.zeros((3, 2))), f(np.ones((2, 2, 1))), f([1.0, 1.0])),
            lambda: d.LowRankMultivariateNormal(f([0.0, 0.0]), f([[1.0], [1.0]]), f([1.0, -1.0])),
            lambda: d.MixtureSameFamily(d.Normal(0.0, 1.0), d.Normal(f([0.0, 1.0]), f([1.0, 1.0]))),
            lambda: d.MixtureSameFamily(d.Categorical(f([0.5, 0.5])), 3),
            lambda: d.MixtureSameFamily(d.Categorical(f([0.2, 0.3, 0.5])), d.Normal(f([0.0, 1.0]), f([1.0, 1.0]))),
        ]

    for ours, theirs in zip(attempts(tensorlib), attempts(torch)):
        with pytest.raises(Exception) as mine:
            ours()
        with pytest.raises(Exception) as ref:
            theirs()
        assert type(mine.value) is type(ref.value)
