"""What a checkpoint's records become: storages, tensors and parameters, every field checked before use.

A :class:`Loader` serves one ``load`` call. PyTorch's rebuild functions (``torch._utils._rebuild_tensor_v2``
and its relatives) resolve to its methods; the storages the pickle references are read from the archive
once each, by key, so tensors that shared a storage when saved share memory again. Everything a record
claims (dtype, sizes, strides, offset, element count, the bytes behind it) is checked against the archive
before memory is allocated or an array is made, and a bad record is a ``RuntimeError`` naming the file.
"""

from __future__ import annotations

import math
import pickle
from collections import Counter, OrderedDict
from typing import Any, Callable

import numpy as np

from .. import _dtype
from .._dtype import FROM_NP, dtype as DType
from .._size import Size
from .._tensor import Tensor, _rebuild as _legacy_tensor_rebuild, _wrap, device
from ..nn.parameter import Buffer, Parameter
from .archive import ArchiveReader

UnpicklingError = pickle.UnpicklingError
_MAX_DIMS = 64  # NumPy's limit, and far beyond any tensor a checkpoint holds


class StorageType:
    """A storage class a checkpoint names (``torch.FloatStorage``): the element type of the storage."""

    __slots__ = ("name", "dtype", "torch_dtype")

    def __init__(self, name: str, dtype: DType | None, torch_dtype: str) -> None:
        self.name = name
        self.dtype = dtype  # None: a PyTorch dtype tensorlib does not have
        self.torch_dtype = torch_dtype

    def __repr__(self) -> str:
        return f"<storage type {self.name}>"


# PyTorch's storage classes by name, with the dtype of their elements (tensorlib's name for it, or torch's when
# tensorlib has no such dtype).
_STORAGE_DTYPES = {
    "DoubleStorage": "float64", "FloatStorage": "float32", "HalfStorage": "float16", "LongStorage": "int64",
    "IntStorage": "int32", "ShortStorage": "int16", "CharStorage": "int8", "ByteStorage": "uint8",
    "BoolStorage": "bool", "ComplexDoubleStorage": "complex128", "ComplexFloatStorage": "complex64",
    "BFloat16Storage": "bfloat16", "QInt8Storage": "qint8", "QInt32Storage": "qint32", "QUInt8Storage": "quint8",
    "QUInt4x2Storage": "quint4x2", "QUInt2x4Storage": "quint2x4", "UntypedStorage": "uint8",
}
STORAGE_TYPES: dict[str, StorageType] = {}
for _name, _torch_dtype in _STORAGE_DTYPES.items():
    _d = getattr(_dtype, _torch_dtype, None)
    STORAGE_TYPES[_name] = StorageType(_name, _d if isinstance(_d, DType) else None, _torch_dtype)
UNTYPED = STORAGE_TYPES["UntypedStorage"]
# the storage class PyTorch's writer names for each dtype
STORAGE_NAME_OF: dict[DType, str] = {st.dtype: name for name, st in STORAGE_TYPES.items()
                                     if st.dtype is not None and st is not UNTYPED}


class LoadedStorage:
    """A storage read from a checkpoint: one flat array, which every tensor rebuilt from it views."""

    __slots__ = ("array", "key", "untyped")

    def __init__(self, array: np.ndarray, key: str, untyped: bool) -> None:
        self.array = array
        self.key = key
        self.untyped = untyped

    @property
    def device(self) -> device:
        return device("cpu")

    def nbytes(self) -> int:
        return int(self.array.nbytes)

    def size(self) -> int:
        return int(self.array.size)

    def cpu(self) -> "LoadedStorage":
        return self

    def __len__(self) -> int:
        return int(self.array.size)

    def __repr__(self) -> str:
        return f"<storage {self.key}: {self.array.size} x {self.array.dtype}>"


