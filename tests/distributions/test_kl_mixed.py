"""KL pairs across family groups (Pareto, Gumbel, ContinuousBernoulli, the generic exponential-family divergence),
and the transform-based families HalfCauchy, Weibull, Pareto, InverseGamma: closed forms, gradients, torch."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import tensorlib
from tensorlib.autograd import gradcheck
from tensorlib.distributions import (
    Exponential, Gumbel, HalfCauchy, InverseGamma, Pareto, Poisson, Weibull, kl_divergence,
)

D = tensorlib.float64


def _families(lib: Any) -> dict[str, Any]:
    f = lambda v: lib.tensor(v, dtype=lib.float64)  # noqa: E731
    d = lib.distributions
    return {
        "beta": d.Beta(f([2.0, 0.7]), f([3.0, 1.5])),
        "cb": d.ContinuousBernoulli(probs=f([0.3, 0.8])),
        "exponential": d.Exponential(f([1.5, 0.4])),
        "gamma": d.Gamma(f([2.5, 0.8]), f([1.2, 3.0])),
        "gumbel": d.Gumbel(f([0.3, -1.0]), f([1.5, 0.7])),
        "laplace": d.Laplace(f([0.1, 2.0]), f([1.0, 0.5])),
        "normal": d.Normal(f([0.2, -0.4]), f([1.1, 2.0])),
        "pareto": d.Pareto(f([1.0, 2.0]), f([3.5, 2.5])),
        "pareto_heavy": d.Pareto(f([1.5, 0.5]), f([0.8, 1.5])),
        "uniform": d.Uniform(f([1.2, 2.5]), f([3.0, 4.0])),
    }


PAIRS = [
    ("beta", "cb"), ("beta", "pareto"), ("cb", "exponential"), ("cb", "pareto"), ("exponential", "cb"),
    ("exponential", "gumbel"), ("exponential", "pareto"), ("gamma", "cb"), ("gamma", "gumbel"), ("gamma", "pareto"),
    ("gumbel", "beta"), ("gumbel", "cb"), ("gumbel", "exponential"), ("gumbel", "gamma"), ("gumbel", "pareto"),
    ("laplace", "cb"), ("laplace", "pareto"), ("normal", "pareto"), ("pareto", "beta"), ("pareto", "cb"),
    ("pareto", "exponential"), ("pareto", "gamma"), ("pareto", "normal"), ("pareto", "pareto"),
    ("pareto_heavy", "pareto"), ("pareto", "pareto_heavy"), ("pareto_heavy", "exponential"),
    ("pareto_heavy", "gamma"), ("pareto_heavy", "normal"), ("pareto", "uniform"), ("uniform", "pareto"),
]


@pytest.mark.parametrize("pair", PAIRS, ids=["-".join(p) for p in PAIRS])
def test_kl_matches_torch(pair: tuple[str, str]) -> None:
    torch = pytest.importorskip("torch")
    ours = kl_divergence(_families(tensorlib)[pair[0]], _families(tensorlib)[pair[1]])
    theirs = torch.distributions.kl_divergence(_families(torch)[pair[0]], _families(torch)[pair[1]])
    np.testing.assert_allclose(ours.detach().numpy(), theirs.numpy(), rtol=1e-9)


def _mc_kl(p: Any, q: Any, n: int = 200_000) -> np.ndarray:
    tensorlib.manual_seed(0)
    x = p.sample((n,))
    return (p.log_prob(x) - q.log_prob(x)).mean(0).numpy()


@pytest.mark.parametrize("pair", [("exponential", "gumbel"), ("gamma", "gumbel"), ("pareto", "pareto"),
                                  ("pareto", "gamma"), ("cb", "exponential"),
                                  ("uniform", "pareto"), ("beta", "cb")])
def test_kl_against_monte_carlo(pair: tuple[str, str]) -> None:
    fam = _families(tensorlib)
    p, q = fam[pair[0]], fam[pair[1]]
    np.testing.assert_allclose(kl_divergence(p, q).detach().numpy(), _mc_kl(p, q), rtol=0.03, atol=0.01)


def test_exponential_family_bregman_divergence() -> None:
    p, q = Poisson(tensorlib.tensor([2.0, 0.5], dtype=D)), Poisson(tensorlib.tensor([1.0, 3.0], dtype=D))
    from tensorlib.distributions.kl import _KL
    from tensorlib.distributions.exp_family import ExponentialFamily

    generic = _KL[(ExponentialFamily, ExponentialFamily)]
    closed = [a * math.log(a / b) - a + b for a, b in ((2.0, 1.0), (0.5, 3.0))]
    np.testing.assert_allclose(generic(p, q).detach().numpy(), closed, rtol=1e-12)
    with pytest.raises(NotImplementedError, match="different exponential families"):
        generic(p, Exponential(tensorlib.tensor([1.0, 2.0], dtype=D)))


def test_kl_gradients() -> None:
    alpha = tensorlib.tensor([3.5, 2.5], dtype=D, requires_grad=True)
    rate = tensorlib.tensor([1.5, 0.4], dtype=D, requires_grad=True)
    assert gradcheck(lambda a, r: kl_divergence(Pareto(tensorlib.tensor([1.0, 2.0], dtype=D), a), Exponential(r)),
                     (alpha, rate))
    assert gradcheck(lambda r: kl_divergence(Exponential(r), Gumbel(0.3, 1.5)), (rate,))


# -- the four transform-based families ----------------------------------------------------------------------


def _new_families(lib: Any) -> dict[str, Any]:
    f = lambda v: lib.tensor(v, dtype=lib.float64)  # noqa: E731
    d = lib.distributions
    return {
        "half_cauchy": (d.HalfCauchy(f([2.0, 0.5])), f([0.3, 4.0])),
        "weibull": (d.Weibull(f([2.0, 1.0]), f([0.5, 3.0])), f([0.7, 1.9])),
        "pareto": (d.Pareto(f([2.0, 1.0, 1.0]), f([0.5, 1.5, 3.0])), f([2.5, 1.1, 7.0])),
        "inverse_gamma": (d.InverseGamma(f([0.5, 1.5, 3.0]), f([2.0, 1.0, 1.0])), f([0.3, 1.0, 2.5])),
    }


@pytest.mark.parametrize("name", ["half_cauchy", "weibull", "pareto", "inverse_gamma"])
def test_new_families_match_torch(name: str) -> None:
    torch = pytest.importorskip("torch")
    ours, x = _new_families(tensorlib)[name]
    theirs, tx = _new_families(torch)[name]
    np.testing.assert_allclose(ours.log_prob(x).numpy(), theirs.log_prob(tx).numpy(), rtol=1e-10)
    np.testing.assert_allclose(ours.entropy().numpy(), theirs.entropy().numpy(), rtol=1e-10)
    np.testing.assert_allclose(ours.mean.numpy(), theirs.mean.numpy(), rtol=1e-10)
    np.testing.assert_allclose(ours.variance.numpy(), theirs.variance.numpy(), rtol=1e-10)
    if name != "weibull":  # torch's Weibull mode is wrong for concentration < 1 (see the closed-form test)
        np.testing.assert_allclose(ours.mode.numpy(), theirs.mode.numpy(), rtol=1e-10)
    np.testing.assert_allclose(ours.cdf(x).numpy(), theirs.cdf(tx).numpy(), rtol=1e-10)
    assert repr(ours).replace("tensorlib.", "torch.") == repr(theirs)
    assert tuple(ours.expand((4, len(x))).batch_shape) == tuple(theirs.expand((4, len(x))).batch_shape)


def test_new_families_closed_forms_and_sampling() -> None:
    w = Weibull(tensorlib.tensor([2.0, 1.0], dtype=D), tensorlib.tensor([0.5, 3.0], dtype=D))
    assert w.mode.tolist()[0] == 0.0  # the density of a concentration below 1 peaks at the origin
    np.testing.assert_allclose(w.mode.numpy()[1], (2 / 3) ** (1 / 3), rtol=1e-12)
    tensorlib.manual_seed(1)
    s = w.sample((100_000,))
    np.testing.assert_allclose(s.mean(0).numpy(), w.mean.numpy(), rtol=0.03)
    p = Pareto(tensorlib.tensor(2.0, dtype=D), tensorlib.tensor(3.0, dtype=D))
    tensorlib.manual_seed(2)
    draws = p.sample((100_000,))
    assert float(draws.min()) >= 2.0 and abs(float(draws.mean()) - 3.0) < 0.05
    ig = InverseGamma(tensorlib.tensor(4.0, dtype=D), tensorlib.tensor(2.0, dtype=D))
    tensorlib.manual_seed(3)
    np.testing.assert_allclose(float(ig.sample((200_000,)).mean()), 2.0 / 3.0, rtol=0.02)
    h = HalfCauchy(tensorlib.tensor(1.5, dtype=D))
    assert h.log_prob(tensorlib.tensor(0.0, dtype=D)).item() == pytest.approx(math.log(2 / (math.pi * 1.5)))
    assert h.icdf(h.cdf(tensorlib.tensor(2.0, dtype=D))).item() == pytest.approx(2.0)
    with pytest.raises(ValueError, match="support"):
        p.log_prob(tensorlib.tensor(1.0, dtype=D))
    with pytest.raises(ValueError, match="concentration"):
        InverseGamma(-1.0, 1.0)


def test_new_families_rsample_gradients() -> None:
    scale = tensorlib.tensor([2.0, 1.0], dtype=D, requires_grad=True)
    conc = tensorlib.tensor([0.5, 3.0], dtype=D, requires_grad=True)

    def draw(s: Any, k: Any) -> Any:
        tensorlib.manual_seed(4)
        return Weibull(s, k).rsample((3,))

    assert gradcheck(draw, (scale, conc))
    assert gradcheck(lambda s: HalfCauchy(s).log_prob(tensorlib.tensor([0.3, 1.0], dtype=D)), (scale,))
    assert gradcheck(lambda a: Pareto(tensorlib.tensor([1.0, 2.0], dtype=D), a).entropy(), (conc,))
    assert gradcheck(lambda a: InverseGamma(a, tensorlib.tensor(1.0, dtype=D)).log_prob(
        tensorlib.tensor([0.5, 2.0], dtype=D)), (conc,))
