"""A failed optimizer step changes nothing: parameters and optimizer state are as before the step.

The first-order optimizers evaluate the closure before they touch anything, so a closure that raises leaves
them as they were. LBFGS evaluates it several times, moving the parameters between evaluations; when a later
evaluation raises, it puts the parameters and its state back before re-raising. The check is twofold: the
values right after the failure, and the step after it, which must equal the step of an untouched twin.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

import tensorlib
from tensorlib import nn, optim

OPTIMIZERS = {
    "SGD with momentum": lambda ps: optim.SGD(ps, lr=0.1, momentum=0.9, nesterov=True),
    "Adam": lambda ps: optim.Adam(ps, lr=0.01, amsgrad=True),
    "AdamW": lambda ps: optim.AdamW(ps, lr=0.01, weight_decay=0.1),
    "RMSprop": lambda ps: optim.RMSprop(ps, lr=0.01, momentum=0.5, centered=True),
    "Adagrad": lambda ps: optim.Adagrad(ps, lr=0.1),
    "LBFGS": lambda ps: optim.LBFGS(ps, lr=0.5, max_iter=5),
    "LBFGS with strong Wolfe": lambda ps: optim.LBFGS(ps, lr=1.0, max_iter=5, line_search_fn="strong_wolfe"),
}


class Boom(Exception):
    pass


def _setup():
    tensorlib.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
    x, y = tensorlib.randn(8, 3), tensorlib.randn(8, 1)
    return model, x, y


def _closure(opt, model, x, y, fail_on=None):
    calls = [0]

    def closure():
        calls[0] += 1
        opt.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        if fail_on is not None and calls[0] >= fail_on:
            raise Boom(f"evaluation {calls[0]}")
        return loss

    return closure, calls


def _params(model):
    return [p._data.copy() for p in model.parameters()]


def _state(opt):
    def plain(v):
        if isinstance(v, tensorlib.Tensor):
            return ("tensor", v._data.copy())
        if isinstance(v, dict):
            return {k: plain(e) for k, e in v.items()}
        if isinstance(v, (list, tuple)):
            return [plain(e) for e in v]
        return v

    return plain(opt.state_dict()["state"])


def _equal(a, b) -> bool:
    if isinstance(a, tuple) and a and a[0] == "tensor":
        return isinstance(b, tuple) and np.array_equal(a[1], b[1])
    if isinstance(a, dict):
        return isinstance(b, dict) and set(a) == set(b) and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(_equal(u, v) for u, v in zip(a, b))
    return a == b


# (optimizer, the closure's evaluation that raises): first-order optimizers evaluate it once per step
CASES = [(name, 1) for name in OPTIMIZERS] + [(name, n) for name in OPTIMIZERS if name.startswith("LBFGS") for n in (2, 4)]


@pytest.mark.parametrize(("name", "fail_on"), CASES, ids=[f"{n}, evaluation {k}" for n, k in CASES])
def test_failed_step_changes_nothing(name, fail_on):
    model, x, y = _setup()
    opt = OPTIMIZERS[name](list(model.parameters()))
    for _ in range(2):  # some state to keep
        opt.step(_closure(opt, model, x, y)[0])
    twin = copy.deepcopy(model)
    twin_opt = OPTIMIZERS[name](list(twin.parameters()))
    twin_opt.load_state_dict(opt.state_dict())
    params, state = _params(model), _state(opt)

    closure, calls = _closure(opt, model, x, y, fail_on)
    with pytest.raises(Boom):
        opt.step(closure)
    assert calls[0] == fail_on  # for LBFGS past the first: the parameters had moved before the failing evaluation
    assert all(np.array_equal(a, b) for a, b in zip(_params(model), params)), "parameters changed"
    assert _equal(_state(opt), state), "optimizer state changed"

    # the next step is the step the untouched twin takes
    opt.step(_closure(opt, model, x, y)[0])
    twin_opt.step(_closure(twin_opt, twin, x, y)[0])
    for a, b in zip(model.parameters(), twin.parameters()):
        np.testing.assert_allclose(a._data, b._data, rtol=1e-6, atol=1e-7)


def test_lbfgs_failure_on_the_very_first_step_leaves_no_state():
    model, x, y = _setup()
    opt = optim.LBFGS(list(model.parameters()), max_iter=4)
    params = _params(model)
    closure, _ = _closure(opt, model, x, y, fail_on=2)
    with pytest.raises(Boom):
        opt.step(closure)
    assert all(np.array_equal(a, b) for a, b in zip(_params(model), params))
    assert opt.state_dict()["state"] == {}
