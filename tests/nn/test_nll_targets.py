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


# -- cross_entropy's direct path for (N, C) logits and class indices with none ignored ------------------------


def _composed(x, t, **kwargs):
    """cross_entropy as its two public steps: the reference its direct path must reproduce bit for bit."""
    return F.nll_loss(F.log_softmax(x, 1), t, **kwargs)


@pytest.mark.parametrize("dtype", [tensorlib.float32, tensorlib.float64])
@pytest.mark.parametrize("reduction", ["mean", "sum"])
@pytest.mark.parametrize("shape", [(1, 1), (6, 4), (64, 10), (3, 1000)])
def test_direct_path_gives_the_composed_values_and_gradients_bit_for_bit(dtype, reduction, shape):
    rng = np.random.default_rng(shape[0] * 31 + shape[1])
    logits = rng.standard_normal(shape) * 4
    target = tensorlib.tensor(rng.integers(0, shape[1], shape[0]))
    x1 = tensorlib.tensor(logits, dtype=dtype, requires_grad=True)
    x2 = tensorlib.tensor(logits, dtype=dtype, requires_grad=True)
    direct, composed = F.cross_entropy(x1, target, reduction=reduction), _composed(x2, target, reduction=reduction)
    assert direct.dtype == dtype and direct.shape == ()
    np.testing.assert_array_equal(direct.detach().numpy(), composed.detach().numpy(), strict=True)
    assert direct.grad_fn.name() == "NllLossBackward0"
    assert direct.grad_fn.next_functions[0][0].name() == "LogSoftmaxBackward0"
    assert direct.grad_fn.next_functions[0][0].next_functions[0][0] is x1.grad_fn or x1.is_leaf
    direct.backward()
    composed.backward()
    np.testing.assert_array_equal(x1.grad.numpy(), x2.grad.numpy(), strict=True)
    with tensorlib.no_grad():
        assert F.cross_entropy(x1, target, reduction=reduction).item() == direct.item()


def test_direct_path_gradients_check_numerically_to_the_second_order():
    rng = np.random.default_rng(5)
    x = tensorlib.tensor(rng.standard_normal((5, 3)), requires_grad=True)
    t = tensorlib.tensor([0, 2, 1, 1, 0])
    assert tensorlib.autograd.gradcheck(lambda a: F.cross_entropy(a, t), (x,))
    assert tensorlib.autograd.gradgradcheck(lambda a: F.cross_entropy(a, t, reduction="sum"), (x,))


