"""What every op needs: argument checks, type promotion, recording a node, ``out=``."""

from __future__ import annotations

import math
import re
import warnings
from typing import Any, Sequence

import numpy as np

from .. import _dtype
from .._accelerator import accel
from .._autograd.engine import edge
from .._autograd.grad_mode import STATE as GRAD
from .._autograd.graph import Node, SavedTensor
from .._dtype import FROM_NP, PROMOTE
from .._protocol import protocol
from .._tensor import Tensor, _new, _wrap, bump_version, wrap_dim
from ._kernels import clip_ufunc  # noqa: F401 - the ops take it from here

__all__ = [
    "GRAD",
    "Node",
    "Tensor",
    "as_tensor_arg",
    "binary_arrays",
    "broadcast_error",
    "bump_version",
    "check_inplace",
    "float_array",
    "record",
    "scalar_or_tensor",
    "tensor_arg",
    "wrap",
    "write_out",
]

wrap = _wrap

# What backward nodes keep (the annotations of their slots):
Meta = tuple[tuple[int, ...], np.dtype]
"""An operand's ``(shape, dtype)``: what its gradient must match (see ``_pointwise._meta``)."""
Operand = SavedTensor | complex | np.generic
"""A binary op's saved operand: a tensor (saved for backward) or a scalar kept by value (see ``_pointwise._save``)."""

# NumPy's floating point warnings (log(0), 0/0, overflow) are not torch's behaviour: results are inf/nan quietly.
# Raised anywhere in tensorlib, or in the operators' dispatch wrappers (whose inline paths call NumPy's ufuncs).
# Filtering by module costs nothing until one is raised.
warnings.filterwarnings("ignore", category=RuntimeWarning,
                        module=rf"tensorlib\.|{re.escape(protocol.wrapper_module)}$")

_SCALARS = (int, float, bool, complex)
_pybool = type(True)


def tensor_arg(x: Any, fname: str, argname: str = "input", pos: int = 1) -> Tensor:
    """``x`` if it is a Tensor, else torch's TypeError naming the function and argument."""
    if isinstance(x, Tensor):
        return x
    raise TypeError(f"{fname}(): argument '{argname}' (position {pos}) must be Tensor, not {type(x).__name__}")


_TITLES = {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long", "int32": "Int",
           "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool", "complex64": "ComplexFloat",
           "complex128": "ComplexDouble"}


def type_title(npdt: np.dtype) -> str:
    """torch's C++ name of a dtype, as its error messages spell it (``Float``, ``Long``, ...)."""
    return _TITLES[FROM_NP[npdt].name]


def not_implemented(kernel: str, npdt: np.dtype) -> NotImplementedError:
    """torch's error for a kernel that has no implementation for a dtype."""
    return NotImplementedError(f'"{kernel}" not implemented for \'{type_title(npdt)}\'')


def real_only(kernel: str, *tensors: Any) -> None:
    """torch's NotImplementedError when an op without complex kernels gets a complex tensor."""
    for t in tensors:
        if isinstance(t, Tensor) and t._data.dtype.kind == "c":
            raise not_implemented(kernel, t._data.dtype)


def float_only(kernel: str, *tensors: Any) -> None:
    """torch's NotImplementedError when an op with floating-point kernels only gets another dtype."""
    for t in tensors:
        if isinstance(t, Tensor) and t._data.dtype.kind != "f":
            raise not_implemented(kernel, t._data.dtype)


_CPP_INT_NAMES = {"uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int", "int64": "int64_t"}


def fit_scalar(value: Any, npdt: np.dtype) -> Any:
    """A Python number converted for writing into ``npdt``, with torch's checked conversion of scalars.

    Integers into integer types: signed types take their range; unsigned ones also take negatives down to
    ``-2**bits`` (they wrap around, ``-1`` into ``uint8`` is 255). Floats into integer types must lie in the type's
    range (unsigned: from 0) and are truncated; finite floats into float32 must not overflow; a complex number into
    a real type must have no imaginary part. Anything else is torch's "value cannot be converted" error. Bool and
    complex types take any number.
    """
    kind = npdt.kind
    if kind in "bc":
        return value
    if isinstance(value, (complex, np.complexfloating)):
        if value.imag != 0:
            raise _overflow(npdt)
        value = float(value.real)
    if type(value) is int and kind in "iu":
        info = np.iinfo(npdt)
        lo = -(int(info.max) + 1) if info.min == 0 else int(info.min)
        if not lo <= value <= info.max:
            raise _overflow(npdt)
        return value % (int(info.max) + 1) if value < 0 and info.min == 0 else value
    if isinstance(value, (float, np.floating)):
        if kind in "iu":
            info = np.iinfo(npdt)
            if not int(info.min) <= value <= float(info.max):  # NaN fails both comparisons
                raise _overflow(npdt)
            whole = int(value)
            # int64's maximum rounds up to 2**63 as a float, which wraps to the minimum as in torch
            return whole if whole <= info.max else whole - 2 * (int(info.max) + 1)
        if npdt == np.float32 and math.isfinite(value) and abs(value) > float(np.finfo(np.float32).max):
            raise _overflow(npdt)
    return value


