"""dtype conversion and copies (``to_dtype``, ``clone``, ``positive``, ``zeros_like``), complex parts (``conj``, ``real``)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .. import _dtype
from .._autograd.engine import edge
from .._autograd.graph import Node, new_node
from .._dtype import FROM_NP
from .._memory_format import check_memory_format, check_rank, memory_format
from .._registry import op
from .._tensor import Tensor, _make_view
from ._util import GRAD, Meta, record, result_dtype, tensor_arg, wrap

# -- dtype conversion -----------------------------------------------------------------


class ToCopyBackward0(Node):
    __slots__ = ("src_dtype",)
    src_dtype: np.dtype

    def backward(self, g: Tensor) -> tuple:
        src = self.src_dtype
        if src.kind != "c" and g._data.dtype.kind == "c":
            g = real(g)
        return (to_dtype(g, FROM_NP[src]),)


def to_dtype(input: Tensor, dtype: _dtype.dtype, copy: bool = False) -> Tensor:
    """``input`` converted to ``dtype`` (the tensor itself if it already has it and ``copy`` is False)."""
    a = input._data
    npdt = dtype.np
    if a.dtype is npdt and not copy:
        return input
    if a.dtype.kind == "c" and npdt.kind != "c":

        warnings.warn("Casting complex values to real discards the imaginary part", UserWarning, stacklevel=3)
        r = a.real.astype(npdt)
    else:
        r = a.astype(npdt)
    if input._requires_grad and GRAD.enabled and npdt.kind in "fc":
        res, node = record(ToCopyBackward0, r, (input,))
        node.src_dtype = a.dtype
        return res
    return wrap(r)


def zeros_like(input: Tensor) -> Tensor:
    return wrap(np.zeros(input._data.shape, dtype=input._data.dtype))


class CloneBackward0(Node):
    __slots__ = ()

    def backward(self, g: Tensor) -> tuple:
        return (g,)


@op(variants="function method")
def clone(input: Tensor, *, memory_format: memory_format | None = None) -> Tensor:
    """A copy of ``input`` with its own (row-major) memory; gradients flow back to ``input``."""
    x = tensor_arg(input, "clone")
    if memory_format is not None:
        check_rank(check_memory_format(memory_format, "clone"), x._data.ndim)
    r = x._data.copy()
    if x._requires_grad and GRAD.enabled:
        res, _ = record(CloneBackward0, r, (x,))
        return res
    return wrap(r)


@op(variants="function method")
def positive(input: Tensor) -> Tensor:
    """``input`` itself (unary plus)."""
    x = tensor_arg(input, "positive")
    if x._data.dtype.kind == "b":
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return x


def full_like_scalar(value: Any, like: Any) -> Tensor:
    """A 0-dim tensor holding ``value`` in the dtype it takes next to ``like`` (out-of-range ints wrap, as in torch)."""
    dt = result_dtype(like, value) if isinstance(like, Tensor) else _dtype.scalar_dtype(value)
    return wrap(np.array(value).astype(dt.np))


@op()
def result_type(tensor1: object, tensor2: object) -> _dtype.dtype:
    """The dtype an arithmetic op between the two operands would produce."""
    return result_dtype(tensor1, tensor2)


@op()
def is_floating_point(input: Tensor) -> bool:
    """Whether ``input`` has a floating point dtype."""
    return tensor_arg(input, "is_floating_point")._data.dtype.kind == "f"


@op()
def is_complex(input: Tensor) -> bool:
    """Whether ``input`` has a complex dtype."""
    return tensor_arg(input, "is_complex")._data.dtype.kind == "c"


@op(variants="function method")
def is_nonzero(input: Tensor) -> bool:
    """The truth value of a one-element tensor."""
    x = tensor_arg(input, "is_nonzero")
    if x._data.size != 1:
        raise RuntimeError(
            "Boolean value of Tensor with no values is ambiguous" if x._data.size == 0
            else "Boolean value of Tensor with more than one value is ambiguous"
        )
    return bool(x._data.reshape(()).item())


@op(dispatch="modes")
def can_cast(from_: _dtype.dtype, to: _dtype.dtype) -> bool:
    """Whether torch's casting rules allow ``from_`` to be cast to ``to`` in an in-place op."""
    order = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}
    return order[from_.np.kind] <= order[to.np.kind]


class ConjBackward0(Node):
    __slots__ = ()

    def backward(self, g: Tensor) -> tuple:
        return (conj(g),)


@op(variants="function method")
def conj(input: Tensor) -> Tensor:
    """Complex conjugate (the tensor itself for real dtypes)."""
    x = tensor_arg(input, "conj")
    if x._data.dtype.kind != "c":
        return x
    r = np.conj(x._data)
    if x._requires_grad and GRAD.enabled:
        res, _ = record(ConjBackward0, r, (x,))
        return res
    return wrap(r)


class RealBackward0(Node):
    __slots__ = ("meta",)
    meta: Meta

    def backward(self, g: Tensor) -> tuple:
        return (to_dtype(g, FROM_NP[self.meta[1]]),)


def _part_view(x: Tensor, data: np.ndarray, node_cls: type) -> Tensor:
    """A view of complex ``x`` around one of its parts (``data``), recorded as ``node_cls``."""
    t = _make_view(x, data)
    if x._requires_grad and GRAD.enabled:
        node = new_node(node_cls, (edge(x),))
        node.meta = (x._data.shape, x._data.dtype)
        t._grad_fn = node
        t._requires_grad = True
    return t


@op()
def real(input: Tensor) -> Tensor:
    """The real part (a view for complex tensors, the tensor itself for real ones)."""
    x = tensor_arg(input, "real")
    if x._data.dtype.kind != "c":
        return x
    return _part_view(x, x._data.real, RealBackward0)
