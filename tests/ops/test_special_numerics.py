"""The special-function kernels (``tensorlib/ops/_gamma.py``, ``_bessel.py``, ``_erf.py``, ``_orthopoly.py``)
against values known without torch: the standard library, closed forms and identities. The comparisons with
torch are in ``tests/parity/test_special_functions.py``."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tensorlib
from tensorlib.ops import _bessel, _erf, _gamma, _orthopoly

EULER = 0.5772156649015329


def _rel(a: np.ndarray, b: np.ndarray) -> float:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return float(np.max(np.abs(a - b) / np.maximum(np.abs(b), 1e-300)))


def test_lgamma_matches_math_and_keeps_relative_accuracy_at_its_zeros() -> None:
    x = np.concatenate([np.linspace(0.01, 170, 5000), -np.linspace(0.01, 30, 3000) - 1e-3, [1e-300, 1e10, 1e300]])
    x = x[np.abs(x - np.round(x)) > 1e-6]
    expected = np.array([math.lgamma(v) for v in x])
    away = np.abs(expected) > 0.1  # math.lgamma is only absolutely accurate near its zeros
    assert _rel(_gamma.lgamma(x[away]), expected[away]) < 3e-14
    assert np.max(np.abs(_gamma.lgamma(x) - expected) / np.maximum(1.0, np.abs(expected))) < 1e-13
    # near 1 and 2: lgamma(1 + e) = -gamma e + pi^2/12 e^2 + O(e^3), lgamma(2 + e) = (1 - gamma) e + ...
    e = (1 + np.array([1e-12, -1e-9, 3e-7])) - 1  # representable offsets
    np.testing.assert_allclose(_gamma.lgamma(1 + e), -EULER * e + math.pi ** 2 / 12 * e * e, rtol=1e-12)
    e = (2 + e) - 2
    np.testing.assert_allclose(_gamma.lgamma(2 + e), (1 - EULER) * e + (math.pi ** 2 / 12 - 0.5) * e * e, rtol=1e-9)
    np.testing.assert_array_equal(_gamma.lgamma(np.array([0.0, -0.0, -1.0, -7.0, np.inf, -np.inf, 1.0, 2.0])),
                                  [np.inf] * 6 + [0.0, 0.0])
    assert np.isnan(_gamma.lgamma(np.array([np.nan]))[0])


def test_digamma_polygamma_and_zeta_closed_forms() -> None:
    np.testing.assert_allclose(_gamma.digamma(np.array([1.0, 0.5, 2.0, 10.0, -0.5])),
                               [-EULER, -EULER - 2 * math.log(2), 1 - EULER, sum(1 / k for k in range(1, 10)) - EULER,
                                2 - EULER - 2 * math.log(2)], rtol=1e-14)
    x = np.linspace(0.2, 30, 300)  # digamma(x + 1) = digamma(x) + 1/x
    np.testing.assert_allclose(_gamma.digamma(x + 1), _gamma.digamma(x) + 1 / x, rtol=1e-13, atol=1e-14)
    z = _gamma.zeta(np.array([2.0, 4.0, 3.0, 2.0]), np.array([1.0, 1.0, 0.5, 3.0]))
    np.testing.assert_allclose(z, [math.pi ** 2 / 6, math.pi ** 4 / 90, 7 * 1.2020569031595942, math.pi ** 2 / 6 - 1.25],
                               rtol=1e-15)
    np.testing.assert_allclose(_gamma.polygamma(2, np.array([1.0])), [-2 * 1.2020569031595942], rtol=1e-15)
    assert np.isinf(_gamma.zeta(np.array([1.0]), np.array([2.0]))[0])
    assert np.isnan(_gamma.zeta(np.array([0.5]), np.array([2.0]))[0])
    assert np.isinf(_gamma.zeta(np.array([3.0]), np.array([-2.0]))[0])


def test_incomplete_gamma_identities() -> None:
    x = np.linspace(0.0, 40, 401)
    np.testing.assert_allclose(_gamma.igamma(np.ones_like(x), x), -np.expm1(-x), rtol=1e-14)  # P(1, x)
    np.testing.assert_allclose(_gamma.igammac(np.ones_like(x), x), np.exp(-x), rtol=1e-13)
    erfc = np.array([math.erfc(math.sqrt(v)) for v in x])  # Q(1/2, x) = erfc(sqrt x)
    np.testing.assert_allclose(_gamma.igammac(np.full_like(x, 0.5), x), erfc, rtol=1e-12)
    a = np.exp(np.random.default_rng(0).uniform(-5, 8, 3000))
    b = a * np.random.default_rng(1).uniform(0.5, 1.5, 3000)
    np.testing.assert_allclose(_gamma.igamma(a, b) + _gamma.igammac(a, b), 1.0, rtol=1e-14)
    q = _gamma.igammac(np.array([30.0, 300.0, 3000.0]), np.array([30.0, 300.0, 3000.0]))
    assert np.all((q > 0.47) & (q < 0.5))  # the median lies just below a


def test_modified_bessel_series_and_asymptotics_meet() -> None:
    x = np.array([19.999, 20.0, 20.001, 1.999, 2.0, 2.001, 24.999, 25.0, 25.001])
    for fn in (_bessel.i0e, _bessel.i1e, _bessel.k0e, _bessel.k1e):
        v = fn(x)
        assert _rel(v[0::3], v[1::3]) < 1e-3 and _rel(v[2::3], v[1::3]) < 1e-3  # continuous
    # the Wronskian I0 K1 + I1 K0 = 1 / x checks K against I over the whole range
    x = np.exp(np.linspace(-5, 6, 500))
    w = _bessel.i0e(x) * _bessel.k1e(x) + _bessel.i1e(x) * _bessel.k0e(x)
    np.testing.assert_allclose(w, 1 / x, rtol=2e-14)


def test_bessel_j_y_wronskian_and_values() -> None:
    x = np.exp(np.linspace(-6, 5, 800))
    w = _bessel.j1(x) * _bessel.y0(x) - _bessel.j0(x) * _bessel.y1(x)  # = 2 / (pi x)
    np.testing.assert_allclose(w, 2 / (math.pi * x), rtol=1e-13)
    zeros = np.array([2.404825557695773, 5.520078110286311, 8.653727912911013, 30.634606468431976])
    assert np.max(np.abs(_bessel.j0(zeros))) < 1e-15
    np.testing.assert_array_equal(_bessel.j0(np.array([0.0, np.inf])), [1.0, np.nan])
    assert np.signbit(_bessel.j1(np.array([-0.0]))[0]) and np.isnan(_bessel.y0(np.array([-1.0]))[0])


def test_airy_values() -> None:
    ai0 = 1 / (3 ** (2 / 3) * math.gamma(2 / 3))
    np.testing.assert_allclose(_bessel.airy_ai(np.array([0.0, -2.338107410459767, 5.0])),
                               [ai0, 0.0, 1.0834442813607441e-04], atol=1e-16, rtol=1e-13)
    x = np.linspace(-40, 40, 2001)  # continuous where the methods meet
    v = _bessel.airy_ai(x)
    assert np.all(np.abs(np.diff(v)) < 0.12)


def test_erfcx_log_ndtr_ndtri() -> None:
    x = np.linspace(-5, 26, 1000)
    expected = np.array([math.exp(v * v) * math.erfc(v) for v in x])
    np.testing.assert_allclose(_erf.erfcx(x), expected, rtol=1e-13)
    np.testing.assert_allclose(_erf.erfcx(np.array([1e10, 1e300])), 1 / (np.array([1e10, 1e300]) * math.sqrt(math.pi)),
                               rtol=1e-15)
    x = np.linspace(-37, 8, 2000)  # ndtr stays normal
    ndtr = np.array([0.5 * math.erfc(-v / math.sqrt(2)) for v in x])
    np.testing.assert_allclose(_erf.log_ndtr(x), np.log(ndtr), rtol=1e-14, atol=1e-15)
    p = np.exp(np.linspace(-700, -1e-3, 2000))
    x = _erf.ndtri(p)  # a rounding of x moves ndtr(x) by x^2 ulps in the far tail
    np.testing.assert_array_less(np.abs(np.exp(_erf.log_ndtr(x)) / p - 1), 1e-15 * (4 + x * x))
    np.testing.assert_array_equal(_erf.ndtri(np.array([0.0, 1.0, 0.5])), [-np.inf, np.inf, 0.0])


def test_orthogonal_polynomials_closed_forms() -> None:
    x = np.linspace(-0.99, 0.99, 199)
    for n in range(12):
        nn = np.full_like(x, n)
        theta = np.arccos(x)
        np.testing.assert_allclose(_orthopoly.chebyshev_t(x, nn), np.cos(n * theta), atol=1e-13)
        np.testing.assert_allclose(_orthopoly.chebyshev_u(x, nn), np.sin((n + 1) * theta) / np.sin(theta), atol=1e-12)
        np.testing.assert_allclose(_orthopoly.legendre_p(x, nn),
                                   np.polynomial.legendre.legval(x, [0] * n + [1]), atol=1e-13)
        np.testing.assert_allclose(_orthopoly.hermite_h(x, nn),
                                   np.polynomial.hermite.hermval(x, [0] * n + [1]), rtol=1e-12, atol=1e-9)
        np.testing.assert_allclose(_orthopoly.hermite_he(x, nn),
                                   np.polynomial.hermite_e.hermeval(x, [0] * n + [1]), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(_orthopoly.laguerre_l(x, nn),
                                   np.polynomial.laguerre.lagval(x, [0] * n + [1]), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(_orthopoly.shifted_chebyshev_t((x + 1) / 2, nn), np.cos(n * theta), atol=1e-12)
    # n is truncated; negative, nan and infinite n give 0
    np.testing.assert_array_equal(_orthopoly.chebyshev_t(np.full(5, 0.3), np.array([2.9, -1.0, np.nan, np.inf, -2.5])),
                                  [2 * 0.09 - 1, 0, 0, 0, 0])
    assert _orthopoly.hermite_h(np.array([0.5], dtype=np.float32), np.array([200.0], dtype=np.float32)).dtype == np.float32


def test_tensor_level_without_torch() -> None:
    x = tensorlib.tensor([0.5, 1.5, 4.0], dtype=tensorlib.float64, requires_grad=True)
    y = tensorlib.lgamma(x)
    (g,) = tensorlib.autograd.grad(y.sum(), x)
    np.testing.assert_allclose(g.numpy(), _gamma.digamma(np.array([0.5, 1.5, 4.0])), rtol=1e-15)
    assert tensorlib.special.bessel_j0(x).requires_grad is False
    assert tensorlib.special.zeta(2, tensorlib.tensor([1, 2])).dtype == tensorlib.float32
    with pytest.raises(RuntimeError, match="the derivative for 'igamma: input' is not implemented."):
        tensorlib.igamma(x, x.detach()).sum().backward()


def test_digamma_segments_against_high_precision() -> None:
    """digamma from short segments on [1, 10], the asymptotic series above, one recurrence step below 1 and the
    reflection below 0: within a few ulps of the exact values, and absolutely within 8e-16 where digamma is small
    (around its root 1.4616...; torch's, and the recurrence this replaced, err by up to 1.4e-15 on [1, 2])."""
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 40
    rng = np.random.default_rng(11)
    x = np.concatenate([rng.uniform(1.0, 10.0, 1500), rng.uniform(0.001, 1.0, 300), rng.uniform(10.0, 1e6, 200),
                        rng.uniform(1.45, 1.47, 100), np.arange(1, 11, dtype=np.float64) + 0.0,
                        (np.arange(32 * 9) + 32.5) / 32])  # the segments' edges
    exact = np.array([float(mpmath.digamma(mpmath.mpf(float(v)))) for v in x])
    got = _gamma.digamma(x)
    err = np.abs(got - exact)
    assert np.all(err <= np.maximum(8 * np.spacing(np.abs(exact)), 8e-16))  # (the floor: near the root)
    away = np.abs(exact) > 0.1
    assert np.mean(err[away] / np.spacing(np.abs(exact[away]))) < 2
    neg = -rng.uniform(0.01, 20.0, 300)
    neg = neg[np.abs(neg - np.round(neg)) > 1e-3]  # away from the poles, where the reflection's tan dominates
    exact = np.array([float(mpmath.digamma(mpmath.mpf(float(v)))) for v in neg])
    np.testing.assert_allclose(_gamma.digamma(neg), exact, rtol=1e-12, atol=1e-14)


def test_lgamma_segments_against_high_precision() -> None:
    """lgamma from short segments of ``lgamma(x) / (x - s)`` on [1/2, 8] (``x + 1`` less ``log x`` below 1/2),
    Stirling's series above: within 3 ulps of the exact values (mean under half an ulp), the zeros at 1 and 2
    included (the series this replaced was within 8)."""
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 40
    rng = np.random.default_rng(12)
    x = np.concatenate([rng.uniform(0.0, 9.0, 2500), rng.uniform(0.5, 0.52, 100), 1 + rng.uniform(-1e-2, 1e-2, 200),
                        2 + rng.uniform(-1e-2, 1e-2, 200), 1 + rng.uniform(-1e-9, 1e-9, 100),
                        2 + rng.uniform(-1e-9, 1e-9, 100), rng.uniform(1e-12, 1e-3, 100), rng.uniform(8.0, 1e4, 100),
                        (np.arange(32, 8 * 64) + 0.5) / 64])  # the segments' edges
    x = x[x > 0]
    exact = np.array([float(mpmath.loggamma(mpmath.mpf(float(v)))) for v in x])
    ulps = np.abs(_gamma.lgamma(x) - exact) / np.spacing(np.abs(exact))
    assert ulps.max() <= 3 and ulps.mean() < 0.5
    # one array through the general path (a NaN and a negative): the same values
    mixed = np.concatenate([x, [np.nan, -2.5]])
    np.testing.assert_array_equal(_gamma.lgamma(mixed)[:-2], _gamma.lgamma(x))


def test_lgamma_stored_table_is_its_definition() -> None:
    """The stored node values are ``lgamma_node_values``' (decimal arithmetic, about 0.3 s): regenerating them gives
    the same doubles (within an ulp where the platform's cosine puts a point elsewhere by an ulp)."""
    from tensorlib.ops._lgamma_nodes import node_values

    per_unit, degree, top = _gamma._LGAMMA_SEGMENTS
    rows = round(top * per_unit) + 1
    fresh = _gamma.lgamma_node_values(per_unit, degree, rows, _gamma.lgamma_shifts(per_unit, rows))
    stored = node_values()
    assert stored.shape == fresh.shape == (rows, degree + 1)
    used = slice(round(0.5 * per_unit), rows)  # (the segments below 1/2 are never looked up)
    diff = np.abs(stored[used] - fresh[used]) / np.spacing(np.abs(fresh[used]))
    assert diff.max() <= 1 and np.mean(diff == 0) > 0.99


def test_lgamma_signed_zeros_and_the_small_path() -> None:
    got = _gamma.lgamma(np.array([1.0, 2.0]))
    assert got.tolist() == [0.0, 0.0] and not np.signbit(got).any()  # +0, as torch
    tiny = np.array([1e-300, 5e-324, 1e-20])
    np.testing.assert_allclose(_gamma.lgamma(tiny), -np.log(tiny), rtol=1e-15)
    # below 1/2 the lookup is at x + 1: lgamma(x) = lgamma(x + 1) - log(x)
    x = np.linspace(0.01, 0.49, 49)
    np.testing.assert_allclose(_gamma.lgamma(x), [math.lgamma(v) for v in x], rtol=1e-14)


def test_digamma_special_points() -> None:
    got = _gamma.digamma(np.array([0.0, -0.0, -1.0, -2.0, np.inf, -np.inf, np.nan, 1.0, 10.0]))
    assert got[0] == -np.inf and got[1] == np.inf
    assert np.isnan(got[2]) and np.isnan(got[3]) and got[4] == np.inf and np.isnan(got[5]) and np.isnan(got[6])
    assert got[7] == pytest.approx(-0.5772156649015329, abs=2e-16)
    assert got[8] == pytest.approx(2.251752589066721, rel=4e-16)
    assert _gamma.digamma(np.float64(2.5)).shape == () and _gamma.digamma(np.zeros((2, 0))).shape == (2, 0)
