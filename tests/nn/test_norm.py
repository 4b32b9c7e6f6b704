"""Batch, instance, group and local response normalisation; channel-wise and alpha dropout."""

from __future__ import annotations

import numpy as np
import pytest

import tensorlib
import tensorlib.nn.functional as F
from tensorlib.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(11)


def leaf(*shape):
    return tensorlib.tensor(RNG.standard_normal(shape), dtype=tensorlib.float64, requires_grad=True)


def _pair(torch, a):
    return torch.tensor(a, requires_grad=True), tensorlib.tensor(a, requires_grad=True)


@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 5), (2, 3, 4, 2), (2, 3, 2, 2, 2)])
@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("affine", [True, False])
def test_batch_norm_matches_torch(shape, training, affine):
    torch = pytest.importorskip("torch")
    a = RNG.standard_normal(shape) * 2 + 1
    c = shape[1]
    rm, rv = RNG.standard_normal(c), RNG.random(c) + 0.5
    w, b = RNG.standard_normal(c), RNG.standard_normal(c)
    tx, lx = _pair(torch, a)
    trm, trv, lrm, lrv = torch.tensor(rm), torch.tensor(rv), tensorlib.tensor(rm), tensorlib.tensor(rv)
    tw, lw = _pair(torch, w) if affine else (None, None)
    tb, lb = _pair(torch, b) if affine else (None, None)
    expected = torch.nn.functional.batch_norm(tx, trm, trv, tw, tb, training, 0.3, 1e-3)
    got = F.batch_norm(lx, lrm, lrv, lw, lb, training, 0.3, 1e-3)
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), atol=1e-10)
    np.testing.assert_allclose(lrm.numpy(), trm.numpy(), atol=1e-12)
    np.testing.assert_allclose(lrv.numpy(), trv.numpy(), atol=1e-12)
    g = RNG.standard_normal(shape)
    expected.backward(torch.tensor(g))
    got.backward(tensorlib.tensor(g))
    for t, l in ((tx, lx), (tw, lw), (tb, lb)):
        if t is not None:
            np.testing.assert_allclose(l.grad.numpy(), t.grad.numpy(), atol=1e-9)


@pytest.mark.parametrize("use_input_stats", [True, False])
def test_instance_norm_matches_torch(use_input_stats):
    torch = pytest.importorskip("torch")
    a = RNG.standard_normal((3, 2, 4, 5))
    rm, rv, w, b = RNG.standard_normal(2), RNG.random(2) + 0.5, RNG.standard_normal(2), RNG.standard_normal(2)
    t_stats, l_stats = [torch.tensor(v) for v in (rm, rv)], [tensorlib.tensor(v) for v in (rm, rv)]
    expected = torch.nn.functional.instance_norm(torch.tensor(a), *t_stats, torch.tensor(w), torch.tensor(b),
                                                 use_input_stats, 0.2, 1e-4)
    got = F.instance_norm(tensorlib.tensor(a), *l_stats, tensorlib.tensor(w), tensorlib.tensor(b), use_input_stats, 0.2,
                          1e-4)
    np.testing.assert_allclose(got.numpy(), expected.numpy(), atol=1e-10)
    for t, l in zip(t_stats, l_stats):
        np.testing.assert_allclose(l.numpy(), t.numpy(), atol=1e-12)
    np.testing.assert_allclose(F.instance_norm(tensorlib.tensor(a)).numpy(),
                               torch.nn.functional.instance_norm(torch.tensor(a)).numpy(), atol=1e-10)


