"""TransformedDistribution, Independent and the families built on transforms; their KL divergences."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tensorlib
from tensorlib.autograd import gradcheck
from tensorlib.distributions import (
    Bernoulli,
    Gumbel,
    HalfNormal,
    Independent,
    Kumaraswamy,
    LogisticNormal,
    LogNormal,
    Normal,
    RelaxedBernoulli,
    RelaxedOneHotCategorical,
    TransformedDistribution,
    Uniform,
    constraints,
    kl_divergence,
    transforms as T,
)
from tensorlib.distributions.relaxed_bernoulli import LogitRelaxedBernoulli
from tensorlib.distributions.relaxed_categorical import ExpRelaxedCategorical
from tests.helpers import assert_close

D = tensorlib.float64
EULER = 0.5772156649015329


def t(values):
    return tensorlib.tensor(values, dtype=D)


def _integrate(fn, lo, hi, n=200001):
    """Trapezoidal integral of a numpy function over ``[lo, hi]``."""
    xs = np.linspace(lo, hi, n)
    return np.trapezoid(fn(xs), xs, axis=0)


# -- TransformedDistribution ----------------------------------------------------------------------------------


def test_transformed_shapes_follow_the_transforms():
    base = Normal(tensorlib.zeros(3, 2, dtype=D), t(1.0))
    stick = TransformedDistribution(base, [T.StickBreakingTransform()])
    assert stick.batch_shape == (3,) and stick.event_shape == (3,)
    assert isinstance(stick.base_dist, Independent) and stick.support is constraints.simplex
    assert tuple(stick.sample((4,)).shape) == (4, 3, 3) and tuple(stick.rsample().shape) == (3, 3)
    broadcast = TransformedDistribution(Normal(t(0.0), t(1.0)), [T.AffineTransform(tensorlib.zeros(4, dtype=D), 1.0)])
    assert broadcast.batch_shape == (4,) and broadcast.event_shape == () and broadcast.base_dist.batch_shape == (4,)
    reshaped = TransformedDistribution(Normal(tensorlib.zeros(5, 2, 3, dtype=D), t(1.0)),
                                       T.ReshapeTransform((2, 3), (6,)))
    assert reshaped.batch_shape == (5,) and reshaped.event_shape == (6,)
    assert repr(reshaped.support) == "IndependentConstraint(Real(), 1)"
    plain = TransformedDistribution(base, [])
    assert plain.support is constraints.real and plain.batch_shape == (3, 2)
    assert stick.has_rsample and not TransformedDistribution(Bernoulli(t(0.3)), []).has_rsample
    assert repr(stick) == "TransformedDistribution()"


def test_transformed_log_prob_is_the_change_of_variables():
    base = Normal(t([0.2, -0.3]), t([1.5, 0.7]))
    dist = TransformedDistribution(base, [T.AffineTransform(1.0, 3.0), T.ExpTransform()])
    y = t([2.0, 0.5])
    x = (y.log() - 1.0) / 3.0
    expected = base.log_prob(x) - math.log(3.0) - y.log()
    assert_close(dist.log_prob(y), expected, rtol=1e-12)
    stick = TransformedDistribution(Normal(tensorlib.zeros(2, dtype=D), t(1.0)), T.StickBreakingTransform())
    value = t([0.2, 0.5, 0.3])
    transform = T.StickBreakingTransform()
    z = transform.inv(value)
    manual = Normal(t(0.0), t(1.0)).log_prob(z).sum() - transform.log_abs_det_jacobian(z, value)
    assert_close(stick.log_prob(value), manual, rtol=1e-12)
    # the density integrates to one
    # integrate over s = log(y): dy = e^s ds
    total = _integrate(lambda s: np.exp(dist.log_prob(tensorlib.from_numpy(np.exp(np.stack([s, s], -1)))).numpy()
                                        + s[:, None]), -40.0, 40.0)
    assert_close(total, [1.0, 1.0], rtol=1e-6, atol=1e-6)


def test_transformed_cdf_and_icdf_respect_the_sign():
    base = Normal(t(0.5), t(2.0))
    increasing = TransformedDistribution(base, [T.ExpTransform()])
    decreasing = TransformedDistribution(base, [T.AffineTransform(0.0, -2.0), T.ExpTransform()])
    y = t([0.5, 1.0, 4.0])
    assert_close(increasing.cdf(y), base.cdf(y.log()), rtol=1e-12)
    assert_close(decreasing.cdf(y), 1 - base.cdf(-y.log() / 2), rtol=1e-12)
    p = t([0.1, 0.5, 0.9])
    assert_close(decreasing.cdf(decreasing.icdf(p)), p, rtol=1e-10)
    assert_close(increasing.icdf(p), base.icdf(p).exp(), rtol=1e-12)


def test_transformed_expand_and_errors():
    dist = TransformedDistribution(Normal(t([0.0, 1.0]), t([1.0, 2.0])), [T.ExpTransform()])
    wide = dist.expand((3, 2))
    assert wide.batch_shape == (3, 2) and wide.base_dist.batch_shape == (3, 2)
    assert tuple(wide.sample().shape) == (3, 2)
    assert_close(wide.log_prob(t(1.5)), dist.log_prob(t(1.5)).expand(3, 2), rtol=1e-12)
    stick = TransformedDistribution(Normal(tensorlib.zeros(2, dtype=D), t(1.0)), T.StickBreakingTransform())
    assert stick.expand((4,)).base_dist.batch_shape == (4,)
    with pytest.raises(ValueError, match="transforms must be a Transform or list, but was 3"):
        TransformedDistribution(dist, 3)
    with pytest.raises(ValueError, match="list of Transforms"):
        TransformedDistribution(dist, [3])
    with pytest.raises(ValueError, match="needs to have shape with size at least 1"):
        TransformedDistribution(Normal(t(0.0), t(1.0)), [T.StickBreakingTransform()])
    with pytest.raises(ValueError, match="support"):
        dist.log_prob(t([-1.0, 1.0]))


def test_transformed_gradcheck():
    loc = t([0.3, -0.2]).requires_grad_()
    scale = t([1.2, 0.8]).requires_grad_()
    y = t([0.7, 2.5])

    def log_prob(m, s):
        return TransformedDistribution(Normal(m, s), [T.AffineTransform(0.5, 2.0), T.ExpTransform()]).log_prob(y)

    assert gradcheck(log_prob, (loc, scale))
    tensorlib.manual_seed(0)
    assert gradcheck(lambda m, s: _seeded_rsample(TransformedDistribution(Normal(m, s), T.SigmoidTransform())),
                     (loc, scale))


def _seeded_rsample(dist, shape=(3,), seed=5):
    tensorlib.manual_seed(seed)
    return dist.rsample(shape)


# -- Independent -----------------------------------------------------------------------------------------------


def test_independent():
    base = Normal(tensorlib.zeros(3, 2, dtype=D), t([1.0, 2.0]))
    ind = Independent(base, 1)
    assert ind.batch_shape == (3,) and ind.event_shape == (2,)
    assert repr(ind.support) == "IndependentConstraint(Real(), 1)"
    value = t([[0.1, 0.2], [0.3, 0.4], [0.5, 0.6]])
    assert_close(ind.log_prob(value), base.log_prob(value).sum(-1), rtol=1e-12)
    assert_close(ind.entropy(), base.entropy().sum(-1), rtol=1e-12)
    assert_close(ind.mean, base.mean) and assert_close(ind.variance, base.variance)
    assert tuple(ind.sample((5,)).shape) == (5, 3, 2) and ind.has_rsample
    both = Independent(base, 2)
    assert both.batch_shape == () and both.event_shape == (3, 2)
    assert_close(both.log_prob(value), base.log_prob(value).sum(), rtol=1e-12)
    wide = ind.expand((4, 3))
    assert wide.batch_shape == (4, 3) and wide.base_dist.batch_shape == (4, 3, 2)
    assert repr(ind) == "Independent(Normal(loc: tensorlib.Size([3, 2]), scale: tensorlib.Size([3, 2])), 1)"
    with pytest.raises(ValueError, match="Expected reinterpreted_batch_ndims <= len"):
        Independent(base, 3)
    coins = Bernoulli(t([0.3, 0.4]))
    assert Independent(coins, 0).has_enumerate_support and not Independent(coins, 1).has_enumerate_support
    with pytest.raises(NotImplementedError, match="cartesian product"):
        Independent(coins, 1).enumerate_support()
    assert Independent(coins, 0).enumerate_support().tolist() == [[0.0, 0.0], [1.0, 1.0]]


# -- the families: closed forms -----------------------------------------------------------------------------------


def test_lognormal_closed_forms():
    mu, sigma = np.array([0.1, -0.5]), np.array([0.8, 1.3])
    dist = LogNormal(t(mu), t(sigma))
    x = np.array([0.7, 2.2])
    expected = -np.log(x * sigma * math.sqrt(2 * math.pi)) - (np.log(x) - mu) ** 2 / (2 * sigma**2)
    assert_close(dist.log_prob(t(x)), expected, rtol=1e-12)
    assert_close(dist.mean, np.exp(mu + sigma**2 / 2), rtol=1e-12)
    assert_close(dist.variance, (np.exp(sigma**2) - 1) * np.exp(2 * mu + sigma**2), rtol=1e-12)
    assert_close(dist.mode, np.exp(mu - sigma**2), rtol=1e-12)
    assert_close(dist.entropy(), mu + 0.5 + 0.5 * np.log(2 * math.pi * sigma**2), rtol=1e-12)
    assert_close(dist.cdf(t(x)), [0.5 * (1 + math.erf((math.log(v) - m) / (s * math.sqrt(2))))
                                  for v, m, s in zip(x, mu, sigma)], rtol=1e-12)
    assert dist.support is constraints.positive and dist.loc is dist.base_dist.loc


def test_halfnormal_closed_forms():
    sigma = np.array([0.5, 2.0])
    dist = HalfNormal(t(sigma))
    x = np.array([0.3, 1.7])
    expected = 0.5 * np.log(2 / math.pi) - np.log(sigma) - x**2 / (2 * sigma**2)
    assert_close(dist.log_prob(t(x)), expected, rtol=1e-12)
    assert_close(dist.cdf(t(x)), [math.erf(v / (s * math.sqrt(2))) for v, s in zip(x, sigma)], rtol=1e-12)
    assert_close(dist.icdf(dist.cdf(t(x))), x, rtol=1e-10)
    assert_close(dist.mean, sigma * math.sqrt(2 / math.pi), rtol=1e-12)
    assert_close(dist.variance, sigma**2 * (1 - 2 / math.pi), rtol=1e-12)
    assert_close(dist.entropy(), 0.5 * np.log(math.pi * sigma**2 / 2) + 0.5, rtol=1e-12)
    assert_close(dist.mode, [0.0, 0.0])
    assert HalfNormal(t(1.0), validate_args=False).log_prob(t(-1.0)).item() == -math.inf


def test_gumbel_closed_forms():
    mu, beta = np.array([0.2, -1.0]), np.array([1.1, 0.4])
    dist = Gumbel(t(mu), t(beta))
    x = np.array([0.5, -0.3])
    z = (x - mu) / beta
    assert_close(dist.log_prob(t(x)), -np.log(beta) - z - np.exp(-z), rtol=1e-12)
    assert_close(dist.cdf(t(x)), np.exp(-np.exp(-z)), rtol=1e-10)
    p = np.array([0.3, 0.8])
    assert_close(dist.icdf(t(p)), mu - beta * np.log(-np.log(p)), rtol=1e-10)
    assert_close(dist.mean, mu + beta * EULER, rtol=1e-12)
    assert_close(dist.variance, (math.pi * beta) ** 2 / 6, rtol=1e-12)
    assert_close(dist.stddev, math.pi * beta / math.sqrt(6), rtol=1e-12)
    assert_close(dist.entropy(), np.log(beta) + 1 + EULER, rtol=1e-12)
    assert_close(dist.mode, mu)
    assert repr(Gumbel(t(0.0), t(1.0))) == "Gumbel(loc: 0.0, scale: 1.0)"


def test_kumaraswamy_closed_forms():
    a, b = 2.0, 3.0
    dist = Kumaraswamy(t(a), t(b))
    x = np.array([0.2, 0.6])
    expected = np.log(a * b) + (a - 1) * np.log(x) + (b - 1) * np.log1p(-(x**a))
    assert_close(dist.log_prob(t(x)), expected, rtol=1e-10)

    def density(v):
        return a * b * v ** (a - 1) * (1 - v**a) ** (b - 1)

    m1 = _integrate(lambda v: v * density(v), 0.0, 1.0)
    m2 = _integrate(lambda v: v * v * density(v), 0.0, 1.0)
    ent = _integrate(lambda v: -density(v) * np.log(np.maximum(density(v), 1e-300)), 0.0, 1.0)
    assert_close(dist.mean, m1, rtol=1e-7) and assert_close(dist.variance, m2 - m1**2, rtol=1e-6)
    assert_close(dist.entropy(), ent, rtol=1e-6)
    assert_close(dist.mode, ((a - 1) / (a * b - 1)) ** (1 / a), rtol=1e-12)
    assert bool(Kumaraswamy(t([0.5, 2.0]), t([2.0, 0.5])).mode.isnan().all())
    assert_close(dist.cdf(t(x)), 1 - (1 - x**a) ** b, rtol=1e-10)


def test_logistic_normal():
    loc, scale = t([0.3, -0.4]), t([1.0, 0.5])
    dist = LogisticNormal(loc, scale)
    assert dist.batch_shape == () and dist.event_shape == (3,) and dist.support is constraints.simplex
    value = t([0.2, 0.5, 0.3])
    # density: normal density of the stick-breaking inverse, over the Jacobian
    transform = T.StickBreakingTransform()
    z = transform.inv(value)
    expected = Normal(loc, scale).log_prob(z).sum() - transform.log_abs_det_jacobian(z, value)
    assert_close(dist.log_prob(value), expected, rtol=1e-12)
    assert_close(dist.loc, loc) and assert_close(dist.scale, scale)
    single = LogisticNormal(t(0.0), t(1.0))
    assert single.batch_shape == () and single.event_shape == (2,)
    assert tuple(dist.sample((4,)).shape) == (4, 3) and bool(constraints.simplex.check(dist.sample((4,))).all())


def test_relaxed_bernoulli():
    temp, p = t(0.7), t([0.3, 0.8])
    dist = RelaxedBernoulli(temp, probs=p)
    logits = np.log([0.3 / 0.7, 0.8 / 0.2])
    y = np.array([0.25, 0.9])
    # Concrete density of the binary relaxation
    tau = 0.7
    expected = (math.log(tau) + logits - (tau + 1) * np.log(y) - (tau + 1) * np.log1p(-y)
                - 2 * np.log(np.exp(logits) * y ** (-tau) + (1 - y) ** (-tau)))
    assert_close(dist.log_prob(t(y)), expected, rtol=1e-10)
    assert_close(dist.logits, logits, rtol=1e-12) and dist.temperature is temp
    assert dist.support is constraints.unit_interval
    # integrate over z = logit(y): dy = y (1 - y) dz
    def density_in_z(z):
        y = 1 / (1 + np.exp(-z))
        return np.exp(dist.log_prob(tensorlib.from_numpy(np.stack([y, y], -1))).numpy()) * (y * (1 - y))[:, None]

    assert_close(_integrate(density_in_z, -35.0, 35.0), [1.0, 1.0], rtol=1e-5, atol=1e-5)
    logit = LogitRelaxedBernoulli(temp, logits=t(logits))
    assert_close(logit.probs, [0.3, 0.8], rtol=1e-12) and logit.param_shape == (2,)
    with pytest.raises(ValueError, match="Either `probs` or `logits` must be specified, but not both."):
        RelaxedBernoulli(temp)
    assert RelaxedBernoulli(temp, probs=0.3).batch_shape == ()


def test_relaxed_one_hot_categorical():
    temp = t(0.6)
    probs = t([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]])
    dist = RelaxedOneHotCategorical(temp, probs=probs)
    assert dist.batch_shape == (2,) and dist.event_shape == (3,) and dist.support is constraints.simplex
    y = t([0.1, 0.6, 0.3])
    # Concrete density: (K-1)! tau^(K-1) prod_k (p_k y_k^(-tau-1)) / (sum_k p_k y_k^(-tau))^K
    tau, k = 0.6, 3
    expected = []
    for row in probs.tolist():
        pr, yy = np.array(row), np.array([0.1, 0.6, 0.3])
        expected.append(math.log(math.factorial(k - 1)) + (k - 1) * math.log(tau)
                        + np.sum(np.log(pr) - (tau + 1) * np.log(yy)) - k * math.log(np.sum(pr * yy ** (-tau))))
    assert_close(dist.log_prob(y), expected, rtol=1e-10)
    exp_relaxed = ExpRelaxedCategorical(temp, logits=probs.log())
    assert exp_relaxed.support is constraints.real_vector and exp_relaxed.param_shape == (2, 3)
    sample = dist.sample((5,))
    assert tuple(sample.shape) == (5, 2, 3) and bool(constraints.simplex.check(sample).all())
    assert_close(dist.probs, probs, rtol=1e-12)


# -- sampling statistics, gradients, expand, validation --------------------------------------------------------

FAMILIES = {
    "lognormal": (lambda a, b: LogNormal(a, b), [0.2, -0.1], [0.5, 0.3]),
    "halfnormal": (lambda a, b: HalfNormal(b), [0.0, 0.0], [0.7, 1.5]),
    "gumbel": (lambda a, b: Gumbel(a, b), [0.2, -1.0], [1.1, 0.4]),
    "kumaraswamy": (lambda a, b: Kumaraswamy(a.exp(), b + 1.0), [0.4, 1.0], [2.0, 0.5]),
}


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_sample_statistics(name):
    make, a, b = FAMILIES[name]
    dist = make(t(a), t(b))
    tensorlib.manual_seed(123)
    samples = dist.sample((40000,))
    assert tuple(samples.shape) == (40000, 2)
    assert_close(samples.mean(0), dist.mean, rtol=0.03, atol=0.02)
    assert_close(samples.var(0), dist.variance, rtol=0.08, atol=0.01)


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_gradcheck_log_prob_entropy_rsample(name):
    make, a, b = FAMILIES[name]
    pa, pb = t(a).requires_grad_(), t(b).requires_grad_()
    tensorlib.manual_seed(0)
    with tensorlib.no_grad():
        value = make(t(a), t(b)).sample((3,))
    assert gradcheck(lambda x, y: make(x, y).log_prob(value), (pa, pb))
    assert gradcheck(lambda x, y: make(x, y).entropy(), (pa, pb))
    assert gradcheck(lambda x, y: _seeded_rsample(make(x, y)), (pa, pb))


def test_gradcheck_relaxed():
    temp = t(0.8)
    logits = t([0.3, -0.5, 1.0]).requires_grad_()
    assert gradcheck(lambda lg: _seeded_rsample(RelaxedOneHotCategorical(temp, logits=lg)), (logits,))
    assert gradcheck(lambda lg: RelaxedOneHotCategorical(temp, logits=lg).log_prob(t([0.2, 0.5, 0.3])), (logits,))
    assert gradcheck(lambda lg: _seeded_rsample(RelaxedBernoulli(temp, logits=lg)), (logits,))
    assert gradcheck(lambda lg: RelaxedBernoulli(temp, logits=lg).log_prob(t([0.2, 0.5, 0.3])), (logits,))
    loc = t([0.3, -0.5]).requires_grad_()
    assert gradcheck(lambda m: LogisticNormal(m, t(1.0)).log_prob(t([0.2, 0.5, 0.3])), (loc,))


def _all_instances():
    return {
        "lognormal": LogNormal(t([0.1, 0.2]), t([1.0, 0.5])),
        "halfnormal": HalfNormal(t([1.0, 0.5])),
        "gumbel": Gumbel(t([0.1, 0.2]), t([1.0, 0.5])),
        "kumaraswamy": Kumaraswamy(t([2.0, 0.5]), t([1.5, 3.0])),
        "logistic_normal": LogisticNormal(t([[0.1, 0.2], [0.0, 1.0]]), t(1.0)),
        "relaxed_bernoulli": RelaxedBernoulli(t(0.5), probs=t([0.3, 0.6])),
        "logit_relaxed_bernoulli": LogitRelaxedBernoulli(t(0.5), logits=t([0.3, 0.6])),
        "relaxed_one_hot": RelaxedOneHotCategorical(t(0.5), probs=t([[0.3, 0.7], [0.5, 0.5]])),
        "exp_relaxed": ExpRelaxedCategorical(t(0.5), probs=t([[0.3, 0.7], [0.5, 0.5]])),
    }


@pytest.mark.parametrize("name", sorted(_all_instances()))
def test_expand_and_shapes(name):
    dist = _all_instances()[name]
    assert dist.batch_shape == (2,)
    wide = dist.expand((3, 2))
    assert type(wide) is type(dist) and wide.batch_shape == (3, 2) and wide.event_shape == dist.event_shape
    tensorlib.manual_seed(1)
    value = dist.sample()
    assert tuple(dist.sample((4,)).shape) == (4, 2) + tuple(dist.event_shape)
    assert tuple(wide.sample().shape) == (3, 2) + tuple(dist.event_shape)
    assert_close(wide.log_prob(value), dist.log_prob(value).expand(3, 2), rtol=1e-12)
    assert wide._validate_args == dist._validate_args


def test_validation_errors():
    for make in (lambda: LogNormal(t(0.0), t(-1.0)), lambda: HalfNormal(t(-1.0)), lambda: Gumbel(t(0.0), t(-1.0)),
                 lambda: Kumaraswamy(t(-1.0), t(1.0)), lambda: LogisticNormal(t([0.0, 0.0]), t([-1.0, 1.0])),
                 lambda: RelaxedBernoulli(t(1.0), probs=t(1.5)),
                 lambda: RelaxedOneHotCategorical(t(1.0), probs=t([-0.5, 1.5]))):
        with pytest.raises(ValueError, match="Expected parameter"):
            make()
    with pytest.raises(ValueError, match="support"):
        HalfNormal(t(1.0)).log_prob(t(-1.0))
    with pytest.raises(ValueError, match="support"):
        Kumaraswamy(t(1.0), t(1.0)).log_prob(t(1.5))
    LogNormal(t(0.0), t(-1.0), validate_args=False)


# -- KL divergences ---------------------------------------------------------------------------------------------


def _kl_numeric(p, q, lo, hi, n=400001):
    xs = np.linspace(lo, hi, n)
    value = tensorlib.from_numpy(xs)
    lp, lq = p.log_prob(value).numpy(), q.log_prob(value).numpy()
    return np.trapezoid(np.exp(lp) * (lp - lq), xs)


KL_PAIRS = {
    "gumbel_gumbel": (lambda: Gumbel(t(0.3), t(1.2)), lambda: Gumbel(t(-0.5), t(0.8)), -15.0, 40.0),
    "normal_gumbel": (lambda: Normal(t(0.3), t(1.2)), lambda: Gumbel(t(-0.5), t(1.5)), -15.0, 15.0),
    "uniform_gumbel": (lambda: Uniform(t(0.2), t(1.5)), lambda: Gumbel(t(0.5), t(0.7)), 0.2, 1.5 - 1e-12),
    "gumbel_normal": (lambda: Gumbel(t(0.3), t(1.2)), lambda: Normal(t(-0.5), t(2.0)), -15.0, 40.0),
    "halfnormal_halfnormal": (lambda: HalfNormal(t(1.3)), lambda: HalfNormal(t(0.6)), 0.0, 20.0),
    "lognormal_lognormal": (lambda: LogNormal(t(0.1), t(0.5)), lambda: LogNormal(t(-0.3), t(0.9)), 1e-9, 60.0),
    "kumaraswamy_same": (lambda: Kumaraswamy(t(2.0), t(3.0), validate_args=False),
                         lambda: Kumaraswamy(t(2.0), t(3.0), validate_args=False), 1e-6, 1 - 1e-6),
}


@pytest.mark.parametrize("name", sorted(KL_PAIRS))
def test_kl_against_numerical_integration(name):
    make_p, make_q, lo, hi = KL_PAIRS[name]
    p, q = make_p(), make_q()
    assert_close(kl_divergence(p, q), _kl_numeric(p, q, lo, hi), rtol=1e-4, atol=1e-6)


def test_kl_structural_pairs():
    p = Independent(Normal(t([[0.0, 1.0]]), t([[1.0, 2.0]])), 1)
    q = Independent(Normal(t([[0.5, 0.0]]), t([[1.5, 1.0]])), 1)
    assert_close(kl_divergence(p, q), kl_divergence(p.base_dist, q.base_dist).sum(-1), rtol=1e-12)
    with pytest.raises(NotImplementedError):
        kl_divergence(p, Independent(Normal(t([[0.5, 0.0]]), t([[1.5, 1.0]])), 2))
    tp = TransformedDistribution(Normal(t([0.0, 1.0]), t(1.0)), [T.ExpTransform()])
    tq = TransformedDistribution(Normal(t([0.5, 0.0]), t(2.0)), [T.ExpTransform()])
    assert_close(kl_divergence(tp, tq), kl_divergence(tp.base_dist, tq.base_dist), rtol=1e-12)
    with pytest.raises(NotImplementedError):
        kl_divergence(tp, TransformedDistribution(Normal(t([0.5, 0.0]), t(2.0)), [T.SigmoidTransform()]))
    lp = LogisticNormal(t([0.1, 0.2]), t(1.0))
    lq = LogisticNormal(t([0.0, -0.3]), t(0.5))
    assert_close(kl_divergence(lp, lq), kl_divergence(lp.base_dist.base_dist, lq.base_dist.base_dist).sum(-1),
                 rtol=1e-12)
    assert kl_divergence(Gumbel(t([0.0, 1.0]), t(1.0)), Uniform(t(-1.0), t(1.0))).tolist() == [math.inf, math.inf]


# -- parity with torch --------------------------------------------------------------------------------------------


def _torch_instances(torch):
    import torch.distributions as td
    from torch.distributions.relaxed_bernoulli import LogitRelaxedBernoulli as TLogit
    from torch.distributions.relaxed_categorical import ExpRelaxedCategorical as TExp

    def f(v):
        return torch.tensor(v, dtype=torch.float64)

    return {
        "lognormal": td.LogNormal(f([0.1, 0.2]), f([1.0, 0.5])),
        "halfnormal": td.HalfNormal(f([1.0, 0.5])),
        "gumbel": td.Gumbel(f([0.1, 0.2]), f([1.0, 0.5])),
        "kumaraswamy": td.Kumaraswamy(f([2.0, 0.5]), f([1.5, 3.0])),
        "logistic_normal": td.LogisticNormal(f([[0.1, 0.2], [0.0, 1.0]]), f(1.0)),
        "relaxed_bernoulli": td.RelaxedBernoulli(f(0.5), probs=f([0.3, 0.6])),
        "logit_relaxed_bernoulli": TLogit(f(0.5), logits=f([0.3, 0.6])),
        "relaxed_one_hot": td.RelaxedOneHotCategorical(f(0.5), probs=f([[0.3, 0.7], [0.5, 0.5]])),
        "exp_relaxed": TExp(f(0.5), probs=f([[0.3, 0.7], [0.5, 0.5]])),
    }


@pytest.mark.parametrize("name", sorted(_all_instances()))
def test_torch_parity(name):
    torch = pytest.importorskip("torch")
    ours, theirs = _all_instances()[name], _torch_instances(torch)[name]
    assert ours.batch_shape == tuple(theirs.batch_shape) and ours.event_shape == tuple(theirs.event_shape)
    assert repr(ours).replace("tensorlib.", "torch.") == repr(theirs)
    assert repr(ours.support) == repr(theirs.support) and ours.has_rsample == theirs.has_rsample
    tensorlib.manual_seed(3)
    value = ours.sample((2,))
    tvalue = torch.from_numpy(value.numpy().copy())
    assert_close(ours.log_prob(value), theirs.log_prob(tvalue).numpy(), rtol=1e-10, atol=1e-12)
    for attr in ("mean", "variance", "stddev"):
        try:
            expected = getattr(theirs, attr)
        except NotImplementedError:
            continue
        assert_close(getattr(ours, attr), expected.numpy(), rtol=1e-10, atol=1e-12)
    if name != "kumaraswamy":  # torch's Kumaraswamy.mode is nan where the mode exists (see the closed-form test)
        try:
            expected_mode = theirs.mode
        except NotImplementedError:
            expected_mode = None
        if expected_mode is not None:
            assert_close(ours.mode, expected_mode.numpy(), rtol=1e-10, atol=1e-12)
    try:
        expected_entropy = theirs.entropy()
    except NotImplementedError:
        expected_entropy = None
    if expected_entropy is not None:
        assert_close(ours.entropy(), expected_entropy.numpy(), rtol=1e-10, atol=1e-12)
    if name in ("lognormal", "halfnormal", "gumbel", "kumaraswamy"):
        assert_close(ours.cdf(value), theirs.cdf(tvalue).numpy(), rtol=1e-10, atol=1e-12)
        probs = tensorlib.tensor([[0.2, 0.7], [0.5, 0.9]], dtype=D)
        assert_close(ours.icdf(probs), theirs.icdf(torch.from_numpy(probs.numpy().copy())).numpy(), rtol=1e-10)


def test_torch_parity_kl():
    torch = pytest.importorskip("torch")
    import torch.distributions as td

    def f(v):
        return torch.tensor(v, dtype=torch.float64)

    pairs = [
        (Gumbel(t([0.3, 1.0]), t([1.2, 0.5])), Gumbel(t(-0.5), t(0.8)),
         td.Gumbel(f([0.3, 1.0]), f([1.2, 0.5])), td.Gumbel(f(-0.5), f(0.8))),
        (Normal(t([0.3, 1.0]), t([1.2, 0.5])), Gumbel(t(-0.5), t(1.5)),
         td.Normal(f([0.3, 1.0]), f([1.2, 0.5])), td.Gumbel(f(-0.5), f(1.5))),
        (Uniform(t([0.2, -1.0]), t([1.5, 0.0])), Gumbel(t(0.5), t(0.7)),
         td.Uniform(f([0.2, -1.0]), f([1.5, 0.0])), td.Gumbel(f(0.5), f(0.7))),
        (Gumbel(t([0.3, 1.0]), t([1.2, 0.5])), Normal(t(-0.5), t(2.0)),
         td.Gumbel(f([0.3, 1.0]), f([1.2, 0.5])), td.Normal(f(-0.5), f(2.0))),
        (Gumbel(t([0.3, 1.0]), t([1.2, 0.5])), Uniform(t(-0.5), t(2.0)),
         td.Gumbel(f([0.3, 1.0]), f([1.2, 0.5])), td.Uniform(f(-0.5), f(2.0))),
        (HalfNormal(t([1.3, 0.2])), HalfNormal(t(0.6)), td.HalfNormal(f([1.3, 0.2])), td.HalfNormal(f(0.6))),
        (LogNormal(t([0.1, 1.0]), t(0.5)), LogNormal(t(-0.3), t(0.9)),
         td.LogNormal(f([0.1, 1.0]), f(0.5)), td.LogNormal(f(-0.3), f(0.9))),
        (LogisticNormal(t([0.1, 1.0]), t(0.5)), LogisticNormal(t([-0.3, 0.0]), t(0.9)),
         td.LogisticNormal(f([0.1, 1.0]), f(0.5)), td.LogisticNormal(f([-0.3, 0.0]), f(0.9))),
        (Independent(Normal(t([[0.1, 1.0]]), t(0.5)), 1), Independent(Normal(t([[-0.3, 0.0]]), t(0.9)), 1),
         td.Independent(td.Normal(f([[0.1, 1.0]]), f(0.5)), 1), td.Independent(td.Normal(f([[-0.3, 0.0]]), f(0.9)), 1)),
    ]
    for p, q, tp, tq in pairs:
        assert_close(kl_divergence(p, q), td.kl_divergence(tp, tq).numpy(), rtol=1e-10, atol=1e-12)
    with pytest.raises(NotImplementedError):
        td.kl_divergence(td.Kumaraswamy(f(2.0), f(3.0)), td.Kumaraswamy(f(2.5), f(3.0)))
    with pytest.raises(NotImplementedError):
        kl_divergence(Kumaraswamy(t(2.0), t(3.0)), Kumaraswamy(t(2.5), t(3.0)))


def test_torch_parity_invalid_arguments():
    torch = pytest.importorskip("torch")
    import torch.distributions as td

    def f(v):
        return torch.tensor(v, dtype=torch.float64)

    cases = [
        (lambda: LogNormal(t(0.0), t(-1.0)), lambda: td.LogNormal(f(0.0), f(-1.0))),
        (lambda: HalfNormal(t(-1.0)), lambda: td.HalfNormal(f(-1.0))),
        (lambda: Gumbel(t(0.0), t(0.0)), lambda: td.Gumbel(f(0.0), f(0.0))),
        (lambda: Kumaraswamy(t(1.0), t(-2.0)), lambda: td.Kumaraswamy(f(1.0), f(-2.0))),
        (lambda: RelaxedBernoulli(t(1.0)), lambda: td.RelaxedBernoulli(f(1.0))),
        (lambda: RelaxedOneHotCategorical(t(1.0), probs=t([0.5, 0.5]), logits=t([0.0, 0.0])),
         lambda: td.RelaxedOneHotCategorical(f(1.0), probs=f([0.5, 0.5]), logits=f([0.0, 0.0]))),
        (lambda: Independent(Normal(t([0.0]), t(1.0)), 2), lambda: td.Independent(td.Normal(f([0.0]), f(1.0)), 2)),
        (lambda: HalfNormal(t(1.0)).log_prob(t(-2.0)), lambda: td.HalfNormal(f(1.0)).log_prob(f(-2.0))),
        (lambda: Kumaraswamy(t(1.0), t(2.0)).log_prob(t(2.0)), lambda: td.Kumaraswamy(f(1.0), f(2.0)).log_prob(f(2.0))),
    ]
    for ours, theirs in cases:
        with pytest.raises(Exception) as expected:
            theirs()
        with pytest.raises(expected.type):
            ours()
