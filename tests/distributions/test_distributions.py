"""tensorlib.distributions: densities against closed forms (and torch), sampling, gradients, validation, KL."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tensorlib
from tensorlib.autograd import gradcheck
from tensorlib.distributions import Bernoulli, Categorical, Distribution, Normal, Uniform, kl_divergence, register_kl

from tests.helpers import assert_close

D = tensorlib.float64


def t(values):
    return tensorlib.tensor(values, dtype=D)


# -- densities and moments against closed forms -------------------------------------------------------


def test_normal_closed_forms():
    loc, scale = t([0.0, 1.0, -2.0]), t([1.0, 0.5, 3.0])
    n = Normal(loc, scale)
    x = t([0.3, 1.5, -7.0])
    expected = [-0.5 * ((xi - m) / s) ** 2 - math.log(s) - 0.5 * math.log(2 * math.pi)
                for xi, m, s in zip([0.3, 1.5, -7.0], [0.0, 1.0, -2.0], [1.0, 0.5, 3.0])]
    assert_close(n.log_prob(x), expected, rtol=1e-12)
    assert_close(n.cdf(x), [0.5 * (1 + math.erf((xi - m) / (s * math.sqrt(2))))
                            for xi, m, s in zip([0.3, 1.5, -7.0], [0.0, 1.0, -2.0], [1.0, 0.5, 3.0])], rtol=1e-12)
    assert_close(n.icdf(n.cdf(x)), x, rtol=1e-10)
    assert_close(n.entropy(), [0.5 + 0.5 * math.log(2 * math.pi) + math.log(s) for s in [1.0, 0.5, 3.0]], rtol=1e-12)
    assert_close(n.mean, loc) and assert_close(n.stddev, scale)
    assert_close(n.variance, scale**2)


def test_bernoulli_closed_forms_and_parameterisations():
    b = Bernoulli(probs=t([0.2, 0.9]))
    assert_close(b.log_prob(t([1.0, 0.0])), [math.log(0.2), math.log(0.1)], rtol=1e-10)
    assert_close(b.entropy(), [-(p * math.log(p) + (1 - p) * math.log(1 - p)) for p in (0.2, 0.9)], rtol=1e-10)
    assert_close(b.mean, [0.2, 0.9]) and assert_close(b.variance, [0.16, 0.09], rtol=1e-12)
    assert_close(b.logits, [math.log(0.2 / 0.8), math.log(0.9 / 0.1)], rtol=1e-10)
    from_logits = Bernoulli(logits=b.logits)
    assert_close(from_logits.probs, [0.2, 0.9], rtol=1e-12)
    assert_close(from_logits.log_prob(t([1.0, 0.0])), b.log_prob(t([1.0, 0.0])), rtol=1e-10)
    assert b.enumerate_support().tolist() == [[0.0, 0.0], [1.0, 1.0]]


def test_categorical_closed_forms_and_shapes():
    probs = t([[1.0, 3.0], [2.0, 2.0]])  # normalised over the last dim
    c = Categorical(probs=probs)
    assert c.batch_shape == (2,) and c.event_shape == ()
    assert_close(c.probs, [[0.25, 0.75], [0.5, 0.5]])
    assert_close(c.log_prob(tensorlib.tensor([1, 0])), [math.log(0.75), math.log(0.5)], rtol=1e-12)
    assert_close(c.log_prob(tensorlib.tensor([[0], [1]])), [[math.log(0.25), math.log(0.5)],
                                                          [math.log(0.75), math.log(0.5)]], rtol=1e-12)
    assert_close(c.entropy(), [-(0.25 * math.log(0.25) + 0.75 * math.log(0.75)), math.log(2)], rtol=1e-12)
    assert bool(c.mean.isnan().all()) and c.mode.tolist() == [1, 0]
    assert_close(Categorical(logits=c.logits).probs, c.probs, rtol=1e-12)
    assert abs(Categorical(probs=t([1.0, 0.0])).entropy().item()) < 1e-15  # 0 log 0 counts as 0
    assert c.enumerate_support().tolist() == [[0, 0], [1, 1]]


def test_uniform_closed_forms():
    u = Uniform(t([0.0, -1.0]), t([2.0, 3.0]))
    assert_close(u.log_prob(t([1.0, 0.0])), [-math.log(2), -math.log(4)], rtol=1e-12)
    assert_close(u.cdf(t([0.5, 2.0])), [0.25, 0.75]) and assert_close(u.icdf(t([0.5, 0.25])), [1.0, 0.0])
    assert_close(u.entropy(), [math.log(2), math.log(4)]) and assert_close(u.mean, [1.0, 1.0])
    assert_close(u.variance, [4 / 12, 16 / 12], rtol=1e-12)
    assert Uniform(0.0, 1.0, validate_args=False).log_prob(t(2.0)).item() == -math.inf


# -- sampling -------------------------------------------------------------------------------------


def test_sample_shapes_and_statistics():
    n = Normal(t([1.0, -2.0]), t([0.5, 2.0]))
    s = n.sample((20000,))
    assert s.shape == (20000, 2) and not s.requires_grad and s.dtype is D
    np.testing.assert_allclose(s.mean(0).numpy(), [1.0, -2.0], atol=0.05)
    np.testing.assert_allclose(s.std(0).numpy(), [0.5, 2.0], rtol=0.03)
    u = Uniform(0.0, 4.0).sample((20000,))
    assert float(u.min()) >= 0.0 and float(u.max()) < 4.0 and abs(float(u.mean()) - 2.0) < 0.05
    b = Bernoulli(probs=t([0.1, 0.7])).sample((20000,))
    assert set(np.unique(b.numpy())) <= {0.0, 1.0}
    np.testing.assert_allclose(b.mean(0).numpy(), [0.1, 0.7], atol=0.02)
    c = Categorical(probs=t([0.2, 0.3, 0.5])).sample((20000,))
    assert c.dtype is tensorlib.int64 and c.shape == (20000,)
    np.testing.assert_allclose(np.bincount(c.numpy(), minlength=3) / 20000, [0.2, 0.3, 0.5], atol=0.02)
    assert Categorical(probs=t([[0.5, 0.5], [0.1, 0.9]])).sample((4, 3)).shape == (4, 3, 2)


def test_rsample_is_differentiable_and_sample_is_not():
    loc = t([0.5, -1.0]).requires_grad_()
    scale = t([1.5, 0.2]).requires_grad_()

    def draw(m, s):
        tensorlib.manual_seed(3)  # the same noise at every evaluation: a smooth function of (m, s)
        return Normal(m, s).rsample((4,))

    assert gradcheck(draw, (loc, scale))
    assert gradcheck(lambda lo, hi: (tensorlib.manual_seed(1), Uniform(lo, hi).rsample((3,)))[1],
                     (t([0.0]).requires_grad_(), t([2.0]).requires_grad_()))
    assert not Normal(loc, scale).sample().requires_grad
    with pytest.raises(NotImplementedError, match="rsample"):
        Bernoulli(probs=t([0.5])).rsample()


def test_log_prob_gradients():
    x = t([0.3, -1.2])
    assert gradcheck(lambda m, s: Normal(m, s).log_prob(x), (t([0.1, 0.2]).requires_grad_(), t([1.0, 2.0]).requires_grad_()))
    assert gradcheck(lambda lg: Bernoulli(logits=lg).log_prob(t([1.0, 0.0])), (t([0.3, -2.0]).requires_grad_(),))
    assert gradcheck(lambda lg: Categorical(logits=lg).log_prob(tensorlib.tensor([2, 0])),
                     (t([[0.1, 0.5, -1.0], [2.0, 0.0, 0.3]]).requires_grad_(),))
    assert gradcheck(lambda lg: Categorical(logits=lg).entropy(), (t([0.1, 0.5, -1.0]).requires_grad_(),))


# -- validation and errors ----------------------------------------------------------------------------


def test_parameter_and_support_validation():
    with pytest.raises(ValueError, match=r"Expected parameter scale \(Tensor of shape \(2,\)\) of distribution "
                                         r"Normal\(loc: tensorlib.Size\(\[2\]\), scale: tensorlib.Size\(\[2\]\)\) to "
                                         r"satisfy the constraint GreaterThan\(lower_bound=0.0\)"):
        Normal(tensorlib.zeros(2), -tensorlib.ones(2))
    with pytest.raises(ValueError, match=r"LessThan\(upper_bound=0.0\)"):
        Uniform(1.0, 0.0)
    with pytest.raises(ValueError, match=r"to be within the support \(Boolean\(\)\)"):
        Bernoulli(probs=t([0.5])).log_prob(t([0.3]))
    with pytest.raises(ValueError, match=r"within the support \(IntegerInterval\(lower_bound=0, upper_bound=1\)\)"):
        Categorical(probs=t([0.5, 0.5])).log_prob(tensorlib.tensor(2))
    with pytest.raises(ValueError, match="Either `probs` or `logits` must be specified, but not both."):
        Bernoulli()
    with pytest.raises(ValueError, match="Either `probs` or `logits`"):
        Categorical(probs=t([0.5, 0.5]), logits=t([0.0, 0.0]))
    with pytest.raises(ValueError, match="Input arguments must all be instances"):
        Normal([0.0], 1.0)
    with pytest.raises(TypeError, match="sample_shape must be a tuple"):
        Normal(0.0, 1.0).sample(2)
    assert Normal(0.0, -1.0, validate_args=False).scale.item() == -1.0  # unchecked when asked


def test_repr_like_torch():
    assert repr(Normal(0.0, 1.0)) == "Normal(loc: 0.0, scale: 1.0)"
    assert repr(Normal(tensorlib.zeros(2), 1.0)) == "Normal(loc: tensorlib.Size([2]), scale: tensorlib.Size([2]))"
    assert repr(Bernoulli(logits=tensorlib.tensor([0.1]))) == "Bernoulli(logits: tensor([0.1000]))"
    assert repr(Categorical(probs=tensorlib.ones(2, 3))) == "Categorical(probs: tensorlib.Size([2, 3]))"


# -- KL divergence ----------------------------------------------------------------------------------


def test_kl_divergence_closed_forms():
    kl = kl_divergence(Normal(t(0.0), t(1.0)), Normal(t(1.0), t(2.0)))
    assert_close(kl, math.log(2) + (1 + 1) / (2 * 4) - 0.5, rtol=1e-12)
    p, q = Bernoulli(probs=t(0.3)), Bernoulli(probs=t(0.6))
    assert_close(kl_divergence(p, q), 0.3 * math.log(0.3 / 0.6) + 0.7 * math.log(0.7 / 0.4), rtol=1e-10)
    pc, qc = Categorical(probs=t([0.5, 0.5, 0.0])), Categorical(probs=t([0.25, 0.25, 0.5]))
    assert_close(kl_divergence(pc, qc), math.log(2), rtol=1e-12)
    assert kl_divergence(qc, pc).item() == math.inf
    assert_close(kl_divergence(Uniform(t(0.0), t(1.0)), Uniform(t(-1.0), t(3.0))), math.log(4), rtol=1e-12)
    assert kl_divergence(Uniform(t(0.0), t(1.0)), Uniform(t(0.5), t(3.0))).item() == math.inf


def test_kl_registry():
    with pytest.raises(NotImplementedError, match="No KL"):
        kl_divergence(Normal(0.0, 1.0), Bernoulli(probs=0.5))

    class Wide(Normal):
        pass

    @register_kl(Wide, Normal)
    def _kl_wide(p, q):
        return tensorlib.tensor(-1.0)

    assert kl_divergence(Wide(0.0, 1.0), Normal(0.0, 1.0)).item() == -1.0  # the most specific pair wins
    assert kl_divergence(Normal(0.0, 1.0), Wide(0.0, 1.0)).item() == 0.0
    with pytest.raises(TypeError, match="Distribution subclass"):
        register_kl(int, Normal)
    assert issubclass(Wide, Distribution)


# -- against torch --------------------------------------------------------------------------------------


def _cases(lib):
    f = lambda v: lib.tensor(v, dtype=lib.float64)  # noqa: E731
    return {
        "normal": (lib.distributions.Normal(f([0.0, 1.0]), f([1.0, 0.3])), f([0.2, 0.7])),
        "bernoulli": (lib.distributions.Bernoulli(logits=f([0.3, -1.5])), f([1.0, 0.0])),
        "categorical": (lib.distributions.Categorical(logits=f([[0.1, 0.2, 0.7], [1.0, -1.0, 0.0]])),
                        lib.tensor([2, 1])),
        "uniform": (lib.distributions.Uniform(f([0.0, -1.0]), f([1.0, 2.0])), f([0.5, 1.5])),
    }


@pytest.mark.parametrize("name", ["normal", "bernoulli", "categorical", "uniform"])
def test_matches_torch(name):
    torch = pytest.importorskip("torch")
    ours, x = _cases(tensorlib)[name]
    theirs, tx = _cases(torch)[name]
    for what in ("log_prob", "entropy", "mean", "variance"):
        a = getattr(ours, what)(x) if what == "log_prob" else (ours.entropy() if what == "entropy" else getattr(ours, what))
        b = getattr(theirs, what)(tx) if what == "log_prob" else (theirs.entropy() if what == "entropy" else getattr(theirs, what))
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12, equal_nan=True, err_msg=what)
    assert tuple(ours.batch_shape) == tuple(theirs.batch_shape)
    assert repr(ours).replace("tensorlib.", "torch.") == repr(theirs)
    if name in ("normal", "uniform"):
        q = tensorlib.tensor([0.1, 0.8], dtype=D)
        np.testing.assert_allclose(ours.icdf(q).numpy(), theirs.icdf(torch.tensor(q.numpy())).numpy(), rtol=1e-12)
        np.testing.assert_allclose(ours.cdf(x).numpy(), theirs.cdf(tx).numpy(), rtol=1e-12)
