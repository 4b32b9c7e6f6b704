"""Allocation failures in torch's words: NumPy's MemoryError and size overflows become torch's errors.

NumPy reports an array too large for memory as ``MemoryError: Unable to allocate 4.00 TiB for an array with
shape (1099511627776,) ...`` and one whose size in bytes overflows its index type as a ``ValueError``; torch
raises ``RuntimeError`` for both, naming the bytes asked for. The public functions translate these at their
boundary (:mod:`tensorlib._errors`); constructors that are not public functions call :func:`allocation_error`
themselves. An integer argument too large for int64 (a size, a count) is torch's TypeError.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._dtype import FROM_NP

# NumPy's words for a shape whose size in bytes does not fit in its index type
_NUMPY_OVERFLOW = ("array is too big;", "Maximum allowed dimension exceeded", "iterator is too large")


def allocation_error(exc: BaseException) -> RuntimeError | None:
    """torch's RuntimeError for NumPy's failure to allocate an array (too large for memory, or for its index type).

    None when ``exc`` is not such a failure. As torch's, the message names the bytes asked for:
    ``DefaultCPUAllocator: can't allocate memory: you tried to allocate N bytes``.
    """
    if isinstance(exc, MemoryError) and hasattr(exc, "shape") and hasattr(exc, "dtype"):
        shape = [int(n) for n in exc.shape]
        npdt = np.dtype(exc.dtype)
        nbytes = int(np.prod(shape, dtype=object)) * npdt.itemsize
        return RuntimeError(
            f"DefaultCPUAllocator: can't allocate memory: you tried to allocate {nbytes} bytes "
            f"(a {FROM_NP.get(npdt, npdt.name)} tensor of shape {shape})"
        )
    if isinstance(exc, ValueError) and str(exc).startswith(_NUMPY_OVERFLOW):
        return RuntimeError(
            "Storage size calculation overflowed: the tensor would take more than 9223372036854775807 bytes"
        )
    return None


def int64_overflow_error(name: str, exc: BaseException, args: tuple, kwargs: dict) -> TypeError | None:
    """torch's TypeError for an integer argument outside int64 that Python failed to convert (``repeat(2**63)``)."""
    if not isinstance(exc, OverflowError) or "too large to convert to C" not in str(exc):
        return None
    value = _out_of_int64(args + tuple(kwargs.values()))
    if value is None:
        return None
    return TypeError(f"{name}(): an integer argument ({value}) failed to unpack with error "
                     f"\"Overflow when unpacking long long\"")


def _out_of_int64(values: Any, depth: int = 0) -> int | None:
    """The first int outside int64 among ``values`` and their (nested) lists and tuples."""
    for v in values:
        if isinstance(v, int) and not isinstance(v, bool) and not -(2**63) <= v < 2**63:
            return v
        if isinstance(v, (list, tuple)) and depth < 2:
            found = _out_of_int64(v, depth + 1)
            if found is not None:
                return found
    return None
