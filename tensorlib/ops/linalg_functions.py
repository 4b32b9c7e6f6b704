"""Linear algebra composed from the decompositions: norms of matrices, pinv, lstsq, rank, cond, matrix_exp,
multi_dot, tensorinv/tensorsolve, LDL^T, lobpcg, the randomised low-rank SVD, and torch's older top-level names
(``torch.svd``, ``torch.qr``, ``torch.lu``, ``triangular_solve``, ...) with their Tensor methods."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .. import return_types as rt
from .._autograd.graph import Node, SavedTensor, rename_grad_fn, save_input, unpack
from .._C import _LinAlgError
from .._dtype import FROM_NP
from .._registry import LINALG, TENSORLIB, op
from .._tensor import Tensor, wrap_dim
from . import _lapack, broadcast, unary
from ._util import broadcast_error, no_half, tensor_arg, type_title, warn_once, wrap, write_out
from .arithmetic import add, div, mul, sub
from .broadcast import expand
from .conversion import clone, conj, zeros_like
from .creation import randn
from .decompositions import (
    NotDifferentiable,
    _cholesky,
    _svd,
    check_matrix,
    cholesky,
    eigh,
    finish,
    finish_tuple,
    lu_factor_ex,
    lu_solve,
    mH,
    outputs,
    qr,
    real_dtype,
    save_output,
    solve,
    solve_triangular,
    svd,
    svdvals,
    unpack_lu,
)
from .indexing import narrow, select
from .join_split import cat
from .linalg import cross as _cross, inv, inv_with_info, matmul, vector_norm
from .reduction import amax, amin, cumprod, mean
from .selection import where
from .shape import diagonal as _diagonal, flip, movedim, permute, reshape, squeeze, transpose, unsqueeze


def _rename(t: Tensor, name: str) -> Tensor:
    return rename_grad_fn(t, name)


# -- norms of matrices ------------------------------------------------------------------------------------


@op(variants="function method", name="norm")
def torch_norm(input: Tensor, p: Any = "fro", dim: Any = None, keepdim: bool = False, out: Tensor | None = None,
         dtype: Any = None) -> Tensor:
    """The ``p``-norm over ``dim`` (Frobenius/2-norm of all elements by default)."""
    x = tensor_arg(input, "norm")
    if p == "fro" or p is None:
        p = 2
    if p == "nuc":
        return finish(matrix_norm(x, "nuc", dim if dim is not None else (-2, -1), keepdim), out, "norm")
    if isinstance(p, str):
        raise RuntimeError(f"norm(): invalid norm type {p!r}")
    return vector_norm(x, p, dim, keepdim, dtype=dtype, out=out)


@op(namespace=LINALG)
def norm(A: Tensor, ord: Any = None, dim: Any = None, keepdim: bool = False, *, out: Tensor | None = None,  # noqa: A002
                dtype: Any = None) -> Tensor:
    """A vector norm (``dim`` an int, or None with a 1-D input) or a matrix norm (``dim`` a 2-tuple, or None with a
    2-D input); without ``ord``, the 2-norm of all elements (Frobenius over a 2-tuple ``dim``)."""
    x = tensor_arg(A, "linalg_norm", "A")
    nd = x._data.ndim
    if dim is not None:
        if not isinstance(dim, (int, tuple, list)) or isinstance(dim, bool):
            raise TypeError(f"linalg_norm(): argument 'dim' must be tuple of ints, not {type(dim).__name__}")
        dims = (dim,) if isinstance(dim, int) else tuple(dim)
    elif ord is not None:
        if nd not in (1, 2):
            raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got {nd}D.")
        dims = tuple(range(nd))
    else:
        return vector_norm(x, 2, None, keepdim, dtype=dtype, out=out)
    if (len(dims) == 2 and ord is not None) or isinstance(ord, str):
        return matrix_norm(x, ord, dims, keepdim, dtype=dtype, out=out)
    return vector_norm(x, 2 if ord is None else ord, dims, keepdim, dtype=dtype, out=out)


@op(namespace=LINALG)
def matrix_norm(A: Tensor, ord: Any = "fro", dim: Any = (-2, -1), keepdim: bool = False, *,  # noqa: A002
                dtype: Any = None, out: Tensor | None = None) -> Tensor:
    """A matrix norm of the (dim[0], dim[1]) planes: Frobenius, nuclear, 2, -2, 1, -1, inf, -inf."""
    x = tensor_arg(A, "matrix_norm", "A")
    if x._data.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    if not isinstance(dim, (int, tuple, list)) or isinstance(dim, bool):
        raise TypeError(f"linalg_matrix_norm(): argument 'dim' must be tuple of ints, not {type(dim).__name__}")
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    if len(dims) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(str(d) for d in dims)}")
    d0, d1 = (wrap_dim(d, x._data.ndim) for d in dims)
    if ord == "fro":
        return vector_norm(x, 2, (d0, d1), keepdim, dtype=dtype, out=out)
    if ord in ("nuc", 2, -2):
        s = svdvals(movedim(x, (d0, d1), (-2, -1)))
        if ord == "nuc":
            res = broadcast.sum(s, -1)
        else:
            res = (amax if ord == 2 else amin)(s, -1)
        if keepdim:
            res = unsqueeze(unsqueeze(res, min(d0, d1)), max(d0, d1))
        return finish(res, out, "linalg.matrix_norm")
    ab = unary.abs(x)
    if ord in (1, -1):
        col = broadcast.sum(ab, d0, keepdim=True)
        res = (amax if ord == 1 else amin)(col, d1, keepdim=True)
    elif ord in (float("inf"), float("-inf")):
        row = broadcast.sum(ab, d1, keepdim=True)
        res = (amax if ord > 0 else amin)(row, d0, keepdim=True)
    else:
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    if not keepdim:
        res = squeeze(res, (d0, d1))
    return finish(res, out, "linalg.matrix_norm")


@op()
def frobenius_norm(input: Tensor, dim: Any, keepdim: bool = False, *, out: Tensor | None = None) -> Tensor:
    """The Frobenius norm over the two dims ``dim`` (deprecated in torch: ``linalg.vector_norm(A, 2, dim)``)."""
    x = tensor_arg(input, "frobenius_norm")
    warn_once("frobenius_norm", "at::frobenius_norm is deprecated and it is just left for JIT compatibility. It will "
               "be removed in a future PyTorch release. Please use `linalg.vector_norm(A, 2., dim, keepdim)` instead")
    if not (isinstance(dim, int) or (isinstance(dim, (tuple, list)) and all(isinstance(d, int) for d in dim))):
        raise TypeError(f"frobenius_norm(): argument 'dim' (position 2) must be tuple of ints, not {type(dim).__name__}")
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    if len(dims) != 2:
        raise RuntimeError(f"Expected dim to be a list of 2 elements, but got {len(dims)}")
    return vector_norm(x, 2, dims, keepdim, out=out)


@op()
def nuclear_norm(input: Tensor, dim: Any = None, keepdim: bool = False, *, out: Tensor | None = None) -> Tensor:
    """The nuclear norm (sum of singular values) over ``dim`` (the last two dims by default; deprecated in torch)."""
    x = tensor_arg(input, "nuclear_norm")
    warn_once("nuclear_norm", "at::nuclear_norm is deprecated and it is just left for JIT compatibility. It will be "
               "removed in a future PyTorch release. Please use `linalg.matrix_norm(A, 'nuc', dim, keepdim)` instead")
    if isinstance(dim, bool):  # nuclear_norm(input, keepdim)
        dim, keepdim = None, dim
    return matrix_norm(x, "nuc", (-2, -1) if dim is None else dim, keepdim, out=out)


# -- pseudo-inverse, least squares, rank and condition number ----------------------------------------------


def pinv_backward(g: Tensor, pinvA: Tensor, A: Tensor) -> Tensor:
    """The gradient of the pseudo-inverse at constant rank (Golub and Pereyra), as torch's pinv_backward."""
    m, n = A._data.shape[-2:]
    pinvAh = mH(pinvA)
    gh = mH(g)
    if m <= n:
        K = matmul(gh, pinvA)
        KpinvAh = matmul(K, pinvAh)
        r = sub(sub(KpinvAh, mH(matmul(pinvA, K))), matmul(matmul(A, pinvA), KpinvAh))
        return add(r, matmul(matmul(pinvAh, pinvA), sub(gh, matmul(K, A))))
    K = matmul(pinvA, gh)
    pinvAhK = matmul(pinvAh, K)
    r = sub(matmul(matmul(sub(gh, matmul(A, K)), pinvA), pinvAh), mH(matmul(K, pinvA)))
    return sub(add(r, pinvAhK), matmul(matmul(pinvAhK, pinvA), A))


