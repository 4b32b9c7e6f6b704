"""torch's top-level forms of layers and losses (``tensorlib.dropout``, ``tensorlib.kl_div``, ...): what the op table
(tests/ops/tables/nn.py) cannot check. The dropouts' statistics and in-place forms, integer reductions and their
default, the embedding's gradients, the signatures, and the cell layers calling the step functions through ``_VF``."""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest

import tensorlib
from tests.nn.compare import compare, same_message

RNG = np.random.default_rng(61)
X = RNG.standard_normal((4, 5))


# -- dropout, feature_dropout, alpha_dropout, feature_alpha_dropout and their in-place forms ---------------------------


@pytest.mark.parametrize("name", ["dropout", "feature_dropout", "alpha_dropout", "feature_alpha_dropout"])
def test_dropouts_return_their_input_when_not_training(name):
    x = tensorlib.tensor(X)
    assert getattr(tensorlib, name)(x, 0.5, False) is x
    assert getattr(tensorlib, name + "_")(x, 0.5, False) is x
    assert getattr(tensorlib, name)(x, 0.0, True) is x


@pytest.mark.parametrize("name", ["dropout", "feature_dropout", "alpha_dropout", "feature_alpha_dropout"])
def test_dropouts_refuse_probabilities_outside_zero_one(name):
    for p, train in ((1.5, True), (-0.1, False)):
        same_message(lambda lib, x: getattr(lib, name)(x, p, train), X)
        same_message(lambda lib, x: getattr(lib, name + "_")(x * 1, p, train), X)


@pytest.mark.parametrize("name", ["feature_dropout", "feature_alpha_dropout"])
def test_feature_dropouts_need_two_dims(name):
    same_message(lambda lib, x: getattr(lib, name)(x, 0.5, True), X[0])
    x = tensorlib.tensor(X[0])
    assert getattr(tensorlib, name)(x, 0.5, False) is x  # checked only when dropping


def test_dropout_statistics_and_gradient():
    x = tensorlib.ones(200, 100, dtype=tensorlib.float64, requires_grad=True)
    out = tensorlib.dropout(x, 0.3, True)
    kept = out.detach().numpy() != 0
    assert abs(kept.mean() - 0.7) < 0.01
    np.testing.assert_allclose(out.detach().numpy()[kept], 1 / 0.7)
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), out.detach().numpy())  # the mask, scaled
    assert (tensorlib.dropout(x, 1.0, True).detach().numpy() == 0).all()
    channels = tensorlib.feature_dropout(tensorlib.ones(300, 40, 6, dtype=tensorlib.float64), 0.5, True).numpy()
    assert ((channels == 0).all(-1) | (channels == 2).all(-1)).all()  # whole channels
    assert abs((channels[..., 0] == 0).mean() - 0.5) < 0.02


def test_alpha_dropouts_keep_mean_and_variance():
    x = tensorlib.tensor(RNG.standard_normal((400, 250)))
    out = tensorlib.alpha_dropout(x, 0.2, True).numpy()
    assert abs(out.mean()) < 0.02 and abs(out.std() - 1) < 0.02
    feat = tensorlib.feature_alpha_dropout(tensorlib.tensor(RNG.standard_normal((400, 250, 3))), 0.2, True).numpy()
    assert abs(feat.mean()) < 0.02 and abs(feat.std() - 1) < 0.03
    dropped = np.isclose(feat, feat[..., :1]).all(-1)  # a dropped channel is one constant
    assert abs(dropped.mean() - 0.2) < 0.02


