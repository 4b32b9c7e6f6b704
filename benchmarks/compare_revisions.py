"""Per-op overhead and import time of this checkout against another one, measured in one run.

Usage: ``python benchmarks/compare_revisions.py OTHER_CHECKOUT [ROUNDS]`` (e.g. a
``git worktree`` of an older commit). Each round runs one fresh interpreter per
checkout, alternating, so both see the same machine load; each op's best time
over the rounds is kept, and the table prints this/other ratios (< 1: this
checkout is faster).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]

# Each statement runs on 4x4 float32 tensors a, b, c (written to), a leaf that requires grad, s (a as a Tensor
# subclass), an index tensor idx and a mask of a, with values rows (2x4) and one (a one-element tensor).
OPS = {
    "import tensorlib": None,
    "a + b": "a + b",
    "a * 2.0": "a * 2.0",
    "tl.exp(a)": "tl.exp(a)",
    "a.sum()": "a.sum()",
    "a.sum(0)": "a.sum(0)",
    "a @ b": "a @ b",
    "a[1]": "a[1]",
    "a[idx]": "a[idx]",
    "a[mask]": "a[mask]",
    "a[[0, 2]]": "a[[0, 2]]",
    "c[1] = 0.5": "c[1] = 0.5",
    "c[idx] = rows": "c[idx] = rows",
    "c[mask] = one": "c[mask] = one",
    "a.reshape(16)": "a.reshape(16)",
    "a.t()": "a.t()",
    "relu(a)": "tl.nn.functional.relu(a)",
    "a.shape": "a.shape",
    "leaf * b (records)": "leaf * b",
    "(leaf*b).sum().backward()": "(leaf * b).sum().backward()",
    "s + b (Tensor subclass)": "s + b",
}

_CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
import tensorlib as tl
import_ns = (time.perf_counter() - t0) * 1e9
import numpy as np
a = tl.tensor(np.random.rand(4, 4).astype(np.float32))
b = tl.tensor(np.random.rand(4, 4).astype(np.float32))
leaf = tl.tensor(np.random.rand(4, 4).astype(np.float32), requires_grad=True)
class Sub(tl.Tensor):
    pass
s = a.as_subclass(Sub)
c, idx, mask = a.clone(), tl.tensor([0, 2]), a > 0.5
rows, one = tl.ones(2, 4), tl.ones(1)
out = {"import tensorlib": import_ns}
for name, stmt in json.loads(sys.argv[1]).items():
    code = compile(f"for _ in range(n):\n    {stmt}\n", name, "exec")
    best = float("inf")
    for _ in range(5):
        n = 200
        t = time.perf_counter()
        exec(code, {"tl": tl, "a": a, "b": b, "c": c, "leaf": leaf, "s": s, "idx": idx, "mask": mask,
                    "rows": rows, "one": one, "n": n})
        best = min(best, (time.perf_counter() - t) / n * 1e9)
    out[name] = best
print(json.dumps(out))
"""


def _measure(checkout: Path) -> dict[str, float]:
    ops = {k: v for k, v in OPS.items() if v is not None}
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, json.dumps(ops)], cwd=checkout, capture_output=True, text=True, check=True,
        env={"PYTHONPATH": str(checkout), "PATH": "/usr/bin:/bin"},
    )
    return json.loads(done.stdout)


def main(argv: list[str]) -> None:
    """Print the table: best time per op in each checkout, and their ratio."""
    if not argv:
        sys.exit(__doc__)
    other = Path(argv[0]).resolve()
    rounds = int(argv[1]) if len(argv) > 1 else 7
    best: dict[str, dict[str, float]] = {"this": {}, "other": {}}
    for _ in range(rounds):
        for label, checkout in (("this", HERE), ("other", other)):
            for name, value in _measure(checkout).items():
                best[label][name] = min(best[label].get(name, float("inf")), value)
    print(f"this: {HERE}\nother: {other}\nbest of {rounds} alternating rounds (ns; import in ms)")
    print(f"  {'op':<28}{'other':>10}{'this':>10}{'this/other':>12}")
    for name in OPS:
        scale = 1e6 if name.startswith("import") else 1.0
        o, t = best["other"][name] / scale, best["this"][name] / scale
        print(f"  {name:<28}{o:>10.0f}{t:>10.0f}{t / o:>12.2f}")


if __name__ == "__main__":
    main(sys.argv[1:])
