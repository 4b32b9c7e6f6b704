"""Discrete Fourier transforms: ``tensorlib.fft`` (torch.fft's functions, arguments, dtypes and errors), and the
short-time transforms ``tensorlib.stft``/``istft``.

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
import warnings
from typing import Any, Literal, Sequence

import numpy as np

from .. import _dtype
from .._autograd.graph import Node
from .._autograd.views import put_region
from .._dtype import FROM_NP, dtype as DType
from .._layout import check_layout
from .._registry import FFT, op
from .._tensor import Tensor, check_device
from ._util import GRAD, record, tensor_arg, type_title, wrap, write_out
from .arithmetic import div, mul
from .broadcast import expand
from .complex_views import view_as_real
from .conversion import conj, real, to_dtype
from .indexing import index_select, narrow
from .shape import reshape, roll, squeeze, transpose, unfold, unsqueeze

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
            g = _pad(g, {last: (0, self.last_dim_size - g._data.shape[last])})
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
    __slots__ = ("regions",)
    regions: dict[int, tuple[int, int]]

    def backward(self, g: Tensor) -> tuple:
        for d, (start, n) in self.regions.items():
            g = narrow(g, d, start, n)
        return (g,)


def _pad(x: Tensor, widths: dict[int, tuple[int, int]]) -> Tensor:
    """``x`` with ``widths[d] = (before, after)`` zeros added along each dim ``d``."""
    a = x._data
    pads = [(0, 0)] * a.ndim
    for d, w in widths.items():
        pads[d] = w
    r = np.pad(a, pads)
    if x._requires_grad and GRAD.enabled:
        res, node = record(ConstantPadNdBackward0, r, (x,))
        node.regions = {d: (w[0], a.shape[d]) for d, w in widths.items()}
        return res
    return wrap(r)


def _resize(x: Tensor, dims: Sequence[int], sizes: Sequence[int]) -> Tensor:
    """torch's ``resize_fft_input``: ``x`` cut or zero-padded to ``sizes[i]`` entries along ``dims[i]``."""
    grow: dict[int, tuple[int, int]] = {}
    for d, n in zip(dims, sizes):
        cur = x._data.shape[d]
        if n < cur:
            x = narrow(x, d, 0, n)
        elif n > cur:
            grow[d] = (0, n - cur)
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
        if not -9223372036854775808 <= v < 9223372036854775808:
            raise ValueError("Overflow when unpacking long long")
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
def fftn(input: Tensor, s: int | Sequence[int] | None = None, dim: int | Sequence[int] | None = None,
         norm: str | None = None, *, out: Tensor | None = None) -> Tensor:
    """The N-dimensional discrete Fourier transform over ``dim`` (every dim by default; sizes ``s``)."""
    x = _input(input, "fftn")
    s, dim, norm = _argsn("fft_fftn", s, dim, norm)
    return _fftn("fftn", out, x, s, dim, norm, True)


@op(namespace=FFT)
def ifftn(input: Tensor, s: int | Sequence[int] | None = None, dim: int | Sequence[int] | None = None,
          norm: str | None = None, *, out: Tensor | None = None) -> Tensor:
    """The N-dimensional inverse discrete Fourier transform over ``dim``."""
    x = _input(input, "ifftn")
    s, dim, norm = _argsn("fft_ifftn", s, dim, norm)
    return _fftn("ifftn", out, x, s, dim, norm, False)


@op(namespace=FFT)
def rfftn(input: Tensor, s: int | Sequence[int] | None = None, dim: int | Sequence[int] | None = None,
          norm: str | None = None, *, out: Tensor | None = None) -> Tensor:
    """The N-dimensional transform of a real signal, one-sided along the last of ``dim``."""
    x = _input(input, "rfftn")
    s, dim, norm = _argsn("fft_rfftn", s, dim, norm)
    return _rfftn("rfftn", out, x, s, dim, norm)


@op(namespace=FFT)
def irfftn(input: Tensor, s: int | Sequence[int] | None = None, dim: int | Sequence[int] | None = None,
           norm: str | None = None, *, out: Tensor | None = None) -> Tensor:
    """The inverse of :func:`rfftn`: a real signal (``2 * (size - 1)`` points along the last dim by default)."""
    x = _input(input, "irfftn")
    s, dim, norm = _argsn("fft_irfftn", s, dim, norm)
    return _irfftn("irfftn", out, x, s, dim, norm)


