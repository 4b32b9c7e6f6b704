"""Vectorised ``erf`` and ``erfc`` for NumPy arrays, within about 1e-15 relative error in float64.

NumPy has no error function, and ``math.erf`` takes one number at a time
(about 120 ns an element through ``np.frompyfunc``). Small arrays still use
it; large ones are computed with array operations, in cache-sized chunks.

``erf(x) = x g(|x|)`` with ``g(x) = erf(x) / x``, a polynomial of low degree on
each of many short segments of ``[0, 6]`` (looked up per element: a handful of
array passes). ``g`` is smooth, even and between 0.16 and 1.13 there, so the
result has the same relative accuracy everywhere, near 0 too; beyond the last
segment ``erf`` rounds to +-1.

``erfc`` needs relative accuracy in its tail, where it is tiny: ``erfc(|x|) = t H(t) exp(-x^2)`` with
``t = 1 / (1 + |x|/2)``, ``H`` on short segments of ``t`` in the same way, and ``exp(-x^2)`` evaluated with
``x^2`` split into an exact head and a small tail, so large arguments keep their relative accuracy;
``erfc(-x) = 2 - erfc(x)``. ``erfcx`` uses ``h(t) = log(erfc(x) exp(x^2) / t)``, one Chebyshev interpolant on
``[1/15, 4/5]``, between ``x = 1/2`` and ``x = 28``.

The segments' polynomials and ``h`` are Chebyshev interpolants computed on first
use from ``math.erf``/``math.erfc`` (and from ``erfc``'s asymptotic series where
``exp(x^2)`` would overflow).
"""

from __future__ import annotations

import functools
import importlib
import math
from typing import Callable

import numpy as np

from ._kernels import clip_ufunc, segment_columns, segment_lookup

_INV_SQRT_PI = 1.0 / math.sqrt(math.pi)
_SMALL = 0.5  # erfcx: below, exp(x^2) erfc(x); above, from h
_LARGE = 28.0  # erfc(28) rounds to 0
# smaller arrays: math.erf / math.erfc element by element are faster than the array passes (measured crossovers:
# erf 190-220 elements; erfc about 250 in single precision, 600 in double, where exp(-x^2) takes more passes)
_ERF_SCALAR_BELOW = 200
_SCALAR_BELOW = 512
_CHUNK = 16384  # elements per pass: the working arrays stay in cache (8,192: 7-15% slower, per-chunk costs)

Interpolant = tuple[float, float, np.ndarray]  # (mid, half-width, power-basis coefficients of the normalised variable)


def _scaled_erfc(x: float) -> float:
    """``erfc(x) * exp(x^2)``, to about an ulp."""
    if x >= 8.0:
        # asymptotic series: sum_n (-1)^n (2n-1)!! / (2x^2)^n / (x sqrt(pi)); its terms fall below 1e-25 first
        term, total, n = 1.0, 1.0, 1
        inv = 1.0 / (2.0 * x * x)
        while abs(term) > 1e-25 * abs(total):
            term *= -(2 * n - 1) * inv
            total += term
            n += 1
        return total * _INV_SQRT_PI / x
    # decimal is imported here, on the first interpolant built: importing it is ~1 ms of ``import tensorlib``
    decimal = importlib.import_module("decimal")
    with decimal.localcontext() as ctx:  # exp(x^2) to more digits than a double holds
        ctx.prec = 40
        d = decimal.Decimal
        return float(d(math.erfc(x)) * (d(x) * d(x)).exp())


def _h(t: float) -> float:
    x = 2.0 * (1.0 / t - 1.0)
    return math.log(_scaled_erfc(x) / t)


