"""``assert_close``: closeness of tensors, scalars and nested sequences or mappings, as ``torch.testing`` checks it.

The inputs are first paired up (recursing through sequences and mappings, and
failing early on structure or type mismatches), then each pair is compared.
Tensor data is read from the NumPy array behind each tensor, so comparing
Tensor subclasses never dispatches through ``__torch_function__``.
"""

from __future__ import annotations

import cmath
import collections.abc
import contextlib
from typing import Any, Callable, NoReturn, Union

import numpy as np

from .. import _dtype
from .._registry import TESTING, public
from .._size import Size
from .._tensor import Tensor
from ..ops.creation import as_tensor

__all__ = ["assert_close"]

Msg = Union[str, Callable[[str], str], None]

# (rtol, atol) by dtype name; every other dtype is compared exactly. bfloat16 is listed for when it exists.
_PRECISIONS: dict[str, tuple[float, float]] = {
    "float16": (0.001, 1e-5),
    "bfloat16": (0.016, 1e-5),
    "float32": (1.3e-6, 1e-5),
    "float64": (1e-7, 1e-7),
    "complex32": (0.001, 1e-5),
    "complex64": (1.3e-6, 1e-5),
    "complex128": (1e-7, 1e-7),
}
# the dtype a Python number stands for when choosing default tolerances
_NUMBER_DTYPES: dict[type, _dtype.dtype] = {int: _dtype.int64, float: _dtype.float64, complex: _dtype.complex128}


class _Failure(Exception):
    """A comparison failure waiting to be raised as ``kind(message)``, with the path of the item it concerns."""

    def __init__(self, kind: type[Exception], message: str, path: tuple[Any, ...] = ()) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.path = path

    def to_error(self, msg: Msg = None) -> Exception:
        if isinstance(msg, str):
            return self.kind(msg)
        text = self.message
        if self.path:
            text += "\n\nThe failure occurred for item " + "".join(f"[{item!r}]" for item in self.path)
        return self.kind(msg(text) if callable(msg) else text)


class _Unsupported(Exception):
    """A pair kind cannot handle these inputs: try the next one."""


def _tolerances(dtypes: list[_dtype.dtype], rtol: float | None, atol: float | None,
                path: tuple[Any, ...]) -> tuple[float, float]:
    if (rtol is None) != (atol is None):
        missing = "rtol" if rtol is None else "atol"
        raise _Failure(ValueError, f"Both 'rtol' and 'atol' must be either specified or omitted, but got no {missing}.",
                       path)
    if rtol is not None and atol is not None:
        return rtol, atol
    pairs = [_PRECISIONS.get(d.name, (0.0, 0.0)) for d in dtypes]
    return max(p[0] for p in pairs), max(p[1] for p in pairs)


def _diff_line(kind: str, diff: object, index: tuple[int, ...] | None, tol: float, exact: bool) -> str:
    line = f"{kind.title()} difference: {diff}" if index is None else f"Greatest {kind} difference: {diff} at index {index}"
    return line if exact else f"{line} (up to {tol} allowed)"


def _mismatch_message(header: str, extra: str, abs_diff: object, abs_index: tuple[int, ...] | None, rel_diff: object,
                      rel_index: tuple[int, ...] | None, rtol: float, atol: float) -> str:
    exact = rtol == 0 and atol == 0
    lines = [
        f"{header} are not {'equal' if exact else 'close'}!",
        "",
        extra,
        _diff_line("absolute", abs_diff, abs_index, atol, exact),
        _diff_line("relative", rel_diff, rel_index, rtol, exact),
    ]
    return "\n".join(lines)


def _scalar_message(actual: Any, expected: Any, rtol: float, atol: float) -> str:
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _mismatch_message("Scalars", f"Expected {expected} but got {actual}.", abs_diff, None, rel_diff, None,
                             rtol, atol)


# -- the kinds of pairs, tried in this order --------------------------------------------------------


class _Pair:
    path: tuple[Any, ...]

    def fail(self, message: str) -> NoReturn:
        raise _Failure(AssertionError, message, self.path)

    def compare(self) -> None:
        raise NotImplementedError


class _NonePair(_Pair):
    def __init__(self, actual: Any, expected: Any, path: tuple[Any, ...], options: dict[str, Any]) -> None:
        if actual is not None and expected is not None:
            raise _Unsupported
        self.actual, self.expected, self.path = actual, expected, path

    def compare(self) -> None:
        if not (self.actual is None and self.expected is None):
            self.fail(f"None mismatch: {self.actual} is not {self.expected}")


