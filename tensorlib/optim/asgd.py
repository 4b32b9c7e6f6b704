"""ASGD: SGD with a decaying step size and a running average of the iterates."""

from __future__ import annotations

from typing import Any, Callable, Iterable

import numpy as np

from .._dtype import DEFAULT
from .._tensor import _wrap
from .optimizer import Optimizer, _check_flags, _check_lr, _real, _scalar, _value


class ASGD(Optimizer):
    """Averaged SGD (Polyak & Juditsky), as torch.optim.ASGD.

    Each step decays the parameter by ``1 - lambd * eta``, takes an SGD step of
    size ``eta``, and updates the average ``ax`` of the iterates (an average that
    starts after ``t0`` steps). ``eta = lr / (1 + lambd * lr * t) ** alpha``.
    ``eta`` and ``mu`` are kept as 0-d tensors of the scalar dtype, as torch keeps them.
    """

    def __init__(self, params: Iterable[Any], lr: float = 1e-2, lambd: float = 1e-4, alpha: float = 0.75,
                 t0: float = 1e6, weight_decay: float = 0, foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False, capturable: bool = False) -> None:
        _check_lr(lr)
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        _check_flags(differentiable=differentiable)
        super().__init__(params, dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay,
                                      foreach=foreach, maximize=maximize, differentiable=differentiable,
                                      capturable=capturable))

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One ASGD update of every parameter that has a gradient."""
        loss = self._evaluate(closure)
        for group in self.param_groups:
            lr, lambd, alpha, t0 = _value(group["lr"]), group["lambd"], group["alpha"], group["t0"]
            wd = group["weight_decay"]
            for p, g in self._gradients(group):
                x = p._data
                state = self.state.get(p)
                if not state:
                    state = self.state[p] = {"step": _scalar(0.0), "eta": _scalar(lr), "mu": _scalar(1.0),
                                             "ax": _wrap(np.zeros_like(x))}
                step_t, eta, mu = state["step"]._data, state["eta"]._data, state["mu"]._data
                gr, xr, ax = _real(g), _real(x), _real(state["ax"]._data)
                step_t += 1
                if wd != 0:
                    gr = gr + wd * xr
                eta_value = float(eta)
                np.multiply(xr, 1 - lambd * eta_value, out=xr, casting="unsafe")
                np.subtract(xr, eta_value * gr, out=xr, casting="unsafe")
                if float(mu) != 1:
                    ax += (xr - ax) * float(mu)
                else:
                    ax[...] = xr
                step = float(step_t)
                # torch.as_tensor(float): the new values pass through the default dtype
                eta[...] = np.asarray(lr / ((1 + lambd * lr * step) ** alpha), dtype=DEFAULT.np_float)
                mu[...] = np.asarray(1 / max(1, step - t0), dtype=DEFAULT.np_float)
        return loss
