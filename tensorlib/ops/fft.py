"""Discrete Fourier transforms: ``tensorlib.fft`` (torch.fft's functions, arguments, dtypes and errors).

As in ATen, every public transform is built on three primitives, each a graph node
whose backward is again one of them (so gradients of any order are themselves FFTs):

- ``_fft_c2c(x, dims, normalization, forward)``: complex to complex;
- ``_fft_r2c(x, dims, normalization, onesided)``: real to complex (the forward direction),
  the full spectrum or, ``onesided``, its non-redundant half along the last of ``dims``;
- ``_fft_c2r(x, dims, normalization, last_dim_size)``: a one-sided Hermitian spectrum to a real
  signal (the backward direction), ``last_dim_size`` long along the last of ``dims``.

``normalization`` is how the result is scaled whatever the direction: ``NONE``, ``BY_ROOT_N``
(``1/sqrt(n)``) or ``BY_N`` (``1/n``), ``n`` being the number of points of the signal. The public
``norm`` argument picks it from the direction (:func:`_norm_mode`). Gradients follow torch's
conjugate-Wirtinger convention: the adjoint of a scaled transform is the same scaling of the
transform in the other direction.
"""

from __future__ import annotations

import math
import operator
from typing import Any, Literal, Sequence

import numpy as np

from .. import _dtype
from .._autograd.graph import Node
from .._dtype import FROM_NP, dtype as DType
from .._layout import check_layout
from .._registry import FFT, op
from .._tensor import Tensor, check_device
from ._util import GRAD, record, tensor_arg, type_title, wrap, write_out
from .arithmetic import mul
from .conversion import conj, real, to_dtype
from .indexing import narrow
from .shape import roll

NONE, BY_ROOT_N, BY_N = 0, 1, 2
# NumPy's ``norm`` that scales a transform of each direction as ``normalization`` says
_NpNorm = Literal["backward", "ortho", "forward"]
_NP_FORWARD: dict[int, _NpNorm] = {NONE: "backward", BY_ROOT_N: "ortho", BY_N: "forward"}
_NP_BACKWARD: dict[int, _NpNorm] = {NONE: "forward", BY_ROOT_N: "ortho", BY_N: "backward"}


def _complex_of(npdt: np.dtype) -> np.dtype:
    return np.dtype(np.complex64) if npdt == np.float32 else np.dtype(np.complex128)


def _real_of(npdt: np.dtype) -> np.dtype:
    return np.dtype(np.float32) if npdt == np.complex64 else np.dtype(np.float64)


# -- the primitives ---------------------------------------------------------------------------------


class FftC2CBackward0(Node):
    __slots__ = ("dim", "normalization", "forward")
    dim: tuple[int, ...]
    normalization: int
    forward: bool

    def backward(self, g: Tensor) -> tuple:
        return (_fft_c2c(g, self.dim, self.normalization, not self.forward),)


class FftR2CBackward0(Node):
    __slots__ = ("dim", "normalization", "onesided", "last_dim_size")
    dim: tuple[int, ...]
    normalization: int
    onesided: bool
    last_dim_size: int

    def backward(self, g: Tensor) -> tuple:
        # A one-sided r2c is: the real signal as complex, a c2c transform, the upper half dropped. Backward
        # undoes each: zeros for the dropped half, the c2c transform the other way, the real part.
        if self.onesided:
            last = self.dim[-1]
            g = _pad(g, {last: self.last_dim_size})
        return (real(_fft_c2c(g, self.dim, self.normalization, False)),)


class FftC2RBackward0(Node):
    __slots__ = ("dim", "normalization")
    dim: tuple[int, ...]
    normalization: int

    def backward(self, g: Tensor) -> tuple:
        # c2r fills the upper half of the spectrum with the conjugates of the lower half, then transforms back:
        # the gradient is the one-sided r2c of the incoming gradient, with the entries whose mirror image lies
        # in the filled-in half counted twice (indices 1 .. n - onesided_length of the last dim).
        gi = _fft_r2c(g, self.dim, self.normalization, True)
        last = self.dim[-1]
        n, half = g._data.shape[last], gi._data.shape[last]
        double = n - half
        if double > 0:
            w = np.ones(half, dtype=_real_of(gi._data.dtype))
            w[1:1 + double] = 2
            shape = [1] * gi._data.ndim
            shape[last] = half
            gi = mul(gi, wrap(w.reshape(shape)))
        return (gi,)