_CPP_FLOAT_NAMES = {"float16": "c10::Half", "float32": "float", "float64": "double"}


def _overflow(npdt: np.dtype) -> RuntimeError:
    name = _CPP_INT_NAMES.get(npdt.name) or _CPP_FLOAT_NAMES.get(npdt.name, npdt.name)
    return RuntimeError(f"value cannot be converted to type {name} without overflow")


def no_half(kernel: str, *tensors: Any) -> None:
    """torch's NotImplementedError for a half-precision tensor given to an op without half kernels."""
    for t in tensors:
        if isinstance(t, Tensor) and t._data.dtype == np.float16:
            raise not_implemented(kernel, t._data.dtype)


def no_complex_grad(name: str, *tensors: Any) -> None:
    """torch's error when an op without complex gradients gets a complex tensor that requires grad."""
    if GRAD.enabled:
        for t in tensors:
            if isinstance(t, Tensor) and t._requires_grad and t._data.dtype.kind == "c":
                raise RuntimeError(f"{name} does not support automatic differentiation for outputs with complex "
                                   "dtype.")


_NUMBERS = (int, float, complex, np.number, np.bool_)


def number_input(x: Any, other: Any, fname: str, numbers: bool = False) -> Tensor:
    """A Python number given as ``input`` of a binary op, as a 0-dim tensor.

    torch accepts ``add(2, t)``: the number keeps a Python scalar's low priority in
    type promotion, so it becomes a 0-dim tensor of the result dtype. With
    ``numbers``, two numbers are accepted too (``add(1, 2)`` is a tensor).
    """
    if isinstance(x, _NUMBERS):
        if type(x) is int:
            _int_scalar(x)
        if isinstance(other, Tensor):
            return _wrap(np.array(x).astype(result_dtype(other, x).np))
        if numbers and isinstance(other, _NUMBERS):
            return _wrap(np.array(x).astype(_dtype.scalar_dtype(x).np))
    return tensor_arg(x, fname)


def scalar_or_tensor(x: Any, fname: str, argname: str, pos: int) -> Any:
    if isinstance(x, (Tensor, int, float, complex, np.number, np.bool_)):
        return x
    raise TypeError(f"{fname}(): argument '{argname}' (position {pos}) must be Tensor or Number, not {type(x).__name__}")


def as_tensor_arg(x: Any, like: Tensor) -> Tensor:
    """A tensor for ``x``: tensors pass through, scalars become 0-dim tensors of ``like``'s promoted type."""
    if isinstance(x, Tensor):
        return x
    dt = result_dtype(like, x)
    return _wrap(np.asarray(x, dtype=dt.np))


def result_dtype(a: Any, b: Any) -> _dtype.dtype:
    """torch's result dtype of a binary op between tensors and/or Python scalars."""
    dims: list[_dtype.dtype] = []
    zeros: list[_dtype.dtype] = []
    scalars: list[Any] = []
    for v in (a, b):
        if isinstance(v, Tensor):
            (dims if v._data.ndim else zeros).append(FROM_NP[v._data.dtype])
        else:
            scalars.append(v)
    return _dtype.result_type_of(dims, zeros, scalars)


def _scalar_kind(v: Any) -> str:
    t = type(v)
    if t is float:
        return "f"
    if t is int:
        return "i"
    if t is _pybool:
        return "b"
    if t is complex:
        return "c"
    if isinstance(v, (np.bool_,)):
        return "b"
    if isinstance(v, (int, np.integer)):
        return "i"
    if isinstance(v, (float, np.floating)):
        return "f"
    if isinstance(v, (complex, np.complexfloating)):
        return "c"
    raise TypeError(f"unsupported operand type {type(v).__name__}")


# Python scalar type -> the array kinds it combines with without changing the
# array's dtype (NumPy's weak scalars then give torch's result dtype directly).
_DIRECT = {float: "fc", int: "iufc", _pybool: "biufc", complex: "c"}
_INT_BOUNDS = {np.dtype(t): (np.iinfo(t).min, np.iinfo(t).max) for t in (np.int8, np.int16, np.int32, np.int64, np.uint8)}


