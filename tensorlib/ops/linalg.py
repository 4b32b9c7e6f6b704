"""Matrix products and linear algebra: mm, matmul, bmm, dot, outer, addmm, vector norms, inv, det."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._autograd.graph import Node, SavedTensor, named_node_class, node_name, rename_grad_fn, save_input, unpack
from .._registry import LINALG, TENSORLIB, op
from .._tensor import Tensor, _make_view, wrap_dim
from . import broadcast, comparison, power, shape as shape_ops, unary
from ._pointwise import _finish, inplace_apply
from ._util import GRAD, int_arg, no_half, normalize_dims, not_implemented, record, tensor_arg, type_title, wrap, write_out
from .arithmetic import add, div, mul, neg, sub
from .broadcast import _expand_back, expand, sum_to_size
from .conversion import clone, conj, to_dtype, zeros_like
from .indexing import select
from .join_split import stack
from .selection import where
from .shape import permute, reshape, transpose, unsqueeze
from .unary import log, sgn


def _dims(shape: tuple) -> str:
    return "x".join(str(s) for s in shape)


_CPP_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int", "int32": "int",
              "int16": "short int", "int8": "signed char", "uint8": "unsigned char", "bool": "bool",
              "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}


def _mismatch(x: Tensor, y: Tensor) -> RuntimeError:
    """torch's error for matrix products of different dtypes (it names the C++ element types)."""
    return RuntimeError(
        "expected m1 and m2 to have the same dtype, but got: "
        f"{_CPP_NAMES[x.dtype.name]} != {_CPP_NAMES[y.dtype.name]}"
    )


def _same_dtype(x: Tensor, y: Tensor, fname: str) -> tuple[np.ndarray, np.ndarray]:
    a, b = x._data, y._data
    if a.dtype.kind == "b" and b.dtype.kind == "b":
        raise not_implemented("addmm_impl_cpu_", a.dtype)
    if a.dtype != b.dtype:
        raise _mismatch(x, y)
    return a, b


class MmBackward0(Node):
    __slots__ = ("self_", "mat2", "mat2_layout")
    _saved_slots = ("self_", "mat2")
    self_: SavedTensor | None
    mat2: SavedTensor | None
    mat2_layout: tuple[int, ...]  # mat2's strides

    def backward(self, g: Tensor) -> tuple:
        ga = gb = None
        gd = g._data
        if not GRAD.enabled and type(g) is Tensor and gd.dtype.kind == "f":
            # nothing to record, real operands: the products on the arrays
            if self.needs(0):
                ga = wrap(matrix_product(gd, unpack(self, self.mat2)._data.T))
            if self.needs(1):
                xd = unpack(self, self.self_)._data
                if _column_major(self.mat2_layout):
                    p = matrix_product(gd.T, xd)
                    gb = _make_view(wrap(p), p.T)  # a view, as the general path's: the leaf can take ``p`` itself
                else:
                    gb = wrap(matrix_product(xd.T, gd))
            return ga, gb
        if self.needs(0):
            ga = mm(g, conj(shape_ops.t(unpack(self, self.mat2))))
        if self.needs(1):
            x = unpack(self, self.self_)
            if _column_major(self.mat2_layout):
                # mat2 is a transposed view (``x @ w.T``): compute its gradient transposed too, so that it reaches
                # ``w`` row-major, as ``w`` is, and is stored without a copy (torch does the same)
                gb = shape_ops.t(mm(shape_ops.t(g), conj(x)))
            else:
                gb = mm(conj(shape_ops.t(x)), g)
        return ga, gb


def matrix_product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b`` of two 2-D arrays, by whichever of NumPy's two entry points costs less for this size.

    ``ndarray.dot`` skips the ufunc machinery of ``np.matmul`` (about half a microsecond
    per call, most of a small product's cost) but zero-fills its output before calling
    BLAS, a pass over memory ``matmul`` does not make: it pays off below ~128 KB of output.
    """
    if a.shape[0] * b.shape[1] * a.itemsize <= 131072:
        return a.dot(b)
    return np.matmul(a, b)


def _column_major(strides: tuple[int, ...]) -> bool:
    """Whether a matrix with these (byte) strides is stored column by column and not also row by row."""
    return strides[0] < strides[1]


@op(variants="function method")
def mm(input: Tensor, mat2: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Matrix product of two 2-D tensors."""
    x = tensor_arg(input, "mm")
    y = tensor_arg(mat2, "mm", "mat2", 2)
    a, b = _same_dtype(x, y, "mm")
    if a.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if b.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({_dims(a.shape)} and {_dims(b.shape)})")
    r = matrix_product(a, b)
    if (x._requires_grad or y._requires_grad) and GRAD.enabled:
        res, node = record(MmBackward0, r, (x, y))
        node.self_ = save_input(x) if node.needs(1) else None
        node.mat2 = save_input(y) if node.needs(0) else None
        node.mat2_layout = b.strides
        return _finish(res, out, "mm")
    return _finish(wrap(r), out, "mm")


class MatmulBackward0(Node):
    __slots__ = ("self_", "other")
    _saved_slots = ("self_", "other")
    self_: SavedTensor
    other: SavedTensor

    def backward(self, g: Tensor) -> tuple:
        a = unpack(self, self.self_)
        b = unpack(self, self.other)
        a1, b1 = a._data.ndim == 1, b._data.ndim == 1
        a2 = unsqueeze(a, 0) if a1 else a
        b2 = unsqueeze(b, -1) if b1 else b
        g2 = g
        if a1:
            g2 = unsqueeze(g2, -2 if not b1 else 0)
        if b1:
            g2 = unsqueeze(g2, -1)
        ga = gb = None
        if self.needs(0):
            ga = sum_to_size(matmul(g2, conj(transpose(b2, -1, -2))), a2._data.shape)
            ga = reshape(ga, a._data.shape) if a1 else ga
        if self.needs(1):
            gb = sum_to_size(matmul(conj(transpose(a2, -1, -2)), g2), b2._data.shape)
            gb = reshape(gb, b._data.shape) if b1 else gb
        return ga, gb


@op(variants="function method", namespace=(TENSORLIB, LINALG))
def matmul(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Matrix product with NumPy's rules: 1-D operands are vectors, leading dims broadcast."""
    x = input if type(input) is Tensor else tensor_arg(input, "matmul")
    y = other if type(other) is Tensor else tensor_arg(other, "matmul", "other", 2)
    a, b = x._data, y._data
    if a.ndim == 2 and b.ndim == 2 and a.dtype is b.dtype and a.dtype.kind in "fc" and a.shape[1] == b.shape[0]:
        # The common case, as torch records it: a plain matrix product.
        r = matrix_product(a, b)
        if (x._requires_grad or y._requires_grad) and GRAD.enabled:
            res, node = record(MmBackward0, r, (x, y))
            node.self_ = save_input(x) if node.needs(1) else None
            node.mat2 = save_input(y) if node.needs(0) else None
            node.mat2_layout = b.strides
            return _finish(res, out, "matmul")
        return wrap(r) if out is None else write_out(out, wrap(r), "matmul")
    if a.ndim == 0 or b.ndim == 0:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {a.ndim}D and {b.ndim}D"
        )
    if a.dtype != b.dtype and a.ndim <= 2 and b.ndim <= 2:
        raise _mismatch(x, y)
    if a.dtype.kind == "b":
        kernel = "dot" if a.ndim == b.ndim == 1 else ("addmv_impl_cpu" if b.ndim == 1 or a.ndim == 1 else "addmm_impl_cpu_")
        raise not_implemented(kernel, a.dtype)
    k_a = a.shape[-1]
    k_b = b.shape[-2] if b.ndim > 1 else b.shape[0]
    if k_a != k_b:
        if a.ndim == 1 and b.ndim == 1:
            raise RuntimeError(
                f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src [{b.shape[0]}] to have the same "
                "number of elements, but got {} and {} elements respectively".format(a.shape[0], b.shape[0])
            )
        sa = a.shape if a.ndim > 1 else (1,) + a.shape
        sb = b.shape if b.ndim > 1 else b.shape + (1,)
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({_dims((int(np.prod(sa[:-1])), sa[-1]))} and {_dims(sb[-2:])})"
            if a.ndim <= 2 and b.ndim <= 2
            else f"Expected size for first two dimensions of batch2 tensor to be: [{sb[0]}, {sa[-1]}] but got: "
            f"[{sb[0]}, {sb[-2]}]."
        )
    if a.ndim > 2 or b.ndim > 2:
        if GRAD.enabled and (x._requires_grad or y._requires_grad):
            return _finish(_matmul_nd(x, y), out, "matmul")
        return _finish(wrap(_matmul_nd_arrays(a, b)), out, "matmul")
    recorded = (x._requires_grad or y._requires_grad) and GRAD.enabled
    if recorded and a.ndim == 1 and b.ndim == 2:
        # as torch: the vector as a one-row matrix, the matrix product, the row squeezed away (in place)
        return _finish(_squeeze_row(matmul(unsqueeze(x, 0), y)), out, "matmul")
    r = np.matmul(a, b)
    if type(r) is not np.ndarray:
        r = np.asarray(r)
    if recorded:
        res, node = record(_DotBackward0 if a.ndim == 1 else _MvBackward0, r, (x, y))
        node.self_ = save_input(x)
        node.other = save_input(y)
        return _finish(res, out, "matmul")
    return _finish(wrap(r), out, "matmul")


