"""Matrix products with an operand of three or more dims, decomposed as torch decomposes them.

torch folds the batch of one operand into the rows of a single 2-D product where it can (``(B, n, k) @ (k, p)``
becomes one ``(B * n, k) @ (k, p)``: one BLAS call where NumPy would loop over the batch), and otherwise expands
both operands to their common batch and runs one batched product. Each step is recorded as torch records it, so
``grad_fn`` and its ``next_functions`` read as torch's. ``F.linear`` on a contiguous batch with a bias is one
layer on the rows, viewed back. The same decomposition without recording (no gradient needed) must give the same
values, bit for bit.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tensorlib
from tensorlib.autograd import gradcheck, gradgradcheck
from tensorlib.ops.linalg import _folds


def chain(fn: Any, depth: int = 0) -> str:
    """A node and (recursively) the nodes it feeds, leaves left out: ``A(B(C), D)``."""
    if fn is None:
        return "None"
    inner = [chain(n, depth + 1) for n, _ in fn.next_functions
             if n is not None and type(n).__name__ != "AccumulateGrad"] if depth < 6 else []
    return type(fn).__name__ + (f"({', '.join(inner)})" if inner else "")


# (shape of a, shape of b, which operands require grad) -> torch's graph (recorded from torch 2.13)
GRAPHS = {
    ((2, 3, 4), (4, 5), "ab"): "UnsafeViewBackward0(MmBackward0(ViewBackward0))",
    ((2, 3, 4), (4, 5), "b"): "UnsafeViewBackward0(MmBackward0)",
    ((2, 3, 4), (4,), "a"): "UnsafeViewBackward0(MvBackward0(ViewBackward0))",
    ((4,), (2, 4, 5), "a"): "UnsafeViewBackward0(MvBackward0)",
    ((4,), (2, 4, 5), "b"): "UnsafeViewBackward0(BmmBackward0(ViewBackward0(ExpandBackward0)))",
    ((4,), (2, 4, 5), "ab"):
        "UnsafeViewBackward0(MvBackward0(UnsafeViewBackward0(CloneBackward0(TransposeBackward0))))",
    ((3, 4), (2, 4, 5), "a"): "CloneBackward0(TransposeBackward0(UnsafeViewBackward0(MmBackward0(TBackward0))))",
    ((3, 4), (2, 4, 5), "b"): "UnsafeViewBackward0(BmmBackward0(ViewBackward0(ExpandBackward0)))",
    ((2, 3, 4), (2, 4, 5), "ab"):
        "UnsafeViewBackward0(BmmBackward0(ViewBackward0(ExpandBackward0), ViewBackward0(ExpandBackward0)))",
    ((2, 1, 3, 4), (5, 4, 2), "ab"): "UnsafeViewBackward0(BmmBackward0(UnsafeViewBackward0(CloneBackward0("
                                     "ExpandBackward0)), UnsafeViewBackward0(CloneBackward0(ExpandBackward0))))",
    ((2, 3, 4), (1, 4, 5), "ab"): "UnsafeViewBackward0(MmBackward0(ViewBackward0, SqueezeBackward1))",
    ((2, 3, 4), (1, 4, 5), "a"): "UnsafeViewBackward0(BmmBackward0(ViewBackward0(ExpandBackward0)))",
    ((1, 3, 4), (2, 4, 5), "a"):
        "CloneBackward0(TransposeBackward0(UnsafeViewBackward0(MmBackward0(TBackward0(SqueezeBackward1)))))",
    ((2, 2, 3, 4), (1, 4, 5), "b"): "UnsafeViewBackward0(BmmBackward0(ReshapeAliasBackward0(ExpandBackward0)))",
    ((3, 4), (2, 2, 4, 5), "a"): "CloneBackward0(TransposeBackward0(UnsafeViewBackward0(MmBackward0(TBackward0))))",
    # vectors: torch's dot and mv nodes; a vector times a matrix as a one-row matrix product
    ((4,), (4,), "ab"): "DotBackward0",
    ((3, 4), (4,), "a"): "MvBackward0",
    ((4,), (4, 5), "ab"): "SqueezeBackward4(MmBackward0(UnsqueezeBackward0))",
    ((4,), (4, 5), "b"): "SqueezeBackward4(MmBackward0)",
}

SHAPES = sorted({(sa, sb) for sa, sb, _ in GRAPHS} | {((0, 3, 4), (4, 5)), ((2, 3, 0), (0, 5)), ((4,), (3, 4, 1)),
                                                    ((2, 3, 4), (1, 1, 4, 5)), ((3, 2, 1, 4), (2, 4, 3))})


def _operands(lib: Any, sa: tuple, sb: tuple, grads: str, seed: int = 0) -> tuple[Any, Any]:
    rng = np.random.default_rng(seed)
    a = lib.tensor(rng.standard_normal(sa), requires_grad="a" in grads)
    b = lib.tensor(rng.standard_normal(sb), requires_grad="b" in grads)
    return a, b


@pytest.mark.parametrize("key", list(GRAPHS), ids=str)
def test_graph_is_torchs(key: tuple) -> None:
    sa, sb, grads = key
    a, b = _operands(tensorlib, sa, sb, grads)
    assert chain((a @ b).grad_fn) == GRAPHS[key]


@pytest.mark.parametrize("key", list(GRAPHS), ids=str)
def test_graph_table_matches_torch(key: tuple) -> None:
    torch = pytest.importorskip("torch")
    sa, sb, grads = key
    a, b = _operands(torch, sa, sb, grads)
    assert chain((a @ b).grad_fn) == GRAPHS[key]


@pytest.mark.parametrize("sa,sb", SHAPES, ids=str)
@pytest.mark.parametrize("grads", ["ab", "a", "b"])
def test_values_and_gradients_match_torch(sa: tuple, sb: tuple, grads: str) -> None:
    torch = pytest.importorskip("torch")
    got, want = {}, {}
    for lib, res in ((tensorlib, got), (torch, want)):
        a, b = _operands(lib, sa, sb, grads)
        r = a @ b
        (r * r).sum().backward()
        res["r"], res["shape"] = r.detach().numpy(), tuple(r.shape)
        res["ga"] = None if a.grad is None else a.grad.numpy()
        res["gb"] = None if b.grad is None else b.grad.numpy()
    assert got["shape"] == want["shape"]
    for k in ("r", "ga", "gb"):
        assert (got[k] is None) == (want[k] is None)
        if got[k] is not None:
            np.testing.assert_allclose(got[k], want[k], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("sa,sb", [s for s in SHAPES if 0 not in s[0] + s[1]], ids=str)
def test_gradcheck(sa: tuple, sb: tuple) -> None:
    for grads in ("ab", "a", "b"):
        a, b = _operands(tensorlib, sa, sb, grads, seed=1)
        assert gradcheck(lambda x, y: x @ y, (a, b))
        assert gradgradcheck(lambda x, y: x @ y, (a, b))


@pytest.mark.parametrize("sa,sb", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", [tensorlib.float32, tensorlib.float64])
def test_no_grad_path_gives_the_recorded_values(sa: tuple, sb: tuple, dtype: Any) -> None:
    """Without a gradient the product skips the intermediate tensors; it must take the same BLAS calls. (Where an
    operand's need for a gradient changes how torch decomposes the product, the products differ, as torch's do:
    their values agree to rounding.)"""
    a, b = _operands(tensorlib, sa, sb, "")
    a, b = a.to(dtype), b.to(dtype)
    plain = (a @ b).numpy()
    for grads in ("ab", "a", "b"):
        ag = a.detach().requires_grad_("a" in grads)
        bg = b.detach().requires_grad_("b" in grads)
        recorded = ag @ bg
        assert recorded.dtype == dtype
        squeezes = len(sa) == len(sb) == 3 and 1 in (sa[0], sb[0])
        if not squeezes and _folds(a.numpy(), b.numpy(), False, False) == _folds(a.numpy(), b.numpy(),
                                                                               "a" in grads, "b" in grads):
            np.testing.assert_array_equal(recorded.detach().numpy(), plain)
        else:
            np.testing.assert_allclose(recorded.detach().numpy(), plain, rtol=1e-5 if dtype == tensorlib.float32
                                       else 1e-13, atol=1e-6)
    with tensorlib.no_grad():
        np.testing.assert_array_equal((a @ b).numpy(), plain)


def test_non_contiguous_operands() -> None:
    rng = np.random.default_rng(2)
    base = tensorlib.tensor(rng.standard_normal((3, 2, 4)), requires_grad=True)
    w = tensorlib.tensor(rng.standard_normal((5, 4)), requires_grad=True)
    a = base.transpose(0, 1)  # (2, 3, 4), not foldable without a copy
    r = a @ w.T
    assert chain(r.grad_fn) == ("UnsafeViewBackward0(MmBackward0(UnsafeViewBackward0(CloneBackward0("
                                "TransposeBackward0)), PermuteBackward0))")
    np.testing.assert_allclose(r.detach().numpy(), a.detach().numpy() @ w.detach().numpy().T, rtol=1e-13)
    assert gradcheck(lambda x, y: x.transpose(0, 1) @ y.T, (base, w))
    with tensorlib.no_grad():  # no gradient needed: a view with a batch that does not fold is a batched product
        np.testing.assert_array_equal((a @ w.T).numpy(), r.detach().numpy())


def test_result_is_not_a_view() -> None:
    """torch's products end in an unsafe view: the result owns its autograd history, it is not a view."""
    a = tensorlib.randn(2, 3, 4, requires_grad=True)
    b = tensorlib.randn(4, 5, requires_grad=True)
    r = a @ b
    assert r._base is None
    r.mul_(2)  # in place on the result: allowed, and the gradient sees it
    r.sum().backward()
    np.testing.assert_allclose(b.grad.numpy(), 2 * a.detach().numpy().reshape(6, 4).sum(0)[:, None].repeat(5, 1),
                               rtol=1e-6)


