"""nn.Parameter, nn.init initialisers, Linear's initialisation, and seed 002's custom Linear module."""

from __future__ import annotations

import copy
import math
import pickle

import numpy as np
import pytest

import tensorlib
import tensorlib.nn as nn

from tests.autograd.functions import LinearFunction
from tests.helpers import assert_close


# -- Parameter ------------------------------------------------------------------------------------


def test_parameter_basics():
    data = tensorlib.tensor([1.0, 2.0])
    p = nn.Parameter(data)
    assert isinstance(p, tensorlib.Tensor) and isinstance(p, nn.Parameter)
    assert p.requires_grad and p.is_leaf and p.grad_fn is None
    data[0] = 5.0  # shares memory with its data
    assert p[0].item() == 5.0
    assert not nn.Parameter(tensorlib.ones(2), requires_grad=False).requires_grad
    empty = nn.Parameter()
    assert empty.shape == (0,) and empty.requires_grad


def test_parameter_repr_matches_torch():
    torch = pytest.importorskip("torch")
    pairs = [
        (nn.Parameter(tensorlib.tensor([1.0, 2.0])), torch.nn.Parameter(torch.tensor([1.0, 2.0]))),
        (nn.Parameter(tensorlib.ones(2, 3, dtype=tensorlib.float64), requires_grad=False),
         torch.nn.Parameter(torch.ones(2, 3, dtype=torch.float64), requires_grad=False)),
        (nn.Parameter(), torch.nn.Parameter()),
    ]
    for ours, theirs in pairs:
        assert repr(ours) == repr(theirs).replace("torch.", "tensorlib.")
    assert repr(pairs[0][0]) == "Parameter containing:\ntensor([1., 2.], requires_grad=True)"


def test_parameter_ops_return_plain_tensors():
    p = nn.Parameter(tensorlib.ones(2))
    y = p * 2
    assert type(y) is tensorlib.Tensor and y.grad_fn is not None
    y.sum().backward()
    assert_close(p.grad, [2.0, 2.0])


class _Subclass(tensorlib.Tensor):
    pass


def test_parameter_of_a_tensor_subclass_keeps_the_subclass():
    # as torch: the subclass instance is detached and marked, and counts as a Parameter
    s = tensorlib.tensor([1.0, 2.0]).as_subclass(_Subclass)
    p = nn.Parameter(s)
    assert type(p) is _Subclass and isinstance(p, nn.Parameter)
    assert p.requires_grad and p.is_leaf and p is not s and not s.requires_grad
    assert not isinstance(s, nn.Parameter) and not isinstance(tensorlib.ones(1), nn.Parameter)
    assert repr(p) == "Parameter(_Subclass([1., 2.], requires_grad=True))"
    assert type(nn.Parameter(p)) is _Subclass  # already a marked instance: stays one
    assert not nn.Parameter(s, requires_grad=False).requires_grad
    m = nn.Module()
    m.w = p
    assert [name for name, _ in m.named_parameters()] == ["w"] and m.w is p
    (m.w * 3).sum().backward()
    assert_close(p.grad, [3.0, 3.0])


def test_parameter_of_a_subclass_whose_detach_changes_type_is_refused():
    class PlainDetach(nn.Parameter):
        pass  # its ops (detach included) return plain tensors, as Parameter's do

    with pytest.raises(RuntimeError, match="requires that detach\\(\\) returns an instance of the same type"):
        nn.Parameter(PlainDetach(tensorlib.zeros(1)))


def test_parameter_errors():
    with pytest.raises(TypeError, match="expected a Tensor"):
        nn.Parameter([1.0, 2.0])
    with pytest.raises(RuntimeError, match="floating point"):
        nn.Parameter(tensorlib.tensor([1, 2]))
    assert not nn.Parameter(tensorlib.tensor([1, 2]), requires_grad=False).requires_grad


def test_parameter_inplace_needs_no_grad_or_data():
    p = nn.Parameter(tensorlib.zeros(3))
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        p.add_(1)
    with tensorlib.no_grad():
        p.add_(1)
    p.data.mul_(3)
    assert p.tolist() == [3.0, 3.0, 3.0] and isinstance(p, nn.Parameter)


def test_parameter_copy_and_pickle():
    p = nn.Parameter(tensorlib.tensor([1.0, 2.0]))
    c = copy.deepcopy(p)
    assert type(c) is nn.Parameter and c.requires_grad and c is not p
    c.data.fill_(0.0)
    assert p.tolist() == [1.0, 2.0]
    q = pickle.loads(pickle.dumps(p))
    assert type(q) is nn.Parameter and q.tolist() == [1.0, 2.0] and q.requires_grad


# -- init -----------------------------------------------------------------------------------------