def test_changing_the_target_after_the_forward_does_not_change_the_gradient():
    for loss_fn in (F.cross_entropy, _composed):
        x = tensorlib.tensor(LOGITS, requires_grad=True)
        t = tensorlib.tensor([0, 3, 1, 2, 3, 0])
        loss = loss_fn(x, t)
        t[0] = 1
        loss.backward()
        np.testing.assert_allclose(x.grad.numpy(), _reference(np.array([0, 3, 1, 2, 3, 0]), -100, "mean")[1],
                                   rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("incoming", [-2.0, float("nan"), float("inf")])
def test_the_loss_gradient_is_zero_off_the_targets_whatever_comes_in(incoming):
    # as torch's nll_loss backward: the incoming gradient scales the target positions only (no -0.0 or NaN
    # elsewhere); log_softmax's backward then spreads it (NaN everywhere for a NaN, as torch)
    x = tensorlib.tensor(LOGITS, requires_grad=True)
    t = tensorlib.tensor([0, 3, 1, 2, 3, 0])
    logp = F.log_softmax(x, 1)
    g, = tensorlib.autograd.grad(F.nll_loss(logp, t), logp, tensorlib.tensor(incoming, dtype=tensorlib.float64))
    expected = np.zeros_like(LOGITS)
    expected[np.arange(6), [0, 3, 1, 2, 3, 0]] = -incoming / 6
    np.testing.assert_array_equal(g.numpy(), expected)
    assert not np.signbit(g.numpy()[expected == 0]).any()
    torch = pytest.importorskip("torch")
    tl = torch.tensor(LOGITS).log_softmax(1).requires_grad_()
    tg, = torch.autograd.grad(torch.nn.functional.nll_loss(tl, torch.tensor([0, 3, 1, 2, 3, 0])), tl,
                              torch.tensor(incoming, dtype=torch.float64))
    np.testing.assert_array_equal(g.numpy(), tg.numpy())


def _graph(fn):
    """A node's name and its edges' graphs, down to the leaves (torch's and ours compared as such)."""
    if fn is None:
        return None
    name = fn.name().replace("torch::autograd::", "")
    return name if name == "AccumulateGrad" else (name, [_graph(n) for n, _ in fn.next_functions])


@pytest.mark.parametrize("case", ["ignored", "ignore-a-class", "uint8", "weight", "smoothing", "smoothing-sum",
                                  "smoothing-none", "smoothing-weight", "none", "subclass", "3-d", "3-d-none", "5-d",
                                  "1-d", "1-d-none", "probabilities", "probabilities-sum", "probabilities-none",
                                  "probabilities-smoothing", "probabilities-weight"])
def test_the_other_cases_take_the_general_path_with_the_same_results(case):
    rng = np.random.default_rng(11)
    shape = {"3-d": (6, 4, 2), "3-d-none": (6, 4, 2), "5-d": (2, 4, 2, 3, 2), "1-d": (4,), "1-d-none": (4,)}
    logits = rng.standard_normal(shape.get(case, (6, 4)))
    target = np.array([0, 3, 1, 2, 3, 0])
    kwargs: dict = {}
    if case.endswith("-none") or case == "none":
        kwargs["reduction"] = "none"
    if case.endswith("-sum"):
        kwargs["reduction"] = "sum"
    if "smoothing" in case:
        kwargs["label_smoothing"] = 0.1
        target[2], kwargs["ignore_index"] = 3, 3  # (an ignored target: its smoothing term is masked)
    if case.endswith("weight"):
        kwargs["weight"] = tensorlib.tensor([1.0, 2.0, 0.5, 3.0], dtype=tensorlib.float64)
    if case == "ignored":
        target[2], kwargs["ignore_index"] = -1, -1
    elif case == "ignore-a-class":
        kwargs["ignore_index"] = 3
    elif case == "uint8":
        target = target.astype(np.uint8)
    elif case in ("3-d", "3-d-none", "5-d"):
        target = rng.integers(0, 4, (logits.shape[0],) + logits.shape[2:])
    elif case in ("1-d", "1-d-none"):
        target = np.array(2)
    elif case.startswith("probabilities"):
        target = rng.dirichlet(np.ones(4), 6)
        kwargs.pop("ignore_index", None)
    cls = type("Sub", (tensorlib.Tensor,), {}) if case == "subclass" else None
    x = tensorlib.tensor(logits, requires_grad=True)
    xs = x.as_subclass(cls) if cls is not None else x
    loss = F.cross_entropy(xs, tensorlib.tensor(target), **kwargs)
    torch = pytest.importorskip("torch")
    tx = torch.tensor(logits, requires_grad=True)
    txs = tx.as_subclass(type("Sub", (torch.Tensor,), {})) if cls is not None else tx
    tloss = torch.nn.functional.cross_entropy(
        txs, torch.tensor(target), **{k: torch.tensor(v.numpy()) if isinstance(v, tensorlib.Tensor) else v
                                      for k, v in kwargs.items()})
    np.testing.assert_allclose(loss.detach().numpy(), tloss.detach().numpy(), rtol=1e-12)
    # (on a subclass, the default __torch_function__ aliases each recorded result: AliasBackward0 nodes, as torch)
    assert _graph(loss.grad_fn) == _graph(tloss.grad_fn)
    loss.sum().backward()
    tloss.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-14)
