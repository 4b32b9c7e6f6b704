"""What handlers receive, entry point by entry point, compared with torch (tensorlib/_calling.py is the table)."""

from __future__ import annotations

import pytest

import tensorlib
from tensorlib import _calling, _registry


def _log_mode(api):
    class Log(api.TorchFunctionMode):
        def __init__(self):
            self.calls = []

        def __torch_function__(self, func, types, args=(), kwargs=None):
            name = getattr(func, "__qualname__", None) or func.__name__
            for prefix in ("TensorBase.", "_VariableFunctionsClass.", "getset_descriptor.", "property."):
                name = name.replace(prefix, "Tensor." if prefix == "TensorBase." else "")
            self.calls.append((name, len(args), None if kwargs is None else sorted(kwargs)))
            return func(*args, **(kwargs or {}))

    return Log


def _first_call(api, fn):
    with _log_mode(api)() as log:
        fn()
    return log.calls[0]


def _operators(api):
    lib = api.lib
    f = lib.ones(2, 2) + 1
    i = lib.ones(2, 2, dtype=lib.int64)
    out = {}
    for name in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow"):
        out[f"__{name}__"] = lambda name=name: getattr(f, f"__{name}__")(2)
        out[f"__r{name}__"] = lambda name=name: getattr(f, f"__r{name}__")(2)
        out[f"__i{name}__"] = lambda name=name: getattr(f.clone(), f"__i{name}__")(2)
    for name in ("and", "or", "xor", "lshift", "rshift"):
        out[f"__{name}__"] = lambda name=name: getattr(i, f"__{name}__")(1)
        out[f"__r{name}__"] = lambda name=name: getattr(i, f"__r{name}__")(1)
        out[f"__i{name}__"] = lambda name=name: getattr(i.clone(), f"__i{name}__")(1)
    for name in ("eq", "ne", "lt", "le", "gt", "ge"):
        out[f"__{name}__"] = lambda name=name: getattr(f, f"__{name}__")(1)
    out["__matmul__"] = lambda: f @ f
    out["__rmatmul__"] = lambda: f.__rmatmul__(f)
    out["__neg__"] = lambda: -f
    out["__pos__"] = lambda: +f
    out["__abs__"] = lambda: abs(f)
    out["__invert__"] = lambda: ~i
    out["__getitem__"] = lambda: f[0]
    out["__setitem__"] = lambda: f.clone().__setitem__(0, 1.0)
    out["__len__"] = lambda: len(f)
    out["__contains__"] = lambda: 1.0 in f
    out["__reversed__"] = lambda: reversed(f)
    out["__format__"] = lambda: format(f)
    out["shape"] = lambda: f.shape
    return out


OPERATORS = sorted(_operators(type("A", (), {"lib": tensorlib})()))


@pytest.mark.parametrize("entry", OPERATORS)
def test_operator_reaches_handlers_as_in_torch(entry):
    from tests.parity.torch_function.libraries import Api

    torch_api = Api("torch")  # skips without torch
    ours = _first_call(Api("tensorlib"), _operators(Api("tensorlib"))[entry])
    theirs = _first_call(torch_api, _operators(torch_api)[entry])
    assert ours == theirs


@pytest.mark.parametrize("call", [
    lambda lib, F, x: F.relu(x),
    lambda lib, F, x: F.softmax(x, 0),
    lambda lib, F, x: F.dropout(x, 0.5, False),
    lambda lib, F, x: F.cross_entropy(x, lib.tensor([0, 1])),
    lambda lib, F, x: lib.norm(x),
    lambda lib, F, x: lib.split(x, 1),
    lambda lib, F, x: lib.tensordot(x, x),
    lambda lib, F, x: x.split(1),
    lambda lib, F, x: x.norm(),
    lambda lib, F, x: x.unique(),
    lambda lib, F, x: x.requires_grad_().sum().backward(),
    lambda lib, F, x: x.register_hook(lambda g: g) if x.requires_grad_() is not None else None,
    lambda lib, F, x: repr(x),
    lambda lib, F, x: lib.add(x, 1),
    lambda lib, F, x: x.add(1, alpha=2),
], ids=["F.relu", "F.softmax", "F.dropout", "F.cross_entropy", "norm", "split", "tensordot", "Tensor.split",
        "Tensor.norm", "Tensor.unique", "Tensor.backward", "Tensor.register_hook", "Tensor.__repr__", "add",
        "Tensor.add"])
