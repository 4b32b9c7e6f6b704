"""Building tensorlib's public namespaces: every function and method made overridable, or listed as ignored."""

from __future__ import annotations

import inspect
import sys
from typing import Any, Callable, Iterable

from ._protocol import protocol


def expose(module_name: str, impls: dict[str, Callable], ignored: dict[str, Any] | None = None) -> dict[str, Any]:
    """Wrap ``impls`` as overridable functions of module ``module_name``; register ``ignored`` as not overridable.

    Returns the names to bind in the module's globals.
    """
    module = sys.modules[module_name]
    out: dict[str, Any] = {}
    for name, impl in impls.items():
        out[name] = protocol.wrap(impl, name=name, qualname=name, module=module_name, namespace=module)
    if ignored:
        out.update(ignored)
    return out


def register_ignored(module_name: str, names: Iterable[str]) -> None:
    protocol.registry.add_ignored(sys.modules[module_name], names)


def make_methods_overridable(cls: type, extra: dict[str, Callable], from_functions: dict[str, Callable],
                             signature_of: Callable[[Callable], inspect.Signature], skip: set[str]) -> None:
    """Attach and wrap every public method, operator and property of ``cls``.

    ``from_functions`` are functions reused as methods (signature from
    ``signature_of``); ``extra`` are raw methods with their own signature; the
    class's own methods and properties are wrapped in place, except ``skip``.
    """
    module = cls.__module__
    for name, impl in from_functions.items():
        sig = signature_of(impl)
        setattr(cls, name, protocol.wrap(impl, name=name, qualname=f"{cls.__qualname__}.{name}", module=module,
                                         signature=sig, namespace=cls, doc=impl.__doc__))
    for name, impl in extra.items():
        setattr(cls, name, protocol.wrap(impl, name=name, qualname=f"{cls.__qualname__}.{name}", module=module,
                                         namespace=cls))
    for name, attr in list(vars(cls).items()):
        if name in skip or name in from_functions or name in extra:
            continue
        if isinstance(attr, property):
            setattr(cls, name, protocol.wrap_property(attr, owner=cls, name=name))
        elif inspect.isfunction(attr) and (not name.startswith("_") or (name.startswith("__") and name.endswith("__"))):
            setattr(cls, name, protocol.wrap(attr, name=name, qualname=f"{cls.__qualname__}.{name}", module=module,
                                             namespace=cls))