def _scaled_signal(shape: Sequence[int], dims: Sequence[int]) -> int:
    return math.prod(shape[d] for d in dims)


def _fft_c2c(x: Tensor, dims: tuple[int, ...], normalization: int, forward: bool) -> Tensor:
    """The complex transform of ``x`` over ``dims`` (``forward``: ``exp(-2 pi i ...)``), scaled by ``normalization``."""
    a = x._data
    if a.dtype.kind != "c":  # a real incoming gradient
        a = a.astype(_complex_of(a.dtype))
    if not dims or a.size == 0:
        r = a.copy()
    elif forward:
        r = np.fft.fftn(a, axes=dims, norm=_NP_FORWARD[normalization])
    else:
        r = np.fft.ifftn(a, axes=dims, norm=_NP_BACKWARD[normalization])
    r = np.asarray(r, dtype=a.dtype)
    if x._requires_grad and GRAD.enabled:
        res, node = record(FftC2CBackward0, r, (x,))
        node.dim, node.normalization, node.forward = dims, normalization, forward
        return res
    return wrap(r)


def _fft_r2c(x: Tensor, dims: tuple[int, ...], normalization: int, onesided: bool) -> Tensor:
    """The forward transform of real ``x`` over ``dims``; ``onesided``: the first ``n // 2 + 1`` of the last dim."""
    a = x._data
    if a.dtype.kind not in "f" or a.dtype == np.float16:
        raise RuntimeError(f"Only supports floating-point dtypes, but found: {type_title(a.dtype)}")
    cdt = _complex_of(a.dtype)
    if a.size == 0:
        shape = list(a.shape)
        if onesided:
            shape[dims[-1]] = shape[dims[-1]] // 2 + 1
        r = np.zeros(shape, dtype=cdt)
    elif onesided:
        r = np.fft.rfftn(a, axes=dims, norm=_NP_FORWARD[normalization])
    else:
        r = np.fft.fftn(a, axes=dims, norm=_NP_FORWARD[normalization])
    r = np.asarray(r, dtype=cdt)
    if x._requires_grad and GRAD.enabled:
        res, node = record(FftR2CBackward0, r, (x,))
        node.dim, node.normalization, node.onesided = dims, normalization, onesided
        node.last_dim_size = a.shape[dims[-1]]
        return res
    return wrap(r)


def _fft_c2r(x: Tensor, dims: tuple[int, ...], normalization: int, last_dim_size: int) -> Tensor:
    """The backward transform of the one-sided Hermitian spectrum ``x`` over ``dims``: a real signal."""
    a = x._data
    rdt = _real_of(a.dtype)
    shape = [a.shape[d] for d in dims[:-1]] + [last_dim_size]
    if a.size == 0:
        out_shape = list(a.shape)
        out_shape[dims[-1]] = last_dim_size
        r = np.zeros(out_shape, dtype=rdt)
    else:
        r = np.fft.irfftn(a, s=shape, axes=dims, norm=_NP_BACKWARD[normalization])
    r = np.asarray(r, dtype=rdt)
    if x._requires_grad and GRAD.enabled:
        res, node = record(FftC2RBackward0, r, (x,))
        node.dim, node.normalization = dims, normalization
        return res
    return wrap(r)


class ConstantPadNdBackward0(Node):
    __slots__ = ("sizes",)
    sizes: dict[int, int]

    def backward(self, g: Tensor) -> tuple:
        for d, n in self.sizes.items():
            g = narrow(g, d, 0, n)
        return (g,)


def _pad(x: Tensor, sizes: dict[int, int]) -> Tensor:
    """``x`` with zeros appended along each dim ``d`` of ``sizes`` up to ``sizes[d]`` entries."""
    a = x._data
    widths = [(0, 0)] * a.ndim
    for d, n in sizes.items():
        widths[d] = (0, max(n - a.shape[d], 0))
    r = np.pad(a, widths)
    if x._requires_grad and GRAD.enabled:
        res, node = record(ConstantPadNdBackward0, r, (x,))
        node.sizes = {d: a.shape[d] for d in sizes}
        return res
    return wrap(r)


