"""grad_fn names: what a PyTorch user sees in reprs (``grad_fn=<MeanBackward1>``) and in ``grad_fn.name()``."""

from __future__ import annotations

import pytest

import tensorlib
from tensorlib.autograd import gradgradcheck

# expression on ``x`` (3x4, requires grad) and ``L`` (the library) -> torch's node name
CASES = {
    "L.addcmul(x, x * 2, x[0], value=0.5)": "AddcmulBackward0", "L.addcdiv(x, x * 2, x[0] + 9, value=-2)": "AddcdivBackward0",
    "(x * 1).addcmul_(x, x)": "AddcmulBackward0",
    "L.rot90(x, 1)": "Rot90Backward0", "L.rot90(x, 2)": "Rot90Backward0", "L.rot90(x, 4)": "Rot90Backward0",
    "L.block_diag(x, x[:2])": "BlockDiagBackward0", "L.linalg.cross(x[:, :3], x[:, 1:])": "LinalgCrossBackward0",
    "L.cross(x[:, :3], x[:, 1:], dim=1)": "LinalgCrossBackward0",
    "L.index_add(x, 0, L.tensor([1, 2]), x[:2] * 2)": "IndexAddBackward0",
    "(x * 1).index_add_(0, L.tensor([1, 2]), x[:2], alpha=2.0)": "IndexAddBackward0",
    "L.index_copy(x, 0, L.tensor([2, 0]), x[:2] * 2)": "IndexCopyBackward0", "L.masked_select(x, x > 0)": "MaskedSelectBackward0",
    "L.index_fill(x, 1, L.tensor([0, 3]), 2.0)": "IndexFillBackward0", "L.take(x, L.tensor([0, 5, 11]))": "TakeBackward0",
    "x.masked_scatter(x > 0, x * 2)": "MaskedScatterBackward0",
    "L.nan_to_num(x)": "NanToNumBackward0", "L.round(x, decimals=2)": "RoundBackward1", "L.round(x)": "RoundBackward0",
    "2.0 ** x": "PowBackward2", "L.pow(2.0, x)": "PowBackward2", "L.det(x[:, :3])": "LinalgDetBackward0",
    "L.linalg.det(x[:, :3])": "LinalgDetBackward0", "L.nn.functional.pad(x, (1, 2))": "ConstantPadNdBackward0",
    "L.nn.functional.pad(x, (1, 2), mode='reflect')": "ReflectionPad1DBackward0",
    "L.nn.functional.pad(x[None], (1, 2, 1, 0), mode='reflect')": "ReflectionPad2DBackward0",
    "L.nn.functional.pad(x[None], (1, 2, 0, 0), mode='replicate')": "ReplicationPad2DBackward0",
    "L.nn.functional.pad(x[None, None], (1, 1, 1, 1, 0, 0), mode='replicate')": "ReplicationPad3DBackward0",
    "x.sum()": "SumBackward0", "x.sum(0)": "SumBackward1", "x.mean()": "MeanBackward0", "x.mean(0)": "MeanBackward1",
    "x.prod()": "ProdBackward0", "x.prod(1)": "ProdBackward1", "x.std()": "StdBackward0", "x.var(0)": "VarBackward0",
    "L.var_mean(x)[0]": "VarMeanBackward0", "L.std_mean(x)[1]": "StdMeanBackward0", "x.norm()": "LinalgVectorNormBackward0",
    "L.dist(x, x * 2)": "DistBackward0", "x.max()": "MaxBackward1", "x.min()": "MinBackward1",
    "x.max(0).values": "MaxBackward0", "x.min(0).values": "MinBackward0", "x.median()": "MedianBackward0",
    "x.nanmedian()": "NanmedianBackward0", "L.amin(x, 0)": "AminBackward0", "L.amax(x, 0)": "AmaxBackward0",
    "L.minimum(x, x)": "MinimumBackward0", "L.fmax(x, x)": "FmaxBackward0", "x.cummin(0).values": "CumminBackward0",
    "x.log1p()": "Log1PBackward0", "x.exp2()": "Exp2Backward0", "x.expm1()": "Expm1Backward0",
    "1 - x": "RsubBackward1", "L.rsub(x, x)": "RsubBackward0", "x - 1": "SubBackward0",
    "L.stack([x, x])": "StackBackward0", "L.cat([x, x])": "CatBackward0",
    "x[0]": "SelectBackward0", "x[:, 0]": "SelectBackward0", "x[0, 1:]": "SliceBackward0", "x[None]": "UnsqueezeBackward0",
    "x[0, None]": "UnsqueezeBackward0", "x[:]": "SliceBackward0", "x[...]": "AliasBackward0",
    "x[[0, 1]]": "IndexBackward0", "x @ x.t()": "MmBackward0", "x.exp()": "ExpBackward0",
    "L.special.entr(x)": "SpecialEntrBackward0", "L.special.xlog1py(x, x)": "SpecialXlog1PyBackward0",
    "x.sort(1).values": "SortBackward0", "x.topk(2).values": "TopkBackward0", "x.kthvalue(2).values": "KthvalueBackward0",
    "x.median(1).values": "MedianBackward1", "x.mode(1).values": "ModeBackward0", "L.logsumexp(x, 1)": "LogsumexpBackward0",
    "L.addmm(x, x, x.t().matmul(x))": "AddmmBackward0",
    "L.bmm(x[None], x.t()[None])": "BmmBackward0", "L.mv(x, x[0])": "MvBackward0", "L.dot(x[0], x[1])": "DotBackward0",
    "x.split(2, 1)[0]": "SplitBackward0", "x.split([1, 3], 1)[1]": "SplitWithSizesBackward0",
    "x.chunk(2, 1)[0]": "SplitBackward0", "x.unbind(0)[1]": "UnbindBackward0", "x.tensor_split(2, 1)[0]": "SliceBackward0",
    "x.tril()": "TrilBackward0", "x.triu(1)": "TriuBackward0", "x[:, :3].trace()": "TraceBackward0",
    "L.nansum(x)": "NansumBackward0", "x.roll(1)": "RollBackward0", "L.deg2rad(x)": "Deg2RadBackward0",
}


