"""In-place ops on tensors with history record torch's graphs: the op's node right after the tensor's previous
node (torch keeps the original value internally; no CloneBackward0 between them), with the same gradients."""

from __future__ import annotations

import numpy as np
import pytest

import tensorlib


def _graph(fn):
    if fn is None:
        return None
    name = fn.name().replace("torch::autograd::", "")
    return name if name == "AccumulateGrad" else (name, [_graph(n) for n, _ in fn.next_functions])


def _case(name):
    def run(lib, x, z):
        y = x * 3
        if name == "mul_ number":
            y.mul_(2)
        elif name == "mul_ tensor":
            y.mul_(z)
        elif name == "add_ alpha":
            y.add_(z, alpha=2)
        elif name == "exp_":
            y.exp_()
        elif name == "sigmoid_":
            y.sigmoid_()
        elif name == "twice":
            y.mul_(z).tanh_()
        elif name == "output of two":
            y = x.max(0).values * 1
            y.div_(z[0])
        elif name == "a view's base":
            y[1:].mul_(z[1:])
        return y
    return run


CASES = ["mul_ number", "mul_ tensor", "add_ alpha", "exp_", "sigmoid_", "twice", "output of two", "a view's base"]


# (an op in place on a view: torch's CopySlices holds the op's node inside it, ours has it as an edge)
@pytest.mark.parametrize("name", [c for c in CASES if c != "a view's base"])
def test_graphs_and_gradients_are_torchs(name) -> None:
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(4)
    xv, zv = rng.standard_normal(3), rng.standard_normal(3) + 2
    results = []
    for lib in (tensorlib, torch):
        x = lib.tensor(xv, requires_grad=True)
        z = lib.tensor(zv, requires_grad=True)
        y = _case(name)(lib, x, z)
        graph = _graph(y.grad_fn)
        y.sum().backward()
        results.append((graph, x.grad.numpy().copy(), None if z.grad is None else z.grad.numpy().copy()))
    (ours, gx, gz), (theirs, tgx, tgz) = results
    assert ours == theirs
    np.testing.assert_allclose(gx, tgx, rtol=1e-7)  # (tanh's derivative from its output: 1 - y*y cancels)
    if tgz is None:
        assert gz is None
    else:
        np.testing.assert_allclose(gz, tgz, rtol=1e-7)


@pytest.mark.parametrize("name", CASES)
def test_gradients_are_checked_numerically(name) -> None:
    rng = np.random.default_rng(5)
    x = tensorlib.tensor(rng.standard_normal(3), requires_grad=True)
    z = tensorlib.tensor(rng.standard_normal(3) + 2, requires_grad=True)
    assert tensorlib.autograd.gradcheck(lambda a, b: _case(name)(tensorlib, a, b), (x, z))
    assert tensorlib.autograd.gradgradcheck(lambda a, b: _case(name)(tensorlib, a, b), (x, z))


def test_the_original_value_is_what_the_op_saved() -> None:
    x = tensorlib.tensor([1.0, 2.0], dtype=tensorlib.float64, requires_grad=True)
    z = tensorlib.tensor([3.0, 5.0], dtype=tensorlib.float64, requires_grad=True)
    y = x * 1
    y.mul_(z)  # z's gradient is y's value before the product
    y.mul_(2)
    y.sum().backward()
    assert z.grad.tolist() == [2.0, 4.0] and x.grad.tolist() == [6.0, 10.0]
    s = x * 1
    z2 = z * 1
    s.mul_(z2)
    z2.add_(1)  # a saved input changed afterwards: torch's error at backward
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        s.sum().backward()