def _resize(x: Tensor, dims: Sequence[int], sizes: Sequence[int]) -> Tensor:
    """torch's ``resize_fft_input``: ``x`` cut or zero-padded to ``sizes[i]`` entries along ``dims[i]``."""
    grow: dict[int, int] = {}
    for d, n in zip(dims, sizes):
        cur = x._data.shape[d]
        if n < cur:
            x = narrow(x, d, 0, n)
        elif n > cur:
            grow[d] = n
    return _pad(x, grow) if grow else x


# -- arguments ----------------------------------------------------------------------------------------


def _norm_mode(norm: str | None, forward: bool) -> int:
    if norm is None or norm == "backward":
        return NONE if forward else BY_N
    if norm == "forward":
        return BY_N if forward else NONE
    if norm == "ortho":
        return BY_ROOT_N
    raise RuntimeError(f'Invalid normalization mode: "{norm}"')


def _as_int(v: Any) -> int | None:
    """``v`` as an int argument, as torch's parser takes one (not a bool; a one-element integer tensor), else None."""
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, Tensor) and v._data.size == 1 and v._data.dtype.kind in "iu":
        return int(v._data.reshape(()))
    return None


def _int_arg(v: Any, fname: str, name: str) -> int | None:
    if v is None:
        return None
    i = _as_int(v)
    if i is None:
        raise TypeError(f"{fname}(): argument '{name}' must be int, not {type(v).__name__}")
    return i


def _ints_arg(v: Any, fname: str, name: str) -> tuple[int, ...] | None:
    """An ``int[]`` argument: one int, or a tuple or list of them."""
    if v is None:
        return None
    i = _as_int(v)
    if i is not None:  # one element, a one-element tensor included
        return (i,)
    if isinstance(v, (tuple, list)):
        items = [_as_int(e) for e in v]
        if all(e is not None for e in items):
            return tuple(items)  # type: ignore[arg-type]
    raise TypeError(f"{fname}(): argument '{name}' must be tuple of ints, not {type(v).__name__}")


def _norm_arg(norm: Any, fname: str) -> str | None:
    if norm is not None and not isinstance(norm, str):
        raise TypeError(f"{fname}(): argument 'norm' must be str, not {type(norm).__name__}")
    return norm


def _args1(fname: str, n: Any, dim: Any, norm: Any) -> tuple[int | None, int, str | None]:
    """A one-dimensional transform's ``n``, ``dim`` and ``norm``, checked as torch's argument parser does."""
    d = _as_int(dim)
    if d is None:
        raise TypeError(f"{fname}(): argument 'dim' must be int, not {type(dim).__name__}")
    return _int_arg(n, fname, "n"), d, _norm_arg(norm, fname)


def _argsn(fname: str, s: Any, dim: Any, norm: Any) -> tuple[Any, Any, str | None]:
    """An N-dimensional transform's ``s``, ``dim`` and ``norm``, checked as torch's argument parser does."""
    return _ints_arg(s, fname, "s"), _ints_arg(dim, fname, "dim"), _norm_arg(norm, fname)


def _wrap_dim(dim: int, ndim: int) -> int:
    """A dim of an FFT: negative dims count from the end; a 0-dim tensor has none (torch's wrap_scalar=False)."""
    dim = operator.index(dim)
    if ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    if not -ndim <= dim < ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got {dim})")
    return dim % ndim


def _promote(x: Tensor, require_complex: bool = False) -> Tensor:
    """torch's ``promote_tensor_fft``: integers to the default float dtype; float32/64 only; complex if required."""
    npdt = x._data.dtype
    if npdt.kind == "c":
        return x
    dt = FROM_NP[npdt] if npdt.kind == "f" else _dtype.DEFAULT.float
    if dt.np == np.float16:
        raise RuntimeError("Unsupported dtype Half")
    if require_complex:
        dt = dt.to_complex()
    return to_dtype(x, dt)


