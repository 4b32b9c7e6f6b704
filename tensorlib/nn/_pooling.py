"""Pooling: max, average, adaptive and power-average pooling in 1, 2 and 3 spatial dims.

Pooling windows are boxes, so every pool here is separable: it runs along one
spatial axis at a time, each step a small table of taps (``Taps``). Average
pools are linear maps whose backward is the transposed map (again a ``Taps``);
max pools pick one input element per output and scatter the gradient back.
Both backwards are made of differentiable ops, so gradients of any order work.
"""

from __future__ import annotations

import functools
import math
import warnings
from typing import Any

import numpy as np

from .._autograd.graph import Node
from .._registry import NN_FUNCTIONAL, TENSORLIB, op
from .._tensor import Tensor
from ..ops import power, unary
from ..ops._util import (
    GRAD,
    float_only,
    int_arg,
    int_list_arg,
    not_implemented,
    real_only,
    record,
    tensor_arg,
    type_title,
    wrap,
    write_out,
)
from ..ops.arithmetic import mul
from ..ops.broadcast import _add_reduce  # (typed loosely: NumPy 2.5's stubs lack some overloads)
from ..ops.creation import _rng
from ..ops.indexing import add_at_zeros, scatter, scatter_into_zeros
from ..ops import reduction
from ..ops.shape import permute, reshape, squeeze, unsqueeze
from ..ops.unary import relu, sign
from ._conv import int_tuple

__all__ = [
    "Taps", "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d", "adaptive_max_pool1d",
    "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d", "adaptive_max_pool2d_with_indices",
    "adaptive_max_pool3d", "adaptive_max_pool3d_with_indices", "avg_pool1d", "avg_pool2d", "avg_pool3d",
    "linear_map", "lp_pool1d", "lp_pool2d", "lp_pool3d", "max_pool1d", "max_pool1d_with_indices", "max_pool2d",
    "max_pool2d_with_indices", "max_pool3d", "max_pool3d_with_indices", "interpolate", "upsample", "upsample_nearest",
    "upsample_bilinear", "pixel_shuffle", "pixel_unshuffle", "channel_shuffle", "max_unpool1d", "max_unpool2d",
    "max_unpool3d", "fractional_max_pool2d", "fractional_max_pool2d_with_indices", "fractional_max_pool3d",
    "fractional_max_pool3d_with_indices",
]

_NUM = {1: "one", 2: "two", 3: "three"}
_LETTERS = {1: ("W",), 2: ("H", "W"), 3: ("T", "H", "W")}


# -- separable linear maps --------------------------------------------------------------------------------


class Taps:
    """A linear map along one axis: ``out[o] = sum_t weight[o, t] * in[index[o, t]]`` over taps where ``mask``.

    ``size`` is the input length. ``transpose()`` gives the adjoint map (cached both ways).
    """

    __slots__ = ("index", "weight", "mask", "size", "_t", "_dense")

    def __init__(self, index: np.ndarray, weight: np.ndarray | None, size: int, mask: np.ndarray | None = None) -> None:
        self.index = np.asarray(index, dtype=np.intp)
        self.weight = weight  # None: every weight is one
        self.mask = None if mask is None or mask.all() else mask
        self.size = size
        self._t: Taps | None = None
        self._dense: np.ndarray | None = None

    def dense(self) -> np.ndarray:
        """The map as a matrix (outputs x inputs), made once."""
        if self._dense is None:
            n_out, width = self.index.shape
            w = np.ones((n_out, width)) if self.weight is None else np.asarray(self.weight, dtype=np.float64)
            if self.mask is not None:
                w = w * self.mask
            m = np.zeros((n_out, self.size))
            np.add.at(m, (np.broadcast_to(np.arange(n_out)[:, None], (n_out, width)), self.index), w)
            self._dense = m
        return self._dense

    def apply(self, a: np.ndarray, axis: int) -> np.ndarray:
        """The map applied to ``a`` along ``axis``, in ``a``'s dtype."""
        if self.weight is None and self.mask is None and self.index.shape[1] == 1:
            return np.take(a, self.index[:, 0], axis=axis)
        if (a.dtype.kind == "f" and a.size and self.size <= 16 * self.index.shape[1]
                and self.index.shape[0] * self.size <= 1 << 20 and bool(np.isfinite(a).all())):
            # one matrix product (a BLAS call) instead of several passes per tap, while its multiplications by zero
            # stay few (short inputs, or many taps); 0 * inf would be NaN, hence finite values only
            return _along(self.dense().astype(a.dtype, copy=False), a, axis)
        shape = [1] * a.ndim
        shape[axis] = -1
        w = np.ones(self.index.shape) if self.weight is None else self.weight
        if a.dtype.kind in "fc":
            w = w.astype(a.dtype, copy=False)
        out = None
        for t in range(self.index.shape[1]):
            term = np.take(a, self.index[:, t], axis=axis) * w[:, t].reshape(shape)
            if self.mask is not None and not self.mask[:, t].all():
                term = np.where(self.mask[:, t].reshape(shape), term, 0)
            if out is None:
                out = term
            else:
                out += term
        if out is None:
            shape = list(a.shape)
            shape[axis] = self.index.shape[0]
            return np.zeros(shape, a.dtype)
        return out if out.dtype == a.dtype else out.astype(a.dtype)

    def transpose(self) -> "Taps":
        """The adjoint map (input and output swapped), used for the backward pass."""
        if self._t is None:
            n_out, width = self.index.shape
            keep = np.ones((n_out, width), bool) if self.mask is None else self.mask
            w = np.ones((n_out, width)) if self.weight is None else self.weight
            src = self.index[keep]
            dst = np.broadcast_to(np.arange(n_out)[:, None], (n_out, width))[keep]
            wk = w[keep]
            order = np.argsort(src, kind="stable")
            src, dst, wk = src[order], dst[order], wk[order]
            counts = np.bincount(src, minlength=self.size)
            # NumPy 2.5's stubs have no overload for this call (2.4's do); the ignore holds for both
            new_width = max(int(counts.max(initial=0)), 1)  # type: ignore[call-overload, unused-ignore]
            # each input position gets one row listing the outputs that read it
            rank = np.arange(src.size) - (np.cumsum(counts) - counts)[src]
            index = np.zeros((self.size, new_width), np.intp)
            weight = np.zeros((self.size, new_width))
            mask = np.zeros((self.size, new_width), bool)
            index[src, rank], weight[src, rank], mask[src, rank] = dst, wk, True
            t = Taps(index, weight, n_out, mask)
            t._t, self._t = self, t
        return self._t


class _LinearMapNode(Node):
    __slots__ = ("maps",)
    maps: tuple[tuple[int, Taps], ...]

    def backward(self, g: Tensor) -> tuple:
        return (linear_map(g, tuple((ax, t.transpose()) for ax, t in reversed(self.maps)), type(self)),)


_NODE_CLASSES: dict[tuple[str, type], type] = {}


def _node_class(name: str, base: type) -> type:
    """A Node subclass called ``name`` (what ``grad_fn`` shows), made once."""
    cls = _NODE_CLASSES.get((name, base))
    if cls is None:
        cls = _NODE_CLASSES[(name, base)] = type(name, (base,), {"__slots__": ()})
    return cls


def linear_map(x: Tensor, maps: tuple, node_cls: type) -> Tensor:
    """Apply ``(axis, Taps)`` maps in order; recorded as ``node_cls`` (a ``_LinearMapNode``)."""
    a = x._data
    for ax, taps in maps:
        a = taps.apply(a, ax)
    if not maps:
        a = a.copy()  # an identity map still returns a new tensor
    if x._requires_grad and GRAD.enabled:
        out, node = record(node_cls, a, (x,))
        node.maps = maps
        return out
    return wrap(a)


# -- separable max ----------------------------------------------------------------------------------------------


def _window_max(a: np.ndarray, windows: list) -> tuple[np.ndarray, np.ndarray]:
    """Max over box windows and its flat index within the spatial dims.

    ``windows`` holds one ``index`` table ``(O, T)`` per trailing spatial axis;
    every tap must be a valid position (pad by repeating a window's own
    elements). Reducing the last axis first and keeping the first maximum, or
    the last NaN, along each axis picks what torch's row-major scan picks.
    """
    nd = len(windows)
    vals, inner = a, 1
    flat: np.ndarray | None = None
    nan_aware = a.dtype.kind in "fc" and bool(np.isnan(a).any())
    for i in reversed(range(nd)):
        ax = a.ndim - nd + i
        idx = windows[i]
        shape = [1] * a.ndim
        shape[ax] = -1
        best: Any = None  # arrays from the first tap on (every window has one)
        best_flat: Any = None
        for t in range(idx.shape[1]):
            col = idx[:, t]
            at = _evenly_spaced(col)
            v = np.take(vals, col, axis=ax) if at is None else vals[(slice(None),) * ax + (at,)]
            cand = col.reshape(shape) * inner
            if flat is not None:
                cand = cand + (np.take(flat, col, axis=ax) if at is None else flat[(slice(None),) * ax + (at,)])
            if best is None:
                best, best_flat = v, np.broadcast_to(cand, v.shape)
                continue
            upd = v > best
            if nan_aware:
                upd |= np.isnan(v)
            best = np.where(upd, v, best)
            best_flat = np.where(upd, cand, best_flat)
        vals, flat = best, best_flat
        inner *= a.shape[ax]
    return vals, np.ascontiguousarray(flat)


def _evenly_spaced(col: np.ndarray) -> slice | None:
    """``col`` as a slice when its positions are evenly spaced and increasing (a view instead of a gathered copy)."""
    n = col.size
    if n == 0:
        return None
    step = int(col[1] - col[0]) if n > 1 else 1
    if step < 1 or (n > 2 and not np.array_equal(np.diff(col), np.full(n - 1, step))):
        return None
    return slice(int(col[0]), int(col[-1]) + 1, step)


