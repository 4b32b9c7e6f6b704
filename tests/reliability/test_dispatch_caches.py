"""The override protocol's per-type caches never keep a class alive, and many types in one call stay cheap.

Classes made at run time (in a function, in a loop, by ``type()``) that take part in a
call, as implementers or as plain arguments, are freed once the program drops them: the
protocol remembers them weakly. The order handlers are tried in (subclasses before their
bases, otherwise left to right) is found in linear time for calls with thousands of
distinct types (``benchmarks/dispatch_many_types.py`` times it against torch); here its
result is checked against the simple quadratic rule, ABCs' registered subclasses included.
"""

from __future__ import annotations

import abc
import gc
import random
import warnings
import weakref
from typing import Any, Callable

import pytest

import tensorlib
from dispatch import Protocol
from dispatch._collect import Order, insert_implementer
from tensorlib.overrides import has_torch_function


def _answer(cls, func, types, args=(), kwargs=None):
    return ("handled by", cls.__name__)


def make_duck(i: int) -> type:
    return type(f"Duck{i}", (), {"__torch_function__": classmethod(_answer)})


def make_plain_method_duck(i: int) -> type:
    return type(f"OldDuck{i}", (), {"__torch_function__": lambda self, func, types, args=(), kwargs=None: "old"})


def make_subclass(i: int) -> type:
    return type(f"Sub{i}", (tensorlib.Tensor,), {})


def make_plain(i: int) -> type:
    return type(f"Plain{i}", (), {})


def use_duck(cls: type) -> None:
    assert tensorlib.add(cls(), 1) == ("handled by", cls.__name__)


def use_plain_method_duck(cls: type) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert tensorlib.neg(cls()) == "old"


def use_subclass(cls: type) -> None:
    s = tensorlib.ones(2).as_subclass(cls)
    assert type(s + 1) is cls
    assert type(tensorlib.cat([s, tensorlib.ones(2)])) is cls


def use_plain(cls: type) -> None:
    assert not has_torch_function((cls(),))
    with pytest.raises(TypeError):
        tensorlib.add(tensorlib.ones(2), cls())  # a plain object where a tensor goes: the implementation's error


@pytest.mark.parametrize(
    "make, use",
    [(make_duck, use_duck), (make_plain_method_duck, use_plain_method_duck), (make_subclass, use_subclass),
     (make_plain, use_plain)],
    ids=["implementer", "plain-method implementer", "Tensor subclass", "plain type"],
)
def test_classes_made_at_run_time_are_freed(make: Callable[[int], type], use: Callable[[type], None]):
    refs = []
    for i in range(20):
        cls = make(i)
        use(cls)
        use(cls)  # the second call is answered from the cache
        refs.append(weakref.ref(cls))
        del cls
    gc.collect()
    alive = [r() for r in refs if r() is not None]
    assert not alive, f"{len(alive)} of 20 classes kept alive: {alive[:3]}"


def test_a_class_freed_and_a_new_one_at_the_same_address_are_told_apart():
    # ids of freed classes are reused at once; an entry left behind would give a new class the old one's kind
    kinds = []
    for i in range(200):
        if i % 2:
            cls = make_duck(i)
            kinds.append(tensorlib.neg(cls()) == ("handled by", cls.__name__))
        else:
            cls = make_plain(i)
            kinds.append(not has_torch_function((cls(),)))
        del cls
    assert all(kinds)


def test_module_level_classes_keep_the_fast_path():
    # Parameter and plain tensors are classified once and tested by the generated wrappers directly
    p = tensorlib.nn.Parameter(tensorlib.ones(2))
    assert not has_torch_function((p, tensorlib.ones(2), 1.0, None))
    assert (p + 1).tolist() == [2.0, 2.0]


def test_a_standalone_protocol_forgets_freed_classes_too():
    proto = Protocol("__toy_function__")

    @proto.overridable
    def double(x):
        return x * 2

    refs = []
    for i in range(10):
        impl = type(f"T{i}", (), {"__toy_function__": classmethod(lambda cls, f, t, a, k: "toy")})
        plain = type(f"P{i}", (), {"__mul__": lambda self, n: "plain"})
        assert double(impl()) == "toy"
        assert double(plain()) == "plain"
        refs += [weakref.ref(impl), weakref.ref(plain)]
        del impl, plain
    gc.collect()
    assert all(r() is None for r in refs)


# -- many types in one call ----------------------------------------------------------------------------


def test_five_thousand_distinct_types_in_one_call():
    seen: dict[str, Any] = {}

    def record(cls, func, types, args=(), kwargs=None):
        seen["types"] = types
        return "first"

    classes = [type(f"Many{i}", (), {"__torch_function__": classmethod(record)}) for i in range(5000)]
    objs = [c() for c in classes]
    assert tensorlib.cat(objs) == "first"
    assert list(seen["types"]) == classes
    # subclasses go before their bases, wherever they appear
    sub = type("ManySub", (classes[10],), {})
    assert tensorlib.cat(objs + [sub()]) == "first"
    assert seen["types"][10] is sub and seen["types"][11] is classes[10] and len(seen["types"]) == 5001


def _random_hierarchy(rng: random.Random, n: int) -> list[type]:
    """``n`` classes, some subclassing earlier ones, some ABCs with registered (virtual) subclasses."""
    classes: list[type] = []
    for i in range(n):
        roll = rng.random()
        if classes and roll < 0.4:
            bases = tuple({rng.choice(classes) for _ in range(rng.randint(1, 2))})
            try:
                cls = type(f"C{i}", bases, {})
            except TypeError:  # an inconsistent MRO or metaclass conflict: a fresh class instead
                cls = type(f"C{i}", (), {})
        elif roll < 0.55:
            cls = abc.ABCMeta(f"A{i}", (), {})
        else:
            cls = type(f"C{i}", (), {})
        if classes and isinstance(cls, abc.ABCMeta) and rng.random() < 0.5:
            try:
                cls.register(rng.choice(classes))
            except RuntimeError:  # the chosen class already derives from cls
                pass
        classes.append(cls)
    return classes


@pytest.mark.parametrize("seed", range(20))
def test_the_linear_order_is_the_quadratic_rules_order(seed):
    rng = random.Random(seed)
    classes = _random_hierarchy(rng, 40)
    sequence = [rng.choice(classes) for _ in range(80)]
    expected_types: list[type] = []
    expected_objs: list[Any] = []
    for tp in sequence:
        insert_implementer(expected_types, expected_objs, tp, tp)
    start = rng.randint(0, 5)  # Order takes over a list already begun
    types, objs = [], []
    for tp in sequence[:start]:
        insert_implementer(types, objs, tp, tp)
    order = Order(types, objs)
    for tp in sequence[start:]:
        order.add(tp, tp)
    assert types == expected_types
    assert objs == expected_objs
