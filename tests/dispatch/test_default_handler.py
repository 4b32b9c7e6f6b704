"""``Protocol.default_handler`` (the protocol runs the default handler's steps itself) and ``wrap(inline=...)``."""

from __future__ import annotations

import threading
import types

import pytest

from dispatch import DISABLED, ENABLED, SUBCLASSES_DISABLED, Protocol


def make_library() -> types.SimpleNamespace:
    """A small library with its own protocol, base type ``Arr`` (default handler) and a few wrapped functions."""
    proto = Protocol("__arr_function__")
    lib = types.SimpleNamespace(proto=proto, converted=[], levels=[], handler_calls=0)

    def convert(func, ret, cls, args, kwargs):
        lib.converted.append((func, cls, args, kwargs))
        if type(ret) is Arr:
            new = object.__new__(cls)
            new.v = ret.v
            return new
        return ret

    class Arr:
        __arr_function__ = classmethod(proto.default_handler(
            convert, qualname="Arr.__arr_function__", module=__name__, doc="The default handler."))

        def __init__(self, v):
            self.v = v

    proto.add_plain_type(Arr, primary=True)

    def double(x, *, plus=0):
        lib.levels.append(proto.dispatch_level())
        if x.v == "boom":
            raise ValueError("boom")
        return Arr(x.v * 2 + plus)

    def add(a, b):
        lib.levels.append(proto.dispatch_level())
        if not isinstance(b, Arr):
            raise TypeError("add needs two Arr")
        return Arr(a.v + b.v)

    def add_method(a, b):
        return Arr(a.v + b.v + 100)

    def total(values):
        return Arr(sum(v.v for v in values))

    lib.Arr = Arr
    lib.double = proto.wrap(double)
    lib.add = proto.wrap(add, operator=True)
    lib.add_method = proto.wrap(add_method, name="add_method")
    lib.total = proto.wrap(total)
    original = proto.call_with_subclasses_disabled

    def counted(func, args, kwargs):  # only the handler itself calls this: counts the calls that reach it
        lib.handler_calls += 1
        return original(func, args, kwargs)

    proto.call_with_subclasses_disabled = counted  # type: ignore[method-assign]
    return lib


@pytest.fixture
def lib() -> types.SimpleNamespace:
    return make_library()


def test_a_subclass_keeping_the_default_handler_is_converted_without_calling_it(lib):
    class Sub(lib.Arr):
        pass

    s = Sub(3)
    r = lib.double(s, plus=1)
    assert type(r) is Sub and r.v == 7
    assert lib.converted == [(lib.double, Sub, (s,), {"plus": 1})]
    assert lib.levels == [SUBCLASSES_DISABLED]  # the implementation ran with implementers off ...
    assert lib.proto.dispatch_level() == ENABLED  # ... and the level is restored
    assert lib.handler_calls == 0
    r = lib.add(s, lib.Arr(1))  # plain arguments of the base type take no part
    assert type(r) is Sub and r.v == 4 and lib.handler_calls == 0
    assert type(lib.add(s, s)) is Sub and lib.handler_calls == 0  # one implementer type, twice


def test_the_shortcut_gives_what_calling_the_handler_gives(lib):
    class Sub(lib.Arr):
        pass

    s = Sub(2)
    direct = Sub.__arr_function__(lib.double, (Sub,), (s,), {"plus": 5})
    assert lib.handler_calls == 1
    via_wrapper = lib.double(s, plus=5)
    assert lib.handler_calls == 1
    assert (type(direct), direct.v) == (type(via_wrapper), via_wrapper.v) == (Sub, 9)
    assert lib.converted[0] == lib.converted[1]
    assert lib.levels == [SUBCLASSES_DISABLED, SUBCLASSES_DISABLED]
    # called with kwargs=None, the handler still passes the converter a dict
    Sub.__arr_function__(lib.double, (Sub,), (s,))
    assert lib.converted[-1][3] == {}
    # the handler declines types its class is not a subclass of
    other = type("Other", (lib.Arr,), {})
    assert Sub.__arr_function__(lib.double, (Sub, other), (s,)) is NotImplemented