def binary_arrays(x: Tensor, y: Any, fname: str) -> tuple[np.ndarray, Any]:
    """The operands of a binary op as NumPy values that compute in torch's result dtype.

    The common cases (same dtype, or a Python scalar of the tensor's category)
    return at once; only mixed-dtype operands are cast.
    """
    a = x._data
    ty = type(y)
    if ty is Tensor:
        b = y._data
        if a.dtype is b.dtype:
            return a, b
    elif ty is float:
        if a.dtype.kind in "fc":
            return a, y
    elif ty is int:
        kind = a.dtype.kind
        if kind in "fc" and -9223372036854775808 <= y < 18446744073709551616:
            return a, y
        if kind in "iu":
            lo, hi = _INT_BOUNDS[a.dtype]
            if not lo <= y <= hi:
                # torch wraps the scalar into the tensor's type; NumPy would refuse it.
                y = np.array(_int_scalar(y)).astype(a.dtype).item()
            return a, y
    return _binary_arrays_slow(x, y, fname)


def _int_scalar(v: int) -> int:
    """``v``, a Python int torch converts into a scalar (int64 or uint64), else torch's OverflowError."""
    if not -9223372036854775808 <= v < 18446744073709551616:
        raise OverflowError("int too big to convert")
    return v


def int_arg(v: Any, fname: str, argname: str, pos: int | None = None) -> int:
    """An int argument checked as torch's argument parser does (an integer 0-d tensor taken, bool refused).

    Beyond int64 it is torch's "Overflow when unpacking long long" ValueError.
    """
    if type(v) is not int:
        if isinstance(v, bool) or not (isinstance(v, (int, np.integer)) or (
            isinstance(v, Tensor) and v._data.ndim == 0 and v._data.dtype.kind in "iu"
        )):
            where = f" (position {pos})" if pos is not None else ""
            raise TypeError(f"{fname}(): argument '{argname}'{where} must be int, not {type(v).__name__}")
        v = int(v)
    if not -9223372036854775808 <= v < 9223372036854775808:
        raise ValueError("Overflow when unpacking long long")
    return v


def float_arg(v: Any, fname: str, argname: str, pos: int | None = None) -> float:
    """A float argument checked as torch's argument parser does (numbers and 0-d tensors taken, complex refused)."""
    if type(v) is float:
        return v
    if isinstance(v, (int, float, np.integer, np.floating, np.bool_)):
        return float(v)  # an int beyond float's range: Python's OverflowError, as torch
    if isinstance(v, Tensor) and v._data.ndim == 0:
        x = v._data.item()
        if isinstance(x, complex):
            if x.imag:
                raise RuntimeError("value cannot be converted to type double without overflow")
            x = x.real
        return float(x)
    where = f" (position {pos})" if pos is not None else ""
    raise TypeError(f"{fname}(): argument '{argname}'{where} must be float, not {type(v).__name__}")


def int_list_arg(v: Sequence[Any], fname: str, argname: str, pos: int | None = None) -> list[int]:
    """The elements of an ``int[]`` argument (ints, NumPy integers, integer 0-d tensors), checked as torch does."""
    out = []
    for i, e in enumerate(v):
        if type(e) is not int:
            if isinstance(e, bool) or not (isinstance(e, (int, np.integer)) or (
                isinstance(e, Tensor) and e._data.ndim == 0 and e._data.dtype.kind in "iu"
            )):
                where = f" (position {pos})" if pos is not None else ""
                raise TypeError(f"{fname}(): argument '{argname}'{where} must be tuple of ints, but found element of "
                                f"type {type(e).__name__} at pos {i}")
            e = int(e)
        if not -9223372036854775808 <= e < 9223372036854775808:
            raise TypeError(f"{fname}(): argument '{argname}' failed to unpack the object at pos {i + 1} with error "
                            "\"Overflow when unpacking long long\"")
        out.append(e)
    return out


def _binary_arrays_slow(x: Tensor, y: Any, fname: str) -> tuple[np.ndarray, Any]:
    a = x._data
    if isinstance(y, Tensor):
        b = y._data
        if a.dtype is b.dtype:
            return a, b
        rd = result_dtype(x, y).np
        return (a if a.dtype is rd else a.astype(rd)), (b if b.dtype is rd else b.astype(rd))
    ty = type(y)
    kinds = _DIRECT.get(ty)
    if kinds is not None:
        if ty is int:
            _int_scalar(y)
        if a.dtype.kind in kinds and ty is not int:
            return a, y
        if ty is int and a.dtype.kind in "iufc":
            return binary_arrays(x, y, fname)
        return a.astype(result_dtype(x, y).np), y
    try:
        _scalar_kind(y)
    except TypeError:
        raise TypeError(
            f"{fname}(): argument 'other' must be Tensor or Number, not {type(y).__name__}"
        ) from None
    return binary_arrays(x, y.item(), fname)


