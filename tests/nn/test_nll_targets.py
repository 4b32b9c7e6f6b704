"""nll_loss / cross_entropy over every kind of target: all valid (the one-comparison shortcut), some ignored,
out of range (each side), unsigned, and an ignore_index that is itself a class. Values and gradients are
checked against a NumPy reference, errors against torch's messages."""

from __future__ import annotations

import numpy as np
import pytest

import tensorlib
import tensorlib.nn.functional as F

_rng = np.random.default_rng(7)
LOGITS = _rng.standard_normal((6, 4))


def _reference(target: np.ndarray, ignore_index: int, reduction: str) -> tuple[float | np.ndarray, np.ndarray]:
    """Cross entropy of LOGITS and its gradient, written out with NumPy."""
    z = LOGITS - LOGITS.max(1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(1, keepdims=True))
    valid = target != ignore_index
    safe = np.where(valid, target, 0)
    losses = -logp[np.arange(len(target)), safe] * valid
    weights = valid / (valid.sum() if reduction == "mean" else 1)
    onehot = np.zeros_like(LOGITS)
    onehot[np.arange(len(target)), safe] = 1
    grad = (np.exp(logp) - onehot) * weights[:, None]
    value = {"mean": losses.sum() / valid.sum(), "sum": losses.sum(), "none": losses}[reduction]
    return value, grad


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize(("target", "ignore_index"), [
    ([0, 3, 1, 2, 3, 0], -100),   # all valid, default ignore_index
    ([0, 3, 1, 2, 3, 0], -1),     # all valid, another out-of-range ignore_index
    ([0, 3, -1, 2, 3, 0], -1),    # one ignored
    ([0, 3, 1, 2, 3, 0], 3),      # ignore_index is a class
], ids=["valid", "valid-ignore-1", "one-ignored", "ignore-a-class"])
def test_values_and_gradients(target, ignore_index, reduction):
    t = np.array(target)
    x = tensorlib.tensor(LOGITS, requires_grad=True)
    loss = F.cross_entropy(x, tensorlib.tensor(t), ignore_index=ignore_index, reduction=reduction)
    value, grad = _reference(t, ignore_index, reduction)
    np.testing.assert_allclose(loss.detach().numpy(), value, rtol=1e-12)
    loss.sum().backward() if reduction == "none" else loss.backward()
    np.testing.assert_allclose(x.grad.numpy(), grad, rtol=1e-12, atol=1e-15)


def test_unsigned_targets_take_the_same_path():
    x = tensorlib.tensor(LOGITS)
    t = np.array([0, 3, 1, 2, 3, 0])
    a = F.nll_loss(F.log_softmax(x, 1), tensorlib.tensor(t.astype(np.uint8)))
    b = F.nll_loss(F.log_softmax(x, 1), tensorlib.tensor(t))
    assert a.item() == b.item()


@pytest.mark.parametrize("bad", [-1, 4, -7, 255])
def test_out_of_range_targets_are_index_errors(bad):
    t = tensorlib.tensor([0, bad, 1, 2, 3, 0])
    with pytest.raises(IndexError, match=f"Target {bad} is out of bounds."):
        F.cross_entropy(tensorlib.tensor(LOGITS), t)


def test_out_of_range_unsigned_target():
    t = tensorlib.tensor(np.array([0, 200, 1, 2, 3, 0], dtype=np.uint8))
    with pytest.raises(IndexError, match="Target 200 is out of bounds."):
        F.nll_loss(tensorlib.tensor(LOGITS), t)


def test_float32_matches_torch():
    torch = pytest.importorskip("torch")
    x32 = LOGITS.astype(np.float32)
    t = np.array([0, 3, 1, 2, 3, 0])
    ours = tensorlib.tensor(x32, requires_grad=True)
    theirs = torch.tensor(x32, requires_grad=True)
    lo, lt = F.cross_entropy(ours, tensorlib.tensor(t)), torch.nn.functional.cross_entropy(theirs, torch.tensor(t))
    lo.backward()
    lt.backward()
    assert lo.dtype == tensorlib.float32
    np.testing.assert_allclose(lo.item(), lt.item(), rtol=1e-6)
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (2, 3, 4), (2, 3, 2, 2, 3)])
@pytest.mark.parametrize("kwargs", [{}, {"weight": True}, {"ignore_index": 1}, {"ignore_index": 1, "weight": True}])
@pytest.mark.parametrize("reduction", ["mean", "none", "sum"])
def test_nll_loss_with_spatial_dims_is_one_nllloss2d_node_as_torch(shape, kwargs, reduction):
    """Inputs with spatial dims (segmentation) are one NllLoss2DBackward0 node, under a view for reduction 'none'
    unless there are exactly two spatial dims, as torch; values, gradients and gradients of gradients match."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(10)
    a, t, w = rng.standard_normal(shape), rng.integers(0, 3, (shape[0],) + shape[2:]), rng.random(3)
    results = []
    for L in (tensorlib, torch):
        x = L.tensor(a, requires_grad=True)
        k = dict(kwargs)
        if "weight" in k:
            k["weight"] = L.tensor(w)
        y = L.nn.functional.nll_loss(x, L.tensor(t), reduction=reduction, **k)
        ce = L.nn.functional.cross_entropy(x, L.tensor(t), reduction=reduction, **k)
        (g,) = L.autograd.grad(y, x, L.ones_like(y) if reduction == "none" else None, create_graph=True)
        (gg,) = L.autograd.grad((g * x).sum(), x)
        results.append((y.grad_fn.name(), ce.grad_fn.name(), y.detach().numpy(), g.detach().numpy(), gg.numpy()))
    assert results[0][:2] == results[1][:2]
    for ours, theirs in zip(results[0][2:], results[1][2:]):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-14)
