"""Activations of floating point tensors are one node each, as torch records them: the same values (NaN and the
infinities included, sent down the branches torch sends them), the same node and edge, the same first and second
derivatives (the kinks included, where torch picks a one-sided slope)."""

from __future__ import annotations

import numpy as np
import pytest

import tensorlib
import tensorlib.nn.functional as F
from tensorlib.autograd import gradcheck, gradgradcheck

CASES = {
    "leaky_relu": (lambda F_, x: F_.leaky_relu(x, 0.2), "LeakyReluBackward0"),
    "elu": (lambda F_, x: F_.elu(x, 1.3), "EluBackward0"),
    "selu": (lambda F_, x: F_.selu(x), "EluBackward0"),
    "celu": (lambda F_, x: F_.celu(x, 0.7), "CeluBackward0"),
    "gelu": (lambda F_, x: F_.gelu(x), "GeluBackward0"),
    "gelu-tanh": (lambda F_, x: F_.gelu(x, approximate="tanh"), "GeluBackward0"),
    "silu": (lambda F_, x: F_.silu(x), "SiluBackward0"),
    "mish": (lambda F_, x: F_.mish(x), "MishBackward0"),
    "softplus": (lambda F_, x: F_.softplus(x, 2.0, 3.0), "SoftplusBackward0"),
    "hardswish": (lambda F_, x: F_.hardswish(x), "HardswishBackward0"),
    "hardsigmoid": (lambda F_, x: F_.hardsigmoid(x), "HardsigmoidBackward0"),
    "hardtanh": (lambda F_, x: F_.hardtanh(x, -0.5, 1.0), "HardtanhBackward0"),
    "relu6": (lambda F_, x: F_.relu6(x), "HardtanhBackward0"),
    "hardshrink": (lambda F_, x: F_.hardshrink(x, 0.5), "HardshrinkBackward0"),
    "softshrink": (lambda F_, x: F_.softshrink(x, 0.5), "SoftshrinkBackward0"),
    "logsigmoid": (lambda F_, x: F_.logsigmoid(x), "LogSigmoidBackward0"),
    "threshold": (lambda F_, x: F_.threshold(x, 0.5, -2.0), "ThresholdBackward0"),
}
# the kinks of the piecewise ones, where torch's one-sided choices show
KINKS = [0.0, -0.0, 0.5, -0.5, 1.0, 3.0, -3.0, 6.0, 1.5, -1.5, 30.0, -30.0, np.inf, -np.inf, np.nan]


def _values(seed: int) -> np.ndarray:
    return np.concatenate([KINKS, np.random.default_rng(seed).standard_normal(40) * 4])


@pytest.mark.parametrize("name", list(CASES))
def test_one_node_and_torchs_values_and_first_derivatives(name) -> None:
    torch = pytest.importorskip("torch")
    fn, node = CASES[name]
    a = _values(1)
    results = []
    for L, F_ in ((tensorlib, F), (torch, torch.nn.functional)):
        x = L.tensor(a, requires_grad=True)
        y = fn(F_, x)
        edges = [None if n is None else type(n).__name__ for n, _ in y.grad_fn.next_functions]
        (g,) = L.autograd.grad(y, x, L.ones_like(y))
        results.append((y.grad_fn.name(), edges, y.detach().numpy(), g.numpy()))
    ours, theirs = results
    assert ours[0] == theirs[0] == node and ours[1] == theirs[1] == ["AccumulateGrad"]
    np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-12, atol=1e-300)  # nan where torch has nan
    # torch rounds celu's 1/alpha to float32 in its backward, and evaluates tanh-GELU's derivative in another order
    np.testing.assert_allclose(ours[3], theirs[3], rtol={"celu": 1e-6, "gelu-tanh": 1e-8}.get(name, 1e-12), atol=1e-300)


