"""Adagrad: per-coordinate learning rates from the sum of past squared gradients."""

from __future__ import annotations

from typing import Any, Callable, Iterable

import numpy as np

from .._tensor import _wrap
from .optimizer import Optimizer, _check_flags


class Adagrad(Optimizer):
    """``p -= lr / (1 + (t - 1) * lr_decay) * g / (sqrt(sum g^2) + eps)``, as torch.optim.Adagrad."""

    def __init__(self, params: Iterable[Any], lr: float = 1e-2, lr_decay: float = 0, weight_decay: float = 0,
                 initial_accumulator_value: float = 0, eps: float = 1e-10, foreach: bool | None = None, *,
                 maximize: bool = False, differentiable: bool = False, fused: bool | None = None) -> None:
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if lr_decay < 0.0:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if initial_accumulator_value < 0.0:
            raise ValueError(f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        if eps < 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        _check_flags(differentiable=differentiable)
        super().__init__(params, dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                                      initial_accumulator_value=initial_accumulator_value, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable, fused=fused))
        for group in self.param_groups:  # torch creates Adagrad's state up front
            for p in group["params"]:
                self.state[p] = {"step": _wrap(np.zeros((), dtype=np.float32)),
                                 "sum": _wrap(np.full_like(p._data, group["initial_accumulator_value"]))}

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One Adagrad update of every parameter that has a gradient."""
        loss = self._evaluate(closure)
        for group in self.param_groups:
            lr, decay, eps, wd = group["lr"], group["lr_decay"], group["eps"], group["weight_decay"]
            for p, g in self._gradients(group):
                x = p._data
                if wd:
                    g = g + wd * x
                state = self.state.get(p)
                if state is None:
                    state = self.state[p] = {"step": _wrap(np.zeros((), dtype=np.float32)),
                                             "sum": _wrap(np.full_like(x, group["initial_accumulator_value"]))}
                state["step"]._data += 1
                t = float(state["step"]._data)
                clr = lr / (1 + (t - 1) * decay)
                s = state["sum"]._data
                s += g * g
                np.subtract(x, clr * g / (np.sqrt(s) + eps), out=x, casting="unsafe")
        return loss
