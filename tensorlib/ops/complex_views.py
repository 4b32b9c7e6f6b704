"""Complex numbers as pairs of reals: ``view_as_real``/``view_as_complex`` (views sharing memory), ``complex``,
``polar``, ``conj_physical``, ``isreal``, and the conjugate/negative-bit queries.

tensorlib has no lazy conjugation or negation: :func:`~tensorlib.conj` and :func:`~tensorlib.neg` compute their
values at once, so no tensor carries torch's conjugate or negative bit. ``is_conj``/``is_neg`` are therefore
False and ``resolve_conj``/``resolve_neg`` return their input itself, which is what torch does for tensors without
the bit; and ``view_as_real`` accepts every complex tensor.
"""

from __future__ import annotations

import numpy as np

from .._autograd.graph import Node, SavedTensor, save_input, unpack
from .._dtype import FROM_NP
from .._registry import op
from .._tensor import Tensor
from ._pointwise import _finish, _meta, inplace_apply, reduce_to
from ._util import GRAD, Meta, broadcast_error, check_out_dtype, record, tensor_arg, type_title, wrap
from .arithmetic import add, mul, sub
from .conversion import conj, real
from .shape import _view_result
from .unary import cos, imag, sin

# -- views between complex numbers and pairs of reals -----------------------------------------------------


class ViewAsRealBackward0(Node):
    __slots__ = ()

    def backward(self, g: Tensor) -> tuple:
        return (view_as_complex(g if g._data.flags.c_contiguous else g.contiguous()),)


class ViewAsComplexBackward0(Node):
    __slots__ = ()

    def backward(self, g: Tensor) -> tuple:
        return (view_as_real(g),)


@op()
def view_as_real(input: Tensor) -> Tensor:
    """A real view of a complex tensor: a last dim of size 2 holds each number's real and imaginary parts."""
    x = tensor_arg(input, "view_as_real")
    a = x._data
    if a.dtype.kind != "c":
        raise RuntimeError("view_as_real is only supported for complex tensors")
    rdt = np.float32 if a.dtype == np.complex64 else np.float64
    # a new last axis of one number, each number then read as two reals: a view of the same memory
    data = a[..., np.newaxis].view(rdt)
    return _view_result(x, data, ViewAsRealBackward0)[0]


@op()
def view_as_complex(input: Tensor) -> Tensor:
    """A complex view of a real tensor whose last dim (of size 2, stride 1) holds real and imaginary parts."""
    x = tensor_arg(input, "view_as_complex")
    a = x._data
    if a.dtype not in (np.float32, np.float64):
        raise RuntimeError(
            "view_as_complex is only supported for half, float and double tensors, but got a tensor of scalar type: "
            + type_title(a.dtype)
        )
    if a.ndim == 0:
        raise RuntimeError("Input tensor must have one or more dimensions")
    if a.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    strides = x.stride()
    assert isinstance(strides, tuple)
    if strides[-1] != 1:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if any(s % 2 for s in strides[:-1]):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    if x.storage_offset() % 2:
        raise RuntimeError("Tensor must have a storage_offset divisible by 2")
    cdt = np.complex64 if a.dtype == np.float32 else np.complex128
    if a.size:
        data = a.view(cdt)[..., 0]
    else:
        data = np.empty(a.shape[:-1], dtype=cdt)
    return _view_result(x, data, ViewAsComplexBackward0)[0]


# -- building complex numbers --------------------------------------------------------------------------------


def _float_pair(a: Tensor, b: Tensor) -> None:
    """torch's checks of ``complex`` and ``polar``: both float32 or both float64."""
    da, db = a._data.dtype, b._data.dtype
    ok = (np.float32, np.float64)
    if da not in ok or db not in ok:
        raise RuntimeError(
            f"Expected both inputs to be Half, Float or Double tensors but got {type_title(da)} and {type_title(db)}"
        )
    if da != db:
        raise RuntimeError(
            f"Expected object of scalar type {type_title(da)} but got scalar type {type_title(db)} for second argument"
        )


def _complex_out(result: Tensor, out: Tensor | None, fname: str) -> Tensor:
    if out is not None and isinstance(out, Tensor) and out._data.dtype != result._data.dtype:
        raise RuntimeError(
            f"Expected object of scalar type {type_title(result._data.dtype)} but got scalar type "
            f"{type_title(out._data.dtype)} for argument 'out'"
        )
    return _finish(result, out, fname)


class ComplexBackward0(Node):
    __slots__ = ("metas",)
    metas: tuple[Meta, Meta]

    def backward(self, g: Tensor) -> tuple:
        gr = reduce_to(real(g), self.metas[0]) if self.needs(0) else None
        gi = reduce_to(imag(g) if g._data.dtype.kind == "c" else mul(g, 0.0), self.metas[1]) if self.needs(1) else None
        return gr, gi