def _shape_and_dims(x: Tensor, s: Any, dim: Any) -> tuple[list[int], tuple[int, ...]]:
    """torch's ``canonicalize_fft_shape_and_dim_args``: the signal sizes and the dims they transform."""
    ndim = x._data.ndim
    sizes = x._data.shape
    dims: tuple[int, ...] | None = None
    if dim is not None:
        dims = tuple(_wrap_dim(d, ndim) for d in dim)
        if len(set(dims)) != len(dims):
            raise RuntimeError("FFT dims must be unique")
    if s is not None:
        shape = list(s)
        if dims is not None and len(dims) != len(shape):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
        if len(shape) > ndim:
            raise RuntimeError(f"Got shape with {len(shape)} values but input tensor only has {ndim} dimensions.")
        if dims is None:
            dims = tuple(range(ndim - len(shape), ndim))
        shape = [sizes[d] if n == -1 else n for n, d in zip(shape, dims)]
    elif dims is None:
        dims = tuple(range(ndim))
        shape = list(sizes)
    else:
        shape = [sizes[d] for d in dims]
    for n in shape:
        if n <= 0:
            raise RuntimeError(f"Invalid number of data points ({n}) specified")
    return shape, dims


def _c2r_shape_and_dims(fname: str, x: Tensor, s: Any, dim: Any) -> tuple[list[int], tuple[int, ...], int]:
    """The same for transforms to a real signal: the input's sizes, the dims and the output's last size."""
    shape, dims = _shape_and_dims(x, s, dim)
    if not shape:
        raise RuntimeError(f"{fname} must transform at least one axis")
    last = 2 * (x._data.shape[dims[-1]] - 1) if s is None or s[-1] == -1 else shape[-1]
    if last < 1:
        raise RuntimeError(f"Invalid number of data points ({last}) specified")
    shape[-1] = last // 2 + 1
    return shape, dims, last


def _check_out(out: Any, fname: str, complex_out: bool, public_name: str) -> None:
    if out is None:
        return
    if not isinstance(out, Tensor):
        raise TypeError(f"{public_name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    kind = out._data.dtype.kind
    if complex_out and kind != "c":
        raise RuntimeError(f"{fname} expects a complex output tensor, but got {type_title(out._data.dtype)}")
    if not complex_out and kind != "f":
        raise RuntimeError(f"{fname} expects a floating point output tensor, but got {type_title(out._data.dtype)}")


def _out(result: Tensor, out: Tensor | None, primitive: str) -> Tensor:
    return result if out is None else write_out(out, result, primitive)


# -- one-dimensional transforms (torch's fft_c2c, fft_r2c and fft_c2r) ----------------------------------


def _c2c(fname: str, out: Any, x: Tensor, n: int | None, dim: int, norm: str | None, forward: bool) -> Tensor:
    d = _wrap_dim(dim, x._data.ndim)
    size = x._data.shape[d] if n is None else n
    if size < 1:
        raise RuntimeError(f"Invalid number of data points ({size}) specified")
    if n is not None:
        x = _resize(x, (d,), (n,))
    mode = _norm_mode(norm, forward)
    _check_out(out, fname, True, "fft_" + fname)
    return _out(_fft_c2c(x, (d,), mode, forward), out, "_fft_c2c")


def _r2c(fname: str, out: Any, x: Tensor, n: int | None, dim: int, norm: str | None, forward: bool,
         onesided: bool) -> Tensor:
    if x._data.dtype.kind == "c":
        raise RuntimeError(f"{fname} expects a real input tensor, but got {type_title(x._data.dtype)}")
    _check_out(out, fname, True, "fft_" + fname)
    x = _promote(x)
    d = _wrap_dim(dim, x._data.ndim)
    size = x._data.shape[d] if n is None else n
    if size < 1:
        raise RuntimeError(f"Invalid number of data points ({size}) specified")
    if n is not None:
        x = _resize(x, (d,), (n,))
    mode = _norm_mode(norm, forward)
    if forward:
        return _out(_fft_r2c(x, (d,), mode, onesided), out, "_fft_r2c")
    # the inverse transform of a real signal is the conjugate of its forward transform
    res = _fft_r2c(x, (d,), mode, onesided)
    if out is not None and out._data.dtype != res._data.dtype:
        raise RuntimeError(f"Found dtype {type_title(out._data.dtype)} but expected {type_title(res._data.dtype)}")
    return _out(conj(res), out, "conj_physical")


def _c2r(fname: str, out: Any, x: Tensor, n: int | None, dim: int, norm: str | None, forward: bool) -> Tensor:
    _check_out(out, fname, False, "fft_" + fname)
    x = _promote(x, require_complex=True)
    d = _wrap_dim(dim, x._data.ndim)
    size = 2 * (x._data.shape[d] - 1) if n is None else n
    if size < 1:
        raise RuntimeError(f"Invalid number of data points ({size}) specified")
    if n is not None:
        x = _resize(x, (d,), (n // 2 + 1,))
    mode = _norm_mode(norm, forward)
    if forward:
        x = conj(x)
    return _out(_fft_c2r(x, (d,), mode, size), out, "_fft_c2r")


# -- the public functions -----------------------------------------------------------------------------


def _input(input: Any, fname: str) -> Tensor:
    return tensor_arg(input, "fft_" + fname)


@op(namespace=FFT)
def fft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None, *,
        out: Tensor | None = None) -> Tensor:
    """The one-dimensional discrete Fourier transform of ``input`` along ``dim`` (``n`` points: cut or zero-padded)."""
    x = _input(input, "fft")
    n, dim, norm = _args1("fft_fft", n, dim, norm)
    if x._data.dtype.kind == "c":
        return _c2c("fft", out, x, n, dim, norm, True)
    return _r2c("fft", out, x, n, dim, norm, True, False)


@op(namespace=FFT)
def ifft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None, *,
         out: Tensor | None = None) -> Tensor:
    """The one-dimensional inverse discrete Fourier transform of ``input`` along ``dim``."""
    x = _input(input, "ifft")
    n, dim, norm = _args1("fft_ifft", n, dim, norm)
    if x._data.dtype.kind == "c":
        return _c2c("ifft", out, x, n, dim, norm, False)
    return _r2c("ifft", out, x, n, dim, norm, False, False)


@op(namespace=FFT)
def rfft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None, *,
         out: Tensor | None = None) -> Tensor:
    """The Fourier transform of a real signal: the ``n // 2 + 1`` non-negative frequencies."""
    x = _input(input, "rfft")
    n, dim, norm = _args1("fft_rfft", n, dim, norm)
    return _r2c("rfft", out, x, n, dim, norm, True, True)


