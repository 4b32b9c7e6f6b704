"""Convolutions, transposed convolutions, unfold and fold: values, gradients of two orders, errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tensorlib
import tensorlib.nn.functional as F
from tensorlib.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(1234)


def leaf(*shape):
    return tensorlib.tensor(RNG.standard_normal(shape), dtype=tensorlib.float64, requires_grad=True)


# (function, input shape, weight shape (None: no weight), bias?, kwargs)
CASES = [
    ("conv1d", (2, 4, 9), (6, 2, 3), True, dict(stride=2, padding=1, dilation=2, groups=2)),
    ("conv1d", (4, 7), (3, 4, 2), False, dict(padding="same")),
    ("conv2d", (2, 3, 6, 5), (4, 3, 3, 2), True, dict()),
    ("conv2d", (2, 4, 7, 6), (6, 2, 3, 2), True, dict(stride=(2, 1), padding=(1, 2), dilation=(1, 2), groups=2)),
    ("conv2d", (1, 2, 5, 6), (3, 2, 2, 3), True, dict(padding="same", dilation=(2, 1))),
    ("conv2d", (1, 2, 5, 6), (3, 2, 2, 3), False, dict(padding="valid")),
    ("conv3d", (1, 2, 4, 5, 3), (3, 2, 2, 3, 2), True, dict(stride=(1, 2, 1), padding=1)),
    ("conv_transpose1d", (2, 4, 5), (4, 3, 3), True, dict(stride=2, padding=1, output_padding=1, groups=2)),
    ("conv_transpose2d", (2, 4, 5, 4), (4, 3, 3, 2), True,
     dict(stride=(2, 3), padding=(1, 0), output_padding=(1, 2), groups=2, dilation=(2, 1))),
    ("conv_transpose2d", (1, 2, 3, 3), (2, 2, 3, 3), False, dict(stride=2, output_padding=2, dilation=3)),
    ("conv_transpose2d", (2, 3, 3), (2, 2, 2, 2), True, dict(padding=1)),
    ("conv_transpose3d", (1, 2, 3, 2, 3), (2, 3, 2, 2, 2), True, dict(stride=2, padding=1)),
]


def _args(lib, case, seed=0):
    name, xs, ws, has_bias, kw = case
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(xs)
    w = rng.standard_normal(ws)
    nout = ws[0] if "transpose" not in name else ws[1] * kw.get("groups", 1)
    b = rng.standard_normal(nout) if has_bias else None
    return [lib.tensor(a, requires_grad=True) if a is not None else None for a in (x, w, b)], kw


@pytest.mark.filterwarnings("ignore:Using padding='same'")  # torch's note about its own implementation
@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_conv_forward_and_backward_match_torch(case):
    torch = pytest.importorskip("torch")
    (tx, tw, tb), kw = _args(torch, case)
    (lx, lw, lb), _ = _args(tensorlib, case)
    expected = getattr(torch.nn.functional, case[0])(tx, tw, tb, **kw)
    got = getattr(F, case[0])(lx, lw, lb, **kw)
    assert tuple(got.shape) == tuple(expected.shape)
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), atol=1e-10)
    g = np.random.default_rng(5).standard_normal(tuple(expected.shape))
    expected.backward(torch.tensor(g))
    got.backward(tensorlib.tensor(g))
    for t, l in zip((tx, tw, tb), (lx, lw, lb)):
        if t is not None:
            np.testing.assert_allclose(l.grad.numpy(), t.grad.numpy(), atol=1e-10)


def test_conv_grad_fn_and_dtype():
    x = tensorlib.randn(1, 2, 5, 5, requires_grad=True)
    w = tensorlib.randn(3, 2, 3, 3)
    y = F.conv2d(x, w)
    assert y.dtype == tensorlib.float32
    assert type(y.grad_fn).__name__ == "ConvolutionBackward0"
    assert type(F.unfold(x, 2).grad_fn).__name__ == "Im2ColBackward0"
    assert type(F.fold(F.unfold(x, 2), (5, 5), 2).grad_fn).__name__ == "Col2ImBackward0"
    assert F.conv2d(x.detach(), w).grad_fn is None


GRAD_CASES = [
    (lambda x, w, b: F.conv1d(x, w, b, stride=2, padding=1, dilation=2), (1, 2, 6), (2, 2, 2), 2),
    (lambda x, w, b: F.conv2d(x, w, b, stride=(2, 1), padding=1, dilation=(1, 2), groups=2), (1, 2, 4, 3), (2, 1, 2, 2), 2),
    (lambda x, w, b: F.conv2d(x, w, b, padding="same"), (1, 1, 3, 3), (1, 1, 2, 2), 1),
    (lambda x, w, b: F.conv3d(x, w, b, padding=(1, 0, 0)), (1, 1, 2, 2, 2), (1, 1, 2, 1, 2), 1),
    (lambda x, w, b: F.conv_transpose1d(x, w, b, stride=2, output_padding=1), (1, 2, 3), (2, 1, 2), 1),
    (lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1, groups=2), (1, 2, 2, 2),
     (2, 1, 2, 2), 2),
    (lambda x, w, b: F.conv_transpose3d(x, w, b, stride=(2, 1, 1)), (1, 1, 2, 1, 2), (1, 1, 2, 1, 1), 1),
]


@pytest.mark.parametrize("i", range(len(GRAD_CASES)))
def test_conv_gradcheck_and_gradgradcheck(i):
    fn, xs, ws, nb = GRAD_CASES[i]
    inputs = (leaf(*xs), leaf(*ws), leaf(nb))
    assert gradcheck(fn, inputs)
    assert gradgradcheck(fn, inputs)


def test_unfold_fold_gradcheck_and_gradgradcheck():
    x = leaf(1, 2, 3, 4)
    unf = lambda t: F.unfold(t, (2, 2), dilation=(1, 2), padding=1, stride=(2, 1))  # noqa: E731
    assert gradcheck(unf, (x,)) and gradgradcheck(unf, (x,))
    c = leaf(1, 4, 6)
    fld = lambda t: F.fold(t, (3, 4), 2, stride=(1, 2), padding=(0, 1))  # noqa: E731
    assert gradcheck(fld, (c,)) and gradgradcheck(fld, (c,))


def test_unfold_then_fold_counts_overlaps():
    x = tensorlib.ones(1, 1, 3, 3)
    counts = F.fold(F.unfold(x, 2), (3, 3), 2)
    np.testing.assert_array_equal(counts.numpy()[0, 0], [[1, 2, 1], [2, 4, 2], [1, 2, 1]])


def test_conv_equals_unfold_matmul():
    x, w = tensorlib.randn(2, 3, 5, 4), tensorlib.randn(4, 3, 2, 2)
    cols = F.unfold(x, 2)
    expected = (w.reshape(4, -1) @ cols).reshape(2, 4, 4, 3)
    np.testing.assert_allclose(F.conv2d(x, w).numpy(), expected.numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("kw", [dict(kernel_size=(2, 3), dilation=(2, 1), padding=1, stride=(1, 2)), dict(kernel_size=2)])
def test_unfold_fold_match_torch(kw):
    torch = pytest.importorskip("torch")
    x = RNG.standard_normal((2, 3, 6, 5))
    expected = torch.nn.functional.unfold(torch.tensor(x), **kw)
    got = F.unfold(tensorlib.tensor(x), **kw)
    np.testing.assert_array_equal(got.numpy(), expected.numpy())
    back = F.fold(got, (6, 5), **kw)
    np.testing.assert_allclose(back.numpy(), torch.nn.functional.fold(expected, (6, 5), **kw).numpy(), atol=1e-12)
    np.testing.assert_array_equal(F.unfold(tensorlib.tensor(x[0]), **kw).numpy(), expected.numpy()[0])


def test_empty_batch_forward_and_backward():
    x = tensorlib.zeros(0, 3, 5, 5, requires_grad=True)
    w = tensorlib.randn(2, 3, 3, 3, requires_grad=True)
    out = F.conv2d(x, w)
    assert out.shape == (0, 2, 3, 3)
    out.sum().backward()
    assert x.grad.shape == x.shape and not w.grad.numpy().any()
    assert F.conv_transpose2d(x, tensorlib.zeros(3, 2, 3, 3)).shape == (0, 2, 7, 7)


def Z(lib, *shape):
    return lib.zeros(*shape)


# (call with a library and its functional namespace, torch's error type, whether our message equals torch's)
ERRORS = [
    (lambda L, F: F.conv2d(Z(L, 5, 5), Z(L, 4, 3, 3, 3)), RuntimeError, True),
    (lambda L, F: F.conv1d(Z(L, 2, 3, 5, 5), Z(L, 4, 3, 3)), RuntimeError, True),
    (lambda L, F: F.conv2d(Z(L, 2, 3, 5, 5), Z(L, 4, 2, 3, 3)), RuntimeError, True),
    (lambda L, F: F.conv2d(Z(L, 2, 3, 5, 5), Z(L, 4, 3, 3, 3), groups=2), RuntimeError, True),
    (lambda L, F: F.conv2d(Z(L, 2, 3, 5, 5), Z(L, 4, 1, 3, 3), groups=3), RuntimeError, True),
    (lambda L, F: F.conv2d(Z(L, 2, 3, 5, 5), Z(L, 4, 3, 3, 3), groups=0), RuntimeError, True),
    (lambda L, F: F.conv2d(Z(L, 2, 3, 5, 5), Z(L, 4, 3, 7, 7)), RuntimeError, True),
    (lambda L, F: F.conv2d(Z(L, 2, 3, 5, 5), Z(L, 4, 3, 3, 3), dilation=3), RuntimeError, True),
    (lambda L, F: F.conv2d(Z(L, 2, 3, 5, 5), Z(L, 4, 3, 3, 3), padding="same", stride=2), RuntimeError, True),
    (lambda L, F: F.conv2d(Z(L, 2, 3, 5, 5), Z(L, 4, 3, 3, 3), padding="foo"), RuntimeError, True),
    (lambda L, F: F.conv2d(Z(L, 2, 3, 5, 5), Z(L, 4, 3, 3, 3), stride=0), RuntimeError, True),
    (lambda L, F: F.conv2d(Z(L, 2, 3, 5, 5), Z(L, 4, 3, 3, 3), padding=-1), RuntimeError, True),
    (lambda L, F: F.conv2d(Z(L, 2, 3, 5, 5), Z(L, 4, 3, 3, 3), dilation=0), RuntimeError, True),
    (lambda L, F: F.conv2d(Z(L, 2, 3, 5, 5), Z(L, 4, 3, 3, 3), stride=(1, 2, 3)), RuntimeError, True),
    (lambda L, F: F.conv2d(Z(L, 2, 3, 5, 5), Z(L, 4, 3, 3)), RuntimeError, True),
    (lambda L, F: F.conv2d(Z(L, 2, 3, 5, 5), Z(L, 4, 3, 3, 3), Z(L, 3)), RuntimeError, True),
    (lambda L, F: F.conv2d(Z(L, 2, 3, 5, 5), Z(L, 4, 3, 3, 3).double()), RuntimeError, True),
    (lambda L, F: F.conv2d(Z(L, 2, 3, 5, 5), Z(L, 4, 3, 3, 3), Z(L, 4).double()), RuntimeError, True),
    (lambda L, F: F.conv_transpose2d(Z(L, 2, 3, 5, 5), Z(L, 4, 2, 3, 3)), RuntimeError, True),
    (lambda L, F: F.conv_transpose2d(Z(L, 2, 3, 5, 5), Z(L, 3, 2, 3, 3), groups=2), RuntimeError, True),
    (lambda L, F: F.conv_transpose2d(Z(L, 2, 3, 5, 5), Z(L, 3, 2, 3, 3), stride=2, output_padding=2), RuntimeError,
     True),
    (lambda L, F: F.conv_transpose2d(Z(L, 2, 3, 5, 5), Z(L, 3, 2, 3, 3), output_padding=-1), RuntimeError, True),
    (lambda L, F: F.conv_transpose2d(Z(L, 2, 3, 5, 5), Z(L, 3, 2, 3, 3), Z(L, 3)), RuntimeError, True),
    (lambda L, F: F.conv_transpose2d(Z(L, 2, 3, 5, 5), Z(L, 3, 2, 3, 3), padding="same"), TypeError, True),
    (lambda L, F: F.conv_transpose2d(Z(L, 5, 5), Z(L, 3, 2, 3, 3)), RuntimeError, True),
    (lambda L, F: F.conv_transpose2d(Z(L, 2, 3, 2, 2), Z(L, 3, 2, 3, 3), padding=4), RuntimeError, False),
    (lambda L, F: F.unfold(Z(L, 2, 3, 5, 5), 7), RuntimeError, True),
    (lambda L, F: F.unfold(Z(L, 2, 3, 5, 5), 2, stride=0), RuntimeError, True),
    (lambda L, F: F.unfold(Z(L, 2, 3, 5, 5), 2, padding=-1), RuntimeError, True),
    (lambda L, F: F.unfold(Z(L, 2, 3, 5, 5), 0), RuntimeError, True),
    (lambda L, F: F.unfold(Z(L, 2, 3, 5, 5), 2, dilation=0), RuntimeError, True),
    (lambda L, F: F.unfold(Z(L, 2, 3, 5, 5), (2, 2, 2)), RuntimeError, True),
    (lambda L, F: F.unfold(Z(L, 5, 5), 2), IndexError, True),
    (lambda L, F: F.fold(Z(L, 2, 12, 16), (6, 6), 2), RuntimeError, True),
    (lambda L, F: F.fold(Z(L, 2, 12, 16), (5, 5), 3), RuntimeError, True),
    (lambda L, F: F.fold(Z(L, 16), (5, 5), 2), RuntimeError, True),
    (lambda L, F: F.fold(Z(L, 2, 3, 5, 5), (5, 5), 2), RuntimeError, True),
    (lambda L, F: F.fold(Z(L, 2, 12, 16), (5, 5), 2, stride=0), RuntimeError, True),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_conv_errors(i):
    call, etype, _ = ERRORS[i]
    with pytest.raises(etype):
        call(tensorlib, F)


@pytest.mark.parametrize("i", [i for i, e in enumerate(ERRORS) if e[2]])
def test_conv_error_messages_match_torch(i):
    torch = pytest.importorskip("torch")
    call, etype, _ = ERRORS[i]
    with pytest.raises(etype) as expected:
        call(torch, torch.nn.functional)
    with pytest.raises(etype) as got:
        call(tensorlib, F)
    assert str(got.value) == str(expected.value).replace("torch.", "tensorlib.")


@pytest.mark.parametrize("xshape,wshape,kwargs", [
    ((2, 4, 9, 8), (4, 1, 3, 3), dict(padding=1, groups=4)),
    ((2, 4, 9, 8), (8, 1, 3, 2), dict(stride=2, padding=(1, 0), groups=4)),  # two outputs per channel
    ((2, 3, 10, 9), (3, 1, 3, 3), dict(dilation=2, padding=2, groups=3)),
    ((2, 4, 12), (4, 1, 5), dict(padding=2, groups=4)),
    ((2, 2, 5, 6, 5), (2, 1, 2, 3, 3), dict(padding=1, groups=2)),
    ((2, 4, 9, 8), (4, 1, 4, 4), dict(padding="same", groups=4)),
])
def test_depthwise_convolution_gradients_match_torch_and_the_general_path(xshape, wshape, kwargs):
    """One input channel per group: backward takes a multiply-add per kernel offset on the arrays; it gives what
    torch gives and what the general (recorded, differentiable) path gives under create_graph."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(8)
    a, w = rng.standard_normal(xshape), rng.standard_normal(wshape)
    results = []
    for lib, create_graph in ((tensorlib, False), (tensorlib, True), (torch, False)):
        x, wt = lib.tensor(a, requires_grad=True), lib.tensor(w, requires_grad=True)
        conv = getattr(lib.nn.functional, f"conv{len(xshape) - 2}d")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torch's note on padding='same' with even kernels
            y = conv(x, wt, **kwargs)
        g = np.linspace(-1, 1, y.numel()).reshape(tuple(y.shape))
        grads = lib.autograd.grad(y, (x, wt), lib.tensor(g), create_graph=create_graph)
        results.append([t.detach().numpy() for t in grads])
    for fast, general, theirs in zip(*results):
        np.testing.assert_allclose(fast, theirs, rtol=1e-12, atol=1e-13)
        np.testing.assert_allclose(fast, general, rtol=1e-12, atol=1e-13)