class _MaxNode(Node):
    """Backward of a max pool: the gradient goes to the chosen element (differentiable scatter)."""

    __slots__ = ("index", "shape", "nd")
    index: np.ndarray
    shape: tuple[int, ...]
    nd: int

    def backward(self, g: Tensor) -> tuple:
        lead = self.shape[: len(self.shape) - self.nd]
        width = math.prod(g._data.shape[len(lead):])  # spelled out: -1 is ambiguous for an empty batch
        flat_g = reshape(g, lead + (width,))
        index = self.index.reshape(lead + (width,))
        out = scatter_into_zeros(flat_g, len(lead), index, lead + (math.prod(self.shape[len(lead):]),))
        return (reshape(out, self.shape),)


def _small_tiled_window_max(a: np.ndarray, kernel: tuple[int, ...],
                            outs: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_tiled_window_max` for small windows (at most 8 elements): each window offset is a strided view of
    ``a``; their maximum, then the first offset (in row-major order) holding it, or the last holding a NaN, as
    torch's scan picks.

    The offsets that hold the maximum are the bits of one small code per window, and a table turns a code into the
    flat position of its lowest bit (the highest, for NaN): a few passes over the output, where boolean-mask
    assignments and an unravelled index took 3-5x longer.
    """
    nd = len(kernel)
    size = a.shape[a.ndim - nd:]
    offsets = list(np.ndindex(*kernel))
    views = [a[(Ellipsis,) + tuple(slice(t, o * k, k) for t, o, k in zip(off, outs, kernel))] for off in offsets]
    vals = views[0].copy()
    for v in views[1:]:
        np.maximum(vals, v, out=vals)
    first, last, start = _tile_tables(kernel, tuple(size), outs)
    code = np.zeros(vals.shape, np.uint8)
    for i, v in enumerate(views):
        code |= np.equal(v, vals).view(np.uint8) << i
    flat = np.take(first, code)
    if a.dtype.kind in "fc" and np.isnan(vals).any():
        code[...] = 0
        for i, v in enumerate(views):
            code |= np.isnan(v).view(np.uint8) << i
        flat = np.where(code != 0, np.take(last, code), flat)
    flat += start
    return vals, flat


@functools.lru_cache(maxsize=256)
def _tile_tables(kernel: tuple[int, ...], size: tuple[int, ...],
                 outs: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For :func:`_small_tiled_window_max`: the flat position (within a window) of the lowest and of the highest
    bit of each code, and each window's own first position (read-only: cached)."""
    nd = len(kernel)
    offsets = list(np.ndindex(*kernel))
    spans = [math.prod(size[i + 1:]) for i in range(nd)]
    position = [sum(j * span for j, span in zip(off, spans)) for off in offsets]
    codes = range(1 << len(offsets))
    first = np.array([position[(c & -c).bit_length() - 1] if c else 0 for c in codes], np.int64)
    last = np.array([position[c.bit_length() - 1] if c else 0 for c in codes], np.int64)
    start: Any = np.zeros((), np.int64)
    for i in range(nd):
        start = start * size[i] + (np.arange(outs[i]) * kernel[i]).reshape((-1,) + (1,) * (nd - 1 - i))
    for table in (first, last, start):
        table.setflags(write=False)
    return first, last, start


def _tiled_window_max(a: np.ndarray, kernel: tuple[int, ...], outs: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_window_max` for windows that tile the last dims (stride = kernel, no padding or dilation): the
    windows as one trailing axis of a reshaped copy, and one argmax over it (the first maximum in row-major order, as
    torch's scan; the last NaN where there is one)."""
    nd = len(kernel)
    lead = a.shape[: a.ndim - nd]
    size = a.shape[a.ndim - nd:]
    v = a[(Ellipsis,) + tuple(slice(0, o * k) for o, k in zip(outs, kernel))]
    v = v.reshape(lead + tuple(n for o, k in zip(outs, kernel) for n in (o, k)))
    first = len(lead)
    order = tuple(range(first)) + tuple(first + 2 * i for i in range(nd)) + tuple(first + 2 * i + 1 for i in range(nd))
    w = v.transpose(order).reshape(lead + outs + (math.prod(kernel),))
    t = np.argmax(w, axis=-1)
    if w.dtype.kind in "fc":
        nan = np.isnan(w)
        if nan.any():
            last_nan = w.shape[-1] - 1 - np.argmax(nan[..., ::-1], axis=-1)
            t = np.where(nan.any(-1), last_nan, t)
    vals = np.take_along_axis(w, t[..., None], -1)[..., 0]
    flat: Any = 0
    for i, offset in enumerate(np.unravel_index(t, kernel)):
        start = (np.arange(outs[i]) * kernel[i]).reshape((-1,) + (1,) * (nd - 1 - i))
        flat = flat * size[i] + (start + offset)
    return vals, np.asarray(flat, np.int64)


def _max_result(x: Tensor, nd: int, windows: list, node_name: str,
                tile: tuple[int, ...] | None = None) -> tuple[Tensor, Tensor]:
    """Max pooling's values and indices over ``windows`` (``tile``: their kernel, when they tile the input)."""
    a = x._data
    if a.size == 0:
        shape = a.shape[: a.ndim - nd] + tuple(w.shape[0] for w in windows)
        vals, flat = np.zeros(shape, a.dtype), np.zeros(shape, np.int64)
    elif tile is not None:
        tiled = _tiled_window_max if math.prod(tile) > 8 else _small_tiled_window_max
        vals, flat = tiled(a, tile, tuple(w.shape[0] for w in windows))
    else:
        vals, flat = _window_max(a, windows)
    indices = wrap(flat.astype(np.int64, copy=False))
    if x._requires_grad and GRAD.enabled:
        out, node = record(_node_class(node_name, _MaxNode), vals, (x,))
        node.index, node.shape, node.nd = flat, a.shape, nd
        return out, indices
    return wrap(vals), indices


# -- argument checks --------------------------------------------------------------------------------------------


def _pool_tuple(v: Any, nd: int, fname: str, argname: str, msg: str) -> tuple:
    t = int_tuple(v, nd, fname, argname)
    if t is None:
        raise RuntimeError(msg)
    return t


def _out_len(n: int, k: int, s: int, p: int, d: int, ceil: bool) -> int:
    """torch's pooling output length, including the ceil-mode rule that the last window must start inside."""
    out = (n + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil else 0)) // s + 1
    if ceil and (out - 1) * s >= n + p:
        out -= 1
    return out


def _pool_args(x: Tensor, nd: int, kernel_size: Any, stride: Any, padding: Any, dilation: Any, ceil_mode: bool,
               fname: str) -> tuple:
    """Validated ``(kernel, stride, padding, dilation, out_sizes)`` with torch's messages."""
    kind = "max" if fname.startswith("max") else "avg"
    a = x._data
    if nd == 1 and kind == "max":
        return _max_pool1d_args(x, kernel_size, stride, padding, dilation, ceil_mode)
    if nd == 1:
        k = int_tuple(kernel_size, 1, fname, "kernel_size")
        if k is None:
            raise RuntimeError(f"avg_pool1d() argument 'kernel_size' should contain one int (got {len(kernel_size)})")
        if a.ndim not in (2, 3):
            raise RuntimeError(f"Expected 2 to 3 dimensions, but got {a.ndim}-dimensional tensor for argument #1 "
                               "'self' (while checking arguments for avg_pool1d)")
    else:
        k = _pool_tuple(kernel_size, nd, fname, "kernel_size",
                        f"{fname}: kernel_size must {'be' if fname == 'avg_pool3d' else 'either be'} a single int, or "
                        f"a tuple of {_NUM[nd]} ints")
    empty_stride = stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0)
    s = k if empty_stride else _pool_tuple(
        stride, nd, fname, "stride", f"{fname}: stride must either be omitted, a single int, or a tuple of {_NUM[nd]} ints")
    p = _pool_tuple(padding, nd, fname, "padding", f"{fname}: padding must either be a single int, or a tuple of "
                    f"{_NUM[nd]} ints")
    d = (1,) * nd if dilation is None else _pool_tuple(
        dilation, nd, fname, "dilation", f"{fname}: dilation must be either a single int, or a tuple of {_NUM[nd]} ints")
    if nd > 1 and (a.ndim not in (nd + 1, nd + 2) or (kind == "max" and a.size == 0 and a.ndim == nd + 1)):
        if kind == "avg" and nd == 2 and a.ndim < 3:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-max(a.ndim, 1)}, "
                             f"{max(a.ndim, 1) - 1}], but got -3)")
        if kind == "avg" and nd == 2:
            raise RuntimeError("Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but "
                               f"got:{list(a.shape)}")
        raise RuntimeError(f"non-empty {nd + 1}D or {nd + 2}D (batch mode) tensor expected for input")
    if 0 in a.shape[a.ndim - nd - 1:]:
        shown = list(a.shape) if nd > 1 else list(a.shape[:-1]) + [1, a.shape[-1]]
        raise RuntimeError(f"Expected {nd + 1 + (nd == 1)}D or {nd + 2 + (nd == 1)}D (batch mode) tensor with "
                           f"optional 0 dim batch size for input, but got:{shown}")
    if 0 in s:
        raise RuntimeError("stride should not be zero")
    letters = _LETTERS[max(nd, 2)]
    if min(k) <= 0:
        k_shown = (1,) + k if nd == 1 else k
        raise RuntimeError("kernel size should be greater than zero, but got " +
                           " ".join(f"k{c}: {v}" for c, v in zip(letters, k_shown)))
    if min(s) < 0:
        s_shown = (1,) + s if nd == 1 else s
        raise RuntimeError("stride should be greater than zero, but got " +
                           " ".join(f"d{c}: {v}" for c, v in zip(letters, s_shown)))
    if min(d) <= 0:
        raise RuntimeError("dilation should be greater than zero, but got " +
                           " ".join(f"dilation{c}: {v}" for c, v in zip(letters, d)))
    if min(p) < 0:
        raise RuntimeError(f"pad must be non-negative, but got pad: {min(p)}")
    for kk, pp, dd in zip(k, p, d):
        if pp > (dd * (kk - 1) + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={pp}, "
                               f"kernel_size={kk} and dilation={dd}")
    if any(pp > kk // 2 for kk, pp in zip(k, p)):  # torch also bounds padding by the undilated kernel
        if nd == 3:
            raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but got kT: {k[0]} "
                               f"kW: {k[2]} kH: {k[1]} padT: {p[0]} padW: {p[2]} padH: {p[1]}")
        raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but got padW = {p[-1]}, "
                           f"padH = {p[0]}, kW = {k[-1]}, kH = {k[0]}")
    size = a.shape[a.ndim - nd:]
    out = tuple(_out_len(n, kk, ss, pp, dd, ceil_mode) for n, kk, ss, pp, dd in zip(size, k, s, p, d))
    if min(out) < 1:
        if fname == "avg_pool3d":
            raise RuntimeError(f"input image (T: {size[0]} H: {size[1]} W: {size[2]}) smaller than kernel size "
                               f"(kT: {k[0]} kH: {k[1]} kW: {k[2]})")
        c = a.shape[a.ndim - nd - 1]
        pad1 = (1,) if nd == 1 else ()
        raise RuntimeError(f"Given input size: ({'x'.join(map(str, (c,) + pad1 + size))}). Calculated output size: "
                           f"({'x'.join(map(str, (c,) + pad1 + out))}). Output size is too small")
    return k, s, p, d, out


