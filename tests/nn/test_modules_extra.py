"""The remaining layers against torch: AdaptiveLogSoftmaxWithLoss, CrossMapLRN2d, SyncBatchNorm, DataParallel,
Softmax2d, Container and NLLLoss2d (deprecated), with the same weights: outputs, gradients, reprs, errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tensorlib
import tensorlib.nn as nn
from tests.nn.compare import compare, same_message

RNG = np.random.default_rng(81)
# a cluster projecting to in_features // div_value ** k = 0 features has empty weights: both libraries warn
pytestmark = pytest.mark.filterwarnings("ignore:Initializing zero-element tensors is a no-op")


def _load(ours, theirs):
    ours.load_state_dict({k: tensorlib.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})
    return ours


# -- AdaptiveLogSoftmaxWithLoss -------------------------------------------------------------------------------------


@pytest.fixture
def asm():
    torch = pytest.importorskip("torch")
    theirs = torch.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [2, 5], div_value=2.0, head_bias=True).double()
    ours = _load(nn.AdaptiveLogSoftmaxWithLoss(8, 10, [2, 5], div_value=2.0, head_bias=True).double(), theirs)
    return ours, theirs


def test_adaptive_log_softmax_matches_torch(asm):
    ours, theirs = asm
    assert repr(ours) == repr(theirs)
    x = RNG.standard_normal((6, 8))
    target = np.array([0, 3, 9, 1, 5, 7])

    def run(lib, a, t):
        out = (ours if lib is tensorlib else theirs)(a, t)
        assert type(out).__name__ == "_ASMoutput" and out._fields == ("output", "loss")
        return out

    compare(run, x, target, rtol=1e-10)
    compare(lambda lib, a, t: (ours if lib is tensorlib else theirs)(a, t), x[0], np.array(target[0]), rtol=1e-10)
    compare(lambda lib, a: (ours if lib is tensorlib else theirs).log_prob(a), x, rtol=1e-10)
    for rows in (slice(None), slice(0, 1), slice(2, 4)):
        got = ours.predict(tensorlib.tensor(x[rows])).numpy()
        np.testing.assert_array_equal(got, ours.log_prob(tensorlib.tensor(x[rows])).detach().numpy().argmax(1))
    for (name, p), (_, tp) in zip(ours.named_parameters(), theirs.named_parameters()):
        np.testing.assert_allclose(p.grad.numpy(), tp.grad.numpy(), rtol=1e-9, err_msg=name)


def test_adaptive_log_softmax_predict_matches_torch(asm):
    torch = pytest.importorskip("torch")
    ours, theirs = asm
    with torch.no_grad():
        theirs.head.weight[2:] += 3.0  # clusters win often: the three branches of predict
    ours = _load(ours, theirs)
    x = RNG.standard_normal((20, 8))
    np.testing.assert_array_equal(ours.predict(tensorlib.tensor(x)).numpy(), theirs.predict(torch.tensor(x)).numpy())


@pytest.mark.parametrize("call", [
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, []),
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [5, 2]),
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [2, 10]),
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [2, 2]),
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [2, 5])(lib.ones(3, 8), lib.tensor([0, 1])),
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [2, 5])(lib.ones(3), lib.tensor([0, 1, 2])),
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [2, 5])(lib.ones(3, 8), lib.tensor(1)),
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [2, 5])(lib.ones(3, 8), lib.ones(3, 1, dtype=lib.long)),
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [2, 5])(lib.ones(2, 8), lib.tensor([0, 10])),
])
def test_adaptive_log_softmax_errors(call):
    same_message(call)


def test_initialising_empty_weights_warns_as_torch():
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        tensorlib.nn.init.kaiming_uniform_(tensorlib.empty(3, 0))
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        tensorlib.nn.init.kaiming_normal_(tensorlib.empty(0, 3))


def test_adaptive_log_softmax_trains():
    tensorlib.manual_seed(0)
    m = nn.AdaptiveLogSoftmaxWithLoss(6, 12, [3, 7], div_value=1.0)
    x = tensorlib.randn(64, 6)
    target = (x @ tensorlib.randn(6, 12)).argmax(1)  # learnable labels
    opt = tensorlib.optim.Adam(m.parameters(), lr=0.1)
    first = None
    for _ in range(100):
        opt.zero_grad()
        loss = m(x, target).loss
        loss.backward()
        opt.step()
        first = first if first is not None else loss.item()
    assert loss.item() < 0.6 * first
    m.reset_parameters()


# -- CrossMapLRN2d --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("size, channels", [(3, 6), (5, 7), (2, 4), (4, 3), (3, 2)])
def test_cross_map_lrn2d_matches_torch(size, channels):
    # torch's legacy window (channel 0 never leaves the running sum) and its own backward formula, both kept
    x = RNG.standard_normal((2, channels, 3, 2))
    compare(lambda lib, a: lib.nn.CrossMapLRN2d(size, alpha=0.3, beta=0.6, k=1.5)(a), x, rtol=1e-10, atol=1e-12)


def test_cross_map_lrn2d_repr_and_errors():
    torch = pytest.importorskip("torch")
    assert repr(nn.CrossMapLRN2d(3)) == repr(torch.nn.CrossMapLRN2d(3))
    assert repr(nn.CrossMapLRN2d(3)) == "CrossMapLRN2d(3, alpha=0.0001, beta=0.75, k=1)"
    same_message(lambda lib, a: lib.nn.CrossMapLRN2d(3)(a), RNG.standard_normal((2, 3, 4)))
    x = tensorlib.tensor(RNG.standard_normal((1, 3, 2, 2)), requires_grad=True)
    with pytest.raises(RuntimeError, match=r"start \(1\) \+ length \(3\) exceeds dimension size \(3\)"):
        nn.CrossMapLRN2d(1)(x).sum().backward()  # torch's backward fails for size 1 too
    # where torch's window is centred (size >= 2 * channels), its gradient is the derivative: gradcheck holds
    y = tensorlib.tensor(RNG.uniform(-1, 1, (1, 2, 2, 1)), requires_grad=True)
    assert tensorlib.autograd.gradcheck(lambda t: nn.CrossMapLRN2d(5, 0.5, 0.75, 1.0)(t), (y,))


# -- SyncBatchNorm -----------------------------------------------------------------------------------------------------


def test_sync_batch_norm_runs_as_batch_norm_in_one_process():
    torch = pytest.importorskip("torch")
    ours, theirs = nn.SyncBatchNorm(3).double(), torch.nn.SyncBatchNorm(3).double()
    assert repr(ours) == repr(theirs)
    x = RNG.standard_normal((4, 3, 5))
    for training in (True, True, False):
        ours.train(training)
        theirs.train(training)
        compare(lambda lib, a: (ours if lib is tensorlib else theirs)(a), x, rtol=1e-10)
    for name in ("running_mean", "running_var", "num_batches_tracked"):
        np.testing.assert_allclose(getattr(ours, name).numpy(), getattr(theirs, name).numpy(), rtol=1e-10)
    same_message(lambda lib, a: lib.nn.SyncBatchNorm(3)(a), RNG.standard_normal(3))
    same_message(lambda lib, a: lib.nn.SyncBatchNorm(0)(a), np.zeros((2, 0, 3)))
    m = nn.SyncBatchNorm(3, momentum=None, process_group="group")
    m(tensorlib.tensor(x))
    m(tensorlib.tensor(x))
    assert m.process_group == "group" and m.num_batches_tracked.item() == 2


def test_convert_sync_batchnorm():
    torch = pytest.importorskip("torch")
    ours = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3), nn.Sequential(nn.BatchNorm2d(4, affine=False)))
    theirs = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.BatchNorm1d(3),
                                 torch.nn.Sequential(torch.nn.BatchNorm2d(4, affine=False)))
    bn = ours[1]
    converted = nn.SyncBatchNorm.convert_sync_batchnorm(ours)
    assert repr(converted) == repr(torch.nn.SyncBatchNorm.convert_sync_batchnorm(theirs))
    assert converted[1].weight is bn.weight and converted[1].running_mean is bn.running_mean
    single = nn.SyncBatchNorm.convert_sync_batchnorm(nn.BatchNorm1d(2).eval())
    assert type(single) is nn.SyncBatchNorm and not single.training


# -- DataParallel, Softmax2d, deprecated modules -----------------------------------------------------------------------


def test_data_parallel_runs_the_module_on_the_cpu():
    torch = pytest.importorskip("torch")
    inner = nn.Linear(2, 3)
    dp = nn.DataParallel(inner, device_ids=[0, 1], output_device=0, dim=1)
    tdp = torch.nn.DataParallel(torch.nn.Linear(2, 3))
    assert repr(dp) == repr(tdp) and dp.device_ids == tdp.device_ids == []
    assert not hasattr(dp, "dim") and not hasattr(dp, "output_device")
    assert list(dp.state_dict()) == list(tdp.state_dict()) == ["module.weight", "module.bias"]
    x = tensorlib.randn(4, 2)
    assert tensorlib.equal(dp(x), inner(x))
    assert nn.parallel.DataParallel is nn.DataParallel
    kw = nn.DataParallel(nn.Bilinear(2, 2, 1))
    assert kw(x, input2=x).shape == (4, 1)


def test_softmax2d_matches_torch():
    torch = pytest.importorskip("torch")
    compare(lambda lib, a: lib.nn.Softmax2d()(a), RNG.standard_normal((2, 3, 4, 5)))
    compare(lambda lib, a: lib.nn.Softmax2d()(a), RNG.standard_normal((3, 4, 5)))
    same_message(lambda lib, a: lib.nn.Softmax2d()(a), RNG.standard_normal((4, 5)))
    assert repr(nn.Softmax2d()) == repr(torch.nn.Softmax2d())


def test_container_and_nll_loss2d_are_deprecated():
    torch = pytest.importorskip("torch")
    with pytest.warns(FutureWarning, match="`nn.Container` is deprecated"):
        c = nn.Container(a=nn.ReLU(), b=nn.Linear(1, 1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tc = torch.nn.Container(a=torch.nn.ReLU(), b=torch.nn.Linear(1, 1))
    assert repr(c) == repr(tc) and list(c._modules) == ["a", "b"]
    with pytest.warns(FutureWarning, match="`NLLLoss2d` has been deprecated"):
        loss = nn.NLLLoss2d(ignore_index=1)
    assert isinstance(loss, nn.NLLLoss) and loss.ignore_index == 1
    x = RNG.standard_normal((2, 3, 4, 4))
    target = RNG.integers(0, 3, (2, 4, 4))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compare(lambda lib, a, t: lib.nn.NLLLoss2d(reduction="sum")(a.log_softmax(1), t), x, target)
