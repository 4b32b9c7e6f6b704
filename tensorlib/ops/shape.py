"""Shape ops: views (view, reshape, transpose, expand, ...) and copies (flip, roll, repeat, ...).

Views share memory and the version counter with their base, as in torch. Joining and
splitting (cat, stack, split, chunk, ...) are in ``join_split``.
"""

from __future__ import annotations

import itertools
import warnings
from math import prod as _prod
from typing import Any, Sequence

import numpy as np
from numpy.lib.stride_tricks import as_strided

from .._autograd.engine import edge
from .._autograd.graph import Node, new_node, rename_grad_fn
from .._autograd.views import put_region, region_index
from .._dtype import dtype as DType
from .._memory_format import (
    channels_last,
    channels_last_3d,
    check_memory_format,
    check_rank,
    contiguous_format,
    is_channels_last,
    memory_format,
    preserve_format,
)
from .._registry import op
from .._size import Size
from .._tensor import Tensor, _make_view, bump_version, wrap_dim
from ._util import GRAD, check_inplace, int_arg, int_list_arg, record, tensor_arg, type_title, warn_once, wrap
from .conversion import CloneBackward0, clone, conj


def _view_result(x: Tensor, data: np.ndarray, node_cls: type, cls: type = Tensor) -> tuple[Tensor, Any]:
    """A view of ``x`` around ``data``, recorded as ``node_cls`` when ``x`` requires grad."""
    t = _make_view(x, data, cls)
    if x._requires_grad and GRAD.enabled:
        node = new_node(node_cls, (edge(x),))
        t._grad_fn = node
        t._requires_grad = True
        return t, node
    return t, None


_SIZE_NAMES = {"permute": "dims", "tile": "dims", "repeat": "repeats", "view": "size", "reshape": "shape"}


