"""Losses torch computes in one kernel are one node each here too (``MseLossBackward0``, ``HuberLossBackward0``, ...):
the same node and edges, values, dtypes, first and second derivatives as torch, its errors, and the weighted forms
torch writes in Python (a weighted mean of mse_loss and l1_loss divides by the total weight)."""

from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np
import pytest

import tensorlib
import tensorlib.nn.functional as F
from tensorlib.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(11)
X = RNG.standard_normal((4, 6)) * 2
T = RNG.standard_normal((4, 6))
P = RNG.uniform(0.02, 0.98, (4, 6))  # probabilities
Q = RNG.uniform(0.0, 1.0, (4, 6))
SIGNS = np.where(RNG.random((4, 6)) > 0.5, 1.0, -1.0)
CLASSES = np.array([0, 5, 2, 2])
LABELS = np.array([[0, 3, -1, 1, 1, 1], [5, -1, 0, 0, 0, 0], [1, 2, 3, 4, 5, 0], [-1, 2, 2, 2, 2, 2]])
W6 = RNG.uniform(0.5, 2.0, 6)

# name -> (call(F, input, target), node, input array, target array, whether the target is differentiable)
PAIR_CASES: dict[str, tuple[Callable, str, np.ndarray, np.ndarray, bool]] = {
    "mse": (lambda F_, x, t, r: F_.mse_loss(x, t, reduction=r), "MseLossBackward0", X, T, True),
    "huber": (lambda F_, x, t, r: F_.huber_loss(x, t, reduction=r, delta=0.8), "HuberLossBackward0", X, T, True),
    "smooth_l1": (lambda F_, x, t, r: F_.smooth_l1_loss(x, t, reduction=r, beta=0.6), "SmoothL1LossBackward0", X, T,
                  True),
    "bce": (lambda F_, x, t, r: F_.binary_cross_entropy(x, t, reduction=r), "BinaryCrossEntropyBackward0", P, Q, True),
    "bce-weight": (lambda F_, x, t, r: F_.binary_cross_entropy(x, t, reduction=r, weight=_lib(F_).tensor(W6)),
                   "BinaryCrossEntropyBackward0", P, Q, True),
    "soft_margin": (lambda F_, x, t, r: F_.soft_margin_loss(x, t, reduction=r), "SoftMarginLossBackward0", X, SIGNS,
                    False),
    "multi_margin": (lambda F_, x, t, r: F_.multi_margin_loss(x, t, reduction=r), "MultiMarginLossBackward0", X,
                     CLASSES, False),
    "multi_margin-p2-weight": (lambda F_, x, t, r: F_.multi_margin_loss(x, t, p=2, margin=1.5, reduction=r,
                                                                       weight=_lib(F_).tensor(W6)),
                               "MultiMarginLossBackward0", X, CLASSES, False),
    "multilabel_margin": (lambda F_, x, t, r: F_.multilabel_margin_loss(x, t, reduction=r),
                          "MultilabelMarginLossBackward0", X * 0.3, LABELS, False),
}
REDUCTIONS = ("none", "mean", "sum")


def _lib(F_: Any) -> Any:
    return tensorlib if F_ is F else pytest.importorskip("torch")