@op(namespace=FFT)
def irfft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None, *,
          out: Tensor | None = None) -> Tensor:
    """The inverse of :func:`rfft`: a real signal of ``n`` points (``2 * (size - 1)`` by default)."""
    x = _input(input, "irfft")
    n, dim, norm = _args1("fft_irfft", n, dim, norm)
    return _c2r("irfft", out, x, n, dim, norm, False)


@op(namespace=FFT)
def hfft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None, *,
         out: Tensor | None = None) -> Tensor:
    """The Fourier transform of a Hermitian-symmetric signal given by its first half: a real result of ``n`` points."""
    x = _input(input, "hfft")
    n, dim, norm = _args1("fft_hfft", n, dim, norm)
    return _c2r("hfft", out, x, n, dim, norm, True)


@op(namespace=FFT)
def ihfft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None, *,
          out: Tensor | None = None) -> Tensor:
    """The inverse of :func:`hfft`: the first half of the Hermitian-symmetric inverse transform of a real signal."""
    x = _input(input, "ihfft")
    n, dim, norm = _args1("fft_ihfft", n, dim, norm)
    return _r2c("ihfft", out, x, n, dim, norm, False, True)


def _fftn(fname: str, out: Any, x: Tensor, s: Any, dim: Any, norm: str | None, forward: bool) -> Tensor:
    shape, dims = _shape_and_dims(x, s, dim)
    x = _promote(x, require_complex=True)
    x = _resize(x, dims, shape)
    mode = _norm_mode(norm, forward)
    _check_out(out, "fftn", True, "fft_" + fname)
    return _out(_fft_c2c(x, dims, mode, forward), out, "_fft_c2c")


