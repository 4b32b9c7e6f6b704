"""A picture of an autograd graph: the DOT text of a small model's loss, and an SVG when a path is given.

    python examples/autograd_graph.py             # prints the DOT text
    python examples/autograd_graph.py graph.svg   # also draws it (needs Graphviz's dot)
"""

from __future__ import annotations

import sys

import tensorlib as torch
import tensorlib.nn as nn
import tensorlib.nn.functional as F
from tensorlib.autograd.graph import render, to_dot


def loss_of_a_small_model() -> tuple[nn.Module, torch.Tensor]:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 3), nn.Tanh(), nn.Linear(3, 2))
    return model, F.cross_entropy(model(torch.randn(6, 4)), torch.tensor([0, 1, 1, 0, 1, 0]))


def main(path: str | None = None) -> None:
    model, loss = loss_of_a_small_model()
    print(to_dot(loss, model.named_parameters()), end="")
    if path is not None:
        print(f"written: {render(loss, path, params=model.named_parameters())}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)
