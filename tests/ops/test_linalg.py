"""tensorlib.linalg beyond the op table: errors (``LinAlgError`` and torch's messages), the ``_ex`` forms' info,
degenerate gradients, the warnings of torch's deprecated names, named-tuple results and the randomised low-rank
decompositions. The table (``tests/ops/tables/linalg.py``) checks values and gradients against NumPy and torch."""

from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np
import pytest

import tensorlib
from tensorlib import linalg as LA
from tensorlib.ops import _util, linalg_functions

NOT_PD = np.array([[1.0, 2.0], [2.0, 1.0]])
SINGULAR = np.array([[1.0, 2.0], [2.0, 4.0]])


def t(a: Any, **kw: Any) -> tensorlib.Tensor:
    return tensorlib.tensor(np.asarray(a), **kw)


def test_linalg_error_is_torchs_class() -> None:
    assert LA.LinAlgError is tensorlib._C._LinAlgError
    assert issubclass(LA.LinAlgError, RuntimeError)
    assert LA.LinAlgError.__module__ == "tensorlib._C" and "LinAlgError" in LA.__all__


# (tensorlib call, torch call, error type): the message must be torch's
ERRORS: list[tuple[str, Callable, Callable, type]] = [
    ("cholesky", lambda L: L.linalg.cholesky(t_(L, NOT_PD)), None, RuntimeError),
    ("cholesky-batch", lambda L: L.linalg.cholesky(t_(L, np.stack([np.eye(2), NOT_PD]))), None, RuntimeError),
    ("cholesky_ex-check", lambda L: L.linalg.cholesky_ex(t_(L, np.stack([np.eye(2), NOT_PD])), check_errors=True),
     None, RuntimeError),
    ("cholesky-legacy", lambda L: L.cholesky(t_(L, NOT_PD)), None, RuntimeError),
    ("inv", lambda L: L.linalg.inv(t_(L, SINGULAR)), None, RuntimeError),
    ("inv-batch", lambda L: L.linalg.inv(t_(L, np.stack([np.eye(2), SINGULAR]))), None, RuntimeError),
    ("solve", lambda L: L.linalg.solve(t_(L, SINGULAR), t_(L, np.ones(2))), None, RuntimeError),
    ("solve-batch", lambda L: L.linalg.solve(t_(L, np.stack([np.eye(2), SINGULAR])), t_(L, np.ones((2, 2)))), None,
     RuntimeError),
    ("lu_factor", lambda L: L.linalg.lu_factor(t_(L, SINGULAR)), None, RuntimeError),
    ("lu_factor-nopivot", lambda L: L.linalg.lu_factor(t_(L, NOT_PD), pivot=False), None, RuntimeError),
    ("cholesky-int", lambda L: L.linalg.cholesky(L.eye(2, dtype=L.int64)), None, RuntimeError),
    ("cholesky-1d", lambda L: L.linalg.cholesky(t_(L, np.ones(3))), None, RuntimeError),
    ("eigh-rect", lambda L: L.linalg.eigh(t_(L, np.ones((2, 3)))), None, RuntimeError),
    ("eigh-int", lambda L: L.linalg.eigh(L.eye(2, dtype=L.int64)), None, NotImplementedError),
    ("eigh-uplo", lambda L: L.linalg.eigh(t_(L, NOT_PD), "X"), None, RuntimeError),
    ("svd-driver", lambda L: L.linalg.svd(t_(L, NOT_PD), driver="gesvd"), None, RuntimeError),
    ("svd-int", lambda L: L.linalg.svd(L.ones(2, 2, dtype=L.int64)), None, RuntimeError),
    ("qr-mode", lambda L: L.linalg.qr(t_(L, NOT_PD), mode="foo"), None, RuntimeError),
    ("slogdet-int", lambda L: L.linalg.slogdet(L.ones(3, 3, dtype=L.int64)), None, RuntimeError),
    ("solve-dtype", lambda L: L.linalg.solve(t_(L, NOT_PD), L.ones(2, 2)), None, RuntimeError),
    ("solve-shape", lambda L: L.linalg.solve(t_(L, NOT_PD), t_(L, np.ones((3, 2)))), None, RuntimeError),
    ("solve_triangular-shape", lambda L: L.linalg.solve_triangular(t_(L, NOT_PD), t_(L, np.ones((3, 2))), upper=True),
     None, RuntimeError),
    ("solve_triangular-vector", lambda L: L.linalg.solve_triangular(t_(L, NOT_PD), t_(L, np.ones(2)), upper=True),
     None, RuntimeError),
    ("lu_solve-vector", lambda L: L.linalg.lu_solve(*L.linalg.lu_factor(t_(L, NOT_PD)), t_(L, np.ones(2))), None,
     RuntimeError),
    ("lstsq-driver", lambda L: L.linalg.lstsq(t_(L, np.ones((3, 2))), t_(L, np.ones((3, 1))), driver="x"), None,
     RuntimeError),
    ("lstsq-rows", lambda L: L.linalg.lstsq(t_(L, np.ones((3, 2))), t_(L, np.ones((4, 1)))), None, RuntimeError),
    ("cond-ord", lambda L: L.linalg.cond(t_(L, NOT_PD), 3), None, RuntimeError),
    ("cond-fro-rect", lambda L: L.linalg.cond(t_(L, np.ones((3, 4))), "fro"), None, RuntimeError),
    ("vecdot-int", lambda L: L.linalg.vecdot(L.ones(3, dtype=L.int64), L.ones(3, dtype=L.int64)), None, RuntimeError),
    ("vecdot-dtype", lambda L: L.linalg.vecdot(L.ones(3), L.ones(3, dtype=L.float64)), None, RuntimeError),
    ("vander-N", lambda L: L.linalg.vander(t_(L, np.ones(3)), N=1), None, RuntimeError),
    ("vander-bool", lambda L: L.linalg.vander(L.ones(2, dtype=L.bool)), None, RuntimeError),
    ("matrix_exp-rect", lambda L: L.linalg.matrix_exp(t_(L, np.ones((3, 2)))), None, RuntimeError),
    ("multi_dot-one", lambda L: L.linalg.multi_dot([t_(L, np.ones(3))]), None, RuntimeError),
    ("multi_dot-3d", lambda L: L.linalg.multi_dot([t_(L, np.ones((2, 2, 2))), t_(L, np.ones((2, 2)))]), None,
     RuntimeError),
    ("multi_dot-middle", lambda L: L.linalg.multi_dot([t_(L, NOT_PD), t_(L, np.ones(2)), t_(L, NOT_PD)]), None,
     RuntimeError),
    ("multi_dot-shapes", lambda L: L.linalg.multi_dot([t_(L, np.ones((3, 3))), t_(L, np.ones((4, 3)))]), None,
     RuntimeError),
    ("tensorinv-ind", lambda L: L.linalg.tensorinv(t_(L, np.eye(4)), ind=0), None, RuntimeError),
    ("tensorinv-shape", lambda L: L.linalg.tensorinv(t_(L, np.ones((4, 6, 8, 4))), ind=2), None, RuntimeError),
    ("householder-tau", lambda L: L.linalg.householder_product(t_(L, np.ones((4, 3))), t_(L, np.ones(4))), None,
     RuntimeError),
    ("householder-wide", lambda L: L.linalg.householder_product(t_(L, np.ones((3, 4))), t_(L, np.ones(2))), None,
     RuntimeError),
    ("ldl-rect", lambda L: L.linalg.ldl_factor(t_(L, np.ones((2, 3)))), None, RuntimeError),
    ("cholesky_solve-1d", lambda L: L.cholesky_solve(t_(L, np.ones(2)), t_(L, np.eye(2))), None, RuntimeError),
    ("triangular_solve-1d", lambda L: L.triangular_solve(t_(L, np.ones(2)), t_(L, np.eye(2))), None, RuntimeError),
    ("chain_matmul-none", lambda L: L.chain_matmul(), None, RuntimeError),
    ("pca_lowrank-q", lambda L: L.pca_lowrank(t_(L, np.ones((5, 3))), q=10), None, ValueError),
    ("pinv-int", lambda L: L.linalg.pinv(L.ones(2, 2, dtype=L.int64)), None, RuntimeError),
    ("lobpcg-k", lambda L: L.lobpcg(t_(L, np.eye(4)), k=2), None, ValueError),
    ("svd-nan", lambda L: L.linalg.svd(t_(L, [[1.0, np.nan], [0.0, 1.0]])), None, RuntimeError),
    ("svd-nan-batch", lambda L: L.linalg.svd(t_(L, [np.eye(2), [[1.0, np.nan], [0.0, 1.0]]])), None, RuntimeError),
    ("svdvals-nan", lambda L: L.linalg.svdvals(t_(L, [[1.0, np.nan], [0.0, 1.0]])), None, RuntimeError),
    ("eig-nan", lambda L: L.linalg.eig(t_(L, [[1.0, np.nan], [0.0, 1.0]])), None, RuntimeError),
]


