"""Indexing: ``t[key]``, ``t[key] = v``, gather/scatter, index_select, masks.

Sorting and searching are in ``sorting``.
"""

from __future__ import annotations

import math

import itertools
import warnings
from typing import Any

import numpy as np

from .._autograd.engine import edge
from .._autograd.graph import Node, SavedTensor, named_node_class, new_node, rename_grad_fn, save_input
from .._registry import op
from .._tensor import Tensor, _make_view, bump_version, wrap_dim
from ._pointwise import _meta, inplace_apply, reduce_to
from ._util import (
    GRAD,
    Meta,
    broadcast_error,
    check_inplace,
    fit_scalar,
    int_arg,
    no_complex_grad,
    not_implemented,
    record,
    tensor_arg,
    type_title,
    wrap,
    writable,
    write_out,
)
from .arithmetic import div, mul
from .broadcast import broadcast_tensors, expand, sum as _sum
from .comparison import logical_not
from .conversion import clone
from .shape import reshape

ndarray = np.ndarray
_BASIC = (int, slice, type(None), type(Ellipsis))

_INDEX_ERROR = (
    "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices (got {})"
)


def _convert_index(k: Any) -> tuple[Any, bool]:
    """One index element as NumPy understands it, and whether it is basic (gives a view)."""
    tk = type(k)
    if tk is int or tk is slice or k is None or k is Ellipsis:
        if tk is slice:
            for part in (k.start, k.stop, k.step):
                if part is not None and not isinstance(part, (int, np.integer)):
                    if isinstance(part, Tensor):
                        k = slice(*(p.__index__() if isinstance(p, Tensor) else p for p in (k.start, k.stop, k.step)))
                        break
                    raise TypeError("slice indices must be integers or None or have an __index__ method")
            if k.step is not None and k.step <= 0:
                raise ValueError("step must be greater than zero")
        return k, True
    if isinstance(k, Tensor):
        a = k._data
        return (a if a.dtype.char in "?ilq" else index_array(a)), False  # bool, int32, int64: as they are
    if tk is bool:
        return k, False
    if isinstance(k, (np.integer,)):
        return int(k), True
    if isinstance(k, (list, tuple)):
        return _sequence_index(k), False
    if isinstance(k, str):  # torch makes a tensor of a sequence, which a string is
        raise TypeError("new(): invalid data type 'str'")
    if isinstance(k, ndarray):
        if k.dtype.kind not in "iub":
            raise IndexError("arrays used as indices must be of integer (or boolean) type")
        return k, False
    if hasattr(k, "__index__") and not isinstance(k, float):
        return k.__index__(), True
    raise IndexError(_INDEX_ERROR.format(type(k).__name__))


def index_array(a: np.ndarray) -> np.ndarray:
    """A tensor index's data as NumPy reads it: int64 and int32 positions, bool masks, and uint8 masks (torch's
    deprecated form, with its warning); any other dtype is torch's IndexError."""
    kind = a.dtype.kind
    if kind == "b" or (kind == "i" and a.dtype.itemsize >= 4):
        return a
    if kind == "u" and a.dtype.itemsize == 1:
        warnings.warn("indexing with dtype tensorlib.uint8 is now deprecated, please use a dtype tensorlib.bool "
                      "instead.", UserWarning, stacklevel=4)
        return a.astype(bool)
    raise IndexError("tensors used as indices must be long, int, byte or bool tensors")


def _sequence_index(k: list | tuple) -> np.ndarray:
    """A list index as torch reads it: the tensor made of it, int64 (floats truncated) or bool."""
    if not k:
        return np.zeros(0, dtype=np.int64)
    try:
        arr = np.asarray([_flatten_seq_item(e) for e in k])
    except ValueError:
        raise ValueError("expected the index's nested sequences to have equal lengths") from None
    except OverflowError:
        raise ValueError("Overflow when unpacking long long") from None
    kind = arr.dtype.kind
    if kind in "iub":
        return arr if arr.dtype.char in "?ilq" else index_array(arr)
    if kind == "f":
        if not (np.isfinite(arr).all() and np.abs(arr).max(initial=0) < 2.0**63):
            raise RuntimeError("value cannot be converted to type int64 without overflow")
        return arr.astype(np.int64)  # truncated toward zero, as torch's conversion of the list to int64
    if kind == "c":
        raise TypeError("an index list's complex number cannot be read as an integer position")
    if kind in "US":
        raise TypeError("new(): invalid data type 'str'")
    for e in arr.reshape(-1):
        if isinstance(e, int):
            raise ValueError("Overflow when unpacking long long")
    tp = type(arr.reshape(-1)[0])
    name = tp.__name__ if tp.__module__ == "builtins" else f"{tp.__module__.split('.')[0]}.{tp.__name__}"
    raise RuntimeError(f"Could not infer dtype of {name}")


def _flatten_seq_item(e: Any) -> Any:
    if isinstance(e, Tensor):
        return e._data
    if isinstance(e, (list, tuple)):
        return [_flatten_seq_item(x) for x in e]
    return e


def _list_as_tuple(key: list) -> bool:
    """Whether torch reads a list key as a tuple of indices (its legacy rule, with a deprecation warning): fewer
    than 32 elements, one of them a tensor, a sequence, a slice, ``...`` or None."""
    if not key or len(key) >= 32:
        return False
    for e in key:
        if type(e) is int:
            continue
        if e is None or e is Ellipsis or isinstance(e, (Tensor, list, tuple, range, slice, ndarray)):
            warnings.warn("Using a non-tuple sequence for multidimensional indexing is deprecated; use x[tuple(seq)] "
                          "instead of x[seq]", UserWarning, stacklevel=4)
            return True
    return False


def convert_key(key: Any) -> tuple[Any, bool]:
    """A torch index as a NumPy key, and whether indexing with it gives a view."""
    if type(key) is list and _list_as_tuple(key):
        key = tuple(key)
    if type(key) is tuple:
        parts = []
        basic = True
        for k in key:
            nk, b = _convert_index(k)
            parts.append(nk)
            basic = basic and b
        return tuple(parts), basic
    nk, basic = _convert_index(key)
    return nk, basic


def _reraise_index(e: Exception, shape: tuple, key: Any = None) -> Exception:
    parts = key if type(key) is tuple else (key,)
    if any(type(p) is int and not -9223372036854775808 <= p < 9223372036854775808 for p in parts):
        return ValueError("Overflow when unpacking long long")  # torch's parser, before any index is looked at
    msg = str(e)
    if "out of bounds" in msg:
        return IndexError(msg.replace("for axis", "for dimension"))
    if "too many indices" in msg:
        return IndexError(f"too many indices for tensor of dimension {len(shape)}")
    if "value array of shape" in msg:  # the values do not fit the indexed part: torch's RuntimeError
        return RuntimeError(msg.replace("value array", "value tensor").replace("could not", "cannot")
                            .replace("(", "[").replace(")", "]").replace(",]", "]"))
    if "shape mismatch" in msg or "broadcast" in msg:
        return IndexError(f"shape mismatch: indexing tensors could not be broadcast together: {msg}")
    if "boolean index did not match" in msg:
        return IndexError(msg.replace("boolean index", "The shape of the mask").replace("array", "tensor"))
    return IndexError(msg)


class SliceBackward0(Node):
    """Backward of basic indexing (slices, ints, None, Ellipsis): embed into zeros."""
    __slots__ = ("key", "shape")
    key: Any
    shape: tuple[int, ...]

    def backward(self, g: Tensor) -> tuple:
        return (embed(g, self.key, self.shape, basic=True),)


