"""Tensor creation: from data, filled, ranges, random; and the random generator."""

from __future__ import annotations

import math
import pickle
import warnings
from typing import Any, Sequence

import numpy as np

from .. import _dtype
from .._layout import check_layout
from .._dtype import FROM_NP, dtype as DType
from .._registry import op, public
from .._size import Size
from .._memory_format import check_memory_format, check_rank, contiguous_format, memory_format, preserve_format
from .._tensor import _CPP_NAMES, _CPU, Tensor, _wrap, bump_version, check_device, device as _device
from ._util import (broadcast_error, check_inplace, fit_scalar, int_arg, not_implemented, tensor_arg, type_title,
                    writable, write_out)
from .conversion import to_dtype

_pybool = type(True)


# -- random generator ---------------------------------------------------------------------


@public()
class Generator:
    """A source of random numbers (a seeded NumPy ``PCG64`` stream)."""
    def __init__(self, device: Any = "cpu") -> None:
        if _device(device).type != "cpu":
            raise RuntimeError(f"tensorlib has no {_device(device).type} generator: only the CPU exists")
        self._initial_seed = 67280421310721
        self._stream: np.random.Generator | None = None

    @property
    def _rng(self) -> np.random.Generator:
        """The NumPy stream, made on first use: importing ``numpy.random`` is a tenth of ``import tensorlib``."""
        stream = self._stream
        if stream is None:
            stream = self._stream = np.random.Generator(np.random.PCG64(self._initial_seed & 0xFFFF_FFFF_FFFF_FFFF))
        return stream

    def manual_seed(self, seed: int) -> "Generator":
        """Reseed; the same seed replays the same numbers."""
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
            raise TypeError(f"manual_seed expected an int, got {type(seed).__name__}")
        seed = int(seed)
        if not -0x8000_0000_0000_0000 <= seed <= 0xFFFF_FFFF_FFFF_FFFF:
            raise RuntimeError(f"Overflow when unpacking long: seed {seed} is out of range")
        self._initial_seed = seed
        self._stream = None  # the stream restarts from the new seed on next use
        return self

    def seed(self) -> int:
        """Reseed from the operating system's entropy and return the new seed."""
        entropy = np.random.SeedSequence().entropy
        assert isinstance(entropy, int)  # drawn from the OS (only a given entropy can be a sequence)
        s = entropy & 0xFFFF_FFFF_FFFF_FFFF
        self.manual_seed(s)
        return s

    def initial_seed(self) -> int:
        return self._initial_seed

    def get_state(self) -> Tensor:
        """The generator state as a uint8 tensor (for ``set_state``)."""

        return _wrap(np.frombuffer(pickle.dumps(self._rng.bit_generator.state), dtype=np.uint8).copy())

    def set_state(self, new_state: Tensor) -> "Generator":

        self._rng.bit_generator.state = pickle.loads(tensor_arg(new_state, "set_state", "new_state")._data.tobytes())
        return self

    @property
    def device(self) -> _device:
        return _device("cpu")


default_generator = Generator()


def _rng(generator: Generator | None) -> np.random.Generator:
    return (generator if generator is not None else default_generator)._rng


@public()
def manual_seed(seed: int) -> Generator:
    """Seed the default generator: the same seed gives the same random tensors."""
    return default_generator.manual_seed(seed)


@public()
def seed() -> int:
    """Seed the default generator non-deterministically and return the seed."""
    return default_generator.seed()


@public()
def initial_seed() -> int:
    """The seed the default generator was last seeded with."""
    return default_generator.initial_seed()


@public()
def get_rng_state() -> Tensor:
    """The default generator's state."""
    return default_generator.get_state()


@public()
def set_rng_state(new_state: Tensor) -> None:
    """Restore the default generator's state."""
    default_generator.set_state(new_state)


# -- from data -------------------------------------------------------------------------------


def _infer_np_dtype(a: np.ndarray, from_python: bool) -> np.dtype:
    kind = a.dtype.kind
    if kind == "b":
        return np.dtype(np.bool_)
    if kind in "iu":
        if not from_python and a.dtype in FROM_NP:
            return a.dtype
        return np.dtype(np.int64)
    if kind == "f":
        if not from_python and a.dtype in FROM_NP:
            return a.dtype
        return _dtype.DEFAULT.np_float
    if kind == "c":
        if not from_python and a.dtype in FROM_NP:
            return a.dtype
        return _dtype.DEFAULT.complex.np
    raise TypeError(f"can't convert np.ndarray of type numpy.{a.dtype}. The only supported types are: "
                    "float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint8, and bool.")


_PY_NUMBERS = frozenset({float, int, bool, complex})


def _scan(data: Any) -> bool:
    """Check that nested ``data`` holds only numbers, arrays and tensors (else torch's error), and tell whether a
    list or tuple in it holds a tensor. Python numbers, most of the elements of a big list, cost no call."""
    if isinstance(data, (str, bytes)):
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    if isinstance(data, (list, tuple, range)):
        found = False
        for e in data:
            if type(e) not in _PY_NUMBERS and _scan(e):
                found = True
        return found and not isinstance(data, range)
    if isinstance(data, Tensor):
        return True
    if not isinstance(data, (int, float, complex, np.number, np.bool_, np.ndarray)) and not hasattr(data, "__array__"):
        raise RuntimeError(f"Could not infer dtype of {type(data).__name__}")
    return False


def _ragged_error(data: Any) -> ValueError:
    def walk(x: Any, dim: int) -> ValueError | None:
        if not isinstance(x, (list, tuple)) or not x:
            return None
        lens = [len(e) if isinstance(e, (list, tuple)) else None for e in x]
        first = lens[0]
        for ln in lens:
            if ln != first:
                return ValueError(
                    f"expected sequence of length {first} at dim {dim + 1} (got {ln})"
                    if ln is not None and first is not None
                    else f"expected sequence of length {first} at dim {dim + 1} (got {ln})"
                )
        for e in x:
            err = walk(e, dim + 1)
            if err:
                return err
        return None

    return walk(data, 0) or ValueError("tensor data is ragged")


