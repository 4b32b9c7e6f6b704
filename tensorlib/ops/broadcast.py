"""Broadcasting and its adjoint: ``expand`` (and the ops built on it) and ``sum``.

The two are each other's gradient, so they live together: the backward of
``expand`` sums, the backward of ``sum`` expands. ``reduce_to`` is what every
binary op's backward uses to sum a gradient back to a broadcast operand's shape.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from .._autograd.graph import Node
from .._registry import op, public
from .._size import Size
from .._tensor import Tensor, legacy_type_name
from ._util import GRAD, broadcast_error, normalize_dims, record, tensor_arg, wrap, write_out
from .shape import _shape_arg, _view_result, reshape

ndarray = np.ndarray


class ExpandBackward0(Node):
    __slots__ = ("shape",)
    shape: tuple[int, ...]

    def backward(self, g: Tensor) -> tuple:
        return (sum_to_size(g, self.shape),)


@op(variants="method")
def expand(input: Tensor, *sizes: Any) -> Tensor:
    """A broadcast view with ``sizes`` (-1 keeps a dim); new dims are added in front."""
    x = tensor_arg(input, "expand")
    a = x._data
    target = list(_shape_arg(sizes, "expand"))
    if len(target) < a.ndim:
        raise RuntimeError(
            f"expand({legacy_type_name(a.dtype)}{{{list(a.shape)}}}, size={target}): the number of sizes provided "
            f"({len(target)}) must be greater or equal to the number of dimensions in the tensor ({a.ndim})"
        )
    lead = len(target) - a.ndim
    for i, s in enumerate(target):
        if i < lead:
            if s < 0:
                raise RuntimeError(
                    f"The expanded size of the tensor ({s}) isn't allowed in a leading, non-existing dimension {i}"
                )
            continue
        cur = a.shape[i - lead]
        if s == -1:
            target[i] = cur
        elif s < 0:
            raise RuntimeError(f"The expanded size of the tensor ({s}) must be non-negative (only -1 keeps a size)")
        elif cur != 1 and s != cur:
            raise RuntimeError(
                f"The expanded size of the tensor ({s}) must match the existing size ({cur}) at non-singleton "
                f"dimension {i}.  Target sizes: {list(sizes[0] if len(sizes) == 1 and isinstance(sizes[0], (tuple, list, Size)) else sizes)}.  "
                f"Tensor sizes: {list(a.shape)}"
            )
    target_t = tuple(target)
    try:
        data = a.view() if target_t == a.shape else broadcast_view(a, target_t)
    except ValueError:  # NumPy's limits on a shape: beyond int64 as torch's parser says, else too many elements
        if max(target_t) >= 9223372036854775808:
            raise TypeError("expand(): argument 'size' failed to unpack the object with error \"Overflow when "
                            "unpacking long long\"") from None
        raise RuntimeError(f"expand: a view with sizes {target} has more elements than tensorlib can index") from None
    t_, node = _view_result(x, data, ExpandBackward0)
    if node is not None:
        node.shape = a.shape
    return t_


def expand_to(x: Tensor, shape: tuple) -> Tensor:
    """:func:`expand` for internal callers that already know ``shape`` is valid (no argument checks)."""
    a = x._data
    if a.shape == shape:
        return x
    t_, node = _view_result(x, broadcast_view(a, shape), ExpandBackward0)
    if node is not None:
        node.shape = a.shape
    return t_


def broadcast_view(a: np.ndarray, shape: tuple) -> np.ndarray:
    """A read-only view of ``a`` broadcast to ``shape`` (which must be valid).

    Built directly with zero strides when ``a`` is contiguous: ``np.broadcast_to``
    costs several times more on small arrays.
    """
    if a.flags.c_contiguous:
        lead = len(shape) - a.ndim
        strides = [0] * lead
        for size, have, stride in zip(shape[lead:], a.shape, a.strides):
            strides.append(0 if have == 1 and size != 1 else stride)
        r = np.ndarray(shape, a.dtype, a, 0, tuple(strides))
        r.flags.writeable = False
        return r
    return np.broadcast_to(a, shape)


@op(variants="method")
def expand_as(input: Tensor, other: Tensor) -> Tensor:
    """:func:`expand` to ``other``'s shape."""
    return expand(input, tensor_arg(other, "expand_as", "other", 2)._data.shape)


@op(variants="function method")
def broadcast_to(input: Tensor, size: Any) -> Tensor:
    """:func:`expand` to ``size``."""
    return expand(input, size)


