"""Convolutions and sliding blocks: ``conv*``, ``conv_transpose*``, ``unfold``, ``fold``.

Everything here is built from one pair of primitives, im2col (copy every
sliding block of the input into a column) and col2im (add columns back into an
image). Each is the other's adjoint, hence its backward, so gradients of any
order come out of the autograd engine. A convolution is ``W @ im2col(x)``; a
transposed convolution is ``col2im(W^T @ x)``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import as_strided

from .._autograd.graph import Node, SavedTensor, save_input, unpack
from .._registry import NN_FUNCTIONAL, TENSORLIB, op
from .._tensor import Tensor, legacy_type_name
from ..ops import broadcast
from ..ops._util import GRAD, not_implemented, record, tensor_arg, wrap
from ..ops.arithmetic import _conj
from ..ops.broadcast import _add_reduce  # (typed loosely: NumPy 2.5's stubs lack some overloads)
from ..ops.linalg import matmul
from ..ops.shape import permute, reshape, squeeze, transpose, unsqueeze

__all__ = [
    "Blocks", "col2im", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
    "fold", "im2col", "int_tuple", "unfold",
]


class Blocks:
    """Where the sliding blocks of a kernel sit over the spatial dims of an image.

    Along each dim, block ``b`` reads the image at ``b * stride - pad + j * dilation``
    for kernel offset ``j``; positions outside ``[0, size)`` read as zero.
    ``blocks`` is given rather than derived, so a transposed convolution can use
    the same geometry with any output padding. Columns are laid out
    ``(N, C * K, L)`` as torch's unfold, or ``(C * K, N * L)`` with
    ``batch_last``, which turns a whole convolution into one matrix product.
    """

    __slots__ = ("size", "kernel", "dilation", "stride", "pad", "blocks", "batch_last")

    def __init__(self, size: tuple, kernel: tuple, dilation: tuple, stride: tuple, pad: tuple, blocks: tuple,
                 batch_last: bool = False) -> None:
        self.size, self.kernel, self.dilation = tuple(size), tuple(kernel), tuple(dilation)
        self.stride, self.pad, self.blocks = tuple(stride), tuple(pad), tuple(blocks)
        self.batch_last = batch_last

    @property
    def nkernel(self) -> int:
        return math.prod(self.kernel)

    @property
    def nblocks(self) -> int:
        return math.prod(self.blocks)

    def extent(self) -> tuple:
        """Length per dim of a zero-padded buffer holding the image and every block."""
        return tuple(
            max(p + n, s * (b - 1) + d * (k - 1) + 1)
            for n, k, d, s, p, b in zip(self.size, self.kernel, self.dilation, self.stride, self.pad, self.blocks)
        )

    def inner(self) -> tuple:
        """The image's place inside the buffer of :meth:`extent`."""
        return tuple(slice(p, p + n) for p, n in zip(self.pad, self.size))

    def window(self, offset: tuple[int, ...]) -> tuple:
        """The positions (in the buffer of :meth:`extent`) that kernel ``offset`` reads, one per block."""
        return tuple(slice(j * d, j * d + s * (b - 1) + 1, s)
                     for j, d, s, b in zip(offset, self.dilation, self.stride, self.blocks))


def _padded(a: np.ndarray, geo: Blocks) -> np.ndarray:
    ext = geo.extent()
    if ext == a.shape[2:] and not any(geo.pad):
        return a
    buf = np.zeros(a.shape[:2] + ext, dtype=a.dtype)
    buf[(slice(None), slice(None)) + geo.inner()] = a
    return buf


def _im2col_np(a: np.ndarray, geo: Blocks) -> np.ndarray:
    """``(N, C, *size)`` to columns, block values in row-major kernel order (see :class:`Blocks`)."""
    n, c = a.shape[:2]
    buf = _padded(a, geo)
    sn, sc, *sp = buf.strides
    # a strided view puts every (kernel offset, block) pair on its own axes: no copy until the reshape
    kernel = tuple(s * d for s, d in zip(sp, geo.dilation))
    blocks = tuple(s * t for s, t in zip(sp, geo.stride))
    if geo.batch_last:
        windows = as_strided(buf, (c,) + geo.kernel + (n,) + geo.blocks, (sc,) + kernel + (sn,) + blocks,
                             writeable=False)
        return windows.reshape(c * geo.nkernel, n * geo.nblocks)
    windows = as_strided(buf, (n, c) + geo.kernel + geo.blocks, (sn, sc) + kernel + blocks, writeable=False)
    return windows.reshape(n, c * geo.nkernel, geo.nblocks)