# (function, input shape, weight shape, kwargs): rows of blocks shorter than 28 (batch-innermost columns) and longer,
# strides, dilations, padding, groups, 1-D to 3-D
ARRAY_PATH_CASES = [
    ("conv2d", (3, 6, 12, 12), (16, 6, 5, 5), dict()),
    ("conv2d", (2, 4, 9, 8), (6, 2, 3, 2), dict(stride=(2, 1), padding=(1, 2), dilation=(1, 2), groups=2)),
    ("conv2d", (2, 3, 7, 33), (4, 3, 3, 3), dict(padding=1)),  # 33 blocks per row: batch-first columns for im2col
    ("conv2d", (2, 3, 9, 40), (4, 3, 2, 3), dict(stride=(1, 2), dilation=2)),  # 19 blocks of stride 2: 38
    ("conv1d", (4, 3, 30), (5, 3, 4), dict(padding="same")),
    ("conv2d", (8, 16, 20, 20), (8, 16, 3, 3), dict()),  # columns too large for one product per kernel offset
    ("conv2d", (4, 16, 40, 40), (4, 16, 3, 3), dict()),  # the same, with batch-first columns for im2col
    ("conv3d", (2, 2, 4, 5, 6), (3, 2, 2, 3, 2), dict(stride=(1, 2, 1), padding=1)),
    ("conv_transpose2d", (2, 4, 5, 4), (4, 3, 3, 2), dict(stride=(2, 3), padding=(1, 0), output_padding=(1, 2),
                                                          groups=2, dilation=(2, 1))),
    ("conv_transpose1d", (3, 4, 6), (4, 2, 3), dict(stride=2, padding=1)),
    ("conv_transpose2d", (2, 3, 4, 30), (3, 2, 3, 3), dict(padding=1)),  # 30 blocks: the recorded path
]