# the nodes torch records for a product of two vectors, and of a matrix and a vector
_DotBackward0 = named_node_class(MatmulBackward0, "DotBackward0")
_MvBackward0 = named_node_class(MatmulBackward0, "MvBackward0")
# torch's node for squeeze_(0) (in place: the result is no view)
_SqueezeBackward4 = named_node_class(shape_ops.UnsafeViewBackward0, "SqueezeBackward4")


def _squeeze_row(t: Tensor) -> Tensor:
    """The fresh one-row product ``t`` without its row dim, recorded as torch's in-place ``squeeze_(0)``."""
    res, node = record(_SqueezeBackward4, t._data.reshape(t._data.shape[1:]), (t,))
    node.shape = t._data.shape
    return res


def _batch_shape(sa: tuple[int, ...], sb: tuple[int, ...]) -> tuple[int, ...]:
    """The broadcast of two batch shapes; torch's error names the rightmost dim where they differ."""
    nd = max(len(sa), len(sb))
    out = []
    for i in range(nd - 1, -1, -1):
        da = sa[i - nd + len(sa)] if i >= nd - len(sa) else 1
        db = sb[i - nd + len(sb)] if i >= nd - len(sb) else 1
        if da != db and da != 1 and db != 1:
            raise RuntimeError(
                f"The size of tensor a ({da}) must match the size of tensor b ({db}) at non-singleton dimension {i}"
            )
        out.append(db if da == 1 else da)
    return tuple(out[::-1])


def _folds(a: np.ndarray, b: np.ndarray, a_grad: bool, b_grad: bool) -> bool:
    """Whether torch computes this product with one 2-D product, the batch of the operand with more dims folded
    into its rows: when the other has at most two dims and either needs a gradient (its gradient is then one
    product, not a batch of them summed) or the folding costs no copy. A 2-D first operand folds only for its
    gradient (the transposed result would need a copy)."""
    if a.ndim >= b.ndim:
        shape, strides, small, small_grad = a.shape, a.strides, b.ndim, b_grad
    else:  # the transposed problem: b's matrices transposed, times a
        shape = b.shape[:-2] + (b.shape[-1], b.shape[-2])
        strides = b.strides[:-2] + (b.strides[-1], b.strides[-2])
        small, small_grad = a.ndim, a_grad
    if len(shape) < 3 or small > 2:
        return False
    if small_grad:
        return True
    if a.ndim == 2:
        return False
    if 0 in shape:
        return True
    return all(strides[i] == strides[i + 1] * shape[i + 1] for i in range(len(shape) - 2))


def _scalar_type_mismatch(x: Tensor, y: Tensor) -> RuntimeError:
    """torch's error for batched products of different dtypes."""
    return RuntimeError(f"expected scalar type {type_title(x._data.dtype)} but found {type_title(y._data.dtype)}")


def _unsafe_view(t: Tensor, shape: tuple[int, ...]) -> Tensor:
    """The product ``t`` (whose data nothing else holds) in its final shape, recorded as torch's
    ``UnsafeViewBackward0``: a reshape that autograd does not treat as a view."""
    r = t._data.reshape(shape)
    if t._requires_grad and GRAD.enabled:
        res, node = record(shape_ops.UnsafeViewBackward0, r, (t,))
        node.shape = t._data.shape
        return res
    return wrap(r)


