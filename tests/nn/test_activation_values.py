"""Values of the clipping activations at their edges: signed zeros, infinities, NaN, 0-d inputs, every float dtype.

The expected values are torch's (checked against it in the parity test at the end): a zero that comes in negative
leaves negative where torch passes the input through, NaN stays NaN, and an infinity is scaled as torch scales it.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import tensorlib
import tensorlib.nn.functional as F

NAN, INF = math.nan, math.inf
EDGES = [-0.0, 0.0, NAN, -1.5, 2.5, INF, -INF, 7.0, -3.0, 3.0, 1e-30, -1e-30]
DTYPES = [tensorlib.float16, tensorlib.float32, tensorlib.float64]


def _values(t: tensorlib.Tensor) -> np.ndarray:
    return t.double().numpy()


def _same(got: np.ndarray, expected: list[float]) -> None:
    e = np.array(expected, dtype=np.float64)
    np.testing.assert_allclose(got, e, rtol=1e-3, atol=0)
    finite_sign = ~np.isnan(e)
    assert np.array_equal(np.signbit(got[finite_sign]), np.signbit(e[finite_sign])), (got, e)


@pytest.mark.parametrize("dtype", DTYPES)
def test_relu_relu6_and_hardtanh_pass_negative_zero_and_nan_through(dtype):
    x = tensorlib.tensor(EDGES, dtype=dtype)
    tiny = float(x[10])  # 1e-30 (0 in half precision)
    z = float(x[11]) if float(x[11]) == 0 else 0.0  # relu(-1e-30) is 0; in half precision the input is -0.0 itself
    _same(_values(tensorlib.relu(x)), [-0.0, 0.0, NAN, 0, 2.5, INF, 0, 7, 0, 3, tiny, z])
    _same(_values(F.relu6(x)), [-0.0, 0.0, NAN, 0, 2.5, 6, 0, 6, 0, 3, tiny, z])
    _same(_values(F.hardtanh(x)), [-0.0, 0.0, NAN, -1, 1, 1, -1, 1, -1, 1, tiny, -tiny])
    y = x.clone()
    F.relu_(y)
    _same(_values(y), [-0.0, 0.0, NAN, 0, 2.5, INF, 0, 7, 0, 3, tiny, z])
    assert tensorlib.relu(tensorlib.tensor(-2.0, dtype=dtype)).shape == ()


def test_relu_of_integers_keeps_the_dtype():
    for dtype in (tensorlib.int64, tensorlib.int8, tensorlib.uint8):
        r = tensorlib.relu(tensorlib.tensor([0, 3, 1] if dtype is tensorlib.uint8 else [-4, 0, 3], dtype=dtype))
        assert r.dtype is dtype and r.tolist() == ([0, 3, 1] if dtype is tensorlib.uint8 else [0, 0, 3])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("slope", [0.01, 1.0, 0.0, -0.1, 2.0])
def test_leaky_relu_with_every_kind_of_slope(dtype, slope):
    x = tensorlib.tensor(EDGES, dtype=dtype)
    a = x.numpy()
    # torch's select: the input above 0, the scaled input below, the product in float32 for half and single precision
    product = a * slope if a.dtype == np.float64 else (a.astype(np.float32) * np.float32(slope)).astype(a.dtype)
    with np.errstate(invalid="ignore"):
        e = np.where(a > 0, a, product).astype(np.float64)
    got = _values(F.leaky_relu(x, slope))
    np.testing.assert_array_equal(got, e)
    assert np.array_equal(np.signbit(got[~np.isnan(e)]), np.signbit(e[~np.isnan(e)]))
    assert F.leaky_relu(tensorlib.tensor(-2.0, dtype=dtype), slope).shape == ()


@pytest.mark.parametrize("dtype", DTYPES)
def test_elu_family_keeps_negative_zero_and_the_sums_exact(dtype):
    x = tensorlib.tensor(EDGES, dtype=dtype)
    xd = _values(x)
    for fn, alpha, scale, input_scale in [
        (lambda t: F.elu(t), 1.0, 1.0, 1.0),
        (lambda t: F.elu(t, 2.0), 2.0, 1.0, 1.0),
        (lambda t: F.celu(t, 0.5), 0.5, 1.0, 2.0),
        (lambda t: F.selu(t), 1.6732632423543772, 1.0507009873554805, 1.0),
    ]:
        got = _values(fn(x))
        with np.errstate(invalid="ignore", over="ignore"):
            expected = np.where(xd > 0, xd, alpha * np.expm1(xd * input_scale)) * scale  # -0.0 for -0.0
        _same(got, list(expected))
        if scale == 1.0:  # the positive part is the input itself, bit for bit
            positive = xd > 0
            np.testing.assert_array_equal(got[positive], xd[positive])
    assert F.elu(tensorlib.tensor(-1.0, dtype=dtype)).shape == ()


@pytest.mark.parametrize("dtype", DTYPES)
def test_nan_to_num_on_every_float_dtype(dtype):
    big = float(np.finfo(np.dtype(str(dtype).split(".")[-1])).max)
    x = tensorlib.tensor([NAN, INF, -INF, -0.0, 5.0], dtype=dtype)
    _same(_values(tensorlib.nan_to_num(x)), [0.0, big, -big, -0.0, 5.0])
    _same(_values(tensorlib.nan_to_num(x, nan=2.5)), [2.5, big, -big, -0.0, 5.0])
    _same(_values(tensorlib.nan_to_num(x, posinf=1.0, neginf=-2.0)), [0.0, 1.0, -2.0, -0.0, 5.0])
    assert tensorlib.nan_to_num(tensorlib.tensor(NAN, dtype=dtype)).shape == ()
    y = x.clone()
    y.nan_to_num_(nan=-1.0)
    _same(_values(y), [-1.0, big, -big, -0.0, 5.0])


def test_against_torch():
    torch = pytest.importorskip("torch")
    tf = torch.nn.functional
    cases = [
        ("relu", torch.relu, tensorlib.relu), ("relu6", tf.relu6, F.relu6), ("hardtanh", tf.hardtanh, F.hardtanh),
        ("leaky_relu", tf.leaky_relu, F.leaky_relu), ("elu", tf.elu, F.elu), ("selu", tf.selu, F.selu),
        ("celu", lambda t: tf.celu(t, 0.5), lambda t: F.celu(t, 0.5)), ("hardsigmoid", tf.hardsigmoid, F.hardsigmoid),
        ("hardswish", tf.hardswish, F.hardswish), ("nan_to_num", torch.nan_to_num, tensorlib.nan_to_num),
    ]
    rng = np.random.default_rng(0)
    data = np.concatenate([EDGES, rng.standard_normal(3000) * 4])
    for ours_dtype, their_dtype, rtol in [(tensorlib.float32, torch.float32, 3e-7), (tensorlib.float64, torch.float64, 1e-15)]:
        for name, theirs, ours in cases:
            t = theirs(torch.tensor(data, dtype=their_dtype)).double().numpy()
            o = _values(ours(tensorlib.tensor(data, dtype=ours_dtype)))
            np.testing.assert_allclose(o, t, rtol=rtol, atol=0, err_msg=name)
            finite = ~np.isnan(t)
            assert np.array_equal(np.signbit(o[finite]), np.signbit(t[finite])), name


def test_nan_to_num_takes_numbers_and_0d_tensors_as_torch():
    x = tensorlib.tensor([NAN, 1.0, INF])
    for value in (tensorlib.tensor(2.0), np.float64(2.0), 2, np.int64(2)):
        assert tensorlib.nan_to_num(x, nan=value).tolist()[:2] == [2.0, 1.0]
    assert tensorlib.nan_to_num(x, nan=True).tolist()[0] == 1.0
    assert tensorlib.nan_to_num(x, posinf=tensorlib.tensor(5.0)).tolist() == [0.0, 1.0, 5.0]
    for name, value, shown in [("nan", "2", "str"), ("nan", 2 + 1j, "complex"), ("nan", tensorlib.ones(3, 1), "Tensor"),
                               ("posinf", "1", "str"), ("neginf", [1.0], "list")]:
        with pytest.raises(TypeError, match=f"nan_to_num\\(\\): argument '{name}' must be float, not {shown}"):
            tensorlib.nan_to_num(x, **{name: value})
    y = x.clone()
    with pytest.raises(TypeError, match="must be float, not Tensor"):
        y.nan_to_num_(nan=tensorlib.ones(2))
    assert np.isnan(y[0].item())  # nothing written
    assert tensorlib.nan_to_num(x, nan=None).tolist()[0] == 0.0  # torch's float? nan=None
