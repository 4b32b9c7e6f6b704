"""Sums along the last axes as matrix-vector products (tensorlib.ops._kernels.last_axis_sums, trailing_sums): NumPy's
reduction's results, within the error the product adds, for every layout and dtype it takes or declines; and the
ops that use it (softmax, log_softmax, cross_entropy, layer_norm) against float64 references and torch."""

from __future__ import annotations

import numpy as np
import pytest

import tensorlib
import tensorlib.nn.functional as F
from tensorlib.ops._kernels import last_axis_sums, trailing_sums


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(1,), (7,), (64, 10), (3, 5, 32), (2048, 32), (16, 1024), (4, 1025), (5, 0),
                                   (0, 8), (4, 4096), (2, 1536), (3, 3 * 256 * 7), (2, 65536)])
def test_sums_agree_with_numpys_within_one_unit_of_the_magnitudes(dtype, shape) -> None:
    rng = np.random.default_rng(sum(shape))
    a = (rng.standard_normal(shape) * rng.uniform(0.1, 10)).astype(dtype)
    got = last_axis_sums(a)
    want = np.add.reduce(a, axis=-1, keepdims=True)
    assert got.shape == want.shape and got.dtype == want.dtype
    exact = np.add.reduce(a.astype(np.longdouble), axis=-1, keepdims=True)
    magnitude = np.add.reduce(np.abs(a).astype(np.longdouble), axis=-1, keepdims=True)
    assert np.all(np.abs(got - exact) <= np.finfo(dtype).eps * magnitude)


@pytest.mark.parametrize("make", [
    lambda a: a.T,                         # not C-contiguous
    lambda a: a[:, ::2],                   # strided
    lambda a: a.astype(np.float16),        # no BLAS type
    lambda a: a.astype(np.int64),
    lambda a: a.astype(np.complex64),
    lambda a: np.zeros((3, 2002), np.float32),  # a long row with no block of 256, 512 or 1024
], ids=["transposed", "strided", "float16", "int64", "complex64", "long row without blocks"])
def test_other_arrays_take_numpys_reduction_bit_for_bit(make) -> None:
    a = make(np.random.default_rng(0).standard_normal((6, 8)))
    np.testing.assert_array_equal(last_axis_sums(a), np.add.reduce(a, axis=-1, keepdims=True), strict=True)


@pytest.mark.parametrize(("shape", "dims"), [((8, 4, 4, 1024), (2, 3)), ((2, 3, 5), (1, 2)), ((2, 3, 5), (2,)),
                                             ((2, 3, 5), (0, 2)), ((2, 3, 5), (0, 1, 2)), ((2, 0, 5), (1, 2))])
def test_trailing_sums_agree_with_numpys(shape, dims) -> None:
    a = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    got, want = trailing_sums(a, dims), np.add.reduce(a, axis=dims, keepdims=True)
    assert got.shape == want.shape and got.dtype == want.dtype
    magnitude = np.add.reduce(np.abs(a).astype(np.float64), axis=dims, keepdims=True)
    assert np.all(np.abs(got.astype(np.float64) - a.astype(np.float64).sum(axis=dims, keepdims=True))
                  <= np.finfo(np.float32).eps * magnitude)
    np.testing.assert_array_equal(trailing_sums(np.asfortranarray(a), dims), np.add.reduce(np.asfortranarray(a),
                                  axis=dims, keepdims=True))  # not C-contiguous: NumPy's own


def test_special_values_propagate_as_in_a_sum() -> None:
    a = np.array([[1.0, np.inf, 2.0], [np.nan, 1.0, 2.0], [np.inf, -np.inf, 0.0], [-0.0, -0.0, -0.0]], np.float32)
    with np.errstate(invalid="ignore"):
        got = last_axis_sums(a)[:, 0]
    assert got[0] == np.inf and np.isnan(got[1]) and np.isnan(got[2]) and got[3] == 0


def test_the_ones_vectors_are_shared_and_read_only() -> None:
    from tensorlib.ops import _kernels

    last_axis_sums(np.ones((2, 13), np.float32))
    ones = _kernels._ONES[(13, np.dtype(np.float32))]
    assert not ones.flags.writeable and ones.tolist() == [1.0] * 13


