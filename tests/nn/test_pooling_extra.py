"""Fractional max pooling and max unpooling: values, indices and gradients against torch (the random window
positions fixed by ``_random_samples``), gradcheck and gradgradcheck in float64, the modules, errors."""

from __future__ import annotations

import numpy as np
import pytest

import tensorlib
import tensorlib.nn.functional as F
from tests.nn.compare import check_gradients, compare, leaf, same_error, same_message

RNG = np.random.default_rng(31)


def _f(lib):
    return lib.nn.functional


# -- fractional max pooling ------------------------------------------------------------------------------------------

FMP2 = [((2, 3, 7, 6), 2, 3), ((2, 3, 9, 8), (3, 2), (4, 5)), ((3, 10, 9), 2, (5, 4)), ((2, 3, 7, 6), 1, (7, 6)),
        ((1, 1, 5, 5), 3, 2)]
FMP3 = [((2, 3, 5, 6, 7), 2, 3), ((3, 5, 6, 7), (2, 3, 1), (2, 3, 4)), ((1, 2, 9, 9, 9), 3, (4, 5, 6))]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("shape, kernel, out", FMP2)
def test_fractional_max_pool2d_matches_torch(shape, kernel, out, dtype):
    x = RNG.standard_normal(shape).astype(dtype)
    x[..., 0, 0] = x[..., 0, 1]  # ties: the first maximum, as torch
    samples = RNG.random((1 if len(shape) == 3 else shape[0], shape[-3], 2)).astype(dtype)
    compare(lambda lib, a, s: _f(lib).fractional_max_pool2d(a, kernel, out, return_indices=True, _random_samples=s),
            x, samples)
    compare(lambda lib, a, s: _f(lib).fractional_max_pool2d_with_indices(a, kernel, out, _random_samples=s), x,
            samples)


@pytest.mark.parametrize("shape, kernel, out", FMP3)
def test_fractional_max_pool3d_matches_torch(shape, kernel, out):
    x = RNG.standard_normal(shape)
    samples = RNG.random((1 if len(shape) == 4 else shape[0], shape[-4], 3))
    compare(lambda lib, a, s: _f(lib).fractional_max_pool3d(a, kernel, out, return_indices=True, _random_samples=s),
            x, samples)
    compare(lambda lib, a, s: _f(lib).fractional_max_pool3d_with_indices(a, kernel, out, _random_samples=s), x,
            samples)


def test_fractional_max_pool_output_ratio_and_random_windows():
    x = RNG.standard_normal((2, 3, 8, 10))
    samples = RNG.random((2, 3, 2))
    compare(lambda lib, a, s: _f(lib).fractional_max_pool2d(a, 2, output_ratio=(0.5, 0.7), _random_samples=s), x,
            samples)
    compare(lambda lib, a, s: _f(lib).fractional_max_pool3d(a[None], 2, output_ratio=0.5, _random_samples=s[:1]), x,
            samples[..., :1].repeat(3, 2)[:1, :2])
    tensorlib.manual_seed(0)
    out, idx = F.fractional_max_pool2d(tensorlib.tensor(x), 3, output_size=4, return_indices=True)
    assert out.shape == (2, 3, 4, 4)
    # every value is the input at its index, and the maximum of some 3 x 3 window
    flat = x.reshape(2, 3, -1)
    np.testing.assert_array_equal(np.take_along_axis(flat, idx.numpy().reshape(2, 3, -1), 2),
                                  out.numpy().reshape(2, 3, -1))
    windows = np.lib.stride_tricks.sliding_window_view(x, (3, 3), axis=(2, 3)).max(axis=(-1, -2))
    assert all(v in windows[n, c] for n in range(2) for c in range(3) for v in out.numpy()[n, c].ravel())
    draws = {tuple(F.fractional_max_pool2d(tensorlib.tensor(x), 2, output_size=5, return_indices=True)[1]
                   .numpy().ravel()) for _ in range(8)}
    assert len(draws) > 1  # positions drawn afresh each call


def test_fractional_max_pool_gradients():
    samples = tensorlib.tensor(RNG.random((1, 2, 2)))
    check_gradients(lambda t: F.fractional_max_pool2d(t, 2, output_size=3, _random_samples=samples),
                    leaf(1, 2, 6, 5))
    samples3 = tensorlib.tensor(RNG.random((1, 1, 3)))
    check_gradients(lambda t: F.fractional_max_pool3d(t, (2, 1, 2), output_size=(2, 3, 2), _random_samples=samples3),
                    leaf(1, 1, 4, 4, 4, seed=1))
    out = F.fractional_max_pool2d(leaf(1, 2, 6, 5), 2, output_size=3, _random_samples=samples)
    assert type(out.grad_fn).__name__ == "FractionalMaxPool2DBackward0"


