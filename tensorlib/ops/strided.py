"""Views and copies by storage geometry: ``as_strided`` (and ``as_strided_``), ``as_strided_copy``, ``as_strided_scatter``.

A tensor's storage is its root base's memory (the base of a view, or the tensor itself), counted in elements from the
root's first one, as ``storage_offset()`` and ``stride()`` report. ``as_strided`` reads that memory with any sizes,
strides and offset; its gradient goes through the storage, as torch's does: the output's gradient is summed into a
storage-shaped buffer and read back at the input's positions (divided by how often the input covers a position when
it overlaps itself).
"""

from __future__ import annotations

import math
import warnings
from typing import Any, Sequence

import numpy as np
from numpy.lib.stride_tricks import as_strided as _np_as_strided

from .._autograd.engine import edge
from .._autograd.graph import NOT_IMPLEMENTED, Node, new_node
from .._autograd.views import put_region, storage_index, take_region
from .._memory_format import check_memory_format, check_rank
from .._registry import op
from .._tensor import _CPP_NAMES, Tensor, _make_view, _wrap, bump_version
from ._util import GRAD, check_inplace, needs_grad, record, tensor_arg
from .arithmetic import div, mul
from .shape import _inplace_view, _shape_arg, check_sizes, reshape


def _geometry(size: Any, stride: Any, fname: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    if not isinstance(size, (tuple, list)):
        raise TypeError(f"{fname}(): argument 'size' (position 1) must be tuple of ints, not {type(size).__name__}")
    if not isinstance(stride, (tuple, list)):
        raise TypeError(f"{fname}(): argument 'stride' (position 2) must be tuple of ints, not {type(stride).__name__}")
    sizes, strides = _shape_arg((size,), fname), _shape_arg((stride,), fname)
    if len(sizes) != len(strides):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(n < 0 for n in sizes):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(sizes)} and strides={list(strides)}")
    if any(s < 0 for s in strides):
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got strides: {list(strides)}")
    return sizes, strides


def _root(x: Tensor) -> Tensor:
    return x if x._base is None else x._base


def _storage(root: np.ndarray) -> np.ndarray:
    """The root array's memory as a 1-D array of elements (its storage)."""
    item = root.itemsize
    span = 1 + sum((n - 1) * s for n, s in zip(root.shape, root.strides)) // item if root.size else 0
    return _np_as_strided(root, (span,), (item,), writeable=bool(root.flags.writeable))


def _positions(sizes: Sequence[int], strides: Sequence[int], offset: int) -> np.ndarray:
    """The storage position of each element of a geometry, in its shape."""
    pos = np.full(tuple(sizes), offset, dtype=np.int64)
    for k, (n, s) in enumerate(zip(sizes, strides)):
        shape = [1] * len(sizes)
        shape[k] = n
        pos = pos + (np.arange(n, dtype=np.int64) * s).reshape(shape)
    return pos


def _check_bounds(sizes: tuple, strides: tuple, offset: int, item: int, storage_numel: int) -> None:
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    needed = 0 if 0 in sizes else offset + 1 + sum((n - 1) * s for n, s in zip(sizes, strides))
    if needed > storage_numel:
        raise RuntimeError(
            f"setStorage: sizes {list(sizes)}, strides {list(strides)}, storage offset {offset}, and itemsize {item} "
            f"requiring a storage size of {needed * item} are out of bounds for storage of size {storage_numel * item}"
        )


def _self_overlapping(sizes: tuple, strides: tuple) -> bool:
    """torch's internal-overlap test: a dimension of more than one element with stride 0."""
    return any(n > 1 and s == 0 for n, s in zip(sizes, strides))


class AsStridedBackward0(Node):
    """Scatter the gradient into the storage, then read the input's positions back (averaged where it overlaps)."""

    __slots__ = ("out_index", "in_index", "span", "counts")
    out_index: np.ndarray
    in_index: np.ndarray
    span: int
    counts: np.ndarray | None

    def backward(self, g: Tensor) -> tuple:
        storage = put_region(g, self.out_index, (self.span,))
        gi = take_region(storage, self.in_index)
        if self.counts is not None:
            gi = div(gi, _wrap(self.counts.astype(gi._data.dtype)))
        return (gi,)


class AsStridedBackward1(AsStridedBackward0):
    __slots__ = ()


def _strided_view(x: Tensor, sizes: tuple, strides: tuple, storage_offset: Any, node_cls: type) -> Tensor:
    root = _root(x)
    flat = _storage(root._data)
    offset = x.storage_offset() if storage_offset is None else int(storage_offset)
    item = flat.itemsize
    _check_bounds(sizes, strides, offset, item, flat.shape[0])
    data = _np_as_strided(flat[offset:], sizes, tuple(s * item for s in strides),
                          writeable=bool(flat.flags.writeable) and not _self_overlapping(sizes, strides))
    t = _make_view(x, data)
    if x._requires_grad and GRAD.enabled:
        node = new_node(node_cls, (edge(x),))
        node.out_index = _positions(sizes, strides, offset)
        node.in_index = storage_index(root._data, x._data)
        node.span = flat.shape[0]
        counts = np.bincount(node.in_index.reshape(-1), minlength=node.span)[node.in_index]
        node.counts = counts if counts.size and counts.max() > 1 else None
        t._grad_fn = node
        t._requires_grad = True
    return t


