"""NumPy kernels for the LAPACK routines ``np.linalg`` does not expose: triangular solves, LU (getrf), unblocked
Cholesky with LAPACK's ``info``, Bunch-Kaufman LDL^T (sytrf/sytrs) and the matrix exponential.

Arrays in, arrays out, batched over leading dims; nothing here knows about tensors or autograd. The loops run
over one matrix dimension with the batch vectorised, so they suit the small and medium matrices tensorlib is for.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._C import _LinAlgError
from ._util import broadcast_error



def _no_half(kernel: str, *arrays: np.ndarray) -> None:
    # torch's CPU linear algebra has no half-precision kernels
    for a in arrays:
        if a.dtype == np.float16:
            raise NotImplementedError(f"\"{kernel}\" not implemented for 'Half'")

def batch_prefix(shape: tuple, flat_index: int) -> str:
    """``(Batch element i): `` for batched inputs, as torch prefixes its errors."""
    return f"(Batch element {flat_index}): " if len(shape) > 2 else ""


def broadcast_batch(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    try:
        batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    except ValueError:
        raise broadcast_error(tuple(a.shape[:-2]), tuple(b.shape[:-2])) from None
    return np.broadcast_to(a, batch + a.shape[-2:]), np.broadcast_to(b, batch + b.shape[-2:])


def trsm(a: np.ndarray, b: np.ndarray, upper: bool, unit: bool = False) -> np.ndarray:
    """Solve ``a x = b`` for triangular ``a`` by substitution (a zero on the diagonal gives inf/nan, as LAPACK)."""
    a, b = broadcast_batch(a, b)
    n = a.shape[-1]
    x = np.zeros(b.shape, np.result_type(a.dtype, b.dtype))
    with np.errstate(all="ignore"):
        for i in range(n - 1, -1, -1) if upper else range(n):
            s = b[..., i, :]
            if upper and i + 1 < n:
                s = s - (a[..., i : i + 1, i + 1 :] @ x[..., i + 1 :, :])[..., 0, :]
            elif not upper and i:
                s = s - (a[..., i : i + 1, :i] @ x[..., :i, :])[..., 0, :]
            x[..., i, :] = s if unit else s / a[..., i, i, None]
    return x


def solve_triangular(a: np.ndarray, b: np.ndarray, upper: bool, left: bool, unit: bool) -> np.ndarray:
    _no_half("triangular_solve_cpu", a, b)
    if left:
        return trsm(a, b, upper, unit)
    # X A = B  <=>  A^T X^T = B^T
    return np.swapaxes(trsm(np.swapaxes(a, -1, -2), np.swapaxes(b, -1, -2), not upper, unit), -1, -2)


def svd(a: np.ndarray, full_matrices: bool = False, compute_uv: bool = True) -> Any:
    """``np.linalg.svd`` as torch's LAPACK calls behave on non-finite input: an error for a matrix holding nan,
    nan results for one holding inf."""
    has_nan = np.isnan(a).any(axis=(-2, -1)).reshape(-1)
    if has_nan.any():
        raise _LinAlgError(f"linalg.svd: {batch_prefix(a.shape, int(np.flatnonzero(has_nan)[0]))}The algorithm failed "
                           "to converge because the input matrix contained non-finite values.")
    finite = np.isfinite(a).all(axis=(-2, -1))
    if finite.all():
        if compute_uv:
            return np.linalg.svd(a, full_matrices=full_matrices)
        return np.linalg.svd(a, compute_uv=False)
    m, n = a.shape[-2:]
    k = min(m, n)
    s = np.full(a.shape[:-2] + (k,), np.nan, np.empty(0, a.dtype).real.dtype)
    u = np.full(a.shape[:-2] + (m, m if full_matrices else k), np.nan, a.dtype)
    vh = np.full(a.shape[:-2] + (n if full_matrices else k, n), np.nan, a.dtype)
    if finite.any():
        if compute_uv:
            u[finite], s[finite], vh[finite] = np.linalg.svd(a[finite], full_matrices=full_matrices)
        else:
            s[finite] = np.linalg.svd(a[finite], compute_uv=False)
    return (u, s, vh) if compute_uv else s


# -- Cholesky ------------------------------------------------------------------------------------------------


def cholesky_info(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Unblocked lower Cholesky of every matrix: the factors and LAPACK's info (the order of the first leading minor
    that is not positive-definite, 0 if none). A failed factor keeps its computed columns and the offending pivot."""
    *batch, n, _ = a.shape
    flat = np.tril(a.reshape((int(np.prod(batch)), n, n))).astype(a.dtype, copy=True)
    info = np.zeros(flat.shape[0], np.int32)
    with np.errstate(all="ignore"):
        for j in range(n):
            active = info == 0
            if not active.any():
                break
            row = flat[:, j, :j]
            d = flat[:, j, j] - np.sum(row * row.conj(), axis=-1)
            ok = active & (d.real > 0)
            bad = active & ~ok
            info[bad] = j + 1
            flat[bad, j, j] = d[bad]
            if ok.any():
                piv = np.sqrt(d.real[ok])
                flat[ok, j, j] = piv
                below = flat[ok, j + 1 :, j] - np.einsum("bik,bk->bi", flat[ok, j + 1 :, :j], row[ok].conj())
                flat[ok, j + 1 :, j] = below / piv[:, None]
    return flat.reshape(a.shape), info.reshape(batch)


