"""lr_scheduler.CyclicLR and ChainedScheduler: learning rates (and cycled momenta) over many steps compared with
torch's, state dicts, and argument errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tensorlib
from tensorlib.optim import SGD, Adam
from tensorlib.optim.lr_scheduler import (
    ChainedScheduler,
    ConstantLR,
    CyclicLR,
    ExponentialLR,
    ReduceLROnPlateau,
    StepLR,
)


def _optimizer(lib, kind="SGD", groups=1):
    params = [lib.nn.Parameter(lib.ones(2)) for _ in range(groups)]
    for p in params:
        p.grad = lib.ones(2)
    spec = [{"params": [p], "lr": 0.1 * (i + 1)} for i, p in enumerate(params)]
    if kind == "SGD":
        return lib.optim.SGD(spec, lr=0.1, momentum=0.9)
    if kind == "Adam":
        return lib.optim.Adam(spec, lr=0.1)
    return lib.optim.Adagrad(spec, lr=0.1)  # no momentum, no betas


def _run(lib, make, steps=40, kind="SGD", groups=1):
    """The lr of every group (and momentum or beta1, where the optimizer has one) after each step."""
    opt = _optimizer(lib, kind, groups)
    sched = make(lib.optim.lr_scheduler, opt)

    def snapshot():
        rows = []
        for g in opt.param_groups:
            rows.append((g["lr"], g.get("momentum", g.get("betas", (None,))[0])))
        return rows, list(sched.get_last_lr())

    seen = [snapshot()]
    for _ in range(steps):
        opt.step()
        sched.step()
        seen.append(snapshot())
    return seen


CYCLIC = [
    ("triangular", lambda S, o: S.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=4), "SGD", 1),
    ("triangular-down", lambda S, o: S.CyclicLR(o, 0.01, 0.1, step_size_up=3, step_size_down=7), "SGD", 1),
    ("triangular2", lambda S, o: S.CyclicLR(o, 0.001, 0.01, step_size_up=5, mode="triangular2"), "SGD", 1),
    ("exp_range", lambda S, o: S.CyclicLR(o, 0.01, 0.2, step_size_up=3, mode="exp_range", gamma=0.95), "SGD", 1),
    ("scale_fn-cycle", lambda S, o: S.CyclicLR(o, 0.01, 0.1, step_size_up=2, scale_fn=lambda x: 1 / x), "SGD", 1),
    ("scale_fn-iterations", lambda S, o: S.CyclicLR(o, 0.01, 0.1, 3, scale_fn=lambda x: 0.9**x,
                                                    scale_mode="iterations"), "SGD", 1),
    ("per-group", lambda S, o: S.CyclicLR(o, [0.01, 0.02], [0.1, 0.3], 4, base_momentum=[0.7, 0.8],
                                          max_momentum=[0.9, 0.95]), "SGD", 2),
    ("adam-beta1", lambda S, o: S.CyclicLR(o, 0.001, 0.01, step_size_up=4, base_momentum=0.85,
                                           max_momentum=0.95), "Adam", 1),
    ("no-momentum", lambda S, o: S.CyclicLR(o, 0.01, 0.1, step_size_up=4, cycle_momentum=False), "Adagrad", 1),
]


@pytest.mark.parametrize("label, make, kind, groups", CYCLIC, ids=[c[0] for c in CYCLIC])
def test_cyclic_lr_matches_torch(label, make, kind, groups):
    torch = pytest.importorskip("torch")
    ours = _run(tensorlib, make, kind=kind, groups=groups)
    theirs = _run(torch, make, kind=kind, groups=groups)
    assert _same(ours, theirs)


def _same(a, b):
    np.testing.assert_allclose(np.array(_flat(a), dtype=float), np.array(_flat(b), dtype=float), rtol=1e-13, atol=1e-15)
    return True


def _flat(x):
    if isinstance(x, (list, tuple)):
        return [v for e in x for v in _flat(e)]
    return [np.nan if x is None else x]


def test_cyclic_lr_triangular_values():
    opt = _optimizer(tensorlib)
    sched = CyclicLR(opt, base_lr=0.0, max_lr=1.0, step_size_up=2, step_size_down=2, cycle_momentum=False)
    lrs = [opt.param_groups[0]["lr"]]
    for _ in range(8):
        opt.step()
        sched.step()
        lrs.append(opt.param_groups[0]["lr"])
    assert lrs == pytest.approx([0.0, 0.5, 1.0, 0.5, 0.0, 0.5, 1.0, 0.5, 0.0])
    assert opt.param_groups[0]["initial_lr"] == 0.0  # base_lr is set before the base class records initial_lr


def test_cyclic_lr_momentum_moves_against_the_lr():
    opt = _optimizer(tensorlib)
    CyclicLR(opt, 0.0, 1.0, step_size_up=2, base_momentum=0.8, max_momentum=0.9)
    g = opt.param_groups[0]
    assert (g["momentum"], g["max_momentum"], g["base_momentum"]) == (0.9, 0.9, 0.8)
    adam = _optimizer(tensorlib, "Adam")
    CyclicLR(adam, 0.0, 1.0, base_momentum=0.5, max_momentum=0.6)
    assert adam.param_groups[0]["betas"] == (0.6, 0.999)


class _Halving:
    """A callable object: its attributes are saved in the scheduler's state dict (a lambda is not)."""

    def __init__(self, base):
        self.base = base

    def __call__(self, x):
        return self.base**x


