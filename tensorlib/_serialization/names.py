"""The globals a checkpoint names: PyTorch's, as the writer emits them, and what the loader makes of each.

Writing: a file must name ``torch._utils._rebuild_tensor_v2``, ``torch.FloatStorage``, ``torch.float32``...
without torch being imported. The pickler writes module-level stand-ins (:class:`TorchName`, saved under
their attribute name in this module) and the writer then renames them (see ``writer``).

Reading: :func:`torch_globals` maps PyTorch's names (and the names earlier tensorlib files used) to the
loader's checked rebuild functions and to tensorlib's classes and dtypes; :data:`SAFE_VALUES` and
:data:`SAFE_CALLS` say what else a weights-only pickle may name and call.
"""

from __future__ import annotations

import _compat_pickle
import codecs
from collections import Counter, OrderedDict
from typing import Any

import numpy as np

from .. import _dtype
from .._dtype import dtype as DType
from .._size import Size
from .._tensor import Tensor, device
from ..nn.parameter import Buffer, Parameter
from . import rebuild
from .rebuild import STORAGE_NAME_OF, STORAGE_TYPES, Loader, StorageType


class TorchName:
    """Stands for a PyTorch global (``torch._utils._rebuild_tensor_v2``) in what the writer pickles."""

    __slots__ = ("module", "name", "attr")

    def __init__(self, module: str, name: str) -> None:
        self.module = module
        self.name = name
        self.attr = "_" + f"{module}.{name}".replace(".", "_")

    def __reduce__(self) -> str:
        return self.attr  # pickled by reference, as this module's attribute

    def __call__(self, *args: Any) -> Any:  # picklers want the function of a reduce tuple to be callable
        raise TypeError(f"{self!r} only stands for PyTorch's global in a pickle")

    def __repr__(self) -> str:
        return f"<{self.module}.{self.name}>"


PLACEHOLDERS: dict[str, TorchName] = {}


def _placeholder(module: str, name: str) -> TorchName:
    p = TorchName(module, name)
    PLACEHOLDERS[p.attr] = p
    globals()[p.attr] = p
    return p


REBUILD_TENSOR_V2 = _placeholder("torch._utils", "_rebuild_tensor_v2")
REBUILD_PARAMETER = _placeholder("torch._utils", "_rebuild_parameter")
REBUILD_PARAMETER_WITH_STATE = _placeholder("torch._utils", "_rebuild_parameter_with_state")
REBUILD_FROM_TYPE_V2 = _placeholder("torch._tensor", "_rebuild_from_type_v2")
TORCH_TENSOR = _placeholder("torch", "Tensor")
TORCH_PARAMETER = _placeholder("torch.nn.parameter", "Parameter")
TORCH_SIZE = _placeholder("torch", "Size")
TORCH_DEVICE = _placeholder("torch", "device")
STORAGE_CLASS: dict[DType, TorchName] = {d: _placeholder("torch", name) for d, name in STORAGE_NAME_OF.items()}
DTYPE_NAMES = tuple(d.name for d in _dtype.ALL)  # a dtype pickles as the global tensorlib.<name>, written torch.<name>

# -- reading ------------------------------------------------------------------------------------------------------

_DTYPES = {d.name: d for d in _dtype.ALL} | dict(_dtype.ALIASES)


def torch_globals(loader: Loader, module: str, name: str) -> Any:
    """What PyTorch's global ``module.name`` (or an earlier tensorlib file's) is in tensorlib, or None."""
    if module == __name__ and name in PLACEHOLDERS:  # a stand-in left unrenamed (another pickle module's output)
        p = PLACEHOLDERS[name]
        return torch_globals(loader, p.module, p.name)
    if module == "torch._utils":
        found = {
            "_rebuild_tensor_v2": loader.rebuild_tensor_v2,
            "_rebuild_tensor_v3": loader.rebuild_tensor_v3,
            "_rebuild_tensor": loader.rebuild_tensor,
            "_rebuild_parameter": loader.rebuild_parameter,
            "_rebuild_parameter_with_state": loader.rebuild_parameter_with_state,
        }.get(name)
        return found
    if module == "torch._tensor" and name == "_rebuild_from_type_v2":
        return loader.rebuild_from_type_v2
    if module == "tensorlib._tensor" and name == "_rebuild":
        return loader.legacy_rebuild
    if module == "tensorlib.nn.parameter" and name == "_rebuild_parameter":
        return loader.legacy_rebuild_parameter
    if (module == "torch" or module.startswith("torch.")) and name in STORAGE_TYPES:
        return STORAGE_TYPES[name]
    if module in ("torch", "tensorlib"):
        d = _DTYPES.get(name)
        if d is not None:
            return d
        if module == "torch" and name in _TORCH_ONLY_DTYPES:
            raise loader.error(f"the file holds torch.{name} values; tensorlib has no such dtype")
    return _TORCH_CLASSES.get((module, name))