class LinalgPinvBackward0(Node):
    __slots__ = ("self_", "result")
    _saved_slots = ("self_", "result")
    self_: SavedTensor
    result: SavedTensor

    def backward(self, g: Tensor) -> tuple:
        return (pinv_backward(g, unpack(self, self.result), unpack(self, self.self_)),)


def _tol_array(v: Any) -> Any:
    if v is None:
        return None
    if isinstance(v, Tensor):
        return v._data
    if isinstance(v, bool) or not isinstance(v, (int, float, np.number)):
        raise TypeError(f"linalg_matrix_rank(): tolerances must be float or Tensor, not {type(v).__name__}")
    return float(v)


def _tolerance(smax: np.ndarray, m: int, n: int, dt: np.dtype, atol: Any, rtol: Any) -> np.ndarray:
    """``max(atol, rtol * smax)`` with torch's defaults: rtol = eps * max(m, n) unless atol > 0 is given alone."""
    atol_a, rtol_a = _tol_array(atol), _tol_array(rtol)
    if rtol_a is None:
        if atol_a is not None and np.all(np.asarray(atol_a) > 0):
            rtol_a = 0.0
        else:
            rtol_a = np.finfo(dt).eps * max(m, n)
    if atol_a is None:
        atol_a = 0.0
    atol_arr, rtol_arr = np.asarray(atol_a, dtype=real_dtype(dt)), np.asarray(rtol_a, dtype=real_dtype(dt))
    try:
        scaled = rtol_arr * smax
    except ValueError:
        raise broadcast_error(rtol_arr, smax) from None
    try:
        return np.maximum(atol_arr, scaled)
    except ValueError:
        raise broadcast_error(atol_arr, scaled) from None


def _pinv_np(a: np.ndarray, atol: Any, rtol: Any, hermitian: bool) -> np.ndarray:
    m, n = a.shape[-2:]
    if a.size == 0:
        return np.zeros(a.shape[:-2] + (n, m), a.dtype)
    if hermitian:
        w, v = np.linalg.eigh(a)
        smax = np.max(np.abs(w), axis=-1)
        tol = _tolerance(smax, m, n, a.dtype, atol, rtol)
        keep = np.abs(w) > tol[..., None]
        with np.errstate(all="ignore"):
            inv_w = np.where(keep, 1.0 / np.where(keep, w, 1.0), 0.0)
        return (v * inv_w[..., None, :]) @ np.swapaxes(v, -1, -2).conj()
    u, s, vh = _lapack.svd(a, full_matrices=False)
    tol = _tolerance(s[..., 0] if s.shape[-1] else np.zeros(s.shape[:-1]), m, n, a.dtype, atol, rtol)
    keep = s > tol[..., None]
    with np.errstate(all="ignore"):
        inv_s = np.where(keep, 1.0 / np.where(keep, s, 1.0), 0.0)
    return (np.swapaxes(vh, -1, -2).conj() * inv_s[..., None, :]) @ np.swapaxes(u, -1, -2).conj()


@op(namespace=LINALG)
def pinv(A: Tensor, rcond: Any = None, hermitian: bool = False, *, atol: Any = None, rtol: Any = None,
         out: Tensor | None = None) -> Tensor:
    """The Moore-Penrose pseudo-inverse: singular values at most ``max(atol, rtol * s_max)`` count as zero."""
    x = tensor_arg(A, "linalg_pinv", "A")
    a = x._data
    if a.ndim < 2 or a.dtype.kind not in "fc" or a.dtype == np.float16:
        raise RuntimeError(f"linalg.pinv({type_title(a.dtype)}{{{list(a.shape)}}}): expected a tensor with 2 or more "
                           "dimensions of float, double, cfloat or cdouble types")
    if rcond is not None:
        rtol = rcond
    r = _pinv_np(a, atol, rtol, hermitian)
    (res,), node = outputs(LinalgPinvBackward0, [r], (x,), (0,))
    if node is not None:
        node.self_ = save_input(x)
        node.result = save_output(res, 0)
    return finish(res, out, "linalg.pinv")


@op(variants="function method")
def pinverse(input: Tensor, rcond: float = 1e-15) -> Tensor:
    """The pseudo-inverse with relative tolerance ``rcond`` (``linalg.pinv(input, rtol=rcond)``)."""
    return pinv(tensor_arg(input, "pinverse"), rtol=rcond)