def _interpolant(f: Callable[[float], float], lo: float, hi: float, deg: int, tol: float = 2e-16) -> Interpolant:
    """The interpolant of ``f`` on ``[lo, hi]`` at ``deg + 1`` Chebyshev points, in the power basis of the
    normalised variable; the Chebyshev series is cut where it has converged to ``tol`` relative to its largest
    coefficient (later coefficients are rounding noise, or below what the caller needs).

    Each coefficient is one cosine sum, added exactly (``math.fsum``), with the
    angles reduced exactly: NumPy's ``chebinterpolate`` leaves ~1e-15 noise.
    """
    mid, half = (hi + lo) / 2.0, (hi - lo) / 2.0
    n = deg + 1

    def cos_pi(m: int) -> float:  # cos(pi * m / (2n))
        return math.cos(math.pi * (m % (4 * n)) / (2 * n))

    values = [f(mid + half * cos_pi(2 * k + 1)) for k in range(n)]
    coef = [2.0 / n * math.fsum(v * cos_pi(j * (2 * k + 1)) for k, v in enumerate(values)) for j in range(n)]
    coef[0] /= 2.0
    floor = tol * max(abs(c) for c in coef)
    keep = next((j for j in range(1, n - 1) if abs(coef[j]) < floor and abs(coef[j + 1]) < floor), n)
    return mid, half, np.polynomial.chebyshev.cheb2poly(coef[:keep])


@functools.cache
def _tail_interpolant() -> Interpolant:
    """The interpolant of ``h`` (for :func:`erfcx`), built on first use (a few ms)."""
    return _interpolant(_h, 1.0 / (1.0 + _LARGE / 2.0), 1.0 / (1.0 + _SMALL / 2.0), 40)


def _series(piece: Interpolant, v: np.ndarray) -> np.ndarray:
    """The interpolant at ``v`` (overwritten): Horner's rule on its power-basis form.

    The power-basis coefficients of these series stay small (their absolute
    sum is below 1.5), so Horner's rule is as accurate as Clenshaw's
    recurrence, with two array operations a term instead of three.
    """
    mid, half, coef = piece
    v -= mid
    v /= half
    r = np.full_like(v, coef[-1])
    for c in coef[-2::-1]:
        r *= v
        r += c
    return r


def _exp_minus_square_plus(x: np.ndarray, extra: np.ndarray) -> np.ndarray:
    """``exp(extra - x*x)`` without the rounding error of ``x*x`` (which ``exp`` would magnify by ``x^2``)."""
    head = np.round(x * 4096.0)
    head /= 4096.0  # 12 fractional bits: head*head is exact for |x| < 2**14
    tail = x - head
    tail *= x + head
    extra -= tail
    np.exp(extra, out=extra)
    head *= head
    np.negative(head, out=head)
    np.exp(head, out=head)
    head *= extra
    return head


def _chunked(
    kernel: Callable[[np.ndarray, np.ndarray, bool], None], x: np.ndarray, single: bool, as_double: bool = True
) -> np.ndarray:
    """``kernel`` over ``x`` flattened, a cache-sized chunk at a time, into a new float64 array of ``x``'s shape;
    ``as_double``: the chunks are converted to float64 first (else the kernel converts them as it reads them)."""
    a = np.ascontiguousarray(x, dtype=np.float64 if as_double else None)
    flat = a.reshape(-1)
    out = np.empty(flat.shape, np.float64)
    for start in range(0, flat.size, _CHUNK):
        kernel(flat[start : start + _CHUNK], out[start : start + _CHUNK], single)
    return out.reshape(np.shape(x))  # ascontiguousarray makes 0-d inputs 1-d


# -- erf on short segments ------------------------------------------------------------------------------------------

# (segments per unit, polynomial degree, last segment's centre) for double and for single precision results:
# 1 - erf(6) = 2e-17 is below half a double's spacing at 1, and 1 - erf(5) = 1.5e-12 far below a float32's. The
# degrees are the lowest that keep the interpolants' error below 1e-16 and 1e-11 (relative).
_SEGMENTS = {False: (256, 4, 6.0), True: (128, 3, 5.0)}
def _erf_over_x(x: float) -> float:
    return math.erf(x) / x if x else 2.0 * _INV_SQRT_PI


def _erf_over_x_array(x: np.ndarray) -> np.ndarray:
    return np.array([_erf_over_x(abs(float(v))) for v in x.reshape(-1)]).reshape(x.shape)


