"""Max, average, adaptive and power pooling: values, indices, gradients of two orders, errors."""

from __future__ import annotations

import numpy as np
import pytest

import tensorlib
import tensorlib.nn.functional as F
from tensorlib.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(99)


def leaf(*shape, positive=False):
    a = RNG.standard_normal(shape)
    return tensorlib.tensor(np.abs(a) + 0.5 if positive else a, dtype=tensorlib.float64, requires_grad=True)


def _data():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 7, 6))
    ties = rng.integers(0, 3, (2, 3, 7, 6)).astype(np.float64)
    nans = x.copy()
    nans[0, 0, 0, 0] = nans[0, 0, 1, 0] = nans[0, 0, 0, 1] = nans[1, 2, 3, 3] = np.nan
    return {"x": x, "ties": ties, "nans": nans, "x3": rng.standard_normal((1, 2, 5, 4, 6))}


DATA = _data()

# (function, data key, slice of the data, kwargs)
CASES = [
    ("max_pool2d", "x", (), dict(kernel_size=2)),
    ("max_pool2d", "ties", (), dict(kernel_size=3, stride=2, padding=1, return_indices=True)),
    ("max_pool2d", "x", (), dict(kernel_size=(3, 2), stride=(2, 1), padding=(1, 0), dilation=(2, 3), return_indices=True)),
    ("max_pool2d", "ties", (), dict(kernel_size=(2, 3), stride=2, padding=1, ceil_mode=True, return_indices=True)),
    ("max_pool2d", "nans", (), dict(kernel_size=2, return_indices=True)),
    ("max_pool2d", "x", (0,), dict(kernel_size=3, stride=1, return_indices=True)),
    ("max_pool2d_with_indices", "x", (), dict(kernel_size=3, stride=2, ceil_mode=True)),
    ("max_pool1d", "ties", (0,), dict(kernel_size=3, stride=2, padding=1, return_indices=True)),
    ("max_pool1d", "x", (0, 0), dict(kernel_size=2, dilation=2, ceil_mode=True)),
    ("max_pool1d_with_indices", "x", (0,), dict(kernel_size=2)),
    ("max_pool3d", "x3", (), dict(kernel_size=2, stride=(1, 2, 2), padding=1, return_indices=True)),
    ("max_pool3d_with_indices", "x3", (0,), dict(kernel_size=(3, 2, 2), stride=2, ceil_mode=True)),
    ("avg_pool2d", "x", (), dict(kernel_size=2)),
    ("avg_pool2d", "x", (), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)),
    ("avg_pool2d", "x", (), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False)),
    ("avg_pool2d", "x", (), dict(kernel_size=(2, 3), stride=(1, 2), padding=(1, 1), divisor_override=4)),
    ("avg_pool2d", "x", (0,), dict(kernel_size=3, stride=1)),
    ("avg_pool1d", "x", (0,), dict(kernel_size=3, stride=2, padding=1, count_include_pad=False, ceil_mode=True)),
    ("avg_pool1d", "x", (0,), dict(kernel_size=2)),
    ("avg_pool3d", "x3", (), dict(kernel_size=(3, 2, 3), stride=(1, 2, 2), padding=1, ceil_mode=True)),
    ("avg_pool3d", "x3", (), dict(kernel_size=2, padding=1, count_include_pad=False)),
    ("adaptive_avg_pool1d", "x", (0,), dict(output_size=4)),
    ("adaptive_avg_pool1d", "x", (0,), dict(output_size=9)),
    ("adaptive_avg_pool2d", "x", (), dict(output_size=1)),
    ("adaptive_avg_pool2d", "x", (), dict(output_size=(3, 4))),
    ("adaptive_avg_pool2d", "x", (), dict(output_size=(None, 5))),
    ("adaptive_avg_pool2d", "x", (0,), dict(output_size=(8, 3))),
    ("adaptive_avg_pool3d", "x3", (), dict(output_size=(2, 3, 4))),
    ("adaptive_max_pool1d", "ties", (0,), dict(output_size=4, return_indices=True)),
    ("adaptive_max_pool1d_with_indices", "x", (0,), dict(output_size=9)),
    ("adaptive_max_pool2d", "ties", (), dict(output_size=(3, 4), return_indices=True)),
    ("adaptive_max_pool2d", "nans", (), dict(output_size=2, return_indices=True)),
    ("adaptive_max_pool2d", "x", (), dict(output_size=1)),
    ("adaptive_max_pool2d_with_indices", "x", (0,), dict(output_size=(8, 3))),
    ("adaptive_max_pool3d", "x3", (), dict(output_size=(2, 3, 4), return_indices=True)),
    ("adaptive_max_pool3d_with_indices", "x3", (0,), dict(output_size=(5, 1, 6))),
    ("lp_pool1d", "x", (0,), dict(norm_type=2, kernel_size=3, stride=1)),
    ("lp_pool2d", "x", (), dict(norm_type=3, kernel_size=2)),
    ("lp_pool2d", "x", (), dict(norm_type=1.5, kernel_size=(2, 3), stride=1, ceil_mode=True)),
    ("lp_pool3d", "x3", (), dict(norm_type=2, kernel_size=2)),
]


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_pooling_matches_torch(case):
    torch = pytest.importorskip("torch")
    name, key, idx, kw = case
    a = DATA[key][idx]
    if name.startswith("lp_pool"):
        a = np.abs(a) + 0.1
    expected = getattr(torch.nn.functional, name)(torch.tensor(a), **kw)
    got = getattr(F, name)(tensorlib.tensor(a), **kw)
    expected = expected if isinstance(expected, tuple) else (expected,)
    got = got if isinstance(got, tuple) else (got,)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert tuple(g.shape) == tuple(e.shape)
        assert g.numpy().dtype == e.numpy().dtype
        np.testing.assert_allclose(g.numpy(), e.numpy(), rtol=1e-12, atol=1e-12, equal_nan=True)