@op()
def broadcast_tensors(*tensors: Tensor) -> tuple:
    """Expand all tensors to their common broadcast shape."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    shapes = [tensor_arg(t_, "broadcast_tensors", "tensors", i + 1)._data.shape for i, t_ in enumerate(tensors)]
    try:
        shape = np.broadcast_shapes(*shapes)
    except ValueError:
        raise broadcast_error(*shapes) from None
    # a tensor already of that shape is returned itself, as torch does (no ExpandBackward0 in its history)
    return tuple(t_ if t_._data.shape == shape else expand(t_, shape) for t_ in tensors)


@public()
def broadcast_shapes(*shapes: Any) -> Size:
    """The shape that tensors of ``shapes`` broadcast to."""
    norm = [tuple(s) if isinstance(s, (tuple, list)) else (s,) for s in shapes]
    try:
        return Size(np.broadcast_shapes(*norm))
    except ValueError:
        raise RuntimeError(f"Shape mismatch: objects cannot be broadcast to a single shape: {norm}") from None


@op()
def meshgrid(*tensors: Any, indexing: str | None = None) -> tuple:
    """Coordinate grids from 1-D tensors (``indexing='ij'`` by default, ``'xy'`` swaps the first two)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    ts = [tensor_arg(t_, "meshgrid", "tensors", i + 1) for i, t_ in enumerate(tensors)]
    if not ts:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    if indexing is None:
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f"tensorlib.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: {indexing}")
    for t_ in ts:
        if t_._data.ndim > 1:
            raise RuntimeError("tensorlib.meshgrid: Expected 0D or 1D tensor in the tensor list but got: " + repr(t_))
    flat = [reshape(t_, (-1,)) for t_ in ts]
    swap = indexing == "xy" and len(flat) >= 2
    if swap:
        flat[0], flat[1] = flat[1], flat[0]
    shape = tuple(t_._data.shape[0] for t_ in flat)
    n = len(flat)
    grids = [expand(reshape(t_, tuple(-1 if j == i else 1 for j in range(n))), shape) for i, t_ in enumerate(flat)]
    if swap:  # 'xy' is 'ij' on the first two inputs swapped, with the outputs swapped back
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


# Up to this many elements, the gradient of a full reduction is filled in rather than broadcast: a fresh
# array costs less to make than a read-only zero-stride view, and later formulas may reuse its memory.
_FILL_LIMIT = 4096


def _expand_back(g: Tensor, dims: tuple | None, shape: tuple, keepdim: bool) -> Tensor:
    """Undo a reduction's shape change on a gradient: re-insert reduced dims and broadcast (``dims`` None: all of
    them, the gradient then a single value)."""
    a = g._data
    if not a.ndim and not g._requires_grad and shape and math.prod(shape) <= _FILL_LIMIT:
        filled = _empty(shape, a.dtype)
        filled[...] = a
        return wrap(filled)
    if not keepdim and dims and len(shape) and g._data.ndim:
        kept = tuple(1 if i in dims else s for i, s in enumerate(shape))
        g = reshape(g, kept)
    return expand_to(g, shape)


def sum_to_size(g: Tensor, shape: Any) -> Tensor:
    """Sum ``g`` down to ``shape``, the inverse of broadcasting it there."""
    shape = tuple(shape)
    gs = g._data.shape
    if gs == shape:
        return g
    lead = len(gs) - len(shape)
    if lead < 0:
        raise RuntimeError(f"size {list(shape)} is not expandable to size {list(gs)}")
    dims = list(range(lead))
    for i, s in enumerate(shape):
        if s == 1 and gs[lead + i] != 1:
            dims.append(lead + i)
        elif s != gs[lead + i] and s != 1:
            raise RuntimeError(f"size {list(shape)} is not expandable to size {list(gs)}")
    if len(dims) == lead and type(g) is Tensor and not (g._requires_grad and GRAD.enabled) and g._data.dtype.kind in "fc":
        # only leading dims (a bias's gradient), nothing to record: one reduction straight to ``shape``, no view
        return wrap(_add_reduce(g._data, tuple(dims)))
    if dims:
        g = sum(g, dims, keepdim=True)
    if lead:
        g = reshape(g, shape)
    return g


def _reduce_dtype(a: np.ndarray, dtype: Any) -> Any:
    if dtype is not None:
        return dtype.np
    if a.dtype.kind in "biu":
        return np.int64
    return None


class SumBackward0(Node):
    """Backward of a sum over all elements."""

    __slots__ = ("dims", "shape", "keepdim")
    dims: tuple[int, ...] | None
    shape: tuple[int, ...]
    keepdim: bool

    def backward(self, g: Tensor) -> tuple:
        return (_expand_back(g, self.dims, self.shape, self.keepdim),)


class SumBackward1(SumBackward0):
    """Backward of a sum over some dims."""

    __slots__ = ()