def _text(value: Any, what: str) -> str:
    if isinstance(value, bytes):
        try:
            return value.decode("ascii")
        except UnicodeDecodeError:
            pass
    if not isinstance(value, str):
        raise UnpicklingError(f"the {what} of a storage reference must be a string, got {type(value).__name__}")
    return value


def _index(value: Any, what: str) -> int:
    if type(value) is not int or value < 0:
        raise UnpicklingError(f"a tensor record's {what} must be a non-negative int, got {value!r}")
    return value


def _dims(value: Any, what: str) -> tuple[int, ...]:
    if not isinstance(value, (tuple, list)):
        raise UnpicklingError(f"a tensor record's {what} must be a tuple of ints, got {type(value).__name__}")
    if len(value) > _MAX_DIMS:
        raise UnpicklingError(f"a tensor record's {what} has {len(value)} dimensions, more than {_MAX_DIMS}")
    for v in value:
        if type(v) is not int or v < 0:
            raise UnpicklingError(f"a tensor record's {what} must hold non-negative ints, got {tuple(value)!r}")
    return tuple(value)


def _cpu_location(location: Any) -> None:
    """Refuse a storage whose (mapped) location is not the CPU, with torch's hint."""
    text = str(location)
    kind = text.split(":", 1)[0]
    if kind == "cpu":
        return
    if kind == "cuda":
        raise RuntimeError(
            "Attempting to deserialize object on a CUDA device but tensorlib has no CUDA (it runs on the CPU only). "
            "Please use tensorlib.load with map_location='cpu' to map your storages to the CPU."
        )
    raise RuntimeError(f"cannot load a storage saved on {text!r}: tensorlib has only the CPU (pass map_location='cpu')")


