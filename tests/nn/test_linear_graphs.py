"""``F.linear`` records torch's graphs (``addmm(bias, input, weight.t())``, ``mm(input, weight.t())``, rows viewed
back for other ranks), the weight's ``TBackward0`` included, with torch's gradients."""

from __future__ import annotations

import numpy as np
import pytest

import tensorlib


def _graph(fn):
    if fn is None:
        return None
    name = fn.name().replace("torch::autograd::", "")
    return name if name == "AccumulateGrad" else (name, [_graph(n) for n, _ in fn.next_functions])


CASES = [(shape, bias, grads) for shape in [(4, 3), (3,), (2, 4, 3)] for bias in (True, False)
         for grads in ("xwb", "wb", "x", "b", "w")]


@pytest.mark.parametrize(("shape", "bias", "grads"), CASES)
def test_graphs_and_gradients_are_torchs(shape, bias, grads) -> None:
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(6)
    xv, wv, bv = rng.standard_normal(shape), rng.standard_normal((2, 3)), rng.standard_normal(2)
    gv = rng.standard_normal(shape[:-1] + (2,))
    results = []
    for lib in (tensorlib, torch):
        x = lib.tensor(xv, requires_grad="x" in grads)
        w = lib.tensor(wv, requires_grad="w" in grads)
        b = lib.tensor(bv, requires_grad="b" in grads and bias)
        if not (x.requires_grad or w.requires_grad or b.requires_grad):
            pytest.skip("nothing to record")
        y = lib.nn.functional.linear(x, w, b if bias else None)
        graph = _graph(y.grad_fn)
        y.backward(lib.tensor(gv))
        results.append((graph, [None if t.grad is None else t.grad.numpy().copy() for t in (x, w, b)]))
    (ours, ours_grads), (theirs, their_grads) = results
    assert ours == theirs
    for a, t in zip(ours_grads, their_grads):
        assert (a is None) == (t is None)
        if a is not None:
            np.testing.assert_allclose(a, t, rtol=1e-12)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_gradients_are_checked_numerically(dtype) -> None:
    rng = np.random.default_rng(8)

    def make(*shape):
        v = rng.standard_normal(shape) + (1j * rng.standard_normal(shape) if dtype == "complex128" else 0)
        return tensorlib.tensor(v.astype(dtype), requires_grad=True)

    x, w, b = make(4, 3), make(2, 3), make(2)
    F = tensorlib.nn.functional
    assert tensorlib.autograd.gradcheck(lambda x, w, b: F.linear(x, w, b), (x, w, b))
    assert tensorlib.autograd.gradgradcheck(lambda x, w, b: F.linear(x, w, b), (x, w, b))
    assert tensorlib.autograd.gradcheck(lambda x, w: F.linear(x, w), (x, w))
    assert tensorlib.autograd.gradgradcheck(lambda x, w: F.linear(x, w), (x, w))
    x1 = make(3)
    assert tensorlib.autograd.gradcheck(lambda x, w, b: F.linear(x, w, b), (x1, w, b))


def test_the_weights_gradient_is_its_own_contiguous_array() -> None:
    lin = tensorlib.nn.Linear(3, 2)
    lin(tensorlib.ones(4, 3)).sum().backward()
    g = lin.weight.grad._data  # (numpy() hands out a view of it)
    assert g.flags.c_contiguous and g.flags.owndata and g.flags.writeable
    np.testing.assert_array_equal(g, np.full((2, 3), 4.0, np.float32))
    kept = []
    out = lin(tensorlib.ones(4, 3))
    out.grad_fn.register_hook(lambda grad_inputs, grad_outputs: kept.append(grad_inputs))  # user code holds them
    lin.weight.grad = None
    out.sum().backward()
    held = kept[-1][2].numpy()  # the weight.t() gradient the hook saw
    lin.weight.grad.add_(1)  # the stored gradient is not the hook's array
    np.testing.assert_array_equal(held, np.full((3, 2), 4.0, np.float32))
    np.testing.assert_array_equal(lin.weight.grad.numpy(), np.full((2, 3), 5.0, np.float32))
