"""ASGD, Adadelta, Adafactor, Adamax, Muon, NAdam, RAdam, Rprop and SparseAdam.

Trajectories are compared with torch's step by step (float64, tight tolerance; float32 with parameter groups),
state dicts with torch's (the same keys, dtypes and shapes, and a torch state dict loads and continues torch's
trajectory), and argument errors with torch's (type and message).
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

import tensorlib
from tensorlib.optim import (
    ASGD,
    Adadelta,
    Adafactor,
    Adamax,
    Muon,
    NAdam,
    RAdam,
    Rprop,
    SparseAdam,
)

_rng = np.random.default_rng(0)
X = _rng.standard_normal((16, 5))
Y = _rng.standard_normal((16, 3))
W0 = _rng.standard_normal((3, 5))
B0 = _rng.standard_normal(3)

# SparseAdam's gradient skips a row each step (so some rows are not touched); torch is given grad.to_sparse(1)
SPARSE = {"SparseAdam"}
MATRIX_ONLY = {"Muon"}


def _model(lib, name, dtype, groups):
    dt = getattr(lib, dtype)
    w = lib.tensor(W0.copy(), dtype=dt, requires_grad=True)
    b = lib.tensor(B0.copy(), dtype=dt, requires_grad=True)
    if name in MATRIX_ONLY:
        w2 = lib.tensor(W0.T.copy() * 0.5, dtype=dt, requires_grad=True)  # a tall matrix too
        params = [w, w2]
        return params, ([{"params": [w]}, {"params": [w2], "lr": 0.02}] if groups else params)
    return [w, b], ([{"params": [w]}, {"params": [b], "lr": 0.02}] if groups else [w, b])


def _loss(lib, params, dtype):
    dt = getattr(lib, dtype)
    x, y = lib.tensor(X, dtype=dt), lib.tensor(Y, dtype=dt)
    w = params[0]
    out = x @ w.t()
    if len(params) > 1 and params[1].dim() == 1:
        out = out + params[1]
    loss = ((out - y) ** 2).mean() + (w**4).sum() * 0.01
    if len(params) > 1 and params[1].dim() == 2:
        loss = loss + ((x @ params[1] - y) ** 2).mean()
    return loss


def _step(lib, name, opt, params, dtype, i):
    opt.zero_grad()
    _loss(lib, params, dtype).backward()
    if name in SPARSE:
        with lib.no_grad():
            params[0].grad[i % 3] = 0
        if lib.__name__ == "torch":
            for p in params:
                p.grad = p.grad.to_sparse(1)
    opt.step()


def _trajectory(lib, name, kwargs, steps=8, dtype="float64", groups=False):
    params, spec = _model(lib, name, dtype, groups)
    opt = getattr(lib.optim, name)(spec, **kwargs)
    history = []
    for i in range(steps):
        _step(lib, name, opt, params, dtype, i)
        history.append([p.detach().numpy().copy() for p in params])
    return history, opt


CASES = [
    ("ASGD", {}),
    ("ASGD", dict(lr=0.05, lambd=0.01, alpha=0.5, t0=3, weight_decay=0.1)),
    ("ASGD", dict(lr=0.05, t0=0, maximize=True, foreach=False)),
    ("Adadelta", {}),
    ("Adadelta", dict(lr=0.5, rho=0.8, eps=1e-4, weight_decay=0.1)),
    ("Adadelta", dict(maximize=True, capturable=False)),
    ("Adafactor", {}),
    ("Adafactor", dict(lr=0.05, beta2_decay=-0.5, eps=(1e-20, 1e-2), d=1.5, weight_decay=0.1)),
    ("Adafactor", dict(lr=0.5, maximize=True)),
    ("Adamax", {}),
    ("Adamax", dict(lr=0.05, betas=(0.7, 0.9), eps=1e-3, weight_decay=0.1)),
    ("Adamax", dict(maximize=True)),
    ("Muon", {}),
    ("Muon", dict(lr=0.02, weight_decay=0.0, momentum=0.9, nesterov=False, adjust_lr_fn="match_rms_adamw")),
    ("Muon", dict(lr=0.05, ns_steps=3, ns_coefficients=(2.0, -1.5, 0.5), eps=1e-3, adjust_lr_fn="original")),
    ("NAdam", {}),
    ("NAdam", dict(lr=0.02, betas=(0.8, 0.9), weight_decay=0.1, momentum_decay=0.01)),
    ("NAdam", dict(lr=0.02, weight_decay=0.1, decoupled_weight_decay=True, maximize=True)),
    ("RAdam", {}),
    ("RAdam", dict(lr=0.02, betas=(0.9, 0.6), weight_decay=0.1)),  # rho_t > 5 from the first step
    ("RAdam", dict(weight_decay=0.1, decoupled_weight_decay=True, maximize=True)),
    ("Rprop", {}),
    ("Rprop", dict(lr=0.05, etas=(0.3, 1.5), step_sizes=(1e-3, 0.1))),
    ("Rprop", dict(maximize=True)),
    ("SparseAdam", {}),
    ("SparseAdam", dict(lr=0.05, betas=(0.5, 0.9), eps=1e-4, maximize=True)),
]
IDS = [f"{n}-{'-'.join(f'{k}={v}' for k, v in kw.items()) or 'defaults'}" for n, kw in CASES]


@pytest.mark.parametrize("name, kwargs", CASES, ids=IDS)
def test_trajectory_matches_torch(name, kwargs):
    torch = pytest.importorskip("torch")
    ours, _ = _trajectory(tensorlib, name, kwargs)
    theirs, _ = _trajectory(torch, name, kwargs)
    for step, (mine, ref) in enumerate(zip(ours, theirs)):
        for a, b in zip(mine, ref):
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12, err_msg=f"step {step}")


@pytest.mark.parametrize("name, kwargs", CASES[::3], ids=IDS[::3])
def test_float32_and_param_groups_match_torch(name, kwargs):
    torch = pytest.importorskip("torch")
    ours, _ = _trajectory(tensorlib, name, kwargs, dtype="float32", groups=True)
    theirs, _ = _trajectory(torch, name, kwargs, dtype="float32", groups=True)
    for mine, ref in zip(ours, theirs):
        for a, b in zip(mine, ref):
            assert a.dtype == np.float32
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def _structure(value):
    """A state value's type, and dtype and shape for tensors."""
    if hasattr(value, "dtype") and hasattr(value, "shape"):
        return ("tensor", str(value.dtype).split(".")[-1], tuple(value.shape))
    return (type(value).__name__, value)


