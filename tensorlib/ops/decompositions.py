"""Matrix decompositions and the solvers built on them: triangular solves, Cholesky, LU, QR, eigen and singular values.

The factorisations run in NumPy (LAPACK through ``np.linalg``; LU and the triangular solves in the vectorised
loops of :mod:`._lapack`, as NumPy has no such routine). Each differentiable one records one node for all its outputs,
whose backward is written with tensorlib's ops (torch's formulas), so gradients of gradients work too. Failures on
the input (a singular matrix, one that is not positive-definite) raise ``tensorlib.linalg.LinAlgError`` with torch's
messages.
"""

from __future__ import annotations

from typing import Any, Literal, Sequence

import numpy as np

from .. import return_types as rt
from .._autograd.graph import Node, SavedTensor, rename_grad_fn, save_input, unpack
from .._C import _LinAlgError
from .._dtype import FROM_NP
from .._registry import LINALG, op, public
from .._tensor import Tensor
from . import _lapack
from ._util import (
    needs_grad,
    no_complex_grad,
    no_half,
    not_implemented,
    record,
    tensor_arg,
    type_title,
    wrap,
    write_out,
    write_outs,
)
from .arithmetic import add, div, mul, neg, sub
from .broadcast import expand, sum_to_size
from .conversion import conj, real, to_dtype
from .indexing import narrow, select
from .join_split import cat
from .linalg import inv, inv_with_info, matmul, tril, triu
from .shape import diag_embed, diagonal, squeeze, transpose, unsqueeze
from .unary import imag

# The error torch raises as torch.linalg.LinAlgError (a RuntimeError; its class lives in _C, as torch's)
public(namespace=LINALG, name="LinAlgError")(_LinAlgError)


# -- shared checks and helpers ----------------------------------------------------------------------


def check_matrix(x: Tensor, fname: str, argname: str = "A", square: bool = True, dtype_check: bool = True) -> np.ndarray:
    """torch's checks of a (batch of) matrices: at least 2 dims, floating or complex, square when asked."""
    a = x._data
    if a.ndim < 2:
        raise RuntimeError(f"{fname}: The input tensor {argname} must have at least 2 dimensions.")
    if dtype_check and a.dtype.kind not in "fc":
        raise RuntimeError(f"{fname}: Expected a floating point or complex tensor as input. Got {type_title(a.dtype)}")
    if square and a.shape[-1] != a.shape[-2]:
        raise RuntimeError(
            f"{fname}: {argname} must be batches of square matrices, but they are {a.shape[-2]} by {a.shape[-1]} matrices"
        )
    return a


def mH(t: Tensor) -> Tensor:
    """The conjugate transpose of the last two dims."""
    t2 = transpose(t, -1, -2)
    return conj(t2) if t._data.dtype.kind == "c" else t2


def diag(t: Tensor) -> Tensor:
    return diagonal(t, 0, -2, -1)


def eye_like(t: Tensor, n: int | None = None) -> Tensor:
    n = t._data.shape[-1] if n is None else n
    return wrap(np.eye(n, dtype=t._data.dtype))


def real_dtype(npdt: np.dtype) -> np.dtype:
    return np.empty(0, npdt).real.dtype


def complex_dtype(npdt: np.dtype) -> np.dtype:
    return np.result_type(npdt, np.complex64)


def outputs(node_cls: type, arrays: Sequence[np.ndarray], inputs: Sequence[Any], diff: Sequence[int]) -> tuple[list, Any]:
    """The arrays as tensors; while recording, the ``diff`` ones are outputs of one new ``node_cls`` node."""
    outs = [wrap(a) for a in arrays]
    if not diff or not needs_grad(*inputs):
        return outs, None
    first = diff[0]
    t0, node = record(node_cls, arrays[first], inputs)
    if first:
        t0._get_meta().output_nr = first
    outs[first] = t0
    for i in diff[1:]:
        t = outs[i]
        t._grad_fn = node
        t._requires_grad = True
        t._get_meta().output_nr = i
    return outs, node


def save_output(t: Tensor, i: int) -> SavedTensor:
    return SavedTensor(t, True, i)


def finish(result: Tensor, out: Any, fname: str) -> Tensor:
    return result if out is None else write_out(out, result, fname)


def finish_tuple(result: tuple, out: Any, fname: str) -> Any:
    return result if out is None else write_outs(out, result, fname)


def _allclose_zero(a: np.ndarray, b: np.ndarray) -> bool:
    return bool(np.allclose(a, b, rtol=1e-2, atol=1e-2))


class NotDifferentiable(Node):
    """The node of an op torch records but cannot differentiate: its backward raises torch's error."""

    __slots__ = ("message", "kind")
    message: str
    kind: type

    def apply(self, grads: list) -> tuple:
        raise self.kind(self.message)


# -- triangular solves ------------------------------------------------------------------------------


class LinalgSolveTriangularBackward0(Node):
    __slots__ = ("self_", "result", "upper", "left", "unitriangular", "a_shape", "b_shape")
    _saved_slots = ("self_", "result")
    self_: SavedTensor
    result: SavedTensor
    upper: bool
    left: bool
    unitriangular: bool
    a_shape: tuple
    b_shape: tuple

    def backward(self, g: Tensor) -> tuple:
        A = unpack(self, self.self_)
        X = unpack(self, self.result)
        # A X = B: gB = A^{-H} gX, gA = -gB X^H (X A = B: gB = gX A^{-H}, gA = -X^H gB), kept to A's triangle
        gB = solve_triangular(mH(A), g, upper=not self.upper, left=self.left, unitriangular=self.unitriangular)
        gA = None
        if self.needs(0):
            gA = neg(matmul(gB, mH(X)) if self.left else matmul(mH(X), gB))
            if self.upper:
                gA = triu(gA, 1 if self.unitriangular else 0)
            else:
                gA = tril(gA, -1 if self.unitriangular else 0)
            gA = sum_to_size(gA, self.a_shape)
        return gA, sum_to_size(gB, self.b_shape) if self.needs(1) else None


