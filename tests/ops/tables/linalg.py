"""Op-table entries of ``tensorlib.linalg`` and the top-level linear algebra (decompositions, solvers, products).

Inputs are fixed, well-conditioned matrices (symmetric positive-definite where an op needs it, distinct eigen and
singular values). Decompositions defined up to signs or phases are compared through ``post`` (fixed column signs,
reconstructions, absolute values); ops that read one triangle of a Hermitian input get ``pre`` (the input made
Hermitian), as torch's own OpInfos wrap them for gradcheck.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorlib.ops import _lapack
from tests.ops.opinfo import Const, alias, op, r, s

# -- inputs --------------------------------------------------------------------------------------------------


def _wc(n: int = 3, *batch: int) -> np.ndarray:
    """A well-conditioned square matrix: twice the identity plus a small random part."""
    return np.eye(n) * 2 + r(*batch, n, n) * 0.3


def _spd(n: int = 3, *batch: int) -> np.ndarray:
    a = r(*batch, n, n)
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def _herm(a: Any) -> Any:
    """The Hermitian part (works on NumPy arrays, torch and tensorlib tensors): for ops reading one triangle."""
    return (a + a.conj().swapaxes(-1, -2)) / 2


def _signed_columns(v: Any) -> Any:
    """Columns multiplied by the sign of their first entry: eigen/singular vectors made unique (real case)."""
    return v * v[..., :1, :].sign()


def _eigh_post(o: Any) -> tuple:
    return o[0], _signed_columns(o[1])


def _svd_post(o: Any) -> tuple:
    sign = o[0][..., :1, :].sign()
    return o[0] * sign, o[1], o[2] * sign.swapaxes(-1, -2)


def _legacy_svd_post(o: Any) -> tuple:
    sign = o[0][..., :1, :].sign()
    return o[0] * sign, o[1], o[2] * sign


def _eig_post(o: Any) -> tuple:
    v = o[1]
    return o[0].real, o[0].imag, (v * v.conj()).real  # |v|^2: free of the phase each column is defined up to


def _complex_parts(w: Any) -> tuple:
    return w.real, w.imag


# -- NumPy references for what np.linalg lacks ----------------------------------------------------------------


def _solve_triangular(a: np.ndarray, b: np.ndarray, upper: bool, left: bool = True, unitriangular: bool = False) -> Any:
    t = np.triu(a) if upper else np.tril(a)
    if unitriangular:
        t = t - np.diag(np.diag(t)) + np.eye(a.shape[-1])
    if left:
        return np.linalg.solve(t, b)
    return np.swapaxes(np.linalg.solve(np.swapaxes(t, -1, -2), np.swapaxes(b, -1, -2)), -1, -2)


def _expm(a: np.ndarray) -> np.ndarray:
    """Taylor series after scaling to a norm below 1/2, then squaring."""
    norm = np.max(np.abs(a).sum(-2))
    k = max(0, int(np.ceil(np.log2(norm))) + 1) if norm > 0 else 0
    x = a / 2.0**k
    term = np.broadcast_to(np.eye(a.shape[-1]), a.shape).copy()
    total = term.copy()
    for i in range(1, 30):
        term = term @ x / i
        total = total + term
    for _ in range(k):
        total = total @ total
    return total


def _householder(a: np.ndarray, tau: np.ndarray, ncols: int | None = None) -> np.ndarray:
    if a.ndim > 2:
        return np.stack([_householder(x, t, ncols) for x, t in zip(a, tau)])
    m, n = a.shape
    q = np.eye(m)
    for i in range(tau.shape[-1]):
        v = np.zeros(m)
        v[i] = 1.0
        v[i + 1 :] = a[i + 1 :, i]
        q = q @ (np.eye(m) - tau[i] * np.outer(v, v))
    return q[:, : (n if ncols is None else ncols)]


def _ormqr(a: np.ndarray, tau: np.ndarray, c: np.ndarray, left: bool = True, transpose: bool = False) -> np.ndarray:
    q = _householder(a, tau, a.shape[-2])
    q = q.T if transpose else q
    return q @ c if left else c @ q


def _lstsq(a: np.ndarray, b: np.ndarray, rcond: float | None = None, driver: str | None = None) -> tuple:
    vector = b.ndim == a.ndim - 1
    bm = b[..., None] if vector else b
    m, n = a.shape[-2:]
    batch = np.broadcast_shapes(a.shape[:-2], bm.shape[:-2])
    aa = np.broadcast_to(a, batch + a.shape[-2:]).reshape(-1, m, n)
    bb = np.broadcast_to(bm, batch + bm.shape[-2:]).reshape((-1,) + bm.shape[-2:])
    sols, ranks, svs = [], [], []
    for x, y in zip(aa, bb):
        sol, _, rank, sv = np.linalg.lstsq(x, y, rcond=rcond)
        sols.append(sol)
        ranks.append(rank)
        svs.append(sv)
    sol = np.stack(sols).reshape(batch + (n, bm.shape[-1]))
    driver = driver or "gelsy"
    residuals = np.zeros(0)
    if driver != "gelsy" and m > n:
        residuals = np.sum((np.broadcast_to(a, batch + a.shape[-2:]) @ sol - bm) ** 2, axis=-2)
    rank = np.array(ranks, dtype=np.int64).reshape(batch) if driver != "gels" else np.zeros(0, np.int64)
    sv = np.stack(svs).reshape(batch + (min(m, n),)) if driver in ("gelsd", "gelss") else np.zeros(0)
    return (sol[..., 0] if vector else sol), residuals, rank, sv


def _lu_unpack(lu: np.ndarray, piv: np.ndarray) -> tuple:
    m, n = lu.shape[-2:]
    k = min(m, n)
    perm = list(range(m))
    for j, p in enumerate(piv[:k] - 1):
        perm[j], perm[p] = perm[p], perm[j]
    P = np.zeros((m, m))
    P[perm, np.arange(m)] = 1
    return P, np.tril(lu, -1)[:, :k] + np.eye(m, k), np.triu(lu)[:k, :]


def _lu_packed(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """getrf's output for one matrix (partial pivoting), to build lu_solve's samples."""
    lu = a.copy()
    m, n = lu.shape
    piv = np.zeros(min(m, n), np.int32)
    for j in range(min(m, n)):
        p = j + int(np.argmax(np.abs(lu[j:, j])))
        piv[j] = p + 1
        lu[[j, p]] = lu[[p, j]]
        lu[j + 1 :, j] /= lu[j, j]
        lu[j + 1 :, j + 1 :] -= np.outer(lu[j + 1 :, j], lu[j, j + 1 :])
    return lu, piv


def _lu_solve(lu: np.ndarray, piv: np.ndarray, b: np.ndarray, left: bool = True, adjoint: bool = False) -> np.ndarray:
    P, L, U = _lu_unpack(lu, piv)
    a = P @ L @ U
    a = a.T if adjoint else a
    return np.linalg.solve(a, b) if left else np.linalg.solve(a.T, b.T).T


# -- tensorlib.linalg -----------------------------------------------------------------------------------------

# rank 2 (singular values 3, 1, 0): pinv's gradient at constant rank, with the tolerance cutting the third
_LOW_RANK = np.linalg.qr(r(4, 3))[0] @ np.diag([3.0, 1.0, 0.0]) @ np.linalg.qr(r(3, 3))[0]

_cholesky = op("linalg.cholesky", [s(_spd()), s(_spd(3, 2), upper=True)],
               lambda a, upper=False: np.linalg.cholesky(a, upper=upper), pre=_herm, rtol=1e-6)
op("linalg.cholesky_ex", [s(_spd())], lambda a: (np.linalg.cholesky(a), np.zeros((), np.int32)), pre=_herm, rtol=1e-6)
op("linalg.eigh", [s(r(3, 3)), s(r(2, 3, 3), "U")], lambda a, UPLO="L": np.linalg.eigh(a, UPLO), pre=_herm,
   post=_eigh_post, rtol=1e-6, atol=1e-9)
op("linalg.eigvalsh", [s(r(3, 3)), s(r(2, 3, 3), UPLO="U")], lambda a, UPLO="L": np.linalg.eigvalsh(a, UPLO),
   pre=_herm, rtol=1e-6, atol=1e-9)
op("linalg.eig", [s(r(3, 3)), s(r(2, 2, 2))], lambda a: tuple(x.astype(complex) for x in np.linalg.eig(a)),
   post=_eig_post, rtol=1e-6, atol=1e-9)
op("linalg.eigvals", [s(r(3, 3))], lambda a: np.linalg.eigvals(a).astype(complex), post=_complex_parts, rtol=1e-6,
   atol=1e-9)
op("linalg.svd", [s(r(4, 3), full_matrices=False), s(r(3, 4), False), s(r(2, 3, 3))],
   lambda a, full_matrices=True: np.linalg.svd(a, full_matrices), post=_svd_post, rtol=1e-6, atol=1e-9)
op("linalg.svdvals", [s(r(4, 3)), s(r(2, 3, 4))], lambda a: np.linalg.svd(a, compute_uv=False), rtol=1e-6)
op("linalg.qr", [s(r(4, 3)), s(r(3, 4)), s(r(3, 3), "complete"), s(r(2, 4, 3))],
   lambda a, mode="reduced": np.linalg.qr(a, mode), rtol=1e-6, atol=1e-9)
op("linalg.qr", [s(r(4, 3), mode="r")], lambda a, mode: (np.zeros(0), np.linalg.qr(a, "r")), grad=False, rtol=1e-6)
op("linalg.slogdet", [s(r(3, 3) + np.eye(3)), s(np.stack([_wc(), -_wc()]))], np.linalg.slogdet, rtol=1e-6)
op("linalg.solve_triangular", [s(_wc(), r(3, 2), upper=True), s(_wc(), r(2, 3), upper=False, left=False),
                               s(_wc(), r(2, 3, 2), upper=True, unitriangular=True)],
   _solve_triangular, rtol=1e-6)
op("linalg.lu_factor", [s(r(3, 3)), s(r(2, 4, 3)), s(r(3, 4))], None, rtol=1e-6)
op("linalg.lu_factor_ex", [s(r(3, 3)), s(r(2, 3, 3))], None, rtol=1e-6)
op("linalg.lu", [s(r(3, 3)), s(r(4, 3)), s(r(2, 3, 4))], None, rtol=1e-6)
_LU, _PIV = _lu_packed(_wc())
op("linalg.lu_solve", [s(_LU, _PIV, r(3, 2)), s(_LU, _PIV, r(2, 3), left=False), s(_LU, _PIV, r(3, 2), adjoint=True)],
   _lu_solve, rtol=1e-6)
op("linalg.inv_ex", [s(_wc())], lambda a: (np.linalg.inv(a), np.zeros((), np.int32)), rtol=1e-6)
op("linalg.solve_ex", [s(_wc(), r(3, 2))], lambda a, b: (np.linalg.solve(a, b), np.zeros((), np.int32)), rtol=1e-6)
op("linalg.solve", [s(_wc(), r(3)), s(_wc(3, 2), r(2, 3)), s(_wc(), r(2, 3), left=False)],
   lambda a, b, left=True: (np.linalg.solve(a, b[..., None])[..., 0] if b.ndim == a.ndim - 1 else np.linalg.solve(a, b))
   if left else np.swapaxes(np.linalg.solve(np.swapaxes(a, -1, -2), np.swapaxes(b, -1, -2)), -1, -2), rtol=1e-6)
op("linalg.pinv", [s(r(4, 3)), s(r(2, 3, 4)), s(_LOW_RANK, rtol=0.1)],
   lambda a, rtol=None: np.linalg.pinv(a, rtol if rtol is not None else 1e-15), rtol=1e-6)
op("linalg.pinv", [s(_spd(), hermitian=True)], lambda a, hermitian: np.linalg.pinv(a, hermitian=hermitian), pre=_herm,
   rtol=1e-6)
op("linalg.lstsq", [s(r(5, 3), r(5, 2)), s(r(2, 4, 3), r(2, 4, 1), driver="gelsd"), s(r(4, 3), r(4), driver="gels"),
                    s(r(3, 4), r(3, 2), driver="gelss")], _lstsq, rtol=1e-6, atol=1e-9)
op("linalg.matrix_power", [s(_wc(), 3), s(_wc(3, 2), -2), s(_wc(), 0)], np.linalg.matrix_power, rtol=1e-6)
_matrix_exp = op("linalg.matrix_exp", [s(r(3, 3)), s(r(2, 2, 2) * 3)], _expm, rtol=1e-9)
op("linalg.multi_dot", [s([r(3), r(3, 4), r(4, 2)]), s([r(2, 3), r(3, 4), r(4, 5), r(5)]), s([r(3, 2), r(2, 3)])],
   np.linalg.multi_dot)
op("linalg.matrix_rank", [s(r(3, 3)), s(Const(np.ones((2, 4, 3)))), s(r(4, 3), atol=1.0, rtol=0.1),
                          s(Const(_spd()), hermitian=True)],
   lambda a, atol=None, rtol=None, hermitian=False: np.linalg.matrix_rank(
       a, rtol=rtol, hermitian=hermitian) if atol is None else np.sum(
       np.linalg.svd(a, compute_uv=False) > max(atol, rtol * np.linalg.svd(a, compute_uv=False)[0])),
   grad=False)
op("linalg.cond", [s(_wc()), s(_wc(), "fro"), s(r(4, 3)), s(_wc(3, 2), -2), s(_wc(), 1), s(_wc(), float("inf"))],
   lambda a, p=None: np.linalg.cond(a, p), rtol=1e-6)
op("linalg.vecdot", [s(r(2, 3), r(3)), s(r(3, 2), r(3, 2), dim=0)],
   lambda x, y, dim=-1: np.sum(np.conj(x) * y, axis=dim))
op("linalg.vander", [s(r(3)), s(r(2, 3), N=4)],
   lambda x, N=None: x[..., None] ** np.arange(x.shape[-1] if N is None else N))
op("linalg.diagonal", [s(r(2, 3, 4)), s(r(3, 3), offset=1), s(r(2, 3, 3), dim1=0, dim2=2)],
   lambda a, offset=0, dim1=-2, dim2=-1: np.diagonal(a, offset, dim1, dim2))
op("linalg.tensorinv", [s(_wc(6).reshape(2, 3, 6)), s(_wc(4).reshape(4, 2, 2), ind=1)], np.linalg.tensorinv, rtol=1e-6)
op("linalg.tensorsolve", [s(_wc(6).reshape(2, 3, 6), r(2, 3)), s(_wc(6).reshape(6, 2, 3), r(2, 3), dims=(0,))],
   lambda a, b, dims=None: np.linalg.tensorsolve(a, b, dims), rtol=1e-6)
_householder_entry = op("linalg.householder_product", [s(r(4, 3), r(2)), s(r(2, 3, 3), r(2, 3))], _householder)
op("linalg.ldl_factor", [s(r(3, 3)), s(r(2, 4, 4))], None, pre=_herm, grad=False)
op("linalg.ldl_factor_ex", [s(r(4, 4))], None, pre=_herm, grad=False)
_LD, _LD_PIV, _ = _lapack.ldl_factor(_herm(r(4, 4)), False)
op("linalg.ldl_solve", [s(Const(_LD), _LD_PIV, r(4, 2)), s(Const(_LD), _LD_PIV, r(2, 4, 1))], None, grad=False)

# -- the top-level names and Tensor methods ---------------------------------------------------------------------

op("cholesky", [s(_spd()), s(_spd(3, 2), True)], lambda a, upper=False: np.linalg.cholesky(a, upper=upper),
   pre=_herm, rtol=1e-6)
op("cholesky_inverse", [s(np.tril(_wc())), s(np.triu(_wc(3, 2)), True)],
   lambda a, upper=False: np.linalg.inv(a.swapaxes(-1, -2) @ a if upper else a @ a.swapaxes(-1, -2)), rtol=1e-6)
op("cholesky_solve", [s(r(3, 2), np.tril(_wc())), s(r(2, 3, 1), np.triu(_wc()), True)],
   lambda b, L, upper=False: np.linalg.solve(L.swapaxes(-1, -2) @ L if upper else L @ L.swapaxes(-1, -2), b),
   rtol=1e-6)
op("slogdet", [s(r(3, 3) + np.eye(3))], np.linalg.slogdet, rtol=1e-6)
op("qr", [s(r(4, 3)), s(r(4, 3), False), s(r(3, 4))],
   lambda a, some=True: np.linalg.qr(a, "reduced" if some else "complete"), grad=False, rtol=1e-6, atol=1e-9)
op("qr", [s(r(4, 3)), s(r(3, 4))], lambda a: np.linalg.qr(a), rtol=1e-6, atol=1e-9)
op("svd", [s(r(4, 3)), s(r(2, 3, 3), some=False)],
   lambda a, some=True: (lambda u, s_, vh: (u, s_, vh.swapaxes(-1, -2)))(*np.linalg.svd(a, not some)),
   post=_legacy_svd_post, rtol=1e-6, atol=1e-9)
op("svd", [s(r(4, 3), compute_uv=False)],
   lambda a, compute_uv: (np.zeros((4, 4)), np.linalg.svd(a, compute_uv=False), np.zeros((3, 3))), rtol=1e-6)
op("lu", [s(r(3, 3)), s(r(2, 3, 3), get_infos=True)], None, rtol=1e-6)
op("lu_solve", [s(r(3, 2), _LU, _PIV)], lambda b, lu, piv: _lu_solve(lu, piv, b), rtol=1e-6)
op("lu_unpack", [s(_LU, _PIV), s(_LU, _PIV, unpack_pivots=False)],
   lambda lu, piv, unpack_data=True, unpack_pivots=True: (_lu_unpack(lu, piv)[0] if unpack_pivots else np.zeros(0),
                                                          *_lu_unpack(lu, piv)[1:]), method=False)
op("triangular_solve", [s(r(3, 2), _wc()), s(r(2, 3, 2), _wc(), False, True), s(r(3, 1), _wc(), unitriangular=True)],
   lambda b, a, upper=True, transpose=False, unitriangular=False: (
       _solve_triangular(a.swapaxes(-1, -2) if transpose else a, b, upper != transpose, True, unitriangular),
       np.broadcast_to(a, b.shape[:-2] + a.shape)),
   rtol=1e-6)
op("pinverse", [s(r(4, 3)), s(_LOW_RANK, 0.1)], lambda a, rcond=1e-15: np.linalg.pinv(a, rcond), rtol=1e-6)
alias("matrix_exp", _matrix_exp)
op("chain_matmul", [s(r(2, 3), r(3, 4), r(4, 2)), s(r(3, 3))], lambda *ms: np.linalg.multi_dot(ms) if len(ms) > 1
   else ms[0], method=False)
op("frobenius_norm", [s(r(2, 3), (0, 1)), s(r(2, 3, 4), (1, 2), True)],
   lambda a, dim, keepdim=False: np.sqrt(np.sum(a * a, axis=dim, keepdims=keepdim)))
op("nuclear_norm", [s(r(3, 3)), s(r(2, 3, 4), (1, 2), True)],
   lambda a, dim=(-2, -1), keepdim=False: np.linalg.norm(a, "nuc", axis=dim, keepdims=keepdim), rtol=1e-6)
op("geqrf", [s(r(4, 3)), s(r(2, 3, 4))],
   lambda a: (lambda h, tau: (np.swapaxes(h, -1, -2), tau))(*np.linalg.qr(a, "raw")), grad=False, rtol=1e-6)
alias("orgqr", _householder_entry)
op("ormqr", [s(r(4, 3), r(3), r(4, 2)), s(r(4, 3), r(3), r(2, 4), left=False, transpose=True)], _ormqr)

def _lobpcg(a: np.ndarray, k: int = 1, largest: bool = True) -> tuple:
    w, v = np.linalg.eigh(a)
    return (w[::-1][:k], v[:, ::-1][:, :k]) if largest else (w[:k], v[:, :k])


op("lobpcg", [s(_spd(9), k=2), s(_spd(6), k=2, largest=False)], _lobpcg, post=lambda o: (o[0], o[1].abs()),
   rtol=1e-6, atol=1e-6, method=False)

# Randomised (svd_lowrank, pca_lowrank): their results depend on random draws; tests/ops/test_linalg.py checks them.
NOT_IN_TABLE = {"svd_lowrank", "pca_lowrank"}
