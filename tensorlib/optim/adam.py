"""Adam and AdamW."""

from __future__ import annotations

import math
from typing import Any, Callable, Iterable

import numpy as np

from .._tensor import _wrap
from .optimizer import Optimizer, _check_flags


class Adam(Optimizer):
    """Adaptive moment estimation (Kingma & Ba), with optional AMSGrad and L2 weight decay."""

    _decoupled = False

    def __init__(self, params: Iterable[Any], lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, amsgrad: bool = False, *, foreach: bool | None = None,
                 maximize: bool = False, capturable: bool = False, differentiable: bool = False,
                 fused: bool | None = None, decoupled_weight_decay: bool = False) -> None:
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if eps < 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        _check_flags(differentiable=differentiable)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                                      maximize=maximize, foreach=foreach, capturable=capturable,
                                      differentiable=differentiable, fused=fused,
                                      decoupled_weight_decay=decoupled_weight_decay or self._decoupled))

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One Adam update of every parameter that has a gradient."""
        loss = self._evaluate(closure)
        for group in self.param_groups:
            lr, (b1, b2), eps, wd = group["lr"], group["betas"], group["eps"], group["weight_decay"]
            decoupled = group.get("decoupled_weight_decay", self._decoupled)
            for p, g in self._gradients(group):
                x = p._data
                if wd:
                    if decoupled:
                        x *= 1 - lr * wd
                    else:
                        g = g + wd * x
                state = self.state.get(p)
                if state is None:
                    state = self.state[p] = {
                        "step": _wrap(np.zeros((), dtype=np.float32)),
                        "exp_avg": _wrap(np.zeros_like(x)),
                        "exp_avg_sq": _wrap(np.zeros_like(x)),
                    }
                    if group["amsgrad"]:
                        state["max_exp_avg_sq"] = _wrap(np.zeros_like(x))
                state["step"]._data += 1
                t = float(state["step"]._data)
                m, v = state["exp_avg"]._data, state["exp_avg_sq"]._data
                m *= b1
                m += (1 - b1) * g
                v *= b2
                v += (1 - b2) * g * g
                bc1 = 1 - b1**t
                bc2 = 1 - b2**t
                if group["amsgrad"]:
                    vmax = state["max_exp_avg_sq"]._data
                    np.maximum(vmax, v, out=vmax)
                    denom = np.sqrt(vmax) / math.sqrt(bc2) + eps
                else:
                    denom = np.sqrt(v) / math.sqrt(bc2) + eps
                np.subtract(x, (lr / bc1) * m / denom, out=x, casting="unsafe")
        return loss


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov & Hutter)."""

    _decoupled = True

    def __init__(self, params: Iterable[Any], lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 1e-2, amsgrad: bool = False, *, maximize: bool = False,
                 foreach: bool | None = None, capturable: bool = False, differentiable: bool = False,
                 fused: bool | None = None) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize=maximize, foreach=foreach,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)
