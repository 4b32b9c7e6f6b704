"""The gamma family for NumPy float64 arrays: ``lgamma``, ``digamma``, ``trigamma``, ``polygamma``, the Hurwitz
``zeta`` and the regularised incomplete gamma functions ``igamma`` / ``igammac``.

Every kernel takes and returns float64 arrays (callers cast), works elementwise on any shape, and gives torch's
values at the special points (poles, infinities, nan). Where torch's own algorithm decides the result beyond
rounding (its ``trigamma`` keeps four terms of the asymptotic series, so it is good to about 1e-9 near 0.5; its
``zeta`` stops on the first negligible term) the same steps are taken, so the two agree to rounding; elsewhere
the methods are chosen for accuracy:

* ``lgamma``: Stirling's series from 8 up; below, short segments of ``lgamma(x) / (x - s)`` (``s`` the zero at 1
  or 2 nearby, or 0), so the zeros keep their relative accuracy (within 3 ulps of the exact values); the Taylor
  series of ``lgamma(1 + z)`` (whose coefficients are ``zeta(k) / k``) on ``(-1/2, 0)``; the reflection formula
  below.
* ``digamma``: reflection below 0, one step of the recurrence below 1, short segments on ``[1, 10]``, the
  asymptotic series above.
* ``zeta(x, q)``: direct summation up to ``q + n > 9``, then the Euler-Maclaurin tail.
* ``igamma``/``igammac``: the power series, the continued fraction and the series of ``Q`` for small ``x``,
  each where it converges best, with ``x^a e^-x / Gamma(a)`` computed from ``log1p(t) - t`` near ``x = a``.

The constants (Bernoulli numbers, ``zeta(k) - 1``) are computed here, once, from their definitions.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction

import numpy as np

from ._kernels import clip_ufunc, segment_columns, segment_horner, segment_index, segment_lookup, segment_offsets

MACHEP = 1.11022302462515654042e-16  # 2**-53
EULER = 0.57721566490153286061
_LOG_2PI_HALF = 0.5 * math.log(2.0 * math.pi)


# -- constants -------------------------------------------------------------------------------------


@functools.cache
def bernoulli(n_max: int = 40) -> tuple[Fraction, ...]:
    """``B_0 .. B_n_max`` (with ``B_1 = -1/2``), exactly, from ``sum_{j<=m} C(m+1, j) B_j = 0``."""
    b = [Fraction(1)]
    for m in range(1, n_max + 1):
        total = Fraction(0)
        for j in range(m):
            total += math.comb(m + 1, j) * b[j]
        b.append(-total / (m + 1))
    return tuple(b)


@functools.cache
def _stirling() -> np.ndarray:
    """``B_2k / (2k (2k-1))`` for k = 1..10: the terms of Stirling's series in ``1 / x^(2k-1)``."""
    b = bernoulli()
    return np.array([float(b[2 * k] / (2 * k * (2 * k - 1))) for k in range(1, 11)])


@functools.cache
def _digamma_tail() -> np.ndarray:
    """``B_2k / 2k`` for k = 7..1 (highest first): the asymptotic series of digamma in ``1 / x^2``."""
    b = bernoulli()
    return np.array([float(b[2 * k] / (2 * k)) for k in range(7, 0, -1)])


@functools.cache
def _euler_maclaurin() -> np.ndarray:
    """``(2k)! / B_2k`` for k = 1..12: the divisors of the Euler-Maclaurin terms of ``zeta``."""
    b = bernoulli()
    return np.array([float(math.factorial(2 * k) / b[2 * k]) for k in range(1, 13)])


@functools.cache
def _lgamma1p_coefficients() -> np.ndarray:
    """``(-1)^k (zeta(k) - 1) / k`` for k = 2..40 (the Taylor coefficients of ``lgamma(1 + z)`` less
    those of ``z - log(1 + z)``), highest first."""
    ks = np.arange(2, 41, dtype=np.float64)
    zm1 = _zeta_raw(ks, np.full_like(ks, 2.0))  # zeta(k, 2) = zeta(k) - 1
    return (np.where(ks % 2 == 0, 1.0, -1.0) * zm1 / ks)[::-1].copy()


