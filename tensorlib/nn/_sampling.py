"""Spatial transformers: ``affine_grid`` and ``grid_sample`` (2-D and 3-D).

``grid_sample`` reads each output point from the taps around its source position, ``gather``-ed from
the flattened input and weighted by interpolation coefficients that are differentiable functions of the
grid. The padding modes fold into the source position as piecewise-linear maps (their slope, 0 or
+-1, is taken from torch's rules), so gradients of every order, for the input and the grid, come from
the engine.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from .._registry import NN_FUNCTIONAL, op
from .._tensor import Tensor
from ..ops._util import tensor_arg, type_title, wrap
from ..ops.arithmetic import add, div, mul, rsub, sub
from ..ops.indexing import basic_getitem, gather
from ..ops.linalg import matmul
from ..ops.shape import reshape, transpose, unsqueeze

__all__ = ["affine_grid", "grid_sample"]

_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. Please "
                  "specify align_corners=True if the old behavior is desired. See the documentation of grid_sample "
                  "for details.")


# -- affine_grid -------------------------------------------------------------------------------------------------


def _linspace(steps: int, align_corners: bool) -> np.ndarray:
    """torch's ``linspace_from_neg_one``: ``steps`` points over [-1, 1], pulled in to pixel centres unless aligned."""
    if steps <= 1:
        points = np.zeros(1)
    else:
        points = np.linspace(-1.0, 1.0, steps)
    if not align_corners:
        points = points * (steps - 1) / steps
    return points


@op(namespace=NN_FUNCTIONAL)
def affine_grid(theta: Tensor, size: Any, align_corners: bool | None = None) -> Tensor:
    """The sampling grid of the affine maps ``theta`` (``(N, 2, 3)`` or ``(N, 3, 4)``) for an output of ``size``.

    For ``size = (N, C, H, W)`` the result is ``(N, H, W, 2)``: each output pixel's source position in
    normalised coordinates (``x`` first), as :func:`grid_sample` reads them. Differentiable in ``theta``.
    """
    t = tensor_arg(theta, "affine_grid", "theta")
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    if not t.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {t.dtype}")
    if not isinstance(size, (tuple, list)):
        raise TypeError(f"affine_grid(): argument 'size' must be a sequence of ints, not {type(size).__name__}")
    size = list(size)
    if len(size) == 4:
        if t.dim() != 3 or t.shape[-2] != 2 or t.shape[-1] != 3:
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {tuple(size)}. "
                             f"Got {t.shape!r}.")
        spatial = size[-2:]
    elif len(size) == 5:
        if t.dim() != 3 or t.shape[-2] != 3 or t.shape[-1] != 4:
            raise ValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {tuple(size)}. "
                             f"Got {t.shape!r}.")
        spatial = size[-3:]
    else:
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {tuple(size)}.")
    if align_corners and min(spatial) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
                      "align_corners=True. This is not an intended use case of affine_grid. See the documentation of "
                      "affine_grid for details.", stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {tuple(size)}")
    n = size[0]
    if t.shape[0] != n:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{n}, {t.shape[-1]}] but "
                           f"got: [{t.shape[0]}, {t.shape[-1]}].")
    # the base grid: (x, y[, z], 1) at every output position, x varying fastest
    axes = [_linspace(s, align_corners) for s in reversed(spatial)]  # x (W), y (H)[, z (D)]
    mesh = np.meshgrid(*axes[::-1], indexing="ij")  # over (D,) H, W
    base = np.stack([m for m in mesh[::-1]] + [np.ones(mesh[0].shape)], axis=-1)
    dt = t._data.dtype
    base_t = wrap(base.reshape(1, -1, len(spatial) + 1).astype(dt))
    grid = matmul(base_t, transpose(t, 1, 2))
    return reshape(grid, (n, *spatial, len(spatial)))


# -- grid_sample -------------------------------------------------------------------------------------------------


def _unnormalize(coord: Tensor, size: int, align_corners: bool) -> Tensor:
    """Normalised ``[-1, 1]`` grid coordinates to pixel positions."""
    if align_corners:
        return mul(div(add(coord, 1), 2), size - 1)
    return div(sub(mul(add(coord, 1), size), 1), 2)


def _reflect(a: np.ndarray, twice_low: int, twice_high: int) -> tuple[np.ndarray, np.ndarray]:
    """torch's ``reflect_coordinates_set_grad``: reflected positions and the slope (+-1, or 0 for a zero span)."""
    if twice_low == twice_high:
        return np.zeros_like(a), np.zeros_like(a)
    low = twice_low / 2
    span = (twice_high - twice_low) / 2
    shifted = a - low
    mult = np.where(shifted < 0, -1.0, 1.0)
    shifted = np.abs(shifted)
    extra = np.fmod(shifted, span)
    flips = np.floor(shifted / span)
    even = flips % 2 == 0
    return np.where(even, extra + low, span - extra + low), np.where(even, mult, -mult)


