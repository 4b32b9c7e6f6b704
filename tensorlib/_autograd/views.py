"""History rewriting for in-place operations, including in-place writes through views.

When an in-place op changes a view, its base changes too. The base then gets a
``CopySlices`` node: the gradient of the region the view covers goes to the
in-place op's node, the rest to the base's previous history; the view's new
history is "that region of the base".
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._hooks import hooks
from .._tensor import Tensor, _wrap
from .engine import edge
from .grad_mode import STATE
from .graph import Node, new_node


def _edge(t: Tensor) -> tuple:

    return edge(t)


def rebase_history(t: Tensor, res: Tensor) -> None:
    """Make ``t`` (just overwritten in place with ``res``'s values) carry ``res``'s history."""
    base = t._base
    if base is None:
        _set_history(t, res._grad_fn, res._output_nr)
        return
    rep = reinterpret(base._data, t._data.dtype)
    index = region_index(rep, t._data)
    if rep is base._data:
        node = new_node(CopySlices, (_edge(base), (res._grad_fn, res._output_nr)))
        node.index = index
        node.base_shape = base._data.shape
        _set_history(base, node, 0)
        view_node = new_node(RegionBackward, ((node, 0),))
        view_node.index = index
        view_node.base_shape = base._data.shape
        _set_history(t, view_node, 0)
        return
    # a view of another dtype (view_as_real, view_as_complex): the regions are taken in the view's dtype, the
    # base's gradients converted to it and back
    node = new_node(CopySlices, (_from_repr(_edge(base), base._data, rep), (res._grad_fn, res._output_nr)))
    node.index = index
    node.base_shape = rep.shape
    to_repr = new_node(ToRepr, ((node, 0),))
    to_repr.base_shape, to_repr.rep_shape = base._data.shape, rep.shape
    _set_history(base, to_repr, 0)
    view_node = new_node(RegionBackward, (_from_repr((to_repr, 0), base._data, rep),))
    view_node.index = index
    view_node.base_shape = rep.shape
    _set_history(t, view_node, 0)


def reinterpret(base: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """``base``'s memory read as ``dtype``: complex numbers as pairs of reals, or pairs of reals as complex numbers."""
    if base.dtype == dtype:
        return base
    if base.dtype.kind == "c" and dtype.kind == "f":
        return base[..., np.newaxis].view(dtype)
    if (base.dtype.kind == "f" and dtype.kind == "c" and base.ndim and base.shape[-1] % 2 == 0
            and (base.shape[-1] == 0 or base.strides[-1] == base.itemsize)):
        return base.view(dtype)
    raise RuntimeError(f"internal error: a {base.dtype} base cannot be read as {dtype}")


def _from_repr(edge_: tuple, base: np.ndarray, rep: np.ndarray) -> tuple:
    """An edge taking gradients in ``rep``'s form to ``edge_``, which takes them in ``base``'s."""
    if edge_[0] is None:
        return edge_
    node = new_node(FromRepr, (edge_,))
    node.base_shape, node.rep_shape = base.shape, rep.shape
    return (node, 0)


class ToRepr(Node):
    """A base's gradient in the dtype of the view written in place (complex as pairs of reals, or the reverse)."""

    __slots__ = ("base_shape", "rep_shape")
    base_shape: tuple[int, ...]
    rep_shape: tuple[int, ...]

    def backward(self, g: Tensor) -> tuple:
        if g._data.dtype.kind == "c":
            return (hooks.view_as_real(g),)
        return (hooks.view_as_complex(hooks.reshape(hooks.contiguous(g), self.rep_shape + (2,))),)


class FromRepr(Node):
    """The inverse of :class:`ToRepr`: a gradient in the view's dtype back in its base's."""

    __slots__ = ("base_shape", "rep_shape")
    base_shape: tuple[int, ...]
    rep_shape: tuple[int, ...]

    def backward(self, g: Tensor) -> tuple:
        if g._data.dtype.kind == "c":
            return (hooks.reshape(hooks.view_as_real(g), self.base_shape),)
        return (hooks.view_as_complex(hooks.contiguous(g)),)


def _set_history(t: Tensor, fn: Any, output_nr: int) -> None:
    t._grad_fn = fn
    t._requires_grad = True
    if output_nr or t._meta is not None:
        t._get_meta().output_nr = output_nr
    if t._base is not None:
        t._view_version = t._vc[0]


def regenerate_view_history(t: Tensor) -> None:
    """Rebuild stale view ``t``'s history as the region of its (since modified) base."""
    base = t._base
    assert base is not None, "only views have a stale view history"
    t._view_version = t._vc[0]
    if not base._requires_grad:
        return
    rep = reinterpret(base._data, t._data.dtype)
    index = region_index(rep, t._data)
    to_base = _edge(base) if rep is base._data else _from_repr(_edge(base), base._data, rep)
    node = new_node(RegionBackward, (to_base,))
    node.index = index
    node.base_shape = rep.shape
    _set_history(t, node, 0)


def region_index(base: np.ndarray, view: np.ndarray) -> np.ndarray:
    """For each element of ``view``, the flat index of the ``base`` element sharing its memory."""
    origin = base.__array_interface__["data"][0]
    if base.flags.c_contiguous and base.itemsize:
        # a row-major base: an element's flat index is its byte offset over the item size
        offsets = _positions(view, origin)
        index, rest = np.divmod(offsets, base.itemsize)
        if not rest.any() and (index.size == 0 or (index.min() >= 0 and index.max() < base.size)):
            return index
        raise RuntimeError("internal error: view does not lie inside its base")
    base_pos = _positions(base, origin).ravel()
    order = np.argsort(base_pos, kind="stable")
    sorted_pos = base_pos[order]
    view_pos = _positions(view, origin)
    found = np.searchsorted(sorted_pos, view_pos)
    found = np.clip(found, 0, len(sorted_pos) - 1)
    if not np.array_equal(sorted_pos[found], view_pos):
        raise RuntimeError("internal error: view does not lie inside its base")
    return order[found]


def _positions(arr: np.ndarray, origin: int) -> np.ndarray:
    pos = np.full(arr.shape, arr.__array_interface__["data"][0] - origin, dtype=np.int64)
    for k, (n, stride) in enumerate(zip(arr.shape, arr.strides)):
        shape = [1] * arr.ndim
        shape[k] = n
        pos = pos + (np.arange(n, dtype=np.int64) * stride).reshape(shape)
    return pos


def take_region(g: Tensor, index: np.ndarray) -> Tensor:
    """The elements of (base-shaped) ``g`` at ``index``, differentiably."""
    data = g._data.reshape(-1)[index]

    if g._requires_grad and STATE.enabled:
        node = new_node(RegionBackward, (_edge(g),))
        node.index = index
        node.base_shape = g._data.shape
        out = _wrap(data)
        out._grad_fn = node
        out._requires_grad = True
        return out
    return _wrap(data)


def put_region(r: Tensor, index: np.ndarray, base_shape: tuple, fill: Tensor | None = None) -> Tensor:
    """A base-shaped tensor equal to ``fill`` (or zeros) with ``r`` scattered at ``index``, differentiably."""

    if fill is None:
        data = np.zeros(int(np.prod(base_shape)), dtype=r._data.dtype)
    else:
        data = fill._data.reshape(-1).copy()
    np.add.at(data, index.reshape(-1), r._data.reshape(-1))
    data = data.reshape(base_shape)
    if r._requires_grad and STATE.enabled:
        node = new_node(PutRegionBackward, (_edge(r),))
        node.index = index
        out = _wrap(data)
        out._grad_fn = node
        out._requires_grad = True
        return out
    return _wrap(data)


class RegionBackward(Node):
    """Backward of taking a region of a base: scatter the gradient into a zero base."""

    __slots__ = ("index", "base_shape")
    index: np.ndarray
    base_shape: tuple[int, ...]

    def backward(self, g: Tensor) -> tuple:
        return (put_region(g, self.index, self.base_shape),)


class PutRegionBackward(Node):
    __slots__ = ("index",)
    index: np.ndarray

    def backward(self, g: Tensor) -> tuple:
        return (take_region(g, self.index),)


class CopySlices(Node):
    """Grad_fn of a base after an in-place op on one of its views."""

    __slots__ = ("index", "base_shape")
    index: np.ndarray
    base_shape: tuple[int, ...]

    def apply(self, grads: list) -> tuple:
        g = grads[0]
        g_base = None
        if self.needs(0):
            mask = np.ones(int(np.prod(self.base_shape)), dtype=g._data.dtype)
            mask[self.index.reshape(-1)] = 0
            g_base = hooks.mul(g, _wrap(mask.reshape(self.base_shape)))
        g_region = take_region(g, self.index) if self.needs(1) else None
        return g_base, g_region


def storage_index(root: np.ndarray, arr: np.ndarray) -> np.ndarray:
    """For each element of ``arr`` (memory inside ``root``'s), its offset in elements from ``root``'s first element."""
    return _positions(arr, root.__array_interface__["data"][0]) // arr.itemsize
