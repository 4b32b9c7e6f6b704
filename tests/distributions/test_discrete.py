"""tensorlib.distributions discrete families: closed forms, sampling, gradients, expand, validation, KL, torch parity."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tensorlib
from tensorlib.autograd import gradcheck
from tensorlib.distributions import (
    Bernoulli,
    Binomial,
    Geometric,
    Multinomial,
    NegativeBinomial,
    OneHotCategorical,
    OneHotCategoricalStraightThrough,
    Poisson,
    kl_divergence,
)
from tests.helpers import assert_close

D = tensorlib.float64


def t(values):
    return tensorlib.tensor(values, dtype=D)


def comb(n, k):
    return math.comb(int(n), int(k))


# -- closed forms -------------------------------------------------------------------------------------------


def test_poisson_closed_forms():
    rates = [0.5, 2.0, 7.5]
    p = Poisson(t(rates))
    ks = [0.0, 3.0, 6.0]
    assert_close(p.log_prob(t(ks)), [k * math.log(r) - r - math.lgamma(k + 1) for k, r in zip(ks, rates)], rtol=1e-12)
    assert_close(p.mean, rates) and assert_close(p.variance, rates)
    assert p.mode.tolist() == [0.0, 2.0, 7.0]
    assert Poisson(t(0.0)).log_prob(t(0.0)).item() == 0.0  # all the mass on 0
    assert Poisson(t(0.0)).log_prob(t(2.0)).item() == -math.inf
    with pytest.raises(NotImplementedError):
        p.entropy()  # as in torch: no closed form


def test_geometric_closed_forms():
    ps = [0.2, 0.5, 1.0]
    g = Geometric(t(ps))
    ks = [3.0, 0.0, 0.0]
    assert_close(g.log_prob(t(ks)), [k * math.log1p(-p) + math.log(p) for k, p in zip(ks[:2], ps[:2])] + [0.0],
                 rtol=1e-12)
    assert_close(g.mean, [(1 - p) / p for p in ps], atol=1e-15)
    assert_close(g.variance, [(1 - p) / p**2 for p in ps], atol=1e-15)
    expected_entropy = [-((1 - p) * math.log(1 - p) + p * math.log(p)) / p for p in ps[:2]]
    assert_close(g.entropy()[:2], expected_entropy, rtol=1e-10)
    assert abs(g.entropy()[2].item()) < 1e-12
    assert g.mode.tolist() == [0.0, 0.0, 0.0]
    from_logits = Geometric(logits=g.logits[:2])
    assert_close(from_logits.probs, ps[:2], rtol=1e-12)


def test_binomial_closed_forms():
    n, ps = [5.0, 3.0, 10.0], [0.3, 0.6, 0.05]
    b = Binomial(t(n), t(ps))
    ks = [2.0, 3.0, 0.0]
    expected = [math.log(comb(ni, k) * p**k * (1 - p) ** (ni - k)) for ni, k, p in zip(n, ks, ps)]
    assert_close(b.log_prob(t(ks)), expected, rtol=1e-12)
    assert_close(b.mean, [ni * p for ni, p in zip(n, ps)], rtol=1e-12)
    assert_close(b.variance, [ni * p * (1 - p) for ni, p in zip(n, ps)], rtol=1e-12)
    assert b.mode.tolist() == [1.0, 2.0, 0.0]
    assert Binomial(t(4.0), t(1.0)).log_prob(t(4.0)).item() == 0.0
    b5 = Binomial(5, t([0.3, 0.9]))
    pmf = [[comb(5, k) * p**k * (1 - p) ** (5 - k) for k in range(6)] for p in (0.3, 0.9)]
    assert_close(b5.entropy(), [-sum(q * math.log(q) for q in row) for row in pmf], rtol=1e-12)
    assert b5.enumerate_support().shape == (6, 2) and b5.enumerate_support(expand=False).shape == (6, 1)
    with pytest.raises(NotImplementedError, match="Inhomogeneous total count"):
        b.entropy()
    assert_close(Binomial(t(5.0), logits=b5.logits).log_prob(t([1.0, 4.0])), b5.log_prob(t([1.0, 4.0])), rtol=1e-12)


def test_multinomial_closed_forms():
    probs = [0.2, 0.3, 0.5]
    m = Multinomial(4, t(probs))
    x = [1.0, 0.0, 3.0]
    expected = math.log(math.factorial(4) / (1 * 1 * 6) * 0.2 * 0.5**3)
    assert_close(m.log_prob(t(x)), expected, rtol=1e-12)
    assert_close(m.mean, [4 * p for p in probs]) and assert_close(m.variance, [4 * p * (1 - p) for p in probs])
    # entropy by summing over every count vector
    support = [(a, b, 4 - a - b) for a in range(5) for b in range(5 - a)]
    pmf = [math.factorial(4) / math.prod(math.factorial(c) for c in v) * math.prod(p**c for p, c in zip(probs, v))
           for v in support]
    assert_close(m.entropy(), -sum(q * math.log(q) for q in pmf), rtol=1e-12)
    with pytest.raises(NotImplementedError, match="inhomogeneous total_count is not supported"):
        Multinomial(t([3.0, 4.0]), t([0.5, 0.5]))
    assert abs(Multinomial(3, t([1.0, 0.0])).log_prob(t([3.0, 0.0])).item()) < 1e-12


def test_negative_binomial_closed_forms():
    r, ps = [3.0, 0.5, 2.0], [0.3, 0.6, 0.9]
    nb = NegativeBinomial(t(r), t(ps))
    ks = [2.0, 4.0, 0.0]
    expected = [math.lgamma(k + ri) - math.lgamma(k + 1) - math.lgamma(ri) + ri * math.log(1 - p) + k * math.log(p)
                for k, ri, p in zip(ks, r, ps)]
    assert_close(nb.log_prob(t(ks)), expected, rtol=1e-12)
    assert_close(nb.mean, [ri * p / (1 - p) for ri, p in zip(r, ps)], rtol=1e-12)
    assert_close(nb.variance, [ri * p / (1 - p) ** 2 for ri, p in zip(r, ps)], rtol=1e-12)
    assert nb.mode.tolist() == [0.0, 0.0, 9.0]
    assert NegativeBinomial(t(0.0), t(0.5)).log_prob(t(0.0)).item() == 0.0


def test_one_hot_categorical_closed_forms():
    probs = t([[0.2, 0.8], [0.6, 0.4]])
    o = OneHotCategorical(probs)
    assert o.batch_shape == (2,) and o.event_shape == (2,)
    assert_close(o.log_prob(t([[1.0, 0.0], [1.0, 0.0]])), [math.log(0.2), math.log(0.6)], rtol=1e-12)
    assert_close(o.entropy(), [-(0.2 * math.log(0.2) + 0.8 * math.log(0.8)), -(0.6 * math.log(0.6) + 0.4 * math.log(0.4))],
                 rtol=1e-12)
    assert o.mode.tolist() == [[0.0, 1.0], [1.0, 0.0]]
    assert_close(o.mean, probs) and assert_close(o.variance, probs * (1 - probs))
    assert o.enumerate_support().tolist() == [[[1.0, 0.0], [1.0, 0.0]], [[0.0, 1.0], [0.0, 1.0]]]
    assert o.enumerate_support(expand=False).shape == (2, 1, 2)
    assert_close(OneHotCategorical(logits=probs.log()).probs, probs, rtol=1e-12)


# -- sampling -------------------------------------------------------------------------------------------------


def test_sampling_statistics():
    tensorlib.manual_seed(0)
    n = 20000
    s = Poisson(t([0.5, 4.0])).sample((n,))
    assert s.shape == (n, 2) and not s.requires_grad
    np.testing.assert_allclose(s.mean(0).numpy(), [0.5, 4.0], rtol=0.05)
    np.testing.assert_allclose(s.var(0).numpy(), [0.5, 4.0], rtol=0.06)
    s = Geometric(t([0.3, 0.8])).sample((n,))
    assert float(s.min()) >= 0 and bool((s == s.floor()).all())
    np.testing.assert_allclose(s.mean(0).numpy(), [0.7 / 0.3, 0.2 / 0.8], rtol=0.05)
    s = Binomial(t([10.0, 3.0]), t([0.3, 0.6])).sample((n,))
    np.testing.assert_allclose(s.mean(0).numpy(), [3.0, 1.8], rtol=0.03)
    np.testing.assert_allclose(s.var(0).numpy(), [2.1, 0.72], rtol=0.06)
    s = Multinomial(5, t([[0.2, 0.3, 0.5]])).sample((n,))
    assert s.shape == (n, 1, 3) and bool((s.sum(-1) == 5).all())
    np.testing.assert_allclose(s.mean(0).numpy()[0], [1.0, 1.5, 2.5], rtol=0.03)
    s = NegativeBinomial(t([3.0, 0.5]), t([0.3, 0.6])).sample((n,))
    np.testing.assert_allclose(s.mean(0).numpy(), [3 * 0.3 / 0.7, 0.75], rtol=0.05)
    np.testing.assert_allclose(s.var(0).numpy(), [3 * 0.3 / 0.49, 0.75 / 0.4], rtol=0.1)
    s = OneHotCategorical(t([0.2, 0.3, 0.5])).sample((n,))
    assert s.shape == (n, 3) and bool((s.sum(-1) == 1).all())
    np.testing.assert_allclose(s.mean(0).numpy(), [0.2, 0.3, 0.5], atol=0.02)


def test_sample_shapes():
    cases = [
        (Poisson(t([1.0, 2.0])), (2,), ()),
        (Geometric(t([[0.5], [0.2]])), (2, 1), ()),
        (Binomial(3, t([0.5, 0.2])), (2,), ()),
        (Multinomial(3, t([[0.5, 0.5], [0.1, 0.9], [1.0, 0.0]])), (3,), (2,)),
        (NegativeBinomial(t(2.0), t([0.5, 0.2])), (2,), ()),
        (OneHotCategorical(t([0.5, 0.2, 0.3])), (), (3,)),
    ]
    for d, batch, event in cases:
        assert d.batch_shape == batch and d.event_shape == event
        assert d.sample().shape == batch + event
        assert d.sample((4, 5)).shape == (4, 5) + batch + event


def test_straight_through_rsample_gradient():
    probs = t([0.2, 0.3, 0.5]).requires_grad_()
    d = OneHotCategoricalStraightThrough(probs)
    assert d.has_rsample and not OneHotCategorical.has_rsample
    s = d.rsample((7,))
    assert s.shape == (7, 3) and bool((s.detach().sum(-1) == 1).all())
    (s * t([1.0, 2.0, 3.0])).sum().backward()
    # d/dp_i of sum_j w_j p_j / sum(p) (the normalisation) times 7 draws
    expected = [7 * (w - 2.3) for w in (1.0, 2.0, 3.0)]
    assert_close(probs.grad, expected, rtol=1e-12)


# -- gradients -----------------------------------------------------------------------------------------------


def test_log_prob_gradients():
    k = t([0.0, 2.0, 5.0])
    assert gradcheck(lambda r: Poisson(r).log_prob(k), (t([0.5, 1.5, 4.0]).requires_grad_(),))
    assert gradcheck(lambda p: Geometric(p).log_prob(k), (t([0.3, 0.5, 0.7]).requires_grad_(),))
    assert gradcheck(lambda lg: Geometric(logits=lg).entropy(), (t([0.3, -1.5, 2.0]).requires_grad_(),))
    assert gradcheck(lambda lg: Binomial(t(5.0), logits=lg).log_prob(k), (t([0.3, -1.5, 2.0]).requires_grad_(),))
    assert gradcheck(lambda p: Binomial(5, p).entropy(), (t([0.3, 0.5, 0.8]).requires_grad_(),))
    assert gradcheck(lambda lg: Multinomial(5, logits=lg).log_prob(t([1.0, 0.0, 4.0])),
                     (t([0.3, -1.5, 2.0]).requires_grad_(),))
    assert gradcheck(lambda lg: Multinomial(3, logits=lg).entropy(), (t([0.3, -1.5, 2.0]).requires_grad_(),))
    assert gradcheck(lambda r, lg: NegativeBinomial(r, logits=lg).log_prob(k),
                     (t([1.0, 2.5, 0.7]).requires_grad_(), t([0.3, -1.5, 2.0]).requires_grad_()))
    assert gradcheck(lambda lg: OneHotCategorical(logits=lg).log_prob(t([0.0, 1.0, 0.0])),
                     (t([0.3, -1.5, 2.0]).requires_grad_(),))


# -- expand ---------------------------------------------------------------------------------------------------


def test_expand():
    cases = [
        (Poisson(t([1.0, 2.0])), t([1.0, 3.0])),
        (Geometric(logits=t([0.1, -0.3])), t([1.0, 0.0])),
        (Binomial(t([4.0, 3.0]), t([0.4, 0.7])), t([1.0, 3.0])),
        (Multinomial(4, t([[0.2, 0.8], [0.5, 0.5]])), t([[1.0, 3.0], [2.0, 2.0]])),
        (NegativeBinomial(t([4.0, 3.0]), t([0.4, 0.7])), t([1.0, 3.0])),
        (OneHotCategorical(t([[0.2, 0.8], [0.5, 0.5]])), t([[1.0, 0.0], [0.0, 1.0]])),
        (OneHotCategoricalStraightThrough(t([[0.2, 0.8], [0.5, 0.5]])), t([[1.0, 0.0], [0.0, 1.0]])),
    ]
    for d, x in cases:
        big = d.expand((3, 2))
        assert type(big) is type(d) and big.batch_shape == (3, 2) and big.event_shape == d.event_shape
        assert_close(big.log_prob(x), d.log_prob(x).expand((3, 2)), rtol=1e-12)
        assert big.sample((4,)).shape == (4, 3, 2) + tuple(d.event_shape)
        assert big._validate_args == d._validate_args


# -- validation ----------------------------------------------------------------------------------------------


def test_validation_errors():
    with pytest.raises(ValueError, match=r"Expected parameter rate \(Tensor of shape \(\)\) of distribution "
                                         r"Poisson\(rate: -1.0\) to satisfy the constraint GreaterThanEq"):
        Poisson(t(-1.0))
    with pytest.raises(ValueError, match=r"Geometric\(probs: 0.0\) to be positive but found invalid values"):
        Geometric(t(0.0))
    for cls in (Geometric, Binomial, OneHotCategorical):
        with pytest.raises(ValueError, match="Either `probs` or `logits` must be specified, but not both."):
            cls()
    with pytest.raises(ValueError, match="IntegerGreaterThan"):
        Binomial(t(2.5), t(0.5))
    with pytest.raises(ValueError, match="HalfOpenInterval"):
        NegativeBinomial(t(1.0), t(1.0))
    with pytest.raises(ValueError, match="at least one-dimensional"):
        OneHotCategorical(t(0.3))
    with pytest.raises(ValueError, match=r"within the support \(IntegerGreaterThan\(lower_bound=0\)\)"):
        Poisson(t(1.0)).log_prob(t(0.5))
    with pytest.raises(ValueError, match="within the support"):
        Binomial(3, t(0.5)).log_prob(t(4.0))
    with pytest.raises(ValueError, match="within the support"):
        Multinomial(3, t([0.5, 0.5])).log_prob(t([4.0, 0.0]))
    with pytest.raises(ValueError, match=r"within the support \(OneHot\(\)\)"):
        OneHotCategorical(t([0.5, 0.5])).log_prob(t([1.0, 1.0]))
    assert Poisson(t(-1.0), validate_args=False).rate.item() == -1.0


def test_reprs():
    assert repr(Poisson(t(2.0))) == "Poisson(rate: 2.0)"
    assert repr(Binomial(5, t([0.3, 0.6]))) == ("Binomial(total_count: tensorlib.Size([2]), "
                                                 "probs: tensorlib.Size([2]))")
    assert repr(Multinomial(5, t([0.3, 0.7]))) == "Multinomial()"
    assert repr(OneHotCategorical(t([0.3, 0.7]))) == "OneHotCategorical()"


# -- KL -------------------------------------------------------------------------------------------------------


def test_kl_closed_forms():
    kl = kl_divergence(Poisson(t([1.0, 0.0])), Poisson(t([2.0, 3.0])))
    assert_close(kl, [math.log(0.5) + 1.0, 3.0], rtol=1e-12)
    p, q = 0.3, 0.6
    one = p * math.log(p / q) + (1 - p) * math.log((1 - p) / (1 - q))
    assert_close(kl_divergence(Binomial(5, t(p)), Binomial(5, t(q))), 5 * one, rtol=1e-12)
    assert kl_divergence(Binomial(5, t(p)), Binomial(4, t(q))).item() == math.inf
    with pytest.raises(NotImplementedError, match="q.total_count > p.total_count"):
        kl_divergence(Binomial(4, t(p)), Binomial(5, t(q)))
    # Geometric: sum over k of P(k) log(P(k) / Q(k)), truncated where the tail is negligible
    direct = sum(p * (1 - p) ** k * math.log(p * (1 - p) ** k / (q * (1 - q) ** k)) for k in range(400))
    assert_close(kl_divergence(Geometric(t(p)), Geometric(t(q))), direct, rtol=1e-12)
    rate = 1.7
    direct = (1 - p) * math.log((1 - p) / math.exp(-rate)) + p * math.log(p / (rate * math.exp(-rate)))
    assert_close(kl_divergence(Bernoulli(t(p)), Poisson(t(rate))), direct, rtol=1e-12)
    assert kl_divergence(Poisson(t([1.0, 2.0])), Bernoulli(t(0.5))).tolist() == [math.inf, math.inf]
    assert kl_divergence(Poisson(t([1.0, 2.0])), Binomial(3, t(0.5))).tolist() == [math.inf, math.inf]
    o1, o2 = t([0.2, 0.3, 0.5]), t([0.4, 0.4, 0.2])
    direct = sum(a * math.log(a / b) for a, b in zip(o1.tolist(), o2.tolist()))
    for c1 in (OneHotCategorical, OneHotCategoricalStraightThrough):
        for c2 in (OneHotCategorical, OneHotCategoricalStraightThrough):
            assert_close(kl_divergence(c1(o1), c2(o2)), direct, rtol=1e-12)


# -- against torch --------------------------------------------------------------------------------------------


def _cases(lib):
    f = lambda v: lib.tensor(v, dtype=lib.float64)
    dist = lib.distributions
    return {
        "poisson": (dist.Poisson(f([0.5, 2.0, 7.0])), f([0.0, 3.0, 5.0])),
        "geometric": (dist.Geometric(f([0.2, 0.5, 0.9])), f([3.0, 0.0, 1.0])),
        "geometric_logits": (dist.Geometric(logits=f([0.2, -0.5, 1.9])), f([3.0, 0.0, 1.0])),
        "binomial": (dist.Binomial(f([5.0, 3.0]), f([0.3, 0.6])), f([2.0, 3.0])),
        "binomial_h": (dist.Binomial(6, logits=f([0.3, -1.6])), f([2.0, 6.0])),
        "multinomial": (dist.Multinomial(5, f([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]])), f([[1.0, 1.0, 3.0], [0.0, 5.0, 0.0]])),
        "negative_binomial": (dist.NegativeBinomial(f([3.0, 0.5]), f([0.3, 0.6])), f([2.0, 4.0])),
        "negative_binomial_logits": (dist.NegativeBinomial(f([3.0, 0.5]), logits=f([0.3, -0.6])), f([2.0, 4.0])),
        "one_hot": (dist.OneHotCategorical(logits=f([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]])),
                    f([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]])),
        "one_hot_st": (dist.OneHotCategoricalStraightThrough(f([0.2, 0.3, 0.5])), f([0.0, 0.0, 1.0])),
    }


def _value(d, what, x):
    try:
        if what == "log_prob":
            return d.log_prob(x)
        if what in ("entropy", "enumerate_support"):
            return getattr(d, what)()
        return getattr(d, what)
    except NotImplementedError:
        return NotImplementedError


@pytest.mark.parametrize("name", sorted(_cases(tensorlib)))
def test_matches_torch(name):
    torch = pytest.importorskip("torch")
    ours, x = _cases(tensorlib)[name]
    theirs, tx = _cases(torch)[name]
    for what in ("log_prob", "entropy", "mean", "mode", "variance", "stddev", "enumerate_support"):
        a, b = _value(ours, what, x), _value(theirs, what, tx)
        if a is NotImplementedError or b is NotImplementedError:
            assert a is b, what
            continue
        # torch's multinomial entropy carries a float32 rounding (~1e-8); ours matches exact enumeration
        rtol = 1e-7 if (name, what) == ("multinomial", "entropy") else 1e-10
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=rtol, atol=1e-300, err_msg=what)
    assert tuple(ours.batch_shape) == tuple(theirs.batch_shape)
    assert tuple(ours.event_shape) == tuple(theirs.event_shape)
    assert repr(ours).replace("tensorlib.", "torch.") == repr(theirs)
    assert ours.has_rsample == theirs.has_rsample and ours.has_enumerate_support == theirs.has_enumerate_support
    assert (ours.support is None) == (theirs.support is None)


def test_kl_matches_torch():
    torch = pytest.importorskip("torch")

    def pairs(lib):
        f = lambda v: lib.tensor(v, dtype=lib.float64)
        d = lib.distributions
        return [
            (d.Poisson(f([1.0, 2.0, 0.5])), d.Poisson(f([2.0, 1.0, 0.3]))),
            (d.Binomial(f([5.0, 3.0]), f([0.3, 0.6])), d.Binomial(f([5.0, 3.0]), f([0.4, 0.5]))),
            (d.Geometric(f([0.2, 0.6])), d.Geometric(f([0.5, 0.3]))),
            (d.Bernoulli(f([0.2, 0.6])), d.Poisson(f([0.5, 0.3]))),
            (d.OneHotCategorical(f([0.2, 0.8])), d.OneHotCategoricalStraightThrough(f([0.5, 0.5]))),
        ]

    for (p, q), (tp, tq) in zip(pairs(tensorlib), pairs(torch)):
        np.testing.assert_allclose(kl_divergence(p, q).numpy(), torch.distributions.kl_divergence(tp, tq).numpy(),
                                   rtol=1e-10)


def test_invalid_arguments_raise_like_torch():
    torch = pytest.importorskip("torch")

    def attempts(lib):
        f = lambda v: lib.tensor(v, dtype=lib.float64)
        d = lib.distributions
        return [
            lambda: d.Poisson(f(-1.0)),
            lambda: d.Geometric(f(0.0)),
            lambda: d.Geometric(),
            lambda: d.Binomial(f(2.5), f(0.5)),
            lambda: d.Binomial(5),
            lambda: d.Multinomial(f([3.0, 4.0]), f([0.3, 0.7])),
            lambda: d.NegativeBinomial(f(1.0), f(1.0)),
            lambda: d.OneHotCategorical(f(0.3)),
            lambda: d.Poisson(f(1.0)).log_prob(f(0.5)),
        ]

    for ours, theirs in zip(attempts(tensorlib), attempts(torch)):
        with pytest.raises(Exception) as mine:
            ours()
        with pytest.raises(Exception) as ref:
            theirs()
        assert type(mine.value) is type(ref.value)
        assert str(mine.value).replace("tensorlib.", "torch.") == str(ref.value)
