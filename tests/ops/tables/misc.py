"""Op-table entries of the miscellaneous top-level ops: the ``*_copy`` view forms, ``as_strided`` and its scatter,
the unsafe splits, integer and floating-point helpers (gcd, frexp, ...), numerical calculus (trapezoid, gradient),
statistics (cov, histogram), and index helpers (put, index_reduce, isin, unravel_index)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.lib.stride_tricks import as_strided as np_as_strided

from tests.ops.opinfo import Const, forward_only, idx, ints, op, pos, r, s


def _strided(a: np.ndarray, size: Any, stride: Any, offset: Any = None) -> np.ndarray:
    flat = np.ascontiguousarray(a).reshape(-1)
    return np_as_strided(flat[offset or 0:], tuple(size), tuple(k * flat.itemsize for k in stride)).copy()


def _split_sizes(a: np.ndarray, sizes: Any, dim: int = 0) -> tuple:
    return tuple(np.split(a, np.cumsum(sizes)[:-1], axis=dim))


def _split(a: np.ndarray, size: int, dim: int = 0) -> tuple:
    return tuple(np.split(a, range(size, a.shape[dim], size), axis=dim))


def _chunk(a: np.ndarray, chunks: int, dim: int = 0) -> tuple:
    return _split(a, -(-a.shape[dim] // chunks), dim)


def _scatter_strided(a: np.ndarray, src: np.ndarray, size: Any, stride: Any, offset: Any = None) -> np.ndarray:
    res = np.ascontiguousarray(a).copy()
    np_as_strided(res.reshape(-1)[offset or 0:], tuple(size), tuple(k * res.itemsize for k in stride))[...] = src
    return res


def _slice(a: np.ndarray, dim: int = 0, start: Any = None, end: Any = None, step: int = 1) -> np.ndarray:
    return a[(slice(None),) * (dim % a.ndim) + (slice(start, end, step),)]


def _unfold(a: np.ndarray, d: int, size: int, step: int) -> np.ndarray:
    w = np.lib.stride_tricks.sliding_window_view(a, size, axis=d)
    return np.moveaxis(w, d, d).take(range(0, w.shape[d], step), axis=d)


# -- views into new memory ----------------------------------------------------------------------------
op("alias_copy", [s(r(2, 3)), s(r())], lambda a: a.copy())
forward_only("detach_copy", [s(r(2, 3))], lambda a: a.copy())
op("as_strided", [s(r(6), (2, 2), (1, 2), 1), s(r(2, 3), (3,), (2,)), s(r(4), (2, 3), (1, 0)), s(r(3, 2), (), ())],
   _strided)
op("as_strided_copy", [s(r(6), (2, 2), (1, 2), 1), s(r(4), (3, 2), (1, 1))], _strided)
op("as_strided_scatter", [s(r(6), r(2, 2), (2, 2), (1, 2), 1), s(r(2, 3), r(3), (3,), (2,))], _scatter_strided)
op("diagonal_copy", [s(r(3, 3)), s(r(2, 3, 3), 1, 1, 2)],
   lambda a, offset=0, dim1=0, dim2=1: np.diagonal(a, offset, dim1, dim2).copy())
op("expand_copy", [s(r(3, 1), (3, 4)), s(r(2), (3, 2))], lambda a, size: np.broadcast_to(a, size).copy())
op("permute_copy", [s(r(2, 3, 4), (2, 0, 1))], lambda a, dims: np.transpose(a, dims).copy())
op("select_copy", [s(r(2, 3), 1, -1)], lambda a, d, i: np.take(a, i, axis=d))
op("slice_copy", [s(r(5, 2)), s(r(2, 6), 1, 1, None, 2), s(r(4), 0, -3, -1)], _slice)
op("split_copy", [s(r(5, 2), 2), s(r(2, 4), 3, 1)], _split)
op("split_with_sizes_copy", [s(r(5, 2), [2, 3]), s(r(2, 4), [1, 0, 3], 1)], _split_sizes)
op("squeeze_copy", [s(r(1, 2, 1)), s(r(1, 2, 1), 0), s(r(1, 2, 1), (0, 2))],
   lambda a, dim=None: np.squeeze(a, dim).copy())
op("t_copy", [s(r(2, 3)), s(r(3))], lambda a: a.T.copy())
op("transpose_copy", [s(r(2, 3, 4), 0, 2)], lambda a, d0, d1: np.swapaxes(a, d0, d1).copy())
op("unbind_copy", [s(r(2, 3)), s(r(2, 3), 1)], lambda a, dim=0: tuple(np.moveaxis(a, dim, 0)))
op("unfold_copy", [s(r(2, 5), 1, 2, 2)], _unfold)
op("unsqueeze_copy", [s(r(2, 3), 1), s(r(), 0)], lambda a, d: np.expand_dims(a, d))
op("view_copy", [s(r(2, 3), (3, 2)), s(r(6), (-1, 2))], lambda a, size: a.reshape(size))

# -- splits ----------------------------------------------------------------------------------------------
op("split_with_sizes", [s(r(5, 2), [2, 3]), s(r(2, 4), [1, 3], 1)], _split_sizes)
op("unsafe_split", [s(r(5, 2), 2), s(r(2, 4), 3, 1)], _split)
op("unsafe_split_with_sizes", [s(r(5, 2), [2, 3]), s(r(2, 4), [1, 3], 1)], _split_sizes)
op("unsafe_chunk", [s(r(5, 2), 2), s(r(2, 6), 3, 1)], _chunk)


# -- integers and floating point --------------------------------------------------------------------------
_GCD = [s(idx([12, -18, 0, 7, 0]), idx([8, 12, 5, 0, 0])), s(ints(2, 3), ints(3)),
        s(np.array([4, 6], dtype=np.uint8), np.array([6, 9], dtype=np.int8)), s(np.array(9, dtype=np.int64), ints(3))]
forward_only("gcd", _GCD, np.gcd)
forward_only("lcm", _GCD, lambda a, b: np.lcm(a, b).astype(np.result_type(a, b)))
_frexp_entry = op("frexp", [s(r(2, 3)), s(r())], lambda a: (np.frexp(a)[0], np.frexp(a)[1].astype(np.int32)))
forward_only("frexp", [s(np.array([0.0, 1.0, -2.5, 1e-310, np.inf, -np.inf, np.nan, 8.0, 3.0]))], _frexp_entry.ref)
_ldexp_entry = op("ldexp", [s(r(2, 3), idx([1, -2, 3])), s(r(3), idx([[1], [0]])), s(r(2), Const(r(2)))],
                  lambda a, b: a * np.exp2(b) if b.dtype.kind == "f" else np.ldexp(a, b))
# overflow and underflow (exact, as ldexp), integers (a float32 result) and float32 (kept)
forward_only("ldexp", [s(Const(np.array([0.5, 2.0, 3.0])), idx([2000, -1080, -1074])), s(idx([1, 2]), idx([3, -1])),
                       s(np.array([1.0, 2.0], dtype=np.float32), idx([1, 2]))], None)
op("nextafter", [s(r(2, 3), r(2, 3)), s(r(2, 3), r(3)), s(r(3), Const(np.array([0.0, np.inf, -np.inf])))],
   np.nextafter, grad=False)
op("renorm", [s(r(3, 4), 2, 0, 1.5), s(r(2, 3, 2), 1, 1, 0.5), s(r(3, 3), float("inf"), -1, 1.0), s(r(2, 2), 3, 0, 100.0)],
   lambda a, p, dim, maxnorm: a * np.where(
       (n := np.linalg.norm(np.moveaxis(a, dim, 0).reshape(a.shape[dim], -1), ord=p, axis=1)) > maxnorm,
       maxnorm / (n + 1e-7), 1.0).reshape([-1 if k == dim % a.ndim else 1 for k in range(a.ndim)]))

# -- membership and indices ----------------------------------------------------------------------------
forward_only("isin", [s(ints(3, 4), ints(5)), s(ints(4), 2), s(3, ints(5)), s(r(4), Const(r(3))),
                      s(ints(6), ints(2, 2), invert=True), s(np.array([1.0, 2.0, np.nan]), Const(np.array([np.nan, 2.0])))],
             lambda e, te, assume_unique=False, invert=False: np.isin(e, te, invert=invert))
forward_only("unravel_index", [s(idx([4, 1, 5]), (2, 3)), s(idx(4), (2, 3)), s(idx([[7, -1]]), (2, 3)), s(idx([3]), 6),
                               s(np.array([5], dtype=np.int32), [2, 1, 3]), s(idx([1]), ())],
             lambda i, shape: tuple(np.asarray(c, dtype=np.int64) for c in np.unravel_index(
                 np.mod(i, int(np.prod(shape))) if shape != () else i * 0, (shape,) if isinstance(shape, int) else shape))
             if shape != () else (), method=False)

# -- numerical calculus ----------------------------------------------------------------------------------
_TRAPZ = [s(r(5)), s(r(2, 4), dx=0.5), s(r(3, 4), r(3), dim=0), s(r(2, 3), r(2, 3)), s(ints(4)), s(r(2, 0), dim=1),
          s(ints(2, 3), idx([1, 2, 4]))]


def _trapezoid(y: np.ndarray, x: Any = None, *, dx: Any = None, dim: int = -1) -> np.ndarray:
    res = np.trapezoid(y, x, dx=1.0 if dx is None else dx, axis=dim) if x is None or x.ndim == y.ndim or x.ndim == 1 \
        else np.trapezoid(y, x, axis=dim)
    return np.asarray(res, dtype=y.dtype if y.dtype.kind == "f" else np.float32)


op("trapezoid", _TRAPZ, _trapezoid)
op("trapz", [s(r(5)), s(r(2, 4), dx=0.5), s(r(3, 4), r(3), dim=0)], _trapezoid)


def _cumulative_trapezoid(y: np.ndarray, x: Any = None, *, dx: Any = None, dim: int = -1) -> np.ndarray:
    y_ = np.moveaxis(y, dim, -1)
    d = np.diff(np.moveaxis(np.broadcast_to(x.reshape([-1 if k == dim % y.ndim else 1 for k in range(y.ndim)])
                                            if x.ndim == 1 else x, y.shape), dim, -1)) if x is not None \
        else (1.0 if dx is None else dx)
    res = np.moveaxis(np.cumsum(d * (y_[..., 1:] + y_[..., :-1]) / 2.0, axis=-1), -1, dim)
    return np.asarray(res, dtype=y.dtype if y.dtype.kind == "f" else np.float32)


op("cumulative_trapezoid", [s(r(5)), s(r(2, 4), dx=0.5), s(r(3, 4), r(3), dim=0), s(r(2, 3), r(2, 3)), s(ints(4))],
   _cumulative_trapezoid)


def _np_gradient(a: np.ndarray, *, spacing: Any = 1, dim: Any = None, edge_order: int = 1) -> tuple:
    axes = list(range(a.ndim)) if dim is None else ([dim] if isinstance(dim, int) else list(dim))
    steps = list(spacing) if isinstance(spacing, (list, tuple)) else [spacing] * len(axes)
    res = np.gradient(a, *steps, axis=axes, edge_order=edge_order)
    res = res if isinstance(res, (list, tuple)) else [res]
    return tuple(np.asarray(g, dtype=a.dtype if a.dtype.kind == "f" else np.float32) for g in res)


op("gradient", [s(r(4, 5)), s(r(4, 5), spacing=2.0), s(r(4, 5), spacing=[0.5, 3.0]), s(r(3, 5), dim=1, edge_order=2),
                s(r(4, 5), spacing=(Const(np.array([0.0, 1.0, 1.5, 4.0])),), dim=0),
                s(r(4, 5), spacing=(Const(np.array([0.0, 1.0, 1.5, 4.0])), Const(np.cumsum(pos(5)))), edge_order=2),
                s(ints(5)), s(r(3, 4, 3), dim=[2, 0])],
   _np_gradient, method=False)

# -- statistics ----------------------------------------------------------------------------------------


def _np_cov(a: np.ndarray, *, correction: int = 1, fweights: Any = None, aweights: Any = None) -> np.ndarray:
    res = np.cov(a, ddof=correction, fweights=fweights, aweights=aweights)
    return np.asarray(res, dtype=a.dtype if a.dtype.kind == "f" else np.float32)


op("cov", [s(r(3, 5)), s(r(5)), s(r(2, 6), correction=0), s(r(3, 4), fweights=idx([1, 2, 0, 3])),
           s(r(3, 4), aweights=Const(pos(4)), correction=2), s(r(2, 4), fweights=idx([1, 2, 1, 1]), aweights=Const(pos(4))),
           s(ints(2, 5))],
   _np_cov, rtol=1e-6)
op("corrcoef", [s(r(3, 5)), s(r(2, 6)), s(ints(2, 5)), s(r(5))],
   lambda a: np.asarray(np.clip(np.corrcoef(a), -1, 1), dtype=a.dtype if a.dtype.kind == "f" else np.float32), rtol=1e-6)


def _np_histogram(a: np.ndarray, bins: Any = 100, *, range: Any = None, weight: Any = None, density: bool = False):
    hist, edges = np.histogram(a, bins, range, weights=weight, density=density)
    return hist.astype(a.dtype), edges.astype(a.dtype)


forward_only("histogram", [s(Const(r(20)), 5), s(Const(r(4, 5)), 3, range=(-1.0, 1.0)),
                           s(Const(r(30)), Const(np.array([-2.0, -0.5, 0.0, 2.0])), weight=Const(pos(30))),
                           s(Const(r(20)), 4, density=True), s(Const(np.ones(3)), 2)],
             _np_histogram)


def _np_histogramdd(a: np.ndarray, bins: Any, range: Any = None, weight: Any = None, density: bool = False):
    d = a.shape[-1]
    rng = None if range is None else [range[2 * k: 2 * k + 2] for k in builtins_range(d)]
    hist, edges = np.histogramdd(a.reshape(-1, d), bins, rng, weights=weight, density=density)
    return hist.astype(a.dtype), tuple(e.astype(a.dtype) for e in edges)


builtins_range = range
forward_only("histogramdd", [s(Const(r(20, 2)), [3, 4]), s(Const(r(10, 3)), 2, range=[-1.0, 1.0, 0.0, 2.0, -2.0, 2.0]),
                             s(Const(r(12, 2)), [Const(np.array([-2.0, 0.0, 2.0])), Const(np.array([-2.0, -1.0, 1.0, 2.0]))],
                               weight=Const(pos(12)), density=True)],
             _np_histogramdd)

# -- writes ----------------------------------------------------------------------------------------------


def _np_put(a: np.ndarray, index: np.ndarray, source: np.ndarray, accumulate: bool = False) -> np.ndarray:
    res = a.copy().reshape(-1)
    if accumulate:
        np.add.at(res, index.reshape(-1), source.reshape(-1))
    else:
        res[index.reshape(-1)] = source.reshape(-1)
    return res.reshape(a.shape)


op("put", [s(r(2, 3), idx([0, -1, 4]), r(3)), s(r(2, 3), idx([[1, 1], [2, 0]]), r(2, 2), True), s(r(), idx([0]), r(1))],
   _np_put)


def _np_index_reduce(a: np.ndarray, dim: int, index: np.ndarray, source: np.ndarray, reduce: str,
                     include_self: bool = True) -> np.ndarray:
    res = np.moveaxis(a.copy(), dim, 0)
    src = np.moveaxis(source, dim, 0)
    ufunc = {"prod": np.multiply, "amax": np.maximum, "amin": np.minimum, "mean": np.add}[reduce]
    counts = np.zeros(res.shape[0], dtype=np.int64)
    for i, j in enumerate(index):
        if not include_self and counts[j] == 0:
            res[j] = src[i]
        else:
            res[j] = ufunc(res[j], src[i])
        counts[j] += 1
    if reduce == "mean":
        n = (counts + (1 if include_self else 0)).clip(1).reshape((-1,) + (1,) * (res.ndim - 1))
        res = res // n if res.dtype.kind in "iu" else res / n
    return np.moveaxis(res, 0, dim)


_IR = {"prod": [s(r(4, 3), 0, idx([0, 2, 0]), r(3, 3), "prod"), s(r(4, 3), 1, idx([1, 1]), r(4, 2), "prod", include_self=False)],
       "mean": [s(r(4, 3), 0, idx([0, 2, 0]), r(3, 3), "mean"), s(r(4, 3), 1, idx([2, 2]), r(4, 2), "mean", include_self=False),
                s(ints(4), 0, idx([0, 0, 3]), ints(3), "mean")],
       "amax": [s(r(4, 3), 0, idx([0, 2, 0]), r(3, 3), "amax"), s(r(4, 3), 1, idx([0, 1]), r(4, 2), "amax", include_self=False)],
       "amin": [s(r(4, 3), 0, idx([3, 2, 3]), r(3, 3), "amin"), s(ints(2, 3), 0, idx([1]), ints(1, 3), "amin", include_self=False)]}
op("index_reduce", [sample for samples in _IR.values() for sample in samples], _np_index_reduce)

# Tested in tests/ops/test_misc_ops.py: binomial (random: its distribution, generator and errors against torch), the
# predicates and device query (results that are not tensors), and detach/detach_ (graph state, not values).
NOT_IN_TABLE = {"binomial", "get_device", "is_inference", "is_same_size", "is_signed", "detach", "detach_"}