@pytest.mark.parametrize("name", list(CASES))
def test_second_derivatives_match_torch_and_pass_gradgradcheck(name) -> None:
    fn, _ = CASES[name]
    a = np.random.default_rng(2).standard_normal(30) * 3
    a = a[np.min(np.abs(a[:, None] - np.array([0.0, 0.5, -0.5, 1.0, 3.0, -3.0, 6.0, 1.5])), axis=1) > 1e-3]  # off kinks
    x = tensorlib.tensor(a, requires_grad=True)
    assert gradcheck(lambda t: fn(F, t), (x,)) and gradgradcheck(lambda t: fn(F, t), (x,))
    torch = pytest.importorskip("torch")
    if name == "hardsigmoid":
        return  # torch has no derivative of hardsigmoid_backward (ours is zero, as gradgradcheck confirms)
    seconds = []
    for L, F_ in ((tensorlib, F), (torch, torch.nn.functional)):
        t = L.tensor(a, requires_grad=True)
        (g,) = L.autograd.grad((fn(F_, t) ** 2).sum(), t, create_graph=True)
        (gg,) = L.autograd.grad(g.sum(), t)
        seconds.append(gg.numpy())
    np.testing.assert_allclose(seconds[0], seconds[1], rtol=1e-6 if name == "celu" else 1e-9, atol=1e-12)


@pytest.mark.parametrize("name", list(CASES))
def test_float32_values_and_the_in_place_forms(name) -> None:
    torch = pytest.importorskip("torch")
    fn, _ = CASES[name]
    a = _values(3).astype(np.float32)
    a = a[np.isfinite(a)]  # (the float64 test covers the infinities: torch's float32 GELU of inf is nan)
    ours = fn(F, tensorlib.from_numpy(a.copy())).numpy()
    theirs = fn(torch.nn.functional, torch.from_numpy(a.copy())).numpy()
    assert ours.dtype == np.float32
    # (GELU's 1 + erf(x) cancels for negative x: torch's float32 erf leaves ~1e-7 absolute error there, ours less)
    np.testing.assert_allclose(ours, theirs, rtol=3e-6, atol=1e-6)
    # with no gradient to record, the value is still a plain tensor (no node)
    assert fn(F, tensorlib.from_numpy(a.copy())).grad_fn is None
    # a 0-d input, forward and backward
    for v in (-4.0, -0.3, 0.7, 5.0):
        results = []
        for L, F_ in ((tensorlib, F), (torch, torch.nn.functional)):
            x = L.tensor(v, dtype=L.float64, requires_grad=True)
            y = fn(F_, x)
            y.backward()
            results.append((y.shape == (), y.item(), x.grad.item()))
        assert results[0][0] and np.allclose(results[0][1:], results[1][1:], rtol=1e-6, atol=1e-12)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("extra", [(), ("weight",), ("pos_weight",), ("weight", "pos_weight")])
def test_binary_cross_entropy_with_logits_is_one_node_as_torchs(reduction, extra) -> None:
    # one BinaryCrossEntropyWithLogitsBackward0 with edges to the input and the target; values, first and second
    # derivatives of both as torch's, large logits included; weight and pos_weight cannot require grad, as in torch
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(4)
    x, t = rng.standard_normal((4, 3)) * 3, rng.random((4, 3))
    x[0, :2] = [800.0, -800.0]
    consts = {"weight": rng.random(3) + 0.5, "pos_weight": rng.random(3) + 0.5}
    results = []
    for L in (tensorlib, torch):
        xx, tt = L.tensor(x, requires_grad=True), L.tensor(t, requires_grad=True)
        kw = {name: L.tensor(consts[name]) for name in extra}
        y = L.nn.functional.binary_cross_entropy_with_logits(xx, tt, reduction=reduction, **kw)
        edges = [None if n is None else type(n).__name__ for n, _ in y.grad_fn.next_functions]
        firsts = L.autograd.grad((y * y).sum(), (xx, tt), create_graph=True)
        seconds = L.autograd.grad(sum((g * g).sum() for g in firsts), (xx, tt))
        results.append((y.grad_fn.name(), edges, y.detach().numpy(), [g.detach().numpy() for g in firsts + seconds]))
        for name in extra:
            with pytest.raises(RuntimeError, match=f"not differentiable with respect to argument '{name}'"):
                L.nn.functional.binary_cross_entropy_with_logits(xx, tt, **{name: kw[name].clone().requires_grad_()})
    ours, theirs = results
    assert ours[0] == theirs[0] == "BinaryCrossEntropyWithLogitsBackward0" and ours[1] == theirs[1]
    np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-12)
    for got, expected in zip(ours[3], theirs[3]):
        np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)
    inputs = (tensorlib.tensor(x[1:], requires_grad=True), tensorlib.tensor(t[1:], requires_grad=True))
    kw = {name: tensorlib.tensor(consts[name]) for name in extra}
    loss = lambda a, b: F.binary_cross_entropy_with_logits(a, b, reduction=reduction, **kw)  # noqa: E731
    assert gradcheck(loss, inputs) and gradgradcheck(loss, inputs)


