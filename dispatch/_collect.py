"""Gathering the objects whose types implement a protocol, in dispatch order."""

from __future__ import annotations

from typing import Any, Callable, Iterable

# Types that can never carry an override; every protocol starts from these.
BASIC_TYPES: frozenset[type] = frozenset(
    {int, float, complex, bool, str, bytes, type(None), slice, type(Ellipsis), range}
)

SEQUENCE_TYPES = (list, tuple)


def insert_implementer(types: list[type], objs: list[Any], tp: type, obj: Any) -> None:
    """Add ``obj`` unless its type is already present: subclasses before superclasses, else left to right."""
    if not types:
        types.append(tp)
        objs.append(obj)
        return
    if tp in types:
        return
    index = len(types)
    for i, seen in enumerate(types):
        if issubclass(tp, seen):
            index = i
            break
    types.insert(index, tp)
    objs.insert(index, obj)


def collect(
    values: Iterable[Any],
    is_implementer: Callable[[type], bool],
    plain: set,
    types: list | None = None,
    objs: list | None = None,
    implementers: set | frozenset = frozenset(),
) -> tuple[list[type], list[Any]]:
    """Return ``(types, objects)`` of the implementers among ``values`` (added to ``types``/``objs`` if given).

    Elements of list and tuple arguments count too (``cat([a, s])``, index
    tuples), one level deep and into a list nested in a tuple (``t[[0, 1], s]``);
    so do the values of a dict. ``plain`` and ``implementers`` are caches of
    types already classified.
    """
    if types is None or objs is None:
        types, objs = [], []
    for v in values:
        tp = type(v)
        if tp in plain:
            continue
        if tp in implementers:
            if types:
                insert_implementer(types, objs, tp, v)
            else:
                types.append(tp)
                objs.append(v)
            continue
        if tp is list or tp is tuple or tp is dict or (issubclass(tp, SEQUENCE_TYPES) and not is_implementer(tp)):
            for e in (v.values() if tp is dict else v):
                etp = type(e)
                if etp in plain:
                    continue
                if etp is list or etp is tuple:
                    for ee in e:
                        eetp = type(ee)
                        if eetp not in plain and is_implementer(eetp):
                            insert_implementer(types, objs, eetp, ee)
                    continue
                if is_implementer(etp):
                    insert_implementer(types, objs, etp, e)
            continue
        if is_implementer(tp):
            insert_implementer(types, objs, tp, v)
    return types, objs  # type: ignore[return-value]