def test_calculate_gain_matches_torch():
    torch = pytest.importorskip("torch")
    for args in [("linear",), ("conv2d",), ("sigmoid",), ("tanh",), ("relu",), ("leaky_relu",), ("leaky_relu", 0.2),
                 ("selu",)]:
        assert nn.init.calculate_gain(*args) == torch.nn.init.calculate_gain(*args)
    with pytest.raises(ValueError, match="Unsupported nonlinearity"):
        nn.init.calculate_gain("foo")
    with pytest.raises(ValueError, match="not a valid number"):
        nn.init.calculate_gain("leaky_relu", "x")


def _sample(fn, shape, *args, **kwargs):
    t = tensorlib.empty(*shape, dtype=tensorlib.float64)
    assert fn(t, *args, **kwargs) is t
    return t.numpy()


def test_uniform_normal_constant():
    a = _sample(nn.init.uniform_, (200, 100), -2.0, 3.0)
    assert a.min() >= -2.0 and a.max() < 3.0 and abs(a.mean() - 0.5) < 0.05
    a = _sample(nn.init.normal_, (200, 100), 1.0, 0.5)
    assert abs(a.mean() - 1.0) < 0.02 and abs(a.std() - 0.5) < 0.02
    assert np.all(_sample(nn.init.constant_, (3, 2), 1.5) == 1.5)
    assert np.all(_sample(nn.init.zeros_, (3, 2)) == 0)
    assert np.all(_sample(nn.init.ones_, (3, 2)) == 1)
    assert np.array_equal(_sample(nn.init.eye_, (2, 3)), np.eye(2, 3))
    t = _sample(nn.init.trunc_normal_, (5000,), 0.0, 1.0, -0.5, 0.5)
    assert t.min() >= -0.5 and t.max() <= 0.5


def test_trunc_normal_follows_the_truncated_law_and_any_bounds():
    def phi(z):
        return math.exp(-z * z / 2) / math.sqrt(2 * math.pi)

    def cdf(z):
        return 0.5 * math.erfc(-z / math.sqrt(2))

    tensorlib.manual_seed(0)
    t = nn.init.trunc_normal_(tensorlib.empty(400_000, dtype=tensorlib.float64), 0.5, 1.5, -1.0, 2.0).numpy()
    lo, hi = (-1.0 - 0.5) / 1.5, (2.0 - 0.5) / 1.5
    expected_mean = 0.5 + 1.5 * (phi(lo) - phi(hi)) / (cdf(hi) - cdf(lo))
    assert t.min() >= -1.0 and t.max() <= 2.0 and abs(t.mean() - expected_mean) < 0.01
    with pytest.warns(UserWarning, match="mean is more than 2 std from"):
        far = nn.init.trunc_normal_(tensorlib.empty(1000), 0.0, 1.0, 5.0, 6.0)  # one draw each, no rejection loop
    assert float(far.min()) >= 5.0 and float(far.max()) <= 6.0
    with pytest.raises(RuntimeError, match="uniform_ expects to return a"):
        nn.init.trunc_normal_(tensorlib.empty(3), 0.0, 1.0, 2.0, 1.0)


def _fans(shape):
    receptive = int(np.prod(shape[2:])) if len(shape) > 2 else 1
    return shape[1] * receptive, shape[0] * receptive


@pytest.mark.parametrize("shape", [(300, 200), (64, 16, 3, 3)])
def test_xavier_and_kaiming_bounds_and_spread(shape):
    fan_in, fan_out = _fans(shape)
    a = _sample(nn.init.xavier_uniform_, shape, gain=2.0)
    bound = 2.0 * math.sqrt(6.0 / (fan_in + fan_out))
    assert a.min() >= -bound and a.max() <= bound and a.max() > 0.98 * bound
    a = _sample(nn.init.xavier_normal_, shape)
    assert abs(a.std() - math.sqrt(2.0 / (fan_in + fan_out))) < 0.03 * a.std()
    a = _sample(nn.init.kaiming_uniform_, shape, a=0, mode="fan_out", nonlinearity="relu")
    bound = math.sqrt(2.0) * math.sqrt(3.0 / fan_out)
    assert a.min() >= -bound and a.max() <= bound and a.max() > 0.98 * bound
    a = _sample(nn.init.kaiming_normal_, shape, nonlinearity="relu")
    assert abs(a.std() - math.sqrt(2.0 / fan_in)) < 0.03 * a.std()