S2 = RNG.random((2, 3, 2))


@pytest.mark.parametrize("call", [
    lambda lib, x, s: _f(lib).fractional_max_pool2d(x, 2, output_size=(7, 3), _random_samples=s),
    lambda lib, x, s: _f(lib).fractional_max_pool2d(x, (2, 2, 2), output_size=3, _random_samples=s),
    lambda lib, x, s: _f(lib).fractional_max_pool2d(x, 2, output_size=(3, 3, 3), _random_samples=s),
    lambda lib, x, s: _f(lib).fractional_max_pool2d(x[0, 0], 2, output_size=3),
    lambda lib, x, s: _f(lib).fractional_max_pool2d(x, 2, output_size=3, _random_samples=s[0]),
    lambda lib, x, s: _f(lib).fractional_max_pool2d(x, 2, output_size=3, _random_samples=s[:1]),
    lambda lib, x, s: _f(lib).fractional_max_pool2d(x, 2, output_size=3, _random_samples=s.repeat(1, 1, 2)[..., :3]),
    lambda lib, x, s: _f(lib).fractional_max_pool2d(x, 2),
    lambda lib, x, s: _f(lib).fractional_max_pool2d(x, 2, output_ratio=(0.5, 0.5, 0.5)),
    lambda lib, x, s: _f(lib).fractional_max_pool2d(x, 2, output_ratio=0.5, _random_samples=s),
    lambda lib, x, s: _f(lib).fractional_max_pool2d(x, 2, output_size=3, _random_samples=s.float()),
    lambda lib, x, s: _f(lib).fractional_max_pool2d(x[:, :0], 2, output_size=3),
    lambda lib, x, s: _f(lib).fractional_max_pool3d(x, (2, 2), output_size=3),
    lambda lib, x, s: _f(lib).fractional_max_pool3d(x[None], 2, output_size=5),
    lambda lib, x, s: _f(lib).fractional_max_pool3d(x[None], 2, output_size=3, _random_samples=s[:1]),
])
def test_fractional_max_pool_errors(call):
    same_message(call, RNG.standard_normal((2, 3, 7, 6)), S2)


def test_fractional_max_pool_modules():
    torch = pytest.importorskip("torch")
    x = RNG.standard_normal((2, 3, 7, 6))
    samples = RNG.random((2, 3, 2))
    compare(lambda lib, a, s: lib.nn.FractionalMaxPool2d(2, output_size=(3, 4), return_indices=True,
                                                         _random_samples=s)(a), x, samples)
    m = tensorlib.nn.FractionalMaxPool2d(2, output_ratio=0.5, _random_samples=tensorlib.tensor(samples))
    assert [n for n, _ in m.named_buffers()] == ["_random_samples"] and repr(m) == "FractionalMaxPool2d()"
    x3 = RNG.standard_normal((1, 2, 5, 6, 7))
    s3 = RNG.random((1, 2, 3))
    compare(lambda lib, a, s: lib.nn.FractionalMaxPool3d(2, output_ratio=(0.5, 0.6, 0.7), _random_samples=s)(a), x3,
            s3)
    for make in (lambda lib: lib.nn.FractionalMaxPool2d(2), lambda lib: lib.nn.FractionalMaxPool2d(2, 3, 0.5),
                 lambda lib: lib.nn.FractionalMaxPool2d(2, output_ratio=1.5),
                 lambda lib: lib.nn.FractionalMaxPool3d(0, output_size=2),
                 lambda lib: lib.nn.FractionalMaxPool3d(2, output_ratio=(0.5, 0.5, 1.0))):
        with pytest.raises(ValueError) as theirs:
            make(torch)
        with pytest.raises(ValueError) as ours:
            make(tensorlib)
        assert str(ours.value).replace("tensorlib", "torch") == str(theirs.value)