@pytest.mark.parametrize("name, kwargs", CASES, ids=IDS)
def test_state_dict_structure_matches_torch(name, kwargs):
    torch = pytest.importorskip("torch")
    _, ours = _trajectory(tensorlib, name, kwargs, steps=2, groups=True)
    _, theirs = _trajectory(torch, name, kwargs, steps=2, groups=True)
    a, b = ours.state_dict(), theirs.state_dict()
    assert list(a) == list(b) == ["state", "param_groups"]
    assert a["param_groups"] == b["param_groups"]  # every option, in torch's order, and the parameter indices
    assert [list(g) for g in a["param_groups"]] == [list(g) for g in b["param_groups"]]
    assert list(a["state"]) == list(b["state"])
    for index in b["state"]:
        assert list(a["state"][index]) == list(b["state"][index])
        for key in b["state"][index]:
            assert _structure(a["state"][index][key]) == _structure(b["state"][index][key]), (index, key)


def _to_tensorlib(value):
    if hasattr(value, "detach"):
        return tensorlib.tensor(value.detach().numpy().copy())
    if isinstance(value, dict):
        return {k: _to_tensorlib(v) for k, v in value.items()}
    return copy.deepcopy(value)


@pytest.mark.parametrize("name, kwargs", CASES, ids=IDS)
def test_torch_state_dict_loads_and_continues_torchs_trajectory(name, kwargs):
    """Optimizer state saved by torch after three steps, loaded here, gives the steps torch takes after loading it.

    (Loading casts state tensors other than ``step`` to the parameter's dtype, in both libraries.)"""
    torch = pytest.importorskip("torch")
    tparams, tspec = _model(torch, name, "float64", True)
    topt = getattr(torch.optim, name)(tspec, **kwargs)
    for i in range(3):
        _step(torch, name, topt, tparams, "float64", i)
    saved = topt.state_dict()
    topt = getattr(torch.optim, name)(tspec, **kwargs)
    topt.load_state_dict(saved)
    params, spec = _model(tensorlib, name, "float64", True)
    for p, tp in zip(params, tparams):
        p.data.copy_(tensorlib.tensor(tp.detach().numpy()))
    opt = getattr(tensorlib.optim, name)(spec, **kwargs)
    opt.load_state_dict(_to_tensorlib(saved))
    for i in range(3, 7):
        _step(torch, name, topt, tparams, "float64", i)
        _step(tensorlib, name, opt, params, "float64", i)
        for p, tp in zip(params, tparams):
            np.testing.assert_allclose(p.detach().numpy(), tp.detach().numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name, kwargs", CASES, ids=IDS)
def test_state_dict_roundtrip_continues_the_same_trajectory(name, kwargs):
    params, spec = _model(tensorlib, name, "float64", True)
    opt = getattr(tensorlib.optim, name)(spec, **kwargs)
    for i in range(3):
        _step(tensorlib, name, opt, params, "float64", i)
    saved = opt.state_dict()
    assert saved["param_groups"][0]["params"] == [0] and saved["param_groups"][1]["params"] == [1]
    params2, spec2 = _model(tensorlib, name, "float64", True)
    for p, q in zip(params2, params):
        p.data.copy_(q.detach())
    opt2 = getattr(tensorlib.optim, name)(spec2, **kwargs)
    opt2.load_state_dict(copy.deepcopy(saved))
    for i in range(3, 6):
        _step(tensorlib, name, opt, params, "float64", i)
        _step(tensorlib, name, opt2, params2, "float64", i)
    # equal up to NAdam's mu_product, which comes back in float64 (torch casts loaded state to the parameter dtype)
    for p, q in zip(params, params2):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-7, atol=1e-9)
    for key, value in opt2.state[params2[0]].items():  # loaded state is a copy
        assert value is not opt.state[params[0]][key] or not hasattr(value, "dtype")


