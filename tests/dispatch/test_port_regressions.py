"""Regressions found by porting torch's test_overrides.py (tests/dispatch/test_torch_test_overrides.py)."""

from __future__ import annotations

import gc

import pytest

import tensorlib
from tensorlib import _C
from tensorlib.distributions.utils import broadcast_all
from tensorlib.overrides import TorchFunctionMode, handle_torch_function, has_torch_function


def guarded(a):
    """A Python-level function written as torch's are (has_torch_function / handle_torch_function)."""
    if has_torch_function((a,)):
        return handle_torch_function(guarded, (a,), a)
    return a


class Sub(tensorlib.Tensor):
    pass


class Duck:
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return ("duck", func.__name__)


def test_handle_with_subclasses_disabled_shows_the_mode_no_implementers():
    seen = []

    class Log(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(types)
            return func(*args, **(kwargs or {}))

    s = tensorlib.ones(2).as_subclass(Sub)
    with Log(), _C.DisableTorchFunctionSubclass():
        assert guarded(s) is s
        assert guarded(Duck()).__class__ is Duck  # the duck's handler is off too
    assert seen == [(), ()]


def test_mode_declining_a_subclass_then_running_it_as_plain_does_not_loop():
    calls = 0

    class Picky(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            nonlocal calls
            calls += 1
            if any(t is not tensorlib.Tensor for t in types):
                return NotImplemented
            return func(*args, **(kwargs or {}))

    s = tensorlib.ones(2).as_subclass(Sub)
    with Picky():
        r = guarded(s)
    assert type(r) is Sub and calls == 2


def test_enable_torch_function_is_a_guard():
    with _C.DisableTorchFunctionSubclass():
        g = _C._EnableTorchFunction()
        assert _C._is_torch_function_enabled()
        del g
        gc.collect()
        assert not _C._is_torch_function_enabled()
        with _C._EnableTorchFunction():
            assert _C._is_torch_function_enabled()
        assert not _C._is_torch_function_enabled()
    assert _C._is_torch_function_enabled()


def test_normal_needs_a_mean_and_dispatches_on_it():
    with pytest.raises(TypeError):
        tensorlib.normal()  # type: ignore[call-arg]
    assert tensorlib.normal(tensorlib.zeros(3)).shape == (3,)  # std defaults to 1
    assert tensorlib.normal(Duck()) == ("duck", "normal")


def test_broadcast_all_accepts_tensor_likes():
    calls = []

    class Like:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            calls.append(func)
            return "handled"

    assert broadcast_all(Like(), tensorlib.ones(2)) == "handled"
    assert calls == [tensorlib.broadcast_tensors]
    _, b = broadcast_all(tensorlib.ones(3, dtype=tensorlib.float64), 2)
    assert b.dtype == tensorlib.float64 and b.tolist() == [2.0, 2.0, 2.0]
    with pytest.raises(ValueError):
        broadcast_all("x")