def broadcast_error(*operands: Any) -> RuntimeError:
    """torch's message for operands (arrays, scalars or shapes) that do not broadcast: the first failing pair."""
    shapes = [tuple(o) if isinstance(o, tuple) else np.shape(o) for o in operands]
    acc = shapes[0]
    for s in shapes[1:]:
        try:
            acc = np.broadcast_shapes(acc, s)
        except ValueError:
            return _pair_error(acc, s)
    return RuntimeError(f"shapes {[list(s) for s in shapes]} cannot be broadcast together")


def _pair_error(sa: tuple, sb: tuple) -> RuntimeError:
    for i in range(1, max(len(sa), len(sb)) + 1):
        da = sa[-i] if i <= len(sa) else 1
        db = sb[-i] if i <= len(sb) else 1
        if da != db and da != 1 and db != 1:
            dim = max(len(sa), len(sb)) - i
            return RuntimeError(
                f"The size of tensor a ({da}) must match the size of tensor b ({db}) at non-singleton dimension {dim}"
            )
    return RuntimeError(f"shapes {list(sa)} and {list(sb)} cannot be broadcast together")


def float_array(a: np.ndarray) -> np.ndarray:
    """``a`` itself if floating or complex, else cast to the default float dtype (torch's int -> float ops)."""
    if a.dtype.kind in "fc":
        return a
    return a.astype(_dtype.DEFAULT.np_float)


_DTYPES_OF_KINDS: dict[str, frozenset] = {}


def dtypes_of(kinds: str) -> frozenset:
    """NumPy's native dtypes of the given kinds (as a set: a lookup is cheaper than reading ``dtype.kind``)."""
    found = _DTYPES_OF_KINDS.get(kinds)
    if found is None:
        found = _DTYPES_OF_KINDS[kinds] = frozenset(
            np.dtype(c) for c in np.typecodes["All"] if np.dtype(c).kind in kinds
        )
    return found


_NO_EDGE = (None, 0)


def record(node_cls: type, data: np.ndarray, inputs: Sequence[Any]) -> tuple[Tensor, Any]:
    """Wrap ``data`` as the output of a new ``node_cls`` node with edges to ``inputs``.

    Returns ``(output, node)`` so the caller can attach what backward needs.
    Non-Tensor or non-differentiable inputs get an empty edge.
    ``record`` in tensorlib/_accel.c is its compiled twin: change both together.
    """
    # new_node and _wrap inlined: this runs for every recorded op
    node: Node = _new(node_cls)
    n = len(inputs)
    if n == 2:  # most ops; spelled out, as a comprehension costs a frame
        a, b = inputs
        node.next_functions = (
            edge(a) if isinstance(a, Tensor) and a._requires_grad else _NO_EDGE,
            edge(b) if isinstance(b, Tensor) and b._requires_grad else _NO_EDGE,
        )
    elif n == 1:
        a = inputs[0]
        node.next_functions = (edge(a) if isinstance(a, Tensor) and a._requires_grad else _NO_EDGE,)
    else:
        node.next_functions = tuple([edge(t) if isinstance(t, Tensor) and t._requires_grad else _NO_EDGE
                                     for t in inputs])
    node._freed = False
    node._hooks = None
    out = _new(Tensor)
    out._data = data
    out._size = None
    out._grad_fn = node
    out._requires_grad = True
    out._vc = None
    out._base = None
    out._view_version = None
    return out, node


record_python = record  # the reference the compiled twin is tested against
if accel is not None:  # the compiled twin (see tensorlib._accelerator)
    accel.setup_record(Node, edge, _NO_EDGE)
    record = accel.record


def needs_grad(*tensors: Any) -> bool:
    """Whether an op on these operands must be recorded (grad mode on and some input requires grad)."""
    for t in tensors:
        if isinstance(t, Tensor) and t._requires_grad:
            return GRAD.enabled
    return False


def check_inplace(t: Tensor, fname: str) -> None:
    """Refuse in-place changes that would corrupt the graph (a leaf that requires grad, or a view of one)."""
    if GRAD.enabled:
        if t._requires_grad and t._grad_fn is None:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
        base = t._base
        if base is not None and base._requires_grad and base._grad_fn is None:
            raise RuntimeError(
                "a view of a leaf Variable that requires grad is being used in an in-place operation."
            )


