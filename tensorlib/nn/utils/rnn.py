"""Variable-length sequences: padding them into one tensor, and packing them for the recurrent layers.

A :class:`PackedSequence` holds the time steps of a batch of sequences
(longest first) one after the other, with ``batch_sizes[t]`` the number of
sequences still running at step ``t``; RNN, LSTM and GRU accept it and skip
the padding.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ..._dtype import float32, float64
from ..._namespace import build as _build
from ..._registry import NN_UTILS_RNN, op, public
from ..._tensor import Tensor
from ...ops.creation import full, tensor
from ...ops.indexing import index_select
from ...ops.join_split import cat, stack
from ...ops.shape import transpose


class _PackedFields(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None
    unsorted_indices: Tensor | None


@public(namespace=NN_UTILS_RNN)
class PackedSequence(_PackedFields):
    """``(data, batch_sizes, sorted_indices, unsorted_indices)``: sequences packed time step by time step."""

    def __new__(cls, data: Tensor, batch_sizes: Tensor | None = None, sorted_indices: Tensor | None = None,
                unsorted_indices: Tensor | None = None) -> "PackedSequence":
        if unsorted_indices is None and sorted_indices is not None:
            unsorted_indices = _invert(sorted_indices)
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)  # type: ignore[arg-type]

    def to(self, *args: Any, **kwargs: Any) -> "PackedSequence":
        data = self.data.to(*args, **kwargs)
        return self if data is self.data else type(self)(data, self.batch_sizes, self.sorted_indices,
                                                          self.unsorted_indices)

    def cpu(self) -> "PackedSequence":
        return self

    @property
    def is_cuda(self) -> bool:
        return False

    def is_pinned(self) -> bool:
        return False

    def float(self) -> "PackedSequence":
        return self.to(dtype=float32)

    def double(self) -> "PackedSequence":
        return self.to(dtype=float64)


def _invert(perm: Tensor) -> Tensor:
    p = perm._data.astype(np.int64)
    inv = np.empty_like(p)
    inv[p] = np.arange(len(p))
    return tensor(inv)


def _lengths_array(lengths: Any) -> np.ndarray:
    if isinstance(lengths, Tensor):
        a = lengths._data
    else:
        try:
            a = np.asarray(lengths)
        except (TypeError, ValueError):
            a = np.asarray(None)
        if a.dtype.kind not in "biuf":
            raise TypeError(f"lengths must be a 1-D tensor or a sequence of ints, not {type(lengths).__name__}")
    if a.ndim != 1:
        raise RuntimeError(f"'lengths' argument should be a 1D CPU int64 tensor, but got {a.ndim}D cpu "
                           f"{'Long' if a.dtype.kind in 'biu' else 'Float'} tensor")
    return a.astype(np.int64)


@op(namespace=NN_UTILS_RNN)
def pad_sequence(sequences: Any, batch_first: bool = False, padding_value: float = 0.0,
                 padding_side: str = "right") -> Tensor:
    """Stack tensors of different lengths (dim 0) into one, padding the short ones with ``padding_value``.

    The result is ``(longest, batch, *)``, or ``(batch, longest, *)`` with ``batch_first``.
    """
    if padding_side not in ("left", "right"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    if isinstance(sequences, Tensor):
        sequences = list(sequences.unbind(0))
    if not isinstance(sequences, (list, tuple)) and not hasattr(sequences, "__iter__"):
        raise RuntimeError(f"pad_sequence: Expected iterable for input sequences, but got arg of type: {type(sequences)}")
    seqs = list(sequences)
    if not seqs:
        raise RuntimeError("received an empty list of sequences")
    for s in seqs:
        if not isinstance(s, Tensor) or s.dim() == 0:
            raise RuntimeError("pad_sequence: every sequence must be a tensor with at least one dimension")
    longest = max(s.shape[0] for s in seqs)
    trailing = tuple(seqs[0].shape[1:])
    padded = []
    for s in seqs:
        n = s.shape[0]
        if n == longest:
            padded.append(s)
            continue
        pad = full((longest - n,) + trailing, padding_value, dtype=s.dtype)
        padded.append(cat([s, pad] if padding_side == "right" else [pad, s]))
    return stack(padded, 0 if batch_first else 1)


@op(namespace=NN_UTILS_RNN)
def pack_padded_sequence(input: Tensor, lengths: Any, batch_first: bool = False,
                         enforce_sorted: bool = True) -> PackedSequence:
    """Pack a padded batch ``(T, B, *)`` (``(B, T, *)`` with ``batch_first``) of sequences of the given lengths."""
    lens = _lengths_array(lengths)
    if enforce_sorted:
        if np.any(np.diff(lens) > 0):
            raise RuntimeError(
                "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You can pass "
                "`enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep this requirement "
                "if you do not need ONNX exportability."
            )
        sorted_indices = None
    else:
        order = np.argsort(-lens, kind="stable")
        lens = lens[order]
        sorted_indices = tensor(order)
        input = index_select(input, 0 if batch_first else 1, sorted_indices)
    if lens.size and lens.min() <= 0:
        raise RuntimeError(
            "Length of all samples has to be greater than 0, but found an element in 'lengths' that is <= 0"
        )
    x = transpose(input, 0, 1) if batch_first else input
    if lens.size and lens[0] > x.shape[0]:
        raise RuntimeError(
            f"Expected sequence length to be larger than 0 in RNN; got lengths larger than the input: {int(lens[0])}"
        )
    batch_sizes = np.array([(lens > t).sum() for t in range(int(lens.max()) if lens.size else 0)], dtype=np.int64)
    data = cat([x[t, : int(b)] for t, b in enumerate(batch_sizes)])
    return PackedSequence(data, tensor(batch_sizes), sorted_indices, None)


@op(namespace=NN_UTILS_RNN)
def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False, padding_value: float = 0.0,
                        total_length: int | None = None) -> tuple:
    """Undo :func:`pack_padded_sequence`: ``(padded, lengths)``, in the batch's original order."""
    sizes = sequence.batch_sizes._data.astype(np.int64)
    steps = len(sizes)
    if total_length is not None:
        if total_length < steps:
            raise ValueError(
                "Expected total_length to be at least the length of the longest sequence in input, but got "
                f"total_length={total_length} and max sequence length being {steps}"
            )
    else:
        total_length = steps
    batch = int(sizes[0]) if steps else 0
    trailing = tuple(sequence.data.shape[1:])
    rows = []
    offset = 0
    for b in sizes:
        step = sequence.data[offset:offset + int(b)]
        offset += int(b)
        if b < batch:
            step = cat([step, full((batch - int(b),) + trailing, padding_value, dtype=sequence.data.dtype)])
        rows.append(step)
    for _ in range(total_length - steps):
        rows.append(full((batch,) + trailing, padding_value, dtype=sequence.data.dtype))
    padded = stack(rows)
    lengths = np.array([(sizes > i).sum() for i in range(batch)], dtype=np.int64)
    if sequence.unsorted_indices is not None:
        padded = index_select(padded, 1, sequence.unsorted_indices)
        lengths = lengths[sequence.unsorted_indices._data.astype(np.int64)]
    if batch_first:
        padded = transpose(padded, 0, 1)
    return padded, tensor(lengths)


@op(namespace=NN_UTILS_RNN)
def pack_sequence(sequences: Any, enforce_sorted: bool = True) -> PackedSequence:
    """Pack a list of tensors of different lengths (see :func:`pack_padded_sequence`).

    A tensor counts as the sequence of its slices along the first dimension, as torch iterates it.
    """
    if isinstance(sequences, Tensor):
        sequences = list(sequences)  # a 0-d tensor raises torch's "iteration over a 0-d tensor"
    if not isinstance(sequences, (list, tuple)):
        raise TypeError(f"'{type(sequences).__name__}' object is not iterable")
    for i, s in enumerate(sequences):
        if not isinstance(s, Tensor):
            raise TypeError(f"pack_sequence(): expected a sequence of Tensors, but element {i} is "
                            f"{type(s).__name__}")
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


@op(namespace=NN_UTILS_RNN)
def unpad_sequence(padded_sequences: Tensor, lengths: Any, batch_first: bool = False) -> list:
    """Split a padded batch back into a list of tensors of the given lengths."""
    x = padded_sequences if batch_first else transpose(padded_sequences, 0, 1)
    return [x[i, : int(n)] for i, n in enumerate(_lengths_array(lengths))]


__all__ = sorted(_build(__name__))
