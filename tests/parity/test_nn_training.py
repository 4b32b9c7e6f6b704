"""nn as training code uses it: module reprs and parameters, a training loop with SGD/Adam, train/eval,
state_dict and pickle round trips, torch.save/load, parameter init, module hooks, manual_seed determinism."""

from __future__ import annotations

import copy
import io
import os
import pickle
import tempfile
import warnings

import numpy as np
import pytest

import tensorlib

from tests.parity.differential import differential


def fill_params(lib, module, seed=0):
    """Give every parameter deterministic values (the same in torch and tensorlib)."""
    rng = np.random.default_rng(seed)
    with lib.no_grad():
        for _, p in sorted(module.named_parameters()):
            p.copy_(lib.tensor(rng.uniform(-0.5, 0.5, tuple(p.shape)).astype(np.float32)))
    return module


def make_net(torch):
    nn = torch.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(4, 8)
            self.act = nn.ReLU()
            self.fc2 = nn.Linear(8, 3, bias=False)
            self.register_buffer("steps", torch.zeros(()))

        def forward(self, x):
            return self.fc2(self.act(self.fc1(x)))

    return Net


def data(torch):
    rng = np.random.default_rng(3)
    X = torch.tensor(rng.standard_normal((32, 4)).astype(np.float32))
    y = (X[:, 0] > 0).long() + (X[:, 1] > 0).long()
    return X, y


@differential
def test_module_repr_and_parameters(torch, rec):
    nn = torch.nn
    model = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                          nn.Dropout(0.5), nn.Linear(4 * 4 * 4, 10))
    rec(repr(model))
    rec([(n, tuple(p.shape)) for n, p in model.named_parameters()])
    rec((list(model.state_dict().keys()), [n for n, _ in model.named_buffers()], sum(p.numel() for p in model.parameters())))
    net = make_net(torch)()
    rec(repr(net))
    rec(([n for n, _ in net.named_modules()], [n for n, _ in net.named_children()], net.training))
    net.eval()
    rec((net.training, net.fc1.training), (False, False))
    net.train()
    rec((net.fc1.weight.shape, net.fc1.bias.requires_grad, type(net.fc1.weight).__name__, net.fc2.bias))
    mods = [nn.Linear(3, 4), nn.Conv2d(3, 8, kernel_size=3, stride=2, padding=1, bias=False), nn.BatchNorm1d(4, momentum=0.2, affine=False),
            nn.Dropout(0.3), nn.ReLU(inplace=True), nn.LeakyReLU(0.1), nn.MaxPool2d(3, stride=1, padding=1), nn.AvgPool2d(2),
            nn.AdaptiveAvgPool2d((1, 1)), nn.CrossEntropyLoss(label_smoothing=0.1), nn.Embedding(10, 3, padding_idx=0),
            nn.LayerNorm([2, 3], elementwise_affine=False), nn.GELU(), nn.Softmax(dim=1), nn.ConvTranspose2d(4, 2, 2, stride=2),
            nn.GroupNorm(2, 4), nn.Upsample(scale_factor=2, mode="nearest"), nn.ModuleList([nn.Linear(1, 1)] * 3 + [nn.ReLU()]),
            nn.ModuleDict({"a": nn.ReLU()}), nn.Unflatten(1, (2, 2)), nn.Bilinear(2, 3, 4),
            nn.ParameterList([nn.Parameter(torch.ones(2)), nn.Parameter(torch.ones(2, 3, dtype=torch.float64))]),
            nn.ParameterDict({"a": nn.Parameter(torch.ones(2))}), nn.Sequential(),
            nn.PReLU(3), nn.CosineSimilarity(), nn.PairwiseDistance(p=1), nn.ZeroPad2d((1, 2, 3, 4)), nn.ConstantPad1d(2, 3.5),
            nn.ReflectionPad2d(1), nn.ReplicationPad1d((1, 2)), nn.CircularPad2d(1),
            nn.RNN(3, 4), nn.LSTM(3, 4, num_layers=2, batch_first=True, bidirectional=True), nn.GRU(3, 4, bias=False),
            nn.LSTMCell(3, 4), nn.RNNCell(3, 4, nonlinearity="relu"), nn.MultiheadAttention(4, 2),
            nn.TransformerEncoder(nn.TransformerEncoderLayer(4, 2, 8), 2, enable_nested_tensor=False),
            nn.MarginRankingLoss(), nn.TripletMarginLoss(), nn.GaussianNLLLoss()]
    for m in mods:
        rec(repr(m))


