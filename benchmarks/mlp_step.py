"""One training step of a 784-128-10 MLP (batch 64, float32): tensorlib vs hand-written NumPy vs PyTorch.

The step is forward (linear, relu, linear, cross entropy), backward and an SGD
update. Hand-written NumPy is the floor a NumPy-backed autograd can reach; the
ratio to it is the price of autograd's bookkeeping.
"""

from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tensorlib  # noqa: E402
import tensorlib.nn.functional as F  # noqa: E402
from _timing import best_ns, table, try_import_torch  # noqa: E402

BATCH, IN, HIDDEN, OUT, LR = 64, 784, 128, 10, 0.01


def numpy_step(w1, b1, w2, b2, x, y):
    h_pre = x @ w1.T + b1
    h = np.maximum(h_pre, 0)
    logits = h @ w2.T + b2
    shifted = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(shifted)
    p = e / e.sum(axis=1, keepdims=True)
    loss = -np.log(p[np.arange(BATCH), y]).mean()
    g = p
    g[np.arange(BATCH), y] -= 1
    g /= BATCH
    gw2 = g.T @ h
    gb2 = g.sum(0)
    gh = g @ w2
    gh *= h_pre > 0
    gw1 = gh.T @ x
    gb1 = gh.sum(0)
    w1 -= LR * gw1
    b1 -= LR * gb1
    w2 -= LR * gw2
    b2 -= LR * gb2
    return loss


def main() -> None:
    rng = np.random.default_rng(0)
    x_np = rng.standard_normal((BATCH, IN)).astype(np.float32)
    y_np = rng.integers(0, OUT, BATCH)
    params_np = [
        (rng.standard_normal((HIDDEN, IN)) * 0.05).astype(np.float32),
        np.zeros(HIDDEN, np.float32),
        (rng.standard_normal((OUT, HIDDEN)) * 0.05).astype(np.float32),
        np.zeros(OUT, np.float32),
    ]
    np_params = [p.copy() for p in params_np]

    model = tensorlib.nn.Sequential(tensorlib.nn.Linear(IN, HIDDEN), tensorlib.nn.ReLU(), tensorlib.nn.Linear(HIDDEN, OUT))
    with tensorlib.no_grad():
        for p, v in zip(model.parameters(), params_np):
            p.copy_(tensorlib.from_numpy(v.copy()))
    opt = tensorlib.optim.SGD(model.parameters(), lr=LR)
    x = tensorlib.from_numpy(x_np)
    y = tensorlib.from_numpy(y_np)

    def tl_step():
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss

    # Same model, same data: the losses of the first step must agree.
    l_np = numpy_step(*[p.copy() for p in params_np], x_np, y_np)
    l_tl = F.cross_entropy(model(x), y).item()
    assert abs(l_np - l_tl) < 1e-4, (l_np, l_tl)

    cases = {
        "hand-written NumPy": lambda: numpy_step(*np_params, x_np, y_np),
        "tensorlib": tl_step,
    }
    torch = try_import_torch()
    if torch is not None:
        torch.set_num_threads(1)
        tmodel = torch.nn.Sequential(torch.nn.Linear(IN, HIDDEN), torch.nn.ReLU(), torch.nn.Linear(HIDDEN, OUT))
        topt = torch.optim.SGD(tmodel.parameters(), lr=LR)
        tx, ty = torch.from_numpy(x_np), torch.from_numpy(y_np)

        def torch_step():
            loss = torch.nn.functional.cross_entropy(tmodel(tx), ty)
            topt.zero_grad()
            loss.backward()
            topt.step()
            return loss

        cases["PyTorch (1 thread)"] = torch_step
    res = best_ns(cases, number=50, repeat=7)
    table(f"MLP {IN}-{HIDDEN}-{OUT} training step, batch {BATCH}, float32", res, "hand-written NumPy")

    small = {}
    xs = tensorlib.randn(8, 16)
    small_model = tensorlib.nn.Sequential(tensorlib.nn.Linear(16, 16), tensorlib.nn.ReLU(), tensorlib.nn.Linear(16, 4))
    ys = tensorlib.randint(0, 4, (8,))
    small_opt = tensorlib.optim.SGD(small_model.parameters(), lr=LR)

    def small_step():
        loss = F.cross_entropy(small_model(xs), ys)
        small_opt.zero_grad()
        loss.backward()
        small_opt.step()

    small["tensorlib"] = small_step
    if torch is not None:
        tsm = torch.nn.Sequential(torch.nn.Linear(16, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))
        tso = torch.optim.SGD(tsm.parameters(), lr=LR)
        txs, tys = torch.randn(8, 16), torch.randint(0, 4, (8,))

        def torch_small():
            loss = torch.nn.functional.cross_entropy(tsm(txs), tys)
            tso.zero_grad()
            loss.backward()
            tso.step()

        small["PyTorch (1 thread)"] = torch_small
    res = best_ns(small, number=300, repeat=7)
    table("Tiny MLP 16-16-4 step, batch 8 (per-op overhead dominates)", res, "tensorlib")


if __name__ == "__main__":
    main()
