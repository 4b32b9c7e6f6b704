"""Sorting and searching: sort, argsort, msort, topk, kthvalue, unique, unique_consecutive, bincount, searchsorted,
bucketize.
"""

from __future__ import annotations

from typing import Any, Literal, cast

import numpy as np

from .._autograd.graph import rename_grad_fn
from .._dtype import FROM_NP
from .._registry import op
from .._tensor import Tensor, wrap_dim
from ..return_types import kthvalue as _kth_t, sort as _sort_t, topk as _topk_t
from ._util import GRAD, check_sortable, not_implemented, real_only, tensor_arg, wrap, write_outs
from .conversion import clone
from .indexing import gather
from .shape import reshape, squeeze

# -- sorting -------------------------------------------------------------------------------


def _sort_indices(a: np.ndarray, d: int, descending: bool) -> np.ndarray:
    """Stable sorting indices along ``d`` (NaN last ascending, first descending, as torch); the ndarray methods and
    slicing, not np.argsort/np.flip, which are Python layers over them."""
    if not descending:
        return a.argsort(axis=d, kind="stable")
    n = a.shape[d]
    flip = (slice(None),) * d + (slice(None, None, -1),)
    # sorting the reversed slice and reversing back keeps equal elements in their order, largest first
    return n - 1 - a[flip].argsort(axis=d, kind="stable")[flip]


def _top_indices(a: np.ndarray, d: int, k: int, largest: bool) -> np.ndarray:
    """``_sort_indices(a, d, largest)``'s first ``k`` along ``d`` (int64), without sorting whole rows.

    A partition finds each row's k-th value; the elements beyond it and, among those equal to it, the first ones
    (in index order) are the k selected, exactly the stable sort's; only they are sorted. Rows with NaN (whose
    order the comparisons cannot tell) and small rows take the full sort.
    """
    n = a.shape[d]
    if k == 0 or 2 * k > n or n < 32 or a.dtype.kind == "b" or (a.dtype.kind in "fc" and np.isnan(a).any()):
        return _sort_indices(a, d, largest)[(slice(None),) * d + (slice(0, k),)].astype(np.int64)
    rows = np.moveaxis(a, d, -1)
    shape = rows.shape
    rows = rows.reshape(-1, n)
    kth = np.partition(rows, n - k if largest else k - 1, axis=1)[:, n - k if largest else k - 1, None]
    selected = rows >= kth if largest else rows <= kth
    if (np.count_nonzero(selected, axis=1) == k).all():
        # no row has a tie across the k-th value: the k selected are the elements up to it, in index order
        idx = np.nonzero(selected)[1].reshape(-1, k)
        order = _sort_indices(np.take_along_axis(rows, idx, axis=1), 1, largest)
        idx = np.take_along_axis(idx, order, axis=1).astype(np.int64)
        return np.moveaxis(idx.reshape(shape[:-1] + (k,)), -1, d)
    beyond = rows > kth if largest else rows < kth
    ties = rows == kth
    wanted = k - np.add.reduce(beyond, axis=1, keepdims=True)  # how many of the ties, first ones first
    chosen = beyond | (ties & (np.cumsum(ties, axis=1) <= wanted))
    idx = np.nonzero(chosen)[1].reshape(-1, k)  # row by row, in index order
    order = _sort_indices(np.take_along_axis(rows, idx, axis=1), 1, largest)
    idx = np.take_along_axis(idx, order, axis=1).astype(np.int64)
    return np.moveaxis(idx.reshape(shape[:-1] + (k,)), -1, d)