def test_loaded_scalar_state_takes_the_parameter_dtype_as_in_torch():
    """torch casts loaded state tensors other than ``step`` to the parameter's dtype (ASGD's eta and mu)."""
    p = tensorlib.tensor([1.0, 2.0], dtype=tensorlib.float64, requires_grad=True)
    opt = ASGD([p])
    (p * p).sum().backward()
    opt.step()
    assert opt.state[p]["eta"].dtype == tensorlib.float32 and opt.state[p]["step"].dtype == tensorlib.float32
    opt2 = ASGD([p])
    opt2.load_state_dict(opt.state_dict())
    assert opt2.state[p]["eta"].dtype == tensorlib.float64 and opt2.state[p]["mu"].dtype == tensorlib.float64
    assert opt2.state[p]["step"].dtype == tensorlib.float32


def test_scalar_state_follows_the_default_dtype():
    tensorlib.set_default_dtype(tensorlib.float64)
    p = tensorlib.tensor([1.0, 2.0], requires_grad=True)
    opt = NAdam([p])
    (p * p).sum().backward()
    opt.step()
    assert opt.state[p]["step"].dtype == tensorlib.float64 and opt.state[p]["mu_product"].dtype == tensorlib.float64


def test_tensor_lr_is_accepted():
    torch = pytest.importorskip("torch")
    results = []
    for lib in (tensorlib, torch):
        p = lib.tensor(W0.copy(), requires_grad=True)
        opt = lib.optim.Adamax([p], lr=lib.tensor(0.05, dtype=lib.float64))
        for _ in range(3):
            opt.zero_grad()
            (p**2).sum().backward()
            opt.step()
        results.append(p.detach().numpy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-12)


