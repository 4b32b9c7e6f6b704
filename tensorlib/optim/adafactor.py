"""Adafactor: Adam-like steps with a factored (row and column) second moment (Shazeer & Stern, 2018)."""

from __future__ import annotations

from typing import Any, Callable, Iterable

import numpy as np

from .._tensor import _wrap
from .optimizer import Optimizer, _check_lr, _lerp_, _scalar, _value


class Adafactor(Optimizer):
    """torch.optim.Adafactor: for a parameter of two or more dimensions the second moment is kept as a row
    factor (``row_var``, last dimension reduced) and a column factor (``col_var``, second-to-last reduced);
    a vector keeps a full ``variance``. The step is scaled by the parameter's RMS and clipped by ``d``."""

    def __init__(self, params: Iterable[Any], lr: float = 1e-2, beta2_decay: float = -0.8,
                 eps: tuple[float | None, float] = (None, 1e-3), d: float = 1.0, weight_decay: float = 0.0, *,
                 foreach: bool | None = None, maximize: bool = False) -> None:
        _check_lr(lr, "Learning rate should be >= 0 but is: {}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        super().__init__(params, dict(lr=lr, beta2_decay=beta2_decay, eps=eps, d=d, weight_decay=weight_decay,
                                      foreach=foreach, maximize=maximize))

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One Adafactor update of every parameter that has a gradient."""
        loss = self._evaluate(closure)
        for group in self.param_groups:
            lr, beta2_decay, d, wd = _value(group["lr"]), group["beta2_decay"], group["d"], group["weight_decay"]
            eps1, eps2 = group["eps"]
            for p in group["params"]:
                if p.grad is not None and p._data.dtype.kind == "c":
                    raise RuntimeError("Adafactor does not support complex parameters")
            for p, g in self._gradients(group):
                x = p._data
                state = self.state.get(p)
                if not state:
                    state = self.state[p] = {"step": _scalar(0.0)}
                    if g.ndim > 1:
                        state["row_var"] = _wrap(np.zeros(g.shape[:-1] + (1,), dtype=g.dtype))
                        state["col_var"] = _wrap(np.zeros(g.shape[:-2] + (1,) + g.shape[-1:], dtype=g.dtype))
                    else:
                        state["variance"] = _wrap(np.zeros_like(g))
                if eps1 is None:  # as in torch, the first parameter's dtype sets it for the rest of the group
                    eps1 = float(np.finfo(x.dtype).eps)
                state["step"]._data += 1
                step = float(state["step"]._data)
                one_minus_beta2_t = step**beta2_decay
                rho_t = min(lr, 1 / (step**0.5))
                alpha = max(eps2, float(np.sqrt(np.sum(x * x))) / (x.size**0.5)) * rho_t
                if wd != 0:
                    np.multiply(x, 1 - lr * wd, out=x, casting="unsafe")
                if g.ndim > 1:
                    row_var, col_var = state["row_var"]._data, state["col_var"]._data
                    row_mean = np.sqrt(np.sum(g * g, axis=-1, keepdims=True)) ** 2 / g.shape[-1]
                    _lerp_(row_var, row_mean.astype(row_var.dtype, copy=False), one_minus_beta2_t)
                    col_mean = np.sqrt(np.sum(g * g, axis=-2, keepdims=True)) ** 2 / g.shape[-2]
                    _lerp_(col_var, col_mean.astype(col_var.dtype, copy=False), one_minus_beta2_t)
                    var_estimate = row_var @ col_var
                    var_estimate /= np.maximum(row_var.mean(axis=-2, keepdims=True), eps1)
                else:
                    variance = state["variance"]._data
                    _lerp_(variance, g * g, one_minus_beta2_t)
                    var_estimate = variance.copy()
                update = 1 / np.sqrt(np.maximum(var_estimate, eps1 * eps1))
                update *= g
                denom = max(1.0, float(np.sqrt(np.sum(update * update))) / ((update.size**0.5) * d))
                np.subtract(x, (alpha / denom) * update, out=x, casting="unsafe")
        return loss
