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
    """Register public callables of module ``module_name`` as not overridable."""
    protocol.registry.add_ignored(sys.modules[module_name], names)


def expose_to_modes(module_name: str, names: Iterable[str]) -> dict[str, Any]:
    """Wrap functions of module ``module_name`` (factories) so that active modes see calls to them.

    They stay not overridable by implementers (register them as ignored, as
    torch lists ``torch.zeros`` and friends). Returns the names to bind.
    """
    module = sys.modules[module_name]
    out: dict[str, Any] = {}
    for name in names:
        impl = getattr(module, name)
        out[name] = protocol.wrap(impl, name=name, qualname=name, module=module_name, modes_only=True)
    return out


def make_methods_overridable(cls: type, extra: dict[str, Callable], from_functions: dict[str, Callable],
                             signature_of: Callable[[Callable], inspect.Signature], skip: set[str]) -> None:
    """Attach and wrap every public method, operator and property of ``cls``.

    ``from_functions`` are functions reused as methods (signature from
    ``signature_of``); ``extra`` are raw methods with their own signature; the
    class's own methods and properties are wrapped in place, except ``skip``,
    which is registered as ignored.
    """
    module = cls.__module__
    for name, impl in from_functions.items():
        setattr(cls, name, protocol.wrap(impl, name=name, qualname=f"{cls.__qualname__}.{name}", module=module,
                                         signature=signature_of(impl), namespace=cls, doc=impl.__doc__))
    for name, impl in extra.items():
        setattr(cls, name, protocol.wrap(impl, name=name, qualname=f"{cls.__qualname__}.{name}", module=module,
                                         namespace=cls))
    protocol.wrap_class(cls, ignore=skip)
