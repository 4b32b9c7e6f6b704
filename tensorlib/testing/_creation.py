"""``make_tensor``: a tensor of random values of a given shape and dtype, as ``torch.testing.make_tensor`` makes it."""

from __future__ import annotations

import collections.abc
import math
import warnings
from typing import Any, Sequence

import numpy as np

from .. import _dtype
from .._registry import TESTING, public
from .._tensor import Tensor, check_device, device as _device
from .._typeinfo import finfo, iinfo
from ..ops.creation import empty, from_numpy, randint

__all__ = ["make_tensor"]

_INTEGRAL = (_dtype.uint8, _dtype.int8, _dtype.int16, _dtype.int32, _dtype.int64)
_BOOL_OR_INTEGRAL = (_dtype.bool, *_INTEGRAL)
_FLOATING = (_dtype.float16, _dtype.float32, _dtype.float64)
_COMPLEX = (_dtype.complex64, _dtype.complex128)


def _bounds(low: float | None, high: float | None, dtype: _dtype.dtype, lowest: float, highest: float,
            default_low: float, default_high: float) -> tuple[float, float]:
    """Apply the defaults, validate ``[low, high)`` against ``[lowest, highest)``, and clamp into it."""
    low = default_low if low is None else low
    high = default_high if high is None else high
    if any(isinstance(v, float) and math.isnan(v) for v in (low, high)):
        raise ValueError(f"`low` and `high` cannot be NaN, but got {low=} and {high=}")
    if low == high and dtype in (*_FLOATING, *_COMPLEX):
        warnings.warn(
            "Passing `low==high` to `tensorlib.testing.make_tensor` for floating or complex types is deprecated. "
            "Use `tensorlib.full(...)` instead.",
            FutureWarning,
            stacklevel=3,
        )
    elif low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    elif high < lowest or low >= highest:
        raise ValueError(
            f"The value interval specified by `low` and `high` is [{low}, {high}), "
            f"but {dtype} only supports [{lowest}, {highest})"
        )
    low, high = min(max(low, lowest), highest), min(max(high, lowest), highest)
    if dtype in _BOOL_OR_INTEGRAL:
        # randint's upper bound is exclusive: round both up to stay inside [low, high)
        return math.ceil(low), math.ceil(high)
    return low, high


def _uniform(shape: tuple[int, ...], low: float, high: float) -> np.ndarray:
    """float64 samples from ``[low, high)`` drawn with tensorlib's generator (halved when the span overflows)."""
    if high - low >= np.finfo(np.float64).max:
        return 2 * empty(shape, dtype=_dtype.float64).uniform_(low / 2, high / 2).numpy()
    return empty(shape, dtype=_dtype.float64).uniform_(low, high).numpy()


@public(namespace=TESTING)
def make_tensor(
    *shape: int | Sequence[int],
    dtype: _dtype.dtype,
    device: str | _device,
    low: float | None = None,
    high: float | None = None,
    requires_grad: bool = False,
    noncontiguous: bool = False,
    exclude_zero: bool = False,
    memory_format: Any = None,
) -> Tensor:
    """A tensor of ``shape`` filled with values drawn uniformly from ``[low, high)`` (torch's defaults per dtype)."""
    first = shape[0] if len(shape) == 1 else None
    dims: tuple[int, ...]
    if isinstance(first, collections.abc.Sequence):
        dims = tuple(first)
    else:
        dims = tuple(d for d in shape if not isinstance(d, collections.abc.Sequence))
        if len(dims) != len(shape):
            raise TypeError("make_tensor(): give the shape as integers or as one sequence of integers")
    if noncontiguous and memory_format is not None:
        raise ValueError(
            "The parameters `noncontiguous` and `memory_format` are mutually exclusive, "
            f"but got {noncontiguous=} and {memory_format=}"
        )
    if requires_grad and dtype in _BOOL_OR_INTEGRAL:
        raise ValueError(f"`requires_grad=True` is not supported for boolean and integral dtypes, but got {dtype=}")
    check_device(device)  # only the CPU exists: anything else raises as tensorlib.device does
    noncontiguous = noncontiguous and math.prod(dims) > 1
    if noncontiguous:
        # twice as many columns, every other one kept below (offset by one to catch offset bugs)
        dims = (*dims[:-1], 2 * dims[-1])

    if dtype is _dtype.bool:
        lo, hi = _bounds(low, high, dtype, 0, 2, 0, 2)
        result = randint(int(lo), int(hi), dims, dtype=dtype)
    elif dtype in _INTEGRAL:
        info = iinfo(dtype)
        # randint cannot draw int64's maximum: its exclusive upper bound would overflow
        highest = info.max + (1 if dtype is not _dtype.int64 else 0)
        lo, hi = _bounds(low, high, dtype, info.min, highest, -9, 10)
        result = randint(int(lo), int(hi), dims, dtype=dtype)
    elif dtype in _FLOATING or dtype in _COMPLEX:
        limits = finfo(dtype)
        lo, hi = _bounds(low, high, dtype, limits.min, limits.max, -9, 9)
        values = _uniform((*dims, 2) if dtype in _COMPLEX else dims, lo, hi)
        if dtype in _COMPLEX:
            values = np.asarray(values[..., 0] + 1j * values[..., 1])  # 0-dim: an array, not a NumPy scalar
        result = from_numpy(values.astype(dtype.np, order="C"))
    else:
        raise TypeError(f"The requested dtype '{dtype}' is not supported by tensorlib.testing.make_tensor().")

    if noncontiguous:
        result = result[..., 1::2]
    elif memory_format is not None:
        result = result.clone(memory_format=memory_format)
    if exclude_zero:
        # as torch does: 1 for bool and integers, the smallest normal number (a real value) for floating and complex
        replacement: float = 1 if dtype in _BOOL_OR_INTEGRAL else finfo(dtype).tiny
        data = result.numpy()
        data[data == 0] = replacement
    if dtype in _FLOATING or dtype in _COMPLEX:
        result.requires_grad_(requires_grad)
    return result
