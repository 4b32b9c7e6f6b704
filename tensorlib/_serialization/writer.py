"""Pickling for ``save``: tensors become references to raw storages, written in PyTorch's names.

Every tensor is reduced as PyTorch reduces it: ``torch._utils._rebuild_tensor_v2(storage, offset, size,
stride, requires_grad, OrderedDict())``, the storage a persistent id ``('storage', torch.FloatStorage, key,
'cpu', numel)``. Tensors whose data lie in one NumPy memory block (a base and its views, however they were
made) reference one storage, so they share memory again when loaded; the block is written once, straight
from the tensor's memory.

The names: the C pickler can only write globals that import to the very object it pickles. It writes
stand-ins from :mod:`.names` (and dtypes as ``tensorlib.<name>``), then each stand-in's ``GLOBAL`` line is
rewritten to PyTorch's name. Protocols 0 to 3 write globals as text lines, so the rewrite is a byte
substitution; it is checked (each stand-in written once, as the pickler's memo guarantees) and, should a
user's own data happen to contain such a line, the pure-Python pickler redoes the work writing PyTorch's
names directly, as it does for protocols 4 and 5, whose framing a substitution would break.
"""

from __future__ import annotations

import io
import os
import pickle
import re
import sys
import zlib
from collections import OrderedDict
from typing import Any

import numpy as np

from .._dtype import FROM_NP, dtype as DType
from .._size import Size
from .._tensor import Tensor, _empty_strides, _user_state, _wrap, device
from ..nn.parameter import Buffer, Parameter, UninitializedTensorMixin
from . import names
from .archive import ArchiveWriter
from .names import (
    DTYPE_NAMES,
    PLACEHOLDERS,
    REBUILD_FROM_TYPE_V2,
    REBUILD_PARAMETER,
    REBUILD_PARAMETER_WITH_STATE,
    REBUILD_TENSOR_V2,
    STORAGE_CLASS,
    TORCH_DEVICE,
    TORCH_SIZE,
    TORCH_TENSOR,
    TorchName,
)

_PLACEHOLDER_LINE = re.compile(rb"c" + re.escape(names.__name__.encode()) + rb"\n(_\w+)\n")
_DTYPE_LINE = re.compile(rb"ctensorlib\n(" + b"|".join(n.encode() for n in DTYPE_NAMES) + rb")\n")


class Storage:
    """A block of memory written as one record; the tensors that lie in it reference its key."""

    __slots__ = ("key", "dtype", "numel", "source", "contiguous")

    def __init__(self, key: str, dtype: DType, numel: int, source: np.ndarray, contiguous: bool) -> None:
        self.key = key
        self.dtype = dtype
        self.numel = numel
        self.source = source  # the memory block (contiguous), or a tensor's data to copy when written
        self.contiguous = contiguous

    def data(self) -> np.ndarray:
        """The record's bytes as a flat uint8 array: a view of the memory block, or one tensor's copy."""
        src = self.source if self.contiguous else np.ascontiguousarray(self.source)
        if not src.flags.c_contiguous:  # a Fortran-ordered block: the same bytes, read through its transpose
            src = src.T
        return src.reshape(-1).view(np.uint8)


def _root(a: np.ndarray) -> np.ndarray:
    """The array at the bottom of ``a``'s chain of bases: the one whose memory every view of it lies in."""
    r = a
    while True:
        b = r.base
        if isinstance(b, np.ndarray):
            r = b
            continue
        # NumPy's as_strided wraps its input in an object that keeps the array as .base
        inner = getattr(b, "base", None) if b is not None and hasattr(b, "__array_interface__") else None
        if isinstance(inner, np.ndarray):
            r = inner
            continue
        return r


def _address(a: np.ndarray) -> int:
    return a.__array_interface__["data"][0]