@functools.cache
def _segments(single: bool) -> tuple[int, float, tuple[np.ndarray, ...]]:
    """``(per_unit, top, columns)`` of ``g(x) = erf(x) / x`` on ``[0, top]`` (see :func:`segment_columns`)."""
    per_unit, degree, top = _SEGMENTS[single]
    columns = segment_columns(_erf_over_x_array, per_unit, degree, round(top * per_unit) + 1)
    return per_unit, top, columns


def _erf_kernel(a: np.ndarray, out: np.ndarray, single: bool) -> None:
    """``erf(a)`` into ``out`` (float64), for ``a`` of any real dtype: ``x g(|x|)`` from the segment ``|x|`` is in."""
    per_unit, top, columns = _segments(single)
    xs = clip_ufunc(a, -top, top, dtype=np.float64)  # erf is +-1 (rounded) beyond the last segment; NaN stays
    np.multiply(segment_lookup(columns, per_unit, np.abs(xs)), xs, out=out)


# erfc(|x|) = t H(t) exp(-x^2) with t = 1 / (1 + |x|/2): H(t) = erfcx(x) / t is smooth on (0, 1] (the variable maps
# [0, inf) there, with the slowly varying tail on a short interval), interpolated on segments of t as erf's g is; the
# factor exp(-x^2) carries the tail's relative accuracy. (segments per unit, degree) for double and single precision:
# the lowest degrees with errors below an ulp and below 1e-11.
_ERFC_SEGMENTS = {False: (64, 6), True: (128, 3)}


def _erfc_over_t(t: np.ndarray) -> np.ndarray:
    """``erfcx(x) / t`` at ``x = 2 (1/t - 1)``, elementwise, to about an ulp. Segment 0's nodes (around ``t = 0``)
    read ``t = 1/512``, below every other segment's: that segment is never looked up, as ``|x|`` is clipped to 28."""
    out = np.empty(t.shape)
    for index, v in np.ndenumerate(t):
        u = max(float(v), 1.0 / 512.0)
        out[index] = _scaled_erfc(2.0 * (1.0 / u - 1.0)) / u
    return out


@functools.cache
def _erfc_segments(single: bool) -> tuple[int, tuple[np.ndarray, ...]]:
    per_unit, degree = _ERFC_SEGMENTS[single]
    return per_unit, segment_columns(_erfc_over_t, per_unit, degree, per_unit + 1)


def _erfc_kernel(a: np.ndarray, out: np.ndarray, single: bool) -> None:
    """``erfc(a)`` into ``out`` (float64), for ``a`` of any real dtype."""
    per_unit, columns = _erfc_segments(single)
    ax = np.abs(a, dtype=np.float64)
    clip_ufunc(ax, 0.0, _LARGE, out=ax)  # erfc(28) rounds to 0; NaN stays
    t = ax * 0.5
    t += 1.0
    np.reciprocal(t, out=t)
    r = segment_lookup(columns, per_unit, t)
    r *= t
    if single:  # x * x is exact for float32 and float16 inputs
        e = np.multiply(ax, ax)
        np.negative(e, out=e)
        np.exp(e, out=e)
    else:
        e = _exp_minus_square_plus(ax, np.zeros_like(ax))
    r *= e
    # erfc(-x) = 2 - erfc(x): r s + (1 - s) with s the sign of x (exact, no mask)
    sign = np.copysign(1.0, a, dtype=np.float64)
    r *= sign
    sign -= 1.0
    np.subtract(r, sign, out=out)


_erf_scalar = np.frompyfunc(math.erf, 1, 1)
_erfc_scalar = np.frompyfunc(math.erfc, 1, 1)


def erf(x: np.ndarray, single: bool = False) -> np.ndarray:
    """The error function, elementwise, as float64; ``single``: good enough to round to float32 (1e-10)."""
    if np.size(x) < _ERF_SCALAR_BELOW:
        return np.asarray(_erf_scalar(np.asarray(x, dtype=np.float64)), dtype=np.float64)
    return _chunked(_erf_kernel, x, single, as_double=False)