@op()
def complex(real: Tensor, imag: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The complex tensor ``real + i imag`` (broadcast), from two float32 or two float64 tensors."""
    re = tensor_arg(real, "complex", "real", 1)
    im = tensor_arg(imag, "complex", "imag", 2)
    _float_pair(re, im)
    try:
        shape = np.broadcast_shapes(re._data.shape, im._data.shape)
    except ValueError:
        raise broadcast_error(re._data, im._data) from None
    cdt = np.complex64 if re._data.dtype == np.float32 else np.complex128
    r = np.empty(shape, dtype=cdt)
    r.real = re._data
    r.imag = im._data
    if GRAD.enabled and (re._requires_grad or im._requires_grad):
        res, node = record(ComplexBackward0, r, (re, im))
        node.metas = (_meta(re), _meta(im))
        return _complex_out(res, out, "complex")
    return _complex_out(wrap(r), out, "complex")


class PolarBackward0(Node):
    __slots__ = ("abs_", "angle", "metas")
    _saved_slots = ("abs_", "angle")
    abs_: SavedTensor
    angle: SavedTensor
    metas: tuple[Meta, Meta]

    def backward(self, g: Tensor) -> tuple:
        # result = abs e^{i angle}: for real inputs the gradient is Re(conj(d result / d input) g)
        r, t = unpack(self, self.abs_), unpack(self, self.angle)
        c, s = cos(t), sin(t)
        gr, gi = real(g), imag(g)
        g_abs = reduce_to(add(mul(gr, c), mul(gi, s)), self.metas[0]) if self.needs(0) else None
        g_angle = reduce_to(mul(r, sub(mul(gi, c), mul(gr, s))), self.metas[1]) if self.needs(1) else None
        return g_abs, g_angle


@op()
def polar(abs: Tensor, angle: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The complex tensor ``abs * (cos(angle) + i sin(angle))`` (broadcast), from two float tensors."""
    r = tensor_arg(abs, "polar", "abs", 1)
    t = tensor_arg(angle, "polar", "angle", 2)
    _float_pair(r, t)
    try:
        shape = np.broadcast_shapes(r._data.shape, t._data.shape)
    except ValueError:
        raise broadcast_error(r._data, t._data) from None
    cdt = np.complex64 if r._data.dtype == np.float32 else np.complex128
    v = np.empty(shape, dtype=cdt)
    v.real = r._data * np.cos(t._data)
    v.imag = r._data * np.sin(t._data)
    if GRAD.enabled and (r._requires_grad or t._requires_grad):
        res, node = record(PolarBackward0, v, (r, t))
        node.abs_, node.angle = save_input(r), save_input(t)
        node.metas = (_meta(r), _meta(t))
        return _complex_out(res, out, "polar")
    return _complex_out(wrap(v), out, "polar")


# -- conjugation, and the bits tensorlib does not have ------------------------------------------------------------


class ConjPhysicalBackward0(Node):
    __slots__ = ()

    def backward(self, g: Tensor) -> tuple:
        return (conj_physical(g),)


@op(variants="function method")
def conj_physical(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The complex conjugate, computed (the input itself for real tensors, as torch)."""
    x = tensor_arg(input, "conj_physical")
    a = x._data
    check_out_dtype(out, a.dtype)
    if a.dtype.kind != "c":
        return x if out is None else _finish(wrap(a.copy()), out, "conj_physical")
    r = np.conj(a)
    if x._requires_grad and GRAD.enabled:
        res, _ = record(ConjPhysicalBackward0, r, (x,))
        return _finish(res, out, "conj_physical")
    return _finish(wrap(r), out, "conj_physical")


@op(variants="function method")
def conj_physical_(self: Tensor) -> Tensor:
    """In-place :func:`conj_physical` (nothing to do for real tensors)."""
    x = tensor_arg(self, "conj_physical_", "self")
    if x._data.dtype.kind != "c":
        return x
    return inplace_apply(x, conj_physical, (), {}, "conj_physical_")


@op(variants="function method")
def resolve_conj(input: Tensor) -> Tensor:
    """``input`` with its conjugation computed: ``input`` itself, since tensorlib always computes it (:func:`conj`)."""
    return tensor_arg(input, "resolve_conj")


@op(variants="function method")
def resolve_neg(input: Tensor) -> Tensor:
    """``input`` with its negation computed: ``input`` itself, since tensorlib always computes it."""
    return tensor_arg(input, "resolve_neg")


@op(variants="function method")
def is_conj(input: Tensor) -> bool:
    """Whether ``input`` carries a lazy conjugation: never in tensorlib, which computes :func:`conj` at once."""
    tensor_arg(input, "is_conj")
    return False


@op(variants="function method")
def is_neg(input: Tensor) -> bool:
    """Whether ``input`` carries a lazy negation: never in tensorlib."""
    tensor_arg(input, "is_neg")
    return False


@op(variants="function method")
def isreal(input: Tensor) -> Tensor:
    """Elementwise: whether the value is real (a complex number with a zero imaginary part; every real number)."""
    a = tensor_arg(input, "isreal")._data
    if a.dtype.kind != "c":
        return wrap(np.ones(a.shape, dtype=bool))
    return wrap(np.asarray(a.imag == 0))