@pytest.mark.parametrize("needs", ["both", "input", "weight"])
@pytest.mark.parametrize("case", ARRAY_PATH_CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(ARRAY_PATH_CASES)])
def test_convolution_gradients_on_the_arrays_match_the_recorded_path(case, needs):
    """Without create_graph the gradients come from NumPy products on batch-innermost columns; they equal the
    recorded (differentiable) path's, for each subset of inputs that needs them."""
    name, xshape, wshape, kwargs = case
    rng = np.random.default_rng(9)
    a, w = rng.standard_normal(xshape), rng.standard_normal(wshape)
    results = []
    for create_graph in (False, True):
        x = tensorlib.tensor(a, requires_grad=needs in ("both", "input"))
        wt = tensorlib.tensor(w, requires_grad=needs in ("both", "weight"))
        y = getattr(F, name)(x, wt, **kwargs)
        g = tensorlib.tensor(np.linspace(-1, 1, y.numel()).reshape(tuple(y.shape)))
        wanted = [t for t in (x, wt) if t.requires_grad]
        grads = tensorlib.autograd.grad(y, wanted, g, create_graph=create_graph)
        results.append([t.detach().numpy() for t in grads])
        if create_graph and needs == "both":  # the recorded path: the input's gradient is a function of the weight
            assert grads[0].grad_fn is not None
    for fast, general in zip(*results):
        np.testing.assert_allclose(fast, general, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("case", ARRAY_PATH_CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(ARRAY_PATH_CASES)])
def test_convolution_on_batch_innermost_columns_matches_torch(case):
    torch = pytest.importorskip("torch")
    name, xshape, wshape, kwargs = case
    rng = np.random.default_rng(10)
    a, w = rng.standard_normal(xshape).astype(np.float32), rng.standard_normal(wshape).astype(np.float32)
    outs = []
    for lib in (tensorlib, torch):
        x, wt = lib.tensor(a, requires_grad=True), lib.tensor(w, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torch's note on padding='same' with even kernels
            y = getattr(lib.nn.functional, name)(x, wt, **kwargs)
        (y * lib.tensor(np.cos(np.arange(y.numel())).reshape(tuple(y.shape)).astype(np.float32))).sum().backward()
        outs.append([y.detach().numpy(), x.grad.numpy(), wt.grad.numpy()])
    for ours, theirs in zip(*outs):
        assert ours.dtype == theirs.dtype == np.float32
        # float32 sums of hundreds of products in another order (each BLAS picks its own by CPU): an element
        # that cancels to near zero keeps the absolute error of the array's large ones
        np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=max(1e-4, 1e-5 * float(np.abs(theirs).max())))