def kth_indices(a: np.ndarray, d: int, k: int) -> np.ndarray:
    """The index the stable ascending sort puts at position ``k`` (0-based) along ``d`` (kept with size 1), int64.

    A partition finds each row's k-th value; among the elements equal to it, the stable sort puts them in index
    order after the smaller ones: the one at position ``k`` is found by counting. Rows with NaN and small rows take
    the full sort.
    """
    n = a.shape[d]
    if n < 32 or a.dtype.kind == "b" or (a.dtype.kind in "fc" and np.isnan(a).any()):
        return np.take(_sort_indices(a, d, False), [k], axis=d).astype(np.int64)
    rows = np.moveaxis(a, d, -1)
    shape = rows.shape
    rows = rows.reshape(-1, n)
    kth = np.partition(rows, k, axis=1)[:, k, None]
    ties = rows == kth
    # the (k - number of smaller elements)-th tie, counting from 0, in index order
    wanted = k - np.add.reduce(rows < kth, axis=1, keepdims=True)
    idx = np.argmax(ties & (np.cumsum(ties, axis=1) == wanted + 1), axis=1).astype(np.int64)
    return np.moveaxis(idx.reshape(shape[:-1] + (1,)), -1, d)


def _values_at(x: Tensor, d: int, idx: np.ndarray, node_name: str) -> Tensor:
    """The elements of ``x`` at ``idx`` along ``d``: a gather recorded as ``node_name`` when ``x`` has history to
    record, else taken straight from the array."""
    if x._requires_grad and GRAD.enabled:
        return rename_grad_fn(gather(x, d, wrap(idx)), node_name)
    return wrap(np.take_along_axis(x._data, idx, axis=d))


@op(variants="function method")
def argsort(input: Tensor, dim: int = -1, descending: bool = False, stable: bool = False) -> Tensor:
    """The indices that sort ``input`` along ``dim``."""
    x = tensor_arg(input, "argsort")
    a = x._data
    check_sortable(a, "sort")
    d = wrap_dim(dim, a.ndim)
    if a.ndim == 0:
        return wrap(np.zeros((), dtype=np.int64))
    return wrap(_sort_indices(a, d, descending).astype(np.int64))


@op(variants="function method")
def sort(input: Tensor, dim: int = -1, descending: bool = False, stable: bool = False, *, out: Any = None) -> Any:
    """``(values, indices)`` of ``input`` sorted along ``dim``."""
    x = tensor_arg(input, "sort")
    a = x._data
    check_sortable(a, "sort")
    d = wrap_dim(dim, a.ndim)
    if a.ndim == 0:
        res = _sort_t(clone(x), wrap(np.zeros((), dtype=np.int64)))
    else:
        idx = _sort_indices(a, d, descending).astype(np.int64)
        res = _sort_t(_values_at(x, d, idx, "SortBackward0"), wrap(idx))
    return res if out is None else write_outs(out, res, "sort")


@op(variants="function method")
def msort(input: Tensor) -> Tensor:
    """``input`` sorted along dim 0."""
    return sort(input, 0).values


@op(variants="function method")
def topk(input: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True) -> Any:  # noqa: A002
    """The ``k`` largest (or smallest) elements along ``dim`` and their indices."""
    x = tensor_arg(input, "topk")
    a = x._data
    check_sortable(a, "topk")
    work = a if a.ndim else a.reshape(1)
    d = wrap_dim(dim, work.ndim)
    n = work.shape[d]
    if k < 0 or k > n:
        raise RuntimeError("selected index k out of range")
    idx = _top_indices(work, d, k, largest)
    if not a.ndim:  # a 0-d input: k is 0 or 1, and the results keep its 0-d shape (empty when k is 0)
        idx = idx.reshape(()) if idx.size else idx.reshape(0)
        return _topk_t(rename_grad_fn(gather(reshape(x, (1,)), 0, wrap(idx.reshape(-1))).reshape(idx.shape),
                                      "TopkBackward0"), wrap(idx))
    return _topk_t(_values_at(x, d, idx, "TopkBackward0"), wrap(idx))