def _shape_arg(shape: Any, fname: str) -> tuple[int, ...]:
    """Accept ``f(2, 3)``, ``f((2, 3))``, ``f([2, 3])`` and ``f(Size)``."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list, Size)):
        shape = shape[0]
    elif not shape:
        raise TypeError(f"{fname}() missing 1 required positional arguments: \"{_SIZE_NAMES.get(fname, 'size')}\"")
    for s in shape:
        if type(s) is not int:
            break
    else:
        return tuple(shape)
    out = []
    for i, s in enumerate(shape):
        if isinstance(s, Tensor):
            s = s.__index__()
        if isinstance(s, (bool, float)) or not hasattr(s, "__index__"):
            raise TypeError(
                f"{fname}(): argument 'size' must be tuple of ints, but found element of type {type(s).__name__} at pos {i}"
            )
        out.append(s.__index__())
    return tuple(out)


def infer_shape(shape: tuple[int, ...], numel: int) -> tuple[int, ...]:
    """Resolve one ``-1`` in ``shape`` for ``numel`` elements, with torch's errors."""
    if -1 not in shape and _prod(shape) == numel and (not shape or min(shape) >= 0) and numel:
        return shape
    check_sizes(shape)
    infer = None
    known = 1
    for i, s in enumerate(shape):
        if s == -1:
            if infer is not None:
                raise RuntimeError("only one dimension can be inferred")
            infer = i
        elif s < 0:
            raise RuntimeError(f"invalid shape dimension {s}")
        else:
            known *= s
    if infer is not None:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        shape = shape[:infer] + (numel // known,) + shape[infer + 1 :]
    elif known != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return shape


def _resolve_shape(shape: tuple, numel: int, fname: str) -> tuple[int, ...]:
    """The target shape of view/reshape: ``f(2, 3)`` or ``f((2, 3))``, with one ``-1`` inferred."""
    if len(shape) == 1 and type(shape[0]) is int:  # view(-1), reshape(n): the most common calls
        n = shape[0]
        if n == numel:
            return shape
        if n == -1:
            return (numel,)
        return infer_shape(shape, numel)  # raises torch's error
    if len(shape) == 1:
        shape = shape[0]
        if type(shape) is not tuple:
            return infer_shape(_shape_arg((shape,), fname), numel)
    elif not shape:
        raise TypeError(f"{fname}() missing 1 required positional arguments: \"{_SIZE_NAMES[fname]}\"")
    n = 1
    inferred = False
    for s in shape:
        if type(s) is not int:
            return infer_shape(_shape_arg(shape, fname), numel)
        if s < 0:
            if s != -1 or inferred:
                return infer_shape(shape, numel)  # raises torch's error
            inferred = True
            continue
        n *= s
    if inferred:
        if n == 0 or numel % n:
            return infer_shape(shape, numel)
        i = shape.index(-1)
        return tuple(shape[:i]) + (numel // n,) + tuple(shape[i + 1 :])
    if n != numel or not n:
        return infer_shape(shape, numel)
    return shape


def check_sizes(shape: tuple[int, ...]) -> None:
    """torch's errors for sizes beyond int64, or whose nonzero product is (an empty shape NumPy would refuse)."""
    numel = 1
    for s in shape:
        if not -9223372036854775808 <= s < 9223372036854775808:
            raise ValueError("Overflow when unpacking long long")
        numel *= s if s > 0 else 1
    if numel >= 9223372036854775808:
        raise RuntimeError("numel: integer multiplication overflow")


class ViewBackward0(Node):
    __slots__ = ("shape",)
    shape: tuple[int, ...]

    def backward(self, g: Tensor) -> tuple:
        return (reshape(g, self.shape),)


class UnsafeViewBackward0(ViewBackward0):
    __slots__ = ()


class ReshapeAliasBackward0(ViewBackward0):
    """torch's node for a reshape that is a view of a tensor that is not contiguous."""

    __slots__ = ()


@op(variants="method")
def view(input: Tensor, *shape: Any) -> Tensor:
    """A view with a new shape (no copy); fails where the memory layout does not allow one."""
    x = input if type(input) is Tensor else tensor_arg(input, "view")
    if len(shape) == 1 and type(shape[0]) is not int and isinstance(shape[0], DType):
        return view_dtype(x, shape[0])
    a = x._data
    new = _resolve_shape(shape, a.size, "view")
    data: np.ndarray | None
    data = a.reshape(new)
    if data.base is not (a if a.base is None else a.base) and a.size:
        data = None
    try:
        if data is None:
            data = a.reshape(new, copy=False)
    except ValueError:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one dimension spans across "
            "two contiguous subspaces). Use .reshape(...) instead."
        ) from None
    t, node = _view_result(x, data, ViewBackward0)
    if node is not None:
        node.shape = a.shape
    return t


def view_dtype(x: Tensor, dtype: Any) -> Tensor:
    a = x._data
    if dtype.np.itemsize != a.dtype.itemsize and a.ndim == 0:
        raise RuntimeError("self.dim() cannot be 0 to view a tensor as a dtype with a different element size")
    try:
        return _make_view(x, a.view(dtype.np))
    except ValueError:
        pair = f"to view {type_title(a.dtype)} as {type_title(dtype.np)} (different element sizes)"
        ratio = dtype.np.itemsize // a.dtype.itemsize
        if ratio > 1 and a.shape[-1] % ratio:
            raise RuntimeError(f"self.size(-1) must be divisible by {ratio} {pair}, but got {a.shape[-1]}") from None
        raise RuntimeError(f"self.stride(-1) must be 1 {pair}, but got {a.strides[-1] // a.itemsize}") from None


@op(variants="method")
def view_as(input: Tensor, other: Tensor) -> Tensor:
    """:func:`view` with ``other``'s shape."""
    return view(input, tensor_arg(other, "view_as", "other", 2)._data.shape)


@op(variants="method")
def reshape(input: Tensor, *shape: Any) -> Tensor:
    """The same elements in a new shape: a view when possible, else a copy."""
    x = input if type(input) is Tensor else tensor_arg(input, "reshape")
    a = x._data
    new = _resolve_shape(shape, a.size, "reshape")
    data: np.ndarray | None
    data = a.reshape(new)
    owner = a if a.base is None else a.base
    if data.base is not owner and a.size:
        # Either NumPy copied, or the base chain is unusual (a foreign buffer): ask exactly.
        try:
            data = a.reshape(new, copy=False)
        except ValueError:
            data = None
    if data is None:
        r = a.reshape(new)
        if x._requires_grad and GRAD.enabled:
            # torch's copying reshape: a contiguous clone, then an unsafe view of it (two nodes)
            copied, _ = record(CloneBackward0, r.reshape(a.shape), (x,))
            res, node = record(UnsafeViewBackward0, r, (copied,))
            node.shape = a.shape
            return res
        return wrap(r)
    t, node = _view_result(x, data, ViewBackward0 if a.flags.c_contiguous else ReshapeAliasBackward0)
    if node is not None:
        node.shape = a.shape
    return t


@op(name="reshape")
def reshape_function(input: Tensor, shape: tuple) -> Tensor:
    """The elements of ``input`` in a new shape (a view when possible)."""
    return reshape(input, shape)


@op(variants="method")
def reshape_as(input: Tensor, other: Tensor) -> Tensor:
    """:func:`reshape` to ``other``'s shape."""
    return reshape(input, tensor_arg(other, "reshape_as", "other", 2)._data.shape)


@op(variants="function method")
def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """Merge dims ``start_dim`` to ``end_dim`` into one."""
    x = tensor_arg(input, "flatten")
    shape = x._data.shape
    if not shape:
        wrap_dim(start_dim, 0), wrap_dim(end_dim, 0)
        return reshape(x, (1,))
    s = wrap_dim(start_dim, len(shape))
    e = wrap_dim(end_dim, len(shape))
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    n = 1
    for d in shape[s : e + 1]:
        n *= d
    return reshape(x, shape[:s] + (n,) + shape[e + 1 :])


@op(variants="function method")
def unflatten(input: Tensor, dim: int, sizes: Sequence[int]) -> Tensor:
    """Split dim ``dim`` into ``sizes``."""
    x = tensor_arg(input, "unflatten")
    shape = x._data.shape
    d = wrap_dim(dim, len(shape))
    if not shape:
        raise RuntimeError("unflatten: cannot unflatten a 0-dimensional tensor")
    if not isinstance(sizes, (tuple, list)):
        raise TypeError(f"unflatten(): argument 'sizes' (position 2) must be tuple of ints, not {type(sizes).__name__}")
    sizes = tuple(int_list_arg(sizes, "unflatten", "sizes", 3))
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    new = infer_shape(sizes, shape[d])
    return reshape(x, shape[:d] + new + shape[d + 1 :])


class SqueezeBackward0(Node):
    __slots__ = ("shape",)
    shape: tuple[int, ...]

    def backward(self, g: Tensor) -> tuple:
        return (reshape(g, self.shape),)


@op(variants="function method")
def squeeze(input: Tensor, dim: Any = None) -> Tensor:
    """Remove dims of size 1 (all of them, or those in ``dim``)."""
    x = tensor_arg(input, "squeeze")
    a = x._data
    if dim is None:
        axes = tuple(i for i, s in enumerate(a.shape) if s == 1)
    else:
        dims = dim if isinstance(dim, (tuple, list)) else (dim,)
        axes = tuple(sorted({d for d in (wrap_dim(d, a.ndim) for d in dims) if a.ndim and a.shape[d] == 1}))
    data = a.squeeze(axes) if axes else a.view()  # the method: np.squeeze is a Python layer around it
    t, node = _view_result(x, data, SqueezeBackward0)
    if node is not None:
        node.shape = a.shape
        if dim is not None:  # torch's names for squeeze(dim) and squeeze(dims)
            rename_grad_fn(t, "SqueezeBackward2" if isinstance(dim, (tuple, list)) else "SqueezeBackward1")
    return t


class UnsqueezeBackward0(Node):
    __slots__ = ("dim",)
    dim: int

    def backward(self, g: Tensor) -> tuple:
        return (squeeze(g, self.dim),)


@op(variants="function method")
def unsqueeze(input: Tensor, dim: int) -> Tensor:
    """Insert a dim of size 1 at ``dim``."""
    x = tensor_arg(input, "unsqueeze")
    a = x._data
    d = wrap_dim(dim, a.ndim + 1)
    s = a.shape
    # a size-1 dim is inserted without a copy whatever the strides (what np.expand_dims does, minus its checks)
    t, node = _view_result(x, a.reshape(s[:d] + (1,) + s[d:]), UnsqueezeBackward0)
    if node is not None:
        node.dim = d
    return t


class TransposeBackward0(Node):
    __slots__ = ("dim0", "dim1")
    dim0: int
    dim1: int

    def backward(self, g: Tensor) -> tuple:
        return (transpose(g, self.dim0, self.dim1),)


@op(variants="function method", aliases=("swapaxes", "swapdims"))
def transpose(input: Tensor, dim0: int, dim1: int) -> Tensor:
    """Swap dims ``dim0`` and ``dim1`` (a view)."""
    x = tensor_arg(input, "transpose")
    a = x._data
    n = a.ndim
    d0, d1 = wrap_dim(dim0, n), wrap_dim(dim1, n)
    data = a.swapaxes(d0, d1) if n else a.view()
    t, node = _view_result(x, data, TransposeBackward0)
    if node is not None:
        node.dim0, node.dim1 = d0, d1
    return t


swapaxes = swapdims = transpose


def _inplace_view(self: Tensor, view: Tensor, fname: str) -> Tensor:
    """Make ``self`` the (differentiable) view ``view`` of itself: the in-place shape ops."""
    self._data = view._data
    self._size = None
    if view._grad_fn is not None:
        self._grad_fn = view._grad_fn
        self._requires_grad = True
        if self._meta is not None:
            self._meta.output_nr = 0
    bump_version(self)
    return self


@op(variants="method", aliases=("swapaxes_", "swapdims_"))
def transpose_(self: Tensor, dim0: int, dim1: int) -> Tensor:
    """In-place :func:`transpose`: this tensor's dims ``dim0`` and ``dim1`` swapped."""
    check_inplace(tensor_arg(self, "transpose_", "self"), "transpose_")
    return _inplace_view(self, transpose(self, dim0, dim1), "transpose_")


swapaxes_ = swapdims_ = transpose_


@op(variants="method")
def t_(self: Tensor) -> Tensor:
    """In-place :func:`t`."""
    check_inplace(tensor_arg(self, "t_", "self"), "t_")
    return _inplace_view(self, t(self), "t_")


@op(variants="method")
def squeeze_(self: Tensor, dim: Any = None) -> Tensor:
    """In-place :func:`squeeze`."""
    check_inplace(tensor_arg(self, "squeeze_", "self"), "squeeze_")
    return _inplace_view(self, squeeze(self, dim), "squeeze_")


@op(variants="method")
def unsqueeze_(self: Tensor, dim: int) -> Tensor:
    """In-place :func:`unsqueeze`."""
    check_inplace(tensor_arg(self, "unsqueeze_", "self"), "unsqueeze_")
    return _inplace_view(self, unsqueeze(self, dim), "unsqueeze_")


class TBackward0(Node):
    __slots__ = ()

    def backward(self, g: Tensor) -> tuple:
        return (_transposed(g),)


def _transposed(x: Tensor) -> Tensor:
    """``x`` (at most 2-D) transposed, a view recorded as ``t``."""
    a = x._data
    return _view_result(x, a.T if a.ndim == 2 else a.view(), TBackward0)[0]


@op(variants="function method")
def t(input: Tensor) -> Tensor:
    """Transpose a tensor of at most 2 dims."""
    x = input if type(input) is Tensor else tensor_arg(input, "t")
    a = x._data
    n = a.ndim
    if n > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {n}D")
    return _transposed(x)


class PermuteBackward0(Node):
    __slots__ = ("dims",)
    dims: tuple[int, ...]

    def backward(self, g: Tensor) -> tuple:
        return (_permuted(g, _inverse(self.dims)),)


def _inverse(order: tuple[int, ...]) -> tuple[int, ...]:
    """The permutation that undoes ``order``."""
    inverse = [0] * len(order)
    for i, d in enumerate(order):
        inverse[d] = i
    return tuple(inverse)


def _permuted(x: Tensor, order: tuple[int, ...]) -> Tensor:
    """``x`` with its dims in a valid, non-negative ``order`` (a view), recorded as ``permute``."""
    t_, node = _view_result(x, x._data.transpose(order), PermuteBackward0)
    if node is not None:
        node.dims = order
    return t_


def reverse_dims(x: Tensor) -> Tensor:
    """``x.T``: every dim reversed (a view), recorded as the permutation it is, as torch records it.

    As torch, it warns (once per process) that ``.T`` is deprecated on tensors that are not matrices.
    """
    n = x._data.ndim
    if n != 2:
        if n == 0:
            warn_once("T-0d", "Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases.",
                      stacklevel=_USER_LEVEL)
        else:
            warn_once("T-nd", "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
                      "deprecated and it will throw an error in a future release. Consider `x.mT` to transpose "
                      "batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the "
                      "dimensions of a tensor.", stacklevel=_USER_LEVEL)
    return _permuted(x, tuple(range(n - 1, -1, -1)))


# warn_once's frame, this function's, the Tensor.T property's and its dispatch wrapper's: the caller's is next
_USER_LEVEL = 5


# every valid order of up to 4 dims (the usual permute calls): checking one is a set lookup (with its length)
_ORDERS = frozenset(itertools.chain.from_iterable(itertools.permutations(range(n)) for n in range(5)))


@op(variants="method")
def permute(input: Tensor, *dims: Any) -> Tensor:
    """Reorder dims (a view)."""
    x = input if type(input) is Tensor else tensor_arg(input, "permute")
    a = x._data
    order = _shape_arg(dims, "permute")
    n = a.ndim
    if len(order) == n and (order in _ORDERS or sorted(order) == list(range(n))):  # a valid, non-negative order
        return _permuted(x, order)
    if len(order) != a.ndim:
        raise RuntimeError(
            f"permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired "
            f"ordering of dimensions i.e. input.dim() = {a.ndim} is not equal to len(dims) = {len(order)}"
        )
    order = tuple(wrap_dim(d, a.ndim) for d in order)
    if len(set(order)) != len(order):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    t_, node = _view_result(x, a.transpose(order), PermuteBackward0)
    if node is not None:
        node.dims = order
    return t_


@op(name="permute")
def permute_function(input: Tensor, dims: tuple) -> Tensor:
    """``input`` with its dims reordered (a view)."""
    return permute(input, dims)


@op(variants="function method", aliases=("moveaxis",))
def movedim(input: Tensor, source: Any, destination: Any) -> Tensor:
    """Move dims from ``source`` to ``destination`` positions."""
    x = tensor_arg(input, "movedim")
    n = x._data.ndim
    src = [wrap_dim(s, n) for s in (source if isinstance(source, (tuple, list)) else (source,))]
    dst = [wrap_dim(d, n) for d in (destination if isinstance(destination, (tuple, list)) else (destination,))]
    if len(src) != len(dst):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({src} dims) should contain the same number of "
            f"dims as destination ({dst} dims)"
        )
    order = [d for d in range(n) if d not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return permute(x, order)


moveaxis = movedim


class AliasBackward0(Node):
    __slots__ = ()

    def backward(self, g: Tensor) -> tuple:
        return (g,)


def alias(input: Tensor, cls: type = Tensor) -> Tensor:
    """A new tensor object (of class ``cls``) viewing all of ``input``, attached to the graph."""
    t_, _ = _view_result(input, input._data, AliasBackward0, cls)
    return t_


@op(variants="method")
def contiguous(input: Tensor, memory_format: memory_format = contiguous_format) -> Tensor:
    """``input`` if it is C-contiguous (or already dense in ``memory_format``), else a row-major copy."""
    x = tensor_arg(input, "contiguous")
    fmt = check_memory_format(memory_format, "contiguous", allow_none=False)
    a = x._data
    check_rank(fmt, a.ndim)
    if a.flags.c_contiguous:
        return x
    if fmt is preserve_format:
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    if (fmt is channels_last or fmt is channels_last_3d) and is_channels_last(
        fmt, a.shape, [s // a.itemsize for s in a.strides]
    ):
        return x

    return clone(x)


@op()
def atleast_1d(input: Tensor) -> Tensor:
    """``input`` with a dim added if it is 0-D."""
    x = tensor_arg(input, "atleast_1d")
    return reshape(x, (1,)) if x._data.ndim == 0 else x


@op()
def atleast_2d(input: Tensor) -> Tensor:
    """``input`` with leading dims added to make it at least 2-D."""
    x = tensor_arg(input, "atleast_2d")
    n = x._data.ndim
    if n >= 2:
        return x
    return reshape(x, (1, 1) if n == 0 else (1,) + x._data.shape)


class FlipBackward0(Node):
    __slots__ = ("dims",)
    dims: tuple[int, ...]

    def backward(self, g: Tensor) -> tuple:
        return (flip(g, self.dims),)


@op(variants="function method")
def flip(input: Tensor, dims: Any) -> Tensor:
    """Reverse the order of elements along ``dims`` (a copy, as in torch)."""
    x = tensor_arg(input, "flip")
    a = x._data
    ds = tuple(wrap_dim(d, a.ndim) for d in (dims if isinstance(dims, (tuple, list)) else (dims,)))
    if len(set(ds)) != len(ds):
        repeated = next(d for d in ds if ds.count(d) > 1)
        raise RuntimeError(f"dim {repeated} appears multiple times in the list of dims")
    r = np.flip(a, ds).copy() if a.ndim else a.copy()
    if x._requires_grad and GRAD.enabled:
        res, node = record(FlipBackward0, r, (x,))
        node.dims = ds
        return res
    return wrap(r)


@op(variants="function method")
def fliplr(input: Tensor) -> Tensor:
    """Reverse dim 1 (left to right)."""
    if tensor_arg(input, "fliplr").dim() < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, (1,))


@op(variants="function method")
def flipud(input: Tensor) -> Tensor:
    """Reverse dim 0 (up to down)."""
    if tensor_arg(input, "flipud").dim() < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, (0,))