@op(namespace=FFT)
def hfftn(input: Tensor, s: int | Sequence[int] | None = None, dim: int | Sequence[int] | None = None,
          norm: str | None = None, *, out: Tensor | None = None) -> Tensor:
    """The N-dimensional transform of a Hermitian-symmetric signal given by its half: a real result."""
    x = _input(input, "hfftn")
    s, dim, norm = _argsn("fft_hfftn", s, dim, norm)
    return _hfftn("hfftn", out, x, s, dim, norm)


@op(namespace=FFT)
def ihfftn(input: Tensor, s: int | Sequence[int] | None = None, dim: int | Sequence[int] | None = None,
           norm: str | None = None, *, out: Tensor | None = None) -> Tensor:
    """The inverse of :func:`hfftn`: the one-sided inverse transform of a real signal."""
    x = _input(input, "ihfftn")
    s, dim, norm = _argsn("fft_ihfftn", s, dim, norm)
    return _ihfftn("ihfftn", out, x, s, dim, norm)


@op(namespace=FFT)
def fft2(input: Tensor, s: int | Sequence[int] | None = None, dim: int | Sequence[int] = _DIMS2,
         norm: str | None = None, *, out: Tensor | None = None) -> Tensor:
    """The two-dimensional discrete Fourier transform (over the last two dims by default)."""
    x = _input(input, "fft2")
    s, dim, norm = _argsn("fft_fft2", s, dim, norm)
    return _fftn("fft2", out, x, s, dim, norm, True)


@op(namespace=FFT)
def ifft2(input: Tensor, s: int | Sequence[int] | None = None, dim: int | Sequence[int] = _DIMS2,
          norm: str | None = None, *, out: Tensor | None = None) -> Tensor:
    """The two-dimensional inverse discrete Fourier transform."""
    x = _input(input, "ifft2")
    s, dim, norm = _argsn("fft_ifft2", s, dim, norm)
    return _fftn("ifft2", out, x, s, dim, norm, False)


@op(namespace=FFT)
def rfft2(input: Tensor, s: int | Sequence[int] | None = None, dim: int | Sequence[int] = _DIMS2,
          norm: str | None = None, *, out: Tensor | None = None) -> Tensor:
    """The two-dimensional transform of a real signal (one-sided along the last dim)."""
    x = _input(input, "rfft2")
    s, dim, norm = _argsn("fft_rfft2", s, dim, norm)
    return _rfftn("rfft2", out, x, s, dim, norm)


@op(namespace=FFT)
def irfft2(input: Tensor, s: int | Sequence[int] | None = None, dim: int | Sequence[int] = _DIMS2,
           norm: str | None = None, *, out: Tensor | None = None) -> Tensor:
    """The inverse of :func:`rfft2`."""
    x = _input(input, "irfft2")
    s, dim, norm = _argsn("fft_irfft2", s, dim, norm)
    return _irfftn("irfft2", out, x, s, dim, norm)


@op(namespace=FFT)
def hfft2(input: Tensor, s: int | Sequence[int] | None = None, dim: int | Sequence[int] = _DIMS2,
          norm: str | None = None, *, out: Tensor | None = None) -> Tensor:
    """The two-dimensional transform of a Hermitian-symmetric signal given by its half."""
    x = _input(input, "hfft2")
    s, dim, norm = _argsn("fft_hfft2", s, dim, norm)
    return _hfftn("hfft2", out, x, s, dim, norm)


@op(namespace=FFT)
def ihfft2(input: Tensor, s: int | Sequence[int] | None = None, dim: int | Sequence[int] = _DIMS2,
           norm: str | None = None, *, out: Tensor | None = None) -> Tensor:
    """The inverse of :func:`hfft2`."""
    x = _input(input, "ihfft2")
    s, dim, norm = _argsn("fft_ihfft2", s, dim, norm)
    return _ihfftn("ihfft2", out, x, s, dim, norm)


# -- sample frequencies and shifts --------------------------------------------------------------------------


def _freq_args(fname: str, n: Any, d: Any, out: Any, dtype: Any, layout: Any,
               device: Any) -> tuple[int, float, np.dtype]:
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
    """The sample frequencies of :func:`rfft` of ``n`` points, sample spacing ``d``: ``[0, ..., n // 2] / (d n)``."""
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


# -- short-time Fourier transforms ------------------------------------------------------------------------------