def writable(t: Tensor) -> np.ndarray:
    a = t._data
    if not a.flags.writeable:
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers to a single memory "
            "location. Please clone() the tensor before performing the operation."
        )
    return a


def write_out(out: Any, result: Tensor, fname: str) -> Tensor:
    """Store ``result`` into the ``out=`` tensor (resizing it if needed) and return ``out``."""
    if not isinstance(out, Tensor):
        raise TypeError(f"{fname}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if GRAD.enabled and (result._requires_grad or out._requires_grad):
        raise RuntimeError(
            f"{fname}(): functions with out=... arguments don't support automatic differentiation, "
            "but one of the arguments requires grad."
        )
    src = result._data
    if out._data.dtype != src.dtype:
        if not np.can_cast(src.dtype, out._data.dtype, casting="same_kind"):
            raise RuntimeError(
                f"result type {type_title(src.dtype)} can't be cast to the desired output type "
                f"{type_title(out._data.dtype)}"
            )
    if out._data.shape != src.shape:
        out._data = np.empty(src.shape, dtype=out._data.dtype)
        out._size = None
    else:
        writable(out)
    np.copyto(out._data, src, casting="unsafe")
    bump_version(out)
    return out


def write_out_exact(out: Any, result: Tensor, fname: str) -> Tensor:
    """:func:`write_out` for ops whose ``out=`` must have the result's dtype exactly (torch's unary ops that keep
    their input's dtype: abs, neg, floor, sign, ...)."""
    check_out_dtype(out, result._data.dtype)
    return write_out(out, result, fname)


def check_out_dtype(out: Any, npdt: np.dtype) -> None:
    """torch's error for an ``out=`` tensor whose dtype is not exactly ``npdt`` (None passes)."""
    if isinstance(out, Tensor) and out._data.dtype != npdt:
        raise RuntimeError(f"Found dtype {type_title(out._data.dtype)} but expected {type_title(npdt)}")


def write_outs(out: Any, result: tuple, fname: str) -> tuple:
    """``out=`` for ops returning a named tuple: fill each given tensor, return them in the result's type."""
    if not isinstance(out, (tuple, list)) or len(out) != len(result):
        raise TypeError(f"{fname}(): argument 'out' must be tuple of {len(result)} Tensors")
    return type(result)(*(write_out(o, r, fname) for o, r in zip(out, result)))


def normalize_dims(dim: Any, ndim: int) -> tuple[int, ...]:
    """A reduction's dim argument (int, sequence or None) as a sorted tuple of non-negative dims.

    None and an empty sequence mean every dim. A 0-dim tensor accepts dim 0 or -1
    and has no dims to reduce.
    """
    if type(dim) is int and 0 <= dim < ndim:  # the usual call: one valid, non-negative dim
        return (dim,)
    if dim is None or (isinstance(dim, (list, tuple)) and not dim):
        return tuple(range(ndim))
    if isinstance(dim, (list, tuple)):
        dims = tuple(wrap_dim(d, ndim) for d in dim)
        if len(set(dims)) != len(dims):
            raise RuntimeError(f"dim {dims[-1]} appears multiple times in the list of dims")
        return tuple(sorted(dims)) if ndim else ()
    d = wrap_dim(dim, ndim)
    return (d,) if ndim else ()


def promote_pair(a: _dtype.dtype, b: _dtype.dtype) -> _dtype.dtype:
    return PROMOTE[(a, b)]


def check_sortable(a: np.ndarray, fname: str) -> None:
    """torch's errors for sorting-based ops on dtypes without an order (complex; bool for some)."""
    kind = a.dtype.kind
    if kind == "c" or (kind == "b" and fname in ("median", "kthvalue", "topk")):
        if fname in ("sort", "topk"):
            name = "Sort" if fname == "sort" else fname
            raise RuntimeError(f"{'' if kind == 'b' else ' '}{name} does not support {'bool' if kind == 'b' else 'complex'} dtypes on CPU")
        raise not_implemented(fname + "_cpu", a.dtype)


WARNED: set[str] = set()  # the keys warn_once has warned under (a test may discard one to see its warning again)


def warn_once(key: str, message: str, stacklevel: int = 3) -> None:
    """Warn ``message`` once per process under ``key``, as torch's warnings issued once (TORCH_WARN_ONCE) do."""
    if key not in WARNED:
        WARNED.add(key)
        warnings.warn(message, UserWarning, stacklevel=stacklevel)