@pytest.mark.parametrize(
    "name, args, kwargs",
    [("uniform_", (-0.5, 2.0), {}), ("normal_", (1.0, 0.3), {}), ("xavier_uniform_", (), {"gain": 1.5}),
     ("xavier_normal_", (), {}), ("kaiming_uniform_", (), {"a": math.sqrt(5)}),
     ("kaiming_uniform_", (), {"mode": "fan_out", "nonlinearity": "relu"}),
     ("kaiming_normal_", (), {"nonlinearity": "tanh"}), ("trunc_normal_", (0.0, 1.0, -1.0, 1.5), {})],
    ids=lambda v: str(v),
)
def test_init_distributions_match_torch(name, args, kwargs):
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    shape = (120, 30, 3, 3)
    ours = getattr(nn.init, name)(tensorlib.empty(*shape, dtype=tensorlib.float64), *args, **kwargs).numpy().ravel()
    theirs = getattr(torch.nn.init, name)(torch.empty(*shape, dtype=torch.float64), *args, **kwargs).numpy().ravel()
    qs = np.linspace(0.01, 0.99, 15)
    spread = theirs.std()
    np.testing.assert_allclose(np.quantile(ours, qs), np.quantile(theirs, qs), atol=0.06 * spread)  # ~4 sigma
    if "uniform" in name or "trunc" in name:  # bounded: the same support
        np.testing.assert_allclose([ours.min(), ours.max()], [theirs.min(), theirs.max()], atol=0.01 * spread)


def test_orthogonal_and_sparse_and_dirac():
    q = _sample(nn.init.orthogonal_, (4, 6), gain=2.0)
    np.testing.assert_allclose(q @ q.T, 4.0 * np.eye(4), atol=1e-10)
    s = _sample(nn.init.sparse_, (10, 5), 0.3)
    assert all((s[:, c] == 0).sum() >= 3 for c in range(5))
    d = _sample(nn.init.dirac_, (2, 2, 3))
    assert d[0, 0, 1] == 1 and d[1, 1, 1] == 1 and d.sum() == 2


def test_init_errors():
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        nn.init.xavier_uniform_(tensorlib.ones(3))
    with pytest.raises(ValueError, match="Mode fan_avg not supported"):
        nn.init.kaiming_uniform_(tensorlib.ones(2, 2), mode="fan_avg")
    with pytest.raises(ValueError, match="2 or more dimensions"):
        nn.init.orthogonal_(tensorlib.ones(3))
    with pytest.raises(ValueError, match="Only tensors with 2 dimensions"):
        nn.init.eye_(tensorlib.ones(3))
    with pytest.raises(TypeError, match="must be Tensor"):
        nn.init.uniform_([1.0, 2.0])


def test_init_on_parameters_is_not_recorded_and_is_reproducible():
    p = nn.Parameter(tensorlib.empty(3, 4))
    tensorlib.manual_seed(7)
    nn.init.kaiming_uniform_(p, a=math.sqrt(5))
    assert p.requires_grad and p.is_leaf and p.grad_fn is None
    first = p.detach().clone()
    tensorlib.manual_seed(7)
    nn.init.kaiming_uniform_(p, a=math.sqrt(5))
    assert np.array_equal(first.numpy(), p.detach().numpy())
    g = tensorlib.Generator().manual_seed(1)
    h = tensorlib.Generator().manual_seed(1)
    assert np.array_equal(nn.init.normal_(tensorlib.empty(5), generator=g).numpy(),
                          nn.init.normal_(tensorlib.empty(5), generator=h).numpy())


def test_init_preserves_dtype():
    t = tensorlib.empty(4, 4, dtype=tensorlib.float16)
    nn.init.xavier_normal_(t)
    assert t.dtype is tensorlib.float16


# -- Linear ------------------------------------------------------------------------------------------


def test_linear_shapes_and_forward():
    m = nn.Linear(5, 3)
    assert m.weight.shape == (3, 5) and m.bias.shape == (3,)
    assert isinstance(m.weight, nn.Parameter)
    x = tensorlib.randn(7, 5)
    out = m(x)
    np.testing.assert_allclose(out.detach().numpy(),
                               x.numpy() @ m.weight.detach().numpy().T + m.bias.detach().numpy(), rtol=1e-6)
    assert m(tensorlib.randn(2, 4, 5)).shape == (2, 4, 3)
    assert m(tensorlib.randn(5)).shape == (3,)
    nb = nn.Linear(5, 3, bias=False)
    assert nb.bias is None and [n for n, _ in nb.named_parameters()] == ["weight"]
    assert nn.Linear(2, 2, dtype=tensorlib.float64).weight.dtype is tensorlib.float64
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(7x4 and 5x3\)"):
        m(tensorlib.randn(7, 4))