class Loader:
    """The state of one ``load``: the archive, the storages read so far, and the rebuild functions."""

    def __init__(self, archive: ArchiveReader | None, source: str, map_location: Any, weights_only: bool,
                 byteswap: bool = False) -> None:
        self.archive = archive
        self.source = source
        self.map_location = map_location
        self.weights_only = weights_only
        self.byteswap = byteswap
        self.storages: dict[str, LoadedStorage] = {}

    def error(self, problem: str) -> RuntimeError:
        return RuntimeError(f"cannot load {self.source}: {problem}")

    # -- storages ---------------------------------------------------------------------------------------------

    def persistent_load(self, pid: Any) -> LoadedStorage:
        """The storage a persistent id ``('storage', storage type, key, location, numel)`` names."""
        if not isinstance(pid, tuple) or len(pid) != 5:
            raise UnpicklingError(f"a persistent id must be ('storage', type, key, location, numel), got {pid!r}")
        kind, stype, key, location, numel = pid
        if _text(kind, "kind") != "storage":
            raise UnpicklingError(f"only storages can be persistent ids, got {kind!r}")
        if not isinstance(stype, StorageType):
            raise UnpicklingError(f"a storage reference names {stype!r}, not a storage class")
        key = _text(key, "key")
        location = _text(location, "location")
        if type(numel) is not int or numel < 0:
            raise UnpicklingError(f"storage {key}: its element count must be a non-negative int, got {numel!r}")
        if stype.dtype is None:
            raise self.error(f"storage {key} holds torch.{stype.torch_dtype} elements ({stype.name}); tensorlib has "
                             "no such dtype")
        cached = self.storages.get(key)
        if cached is not None:
            if cached.array.dtype != stype.dtype.np or cached.array.size != numel:
                raise self.error(f"storage {key} is referenced as {numel} x {stype.dtype} and as "
                                 f"{cached.array.size} x {FROM_NP[cached.array.dtype]}")
            return cached
        mapped = callable(self.map_location) and not isinstance(self.map_location, (dict, str, device))
        if not mapped:
            self._restore_location(None, location)  # before reading: a storage that cannot be placed is not read
        storage = self._read_storage(key, stype, numel)
        if mapped:
            self._restore_location(storage, location)
        self.storages[key] = storage
        return storage

    def _read_storage(self, key: str, stype: StorageType, numel: int) -> LoadedStorage:
        archive = self.archive
        if archive is None:
            raise UnpicklingError("this file references storages but is not a zip checkpoint")
        assert stype.dtype is not None
        name = f"data/{key}"
        if name not in archive.records:
            raise self.error(f"storage {key} has no record {archive.archive_name}/{name}")
        nbytes = numel * stype.dtype.itemsize
        # checked before allocating: a record cannot make the loader reserve memory its bytes do not back
        if archive.records[name].file_size != nbytes:
            raise self.error(f"storage {key} claims {numel} elements of {stype.dtype} ({nbytes} bytes) but its record "
                             f"holds {archive.records[name].file_size} bytes")
        archive.check_record(name, nbytes)
        array = archive.mapped(name, stype.dtype.np, numel)
        if array is None:
            try:
                array = np.empty(numel, dtype=stype.dtype.np)
            except MemoryError:
                raise self.error(f"not enough memory for storage {key} ({nbytes} bytes)") from None
            archive.read_into(name, array)
        if self.byteswap and stype is not UNTYPED:
            array.byteswap(inplace=True)
        return LoadedStorage(array, key, stype is UNTYPED)

    def _restore_location(self, storage: LoadedStorage | None, location: str) -> None:
        ml = self.map_location
        if ml is None:
            target: Any = location
        elif isinstance(ml, dict):
            target = ml.get(location, location)
        elif isinstance(ml, (str, device)):
            target = ml
        elif callable(ml):
            result = ml(storage, location)
            if result is None:
                target = location
            elif result is storage:
                return
            else:
                raise RuntimeError("map_location must return the storage it was given (or None): tensorlib keeps "
                                   f"every storage on the CPU, got {type(result).__name__}")
        else:
            raise TypeError(f"map_location must be a string, device, dict or callable, got {type(ml).__name__}")
        _cpu_location(target)

    # -- tensors ----------------------------------------------------------------------------------------------

    def _array(self, storage: Any, storage_offset: Any, size: Any, stride: Any, dt: Any = None) -> np.ndarray:
        if not isinstance(storage, LoadedStorage):
            raise UnpicklingError(f"a tensor record needs a storage, got {type(storage).__name__}")
        flat = storage.array
        if dt is not None:
            if not isinstance(dt, DType):
                raise UnpicklingError(f"a tensor record's dtype must be a dtype, got {dt!r}")
            if dt.np != flat.dtype:
                if not storage.untyped:
                    raise self.error(f"storage {storage.key} holds {FROM_NP[flat.dtype]} elements, not {dt}")
                if flat.nbytes % dt.itemsize:
                    raise self.error(f"storage {storage.key} has {flat.nbytes} bytes, not a whole number of {dt} "
                                     f"elements ({dt.itemsize} bytes each)")
                flat = flat.view(dt.np)
        offset = _index(storage_offset, "storage offset")
        shape = _dims(size, "size")
        strides = _dims(stride, "stride")
        if len(strides) != len(shape):
            raise UnpicklingError(f"a tensor record's size {shape} and stride {strides} differ in length")
        if 0 in shape:
            return np.empty(shape, dtype=flat.dtype)
        extent = offset + 1 + sum((n - 1) * s for n, s in zip(shape, strides))
        if extent > flat.size:
            raise self.error(f"a tensor of size {list(shape)}, stride {list(strides)} and storage offset {offset} "
                             f"needs {extent} elements but storage {storage.key} holds {flat.size}")
        item = flat.itemsize
        try:
            return np.ndarray(shape, dtype=flat.dtype, buffer=flat, offset=offset * item,
                              strides=tuple(s * item for s in strides))
        except (ValueError, TypeError, OverflowError) as e:
            raise self.error(f"a tensor of size {list(shape)} cannot be made from storage {storage.key} ({e})") from None

    def _finish(self, t: Tensor, requires_grad: Any, backward_hooks: Any, metadata: Any = None) -> Tensor:
        if backward_hooks is not None and not isinstance(backward_hooks, dict):
            raise UnpicklingError(f"a tensor record's backward hooks must be a dict, got {type(backward_hooks).__name__}")
        if metadata:
            if not isinstance(metadata, dict):
                raise UnpicklingError(f"a tensor record's metadata must be a dict, got {type(metadata).__name__}")
            for k, v in metadata.items():
                if k not in ("conj", "neg") or type(v) is not bool:
                    raise self.error(f"unsupported tensor metadata {k!r}: {v!r}")
            if metadata.get("conj"):
                if t._data.dtype.kind != "c":
                    raise self.error("tensor metadata asks to conjugate a tensor that is not complex")
                t = _wrap(np.conj(t._data))
            if metadata.get("neg"):
                t = _wrap(np.negative(t._data))
        if type(requires_grad) is not bool:
            raise UnpicklingError(f"a tensor record's requires_grad must be a bool, got {requires_grad!r}")
        if requires_grad:
            if t._data.dtype.kind not in "fc":
                raise self.error(f"a {FROM_NP[t._data.dtype]} tensor cannot require gradients: only floating point and "
                                 "complex tensors can")
            t._requires_grad = True
        return t

    def rebuild_tensor_v2(self, storage: Any, storage_offset: Any, size: Any, stride: Any, requires_grad: Any,
                          backward_hooks: Any, metadata: Any = None) -> Tensor:
        """``torch._utils._rebuild_tensor_v2``: a tensor viewing ``storage``."""
        return self._finish(_wrap(self._array(storage, storage_offset, size, stride)), requires_grad, backward_hooks,
                            metadata)

    def rebuild_tensor_v3(self, storage: Any, storage_offset: Any, size: Any, stride: Any, requires_grad: Any,
                          backward_hooks: Any, dtype: Any, metadata: Any = None) -> Tensor:
        """``torch._utils._rebuild_tensor_v3``: a tensor of ``dtype`` viewing an untyped (byte) storage."""
        return self._finish(_wrap(self._array(storage, storage_offset, size, stride, dtype)), requires_grad,
                            backward_hooks, metadata)

    def rebuild_tensor(self, storage: Any, storage_offset: Any, size: Any, stride: Any) -> Tensor:
        """``torch._utils._rebuild_tensor`` (older files): a tensor viewing ``storage``."""
        return _wrap(self._array(storage, storage_offset, size, stride))

    def rebuild_parameter(self, data: Any, requires_grad: Any, backward_hooks: Any) -> Parameter:
        """``torch._utils._rebuild_parameter``: a parameter sharing ``data``'s memory."""
        if not isinstance(data, Tensor):
            raise UnpicklingError(f"a parameter record needs a tensor, got {type(data).__name__}")
        if type(requires_grad) is not bool:
            raise UnpicklingError(f"a parameter record's requires_grad must be a bool, got {requires_grad!r}")
        if backward_hooks is not None and not isinstance(backward_hooks, dict):
            raise UnpicklingError("a parameter record's backward hooks must be a dict")
        if requires_grad and data._data.dtype.kind not in "fc":
            raise self.error(f"a {FROM_NP[data._data.dtype]} parameter cannot require gradients: only floating point "
                             "and complex tensors can")
        return Parameter(data, requires_grad)

    def rebuild_parameter_with_state(self, data: Any, requires_grad: Any, backward_hooks: Any,
                                     state: Any) -> Parameter:
        """``torch._utils._rebuild_parameter_with_state``: a parameter with attributes of its own."""
        p = self.rebuild_parameter(data, requires_grad, backward_hooks)
        self.set_state(p, state)
        return p

    def rebuild_from_type_v2(self, func: Any, new_type: Any, args: Any, state: Any) -> Tensor:
        """``torch._tensor._rebuild_from_type_v2``: ``func(*args)`` as an instance of ``new_type``, with ``state``."""
        if func not in self.tensor_rebuilders():
            raise UnpicklingError(f"_rebuild_from_type_v2 can only call a tensor rebuild function, got {func!r}")
        if not isinstance(args, tuple):
            raise UnpicklingError("_rebuild_from_type_v2's arguments must be a tuple")
        if not (isinstance(new_type, type) and issubclass(new_type, Tensor)):
            raise UnpicklingError(f"_rebuild_from_type_v2 can only make tensors, got {new_type!r}")
        try:
            ret = func(*args)
        except TypeError as e:
            raise UnpicklingError(f"malformed tensor record: {e}") from None
        if new_type is Tensor and isinstance(state, dict) and state.get("_is_buffer") is True:
            new_type = Buffer  # torch marks a buffer with an attribute; tensorlib's Buffer is a class
            state = {k: v for k, v in state.items() if k != "_is_buffer"}
        if type(ret) is not new_type:
            try:
                ret.__class__ = new_type  # a fresh tensor simply changes class, as the saved one had it
            except TypeError:  # a subclass with a layout of its own (__slots__)
                ret = ret.as_subclass(new_type)
        if (not self.weights_only and state is not None
                and getattr(new_type, "__setstate__", Tensor.__setstate__) is not Tensor.__setstate__):
            ret.__setstate__(state)
        else:
            self.set_state(ret, state)
        return ret

    def tensor_rebuilders(self) -> tuple[Callable[..., Any], ...]:
        return (self.rebuild_tensor_v2, self.rebuild_tensor_v3, self.rebuild_tensor, self.rebuild_parameter,
                self.rebuild_parameter_with_state)

    def set_state(self, obj: Tensor, state: Any) -> None:
        """Set the attributes a tensor was saved with; weights-only loading refuses names tensorlib defines."""
        if state is None:
            return
        parts = state if isinstance(state, tuple) and len(state) == 2 else (state,)
        for part in parts:
            if part is None:
                continue
            if not isinstance(part, dict):
                raise UnpicklingError(f"a tensor's saved attributes must be a dict, got {type(part).__name__}")
            for name, value in part.items():
                if not isinstance(name, str):
                    raise UnpicklingError(f"a tensor attribute's name must be a string, got {name!r}")
                if self.weights_only and (name.startswith("__") or hasattr(type(obj), name)
                                          or name in Tensor.__slots__):
                    raise UnpicklingError(f"refusing to set attribute {name!r} on a loaded tensor: tensorlib defines "
                                          "that name (pass weights_only=False to load it from a trusted file)")
                setattr(obj, name, value)

    # -- files written by earlier tensorlib versions (a plain pickle of NumPy arrays) --------------------------

    def legacy_array(self, data: Any) -> np.ndarray:
        if not isinstance(data, np.ndarray):
            raise self.error(f"a tensor's data must be a NumPy array, got {type(data).__name__}")
        dt = data.dtype
        if dt not in FROM_NP:
            if dt.kind in "biufc" and dt.fields is None and dt.newbyteorder("=") in FROM_NP:
                return data.astype(dt.newbyteorder("="))
            raise self.error(f"a tensor's data must be a numeric array, got dtype {dt}")
        return data

    def legacy_rebuild(self, cls: Any, data: Any, requires_grad: Any, grad: Any, state: Any) -> Tensor:
        """``tensorlib._tensor._rebuild``, as earlier versions pickled tensors."""
        if not (isinstance(cls, type) and issubclass(cls, Tensor)):
            raise UnpicklingError(f"a tensor record names {cls!r}, not a tensor class")
        arr = self.legacy_array(data)
        if type(requires_grad) is not bool:
            raise UnpicklingError(f"a tensor record's requires_grad must be a bool, got {requires_grad!r}")
        if requires_grad and arr.dtype.kind not in "fc":
            raise self.error("only floating point and complex tensors can require gradients")
        if grad is not None and not (isinstance(grad, Tensor) and grad.shape == arr.shape):
            raise self.error("a tensor's saved gradient must be a tensor of its shape")
        t = _legacy_tensor_rebuild(cls, arr, requires_grad, grad, None)
        self.set_state(t, state)
        return t

    def legacy_rebuild_parameter(self, data: Any, requires_grad: Any) -> Parameter:
        """``tensorlib.nn.parameter._rebuild_parameter``, as earlier versions pickled parameters."""
        return self.rebuild_parameter(_wrap(self.legacy_array(data)), requires_grad, None)