class IndexBackward0(Node):
    """Backward of advanced indexing: scatter-add into zeros (repeated indices accumulate)."""
    __slots__ = ("key", "shape")
    key: Any
    shape: tuple[int, ...]

    def backward(self, g: Tensor) -> tuple:
        return (embed(g, self.key, self.shape, basic=False),)


def add_at_zeros(z: np.ndarray, key: Any, values: np.ndarray) -> None:
    """``np.add.at(z, key, values)`` for a ``z`` of zeros; faster when ``key`` is one index array along one axis.

    ``np.add.at`` takes a slow element-by-element path for whole rows (an index_select's or an embedding's
    gradient: ~40x NumPy's other passes). For many values this is one weighted ``np.bincount`` over the targets'
    flat positions instead: it adds each target's values in their order of appearance, as ``np.add.at`` does, in
    double precision (single precision values round once, at the end).
    """
    if isinstance(key, np.ndarray):
        key = (key,)
    idx = key[-1] if type(key) is tuple and key else None
    d = len(key) - 1 if idx is not None else 0
    if (type(idx) is not np.ndarray or type(values) is not np.ndarray or values.size < 4096
            or idx.dtype.kind not in "iu" or idx.ndim == 0 or (idx.ndim > 1 and d > 0) or values.dtype.kind != "f"
            or not all(isinstance(k, slice) and k == slice(None) for k in key[:-1])
            or values.shape != z.shape[:d] + idx.shape + z.shape[d + 1:]):
        np.add.at(z, key, values)
        return
    n = z.shape[d]
    inner = int(np.prod(z.shape[d + 1:]))
    flat = idx.reshape(-1)
    if inner == 1 and d == 0:  # single elements: np.add.at's own fast path
        np.add.at(z, key, values)
        return
    if flat.dtype.kind == "i" and flat.size and flat.min() < 0:
        flat = np.where(flat < 0, flat + n, flat)
    # the flat position of each value in z viewed as (outer, n, inner)
    outer = values.size // (flat.size * inner)
    pos = flat.astype(np.int64)[:, None] * inner + np.arange(inner, dtype=np.int64)
    if outer > 1:
        pos = (np.arange(outer, dtype=np.int64) * (n * inner))[:, None, None] + pos
    summed = np.bincount(pos.reshape(-1), weights=values.reshape(-1), minlength=z.size)
    z += summed.reshape(z.shape).astype(z.dtype, copy=False)


class EmbedBackward(Node):
    __slots__ = ("key", "basic")
    key: Any
    basic: bool

    def backward(self, g: Tensor) -> tuple:
        return (_getitem_converted(g, self.key, self.basic),)


def embed(g: Tensor, key: Any, shape: tuple, basic: bool) -> Tensor:
    """Zeros of ``shape`` with ``g`` placed (added, for advanced keys) at ``key``; differentiable."""
    z = np.zeros(shape, dtype=g._data.dtype)
    if basic:
        z[key] = g._data
    else:
        add_at_zeros(z, key, g._data)
    if g._requires_grad and GRAD.enabled:
        res, node = record(EmbedBackward, z, (g,))
        node.key, node.basic = key, basic
        return res
    return wrap(z)


def basic_getitem(x: Tensor, key: Any) -> Tensor:
    """``x[key]`` for an already-basic NumPy key: a view."""
    return _getitem_converted(x, key, True)


class SelectBackward0(SliceBackward0):
    """Backward of indexing a single position (``x[i]``): embed into zeros."""
    __slots__ = ()


_UNSQUEEZE_NODE = named_node_class(SliceBackward0, "UnsqueezeBackward0")
_ALIAS_NODE = named_node_class(SliceBackward0, "AliasBackward0")


def _basic_node_class(key: Any) -> type:
    """torch's name for a basic index: that of its last step (an int selects, None unsqueezes, a slice that
    is not the whole dim slices), with ``x[:]`` a slice and ``x[...]`` an alias."""
    parts = key if type(key) is tuple else (key,)
    any_slice = False
    for p in reversed(parts):
        if type(p) is int:
            return SelectBackward0
        if p is None:
            return _UNSQUEEZE_NODE
        if type(p) is slice:
            if p.start not in (None, 0) or p.stop is not None or p.step not in (None, 1):
                return SliceBackward0
            any_slice = True
    return SliceBackward0 if any_slice else _ALIAS_NODE


def _getitem_converted(x: Tensor, key: Any, basic: bool, node_cls: type | None = None) -> Tensor:
    a = x._data
    try:
        r = a[key]
    except IndexError as e:
        raise _reraise_index(e, a.shape, key) from None
    except (ValueError, TypeError, OverflowError) as e:
        raise _reraise_index(e, a.shape, key) from None
    if type(r) is not ndarray:
        # An integer index into a 0-d result: keep a 0-d view of the same memory.
        r = a[key + (Ellipsis,)] if type(key) is tuple else a[(key, Ellipsis)]
    if basic:
        t = _make_view(x, r)
        if x._requires_grad and GRAD.enabled:
            node = new_node(node_cls or _basic_node_class(key), (edge(x),))
            node.key, node.shape = key, a.shape
            t._grad_fn = node
            t._requires_grad = True
        return t
    if x._requires_grad and GRAD.enabled:
        res, node = record(IndexBackward0, r, (x,))
        node.key, node.shape = key, a.shape
        return res
    return wrap(r)


@op(variants="method", name="__getitem__")
def getitem(self: Tensor, key: Any) -> Tensor:
    """``self[key]`` with torch's (NumPy-like) indexing rules."""
    if type(key) is int and self._data.ndim:
        a = self._data
        n = a.shape[0]
        if key < -n or key >= n:
            raise IndexError(f"index {key} is out of bounds for dimension 0 with size {n}")
        return _getitem_converted(self, (key, Ellipsis), True, SelectBackward0)
    if self._data.ndim == 0 and type(key) is int:
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
    nk, basic = convert_key(key)
    if not basic and type(nk) is tuple and any(type(p) is int for p in nk):
        # torch applies integer indices first (as select), then the advanced ones:
        # x[0, :, [1]] has shape (3, 1), where NumPy's rules would give (1, 3)
        first, second = _split_int_indices(nk)
        return _getitem_converted(_getitem_converted(self, first, True), second, False)
    return _getitem_converted(self, nk, basic)


def _split_int_indices(key: tuple) -> tuple[tuple, tuple]:
    """A key as (its basic parts with advanced ones kept whole, the advanced parts for what remains)."""
    first: list[Any] = []
    second: list[Any] = []
    for p in key:
        if type(p) is int:
            first.append(p)
        elif type(p) is slice or p is None:
            first.append(p)
            second.append(slice(None))
        elif p is Ellipsis:
            first.append(p)
            second.append(p)
        elif np.ndim(p) == 0 and np.asarray(p).dtype.kind == "b":
            first.append(None)  # a bool scalar adds a dim: all of it (True) or none (False)
            second.append(slice(None) if p else slice(0, 0))
        else:
            first.extend([slice(None)] * (np.ndim(p) if np.asarray(p).dtype.kind == "b" else 1))
            second.append(p)
    return tuple(first), tuple(second)


def _torch_order_key(key: Any, shape: tuple) -> Any:
    """For keys mixing integers with advanced indices: an all-advanced key with torch's result layout."""
    if type(key) is not tuple or not any(type(p) is int for p in key) or all(_is_basic(p) for p in key):
        return key
    first, second = _split_int_indices(key)
    flat = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    return np.unravel_index(flat[first][second], shape)


def _is_basic(p: Any) -> bool:
    return type(p) is int or type(p) is slice or p is None or p is Ellipsis