class LinalgLstsqBackward0(Node):
    __slots__ = ("self_", "b", "solution", "vector")
    _saved_slots = ("self_", "b", "solution")
    num_outputs = 4
    self_: SavedTensor
    b: SavedTensor
    solution: SavedTensor
    vector: bool

    def apply(self, grads: list) -> tuple:
        gX, gR = grads[0], grads[1]
        if gR is not None and gR._data.size == 0:
            gR = None
        if gX is None and gR is None:
            return (None, None)
        A = unpack(self, self.self_)
        B0 = unpack(self, self.b)
        B = unsqueeze(B0, -1) if self.vector else B0
        gA = gB = None
        if gX is not None:
            if self.vector:
                gX = unsqueeze(gX, -1)
            pinvA = pinv(A)
            if self.needs(0):
                gA = pinv_backward(matmul(gX, mH(B)), pinvA, A)
            if self.needs(1):
                gB = matmul(mH(pinvA), gX)
        if gR is not None:
            # residuals = sum over rows of |A X - B|^2, stationary in X: only their explicit A and B terms
            X = unpack(self, self.solution)
            if self.vector:
                X = unsqueeze(X, -1)
            r = mul(sub(matmul(A, X), B), unsqueeze(gR, -2))
            if self.needs(0):
                t = mul(matmul(r, mH(X)), 2.0)
                gA = t if gA is None else add(gA, t)
            if self.needs(1):
                t = mul(r, -2.0)
                gB = t if gB is None else add(gB, t)
        if gA is not None:
            gA = broadcast.sum_to_size(gA, A._data.shape)
        if gB is not None:
            gB = broadcast.sum_to_size(squeeze(gB, -1) if self.vector else gB, B0._data.shape)
        return gA, gB


