"""nn.utils: weight_norm, spectral_norm (hook-based), batch-norm fusion, convolution weight memory formats,
skip_init and the deprecated clip_grad_norm, compared with torch where it is installed."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tensorlib
import tensorlib.nn as nn
from tensorlib.nn.utils import (
    clip_grad_norm,
    clip_grad_norm_,
    convert_conv2d_weight_memory_format,
    convert_conv3d_weight_memory_format,
    fuse_conv_bn_eval,
    fuse_conv_bn_weights,
    fuse_linear_bn_eval,
    fuse_linear_bn_weights,
    remove_spectral_norm,
    remove_weight_norm,
    skip_init,
    spectral_norm,
    weight_norm,
)

RNG = np.random.default_rng(0)


def _pair(torch, make):
    """The same module in torch and tensorlib (float64), with torch's initial values copied over."""
    theirs = make(torch.nn).double()
    ours = make(nn).double()
    ours.load_state_dict({k: tensorlib.tensor(v.detach().numpy().copy()) for k, v in theirs.state_dict().items()})
    return ours, theirs


def _np(t):
    return t.detach().numpy().copy()


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return fn(*args, **kwargs)


LAYERS = {
    "linear": (lambda m: m.Linear(5, 4), (3, 5)),
    "conv2d": (lambda m: m.Conv2d(2, 3, 3), (2, 2, 5, 5)),
    "conv_transpose2d": (lambda m: m.ConvTranspose2d(3, 2, 2), (2, 3, 4, 4)),
    "conv1d": (lambda m: m.Conv1d(2, 4, 3, bias=False), (2, 2, 7)),
}