def _rfftn(fname: str, out: Any, x: Tensor, s: Any, dim: Any, norm: str | None) -> Tensor:
    if x._data.dtype.kind == "c":
        raise RuntimeError(f"rfftn expects a real-valued input tensor, but got {type_title(x._data.dtype)}")
    shape, dims = _shape_and_dims(x, s, dim)
    if not shape:
        raise RuntimeError("rfftn must transform at least one axis")
    x = _promote(x)
    x = _resize(x, dims, shape)
    mode = _norm_mode(norm, True)
    _check_out(out, "rfftn", True, "fft_" + fname)
    return _out(_fft_r2c(x, dims, mode, True), out, "_fft_r2c")


def _irfftn(fname: str, out: Any, x: Tensor, s: Any, dim: Any, norm: str | None) -> Tensor:
    shape, dims, last = _c2r_shape_and_dims("irfftn", x, s, dim)
    x = _promote(x, require_complex=True)
    x = _resize(x, dims, shape)
    mode = _norm_mode(norm, False)
    _check_out(out, "irfftn", False, "fft_" + fname)
    return _out(_fft_c2r(x, dims, mode, last), out, "_fft_c2r")


def _hfftn(fname: str, out: Any, x: Tensor, s: Any, dim: Any, norm: str | None) -> Tensor:
    shape, dims, last = _c2r_shape_and_dims("hfftn", x, s, dim)
    x = _promote(x, require_complex=True)
    x = _resize(x, dims, shape)
    mode = _norm_mode(norm, True)
    if len(dims) > 1:
        x = _fft_c2c(x, dims[:-1], mode, True)
    x = conj(x)
    _check_out(out, "hfftn", False, "fft_" + fname)
    return _out(_fft_c2r(x, (dims[-1],), mode, last), out, "_fft_c2r")


def _ihfftn(fname: str, out: Any, x: Tensor, s: Any, dim: Any, norm: str | None) -> Tensor:
    shape, dims = _shape_and_dims(x, s, dim)
    if not shape:
        raise RuntimeError("ihfftn must transform at least one axis")
    x = _promote(x)
    x = _resize(x, dims, shape)
    mode = _norm_mode(norm, False)
    res = _fft_r2c(x, (dims[-1],), mode, True)
    if out is not None:
        _check_out(out, "ihfftn", True, "fft_" + fname)
    if len(dims) == 1:
        if out is not None and out._data.dtype != res._data.dtype:
            raise RuntimeError(f"Found dtype {type_title(res._data.dtype)} but expected {type_title(out._data.dtype)}")
        return _out(conj(res), out, "conj_physical")
    return _out(_fft_c2c(conj(res), dims[:-1], mode, False), out, "_fft_c2c")


_DIMS2 = (-2, -1)


@op(namespace=FFT)
def fftn(input: Tensor, s: int | Sequence[int] | None = None, dim: int | Sequence[int] | None = None, norm: str | None = None,
         *, out: Tensor | None = None) -> Tensor:
    """The N-dimensional discrete Fourier transform over ``dim`` (every dim by default; sizes ``s``)."""
    x = _input(input, "fftn")
    s, dim, norm = _argsn("fft_fftn", s, dim, norm)
    return _fftn("fftn", out, x, s, dim, norm, True)


@op(namespace=FFT)
def ifftn(input: Tensor, s: int | Sequence[int] | None = None, dim: int | Sequence[int] | None = None, norm: str | None = None,
          *, out: Tensor | None = None) -> Tensor:
    """The N-dimensional inverse discrete Fourier transform over ``dim``."""
    x = _input(input, "ifftn")
    s, dim, norm = _argsn("fft_ifftn", s, dim, norm)
    return _fftn("ifftn", out, x, s, dim, norm, False)


@op(namespace=FFT)
def rfftn(input: Tensor, s: int | Sequence[int] | None = None, dim: int | Sequence[int] | None = None, norm: str | None = None,
          *, out: Tensor | None = None) -> Tensor:
    """The N-dimensional transform of a real signal, one-sided along the last of ``dim``."""
    x = _input(input, "rfftn")
    s, dim, norm = _argsn("fft_rfftn", s, dim, norm)
    return _rfftn("rfftn", out, x, s, dim, norm)


@op(namespace=FFT)
def irfftn(input: Tensor, s: int | Sequence[int] | None = None, dim: int | Sequence[int] | None = None, norm: str | None = None,
           *, out: Tensor | None = None) -> Tensor:
    """The inverse of :func:`rfftn`: a real signal (``2 * (size - 1)`` points along the last dim by default)."""
    x = _input(input, "irfftn")
    s, dim, norm = _argsn("fft_irfftn", s, dim, norm)
    return _irfftn("irfftn", out, x, s, dim, norm)