@pytest.mark.parametrize("case", [c for c in CASES if c[1] != "nans" and "max" in c[0]][:6] + CASES[12:16],
                         ids=lambda c: c[0])
def test_pooling_backward_matches_torch(case):
    torch = pytest.importorskip("torch")
    name, key, idx, kw = case
    a = DATA[key][idx]
    tx, lx = torch.tensor(a, requires_grad=True), tensorlib.tensor(a, requires_grad=True)
    te = getattr(torch.nn.functional, name)(tx, **kw)
    le = getattr(F, name)(lx, **kw)
    te, le = (te[0], le[0]) if isinstance(te, tuple) else (te, le)
    g = np.random.default_rng(0).standard_normal(tuple(te.shape))
    te.backward(torch.tensor(g))
    le.backward(tensorlib.tensor(g))
    np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), atol=1e-12)


GRAD_CASES = [
    (lambda x: F.max_pool2d(x, 2, 1, 1), (1, 1, 3, 3), False),
    (lambda x: F.max_pool1d(x, 2, 1, dilation=2), (1, 2, 4), False),
    (lambda x: F.max_pool3d(x, 2, ceil_mode=True), (1, 1, 3, 2, 2), False),
    (lambda x: F.avg_pool1d(x, 3, 2, 1, ceil_mode=True), (1, 2, 4), False),
    (lambda x: F.avg_pool2d(x, 2, 1, 1, count_include_pad=False), (1, 1, 3, 3), False),
    (lambda x: F.avg_pool2d(x, 2, divisor_override=3), (1, 1, 2, 4), False),
    (lambda x: F.avg_pool3d(x, 2, ceil_mode=True, stride=2), (1, 1, 3, 2, 3), False),
    (lambda x: F.adaptive_avg_pool1d(x, 3), (1, 1, 5), False),
    (lambda x: F.adaptive_avg_pool2d(x, (2, 3)), (1, 1, 3, 4), False),
    (lambda x: F.adaptive_avg_pool3d(x, (1, 2, 2)), (1, 1, 2, 3, 2), False),
    (lambda x: F.adaptive_max_pool1d(x, 2), (1, 2, 5), False),
    (lambda x: F.adaptive_max_pool2d(x, 2), (1, 1, 3, 3), False),
    (lambda x: F.adaptive_max_pool3d(x, (1, 2, 1)), (1, 1, 2, 3, 2), False),
    (lambda x: F.lp_pool1d(x, 2, 2), (1, 2, 4), True),
    (lambda x: F.lp_pool2d(x, 3, 2, stride=1), (1, 1, 3, 3), True),
]


