"""nn.functional and the loss/activation modules compared with torch on the same inputs: values and gradients."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tensorlib
import tensorlib.nn as nn
import tensorlib.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional

_rng = np.random.default_rng(0)
X = _rng.standard_normal((4, 5))
W = _rng.standard_normal((3, 5))
B = _rng.standard_normal(3)
TARGET = np.array([0, 2, 4, 1])
TARGET_IGNORED = np.array([0, -100, 4, 1])
CLASS_W = _rng.random(5) + 0.5
PROBS = _rng.random((4, 5))
PROBS /= PROBS.sum(1, keepdims=True)
X3 = _rng.standard_normal((2, 5, 3))
T3 = np.array([[0, 1, 4], [2, 3, -100]])
P01 = _rng.random((4, 5)) * 0.98 + 0.01
Y01 = (_rng.random((4, 5)) > 0.5).astype(np.float64)
Y2 = _rng.standard_normal((4, 5))


def compare(fn, *arrays, differentiable=(0,), rtol=1e-7, atol=1e-9):
    """Run ``fn(functional, lib, *tensors)`` in both libraries; compare values and the gradients of ``differentiable``."""
    ours = [tensorlib.tensor(a, requires_grad=i in differentiable and a.dtype.kind == "f") for i, a in enumerate(arrays)]
    theirs = [torch.tensor(a, requires_grad=i in differentiable and a.dtype.kind == "f") for i, a in enumerate(arrays)]
    out = fn(F, tensorlib, *ours)
    tout = fn(TF, torch, *theirs)
    assert tuple(out.shape) == tuple(tout.shape)
    assert repr(out.dtype) == repr(tout.dtype).replace("torch.", "tensorlib.")
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=rtol, atol=atol)
    if tout.requires_grad:
        g = _rng.standard_normal(tuple(tout.shape))
        out.backward(tensorlib.tensor(g))
        tout.backward(torch.tensor(g))
        for a, b in zip(ours, theirs):
            if b.grad is not None:
                np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=rtol, atol=atol)
    return out


def same_error(fn, *arrays):
    """Both libraries raise the same exception type; the message of ours is returned."""
    with pytest.raises(Exception) as theirs:
        fn(TF, torch, *[torch.tensor(a) for a in arrays])
    with pytest.raises(theirs.type) as ours:
        fn(F, tensorlib, *[tensorlib.tensor(a) for a in arrays])
    return str(ours.value)


# -- linear / activations ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "x",
    [X, _rng.standard_normal((2, 4, 5)), _rng.standard_normal(5)],
    ids=["2d", "3d", "1d"],
)
@pytest.mark.parametrize("bias", [True, False])
def test_linear(x, bias):
    if bias:
        compare(lambda F, L, x, w, b: F.linear(x, w, b), x, W, B, differentiable=(0, 1, 2))
    else:
        compare(lambda F, L, x, w: F.linear(x, w), x, W, differentiable=(0, 1))


def test_linear_errors():
    msg = same_error(lambda F, L, x, w: F.linear(x, w), X, _rng.standard_normal((3, 4)))
    assert "cannot be multiplied (4x5 and 4x3)" in msg
    same_error(lambda F, L, x, w: F.linear(x, w), np.ones((2, 5), dtype=np.int64), W)
    with pytest.raises(TypeError, match="must be Tensor"):
        F.linear([[1.0]], tensorlib.ones(1, 1))


ACTIVATIONS = ["relu", "sigmoid", "tanh", "softsign", "logsigmoid", "tanhshrink", "softshrink", "hardshrink",
               "hardsigmoid", "hardswish", "silu", "mish", "gelu", "elu", "selu", "celu", "relu6", "leaky_relu",
               "softplus", "hardtanh"]


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_activation_functions(name):
    compare(lambda F, L, x: getattr(F, name)(x * 3), X)


@pytest.mark.parametrize(
    "call",
    [lambda F, x: F.gelu(x, approximate="tanh"), lambda F, x: F.leaky_relu(x, 0.2), lambda F, x: F.elu(x, alpha=0.3),
     lambda F, x: F.softplus(x, beta=2.0, threshold=1.0), lambda F, x: F.hardtanh(x, -0.5, 0.7),
     lambda F, x: F.threshold(x, 0.1, -3.0), lambda F, x: F.glu(x, 0), lambda F, x: F.celu(x, 2.0)],
)
def test_activation_options(call):
    compare(lambda F, L, x: call(F, x), _rng.standard_normal((4, 6)) * 2)


@pytest.mark.parametrize("name", ["relu", "elu", "leaky_relu", "hardtanh", "selu", "relu6"])
def test_inplace_activations(name):
    def run(F, L, x):
        y = x * 1
        out = getattr(F, name)(y, inplace=True)
        assert out is y
        return out

    compare(run, X)


def test_relu_underscore_is_relu_in_place():
    def run(F, L, x):
        y = x * 1
        out = F.relu_(y)
        assert out is y
        return out

    compare(run, X)


@pytest.mark.parametrize("fname", ["softmax", "log_softmax", "softmin"])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_softmax_family(fname, dim):
    compare(lambda F, L, x: getattr(F, fname)(x, dim=dim), X)
    compare(lambda F, L, x: getattr(F, fname)(x, dim=dim), X3)


def test_softmax_dtype_argument_and_extremes():
    # computed in float32 (both libraries): its gradient's absolute error is float32's (~1e-7), whatever
    # upstream gradient the shared generator happens to draw for this test
    compare(lambda F, L, x: F.softmax(x, dim=1, dtype=L.float32), X, rtol=1e-6, atol=1e-6)
    big = np.array([[1000.0, 0.0, -1000.0], [-1e4, 1e4, 0.0]])
    compare(lambda F, L, x: F.log_softmax(x, dim=1), big)
    compare(lambda F, L, x: F.softmax(x, dim=1), big)


def test_softmax_without_dim_warns_like_torch():
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax"):
        out = F.softmax(tensorlib.tensor(X))
    with pytest.warns(UserWarning):
        ref = TF.softmax(torch.tensor(X))
    np.testing.assert_allclose(out.numpy(), ref.numpy())
    with pytest.warns(UserWarning, match="log_softmax"):
        F.log_softmax(tensorlib.tensor(X3))


# -- losses -------------------------------------------------------------------------------------------

REDUCTIONS = ["mean", "sum", "none"]


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize(
    "case",
    ["plain", "ignore_index", "custom_ignore", "weight", "label_smoothing", "weight+smoothing", "probs",
     "probs+smoothing", "probs+weight", "probs+weight+smoothing", "3d", "3d+weight+smoothing", "unbatched"],
)
def test_cross_entropy(reduction, case):
    r = reduction
    calls = {
        "plain": (lambda F, L, x, t: F.cross_entropy(x, t, reduction=r), X, TARGET),
        "ignore_index": (lambda F, L, x, t: F.cross_entropy(x, t, reduction=r), X, TARGET_IGNORED),
        "custom_ignore": (lambda F, L, x, t: F.cross_entropy(x, t, ignore_index=4, reduction=r), X, TARGET),
        "weight": (lambda F, L, x, t, w: F.cross_entropy(x, t, weight=w, reduction=r), X, TARGET_IGNORED, CLASS_W),
        "label_smoothing": (lambda F, L, x, t: F.cross_entropy(x, t, label_smoothing=0.1, reduction=r), X,
                            TARGET_IGNORED),
        "weight+smoothing": (lambda F, L, x, t, w: F.cross_entropy(x, t, weight=w, label_smoothing=0.2, reduction=r),
                             X, TARGET_IGNORED, CLASS_W),
        "probs": (lambda F, L, x, t: F.cross_entropy(x, t, reduction=r), X, PROBS),
        "probs+smoothing": (lambda F, L, x, t: F.cross_entropy(x, t, label_smoothing=0.3, reduction=r), X, PROBS),
        "probs+weight": (lambda F, L, x, t, w: F.cross_entropy(x, t, weight=w, reduction=r), X, PROBS, CLASS_W),
        "probs+weight+smoothing": (lambda F, L, x, t, w: F.cross_entropy(x, t, weight=w, label_smoothing=0.3,
                                                                          reduction=r), X, PROBS, CLASS_W),
        "3d": (lambda F, L, x, t: F.cross_entropy(x, t, reduction=r), X3, T3),
        "3d+weight+smoothing": (lambda F, L, x, t, w: F.cross_entropy(x, t, weight=w, label_smoothing=0.1,
                                                                       reduction=r), X3, T3, CLASS_W),
        "unbatched": (lambda F, L, x, t: F.cross_entropy(x, t, reduction=r), X[0], np.array(2)),
    }
    fn, *arrays = calls[case]
    compare(fn, *arrays)


def test_cross_entropy_module_matches_functional():
    x, t = tensorlib.tensor(X), tensorlib.tensor(TARGET_IGNORED)
    w = tensorlib.tensor(CLASS_W)
    module = nn.CrossEntropyLoss(weight=w, label_smoothing=0.1, reduction="sum")
    assert module.weight is w and [n for n, _ in module.named_buffers()] == ["weight"]
    np.testing.assert_allclose(module(x, t).numpy(),
                               F.cross_entropy(x, t, weight=w, label_smoothing=0.1, reduction="sum").numpy())
    tm = torch.nn.CrossEntropyLoss(weight=torch.tensor(CLASS_W), label_smoothing=0.1, reduction="sum")
    np.testing.assert_allclose(module(x, t).numpy(), tm(torch.tensor(X), torch.tensor(TARGET_IGNORED)).numpy())


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_nll_loss(reduction):
    compare(lambda F, L, x, t: F.nll_loss(F.log_softmax(x, 1), t, reduction=reduction), X, TARGET_IGNORED)
    compare(lambda F, L, x, t, w: F.nll_loss(x, t, weight=w, reduction=reduction), X, TARGET, CLASS_W)
    compare(lambda F, L, x, t: F.nll_loss(x, t, reduction=reduction), X3, T3)
    compare(lambda F, L, x, t: nn.NLLLoss(ignore_index=1, reduction=reduction)(x, t) if L is tensorlib
            else torch.nn.NLLLoss(ignore_index=1, reduction=reduction)(x, t), X, TARGET)


def test_nll_loss_all_ignored_mean_is_nan_like_torch():
    compare(lambda F, L, x, t: F.nll_loss(x, t), X, np.full(4, -100))


@pytest.mark.parametrize(
    "call, arrays",
    [
        (lambda F, L, x, t: F.cross_entropy(x, t), (X, np.array([0, 7, 1, 1]))),  # class out of range
        (lambda F, L, x, t: F.cross_entropy(x, t), (X, np.array([0, 1]))),  # batch size
        (lambda F, L, x, t: F.cross_entropy(x, t), (X, PROBS[:2])),  # float target of another shape
        (lambda F, L, x, t: F.cross_entropy(x, t), (X, _rng.random((4, 3)))),
        (lambda F, L, x, t: F.nll_loss(x, t), (X, np.array([0.0, 1.0, 2.0, 3.0]))),  # float class target
        (lambda F, L, x, t: F.nll_loss(x, t), (X, np.array([0, 1, 2, 3], dtype=np.int32))),
        (lambda F, L, x, t: F.nll_loss(x, t), (X3, np.zeros((2, 5), dtype=np.int64))),
        (lambda F, L, x, t: F.nll_loss(x, t), (X[0], np.array([0, 1]))),
        (lambda F, L, x, t: F.cross_entropy(x, t, reduction="avg"), (X, TARGET)),
        (lambda F, L, x, t: F.binary_cross_entropy(x, t), (X, PROBS)),  # input outside [0, 1]
        (lambda F, L, x, t: F.binary_cross_entropy(x, t), (PROBS, PROBS[:2])),
        (lambda F, L, x, t: F.binary_cross_entropy_with_logits(x, t), (X, PROBS[:2])),
        (lambda F, L, x, t: F.cross_entropy(x, t), (X, np.ones((4, 5), dtype=np.int64))),
    ],
)
def test_loss_errors_match_torch(call, arrays):
    same_error(call, *arrays)


def test_loss_error_messages():
    assert same_error(lambda F, L, x, t: F.cross_entropy(x, t), X, np.array([0, 7, 1, 1])) == "Target 7 is out of bounds."
    assert "Expected input batch_size (4) to match target batch_size (2)" in same_error(
        lambda F, L, x, t: F.cross_entropy(x, t), X, np.array([0, 1]))
    assert "avg is not a valid value for reduction" in same_error(
        lambda F, L, x, t: F.cross_entropy(x, t, reduction="avg"), X, TARGET)
    assert "expected target dtype to be Long or Byte, but got Double" in same_error(
        lambda F, L, x, t: F.nll_loss(x, t), X, np.array([0.0, 1.0, 2.0, 3.0]))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_regression_losses(reduction):
    r = reduction
    compare(lambda F, L, x, y: F.mse_loss(x, y, reduction=r), X, Y2, differentiable=(0, 1))
    compare(lambda F, L, x, y: F.l1_loss(x, y, reduction=r), X, Y2, differentiable=(0, 1))
    compare(lambda F, L, x, y: F.smooth_l1_loss(x, y, reduction=r, beta=0.5), X, Y2, differentiable=(0, 1))
    compare(lambda F, L, x, y: F.huber_loss(x, y, reduction=r, delta=0.7), X, Y2, differentiable=(0, 1))


def test_mse_loss_broadcast_warns_like_torch():
    with pytest.warns(UserWarning, match="different to the input size"):
        F.mse_loss(tensorlib.tensor(X), tensorlib.tensor(X[:1, :1]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compare(lambda F, L, x, y: F.mse_loss(x, y), X, X[:1, :1])


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_binary_cross_entropy(reduction):
    r = reduction
    compare(lambda F, L, p, y: F.binary_cross_entropy(p, y, reduction=r), P01, Y01)
    compare(lambda F, L, p, y, w: F.binary_cross_entropy(p, y, weight=w, reduction=r), P01, Y01, _rng.random(5))
    compare(lambda F, L, p, y: F.binary_cross_entropy(p, y, reduction=r), np.array([0.0, 1.0, 0.5]),
            np.array([1.0, 0.0, 1.0]), differentiable=())  # log clamped at -100, as torch


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_binary_cross_entropy_with_logits(reduction):
    r = reduction
    compare(lambda F, L, x, y: F.binary_cross_entropy_with_logits(x, y, reduction=r), X * 10, Y01)
    compare(lambda F, L, x, y, pw: F.binary_cross_entropy_with_logits(x, y, pos_weight=pw, reduction=r), X, Y01,
            _rng.random(5) * 3)
    compare(lambda F, L, x, y, w: F.binary_cross_entropy_with_logits(x, y, weight=w, reduction=r), X, PROBS,
            _rng.random(5))
    compare(lambda F, L, x, y: F.binary_cross_entropy_with_logits(x, y, reduction=r), np.array([-800.0, 800.0]),
            np.array([1.0, 0.0]))  # stable for huge logits


@pytest.mark.parametrize("reduction", REDUCTIONS + ["batchmean"])
def test_kl_div(reduction):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compare(lambda F, L, x, y: F.kl_div(F.log_softmax(x, 1), y, reduction=reduction), X, PROBS)
        compare(lambda F, L, x, y: F.kl_div(x, y, reduction=reduction, log_target=True), X, np.log(PROBS),
                differentiable=(0, 1))


def test_kl_div_mean_warns():
    with pytest.warns(UserWarning, match="batchmean"):
        F.kl_div(tensorlib.tensor(X), tensorlib.tensor(PROBS))


@pytest.mark.parametrize(
    "module, args",
    [("MSELoss", ()), ("L1Loss", ()), ("SmoothL1Loss", ()), ("HuberLoss", ()), ("BCELoss", ()),
     ("BCEWithLogitsLoss", ()), ("MSELoss", (None, None, "sum")), ("L1Loss", (None, False))],
)
@pytest.mark.filterwarnings("ignore:size_average and reduce args will be deprecated")
def test_loss_modules(module, args):
    x = P01 if module == "BCELoss" else X
    compare(lambda F, L, a, b: getattr(L.nn, module)(*args)(a, b), x, Y01)


@pytest.mark.filterwarnings("ignore:size_average and reduce args will be deprecated")
def test_legacy_size_average_and_reduce():
    with pytest.warns(UserWarning, match="please use reduction='sum' instead"):
        F.mse_loss(tensorlib.tensor(X), tensorlib.tensor(Y2), size_average=False)
    compare(lambda F, L, a, b: F.mse_loss(a, b, size_average=False), X, Y2)
    compare(lambda F, L, a, b: F.mse_loss(a, b, reduce=False), X, Y2)
    compare(lambda F, L, a, t: F.nll_loss(a, t, size_average=False), X, TARGET)


# -- other functional ---------------------------------------------------------------------------------


def test_misc_functional():
    compare(lambda F, L, x: F.normalize(x, dim=1), X)
    compare(lambda F, L, x: F.normalize(x, p=1, dim=0), X)
    compare(lambda F, L, x, y: F.cosine_similarity(x, y), X, Y2, differentiable=(0, 1))
    compare(lambda F, L, x, y: F.pairwise_distance(x, y), X, Y2, differentiable=(0, 1))
    compare(lambda F, L, x, w, b: F.layer_norm(x, (5,), w, b), X, _rng.standard_normal(5), _rng.standard_normal(5),
            differentiable=(0, 1, 2))
    compare(lambda F, L, x: F.layer_norm(x, (5, 3)), X3)
    compare(lambda F, L, x: F.pad(x, (1, 2)), X)
    compare(lambda F, L, x: F.pad(x, (1, 2, 0, 1), value=3.0), X)
    compare(lambda F, L, x: F.pad(x, (2, 1), mode="reflect"), _rng.standard_normal((1, 2, 5)))
    compare(lambda F, L, x: F.pad(x, (2, 3), mode="replicate"), _rng.standard_normal((1, 2, 5)))
    compare(lambda F, L, x: F.pad(x, (-1, 2)), X)
    compare(lambda F, L, x: F.dropout(x, 0.5, training=False), X)
    compare(lambda F, L, i: F.one_hot(i, 6), np.array([0, 3, 1, 5]))
    compare(lambda F, L, i: F.one_hot(i), np.array([[0, 3], [1, 2]]))


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"padding_idx": 2}, {"scale_grad_by_freq": True}, {"padding_idx": 0, "scale_grad_by_freq": True},
     {"max_norm": 1.0}, {"max_norm": 0.5, "norm_type": 1.0}],
    ids=str,
)
def test_embedding(kwargs):
    weights = _rng.standard_normal((6, 4))
    idx = np.array([[0, 2, 2], [5, 0, 2]])
    w = tensorlib.tensor(weights.copy(), requires_grad=True)
    tw = torch.tensor(weights.copy(), requires_grad=True)
    out = F.embedding(tensorlib.tensor(idx), w, **kwargs)
    tout = TF.embedding(torch.tensor(idx), tw, **kwargs)
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy())
    g = _rng.standard_normal(out.shape)
    out.backward(tensorlib.tensor(g))
    tout.backward(torch.tensor(g))
    np.testing.assert_allclose(w.grad.numpy(), tw.grad.numpy())
    np.testing.assert_allclose(w.detach().numpy(), tw.detach().numpy())  # max_norm renormalises in place


def test_embedding_module_and_errors():
    e = nn.Embedding(5, 3, padding_idx=1)
    assert np.all(e.weight[1].detach().numpy() == 0)
    assert e(tensorlib.tensor([[1, 4]])).shape == (1, 2, 3)
    same_error(lambda F, L, i, w: F.embedding(i, w), np.array([0.0, 1.0]), _rng.standard_normal((3, 2)))
    with pytest.raises(IndexError):
        e(tensorlib.tensor([7]))


def test_dropout_training_statistics_and_errors():
    x = tensorlib.ones(20000, dtype=tensorlib.float64)
    out = F.dropout(x, 0.25)
    kept = out.numpy() != 0
    assert abs(kept.mean() - 0.75) < 0.02
    np.testing.assert_allclose(out.numpy()[kept], 1 / 0.75)
    assert np.all(F.dropout(x, 1.0).numpy() == 0)
    assert F.dropout(x, 0.0) is x
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1"):
        F.dropout(x, 1.5)
    with pytest.raises(ValueError, match="dropout probability"):
        nn.Dropout(-0.1)


def test_activation_modules_match_functional():
    x = tensorlib.tensor(X)
    tx = torch.tensor(X)
    for name, args in [("ReLU", ()), ("Sigmoid", ()), ("Tanh", ()), ("Softmax", (1,)), ("LogSoftmax", (1,)),
                       ("LeakyReLU", (0.3,)), ("GELU", ()), ("ELU", ()), ("Softplus", ()), ("Hardtanh", ())]:
        np.testing.assert_allclose(getattr(nn, name)(*args)(x).numpy(), getattr(torch.nn, name)(*args)(tx).numpy(),
                                   rtol=1e-7, atol=1e-9)


def test_small_mlp_training_step_matches_torch():
    rng = np.random.default_rng(5)
    xs = rng.standard_normal((8, 6)).astype(np.float32)
    ys = rng.integers(0, 3, 8)

    def build(lib):
        return lib.nn.Sequential(lib.nn.Linear(6, 16), lib.nn.ReLU(), lib.nn.Linear(16, 3))

    ours, theirs = build(tensorlib), build(torch)
    ours.load_state_dict({k: tensorlib.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})
    loss = tensorlib.nn.CrossEntropyLoss()(ours(tensorlib.tensor(xs)), tensorlib.tensor(ys))
    tloss = torch.nn.CrossEntropyLoss()(theirs(torch.tensor(xs)), torch.tensor(ys))
    loss.backward()
    tloss.backward()
    np.testing.assert_allclose(loss.item(), tloss.item(), rtol=1e-5)
    for (n, p), (_, tp) in zip(ours.named_parameters(), theirs.named_parameters()):
        np.testing.assert_allclose(p.grad.numpy(), tp.grad.numpy(), rtol=1e-4, atol=1e-6, err_msg=n)
