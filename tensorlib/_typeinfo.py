"""``finfo`` and ``iinfo``: the numerical limits of floating point and integer dtypes."""

from __future__ import annotations

import numpy as np

from . import _dtype
from ._registry import public


def _check(type: object, fname: str) -> _dtype.dtype:  # noqa: A002
    if not isinstance(type, _dtype.dtype):
        raise TypeError(f"{fname}(): argument 'type' (position 1) must be tensorlib.dtype, not {builtins_name(type)}")
    return type


def builtins_name(x: object) -> str:
    return x.__class__.__name__


@public()
class finfo:
    """Limits of a floating point dtype: ``bits``, ``eps``, ``max``, ``min``, ``tiny``, ``resolution``.

    ``finfo()`` describes the default dtype; a complex dtype is described by its real counterpart.
    """

    __hash__ = None  # type: ignore[assignment]

    def __init__(self, type: _dtype.dtype | None = None) -> None:  # noqa: A002
        t = _dtype.get_default_dtype() if type is None else _check(type, "finfo")
        if not (t.is_floating_point or t.is_complex):
            raise TypeError(
                "tensorlib.finfo() requires a floating point input type. Use tensorlib.iinfo to handle 'tensorlib.finfo'"
            )
        t = t.to_real()
        info = np.finfo(t.np)
        self.bits = info.bits
        self.eps = float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        self.resolution = 10.0 ** -info.precision
        self.dtype = t.name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, finfo) and other.dtype == self.dtype

    def __repr__(self) -> str:
        return (
            f"finfo(resolution={self.resolution:.6g}, min={self.min:.6g}, max={self.max:.6g}, eps={self.eps:.6g}, "
            f"smallest_normal={self.smallest_normal:.6g}, tiny={self.tiny:.6g}, dtype={self.dtype})"
        )


@public()
class iinfo:
    """Limits of an integer dtype: ``bits``, ``min``, ``max``."""

    __hash__ = None  # type: ignore[assignment]

    def __init__(self, type: _dtype.dtype) -> None:  # noqa: A002
        t = _check(type, "iinfo")
        if t is _dtype.bool:
            raise TypeError("tensorlib.bool is not supported by tensorlib.iinfo")
        if t.is_floating_point or t.is_complex:
            raise TypeError(
                "tensorlib.iinfo() requires an integer input type. Use tensorlib.finfo to handle 'tensorlib.iinfo'"
            )
        info = np.iinfo(t.np)
        self.bits = info.bits
        self.min = int(info.min)
        self.max = int(info.max)
        self.dtype = t.name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, iinfo) and other.dtype == self.dtype

    def __repr__(self) -> str:
        return f"iinfo(min={float(self.min):.6g}, max={float(self.max):.6g}, dtype={self.dtype})"
