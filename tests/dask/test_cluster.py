"""tensorlib.dask on a ``distributed.LocalCluster``: two worker processes on the loopback interface, each limited to
192 MiB, started once for this module.

- cases of test_ops.py (one or more of each kind of implementation) computed by the workers give what tensorlib
  gives in memory;
- a model's batch inference and data-parallel training on the workers equal in-memory tensorlib;
- out of core: a dataset larger than every worker's memory limit (and than both together), generated chunk by
  chunk on the workers, goes through a model and a loss without any worker running out of memory;
- a worker killed in the middle of a computation: the scheduler sees its connection close, forgets the results
  it held and reschedules the tasks that were running or done there (it keeps the graph: each result can be
  recomputed from its inputs) on the surviving worker, while the nanny starts a new worker process that joins
  the cluster. The result is the same as without the failure. (A task during which workers keep dying, more than
  ``distributed.scheduler.allowed-failures`` times, 3 by default, is instead reported as ``KilledWorker``.)
"""

from __future__ import annotations

import copy
import logging
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

dask = pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")

import dask.array as da  # noqa: E402
import numpy as np  # noqa: E402

import tensorlib as torch  # noqa: E402
import tensorlib.dask as td  # noqa: E402
import tensorlib.nn as nn  # noqa: E402
import tensorlib.nn.functional as F  # noqa: E402
from tensorlib.testing import assert_close  # noqa: E402

from . import test_ops  # noqa: E402

TIMEOUT = 60  # seconds for any one computation
WORKER_MEMORY = 192 * 2**20  # a worker process holds ~80 MiB once tensorlib and distributed are imported


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None,
        memory_limit=WORKER_MEMORY, silence_logs=logging.CRITICAL,
    )
    try:
        client = distributed.Client(cluster, timeout=TIMEOUT)
        try:
            # the workers import this checkout's tensorlib (the parent's sys.path), not another installed copy
            assert set(client.run(_tensorlib_file).values()) == {torch.__file__}
            yield client
        finally:
            client.close()
    finally:
        cluster.close()


def _tensorlib_file() -> str:
    return torch.__file__


def _compute(client: Any, *tensors: td.DaskTensor) -> list[torch.Tensor]:
    futures = client.compute([t.array for t in tensors])
    return [torch.from_numpy(np.array(f.result(timeout=TIMEOUT))) for f in futures]


# One case or more of each kind of implementation (the kernels travel to the worker processes by pickle).
ON_THE_CLUSTER = ["tensor-minus-dask", "zero-dim-tensor-operand", "where", "activations", "sum", "mean", "max-with-dim",
                  "argmax", "logsumexp", "var-std", "softmax", "reshape", "indexing", "cat-stack", "matmul",
                  "matmul-batched", "linear", "embedding", "conv-pool", "cross-entropy-weight-ignore-smoothing",
                  "elementwise-losses"]


def test_op_cases_computed_by_the_workers(client: Any) -> None:
    got, want = [], []

    def flatten(g: Any, w: Any) -> None:
        if isinstance(w, (tuple, list)):
            for gg, ww in zip(g, w):
                flatten(gg, ww)
        else:
            got.append(g)
            want.append(w)

    cases = [case for case in test_ops.CASES if case[0] in ON_THE_CLUSTER]
    assert len(cases) == len(ON_THE_CLUSTER)
    for _, func, inputs in cases:
        flatten(func(*[test_ops._to_dask(n) for n in inputs]), func(*[test_ops.DATA[n][0] for n in inputs]))
    for g, w in zip(_compute(client, *got), want):
        assert_close(g, w, rtol=1e-5, atol=1e-6, equal_nan=True)


def _mlp() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10))


def test_batch_inference_equals_in_memory(client: Any) -> None:
    model = _mlp().eval()
    x = torch.randn(2000, 64)
    out = model(td.from_tensor(x, chunks=(250, 64)))
    (got,) = _compute(client, out)
    with torch.no_grad():
        assert_close(got, model(x), rtol=1e-5, atol=1e-6)
    assert torch.equal(out.argmax(1).compute(), model(x).argmax(1))  # .compute() runs on the default client


def test_data_parallel_training_equals_in_memory(client: Any) -> None:
    g = torch.Generator().manual_seed(1)
    x = torch.randn(300, 64, generator=g, dtype=torch.float64)
    y = torch.randint(0, 10, (300,), generator=g)
    reference = _mlp().double()
    model = copy.deepcopy(reference)
    opt_ref = torch.optim.SGD(reference.parameters(), lr=0.1, momentum=0.9)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    shards = (td.from_tensor(x, chunks=(70, 64)).persist(), td.from_tensor(y, chunks=70).persist())
    for _ in range(3):
        opt_ref.zero_grad()
        loss = F.cross_entropy(reference(x), y)
        loss.backward()
        opt_ref.step()
        got = td.data_parallel_step(model, F.cross_entropy, shards, opt)
        assert got.item() == pytest.approx(loss.item(), rel=1e-12)
    for p, q in zip(reference.parameters(), model.parameters()):
        assert_close(q, p, rtol=1e-12, atol=1e-12)


# -- out of core -----------------------------------------------------------------------------------------------------

ROWS, FEATURES, CHUNK_ROWS = 1_600_000, 64, 40_000  # 391 MiB of float32 in 40 chunks of 10 MB


