"""SGD, Adam and AdamW: trajectories compared with torch's, parameter groups, state dicts and argument errors."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import tensorlib
import tensorlib.nn as nn
from tensorlib.optim import SGD, Adam, AdamW

from tests.helpers import assert_close

_rng = np.random.default_rng(0)
X = _rng.standard_normal((16, 5))
Y = _rng.standard_normal((16, 2))
W0 = _rng.standard_normal((2, 5))
B0 = _rng.standard_normal(2)


def _trajectory(lib, opt_name, kwargs, steps=6, dtype="float64", groups=False):
    dt = getattr(lib, dtype)
    w = lib.tensor(W0.copy(), dtype=dt, requires_grad=True)
    b = lib.tensor(B0.copy(), dtype=dt, requires_grad=True)
    params = [{"params": [w]}, {"params": [b], "lr": 0.02}] if groups else [w, b]
    opt = getattr(lib.optim, opt_name)(params, **kwargs)
    x, y = lib.tensor(X, dtype=dt), lib.tensor(Y, dtype=dt)
    history = []
    for _ in range(steps):
        opt.zero_grad()
        loss = ((x @ w.t() + b - y) ** 2).mean() + (w**4).sum() * 0.01
        loss.backward()
        opt.step()
        history.append((w.detach().numpy().copy(), b.detach().numpy().copy()))
    return history


CASES = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9)),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True)),
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.5)),
    ("SGD", dict(lr=0.1, weight_decay=0.1)),
    ("SGD", dict(lr=0.05, momentum=0.5, weight_decay=0.1, nesterov=True)),
    ("SGD", dict(lr=0.1, maximize=True)),
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.01, weight_decay=0.1)),
    ("Adam", dict(lr=0.01, amsgrad=True)),
    ("Adam", dict(lr=0.05, betas=(0.5, 0.9), eps=1e-3)),
    ("Adam", dict(lr=0.01, maximize=True)),
    ("AdamW", dict(lr=0.01)),
    ("AdamW", dict(lr=0.01, weight_decay=0.5)),
    ("AdamW", dict(lr=0.01, amsgrad=True, weight_decay=0.1)),
]


@pytest.mark.parametrize("name, kwargs", CASES, ids=[f"{n}-{k}" for n, k in CASES])
def test_trajectory_matches_torch(name, kwargs):
    torch = pytest.importorskip("torch")
    ours = _trajectory(tensorlib, name, kwargs)
    theirs = _trajectory(torch, name, kwargs)
    for step, ((w, b), (tw, tb)) in enumerate(zip(ours, theirs)):
        np.testing.assert_allclose(w, tw, rtol=1e-10, atol=1e-12, err_msg=f"step {step}")
        np.testing.assert_allclose(b, tb, rtol=1e-10, atol=1e-12, err_msg=f"step {step}")


@pytest.mark.parametrize("name, kwargs", [CASES[2], CASES[9], CASES[13]], ids=["SGD", "Adam", "AdamW"])
def test_float32_trajectory_and_param_groups_match_torch(name, kwargs):
    torch = pytest.importorskip("torch")
    ours = _trajectory(tensorlib, name, kwargs, dtype="float32", groups=True)
    theirs = _trajectory(torch, name, kwargs, dtype="float32", groups=True)
    for (w, b), (tw, tb) in zip(ours, theirs):
        assert w.dtype == np.float32
        np.testing.assert_allclose(w, tw, rtol=2e-5, atol=1e-6)
        np.testing.assert_allclose(b, tb, rtol=2e-5, atol=1e-6)


def test_sgd_step_by_formula():
    p = tensorlib.tensor([1.0, -2.0], requires_grad=True)
    opt = SGD([p], lr=0.5)
    (p * p).sum().backward()
    opt.step()
    assert_close(p.detach(), [1.0 - 0.5 * 2.0, -2.0 - 0.5 * -4.0])
    assert p.is_leaf and p.requires_grad and p.grad_fn is None


def test_parameters_without_grad_are_skipped():
    a = tensorlib.tensor([1.0], requires_grad=True)
    b = tensorlib.tensor([2.0], requires_grad=True)
    for opt in (SGD([a, b], lr=0.1, momentum=0.9), Adam([a, b]), AdamW([a, b])):
        (a * 3).sum().backward()
        opt.step()
        opt.zero_grad()
        assert b.item() == 2.0
        assert b not in opt.state


def test_optimizing_a_model():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    xs = rng.standard_normal((32, 4)).astype(np.float32)
    ys = rng.integers(0, 3, 32)

    def train(lib):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.ReLU(), lib.nn.Linear(8, 3))
        return model

    ours, theirs = train(tensorlib), train(torch)
    ours.load_state_dict({k: tensorlib.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})
    results = []
    for lib, model in ((tensorlib, ours), (torch, theirs)):
        opt = lib.optim.Adam(model.parameters(), lr=0.01)
        losses = []
        for _ in range(5):
            opt.zero_grad()
            loss = lib.nn.functional.cross_entropy(model(lib.tensor(xs)), lib.tensor(ys))
            loss.backward()
            opt.step()
            losses.append(loss.item())
        results.append(losses)
    np.testing.assert_allclose(results[0], results[1], rtol=1e-4)
    assert results[0][-1] < results[0][0]


def test_zero_grad():
    p = tensorlib.tensor([1.0, 2.0], requires_grad=True)
    opt = SGD([p], lr=0.1)
    (p * 2).sum().backward()
    opt.zero_grad()
    assert p.grad is None
    (p * 2).sum().backward()
    g = p.grad
    opt.zero_grad(set_to_none=False)
    assert p.grad is g and g.tolist() == [0.0, 0.0]


def test_closure():
    p = tensorlib.tensor([3.0], requires_grad=True)
    opt = SGD([p], lr=0.1)
    calls = []

    def closure():
        opt.zero_grad()
        loss = (p * p).sum()
        loss.backward()
        calls.append(tensorlib.is_grad_enabled())
        return loss

    with tensorlib.no_grad():
        loss = opt.step(closure)
    assert calls == [True]  # the closure runs with grad enabled
    assert loss.item() == 9.0
    assert_close(p.detach(), [3.0 - 0.1 * 6.0])


def test_param_groups_and_add_param_group():
    a = tensorlib.tensor([1.0], requires_grad=True)
    b = tensorlib.tensor([1.0], requires_grad=True)
    opt = SGD([{"params": [a]}, {"params": b, "lr": 0.5, "momentum": 0.9}], lr=0.1)
    assert [g["lr"] for g in opt.param_groups] == [0.1, 0.5]
    assert opt.param_groups[0]["momentum"] == 0 and opt.param_groups[1]["momentum"] == 0.9
    c = tensorlib.tensor([1.0], requires_grad=True)
    opt.add_param_group({"params": [c], "lr": 1.0})
    (a + b + c).sum().backward()
    opt.step()
    assert_close(a.detach(), [0.9])
    assert_close(b.detach(), [0.5])
    assert_close(c.detach(), [0.0])
    with pytest.raises(ValueError, match="more than one parameter group"):
        opt.add_param_group({"params": [a]})
    with pytest.raises(TypeError, match="param_group must be a dict"):
        opt.add_param_group([c])


def test_lr_can_be_changed_through_param_groups():
    p = tensorlib.tensor([1.0], requires_grad=True)
    opt = SGD([p], lr=0.1)
    opt.param_groups[0]["lr"] = 1.0
    p.sum().backward()
    opt.step()
    assert_close(p.detach(), [0.0])


def test_state_dict_roundtrip_continues_the_same_trajectory():
    def make():
        p = tensorlib.tensor(W0.copy(), requires_grad=True)
        return p, Adam([p], lr=0.05, amsgrad=True)

    def step(p, opt):
        opt.zero_grad()
        (p**2).sum().backward()
        opt.step()

    p1, o1 = make()
    for _ in range(3):
        step(p1, o1)
    saved = o1.state_dict()
    assert list(saved) == ["state", "param_groups"]
    assert saved["param_groups"][0]["params"] == [0]
    assert set(saved["state"][0]) == {"step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"}
    p2, o2 = make()
    p2.data.copy_(p1.detach())
    o2.load_state_dict(copy.deepcopy(saved))
    for _ in range(3):
        step(p1, o1)
        step(p2, o2)
    np.testing.assert_array_equal(p1.detach().numpy(), p2.detach().numpy())
    # the loaded state is a copy, not shared with the source optimizer
    assert o2.state[p2]["exp_avg"] is not o1.state[p1]["exp_avg"]


def test_sgd_momentum_state_matches_torch_state_dict_layout():
    torch = pytest.importorskip("torch")
    p = tensorlib.tensor([1.0, 2.0], requires_grad=True)
    tp = torch.tensor([1.0, 2.0], requires_grad=True)
    opt, topt = SGD([p], lr=0.1, momentum=0.9), torch.optim.SGD([tp], lr=0.1, momentum=0.9)
    for x, o in ((p, opt), (tp, topt)):
        (x * x).sum().backward()
        o.step()
    ours, theirs = opt.state_dict(), topt.state_dict()
    assert set(ours["state"][0]) == set(theirs["state"][0])
    np.testing.assert_allclose(ours["state"][0]["momentum_buffer"].numpy(), theirs["state"][0]["momentum_buffer"].numpy())
    for key in ("lr", "momentum", "dampening", "weight_decay", "nesterov", "maximize", "params"):
        assert ours["param_groups"][0][key] == theirs["param_groups"][0][key]


def test_load_state_dict_errors():
    p = tensorlib.tensor([1.0], requires_grad=True)
    opt = SGD([p], lr=0.1)
    q = tensorlib.tensor([1.0], requires_grad=True)
    two = SGD([{"params": [p]}, {"params": [q]}], lr=0.1)
    with pytest.raises(ValueError, match="different number of parameter groups"):
        opt.load_state_dict(two.state_dict())
    bigger = SGD([p, q], lr=0.1)
    with pytest.raises(ValueError, match="doesn't match the size"):
        opt.load_state_dict(bigger.state_dict())


@pytest.mark.parametrize(
    "make, error, match",
    [
        (lambda p: SGD([p], lr=-0.1), ValueError, "Invalid learning rate: -0.1"),
        (lambda p: SGD([p], lr=0.1, momentum=-1), ValueError, "Invalid momentum value"),
        (lambda p: SGD([p], lr=0.1, weight_decay=-1), ValueError, "Invalid weight_decay value"),
        (lambda p: SGD([p], lr=0.1, nesterov=True), ValueError, "Nesterov momentum requires a momentum and zero dampening"),
        (lambda p: SGD([p], lr=0.1, momentum=0.9, dampening=0.1, nesterov=True), ValueError, "zero dampening"),
        (lambda p: Adam([p], lr=-1), ValueError, "Invalid learning rate"),
        (lambda p: Adam([p], eps=-1), ValueError, "Invalid epsilon value"),
        (lambda p: Adam([p], betas=(1.0, 0.999)), ValueError, "Invalid beta parameter at index 0"),
        (lambda p: Adam([p], betas=(0.9, -0.1)), ValueError, "Invalid beta parameter at index 1"),
        (lambda p: AdamW([p], weight_decay=-0.1), ValueError, "Invalid weight_decay value"),
        (lambda p: SGD([], lr=0.1), ValueError, "optimizer got an empty parameter list"),
        (lambda p: SGD(p, lr=0.1), TypeError, "should be an iterable of Tensors or dicts"),
        (lambda p: SGD([p * 2], lr=0.1), ValueError, "can't optimize a non-leaf Tensor"),
        (lambda p: SGD([1.0], lr=0.1), TypeError, "optimizer can only optimize Tensors"),
    ],
)
def test_argument_errors(make, error, match):
    p = tensorlib.tensor([1.0], requires_grad=True)
    with pytest.raises(error, match=match):
        make(p)


def test_argument_errors_match_torch_types():
    torch = pytest.importorskip("torch")
    makers = [
        lambda lib, p: lib.optim.SGD([p], lr=-0.1),
        lambda lib, p: lib.optim.SGD([p], lr=0.1, nesterov=True),
        lambda lib, p: lib.optim.Adam([p], betas=(1.0, 0.999)),
        lambda lib, p: lib.optim.SGD([], lr=0.1),
        lambda lib, p: lib.optim.SGD(p, lr=0.1),
        lambda lib, p: lib.optim.SGD([p * 2], lr=0.1),
    ]
    for make in makers:
        with pytest.raises(Exception) as theirs:
            make(torch, torch.ones(1, requires_grad=True))
        with pytest.raises(theirs.type):
            make(tensorlib, tensorlib.ones(1, requires_grad=True))


def test_step_does_not_record_and_keeps_versions_consistent():
    p = tensorlib.tensor([1.0, 2.0], requires_grad=True)
    opt = SGD([p], lr=0.1)
    y = p * p  # saves p
    y.sum().backward(retain_graph=True)
    opt.step()
    assert p.is_leaf and p.grad_fn is None
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_module_parameters_generator_is_accepted_and_repr():
    m = nn.Linear(3, 2)
    opt = SGD(m.parameters(), lr=0.1, momentum=0.9)
    assert len(opt.param_groups[0]["params"]) == 2
    text = repr(opt)
    assert text.startswith("SGD (\nParameter Group 0\n") and "    lr: 0.1\n" in text and "    momentum: 0.9\n" in text
    assert text.endswith(")")