class _BoolPair(_Pair):
    def __init__(self, actual: Any, expected: Any, path: tuple[Any, ...], options: dict[str, Any]) -> None:
        if not all(isinstance(x, (bool, np.bool_)) for x in (actual, expected)):
            raise _Unsupported
        self.actual, self.expected, self.path = bool(actual), bool(expected), path

    def compare(self) -> None:
        if self.actual is not self.expected:
            self.fail(f"Booleans mismatch: {self.actual} is not {self.expected}")


class _NumberPair(_Pair):
    def __init__(self, actual: Any, expected: Any, path: tuple[Any, ...], options: dict[str, Any]) -> None:
        if not all(isinstance(x, (int, float, complex, np.number)) for x in (actual, expected)):
            raise _Unsupported
        self.actual, self.expected = (x.item() if isinstance(x, np.number) else x for x in (actual, expected))
        self.path = path
        kinds = [type(self.actual), type(self.expected)]
        if not all(k in _NUMBER_DTYPES for k in kinds):
            # a bool against a number (torch fails here too, with an internal error)
            raise RuntimeError(f"Cannot compare scalars of type {kinds[0]} and {kinds[1]}.")
        self.rtol, self.atol = _tolerances([_NUMBER_DTYPES[k] for k in kinds], options["rtol"], options["atol"], path)
        self.equal_nan = options["equal_nan"]
        self.check_dtype = options["check_dtype"]

    def compare(self) -> None:
        actual, expected = self.actual, self.expected
        if self.check_dtype and type(actual) is not type(expected):
            self.fail(f"The (d)types do not match: {type(actual)} != {type(expected)}.")
        if actual == expected:
            return
        if self.equal_nan and cmath.isnan(actual) and cmath.isnan(expected):
            return
        diff = abs(actual - expected)
        if cmath.isfinite(diff) and diff <= self.atol + self.rtol * abs(expected):
            return
        self.fail(_scalar_message(actual, expected, self.rtol, self.atol))


class _TensorPair(_Pair):
    def __init__(self, actual: Any, expected: Any, path: tuple[Any, ...], options: dict[str, Any]) -> None:
        if not (isinstance(actual, type(expected)) or isinstance(expected, type(actual))):
            raise _Unsupported
        if not options["allow_subclasses"] and type(actual) is not type(expected):
            raise _Unsupported
        self.actual, self.expected = (self._to_tensor(x) for x in (actual, expected))
        self.path = path
        dtypes = [_dtype.FROM_NP[t._data.dtype] for t in (self.actual, self.expected)]
        self.rtol, self.atol = _tolerances(dtypes, options["rtol"], options["atol"], path)
        self.options = options

    @staticmethod
    def _to_tensor(value: Any) -> Tensor:
        if isinstance(value, Tensor):
            return value
        try:
            return as_tensor(value)
        except Exception:
            raise _Unsupported from None

    def compare(self) -> None:
        # read from the arrays, not the overridable attributes: a subclass's __torch_function__ is not involved
        a, e = self.actual._data, self.expected._data
        if a.shape != e.shape:
            self._attribute("shape", Size(a.shape), Size(e.shape))
        if self.options["check_stride"]:
            sa, se = _strides(a), _strides(e)
            if sa != se:
                self._attribute("stride()", sa, se)
        da, de = _dtype.FROM_NP[a.dtype], _dtype.FROM_NP[e.dtype]
        if self.options["check_dtype"] and da is not de:
            self._attribute("dtype", da, de)
        if da is not de:
            common = _dtype.PROMOTE[(da, de)].np
            a, e = a.astype(common), e.astype(common)
        self._compare_values(a, e)

    def _attribute(self, name: str, actual: object, expected: object) -> NoReturn:
        self.fail(f"The values for attribute '{name}' do not match: {actual} != {expected}.")

    def _compare_values(self, a: np.ndarray, e: np.ndarray) -> None:
        matches = _isclose(a, e, self.rtol, self.atol, self.options["equal_nan"])
        if matches.all():
            return
        if a.ndim == 0:
            self.fail(_scalar_message(a.item(), e.item(), self.rtol, self.atol))
        self.fail(_tensor_message(a, e, matches, self.rtol, self.atol))