def random_rows(block_info: Any = None) -> np.ndarray:
    """One chunk of the dataset, the same wherever and however often it is computed (seeded by its index)."""
    (start, stop), _ = block_info[None]["array-location"]
    index = block_info[None]["chunk-location"][0]
    g = torch.Generator().manual_seed(1000 + index)
    return (torch.rand(stop - start, FEATURES, generator=g) * 4 - 2).numpy()  # uniform: 3x cheaper than randn


def random_labels(block_info: Any = None) -> np.ndarray:
    (start, stop), = block_info[None]["array-location"]
    index = block_info[None]["chunk-location"][0]
    g = torch.Generator().manual_seed(5000 + index)
    return torch.randint(0, 10, (stop - start,), generator=g).numpy()


def _block_info(index: int, ndim: int) -> dict:
    start = index * CHUNK_ROWS
    location = [(start, start + CHUNK_ROWS)] + [(0, FEATURES)] * (ndim - 1)
    return {None: {"array-location": location, "chunk-location": (index,) + (0,) * (ndim - 1)}}


def _dataset(rows_fn: Any = random_rows, labels_fn: Any = random_labels, rows: int = ROWS,
             chunk_rows: int = CHUNK_ROWS) -> tuple[td.DaskTensor, td.DaskTensor]:
    """Inputs and labels generated on the workers, chunk by chunk."""
    blocks = (chunk_rows,) * (rows // chunk_rows)
    x = da.map_blocks(rows_fn, chunks=(blocks, (FEATURES,)), dtype=np.float32, meta=np.empty((0, 0), np.float32))
    y = da.map_blocks(labels_fn, chunks=(blocks,), dtype=np.int64, meta=np.empty((0,), np.int64))
    return td.DaskTensor(x), td.DaskTensor(y)


def test_a_dataset_larger_than_the_workers_memory(client: Any) -> None:
    model = _mlp().eval()
    x, y = _dataset()
    assert x.nbytes > 2 * WORKER_MEMORY  # more than both workers together
    workers_before = set(client.scheduler_info()["workers"])
    logits = model(x)
    loss, correct = F.cross_entropy(logits, y), (logits.argmax(1) == y).sum()
    got_loss, got_correct = _compute(client, loss, correct)
    assert set(client.scheduler_info()["workers"]) == workers_before  # none was restarted for lack of memory
    # the same, chunk by chunk in this process
    total_loss, total_correct = 0.0, 0
    with torch.no_grad():
        for i in range(ROWS // CHUNK_ROWS):
            xi = torch.from_numpy(random_rows(_block_info(i, 2)))
            yi = torch.from_numpy(random_labels(_block_info(i, 1)))
            out = model(xi)
            total_loss += F.cross_entropy(out, yi, reduction="sum").item()
            total_correct += int((out.argmax(1) == yi).sum())
    assert got_loss.item() == pytest.approx(total_loss / ROWS, rel=1e-5)
    assert got_correct.item() == total_correct


# -- a worker killed mid-computation ------------------------------------------------------------------------------------


def slow_random_rows(block_info: Any = None) -> np.ndarray:
    time.sleep(0.1)
    return random_rows(block_info)


def test_a_worker_killed_mid_computation_does_not_change_the_result(client: Any) -> None:
    model = _mlp().eval()
    x, y = _dataset(random_rows, rows=24 * 5000, chunk_rows=5000)
    with dask.config.set(scheduler="synchronous"):
        expected = F.cross_entropy(model(x), y).compute()
    x, y = _dataset(slow_random_rows, rows=24 * 5000, chunk_rows=5000)  # the same data, 0.1 s a chunk
    loss = F.cross_entropy(model(x), y)

    before = client.run(os.getpid)
    future = client.compute(loss.array)
    time.sleep(0.5)
    assert not future.done(), "the computation ended before the failure could be injected"
    victim_address, victim_pid = sorted(before.items())[0]
    os.kill(victim_pid, signal.SIGKILL)
    got = torch.from_numpy(np.array(future.result(timeout=TIMEOUT)))
    assert torch.equal(got, expected)
    client.wait_for_workers(2, timeout=TIMEOUT)  # the nanny started a new worker process
    deadline = time.monotonic() + TIMEOUT
    while victim_pid in client.run(os.getpid).values() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert victim_pid not in client.run(os.getpid).values()


# -- the example -----------------------------------------------------------------------------------------------------


def test_the_dask_digits_example_on_a_small_copy(client: Any) -> None:
    """The example as users run it (a script: its functions and model class travel by value), on this cluster."""
    script = Path(__file__).resolve().parents[2] / "examples" / "dask_digits.py"
    env = {**os.environ, "PYTHONPATH": str(script.parents[1])}
    done = subprocess.run([sys.executable, str(script), "--scheduler", client.scheduler.address, "--copies", "4",
                           "--copies-per-chunk", "2", "--steps", "2", "--epochs", "3"],
                          capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    accuracy = float(re.search(r"accuracy (\S+) on 7,188 records", done.stdout).group(1))
    assert accuracy > 0.9
    assert "data-parallel step 2: loss" in done.stdout
    assert re.search(r"^\s+2\s+[\d,]+\s+[\d,]+$", done.stdout, re.M)  # the table: 2 workers, two throughputs