# -- constructors a weights-only pickle may call, each accepting only what the pickle module itself writes ------

def _collection(items: Any, what: str) -> Any:
    if not isinstance(items, (list, tuple, set, frozenset)):
        raise UnpicklingError(f"{what} must be built from a list or tuple, got {type(items).__name__}")
    return items


def safe_set(items: Any = ()) -> set:
    return set(_collection(items, "a set"))


def safe_frozenset(items: Any = ()) -> frozenset:
    return frozenset(_collection(items, "a frozenset"))


def safe_complex(real: Any = 0, imag: Any = 0) -> complex:
    for v in (real, imag):
        if type(v) not in (int, float):
            raise UnpicklingError(f"a complex number is built from two reals, got {v!r}")
    return complex(real, imag)


def safe_slice(*args: Any) -> slice:
    if not 1 <= len(args) <= 3:
        raise UnpicklingError(f"slice takes 1 to 3 arguments, got {len(args)}")
    return slice(*args)


def safe_range(*args: Any) -> range:
    if not 1 <= len(args) <= 3 or any(type(a) is not int for a in args):
        raise UnpicklingError(f"range takes 1 to 3 ints, got {args!r}")
    return range(*args)


def safe_bytearray(*args: Any) -> bytearray:
    if not args:
        return bytearray()
    if len(args) == 1 and isinstance(args[0], bytes):
        return bytearray(args[0])
    if len(args) == 2 and isinstance(args[0], str) and args[1] in ("latin-1", "latin1"):
        return bytearray(args[0], "latin-1")
    raise UnpicklingError("bytearray is built from bytes (or a latin-1 string), got other arguments")