@op(namespace=LINALG)
def lstsq(A: Tensor, B: Tensor, rcond: float | None = None, *, driver: str | None = None) -> Any:
    """The least-squares solution of ``A X = B``: ``(solution, residuals, rank, singular_values)``; what else is
    computed depends on ``driver`` (``gelsy`` by default, as torch on the CPU)."""
    fname = "torch.linalg.lstsq"
    x = tensor_arg(A, "linalg_lstsq", "self")
    y = tensor_arg(B, "linalg_lstsq", "b", 2)
    a, b = x._data, y._data
    if a.ndim < 2:
        raise RuntimeError(f"{fname}: input must have at least 2 dimensions.")
    if a.dtype.kind not in "fc":
        raise RuntimeError(f"linalg.lstsq: Expected a floating point or complex tensor as input. Got {type_title(a.dtype)}")
    if a.dtype != b.dtype:
        raise RuntimeError(f"{fname}: Expected input and other to have the same dtype, but got input's dtype "
                           f"{FROM_NP[a.dtype]} and other's dtype {FROM_NP[b.dtype]}".replace("tensorlib.", "torch."))
    drivers = ("gels", "gelsy", "gelsd", "gelss")
    if driver is not None and driver not in drivers:
        raise RuntimeError(f"{fname}: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    driver = driver or "gelsy"
    if b.ndim == 0:
        raise RuntimeError(f"{fname}: other must have at least 1 dimension.")
    if not 0 <= a.ndim - b.ndim <= 1:
        raise RuntimeError(f"{fname}: input.dim() must be greater or equal to other.dim() and "
                           "(input.dim() - other.dim()) <= 1")
    vector = b.ndim == a.ndim - 1
    bm = b[..., None] if vector else b
    if bm.shape[-2] != a.shape[-2]:
        raise RuntimeError(f"{fname}: input.size(-2) should match other.size(-2)")
    m, n = a.shape[-2:]
    aa, bb = _lapack.broadcast_batch(a, bm)
    rdt = real_dtype(a.dtype)
    u, s, vh = _lapack.svd(aa, full_matrices=False)
    smax = s[..., 0] if s.shape[-1] else np.zeros(s.shape[:-1], rdt)
    tol = (np.finfo(a.dtype).eps * max(m, n) if rcond is None or rcond < 0 else rcond) * smax
    keep = s > tol[..., None]
    rank = keep.sum(-1).astype(np.int64)
    if driver == "gels" and np.any(rank < min(m, n)):
        raise _LinAlgError(f"{fname}: The least squares solution could not be computed because the input matrix does "
                           f"not have full rank (error code: {int(np.min(rank)) + 1}).")
    with np.errstate(all="ignore"):
        inv_s = np.where(keep, 1.0 / np.where(keep, s, 1.0), 0.0)
    sol = (np.swapaxes(vh, -1, -2).conj() * inv_s[..., None, :]) @ (np.swapaxes(u, -1, -2).conj() @ bb)
    empty = np.zeros(0, rdt)
    residuals = empty
    if driver != "gelsy" and m > n and np.all(rank == n):
        residuals = np.sum(np.abs(aa @ sol - bb) ** 2, axis=-2).astype(rdt)
    rank_out = rank if driver != "gels" else np.zeros(0, np.int64)
    sv = s.astype(rdt) if driver in ("gelsd", "gelss") else empty
    if vector:
        sol = sol[..., 0]
    (X, R, K, S), node = outputs(LinalgLstsqBackward0, [sol.astype(a.dtype, copy=False), residuals, rank_out, sv],
                                 (x, y), (0, 1))
    if node is not None:
        node.self_, node.b = save_input(x), save_input(y)
        node.solution = save_output(X, 0)
        node.vector = vector
    return rt.linalg_lstsq(X, R, K, S)


@op(namespace=LINALG)
def matrix_rank(A: Tensor, tol: Any = None, hermitian: bool = False, *, atol: Any = None, rtol: Any = None,
                out: Tensor | None = None) -> Tensor:
    """The number of singular values above ``max(atol, rtol * s_max)`` (eigenvalues in absolute value with
    ``hermitian``), int64."""
    x = tensor_arg(A, "linalg_matrix_rank", "A")
    fname = "linalg.eigh" if hermitian else "linalg.svd"
    a = check_matrix(x, fname, square=hermitian)
    if tol is not None:
        atol, rtol = tol, 0.0
    m, n = a.shape[-2:]
    if hermitian:
        s = np.abs(np.linalg.eigvalsh(a))
        smax = np.max(s, axis=-1) if n else np.zeros(s.shape[:-1])
    else:
        s = _lapack.svd(a, compute_uv=False)
        smax = s[..., 0] if s.shape[-1] else np.zeros(s.shape[:-1])
    t = _tolerance(smax, m, n, a.dtype, atol, rtol)
    return finish(wrap(np.sum(s > t[..., None], axis=-1).astype(np.int64)), out, "linalg.matrix_rank")


@op(namespace=LINALG)
def cond(A: Tensor, p: Any = None, *, out: Tensor | None = None) -> Tensor:
    """The condition number in the ``p`` norm: ratios of singular values for None/2/-2, else
    ``norm(A) * norm(A^-1)`` (inf for a singular matrix)."""
    x = tensor_arg(A, "linalg_cond", "A")
    if p not in (None, 2, -2, 1, -1, float("inf"), float("-inf"), "fro", "nuc"):
        raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    if p in (None, 2, -2):
        a = check_matrix(x, "linalg.cond", square=False)
        if min(a.shape[-2:]) == 0:  # empty matrices: 0, as torch
            return finish(wrap(np.zeros(a.shape[:-2], real_dtype(a.dtype))), out, "linalg.cond")
        s = svdvals(x)
        first, last = select(s, -1, 0), select(s, -1, -1)
        return finish(div(last, first) if p == -2 else div(first, last), out, "linalg.cond")
    a = check_matrix(x, f"linalg.cond(ord={p})")
    if a.shape[-1] == 0:
        return finish(wrap(np.zeros(a.shape[:-2], real_dtype(a.dtype))), out, "linalg.cond")
    inverse, info = inv_with_info(x, "linalg.cond", False)
    res = mul(matrix_norm(x, p), matrix_norm(inverse, p))
    if np.any(info):
        res = where(wrap(info > 0), wrap(np.asarray(np.inf, real_dtype(a.dtype))), res)
    return finish(res, out, "linalg.cond")


# -- the matrix exponential and products -------------------------------------------------------------------------


class LinalgMatrixExpBackward0(Node):
    __slots__ = ("self_",)
    _saved_slots = ("self_",)
    self_: SavedTensor

    def backward(self, g: Tensor) -> tuple:
        # the derivative is the upper right block of exp([[A^H, G], [0, A^H]])
        A = unpack(self, self.self_)
        n = A._data.shape[-1]
        Ah = mH(A)
        zero = zeros_like(Ah)
        M = cat([cat([Ah, g], -1), cat([zero, Ah], -1)], -2)
        return (narrow(narrow(matrix_exp(M), -2, 0, n), -1, n, n),)


@op(variants="function method", namespace=(TENSORLIB, LINALG))
def matrix_exp(A: Tensor) -> Tensor:
    """The matrix exponential (Pade approximant with scaling and squaring), batched."""
    x = tensor_arg(A, "linalg_matrix_exp", "A")
    a = check_matrix(x, "linalg.matrix_exp")
    (res,), node = outputs(LinalgMatrixExpBackward0, [_lapack.matrix_exp(a)], (x,), (0,))
    if node is not None:
        node.self_ = save_input(x)
    return res


_CPP = {"float32": "float", "float64": "double", "float16": "c10::Half", "complex64": "c10::complex<float>",
        "complex128": "c10::complex<double>", "int64": "long int", "int32": "int"}


def _chain_order(dims: list[int]) -> list[list[int]]:
    """The split points of the cheapest parenthesisation of a chain of matrices (dims[i] x dims[i + 1])."""
    k = len(dims) - 1
    cost = [[0] * k for _ in range(k)]
    split = [[0] * k for _ in range(k)]
    for length in range(1, k):
        for i in range(k - length):
            j = i + length
            cost[i][j] = -1
            for s in range(i, j):
                c = cost[i][s] + cost[s + 1][j] + dims[i] * dims[s + 1] * dims[j + 1]
                if cost[i][j] < 0 or c < cost[i][j]:
                    cost[i][j], split[i][j] = c, s
    return split


def _chain(ts: list[Tensor], split: list[list[int]], i: int, j: int) -> Tensor:
    if i == j:
        return ts[i]
    s = split[i][j]
    return matmul(_chain(ts, split, i, s), _chain(ts, split, s + 1, j))


@op(namespace=LINALG)
def multi_dot(tensors: Sequence[Tensor], *, out: Tensor | None = None) -> Tensor:
    """The product of a chain of matrices in the cheapest order (the first and last may be vectors)."""
    ts = list(tensors)
    n = len(ts)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    for i, t in enumerate(ts):
        tensor_arg(t, "linalg_multi_dot", "tensors", 1)
        d = t._data.ndim
        if i == 0 and d not in (1, 2):
            raise RuntimeError(f"multi_dot(): the first tensor must be 1D or 2D but got {d}D")
        if i == n - 1 and d not in (1, 2):
            raise RuntimeError(f"multi_dot(): the last tensor must be 1D or 2D but got {d}D")
        if 0 < i < n - 1 and d != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {d}D")
        if t._data.dtype != ts[0]._data.dtype:
            raise RuntimeError(
                f"multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                f"{_CPP.get(ts[0].dtype.name, ts[0].dtype.name)} and tensor {i} {_CPP.get(t.dtype.name, t.dtype.name)}"
            )
    first_vec, last_vec = ts[0]._data.ndim == 1, ts[-1]._data.ndim == 1
    mats = list(ts)
    if first_vec:
        mats[0] = unsqueeze(mats[0], 0)
    if last_vec:
        mats[-1] = unsqueeze(mats[-1], -1)
    for i in range(n - 1):
        if mats[i]._data.shape[1] != mats[i + 1]._data.shape[0]:
            raise RuntimeError(f"multi_dot(): tensors {i} and {i + 1} with shapes {list(ts[i]._data.shape)} and "
                               f"{list(ts[i + 1]._data.shape)} cannot be multiplied")
    dims = [mats[0]._data.shape[0]] + [t._data.shape[1] for t in mats]
    res = _chain(mats, _chain_order(dims), 0, n - 1)
    if first_vec and last_vec:
        res = reshape(res, ())
    elif first_vec:
        res = squeeze(res, 0)
    elif last_vec:
        res = squeeze(res, -1)
    return finish(res, out, "linalg.multi_dot")


@op()
def chain_matmul(*matrices: Tensor, out: Tensor | None = None) -> Tensor:
    """The product of 2-D tensors in the cheapest order (deprecated in torch for ``linalg.multi_dot``)."""
    warn_once("chain_matmul", "torch.chain_matmul is deprecated and will be removed in a future PyTorch release. "
               "Use torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather than multiple "
               "parameters.")
    if len(matrices) == 1 and isinstance(matrices[0], (list, tuple)):
        matrices = tuple(matrices[0])
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    for m in matrices:
        tensor_arg(m, "chain_matmul", "matrices")
        if m._data.ndim != 2:
            raise RuntimeError(f"Tensor dimension is {m._data.ndim}, expected 2 instead.")
    if len(matrices) == 1:
        return finish(clone(matrices[0]), out, "chain_matmul")
    return multi_dot(list(matrices), out=out)


@op(namespace=LINALG)
def vecdot(x: Tensor, y: Tensor, *, dim: int = -1, out: Tensor | None = None) -> Tensor:
    """``sum(conj(x) * y, dim)``: the dot product of vectors along ``dim`` (broadcasting)."""
    a = tensor_arg(x, "linalg_vecdot", "x")
    b = tensor_arg(y, "linalg_vecdot", "y", 2)
    for t in (a, b):
        if t._data.dtype.kind not in "fc":
            raise RuntimeError(f"linalg.vecdot: Expected a floating point or complex tensor as input. Got "
                               f"{type_title(t._data.dtype)}")
    if a._data.dtype != b._data.dtype:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
                           f"{type_title(a._data.dtype)} and y of type {type_title(b._data.dtype)} instead")
    xa = conj(a) if a._data.dtype.kind == "c" else a
    return finish(broadcast.sum(mul(xa, b), dim), out, "linalg.vecdot")