def _errors(lib, p, m):
    o = lib.optim
    return [
        lambda: o.ASGD([p], lr=-1),
        lambda: o.ASGD([p], weight_decay=-0.1),
        lambda: o.Adadelta([p], lr=-0.5),
        lambda: o.Adadelta([p], rho=1.5),
        lambda: o.Adadelta([p], eps=-1.0),
        lambda: o.Adadelta([p], weight_decay=-1),
        lambda: o.Adafactor([p], lr=-1.0),
        lambda: o.Adafactor([p], beta2_decay=0.5),
        lambda: o.Adafactor([p], eps=(-1.0, 1e-3)),
        lambda: o.Adafactor([p], eps=(None, -1e-3)),
        lambda: o.Adafactor([p], d=0.5),
        lambda: o.Adafactor([p], weight_decay=-0.1),
        lambda: o.Adamax([p], lr=-1),
        lambda: o.Adamax([p], eps=-1),
        lambda: o.Adamax([p], betas=(1.0, 0.9)),
        lambda: o.Adamax([p], betas=(0.9, -0.1)),
        lambda: o.Adamax([p], weight_decay=-1),
        lambda: o.Muon([m], lr=-1.0),
        lambda: o.Muon([m], momentum=-0.5),
        lambda: o.Muon([m], weight_decay=-0.5),
        lambda: o.Muon([m], adjust_lr_fn="mine"),
        lambda: o.Muon([p]),
        lambda: o.NAdam([p], lr=-1),
        lambda: o.NAdam([p], eps=-1),
        lambda: o.NAdam([p], betas=(0.9, 1.0)),
        lambda: o.NAdam([p], weight_decay=-1),
        lambda: o.NAdam([p], momentum_decay=-1),
        lambda: o.RAdam([p], lr=-1),
        lambda: o.RAdam([p], eps=-1),
        lambda: o.RAdam([p], betas=(-0.1, 0.9)),
        lambda: o.RAdam([p], weight_decay=-1),
        lambda: o.Rprop([p], lr=-1),
        lambda: o.Rprop([p], etas=(1.5, 1.2)),
        lambda: o.Rprop([p], etas=(0.5, 0.9)),
        lambda: o.SparseAdam([p], lr=0.0),
        lambda: o.SparseAdam([p], eps=0.0),
        lambda: o.SparseAdam([p], betas=(1.0, 0.9)),
        lambda: o.SparseAdam([p], betas=(0.9, 1.0)),
        lambda: o.SparseAdam([p.detach().to(lib.complex128).requires_grad_()]),
        lambda: o.Adamax([p], lr=lib.tensor([0.1, 0.2])),
        lambda: o.NAdam([], lr=0.1),
    ]


def test_argument_errors_match_torch():
    torch = pytest.importorskip("torch")
    theirs = _errors(torch, torch.ones(3, requires_grad=True), torch.ones(2, 3, requires_grad=True))
    ours = _errors(tensorlib, tensorlib.ones(3, requires_grad=True), tensorlib.ones(2, 3, requires_grad=True))
    for i, (make_theirs, make_ours) in enumerate(zip(theirs, ours)):
        with pytest.raises(Exception) as expected:
            make_theirs()
        with pytest.raises(expected.type) as got:
            make_ours()
        assert str(got.value).replace("tensorlib.", "torch.") == str(expected.value), i


@pytest.mark.parametrize("make, match", [
    (lambda p: ASGD([p], lr=-1), "Invalid learning rate: -1"),
    (lambda p: Adadelta([p], rho=1.5), "Invalid rho value: 1.5"),
    (lambda p: Adafactor([p], d=0.5), "Clipping threshold d should be >= 1 but is: 0.5"),
    (lambda p: Adamax([p], betas=(1.0, 0.9)), "Invalid beta parameter at index 0: 1.0"),
    (lambda p: Muon([p]), "Muon only supports 2D parameters whereas we found a parameter with size"),
    (lambda p: NAdam([p], momentum_decay=-1), "Invalid momentum_decay value: -1"),
    (lambda p: RAdam([p], eps=-1), "Invalid epsilon value: -1"),
    (lambda p: Rprop([p], etas=(1.5, 1.2)), "Invalid eta values: 1.5, 1.2"),
    (lambda p: SparseAdam([p], lr=0.0), "Invalid learning rate: 0.0"),
])
def test_argument_errors(make, match):
    with pytest.raises(ValueError, match=match):
        make(tensorlib.ones(3, requires_grad=True))


def test_defaults_and_flags_are_recorded_as_torch_does():
    p = tensorlib.ones(2, 2, requires_grad=True)
    assert Adadelta([p]).defaults == dict(lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, maximize=False,
                                          capturable=False, foreach=None, differentiable=False)
    assert Adafactor([p], foreach=False).defaults["foreach"] is False
    assert ASGD([p], capturable=True).param_groups[0]["capturable"] is True
    assert Muon([p]).defaults == dict(lr=1e-3, weight_decay=0.1, momentum=0.95, nesterov=True,
                                      ns_coefficients=(3.4445, -4.7750, 2.0315), eps=1e-7, ns_steps=5,
                                      adjust_lr_fn=None)
    assert SparseAdam([p]).defaults == dict(lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False)
    with pytest.raises(RuntimeError, match="differentiable=True"):
        RAdam([p], differentiable=True)