def _check_first_text(data: Any) -> None:
    """torch's error when a sequence's first elements lead to text: it reads a string's first character as its first
    element, and the next one's, dimension after dimension, until there are too many."""
    first = data
    while isinstance(first, (list, tuple)) and first:
        first = first[0]
    if first is not data and isinstance(first, str) and first:
        raise ValueError(f"too many dimensions '{type(first).__name__}'")


def array_from_data(data: Any, dtype: DType | None) -> np.ndarray:
    """A fresh NumPy array holding ``data`` with torch's dtype inference (or ``dtype``)."""
    if isinstance(data, Tensor):
        a = data._data.copy()
        return a if dtype is None else a.astype(dtype.np)
    if isinstance(data, np.ndarray):
        if dtype is not None:
            return np.array(data, dtype=dtype.np)
        return np.array(data, dtype=_infer_np_dtype(data, False))
    try:
        holds_tensor = _scan(data)
    except TypeError:
        _check_first_text(data)
        raise
    from_python = True
    if isinstance(data, (np.number, np.bool_)):
        from_python = False
    if holds_tensor:
        data = _tensors_to_arrays(data)
    try:
        a = np.array(data)
    except ValueError:
        raise _ragged_error(data) from None
    except OverflowError:
        raise ValueError("Overflow when unpacking long long") from None
    dt = a.dtype
    if dt is _OBJECT or (from_python and dt.kind == "u"):  # Python ints beyond int64 (uint64, or objects)
        a = _wide_ints(a, data, dtype)
    elif dt is _FLOAT64 and from_python and type(_first_scalar(data)) is not float and a.size \
            and not (dtype is not None and dtype.np.kind in "fcb") and np.abs(a).max() >= 9223372036854775808.0 \
            and _only_ints(data):
        raise ValueError("Overflow when unpacking long long")  # NumPy made floats of ints int64 cannot hold
    if dtype is not None:
        if a.dtype.kind == "c" and dtype.np.kind != "c":
            raise TypeError(f"can't convert complex to {dtype.name}")
        if from_python and dtype.np.kind in "iu" and a.dtype != dtype.np and a.size:
            _check_range(a, dtype)
        return a.astype(dtype.np)
    return a.astype(_infer_np_dtype(a, from_python), copy=False)


_OBJECT, _FLOAT64 = np.dtype(object), np.dtype(np.float64)


def _wide_ints(a: np.ndarray, data: Any, dtype: DType | None) -> np.ndarray:
    """Python ints beyond int64 (NumPy made them uint64 or objects): floats where another element or ``dtype``
    is floating (as torch converts them one by one), else torch's overflow error."""
    flat = a.reshape(-1)
    if a.dtype == object and not all(isinstance(e, (int, float, complex, np.number, np.bool_)) for e in flat):
        raise _ragged_error(data)
    kind = dtype.np.kind if dtype is not None else None
    if kind == "b":
        return a.astype(np.bool_)
    if kind is None and a.dtype == object:
        kind = "c" if any(isinstance(e, complex) for e in flat) else "f" if any(
            isinstance(e, float) for e in flat) else None
    if kind == "c":
        return a.astype(np.complex128)
    if kind == "f":
        return a.astype(np.float64)
    raise ValueError("Overflow when unpacking long long")


def _first_scalar(data: Any) -> Any:
    while isinstance(data, (list, tuple)) and data:
        data = data[0]
    return data


def _only_ints(data: Any) -> bool:
    if isinstance(data, (list, tuple)):
        return all(_only_ints(e) for e in data)
    return isinstance(data, (int, np.integer, np.bool_))


def _check_range(a: np.ndarray, dtype: DType) -> None:
    """torch's checked conversion of Python numbers into an integer dtype (unsigned ones wrap negatives round)."""
    info = np.iinfo(dtype.np)
    lo = -(int(info.max) + 1) if info.min == 0 else int(info.min)
    if a.dtype.kind == "b":
        return
    low, high = a.min(), a.max()
    if not (lo <= low and high <= info.max):  # NaN fails both
        raise RuntimeError(f"value cannot be converted to type {dtype.name} without overflow")


def _tensors_to_arrays(data: Any) -> Any:
    """Tensors inside nested lists as Python values, by torch's rule: where a list starts with a tensor, its
    tensors are scalars (one element each); elsewhere a tensor is a nested sequence like any other."""
    out = []
    scalars = bool(data) and isinstance(data[0], Tensor)
    for e in data:
        if isinstance(e, Tensor):
            a = e._data
            if scalars or a.ndim == 0:
                if a.size != 1:
                    if a.dtype.kind in "biu":
                        raise TypeError("only integer tensors of a single element can be converted to an index")
                    raise ValueError("only one element tensors can be converted to Python scalars")
                out.append(a.reshape(()).item())
            else:
                out.append(a.tolist())
        elif isinstance(e, (list, tuple)):
            out.append(_tensors_to_arrays(e))
        else:
            out.append(e)
    return out


def _finish(a: np.ndarray, requires_grad: bool, device: Any = None) -> Tensor:
    check_device(device)  # None: the default device, which must be the CPU
    t = _wrap(a)
    if requires_grad:
        if a.dtype.kind not in "fc":
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        t._requires_grad = True
    return t