def _col2im_np(cols: np.ndarray, geo: Blocks) -> np.ndarray:
    """The adjoint of :func:`_im2col_np`: add every column back where its block came from."""
    if geo.batch_last:
        c, n = cols.shape[0] // geo.nkernel, cols.shape[1] // max(geo.nblocks, 1)
        # (C, *kernel, N, *blocks) viewed with the batch first, like the image
        cols = np.moveaxis(cols.reshape((c,) + geo.kernel + (n,) + geo.blocks), len(geo.kernel) + 1, 0)
    else:
        n, c = cols.shape[0], cols.shape[1] // geo.nkernel
        cols = cols.reshape((n, c) + geo.kernel + geo.blocks)
    buf = np.zeros((n, c) + geo.extent(), dtype=cols.dtype)
    if geo.nblocks and n and c:
        lead = (slice(None), slice(None))
        # one strided add per kernel offset: blocks of different offsets overlap, blocks of one do not
        for off in np.ndindex(*geo.kernel):
            buf[lead + geo.window(off)] += cols[lead + off]
    return buf[(slice(None), slice(None)) + geo.inner()]


# -- columns with the batch innermost -----------------------------------------------------------------------
#
# The columns' copies run along their innermost axis. With the batch first (``_im2col_np``), each run is one row of
# blocks: short for small images and a single element for strided kernels, and NumPy's per-run cost dominates. With
# the batch innermost, the columns are laid out ``(C * K, *blocks, N)`` and each run is a row of blocks times the
# batch (or the batch alone when strided): 2-5x faster copies for rows of blocks shorter than 28, and col2im's adds
# 1.5-4x faster (measured over batches 8-64, channels 1-64, images 8-56, kernels 3 and 5, strides 1 and 2).


def _batch_inner(geo: Blocks) -> bool:
    """Whether the batch-innermost columns copy faster than the batch-first ones for this geometry."""
    return geo.blocks[-1] * geo.stride[-1] < 28


def _batch_inner_image(a: np.ndarray, geo: Blocks) -> np.ndarray:
    """``(N, C, *size)`` as ``(C, *extent, N)``: the image with the batch innermost, zero padded."""
    moved = np.moveaxis(a, 0, -1)
    ext = geo.extent()
    if ext == a.shape[2:] and not any(geo.pad):
        return np.ascontiguousarray(moved)
    buf = np.zeros(a.shape[1:2] + ext + a.shape[:1], dtype=a.dtype)
    buf[(slice(None),) + geo.inner()] = moved
    return buf


def _im2col_batch_inner(a: np.ndarray, geo: Blocks) -> np.ndarray:
    """``(N, C, *size)`` to columns ``(C * K, prod(blocks) * N)``, the batch innermost in each block."""
    n, c = a.shape[:2]
    buf = _batch_inner_image(a, geo)
    sc, *sp, sn = buf.strides
    kernel = tuple(st * d for st, d in zip(sp, geo.dilation))
    blocks = tuple(st * t for st, t in zip(sp, geo.stride))
    windows = as_strided(buf, (c,) + geo.kernel + geo.blocks + (n,), (sc,) + kernel + blocks + (sn,), writeable=False)
    return windows.reshape(c * geo.nkernel, geo.nblocks * n)


def _col2im_batch_inner(cols: np.ndarray, geo: Blocks, n: int, kernel_first: bool = False) -> np.ndarray:
    """The adjoint of :func:`_im2col_batch_inner`: the image ``(N, C, *size)``, contiguous. ``kernel_first``: the
    columns come as ``(K, C, width)``, ordered by kernel offset, then channel (else ``(C * K, width)``)."""
    c = cols.shape[1] if kernel_first else cols.shape[0] // geo.nkernel
    if kernel_first:
        cv = cols.reshape(geo.kernel + (c,) + geo.blocks + (n,))
    else:
        cv = np.moveaxis(cols.reshape((c,) + geo.kernel + geo.blocks + (n,)), 0, len(geo.kernel))
    buf = np.zeros((c,) + geo.extent() + (n,), dtype=cols.dtype)
    if geo.nblocks and n and c:
        # one strided add per kernel offset: blocks of different offsets overlap, blocks of one do not
        for off in np.ndindex(*geo.kernel):
            buf[(slice(None),) + geo.window(off)] += cv[off]
    return np.ascontiguousarray(np.moveaxis(buf[(slice(None),) + geo.inner()], -1, 0))