@pytest.mark.parametrize("shape,groups", [((2, 6, 3), 3), ((2, 4, 2, 3), 1), ((3, 4), 4), ((1, 4, 2, 1, 2), 2)])
def test_group_norm_matches_torch(shape, groups):
    torch = pytest.importorskip("torch")
    a, w, b = RNG.standard_normal(shape), RNG.standard_normal(shape[1]), RNG.standard_normal(shape[1])
    expected = torch.nn.functional.group_norm(torch.tensor(a), groups, torch.tensor(w), torch.tensor(b), 1e-3)
    got = F.group_norm(tensorlib.tensor(a), groups, tensorlib.tensor(w), tensorlib.tensor(b), 1e-3)
    np.testing.assert_allclose(got.numpy(), expected.numpy(), atol=1e-10)


@pytest.mark.parametrize("shape,size", [((2, 5, 3), 2), ((2, 6, 2, 3), 3), ((1, 4, 2, 2, 2), 5), ((2, 3, 4), 1)])
def test_local_response_norm_matches_torch(shape, size):
    torch = pytest.importorskip("torch")
    a = RNG.standard_normal(shape)
    expected = torch.nn.functional.local_response_norm(torch.tensor(a), size, 0.3, 0.6, 1.5)
    got = F.local_response_norm(tensorlib.tensor(a), size, 0.3, 0.6, 1.5)
    np.testing.assert_allclose(got.numpy(), expected.numpy(), atol=1e-12)


GRAD_CASES = [
    (lambda x, w, b: F.batch_norm(x, None, None, w, b, True), (3, 2), True),
    (lambda x, w, b: F.batch_norm(x, None, None, w, b, True, eps=0.1), (2, 2, 2), True),
    (lambda x, w, b: F.batch_norm(x, tensorlib.zeros(2, dtype=tensorlib.float64),
                                  tensorlib.ones(2, dtype=tensorlib.float64), w, b), (2, 2, 2), True),
    (lambda x, w, b: F.instance_norm(x, weight=w, bias=b), (2, 2, 3), True),
    (lambda x, w, b: F.group_norm(x, 2, w, b), (1, 2, 3), True),
    (lambda x: F.group_norm(x, 1), (2, 2, 2), False),
    (lambda x: F.local_response_norm(x, 2, 0.5, 0.75, 1.0), (1, 3, 2), False),
]


@pytest.mark.parametrize("i", range(len(GRAD_CASES)))
def test_norm_gradcheck_and_gradgradcheck(i):
    fn, shape, affine = GRAD_CASES[i]
    inputs = (leaf(*shape), leaf(shape[1]), leaf(shape[1])) if affine else (leaf(*shape),)
    assert gradcheck(fn, inputs)
    assert gradgradcheck(fn, inputs)


def test_batch_norm_normalises_and_updates_running_stats():
    x = tensorlib.tensor([[1.0, 10.0], [3.0, 20.0]])
    rm, rv = tensorlib.zeros(2), tensorlib.ones(2)
    out = F.batch_norm(x, rm, rv, training=True, momentum=0.5, eps=0.0)
    np.testing.assert_allclose(out.numpy(), [[-1, -1], [1, 1]], atol=1e-6)
    np.testing.assert_allclose(rm.numpy(), [1.0, 7.5])
    np.testing.assert_allclose(rv.numpy(), [0.5 + 0.5 * 2.0, 0.5 + 0.5 * 50.0])
    assert rm._version_value > 0


def test_dropout_channels_are_zeroed_together():
    tensorlib.manual_seed(3)
    x = tensorlib.ones(8, 16, 3, 4)
    out = F.dropout2d(x, 0.5)
    a = out.numpy()
    per_channel = a.reshape(8, 16, -1)
    assert np.all((per_channel == 0).all(-1) | (per_channel == 2).all(-1))
    assert 0 < (per_channel[..., 0] == 0).mean() < 1
    assert F.dropout2d(x, 0.5, training=False) is x
    assert F.dropout3d(tensorlib.ones(2, 3, 2, 2, 2), 1.0).numpy().sum() == 0
    out1 = F.dropout1d(tensorlib.ones(4, 5), 0.5).numpy()  # unbatched (C, L): one draw per channel
    assert np.all((out1 == 0).all(-1) | (out1 == 2).all(-1))