def safe_bytes(*args: Any) -> bytes:
    if not args:
        return b""
    if len(args) == 1 and isinstance(args[0], bytes):
        return args[0]
    raise UnpicklingError("bytes is built from bytes, got other arguments")


def safe_encode(obj: Any, encoding: Any = "utf-8") -> bytes:
    # protocol 2 writes bytes as _codecs.encode(latin-1 string, 'latin1')
    if not isinstance(obj, str) or encoding not in ("latin1", "latin-1"):
        raise UnpicklingError("_codecs.encode may only turn a latin-1 string into bytes")
    return obj.encode("latin-1")


def safe_ordered_dict(items: Any = ()) -> OrderedDict:
    if not isinstance(items, (list, tuple, dict)):
        raise UnpicklingError(f"an OrderedDict is built from pairs, got {type(items).__name__}")
    try:
        return OrderedDict(items)
    except (TypeError, ValueError) as e:
        raise UnpicklingError(f"an OrderedDict is built from pairs: {e}") from None


def safe_counter(items: Any = None) -> Counter:
    if items is not None and not isinstance(items, dict):
        raise UnpicklingError(f"a Counter is built from a dict, got {type(items).__name__}")
    return Counter(items or {})


def safe_size(dims: Any = ()) -> Size:
    if not isinstance(dims, (tuple, list)):
        raise UnpicklingError(f"a Size is built from a tuple of ints, got {type(dims).__name__}")
    try:
        return Size(dims)
    except TypeError as e:
        raise UnpicklingError(str(e)) from None