# -- max unpooling -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("nd, shape, kernel, stride, padding", [
    (1, (2, 3, 8), 2, None, 0), (1, (3, 9), 3, 2, 1), (2, (2, 3, 6, 4), 2, None, 0), (2, (3, 6, 5), (3, 2), 1, (1, 0)),
    (3, (2, 2, 4, 4, 6), 2, None, 0), (3, (2, 4, 5, 6), 3, 2, 1),
])
def test_max_unpool_matches_torch(nd, shape, kernel, stride, padding):
    torch = pytest.importorskip("torch")
    pool = getattr(torch.nn.functional, f"max_pool{nd}d")
    values, indices = pool(torch.tensor(RNG.standard_normal(shape)), kernel, stride, padding, return_indices=True)
    size = shape[-nd:]  # the pooled input's size (the default one can be too small to hold every index)
    compare(lambda lib, v, i: getattr(_f(lib), f"max_unpool{nd}d")(v, i, kernel, stride, padding, size),
            values.numpy(), indices.numpy())
    compare(lambda lib, v, i: getattr(lib.nn, f"MaxUnpool{nd}d")(kernel, stride, padding)(v, i, size), values.numpy(),
            indices.numpy())


def test_max_unpool_output_size_and_round_trip():
    torch = pytest.importorskip("torch")
    x = RNG.standard_normal((1, 2, 5, 5))
    values, indices = torch.nn.functional.max_pool2d(torch.tensor(x), 2, return_indices=True)
    for size in ([5, 5], (1, 2, 5, 5), torch.Size([4, 5])):
        compare(lambda lib, v, i: _f(lib).max_unpool2d(v, i, 2, output_size=size), values.numpy(), indices.numpy())
        compare(lambda lib, v, i: lib.nn.MaxUnpool2d(2)(v, i, output_size=size), values.numpy(), indices.numpy())
    out, idx = F.max_pool2d(tensorlib.tensor(x), 2, return_indices=True)
    back = F.max_unpool2d(out, idx, 2, output_size=x.shape)
    assert back.shape == x.shape and np.isin(back.numpy()[back.numpy() != 0], x).all()
    m = tensorlib.nn.MaxUnpool3d(2, padding=1)
    assert repr(m) == "MaxUnpool3d(kernel_size=(2, 2, 2), stride=(2, 2, 2), padding=(1, 1, 1))"


def test_max_unpool_gradients():
    # overlapping windows give repeated indices: the value is written once and, as in torch, each copy gets the
    # gradient there (so no gradcheck for those)
    values, indices = F.max_pool2d(leaf(1, 1, 4, 4).detach(), 3, 1, return_indices=True)
    assert len(np.unique(indices.numpy())) < indices.numel()
    compare(lambda lib, v, i: _f(lib).max_unpool2d(v, i, 3, 1, output_size=(4, 4)), values.numpy(), indices.numpy())
    v2, i2 = F.max_pool2d(leaf(1, 2, 4, 6).detach(), 2, return_indices=True)
    check_gradients(lambda v: F.max_unpool2d(v, i2, 2), v2.clone().requires_grad_())
    v1, i1 = F.max_pool1d(leaf(2, 6).detach(), 2, return_indices=True)
    check_gradients(lambda v: F.max_unpool1d(v, i1, 2), v1.clone().requires_grad_())
    v3, i3 = F.max_pool3d(leaf(1, 4, 4, 4).detach(), 2, return_indices=True)
    check_gradients(lambda v: F.max_unpool3d(v, i3, 2), v3.clone().requires_grad_())


_V, _I = F.max_pool2d(tensorlib.tensor(RNG.standard_normal((2, 3, 4, 4))), 2, return_indices=True)
V, I = _V.numpy(), _I.numpy()


@pytest.mark.parametrize("call", [
    lambda lib, v, i: _f(lib).max_unpool2d(v, i.int(), 2),
    lambda lib, v, i: _f(lib).max_unpool2d(v, i[:1], 2),
    lambda lib, v, i: _f(lib).max_unpool2d(v[0, 0], i[0, 0], 2),
    lambda lib, v, i: _f(lib).max_unpool2d(v, i, 2, output_size=(4,)),
    lambda lib, v, i: _f(lib).max_unpool3d(v[0], i[0], 2),
    lambda lib, v, i: _f(lib).max_unpool3d(v[None], i[None], 2, 0),
    lambda lib, v, i: _f(lib).max_unpool2d(v, i, 2, output_size=(-1, 4)),
])
def test_max_unpool_errors(call):
    same_message(call, V, I)


