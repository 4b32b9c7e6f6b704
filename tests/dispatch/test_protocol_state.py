"""dispatch's state mechanisms on a toy protocol (no tensorlib): plain handler, enable context, mode stack, redispatch."""

from __future__ import annotations

import pytest

from dispatch import DISABLED, ENABLED, SUBCLASSES_DISABLED, DisabledImpl, Protocol

proto = Protocol("__toy_state__")


@proto.overridable
def twice(x):
    """Doubles."""
    return ("impl", x)


class Duck:
    def __toy_state__(self, func, types, args, kwargs):
        return ("duck", func.__name__)


class Plain:
    __toy_state__ = proto.disabled_impl


class Mode(proto.Mode):
    def __toy_state__(self, func, types, args, kwargs):
        return ("mode", func(*args, **kwargs))


def test_disabled_impl_marks_plain_and_runs_the_call():
    assert isinstance(proto.disabled_impl, DisabledImpl)
    assert proto.disabled_impl.__name__ == "_disabled_toy_state_impl"
    p = Plain()
    assert twice(p) == ("impl", p)
    assert not proto.has_override((p,))
    assert Plain().__toy_state__ is proto.disabled_impl
    d = Duck()
    assert proto.disabled_impl(twice, (Duck,), (d,), None) == ("impl", d)
    with pytest.raises(TypeError, match="takes no keyword arguments"):
        proto.disabled_impl(twice, (), (d,), kwargs={})


def test_levels_and_enable_context():
    assert proto.dispatch_level() == ENABLED
    with proto.subclasses_disabled():
        assert proto.dispatch_level() == SUBCLASSES_DISABLED
        with proto.disabled():
            assert proto.dispatch_level() == DISABLED
            with proto.enabled():
                assert proto.dispatch_level() == ENABLED
                assert twice(Duck()) == ("duck", "twice")
            assert proto.dispatch_level() == DISABLED
    assert proto.dispatch_level() == ENABLED


def test_mode_stack_api():
    m = Mode()
    assert not proto.modes_enabled()
    proto.push_mode(m)
    try:
        assert proto.modes_enabled() and proto.mode_stack_len() == 1 and proto.mode_at(0) is m
        assert twice(1) == ("mode", ("impl", 1))
        with proto.disabled():
            assert not proto.modes_enabled()
        with pytest.raises(RuntimeError, match="too big"):
            proto.mode_at(1)
        with pytest.raises(RuntimeError, match="negative"):
            proto.mode_at(-1)
    finally:
        assert proto.pop_mode() is m
    with pytest.raises(RuntimeError, match="trying to pop from empty mode stack"):
        proto.pop_mode()
    assert twice(1) == ("impl", 1)  # the fast path is back


def test_mode_handler_must_be_a_plain_method():
    class ClassMode(proto.Mode):
        @classmethod
        def __toy_state__(cls, func, types, args, kwargs):
            return "cm"

    with ClassMode():
        with pytest.raises(RuntimeError, match=r"^Defining your mode's `__toy_state__` as a classmethod is not supported"):
            twice(1)
        assert proto.handle(twice, (1,), (1,), {}) == "cm"  # handle does not check
    assert proto.mode_stack_len() == 0


def test_has_override_needs_an_iterable():
    with pytest.raises(TypeError, match="^expected a sequence$"):
        proto.has_override(3)


def test_redispatch():
    class Echo:
        def __toy_state__(self, func, types, args, kwargs):
            return proto.redispatch(func, args, kwargs)

    e = Echo()
    assert twice(e) == ("impl", e)

    def guarded(x):
        if proto.has_override((x,)):
            return proto.handle(guarded, (x,), (x,), {})
        return "ran"

    assert guarded(e) == "ran"
    assert proto.has_override((e,))  # the skip was used once