@pytest.mark.parametrize("name", [n for n in CASES if n != "relu6"])
def test_a_non_tensor_input_gets_torchs_error_naming_the_function(name) -> None:
    torch = pytest.importorskip("torch")
    fn, _ = CASES[name]
    messages = []
    for F_ in (F, torch.nn.functional):
        with pytest.raises(TypeError) as info:
            fn(F_, [1.0])
        messages.append(str(info.value))
    assert messages[0] == messages[1]


IN_PLACE = {
    "elu_": lambda F_, x: F_.elu_(x),
    "elu(inplace)": lambda F_, x: F_.elu(x, 0.7, inplace=True),
    "leaky_relu_": lambda F_, x: F_.leaky_relu_(x, 0.2),
    "celu_": lambda F_, x: F_.celu_(x, 0.5),
    "selu_": lambda F_, x: F_.selu_(x),
    "threshold_": lambda F_, x: F_.threshold_(x, 0.1, 2.0),
    "hardtanh_": lambda F_, x: F_.hardtanh_(x),
    "relu6(inplace)": lambda F_, x: F_.relu6(x, inplace=True),
    "rrelu": lambda F_, x: F_.rrelu(x),
    "rrelu_": lambda F_, x: F_.rrelu_(x),
    "rrelu(inplace)": lambda F_, x: F_.rrelu(x, inplace=True),
}


@pytest.mark.parametrize("name", list(IN_PLACE))
def test_in_place_forms_record_torchs_nodes_and_gradients(name):
    """torch names the node of an in-place activation whose gradient it computes from the result ``...Backward1``
    (rrelu is ``RreluWithNoiseBackward`` in evaluation too); the values and gradients are the out-of-place ones."""
    torch = pytest.importorskip("torch")
    a = np.array([-2.0, -0.5, 0.0, 0.3, 1.7, 8.0])
    g = np.array([0.1, -1.0, 2.0, 0.5, 3.0, -2.0])
    results = []
    for L in (tensorlib, torch):
        x = L.tensor(a, requires_grad=True)
        y = IN_PLACE[name](L.nn.functional, x * 1)
        (gx,) = L.autograd.grad(y, x, L.tensor(g))
        results.append((y.grad_fn.name(), y.detach().numpy(), gx.numpy()))
    assert results[0][0] == results[1][0]
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-12)
    np.testing.assert_allclose(results[0][2], results[1][2], rtol=1e-12)


def test_rrelu_while_training_is_one_node_scaling_by_its_noise():
    x = tensorlib.tensor(np.array([-2.0, -0.5, 0.3, 1.7]), requires_grad=True)
    y = F.rrelu(x * 1, 0.1, 0.3, training=True)
    assert y.grad_fn.name() == "RreluWithNoiseBackward0"
    (g,) = tensorlib.autograd.grad(y.sum(), x)
    slopes = y.detach().numpy() / x.detach().numpy()
    np.testing.assert_allclose(g.numpy(), slopes)
    assert np.all((slopes[:2] >= 0.1) & (slopes[:2] <= 0.3)) and np.all(slopes[2:] == 1)
    with pytest.raises(TypeError, match=r"^relu6\(\): argument 'input'"):
        F.relu6("a")