@pytest.mark.parametrize("call, size", [
    (lambda lib, v, i: _f(lib).max_unpool2d(v, i * 10, 2), "4x4"),
    (lambda lib, v, i: _f(lib).max_unpool2d(v, i, 2, 1), "3x3"),
    (lambda lib, v, i: _f(lib).max_unpool2d(v, i, 2, output_size=(3, 3)), "3x3"),
    (lambda lib, v, i: _f(lib).max_unpool2d(v, -i - 1, 2), "4x4"),
    (lambda lib, v, i: _f(lib).max_unpool1d(v[0], i[0] * 3, 2), "4x1"),
    (lambda lib, v, i: _f(lib).max_unpool3d(v[None], i[None] * 10, 2), "6x4x4"),
])
def test_max_unpool_invalid_indices(call, size):
    # torch reports whichever invalid index its threads met last: ours is the last one in order
    message = same_error(call, V, I, match="Found an invalid max index: ")
    assert message.endswith(f"(output volumes are of size {size})")


# -- average pooling: window sums, each divided once by its divisor ---------------------------------------------------


@pytest.mark.parametrize("kwargs", [dict(kernel_size=3, stride=2, padding=1),
                                    dict(kernel_size=(3, 2), stride=(2, 3), padding=(1, 0), ceil_mode=True),
                                    dict(kernel_size=3, stride=1, padding=1, count_include_pad=False),
                                    dict(kernel_size=4, stride=3, padding=2, ceil_mode=True, count_include_pad=False),
                                    dict(kernel_size=2, divisor_override=3)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_avg_pool2d_values_gradients_and_nodes_match_torch(kwargs, dtype):
    torch = pytest.importorskip("torch")
    a = RNG.standard_normal((2, 3, 11, 10))
    g = RNG.standard_normal(tuple(torch.nn.functional.avg_pool2d(torch.tensor(a), **kwargs).shape))
    out = []
    for lib in (tensorlib, torch):
        x = lib.tensor(a, dtype=getattr(lib, dtype), requires_grad=True)
        y = lib.nn.functional.avg_pool2d(x, **kwargs)
        (gx,) = lib.autograd.grad(y, x, lib.tensor(g, dtype=x.dtype, requires_grad=True), create_graph=True)
        out.append((y.grad_fn.name(), gx.grad_fn.name(), y.detach().numpy(), gx.detach().numpy()))
    assert out[0][:2] == out[1][:2] == ("AvgPool2DBackward0", "AvgPool2DBackwardBackward0")
    tol = 1e-6 if dtype == "float32" else 1e-13
    np.testing.assert_allclose(out[0][2], out[1][2], rtol=tol, atol=tol)
    np.testing.assert_allclose(out[0][3], out[1][3], rtol=tol, atol=tol)
    x = leaf(1, 2, 7, 6)
    check_gradients(lambda t: F.avg_pool2d(t, **kwargs), x)


@pytest.mark.parametrize("nd,shape,out", [(2, (2, 3, 8, 6), 1), (2, (2, 3, 8, 6), (4, 3)), (2, (2, 3, 7, 6), (4, 3)),
                                          (2, (2, 3, 7, 5), (3, 9)), (2, (3, 8, 6), (2, None)), (2, (2, 3, 7, 6), (1, 6)),
                                          (3, (2, 3, 5, 6, 7), (2, 4, 3)), (3, (2, 3, 4, 6, 8), 1), (1, (2, 3, 7), 1),
                                          (1, (2, 3, 8), 4), (1, (3, 7), 3)])
def test_adaptive_avg_pool_nodes_values_and_gradients_match_torch(nd, shape, out):
    """Windows that tile the input, windows of varying length (overlapping or not), torch's mean for global pooling
    and its two-dimensional route for one dimension: the same nodes, values, gradients and gradients of those."""
    torch = pytest.importorskip("torch")
    a = RNG.standard_normal(shape)
    results = []
    for lib in (tensorlib, torch):
        x = lib.tensor(a, requires_grad=True)
        y = getattr(lib.nn.functional, f"adaptive_avg_pool{nd}d")(x, out)
        g = lib.tensor(np.linspace(-1, 1, y.numel()).reshape(tuple(y.shape)), requires_grad=True)
        (gx,) = lib.autograd.grad(y, x, g, create_graph=True)
        (gg,) = lib.autograd.grad((gx ** 2).sum(), g)
        results.append((y.grad_fn.name(), y.detach().numpy(), gx.detach().numpy(), gg.numpy()))
    assert results[0][0] == results[1][0]
    for ours, theirs in zip(results[0][1:], results[1][1:]):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name,shape,kwargs", [
    ("max_pool2d", (2, 3, 12, 9), dict(kernel_size=3)), ("max_pool2d", (2, 3, 13, 10), dict(kernel_size=(4, 3))),
    ("max_pool3d", (2, 2, 6, 6, 4), dict(kernel_size=(3, 3, 2))), ("max_pool2d", (3, 12, 9), dict(kernel_size=3)),
    ("adaptive_max_pool2d", (2, 3, 8, 6), dict(output_size=1)), ("adaptive_max_pool2d", (2, 3, 12, 9), dict(output_size=(4, 1))),
    ("adaptive_max_pool3d", (2, 2, 6, 6, 4), dict(output_size=(2, 1, 1))), ("adaptive_max_pool1d", (2, 3, 18), dict(output_size=2)),
    # small windows: strided views of the input
    ("max_pool2d", (2, 3, 9, 7), dict(kernel_size=2)), ("max_pool1d", (2, 3, 9), dict(kernel_size=2)),
    ("max_pool3d", (2, 2, 4, 6, 4), dict(kernel_size=2)), ("adaptive_max_pool2d", (2, 3, 8, 6), dict(output_size=(4, 3))),
    ("max_pool2d", (3, 8, 6), dict(kernel_size=(1, 3))),
])
@pytest.mark.parametrize("data", ["plain", "ties", "nan"])
def test_max_pools_over_windows_that_tile_the_input_match_torch(name, shape, kwargs, data):
    """Windows that tile the input: of more than eight elements, one argmax over a reshaped copy; smaller ones, the
    maximum of strided views and the first view holding it. The same values, indices (the first maximum in row-major
    order, the last NaN) and gradients as torch."""
    torch = pytest.importorskip("torch")
    a = RNG.standard_normal(shape)
    if data == "ties":
        a = np.round(a)
    elif data == "nan":
        a.reshape(-1)[::7] = np.nan
    results = []
    for lib in (tensorlib, torch):
        x = lib.tensor(a, requires_grad=True)
        y, idx = getattr(lib.nn.functional, name)(x, return_indices=True, **kwargs)
        (g,) = lib.autograd.grad(y, x, lib.ones_like(y))
        results.append((y.detach().numpy(), idx.numpy(), g.numpy()))
    for ours, theirs in zip(*results):
        np.testing.assert_array_equal(ours, theirs)