class RollBackward0(Node):
    __slots__ = ("shifts", "dims")
    shifts: tuple[int, ...]
    dims: tuple[int, ...]

    def backward(self, g: Tensor) -> tuple:
        return (roll(g, tuple(-s for s in self.shifts), self.dims),)


@op(variants="function method")
def roll(input: Tensor, shifts: Any, dims: Any = None) -> Tensor:
    """Rotate elements along ``dims`` by ``shifts`` (the flattened tensor if ``dims`` is None)."""
    x = tensor_arg(input, "roll")
    a = x._data
    sh = tuple(shifts) if isinstance(shifts, (tuple, list)) else (shifts,)
    if not sh:
        raise RuntimeError("`shifts` required")
    if not all(isinstance(s, (int, np.integer)) and not isinstance(s, bool) for s in sh):
        raise TypeError(f"roll(): argument 'shifts' (position 2) must be tuple of ints, not {type(shifts).__name__}")
    if dims is None:
        r = np.roll(a.reshape(-1), sh[0]).reshape(a.shape)
        if x._requires_grad and GRAD.enabled:
            flat = reshape(x, (-1,))
            return rename_grad_fn(reshape(roll(flat, sh, 0), a.shape), "RollBackward0")
        return wrap(r)
    dims = tuple(dims) if isinstance(dims, (tuple, list)) else (dims,)
    if a.ndim == 0 and dims:
        raise IndexError(f"Dimension specified as {dims[0]} but tensor has no dimensions")
    ds = tuple(wrap_dim(d, a.ndim) for d in dims)
    if len(sh) != len(ds):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(sh)}, dims:{len(ds)}")
    r = np.roll(a, sh, ds)
    if x._requires_grad and GRAD.enabled:
        res, node = record(RollBackward0, r, (x,))
        node.shifts, node.dims = sh, ds
        return res
    return wrap(r)


