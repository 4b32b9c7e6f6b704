"""``save`` and ``load``: checkpoints in PyTorch's own file format, read safely by default.

``save`` writes what ``torch.save`` writes: a zip archive holding the pickled object (``data.pkl``), in which
every tensor references a storage kept as raw little-endian bytes in its own record (``data/0``, ...).
``torch.load(path, weights_only=True)`` reads these files, and ``load`` reads PyTorch's, so pretrained
PyTorch weights load into tensorlib models with ``load_state_dict``. Tensors that share memory (a tensor and
its views) share one storage and share memory again after loading.

``load`` defaults to ``weights_only=True``, as torch does since 2.6: the pickle is run by an interpreter
that builds only tensors, parameters, dtypes, sizes, devices, containers and plain Python values, and
refuses any other global with a ``pickle.UnpicklingError`` naming it. ``weights_only=False`` loads any pickle
(modules, optimizers) from a trusted source. Files written by earlier tensorlib versions (a plain pickle)
still load.
"""

from __future__ import annotations

import builtins
import io
import os
import pickle
import sys
from typing import Any, Iterable

from ._registry import SERIALIZATION, TENSORLIB, public
from ._serialization import writer
from ._serialization.archive import ArchiveReader, readable_copy
from ._serialization.names import torch_globals
from ._serialization.rebuild import Loader
from ._serialization.unpickler import MalformedPickle, UnsupportedGlobal, WeightsOnlyPolicy, WeightsUnpickler
from ._tensor import device

__all__ = ["add_safe_globals", "clear_safe_globals", "get_safe_globals", "load", "safe_globals", "save"]

# Protocol 2, as torch: the only one torch's weights-only loader reads. The tensors' bytes are not pickled, so
# the protocol does not affect speed or size; any protocol up to 5 can be asked for and is read back.
DEFAULT_PROTOCOL = 2

_USER_SAFE: dict[tuple[str, str], Any] = {}
# the start of a file torch.save writes with _use_new_zipfile_serialization=False: the pickled magic number
_TORCH_LEGACY_MAGIC = b"\x80\x02\x8a\x0al\xfc\x9cF\xf9 j\xa8P\x19"


def _safe_key(g: Any) -> tuple[tuple[str, str], Any]:
    if isinstance(g, tuple):
        if len(g) != 2:
            raise ValueError(f"Expected tuple of length 2 (global, str of callable full path), but got tuple of "
                             f"length: {len(g)}")
        obj, full = g
        if type(full) is not str:
            raise TypeError(f"Expected second item in tuple to be str of callable full path, but got: {type(full)}")
        module, _, name = full.rpartition(".")
        return (module, name), obj
    return (g.__module__, g.__qualname__), g


@public(namespace=SERIALIZATION)
def add_safe_globals(safe_globals: Iterable[Any]) -> None:
    """Allow these classes and functions (or ``(obj, "module.name")`` pairs) in ``load(weights_only=True)``."""
    for g in safe_globals:
        key, obj = _safe_key(g)
        _USER_SAFE[key] = obj


@public(namespace=SERIALIZATION)
def get_safe_globals() -> list:
    """The objects added by :func:`add_safe_globals`."""
    return list(_USER_SAFE.values())


@public(namespace=SERIALIZATION)
def clear_safe_globals() -> None:
    """Forget every object added by :func:`add_safe_globals`."""
    _USER_SAFE.clear()