def test_dropout_inplace_and_gradient():
    tensorlib.manual_seed(0)
    x = tensorlib.ones(4, 6, 3)
    y = F.dropout1d(x, 0.5, inplace=True)
    assert y is x and set(np.unique(x.numpy())) <= {0.0, 2.0}
    w = tensorlib.ones(2, 4, 3, requires_grad=True)
    out = F.dropout1d(w, 0.25)
    out.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), out.detach().numpy())


def test_alpha_dropout_keeps_mean_and_variance():
    tensorlib.manual_seed(0)
    x = tensorlib.randn(200000, dtype=tensorlib.float64)
    out = F.alpha_dropout(x, 0.2, training=True).numpy()
    assert abs(out.mean()) < 0.02 and abs(out.std() - 1) < 0.02
    assert F.alpha_dropout(x, 0.2) is x
    feat = F.feature_alpha_dropout(tensorlib.zeros(3, 50, 4), 0.5, training=True).numpy()
    assert np.all(feat.min(-1) == feat.max(-1))


def test_dropout2d_warns_for_other_ranks():
    with pytest.warns(UserWarning, match="Received a 3D input to dropout2d"):
        F.dropout2d(tensorlib.ones(2, 3, 4))
    with pytest.warns(UserWarning, match="Received a 2-D input to dropout2d"):
        F.dropout2d(tensorlib.ones(2, 3))
    with pytest.warns(UserWarning, match="Received a 3-D input to dropout3d"):
        F.dropout3d(tensorlib.ones(2, 3, 4))


def Z(lib, *shape):
    return lib.zeros(*shape)


