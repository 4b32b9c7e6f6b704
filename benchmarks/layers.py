"""Forward and backward of common layers, one step each: tensorlib vs PyTorch (1 thread), measured in one run.

Each step runs the layer on a fixed input that requires grad, sums the output and backpropagates, so
it times the layer's forward, its backward formula and the engine around them. Sizes are those of
small models, where both libraries' per-call layers show as well as their kernels.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Callable

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tensorlib  # noqa: E402
from _timing import best_ns, try_import_torch  # noqa: E402

# (name, input shape, the layer made from a library's nn)
LAYERS: list[tuple[str, tuple[int, ...], Callable[[Any], Any]]] = [
    ("Linear(128, 64), batch 64", (64, 128), lambda nn: nn.Linear(128, 64)),
    ("BatchNorm1d(128), batch 64", (64, 128), lambda nn: nn.BatchNorm1d(128)),
    ("BatchNorm2d(16), 32x16x14x14", (32, 16, 14, 14), lambda nn: nn.BatchNorm2d(16)),
    ("LayerNorm(128), 64 rows", (64, 128), lambda nn: nn.LayerNorm(128)),
    ("LayerNorm(256), 8x32 rows", (8, 32, 256), lambda nn: nn.LayerNorm(256)),
    ("Conv2d(8, 16, 3), 16x8x16x16", (16, 8, 16, 16), lambda nn: nn.Conv2d(8, 16, 3)),
    ("GELU, 64x256", (64, 256), lambda nn: nn.GELU()),
]


def _step(lib: Any, make: Callable[[Any], Any], data: np.ndarray) -> Callable[[], None]:
    layer = make(lib.nn)
    x = lib.from_numpy(data.copy()).requires_grad_()

    def step() -> None:
        layer(x).sum().backward()
        x.grad = None
        for p in layer.parameters():
            p.grad = None

    return step


def main() -> None:
    torch = try_import_torch()
    tensorlib.set_num_threads(1)
    if torch is not None:
        torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    print("forward + backward of one layer (float32); tensorlib's time over PyTorch's, lower is better")
    for name, shape, make in LAYERS:
        data = rng.standard_normal(shape).astype(np.float32)
        cases = {"tensorlib": _step(tensorlib, make, data)}
        if torch is not None:
            cases["torch"] = _step(torch, make, data)
        res = best_ns(cases, number=100, repeat=7)
        ratio = f"{res['tensorlib'] / res['torch']:5.2f}x PyTorch" if torch is not None else "(no PyTorch)"
        print(f"  {name:<32} {res['tensorlib'] / 1e3:8.1f} us   {ratio}")


if __name__ == "__main__":
    main()
