"""nn.Module: registration, traversal, state dicts, modes, hooks and printing."""

from __future__ import annotations

import copy
import pickle
from collections import OrderedDict

import numpy as np
import pytest

import tensorlib
import tensorlib.nn as nn

from tests.helpers import assert_close


def _build(lib):
    """The same model in either library (``lib`` is tensorlib or torch)."""

    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = lib.nn.Linear(4, 8)
            self.act = lib.nn.ReLU()
            self.seq = lib.nn.Sequential(lib.nn.Linear(8, 8, bias=False), lib.nn.ReLU(inplace=True), lib.nn.Dropout(0.2))
            self.head = lib.nn.Sequential(
                OrderedDict([("lin", lib.nn.Linear(8, 3)), ("sm", lib.nn.LogSoftmax(dim=1))])
            )
            self.register_buffer("running", lib.zeros(3))
            self.register_buffer("tmp", lib.ones(2), persistent=False)
            self.scale = lib.nn.Parameter(lib.ones(1))
            self.ml = lib.nn.ModuleList([lib.nn.Identity(), lib.nn.Tanh()])
            self.md = lib.nn.ModuleDict({"a": lib.nn.Sigmoid(), "b": lib.nn.LayerNorm(3)})
            self.empty = lib.nn.Sequential()

        def forward(self, x):
            return self.head(self.seq(self.act(self.fc1(x)))) * self.scale

    return Net()


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def test_model_repr_matches_torch(torch):
    assert repr(_build(tensorlib)) == repr(_build(torch))


def test_module_reprs_match_torch(torch):
    cases = {
        "ReLU": [(), (True,)], "ReLU6": [()], "LeakyReLU": [(), (0.2, True)], "ELU": [(), (0.5, True)], "SELU": [()],
        "GELU": [(), ("tanh",)], "SiLU": [()], "Hardtanh": [(), (-2.0, 2.0, True)], "Threshold": [(0.1, 20.0)],
        "Sigmoid": [()], "Tanh": [()], "Softplus": [(), (2, 10)], "Softshrink": [(0.3,)], "Softmax": [(), (1,)],
        "LogSoftmax": [(-1,)], "GLU": [()], "Identity": [(), (3, 4)], "Linear": [(3, 4), (3, 4, False)],
        "Bilinear": [(2, 3, 4)], "MSELoss": [(), (None, None, "sum")], "CrossEntropyLoss": [()], "NLLLoss": [()],
        "BCELoss": [()], "BCEWithLogitsLoss": [()], "Dropout": [(), (0.1, True)], "Flatten": [(), (0, 2)],
        "Unflatten": [(1, (2, 3))], "LayerNorm": [(4,), ((2, 3), 1e-3, False), (4, 1e-5, True, False)],
        "Embedding": [(5, 3), (5, 3, 0), (5, 3, None, 2.0)],
    }
    for name, arglist in cases.items():
        for args in arglist:
            assert repr(getattr(nn, name)(*args)) == repr(getattr(torch.nn, name)(*args)), (name, args)