# -- weight_norm ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("layer", sorted(LAYERS))
@pytest.mark.parametrize("dim", [0, 1, None, -1])
def test_weight_norm_matches_torch(layer, dim):
    torch = pytest.importorskip("torch")
    make, shape = LAYERS[layer]
    ours, theirs = _pair(torch, make)
    _quiet(weight_norm, ours, dim=dim)
    _quiet(torch.nn.utils.weight_norm, theirs, dim=dim)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    for k, v in theirs.state_dict().items():
        np.testing.assert_allclose(_np(ours.state_dict()[k]), _np(v), rtol=1e-14)
    x = RNG.standard_normal(shape)
    for _ in range(2):  # the weight is recomputed from g and v at every call
        out, ref = ours(tensorlib.tensor(x)), theirs(torch.tensor(x))
        np.testing.assert_allclose(_np(out), _np(ref), rtol=1e-12, atol=1e-12)
        (out**2).sum().backward()
        (ref**2).sum().backward()
        for (name, p), (tname, tp) in zip(ours.named_parameters(), theirs.named_parameters()):
            assert name == tname
            np.testing.assert_allclose(_np(p.grad), _np(tp.grad), rtol=1e-10, atol=1e-12, err_msg=name)
        with tensorlib.no_grad(), torch.no_grad():
            ours.weight_g.mul_(1.5)
            theirs.weight_g.mul_(1.5)
    remove_weight_norm(ours)
    torch.nn.utils.remove_weight_norm(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    np.testing.assert_allclose(_np(ours.weight), _np(theirs.weight), rtol=1e-12)
    assert isinstance(ours.weight, nn.Parameter)


def test_weight_norm_by_formula_and_errors():
    m = nn.Linear(3, 2)
    w = m.weight.detach().clone()
    with pytest.warns(FutureWarning, match="weight_norm` is deprecated"):
        assert weight_norm(m) is m
    assert m.weight_g.shape == (2, 1) and m.weight_v.shape == (2, 3)
    np.testing.assert_allclose(_np(m.weight_g)[:, 0], np.linalg.norm(_np(w), axis=1), rtol=1e-6)
    np.testing.assert_allclose(_np(m.weight), _np(w), rtol=1e-6)
    assert "weight" not in dict(m.named_parameters())
    with pytest.raises(RuntimeError, match="Cannot register two weight_norm hooks on the same parameter weight"):
        _quiet(weight_norm, m)
    with pytest.raises(ValueError, match="weight_norm of 'bias' not found in Linear"):
        remove_weight_norm(m, "bias")
    whole = _quiet(weight_norm, nn.Linear(3, 2), dim=None)
    assert whole.weight_g.shape == ()
    by_name = _quiet(weight_norm, nn.Linear(3, 2), name="bias")
    assert by_name.bias_g.shape == (2,) and remove_weight_norm(by_name, "bias") is by_name


def test_weight_norm_state_dict_round_trip():
    a = _quiet(weight_norm, nn.Linear(4, 3))
    b = _quiet(weight_norm, nn.Linear(4, 3))
    b.load_state_dict(a.state_dict())
    x = tensorlib.randn(2, 4)
    assert tensorlib.allclose(a(x), b(x))


# -- spectral_norm ----------------------------------------------------------------------------------------


SPECTRAL = {
    "linear": (lambda m: m.Linear(5, 4), (3, 5), {}),
    "linear-3-iterations": (lambda m: m.Linear(6, 3), (2, 6), dict(n_power_iterations=3)),
    "conv2d": (lambda m: m.Conv2d(2, 3, 3), (2, 2, 5, 5), {}),
    "conv_transpose2d": (lambda m: m.ConvTranspose2d(3, 2, 2), (2, 3, 4, 4), {}),  # dim 1 by default
    "conv2d-dim1-eps": (lambda m: m.Conv2d(2, 3, 3), (1, 2, 4, 4), dict(dim=1, eps=1e-3)),
}


@pytest.mark.parametrize("layer", sorted(SPECTRAL))
def test_spectral_norm_power_iteration_step_by_step_matches_torch(layer):
    torch = pytest.importorskip("torch")
    make, shape, options = SPECTRAL[layer]
    ours, theirs = _pair(torch, make)
    spectral_norm(ours, **options)
    torch.nn.utils.spectral_norm(theirs, **options)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    for name in ("weight_u", "weight_v"):  # the same starting vectors (each library draws its own)
        assert getattr(ours, name).shape == getattr(theirs, name).shape
        getattr(ours, name).copy_(tensorlib.tensor(_np(getattr(theirs, name))))
    x = RNG.standard_normal(shape)
    for step in range(4):
        if step == 3:
            ours.eval()
            theirs.eval()
        out, ref = ours(tensorlib.tensor(x)), theirs(torch.tensor(x))
        for name in ("weight_u", "weight_v"):
            np.testing.assert_allclose(_np(getattr(ours, name)), _np(getattr(theirs, name)), rtol=1e-10, atol=1e-12,
                                       err_msg=f"{name} after call {step}")
        np.testing.assert_allclose(_np(ours.weight), _np(theirs.weight), rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(_np(out), _np(ref), rtol=1e-10, atol=1e-12)
        (out**2).sum().backward()
        (ref**2).sum().backward()
        for (name, p), (tname, tp) in zip(ours.named_parameters(), theirs.named_parameters()):
            assert name == tname
            np.testing.assert_allclose(_np(p.grad), _np(tp.grad), rtol=1e-9, atol=1e-12, err_msg=name)
    remove_spectral_norm(ours)
    torch.nn.utils.remove_spectral_norm(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    np.testing.assert_allclose(_np(ours.weight), _np(theirs.weight), rtol=1e-10)


def test_spectral_norm_converges_to_the_largest_singular_value():
    m = spectral_norm(nn.Linear(6, 4), n_power_iterations=50)
    w = _np(m.weight_orig).astype(np.float64)
    m(tensorlib.ones(1, 6))
    sigma = np.linalg.svd(w, compute_uv=False)[0]
    np.testing.assert_allclose(np.linalg.svd(_np(m.weight), compute_uv=False)[0], 1.0, rtol=1e-4)
    np.testing.assert_allclose(_np(m.weight), w / sigma, rtol=1e-4, atol=1e-6)
    u_before = m.weight_u.clone()
    m.eval()
    m(tensorlib.ones(1, 6))
    assert tensorlib.equal(m.weight_u, u_before)  # no power iteration in eval mode


def test_spectral_norm_errors_and_bookkeeping():
    m = spectral_norm(nn.Linear(3, 2))
    assert sorted(dict(m.named_buffers())) == ["weight_u", "weight_v"]
    assert m.weight_u.shape == (2,) and m.weight_v.shape == (3,)
    assert abs(float(m.weight_u.norm()) - 1) < 1e-6
    with pytest.raises(RuntimeError, match="Cannot register two spectral_norm hooks on the same parameter weight"):
        spectral_norm(m)
    with pytest.raises(ValueError, match="Expected n_power_iterations to be positive"):
        spectral_norm(nn.Linear(3, 2), n_power_iterations=0)
    with pytest.raises(ValueError, match="`SpectralNorm` cannot be applied as parameter `bias` is None"):
        spectral_norm(nn.Linear(3, 2, bias=False), name="bias")
    with pytest.raises(ValueError, match="spectral_norm of 'weight' not found in Linear"):
        remove_spectral_norm(nn.Linear(3, 2))
    a, b = spectral_norm(nn.Linear(4, 3)), spectral_norm(nn.Linear(4, 3))
    b.load_state_dict(a.state_dict())
    b.eval()
    a.eval()
    x = tensorlib.randn(2, 4)
    assert tensorlib.allclose(a(x), b(x))


def test_spectral_and_weight_norm_error_messages_match_torch():
    torch = pytest.importorskip("torch")

    def errors(lib):
        U = lib.nn.utils
        twice = U.spectral_norm(lib.nn.Linear(3, 2))
        return [
            lambda: U.spectral_norm(twice),
            lambda: U.spectral_norm(lib.nn.Linear(3, 2), n_power_iterations=-1),
            lambda: U.remove_spectral_norm(lib.nn.Linear(3, 2)),
            lambda: U.remove_weight_norm(lib.nn.Linear(3, 2)),
        ]

    for theirs, ours in zip(errors(torch), errors(tensorlib)):
        with pytest.raises(Exception) as expected:
            theirs()
        with pytest.raises(expected.type) as got:
            ours()
        assert str(got.value) == str(expected.value)


# -- fusion -----------------------------------------------------------------------------------------------


def _bn_stats(bn, n):
    with tensorlib.no_grad():
        bn.running_mean.copy_(tensorlib.tensor(RNG.standard_normal(n)))
        bn.running_var.copy_(tensorlib.tensor(RNG.uniform(0.5, 2.0, n)))
        if bn.weight is not None:
            bn.weight.copy_(tensorlib.tensor(RNG.standard_normal(n)))
            bn.bias.copy_(tensorlib.tensor(RNG.standard_normal(n)))
    return bn


@pytest.mark.parametrize("conv, bn, shape, transpose", [
    (lambda: nn.Conv2d(2, 3, 3), lambda: nn.BatchNorm2d(3), (2, 2, 6, 6), False),
    (lambda: nn.Conv1d(2, 4, 3, bias=False), lambda: nn.BatchNorm1d(4), (2, 2, 7), False),
    (lambda: nn.Conv3d(1, 2, 2), lambda: nn.BatchNorm3d(2, affine=False), (1, 1, 4, 4, 4), False),
    (lambda: nn.ConvTranspose2d(3, 2, 2), lambda: nn.BatchNorm2d(2), (2, 3, 4, 4), True),
])
def test_fuse_conv_bn_eval_computes_the_same_function(conv, bn, shape, transpose):
    c, b = conv().double().eval(), _bn_stats(bn().double(), bn().num_features).eval()
    fused = fuse_conv_bn_eval(c, b, transpose=transpose)
    assert fused is not c and isinstance(fused.weight, nn.Parameter) and fused.bias is not None
    x = tensorlib.tensor(RNG.standard_normal(shape))
    np.testing.assert_allclose(_np(fused(x)), _np(b(c(x))), rtol=1e-12, atol=1e-12)
    assert c.bias is None or not tensorlib.equal(c.bias, fused.bias)  # the original is left alone


def test_fuse_linear_bn_eval_computes_the_same_function():
    lin, bn = nn.Linear(4, 3).double().eval(), _bn_stats(nn.BatchNorm1d(3).double(), 3).eval()
    fused = fuse_linear_bn_eval(lin, bn)
    x = tensorlib.tensor(RNG.standard_normal((5, 4)))
    np.testing.assert_allclose(_np(fused(x)), _np(bn(lin(x))), rtol=1e-12, atol=1e-12)
    one = _bn_stats(nn.BatchNorm1d(1).double(), 1).eval()
    np.testing.assert_allclose(_np(fuse_linear_bn_eval(lin, one)(x)), _np(one(lin(x).reshape(-1, 1)).reshape(5, 3)),
                               rtol=1e-12)
    with pytest.raises(AssertionError, match="Fusion only for eval!"):
        fuse_linear_bn_eval(nn.Linear(4, 3), nn.BatchNorm1d(3))
    with pytest.raises(AssertionError, match="linear.out_features == bn.num_features"):
        fuse_linear_bn_eval(lin, nn.BatchNorm1d(2).eval())
    with pytest.raises(AssertionError, match="Fusion only for eval!"):
        fuse_conv_bn_eval(nn.Conv2d(1, 2, 1).eval(), nn.BatchNorm2d(2))
    with pytest.raises(AssertionError, match="running_mean and bn.running_var must not be None"):
        fuse_conv_bn_eval(nn.Conv2d(1, 2, 1).eval(), nn.BatchNorm2d(2, track_running_stats=False).eval())


def test_fused_weights_match_torch():
    torch = pytest.importorskip("torch")
    w, b = RNG.standard_normal((3, 2, 2, 2)), RNG.standard_normal(3)
    rm, rv, bw, bb = RNG.standard_normal(3), RNG.uniform(0.5, 2, 3), RNG.standard_normal(3), RNG.standard_normal(3)
    lw = RNG.standard_normal((3, 4))
    for lib in (torch, tensorlib):
        t = lib.tensor
        conv = lib.nn.utils.fuse_conv_bn_weights(t(w), t(b), t(rm), t(rv), 1e-5, t(bw), t(bb))
        conv_none = lib.nn.utils.fuse_conv_bn_weights(t(w.transpose(1, 0, 2, 3).copy()), None, t(rm), t(rv), 1e-3, None, None, transpose=True)
        linear = lib.nn.utils.fuse_linear_bn_weights(t(lw), None, t(rm), t(rv), 1e-5, t(bw), t(bb))
        results = [conv, conv_none, linear]
        if lib is torch:
            expected = [[_np(p) for p in r] for r in results]
            flags = [[p.requires_grad for p in r] for r in results]
        else:
            for r, e, f in zip(results, expected, flags):
                assert [p.requires_grad for p in r] == f and all(isinstance(p, nn.Parameter) for p in r)
                for p, q in zip(r, e):
                    np.testing.assert_allclose(_np(p), q, rtol=1e-14)
    assert fuse_conv_bn_weights and fuse_linear_bn_weights


def test_fusion_keeps_the_weight_dtype():
    conv, bn = nn.Conv2d(1, 2, 1).eval(), nn.BatchNorm2d(2, dtype=tensorlib.float64).eval()
    fused = fuse_conv_bn_eval(conv, bn)
    assert fused.weight.dtype == tensorlib.float32 and fused.bias.dtype == tensorlib.float32


# -- memory formats ---------------------------------------------------------------------------------------


def test_convert_conv_weight_memory_format_matches_torch_strides():
    torch = pytest.importorskip("torch")
    strides = []
    for lib in (torch, tensorlib):
        model = lib.nn.Sequential(lib.nn.Conv2d(3, 4, 3), lib.nn.ReLU(),
                                  lib.nn.Sequential(lib.nn.ConvTranspose2d(4, 2, 2), lib.nn.Conv3d(2, 2, 1)))
        before = [_np(p) for p in model.parameters()]
        U = lib.nn.utils
        assert U.convert_conv2d_weight_memory_format(model, lib.channels_last) is model
        U.convert_conv3d_weight_memory_format(model, lib.channels_last_3d)
        row = [tuple(model[0].weight.stride()), tuple(model[2][0].weight.stride()),
               tuple(model[2][1].weight.stride()),
               model[0].weight.is_contiguous(memory_format=lib.channels_last),
               model[2][1].weight.is_contiguous(memory_format=lib.channels_last_3d)]
        U.convert_conv2d_weight_memory_format(model, lib.contiguous_format)
        row.append(tuple(model[0].weight.stride()))
        row.append(tuple(model[2][1].weight.stride()))
        strides.append(row)
        for p, q in zip(model.parameters(), before):
            np.testing.assert_array_equal(_np(p), q)
    assert strides[0] == strides[1]


def test_convert_conv_weight_memory_format_keeps_values_and_training():
    conv = nn.Conv2d(2, 3, 3)
    x = tensorlib.randn(1, 2, 5, 5)
    before = conv(x)
    convert_conv2d_weight_memory_format(conv, tensorlib.channels_last)
    assert conv.weight.is_contiguous(memory_format=tensorlib.channels_last) and not conv.weight.is_contiguous()
    assert tensorlib.allclose(conv(x), before)
    conv(x).sum().backward()
    assert conv.weight.grad.shape == conv.weight.shape
    with pytest.raises(RuntimeError, match="required rank 5 tensor to use channels_last_3d format"):
        convert_conv2d_weight_memory_format(conv, tensorlib.channels_last_3d)
    with pytest.raises(TypeError, match="memory_format"):
        convert_conv3d_weight_memory_format(conv, "channels_last")


# -- skip_init, clip_grad_norm ----------------------------------------------------------------------------


def test_skip_init_builds_without_initialising():
    m = skip_init(nn.Linear, 3, 4, bias=False, dtype=tensorlib.float64)
    assert isinstance(m, nn.Linear) and m.weight.shape == (4, 3) and m.bias is None
    assert m.weight.dtype == tensorlib.float64 and m.weight.requires_grad and m.weight.is_leaf
    bn = skip_init(nn.BatchNorm1d, 3)
    assert bn.running_var.shape == (3,)
    with pytest.raises(RuntimeError, match="Expected a Module; got"):
        skip_init(int)

    class NoDevice(nn.Module):
        def __init__(self):
            super().__init__()

    with pytest.raises(RuntimeError, match="Module must support a 'device' arg to skip initialization"):
        skip_init(NoDevice)


def test_skip_init_matches_torch_structure():
    torch = pytest.importorskip("torch")
    ours = skip_init(nn.Conv2d, 2, 3, 3, device="cpu")
    theirs = torch.nn.utils.skip_init(torch.nn.Conv2d, 2, 3, 3, device="cpu")
    assert [(k, tuple(v.shape)) for k, v in ours.state_dict().items()] == \
        [(k, tuple(v.shape)) for k, v in theirs.state_dict().items()]


def test_clip_grad_norm_is_a_deprecated_alias():
    p = nn.Parameter(tensorlib.tensor([3.0, 4.0]))
    p.grad = tensorlib.tensor([3.0, 4.0])
    with pytest.warns(FutureWarning, match="clip_grad_norm` is now deprecated in favor of"):
        total = clip_grad_norm(p, 1.0)
    assert float(total) == 5.0 and p.grad.tolist() == pytest.approx([0.6, 0.8])
    q = nn.Parameter(tensorlib.tensor([3.0, 4.0]))
    q.grad = tensorlib.tensor([3.0, 4.0])
    assert float(clip_grad_norm_([q], 10, norm_type="inf")) == 4.0