# -- helpers ---------------------------------------------------------------------------------------


def _horner(coef: np.ndarray, z: np.ndarray) -> np.ndarray:
    """``sum coef[i] z^(n-1-i)`` (highest power first)."""
    r = np.full_like(z, coef[0])
    for c in coef[1:]:
        r *= z
        r += c
    return r


def sin_pi_abs(x: np.ndarray) -> np.ndarray:
    """``|sin(pi x)|``, with the argument reduced exactly (0 at the integers)."""
    ax = np.abs(x)
    f = ax - np.floor(ax)
    return np.sin(np.pi * np.minimum(f, 1.0 - f))


def stirling_correction(x: np.ndarray) -> np.ndarray:
    """``lgamma(x) - ((x - 1/2) log x - x + log(2 pi) / 2)`` for ``x >= 8``."""
    inv = 1.0 / x
    return _horner(_stirling()[::-1], inv * inv) * inv


def _lgamma1p(z: np.ndarray) -> np.ndarray:
    """``lgamma(1 + z)`` for ``|z| <= 1/2``, to full relative accuracy (it vanishes at 0)."""
    poly = _horner(_lgamma1p_coefficients(), z) * z * z
    return poly + (z - np.log1p(z)) - EULER * z


# lgamma on [1/2, 8] from short segments (see ``_kernels.segment_columns``): (segments per unit, degree, top). On
# segment k the table holds ``lgamma(x) / (x - s_k)``, ``s_k`` 1 below 3/2, 2 below 5/2 and 0 above, so that the
# zeros at 1 and 2 keep their relative accuracy (``x - s_k`` is exact) and the result is one product. Octics on
# segments of 1/64 keep the interpolation error under 1e-17 relatively (the singularity nearest is 0, half a unit
# from the table's start). The node values, correctly rounded, are stored (``_lgamma_nodes``): computing them to 35
# digits takes a quarter of a second.
_LGAMMA_SEGMENTS = (64, 7, 8.0)


def lgamma_shifts(per_unit: int, rows: int) -> np.ndarray:
    """Each segment's ``s_k``: the zero of lgamma its table value is divided by (0: none)."""
    centres = np.arange(rows) / per_unit
    return np.where(centres < 1.5, 1.0, np.where(centres < 2.5, 2.0, 0.0))


def lgamma_node_values(per_unit: int, degree: int, rows: int, shifts: np.ndarray) -> np.ndarray:
    """``lgamma(x) / (x - s_k)`` at the interpolation points of each segment (``(rows, degree + 1)``), to 35
    significant digits, rounded once: lgamma from Stirling's series at ``x + 24`` and the recurrence down, in
    decimal arithmetic. The points are taken exactly where the interpolants put them, ``(k + v_j) / per_unit``, not
    at their nearest doubles: lgamma's slope would turn that rounding into several ulps of the table."""
    from decimal import Decimal, localcontext  # (only to make or check the stored table)

    offsets = segment_offsets(degree)
    with localcontext() as ctx:
        ctx.prec = 40
        b = bernoulli()
        terms = [Decimal(b[2 * k].numerator) / Decimal(b[2 * k].denominator * 2 * k * (2 * k - 1))
                 for k in range(1, 13)]
        half_log_2pi = (2 * Decimal("3.14159265358979323846264338327950288419716939937510582097")).ln() / 2
        out = np.empty((rows, len(offsets)))
        for k in range(rows):
            s = Decimal(float(shifts[k]))
            for j, v in enumerate(offsets):
                x = max((Decimal(k) + Decimal(float(v))) / per_unit, Decimal("0.25"))  # (the first segments
                prod = Decimal(1)                                      # reach below 1/2, where no lookup goes)
                for n in range(24):
                    prod *= x + n
                y = x + 24
                inv, series, power = 1 / y, Decimal(0), 1 / y
                for c in terms:
                    series += c * power
                    power *= inv * inv
                lg = (y - Decimal("0.5")) * y.ln() - y + half_log_2pi + series - prod.ln()
                out[k, j] = float(lg / (x - s))
        return out