def t_(lib: Any, a: Any) -> Any:
    """A float64 tensor of ``lib`` (tensorlib or torch)."""
    return lib.tensor(np.asarray(a, dtype=np.float64))


def _message(fn: Callable, lib: Any) -> tuple[type, str]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as info:
            fn(lib)
    return info.type, str(info.value)


@pytest.mark.parametrize("name,fn,_unused,kind", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_are_torchs(name: str, fn: Callable, _unused: Any, kind: type) -> None:
    ours_type, ours = _message(fn, tensorlib)
    assert issubclass(ours_type, kind)
    torch = pytest.importorskip("torch")
    theirs_type, theirs = _message(fn, torch)
    assert ours == theirs
    assert ours_type.__name__ == theirs_type.__name__


def test_linalg_errors_raise_linalg_error() -> None:
    for fn in (lambda: LA.cholesky(t(NOT_PD)), lambda: LA.inv(t(SINGULAR)), lambda: LA.solve(t(SINGULAR), t([1.0, 1]))):
        with pytest.raises(LA.LinAlgError):
            fn()
    with pytest.raises(LA.LinAlgError, match=r"\(Batch element 1\): .* leading minor of order 2 "):
        LA.cholesky(t(np.stack([np.eye(2), NOT_PD])))


def test_ex_forms_report_info() -> None:
    L, info = LA.cholesky_ex(t(np.stack([np.eye(2), NOT_PD])))
    assert info.dtype == tensorlib.int32 and info.tolist() == [0, 2]
    assert L[0].tolist() == [[1.0, 0.0], [0.0, 1.0]]
    inverse, info = LA.inv_ex(t(SINGULAR))
    assert info.item() == 2 and not np.isfinite(inverse.numpy()).all()
    result, info = LA.solve_ex(t(SINGULAR), t([1.0, 1.0]))
    assert info.item() == 2
    LU, pivots, info = LA.lu_factor_ex(t(SINGULAR))
    assert info.item() == 2 and pivots.tolist() == [2, 2] and pivots.dtype == tensorlib.int32
    assert LU.tolist() == [[2.0, 4.0], [0.5, 0.0]]
    assert LA.ldl_factor_ex(t(np.zeros((2, 2)))).info.item() == 1
    x, info = LA.solve_ex(t(np.eye(2) * 2), t([2.0, 4.0]))
    assert x.tolist() == [1.0, 2.0] and info.item() == 0


def test_named_tuples() -> None:
    a = t(np.array([[2.0, 1.0], [1.0, 3.0]]))
    cases = {
        "linalg_eigh": (LA.eigh(a), ("eigenvalues", "eigenvectors")),
        "linalg_eig": (LA.eig(a), ("eigenvalues", "eigenvectors")),
        "linalg_svd": (LA.svd(a), ("U", "S", "Vh")),
        "linalg_qr": (LA.qr(a), ("Q", "R")),
        "linalg_slogdet": (LA.slogdet(a), ("sign", "logabsdet")),
        "linalg_lu": (LA.lu(a), ("P", "L", "U")),
        "linalg_lu_factor": (LA.lu_factor(a), ("LU", "pivots")),
        "linalg_lstsq": (LA.lstsq(a, a), ("solution", "residuals", "rank", "singular_values")),
        "linalg_ldl_factor": (LA.ldl_factor(a), ("LD", "pivots")),
        "svd": (tensorlib.svd(a), ("U", "S", "V")),
        "qr": (tensorlib.qr(a), ("Q", "R")),
        "slogdet": (a.slogdet(), ("sign", "logabsdet")),
        "triangular_solve": (tensorlib.triangular_solve(a, a), ("solution", "cloned_coefficient")),
        "geqrf": (a.geqrf(), ("a", "tau")),
        "lu_unpack": (tensorlib.lu_unpack(*LA.lu_factor(a)), ("P", "L", "U")),
    }
    for name, (result, fields) in cases.items():
        assert type(result).__name__ == name and result._fields == fields
        assert type(result).__module__ == "tensorlib.return_types"
        assert repr(result).startswith(f"tensorlib.return_types.{name}(\n{fields[0]}=tensor(")


def test_decompositions_reconstruct() -> None:
    rng = np.random.default_rng(0)
    a = t(rng.standard_normal((2, 4, 3)))
    U, S, Vh = LA.svd(a, full_matrices=False)
    np.testing.assert_allclose(((U * S.unsqueeze(-2)) @ Vh).numpy(), a.numpy(), atol=1e-12)
    Q, R = LA.qr(a)
    np.testing.assert_allclose((Q @ R).numpy(), a.numpy(), atol=1e-12)
    P, L, U = LA.lu(a)
    np.testing.assert_allclose((P @ L @ U).numpy(), a.numpy(), atol=1e-12)
    c = rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3))
    h = t(c @ c.conj().T + 3 * np.eye(3))
    w, V = LA.eigh(h)
    assert w.dtype == tensorlib.float64 and V.dtype == tensorlib.complex128
    np.testing.assert_allclose((V * w.unsqueeze(-2).to(V.dtype) @ V.mH).numpy(), h.numpy(), atol=1e-12)
    Lc = LA.cholesky(h)
    np.testing.assert_allclose((Lc @ Lc.mH).numpy(), h.numpy(), atol=1e-12)
    w, V = LA.eig(t(rng.standard_normal((3, 3))))
    assert w.dtype == tensorlib.complex128 and V.dtype == tensorlib.complex128
    assert LA.eigvals(tensorlib.eye(2)).dtype == tensorlib.complex64
    LD, piv = LA.ldl_factor(h, hermitian=True)
    b = t(rng.standard_normal((3, 2)) + 0j)
    np.testing.assert_allclose((h @ LA.ldl_solve(LD, piv, b, hermitian=True)).numpy(), b.numpy(), atol=1e-12)


