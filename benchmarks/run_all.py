"""Every performance figure of the project in one run, as a markdown table (the README's Performance section).

Each row measures tensorlib and its baseline side by side (interleaved repeats, best of) and reports the ratio
of tensorlib's time (or memory) to the baseline's, with the project's target. Rows against PyTorch appear only
when torch is importable. Both libraries run their BLAS/intra-op pools with one thread unless a row says
otherwise.

    python benchmarks/run_all.py [--write]      # --write: benchmarks/RESULTS.md and the README's section
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import re
import subprocess
import sys
import tracemalloc
from typing import Any, Callable

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import tensorlib  # noqa: E402
from dispatch._speedups_loader import speedups  # noqa: E402
from tensorlib._accelerator import accel  # noqa: E402
from _timing import best_ns, try_import_torch  # noqa: E402
from cnn_step import measure as measure_cnn  # noqa: E402
from mlp_step import BATCH, HIDDEN, IN, LR, OUT, numpy_step  # noqa: E402

Row = tuple[str, float, str, str]  # (figure, ratio, baseline, target)


def _mlp_data() -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((BATCH, IN)).astype(np.float32)
    y = rng.integers(0, OUT, BATCH)
    params = [(rng.standard_normal((HIDDEN, IN)) * 0.05).astype(np.float32), np.zeros(HIDDEN, np.float32),
              (rng.standard_normal((OUT, HIDDEN)) * 0.05).astype(np.float32), np.zeros(OUT, np.float32)]
    return x, y, params


def _module_step(lib: Any, sizes: tuple[int, int, int], x_np: np.ndarray, y_np: np.ndarray,
                 params: list[np.ndarray] | None = None) -> Callable[[], object]:
    """A Linear-ReLU-Linear training step with nn.Module and optim.SGD, written once for both libraries."""
    nn = lib.nn
    model = nn.Sequential(nn.Linear(sizes[0], sizes[1]), nn.ReLU(), nn.Linear(sizes[1], sizes[2]))
    if params is not None:
        with lib.no_grad():
            for p, v in zip(model.parameters(), params):
                p.copy_(lib.from_numpy(v.copy()))
    opt = lib.optim.SGD(model.parameters(), lr=LR)
    x, y = lib.from_numpy(x_np), lib.from_numpy(y_np)

    def step() -> object:
        loss = lib.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss

    return step


def _manual_step(lib: Any, x_np: np.ndarray, y_np: np.ndarray, params: list[np.ndarray]) -> Callable[[], object]:
    """The same MLP step with tensors and a hand-written update loop (no nn.Module, no optimizer)."""
    ps = [lib.from_numpy(p.copy()).requires_grad_() for p in params]
    x, y = lib.from_numpy(x_np), lib.from_numpy(y_np)

    def step() -> object:
        w1, b1, w2, b2 = ps
        loss = lib.nn.functional.cross_entropy(lib.relu(x @ w1.T + b1) @ w2.T + b2, y)
        loss.backward()
        with lib.no_grad():
            for p in ps:
                p -= LR * p.grad
                p.grad = None
        return loss

    return step


def mlp_rows(torch: Any) -> list[Row]:
    x, y, params = _mlp_data()
    np_params = [p.copy() for p in params]
    cases: dict[str, Callable[[], object]] = {
        "numpy": lambda: numpy_step(*np_params, x, y),
        "tensorlib": _module_step(tensorlib, (IN, HIDDEN, OUT), x, y, params),
        "tensorlib manual": _manual_step(tensorlib, x, y, params),
    }
    if torch is not None:
        cases["torch"] = _module_step(torch, (IN, HIDDEN, OUT), x, y, params)
        cases["torch manual"] = _manual_step(torch, x, y, params)
    res = best_ns(cases, number=30, repeat=7)
    rows: list[Row] = [(f"MLP {IN}-{HIDDEN}-{OUT} step, batch {BATCH}", res["tensorlib"] / res["numpy"],
                        "hand-written NumPy", "<= 1.15x")]
    if torch is not None:
        rows.append(("MLP step (nn.Module + optim.SGD)", res["tensorlib"] / res["torch"], "PyTorch", "<= 0.6x"))
        rows.append(("MLP step (hand-written update loop)", res["tensorlib manual"] / res["torch manual"], "PyTorch",
                     "<= 0.6x"))
        # no target: the floor of any NumPy-backed library on the two rows above (NumPy's kernels against torch's)
        rows.append(("hand-written NumPy MLP step, the floor of the two rows above", res["numpy"] / res["torch"],
                     "PyTorch (nn.Module + optim.SGD)", "none: NumPy's own cost"))
        rows.append(("hand-written NumPy MLP step, against the hand-written loop", res["numpy"] / res["torch manual"],
                     "PyTorch (update loop)", "none: NumPy's own cost"))
    return rows


def mlp_memory_row() -> Row:
    """Peak memory allocated during one MLP step (after a warm-up step), as tracemalloc sees NumPy's buffers."""
    x, y, params = _mlp_data()
    np_params = [p.copy() for p in params]
    step = _module_step(tensorlib, (IN, HIDDEN, OUT), x, y, params)

    def peak(fn: Callable[[], object]) -> int:
        fn()
        gc.collect()
        tracemalloc.start()
        fn()
        _, top = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        return top

    ratio = peak(step) / peak(lambda: numpy_step(*np_params, x, y))
    return ("peak memory of the MLP step", ratio, "hand-written NumPy", "<= 1.3x")