@op(namespace=LINALG)
def vander(x: Tensor, *, N: int | None = None) -> Tensor:
    """The Vandermonde matrix of ``x`` (batched over leading dims): columns ``x**0, x**1, ..., x**(N-1)``."""
    t = tensor_arg(x, "linalg_vander", "x")
    if t._data.dtype.kind == "b" or t._data.dtype == np.float16:
        name = "Bool" if t._data.dtype.kind == "b" else "Half"
        raise RuntimeError(f"linalg.vander supports floating point, complex, and integer tensors, but got {name}")
    n = N if N is not None else (t._data.shape[-1] if t._data.ndim else 1)
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    xs = unsqueeze(t, -1)
    ones = wrap(np.ones(t._data.shape + (1,), t._data.dtype))
    powers = cat([ones, expand(xs, t._data.shape + (n - 1,))], -1)
    return cumprod(powers, -1)


@op(namespace=LINALG)
def cross(input: Tensor, other: Tensor, *, dim: int = -1, out: Tensor | None = None) -> Tensor:
    """The cross product of 3-vectors along ``dim`` (the last dim by default; operands broadcast)."""
    x = tensor_arg(input, "linalg_cross")
    y = tensor_arg(other, "linalg_cross", "other", 2)
    if x._data.ndim != y._data.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    if x._data.shape != y._data.shape:
        shape = tuple(broadcast.broadcast_shapes(x._data.shape, y._data.shape))
        x, y = expand(x, shape), expand(y, shape)
    if x._data.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = wrap_dim(dim, x._data.ndim)
    if x._data.shape[d] != 3 or y._data.shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {x._data.shape[d]} and "
                           f"{y._data.shape[d]}")
    return _cross(x, y, dim, out=out)


@op(namespace=LINALG)
def diagonal(A: Tensor, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """The diagonals of the matrices of A (a view; ``tensorlib.diagonal`` with the last two dims by default)."""
    return _diagonal(tensor_arg(A, "linalg_diagonal", "A"), offset, dim1, dim2)


@op(namespace=LINALG)
def tensorinv(A: Tensor, ind: int = 2, *, out: Tensor | None = None) -> Tensor:
    """The inverse of A seen as a linear map from its first ``ind`` dims to the rest."""
    x = tensor_arg(A, "linalg_tensorinv", "A")
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    shape = x._data.shape
    if ind > len(shape):
        raise RuntimeError(f"linalg.tensorinv: ind={ind} is more than the number of dimensions of A ({len(shape)})")
    before, after = int(np.prod(shape[:ind])), int(np.prod(shape[ind:]))
    if before != after:
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[ind:]) == prod(self.shape[:ind]), "
                           f"but got {after} != {before}")
    return finish(reshape(inv(reshape(x, (before, after))), shape[ind:] + shape[:ind]), out, "linalg.tensorinv")


@op(namespace=LINALG)
def tensorsolve(A: Tensor, B: Tensor, dims: Any = None, *, out: Tensor | None = None) -> Tensor:
    """The X with ``tensordot(A, X, X.ndim) = B`` (``dims`` of A moved to the end first)."""
    x = tensor_arg(A, "linalg_tensorsolve", "A")
    y = tensor_arg(B, "linalg_tensorsolve", "B", 2)
    if dims is not None:
        nd = x._data.ndim
        ds = [wrap_dim(d, nd) for d in (dims if isinstance(dims, (list, tuple)) else (dims,))]
        x = permute(x, [d for d in range(nd) if d not in ds] + ds)
    shape = x._data.shape
    k = y._data.ndim
    before, after = int(np.prod(shape[:k])), int(np.prod(shape[k:]))
    if before != after:
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
                           f"prod(self.shape[:other.ndim]), but got {after} != {before}")
    res = solve(reshape(x, (before, after)), reshape(y, (before,)))
    return finish(reshape(res, shape[k:]), out, "linalg.tensorsolve")


# -- Cholesky-based solves and torch's older names ----------------------------------------------------------


def _cholesky_solve(b: Tensor, L: Tensor, upper: bool) -> Tensor:
    if upper:  # A = U^H U
        y = solve_triangular(mH(L), b, upper=False)
        return solve_triangular(L, y, upper=True)
    y = solve_triangular(L, b, upper=False)
    return solve_triangular(mH(L), y, upper=True)


@op(variants="function method")
def cholesky_solve(input: Tensor, input2: Tensor, upper: bool = False, *, out: Tensor | None = None) -> Tensor:
    """The solution of ``A X = input`` given A's Cholesky factor ``input2`` (lower, or upper with ``upper``)."""
    b = tensor_arg(input, "cholesky_solve")
    no_half("cholesky_solve_cpu", b)
    L = tensor_arg(input2, "cholesky_solve", "input2", 2)
    if b._data.ndim < 2:
        raise RuntimeError(f"b should have at least 2 dimensions, but has {b._data.ndim} dimensions instead")
    if L._data.ndim < 2:
        raise RuntimeError(f"u should have at least 2 dimensions, but has {L._data.ndim} dimensions instead")
    if b._data.dtype != L._data.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type {type_title(b._data.dtype)} "
                           f"and A of type {type_title(L._data.dtype)} instead.")
    check_matrix(L, "cholesky_solve", "A")
    return finish(_rename(_cholesky_solve(b, L, upper), "CholeskySolveBackward0"), out, "cholesky_solve")


