"""assert_close and make_tensor against torch.testing: same pass/fail, exception types and messages on the same inputs.

Inputs are built once with NumPy and converted to each library; messages are compared with ``torch.``
spelled ``tensorlib.``.
"""

from __future__ import annotations

import math
import warnings
from typing import Any, Callable

import numpy as np
import pytest

import tensorlib
import tensorlib.testing

torch = pytest.importorskip("torch")


class T:
    """A NumPy array standing for a tensor, converted to each library's tensor."""

    def __init__(self, values: Any, dtype: Any = None, transpose: bool = False) -> None:
        self.array = np.asarray(values, dtype=dtype)
        if transpose:
            self.array = self.array.T


def _to(lib: str, x: Any) -> Any:
    if isinstance(x, T):
        a = x.array.copy(order="K")
        return torch.from_numpy(a) if lib == "torch" else tensorlib.from_numpy(a)
    if isinstance(x, dict):
        return {k: _to(lib, v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return type(x)(_to(lib, v) for v in x)
    return x


def _outcome(call: Callable[[], Any]) -> tuple[str, str] | None:
    try:
        call()
    except Exception as error:  # noqa: BLE001 - the outcome is what is compared
        return type(error).__name__, str(error).replace("torch.", "tensorlib.")
    return None


def _check(actual: Any, expected: Any, **kwargs: Any) -> None:
    ours = _outcome(lambda: tensorlib.testing.assert_close(_to("tensorlib", actual), _to("tensorlib", expected),
                                                           **kwargs))
    theirs = _outcome(lambda: torch.testing.assert_close(_to("torch", actual), _to("torch", expected), **kwargs))
    assert ours == theirs


F32, F64, F16 = np.float32, np.float64, np.float16

CASES: dict[str, tuple[Any, Any, dict[str, Any]]] = {
    "equal": (T([1.0, 2.0], F32), T([1.0, 2.0], F32), {}),
    "within tolerance": (T([1.0, 2.0], F32), T([1.0, 2.000001], F32), {}),
    "not close 1d": (T([1.0, 4.0, 5.0], F32), T([1.0, 2.0, 3.0], F32), {}),
    "not close 2d": (T([[1.0, 2.0], [3.0, 4.5]], F64), T([[1.0, 2.5], [3.0, 4.0]], F64), {}),
    "float16": (T([1.0, 2.0, 3.0], F16), T([1.0, 2.01, 3.0], F16), {}),
    "complex64": (T([1 + 1j, 2 - 1j], np.complex64), T([1 + 1j, 2 + 1j], np.complex64), {}),
    "complex128": (T([1 + 1j], np.complex128), T([1 + 1.1j], np.complex128), {}),
    "int64": (T([1, 2, 3]), T([1, 5, 3]), {}),
    "uint8": (T([0, 9], np.uint8), T([3, 9], np.uint8), {}),
    "int with tolerance": (T([10, 20]), T([11, 20]), {"rtol": 0.2, "atol": 0}),
    "bool": (T([True, False, True]), T([True, True, False]), {}),
    "zero expected": (T([0.0, 1.0], F32), T([0.0, 0.0], F32), {}),
    "0-dim": (T(2.5, F64), T(2.0, F64), {}),
    "nan": (T([1.0, math.nan], F32), T([1.0, math.nan], F32), {}),
    "nan equal_nan": (T([1.0, math.nan], F32), T([1.0, math.nan], F32), {"equal_nan": True}),
    "nan vs number": (T([math.nan, 1.0], F32), T([1.0, 1.0], F32), {"equal_nan": True}),
    "0-dim nan": (T(math.nan, F32), T(math.nan, F32), {}),
    "inf": (T([math.inf, -math.inf]), T([math.inf, -math.inf]), {}),
    "inf vs -inf": (T([math.inf, 1.0]), T([-math.inf, 1.0]), {}),
    "inf vs finite": (T([math.inf]), T([1e308]), {}),
    "shape": (T([1.0, 2.0], F32), T([[1.0, 2.0]], F32), {}),
    "dtype": (T([1.0], F32), T([1.0], F64), {}),
    "dtype unchecked": (T([1.0, 2.0], F32), T([1.0, 2.0], F64), {"check_dtype": False}),
    "dtype unchecked mismatch": (T([1.0, 2.5], F32), T([1.0, 2.0], F64), {"check_dtype": False}),
    "int dtypes unchecked": (T([1, 2], np.int32), T([1, 3], np.int64), {"check_dtype": False}),
    "stride": (T([[1.0, 2.0], [3.0, 4.0]], F32, transpose=True), T([[1.0, 3.0], [2.0, 4.0]], F32),
               {"check_stride": True}),
    "stride unchecked": (T([[1.0, 2.0], [3.0, 4.0]], F32, transpose=True), T([[1.0, 3.0], [2.0, 4.0]], F32), {}),
    "custom tolerances": (T([1.0, 2.0], F64), T([1.1, 2.0], F64), {"rtol": 0.0, "atol": 0.2}),
    "custom tolerances fail": (T([1.0, 2.0], F64), T([1.3, 2.0], F64), {"rtol": 0.01, "atol": 0.2}),
    "exact": (T([1.0, 2.0], F64), T([1.0, 2.0 + 1e-12], F64), {"rtol": 0, "atol": 0}),
    "only rtol": (T([1.0]), T([1.0]), {"rtol": 1e-3}),
    "only atol": (T([1.0]), T([1.0]), {"atol": 1e-3}),
    "scalars": (1.0, 1.0 + 1e-9, {}),
    "scalars not close": (1.0, 1.1, {}),
    "scalars equal": (1e-9, 1e-10, {"rtol": 0, "atol": 0}),
    "scalar types": (1.0, 1, {}),
    "scalar types unchecked": (1.0, 1, {"check_dtype": False}),
    "int scalars": (3, 4, {}),
    "complex scalars": (1 + 1j, 1 + 2j, {}),
    "scalar nan": (math.nan, math.nan, {}),
    "scalar nan equal_nan": (math.nan, math.nan, {"equal_nan": True}),
    "scalar zero expected": (1.0, 0.0, {}),
    "scalar only rtol": (1.0, 1.0, {"rtol": 0.1}),
    "numpy scalars": (np.float64(1.0), 1.5, {}),
    "bools": (True, False, {}),
    "numpy bools": (np.bool_(True), True, {}),
    "none": (None, None, {}),
    "none vs number": (None, 1, {}),
    "number vs none": (1, None, {}),
    "lists": ([1.0, 2.0], [1.0, 2.0], {}),
    "list vs tuple": ([1, 2], (1, 3), {}),
    "nested": ([1, [2.0, T([1.0, 2.0], F32)]], [1, [2.0, T([1.0, 3.0], F32)]], {}),
    "lengths": ([1, 2], [1, 2, 3], {}),
    "mappings": ({"a": T([1.0]), "b": 2}, {"b": 2, "a": T([1.0])}, {}),
    "mapping values": ({"a": [1, 2], "b": T([1.0, 2.0])}, {"a": [1, 2], "b": T([1.0, 2.5])}, {}),
    "mapping keys": ({"a": 1, "b": 2}, {"a": 1, "c": 2, "d": 3}, {}),
    "strings": ("a", "a", {}),
    "tensor vs list": (T([1.0]), [1.0], {}),
    "tensor vs scalar": (T(1.0), 1.0, {}),
    "numpy arrays": (np.array([1.0, 2.0]), np.array([1.0, 2.5]), {}),
    "numpy vs tensor": (np.array([1.0]), T([1.0]), {}),
    "type error before value mismatch": ([1, "a"], [2, "a"], {}),
    "value error in a sequence": ([None, 1.0], [None, 1.0], {"atol": 0.1}),
    "msg str": (T([1.0]), T([2.0]), {"msg": "custom message"}),
    "msg callable": ([T([1.0, 2.0])], [T([1.0, 3.0])], {"msg": lambda m: f"Header\n\n{m}\n\nFooter"}),
    "msg not for structure": ([1], [1, 2], {"msg": "custom message"}),
    "msg not for types": ("a", "b", {"msg": "custom message"}),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_assert_close_matches_torch(name: str) -> None:
    actual, expected, kwargs = CASES[name]
    _check(actual, expected, **kwargs)


def test_subclasses_and_allow_subclasses() -> None:
    def run(lib: Any, allow: bool) -> tuple[str, str] | None:
        p = lib.nn.Parameter(lib.ones(2))
        return _outcome(lambda: lib.testing.assert_close(p, lib.ones(2), allow_subclasses=allow))

    for allow in (True, False):
        assert run(tensorlib, allow) == run(torch, allow)


def test_bool_against_int_fails_as_in_torch() -> None:
    ours = _outcome(lambda: tensorlib.testing.assert_close(True, 1))
    theirs = _outcome(lambda: torch.testing.assert_close(True, 1))
    assert ours is not None and theirs is not None and ours[0] == theirs[0]


# -- make_tensor ---------------------------------------------------------------------------------


def _dtype(lib: Any, name: str) -> Any:
    return getattr(lib, name)


def _make(lib: Any, *shape: Any, dtype: str, **kwargs: Any) -> tuple[Any, tuple[str, str] | None, list[str]]:
    result: list[Any] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        outcome = _outcome(lambda: result.append(lib.testing.make_tensor(*shape, dtype=_dtype(lib, dtype),
                                                                         device="cpu", **kwargs)))
    return (result[0] if result else None), outcome, [w.category.__name__ for w in caught]


MAKE_CASES: dict[str, tuple[tuple[Any, ...], str, dict[str, Any]]] = {
    "float32": ((2, 3), "float32", {}),
    "shape tuple": (((2, 3),), "float64", {}),
    "shape list": (([4],), "int32", {}),
    "0-dim": ((), "float32", {}),
    "empty": ((0, 3), "float32", {}),
    "bool": ((5,), "bool", {}),
    "uint8": ((5,), "uint8", {}),
    "int8": ((5,), "int8", {"low": -200, "high": 200}),
    "int64 extremes": ((5,), "int64", {"low": -(2**70), "high": 2**70}),
    "float16 clamped": ((5,), "float16", {"low": -1e10, "high": 1e10}),
    "complex128": ((2, 2), "complex128", {}),
    "noncontiguous": ((3, 4), "float32", {"noncontiguous": True}),
    "noncontiguous one element": ((1,), "float32", {"noncontiguous": True}),
    "requires_grad": ((2,), "float64", {"requires_grad": True}),
    "requires_grad complex": ((2,), "complex64", {"requires_grad": True}),
    "exclude_zero int": ((6,), "int16", {"low": 0, "high": 1, "exclude_zero": True}),
    "exclude_zero bool": ((6,), "bool", {"low": 0, "high": 1, "exclude_zero": True}),
    "requires_grad int": ((2,), "int64", {"requires_grad": True}),
    "requires_grad bool": ((2,), "bool", {"requires_grad": True}),
    "low >= high": ((2,), "float32", {"low": 5, "high": 1}),
    "low == high int": ((2,), "int32", {"low": 1, "high": 1}),
    "low == high float": ((2,), "float32", {"low": 1.5, "high": 1.5}),
    "nan low": ((2,), "float32", {"low": math.nan}),
    "nan high": ((2,), "float64", {"high": math.nan}),
    "interval below uint8": ((2,), "uint8", {"low": -20, "high": -10}),
    "interval above int8": ((2,), "int8", {"low": 300, "high": 400}),
    "interval above bool": ((2,), "bool", {"low": 2, "high": 3}),
    "interval below float16": ((2,), "float16", {"low": -1e10, "high": -1e9}),
    "int bounds rounded up": ((50,), "int64", {"low": -2.5, "high": 1.5}),
}


def _range_of(t: Any) -> tuple[Any, ...]:
    a = t.detach().numpy()
    return (a.min(), a.max()) if a.size and a.dtype.kind in "biu" else ()


@pytest.mark.parametrize("name", sorted(MAKE_CASES))
def test_make_tensor_matches_torch(name: str) -> None:
    shape, dtype, kwargs = MAKE_CASES[name]
    ours, our_error, our_warnings = _make(tensorlib, *shape, dtype=dtype, **kwargs)
    theirs, their_error, their_warnings = _make(torch, *shape, dtype=dtype, **kwargs)
    assert our_error == their_error
    assert our_warnings == their_warnings
    if theirs is None:
        return
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert repr(ours.dtype) == repr(theirs.dtype).replace("torch.", "tensorlib.")
    assert ours.requires_grad == theirs.requires_grad and ours.is_leaf == theirs.is_leaf
    assert ours.is_contiguous() == theirs.is_contiguous()
    if kwargs.get("exclude_zero") or name == "int bounds rounded up":
        assert _range_of(ours) == _range_of(theirs)


def test_make_tensor_mutually_exclusive_flags() -> None:
    ours = _outcome(lambda: tensorlib.testing.make_tensor(2, dtype=tensorlib.float32, device="cpu",
                                                          noncontiguous=True, memory_format="channels_last"))
    theirs = _outcome(lambda: torch.testing.make_tensor(2, dtype=torch.float32, device="cpu", noncontiguous=True,
                                                        memory_format=torch.channels_last))
    assert ours is not None and theirs is not None
    assert ours[0] == theirs[0]
    assert ours[1].split(" and memory_format=")[0] == theirs[1].split(" and memory_format=")[0]
