"""Learning-rate schedulers: adjust each parameter group's ``lr`` once per ``step()``.

Every scheduler updates the learning rate from its current value (so
schedulers can be chained on one optimizer), and has a closed form used when
``step(epoch)`` jumps to an explicit epoch.
"""

from __future__ import annotations

import bisect
import functools
import math
import types
import warnings
from collections import Counter
from typing import Any, Callable, Iterable, Sequence

from .optimizer import Optimizer

__all__ = [
    "ChainedScheduler",
    "ConstantLR",
    "CosineAnnealingLR",
    "CosineAnnealingWarmRestarts",
    "CyclicLR",
    "ExponentialLR",
    "LRScheduler",
    "LambdaLR",
    "LinearLR",
    "MultiStepLR",
    "MultiplicativeLR",
    "OneCycleLR",
    "PolynomialLR",
    "ReduceLROnPlateau",
    "SequentialLR",
    "StepLR",
]

_EPOCH_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated where possible. "
    "Please use `scheduler.step()` to step the scheduler. During the deprecation, if epoch is different from None, "
    "the closed form is used instead of the new chainable form, where available."
)


def _check_optimizer(optimizer: Any) -> None:
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")


class LRScheduler:
    """Base class. Subclasses implement ``get_lr()``: the new lr of every group, from the current ones."""

    _get_lr_called_within_step = False

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(
                        f"param 'initial_lr' is not specified in param_groups[{i}] when resuming scheduler with "
                        "last_epoch >= 0.\nThis typically happens when:\n1. You're trying to resume training from a "
                        "checkpoint but haven't properly loaded the optimizer state\n2. You're using last_epoch >= 0 "
                        "for a fresh training run (not recommended)"
                    )
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        self._initial_step()

    def _initial_step(self) -> None:
        self._step_count = 0
        self.step()

    def get_lr(self) -> list:
        """The learning rate of every group for the current ``last_epoch`` (from their current values)."""
        raise NotImplementedError

    def get_last_lr(self) -> list:
        """The learning rates set by the last ``step()``."""
        return self._last_lr

    def state_dict(self) -> dict:
        """The scheduler's state (everything but the optimizer)."""
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore a state saved by :meth:`state_dict`."""
        self.__dict__.update(state_dict)

    def step(self, epoch: int | None = None) -> None:
        """Advance one epoch (or jump to ``epoch``, deprecated) and set the groups' learning rates."""
        if self._step_count == 1 and not getattr(self.optimizer, "_opt_called", False):
            warnings.warn(
                "Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch 1.1.0 and later, you "
                "should call them in the opposite order: `optimizer.step()` before `lr_scheduler.step()`.  Failure "
                "to do this will result in PyTorch skipping the first value of the learning rate schedule. See more "
                "details at https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate",
                UserWarning,
                stacklevel=2,
            )
        self._step_count += 1
        self._get_lr_called_within_step = True
        try:
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                warnings.warn(_EPOCH_WARNING, UserWarning, stacklevel=2)
                self.last_epoch = epoch
                closed = getattr(self, "_get_closed_form_lr", None)
                values = closed() if closed is not None else self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        self._set_lrs(values)

    def _set_lrs(self, values: Sequence[float]) -> None:
        for group, lr in zip(self.optimizer.param_groups, values):
            group["lr"] = lr
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

    def _group_lrs(self) -> list:
        return [group["lr"] for group in self.optimizer.param_groups]


_LRScheduler = LRScheduler


def _per_group(value: Any, optimizer: Optimizer, name: str) -> list:
    if isinstance(value, (list, tuple)):
        if len(value) != len(optimizer.param_groups):
            raise ValueError(f"Expected {len(optimizer.param_groups)} {name}s, but got {len(value)}")
        return list(value)
    return [value] * len(optimizer.param_groups)


def _lambda_state(obj: "LambdaLR | MultiplicativeLR") -> dict:
    state = {k: v for k, v in obj.__dict__.items() if k not in ("optimizer", "lr_lambdas")}
    state["lr_lambdas"] = [None if isinstance(f, types.FunctionType) else dict(f.__dict__) for f in obj.lr_lambdas]
    return state


