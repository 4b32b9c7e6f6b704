"""RAdam: Adam with the variance of the adaptive learning rate rectified (Liu et al., 2019)."""

from __future__ import annotations

from typing import Any, Callable, Iterable

import numpy as np

from .._tensor import _wrap
from .optimizer import Optimizer, _check_flags, _check_lr, _lerp_, _real, _scalar, _value


class RAdam(Optimizer):
    """Rectified Adam, as torch.optim.RAdam: plain momentum SGD while the variance estimate is unreliable
    (``rho_t <= 5``), rectified Adam afterwards. ``decoupled_weight_decay=True`` decays as AdamW does."""

    def __init__(self, params: Iterable[Any], lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, decoupled_weight_decay: bool = False, *,
                 foreach: bool | None = None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False) -> None:
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
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, maximize=maximize,
                                      foreach=foreach, capturable=capturable,
                                      decoupled_weight_decay=decoupled_weight_decay, differentiable=differentiable))

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One RAdam update of every parameter that has a gradient."""
        loss = self._evaluate(closure)
        for group in self.param_groups:
            lr, (b1, b2), eps, wd = _value(group["lr"]), group["betas"], group["eps"], group["weight_decay"]
            decoupled = group["decoupled_weight_decay"]
            for p, g in self._gradients(group):
                x = p._data
                state = self.state.get(p)
                if not state:
                    state = self.state[p] = {"step": _scalar(0.0), "exp_avg": _wrap(np.zeros_like(x)),
                                             "exp_avg_sq": _wrap(np.zeros_like(x))}
                gr, xr = _real(g), _real(x)
                m, v = _real(state["exp_avg"]._data), _real(state["exp_avg_sq"]._data)
                state["step"]._data += 1
                step = float(state["step"]._data)
                if wd != 0:
                    if decoupled:
                        np.multiply(xr, 1 - lr * wd, out=xr, casting="unsafe")
                    else:
                        gr = gr + wd * xr
                _lerp_(m, gr, 1 - b1)
                v *= b2
                v += ((1 - b2) * gr) * gr
                bc1 = 1 - b1**step
                bc2 = 1 - b2**step
                corrected = m / bc1
                rho_inf = 2 / (1 - b2) - 1
                rho_t = rho_inf - 2 * step * (b2**step) / bc2
                if rho_t > 5.0:
                    rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
                    adaptive = (bc2**0.5) / (np.sqrt(v) + eps)
                    np.subtract(xr, corrected * lr * adaptive * rect, out=xr, casting="unsafe")
                else:
                    np.subtract(xr, corrected * lr, out=xr, casting="unsafe")
        return loss