@pytest.mark.parametrize("name", ["ASGD", "Adadelta", "Adamax", "NAdam", "RAdam", "Rprop"])
def test_complex_parameters_step_as_pairs_of_reals(name):
    """As in torch, a complex parameter steps as its real and imaginary parts would separately."""
    z = tensorlib.tensor([1 + 2j, -0.5 + 0.25j], dtype=tensorlib.complex128, requires_grad=True)
    r = tensorlib.tensor([[1.0, 2.0], [-0.5, 0.25]], dtype=tensorlib.float64, requires_grad=True)
    oz, orr = getattr(tensorlib.optim, name)([z], lr=0.1), getattr(tensorlib.optim, name)([r], lr=0.1)
    for _ in range(3):
        oz.zero_grad()
        orr.zero_grad()
        (z * z.conj()).real.sum().backward()  # gradient 2 * z, i.e. 2 * (re, im)
        (r * r).sum().backward()
        oz.step()
        orr.step()
    zs = z.detach().numpy()
    np.testing.assert_allclose(np.stack([zs.real, zs.imag], -1), r.detach().numpy(), rtol=1e-12)


def test_complex_parameters_match_torch():
    torch = pytest.importorskip("torch")
    out = []
    for lib in (tensorlib, torch):
        z = lib.tensor([1 + 2j, -0.5 + 0.25j], dtype=lib.complex128, requires_grad=True)
        opts = [lib.optim.NAdam([z], lr=0.1), lib.optim.Rprop([z], lr=0.1)]
        for opt in opts:
            for _ in range(3):
                opt.zero_grad()
                ((z * z).real.sum() + z.abs().sum()).backward()
                opt.step()
        out.append(z.detach().numpy())
    np.testing.assert_allclose(out[0], out[1], rtol=1e-10)


def test_complex_parameters_rejected_where_torch_rejects_them():
    z = tensorlib.tensor([[1 + 2j]], requires_grad=True)
    z.grad = tensorlib.ones_like(z)
    with pytest.raises(RuntimeError, match="Adafactor does not support complex parameters"):
        Adafactor([z]).step()
    with pytest.raises(RuntimeError, match="Muon does not support complex parameters"):
        Muon([z]).step()


def test_sparse_adam_updates_only_the_rows_the_gradient_touches():
    emb = tensorlib.nn.Embedding(6, 3)
    before = emb.weight.detach().clone()
    opt = SparseAdam(emb.parameters(), lr=0.1)
    emb(tensorlib.tensor([1, 4, 1])).sum().backward()
    opt.step()
    after = emb.weight.detach()
    changed = (after != before).any(dim=1).tolist()
    assert changed == [False, True, False, False, True, False]
    state = opt.state[emb.weight]
    assert state["step"] == 1 and set(state) == {"step", "exp_avg", "exp_avg_sq"}
    assert (state["exp_avg"][[0, 2, 3, 5]] == 0).all()
    # a step whose gradient touches other rows leaves the moments of rows 1 and 4 as they were (lazy Adam)
    m = state["exp_avg"].clone()
    opt.zero_grad()
    emb(tensorlib.tensor([2])).sum().backward()
    opt.step()
    assert tensorlib.equal(state["exp_avg"][[1, 4]], m[[1, 4]]) and state["step"] == 2
    # an all-zero gradient counts a step and changes nothing
    w = emb.weight.detach().clone()
    emb.weight.grad.zero_()
    opt.step()
    assert tensorlib.equal(emb.weight.detach(), w) and state["step"] == 3


def test_sparse_adam_on_an_embedding_matches_torchs_sparse_gradients():
    torch = pytest.importorskip("torch")
    weights = np.random.default_rng(3).standard_normal((7, 4))
    out = []
    for lib, sparse in ((tensorlib, False), (torch, True)):
        emb = lib.nn.Embedding(7, 4, sparse=sparse, dtype=lib.float64)
        with lib.no_grad():
            emb.weight.copy_(lib.tensor(weights))
        opt = lib.optim.SparseAdam(list(emb.parameters()), lr=0.05)
        for idx in ([1, 2, 2], [5], [0, 1, 6], [3, 3]):
            opt.zero_grad()
            (emb(lib.tensor(idx)) ** 2).sum().backward()
            opt.step()
        out.append(emb.weight.detach().numpy())
    np.testing.assert_allclose(out[0], out[1], rtol=1e-12)