@pytest.mark.parametrize("shape", [(64, 10), (4, 8, 32), (3, 1000)])
def test_softmax_family_and_their_gradients_match_float64(shape) -> None:
    rng = np.random.default_rng(3)
    a = rng.standard_normal(shape) * 3
    g = rng.standard_normal(shape)
    ref_lsm = a - a.max(-1, keepdims=True)
    ref_lsm = ref_lsm - np.log(np.exp(ref_lsm).sum(-1, keepdims=True))
    ref_sm = np.exp(ref_lsm)
    for fn, ref, ref_grad in (
        (F.log_softmax, ref_lsm, g - ref_sm * g.sum(-1, keepdims=True)),
        (F.softmax, ref_sm, ref_sm * (g - (g * ref_sm).sum(-1, keepdims=True))),
    ):
        x = tensorlib.tensor(a.astype(np.float32), requires_grad=True)
        y = fn(x, -1)
        np.testing.assert_allclose(y.detach().numpy(), ref, rtol=2e-6, atol=2e-6)
        y.backward(tensorlib.tensor(g.astype(np.float32)))
        np.testing.assert_allclose(x.grad.numpy(), ref_grad, rtol=1e-5, atol=1e-5)


def test_layer_norm_and_cross_entropy_gradients_check_numerically() -> None:
    rng = np.random.default_rng(4)
    x = tensorlib.tensor(rng.standard_normal((5, 6)), requires_grad=True)
    w = tensorlib.tensor(rng.standard_normal(6), requires_grad=True)
    b = tensorlib.tensor(rng.standard_normal(6), requires_grad=True)
    t = tensorlib.tensor(rng.integers(0, 6, 5))
    assert tensorlib.autograd.gradcheck(lambda x, w, b: F.layer_norm(x, (6,), w, b), (x, w, b))
    assert tensorlib.autograd.gradgradcheck(lambda x, w, b: F.layer_norm(x, (6,), w, b), (x, w, b))
    assert tensorlib.autograd.gradcheck(lambda x: F.cross_entropy(x, t), (x,))
    assert tensorlib.autograd.gradcheck(lambda x: F.log_softmax(x, 1), (x,))
    assert tensorlib.autograd.gradcheck(lambda x: F.softmax(x, -1), (x,))


@pytest.mark.parametrize("shape", [(64, 256), (16, 32, 128), (4, 2048)])
def test_layer_norm_matches_torch_in_float32(shape) -> None:
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(5)
    a = rng.standard_normal(shape).astype(np.float32) * 2 + 1
    g = rng.standard_normal(shape).astype(np.float32)
    w, b = rng.standard_normal(shape[-1:]).astype(np.float32), rng.standard_normal(shape[-1:]).astype(np.float32)
    results = []
    for lib in (tensorlib, torch):
        x, wt, bt = (lib.tensor(v, requires_grad=True) for v in (a, w, b))
        y = lib.nn.functional.layer_norm(x, shape[-1:], wt, bt)
        y.backward(lib.tensor(g))
        results.append([t.detach().numpy() for t in (y, x.grad, wt.grad, bt.grad)])
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-4 * max(1.0, float(np.abs(theirs).max())))


@pytest.mark.parametrize("shape", [(8, 16, 32, 32), (2, 4, 5)])
def test_group_norm_matches_torch_in_float32(shape) -> None:
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(6)
    a = rng.standard_normal(shape).astype(np.float32) * 3 - 1
    g = rng.standard_normal(shape).astype(np.float32)
    w, b = rng.standard_normal(shape[1]).astype(np.float32), rng.standard_normal(shape[1]).astype(np.float32)
    results = []
    for lib in (tensorlib, torch):
        x, wt, bt = (lib.tensor(v, requires_grad=True) for v in (a, w, b))
        y = lib.nn.functional.group_norm(x, 2, wt, bt)
        y.backward(lib.tensor(g))
        results.append([t.detach().numpy() for t in (y, x.grad, wt.grad, bt.grad)])
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-4 * max(1.0, float(np.abs(theirs).max())))


def test_group_norm_gradients_check_numerically() -> None:
    rng = np.random.default_rng(7)
    x = tensorlib.tensor(rng.standard_normal((2, 4, 3, 3)), requires_grad=True)
    w = tensorlib.tensor(rng.standard_normal(4), requires_grad=True)
    b = tensorlib.tensor(rng.standard_normal(4), requires_grad=True)
    assert tensorlib.autograd.gradcheck(lambda x, w, b: F.group_norm(x, 2, w, b), (x, w, b))
    assert tensorlib.autograd.gradgradcheck(lambda x, w, b: F.group_norm(x, 2, w, b), (x, w, b))