def _name(lib, expr: str) -> str:
    x = lib.rand(3, 4, dtype=lib.float64) + 0.5
    x.requires_grad_()
    return eval(expr, {"x": x, "L": lib}).grad_fn.name()


@pytest.mark.parametrize("expr", list(CASES))
def test_node_names(expr: str) -> None:
    assert _name(tensorlib, expr) == CASES[expr]


@pytest.mark.parametrize("expr", list(CASES))
def test_node_names_match_torch(expr: str) -> None:
    torch = pytest.importorskip("torch")
    assert _name(torch, expr) == CASES[expr]


def test_renamed_nodes_keep_their_backward() -> None:
    x = tensorlib.tensor([[1.0, 2.0], [3.0, 5.0]], dtype=tensorlib.float64, requires_grad=True)
    assert tensorlib.autograd.gradcheck(lambda t: tensorlib.std(t, 0), (x,))
    assert tensorlib.autograd.gradgradcheck(lambda t: tensorlib.stack([t, t * 2]), (x,))
    assert tensorlib.autograd.gradcheck(lambda t: (1 - t)[:, 0], (x,))
    y = x.min(0).values
    assert "MinBackward0" in repr(y) and isinstance(y.grad_fn, type(x.max(0).values.grad_fn))


@pytest.mark.parametrize("reduce", [lambda t: t.mean(), lambda t: t.mean(1), lambda t: t.mean((0, 1), keepdim=True)])
def test_mean_gradient_under_create_graph_records_torchs_division_by_a_number(reduce):
    """torch's mean backward expands the gradient and divides by the count (DivBackward1, one edge); recorded, ours
    does the same, and its second derivatives are right."""
    torch = pytest.importorskip("torch")
    names = []
    for L in (tensorlib, torch):
        x = L.randn(3, 4, dtype=L.float64, requires_grad=True)
        y = reduce(x)
        (g,) = L.autograd.grad(y, x, L.ones_like(y, requires_grad=True), create_graph=True)
        names.append((g.grad_fn.name(), [n.name() for n, _ in g.grad_fn.next_functions], g.dtype == x.dtype))
    assert names[0] == names[1] == ("DivBackward1", ["ExpandBackward0"], True)
    x = tensorlib.randn(3, 4, dtype=tensorlib.float64, requires_grad=True)
    assert gradgradcheck(lambda t: reduce(t) ** 2 * t.sum(), (x,))


def test_renamed_and_reshaped_nodes_keep_torchs_edges_and_gradients() -> None:
    x = tensorlib.tensor([[0.5, 2.0, -1.0], [3.0, 0.25, 1.5]], dtype=tensorlib.float64, requires_grad=True)
    y = 2.0 ** x
    assert [type(n).__name__ for n, _ in y.grad_fn.next_functions] == ["AccumulateGrad"]  # one edge: the exponent
    assert tensorlib.autograd.gradcheck(lambda t: 2.0 ** t, (x,))
    assert tensorlib.autograd.gradgradcheck(lambda t: 2.0 ** t, (x,))
    assert tensorlib.autograd.gradgradcheck(lambda t: tensorlib.nn.functional.pad(t[None], (1, 1, 1, 0), mode="reflect"), (x,))
    assert tensorlib.autograd.gradcheck(lambda t: tensorlib.nan_to_num(t * 1e308 * 10), (x,))


@pytest.mark.parametrize("name", ["addcmul", "addcdiv"])
def test_addcmul_and_addcdiv_are_one_node_with_torchs_gradients(name) -> None:
    """One node with an edge to each of the three tensors (broadcast against each other), as torch; first and second
    derivatives match, complex operands and a complex value included."""
    torch = pytest.importorskip("torch")
    import numpy as np

    rng = np.random.default_rng(3)
    for shapes, value, complex_ in ((((3, 4), (4,), (3, 1)), 0.5, False), (((4,), (3, 4), (3, 4)), -2.0, False),
                                    (((3, 4), (3, 4), (3, 4)), 0.5 - 2j, True)):
        arrays = [rng.standard_normal(s) + (3 if i == 2 else 0) + (1j * rng.standard_normal(s) if complex_ else 0)
                  for i, s in enumerate(shapes)]
        results = []
        for L in (tensorlib, torch):
            ts = [L.tensor(a, requires_grad=True) for a in arrays]
            y = getattr(L, name)(*ts, value=value)
            g = L.tensor(np.linspace(-1, 1, y.numel()).reshape(tuple(y.shape)) + 0j if complex_ else
                         np.linspace(-1, 1, y.numel()).reshape(tuple(y.shape)))
            grads = L.autograd.grad(y, ts, g, create_graph=not complex_)
            row = [y.grad_fn.name(), y.detach().numpy()] + [t.detach().numpy() for t in grads]
            if not complex_:  # (the input's own gradient does not depend on the inputs: allow_unused)
                seconds = L.autograd.grad(sum((t ** 2).sum() for t in grads), ts, allow_unused=True)
                row += [np.zeros(1) if t is None else t.numpy() for t in seconds]
            results.append(row)
        assert results[0][0] == results[1][0]
        for ours, theirs in zip(results[0][1:], results[1][1:]):
            np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-13)
