"""``DistributedSampler``: the share of a dataset's indices that one of ``num_replicas`` processes reads."""

from __future__ import annotations

import math
from typing import Any, Iterator

from ...ops.creation import Generator, randperm
from .sampler import Sampler

__all__ = ["DistributedSampler"]


class DistributedSampler(Sampler):
    """Split a dataset's indices among ``num_replicas`` replicas: replica ``rank`` takes every
    ``num_replicas``-th index from position ``rank`` of the (optionally shuffled) index list, padded by
    repeating indices (or cut, with ``drop_last``) so that every replica gets ``len(self)`` indices.

    tensorlib has no distributed package, so ``num_replicas`` and ``rank`` must be given (torch reads
    them from its default process group otherwise). The shuffle is seeded with ``seed + epoch`` through
    tensorlib's generator: call :meth:`set_epoch` at the start of each epoch to reshuffle, with the same
    seed on every replica so that their shares stay disjoint. (tensorlib's generator is not torch's, so
    shuffled orders differ from torch's; unshuffled ones are the same.)
    """

    def __init__(self, dataset: Any, num_replicas: int | None = None, rank: int | None = None, shuffle: bool = True,
                 seed: int = 0, drop_last: bool = False) -> None:
        if num_replicas is None or rank is None:
            raise RuntimeError("Requires distributed package to be available")
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        if self.drop_last and len(self.dataset) % self.num_replicas != 0:
            self.num_samples = math.ceil((len(self.dataset) - self.num_replicas) / self.num_replicas)
        else:
            self.num_samples = math.ceil(len(self.dataset) / self.num_replicas)
        self.total_size = self.num_samples * self.num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self) -> Iterator[int]:
        n = len(self.dataset)
        if self.shuffle:
            g = Generator()
            g.manual_seed(self.seed + self.epoch)
            indices = randperm(n, generator=g).tolist()
        else:
            indices = list(range(n))
        if not self.drop_last:
            padding_size = self.total_size - len(indices)
            if padding_size <= len(indices):
                indices += indices[:padding_size]
            else:
                indices += (indices * math.ceil(padding_size / len(indices)))[:padding_size]
        else:
            indices = indices[: self.total_size]
        if len(indices) != self.total_size:
            raise AssertionError(f"Number of indices ({len(indices)}) does not match total_size ({self.total_size})")
        indices = indices[self.rank : self.total_size : self.num_replicas]
        if len(indices) != self.num_samples:
            raise AssertionError(
                f"Number of subsampled indices ({len(indices)}) does not match num_samples ({self.num_samples})"
            )
        return iter(indices)

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """Set the epoch, which seeds the shuffle (with ``seed``): call it before each epoch's iteration."""
        self.epoch = epoch