@op(variants="function method")
def as_strided(input: Tensor, size: Sequence[int], stride: Sequence[int], storage_offset: int | None = None) -> Tensor:
    """A view of ``input``'s storage with the given sizes, strides (in elements) and storage offset.

    The offset defaults to ``input``'s own. Reading outside the storage is an error, as are negative strides.
    """
    x = tensor_arg(input, "as_strided")
    sizes, strides = _geometry(size, stride, "as_strided")
    return _strided_view(x, sizes, strides, storage_offset, AsStridedBackward0)


@op(variants="function method")
def as_strided_(self: Tensor, size: Sequence[int], stride: Sequence[int], storage_offset: int | None = None) -> Tensor:
    """In-place :func:`as_strided`: this tensor takes the new geometry over its storage."""
    x = tensor_arg(self, "as_strided_", "self")
    check_inplace(x, "as_strided_")
    sizes, strides = _geometry(size, stride, "as_strided_")
    return _inplace_view(x, _strided_view(x, sizes, strides, storage_offset, AsStridedBackward1), "as_strided_")


class AsStridedScatterBackward0(Node):
    __slots__ = ("index", "mask")
    index: np.ndarray
    mask: np.ndarray

    def apply(self, grads: list) -> tuple:
        g = grads[0]
        gi = mul(g, _wrap(self.mask.astype(g._data.dtype))) if self.needs(0) else None
        gs = take_region(g, self.index) if self.needs(1) else None
        return gi, gs


@op(variants="function method")
def as_strided_scatter(input: Tensor, src: Tensor, size: Sequence[int], stride: Sequence[int],
                       storage_offset: int | None = None) -> Tensor:
    """A copy of ``input`` with ``src`` written where ``input.as_strided(size, stride, storage_offset)`` would read.

    The geometry is that of the copy's own storage: ``input``'s memory order, offset 0 by default.
    """
    x = tensor_arg(input, "as_strided_scatter")
    s = tensor_arg(src, "as_strided_scatter", "src", 2)
    sizes, strides = _geometry(size, stride, "as_strided_scatter")
    a = x._data
    res = np.empty_like(a, order="K")  # torch's clone: the input's memory order when it is dense
    offset = 0 if storage_offset is None else int(storage_offset)
    _check_bounds(sizes, strides, offset, a.itemsize, a.size)
    if s._data.shape != sizes:
        raise RuntimeError(
            f"expected src to have a size equal to the slice of self. src size = {list(s._data.shape)}, "
            f"slice size = {list(sizes)}"
        )
    # the row-major index of the element at each storage position of the copy, then of each element written
    by_storage = np.empty(a.size, dtype=np.int64)
    by_storage[storage_index(res, res).reshape(-1)] = np.arange(a.size)
    index = by_storage[_positions(sizes, strides, offset)]
    flat = a.reshape(-1).copy()
    flat[index.reshape(-1)] = s._data.reshape(-1).astype(a.dtype, copy=False)
    out_data = flat.reshape(a.shape)
    if GRAD.enabled and (x._requires_grad or s._requires_grad):
        out, node = record(AsStridedScatterBackward0, out_data, (x, s))
        mask = np.ones(a.size, dtype=bool)
        mask[index.reshape(-1)] = False
        node.index, node.mask = index, mask.reshape(a.shape)
        return out
    return _wrap(out_data)



# -- changing a tensor's storage ------------------------------------------------------------------------


def _owner(a: np.ndarray) -> np.ndarray:
    """The array that owns ``a``'s memory (the end of its chain of NumPy bases)."""
    while isinstance(a.base, np.ndarray):
        a = a.base
    return a


def _owner_bytes(a: np.ndarray) -> tuple[np.ndarray, int] | None:
    """``a``'s owning memory as writable-if-``a``-is bytes, and ``a``'s first byte in it (None when not one block)."""
    owner = _owner(a)
    if not (owner.flags.c_contiguous or owner.flags.f_contiguous):
        return None
    flat = owner.reshape(-1, order="A").view(np.uint8)
    start = a.__array_interface__["data"][0] - owner.__array_interface__["data"][0]
    return flat, start