def _max_pool1d_args(x: Tensor, kernel_size: Any, stride: Any, padding: Any, dilation: Any, ceil_mode: bool) -> tuple:
    a = x._data
    if a.ndim not in (2, 3) or 0 in a.shape[-2:]:
        raise RuntimeError("max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for "
                           f"input, but got:{list(a.shape)}")
    vals = []
    for name, v, default in (("kernel_size", kernel_size, None), ("stride", stride, kernel_size),
                             ("padding", padding, 0), ("dilation", dilation, 1)):
        if v is None or (isinstance(v, (list, tuple)) and len(v) == 0 and name == "stride"):
            v = default
        t = int_tuple(v, 1, "max_pool1d", name)
        if t is None:
            raise RuntimeError(f"max_pool1d() {name} must be an int, list of ints or tuple of ints of size 1 but got "
                               f"size {len(v)}")
        vals.append(t)
    k, s, p, d = vals
    for name, val, ok, cond in (("kernel_size", k[0], k[0] > 0, "greater than zero"),
                                ("stride", s[0], s[0] > 0, "greater than zero"),
                                ("padding", p[0], p[0] >= 0, "non-negative"),
                                ("dilation", d[0], d[0] > 0, "greater than zero")):
        if not ok:
            raise RuntimeError(f"max_pool1d() {name} must be {cond}, but got {val}")
        if name == "padding" and p[0] > k[0] // 2:
            raise RuntimeError(f"max_pool1d() padding should be at most half of kernel size, but got padding={p[0]} "
                               f"and kernel_size={k[0]}")
    out = (_out_len(a.shape[-1], k[0], s[0], p[0], d[0], ceil_mode),)
    if out[0] < 1:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {out[0]}")
    return k, s, p, d, out


# -- max pooling ------------------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=256)
def _max_windows(n: int, k: int, s: int, p: int, d: int, out: int) -> np.ndarray:
    """Tap positions of each pooling window, with out-of-range taps replaced by the window's own edge elements
    (read-only: cached, as a layer pools the same geometry at every step)."""
    pos = (np.arange(out) * s - p)[:, None] + d * np.arange(k)
    valid = (pos >= 0) & (pos < n)
    rows = np.arange(out)
    first = pos[rows, np.argmax(valid, axis=1)]
    last = pos[rows, k - 1 - np.argmax(valid[:, ::-1], axis=1)]
    windows = np.clip(np.where(pos < 0, first[:, None], np.where(pos >= n, last[:, None], pos)), 0, n - 1)
    windows.setflags(write=False)
    return windows


def _max_pool(input: Tensor, nd: int, kernel_size: Any, stride: Any, padding: Any, dilation: Any, ceil_mode: bool,
              fname: str) -> tuple[Tensor, Tensor]:
    x = tensor_arg(input, fname)
    real_only("max_pool1d_impl" if nd == 1 else f"max_pool{nd}d", x)
    if x._data.dtype.kind == "b":
        raise not_implemented(f"max_pool{max(nd, 2)}d", x._data.dtype)
    k, s, p, d, out = _pool_args(x, nd, kernel_size, stride, padding, dilation, ceil_mode, fname)
    size = x._data.shape[x._data.ndim - nd:]
    windows = [_max_windows(*args) for args in zip(size, k, s, p, d, out)]
    # windows that tile the input (strided views of it)
    tiles = all(k_ == s_ and not p_ and d_ == 1 and o * k_ <= n for n, k_, s_, p_, d_, o in zip(size, k, s, p, d, out))
    return _max_result(x, nd, windows, f"MaxPool{max(nd, 2)}DWithIndicesBackward0", tuple(k) if tiles else None)


@op(namespace=NN_FUNCTIONAL)
def max_pool1d_with_indices(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
                            ceil_mode: bool = False, return_indices: bool = False) -> tuple[Tensor, Tensor]:
    """1-D max pooling over ``(N, C, L)`` returning ``(values, indices)`` (indices into ``L``)."""
    return _max_pool(input, 1, kernel_size, stride, padding, dilation, ceil_mode, "max_pool1d")


@op(namespace=NN_FUNCTIONAL)
def max_pool2d_with_indices(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
                            ceil_mode: bool = False, return_indices: bool = False) -> tuple[Tensor, Tensor]:
    """2-D max pooling returning ``(values, indices)``; indices are flat positions in each ``H x W`` plane."""
    return _max_pool(input, 2, kernel_size, stride, padding, dilation, ceil_mode, "max_pool2d")


@op(namespace=NN_FUNCTIONAL)
def max_pool3d_with_indices(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
                            ceil_mode: bool = False, return_indices: bool = False) -> tuple[Tensor, Tensor]:
    """3-D max pooling returning ``(values, indices)``; indices are flat positions in each ``D x H x W`` volume."""
    return _max_pool(input, 3, kernel_size, stride, padding, dilation, ceil_mode, "max_pool3d")


@op(namespace=NN_FUNCTIONAL)
def max_pool1d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
               ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """1-D max pooling over ``(N, C, L)`` or ``(C, L)``; ``stride`` defaults to ``kernel_size``.

    Padding counts as ``-inf``. With ``return_indices`` also returns where each maximum was.
    """
    if not return_indices:  # torch's values-only 1-D kernel is for floating types only
        float_only("max_pool1d_impl", input)
    out, idx = _max_pool(input, 1, kernel_size, stride, padding, dilation, ceil_mode, "max_pool1d")
    return (out, idx) if return_indices else out


@op(namespace=NN_FUNCTIONAL)
def max_pool2d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
               ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """2-D max pooling over ``(N, C, H, W)`` or ``(C, H, W)``; see :func:`max_pool1d`."""
    out, idx = _max_pool(input, 2, kernel_size, stride, padding, dilation, ceil_mode, "max_pool2d")
    return (out, idx) if return_indices else out


@op(namespace=NN_FUNCTIONAL)
def max_pool3d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
               ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """3-D max pooling over ``(N, C, D, H, W)`` or ``(C, D, H, W)``; see :func:`max_pool1d`."""
    out, idx = _max_pool(input, 3, kernel_size, stride, padding, dilation, ceil_mode, "max_pool3d")
    return (out, idx) if return_indices else out


# -- average pooling ---------------------------------------------------------------------------------------------


def _avg_taps(n: int, k: int, s: int, p: int, out: int, count_include_pad: bool, scale: float | None) -> Taps:
    """Window sums divided as torch does: by the window clipped to the padded input, or to the input alone."""
    start = np.arange(out) * s - p
    pos = start[:, None] + np.arange(k)
    mask = (pos >= 0) & (pos < n)
    if scale is not None:
        weight = np.full(pos.shape, scale)
    else:
        if count_include_pad:
            count = np.minimum(start + k, n + p) - start
        else:
            count = np.minimum(start + k, n) - np.maximum(start, 0)
        weight = np.broadcast_to(1.0 / np.maximum(count, 1)[:, None], pos.shape)
    return Taps(np.clip(pos, 0, n - 1), weight, n, mask)


def _avg_pool(input: Tensor, nd: int, kernel_size: Any, stride: Any, padding: Any, ceil_mode: bool,
              count_include_pad: bool, divisor_override: Any, fname: str) -> Tensor:
    x = tensor_arg(input, fname)
    if (x._data.dtype.kind not in "f" and x._data.dtype != np.int64) or (nd == 3 and x._data.dtype == np.float16):
        # torch averages floats and int64 only (and has no half-precision 3-D kernel)
        raise not_implemented("avg_pool3d_out_frame" if nd == 3 else "avg_pool2d", x._data.dtype)
    k, s, p, _, out = _pool_args(x, nd, kernel_size, stride, padding, 1, ceil_mode, fname)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    a = x._data
    size = a.shape[a.ndim - nd:]
    maps = []
    for i in reversed(range(nd)):
        # a divisor override is one constant: fold it into the first axis's weights, leave the others at one
        scale = None if divisor_override is None else (1.0 / divisor_override if i == 0 else 1.0)
        maps.append((a.ndim - nd + i, _avg_taps(size[i], k[i], s[i], p[i], out[i], count_include_pad, scale)))
    if a.dtype.kind in "iu":
        # integers average like torch's kernel: the window sum divided once, truncated toward zero (in float64 the
        # divisions by the window size are inexact: round off their last bits before truncating)
        averaged = linear_map(wrap(a.astype(np.float64)), tuple(maps), _LinearMapNode)._data
        return wrap(np.trunc(np.round(averaged, 6)).astype(a.dtype))
    # floating point: each window's sum divided once by its divisor, as torch's kernel does
    axes = tuple((a.ndim - nd + i, _StridedWindows(k[i], s[i], p[i], size[i], out[i])) for i in range(nd))
    if divisor_override is not None:
        divisor = np.array(float(divisor_override))
    else:
        divisor = np.ones(())
        for i in range(nd):
            start = np.arange(out[i]) * s[i] - p[i]
            stop = np.minimum(start + k[i], size[i] + p[i]) if count_include_pad else np.minimum(start + k[i], size[i])
            count = stop - (start if count_include_pad else np.maximum(start, 0))
            divisor = np.multiply.outer(divisor, np.maximum(count, 1))
    name = f"AvgPool{max(nd, 2)}DBackward"
    nodes = (_node_class(f"{name}0", _WindowAverageNode), _node_class(f"{name}Backward0", _WindowAverageNode))
    return _window_average(x, axes, divisor.astype(a.dtype), False, nodes)


