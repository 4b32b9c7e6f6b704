"""tensorlib: a NumPy-backed tensor library with autograd, in PyTorch's image.

Every public function, Tensor method, operator and property here is
overridable through the ``__torch_function__`` protocol (see
:mod:`tensorlib.overrides`); the few that are not are listed by
``tensorlib.overrides.get_ignored_functions()``. The names are declared next
to their implementations (:mod:`tensorlib._registry`) and bound here.
"""

from __future__ import annotations

import gc as _gc
import sys as _sys

# Importing creates some 100,000 objects that live as long as the process: collecting garbage while they
# appear finds none and costs a tenth of the import. Collection resumes at the end of this module.
_gc_was_enabled = _gc.isenabled()
_gc.disable()

from dispatch import save_code_cache as _save_code_cache

import importlib as _importlib

from . import _C, _VF, _errors, _hooks, _legacy, _methods, _threads, _typeinfo, cuda, ops
from ._autograd import (
    anomaly_mode as _anomaly_mode,
    engine as _engine,
    grad_mode as _grad_mode,
    graph as _graph,
    views as _views,
)
from ._dtype import (
    bool,
    complex64,
    complex128,
    dtype,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
)
from ._layout import jagged, layout, sparse_bsc, sparse_bsr, sparse_coo, sparse_csc, sparse_csr, strided
from ._memory_format import channels_last, channels_last_3d, contiguous_format, memory_format, preserve_format
from . import _namespace
from ._namespace import build as _build, install_methods as _install_methods
from ._protocol import protocol as _protocol
from ._registry import TENSORLIB as _TENSORLIB, bindings as _bindings, deferred as _deferred
from ._size import Size
from ._tensor import _NO_WRAP, Tensor, device
from .ops.creation import default_generator

# torch's dtype aliases
half = float16
float = float32  # noqa: A001
double = float64
short = int16
int = int32  # noqa: A001
long = int64
cfloat = complex64
cdouble = complex128

__version__ = "0.1.0"

for _cls in (Tensor, Size, dtype, device, memory_format, layout):
    _cls.__module__ = __name__


def _first_repr(t: Tensor, **kwargs: object) -> str:
    """The printer (tensorlib._repr, left for first use), imported to print the first tensor, then called directly."""
    printer = _importlib.import_module("._repr", __name__).tensor_repr
    _hooks.install(tensor_repr=printer)
    return printer(t, **kwargs)


# The Tensor class and the autograd engine sit below the ops and the printer: give them what they call.
_hooks.install(
    reverse_dims=ops.shape.reverse_dims, transpose=ops.shape.transpose, adjoint=ops.shape.adjoint, real=ops.conversion.real,
    imag=ops.unary.imag, alias=ops.shape.alias, to_dtype=ops.conversion.to_dtype,
    array_from_data=ops.creation.array_from_data, parse_size=ops.creation.parse_size, backward=_engine.backward,
    backward_root=_engine.backward_root, add_hook=_graph.add_hook,
    regenerate_view_history=_views.regenerate_view_history, tensor_repr=_first_repr,
    add=ops.arithmetic.add, mul=ops.arithmetic.mul, view_as_real=ops.complex_views.view_as_real,
    view_as_complex=ops.complex_views.view_as_complex, reshape=ops.shape.reshape, contiguous=ops.shape.contiguous,
    api=_sys.modules[__name__],
)

# The functions' wrappers are made on first access (module __getattr__ below): most programs use a few dozen
# of the ~500, and making them all is a tenth of the import.
_build(__name__, on_first_use=True)
# As in torch, as_subclass and __iter__ do not dispatch (see Tensor.__iter__).
_install_methods(Tensor, skip={"__new__", "__init__", "__torch_function__", "__hash__", "as_subclass", "__iter__"},
                 cached={"shape": "_size"})
_protocol.add_plain_type(Tensor, primary=True)
_protocol.translate_errors(_errors.translate, _errors.TRANSLATED)
for _t in (Size, dtype, device, memory_format, layout):
    _protocol.add_plain_type(_t)
_NO_WRAP.add(Tensor.grad.__get__)

from . import autograd, nn, overrides, return_types  # noqa: E402

# torch's historical module name: ``import tensorlib._overrides`` finds this very module.
_overrides = overrides
_sys.modules[__name__ + "._overrides"] = overrides

# Public parts a program that only computes gradients does not need load on first access (module __getattr__
# below), as tensorlib.nn's do. Listing the overridable or ignored functions loads them all first.
_ON_FIRST_USE = frozenset({"distributions", "fft", "linalg", "optim", "serialization", "special", "testing", "utils"})


def _load_all() -> None:
    for name in ("autograd.functional", "fft", "linalg", "serialization", "special", "testing"):  # those that register
        _importlib.import_module(f".{name}", __name__)


_protocol.registry.add_loader(_load_all)
_namespace.READY = True  # namespaces built from now on keep their compiled wrappers for the next import
# every namespace built so far is wrapped: keep the compiled wrappers for the next import
_save_code_cache()

if _gc_was_enabled:
    if not _gc.get_freeze_count():  # (someone else's frozen objects must stay frozen)
        # The objects made above live as long as the process: put them straight into the oldest generation
        # (freeze then unfreeze moves them, without visiting them), where the young collections do not scan
        # them again. Otherwise the first collection after enable() scans all of them, then the next middle one.
        _gc.freeze()
        _gc.unfreeze()
    _gc.enable()

__all__ = sorted(
    {b.name for b in _bindings(_TENSORLIB, load=False)}
    | set(_deferred(_TENSORLIB))
    | set(
        """bool uint8 int8 int16 int32 int64 float16 float32 float64 complex64 complex128 half float double short
        int long cfloat cdouble default_generator autograd cuda distributions fft linalg nn optim overrides return_types
        serialization special testing utils contiguous_format preserve_format channels_last channels_last_3d
        strided sparse_coo sparse_csr sparse_csc sparse_bsr sparse_bsc jagged""".split()
    )
)


def __getattr__(name: str) -> object:
    if name in _ON_FIRST_USE:
        return _importlib.import_module(f".{name}", __name__)  # binds the submodule here
    return _namespace.materialize(__name__, name)  # a function's wrapper, or AttributeError


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_ON_FIRST_USE) | _namespace.pending_names(__name__))