def test_seed_style_extra_repr_and_nesting(torch):
    def make(lib):
        class Custom(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.inner = lib.nn.Linear(2, 2)

            def extra_repr(self):
                return "multi\nline"

        return lib.nn.Sequential(Custom(), lib.nn.Sequential(Custom()))

    assert repr(make(tensorlib)) == repr(make(torch))


def test_parameters_and_names_match_torch(torch):
    a, b = _build(tensorlib), _build(torch)
    assert [n for n, _ in a.named_parameters()] == [n for n, _ in b.named_parameters()]
    assert [tuple(p.shape) for p in a.parameters()] == [tuple(p.shape) for p in b.parameters()]
    assert [n for n, _ in a.named_buffers()] == [n for n, _ in b.named_buffers()]
    assert [n for n, _ in a.named_modules()] == [n for n, _ in b.named_modules()]
    assert [n for n, _ in a.named_children()] == [n for n, _ in b.named_children()]
    assert list(a.state_dict()) == list(b.state_dict())
    assert [n for n, _ in a.named_parameters(recurse=False)] == [n for n, _ in b.named_parameters(recurse=False)]
    assert [n for n, _ in a.named_parameters(prefix="model")] == [n for n, _ in b.named_parameters(prefix="model")]


def test_loading_torch_weights_gives_torch_outputs(torch):
    a, b = _build(tensorlib), _build(torch)
    a.load_state_dict({k: tensorlib.tensor(v.detach().numpy()) for k, v in b.state_dict().items()})
    a.eval()
    b.eval()
    x = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
    np.testing.assert_allclose(a(tensorlib.tensor(x)).detach().numpy(), b(torch.tensor(x)).detach().numpy(),
                               rtol=1e-5, atol=1e-6)


def test_attribute_registration():
    m = nn.Module()
    m.w = nn.Parameter(tensorlib.ones(2))
    m.sub = nn.Linear(2, 2)
    m.plain = tensorlib.ones(2)  # a plain tensor is neither a parameter nor a buffer
    m.number = 3
    assert list(dict(m.named_parameters())) == ["w", "sub.weight", "sub.bias"]
    assert list(m.buffers()) == []
    assert m.number == 3 and "plain" not in m.state_dict()
    # replacing with None keeps the slot registered, as torch
    m.w = None
    assert "w" in m._parameters and m.w is None
    assert list(dict(m.named_parameters())) == ["sub.weight", "sub.bias"]
    del m.sub
    assert not hasattr(m, "sub")
    with pytest.raises(AttributeError, match="'Module' object has no attribute 'sub'"):
        m.sub


def test_reassigning_kinds():
    m = nn.Module()
    m.x = nn.Parameter(tensorlib.ones(1))
    with pytest.raises(TypeError, match=r"cannot assign 'tensorlib.nn.modules.linear.Linear' as parameter 'x' "
                                        r"\(tensorlib.nn.Parameter or None expected\)"):
        m.x = nn.Linear(1, 1)
    assert isinstance(m.x, nn.Parameter)
    m.register_buffer("b", tensorlib.zeros(1))
    m.b = tensorlib.ones(2)  # a tensor assigned to a buffer name updates the buffer
    assert m.b.tolist() == [1.0, 1.0] and "b" in m.state_dict()
    with pytest.raises(TypeError, match="cannot assign 'int' as buffer 'b'"):
        m.b = 3
    m.b = nn.Linear(1, 1)  # a module takes the name over, as torch
    assert "b" not in m._buffers and isinstance(m.b, nn.Linear)


def test_register_parameter_errors():
    m = nn.Linear(3, 2)
    with pytest.raises(TypeError, match="cannot assign 'tensorlib.FloatTensor' as parameter 'weight'"):
        m.weight = tensorlib.ones(2, 3)
    with pytest.raises(TypeError, match="nn.Parameter or None"):
        m.register_parameter("w2", tensorlib.ones(2))
    with pytest.raises(KeyError, match="contain"):
        m.register_parameter("a.b", None)
    with pytest.raises(KeyError, match="empty string"):
        m.register_parameter("", None)
    with pytest.raises(TypeError, match="should be a string"):
        m.register_parameter(3, None)
    with pytest.raises(KeyError, match="already exists"):
        m.register_parameter("forward", None)
    with pytest.raises(ValueError, match="non-leaf"):
        m.register_parameter("w3", _non_leaf_parameter())
    assert [n for n, _ in m.named_parameters()] == ["weight", "bias"]


def _non_leaf_parameter():
    p = nn.Parameter(tensorlib.ones(2))
    out = p.as_subclass(nn.Parameter)  # a Parameter with history
    assert out.grad_fn is not None
    return out


def test_register_buffer():
    m = nn.Module()
    m.register_buffer("persist", tensorlib.zeros(2))
    m.register_buffer("scratch", tensorlib.ones(2), persistent=False)
    m.register_buffer("nothing", None)
    assert [n for n, _ in m.named_buffers()] == ["persist", "scratch"]
    assert list(m.state_dict()) == ["persist"]
    assert m.scratch.tolist() == [1.0, 1.0] and m.nothing is None
    with pytest.raises(TypeError, match="cannot assign 'list' object to buffer 'b2'"):
        m.register_buffer("b2", [1])
    with pytest.raises(KeyError, match="contain"):
        m.register_buffer("a.b", None)
    m.register_buffer("persist", tensorlib.zeros(2), persistent=False)  # re-registering switches persistence
    assert list(m.state_dict()) == []


def test_buffer_class_registers_on_assignment():
    m = nn.Module()
    m.stat = nn.Buffer(tensorlib.ones(3))
    m.temp = nn.Buffer(tensorlib.ones(1), persistent=False)
    assert [n for n, _ in m.named_buffers()] == ["stat", "temp"]
    assert list(m.state_dict()) == ["stat"]
    assert type(m.stat) is tensorlib.Tensor


def test_assigning_before_init_is_an_error():
    class NoInit(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(tensorlib.ones(1))

    class NoInitModule(nn.Module):
        def __init__(self):
            self.sub = nn.ReLU()

    with pytest.raises(AttributeError, match=r"cannot assign parameters before Module.__init__\(\) call"):
        NoInit()
    with pytest.raises(AttributeError, match=r"cannot assign module before Module.__init__\(\) call"):
        NoInitModule()


def test_shared_parameters_are_listed_once():
    lin = nn.Linear(2, 2)
    seq = nn.Sequential(lin, nn.ReLU(), lin)
    assert len(list(seq.parameters())) == 2
    assert len(list(seq.modules())) == 3
    assert len(list(seq.named_parameters(remove_duplicate=False))) == 4
    assert list(seq.state_dict()) == ["0.weight", "0.bias", "2.weight", "2.bias"]


def test_children_and_modules_order():
    m = _build(tensorlib)
    assert [type(c).__name__ for c in m.children()] == ["Linear", "ReLU", "Sequential", "Sequential", "ModuleList",
                                                          "ModuleDict", "Sequential"]
    names = [n for n, _ in m.named_modules()]
    assert names[:4] == ["", "fc1", "act", "seq"]
    assert "head.lin" in names and "md.b" in names
    assert m.get_submodule("head.lin") is m.head.lin
    assert m.get_parameter("head.lin.bias") is m.head.lin.bias
    assert m.get_buffer("running") is m.running
    with pytest.raises(AttributeError, match="has no attribute `nope`"):
        m.get_submodule("nope")
    with pytest.raises(AttributeError, match="no parameter"):
        m.get_parameter("fc1.nope")


def test_state_dict_values_are_detached_and_shared():
    m = nn.Linear(3, 2)
    sd = m.state_dict()
    assert isinstance(sd, OrderedDict)
    assert not sd["weight"].requires_grad
    sd["weight"][0, 0] = 42.0  # shares memory with the parameter, as torch
    assert m.weight[0, 0].item() == 42.0
    kept = m.state_dict(keep_vars=True)
    assert kept["weight"] is m.weight


def test_load_state_dict_copies_values():
    src, dst = nn.Linear(3, 2), nn.Linear(3, 2)
    w_before = dst.weight
    result = dst.load_state_dict(src.state_dict())
    assert repr(result) == "<All keys matched successfully>"
    assert result.missing_keys == [] and result.unexpected_keys == []
    assert dst.weight is w_before  # copied into the existing parameter
    assert np.array_equal(dst.weight.detach().numpy(), src.weight.detach().numpy())
    src.weight.data.fill_(7.0)
    assert dst.weight[0, 0].item() != 7.0  # not aliased to the source
    assert dst.weight.requires_grad and dst.weight.is_leaf


def test_load_state_dict_strict_errors():
    m = _build(tensorlib)
    sd = dict(m.state_dict())
    sd.pop("fc1.weight")
    sd["extra"] = tensorlib.zeros(1)
    before = m.fc1.bias.detach().clone()
    with pytest.raises(RuntimeError) as info:
        m.load_state_dict(sd)
    assert str(info.value) == (
        'Error(s) in loading state_dict for Net:\n\tMissing key(s) in state_dict: "fc1.weight". \n\t'
        'Unexpected key(s) in state_dict: "extra". '
    )
    result = m.load_state_dict(sd, strict=False)
    assert result.missing_keys == ["fc1.weight"] and result.unexpected_keys == ["extra"]
    assert repr(result) == "_IncompatibleKeys(missing_keys=['fc1.weight'], unexpected_keys=['extra'])"
    assert np.array_equal(m.fc1.bias.detach().numpy(), before.numpy())


def test_load_state_dict_errors_match_torch(torch):
    a, b = _build(tensorlib), _build(torch)
    sd = {k: v.detach().numpy() for k, v in b.state_dict().items()}
    sd["fc1.weight"] = np.zeros((3, 3), dtype=np.float32)
    del sd["running"]
    sd["unknown.weight"] = np.zeros(1, dtype=np.float32)
    with pytest.raises(RuntimeError) as ours:
        a.load_state_dict({k: tensorlib.tensor(v) for k, v in sd.items()})
    with pytest.raises(RuntimeError) as theirs:
        b.load_state_dict({k: torch.tensor(v) for k, v in sd.items()})
    assert str(ours.value) == str(theirs.value).replace("torch.", "tensorlib.")


def test_load_state_dict_shape_mismatch_is_reported_even_when_not_strict():
    m = nn.Linear(3, 2)
    with pytest.raises(RuntimeError, match=r"size mismatch for weight: copying a param with shape "
                                           r"tensorlib.Size\(\[3, 3\]\) from checkpoint, the shape in current model is "
                                           r"tensorlib.Size\(\[2, 3\]\)"):
        m.load_state_dict({"weight": tensorlib.zeros(3, 3), "bias": tensorlib.zeros(2)}, strict=False)


def test_load_state_dict_rejects_non_dicts_and_non_tensors():
    m = nn.Linear(2, 2)
    with pytest.raises(TypeError, match="Expected state_dict to be dict-like"):
        m.load_state_dict([("weight", tensorlib.zeros(2, 2))])
    with pytest.raises(RuntimeError, match='While copying the parameter named "weight"'):
        m.load_state_dict({"weight": [[0.0, 0.0], [0.0, 0.0]], "bias": tensorlib.zeros(2)})


def test_load_state_dict_converts_dtype_and_buffers():
    m = nn.Module()
    m.register_buffer("count", tensorlib.zeros(2, dtype=tensorlib.int64))
    m.w = nn.Parameter(tensorlib.zeros(2))
    m.load_state_dict({"count": tensorlib.tensor([3, 4]), "w": tensorlib.tensor([1.0, 2.0], dtype=tensorlib.float64)})
    assert m.count.tolist() == [3, 4]
    assert m.w.dtype is tensorlib.float32 and m.w.tolist() == [1.0, 2.0]


def test_train_eval():
    m = _build(tensorlib)
    assert m.training and all(mod.training for mod in m.modules())
    assert m.eval() is m
    assert not any(mod.training for mod in m.modules())
    m.train()
    assert all(mod.training for mod in m.modules())
    m.seq.train(False)
    assert m.training and not m.seq[2].training
    with pytest.raises(ValueError, match="training mode is expected to be boolean"):
        m.train("yes")


def test_dropout_follows_train_and_eval():
    d = nn.Dropout(0.5)
    x = tensorlib.ones(1000)
    out = d(x)
    assert set(np.unique(out.numpy())) <= {0.0, 2.0} and 300 < (out.numpy() == 0).sum() < 700
    d.eval()
    assert d(x) is x


def test_zero_grad():
    m = nn.Linear(3, 2)
    m(tensorlib.randn(4, 3)).sum().backward()
    assert m.weight.grad is not None
    m.zero_grad()
    assert m.weight.grad is None and m.bias.grad is None
    m(tensorlib.randn(4, 3)).sum().backward()
    g = m.weight.grad
    m.zero_grad(set_to_none=False)
    assert m.weight.grad is g and np.all(g.numpy() == 0)


def test_requires_grad_and_to_dtype():
    m = nn.Linear(3, 2)
    assert m.requires_grad_(False) is m
    assert not any(p.requires_grad for p in m.parameters())
    m.requires_grad_(True)
    w = m.weight
    assert m.double() is m
    assert m.weight is w and m.weight.dtype is tensorlib.float64  # converted in place, same Parameter
    assert m(tensorlib.randn(1, 3, dtype=tensorlib.float64)).dtype is tensorlib.float64
    m.float()
    assert m.weight.dtype is tensorlib.float32
    with pytest.raises(TypeError, match="floating point"):
        m.to(tensorlib.int64)


def _apply_example(lib):
    """A module that keeps a plain tensor attribute and extends _apply to convert it, as third-party modules do."""

    class WithCache(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = lib.nn.Linear(2, 2)
            self.register_buffer("steps", lib.tensor(3))
            self.register_buffer("scale", lib.ones(2))
            self.cache = lib.zeros(2)
            self.seen = []

        def _apply(self, fn, recurse=True):
            self.seen.append("outer")
            super()._apply(fn, recurse)
            self.cache = fn(self.cache)
            return self

    return WithCache()


@pytest.mark.parametrize("convert", ["double", "half", "float", "to64", "type", "cpu", "to-none", "complex"])
def test_every_conversion_goes_through_apply_which_subclasses_extend(convert):
    calls = {
        "double": lambda m, L: m.double(), "half": lambda m, L: m.half(), "float": lambda m, L: m.double().float(),
        "to64": lambda m, L: m.to(L.float64), "type": lambda m, L: m.type(L.float64), "cpu": lambda m, L: m.cpu(),
        "to-none": lambda m, L: m.to("cpu"), "complex": lambda m, L: m.to(L.complex64),
    }

    def run(L):
        m = _apply_example(L)
        w = m.inner.weight
        m.inner.weight.grad = L.ones(2, 2)
        g = m.inner.weight.grad
        assert calls[convert](m, L) is m
        assert m.inner.weight is w and m.inner.weight.grad is g  # the same Parameter and gradient, converted
        return (m.seen[0], str(m.inner.weight.dtype).split(".")[-1], str(w.grad.dtype).split(".")[-1],
                str(m.steps.dtype).split(".")[-1], str(m.scale.dtype).split(".")[-1],
                str(m.cache.dtype).split(".")[-1])

    ours = run(tensorlib)
    assert ours[0] == "outer"
    torch = pytest.importorskip("torch")
    assert ours == run(torch)


def test_apply_converts_children_first_then_the_module_own_tensors():
    order = []

    class Tracked(nn.Module):
        def __init__(self, name, child=None):
            super().__init__()
            self.name = name
            self.register_buffer("b", tensorlib.zeros(1))
            if child is not None:
                self.child = child

    outer = Tracked("outer", Tracked("inner"))
    outer._apply(lambda t: order.append(t is outer.b) or t)
    assert order == [False, True]  # the child's buffer, then the outer one's
    outer._apply(lambda t: order.append("again") or t, recurse=False)
    assert order[2:] == ["again"]  # this module's own buffer only


def test_call_runs_forward_and_hooks():
    m = nn.Linear(3, 2)
    x = tensorlib.randn(4, 3)
    calls = []
    h = m.register_forward_hook(lambda mod, args, out: calls.append((mod, args[0], out.shape)))
    out = m(x)
    assert calls == [(m, x, (4, 2))]
    h.remove()
    m(x)
    assert len(calls) == 1
    h = m.register_forward_hook(lambda mod, args, out: out * 0)
    assert np.all(m(x).detach().numpy() == 0)
    h.remove()
    h = m.register_forward_pre_hook(lambda mod, args: (args[0] * 0,))
    assert_close(m(x).detach(), m.bias.detach().expand(4, 2))
    h.remove()
    assert_close(m(x).detach(), out.detach())


def test_forward_kwargs_and_missing_forward():
    class KW(nn.Module):
        def forward(self, x, *, scale=1.0):
            return x * scale

    assert KW()(tensorlib.ones(2), scale=3.0).tolist() == [3.0, 3.0]
    with pytest.raises(NotImplementedError, match='missing the required "forward" function'):
        nn.Module()(tensorlib.ones(1))


def test_module_init_rejects_arguments():
    with pytest.raises(TypeError):
        nn.Module(3)


def test_apply_and_dir():
    m = _build(tensorlib)
    seen = []
    m.apply(lambda mod: seen.append(type(mod).__name__))
    assert seen[-1] == "Net" and seen.count("Linear") == 3
    assert "fc1" in dir(m) and "scale" in dir(m) and "running" in dir(m)


def test_deepcopy_and_pickle_module():
    m = nn.Sequential(nn.Linear(2, 3), nn.ReLU())
    c = copy.deepcopy(m)
    assert c[0].weight is not m[0].weight
    assert np.array_equal(c[0].weight.detach().numpy(), m[0].weight.detach().numpy())
    assert isinstance(c[0].weight, nn.Parameter)
    p = pickle.loads(pickle.dumps(m))
    x = tensorlib.randn(1, 2)
    assert_close(p(x).detach(), m(x).detach())


def test_sequential_container():
    a, b, c = nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1)
    s = nn.Sequential(a, b, c)
    assert len(s) == 3 and s[0] is a and s[-1] is c and list(s) == [a, b, c]
    sl = s[1:]
    assert type(sl) is nn.Sequential and list(sl) == [b, c]
    x = tensorlib.randn(4, 2)
    assert_close(s(x).detach(), c(b(a(x))).detach())
    s.append(nn.Tanh())
    assert len(s) == 4
    del s[0]
    assert list(s._modules) == ["0", "1", "2"] and s[0] is b
    with pytest.raises(IndexError, match="out of range"):
        s[10]
    with pytest.raises(TypeError, match="indices must be integers"):
        s["a"]
    with pytest.raises(TypeError, match="is not a Module subclass"):
        nn.Sequential(5)
    named = nn.Sequential(OrderedDict([("first", a), ("second", b)]))
    assert named.first is a and list(named._modules) == ["first", "second"]


def test_module_list_and_dict():
    ml = nn.ModuleList([nn.Linear(1, 1), nn.ReLU()])
    ml.append(nn.Tanh())
    ml.extend([nn.Sigmoid()])
    assert len(ml) == 4 and isinstance(ml[-1], nn.Sigmoid)
    assert len(list(ml.parameters())) == 2
    with pytest.raises(IndexError):
        ml[7]
    md = nn.ModuleDict({"a": nn.Linear(1, 1)})
    md["b"] = nn.ReLU()
    assert list(md.keys()) == ["a", "b"] and "a" in md and len(md) == 2
    assert md.pop("b").__class__ is nn.ReLU
    with pytest.raises(NotImplementedError):
        ml(tensorlib.ones(1))


def test_parameter_list_and_dict():
    pl = nn.ParameterList([nn.Parameter(tensorlib.ones(2)), tensorlib.zeros(3)])
    assert len(pl) == 2 and all(isinstance(p, nn.Parameter) for p in pl)
    assert [n for n, _ in pl.named_parameters()] == ["0", "1"]
    pd = nn.ParameterDict({"w": tensorlib.ones(1)})
    assert isinstance(pd["w"], nn.Parameter) and list(pd.keys()) == ["w"]
    m = nn.Module()
    m.params = pl
    assert [n for n, _ in m.named_parameters()] == ["params.0", "params.1"]