def test_degenerate_gradients_are_nan_as_in_torch() -> None:
    eye = tensorlib.eye(3, dtype=tensorlib.float64, requires_grad=True)
    (g,) = tensorlib.autograd.grad(LA.eigh(eye * 1.0).eigenvectors.sum(), eye)
    assert np.isnan(g.numpy()).all()
    (g,) = tensorlib.autograd.grad(LA.eigh(eye * 1.0).eigenvalues.sum(), eye)
    assert g.tolist() == np.eye(3).tolist()  # eigenvalues alone stay differentiable
    (g,) = tensorlib.autograd.grad(LA.svd(eye * 1.0).U.sum(), eye)
    assert np.isnan(g.numpy()).all()
    zeros = tensorlib.zeros(3, 3, dtype=tensorlib.float64, requires_grad=True)
    sign, logabsdet = LA.slogdet(zeros)
    assert sign.item() == 0.0 and logabsdet.item() == float("-inf")


@pytest.mark.parametrize("fn,message", [
    (lambda c: LA.svd(c).U.sum().abs(), "svd_backward: The singular vectors in the complex case"),
    (lambda c: LA.eigh(c).eigenvectors.sum().abs(), "linalg_eigh_backward: The eigenvectors in the complex case"),
    (lambda c: LA.eig(c).eigenvectors.sum().abs(), "linalg_eig_backward: The eigenvectors in the complex case"),
])
def test_complex_gauge_checks(fn: Callable, message: str) -> None:
    rng = np.random.default_rng(1)
    c = t(rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3)), requires_grad=True)
    with pytest.raises(RuntimeError, match=message.replace("(", r"\(")):
        tensorlib.autograd.grad(fn(c), c)
    # gauge-invariant losses are fine
    (g,) = tensorlib.autograd.grad(LA.svd(c).U.abs().sum(), c)
    assert np.isfinite(g.numpy()).all()