@functools.cache
def _lgamma_segments() -> tuple[int, float, tuple[np.ndarray, ...], np.ndarray]:
    from ._lgamma_nodes import node_values  # the stored table loads with the first call (import cost)

    per_unit, degree, top = _LGAMMA_SEGMENTS
    rows = round(top * per_unit) + 1
    shifts = lgamma_shifts(per_unit, rows)
    stored = node_values()

    def nodes(p: np.ndarray) -> np.ndarray:
        if p.shape != stored.shape:
            raise RuntimeError("internal error: the stored lgamma table does not fit its segments")
        return stored

    return per_unit, top, segment_columns(nodes, per_unit, degree, rows), shifts


def _lgamma_positive(x: np.ndarray) -> np.ndarray:
    """``lgamma`` for ``x > 0`` (NaN carried): one lookup below 8 (below 1/2 at ``x + 1``, less ``log x``),
    Stirling's series above."""
    big = x >= _LGAMMA_SEGMENTS[2]
    n_big = int(np.count_nonzero(big))
    if n_big == x.size:
        return _lgamma_stirling(x)
    per_unit, top, columns, shifts = _lgamma_segments()
    small = x < 0.5
    any_small = bool(small.any())
    t = np.where(small, x + 1.0, x) if any_small else x
    k, u = segment_index(per_unit, clip_ufunc(t, 0.5, top))
    r = segment_horner(columns, k, u)
    r *= t - np.take(shifts, k, mode="clip")
    r += 0.0  # lgamma(1) and lgamma(2) are +0, as torch's (the product's sign is the table's)
    if any_small:
        r = np.where(small, r - np.log(x), r)
    if n_big:
        r[big] = _lgamma_stirling(x[big])
    return r


def _lgamma_stirling(v: np.ndarray) -> np.ndarray:
    """``lgamma`` for ``v >= 8`` by Stirling's series."""
    return (v - 0.5) * np.log(v) - v + _LOG_2PI_HALF + stirling_correction(v)


def lgamma(a: np.ndarray) -> np.ndarray:
    """``log |Gamma(x)|``: inf at the poles (0 and the negative integers) and at +-inf."""
    x = np.asarray(a, dtype=np.float64)
    with np.errstate(all="ignore"):
        # the usual case, every element positive and finite: no masks (NumPy 2.5's stubs have no overload for
        # these calls, 2.4's do; the ignores hold for both)
        if (x.size and np.minimum.reduce(x, axis=None) > 0  # type: ignore[call-overload, unused-ignore]
                and np.maximum.reduce(x, axis=None) < np.inf):  # type: ignore[call-overload, unused-ignore]
            return _lgamma_positive(x)
    out = np.full(x.shape, np.inf)
    with np.errstate(all="ignore"):
        out[np.isnan(x)] = np.nan
        finite = np.isfinite(x)
        pos = finite & (x > 0)
        if pos.any():
            out[pos] = _lgamma_positive(x[pos])
        near = finite & (x < 0) & (x > -0.5)  # Gamma(x) = Gamma(1 + x) / x
        if near.any():
            v = x[near]
            out[near] = _lgamma1p(v) - np.log(-v)
        neg = finite & (x <= -0.5) & (x != np.floor(x))
        if neg.any():
            v = x[neg]
            out[neg] = math.log(math.pi) - np.log(sin_pi_abs(v)) - _lgamma_positive(1.0 - v)
    return out


# -- digamma, trigamma, polygamma ------------------------------------------------------------------