class IndexPutBackward0(Node):
    """``out = input`` with ``values`` written at ``key`` (the out-of-place form of ``input[key] = values``)."""
    __slots__ = ("key", "values_meta", "accumulate")
    key: Any
    values_meta: Meta | None
    accumulate: bool

    def apply(self, grads: list) -> tuple:
        g = grads[0]
        gi = gv = None
        if self.needs(0):
            if self.accumulate:
                gi = g
            else:
                mask = np.ones(g._data.shape, dtype=bool)
                mask[self.key] = False
                gi = mul(g, wrap(mask))
        if self.needs(1) and self.values_meta is not None:
            gv = reduce_to(_getitem_converted(g, self.key, False), self.values_meta)
        return gi, gv


def index_put_key(input: Tensor, key: Any, values: Any, accumulate: bool = False) -> Tensor:
    """A copy of ``input`` with ``values`` written (or added) at the converted NumPy ``key``."""
    a = input._data.copy()
    v = values._data if isinstance(values, Tensor) else values
    try:
        if accumulate:
            np.add.at(a, key, v)
        else:
            a[key] = v
    except (IndexError, ValueError, TypeError) as e:
        if isinstance(e, ValueError) and "could not broadcast" in str(e):
            raise RuntimeError(f"shape mismatch: value tensor cannot be broadcast to indexing result: {e}") from None
        raise _reraise_index(e, a.shape) from None
    if GRAD.enabled and (input._requires_grad or (isinstance(values, Tensor) and values._requires_grad)):
        res, node = record(IndexPutBackward0, a, (input, values))
        node.key = key
        node.values_meta = _meta(values)
        node.accumulate = accumulate
        return res
    return wrap(a)


@op(variants="function method")
def index_put(input: Tensor, indices: tuple, values: Tensor, accumulate: bool = False) -> Tensor:
    """Out-of-place ``input[indices] = values`` (``+=`` with ``accumulate``)."""
    x = tensor_arg(input, "index_put")
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"index_put(): argument 'indices' (position 2) must be tuple of Tensors, not "
                        f"{type(indices).__name__}")
    for i, index in enumerate(indices):
        if not isinstance(index, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 1, but got {type(index).__name__}")
    key = tuple(index_array(i._data) for i in indices)
    if isinstance(values, Tensor):
        values = _put_values(x, key, [k.dtype.kind == "b" for k in key], values, accumulate)
    return index_put_key(x, key, values, accumulate)


def _put_values(x: Tensor, key: Any, masks: list[bool], values: Tensor, accumulate: bool = False) -> Tensor:
    """``values`` as index_put writes them into ``x`` at ``key`` (whose tensor indices are ``masks``), checked as
    torch does: one mask and one value element is a masked fill with that element, whatever the value's shape
    and (within its range) dtype; otherwise the dtypes must match."""
    v = values._data
    fill = not accumulate and v.size == 1 and masks == [True]
    if v.dtype != x._data.dtype and masks:
        check_put_value(x._data, key, masks, v, accumulate)  # passed: a fill by a scalar without imaginary part
    if fill and v.ndim:
        values = reshape(values, ())
    if v.dtype.kind == "c" and x._data.dtype.kind != "c":
        if not fill:
            warnings.warn("Casting complex values to real discards the imaginary part", UserWarning, stacklevel=4)
        values = values.real
    return values


def check_put_value(a: np.ndarray, key: Any, masks: list[bool], v: np.ndarray, accumulate: bool = False) -> None:
    """torch's checks of writing ``v``, of another dtype than ``a``, at ``key`` whose tensor indices are ``masks``
    (True for a bool mask, False for positions).

    One mask and one value element is a masked fill with the element as a scalar (converted with torch's overflow
    check); anything else must match ``a``'s dtype, checked after the value's shape (and the indices' shapes,
    but before their bounds).
    """
    if not accumulate and v.size == 1 and masks == [True]:
        fit_scalar(v.reshape(()).item(), a.dtype)
        return
    # the indexing result's shape, positions replaced by 0 (torch checks their bounds after the dtypes)
    parts = key if type(key) is tuple else (key,)
    probe_key = tuple(np.zeros_like(p) if type(p) is ndarray and p.dtype.kind in "iu" else p for p in parts)
    try:
        shape = np.broadcast_to(np.zeros((), dtype=bool), a.shape)[probe_key].shape
    except IndexError as e:
        raise _reraise_index(e, a.shape, key) from None
    value_shape = v.shape
    while value_shape and value_shape[0] == 1:
        value_shape = value_shape[1:]  # torch drops the value's leading ones
    try:
        fits = np.broadcast_shapes(value_shape, shape) == shape
    except ValueError:
        fits = False
    if not fits:
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(value_shape)} cannot be broadcast to "
                           f"indexing result of shape {list(shape)}")
    raise RuntimeError("Index put requires the source and destination dtypes match, got "
                       f"{type_title(a.dtype)} for the destination and {type_title(v.dtype)} for the source.")


def _tensor_index_masks(nk: Any) -> list[bool]:
    """The tensor indices torch makes of a converted key, each True for a bool mask: tensors and lists of one or
    more dims (0-d int tensors select; 0-d bool tensors and bools in a tuple become position tensors)."""
    parts = nk if type(nk) is tuple else (nk,)
    masks = []
    for p in parts:
        if type(p) is bool:
            masks.append(False)
        elif type(p) is ndarray and (p.ndim or p.dtype.kind == "b"):
            masks.append(p.ndim > 0 and p.dtype.kind == "b")
    return masks


@op(variants="function method")
def index_put_(self: Tensor, indices: tuple, values: Tensor, accumulate: bool = False) -> Tensor:
    """In-place :func:`index_put`."""
    return inplace_apply(self, index_put, (indices, values, accumulate), {}, "index_put_")


@op(variants="method", name="__setitem__")
def setitem(self: Tensor, key: Any, value: Any) -> None:
    """``self[key] = value``: an in-place write, recorded when gradients are involved."""
    nk, basic = convert_key(key)
    converted = nk
    if not basic:
        try:
            nk = _torch_order_key(nk, self._data.shape)
        except (IndexError, ValueError, TypeError) as e:
            raise _reraise_index(e, self._data.shape, nk) from None
    check_inplace(self, "__setitem__")
    v: np.ndarray | complex | np.number
    if isinstance(value, Tensor):
        # (a one-element value of one dim broadcasts in NumPy's write as torch's fill does)
        if value._data.dtype != self._data.dtype or (value._data.ndim > 1 and value._data.size == 1 and not basic):
            # a bare bool, or a key without tensor indices, copies into the view; others are index_put's
            masks = [] if basic or type(key) is bool else _tensor_index_masks(converted)
            value = _put_values(self, nk, masks, value)
        v = value._data
    elif isinstance(value, (bool, int, float, complex, np.number)):
        v = fit_scalar(value, self._data.dtype)
    else:
        raise TypeError(f"can't assign a {type(value).__name__} to a {self.type()}")
    recording = GRAD.enabled and (self._requires_grad or (isinstance(value, Tensor) and value._requires_grad))
    if recording and self._data.dtype.kind in "fc":
        inplace_apply(self, index_put_key, (nk, value), {}, "__setitem__")
        return
    a = writable(self)
    try:
        a[nk] = v
    except (IndexError, ValueError, TypeError, OverflowError) as e:
        if isinstance(e, ValueError) and "could not broadcast" in str(e):
            raise RuntimeError(f"shape mismatch: value tensor cannot be broadcast to indexing result: {e}") from None
        raise _reraise_index(e, a.shape, nk) from None
    bump_version(self)


# -- gather / scatter -----------------------------------------------------------------