def test_handler_metadata(lib):
    handler = lib.Arr.__arr_function__.__func__
    assert handler.__name__ == "__arr_function__" and handler.__qualname__ == "Arr.__arr_function__"
    assert handler.__module__ == __name__ and handler.__doc__ == "The default handler."
    with pytest.raises(RuntimeError, match="already has a default handler"):
        lib.proto.default_handler(lambda *a: None)


def test_calls_the_shortcut_does_not_cover_go_through_the_handler(lib):
    class Sub(lib.Arr):
        pass

    class SubSub(Sub):
        pass

    class Other(lib.Arr):
        pass

    s = Sub(1)
    r = lib.total([s, lib.Arr(2)])  # an implementer inside a list
    assert type(r) is Sub and r.v == 3 and lib.handler_calls == 1
    r = lib.add(s, SubSub(5))  # two implementer types: the subclass's handler first, and it accepts
    assert type(r) is SubSub and r.v == 6 and lib.handler_calls == 2
    with pytest.raises(TypeError, match="no implementation found"):
        lib.double(s, plus=Other(1))  # unrelated implementer types: both decline
    assert lib.add(s, Other(1)) is NotImplemented  # an operator: both declined

    seen = []

    class Watch(lib.proto.Mode):
        def __arr_function__(self, func, types, args, kwargs=None):
            seen.append((func, types))
            if types:
                return NotImplemented  # to the subclass's handler, which calls func again: seen with no types
            return func(*args, **(kwargs or {}))

    with Watch():
        r = lib.double(s)
    assert seen == [(lib.double, (Sub,)), (lib.double, ())] and type(r) is Sub and lib.handler_calls == 3


def test_overriding_and_reassigned_handlers_are_called(lib):
    calls = []

    class Custom(lib.Arr):
        @classmethod
        def __arr_function__(cls, func, types, args=(), kwargs=None):
            calls.append(func)
            return super().__arr_function__(func, types, args, kwargs)

    assert type(lib.double(Custom(1))) is Custom and calls == [lib.double] and lib.handler_calls == 1

    class Sub(lib.Arr):
        pass

    s = Sub(1)
    assert type(lib.double(s)) is Sub and lib.handler_calls == 1
    Sub.__arr_function__ = classmethod(lambda cls, func, types, args=(), kwargs=None: "replaced")
    assert lib.double(s) == "replaced"  # a handler assigned after the class was first used
    del Sub.__arr_function__
    assert type(lib.double(s)) is Sub and lib.handler_calls == 1  # inherited again: the shortcut
    Sub.__arr_function__ = classmethod(lib.Arr.__arr_function__.__func__)  # the default, assigned
    assert type(lib.double(s)) is Sub and lib.handler_calls == 1
    Sub.__arr_function__ = lib.Arr.__arr_function__.__func__  # as a plain method, not the classmethod:
    with pytest.raises(TypeError, match="issubclass"):  # called (with the instance as ``cls``), as torch would
        lib.double(s)


def test_operator_failures_become_not_implemented_and_other_errors_propagate(lib):
    class Sub(lib.Arr):
        pass

    s = Sub(1)
    assert lib.add(s, "text") is NotImplemented  # the implementation's TypeError, on the shortcut
    assert lib.handler_calls == 0 and lib.proto.dispatch_level() == ENABLED
    bad = Sub("boom")
    with pytest.raises(ValueError, match="boom"):
        lib.double(bad)
    assert lib.proto.dispatch_level() == ENABLED
    assert type(lib.double(s)) is Sub  # nothing left disabled


def test_report_as_decides_what_runs_and_what_the_converter_sees(lib):
    class Sub(lib.Arr):
        pass

    lib.proto.report_as(lib.add, lib.add_method)
    s = Sub(1)
    r = lib.add(s, lib.Arr(2))
    assert type(r) is Sub and r.v == 103  # the reported function's implementation, as the handler would run
    assert lib.converted[-1][0] is lib.add_method and lib.handler_calls == 0


