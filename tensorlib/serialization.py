"""``save`` and ``load``: objects holding tensors, pickled to a file path or a file object.

The file is a plain pickle stream. ``load`` defaults to ``weights_only=True``,
as torch does: only tensors, parameters, dtypes, sizes, containers and plain
Python values are rebuilt, so loading an untrusted checkpoint cannot run
arbitrary code. Pass ``weights_only=False`` for whole pickled objects (modules,
optimizers) from a trusted source.
"""

from __future__ import annotations

import builtins
import os
import pickle
from typing import Any, Iterable

from ._registry import SERIALIZATION, TENSORLIB, public

__all__ = ["add_safe_globals", "clear_safe_globals", "get_safe_globals", "load", "save"]

DEFAULT_PROTOCOL = 2

# (module, name) pairs the weights-only unpickler may look up, beyond tensorlib's own names below.
_ALLOWED: set[tuple[str, str]] = {
    ("collections", "OrderedDict"),
    ("collections", "defaultdict"),
    ("_codecs", "encode"),
    ("numpy", "dtype"),
    ("numpy", "ndarray"),
    ("numpy._core.multiarray", "_reconstruct"),
    ("numpy.core.multiarray", "_reconstruct"),
    ("numpy._core.multiarray", "scalar"),
    ("numpy.core.multiarray", "scalar"),
    ("builtins", "set"),
    ("builtins", "frozenset"),
    ("builtins", "slice"),
    ("builtins", "complex"),
    ("builtins", "range"),
    ("tensorlib._tensor", "_rebuild"),
    ("tensorlib.nn.parameter", "_rebuild_parameter"),
    ("tensorlib", "Tensor"),
    ("tensorlib", "Size"),
    ("tensorlib", "device"),
    ("tensorlib.nn.parameter", "Parameter"),
    ("tensorlib.nn.parameter", "Buffer"),
}
_USER_SAFE: dict[tuple[str, str], Any] = {}


@public(namespace=SERIALIZATION)
def add_safe_globals(safe_globals: Iterable[Any]) -> None:
    """Allow these classes and functions (or ``(obj, "module.name")`` pairs) in ``load(weights_only=True)``."""
    for g in safe_globals:
        if isinstance(g, tuple):
            obj, full = g
            module, _, name = full.rpartition(".")
        else:
            obj, module, name = g, g.__module__, g.__qualname__
        _USER_SAFE[(module, name)] = obj


@public(namespace=SERIALIZATION)
def get_safe_globals() -> list:
    """The objects added by :func:`add_safe_globals`."""
    return list(_USER_SAFE.values())


@public(namespace=SERIALIZATION)
def clear_safe_globals() -> None:
    """Forget every object added by :func:`add_safe_globals`."""
    _USER_SAFE.clear()


def _is_dtype_name(module: str, name: str) -> bool:
    if module != "tensorlib":
        return False

    return isinstance(getattr(_dtype, name, None), _dtype.dtype)


class _WeightsUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        key = (module, name)
        if key in _USER_SAFE:
            return _USER_SAFE[key]
        if key in _ALLOWED or _is_dtype_name(module, name):
            return super().find_class(module, name)
        raise pickle.UnpicklingError(
            "Weights only load failed. This file can still be loaded, to do so you have two options, do those steps "
            "only if you trust the source of the checkpoint.\n"
            "\t(1) Re-running `tensorlib.load` with `weights_only` set to `False` will likely succeed, but it can "
            "result in arbitrary code execution.\n"
            "\t(2) Alternatively, to load with `weights_only=True` please check the recommended steps in the "
            "following error message.\n"
            f"\tWeightsUnpickler error: Unsupported global: GLOBAL {module}.{name} was not an allowed global by "
            f"default. Please use `tensorlib.serialization.add_safe_globals([{name}])` to allowlist this global if "
            "you trust this class/function."
        )


def _check_path(f: Any, what: str) -> None:
    if not isinstance(f, (str, os.PathLike)) and not hasattr(f, what):
        if what == "write":
            raise AttributeError("expected 'f' to be string, path, or a file-like object with a 'write' attribute")
        raise AttributeError(
            f"'{type(f).__name__}' object has no attribute '{what}'. You can only tensorlib.load from a file-like "
            "object with a 'read' method, or a path."
        )


@public(namespace=(SERIALIZATION, TENSORLIB))
def save(obj: object, f: Any, pickle_module: Any = pickle, pickle_protocol: int = DEFAULT_PROTOCOL,
         _use_new_zipfile_serialization: bool = True, _disable_byteorder_record: bool = False) -> None:
    """Pickle ``obj`` (tensors, state dicts, any picklable object) to the path or file object ``f``."""
    _check_path(f, "write")
    if isinstance(f, (str, os.PathLike)):
        with builtins.open(f, "wb") as fh:
            pickle_module.dump(obj, fh, protocol=pickle_protocol)
    else:
        pickle_module.dump(obj, f, protocol=pickle_protocol)


@public(namespace=(SERIALIZATION, TENSORLIB))
def load(f: Any, map_location: Any = None, pickle_module: Any = None, *, weights_only: bool | None = None,
         mmap: bool | None = None, **pickle_load_args: Any) -> Any:
    """Rebuild an object written by :func:`save` from a path or file object.

    With ``weights_only`` (the default) only tensors, dtypes, sizes, containers
    and plain values may appear; ``map_location`` is checked (only the CPU exists).
    """
    _check_path(f, "read")
    if weights_only is None:
        weights_only = pickle_module is None
    if weights_only and pickle_module is not None:
        raise RuntimeError(
            "Can not safely load weights when explicit pickle_module is specified and weights_only=True. "
            "Please pass weights_only=False or remove the pickle_module argument."
        )
    _check_map_location(map_location)
    if isinstance(f, (str, os.PathLike)):
        with builtins.open(f, "rb") as fh:
            return _load(fh, pickle_module, weights_only, pickle_load_args)
    return _load(f, pickle_module, weights_only, pickle_load_args)


def _load(fh: Any, pickle_module: Any, weights_only: bool, kwargs: dict) -> Any:
    if weights_only:
        return _WeightsUnpickler(fh, **kwargs).load()
    return (pickle_module or pickle).load(fh, **kwargs)


def _check_map_location(map_location: Any) -> None:
    if map_location is None or callable(map_location) or isinstance(map_location, dict):
        return

    kind = device(map_location).type
    if kind != "cpu":
        raise RuntimeError(
            f"cannot load onto the {kind!r} device: tensorlib is CPU-only (pass map_location='cpu' or leave it out)"
        )


from . import _dtype
from ._namespace import build as _build  # noqa: E402  (binds and registers the declarations above)
from ._tensor import device

_build(__name__)