def test_backward_errors() -> None:
    a = t(np.random.default_rng(2).standard_normal((4, 3)), requires_grad=True)
    with pytest.raises(RuntimeError, match="not computed when mode='r'"):
        LA.qr(a, mode="r").R.sum().backward()
    with pytest.raises(RuntimeError, match="not differentiable when mode='complete' and nrows > ncols"):
        LA.qr(a, mode="complete").Q.sum().backward()
    with pytest.raises(NotImplementedError, match="the derivative for 'geqrf' is not implemented."):
        tensorlib.geqrf(a).a.sum().backward()
    s = a[:3] @ a[:3].mT
    with pytest.raises(RuntimeError, match="derivative for aten::linalg_ldl_factor_ex is not implemented"):
        LA.ldl_factor(s).LD.sum().backward()
    assert LA.ldl_factor(s).LD.grad_fn.name() == "NotImplemented"


def test_grad_fn_names() -> None:
    a = t(np.random.default_rng(3).standard_normal((3, 3)) + 3 * np.eye(3), requires_grad=True)
    spd = a @ a.mT
    names = {
        "LinalgCholeskyExBackward0": LA.cholesky(spd), "LinalgEighBackward0": LA.eigvalsh(spd),
        "LinalgEigBackward0": LA.eigvals(a), "LinalgSvdBackward0": LA.svdvals(a), "LinalgQrBackward0": LA.qr(a).Q,
        "LinalgSlogdetBackward0": LA.slogdet(a).logabsdet, "LinalgPinvBackward0": LA.pinv(a),
        "LinalgLstsqBackward0": LA.lstsq(a, a).solution, "LinalgMatrixExpBackward0": LA.matrix_exp(a),
        "LinalgSolveTriangularBackward0": LA.solve_triangular(a, a, upper=True),
        "LinalgLuFactorExBackward0": LA.lu_factor(a).LU, "LinalgLuBackward0": LA.lu(a).L,
        "LinalgLuSolveBackward0": LA.lu_solve(*LA.lu_factor(a), a), "LinalgInvExBackward0": LA.inv(a),
        "LinalgSolveExBackward0": LA.solve(a, a), "LinalgHouseholderProductBackward0": LA.householder_product(a, a[0]),
        "CholeskyInverseBackward0": tensorlib.cholesky_inverse(a), "CholeskySolveBackward0": a.cholesky_solve(a),
        "TriangularSolveBackward0": a.triangular_solve(a).solution,
    }
    for name, result in names.items():
        assert result.grad_fn.name() == name


