"""Classical orthogonal polynomials ``P_n(x)`` for NumPy arrays, as torch evaluates them.

Each takes ``x`` and ``n`` broadcast to one shape in the result's floating dtype (float32 or float64: torch
computes in the tensor's own precision, and so do these) and returns that dtype. ``n`` is truncated to an
integer as C++ does (nan, infinities and values out of int64's range count as negative, giving 0). The
results follow torch's steps: the closed forms at ``x = +-1`` (or ``0``/``1`` for the shifted Chebyshev
polynomials), ``cos(n acos x)``-type formulas inside ``(-1, 1)`` once ``n`` passes a small bound, and the
three-term recurrence otherwise, stopped early once it has produced nan. The recurrences run on all elements
at once, over the elements whose ``n`` is not yet reached.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

Step = Callable[[int, np.ndarray, np.ndarray, np.ndarray], np.ndarray]


def _as_int(n: np.ndarray) -> np.ndarray:
    """``static_cast<int64_t>(n)``: truncation; nan, inf and out-of-range values as -1 (all give 0)."""
    if n.dtype.kind in "iub":
        return n.astype(np.int64)
    with np.errstate(invalid="ignore"):
        ok = np.isfinite(n) & (np.abs(n) < 9.2e18)
        return np.where(ok, np.trunc(np.where(ok, n, 0)), -1).astype(np.int64)


def _recur(x: np.ndarray, n: np.ndarray, p: np.ndarray, q: np.ndarray, step: Step, first: int, last_of: Callable,
           nan_stop: bool = True) -> np.ndarray:
    """Run ``r = step(k, x, p, q); p, q = q, r`` for ``k = first .. last_of(n)`` elementwise (flat arrays);
    with ``nan_stop`` an element stops once its ``q`` is nan. Returns the final ``q``."""
    last = last_of(n)
    p, q = p.copy(), q.copy()
    idx = np.flatnonzero(last >= first)
    k = first
    with np.errstate(all="ignore"):
        while idx.size:
            if nan_stop:
                idx = idx[~np.isnan(q[idx])]
                if not idx.size:
                    break
            r = step(k, x[idx], p[idx], q[idx])
            p[idx] = q[idx]
            q[idx] = r
            k += 1
            idx = idx[last[idx] >= k]
    return q


def _prepare(x: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, np.ndarray, tuple]:
    xb, nb = np.broadcast_arrays(x, n)
    shape = xb.shape
    return np.ascontiguousarray(xb).ravel(), _as_int(np.ascontiguousarray(nb).ravel()), shape


def _finish(cases: list, default: Callable[[np.ndarray], np.ndarray], x: np.ndarray, shape: tuple) -> np.ndarray:
    """The first matching case's value for each element (cases are ``(mask, value)``), ``default(mask)`` for the
    elements no case matched."""
    out = np.zeros(x.shape, dtype=x.dtype)
    done = np.zeros(x.shape, dtype=bool)
    for mask, value in cases:
        m = mask & ~done
        out[m] = np.broadcast_to(value, x.shape)[m]
        done |= m
    rest = ~done
    if rest.any():
        out[rest] = default(rest)
    return out.reshape(shape)


def _f(dtype: np.dtype, v: np.ndarray) -> np.ndarray:
    return np.asarray(v).astype(dtype)


def _chebyshev_like(x: np.ndarray, n: np.ndarray, kind: str, shifted: bool) -> np.ndarray:
    """T, U, V, W (``kind``), plain or shifted to ``[0, 1]``."""
    x, n, shape = _prepare(x, n)
    dt = x.dtype
    one = dt.type(1.0)
    y = x + x - one if shifted else x
    odd = (n % 2) != 0
    two_n1 = _f(dt, n + n + 1)
    n1 = _f(dt, n + 1)
    with np.errstate(all="ignore"):
        theta = np.arccos(y)
        inside = np.abs(y) < one
        if shifted:
            at_one, at_minus_one = x == one, x == 0
        else:
            at_one, at_minus_one = np.abs(x) == one, np.abs(x) == one
            at_one = at_one & (x > 0)
            at_minus_one = at_minus_one & ~(x > 0)
        bound = {"t": 6, "u": 6 if shifted else 8, "v": 6 if shifted else 8, "w": 4 if shifted else 8}[kind]
        trig = inside & (n > bound)
        if kind == "t":
            ends = [(at_one, one), (at_minus_one, np.where(odd, -one, one))]
            closed = [(trig, np.cos(_f(dt, n) * theta))]
            start = y
        elif kind == "u":
            ends = [(at_one, n1), (at_minus_one, np.where(odd, -n1, n1))]
            s = np.sin(theta)
            closed = [(trig, np.where(s != 0, np.sin(n1 * theta) / s, n1 * np.cos(n1 * theta) / y))]
            start = y + y
        elif kind == "v":
            ends = [(at_one, one), (at_minus_one, np.where(odd, -two_n1, two_n1))]
            half = theta / dt.type(2.0)
            val = np.where(np.sin(half) != one, np.cos((_f(dt, n) + dt.type(0.5)) * theta) / np.cos(half),
                           np.where(odd, -two_n1, two_n1))
            closed = [(trig, val)]
            start = y + y - one
        else:
            ends = [(at_one, two_n1), (at_minus_one, np.where(odd, -one, one))]
            half = theta / dt.type(2.0)
            fallback = np.where(y > 0, two_n1, np.where(odd, -one, one)) if not shifted else np.where(odd, -one, one)
            val = np.where(np.cos(half) != one, np.sin((_f(dt, n) + dt.type(0.5)) * theta) / np.sin(half), fallback)
            closed = [(trig, val)]
            start = y + y + one
    cases = [(n < 0, dt.type(0.0))] + ends + closed + [(n == 0, one), (n == 1, start)]

    def default(m: np.ndarray) -> np.ndarray:
        ym = y[m]
        return _recur(ym, n[m], np.ones_like(ym), start[m], lambda k, yy, p, q: (yy + yy) * q - p, 2, lambda nn: nn)

    return _finish(cases, default, x, shape)


def chebyshev_t(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    return _chebyshev_like(x, n, "t", False)


def chebyshev_u(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    return _chebyshev_like(x, n, "u", False)


def chebyshev_v(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    return _chebyshev_like(x, n, "v", False)


def chebyshev_w(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    return _chebyshev_like(x, n, "w", False)


def shifted_chebyshev_t(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    return _chebyshev_like(x, n, "t", True)


def shifted_chebyshev_u(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    return _chebyshev_like(x, n, "u", True)


def shifted_chebyshev_v(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    return _chebyshev_like(x, n, "v", True)


def shifted_chebyshev_w(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    return _chebyshev_like(x, n, "w", True)


def _hermite(x: np.ndarray, n: np.ndarray, physicists: bool) -> np.ndarray:
    x, n, shape = _prepare(x, n)
    dt = x.dtype
    limit = 512 if dt == np.float64 else 128
    start = x + x if physicists else x
    cases = [(n < 0, dt.type(0.0)), (n == 0, dt.type(1.0)), (n == 1, start), (n > limit, dt.type(np.nan))]
    if physicists:  # H_{i+1} = 2x H_i - 2i H_{i-1}
        def step(i: int, xx: np.ndarray, p: np.ndarray, q: np.ndarray) -> np.ndarray:
            return (xx + xx) * q - dt.type(2 * (i - 1)) * p
    else:  # He_{i+1} = x He_i - i He_{i-1}
        def step(i: int, xx: np.ndarray, p: np.ndarray, q: np.ndarray) -> np.ndarray:
            return xx * q - dt.type(i - 1) * p

    def default(m: np.ndarray) -> np.ndarray:
        xm = x[m]
        return _recur(xm, n[m], np.ones_like(xm), start[m], step, 2, lambda nn: nn, nan_stop=False)

    return _finish(cases, default, x, shape)


def hermite_h(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    return _hermite(x, n, True)


def hermite_he(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    return _hermite(x, n, False)


def laguerre_l(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    x, n, shape = _prepare(x, n)
    dt = x.dtype
    one = dt.type(1.0)
    start = one - x
    cases = [(n < 0, dt.type(0.0)), (np.abs(x) == 0, one), (n == 0, one), (n == 1, start)]

    def step(i: int, xx: np.ndarray, p: np.ndarray, q: np.ndarray) -> np.ndarray:
        k = i - 1  # L_{k+1} = ((2k + 1 - x) L_k - k L_{k-1}) / (k + 1)
        return ((dt.type(k + k) + (one - xx)) * q - dt.type(k) * p) / dt.type(k + 1)

    def default(m: np.ndarray) -> np.ndarray:
        xm = x[m]
        return _recur(xm, n[m], np.ones_like(xm), start[m], step, 2, lambda nn: nn)

    return _finish(cases, default, x, shape)


def legendre_p(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    x, n, shape = _prepare(x, n)
    dt = x.dtype
    one = dt.type(1.0)
    odd = (n % 2) != 0
    edge = np.abs(x) == one
    cases = [(n < 0, dt.type(0.0)), (edge, np.where((x > 0) | ~odd, one, -one)), (n == 0, one), (n == 1, x)]

    def step(i: int, xx: np.ndarray, p: np.ndarray, q: np.ndarray) -> np.ndarray:
        k = i - 1  # P_{k+1} = ((2k + 1) x P_k - k P_{k-1}) / (k + 1)
        return (dt.type(k + k + 1) * xx * q - dt.type(k) * p) / dt.type(k + 1)

    def default(m: np.ndarray) -> np.ndarray:
        xm = x[m]
        return _recur(xm, n[m], np.ones_like(xm), xm, step, 2, lambda nn: nn)

    return _finish(cases, default, x, shape)