@op(variants="function method")
def cholesky_inverse(input: Tensor, upper: bool = False, *, out: Tensor | None = None) -> Tensor:
    """The inverse of ``A`` from its Cholesky factor (``A = L L^H``, or ``U^H U`` with ``upper``)."""
    L = tensor_arg(input, "cholesky_inverse")
    no_half("cholesky_inverse_out_cpu", L)
    check_matrix(L, "cholesky_inverse")
    eye = wrap(np.broadcast_to(np.eye(L._data.shape[-1], dtype=L._data.dtype), L._data.shape).copy())
    return finish(_rename(_cholesky_solve(eye, L, upper), "CholeskyInverseBackward0"), out, "cholesky_inverse")


@op(variants="function method", name="cholesky")
def cholesky_legacy(input: Tensor, upper: bool = False, *, out: Tensor | None = None) -> Tensor:
    """The Cholesky factor (deprecated in torch for ``linalg.cholesky``; ``upper`` gives U with ``A = U^H U``)."""
    x = tensor_arg(input, "cholesky")
    warn_once("cholesky", "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a "
               "future PyTorch release.\nL = torch.cholesky(A)\nshould be replaced with\nL = torch.linalg.cholesky(A)\n"
               "and\nU = torch.cholesky(A, upper=True)\nshould be replaced with\nU = torch.linalg.cholesky(A).mH\n"
               "This transform will produce equivalent results for all valid (symmetric positive definite) inputs.")
    res, info = _cholesky(x, upper, "cholesky")
    _lapack.raise_cholesky("cholesky", x._data.shape, info._data)
    return finish(_rename(res, "CholeskyBackward0"), out, "cholesky")


@op(variants="function method", name="qr")
def qr_legacy(input: Tensor, some: bool = True, *, out: Any = None) -> Any:
    """The QR decomposition, reduced unless ``some=False`` (deprecated in torch for ``linalg.qr``)."""
    x = tensor_arg(input, "qr")
    warn_once("qr", "torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future PyTorch "
               "release.\nThe boolean parameter 'some' has been replaced with a string parameter 'mode'.\nQ, R = "
               "torch.qr(A, some)\nshould be replaced with\nQ, R = torch.linalg.qr(A, 'reduced' if some else "
               "'complete')")
    Q, R = qr(x, "reduced" if some else "complete")
    return finish_tuple(rt.qr(Q, R), out, "qr")


@op(variants="function method", name="svd")
def svd_legacy(input: Tensor, some: bool = True, compute_uv: bool = True, *, out: Any = None) -> Any:
    """``(U, S, V)`` with ``A = U diag(S) V^H`` (V, not Vh); ``some=False`` gives square U and V, and
    ``compute_uv=False`` zero-filled ones."""
    x = tensor_arg(input, "svd")
    if not compute_uv:
        a = check_matrix(x, "linalg.svd", square=False)
        m, n = a.shape[-2:]
        S = svdvals(x)
        U = wrap(np.zeros(a.shape[:-2] + (m, m), a.dtype))
        V = wrap(np.zeros(a.shape[:-2] + (n, n), a.dtype))
        return finish_tuple(rt.svd(U, S, V), out, "svd")
    U, S, Vh = _svd(x, not some, "linalg.svd")
    return finish_tuple(rt.svd(U, S, mH(Vh)), out, "svd")


@op(variants="function method", name="lu")
def lu_legacy(A: Tensor, pivot: bool = True, get_infos: bool = False, out: Any = None) -> Any:
    """``(LU, pivots)``, or ``(LU, pivots, infos)`` with ``get_infos`` (deprecated in torch for
    ``linalg.lu_factor``)."""
    x = tensor_arg(A, "lu", "A")
    warn_once("lu", "torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and will "
               "be removed in a future PyTorch release.\nLU, pivots = torch.lu(A, compute_pivots)\nshould be replaced "
               "with\nLU, pivots = torch.linalg.lu_factor(A, compute_pivots)\nand\nLU, pivots, info = torch.lu(A, "
               "compute_pivots, get_infos=True)\nshould be replaced with\nLU, pivots, info = "
               "torch.linalg.lu_factor_ex(A, compute_pivots)")
    LU, piv, info = lu_factor_ex(x, pivot=pivot, check_errors=not get_infos)
    result: tuple = rt._lu_with_info(LU, piv, info) if get_infos else (LU, piv)
    if out is not None:
        if not isinstance(out, (tuple, list)) or len(out) != len(result):
            raise TypeError(f"expected tuple of {len(result)} elements but got "
                            f"{len(out) if isinstance(out, (tuple, list)) else type(out).__name__}")
        written = [write_out(o, r, "lu") for o, r in zip(out, result)]
        return type(result)(*written) if get_infos else tuple(written)
    return result


