"""NumPy-only helpers shared by the numeric kernels (``_erf``, ``_gamma``) and the ops.

* :data:`clip_ufunc`: NumPy's clip ufunc itself.
* :func:`last_axis_sums`, :func:`trailing_sums`: sums along the last axes as matrix-vector products (NumPy's
  reduction loops per row).
* Piecewise polynomial tables: a smooth function on many short segments, each a low-degree interpolant, looked up
  per element (:func:`segment_columns`, :func:`segment_lookup`): a handful of array passes where a single series
  over the whole range would need tens.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

# NumPy's clip ufunc itself: ``np.clip`` is a Python wrapper, slower, and its warnings would come from NumPy's modules,
# outside the filter that silences them in tensorlib's (a bound that overflows the dtype, as NumPy casts it)
clip_ufunc: Any = getattr(getattr(np, "_core", None), "umath", np).__dict__.get("clip", np.clip)

_ROUNDER = 2.0**52  # adding it to a nonnegative double below 2**51 rounds it to an integer, held in the low bits
_ROUNDER_BITS = int(np.float64(_ROUNDER).view(np.int64))


# ones vectors by (length, dtype), read-only: the right operand of last_axis_sums' products
_ONES: dict[tuple[int, np.dtype], np.ndarray] = {}
_BLAS_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def last_axis_sums(a: np.ndarray) -> np.ndarray:
    """``np.add.reduce(a, axis=-1, keepdims=True)``, as BLAS matrix-vector products with a vector of ones for
    float32/float64 C-contiguous arrays.

    NumPy's reduction over the last axis runs its loop once per row, which dominates on short rows (softmax over
    classes or attention keys, a norm over features): 64 rows of 256 float32 take 0.8 us this way against 3.5, 2048
    rows of 32 take 3.2 against 32. A product's error grows with the row (below one unit in the last place of the
    sum of magnitudes at 1024, about twice NumPy's pairwise sum's there), so a longer row is cut into blocks of at
    most 1024 whose sums NumPy adds (a row length with no such block keeps NumPy's reduction).
    """
    c = a.shape[-1] if a.ndim else 0
    if not (c and a.size and a.dtype in _BLAS_FLOATS and a.flags.c_contiguous):
        return np.add.reduce(a, axis=-1, keepdims=True)
    block = c if c <= 1024 else next((b for b in (1024, 512, 256) if c % b == 0), 0)
    if not block:
        return np.add.reduce(a, axis=-1, keepdims=True)
    key = (block, a.dtype)
    ones = _ONES.get(key)
    if ones is None:
        ones = np.ones(block, dtype=a.dtype)
        ones.flags.writeable = False
        if len(_ONES) < 256:
            _ONES[key] = ones
    sums = a.reshape(-1, block).dot(ones)
    if block < c:
        sums = np.add.reduce(sums.reshape(-1, c // block), axis=1, keepdims=True)
    return sums.reshape(a.shape[:-1] + (1,))


def trailing_sums(a: np.ndarray, dims: tuple[int, ...]) -> np.ndarray:
    """``np.add.reduce(a, axis=dims, keepdims=True)``; by :func:`last_axis_sums` when ``dims`` are ``a``'s last
    axes, of a C-contiguous array (they then hold each sum's elements in one run)."""
    k = len(dims)
    if k and a.size and a.flags.c_contiguous and dims == tuple(range(a.ndim - k, a.ndim)):
        sums = last_axis_sums(a.reshape(a.shape[: a.ndim - k] + (-1,)))
        return sums.reshape(a.shape[: a.ndim - k] + (1,) * k)
    return np.add.reduce(a, axis=dims, keepdims=True)


def segment_offsets(degree: int) -> np.ndarray:
    """The interpolation points of a segment, as offsets ``v`` in ``[-1/2, 1/2]`` from its centre: the
    ``degree + 1`` Chebyshev points, halved (exactly)."""
    m = degree + 1
    return np.array([math.cos(math.pi * (2 * j + 1) / (2 * m)) for j in range(m)]) * 0.5


def segment_columns(
    f: Callable[[np.ndarray], np.ndarray], per_unit: int, degree: int, rows: int
) -> tuple[np.ndarray, ...]:
    """The coefficient columns of ``f``'s interpolants on ``rows`` segments: segment ``k`` is centred at
    ``k / per_unit`` and ``f((k + v) / per_unit) ~ sum_j columns[j][k] * v**j`` for ``|v| <= 1/2``.

    Each is the interpolant at ``degree + 1`` Chebyshev points of its segment: the values, their Chebyshev
    coefficients (a cosine transform), then the power basis, in the offset ``v`` (a scaling by powers of two:
    exact). Segment 0 reaches below 0: ``f`` must take its argument's absolute value if it is not defined there.
    """
    m = degree + 1
    angles = [math.pi * (2 * j + 1) / (2 * m) for j in range(m)]
    nodes = 2.0 * segment_offsets(degree)
    to_chebyshev = np.array([[math.cos(i * a) for a in angles] for i in range(m)]) * (2.0 / m)
    to_chebyshev[0] /= 2.0
    to_power = np.array([np.pad(np.polynomial.chebyshev.cheb2poly(row), (0, m))[:m] for row in np.eye(m)])
    points = (np.arange(rows)[:, None] + nodes * 0.5) / per_unit
    values = f(points)
    # the transforms act on the values' variation within each segment (their differences from the first value are
    # exact): on the values themselves, the rounding of a segment's level would be magnified into every term
    level = values[:, :1]
    coef = (values - level) @ to_chebyshev.T @ to_power
    coef[:, :1] += level
    coef *= 2.0 ** np.arange(m)
    return tuple(np.ascontiguousarray(c) for c in coef.T)


def segment_index(per_unit: int, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(k, v)`` for ``t >= 0`` (float64): each element's segment ``k`` (the nearest multiple of ``1 / per_unit``,
    as an integer) and its offset ``v = t * per_unit - k`` in ``[-1/2, 1/2]`` (exact). NaN gives a NaN offset."""
    u = t * per_unit
    s = u + _ROUNDER
    k = s.view(np.int64) - _ROUNDER_BITS  # round(u): the segment
    s -= _ROUNDER
    u -= s  # the offset in the segment, in [-1/2, 1/2]: exact
    return k, u


def segment_horner(columns: tuple[np.ndarray, ...], k: np.ndarray, u: np.ndarray) -> np.ndarray:
    """The interpolants of :func:`segment_columns` of segments ``k`` at offsets ``u`` (indices beyond the table
    are clipped into it)."""
    r = np.take(columns[-1], k, mode="clip")
    for column in columns[-2::-1]:
        r *= u
        r += np.take(column, k, mode="clip")
    return r


def segment_lookup(columns: tuple[np.ndarray, ...], per_unit: int, t: np.ndarray) -> np.ndarray:
    """The interpolants of :func:`segment_columns` at ``t >= 0`` (float64): each element in its own segment.

    Beyond the last segment (and for NaN) the index is clipped into the table; NaN's offset is NaN and
    carries NaN through.
    """
    k, u = segment_index(per_unit, t)
    return segment_horner(columns, k, u)
