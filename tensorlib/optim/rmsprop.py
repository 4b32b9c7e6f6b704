"""RMSprop: divide the gradient by a running root mean square of recent gradients."""

from __future__ import annotations

from typing import Any, Callable, Iterable

import numpy as np

from .._tensor import _wrap
from .optimizer import Optimizer, _check_flags


class RMSprop(Optimizer):
    """``p -= lr * g / (sqrt(E[g^2]) + eps)``, optionally centered and with momentum, as torch.optim.RMSprop."""

    def __init__(self, params: Iterable[Any], lr: float = 1e-2, alpha: float = 0.99, eps: float = 1e-8,
                 weight_decay: float = 0, momentum: float = 0, centered: bool = False, capturable: bool = False,
                 foreach: bool | None = None, maximize: bool = False, differentiable: bool = False) -> None:
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if eps < 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if alpha < 0.0:
            raise ValueError(f"Invalid alpha value: {alpha}")
        _check_flags(differentiable=differentiable)
        super().__init__(params, dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                                      weight_decay=weight_decay, capturable=capturable, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable))

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One RMSprop update of every parameter that has a gradient."""
        loss = self._evaluate(closure)
        for group in self.param_groups:
            lr, alpha, eps, wd, mom = group["lr"], group["alpha"], group["eps"], group["weight_decay"], group["momentum"]
            for p, g in self._gradients(group):
                x = p._data
                if wd:
                    g = g + wd * x
                state = self.state.get(p)
                if state is None:
                    state = self.state[p] = {"step": _wrap(np.zeros((), dtype=np.float32)),
                                             "square_avg": _wrap(np.zeros_like(x))}
                    if mom > 0:
                        state["momentum_buffer"] = _wrap(np.zeros_like(x))
                    if group["centered"]:
                        state["grad_avg"] = _wrap(np.zeros_like(x))
                state["step"]._data += 1
                sq = state["square_avg"]._data
                sq *= alpha
                sq += (1 - alpha) * g * g
                if group["centered"]:
                    ga = state["grad_avg"]._data
                    ga += (1 - alpha) * (g - ga)
                    avg = np.sqrt(sq - ga * ga) + eps
                else:
                    avg = np.sqrt(sq) + eps
                if mom > 0:
                    buf = state["momentum_buffer"]._data
                    buf *= mom
                    buf += g / avg
                    np.subtract(x, lr * buf, out=x, casting="unsafe")
                else:
                    np.subtract(x, lr * g / avg, out=x, casting="unsafe")
        return loss