class _WindowAverageNode(Node):
    """Average pooling, or its adjoint (its gradient's scatter): linear maps, each the other's backward."""

    __slots__ = ("axes", "divisor", "adjoint", "nodes")
    axes: tuple[tuple[int, Any], ...]  # (axis, its windows: a _StridedWindows or a _Segments)
    divisor: np.ndarray  # each window's divisor, over the output's spatial dims
    adjoint: bool
    nodes: tuple[type, type]  # the node classes of the map and of its adjoint (torch's names)

    def backward(self, g: Tensor) -> tuple:
        return (_window_average(g, self.axes, self.divisor, not self.adjoint, self.nodes),)


def _window_average(x: Tensor, axes: tuple, divisor: np.ndarray, adjoint: bool, nodes: tuple[type, type]) -> Tensor:
    """Window sums over ``axes`` divided by ``divisor`` (or, ``adjoint``, the gradient of that map at ``x``)."""
    a = x._data
    if not adjoint:
        for ax, windows in axes:
            a = windows.sums(a, ax)
        a = a / divisor
    else:
        a = a / divisor
        for ax, windows in reversed(axes):
            a = windows.scatter(a, ax)
    if x._requires_grad and GRAD.enabled:
        res, node = record(nodes[adjoint], a, (x,))
        node.axes, node.divisor, node.adjoint, node.nodes = axes, divisor, adjoint, nodes
        return res
    return wrap(a)


class _StridedWindows:
    """Windows of ``k`` elements every ``s``, the first starting at ``-p``, over ``n`` elements (zero outside): ``out``
    of them."""

    __slots__ = ("k", "s", "p", "n", "out")

    def __init__(self, k: int, s: int, p: int, n: int, out: int) -> None:
        self.k, self.s, self.p, self.n, self.out = k, s, p, n, out

    def sums(self, a: np.ndarray, ax: int) -> np.ndarray:
        """Each window's sum along ``ax``: k strided additions."""
        k, s, p, n, out = self.k, self.s, self.p, self.n, self.out
        if s == k and not p and n == out * k:  # windows that tile the axis: one reduction of a reshaped view
            return _add_reduce(a.reshape(a.shape[:ax] + (out, k) + a.shape[ax + 1:]), ax + 1)
        span = (out - 1) * s + 1
        right = max(0, (out - 1) * s + k - p - n)
        if p or right:
            shape = list(a.shape)
            shape[ax] = p + n + right
            padded = np.zeros(shape, a.dtype)
            padded[(slice(None),) * ax + (slice(p, p + n),)] = a
            a = padded
        lead = (slice(None),) * ax
        acc = a[lead + (slice(0, span, s),)].copy()
        for t in range(1, k):
            acc += a[lead + (slice(t, t + span, s),)]
        return acc

    def scatter(self, g: np.ndarray, ax: int) -> np.ndarray:
        """The adjoint of :meth:`sums`: each window's value added back to the elements it read."""
        k, s, p, n, out = self.k, self.s, self.p, self.n, self.out
        if s == k and not p and n == out * k:  # windows that tile the axis: each value repeated over its window
            return np.repeat(g, k, axis=ax)
        span = (out - 1) * s + 1
        right = max(0, (out - 1) * s + k - p - n)
        shape = list(g.shape)
        shape[ax] = p + n + right
        acc = np.zeros(shape, g.dtype)
        lead = (slice(None),) * ax
        for t in range(k):
            acc[lead + (slice(t, t + span, s),)] += g
        return acc[lead + (slice(p, p + n),)] if p or right else acc


class _Segments:
    """Windows ``[start, end)`` of varying length over ``n`` elements (adaptive pooling's), possibly overlapping."""

    __slots__ = ("positions", "starts", "lengths", "n", "cover")

    def __init__(self, start: np.ndarray, end: np.ndarray, n: int) -> None:
        self.lengths = end - start
        # the windows' elements one after the other, and where each window begins in that list
        self.positions = np.concatenate([np.arange(b, e) for b, e in zip(start.tolist(), end.tolist())])
        self.starts = np.concatenate(([0], np.cumsum(self.lengths)[:-1]))
        self.n = n
        # which elements each window covers, as a 0/1 matrix (windows x elements)
        self.cover = (np.arange(n) >= start[:, None]) & (np.arange(n) < end[:, None])

    def sums(self, a: np.ndarray, ax: int) -> np.ndarray:
        """Each window's sum along ``ax``: a product with the 0/1 cover matrix (a matrix product is one BLAS call;
        0 * inf would be NaN, so other values take a gather and one reduction per window)."""
        if a.dtype.kind == "f" and bool(np.isfinite(a).all()):
            return _along(self.cover.astype(a.dtype), a, ax)
        return np.add.reduceat(np.take(a, self.positions, axis=ax), self.starts, axis=ax)

    def scatter(self, g: np.ndarray, ax: int) -> np.ndarray:
        """The adjoint of :meth:`sums`: each window's value added to every element it covers."""
        if g.dtype.kind == "f" and bool(np.isfinite(g).all()):
            return _along(self.cover.T.astype(g.dtype), g, ax)
        shape = list(g.shape)
        shape[ax] = self.n
        z = np.zeros(shape, g.dtype)
        add_at_zeros(z, (slice(None),) * ax + (self.positions,), np.repeat(g, self.lengths, axis=ax))
        return z


def _along(m: np.ndarray, a: np.ndarray, ax: int) -> np.ndarray:
    """``m`` (new length x old length) applied along axis ``ax`` of ``a``."""
    if ax == a.ndim - 1:  # as one 2-D product: NumPy's stacked products of small matrices cost more
        return np.matmul(a.reshape(-1, a.shape[-1]), m.T).reshape(a.shape[:-1] + (m.shape[0],))
    if ax == a.ndim - 2:
        return np.matmul(m, a)
    return np.moveaxis(np.tensordot(m, a, axes=([1], [ax])), 0, ax)


@op(namespace=(NN_FUNCTIONAL, TENSORLIB))
def avg_pool1d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
               count_include_pad: bool = True) -> Tensor:
    """1-D average pooling over ``(N, C, L)``; ``stride`` defaults to ``kernel_size``.

    Zero padding is counted in the divisor when ``count_include_pad``.
    """
    return _avg_pool(input, 1, kernel_size, stride, padding, ceil_mode, count_include_pad, None, "avg_pool1d")


@op(namespace=(NN_FUNCTIONAL, TENSORLIB))
def avg_pool2d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override: int | None = None, *,
               out: Tensor | None = None) -> Tensor:
    """2-D average pooling; ``divisor_override`` replaces the window size as divisor. See :func:`avg_pool1d`."""
    res = _avg_pool(input, 2, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override,
                    "avg_pool2d")
    return res if out is None else write_out(out, res, "avg_pool2d")


@op(namespace=(NN_FUNCTIONAL, TENSORLIB))
def avg_pool3d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override: int | None = None, *,
               out: Tensor | None = None) -> Tensor:
    """3-D average pooling; see :func:`avg_pool2d`."""
    res = _avg_pool(input, 3, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override,
                    "avg_pool3d")
    return res if out is None else write_out(out, res, "avg_pool3d")


# -- adaptive pooling -------------------------------------------------------------------------------------------


def _adaptive_windows(n: int, out: int) -> tuple[np.ndarray, np.ndarray]:
    """Window ``o`` covers ``[floor(o * n / out), ceil((o + 1) * n / out))``: taps (clamped to the window) and mask."""
    o = np.arange(out)
    start = o * n // out
    end = -((-(o + 1) * n) // out)
    # NumPy 2.5's stubs have no overload for this call (2.4's do); the ignore holds for both
    width = int((end - start).max(initial=1))  # type: ignore[call-overload, unused-ignore]
    pos = start[:, None] + np.arange(width)
    mask = pos < end[:, None]
    return np.minimum(pos, (end - 1)[:, None]), mask


def _adaptive_args(x: Tensor, nd: int, output_size: Any, fname: str) -> tuple:
    a = x._data
    kind = "max" if "max" in fname else "avg"
    if nd == 1:
        if a.ndim not in (2, 3):
            raise RuntimeError(f"Expected 2 to 3 dimensions, but got {a.ndim}-dimensional tensor for argument #1 "
                               f"'self' (while checking arguments for {fname})")
    elif a.ndim not in (nd + 1, nd + 2):
        sep = ":" if kind == "max" else ""
        raise RuntimeError(f"{fname}(): Expected {nd + 1}D or {nd + 2}D tensor, but got{sep} {list(a.shape)}")
    if isinstance(output_size, (int, np.integer)) and not isinstance(output_size, bool):
        requested: list[int | None] = [int(output_size)] * nd
    elif isinstance(output_size, (tuple, list)):
        requested = list(output_size)
        if nd == 1 and len(requested) != 1:
            raise RuntimeError(f"{fname}() argument 'output_size' should contain one int (got {len(requested)})")
        if len(requested) != nd:
            raise RuntimeError(f"{fname}(): internal error: output_size.size() must be {nd}" if kind == "max"
                               else f"{fname}: output_size must be {nd}")
    else:
        raise TypeError(f"{fname}(): argument 'output_size' (position 2) must be tuple of ints, not "
                        f"{type(output_size).__name__}")
    size = a.shape[a.ndim - nd:]
    for i, o in enumerate(requested):
        if o is not None and (isinstance(o, bool) or not isinstance(o, (int, np.integer))):
            raise TypeError(f"{fname}(): argument 'output_size' (position 2) must be tuple of ints, but found element "
                            f"of type {type(o).__name__} at pos {i}")
    sizes = tuple(n if o is None else int(o) for o, n in zip(requested, size))
    if max(sizes) >= 9223372036854775808:
        raise ValueError("Overflow when unpacking long long")
    if min(sizes) < 0:
        if kind == "max":
            raise RuntimeError(f"Trying to create tensor with negative dimension {min(sizes)}: "
                               f"{list(a.shape[:a.ndim - nd]) + list(sizes)}")
        sizes_shown = (1,) + sizes if nd == 1 else sizes
        raise RuntimeError(f"adaptive_avg_pool{max(nd, 2)}d: elements of output_size must be greater than or equal to "
                           f"0 but received {{{', '.join(map(str, sizes_shown))}}}")
    for i in range(a.ndim - nd - 1, a.ndim):
        if a.shape[i] == 0:
            shown = list(a.shape) if nd > 1 or kind == "max" else list(a.shape[:-1]) + [1, a.shape[-1]]
            dim = i + (nd == 1 and kind == "avg")
            name = fname if kind == "max" or nd > 1 else "adaptive_avg_pool2d"
            raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch dimensions, but input "
                               f"has sizes {shown} with dimension {dim} being empty")
    if a.dtype.kind not in "fc":
        raise NotImplementedError(f"\"{fname}\" not implemented for '{type_title(a.dtype)}'")
    return size, sizes