@differential
def test_training_loop_sgd_adam(torch, rec):
    nn = torch.nn
    X, y = data(torch)
    for make_opt in (lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9, weight_decay=1e-4, nesterov=True),
                     lambda ps: torch.optim.Adam(ps, lr=1e-2, betas=(0.9, 0.99), weight_decay=0.01, amsgrad=True),
                     lambda ps: torch.optim.AdamW(ps, lr=1e-2),
                     lambda ps: torch.optim.RMSprop(ps, lr=1e-2, momentum=0.5, centered=True, weight_decay=1e-3),
                     lambda ps: torch.optim.Adagrad(ps, lr=0.1, lr_decay=0.01, initial_accumulator_value=0.1)):
        net = fill_params(torch, make_net(torch)())
        opt = make_opt(net.parameters())
        crit = nn.CrossEntropyLoss()
        losses = []
        for _ in range(15):
            opt.zero_grad()
            loss = crit(net(X), y)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        rec(losses, exact_repr=False)
        rec(losses[-1] < losses[0], True)
        rec(net.fc1.weight)
        rec(repr(opt))
        sd = opt.state_dict()
        rec((list(sd), sd["param_groups"], sorted(sd["state"][0]) if sd["state"] else []))
        opt.zero_grad()
        rec(net.fc1.weight.grad is None, True)
    rec.raises(ValueError, torch.optim.SGD, net.parameters(), lr=-1, match="Invalid learning rate: -1")
    rec.raises(ValueError, torch.optim.Adam, net.parameters(), betas=(1.5, 0.9), match="Invalid beta parameter at index 0")
    rec.raises(ValueError, torch.optim.SGD, [], lr=0.1, match="optimizer got an empty parameter list")
    rec.raises(TypeError, torch.optim.SGD, torch.ones(2, requires_grad=True), lr=0.1,
               match="params argument given to the optimizer should be an iterable of Tensors or dicts, but got tensorlib.FloatTensor")
    groups = torch.optim.AdamW([{"params": net.fc1.parameters()}, {"params": net.fc2.parameters(), "lr": 0.1}], lr=0.01)
    rec(repr(groups))
    named = torch.optim.SGD(net.named_parameters(), lr=0.1)
    rec(named.param_groups[0]["param_names"], ["fc1.weight", "fc1.bias", "fc2.weight"])
    calls = []
    named.register_step_pre_hook(lambda o, a, k: calls.append("pre"))
    named.register_step_post_hook(lambda o, a, k: calls.append("post"))
    named.step()
    rec(calls, ["pre", "post"])


@differential
def test_train_eval_batchnorm_dropout(torch, rec):
    nn = torch.nn
    bn = nn.BatchNorm1d(3)
    x = torch.arange(12.0).reshape(4, 3)
    rec((bn(x), bn.running_mean, bn.running_var, bn.num_batches_tracked), exact_repr=False)
    bn.eval()
    rec(bn(x), exact_repr=False)
    d = nn.Dropout(0.5)
    d.eval()
    rec(d(torch.ones(4)), [1.0, 1.0, 1.0, 1.0])
    d.train()
    o = d(torch.ones(1000))
    rec(set(o.unique().tolist()) <= {0.0, 2.0}, True)
    rec.raises(ValueError, nn.Dropout, 1.5, match="dropout probability has to be between 0 and 1")
    lin = nn.Linear(3, 2)
    rec.raises(RuntimeError, lin, torch.ones(2, 4), match="mat1 and mat2 shapes cannot be multiplied (2x4 and 3x2)")
    rec.raises(RuntimeError, lin, torch.ones(2, 3, dtype=torch.float64),
               match="mat1 and mat2 must have the same dtype, but got Double and Float")
    rec.raises(RuntimeError, torch.nn.functional.linear, torch.ones(2, 3, dtype=torch.float64), torch.ones(2, 3),
               match="expected m1 and m2 to have the same dtype, but got: double != float")
    rec((lin(torch.ones(3)).shape, lin(torch.ones(5, 6, 3)).shape))
    conv = nn.Conv2d(3, 4, 3)
    rec.raises(RuntimeError, conv, torch.ones(1, 2, 5, 5))
    rec(conv(torch.ones(3, 5, 5)).shape, (4, 3, 3))
    crit = nn.CrossEntropyLoss()
    rec.raises(IndexError, crit, torch.zeros(3, 5), torch.tensor([1, 2, 7]), match="Target 7 is out of bounds.")
    rec.raises(RuntimeError, crit, torch.zeros(3, 5), torch.tensor([1.0, 2.0, 3.0]))
    rec.raises(ValueError, crit, torch.zeros(3, 5), torch.tensor([1, 2]))
    rec((crit(torch.zeros(3, 5), torch.tensor([1, 2, 3])), crit(torch.zeros(3, 5), torch.full((3, 5), 0.2)),
         nn.CrossEntropyLoss(ignore_index=-100)(torch.zeros(2, 3), torch.tensor([-100, 1])),
         nn.CrossEntropyLoss(weight=torch.tensor([1.0, 2.0, 3.0]))(torch.tensor([[1.0, 2.0, 3.0], [0.0, 0.0, 1.0]]),
                                                                  torch.tensor([2, 0]))))


