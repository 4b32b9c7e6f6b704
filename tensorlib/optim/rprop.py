"""Rprop: resilient backpropagation, per-coordinate step sizes adapted from the signs of successive gradients."""

from __future__ import annotations

from typing import Any, Callable, Iterable

import numpy as np

from .._tensor import _wrap
from .optimizer import Optimizer, _check_flags, _check_lr, _real, _scalar, _value


class Rprop(Optimizer):
    """``p -= sign(g) * step_size``, each step size grown by ``etas[1]`` while its gradient keeps its sign and
    shrunk by ``etas[0]`` when it flips (that step then skipped), clamped to ``step_sizes``; as torch.optim.Rprop."""

    def __init__(self, params: Iterable[Any], lr: float = 1e-2, etas: tuple[float, float] = (0.5, 1.2),
                 step_sizes: tuple[float, float] = (1e-6, 50), *, capturable: bool = False,
                 foreach: bool | None = None, maximize: bool = False, differentiable: bool = False) -> None:
        _check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        _check_flags(differentiable=differentiable)
        super().__init__(params, dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach, maximize=maximize,
                                      differentiable=differentiable, capturable=capturable))

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One Rprop update of every parameter that has a gradient."""
        loss = self._evaluate(closure)
        for group in self.param_groups:
            (etaminus, etaplus), (lo, hi) = group["etas"], group["step_sizes"]
            for p, g in self._gradients(group):
                x = p._data
                state = self.state.get(p)
                if not state:
                    lr = _value(group["lr"])
                    state = self.state[p] = {
                        "step": _scalar(0.0),
                        "prev": _wrap(np.zeros_like(x)),
                        "step_size": _wrap(np.full_like(g, complex(lr, lr) if g.dtype.kind == "c" else lr)),
                    }
                state["step"]._data += 1
                gr, xr = _real(g), _real(x)
                prev, size = _real(state["prev"]._data), _real(state["step_size"]._data)
                sign = np.sign(gr * prev)
                factor = np.where(sign > 0, etaplus, np.where(sign < 0, etaminus, 1.0)).astype(size.dtype)
                size *= factor
                np.clip(size, lo, hi, out=size)
                gr = np.where(factor == np.asarray(etaminus, dtype=size.dtype), 0, gr).astype(gr.dtype, copy=False)
                xr -= np.sign(gr) * size
                prev[...] = gr
        return loss