def _run(lib: Any, F_: Any, case: str, reduction: str, target_grad: bool) -> tuple:
    fn, _, xa, ta, _ = PAIR_CASES[case]
    x = lib.tensor(xa, requires_grad=True)
    t = lib.tensor(ta, requires_grad=target_grad)
    y = fn(F_, x, t, reduction)
    edges = [None if n is None else type(n).__name__ for n, _ in y.grad_fn.next_functions]
    inputs = (x, t) if target_grad else (x,)
    grads = lib.autograd.grad(y, inputs, lib.ones_like(y) if reduction == "none" else None)
    return y.grad_fn.name(), edges, y.detach().numpy(), [g.numpy() for g in grads]


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("case", list(PAIR_CASES))
def test_one_node_with_torchs_edges_values_and_gradients(case, reduction) -> None:
    torch = pytest.importorskip("torch")
    target_grad = PAIR_CASES[case][4]
    ours = _run(tensorlib, F, case, reduction, target_grad)
    theirs = _run(torch, torch.nn.functional, case, reduction, target_grad)
    assert ours[0] == theirs[0] == PAIR_CASES[case][1]
    assert ours[1] == theirs[1]
    np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-12, atol=1e-14)
    for g, tg in zip(ours[3], theirs[3]):
        np.testing.assert_allclose(g, tg, rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("case", list(PAIR_CASES))
def test_gradients_of_every_order_pass_gradcheck(case) -> None:
    fn, _, xa, ta, target_grad = PAIR_CASES[case]
    for reduction in REDUCTIONS:
        t = tensorlib.tensor(ta, requires_grad=target_grad)
        x = tensorlib.tensor(xa, requires_grad=True)
        if target_grad:
            assert gradcheck(lambda a, b: fn(F, a, b, reduction), (x, t))
            assert gradgradcheck(lambda a, b: fn(F, a, b, reduction), (x, t))
        else:
            assert gradcheck(lambda a: fn(F, a, t, reduction), (x,))
            assert gradgradcheck(lambda a: fn(F, a, t, reduction), (x,))


@pytest.mark.parametrize("case", ["mse", "huber", "smooth_l1", "bce", "bce-weight"])
def test_second_derivatives_match_torch(case) -> None:
    torch = pytest.importorskip("torch")
    fn, _, xa, ta, _ = PAIR_CASES[case]
    seconds = []
    for lib, F_ in ((tensorlib, F), (torch, torch.nn.functional)):
        x, t = lib.tensor(xa, requires_grad=True), lib.tensor(ta, requires_grad=True)
        gx, gt = lib.autograd.grad(fn(F_, x, t, "sum") * 3, (x, t), create_graph=True)
        seconds.append([g.numpy() for g in lib.autograd.grad((gx * gx).sum() + (gt * x).sum(), (x, t))])
    for ours, theirs in zip(*seconds):
        np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("dtypes", [("float32", "float32"), ("float32", "float64"), ("float64", "float32"),
                                    ("int64", "float32"), ("float32", "int64"), ("float16", "float16")])
@pytest.mark.parametrize("name", ["mse_loss", "huber_loss", "smooth_l1_loss", "soft_margin_loss"])
def test_result_dtypes_and_gradient_dtypes_follow_torch(name, dtypes) -> None:
    torch = pytest.importorskip("torch")
    results = []
    for lib in (tensorlib, torch):
        x = lib.tensor(X, dtype=getattr(lib, dtypes[0]))
        t = lib.tensor(SIGNS if name == "soft_margin_loss" else T, dtype=getattr(lib, dtypes[1]))
        if x.dtype.is_floating_point:
            x.requires_grad_()
        try:
            y = getattr(lib.nn.functional, name)(x, t)
        except Exception as e:  # noqa: BLE001 - the same type and message in both
            results.append((type(e), str(e).replace("torch", "tensorlib")))
            continue
        try:
            g = lib.autograd.grad(y, x)[0] if x.requires_grad else None
        except RuntimeError:  # torch's huber_loss cannot differentiate operands of two dtypes ("Found dtype ...")
            assert lib is torch and name == "huber_loss" and dtypes[0] != dtypes[1]
            g = None
        results.append((repr(y.dtype).split(".")[-1], y.item(), None if g is None else (repr(g.dtype), g.numpy())))
    ours, theirs = results
    if isinstance(theirs[0], type):
        assert ours == theirs
        return
    assert ours[0] == theirs[0]
    tol = 2e-3 if "float16" in dtypes else 1e-6
    assert ours[1] == pytest.approx(theirs[1], rel=tol)
    if ours[2] is not None and theirs[2] is None:  # ours differentiates it: the gradient is the input's dtype
        assert ours[2][0].endswith(dtypes[0])
    elif theirs[2] is not None:
        assert ours[2][0].split(".")[-1] == theirs[2][0].split(".")[-1]
        np.testing.assert_allclose(ours[2][1], theirs[2][1], rtol=tol, atol=1e-6)


def test_the_expanded_operand_keeps_its_own_edge() -> None:
    """Operands of different shapes are broadcast first, as torch's Python does: the one already of the loss's shape
    is not expanded (its edge goes to its own node), the other's edge goes through the expansion."""
    x = tensorlib.tensor(X, requires_grad=True)
    row = tensorlib.tensor(T[0], requires_grad=True)
    with pytest.warns(UserWarning, match="different to the input size"):
        y = F.mse_loss(x, row)
    assert [type(n).__name__ for n, _ in y.grad_fn.next_functions] == ["AccumulateGrad", "ExpandBackward0"]
    gx, gr = tensorlib.autograd.grad(y, (x, row))
    np.testing.assert_allclose(gr.numpy(), -2 * (X - T[0]).sum(0) / X.size)
    a, b = tensorlib.broadcast_tensors(x, row)
    assert a is x and b.grad_fn.name() == "ExpandBackward0"


def test_weighted_means_divide_by_the_total_weight_as_torch() -> None:
    torch = pytest.importorskip("torch")
    w = RNG.uniform(0.1, 3.0, X.shape)
    for name in ("mse_loss", "l1_loss", "huber_loss"):
        for reduction in REDUCTIONS:
            out = []
            for lib in (tensorlib, torch):
                x = lib.tensor(X, requires_grad=True)
                wt = lib.tensor(w, requires_grad=True)
                y = getattr(lib.nn.functional, name)(x, lib.tensor(T), reduction=reduction, weight=wt)
                gx, gw = lib.autograd.grad(y.sum(), (x, wt))
                out.append((y.detach().numpy(), gx.numpy(), gw.numpy(), type(y.grad_fn).__name__))
            for a, b in zip(out[0][:3], out[1][:3]):
                np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
            assert out[0][3] == out[1][3]
    expected = (w * (X - T) ** 2).sum() / w.sum()
    assert F.mse_loss(tensorlib.tensor(X), tensorlib.tensor(T), weight=tensorlib.tensor(w)).item() == pytest.approx(
        expected, rel=1e-12)


def test_values_at_the_edges_of_the_domain() -> None:
    torch = pytest.importorskip("torch")
    p = np.array([0.0, 1.0, 1e-300, 1 - 1e-16, 0.5, 1e-8])
    q = np.array([1.0, 0.0, 0.5, 1.0, 0.0, 0.3])
    d = np.array([np.nan, np.inf, -np.inf, 0.0, 0.8, -0.8, 0.6, 3.0])
    calls = [
        (lambda F_, L: F_.binary_cross_entropy(L.tensor(p), L.tensor(q), reduction="none"), 1e-12),
        (lambda F_, L: F_.huber_loss(L.tensor(d), L.tensor(np.zeros(8)), reduction="none", delta=0.8), 0),
        (lambda F_, L: F_.smooth_l1_loss(L.tensor(d), L.tensor(np.zeros(8)), reduction="none", beta=0.6), 0),
        (lambda F_, L: F_.mse_loss(L.tensor(d), L.tensor(np.ones(8)), reduction="none"), 0),
        (lambda F_, L: F_.soft_margin_loss(L.tensor(d), L.tensor(np.ones(8)), reduction="none"), 1e-15),
    ]
    for call, rtol in calls:
        ours = call(F, tensorlib).numpy()
        theirs = call(torch.nn.functional, torch).numpy()
        np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=0)  # NaN and infinities where torch has them
    # their gradients at the kinks and at NaN: torch's one-sided choices
    for name, param in (("huber_loss", {"delta": 0.8}), ("smooth_l1_loss", {"beta": 0.6})):
        grads = []
        for L in (tensorlib, torch):
            x = L.tensor(d, requires_grad=True)
            (g,) = L.autograd.grad(getattr(L.nn.functional, name)(x, L.tensor(np.zeros(8)), **param), x)
            grads.append(g.numpy())
        np.testing.assert_array_equal(grads[0], grads[1])


