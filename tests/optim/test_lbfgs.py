"""optim.LBFGS: convergence, torch's iterates and evaluation counts, and its errors."""

from __future__ import annotations

import numpy as np
import pytest

import tensorlib


def _rosenbrock(x):
    return ((1 - x[:-1]) ** 2).sum() + 100 * ((x[1:] - x[:-1] ** 2) ** 2).sum()


def _run(lib, line_search_fn, steps=5, **options):
    x = lib.tensor([-1.2, 1.0, -0.5, 0.8], dtype=lib.float64, requires_grad=True)
    opt = lib.optim.LBFGS([x], line_search_fn=line_search_fn, **options)

    def closure():
        opt.zero_grad()
        loss = _rosenbrock(x)
        loss.backward()
        return loss

    losses = [float(opt.step(closure).detach()) for _ in range(steps)]
    state = opt.state[x]
    return losses, x.detach().numpy(), state["func_evals"], state["n_iter"]


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_minimises_rosenbrock(line_search_fn):
    losses, x, evals, iters = _run(tensorlib, line_search_fn, max_iter=50, history_size=10)
    np.testing.assert_allclose(x, np.ones(4), atol=1e-4)
    assert losses[-1] < 1e-9 < losses[0]
    assert evals >= iters > 0


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
@pytest.mark.parametrize("options", [{"max_iter": 50, "history_size": 10}, {"max_iter": 7, "lr": 0.5}])
def test_matches_torch_step_for_step(line_search_fn, options):
    torch = pytest.importorskip("torch")
    ours = _run(tensorlib, line_search_fn, **options)
    theirs = _run(torch, line_search_fn, **options)
    # after ~100 iterations, different summation orders in dot products show up around 1e-9
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-7, atol=1e-10)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-7, atol=1e-10)
    assert ours[2:] == theirs[2:]  # the same number of closure calls and iterations


def test_fits_a_linear_model():
    tensorlib.manual_seed(0)
    x = tensorlib.randn(50, 3)
    y = x @ tensorlib.tensor([[1.0], [-2.0], [0.5]]) + 0.3
    model = tensorlib.nn.Linear(3, 1)
    opt = tensorlib.optim.LBFGS(model.parameters(), line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        loss = tensorlib.nn.functional.mse_loss(model(x), y)
        loss.backward()
        return loss

    for _ in range(3):
        opt.step(closure)
    np.testing.assert_allclose(model.weight.detach().numpy(), [[1.0, -2.0, 0.5]], atol=1e-4)
    np.testing.assert_allclose(model.bias.detach().numpy(), [0.3], atol=1e-4)


def test_stops_at_once_when_the_gradient_is_zero():
    x = tensorlib.tensor([1.0, 1.0], dtype=tensorlib.float64, requires_grad=True)
    opt = tensorlib.optim.LBFGS([x])
    calls = []

    def closure():
        calls.append(1)
        opt.zero_grad()
        loss = _rosenbrock(x)
        loss.backward()
        return loss

    assert float(opt.step(closure)) == 0.0 and len(calls) == 1 and x.tolist() == [1.0, 1.0]


def test_errors():
    x = tensorlib.zeros(2, requires_grad=True)
    y = tensorlib.zeros(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="closure"):
        tensorlib.optim.LBFGS([x]).step()
    with pytest.raises(ValueError, match="parameter groups"):
        tensorlib.optim.LBFGS([{"params": [x]}, {"params": [y]}])
    with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
        tensorlib.optim.LBFGS([x], line_search_fn="armijo")
    with pytest.raises(ValueError, match="Invalid learning rate"):
        tensorlib.optim.LBFGS([x], lr=-1)


def test_state_holds_tensors_and_survives_a_state_dict_round_trip():
    x = tensorlib.tensor([-1.2, 1.0, -0.5, 0.8], dtype=tensorlib.float64, requires_grad=True)
    opt = tensorlib.optim.LBFGS([x], max_iter=3, history_size=2)

    def closure():
        opt.zero_grad()
        loss = _rosenbrock(x)
        loss.backward()
        return loss

    opt.step(closure)
    state = opt.state[x]
    assert isinstance(state["d"], tensorlib.Tensor) and all(isinstance(v, tensorlib.Tensor) for v in state["old_dirs"])
    assert len(state["old_dirs"]) <= 2
    clone = tensorlib.optim.LBFGS([x], max_iter=3, history_size=2)
    clone.load_state_dict(opt.state_dict())
    snapshot = x.detach().clone()
    a = float(opt.step(closure).detach())
    after_original = x.detach().clone()
    with tensorlib.no_grad():
        x.copy_(snapshot)
    b = float(clone.step(closure).detach())
    assert a == b and tensorlib.equal(x.detach(), after_original)
    tensorlib.optim.LBFGS([x], max_iter=0).step(closure)  # no iteration: nothing to store, no error
