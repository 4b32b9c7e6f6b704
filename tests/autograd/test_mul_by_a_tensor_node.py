"""``x * other`` where only ``x`` needs a gradient: its node (torch's MulBackward0) takes ``g * other`` on the
arrays when it can, and gives the general formula's gradients, errors and graphs in every case."""

from __future__ import annotations

import numpy as np
import pytest

import tensorlib


def _general(x, other, g):
    """The gradient through the general formula: ``other`` marked as needing a gradient (where its dtype can)."""
    o = other.detach().clone()
    if o.dtype.is_floating_point or o.dtype.is_complex:
        o.requires_grad_()
    else:  # an integer or bool tensor cannot need a gradient: the formula under create_graph instead
        (x * o).backward(g, create_graph=True)
        return x.grad.detach().numpy().copy()
    (x * o).backward(g)
    return x.grad.numpy().copy()


@pytest.mark.parametrize(("xs", "os", "xdt", "odt"), [
    ((3, 4), (3, 4), "float32", "float32"),
    ((3, 4), (4,), "float32", "float32"),      # other broadcast
    ((1, 4), (3, 4), "float64", "float64"),    # x broadcast: its gradient summed back
    ((3, 4), (3, 4), "float32", "float64"),    # the product in float64: cast back to x's dtype
    ((3, 4), (3, 4), "float64", "int64"),
    ((3, 4), (3, 4), "float64", "bool"),
    ((2,), (2,), "complex128", "float64"),
    ((2,), (2,), "float64", "complex128"),
    ((), (), "float64", "float64"),
])
def test_gradients_equal_the_general_formulas(xs, os, xdt, odt) -> None:
    rng = np.random.default_rng(0)
    xv = rng.standard_normal(xs).astype(xdt)
    ov = (rng.standard_normal(os) * 3).astype(odt)
    out_shape = np.broadcast_shapes(xs, os)
    gv = rng.standard_normal(out_shape)
    results = []
    for general in (False, True):
        x = tensorlib.tensor(xv, requires_grad=True)
        other = tensorlib.tensor(ov)
        y = x * other
        assert y.grad_fn.name() == "MulBackward0" and type(y.grad_fn).__name__ == "MulBackward0"
        g = tensorlib.tensor(gv.astype(y.detach().numpy().dtype))
        if general:
            results.append(_general(x, other, g))
        else:
            y.backward(g)
            results.append(x.grad.numpy().copy())
    np.testing.assert_array_equal(results[0], results[1], strict=True)


def test_changing_the_other_operand_in_place_is_torchs_error() -> None:
    x = tensorlib.ones(3, requires_grad=True)
    other = tensorlib.tensor([1.0, 2.0, 3.0])
    y = (x * other).sum()
    other.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


def test_second_backward_through_a_freed_graph_is_torchs_error() -> None:
    x = tensorlib.ones(3, requires_grad=True)
    y = (x * tensorlib.tensor([1.0, 2.0, 3.0])).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="second time"):
        y.backward()


def test_second_order_gradients_and_numerical_checks() -> None:
    rng = np.random.default_rng(1)
    x = tensorlib.tensor(rng.standard_normal((2, 3)), requires_grad=True)
    other = tensorlib.tensor(rng.standard_normal((2, 3)))
    assert tensorlib.autograd.gradcheck(lambda t: t * other, (x,))
    assert tensorlib.autograd.gradgradcheck(lambda t: (t * other) ** 2, (x,))
    g, = tensorlib.autograd.grad((x * other).sum(), x, create_graph=True)
    assert g.requires_grad is False or g.grad_fn is not None  # recorded when it depends on x (here it does not)
    np.testing.assert_array_equal(g.detach().numpy(), other.numpy())


def test_matches_torch() -> None:
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(2)
    xv, ov = rng.standard_normal((4, 5)).astype(np.float32), rng.standard_normal((4, 5)).astype(np.float32)
    x, tx = tensorlib.tensor(xv, requires_grad=True), torch.tensor(xv, requires_grad=True)
    (x * tensorlib.tensor(ov)).sum().backward()
    (tx * torch.tensor(ov)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), tx.grad.numpy())