def test_soft_margin_gradient_stays_finite_where_torchs_overflows() -> None:
    """torch computes -t z / (1 + z) with z = exp(-t x), which is inf / inf = nan for -t x above ~710; ours is the
    same function written as -t sigmoid(-t x), exact there (the loss itself is inf in both, as log1p(exp(.))."""
    x = tensorlib.tensor([-1000.0, 1000.0, 0.0], requires_grad=True)
    (g,) = tensorlib.autograd.grad(F.soft_margin_loss(x, tensorlib.tensor([1.0, 1.0, -1.0]), reduction="sum"), x)
    np.testing.assert_array_equal(g.numpy(), [-1.0, -0.0, 0.5])


# -- errors ---------------------------------------------------------------------------------------------------------

f64 = np.float64
ERROR_CASES: dict[str, Callable] = {
    "mse int": lambda F_, L: F_.mse_loss(L.ones(3, dtype=L.int64), L.ones(3, dtype=L.int64)),
    "mse bool": lambda F_, L: F_.mse_loss(L.ones(3, dtype=L.bool), L.ones(3, dtype=L.bool)),
    "mse complex": lambda F_, L: F_.mse_loss(L.ones(3, dtype=L.complex64), L.ones(3, dtype=L.complex64)),
    "mse broadcast": lambda F_, L: F_.mse_loss(L.ones(4, 5), L.ones(3)),
    "mse reduction": lambda F_, L: F_.mse_loss(L.ones(3), L.ones(3), reduction="bad"),
    "mse weighted reduction": lambda F_, L: F_.mse_loss(L.ones(3), L.ones(3), reduction="bad", weight=L.ones(3)),
    "mse weight size": lambda F_, L: F_.mse_loss(L.ones(4, 5), L.ones(4, 5), weight=L.ones(5)),
    "l1 weight size": lambda F_, L: F_.l1_loss(L.ones(4, 5), L.ones(4, 5), weight=L.ones(4, 1)),
    "huber int": lambda F_, L: F_.huber_loss(L.ones(3, dtype=L.int64), L.ones(3, dtype=L.int64)),
    "huber int input": lambda F_, L: F_.huber_loss(L.ones(3, dtype=L.int64), L.ones(3)),
    "huber complex": lambda F_, L: F_.huber_loss(L.ones(3, dtype=L.complex64), L.ones(3, dtype=L.complex64)),
    "huber delta": lambda F_, L: F_.huber_loss(L.ones(3), L.ones(3), delta=0.0),
    "huber weight size": lambda F_, L: F_.huber_loss(L.ones(4, 5), L.ones(4, 5), weight=L.ones(5)),
    "smooth_l1 int": lambda F_, L: F_.smooth_l1_loss(L.ones(3, dtype=L.int64), L.ones(3, dtype=L.int64)),
    "smooth_l1 beta": lambda F_, L: F_.smooth_l1_loss(L.ones(3), L.ones(3), beta=-1.0),
    "bce int": lambda F_, L: F_.binary_cross_entropy(L.ones(3, dtype=L.int64), L.ones(3, dtype=L.int64)),
    "bce dtypes": lambda F_, L: F_.binary_cross_entropy(L.full((3,), 0.5, dtype=L.float64), L.ones(3)),
    "bce int input": lambda F_, L: F_.binary_cross_entropy(L.ones(3, dtype=L.int64), L.ones(3, dtype=L.float64)),
    "bce input range": lambda F_, L: F_.binary_cross_entropy(L.tensor([0.5, 1.5]), L.tensor([0.5, 0.5])),
    "bce nan input": lambda F_, L: F_.binary_cross_entropy(L.tensor([0.5, float("nan")]), L.tensor([0.5, 0.5])),
    "bce target range": lambda F_, L: F_.binary_cross_entropy(L.tensor([0.5, 0.5]), L.tensor([0.5, -0.5])),
    "bce target first": lambda F_, L: F_.binary_cross_entropy(L.tensor([0.5, 2.0]), L.tensor([3.0, 0.5])),
    "bce weight": lambda F_, L: F_.binary_cross_entropy(L.full((4, 5), 0.5), L.ones(4, 5), weight=L.ones(2, 5)),
    "bce weight larger": lambda F_, L: F_.binary_cross_entropy(L.full((4, 5), 0.5), L.ones(4, 5),
                                                               weight=L.ones(3, 4, 5)),
    "bce weight grad": lambda F_, L: F_.binary_cross_entropy(L.full((3,), 0.5, requires_grad=True), L.ones(3),
                                                             weight=L.ones(3, requires_grad=True)),
    "soft_margin int": lambda F_, L: F_.soft_margin_loss(L.ones(3, dtype=L.int64), L.ones(3, dtype=L.int64)),
    "soft_margin int input": lambda F_, L: F_.soft_margin_loss(L.ones(3, dtype=L.int64), L.ones(3)),
    "soft_margin bool": lambda F_, L: F_.soft_margin_loss(L.ones(3, dtype=L.bool), L.ones(3, dtype=L.bool)),
    "soft_margin broadcast": lambda F_, L: F_.soft_margin_loss(L.ones(4, 5), L.ones(3)),
    "soft_margin target grad": lambda F_, L: F_.soft_margin_loss(L.ones(3), L.ones(3, requires_grad=True)),
    "multi_margin p": lambda F_, L: F_.multi_margin_loss(L.ones(4, 5), L.tensor([0, 1, 2, 3]), p=3),
    "multi_margin target": lambda F_, L: F_.multi_margin_loss(L.ones(4, 5), L.tensor([0, 1, 2, 7])),
    "multi_margin negative target": lambda F_, L: F_.multi_margin_loss(L.ones(4, 5), L.tensor([0, 1, 2, -1])),
    "multi_margin target size": lambda F_, L: F_.multi_margin_loss(L.ones(4, 5), L.tensor([0, 1, 2])),
    "multi_margin target rank": lambda F_, L: F_.multi_margin_loss(L.ones(4, 5), L.tensor([[0, 1, 2, 3]])),
    "multi_margin unbatched target": lambda F_, L: F_.multi_margin_loss(L.ones(5), L.tensor([2, 3])),
    "multi_margin weight size": lambda F_, L: F_.multi_margin_loss(L.ones(4, 5), L.tensor([0, 1, 2, 3]),
                                                                   weight=L.ones(3)),
    "multi_margin weight rank": lambda F_, L: F_.multi_margin_loss(L.ones(4, 5), L.tensor([0, 1, 2, 3]),
                                                                   weight=L.ones(1, 5)),
    "multi_margin weight dtype": lambda F_, L: F_.multi_margin_loss(L.ones(4, 5), L.tensor([0, 1, 2, 3]),
                                                                    weight=L.ones(5, dtype=L.float64)),
    "multi_margin weight grad": lambda F_, L: F_.multi_margin_loss(L.ones(4, 5, requires_grad=True),
                                                                   L.tensor([0, 1, 2, 3]),
                                                                   weight=L.ones(5, requires_grad=True)),
    "multi_margin int": lambda F_, L: F_.multi_margin_loss(L.ones(4, 5, dtype=L.int64), L.tensor([0, 1, 2, 3])),
    "multi_margin half": lambda F_, L: F_.multi_margin_loss(L.ones(4, 5, dtype=L.float16), L.tensor([0, 1, 2, 3])),
    "multi_margin 3d": lambda F_, L: F_.multi_margin_loss(L.ones(2, 4, 5), L.tensor([0, 1])),
    "multi_margin no classes": lambda F_, L: F_.multi_margin_loss(L.ones(4, 0), L.tensor([0, 1, 2, 3])),
    "multi_margin float target": lambda F_, L: F_.multi_margin_loss(L.ones(4, 5), L.tensor([0.0, 1, 2, 3])),
    "multilabel_margin target": lambda F_, L: F_.multilabel_margin_loss(L.ones(4, 5), L.full((4, 5), 7)),
    "multilabel_margin below -1": lambda F_, L: F_.multilabel_margin_loss(L.ones(4, 5), L.full((4, 5), -2)),
    "multilabel_margin int": lambda F_, L: F_.multilabel_margin_loss(L.ones(4, 5, dtype=L.int64),
                                                                     L.zeros(4, 5, dtype=L.int64)),
    "multilabel_margin int32 target": lambda F_, L: F_.multilabel_margin_loss(L.ones(4, 5),
                                                                              L.zeros(4, 5, dtype=L.int32)),
    "multilabel_margin target size": lambda F_, L: F_.multilabel_margin_loss(L.ones(4, 5),
                                                                             L.zeros(4, 4, dtype=L.int64)),
    "multilabel_margin 3d": lambda F_, L: F_.multilabel_margin_loss(L.ones(2, 4, 5), L.zeros(2, 4, 5, dtype=L.int64)),
}