def tiny_mlp_row(torch: Any) -> Row:
    rng = np.random.default_rng(2)
    x, y = rng.standard_normal((8, 16)).astype(np.float32), rng.integers(0, 4, 8)
    res = best_ns({"tensorlib": _module_step(tensorlib, (16, 16, 4), x, y),
                   "torch": _module_step(torch, (16, 16, 4), x, y)}, number=300, repeat=7)
    return ("tiny MLP 16-16-4 step, batch 8", res["tensorlib"] / res["torch"], "PyTorch", "<= 0.5x")


def overhead_rows(torch: Any) -> list[Row]:
    a, b = tensorlib.ones(4, 4), tensorlib.ones(4, 4)
    ta, tb = torch.ones(4, 4), torch.ones(4, 4)
    x, tx = tensorlib.ones(4, 4, requires_grad=True), torch.ones(4, 4, requires_grad=True)

    class Sub(tensorlib.Tensor):
        pass

    class TorchSub(torch.Tensor):
        pass

    s, ts = a.as_subclass(Sub), ta.as_subclass(TorchSub)
    res = best_ns({
        "add": lambda: a + b, "torch add": lambda: ta + tb,
        "shape": lambda: a.shape, "torch shape": lambda: ta.shape,
        "graph": lambda: (x * b).sum().backward(), "torch graph": lambda: (tx * tb).sum().backward(),
        "subclass": lambda: s + b, "torch subclass": lambda: ts + tb,
    }, number=5000, repeat=7)
    return [
        ("`a + b`, 4x4", res["add"] / res["torch add"], "PyTorch", "<= 0.6x"),
        ("`a.shape`", res["shape"] / res["torch shape"], "PyTorch", "<= 1.0x"),
        ("small forward+backward `(x * b).sum().backward()`", res["graph"] / res["torch graph"], "PyTorch",
         "<= 0.4x"),
        ("op on a Tensor subclass (default `__torch_function__`)", res["subclass"] / res["torch subclass"],
         "PyTorch", "<= 0.3x"),
    ]


def elementwise_row() -> Row:
    """tanh, mul, sum and backward on 1M elements against the same computation written with NumPy."""
    rng = np.random.default_rng(3)
    a_np, b_np = rng.standard_normal(1_000_000), rng.standard_normal(1_000_000)
    a, b = tensorlib.from_numpy(a_np.copy()).requires_grad_(), tensorlib.from_numpy(b_np.copy())

    def by_hand() -> object:
        t = np.tanh(a_np)
        out = (t * b_np).sum()
        grad = b_np * (1 - t * t)  # d/da of sum(tanh(a) * b)
        return out, grad

    def with_tensorlib() -> object:
        out = (a.tanh() * b).sum()
        out.backward()
        a.grad = None
        return out

    res = best_ns({"numpy": by_hand, "tensorlib": with_tensorlib}, number=10, repeat=7)
    return ("1M-element tanh/mul/sum forward+backward", res["tensorlib"] / res["numpy"], "hand-written NumPy",
            "<= 1.15x")