ERRORS = [
    (lambda L, F: F.batch_norm(Z(L, 2, 3, 5), None, None, training=False), RuntimeError),
    (lambda L, F: F.batch_norm(Z(L, 2, 3, 5), Z(L, 4), Z(L, 3)), RuntimeError),
    (lambda L, F: F.batch_norm(Z(L, 2, 3, 5), Z(L, 3), Z(L, 4)), RuntimeError),
    (lambda L, F: F.batch_norm(Z(L, 2, 3, 5), Z(L, 3), Z(L, 3), weight=Z(L, 4)), RuntimeError),
    (lambda L, F: F.batch_norm(Z(L, 1, 3, 1, 1), Z(L, 3), Z(L, 3), training=True), ValueError),
    (lambda L, F: F.batch_norm(Z(L, 5), None, None, training=True), IndexError),
    (lambda L, F: F.instance_norm(Z(L, 2, 3, 1, 1)), ValueError),
    (lambda L, F: F.group_norm(Z(L, 2, 3, 5), 2), RuntimeError),
    (lambda L, F: F.group_norm(Z(L, 2, 3, 5), 3, Z(L, 4)), RuntimeError),
    (lambda L, F: F.group_norm(Z(L, 2, 3, 5), 3, None, Z(L, 2)), RuntimeError),
    (lambda L, F: F.group_norm(Z(L, 5), 1), RuntimeError),
    (lambda L, F: F.local_response_norm(Z(L, 5, 5), 2), ValueError),
    (lambda L, F: F.dropout1d(Z(L, 2, 3, 5, 5), 0.5), RuntimeError),
    (lambda L, F: F.dropout2d(Z(L, 2, 3, 5, 5), 1.5), ValueError),
    (lambda L, F: F.alpha_dropout(Z(L, 2, 3), -0.1), ValueError),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_norm_errors(i):
    call, etype = ERRORS[i]
    with pytest.raises(etype):
        call(tensorlib, F)


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_norm_error_messages_match_torch(i):
    torch = pytest.importorskip("torch")
    call, etype = ERRORS[i]
    with pytest.raises(etype) as expected:
        call(torch, torch.nn.functional)
    with pytest.raises(etype) as got:
        call(tensorlib, F)
    assert str(got.value) == str(expected.value).replace("torch.", "tensorlib.")


def test_normalising_an_empty_input_gives_an_empty_copy_and_zero_parameter_gradients():
    x = tensorlib.zeros(0, 3, 4, requires_grad=True)
    weight, bias = tensorlib.ones(3, requires_grad=True), tensorlib.zeros(3, requires_grad=True)
    for y in (F.batch_norm(x, None, None, weight, bias, training=True),
              F.instance_norm(tensorlib.zeros(2, 0, 4), weight=weight, bias=bias)):
        assert y.numel() == 0
    y = F.batch_norm(x, None, None, weight, bias, training=True)
    assert y.shape == x.shape and y.data_ptr() != x.data_ptr()
    y.sum().backward()
    assert weight.grad.tolist() == [0.0] * 3 and bias.grad.tolist() == [0.0] * 3 and x.grad.shape == x.shape


def test_complex_rms_norm_divides_by_the_root_of_the_mean_square():
    # the mean of the squares, not of the squared moduli, as torch's (holomorphic) definition
    z = tensorlib.tensor([1 + 1j, 2 - 1j, 1j], dtype=tensorlib.complex128)
    a = z.numpy()
    expected = a / np.sqrt(np.mean(a * a) + np.finfo(np.float64).eps)
    assert np.allclose(F.rms_norm(z, [3]).numpy(), expected)


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("which", ["all", "weight-only", "bias-only", "none", "input-fixed"])
def test_batch_norm_is_one_node_with_torchs_edges_and_gradients(training, which):
    # one NativeBatchNormBackward0 node with edges to (input, weight, bias), as torch records it; its gradients,
    # and the gradients of its gradients (create_graph), match torch's
    torch = pytest.importorskip("torch")
    shape, c = (4, 3, 5), 3
    a, w, b = RNG.standard_normal(shape), RNG.standard_normal(c), RNG.standard_normal(c)
    rm, rv = RNG.standard_normal(c), RNG.random(c) + 0.5

    def run(L, F_):
        x = L.tensor(a, requires_grad=which != "input-fixed")
        weight = L.tensor(w, requires_grad=True) if which in ("all", "weight-only", "input-fixed") else None
        bias = L.tensor(b, requires_grad=True) if which in ("all", "bias-only", "input-fixed") else None
        y = F_.batch_norm(x, L.tensor(rm), L.tensor(rv), weight, bias, training, 0.1, 1e-3)
        return _gradients_of_gradients(L, y, (x, weight, bias), skip_second=which == "bias-only" and L is torch)

    _assert_same_node_and_gradients(run(tensorlib, F), run(torch, torch.nn.functional), "NativeBatchNormBackward0")
    if which == "bias-only":  # ours, checked numerically (see _gradients_of_gradients)
        assert gradgradcheck(lambda x, b: F.batch_norm(x, tensorlib.tensor(rm), tensorlib.tensor(rv), None, b,
                                                       training, 0.1, 1e-3), (leaf(*shape), leaf(c)))


def _gradients_of_gradients(L, y, params, skip_second):
    """The node's name and edges, ``y``, the gradients of ``sum(y**3)`` and the gradients of their squares."""
    edges = [None if n is None else type(n).__name__ for n, _ in y.grad_fn.next_functions]
    inputs = [t for t in params if t is not None and t.requires_grad]
    grads = L.autograd.grad((y * y * y).sum(), inputs, create_graph=True)
    if skip_second:  # torch's double backward of a norm with a bias and no weight fails (an undefined tensor)
        second = None
    else:
        second = [None if g is None else g.numpy()
                  for g in L.autograd.grad(sum((g * g).sum() for g in grads), inputs, allow_unused=True)]
    return y.grad_fn.name(), edges, y.detach().numpy(), [g.detach().numpy() for g in grads], second


def _assert_same_node_and_gradients(ours, theirs, name):
    assert ours[0] == theirs[0] == name and ours[1] == theirs[1]
    np.testing.assert_allclose(ours[2], theirs[2], atol=1e-10)
    pairs = list(zip(ours[3], theirs[3])) + (list(zip(ours[4], theirs[4])) if theirs[4] is not None else [])
    for got, expected in pairs:
        if expected is None:
            assert got is None or not np.any(got)
        else:
            np.testing.assert_allclose(got, expected, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("norm", ["batch", "layer"])
def test_fused_norms_in_float32_match_torch_and_float16_takes_the_composed_path(norm):
    torch = pytest.importorskip("torch")
    a = (RNG.standard_normal((16, 8, 3)) * 3 + 2).astype(np.float32)
    g = RNG.standard_normal((16, 8, 3)).astype(np.float32)
    c = 8 if norm == "batch" else 3
    results = []
    for L, F_ in ((tensorlib, F), (torch, torch.nn.functional)):
        x = L.tensor(a, requires_grad=True)
        w, b = L.ones(c, requires_grad=True), L.zeros(c, requires_grad=True)
        rm, rv = L.zeros(c), L.ones(c)
        y = F_.batch_norm(x, rm, rv, w, b, True, 0.1, 1e-5) if norm == "batch" else F_.layer_norm(x, (c,), w, b)
        y.backward(L.tensor(g))
        results.append([t.detach().numpy() for t in (y, x.grad, w.grad, b.grad, rm, rv)])
    for ours, theirs in zip(*results):
        assert ours.dtype == np.float32
        np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-4)
    x16 = tensorlib.tensor(a).half().requires_grad_()
    half = F.batch_norm(x16, None, None, training=True) if norm == "batch" else F.layer_norm(x16, (c,))
    assert half.dtype is tensorlib.float16 and not half.grad_fn.name().startswith("Native")


def test_batch_norm_in_evaluation_saves_the_running_statistics_as_torch_does():
    # modified in place before backward: torch's "modified by an inplace operation" error; untouched, no copy
    torch = pytest.importorskip("torch")
    for L, F_ in ((tensorlib, F), (torch, torch.nn.functional)):
        x = L.ones(4, 2, requires_grad=True)
        rm, rv = L.zeros(2), L.ones(2)
        y = F_.batch_norm(x, rm, rv, training=False)
        rm.add_(1.0)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.sum().backward()
        # a training-mode forward updates the running statistics in place: its backward does not read them
        y = F_.batch_norm(x, rm, rv, training=True)
        F_.batch_norm(x, rm, rv, training=True)
        y.sum().backward()


@pytest.mark.parametrize("normalized", [(5,), (3, 5)])
@pytest.mark.parametrize("which", ["all", "weight-only", "bias-only", "none", "input-fixed"])
def test_layer_norm_is_one_node_with_torchs_edges_and_gradients(normalized, which):
    torch = pytest.importorskip("torch")
    shape = (2, 3, 5)
    a, w, b = RNG.standard_normal(shape), RNG.standard_normal(normalized), RNG.standard_normal(normalized)

    def run(L, F_):
        x = L.tensor(a, requires_grad=which != "input-fixed")
        weight = L.tensor(w, requires_grad=True) if which in ("all", "weight-only", "input-fixed") else None
        bias = L.tensor(b, requires_grad=True) if which in ("all", "bias-only", "input-fixed") else None
        y = F_.layer_norm(x, normalized, weight, bias, 1e-3)
        return _gradients_of_gradients(L, y, (x, weight, bias), skip_second=which == "bias-only" and L is torch)

    _assert_same_node_and_gradients(run(tensorlib, F), run(torch, torch.nn.functional), "NativeLayerNormBackward0")
    if which == "bias-only":
        assert gradgradcheck(lambda x, b: F.layer_norm(x, normalized, None, b, 1e-3), (leaf(*shape), leaf(*normalized)))
    inputs = (leaf(*shape), leaf(*normalized), leaf(*normalized))
    assert gradgradcheck(lambda x, w, b: F.layer_norm(x, normalized, w, b, 1e-3), inputs)


@pytest.mark.parametrize("shape,groups", [((2, 6, 5), 3), ((2, 6, 2, 3), 2), ((3, 4), 4), ((2, 4, 3), 1),
                                          ((1, 6, 2, 1, 2), 6)])
@pytest.mark.parametrize("which", ["all", "weight-only", "bias-only", "none", "input-fixed"])
def test_group_norm_is_one_node_with_torchs_edges_and_gradients(shape, groups, which):
    torch = pytest.importorskip("torch")
    c = shape[1]
    a, w, b = RNG.standard_normal(shape) * 2 + 1, RNG.standard_normal(c), RNG.standard_normal(c)

    def run(L, F_):
        x = L.tensor(a, requires_grad=which != "input-fixed")
        weight = L.tensor(w, requires_grad=True) if which in ("all", "weight-only", "input-fixed") else None
        bias = L.tensor(b, requires_grad=True) if which in ("all", "bias-only", "input-fixed") else None
        y = F_.group_norm(x, groups, weight, bias, 1e-3)
        return _gradients_of_gradients(L, y, (x, weight, bias), skip_second=which == "bias-only" and L is torch)

    if which == "bias-only":  # torch's group_norm fails to differentiate here under create_graph ("shape '[0]'")
        x, bias = leaf(*shape), leaf(c)
        assert F.group_norm(x, groups, None, bias).grad_fn.name() == "NativeGroupNormBackward0"
        assert gradgradcheck(lambda x, b: F.group_norm(x, groups, None, b, 1e-3), (x, bias))
        return
    _assert_same_node_and_gradients(run(tensorlib, F), run(torch, torch.nn.functional), "NativeGroupNormBackward0")
    inputs = (leaf(*shape), leaf(c), leaf(c))
    assert gradgradcheck(lambda x, w, b: F.group_norm(x, groups, w, b, 1e-3), inputs)


def test_group_norm_in_float32_matches_torch_and_other_dtypes_take_the_composed_path():
    torch = pytest.importorskip("torch")
    a = (RNG.standard_normal((8, 6, 7)) * 3 + 2).astype(np.float32)
    g = RNG.standard_normal((8, 6, 7)).astype(np.float32)
    results = []
    for L, F_ in ((tensorlib, F), (torch, torch.nn.functional)):
        x = L.tensor(a, requires_grad=True)
        w, b = L.ones(6, requires_grad=True), L.zeros(6, requires_grad=True)
        y = F_.group_norm(x, 3, w, b)
        y.backward(L.tensor(g))
        results.append([t.detach().numpy() for t in (y, x.grad, w.grad, b.grad)])
    for ours, theirs in zip(*results):
        assert ours.dtype == np.float32
        np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-4)
    x = tensorlib.tensor(a, requires_grad=True)
    mixed = F.group_norm(x, 3, tensorlib.ones(6, dtype=tensorlib.float64))  # a weight of another dtype: composed
    assert not mixed.grad_fn.name().startswith("Native")


@pytest.mark.parametrize("args", [((5,), 3, None), ((5,), None, 3), ((6,), 6, 2), ((2, 3), 6, None), ((6,), (), None),
                                  ((), None, None)])
def test_layer_norm_checks_the_shapes_of_weight_and_bias_first(args):
    torch = pytest.importorskip("torch")
    normalized, w, b = args
    messages = []
    for L, F_ in ((tensorlib, F), (torch, torch.nn.functional)):
        with pytest.raises(RuntimeError) as info:
            F_.layer_norm(L.ones(4, 6), normalized, None if w is None else L.ones(w), None if b is None else L.ones(b))
        messages.append(str(info.value))
    assert messages[0] == messages[1] and messages[0].startswith("Expected ")  # (an empty shape: torch's own error)