def test_a_disable_context_in_another_thread_leaves_this_thread_dispatching(lib):
    class Sub(lib.Arr):
        pass

    entered, release = threading.Event(), threading.Event()
    levels = []

    def other():
        with lib.proto.disabled():
            levels.append(lib.proto.dispatch_level())
            entered.set()
            release.wait(10)

    t = threading.Thread(target=other)
    t.start()
    try:
        assert entered.wait(10)
        r = lib.double(Sub(1))
        assert type(r) is Sub and r.v == 2 and lib.handler_calls == 1  # the general path: through the handler
        with lib.proto.subclasses_disabled():
            assert type(lib.double(Sub(1))) is lib.Arr  # this thread's own context still counts
    finally:
        release.set()
        t.join()
    assert levels == [DISABLED]
    assert type(lib.double(Sub(1))) is Sub and lib.handler_calls == 1


# -- wrap(inline=...) -------------------------------------------------------------------------


class Box:
    """The toy library's plain type for the inline tests."""

    def __init__(self, v):
        self.v = v


class Lazy:
    def __box_function__(self, func, types, args, kwargs):
        return ("lazy", func.__name__)


def make_inline(ran: list, translate: bool = False, first: bool = False) -> tuple[Protocol, object]:
    proto = Protocol("__box_function__")
    proto.add_plain_type(Box, primary=True)
    if translate:
        proto.translate_errors(lambda func, exc, args, kwargs: RuntimeError(f"{func.__name__}: {exc}"), (KeyError,))

    def twice(x, scale=1):
        return Box(("impl", x.v * 2 * scale))

    source = (  # (it returns only for a Box: it may run first, before the wrapper's type checks)
        "if type(x) is _Box:\n"
        "    _ran.append(x.v)\n"
        "    if x.v == 'key':\n"
        "        raise KeyError('bad key')\n"
        "    if type(x.v) is int and scale is _one:\n"
        "        return _Box(('inline', x.v * 2))\n"
    )
    return proto, proto.wrap(twice, inline=(source, {"_ran": ran, "_one": 1, "_Box": Box}), inline_first=first)


FIRST = pytest.mark.parametrize("first", [False, True], ids=["after the checks", "first"])


@FIRST
def test_inline_source_runs_on_the_plain_path_and_may_fall_through(first):
    ran = []
    _, twice = make_inline(ran, first=first)
    assert twice(Box(3)).v == ("inline", 6)
    assert twice(Box(3), 2).v == ("impl", 12)  # the inline code falls through: the implementation runs
    assert twice(Box("a")).v == ("impl", "aa")
    assert ran == [3, 3, "a"]
    assert twice._implementation(Box(3)).v == ("impl", 6)  # the raw implementation is unchanged


@FIRST
def test_inline_source_does_not_run_when_the_call_dispatches(first):
    ran = []
    proto, twice = make_inline(ran, first=first)
    assert twice(Lazy()) == ("lazy", "twice")
    seen = []

    class Watch(proto.Mode):
        def __box_function__(self, func, types, args, kwargs=None):
            seen.append(args)
            return "mode"

    with Watch():
        assert twice(Box(4)) == "mode"
    assert ran == [] and len(seen) == 1


@FIRST
def test_inline_errors_are_translated_as_the_implementations_are(first):
    ran = []
    _, twice = make_inline(ran, translate=True, first=first)
    with pytest.raises(RuntimeError, match="twice: 'bad key'") as info:
        twice(Box("key"))
    assert isinstance(info.value.__cause__, KeyError)


def test_inline_names_must_be_free_and_the_wrapper_must_check_its_arguments():
    proto = Protocol("__box_function__")

    def f(x, y=2):
        return x

    for names in ({"x": 1}, {"_impl": 1}, {"_dispatch_e_": 1}, {"not an identifier": 1}):
        with pytest.raises(ValueError, match="not free identifiers"):
            proto.wrap(f, inline=("pass", names))
    with pytest.raises(ValueError, match="modes_only"):
        proto.wrap(f, modes_only=True, inline=("pass", {}))
    with pytest.raises(ValueError, match="inline_first=True needs inline="):
        proto.wrap(f, inline_first=True)
