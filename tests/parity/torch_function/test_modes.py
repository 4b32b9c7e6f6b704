"""Modes and the disable contexts: nesting, re-entry, exceptions, threads, generators.

Each test runs against tensorlib and (when installed) torch with the same modes.
"""

from __future__ import annotations

import threading

import pytest

from tests.parity.torch_function.libraries import TORCH_PLAIN_METHOD_WARNING

pytestmark = pytest.mark.filterwarnings(TORCH_PLAIN_METHOD_WARNING)


def log_mode(api):
    class Log(api.TorchFunctionMode):
        def __init__(self, name="m"):
            super().__init__()
            self.name = name
            self.calls = []

        def __torch_function__(self, func, types, args=(), kwargs=None):
            self.calls.append((func.__name__, tuple(t.__name__ for t in types)))
            return func(*args, **(kwargs or {}))

        def __repr__(self):
            return f"Log({self.name})"

    return Log


def decline_mode(api):
    class Decline(api.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            return NotImplemented

    return Decline


class Duck:
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return "duck"


def stack(api):
    return api.ov._get_current_function_mode_stack()


@pytest.fixture(autouse=True)
def _no_leftover_modes(api):
    yield
    assert stack(api) == []
    x = api.t()
    assert type(x + 1) is api.Tensor


# -- modes -------------------------------------------------------------------------------------------


def test_mode_sees_every_kind_of_entry(api):
    Log = log_mode(api)
    x = api.lib.zeros(2)
    with Log() as m:
        api.lib.add(x, 1)
        x.add(1)
        x * 2
        _ = x.shape
        x.requires_grad = False
        x[0]
        x[0] = 1.0
        api.F.relu(x)
    names = [c[0] for c in m.calls]
    # the operator is reported as the method it aliases
    assert names == ["add", "add", "mul", "__get__", "__set__", "__getitem__", "__setitem__", "relu"]
    # Builtins never list plain tensors in ``types``; entries torch writes in Python (F.relu) and the
    # property accessors list the Tensor type, as torch's Python-level dispatch does.
    python_level = {"relu", "__get__", "__set__"}
    assert all(c[1] == () for c in m.calls if c[0] not in python_level)
    assert all(c[1] == ("Tensor",) for c in m.calls if c[0] in python_level)


def test_mode_sees_factory_functions_but_not_seeding_or_conversion(api):
    import numpy as np

    Log = log_mode(api)
    f = api.lib
    seen_by_mode = {
        "tensor": lambda: f.tensor([1.0]), "as_tensor": lambda: f.as_tensor([1.0]),
        "asarray": lambda: f.asarray([1.0]), "zeros": lambda: f.zeros(2), "ones": lambda: f.ones(2),
        "empty": lambda: f.empty(2), "full": lambda: f.full((2,), 1.0), "eye": lambda: f.eye(2),
        "arange": lambda: f.arange(3), "linspace": lambda: f.linspace(0, 1, 3), "logspace": lambda: f.logspace(0, 1, 3),
        "rand": lambda: f.rand(2), "randn": lambda: f.randn(2), "randint": lambda: f.randint(3, (2,)),
        "randperm": lambda: f.randperm(3), "can_cast": lambda: f.can_cast(f.float32, f.int32),
        "promote_types": lambda: f.promote_types(f.float32, f.int32),
    }
    unseen = {
        "from_numpy": lambda: f.from_numpy(np.ones(2)), "is_tensor": lambda: f.is_tensor(1),
        "manual_seed": lambda: f.manual_seed(0), "initial_seed": lambda: f.initial_seed(),
        "get_rng_state": lambda: f.get_rng_state(), "broadcast_shapes": lambda: f.broadcast_shapes((2,), (1,)),
        "get_default_dtype": lambda: f.get_default_dtype(), "is_grad_enabled": lambda: f.is_grad_enabled(),
        "Tensor": lambda: f.Tensor([1.0]), "Parameter": lambda: api.Parameter(x),
        "calculate_gain": lambda: f.nn.init.calculate_gain("relu"),
    }
    x = api.t()
    for name, call in seen_by_mode.items():
        with Log() as m:
            call()
        assert [c[0] for c in m.calls] == [name], name
    for name, call in unseen.items():
        with Log() as m:
            call()
        assert m.calls == [], name
    ignored = api.ov.get_ignored_functions()
    assert f.zeros in ignored and f.tensor in ignored  # still not overridable by arguments
    assert f.zeros(2).tolist() == [0.0, 0.0]


def test_mode_enter_returns_self_and_stack_helpers(api):
    Log = log_mode(api)
    m = Log()
    assert api.ov._get_current_function_mode() is None
    with m as entered:
        assert entered is m
        assert stack(api) == [m]
        assert api.ov._get_current_function_mode() is m


def test_mode_receives_implementer_types(api):
    Log = log_mode(api)

    class S(api.Tensor):
        pass

    s, x = api.t().as_subclass(S), api.t()
    with Log() as m:
        r = api.lib.add(x, s)
        api.lib.add(x, Duck())
    assert type(r) is S
    assert m.calls[0] == ("add", ("S",))
    assert m.calls[-1] == ("add", ("Duck",))


def test_nested_modes_innermost_first_and_popped_while_running(api):
    Log = log_mode(api)
    order = []

    class Inner(api.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            order.append(("inner", [m.name for m in stack(api)]))
            return func(*args, **(kwargs or {}))

    outer, x = Log("outer"), api.t()
    with outer, Inner():
        api.lib.neg(x)
    assert order == [("inner", ["outer"])]
    assert outer.calls == [("neg", ())]


def test_same_mode_entered_twice(api):
    Log = log_mode(api)
    m, x = Log(), api.t()
    with m:
        with m:
            assert stack(api) == [m, m]
            api.lib.neg(x)
        assert stack(api) == [m]
    assert m.calls == [("neg", ()), ("neg", ())]


def test_mode_reentering_itself_inside_its_handler(api):
    calls = []

    class Reentrant(api.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            calls.append(func.__name__)
            if func.__name__ == "outer_op":
                with self:
                    return func._inner(*args)
            return func(*args, **(kwargs or {}))

    def inner(x):
        return api.lib.neg(x)

    @api.ov.wrap_torch_function(lambda x: (x,))
    def outer_op(x):
        return inner(x)

    outer_op._inner = inner
    x = api.t()
    with Reentrant():
        outer_op(x)
    assert calls == ["outer_op", "neg"]


def test_mode_not_implemented_falls_through(api):
    Decline = decline_mode(api)

    class S(api.Tensor):
        pass

    x, s = api.t(), api.t().as_subclass(S)
    with Decline():
        assert api.lib.neg(Duck()) == "duck"
        with pytest.raises(TypeError):
            api.lib.neg(x)
        with pytest.raises(TypeError):
            api.lib.neg(s)  # the default handler re-enters and meets the mode again
        with pytest.raises(TypeError):
            api.lib.zeros(2)  # factories meet modes too
    if not api.is_torch:
        with Decline(), pytest.raises(TypeError, match=r"^no implementation found for 'tensorlib\.neg' .*\[\] nor in mode"):
            api.lib.neg(x)


def test_exception_in_mode_handler_restores_the_stack(api):
    Log = log_mode(api)

    class Boom(api.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            raise ValueError("boom")

    outer, x = Log("outer"), api.t()
    with outer:
        b = Boom()
        with pytest.raises(ValueError, match="boom"):
            with b:
                api.lib.neg(x)
        assert stack(api) == [outer]
        with b:
            with pytest.raises(ValueError):
                api.lib.neg(x)
            assert stack(api) == [outer, b]  # re-pushed after its handler raised
        api.lib.neg(x)
    assert outer.calls == [("neg", ())]


def test_modes_are_thread_local(api):
    Log = log_mode(api)
    results = {}
    barrier = threading.Barrier(2)

    def worker(name):
        x = api.t()
        with Log(name) as m:
            barrier.wait()
            for _ in range(20):
                api.lib.neg(x)
            barrier.wait()
        results[name] = (len(m.calls), len(stack(api)))

    with Log("main") as main:
        seen_in_thread = []
        t = threading.Thread(target=lambda: seen_in_thread.append(len(stack(api))))
        t.start()
        t.join()
        threads = [threading.Thread(target=worker, args=(n,)) for n in ("a", "b")]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
    assert seen_in_thread == [0]
    assert results == {"a": (20, 0), "b": (20, 0)}
    assert main.calls == []


def test_mode_held_by_a_generator(api):
    Log = log_mode(api)

    x = api.t()

    def gen():
        with Log("gen") as g:
            yield g
            yield api.lib.neg(x)

    it = gen()
    g = next(it)
    assert stack(api) == [g]  # the mode stays on the thread's stack while the generator is suspended
    api.lib.neg(x)
    next(it)
    with pytest.raises(StopIteration):
        next(it)
    assert [c[0] for c in g.calls] == ["neg", "neg"]


def test_generator_mode_exited_under_another_mode(api):
    """A generator that entered mode A is closed while mode B (entered later) is active."""
    Log = log_mode(api)

    def gen():
        with Log("a"):
            yield

    x = api.t()
    it = gen()
    next(it)
    a = stack(api)[0]
    with Log("b") as b:
        it.close()  # exits A out of order: no error
        if not api.is_torch:
            assert stack(api) == [b]  # tensorlib removes A itself (torch pops whatever is on top)
            api.lib.neg(x)
            assert b.calls == [("neg", ())] and a.calls == []
    assert stack(api) == []


def test_exiting_a_mode_that_is_not_active_raises(api):
    Log = log_mode(api)
    with pytest.raises(RuntimeError):
        Log().__exit__(None, None, None)


def test_base_mode_and_unimplemented_mode(api):
    class OnlyNeg(api.ov.BaseTorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            if func is api.lib.neg:
                return "intercepted"
            return super().__torch_function__(func, types, args, kwargs)

    x = api.t()
    with OnlyNeg():
        assert api.lib.neg(x) == "intercepted"
        assert api.lib.add(x, 1).tolist() == [2.0, 3.0]

    class Nothing(api.TorchFunctionMode):
        pass

    with Nothing(), pytest.raises(NotImplementedError):
        api.lib.neg(x)


def test_mode_with_handle_torch_function_and_wrap_torch_function(api):
    Log = log_mode(api)
    ov = api.ov

    def my_func(a, b=1):
        if ov.has_torch_function((a,)):
            return ov.handle_torch_function(my_func, (a,), a, b=b)
        return "default"

    @ov.wrap_torch_function(lambda a: (a,))
    def wrapped(a):
        return "impl"

    x = api.t()
    assert my_func(x) == "default"
    with Log() as m:
        assert my_func(x) == "default"
        assert wrapped(x) == "impl"
    assert [c[0] for c in m.calls] == ["my_func", "wrapped"]


# -- disable contexts --------------------------------------------------------------------------------


def test_disable_subclass(api):
    Log = log_mode(api)

    class S(api.Tensor):
        pass

    s = api.t().as_subclass(S)
    with api.DisableTorchFunctionSubclass() as entered:
        assert entered is None
        assert type(s + 1) is api.Tensor and type(api.lib.neg(s)) is api.Tensor
        with pytest.raises(TypeError):
            api.lib.neg(Duck())
        assert not api.ov.has_torch_function((s,))
        with Log() as m:
            assert api.ov.has_torch_function((s,))
            api.lib.neg(s)
        assert m.calls == [("neg", ())]
    assert type(s + 1) is S


def test_disable_all(api):
    Log, x = log_mode(api), api.t()
    with Log() as m:
        with api.DisableTorchFunction():
            api.lib.neg(x)
            api.lib.zeros(2)
            assert not api.ov.has_torch_function((Duck(),))
            with pytest.raises(TypeError):
                api.lib.neg(Duck())
        api.lib.neg(x)
    assert m.calls == [("neg", ())]


def test_mode_inside_disable_subclass_and_disable_subclass_inside_mode(api):
    Log = log_mode(api)

    class S(api.Tensor):
        pass

    s = api.t().as_subclass(S)
    with Log() as m:
        with api.DisableTorchFunctionSubclass():
            r = api.lib.neg(s)
    assert type(r) is api.Tensor and m.calls == [("neg", ())]


def test_disable_contexts_nest_and_restore(api):
    class S(api.Tensor):
        pass

    s = api.t().as_subclass(S)
    with api.DisableTorchFunctionSubclass():
        with api.DisableTorchFunction():
            assert type(s + 1) is api.Tensor
        assert type(s + 1) is api.Tensor
        with api.DisableTorchFunctionSubclass():
            assert type(s + 1) is api.Tensor
        assert type(s + 1) is api.Tensor
    assert type(s + 1) is S
    with api.DisableTorchFunction():
        with api.DisableTorchFunctionSubclass():  # does not lower the level
            assert api.lib.neg(api.t()).tolist() == [-1.0, -2.0]
            with pytest.raises(TypeError):
                api.lib.neg(Duck())
    assert api.lib.neg(Duck()) == "duck"


def test_disable_contexts_restore_after_exceptions(api):
    class S(api.Tensor):
        pass

    s = api.t().as_subclass(S)
    for ctx in (api.DisableTorchFunction, api.DisableTorchFunctionSubclass):
        with pytest.raises(KeyError):
            with ctx():
                raise KeyError
        assert type(s + 1) is S


def test_disable_context_instance_reused_nested(api):
    # One DisableTorchFunction instance entered twice, nested: both exits leave cleanly.
    class S(api.Tensor):
        pass

    s = api.t().as_subclass(S)
    for ctx_type in (api.DisableTorchFunction, api.DisableTorchFunctionSubclass):
        ctx = ctx_type()
        saved = api.lib._C._get_torch_function_state() if api.is_torch else None
        with ctx:
            with ctx:
                assert type(s + 1) is api.Tensor
            assert type(s + 1) is api.Tensor
        if api.is_torch:
            # torch keeps one saved state per object, so after the outer exit it stays disabled
            # (tensorlib restores each entry's state). Put torch back for the rest of the run.
            api.lib._C._set_torch_function_state(saved)
            continue
        assert type(s + 1) is S
        with ctx:  # and reusable in turn
            assert type(s + 1) is api.Tensor
        assert type(s + 1) is S


def test_disable_contexts_are_thread_local(api):
    class S(api.Tensor):
        pass

    s = api.t().as_subclass(S)
    seen = []
    with api.DisableTorchFunction():
        t = threading.Thread(target=lambda: seen.append(type(s + 1)))
        t.start()
        t.join()
        assert type(s + 1) is api.Tensor
    assert seen == [S]


def test_subclass_handler_can_disable_for_its_own_calls(api):
    class Wrapping(api.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            with api.DisableTorchFunctionSubclass():
                ret = func(*args, **(kwargs or {}))
            return ("wrapped", type(ret).__name__)

    w = api.t().as_subclass(Wrapping)
    assert api.lib.neg(w) == ("wrapped", "Tensor")
    assert w + 1 == ("wrapped", "Tensor")


def test_mode_declining_a_subclass_then_a_python_level_function_does_not_recurse(api):
    # The mode declines calls that involve the subclass, so the subclass's default handler runs the function
    # with subclasses disabled; the function dispatches again from its own body, and this time the mode must
    # see no types (not the subclass again, which recursed without end).
    seen = []

    class Declining(api.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(tuple(t.__name__ for t in types))
            if any(t is not api.Tensor for t in types):
                return NotImplemented
            return func(*args, **(kwargs or {}))

    class S(api.Tensor):
        pass

    def py_func(x):
        if api.ov.has_torch_function((x,)):
            return api.ov.handle_torch_function(py_func, (x,), x)
        return x + 1

    s = api.t(1.0, 2.0).as_subclass(S)
    with Declining():
        out = py_func(s)
    assert type(out) is S and out.tolist() == [2.0, 3.0]
    assert seen[:2] == [("S",), ()]