@pytest.mark.parametrize("sa,sb,message", [
    ((2, 3, 4), (3, 4, 5), "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0"),
    ((2, 2, 3, 4), (3, 1, 4, 5), "The size of tensor a (2) must match the size of tensor b (3) at non-singleton "
                                 "dimension 0"),
    ((5, 2, 3, 4), (5, 3, 4, 5), "The size of tensor a (2) must match the size of tensor b (3) at non-singleton "
                                 "dimension 1"),
])
@pytest.mark.parametrize("grad", [False, True])
def test_batch_mismatch_error(sa: tuple, sb: tuple, message: str, grad: bool) -> None:
    a, b = tensorlib.randn(*sa, requires_grad=grad), tensorlib.randn(*sb)
    with pytest.raises(RuntimeError) as info:
        a @ b
    assert str(info.value) == message


@pytest.mark.parametrize("sa,sb,message", [
    ((2, 3, 4), (4, 5), "expected m1 and m2 to have the same dtype, but got: float != double"),
    ((3, 4), (2, 4, 5), "expected scalar type Float but found Double"),
    ((2, 3, 4), (2, 4, 5), "expected scalar type Float but found Double"),
    ((4,), (2, 4, 5), "expected scalar type Float but found Double"),
    ((2, 3, 4), (4,), "addmv input tensors must have the same dtype, but got Double, Float, and Double"),
])
@pytest.mark.parametrize("grad", [False, True])
def test_dtype_mismatch_errors(sa: tuple, sb: tuple, message: str, grad: bool) -> None:
    a = tensorlib.randn(*sa, requires_grad=grad)
    b = tensorlib.randn(*sb, dtype=tensorlib.float64)
    with pytest.raises(RuntimeError) as info:
        a @ b
    assert str(info.value) == message


