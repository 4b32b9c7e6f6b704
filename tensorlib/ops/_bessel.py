"""Bessel and Airy functions for NumPy float64 arrays (elementwise, any shape; torch's values at the special
points).

* ``I0``, ``I1`` (and ``exp(-|x|)``-scaled): the power series, all of whose terms are positive, up to 20; the
  asymptotic series beyond.
* ``K0``, ``K1`` (and ``exp(x)``-scaled): the series in ``log(x/2) I(x)`` up to 2; beyond, the trapezoidal rule
  on ``K_nu(x) = int_0^inf exp(-x cosh t) cosh(nu t) dt`` (exponentially convergent) up to 25, and the
  asymptotic series past it.
* ``J0``, ``J1``, ``Y0``, ``Y1``: the power series below 1; Miller's backward recurrence with the Neumann
  series for ``Y`` up to 25; Hankel's asymptotic expansion beyond, with the phase rounded as torch rounds it
  (``cos(x - pi/4)`` in double), so large arguments agree with torch's values to rounding.
* Airy ``Ai``: torch's Maclaurin series on ``[-2.09, 2.09)``; ``K_{1/3}`` above; ``J_{1/3} + J_{-1/3}``
  (Miller again) below, and the asymptotic series past ``x = -9``.

Near the zeros of the oscillating functions the results are accurate in absolute, not relative, terms (as
torch's are).
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ._gamma import EULER, _horner

_LN2 = math.log(2.0)
_SQRT_2_OVER_PI = 0.797884560802865355879892119868763737  # torch's constant, for the same rounding
_SERIES_I_MAX = 20.0
_ASYMPTOTIC_K = 25.0
_MILLER_MAX = 25.0


@functools.cache
def _asymptotic_terms(nu: float, n: int = 40) -> np.ndarray:
    """``a_k(nu) = prod_{j<=k} (4 nu^2 - (2j - 1)^2) / (k! 8^k)`` for k = 0..n-1 (Hankel's coefficients)."""
    mu = 4.0 * nu * nu
    a = [1.0]
    for k in range(1, n):
        a.append(a[-1] * (mu - (2 * k - 1) ** 2) / (k * 8.0))
    return np.array(a)


@functools.cache
def _series_i(nu: int, n: int = 42) -> np.ndarray:
    """``1 / (k! (k + nu)!)`` for k = n-1..0 (highest first): I_nu's series in ``(x/2)^2``."""
    return np.array([1.0 / (math.factorial(k) * math.factorial(k + nu)) for k in range(n - 1, -1, -1)])


# -- modified Bessel functions of the first kind -----------------------------------------------------


def _i_scaled_positive(nu: int, x: np.ndarray) -> np.ndarray:
    """``exp(-x) I_nu(x)`` for ``x >= 0`` (finite or inf)."""
    out = np.empty_like(x)
    small = x <= _SERIES_I_MAX
    if small.any():
        v = x[small]
        half = 0.5 * v
        s = _horner(_series_i(nu), half * half)
        if nu:
            s = (0.5 * s) * v  # not s * (x/2): keeps x/2 from underflowing first
        out[small] = s * np.exp(-v)
    large = ~small
    if large.any():
        v = x[large]
        inv = 1.0 / v
        a = _asymptotic_terms(float(nu), 30) * (-1.0) ** np.arange(30)
        out[large] = _horner(a[::-1], inv) / np.sqrt(2.0 * math.pi * v)
    return out


def i0e(a: np.ndarray) -> np.ndarray:
    """``exp(-|x|) I0(x)``."""
    x = np.abs(np.asarray(a, dtype=np.float64))
    with np.errstate(all="ignore"):
        return _i_scaled_positive(0, x)


def i1e(a: np.ndarray) -> np.ndarray:
    """``exp(-|x|) I1(x)`` (odd)."""
    x = np.asarray(a, dtype=np.float64)
    with np.errstate(all="ignore"):
        r = _i_scaled_positive(1, np.abs(x))
        return np.where(x < 0, -r, r)


def i0(a: np.ndarray) -> np.ndarray:
    """The modified Bessel function ``I0`` (inf past about 709.78, nan at +-inf, as torch's)."""
    x = np.abs(np.asarray(a, dtype=np.float64))
    with np.errstate(all="ignore"):
        r = np.exp(x) * _i_scaled_positive(0, x)
        return np.where(np.isinf(x), np.nan, r)


def i1(a: np.ndarray) -> np.ndarray:
    """The modified Bessel function ``I1`` (odd; nan at +-inf, as torch's)."""
    x = np.asarray(a, dtype=np.float64)
    ax = np.abs(x)
    with np.errstate(all="ignore"):
        r = np.exp(ax) * _i_scaled_positive(1, ax)
        r = np.where(x < 0, -r, r)
        return np.where(np.isinf(x), np.nan, r)


# -- modified Bessel functions of the second kind ------------------------------------------------------


@functools.cache
def _trapezoid_nodes(h: float = 0.1, t_max: float = 6.0) -> tuple[np.ndarray, np.ndarray]:
    t = np.arange(0.0, t_max + h / 2, h)
    w = np.full_like(t, h)
    w[0] = h / 2
    return t, w


def k_scaled_large(nu: float, x: np.ndarray) -> np.ndarray:
    """``exp(x) K_nu(x)`` for ``x >= 2`` (and +inf, where it is 0)."""
    out = np.empty_like(x)
    mid = x <= _ASYMPTOTIC_K
    if mid.any():
        v = x[mid]
        t, w = _trapezoid_nodes()
        total = np.zeros_like(v)
        for tj, wj in zip(t, w):
            arg = v * (2.0 * math.sinh(tj / 2) ** 2)  # x (cosh t - 1)
            term = np.exp(-arg) * (wj * math.cosh(nu * tj))
            total += term
            if tj > 1.0 and np.all(arg > 45.0):
                break
        out[mid] = total
    far = ~mid
    if far.any():
        v = x[far]
        out[far] = _horner(_asymptotic_terms(nu, 30)[::-1], 1.0 / v) * np.sqrt(math.pi / (2.0 * v))
    return out


@functools.cache
def _series_k() -> tuple[np.ndarray, np.ndarray]:
    """The entire parts of K0 and K1's series: ``H_k / k!^2`` and ``(psi(k+1) + psi(k+2)) / (k! (k+1)!)``."""
    n = 16
    h = [0.0]
    for k in range(1, n + 1):
        h.append(h[-1] + 1.0 / k)
    k0 = np.array([h[k] / math.factorial(k) ** 2 for k in range(n - 1, -1, -1)])
    k1 = np.array([(h[k] + h[k + 1] - 2.0 * EULER) / (math.factorial(k) * math.factorial(k + 1))
                   for k in range(n - 1, -1, -1)])
    return k0, k1


def _k_small(nu: int, x: np.ndarray) -> np.ndarray:
    """``K_nu(x)`` for ``0 < x <= 2`` from its series."""
    y = 0.25 * x * x
    lg = np.log(0.5 * x)
    s0, s1 = _series_k()
    if nu == 0:
        i = _horner(_series_i(0, 20), y)
        return -(lg + EULER) * i + _horner(s0, y)
    i = 0.5 * x * _horner(_series_i(1, 20), y)
    return 1.0 / x + lg * i - 0.25 * x * _horner(s1, y)


def _k(nu: int, a: np.ndarray, scaled: bool) -> np.ndarray:
    x = np.asarray(a, dtype=np.float64)
    out = np.full(x.shape, np.nan)
    with np.errstate(all="ignore"):
        out[x == 0] = np.inf
        small = (x > 0) & (x <= 2.0)
        if small.any():
            v = x[small]
            out[small] = _k_small(nu, v) * (np.exp(v) if scaled else 1.0)
        large = x > 2.0
        if large.any():
            v = x[large]
            out[large] = k_scaled_large(float(nu), v) * (1.0 if scaled else np.exp(-v))
    return out


def k0(a: np.ndarray) -> np.ndarray:
    return _k(0, a, False)


def k1(a: np.ndarray) -> np.ndarray:
    return _k(1, a, False)


def k0e(a: np.ndarray) -> np.ndarray:
    return _k(0, a, True)


def k1e(a: np.ndarray) -> np.ndarray:
    return _k(1, a, True)


# -- Bessel functions of the first and second kind -------------------------------------------------


@functools.cache
def _series_y() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Series in ``y = (x/2)^2`` for ``x < 1``: J0, J1 / (x/2), and the entire parts of Y0 and Y1."""
    n = 14
    fact = [math.factorial(k) for k in range(n + 2)]
    h = [0.0]
    for k in range(1, n + 2):
        h.append(h[-1] + 1.0 / k)
    j0 = [(-1) ** k / fact[k] ** 2 for k in range(n)]
    j1 = [(-1) ** k / (fact[k] * fact[k + 1]) for k in range(n)]
    y0 = [(-1) ** (k + 1) * h[k] / fact[k] ** 2 for k in range(n)]
    y1 = [(-1) ** k * (h[k] + h[k + 1] - 2.0 * EULER) / (fact[k] * fact[k + 1]) for k in range(n)]
    return tuple(np.array(c[::-1]) for c in (j0, j1, y0, y1))  # type: ignore[return-value]


def _jy_small(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """J0, J1, Y0, Y1 for ``0 < x < 1`` from their power series."""
    half = 0.5 * x
    y = half * half
    cj0, cj1, cy0, cy1 = _series_y()
    j0 = _horner(cj0, y)
    j1 = half * _horner(cj1, y)
    log_half = np.log(x) - _LN2  # log(x / 2), also where x / 2 underflows
    y0 = (2.0 / math.pi) * ((log_half + EULER) * j0 + _horner(cy0, y))
    y1 = -2.0 / (math.pi * x) + (2.0 / math.pi) * (log_half * j1) - (1.0 / math.pi) * half * _horner(cy1, y)
    return j0, j1, y0, y1


def _jy_miller(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """J0, J1, Y0, Y1 for ``1 <= x <= 25``: Miller's backward recurrence from an order past ``x``, normalised
    by ``J0 + 2 sum J_2k = 1``; Y from the Neumann series ``sum (-1)^k J_2k / k``."""
    x_max = float(x.max())
    n = 2 * int((x_max + 12.0 * x_max ** (1 / 3) + 24) / 2)
    inv2 = 2.0 / x
    jp1 = np.zeros_like(x)  # J_{k+1}
    jk = np.full_like(x, 1e-30)  # J_k, k = n (even)
    norm = np.zeros_like(x)  # sum over even k >= 2 of J_k
    ysum = np.zeros_like(x)  # sum_{k>=1} (-1)^k J_2k / k
    y1sum = np.zeros_like(x)  # sum_{k>=1} (-1)^k (J_{2k-1} - J_{2k+1}) / k
    j_odd_above = np.zeros_like(x)  # J_{2k+1} for the current even order 2k
    for k in range(n, 0, -1):
        if k % 2 == 0:
            m = k // 2
            sign = 1.0 if m % 2 == 0 else -1.0
            norm += jk
            ysum += (sign / m) * jk
            j_odd_above = jp1
        else:  # k = 2m - 1: J_{2m-1} is known, J_{2m+1} was kept
            m = (k + 1) // 2
            sign = 1.0 if m % 2 == 0 else -1.0
            y1sum += (sign / m) * (jk - j_odd_above)
        jm1 = (k * inv2) * jk - jp1
        jp1, jk = jk, jm1
    # jk is J_0, jp1 is J_1 (unnormalised)
    scale = 1.0 / (jk + 2.0 * norm)
    j0, j1 = jk * scale, jp1 * scale
    lg = np.log(0.5 * x) + EULER
    y0 = (2.0 / math.pi) * (lg * j0 - 2.0 * ysum * scale)
    y1 = (2.0 / math.pi) * (lg * j1 - j0 / x + y1sum * scale)
    return j0, j1, y0, y1


def _hankel(nu: int, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(J_nu, Y_nu)`` for ``x > 25`` from Hankel's expansion (the phase rounded as torch rounds it)."""
    a = _asymptotic_terms(float(nu), 40)
    inv2 = 1.0 / (x * x)
    p_coef = a[0::2] * (-1.0) ** np.arange(a[0::2].size)
    q_coef = a[1::2] * (-1.0) ** np.arange(a[1::2].size)
    p = _horner(p_coef[::-1], inv2)
    q = _horner(q_coef[::-1], inv2) / x
    chi = x - (0.785398163397448309615660845819875721 if nu == 0 else 2.356194490192344928846982537459627163)
    c, s = np.cos(chi), np.sin(chi)
    amp = _SQRT_2_OVER_PI / np.sqrt(x)
    return (p * c - q * s) * amp, (p * s + q * c) * amp


def _jy(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """J0, J1, Y0, Y1 for finite ``x > 0``."""
    j0, j1, y0, y1 = (np.empty_like(x) for _ in range(4))
    for mask, fn in ((x < 1.0, _jy_small), ((x >= 1.0) & (x <= _MILLER_MAX), _jy_miller)):
        if mask.any():
            for arr, val in zip((j0, j1, y0, y1), fn(x[mask])):
                arr[mask] = val
    far = x > _MILLER_MAX
    if far.any():
        v = x[far]
        j0[far], y0[far] = _hankel(0, v)
        j1[far], y1[far] = _hankel(1, v)
    return j0, j1, y0, y1


def _bessel(a: np.ndarray, which: int) -> np.ndarray:
    x = np.asarray(a, dtype=np.float64)
    ax = np.abs(x)
    out = np.full(x.shape, np.nan)
    with np.errstate(all="ignore"):
        ok = np.isfinite(x) & (ax > 0)
        if which >= 2:
            ok &= x > 0
        if ok.any():
            out[ok] = _jy(ax[ok])[which]
        zero = x == 0
        out[zero] = (1.0, 0.0, -np.inf, -np.inf)[which]
        if which == 1:  # odd, and J1(-0.0) is -0.0
            out = np.where((x < 0) | ((x == 0) & np.signbit(x)), -out, out)
    return out


def j0(a: np.ndarray) -> np.ndarray:
    return _bessel(a, 0)


def j1(a: np.ndarray) -> np.ndarray:
    return _bessel(a, 1)


def y0(a: np.ndarray) -> np.ndarray:
    return _bessel(a, 2)


def y1(a: np.ndarray) -> np.ndarray:
    return _bessel(a, 3)


# -- Airy -----------------------------------------------------------------------------------------------


def _airy_maclaurin(x: np.ndarray) -> np.ndarray:
    """Ai on ``[-2.09, 2.09)``: ``c1 f(x) - c2 g(x)`` summed as torch does, until the terms fall below eps."""
    f = np.ones_like(x)
    g = x.copy()
    k = np.ones_like(x)
    m = np.ones_like(x)
    n = x.copy()
    z = x * x * x
    eps = np.finfo(np.float64).eps
    active = np.ones(x.shape, dtype=bool)
    while active.any():
        m = np.where(active, m * z, m)
        k = np.where(active, k + 1.0, k)
        m = np.where(active, m / k, m)
        n = np.where(active, n * z, n)
        k = np.where(active, k + 1.0, k)
        n = np.where(active, n / k, n)
        m = np.where(active, m / k, m)
        f = np.where(active, f + m, f)
        k = np.where(active, k + 1.0, k)
        n = np.where(active, n / k, n)
        g = np.where(active, g + n, g)
        active &= np.abs(m / f) > eps
    return 0.355028053887817239260 * f - 0.258819403792806798405 * g


@functools.cache
def _airy_u() -> np.ndarray:
    """The coefficients ``u_k`` of Ai's asymptotic series: ``u_k = (6k-5)(6k-3)(6k-1) / ((2k-1) 216 k) u_{k-1}``."""
    u = [1.0]
    for k in range(1, 40):
        u.append(u[-1] * (6 * k - 5) * (6 * k - 3) * (6 * k - 1) / ((2 * k - 1) * 216.0 * k))
    return np.array(u)


def _j_fractional_miller(nu: float, z: np.ndarray) -> np.ndarray:
    """``J_nu(z)`` for ``-1 < nu < 1`` and ``2 <= z <= 30``: Miller's recurrence normalised by
    ``sum_k (nu + 2k) Gamma(nu + k) / k! J_{nu+2k}(z) = (z/2)^nu``."""
    z_max = float(z.max())
    n = 2 * int((z_max + 12.0 * z_max ** (1 / 3) + 24) / 2)
    jp1 = np.zeros_like(z)
    jk = np.full_like(z, 1e-30)
    # c_m = Gamma(nu + m) / m! for the even orders 2m
    c = [math.gamma(nu) if nu != 0 else 1.0]
    for m in range(1, n // 2 + 1):
        c.append(c[-1] * (nu + m - 1) / m)
    norm = np.zeros_like(z)
    for k in range(n, -1, -1):
        if k % 2 == 0:
            m = k // 2
            weight = (nu + k) * c[m] if m else (math.gamma(nu + 1.0))
            norm += weight * jk
        if k == 0:
            break
        jm1 = (2.0 * (nu + k) / z) * jk - jp1
        jp1, jk = jk, jm1
    return jk * np.power(0.5 * z, nu) / norm


def airy_ai(a: np.ndarray) -> np.ndarray:
    """The Airy function ``Ai``: nan at +-inf and 0 past 103.892, as torch's."""
    x = np.asarray(a, dtype=np.float64)
    out = np.full(x.shape, np.nan)
    with np.errstate(all="ignore"):
        finite = np.isfinite(x)
        out[finite & (x > 103.892)] = 0.0
        mac = finite & (x >= -2.09) & (x < 2.09)
        if mac.any():
            out[mac] = _airy_maclaurin(x[mac])
        pos = finite & (x >= 2.09) & (x <= 103.892)
        if pos.any():
            v = x[pos]
            zeta = 2.0 * v * np.sqrt(v) / 3.0
            out[pos] = np.sqrt(v / 3.0) / math.pi * k_scaled_large(1.0 / 3.0, zeta) * np.exp(-zeta)
        mid = finite & (x < -2.09) & (x >= -9.0)
        if mid.any():
            v = -x[mid]
            zeta = 2.0 * v * np.sqrt(v) / 3.0
            out[mid] = np.sqrt(v) / 3.0 * (_j_fractional_miller(1.0 / 3.0, zeta) + _j_fractional_miller(-1.0 / 3.0, zeta))
        far = finite & (x < -9.0)
        if far.any():
            v = x[far]
            zeta = -2.0 * v * np.sqrt(-v) / 3.0
            t = zeta + 0.25 * math.pi
            u = _airy_u()
            inv2 = 1.0 / (zeta * zeta)
            p = _horner((u[0::2] * (-1.0) ** np.arange(u[0::2].size))[::-1], inv2)
            q = _horner((u[1::2] * (-1.0) ** np.arange(u[1::2].size))[::-1], inv2) / zeta
            out[far] = 0.564189583547756286948 / np.sqrt(np.sqrt(-v)) * (np.sin(t) * p - np.cos(t) * q)
    return out


def spherical_j0(a: np.ndarray) -> np.ndarray:
    """``sin(x) / x`` (1 at 0, 0 at +-inf), with torch's Taylor polynomial below 1/2."""
    x = np.asarray(a, dtype=np.float64)
    with np.errstate(all="ignore"):
        y = x * x
        poly = 1.0 + y * (-1.0 / 6.0 + y * (1.0 / 120.0 + y * (-1.0 / 5040.0 + y * (1.0 / 362880.0 + y * (
            -1.0 / 39916800.0 + y * (1.0 / 6227020800.0))))))
        r = np.where(np.abs(x) < 0.5, poly, np.sin(x) / x)
        return np.where(np.isinf(x), 0.0, r)