@op(variants="function method")
def kthvalue(input: Tensor, k: int, dim: int = -1, keepdim: bool = False) -> Any:
    """The ``k``-th smallest element along ``dim`` (1-based) and its index."""
    x = tensor_arg(input, "kthvalue")
    a = x._data
    check_sortable(a, "kthvalue")
    d = wrap_dim(dim, a.ndim)
    if not 1 <= k <= (a.shape[d] if a.ndim else 1):
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    idx = kth_indices(a, d, k - 1) if a.ndim else np.zeros((), np.int64)
    values = gather(x, d, wrap(idx))

    if not keepdim:
        values = squeeze(values, d)
        idx = np.squeeze(idx, d)
    return _kth_t(rename_grad_fn(values, "KthvalueBackward0"), wrap(idx))


@op(variants="function method")
def unique(input: Tensor, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False, dim: int | None = None) -> Any:  # noqa: A002
    """The distinct elements (sorted), optionally with inverse indices and counts."""
    x = tensor_arg(input, "unique")
    if x._data.dtype.kind == "c":
        raise not_implemented("unique", x._data.dtype)
    if dim is not None and x._data.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    if dim is not None:
        vals, inv, counts = np.unique(x._data, return_inverse=True, return_counts=True, axis=wrap_dim(dim, x._data.ndim))
    else:
        vals, inv, counts = np.unique(x._data, return_inverse=True, return_counts=True)
        inv = inv.reshape(x._data.shape)
    out: list = [wrap(vals)]
    if return_inverse:
        out.append(wrap(inv.astype(np.int64)))
    if return_counts:
        out.append(wrap(counts.astype(np.int64)))
    return out[0] if len(out) == 1 else tuple(out)


@op(variants="function method")
def unique_consecutive(input: Tensor, return_inverse: bool = False, return_counts: bool = False, dim: int | None = None) -> Any:
    """Collapse runs of equal elements (of equal slices along ``dim``), optionally with inverse indices and counts."""
    x = tensor_arg(input, "unique_consecutive")
    a = x._data
    if dim is None:
        flat = a.reshape(-1)
        starts = np.concatenate([[True], flat[1:] != flat[:-1]]) if flat.size else np.zeros(0, dtype=bool)
        vals = flat[starts]
        inv_shape = a.shape
    else:
        if a.ndim == 0:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        d = wrap_dim(dim, a.ndim)
        if any(size == 0 for k, size in enumerate(a.shape) if k != d):
            raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so unique cannot be applied")
        moved = np.moveaxis(a, d, 0)
        n = moved.shape[0]
        width = int(np.prod(moved.shape[1:]))
        diff = (moved[1:] != moved[:-1]).reshape(max(n - 1, 0), width).any(axis=1)
        starts = np.concatenate([[True], diff]) if n else np.zeros(0, dtype=bool)
        vals = np.moveaxis(moved[starts], 0, d)
        inv_shape = (n,)
    run = np.cumsum(starts) - 1
    out: list = [wrap(np.ascontiguousarray(vals))]
    if return_inverse:
        out.append(wrap(run.reshape(inv_shape).astype(np.int64)))
    if return_counts:
        out.append(wrap(np.diff(np.append(np.flatnonzero(starts), starts.size)).astype(np.int64)))
    return out[0] if len(out) == 1 else tuple(out)


