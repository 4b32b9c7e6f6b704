"""Finding the arguments whose types implement a protocol, in the order their handlers are tried.

Two questions are answered here, for a sequence of argument values:

* which of them take part in dispatch (their type defines the protocol
  method), and
* in what order their handlers run: one object per type, a subclass before
  its superclasses, otherwise left to right.

Where to look is fixed: every value, the elements of list and tuple values
(``cat([a, s])``, an ``out=(v, i)`` pair, an index tuple), and the elements
of lists and tuples nested in those (``t[[0, 1], s]``, ``t[0, [s]]``).
Dicts, sets and other containers are never looked into. :func:`collect_flat`
looks at the values themselves only, for ``has_torch_function``-style helpers
whose caller already lists the candidates.

Type classification is cached by the caller (see ``Protocol.is_implementer_type``);
containers are never cached as plain, since what matters is what they hold.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

# Types that can never carry an override; every protocol starts from these.
BASIC_TYPES: frozenset[type] = frozenset(
    {int, float, complex, bool, str, bytes, type(None), slice, type(Ellipsis), range}
)

# Containers whose elements are looked at (subclasses too: named tuples, list subclasses).
SEQUENCE_TYPES = (list, tuple)


def insert_implementer(types: list[type], objs: list[Any], tp: type, obj: Any) -> None:
    """Add ``obj`` (of type ``tp``) unless its type is already present.

    A new type goes just before the first type already present that it
    subclasses, otherwise at the end: subclasses before superclasses, else
    left to right. Linear in the number of types present: for a handful
    (the usual call); :class:`Order` keeps many in linear time overall.
    """
    if tp in types:
        return
    for i, seen in enumerate(types):
        if issubclass(tp, seen):
            types.insert(i, tp)
            objs.insert(i, obj)
            return
    types.append(tp)
    objs.append(obj)


# Past this many implementers in one call, :class:`Order` takes over from insert_implementer's scans.
_SHORT = 8


def _own_subclass_check(tp: type) -> bool:
    """Whether ``issubclass(x, tp)`` may answer True for an ``x`` whose MRO lacks ``tp`` (ABCs' registration)."""
    return type(tp).__subclasscheck__ is not type.__subclasscheck__


class Order:
    """The implementers of one call in dispatch order, for calls with many distinct types.

    :func:`insert_implementer` looks at every type present for each new one,
    quadratic in the number of types. Here a new type is compared only with
    its own bases (its MRO, looked up in a set) and with the few types present
    whose metaclass answers ``issubclass`` its own way; only when one of them
    is present does it scan for its place. Same order as insert_implementer.
    """

    __slots__ = ("types", "objs", "seen", "custom")

    def __init__(self, types: list[type], objs: list[Any]) -> None:
        self.types = types
        self.objs = objs
        self.seen = set(types)
        self.custom = [t for t in types if _own_subclass_check(t)]

    def add(self, tp: type, obj: Any) -> None:
        """Add ``obj`` (of type ``tp``) unless its type is already present, where insert_implementer would."""
        seen = self.seen
        if tp in seen:
            return
        mro = tp.__mro__
        if any(base in seen for base in mro[1:]) or any(issubclass(tp, t) for t in self.custom):
            insert_implementer(self.types, self.objs, tp, obj)
        else:
            self.types.append(tp)
            self.objs.append(obj)
        seen.add(tp)
        if _own_subclass_check(tp):
            self.custom.append(tp)


def _add(types: list[type], objs: list[Any], tp: type, obj: Any, order: Order | None) -> Order:
    """Add through ``order`` (made on first use): the path of calls with many implementers."""
    if order is None:
        order = Order(types, objs)
    order.add(tp, obj)
    return order


def collect(
    values: Iterable[Any],
    is_implementer: Callable[[type], bool],
    plain: set | frozenset,
    implementers: set | frozenset = frozenset(),
    types: list | None = None,
    objs: list | None = None,
) -> tuple[list[type], list[Any]]:
    """Return ``(types, objects)``: the implementers among ``values`` and inside their lists and tuples.

    ``plain`` and ``implementers`` are sets of types already known not to
    implement and to implement (checked inline, for speed); ``is_implementer``
    classifies any other type. Results are added to ``types``/``objs`` when
    given, so several groups of values (positional, then keyword arguments)
    can be gathered into one order. Linear in the number of values, however
    many distinct types they have.
    """
    if types is None or objs is None:
        types, objs = [], []
    order: Order | None = None
    for v in values:
        tp = type(v)
        if tp in plain:
            continue
        if tp in implementers or is_implementer(tp):
            if not types:
                types.append(tp)
                objs.append(v)
            elif order is None and len(types) < _SHORT:
                insert_implementer(types, objs, tp, v)
            else:
                order = _add(types, objs, tp, v, order)
        elif isinstance(v, SEQUENCE_TYPES):
            for e in v:
                etp = type(e)
                if etp in plain:
                    continue
                if is_implementer(etp):
                    if order is None and len(types) < _SHORT:
                        insert_implementer(types, objs, etp, e)
                    else:
                        order = _add(types, objs, etp, e, order)
                elif isinstance(e, SEQUENCE_TYPES):
                    for ee in e:
                        eetp = type(ee)
                        if eetp not in plain and is_implementer(eetp):
                            if order is None and len(types) < _SHORT:
                                insert_implementer(types, objs, eetp, ee)
                            else:
                                order = _add(types, objs, eetp, ee, order)
    return types, objs


def collect_flat(
    values: Iterable[Any], is_implementer: Callable[[type], bool], plain: set | frozenset
) -> tuple[list[type], list[Any]]:
    """Like :func:`collect`, but only ``values`` themselves are candidates (their elements are not looked at)."""
    types: list[type] = []
    objs: list[Any] = []
    order: Order | None = None
    for v in values:
        tp = type(v)
        if tp not in plain and is_implementer(tp):
            if order is None and len(types) < _SHORT:
                insert_implementer(types, objs, tp, v)
            else:
                order = _add(types, objs, tp, v, order)
    return types, objs
