"""tensorlib._C: the ``__torch_function__`` state and helpers torch keeps in ``torch._C``.

Each test runs on tensorlib and, when it is installed, on torch (the same code through ``lib``/``C``), so the
torch runs are the parity checks; ``test_same_*`` tests compare the two directly.
"""

from __future__ import annotations

import threading

import pytest

import tensorlib
import tensorlib._C
from tests.dispatch.conftest import make_api

MODE_MSG = "Defining your mode's `__torch_function__` as a classmethod is not supported, please make it a plain method"


def outcome(f):
    """``('ok', value)`` or ``('raise', exception type name, message)``."""
    try:
        return ("ok", f())
    except Exception as e:  # noqa: BLE001
        return ("raise", type(e).__name__, str(e))


def state(C):
    return (C._is_torch_function_enabled(), C._is_torch_function_all_disabled(), C._is_torch_function_mode_enabled(),
            C._len_torch_function_stack())


def passthrough_mode(api):
    class Passthrough(api.ov.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    return Passthrough()


def test_module_is_importable_and_private():
    import importlib

    assert importlib.import_module("tensorlib._C") is tensorlib._C
    assert "_C" not in tensorlib.__all__
    for name in ("DisableTorchFunction", "DisableTorchFunctionSubclass", "_disabled_torch_function_impl",
                 "_EnableTorchFunction", "_is_torch_function_mode_enabled", "_len_torch_function_stack",
                 "_push_on_torch_function_stack", "_pop_torch_function_stack", "_get_function_stack_at",
                 "_has_torch_function", "_has_torch_function_unary", "_has_torch_function_variadic",
                 "_is_torch_function_enabled", "_is_torch_function_all_disabled"):
        assert hasattr(tensorlib._C, name), name


def test_overrides_shares_the_c_objects(api):
    C, ov = api.C, api.ov
    assert ov.has_torch_function is C._has_torch_function
    assert ov.has_torch_function_unary is C._has_torch_function_unary
    assert ov.has_torch_function_variadic is C._has_torch_function_variadic
    for name in ("_is_torch_function_mode_enabled", "_len_torch_function_stack", "_get_function_stack_at",
                 "_push_on_torch_function_stack", "_pop_torch_function_stack"):
        assert getattr(ov, name) is getattr(C, name), name


# -- state flags and contexts -------------------------------------------------


def test_state_flags_follow_the_contexts(api):
    C = api.C
    assert state(C) == (True, False, False, 0)
    with C.DisableTorchFunctionSubclass():
        assert state(C) == (False, False, False, 0)
        with C._EnableTorchFunction():
            assert state(C) == (True, False, False, 0)
        with C.DisableTorchFunction():
            assert state(C) == (False, True, False, 0)
            with C._EnableTorchFunction():
                assert state(C) == (True, False, False, 0)
            assert state(C) == (False, True, False, 0)
        assert state(C) == (False, False, False, 0)
    with passthrough_mode(api):
        assert state(C) == (True, False, True, 1)
        with C.DisableTorchFunction():
            assert state(C) == (False, True, False, 1)
        with C.DisableTorchFunctionSubclass():
            assert state(C) == (False, False, True, 1)
    assert state(C) == (True, False, False, 0)


def test_disable_contexts_accept_and_ignore_arguments(api):
    C = api.C
    with C.DisableTorchFunction(1, x=2):
        assert C._is_torch_function_all_disabled()
    with C.DisableTorchFunctionSubclass(1, x=2):
        assert not C._is_torch_function_enabled()
    with pytest.raises(TypeError):
        C._EnableTorchFunction(1)


def test_enable_context_turns_subclass_dispatch_back_on(api):
    class S(api.lib.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return "S"

    s = api.lib.ones(2).as_subclass(S)
    with api.C.DisableTorchFunction():
        assert type(api.lib.add(s, 1)) is api.lib.Tensor
        with api.C._EnableTorchFunction():
            assert api.lib.add(s, 1) == "S"


def test_state_is_per_thread(api):
    C = api.C
    seen = []
    with C.DisableTorchFunction(), passthrough_mode(api):
        t = threading.Thread(target=lambda: seen.append(state(C)))
        t.start()
        t.join()
    assert seen == [(True, False, False, 0)]


# -- the mode stack -------------------------------------------------------------


def test_push_pop_and_index_the_stack(api):
    C = api.C
    a, b = passthrough_mode(api), passthrough_mode(api)
    C._push_on_torch_function_stack(a)
    C._push_on_torch_function_stack(b)
    try:
        assert C._len_torch_function_stack() == 2
        assert C._get_function_stack_at(0) is a and C._get_function_stack_at(1) is b
        assert C._is_torch_function_mode_enabled()
        assert api.lib.add(api.lib.ones(1), 1).tolist() == [2.0]
    finally:
        assert C._pop_torch_function_stack() is b
        assert C._pop_torch_function_stack() is a
    assert C._len_torch_function_stack() == 0


def test_pushed_mode_sees_calls(api):
    calls = []

    class Log(api.ov.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            calls.append((func.__name__, api.C._len_torch_function_stack(), api.C._is_torch_function_mode_enabled()))
            return func(*args, **(kwargs or {}))

    api.C._push_on_torch_function_stack(Log())
    try:
        api.lib.add(api.lib.ones(1), 1)
    finally:
        api.C._pop_torch_function_stack()
    # the mode is off the stack while its handler runs
    assert calls == [("ones", 0, False), ("add", 0, False)]


def test_stack_errors(api):
    C = api.C
    with pytest.raises(RuntimeError, match="trying to pop from empty mode stack"):
        C._pop_torch_function_stack()
    with pytest.raises(RuntimeError, match="Tried to get stack at idx that's too big"):
        C._get_function_stack_at(0)
    with pytest.raises(TypeError, match="must be int, not str"):
        C._get_function_stack_at("a")


def test_negative_stack_index_raises():
    # (torch crashes the interpreter here, so this is tensorlib only)
    with pytest.raises(RuntimeError):
        tensorlib._C._get_function_stack_at(-1)


# -- has_torch_function -----------------------------------------------------------


def test_has_torch_function_needs_an_iterable(api):
    C = api.C
    for bad in (object(), 5, None):
        with pytest.raises(TypeError, match="^expected a sequence$"):
            C._has_torch_function(bad)
    with C.DisableTorchFunction(), pytest.raises(TypeError, match="^expected a sequence$"):
        C._has_torch_function(object())
    with passthrough_mode(api), pytest.raises(TypeError, match="^expected a sequence$"):
        C._has_torch_function(object())
    # any iterable is looked through, lazily built ones too
    assert C._has_torch_function("ab") is False
    assert C._has_torch_function(iter([1, 2])) is False
    assert C._has_torch_function({1: 2}) is False
    assert C._has_torch_function_unary(object()) is False


def test_has_torch_function_argument_count(api):
    C = api.C
    with pytest.raises(TypeError):
        C._has_torch_function()
    with pytest.raises(TypeError):
        C._has_torch_function((1,), (2,))
    with pytest.raises(TypeError):
        C._has_torch_function_unary()
    assert C._has_torch_function_variadic() is False


def test_has_torch_function_sees_subclasses_and_modes(api):
    class S(api.lib.Tensor):
        pass

    s = api.lib.ones(2).as_subclass(S)
    t = api.lib.ones(2)
    C = api.C
    assert C._has_torch_function((t, 1)) is False
    assert C._has_torch_function((t, s)) is True
    assert C._has_torch_function_unary(s) is True
    assert C._has_torch_function_variadic(t, s) is True
    with C.DisableTorchFunctionSubclass():
        assert C._has_torch_function((s,)) is False
    with passthrough_mode(api):
        assert C._has_torch_function((1,)) is True
        with C.DisableTorchFunction():
            assert C._has_torch_function((s,)) is False


# -- _disabled_torch_function_impl ---------------------------------------------------


def test_disabled_impl_subclass_behaves_like_a_plain_tensor(api):
    lib, C = api.lib, api.C

    class P(lib.Tensor):
        __torch_function__ = C._disabled_torch_function_impl

    p = lib.ones(2).as_subclass(P)
    assert type(p) is P
    for result in (p + 1, lib.add(p, 1), p.sum(), p[0], lib.cat([p, p]), p * p):
        assert type(result) is lib.Tensor
    assert P.__torch_function__ is C._disabled_torch_function_impl
    assert p.__torch_function__ is C._disabled_torch_function_impl  # does not bind
    assert C._has_torch_function((p,)) is False and C._has_torch_function_unary(p) is False
    assert api.ov.is_tensor_like(p)


def test_disabled_impl_called_directly_runs_the_function_unwrapped(api):
    lib, impl = api.lib, api.C._disabled_torch_function_impl

    class L(lib.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return "L handler"

    s = lib.ones(2).as_subclass(L)
    r = impl(lib.add, (L,), (s, 1), {})
    assert type(r) is lib.Tensor and r.tolist() == [2.0, 2.0]
    assert impl(lib.add, (), (s,), {"other": 2}).tolist() == [3.0, 3.0]
    assert impl(lib.Tensor.add, (), (s, 1), {}).tolist() == [2.0, 2.0]
    assert impl(lambda: 7, ()) == 7


def test_disabled_impl_argument_errors(api):
    impl = api.C._disabled_torch_function_impl
    t = api.lib.ones(1)
    assert outcome(lambda: impl()) == ("raise", "TypeError", "function takes at least 2 arguments (0 given)")
    assert outcome(lambda: impl(api.lib.add, (), (t,), {}, 5)) == (
        "raise", "TypeError", "function takes at most 4 arguments (5 given)")
    assert outcome(lambda: impl(api.lib.add, (), t, {})) == ("raise", "TypeError", "expected List or Tuple (got Tensor)")
    assert outcome(lambda: impl(api.lib.add, (), (t, 1), kwargs={})) == (
        "raise", "TypeError", "_disabled_torch_function_impl() takes no keyword arguments")
    with pytest.raises(TypeError, match="not callable"):
        impl(5, (), (t, 1), {})


def test_disabled_impl_keeps_modes(api):
    seen = []

    class Log(api.ov.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(func.__name__)
            return func(*args, **(kwargs or {}))

    t = api.lib.ones(1)
    with Log():
        api.C._disabled_torch_function_impl(api.lib.add, (), (t, 1), {})
    assert seen == ["add"]


# -- modes whose handler is not a plain method --------------------------------------------


def _bad_modes(api):
    class ClassMode(api.ov.TorchFunctionMode):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return "cm"

    class StaticMode(api.ov.TorchFunctionMode):
        @staticmethod
        def __torch_function__(func, types, args=(), kwargs=None):
            return "sm"

    return ClassMode, StaticMode


@pytest.mark.parametrize("kind", [0, 1])
def test_classmethod_mode_raises_when_a_function_dispatches_to_it(api, kind):
    lib = api.lib
    t = lib.ones(2)
    mode = _bad_modes(api)[kind]()  # creating and entering it is fine
    with mode:
        assert api.C._len_torch_function_stack() == 1
        with pytest.raises(RuntimeError) as info:
            lib.add(t, 1)
        assert str(info.value) == MODE_MSG
        with pytest.raises(RuntimeError, match="as a classmethod is not supported"):
            lib.zeros(2)  # factories, seen by modes only
        with pytest.raises(RuntimeError, match="as a classmethod is not supported"):
            t.shape  # noqa: B018  (properties)
    assert api.C._len_torch_function_stack() == 0


def test_classmethod_mode_is_not_checked_by_handle_torch_function(api):
    ClassMode, _ = _bad_modes(api)

    def f(x):
        return x

    with ClassMode():
        assert api.ov.has_torch_function((1,)) is True
        assert api.ov.handle_torch_function(f, (1,), 1) == "cm"


def test_classmethod_check_applies_to_pushed_objects(api):
    class NotAMode:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return "plain"

    api.C._push_on_torch_function_stack(NotAMode())
    try:
        with pytest.raises(RuntimeError, match="as a classmethod is not supported"):
            api.lib.add(api.lib.ones(1), 1)
    finally:
        api.C._pop_torch_function_stack()


# -- direct comparisons --------------------------------------------------------------------


def _scenario(api):
    C, lib = api.C, api.lib
    out = [outcome(lambda: C._has_torch_function(object())), outcome(C._pop_torch_function_stack),
           outcome(lambda: C._get_function_stack_at(0)), state(C)]
    with C.DisableTorchFunctionSubclass():
        out.append(state(C))
        with C.DisableTorchFunction():
            out.append(state(C))
    ClassMode, _ = _bad_modes(api)
    with ClassMode():
        out.append(outcome(lambda: lib.add(lib.ones(1), 1)))
    impl = C._disabled_torch_function_impl
    out.append(outcome(lambda: impl()))
    out.append(outcome(lambda: impl(lib.add, (), lib.ones(1), {})))
    return out


def test_same_results_as_torch():
    torch_api = make_api("torch")
    assert _scenario(make_api("tensorlib")) == _scenario(torch_api)