@pytest.mark.parametrize("case", list(ERROR_CASES))
def test_errors_match_torch(case) -> None:
    torch = pytest.importorskip("torch")
    raised = []
    for F_, L in ((torch.nn.functional, torch), (F, tensorlib)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(Exception) as info:  # noqa: PT011 - the type is compared with torch's
                ERROR_CASES[case](F_, L)
        raised.append((info.type, str(info.value).replace("torch.", "tensorlib.")))
    assert raised[1] == raised[0]


def test_errors_leave_no_history_and_change_nothing() -> None:
    x = tensorlib.tensor(P, requires_grad=True)
    before = x.detach().clone()
    with pytest.raises(RuntimeError, match="not differentiable with respect to argument 'weight'"):
        F.binary_cross_entropy(x, tensorlib.tensor(Q), weight=tensorlib.ones(6, dtype=tensorlib.float64,
                                                                               requires_grad=True))
    # without a graph to record, a weight that requires grad is just a number, as in torch
    with tensorlib.no_grad():
        F.binary_cross_entropy(x, tensorlib.tensor(Q), weight=tensorlib.ones(6, dtype=tensorlib.float64,
                                                                               requires_grad=True))
    assert x.grad is None and tensorlib.equal(x.detach(), before)


# -- the margin losses: sizes where the old composition was slow -----------------------------------------------------


def test_multilabel_margin_matches_a_direct_count_on_many_classes() -> None:
    """The loss and gradient against the definition, summed pair by pair, with repeated and unlisted targets."""
    rng = np.random.default_rng(5)
    n, c = 7, 40
    xa = rng.standard_normal((n, c))
    ta = rng.integers(0, c, (n, c))
    for i, k in enumerate([0, 1, 3, 10, 40, 5, 2]):
        if k < c:
            ta[i, k] = -1
    ta[1, 0] = ta[1, 1] = 3  # a repeated target counts twice (an out-of-range entry after the -1 is ignored)
    x = tensorlib.tensor(xa, requires_grad=True)
    loss = F.multilabel_margin_loss(x, tensorlib.tensor(ta), reduction="sum")
    (g,) = tensorlib.autograd.grad(loss, x)
    want, want_g = 0.0, np.zeros((n, c))
    for s in range(n):
        listed = []
        for v in ta[s]:
            if v < 0:
                break
            listed.append(v)
        others = [i for i in range(c) if i not in set(listed)]
        for j in listed:
            for i in others:
                z = 1 - xa[s, j] + xa[s, i]
                if z > 0:
                    want += z / c
                    want_g[s, i] += 1 / c
                    want_g[s, j] -= 1 / c
    assert loss.item() == pytest.approx(want, rel=1e-12)
    np.testing.assert_allclose(g.numpy(), want_g, atol=1e-14)
    torch = pytest.importorskip("torch")
    tx = torch.tensor(xa, requires_grad=True)
    tl = torch.nn.functional.multilabel_margin_loss(tx, torch.tensor(ta), reduction="sum")
    assert loss.item() == pytest.approx(tl.item(), rel=1e-12)
    np.testing.assert_allclose(g.numpy(), torch.autograd.grad(tl, tx)[0].numpy(), atol=1e-14)


def test_margin_losses_unbatched_and_empty() -> None:
    torch = pytest.importorskip("torch")
    for reduction in REDUCTIONS:
        for call in (lambda F_, L: F_.multi_margin_loss(L.tensor(X[0], requires_grad=True), L.tensor(3),
                                                        reduction=reduction),
                     lambda F_, L: F_.multi_margin_loss(L.tensor(2.0, requires_grad=True), L.tensor(0),
                                                        reduction=reduction),
                     lambda F_, L: F_.multilabel_margin_loss(L.tensor(X[0], requires_grad=True),
                                                             L.tensor(LABELS[0]), reduction=reduction)):
            ours, theirs = call(F, tensorlib), call(torch.nn.functional, torch)
            assert tuple(ours.shape) == tuple(theirs.shape)
            np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-12)
    empty = F.multi_margin_loss(tensorlib.zeros(0, 4, requires_grad=True), tensorlib.zeros(0, dtype=tensorlib.int64),
                                reduction="sum")
    assert empty.item() == 0 and empty.grad_fn.name() == "MultiMarginLossBackward0"