def test_deprecated_names_warn_once() -> None:
    a = t(np.eye(2) * 2)
    for name, call in [("cholesky", lambda: tensorlib.cholesky(a)), ("qr", lambda: a.qr()),
                       ("lu", lambda: a.lu()), ("triangular_solve", lambda: a.triangular_solve(a)),
                       ("lu_solve", lambda: a.lu_solve(*tensorlib.lu(a))),
                       ("chain_matmul", lambda: tensorlib.chain_matmul(a, a)),
                       ("frobenius_norm", lambda: tensorlib.frobenius_norm(a, (0, 1))),
                       ("nuclear_norm", lambda: tensorlib.nuclear_norm(a))]:
        _util.WARNED.discard(name)
        with pytest.warns(UserWarning, match="deprecated"):
            call()
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            if name != "lu_solve":  # lu_solve's call also goes through tensorlib.lu
                call()


def test_lowrank() -> None:
    tensorlib.manual_seed(0)
    rng = np.random.default_rng(4)
    low = rng.standard_normal((6, 2)) @ rng.standard_normal((2, 5))
    U, S, V = tensorlib.svd_lowrank(t(low), q=3)
    assert U.shape == (6, 3) and S.shape == (3,) and V.shape == (5, 3)
    np.testing.assert_allclose(((U * S) @ V.mT).numpy(), low, atol=1e-10)
    np.testing.assert_allclose(S.numpy()[:2], np.linalg.svd(low, compute_uv=False)[:2], rtol=1e-10)
    wide = t(low.T, requires_grad=True)
    U, S, V = tensorlib.svd_lowrank(wide, q=2, M=t(np.zeros((5, 6))))
    np.testing.assert_allclose(((U * S) @ V.mT).detach().numpy(), low.T, atol=1e-10)
    S.sum().backward()
    assert wide.grad is not None and wide.grad.shape == (5, 6)
    U, S, V = tensorlib.pca_lowrank(t(low), q=2)
    centred = low - low.mean(0)
    np.testing.assert_allclose(S.numpy(), np.linalg.svd(centred, compute_uv=False)[:2], rtol=1e-10)
    U, S, V = tensorlib.pca_lowrank(t(low), center=False)
    assert S.shape == (5,)


def test_lstsq_outputs_follow_the_driver() -> None:
    rng = np.random.default_rng(5)
    a, b = t(rng.standard_normal((2, 5, 3))), t(rng.standard_normal((2, 5, 2)))
    shapes = {d: [tuple(x.shape) for x in LA.lstsq(a, b, driver=d)] for d in ("gels", "gelsy", "gelsd", "gelss")}
    assert shapes["gels"] == [(2, 3, 2), (2, 2), (0,), (0,)]
    assert shapes["gelsy"] == [(2, 3, 2), (0,), (2,), (0,)]
    assert shapes["gelsd"] == shapes["gelss"] == [(2, 3, 2), (2, 2), (2,), (2, 3)]
    deficient = LA.lstsq(t(np.ones((5, 3))), t(np.ones((5, 2))), driver="gelsd")
    assert deficient.rank.item() == 1 and deficient.residuals.shape == (0,)
    np.testing.assert_allclose((t(np.ones((5, 3))) @ deficient.solution).numpy(), np.ones((5, 2)), atol=1e-12)
    with pytest.raises(LA.LinAlgError, match="does not have full rank"):
        LA.lstsq(t(np.ones((5, 3))), t(np.ones((5, 2))), driver="gels")


def test_matrix_rank_and_pinv_tolerances() -> None:
    a = t(np.diag([3.0, 1.0, 1e-3]))
    assert LA.matrix_rank(a).item() == 3
    assert LA.matrix_rank(a, atol=0.01).item() == 2
    assert LA.matrix_rank(a, rtol=0.5).item() == 1
    assert LA.matrix_rank(a, 0.01).item() == 2  # the older tol= form
    assert LA.matrix_rank(a, hermitian=True).dtype == tensorlib.int64
    np.testing.assert_allclose(LA.pinv(a, atol=0.01).numpy(), np.diag([1 / 3, 1.0, 0.0]))
    np.testing.assert_allclose(a.pinverse(rcond=0.5).numpy(), np.diag([1 / 3, 0.0, 0.0]))
    assert LA.cond(t(SINGULAR), 1).item() == float("inf")
    assert LA.cond(t(SINGULAR), "fro").item() == float("inf")


def test_multi_dot_orders_the_chain() -> None:
    rng = np.random.default_rng(6)
    ms = [rng.standard_normal(s) for s in [(10, 2), (2, 10), (10, 2), (2,)]]
    np.testing.assert_allclose(LA.multi_dot([t(m) for m in ms]).numpy(), np.linalg.multi_dot(ms), rtol=1e-12)
    assert linalg_functions._chain_order([10, 100, 5, 50])[0][2] == 1  # (A B) C is cheaper


def test_vander_and_vecdot() -> None:
    assert LA.vander(t([1, 2, 3]).long()).tolist() == [[1, 1, 1], [1, 2, 4], [1, 3, 9]]
    assert LA.vander(t([1, 2]).int()).dtype == tensorlib.int64
    x = t(np.array([1 + 1j, 2j]))
    assert LA.vecdot(x, x).item() == pytest.approx(6.0 + 0j)