def _strides(a: np.ndarray) -> tuple[int, ...]:
    return tuple(s // a.itemsize for s in a.strides)


def _isclose(a: np.ndarray, e: np.ndarray, rtol: float, atol: float, equal_nan: bool) -> np.ndarray:
    """torch.isclose on two arrays of one dtype: ``|a - e| <= atol + rtol * |e|``, infinities only equal to themselves."""
    with np.errstate(all="ignore"):
        close = a == e
        if equal_nan:
            close |= np.isnan(a) & np.isnan(e)
        if rtol == 0 and atol == 0:
            return np.asarray(close)
        if a.dtype.kind not in "fc":
            a, e = a.astype(_dtype.DEFAULT.np_float), e.astype(_dtype.DEFAULT.np_float)
        allowed = atol + np.abs(rtol * e)
        error = np.abs(a - e)
        return np.asarray(close | (np.isfinite(error) & (error <= allowed)))


def _tensor_message(a: np.ndarray, e: np.ndarray, matches: np.ndarray, rtol: float, atol: float) -> str:
    total = matches.size
    mismatched = total - int(np.count_nonzero(matches))
    extra = f"Mismatched elements: {mismatched} / {total} ({mismatched / total:.1%})"
    a, e, hit = a.reshape(-1), e.reshape(-1), matches.reshape(-1)
    if a.dtype.kind not in "fc":
        a, e = a.astype(np.int64), e.astype(np.int64)
    with np.errstate(all="ignore"):
        abs_diff = np.abs(a - e)
        abs_diff[hit] = 0
        # an integer difference divided as torch divides integers: in the default float dtype
        num = abs_diff.astype(_dtype.DEFAULT.np_float) if abs_diff.dtype.kind not in "fc" else abs_diff
        rel_diff = num / np.abs(e).astype(num.dtype)
        rel_diff[hit] = 0
    abs_at, rel_at = _argmax(abs_diff), _argmax(rel_diff)
    return _mismatch_message("Tensor-likes", extra, abs_diff[abs_at].item(), _unravel(abs_at, matches.shape),
                             rel_diff[rel_at].item(), _unravel(rel_at, matches.shape), rtol, atol)


def _argmax(x: np.ndarray) -> int:
    """The position of the greatest value, or of the first NaN (as torch.max reports it)."""
    nan = np.flatnonzero(np.isnan(x))
    return int(nan[0]) if nan.size else int(np.argmax(x))


def _unravel(flat: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(int(i) for i in np.unravel_index(flat, shape))


_PAIR_KINDS = (_NonePair, _BoolPair, _NumberPair, _TensorPair)


def _pairs(actual: Any, expected: Any, path: tuple[Any, ...], options: dict[str, Any]) -> list[_Pair]:
    """Pair up corresponding inputs, recursing through sequences (not strings) and mappings."""
    sequence = collections.abc.Sequence
    if isinstance(actual, sequence) and isinstance(expected, sequence) and not isinstance(actual, str) \
            and not isinstance(expected, str):
        if len(actual) != len(expected):
            raise _Failure(AssertionError, f"The length of the sequences mismatch: {len(actual)} != {len(expected)}",
                           path)
        return [p for i in range(len(actual)) for p in _pairs(actual[i], expected[i], (*path, i), options)]
    mapping = collections.abc.Mapping
    if isinstance(actual, mapping) and isinstance(expected, mapping):
        keys_a, keys_e = set(actual.keys()), set(expected.keys())
        if keys_a != keys_e:
            raise _Failure(
                AssertionError,
                "The keys of the mappings do not match:\n"
                f"Missing keys in the actual mapping: {sorted(keys_e - keys_a)}\n"
                f"Additional keys in the actual mapping: {sorted(keys_a - keys_e)}",
                path,
            )
        keys: Any = keys_a
        with contextlib.suppress(Exception):
            keys = sorted(keys)
        return [p for k in keys for p in _pairs(actual[k], expected[k], (*path, k), options)]
    for kind in _PAIR_KINDS:
        try:
            return [kind(actual, expected, path, options)]
        except _Unsupported:
            continue
    raise _Failure(TypeError,
                   f"No comparison pair was able to handle inputs of type {type(actual)} and {type(expected)}.", path)


@public(namespace=TESTING)
def assert_close(
    actual: Any,
    expected: Any,
    *,
    allow_subclasses: bool = True,
    rtol: float | None = None,
    atol: float | None = None,
    equal_nan: bool = False,
    check_device: bool = True,
    check_dtype: bool = True,
    check_layout: bool = True,
    check_stride: bool = False,
    msg: str | Callable[[str], str] | None = None,
) -> None:
    """Raise ``AssertionError`` unless ``actual`` and ``expected`` are close (torch.testing.assert_close's rules)."""
    __tracebackhide__ = True  # noqa: F841 (pytest hides this frame)
    # Every tensor lives on the CPU with the strided layout here: check_device and check_layout cannot fail.
    options = {"allow_subclasses": allow_subclasses, "rtol": rtol, "atol": atol, "equal_nan": equal_nan,
               "check_dtype": check_dtype, "check_stride": check_stride}
    try:
        pairs = _pairs(actual, expected, (), options)
    except _Failure as failure:
        raise failure.to_error() from None
    for pair in pairs:
        try:
            pair.compare()
        except _Failure as failure:
            raise failure.to_error(msg) from None
