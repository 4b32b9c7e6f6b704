"""The default ``__torch_function__`` on a Tensor subclass records torch's graphs: each result that requires a
gradient becomes the subclass through an alias (``AliasBackward0`` on top of the op's node, as torch's
``as_subclass``); a result that needs none simply changes class (no node to record)."""

from __future__ import annotations

import numpy as np
import pytest

import tensorlib


def _graph(fn):
    """A node's name and its edges' graphs, down to the leaves."""
    if fn is None:
        return None
    name = fn.name().replace("torch::autograd::", "")
    return name if name == "AccumulateGrad" else (name, [_graph(n) for n, _ in fn.next_functions])


CASES = {
    "mul": lambda lib, s: s * 2,
    "sum": lambda lib, s: (s * s).sum(),
    "function": lambda lib, s: lib.tanh(s),
    "split": lambda lib, s: s.split(1)[1],
    "max values": lambda lib, s: s.max(0).values,
    "indexing": lambda lib, s: s[1:],
    "clone": lambda lib, s: s.clone(),
    "zeros_like": lambda lib, s: lib.zeros_like(s, requires_grad=True),
    "two subclass args": lambda lib, s: s * s,
    "chain": lambda lib, s: ((s + 1) * s).exp().mean(),
}


@pytest.mark.parametrize("case", list(CASES))
def test_graphs_of_subclass_results_are_torchs(case) -> None:
    torch = pytest.importorskip("torch")
    ours = CASES[case](tensorlib, tensorlib.ones(2, dtype=tensorlib.float64, requires_grad=True).as_subclass(
        type("Sub", (tensorlib.Tensor,), {})))
    theirs = CASES[case](torch, torch.ones(2, dtype=torch.float64, requires_grad=True).as_subclass(
        type("Sub", (torch.Tensor,), {})))
    assert type(ours).__name__ == type(theirs).__name__ == "Sub"
    assert _graph(ours.grad_fn) == _graph(theirs.grad_fn)
    assert ours.is_leaf == theirs.is_leaf and ours.requires_grad == theirs.requires_grad


def test_recorded_results_are_aliases_and_gradients_flow_through_them() -> None:
    class Sub(tensorlib.Tensor):
        pass

    x = tensorlib.tensor([1.0, 2.0, 3.0], dtype=tensorlib.float64, requires_grad=True)
    s = x.as_subclass(Sub)
    y = s * s
    assert type(y) is Sub and y.grad_fn.name() == "AliasBackward0"
    assert y.grad_fn.next_functions[0][0].name() == "MulBackward0"
    assert y._is_view()  # of the plain result, as torch's alias
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 4.0, 6.0]
    assert tensorlib.autograd.gradcheck(lambda t: (t.as_subclass(Sub) * t).sum(), (x,))
    assert tensorlib.autograd.gradgradcheck(lambda t: (t.as_subclass(Sub) ** 3).sum(), (x,))
    y.add_(1)  # in place on the alias: its base (the plain result) changes with it
    assert type(y) is Sub and y.tolist() == [2.0, 5.0, 10.0]

    with tensorlib.no_grad():  # nothing recorded: the result simply changes class, no alias
        z = s * 2
    assert type(z) is Sub and z.grad_fn is None and not z._is_view()
    w = s.detach() * 2
    assert type(w) is Sub and w.grad_fn is None and not w._is_view()


def test_a_subclass_with_its_own_handler_is_left_alone() -> None:
    class Logged(tensorlib.Tensor):
        calls: list = []

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            cls.calls.append(func.__name__)
            with tensorlib._C.DisableTorchFunctionSubclass():
                return func(*args, **(kwargs or {}))

    x = tensorlib.ones(2, requires_grad=True).as_subclass(Logged)
    y = x * 2
    assert type(y) is tensorlib.Tensor and y.grad_fn.name() == "MulBackward0"  # its handler returned a plain one
    assert Logged.calls[-1] == "__mul__" or Logged.calls[-1] == "mul"
    np.testing.assert_array_equal(y.detach().numpy(), [2.0, 2.0])
