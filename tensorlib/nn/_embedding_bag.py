"""``embedding_bag``: sums, means or maxima of bags of embedding rows, without the rows themselves.

The bags are reductions of the looked-up rows (``index_add`` for sums and means, ``gather`` at each
bag's argmax for maxima), so gradients of every order come from the engine; torch has no double
backward here. ``embedding_bag_core`` has the signature and the four results of ``torch.embedding_bag``.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .._registry import NN_FUNCTIONAL, op
from .._tensor import Tensor, legacy_type_name
from ..ops._util import GRAD, tensor_arg, wrap
from ..ops.arithmetic import add, div, mul
from ..ops.indexing import basic_getitem, gather, index_add, index_select
from ..ops.shape import reshape, unsqueeze
from ._functional import embedding_renorm_

__all__ = ["embedding_bag", "embedding_bag_core"]

_MODES = {"sum": 0, "mean": 1, "max": 2}
_INDEX_SIZE = ("Expected i < index_size to be true, but got false.  (Could this error message be improved?  If so, "
               "please report an enhancement request to PyTorch.)")


def _torch_type(t: Tensor) -> str:
    return legacy_type_name(t._data.dtype)


def embedding_bag_core(weight: Tensor, indices: Tensor, offsets: Tensor, scale_grad_by_freq: bool, mode: int,
                       per_sample_weights: Tensor | None, include_last_offset: bool,
                       padding_idx: int | None) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """torch's ``embedding_bag`` kernel: ``(output, offset2bag, bag_size, max_indices)`` of 1-D ``indices``."""
    w, idx_t, off_t = weight, indices, offsets
    wd, idx, off = w._data, idx_t._data, off_t._data
    if idx.dtype.kind not in "iu" or idx.dtype.kind == "b":
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, "
                           f"Int; but got {_torch_type(idx_t)} instead (while checking arguments for embedding_bag)")
    if off.dtype.kind not in "iu":
        raise RuntimeError("Expected tensor for argument #1 'offsets' to have one of the following scalar types: Long, "
                           f"Int; but got {_torch_type(off_t)} instead (while checking arguments for embedding_bag)")
    if wd.dtype.kind != "f":
        raise RuntimeError("Expected tensor for argument #1 'weight' to have one of the following scalar types: Half, "
                           f"BFloat16, Float, Double; but got {_torch_type(w)} instead (while checking arguments for "
                           "embedding_bag)")
    if per_sample_weights is not None and per_sample_weights._data.dtype != wd.dtype:
        raise RuntimeError("Expected tensor for argument #1 'weight' to have the same type as tensor for argument #1 "
                           f"'per_sample_weights'; but type {_torch_type(w)} does not equal "
                           f"{_torch_type(per_sample_weights)} (while checking arguments for embedding_bag)")
    if wd.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    if wd.ndim != 2:
        raise RuntimeError(f"weight has to be a 2D Tensor, but got Tensor of dimension {wd.ndim}")
    n_rows, dim = wd.shape
    if padding_idx is not None:
        if not -n_rows <= padding_idx < n_rows:
            raise RuntimeError(f"padding_idx must be within the number of embeddings, {-n_rows} through "
                               f"{n_rows - 1}, but got {padding_idx}")
        padding_idx = padding_idx % n_rows
    idx = idx.astype(np.int64).reshape(-1)
    off = off.astype(np.int64).reshape(-1)
    length = idx.shape[0]
    if include_last_offset and off.shape[0] < 1:
        raise RuntimeError("include_last_offset: number of offset should be at least 1")
    if off.shape[0]:
        if off[0] != 0:  # torch's message ends with an empty tensor's printout
            raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
                               f"position 0. However, got {off[0]}\n[ tensorlib.LongTensor{{}} ]")
        if off[-1] > length:
            raise RuntimeError(f"offsets[-1] can not be greater than input's length {length} but got offsets[-1] of "
                               f"{off[-1]}")
    bad = (idx < 0) | (idx >= n_rows)
    if bad.any():  # torch's float sum and mean kernels word it otherwise
        if mode != 2 and wd.dtype in (np.float32, np.float16):
            raise RuntimeError(_INDEX_SIZE)
        raise RuntimeError(f"embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx to be "
                           f"{int(idx[bad][0])}")
    bags = off.shape[0] - (1 if include_last_offset else 0)
    starts = off[:bags]
    # each position's bag: the last bag starting at or before it (a last offset past the end changes nothing)
    offset2bag = np.searchsorted(starts, np.arange(length), side="right") - 1 if bags else np.zeros(length, np.int64)
    keep = np.ones(length, bool) if padding_idx is None else idx != padding_idx
    counts = np.bincount(offset2bag[keep], minlength=bags)[:bags] if bags else np.zeros(0, np.int64)
    rows = index_select(w, 0, wrap(idx))
    if scale_grad_by_freq and rows._requires_grad:
        # each row's gradient divided by a count of occurrences, the same values. As torch's CPU kernel does, the
        # k-th smallest distinct index is divided by the count of the k-th smallest index (with repeats), which is
        # its own count only when no smaller index repeats
        counts_all = np.bincount(idx, minlength=n_rows)
        distinct = np.unique(idx)
        freq = counts_all[np.sort(idx)[: distinct.shape[0]]][np.searchsorted(distinct, idx)]
        scale = (1.0 / freq).astype(wd.dtype)[:, None]
        rows = add(mul(rows, wrap(scale)), wrap((rows._data * (1 - scale)).astype(wd.dtype)))
    zeros = wrap(np.zeros((bags, dim), dtype=wd.dtype))
    out_dtype = idx_t._data.dtype
    if mode == 2:
        if length and bags:
            values = np.where(keep[:, None], wd[idx], -np.inf)
            best = np.full((bags, dim), -np.inf)
            np.maximum.at(best, offset2bag, values)
            first = np.full((bags, dim), length)
            hits = (values == best[offset2bag]) & keep[:, None]
            np.minimum.at(first, offset2bag, np.where(hits, np.arange(length)[:, None], length))
            filled = counts > 0
            max_rows = np.where(filled[:, None], idx[np.minimum(first, length - 1)], 0)
        else:
            filled = np.zeros(bags, bool)
            max_rows = np.zeros((bags, dim), np.int64)
        picked = gather(w, 0, wrap(max_rows)) if bags else basic_getitem(rows, (slice(0, 0),))
        output = mul(picked, wrap(filled[:, None].astype(wd.dtype)))
        max_indices = wrap(max_rows.astype(out_dtype))
    else:
        contrib = rows
        if per_sample_weights is not None:
            contrib = mul(contrib, unsqueeze(reshape(per_sample_weights, (-1,)), 1))
        if padding_idx is not None:
            contrib = mul(contrib, wrap(keep[:, None].astype(wd.dtype)))
        if not bags:
            output = basic_getitem(contrib, (slice(0, 0),))  # (0, dim), still a function of the weight
        else:  # with include_last_offset, indices past the last offset count in the last bag (torch's double kernel)
            output = index_add(zeros, 0, wrap(offset2bag), contrib) if length else zeros
        if mode == 1:
            output = div(output, wrap(np.maximum(counts, 1)[:, None].astype(wd.dtype)))
            max_indices = wrap(counts.astype(out_dtype))
        else:
            # torch's sum kernel sizes these by the offsets given when it records no gradient
            recording = GRAD.enabled and (w._requires_grad or (per_sample_weights is not None
                                                              and per_sample_weights._requires_grad))
            sizes = off.shape[0] if include_last_offset and not recording else bags
            max_indices = wrap(np.zeros(sizes, dtype=out_dtype))
    bag_size = wrap(counts.astype(out_dtype) if mode else np.zeros(max_indices._data.shape, out_dtype))
    if mode == 0 and wd.dtype in (np.float32, np.float16) and padding_idx is None:
        offset2bag = offset2bag[:0]  # torch's fast float sum path does not compute it
    return output, wrap(offset2bag.astype(out_dtype)), bag_size, max_indices