@op(namespace=LINALG)
def solve_triangular(
    A: Tensor, B: Tensor, *, upper: bool, left: bool = True, unitriangular: bool = False, out: Tensor | None = None
) -> Tensor:
    """The solution X of the triangular system ``A X = B`` (``X A = B`` with ``left=False``), batched."""
    fname = "linalg.solve_triangular"
    x = tensor_arg(A, "linalg_solve_triangular", "A")
    y = tensor_arg(B, "linalg_solve_triangular", "B", 2)
    a = check_matrix(x, fname, dtype_check=False)
    if y._data.ndim < 2:
        raise RuntimeError(f"{fname}: The input tensor B must have at least 2 dimensions.")
    dt = np.result_type(a.dtype, y._data.dtype)
    if dt.kind not in "fc":
        raise NotImplementedError(f"\"triangular_solve_cpu\" not implemented for '{type_title(dt)}'")
    b = y._data
    n = a.shape[-1]
    if (b.shape[-2] if left else b.shape[-1]) != n:
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(
            f"{fname}: Incompatible shapes of A and B for the equation {eq} ({a.shape[-2]}x{a.shape[-1]} and "
            f"{b.shape[-2]}x{b.shape[-1]})"
        )
    if x._data.dtype != dt:
        x = to_dtype(x, FROM_NP[dt])
    if y._data.dtype != dt:
        y = to_dtype(y, FROM_NP[dt])
    r = _lapack.solve_triangular(x._data, y._data, upper, left, unitriangular)
    (res,), node = outputs(LinalgSolveTriangularBackward0, [r], (x, y), (0,))
    if node is not None:
        node.self_ = save_input(x)
        node.result = save_output(res, 0)
        node.upper, node.left, node.unitriangular = upper, left, unitriangular
        node.a_shape, node.b_shape = x._data.shape, y._data.shape
    return finish(res, out, fname)


# -- Cholesky -----------------------------------------------------------------------------------------


class LinalgCholeskyExBackward0(Node):
    __slots__ = ("L", "upper")
    _saved_slots = ("L",)
    num_outputs = 2
    L: SavedTensor
    upper: bool

    def apply(self, grads: list) -> tuple:
        g = grads[0]
        if g is None:
            return (None,)
        L = unpack(self, self.L)
        if self.upper:
            L, g = mH(L), mH(g)
        return (cholesky_backward(g, L),)


def cholesky_backward(gL: Tensor, L: Tensor) -> Tensor:
    """gA = L^{-H} pi*(tril(L^H gL)) L^{-1}, pi*(X) = (X + X^H - diag(X)) / 2 (torch's formula)."""
    X = tril(matmul(mH(L), gL))
    P = mul(add(X, mH(tril(X, -1))), 0.5)
    gA = solve_triangular(mH(L), P, upper=True)
    return solve_triangular(L, gA, upper=False, left=False)


def _cholesky(x: Tensor, upper: bool, fname: str) -> tuple[Tensor, Tensor]:
    a = check_matrix(x, fname)
    L, info = _lapack.cholesky(a, upper)
    (res, inf_t), node = outputs(LinalgCholeskyExBackward0, [L, info], (x,), (0,))
    if node is not None:
        node.L = save_output(res, 0)
        node.upper = upper
    return res, inf_t


@op(namespace=LINALG)
def cholesky(A: Tensor, *, upper: bool = False, out: Tensor | None = None) -> Tensor:
    """The Cholesky factor L of Hermitian positive-definite matrices, ``A = L L^H`` (``U^H U`` with ``upper``)."""
    x = tensor_arg(A, "linalg_cholesky", "A")
    res, info = _cholesky(x, upper, "linalg.cholesky")
    _lapack.raise_cholesky("linalg.cholesky", x._data.shape, info._data)
    return finish(res, out, "linalg.cholesky")


@op(namespace=LINALG)
def cholesky_ex(A: Tensor, *, upper: bool = False, check_errors: bool = False, out: Any = None) -> Any:
    """:func:`cholesky` without the error: ``(L, info)``, info > 0 where a leading minor is not positive-definite."""
    x = tensor_arg(A, "linalg_cholesky_ex", "A")
    res, info = _cholesky(x, upper, "linalg.cholesky_ex")
    if check_errors:
        _lapack.raise_cholesky("linalg.cholesky_ex", x._data.shape, info._data)
    return finish_tuple(rt.linalg_cholesky_ex(res, info), out, "linalg.cholesky_ex")


# -- eigendecompositions ------------------------------------------------------------------------------


def eig_backward(gL: Tensor | None, gV: Tensor | None, L: Tensor, V: Tensor, hermitian: bool) -> Tensor:
    """torch's gradient of ``A = V diag(L) V^{-1}`` (``V`` unitary when ``hermitian``)."""
    Vh = mH(V)
    if gV is None:
        assert gL is not None
        if hermitian:
            return matmul(mul(V, unsqueeze(gL, -2)), Vh)
        return solve(Vh, mul(unsqueeze(gL, -1), Vh))
    VhgV = matmul(Vh, gV)
    d = diag(VhgV)
    if V._data.dtype.kind == "c" and not _allclose_zero(d._data.imag, np.zeros(d._data.shape)):
        raise RuntimeError(
            f"{'linalg_eigh_backward' if hermitian else 'linalg_eig_backward'}: The eigenvectors in the complex case "
            "are specified up to multiplication by e^{i phi}. The specified loss function depends on this quantity, "
            "so it is ill-defined."
        )
    if hermitian:
        VhgV = mul(sub(VhgV, mH(VhgV)), 0.5)
    else:
        VhgV = sub(VhgV, matmul(Vh, mul(V, unsqueeze(real(d), -2))))
    Lc = conj(L) if L._data.dtype.kind == "c" else L
    E = add(sub(unsqueeze(Lc, -2), unsqueeze(Lc, -1)), eye_like(V))  # E[i, j] = L_j - L_i, 1 on the diagonal
    ret = div(VhgV, E)
    if gL is not None:
        ret = add(sub(ret, diag_embed(diag(ret))), diag_embed(gL))
    if hermitian:
        return matmul(V, matmul(ret, Vh))
    return solve(Vh, matmul(ret, Vh))


class LinalgEighBackward0(Node):
    __slots__ = ("eigenvalues", "eigenvectors")
    _saved_slots = ("eigenvalues", "eigenvectors")
    num_outputs = 2
    eigenvalues: SavedTensor
    eigenvectors: SavedTensor

    def apply(self, grads: list) -> tuple:
        gL, gV = grads
        if gL is None and gV is None:
            return (None,)
        L = unpack(self, self.eigenvalues)
        V = unpack(self, self.eigenvectors)
        return (eig_backward(gL, gV, L, V, True),)


