"""utils.data (datasets, samplers, DataLoader), optim.lr_scheduler, nn.utils gradient clipping."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tensorlib

from tests.parity.differential import differential


@differential
def test_datasets_and_dataloader(torch, rec):
    D = torch.utils.data
    ds = D.TensorDataset(torch.arange(10.0), torch.arange(10))
    rec((len(ds), ds[3]))
    dl = D.DataLoader(ds, batch_size=4)
    rec((len(dl), list(dl)[-1], type(iter(dl)).__name__, dl.batch_size, dl.drop_last, dl.dataset is ds))
    rec(len(D.DataLoader(ds, batch_size=4, drop_last=True)), 2)
    rec([len(b[0]) for b in D.DataLoader(ds, batch_size=4, drop_last=True)], [4, 4])
    rec(next(iter(D.DataLoader([1, 2, 3], batch_size=2))), [1, 2])
    rec(next(iter(D.DataLoader([1.0, 2.0, 3.0], batch_size=2))))
    rec(next(iter(D.DataLoader([(1, "a"), (2, "b")], batch_size=2))))
    rec(next(iter(D.DataLoader([{"x": torch.ones(2), "y": 1}] * 3, batch_size=2))))
    rec(next(iter(D.DataLoader([np.ones(2)] * 3, batch_size=2))))
    rec(next(iter(D.DataLoader([np.float32(1.5)] * 3, batch_size=2))))
    rec(next(iter(D.DataLoader([True, False], batch_size=2))))
    rec(next(iter(D.DataLoader(ds, batch_size=None))))
    rec(next(iter(D.DataLoader([(torch.tensor(1), 2.5)], batch_size=1))))
    rec(next(iter(D.DataLoader(ds, batch_size=3, collate_fn=lambda b: len(b)))), 3)
    rec.raises(AssertionError, D.TensorDataset, torch.ones(3), torch.ones(4), match="Size mismatch between tensors")
    rec.raises(ValueError, D.DataLoader, ds, shuffle=True, sampler=D.SequentialSampler(ds),
               match="sampler option is mutually exclusive with shuffle")
    rec.raises(ValueError, D.DataLoader, ds, batch_size=0,
               match="batch_size should be a positive integer value, but got batch_size=0")
    rec.raises(ValueError, D.DataLoader, ds, batch_sampler=[[0, 1]], batch_size=2)
    rec.raises(RuntimeError, lambda: next(iter(D.DataLoader([[1, 2], [1]], batch_size=2))),
               match="each element in list of batch should be of equal size")
    rec.raises(RuntimeError, lambda: next(iter(D.DataLoader([torch.ones(2), torch.ones(3)], batch_size=2))),
               match="stack expects each tensor to be equal size")
    rec.raises(IndexError, ds.__getitem__, 10)
    rec.raises(NotImplementedError, D.Dataset().__getitem__, 0)
    rec.raises(TypeError, len, D.Dataset())
    rec((len(ds + ds), (ds + ds)[12], len(D.ConcatDataset([ds, ds, ds]))), (20, (2.0, 2), 30))
    sub = D.Subset(ds, [9, 0, 4])
    rec((len(sub), sub[0], [b[1].tolist() for b in D.DataLoader(sub, batch_size=2)]))
    rec(list(D.BatchSampler(D.SequentialSampler(range(5)), 2, False)), [[0, 1], [2, 3], [4]])
    rec(list(D.BatchSampler(D.SequentialSampler(range(5)), 2, True)), [[0, 1], [2, 3]])
    a, b = D.random_split(ds, [0.7, 0.3])
    rec((len(a), len(b), type(a).__name__, sorted(a.indices + b.indices) == list(range(10))), (7, 3, "Subset", True))
    rec.raises(ValueError, D.random_split, ds, [3, 3], match="Sum of input lengths does not equal the length")

    class Squares(D.IterableDataset):
        def __iter__(self):
            return iter([i * i for i in range(5)])

    rec([b.tolist() for b in D.DataLoader(Squares(), batch_size=2)], [[0, 1], [4, 9], [16]])
    rec.raises(ValueError, D.DataLoader, Squares(), shuffle=True)
    rec((D.get_worker_info(), len(D.RandomSampler(ds, num_samples=4)), len(D.WeightedRandomSampler([0.1, 0.9], 5))))


@differential
def test_shuffle_is_deterministic_under_manual_seed(torch, rec):
    D = torch.utils.data
    ds = D.TensorDataset(torch.arange(10))

    def epoch(**kw):
        return [b[0].tolist() for b in D.DataLoader(ds, batch_size=4, shuffle=True, **kw)]

    torch.manual_seed(0)
    first = epoch()
    torch.manual_seed(0)
    again = epoch()
    second = epoch()
    g1, g2 = torch.Generator().manual_seed(5), torch.Generator().manual_seed(5)
    rec((first == again, first != second, epoch(generator=g1) == epoch(generator=g2)), (True, True, True))
    rec(sorted(sum(first, [])), list(range(10)))
    torch.manual_seed(1)
    drawn = list(D.RandomSampler(range(6), replacement=True, num_samples=20))
    rec((len(drawn), all(0 <= i < 6 for i in drawn)), (20, True))
    torch.manual_seed(1)
    picks = list(D.WeightedRandomSampler([0.0, 1.0, 0.0], 6))
    rec(picks, [1, 1, 1, 1, 1, 1])
    rec(sorted(D.SubsetRandomSampler([3, 5, 7])), [3, 5, 7])


def _opt(torch, lr=0.1, momentum=0.0):
    p = torch.nn.Parameter(torch.ones(2))
    p.grad = torch.ones(2)
    return torch.optim.SGD([p], lr=lr, momentum=momentum)


def _lrs(torch, make_sched, steps=12, **opt_kw):
    opt = _opt(torch, **opt_kw)
    sched = make_sched(opt)
    out = [sched.get_last_lr()[0]]
    for _ in range(steps):
        opt.step()
        sched.step()
        out.append(sched.get_last_lr()[0])
    return out


@differential
def test_lr_schedulers(torch, rec):
    S = torch.optim.lr_scheduler
    schedules = {
        "StepLR": lambda o: S.StepLR(o, step_size=3, gamma=0.5),
        "MultiStepLR": lambda o: S.MultiStepLR(o, milestones=[2, 5, 5, 9], gamma=0.1),
        "ExponentialLR": lambda o: S.ExponentialLR(o, gamma=0.9),
        "CosineAnnealingLR": lambda o: S.CosineAnnealingLR(o, T_max=5, eta_min=0.01),
        "LambdaLR": lambda o: S.LambdaLR(o, lambda e: 1 / (e + 1)),
        "MultiplicativeLR": lambda o: S.MultiplicativeLR(o, lambda e: 0.95),
        "ConstantLR": lambda o: S.ConstantLR(o, factor=0.5, total_iters=3),
        "LinearLR": lambda o: S.LinearLR(o, start_factor=0.25, total_iters=4),
        "PolynomialLR": lambda o: S.PolynomialLR(o, total_iters=6, power=2.0),
        "CosineAnnealingWarmRestarts": lambda o: S.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2, eta_min=0.001),
        "SequentialLR": lambda o: S.SequentialLR(o, [S.LinearLR(o, 0.1, total_iters=3), S.ExponentialLR(o, 0.8)], [3]),
    }
    for name, make in schedules.items():
        rec(_lrs(torch, make), label=name)
    opt = _opt(torch)
    sched = S.StepLR(opt, step_size=2)
    opt.step()
    sched.step()
    sd = sched.state_dict()
    rec((sorted(k for k in sd if not k.startswith("_")), sd["last_epoch"], sd["base_lrs"]))
    sched2 = S.StepLR(_opt(torch), step_size=5)
    sched2.load_state_dict(sd)
    rec((sched2.step_size, sched2.last_epoch), (2, 1))
    plateau_opt = _opt(torch, lr=1.0)
    plateau = S.ReduceLROnPlateau(plateau_opt, mode="min", factor=0.5, patience=1, cooldown=1)
    lrs = []
    for metric in [1.0, 0.9, 0.95, 0.95, 0.95, 0.95, 0.5, 0.6, 0.6, 0.6]:
        plateau.step(metric)
        lrs.append(plateau_opt.param_groups[0]["lr"])
    rec(lrs)
    rec(plateau.get_last_lr(), [lrs[-1]])
    for momentum_opt, kw in ((lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9), dict(max_lr=0.1, total_steps=10)),
                             (lambda ps: torch.optim.Adam(ps, lr=0.1), dict(max_lr=[0.05], epochs=2, steps_per_epoch=5,
                                                                           three_phase=True, anneal_strategy="linear"))):
        p = torch.nn.Parameter(torch.ones(2))
        p.grad = torch.ones(2)
        opt = momentum_opt([p])
        one = S.OneCycleLR(opt, **kw)
        seen = []
        for _ in range(one.total_steps - 1):
            opt.step()
            one.step()
            g = opt.param_groups[0]
            seen.append((g["lr"], g.get("momentum", g.get("betas", (0.0,))[0])))
        rec(seen, label="OneCycleLR")
    rec.raises(ValueError, S.OneCycleLR, _opt(torch), 0.1, match="You must define either total_steps OR")
    rec.raises(ValueError, S.ReduceLROnPlateau, _opt(torch), factor=1.5, match="Factor should be < 1.0.")
    rec.raises(TypeError, S.StepLR, object(), 2)
    rec.raises(KeyError, S.StepLR, _opt(torch), 2, last_epoch=3)
    early_opt = _opt(torch)
    early = S.StepLR(early_opt, 1)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        early.step()
    rec(any("lr_scheduler.step()` before `optimizer.step()`" in str(x.message) for x in w), True)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        _lrs(torch, lambda o: S.StepLR(o, 1), steps=2)
    rec(len(w), 0)


@differential
def test_clip_grad(torch, rec):
    U = torch.nn.utils
    p = torch.nn.Parameter(torch.tensor([3.0, 4.0]))
    p.grad = torch.tensor([3.0, 4.0])
    rec((U.clip_grad_norm_(p, 1.0), p.grad), (5.0, [0.6, 0.8]))
    q = torch.nn.Parameter(torch.tensor([1.0]))
    rec((U.clip_grad_norm_([], 1.0), U.clip_grad_norm_([q], 1.0)), (0.0, 0.0))
    p.grad = torch.tensor([3.0, 4.0])
    rec((U.clip_grad_norm_([p], 10, norm_type="inf"), p.grad), (4.0, [3.0, 4.0]))
    a, b = torch.nn.Parameter(torch.ones(2)), torch.nn.Parameter(torch.ones(3))
    a.grad, b.grad = torch.tensor([1.0, 2.0]), torch.tensor([2.0, 0.0, 4.0])
    rec((U.clip_grad_norm_([a, b], 2.0, norm_type=1.0), a.grad, b.grad))
    p.grad = torch.tensor([float("nan"), 4.0])
    rec.raises(RuntimeError, U.clip_grad_norm_, [p], 1, error_if_nonfinite=True,
               match="The total norm of order 2.0 for gradients from `parameters` is non-finite")
    p.grad = torch.tensor([3.0, -4.0])
    rec((U.clip_grads_with_norm_([p], 1.0, torch.tensor(5.0)), p.grad), (None, [0.6, -0.8]))
    p.grad = torch.tensor([3.0, -4.0])
    rec((U.clip_grads_with_norm_([p], 10.0, torch.tensor(5.0)), p.grad), (None, [3.0, -4.0]))
    p.grad = torch.tensor([3.0, -4.0])
    rec((U.clip_grad_value_(p, 3.5), p.grad), (None, [3.0, -3.5]))
    rec(U.parameters_to_vector([torch.ones(2, 2), torch.zeros(3)]), [1, 1, 1, 1, 0, 0, 0])
    ps = [torch.nn.Parameter(torch.zeros(2)), torch.nn.Parameter(torch.zeros(1, 2))]
    U.vector_to_parameters(torch.tensor([1.0, 2.0, 3.0, 4.0]), ps)
    rec(ps)
    rec.raises(TypeError, U.vector_to_parameters, [1], ps)
    rec((U.rnn.pad_sequence([torch.ones(2), torch.ones(3)]),
         U.rnn.pad_sequence([torch.ones(2, 1), torch.ones(3, 1)], batch_first=True, padding_value=-1),
         U.rnn.pad_sequence([torch.ones(1), torch.ones(3) * 2], batch_first=True, padding_side="left")))
    lin = torch.nn.Linear(3, 2)
    lin(torch.ones(4, 3) * 10).sum().backward()
    total = U.clip_grad_norm_(lin.parameters(), max_norm=1.0)
    rec(bool(total > 1.0), True)
    after = torch.cat([g.grad.flatten() for g in lin.parameters()]).norm()
    rec(after, 1.0)


def test_dataloader_training_epoch_without_torch():
    """A shuffled, batched epoch feeds a training step: the essentials on tensorlib alone."""
    t = tensorlib
    D = t.utils.data
    X = t.randn(20, 3)
    y = (X.sum(1) > 0).long()
    loader = D.DataLoader(D.TensorDataset(X, y), batch_size=8, shuffle=True, drop_last=False)
    model = t.nn.Linear(3, 2)
    opt = t.optim.SGD(model.parameters(), lr=0.5)
    sched = t.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    sizes = []
    for xb, yb in loader:
        sizes.append(len(xb))
        opt.zero_grad()
        t.nn.functional.cross_entropy(model(xb), yb).backward()
        t.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
    sched.step()
    assert sorted(sizes) == [4, 8, 8] and opt.param_groups[0]["lr"] == pytest.approx(0.25)