@public(namespace=SERIALIZATION)
class safe_globals:
    """Within the block, allow these globals in ``load(weights_only=True)`` (as :func:`add_safe_globals`)."""

    def __init__(self, safe_globals: Iterable[Any]) -> None:
        self.safe_globals = list(safe_globals)
        self._added: list[tuple[str, str]] = []

    def __enter__(self) -> None:
        for g in self.safe_globals:
            key, obj = _safe_key(g)
            if key not in _USER_SAFE:
                _USER_SAFE[key] = obj
                self._added.append(key)

    def __exit__(self, *exc: object) -> None:
        for key in self._added:
            _USER_SAFE.pop(key, None)
        self._added.clear()


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
    """Save ``obj`` (tensors, state dicts, any picklable object) to the path or file object ``f``.

    The file is PyTorch's checkpoint format (``torch.load`` reads it). Each tensor's memory is written
    once, straight from the tensor, and views of one tensor keep sharing their storage.
    ``_use_new_zipfile_serialization=False`` writes a plain pickle instead (the format earlier
    tensorlib versions wrote; torch cannot read it).
    """
    _check_path(f, "write")
    if type(pickle_protocol) is not int:
        raise TypeError(f"save(): pickle_protocol must be an int, got {type(pickle_protocol).__name__}")
    if not _use_new_zipfile_serialization:
        out = io.BytesIO()
        pickle_module.dump(obj, out, protocol=pickle_protocol)
        data = out.getvalue()
        if isinstance(f, (str, os.PathLike)):
            with builtins.open(f, "wb") as fh:
                fh.write(data)
        else:
            f.write(data)
        return
    # everything is pickled before the file is opened: a failure leaves an existing file as it was
    data_pkl, storages = writer.pickle_object(obj, pickle_module, pickle_protocol)
    if isinstance(f, (str, os.PathLike)):
        path = os.fspath(f)
        name = writer.archive_name_for(path if isinstance(path, str) else os.fsdecode(path))
        with builtins.open(path, "wb") as fh:
            writer.write_archive(fh, name, data_pkl, storages, not _disable_byteorder_record)
    else:
        writer.write_archive(f, "archive", data_pkl, storages, not _disable_byteorder_record)


@public(namespace=(SERIALIZATION, TENSORLIB))
def load(f: Any, map_location: Any = None, pickle_module: Any = None, *, weights_only: bool | None = None,
         mmap: bool | None = None, **pickle_load_args: Any) -> Any:
    """Load an object saved by :func:`save` or by ``torch.save`` from a path or file object.

    With ``weights_only`` (the default unless a ``pickle_module`` is given) only tensors, parameters,
    dtypes, sizes, devices, containers and plain values are rebuilt, so an untrusted file cannot run
    code. ``map_location`` (a device, string, dict or callable, as torch's) must put every storage on the
    CPU, the only device tensorlib has. ``mmap=True`` maps a file's storages copy-on-write instead of
    reading them.
    """
    _check_path(f, "read")
    if weights_only is None:
        weights_only = pickle_module is None
    if weights_only and pickle_module is not None:
        raise RuntimeError(
            "Can not safely load weights when explicit pickle_module is specified and weights_only=True. "
            "Please pass weights_only=False or remove the pickle_module argument."
        )
    if pickle_module is None:
        pickle_module = pickle
    _check_map_location(map_location)
    if "encoding" not in pickle_load_args:
        pickle_load_args["encoding"] = "utf-8"
    if weights_only:
        unknown = sorted(set(pickle_load_args) - {"encoding", "errors"})
        if unknown:
            raise TypeError(f"load() got an unexpected keyword argument {unknown[0]!r} (with weights_only=True only "
                            "'encoding' and 'errors' are passed to the unpickler)")
    if isinstance(f, (str, os.PathLike)):
        with builtins.open(f, "rb") as fh:
            return _load(fh, repr(os.fspath(f)), map_location, pickle_module, weights_only, bool(mmap),
                         pickle_load_args)
    if mmap:
        raise ValueError("f must be a file path in order to use the mmap argument")
    name = getattr(f, "name", None)
    source = repr(name) if isinstance(name, str) else f"the {type(f).__name__} object"
    return _load(f, source, map_location, pickle_module, weights_only, False, pickle_load_args)


def _load(fh: Any, source: str, map_location: Any, pickle_module: Any, weights_only: bool, mmap: bool,
          kwargs: dict) -> Any:
    seekable = _seekable(fh)
    if not seekable:
        fh = readable_copy(fh)
    start = fh.tell()
    magic = fh.read(4)
    fh.seek(start)
    if not magic:
        raise EOFError(f"cannot load {source}: the file is empty")
    if magic[:2] == b"PK" or b"PK".startswith(magic):  # a zip archive, possibly cut short

        return _load_zip(fh, source, map_location, pickle_module, weights_only, mmap, kwargs)
    if mmap:
        raise RuntimeError(f"cannot load {source} with mmap=True: only zip checkpoints (what save writes) can be "
                           "memory-mapped")
    data = fh.read()
    if data.startswith(_TORCH_LEGACY_MAGIC):
        raise RuntimeError(f"cannot load {source}: it was written by torch.save with "
                           "_use_new_zipfile_serialization=False (PyTorch's format before 1.6), which tensorlib does "
                           "not read; load it with torch and save it again with torch.save's default format")
    loader = Loader(None, source, map_location, weights_only)
    try:
        return _unpickle(data, loader, pickle_module, weights_only, kwargs)
    except MalformedPickle as e:
        raise MalformedPickle(f"cannot load {source}: it is neither a checkpoint archive nor a pickle ({e})") from None


