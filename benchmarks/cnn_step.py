"""One training step of a LeNet-style CNN (batch 32, 28x28, float32): tensorlib vs PyTorch, quiet and under load.

The step is two 5x5 convolutions, each followed by relu and 2x2 max pooling, a linear layer, cross entropy,
backward and an SGD update. Each library runs with 1 thread and with one per CPU; ``--load N`` keeps N other
CPU-bound processes running while measuring (what a shared machine looks like).

    python benchmarks/cnn_step.py [--load N]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
from typing import Callable

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tensorlib  # noqa: E402
from _timing import best_ns, table, try_import_torch  # noqa: E402

BATCH, LR = 32, 0.01


def _spin() -> None:
    while True:
        pass


def build(lib: object, x_np: np.ndarray, y_np: np.ndarray) -> Callable[[], object]:
    """The training step of the same network, written once for tensorlib and torch (``lib``)."""
    nn, F = lib.nn, lib.nn.functional
    model = nn.Sequential(
        nn.Conv2d(1, 6, 5), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(16 * 4 * 4, 10),
    )
    rng = np.random.default_rng(1)
    with lib.no_grad():
        for p in model.parameters():
            p.copy_(lib.from_numpy((rng.standard_normal(tuple(p.shape)) * 0.1).astype(np.float32)))
    opt = lib.optim.SGD(model.parameters(), lr=LR)
    x, y = lib.from_numpy(x_np), lib.from_numpy(y_np)

    def step() -> object:
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss

    return step


def measure(load: int) -> dict[str, float]:
    """Best step time (ns) of each candidate, with ``load`` spinning processes running meanwhile."""
    rng = np.random.default_rng(0)
    x_np = rng.standard_normal((BATCH, 1, 28, 28)).astype(np.float32)
    y_np = rng.integers(0, 10, BATCH)
    default_threads = tensorlib.get_num_threads()
    cpus = os.cpu_count() or 1
    tl_step = build(tensorlib, x_np, y_np)

    def with_threads(n: int, step: Callable[[], object], lib: object) -> Callable[[], object]:
        def run() -> object:
            lib.set_num_threads(n)
            return step()
        return run

    cases = {"tensorlib (1 thread)": with_threads(1, tl_step, tensorlib)}
    if cpus > 1:
        cases[f"tensorlib ({cpus} threads)"] = with_threads(cpus, tl_step, tensorlib)
    torch = try_import_torch()
    if torch is not None:
        torch_default = torch.get_num_threads()
        t_step = build(torch, x_np, y_np)
        cases["PyTorch (1 thread)"] = with_threads(1, t_step, torch)
        if cpus > 1:
            cases[f"PyTorch ({cpus} threads)"] = with_threads(cpus, t_step, torch)
    spinners = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(load)]
    for p in spinners:
        p.start()
    try:
        return best_ns(cases, number=5, repeat=7)
    finally:
        for p in spinners:
            p.terminate()
        tensorlib.set_num_threads(default_threads)
        if torch is not None:
            torch.set_num_threads(torch_default)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--load", type=int, default=0, help="CPU-bound processes running meanwhile")
    args = parser.parse_args()
    res = measure(args.load)
    base = "PyTorch (1 thread)" if "PyTorch (1 thread)" in res else "tensorlib (1 thread)"
    table(f"LeNet-style CNN step, batch {BATCH}, 28x28, float32 ({args.load} busy processes)", res, base)


if __name__ == "__main__":
    main()