@differential
def test_state_dict_pickle_save_load(torch, rec):
    nn = torch.nn
    Net = make_net(torch)
    net = fill_params(torch, Net())
    sd = net.state_dict()
    rec((list(sd.keys()), type(sd).__name__, sd["fc1.weight"].requires_grad))
    net2 = Net()
    rec(repr(net2.load_state_dict(sd)), "<All keys matched successfully>")
    rec(torch.equal(net2.fc1.weight, net.fc1.weight), True)
    sd2 = pickle.loads(pickle.dumps(sd))
    rec((list(sd2.keys()), torch.equal(sd2["fc1.weight"], sd["fc1.weight"])))
    bad = dict(sd)
    bad.pop("fc2.weight")
    bad["extra"] = torch.ones(1)
    rec.raises(RuntimeError, net2.load_state_dict, bad, match='Missing key(s) in state_dict: "fc2.weight"')
    rec(repr(net2.load_state_dict(bad, strict=False)))
    bad = dict(sd)
    bad["fc1.weight"] = torch.ones(2, 2)
    rec.raises(RuntimeError, net2.load_state_dict, bad, match="size mismatch for fc1.weight")
    m3 = copy.deepcopy(net)
    rec((torch.equal(m3.fc1.weight, net.fc1.weight), m3.fc1.weight is net.fc1.weight), (True, False))
    # torch.save / torch.load: file objects and paths, tensors, state dicts, optimizer state
    opt = torch.optim.Adam(net.parameters(), lr=0.01)
    X, y = data(torch)
    nn.CrossEntropyLoss()(net(X), y).backward()
    opt.step()
    buf = io.BytesIO()
    torch.save({"model": net.state_dict(), "opt": opt.state_dict(), "epoch": 3, "t": torch.arange(3)}, buf)
    buf.seek(0)
    ck = torch.load(buf)
    rec((sorted(ck), ck["epoch"], ck["t"], torch.equal(ck["model"]["fc1.weight"], net.fc1.weight)))
    opt2 = torch.optim.Adam(Net().parameters(), lr=0.5)
    opt2.load_state_dict(ck["opt"])
    rec((opt2.param_groups[0]["lr"], torch.equal(opt2.state_dict()["state"][0]["exp_avg"], opt.state_dict()["state"][0]["exp_avg"])),
        (0.01, True))
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "w.pt")
        torch.save(net.state_dict(), path)
        net3 = Net()
        net3.load_state_dict(torch.load(path, map_location="cpu"))
        rec(torch.equal(net3.fc2.weight, net.fc2.weight), True)
        torch.save(torch.tensor([1.0, 2.0], requires_grad=True), path)
        rec(torch.load(path))
        lin = nn.Linear(2, 3)
        torch.save(lin, path)
        rec.raises(pickle.UnpicklingError, torch.load, path, match="Weights only load failed")
        whole = torch.load(path, weights_only=False)
        rec((type(whole).__name__, torch.equal(whole.weight, lin.weight)), ("Linear", True))
        rec.raises(FileNotFoundError, torch.load, os.path.join(d, "missing.pt"))
    rec.raises(AttributeError, torch.save, torch.ones(1), 123)


@differential
def test_parameter_init_and_data_edits(torch, rec):
    nn = torch.nn
    w = torch.empty(3, 5)
    nn.init.xavier_uniform_(w)
    rec(bool(w.abs().max() <= (6 / 8) ** 0.5), True)
    nn.init.kaiming_normal_(w, mode="fan_out", nonlinearity="relu")
    nn.init.zeros_(w)
    rec(w.sum(), 0.0)
    nn.init.constant_(w, 0.3)
    rec(w[0, 0], 0.3)
    nn.init.eye_(w)
    rec(w)
    nn.init.uniform_(w, -0.1, 0.1)
    rec(bool(w.abs().max() <= 0.1), True)
    nn.init.trunc_normal_(w, std=0.02)
    nn.init.orthogonal_(w)
    rec((nn.init.calculate_gain("relu"), nn.init.calculate_gain("leaky_relu", 0.2), nn.init.calculate_gain("tanh")))
    rec.raises(ValueError, nn.init.xavier_uniform_, torch.empty(3))
    m = nn.Linear(2, 2)
    m.weight.data.fill_(1.0)
    m.bias.data.zero_()
    rec(m(torch.ones(1, 2)), [[2.0, 2.0]])
    with torch.no_grad():
        m.weight.copy_(torch.eye(2))
        m.weight.mul_(3)
    rec(m.weight)
    rec.raises(RuntimeError, m.weight.fill_, 1.0, match="a leaf Variable that requires grad")
    rec.raises(TypeError, setattr, m, "weight", torch.ones(2, 2), match="cannot assign 'tensorlib.FloatTensor' as parameter 'weight'")
    m.weight = nn.Parameter(torch.ones(2, 2))
    m.bias = None
    rec(m(torch.ones(1, 2)), [[2.0, 2.0]])  # grad_fn=<MmBackward0> without a bias
    rec((m.to(torch.float64).weight.dtype, m.float().weight.dtype))
    p = nn.Parameter(torch.ones(2))
    rec((p * 2, (p * 2).__class__.__name__, p.detach().__class__.__name__, isinstance(p, torch.Tensor)))