@op(variants="method")
def resize_(self: Tensor, *size: Any, memory_format: Any = None) -> Tensor:
    """Give this tensor the shape ``size`` (contiguous strides), keeping its data where the sizes allow.

    As in torch: when the memory from this tensor's first element on is large enough, the tensor keeps it (its
    elements are the first ``numel`` of that memory, and tensors sharing it see its writes); otherwise it gets new
    memory, the old contents copied to its start and the rest uninitialised (zeros here). Unlike torch, other
    tensors that shared the old memory keep it rather than following the tensor into the new one.
    """
    x = tensor_arg(self, "resize_", "self")
    if x._requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    shape = _shape_arg(size, "resize_")
    if any(n < 0 for n in shape):
        raise RuntimeError("numel: integer multiplication overflow")
    check_rank(check_memory_format(memory_format, "resize_"), len(shape))
    a = x._data
    if shape != a.shape:
        check_sizes(shape)
        numel = math.prod(shape)
        item = a.itemsize
        if numel * item >= 9223372036854775808:
            raise RuntimeError(f"Storage size calculation overflowed with sizes={list(shape)}")
        block = _owner_bytes(a)
        if block is not None and block[1] + numel * item <= block[0].size:
            flat, start = block
            x._data = flat[start:start + numel * item].view(a.dtype).reshape(shape)
            x._size = None
        else:
            new = np.zeros(numel, dtype=a.dtype)
            if block is not None:
                flat, start = block
                old = flat[start:start + numel * item]
                new[:old.size // item] = old[:old.size - old.size % item].view(a.dtype)
            x._data = new.reshape(shape)
            x._size = None
            if x._base is not None:  # new memory: no longer a view of its base
                x._base, x._view_version = None, None
                x._vc = None if x._vc is None else [x._vc[0]]
    bump_version(x)
    return x


@op(variants="method")
def resize_as_(self: Tensor, the_template: Tensor, *, memory_format: Any = None) -> Tensor:
    """:meth:`resize_` to ``the_template``'s shape."""
    return resize_(self, tensor_arg(the_template, "resize_as_", "the_template", 2)._data.shape,
                   memory_format=memory_format)


class ResizeBackward(Node):
    __slots__ = ("shape",)
    shape: tuple[int, ...]

    def backward(self, g: Tensor) -> tuple:
        return (reshape(g, self.shape),)


def _resized(x: Tensor, sizes: tuple, fname: str) -> Tensor:
    warnings.warn(f"non-inplace {fname} is deprecated", UserWarning, stacklevel=4)
    a = x._data
    numel = math.prod(sizes)
    if a.size != numel or any(n < 0 for n in sizes) or not a.size:
        check_sizes(sizes)
    if a.size != numel or any(n < 0 for n in sizes):
        raise RuntimeError(
            f"requested resize to {'x'.join(map(str, sizes))} ({numel} elements in total), but the given tensor has a "
            f"size of {'x'.join(map(str, a.shape))} ({a.size} elements). autograd's resize can only change the shape "
            "of a given tensor, while preserving the number of elements. "
        )
    data = a.reshape(sizes)
    if needs_grad(x):
        res, node = record(ResizeBackward, data, (x,))
        node.shape = a.shape
        return res
    return _wrap(data)


@op(variants="method")
def resize(self: Tensor, *sizes: int) -> Tensor:
    """Deprecated: ``self`` in the shape ``sizes`` (the same number of elements), differentiably."""
    return _resized(tensor_arg(self, "resize", "self"), _shape_arg(sizes, "resize"), "resize")


@op(variants="method")
def resize_as(self: Tensor, tensor: Tensor) -> Tensor:
    """Deprecated: :meth:`resize` to ``tensor``'s shape."""
    return _resized(tensor_arg(self, "resize_as", "self"), tensor_arg(tensor, "resize_as", "tensor", 2)._data.shape,
                    "resize_as")


@op(variants="method")
def set_(self: Tensor, source: Tensor | None = None, storage_offset: int = 0, size: Sequence[int] | None = None,
         stride: Sequence[int] | None = None) -> Tensor:
    """Make this tensor use ``source``'s memory: with its geometry, or ``size``/``stride`` from ``storage_offset``
    of ``source``'s storage; with no source, an empty tensor.

    Differences with torch: there are no Storage objects (``source`` is a tensor), and the tensor is not recorded
    as a view, so ``storage_offset()`` counts from its own first element.
    """
    x = tensor_arg(self, "set_", "self")
    check_inplace(x, "set_")
    if source is None:
        x._data = np.empty(0, dtype=x._data.dtype)
        x._size = None
        bump_version(x)
        return x
    src = tensor_arg(source, "set_", "source", 1)
    if src._data.dtype != x._data.dtype:
        raise RuntimeError(f"Could not set tensor of type {_CPP_NAMES[src._data.dtype.name]} to a tensor of type "
                           f"{_CPP_NAMES[x._data.dtype.name]}")
    if size is None:
        data = src._data.view()
    else:
        if stride is None and isinstance(size, (tuple, list)):  # contiguous
            stride = tuple(int(np.prod(tuple(size)[k + 1:], dtype=np.int64)) for k in range(len(size)))
        sizes, strides = _geometry(size, stride, "set_")
        flat = _storage(_root(src)._data)
        offset = int(storage_offset)
        _check_bounds(sizes, strides, offset, flat.itemsize, flat.shape[0])
        data = _np_as_strided(flat[offset:], sizes, tuple(k * flat.itemsize for k in strides),
                              writeable=bool(flat.flags.writeable) and not _self_overlapping(sizes, strides))
    x._data = data
    x._size = None
    if GRAD.enabled and src._requires_grad:  # as torch: a history whose backward is not implemented
        from_node, node = record(NOT_IMPLEMENTED, data, (src,))
        node.op_name = "set_"
        x._grad_fn, x._requires_grad = from_node._grad_fn, True
    bump_version(x)
    return x