def test_float32_losses_match_torch_in_single_precision() -> None:
    torch = pytest.importorskip("torch")
    for case in PAIR_CASES:
        fn, _, xa, ta, _ = PAIR_CASES[case]
        outs = []
        for lib, F_ in ((tensorlib, F), (torch, torch.nn.functional)):
            x = lib.tensor(xa, dtype=lib.float32, requires_grad=True)
            t = lib.tensor(ta, dtype=lib.float32) if ta.dtype.kind == "f" else lib.tensor(ta)
            if case.endswith("weight"):  # the weight in the input's dtype (multi_margin_loss requires it)
                fn2 = PAIR_CASES[case][0]
                y = fn2(F_, x, t, "mean") if "bce" in case else F_.multi_margin_loss(
                    x, t, p=2, margin=1.5, weight=lib.tensor(W6, dtype=lib.float32))
            else:
                y = fn(F_, x, t, "mean")
            (g,) = lib.autograd.grad(y, x)
            outs.append((repr(y.dtype).split(".")[-1], y.item(), g.numpy()))
        assert outs[0][0] == outs[1][0] == "float32"
        assert outs[0][1] == pytest.approx(outs[1][1], rel=1e-5)
        np.testing.assert_allclose(outs[0][2], outs[1][2], rtol=1e-5, atol=1e-7)


def test_clamp_keeps_an_input_equal_to_a_bound_as_torch() -> None:
    torch = pytest.importorskip("torch")
    a = np.array([-0.0, 0.0, np.nan, -3.0, 3.0, 0.5])
    for kwargs in ({"min": 0.0, "max": 1.0}, {"min": 0.0}, {"min": -1.0, "max": -0.0}, {"max": -0.0},
                   {"min": 2.0, "max": 1.0}, {"min": float("nan"), "max": 1.0}, {"min": 0, "max": 1}):
        ours = tensorlib.clamp(tensorlib.tensor(a), **kwargs).numpy()
        theirs = torch.clamp(torch.tensor(a), **kwargs).numpy()
        np.testing.assert_array_equal(ours, theirs)
        np.testing.assert_array_equal(np.signbit(ours), np.signbit(theirs))