def _check_uplo(UPLO: Any) -> Literal["L", "U"]:
    if not isinstance(UPLO, str) or UPLO.upper() not in ("L", "U") or len(UPLO) != 1:
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    return "L" if UPLO.upper() == "L" else "U"


def _eigh(x: Tensor, UPLO: str, fname: str) -> tuple[Tensor, Tensor]:
    a = check_matrix(x, fname, dtype_check=False)
    uplo = _check_uplo(UPLO)
    if a.dtype.kind not in "fc":
        raise NotImplementedError(f"\"linalg_eigh_cpu\" not implemented for '{type_title(a.dtype)}'")
    w, v = _lapack_eigh(np.linalg.eigh, a, uplo)
    (L, V), node = outputs(LinalgEighBackward0, [w.astype(real_dtype(a.dtype), copy=False), v], (x,), (0, 1))
    if node is not None:
        node.eigenvalues = save_output(L, 0)
        node.eigenvectors = save_output(V, 1)
    return L, V


@op(namespace=LINALG)
def eigh(A: Tensor, UPLO: str = "L", *, out: Any = None) -> Any:
    """Eigenvalues (ascending, real) and orthonormal eigenvectors of Hermitian matrices, read from the ``UPLO`` triangle."""
    x = tensor_arg(A, "linalg_eigh", "A")
    L, V = _eigh(x, UPLO, "linalg.eigh")
    return finish_tuple(rt.linalg_eigh(L, V), out, "linalg.eigh")


@op(namespace=LINALG)
def eigvalsh(A: Tensor, UPLO: str = "L", *, out: Tensor | None = None) -> Tensor:
    """The eigenvalues of Hermitian matrices (ascending, real); their gradient needs the eigenvectors too."""
    x = tensor_arg(A, "linalg_eigvalsh", "A")
    if needs_grad(x):
        return finish(_eigh(x, UPLO, "linalg.eigvalsh")[0], out, "linalg.eigvalsh")
    a = check_matrix(x, "linalg.eigvalsh", dtype_check=False)
    uplo = _check_uplo(UPLO)
    if a.dtype.kind not in "fc":
        raise NotImplementedError(f"\"linalg_eigh_cpu\" not implemented for '{type_title(a.dtype)}'")
    w = _lapack_eigh(np.linalg.eigvalsh, a, uplo)
    return finish(wrap(w.astype(real_dtype(a.dtype), copy=False)), out, "linalg.eigvalsh")


def _lapack_eigh(kernel: Any, a: np.ndarray, uplo: str) -> Any:
    """NumPy's eigh/eigvalsh, with torch's error when LAPACK does not converge (a NaN in the matrix)."""
    try:
        return kernel(a, UPLO=uplo)
    except np.linalg.LinAlgError:
        raise _LinAlgError("linalg.eigh: The algorithm failed to converge because the input matrix is "
                           "ill-conditioned or has too many repeated eigenvalues (error code: 1).") from None


class LinalgEigBackward0(Node):
    __slots__ = ("eigenvalues", "eigenvectors", "real_input")
    _saved_slots = ("eigenvalues", "eigenvectors")
    num_outputs = 2
    eigenvalues: SavedTensor
    eigenvectors: SavedTensor
    real_input: bool

    def apply(self, grads: list) -> tuple:
        gL, gV = grads
        if gL is None and gV is None:
            return (None,)
        L = unpack(self, self.eigenvalues)
        V = unpack(self, self.eigenvectors)
        gA = eig_backward(gL, gV, L, V, False)
        return (real(gA) if self.real_input else gA,)


def _eig(x: Tensor, fname: str) -> tuple[Tensor, Tensor]:
    a = check_matrix(x, fname, dtype_check=False)
    if a.dtype.kind not in "fc":
        raise RuntimeError(f"Unknown Complex ScalarType for {type_title(a.dtype)}")
    if not np.isfinite(a).all():
        raise RuntimeError("torch.linalg.eig: input tensor should not contain infs or NaNs.")
    w, v = np.linalg.eig(a)
    cdt = complex_dtype(a.dtype)
    (L, V), node = outputs(LinalgEigBackward0, [w.astype(cdt), v.astype(cdt)], (x,), (0, 1))
    if node is not None:
        node.eigenvalues = save_output(L, 0)
        node.eigenvectors = save_output(V, 1)
        node.real_input = a.dtype.kind == "f"
    return L, V


@op(namespace=LINALG)
def eig(A: Tensor, *, out: Any = None) -> Any:
    """Eigenvalues and eigenvectors (unit norm) of square matrices, always complex."""
    x = tensor_arg(A, "linalg_eig", "A")
    return finish_tuple(rt.linalg_eig(*_eig(x, "linalg.eig")), out, "linalg.eig")


