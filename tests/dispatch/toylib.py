"""A toy library that adopts the dispatch package with its own protocol, ``__toy_function__``.

It shares nothing with tensorlib; the tests use it to show that ``dispatch``
is a standalone protocol engine.
"""

from __future__ import annotations

import sys

from dispatch import Protocol

protocol = Protocol("__toy_function__", mode_class_name="ToyMode")


class Vec:
    """The library's own type: a list of floats. Exact instances never dispatch."""

    def __init__(self, values):
        self.values = list(values)

    def __toy_function__(self, func, types, args, kwargs):  # pragma: no cover - plain type, never called
        raise AssertionError("Vec is registered as plain and must never be dispatched to")

    def __eq__(self, other):
        return isinstance(other, Vec) and self.values == other.values

    def __repr__(self):
        return f"Vec({self.values})"


protocol.add_plain_type(Vec)
_module = sys.modules[__name__]


@protocol.overridable(namespace=_module, module=__name__)
def scale(v, factor=2.0, *, offset=0.0):
    """Multiply every element and add an offset."""
    return Vec(x * factor + offset for x in v.values)


@protocol.overridable(namespace=_module, module=__name__)
def concat(vectors, *rest, **options):
    """Join vectors (a list) and any extra vectors."""
    out = []
    for v in list(vectors) + list(rest):
        out.extend(v.values)
    return Vec(out)


def make(n):
    """Creation without any Vec argument: not overridable."""
    return Vec([0.0] * n)


protocol.registry.add_ignored(_module, ["make"])
