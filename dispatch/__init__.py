"""A standalone ``__torch_function__``-style override protocol that any library can adopt.

A library declares a :class:`Protocol` by the name of the method implementers
define, makes its public functions overridable (:meth:`Protocol.wrap`, the
:meth:`Protocol.overridable` decorator, or whole modules and classes with
:meth:`Protocol.wrap_module` / :meth:`Protocol.wrap_class`), and gets modes
(:attr:`Protocol.Mode`), disable contexts and introspection tables
(:attr:`Protocol.registry`) for free. This package imports nothing outside
the standard library. See ``README.md`` next to this file for a walk-through.

>>> proto = Protocol("__my_function__")
>>> @proto.overridable
... def double(x):
...     return 2 * x
>>> class Halves:
...     def __my_function__(self, func, types, args, kwargs):
...         return "handled"
>>> double(3), double(Halves())
(6, 'handled')
"""

from typing import TYPE_CHECKING, Any

import importlib

from ._codegen import save_code_cache
from ._protocol import DISABLED, ENABLED, SUBCLASSES_DISABLED, DisabledImpl, Protocol, disabled_handler, protocols_for
from ._registry import Registry, namespace_path

if TYPE_CHECKING:
    from ._collect import BASIC_TYPES
    from ._coverage import CoverageReport, NamespaceCoverage, coverage, implementations_of
    from ._toolkit import Implementations, Rewrap, SignatureError, signature_problems

# The tools for implementers (the coverage tool, the implementations toolkit) are loaded on first use: a library
# that adopts the protocol should not pay for them at import. Name -> the module that defines it.
_LAZY = {
    "CoverageReport": "_coverage", "NamespaceCoverage": "_coverage", "coverage": "_coverage",
    "implementations_of": "_coverage", "BASIC_TYPES": "_collect", "Implementations": "_toolkit",
    "Rewrap": "_toolkit", "SignatureError": "_toolkit", "signature_problems": "_toolkit",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'dispatch' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "save_code_cache",
    "BASIC_TYPES",
    "DISABLED",
    "DisabledImpl",
    "ENABLED",
    "SUBCLASSES_DISABLED",
    "Protocol",
    "Registry",
    "disabled_handler",
    "namespace_path",
    "CoverageReport",
    "NamespaceCoverage",
    "coverage",
    "implementations_of",
    "protocols_for",
    "Implementations",
    "Rewrap",
    "SignatureError",
    "signature_problems",
]