@op(dispatch="modes")
def tensor(data: Any, *, dtype: DType | None = None, device: Any = None, requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """A new tensor holding a copy of ``data`` (nested lists, scalars, arrays or tensors)."""
    _dtype_arg(dtype, "tensor")
    return _finish(array_from_data(data, dtype), requires_grad, device)


@op(dispatch="modes")
def as_tensor(data: Any, dtype: DType | None = None, device: Any = None) -> Tensor:
    """``data`` as a tensor, sharing memory with tensors and NumPy arrays when the dtype allows."""
    _dtype_arg(dtype, "as_tensor")
    if device is not None or not isinstance(data, (Tensor, np.ndarray)):
        check_device(device)
    if isinstance(data, Tensor):
        if dtype is None or data._data.dtype == dtype.np:
            return data

        return to_dtype(data, dtype)
    if isinstance(data, np.ndarray) and data.dtype in FROM_NP and (dtype is None or data.dtype == dtype.np):
        return _wrap(data.view(np.ndarray))  # a new array object: reshaping the caller's in place leaves ours be
    return _wrap(array_from_data(data, dtype))


@op(dispatch="modes")
def asarray(obj: Any, *, dtype: DType | None = None, device: Any = None, copy: bool | None = None, requires_grad: bool = False) -> Tensor:
    """Like :func:`as_tensor`; ``copy=True`` always copies, ``copy=False`` never does."""
    if copy:
        t = tensor(obj, dtype=dtype)
    else:
        t = as_tensor(obj, dtype=dtype, device=device)
        if copy is False and isinstance(obj, (Tensor, np.ndarray)) and np.asarray(obj).__array_interface__["data"][0] != t._data.__array_interface__["data"][0]:
            raise ValueError("asarray(): copy=False but a copy is needed")
    if requires_grad:
        t.requires_grad_(True)
    return t


@public()
def from_numpy(ndarray: np.ndarray) -> Tensor:
    """A tensor sharing memory with a NumPy array (changes to one show in the other)."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    if ndarray.dtype not in FROM_NP:
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{ndarray.dtype}. The only supported types are: float64, float32, "
            "float16, complex64, complex128, int64, int32, int16, int8, uint8, and bool."
        )
    return _wrap(ndarray.view(np.ndarray))  # a new array object: reshaping the caller's in place leaves ours be


@public()
def is_tensor(obj: Any) -> bool:
    """Whether ``obj`` is a tensorlib Tensor (or subclass)."""
    return isinstance(obj, Tensor)


@op()
def numel(input: Tensor) -> int:
    """The number of elements of ``input``."""
    return tensor_arg(input, "numel")._data.size


# -- filled ------------------------------------------------------------------------------------


def _dtype_arg(dtype: Any, fname: str) -> None:
    if dtype is not None and not isinstance(dtype, DType):
        raise TypeError(f"{fname}(): argument 'dtype' must be tensorlib.dtype, not {type(dtype).__name__}")


_INT64_MAX = 2**63 - 1


def parse_size(size: Sequence[Any], fname: str) -> tuple[int, ...]:
    """The shape given as ``*size`` (ints, or one tuple/list/Size of ints), checked, for errors naming ``fname``."""
    if len(size) == 1 and isinstance(size[0], (tuple, list, Size)):
        size = size[0]
    for s in size:  # the usual call: in-range, non-negative Python ints
        if type(s) is not int or not 0 <= s < 9223372036854775808:
            break
    else:
        if len(size) < 2 or math.prod(size) <= _INT64_MAX:
            return tuple(size)
    out = []
    for i, s in enumerate(size):
        if isinstance(s, Tensor):
            s = s.__index__()
        if isinstance(s, (_pybool, float)) or not hasattr(s, "__index__"):
            raise TypeError(
                f"{fname}(): argument 'size' must be tuple of ints, but found element of type "
                f"{type(s).__name__} at pos {i}"
            )
        n = s.__index__()
        if not -9223372036854775808 <= n < 9223372036854775808:
            raise TypeError(f"{fname}(): argument 'size' failed to unpack the object at pos {i + 1} with error "
                            "\"Overflow when unpacking long long\"")
        out.append(n)
    for n in out:
        if n < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: {out}")
    numel = 1
    for n in out:
        numel *= n
    if numel > _INT64_MAX:
        raise RuntimeError(f"Storage size calculation overflowed with sizes={out}")
    return tuple(out)


def _np_dtype(dtype: DType | None, default: Any = None) -> np.dtype:
    if dtype is not None:
        return dtype.np
    return default if default is not None else _dtype.DEFAULT.np_float


def _out_or(out: Any, t: Tensor, fname: str) -> Tensor:
    if out is None:
        return t
    return write_out(out, t, fname)


@op(dispatch="modes")
def zeros(*size: Any, out: Tensor | None = None, dtype: DType | None = None, layout: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """A tensor of zeros with shape ``size``."""
    check_layout(layout, "zeros")
    _dtype_arg(dtype, "zeros")
    return _out_or(out, _finish(np.zeros(parse_size(size, "zeros"), dtype=_np_dtype(dtype)), requires_grad, device), "zeros")


@op(dispatch="modes")
def ones(*size: Any, out: Tensor | None = None, dtype: DType | None = None, layout: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """A tensor of ones with shape ``size``."""
    check_layout(layout, "ones")
    _dtype_arg(dtype, "ones")
    return _out_or(out, _finish(np.ones(parse_size(size, "ones"), dtype=_np_dtype(dtype)), requires_grad, device), "ones")


@op(dispatch="modes")
def empty(*size: Any, out: Tensor | None = None, dtype: DType | None = None, layout: Any = None, device: Any = None, requires_grad: bool = False, memory_format: memory_format = contiguous_format) -> Tensor:
    """An uninitialised tensor with shape ``size``."""
    check_layout(layout, "empty")
    _dtype_arg(dtype, "empty")
    fmt = check_memory_format(memory_format, "empty")
    if fmt is preserve_format and memory_format is not None:
        raise RuntimeError("unsupported memory format Preserve")
    shape = parse_size(size, "empty")
    check_rank(fmt, len(shape))
    return _out_or(out, _finish(np.empty(shape, dtype=_np_dtype(dtype)), requires_grad, device), "empty")


def _fill_dtype(fill_value: Any) -> np.dtype:
    return _dtype.scalar_dtype(fill_value).np


@op(dispatch="modes")
def full(size: Any, fill_value: Any, *, out: Tensor | None = None, dtype: DType | None = None, layout: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """A tensor of shape ``size`` filled with ``fill_value`` (dtype inferred from it)."""
    check_layout(layout, "full")
    _dtype_arg(dtype, "full")
    shape = parse_size((size,) if not isinstance(size, (tuple, list, Size)) else (size,), "full")
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    if not isinstance(fill_value, (bool, int, float, complex, np.number, np.bool_)):
        raise TypeError(f"full(): argument 'fill_value' (position 2) must be Number, not {type(fill_value).__name__}")
    npdt = dtype.np if dtype is not None else _fill_dtype(fill_value)
    fill_value = fit_scalar(fill_value, np.dtype(npdt))
    return _out_or(out, _finish(np.full(shape, fill_value, dtype=npdt), requires_grad, device), "full")


def _like(input: Tensor, dtype: DType | None, fname: str, fmt: Any = None) -> tuple[tuple, np.dtype]:
    x = tensor_arg(input, fname)
    _dtype_arg(dtype, fname)
    check_rank(check_memory_format(fmt, fname), x._data.ndim)
    return x._data.shape, (dtype.np if dtype is not None else x._data.dtype)


@op()
def zeros_like(input: Tensor, *, dtype: DType | None = None, layout: Any = None, device: Any = None, requires_grad: bool = False, memory_format: memory_format | None = None) -> Tensor:
    """Zeros with ``input``'s shape (and dtype unless given)."""
    check_layout(layout, "zeros_like")
    shape, npdt = _like(input, dtype, "zeros_like", memory_format)
    return _finish(np.zeros(shape, dtype=npdt), requires_grad, _CPU if device is None else device)


@op()
def ones_like(input: Tensor, *, dtype: DType | None = None, layout: Any = None, device: Any = None, requires_grad: bool = False, memory_format: memory_format | None = None) -> Tensor:
    """Ones with ``input``'s shape (and dtype unless given)."""
    check_layout(layout, "ones_like")
    shape, npdt = _like(input, dtype, "ones_like", memory_format)
    return _finish(np.ones(shape, dtype=npdt), requires_grad, _CPU if device is None else device)


@op()
def empty_like(input: Tensor, *, dtype: DType | None = None, layout: Any = None, device: Any = None, requires_grad: bool = False, memory_format: memory_format | None = None) -> Tensor:
    """An uninitialised tensor with ``input``'s shape (and dtype unless given)."""
    check_layout(layout, "empty_like")
    shape, npdt = _like(input, dtype, "empty_like", memory_format)
    return _finish(np.empty(shape, dtype=npdt), requires_grad, _CPU if device is None else device)


@op()
def full_like(input: Tensor, fill_value: Any, *, dtype: DType | None = None, layout: Any = None, device: Any = None, requires_grad: bool = False, memory_format: memory_format | None = None) -> Tensor:
    """``fill_value`` with ``input``'s shape (and dtype unless given)."""
    check_layout(layout, "full_like")
    shape, npdt = _like(input, dtype, "full_like", memory_format)
    if isinstance(fill_value, Tensor):
        if fill_value._data.ndim != 0:  # a 0-d tensor is a number here, anything larger is not
            raise TypeError("full_like(): argument 'fill_value' (position 2) must be Number, not Tensor")
        fill_value = fill_value.item()
    elif isinstance(fill_value, bool) or not isinstance(fill_value, (int, float, complex, np.number)):
        if not isinstance(fill_value, bool):
            raise TypeError(f"full_like(): argument 'fill_value' (position 2) must be Number, not "
                            f"{type(fill_value).__name__}")
    fill_value = fit_scalar(fill_value, np.dtype(npdt))
    return _finish(np.full(shape, fill_value, dtype=npdt), requires_grad, _CPU if device is None else device)


@op(dispatch="modes")
def eye(n: int, m: int | None = None, *, out: Tensor | None = None, dtype: DType | None = None, layout: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """An ``n x m`` matrix with ones on the diagonal."""
    check_layout(layout, "eye")
    _dtype_arg(dtype, "eye")
    for name, v in (("n", n), ("m", m)):
        if v is not None and (isinstance(v, (_pybool, float)) or not hasattr(v, "__index__")):
            raise TypeError(f"eye(): argument '{name}' must be int, not {type(v).__name__}")
    if n < 0 or (m is not None and m < 0):
        raise RuntimeError(f"n must be greater or equal to 0, got {n}" if n < 0 else
                           f"m must be greater or equal to 0, got {m}")
    return _out_or(out, _finish(np.eye(n, m, dtype=_np_dtype(dtype)), requires_grad, device), "eye")


@op(dispatch="modes")
def arange(start: Any = 0, end: Any = None, step: Any = 1, *, out: Tensor | None = None, dtype: DType | None = None, layout: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """Values from ``start`` to ``end`` (exclusive) in steps of ``step``; ``arange(n)`` counts from 0."""
    check_layout(layout, "arange")
    _dtype_arg(dtype, "arange")
    single = end is None  # arange(end)
    if single:
        start, end = 0, start
    if (dtype is None and type(start) is int and type(end) is int and type(step) is int and step > 0
            and -9223372036854775808 <= start <= end <= _INT64_MAX):
        # the usual call, arange(n) or arange(a, b[, step]) of ints counting up: int64 straight from NumPy
        return _out_or(out, _finish(np.arange(start, end, step, dtype=np.int64), requires_grad, device), "arange")
    # torch reads a bool as a number: Python's (and a bool tensor's value) as an int, NumPy's as a float
    vals = [_bool_as_number(v.item() if isinstance(v, Tensor) else v) for v in (start, end, step)]
    for v in vals:
        if not isinstance(v, (int, float, np.number)):
            where = " (position 1)" if single else ""
            raise TypeError(f"arange(): argument 'end'{where} must be Number, not {type(v).__name__}")
    start, end, step = vals
    for v in vals:  # torch's conversions: to uint64 first (OverflowError), then to int64 (RuntimeError)
        if type(v) is int and v < -9223372036854775808:
            raise OverflowError("can't convert negative int to unsigned")
        if type(v) is int and v >= 18446744073709551616:
            raise OverflowError("int too big to convert")
    if any(type(v) is int and v > _INT64_MAX for v in vals):
        raise RuntimeError("value cannot be converted to type int64_t without overflow")
    if step == 0 or step != step:
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(start) and math.isfinite(end)):
        raise RuntimeError(f"unsupported range: {start:g} -> {end:g}")
    if (end - start) * step < 0 and end != start:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dtype is None:
        is_int = all(isinstance(v, (int, np.integer)) for v in (start, end, step))
        npdt = np.dtype(np.int64) if is_int else _dtype.DEFAULT.np_float
        if is_int and max(start, end, step) >= 9223372036854775808:
            raise RuntimeError("value cannot be converted to type int64_t without overflow")
    else:
        npdt = dtype.np
    n = max(int(math.ceil((end - start) / step)), 0)
    a = (start + step * np.arange(n, dtype=np.float64 if npdt.kind == "f" else np.int64)).astype(npdt)
    return _out_or(out, _finish(a, requires_grad, device), "arange")


def _bool_as_number(v: Any) -> Any:
    if isinstance(v, _pybool):
        return int(v)
    if isinstance(v, np.bool_):
        return float(v)
    return v


@op(dispatch="modes")
def linspace(start: Any, end: Any, steps: int, *, out: Tensor | None = None, dtype: DType | None = None, layout: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive."""
    check_layout(layout, "linspace")
    _dtype_arg(dtype, "linspace")
    if isinstance(steps, (float, _pybool)) or not hasattr(steps, "__index__"):
        raise TypeError(f"linspace(): argument 'steps' must be int, not {type(steps).__name__}")
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    s = start.item() if isinstance(start, Tensor) else start
    e = end.item() if isinstance(end, Tensor) else end
    a = np.linspace(s, e, steps, dtype=np.float64).astype(_np_dtype(dtype))
    return _out_or(out, _finish(a, requires_grad, device), "linspace")


@op(dispatch="modes")
def logspace(start: Any, end: Any, steps: int, base: float = 10.0, *, out: Tensor | None = None, dtype: DType | None = None, layout: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """``base ** linspace(start, end, steps)``."""
    check_layout(layout, "logspace")
    _dtype_arg(dtype, "logspace")
    a = np.logspace(start, end, steps, base=base, dtype=np.float64).astype(_np_dtype(dtype))
    return _out_or(out, _finish(a, requires_grad, device), "logspace")


# -- random ---------------------------------------------------------------------------------------


def _float_dtype(dtype: DType | None, fname: str) -> np.dtype:
    npdt = _np_dtype(dtype)
    if npdt.kind not in "fc":
        normal = fname.startswith("randn") or fname == "normal"
        raise not_implemented("normal_kernel_cpu" if normal else "check_uniform_bounds", npdt)
    return npdt


_FLOAT32 = np.dtype(np.float32)
_NATIVE_SAMPLE_DTYPES = frozenset({_FLOAT32, np.dtype(np.float64)})  # the dtypes NumPy's samplers produce directly


def _sample(rng: np.random.Generator, kind: str, shape: tuple, npdt: np.dtype) -> np.ndarray:
    if npdt.kind not in "fc":
        raise not_implemented("normal_kernel_cpu" if kind == "normal" else "check_uniform_bounds", npdt)
    gen_dt = npdt if npdt in _NATIVE_SAMPLE_DTYPES else _FLOAT32
    if npdt.kind == "c":
        real_dt = np.float32 if npdt == np.complex64 else np.float64
        if kind == "normal":
            # unit variance overall, as torch: each part has variance 1/2
            re = rng.standard_normal(shape, dtype=real_dt) * np.sqrt(0.5)
            im = rng.standard_normal(shape, dtype=real_dt) * np.sqrt(0.5)
        else:
            re = rng.random(shape, dtype=real_dt)
            im = rng.random(shape, dtype=real_dt)
        return (re + 1j * im).astype(npdt)
    if kind == "normal":
        a = rng.standard_normal(shape, dtype=gen_dt)
    else:
        a = rng.random(shape, dtype=gen_dt)
    return a if a.dtype == npdt else a.astype(npdt)


@op(dispatch="modes")
def rand(*size: Any, generator: Generator | None = None, out: Tensor | None = None, dtype: DType | None = None, layout: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """Uniform random numbers in ``[0, 1)`` with shape ``size``."""
    check_layout(layout, "rand")
    _dtype_arg(dtype, "rand")
    a = _sample(_rng(generator), "uniform", parse_size(size, "rand"), _float_dtype(dtype, "rand"))
    return _out_or(out, _finish(a, requires_grad, device), "rand")


@op(dispatch="modes")
def randn(*size: Any, generator: Generator | None = None, out: Tensor | None = None, dtype: DType | None = None, layout: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """Standard normal random numbers with shape ``size``."""
    check_layout(layout, "randn")
    _dtype_arg(dtype, "randn")
    a = _sample(_rng(generator), "normal", parse_size(size, "randn"), _float_dtype(dtype, "randn"))
    return _out_or(out, _finish(a, requires_grad, device), "randn")


@op()
def rand_like(input: Tensor, *, dtype: DType | None = None, layout: Any = None, device: Any = None, requires_grad: bool = False, memory_format: memory_format | None = None) -> Tensor:
    """:func:`rand` with ``input``'s shape and dtype."""
    check_layout(layout, "rand_like")
    shape, npdt = _like(input, dtype, "rand_like", memory_format)
    return _finish(_sample(_rng(None), "uniform", shape, npdt), requires_grad, _CPU if device is None else device)


@op()
def randn_like(input: Tensor, *, dtype: DType | None = None, layout: Any = None, device: Any = None, requires_grad: bool = False, memory_format: memory_format | None = None) -> Tensor:
    """:func:`randn` with ``input``'s shape and dtype."""
    check_layout(layout, "randn_like")
    shape, npdt = _like(input, dtype, "randn_like", memory_format)
    return _finish(_sample(_rng(None), "normal", shape, npdt), requires_grad, _CPU if device is None else device)


@op(dispatch="modes")
def randint(low: int = 0, high: Any = None, size: Any = None, *, generator: Generator | None = None, out: Tensor | None = None, dtype: DType | None = None, layout: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """Random integers in ``[low, high)`` with shape ``size``; ``randint(high, size)`` starts at 0."""
    check_layout(layout, "randint")
    if size is None:
        if high is None:
            raise TypeError("randint() missing required argument 'size'")
        low, high, size = 0, low, high
    elif high is None:
        low, high = 0, low
    shape = parse_size((size,) if isinstance(size, (tuple, list, Size)) else ((size,),), "randint")
    if high <= low:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    a = _rng(generator).integers(low, high, size=shape, dtype=np.int64)
    if dtype is not None:
        a = a.astype(dtype.np)
    return _out_or(out, _finish(a, requires_grad, device), "randint")


@op()
def randint_like(input: Tensor, low: Any = 0, high: Any = None, *, generator: Generator | None = None, dtype: DType | None = None, layout: Any = None, device: Any = None, requires_grad: bool = False, memory_format: memory_format | None = None) -> Tensor:
    """:func:`randint` with ``input``'s shape and dtype; a bound may be a 0-d tensor."""
    check_layout(layout, "randint_like")
    if high is None:
        low, high = 0, low
    low, high = _int_bound(low, "low"), _int_bound(high, "high")
    if high <= low:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    shape, npdt = _like(input, dtype, "randint_like", memory_format)
    a = _rng(generator).integers(low, high, size=shape)
    return _finish(a.astype(npdt), requires_grad, _CPU if device is None else device)


def _int_bound(value: Any, name: str) -> int:
    """A bound of :func:`randint_like` as an int: a Python int, or a 0-d real tensor (truncated)."""
    if isinstance(value, Tensor):
        if value._data.ndim != 0:
            raise RuntimeError(f"randint_like(): expected '{name}' to be a 0-dimensional tensor, got {value._data.ndim} "
                               "dimensions")
        if value._data.dtype.kind == "c":
            raise RuntimeError("value cannot be converted to type int64_t without overflow")
        return int(value._data)
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"randint_like(): argument '{name}' must be int or Tensor, not {type(value).__name__}")
    if not -9223372036854775808 <= value < 9223372036854775808:
        raise ValueError("Overflow when unpacking long long")
    return value


@op(dispatch="modes")
def randperm(n: int, *, generator: Generator | None = None, out: Tensor | None = None, dtype: DType | None = None, layout: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """A random permutation of ``0 .. n-1``."""
    check_layout(layout, "randperm")
    if n < 0:
        raise RuntimeError(f"n must be non-negative, got{n}")
    if n > _INT64_MAX:
        raise ValueError("randperm(): argument 'n' overflows int64: Overflow when unpacking long long")
    a = _rng(generator).permutation(n).astype(dtype.np if dtype is not None else np.int64)
    return _out_or(out, _finish(a, requires_grad, device), "randperm")


@op()
def normal(mean: Any, std: Any = 1.0, size: Any = None, *, generator: Generator | None = None, out: Tensor | None = None, dtype: DType | None = None, layout: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """Normal samples with the given mean and std (tensors broadcast; scalars need ``size``)."""
    check_layout(layout, "normal")
    rng = _rng(generator)
    # torch's overloads: a tensor with a tensor or a real number and no size, or two real numbers and a size
    real = (int, float, np.integer, np.floating)
    tensors = isinstance(mean, Tensor) or isinstance(std, Tensor)
    if not (isinstance(mean, (Tensor, *real)) and isinstance(std, (Tensor, *real))) or (size is not None) == tensors:
        kinds = ", ".join(type(a).__name__ for a in (mean, std) + ((size,) if size is not None or not tensors else ()))
        raise TypeError(f"normal() received an invalid combination of arguments - got ({kinds}), but expected "
                        "(Tensor mean, Tensor std), (Tensor mean, float std), (float mean, Tensor std) or "
                        "(float mean, float std, tuple of ints size)")
    if tensors:
        m = mean._data if isinstance(mean, Tensor) else mean
        s = std._data if isinstance(std, Tensor) else std
        if np.any(np.asarray(s) < 0):
            raise RuntimeError("normal expects all elements of std >= 0.0")
        try:
            shape = np.broadcast_shapes(np.shape(m), np.shape(s))
        except ValueError:
            raise broadcast_error(np.asarray(m), np.asarray(s)) from None
        # the mean's dtype (the std's without a mean tensor): no integer kernel
        npdt = mean._data.dtype if isinstance(mean, Tensor) else np.asarray(s).dtype
        a = (m + s * _sample(rng, "normal", shape, npdt)).astype(npdt)
        return _out_or(out, _finish(a, requires_grad, device), "normal")
    assert not isinstance(mean, Tensor) and not isinstance(std, Tensor)  # checked above: two numbers
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    npdt = _float_dtype(dtype, "normal")
    a = (mean + std * _sample(rng, "normal", parse_size((size,) if isinstance(size, (tuple, list, Size)) else ((size,),), "normal"), npdt)).astype(npdt)
    return _out_or(out, _finish(a, requires_grad, device), "normal")


@op(variants="function method")
def bernoulli(input: Tensor, p: float | None = None, *, generator: Generator | None = None, out: Tensor | None = None) -> Tensor:
    """Draw 0/1 samples with probabilities ``input`` (or ``p``)."""
    x = tensor_arg(input, "bernoulli")
    if isinstance(p, Tensor):
        if p._data.size != 1:
            raise TypeError("bernoulli(): argument 'p' must be float, not Tensor")
        p = p._data.reshape(()).item()
    probs = x._data if p is None else p
    _check_probability(probs)
    a = (_rng(generator).random(x._data.shape) < probs).astype(x._data.dtype)
    return _out_or(out, _wrap(a), "bernoulli")


def _check_probability(p: Any) -> None:
    """torch's check that Bernoulli probabilities (a number or an array) lie in [0, 1], NaN refused."""
    if isinstance(p, np.ndarray):
        if p.dtype.kind == "c":
            raise not_implemented("bernoulli_tensor_cpu_p_", p.dtype)
        if not bool(np.all((p >= 0) & (p <= 1))):
            raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.")
    elif isinstance(p, complex) or not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p:g}")


@op(variants="function method")
def multinomial(input: Tensor, num_samples: int, replacement: bool = False, *, generator: Generator | None = None, out: Tensor | None = None) -> Tensor:
    """Sample category indices from the (unnormalised) weights in each row of ``input``."""
    x = tensor_arg(input, "multinomial")
    if isinstance(num_samples, bool) or not isinstance(num_samples, int):
        raise TypeError(f"multinomial(): argument 'num_samples' (position 2) must be int, not {type(num_samples).__name__}")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    w = x._data.astype(np.float64)
    if w.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if np.any(w < 0) or not np.all(np.isfinite(w)):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if not replacement and num_samples > w.shape[-1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    rows = w.reshape(int(np.prod(w.shape[:-1])), w.shape[-1])
    rng = _rng(generator)
    res = []
    for row in rows:
        total = row.sum()
        if total <= 0:
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        if not replacement and num_samples > np.count_nonzero(row):
            raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
        res.append(rng.choice(len(row), size=num_samples, replace=replacement, p=row / total))
    a = np.asarray(res, dtype=np.int64).reshape(w.shape[:-1] + (num_samples,))
    return _out_or(out, _wrap(a), "multinomial")


@op()
def poisson(input: Tensor, generator: Generator | None = None) -> Tensor:
    """Poisson samples with rates ``input``."""
    x = tensor_arg(input, "poisson")
    if x._data.dtype.kind != "f":
        raise not_implemented("poisson_cpu", x._data.dtype)
    if x._data.size and not bool((x._data >= 0).all()):  # negative or nan
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    lam = x._data
    huge = lam > 9.2e18  # beyond NumPy's sampler; torch's count overflows int64 to its minimum there
    if huge.any():
        draws = np.where(huge, -9.223372036854775808e18, _rng(generator).poisson(np.where(huge, 0, lam)))
        return _wrap(np.asarray(draws).astype(lam.dtype))
    return _wrap(np.asarray(_rng(generator).poisson(lam)).astype(lam.dtype))


# -- in-place random fills (Tensor methods) --------------------------------------------------------


def _fill_random(self: Tensor, a: np.ndarray, fname: str) -> Tensor:

    check_inplace(self, fname)
    dst = writable(self)
    np.copyto(dst, a, casting="unsafe")
    bump_version(self)
    return self


@op(variants="method")
def uniform_(self: Tensor, from_: float = 0, to: float = 1, *, generator: Generator | None = None) -> Tensor:
    """Fill in place with uniform samples from ``[from_, to)``."""
    npdt = tensor_arg(self, "uniform_", "self")._data.dtype
    check_uniform_bounds(npdt, from_, to)
    return _fill_random(self, uniform_samples(_rng(generator), self._data.shape, npdt, from_, to), "uniform_")


def check_uniform_bounds(npdt: np.dtype, from_: float, to: float) -> None:
    """torch's checks of ``uniform_``'s range for a tensor of dtype ``npdt``, in its order."""
    if npdt.kind not in "fc":
        raise not_implemented("check_uniform_bounds", npdt)
    real = np.dtype(npdt.char.lower()) if npdt.kind == "c" else npdt  # a complex dtype's parts
    hi = float(np.finfo(real).max)
    cpp = _CPP_NAMES[real.name]
    if not -hi <= from_ <= hi:  # NaN fails too
        raise RuntimeError(f"from is out of bounds for {cpp}")
    if not -hi <= to <= hi:
        raise RuntimeError(f"to is out of bounds for {cpp}")
    if from_ > to:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={from_:g} > to={to:g}")
    if to - from_ > hi:
        raise RuntimeError(f"uniform_ expects to-from <= std::numeric_limits<{type_title(real)}>::max(), but found "
                           f"to={to:g} and from={from_:g} which result in to-from to exceed the limit")


def uniform_samples(rng: np.random.Generator, shape: tuple, npdt: np.dtype, from_: float, to: float) -> np.ndarray:
    """Samples of U[from_, to) for a floating or complex dtype (both parts of a complex sample in that range)."""
    a = _sample(rng, "uniform", shape, np.dtype(np.float64) if npdt.kind == "f" else npdt)
    if npdt.kind == "c":
        return (from_ + (to - from_) * a.real) + 1j * (from_ + (to - from_) * a.imag)
    return from_ + (to - from_) * a


@op(variants="method")
def normal_(self: Tensor, mean: float = 0, std: float = 1, *, generator: Generator | None = None) -> Tensor:
    """Fill in place with normal samples."""
    npdt = tensor_arg(self, "normal_", "self")._data.dtype
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    if npdt.kind not in "fc" and self._data.size:  # torch fills an empty tensor of any dtype
        raise not_implemented("normal_kernel_cpu", npdt)
    a = mean + std * _sample(_rng(generator), "normal", self._data.shape, np.dtype(np.float64))
    return _fill_random(self, a, "normal_")


@op(variants="method")
def random_(self: Tensor, from_: int = 0, to: int | None = None, *, generator: Generator | None = None) -> Tensor:
    """Fill in place with random integers in ``[from_, to)``.

    ``random_(n)`` samples ``[0, n)`` (torch's ``random_(to)`` form; ``random_(n, None)`` is read the same way), and
    ``random_()`` every integer the dtype holds exactly (``[0, 2**24]`` for float32, ``[0, max]`` for ints).
    """
    npdt = tensor_arg(self, "random_", "self")._data.dtype
    from_ = int_arg(from_, "random_", "from")
    if to is not None:
        to = int_arg(to, "random_", "to")
    elif from_ != 0:
        from_, to = 0, from_
    else:
        kind = npdt.kind
        to = 2 if kind == "b" else int(np.iinfo(npdt).max) + 1 if kind in "iu" else 2 ** (_mantissa_digits(npdt)) + 1
    if from_ >= to:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={from_} >= to={to}")
    if npdt.kind in "iub":
        lo, hi = (0, 1) if npdt.kind == "b" else (int(np.iinfo(npdt).min), int(np.iinfo(npdt).max))
        name = _CPP_NAMES.get(npdt.name, npdt.name)
        if not lo <= from_ <= hi:
            raise RuntimeError(f"from is out of bounds for {name}")
        if not lo <= to - 1 <= hi:
            raise RuntimeError(f"to - 1 is out of bounds for {name}")
    else:
        top = float(np.finfo(npdt).max)
        name = _CPP_NAMES.get(npdt.name, npdt.name)
        if not -top <= from_ <= top:
            raise RuntimeError(f"from is out of bounds for {name}")
        if not -top <= to - 1 <= top:
            raise RuntimeError(f"to - 1 is out of bounds for {name}")
        digits = _mantissa_digits(npdt)
        for what, v in (("from", from_), ("to - 1", to - 1)):
            if abs(v) > 2**digits:
                warnings.warn(f"{what} is out of bounds [-(2^{digits}), 2^{digits}]. Due to precision limitations "
                              f"{_CPP_NAMES.get(npdt.name, npdt.name)} can support discrete uniform distribution "
                              "only within this range.", stacklevel=2)
    a = _rng(generator).integers(from_, to, size=self._data.shape)
    return _fill_random(self, a, "random_")


def _mantissa_digits(npdt: np.dtype) -> int:
    """The bits of integer precision of a floating dtype (a complex dtype's parts)."""
    return int(np.finfo(npdt).nmant) + 1


def _expands_to(shape: tuple, target: tuple) -> bool:
    """Whether an array of ``shape`` broadcasts to exactly ``target``."""
    try:
        return np.broadcast_shapes(shape, target) == tuple(target)
    except ValueError:
        return False


@op(variants="method")
def bernoulli_(self: Tensor, p: Any = 0.5, *, generator: Generator | None = None) -> Tensor:
    """Fill in place with 0/1 samples with probability ``p``."""
    if isinstance(p, bool) or not isinstance(p, (Tensor, int, float, np.number)):
        raise TypeError(f"bernoulli_(): argument 'p' must be float or Tensor, not {type(p).__name__}")
    probs = p._data if isinstance(p, Tensor) else p
    if isinstance(p, Tensor) and not _expands_to(p._data.shape, self._data.shape):
        raise RuntimeError(f"The expanded size of the tensor does not match: p of shape {list(p._data.shape)} cannot "
                           f"be expanded to the shape of self {list(self._data.shape)}")
    _check_probability(probs)
    a = _rng(generator).random(self._data.shape) < probs
    return _fill_random(self, a, "bernoulli_")


@op(variants="method")
def exponential_(self: Tensor, lambd: float = 1.0, *, generator: Generator | None = None) -> Tensor:
    """Fill in place with exponential samples of rate ``lambd``."""
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd}")
    npdt = tensor_arg(self, "exponential_", "self")._data.dtype
    if npdt.kind != "f" and self._data.size:  # torch fills an empty tensor of any dtype
        raise RuntimeError("Exponential distribution is a continuous probability distribution. dtype must be a "
                           f"floating point but you specified {type_title(npdt)}")
    return _fill_random(self, _rng(generator).exponential(1.0 / lambd, size=self._data.shape), "exponential_")


def _continuous(self: Tensor, fname: str, kernel: str) -> None:
    kind = tensor_arg(self, fname, "self")._data.dtype
    if kind.kind != "f":
        if fname == "cauchy_":
            raise RuntimeError("Cauchy distribution is a continuous probability distribution. dtype must be a floating "
                               f"point but you specified {_CPP_NAMES.get(kind.name, kind.name)}")
        raise not_implemented(kernel, kind)


@op(variants="method")
def cauchy_(self: Tensor, median: float = 0, sigma: float = 1, *, generator: Generator | None = None) -> Tensor:
    """Fill in place with samples of the Cauchy distribution ``median + sigma * tan(pi * (u - 1/2))``."""
    _continuous(self, "cauchy_", "cauchy_cpu")
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma:g}")
    return _fill_random(self, median + sigma * _rng(generator).standard_cauchy(self._data.shape), "cauchy_")


@op(variants="method")
def log_normal_(self: Tensor, mean: float = 1, std: float = 2, *, generator: Generator | None = None) -> Tensor:
    """Fill in place with samples whose logarithm is normal with ``mean`` and ``std``."""
    _continuous(self, "log_normal_", "log_normal_cpu")
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std:g}")
    return _fill_random(self, _rng(generator).lognormal(mean, std, self._data.shape), "log_normal_")


@op(variants="method")
def geometric_(self: Tensor, p: float, *, generator: Generator | None = None) -> Tensor:
    """Fill in place with the number of Bernoulli(``p``) trials up to and including the first success (1, 2, ...)."""
    a = tensor_arg(self, "geometric_", "self")._data
    if a.dtype.kind == "b":
        raise not_implemented("geometric_cpu", a.dtype)
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p:g}")
    return _fill_random(self, _rng(generator).geometric(p, self._data.shape), "geometric_")


def _triangle_indices(row: int, col: int, offset: int, dtype: Any, upper: bool, fname: str) -> Tensor:
    for name, v in (("row", row), ("col", col), ("offset", offset)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"{fname}(): argument '{name}' must be int, not {type(v).__name__}")
    if row < 0:
        raise RuntimeError(f"row must be non-negative, got{row}")
    if col < 0:
        raise RuntimeError(f"col must be non-negative, got{col}")
    npdt = np.dtype(_np_dtype(dtype, np.int64))
    if npdt.kind not in "iu":
        raise RuntimeError("\"tril_indices\" not implemented for '" + FROM_NP[npdt].name + "'")
    rows, cols = np.triu_indices(row, offset, col) if upper else np.tril_indices(row, offset, col)
    return _wrap(np.stack([rows, cols]).astype(npdt).reshape(2, -1))


@public()
def tril_indices(row: int, col: int, offset: int = 0, *, dtype: DType | None = None, device: Any = None,
                 layout: Any = None) -> Tensor:
    """The (row, col) coordinates of the lower triangle (on and below diagonal ``offset``) of a row x col matrix."""
    check_device(device)
    check_layout(layout, "tril_indices")
    return _triangle_indices(row, col, offset, dtype, False, "tril_indices")


@public()
def triu_indices(row: int, col: int, offset: int = 0, *, dtype: DType | None = None, device: Any = None,
                 layout: Any = None) -> Tensor:
    """The (row, col) coordinates of the upper triangle (on and above diagonal ``offset``) of a row x col matrix."""
    check_device(device)
    check_layout(layout, "triu_indices")
    return _triangle_indices(row, col, offset, dtype, True, "triu_indices")