@op(namespace=FFT)
def hfftn(input: Tensor, s: int | Sequence[int] | None = None, dim: int | Sequence[int] | None = None, norm: str | None = None,
          *, out: Tensor | None = None) -> Tensor:
    """The N-dimensional transform of a Hermitian-symmetric signal given by its half: a real result."""
    x = _input(input, "hfftn")
    s, dim, norm = _argsn("fft_hfftn", s, dim, norm)
    return _hfftn("hfftn", out, x, s, dim, norm)


@op(namespace=FFT)
def ihfftn(input: Tensor, s: int | Sequence[int] | None = None, dim: int | Sequence[int] | None = None, norm: str | None = None,
           *, out: Tensor | None = None) -> Tensor:
    """The inverse of :func:`hfftn`: the one-sided inverse transform of a real signal."""
    x = _input(input, "ihfftn")
    s, dim, norm = _argsn("fft_ihfftn", s, dim, norm)
    return _ihfftn("ihfftn", out, x, s, dim, norm)


@op(namespace=FFT)
def fft2(input: Tensor, s: int | Sequence[int] | None = None, dim: int | Sequence[int] = _DIMS2, norm: str | None = None, *,
         out: Tensor | None = None) -> Tensor:
    """The two-dimensional discrete Fourier transform (over the last two dims by default)."""
    x = _input(input, "fft2")
    s, dim, norm = _argsn("fft_fft2", s, dim, norm)
    return _fftn("fft2", out, x, s, dim, norm, True)


@op(namespace=FFT)
def ifft2(input: Tensor, s: int | Sequence[int] | None = None, dim: int | Sequence[int] = _DIMS2, norm: str | None = None, *,
          out: Tensor | None = None) -> Tensor:
    """The two-dimensional inverse discrete Fourier transform."""
    x = _input(input, "ifft2")
    s, dim, norm = _argsn("fft_ifft2", s, dim, norm)
    return _fftn("ifft2", out, x, s, dim, norm, False)


@op(namespace=FFT)
def rfft2(input: Tensor, s: int | Sequence[int] | None = None, dim: int | Sequence[int] = _DIMS2, norm: str | None = None, *,
          out: Tensor | None = None) -> Tensor:
    """The two-dimensional transform of a real signal (one-sided along the last dim)."""
    x = _input(input, "rfft2")
    s, dim, norm = _argsn("fft_rfft2", s, dim, norm)
    return _rfftn("rfft2", out, x, s, dim, norm)


@op(namespace=FFT)
def irfft2(input: Tensor, s: int | Sequence[int] | None = None, dim: int | Sequence[int] = _DIMS2, norm: str | None = None, *,
           out: Tensor | None = None) -> Tensor:
    """The inverse of :func:`rfft2`."""
    x = _input(input, "irfft2")
    s, dim, norm = _argsn("fft_irfft2", s, dim, norm)
    return _irfftn("irfft2", out, x, s, dim, norm)


@op(namespace=FFT)
def hfft2(input: Tensor, s: int | Sequence[int] | None = None, dim: int | Sequence[int] = _DIMS2, norm: str | None = None, *,
          out: Tensor | None = None) -> Tensor:
    """The two-dimensional transform of a Hermitian-symmetric signal given by its half."""
    x = _input(input, "hfft2")
    s, dim, norm = _argsn("fft_hfft2", s, dim, norm)
    return _hfftn("hfft2", out, x, s, dim, norm)


@op(namespace=FFT)
def ihfft2(input: Tensor, s: int | Sequence[int] | None = None, dim: int | Sequence[int] = _DIMS2, norm: str | None = None, *,
           out: Tensor | None = None) -> Tensor:
    """The inverse of :func:`hfft2`."""
    x = _input(input, "ihfft2")
    s, dim, norm = _argsn("fft_ihfft2", s, dim, norm)
    return _ihfftn("ihfft2", out, x, s, dim, norm)


# -- sample frequencies and shifts --------------------------------------------------------------------------


