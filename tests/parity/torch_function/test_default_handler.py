"""Subclasses that keep the default ``Tensor.__torch_function__``, whose steps tensorlib's protocol takes without
calling it (see dispatch's ``Protocol.default_handler``): the same results, state and overrides as torch.

Each test runs against tensorlib and (when installed) torch.
"""

from __future__ import annotations

import threading

import pytest


def sub(api):
    class S(api.Tensor):
        def doubled(self):
            return self * 2

    return S


def test_results_match_an_explicit_call_of_the_handler(api):
    S = sub(api)
    x = api.t(1.0, 2.0)
    s = api.t(3.0, 4.0).as_subclass(S)
    direct = S.__torch_function__(api.Tensor.add, (S,), (s, x))
    for r in (s + x, x + s, s.add(x), api.lib.add(s, x), direct):
        assert type(r) is S and r.tolist() == [4.0, 6.0]
    r = api.lib.add(s, x, alpha=2)  # keyword arguments
    assert type(r) is S and r.tolist() == [5.0, 8.0]
    r = s.sum(dim=0)
    assert type(r) is S and r.item() == 7.0
    assert type(s.doubled()) is S  # the subclass's own methods, on results too
    assert type(s.doubled().doubled()) is S


def test_results_that_are_arguments_keep_their_identity(api):
    S = sub(api)
    x = api.t(1.0, 2.0)
    s = api.t(3.0, 4.0).as_subclass(S)
    assert s.to(s.dtype) is s
    assert api.Tensor.to(s, s.dtype) is s
    r = s.add_(x)
    assert r is s and type(s) is S and s.tolist() == [4.0, 6.0]
    r = x.to(x.dtype)
    assert r is x and type(x) is api.Tensor


def test_a_handler_assigned_after_first_use_is_called(api):
    S = sub(api)
    s = api.t(1.0, 2.0).as_subclass(S)
    assert type(s + 1) is S
    seen = []

    def handler(cls, func, types, args=(), kwargs=None):
        seen.append(func)
        return "mine"

    S.__torch_function__ = classmethod(handler)
    assert s.neg() == "mine" and seen == [api.Tensor.neg]
    del S.__torch_function__
    assert type(s.neg()) is S and seen == [api.Tensor.neg]


def test_implementations_run_with_subclass_dispatch_off(api):
    S = sub(api)
    s = api.t(1.0, 2.0).as_subclass(S)
    inside = []

    def f(v):
        inside.append(api.lib._C._is_torch_function_enabled())
        return v

    assert s.apply_(f) is s
    assert inside == [False, False] and api.lib._C._is_torch_function_enabled()

    def fail(v):
        raise ValueError("no")

    with pytest.raises(ValueError, match="no"):
        s.apply_(fail)
    assert api.lib._C._is_torch_function_enabled()  # restored after the failure
    assert type(s + 1) is S
    with api.DisableTorchFunctionSubclass():
        assert type(s + 1) is api.Tensor
    with api.DisableTorchFunction():
        assert type(s + 1) is api.Tensor


def test_a_disable_context_in_another_thread_does_not_change_this_one(api):
    S = sub(api)
    s = api.t(1.0, 2.0).as_subclass(S)
    entered, release = threading.Event(), threading.Event()
    other = []

    def hold():
        with api.DisableTorchFunctionSubclass():
            other.append(type(s + 1))
            entered.set()
            release.wait(10)

    t = threading.Thread(target=hold)
    t.start()
    try:
        assert entered.wait(10)
        assert type(s + 1) is S and type(s.neg()) is S
    finally:
        release.set()
        t.join()
    assert other == [api.Tensor]


def test_modes_see_calls_on_subclasses(api):
    S = sub(api)
    s = api.t(1.0, 2.0).as_subclass(S)
    seen = []

    class Watch(api.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append((func, types))
            return func(*args, **(kwargs or {}))

    with Watch():
        r = s + 1
    assert type(r) is S
    assert seen[0] == (api.Tensor.add, (S,))