@pytest.mark.parametrize("name", ["dropout_", "feature_dropout_", "alpha_dropout_", "feature_alpha_dropout_"])
def test_inplace_dropouts_write_their_input(name):
    x = tensorlib.tensor(RNG.standard_normal((50, 40, 2)))
    version = x._version
    assert getattr(tensorlib, name)(x, 0.5, True) is x
    assert x._version > version
    leaf = tensorlib.ones(3, 4, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        getattr(tensorlib, name)(leaf, 0.5, True)


# -- integer reductions -----------------------------------------------------------------------------------------------

Y = RNG.random((4, 5))
SIGNS = np.sign(RNG.standard_normal((4, 5)))
T4 = np.array([1.0, -1.0, 1.0, -1.0])

LOSSES = {
    "binary_cross_entropy_with_logits": lambda lib, r: lib.binary_cross_entropy_with_logits(
        lib.tensor(X, requires_grad=True), lib.tensor(Y), *(() if r is None else (None, None, r))),
    "kl_div": lambda lib, r: lib.kl_div(lib.tensor(X, requires_grad=True), lib.tensor(Y), *(() if r is None else (r,))),
    "cosine_embedding_loss": lambda lib, r: lib.cosine_embedding_loss(
        lib.tensor(X, requires_grad=True), lib.tensor(Y), lib.tensor(T4), *(() if r is None else (0.1, r))),
    "hinge_embedding_loss": lambda lib, r: lib.hinge_embedding_loss(
        lib.tensor(X, requires_grad=True), lib.tensor(SIGNS), *(() if r is None else (1.0, r))),
    "margin_ranking_loss": lambda lib, r: lib.margin_ranking_loss(
        lib.tensor(X[0], requires_grad=True), lib.tensor(Y[0]), lib.tensor(SIGNS[0]), *(() if r is None else (0.2, r))),
    "triplet_margin_loss": lambda lib, r: lib.triplet_margin_loss(
        lib.tensor(X, requires_grad=True), lib.tensor(Y), lib.tensor(Y[::-1].copy()),
        *(() if r is None else (1.0, 2.0, 1e-6, False, r))),
    "poisson_nll_loss": lambda lib, r: lib.poisson_nll_loss(lib.tensor(X, requires_grad=True), lib.tensor(Y), True,
                                                            False, 1e-8, 1 if r is None else r),
}


@pytest.mark.parametrize("reduction", [None, 0, 1, 2, 3, -1])
@pytest.mark.parametrize("name", sorted(LOSSES))
def test_integer_reductions_as_torch(name, reduction):
    # 0 none, 1 mean, 2 sum, anything else none; omitted, none (torch documents 1 but passes 0)
    torch = pytest.importorskip("torch")
    ours, theirs = LOSSES[name](tensorlib, reduction), LOSSES[name](torch, reduction)
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-7)


def test_kl_div_mean_does_not_warn_at_the_top_level():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tensorlib.kl_div(tensorlib.tensor(X), tensorlib.tensor(Y), 1)


def test_reductions_are_integers():
    with pytest.raises(TypeError):
        tensorlib.margin_ranking_loss(tensorlib.tensor(X[0]), tensorlib.tensor(Y[0]), tensorlib.tensor(SIGNS[0]),
                                      0.0, "sum")


# -- embeddings -------------------------------------------------------------------------------------------------------

WE = RNG.standard_normal((6, 3))


@pytest.mark.parametrize("padding_idx, scale_grad_by_freq", [(-1, False), (2, False), (0, True), (-3, True)])
def test_embedding_gradients_as_torch(padding_idx, scale_grad_by_freq):
    # a negative padding_idx is no padding at the top level; a padding row gets no gradient
    compare(lambda lib, w, i: lib.embedding(w, i, padding_idx, scale_grad_by_freq), WE,
            np.array([[0, 2, 2], [5, 0, 2]]))


def test_embedding_errors():
    same_message(lambda lib, w, i: lib.embedding(w, i), WE, np.array([0.0, 1.0]))


# -- normalisations ----------------------------------------------------------------------------------------------------


def test_batch_norm_updates_running_statistics_as_torch():
    def run(lib, x, w, b):
        mean, var = lib.zeros(5, dtype=lib.float64), lib.ones(5, dtype=lib.float64)
        out = lib.batch_norm(x, w, b, mean, var, True, 0.3, 1e-5, True)
        return out, mean, var

    compare(run, X, RNG.standard_normal(5), RNG.standard_normal(5), differentiable=(0, 1, 2))

    def run_instance(lib, x):
        mean, var = lib.zeros(4, dtype=lib.float64), lib.ones(4, dtype=lib.float64)
        out = lib.instance_norm(x, None, None, mean, var, True, 0.2, 1e-5, False)
        return out, mean, var

    compare(run_instance, RNG.standard_normal((2, 4, 5)))


