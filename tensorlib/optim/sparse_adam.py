"""SparseAdam: Adam that updates only the rows a gradient touches ("lazy" Adam, for embeddings).

torch's SparseAdam takes only sparse COO gradients, such as ``nn.Embedding(sparse=True)`` produces: one
dense row of the gradient for each looked-up index. tensorlib has no sparse layout, so here the gradient
is dense and the rows it touches are the rows (slices along dimension 0) with a nonzero entry: the rows
``grad.to_sparse(sparse_dim=1)`` would keep. Those rows of the parameter and of both moments are updated
exactly as torch updates the rows of a sparse gradient; every other row is left as it is, moments included
(plain Adam would decay the moments of every row and move rows whose gradient is zero). A gradient with
no nonzero entry still counts a step, as an empty sparse gradient does in torch.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Iterable

import numpy as np

from .._tensor import _wrap
from .optimizer import Optimizer, _check_lr, _value


class SparseAdam(Optimizer):
    """Lazy Adam, as torch.optim.SparseAdam: see the module's docstring for how a dense gradient's rows are read."""

    def __init__(self, params: Iterable[Any], lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, maximize: bool = False) -> None:
        _check_lr(lr, strict=True)
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, maximize=maximize))
        complex_params = [[i, j] for i, group in enumerate(self.param_groups)
                          for j, p in enumerate(group["params"]) if p._data.dtype.kind == "c"]
        if complex_params:
            raise ValueError(
                f"Complex params at indices {complex_params}: SparseAdam does not support complex parameters"
            )

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One lazy Adam update of the rows of each parameter that its gradient touches."""
        loss = self._evaluate(closure)
        for group in self.param_groups:
            lr, (b1, b2), eps = _value(group["lr"]), group["betas"], group["eps"]
            for p, g in self._gradients(group):
                x = p._data
                state = self.state.get(p)
                if not state:
                    state = self.state[p] = {"step": 0, "exp_avg": _wrap(np.zeros_like(x)),
                                             "exp_avg_sq": _wrap(np.zeros_like(x))}
                state["step"] += 1
                step = state["step"]
                if x.ndim == 0:
                    rows: Any = () if g != 0 else None
                else:
                    touched = np.flatnonzero(g.reshape(g.shape[0], -1).any(axis=1))
                    rows = touched if touched.size else None
                if rows is None:
                    continue
                m, v = state["exp_avg"]._data, state["exp_avg_sq"]._data
                values = g[rows]
                old_m, old_v = m[rows], v[rows]
                update_m = (values - old_m) * (1 - b1)
                update_v = (values**2 - old_v) * (1 - b2)
                m[rows] += update_m
                v[rows] += update_v
                numer = update_m + old_m
                denom = np.sqrt(update_v + old_v) + eps
                bc1 = 1 - b1**step
                bc2 = 1 - b2**step
                step_size = lr * math.sqrt(bc2) / bc1
                x[rows] += -step_size * (numer / denom)
        return loss
