"""The vectorised error function (tensorlib/ops/_erf.py) against math.erf / math.erfc."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tensorlib
from tensorlib.ops import _erf, _kernels


def _grid() -> np.ndarray:
    rng = np.random.default_rng(0)
    return np.concatenate([
        np.linspace(-8.0, 8.0, 40001),
        rng.standard_normal(20000) * 3.0,
        np.linspace(0.49, 0.51, 2001),  # where the two formulas meet
        -np.linspace(0.49, 0.51, 2001),
        np.linspace(-26.0, 26.0, 5001),
        [0.0, 1e-300, 1e-8, -1e-8],
    ])


def _max_relative_error(got: np.ndarray, expected: np.ndarray) -> float:
    normal = np.abs(expected) > np.finfo(np.float64).tiny  # subnormal results carry fewer digits
    return float(np.max(np.abs(got - expected)[normal] / np.abs(expected)[normal]))


@pytest.mark.parametrize(("kernel", "reference"), [(_erf._erf_kernel, math.erf), (_erf._erfc_kernel, math.erfc)])
def test_vectorised_kernels_match_math_to_double_precision(kernel, reference):
    x = _grid()
    expected = np.array([reference(v) for v in x])
    got = _erf._chunked(kernel, x, False)
    assert _max_relative_error(got, expected) < 3e-15


@pytest.mark.parametrize(("kernel", "reference"), [(_erf._erf_kernel, math.erf), (_erf._erfc_kernel, math.erfc)])
def test_single_precision_kernels_round_to_float32_as_the_exact_values_do(kernel, reference):
    # for float32 and float16 tensors erf's and erfc's segments are cut at about 1e-11 relative: still far below a
    # float32's spacing
    x = _grid()
    expected = np.array([reference(v) for v in x])
    got = _erf._chunked(kernel, x, True)
    assert _max_relative_error(got, expected) < 1e-10
    rounded, exact = got.astype(np.float32), expected.astype(np.float32)
    assert np.mean(rounded == exact) > 0.9999
    assert np.all(np.abs(rounded - exact) <= np.spacing(np.abs(exact)))
    assert len(_erf._segments(True)[2]) < len(_erf._segments(False)[2])
    assert len(_erf._erfc_segments(True)[1]) < len(_erf._erfc_segments(False)[1])


def _segment_edges(single: bool) -> np.ndarray:
    """Both sides of every boundary between erf's segments (the worst places for an interpolant), and the centres."""
    per_unit, top, _ = _erf._segments(single)
    edges = (np.arange(round(top * per_unit)) + 0.5) / per_unit
    centres = np.arange(round(top * per_unit) + 1) / per_unit
    points = np.concatenate([np.nextafter(edges, 0), edges, np.nextafter(edges, np.inf), centres, [top, 7.0, 30.0]])
    return np.concatenate([points, -points])


@pytest.mark.parametrize("single", [False, True])
def test_erf_segments_hold_their_accuracy_at_every_boundary(single):
    x = _segment_edges(single)
    expected = np.array([math.erf(v) for v in x])
    got = _erf.erf(x, single)
    assert _max_relative_error(got, expected) < (1e-10 if single else 3e-15)
    if not single:  # a few units in the last place at most (math.erf is within one)
        assert np.max(np.abs(got - expected) / np.spacing(np.abs(expected))) <= 8


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_erf_reads_single_precision_inputs_as_they_are(dtype):
    # the kernel converts each chunk to float64 as it reads it (no float64 copy of the whole input first)
    x = (np.random.default_rng(2).standard_normal(3 * _erf._CHUNK + 7) * 2.0).astype(dtype)
    got = _erf.erf(x, single=True)
    assert got.dtype == np.float64 and got.shape == x.shape
    expected = np.array([math.erf(float(v)) for v in x])
    assert _max_relative_error(got, expected) < 1e-10
    assert np.mean(got.astype(dtype) == expected.astype(dtype)) > 0.9999
    two_d = x[: 40 * 90].reshape(40, 90)[:, ::3]  # strided: converted to a contiguous array first
    np.testing.assert_array_equal(_erf.erf(two_d, single=True), got[: 40 * 90].reshape(40, 90)[:, ::3])