# -- complex and float32 inputs against torch (the table's samples are real float64) ---------------------------


def _cplx(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


def _hpd(rng: np.random.Generator, n: int) -> np.ndarray:
    c = _cplx(rng, n, n)
    return c @ c.conj().T + n * np.eye(n)


def _tri(rng: np.random.Generator, n: int) -> np.ndarray:
    return np.triu(_cplx(rng, n, n)) + 3 * np.eye(n)


# name -> (function of the library and its inputs, inputs from a generator): results compared as given, so
# decompositions return quantities free of the phases they are defined up to
PARITY: dict[str, tuple[Callable, Callable]] = {
    "cholesky": (lambda L, a: L.linalg.cholesky(a), lambda g: [_hpd(g, 3)]),
    "cholesky-upper": (lambda L, a: L.linalg.cholesky(a, upper=True), lambda g: [_hpd(g, 3)]),
    "eigh": (lambda L, a: (lambda o: (o[0], (o[1] * o[1].conj()).real))(L.linalg.eigh(a)), lambda g: [_hpd(g, 3)]),
    "eigvalsh": (lambda L, a: L.linalg.eigvalsh(a), lambda g: [_hpd(g, 3)]),
    "eig": (lambda L, a: (lambda o: (o[0], (o[1] * o[1].conj()).real))(L.linalg.eig(a)), lambda g: [_cplx(g, 3, 3)]),
    "eigvals": (lambda L, a: L.linalg.eigvals(a), lambda g: [_cplx(g, 3, 3)]),
    "svd": (lambda L, a: (lambda o: (o[0] @ o[2], o[1]))(L.linalg.svd(a, full_matrices=False)),
            lambda g: [_cplx(g, 4, 3)]),
    "svd-wide": (lambda L, a: (lambda o: (o[0] @ o[2], o[1]))(L.linalg.svd(a, full_matrices=False)),
                 lambda g: [_cplx(g, 2, 3, 4)]),
    "svdvals": (lambda L, a: L.linalg.svdvals(a), lambda g: [_cplx(g, 3, 4)]),
    "qr": (lambda L, a: L.linalg.qr(a), lambda g: [_cplx(g, 4, 3)]),
    "qr-wide": (lambda L, a: L.linalg.qr(a), lambda g: [_cplx(g, 2, 4)]),
    "slogdet": (lambda L, a: L.linalg.slogdet(a), lambda g: [_cplx(g, 3, 3)]),
    "det": (lambda L, a: L.linalg.det(a), lambda g: [_cplx(g, 3, 3)]),
    "inv": (lambda L, a: L.linalg.inv(a), lambda g: [_cplx(g, 2, 3, 3)]),
    "solve": (lambda L, a, b: L.linalg.solve(a, b), lambda g: [_cplx(g, 3, 3), _cplx(g, 2, 3, 2)]),
    "solve-right": (lambda L, a, b: L.linalg.solve(a, b, left=False), lambda g: [_cplx(g, 3, 3), _cplx(g, 2, 3)]),
    "solve_triangular": (lambda L, a, b: L.linalg.solve_triangular(a, b, upper=True),
                         lambda g: [_tri(g, 3), _cplx(g, 3, 2)]),
    "lu_factor": (lambda L, a: L.linalg.lu_factor(a), lambda g: [_cplx(g, 3, 3)]),
    "lu": (lambda L, a: L.linalg.lu(a), lambda g: [_cplx(g, 3, 4)]),
    "lu_solve-adjoint": (lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b, adjoint=True),
                         lambda g: [_cplx(g, 3, 3), _cplx(g, 3, 2)]),
    "pinv": (lambda L, a: L.linalg.pinv(a), lambda g: [_cplx(g, 4, 3)]),
    "pinv-hermitian": (lambda L, a: L.linalg.pinv(a, hermitian=True), lambda g: [_hpd(g, 3)]),
    "lstsq": (lambda L, a, b: L.linalg.lstsq(a, b, driver="gelsd")[:2], lambda g: [_cplx(g, 5, 3), _cplx(g, 5, 2)]),
    "matrix_exp": (lambda L, a: L.linalg.matrix_exp(a), lambda g: [_cplx(g, 3, 3)]),
    "matrix_power": (lambda L, a: L.linalg.matrix_power(a, -2), lambda g: [_cplx(g, 3, 3) + 2 * np.eye(3)]),
    "householder_product": (lambda L, a, t: L.linalg.householder_product(a, t), lambda g: [_cplx(g, 4, 3),
                                                                                             _cplx(g, 2)]),
    "cholesky_solve": (lambda L, b, a: L.cholesky_solve(b, L.linalg.cholesky(a)), lambda g: [_cplx(g, 3, 2),
                                                                                              _hpd(g, 3)]),
    "cholesky_inverse": (lambda L, a: L.cholesky_inverse(L.linalg.cholesky(a)), lambda g: [_hpd(g, 3)]),
    "vecdot": (lambda L, x, y: L.linalg.vecdot(x, y), lambda g: [_cplx(g, 2, 3), _cplx(g, 3)]),
    "cond": (lambda L, a: L.linalg.cond(a), lambda g: [_cplx(g, 3, 3)]),
    "matrix_norm-nuc": (lambda L, a: L.linalg.matrix_norm(a, "nuc"), lambda g: [_cplx(g, 3, 3)]),
    "multi_dot": (lambda L, a, b, c: L.linalg.multi_dot([a, b, c]), lambda g: [_cplx(g, 3), _cplx(g, 3, 4),
                                                                               _cplx(g, 4, 2)]),
}


