"""The ``*_copy`` forms of the view ops (``view_copy``, ``t_copy``, ...), the ``unsafe_`` splits and ``split_with_sizes``.

A ``*_copy`` op returns what its view op returns, in new contiguous memory: the result shares nothing with its input,
and its history is the view's own backward, reported under torch's name (``TBackward0_copy``). The ``unsafe_`` splits
are torch's splits whose pieces autograd does not track as views: they share the input's memory, but an in-place
change of a piece neither bumps the input's version nor rewrites its history (torch leaves that to the caller).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .._autograd.graph import NOT_IMPLEMENTED, rename_grad_fn
from .._dtype import dtype as DType
from .._registry import op
from .._tensor import Tensor, _wrap, wrap_dim
from ._util import needs_grad, no_complex_grad, record, tensor_arg, write_out
from .broadcast import expand
from .complex_views import view_as_complex, view_as_real
from .indexing import basic_getitem, select
from .join_split import chunk, sizes_arg, split, split_with_sizes, unbind
from .shape import alias, diagonal, permute, squeeze, t, transpose, unfold, unsqueeze, view, view_dtype
from .strided import as_strided


def fresh_copy(v: Tensor, out: Tensor | None, fname: str, rename: bool = True) -> Tensor:
    """View ``v``'s values in new row-major memory, with ``v``'s history renamed ``<name>_copy`` as torch does."""
    res = _wrap(np.array(v._data, order="C"))
    node = _take_history(res, v)
    if node is not None and rename:
        rename_grad_fn(res, type(node).__name__ + "_copy")
    return res if out is None else write_out(out, res, fname)


def _take_history(res: Tensor, v: Tensor) -> Any:
    """Make ``res`` the same output of ``v``'s node as ``v`` is; that node (None: ``v`` has no history)."""
    node = v._grad_fn
    if node is not None:
        res._grad_fn = node
        res._requires_grad = True
        if v._output_nr:
            res._get_meta().output_nr = v._output_nr
    return node


def _fresh_copies(views: Sequence[Tensor], out: Any, fname: str) -> Any:
    """Copies of ``views`` as a tuple, or written into the list ``out`` (whose tensors must have their shapes,
    as in torch; tensors with no elements are resized, as ``out=`` tensors are elsewhere), returning None. Pieces
    of one split share its node: it is renamed once."""
    res = tuple(fresh_copy(v, None, fname, rename=i == 0 or v._grad_fn is not views[0]._grad_fn)
                for i, v in enumerate(views))
    if out is None:
        return res
    if not isinstance(out, (list, tuple)) or not all(isinstance(o, Tensor) for o in out):
        raise TypeError(f"{fname}(): argument 'out' must be tuple of Tensors, not {type(out).__name__}")
    if len(out) != len(res):
        raise RuntimeError(f"{fname}_out expected an out= argument of size {len(res)}, got size {len(out)}")
    for o, r in zip(out, res):
        if o._data.size and o._data.shape != r._data.shape:
            raise RuntimeError(f"{fname}_out: expected out tensor of shape {list(r._data.shape)}, "
                               f"got {list(o._data.shape)}")
        write_out(o, r, fname)
    return None


