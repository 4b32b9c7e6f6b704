"""Errors that escape an implementation become torch's at the public boundary.

Ops check what torch checks and raise torch's errors themselves. What they do
not check (``None`` or a list where a tensor goes, a dtype NumPy has no loop
for) would surface as a Python or NumPy error from deep inside, such as
``AttributeError: 'NoneType' object has no attribute '_data'``. The wrappers
hand such failures to :func:`translate` (see ``dispatch.Protocol.translate_errors``):
an argument that does not match its annotation becomes torch's
``TypeError: add(): argument 'other' (position 2) must be Tensor, not NoneType``,
a missing NumPy loop torch's ``NotImplementedError: "atan2" not implemented for 'ComplexFloat'``.
Errors an op raises on purpose (from a ``raise`` statement of tensorlib) are left alone.
"""

from __future__ import annotations

import inspect
import linecache
import os
from typing import Any, Callable

from ._alloc import allocation_error, int64_overflow_error
from ._dtype import dtype
from ._layout import layout
from ._memory_format import memory_format
from ._protocol import protocol
from ._tensor import Tensor
from .ops.creation import Generator

# the exception types a failed implementation is looked at for
TRANSLATED: tuple[type[BaseException], ...] = (
    AttributeError, KeyError, ZeroDivisionError, OverflowError, TypeError, ValueError, IndexError, UnboundLocalError,
    MemoryError,
)
# parameters torch types by their name, whatever tensorlib's annotation says
_BY_NAME: dict[str, type] = {"dtype": dtype, "generator": Generator, "layout": layout, "memory_format": memory_format}
_ROOTS = tuple(os.path.dirname(os.path.abspath(p)) + os.sep for p in (__file__, inspect.getfile(protocol.__class__)))
# torch's C++ names of the dtypes, as its "not implemented for" errors spell them
_CPP_NAMES = {
    "bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int", "int64": "Long",
    "float16": "Half", "float32": "Float", "float64": "Double", "complex64": "ComplexFloat",
    "complex128": "ComplexDouble",
}


def deliberate(exc: BaseException) -> bool:
    """Whether ``exc`` was raised by a ``raise`` statement of tensorlib or dispatch (an error meant for the user)."""
    tb = exc.__traceback__
    if tb is None:
        return True
    while tb.tb_next is not None:
        tb = tb.tb_next
    filename = tb.tb_frame.f_code.co_filename
    return filename.startswith(_ROOTS) and linecache.getline(filename, tb.tb_lineno).lstrip().startswith("raise")


def translate(func: Callable, exc: BaseException, args: tuple, kwargs: dict) -> BaseException | None:
    """torch's error for a call of ``func`` whose implementation failed with ``exc`` (None: keep ``exc``)."""
    if deliberate(exc):
        return None
    alloc = allocation_error(exc) or int64_overflow_error(getattr(func, "__name__", "function"), exc, args, kwargs)
    if alloc is not None:
        return alloc
    if protocol.registry.is_method(func) and not (args and isinstance(args[0], Tensor)):
        # a method called on the class with something else as self, in Python's words for descriptors
        owner = type(args[0]).__name__ if args else "NoneType"
        return TypeError(f"descriptor '{getattr(func, '__name__', func)}' for 'tensorlib.Tensor' objects doesn't apply "
                         f"to a '{owner}' object")
    message = argument_mismatch(func, args, kwargs)
    if message is not None:
        return TypeError(message)
    text = str(exc)
    # NumPy's linear algebra has no half-precision kernels; neither have torch's (in its words)
    if isinstance(exc, TypeError) and text.startswith("array type") and "unsupported in linalg" in text:
        dtypes = [_CPP_NAMES.get(a.dtype.name, a.dtype.name) for a in args if isinstance(a, Tensor)]
        name = getattr(func, "__name__", "linalg")
        return NotImplementedError(f"\"{name}_cpu\" not implemented for '{dtypes[0] if dtypes else 'Half'}'")
    # NumPy has no loop for these dtypes, or would have to cast complex values to real ones
    if isinstance(exc, TypeError) and ("not supported for the input types" in text
                                       or (text.startswith("Cannot cast") and "complex" in text)):
        dtypes = [_CPP_NAMES.get(a.dtype.name, a.dtype.name) for a in args if isinstance(a, Tensor)]
        if dtypes:
            return NotImplementedError(f"\"{getattr(func, '__name__', func)}\" not implemented for '{dtypes[0]}'")
    return None


