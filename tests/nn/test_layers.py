"""Layer modules: constructor checks, initialisation, reprs, state dicts, forward against torch, train/eval."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import tensorlib
from tensorlib import nn

# (class name, args, kwargs, input shape or None when the layer is not run)
SPECS = [
    ("Conv1d", (3, 6, 3), dict(padding="same"), (2, 3, 7)),
    ("Conv1d", (2, 4, 2), dict(padding=2, padding_mode="circular"), (1, 2, 5)),
    ("Conv2d", (3, 8, 3), {}, (2, 3, 6, 5)),
    ("Conv2d", (4, 8, (3, 2)), dict(stride=2, padding=1, dilation=2, groups=2, bias=False, padding_mode="reflect"),
     (2, 4, 7, 8)),
    ("Conv2d", (2, 2, 3), dict(padding="same", padding_mode="replicate"), (1, 2, 4, 4)),
    ("Conv3d", (2, 4, 2), dict(padding=(1, 0, 1)), (1, 2, 3, 4, 3)),
    ("ConvTranspose1d", (2, 3, 3), dict(stride=2, output_padding=1), (2, 2, 4)),
    ("ConvTranspose2d", (4, 6, 3), dict(stride=2, output_padding=1, groups=2, dilation=2), (2, 4, 3, 3)),
    ("ConvTranspose3d", (2, 2, 2), dict(bias=False, padding=1, stride=(1, 2, 1)), (1, 2, 3, 2, 3)),
    ("MaxPool1d", (3, 2, 1), {}, (2, 3, 8)),
    ("MaxPool2d", (2,), {}, (2, 3, 6, 5)),
    ("MaxPool2d", (3, 2, 1), dict(dilation=1, ceil_mode=True, return_indices=True), (2, 3, 6, 5)),
    ("MaxPool3d", ((2, 2, 1),), {}, (1, 2, 4, 4, 3)),
    ("AvgPool1d", (3,), dict(stride=1, padding=1, count_include_pad=False), (2, 3, 8)),
    ("AvgPool2d", (3, 2, 1), dict(ceil_mode=True), (2, 3, 6, 5)),
    ("AvgPool3d", (2,), dict(divisor_override=3), (1, 2, 4, 4, 4)),
    ("AdaptiveAvgPool1d", (3,), {}, (2, 3, 8)),
    ("AdaptiveAvgPool2d", ((None, 3),), {}, (2, 3, 6, 5)),
    ("AdaptiveAvgPool3d", (2,), {}, (1, 2, 4, 5, 3)),
    ("AdaptiveMaxPool1d", (4,), {}, (2, 3, 7)),
    ("AdaptiveMaxPool2d", (2, True), {}, (2, 3, 6, 5)),
    ("AdaptiveMaxPool3d", ((1, 2, 3),), {}, (1, 2, 4, 5, 3)),
    ("LPPool1d", (2, 3, 1), {}, (2, 3, 8)),
    ("LPPool2d", (2, 3), {}, (2, 3, 6, 6)),
    ("BatchNorm1d", (3,), {}, (4, 3)),
    ("BatchNorm1d", (3,), dict(momentum=None, affine=False), (4, 3, 5)),
    ("BatchNorm2d", (3,), dict(bias=False), (2, 3, 4, 4)),
    ("BatchNorm3d", (2,), dict(track_running_stats=False), (2, 2, 2, 3, 2)),
    ("InstanceNorm1d", (3,), {}, (2, 3, 6)),
    ("InstanceNorm2d", (3,), dict(affine=True, track_running_stats=True), (2, 3, 4, 4)),
    ("InstanceNorm3d", (2,), dict(affine=True), (2, 2, 3, 2, 2)),
    ("GroupNorm", (2, 4), {}, (2, 4, 3)),
    ("GroupNorm", (1, 4), dict(affine=False), (2, 4, 3, 2)),
    ("LocalResponseNorm", (2,), {}, (2, 5, 3)),
    ("Upsample", (), dict(scale_factor=2), (1, 2, 3, 3)),
    ("Upsample", (), dict(size=(3, 4), mode="bilinear"), (1, 2, 5, 5)),
    ("Upsample", (), dict(scale_factor=(2, 1.5), mode="bicubic", align_corners=True), (1, 2, 3, 4)),
    ("UpsamplingNearest2d", (), dict(scale_factor=2), (1, 2, 3, 3)),
    ("UpsamplingBilinear2d", (), dict(size=3), (1, 2, 5, 4)),
    ("Unfold", (2,), dict(stride=2), (2, 3, 4, 6)),
    ("Fold", ((4, 5), 2), {}, (2, 8, 12)),
    ("PixelShuffle", (2,), {}, (1, 8, 2, 3)),
    ("PixelUnshuffle", (3,), {}, (1, 2, 3, 6)),
    ("Dropout1d", (0.2, True), {}, None),
    ("Dropout2d", (), {}, None),
    ("Dropout3d", (0.3,), {}, None),
    ("AlphaDropout", (0.1,), {}, None),
    ("FeatureAlphaDropout", (), {}, None),
]
IDS = [f"{s[0]}-{i}" for i, s in enumerate(SPECS)]


def _build(lib, spec):
    name, args, kw, _ = spec
    return getattr(lib.nn, name)(*args, **kw)


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_repr_and_state_dict_match_torch(spec):
    torch = pytest.importorskip("torch")
    t, mine = _build(torch, spec), _build(tensorlib, spec)
    assert repr(mine) == repr(t)
    assert list(mine.state_dict()) == list(t.state_dict())
    assert [tuple(v.shape) for v in mine.state_dict().values()] == [tuple(v.shape) for v in t.state_dict().values()]
    assert [str(v.dtype).split(".")[1] for v in mine.state_dict().values()] == \
        [str(v.dtype).split(".")[1] for v in t.state_dict().values()]


@pytest.mark.parametrize("spec", [s for s in SPECS if s[3] is not None], ids=[i for i, s in zip(IDS, SPECS) if s[3]])
@pytest.mark.parametrize("training", [True, False])
def test_forward_and_backward_match_torch_with_same_state(spec, training):
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    t, mine = _build(torch, spec).double(), _build(tensorlib, spec).double()
    state = {k: tensorlib.tensor(v.detach().numpy()) for k, v in t.state_dict().items()}
    mine.load_state_dict(state)
    t.train(training)
    mine.train(training)
    a = np.random.default_rng(0).standard_normal(spec[3])
    if spec[0].startswith("LPPool"):
        a = np.abs(a) + 0.1
    tx, lx = torch.tensor(a, requires_grad=True), tensorlib.tensor(a, requires_grad=True)
    expected, got = t(tx), mine(lx)
    if isinstance(expected, tuple):
        np.testing.assert_array_equal(got[1].numpy(), expected[1].numpy())
        expected, got = expected[0], got[0]
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), atol=1e-10)
    g = np.random.default_rng(1).standard_normal(tuple(expected.shape))
    expected.backward(torch.tensor(g))
    got.backward(tensorlib.tensor(g))
    np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), atol=1e-9)
    for (name, p), (_, q) in zip(mine.named_parameters(), t.named_parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), atol=1e-9, err_msg=name)
    for (name, b), (_, c) in zip(mine.named_buffers(), t.named_buffers()):
        np.testing.assert_allclose(b.numpy(), c.numpy(), atol=1e-12, err_msg=name)


def test_reprs_without_torch():
    assert repr(nn.Conv2d(3, 8, 3)) == "Conv2d(3, 8, kernel_size=(3, 3), stride=(1, 1))"
    assert repr(nn.Conv1d(2, 4, 3, padding="same", bias=False, padding_mode="reflect")) == \
        "Conv1d(2, 4, kernel_size=(3,), stride=(1,), padding=same, bias=False, padding_mode=reflect)"
    assert repr(nn.ConvTranspose2d(4, 2, 3, stride=2, output_padding=1, groups=2)) == \
        "ConvTranspose2d(4, 2, kernel_size=(3, 3), stride=(2, 2), output_padding=(1, 1), groups=2)"
    assert repr(nn.MaxPool2d(2)) == "MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)"
    assert repr(nn.AvgPool1d(3)) == "AvgPool1d(kernel_size=(3,), stride=(3,), padding=(0,))"
    assert repr(nn.AdaptiveAvgPool2d((None, 7))) == "AdaptiveAvgPool2d(output_size=(None, 7))"
    assert repr(nn.BatchNorm2d(4)) == \
        "BatchNorm2d(4, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)"
    assert repr(nn.GroupNorm(2, 4)) == "GroupNorm(2, 4, eps=1e-05, affine=True, bias=True)"
    assert repr(nn.Upsample(scale_factor=2)) == "Upsample(scale_factor=2.0, mode='nearest')"
    assert repr(nn.Fold((4, 5), 2)) == "Fold(output_size=(4, 5), kernel_size=2, dilation=1, padding=0, stride=1)"
    assert list(nn.BatchNorm1d(3).state_dict()) == ["weight", "bias", "running_mean", "running_var",
                                                   "num_batches_tracked"]
    assert list(nn.Conv2d(1, 1, 1, bias=False).state_dict()) == ["weight"]


@pytest.mark.parametrize("cls,args,fan_in", [(nn.Conv2d, (3, 5, (2, 3)), 18), (nn.Conv1d, (4, 2, 3, 1, 0, 1, 2), 6),
                                             (nn.ConvTranspose2d, (3, 4, 2), 16)])
def test_default_init_bounds(cls, args, fan_in):
    m = cls(*args)
    bound = 1 / math.sqrt(fan_in)
    for p in (m.weight, m.bias):
        a = p.detach().numpy()
        assert np.all(np.abs(a) <= bound) and a.std() > bound / 4
    assert m.weight.requires_grad and m.weight.dtype == tensorlib.float32


def test_conv_module_dtype_and_unbatched_input():
    m = nn.Conv2d(2, 3, 3, padding=1, dtype=tensorlib.float64)
    assert m.weight.dtype == tensorlib.float64
    x = tensorlib.randn(2, 4, 4, dtype=tensorlib.float64)
    np.testing.assert_allclose(m(x).detach().numpy(), m(x.unsqueeze(0))[0].detach().numpy())


def test_conv_transpose_output_size():
    m = nn.ConvTranspose2d(2, 2, 3, stride=2, padding=1)
    x = tensorlib.randn(1, 2, 4, 4)
    assert m(x).shape == (1, 2, 7, 7)
    assert m(x, output_size=[8, 8]).shape == (1, 2, 8, 8)
    assert m(x, output_size=(1, 2, 8, 7)).shape == (1, 2, 8, 7)
    with pytest.raises(ValueError, match="requested an output size of"):
        m(x, output_size=(10, 10))


def test_batch_norm_module_train_and_eval():
    bn = nn.BatchNorm1d(2, momentum=None)
    x1 = tensorlib.tensor([[0.0, 1.0], [2.0, 3.0]])
    x2 = tensorlib.tensor([[4.0, 5.0], [6.0, 9.0]])
    bn(x1)
    bn(x2)
    assert bn.num_batches_tracked.item() == 2
    np.testing.assert_allclose(bn.running_mean.numpy(), [3.0, 4.5])  # cumulative average of the batch means
    bn.eval()
    out = bn(x1)
    expected = (x1.numpy() - bn.running_mean.numpy()) / np.sqrt(bn.running_var.numpy() + bn.eps)
    np.testing.assert_allclose(out.detach().numpy(), expected, rtol=1e-6)
    assert bn.num_batches_tracked.item() == 2
    bn.reset_running_stats()
    assert bn.num_batches_tracked.item() == 0 and bn.running_var.tolist() == [1.0, 1.0]
    stateless = nn.BatchNorm1d(2, track_running_stats=False).eval()
    np.testing.assert_allclose(stateless(x1).detach().numpy(), [[-1, -1], [1, 1]], atol=1e-4)


def test_instance_norm_unbatched_and_channel_checks():
    m = nn.InstanceNorm1d(3, affine=True)
    x = tensorlib.randn(3, 5)
    np.testing.assert_allclose(m(x).detach().numpy(), m(x.unsqueeze(0))[0].detach().numpy(), atol=1e-6)
    with pytest.raises(ValueError, match="to match num_features"):
        m(tensorlib.randn(2, 4, 5))
    with pytest.warns(UserWarning, match="does not match num_features"):
        nn.InstanceNorm1d(3)(tensorlib.randn(2, 4, 5))


def test_dropout_modules_follow_training_flag():
    m = nn.Dropout2d(0.5)
    x = tensorlib.ones(4, 8, 2, 2)
    assert set(np.unique(m(x).numpy())) <= {0.0, 2.0}
    m.eval()
    assert m(x) is x
    assert repr(nn.Dropout1d(0.2, True)) == "Dropout1d(p=0.2, inplace=True)"


MODULE_ERRORS = [
    (lambda: nn.Conv2d(3, 4, 3, groups=2), ValueError),
    (lambda: nn.Conv2d(4, 3, 3, groups=2), ValueError),
    (lambda: nn.Conv2d(4, 4, 3, groups=0), ValueError),
    (lambda: nn.Conv2d(4, 4, 3, padding="full"), ValueError),
    (lambda: nn.Conv2d(4, 4, 3, padding="same", stride=2), ValueError),
    (lambda: nn.Conv2d(4, 4, 3, padding_mode="mirror"), ValueError),
    (lambda: nn.ConvTranspose2d(4, 4, 3, padding_mode="reflect"), ValueError),
    (lambda: nn.BatchNorm2d(3)(tensorlib.zeros(2, 3, 4)), ValueError),
    (lambda: nn.BatchNorm1d(3)(tensorlib.zeros(2, 3, 4, 4)), ValueError),
    (lambda: nn.InstanceNorm2d(3)(tensorlib.zeros(3, 4)), ValueError),
    (lambda: nn.GroupNorm(2, 3), ValueError),
    (lambda: nn.Dropout2d(1.5), ValueError),
    (lambda: nn.Conv2d(3, 4, 3)(tensorlib.zeros(2, 2, 5, 5)), RuntimeError),
    (lambda: nn.MaxPool2d(4)(tensorlib.zeros(1, 1, 3, 3)), RuntimeError),
]


@pytest.mark.parametrize("i", range(len(MODULE_ERRORS)))
def test_module_errors(i):
    call, etype = MODULE_ERRORS[i]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(etype):
            call()


def test_small_cnn_trains():
    tensorlib.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Conv2d(4, 4, 3), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(4, 2))
    x = tensorlib.randn(8, 1, 6, 6)
    y = tensorlib.tensor([0, 1] * 4)
    x = x + y.reshape(8, 1, 1, 1).float()  # class 1 is brighter
    opt = tensorlib.optim.SGD(model.parameters(), lr=0.2)
    losses = []
    for _ in range(15):
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < losses[0] * 0.5


def test_linear_finds_its_weight_wherever_attribute_lookup_would():
    lin = tensorlib.nn.Linear(3, 2)
    x = tensorlib.randn(4, 3)
    w = tensorlib.randn(2, 3)
    del lin.weight  # a plain tensor in its place (as functional-call helpers do)
    lin.weight = w
    assert tensorlib.equal(lin(x), x @ w.T + lin.bias)

    n = tensorlib.nn.utils.weight_norm(tensorlib.nn.Linear(3, 2))  # weight recomputed into a plain attribute
    with tensorlib.no_grad():
        n.weight_g.mul_(3)
    expected = x @ (n.weight_g * n.weight_v / n.weight_v.norm(dim=1, keepdim=True)).T + n.bias
    assert tensorlib.allclose(n(x), expected)
