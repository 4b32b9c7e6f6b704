"""Forward and backward of common layers and losses, one step each: tensorlib vs PyTorch (1 thread), measured in one run.

Each step runs the layer on a fixed input that requires grad, sums the output and backpropagates, so
it times the layer's forward, its backward formula and the engine around them. Sizes are those of
small models, where both libraries' per-call layers show as well as their kernels.

``python benchmarks/layers.py GELU Norm`` runs only the rows whose names contain one of the words.
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
    ("Conv2d(16, 16, 3, groups=16), 8x16x32x32", (8, 16, 32, 32), lambda nn: nn.Conv2d(16, 16, 3, padding=1, groups=16)),
    ("GroupNorm(4, 16), 8x16x32x32", (8, 16, 32, 32), lambda nn: nn.GroupNorm(4, 16)),
    ("AvgPool2d(3, 2, 1), 8x16x32x32", (8, 16, 32, 32), lambda nn: nn.AvgPool2d(3, 2, 1)),
    ("AdaptiveAvgPool2d(1), 8x16x32x32", (8, 16, 32, 32), lambda nn: nn.AdaptiveAvgPool2d(1)),
    ("AdaptiveAvgPool2d(7), 8x16x32x32", (8, 16, 32, 32), lambda nn: nn.AdaptiveAvgPool2d(7)),
    ("GELU, 64x256", (64, 256), lambda nn: nn.GELU()),
    ("Linear(128, 384), 16x32 rows", (16, 32, 128), lambda nn: nn.Linear(128, 384)),
    ("TransformerEncoderLayer(128, 4, 256), 16x32", (16, 32, 128),
     lambda nn: nn.TransformerEncoderLayer(128, 4, 256, dropout=0.0, batch_first=True)),
]

# (name, the loss's input shape, the loss made from a library's nn, its target from the input's shape and an rng)
LOSSES: list[tuple[str, tuple[int, ...], Callable[[Any], Any], Callable[[tuple, Any], np.ndarray]]] = [
    ("MSELoss, 64x256", (64, 256), lambda nn: nn.MSELoss(), lambda s, rng: rng.standard_normal(s)),
    ("SmoothL1Loss, 64x256", (64, 256), lambda nn: nn.SmoothL1Loss(), lambda s, rng: rng.standard_normal(s)),
    ("BCELoss (after sigmoid), 64x256", (64, 256), lambda nn: nn.BCELoss(), lambda s, rng: rng.random(s)),
    ("CrossEntropyLoss, 64x256", (64, 256), lambda nn: nn.CrossEntropyLoss(),
     lambda s, rng: rng.integers(0, s[1], s[0])),
    ("MultiLabelMarginLoss, 64x256", (64, 256), lambda nn: nn.MultiLabelMarginLoss(),
     lambda s, rng: np.where(np.arange(s[1]) < 3, rng.integers(0, s[1], s), -1)),
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
    words = sys.argv[1:]

    def chosen(name: str) -> bool:
        return not words or any(w in name for w in words)

    print("forward + backward of one layer (float32); tensorlib's time over PyTorch's, lower is better")
    for name, shape, make in LAYERS:
        data = rng.standard_normal(shape).astype(np.float32)
        if not chosen(name):
            continue
        cases = {"tensorlib": _step(tensorlib, make, data)}
        if torch is not None:
            cases["torch"] = _step(torch, make, data)
        _report(name, best_ns(cases, number=20, repeat=7), torch is not None)
    for name, shape, make, target in LOSSES:
        data = rng.standard_normal(shape).astype(np.float32)
        t = target(shape, rng)
        if not chosen(name):
            continue
        t = t.astype(np.float32) if t.dtype.kind == "f" else t
        cases = {"tensorlib": _loss_step(tensorlib, make, data, t)}
        if torch is not None:
            cases["torch"] = _loss_step(torch, make, data, t)
        _report(name, best_ns(cases, number=50, repeat=7), torch is not None)


def _loss_step(lib: Any, make: Callable[[Any], Any], data: np.ndarray, target: np.ndarray) -> Callable[[], None]:
    loss = make(lib.nn)
    x = lib.from_numpy(data.copy()).requires_grad_()
    t = lib.from_numpy(target.copy())
    probabilities = type(loss).__name__ == "BCELoss"

    def step() -> None:
        loss(lib.sigmoid(x) if probabilities else x, t).backward()
        x.grad = None

    return step


def _report(name: str, res: dict[str, float], with_torch: bool) -> None:
    ratio = f"{res['tensorlib'] / res['torch']:5.2f}x PyTorch" if with_torch else "(no PyTorch)"
    print(f"  {name:<42} {res['tensorlib'] / 1e3:8.1f} us   {ratio}")


if __name__ == "__main__":
    main()
