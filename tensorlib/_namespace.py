"""Building tensorlib's public namespaces from the op registry (:mod:`tensorlib._registry`).

Each namespace module declares nothing itself: it imports the modules whose
implementations declare into it, then binds what :func:`build` returns. The
Tensor class gets its methods and operators from :func:`install_methods`.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import sys
import threading
from typing import Any, Callable

from dispatch import save_code_cache
from dispatch._codegen import DerivedSignature

from . import _calling, _registry
from ._protocol import protocol
from .ops._pointwise import inplace_apply

# Set once ``import tensorlib`` has built its namespaces: namespaces built later (on first use) save the wrappers
# they compiled themselves, since no import is running that would save them at its end.
READY = False


def method_signature(func: Callable) -> inspect.Signature:
    """The method form of a function's signature: first parameter renamed ``self``, no ``out``.

    Built when first read: wrapping uses only its shape, read from ``func``'s code object.
    """
    return DerivedSignature(func, first="self", drop=("out",))


def inplace_variant(func: Callable, name: str) -> Callable:
    """``name`` (e.g. ``exp_``): ``func``'s result written into ``self``, with ``func``'s method signature."""

    def inplace(self: Any, *args: Any, **kwargs: Any) -> Any:
        return inplace_apply(self, func, args, kwargs, name)

    inplace.__name__ = inplace.__qualname__ = name
    inplace.__module__ = func.__module__
    inplace.__doc__ = f"In-place version of :func:`{func.__name__}`."
    inplace.__signature__ = method_signature(func)  # type: ignore[attr-defined]
    return inplace


def implementation(binding: _registry.Binding) -> Callable:
    """The raw callable behind a binding (derived in-place variants are built here)."""
    if binding.inplace_of is not None:
        return inplace_variant(binding.inplace_of, binding.name)
    return binding.impl


def _signature(binding: _registry.Binding, impl: Callable) -> inspect.Signature | None:
    if binding.inplace_of is not None:
        return impl.__signature__  # type: ignore[attr-defined]
    if binding.method_form:
        return method_signature(impl)
    return None


def call_form(namespace: str, name: str, signature: Callable[[], inspect.Signature]) -> dict[str, Any]:
    """How handlers see calls of ``namespace.name`` (see :mod:`tensorlib._calling`), as options of ``protocol.wrap``.

    ``signature`` is called only for the few names that need it (signatures are slow to compute).
    """
    form: dict[str, Any] = {}
    keywords = _calling.PYTHON_LEVEL.get(namespace, {}).get(name)
    if keywords is not None:
        params = signature().parameters
        form["empty_kwargs"] = "dict"
        form["keyword_params"] = [k for k in keywords if k in params]
        form["list_plain"] = True  # torch's Python-level functions list torch.Tensor among the types
    if namespace == _registry.TENSOR and name in _calling.BINARY_OPERATORS:
        form["operator"] = True
    return form


def _wrap(binding: _registry.Binding, module: Any) -> Callable:
    impl = implementation(binding)
    signature = _signature(binding, impl)
    return protocol.wrap(
        impl, name=binding.name, qualname=binding.name, module=module.__name__,
        signature=signature, namespace=module, modes_only=binding.dispatch == "modes", prepare=binding.prepare,
        **call_form(module.__name__, binding.name, lambda: signature or inspect.signature(impl)),
    )


# namespace -> name -> what build(..., on_first_use=True) has not made yet: a binding, or the name of the module
# left for first use that declares it (see _registry.ON_FIRST_USE_MODULES)
_PENDING: dict[str, dict[str, "_registry.Binding | str"]] = {}
_PENDING_LOCK = threading.RLock()  # re-entrant: making one wrapper never waits on itself


def build(module_name: str, *, on_first_use: bool = False) -> dict[str, Any]:
    """The public objects of namespace ``module_name``, as declared in the registry; registers them for dispatch.

    Overridable functions are wrapped; functions only modes see are wrapped as
    such; the rest is bound as it is and listed as ignored. With
    ``on_first_use=True`` the wrappers are made when first asked for (the
    module's ``__getattr__`` calls :func:`materialize`; listing the overridable
    or ignored functions makes them all), the op modules left for first use are
    not imported, and neither is in the returned dict.
    """
    module = sys.modules[module_name]
    out: dict[str, Any] = {}
    ignored = []
    pending: dict[str, _registry.Binding | str] = {}
    for binding in _registry.bindings(module_name, load=not on_first_use):
        if binding.dispatch == "none":
            out[binding.name] = implementation(binding)
            ignored.append(binding.name)
        elif on_first_use:
            pending[binding.name] = binding
        else:
            out[binding.name] = _wrap(binding, module)
            if binding.dispatch == "modes":
                ignored.append(binding.name)  # modes still see it
    if on_first_use:
        pending.update(_registry.deferred(module_name))
    vars(module).update({k: v for k, v in out.items() if k not in pending})
    protocol.registry.add_ignored(module, [n for n in ignored if n not in pending])
    if pending:
        _PENDING[module_name] = pending
        protocol.registry.add_loader(functools.partial(materialize_all, module_name))
    if READY:
        save_code_cache()
    return out


def pending_names(module_name: str) -> set[str]:
    """The names of ``module_name`` whose wrappers are still to be made on first use."""
    return set(_PENDING.get(module_name, ()))


def _declared(namespace: str, name: str, entry: "_registry.Binding | str") -> _registry.Binding:
    """The binding of a pending entry, importing the module that declares it when it is a module's name."""
    if isinstance(entry, str):
        importlib.import_module(entry)
        found = _registry.binding(namespace, name)
        if found is None:  # the generated list of declarations is stale
            raise AttributeError(f"{entry} does not declare {namespace}.{name}: run `python -m tensorlib._stubs`")
        return found
    return entry