def test_adaptive_avg_pool_windows_of_varying_length_keep_infinities_to_their_windows():
    """Windows that do not tile the input sum by a matrix product with their 0/1 cover when every value is finite;
    an infinity or NaN (which 0 * inf would spread to every window) takes the windows one at a time, as torch."""
    torch = pytest.importorskip("torch")
    a = RNG.standard_normal((2, 3, 9, 10))
    a[0, 0, 4, 4], a[1, 2, 0, 9], a[0, 1, 8, 0] = np.inf, -np.inf, np.nan
    results = []
    for lib in (tensorlib, torch):
        x = lib.tensor(a, requires_grad=True)
        y = lib.nn.functional.adaptive_avg_pool2d(x, (4, 3))
        g = np.ones(tuple(y.shape))
        g[0, 0, 0, 0] = np.inf
        (gx,) = lib.autograd.grad(y, x, lib.tensor(g))
        results.append((y.detach().numpy(), gx.numpy()))
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-14)  # inf and nan where torch has them


def test_small_window_max_picks_the_first_maximum_and_the_last_nan_among_all_eight_offsets():
    """2x2x2 windows use every bit of the offsets' code: ties go to the first offset in row-major order, NaN to the
    last offset holding one (torch's scan), whatever the others hold."""
    offsets = list(np.ndindex(2, 2, 2))
    for pattern, value, pick in [((2, 5), 3.0, 2), ((1, 6), np.nan, 6), ((0, 7), 9.0, 0), ((7,), np.nan, 7),
                                 ((3, 4, 5), 1.5, 3)]:
        a = np.zeros((1, 1, 4, 2, 2))
        a[0, 0, 2:4] = -1.0  # the second window (depth 2-3): its values below, the first window all zeros (ties)
        for i in pattern:
            a[(0, 0, 2 + offsets[i][0]) + offsets[i][1:]] = value
        y, idx = F.max_pool3d(tensorlib.tensor(a), 2, return_indices=True)
        d, h, w = offsets[pick]
        assert idx.tolist() == [[[[[0]], [[(2 + d) * 4 + h * 2 + w]]]]]
        assert y[0, 0, 0].item() == 0.0
        got = y[0, 0, 1].item()
        assert (np.isnan(got) and np.isnan(value)) or got == value
