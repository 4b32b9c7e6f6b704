"""affine_grid and grid_sample: values and gradients (input and grid) against torch in every mode, padding mode and
alignment, gradcheck and gradgradcheck in float64, warnings and errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tensorlib
import tensorlib.nn.functional as F
from tests.nn.compare import check_gradients, compare, leaf, same_message

RNG = np.random.default_rng(21)
X2 = RNG.standard_normal((2, 3, 4, 5))
G2 = RNG.uniform(-1.3, 1.3, (2, 3, 6, 2))  # points outside [-1, 1] exercise the padding modes
X3 = RNG.standard_normal((2, 2, 3, 4, 5))
G3 = RNG.uniform(-1.3, 1.3, (2, 3, 2, 4, 3))


def _f(lib):
    return lib.nn.functional


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
def test_grid_sample_2d_matches_torch(mode, padding_mode, align_corners):
    compare(lambda lib, x, g: _f(lib).grid_sample(x, g, mode, padding_mode, align_corners), X2, G2,
            differentiable=(0, 1), rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
def test_grid_sample_3d_matches_torch(mode, padding_mode, align_corners):
    compare(lambda lib, x, g: _f(lib).grid_sample(x, g, mode, padding_mode, align_corners), X3, G3,
            differentiable=(0, 1), rtol=1e-9, atol=1e-10)


def test_grid_sample_float32_and_exact_grid_points():
    compare(lambda lib, x, g: _f(lib).grid_sample(x, g, align_corners=False), X2.astype(np.float32),
            G2.astype(np.float32), differentiable=(0, 1), rtol=1e-5, atol=1e-5)
    # the grid of an identity transform reads the input back
    theta = tensorlib.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]], dtype=tensorlib.float64)
    x = tensorlib.tensor(X2[:1])
    for align in (False, True):
        grid = F.affine_grid(theta, (1, 3, 4, 5), align_corners=align)
        np.testing.assert_allclose(F.grid_sample(x, grid, align_corners=align).numpy(), X2[:1], atol=1e-12)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
def test_grid_sample_2d_gradcheck_and_gradgradcheck(mode, padding_mode):
    grid = leaf(1, 2, 3, 2, seed=1, lo=-0.9, hi=0.9)
    check_gradients(lambda x, g: F.grid_sample(x, g, mode, padding_mode, align_corners=False), leaf(1, 2, 3, 4), grid)


@pytest.mark.parametrize("padding_mode", ["zeros", "reflection"])
def test_grid_sample_3d_gradcheck_and_gradgradcheck(padding_mode):
    grid = leaf(1, 2, 1, 2, 3, seed=2, lo=-0.9, hi=0.9)
    check_gradients(lambda x, g: F.grid_sample(x, g, "bilinear", padding_mode, align_corners=True),
                    leaf(1, 1, 2, 3, 3), grid)


def test_grid_sample_nearest_gradients():
    grid = leaf(1, 2, 3, 2, seed=3, lo=-0.9, hi=0.9)
    check_gradients(lambda x: F.grid_sample(x, grid.detach(), "nearest", align_corners=False), leaf(1, 2, 3, 4))
    x = leaf(1, 2, 3, 4)
    out = F.grid_sample(x, grid, "nearest", align_corners=False)
    out.sum().backward()
    assert grid.grad is not None and (grid.grad.numpy() == 0).all()  # torch's zero gradient for the grid


def test_grid_sample_warns_without_align_corners():
    with pytest.warns(UserWarning, match="Default grid_sample and affine_grid behavior has changed"):
        F.grid_sample(tensorlib.tensor(X2), tensorlib.tensor(G2))
    with pytest.warns(UserWarning, match="Default grid_sample and affine_grid behavior has changed"):
        F.affine_grid(tensorlib.zeros(1, 2, 3), [1, 1, 2, 2])


@pytest.mark.parametrize("x, g, kwargs", [
    (X2, G2.astype(np.float32), {}),
    (X2[0], G2[0], {}),
    (X2, G2[:1], {}),
    (X2, RNG.uniform(-1, 1, (2, 3, 3, 3)), {}),
    (X2, G2, {"mode": "bicubix"}),
    (X2, G2, {"padding_mode": "x"}),
    (X3, G3, {"mode": "bicubic"}),
    (np.zeros((2, 3, 0, 5)), G2, {}),
    (X3, RNG.uniform(-1, 1, (2, 3, 3, 2)), {}),
    (X3, RNG.uniform(-1, 1, (2, 3, 3, 3)), {}),
    (RNG.standard_normal((3, 4, 5, 6, 7, 8)), RNG.uniform(-1, 1, (3, 4, 5, 6, 7, 2)), {}),
    (X2.astype(np.int64), G2.astype(np.int64), {}),
])
def test_grid_sample_errors(x, g, kwargs):
    same_message(lambda lib, a, b: _f(lib).grid_sample(a, b, align_corners=False, **kwargs), x, g)


def test_grid_sample_empty_batch_and_channels():
    compare(lambda lib, x, g: _f(lib).grid_sample(x, g, align_corners=True), np.zeros((0, 3, 4, 5)),
            np.zeros((0, 3, 3, 2)), differentiable=())
    compare(lambda lib, x, g: _f(lib).grid_sample(x, g, align_corners=True), np.zeros((2, 0, 4, 5)), G2,
            differentiable=())


# -- affine_grid -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [(2, 3, 4, 5), (2, 1, 3, 4, 5), (2, 1, 1, 3), (2, 4, 1, 1)])
@pytest.mark.parametrize("align_corners", [False, True])
def test_affine_grid_matches_torch(size, align_corners):
    theta = RNG.standard_normal((2, 2, 3) if len(size) == 4 else (2, 3, 4))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # unit-size grids with align_corners warn in both
        compare(lambda lib, t: _f(lib).affine_grid(t, size, align_corners), theta, rtol=1e-12, atol=1e-14)


def test_affine_grid_gradients_and_unit_size_warning():
    check_gradients(lambda t: F.affine_grid(t, (2, 1, 3, 4), align_corners=False), leaf(2, 2, 3))
    check_gradients(lambda t: F.affine_grid(t, (1, 1, 2, 3, 2), align_corners=True), leaf(1, 3, 4))
    with pytest.warns(UserWarning, match="unit-size grids when align_corners=True"):
        F.affine_grid(tensorlib.zeros(1, 2, 3), (1, 1, 1, 4), align_corners=True)


@pytest.mark.parametrize("theta, size", [
    (RNG.random((2, 3, 3)), (2, 1, 3, 4)), (RNG.random((2, 3, 3)), (2, 1, 3, 4, 5)), (RNG.random((2, 2, 3)), (2, 1, 3)),
    (RNG.random((2, 2, 3)), (2, 1, 0, 4)), (np.ones((2, 2, 3), np.int64), (2, 1, 3, 4)),
    (RNG.random((3, 2, 3)), (2, 1, 3, 4)),
])
def test_affine_grid_errors(theta, size):
    same_message(lambda lib, t: _f(lib).affine_grid(t, size, align_corners=False), theta)


def test_spatial_transformer_round_trip():
    # a rotation and its inverse, sampled bilinearly with border padding: back to the input in the interior
    angle = 0.3
    rot = np.array([[np.cos(angle), -np.sin(angle), 0.0], [np.sin(angle), np.cos(angle), 0.0]])
    inv = np.array([[np.cos(angle), np.sin(angle), 0.0], [-np.sin(angle), np.cos(angle), 0.0]])
    smooth = np.add.outer(np.linspace(0, 1, 9), np.linspace(0, 2, 9))[None, None]
    x = tensorlib.tensor(smooth)
    g1 = F.affine_grid(tensorlib.tensor(rot[None]), (1, 1, 9, 9), align_corners=True)
    g2 = F.affine_grid(tensorlib.tensor(inv[None]), (1, 1, 9, 9), align_corners=True)
    back = F.grid_sample(F.grid_sample(x, g1, padding_mode="border", align_corners=True), g2,
                         padding_mode="border", align_corners=True)
    np.testing.assert_allclose(back.numpy()[0, 0, 3:6, 3:6], smooth[0, 0, 3:6, 3:6], atol=1e-9)
