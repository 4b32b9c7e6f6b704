"""interpolate (every mode), the deprecated upsample aliases and pixel (un)shuffle."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tensorlib
import tensorlib.nn.functional as F
from tensorlib.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(7)
X4 = RNG.standard_normal((2, 3, 5, 7))
X3 = RNG.standard_normal((2, 3, 6))
X5 = RNG.standard_normal((1, 2, 3, 4, 5))

SIZES = [dict(size=(8, 3)), dict(size=4), dict(scale_factor=2), dict(scale_factor=(1.7, 0.6)),
         dict(scale_factor=2.5, recompute_scale_factor=True), dict(size=(5, 7)), dict(size=(1, 1)), dict(scale_factor=3)]
CASES = []
for _mode in ("nearest", "nearest-exact", "area", "bilinear", "bicubic"):
    for _ac in ([None] if _mode in ("nearest", "nearest-exact", "area") else [False, True]):
        CASES += [(X4, dict(mode=_mode, align_corners=_ac, **kw)) for kw in SIZES]
for _mode in ("nearest", "linear", "area", "nearest-exact"):
    CASES += [(X3, dict(mode=_mode, **kw)) for kw in (dict(size=11), dict(scale_factor=0.5), dict(scale_factor=1.3))]
CASES += [(X3, dict(mode="linear", size=4, align_corners=True))]
for _mode in ("nearest", "trilinear", "area"):
    CASES += [(X5, dict(mode=_mode, size=(5, 3, 7))), (X5, dict(mode=_mode, scale_factor=1.5))]
CASES += [(X5, dict(mode="trilinear", scale_factor=1.5, align_corners=True))]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("i", range(len(CASES)))
def test_interpolate_matches_torch(i, dtype):
    torch = pytest.importorskip("torch")
    a, kw = CASES[i]
    a = a.astype(dtype)
    expected = torch.nn.functional.interpolate(torch.tensor(a), **kw).numpy()
    got = F.interpolate(tensorlib.tensor(a), **kw).numpy()
    assert got.shape == expected.shape and got.dtype == expected.dtype
    if dtype == "float64":
        np.testing.assert_allclose(got, expected, atol=1e-12)
    else:
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=2e-6)


@pytest.mark.parametrize("kw", [dict(mode="bilinear", scale_factor=1.5), dict(mode="bicubic", size=(3, 4), align_corners=True),
                                dict(mode="nearest", size=(7, 3))], ids=lambda k: k["mode"])
def test_interpolate_backward_matches_torch(kw):
    torch = pytest.importorskip("torch")
    tx, lx = torch.tensor(X4, requires_grad=True), tensorlib.tensor(X4, requires_grad=True)
    te, le = torch.nn.functional.interpolate(tx, **kw), F.interpolate(lx, **kw)
    g = RNG.standard_normal(tuple(te.shape))
    te.backward(torch.tensor(g))
    le.backward(tensorlib.tensor(g))
    np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), atol=1e-12)


GRAD_CASES = [
    ((1, 1, 3), dict(mode="linear", size=5)),
    ((1, 1, 2, 3), dict(mode="bilinear", scale_factor=1.5, align_corners=True)),
    ((1, 1, 2, 3), dict(mode="bicubic", size=(3, 2))),
    ((1, 1, 2, 2), dict(mode="nearest", scale_factor=2)),
    ((1, 1, 3, 2), dict(mode="nearest-exact", size=(2, 3))),
    ((1, 1, 2, 2, 2), dict(mode="trilinear", size=(3, 1, 2))),
    ((1, 1, 4, 3), dict(mode="area", size=(3, 2))),
]


@pytest.mark.parametrize("shape,kw", GRAD_CASES, ids=[c[1]["mode"] for c in GRAD_CASES])
def test_interpolate_gradcheck_and_gradgradcheck(shape, kw):
    x = tensorlib.tensor(RNG.standard_normal(shape), requires_grad=True)
    fn = lambda t: F.interpolate(t, **kw)  # noqa: E731
    assert gradcheck(fn, (x,)) and gradgradcheck(fn, (x,))


def test_interpolate_grad_fn_names():
    x = tensorlib.randn(1, 1, 2, 2, requires_grad=True)
    assert type(F.interpolate(x, scale_factor=2).grad_fn).__name__ == "UpsampleNearest2DBackward0"
    assert type(F.interpolate(x, scale_factor=2, mode="bilinear").grad_fn).__name__ == "UpsampleBilinear2DBackward0"


def test_nearest_keeps_integer_dtype_and_infinities():
    x = tensorlib.tensor([[[1, 2]]])
    out = F.interpolate(x, scale_factor=2)
    assert out.dtype == tensorlib.int64 and out.tolist() == [[[1, 1, 2, 2]]]
    y = tensorlib.tensor([[[float("inf"), 1.0]]])
    assert F.interpolate(y, size=3).tolist() == [[[float("inf"), float("inf"), 1.0]]]


def test_linear_align_corners_by_hand():
    x = tensorlib.tensor([[[0.0, 3.0]]])
    np.testing.assert_allclose(F.interpolate(x, size=4, mode="linear", align_corners=True).numpy(), [[[0, 1, 2, 3]]])
    np.testing.assert_allclose(F.interpolate(x, size=4, mode="linear").numpy(), [[[0, 0.75, 2.25, 3]]])


def test_deprecated_upsample_aliases_warn_and_resample():
    x = tensorlib.randn(1, 1, 2, 2)
    for fn, kw in ((F.upsample, {}), (F.upsample_nearest, {}), (F.upsample_bilinear, {})):
        with pytest.warns(UserWarning, match="is deprecated"):
            out = fn(x, scale_factor=2, **kw)
        assert out.shape == (1, 1, 4, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.testing.assert_allclose(F.upsample_bilinear(x, size=3).numpy(),
                                   F.interpolate(x, size=3, mode="bilinear", align_corners=True).numpy())


@pytest.mark.parametrize("shape,r", [((2, 8, 3, 4), 2), ((9, 3, 4), 3), ((1, 2, 4, 2, 1), 1)])
def test_pixel_shuffle_matches_torch_and_round_trips(shape, r):
    a = RNG.standard_normal(shape)
    out = F.pixel_shuffle(tensorlib.tensor(a), r)
    np.testing.assert_array_equal(F.pixel_unshuffle(out, r).numpy(), a)
    torch = pytest.importorskip("torch")
    np.testing.assert_array_equal(out.numpy(), torch.nn.functional.pixel_shuffle(torch.tensor(a), r).numpy())


def test_pixel_shuffle_gradcheck():
    x = tensorlib.tensor(RNG.standard_normal((1, 4, 2, 1)), requires_grad=True)
    assert gradcheck(lambda t: F.pixel_shuffle(t, 2), (x,))
    assert gradgradcheck(lambda t: F.pixel_unshuffle(t, 1).exp(), (x,))


def Z(lib, *shape):
    return lib.zeros(*shape)


ERRORS = [
    (lambda L, F: F.interpolate(Z(L, 1, 1, 3, 3), size=2, scale_factor=2), ValueError),
    (lambda L, F: F.interpolate(Z(L, 1, 1, 3, 3)), ValueError),
    (lambda L, F: F.interpolate(Z(L, 1, 1, 3, 3), size=(2,)), ValueError),
    (lambda L, F: F.interpolate(Z(L, 1, 1, 3, 3), scale_factor=(2,)), ValueError),
    (lambda L, F: F.interpolate(Z(L, 1, 1, 3, 3), size=2, align_corners=True), ValueError),
    (lambda L, F: F.interpolate(Z(L, 1, 1, 3, 3), size=2, recompute_scale_factor=True), ValueError),
    (lambda L, F: F.interpolate(Z(L, 1, 1, 3), size=2, mode="bilinear"), NotImplementedError),
    (lambda L, F: F.interpolate(Z(L, 1, 1, 3, 3), size=2, mode="linear"), NotImplementedError),
    (lambda L, F: F.interpolate(Z(L, 1, 1, 3, 3), size=2, mode="trilinear"), NotImplementedError),
    (lambda L, F: F.interpolate(Z(L, 1, 1, 3, 3), size=2, mode="foo"), NotImplementedError),
    (lambda L, F: F.interpolate(Z(L, 1, 1, 3), size=2, mode="bicubic"), NotImplementedError),
    (lambda L, F: F.interpolate(Z(L, 3, 3), size=2), NotImplementedError),
    (lambda L, F: F.interpolate(Z(L, 1, 1, 3, 3), size=0), RuntimeError),
    (lambda L, F: F.interpolate(Z(L, 1, 1, 3), scale_factor=0.2), RuntimeError),
    (lambda L, F: F.interpolate(Z(L, 1, 1, 3), size=2, mode="nearest", antialias=True), ValueError),
    (lambda L, F: F.interpolate(Z(L, 1, 1, 3, 3), size=2, mode="lanczos"), ValueError),
    (lambda L, F: F.pixel_shuffle(Z(L, 2, 6, 3, 3), 2), RuntimeError),
    (lambda L, F: F.pixel_shuffle(Z(L, 6, 3), 2), RuntimeError),
    (lambda L, F: F.pixel_shuffle(Z(L, 2, 8, 3, 3), 0), RuntimeError),
    (lambda L, F: F.pixel_unshuffle(Z(L, 2, 2, 3, 4), 2), RuntimeError),
    (lambda L, F: F.pixel_unshuffle(Z(L, 2, 2, 4, 3), 2), RuntimeError),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_resample_errors(i):
    call, etype = ERRORS[i]
    with pytest.raises(etype):
        call(tensorlib, F)


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_resample_error_messages_match_torch(i):
    torch = pytest.importorskip("torch")
    call, etype = ERRORS[i]
    with pytest.raises(etype) as expected:
        call(torch, torch.nn.functional)
    with pytest.raises(etype) as got:
        call(tensorlib, F)
    assert str(got.value) == str(expected.value)


@pytest.mark.parametrize("mode,size", [("bilinear", (13, 11)), ("bicubic", (9, 14)), ("nearest", (12, 5)),
                                       ("area", (4, 3))])
def test_interpolation_as_matrix_products_matches_torch_and_keeps_infinities_local(mode, size):
    """Short axes interpolate by one matrix product with the map's dense matrix when every value is finite; with an
    infinity or NaN each tap is taken separately, so they reach only the outputs that read them (as torch)."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(12)
    for special in (False, True):
        a = rng.standard_normal((2, 3, 8, 7))
        if special:
            a[0, 0, 3, 3], a[1, 2, 7, 0] = np.inf, np.nan
        results = []
        for lib in (tensorlib, torch):
            x = lib.tensor(a, requires_grad=True)
            kw = {} if mode in ("nearest", "area") else {"align_corners": False}
            y = lib.nn.functional.interpolate(x, size=size, mode=mode, **kw)
            (g,) = lib.autograd.grad(y, x, lib.tensor(np.linspace(-1, 1, y.numel()).reshape(tuple(y.shape))))
            results.append((y.detach().numpy(), g.numpy()))
        for ours, theirs in zip(*results):
            np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-13)
