"""NAdam: Adam with Nesterov momentum (Dozat, 2016), with the momentum decay schedule of the paper."""

from __future__ import annotations

from typing import Any, Callable, Iterable

import numpy as np

from .._tensor import _wrap
from .optimizer import Optimizer, _check_flags, _check_lr, _lerp_, _real, _scalar, _value


class NAdam(Optimizer):
    """Nesterov-accelerated Adam, as torch.optim.NAdam (``decoupled_weight_decay=True`` gives NAdamW)."""

    def __init__(self, params: Iterable[Any], lr: float = 2e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, momentum_decay: float = 4e-3,
                 decoupled_weight_decay: bool = False, *, foreach: bool | None = None, maximize: bool = False,
                 capturable: bool = False, differentiable: bool = False) -> None:
        _check_lr(lr)
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        _check_flags(differentiable=differentiable)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      momentum_decay=momentum_decay, decoupled_weight_decay=decoupled_weight_decay,
                                      maximize=maximize, foreach=foreach, capturable=capturable,
                                      differentiable=differentiable))

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One NAdam update of every parameter that has a gradient."""
        loss = self._evaluate(closure)
        for group in self.param_groups:
            lr, (b1, b2), eps, wd = _value(group["lr"]), group["betas"], group["eps"], group["weight_decay"]
            decay, decoupled = group["momentum_decay"], group["decoupled_weight_decay"]
            for p, g in self._gradients(group):
                x = p._data
                state = self.state.get(p)
                if not state:
                    state = self.state[p] = {"step": _scalar(0.0), "mu_product": _scalar(1.0),
                                             "exp_avg": _wrap(np.zeros_like(x)), "exp_avg_sq": _wrap(np.zeros_like(x))}
                gr, xr = _real(g), _real(x)
                m, v = _real(state["exp_avg"]._data), _real(state["exp_avg_sq"]._data)
                mu_product = state["mu_product"]._data
                state["step"]._data += 1
                step = float(state["step"]._data)
                bc2 = 1 - b2**step
                if wd != 0:
                    if decoupled:
                        np.multiply(xr, 1 - lr * wd, out=xr, casting="unsafe")
                    else:
                        gr = gr + wd * xr
                mu = b1 * (1.0 - 0.5 * (0.96 ** (step * decay)))
                mu_next = b1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * decay)))
                mu_product *= mu
                _lerp_(m, gr, 1 - b1)
                v *= b2
                v += ((1 - b2) * gr) * gr
                denom = np.sqrt(v / bc2)
                mu_product_next = float(mu_product) * mu_next
                denom += eps
                xr += ((-lr * (1.0 - mu) / (1.0 - float(mu_product))) * gr) / denom
                xr += ((-lr * mu_next) / (1.0 - mu_product_next) * m) / denom
        return loss
