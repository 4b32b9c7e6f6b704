"""Adadelta: step sizes from running averages of squared gradients and squared updates."""

from __future__ import annotations

from typing import Any, Callable, Iterable

import numpy as np

from .._tensor import _wrap
from .optimizer import Optimizer, _check_flags, _check_lr, _real, _scalar, _value


class Adadelta(Optimizer):
    """``p -= lr * sqrt(acc_delta + eps) / sqrt(square_avg + eps) * g``, as torch.optim.Adadelta (Zeiler, 2012)."""

    def __init__(self, params: Iterable[Any], lr: float = 1.0, rho: float = 0.9, eps: float = 1e-6,
                 weight_decay: float = 0, foreach: bool | None = None, *, capturable: bool = False,
                 maximize: bool = False, differentiable: bool = False) -> None:
        _check_lr(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        _check_flags(differentiable=differentiable)
        super().__init__(params, dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                                      capturable=capturable, foreach=foreach, differentiable=differentiable))

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One Adadelta update of every parameter that has a gradient."""
        loss = self._evaluate(closure)
        for group in self.param_groups:
            lr, rho, eps, wd = _value(group["lr"]), group["rho"], group["eps"], group["weight_decay"]
            for p, g in self._gradients(group):
                x = p._data
                state = self.state.get(p)
                if not state:
                    state = self.state[p] = {"step": _scalar(0.0), "square_avg": _wrap(np.zeros_like(x)),
                                             "acc_delta": _wrap(np.zeros_like(x))}
                state["step"]._data += 1
                if wd != 0:
                    g = g + wd * x
                sq, acc, gr = _real(state["square_avg"]._data), _real(state["acc_delta"]._data), _real(g)
                sq *= rho
                sq += ((1 - rho) * gr) * gr
                std = np.sqrt(sq + eps)
                delta = np.sqrt(acc + eps)
                delta /= std
                delta *= gr
                acc *= rho
                acc += ((1 - rho) * delta) * delta
                xr = _real(x)
                np.subtract(xr, lr * delta, out=xr, casting="unsafe")
        return loss