def test_cyclic_lr_state_dict_matches_torch_and_round_trips():
    torch = pytest.importorskip("torch")
    states = []
    for lib in (tensorlib, torch):
        opt = _optimizer(lib)
        sched = lib.optim.lr_scheduler.CyclicLR(opt, 0.01, 0.1, step_size_up=3, mode="exp_range", gamma=0.9)
        for _ in range(5):
            opt.step()
            sched.step()
        states.append(sched.state_dict())
    ours, theirs = states
    public = sorted(k for k in theirs if not k.startswith("_"))
    assert sorted(k for k in ours if not k.startswith("_")) == public
    assert "_scale_fn_ref" not in ours and ours["_scale_fn_custom"] is None
    for key in public:
        assert ours[key] == pytest.approx(theirs[key]) if isinstance(theirs[key], (int, float, list)) \
            else ours[key] == theirs[key], key


def test_cyclic_lr_state_dict_round_trip_continues():
    def make(opt, fn):
        return CyclicLR(opt, 0.01, 0.1, step_size_up=3, scale_fn=fn, scale_mode="iterations")

    opt = _optimizer(tensorlib)
    sched = make(opt, _Halving(0.9))
    for _ in range(4):
        opt.step()
        sched.step()
    saved = sched.state_dict()
    assert saved["_scale_fn_custom"] == {"base": 0.9}
    opt2 = _optimizer(tensorlib)
    fn2 = _Halving(0.5)
    sched2 = make(opt2, fn2)
    sched2.load_state_dict(dict(saved))
    assert fn2.base == 0.9 and sched2.last_epoch == 4
    for _ in range(5):
        for o, s in ((opt, sched), (opt2, sched2)):
            o.step()
            s.step()
        assert sched.get_last_lr() == sched2.get_last_lr()
    lambda_sched = CyclicLR(_optimizer(tensorlib), 0.01, 0.1, scale_fn=lambda x: 1.0)
    assert lambda_sched.state_dict()["_scale_fn_custom"] is None


def test_cyclic_lr_errors_match_torch():
    torch = pytest.importorskip("torch")

    def errors(lib):
        S = lib.optim.lr_scheduler
        return [
            lambda: S.CyclicLR(_optimizer(lib), 0.01, 0.1, mode="square"),
            lambda: S.CyclicLR(_optimizer(lib, "Adagrad"), 0.01, 0.1),
            lambda: S.CyclicLR(_optimizer(lib), [0.01, 0.02], 0.1),
            lambda: S.CyclicLR(_optimizer(lib), 0.01, 0.1, base_momentum=[0.1, 0.2]),
            lambda: S.CyclicLR(object(), 0.01, 0.1),
            lambda: S.CyclicLR(_optimizer(lib), 0.01, 0.1, last_epoch=3),
        ]

    for theirs, ours in zip(errors(torch), errors(tensorlib)):
        with pytest.raises(Exception) as expected:
            theirs()
        with pytest.raises(expected.type) as got:
            ours()
        assert str(got.value) == str(expected.value)


