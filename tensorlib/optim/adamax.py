"""Adamax: Adam with the infinity norm in place of the second moment."""

from __future__ import annotations

from typing import Any, Callable, Iterable

import numpy as np

from .._tensor import _wrap
from .optimizer import Optimizer, _check_flags, _check_lr, _lerp_, _real, _scalar, _value


class Adamax(Optimizer):
    """``p -= lr / (1 - beta1^t) * m / u`` with ``u = max(beta2 * u, |g| + eps)``, as torch.optim.Adamax."""

    def __init__(self, params: Iterable[Any], lr: float = 2e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, foreach: bool | None = None, *, maximize: bool = False,
                 differentiable: bool = False, capturable: bool = False) -> None:
        _check_lr(lr)
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        _check_flags(differentiable=differentiable)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable, capturable=capturable))

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One Adamax update of every parameter that has a gradient."""
        loss = self._evaluate(closure)
        for group in self.param_groups:
            lr, (b1, b2), eps, wd = _value(group["lr"]), group["betas"], group["eps"], group["weight_decay"]
            for p, g in self._gradients(group):
                x = p._data
                state = self.state.get(p)
                if not state:
                    state = self.state[p] = {"step": _scalar(0.0), "exp_avg": _wrap(np.zeros_like(x)),
                                             "exp_inf": _wrap(np.zeros_like(x))}
                state["step"]._data += 1
                if wd != 0:
                    g = g + wd * x
                m, u, gr, xr = _real(state["exp_avg"]._data), _real(state["exp_inf"]._data), _real(g), _real(x)
                _lerp_(m, gr, 1 - b1)
                u *= b2
                np.maximum(u, np.abs(gr) + eps, out=u)
                clr = lr / (1 - b1 ** float(state["step"]._data))
                np.subtract(xr, (clr * m) / u, out=xr, casting="unsafe")
        return loss