def test_special_values():
    x = np.array([np.nan, np.inf, -np.inf, 40.0, -40.0, 0.0, -0.0, 27.5, -27.5] * 300)  # long: the vectorised path
    erf = _erf.erf(x)[:9]
    erfc = _erf.erfc(x)[:9]
    np.testing.assert_array_equal(erf, [np.nan, 1, -1, 1, -1, 0, -0.0, 1, -1])
    assert np.signbit(erf[6])  # erf(-0.0) is -0.0
    np.testing.assert_array_equal(erfc, [np.nan, 0, 2, 0, 2, 1, 1, 0, 2])


@pytest.mark.parametrize(("fn", "threshold"), [(_erf.erf, _erf._ERF_SCALAR_BELOW), (_erf.erfc, _erf._SCALAR_BELOW)])
def test_small_and_large_arrays_agree(fn, threshold):
    # below the threshold math.erf runs element by element; above it the array formulas do
    x = np.random.default_rng(1).standard_normal(3 * threshold)
    np.testing.assert_allclose(fn(x), [fn(x[i : i + 1])[0] for i in range(x.size)], rtol=3e-15, atol=0)
    assert fn(np.float64(0.5)).shape == () and fn(np.zeros((2, 0))).shape == (2, 0)
    assert fn(x[: threshold - 1]).dtype == fn(x[:threshold]).dtype == np.float64


@pytest.mark.parametrize("dtype", [tensorlib.float64, tensorlib.float32])
def test_tensor_erf_erfc_and_exact_gelu_on_large_tensors(dtype):
    x = tensorlib.randn(64, 80, dtype=dtype)
    ref = np.vectorize(math.erf)(x.double().numpy())
    tol = 1e-14 if dtype is tensorlib.float64 else 1e-6
    np.testing.assert_allclose(tensorlib.erf(x).double().numpy(), ref, rtol=tol, atol=tol)
    np.testing.assert_allclose(tensorlib.erfc(x).double().numpy(), 1 - ref, rtol=tol, atol=tol)
    gelu = tensorlib.nn.functional.gelu(x).double().numpy()
    xd = x.double().numpy()
    np.testing.assert_allclose(gelu, xd * 0.5 * (1 + np.vectorize(math.erf)(xd / math.sqrt(2))), rtol=tol, atol=tol)
    assert tensorlib.erf(x).dtype is dtype


@pytest.mark.parametrize("n", [50, 5000])  # math.erf per element below the threshold, array formulas above
def test_erfinv_inverts_erf(n):
    y = np.concatenate([np.linspace(-0.999999, 0.999999, n), 1 - np.logspace(-15, -1, 50), [0.5, -0.5]])
    x = _erf.erfinv(y)
    np.testing.assert_allclose([math.erf(v) for v in x], y, rtol=0, atol=1e-15)  # the vectorised erf: ~1e-15
    tail = y > 0.5  # near 1, erfc(x) must match 1 - y to relative precision
    np.testing.assert_allclose([math.erfc(v) for v in x[tail]], 1 - y[tail], rtol=1e-13)


def test_erfinv_special_values_and_tensor_op():
    got = _erf.erfinv(np.array([0.0, -0.0, 1.0, -1.0, 1.5, -2.0, np.nan]))
    np.testing.assert_array_equal(got, [0.0, -0.0, np.inf, -np.inf, np.nan, np.nan, np.nan])
    assert np.signbit(got[1])
    assert _erf.erfinv(np.float64(0.5)).shape == () and _erf.erfinv(np.zeros((2, 0, 3))).shape == (2, 0, 3)
    grid = np.linspace(-0.99, 0.99, 24).reshape(2, 3, 4)
    np.testing.assert_array_equal(_erf.erfinv(grid), _erf.erfinv(grid.reshape(-1)).reshape(2, 3, 4))
    assert float(_erf.erfinv(np.float64(0.5))) == _erf.erfinv(np.array([0.5]))[0]
    x = tensorlib.tensor([0.25, -0.75], dtype=tensorlib.float64, requires_grad=True)
    assert tensorlib.autograd.gradcheck(tensorlib.erfinv, (x,))
    assert tensorlib.autograd.gradgradcheck(tensorlib.special.erfinv, (x,))
    assert tensorlib.erfinv(tensorlib.tensor([0.5])).dtype is tensorlib.float32