# digamma on [1, 10] from short segments (see ``_kernels.segment_columns``): (segments per unit, degree, top); the
# asymptotic series above, one step of the recurrence below 1, the reflection below 0. Octics on segments of 1/32
# keep the interpolation error under 1e-17 (the poles nearest [1, 10] are at 0 and -1).
_DIGAMMA_SEGMENTS = (32, 7, 10.0)


def _digamma_node(x: float) -> float:
    """digamma(x) for ``x >= 0.9`` to within about an ulp (absolutely, near its root): ten steps of the recurrence
    from the asymptotic series at ``x + 10``, the terms added exactly (``math.fsum``)."""
    y = x + 10.0
    inv2 = 1.0 / (y * y)
    terms = [math.log(y), -0.5 / y]
    power = inv2
    for c in _digamma_tail()[::-1]:  # B_2k / 2k for k = 1..7
        terms.append(-c * power)
        power *= inv2
    terms.extend(-1.0 / (x + j) for j in range(10))
    return math.fsum(terms)


@functools.cache
def _digamma_segments() -> tuple[int, float, tuple[np.ndarray, ...]]:
    per_unit, degree, top = _DIGAMMA_SEGMENTS

    def nodes(p: np.ndarray) -> np.ndarray:  # the segments below 1 are never looked up: their nodes read 0.9
        return np.array([_digamma_node(max(float(v), 0.9)) for v in p.reshape(-1)]).reshape(p.shape)

    return per_unit, top, segment_columns(nodes, per_unit, degree, round(top * per_unit) + 1)


def digamma(a: np.ndarray) -> np.ndarray:
    """``d/dx log Gamma(x)``: -inf at +0, inf at -0, nan at the negative integers and -inf.

    On ``[1, 10]`` from short segments (one table lookup per element, 2x faster than the recurrence up to 10 it
    replaces, and within a few ulps); the asymptotic series above; ``digamma(x) = digamma(x + 1) - 1/x`` below 1;
    the reflection formula below 0.
    """
    x = np.asarray(a, dtype=np.float64)
    per_unit, top, columns = _digamma_segments()
    with np.errstate(all="ignore"):
        neg = x < 0
        any_neg = bool(neg.any())
        pos = np.where(neg, 1.0 - x, x) if any_neg else x
        small = pos < 1.0
        any_small = bool(small.any())
        base = np.where(small, pos + 1.0, pos) if any_small else pos  # >= 1 (or NaN, which the lookup carries)
        r = segment_lookup(columns, per_unit, clip_ufunc(base, 1.0, top))
        big = base > top
        if big.any():
            v = base[big]
            z = 1.0 / (v * v)
            r[big] = np.log(v) - 0.5 / v - z * _horner(_digamma_tail(), z)
        if any_small:
            r = np.where(small, r - 1.0 / pos, r)
        if any_neg:
            frac = x - np.trunc(x)
            r = np.where(neg, r - math.pi / np.tan(math.pi * frac), r)
            r = np.where(neg & (x == np.trunc(x)), np.nan, r)
        zero = x == 0
        if zero.any():
            r = np.where(zero, np.copysign(np.inf, -x), r)
    return r


def trigamma(a: np.ndarray) -> np.ndarray:
    """``polygamma(1, x)``, computed as torch does (reflection below 1/2, six steps up, four series terms)."""
    x = np.asarray(a, dtype=np.float64)
    with np.errstate(all="ignore"):
        low = x < 0.5
        s = np.sin(math.pi * x)
        result = np.where(low, -(math.pi * math.pi) / (s * s), 0.0)
        x = np.where(low, 1.0 - x, x)
        for _ in range(6):
            result = result + 1.0 / (x * x)
            x = x + 1.0
        ixx = 1.0 / (x * x)
        result = result + (1.0 + 1.0 / (2.0 * x) + ixx * (1.0 / 6 - ixx * (1.0 / 30 - ixx * (1.0 / 42)))) / x
        return np.where(low, -result, result)