@pytest.mark.parametrize("i", range(len(GRAD_CASES)))
def test_pooling_gradcheck_and_gradgradcheck(i):
    fn, shape, positive = GRAD_CASES[i]
    x = leaf(*shape, positive=positive)
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


def test_pooling_grad_fn_names_and_indices_dtype():
    x = tensorlib.randn(1, 2, 4, 4, requires_grad=True)
    out, idx = F.max_pool2d(x, 2, return_indices=True)
    assert type(out.grad_fn).__name__ == "MaxPool2DWithIndicesBackward0"
    assert idx.dtype == tensorlib.int64 and not idx.requires_grad
    assert type(F.avg_pool2d(x, 2).grad_fn).__name__ == "AvgPool2DBackward0"
    assert type(F.adaptive_avg_pool2d(x, 3).grad_fn).__name__ == "AdaptiveAvgPool2DBackward0"
    assert type(F.adaptive_avg_pool2d(x, 1).grad_fn).__name__ == "MeanBackward1"  # torch's global pooling: a mean
    assert type(F.adaptive_max_pool2d(x, 1).grad_fn).__name__ == "AdaptiveMaxPool2DBackward0"
    assert F.max_pool2d(x, 2).dtype == tensorlib.float32


def test_max_pool_values_and_indices_by_hand():
    x = tensorlib.tensor([[[1.0, 3.0, 2.0, 3.0, -1.0]]])
    out, idx = F.max_pool1d(x, 2, 2, return_indices=True)
    assert out.tolist() == [[[3.0, 3.0]]] and idx.tolist() == [[[1, 3]]]
    out, idx = F.max_pool1d(x, 3, 1, 1, return_indices=True)
    assert out.tolist() == [[[3.0, 3.0, 3.0, 3.0, 3.0]]] and idx.tolist() == [[[1, 1, 1, 3, 3]]]


def test_max_pool_gradient_goes_to_the_maximum():
    x = tensorlib.tensor([[[[1.0, 2.0], [4.0, 3.0]]]], requires_grad=True)
    F.max_pool2d(x, 2).sum().backward()
    assert x.grad.tolist() == [[[[0.0, 0.0], [1.0, 0.0]]]]


def test_avg_pool_divisors_by_hand():
    x = tensorlib.ones(1, 1, 3)
    assert F.avg_pool1d(x, 2, 2, 1).tolist() == [[[0.5, 1.0]]]
    assert F.avg_pool1d(x, 2, 2, 1, count_include_pad=False).tolist() == [[[1.0, 1.0]]]
    assert F.avg_pool2d(tensorlib.ones(1, 2, 2), 2, divisor_override=2).tolist() == [[[2.0]]]