def erfc(x: np.ndarray, single: bool = False) -> np.ndarray:
    """The complementary error function, elementwise, as float64; ``single`` as for :func:`erf`."""
    if np.size(x) < _SCALAR_BELOW:
        return np.asarray(_erfc_scalar(np.asarray(x, dtype=np.float64)), dtype=np.float64)
    return _chunked(_erfc_kernel, x, single, as_double=False)


# erfinv(y) = y R(s) with s = sqrt(-log(1 - |y|)): R is smooth and even in s (y = 1 - exp(-s^2) is analytic in s), from
# sqrt(pi)/2 at 0 to about s far out; up to s = 27.3, where 1 - |y| is the smallest subnormal (ndtri's tail reads it
# there). Segments of 1/128 with quintics: near 0, R - R(0) grows as s^4 - s^6, whose sixth-degree part quintics on
# segments of 1/64 miss by up to 16 units in the last place (at 1/128: 64 times less); the table is 168 KB.
_ERFINV_SEGMENTS = (128, 5, 27.3)
_SQRT_PI_HALF = math.sqrt(math.pi) / 2.0


def _erfinv_over_y(s: np.ndarray) -> np.ndarray:
    """``erfinv(y) / y`` for ``y = 1 - exp(-s^2)``, elementwise, to a double's precision.

    Newton's method from a closed-form guess good to about 2e-3 (after Winitzki): four steps, each squaring the
    error. For ``y >= 1/2`` it solves ``log erfc(x) = -s^2`` (as ``log erfcx(x) - x^2``: no underflow), which
    holds ``1 - y`` to relative precision however small it is.
    """
    s = np.abs(s)
    square = s * s
    y = -np.expm1(-square)
    tail = y >= 0.5
    with np.errstate(divide="ignore", invalid="ignore"):
        ln = np.where(tail, np.log1p(y) - square, np.log1p(-y * y))  # log(1 - y^2)
        k = 0.147
        first = 2.0 / (math.pi * k) + ln / 2.0
        x = np.sqrt(np.sqrt(first * first - ln / k) - first)
        for _ in range(4):
            near = x - (erf(x) - y) / (2.0 * _INV_SQRT_PI * np.exp(-x * x))
            scaled = erfcx(x)
            far = x + (np.log(scaled) - x * x + square) * scaled * _SQRT_PI_HALF
            x = np.where(tail, far, near)
        return np.where(s == 0.0, _SQRT_PI_HALF, x / y)


@functools.cache
def _erfinv_segments() -> tuple[int, tuple[np.ndarray, ...]]:
    per_unit, degree, top = _ERFINV_SEGMENTS
    return per_unit, segment_columns(_erfinv_over_y, per_unit, degree, round(top * per_unit) + 1)


def _erfinv_from_log(log_complement: np.ndarray, magnitude: np.ndarray, sign: np.ndarray, out: np.ndarray) -> None:
    """``erfinv(y)`` into ``out`` from ``log(1 - |y|)`` (overwritten), ``|y|`` times any factor (``magnitude``) and
    an array whose signs ``y`` takes; +-inf where ``1 - |y|`` is 0, NaN where its log is."""
    per_unit, columns = _erfinv_segments()
    s = np.negative(log_complement, out=log_complement)
    np.sqrt(s, out=s)
    r = segment_lookup(columns, per_unit, s)
    r *= magnitude
    np.copysign(r, sign, out=r)
    np.copyto(out, np.where(s == np.inf, np.copysign(np.inf, sign), r))


def _erfinv_kernel(a: np.ndarray, out: np.ndarray, single: bool) -> None:
    ay = np.abs(a, dtype=np.float64)
    _erfinv_from_log(np.log1p(-ay), ay, a, out)  # log(1 - |y|): NaN beyond 1, -inf at 1