def test_layer_norm_takes_a_sequence():
    same_message(lambda lib, x: lib.layer_norm(x, 5), X)
    compare(lambda lib, x: lib.layer_norm(x, lib.Size([5]) if lib is tensorlib else (5,)), X)


# -- signatures and methods --------------------------------------------------------------------------------------------

SIGNATURES = {
    "dropout": "(input, p, train)",
    "batch_norm": "(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled)",
    "instance_norm": "(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, cudnn_enabled)",
    "layer_norm": "(input, normalized_shape, weight=None, bias=None, eps=1e-05, cudnn_enable=True)",
    "group_norm": "(input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True)",
    "kl_div": "(input, target, reduction=0, *, log_target=False)",
    "embedding": "(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False)",
    "embedding_bag": "(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False, "
                     "per_sample_weights=None, include_last_offset=False, padding_idx=None)",
    "poisson_nll_loss": "(input, target, log_input, full, eps, reduction)",
    "max_pool2d": "(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False)",
    "threshold": "(input, threshold, value, *, out=None)",
    "rrelu": "(input, lower=0.125, upper=0.3333333333333333, training=False, generator=None)",
    "ctc_loss": "(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=0, zero_infinity=False)",
    "gelu": "(input, *, approximate='none', out=None)",
    "lstm_cell": "(input, hx, w_ih, w_hh, b_ih=None, b_hh=None)",
}


@pytest.mark.parametrize("name", sorted(SIGNATURES))
def test_top_level_signatures_are_torch_s(name):
    sig = inspect.signature(getattr(tensorlib, name))
    assert str(sig.replace(parameters=[p.replace(annotation=p.empty) for p in sig.parameters.values()],
                           return_annotation=sig.empty)) == SIGNATURES[name]


def test_tensor_methods_hardshrink_and_prelu():
    x = tensorlib.tensor(X)
    assert tensorlib.equal(x.hardshrink(0.7), tensorlib.hardshrink(x, 0.7))
    w = tensorlib.tensor([0.25], dtype=x.dtype)  # torch refuses a weight of another dtype
    assert tensorlib.equal(x.prelu(w), tensorlib.nn.functional.prelu(x, w))


class _Recorder(tensorlib.overrides.TorchFunctionMode):
    def __init__(self, calls):
        super().__init__()
        self.calls = calls

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.calls.append(getattr(func, "__name__", ""))
        return func(*args, **(kwargs or {}))


def test_cell_layers_call_the_step_functions_through_vf():
    calls = []
    with _Recorder(calls):
        tensorlib.nn.RNNCell(3, 4)(tensorlib.randn(2, 3))
        tensorlib.nn.RNNCell(3, 4, nonlinearity="relu")(tensorlib.randn(3))
        tensorlib.nn.GRUCell(3, 4)(tensorlib.randn(2, 3))
        tensorlib.nn.LSTMCell(3, 4)(tensorlib.randn(2, 3))
    assert {"rnn_tanh_cell", "rnn_relu_cell", "gru_cell", "lstm_cell"} <= set(calls)
    assert tensorlib._VF.gru_cell is tensorlib.gru_cell


@pytest.mark.parametrize("shapes", [((4, 3), (3, 2), (5, 3, 2), None), ((4, 3), (4, 2, 1), (5, 3, 2), None),
                                    ((4, 4), (4, 2), (5, 3, 2), None), ((4, 3), (4, 3), (5, 3, 2), None),
                                    ((4, 3), (4, 2), (5, 3, 2), (4,)), ((4, 3), (4, 2), (3, 2), None)])
def test_bilinear_errors(shapes):
    arrays = [RNG.standard_normal(s) for s in shapes if s is not None]
    same_message(lambda lib, *ts: lib.bilinear(*ts), *arrays)


def test_bilinear_batch_dims():
    compare(lambda lib, a, b, w, c: lib.nn.functional.bilinear(a, b, w, c), RNG.standard_normal((2, 3, 4)),
            RNG.standard_normal((2, 3, 2)), RNG.standard_normal((5, 4, 2)), RNG.standard_normal(5),
            differentiable=(0, 1, 2, 3))
    compare(lambda lib, a, b, w: lib.bilinear(a, b, w), RNG.standard_normal(4), RNG.standard_normal(2),
            RNG.standard_normal((5, 4, 2)), differentiable=(0, 1, 2))