@op()
def alias_copy(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """A copy of ``input`` (torch's ``alias`` into new memory)."""
    return fresh_copy(alias(tensor_arg(input, "alias_copy")), out, "alias_copy")


@op()
def detach_copy(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """A copy of ``input`` with no history; as in torch, it still requires grad when ``input`` does, and
    differentiating through it is an error."""
    x = tensor_arg(input, "detach_copy")
    data = np.array(x._data, order="C")
    if needs_grad(x):
        res, node = record(NOT_IMPLEMENTED, data, (x,))
        node.op_name = "detach_copy"
        return res if out is None else write_out(out, res, "detach_copy")
    return fresh_copy(_wrap(data), out, "detach_copy")


@op()
def view_as_real_copy(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """:func:`view_as_real` into new memory."""
    return fresh_copy(view_as_real(tensor_arg(input, "view_as_real_copy")), out, "view_as_real_copy")


@op()
def view_as_complex_copy(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """:func:`view_as_complex` into new memory (not differentiable, as in torch)."""
    x = tensor_arg(input, "view_as_complex_copy")
    if needs_grad(x):
        raise RuntimeError("view_as_complex_copy does not support automatic differentiation for outputs with complex "
                           "dtype.")
    return fresh_copy(view_as_complex(x), out, "view_as_complex_copy")


@op()
def as_strided_copy(input: Tensor, size: Sequence[int], stride: Sequence[int], storage_offset: int | None = None,
                    *, out: Tensor | None = None) -> Tensor:
    """:func:`as_strided` into new memory."""
    return fresh_copy(as_strided(input, size, stride, storage_offset), out, "as_strided_copy")


@op()
def diagonal_copy(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1, *, out: Tensor | None = None) -> Tensor:
    """:func:`diagonal` into new memory."""
    return fresh_copy(diagonal(input, offset, dim1, dim2), out, "diagonal_copy")


@op()
def expand_copy(input: Tensor, size: Sequence[int], *, implicit: bool = False, out: Tensor | None = None) -> Tensor:
    """:meth:`Tensor.expand` into new memory (each repeated element written out)."""
    return fresh_copy(expand(tensor_arg(input, "expand_copy"), size), out, "expand_copy")


@op()
def permute_copy(input: Tensor, dims: Sequence[int], *, out: Tensor | None = None) -> Tensor:
    """:func:`permute` into new memory."""
    return fresh_copy(permute(tensor_arg(input, "permute_copy"), dims), out, "permute_copy")


@op()
def select_copy(input: Tensor, dim: int, index: int, *, out: Tensor | None = None) -> Tensor:
    """:func:`select` into new memory."""
    no_complex_grad("select_copy", input)
    return fresh_copy(select(input, dim, index), out, "select_copy")


@op()
def slice_copy(input: Tensor, dim: int = 0, start: int | None = None, end: int | None = None, step: int = 1,
               *, out: Tensor | None = None) -> Tensor:
    """``input[start:end:step]`` along ``dim``, into new memory."""
    no_complex_grad("slice_copy", input)
    x = tensor_arg(input, "slice_copy")
    a = x._data
    if a.ndim == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    key = (slice(None),) * wrap_dim(dim, a.ndim) + (slice(start, end, step),)
    v = basic_getitem(x, key)
    if v._grad_fn is not None:
        rename_grad_fn(v, "SliceBackward0")
    return fresh_copy(v, out, "slice_copy")


@op()
def split_copy(input: Tensor, split_size: int, dim: int = 0, *, out: Any = None) -> Any:
    """:func:`split` into chunks of ``split_size``, each in new memory."""
    _int_arg(split_size, "split_copy", "split_size", 2)
    return _fresh_copies(split(tensor_arg(input, "split_copy"), split_size, dim), out, "split_copy")


@op()
def split_with_sizes_copy(input: Tensor, split_sizes: Sequence[int], dim: int = 0, *, out: Any = None) -> Any:
    """:func:`split_with_sizes` with each piece in new memory."""
    return _fresh_copies(split_with_sizes(input, split_sizes, dim), out, "split_with_sizes_copy")


@op()
def squeeze_copy(input: Tensor, dim: Any = None, *, out: Tensor | None = None) -> Tensor:
    """:func:`squeeze` into new memory."""
    return fresh_copy(squeeze(input, dim), out, "squeeze_copy")


@op()
def t_copy(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """:func:`t` into new memory."""
    return fresh_copy(t(tensor_arg(input, "t_copy")), out, "t_copy")


@op()
def transpose_copy(input: Tensor, dim0: int, dim1: int, *, out: Tensor | None = None) -> Tensor:
    """:func:`transpose` into new memory."""
    return fresh_copy(transpose(input, dim0, dim1), out, "transpose_copy")


@op()
def unbind_copy(input: Tensor, dim: int = 0, *, out: Any = None) -> Any:
    """:func:`unbind` with each slice in new memory."""
    return _fresh_copies(unbind(input, dim), out, "unbind_copy")


@op()
def unfold_copy(input: Tensor, dimension: int, size: int, step: int, *, out: Tensor | None = None) -> Tensor:
    """:meth:`Tensor.unfold` into new memory."""
    return fresh_copy(unfold(input, dimension, size, step), out, "unfold_copy")


@op()
def unsqueeze_copy(input: Tensor, dim: int, *, out: Tensor | None = None) -> Tensor:
    """:func:`unsqueeze` into new memory."""
    return fresh_copy(unsqueeze(input, dim), out, "unsqueeze_copy")


@op()
def view_copy(input: Tensor, size: Any, *, out: Tensor | None = None) -> Tensor:
    """:meth:`Tensor.view` (a shape, or a dtype to reinterpret the bytes as) into new memory."""
    x = tensor_arg(input, "view_copy")
    if isinstance(size, DType):
        return fresh_copy(view_dtype(x, size), out, "view_copy")
    if not isinstance(size, (tuple, list)):
        raise TypeError(
            f"view_copy() received an invalid combination of arguments - got (Tensor, {type(size).__name__}), but "
            "expected one of:\n * (Tensor input, torch.dtype dtype, *, Tensor out = None)\n"
            " * (Tensor input, tuple of ints size, *, Tensor out = None)"
        )
    return fresh_copy(view(x, tuple(size)), out, "view_copy")


# -- splits -----------------------------------------------------------------------------------------


def _int_arg(v: Any, fname: str, name: str, pos: int) -> None:
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"{fname}(): argument '{name}' (position {pos}) must be int, not {type(v).__name__}")


def _unsafe(pieces: Sequence[Tensor], name: str) -> tuple:
    """Pieces of a split that autograd does not track as views: they share ``input``'s memory but not its version
    counter or view history (no ``_base``), and their history is the piece's backward, recorded as ``name``."""
    out = []
    for p in pieces:
        u = _wrap(p._data)
        if _take_history(u, p) is not None:
            rename_grad_fn(u, name)  # (pieces of one split share a node: renaming it again changes nothing)
        out.append(u)
    return tuple(out)


@op(variants="function method")
def unsafe_split(input: Tensor, split_size: int, dim: int = 0) -> tuple:
    """:func:`split` into chunks of ``split_size`` whose pieces are not tracked as views of ``input``."""
    _int_arg(split_size, "unsafe_split", "split_size", 2)
    return _unsafe(split(tensor_arg(input, "unsafe_split"), split_size, dim), "UnsafeSplitBackward0")


@op(variants="function method")
def unsafe_split_with_sizes(input: Tensor, split_sizes: Sequence[int], dim: int = 0) -> tuple:
    """:func:`split_with_sizes` whose pieces are not tracked as views of ``input``."""
    sizes = sizes_arg(split_sizes, "unsafe_split_with_sizes")
    return _unsafe(split(tensor_arg(input, "unsafe_split_with_sizes"), sizes, dim), "UnsafeSplitWithSizesBackward0")


@op(variants="function method")
def unsafe_chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple:
    """:func:`chunk` whose pieces are not tracked as views of ``input``."""
    return _unsafe(chunk(tensor_arg(input, "unsafe_chunk"), chunks, dim), "UnsafeSplitBackward0")