def _load_lambda_state(obj: "LambdaLR | MultiplicativeLR", state_dict: dict) -> None:
    state = dict(state_dict)
    lambdas = state.pop("lr_lambdas")
    obj.__dict__.update(state)
    for f, saved in zip(obj.lr_lambdas, lambdas):
        if saved is not None:
            f.__dict__.update(saved)


class LambdaLR(LRScheduler):
    """``lr = initial_lr * lr_lambda(epoch)`` (one function, or one per parameter group)."""

    def __init__(self, optimizer: Optimizer, lr_lambda: Callable[[int], float] | list, last_epoch: int = -1) -> None:
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        self.lr_lambdas = _per_group(lr_lambda, optimizer, "lr_lambda")
        super().__init__(optimizer, last_epoch)

    def state_dict(self) -> dict:
        return _lambda_state(self)

    def load_state_dict(self, state_dict: dict) -> None:
        _load_lambda_state(self, state_dict)

    def get_lr(self) -> list:
        return [base * f(self.last_epoch) for f, base in zip(self.lr_lambdas, self.base_lrs)]


class MultiplicativeLR(LRScheduler):
    """Multiply each group's lr by ``lr_lambda(epoch)`` at every step."""

    def __init__(self, optimizer: Optimizer, lr_lambda: Callable[[int], float] | list, last_epoch: int = -1) -> None:
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        self.lr_lambdas = _per_group(lr_lambda, optimizer, "lr_lambda")
        super().__init__(optimizer, last_epoch)

    def state_dict(self) -> dict:
        return _lambda_state(self)

    def load_state_dict(self, state_dict: dict) -> None:
        _load_lambda_state(self, state_dict)

    def get_lr(self) -> list:
        if self.last_epoch > 0:
            return [lr * f(self.last_epoch) for f, lr in zip(self.lr_lambdas, self._group_lrs())]
        return self._group_lrs()


