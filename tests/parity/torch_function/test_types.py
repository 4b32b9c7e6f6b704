"""Which types handlers and modes receive: builtins list implementers only; entries torch writes in Python, the
property accessors and ``handle_torch_function`` list the Tensor type too when plain tensors take part.

Each test runs against tensorlib and (when installed) torch.
"""

from __future__ import annotations

import pytest


def _recording_mode(api, seen, result=None):
    class Record(api.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append((func.__name__, tuple(t.__name__ for t in types)))
            if result is not None:
                return result
            return func(*args, **(kwargs or {}))

    return Record


def _subclass(api, seen, decline=False):
    class Sub(api.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append((func.__name__, tuple(t.__name__ for t in types)))
            if decline:
                return NotImplemented
            return super().__torch_function__(func, types, args, kwargs)

    return Sub


def test_modes_see_the_tensor_type_for_python_level_entries(api):
    seen: list = []
    x, y = api.t(1.0, 2.0), api.t(0.5, 0.5)
    with _recording_mode(api, seen)():
        api.F.mse_loss(x, y)  # written in Python in torch
        api.lib.mul(x, y)  # a builtin
        api.lib.broadcast_tensors(x, y)  # Python, two tensors: the type once
        x.requires_grad = False  # property setter
    assert seen == [("mse_loss", ("Tensor",)), ("mul", ()), ("broadcast_tensors", ("Tensor",)), ("__set__", ("Tensor",))]


def test_handlers_see_the_subclass_before_the_tensor_type(api):
    seen: list = []
    Sub = _subclass(api, seen)
    s, x = api.t(1.0, 2.0).as_subclass(Sub), api.t(0.5, 0.5)
    out = api.F.mse_loss(x, s)
    api.lib.mul(x, s)
    assert seen[0] == ("mse_loss", ("Sub", "Tensor"))
    assert ("mul", ("Sub",)) in seen
    assert float(out) == pytest.approx((0.25 + 2.25) / 2)


def test_declining_subclass_on_a_python_level_entry_is_a_type_error(api):
    seen: list = []
    Sub = _subclass(api, seen, decline=True)
    s, x = api.t(1.0, 2.0).as_subclass(Sub), api.t(0.5, 0.5)
    with pytest.raises(TypeError):
        api.F.mse_loss(x, s)
    assert seen == [("mse_loss", ("Sub", "Tensor"))]


def test_declining_mode_then_the_tensor_handler(api):
    """A mode that declines a Python-level call passes it to Tensor's handler, which calls the function again
    (the mode sees it a second time, without types); declining again is a TypeError."""
    seen: list = []
    x = api.t()
    with _recording_mode(api, seen, NotImplemented)():
        with pytest.raises(TypeError):
            api.F.relu(x)
    assert seen == [("relu", ("Tensor",)), ("relu", ())]


def test_handle_torch_function_lists_plain_tensors(api):
    seen: list = []

    def double(t):
        if api.ov.has_torch_function((t,)):
            return api.ov.handle_torch_function(double, (t,), t)
        return t * 2

    x = api.t(1.0, 3.0)
    with _recording_mode(api, seen)():
        result = double(x)
    assert seen[0] == ("double", ("Tensor",))
    assert result.tolist() == [2.0, 6.0]