def _type_repr(x: Tensor) -> str:
    """How torch's ``Tensor::toString`` names a tensor's type in stft's and istft's messages."""
    npdt = x._data.dtype
    if npdt.kind == "c":
        return "CPUComplexFloatType" if npdt == np.complex64 else "CPUComplexDoubleType"
    return x.type()


def _sizes(shape: Sequence[int]) -> str:
    return "[" + ", ".join(str(n) for n in shape) + "]"


def _opt(v: Any) -> str:
    return "None" if v is None else str(int(v))


def _window_repr(window: Tensor | None) -> str:
    return "None" if window is None else f"{_type_repr(window)}{{{_sizes(window._data.shape)}}}"


def _signal_pad(x: Tensor, pad: int, mode: str) -> Tensor:
    """``F.pad(x, [pad, pad], mode)`` on the last dim of a 3-dim ``x`` (stft's ``center``)."""
    n = x._data.shape[-1]
    if mode == "constant":
        return _pad(x, {x._data.ndim - 1: (pad, pad)})
    if mode == "reflect":
        if pad >= n:
            raise RuntimeError(
                f"Argument #4: Padding size should be less than the corresponding input dimension, but got: padding "
                f"({pad}, {pad}) at dimension {x._data.ndim - 1} of input {_sizes(x._data.shape)}"
            )
        idx = np.concatenate([np.arange(pad, 0, -1), np.arange(n), np.arange(n - 2, n - 2 - pad, -1)])
    elif mode == "replicate":
        idx = np.concatenate([np.zeros(pad, np.int64), np.arange(n), np.full(pad, n - 1)])
    elif mode == "circular":
        if pad > n:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        idx = np.concatenate([np.arange(n - pad, n), np.arange(n), np.arange(pad)])
    else:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    return index_select(x, -1, wrap(idx.astype(np.int64)))


def _centered_window(window: Tensor | None, win_length: int, n_fft: int, like: np.dtype) -> Tensor | None:
    """The window zero-padded on both sides to ``n_fft`` (a rectangle of ``win_length`` ones when None)."""
    if win_length == n_fft:
        return window
    left = (n_fft - win_length) // 2
    if window is None:
        w = np.zeros(n_fft, dtype=like)
        w[left:left + win_length] = 1
        return wrap(w)
    return _pad(window, {0: (left, n_fft - win_length - left)})


def _overlap_add(frames: Tensor, length: int, hop: int) -> Tensor:
    """The frames ``(channels, n_frames, n)`` summed into signals ``(channels, length)``, frame ``f`` at ``f * hop``."""
    c, f, n = frames._data.shape
    positions = (np.arange(f)[:, None] * hop + np.arange(n)[None, :])[None] + (np.arange(c) * length)[:, None, None]
    return put_region(frames, positions, (c, length))


_NO_WINDOW = (
    "A window was not provided. A rectangular window will be applied,which is known to cause spectral leakage. "
    "Other windows such as tensorlib.hann_window or tensorlib.hamming_window are recommended to reduce spectral "
    "leakage.To suppress this warning and use a rectangular window, explicitly set "
    "`window=tensorlib.ones(n_fft, device=<device>)`."
)