def test_dtype_mismatch_errors_are_torchs() -> None:
    torch = pytest.importorskip("torch")
    for sa, sb in [((2, 3, 4), (4, 5)), ((3, 4), (2, 4, 5)), ((2, 3, 4), (2, 4, 5)), ((4,), (2, 4, 5)),
                   ((2, 3, 4), (4,))]:
        messages = []
        for lib in (torch, tensorlib):
            with pytest.raises(RuntimeError) as info:
                lib.randn(*sa) @ lib.randn(*sb, dtype=lib.float64)
            messages.append(str(info.value))
        assert messages[0] == messages[1]
    for lib in (torch, tensorlib):
        with pytest.raises(RuntimeError, match="expected scalar type Float but found Double"):
            lib.bmm(lib.randn(2, 3, 4), lib.randn(2, 4, 5, dtype=lib.float64))


def test_bmm_is_one_node() -> None:
    a = tensorlib.randn(2, 3, 4, dtype=tensorlib.float64, requires_grad=True)
    b = tensorlib.randn(2, 4, 5, dtype=tensorlib.float64, requires_grad=True)
    r = tensorlib.bmm(a, b)
    assert chain(r.grad_fn) == "BmmBackward0"
    assert gradcheck(tensorlib.bmm, (a, b)) and gradgradcheck(tensorlib.bmm, (a, b))
    c = tensorlib.randn(2, 3, 4, dtype=tensorlib.complex128, requires_grad=True)
    d = tensorlib.randn(2, 4, 5, dtype=tensorlib.complex128, requires_grad=True)
    assert gradcheck(tensorlib.bmm, (c, d))