@op(variants="function method")
def bincount(input: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
    """Count occurrences of each non-negative integer."""
    x = tensor_arg(input, "bincount")
    a = x._data
    if a.ndim != 1 or a.dtype.kind not in "iu":
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if a.size and a.min() < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    w = None if weights is None else tensor_arg(weights, "bincount", "weights", 2)._data
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if w is not None and (w.ndim != 1 or w.shape[0] != a.shape[0]):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    r = np.bincount(a, weights=w, minlength=minlength)
    if w is None:
        return wrap(r.astype(np.int64))
    # float weights keep their dtype; other weights count in double
    return wrap(r.astype(w.dtype if w.dtype.kind == "f" else np.float64))


@op()
def searchsorted(sorted_sequence: Tensor, input: Any, *, out_int32: bool = False, right: bool = False, side: str | None = None, sorter: Tensor | None = None) -> Tensor:
    """Indices where ``input`` would be inserted into the (last dim of the) sorted sequence."""
    seq = tensor_arg(sorted_sequence, "searchsorted", "sorted_sequence")._data
    real_only("searchsorted_out_cpu", sorted_sequence, input)
    for t in (sorted_sequence, input):
        if isinstance(t, Tensor) and t._data.dtype.kind == "b":
            raise not_implemented("searchsorted_out_cpu", t._data.dtype)
    if seq.ndim == 0:
        raise RuntimeError("tensorlib.searchsorted(): boundaries tensor should have positive dimension, but got 0 "
                           "dimension")
    if not isinstance(input, (Tensor, bool, int, float, np.number, np.bool_)):
        raise TypeError("searchsorted() received an invalid combination of arguments - got (Tensor, "
                        f"{type(input).__name__}), but expected (Tensor sorted_sequence, Tensor input) or "
                        "(Tensor sorted_sequence, Number self)")
    v = input._data if isinstance(input, Tensor) else np.asarray(input)
    if side is not None and not isinstance(side, str):
        raise TypeError(f"searchsorted(): argument 'side' must be str, not {type(side).__name__}")
    if side not in (None, "left", "right"):
        raise RuntimeError(f"tensorlib.searchsorted(): side can only be 'left' or 'right' but got {side}")
    if side == "left" and right:
        raise RuntimeError("tensorlib.searchsorted(): side and right can't be set to opposites, got side of left "
                           "while right was True")
    side_ = cast(Literal["left", "right"], side or ("right" if right else "left"))
    if sorter is not None:
        order = tensor_arg(sorter, "searchsorted", "sorter")._data
        if order.shape != seq.shape:
            raise RuntimeError("torch.searchsorted(): boundary and sorter must have the same size, but got boundary "
                               f"tensor {list(seq.shape)}and got sorter tensor {list(order.shape)}")
        if order.dtype != np.int64:
            raise RuntimeError(f"torch.searchsorted(): sorter must be a tensor of long dtype but got dtype "
                               f"{FROM_NP[order.dtype]}")
        if order.size and (order.min() < 0 or order.max() >= seq.shape[-1]):
            raise RuntimeError("torch.searchsorted(): sorter index out of range")
        seq = np.take_along_axis(seq, order, -1)
    if seq.ndim == 1:
        r = np.searchsorted(seq, v, side=side_)
    else:
        if v.ndim == 0:
            raise RuntimeError("torch.searchsorted(): input value can be a scalar only when boundaries tensor dimension "
                               f"is 1, but we got boundaries tensor dim({seq.ndim}) and input value's dim(0) numel(1)")
        if v.shape[:-1] != seq.shape[:-1]:
            raise RuntimeError("torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
                               "dimensions of boundaries tensor and input value tensor must match, but we got "
                               f"boundaries tensor {list(seq.shape)} and input value tensor {list(v.shape)}")
        rows = int(np.prod(seq.shape[:-1]))
        flat_s = seq.reshape(rows, seq.shape[-1])
        flat_v = v.reshape(rows, v.shape[-1])
        r = np.zeros(flat_v.shape, np.int64)
        for i in range(rows):
            r[i] = np.searchsorted(flat_s[i], flat_v[i], side=side_)
        r = r.reshape(v.shape)
    return wrap(np.asarray(r).astype(np.int32 if out_int32 else np.int64))


@op()
def bucketize(input: Any, boundaries: Tensor, *, out_int32: bool = False, right: bool = False) -> Tensor:
    """Bucket index of each element of ``input`` given 1-D sorted ``boundaries``."""
    b = tensor_arg(boundaries, "bucketize", "boundaries", 2)
    if not isinstance(input, (Tensor, int, float)) or isinstance(input, bool):
        raise TypeError(f"bucketize(): argument 'input' (position 1) must be Tensor or Number, not "
                        f"{type(input).__name__}")
    if b._data.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({b._data.ndim})")
    return searchsorted(b, input, out_int32=out_int32, right=right)