def test_linear_init_distribution_matches_torch():
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    in_features, out_features = 400, 300
    ours = nn.Linear(in_features, out_features)
    theirs = torch.nn.Linear(in_features, out_features)
    bound = 1 / math.sqrt(in_features)  # kaiming_uniform_(a=sqrt(5)) and the bias rule both give this
    for a, b, tol in ((ours.weight, theirs.weight, 0.02), (ours.bias, theirs.bias, 0.3)):  # 120000 vs 300 samples
        a, b = a.detach().numpy(), b.detach().numpy()
        assert a.dtype == b.dtype
        assert np.abs(a).max() <= bound and np.abs(b).max() <= bound
        qs = np.linspace(0.05, 0.95, 7)
        np.testing.assert_allclose(np.quantile(a, qs), np.quantile(b, qs), atol=tol * bound)
        np.testing.assert_allclose(a.std(), b.std(), rtol=tol)


def test_linear_gradients_match_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    w, b, x = rng.standard_normal((3, 5)), rng.standard_normal(3), rng.standard_normal((4, 5))
    m = nn.Linear(5, 3, dtype=tensorlib.float64)
    tm = torch.nn.Linear(5, 3, dtype=torch.float64)
    m.load_state_dict({"weight": tensorlib.tensor(w), "bias": tensorlib.tensor(b)})
    tm.load_state_dict({"weight": torch.tensor(w), "bias": torch.tensor(b)})
    xi, txi = tensorlib.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    (m(xi).tanh() ** 2).sum().backward()
    (tm(txi).tanh() ** 2).sum().backward()
    np.testing.assert_allclose(m.weight.grad.numpy(), tm.weight.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(m.bias.grad.numpy(), tm.bias.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(xi.grad.numpy(), txi.grad.numpy(), rtol=1e-12)


# -- seed 002: a custom Linear module on top of a custom Function ------------------------------------


class SeedLinear(nn.Module):
    """Seed 002's module, as written there (``torch`` replaced)."""

    def __init__(self, input_features, output_features, bias=True):
        super(SeedLinear, self).__init__()
        self.input_features = input_features
        self.output_features = output_features
        self.weight = nn.Parameter(tensorlib.Tensor(output_features, input_features))
        if bias:
            self.bias = nn.Parameter(tensorlib.Tensor(output_features))
        else:
            self.register_parameter("bias", None)
        self.weight.data.uniform_(-0.1, 0.1)
        if self.bias is not None:
            self.bias.data.uniform_(-0.1, 0.1)

    def forward(self, input):
        return LinearFunction.apply(input, self.weight, self.bias)

    def extra_repr(self):
        return "input_features={}, output_features={}, bias={}".format(
            self.input_features, self.output_features, self.bias is not None
        )


def test_seed_002_linear_module():
    m = SeedLinear(4, 3)
    assert repr(m) == "SeedLinear(input_features=4, output_features=3, bias=True)"
    assert repr(SeedLinear(4, 3, bias=False)) == "SeedLinear(input_features=4, output_features=3, bias=False)"
    assert [n for n, _ in m.named_parameters()] == ["weight", "bias"]
    assert np.abs(m.weight.detach().numpy()).max() <= 0.1
    x = tensorlib.randn(5, 4)
    out = m(x)
    assert type(out.grad_fn).__name__ == "LinearFunctionBackward"
    out.sum().backward()
    assert_close(m.bias.grad, [5.0, 5.0, 5.0])
    assert_close(m.weight.grad, np.tile(x.numpy().sum(0), (3, 1)), rtol=1e-5)
    # the custom module trains like the built-in one
    opt = tensorlib.optim.SGD(m.parameters(), lr=0.1)
    target = tensorlib.randn(5, 3)
    losses = []
    for _ in range(20):
        opt.zero_grad()
        loss = ((m(x) - target) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < losses[0]


def test_seed_002_module_matches_torch_module_repr():
    torch = pytest.importorskip("torch")

    class TorchSeedLinear(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.input_features, self.output_features = 4, 3

        extra_repr = SeedLinear.extra_repr

    class Wrapper(nn.Module):
        def __init__(self):
            super().__init__()
            self.layer = SeedLinear(4, 3)

    class TorchWrapper(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.layer = TorchSeedLinear()
            self.layer.bias = torch.nn.Parameter(torch.ones(1))

    TorchSeedLinear.__name__ = "SeedLinear"
    TorchWrapper.__name__ = "Wrapper"
    assert repr(Wrapper()) == repr(TorchWrapper())


def test_seed_000_module_without_super_init_gets_a_clear_error():
    class OldLinear(nn.Module):
        def __init__(self, input_features, output_features):
            self.input_features = input_features
            self.weight = nn.Parameter(tensorlib.Tensor(input_features, output_features))

    with pytest.raises(AttributeError, match=r"cannot assign parameters before Module.__init__\(\) call"):
        OldLinear(3, 2)