def test_muon_orthogonalises_like_torch_in_bfloat16():
    """Muon's Newton-Schulz runs in bfloat16 as torch's does; small matrices give torch's bits exactly, larger
    ones may differ in a last bfloat16 bit where float32 sums are ordered differently."""
    torch = pytest.importorskip("torch")
    from torch.optim._muon import _zeropower_via_newtonschulz as theirs

    from tensorlib.optim.muon import _zeropower_via_newtonschulz as ours

    rng = np.random.default_rng(1)
    coefficients = (3.4445, -4.7750, 2.0315)
    for shape in [(3, 5), (5, 3), (8, 8), (16, 4)]:
        g = rng.standard_normal(shape)
        np.testing.assert_array_equal(ours(g, coefficients, 5, 1e-7),
                                      theirs(torch.tensor(g), coefficients, 5, 1e-7).float().numpy())
    g = rng.standard_normal((48, 32))
    np.testing.assert_allclose(ours(g, coefficients, 5, 1e-7),
                               theirs(torch.tensor(g), coefficients, 5, 1e-7).float().numpy(), atol=2e-2)


def test_muon_update_is_nearly_orthogonal():
    g = np.random.default_rng(0).standard_normal((6, 4))
    from tensorlib.optim.muon import _zeropower_via_newtonschulz

    o = _zeropower_via_newtonschulz(g, (3.4445, -4.7750, 2.0315), 5, 1e-7)
    s = np.linalg.svd(o.astype(np.float64), compute_uv=False)
    assert o.shape == (6, 4) and np.all((s > 0.5) & (s < 1.5))  # US'V^T with S' near one, as the method intends
    with pytest.raises(ValueError, match="Number of steps must be less than 100"):
        _zeropower_via_newtonschulz(g, (1.0, 1.0, 1.0), 100, 1e-7)
    with pytest.raises(ValueError, match="Input tensor gradient must be a 2D matrix"):
        _zeropower_via_newtonschulz(g[0], (1.0, 1.0, 1.0), 5, 1e-7)


def test_rprop_step_by_formula():
    p = tensorlib.tensor([1.0, -1.0, 0.5], dtype=tensorlib.float64, requires_grad=True)
    opt = Rprop([p], lr=0.1, etas=(0.5, 2.0), step_sizes=(0.01, 0.3))
    grads = [[1.0, -1.0, 0.0], [2.0, 1.0, 1.0], [1.0, 1.0, 1.0]]
    expected = np.array([1.0, -1.0, 0.5])
    size = np.full(3, 0.1)
    prev = np.zeros(3)
    for g in grads:
        p.grad = tensorlib.tensor(g, dtype=tensorlib.float64)
        opt.step()
        g = np.array(g)
        sign = np.sign(g * prev)
        size = np.clip(size * np.where(sign > 0, 2.0, np.where(sign < 0, 0.5, 1.0)), 0.01, 0.3)
        g = np.where(sign < 0, 0.0, g)
        expected -= np.sign(g) * size
        prev = g
        np.testing.assert_allclose(p.detach().numpy(), expected)


def test_steps_skip_parameters_without_grad_and_do_not_record():
    a = tensorlib.ones(2, 2, requires_grad=True)
    b = tensorlib.ones(2, 2, requires_grad=True)
    for cls in (ASGD, Adadelta, Adafactor, Adamax, Muon, NAdam, RAdam, Rprop, SparseAdam):
        opt = cls([a, b])
        (a * a).sum().backward()
        opt.step()
        opt.zero_grad()
        assert b.tolist() == [[1.0, 1.0], [1.0, 1.0]] and b not in opt.state, cls.__name__
        assert a.is_leaf and a.grad_fn is None


def test_closure_is_evaluated_with_grad():
    p = tensorlib.tensor([3.0], requires_grad=True)
    for cls in (ASGD, Adadelta, Adamax, NAdam, RAdam, Rprop):
        opt = cls([p])

        def closure():
            opt.zero_grad()
            loss = (p * p).sum()
            loss.backward()
            return loss

        with tensorlib.no_grad():
            loss = opt.step(closure)
        assert loss.requires_grad, cls.__name__


def test_repr_lists_the_options():
    text = repr(NAdam([tensorlib.ones(1, requires_grad=True)], lr=0.01))
    assert text.startswith("NAdam (\nParameter Group 0\n") and "    momentum_decay: 0.004\n" in text