def polygamma(n: int, a: np.ndarray) -> np.ndarray:
    """The ``n``-th derivative of digamma (``n >= 0``)."""
    if n == 0:
        return digamma(a)
    if n == 1:
        return trigamma(a)
    x = np.asarray(a, dtype=np.float64)
    log_factorial = math.lgamma(n + 1.0)
    factor = (1.0 if n % 2 else -1.0) * (math.exp(log_factorial) if log_factorial < 709.0 else math.inf)
    with np.errstate(all="ignore"):
        return factor * zeta(np.full_like(x, n + 1.0), x)


# -- Hurwitz zeta ----------------------------------------------------------------------------------


def _zeta_raw(x: np.ndarray, q: np.ndarray) -> np.ndarray:
    """``sum_k (k + q)^-x`` for ``x > 1`` and ``q`` off the non-positive integers (flat arrays)."""
    s = np.power(q, -x)
    a = q.copy()
    b = np.zeros_like(q)
    done = np.zeros(q.shape, dtype=bool)
    i = 0
    # direct summation: at least 9 terms, and on until q + i > 9 (work only on the unfinished elements)
    idx = np.arange(q.size)
    while idx.size:
        i += 1
        ai = a[idx] + 1.0
        a[idx] = ai
        bi = np.power(ai, -x[idx])
        b[idx] = bi
        si = s[idx] + bi
        s[idx] = si
        small = (-MACHEP * si < bi) & (bi < MACHEP * si)
        done[idx[small]] = True
        keep = ~small & ((i < 9) | (ai <= 9.0))
        idx = idx[keep]
    # Euler-Maclaurin: the integral, half the last term, and the Bernoulli terms while they matter
    rest = ~done
    w = a
    with np.errstate(all="ignore"):
        s = np.where(rest, s + b * w / (x - 1.0) - 0.5 * b, s)
        fac = np.ones_like(q)
        k = 0.0
        for div in _euler_maclaurin():
            fac = fac * (x + k)
            b = b / w
            t = fac * b / div
            s = np.where(rest, s + t, s)
            rest &= ~(np.abs(t / s) < MACHEP)
            if not rest.any():
                break
            k += 1.0
            fac = fac * (x + k)
            b = b / w
            k += 1.0
    return s


def zeta(xa: np.ndarray, qa: np.ndarray) -> np.ndarray:
    """The Hurwitz zeta function ``sum_k (k + q)^-x`` (torch's ``special.zeta``): inf at ``x == 1`` and at the
    non-positive integers ``q``, nan for ``x < 1`` and for a non-integer ``x`` with ``q < 0``."""
    x, q = np.broadcast_arrays(np.asarray(xa, dtype=np.float64), np.asarray(qa, dtype=np.float64))
    shape = x.shape
    x, q = x.ravel(), q.ravel()
    out = np.full(x.shape, np.nan)
    with np.errstate(all="ignore"):
        pole = (q <= 0) & (q == np.floor(q))
        bad = (q <= 0) & ~pole & (x != np.floor(x))
        special = (x == 1.0) | (x < 1.0) | pole | bad
        out[special] = np.where(x[special] == 1.0, np.inf,
                                np.where(x[special] < 1.0, np.nan, np.where(pole[special], np.inf, np.nan)))
        go = ~special & ~np.isnan(x) & ~np.isnan(q)
        if go.any():
            out[go] = _zeta_raw(x[go], q[go])
    return out.reshape(shape)


# -- incomplete gamma ------------------------------------------------------------------------------

_MAXITER = 2000
_MAXITER_NEAR = 20000  # a large and x near a: the series and the fraction need about 9 sqrt(a) terms