def _matmul_nd(x: Tensor, y: Tensor) -> Tensor:
    """A matrix product with an operand of three or more dims, decomposed as torch decomposes it, each step
    recorded as torch records it: the batch folded into the rows of one 2-D product where torch folds (one BLAS
    call, several times faster than NumPy's loop over a broadcast batch), else both operands expanded to the
    common batch, flattened to 3-D and multiplied by one batched product."""
    a, b = x._data, y._data
    if a.ndim == 3 and b.ndim == 3:
        # a batch of one that needs a gradient is squeezed, so that the product folds (as torch does)
        if b.shape[0] == 1 and y._requires_grad:
            y = shape_ops.squeeze(y, 0)
            b = y._data
        elif a.shape[0] == 1 and x._requires_grad:
            x = shape_ops.squeeze(x, 0)
            a = x._data
    na, nb = a.ndim, b.ndim
    folds = _folds(a, b, x._requires_grad, y._requires_grad)
    if a.dtype != b.dtype:  # torch's words come from the kernel the product reaches
        if folds and na > nb == 1:
            raise RuntimeError(f"addmv input tensors must have the same dtype, but got {type_title(b.dtype)}, "
                               f"{type_title(a.dtype)}, and {type_title(b.dtype)}")
        raise _mismatch(x, y) if folds and na > nb else _scalar_type_mismatch(x, y)
    if folds:
        if na >= nb:  # (..., n, k) @ (k, p) or (k,): the batch becomes rows
            rows = reshape(x, (math.prod(a.shape[:-1]), a.shape[-1]))
            if nb == 2:
                return _unsafe_view(mm(rows, y), a.shape[:-1] + (b.shape[1],))
            return _unsafe_view(mv(rows, y), a.shape[:-1])
        # (n, k) or (k,) @ (..., k, p): the transposed product, (..., p, k) @ (k, n)
        rows = reshape(transpose(y, -1, -2), (math.prod(b.shape[:-2]) * b.shape[-1], b.shape[-2]))
        if na == 2:
            flat = _unsafe_view(mm(rows, shape_ops.t(x)), b.shape[:-2] + (b.shape[-1], a.shape[0]))
            return shape_ops.contiguous(transpose(flat, -1, -2))
        return _unsafe_view(mv(rows, x), b.shape[:-2] + (b.shape[-1],))
    n, k = (a.shape[-2] if na > 1 else 1), a.shape[-1]
    p = b.shape[-1] if nb > 1 else 1
    batch = _batch_shape(a.shape[:-2] if na > 1 else (), b.shape[:-2] if nb > 1 else ())
    count = math.prod(batch)
    left = reshape(expand(x, batch + (n, k)), (count, n, k))
    if nb == 1:
        right = unsqueeze(reshape(expand(y, batch + (k,)), (count, k)), 2)
        prod = shape_ops.squeeze(_bmm(left, right), -1)
    else:
        prod = _bmm(left, reshape(expand(y, batch + (k, p)), (count, k, p)))
    return _unsafe_view(prod, batch + ((n,) if na > 1 else ()) + ((p,) if nb > 1 else ()))


