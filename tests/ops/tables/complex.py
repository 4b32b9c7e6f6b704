"""Entries of the complex helpers (``view_as_real``, ``complex``, ``polar``, ``conj_physical``, ...) and of the
short-time transforms. ``stft``/``istft`` have no NumPy reference here: ``tests/ops/test_complex.py`` compares
them with torch over their options, and the table runs torch's values, gradcheck and gradgradcheck.
"""

from __future__ import annotations

import numpy as np

from tests.ops.opinfo import Const, forward_only, ints, op, pos, r, s

_rng = np.random.default_rng(20250212)


def cr(*shape: int) -> np.ndarray:
    return np.asarray(_rng.uniform(-2, 2, shape) + 1j * _rng.uniform(-2, 2, shape))


op("view_as_real", [s(cr(2, 3)), s(cr()), s(cr(0, 2))], lambda a: np.stack([a.real, a.imag], -1))
op("view_as_complex", [s(r(2, 3, 2)), s(r(2))], lambda a: a[..., 0] + 1j * a[..., 1])
op("view_as_real_copy", [s(cr(2, 3)), s(cr())], lambda a: np.stack([a.real, a.imag], -1))
# (drawn from this file's generator, so that the shared one gives later tables the samples they had)
forward_only("view_as_complex_copy", [s(Const(cr(2, 3, 2).real))], lambda a: a[..., 0] + 1j * a[..., 1])
op("complex", [s(r(2, 3), r(2, 3)), s(r(2, 1), r(3)), s(r(), r(2))], lambda a, b: a + 1j * b)
op("polar", [s(pos(2, 3), r(2, 3)), s(pos(3, 1), r(4)), s(pos(2), r())], lambda a, b: a * np.exp(1j * b))
op("conj_physical", [s(cr(2, 3)), s(cr())], np.conj)
op("resolve_conj", [s(cr(2, 3)), s(r(3))], lambda a: a)
op("resolve_neg", [s(cr(2, 3)), s(r(3))], lambda a: a)
_REALISH = np.array([1 + 0j, 1 + 1j, -0j, complex(np.nan, 0), complex(0, np.inf)])
forward_only("isreal", [s(_REALISH), s(r(3)), s(ints(4))], np.isreal)

_HANN = np.hanning(10)[1:-1]
op("stft", [
    s(r(16), 8, window=Const(_HANN), return_complex=True),
    s(r(2, 12), 6, 2, 4, pos(4), pad_mode="constant", normalized=True, return_complex=True),
    s(cr(12), 4, 3, window=pos(4), center=False),
    s(r(14), 8, 3, 6, Const(np.hanning(6)), center=False, align_to_window=True, return_complex=False),
], None)
op("istft", [
    s(cr(5, 7), 8, 2, window=Const(_HANN)),
    s(cr(2, 4, 6), 6, 2, 4, pos(4), normalized=True, length=11),
    s(cr(4, 5), 4, 1, window=Const(np.ones(4)), return_complex=True, onesided=False, length=6),
], None)

# bool results: tests/ops/test_complex.py
NOT_IN_TABLE = {"is_conj", "is_neg"}