def log1pmx(t: np.ndarray) -> np.ndarray:
    """``log(1 + t) - t``, accurate also for small ``t``."""
    out = np.log1p(t) - t
    small = np.abs(t) < 0.5
    if small.any():
        v = t[small]
        u = v / (2.0 + v)  # log1p(v) = 2 atanh(u), v = 2u / (1 - u)
        u2 = u * u
        series = np.full_like(u, 1.0 / 33.0)  # sum_{j<=15} u^(2j) / (2j + 3)
        for k in range(29, 1, -2):
            series *= u2
            series += 1.0 / k
        out[small] = -2.0 * u2 / (1.0 - u) + 2.0 * u2 * u * series
    return out


def _igam_fac(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``x^a e^-x / Gamma(a)``, accurate near ``x = a`` for large ``a``."""
    with np.errstate(all="ignore"):
        out = np.exp(a * np.log(x) - x - lgamma(a))
        near = (np.abs(a - x) <= 0.4 * np.abs(a)) & (a >= 8.0)
        if near.any():
            an, xn = a[near], x[near]
            expo = an * log1pmx((xn - an) / an) - stirling_correction(an)
            out[near] = np.sqrt(an / (2.0 * math.pi)) * np.exp(expo)
    return out


def _igam_series(a: np.ndarray, x: np.ndarray, maxiter: np.ndarray) -> np.ndarray:
    """P(a, x) from its power series (DLMF 8.11.4)."""
    ax = _igam_fac(a, x)
    ans = np.ones_like(a)
    c = np.ones_like(a)
    r = a.copy()
    idx = np.flatnonzero(ax != 0)
    n = 0
    while idx.size:
        n += 1
        r[idx] += 1.0
        ci = c[idx] * x[idx] / r[idx]
        c[idx] = ci
        ai = ans[idx] + ci
        ans[idx] = ai
        idx = idx[~(ci <= MACHEP * ai) & (n < maxiter[idx])]
    with np.errstate(all="ignore"):
        return np.where(ax == 0, 0.0, ans * ax / a)


def _igamc_series(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Q(a, x) for small ``x`` (DLMF 8.7.3), without the cancellation of ``1 - P``."""
    fac = np.ones_like(a)
    total = np.zeros_like(a)
    idx = np.arange(a.size)
    n = 0
    while idx.size and n < _MAXITER - 1:
        n += 1
        fi = fac[idx] * -x[idx] / n
        fac[idx] = fi
        term = fi / (a[idx] + n)
        si = total[idx] + term
        total[idx] = si
        idx = idx[~(np.abs(term) <= MACHEP * np.abs(si))]
    with np.errstate(all="ignore"):
        logx = np.log(x)
        return -np.expm1(a * logx - lgamma(1.0 + a)) - np.exp(a * logx - lgamma(a)) * total


def _igamc_fraction(a: np.ndarray, x: np.ndarray, maxiter: np.ndarray) -> np.ndarray:
    """Q(a, x) from its continued fraction (DLMF 8.9.2), for ``x`` past ``a``."""
    big, biginv = 4.503599627370496e15, 2.22044604925031308085e-16
    ax = _igam_fac(a, x)
    y = 1.0 - a
    z = x + y + 1.0
    c = np.zeros_like(a)
    pkm2 = np.ones_like(a)
    qkm2 = x.copy()
    pkm1 = x + 1.0
    qkm1 = z * x
    ans = pkm1 / qkm1
    idx = np.flatnonzero(ax != 0)
    n = 0
    while idx.size:
        n += 1
        c[idx] += 1.0
        y[idx] += 1.0
        z[idx] += 2.0
        yc = y[idx] * c[idx]
        pk = pkm1[idx] * z[idx] - pkm2[idx] * yc
        qk = qkm1[idx] * z[idx] - qkm2[idx] * yc
        nz = qk != 0
        with np.errstate(all="ignore"):
            r = pk / np.where(nz, qk, 1.0)
            t = np.where(nz, np.abs((ans[idx] - r) / r), 1.0)
        ans[idx] = np.where(nz, r, ans[idx])
        pkm2[idx], pkm1[idx], qkm2[idx], qkm1[idx] = pkm1[idx], pk, qkm1[idx], qk
        scale = np.abs(pk) > big
        if scale.any():
            s_idx = idx[scale]
            pkm2[s_idx] *= biginv
            pkm1[s_idx] *= biginv
            qkm2[s_idx] *= biginv
            qkm1[s_idx] *= biginv
        idx = idx[~(t <= MACHEP) & (n < maxiter[idx])]
    return np.where(ax == 0, 0.0, ans * ax)


def _near(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Where ``a`` is large and ``x`` close to it (torch's uniform asymptotic regime)."""
    with np.errstate(all="ignore"):
        r = np.abs(x - a) / a
        return ((a > 20.0) & (a < 200.0) & (r < 0.3)) | ((a > 200.0) & (r < 4.5 / np.sqrt(a)))


def _boundary(a: np.ndarray, x: np.ndarray, lower: bool) -> tuple[np.ndarray, np.ndarray]:
    """The results fixed by the domain (``nan`` outside it, the limits at 0 and infinity) and where they apply."""
    one, zero = (1.0, 0.0) if lower else (0.0, 1.0)
    out = np.full(a.shape, np.nan)
    nan = (x < 0) | (a < 0) | np.isnan(a) | np.isnan(x)
    a0 = ~nan & (a == 0)
    out[a0 & (x > 0)] = one
    x0 = ~nan & ~a0 & (x == 0)
    out[x0] = zero
    ainf = ~nan & ~a0 & ~x0 & np.isinf(a)
    out[ainf & ~np.isinf(x)] = zero
    xinf = ~nan & ~a0 & ~x0 & ~ainf & np.isinf(x)
    out[xinf] = one
    fixed = nan | a0 | x0 | ainf | xinf
    return out, fixed


def _igam_core(a: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(P, Q)`` for finite positive ``a`` and ``x``, each from the method torch picks for it: the continued
    fraction for ``Q`` past ``a``, the small-``x`` series for ``Q`` where ``P`` is not small, the power series
    for ``P`` otherwise; the other function of the pair is the complement."""
    near = _near(a, x)
    cap = np.where(near, _MAXITER_NEAR, _MAXITER)
    with np.errstate(all="ignore"):
        cf = (x >= a) & ((x > 1.1) | near)
        qser = ~near & (x <= 1.1) & ~np.where(x <= 0.5, -0.4 / np.log(x) < a, x * 1.1 < a)
    q = np.empty_like(a)
    p = np.empty_like(a)
    from_q = near | ((x > 1.0) & (x > a))
    pser = (~cf & ~qser) | ~from_q
    if pser.any():
        p[pser] = _igam_series(a[pser], x[pser], cap[pser])
    if cf.any():
        q[cf] = _igamc_fraction(a[cf], x[cf], cap[cf])
    if qser.any():
        q[qser] = _igamc_series(a[qser], x[qser])
    rest = ~cf & ~qser
    q[rest] = 1.0 - p[rest]
    p[from_q] = 1.0 - q[from_q]
    return p, q


def _incomplete(aa: np.ndarray, xa: np.ndarray, lower: bool) -> np.ndarray:
    a, x = np.broadcast_arrays(np.asarray(aa, dtype=np.float64), np.asarray(xa, dtype=np.float64))
    shape = a.shape
    a, x = a.ravel(), x.ravel()
    out, fixed = _boundary(a, x, lower)
    go = ~fixed
    if go.any():
        p, q = _igam_core(a[go], x[go])
        out[go] = p if lower else q
    return out.reshape(shape)


def igamma(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The regularised lower incomplete gamma function ``P(a, x)``."""
    return _incomplete(a, x, True)


def igammac(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The regularised upper incomplete gamma function ``Q(a, x) = 1 - P(a, x)``."""
    return _incomplete(a, x, False)