def _matmul_nd_arrays(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """:func:`_matmul_nd`'s result when nothing is recorded: the same products (so the same values), without the
    intermediate tensors."""
    if a.dtype != b.dtype:
        _matmul_nd(wrap(a), wrap(b))  # raises torch's error for the path the product takes
    if (a.ndim > 2 and b.ndim > 2) or not _folds(a, b, False, False):
        try:
            r = np.matmul(a, b)  # a product per batch element, as the batched path's
        except ValueError:
            _batch_shape(a.shape[:-2] if a.ndim > 1 else (), b.shape[:-2] if b.ndim > 1 else ())  # torch's error
            raise
        return r if type(r) is np.ndarray else np.asarray(r)
    if a.ndim >= b.ndim:
        rows = a.reshape(math.prod(a.shape[:-1]), a.shape[-1])
        flat = matrix_product(rows, b) if b.ndim == 2 else np.matmul(rows, b)
        return flat.reshape(a.shape[:-1] + b.shape[1:])
    rows = b.swapaxes(-1, -2).reshape(math.prod(b.shape[:-2]) * b.shape[-1], b.shape[-2])
    if a.ndim == 2:
        flat = matrix_product(rows, a.T).reshape(b.shape[:-2] + (b.shape[-1], a.shape[0]))
        return np.ascontiguousarray(flat.swapaxes(-1, -2))
    return np.matmul(rows, a).reshape(b.shape[:-2] + (b.shape[-1],))


class BmmBackward0(Node):
    __slots__ = ("self_", "mat2")
    _saved_slots = ("self_", "mat2")
    self_: SavedTensor | None
    mat2: SavedTensor | None

    def backward(self, g: Tensor) -> tuple:
        ga = gb = None
        gd = g._data
        if not GRAD.enabled and type(g) is Tensor and gd.dtype.kind == "f":
            # nothing to record, real operands: the two batched products on the arrays
            if self.needs(0):
                ga = wrap(np.matmul(gd, unpack(self, self.mat2)._data.swapaxes(1, 2)))
            if self.needs(1):
                gb = wrap(np.matmul(unpack(self, self.self_)._data.swapaxes(1, 2), gd))
            return ga, gb
        if self.needs(0):
            ga = _bmm(g, conj(transpose(unpack(self, self.mat2), 1, 2)))
        if self.needs(1):
            gb = _bmm(conj(transpose(unpack(self, self.self_), 1, 2)), g)
        return ga, gb


def _bmm(x: Tensor, y: Tensor) -> Tensor:
    """The batched product of two 3-D tensors whose shapes and dtypes the caller checked."""
    r = np.matmul(x._data, y._data)
    if type(r) is not np.ndarray:
        r = np.asarray(r)
    if (x._requires_grad or y._requires_grad) and GRAD.enabled:
        res, node = record(BmmBackward0, r, (x, y))
        node.self_ = save_input(x) if node.needs(1) else None
        node.mat2 = save_input(y) if node.needs(0) else None
        return res
    return wrap(r)


@op(variants="function method")
def bmm(input: Tensor, mat2: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Batched matrix product of two 3-D tensors with the same batch size."""
    x = tensor_arg(input, "bmm")
    y = tensor_arg(mat2, "bmm", "mat2", 2)
    a, b = x._data, y._data
    if a.dtype.kind == "b":
        raise not_implemented("bmm", a.dtype)
    if a.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if b.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if a.shape[0] != b.shape[0] or a.shape[2] != b.shape[1]:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{a.shape[0]}, {a.shape[2]}] but got: "
            f"[{b.shape[0]}, {b.shape[1]}]."
        )
    if a.dtype != b.dtype:
        raise _scalar_type_mismatch(x, y)
    return _finish(_bmm(x, y), out, "bmm")


@op(variants="function method")
def mv(input: Tensor, vec: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Matrix-vector product."""
    x = tensor_arg(input, "mv")
    v = tensor_arg(vec, "mv", "vec", 2)
    if x._data.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    if x._data.ndim != 2 or v._data.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {x._data.ndim}, {v._data.ndim}")
    if x._data.shape[1] != v._data.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({x._data.shape[0]}), mat ({_dims(x._data.shape)}), vec ({v._data.shape[0]})")
    return matmul(x, v, out=out)  # (recorded as MvBackward0 there)


@op(variants="function method")
def dot(input: Tensor, tensor: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Inner product of two 1-D tensors."""
    x = tensor_arg(input, "dot")
    y = tensor_arg(tensor, "dot", "tensor", 2)
    if x._data.ndim != 1 or y._data.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {x._data.ndim}D and {y._data.ndim}D tensors")
    if x._data.shape != y._data.shape:
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{x._data.shape[0]}] and src [{y._data.shape[0]}] to have the "
            f"same number of elements, but got {x._data.shape[0]} and {y._data.shape[0]} elements respectively"
        )
    if x._data.dtype != y._data.dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found {x.dtype.name} and {y.dtype.name}")
    return matmul(x, y, out=out)  # (recorded as DotBackward0 there)


@op(variants="function method")
def vdot(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Inner product conjugating the first argument."""
    x = conj(tensor_arg(input, "vdot"))
    return dot(x, other, out=out) if out is not None else rename_grad_fn(dot(x, other), "VdotBackward0")



@op(variants="function method")
def inner(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Sum of products over the last dims."""
    x = tensor_arg(input, "inner")
    y = tensor_arg(other, "inner", "other", 2)
    if x._data.ndim == 0 or y._data.ndim == 0:
        return mul(x, y, out=out)
    return matmul(x, transpose(y, -1, -2) if y._data.ndim > 1 else y, out=out) if y._data.ndim <= 2 else _finish(
        tensordot(x, y, ([-1], [-1])), out, "inner"
    )


@op(variants="function method", aliases=("ger",))
def outer(input: Tensor, vec2: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Outer product of two 1-D tensors."""
    x = tensor_arg(input, "outer")
    y = tensor_arg(vec2, "outer", "vec2", 2)
    if x._data.ndim != 1 or y._data.ndim != 1:
        raise RuntimeError("outer: expected 1-D tensors")
    return mul(unsqueeze(x, 1), unsqueeze(y, 0), out=out)


ger = outer


def _beta_x_plus_alpha_prod(x: Tensor, beta: Any, prod: Tensor, alpha: Any, out: Tensor | None, fname: str) -> Tensor:
    """``beta * x + alpha * prod`` for the add*mm family; ``beta == 0`` ignores ``x`` (even its nan and inf)."""
    if alpha != 1:
        prod = mul(prod, alpha)
    base = x if beta == 1 else (mul(x, beta) if beta != 0 else zeros_like(x))
    if out is not None:
        return add(base, prod, out=out)
    return rename_grad_fn(add(base, prod), node_name(fname))

@op(variants="function method")
def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1, out: Tensor | None = None) -> Tensor:
    """``beta * input + alpha * (mat1 @ mat2)``."""
    x = tensor_arg(input, "addmm")
    prod = mm(mat1, mat2)
    return _beta_x_plus_alpha_prod(x, beta, prod, alpha, out, "addmm")


@op(variants="function method")
def addmv(input: Tensor, mat: Tensor, vec: Tensor, *, beta: Any = 1, alpha: Any = 1, out: Tensor | None = None) -> Tensor:
    """``beta * input + alpha * (mat @ vec)``."""
    x = tensor_arg(input, "addmv")
    m, v = tensor_arg(mat, "addmv", "mat", 2), tensor_arg(vec, "addmv", "vec", 3)
    if m._data.ndim != 2 or v._data.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {x._data.ndim}, {m._data.ndim}, {v._data.ndim}")
    prod = mv(m, v)
    return _beta_x_plus_alpha_prod(x, beta, prod, alpha, out, "addmv")


@op(variants="function method")
def baddbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1, out: Tensor | None = None) -> Tensor:
    """``beta * input + alpha * (batch1 @ batch2)``."""
    x = tensor_arg(input, "baddbmm")
    if tensor_arg(batch1, "baddbmm", "batch1", 2).dim() == 0:  # torch reads its batch size first
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    prod = bmm(batch1, batch2)
    return _beta_x_plus_alpha_prod(x, beta, prod, alpha, out, "baddbmm")


@op(variants="method")
def addmm_(self: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """In-place :func:`addmm`."""
    return inplace_apply(self, addmm, (mat1, mat2), {"beta": beta, "alpha": alpha}, "addmm_")


@op(variants="function method")
def addmv_(self: Tensor, mat: Tensor, vec: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """In-place :func:`addmv`."""
    return inplace_apply(self, addmv, (mat, vec), {"beta": beta, "alpha": alpha}, "addmv_")


@op(variants="method")
def baddbmm_(self: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """In-place :func:`baddbmm`."""
    return inplace_apply(self, baddbmm, (batch1, batch2), {"beta": beta, "alpha": alpha}, "baddbmm_")


def _tensordot_dims(dims: Any, ndim_a: int, ndim_b: int) -> tuple[list[int], list[int]]:
    """The contracted dims of each operand, from an int, a pair of int lists, or a tensor holding either."""
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, int) and not isinstance(dims, bool):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(ndim_a, ndim_b):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        return list(range(ndim_a - dims, ndim_a)), list(range(dims))
    if not isinstance(dims, (list, tuple)):
        raise RuntimeError("tensordot expects dims to be int or tuple[list[int], list[int]] or list[list[int]] "
                           f"containing two lists, but got dims={dims}")
    if len(dims) != 2:
        raise ValueError(f"tensordot expects dims to hold two lists of dims, got {len(dims)} entries")
    pair = []
    for name, part in zip(("dims_self", "dims_other"), dims):
        if not isinstance(part, (list, tuple)):
            raise TypeError(f"tensordot(): argument '{name}' must be tuple of ints, not {type(part).__name__}")
        for i, d in enumerate(part):
            if not isinstance(d, int) or isinstance(d, bool):
                raise TypeError(f"tensordot(): argument '{name}' must be tuple of ints, but found element of type "
                                f"{type(d).__name__} at pos {i}")
        pair.append(list(part))
    return pair[0], pair[1]


@op()
def tensordot(a: Tensor, b: Tensor, dims: Any = 2, out: Tensor | None = None) -> Tensor:
    """Contract ``dims`` of ``a`` with ``dims`` of ``b`` (the last/first ``dims`` if an int)."""
    x = tensor_arg(a, "tensordot", "a")
    y = tensor_arg(b, "tensordot", "b", 2)
    da, db = _tensordot_dims(dims, x._data.ndim, y._data.ndim)
    da = [wrap_dim(d, x._data.ndim) for d in da]
    db = [wrap_dim(d, y._data.ndim) for d in db]
    if len(da) != len(db):
        raise RuntimeError("both dimension lists should have same length")
    for i, j in zip(da, db):
        if x._data.shape[i] != y._data.shape[j]:
            raise RuntimeError(
                f"contracted dimensions need to match, but first has size {x._data.shape[i]} in dim {i} and second "
                f"has size {y._data.shape[j]} in dim {j}"
            )
    free_a = [d for d in range(x._data.ndim) if d not in da]
    free_b = [d for d in range(y._data.ndim) if d not in db]
    k = int(np.prod([x._data.shape[d] for d in da])) if da else 1
    xa = reshape(permute(x, free_a + da), (-1, k))
    yb = reshape(permute(y, db + free_b), (k, -1))
    shape = [x._data.shape[d] for d in free_a] + [y._data.shape[d] for d in free_b]
    return _finish(reshape(mm(xa, yb), shape), out, "tensordot")


@op()
def einsum(equation: str, *operands: Any) -> Tensor:
    """Einstein summation, built from permutes, reshapes and batched matrix products.

    Supports any equation whose operands have no repeated index within one
    operand; gradients flow through the composed ops.
    """
    if not isinstance(equation, str):
        raise TypeError(f"einsum(): argument 'equation' (position 1) must be str, not {type(equation).__name__}")
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    ops = [tensor_arg(o, "einsum", "operands", i + 2) for i, o in enumerate(operands)]
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(ops):
        raise RuntimeError(
            "einsum(): more operands were provided than specified in the equation" if len(ops) > len(terms)
            else "einsum(): fewer operands were provided than specified in the equation"
        )
    terms, rhs = _expand_ellipsis(terms, rhs if arrow else None, ops)
    for i, (term, o) in enumerate(zip(terms, ops)):
        if len(term) != o._data.ndim:
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({len(term)}) does not match the number of "
                f"dimensions ({o._data.ndim}) for operand {i} and no ellipsis was given"
            )
        # a subscript repeated within one operand takes that operand's diagonal
        while len(set(term)) != len(term):
            c = next(ch for ch in term if term.count(ch) > 1)
            p = term.index(c)
            q = term.index(c, p + 1)
            o = shape_ops.diagonal(o, 0, p, q)
            term = "".join(ch for k, ch in enumerate(term) if k not in (p, q)) + c
        terms[i], ops[i] = term, o
    sizes: dict[str, int] = {}
    for term, o in zip(terms, ops):
        for c, n in zip(term, o._data.shape):
            if c in sizes and sizes[c] != n and n != 1 and sizes[c] != 1:
                raise RuntimeError(
                    f"einsum(): operands do not broadcast with remapped shapes (original->remapped): subscript {c} "
                    f"has size {sizes[c]} and {n}"
                )
            if sizes.get(c, 1) == 1:  # a size-1 subscript broadcasts to the other operand's size, zero included
                sizes[c] = n
    cur, cur_term = ops[0], terms[0]
    for k, (o, term) in enumerate(zip(ops[1:], terms[1:]), 2):
        later = set(rhs) | set("".join(terms[k:]))
        cur, cur_term = _contract_pair(cur, cur_term, o, term, later, sizes)
    # sum indices not in the output, then order as rhs
    drop = [i for i, c in enumerate(cur_term) if c not in rhs]
    if drop:
        cur = broadcast.sum(cur, drop)
        cur_term = "".join(c for c in cur_term if c in rhs)
    if cur_term != rhs:
        cur = permute(cur, [cur_term.index(c) for c in rhs])
    return cur


def _expand_ellipsis(terms: list, rhs: str | None, ops: list) -> tuple[list, str]:
    """Replace ``...`` by letters of their own (right-aligned across operands) and fill in an implicit output."""
    used = set("".join(terms) + (rhs or ""))
    free = [c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz" if c not in used]
    widest = 0
    out_terms: list[tuple[str, int]] = []
    for term, o in zip(terms, ops):
        if "..." in term:
            n = o._data.ndim - (len(term) - 3)
            if n < 0:
                raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(term) - 3}) is more than the number of dimensions ({o._data.ndim}) for operand {len(out_terms)}")
            widest = max(widest, n)
            out_terms.append((term, n))
        else:
            out_terms.append((term, 0))
    letters = "".join(free[:widest])
    terms = [t.replace("...", letters[widest - n :]) if "..." in t else t for t, n in out_terms]
    if rhs is None:
        counts: dict = {}
        for c in "".join(terms):
            counts[c] = counts.get(c, 0) + 1
        rhs = letters + "".join(sorted(c for c, k in counts.items() if k == 1 and c not in letters))
    else:
        rhs = rhs.replace("...", letters)
    return terms, rhs


def _contract_pair(a: Tensor, ta: str, b: Tensor, tb: str, keep: set, sizes: dict) -> tuple[Tensor, str]:
    batch = [c for c in ta if c in tb and c in keep]
    contract = [c for c in ta if c in tb and c not in keep]
    only_a = [c for c in ta if c not in tb]
    only_b = [c for c in tb if c not in ta]
    # sum away indices used by nobody else first
    sa = [i for i, c in enumerate(ta) if c in only_a and c not in keep]
    if sa:
        a = broadcast.sum(a, sa)
        ta = "".join(c for c in ta if not (c in only_a and c not in keep))
        only_a = [c for c in only_a if c in keep]
    sb = [i for i, c in enumerate(tb) if c in only_b and c not in keep]
    if sb:
        b = broadcast.sum(b, sb)
        tb = "".join(c for c in tb if not (c in only_b and c not in keep))
        only_b = [c for c in only_b if c in keep]
    a = permute(a, [ta.index(c) for c in batch + only_a + contract])
    b = permute(b, [tb.index(c) for c in batch + contract + only_b])
    nb = [sizes[c] for c in batch]
    na = int(np.prod([a._data.shape[len(batch) + i] for i in range(len(only_a))])) if only_a else 1
    nk = int(np.prod([sizes[c] for c in contract])) if contract else 1
    nbb = int(np.prod([b._data.shape[len(batch) + len(contract) + i] for i in range(len(only_b))])) if only_b else 1
    a = reshape(expand(a, nb + list(a._data.shape[len(batch):])) if batch else a, nb + [na, nk])
    b = reshape(expand(b, nb + list(b._data.shape[len(batch):])) if batch else b, nb + [nk, nbb])
    r = matmul(a, b)
    out_shape = nb + [sizes[c] for c in only_a] + [sizes[c] for c in only_b]
    return reshape(r, out_shape), "".join(batch + only_a + only_b)


def _masked(x: Tensor, mask: np.ndarray, node: str) -> Tensor:
    if x._data.dtype.kind == "b":
        return wrap(x._data & mask)
    return rename_grad_fn(mul(x, wrap(mask)), node)


@op(variants="function method")
def tril(input: Tensor, diagonal: int = 0, *, out: Tensor | None = None) -> Tensor:
    """The lower triangle of the last two dims (the rest zeroed)."""
    x = tensor_arg(input, "tril")
    if x._data.ndim < 2:
        raise RuntimeError("tril: input tensor must have at least 2 dimensions")
    rows, cols = x._data.shape[-2:]
    k = max(min(int_arg(diagonal, "tril", "diagonal", 2), cols), -rows)  # NumPy takes only C longs
    mask = np.tril(np.ones((rows, cols), dtype=bool), k)
    return _finish(_masked(x, mask, "TrilBackward0"), out, "tril")


@op(variants="function method")
def triu(input: Tensor, diagonal: int = 0, *, out: Tensor | None = None) -> Tensor:
    """The upper triangle of the last two dims (the rest zeroed)."""
    x = tensor_arg(input, "triu")
    if x._data.ndim < 2:
        raise RuntimeError("triu: input tensor must have at least 2 dimensions")
    rows, cols = x._data.shape[-2:]
    k = max(min(int_arg(diagonal, "triu", "diagonal", 2), cols), -rows)  # NumPy takes only C longs
    mask = np.triu(np.ones((rows, cols), dtype=bool), k)
    return _finish(_masked(x, mask, "TriuBackward0"), out, "triu")


@op(variants="method")
def tril_(self: Tensor, diagonal: int = 0) -> Tensor:
    """In-place :func:`tril`."""
    return inplace_apply(self, tril, (diagonal,), {}, "tril_")


@op(variants="method")
def triu_(self: Tensor, diagonal: int = 0) -> Tensor:
    """In-place :func:`triu`."""
    return inplace_apply(self, triu, (diagonal,), {}, "triu_")


@op(variants="function method")
def trace(input: Tensor) -> Tensor:
    """Sum of the main diagonal of a 2-D tensor."""
    x = tensor_arg(input, "trace")
    if x._data.dtype.kind == "b":
        raise not_implemented("trace", x._data.dtype)
    if x._data.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {x._data.ndim}")
    return rename_grad_fn(broadcast.sum(shape_ops.diagonal(x)), "TraceBackward0")


# -- norms -------------------------------------------------------------------------------------


class LinalgVectorNormBackward0(Node):
    __slots__ = ("self_", "result", "ord", "dims", "keepdim")
    _saved_slots = ("self_", "result")
    self_: SavedTensor
    result: SavedTensor
    ord: float
    dims: tuple[int, ...]
    keepdim: bool

    def backward(self, g: Tensor) -> tuple:
        x = unpack(self, self.self_)
        y = unpack(self, self.result)
        shape = x._data.shape
        dims, keep = self.dims, self.keepdim
        gx = _expand_back(g, dims, shape, keep)
        yx = _expand_back(y, dims, shape, keep)
        p = self.ord
        if p == 0:
            return (zeros_like(x),)
        if p == 1:
            return (mul(gx, sgn(x)),)
        if p in (float("inf"), float("-inf")):
            ax = unary.abs(x)
            mask = to_dtype(comparison.eq(ax, yx), x.dtype)
            count = _expand_back(broadcast.sum(mask, dims, keepdim=keep), dims, shape, keep)
            return (div(mul(mul(gx, sgn(x)), mask), count),)
        safe = where(comparison.eq(yx, 0), 1.0, yx)
        if p == 2:
            d = div(x if x._data.dtype.kind != "c" else x, safe)
            return (where(comparison.eq(yx, 0), 0.0, mul(gx, d)),)
        d = div(mul(x, power.pow(unary.abs(x), p - 2)), power.pow(safe, p - 1))
        return (where(comparison.eq(yx, 0), 0.0, mul(gx, d)),)


@op(namespace=LINALG)
def vector_norm(x: Tensor, ord: Any = 2, dim: Any = None, keepdim: bool = False, *, dtype: Any = None, out: Tensor | None = None) -> Tensor:  # noqa: A002
    """The ``ord``-norm of ``x`` over ``dim`` (all elements by default)."""
    t = tensor_arg(x, "vector_norm", "x")
    if isinstance(ord, Tensor) and ord._data.ndim == 0:
        ord = ord.item()  # noqa: A001
    if isinstance(ord, bool) or not isinstance(ord, (int, float, np.number)):
        raise TypeError(f"linalg_vector_norm(): argument 'ord' (position 2) must be Number, not {type(ord).__name__}")
    if dtype is not None:
        t = to_dtype(t, dtype)
    a = t._data
    if a.dtype.kind not in "fc":
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got {type_title(a.dtype)}")
    dims = tuple(range(a.ndim)) if dim is None else normalize_dims(dim, a.ndim)
    if not a.size and ord in (float("inf"), float("-inf")):  # max and min have no identity
        name = "inf" if ord > 0 else "-inf"
        if dim is None:
            raise RuntimeError(f"linalg.vector_norm cannot compute the {name} norm on an empty tensor because the "
                               "operation does not have an identity")
        for d in dims:
            if a.shape[d] == 0:
                raise RuntimeError(f"linalg.vector_norm cannot compute the {name} norm on the dimension {d}because "
                                   "this dimension is empty and the operation does not have an identity")
    ab = np.abs(a)
    if ord == float("inf"):
        # NumPy 2.5's stubs have no overload for this call (2.4's do); the ignore holds for both
        r = np.max(ab, axis=dims, keepdims=keepdim) if a.size else np.zeros(())  # type: ignore[call-overload, unused-ignore]
    elif ord == float("-inf"):
        r = np.min(ab, axis=dims, keepdims=keepdim)  # type: ignore[call-overload, unused-ignore]
    elif ord == 0:
        r = np.sum(ab != 0, axis=dims, keepdims=keepdim).astype(ab.dtype)  # type: ignore[call-overload, unused-ignore]
    elif ord == 1:
        r = np.sum(ab, axis=dims, keepdims=keepdim)  # type: ignore[call-overload, unused-ignore]
    elif ord == 2:
        r = np.sqrt(np.sum(ab * ab, axis=dims, keepdims=keepdim))  # type: ignore[call-overload, unused-ignore]
    else:
        r = np.sum(ab**ord, axis=dims, keepdims=keepdim) ** (1.0 / ord)  # type: ignore[call-overload, unused-ignore]
    r = np.asarray(r).astype(ab.dtype, copy=False)
    if t._requires_grad and GRAD.enabled:
        res, node = record(LinalgVectorNormBackward0, r, (t,))
        node.self_ = save_input(t)
        node.result = SavedTensor(res, True)
        node.ord, node.dims, node.keepdim = ord, dims, keepdim
        return _finish(res, out, "vector_norm")
    return _finish(wrap(r), out, "vector_norm")


# -- inverses and decompositions (NumPy LAPACK) --------------------------------------------------


class LinalgInvExBackward0(Node):
    __slots__ = ("result",)
    _saved_slots = ("result",)
    result: SavedTensor

    def backward(self, g: Tensor) -> tuple:
        inv_ = unpack(self, self.result)
        it = conj(transpose(inv_, -1, -2))
        return (neg(matmul(matmul(it, g), it)),)


def _square(x: Tensor, fname: str) -> np.ndarray:
    a = x._data
    if a.ndim < 2:
        raise RuntimeError(f"{fname}: The input tensor A must have at least 2 dimensions.")
    if a.dtype.kind not in "fc":
        raise RuntimeError(f"{fname}: Expected a floating point or complex tensor as input. Got {type_title(a.dtype)}")
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"{fname}: A must be batches of square matrices, but they are {a.shape[-2]} by {a.shape[-1]} matrices")
    return a


def inv_with_info(x: Tensor, fname: str, check: bool) -> tuple[Tensor, np.ndarray]:
    """The inverse and LAPACK's info; a singular matrix raises ``LinAlgError`` with ``check``, else gives inf/nan."""
    a = _square(x, fname)
    from . import _lapack  # LAPACK's drivers load with the first inverse (import cost)

    r, info = _lapack.inverse(a, fname, check)
    if x._requires_grad and GRAD.enabled:
        res, node = record(LinalgInvExBackward0, r, (x,))
        node.result = SavedTensor(res, True)
        return res, info
    return wrap(r), info


@op(namespace=LINALG)
def inv(A: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Inverse of square matrices (batched); ``LinAlgError`` for a singular one."""
    x = tensor_arg(A, "inv", "A")
    return _finish(inv_with_info(x, "linalg.inv", True)[0], out, "inv")


class LinalgDetBackward0(Node):
    __slots__ = ("self_", "result")
    _saved_slots = ("self_", "result")
    self_: SavedTensor
    result: SavedTensor

    def backward(self, g: Tensor) -> tuple:
        a = unpack(self, self.self_)
        d = unpack(self, self.result)
        # d det / dA = det * A^-T (A invertible)
        inv_t = conj(transpose(inv(a), -1, -2))
        return (mul(unsqueeze(unsqueeze(mul(g, conj(d)), -1), -1), inv_t),)


@op(variants="function method", namespace=(TENSORLIB, LINALG))
def det(A: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Determinant of square matrices (batched)."""
    x = tensor_arg(A, "det", "A")
    a = _square(x, "linalg.det")
    r = np.asarray(np.linalg.det(a)).astype(a.dtype, copy=False)
    if x._requires_grad and GRAD.enabled:
        res, node = record(LinalgDetBackward0, r, (x,))
        node.self_ = save_input(x)
        node.result = SavedTensor(res, True)
        return _finish(res, out, "det")
    return _finish(wrap(r), out, "det")


@op(variants="function method")
def cross(input: Tensor, other: Tensor, dim: int | None = None, *, out: Tensor | None = None) -> Tensor:
    """Cross product of 3-vectors along ``dim`` (the first dim of size 3 by default)."""
    x = tensor_arg(input, "cross")
    y = tensor_arg(other, "cross", "other", 2)
    if x._data.dtype.kind == "b":
        raise not_implemented("cross", x._data.dtype)
    if x._data.dtype != y._data.dtype:
        raise RuntimeError(f"expected scalar type {type_title(x._data.dtype)} but found {type_title(y._data.dtype)}")
    if dim is None:
        dim = next((i for i, s in enumerate(x._data.shape) if s == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    if x._data.ndim != y._data.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    if x._data.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = wrap_dim(dim, x._data.ndim)
    if x._data.shape[d] != 3 or y._data.shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {d} must have length 3. Got {x._data.shape[d]} and {y._data.shape[d]}")

    def comp(t: Tensor, i: int) -> Tensor:
        return select(t, d, i)

    c0 = sub(mul(comp(x, 1), comp(y, 2)), mul(comp(x, 2), comp(y, 1)))
    c1 = sub(mul(comp(x, 2), comp(y, 0)), mul(comp(x, 0), comp(y, 2)))
    c2 = sub(mul(comp(x, 0), comp(y, 1)), mul(comp(x, 1), comp(y, 0)))
    return _finish(rename_grad_fn(stack([c0, c1, c2], d), "LinalgCrossBackward0"), out, "cross")


@op()
def cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode: str = "use_mm_for_euclid_dist_if_necessary") -> Tensor:
    """Pairwise ``p``-norm distances between the rows of ``x1`` and ``x2`` (batched).

    Euclidean distances between more than 25 rows (or always, with ``compute_mode='use_mm_for_euclid_dist'``) come
    from one matrix product, ``sqrt(|a|^2 + |b|^2 - 2 a.b)``, as torch computes them: fast, and as torch's, inexact
    by cancellation for points much closer together than their norms (``'donot_use_mm_for_euclid_dist'`` subtracts).
    """
    if compute_mode not in _CDIST_MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    a = tensor_arg(x1, "cdist", "x1")
    no_half("cdist", a)
    b = tensor_arg(x2, "cdist", "x2", 2)
    for name, t in (("X1", a), ("X2", b)):
        if t._data.dtype.kind != "f":
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: {type_title(t._data.dtype)}")
    if a._data.dtype != b._data.dtype:
        raise RuntimeError(f"expected scalar type {type_title(a._data.dtype)} but found {type_title(b._data.dtype)}")
    for name, t in (("X1", a), ("X2", b)):
        if t._data.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: {t._data.ndim}D")
    if a._data.shape[-1] != b._data.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {a._data.shape[-1]} X2: {b._data.shape[-1]}")
    r1, r2, m = a._data.shape[-2], b._data.shape[-2], a._data.shape[-1]
    if p == 2 and m and (compute_mode == "use_mm_for_euclid_dist" or (
            compute_mode == "use_mm_for_euclid_dist_if_necessary" and (r1 > 25 or r2 > 25))):
        batch = np.broadcast_shapes(a._data.shape[:-2], b._data.shape[:-2])
        if a._data.ndim == 2 and b._data.ndim == 2:
            return reshape(_euclidean_dist(a, b), (r1, r2))  # (torch views its result: ViewBackward0)
        n = int(np.prod(batch))
        ea = reshape(expand(a, batch + (r1, m)), (n, r1, m))
        eb = reshape(expand(b, batch + (r2, m)), (n, r2, m))
        return reshape(_euclidean_dist(ea, eb), batch + (r1, r2))
    diff = sub(unsqueeze(a, -2), unsqueeze(b, -3))
    return rename_grad_fn(vector_norm(diff, p, -1), "CdistBackward0")


_CDIST_MODES = ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist")


class EuclideanDistBackward0(Node):
    __slots__ = ("x1", "x2", "result")
    _saved_slots = ("x1", "x2", "result")
    x1: SavedTensor | None
    x2: SavedTensor | None
    result: SavedTensor | None

    def apply(self, grads: list) -> tuple:
        g = grads[0]
        if g is None:
            return None, None
        x1, x2, res = unpack(self, self.x1), unpack(self, self.x2), unpack(self, self.result)
        # d|a_i - b_j| / d a_i = (a_i - b_j) / d_ij: with r = g / d, a * rowsum(r) - r @ b (and the same for b)
        if not GRAD.enabled and type(g) is Tensor:
            r = g._data / res._data
            ga = gb = None
            if self.needs(0):
                ga = wrap(x1._data * r.sum(-1, keepdims=True) - np.matmul(r, x2._data))
            if self.needs(1):
                gb = wrap(x2._data * r.sum(-2)[..., None] - np.matmul(np.swapaxes(r, -1, -2), x1._data))
            return ga, gb
        r = div(g, res)
        ga = sub(mul(x1, broadcast.sum(r, -1, True)), matmul(r, x2)) if self.needs(0) else None
        gb = (sub(mul(x2, unsqueeze(broadcast.sum(r, -2), -1)), matmul(transpose(r, -1, -2), x1))
              if self.needs(1) else None)
        return ga, gb


def _euclidean_dist(a: Tensor, b: Tensor) -> Tensor:
    """Distances between the rows of ``a`` and ``b`` (same batch) by one matrix product, as torch's
    ``_euclidean_dist``: ``[-2a, |a|^2, 1] @ [b, 1, |b|^2]^T``, floored at 1e-30 before the square root."""
    A, B = a._data, b._data
    ones_a = np.ones(A.shape[:-1] + (1,), A.dtype)
    ones_b = np.ones(B.shape[:-1] + (1,), B.dtype)
    left = np.concatenate([A * -2, np.square(A).sum(-1, keepdims=True), ones_a], -1)
    right = np.concatenate([B, ones_b, np.square(B).sum(-1, keepdims=True)], -1)
    r = np.matmul(left, np.swapaxes(right, -1, -2))
    np.maximum(r, 1e-30, out=r)
    np.sqrt(r, out=r)
    if GRAD.enabled and (a._requires_grad or b._requires_grad):
        res, node = record(EuclideanDistBackward0, r, (a, b))
        node.x1, node.x2, node.result = save_input(a), save_input(b), SavedTensor(res, True)
        return res
    return wrap(r)


# -- products composed from the ones above --------------------------------------------------------


@op(variants="function method")
def kron(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The Kronecker product: every element of ``input`` times the whole of ``other``."""
    x = tensor_arg(input, "kron")
    y = tensor_arg(other, "kron", "other", 2)
    n = max(x._data.ndim, y._data.ndim)
    xs = (1,) * (n - x._data.ndim) + x._data.shape
    ys = (1,) * (n - y._data.ndim) + y._data.shape
    # interleave: x as (a0, 1, a1, 1, ...) times y as (1, b0, 1, b1, ...)
    xi = reshape(x, tuple(v for s in xs for v in (s, 1)))
    yi = reshape(y, tuple(v for s in ys for v in (1, s)))
    return _finish(reshape(mul(xi, yi), tuple(a * b for a, b in zip(xs, ys))), out, "kron")


@op(variants="function method")
def addr(input: Tensor, vec1: Tensor, vec2: Tensor, *, beta: Any = 1, alpha: Any = 1, out: Tensor | None = None) -> Tensor:
    """``beta * input + alpha * outer(vec1, vec2)``."""
    x = tensor_arg(input, "addr")
    prod = outer(vec1, vec2)
    return _beta_x_plus_alpha_prod(x, beta, prod, alpha, out, "addr")


@op(variants="function method")
def addbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1, out: Tensor | None = None) -> Tensor:
    """``beta * input + alpha * sum_b batch1[b] @ batch2[b]``."""
    x = tensor_arg(input, "addbmm")
    if tensor_arg(batch1, "addbmm", "batch1", 2).dim() == 0:  # torch reads its batch size first
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    products = bmm(batch1, batch2)
    # the batch sum keeps the operands' dtype (a plain sum would widen small integers to int64)
    prod = broadcast.sum(products, 0, dtype=products.dtype)
    return _beta_x_plus_alpha_prod(x, beta, prod, alpha, out, "addbmm")


@op(variants="method")
def addr_(self: Tensor, vec1: Tensor, vec2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """In-place :func:`addr`."""
    return inplace_apply(self, addr, (vec1, vec2), {"beta": beta, "alpha": alpha}, "addr_")


@op(variants="method")
def addbmm_(self: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """In-place :func:`addbmm`."""
    return inplace_apply(self, addbmm, (batch1, batch2), {"beta": beta, "alpha": alpha}, "addbmm_")


@op(variants="function method")
def matrix_power(input: Tensor, n: int, *, out: Tensor | None = None) -> Tensor:
    """``input`` matrix-multiplied by itself ``n`` times (the identity for 0, powers of the inverse below 0)."""
    return _finish(_matrix_power(tensor_arg(input, "matrix_power"), n), out, "matrix_power")


@op(namespace=LINALG, name="matrix_power")
def linalg_matrix_power(A: Tensor, n: int, *, out: Tensor | None = None) -> Tensor:
    """``A`` matrix-multiplied by itself ``n`` times (the identity for 0, powers of the inverse below 0)."""
    return _finish(_matrix_power(tensor_arg(A, "linalg_matrix_power", "A"), n), out, "linalg.matrix_power")


def _matrix_power(x: Tensor, n: int) -> Tensor:
    a = x._data
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise RuntimeError(
            f"linalg.matrix_power: A must be batches of square matrices, but they are {a.shape[-2] if a.ndim > 1 else 1}"
            f" by {a.shape[-1] if a.ndim else 1} matrices"
        )
    if not isinstance(n, int) or isinstance(n, bool):
        raise TypeError(f"matrix_power(): argument 'n' (position 2) must be int, not {type(n).__name__}")
    if n == 0:  # the identity, still attached to the graph (with a zero gradient) as in torch
        return add(mul(x, 0), wrap(np.eye(a.shape[-1], dtype=a.dtype)))
    base = inv(x) if n < 0 else x
    result = None
    # square-and-multiply
    k = abs(n)
    while k:
        if k & 1:
            result = base if result is None else matmul(result, base)
        k >>= 1
        if k:
            base = matmul(base, base)
    assert result is not None  # n != 0: at least one factor was taken
    return result if result is not x else clone(x)


@op(variants="function method")
def logdet(input: Tensor) -> Tensor:
    """``log(det(input))`` (nan for a negative determinant, -inf for a singular matrix)."""
    return log(det(tensor_arg(input, "logdet")))


@op(variants="function method")
def inverse(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The inverse of square matrices (batched); ``linalg.inv`` by torch's older name."""
    return inv(tensor_arg(input, "inverse"), out=out)


@op(variants="function method")
def dist(input: Tensor, other: Tensor, p: float = 2) -> Tensor:
    """The ``p``-norm of ``input - other``."""
    x = tensor_arg(input, "dist")
    y = tensor_arg(other, "dist", "other", 2)

    return rename_grad_fn(vector_norm(sub(x, y), p), "DistBackward0")
