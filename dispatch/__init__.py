"""A standalone ``__torch_function__``-style override protocol that any library can adopt.

Declare a protocol by the name of the method implementers define, make
functions overridable one by one (:meth:`Protocol.wrap`) or wrap whole
namespaces, and get introspection (overridable, ignored and testing-override
tables) from :attr:`Protocol.registry`. This package imports nothing from any
tensor library.

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

from ._collect import BASIC_TYPES
from ._protocol import DISABLED, ENABLED, SUBCLASSES_DISABLED, Protocol, disabled_handler
from ._registry import Registry, namespace_path

__all__ = [
    "BASIC_TYPES",
    "DISABLED",
    "ENABLED",
    "SUBCLASSES_DISABLED",
    "Protocol",
    "Registry",
    "disabled_handler",
    "namespace_path",
]