@op(variants="function method")
def stft(input: Tensor, n_fft: int, hop_length: int | None = None, win_length: int | None = None,
         window: Tensor | None = None, center: bool = True, pad_mode: str = "reflect", normalized: bool = False,
         onesided: bool | None = None, return_complex: bool | None = None,
         align_to_window: bool | None = None) -> Tensor:
    """The short-time Fourier transform: the spectra ``(n_fft // 2 + 1 or n_fft, n_frames)`` of windowed frames.

    Frames of ``n_fft`` samples, ``hop_length`` apart (``n_fft // 4``), are multiplied by ``window`` (centred in
    ``n_fft`` when ``win_length`` is shorter) and transformed; ``center`` pads the signal by ``n_fft // 2`` on each
    side first (``pad_mode``: ``"reflect"``, ``"constant"``, ``"replicate"``, ``"circular"``). ``normalized`` scales
    by ``n_fft ** -0.5``; ``onesided`` keeps the non-negative frequencies (the default for real inputs and windows).
    Real inputs require ``return_complex``; ``False`` gives torch's deprecated real view with a last dim of 2.
    """
    x = tensor_arg(input, "stft")
    nfft = _as_int(n_fft)
    if nfft is None:
        raise TypeError(f"stft(): argument 'n_fft' (position 2) must be int, not {type(n_fft).__name__}")
    if center and align_to_window is not None:
        raise RuntimeError("stft align_to_window should only be set when center = false")
    if window is not None:
        tensor_arg(window, "stft", "window", 5)
    if center:
        ndim = x._data.ndim
        shape = x._data.shape
        x = _signal_pad(reshape(x, (1,) * (3 - ndim) + shape), nfft // 2, pad_mode)
        x = reshape(x, x._data.shape[-ndim:] if ndim else x._data.shape)
    complex_input = x._data.dtype.kind == "c" or (window is not None and window._data.dtype.kind == "c")
    rc = complex_input if return_complex is None else bool(return_complex)
    if not rc:
        if return_complex is None:
            raise RuntimeError(
                "stft requires the return_complex parameter be given for real inputs, and will further require that "
                "return_complex=True in a future PyTorch release."
            )
        warnings.warn(
            "stft with return_complex=False is deprecated. In a future pytorch release, stft will return complex "
            "tensors for all inputs, and return_complex=False will raise an error.\nNote: you can still call "
            "tensorlib.view_as_real on the complex output to recover the old return format.", UserWarning, stacklevel=3,
        )
    if window is None:
        warnings.warn(_NO_WINDOW, UserWarning, stacklevel=3)
    hop = nfft >> 2 if hop_length is None else hop_length
    win = nfft if win_length is None else win_length
    a = x._data

    def fail(message: str) -> RuntimeError:
        return RuntimeError(
            f"stft({_type_repr(x)}{_sizes(a.shape)}, n_fft={nfft}, hop_length={hop}, win_length={win}, "
            f"window={_window_repr(window)}, normalized={int(bool(normalized))}, onesided={_opt(onesided)}, "
            f"return_complex={_opt(return_complex)}, align_to_window={_opt(align_to_window)}) : {message}"
        )

    if a.dtype.kind not in "fc":
        raise fail("expected a tensor of floating point or complex values")
    if a.ndim not in (1, 2):
        raise fail("expected a 1D or 2D tensor")
    frames_in = unsqueeze(x, 0) if a.ndim == 1 else x
    length = frames_in._data.shape[1]
    if nfft <= 0 or nfft > length:
        raise fail(f"expected 0 < n_fft < {length}, but got n_fft={win}")
    if hop <= 0:
        raise fail(f"expected hop_length > 0, but got hop_length={hop}")
    if win <= 0 or win > nfft:
        raise fail(f"expected 0 < win_length <= n_fft, but got win_length={win}")
    if window is not None and (window._data.ndim != 1 or window._data.shape[0] != win):
        raise fail(f"expected a 1D window tensor of size equal to win_length={win}, but got window with size "
                   f"{_sizes(window._data.shape)}")
    window_ = _centered_window(window, win, nfft, a.dtype)
    if align_to_window and win < nfft:
        # frames are placed so that their windows, not their starts, are hop_length apart from the first sample
        left = (nfft - win) // 2
        frames_in = _pad(frames_in, {1: (left, nfft - win - left)})
    frames = unfold(frames_in, 1, nfft, hop)
    if window_ is not None:
        frames = mul(frames, window_)
    complex_fft = frames._data.dtype.kind == "c"
    sided = (not complex_fft) if onesided is None else bool(onesided)
    mode = BY_ROOT_N if normalized else NONE
    if complex_fft:
        if sided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        out = _fft_c2c(frames, (2,), mode, True)
    else:
        out = _fft_r2c(frames, (2,), mode, sided)
    out = transpose(out, 1, 2)
    if a.ndim == 1:
        out = squeeze(out, 0)
    return out if rc else view_as_real(out)


@op(variants="function method")
def istft(input: Tensor, n_fft: int, hop_length: int | None = None, win_length: int | None = None,
          window: Tensor | None = None, center: bool = True, normalized: bool = False, onesided: bool | None = None,
          length: int | None = None, return_complex: bool = False) -> Tensor:
    """The inverse of :func:`stft`: inverse transforms of the frames, windowed, overlap-added, divided by the
    overlap-added squared window (which must not vanish), and cut to ``length``."""
    x = tensor_arg(input, "istft")
    nfft = _as_int(n_fft)
    if nfft is None:
        raise TypeError(f"istft(): argument 'n_fft' (position 2) must be int, not {type(n_fft).__name__}")
    if window is not None:
        tensor_arg(window, "istft", "window", 5)
    hop = nfft >> 2 if hop_length is None else hop_length
    win = nfft if win_length is None else win_length
    if window is None:
        warnings.warn(
            "A window was not provided. A rectangular window will be applied.Please provide the same window used by "
            "stft to make the inversion lossless.To suppress this warning and use a rectangular window, explicitly set "
            "`window=tensorlib.ones(n_fft, device=<device>)`.", UserWarning, stacklevel=3,
        )
    a = x._data
    if a.dtype.kind != "c":
        raise RuntimeError(
            "istft requires a complex-valued input tensor matching the output from stft with return_complex=True."
        )
    real_shape = a.shape + (2,)
    input_dim = len(real_shape)
    if input_dim < 3:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-input_dim}, {input_dim - 1}], but got -3)"
        )
    n_frames, fft_size = real_shape[-2], real_shape[-3]
    expected_len = nfft + hop * (n_frames - 1)

    def fail(message: str) -> RuntimeError:
        return RuntimeError(
            f"istft({_type_repr(x)}{_sizes(a.shape)}, n_fft={nfft}, hop_length={hop}, win_length={win}, "
            f"window={_window_repr(window)}, center={int(bool(center))}, normalized={int(bool(normalized))}, "
            f"onesided={_opt(onesided)}, length={_opt(length)}, return_complex={int(bool(return_complex))}) {message}"
        )

    if a.size == 0:
        raise fail(": input tensor cannot be empty.")
    if input_dim not in (3, 4):
        raise fail(f": expected a tensor with 3 or 4 dimensions of complex, but got {input_dim}")
    sided = (fft_size != nfft) if onesided is None else bool(onesided)
    if sided and nfft // 2 + 1 != fft_size:
        raise fail(": expected the frequency dimension (3rd to the last) of the input tensor to match n_fft / 2 + 1 "
                   f"when onesided=True, but got {fft_size}")
    if not sided and nfft != fft_size:
        raise fail(": expected the frequency dimension (3rd to the last) of the input tensor to match n_fft when "
                   f"onesided=False, but got {fft_size}")
    if not 0 < hop <= win:
        raise fail(": expected 0 < hop_length <= win_length")
    if not 0 < win <= nfft:
        raise fail(": expected 0 < win_length <= n_fft")
    if window is not None and (window._data.ndim != 1 or window._data.shape[0] != win):
        raise fail(": Invalid window shape. window has to be 1D and length of `win_length`")
    real_dtype = _real_of(a.dtype)
    centered = _centered_window(window if window is not None else wrap(np.ones(win, dtype=real_dtype)), win, nfft,
                                real_dtype)
    assert centered is not None
    w = centered
    spec = unsqueeze(x, 0) if a.ndim == 2 else x
    spec = transpose(spec, 1, 2)  # (channels, n_frames, fft_size)
    mode = BY_ROOT_N if normalized else BY_N
    if return_complex:
        if sided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        frames = _fft_c2c(spec, (2,), mode, False)
    else:
        if window is not None and window._data.dtype.kind == "c":
            raise RuntimeError("Complex windows are incompatible with return_complex=False")
        if not sided:
            spec = narrow(spec, -1, 0, nfft // 2 + 1)
        frames = _fft_c2r(spec, (2,), mode, nfft)
    y = _overlap_add(mul(frames, reshape(w, (1, 1, nfft))), expected_len, hop)
    envelope = _overlap_add(expand(reshape(mul(w, w), (1, 1, nfft)), (1, n_frames, nfft)), expected_len, hop)
    start = nfft // 2 if center else 0
    end = start + length if length is not None else (-(nfft // 2) if center else expected_len)
    lo, hi, _ = slice(start, end).indices(expected_len)
    y = narrow(y, 1, lo, max(hi - lo, 0))
    envelope = narrow(envelope, 1, lo, max(hi - lo, 0))
    if envelope._data.size and np.abs(envelope._data).min() < 1e-11:
        raise fail("window overlap add min: 1")
    y = div(y, envelope)
    if a.ndim == 2:
        y = squeeze(y, 0)
    if end > expected_len:
        warnings.warn(
            "The length of signal is shorter than the length parameter. Result is being padded with zeros in the "
            "tail. Please check your center and hop_length settings.", UserWarning, stacklevel=3,
        )
        y = _pad(y, {y._data.ndim - 1: (0, end - expected_len)})
    return y