def _accepts(annotation: str, value: Any, scope: dict) -> bool | None:
    """Whether ``value`` fits an annotation tensorlib uses (None when the annotation is not one of those)."""
    ann = annotation.replace(" ", "").replace("Optional[", "").rstrip("]") if annotation.startswith("Optional[") \
        else annotation.replace(" ", "")
    optional = ann.endswith("|None") or annotation.startswith("Optional[")
    ann = ann.removesuffix("|None")
    if optional and value is None:
        return True
    if ann == "Tensor":
        return isinstance(value, Tensor)
    if ann == "bool":
        return isinstance(value, bool)
    if ann == "int":
        return isinstance(value, int) or (isinstance(value, Tensor) and value.dim() == 0)
    if ann == "float":
        return isinstance(value, (int, float)) or (isinstance(value, Tensor) and value.dim() == 0)
    if ann in ("Sequence[Tensor]", "list[Tensor]", "tuple[Tensor,...]"):
        return isinstance(value, (list, tuple)) and all(isinstance(v, Tensor) for v in value)
    cls = _class(ann, scope)
    if cls is not None:
        return isinstance(value, cls)
    return None


def _class(name: str, scope: dict) -> type | None:
    """The tensorlib class an annotation names (``Generator``, ``DType``, ``device``, ...), if it is one."""
    cls = scope.get(name) if name.isidentifier() else None
    if isinstance(cls, type) and cls.__module__.split(".")[0] == "tensorlib" and cls is not Tensor:
        return cls
    return None


def _kind(annotation: str, scope: dict) -> str:
    ann = annotation.replace(" ", "").removesuffix("|None")
    cls = _class(ann, scope)
    if cls is not None:
        return f"tensorlib.{cls.__name__}"
    return {"Sequence[Tensor]": "tuple of Tensors", "list[Tensor]": "tuple of Tensors",
            "tuple[Tensor,...]": "tuple of Tensors"}.get(ann, ann)


def argument_mismatch(func: Callable, args: tuple, kwargs: dict) -> str | None:
    """torch's message for the first argument of the call that does not fit its annotation, if any."""
    impl = protocol.registry.implementation(func) or func
    try:
        sig = inspect.signature(impl)
        bound = sig.bind(*args, **kwargs)
    except (TypeError, ValueError):
        return None
    name = getattr(func, "__name__", "function")
    scope = getattr(inspect.unwrap(impl), "__globals__", {})
    positional = list(sig.parameters)
    method = protocol.registry.is_method(func)
    for pname, value in bound.arguments.items():
        param = sig.parameters[pname]
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        annotation = param.annotation if isinstance(param.annotation, str) else getattr(param.annotation, "__name__", "")
        fits = _accepts(annotation, value, scope)
        if fits is None and pname in _BY_NAME and value is not None:
            # parameters torch types by what they are, whatever the annotation says
            cls = _BY_NAME[pname]
            annotation, fits = cls.__name__, isinstance(value, cls)
            scope = {**scope, cls.__name__: cls}
        if fits is not False:
            continue
        where = ""
        if pname not in kwargs:
            position = positional.index(pname) + (0 if method else 1)
            where = f" (position {position})"
        return f"{name}(): argument '{pname}'{where} must be {_kind(annotation, scope)}, not {type(value).__name__}"
    return None