def safe_device(*args: Any) -> device:
    if not 1 <= len(args) <= 2 or not all(type(a) in (str, int) for a in args):
        raise UnpicklingError(f"a device is built from a type and an index, got {args!r}")
    return device(*args)


# NumPy's own reconstruction, as earlier tensorlib files pickled arrays: only plain numeric dtypes and arrays

def _numeric(dt: Any) -> np.dtype:
    if not isinstance(dt, np.dtype) or dt.kind not in "biufc" or dt.fields is not None or dt.subdtype is not None:
        raise UnpicklingError(f"only numeric NumPy dtypes can be loaded with weights_only=True, got {dt!r}")
    return dt


def safe_np_dtype(obj: Any, align: Any = False, copy: Any = True) -> np.dtype:
    if not isinstance(obj, str) or len(obj) > 8:
        raise UnpicklingError(f"a NumPy dtype is built from a type code, got {obj!r}")
    try:
        dt = np.dtype(obj)
    except TypeError:
        raise UnpicklingError(f"{obj!r} is not a NumPy type code") from None
    _numeric(dt)
    return np.dtype(obj, align=False, copy=True)  # a copy: its __setstate__ may set the byte order


def np_dtype_setstate(inst: np.dtype, state: Any) -> None:
    if (not isinstance(state, tuple) or len(state) != 8 or state[1] not in ("<", ">", "|", "=")
            or state[2:5] != (None, None, None) or state[5:7] != (-1, -1) or type(state[7]) is not int):
        raise UnpicklingError(f"unsupported NumPy dtype state {state!r}")
    inst.__setstate__(state)  # type: ignore[attr-defined]  # NumPy's own, on a copy (safe_np_dtype)