def test_python_level_entries_pass_keywords_as_torch_does(call):
    from tests.parity.torch_function.libraries import Api

    torch_api = Api("torch")
    results = []
    for api in (Api("tensorlib"), torch_api):
        x = api.lib.ones(2, 2)
        with _log_mode(api)() as log:
            call(api.lib, api.F, x)
        # the first call of the named entry (torch's Python-level functions may call helpers first)
        results.append(log.calls[-1] if "backward" in log.calls[-1][0] else log.calls[0])
    assert results[0] == results[1]


def test_the_python_level_table_is_torch_s():
    pytest.importorskip("torch")
    from tests.parity.torch_calls import python_level_calls

    assert python_level_calls() == _calling.PYTHON_LEVEL


def test_every_name_in_the_table_is_a_tensorlib_entry():
    for namespace, table in _calling.PYTHON_LEVEL.items():
        declared = {b.name for b in _registry.bindings(namespace)}
        if namespace == _registry.TENSOR:
            declared |= set(vars(tensorlib.Tensor))
        assert set(table) <= declared, namespace
    for operator, method in _calling.OPERATOR_FUNCS.items():
        assert callable(getattr(tensorlib.Tensor, operator)) and callable(getattr(tensorlib.Tensor, method))


def test_a_declined_binary_operator_lets_python_try_the_reflected_one(api):
    class Declines:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return NotImplemented

        def __radd__(self, other):
            return "radd"

        def __rpow__(self, other):
            return "rpow"

        def __rmatmul__(self, other):
            return "rmatmul"

        def __eq__(self, other):
            return "eq"

    x = api.lib.ones(2)
    d = Declines()
    assert x + d == "radd"
    assert x ** d == "rpow"
    assert x @ d == "rmatmul"
    assert (x == d) == "eq"  # Python tries the reflected __eq__ too
    with pytest.raises(TypeError, match="unsupported operand"):
        x - d  # no __rsub__: Python's own error
    # a method is not an operator: the protocol's error (torch 2.13's builtins word it differently from the seed)
    with pytest.raises(TypeError, match="Multiple dispatch failed" if api.is_torch else "no implementation found"):
        x.sub(d)


def test_reflected_true_division_is_reported_as_rdiv(api):
    calls = []

    class Logged(api.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            calls.append(func)
            return super().__torch_function__(func, types, args, kwargs)

    s = api.t().as_subclass(Logged)
    _ = 2 / s
    assert calls[0] is api.Tensor.__rdiv__


@pytest.mark.parametrize("call", [
    lambda lib, d, x: lib.autograd.grad(d, x),
    lambda lib, d, x: lib.autograd.grad([d], [x]),
    lambda lib, d, x: lib.autograd.grad((x * 2).sum(), d, retain_graph=True),
    lambda lib, d, x: lib.autograd.backward(d),
    lambda lib, d, x: lib.autograd.backward([d], grad_tensors=[x]),
], ids=["grad(duck, t)", "grad([duck], [t])", "grad(t, duck)", "backward(duck)", "backward([duck], grad_tensors)"])
def test_autograd_entry_points_hand_tuples_and_keywords_to_handlers(api, call):
    seen = []

    class Duck:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append((func, [tuple(type(v).__name__ for v in a) for a in args[:2]], kwargs))
            return "handled"

    x = api.lib.ones(2, requires_grad=True)
    assert call(api.lib, Duck(), x) == "handled"
    func, args, kwargs = seen[0]
    if func is api.lib.autograd.grad:
        assert len(args) == 2 and all(isinstance(a, tuple) for a in args)
        assert sorted(kwargs) == ["allow_unused", "create_graph", "grad_outputs", "is_grads_batched",
                                  "materialize_grads", "only_inputs", "retain_graph"]
    else:
        assert func is api.lib.autograd.backward
        assert args[0] == ("Duck",)
        assert sorted(kwargs) == ["create_graph", "grad_tensors", "inputs", "retain_graph"]