# -- F.linear on a batch of rows --------------------------------------------------------------------------------


@pytest.mark.parametrize("bias,contiguous,graph", [
    (True, True, "ViewBackward0(AddmmBackward0(ViewBackward0))"),
    (True, False, "AddBackward0(UnsafeViewBackward0(MmBackward0(UnsafeViewBackward0(CloneBackward0("
                  "TransposeBackward0)), TBackward0)))"),
    (False, True, "UnsafeViewBackward0(MmBackward0(ViewBackward0, TBackward0))"),
])
def test_linear_on_a_batch(bias: bool, contiguous: bool, graph: str) -> None:
    rng = np.random.default_rng(3)
    x = tensorlib.tensor(rng.standard_normal((2, 3, 4)), requires_grad=True)
    w = tensorlib.tensor(rng.standard_normal((5, 4)), requires_grad=True)
    b = tensorlib.tensor(rng.standard_normal(5), requires_grad=True) if bias else None

    def layer(x: Any, w: Any, b: Any = None) -> Any:
        return tensorlib.nn.functional.linear(x if contiguous else x.transpose(0, 1), w, b)

    y = layer(x, w, b)
    assert chain(y.grad_fn).replace("TBackward0, ", "") == graph.replace("TBackward0, ", "")
    xs = x.detach().numpy() if contiguous else x.detach().numpy().transpose(1, 0, 2)
    want = xs @ w.detach().numpy().T + (b.detach().numpy() if bias else 0)
    np.testing.assert_allclose(y.detach().numpy(), want, rtol=1e-13)
    args = (x, w, b) if bias else (x, w)
    assert gradcheck(layer, args) and gradgradcheck(layer, args)


def test_linear_on_a_batch_matches_torch() -> None:
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(4)
    data = [rng.standard_normal(s) for s in ((2, 3, 4), (5, 4), (5,))]
    for bias in (True, False):
        for contiguous in (True, False):
            res = []
            for lib in (torch, tensorlib):
                x, w, b = (lib.tensor(d, requires_grad=True) for d in data)
                y = lib.nn.functional.linear(x if contiguous else x.transpose(0, 1), w, b if bias else None)
                (y * y).sum().backward()
                res.append((type(y.grad_fn).__name__, y._base is not None, y.detach().numpy(), x.grad.numpy(),
                            w.grad.numpy()))
            assert res[0][:2] == res[1][:2]
            for u, v in zip(res[0][2:], res[1][2:]):
                np.testing.assert_allclose(v, u, rtol=1e-12, atol=1e-12)


def test_linear_batch_shape_error() -> None:
    x, w = tensorlib.randn(2, 3, 4), tensorlib.randn(5, 6)
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(6x4 and 6x5\)"):
        tensorlib.nn.functional.linear(x, w, tensorlib.randn(5))


# -- reshape's nodes, which the decomposition shows ------------------------------------------------------------


def test_reshape_nodes_are_torchs() -> None:
    x = tensorlib.randn(2, 3, 4, requires_grad=True)
    assert x.reshape(6, 4).grad_fn.name() == "ViewBackward0"  # contiguous: a view
    assert x.transpose(0, 1).reshape(3, 2, 4).grad_fn.name() == "ReshapeAliasBackward0"  # a view of a strided tensor
    copied = x.transpose(0, 1).reshape(-1)  # no view possible: a clone, then an unsafe view of it
    assert chain(copied.grad_fn) == "UnsafeViewBackward0(CloneBackward0(TransposeBackward0))"
    assert gradcheck(lambda t: t.transpose(0, 1).reshape(-1), (x.detach().double().requires_grad_(),))


def test_reshape_nodes_match_torch() -> None:
    torch = pytest.importorskip("torch")
    for lib in (torch, tensorlib):
        x = lib.randn(2, 3, 4, requires_grad=True)
        names = [chain(t.grad_fn) for t in (x.reshape(6, 4), x.transpose(0, 1).reshape(3, 2, 4),
                                             x.transpose(0, 1).reshape(-1), x[:, :2].reshape(2, 2, 4),
                                             x.expand(5, 2, 3, 4).reshape(10, 3, 4))]
        if lib is torch:
            want = names
    assert names == want