@op(variants="function method")
def diagonal(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """The diagonal of the (dim1, dim2) planes, as the last dim (a view)."""
    x = tensor_arg(input, "diagonal")
    a = x._data
    d1, d2 = wrap_dim(dim1, a.ndim), wrap_dim(dim2, a.ndim)
    if d1 == d2 or a.ndim == 0:  # a 0-d tensor's only dim (0 or -1) is named twice
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    offset = int_arg(offset, "diagonal", "offset")
    # NumPy takes only C longs: an offset beyond either side is an empty diagonal all the same
    data = np.diagonal(a, max(min(offset, a.shape[d2]), -a.shape[d1]), d1, d2)
    t_, node = _view_result(x, data, DiagonalBackward0)
    if node is not None:
        node.offset, node.dim1, node.dim2, node.shape = offset, d1, d2, a.shape
    return t_


class DiagonalBackward0(Node):
    __slots__ = ("offset", "dim1", "dim2", "shape")
    offset: int
    dim1: int
    dim2: int
    shape: tuple[int, ...]

    def backward(self, g: Tensor) -> tuple:
        return (_embed_diagonal(g, self.offset, self.dim1, self.dim2, self.shape),)


@op(variants="function method")
def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """Place the last dim of ``input`` on the diagonal of new (dim1, dim2) planes."""
    x = tensor_arg(input, "diag_embed")
    a = x._data
    out_ndim = a.ndim + 1
    d1, d2 = wrap_dim(dim1, out_ndim), wrap_dim(dim2, out_ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    if a.ndim == 0:
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got -2)")
    n = a.shape[-1] + abs(int_arg(offset, "diag_embed", "offset"))
    rest = list(a.shape[:-1])
    if n * n * _prod(rest) * a.itemsize >= 9223372036854775808:
        raise RuntimeError(f"Storage size calculation overflowed with sizes={rest + [n, n]}")
    return _embed_diagonal(x, offset, d1, d2, tuple([n if i in (d1, d2) else rest.pop(0) for i in range(out_ndim)]))


def _embed_diagonal(x: Tensor, offset: int, d1: int, d2: int, shape: tuple[int, ...]) -> Tensor:
    """Zeros of ``shape`` with ``x``'s last dim on the ``offset`` diagonal of the (d1, d2) planes (wrapped dims)."""
    a = x._data
    r = np.zeros(shape, dtype=a.dtype)
    planes = np.moveaxis(r, (d1, d2), (-2, -1))
    m = a.shape[-1]
    rows = np.arange(m) + max(-offset, 0)
    cols = np.arange(m) + max(offset, 0)
    planes[..., rows, cols] = a
    if x._requires_grad and GRAD.enabled:
        res, node = record(DiagEmbedBackward0, r, (x,))
        node.offset, node.dim1, node.dim2 = offset, d1, d2
        return res
    return wrap(r)


class DiagEmbedBackward0(Node):
    __slots__ = ("offset", "dim1", "dim2")
    offset: int
    dim1: int
    dim2: int

    def backward(self, g: Tensor) -> tuple:
        return (diagonal(g, self.offset, self.dim1, self.dim2),)


@op(variants="function method")
def diag(input: Tensor, diagonal: int = 0) -> Tensor:
    """The ``diagonal``-th diagonal of a matrix, or a matrix with a vector on it."""
    x = tensor_arg(input, "diag")
    if x._data.ndim == 1:
        return diag_embed(x, diagonal, 0, 1)
    if x._data.ndim == 2:

        return clone(globals()["diagonal"](x, diagonal, 0, 1))
    raise RuntimeError("diag(): Supports 1D or 2D tensors. Got " + f"{x._data.ndim}D")


@op(variants="function method")
def adjoint(input: Tensor) -> Tensor:
    """The conjugate transpose of the last two dims (of a 0-d tensor: its conjugate, deprecated as in torch)."""
    if tensor_arg(input, "adjoint").dim() == 0:
        warnings.warn("adjoint() is deprecated on 0-D tensors. Consider using x.conj().", UserWarning, stacklevel=2)
        return conj(input)
    return conj(transpose(input, -2, -1))


# -- shape functions composed from the ones above --------------------------------------------------


@op(variants="function method")
def ravel(input: Tensor) -> Tensor:
    """The elements as a 1-D tensor (a view when the memory allows)."""
    return reshape(tensor_arg(input, "ravel"), (-1,))


@op(variants="function method")
def rot90(input: Tensor, k: int = 1, dims: Sequence[int] = (0, 1)) -> Tensor:
    """Rotate by 90 degrees ``k`` times in the plane of ``dims`` (from the first towards the second)."""
    x = tensor_arg(input, "rot90")
    if not isinstance(dims, (list, tuple)):
        raise TypeError(f"rot90(): argument 'dims' (position 3) must be tuple of ints, not {type(dims).__name__}")
    dims = list(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    n = x._data.ndim
    if n < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {n}")
    d0, d1 = wrap_dim(dims[0], n), wrap_dim(dims[1], n)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}")
    k %= 4
    if k == 1:
        r = transpose(flip(x, (d1,)), d0, d1)
    elif k == 2:
        r = flip(x, (d0, d1))
    elif k == 3:
        r = flip(transpose(x, d0, d1), (d1,))
    else:
        r = clone(x)
    return rename_grad_fn(r, "Rot90Backward0")


@op()
def atleast_3d(input: Tensor) -> Tensor:
    """``input`` with dims added to make it at least 3-D (``(n,)`` -> ``(1, n, 1)``)."""
    x = tensor_arg(input, "atleast_3d")
    s = x._data.shape
    if len(s) >= 3:
        return x
    return reshape(x, (1, 1, 1) if not s else (1,) + s + (1,) if len(s) == 1 else s + (1,))


@op(variants="function method")
def diagflat(input: Tensor, offset: int = 0) -> Tensor:
    """A matrix with the flattened ``input`` on its ``offset``-th diagonal."""
    return diag_embed(reshape(tensor_arg(input, "diagflat"), (-1,)), offset, 0, 1)


class UnfoldBackward0(Node):
    """Backward of :func:`unfold`: every window's gradient added back where it came from (windows may overlap)."""
    __slots__ = ("index", "shape")
    index: np.ndarray
    shape: tuple[int, ...]

    def backward(self, g: Tensor) -> tuple:

        return (put_region(g, self.index, self.shape),)


@op(variants="method")
def unfold(input: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """All windows of ``size`` elements along ``dimension``, ``step`` apart, as a new last dim (a view)."""

    x = tensor_arg(input, "unfold")
    a = x._data
    d = wrap_dim(dimension, a.ndim)
    if a.ndim == 0:
        a = a.reshape(1)
    length = a.shape[d]
    if size > length:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {length} but size is {size}")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    n = (length - size) // step + 1
    shape = a.shape[:d] + (n,) + a.shape[d + 1:] + (size,)
    strides = a.strides[:d] + (a.strides[d] * step,) + a.strides[d + 1:] + (a.strides[d],)
    if x._data.ndim == 0:  # a 0-dim tensor unfolds to its single window
        shape, strides = (size,), (a.strides[0],)
    data = as_strided(a, shape, strides, writeable=bool(a.flags.writeable and (step >= size or n == 1)))
    t_, node = _view_result(x, data, UnfoldBackward0)
    if node is not None:
        node.index = region_index(x._data, data)
        node.shape = x._data.shape
    return t_
