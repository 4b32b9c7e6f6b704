"""``tensorlib.fft``'s entries in the op table, with ``np.fft`` as the reference.

Complex samples are differentiable leaves like float ones (gradcheck and gradgradcheck in complex128). NumPy has
no ``hfftn``/``ihfftn``: their references are ``irfftn`` of the conjugate and the conjugate of ``rfftn`` with the
other direction's normalisation, which is how they are defined. ``fftfreq`` and ``rfftfreq`` take no tensor (only
modes see them): ``tests/ops/test_fft.py`` compares them with torch, with the transforms' errors, ``out=``,
0-dim, empty and non-contiguous inputs and single precision.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tests.ops.opinfo import op, r, s

_rng = np.random.default_rng(20250211)


def cr(*shape: int) -> np.ndarray:
    """Complex128 values with both parts uniform in [-2, 2)."""
    return np.asarray(_rng.uniform(-2, 2, shape) + 1j * _rng.uniform(-2, 2, shape))


_SWAP = {None: "forward", "backward": "forward", "forward": "backward", "ortho": "ortho"}


def _hfftn(a: np.ndarray, s: Any = None, dim: Any = None, norm: str | None = None) -> np.ndarray:
    return np.fft.irfftn(np.conj(a), s, dim, norm=_SWAP[norm])


def _ihfftn(a: np.ndarray, s: Any = None, dim: Any = None, norm: str | None = None) -> np.ndarray:
    return np.conj(np.fft.rfftn(a, s, dim, norm=_SWAP[norm]))


def _np1(fn: Any) -> Any:
    """A NumPy transform with torch's parameter names (``n``, ``dim``, ``norm``)."""
    return lambda a, n=None, dim=-1, norm=None: fn(a, n, dim, norm)


def _npn(fn: Any, dims: Any = None) -> Any:
    def ref(a: np.ndarray, s: Any = None, dim: Any = dims, norm: str | None = None) -> np.ndarray:
        if s is not None and dim is None:  # torch's default: the last len(s) dims
            dim = tuple(range(a.ndim - len(s), a.ndim))
        return fn(a, s, dim, norm)

    return ref


# one-dimensional: both kinds of input, a cut and a padded length, another dim, every norm
_C2C_SAMPLES = [
    s(r(3, 5)), s(cr(3, 5)), s(cr(6), 4), s(cr(2, 4), 6, 0), s(cr(5), norm="ortho"), s(r(2, 3), dim=0, norm="forward"),
    s(cr(4), norm="backward"),
]
op("fft.fft", _C2C_SAMPLES, _np1(np.fft.fft))
op("fft.ifft", _C2C_SAMPLES, _np1(np.fft.ifft))
_R2C_SAMPLES = [s(r(3, 5)), s(r(6), 4), s(r(2, 5), 7, 0), s(r(5), norm="ortho"), s(r(4, 2), dim=0, norm="forward")]
op("fft.rfft", _R2C_SAMPLES, _np1(np.fft.rfft))
op("fft.ihfft", _R2C_SAMPLES, _np1(np.fft.ihfft))
# to a real signal: even and odd output lengths (the Nyquist term is there or not)
_C2R_SAMPLES = [
    s(cr(3, 4)), s(cr(4), 5), s(cr(5), 4), s(cr(3, 2), 5, 0), s(r(2, 4)), s(cr(4), norm="ortho"),
    s(cr(2, 3), dim=0, norm="forward"),
]
op("fft.irfft", _C2R_SAMPLES, _np1(np.fft.irfft))
op("fft.hfft", _C2R_SAMPLES, _np1(np.fft.hfft))

# N-dimensional
_FFTN_SAMPLES = [
    s(r(3, 4)), s(cr(2, 3, 4)), s(cr(3, 4), (2, 5)), s(cr(2, 3, 2), None, (0, 2)), s(cr(3, 4), (4, 3), (1, 0), "ortho"),
    s(r(2, 3), norm="forward"),
]
op("fft.fftn", _FFTN_SAMPLES, _npn(np.fft.fftn))
op("fft.ifftn", _FFTN_SAMPLES, _npn(np.fft.ifftn))
_FFT2_SAMPLES = [s(r(3, 4)), s(cr(2, 3, 4)), s(cr(3, 4), (2, 5)), s(cr(3, 2, 2), dim=(0, 2), norm="ortho"),
                 s(r(2, 3), norm="forward")]
op("fft.fft2", _FFT2_SAMPLES, _npn(np.fft.fft2, (-2, -1)))
op("fft.ifft2", _FFT2_SAMPLES, _npn(np.fft.ifft2, (-2, -1)))
_RFFTN_SAMPLES = [s(r(3, 4)), s(r(2, 3, 4)), s(r(3, 4), (2, 5)), s(r(2, 3, 2), None, (0, 1)),
                  s(r(3, 4), (4, 3), (1, 0), "ortho"), s(r(2, 3), norm="forward")]
op("fft.rfftn", _RFFTN_SAMPLES, _npn(np.fft.rfftn))
op("fft.ihfftn", _RFFTN_SAMPLES, _npn(_ihfftn))
_RFFT2_SAMPLES = [s(r(3, 4)), s(r(2, 3, 4)), s(r(3, 4), (2, 5)), s(r(3, 2, 2), dim=(0, 2), norm="ortho")]
op("fft.rfft2", _RFFT2_SAMPLES, _npn(np.fft.rfft2, (-2, -1)))
op("fft.ihfft2", _RFFT2_SAMPLES, _npn(_ihfftn, (-2, -1)))
_IRFFTN_SAMPLES = [s(cr(3, 4)), s(cr(2, 3, 3)), s(cr(3, 4), (2, 5)), s(cr(2, 3, 2), None, (0, 1)),
                   s(cr(3, 4), (4, 3), (1, 0), "ortho"), s(r(2, 3), norm="forward")]
op("fft.irfftn", _IRFFTN_SAMPLES, _npn(np.fft.irfftn))
op("fft.hfftn", _IRFFTN_SAMPLES, _npn(_hfftn))
_IRFFT2_SAMPLES = [s(cr(3, 4)), s(cr(2, 3, 3)), s(cr(3, 4), (2, 5)), s(cr(3, 2, 2), dim=(0, 2), norm="ortho")]
op("fft.irfft2", _IRFFT2_SAMPLES, _npn(np.fft.irfft2, (-2, -1)))
op("fft.hfft2", _IRFFT2_SAMPLES, _npn(_hfftn, (-2, -1)))

_SHIFT_SAMPLES = [s(r(4, 5)), s(cr(3, 4)), s(r(4, 5), 1), s(r(2, 3, 5), (0, -1)), s(cr(5), [0, 0])]
op("fft.fftshift", _SHIFT_SAMPLES, lambda a, dim=None: np.fft.fftshift(a, dim))
op("fft.ifftshift", _SHIFT_SAMPLES, lambda a, dim=None: np.fft.ifftshift(a, dim))