def test_global_pools():
    x = tensorlib.randn(2, 3, 5, 4)
    np.testing.assert_allclose(F.adaptive_avg_pool2d(x, 1).numpy()[..., 0, 0], x.numpy().mean((2, 3)), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(F.adaptive_max_pool2d(x, 1).numpy()[..., 0, 0], x.numpy().max((2, 3)))


def test_empty_batch():
    assert F.max_pool2d(tensorlib.zeros(0, 3, 4, 4), 2).shape == (0, 3, 2, 2)
    assert F.avg_pool2d(tensorlib.zeros(0, 3, 4, 4), 2).shape == (0, 3, 2, 2)
    assert F.adaptive_avg_pool2d(tensorlib.zeros(0, 3, 4, 4), 3).shape == (0, 3, 3, 3)


def Z(lib, *shape):
    return lib.zeros(*shape)


X1, X2, X3 = (2, 3, 5), (2, 3, 5, 5), (1, 2, 4, 4, 4)
# (call with a library and its functional namespace, torch's error type, whether our message equals torch's)
ERRORS = [
    (lambda L, F: F.max_pool2d(Z(L, *X2), 0), RuntimeError, True),
    (lambda L, F: F.max_pool2d(Z(L, *X2), 0, 1), RuntimeError, True),
    (lambda L, F: F.max_pool2d(Z(L, *X2), 2, 1, -1), RuntimeError, True),
    (lambda L, F: F.max_pool2d(Z(L, *X2), 3, 1, 2), RuntimeError, True),
    (lambda L, F: F.max_pool2d(Z(L, *X2), 7), RuntimeError, True),
    (lambda L, F: F.max_pool2d(Z(L, *X2), 3, 1, (2, 1), 2), RuntimeError, True),
    (lambda L, F: F.max_pool3d(Z(L, 1, 2, 9, 9, 9), 3, 1, (2, 1, 2), 2), RuntimeError, True),
    (lambda L, F: F.max_pool1d(Z(L, *X1), 3, 1, 2, 2), RuntimeError, True),
    (lambda L, F: F.max_pool2d(Z(L, 5, 5), 2), RuntimeError, True),
    (lambda L, F: F.max_pool2d(Z(L, *X2), (2, 2, 2)), RuntimeError, True),
    (lambda L, F: F.max_pool2d(Z(L, *X2), 2, dilation=0), RuntimeError, True),
    (lambda L, F: F.max_pool2d(Z(L, 2, 0, 5, 5), 2), RuntimeError, True),
    (lambda L, F: F.max_pool1d(Z(L, *X1), 0), RuntimeError, True),
    (lambda L, F: F.max_pool1d(Z(L, *X1), 2, 0), RuntimeError, True),
    (lambda L, F: F.max_pool1d(Z(L, *X1), 2, 1, -1), RuntimeError, True),
    (lambda L, F: F.max_pool1d(Z(L, *X1), 2, 1, 2), RuntimeError, True),
    (lambda L, F: F.max_pool1d(Z(L, *X1), 9), RuntimeError, True),
    (lambda L, F: F.max_pool1d(Z(L, *X2), 2), RuntimeError, True),
    (lambda L, F: F.max_pool1d(Z(L, *X1), (2, 2)), RuntimeError, True),
    (lambda L, F: F.max_pool1d(Z(L, *X1), 2, dilation=0), RuntimeError, True),
    (lambda L, F: F.max_pool3d(Z(L, *X3), 0, 1), RuntimeError, True),
    (lambda L, F: F.max_pool3d(Z(L, *X3), 9), RuntimeError, True),
    (lambda L, F: F.max_pool3d(Z(L, 4, 4, 4), 2), RuntimeError, True),
    (lambda L, F: F.max_pool3d(Z(L, *X3), (2, 2)), RuntimeError, True),
    (lambda L, F: F.avg_pool2d(Z(L, *X2), 0, 1), RuntimeError, True),
    (lambda L, F: F.avg_pool2d(Z(L, *X2), 2, 0), RuntimeError, True),
    (lambda L, F: F.avg_pool2d(Z(L, *X2), 3, 1, 2), RuntimeError, True),
    (lambda L, F: F.avg_pool2d(Z(L, *X2), 7), RuntimeError, True),
    (lambda L, F: F.avg_pool2d(Z(L, *X2), 2, divisor_override=0), RuntimeError, True),
    (lambda L, F: F.avg_pool2d(Z(L, 5, 5), 2), IndexError, True),
    (lambda L, F: F.avg_pool2d(Z(L, 1, 1, 2, 3, 5, 5), 2), RuntimeError, True),
    (lambda L, F: F.avg_pool2d(Z(L, *X2), (2, 2, 2)), RuntimeError, True),
    (lambda L, F: F.avg_pool1d(Z(L, *X1), 0, 1), RuntimeError, True),
    (lambda L, F: F.avg_pool1d(Z(L, *X1), 9), RuntimeError, True),
    (lambda L, F: F.avg_pool1d(Z(L, *X2), 2), RuntimeError, True),
    (lambda L, F: F.avg_pool1d(Z(L, *X1), (2, 2)), RuntimeError, True),
    (lambda L, F: F.avg_pool1d(Z(L, *X1), 2, 1, -1), RuntimeError, True),
    (lambda L, F: F.avg_pool3d(Z(L, *X3), 9), RuntimeError, True),
    (lambda L, F: F.avg_pool3d(Z(L, 4, 4), 2), RuntimeError, True),
    (lambda L, F: F.avg_pool3d(Z(L, *X3), (2, 2)), RuntimeError, True),
    (lambda L, F: F.adaptive_avg_pool2d(Z(L, *X2), -1), RuntimeError, True),
    (lambda L, F: F.adaptive_avg_pool2d(Z(L, 5, 5), 2), RuntimeError, True),
    (lambda L, F: F.adaptive_avg_pool2d(Z(L, *X2), (2, 3, 4)), RuntimeError, True),
    (lambda L, F: F.adaptive_avg_pool2d(Z(L, 2, 3, 5, 0), 2), RuntimeError, True),
    (lambda L, F: F.adaptive_avg_pool1d(Z(L, *X2), 2), RuntimeError, True),
    (lambda L, F: F.adaptive_avg_pool1d(Z(L, *X1), (2, 2)), RuntimeError, True),
    (lambda L, F: F.adaptive_avg_pool1d(Z(L, *X1), -1), RuntimeError, True),
    (lambda L, F: F.adaptive_avg_pool1d(Z(L, *X1), 2.0), TypeError, True),
    (lambda L, F: F.adaptive_avg_pool3d(Z(L, 4, 4, 4), 2), RuntimeError, True),
    (lambda L, F: F.adaptive_avg_pool3d(Z(L, *X3), (2, 2)), RuntimeError, True),
    (lambda L, F: F.adaptive_max_pool2d(Z(L, *X2), -1), RuntimeError, True),
    (lambda L, F: F.adaptive_max_pool2d(Z(L, 5, 5), 2), RuntimeError, True),
    (lambda L, F: F.adaptive_max_pool2d(Z(L, *X2), (2, 3, 4)), RuntimeError, True),
    (lambda L, F: F.adaptive_max_pool2d(Z(L, 2, 3, 5, 0), 2), RuntimeError, True),
    (lambda L, F: F.adaptive_max_pool1d(Z(L, *X2), 2), RuntimeError, True),
    (lambda L, F: F.adaptive_max_pool1d(Z(L, 2, 3, 0), 2), RuntimeError, True),
    (lambda L, F: F.adaptive_max_pool3d(Z(L, *X3), (2, 2)), RuntimeError, True),
    (lambda L, F: F.adaptive_avg_pool2d(Z(L, *X2).long(), 2), NotImplementedError, True),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_pooling_errors(i):
    call, etype, _ = ERRORS[i]
    with pytest.raises(etype):
        call(tensorlib, F)


@pytest.mark.parametrize("i", [i for i, e in enumerate(ERRORS) if e[2]])
def test_pooling_error_messages_match_torch(i):
    torch = pytest.importorskip("torch")
    call, etype, _ = ERRORS[i]
    with pytest.raises(etype) as expected:
        call(torch, torch.nn.functional)
    with pytest.raises(etype) as got:
        call(tensorlib, F)
    assert str(got.value) == str(expected.value).replace("torch.", "tensorlib.")