def cholesky(a: np.ndarray, upper: bool) -> tuple[np.ndarray, np.ndarray]:
    """(factor, info), reading the lower triangle of ``a`` (the upper one with ``upper``)."""
    src = np.swapaxes(a, -1, -2).conj() if upper else a
    try:
        L = np.linalg.cholesky(src)
        info = np.zeros(a.shape[:-2], np.int32)
    except np.linalg.LinAlgError:
        L, info = cholesky_info(src)
    return (np.swapaxes(L, -1, -2).conj() if upper else L), info


def raise_cholesky(fname: str, shape: tuple, info: np.ndarray) -> None:
    flat = np.asarray(info).reshape(-1)
    bad = np.flatnonzero(flat)
    if bad.size:
        i = int(bad[0])
        raise _LinAlgError(
            f"{fname}: {batch_prefix(shape, i)}The factorization could not be completed because the input is not "
            f"positive-definite (the leading minor of order {int(flat[i])} is not positive-definite)."
        )


# -- LU ----------------------------------------------------------------------------------------------------


def lu_factor(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """LU with partial pivoting, as getrf: (packed LU, 1-based int32 pivots, info) for every matrix."""
    _no_half("lu_cpu", a)
    *batch, m, n = a.shape
    k = min(m, n)
    flat = np.array(a.reshape((int(np.prod(batch)), m, n)), dtype=a.dtype, copy=True)
    nb = flat.shape[0]
    piv = np.zeros((nb, k), np.int32)
    info = np.zeros(nb, np.int32)
    rows = np.arange(nb)
    with np.errstate(all="ignore"):
        for j in range(k):
            col = flat[:, j:, j]
            # LAPACK's getrf pivots on |re| + |im| for complex matrices, not on the modulus
            size = np.abs(col.real) + np.abs(col.imag) if col.dtype.kind == "c" else np.abs(col)
            p = j + np.argmax(size, axis=1)
            piv[:, j] = p + 1
            swap = p != j
            if swap.any():
                r, pp = rows[swap], p[swap]
                tmp = flat[r, j, :].copy()
                flat[r, j, :] = flat[r, pp, :]
                flat[r, pp, :] = tmp
            pivot = flat[:, j, j]
            zero = pivot == 0
            info[(info == 0) & zero] = j + 1
            if j + 1 < m:
                flat[:, j + 1 :, j] /= np.where(zero, 1, pivot)[:, None]
                if j + 1 < n:
                    flat[:, j + 1 :, j + 1 :] -= flat[:, j + 1 :, j : j + 1] * flat[:, j : j + 1, j + 1 :]
    return flat.reshape(a.shape), piv.reshape(tuple(batch) + (k,)), info.reshape(batch)


def permutation(piv: np.ndarray, m: int, dtype: np.dtype) -> np.ndarray:
    """The permutation matrices P with ``A = P L U`` for getrf's pivots (batched)."""
    batch = piv.shape[:-1]
    nb, k = int(np.prod(batch)), int(piv.shape[-1])
    flat = piv.reshape((nb, k)).astype(np.int64) - 1
    perm = np.tile(np.arange(m), (nb, 1))
    rows = np.arange(nb)
    for j in range(k):
        p = flat[:, j]
        tmp = perm[rows, j].copy()
        perm[rows, j] = perm[rows, p]
        perm[rows, p] = tmp
    P = np.zeros((nb, m, m), dtype)
    P[rows[:, None], perm, np.arange(m)[None, :]] = 1
    return P.reshape(batch + (m, m))


def lu_solve(lu: np.ndarray, piv: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``A x = b`` from A's packed LU (square)."""
    _no_half("linalg.lu_solve_cpu", lu, b)
    n = lu.shape[-1]
    P = permutation(piv, n, lu.dtype)
    y = trsm(np.tril(lu, -1) + np.eye(n, dtype=lu.dtype), np.swapaxes(P, -1, -2) @ b, upper=False, unit=True)
    return trsm(np.triu(lu), y, upper=True)


def inverse(a: np.ndarray, fname: str, check: bool) -> tuple[np.ndarray, np.ndarray]:
    """(inverse, info); a singular matrix raises torch's error with ``check``, else gives inf/nan as getri."""
    try:
        return np.linalg.inv(a), np.zeros(a.shape[:-2], np.int32)
    except np.linalg.LinAlgError:
        pass
    lu, piv, info = lu_factor(a)
    if check:
        flat = info.reshape(-1)
        i = int(np.flatnonzero(flat)[0])
        raise _LinAlgError(
            f"{fname}: {batch_prefix(a.shape, i)}The diagonal element {int(flat[i])} is zero, the inversion could not "
            "be completed because the input matrix is singular."
        )
    return lu_solve(lu, piv, np.broadcast_to(np.eye(a.shape[-1], dtype=a.dtype), a.shape)), info


def solve(a: np.ndarray, b: np.ndarray, fname: str, check: bool) -> tuple[np.ndarray, np.ndarray]:
    """(x, info) for ``a x = b`` (batch dims broadcast)."""
    a, b = broadcast_batch(a, b)
    try:
        return np.linalg.solve(a, b), np.zeros(a.shape[:-2], np.int32)
    except np.linalg.LinAlgError:
        pass
    lu, piv, info = lu_factor(a)
    if check:
        flat = info.reshape(-1)
        i = int(np.flatnonzero(flat)[0])
        raise _LinAlgError(f"{fname}: {batch_prefix(a.shape, i)}The solver failed because the input matrix is singular.")
    return lu_solve(lu, piv, b), info


# -- LDL^T (Bunch-Kaufman) -------------------------------------------------------------------------------------

_ALPHA = (1.0 + np.sqrt(17.0)) / 8.0


def _ldl_one(A: np.ndarray, herm: bool) -> tuple[np.ndarray, np.ndarray, int]:
    """sytf2/hetf2 with uplo='L' on one matrix (overwritten): the compact factor, pivots and info."""
    n = A.shape[0]
    piv = np.zeros(n, np.int32)
    info = 0
    cj = np.conj if herm else (lambda v: v)
    # LAPACK compares complex entries by |re| + |im| (cabs1)
    mag = (lambda v: np.abs(np.real(v)) + np.abs(np.imag(v))) if A.dtype.kind == "c" else np.abs
    k = 0
    while k < n:
        kstep = 1
        absakk = abs(A[k, k].real) if herm else mag(A[k, k])
        if k < n - 1:
            imax = k + 1 + int(np.argmax(mag(A[k + 1 :, k])))
            colmax = mag(A[imax, k])
        else:
            imax, colmax = k, 0.0
        if max(absakk, colmax) == 0 or np.isnan(absakk):
            if info == 0:
                info = k + 1
            kp = k
            if herm:
                A[k, k] = A[k, k].real
        else:
            if absakk >= _ALPHA * colmax:
                kp = k
            else:
                rowmax = np.max(mag(A[imax, k:imax])) if imax > k else 0.0
                if imax < n - 1:
                    rowmax = max(rowmax, np.max(mag(A[imax + 1 :, imax])))
                diag_imax = abs(A[imax, imax].real) if herm else mag(A[imax, imax])
                if absakk >= _ALPHA * colmax * (colmax / rowmax):
                    kp = k
                elif diag_imax >= _ALPHA * rowmax:
                    kp = imax
                else:
                    kp = imax
                    kstep = 2
            kk = k + kstep - 1
            if kp != kk:
                if kp < n - 1:
                    A[kp + 1 :, kk], A[kp + 1 :, kp] = A[kp + 1 :, kp].copy(), A[kp + 1 :, kk].copy()
                mid = A[kk + 1 : kp, kk].copy()
                A[kk + 1 : kp, kk] = cj(A[kp, kk + 1 : kp])
                A[kp, kk + 1 : kp] = cj(mid)
                if herm:
                    A[kp, kk] = np.conj(A[kp, kk])
                A[kk, kk], A[kp, kp] = A[kp, kp], A[kk, kk]
                if kstep == 2:
                    A[k + 1, k], A[kp, k] = A[kp, k], A[k + 1, k]
            if kstep == 1:
                if herm:
                    A[k, k] = A[k, k].real
                if k < n - 1:
                    x = A[k + 1 :, k].copy()
                    d11 = 1.0 / (A[k, k].real if herm else A[k, k])
                    A[k + 1 :, k + 1 :] -= np.tril(d11 * np.outer(x, cj(x)))
                    A[k + 1 :, k] = x * d11
            else:
                if k < n - 2:
                    if herm:
                        d = abs(A[k + 1, k])
                        d11 = A[k + 1, k + 1].real / d
                        d22 = A[k, k].real / d
                        tt = 1.0 / (d11 * d22 - 1.0)
                        d21 = A[k + 1, k] / d
                        d = tt / d
                        wk = d * (d11 * A[k + 2 :, k] - d21 * A[k + 2 :, k + 1])
                        wkp1 = d * (d22 * A[k + 2 :, k + 1] - np.conj(d21) * A[k + 2 :, k])
                    else:
                        d21 = A[k + 1, k]
                        d11 = A[k + 1, k + 1] / d21
                        d22 = A[k, k] / d21
                        t = 1.0 / (d11 * d22 - 1.0)
                        d21 = t / d21
                        wk = d21 * (d11 * A[k + 2 :, k] - A[k + 2 :, k + 1])
                        wkp1 = d21 * (d22 * A[k + 2 :, k + 1] - A[k + 2 :, k])
                    c0, c1 = A[k + 2 :, k].copy(), A[k + 2 :, k + 1].copy()
                    A[k + 2 :, k + 2 :] -= np.tril(np.outer(c0, cj(wk)) + np.outer(c1, cj(wkp1)))
                    A[k + 2 :, k] = wk
                    A[k + 2 :, k + 1] = wkp1
                    if herm:
                        idx = np.arange(k + 2, n)
                        A[idx, idx] = A[idx, idx].real
                if herm:
                    A[k, k] = A[k, k].real
                    A[k + 1, k + 1] = A[k + 1, k + 1].real
        if kstep == 1:
            piv[k] = kp + 1
        else:
            piv[k] = piv[k + 1] = -(kp + 1)
        k += kstep
    return np.tril(A), piv, info


def ldl_factor(a: np.ndarray, hermitian: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(compact LD, pivots as sytrf's, info) of every matrix, from its lower triangle."""
    _no_half("ldl_factor_kernel_cpu", a)
    n = a.shape[-1]
    flat = np.array(a.reshape((int(np.prod(a.shape[:-2])), n, n)), copy=True)
    herm = hermitian and a.dtype.kind == "c"
    lds, pivs, infos = [], [], []
    with np.errstate(all="ignore"):
        for m in flat:
            ld, p, info = _ldl_one(m, herm)
            lds.append(ld)
            pivs.append(p)
            infos.append(info)
    ld = np.stack(lds).reshape(a.shape) if lds else flat.reshape(a.shape)
    piv = np.stack(pivs).reshape(a.shape[:-1]) if pivs else np.zeros(a.shape[:-1], np.int32)
    return ld, piv, np.array(infos, np.int32).reshape(a.shape[:-2])


def _ldl_solve_one(A: np.ndarray, piv: np.ndarray, B: np.ndarray, herm: bool) -> np.ndarray:
    """sytrs/hetrs with uplo='L': solve with one compact factor, ``B`` (n x k) overwritten."""
    n = A.shape[0]
    cj = np.conj if herm else (lambda v: v)
    k = 0
    while k < n:
        if piv[k] > 0:
            kp = piv[k] - 1
            if kp != k:
                B[[k, kp]] = B[[kp, k]]
            B[k + 1 :] -= np.outer(A[k + 1 :, k], B[k])
            B[k] = B[k] / (A[k, k].real if herm else A[k, k])
            k += 1
        else:
            kp = -piv[k] - 1
            if kp != k + 1:
                B[[k + 1, kp]] = B[[kp, k + 1]]
            if k < n - 2:
                B[k + 2 :] -= np.outer(A[k + 2 :, k], B[k]) + np.outer(A[k + 2 :, k + 1], B[k + 1])
            akm1k = A[k + 1, k]
            akm1 = A[k, k] / cj(akm1k)
            ak = A[k + 1, k + 1] / akm1k
            denom = akm1 * ak - 1.0
            bkm1 = B[k] / cj(akm1k)
            bk = B[k + 1] / akm1k
            B[k] = (ak * bkm1 - bk) / denom
            B[k + 1] = (akm1 * bk - bkm1) / denom
            k += 2
    k = n - 1
    while k >= 0:
        if piv[k] > 0:
            if k < n - 1:
                B[k] -= cj(A[k + 1 :, k]) @ B[k + 1 :]
            kp = piv[k] - 1
            if kp != k:
                B[[k, kp]] = B[[kp, k]]
            k -= 1
        else:
            if k < n - 1:
                B[k] -= cj(A[k + 1 :, k]) @ B[k + 1 :]
                B[k - 1] -= cj(A[k + 1 :, k - 1]) @ B[k + 1 :]
            kp = -piv[k] - 1
            if kp != k:
                B[[k, kp]] = B[[kp, k]]
            k -= 2
    return B


def ldl_solve(ld: np.ndarray, piv: np.ndarray, b: np.ndarray, hermitian: bool) -> np.ndarray:
    _no_half("ldl_solve_kernel_cpu", ld, b)
    batch = np.broadcast_shapes(ld.shape[:-2], piv.shape[:-1], b.shape[:-2])
    n = ld.shape[-1]
    nb = int(np.prod(batch))
    lds = np.broadcast_to(ld, batch + ld.shape[-2:]).reshape((nb, n, n))
    pivs = np.broadcast_to(piv, batch + piv.shape[-1:]).reshape((nb, n))
    bs = np.array(np.broadcast_to(b, batch + b.shape[-2:]).reshape((nb,) + b.shape[-2:]), dtype=np.result_type(ld, b))
    herm = hermitian and ld.dtype.kind == "c"
    with np.errstate(all="ignore"):
        for i in range(bs.shape[0]):
            _ldl_solve_one(lds[i], pivs[i], bs[i], herm)
    return bs.reshape(batch + b.shape[-2:])


# -- the matrix exponential ----------------------------------------------------------------------------------

# Higham (2005): Pade degree 13 with scaling and squaring
_B13 = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0, 129060195264000.0,
        10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0, 40840800.0, 960960.0, 16380.0, 182.0, 1.0)
_THETA13 = 5.371920351148152


def matrix_exp(a: np.ndarray) -> np.ndarray:
    if a.dtype == np.float16:  # torch has a half kernel: compute in single precision, round back
        return matrix_exp(a.astype(np.float32)).astype(np.float16)
    n = a.shape[-1]
    if a.size == 0:
        return a.copy()
    norm1 = np.max(np.sum(np.abs(a), axis=-2), axis=-1)
    with np.errstate(all="ignore"):
        s = np.maximum(0, np.ceil(np.log2(np.where(norm1 > 0, norm1, 1.0) / _THETA13))).astype(np.int64)
    s = np.where(np.isfinite(norm1), s, 0)
    A = a / (2.0 ** s)[..., None, None].astype(a.real.dtype)
    eye = np.eye(n, dtype=a.dtype)
    b = _B13
    A2 = A @ A
    A4 = A2 @ A2
    A6 = A4 @ A2
    U = A @ (A6 @ (b[13] * A6 + b[11] * A4 + b[9] * A2) + b[7] * A6 + b[5] * A4 + b[3] * A2 + b[1] * eye)
    V = A6 @ (b[12] * A6 + b[10] * A4 + b[8] * A2) + b[6] * A6 + b[4] * A4 + b[2] * A2 + b[0] * eye
    R = np.linalg.solve(V - U, V + U)
    # NumPy 2.5's stubs have no overload for this call (2.4's do); the ignore holds for both
    for i in range(int(s.max()) if s.size else 0):  # type: ignore[call-overload, unused-ignore]
        R = np.where((s > i)[..., None, None], R @ R, R)
    return R.astype(a.dtype, copy=False)
