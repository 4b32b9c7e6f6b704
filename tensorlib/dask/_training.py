"""Synchronous data-parallel training on Dask workers: :func:`data_parallel_step`.

One step is one Dask graph: a key holding the model (its current weights), one task per shard that computes the
loss and the gradients of the parameters on that shard with tensorlib's autograd, and a tree of tasks that sums
the shards' gradients. The client sets the summed gradients on the parameters and steps the optimizer; the next
step's graph carries the new weights to the workers.
"""

from __future__ import annotations

import uuid
from typing import Any, Callable, Sequence

import dask
import numpy as np

import tensorlib

from ._tensor import DaskTensor

__all__ = ["data_parallel_step", "shards_of"]

_REDUCTIONS = ("mean", "sum")


def shards_of(inputs: DaskTensor, targets: DaskTensor) -> list[tuple[Any, Any]]:
    """The ``(inputs, targets)`` shards of two DaskTensors cut along dimension 0: one pair of Dask delayed
    objects per chunk of ``inputs`` (``targets`` rechunked to match; other dimensions gathered)."""
    if not isinstance(inputs, DaskTensor) or not isinstance(targets, DaskTensor):
        raise TypeError(f"shards_of() expects two DaskTensors, got {type(inputs).__name__} and "
                        f"{type(targets).__name__}")
    if inputs.ndim == 0 or targets.ndim == 0 or inputs.shape[0] != targets.shape[0]:
        raise ValueError(f"shards_of(): inputs and targets must have the same size in dimension 0, got shapes "
                         f"{list(inputs.shape)} and {list(targets.shape)}")
    x = inputs.array.rechunk({d: -1 for d in range(1, inputs.ndim)})
    y = targets.array.rechunk({0: x.chunks[0], **{d: -1 for d in range(1, targets.ndim)}})
    return list(zip(x.to_delayed().ravel().tolist(), y.to_delayed().ravel().tolist()))


def _tensor(value: Any) -> tensorlib.Tensor:
    if isinstance(value, tensorlib.Tensor):
        return value
    return tensorlib.from_numpy(np.ascontiguousarray(value))


def shard_gradients(model: Any, loss_fn: Callable, inputs: Any, targets: Any,
                    reduction: str) -> tuple[list[np.ndarray | None], np.ndarray, int]:
    """On a worker: the gradients of ``loss_fn(model(inputs), targets)`` with respect to the model's trainable
    parameters, weighted by the shard's size when the loss is a mean; with the (weighted) loss and the size.

    ``autograd.grad`` leaves the parameters' ``.grad`` alone, so tasks of one worker can share its copy of the
    model.
    """
    x, y = _tensor(inputs), _tensor(targets)
    params = [p for p in model.parameters() if p.requires_grad]
    with tensorlib.enable_grad():
        loss = loss_fn(model(x), y)
        grads = tensorlib.autograd.grad(loss, params, allow_unused=True)
    n = int(x.shape[0]) if x.dim() else 1
    weight = n if reduction == "mean" else 1
    out = [None if g is None else (g * weight).detach().numpy() for g in grads]
    return out, (loss.detach() * weight).numpy(), n


def add_partials(*parts: tuple[list[np.ndarray | None], np.ndarray, int]) -> tuple[
        list[np.ndarray | None], np.ndarray, int]:
    """One node of the reduction tree: the sum of several shards' (gradients, loss, size)."""
    grads: list[np.ndarray | None] = list(parts[0][0])
    loss, n = parts[0][1], parts[0][2]
    for other_grads, other_loss, other_n in parts[1:]:
        for i, g in enumerate(other_grads):
            if g is not None:
                current = grads[i]
                grads[i] = g if current is None else current + g
        loss = loss + other_loss
        n += other_n
    return grads, loss, n