class StorageTable:
    """The storages of one save, in the order they were first referenced (their keys are 0, 1, ...)."""

    def __init__(self) -> None:
        self.storages: list[Storage] = []
        self._by_block: dict[tuple[int, str], Storage] = {}
        self._blocks: list[np.ndarray] = []  # keeps each block alive while its id() is a key

    def _new(self, dt: DType, numel: int, source: np.ndarray, contiguous: bool) -> Storage:
        s = Storage(str(len(self.storages)), dt, numel, source, contiguous)
        self.storages.append(s)
        return s

    def reference(self, a: np.ndarray) -> tuple[Storage, int, tuple[int, ...], tuple[int, ...]]:
        """The storage, element offset, size and stride that describe array ``a``."""
        dt = FROM_NP[a.dtype]
        item = a.itemsize
        shape = a.shape
        if a.size == 0:
            return self._new(dt, 0, a, True), 0, shape, _empty_strides(shape)
        contiguous = _empty_strides(shape)
        strides = []
        for n, s, c in zip(shape, a.strides, contiguous):
            if n == 1:
                strides.append(c)  # never used to address anything; torch reports the contiguous value
            elif s < 0 or s % item:
                return self._copy(a, dt)
            else:
                strides.append(s // item)
        root = _root(a)
        if not (root.flags.c_contiguous or root.flags.f_contiguous) or root.nbytes % item:
            return self._copy(a, dt)
        start = _address(root)
        here = _address(a)
        last = here + sum((n - 1) * s for n, s in zip(shape, strides)) * item + item
        if (here - start) % item or here < start or last > start + root.nbytes:
            return self._copy(a, dt)
        block = (id(root), a.dtype.str)
        storage = self._by_block.get(block)
        if storage is None:
            storage = self._by_block[block] = self._new(dt, root.nbytes // item, root, True)
            self._blocks.append(root)
        return storage, (here - start) // item, shape, tuple(strides)

    def _copy(self, a: np.ndarray, dt: DType) -> tuple[Storage, int, tuple[int, ...], tuple[int, ...]]:
        # memory NumPy cannot describe as a block with non-negative strides: the tensor gets a storage of its own,
        # copied when written (one tensor's size at a time)
        return self._new(dt, a.size, a, False), 0, a.shape, _empty_strides(a.shape)


class _Reductions:
    """What both picklers share: tensors, sizes, devices and dtypes in PyTorch's form; storages as persistent ids."""

    table: StorageTable
    used_placeholders: set[int]
    used_dtypes: set[str]

    def _start(self) -> None:
        self.table = StorageTable()
        self.used_placeholders = set()
        self.used_dtypes = set()

    def persistent_id(self, obj: Any) -> Any:
        if type(obj) is Storage:
            return ("storage", STORAGE_CLASS[obj.dtype], obj.key, "cpu", obj.numel)
        return None

    def reducer_override(self, obj: Any) -> Any:
        kind = type(obj)
        if kind is TorchName:
            self.used_placeholders.add(id(obj))
            return NotImplemented
        if isinstance(obj, Tensor):
            return self._reduce_tensor(obj)
        if kind is DType:
            self.used_dtypes.add(obj.name)
            return obj.name  # the global tensorlib.<name>, renamed torch.<name>
        if kind is Size:
            return (TORCH_SIZE, (tuple(obj),))
        if kind is device:
            return (TORCH_DEVICE, (obj.type,) if obj.index is None else (obj.type, obj.index))
        return NotImplemented

    def _tensor_args(self, t: Tensor, requires_grad: bool) -> tuple:
        storage, offset, size, stride = self.table.reference(t._data)
        return (storage, offset, size, stride, requires_grad, OrderedDict())

    def _reduce_tensor(self, t: Tensor) -> Any:
        cls = type(t)
        own = cls.__reduce_ex__
        if isinstance(t, UninitializedTensorMixin) or (own is not Tensor.__reduce_ex__
                                                       and own is not Parameter.__reduce_ex__):
            # a lazy module's placeholder has no data, and a subclass may pickle itself its own way
            return NotImplemented
        state = _user_state(t)
        if issubclass(cls, Parameter):
            data = _wrap(t._data)
            if state is None:
                return (REBUILD_PARAMETER, (data, t.requires_grad, OrderedDict()))
            return (REBUILD_PARAMETER_WITH_STATE, (data, t.requires_grad, OrderedDict(), state))
        args = self._tensor_args(t, t.requires_grad)
        if cls is Buffer:  # torch's Buffer is a plain tensor marked by an attribute
            cls = Tensor
            state = {**(state or {}), "_is_buffer": True}
        if cls is Tensor and state is None:
            return (REBUILD_TENSOR_V2, args)
        return (REBUILD_FROM_TYPE_V2, (REBUILD_TENSOR_V2, TORCH_TENSOR if cls is Tensor else cls, args, state))


class _CPickler(_Reductions, pickle.Pickler):
    pass


# the pure-Python pickler, whose methods (save, write, memoize) typeshed does not describe
_PurePickler: Any = getattr(pickle, "_Pickler")


class _PythonPickler(_Reductions, _PurePickler):
    """The pure-Python pickler, writing PyTorch's names directly."""

    def save_global(self, obj: Any, name: Any = None) -> None:
        if type(obj) is TorchName:
            self._write_global(obj.module, obj.name, obj)
        elif type(obj) is DType:
            self._write_global("torch", obj.name, obj)
        else:
            super().save_global(obj, name)

    def _write_global(self, module: str, name: str, obj: Any) -> None:
        if self.proto >= 4:
            self.save(module)
            self.save(name)
            self.write(pickle.STACK_GLOBAL)
        else:
            self.write(pickle.GLOBAL + f"{module}\n{name}\n".encode("utf-8"))
        self.memoize(obj)


def _rename(raw: bytes, pickler: _Reductions) -> bytes | None:
    """The pickle with each stand-in's GLOBAL line renamed to PyTorch's, or None if the lines are not exactly
    the ones the pickler wrote (a user's bytes that look like one)."""
    placeholders = _PLACEHOLDER_LINE.findall(raw)
    dtypes = _DTYPE_LINE.findall(raw)
    if (len(placeholders) != len(pickler.used_placeholders) or len(set(placeholders)) != len(placeholders)
            or len(dtypes) != len(pickler.used_dtypes) or len(set(dtypes)) != len(dtypes)):
        return None

    def placeholder(m: re.Match) -> bytes:
        p = PLACEHOLDERS[m.group(1).decode()]
        return f"c{p.module}\n{p.name}\n".encode("utf-8")

    raw = _PLACEHOLDER_LINE.sub(placeholder, raw)
    return _DTYPE_LINE.sub(lambda m: b"ctorch\n" + m.group(1) + b"\n", raw)


def pickle_object(obj: Any, pickle_module: Any, protocol: int) -> tuple[bytes, list[Storage]]:
    """``data.pkl`` for ``obj`` and the storages it references."""
    if pickle_module is pickle or pickle_module is None:
        c_class: type = _CPickler
        py_class: type | None = _PythonPickler
    else:
        c_class = type("_ModulePickler", (_Reductions, pickle_module.Pickler), {})
        py_class = None
    if protocol <= 3 or py_class is None:
        buf = io.BytesIO()
        pickler = c_class(buf, protocol=protocol)
        pickler._start()
        pickler.dump(obj)
        raw = buf.getvalue()
        renamed = _rename(raw, pickler) if protocol <= 3 else raw
        if renamed is not None:
            return renamed, pickler.table.storages
    assert py_class is not None
    buf = io.BytesIO()
    py_pickler = py_class(buf, protocol=protocol)
    py_pickler._start()
    py_pickler.dump(obj)
    return buf.getvalue(), py_pickler.table.storages


def write_archive(fh: Any, archive_name: str, data_pkl: bytes, storages: list[Storage],
                  byteorder_record: bool = True) -> None:
    """Write the checkpoint's records in PyTorch's order: the pickle, format records, storages, version, id."""
    w = ArchiveWriter(fh, archive_name)
    w.write_record("data.pkl", data_pkl)
    w.write_record(".format_version", b"1")
    w.write_record(".storage_alignment", b"64")
    if byteorder_record:
        w.write_record("byteorder", sys.byteorder.encode())
    crc = zlib.crc32(data_pkl)
    for s in storages:
        data = s.data()
        w.write_record(f"data/{s.key}", data)
        crc = zlib.crc32(f"{s.key}:{s.numel}".encode(), crc)
    w.write_record("version", b"3\n")
    serial = int.from_bytes(os.urandom(8), "little") % 10**20
    w.write_record(".data/serialization_id", f"{serial:020d}{crc:020d}".encode())
    w.finish()


def archive_name_for(path: str) -> str:
    """PyTorch's folder name for a file: its name without the extension."""
    stem = os.path.splitext(os.path.basename(path))[0]
    return stem or "archive"