class StepLR(LRScheduler):
    """Multiply the lr by ``gamma`` every ``step_size`` epochs."""

    def __init__(self, optimizer: Optimizer, step_size: int, gamma: float = 0.1, last_epoch: int = -1) -> None:
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return self._group_lrs()
        return [lr * self.gamma for lr in self._group_lrs()]

    def _get_closed_form_lr(self) -> list:
        return [base * self.gamma ** (self.last_epoch // self.step_size) for base in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiply the lr by ``gamma`` at each epoch listed in ``milestones``."""

    def __init__(self, optimizer: Optimizer, milestones: Iterable[int], gamma: float = 0.1, last_epoch: int = -1) -> None:
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        if self.last_epoch not in self.milestones:
            return self._group_lrs()
        factor = self.gamma ** self.milestones[self.last_epoch]
        return [lr * factor for lr in self._group_lrs()]

    def _get_closed_form_lr(self) -> list:
        passed = bisect.bisect_right(sorted(self.milestones.elements()), self.last_epoch)
        return [base * self.gamma ** passed for base in self.base_lrs]


class ConstantLR(LRScheduler):
    """Scale the lr by ``factor`` for the first ``total_iters`` epochs, then restore it."""

    def __init__(self, optimizer: Optimizer, factor: float = 1.0 / 3, total_iters: int = 5, last_epoch: int = -1) -> None:
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        lrs = self._group_lrs()
        if self.last_epoch == 0:
            return [lr * self.factor for lr in lrs]
        if self.last_epoch != self.total_iters:
            return lrs
        return [lr * (1.0 / self.factor) for lr in lrs]

    def _get_closed_form_lr(self) -> list:
        f = self.factor + (self.last_epoch >= self.total_iters) * (1 - self.factor)
        return [base * f for base in self.base_lrs]


class LinearLR(LRScheduler):
    """Scale the lr by a factor going linearly from ``start_factor`` to ``end_factor`` over ``total_iters`` epochs."""

    def __init__(self, optimizer: Optimizer, start_factor: float = 1.0 / 3, end_factor: float = 1.0,
                 total_iters: int = 5, last_epoch: int = -1) -> None:
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError(
                "Starting multiplicative factor expected to be greater than 0 and less or equal to 1."
            )
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        lrs = self._group_lrs()
        if self.last_epoch == 0:
            return [lr * self.start_factor for lr in lrs]
        if self.last_epoch > self.total_iters:
            return lrs
        span = self.end_factor - self.start_factor
        ratio = 1.0 + span / (self.total_iters * self.start_factor + (self.last_epoch - 1) * span)
        return [lr * ratio for lr in lrs]

    def _get_closed_form_lr(self) -> list:
        frac = min(self.total_iters, self.last_epoch) / self.total_iters
        f = self.start_factor + (self.end_factor - self.start_factor) * frac
        return [base * f for base in self.base_lrs]


class ExponentialLR(LRScheduler):
    """Multiply the lr by ``gamma`` every epoch."""

    def __init__(self, optimizer: Optimizer, gamma: float, last_epoch: int = -1) -> None:
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        if self.last_epoch == 0:
            return self._group_lrs()
        return [lr * self.gamma for lr in self._group_lrs()]

    def _get_closed_form_lr(self) -> list:
        return [base * self.gamma ** self.last_epoch for base in self.base_lrs]


class PolynomialLR(LRScheduler):
    """Decay the lr to zero over ``total_iters`` epochs as ``(1 - epoch / total_iters) ** power``."""

    def __init__(self, optimizer: Optimizer, total_iters: int = 5, power: float = 1.0, last_epoch: int = -1) -> None:
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        lrs = self._group_lrs()
        if self.last_epoch == 0 or self.last_epoch > self.total_iters:
            return lrs
        t = self.last_epoch
        decay = ((1.0 - t / self.total_iters) / (1.0 - (t - 1) / self.total_iters)) ** self.power
        return [lr * decay for lr in lrs]

    def _get_closed_form_lr(self) -> list:
        f = (1.0 - min(self.total_iters, self.last_epoch) / self.total_iters) ** self.power
        return [base * f for base in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """Anneal the lr from its initial value to ``eta_min`` along half a cosine over ``T_max`` epochs."""

    def __init__(self, optimizer: Optimizer, T_max: int, eta_min: float = 0.0, last_epoch: int = -1) -> None:  # noqa: N803
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        t, T, lo = self.last_epoch, self.T_max, self.eta_min
        lrs = self._group_lrs()
        if t == 0:
            return lrs
        if self._step_count == 1 and t > 0:
            return [lo + (base - lo) * (1 + math.cos(t * math.pi / T)) / 2 for base in self.base_lrs]
        if (t - 1 - T) % (2 * T) == 0:
            return [lr + (base - lo) * (1 - math.cos(math.pi / T)) / 2 for lr, base in zip(lrs, self.base_lrs)]
        ratio = (1 + math.cos(math.pi * t / T)) / (1 + math.cos(math.pi * (t - 1) / T))
        return [ratio * (lr - lo) + lo for lr in lrs]

    def _get_closed_form_lr(self) -> list:
        t, T, lo = self.last_epoch, self.T_max, self.eta_min
        return [lo + (base - lo) * (1 + math.cos(math.pi * t / T)) / 2 for base in self.base_lrs]


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing restarted every ``T_0`` epochs (each period ``T_mult`` times longer than the last)."""

    def __init__(self, optimizer: Optimizer, T_0: int, T_mult: int = 1, eta_min: float = 0.0,  # noqa: N803
                 last_epoch: int = -1) -> None:
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        if not isinstance(eta_min, (float, int)):
            raise ValueError(f"Expected float or int eta_min, but got {eta_min} of type {type(eta_min)}")
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur: float = last_epoch  # fractional when step() is given a fractional epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        c = (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
        return [self.eta_min + (base - self.eta_min) * c for base in self.base_lrs]

    def step(self, epoch: float | None = None) -> None:
        """Advance one epoch, or go to a (possibly fractional) ``epoch``."""
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur += 1
            if self.T_cur >= self.T_i:
                self.T_cur -= self.T_i
                self.T_i *= self.T_mult
        else:
            if epoch < 0:
                raise ValueError(f"Expected non-negative epoch, but got {epoch}")
            if epoch >= self.T_0:
                if self.T_mult == 1:
                    self.T_cur = epoch % self.T_0
                else:
                    n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
                    self.T_cur = epoch - self.T_0 * (self.T_mult**n - 1) / (self.T_mult - 1)
                    self.T_i = self.T_0 * self.T_mult**n
            else:
                self.T_i = self.T_0
                self.T_cur = epoch
        self.last_epoch = math.floor(epoch)
        self._step_count += 1
        self._set_lrs(self.get_lr())


class SequentialLR(LRScheduler):
    """Run ``schedulers`` one after the other, switching at each epoch in ``milestones``."""

    def __init__(self, optimizer: Optimizer, schedulers: list, milestones: list, last_epoch: int = -1) -> None:
        _check_optimizer(optimizer)
        if len(schedulers) < 1:
            raise ValueError(f"{type(self).__name__} expects at least one scheduler, but got no scheduler.")
        for i, s in enumerate(schedulers):
            if not hasattr(s, "optimizer"):
                raise TypeError(
                    f"{type(self).__name__} at index {i} should have `optimizer` as its attribute."
                )
            if s.optimizer is not optimizer:
                raise ValueError(
                    f"{type(self).__name__} expects all schedulers to belong to the same optimizer, but got "
                    f"scheduler {type(s).__name__} at index {i} has {s.optimizer}, which is different from "
                    f"{type(optimizer).__name__}."
                )
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(
                "Sequential Schedulers expects number of schedulers provided to be one more than the number of "
                f"milestone points, but got number of schedulers {len(schedulers)} and the number of milestones to "
                f"be equal to {len(milestones)}"
            )
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        for group in optimizer.param_groups:
            group["lr"] = group["initial_lr"]
        for s in schedulers:  # undo the initial step each scheduler took when it was built
            s.last_epoch -= 1
        schedulers[0]._initial_step()
        self._last_lr = schedulers[0].get_last_lr()

    def step(self) -> None:  # type: ignore[override]
        self.last_epoch += 1
        idx = bisect.bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            scheduler.last_epoch = 0
            closed = getattr(scheduler, "_get_closed_form_lr", None)
            scheduler._set_lrs(closed() if closed is not None else scheduler.get_lr())
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()

    def state_dict(self) -> dict:
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_schedulers")}
        state["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return state

    def load_state_dict(self, state_dict: dict) -> None:
        state = dict(state_dict)
        inner = state.pop("_schedulers")
        self.__dict__.update(state)
        for s, sd in zip(self._schedulers, inner):
            s.load_state_dict(sd)


class ReduceLROnPlateau(LRScheduler):
    """Multiply the lr by ``factor`` when the metric passed to ``step(metric)`` stops improving for ``patience`` epochs."""

    def __init__(self, optimizer: Optimizer, mode: str = "min", factor: float = 0.1, patience: int = 10,
                 threshold: float = 1e-4, threshold_mode: str = "rel", cooldown: int = 0,
                 min_lr: float | list = 0, eps: float = 1e-8) -> None:
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != len(optimizer.param_groups):
                raise ValueError(f"expected {len(optimizer.param_groups)} min_lrs, got {len(min_lr)}")
            self.default_min_lr = None
            self.min_lrs = list(min_lr)
        else:
            self.default_min_lr = min_lr
            self.min_lrs = [min_lr] * len(optimizer.param_groups)
        if mode not in {"min", "max"}:
            raise ValueError("mode " + mode + " is unknown!")
        if threshold_mode not in {"rel", "abs"}:
            raise ValueError("threshold mode " + threshold_mode + " is unknown!")
        self.factor = factor
        self.patience = patience
        self.threshold = threshold
        self.threshold_mode = threshold_mode
        self.mode = mode
        self.cooldown = cooldown
        self.eps = eps
        self.cooldown_counter = 0
        self.last_epoch = 0
        self._step_count = 1
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.best = self.mode_worse
        self.num_bad_epochs = 0
        self._last_lr = self._group_lrs()

    @property
    def in_cooldown(self) -> bool:
        return self.cooldown_counter > 0

    def is_better(self, a: float, best: float) -> bool:
        if self.mode == "min":
            return a < (best * (1.0 - self.threshold) if self.threshold_mode == "rel" else best - self.threshold)
        return a > (best * (self.threshold + 1.0) if self.threshold_mode == "rel" else best + self.threshold)

    def step(self, metrics: Any, epoch: int | None = None) -> None:  # type: ignore[override]
        current = float(metrics)
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(_EPOCH_WARNING, UserWarning, stacklevel=2)
        self.last_epoch = epoch
        if self.is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            for i, group in enumerate(self.optimizer.param_groups):
                old = float(group["lr"])
                new = max(old * self.factor, self.min_lrs[i])
                if old - new > self.eps:
                    group["lr"] = new
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = self._group_lrs()


class OneCycleLR(LRScheduler):
    """The 1cycle policy: the lr rises from ``max_lr / div_factor`` to ``max_lr`` over the first ``pct_start`` of
    ``total_steps``, then anneals to ``max_lr / (div_factor * final_div_factor)``; momentum (or Adam's beta1)
    moves the opposite way. Step it after every batch."""

    def __init__(self, optimizer: Optimizer, max_lr: float | list, total_steps: int | None = None,
                 epochs: int | None = None, steps_per_epoch: int | None = None, pct_start: float = 0.3,
                 anneal_strategy: str = "cos", cycle_momentum: bool = True, base_momentum: float | list = 0.85,
                 max_momentum: float | list = 0.95, div_factor: float = 25.0, final_div_factor: float = 1e4,
                 three_phase: bool = False, last_epoch: int = -1) -> None:
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        if total_steps is None:
            if epochs is None or steps_per_epoch is None:
                raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")
            if not isinstance(epochs, int) or epochs <= 0:
                raise ValueError(f"Expected positive integer epochs, but got {epochs}")
            if not isinstance(steps_per_epoch, int) or steps_per_epoch <= 0:
                raise ValueError(f"Expected positive integer steps_per_epoch, but got {steps_per_epoch}")
            total_steps = epochs * steps_per_epoch
        elif not isinstance(total_steps, int) or total_steps <= 0:
            raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
        self.total_steps = total_steps
        if not isinstance(pct_start, float) or not 0 <= pct_start <= 1:
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self._anneal_func_type = anneal_strategy
        up = float(pct_start * total_steps) - 1
        # each phase: the step it ends at, and the param-group keys of its lr (and momentum) endpoints
        self._schedule_phases: list[dict[str, Any]]
        if three_phase:
            self._schedule_phases = [
                {"end_step": up, "start_lr": "initial_lr", "end_lr": "max_lr",
                 "start_momentum": "max_momentum", "end_momentum": "base_momentum"},
                {"end_step": float(2 * pct_start * total_steps) - 2, "start_lr": "max_lr", "end_lr": "initial_lr",
                 "start_momentum": "base_momentum", "end_momentum": "max_momentum"},
                {"end_step": total_steps - 1, "start_lr": "initial_lr", "end_lr": "min_lr",
                 "start_momentum": "max_momentum", "end_momentum": "max_momentum"},
            ]
        else:
            self._schedule_phases = [
                {"end_step": up, "start_lr": "initial_lr", "end_lr": "max_lr",
                 "start_momentum": "max_momentum", "end_momentum": "base_momentum"},
                {"end_step": total_steps - 1, "start_lr": "max_lr", "end_lr": "min_lr",
                 "start_momentum": "base_momentum", "end_momentum": "max_momentum"},
            ]
        max_lrs = _per_group(max_lr, optimizer, "max_lr")
        if last_epoch == -1:
            for lr, group in zip(max_lrs, optimizer.param_groups):
                group["initial_lr"] = lr / div_factor
                group["max_lr"] = lr
                group["min_lr"] = group["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
                raise ValueError("optimizer must support momentum or beta1 with `cycle_momentum` option enabled")
            self.use_beta1 = "betas" in optimizer.defaults
            max_ms = _per_group(max_momentum, optimizer, "max_momentum")
            base_ms = _per_group(base_momentum, optimizer, "base_momentum")
            if last_epoch == -1:
                for m_max, m_base, group in zip(max_ms, base_ms, optimizer.param_groups):
                    if self.use_beta1:
                        group["betas"] = (m_max, *group["betas"][1:])
                    else:
                        group["momentum"] = m_max
                    group["max_momentum"] = m_max
                    group["base_momentum"] = m_base
        super().__init__(optimizer, last_epoch)

    def _anneal(self, start: float, end: float, pct: float) -> float:
        if self._anneal_func_type == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def get_lr(self) -> list:
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError(f"Tried to step {step} times. The specified number of total steps is {self.total_steps}")
        lrs = []
        for group in self.optimizer.param_groups:
            start = 0.0
            lr = momentum = None
            for i, phase in enumerate(self._schedule_phases):
                end = phase["end_step"]
                if step <= end or i == len(self._schedule_phases) - 1:
                    pct = (step - start) / (end - start)
                    lr = self._anneal(group[phase["start_lr"]], group[phase["end_lr"]], pct)
                    if self.cycle_momentum:
                        momentum = self._anneal(group[phase["start_momentum"]], group[phase["end_momentum"]], pct)
                    break
                start = end
            lrs.append(lr)
            if self.cycle_momentum:
                if self.use_beta1:
                    group["betas"] = (momentum, *group["betas"][1:])
                else:
                    group["momentum"] = momentum
        return lrs


class ChainedScheduler(LRScheduler):
    """Step every scheduler of ``schedulers`` (all on one optimizer) at each ``step()``, one after the other."""

    def __init__(self, schedulers: Sequence[LRScheduler], optimizer: Optimizer | None = None) -> None:
        if len(schedulers) < 1:
            raise ValueError(
                f"{type(self).__name__} expects at least one scheduler to be chained, but got no scheduler."
            )
        optimizer = optimizer or schedulers[0].optimizer
        for i, s in enumerate(schedulers):
            if not hasattr(s, "optimizer"):
                raise TypeError(f"{type(self).__name__} at index {i} should have `optimizer` as its attribute.")
            if isinstance(s, ReduceLROnPlateau):
                raise ValueError(
                    f"{type(self).__name__} does not support `ReduceLROnPlateau` scheduler as it requires additional "
                    f"kwargs to be specified when calling `step`, but got one at index {i} in the given schedulers "
                    "sequence."
                )
            if optimizer != s.optimizer:
                raise ValueError(
                    f"{type(self).__name__} expects all schedulers to belong to the same optimizer, but got "
                    f"scheduler {type(s).__name__} at index {i} has {s.optimizer}, which is different from "
                    f"{type(optimizer).__name__}."
                )
        self._schedulers = schedulers
        self.optimizer = optimizer
        self._last_lr = [group["lr"] for group in schedulers[-1].optimizer.param_groups]

    def step(self) -> None:  # type: ignore[override]
        """Step each chained scheduler once."""
        for s in self._schedulers:
            s.step()
        self._last_lr = [group["lr"] for group in self._schedulers[-1].optimizer.param_groups]

    def state_dict(self) -> dict:
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_schedulers")}
        state["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return state

    def load_state_dict(self, state_dict: dict) -> None:
        inner = state_dict.pop("_schedulers")
        self.__dict__.update(state_dict)
        state_dict["_schedulers"] = inner  # leave the caller's dict as it was, as torch does
        for s, sd in zip(self._schedulers, inner):
            s.load_state_dict(sd)


class CyclicLR(LRScheduler):
    """Cyclical learning rates (Smith, 2017): the lr goes from ``base_lr`` up to ``max_lr`` over ``step_size_up``
    steps and back over ``step_size_down``, the amplitude scaled per cycle (``triangular``, ``triangular2``) or per
    iteration (``exp_range``) or by ``scale_fn``; momentum (or Adam's beta1) cycles the other way. Step it after
    every batch."""

    def __init__(self, optimizer: Optimizer, base_lr: float | list, max_lr: float | list, step_size_up: int = 2000,
                 step_size_down: int | None = None, mode: str = "triangular", gamma: float = 1.0,
                 scale_fn: Callable[[float], float] | None = None, scale_mode: str = "cycle",
                 cycle_momentum: bool = True, base_momentum: float | list = 0.8, max_momentum: float | list = 0.9,
                 last_epoch: int = -1) -> None:
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        base_lrs = _format_param("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups):
                group["lr"] = lr
        self.max_lrs = _format_param("max_lr", optimizer, max_lr)
        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        self.total_size = up + down
        self.step_ratio = up / self.total_size
        if mode not in ["triangular", "triangular2", "exp_range"] and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode = mode
        self.gamma = gamma
        self._scale_fn_ref: Callable[[float], float]
        self._scale_fn_custom = scale_fn
        self.scale_mode = scale_mode
        self._init_scale_fn()
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
                raise ValueError("optimizer must support momentum or beta1 with `cycle_momentum` option enabled")
            self.use_beta1 = "betas" in self.optimizer.defaults
            self.base_momentums = _format_param("base_momentum", optimizer, base_momentum)
            self.max_momentums = _format_param("max_momentum", optimizer, max_momentum)
            if last_epoch == -1:
                for m_max, m_base, group in zip(self.max_momentums, self.base_momentums, optimizer.param_groups):
                    if self.use_beta1:
                        group["betas"] = (m_max, *group["betas"][1:])
                    else:
                        group["momentum"] = m_max
                    group["max_momentum"] = m_max
                    group["base_momentum"] = m_base
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def _init_scale_fn(self) -> None:
        if self._scale_fn_custom is not None:
            return
        if self.mode == "triangular":
            self._scale_fn_ref = self._triangular_scale_fn
            self.scale_mode = "cycle"
        elif self.mode == "triangular2":
            self._scale_fn_ref = self._triangular2_scale_fn
            self.scale_mode = "cycle"
        elif self.mode == "exp_range":
            self._scale_fn_ref = functools.partial(self._exp_range_scale_fn, self.gamma)
            self.scale_mode = "iterations"

    def scale_fn(self, x: float) -> float:
        """The amplitude's scale at cycle (or iteration) ``x``: ``scale_fn`` if given, else the mode's."""
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        return self._scale_fn_ref(x)

    @staticmethod
    def _triangular_scale_fn(x: float) -> float:
        return 1.0

    @staticmethod
    def _triangular2_scale_fn(x: float) -> float:
        return 1 / (2.0 ** (x - 1))

    @staticmethod
    def _exp_range_scale_fn(gamma: float, x: float) -> float:
        return gamma**x

    def get_lr(self) -> list:
        if not self._get_lr_called_within_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please use `get_last_lr()`.",
                          UserWarning, stacklevel=2)
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        if x <= self.step_ratio:
            scale_factor = x / self.step_ratio
        else:
            scale_factor = (x - 1) / (self.step_ratio - 1)
        at = cycle if self.scale_mode == "cycle" else self.last_epoch
        lrs = [base + (top - base) * scale_factor * self.scale_fn(at) for base, top in zip(self.base_lrs, self.max_lrs)]
        if self.cycle_momentum:
            for group, base, top in zip(self.optimizer.param_groups, self.base_momentums, self.max_momentums):
                momentum = top - (top - base) * scale_factor * self.scale_fn(at)
                if self.use_beta1:
                    group["betas"] = (momentum, *group["betas"][1:])
                else:
                    group["momentum"] = momentum
        return lrs

    def state_dict(self) -> dict:
        state = super().state_dict()
        state.pop("_scale_fn_ref", None)  # a bound method: the mode rebuilds it on load
        fn = state.pop("_scale_fn_custom")
        state["_scale_fn_custom"] = None
        if fn is not None and not isinstance(fn, types.FunctionType):
            state["_scale_fn_custom"] = fn.__dict__.copy()  # a callable object's attributes; not a function
        return state

    def load_state_dict(self, state_dict: dict) -> None:
        fn = state_dict.pop("_scale_fn_custom")
        super().load_state_dict(state_dict)
        if fn is not None:
            self._scale_fn_custom.__dict__.update(fn)
        self._init_scale_fn()


def _format_param(name: str, optimizer: Optimizer, value: Any) -> list:
    """One value per parameter group: ``value`` repeated, or a list or tuple of the right length."""
    if isinstance(value, (list, tuple)):
        if len(value) != len(optimizer.param_groups):
            raise ValueError(
                f"{name} must have the same length as optimizer.param_groups. {name} has {len(value)} values, "
                f"param_groups has {len(optimizer.param_groups)}."
            )
        return list(value)
    return [value] * len(optimizer.param_groups)
