"""Stochastic gradient descent with momentum, dampening, Nesterov and weight decay."""

from __future__ import annotations

from typing import Any, Callable, Iterable

import numpy as np

from .._accelerator import accel
from .._tensor import _wrap
from .optimizer import Optimizer, _check_flags, required


class SGD(Optimizer):
    """``p -= lr * (grad + weight_decay * p)``, optionally with (Nesterov) momentum, as torch.optim.SGD."""

    def __init__(self, params: Iterable[Any], lr: float = 1e-3, momentum: float = 0, dampening: float = 0,
                 weight_decay: float = 0, nesterov: bool = False, *, maximize: bool = False, foreach: bool | None = None,
                 differentiable: bool = False, fused: bool | None = None) -> None:
        if lr is not required and lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        _check_flags(differentiable=differentiable)
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                                      nesterov=nesterov, maximize=maximize, foreach=foreach,
                                      differentiable=differentiable, fused=fused))

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Update every parameter that has a gradient; returns ``closure()`` if given."""
        loss = self._evaluate(closure)
        for group in self.param_groups:
            lr, mom, damp = group["lr"], group["momentum"], group["dampening"]
            wd, nesterov = group["weight_decay"], group["nesterov"]
            for p, d in self._gradients(group):
                if wd:
                    d = d + wd * p._data
                if mom:
                    state = self.state.setdefault(p, {})
                    buf = state.get("momentum_buffer")
                    if buf is None:
                        buf = state["momentum_buffer"] = _tensor(d.copy())
                    else:
                        b = buf._data
                        b *= mom
                        b += (1 - damp) * d
                    d = d + mom * buf._data if nesterov else buf._data
                if _sub_scaled is None or not _sub_scaled(p._data, d, lr):
                    np.subtract(p._data, lr * d, out=p._data, casting="unsafe")
        return loss


# ``p -= lr * d`` in one pass over memory, with the bits of the NumPy line it guards (tensorlib/_accel.c), when the
# arrays allow: NumPy's two passes and their temporary take twice as long on a large parameter, 6-8x on a small one
_sub_scaled = None if accel is None else accel.sub_scaled


def _tensor(a: np.ndarray) -> Any:
    return _wrap(a)