def _seekable(fh: Any) -> bool:
    try:
        if hasattr(fh, "seekable") and not fh.seekable():
            return False
        fh.seek(fh.tell())
        return True
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return False


def _load_zip(fh: Any, source: str, map_location: Any, pickle_module: Any, weights_only: bool, mmap: bool,
              kwargs: dict) -> Any:
    archive = ArchiveReader(fh, source, mmap_path=fh.name if mmap else None)
    try:
        if archive.has_record("constants.pkl"):
            raise RuntimeError(f"cannot load {source}: it is a TorchScript archive (torch.jit.save), not a checkpoint")
        if not archive.has_record("data.pkl"):
            raise archive.error("the archive has no data.pkl record: it was not written by torch.save or "
                                "tensorlib.save")
        byteorder: str
        if archive.has_record("byteorder"):
            recorded = archive.get_record("byteorder", limit=16)
            if recorded not in (b"little", b"big"):
                raise archive.error(f"unknown byte order {recorded!r}")
            byteorder = recorded.decode()
        else:
            byteorder = "little"  # torch's default for files without the record
        loader = Loader(archive, source, map_location, weights_only, byteswap=byteorder != sys.byteorder)
        try:
            return _unpickle(archive.get_record("data.pkl"), loader, pickle_module, weights_only, kwargs)
        except MalformedPickle as e:
            raise MalformedPickle(f"cannot load {source}: its data.pkl is not a valid pickle ({e})") from None
    finally:
        archive.close()


def _unpickle(data: bytes, loader: Loader, pickle_module: Any, weights_only: bool, kwargs: dict) -> Any:
    if weights_only:
        policy = WeightsOnlyPolicy(loader, dict(_USER_SAFE))
        try:
            return WeightsUnpickler(data, policy, **kwargs).load()
        except MalformedPickle:
            raise
        except pickle.UnpicklingError as e:
            raise pickle.UnpicklingError(_weights_only_message(e)) from None
    return _full_unpickler(pickle_module, loader)(io.BytesIO(data), **kwargs).load()


def _weights_only_message(e: pickle.UnpicklingError) -> str:
    if isinstance(e, UnsupportedGlobal):
        return (
            "Weights only load failed. This file can still be loaded, to do so you have two options, do those steps "
            "only if you trust the source of the checkpoint.\n"
            "\t(1) Re-running `tensorlib.load` with `weights_only` set to `False` will likely succeed, but it can "
            "result in arbitrary code execution. Do it only if you got the file from a trusted source.\n"
            "\t(2) Alternatively, to load with `weights_only=True` please check the recommended steps in the "
            "following error message.\n"
            f"\tWeightsUnpickler error: {e}"
        )
    return (
        "Weights only load failed. Re-running `tensorlib.load` with `weights_only` set to `False` will likely "
        "succeed, but it can result in arbitrary code execution. Do it only if you got the file from a trusted "
        f"source.\n\tWeightsUnpickler error: {e}"
    )


def _full_unpickler(pickle_module: Any, loader: Loader) -> Any:
    """``pickle_module``'s unpickler, with PyTorch's names mapped to tensorlib's and storages read from the file."""

    class _Unpickler(pickle_module.Unpickler):
        def find_class(self, module: str, name: str) -> Any:
            found = torch_globals(loader, module, name)
            if found is not None:
                return found
            return super().find_class(module, name)

        def persistent_load(self, pid: Any) -> Any:
            return loader.persistent_load(pid)

    return _Unpickler


def _check_map_location(map_location: Any) -> None:
    if map_location is None or callable(map_location) or isinstance(map_location, dict):
        return

    kind = device(map_location).type
    if kind != "cpu":
        raise RuntimeError(
            f"cannot load onto the {kind!r} device: tensorlib is CPU-only (pass map_location='cpu' or leave it out)"
        )


from ._namespace import build as _build  # noqa: E402  (binds and registers the declarations above)

_build(__name__)
