"""tensorlib's __torch_function__ protocol: duck types, Tensor subclasses, operators, properties, modes."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import tensorlib
import tensorlib.nn.functional as F
from tensorlib.overrides import (
    DisableTorchFunction,
    DisableTorchFunctionSubclass,
    TorchFunctionMode,
    handle_torch_function,
    has_torch_function,
    is_tensor_like,
    wrap_torch_function,
)


class Recorder:
    """A duck type that records what it was called with and answers with a tag."""

    def __init__(self, tag="rec"):
        self.tag = tag
        self.calls = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.calls.append((func, types, args, kwargs))
        return self.tag


class SubRecorder(Recorder):
    pass


class Refuser:
    def __torch_function__(self, func, types, args=(), kwargs=None):
        return NotImplemented


class S(tensorlib.Tensor):
    pass


class S2(tensorlib.Tensor):
    pass


class SS(S):
    pass


def t(*values):
    return tensorlib.tensor(list(values) if values else [1.0, 2.0])


# -- duck types --------------------------------------------------------------------------


def test_function_and_method_are_distinct_entries_and_the_operator_reports_the_method():
    # as in torch: handlers keyed on Tensor.add see ``+`` too
    r = Recorder()
    x = t()
    assert tensorlib.add(r, x) == "rec"
    assert tensorlib.Tensor.add(x, r) == "rec"
    assert x + r == "rec"
    assert x.__radd__(r) == "rec"
    funcs = [c[0] for c in r.calls]
    assert funcs == [tensorlib.add, tensorlib.Tensor.add, tensorlib.Tensor.add, tensorlib.Tensor.add]
    assert tensorlib.Tensor.__add__ is not tensorlib.Tensor.add  # still its own overridable entry


def test_reflected_and_inplace_operators_dispatch():
    r = Recorder()
    x = t()
    assert r + x == "rec"  # Recorder has no __add__: Python tries Tensor.__radd__, reported as Tensor.add
    assert r.calls[-1][0] is tensorlib.Tensor.add
    assert 2 - x.as_subclass(S) is not None
    y = t()
    y += r
    assert y == "rec"
    assert r.calls[-1][0] is tensorlib.Tensor.add_
    assert r - x == "rec"
    assert r.calls[-1][0] is tensorlib.Tensor.__rsub__  # torch reports the ones it writes in Python as themselves


def test_kwargs_and_types_are_passed():
    r = Recorder()
    tensorlib.add(t(), r, alpha=2)
    func, types, args, kwargs = r.calls[0]
    assert types == (Recorder,)
    assert args[1] is r
    assert kwargs == {"alpha": 2}


def test_implementers_in_lists_index_tuples_and_values():
    r = Recorder()
    assert tensorlib.cat([t(), r]) == "rec"
    x = tensorlib.zeros(3, 3)
    assert x[0, r] == "rec"
    assert r.calls[-1][0] is tensorlib.Tensor.__getitem__
    x[r] = 1.0
    assert r.calls[-1][0] is tensorlib.Tensor.__setitem__
    x[0] = r
    assert r.calls[-1][0] is tensorlib.Tensor.__setitem__
    assert x[[0, 1], r] == "rec"


def test_out_argument_dispatches():
    r = Recorder()
    assert tensorlib.add(t(), t(), out=r) == "rec"


def test_properties_dispatch_through_their_accessors():
    class Sub(tensorlib.Tensor):
        seen = []

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            cls.seen.append(func)
            return super().__torch_function__(func, types, args, kwargs)

    s = t().as_subclass(Sub)
    Sub.seen.clear()
    _ = s.shape
    _ = s.dtype
    s.requires_grad = True
    assert Sub.seen[0] == tensorlib.Tensor.shape.__get__
    assert Sub.seen[1] == tensorlib.Tensor.dtype.__get__
    assert Sub.seen[2] == tensorlib.Tensor.requires_grad.__set__


def test_nn_functional_dispatches():
    r = Recorder()
    assert F.relu(r) == "rec"
    assert F.linear(t(), r) == "rec"
    assert r.calls[-1][0] is F.linear


def test_all_not_implemented_raises_seed_error():
    with pytest.raises(TypeError, match=r"no implementation found for 'tensorlib.mul' on types that implement "
                                        r"__torch_function__: \[Refuser\]"):
        tensorlib.mul(Refuser(), 3)


def test_not_implemented_falls_through():
    r = Recorder("second")
    assert tensorlib.add(Refuser(), r) == "second"


def test_leftmost_unrelated_wins_and_subclass_wins_from_any_position():
    a, b = Recorder("a"), SubRecorder("b")
    assert tensorlib.add(a, b) == "b"
    assert tensorlib.add(b, a) == "b"
    assert b.calls[0][1] == (SubRecorder, Recorder)

    class Other(Recorder):
        pass

    c, d = SubRecorder("c"), Other("d")
    assert tensorlib.add(c, d) == "c"
    assert tensorlib.add(d, c) == "d"


def test_exceptions_propagate_unchanged():
    class Boom:
        def __torch_function__(self, func, types, args=(), kwargs=None):
            raise ZeroDivisionError("from handler")

    with pytest.raises(ZeroDivisionError, match="from handler"):
        tensorlib.sum(Boom())


def test_duck_type_and_tensor_subclass_mix():
    r = Recorder("duck")
    s = t().as_subclass(S)
    # Tensor subclasses' default handler declines unknown types; the duck type answers.
    assert tensorlib.add(s, r) == "duck"
    assert tensorlib.add(r, s) == "duck"
    assert r.calls[0][1] == (S, Recorder)
    assert r.calls[1][1] == (Recorder, S)


def test_parameter_does_not_shadow_a_duck_type():
    p = tensorlib.nn.Parameter(t())
    r = Recorder()
    assert tensorlib.add(p, r) == "rec"
    assert r.calls[0][1] == (Recorder,)
    out = p * 2
    assert type(out) is tensorlib.Tensor


# -- Tensor subclasses ------------------------------------------------------------------------


def test_subclass_propagates_through_ops_operators_indexing_and_tuples():
    s = t(1.0, 2.0, 3.0).as_subclass(S)
    assert type(s) is S
    for result in (s + 1, 1 + s, s * s, -s, s[0], s[1:], tensorlib.add(s, 1), s.sum(), s.exp(), s @ s,
                   tensorlib.stack([s, s]), s.reshape(3, 1), s.T):
        assert type(result) is S, result
    values, indices = s.max(0)
    assert type(values) is S and type(indices) is S
    res = s.max(0)
    assert type(res).__name__ == "max" and type(res.values) is S
    parts = tensorlib.split(s, 1)
    assert isinstance(parts, tuple) and all(type(p) is S for p in parts)
    s2 = s.clone()
    s2[0] = 5.0
    assert type(s2) is S and s2[0].item() == 5.0


def test_subclass_construction_and_as_subclass_share_data():
    base = t(1.0, 2.0)
    s = base.as_subclass(S)
    s.add_(1)
    np.testing.assert_array_equal(base.numpy(), [2.0, 3.0])
    made = S([1, 2])
    assert type(made) is S and made.dtype is tensorlib.float32
    assert repr(made) == "S([1., 2.])"


def test_subclass_autograd_and_grad_getter_not_wrapped():
    leaf = tensorlib.ones(2, requires_grad=True)
    s = leaf.as_subclass(S)
    assert not s.is_leaf and s.requires_grad
    (s * 3).sum().backward()
    assert type(leaf.grad) is tensorlib.Tensor
    np.testing.assert_array_equal(leaf.grad.numpy(), [3.0, 3.0])
    x = S(tensorlib.ones(2))
    x.requires_grad_()
    (x * 2).sum().backward()
    assert type(x.grad) is tensorlib.Tensor  # .grad is returned as stored, as torch does


def test_subclass_of_subclass_wins_and_siblings_raise():
    a = t().as_subclass(S)
    b = t().as_subclass(SS)
    assert type(a + b) is SS
    assert type(b + a) is SS
    c = t().as_subclass(S2)
    # each side declines the other, so both + and its reflection give NotImplemented: Python's TypeError
    with pytest.raises(TypeError, match="unsupported operand type"):
        a + c
    with pytest.raises(TypeError, match=r"\[S, S2\]"):
        tensorlib.add(a, c)


def test_subclass_with_custom_handler_can_intercept():
    class Logged(tensorlib.Tensor):
        log = []

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            cls.log.append(func.__name__)
            return super().__torch_function__(func, types, args, kwargs)

    x = t().as_subclass(Logged)
    y = (x + 1).sum()
    assert type(y) is Logged
    assert Logged.log[:2] == ["add", "sum"]


# -- modes and disabling ----------------------------------------------------------------------


class LogMode(TorchFunctionMode):
    def __init__(self):
        self.calls = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.calls.append(func.__name__)
        return func(*args, **(kwargs or {}))


def test_mode_sees_plain_tensor_calls_and_is_popped_while_running():
    m = LogMode()
    x = t()
    with m:
        y = tensorlib.add(x, 1) * 2
        _ = y.shape
        tensorlib.zeros(2)  # modes see factories too, as in torch
    assert m.calls == ["add", "mul", "__get__", "zeros"]
    assert tensorlib.add(t(), 1).shape == (2,)  # mode gone after exit


def test_nested_modes_innermost_first():
    outer, inner = LogMode(), LogMode()
    x = t()
    with outer, inner:
        tensorlib.neg(x)
    assert inner.calls == ["neg"] and outer.calls == ["neg"]


def test_mode_not_implemented_goes_to_subclasses_then_raises():
    class Decline(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            return NotImplemented

    r = Recorder()
    with Decline():
        assert tensorlib.neg(r) == "rec"
        with pytest.raises(TypeError, match="nor in mode"):
            tensorlib.neg(t())
        # As in torch, a subclass's default handler re-enters the call and meets the mode again.
        with pytest.raises(TypeError, match="nor in mode"):
            tensorlib.neg(t().as_subclass(S))


def test_disable_torch_function_subclass_and_all():
    s = t().as_subclass(S)
    with DisableTorchFunctionSubclass():
        assert type(s + 1) is tensorlib.Tensor
        m = LogMode()
        with m:
            tensorlib.neg(s)
        assert m.calls == ["neg"]
    m = LogMode()
    with m:
        with DisableTorchFunction():
            tensorlib.neg(t())
    assert m.calls == []
    assert type(s + 1) is S


# -- helpers --------------------------------------------------------------------------------------


def test_has_handle_and_wrap_torch_function():
    r = Recorder()
    assert has_torch_function((r,)) and not has_torch_function((t(), 1))

    def my_func(a, b=1):
        if has_torch_function((a,)):
            return handle_torch_function(my_func, (a,), a, b=b)
        return "default"

    assert my_func(t()) == "default"
    assert my_func(r, b=3) == "rec"
    assert r.calls[-1][0] is my_func and r.calls[-1][3] == {"b": 3}

    @wrap_torch_function(lambda a, b=None: (a, b))
    def other(a, b=None):
        return "plain"

    assert other(t()) == "plain"
    assert other(t(), r) == "rec"
    assert other.__name__ == "other"


def test_is_tensor_like():
    assert is_tensor_like(t()) and is_tensor_like(Recorder()) and is_tensor_like(t().as_subclass(S))
    assert not is_tensor_like(1) and not is_tensor_like(None) and not is_tensor_like(object())


def test_wrapped_functions_and_methods_pickle_by_reference():
    for f in (tensorlib.add, tensorlib.Tensor.add, tensorlib.Tensor.__add__, F.relu, tensorlib.nn.init.uniform_):
        assert pickle.loads(pickle.dumps(f)) is f


def test_duck_type_in_grad_free_positions_does_not_break_plain_calls():
    # Python scalars, None, strings, slices and Ellipsis never dispatch.
    x = tensorlib.arange(6.0).reshape(2, 3)
    assert x[..., 1:].shape == (2, 2)
    assert x[None, 0].shape == (1, 3)
    assert tensorlib.sum(x, dim=(0, 1)).item() == 15.0


def test_base_mode_passes_everything_through():
    from tensorlib.overrides import BaseTorchFunctionMode

    class OnlyNeg(BaseTorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            if func is tensorlib.neg:
                return "intercepted"
            return super().__torch_function__(func, types, args, kwargs)

    with OnlyNeg():
        assert tensorlib.neg(t()) == "intercepted"
        assert tensorlib.add(t(), 1).tolist() == [2.0, 3.0]