def _clip(a: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """torch's ``clip_coordinates_set_grad``: clamped positions, slope 0 at and beyond the borders."""
    inside = (a > 0) & (a < size - 1)
    return np.clip(a, 0, size - 1), inside.astype(a.dtype)


def _pad_numpy(a: np.ndarray, size: int, padding_mode: str, align_corners: bool) -> tuple[np.ndarray, np.ndarray]:
    """Positions after the padding mode's map, and its slope."""
    if padding_mode == "zeros":
        return a, np.ones_like(a)
    slope = np.ones_like(a)
    if padding_mode == "reflection":
        a, slope = _reflect(a, 0, 2 * (size - 1)) if align_corners else _reflect(a, -1, 2 * size - 1)
    a, clip_slope = _clip(a, size)
    return a, slope * clip_slope


def _padded(coord: Tensor, size: int, padding_mode: str, align_corners: bool) -> Tensor:
    """``coord`` through the padding mode, as a tensor with the map's value and slope."""
    if padding_mode == "zeros":
        return coord
    a = coord._data
    value, slope = _pad_numpy(a, size, padding_mode, align_corners)
    # value exactly ``value``; derivative ``slope`` (and zero second derivative)
    return add(mul(sub(coord, coord.detach()), wrap(slope.astype(a.dtype))), wrap(value.astype(a.dtype)))


def _cubic_coefficients(t: Tensor) -> list[Tensor]:
    """torch's bicubic convolution weights (A = -0.75) of the four taps around a point at fraction ``t``."""
    a = -0.75

    def near(x: Tensor) -> Tensor:  # |x| <= 1: ((A + 2) x - (A + 3)) x^2 + 1
        return add(mul(mul(sub(mul(x, a + 2), a + 3), x), x), 1)

    def far(x: Tensor) -> Tensor:  # 1 < |x| < 2: ((A x - 5A) x + 8A) x - 4A
        return sub(mul(add(mul(sub(mul(x, a), 5 * a), x), 8 * a), x), 4 * a)

    rest = rsub(t, 1)
    return [far(add(t, 1)), near(t), near(rest), far(add(rest, 1))]


class _Sampler:
    """Reads taps ``(position per spatial dim)`` of a ``(N, C, *spatial)`` input at ``(N, P)`` output points."""

    def __init__(self, x: Tensor, spatial: tuple[int, ...]) -> None:
        self.n, self.c = x._data.shape[:2]
        self.spatial = spatial
        self.flat = reshape(x, (self.n, self.c, math.prod(spatial)))

    def tap(self, positions: list[np.ndarray]) -> tuple[Tensor, np.ndarray]:
        """Values ``(N, C, P)`` at integer ``positions`` (one ``(N, P)`` array per dim) and where they are inside."""
        inside = np.ones(positions[0].shape, dtype=bool)
        linear: np.ndarray = np.zeros(positions[0].shape, dtype=np.int64)
        for p, size in zip(positions, self.spatial):
            inside &= (p >= 0) & (p < size)
            linear = linear * size + np.clip(p, 0, size - 1)
        points = linear.shape[-1]
        index = np.broadcast_to(linear[:, None, :], (self.n, self.c, points))
        return gather(self.flat, 2, wrap(np.ascontiguousarray(index))), inside


def _weighted(values: Tensor, weight: Tensor | None, inside: np.ndarray) -> Tensor:
    mask = wrap(inside[:, None, :].astype(values._data.dtype))
    term = mul(values, mask)
    return term if weight is None else mul(term, unsqueeze(weight, 1))


@op(namespace=NN_FUNCTIONAL)
def grid_sample(input: Tensor, grid: Tensor, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners: bool | None = None) -> Tensor:
    """Sample ``input`` ``(N, C, H, W)`` (or ``(N, C, D, H, W)``) at the normalised positions of ``grid``.

    ``grid`` is ``(N, H_out, W_out, 2)`` (or ``(..., 3)``), ``x`` first, ``-1`` and ``1`` the input's edges
    (pixel centres with ``align_corners``, pixel edges without). ``mode`` is ``'bilinear'``, ``'nearest'``
    or ``'bicubic'`` (2-D only); positions outside are read as zeros, the nearest border value or the
    reflection inside (``padding_mode``). Differentiable in ``input`` and ``grid``.
    """
    x = tensor_arg(input, "grid_sample")
    g = tensor_arg(grid, "grid_sample", "grid", 2)
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but "
                         f"got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    a, ga = x._data, g._data
    if a.ndim == 0 or ga.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    shapes = f"input with sizes {list(a.shape)} and grid with sizes {list(ga.shape)}"
    if a.shape[:1] != ga.shape[:1]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, but got {shapes}")
    if ga.shape[-1] != a.ndim - 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {a.ndim - 2} in last dimension, but got grid "
                           f"with sizes {list(ga.shape)}")
    for i in range(2, a.ndim):
        if a.shape[i] == 0:
            raise RuntimeError("grid_sampler(): expected input to have non-empty spatial dimensions, but input has "
                               f"sizes {list(a.shape)} with dimension {i} being empty")
    nd = a.ndim - 2
    if a.ndim not in (4, 5) or ga.ndim != a.ndim:
        want = "4D" if a.ndim == 4 else "5D"
        raise RuntimeError(f"grid_sampler(): expected {want} input and grid with same number of dimensions, but got "
                           f"{shapes}")
    if nd == 3 and mode == "bicubic":
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if a.dtype.kind != "f":
        kernel = "grid_sampler_2d_cpu_kernel_impl" if nd == 2 else "grid_sampler_3d_cpu"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{type_title(a.dtype)}'")
    if ga.dtype != a.dtype:
        raise RuntimeError(f"expected scalar type {type_title(a.dtype)} but found {type_title(ga.dtype)}")
    n, c = a.shape[:2]
    spatial = a.shape[2:]
    out_spatial = ga.shape[1:-1]
    points = math.prod(out_spatial)
    flat_grid = reshape(g, (n, points, nd))
    # source positions per spatial dim (D, H, W order), the grid's last dim holding them x first
    coords = [_unnormalize(basic_getitem(flat_grid, (slice(None), slice(None), nd - 1 - d)), spatial[d],
                           align_corners) for d in range(nd)]
    sampler = _Sampler(x, spatial)
    if mode == "bicubic":
        out = _bicubic(sampler, coords, spatial, padding_mode, align_corners)
    else:
        coords = [_padded(cd, spatial[d], padding_mode, align_corners) for d, cd in enumerate(coords)]
        if mode == "nearest":
            values, inside = sampler.tap([np.rint(cd._data).astype(np.int64) for cd in coords])
            # the grid gets a zero gradient, as in torch
            out = add(_weighted(values, None, inside), mul(unsqueeze(coords[0], 1), 0.0))
        else:
            out = _linear(sampler, coords)
    return reshape(out, (n, c, *out_spatial))