_TORCH_ONLY_DTYPES = frozenset({
    "bfloat16", "complex32", "chalf", "uint16", "uint32", "uint64", "float8_e4m3fn", "float8_e5m2",
    "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu", "float4_e2m1fn_x2", "qint8", "qint32", "quint8",
    "quint4x2", "quint2x4", "bits8", "bits16", "bits1x8", "bits2x4", "bits4x2", "int1", "int2", "int3", "int4",
    "int5", "int6", "int7", "uint1", "uint2", "uint3", "uint4", "uint5", "uint6", "uint7",
})

_TORCH_CLASSES: dict[tuple[str, str], Any] = {
    ("torch", "Tensor"): Tensor,
    ("torch._tensor", "Tensor"): Tensor,
    ("torch", "Size"): Size,
    ("torch", "device"): device,
    ("torch.nn.parameter", "Parameter"): Parameter,
    ("torch.nn.parameter", "Buffer"): Buffer,
    ("tensorlib", "Tensor"): Tensor,
    ("tensorlib", "Size"): Size,
    ("tensorlib", "device"): device,
    ("tensorlib.nn.parameter", "Parameter"): Parameter,
    ("tensorlib.nn.parameter", "Buffer"): Buffer,
}

# What else a weights-only pickle may name: plain Python and (for earlier tensorlib files) NumPy values.
SAFE_VALUES: dict[tuple[str, str], Any] = {
    ("collections", "OrderedDict"): OrderedDict,
    ("collections", "Counter"): Counter,
    ("builtins", "set"): set,
    ("builtins", "frozenset"): frozenset,
    ("builtins", "complex"): complex,
    ("builtins", "slice"): slice,
    ("builtins", "range"): range,
    ("builtins", "bytearray"): bytearray,
    ("builtins", "bytes"): bytes,
    ("_codecs", "encode"): codecs.encode,
    ("numpy", "ndarray"): np.ndarray,
    ("numpy", "dtype"): np.dtype,
    ("numpy._core.multiarray", "_reconstruct"): rebuild.safe_np_reconstruct,
    ("numpy.core.multiarray", "_reconstruct"): rebuild.safe_np_reconstruct,
    ("numpy._core.numeric", "_frombuffer"): rebuild.safe_np_frombuffer,
    ("numpy.core.numeric", "_frombuffer"): rebuild.safe_np_frombuffer,
    ("numpy._core.multiarray", "scalar"): rebuild.safe_np_scalar,
    ("numpy.core.multiarray", "scalar"): rebuild.safe_np_scalar,
}

# What a weights-only pickle may call, and the checked constructor that runs instead.
SAFE_CALLS: dict[Any, Any] = {
    OrderedDict: rebuild.safe_ordered_dict,
    Counter: rebuild.safe_counter,
    set: rebuild.safe_set,
    frozenset: rebuild.safe_frozenset,
    complex: rebuild.safe_complex,
    slice: rebuild.safe_slice,
    range: rebuild.safe_range,
    bytearray: rebuild.safe_bytearray,
    bytes: rebuild.safe_bytes,
    codecs.encode: rebuild.safe_encode,
    np.dtype: rebuild.safe_np_dtype,
    rebuild.safe_np_reconstruct: rebuild.safe_np_reconstruct,
    rebuild.safe_np_scalar: rebuild.safe_np_scalar,
    rebuild.safe_np_frombuffer: rebuild.safe_np_frombuffer,
    Size: rebuild.safe_size,
    device: rebuild.safe_device,
}


def python2_name(module: str, name: str) -> tuple[str, str]:
    """Python 2's names (``__builtin__.set``), which protocol 2 writes, as Python 3's."""
    if (module, name) in _compat_pickle.NAME_MAPPING:
        return _compat_pickle.NAME_MAPPING[(module, name)]
    return _compat_pickle.IMPORT_MAPPING.get(module, module), name


__all__ = ["PLACEHOLDERS", "SAFE_CALLS", "SAFE_VALUES", "STORAGE_CLASS", "StorageType", "TorchName", "torch_globals"]
