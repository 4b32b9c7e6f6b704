"""Lazy modules: UninitializedParameter / UninitializedBuffer, materialisation on the first forward, the class each
becomes, state dicts before and after, and the same parameters, outputs and gradients as torch's."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import tensorlib
import tensorlib.nn as nn
from tensorlib.nn.modules.lazy import LazyModuleMixin
from tensorlib.nn.parameter import UninitializedBuffer, UninitializedParameter, is_lazy

RNG = np.random.default_rng(71)

# lazy class, its arguments, an input shape, the class it becomes, the shapes of its state
CASES = [
    ("LazyLinear", (4,), (2, 3), "Linear", {"weight": (4, 3), "bias": (4,)}),
    ("LazyLinear", (4, False), (5, 2, 3), "Linear", {"weight": (4, 3)}),
    ("LazyConv1d", (4, 3), (2, 3, 7), "Conv1d", {"weight": (4, 3, 3), "bias": (4,)}),
    ("LazyConv2d", (4, 2), (3, 5, 5), "Conv2d", {"weight": (4, 3, 2, 2), "bias": (4,)}),
    ("LazyConv3d", (2, 2, 1, 0, 1, 2), (1, 4, 3, 3, 3), "Conv3d", {"weight": (2, 2, 2, 2, 2), "bias": (2,)}),
    ("LazyConvTranspose1d", (4, 3, 2), (2, 3, 5), "ConvTranspose1d", {"weight": (3, 4, 3), "bias": (4,)}),
    ("LazyConvTranspose2d", (4, 2), (2, 3, 4, 4), "ConvTranspose2d", {"weight": (3, 4, 2, 2), "bias": (4,)}),
    ("LazyConvTranspose3d", (2, 2, 1, 0, 0, 1, False), (1, 2, 2, 2, 2), "ConvTranspose3d", {"weight": (2, 2, 2, 2, 2)}),
    ("LazyBatchNorm1d", (), (4, 3), "BatchNorm1d",
     {"weight": (3,), "bias": (3,), "running_mean": (3,), "running_var": (3,), "num_batches_tracked": ()}),
    ("LazyBatchNorm2d", (1e-3, 0.2, False), (2, 3, 4, 4), "BatchNorm2d",
     {"running_mean": (3,), "running_var": (3,), "num_batches_tracked": ()}),
    ("LazyBatchNorm3d", (1e-5, 0.1, True, False), (2, 2, 2, 3, 3), "BatchNorm3d", {"weight": (2,), "bias": (2,)}),
    ("LazyInstanceNorm1d", (), (2, 3, 5), "InstanceNorm1d",
     {"weight": (3,), "bias": (3,), "running_mean": (3,), "running_var": (3,), "num_batches_tracked": ()}),
    ("LazyInstanceNorm2d", (1e-5, 0.1, False, False), (2, 3, 4, 4), "InstanceNorm2d", {}),
    ("LazyInstanceNorm3d", (), (1, 2, 3, 3, 3), "InstanceNorm3d",
     {"weight": (2,), "bias": (2,), "running_mean": (2,), "running_var": (2,), "num_batches_tracked": ()}),
]


# without parameters, a lazy instance norm keeps num_features 0: both libraries warn that the input differs
@pytest.mark.filterwarnings("ignore:input's size at dim=1 does not match num_features")
@pytest.mark.parametrize("name, args, shape, becomes, state", CASES, ids=[c[0] for c in CASES])
def test_lazy_modules_materialize_like_torch(name, args, shape, becomes, state):
    torch = pytest.importorskip("torch")
    ours, theirs = getattr(nn, name)(*args), getattr(torch.nn, name)(*args)
    assert isinstance(ours, LazyModuleMixin) and ours.has_uninitialized_params() == bool(state)
    assert repr(ours) == repr(theirs)
    assert [k for k, v in ours.state_dict().items()] == [k for k, v in theirs.state_dict().items()]
    assert [type(v).__name__ for v in ours.state_dict().values()] == [type(v).__name__ for v in
                                                                      theirs.state_dict().values()]
    x = RNG.standard_normal(shape)
    torch.manual_seed(0)
    theirs(torch.tensor(x, dtype=torch.float32))
    ours(tensorlib.tensor(x, dtype=tensorlib.float32))
    assert type(ours).__name__ == type(theirs).__name__ == becomes
    assert not isinstance(ours, LazyModuleMixin)
    assert {k: tuple(v.shape) for k, v in ours.state_dict().items()} == state
    assert repr(ours) == repr(theirs)
    assert all(type(p) is nn.Parameter for p in ours.parameters())
    # initialised as torch's non-lazy class would be: copy torch's values, then outputs and gradients agree
    ours.load_state_dict({k: tensorlib.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    ours.train(theirs.training)
    tx, lx = torch.tensor(x, dtype=torch.float32, requires_grad=True), tensorlib.tensor(x, dtype=tensorlib.float32,
                                                                                        requires_grad=True)
    a, b = theirs(tx), ours(lx)
    np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), rtol=1e-4, atol=1e-5)
    g = RNG.standard_normal(tuple(a.shape)).astype(np.float32)
    a.backward(torch.tensor(g))
    b.backward(tensorlib.tensor(g))
    np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-5)


def test_uninitialized_parameter_refuses_use():
    torch = pytest.importorskip("torch")
    for lib in (tensorlib, torch):
        p = lib.nn.parameter.UninitializedParameter()
        assert repr(p) == "<UninitializedParameter>"
        assert isinstance(p, lib.nn.Parameter) and lib.nn.parameter.is_lazy(p) and p.requires_grad
        with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized parameter"):
            p.shape
        with pytest.raises(ValueError, match="Attempted to use an uninitialized parameter in"):
            p + 1
        with pytest.raises(ValueError, match="Attempted to use an uninitialized parameter in"):
            lib.sum(p)
        with pytest.raises(RuntimeError, match="Can't share memory on an uninitialized parameter"):
            p.share_memory_()
        assert p.size() == (0,) and p.is_floating_point() and p.dtype == lib.float32
        assert p.to(lib.float64).dtype == lib.float64
        p.materialize((2, 3))
        assert type(p) is lib.nn.Parameter and tuple(p.shape) == (2, 3) and p.requires_grad
        b = lib.nn.parameter.UninitializedBuffer(dtype=lib.float64)
        assert repr(b) == "<UninitializedBuffer>" and not b.requires_grad
        b.materialize(4)
        assert type(b) is lib.Tensor and tuple(b.shape) == (4,) and b.dtype == lib.float64


def test_uninitialized_parameter_copies_and_pickles():
    p = UninitializedParameter(requires_grad=False, dtype=tensorlib.float64)
    q = copy.deepcopy(p)
    assert type(q) is UninitializedParameter and not q.requires_grad and q.dtype == tensorlib.float64
    r = pickle.loads(pickle.dumps(p))
    assert type(r) is UninitializedParameter and not r.requires_grad
    assert is_lazy(UninitializedBuffer()) and not is_lazy(nn.Parameter(tensorlib.ones(1)))
    assert nn.UninitializedParameter is UninitializedParameter and nn.UninitializedBuffer is UninitializedBuffer


def test_lazy_module_state_dict_before_and_after():
    m = nn.LazyLinear(3)
    state = m.state_dict()
    assert all(is_lazy(v) for v in state.values())
    fresh = nn.Linear(2, 3)
    with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized parameter"):
        fresh.load_state_dict(state)  # an uninitialised state into an initialised module, as in torch
    # loading into a lazy module materializes it with the shapes loaded
    source = nn.Linear(2, 3)
    target = nn.LazyLinear(3)
    assert str(target.load_state_dict(source.state_dict())) == "<All keys matched successfully>"
    assert type(target).__name__ == "LazyLinear" and not target.has_uninitialized_params()
    assert tensorlib.equal(target.weight, source.weight)
    out = target(tensorlib.ones(1, 2))
    assert type(target) is nn.Linear and target.in_features == 2
    assert tensorlib.allclose(out, source(tensorlib.ones(1, 2)))
    # a lazy module's state loads into another lazy module: still lazy
    other = nn.LazyLinear(3)
    other.load_state_dict(nn.LazyLinear(3).state_dict())
    assert other.has_uninitialized_params()


def test_lazy_module_hooks_and_errors():
    m = nn.LazyLinear(2)
    assert "_initialize_hook" in vars(m) and "_load_hook" in vars(m)
    m(tensorlib.ones(3))
    assert "_initialize_hook" not in vars(m) and "_load_hook" not in vars(m) and not m._forward_pre_hooks
    conv = nn.LazyConv2d(4, 3, groups=2)
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        conv(tensorlib.ones(1, 3, 5, 5))
    with pytest.raises(RuntimeError, match=r"Expected 3D \(unbatched\) or 4D \(batched\) input to LazyConv2d"):
        nn.LazyConv2d(4, 3)(tensorlib.ones(5, 5))
    model = nn.Sequential(nn.LazyLinear(8), nn.ReLU(), nn.LazyLinear(1))
    assert model(tensorlib.randn(4, 5)).shape == (4, 1)
    assert [tuple(p.shape) for p in model.parameters()] == [(8, 5), (8,), (1, 8), (1,)]

    class Broken(LazyModuleMixin, nn.Module):
        def __init__(self):
            super().__init__()
            self.w = UninitializedParameter()

    with pytest.raises(NotImplementedError, match="initialize_parameters is not implemented for Broken"):
        Broken()(tensorlib.ones(1))

    class Incomplete(Broken):
        def initialize_parameters(self, x):
            pass

    with pytest.raises(RuntimeError, match="module Incomplete has not been fully initialized"):
        Incomplete()(tensorlib.ones(1))


def test_lazy_modules_train_like_their_eager_forms():
    # a lazy MLP and a conv net learn (the materialized parameters are the optimizer's)
    tensorlib.manual_seed(0)
    model = nn.Sequential(nn.LazyConv1d(4, 3), nn.LazyBatchNorm1d(), nn.ReLU(), nn.Flatten(), nn.LazyLinear(1))
    x = tensorlib.randn(16, 2, 8)
    y = x.sum((1, 2)).unsqueeze(1)
    model(x)
    opt = tensorlib.optim.Adam(model.parameters(), lr=0.05)
    losses = []
    for _ in range(30):
        opt.zero_grad()
        loss = tensorlib.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.3 * losses[0]