def materialize(module_name: str, name: str) -> Any:
    """The public object ``module_name.name`` left for first use by :func:`build`, made and bound now.

    Raises AttributeError, as a missing module attribute does, if nothing of that name is pending.
    """
    module = sys.modules[module_name]
    with _PENDING_LOCK:  # two threads asking at once get the same object
        made = vars(module).get(name)
        if made is not None:
            return made
        pending = _PENDING.get(module_name)
        # a name declared after build (by a module imported since) has no pending entry: its binding is looked up
        entry = None if pending is None else pending.pop(name, None) or _registry.binding(module_name, name)
        if entry is None:
            raise AttributeError(f"module {module_name!r} has no attribute {name!r}")
        binding = _declared(module_name, name, entry)
        made = implementation(binding) if binding.dispatch == "none" else _wrap(binding, module)
        setattr(module, name, made)
        if binding.dispatch != "full":
            protocol.registry.add_ignored(module, [name])
    if READY:
        save_code_cache()
    return made


def materialize_all(module_name: str) -> None:
    """Make every wrapper of ``module_name`` still pending (before listing what is overridable)."""
    for name in sorted(pending_names(module_name)):
        materialize(module_name, name)


def _wrap_method(binding: _registry.Binding, cls: type) -> Callable:
    impl = implementation(binding)
    signature = _signature(binding, impl)
    return protocol.wrap(
        impl, name=binding.name, qualname=f"{cls.__qualname__}.{binding.name}", module=cls.__module__,
        signature=signature, namespace=cls, doc=impl.__doc__, inline=getattr(impl, "_dispatch_inline", None),
        inline_first=getattr(impl, "_dispatch_inline_first", False),
        **call_form(_registry.TENSOR, binding.name, lambda: signature or inspect.signature(impl)),
    )


class _PendingMethod:
    """A declared method whose wrapper is made on first access; the wrapper then takes its place in the class.

    ``declared`` is its binding, or the name of the module left for first use that declares it.
    """

    __slots__ = ("cls", "name", "declared")

    def __init__(self, cls: type, name: str, declared: "_registry.Binding | str") -> None:
        self.cls = cls
        self.name = name
        self.declared = declared

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        method = materialize_method(self.cls, self.name)
        return method if obj is None else method.__get__(obj, owner)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:  # called as found in the class's __dict__
        return materialize_method(self.cls, self.name)(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<method {self.cls.__qualname__}.{self.name}, made on first access>"


def materialize_method(cls: type, name: str) -> Callable:
    """The wrapper of ``cls.name`` left for first access by :func:`install_methods`, made and bound now."""
    with _PENDING_LOCK:
        attr = vars(cls)[name]
        if not isinstance(attr, _PendingMethod):
            return attr  # made already (by another thread, say)
        method = _wrap_method(_declared(_registry.TENSOR, name, attr.declared), cls)
        setattr(cls, name, method)
    if READY:
        save_code_cache()
    return method


def materialize_methods(cls: type) -> None:
    """Make every method of ``cls`` still pending (before listing what is overridable)."""
    for name, attr in list(vars(cls).items()):
        if isinstance(attr, _PendingMethod):
            materialize_method(cls, name)


# the methods the operators report as (see _calling.OPERATOR_FUNCS): made at once, with the operators
EAGER_METHODS = frozenset(_calling.OPERATOR_FUNCS.values())


def install_methods(cls: type, skip: set[str], cached: dict[str, str] | None = None) -> None:
    """Attach the declared Tensor methods and operators to ``cls`` and make every public attribute overridable.

    The class's own methods and properties are wrapped in place; ``skip`` stays
    plain and is registered as ignored. The declared methods' wrappers (not the
    operators') are made on first access: most programs use a few dozen of the
    ~500, and making them all costs a tenth of the import. ``cached`` maps
    a property to the slot its getter keeps its value in (see
    ``Protocol.wrap_property``).
    """
    for binding in _registry.bindings(_registry.TENSOR, load=False):
        if binding.name.startswith("__") or binding.name in EAGER_METHODS:
            setattr(cls, binding.name, _wrap_method(binding, cls))
        else:
            setattr(cls, binding.name, _PendingMethod(cls, binding.name, binding))
    for name, module in _registry.deferred(_registry.TENSOR).items():
        setattr(cls, name, _PendingMethod(cls, name, module))
    protocol.registry.add_loader(functools.partial(materialize_methods, cls))
    own = {
        name: call_form(_registry.TENSOR, name, functools.partial(inspect.signature, attr))
        for name, attr in vars(cls).items() if inspect.isfunction(attr) and name not in skip
    }
    own.update({name: {"cached": slot} for name, slot in (cached or {}).items()})
    protocol.wrap_class(cls, ignore=skip, options=own)
    for operator, method in _calling.OPERATOR_FUNCS.items():
        protocol.report_as(getattr(cls, operator), getattr(cls, method))
