"""Batch inference and data-parallel training of a tensorlib MLP on Dask workers, with 1 and then 2 workers.

Usage: python examples/dask_digits.py [--copies N] [--copies-per-chunk C] [--steps S] [--workers 1 2]
       [--scheduler ADDRESS] [--epochs E]      (needs the `dask` extra)

The bundled digits (1,797 8x8 images) are replicated N times (each copy with its own small noise, made on the
workers chunk by chunk) into a dataset of N x 1,797 records. A model trained in memory on the original digits
then classifies the whole dataset (``model(x)`` with ``x`` a DaskTensor chunked along the batch), and a few
synchronous data-parallel steps (``tensorlib.dask.data_parallel_step``) fine-tune it on all of it. For each
number of worker processes (a ``distributed.LocalCluster`` on the loopback interface, one thread each), the
script prints the accuracy, the loss per step and the throughput in records per second; first the same work in
this process without Dask (the whole dataset as one batch), for comparison.
"""

from __future__ import annotations

import argparse
import logging
import os
import time
from typing import Any

import dask.array as da
import numpy as np
from distributed import Client, LocalCluster

import tensorlib as torch
import tensorlib.dask as td
import tensorlib.nn as nn
import tensorlib.nn.functional as F

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "digits.npz")
NOISE = 0.05


def load_digits() -> tuple[np.ndarray, np.ndarray]:
    """The bundled digits: inputs scaled to [0, 1] and flattened to 64 features, labels as int64."""
    with np.load(DATA) as f:
        return f["images"].reshape(-1, 64).astype(np.float32) / 16.0, f["labels"].astype(np.int64)


def noisy_copies(copy_indices: np.ndarray, images: np.ndarray) -> np.ndarray:
    """One chunk of the replicated dataset: copies of the digits, each with noise seeded by its index."""
    parts = []
    for index in copy_indices:
        g = torch.Generator().manual_seed(int(index))
        parts.append((torch.from_numpy(images) + NOISE * torch.randn(images.shape, generator=g)).clamp(0, 1))
    return torch.cat(parts).numpy()


def label_copies(copy_indices: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """The labels of one chunk."""
    return np.tile(labels, len(copy_indices))


def replicated(images: np.ndarray, labels: np.ndarray, copies: int,
               copies_per_chunk: int) -> tuple[td.DaskTensor, td.DaskTensor]:
    """``copies`` noisy copies of the digits as DaskTensors chunked along the batch, made on the workers (the
    digits are one graph key)."""
    n = len(images)
    index = da.arange(copies, chunks=copies_per_chunk)
    base_x = da.from_array(images, chunks=images.shape)
    base_y = da.from_array(labels, chunks=labels.shape)
    x = da.blockwise(noisy_copies, "ij", index, "i", base_x, "kl", new_axes={"j": 64},
                     adjust_chunks={"i": lambda c: c * n}, dtype=np.float32, concatenate=True)
    y = da.blockwise(label_copies, "i", index, "i", base_y, "k", adjust_chunks={"i": lambda c: c * n},
                     dtype=np.int64, concatenate=True)
    return td.DaskTensor(x), td.DaskTensor(y)


class MLP(nn.Module):
    """64 -> 128 -> 128 -> 10 with ReLU."""

    def __init__(self) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 10))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)


def train_in_memory(images: np.ndarray, labels: np.ndarray, epochs: int = 10) -> MLP:
    """A few epochs of minibatch SGD on the original digits, in this process."""
    torch.manual_seed(0)
    x, y = torch.from_numpy(images), torch.from_numpy(labels)
    model = MLP()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    for _ in range(epochs):
        perm = torch.randperm(len(x))
        for start in range(0, len(x), 64):
            idx = perm[start:start + 64]
            opt.zero_grad()
            F.cross_entropy(model(x[idx]), y[idx]).backward()
            opt.step()
    return model.eval()