def safe_np_reconstruct(cls: Any, shape: Any, typecode: Any) -> np.ndarray:
    if cls is not np.ndarray or shape != (0,) or typecode not in (b"b", "b"):
        raise UnpicklingError("NumPy's _reconstruct may only start a plain array")
    return np.empty((0,), dtype=np.int8)


def np_array_setstate(inst: np.ndarray, state: Any) -> None:
    if not isinstance(state, tuple) or len(state) not in (4, 5):
        raise UnpicklingError("unsupported NumPy array state")
    shape, dt, fortran, raw = state[-4:]
    shape = _dims(shape, "shape")
    dt = _numeric(dt)
    if type(fortran) is not bool:
        raise UnpicklingError("a NumPy array state's order flag must be a bool")
    if not isinstance(raw, bytes) or len(raw) != math.prod(shape) * dt.itemsize:
        raise UnpicklingError(f"a NumPy array of shape {shape} and dtype {dt} needs "
                              f"{math.prod(shape) * dt.itemsize} bytes of data")
    inst.__setstate__(state)


def safe_np_frombuffer(buf: Any, dt: Any, shape: Any, order: Any) -> np.ndarray:
    """NumPy's protocol-5 array reconstruction, for plain numeric arrays."""
    dt = _numeric(dt)
    shape = _dims(shape, "shape")
    if not isinstance(buf, (bytes, bytearray)) or order not in ("C", "F"):
        raise UnpicklingError("a NumPy array is built from bytes and an order 'C' or 'F'")
    if len(buf) != math.prod(shape) * dt.itemsize:
        raise UnpicklingError(f"a NumPy array of shape {shape} and dtype {dt} needs {math.prod(shape) * dt.itemsize} "
                              "bytes of data")
    arr = np.frombuffer(buf, dtype=dt).reshape(shape, order=order)
    return arr if arr.flags.writeable else arr.copy(order="K")


def safe_np_scalar(dt: Any, raw: Any = None) -> Any:
    dt = _numeric(dt)
    if not isinstance(raw, bytes) or len(raw) != dt.itemsize:
        raise UnpicklingError(f"a NumPy {dt} scalar needs {dt.itemsize} bytes")
    return np.frombuffer(raw, dtype=dt)[0]