def _conv_grads_on_arrays(gd: np.ndarray, a: np.ndarray, wd: np.ndarray, geo: Blocks, groups: int, need_x: bool,
                          need_w: bool) -> tuple[Tensor | None, Tensor | None]:
    """A convolution's input and weight gradients on the arrays (nothing recorded): the products of
    :func:`_conv_grads`, on batch-innermost columns (col2im always; im2col where :func:`_batch_inner`)."""
    n, c = a.shape[:2]
    o = wd.shape[0]
    ck = c // groups * geo.nkernel
    width = geo.nblocks * n
    batch_inner = _batch_inner(geo)
    # the output gradient as (groups, O / groups, *blocks, N), the batch-innermost columns' order (col2im's, and
    # im2col's where batch_inner)
    gm = np.ascontiguousarray(np.moveaxis(gd, 0, -1)).reshape(groups, o // groups, width) if need_x or batch_inner \
        else None
    gi = gw = None
    if need_w:
        if batch_inner and gm is not None:
            cols = _im2col_batch_inner(a, geo).reshape(groups, ck, width)
            rows = gm
        else:
            cols = _im2col_np(a, geo).reshape(groups, ck, width)
            rows = np.ascontiguousarray(np.moveaxis(gd, 0, 1)).reshape(groups, o // groups, width)
        if o // groups < ck:
            # the same product transposed, with the longer side as its rows: OpenBLAS runs these thin products
            # 1.3-2x faster that way round (measured on convolutions of 1-128 channels)
            product = np.ascontiguousarray(np.matmul(cols, rows.transpose(0, 2, 1)).transpose(0, 2, 1))
        else:
            product = np.matmul(rows, cols.transpose(0, 2, 1))
        gw = wrap(product.reshape(wd.shape))
    if need_x and gm is not None:
        if groups == 1 and c * width * a.itemsize <= 131072:
            # one product per kernel offset, (C, O) @ (O, width): each result stays in cache for col2im's adds
            # (1.2-2x faster than one (C * K, O) @ (O, width) product for such sizes)
            per_offset = np.ascontiguousarray(wd.reshape(o, c, geo.nkernel).transpose(2, 1, 0))
            gi = wrap(_col2im_batch_inner(np.matmul(per_offset, gm[0]), geo, n, kernel_first=True))
        else:
            cols = np.matmul(wd.reshape(groups, o // groups, ck).transpose(0, 2, 1), gm)
            gi = wrap(_col2im_batch_inner(cols.reshape(groups * ck, width), geo, n))
    return gi, gw


def _transposed_grads_on_arrays(gd: np.ndarray, a: np.ndarray, wd: np.ndarray, geo: Blocks, groups: int,
                                need_x: bool, need_w: bool) -> tuple[Tensor | None, Tensor | None]:
    """A transposed convolution's input and weight gradients on the arrays: the products of
    :func:`_transposed_grads` on batch-innermost columns of the output gradient."""
    n, cin = a.shape[:2]
    width = geo.nblocks * n
    gcols = _im2col_batch_inner(gd, geo).reshape(groups, gd.shape[1] // groups * geo.nkernel, width)
    gi = gw = None
    if need_x:
        wm = wd.reshape(groups, cin // groups, wd.size // max(cin, 1))
        gi = np.matmul(wm, gcols).reshape((cin,) + geo.blocks + (n,))
        gi = wrap(np.ascontiguousarray(np.moveaxis(gi, -1, 0)))
    if need_w:
        xm = np.ascontiguousarray(np.moveaxis(a, 0, -1)).reshape(groups, cin // groups, width)
        gw = wrap(np.matmul(xm, gcols.transpose(0, 2, 1)).reshape(wd.shape))
    return gi, gw


class Im2ColBackward0(Node):
    """Backward of im2col: col2im of the gradient."""

    __slots__ = ("geo",)
    geo: Blocks

    def backward(self, g: Tensor) -> tuple:
        return (col2im(g, self.geo),)


class Col2ImBackward0(Node):
    """Backward of col2im: im2col of the gradient."""

    __slots__ = ("geo",)
    geo: Blocks

    def backward(self, g: Tensor) -> tuple:
        return (im2col(g, self.geo),)


def im2col(x: Tensor, geo: Blocks) -> Tensor:
    """Differentiable im2col of a batched image ``(N, C, *geo.size)``."""
    r = _im2col_np(x._data, geo)
    if x._requires_grad and GRAD.enabled:
        out, node = record(Im2ColBackward0, r, (x,))
        node.geo = geo
        return out
    return wrap(r)


def col2im(x: Tensor, geo: Blocks) -> Tensor:
    """Differentiable col2im of columns ``(N, C * prod(kernel), prod(blocks))``."""
    r = _col2im_np(x._data, geo)
    if x._requires_grad and GRAD.enabled:
        out, node = record(Col2ImBackward0, r, (x,))
        node.geo = geo
        return out
    return wrap(r)


# -- argument checks ----------------------------------------------------------------------------------


def int_tuple(v: Any, n: int, fname: str, argname: str) -> tuple[int, ...] | None:
    """An int or a sequence of ints as an ``n``-tuple (a 1-sequence is repeated); None for a wrong length."""
    if isinstance(v, Tensor):
        v = v.tolist()
    items = list(v) if isinstance(v, (tuple, list)) else [v]
    for e in items:
        if isinstance(e, bool) or not hasattr(e, "__index__"):
            raise TypeError(f"{fname}(): argument '{argname}' must be tuple of ints, but found element of type "
                            f"{type(e).__name__}")
    items = [int(e) for e in items]
    if len(items) == 1:
        return tuple(items) * n
    return tuple(items) if len(items) == n else None


def _conv_tuple(v: Any, n: int, fname: str, argname: str) -> tuple:
    t = int_tuple(v, n, fname, argname)
    if t is None:
        raise RuntimeError(f"expected {argname} to be a single integer value or a list of {n} values to match the "
                           f"convolution dimensions, but got {argname}={list(v)}")
    return t


_C_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int", "int32": "int"}


def _check_dtypes(x: Tensor, w: Tensor, b: Tensor | None) -> None:
    if x._data.dtype != w._data.dtype:
        raise RuntimeError(f"Input type ({legacy_type_name(x._data.dtype)}) and weight type "
                           f"({legacy_type_name(w._data.dtype)}) should be the same or input should be a MKLDNN tensor "
                           "and weight is a dense tensor")
    if b is not None and b._data.dtype != x._data.dtype:
        names = [_C_NAMES.get(str(t._data.dtype), str(t._data.dtype)) for t in (x, b)]
        raise RuntimeError(f"Input type ({names[0]}) and bias type ({names[1]}) should be the same")


def _check_common(x: Tensor, w: Tensor, b: Tensor | None, nd: int, stride: tuple, dilation: tuple, groups: Any,
                  transposed: bool) -> None:
    if w._data.ndim - 2 != nd:
        raise RuntimeError(f"expected stride to be a single integer value or a list of {w._data.ndim - 2} values to "
                           f"match the convolution dimensions, but got stride={list(stride)}")
    if isinstance(groups, bool) or not hasattr(groups, "__index__"):
        raise TypeError(f"argument 'groups' must be int, not {type(groups).__name__}")
    if min(stride) <= 0:
        raise RuntimeError("non-positive stride is not supported")
    if min(dilation) <= 0:
        raise RuntimeError("non-positive dilation is not supported")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    ws, xs = list(w._data.shape), list(x._data.shape)
    if ws[0] < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, but got "
                           f"weight of size {ws} instead")
    if ws[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but "
                           f"got weight of size [{ws}] instead")
    if transposed:
        if xs[1] != ws[0]:
            raise RuntimeError(f"Given transposed=1, weight of size {ws}, expected input{xs} to have {ws[0]} channels, "
                               f"but got {xs[1]} channels instead")
        nout = ws[1] * groups
    else:
        if xs[1] != ws[1] * groups:
            raise RuntimeError(f"Given groups={groups}, weight of size {ws}, expected input{xs} to have "
                               f"{ws[1] * groups} channels, but got {xs[1]} channels instead")
        nout = ws[0]
    if b is not None and (b._data.ndim != 1 or b._data.shape[0] != nout):
        prefix = "Given transposed=1, weight" if transposed else "Given weight"
        raise RuntimeError(f"{prefix} of size {ws}, expected bias to be 1-dimensional with {nout} elements, but got "
                           f"bias of size {list(b._data.shape)} instead")


def _batched(x: Tensor, nd: int, fname: str) -> tuple[Tensor, bool]:
    """``x`` with a batch dim (added for unbatched input) and whether one was added."""
    if x._data.ndim == nd + 1:
        return unsqueeze(x, 0), True
    if x._data.ndim != nd + 2:
        raise RuntimeError(f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to {fname}, but got input "
                           f"of size: {list(x._data.shape)}")
    return x, False


# -- convolution ----------------------------------------------------------------------------------------


class ConvolutionBackward0(Node):
    """Backward of (transposed) convolution, written with im2col/col2im and matmul so it is differentiable."""

    __slots__ = ("input", "weight", "geo", "groups", "transposed", "has_bias")
    _saved_slots = ("input", "weight")
    input: SavedTensor
    weight: SavedTensor
    geo: Blocks
    groups: int
    transposed: bool
    has_bias: bool

    def apply(self, grads: list) -> tuple:
        g = grads[0]
        # complex operands enter conjugated: the gradient of a holomorphic (bilinear) product
        x, w = _conj(unpack(self, self.input)), _conj(unpack(self, self.weight))
        c = x._data.shape[1]
        # nothing to record, one dtype: NumPy products on the arrays
        on_arrays = not GRAD.enabled and type(g) is Tensor and g._data.dtype == x._data.dtype == w._data.dtype
        real = g._data.dtype.kind == "f"
        args = (g._data, x._data, w._data, self.geo)
        if on_arrays and not self.transposed and self.groups == c > 1 and w._data.shape[1] == 1:
            # depthwise (one input channel per group): one multiply-add per kernel offset, no per-group products
            gi, gw = _depthwise_grads(*args, self.needs(0), self.needs(1))
        elif on_arrays and real and not self.transposed:
            gi, gw = _conv_grads_on_arrays(*args, self.groups, self.needs(0), self.needs(1))
        elif on_arrays and real and _batch_inner(self.geo):
            gi, gw = _transposed_grads_on_arrays(*args, self.groups, self.needs(0), self.needs(1))
        else:
            grads_fn = _transposed_grads if self.transposed else _conv_grads
            gi, gw = grads_fn(g, x, w, self.geo, self.groups, self.needs(0), self.needs(1))
        gb = None
        if self.has_bias and self.needs(2):
            gb = broadcast.sum(g, [0] + list(range(2, g._data.ndim)))
        return gi, gw, gb


def _depthwise_grads(gd: np.ndarray, a: np.ndarray, wd: np.ndarray, geo: Blocks, need_x: bool,
                     need_w: bool) -> tuple[Tensor | None, Tensor | None]:
    """A depthwise convolution's input and weight gradients on the arrays (nothing recorded): for each kernel
    offset, the output gradient times that offset's weight added back where the offset read, and the offset's
    weight gradient as one contraction of the gradient with the input it read.

    The images are laid out with the batch innermost (``(C, *extent, N)``), so that each window's passes run along
    a row of blocks times the batch rather than a row of blocks alone (1.4-1.9x faster).
    """
    n, c = a.shape[:2]
    m = wd.shape[0] // c  # outputs per input channel
    blocks = gd.shape[2:]
    nd = len(blocks)
    gb = np.ascontiguousarray(np.moveaxis(gd, 0, -1)).reshape((c, m) + blocks + (n,))
    w3 = wd.reshape((c, m) + geo.kernel)
    buf = np.zeros((c,) + geo.extent() + (n,), dtype=a.dtype) if need_x else None
    image = _batch_inner_image(a, geo) if need_w else None
    gw = np.empty((c, m) + geo.kernel, dtype=a.dtype) if need_w else None
    space = "xyz"[:nd]
    scaled = np.empty(gb.shape[:1] + gb.shape[2:], dtype=a.dtype) if buf is not None and m == 1 else None
    for off in np.ndindex(*geo.kernel):
        window = (slice(None),) + geo.window(off)
        weights = w3[(slice(None), slice(None)) + off].reshape((c, m) + (1,) * (nd + 1))
        if buf is not None:
            if scaled is not None:
                np.multiply(gb[:, 0], weights[:, 0], out=scaled)
                buf[window] += scaled
            else:
                buf[window] += _add_reduce(gb * weights, 1)
        if gw is not None and image is not None:
            if m == 1:  # (einsum takes a slower loop with the extra axis)
                gw[(slice(None), 0) + off] = np.einsum(f"c{space}n,c{space}n->c", image[window], gb[:, 0])
            else:
                gw[(slice(None), slice(None)) + off] = np.einsum(f"c{space}n,cm{space}n->cm", image[window], gb)
    gi = None if buf is None else wrap(np.ascontiguousarray(np.moveaxis(buf[(slice(None),) + geo.inner()], -1, 0)))
    return gi, None if gw is None else wrap(gw.reshape(wd.shape))


def _group_rows(t: Tensor, groups: int) -> Tensor:
    """``(N, C, *spatial) -> (groups, C / groups, N * prod(spatial))``: channels as rows, batch and space as columns."""
    n, c, *spatial = t._data.shape
    size = math.prod(spatial)
    moved = permute(reshape(t, (n, c, size)), (1, 0, 2))
    return reshape(moved, (groups, c // groups, n * size))


def _ungroup_rows(t: Tensor, shape: tuple) -> Tensor:
    """Inverse of :func:`_group_rows` for an image of ``shape``."""
    n, c, *spatial = shape
    return reshape(permute(reshape(t, (c, n, math.prod(spatial))), (1, 0, 2)), shape)


def _conv_grads(g: Tensor, x: Tensor, w: Tensor, geo: Blocks, groups: int, need_x: bool, need_w: bool) -> tuple:
    gm = _group_rows(g, groups)
    gi = gw = None
    if need_x:
        wm = reshape(w, (groups, w._data.shape[0] // groups, w._data.size // w._data.shape[0]))
        cols = matmul(transpose(wm, 1, 2), gm)
        gi = col2im(reshape(cols, (x._data.shape[1] * geo.nkernel, cols._data.shape[-1])), geo)
    if need_w:
        cols = reshape(im2col(x, geo), (groups, x._data.shape[1] // groups * geo.nkernel, gm._data.shape[-1]))
        gw = reshape(matmul(gm, transpose(cols, 1, 2)), w._data.shape)
    return gi, gw


def _transposed_grads(g: Tensor, x: Tensor, w: Tensor, geo: Blocks, groups: int, need_x: bool, need_w: bool) -> tuple:
    cin = x._data.shape[1]
    gcols = reshape(im2col(g, geo), (groups, g._data.shape[1] // groups * geo.nkernel,
                                       x._data.shape[0] * geo.nblocks))
    gi = gw = None
    if need_x:
        wm = reshape(w, (groups, cin // groups, w._data.size // max(cin, 1)))
        gi = _ungroup_rows(matmul(wm, gcols), x._data.shape)
    if need_w:
        gw = reshape(matmul(_group_rows(x, groups), transpose(gcols, 1, 2)), w._data.shape)
    return gi, gw


def _finish(r: np.ndarray, x: Tensor, w: Tensor, b: Tensor | None, geo: Blocks, groups: int, transposed: bool) -> Tensor:
    if b is not None:
        r += b._data.reshape((-1,) + (1,) * len(geo.kernel))
    if GRAD.enabled and (x._requires_grad or w._requires_grad or (b is not None and b._requires_grad)):
        out, node = record(ConvolutionBackward0, r, (x, w, b))
        node.input, node.weight = save_input(x), save_input(w)
        node.geo, node.groups, node.transposed, node.has_bias = geo, groups, transposed, b is not None
        return out
    return wrap(r)


def _conv_geometry(x: Tensor, w: Tensor, stride: tuple, padding: Any, dilation: tuple, nd: int, fname: str) -> Blocks:
    size, kernel = x._data.shape[2:], w._data.shape[2:]
    if isinstance(padding, str):
        if padding == "valid":
            pad = (0,) * nd
        else:  # "same": odd total padding puts the extra zero on the right, as torch does
            pad = tuple(d * (k - 1) // 2 for k, d in zip(kernel, dilation))
            return Blocks(size, kernel, dilation, stride, pad, size, batch_last=True)
    else:
        pad = _conv_tuple(padding, nd, fname, "padding")
        if min(pad) < 0:
            raise RuntimeError("negative padding is not supported")
    padded = [n + 2 * p for n, p in zip(size, pad)]
    eff = [d * (k - 1) + 1 for k, d in zip(kernel, dilation)]
    if any(p < e for p, e in zip(padded, eff)):
        raise RuntimeError(f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). Kernel size: "
                           f"({' x '.join(map(str, eff))}). Kernel size can't be greater than actual input size")
    blocks = tuple((p - e) // s + 1 for p, e, s in zip(padded, eff, stride))
    return Blocks(size, kernel, dilation, stride, pad, blocks, batch_last=True)


def _conv(input: Tensor, weight: Tensor, bias: Tensor | None, stride: Any, padding: Any, dilation: Any, groups: Any,
          nd: int, fname: str) -> Tensor:
    x = tensor_arg(input, fname)
    w = tensor_arg(weight, fname, "weight", 2)
    b = None if bias is None else tensor_arg(bias, fname, "bias", 3)
    if x._data.dtype.kind == "b":  # torch convolves every dtype but bool
        raise not_implemented("compute_columns3d" if nd == 3 else "slow_conv2d_cpu", x._data.dtype)
    x, unbatched = _batched(x, nd, fname)
    st = _conv_tuple(stride, nd, fname, "stride")
    dil = _conv_tuple(dilation, nd, fname, "dilation")
    if isinstance(padding, str):
        if padding not in ("same", "valid"):
            raise RuntimeError(f"Invalid padding string: '{padding}'")
        if padding == "same" and any(s != 1 for s in st):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
    _check_dtypes(x, w, b)
    _check_common(x, w, b, nd, st, dil, groups, transposed=False)
    geo = _conv_geometry(x, w, st, padding, dil, nd, fname)
    n, o = x._data.shape[0], w._data.shape[0]
    # one (O, C*K) @ (C*K, N*L) product per group: large products keep BLAS efficient
    ck = x._data.shape[1] // groups * geo.nkernel
    if _batch_inner(geo):
        cols = _im2col_batch_inner(x._data, geo).reshape(groups, ck, geo.nblocks * n)
        r = np.matmul(w._data.reshape(groups, o // groups, ck), cols).reshape((o,) + geo.blocks + (n,))
        r = np.moveaxis(r, -1, 0)
    else:
        cols = _im2col_np(x._data, geo).reshape(groups, ck, n * geo.nblocks)
        r = np.moveaxis(np.matmul(w._data.reshape(groups, o // groups, ck), cols).reshape((o, n) + geo.blocks), 0, 1)
    out = _finish(np.ascontiguousarray(r), x, w, b, geo, groups, transposed=False)
    return squeeze(out, 0) if unbatched else out


@op(namespace=(NN_FUNCTIONAL, TENSORLIB))
def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1, padding: Any = 0,
           dilation: Any = 1, groups: int = 1) -> Tensor:
    """1-D convolution (cross-correlation) of ``(N, C_in, L)`` by ``(C_out, C_in / groups, k)``.

    ``padding`` is an int, a tuple, ``'valid'`` (none) or ``'same'`` (output as long as the input).
    """
    return _conv(input, weight, bias, stride, padding, dilation, groups, 1, "conv1d")


@op(namespace=(NN_FUNCTIONAL, TENSORLIB))
def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1, padding: Any = 0,
           dilation: Any = 1, groups: int = 1) -> Tensor:
    """2-D convolution of ``(N, C_in, H, W)`` by ``(C_out, C_in / groups, kH, kW)``; see :func:`conv1d`."""
    return _conv(input, weight, bias, stride, padding, dilation, groups, 2, "conv2d")


@op(namespace=(NN_FUNCTIONAL, TENSORLIB))
def conv3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1, padding: Any = 0,
           dilation: Any = 1, groups: int = 1) -> Tensor:
    """3-D convolution of ``(N, C_in, D, H, W)`` by ``(C_out, C_in / groups, kD, kH, kW)``; see :func:`conv1d`."""
    return _conv(input, weight, bias, stride, padding, dilation, groups, 3, "conv3d")


def _conv_transpose(input: Tensor, weight: Tensor, bias: Tensor | None, stride: Any, padding: Any,
                    output_padding: Any, groups: Any, dilation: Any, nd: int, fname: str) -> Tensor:
    x = tensor_arg(input, fname)
    w = tensor_arg(weight, fname, "weight", 2)
    b = None if bias is None else tensor_arg(bias, fname, "bias", 3)
    if x._data.dtype.kind not in "fc" and x._data.dtype != np.int64:  # torch's transposed kernels: floats and int64
        raise not_implemented(f"slow_conv_transpose{max(nd, 2)}d_out_cpu", x._data.dtype)
    if isinstance(padding, str):
        raise TypeError(f"{fname}(): argument 'padding' must be tuple of ints, not str")
    x, unbatched = _batched(x, nd, fname)
    st = _conv_tuple(stride, nd, fname, "stride")
    pad = _conv_tuple(padding, nd, fname, "padding")
    opad = _conv_tuple(output_padding, nd, fname, "output_padding")
    dil = _conv_tuple(dilation, nd, fname, "dilation")
    _check_dtypes(x, w, b)
    _check_common(x, w, b, nd, st, dil, groups, transposed=True)
    if min(pad) < 0:
        raise RuntimeError("negative padding is not supported")
    if min(opad) < 0:
        raise RuntimeError("negative output_padding is not supported")
    if any(op >= s and op >= d for op, s, d in zip(opad, st, dil)):
        names = ["depth", "height", "width"][3 - nd:] if nd > 1 else ["width"]
        parts = [f"{kind}_{nm}: {v}" for kind, vals in (("output_padding", opad), ("stride", st), ("dilation", dil))
                 for nm, v in zip(names, vals)]
        raise RuntimeError("output padding must be smaller than either stride or dilation, but got " + " ".join(parts))
    size_in, kernel = x._data.shape[2:], w._data.shape[2:]
    size = tuple((n - 1) * s - 2 * p + d * (k - 1) + op + 1
                 for n, s, p, d, k, op in zip(size_in, st, pad, dil, kernel, opad))
    if min(size) <= 0:
        raise RuntimeError(f"Given input size per channel: ({' x '.join(map(str, size_in))}). Calculated output size "
                           f"per channel: ({' x '.join(map(str, size))}). Output size is too small")
    geo = Blocks(size, kernel, dil, st, pad, size_in, batch_last=True)
    n, cin = x._data.shape[:2]
    # the input as (groups, C_in / groups, *blocks, N): batch-innermost columns, whose col2im is the faster
    xm = np.ascontiguousarray(np.moveaxis(x._data, 0, -1)).reshape(groups, cin // groups, geo.nblocks * n)
    wm = w._data.reshape(groups, cin // groups, w._data.size // max(cin, 1))
    cols = np.matmul(wm.transpose(0, 2, 1), xm)
    r = _col2im_batch_inner(cols.reshape(groups * cols.shape[1], cols.shape[2]), geo, n)
    out = _finish(r, x, w, b, geo, groups, transposed=True)
    return squeeze(out, 0) if unbatched else out


@op(namespace=(NN_FUNCTIONAL, TENSORLIB))
def conv_transpose1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1, padding: Any = 0,
                     output_padding: Any = 0, groups: int = 1, dilation: Any = 1) -> Tensor:
    """1-D transposed convolution ("deconvolution") of ``(N, C_in, L)`` by ``(C_in, C_out / groups, k)``.

    The output length is ``(L - 1) * stride - 2 * padding + dilation * (k - 1) + output_padding + 1``.
    """
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 1, "conv_transpose1d")


@op(namespace=(NN_FUNCTIONAL, TENSORLIB))
def conv_transpose2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1, padding: Any = 0,
                     output_padding: Any = 0, groups: int = 1, dilation: Any = 1) -> Tensor:
    """2-D transposed convolution of ``(N, C_in, H, W)`` by ``(C_in, C_out / groups, kH, kW)``; see
    :func:`conv_transpose1d`."""
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 2, "conv_transpose2d")


@op(namespace=(NN_FUNCTIONAL, TENSORLIB))
def conv_transpose3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1, padding: Any = 0,
                     output_padding: Any = 0, groups: int = 1, dilation: Any = 1) -> Tensor:
    """3-D transposed convolution of ``(N, C_in, D, H, W)``; see :func:`conv_transpose1d`."""
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 3, "conv_transpose3d")


# -- unfold / fold -------------------------------------------------------------------------------------


def _block_args(kernel_size: Any, dilation: Any, padding: Any, stride: Any, fname: str) -> tuple:
    args = []
    for name, v in (("kernel_size", kernel_size), ("dilation", dilation), ("padding", padding), ("stride", stride)):
        t = int_tuple(v, 2, fname, name)
        if t is None:
            raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(v)}")
        args.append(t)
    k, d, p, s = args
    for vals, what, short, ok in ((k, "kernel size", "kernel", lambda v: v > 0), (s, "stride", "stride", lambda v: v > 0),
                                  (d, "dilation", "dilation", lambda v: v > 0), (p, "padding", "pad", lambda v: v >= 0)):
        if not all(ok(v) for v in vals):
            cond = "non-negative" if what == "padding" else "greater than zero"
            raise RuntimeError(f"{what} should be {cond}, but got {short}_height: {vals[0]} {short}_width: {vals[1]}")
    return k, d, p, s


def _count_blocks(size: tuple, k: tuple, d: tuple, p: tuple, s: tuple) -> tuple:
    return tuple((n + 2 * pp - dd * (kk - 1) - 1) // ss + 1 for n, kk, dd, pp, ss in zip(size, k, d, p, s))


@op(namespace=NN_FUNCTIONAL)
def unfold(input: Tensor, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1) -> Tensor:
    """Extract sliding blocks: ``(N, C, H, W) -> (N, C * kH * kW, L)``, one column per block (im2col)."""
    x = tensor_arg(input, "unfold")
    k, d, p, s = _block_args(kernel_size, dilation, padding, stride, "unfold")
    a = x._data
    if a.ndim not in (3, 4) or 0 in a.shape[1:]:
        if a.ndim < 3:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-max(a.ndim, 1)}, "
                             f"{max(a.ndim, 1) - 1}], but got 2)")
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got: "
                           f"{list(a.shape)}")
    unbatched = a.ndim == 3
    if unbatched:
        x = unsqueeze(x, 0)
    size = x._data.shape[2:]
    blocks = _count_blocks(size, k, d, p, s)
    if min(blocks) < 1:
        raise RuntimeError(f"Given input with spatial size {tuple(size)}, kernel_size={k}, dilation={d}, padding={p}, "
                           f"calculated shape of the array of sliding blocks as {blocks}, but its components must be "
                           "at least one.")
    out = im2col(x, Blocks(size, k, d, s, p, blocks))
    return squeeze(out, 0) if unbatched else out


@op(namespace=NN_FUNCTIONAL)
def fold(input: Tensor, output_size: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
         stride: Any = 1) -> Tensor:
    """Sum sliding blocks back into an image: ``(N, C * kH * kW, L) -> (N, C, *output_size)`` (col2im)."""
    x = tensor_arg(input, "fold")
    size = int_tuple(output_size, 2, "fold", "output_size")
    if size is None:
        raise RuntimeError(f"It is expected output_size equals to 2, but got size {len(output_size)}")
    k, d, p, s = _block_args(kernel_size, dilation, padding, stride, "fold")
    a = x._data
    if a.ndim not in (2, 3) or 0 in a.shape[a.ndim - 2:]:
        raise RuntimeError("Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero "
                           f"dimensions for input, but got: {list(a.shape)}")
    nk = k[0] * k[1]
    if a.shape[-2] % nk:
        raise RuntimeError(f"Expected size of input's dimension {a.ndim - 2} to be divisible by the product of "
                           f"kernel_size, but got input.size({a.ndim - 2})={a.shape[-2]} and kernel_size={k}.")
    blocks = _count_blocks(size, k, d, p, s)
    if min(blocks) < 1:
        raise RuntimeError(f"Given output_size={size}, kernel_size={k}, dilation={d}, padding={p}, stride={s}, "
                           f"calculated shape of the array of sliding blocks as {blocks}, which is too small "
                           "(non-positive).")
    if a.shape[-1] != blocks[0] * blocks[1]:
        raise RuntimeError(f"Given output_size={size}, kernel_size={k}, dilation={d}, padding={p}, stride={s}, "
                           f"expected size of input's dimension {a.ndim - 1} to match the calculated number of sliding "
                           f"blocks {blocks[0]} * {blocks[1]} = {blocks[0] * blocks[1]}, but got "
                           f"input.size({a.ndim - 1})={a.shape[-1]}.")
    unbatched = a.ndim == 2
    if unbatched:
        x = unsqueeze(x, 0)
    out = col2im(x, Blocks(size, k, d, s, p, blocks))
    return squeeze(out, 0) if unbatched else out