def gradient_graph(model: Any, loss_fn: Callable, shards: Any, *, reduction: str = "mean",
                   split_every: int = 4) -> Any:
    """The Dask delayed object of one step's summed (gradients, loss, size), before it is computed.

    The model is one key of the graph, whatever the number of shards; see :func:`data_parallel_step`.
    """
    if reduction not in _REDUCTIONS:
        raise ValueError(f"data_parallel_step(): reduction must be 'mean' or 'sum', got {reduction!r}")
    if not isinstance(split_every, int) or split_every < 2:
        raise ValueError(f"data_parallel_step(): split_every must be an int of at least 2, got {split_every!r}")
    pairs = _pairs(shards)
    token = uuid.uuid4().hex
    model_key = dask.delayed(model, name=f"tensorlib-model-{token}", traverse=False)
    loss_key = dask.delayed(loss_fn, name=f"tensorlib-loss-fn-{token}", traverse=False)
    level = [dask.delayed(shard_gradients, pure=False)(model_key, loss_key, x, y, reduction,
                                                       dask_key_name=f"tensorlib-shard-gradients-{token}-{i}")
             for i, (x, y) in enumerate(pairs)]
    depth = 0
    while len(level) > 1:
        level = [dask.delayed(add_partials, pure=False)(*level[i:i + split_every],
                                                        dask_key_name=f"tensorlib-sum-gradients-{token}-{depth}-{i}")
                 for i in range(0, len(level), split_every)]
        depth += 1
    return level[0]


def _pairs(shards: Any) -> list[tuple[Any, Any]]:
    if (isinstance(shards, (tuple, list)) and len(shards) == 2
            and all(isinstance(s, DaskTensor) for s in shards)):
        return shards_of(shards[0], shards[1])
    if not isinstance(shards, (tuple, list)) or not shards:
        raise TypeError("data_parallel_step(): shards must be (inputs, targets) DaskTensors or a non-empty list of "
                        f"(inputs, targets) pairs, got {type(shards).__name__}")
    pairs = []
    for i, pair in enumerate(shards):
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise TypeError(f"data_parallel_step(): shard {i} is not an (inputs, targets) pair")
        pairs.append((pair[0], pair[1]))
    return pairs


def data_parallel_step(model: Any, loss_fn: Callable[[Any, Any], Any], shards: Any, optimizer: Any, *,
                       reduction: str = "mean", split_every: int = 4, **compute_kwargs: Any) -> tensorlib.Tensor:
    """One synchronous data-parallel training step of ``model`` on ``shards`` held by Dask workers.

    ``shards``: ``(inputs, targets)``, two DaskTensors chunked along dimension 0 (each chunk is a shard; persist
    them to keep the data on the workers between steps), or a list of ``(inputs, targets)`` pairs of Tensors,
    NumPy arrays, Dask delayed objects or ``distributed`` futures. ``loss_fn(model(inputs), targets)`` must
    return a 0-d loss: with ``reduction="mean"`` a mean over the shard's samples (``F.cross_entropy``'s
    default), and each shard's gradients are weighted by its share of the samples, so that the step equals one
    on the whole batch; with ``reduction="sum"`` a sum, and gradients are summed as they are.

    Each worker computes its shards' gradients with tensorlib's autograd on its copy of the model (the model is
    one key of the graph, sent once per step); the gradients are summed in a tree (``split_every`` at a time);
    the client replaces each trainable parameter's ``.grad`` with the sum (as ``optimizer.zero_grad()`` then
    ``loss.backward()`` on the whole batch would) and calls ``optimizer.step()``. Buffers changed by the forward
    pass on the workers (batch norm's running statistics) are not brought back. Keyword arguments go to
    ``dask.compute``; the active scheduler (a ``distributed.Client`` if one is set) runs the graph.

    Returns the loss over all shards (their mean with ``reduction="mean"``, their sum with ``"sum"``).
    """
    total = gradient_graph(model, loss_fn, shards, reduction=reduction, split_every=split_every)
    (grads, loss, n), = dask.compute(total, **compute_kwargs)
    scale = n if reduction == "mean" else 1
    params = [p for p in model.parameters() if p.requires_grad]
    if len(grads) != len(params):
        raise RuntimeError(f"data_parallel_step(): the workers' model has {len(grads)} trainable parameters, the "
                           f"client's {len(params)}")
    for p, g in zip(params, grads):
        p.grad = None if g is None else tensorlib.from_numpy(np.asarray(g / scale, dtype=g.dtype))
    optimizer.step()
    return tensorlib.from_numpy(np.asarray(loss / scale, dtype=np.asarray(loss).dtype))
