"""Joining and splitting: cat, stack, hstack, vstack, dstack, column_stack, block_diag, cartesian_prod; split, chunk,
tensor_split, hsplit, vsplit, dsplit, unbind.

Built on the views in ``shape`` (pieces are ``narrow``/``select`` views); ``shape`` re-exports these names.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .._autograd.engine import edge
from .._autograd.graph import Node, new_node, rename_grad_fn
from .._dtype import DEFAULT, FROM_NP, PROMOTE
from .._registry import op
from .._tensor import Tensor, _make_view, wrap_dim
from ._util import GRAD, int_arg, int_list_arg, record, tensor_arg, type_title, wrap, write_out
from .broadcast import meshgrid
from .indexing import narrow, select
from .shape import atleast_1d, atleast_2d, atleast_3d, reshape

# -- concatenation and splitting ----------------------------------------------------------


class CatBackward0(Node):
    __slots__ = ("dim", "sizes")
    dim: int
    sizes: list[int | None]

    def apply(self, grads: list) -> tuple:
        g = grads[0]
        out: list[Tensor | None] = []
        start = 0
        for i, n in enumerate(self.sizes):
            if n is None:  # a skipped empty 1-D input
                out.append(None)
                continue
            out.append(narrow(g, self.dim, start, n) if self.needs(i) else None)
            start += n
        return tuple(out)


def _tensor_list(tensors: Any, fname: str) -> list[Tensor]:
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{fname}(): argument 'tensors' (position 1) must be tuple of Tensors, not {type(tensors).__name__}")
    out = []
    for i, t_ in enumerate(tensors):
        if not isinstance(t_, Tensor):
            raise TypeError(f"{fname}(): argument 'tensors' (position 1) must be tuple of Tensors, but found element of type {type(t_).__name__} at pos {i}")
        out.append(t_)
    if not out:
        if fname == "cat":
            raise ValueError("tensorlib.cat(): expected a non-empty list of Tensors")
        raise RuntimeError(f"{fname} expects a non-empty TensorList")
    return out


@op(aliases=("concat", "concatenate"))
def cat(tensors: Sequence[Tensor], dim: int = 0, *, out: Tensor | None = None) -> Tensor:
    """Join tensors along an existing dim."""
    ts = _tensor_list(tensors, "cat")
    fast = _cat_arrays(ts, dim)
    if fast is not None:
        r, d = fast
        skip = [False] * len(ts)
    else:
        r, d, skip = _cat_checked(ts, dim)
    if GRAD.enabled and any([t_._requires_grad for t_ in ts]):  # a list: a generator costs several times more
        res, node = record(CatBackward0, r, ts)
        node.dim = d
        node.sizes = [None if sk else t_._data.shape[d] for t_, sk in zip(ts, skip)]
        return res if out is None else write_out(out, res, "cat")
    res = wrap(r)
    return res if out is None else write_out(out, res, "cat")


def _cat_arrays(ts: list[Tensor], dim: Any) -> tuple[np.ndarray, int] | None:
    """The usual cat (tensors of one dtype and rank, none 1-D empty, an int dim in range) done by NumPy, whose
    shape rule is torch's; None for anything else, or when NumPy refuses: :func:`_cat_checked` has torch's errors."""
    ref = ts[0]._data
    n, dt = ref.ndim, ref.dtype
    if not n or type(dim) is not int or not -n <= dim < n:
        return None
    arrays = []
    for t_ in ts:
        a = t_._data
        if a.dtype is not dt or a.ndim != n or (n == 1 and not a.shape[0]):
            return None
        arrays.append(a)
    try:
        return np.concatenate(arrays, axis=dim), dim % n
    except ValueError:
        return None


def _cat_checked(ts: list[Tensor], dim: Any) -> tuple[np.ndarray, int, list[bool]]:
    """cat's arrays with torch's checks, promotion and errors: the joined array, the dim and the skipped inputs."""
    # torch skips 1-D empty tensors for backward compatibility
    skip = [t_._data.shape == (0,) for t_ in ts]
    parts = [t_ for t_, sk in zip(ts, skip) if not sk]
    if not parts:
        parts, skip = ts[:1], [False] + skip[1:]
    ref = parts[0]._data
    if ref.ndim == 0:
        raise RuntimeError("zero-dimensional tensor (at position 0) cannot be concatenated")
    d = wrap_dim(dim, ref.ndim)
    for i, p in enumerate(parts):
        s = p._data.shape
        if len(s) != ref.ndim:
            raise RuntimeError(
                f"Tensors must have same number of dimensions: got {ref.ndim} and {len(s)}"
            )
        for k in range(ref.ndim):
            if k != d and s[k] != ref.shape[k]:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {d}. Expected size {ref.shape[k]} but got size "
                    f"{s[k]} for tensor number {i} in the list."
                )
    dt = parts[0]._data.dtype
    for p in parts[1:]:
        if p._data.dtype != dt:

            dt = PROMOTE[(FROM_NP[dt], FROM_NP[p._data.dtype])].np
    return np.concatenate([p._data for p in parts], axis=d, dtype=dt), d, skip


concat = concatenate = cat


@op()
def stack(tensors: Sequence[Tensor], dim: int = 0, *, out: Tensor | None = None) -> Tensor:
    """Join tensors of equal shape along a new dim."""
    ts = _tensor_list(tensors, "stack")
    arrays = [t_._data for t_ in ts]
    first = arrays[0]
    shape, dt = first.shape, first.dtype
    one_dtype = True
    for i, a in enumerate(arrays):  # one pass: the shapes must agree, the dtypes may differ (promoted below)
        if a.shape != shape:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(shape)} at entry 0 and "
                f"{list(a.shape)} at entry {i}"
            )
        if a.dtype is not dt:
            one_dtype = False
    d = wrap_dim(dim, len(shape) + 1)
    if not one_dtype:
        for a in arrays[1:]:
            if a.dtype != dt:
                dt = PROMOTE[(FROM_NP[dt], FROM_NP[a.dtype])].np
    if d == 0 and one_dtype:
        r = np.array(arrays)  # equal shapes and dtypes: NumPy lays them out one after another in C
    else:
        new_shape = shape[:d] + (1,) + shape[d:]
        # what np.stack does, without its Python layer: a size-1 dim inserted by reshape (never a copy), then joined
        r = np.concatenate([a.reshape(new_shape) for a in arrays], axis=d, dtype=dt)
    if GRAD.enabled and any([t_._requires_grad for t_ in ts]):
        res, node = record(StackBackward0, r, ts)
        node.dim = d
    else:
        res = wrap(r)
    return res if out is None else write_out(out, res, "stack")


class StackBackward0(Node):
    __slots__ = ("dim",)
    dim: int

    def apply(self, grads: list) -> tuple:
        g = grads[0]
        return tuple(select(g, self.dim, i) if self.needs(i) else None for i in range(len(self.next_functions)))


@op()
def hstack(tensors: Sequence[Tensor], *, out: Tensor | None = None) -> Tensor:
    """Concatenate horizontally (dim 1, or dim 0 for 1-D tensors)."""
    ts = [atleast_1d(t_) for t_ in _tensor_list(tensors, "hstack")]
    return cat(ts, 0 if ts[0]._data.ndim == 1 else 1, out=out)


@op(aliases=("row_stack",))
def vstack(tensors: Sequence[Tensor], *, out: Tensor | None = None) -> Tensor:
    """Concatenate vertically (after making tensors at least 2-D)."""
    ts = [atleast_2d(t_) for t_ in _tensor_list(tensors, "vstack")]
    return cat(ts, 0, out=out)



@op(variants="function method")
def unbind(input: Tensor, dim: int = 0) -> tuple:
    """All slices along ``dim``, as a tuple of views."""
    x = tensor_arg(input, "unbind")
    a = x._data
    if a.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = wrap_dim(dim, a.ndim)
    if not (x._requires_grad and GRAD.enabled):
        # nothing to record: the slices as NumPy makes them (iterating a matrix yields its rows as views; a
        # vector's elements need the Ellipsis to stay 0-d arrays), each wrapped as a view of x
        rows = a if d == 0 else np.moveaxis(a, d, 0)
        if rows.ndim == 1:
            return tuple([_make_view(x, rows[i, ...]) for i in range(rows.shape[0])])
        return tuple([_make_view(x, r) for r in rows])
    n = a.shape[d]
    # (the Ellipsis keeps a vector's elements 0-d arrays, views of it, not NumPy scalars)
    return _pieces(x, UnbindBackward0, d, [1] * n, [(slice(None),) * d + (i, ...) for i in range(n)])


@op(variants="function method")
def split(tensor: Tensor, split_size_or_sections: Any, dim: int = 0) -> tuple:
    """Split into chunks of ``split_size`` (the last may be smaller) or of the given section sizes."""
    x = tensor_arg(tensor, "split", "tensor")
    a = x._data
    if a.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = wrap_dim(dim, a.ndim)
    size = a.shape[d]
    if isinstance(split_size_or_sections, (list, tuple)):
        sections = int_list_arg(split_size_or_sections, "split_with_sizes", "split_sizes", 2)
        if sum(sections) != size:
            raise RuntimeError(
                f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's size at dimension "
                f"{d}), but got split_sizes={sections}"
            )
    else:
        if isinstance(split_size_or_sections, bool) or not isinstance(split_size_or_sections, (int, np.integer,
                                                                                                 Tensor)):
            raise TypeError("split_with_sizes(): argument 'split_sizes' (position 2) must be tuple of ints, not "
                            f"{type(split_size_or_sections).__name__}")
        n = int(split_size_or_sections)
        if n < 0:
            raise RuntimeError(f"split expects split_size be non-negative, but got split_size={n}")
        if n == 0 and size:
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}")
        sections = [n] * (size // n) + ([size % n] if size % n else []) if n and size else [0]
    keys, start = [], 0
    for n in sections:
        keys.append((slice(None),) * d + (slice(start, start + n),))
        start += n
    if not (x._requires_grad and GRAD.enabled):
        return tuple([_make_view(x, a[k]) for k in keys])
    cls = SplitWithSizesBackward0 if isinstance(split_size_or_sections, (list, tuple)) else SplitBackward0
    return _pieces(x, cls, d, sections, keys)


class SplitBackward0(Node):
    """The pieces of one tensor along ``dim`` (views of it), as one node with an output per piece, as torch
    records ``split``: its backward puts the pieces' gradients together in one pass (zeros for unused pieces),
    where a node per piece would add a zero-padded full-size gradient per piece."""

    __slots__ = ("dim", "sizes", "shape", "num_outputs")
    dim: int
    sizes: list[int]
    shape: tuple[int, ...]
    num_outputs: int  # (an instance slot here: one output per piece)

    def _join(self, parts: list) -> Any:
        return cat(parts, self.dim)

    def _join_arrays(self, parts: list) -> np.ndarray:
        return np.concatenate(parts, axis=self.dim)

    def _key(self, start: int, n: int) -> tuple:
        """Where piece ``start:start + n`` is in the whole."""
        return (slice(None),) * self.dim + (slice(start, start + n),)

    def _zeros(self, i: int, like: Tensor) -> np.ndarray:
        shape = list(self.shape)
        shape[self.dim] = self.sizes[i]
        return np.zeros(shape, dtype=like._data.dtype)

    def apply(self, grads: list) -> tuple:
        present = [g for g in grads if g is not None]
        if not present:
            return (None,)
        first = present[0]
        if not GRAD.enabled and all(type(g) is Tensor and g._data.dtype is first._data.dtype for g in present):
            # nothing to record: the gradient in one pass, on the arrays
            if len(present) == len(grads):
                return (wrap(self._join_arrays([g._data for g in grads])),)
            full = np.zeros(self.shape, dtype=first._data.dtype)
            start = 0
            for g, n in zip(grads, self.sizes):
                if g is not None:
                    full[self._key(start, n)] = g._data
                start += n
            return (wrap(full),)
        parts = [g if g is not None else wrap(self._zeros(i, first)) for i, g in enumerate(grads)]
        return (self._join(parts),)


class SplitWithSizesBackward0(SplitBackward0):
    __slots__ = ()


class UnbindBackward0(SplitBackward0):
    """``unbind``'s node: the slices' gradients stacked along ``dim``."""

    __slots__ = ()

    def _join(self, parts: list) -> Any:
        return stack(parts, self.dim)

    def _join_arrays(self, parts: list) -> np.ndarray:
        return np.stack(parts, axis=self.dim)

    def _key(self, start: int, n: int) -> tuple:
        return (slice(None),) * self.dim + (start,)

    def _zeros(self, i: int, like: Tensor) -> np.ndarray:
        return np.zeros(self.shape[:self.dim] + self.shape[self.dim + 1:], dtype=like._data.dtype)


def _pieces(x: Tensor, node_cls: type, dim: int, sizes: list[int], keys: list[tuple]) -> tuple:
    """Views of ``x`` at ``keys``, the outputs of one new ``node_cls`` node (one output per view)."""
    a = x._data
    node = new_node(node_cls, (edge(x),))
    node.dim, node.sizes, node.shape, node.num_outputs = dim, sizes, a.shape, len(keys)
    out = []
    for i, k in enumerate(keys):
        t = _make_view(x, a[k])
        t._grad_fn = node
        t._requires_grad = True
        if i:
            t._get_meta().output_nr = i
        out.append(t)
    return tuple(out)


def sizes_arg(v: Any, fname: str) -> list[int]:
    """A ``split_sizes`` argument: a list or tuple of ints."""
    if isinstance(v, Tensor) or not isinstance(v, (list, tuple)):
        raise TypeError(f"{fname}(): argument 'split_sizes' (position 2) must be tuple of ints, not {type(v).__name__}")
    return int_list_arg(v, fname, "split_sizes", 2)


@op(variants="function method")
def split_with_sizes(input: Tensor, split_sizes: Sequence[int], dim: int = 0) -> tuple:
    """Views of consecutive pieces of ``dim`` with the given sizes (which must add up to its length)."""
    return split(tensor_arg(input, "split_with_sizes"), sizes_arg(split_sizes, "split_with_sizes"), dim)


@op(variants="function method")
def chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple:
    """Split into ``chunks`` nearly equal pieces (the last may be smaller; fewer if not divisible)."""
    x = tensor_arg(input, "chunk")
    if x._data.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    chunks = int_arg(chunks, "chunk", "chunks", 2)
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    size = x._data.shape[wrap_dim(dim, x._data.ndim)]
    if size == 0:  # an empty dim gives ``chunks`` empty pieces
        return split(x, [0] * chunks, dim)
    return split(x, -(-size // chunks), dim)


@op(variants="function method")
def tensor_split(input: Tensor, indices_or_sections: Any, dim: int = 0) -> tuple:
    """Split into ``n`` parts as equal as possible, or at the given indices."""
    x = tensor_arg(input, "tensor_split")
    if x._data.ndim == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    d = wrap_dim(dim, x._data.ndim)
    size = x._data.shape[d]
    if isinstance(indices_or_sections, Tensor):
        v = indices_or_sections._data
        if v.ndim > 1:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                               f"one-dimensional tensor, but got a tensor with {v.ndim} dims")
        if v.dtype != np.int64:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
                               f"{type_title(v.dtype)}")
        indices_or_sections = int(v) if v.ndim == 0 else [int(i) for i in v]
    elif not isinstance(indices_or_sections, (int, list, tuple)) or isinstance(indices_or_sections, bool):
        raise TypeError(f"tensor_split(): argument 'indices' must be tuple of ints, not "
                        f"{type(indices_or_sections).__name__}")
    if isinstance(indices_or_sections, int):
        n = int_arg(indices_or_sections, "tensor_split", "sections", 2)
        if n <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {n}")
        q, r = divmod(size, n)
        bounds = [0]
        for k in range(n):
            bounds.append(bounds[-1] + q + (1 if k < r else 0))
    else:
        # slices between consecutive indices, clipped like Python slicing (empty when they cross)
        indices = int_list_arg(indices_or_sections, "tensor_split", "indices", 2)
        bounds = [0] + [max(min(i + size if i < 0 else i, size), 0) for i in indices] + [size]
    pieces = []
    for a, b in zip(bounds[:-1], bounds[1:]):
        pieces.append(narrow(x, d, a, max(b - a, 0)))
    return tuple(pieces)



def _split_at(fname: str, x: Tensor, sections: Any, dim: int, min_dims: int) -> tuple:
    if x._data.ndim < min_dims:
        raise RuntimeError(
            f"tensorlib.{fname} requires a tensor with at least {min_dims} dimension, but got a tensor with "
            f"{x._data.ndim} dimensions!"
        )
    if isinstance(sections, int) and (sections == 0 or x._data.shape[dim] % sections):
        raise RuntimeError(
            f"tensorlib.{fname} attempted to split along dimension {dim}, but the size of the dimension "
            f"{x._data.shape[dim]} is not divisible by the split_size {sections}!"
        )
    return tensor_split(x, sections, dim)


@op(variants="function method")
def hsplit(input: Tensor, indices_or_sections: Any) -> tuple:
    """Split along dim 1 (dim 0 for 1-D tensors) into equal sections or at indices."""
    x = tensor_arg(input, "hsplit")
    return _split_at("hsplit", x, indices_or_sections, 1 if x._data.ndim > 1 else 0, 1)


@op(variants="function method")
def vsplit(input: Tensor, indices_or_sections: Any) -> tuple:
    """Split along dim 0 into equal sections or at indices."""
    return _split_at("vsplit", tensor_arg(input, "vsplit"), indices_or_sections, 0, 2)


@op(variants="function method")
def dsplit(input: Tensor, indices_or_sections: Any) -> tuple:
    """Split along dim 2 into equal sections or at indices."""
    return _split_at("dsplit", tensor_arg(input, "dsplit"), indices_or_sections, 2, 3)



@op()
def column_stack(tensors: Sequence[Tensor], *, out: Tensor | None = None) -> Tensor:
    """Stack as columns: 0-D and 1-D tensors become ``(n, 1)`` columns, then join along dim 1."""
    ts = [reshape(t_, (-1, 1)) if t_._data.ndim <= 1 else t_ for t_ in _tensor_list(tensors, "column_stack")]
    return cat(ts, 1, out=out)


@op()
def dstack(tensors: Sequence[Tensor], *, out: Tensor | None = None) -> Tensor:
    """Join along dim 2 after making every tensor at least 3-D."""
    return cat([atleast_3d(t_) for t_ in _tensor_list(tensors, "dstack")], 2, out=out)


row_stack = vstack



@op()
def cartesian_prod(*tensors: Tensor) -> Tensor:
    """Every combination of the 1-D tensors' elements, as rows."""
    ts = [tensor_arg(t_, "cartesian_prod", "tensors", i + 1) for i, t_ in enumerate(tensors)]
    for t_ in ts:
        if t_._data.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t_._data.shape)}")
    if len(ts) == 1:
        return ts[0]
    return stack([reshape(g, (-1,)) for g in meshgrid(*ts, indexing="ij")], 1)


@op()
def block_diag(*tensors: Tensor) -> Tensor:
    """A block-diagonal matrix from 0-D, 1-D (a row) and 2-D tensors."""
    ts = []
    for i, t_ in enumerate(tensors):
        t_ = tensor_arg(t_, "block_diag", "tensors", i + 1)
        if t_._data.ndim > 2:
            raise RuntimeError(
                f"tensorlib.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has {t_._data.ndim} dimensions"
            )
        ts.append(reshape(t_, (1, -1)) if t_._data.ndim < 2 else t_)
    if not ts:
        return wrap(np.zeros((1, 0), dtype=DEFAULT.np_float))

    dt = ts[0]._data.dtype
    for t_ in ts[1:]:
        dt = PROMOTE[(FROM_NP[dt], FROM_NP[t_._data.dtype])].np
    width = sum(t_._data.shape[1] for t_ in ts)
    rows, left = [], 0
    for t_ in ts:
        h, w = t_._data.shape
        pieces = [wrap(np.zeros((h, left), dtype=dt)), t_, wrap(np.zeros((h, width - left - w), dtype=dt))]
        rows.append(cat(pieces, 1))
        left += w
    return rename_grad_fn(cat(rows, 0), "BlockDiagBackward0")