# the argument that must stay Hermitian positive-definite when made real
_SPD_ARGUMENT = {"cholesky": 0, "cholesky-upper": 0, "eigh": 0, "eigvalsh": 0, "pinv-hermitian": 0, "cholesky_solve": 1,
                 "cholesky_inverse": 0}


def _flat(out: Any) -> list:
    return list(out) if isinstance(out, tuple) else [out]


@pytest.mark.parametrize("name", sorted(PARITY))
@pytest.mark.parametrize("dtype", ["complex128", "float32"])
def test_complex_and_float32_match_torch(name: str, dtype: str) -> None:
    torch = pytest.importorskip("torch")
    fn, make = PARITY[name]
    arrays = make(np.random.default_rng(sorted(PARITY).index(name)))
    if dtype == "float32":  # the real parts, positive-definite where the op needs it
        spd = _SPD_ARGUMENT.get(name)
        arrays = [np.asarray(a.real @ a.real.T + 3 * np.eye(a.shape[-1]) if i == spd else a.real, np.float32)
                  for i, a in enumerate(arrays)]
    ours_in = [tensorlib.tensor(a, requires_grad=True) for a in arrays]
    theirs_in = [torch.tensor(a, requires_grad=True) for a in arrays]
    ours, theirs = _flat(fn(tensorlib, *ours_in)), _flat(fn(torch, *theirs_in))
    tol = dict(rtol=1e-4, atol=1e-4) if dtype == "float32" else dict(rtol=1e-7, atol=1e-9)
    weights = []
    for o, t_ in zip(ours, theirs, strict=True):
        assert o.dtype.name == str(t_.dtype).split(".")[1] and tuple(o.shape) == tuple(t_.shape)
        np.testing.assert_allclose(o.detach().numpy(), t_.detach().resolve_conj().numpy(), **tol)
        weights.append(np.random.default_rng(7).standard_normal(tuple(o.shape)))
    # gradients of sum(w * Re(out)), outputs that carry one
    ours_loss = sum((o.real if o.is_complex() else o).mul(tensorlib.tensor(w, dtype=o.real.dtype)).sum()
                    for o, w in zip(ours, weights) if o.requires_grad)
    theirs_loss = sum((t_.real if t_.is_complex() else t_).mul(torch.tensor(w, dtype=t_.real.dtype)).sum()
                      for t_, w in zip(theirs, weights) if t_.requires_grad)
    ours_grad = tensorlib.autograd.grad(ours_loss, ours_in)
    theirs_grad = torch.autograd.grad(theirs_loss, theirs_in)
    for g, h in zip(ours_grad, theirs_grad, strict=True):
        np.testing.assert_allclose(g.numpy(), h.resolve_conj().numpy(), **tol)


def test_complex_gradcheck() -> None:
    rng = np.random.default_rng(8)
    h = tensorlib.tensor(_hpd(rng, 3))
    a = tensorlib.tensor(_cplx(rng, 3, 3), requires_grad=True)
    b = tensorlib.tensor(_cplx(rng, 3, 2), requires_grad=True)
    assert tensorlib.autograd.gradcheck(lambda x: LA.cholesky(x @ x.mH + h), (a,))
    assert tensorlib.autograd.gradcheck(lambda x: LA.eigvalsh(x @ x.mH + h), (a,))
    assert tensorlib.autograd.gradcheck(lambda x: LA.qr(x), (a,))
    assert tensorlib.autograd.gradcheck(lambda x, y: LA.solve(x, y), (a, b))
    assert tensorlib.autograd.gradcheck(lambda x: LA.svdvals(x), (a,))
    assert tensorlib.autograd.gradgradcheck(lambda x: LA.slogdet(x).logabsdet, (a,))