CHAINED = [
    ("constant-exponential", lambda S, o: S.ChainedScheduler([S.ConstantLR(o, factor=0.1, total_iters=5),
                                                               S.ExponentialLR(o, gamma=0.9)])),
    ("step-linear-cosine", lambda S, o: S.ChainedScheduler([S.StepLR(o, 3, gamma=0.5),
                                                             S.LinearLR(o, 0.2, total_iters=6),
                                                             S.CosineAnnealingLR(o, T_max=10)], optimizer=o)),
    ("multiplicative-multistep", lambda S, o: S.ChainedScheduler([S.MultiplicativeLR(o, lambda e: 0.97),
                                                                  S.MultiStepLR(o, [4, 9], gamma=0.3)])),
    ("one", lambda S, o: S.ChainedScheduler([S.PolynomialLR(o, total_iters=8, power=2.0)])),
]


@pytest.mark.parametrize("label, make", CHAINED, ids=[c[0] for c in CHAINED])
@pytest.mark.parametrize("groups", [1, 2])
def test_chained_scheduler_matches_torch(label, make, groups):
    torch = pytest.importorskip("torch")
    assert _same(_run(tensorlib, make, steps=25, groups=groups), _run(torch, make, steps=25, groups=groups))


def test_chained_scheduler_multiplies_the_schedules():
    opt = _optimizer(tensorlib)
    chained = ChainedScheduler([ConstantLR(opt, factor=0.1, total_iters=2), ExponentialLR(opt, gamma=0.5)])
    assert chained.optimizer is opt and chained.get_last_lr() == pytest.approx([0.01])
    lrs = []
    for _ in range(4):
        opt.step()
        chained.step()
        lrs.append(chained.get_last_lr()[0])
    assert lrs == pytest.approx([0.005, 0.025, 0.0125, 0.00625])


def test_chained_scheduler_state_dict_round_trip():
    torch = pytest.importorskip("torch")
    dicts = []
    for lib in (tensorlib, torch):
        opt = _optimizer(lib)
        S = lib.optim.lr_scheduler
        chained = S.ChainedScheduler([S.StepLR(opt, 2), S.ExponentialLR(opt, 0.9)])
        for _ in range(3):
            opt.step()
            chained.step()
        dicts.append(chained.state_dict())
    ours, theirs = dicts
    assert sorted(ours) == sorted(theirs) and len(ours["_schedulers"]) == 2
    for mine, ref in zip(ours["_schedulers"], theirs["_schedulers"]):
        assert mine["last_epoch"] == ref["last_epoch"] and mine["_last_lr"] == pytest.approx(ref["_last_lr"])
    # loading restores every chained scheduler, and leaves the given dict as it was
    opt = _optimizer(tensorlib)
    fresh = ChainedScheduler([StepLR(opt, 2), ExponentialLR(opt, 0.9)])
    keys = list(ours)
    fresh.load_state_dict(ours)
    assert list(ours) == keys
    assert [s.last_epoch for s in fresh._schedulers] == [3, 3]
    assert fresh.get_last_lr() == pytest.approx(theirs["_last_lr"])


def test_chained_scheduler_errors_match_torch():
    torch = pytest.importorskip("torch")

    def errors(lib):
        S = lib.optim.lr_scheduler
        a, b = _optimizer(lib), _optimizer(lib)
        return [
            lambda: S.ChainedScheduler([]),
            lambda: S.ChainedScheduler([S.StepLR(a, 2), object()], optimizer=a),
            lambda: S.ChainedScheduler([S.StepLR(a, 2), S.ReduceLROnPlateau(a)]),
            lambda: S.ChainedScheduler([S.StepLR(a, 2), S.StepLR(b, 2)]),
        ]

    for theirs, ours in zip(errors(torch), errors(tensorlib)):
        with pytest.raises(Exception) as expected:
            theirs()
        with pytest.raises(expected.type) as got:
            ours()
        assert str(got.value).replace("tensorlib.", "torch.").split(" has ")[0] == \
            str(expected.value).split(" has ")[0]


def test_chained_scheduler_rejects_plateau_and_warns_like_its_members():
    opt = _optimizer(tensorlib)
    with pytest.raises(ValueError, match="does not support `ReduceLROnPlateau`"):
        ChainedScheduler([ReduceLROnPlateau(opt)])
    sgd = SGD([tensorlib.nn.Parameter(tensorlib.ones(1))], lr=0.1)
    chained = ChainedScheduler([StepLR(sgd, 1)])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        chained.step()  # before any optimizer.step()
    assert any("before `optimizer.step()`" in str(w.message) for w in caught)
    assert isinstance(Adam([tensorlib.nn.Parameter(tensorlib.ones(1))]), tensorlib.optim.Optimizer)