@differential
def test_manual_seed_determinism(torch, rec):
    torch.manual_seed(42)
    a = torch.randn(3)
    torch.manual_seed(42)
    b = torch.randn(3)
    g1, g2 = torch.Generator().manual_seed(3), torch.Generator().manual_seed(3)
    s = torch.get_rng_state()
    c = torch.rand(2)
    torch.set_rng_state(s)
    d = torch.rand(2)
    torch.manual_seed(0)
    m1 = torch.nn.Linear(3, 3)
    torch.manual_seed(0)
    m2 = torch.nn.Linear(3, 3)
    torch.manual_seed(0)
    d1 = torch.nn.Dropout()(torch.ones(10))
    torch.manual_seed(0)
    d2 = torch.nn.Dropout()(torch.ones(10))
    rec((torch.equal(a, b), torch.equal(torch.rand(4, generator=g1), torch.rand(4, generator=g2)), torch.equal(c, d),
         torch.equal(m1.weight, m2.weight), torch.equal(d1, d2)), (True, True, True, True, True))
    rec((type(torch.manual_seed(1)).__name__, torch.initial_seed()), ("Generator", 1))


@differential
def test_module_hooks(torch, rec):
    nn = torch.nn
    lin = fill_params(torch, nn.Linear(2, 2))
    seen = []
    h = lin.register_full_backward_hook(lambda mod, gi, go: seen.append((gi, go)))
    x = torch.tensor([[1.0, 2.0]], requires_grad=True)
    lin(x).sum().backward()
    rec(seen[-1])
    h.remove()
    lin.register_full_backward_hook(lambda mod, gi, go: (gi[0] * 0,))
    x.grad = None
    lin(x).sum().backward()
    rec(x.grad, [[0.0, 0.0]])
    pre = []
    lin.register_full_backward_pre_hook(lambda mod, go: pre.append(go) or (go[0] * 2,))
    lin.weight.grad = None
    lin(x).sum().backward()
    rec((pre[-1], lin.weight.grad))
    lone = nn.Linear(2, 2)
    nograd = []
    lone.register_full_backward_hook(lambda mod, gi, go: nograd.append(gi))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lone(torch.ones(1, 2)).sum().backward()  # no input requires grad: the hook sees grad_input (None,)
    rec(nograd, [(None,)])

    class Two(nn.Module):
        def forward(self, a, k, b):
            return a * k + b, a.sum()

    two = Two()
    got = []
    two.register_full_backward_hook(lambda mod, gi, go: got.append((gi[0], gi[1], go)))
    out, _ = two(torch.ones(2, requires_grad=True), 3.0, torch.ones(2, requires_grad=True))
    out.sum().backward()
    rec(got[-1])
    f = fill_params(torch, nn.Linear(2, 2))
    fh = f.register_forward_hook(lambda mod, inp, out: out * 0)
    rec(f(torch.ones(1, 2)), [[0.0, 0.0]], exact_repr=False)
    fh.remove()
    kw = []
    f.register_forward_hook(lambda mod, args, kwargs, out: kw.append(sorted(kwargs)), with_kwargs=True)
    f.register_forward_pre_hook(lambda mod, args, kwargs: ((args[0] * 0,), kwargs), with_kwargs=True)
    rec(f(torch.ones(1, 2)), f.bias.detach().view(1, 2), exact_repr=False)
    rec(kw, [[]])


def test_save_load_without_torch(tmp_path):
    """torch.save/load essentials, checked on tensorlib alone."""
    t = tensorlib
    net = t.nn.Linear(3, 2)
    path = tmp_path / "ck.pt"
    t.save({"w": net.state_dict(), "step": 5}, str(path))
    ck = t.load(path)
    assert ck["step"] == 5 and t.equal(ck["w"]["weight"], net.weight)
    t.save(net, path)
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        t.load(path)
    assert isinstance(t.load(path, weights_only=False), t.nn.Linear)
    t.serialization.add_safe_globals([t.nn.Linear])
    try:
        assert t.serialization.get_safe_globals() == [t.nn.Linear]
    finally:
        t.serialization.clear_safe_globals()
    buf = io.BytesIO()
    t.save(t.arange(4), buf)
    buf.seek(0)
    assert t.load(buf).tolist() == [0, 1, 2, 3]