def import_row() -> Row:
    """Cold-process import time, best of 15 each, alternating, with bytecode caches warm (a first import writes them,
    even where the environment says not to). Fifteen: a process start on a shared 2-core machine varies by tens of
    percent, and both imports are well under 0.1 s."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = ROOT

    def cost(module: str) -> float:
        code = f"import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
        return float(done.stdout)

    best = {"tensorlib": float("inf"), "numpy": float("inf")}
    for module in best:
        cost(module)
    for _ in range(15):
        for module in best:
            best[module] = min(best[module], cost(module))
    return ("`import tensorlib`", best["tensorlib"] / best["numpy"], "`import numpy`", "<= 1.5x")


def cnn_rows(torch: Any) -> list[Row]:
    rows: list[Row] = []
    for load in (0, 1):
        res = measure_cnn(load)
        rows.append((f"LeNet-style CNN step, batch 32, 28x28, 1 thread{', 1 busy process' if load else ''}",
                     res["tensorlib (1 thread)"] / res["PyTorch (1 thread)"], "PyTorch", "<= 2.0x"))
    return rows


def collect() -> list[Row]:
    torch = try_import_torch()
    tensorlib.set_num_threads(1)
    rows: list[Row] = []
    if torch is not None:
        torch.set_num_threads(1)
        rows += cnn_rows(torch)
    rows += mlp_rows(torch)
    if torch is not None:
        rows.append(tiny_mlp_row(torch))
        rows += overhead_rows(torch)
    rows.append(elementwise_row())
    rows.append(import_row())
    rows.append(mlp_memory_row())
    return rows


def _cpu_model() -> str:
    """The processor's name where the system says it (Linux), else ''. Ratios against PyTorch depend on it: its
    kernels and interpreter overhead scale differently from NumPy's and Python's across processors."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return ""


def markdown(rows: list[Row]) -> str:
    lines = ["| figure | tensorlib / baseline | baseline | target |", "| --- | --- | --- | --- |"]
    lines += [f"| {figure} | {ratio:.2f}x | {baseline} | {target} |" for figure, ratio, baseline, target in rows]
    cpu = _cpu_model()
    machine = (f"{platform.machine()}{f' ({cpu})' if cpu else ''}, {os.cpu_count()} CPUs, Python "
               f"{platform.python_version()}, NumPy {np.__version__}")
    built = [name for name, module in (("tensorlib._accel", accel), ("dispatch._speedups", speedups)) if module]
    paths = ("with the compiled extensions " + " and ".join(f"`{n}`" for n in built) if built
             else "on the pure-Python paths (the C extensions not built or switched off)")
    if len(built) == 1:
        paths += " (the other not built or switched off)"
    return "\n".join(lines) + f"\n\nRatios from one run of `make bench-table` ({machine}), {paths}; lower is better.\n"


def write(text: str) -> None:
    with open(os.path.join(HERE, "RESULTS.md"), "w") as f:
        f.write("# Benchmark results\n\n" + text)
    readme = os.path.join(ROOT, "README.md")
    with open(readme) as f:
        content = f.read()
    start, end = "<!-- benchmarks:start -->", "<!-- benchmarks:end -->"
    block = f"{start}\n{text}{end}"
    if start in content:
        content = re.sub(re.escape(start) + ".*?" + re.escape(end), lambda _: block, content, flags=re.S)
    else:
        raise SystemExit(f"README.md has no {start} ... {end} section to fill")
    with open(readme, "w") as f:
        f.write(content)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="write benchmarks/RESULTS.md and the README's table")
    args = parser.parse_args()
    text = markdown(collect())
    print(text)
    if args.write:
        write(text)


if __name__ == "__main__":
    main()
