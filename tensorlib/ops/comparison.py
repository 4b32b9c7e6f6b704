"""Comparisons, logic and bitwise ops, and value tests: eq/lt/..., logical_*, bitwise_*, isnan/isinf/isclose,
equal, nan_to_num.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .._registry import op
from .._tensor import Tensor
from ._pointwise import _apply2, _arr, _finish
from ._util import binary_arrays, float_arg, not_implemented, number_input, tensor_arg, wrap, write_out_exact

# -- comparisons and logic (never differentiable) ----------------------------------------


def _compare(name: str, np_fn: Any, doc: str) -> Callable:
    ordered = name not in ("eq", "ne")

    def fn(input: Tensor, other: Any, *, out: Tensor | None = None) -> Tensor:
        x = tensor_arg(input, name)
        a, b = binary_arrays(x, other, name)
        if ordered and a.dtype.kind == "c":
            raise not_implemented(name + "_cpu", a.dtype)
        return _finish(wrap(_apply2(np_fn, a, b)), out, name)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    fn.__module__ = __name__
    return fn


# their in-place forms (``eq_``, ...) record a zero gradient: see tensorlib._methods
eq = op(variants="function method")(_compare("eq", np.equal, "Elementwise ``input == other`` as a bool tensor."))
ne = op(variants="function method", aliases=("not_equal",))(
    _compare("ne", np.not_equal, "Elementwise ``input != other`` as a bool tensor.")
)
lt = op(variants="function method", aliases=("less",))(
    _compare("lt", np.less, "Elementwise ``input < other`` as a bool tensor.")
)
le = op(variants="function method", aliases=("less_equal",))(
    _compare("le", np.less_equal, "Elementwise ``input <= other`` as a bool tensor.")
)
gt = op(variants="function method", aliases=("greater",))(
    _compare("gt", np.greater, "Elementwise ``input > other`` as a bool tensor.")
)
ge = op(variants="function method", aliases=("greater_equal",))(
    _compare("ge", np.greater_equal, "Elementwise ``input >= other`` as a bool tensor.")
)


def _logical(name: str, np_fn: Any, doc: str) -> Callable:
    def fn(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
        x = tensor_arg(input, name)
        o = tensor_arg(other, name, "other", 2)
        return _finish(wrap(_apply2(np_fn, x._data, o._data)), out, name)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    fn.__module__ = __name__
    return fn


_bitwise_op = op(variants="function method", inplace="method")
logical_and = _bitwise_op(_logical("logical_and", np.logical_and, "Elementwise logical AND (nonzero is true)."))
logical_or = _bitwise_op(_logical("logical_or", np.logical_or, "Elementwise logical OR (nonzero is true)."))
logical_xor = _bitwise_op(_logical("logical_xor", np.logical_xor, "Elementwise logical XOR (nonzero is true)."))


@op(variants="function method", inplace="method")
def logical_not(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Elementwise logical NOT (nonzero is true)."""
    x = tensor_arg(input, "logical_not")
    return _finish(wrap(_arr(np.logical_not(x._data))), out, "logical_not")


def _bitwise(name: str, np_fn: Any, doc: str) -> Callable:
    def fn(input: Tensor, other: Any, *, out: Tensor | None = None) -> Tensor:
        x = input if isinstance(input, Tensor) else number_input(input, other, name)
        a, b = binary_arrays(x, other, name)
        if a.dtype.kind not in "biu":
            raise not_implemented(name + "_cpu", a.dtype)
        return _finish(wrap(_apply2(np_fn, a, b)), out, name)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    fn.__module__ = __name__
    return fn


def _shift(name: str, np_fn: Any, kernel: str, doc: str) -> Callable:
    def fn(input: Tensor, other: Any, *, out: Tensor | None = None) -> Tensor:
        x = input if isinstance(input, Tensor) else number_input(input, other, name)
        a, b = binary_arrays(x, other, name)
        if a.dtype.kind not in "iu":
            raise not_implemented(kernel, a.dtype)
        # shifting by the width or more gives 0 (or -1 for negative values shifted right), as in C
        bits = a.dtype.itemsize * 8
        big = np.asarray(b) >= bits
        r = _apply2(np_fn, a, np.where(big, bits - 1, b).astype(a.dtype) if np.any(big) else b)
        if np.any(big):
            r = np.where(big, (np.where(a < 0, -1, 0) if np_fn is np.right_shift else 0), r).astype(a.dtype)
        return _finish(wrap(_arr(r)), out, name)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    fn.__module__ = __name__
    return fn