@op(variants="function method", name="lu_solve")
def lu_solve_legacy(input: Tensor, LU_data: Tensor, LU_pivots: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The solution of ``A X = input`` from A's LU factorisation (deprecated in torch for ``linalg.lu_solve``)."""
    b = tensor_arg(input, "lu_solve")
    warn_once("lu_solve", "torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in a "
               "future PyTorch release.\nNote that torch.linalg.lu_solve has its arguments reversed.\nX = "
               "torch.lu_solve(B, LU, pivots)\nshould be replaced with\nX = torch.linalg.lu_solve(LU, pivots, B)")
    return lu_solve(LU_data, LU_pivots, b, out=out)


@op()
def lu_unpack(LU_data: Tensor, LU_pivots: Tensor, unpack_data: bool = True, unpack_pivots: bool = True, *,
              out: Any = None) -> Any:
    """``(P, L, U)`` from a packed LU factorisation (empty P, or empty L and U, when not asked for)."""
    lu_t = tensor_arg(LU_data, "lu_unpack", "LU_data")
    piv = tensor_arg(LU_pivots, "lu_unpack", "LU_pivots", 2)
    if lu_t._data.ndim == 0:
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    if lu_t._data.ndim < 2:
        raise RuntimeError(f"torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: "
                           f"{list(lu_t._data.shape)} instead")
    if piv._data.dtype != np.int32:
        raise RuntimeError("torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype.\n"
                           "Note: this function is intended to be used with the output produced by torch.linalg.lu_factor")
    k = min(lu_t._data.shape[-2:])
    if unpack_pivots and (piv._data.ndim == 0 or piv._data.shape[-1] != k
                          or (piv._data.size and (piv._data.min() < 1 or piv._data.max() > lu_t._data.shape[-2]))):
        raise RuntimeError("pivots passed to lu_unpack must be between 1 and LU.size(-2) inclusive.Did you properly "
                           "pass the result of lu_factor?")
    P, L, U = unpack_lu(lu_t, piv._data if unpack_pivots else None)
    empty = wrap(np.zeros(0, lu_t._data.dtype))
    if not unpack_data:
        L, U = empty, wrap(np.zeros(0, lu_t._data.dtype))
    else:
        L, U = _rename(L, "LuUnpackBackward0"), _rename(U, "LuUnpackBackward0")
    res = rt.lu_unpack(P if P is not None else empty, L, U)
    return finish_tuple(res, out, "lu_unpack")


@op(variants="function method")
def triangular_solve(input: Tensor, A: Tensor, upper: bool = True, transpose: bool = False,
                     unitriangular: bool = False, *, out: Any = None) -> Any:
    """``(solution, cloned_coefficient)`` of ``op(A) X = input`` for triangular A (deprecated in torch for
    ``linalg.solve_triangular``)."""
    b = tensor_arg(input, "triangular_solve")
    a = tensor_arg(A, "triangular_solve", "A", 2)
    warn_once("triangular_solve", "torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangularand "
               "will be removed in a future PyTorch release.\ntorch.linalg.solve_triangular has its arguments reversed "
               "and does not return a copy of one of the inputs.\nX = torch.triangular_solve(B, A).solution\nshould be "
               "replaced with\nX = torch.linalg.solve_triangular(A, B).")
    if b._data.ndim < 2:
        raise RuntimeError(f"torch.triangular_solve: Expected b to have at least 2 dimensions, but it has "
                           f"{b._data.ndim} dimensions instead")
    if a._data.ndim < 2:
        raise RuntimeError(f"torch.triangular_solve: Expected A to have at least 2 dimensions, but it has "
                           f"{a._data.ndim} dimensions instead")
    op_a = _transpose_last(a) if transpose else a
    X = solve_triangular(op_a, b, upper=upper != transpose, unitriangular=unitriangular)
    batch = X._data.shape[:-2]
    coefficient = clone(expand(a, batch + a._data.shape[-2:]) if a._data.shape[:-2] != batch else a)
    res = rt.triangular_solve(_rename(X, "TriangularSolveBackward0"), coefficient)
    return finish_tuple(res, out, "triangular_solve")


def _transpose_last(t: Tensor) -> Tensor:
    return transpose(t, -1, -2)


# -- LDL^T -------------------------------------------------------------------------------------------------

_LdlFactorNotImplemented = type("NotImplemented", (NotDifferentiable,), {"__slots__": (), "num_outputs": 3})


def _ldl_factor_ex(x: Tensor, hermitian: bool, fname: str) -> tuple[Tensor, Tensor, Tensor]:
    a = check_matrix(x, fname)
    ld, piv, info = _lapack.ldl_factor(a, hermitian)
    (LD, P, I), node = outputs(_LdlFactorNotImplemented, [ld, piv, info], (x,), (0,))
    if node is not None:
        node.message, node.kind = "derivative for aten::linalg_ldl_factor_ex is not implemented", RuntimeError
    return LD, P, I


def _raise_ldl(fname: str, shape: tuple, info: np.ndarray) -> None:
    flat = np.asarray(info).reshape(-1)
    bad = np.flatnonzero(flat)
    if bad.size:
        i = int(bad[0])
        raise _LinAlgError(f"{fname}: {_lapack.batch_prefix(shape, i)}The factorization could not be completed because "
                           f"D[{int(flat[i])},{int(flat[i])}] is exactly zero: the input matrix is singular.")


@op(namespace=LINALG)
def ldl_factor_ex(A: Tensor, *, hermitian: bool = False, check_errors: bool = False, out: Any = None) -> Any:
    """The LDL^T factorisation with Bunch-Kaufman pivoting, compact as LAPACK's sytrf: ``(LD, pivots, info)``."""
    x = tensor_arg(A, "linalg_ldl_factor_ex", "A")
    LD, P, I = _ldl_factor_ex(x, hermitian, "torch.linalg.ldl_factor_ex")
    if check_errors:
        _raise_ldl("torch.linalg.ldl_factor_ex", x._data.shape, I._data)
    return finish_tuple(rt.linalg_ldl_factor_ex(LD, P, I), out, "linalg.ldl_factor_ex")


@op(namespace=LINALG)
def ldl_factor(A: Tensor, *, hermitian: bool = False, out: Any = None) -> Any:
    """The LDL^T factorisation of symmetric (Hermitian with ``hermitian``) matrices: ``(LD, pivots)``."""
    x = tensor_arg(A, "linalg_ldl_factor", "A")
    LD, P, I = _ldl_factor_ex(x, hermitian, "torch.linalg.ldl_factor_ex")
    _raise_ldl("torch.linalg.ldl_factor", x._data.shape, I._data)
    return finish_tuple(rt.linalg_ldl_factor(LD, P), out, "linalg.ldl_factor")


_LdlSolveNotImplemented = type("NotImplemented", (NotDifferentiable,), {"__slots__": (), "num_outputs": 1})


@op(namespace=LINALG)
def ldl_solve(LD: Tensor, pivots: Tensor, B: Tensor, *, hermitian: bool = False, out: Tensor | None = None) -> Tensor:
    """The solution of ``A X = B`` from :func:`ldl_factor`'s output."""
    fname = "torch.linalg.ldl_solve"
    ld = tensor_arg(LD, "linalg_ldl_solve", "LD")
    piv = tensor_arg(pivots, "linalg_ldl_solve", "pivots", 2)
    b = tensor_arg(B, "linalg_ldl_solve", "B", 3)
    a = check_matrix(ld, fname, "LD")
    if b._data.ndim < 2:
        raise RuntimeError(f"{fname}: The input tensor B must have at least 2 dimensions.")
    if piv._data.dtype != np.int32:
        raise RuntimeError(f"{fname}: Expected pivots to be integers. Got {type_title(piv._data.dtype)}")
    if b._data.dtype != a.dtype:
        raise RuntimeError(f"{fname}: Expected LD and B to have the same dtype, but found LD of type "
                           f"{type_title(a.dtype)} and B of type {type_title(b._data.dtype)} instead")
    if b._data.shape[-2] != a.shape[-1]:
        raise RuntimeError(f"{fname}: Incompatible shapes of A and B for the equation AX = B ({a.shape[-2]}x"
                           f"{a.shape[-1]} and {b._data.shape[-2]}x{b._data.shape[-1]})")
    if piv._data.shape != a.shape[:-1]:
        raise RuntimeError(f"{fname}: Expected LD.shape[:-1] and pivots.shape to be the same, but got pivots with "
                           f"shape {list(piv._data.shape)} instead")
    magnitudes = np.abs(piv._data.astype(np.int64))
    if magnitudes.size and magnitudes.min() < 1:
        raise RuntimeError("Pivots given to ldl_solve must all satisfy |pivot| >= 1. Did you properly pass the result "
                           "of ldl_factor?")
    if magnitudes.size and magnitudes.max() > a.shape[-1]:
        raise RuntimeError(f"Pivots given to ldl_solve must all satisfy |pivot| <= {a.shape[-1]} (the size of LD). "
                           "Did you properly pass the result of ldl_factor?")
    r = _lapack.ldl_solve(a, piv._data, b._data, hermitian)
    (res,), node = outputs(_LdlSolveNotImplemented, [r], (ld, b), (0,))
    if node is not None:
        node.message, node.kind = "derivative for aten::linalg_ldl_solve is not implemented", RuntimeError
    return finish(res, out, "linalg.ldl_solve")


# -- lobpcg ----------------------------------------------------------------------------------------------------


@op()
def lobpcg(A: Tensor, k: int | None = None, B: Tensor | None = None, X: Tensor | None = None, n: int | None = None,
           iK: Tensor | None = None, niter: int | None = None, tol: float | None = None, largest: bool | None = None,
           method: str | None = None, tracker: Any = None, ortho_iparams: dict | None = None,
           ortho_fparams: dict | None = None, ortho_bparams: dict | None = None) -> tuple:
    """The ``k`` largest (smallest with ``largest=False``) eigenpairs of the symmetric generalized problem
    ``A X = B X diag(E)``, as ``(E, X)`` with X B-orthonormal.

    tensorlib's matrices are dense, so the pairs are computed exactly (a Cholesky reduction and ``eigh``) rather
    than by torch's iterations: ``X``/``n`` only fix how many vectors torch's method would carry, and ``niter``,
    ``tol``, ``iK``, ``method``, ``tracker`` and the ortho parameters are accepted and checked, not needed.
    Differentiable in A and B (symmetrised first, as torch does).
    """
    a = tensor_arg(A, "lobpcg", "A")
    if a._data.ndim < 2:
        raise IndexError(f"lobpcg(): A must be a matrix or a batch of matrices, got {a._data.ndim} dimension(s)")
    if a._data.shape[-2] != a._data.shape[-1]:
        raise AssertionError(f"A must be square, got shape {tuple(a._data.shape)}")
    if B is not None and tuple(B.shape) != tuple(a._data.shape):
        raise AssertionError(f"A and B must have same shape, got {tuple(a._data.shape)} vs {tuple(B.shape)}")
    if method not in (None, "ortho", "basic"):
        raise ValueError(f"lobpcg: method must be 'ortho' or 'basic', got {method!r}")
    m = a._data.shape[-1]
    k = (1 if X is None else X.shape[-1]) if k is None else k
    n = (k if n is None else n) if X is None else X.shape[-1]
    if m < 3 * n:
        raise ValueError(f"LOBPCG algorithm is not applicable when the number of A rows (={m}) is smaller than 3 x "
                         f"the number of requested eigenpairs (={n})")
    if a._data.dtype.kind != "f":
        a = a.to(FROM_NP[np.dtype(np.float64)] if a._data.dtype.kind in "biu" else a.dtype)
    largest = True if largest is None else largest
    sym = div(add(a, transpose(a, -1, -2)), 2.0)
    if B is None:
        E, V = eigh(sym)
    else:
        b = tensor_arg(B, "lobpcg", "B", 3)
        Lb = cholesky(div(add(b, transpose(b, -1, -2)), 2.0))
        C = solve_triangular(Lb, transpose(solve_triangular(Lb, sym, upper=False), -1, -2), upper=False)
        E, Y = eigh(C)
        V = solve_triangular(transpose(Lb, -1, -2), Y, upper=True)
    if largest:
        E = flip(narrow(E, -1, m - k, k), (-1,))
        V = flip(narrow(V, -1, m - k, k), (-1,))
    else:
        E, V = narrow(E, -1, 0, k), narrow(V, -1, 0, k)
    return E, V


# -- randomized low-rank SVD and PCA (torch._lowrank) ----------------------------------------------------------


def _approximate_basis(A: Tensor, q: int, niter: int, M: Tensor | None) -> Tensor:
    R = randn(A._data.shape[-1], q, dtype=FROM_NP[A._data.dtype])
    X = matmul(A, R)
    if M is not None:
        X = sub(X, matmul(M, R))
    Q = qr(X).Q
    for _ in range(niter):
        X = matmul(mH(A), Q)
        if M is not None:
            X = sub(X, matmul(mH(M), Q))
        Q = qr(X).Q
        X = matmul(A, Q)
        if M is not None:
            X = sub(X, matmul(M, Q))
        Q = qr(X).Q
    return Q


def _need_matrix(x: Tensor, fname: str) -> None:
    # torch's Python code fails unpacking the last two sizes; say what is wrong instead, with the same type
    if x._data.ndim < 2:
        raise ValueError(f"{fname}(): expected a matrix or a batch of matrices, got a tensor with {x._data.ndim} "
                         "dimension(s)")


def _svd_lowrank(A: Tensor, q: int | None, niter: int, M: Tensor | None) -> tuple[Tensor, Tensor, Tensor]:
    _need_matrix(A, "svd_lowrank")
    q = 6 if q is None else q
    m, n = A._data.shape[-2:]
    if M is not None:
        M = expand(M, A._data.shape)
    if m < n:
        A = mH(A)
        M = mH(M) if M is not None else None
    Q = _approximate_basis(A, q, niter, M)
    B = matmul(mH(Q), A)
    if M is not None:
        B = sub(B, matmul(mH(Q), M))
    U, S, Vh = svd(B, full_matrices=False)
    V = mH(Vh)
    U = matmul(Q, U)
    if m < n:
        U, V = V, U
    return U, S, V


@op()
def svd_lowrank(A: Tensor, q: int | None = 6, niter: int | None = 2, M: Tensor | None = None) -> tuple:
    """An approximate rank-``q`` SVD ``(U, S, V)`` of ``A - M`` by randomised subspace iteration (Halko et al.)."""
    x = tensor_arg(A, "svd_lowrank", "A")
    return _svd_lowrank(x, q, 2 if niter is None else niter, M)


@op()
def pca_lowrank(A: Tensor, q: int | None = None, center: bool = True, niter: int = 2) -> tuple:
    """Principal components of the rows of A: ``(U, S, V)`` of the (centred) matrix, approximate, of rank ``q``."""
    x = tensor_arg(A, "pca_lowrank", "A")
    _need_matrix(x, "pca_lowrank")
    m, n = x._data.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not (q >= 0 and q <= min(m, n)):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}")
    if not niter >= 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return _svd_lowrank(x, q, niter, None)
    C = mean(x, -2, keepdim=True)
    return _svd_lowrank(sub(x, C), q, niter, None)