def _adaptive_avg(input: Tensor, nd: int, output_size: Any, fname: str) -> Tensor:
    x = tensor_arg(input, fname)
    real_only("adaptive_avg_pool3d_cpu" if nd == 3 else "adaptive_avg_pool2d", x)
    size, sizes = _adaptive_args(x, nd, output_size, fname)
    if nd == 1:  # torch pools (..., 1, L) in two dims and squeezes the added one away
        return squeeze(_adaptive_avg_sizes(unsqueeze(x, -2), 2, (1,) + tuple(size), (1,) + tuple(sizes)), -2)
    return _adaptive_avg_sizes(x, nd, tuple(size), tuple(sizes))


def _adaptive_avg_sizes(x: Tensor, nd: int, size: tuple, sizes: tuple) -> Tensor:
    """Adaptive average pooling of the last ``nd`` dims of ``x`` from ``size`` to ``sizes`` (checked)."""
    ndim = x._data.ndim
    if nd >= 2 and all(o == 1 for o in sizes):  # torch's global pooling is a mean (MeanBackward1)
        return reduction.mean(x, tuple(range(-nd, 0)), keepdim=True)
    if x._data.dtype.kind == "f":
        # each window's sum divided once by its size, as torch's kernel
        axes, divisor = [], np.ones(())
        for i in range(nd):
            n, o = size[i], sizes[i]
            if n % o == 0:  # windows that tile the axis (halving, ...)
                windows: Any = _StridedWindows(n // o, n // o, 0, n, o)
                count = np.full(o, n // o)
            else:
                start = np.arange(o) * n // o
                end = -((-(np.arange(o) + 1) * n) // o)
                windows, count = _Segments(start, end, n), end - start
            if n != o:
                axes.append((ndim - nd + i, windows))
            divisor = np.multiply.outer(divisor, count)
        name = f"AdaptiveAvgPool{max(nd, 2)}DBackward"
        nodes = (_node_class(f"{name}0", _WindowAverageNode), _node_class(f"{name}Backward0", _WindowAverageNode))
        return _window_average(x, tuple(axes), divisor.astype(x._data.dtype), False, nodes)
    maps = []
    for i in reversed(range(nd)):
        if sizes[i] == size[i]:
            continue  # every window is one element: the identity
        pos, mask = _adaptive_windows(size[i], sizes[i])
        weight = np.broadcast_to(1.0 / mask.sum(axis=1, keepdims=True).clip(1), pos.shape)
        maps.append((ndim - nd + i, Taps(pos, weight, size[i], mask)))
    return linear_map(x, tuple(maps), _node_class(f"AdaptiveAvgPool{max(nd, 2)}DBackward0", _LinearMapNode))


@op(namespace=(NN_FUNCTIONAL, TENSORLIB))
def adaptive_avg_pool1d(input: Tensor, output_size: Any) -> Tensor:
    """Average pooling of ``(N, C, L)`` to length ``output_size`` with windows chosen to fit exactly."""
    return _adaptive_avg(input, 1, output_size, "adaptive_avg_pool1d")


@op(namespace=NN_FUNCTIONAL)
def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:
    """Adaptive average pooling to ``output_size`` (an int or an ``(H, W)`` pair, None keeps a size)."""
    return _adaptive_avg(input, 2, output_size, "adaptive_avg_pool2d")


@op(namespace=NN_FUNCTIONAL)
def adaptive_avg_pool3d(input: Tensor, output_size: Any) -> Tensor:
    """Adaptive average pooling to ``output_size`` ``(D, H, W)``; see :func:`adaptive_avg_pool2d`."""
    return _adaptive_avg(input, 3, output_size, "adaptive_avg_pool3d")


def _adaptive_max(input: Tensor, nd: int, output_size: Any, fname: str) -> tuple[Tensor, Tensor]:
    x = tensor_arg(input, fname)
    real_only("adaptive_max_pool3d_cpu" if nd == 3 else "adaptive_max_pool2d", x)
    size, sizes = _adaptive_args(x, nd, output_size, fname)
    windows = [_adaptive_windows(n, o)[0] for n, o in zip(size, sizes)]
    kernel = tuple(n // o for n, o in zip(size, sizes))
    tile = kernel if all(n % o == 0 for n, o in zip(size, sizes)) else None
    return _max_result(x, nd, windows, f"AdaptiveMaxPool{max(nd, 2)}DBackward0", tile)


@op(namespace=NN_FUNCTIONAL)
def adaptive_max_pool1d_with_indices(input: Tensor, output_size: Any, return_indices: bool = False) -> tuple:
    """Adaptive max pooling of ``(N, C, L)``, returning ``(values, indices)``."""
    return _adaptive_max(input, 1, output_size, "adaptive_max_pool1d")


@op(namespace=NN_FUNCTIONAL)
def adaptive_max_pool2d_with_indices(input: Tensor, output_size: Any, return_indices: bool = False) -> tuple:
    """Adaptive max pooling to ``output_size``, returning ``(values, indices)``."""
    return _adaptive_max(input, 2, output_size, "adaptive_max_pool2d")


@op(namespace=NN_FUNCTIONAL)
def adaptive_max_pool3d_with_indices(input: Tensor, output_size: Any, return_indices: bool = False) -> tuple:
    """Adaptive 3-D max pooling, returning ``(values, indices)``."""
    return _adaptive_max(input, 3, output_size, "adaptive_max_pool3d")


@op(namespace=NN_FUNCTIONAL)
def adaptive_max_pool1d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """Max pooling of ``(N, C, L)`` to length ``output_size``; with ``return_indices`` also where each max was."""
    out, idx = _adaptive_max(input, 1, output_size, "adaptive_max_pool1d")
    return (out, idx) if return_indices else out


@op(namespace=NN_FUNCTIONAL)
def adaptive_max_pool2d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """Adaptive max pooling to ``output_size`` ``(H, W)``; see :func:`adaptive_max_pool1d`."""
    out, idx = _adaptive_max(input, 2, output_size, "adaptive_max_pool2d")
    return (out, idx) if return_indices else out


@op(namespace=NN_FUNCTIONAL)
def adaptive_max_pool3d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """Adaptive max pooling to ``output_size`` ``(D, H, W)``; see :func:`adaptive_max_pool1d`."""
    out, idx = _adaptive_max(input, 3, output_size, "adaptive_max_pool3d")
    return (out, idx) if return_indices else out


# -- power-average pooling ----------------------------------------------------------------------------------------


def _lp_pool(input: Tensor, nd: int, norm_type: float, kernel_size: Any, stride: Any, ceil_mode: bool) -> Tensor:
    x = tensor_arg(input, f"lp_pool{nd}d")
    avg = (avg_pool1d, avg_pool2d, avg_pool3d)[nd - 1]
    out = avg(power.pow(x, norm_type), kernel_size, stride, 0, ceil_mode)
    k = int_tuple(kernel_size, nd, f"lp_pool{nd}d", "kernel_size") or (kernel_size,)
    # sign * relu(|.|) only clears negatives left by rounding; the scale turns the mean back into a sum
    summed = mul(mul(sign(out), relu(unary.abs(out))), math.prod(k))
    return power.pow(summed, 1.0 / norm_type)


@op(namespace=NN_FUNCTIONAL)
def lp_pool1d(input: Tensor, norm_type: float, kernel_size: int, stride: Any = None, ceil_mode: bool = False) -> Tensor:
    """Power-average pooling: ``(sum over window of x ** p) ** (1 / p)``."""
    return _lp_pool(input, 1, norm_type, kernel_size, stride, ceil_mode)


@op(namespace=NN_FUNCTIONAL)
def lp_pool2d(input: Tensor, norm_type: float, kernel_size: Any, stride: Any = None, ceil_mode: bool = False) -> Tensor:
    """2-D power-average pooling; see :func:`lp_pool1d`."""
    return _lp_pool(input, 2, norm_type, kernel_size, stride, ceil_mode)


@op(namespace=NN_FUNCTIONAL)
def lp_pool3d(input: Tensor, norm_type: float, kernel_size: Any, stride: Any = None, ceil_mode: bool = False) -> Tensor:
    """3-D power-average pooling; see :func:`lp_pool1d`."""
    return _lp_pool(input, 3, norm_type, kernel_size, stride, ceil_mode)


# -- resampling: interpolate, pixel shuffle ---------------------------------------------------------------------
# Every interpolation mode is separable too: one ``Taps`` table per spatial axis,
# with source positions computed in torch's precision so indices agree exactly.


def _source_ratio(n_in: int, n_out: int, scale: float | None, align_corners: bool, ft: type[np.floating]) -> Any:
    if align_corners:
        return ft(n_in - 1) / ft(n_out - 1) if n_out > 1 else ft(0)
    return ft(1.0 / scale) if scale else ft(n_in) / ft(n_out)


def _nearest_taps(n_in: int, n_out: int, scale: float | None, exact: bool) -> Taps:
    # torch computes nearest source indices in single precision whatever the dtype
    ratio = np.float32(1.0 / scale) if scale else np.float32(n_in) / np.float32(n_out)
    o = np.arange(n_out, dtype=np.float32)
    if exact:
        src = np.floor((o + np.float32(0.5)) * ratio)
    elif n_out == n_in:
        src = o
    elif n_out == 2 * n_in:
        src = np.floor(o / 2)
    else:
        src = np.floor(o * ratio)
    return Taps(np.minimum(src.astype(np.int64), n_in - 1)[:, None], None, n_in)


def _linear_taps(n_in: int, n_out: int, scale: float | None, align_corners: bool, ft: type[np.floating]) -> Taps:
    o = np.arange(n_out)
    if n_out == n_in:
        return Taps(o[:, None], None, n_in)
    ratio = _source_ratio(n_in, n_out, scale, align_corners, ft)
    of = o.astype(ft)
    src = ratio * of if align_corners else np.maximum(ratio * (of + ft(0.5)) - ft(0.5), ft(0))
    i0 = np.minimum(np.floor(src).astype(np.int64), n_in - 1)
    lam1 = np.clip(src - i0.astype(ft), 0, 1).astype(ft)
    i1 = i0 + (i0 < n_in - 1)
    return Taps(np.stack([i0, i1], 1), np.stack([ft(1) - lam1, lam1], 1), n_in)


def _cubic_taps(n_in: int, n_out: int, scale: float | None, align_corners: bool, ft: type[np.floating]) -> Taps:
    ratio = _source_ratio(n_in, n_out, scale, align_corners, ft)
    of = np.arange(n_out).astype(ft)
    src = ratio * of if align_corners else ratio * (of + ft(0.5)) - ft(0.5)
    base = np.floor(src)
    t = (src - base).astype(ft)
    a = ft(-0.75)  # Keys' cubic convolution constant used by torch

    def near(v: Any) -> Any:  # |v| <= 1
        return ((a + 2) * v - (a + 3)) * v * v + 1

    def far(v: Any) -> Any:  # 1 < |v| < 2
        return ((a * v - 5 * a) * v + 8 * a) * v - 4 * a

    weight = np.stack([far(t + 1), near(t), near(1 - t), far(2 - t)], 1)
    index = np.clip(base.astype(np.int64)[:, None] + np.arange(-1, 3), 0, n_in - 1)
    return Taps(index, weight, n_in)


_INTERP_NODES = {"nearest": "UpsampleNearest{}DBackward0", "nearest-exact": "_UpsampleNearestExact{}DBackward0",
                 "linear": "UpsampleLinear1DBackward0", "bilinear": "UpsampleBilinear2DBackward0",
                 "trilinear": "UpsampleTrilinear3DBackward0", "bicubic": "UpsampleBicubic2DBackward0"}
_MODE_DIMS = {"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3}


def _scaled_size(n: int, scale: float, i: int, in_python: bool, where: str) -> int | None:
    """``floor(n * scale)``, an output size from a scale factor, with torch's errors for one that is not finite or
    beyond int64: Python's types where torch computes it in Python (``recompute_scale_factor``, area mode); where
    its kernel does, None (the kernel's RuntimeError, raised by the caller after its checks of the input)."""
    product = n * scale
    if math.isfinite(product) and abs(product) < 2.0**63:
        return math.floor(product)
    if not in_python:
        return None
    if math.isnan(product):
        raise ValueError(f"interpolate(): the output size {n} * {scale} is not a number")
    if math.isinf(product):
        raise OverflowError(f"interpolate(): the output size {n} * {scale} is infinite")
    raise TypeError(f"{where}(): argument 'output_size' failed to unpack the object at pos {i + 1} with error "
                    "\"Overflow when unpacking long long\"")


def _interp_sizes(x: Tensor, nd: int, size: Any, scale_factor: Any, recompute: Any, mode: str) -> tuple:
    shape = list(x._data.shape[2:])
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    scales = None
    out: list[Any]  # ints; None for a scaled size only the kernel refuses (see _scaled_size)
    if size is not None:
        if isinstance(size, (list, tuple)):
            if len(size) != nd:
                raise ValueError(f"Input and output must have the same number of spatial dimensions, but got input with "
                                 f"spatial dimensions of {shape} and output size of {size}. Please provide input tensor "
                                 "in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format.")
            if not all(isinstance(s, (int, np.integer)) and not isinstance(s, bool) for s in size):
                raise TypeError(f"interpolate(): argument 'size' must be an int or a sequence of ints, not {size!r}")
            out = [int(s) for s in size]
        else:
            if isinstance(size, bool) or not isinstance(size, (int, np.integer)):
                raise TypeError(f"interpolate(): argument 'size' must be an int or a sequence of ints, not {size!r}")
            out = [int(size)] * nd
        for i, s in enumerate(out):
            if not -9223372036854775808 <= s < 9223372036854775808:
                raise TypeError(f"upsample_{mode}{nd}d(): argument 'output_size' failed to unpack the object at pos "
                                f"{i + 1} with error \"Overflow when unpacking long long\"")
    elif scale_factor is not None:
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != nd:
                raise ValueError(f"Input and scale_factor must have the same number of spatial dimensions, but got "
                                 f"input with spatial dimensions of {shape} and scale_factor of shape {scale_factor}. "
                                 "Please provide input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in "
                                 "(s1, s2, ...,sK) format.")
            for i, s in enumerate(scale_factor):
                if not isinstance(s, (int, float, np.integer, np.floating)):
                    raise TypeError(f"interpolate(): argument 'scale_factor' must be float or tuple of floats, but "
                                    f"found element of type {type(s).__name__} at pos {i}")
            scales = [float(s) for s in scale_factor]
        elif isinstance(scale_factor, (int, float)):
            scales = [float(scale_factor)] * nd
        else:
            raise TypeError(f"interpolate(): argument 'scale_factor' must be float or tuple of floats, not "
                            f"{type(scale_factor).__name__}")
        where = f"adaptive_avg_pool{nd}d" if mode == "area" else f"upsample_{mode}{nd}d"
        out = [_scaled_size(n, s, i, bool(recompute) or mode == "area", where)
               for i, (n, s) in enumerate(zip(shape, scales))]
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if recompute or mode == "area":
        scales = None  # output size already computed from the scale; indices then use in/out ratios
    return out, scales


@op(namespace=NN_FUNCTIONAL)
def interpolate(input: Tensor, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
                align_corners: bool | None = None, recompute_scale_factor: bool | None = None,
                antialias: bool = False) -> Tensor:
    """Resize the spatial dims of ``(N, C, *spatial)`` to ``size`` or by ``scale_factor``.

    Modes: nearest, nearest-exact, linear (3-D input), bilinear and bicubic
    (4-D), trilinear (5-D) and area (adaptive average pooling).
    ``align_corners`` maps corner pixel centres onto each other.
    """
    x = tensor_arg(input, "interpolate")
    if not isinstance(mode, str):
        raise TypeError(f"interpolate(): argument 'mode' must be str, not {type(mode).__name__}")
    ndim = x._data.ndim
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: "
                             "linear | bilinear | bicubic | trilinear")
    corners = bool(align_corners)  # None only for the modes above, which do not use it
    nd = ndim - 2
    out, scales = _interp_sizes(x, nd, size, scale_factor, recompute_scale_factor, mode)
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and ndim == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a 4-D "
                         "tensor as input")
    if mode == "lanczos" and not antialias:
        raise ValueError("Lanczos mode requires antialias=True")
    if antialias:
        raise NotImplementedError("interpolate(): antialias=True (and mode 'lanczos') is not supported by tensorlib")
    if mode in _MODE_DIMS and mode != "bicubic" and nd in (1, 2, 3) and _MODE_DIMS[mode] != nd:
        raise NotImplementedError(f"Got {ndim}D input, but {mode} mode needs {_MODE_DIMS[mode] + 2}D input")
    known = mode in ("nearest", "nearest-exact", "area") or mode in _MODE_DIMS
    if not known or nd not in (1, 2, 3) or (mode == "bicubic" and nd != 2):
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {ndim}D) for the modes: "
                                  "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact "
                                  f"(got {mode})")
    if mode == "area":
        return (adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d)[nd - 1](x, out)
    if None in out:  # a scale whose output size int64 cannot hold, found by torch's kernel
        raise RuntimeError("value cannot be converted to type int64_t without overflow")
    shape = x._data.shape[2:]
    if min(out) <= 0 or min(shape) <= 0:
        names = _LETTERS[nd] if nd < 3 else ("D", "H", "W")
        joiner = " and output" if nd == 1 else " output"
        raise RuntimeError("Input and output sizes should be greater than 0, but got input (" +
                           ", ".join(f"{c}: {n}" for c, n in zip(names, shape)) + f"){joiner} (" +
                           ", ".join(f"{c}: {n}" for c, n in zip(names, out)) + ")")
    ft = x._data.dtype.type if x._data.dtype.kind == "f" else np.float32
    if mode not in ("nearest", "nearest-exact") and x._data.size == 0:
        raise RuntimeError(f"Non-empty {ndim}D data tensor expected but got a tensor with sizes {list(x._data.shape)}")
    if mode not in ("nearest", "nearest-exact") and x._data.dtype.kind != "f":
        raise NotImplementedError(f"\"upsample_{mode}{nd}d\" not implemented for '{type_title(x._data.dtype)}'")
    maps = []
    for i in reversed(range(nd)):
        sc = None if scales is None else scales[i]
        if mode in ("nearest", "nearest-exact"):
            taps = _nearest_taps(shape[i], out[i], sc, mode == "nearest-exact")
        elif mode == "bicubic":
            taps = _cubic_taps(shape[i], out[i], sc, corners, ft)
        else:
            taps = _linear_taps(shape[i], out[i], sc, corners, ft)
        maps.append((2 + i, taps))
    return linear_map(x, tuple(maps), _node_class(_INTERP_NODES[mode].format(nd), _LinearMapNode))


@op(namespace=NN_FUNCTIONAL)
def upsample(input: Tensor, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
             align_corners: bool | None = None) -> Tensor:
    """Deprecated alias of :func:`interpolate`."""
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


@op(namespace=NN_FUNCTIONAL)
def upsample_nearest(input: Tensor, size: Any = None, scale_factor: Any = None) -> Tensor:
    """Deprecated: :func:`interpolate` with mode ``nearest``."""
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


@op(namespace=NN_FUNCTIONAL)
def upsample_bilinear(input: Tensor, size: Any = None, scale_factor: Any = None) -> Tensor:
    """Deprecated: :func:`interpolate` with mode ``bilinear`` and ``align_corners=True``."""
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


def _shuffle_checks(x: Tensor, factor: int, fname: str, what: str) -> None:
    if factor <= 0:
        raise RuntimeError(f"{fname} expects a positive {what}, but got {factor}")
    if x._data.ndim < 3:
        raise RuntimeError(f"{fname} expects input to have at least 3 dimensions, but got input with "
                           f"{x._data.ndim} dimension(s)")


@op(namespace=(NN_FUNCTIONAL, TENSORLIB))
def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """Rearrange ``(*, C * r^2, H, W)`` into ``(*, C, H * r, W * r)`` (sub-pixel convolution output)."""
    x = tensor_arg(input, "pixel_shuffle")
    r = upscale_factor
    _shuffle_checks(x, r, "pixel_shuffle", "upscale_factor")
    *lead, c, h, w = x._data.shape
    if c % (r * r):
        raise RuntimeError("pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                           f"upscale_factor, but input.size(-3)={c} is not divisible by {r * r}")
    n = len(lead)
    y = reshape(x, tuple(lead) + (c // (r * r), r, r, h, w))
    y = permute(y, list(range(n)) + [n, n + 3, n + 1, n + 4, n + 2])
    return reshape(y, tuple(lead) + (c // (r * r), h * r, w * r))


@op(namespace=(NN_FUNCTIONAL, TENSORLIB))
def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """Inverse of :func:`pixel_shuffle`: ``(*, C, H * r, W * r) -> (*, C * r^2, H, W)``."""
    x = tensor_arg(input, "pixel_unshuffle")
    r = downscale_factor
    _shuffle_checks(x, r, "pixel_unshuffle", "downscale_factor")
    *lead, c, h, w = x._data.shape
    for name, n, dim in (("height", h, -2), ("width", w, -1)):
        if n % r:
            raise RuntimeError(f"pixel_unshuffle expects {name} to be divisible by downscale_factor, but "
                               f"input.size({dim})={n} is not divisible by {r}")
    k = len(lead)
    y = reshape(x, tuple(lead) + (c, h // r, r, w // r, r))
    y = permute(y, list(range(k)) + [k, k + 2, k + 4, k + 1, k + 3])
    return reshape(y, tuple(lead) + (c * r * r, h // r, w // r))


@op(namespace=(NN_FUNCTIONAL, TENSORLIB))
def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """Interleave the channels (dim 1) of ``groups`` groups: ``(N, g * k, *) -> (N, k * g, *)`` read group-major."""
    x = tensor_arg(input, "channel_shuffle")
    a = x._data
    if a.ndim <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with sizes {list(a.shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    n, c = a.shape[:2]
    if c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups.")
    rest = a.shape[2:]
    y = reshape(x, (n, groups, c // groups) + rest)
    y = permute(y, [0, 2, 1] + list(range(3, a.ndim + 1)))
    return reshape(y, a.shape)


# -- max unpooling ----------------------------------------------------------------------------------------------


def _unpool_output_size(x: Tensor, kernel: tuple, stride: tuple, padding: tuple, output_size: Any) -> list[int]:
    """torch's ``_unpool_output_size``: the default ``(in - 1) * stride + kernel - 2 * padding``, or a checked
    request."""
    nd = len(kernel)
    size = x._data.shape[x._data.ndim - nd:]
    default = [(size[d] - 1) * stride[d] + kernel[d] - 2 * padding[d] for d in range(nd)]
    if output_size is None:
        ret = default
    else:
        requested = list(output_size)
        if len(requested) == nd + 2:
            requested = requested[2:]
        if len(requested) != nd:
            raise ValueError(f"output_size should be a sequence containing {nd} or {nd + 2} elements, but it has a "
                             f"length of '{len(requested)}'")
        for d in range(nd):
            lo, hi = default[d] - stride[d], default[d] + stride[d]
            if not lo < requested[d] < hi:
                raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between {lo} and {hi})')
        ret = requested
    for d in range(nd):
        if ret[d] < 0:
            raise ValueError("max_unpooling: output_size must contain non-negative spatial dimensions, but got "
                             f"output_size[{d}]={ret[d]}")
    return [int(v) for v in ret]


def _max_unpool(input: Tensor, indices: Tensor, nd: int, kernel_size: Any, stride: Any, padding: Any,
                output_size: Any, fname: str) -> Tensor:
    x = tensor_arg(input, fname)
    idx = tensor_arg(indices, fname, "indices", 2)
    a, ia = x._data, idx._data
    kernel_nd = max(nd, 2)  # 1-D unpooling runs as 2-D over (L, 1), as torch does
    if a.ndim not in (kernel_nd + 1, kernel_nd + 2) and not (nd == 1 and a.ndim in (2, 3)):
        raise RuntimeError(f"Input to max_unpooling{kernel_nd}d should be a {kernel_nd + 1}d or {kernel_nd + 2}d "
                           f"Tensor, but got a tensor with {a.ndim + (nd == 1)} dimensions.")
    k = _int_tuple(kernel_size, nd, "kernel_size", fname)
    s = k if stride is None else _int_tuple(stride, nd, "stride", fname)
    p = _int_tuple(padding, nd, "padding", fname)
    if output_size is not None and not isinstance(output_size, (tuple, list)):
        raise TypeError(f"{fname}(): argument 'output_size' must be a sequence of ints, not "
                        f"{type(output_size).__name__}")
    size = _unpool_output_size(x, k, s, p, output_size)
    if ia.dtype != np.int64:
        raise RuntimeError(f"elements in indices should be type int64 but got: {type_title(ia.dtype)}")
    if ia.shape != a.shape:
        shown = (lambda t: list(t) + [1]) if nd == 1 else list
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor ({shown(a.shape)}) but "
                           f"got indices tensor with shape: {shown(ia.shape)}")
    if nd == 3 and min(s) <= 0:
        raise RuntimeError(f"strides should be greater than zero, but got stride: {list(s)}")
    sizes_seen = list(a.shape) + [1] * (nd == 1)
    for axis in range(1, len(sizes_seen)):
        if sizes_seen[axis] == 0:
            raise RuntimeError(f"max_unpooling{kernel_nd}d_forward_out_cpu(): Expected input to have non-zero size for "
                               f"non-batch dimensions, but got {sizes_seen} with dimension {axis} being empty.")
    lead = a.shape[: a.ndim - nd]
    volume = math.prod(size)
    flat_idx = ia.reshape(lead + (-1,))
    bad = (flat_idx < 0) | (flat_idx >= volume)
    if bad.any():  # torch reports the last invalid index it met
        shown_size = size + [1] if nd == 1 else size
        raise RuntimeError(f"Found an invalid max index: {int(flat_idx[bad][-1])} (output volumes are of size "
                           f"{'x'.join(map(str, shown_size))})")
    flat_x = reshape(x, lead + (-1,))
    zeros = wrap(np.zeros(lead + (volume,), dtype=a.dtype))
    out = scatter(zeros, len(lead), wrap(flat_idx), flat_x)
    return reshape(out, lead + tuple(size))


def _tuple_of(v: Any, n: int) -> tuple:
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * n


def _int_tuple(v: Any, n: int, name: str, fname: str) -> tuple[int, ...]:
    """``v`` (an int, or a sequence of 1 or ``n`` ints) as ``n`` ints, or a TypeError/ValueError naming ``name``."""
    values = tuple(v) if isinstance(v, (tuple, list)) else (v,)
    if not all(isinstance(i, int) and not isinstance(i, bool) for i in values):
        raise TypeError(f"{fname}(): argument '{name}' must be an int or a tuple of ints, not {v!r}")
    if len(values) == 1:
        values *= n
    if len(values) != n:
        raise ValueError(f"{fname}(): argument '{name}' must be an int or a tuple of {n} ints, got {len(values)}")
    return values


@op(namespace=NN_FUNCTIONAL)
def max_unpool1d(input: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 output_size: Any = None) -> Tensor:
    """Inverse of :func:`max_pool1d`: each value goes back where ``indices`` says, zeros elsewhere."""
    return _max_unpool(input, indices, 1, kernel_size, stride, padding, output_size, "max_unpool1d")


@op(namespace=NN_FUNCTIONAL)
def max_unpool2d(input: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 output_size: Any = None) -> Tensor:
    """Inverse of :func:`max_pool2d` (indices are flat positions in each output plane); see :func:`max_unpool1d`."""
    return _max_unpool(input, indices, 2, kernel_size, stride, padding, output_size, "max_unpool2d")


@op(namespace=NN_FUNCTIONAL)
def max_unpool3d(input: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 output_size: Any = None) -> Tensor:
    """Inverse of :func:`max_pool3d`; see :func:`max_unpool1d`."""
    return _max_unpool(input, indices, 3, kernel_size, stride, padding, output_size, "max_unpool3d")


# -- fractional max pooling --------------------------------------------------------------------------------------


def _fractional_starts(samples: np.ndarray, n_in: int, n_out: int, pool: int) -> np.ndarray:
    """torch's ``generate_intervals`` for every plane at once, in the samples' dtype: the window starts
    ``(planes, n_out)``."""
    ft = samples.dtype.type
    starts = np.zeros(samples.shape + (n_out,), dtype=np.int64)
    if n_out > 1:
        alpha = ft(n_in - pool) / ft(n_out - 1)
        i = np.arange(n_out - 1, dtype=samples.dtype)
        s = samples[..., None]
        starts[..., :-1] = ((i + s) * alpha).astype(np.int64) - (s * alpha).astype(np.int64)
    if n_out > 0:
        starts[..., -1] = n_in - pool
    return starts


def _parsed_ints(v: Any, n: int, fname: str, name: str, pos: int) -> tuple[int, ...]:
    """An ``int[n]`` argument as torch's parser reads it: one int (repeated ``n`` times) or a sequence of ints
    (its length is the caller's to check)."""
    if isinstance(v, (tuple, list)):
        return tuple(int_list_arg(v, fname, name, pos))
    if isinstance(v, bool) or not (isinstance(v, (int, np.integer)) or (
            isinstance(v, Tensor) and v._data.ndim == 0 and v._data.dtype.kind in "iu")):
        raise TypeError(f"{fname}(): argument '{name}' (position {pos}) must be tuple of ints, not {type(v).__name__}")
    return (int_arg(v, fname, name, pos),) * n


def _ratio_size(size: Any, ratio: Any, fname: str) -> int:
    """The output size ``int(size * ratio)`` that torch computes from one ``output_ratio`` element, with
    torch's exception types for elements that are not finite numbers."""
    if isinstance(ratio, Tensor):
        return int(size * ratio)  # a one-element tensor, as torch (more elements: Tensor.__int__'s error)
    if isinstance(ratio, str):
        # torch repeats the string ``size`` times and reads it as an int
        text = size * ratio
        if not text.strip().lstrip("+-").isdigit():
            raise ValueError(f"{fname}(): output_ratio element {ratio!r} is not a number")
        return int(text)
    if not isinstance(ratio, (int, float, np.integer, np.floating)):
        raise TypeError(f"{fname}(): argument 'output_ratio' must be a float or a tuple of floats, but found "
                        f"element of type {type(ratio).__name__}")
    product = size * ratio
    if math.isnan(product):
        raise ValueError(f"{fname}(): output_ratio element {ratio} gives an output size that is not a number")
    if math.isinf(product):
        raise OverflowError(f"{fname}(): output_ratio element {ratio} gives an infinite output size")
    return int(product)


def _fractional_max_pool(input: Tensor, nd: int, kernel_size: Any, output_size: Any, output_ratio: Any,
                         samples: Tensor | None) -> tuple[Tensor, Tensor]:
    fname = f"fractional_max_pool{nd}d"
    x = tensor_arg(input, fname)
    a = x._data
    if output_size is None and output_ratio is None:
        raise ValueError(f"{fname} requires specifying either an output_size or an output_ratio")
    if output_size is None:
        if nd == 2 and not isinstance(output_ratio, (tuple, list)):
            # torch's 2-D form takes the length of the ratio, so a single number fails there (the modules accept it)
            raise TypeError(f"object of type '{type(output_ratio).__name__}' has no len()")
        if isinstance(output_ratio, bool) or not isinstance(output_ratio, (int, float, tuple, list)):
            raise TypeError(f"{fname}(): argument 'output_ratio' must be a float or a tuple of floats, not "
                            f"{type(output_ratio).__name__}")
        if nd == 2 and isinstance(output_ratio, (tuple, list)) and len(output_ratio) > 2:
            raise ValueError(f"{fname} requires output_ratio to either be a single Int or tuple of Ints.")
        ratio = _tuple_of(output_ratio, nd)
        if len(ratio) != nd:
            raise IndexError(f"{fname}: output_ratio must hold {nd} values, got {len(ratio)}")
        output_size = [_ratio_size(x.size(d - nd), ratio[d], fname) for d in range(nd)]
    if samples is None:
        if a.ndim < nd + 1:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-max(a.ndim, 1)}, "
                             f"{max(a.ndim, 1) - 1}], but got {-nd - 1})")
        if a.dtype.kind != "f":
            raise NotImplementedError(f"\"check_uniform_bounds\" not implemented for '{type_title(a.dtype)}'")
        n_batch = 1 if a.ndim == nd + 1 else a.shape[0]
        samples_a = _rng(None).random((n_batch, a.shape[a.ndim - nd - 1], nd)).astype(a.dtype)
    else:
        samples_a = tensor_arg(samples, fname, "_random_samples")._data
    kernel = _parsed_ints(kernel_size, nd, fname, "kernel_size", 2)
    out = _parsed_ints(output_size, nd, fname, "output_size", 3)
    which = "three Ints" if nd == 3 else "Ints"
    if len(kernel) != nd:
        raise RuntimeError(f"{fname}: kernel_size must either be a single Int or tuple of {which}")
    if len(out) != nd:
        raise RuntimeError(f"{fname}: output_size must either be a single Int or tuple of {which}")
    if a.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"{fname}(): Expected {nd + 1}D or {nd + 2}D tensor, but got: {list(a.shape)}")
    for d in range(a.ndim - nd - 1, a.ndim):
        if a.shape[d] == 0:
            raise RuntimeError(f"{fname}(): Expected input to have non-zero size for non-batch dimensions, but "
                               f"got{list(a.shape)} with dimension {d} being empty.")
    size = a.shape[a.ndim - nd:]
    names = ("time", "height", "width")[3 - nd:]
    for d in range(nd):
        if out[d] + kernel[d] - 1 > size[d]:
            where = "fractional_max_pool3d_out()" if nd == 3 else f"{fname}()"
            raise RuntimeError(f"{where}: pool {names[d]} {kernel[d]} too large relative to input {names[d]} "
                               f"{size[d]}")
    if min(out) < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(out)}: "
                           f"{list(a.shape[: a.ndim - nd]) + list(out)}")
    if samples_a.ndim != 3:
        raise RuntimeError(f"Expect _random_samples to have 3 dimensions, got {samples_a.ndim}")
    batch = 1 if a.ndim == nd + 1 else a.shape[0]
    if samples_a.shape[0] < batch:
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if samples_a.shape[2] != nd:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {nd}; got {samples_a.shape[2]}.")
    if samples_a.dtype != a.dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    channels = a.shape[a.ndim - nd - 1]
    lead = a.shape[: a.ndim - nd]
    planes: np.ndarray = a.reshape((-1,) + size)  # (batch * channels, *size)
    plane_samples = samples_a[:batch, :channels].reshape(-1, nd)
    # torch's sample order: 2-D (W, H); 3-D (T, H, W)
    order: tuple[int, ...] = (1, 0) if nd == 2 else (0, 1, 2)
    # window taps per plane and axis: (planes, out_d, k_d)
    taps = [_fractional_starts(plane_samples[:, order[d]], size[d], out[d], kernel[d])[..., None] + np.arange(kernel[d])
            for d in range(nd)]
    p = planes.shape[0]
    if p == 0 or min(out) == 0 or min(kernel) <= 0:
        vals = np.zeros(lead + tuple(out), a.dtype)
        flat = np.zeros(lead + tuple(out), np.int64)
    else:
        # gather every window: (planes, *out, *kernel), flat positions in the plane alongside
        pos = np.zeros((p,) + tuple(out) + tuple(kernel), dtype=np.int64)
        inner = 1
        for d in reversed(range(nd)):
            shape = [p] + [1] * (2 * nd)
            shape[1 + d] = out[d]
            shape[1 + nd + d] = kernel[d]
            pos = pos + np.clip(taps[d], 0, size[d] - 1).reshape(shape) * inner
            inner *= size[d]
        windows: np.ndarray = np.take_along_axis(planes.reshape(p, -1), pos.reshape(p, -1), axis=1).reshape(pos.shape)
        windows = windows.reshape((p,) + tuple(out) + (-1,))
        cand = pos.reshape(windows.shape)
        # the first maximum in row-major order, or the last NaN, as torch's scan picks
        best = np.argmax(windows, axis=-1)
        nan = np.isnan(windows) if a.dtype.kind == "f" else np.zeros(windows.shape, bool)
        if nan.any():
            last_nan = math.prod(kernel) - 1 - np.argmax(nan[..., ::-1], axis=-1)
            best = np.where(nan.any(axis=-1), last_nan, best)
        vals = np.take_along_axis(windows, best[..., None], axis=-1)[..., 0].reshape(lead + tuple(out))
        flat = np.take_along_axis(cand, best[..., None], axis=-1)[..., 0].reshape(lead + tuple(out))
    indices = wrap(np.ascontiguousarray(flat))
    if x._requires_grad and GRAD.enabled:
        res, node = record(_node_class(f"FractionalMaxPool{nd}DBackward0", _MaxNode), np.ascontiguousarray(vals), (x,))
        node.index, node.shape, node.nd = np.ascontiguousarray(flat), a.shape, nd
        return res, indices
    return wrap(np.ascontiguousarray(vals)), indices


@op(namespace=NN_FUNCTIONAL)
def fractional_max_pool2d_with_indices(input: Tensor, kernel_size: Any, output_size: Any = None,
                                       output_ratio: Any = None, return_indices: bool = False,
                                       _random_samples: Tensor | None = None) -> tuple[Tensor, Tensor]:
    """2-D fractional max pooling (Graham): windows of ``kernel_size`` at pseudo-random, increasing positions
    chosen so the output is ``output_size`` (or ``output_ratio`` of the input); returns ``(values, indices)``.

    ``_random_samples`` ``(N, C, 2)`` in ``[0, 1)`` fixes the positions (drawn from the default generator otherwise).
    """
    return _fractional_max_pool(input, 2, kernel_size, output_size, output_ratio, _random_samples)


@op(namespace=NN_FUNCTIONAL)
def fractional_max_pool2d(input: Tensor, kernel_size: Any, output_size: Any = None, output_ratio: Any = None,
                          return_indices: bool = False, _random_samples: Tensor | None = None) -> Any:
    """2-D fractional max pooling; see :func:`fractional_max_pool2d_with_indices`."""
    out, idx = _fractional_max_pool(input, 2, kernel_size, output_size, output_ratio, _random_samples)
    return (out, idx) if return_indices else out


@op(namespace=NN_FUNCTIONAL)
def fractional_max_pool3d_with_indices(input: Tensor, kernel_size: Any, output_size: Any = None,
                                       output_ratio: Any = None, return_indices: bool = False,
                                       _random_samples: Tensor | None = None) -> tuple[Tensor, Tensor]:
    """3-D fractional max pooling, returning ``(values, indices)``; ``_random_samples`` is ``(N, C, 3)``."""
    return _fractional_max_pool(input, 3, kernel_size, output_size, output_ratio, _random_samples)


@op(namespace=NN_FUNCTIONAL)
def fractional_max_pool3d(input: Tensor, kernel_size: Any, output_size: Any = None, output_ratio: Any = None,
                          return_indices: bool = False, _random_samples: Tensor | None = None) -> Any:
    """3-D fractional max pooling; see :func:`fractional_max_pool3d_with_indices`."""
    out, idx = _fractional_max_pool(input, 3, kernel_size, output_size, output_ratio, _random_samples)
    return (out, idx) if return_indices else out