@op(namespace=NN_FUNCTIONAL)
def embedding_bag(input: Tensor, weight: Tensor, offsets: Tensor | None = None, max_norm: float | None = None,
                  norm_type: float = 2, scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                  per_sample_weights: Tensor | None = None, include_last_offset: bool = False,
                  padding_idx: int | None = None) -> Tensor:
    """Sums, means or maxima of bags of rows of ``weight``, without building the rows.

    ``input`` is ``(B, N)`` (``B`` bags of ``N`` indices) or 1-D with ``offsets`` giving where each bag starts
    (with ``include_last_offset`` the last offset ends the last bag). ``per_sample_weights`` weights each
    index (mode ``'sum'`` only); indices equal to ``padding_idx`` are left out. Empty bags give zeros.
    """
    x = tensor_arg(input, "embedding_bag")
    w = tensor_arg(weight, "embedding_bag", "weight", 2)
    if w._data.dtype == np.int64 and x._data.dtype.kind == "f":
        warnings.warn("Argument order of nn.functional.embedding_bag was changed. Usage `embedding_bag(weight, "
                      "input, ...)` is deprecated, and should now be `embedding_bag(input, weight, ...)`.",
                      stacklevel=2)
        w, x = x, w
    if per_sample_weights is not None and x.shape != per_sample_weights.shape:
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape!r}) is not None, then it "
                         f"must have the same shape as the input ({x.shape!r})")
    if w.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {w.dim()}")
    if x.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             f"fixed length sequences. However, found offsets of type {type(offsets)}")
        offsets = wrap(np.arange(0, x._data.size, x._data.shape[1], dtype=x._data.dtype)) if x._data.shape[1] \
            else wrap(np.zeros(x._data.shape[0], dtype=x._data.dtype))
        include_last_offset = False
        x = reshape(x, (-1,))
        if per_sample_weights is not None:
            per_sample_weights = reshape(per_sample_weights, (-1,))
    elif x.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {x.dim()}")
    if mode not in _MODES:
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")
    if max_norm is not None:
        if x._data.dtype not in (np.int32, np.int64):
            raise RuntimeError("Expected tensor for argument #2 'indices' to have one of the following scalar types: "
                               f"Long, Int; but got {legacy_type_name(x._data.dtype)} instead (while checking arguments "
                               "for embedding_renorm_)")
        embedding_renorm_(w, x._data.reshape(-1), max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError("embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
                                  "GitHub.")
    return embedding_bag_core(w, x, offsets, scale_grad_by_freq, _MODES[mode], per_sample_weights,
                              include_last_offset, padding_idx)[0]