def _freq_args(fname: str, n: Any, d: Any, out: Any, dtype: Any, layout: Any, device: Any) -> tuple[int, float, np.dtype]:
    i = _as_int(n)
    if i is None:
        raise TypeError(f"fft_{fname}(): argument 'n' (position 1) must be int, not {type(n).__name__}")
    if isinstance(d, Tensor):
        d = d.item()
    if isinstance(d, bool) or not isinstance(d, (int, float, np.integer, np.floating)):
        raise TypeError(f"fft_{fname}(): argument 'd' (position 2) must be float, not {type(d).__name__}")
    if dtype is not None and not isinstance(dtype, DType):
        raise TypeError(f"fft_{fname}(): argument 'dtype' must be tensorlib.dtype, not {type(dtype).__name__}")
    check_layout(layout, "fft_" + fname)
    check_device(device)
    if out is not None:
        if not isinstance(out, Tensor):
            raise TypeError(f"fft_{fname}(): argument 'out' must be Tensor, not {type(out).__name__}")
        npdt = out._data.dtype
    else:
        npdt = dtype.np if dtype is not None else _dtype.DEFAULT.np_float
    if npdt.kind not in "fc":
        raise RuntimeError(f"{fname} requires a floating point or complex dtype")
    if npdt.kind == "c":
        raise NotImplementedError(f"\"arange_cpu\" not implemented for '{type_title(npdt)}'")
    return i, float(d), npdt


def _freq_result(fname: str, k: np.ndarray, n: int, d: float, npdt: np.dtype, out: Any, requires_grad: bool) -> Tensor:
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = np.float64(1.0) / np.float64(n * d)
    # as torch: the integers in the result's dtype, times the scale in that dtype
    t = wrap(k.astype(npdt) * np.asarray(scale, dtype=npdt))
    if requires_grad:
        t._requires_grad = True
    return t if out is None else write_out(out, t, f"aten::fft_{fname}")


@op(namespace=FFT, dispatch="modes")
def fftfreq(n: int, d: float = 1.0, *, out: Tensor | None = None, dtype: DType | None = None, layout: Any = None,
            device: Any = None, requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """The sample frequencies of an ``n``-point transform with sample spacing ``d``: ``[0, 1, ..., -1] / (d n)``."""
    n, d, npdt = _freq_args("fftfreq", n, d, out, dtype, layout, device)
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    k = np.arange(n, dtype=np.int64)
    k[(n + 1) // 2:] -= n
    return _freq_result("fftfreq", k, n, d, npdt, out, requires_grad)


@op(namespace=FFT, dispatch="modes")
def rfftfreq(n: int, d: float = 1.0, *, out: Tensor | None = None, dtype: DType | None = None, layout: Any = None,
             device: Any = None, requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """The sample frequencies of :func:`rfft` of ``n`` points with sample spacing ``d``: ``[0, ..., n // 2] / (d n)``."""
    n, d, npdt = _freq_args("rfftfreq", n, d, out, dtype, layout, device)
    k = np.arange(max(int(n / 2) + 1, 0), dtype=np.int64)  # C's division: rfftfreq(-1) has one entry
    return _freq_result("rfftfreq", k, n, d, npdt, out, requires_grad)


def _shift(fname: str, input: Any, dim: Any, inverse: bool) -> Tensor:
    x = tensor_arg(input, "fft_" + fname)
    a = x._data
    ds = _ints_arg(dim, "fft_" + fname, "dim")
    dims = tuple(range(a.ndim)) if ds is None else tuple(_wrap_dim(d, a.ndim) for d in ds)
    if not dims:
        raise RuntimeError("`shifts` required")
    shifts = tuple((a.shape[d] + inverse) // 2 for d in dims)
    return roll(x, shifts, dims)


@op(namespace=FFT)
def fftshift(input: Tensor, dim: int | Sequence[int] | None = None) -> Tensor:
    """Moves the zero frequency to the middle of ``dim`` (every dim by default): the spectrum in frequency order."""
    return _shift("fftshift", input, dim, False)


@op(namespace=FFT)
def ifftshift(input: Tensor, dim: int | Sequence[int] | None = None) -> Tensor:
    """The inverse of :func:`fftshift`."""
    return _shift("ifftshift", input, dim, True)