# called with positional out/keepdims (cheaper than keywords), which NumPy accepts but its stubs do not model
_add_reduce: Callable[..., Any] = np.add.reduce


_empty = np.empty


@op(variants="function method")
def sum(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None, out: Tensor | None = None) -> Tensor:  # noqa: A001
    """Sum of all elements, or over ``dim`` (an int or a tuple of ints)."""
    x = input if type(input) is Tensor else tensor_arg(input, "sum")
    a = x._data
    if dtype is not None:
        a = a.astype(dtype.np)
        rdt = dtype.np  # an explicit dtype is the accumulation and result type (int8 wraps, bool is "any")
    elif a.dtype.kind in "biu":
        rdt = np.int64
    else:
        rdt = None
    if dim is None:
        dims = None
        # reducing into a 0-d array skips NumPy's scalar result and its conversion back to an array
        r = _add_reduce(a, None, rdt, None, True) if keepdim else _add_reduce(a, None, rdt, _empty((), rdt or a.dtype))
        node_cls = SumBackward0
    else:
        dims = normalize_dims(dim, a.ndim)
        r = _add_reduce(a, dims, rdt, None, keepdim)
        node_cls = SumBackward1
    if type(r) is not ndarray:
        r = np.asarray(r)
    if x._requires_grad and GRAD.enabled and r.dtype.kind in "fc":
        res, node = record(node_cls, r, (x,))
        node.dims = dims  # (None for a sum of everything: its backward fills the input's shape, no dims needed)
        node.shape, node.keepdim = a.shape, keepdim
        return res if out is None else write_out(out, res, "sum")
    return wrap(r) if out is None else write_out(out, wrap(r), "sum")


class RepeatBackward0(Node):
    __slots__ = ("repeats", "shape")
    repeats: tuple[int, ...]
    shape: tuple[int, ...]

    def backward(self, g: Tensor) -> tuple:
        lead = len(self.repeats) - len(self.shape)
        shape = (1,) * lead + tuple(self.shape)
        # view each repeated dim as (repeat, size) and sum the repeats away
        split_shape = []
        for r, s in zip(self.repeats, shape):
            split_shape += [r, s]
        g2 = reshape(g, split_shape)
        g2 = sum(g2, tuple(range(0, len(split_shape), 2)))
        return (reshape(g2, self.shape),)


@op(variants="method")
def repeat(input: Tensor, *sizes: Any) -> Tensor:
    """Tile the tensor ``sizes[i]`` times along each dim (new dims in front)."""
    x = tensor_arg(input, "repeat")
    reps = _shape_arg(sizes, "repeat")
    a = x._data
    if len(reps) < a.ndim:
        raise RuntimeError(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor"
        )
    if any(n < 0 for n in reps):
        shape = [n * m for n, m in zip(reps, (1,) * (len(reps) - a.ndim) + a.shape)]
        bad = next(n for n in shape if n < 0) if any(n < 0 for n in shape) else min(reps)
        raise RuntimeError(f"Trying to create tensor with negative dimension {bad}: {shape}")
    try:
        r = np.tile(a, reps)
    except (ValueError, OverflowError):  # NumPy's limits on a shape
        if max(reps) >= 9223372036854775808:
            pos = next(i for i, n in enumerate(reps) if n >= 9223372036854775808) + 1
            raise TypeError(f"repeat(): argument 'repeats' failed to unpack the object at pos {pos} with error "
                            "\"Overflow when unpacking long long\"") from None
        shape = [n * m for n, m in zip(reps, (1,) * (len(reps) - a.ndim) + a.shape)]
        raise RuntimeError(f"Storage size calculation overflowed with sizes={shape}") from None
    if x._requires_grad and GRAD.enabled:
        res, node = record(RepeatBackward0, r, (x,))
        node.repeats, node.shape = reps, a.shape
        return res
    return wrap(r)


@op(variants="method")
def tile(input: Tensor, *dims: Any) -> Tensor:
    """Like :func:`repeat`, but missing leading repeats count as 1 (``t.tile(2, 3)`` or ``t.tile((2, 3))``)."""
    x = tensor_arg(input, "tile")
    reps = _shape_arg(dims, "tile")
    if len(reps) < x._data.ndim:
        reps = (1,) * (x._data.ndim - len(reps)) + reps
    return repeat(x, reps)


@op(name="tile")
def tile_function(input: Tensor, dims: Any) -> Tensor:
    """``input`` repeated ``dims`` times along its trailing dims (missing leading repeats count as 1)."""
    if not isinstance(dims, (tuple, list, Size)):
        raise TypeError(f"tile(): argument 'dims' (position 2) must be tuple of ints, not {type(dims).__name__}")
    return tile(input, tuple(dims))
