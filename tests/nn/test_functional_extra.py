"""The in-place activations, rrelu, gumbel_softmax, pdist, rms_norm, channel_shuffle, the extra losses
(multilabel_margin_loss, triplet_margin_with_distance_loss, linear_cross_entropy) and grouped_mm: values and
gradients against torch, gradcheck and gradgradcheck in float64, errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tensorlib
import tensorlib.nn.functional as F
from tensorlib.autograd import gradgradcheck
from tests.nn.compare import check_gradients, compare, leaf, same_error, same_message

RNG = np.random.default_rng(11)
X = RNG.standard_normal((4, 5)) * 2


def _f(lib):
    return lib.nn.functional


# -- in-place activations ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name, args", [
    ("elu_", ()), ("elu_", (0.4,)), ("celu_", ()), ("celu_", (1.7,)), ("selu_", ()), ("hardtanh_", ()),
    ("hardtanh_", (-0.3, 0.8)), ("leaky_relu_", ()), ("leaky_relu_", (0.2,)), ("threshold_", (0.1, -1.0)),
    ("rrelu_", ()), ("rrelu_", (0.2, 0.3)),
])
def test_inplace_activations_match_torch(name, args):
    def run(lib, x):
        y = x * 1
        out = getattr(_f(lib), name)(y, *args)
        assert out is y
        return out

    compare(run, X)


def test_inplace_activations_refuse_leaves_and_bump_versions():
    x = tensorlib.tensor(X, requires_grad=True)
    for name in ("elu_", "celu_", "selu_", "hardtanh_", "leaky_relu_", "rrelu_"):
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
            getattr(F, name)(x)
    y = tensorlib.tensor(X)
    version = y._version
    F.threshold_(y, 0.0, 5.0)
    assert y._version > version and (y.numpy() == np.where(X > 0, X, 5.0)).all()


def test_hardtanh_inplace_does_not_check_its_bounds():
    compare(lambda lib, x: _f(lib).hardtanh_(x * 1, 0.5, -0.5), X)


def test_top_level_inplace_forms_are_the_functional_ones():
    import inspect

    for name, args in (("celu_", (0.5,)), ("selu_", ()), ("threshold_", (0.2, 3.0)), ("rrelu_", (0.1, 0.4))):
        assert inspect.unwrap(getattr(tensorlib, name)) is inspect.unwrap(getattr(F, name))
        a, b = tensorlib.tensor(X), tensorlib.tensor(X)
        assert tensorlib.equal(getattr(tensorlib, name)(a, *args), getattr(F, name)(b, *args))


# -- rrelu -----------------------------------------------------------------------------------------------------------


def test_rrelu_in_eval_is_leaky_relu_with_the_mean_slope():
    compare(lambda lib, x: _f(lib).rrelu(x), X)
    compare(lambda lib, x: _f(lib).rrelu(x, 0.1, 0.5, training=False), X)
    compare(lambda lib, x: lib.rrelu(x, 0.1, 0.5), X)
    check_gradients(lambda t: F.rrelu(t, 0.2, 0.6), leaf(3, 4))


def test_rrelu_training_draws_slopes_in_range_and_differentiates_through_them():
    x = tensorlib.tensor(-np.abs(RNG.standard_normal(20000)) - 0.1, requires_grad=True)
    out = F.rrelu(x, 0.1, 0.3, training=True)
    slopes = out.detach().numpy() / x.detach().numpy()
    assert slopes.min() >= 0.1 and slopes.max() <= 0.3 and abs(slopes.mean() - 0.2) < 0.005
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), slopes)  # the gradient is the slope drawn
    pos = tensorlib.tensor(np.abs(X) + 0.1)
    assert tensorlib.equal(F.rrelu(pos, training=True), pos)
    y = x.detach() * 1
    assert F.rrelu(y, training=True, inplace=True) is y
    g = tensorlib.Generator().manual_seed(3)
    a = tensorlib.rrelu(x.detach(), 0.1, 0.3, True, generator=g)
    b = tensorlib.rrelu(x.detach(), 0.1, 0.3, True, generator=tensorlib.Generator().manual_seed(3))
    assert tensorlib.equal(a, b)


def test_rrelu_module():
    m = tensorlib.nn.RReLU(0.1, 0.3)
    assert repr(m) == "RReLU(lower=0.1, upper=0.3)" and repr(tensorlib.nn.RReLU(inplace=True)).endswith("inplace=True)")
    x = tensorlib.tensor(-np.abs(X) - 0.1)
    m.eval()
    np.testing.assert_allclose(m(x).numpy(), x.numpy() * 0.2)
    m.train()
    slopes = m(x).numpy() / x.numpy()
    assert ((slopes >= 0.1) & (slopes <= 0.3)).all() and len(np.unique(slopes)) > 1


# -- gumbel_softmax -------------------------------------------------------------------------------------------------


def test_gumbel_softmax_samples_the_categorical_distribution():
    tensorlib.manual_seed(0)
    logits = tensorlib.tensor(np.log(np.array([0.6, 0.3, 0.1])))
    hard = F.gumbel_softmax(logits.expand(20000, 3), tau=0.5, hard=True)
    assert set(np.unique(hard.numpy())) == {0.0, 1.0} and (hard.numpy().sum(1) == 1).all()
    np.testing.assert_allclose(hard.numpy().mean(0), [0.6, 0.3, 0.1], atol=0.015)
    soft = F.gumbel_softmax(logits.expand(5, 3), tau=2.0, dim=1)
    np.testing.assert_allclose(soft.numpy().sum(1), 1.0)
    assert (soft.numpy() > 0).all() and (soft.numpy() < 1).all()


def test_gumbel_softmax_gradients_and_straight_through():
    x = tensorlib.tensor(X, requires_grad=True)
    tensorlib.manual_seed(1)
    soft = F.gumbel_softmax(x, tau=0.7, dim=0)
    tensorlib.manual_seed(1)
    hard = F.gumbel_softmax(x, tau=0.7, hard=True, dim=0)
    assert (hard.detach().numpy().argmax(0) == soft.detach().numpy().argmax(0)).all()
    w = tensorlib.tensor(RNG.standard_normal((4, 5)))
    (gs,) = tensorlib.autograd.grad((soft * w).sum(), x)
    (gh,) = tensorlib.autograd.grad((hard * w).sum(), x)
    np.testing.assert_allclose(gh.numpy(), gs.numpy(), atol=1e-6)  # straight-through: the soft sample's gradient
    with pytest.warns(UserWarning, match="`eps` parameter is deprecated"):
        F.gumbel_softmax(x, eps=1e-3)


def test_gumbel_softmax_gradcheck_with_fixed_noise():
    x = leaf(3, 4)
    def fn(t):
        tensorlib.manual_seed(5)  # the same noise at every evaluation
        return F.gumbel_softmax(t, tau=0.8)

    check_gradients(fn, x)


# -- pdist -----------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, 0.5, 0.0, float("inf")])
def test_pdist_matches_torch(p):
    compare(lambda lib, x: lib.pdist(x, p), RNG.standard_normal((5, 3)))
    compare(lambda lib, x: _f(lib).pdist(x, p=p), RNG.standard_normal((4, 2)))


def test_pdist_edge_cases_and_errors():
    compare(lambda lib, x: lib.pdist(x), RNG.standard_normal((1, 3)))
    compare(lambda lib, x: lib.pdist(x), np.array([[1.0, 2.0], [1.0, 2.0], [0.0, 1.0]]))  # a zero distance
    same_message(lambda lib, x: lib.pdist(x), RNG.standard_normal((2, 3, 4)))
    same_message(lambda lib, x: lib.pdist(x, -1.0), RNG.standard_normal((3, 4)))
    same_error(lambda lib, x: lib.pdist(x), np.ones((3, 2), dtype=np.int64))
    check_gradients(lambda t: F.pdist(t), leaf(4, 3))
    check_gradients(lambda t: F.pdist(t, 3.0), leaf(4, 2, seed=1))


# -- rms_norm ----------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("shape, normalized, weight, eps", [
    ((2, 3, 4), (4,), True, None), ((2, 3, 4), (3, 4), True, 1e-3), ((5, 3), [3], False, None), ((3,), (3,), True, 0.5),
])
def test_rms_norm_matches_torch(shape, normalized, weight, eps):
    x = RNG.standard_normal(shape)
    w = RNG.standard_normal(tuple(normalized))
    if weight:
        compare(lambda lib, a, b: _f(lib).rms_norm(a, normalized, b, eps), x, w, differentiable=(0, 1))
        compare(lambda lib, a, b: lib.rms_norm(a, list(normalized), b, eps), x, w, differentiable=(0, 1))
    else:
        compare(lambda lib, a: _f(lib).rms_norm(a, normalized, eps=eps), x)


def test_rms_norm_dtypes_and_default_eps():
    torch = pytest.importorskip("torch")
    tiny = np.full((1, 4), 1e-4, dtype=np.float32)  # eps (the float32 machine epsilon) matters here
    compare(lambda lib, a: _f(lib).rms_norm(a, (4,)), tiny, rtol=1e-6)
    half = RNG.standard_normal((2, 5)).astype(np.float16)
    ours = F.rms_norm(tensorlib.tensor(half), (5,))
    theirs = torch.nn.functional.rms_norm(torch.tensor(half), (5,))
    assert ours.dtype == tensorlib.float16
    np.testing.assert_allclose(ours.numpy().astype(np.float64), theirs.numpy().astype(np.float64), atol=2e-3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch: no fused kernel for mixed dtypes
        compare(lambda lib, a, b: _f(lib).rms_norm(a, (4,), b), RNG.standard_normal((2, 4)).astype(np.float32),
                RNG.standard_normal(4), differentiable=(0, 1), rtol=1e-6)


@pytest.mark.parametrize("call", [
    lambda lib, x: _f(lib).rms_norm(x, (3,)), lambda lib, x: _f(lib).rms_norm(x, (2, 4)),
    lambda lib, x: _f(lib).rms_norm(x, []), lambda lib, x: _f(lib).rms_norm(x, (1, 2, 3, 4)),
    lambda lib, x: _f(lib).rms_norm(x, (4,), lib.ones(3)), lambda lib, x: _f(lib).rms_norm(x, 4),
])
def test_rms_norm_errors(call):
    same_message(call, RNG.standard_normal((2, 3, 4)))


def test_rms_norm_errors_on_integers_and_gradients():
    same_error(lambda lib, x: _f(lib).rms_norm(x, (3,)), np.ones((2, 3), dtype=np.int64))
    check_gradients(lambda t, w: F.rms_norm(t, (4,), w, 1e-3), leaf(2, 3, 4), leaf(4, seed=2))
    check_gradients(lambda t: F.rms_norm(t, (3, 4)), leaf(2, 3, 4, seed=3))


def test_rms_norm_module():
    torch = pytest.importorskip("torch")
    m, tm = tensorlib.nn.RMSNorm([3, 4], eps=1e-4), torch.nn.RMSNorm([3, 4], eps=1e-4)
    assert repr(m) == repr(tm) == "RMSNorm((3, 4), eps=0.0001, elementwise_affine=True)"
    assert tensorlib.nn.RMSNorm(5).normalized_shape == (5,)
    assert tensorlib.nn.RMSNorm(5, elementwise_affine=False).weight is None
    m.weight.data = tensorlib.tensor(RNG.standard_normal((3, 4)))
    tm.weight.data = torch.tensor(m.weight.detach().numpy())
    x = RNG.standard_normal((2, 3, 4))
    np.testing.assert_allclose(m(tensorlib.tensor(x)).detach().numpy(), tm(torch.tensor(x)).detach().numpy(),
                               rtol=1e-6)
    m.reset_parameters()
    assert (m.weight.detach().numpy() == 1).all()


# -- channel_shuffle -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("shape, groups", [((2, 6, 3), 3), ((1, 4, 2, 2), 2), ((2, 6, 1, 2, 2), 6), ((3, 4, 5), 1)])
def test_channel_shuffle_matches_torch(shape, groups):
    x = RNG.standard_normal(shape)
    compare(lambda lib, a: _f(lib).channel_shuffle(a, groups), x)
    compare(lambda lib, a: lib.channel_shuffle(a, groups), x)
    compare(lambda lib, a: lib.nn.ChannelShuffle(groups)(a), x)


@pytest.mark.parametrize("shape, groups", [((4, 2), 2), ((1, 4, 2), 0), ((1, 4, 2), 3), ((1, 4, 2), -2)])
def test_channel_shuffle_errors(shape, groups):
    same_message(lambda lib, a: lib.channel_shuffle(a, groups), RNG.standard_normal(shape))


def test_channel_shuffle_gradients_and_module():
    check_gradients(lambda t: F.channel_shuffle(t, 2), leaf(2, 4, 3))
    assert repr(tensorlib.nn.ChannelShuffle(3)) == "ChannelShuffle(groups=3)"


# -- multilabel_margin_loss --------------------------------------------------------------------------------------------

MLM_X = RNG.standard_normal((3, 5))
MLM_T = np.array([[3, 0, -1, 1, 2], [1, 2, 3, 4, -1], [0, 0, 2, -1, 4]])  # a repeat counts twice, as in torch


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_multilabel_margin_loss_matches_torch(reduction):
    compare(lambda lib, x, t: _f(lib).multilabel_margin_loss(x, t, reduction=reduction), MLM_X, MLM_T)
    compare(lambda lib, x, t: _f(lib).multilabel_margin_loss(x, t, reduction=reduction), MLM_X[0], MLM_T[0])
    compare(lambda lib, x, t: lib.nn.MultiLabelMarginLoss(reduction=reduction)(x, t), MLM_X, MLM_T)


@pytest.mark.filterwarnings("ignore:size_average and reduce args will be deprecated")
def test_multilabel_margin_loss_edge_cases():
    empty = F.multilabel_margin_loss(tensorlib.zeros(0, 4, requires_grad=True),
                                     tensorlib.zeros(0, 4, dtype=tensorlib.int64))
    assert empty.item() == 0 and empty.requires_grad  # torch's value here is uninitialised memory
    compare(lambda lib, x, t: _f(lib).multilabel_margin_loss(x, t), np.array(1.5), np.array(0))
    compare(lambda lib, x, t: _f(lib).multilabel_margin_loss(x, t, size_average=False), MLM_X, MLM_T)
    compare(lambda lib, x, t: _f(lib).multilabel_margin_loss(x, t), MLM_X, np.full((3, 5), -1))


@pytest.mark.parametrize("x, t", [
    (MLM_X, MLM_T[:1]), (MLM_X, np.array([[3, 0, 5, 1, 2]] * 3)), (MLM_X, np.array([[3, -5, 1, 1, 2]] * 3)),
    (MLM_X[0], MLM_T[0, :3]), (RNG.standard_normal((2, 3, 4)), np.zeros((2, 3, 4), np.int64)),
    (MLM_X, MLM_T.astype(np.int32)), (MLM_X, MLM_T.astype(np.float64)),
])
def test_multilabel_margin_loss_errors(x, t):
    same_message(lambda lib, a, b: _f(lib).multilabel_margin_loss(a, b), x, t)


def test_multilabel_margin_loss_gradients():
    target = tensorlib.tensor(MLM_T)
    check_gradients(lambda t: F.multilabel_margin_loss(t, target), leaf(3, 5))
    check_gradients(lambda t: F.multilabel_margin_loss(t, target[1], reduction="none"), leaf(5, seed=4))


# -- triplet_margin_with_distance_loss ---------------------------------------------------------------------------------

A, P, N = (RNG.standard_normal((4, 3)) for _ in range(3))


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("swap", [False, True])
def test_triplet_margin_with_distance_loss_matches_torch(reduction, swap):
    compare(lambda lib, a, p, n: _f(lib).triplet_margin_with_distance_loss(a, p, n, swap=swap, reduction=reduction),
            A, P, N, differentiable=(0, 1, 2))

    def l1(lib):
        return lambda u, v: (u - v).abs().sum(-1)

    compare(lambda lib, a, p, n: _f(lib).triplet_margin_with_distance_loss(
        a, p, n, distance_function=l1(lib), margin=2.0, swap=swap, reduction=reduction), A, P, N,
        differentiable=(0, 1, 2))
    compare(lambda lib, a, p, n: lib.nn.TripletMarginWithDistanceLoss(
        distance_function=lib.nn.PairwiseDistance(p=1.0), swap=swap, reduction=reduction)(a, p, n), A, P, N,
        differentiable=(0, 1, 2))


@pytest.mark.parametrize("call", [
    lambda lib, a, p, n: _f(lib).triplet_margin_with_distance_loss(a, p, n, reduction="avg"),
    lambda lib, a, p, n: _f(lib).triplet_margin_with_distance_loss(a, p, n, margin=0.0),
    lambda lib, a, p, n: _f(lib).triplet_margin_with_distance_loss(a, p, n[0]),
    lambda lib, a, p, n: lib.nn.TripletMarginWithDistanceLoss(margin=-1.0),
])
def test_triplet_margin_with_distance_loss_errors(call):
    same_message(call, A, P, N)


def test_triplet_margin_with_distance_loss_gradients_and_module():
    check_gradients(lambda a, p, n: F.triplet_margin_with_distance_loss(a, p, n, swap=True),
                    leaf(3, 4), leaf(3, 4, seed=1), leaf(3, 4, seed=2))
    torch = pytest.importorskip("torch")
    assert repr(tensorlib.nn.TripletMarginWithDistanceLoss()) == repr(torch.nn.TripletMarginWithDistanceLoss())


# -- linear_cross_entropy --------------------------------------------------------------------------------------------

LX = RNG.standard_normal((3, 5))
LW = RNG.standard_normal((4, 5))
LB = RNG.standard_normal(4)
LT = np.array([0, 3, 1])


@pytest.mark.parametrize("kwargs", [{}, {"reduction": "sum"}, {"reduction": "none", "label_smoothing": 0.2},
                                    {"ignore_index": 3}, {"ignore_index": 1, "label_smoothing": 0.1}], ids=str)
def test_linear_cross_entropy_matches_torch(kwargs):
    compare(lambda lib, x, w, t, b: _f(lib).linear_cross_entropy(x, w, t, linear_bias=b, **kwargs), LX, LW, LT, LB,
            differentiable=(0, 1, 3))
    compare(lambda lib, x, w, t: _f(lib).linear_cross_entropy(x, w, t, **kwargs), LX[0], LW, np.array(2),
            differentiable=(0, 1))


def test_linear_cross_entropy_variants():
    w3 = RNG.standard_normal((4, 2, 5))
    t3 = np.array([[0, 3], [1, 1], [2, 0]])
    compare(lambda lib, x, w, t, b: _f(lib).linear_cross_entropy(x, w, t, linear_bias=b, reduction="sum"), LX, w3, t3,
            RNG.standard_normal((4, 2)), differentiable=(0, 1, 3))
    probs = RNG.random((3, 4))
    probs /= probs.sum(1, keepdims=True)
    compare(lambda lib, x, w, t, c: _f(lib).linear_cross_entropy(x, w, t, weight=c, label_smoothing=0.3), LX, LW,
            probs, RNG.random(4) + 0.5, differentiable=(0, 1))
    check_gradients(lambda x, w: F.linear_cross_entropy(x, w, tensorlib.tensor(LT), label_smoothing=0.1),
                    leaf(3, 5), leaf(4, 5, seed=1))


@pytest.mark.parametrize("call", [
    lambda lib, x, w, t: _f(lib).linear_cross_entropy(x[None], w, t),
    lambda lib, x, w, t: _f(lib).linear_cross_entropy(x, w[0], t),
    lambda lib, x, w, t: _f(lib).linear_cross_entropy(x[:, :4], w, t),
    lambda lib, x, w, t: _f(lib).linear_cross_entropy(x, w, t, linear_bias=lib.ones(3)),
    lambda lib, x, w, t: _f(lib).linear_cross_entropy(x[0], w[:, None], t[0]),
    lambda lib, x, w, t: _f(lib).linear_cross_entropy(x, w, lib.ones(3, 4, dtype=x.dtype), ignore_index=1),
])
def test_linear_cross_entropy_errors(call):
    same_message(call, LX, LW, LT)


def test_linear_cross_entropy_options_warns_where_torch_ignores_them():
    with pytest.warns(UserWarning, match="``options`` ignored"):
        F.linear_cross_entropy(tensorlib.tensor(LX), tensorlib.tensor(LW), tensorlib.tensor(LT), label_smoothing=0.1,
                               options=object())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plain = F.linear_cross_entropy(tensorlib.tensor(LX), tensorlib.tensor(LW), tensorlib.tensor(LT))
        chunked = F.linear_cross_entropy(tensorlib.tensor(LX), tensorlib.tensor(LW), tensorlib.tensor(LT),
                                         options=object())
    assert tensorlib.equal(plain, chunked)


def test_linear_cross_entropy_loss_module():
    torch = pytest.importorskip("torch")
    for kwargs in ({}, {"out_features": (2,), "bias": True, "reduction": "sum"}, {"ignore_index": 1,
                                                                                   "label_smoothing": 0.2}):
        ours = tensorlib.nn.LinearCrossEntropyLoss(5, 4, dtype=tensorlib.float64, **kwargs)
        theirs = torch.nn.LinearCrossEntropyLoss(5, 4, dtype=torch.float64, **kwargs)
        assert repr(ours) == repr(theirs)
        ours.load_state_dict({k: tensorlib.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
        target = np.array([[0, 3], [1, 1], [2, 0]]) if kwargs.get("out_features") else LT
        compare(lambda lib, x, t: (ours if lib is tensorlib else theirs)(x, t), LX, target)
    with pytest.raises(RuntimeError, match="expected weight shape to be"):
        tensorlib.nn.LinearCrossEntropyLoss(5, 4, weight=tensorlib.ones(3))
    with pytest.raises(RuntimeError, match="expected label_smoothing to be in range"):
        tensorlib.nn.LinearCrossEntropyLoss(5, 4, label_smoothing=1.5)


# -- grouped_mm --------------------------------------------------------------------------------------------------------


def _offs(lib, *ends):
    return lib.tensor(list(ends), dtype=lib.int32)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_grouped_mm_matches_torch(dtype):
    rtol = 1e-5 if dtype == np.float32 else 2e-2
    a2, b3 = RNG.standard_normal((16, 32)).astype(dtype), RNG.standard_normal((2, 32, 16)).astype(dtype)
    compare(lambda lib, a, b: _f(lib).grouped_mm(a, b, offs=_offs(lib, 8, 16)), a2, b3, differentiable=(0, 1),
            rtol=rtol, atol=rtol)
    a3, b3b = RNG.standard_normal((2, 4, 8)).astype(dtype), RNG.standard_normal((2, 8, 8)).astype(dtype)
    compare(lambda lib, a, b: _f(lib).grouped_mm(a, b), a3, b3b, differentiable=(0, 1), rtol=rtol, atol=rtol)
    a22, b22 = RNG.standard_normal((4, 16)).astype(dtype), RNG.standard_normal((16, 8)).astype(dtype)
    compare(lambda lib, a, b: _f(lib).grouped_mm(a, b, offs=_offs(lib, 4, 12, 16)), a22, b22, differentiable=(),
            rtol=rtol, atol=rtol)
    a32, b32 = RNG.standard_normal((2, 4, 16)).astype(dtype), RNG.standard_normal((16, 8)).astype(dtype)
    compare(lambda lib, a, b: _f(lib).grouped_mm(a, b, offs=_offs(lib, 4, 8)), a32, b32, differentiable=(),
            rtol=rtol, atol=rtol)


def test_grouped_mm_jagged_groups():
    a, b = tensorlib.randn(16, 32), tensorlib.randn(3, 32, 16)
    out = F.grouped_mm(a, b, offs=tensorlib.tensor([4, 4, 12], dtype=tensorlib.int32))
    expected = np.zeros((16, 16), np.float32)
    expected[:4] = a.numpy()[:4] @ b.numpy()[0]
    expected[4:12] = a.numpy()[4:12] @ b.numpy()[2]
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-5, atol=1e-5)  # rows past offs[-1] are zero here
    empty = F.grouped_mm(tensorlib.randn(0, 16), tensorlib.randn(2, 16, 8), offs=_offs(tensorlib, 0, 0))
    assert empty.shape == (0, 8)
    for mat_a, mat_b, ends in (((4, 16), (16, 8), []), ((4, 16), (16, 8), [16])):
        compare(lambda lib, x, y: _f(lib).grouped_mm(x, y, offs=_offs(lib, *ends)),
                RNG.standard_normal(mat_a).astype(np.float32), RNG.standard_normal(mat_b).astype(np.float32),
                differentiable=(), rtol=1e-5, atol=1e-5)
    transposed = tensorlib.randn(32, 16).t()  # column-major operands are accepted, as in torch
    assert F.grouped_mm(transposed, b[:2], offs=tensorlib.tensor([8, 16], dtype=tensorlib.int32)).shape == (16, 16)


@pytest.mark.parametrize("call", [
    lambda lib: _f(lib).grouped_mm(lib.randn(16, 32), lib.randn(2, 32, 16)),
    lambda lib: _f(lib).grouped_mm(lib.randn(16, 32), lib.randn(2, 32, 16), offs=lib.tensor([8, 16])),
    lambda lib: _f(lib).grouped_mm(lib.randn(2, 4, 8), lib.randn(2, 8, 4), out_dtype=lib.float16),
    lambda lib: _f(lib).grouped_mm(lib.randn(2, 4, 8), lib.randn(2, 8, 4), bias=lib.randn(4)),
    lambda lib: _f(lib).grouped_mm(lib.randn(2, 4, 8), lib.randn(3, 8, 4)),
    lambda lib: _f(lib).grouped_mm(lib.randn(2, 4, 8), lib.randn(2, 4, 4)),
    lambda lib: _f(lib).grouped_mm(lib.randn(4, 4, 4, 4), lib.randn(2, 4, 4)),
    lambda lib: _f(lib).grouped_mm(lib.randn(16, 32), lib.randn(3, 32, 16), offs=_offs(lib, 8, 16)),
    lambda lib: _f(lib).grouped_mm(lib.randn(16, 32), lib.randn(2, 32, 16), offs=_offs(lib, 8, 16)[None]),
    lambda lib: _f(lib).grouped_mm(lib.randn(2, 4, 8), lib.randn(2, 8, 4), offs=_offs(lib, 8, 16)),
    lambda lib: _f(lib).grouped_mm(lib.randn(16, 30), lib.randn(2, 30, 16), offs=_offs(lib, 8, 16)),
    lambda lib: _f(lib).grouped_mm(lib.randn(16, 32, dtype=lib.float64), lib.randn(2, 32, 16), offs=_offs(lib, 8, 16)),
    lambda lib: _f(lib).grouped_mm(lib.ones(16, 32, dtype=lib.int32), lib.randn(2, 32, 16), offs=_offs(lib, 8, 16)),
])
def test_grouped_mm_errors(call):
    same_message(call)


def test_grouped_mm_gradients_match_the_products():
    # float32 only (torch's CPU kernel): compare the gradient with the products it is made of
    a = tensorlib.randn(16, 32, requires_grad=True)
    b = tensorlib.randn(2, 32, 16, requires_grad=True)
    g = tensorlib.randn(16, 16)
    F.grouped_mm(a, b, offs=tensorlib.tensor([8, 16], dtype=tensorlib.int32)).backward(g)
    av, bv, gv = a.detach().numpy(), b.detach().numpy(), g.numpy()
    ga = np.concatenate([gv[:8] @ bv[0].T, gv[8:] @ bv[1].T])
    np.testing.assert_allclose(a.grad.numpy(), ga, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(b.grad.numpy()[1], av[8:].T @ gv[8:], rtol=1e-4, atol=1e-4)


def test_scaled_mm_is_left_out():
    # torch's scaled_mm and scaled_grouped_mm take float8 operands only, which tensorlib has no dtype for
    assert not hasattr(F, "scaled_mm") and not hasattr(F, "scaled_grouped_mm")


@pytest.mark.parametrize("shape,pad,mode", [((2, 3, 9, 8), (2, 3, 1, 2), "reflect"), ((2, 3, 9, 8), (2, 3, 1, 2), "replicate"),
                                            ((2, 3, 9, 8), (2, 3, 1, 2), "circular"), ((2, 3, 9), (4, 2), "reflect"),
                                            ((2, 2, 5, 6, 7), (1, 2, 0, 1, 2, 1), "replicate"),
                                            ((3, 40, 50), (5, 0, 0, 5), "circular"), ((2, 3, 4), (4, 4), "circular")])
def test_pad_gradients_one_axis_at_a_time_match_torch(shape, pad, mode):
    """Without a graph to record, padding's gradient is taken one axis at a time (the interior plus each side added
    back where it was copied from); under create_graph it is a recorded scatter. Both are torch's."""
    torch = pytest.importorskip("torch")
    a = RNG.standard_normal(shape)
    results = []
    for lib, create_graph in ((tensorlib, False), (tensorlib, True), (torch, False)):
        x = lib.tensor(a, requires_grad=True)
        y = lib.nn.functional.pad(x, pad, mode=mode)
        g = lib.tensor(np.linspace(-1, 1, y.numel()).reshape(tuple(y.shape)))
        (gx,) = lib.autograd.grad(y, x, g, create_graph=create_graph)
        results.append(gx.detach().numpy())
    np.testing.assert_allclose(results[0], results[2], rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(results[1], results[2], rtol=1e-13, atol=1e-14)


@pytest.mark.parametrize("kwargs", [{}, {"padding_idx": 3}, {"padding_idx": -17}, {"scale_grad_by_freq": True},
                                    {"padding_idx": 3, "scale_grad_by_freq": True}])
def test_embedding_is_one_node_with_torchs_gradients(kwargs):
    """One EmbeddingBackward0 node with an edge to the weight, as torch; the looked-up rows' gradients add up
    (repeated indices), the padding row gets none, and scale_grad_by_freq divides by the counts."""
    torch = pytest.importorskip("torch")
    w, idx = RNG.standard_normal((20, 6)), RNG.integers(0, 20, (4, 7))
    idx[0, :3] = 3
    results = []
    for lib in (tensorlib, torch):
        weight = lib.tensor(w, requires_grad=True)
        y = lib.nn.functional.embedding(lib.tensor(idx), weight, **kwargs)
        g = lib.tensor(np.linspace(-1, 1, y.numel()).reshape(tuple(y.shape)), requires_grad=True)
        (gw,) = lib.autograd.grad(y, weight, g, create_graph=True)
        (gg,) = lib.autograd.grad((gw ** 2).sum(), g)
        results.append((y.grad_fn.name(), [type(n).__name__ for n, _ in y.grad_fn.next_functions], y.detach().numpy(),
                        gw.detach().numpy(), gg.numpy()))
    assert results[0][:2] == results[1][:2] == ("EmbeddingBackward0", ["AccumulateGrad"])
    # torch's double backward leaves scale_grad_by_freq out (its derivative with respect to the incoming gradient is
    # the unscaled one); ours is the scaled map's own derivative
    compared = 2 if kwargs.get("scale_grad_by_freq") else 3
    for ours, theirs in zip(results[0][2:2 + compared], results[1][2:2 + compared]):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-14)
    if not kwargs.get("scale_grad_by_freq"):  # (a scaled gradient is not the function's derivative, by design)
        weight = tensorlib.tensor(w, requires_grad=True)
        assert gradgradcheck(lambda t: F.embedding(tensorlib.tensor(idx), t, **kwargs) ** 2, (weight,))