def measure(trained: MLP, images: np.ndarray, labels: np.ndarray, copies: int, copies_per_chunk: int,
            steps: int) -> dict[str, float]:
    """Inference and training on the active Dask scheduler; the accuracy, the last loss and records per second."""
    x, y = replicated(images, labels, copies, copies_per_chunk)
    x, y = x.persist(), y.persist()  # the dataset is made and kept on the workers
    (x.sum() + y.sum()).compute()  # wait until it is there
    records = x.shape[0]

    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        correct = (trained(x).argmax(1) == y).sum().item()
        best = min(best, time.perf_counter() - start)
    inference = records / best
    print(f"  inference: accuracy {correct / records:.4f} on {records:,} records, {inference:,.0f} records/s")

    model = MLP()
    model.load_state_dict(trained.state_dict())
    model.train()
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    start = time.perf_counter()
    for step in range(steps):
        loss = td.data_parallel_step(model, F.cross_entropy, (x, y), opt)
        print(f"  data-parallel step {step + 1}: loss {loss.item():.4f}")
    training = records * steps / (time.perf_counter() - start)
    print(f"  training: {training:,.0f} records/s")
    return {"accuracy": correct / records, "loss": loss.item(), "inference": inference, "training": training}


def in_memory(trained: MLP, images: np.ndarray, labels: np.ndarray, copies: int, steps: int) -> dict[str, float]:
    """The same inference and full-batch training steps in this process, without Dask: the baseline."""
    x = torch.from_numpy(noisy_copies(np.arange(copies), images))
    y = torch.from_numpy(label_copies(np.arange(copies), labels))
    records = len(x)
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        with torch.no_grad():
            (trained(x).argmax(1) == y).sum().item()
        best = min(best, time.perf_counter() - start)
    model = MLP()
    model.load_state_dict(trained.state_dict())
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    start = time.perf_counter()
    for _ in range(steps):
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()
    training = records * steps / (time.perf_counter() - start)
    print(f"  inference: {records / best:,.0f} records/s; training: {training:,.0f} records/s")
    return {"inference": records / best, "training": training}


def run(workers: int, trained: MLP, images: np.ndarray, labels: np.ndarray, copies: int, copies_per_chunk: int,
        steps: int) -> dict[str, float]:
    """:func:`measure` on a new cluster of ``workers`` worker processes (loopback, one thread each)."""
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None, silence_logs=logging.ERROR) as cluster, Client(cluster) as client:
        client.wait_for_workers(workers)
        return measure(trained, images, labels, copies, copies_per_chunk, steps)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=200, help="copies of the 1,797 digits (default 200)")
    parser.add_argument("--copies-per-chunk", type=int, default=10, help="copies in each chunk (default 10)")
    parser.add_argument("--steps", type=int, default=3, help="data-parallel training steps (default 3)")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2], help="worker counts to run (default 1 2)")
    parser.add_argument("--scheduler", help="address of a running Dask scheduler to use instead (its workers)")
    parser.add_argument("--epochs", type=int, default=10, help="epochs of the in-memory training (default 10)")
    args = parser.parse_args()
    images, labels = load_digits()
    trained = train_in_memory(images, labels, args.epochs)
    results: dict[Any, dict[str, float]] = {}
    if not args.scheduler:
        print("in memory, one process, no Dask:")
        results["no Dask"] = in_memory(trained, images, labels, args.copies, args.steps)
    if args.scheduler:
        with Client(args.scheduler) as client:
            workers = len(client.scheduler_info()["workers"])
            print(f"{workers} worker{'s' if workers > 1 else ''} at {args.scheduler}:")
            results[workers] = measure(trained, images, labels, args.copies, args.copies_per_chunk, args.steps)
    for workers in [] if args.scheduler else args.workers:
        print(f"{workers} worker{'s' if workers > 1 else ''}:")
        results[workers] = run(workers, trained, images, labels, args.copies, args.copies_per_chunk, args.steps)
    print()
    print(f"{'workers':>7}  {'inference records/s':>20}  {'training records/s':>19}")
    for workers, r in results.items():
        print(f"{workers:>7}  {r['inference']:>20,.0f}  {r['training']:>19,.0f}")
    print(f"(load average {os.getloadavg()[0]:.1f} at the end: other processes share the cores)")


if __name__ == "__main__":
    main()