def test_erfinv_segments_hold_between_their_nodes():
    # the table against the function it interpolates (itself within a few units in the last place: see the test
    # against high precision below), at random points of every part of its range
    per_unit, columns = _erf._erfinv_segments()
    rng = np.random.default_rng(3)
    for lo, hi in [(0.0, 0.1), (0.1, 1.0), (1.0, 6.0), (6.0, 27.3)]:
        s = rng.uniform(lo, hi, 4000)
        direct = _erf._erfinv_over_y(s)
        table = _kernels.segment_lookup(columns, per_unit, s)
        assert np.max(np.abs(table - direct) / np.spacing(direct)) <= 8, (lo, hi)


def test_erfinv_near_zero_keeps_its_relative_accuracy():
    # erfinv(y) = sqrt(pi)/2 (y + pi/12 y^3 + 7 pi^2/480 y^5 + ...): the first three terms are exact to 1e-17 here
    y = np.concatenate([np.logspace(-300, -3, 400), -np.logspace(-20, -3, 50)])
    series = math.sqrt(math.pi) / 2 * y * (1 + math.pi / 12 * y**2 + 7 * math.pi**2 / 480 * y**4)
    got = _erf.erfinv(y)
    assert np.max(np.abs(got - series) / np.spacing(np.abs(series))) <= 4


def test_erfinv_and_ndtri_on_single_precision_inputs_and_shapes():
    y = np.random.default_rng(4).uniform(-1, 1, 3000).astype(np.float32)
    np.testing.assert_array_equal(_erf.erfinv(y), _erf.erfinv(y.astype(np.float64)))
    p = np.linspace(0, 1, 24).reshape(2, 3, 4)
    assert _erf.ndtri(p).shape == (2, 3, 4) and _erf.ndtri(np.float64(0.25)).shape == ()
    np.testing.assert_array_equal(_erf.ndtri(p).reshape(-1), _erf.ndtri(p.reshape(-1)))
    got = _erf.ndtri(np.array([0.0, 1.0, 0.5, -0.1, 1.1, np.nan, 5e-324, 1 - 2**-53]))
    np.testing.assert_array_equal(got[:6], [-np.inf, np.inf, 0.0, np.nan, np.nan, np.nan])
    assert -38.5 < got[6] < -38.4 and 8.2 < got[7] < 8.3


def test_against_high_precision():
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 40
    rng = np.random.default_rng(5)
    x = np.concatenate([rng.standard_normal(1500) * 2.0, rng.uniform(-0.05, 0.05, 300)])
    exact = np.array([float(mpmath.erf(mpmath.mpf(float(v)))) for v in x])
    assert np.max(np.abs(_erf.erf(x) - exact) / np.spacing(np.abs(exact))) <= 4
    x = np.concatenate([x, rng.uniform(4.0, 26.0, 500), -rng.uniform(0.0, 6.0, 200)])
    exact = np.array([float(mpmath.erfc(mpmath.mpf(float(v)))) for v in x])
    assert np.max(np.abs(_erf.erfc(x) - exact) / np.spacing(np.abs(exact))) <= 8
    single = _erf.erfc(x, single=True)
    assert np.max(np.abs(single - exact) / np.abs(exact)) < 1e-10
    y = np.concatenate([rng.uniform(-1, 1, 1500), 1 - np.exp(rng.uniform(-36, -1, 300))])
    exact = np.array([float(mpmath.erfinv(mpmath.mpf(float(v)))) for v in y])
    assert np.max(np.abs(_erf.erfinv(y) - exact) / np.spacing(np.abs(exact))) <= 8
    p = np.concatenate([rng.uniform(0, 1, 300), np.exp(rng.uniform(-740, -1, 300))])
    got = _erf.ndtri(p)
    # the root of ncdf(x) = p near ours (mpmath's ncdf keeps its relative precision in the far tail)
    exact = np.array([float(mpmath.findroot(lambda t, v=v: mpmath.ncdf(t) - v, mpmath.mpf(float(g)))) for v, g in zip(p, got)])
    assert np.max(np.abs(got - exact) / np.spacing(np.abs(exact))) <= 8
