"""Padding variable-length sequences into one batch tensor."""

from __future__ import annotations

from typing import Any

from ..._namespace import expose as _expose
from ..._tensor import Tensor


def _pad_sequence(sequences: Any, batch_first: bool = False, padding_value: float = 0.0,
                  padding_side: str = "right") -> Tensor:
    """Stack tensors of different lengths (dim 0) into one, padding the short ones with ``padding_value``.

    The result is ``(longest, batch, *)``, or ``(batch, longest, *)`` with ``batch_first``.
    """
    from ...ops.creation import full
    from ...ops.shape import stack

    if padding_side not in ("left", "right"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    if isinstance(sequences, Tensor):
        sequences = list(sequences.unbind(0))
    seqs = list(sequences)
    if not seqs:
        raise RuntimeError("received an empty list of sequences")
    longest = max(s.shape[0] for s in seqs)
    trailing = tuple(seqs[0].shape[1:])
    padded = []
    for s in seqs:
        n = s.shape[0]
        if n == longest:
            padded.append(s)
            continue
        pad = full((longest - n,) + trailing, padding_value, dtype=s.dtype)
        from ...ops.shape import cat

        padded.append(cat([s, pad] if padding_side == "right" else [pad, s]))
    return stack(padded, 0 if batch_first else 1)


globals().update(_expose(__name__, {"pad_sequence": _pad_sequence}))

__all__ = ["pad_sequence"]