@op(namespace=LINALG)
def eigvals(A: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The eigenvalues of square matrices (complex)."""
    x = tensor_arg(A, "linalg_eigvals", "A")
    if needs_grad(x):
        return finish(_eig(x, "linalg.eigvals")[0], out, "linalg.eigvals")
    a = check_matrix(x, "linalg.eigvals", dtype_check=False)
    if a.dtype.kind not in "fc":
        raise RuntimeError(f"Unknown Complex ScalarType for {type_title(a.dtype)}")
    finite = np.isfinite(a).all(axis=(-2, -1))
    w = np.full(a.shape[:-1], np.nan, complex_dtype(a.dtype))
    if finite.any():  # torch gives nan eigenvalues for matrices holding inf or nan
        w[finite] = np.linalg.eigvals(a[finite])
    return finish(wrap(w), out, "linalg.eigvals")


# -- singular values ------------------------------------------------------------------------------------


def svd_backward(gU: Tensor | None, gS: Tensor | None, gVh: Tensor | None, U: Tensor, S: Tensor, Vh: Tensor) -> Tensor:
    """torch's gradient of the reduced SVD ``A = U diag(S) Vh`` (distinct singular values; full rank if not square)."""
    m, n = U._data.shape[-2], Vh._data.shape[-1]
    if gU is None and gVh is None:
        assert gS is not None
        return matmul(U, mul(unsqueeze(gS, -1), Vh)) if m >= n else matmul(mul(U, unsqueeze(gS, -2)), Vh)
    is_complex = U._data.dtype.kind == "c"

    def skew(X: Tensor) -> Tensor:
        return sub(X, mH(X))

    UhgU = skew(matmul(mH(U), gU)) if gU is not None else None
    VhgV = skew(matmul(Vh, mH(gVh))) if gVh is not None else None
    if is_complex:
        zeros = np.zeros(S._data.shape)
        im_u = diag(UhgU)._data.imag if UhgU is not None else zeros
        im_v = diag(VhgV)._data.imag if VhgV is not None else zeros
        if not _allclose_zero(im_u, -im_v):
            raise RuntimeError(
                "svd_backward: The singular vectors in the complex case are specified up to multiplication by e^{i phi}. "
                "The specified loss function depends on this phase term, making it ill-defined."
            )
    S2 = mul(S, S)
    E = add(sub(unsqueeze(S2, -2), unsqueeze(S2, -1)), eye_like(S2, S._data.shape[-1]))
    if UhgU is not None and VhgV is not None:
        ret = div(add(mul(UhgU, unsqueeze(S, -2)), mul(unsqueeze(S, -1), VhgV)), E)
    elif UhgU is not None:
        ret = mul(div(UhgU, E), unsqueeze(S, -2))
    else:
        assert VhgV is not None
        ret = mul(unsqueeze(S, -1), div(VhgV, E))
    if gS is not None:
        ret = add(ret, diag_embed(gS))
    if is_complex and UhgU is not None:
        ret = add(ret, diag_embed(div(diag(UhgU), mul(S, 2.0))))
    if m > n and gU is not None:
        gA = matmul(U, ret)
        gUSinv = div(gU, unsqueeze(S, -2))
        gA = sub(add(gA, gUSinv), matmul(U, matmul(mH(U), gUSinv)))
        return matmul(gA, Vh)
    if m < n and gVh is not None:
        gA = matmul(ret, Vh)
        SinvgVh = div(gVh, unsqueeze(S, -1))
        gA = sub(add(gA, SinvgVh), matmul(matmul(SinvgVh, mH(Vh)), Vh))
        return matmul(U, gA)
    return matmul(U, matmul(ret, Vh)) if m >= n else matmul(matmul(U, ret), Vh)


class LinalgSvdBackward0(Node):
    __slots__ = ("U", "S", "Vh", "full_matrices")
    _saved_slots = ("U", "S", "Vh")
    num_outputs = 3
    U: SavedTensor
    S: SavedTensor
    Vh: SavedTensor
    full_matrices: bool

    def apply(self, grads: list) -> tuple:
        gU, gS, gVh = grads
        if gU is None and gS is None and gVh is None:
            return (None,)
        U, S, Vh = unpack(self, self.U), unpack(self, self.S), unpack(self, self.Vh)
        if self.full_matrices:
            k = S._data.shape[-1]
            U = narrow(U, -1, 0, k) if U._data.shape[-1] != k else U
            Vh = narrow(Vh, -2, 0, k) if Vh._data.shape[-2] != k else Vh
            gU = narrow(gU, -1, 0, k) if gU is not None and gU._data.shape[-1] != k else gU
            gVh = narrow(gVh, -2, 0, k) if gVh is not None and gVh._data.shape[-2] != k else gVh
        return (svd_backward(gU, gS, gVh, U, S, Vh),)


def _svd(x: Tensor, full_matrices: bool, fname: str) -> tuple[Tensor, Tensor, Tensor]:
    a = check_matrix(x, fname, square=False)
    u, s, vh = _lapack.svd(a, full_matrices=full_matrices)
    (U, S, Vh), node = outputs(LinalgSvdBackward0, [u, s.astype(real_dtype(a.dtype), copy=False), vh], (x,), (0, 1, 2))
    if node is not None:
        node.U, node.S, node.Vh = save_output(U, 0), save_output(S, 1), save_output(Vh, 2)
        node.full_matrices = full_matrices
    return U, S, Vh


@op(namespace=LINALG)
def svd(A: Tensor, full_matrices: bool = True, *, driver: str | None = None, out: Any = None) -> Any:
    """The singular value decomposition ``A = U diag(S) Vh`` (singular values descending)."""
    x = tensor_arg(A, "linalg_svd", "A")
    if driver is not None:
        raise RuntimeError(
            "torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs with cuSOLVER backend."
        )
    return finish_tuple(rt.linalg_svd(*_svd(x, full_matrices, "linalg.svd")), out, "linalg.svd")


@op(namespace=LINALG)
def svdvals(A: Tensor, *, driver: str | None = None, out: Tensor | None = None) -> Tensor:
    """Singular values (descending); their gradient needs the singular vectors too (distinct values assumed)."""
    x = tensor_arg(A, "linalg_svdvals", "A")
    if driver is not None:
        raise RuntimeError(
            "torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs with cuSOLVER backend."
        )
    if needs_grad(x):
        return finish(_svd(x, False, "linalg.svd")[1], out, "linalg.svdvals")
    a = check_matrix(x, "linalg.svd", square=False)
    s = _lapack.svd(a, compute_uv=False).astype(real_dtype(a.dtype), copy=False)
    return finish(wrap(s), out, "linalg.svdvals")


# -- QR ------------------------------------------------------------------------------------------------


def qr_backward(gQ: Tensor | None, gR: Tensor | None, Q: Tensor, R: Tensor) -> Tensor:
    """The gradient of ``A = Q R`` (reduced; for a wide A, its leading square block and the rest)."""
    m, n = Q._data.shape[-2], R._data.shape[-1]
    if m < n:
        # A = [X | Y], X = Q R1, Y = Q R2: gY = Q gR2, and X sees gQ - Q gR2 R2^H
        R1 = narrow(R, -1, 0, m)
        R2 = narrow(R, -1, m, n - m)
        gR1 = narrow(gR, -1, 0, m) if gR is not None else None
        gR2 = narrow(gR, -1, m, n - m) if gR is not None else None
        gQ1 = gQ
        if gR2 is not None:
            corr = matmul(Q, matmul(gR2, mH(R2)))
            gQ1 = neg(corr) if gQ1 is None else sub(gQ1, corr)
        gX = qr_backward(gQ1, gR1, Q, R1)
        gY = matmul(Q, gR2) if gR2 is not None else wrap(np.zeros(R2._data.shape[:-2] + (m, n - m), R._data.dtype))
        return cat([gX, gY], -1)
    # m >= n: gA = (gQ + Q N) R^{-H}, N the Hermitian matrix whose strict upper triangle is M's, diagonal Re(M)
    M = None
    if gR is not None:
        M = matmul(gR, mH(R))
    if gQ is not None:
        QhgQ = matmul(mH(Q), gQ)
        M = neg(QhgQ) if M is None else sub(M, QhgQ)
    assert M is not None
    upper = triu(M, 1)
    N = add(add(upper, mH(upper)), diag_embed(real(diag(M))))
    B = matmul(Q, N)
    if gQ is not None:
        B = add(B, gQ)
    return solve_triangular(mH(R), B, upper=False, left=False)


class LinalgQrBackward0(Node):
    __slots__ = ("Q", "R", "mode")
    _saved_slots = ("Q", "R")
    num_outputs = 2
    Q: SavedTensor
    R: SavedTensor
    mode: str

    def apply(self, grads: list) -> tuple:
        gQ, gR = grads
        if gQ is None and gR is None:
            return (None,)
        if self.mode == "r":
            raise RuntimeError(
                "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please use "
                "linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr."
            )
        Q, R = unpack(self, self.Q), unpack(self, self.R)
        if self.mode == "complete" and Q._data.shape[-2] > R._data.shape[-1]:
            raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and nrows > ncols.")
        return (qr_backward(gQ, gR, Q, R),)


def _qr(x: Tensor, mode: str, fname: str) -> tuple[Tensor, Tensor]:
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(
            f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', or 'complete'"
        )
    a = check_matrix(x, fname, square=False)
    q: np.ndarray
    r: np.ndarray
    if mode == "r":
        r = np.asarray(np.linalg.qr(a, mode="r"))
        q = np.empty(0, a.dtype)
    else:
        q, r = np.linalg.qr(a, mode="complete" if mode == "complete" else "reduced")
    (Q, R), node = outputs(LinalgQrBackward0, [q, r], (x,), (0, 1))
    if node is not None:
        node.Q, node.R = save_output(Q, 0), save_output(R, 1)
        node.mode = mode
    return Q, R


@op(namespace=LINALG)
def qr(A: Tensor, mode: str = "reduced", *, out: Any = None) -> Any:
    """The QR decomposition ``A = Q R`` (``mode``: ``'reduced'``, ``'complete'`` or ``'r'``, the last with an empty Q)."""
    x = tensor_arg(A, "linalg_qr", "A")
    return finish_tuple(rt.linalg_qr(*_qr(x, mode, "linalg.qr")), out, "linalg.qr")


# -- LU --------------------------------------------------------------------------------------------------


def lu_backward(gL: Tensor | None, gU: Tensor | None, P: Tensor | None, L: Tensor, U: Tensor) -> Tensor:
    """torch's gradient of ``A = P L U`` (L unit lower m x k, U upper k x n)."""
    m, n = L._data.shape[-2], U._data.shape[-1]
    k = min(m, n)
    if m == n:
        gA = tril(matmul(mH(L), gL), -1) if gL is not None else None
        if gU is not None:
            t = triu(matmul(gU, mH(U)))
            gA = t if gA is None else add(gA, t)
        assert gA is not None
        gA = solve_triangular(mH(U), gA, upper=False, left=False)
        gA = solve_triangular(mH(L), gA, upper=True, unitriangular=True)
    elif m < n:
        U1 = narrow(U, -1, 0, k)
        gA = matmul(mH(L), gL) if gL is not None else None
        if gU is not None:
            t = matmul(triu(gU), mH(U))
            gA = neg(t) if gA is None else sub(gA, t)
        assert gA is not None
        gA = solve_triangular(mH(U1), tril(gA, -1), upper=False, left=False)
        if gU is not None:
            gA = cat([add(gA, triu(narrow(gU, -1, 0, k))), narrow(gU, -1, k, n - k)], -1)
        gA = solve_triangular(mH(L), gA, upper=True, unitriangular=True)
        if gU is None:
            gA = cat([gA, wrap(np.zeros(gA._data.shape[:-1] + (n - k,), gA._data.dtype))], -1)
    else:
        L1 = narrow(L, -2, 0, k)
        gA = matmul(gU, mH(U)) if gU is not None else None
        if gL is not None:
            t = matmul(mH(L), gL)
            gA = neg(t) if gA is None else sub(gA, t)
        assert gA is not None
        gA = solve_triangular(mH(L1), triu(gA), upper=True, unitriangular=True)
        if gL is not None:
            gA = cat([add(gA, tril(narrow(gL, -2, 0, k), -1)), narrow(gL, -2, k, m - k)], -2)
        gA = solve_triangular(mH(U), gA, upper=False, left=False)
        if gL is None:
            gA = cat([gA, wrap(np.zeros(gA._data.shape[:-2] + (m - k, n), gA._data.dtype))], -2)
    return matmul(P, gA) if P is not None else gA


def unpack_lu(LU: Tensor, pivots: np.ndarray | None) -> tuple[Tensor | None, Tensor, Tensor]:
    """(P, L, U) from a packed LU (differentiable in LU); P is None when ``pivots`` is."""
    m, n = LU._data.shape[-2:]
    k = min(m, n)
    Lfull = narrow(LU, -1, 0, k) if n > k else LU
    L = add(tril(Lfull, -1), wrap(np.eye(m, k, dtype=LU._data.dtype)))
    Ufull = narrow(LU, -2, 0, k) if m > k else LU
    U = triu(Ufull)
    P = wrap(_lapack.permutation(pivots, m, LU._data.dtype)) if pivots is not None else None
    return P, L, U


class LinalgLuFactorExBackward0(Node):
    __slots__ = ("LU", "pivots")
    _saved_slots = ("LU",)
    num_outputs = 3
    LU: SavedTensor
    pivots: np.ndarray

    def apply(self, grads: list) -> tuple:
        g = grads[0]
        if g is None:
            return (None,)
        LU = unpack(self, self.LU)
        P, L, U = unpack_lu(LU, self.pivots)
        m, n = LU._data.shape[-2:]
        k = min(m, n)
        gL = tril(narrow(g, -1, 0, k) if n > k else g, -1)
        gU = triu(narrow(g, -2, 0, k) if m > k else g)
        return (lu_backward(gL, gU, P, L, U),)


def _lu_factor_ex(x: Tensor, pivot: bool, fname: str) -> tuple[Tensor, Tensor, Tensor]:
    a = check_matrix(x, fname, square=False)
    if not pivot:
        raise RuntimeError(f"{fname.replace('_ex', '')}: LU without pivoting is not implemented on the CPU")
    lu, piv, info = _lapack.lu_factor(a)
    (LU, P, I), node = outputs(LinalgLuFactorExBackward0, [lu, piv, info], (x,), (0,))
    if node is not None:
        node.LU = save_output(LU, 0)
        node.pivots = piv
    return LU, P, I


def _raise_lu(fname: str, info: np.ndarray) -> None:
    flat = info.reshape(-1)
    bad = np.flatnonzero(flat)
    if bad.size:
        i = int(flat[bad[0]])
        raise RuntimeError(
            f"{fname}: U[{i},{i}] is zero and using it on lu_solve would result in a division by zero. If you still "
            "want to perform the factorization, consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)"
        )


@op(namespace=LINALG)
def lu_factor_ex(A: Tensor, *, pivot: bool = True, check_errors: bool = False, out: Any = None) -> Any:
    """:func:`lu_factor` with LAPACK's ``info`` (> 0 where U has a zero on its diagonal) instead of an error."""
    x = tensor_arg(A, "linalg_lu_factor_ex", "A")
    LU, piv, info = _lu_factor_ex(x, pivot, "linalg.lu_factor_ex")
    if check_errors:
        _raise_lu("torch.linalg.lu_factor_ex", info._data)
    return finish_tuple(rt.linalg_lu_factor_ex(LU, piv, info), out, "linalg.lu_factor_ex")


@op(namespace=LINALG)
def lu_factor(A: Tensor, *, pivot: bool = True, out: Any = None) -> Any:
    """The LU factorisation with partial pivoting, packed: ``(LU, pivots)`` (pivots 1-based, int32)."""
    x = tensor_arg(A, "linalg_lu_factor", "A")
    LU, piv, info = _lu_factor_ex(x, pivot, "linalg.lu_factor")
    _raise_lu("torch.linalg.lu_factor", info._data)
    return finish_tuple(rt.linalg_lu_factor(LU, piv), out, "linalg.lu_factor")


def _rename(t: Tensor, name: str) -> Tensor:
    return rename_grad_fn(t, name)


@op(namespace=LINALG)
def lu(A: Tensor, *, pivot: bool = True, out: Any = None) -> Any:
    """``A = P L U``: the permutation, the unit lower triangular and the upper triangular factors."""
    x = tensor_arg(A, "linalg_lu", "A")
    LU, piv, _ = _lu_factor_ex(x, pivot, "linalg.lu_factor")
    P, L, U = unpack_lu(LU, piv._data)
    assert P is not None
    return finish_tuple(rt.linalg_lu(P, _rename(L, "LinalgLuBackward0"), _rename(U, "LinalgLuBackward0")), out,
                        "linalg.lu")


def _pivots_arg(pivots: Any, fname: str) -> np.ndarray:
    p = pivots._data if isinstance(pivots, Tensor) else np.asarray(pivots)
    if p.dtype != np.int32:
        raise RuntimeError(f"{fname}: pivots should be a Tensor of scalar type torch.int32")
    return p


def lu_solve_tensor(LU: Tensor, piv: np.ndarray, B: Tensor, left: bool, adjoint: bool) -> Tensor:
    """The solution of ``op(A) X = B`` (``X op(A) = B``) from A's packed LU, composed of differentiable steps."""
    P, L, U = unpack_lu(LU, piv)
    assert P is not None
    if left and not adjoint:  # A = P L U: X = U^{-1} L^{-1} P^T B
        X = matmul(transpose(P, -1, -2), B)
        X = solve_triangular(L, X, upper=False, unitriangular=True)
        return solve_triangular(U, X, upper=True)
    if left:  # A^H X = B: U^H L^H P^T X = B
        X = solve_triangular(mH(U), B, upper=False)
        X = solve_triangular(mH(L), X, upper=True, unitriangular=True)
        return matmul(P, X)
    if not adjoint:  # X P L U = B
        X = solve_triangular(U, B, upper=True, left=False)
        X = solve_triangular(L, X, upper=False, left=False, unitriangular=True)
        return matmul(X, transpose(P, -1, -2))
    # X A^H = B: X U^H L^H P^T = B
    X = matmul(B, P)
    X = solve_triangular(mH(L), X, upper=True, left=False, unitriangular=True)
    return solve_triangular(mH(U), X, upper=False, left=False)


@op(namespace=LINALG)
def lu_solve(LU: Tensor, pivots: Tensor, B: Tensor, *, left: bool = True, adjoint: bool = False,
             out: Tensor | None = None) -> Tensor:
    """The solution of ``A X = B`` from :func:`lu_factor`'s output (``adjoint``: with A^H; ``left=False``: X A = B)."""
    fname = "linalg.lu_solve"
    lu_t = tensor_arg(LU, "linalg_lu_solve", "LU")
    b = tensor_arg(B, "linalg_lu_solve", "B", 3)
    a = check_matrix(lu_t, fname, "LU")
    if b._data.ndim < 2:
        raise RuntimeError(f"{fname}: The input tensor B must have at least 2 dimensions.")
    if (b._data.shape[-2] if left else b._data.shape[-1]) != a.shape[-1]:
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(
            f"{fname}: Incompatible shapes of A and B for the equation {eq} ({a.shape[-2]}x{a.shape[-1]} and "
            f"{b._data.shape[-2]}x{b._data.shape[-1]})"
        )
    if b._data.dtype != a.dtype:
        raise RuntimeError(
            f"{fname}: Expected LU and B to have the same dtype, but found LU of type {type_title(a.dtype)} and B of "
            f"type {type_title(b._data.dtype)} instead"
        )
    piv = _pivots_arg(pivots, fname)
    batch = np.broadcast_shapes(a.shape[:-2], b._data.shape[:-2], piv.shape[:-1])
    if a.shape[:-2] != batch:
        lu_t = expand(lu_t, batch + a.shape[-2:])
    piv = np.broadcast_to(piv, batch + piv.shape[-1:])
    res = lu_solve_tensor(lu_t, piv, b, left, adjoint)
    return finish(_rename(res, "LinalgLuSolveBackward0"), out, fname)


# -- solve, inv and their _ex forms -----------------------------------------------------------------------


@op(namespace=LINALG)
def inv_ex(A: Tensor, *, check_errors: bool = False, out: Any = None) -> Any:
    """:func:`inv` with LAPACK's ``info`` (> 0 for a singular matrix) instead of an error."""
    x = tensor_arg(A, "linalg_inv_ex", "A")
    res, info = inv_with_info(x, "linalg.inv_ex", check_errors)
    return finish_tuple(rt.linalg_inv_ex(res, wrap(info)), out, "linalg.inv_ex")


def is_vector_rhs(a: np.ndarray, b: np.ndarray) -> bool:
    """torch's rule: B is a (batch of) vector(s) when it is 1-D or has A's batch shape and one dim less."""
    return b.ndim == 1 or (b.ndim == a.ndim - 1 and b.shape == a.shape[:-1])


class LinalgSolveExBackward0(Node):
    __slots__ = ("A", "result", "left", "vector", "a_shape", "b_shape")
    _saved_slots = ("A", "result")
    num_outputs = 2
    A: SavedTensor
    result: SavedTensor
    left: bool
    vector: bool
    a_shape: tuple
    b_shape: tuple

    def apply(self, grads: list) -> tuple:
        g = grads[0]
        if g is None:
            return (None, None)
        A = unpack(self, self.A)
        X = unpack(self, self.result)
        if self.vector:
            g, X = unsqueeze(g, -1), unsqueeze(X, -1)
        # A X = B: gB = A^{-H} gX, gA = -gB X^H (X A = B: gB = gX A^{-H}, gA = -X^H gB)
        gB = solve(mH(A), g, left=self.left)
        gA = None
        if self.needs(0):
            gA = sum_to_size(neg(matmul(gB, mH(X)) if self.left else matmul(mH(X), gB)), self.a_shape)
        if self.vector:
            gB = squeeze(gB, -1)
        return gA, sum_to_size(gB, self.b_shape) if self.needs(1) else None


def _solve(x: Tensor, y: Tensor, left: bool, fname: str, check: bool) -> tuple[Tensor, Tensor]:
    a = check_matrix(x, fname)
    b = y._data
    if a.dtype != b.dtype:
        raise RuntimeError(
            f"{fname}: Expected A and B to have the same dtype, but found A of type {type_title(a.dtype)} and B of "
            f"type {type_title(b.dtype)} instead"
        )
    vec = left and is_vector_rhs(a, b)
    bm = b[..., None] if vec else b
    if bm.ndim < 2:
        raise RuntimeError(f"{fname}: The input tensor B must have at least 2 dimensions.")
    if (bm.shape[-2] if left else bm.shape[-1]) != a.shape[-1]:
        eq = "AX = B" if left else "XA = B"
        shape_b = f"{bm.shape[-2]}x{bm.shape[-1]}" if bm.ndim >= 2 else f"{bm.shape[-1]}x1"
        raise RuntimeError(
            f"{fname}: Incompatible shapes of A and B for the equation {eq} ({a.shape[-2]}x{a.shape[-1]} and {shape_b})"
        )
    if left:
        r, info = _lapack.solve(a, bm, "torch." + fname, check)
    else:
        r, info = _lapack.solve(np.swapaxes(a, -1, -2), np.swapaxes(bm, -1, -2), "torch." + fname, check)
        r = np.swapaxes(r, -1, -2)
    if vec:
        r = r[..., 0]
    (res, info_t), node = outputs(LinalgSolveExBackward0, [r, info], (x, y), (0,))
    if node is not None:
        node.A = save_input(x)
        node.result = save_output(res, 0)
        node.left, node.vector = left, vec
        node.a_shape, node.b_shape = a.shape, b.shape
    return res, info_t


@op(namespace=LINALG)
def solve(A: Tensor, B: Tensor, *, left: bool = True, out: Tensor | None = None) -> Tensor:
    """The solution X of ``A X = B`` (``X A = B`` with ``left=False``); B may be a (batch of) vector(s)."""
    x = tensor_arg(A, "linalg_solve", "A")
    y = tensor_arg(B, "linalg_solve", "B", 2)
    return finish(_solve(x, y, left, "linalg.solve", True)[0], out, "linalg.solve")


@op(namespace=LINALG)
def solve_ex(A: Tensor, B: Tensor, *, left: bool = True, check_errors: bool = False, out: Any = None) -> Any:
    """:func:`solve` with LAPACK's ``info`` (> 0 for a singular A) instead of an error."""
    x = tensor_arg(A, "linalg_solve_ex", "A")
    y = tensor_arg(B, "linalg_solve_ex", "B", 2)
    res, info = _solve(x, y, left, "linalg.solve_ex", check_errors)
    return finish_tuple(rt.linalg_solve_ex(res, info), out, "linalg.solve_ex")


# -- determinants ------------------------------------------------------------------------------------------


class LinalgSlogdetBackward0(Node):
    __slots__ = ("A", "sign")
    _saved_slots = ("A", "sign")
    num_outputs = 2
    A: SavedTensor
    sign: SavedTensor

    def apply(self, grads: list) -> tuple:
        g_sign, g_abs = grads
        A = unpack(self, self.A)
        is_complex = A._data.dtype.kind == "c"
        g = g_abs
        if is_complex and g_sign is not None:
            s = unpack(self, self.sign)
            im = mul(imag(mul(g_sign, conj(s))), 1j)
            g = im if g is None else add(g, im)
        if g is None:
            return (None,)
        return (mul(unsqueeze(unsqueeze(g, -1), -1), mH(inv(A))),)


def _slogdet(x: Tensor, fname: str) -> tuple[Tensor, Tensor]:
    a = check_matrix(x, fname)
    sign, logabs = np.linalg.slogdet(a)
    sign = np.asarray(sign).astype(a.dtype, copy=False)
    logabs = np.asarray(logabs).astype(real_dtype(a.dtype), copy=False)
    (S, L), node = outputs(LinalgSlogdetBackward0, [sign, logabs], (x,), (0, 1))
    if node is not None:
        node.A = save_input(x)
        node.sign = save_output(S, 0)
    return S, L


@op(namespace=LINALG)
def slogdet(A: Tensor, *, out: Any = None) -> Any:
    """``(sign, logabsdet)``: the determinant as its sign (a unit complex number for complex A) and log magnitude."""
    x = tensor_arg(A, "linalg_slogdet", "A")
    return finish_tuple(rt.linalg_slogdet(*_slogdet(x, "linalg.slogdet")), out, "linalg.slogdet")


@op(variants="function method", name="slogdet")
def slogdet_legacy(input: Tensor) -> Any:
    """``(sign, logabsdet)`` of square matrices (:func:`tensorlib.linalg.slogdet` by its older name)."""
    x = tensor_arg(input, "slogdet")
    return rt.slogdet(*_slogdet(x, "linalg.slogdet"))


# -- Householder products and geqrf --------------------------------------------------------------------------


def householder_tensor(A: Tensor, tau: Tensor, ncols: int | None = None) -> Tensor:
    """``H_1 ... H_k`` applied to the first ``ncols`` columns of the identity (differentiable in A and tau)."""
    m, n = A._data.shape[-2:]
    k = tau._data.shape[-1]
    ncols = n if ncols is None else ncols
    eye_m = np.eye(m, dtype=np.result_type(A._data.dtype, tau._data.dtype))
    Q = wrap(np.broadcast_to(eye_m[:, :ncols], A._data.shape[:-2] + (m, ncols)).copy())
    # v_i: 1 at row i, A's column i below it, zeros above
    below = tril(narrow(A, -1, 0, k) if n > k else A, -1)
    V = add(below, wrap(np.eye(m, k, dtype=A._data.dtype)))
    for i in range(k - 1, -1, -1):
        v = narrow(V, -1, i, 1)  # (..., m, 1)
        t = unsqueeze(unsqueeze(select(tau, -1, i), -1), -1)
        Q = sub(Q, mul(t, matmul(v, matmul(mH(v), Q))))
    return Q


@op(variants="function method", name="orgqr")
def orgqr(input: Tensor, tau: Tensor) -> Tensor:
    """The Q of a QR factorisation from :func:`geqrf`'s Householder reflectors (``linalg.householder_product``)."""
    return householder_product(input, tau)


@op(namespace=LINALG)
def householder_product(A: Tensor, tau: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The first n columns of ``H_1 ... H_k``, ``H_i = I - tau_i v_i v_i^H`` (v_i from A's column i below row i)."""
    fname = "torch.linalg.householder_product"
    x = tensor_arg(A, "linalg_householder_product", "input")
    no_half("orgqr_cpu", x)
    t = tensor_arg(tau, "linalg_householder_product", "tau", 2)
    a = x._data
    if a.ndim < 2:
        raise RuntimeError(f"{fname}: input must have at least 2 dimensions.")
    if t._data.ndim == 0:
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    if a.shape[-2] < a.shape[-1]:
        raise RuntimeError(f"{fname}: input.shape[-2] must be greater than or equal to input.shape[-1]")
    if a.shape[-1] < t._data.shape[-1]:
        raise RuntimeError(f"{fname}: input.shape[-1] must be greater than or equal to tau.shape[-1]")
    if a.ndim - t._data.ndim != 1:
        raise RuntimeError(f"{fname}: Expected tau to have one dimension less than input, but got tau.ndim equal to "
                           f"{t._data.ndim} and input.ndim is equal to {a.ndim}")
    if a.dtype != t._data.dtype:
        raise RuntimeError(f"{fname}: tau dtype {FROM_NP[t._data.dtype]} does not match input dtype "
                           f"{FROM_NP[a.dtype]}")
    if a.dtype.kind not in "fc":
        raise RuntimeError(f"linalg.householder_product: Expected a floating point or complex tensor as input. Got "
                           f"{type_title(a.dtype)}")
    res = householder_tensor(x, t)
    return finish(_rename(res, "LinalgHouseholderProductBackward0"), out, "linalg.householder_product")


GeqrfBackward0 = type("GeqrfBackward0", (NotDifferentiable,), {"__slots__": (), "num_outputs": 2})


@op(variants="function method")
def geqrf(input: Tensor, *, out: Any = None) -> Any:
    """LAPACK's geqrf: R above the diagonal and the Householder vectors below, with their scalars ``tau``."""
    no_complex_grad("geqrf", input)
    x = tensor_arg(input, "geqrf")
    a = check_matrix(x, "geqrf", "input", square=False)
    h, tau = np.linalg.qr(a, mode="raw")
    (A_, T_), node = outputs(GeqrfBackward0, [np.ascontiguousarray(np.swapaxes(h, -1, -2)), tau], (x,), (0, 1))
    if node is not None:
        node.message, node.kind = "the derivative for 'geqrf' is not implemented.", NotImplementedError
    return finish_tuple(rt.geqrf(A_, T_), out, "geqrf")


@op(variants="function method")
def ormqr(input: Tensor, input2: Tensor, input3: Tensor, left: bool = True, transpose: bool = False, *,
          out: Tensor | None = None) -> Tensor:
    """``op(Q) @ input3`` (``input3 @ op(Q)`` with ``left=False``), Q from :func:`geqrf`'s output, op the adjoint
    with ``transpose``."""
    x = tensor_arg(input, "ormqr")
    if x._data.dtype.kind not in "fc":
        raise not_implemented("ormqr_cpu", x._data.dtype)
    no_half("ormqr_cpu", x)
    tau = tensor_arg(input2, "ormqr", "input2", 2)
    other = tensor_arg(input3, "ormqr", "input3", 3)
    a, c = x._data, other._data
    if a.ndim < 2 or c.ndim < 2:
        raise RuntimeError("torch.ormqr: input must have at least 2 dimensions.")
    side = "other.shape[-2]" if left else "other.shape[-1]"
    m = c.shape[-2] if left else c.shape[-1]
    if tau._data.ndim == 0:
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    if tau._data.shape[-1] > a.shape[-1]:
        raise RuntimeError("torch.ormqr: tau.shape[-1] must be less than or equal to input.shape[-1]")
    if tau._data.shape[-1] != min(m, a.shape[-1]):
        raise RuntimeError(f"torch.ormqr: tau.shape[-1] must be equal to min({side}, input.shape[-1])")
    if a.shape[-2] != m:
        raise RuntimeError(f"torch.ormqr: input.shape[-2] must be equal to {side}")
    Q = householder_tensor(x, tau, ncols=a.shape[-2])
    if transpose:
        Q = mH(Q)
    res = matmul(Q, other) if left else matmul(other, Q)
    return finish(_rename(res, "OrmqrBackward0"), out, "ormqr")