bitwise_left_shift = _bitwise_op(
    _shift("bitwise_left_shift", np.left_shift, "lshift_cpu", "Elementwise ``input << other``.")
)
bitwise_right_shift = _bitwise_op(
    _shift("bitwise_right_shift", np.right_shift, "rshift_cpu", "Elementwise ``input >> other``.")
)
bitwise_and = _bitwise_op(_bitwise("bitwise_and", np.bitwise_and, "Elementwise bitwise AND of integer or bool tensors."))
bitwise_or = _bitwise_op(_bitwise("bitwise_or", np.bitwise_or, "Elementwise bitwise OR of integer or bool tensors."))
bitwise_xor = _bitwise_op(_bitwise("bitwise_xor", np.bitwise_xor, "Elementwise bitwise XOR of integer or bool tensors."))


@op(variants="function method", inplace="method")
def bitwise_not(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Elementwise bitwise NOT of an integer or bool tensor."""
    x = tensor_arg(input, "bitwise_not")
    if x._data.dtype.kind not in "biu":
        raise not_implemented("bitwise_not_cpu", x._data.dtype)
    r = wrap(_arr(np.invert(x._data)))
    return r if out is None else write_out_exact(out, r, "bitwise_not")


@op(variants="function method")
def isnan(input: Tensor) -> Tensor:
    """Elementwise test for NaN."""
    return wrap(_arr(np.isnan(tensor_arg(input, "isnan")._data)))


@op(variants="function method")
def isinf(input: Tensor) -> Tensor:
    """Elementwise test for positive or negative infinity."""
    return wrap(_arr(np.isinf(tensor_arg(input, "isinf")._data)))


@op(variants="function method")
def isfinite(input: Tensor) -> Tensor:
    """Elementwise test for finite values."""
    return wrap(_arr(np.isfinite(tensor_arg(input, "isfinite")._data)))


@op(variants="function method")
def isposinf(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Elementwise test for positive infinity."""
    a = tensor_arg(input, "isposinf")._data
    if a.dtype.kind == "c":
        raise RuntimeError("isposinf does not support complex inputs.")
    if isinstance(out, Tensor) and out._data.dtype != np.bool_:
        raise RuntimeError("isposinf does not support non-boolean outputs.")
    return _finish(wrap(_arr(np.isposinf(a))), out, "isposinf")


@op(variants="function method")
def isneginf(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Elementwise test for negative infinity."""
    a = tensor_arg(input, "isneginf")._data
    if a.dtype.kind == "c":
        raise RuntimeError("isneginf does not support complex inputs.")
    if isinstance(out, Tensor) and out._data.dtype != np.bool_:
        raise RuntimeError("isneginf does not support non-boolean outputs.")
    return _finish(wrap(_arr(np.isneginf(a))), out, "isneginf")


@op(variants="function method")
def isclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> Tensor:
    """Elementwise ``|input - other| <= atol + rtol * |other|``."""
    x = tensor_arg(input, "isclose")
    y = tensor_arg(other, "isclose", "other", 2)
    rtol, atol = float_arg(rtol, "isclose", "rtol"), float_arg(atol, "isclose", "atol")
    if x._data.dtype != y._data.dtype:
        raise RuntimeError(f"{x.dtype!r} did not match {y.dtype!r}")
    for name, tol in (("rtol", rtol), ("atol", atol)):
        if not tol >= 0:  # NaN too
            raise RuntimeError(f"{name} must be greater than or equal to zero, but got {tol:g}")
    return wrap(_arr(_apply2(lambda a, b: np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan), x._data,
                             y._data)))


@op(variants="function method")
def allclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> bool:
    """Whether every element satisfies :func:`isclose`."""
    return bool(isclose(input, other, rtol, atol, equal_nan)._data.all())


@op(variants="function method")
def equal(input: Tensor, other: Tensor) -> bool:
    """True if both tensors have the same shape and elements."""
    x = tensor_arg(input, "equal")
    y = tensor_arg(other, "equal", "other", 2)
    a, b = x._data, y._data
    return a.shape == b.shape and bool(np.array_equal(a, b))