EMPTY_OPS: dict[str, Callable] = {
    "cholesky": lambda L, a: L.linalg.cholesky(a), "eigh": lambda L, a: L.linalg.eigh(a),
    "eig": lambda L, a: L.linalg.eig(a), "svd": lambda L, a: L.linalg.svd(a), "qr": lambda L, a: L.linalg.qr(a),
    "slogdet": lambda L, a: L.linalg.slogdet(a), "inv": lambda L, a: L.linalg.inv(a),
    "lu_factor": lambda L, a: L.linalg.lu_factor(a), "lu": lambda L, a: L.linalg.lu(a), "pinv": lambda L, a: L.linalg.pinv(a),
    "matrix_rank": lambda L, a: L.linalg.matrix_rank(a), "matrix_exp": lambda L, a: L.linalg.matrix_exp(a),
    "solve": lambda L, a: L.linalg.solve(a, a), "cond": lambda L, a: L.linalg.cond(a),
    "ldl_factor": lambda L, a: L.linalg.ldl_factor(a), "lstsq": lambda L, a: L.linalg.lstsq(a, a),
}


@pytest.mark.parametrize("shape", [(0, 0), (2, 0, 0), (0, 3, 3), (3, 0), (0, 3)])
@pytest.mark.parametrize("name", sorted(EMPTY_OPS))
def test_empty_inputs_give_torchs_shapes(name: str, shape: tuple) -> None:
    torch = pytest.importorskip("torch")

    def shapes(lib: Any) -> Any:
        try:
            out = EMPTY_OPS[name](lib, lib.zeros(shape, dtype=lib.float64))
        except RuntimeError:
            return "error"
        return [tuple(o.shape) for o in (out if isinstance(out, tuple) else (out,))]

    assert shapes(tensorlib) == shapes(torch)


def test_lobpcg_generalized_problem() -> None:
    rng = np.random.default_rng(9)
    a, b = rng.standard_normal((2, 9, 9))
    A, B = a @ a.T, b @ b.T + 9 * np.eye(9)
    E, X = tensorlib.lobpcg(t(A), k=3, B=t(B))
    Xn = X.numpy()
    np.testing.assert_allclose(A @ Xn, B @ Xn * E.numpy(), atol=1e-9)
    np.testing.assert_allclose(Xn.T @ B @ Xn, np.eye(3), atol=1e-12)
    assert E.numpy().tolist() == sorted(E.numpy().tolist(), reverse=True)
    with pytest.raises(AssertionError, match="A must be square"):
        tensorlib.lobpcg(t(np.ones((4, 3))))
    batched, _ = tensorlib.lobpcg(t(np.stack([A, 2 * A])), k=1, largest=False)
    assert batched.shape == (2, 1) and batched[1].item() == pytest.approx(2 * batched[0].item())


def test_svd_of_infinite_matrices_is_nan_as_torchs() -> None:
    x = t(np.array([np.eye(2), [[1.0, np.inf], [0.0, 1.0]]]))
    U, S, Vh = LA.svd(x)
    assert S[0].tolist() == [1.0, 1.0] and np.isnan(S[1].numpy()).all() and np.isnan(U[1].numpy()).all()
    assert np.isnan(LA.svdvals(x)[1].numpy()).all()


def test_complex_lu_pivots_as_lapack_does():
    # getrf picks the pivot by |re| + |im|: 2+2j (4) beats 3 (3) although its modulus (2.83) is smaller
    a = tensorlib.tensor([[3.0 + 0j, 1.0], [2.0 + 2j, 1.0]], dtype=tensorlib.complex128)
    assert tensorlib.linalg.lu_factor(a).pivots.tolist() == [2, 2]
    P, L, U = tensorlib.linalg.lu(a)
    np.testing.assert_allclose((P @ L @ U).numpy(), a.numpy(), atol=1e-12)


def test_half_matrix_exp_is_computed_in_single_precision():
    a = np.array([[0.5, -1.0, 0.3], [0.2, 0.1, -0.4], [-0.9, 0.6, 0.2]])
    got = tensorlib.linalg.matrix_exp(tensorlib.tensor(a, dtype=tensorlib.float16))
    assert got.dtype == tensorlib.float16
    expected = tensorlib.linalg.matrix_exp(tensorlib.tensor(a, dtype=tensorlib.float64)).numpy()
    np.testing.assert_allclose(got.numpy().astype(np.float64), expected, rtol=2e-3, atol=2e-3)


def test_einsum_broadcasts_a_size_one_subscript_against_an_empty_one():
    a, b = tensorlib.ones(1, 3), tensorlib.ones(0, 3)
    assert tuple(tensorlib.einsum("ij,ij->ij", a, b).shape) == (0, 3)
    x1, w, x2 = tensorlib.ones(0, 3), tensorlib.ones(0, 3, 2), tensorlib.ones(0, 2)
    assert tuple(tensorlib.nn.functional.bilinear(x1, x2, w).shape) == (0, 0)


def test_index_copy_into_a_0_d_tensor_replaces_its_value():
    out = tensorlib.zeros(()).index_copy(0, tensorlib.tensor([0]), tensorlib.tensor(5.0))
    assert out.shape == () and out.item() == 5.0
