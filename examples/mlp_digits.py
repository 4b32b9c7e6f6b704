"""Train a small MLP on the bundled handwritten digits (8x8 images, 10 classes) with tensorlib.

Usage: python examples/mlp_digits.py [--epochs N] [--seed S]
Prints the loss per epoch and the final test accuracy (about 97-98% after 30 epochs).
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

import tensorlib as torch
import tensorlib.nn as nn
import tensorlib.nn.functional as F

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "digits.npz")


def load_digits(seed: int = 0, test_fraction: float = 0.2) -> tuple:
    """Train/test split of the bundled digits: inputs scaled to [0, 1], flattened to 64 features."""
    with np.load(DATA) as f:
        images, labels = f["images"], f["labels"]
    x = images.reshape(len(images), -1).astype(np.float32) / 16.0
    y = labels.astype(np.int64)
    order = np.random.default_rng(seed).permutation(len(x))
    n_test = int(len(x) * test_fraction)
    test, train = order[:n_test], order[n_test:]
    return (torch.from_numpy(x[train]), torch.from_numpy(y[train]),
            torch.from_numpy(x[test]), torch.from_numpy(y[test]))


class MLP(nn.Module):
    """64 -> hidden -> hidden -> 10 with ReLU."""

    def __init__(self, hidden: int = 128) -> None:
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(64, hidden),
            nn.ReLU(),
            nn.Linear(hidden, hidden),
            nn.ReLU(),
            nn.Linear(hidden, 10),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)


def accuracy(model: nn.Module, x: torch.Tensor, y: torch.Tensor) -> float:
    with torch.no_grad():
        return (model(x).argmax(dim=1) == y).float().mean().item()


def train(epochs: int = 30, seed: int = 0, batch_size: int = 64, lr: float = 0.05, verbose: bool = True) -> float:
    """Train with SGD + momentum and return the test accuracy."""
    torch.manual_seed(seed)
    x_train, y_train, x_test, y_test = load_digits(seed)
    model = MLP()
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    n = x_train.shape[0]
    for epoch in range(epochs):
        model.train()
        perm = torch.randperm(n)
        total = 0.0
        for start in range(0, n, batch_size):
            idx = perm[start:start + batch_size]
            loss = F.cross_entropy(model(x_train[idx]), y_train[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * idx.shape[0]
        if verbose and (epoch % 5 == 4 or epoch == 0):
            print(f"epoch {epoch + 1:3d}  loss {total / n:.4f}  test accuracy {accuracy(model, x_test, y_test):.4f}")
    model.eval()
    return accuracy(model, x_test, y_test)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    start = time.perf_counter()
    acc = train(args.epochs, args.seed)
    print(f"final test accuracy: {acc:.4f} ({time.perf_counter() - start:.1f}s)")


if __name__ == "__main__":
    main()
