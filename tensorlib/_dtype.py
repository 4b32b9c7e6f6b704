"""dtypes, the default dtype, and torch's type promotion rules."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ._registry import op, public

if TYPE_CHECKING:
    from numpy.typing import DTypeLike


_pybool = type(True)


@public()
class dtype:
    """A tensor element type (``tensorlib.float32``, ...), backed by a NumPy dtype."""

    __slots__ = ("name", "np", "is_floating_point", "is_complex", "is_signed", "itemsize", "_category")

    def __init__(self, name: str, np_dtype: DTypeLike, category: int) -> None:
        self.name = name
        self.np = np.dtype(np_dtype)
        self.is_floating_point = category == _FLOAT
        self.is_complex = category == _COMPLEX
        self.is_signed = self.np.kind in "ifc"
        self.itemsize = self.np.itemsize
        self._category = category

    def __repr__(self) -> str:
        return f"tensorlib.{self.name}"

    def __reduce__(self) -> str:
        return self.name

    def to_real(self) -> "dtype":
        return _COMPLEX_TO_REAL.get(self, self)

    def to_complex(self) -> "dtype":
        return _REAL_TO_COMPLEX.get(self, self)


_BOOL, _INT, _FLOAT, _COMPLEX = 0, 1, 2, 3

bool = dtype("bool", np.bool_, _BOOL)  # noqa: A001 - torch's name
uint8 = dtype("uint8", np.uint8, _INT)
int8 = dtype("int8", np.int8, _INT)
int16 = dtype("int16", np.int16, _INT)
int32 = dtype("int32", np.int32, _INT)
int64 = dtype("int64", np.int64, _INT)
float16 = dtype("float16", np.float16, _FLOAT)
float32 = dtype("float32", np.float32, _FLOAT)
float64 = dtype("float64", np.float64, _FLOAT)
complex64 = dtype("complex64", np.complex64, _COMPLEX)
complex128 = dtype("complex128", np.complex128, _COMPLEX)

ALL = (bool, uint8, int8, int16, int32, int64, float16, float32, float64, complex64, complex128)
ALIASES = {
    "half": float16,
    "float": float32,
    "double": float64,
    "short": int16,
    "int": int32,
    "long": int64,
    "cfloat": complex64,
    "cdouble": complex128,
}

_REAL_TO_COMPLEX = {float16: complex64, float32: complex64, float64: complex128}
_COMPLEX_TO_REAL = {complex64: float32, complex128: float64}

# NumPy dtype -> tensorlib dtype. NumPy's builtin dtypes are singletons, so the
# hot path can key on ``array.dtype`` directly.
FROM_NP: dict[np.dtype, dtype] = {d.np: d for d in ALL}


class _Defaults:
    __slots__ = ("float", "np_float", "complex")

    def __init__(self) -> None:
        self.float = float32
        self.np_float = float32.np
        self.complex = complex64


DEFAULT = _Defaults()


@public()
def get_default_dtype() -> dtype:
    """The dtype of floating point tensors created from Python floats (float32 unless changed)."""
    return DEFAULT.float


@public()
def set_default_dtype(d: dtype) -> None:
    """Set the default floating point dtype (float32 or float64, as torch allows)."""
    if not isinstance(d, dtype) or d not in (float16, float32, float64):
        raise TypeError(f"only floating-point types are supported as the default type, got {d!r}")
    DEFAULT.float = d
    DEFAULT.np_float = d.np
    DEFAULT.complex = d.to_complex()


def _promote_pair(a: dtype, b: dtype) -> dtype:
    if a is b:
        return a
    ca, cb = a._category, b._category
    if ca != cb:
        hi, lo = (a, b) if ca > cb else (b, a)
        if hi._category == _COMPLEX and lo._category == _FLOAT:
            return hi if hi.to_real().itemsize >= lo.itemsize else lo.to_complex()
        return hi
    return FROM_NP[np.promote_types(a.np, b.np)]


PROMOTE: dict[tuple[dtype, dtype], dtype] = {(a, b): _promote_pair(a, b) for a in ALL for b in ALL}


@op(dispatch="modes")
def promote_types(type1: dtype, type2: dtype) -> dtype:
    """The smallest dtype both can be safely cast to, by torch's rules (int + float16 -> float16)."""
    return PROMOTE[(type1, type2)]


def _combine(higher: dtype | None, lower: dtype | None) -> dtype | None:
    """Merge the result of a higher-priority operand group with a lower-priority one."""
    if higher is None:
        return lower
    if lower is None:
        return higher
    hc, lc = higher._category, lower._category
    if hc == _COMPLEX:
        return higher
    if lc == _COMPLEX:
        return higher.to_complex() if hc == _FLOAT else lower
    if hc == _FLOAT:
        return higher
    if hc == _BOOL or lc == _FLOAT:
        return PROMOTE[(higher, lower)]
    return higher


def scalar_dtype(value: object) -> dtype:
    """The dtype a Python scalar takes when it meets tensors (floats take the default dtype)."""
    t = type(value)
    if t is float:
        return DEFAULT.float
    if t is int:
        return int64
    if t is _pybool:
        return bool
    return _scalar_dtype_slow(value)


def _scalar_dtype_slow(value: object) -> dtype:
    if isinstance(value, _pybool) or isinstance(value, np.bool_):
        return bool
    if isinstance(value, (int, np.integer)):
        return int64
    if isinstance(value, (float, np.floating)):
        return DEFAULT.float
    if isinstance(value, (complex, np.complexfloating)):
        return DEFAULT.complex
    raise TypeError(f"unsupported scalar type {type(value).__name__}")


def result_type_of(dim_dtypes: list, zero_dim_dtypes: list, scalars: list) -> dtype:
    """torch's result type: tensors with dims > 0-dim tensors > Python scalars, category first."""
    dim = zero = wrapped = None
    for d in dim_dtypes:
        dim = d if dim is None else PROMOTE[(dim, d)]
    for d in zero_dim_dtypes:
        zero = d if zero is None else PROMOTE[(zero, d)]
    for s in scalars:
        d = scalar_dtype(s)
        wrapped = d if wrapped is None else PROMOTE[(wrapped, d)]
    out = _combine(dim, _combine(zero, wrapped))
    assert out is not None
    return out
