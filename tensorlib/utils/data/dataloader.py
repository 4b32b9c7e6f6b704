"""``DataLoader``: iterate over a dataset in (optionally shuffled) batches, collated into tensors.

Loading happens in the calling process: ``num_workers`` is accepted and
checked, but batches are always produced in order by the main process (there
is no worker pool, so ``get_worker_info()`` is always None and
``worker_init_fn`` is never called).
"""

from __future__ import annotations

import collections.abc
from typing import Any, Callable, Iterable, Iterator

import numpy as np

from ..._dtype import float64
from ..._registry import UTILS_DATA, public
from ..._tensor import Tensor
from ...ops.creation import as_tensor, tensor
from ...ops.join_split import stack
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

_COLLATE_ERROR = "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"


@public(namespace=UTILS_DATA)
def get_worker_info() -> None:
    """Information about the current loading worker: always None, as data is loaded in the main process."""
    return None


def _is_numeric_array(a: np.ndarray) -> bool:
    return a.dtype.kind in "biufc"


@public(namespace=UTILS_DATA)
def default_convert(data: Any) -> Any:
    """Convert NumPy arrays (also inside dicts and sequences) to tensors, leaving everything else as it is."""
    if isinstance(data, Tensor):
        return data
    if isinstance(data, np.ndarray):
        return as_tensor(data) if _is_numeric_array(data) else data
    if isinstance(data, np.generic) and _is_numeric_array(np.asarray(data)):
        return as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        try:
            return type(data)({k: default_convert(v) for k, v in data.items()})  # type: ignore[call-arg]
        except TypeError:
            return {k: default_convert(v) for k, v in data.items()}
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        try:
            return type(data)([default_convert(d) for d in data])  # type: ignore[call-arg]
        except TypeError:
            return [default_convert(d) for d in data]
    return data


@public(namespace=UTILS_DATA)
def default_collate(batch: Any) -> Any:
    """Merge a list of samples into a batch: tensors, arrays and numbers are stacked along a new first dim;
    dicts, named tuples and sequences are collated field by field; strings are kept as a list."""
    elem = batch[0]
    if isinstance(elem, Tensor):
        return stack(list(batch), 0)
    if isinstance(elem, np.ndarray):
        if not _is_numeric_array(elem):
            raise TypeError(_COLLATE_ERROR.format(elem.dtype))
        return stack([as_tensor(b) for b in batch], 0)
    if isinstance(elem, np.generic):
        if not _is_numeric_array(np.asarray(elem)):
            raise TypeError(_COLLATE_ERROR.format(type(elem)))
        return as_tensor(np.asarray(batch))
    if isinstance(elem, float):
        return tensor(batch, dtype=float64)
    if isinstance(elem, int):
        return tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        out = {k: default_collate([d[k] for d in batch]) for k in elem}
        try:
            return type(elem)(out)  # type: ignore[call-arg]
        except TypeError:
            return out
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return type(elem)(*(default_collate(s) for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        n = len(elem)
        if any(len(e) != n for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        columns = [default_collate(s) for s in zip(*batch)]
        if isinstance(elem, tuple):
            return columns
        try:
            return type(elem)(columns)  # type: ignore[call-arg]
        except TypeError:
            return columns
    raise TypeError(_COLLATE_ERROR.format(type(elem)))


class DataLoader:
    """Iterate over ``dataset`` in batches of ``batch_size`` samples, merged by ``collate_fn``.

    ``shuffle=True`` visits the samples in a new random order every epoch
    (reproducible under ``tensorlib.manual_seed`` or with ``generator``);
    ``drop_last`` skips a final incomplete batch; ``sampler`` or
    ``batch_sampler`` choose the indices instead; ``batch_size=None`` yields
    single samples without batching.
    """

    def __init__(self, dataset: Any, batch_size: int | None = 1, shuffle: bool | None = None,
                 sampler: Sampler | Iterable | None = None, batch_sampler: Sampler | Iterable | None = None,
                 num_workers: int = 0, collate_fn: Callable | None = None, pin_memory: bool = False,
                 drop_last: bool = False, timeout: float = 0, worker_init_fn: Callable | None = None,
                 multiprocessing_context: Any = None, generator: Any = None, *, prefetch_factor: int | None = None,
                 persistent_workers: bool = False, pin_memory_device: str = "", in_order: bool = True) -> None:
        if not isinstance(num_workers, int) or num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError(
                "prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 to enable "
                "multiprocessing, otherwise set prefetch_factor to None."
            )
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.persistent_workers = persistent_workers
        self.in_order = in_order
        self.generator = generator
        self._iterable = isinstance(dataset, IterableDataset)

        if self._iterable:
            if shuffle not in (None, False):
                raise ValueError(
                    f"DataLoader with IterableDataset: expected unspecified shuffle option, but got shuffle={shuffle}"
                )
            if sampler is not None:
                raise ValueError(
                    f"DataLoader with IterableDataset: expected unspecified sampler option, but got sampler={sampler}"
                )
            if batch_sampler is not None:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified batch_sampler option, but got "
                    f"batch_sampler={batch_sampler}"
                )
        else:
            shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError(
                    "batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last"
                )
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError(
                "batch_size=None option disables auto-batching and is mutually exclusive with drop_last"
            )
        if not self._iterable:
            if sampler is None:
                sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
            if batch_size is not None and batch_sampler is None:
                batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        elif batch_size is not None:
            if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
                raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation or self._iterable and batch_size else default_convert
        self.collate_fn = collate_fn

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    def __iter__(self) -> "_SingleProcessDataLoaderIter":
        return _SingleProcessDataLoaderIter(self)

    def __len__(self) -> int:
        if self._iterable:
            n = len(self.dataset)
            if self.batch_size is not None:
                n = n // self.batch_size if self.drop_last else -(-n // self.batch_size)
            return n
        if self.batch_sampler is not None:
            return len(self.batch_sampler)  # type: ignore[arg-type]
        return len(self.sampler)  # type: ignore[arg-type]


class _SingleProcessDataLoaderIter:
    """One pass over a DataLoader."""

    def __init__(self, loader: DataLoader) -> None:
        self._loader = loader
        self._dataset = loader.dataset
        self._collate = loader.collate_fn
        self._num_yielded = 0
        if loader._iterable:
            self._source: Iterator = self._iterable_batches(loader)
        elif loader.batch_sampler is not None:
            self._source = (self._collate([self._dataset[i] for i in idx]) for idx in loader.batch_sampler)
        else:
            self._source = (self._collate(self._dataset[i]) for i in loader.sampler)  # type: ignore[union-attr]

    def _iterable_batches(self, loader: DataLoader) -> Iterator:
        it = iter(self._dataset)
        if loader.batch_size is None:
            for sample in it:
                yield self._collate(sample)
            return
        batch: list = []
        for sample in it:
            batch.append(sample)
            if len(batch) == loader.batch_size:
                yield self._collate(batch)
                batch = []
        if batch and not loader.drop_last:
            yield self._collate(batch)

    def __iter__(self) -> "_SingleProcessDataLoaderIter":
        return self

    def __next__(self) -> Any:
        item = next(self._source)
        self._num_yielded += 1
        return item

    def __len__(self) -> int:
        return len(self._loader)