def _linear(sampler: _Sampler, coords: list[Tensor]) -> Tensor:
    """Bilinear (trilinear) interpolation: the ``2 ** nd`` corners around each point."""
    lows = [np.floor(cd._data) for cd in coords]
    # the fraction towards the upper corner along each dim, differentiable in the position
    fracs = [sub(cd, wrap(low)) for cd, low in zip(coords, lows)]
    out: Tensor | None = None
    for corner in np.ndindex(*(2,) * len(coords)):
        weight: Tensor | None = None
        positions = []
        for d, up in enumerate(corner):
            positions.append(lows[d].astype(np.int64) + up)
            factor = fracs[d] if up else rsub(fracs[d], 1)
            weight = factor if weight is None else mul(weight, factor)
        values, inside = sampler.tap(positions)
        term = _weighted(values, weight, inside)
        out = term if out is None else add(out, term)
    assert out is not None
    return out


def _bicubic(sampler: _Sampler, coords: list[Tensor], spatial: tuple, padding_mode: str,
             align_corners: bool) -> Tensor:
    """Bicubic interpolation: 4 x 4 taps, each tap's position through the padding mode."""
    lows = [np.floor(cd._data) for cd in coords]
    coefficients = [_cubic_coefficients(sub(cd, wrap(low))) for cd, low in zip(coords, lows)]
    out: Tensor | None = None
    for i in range(4):
        for j in range(4):
            positions = []
            for d, k in enumerate((i, j)):
                tap = lows[d] - 1 + k
                tap, _ = _pad_numpy(tap, spatial[d], padding_mode, align_corners)
                positions.append(tap.astype(np.int64))
            values, inside = sampler.tap(positions)
            term = _weighted(values, mul(coefficients[0][i], coefficients[1][j]), inside)
            out = term if out is None else add(out, term)
    assert out is not None
    return out