def _check_scatter_shapes(shape: tuple, index_shape: tuple, src_shape: tuple | None, d: int) -> None:
    """torch's checks of scatter's shapes: one rank for all, ``index`` no larger than ``self`` (off ``dim``) or ``src``."""
    if len(index_shape) != len(shape) and not (len(shape) == 0 and len(index_shape) <= 1) \
            and not (len(index_shape) == 0 and len(shape) <= 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    # a 0-d tensor counts as a 1-element vector here
    if src_shape is not None and len(src_shape) != len(index_shape) and max(len(src_shape), len(index_shape)) > 1:
        raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    index_1d = index_shape or (1,)
    too_big = len(index_shape) == len(shape) and any(k != d and n > shape[k] for k, n in enumerate(index_shape))
    if src_shape is not None:
        src_1d = src_shape or (1,)
        too_big = too_big or (len(src_1d) == len(index_1d) and any(n > m for n, m in zip(index_1d, src_1d)))
    if too_big:
        src_text = f" and to be no larger size than src {list(src_shape)}" if src_shape is not None else ""
        raise RuntimeError(f"Expected index {list(index_shape)} to be no larger than self {list(shape)} apart from "
                           f"dimension {d}{src_text}")


def _index_arg(index: Any, fname: str) -> np.ndarray:
    idx = tensor_arg(index, fname, "index", 3)._data
    if idx.dtype.kind not in "iu":
        name = "gather" if fname == "gather" else "scatter"
        raise RuntimeError(f"{name}(): Expected dtype int32/int64 for index")
    return idx


def _along_key(index: np.ndarray, dim: int) -> tuple:
    """A NumPy advanced key addressing ``index`` along ``dim`` (and the position elsewhere)."""
    grids: list[np.ndarray] = list(np.indices(index.shape, sparse=True))
    grids[dim] = index
    return tuple(grids)


def _check_gather_bounds(idx: np.ndarray, size: int, dim: int) -> None:
    """gather and scatter take indices in ``[0, size)`` (no negative indices, unlike ``t[i]``)."""
    if idx.size and (idx.min() < 0 or idx.max() >= size):
        bad = idx.max() if idx.max() >= size else idx.min()
        raise RuntimeError(f"index {bad} is out of bounds for dimension {dim} with size {size}")


class GatherBackward0(Node):
    __slots__ = ("dim", "index", "shape")
    dim: int
    index: np.ndarray
    shape: tuple[int, ...]

    def backward(self, g: Tensor) -> tuple:
        return (scatter_into_zeros(g, self.dim, self.index, self.shape),)


@op(variants="function method")
def gather(input: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False, out: Tensor | None = None) -> Tensor:
    """Values of ``input`` along ``dim`` at the positions in ``index``."""
    x = tensor_arg(input, "gather")
    idx = _index_arg(index, "gather")
    a = x._data
    d = wrap_dim(dim, a.ndim)
    if idx.ndim != a.ndim and not (a.ndim == 0 and idx.ndim <= 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    _check_gather_bounds(idx, a.shape[d] if a.ndim else 1, d)
    r = np.asarray(a[_along_key(idx, d)]) if a.ndim else a.reshape(1)[idx]
    if x._requires_grad and GRAD.enabled:
        res, node = record(GatherBackward0, r, (x,))
        node.dim, node.index, node.shape = d, idx, a.shape
        return res if out is None else write_out(out, res, "gather")
    res = wrap(r)
    return res if out is None else write_out(out, res, "gather")


def _src_grad(g: Tensor, dim: int, index: np.ndarray, src_shape: tuple) -> Tensor:
    """The gradient of a scatter's ``src``: gathered at ``index``, zero where ``src`` was not read."""
    gs = gather(g, dim, wrap(index))
    if gs._data.shape != src_shape:
        gs = embed(gs, tuple(slice(0, n) for n in index.shape), src_shape, basic=True)
    return gs


class ScatterAddBackward0(Node):
    __slots__ = ("dim", "index", "src_shape")
    dim: int
    index: np.ndarray
    src_shape: tuple[int, ...]

    def apply(self, grads: list) -> tuple:
        g = grads[0]
        gi = g if self.needs(0) else None
        gs = _src_grad(g, self.dim, self.index, self.src_shape) if self.needs(1) else None
        return gi, gs


def scatter_into_zeros(g: Tensor, dim: int, index: np.ndarray, shape: tuple) -> Tensor:
    """Zeros of ``shape`` with ``g`` added along ``dim`` at ``index``; differentiable in ``g``.

    ``index`` comes from a forward pass that checked it (max pooling, max/min along a dim, gather).
    """
    if not shape:
        return g
    gd = g._data
    if (not (GRAD.enabled and g._requires_grad) and gd.dtype.kind == "f" and gd.shape == index.shape
            and gd.ndim == len(shape) and gd.size):
        # nothing recorded: one bincount over flat positions (repeated indices add up, in order, in double
        # precision) instead of zeros, a copy of them and np.add.at
        summed = np.bincount(_flat_positions(index, dim, shape).reshape(-1), weights=gd.reshape(-1),
                             minlength=math.prod(shape))
        return wrap(summed.astype(gd.dtype, copy=False).reshape(shape))
    return scatter_add(wrap(np.zeros(shape, dtype=g._data.dtype)), dim, wrap(index), g)


def _flat_positions(index: np.ndarray, dim: int, shape: tuple) -> np.ndarray:
    """Where each entry of ``index`` points in a row-major array of ``shape``: its own coordinates, with the
    index itself along ``dim`` (the index may be smaller than ``shape`` along the other dims)."""
    strides = [math.prod(shape[i + 1:]) for i in range(len(shape))]
    flat = index.astype(np.int64) * strides[dim]
    for i, n in enumerate(index.shape):
        if i != dim and n > 1:
            flat = flat + (np.arange(n, dtype=np.int64) * strides[i]).reshape([-1 if j == i else 1
                                                                               for j in range(index.ndim)])
    return flat


@op(variants="function method")
def scatter_add(input: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    """A copy of ``input`` with ``src`` added along ``dim`` at ``index``."""
    x = tensor_arg(input, "scatter_add")
    idx = _index_arg(index, "scatter_add")
    s = tensor_arg(src, "scatter_add", "src", 4)
    if s._data.dtype != x._data.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    a = x._data.copy()
    d = wrap_dim(dim, a.ndim)
    _check_scatter_shapes(a.shape, idx.shape, s._data.shape, d)
    # 0-d operands scatter as 1-element vectors
    work, wi = (a.reshape(1) if a.ndim == 0 else a), (idx.reshape(1) if idx.ndim == 0 else idx)
    sd = s._data.reshape(1) if s._data.ndim == 0 else s._data
    _check_gather_bounds(wi, work.shape[d], d)
    src_part = sd[tuple(slice(0, n) for n in wi.shape)]
    np.add.at(work, _along_key(wi, d), src_part.astype(a.dtype, copy=False))
    if GRAD.enabled and (x._requires_grad or s._requires_grad):
        res, node = record(ScatterAddBackward0, a, (x, s))
        node.dim, node.index, node.src_shape = d, idx, s._data.shape
        return res
    return wrap(a)


@op(variants="method")
def scatter_add_(self: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    """In-place :func:`scatter_add`."""
    return inplace_apply(self, scatter_add, (dim, index, src), {}, "scatter_add_")


class ScatterBackward0(Node):
    __slots__ = ("dim", "index", "src_shape")
    dim: int
    index: np.ndarray
    src_shape: tuple[int, ...] | None

    def apply(self, grads: list) -> tuple:
        g = grads[0]
        gi = gs = None
        if self.needs(0):
            mask = np.ones(g._data.shape, dtype=bool)
            mask[_along_key(self.index, self.dim)] = False
            gi = mul(g, wrap(mask))
        if self.src_shape is not None and self.needs(1):
            gs = _src_grad(g, self.dim, self.index, self.src_shape)
        return gi, gs


_REDUCERS = {"sum": np.add, "add": np.add, "prod": np.multiply, "multiply": np.multiply}


@op(variants="function method")
def scatter(input: Tensor, dim: int, index: Tensor, src: Any = None, *, value: Any = None, reduce: str | None = None) -> Tensor:
    """A copy of ``input`` with ``src`` (or ``value``) written along ``dim`` at ``index``."""
    x = tensor_arg(input, "scatter")
    idx = _index_arg(index, "scatter")
    if src is None:
        src = value
    if src is None:
        raise TypeError("scatter(): expected 'src' or 'value'")
    if isinstance(src, Tensor) and src._data.dtype != x._data.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    a = x._data.copy()
    d = wrap_dim(dim, a.ndim)
    _check_scatter_shapes(a.shape, idx.shape, src._data.shape if isinstance(src, Tensor) else None, d)
    # 0-d operands scatter as 1-element vectors
    work = a.reshape(1) if a.ndim == 0 else a
    wi = idx.reshape(1) if idx.ndim == 0 else idx
    _check_gather_bounds(wi, work.shape[d], d)
    key = _along_key(wi, d)
    if isinstance(src, Tensor):
        sd = src._data.reshape(1) if src._data.ndim == 0 else src._data
        v = sd[tuple(slice(0, n) for n in wi.shape)].astype(a.dtype, copy=False)
    else:
        v = src
    if reduce is None:
        work[key] = v
    else:
        if reduce not in _REDUCERS:
            raise RuntimeError(f"reduce argument must be either add or multiply, got {reduce}")
        _REDUCERS[reduce].at(work, key, v)
    if GRAD.enabled and (x._requires_grad or (isinstance(src, Tensor) and src._requires_grad)):
        if reduce is not None:
            raise RuntimeError("scatter(): the backward pass of scatter with a reduce argument is not implemented")
        res, node = record(ScatterBackward0, a, (x, src))
        node.dim, node.index = d, idx
        node.src_shape = src._data.shape if isinstance(src, Tensor) else None
        return res
    return wrap(a)


@op(variants="method")
def scatter_(self: Tensor, dim: int, index: Tensor, src: Any = None, *, value: Any = None, reduce: str | None = None) -> Tensor:
    """In-place :func:`scatter`."""
    return inplace_apply(self, scatter, (dim, index, src), {"value": value, "reduce": reduce}, "scatter_")


class IndexSelectBackward0(Node):
    __slots__ = ("dim", "index", "shape")
    dim: int
    index: np.ndarray
    shape: tuple[int, ...]

    def backward(self, g: Tensor) -> tuple:
        key = (slice(None),) * self.dim + (self.index,)
        return (embed(g, key, self.shape, basic=False),)


@op(variants="function method")
def index_select(input: Tensor, dim: int, index: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The entries of ``input`` at ``index`` (1-D) along ``dim``."""
    x = tensor_arg(input, "index_select")
    idx = tensor_arg(index, "index_select", "index", 3)._data
    if idx.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if idx.dtype.kind not in "iu" or idx.dtype.itemsize < 4:
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    a = x._data
    d = wrap_dim(dim, a.ndim)
    size = a.shape[d] if a.ndim else 1
    if idx.size and (idx.min() < 0 or idx.max() >= size):
        bad = idx.max() if idx.max() >= size else idx.min()
        if a.ndim <= 1:  # torch's two kernels report this differently
            raise IndexError("index out of range in self")
        raise RuntimeError(f"INDICES element is out of DATA bounds, id={bad} axis_dim={size}")
    r = np.take(a, idx.reshape(-1), axis=d) if a.ndim else a.reshape(1)[idx.reshape(-1)].reshape(idx.shape)
    if x._requires_grad and GRAD.enabled:
        res, node = record(IndexSelectBackward0, r, (x,))
        node.dim, node.index, node.shape = d, idx.reshape(-1), a.shape
        return res if out is None else write_out(out, res, "index_select")
    res = wrap(r)
    return res if out is None else write_out(out, res, "index_select")


@op(variants="function method")
def index_add(input: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: Any = 1) -> Tensor:
    """A copy of ``input`` with ``alpha * source`` added at ``index`` along ``dim``."""
    x = tensor_arg(input, "index_add")
    idx = tensor_arg(index, "index_add", "index", 3)._data
    src = tensor_arg(source, "index_add", "source", 4)
    if src._data.dtype != x._data.dtype:
        raise RuntimeError(f"index_add_(): self ({type_title(x._data.dtype)}) and source ({type_title(src._data.dtype)}) "
                           "must have the same scalar type")
    d = wrap_dim(dim, x._data.ndim)
    if idx.ndim > 1:
        raise IndexError(f"index_add_(): Index is supposed to be a vector, but got dim: {idx.ndim}")
    if idx.dtype.kind not in "iu":
        raise RuntimeError(f"index_add_(): Expected dtype int32/int64 for index but got: {type_title(idx.dtype)}")
    idx = idx.reshape(-1)
    ss = src._data.shape
    if x._data.ndim and ss and (ss[d] if d < len(ss) else 1) != idx.size:
        raise RuntimeError(
            f"index_add_(): Number of indices ({idx.size}) should be equal to source.size(dim): "
            f"({ss[d] if d < len(ss) else 1}), for dim: {d}"
        )
    _check_index_bounds(idx, x._data.shape[d] if x._data.ndim else 1, d, RuntimeError, 0)
    key = (slice(None),) * d + (idx,)
    scaled = src if alpha == 1 else mul(src, alpha)
    return rename_grad_fn(index_put_key(x, key, scaled, accumulate=True), "IndexAddBackward0")


@op(variants="function method")
def index_fill(input: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    """A copy of ``input`` with ``value`` at ``index`` along ``dim``."""
    x = tensor_arg(input, "index_fill")
    idx = tensor_arg(index, "index_fill", "index", 3)._data
    d = wrap_dim(dim, x._data.ndim)
    if idx.ndim > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    if idx.dtype.kind not in "iu":
        raise RuntimeError(f"index_fill_(): Expected dtype int64 for index but got: {type_title(idx.dtype)}")
    idx = idx.reshape(-1)
    _check_index_bounds(idx, x._data.shape[d] if x._data.ndim else 1, d)
    key = (slice(None),) * d + (idx,)
    return rename_grad_fn(index_put_key(x, key, value), "IndexFillBackward0")


def _check_index_bounds(idx: np.ndarray, size: int, dim: int, exc: type = IndexError, lo: int | None = None) -> None:
    if idx.size and (idx.min() < (-size if lo is None else lo) or idx.max() >= size):
        bad = idx.max() if idx.max() >= size else idx.min()
        raise exc(f"index {bad} is out of bounds for dimension {dim} with size {size}")


@op(variants="function method")
def take(input: Tensor, index: Tensor) -> Tensor:
    """Elements of the flattened ``input`` at ``index``."""
    x = tensor_arg(input, "take")
    idx = tensor_arg(index, "take", "index", 2)
    n = x._data.size
    i = idx._data
    if i.dtype != np.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {type_title(i.dtype)}")
    if i.size and (i.min() < -n or i.max() >= n):
        bad = i.max() if i.max() >= n else i.min()
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} elements.")

    return rename_grad_fn(getitem(reshape(x, (-1,)), idx), "TakeBackward0")


@op(variants="function method")
def take_along_dim(input: Tensor, indices: Tensor, dim: int | None = None) -> Tensor:
    """:func:`gather` after broadcasting (or of the flattened tensor if ``dim`` is None)."""
    x = tensor_arg(input, "take_along_dim")
    idx = tensor_arg(indices, "take_along_dim", "indices", 2)
    if dim is not None and x._data.ndim != idx._data.ndim:
        raise RuntimeError("torch.take_along_dim(): input and indices should have the same number of dimensions, but "
                           f"got {x._data.ndim} dimensions for input, and {idx._data.ndim} dimensions for indices")
    if dim is not None and x._data.ndim == 0:
        wrap_dim(dim, 0)  # out of range: torch's IndexError
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    if idx._data.dtype.kind in "iu" and idx._data.size and idx._data.min() < 0:
        # negative indices count from the end here (gather itself refuses them)
        n = x._data.size if dim is None else x._data.shape[wrap_dim(dim, x._data.ndim)]
        idx = wrap(np.where(idx._data < 0, idx._data + n, idx._data))
    if dim is None:
        return gather(reshape(x, (-1,)), 0, reshape(idx, (-1,)))
    d = wrap_dim(dim, x._data.ndim)
    off_dim = x._data.shape[:d] + (1,) + x._data.shape[d + 1:], idx._data.shape[:d] + (1,) + idx._data.shape[d + 1:]
    try:
        shape = list(np.broadcast_shapes(*off_dim))
    except ValueError:
        raise broadcast_error(np.empty(off_dim[0]), np.empty(off_dim[1])) from None
    xs = list(shape)
    xs[d] = x._data.shape[d]
    is_ = list(shape)
    is_[d] = idx._data.shape[d]

    return gather(expand(x, xs), d, wrap(np.broadcast_to(idx._data, is_)))


# -- masks -------------------------------------------------------------------------------


class MaskedFillBackward0(Node):
    __slots__ = ("mask", "value_meta")
    mask: np.ndarray
    value_meta: Meta | None

    def apply(self, grads: list) -> tuple:
        g = grads[0]
        m = self.mask
        gi = mul(g, wrap(~m)) if self.needs(0) else None
        if len(self.next_functions) == 1:  # a number filled in: torch's Scalar overload, one edge
            return (gi,)
        gv = _sum(mul(g, wrap(m))) if self.needs(1) else None
        return gi, gv


def _mask_arg(mask: Any, fname: str) -> np.ndarray:
    m = tensor_arg(mask, fname, "mask", 2)._data
    if m.dtype.kind != "b":
        raise RuntimeError(f"{fname} only supports boolean masks, but got mask with dtype {type_title(m.dtype)}")
    return m


@op(variants="function method")
def masked_fill(input: Tensor, mask: Tensor, value: Any) -> Tensor:
    """A copy of ``input`` with ``value`` where ``mask`` is true."""
    x = tensor_arg(input, "masked_fill")
    m = _mask_arg(mask, "masked_fill")
    if isinstance(value, Tensor):
        if value._data.ndim != 0:
            raise RuntimeError(
                f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with {value._data.ndim} dimension(s)."
            )
        v = value._data
    elif isinstance(value, (bool, int, float, complex, np.number, np.bool_)):
        v = fit_scalar(value, x._data.dtype)
    else:
        raise TypeError(f"masked_fill(): argument 'value' must be Number or Tensor, not {type(value).__name__}")
    a = x._data
    try:
        m_b = np.broadcast_to(m, a.shape)
    except ValueError:
        raise RuntimeError(
            f"The size of tensor a ({a.shape[-1] if a.ndim else 1}) must match the size of tensor b "
            f"({m.shape[-1] if m.ndim else 1}) at non-singleton dimension {a.ndim - 1}"
        ) from None
    r = np.where(m_b, np.asarray(v, dtype=a.dtype), a)
    if GRAD.enabled and (x._requires_grad or (isinstance(value, Tensor) and value._requires_grad)):
        res, node = record(MaskedFillBackward0, r, (x, value) if isinstance(value, Tensor) else (x,))
        node.mask = m_b
        return res
    return wrap(r)


@op(variants="method")
def masked_fill_(self: Tensor, mask: Tensor, value: Any) -> Tensor:
    """In-place :func:`masked_fill`."""
    return inplace_apply(self, masked_fill, (mask, value), {}, "masked_fill_")


@op(variants="function method")
def masked_select(input: Tensor, mask: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The elements of ``input`` where ``mask`` (broadcast) is true, as a 1-D tensor."""
    x = tensor_arg(input, "masked_select")
    m = _mask_arg(mask, "masked_select")

    xb, mb = broadcast_tensors(x, wrap(m))
    res = rename_grad_fn(getitem(xb, mb), "MaskedSelectBackward0")
    return res if out is None else write_out(out, res, "masked_select")


@op(variants="function method")
def masked_scatter(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """A copy of ``input`` with consecutive ``source`` elements placed where ``mask`` is true."""
    x = tensor_arg(input, "masked_scatter")
    mask_array = _mask_arg(mask, "masked_scatter")
    try:
        m = np.broadcast_to(mask_array, x._data.shape)
    except ValueError:
        raise broadcast_error(mask_array, x._data) from None
    n = int(m.sum())

    src = reshape(tensor_arg(source, "masked_scatter", "source", 3), (-1,))
    if src._data.dtype != x._data.dtype:
        raise RuntimeError("masked_scatter: expected self and source to have same dtypes but got"
                           f"{type_title(x._data.dtype)} and {type_title(src._data.dtype)}")
    if src._data.size < n:
        raise RuntimeError("masked_scatter: expected source to have at least as many elements as ones in mask")
    return rename_grad_fn(index_put_key(x, (m,), getitem(src, slice(0, n))), "MaskedScatterBackward0")


@op(variants="method")
def masked_scatter_(self: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """In-place :func:`masked_scatter`."""
    return inplace_apply(self, masked_scatter, (mask, source), {}, "masked_scatter_")


# -- copies of ``input`` with a part replaced ------------------------------------------------------


@op(variants="function method")
def index_copy(input: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    """A copy of ``input`` with the slices of ``source`` written at ``index`` along ``dim``."""
    x = tensor_arg(input, "index_copy")
    idx = tensor_arg(index, "index_copy", "index", 3)._data
    src = tensor_arg(source, "index_copy", "source", 4)
    d = wrap_dim(dim, x._data.ndim)
    if idx.ndim > 1:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {idx.ndim})")
    if idx.dtype != np.int64:
        raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got {type_title(idx.dtype)}")
    if src._data.dtype != x._data.dtype:
        raise RuntimeError(
            f"index_copy_(): self and source expected to have the same dtype, but got (self) "
            f"{type_title(x._data.dtype)} and (source) {type_title(src._data.dtype)}"
        )
    _check_copy_shapes(x._data.shape, src._data.shape, d, idx.size)
    if x._data.ndim == 0:  # a 0-d input is its own single slice
        return reshape(index_copy(reshape(x, (1,)), 0, index, reshape(src, (1,))), ())
    idx = idx.reshape(-1)
    _check_index_bounds(idx, x._data.shape[d] if x._data.ndim else 1, d, lo=0)
    return rename_grad_fn(index_put_key(x, (slice(None),) * d + (idx,), src), "IndexCopyBackward0")


def _check_copy_shapes(dest: tuple, source: tuple, dim: int, n_indices: int) -> None:
    """torch's checks of index_copy's ``source``: same dims as ``input`` and the same size off ``dim``, one slice per index."""
    if source and dest and len(source) != len(dest):
        raise IndexError("index_copy_(): When source and destination are not scalars, their dimensionality must "
                         f"match. Source dimensionality ({len(source)}), destination dimensionality ({len(dest)})")
    dest_slice, source_slice = dest[:dim] + dest[dim + 1:], source[:dim] + source[dim + 1:]
    if dest_slice != source_slice:
        raise RuntimeError("index_copy_(): Source/destination tensor must have same slice shapes. Destination slice "
                           f"shape: {', '.join(map(str, dest_slice))} at dimension {dim} and source slice shape: "
                           f"{', '.join(map(str, source_slice))} at dimension 0.")
    per_index = source[dim] if source else 1
    if n_indices != per_index:
        raise IndexError(f"index_copy_(): Number of indices ({n_indices}) should be equal to source.size(dim) "
                         f"({per_index})")


@op(variants="method")
def index_copy_(self: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    """In-place :func:`index_copy`."""
    return inplace_apply(self, index_copy, (dim, index, source), {}, "index_copy_")


def _scatter_part(fname: str, input: Tensor, src: Tensor, key: tuple) -> Tensor:
    x = tensor_arg(input, fname)
    if x._data.ndim == 0:
        raise IndexError(f"{'select' if fname == 'select_scatter' else 'slice'}() cannot be applied to a 0-dim tensor.")
    s = tensor_arg(src, fname, "src", 2)
    want = x._data[key].shape
    if s._data.shape != want:
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = {list(s._data.shape)}, slice size = {list(want)}")
    return index_put_key(x, key, s)


@op(variants="function method")
def select_scatter(input: Tensor, src: Tensor, dim: int, index: int) -> Tensor:
    """A copy of ``input`` with ``src`` written as its ``index``-th slice along ``dim``."""
    no_complex_grad("select_scatter", input, src)
    x = tensor_arg(input, "select_scatter")
    if isinstance(index, Tensor) and index._data.ndim == 0 and index._data.dtype.kind in "iu":
        index = int(index._data)  # an integer 0-d tensor counts as an int, as torch's SymInt arguments take it
    if isinstance(index, (bool, np.bool_)) or not isinstance(index, (int, np.integer)):
        raise TypeError(f"select_scatter(): argument 'index' (position 4) must be int, not {type(index).__name__}")
    if x._data.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, x._data.ndim)
    size = x._data.shape[d]
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(x._data.shape)} at dimension {d}")
    return _scatter_part("select_scatter", x, src, (slice(None),) * d + (index,))


@op(variants="function method")
def slice_scatter(input: Tensor, src: Tensor, dim: int = 0, start: int | None = None, end: int | None = None, step: int = 1) -> Tensor:
    """A copy of ``input`` with ``src`` written into ``input[..., start:end:step]`` along ``dim``."""
    no_complex_grad("slice_scatter", input, src)
    if isinstance(step, int) and step <= 0:
        raise RuntimeError("slice step must be positive")
    x = tensor_arg(input, "slice_scatter")
    if x._data.ndim == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, x._data.ndim)
    return _scatter_part("slice_scatter", x, src, (slice(None),) * d + (slice(start, end, step),))


@op(variants="function method")
def diagonal_scatter(input: Tensor, src: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """A copy of ``input`` with ``src`` written on the diagonal that :func:`diagonal` would return."""
    x = tensor_arg(input, "diagonal_scatter")
    a = x._data
    d1, d2 = wrap_dim(dim1, a.ndim), wrap_dim(dim2, a.ndim)
    if d1 == d2 or a.ndim == 0:  # a 0-d tensor's only dim (0 or -1) is named twice
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    offset = int_arg(offset, "diagonal_scatter", "offset")
    offset = max(min(offset, a.shape[d2]), -a.shape[d1])  # the same diagonal, with an offset NumPy's ints can hold
    n = np.diagonal(a, offset, d1, d2).shape[-1]
    rows = np.arange(n) + max(-offset, 0)
    cols = np.arange(n) + max(offset, 0)
    # an advanced key that addresses the diagonal in place, other dims kept in order
    rest = [i for i in range(a.ndim) if i not in (d1, d2)]
    grids = np.indices(tuple(a.shape[i] for i in rest), sparse=True) if rest else ()
    key: list = [None] * a.ndim
    for g, i in zip(grids, rest):
        key[i] = np.expand_dims(g, -1)
    key[d1], key[d2] = rows, cols
    s = tensor_arg(src, "diagonal_scatter", "src", 2)
    want = np.diagonal(a, offset, d1, d2).shape
    if s._data.shape != want:
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = {list(s._data.shape)}, slice size = {list(want)}")
    return index_put_key(x, tuple(key), s)


# -- scatter with a reduction -------------------------------------------------------------------------

_REDUCE_AT = {"sum": np.add, "mean": np.add, "prod": np.multiply, "amax": np.maximum, "amin": np.minimum}
_IDENTITY = {"sum": 0, "mean": 0, "prod": 1, "amax": -np.inf, "amin": np.inf}


class ScatterReduceBackward0(Node):
    """amax/amin: the gradient is shared by every value equal to the result; prod: result / value."""
    __slots__ = ("self_", "src", "result", "dim", "index", "reduce", "include_self", "src_shape")
    _saved_slots = ("self_", "src", "result")
    self_: SavedTensor
    src: SavedTensor
    result: SavedTensor
    dim: int
    index: np.ndarray
    reduce: str
    include_self: bool
    src_shape: tuple[int, ...]

    def apply(self, grads: list) -> tuple:
        g = grads[0]
        x, s, y = self.self_.unpack(self), self.src.unpack(self), self.result.unpack(self)
        d, idx = self.dim, self.index
        key = _along_key(idx, d)
        src_part = s._data[tuple(slice(0, n) for n in idx.shape)]
        if self.reduce == "prod":
            gy = mul(g, y)
            gi = div(gy, x) if self.include_self else mul(g, wrap(~_hits(x._data.shape, key)))
            gs = div(gather(gy, d, wrap(idx)), _part(s, idx))
        else:
            # ties share the gradient: count every value equal to its target's result
            yv = y._data
            self_eq = (x._data == yv) if self.include_self else np.zeros(yv.shape, dtype=bool)
            src_eq = src_part == yv[key]
            count = self_eq.astype(yv.dtype)
            np.add.at(count, key, src_eq.astype(yv.dtype))
            count = np.where(count == 0, 1, count)
            share = div(g, wrap(count))
            gi = mul(share, wrap(self_eq | ~_hits(yv.shape, key)))
            gs = mul(gather(share, d, wrap(idx)), wrap(src_eq))
        if gs._data.shape != self.src_shape:
            gs = embed(gs, tuple(slice(0, n) for n in idx.shape), self.src_shape, basic=True)
        return (gi if self.needs(0) else None), (gs if self.needs(1) else None)


def _hits(shape: tuple, key: tuple) -> np.ndarray:
    hit = np.zeros(shape, dtype=bool)
    hit[key] = True
    return hit


def _part(s: Tensor, idx: np.ndarray) -> Tensor:
    return basic_getitem(s, tuple(slice(0, n) for n in idx.shape)) if s._data.shape != idx.shape else s


@op(variants="function method")
def scatter_reduce(input: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *, include_self: bool = True) -> Tensor:
    """A copy of ``input`` with ``src`` reduced (sum, prod, mean, amax, amin) into it along ``dim`` at ``index``."""
    no_complex_grad("scatter_reduce", input, src)
    x = tensor_arg(input, "scatter_reduce")
    idx = _index_arg(index, "scatter_reduce")
    s = tensor_arg(src, "scatter_reduce", "src", 4)
    if not isinstance(reduce, str):
        raise TypeError(f"scatter_reduce(): argument 'reduce' (position 4) must be str, not {type(reduce).__name__}")
    if reduce not in _REDUCE_AT:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    if s._data.dtype != x._data.dtype:
        raise RuntimeError("scatter_reduce(): Expected self.dtype to be equal to src.dtype")
    a = x._data
    d = wrap_dim(dim, a.ndim)
    if idx.ndim != a.ndim:
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    _check_gather_bounds(idx, a.shape[d], d)
    key = _along_key(idx, d)
    if reduce in ("sum", "mean"):
        hits = wrap(_hits(a.shape, key))
        base = x if include_self else mul(x, logical_not(hits))
        total = scatter_add(base, d, index, s)
        if reduce == "sum":
            return total
        count = np.zeros(a.shape, dtype=np.int64)
        np.add.at(count, key, 1)
        count += 1 if include_self else 0
        count = np.where(count == 0, 1, count)
        if a.dtype.kind in "iu":  # integer means round down, as in torch
            return div(total, wrap(count), rounding_mode="floor")
        return div(total, wrap(count.astype(a.dtype)))
    r = a.copy()
    if not include_self:
        r[key] = _IDENTITY[reduce] if a.dtype.kind == "f" or reduce == "prod" else (
            np.iinfo(a.dtype).min if reduce == "amax" else np.iinfo(a.dtype).max
        )
    _REDUCE_AT[reduce].at(r, key, s._data[tuple(slice(0, n) for n in idx.shape)])
    if GRAD.enabled and (x._requires_grad or s._requires_grad):
        res, node = record(ScatterReduceBackward0, r, (x, s))
        node.self_, node.src, node.result = save_input(x), save_input(s), SavedTensor(res, True)
        node.dim, node.index, node.reduce, node.include_self, node.src_shape = d, idx, reduce, include_self, s._data.shape
        return res
    return wrap(r)


@op(variants="method")
def scatter_reduce_(self: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *, include_self: bool = True) -> Tensor:
    """In-place :func:`scatter_reduce`."""
    return inplace_apply(self, scatter_reduce, (dim, index, src, reduce), {"include_self": include_self}, "scatter_reduce_")


def _diagonal_filled(input: Tensor, fill_value: Any, wrap: bool) -> Tensor:
    a = input._data
    if a.ndim < 2:
        raise RuntimeError("dimensions must larger than 1")
    if a.ndim > 2 and len(set(a.shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    n = min(a.shape)
    key: tuple[np.ndarray, ...]
    if a.ndim == 2 and wrap and a.shape[0] > a.shape[1] + 1:
        # numbering the elements row-major, the diagonal continues every (cols + 1) elements
        flat = np.arange(0, a.shape[0] * a.shape[1], a.shape[1] + 1)
        key = (flat // a.shape[1], flat % a.shape[1])
    else:
        idx = np.arange(n)
        key = (idx,) * a.ndim
    return index_put_key(input, key, fill_value)


@op(variants="method")
def fill_diagonal_(self: Tensor, fill_value: Any, wrap: bool = False) -> Tensor:
    """Write ``fill_value`` on the main diagonal in place (for tall matrices, ``wrap`` restarts it every cols + 1 rows)."""
    x = tensor_arg(self, "fill_diagonal_")
    if not isinstance(fill_value, (bool, int, float, complex, np.number, np.bool_)):
        raise TypeError(f"fill_diagonal_(): argument 'fill_value' must be Number, not {type(fill_value).__name__}")
    fill_value = fit_scalar(fill_value, x._data.dtype)
    return inplace_apply(x, _diagonal_filled, (fill_value, wrap), {}, "fill_diagonal_")


@op(variants="function method")
def narrow(input: Tensor, dim: int, start: Any, length: int) -> Tensor:
    """A view of ``length`` entries of ``dim`` from ``start``."""
    x = tensor_arg(input, "narrow")
    a = x._data
    if a.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, a.ndim)
    size = a.shape[d]
    if isinstance(start, bool) or not isinstance(start, (int, np.integer, Tensor)):
        raise TypeError(f"narrow(): argument 'start' (position 3) must be int or Tensor, not {type(start).__name__}")
    start = int(start)
    if start < 0:
        start += size
    if start < 0 or start > size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    if length < 0 or start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    key = (slice(None),) * d + (slice(start, start + length),)

    return basic_getitem(x, key)


@op(variants="function method")
def select(input: Tensor, dim: int, index: int) -> Tensor:
    """The slice at ``index`` of ``dim``, with that dim removed (a view)."""
    x = tensor_arg(input, "select")
    a = x._data
    if a.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, a.ndim)
    size = a.shape[d]
    i = int(index)
    if i < -size or i >= size:
        raise IndexError(f"select(): index {i} out of range for tensor of size {list(a.shape)} at dimension {d}")
    key = (slice(None),) * d + (i,)

    return basic_getitem(x, key)


@op(variants="function method")
def repeat_interleave(input: Tensor, repeats: Any = None, dim: int | None = None, *, output_size: int | None = None) -> Tensor:
    """Repeat each element ``repeats`` times (along ``dim``, or of the flattened tensor).

    With only a tensor of counts, ``repeat_interleave(counts)`` repeats each index
    ``counts[i]`` times.
    """
    x = tensor_arg(input, "repeat_interleave")
    if repeats is None:
        c = x._data
        if c.ndim != 1 or c.dtype.kind not in "iu":
            raise RuntimeError("repeats has to be a 1D tensor of integers")
        if c.size and c.min() < 0:
            raise RuntimeError("repeats can not be negative")
        return wrap(np.repeat(np.arange(c.size, dtype=np.int64), c))
    if isinstance(repeats, (bool, np.bool_)) or not isinstance(repeats, (Tensor, int, np.integer)):
        raise TypeError(f"repeat_interleave(): argument 'repeats' must be Tensor or int, not {type(repeats).__name__}")
    if dim is None:
        x = reshape(x, (-1,))
        dim = 0
    elif x._data.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = wrap_dim(dim, x._data.ndim)
    if isinstance(repeats, Tensor) and repeats._data.dtype.kind not in "iu":
        raise not_implemented("repeat_interleave_cpu", repeats._data.dtype)
    reps = repeats._data if isinstance(repeats, Tensor) else repeats
    if np.any(np.asarray(reps) < 0):
        raise RuntimeError("repeats can not be negative")
    if np.ndim(reps) == 1 and np.size(reps) != x._data.shape[d]:
        raise RuntimeError(f"repeats must have the same size as input along dim, but got repeats.size(0) = "
                           f"{np.size(reps)} and input.size(0) = {x._data.shape[d]}")
    index = np.repeat(np.arange(x._data.shape[d]), reps)

    return index_select(x, d, wrap(index.astype(np.int64)))


@op(variants="function method")
def narrow_copy(input: Tensor, dim: int, start: int, length: int) -> Tensor:
    """:func:`narrow`, copied."""
    return rename_grad_fn(clone(narrow(input, dim, start, length)), "NarrowCopyBackward0")


@op()
def combinations(input: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    """All length-``r`` combinations of the elements of the 1-D ``input``, as rows (differentiable)."""

    x = tensor_arg(input, "combinations")
    if isinstance(r, (bool, np.bool_)) or not isinstance(r, (int, np.integer, Tensor)):
        raise TypeError(f"combinations(): argument 'r' must be int, not {type(r).__name__}")
    r = int_arg(int(r), "combinations", "r")
    if not isinstance(with_replacement, (bool, np.bool_)):
        raise TypeError(f"combinations(): argument 'with_replacement' must be bool, not {type(with_replacement).__name__}")
    if x._data.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(x._data.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return wrap(np.empty((0,), dtype=x._data.dtype))
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    rows = np.array(list(pick(range(x._data.shape[0]), r)), dtype=np.int64).reshape(-1, r)
    # no combination at all still selects (nothing) from the input, so the result stays in its graph
    out = index_select(x, 0, wrap(rows.reshape(-1)))
    return reshape(out, rows.shape) if r > 1 else out
