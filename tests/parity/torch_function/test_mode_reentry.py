"""A mode that re-enters (or exits) itself inside its own handler behaves as torch 2.13's.

While a mode's ``__torch_function__`` runs, the mode is off the stack; entering it again
(``with self:``) makes calls inside come back to it, and leaving restores the stack the
handler started with. Exiting a mode that is not on the stack (from inside its handler)
pops the innermost mode, as torch's ``__exit__`` always pops the top. Every test runs the
same scenario on tensorlib and torch (when installed) and checks the same log: what each
handler saw (function names, stack length) in order.
"""

from __future__ import annotations

import threading

import pytest

from tests.parity.torch_function.libraries import TORCH_PLAIN_METHOD_WARNING

pytestmark = pytest.mark.filterwarnings(TORCH_PLAIN_METHOD_WARNING)


def depth(api) -> int:
    return len(api.ov._get_current_function_mode_stack())


def name(func) -> str:
    return getattr(func, "__name__", repr(func))


@pytest.fixture(autouse=True)
def _stack_is_empty_after(api):
    yield
    assert depth(api) == 0


def test_the_reentrant_mode_idiom(api):
    # torch's own test (test_overrides.py, test_reentrant_mode_idiom): add is seen again, through the mode
    log = []

    class A(api.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            log.append((name(func), depth(api)))
            if func is api.lib.sub:
                with self:
                    a, b = args
                    return api.lib.add(a, b, alpha=-1)
            return func(*args, **(kwargs or {}))

    x, y = api.t(3.0), api.t(1.0)
    with A():
        result = api.lib.sub(x, y)
    assert result.tolist() == [2.0]
    assert log == [("sub", 0), ("add", 0)]


def test_reentering_itself_to_call_the_same_function_recurses_until_it_stops(api):
    log = []

    class A(api.TorchFunctionMode):
        def __init__(self):
            super().__init__()
            self.level = 0

        def __torch_function__(self, func, types, args=(), kwargs=None):
            log.append((name(func), depth(api), self.level))
            self.level += 1
            try:
                if self.level < 4:
                    with self:
                        return func(*args, **(kwargs or {}))
                return func(*args, **(kwargs or {}))
            finally:
                self.level -= 1

    x = api.t()
    with A():
        api.lib.neg(x)
    assert log == [("neg", 0, 0), ("neg", 0, 1), ("neg", 0, 2), ("neg", 0, 3)]


def test_what_the_stack_holds_while_reentered(api):
    log = []

    class A(api.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            log.append((name(func), depth(api)))
            if func is api.lib.neg:
                with self:
                    log.append(("inside", depth(api), api.ov._get_current_function_mode_stack()[-1] is self))
                    result = self.__torch_function__(api.lib.abs, types, args, kwargs)
                    log.append(("after explicit call", depth(api)))
                    return result
            return func(*args, **(kwargs or {}))

    x = api.t(-1.0)
    with A():
        result = api.lib.neg(x)
    assert result.tolist() == [1.0]
    assert log == [("neg", 0), ("inside", 1, True), ("abs", 1), ("abs", 0), ("after explicit call", 1)]


def test_reentering_and_pushing_another_mode(api):
    log = []

    class B(api.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            log.append(("B", name(func), depth(api)))
            return func(*args, **(kwargs or {}))

    b = B()

    class A(api.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            log.append(("A", name(func), depth(api)))
            if func is api.lib.neg:
                with self, b:
                    return api.lib.abs(args[0])
            return func(*args, **(kwargs or {}))

    x = api.t()
    with A():
        api.lib.neg(x)
    assert log == [("A", "neg", 0), ("B", "abs", 1), ("A", "abs", 0)]


def test_reentering_twice(api):
    log = []

    class A(api.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            log.append((name(func), depth(api)))
            if func is api.lib.neg:
                with self:
                    with self:
                        return api.lib.abs(args[0])
            return func(*args, **(kwargs or {}))

    x = api.t()
    with A():
        api.lib.neg(x)
    assert log == [("neg", 0), ("abs", 1), ("abs", 0)]


def test_an_exception_while_reentered_restores_the_stack(api):
    log = []

    class A(api.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            log.append((name(func), depth(api)))
            if func is api.lib.neg:
                with self:
                    raise KeyError("inside")
            return func(*args, **(kwargs or {}))

    x = api.t()
    with A() as a:
        with pytest.raises(KeyError):
            api.lib.neg(x)
        assert api.ov._get_current_function_mode_stack() == [a]
        api.lib.abs(x)
    assert log == [("neg", 0), ("abs", 0)]


def test_reentered_mode_declining_the_call(api):
    log = []

    class A(api.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            log.append((name(func), depth(api)))
            if func is api.lib.neg:
                with self:
                    return NotImplemented
            return func(*args, **(kwargs or {}))

    x = api.t()
    with A():
        with pytest.raises(TypeError):
            api.lib.neg(x)
        assert depth(api) == 1
    assert log == [("neg", 0)]


def test_reentered_mode_under_disable_torch_function(api):
    log = []

    class A(api.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            log.append((name(func), depth(api)))
            if func is api.lib.neg:
                with self, api.DisableTorchFunction():
                    log.append(("disabled", depth(api)))
                    return api.lib.abs(args[0])  # no dispatch at all: the mode does not see it
            return func(*args, **(kwargs or {}))

    x = api.t()
    with A():
        api.lib.neg(x)
    assert log == [("neg", 0), ("disabled", 1)]


def test_exiting_itself_inside_its_handler_pops_the_mode_below(api):
    # the handler runs with A off the stack, so its exit pops O; re-entering pushes A, and the stack
    # A's handler restores on return makes [A, A]: both `with` blocks then pop one each
    log = []

    class O(api.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            log.append(("O", name(func), depth(api)))
            return func(*args, **(kwargs or {}))

    class A(api.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            log.append(("A", name(func), depth(api)))
            if func is api.lib.neg:
                self.__exit__(None, None, None)
                try:
                    log.append(("exited", depth(api)))
                    return api.lib.abs(args[0])
                finally:
                    self.__enter__()
            return func(*args, **(kwargs or {}))

    x = api.t()
    with O():
        with A() as a:
            api.lib.neg(x)
            assert api.ov._get_current_function_mode_stack() == [a, a]
        api.lib.abs(x)  # A again: O went in the handler
    assert log == [("A", "neg", 1), ("exited", 0), ("A", "abs", 0)]


def test_exiting_when_no_mode_is_active_raises(api):
    class A(api.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            self.__exit__(None, None, None)  # the stack is empty while the handler runs
            return func(*args, **(kwargs or {}))

    with A():
        with pytest.raises(RuntimeError, match="empty mode stack"):
            api.lib.neg(api.t())


def test_reentered_in_a_thread_the_handler_starts(api):
    log = []

    class A(api.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            log.append((name(func), depth(api)))
            if func is api.lib.neg:
                out = []

                def work():
                    with self:
                        out.append(api.lib.abs(args[0]))
                    out.append(depth(api))

                t = threading.Thread(target=work)
                t.start()
                t.join()
                return out[0]
            return func(*args, **(kwargs or {}))

    x = api.t(-2.0)
    with A():
        result = api.lib.neg(x)
        assert depth(api) == 1
    assert result.tolist() == [2.0]
    assert log == [("neg", 0), ("abs", 0)]