def erfinv(y: np.ndarray) -> np.ndarray:
    """The inverse error function, elementwise, as float64: ``erf(erfinv(y)) == y`` on ``(-1, 1)``;
    ``+-inf`` at ``+-1``, nan outside ``[-1, 1]``.

    ``y R(s)`` with ``s = sqrt(-log(1 - |y|))`` and ``R`` interpolated on short segments of ``s`` (see
    :data:`_ERFINV_SEGMENTS`): one table lookup per element, relative accuracy about 2e-15 (``1 - |y|`` to 5e-14
    relative towards 1, where ``log1p`` reads it exactly).
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        return _chunked(_erfinv_kernel, y, False, as_double=False)


# -- erfcx, log_ndtr, ndtri ---------------------------------------------------------------------------

_INV_SQRT2 = 0.7071067811865476  # torch's frac_sqrt_2: the same rounding of x / sqrt(2)


def _erfcx_nonnegative(x: np.ndarray) -> np.ndarray:
    """``exp(x^2) erfc(x)`` for ``x >= 0`` (and +inf, where it is 0)."""
    out = np.empty_like(x)
    small = x < _SMALL
    if small.any():
        v = x[small]
        out[small] = np.exp(v * v) * erfc(v)
    mid = ~small & (x <= _LARGE)
    if mid.any():
        t = 1.0 / (1.0 + 0.5 * x[mid])
        out[mid] = t * np.exp(_series(_tail_interpolant(), t.copy()))
    far = x > _LARGE
    if far.any():
        v = x[far]
        with np.errstate(over="ignore"):
            inv = 1.0 / (2.0 * v * v)  # sum_n (-1)^n (2n-1)!! / (2x^2)^n, 8 terms suffice past 28
        total = np.ones_like(v)
        term = np.ones_like(v)
        for n in range(1, 9):
            term = term * (-(2 * n - 1) * inv)
            total += term
        out[far] = np.where(v > 5e7, 1.0, total) * _INV_SQRT_PI / v
    return out


def erfcx(x: np.ndarray) -> np.ndarray:
    """The scaled complementary error function ``exp(x^2) erfc(x)``, elementwise, as float64 (inf below -26.7,
    where it overflows)."""
    a = np.asarray(x, dtype=np.float64)
    out = np.full(a.shape, np.nan)
    with np.errstate(over="ignore", invalid="ignore"):
        pos = a >= 0
        if pos.any():
            out[pos] = _erfcx_nonnegative(a[pos])
        neg = a < 0
        if neg.any():
            v = a[neg]
            two_exp = 2.0 * np.exp(v * v)  # erfcx(x) = 2 exp(x^2) - erfcx(-x), as torch computes it
            r = np.where(v < -6.1, two_exp, two_exp - _erfcx_nonnegative(-np.maximum(v, -6.1)))
            out[neg] = np.where(v < -26.7, np.inf, r)
    return out


def log_ndtr(x: np.ndarray) -> np.ndarray:
    """``log`` of the standard normal distribution function, accurate in both tails."""
    a = np.asarray(x, dtype=np.float64)
    t = a * _INV_SQRT2
    out = np.empty_like(a)
    with np.errstate(divide="ignore", invalid="ignore"):
        low = a < -1.0
        if low.any():
            v = t[low]
            out[low] = np.log(erfcx(-v) / 2.0) - v * v
        high = ~low
        if high.any():
            out[high] = np.log1p(-erfc(t[high]) / 2.0)
    return out


def _ndtri_kernel(a: np.ndarray, out: np.ndarray, single: bool) -> None:
    q = np.minimum(a, 1.0 - a)  # the smaller tail, exactly (1 - p is exact for p >= 1/2)
    magnitude = 1.0 - 2.0 * q  # |2p - 1|
    magnitude *= math.sqrt(2.0)
    # log(1 - |2p - 1|) = log(2q), however small q is; NaN outside [0, 1], -inf at 0 and 1
    _erfinv_from_log(np.log(2.0 * q), magnitude, a - 0.5, out)


def ndtri(p: np.ndarray) -> np.ndarray:
    """The inverse of the standard normal distribution function: -inf at 0, inf at 1, nan outside ``[0, 1]``.

    ``sqrt(2) erfinv(2p - 1)``, with ``erfinv``'s segments read at ``s = sqrt(-log(2q))`` for the smaller tail
    ``q = min(p, 1 - p)`` (exact), so that the relative accuracy holds down to the smallest subnormal ``p``.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        return _chunked(_ndtri_kernel, p, False)
