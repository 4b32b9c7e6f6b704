"""L-BFGS: a quasi-Newton method that needs a closure re-evaluating the loss.

The inverse Hessian is approximated from the last ``history_size`` steps and
gradient changes (the two-loop recursion); the step length is ``lr`` or is
found by a line search satisfying the strong Wolfe conditions (Nocedal &
Wright, *Numerical Optimization*, algorithms 3.5 and 3.6, with cubic
interpolation). Parameters are handled as one flat vector in the parameters'
dtype, as in torch.optim.LBFGS.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Iterable

import numpy as np

from .._tensor import Tensor, _wrap, bump_version
from .optimizer import Optimizer


class LBFGS(Optimizer):
    """L-BFGS over all parameters as one vector; ``step(closure)`` runs up to ``max_iter`` iterations.

    ``closure`` must clear the gradients, compute the loss, call ``backward``
    and return the loss. Only one parameter group is supported.
    """

    def __init__(self, params: Iterable[Any], lr: float = 1, max_iter: int = 20, max_eval: int | None = None,
                 tolerance_grad: float = 1e-7, tolerance_change: float = 1e-9, history_size: int = 100,
                 line_search_fn: str | None = None) -> None:
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        if line_search_fn not in (None, "strong_wolfe"):
            raise RuntimeError("only 'strong_wolfe' is supported")
        super().__init__(params, {"lr": lr, "max_iter": max_iter, "max_eval": max_eval,
                                  "tolerance_grad": tolerance_grad, "tolerance_change": tolerance_change,
                                  "history_size": history_size, "line_search_fn": line_search_fn})
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params: list[Tensor] = self.param_groups[0]["params"]

    # -- the parameters as one flat vector ---------------------------------------------------------

    def _flat_grad(self) -> np.ndarray:
        parts = []
        for p in self._params:
            g = p._meta.grad if p._meta is not None else None
            parts.append(np.zeros(p._data.size, p._data.dtype) if g is None else g._data.reshape(-1))
        return np.concatenate(parts) if parts else np.zeros(0)

    def _flat_params(self) -> list[np.ndarray]:
        return [p._data.copy() for p in self._params]

    def _set_params(self, values: list[np.ndarray]) -> None:
        for p, v in zip(self._params, values):
            p._data[...] = v
            bump_version(p)

    def _add_to_params(self, step: float, direction: np.ndarray) -> None:
        offset = 0
        for p in self._params:
            n = p._data.size
            np.add(p._data, (step * direction[offset : offset + n]).reshape(p._data.shape), out=p._data,
                   casting="unsafe")
            bump_version(p)
            offset += n

    def _evaluate_at(self, closure: Callable, start: list[np.ndarray], step: float,
                     direction: np.ndarray) -> tuple[float, np.ndarray]:
        """Loss and flat gradient at ``start + step * direction``; the parameters are put back after."""
        self._add_to_params(step, direction)
        loss = float(self._evaluate(closure))
        grad = self._flat_grad().copy()
        self._set_params(start)
        return loss, grad

    # -- the algorithm ---------------------------------------------------------------------------------

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Run up to ``max_iter`` iterations; returns the loss the closure gave first.

        The closure runs several times with the parameters moved along the search direction; if one run
        raises, the parameters and the state are put back as they were before the step, then it re-raises.
        """
        if closure is None:
            raise RuntimeError("LBFGS requires a closure that re-evaluates the model and returns the loss")
        params = self._flat_params()
        key = self._params[0] if self._params else None
        state = dict(self.state[key]) if key in self.state else None
        try:
            return self._iterate(closure)
        except BaseException:
            self._set_params(params)
            if state is None:
                self.state.pop(key, None)
            else:
                self.state[key] = state
            raise

    def _iterate(self, closure: Callable[[], Any]) -> Any:
        group = self.param_groups[0]
        lr, max_iter, max_eval = group["lr"], group["max_iter"], group["max_eval"]
        tol_grad, tol_change = group["tolerance_grad"], group["tolerance_change"]
        history_size, line_search = group["history_size"], group["line_search_fn"]

        state = self.state.setdefault(self._params[0], {"func_evals": 0, "n_iter": 0})
        orig_loss = self._evaluate(closure)
        loss = float(orig_loss)
        evals = 1
        state["func_evals"] += 1
        grad = self._flat_grad()
        if np.abs(grad).max(initial=0.0) <= tol_grad:
            return orig_loss

        # the state keeps tensors, as torch's does; the iterations work on their arrays
        d, t = _array(state.get("d")), state.get("t")
        old_dirs = [v._data for v in state.get("old_dirs", [])]
        old_steps = [v._data for v in state.get("old_stps", [])]
        ro, h_diag = list(state.get("ro", [])), state.get("H_diag", 1.0)
        prev_grad, prev_loss = _array(state.get("prev_flat_grad")), state.get("prev_loss")

        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d = -grad
                old_dirs, old_steps, ro, h_diag = [], [], [], 1.0
            else:
                y = grad - prev_grad
                s = d * t
                ys = float(y @ s)
                if ys > 1e-10:  # keep the pair only when the curvature condition holds
                    if len(old_dirs) == history_size:
                        old_dirs.pop(0)
                        old_steps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_steps.append(s)
                    ro.append(1.0 / ys)
                    h_diag = ys / float(y @ y)
                d = _two_loop(grad, old_dirs, old_steps, ro, h_diag)
            prev_grad = grad.copy()
            prev_loss = loss

            t = min(1.0, 1.0 / np.abs(grad).sum()) * lr if state["n_iter"] == 1 else lr
            gtd = float(grad @ d)
            if gtd > -tol_change:  # not a descent direction (any more)
                break

            if line_search is not None:
                start = self._flat_params()
                loss, grad, t, ls_evals = _strong_wolfe(
                    lambda step: self._evaluate_at(closure, start, step, d), t, d, loss, grad, gtd,
                    tol_change=tol_change,
                )
                self._add_to_params(t, d)
            else:
                self._add_to_params(t, d)
                ls_evals = 0
                if n_iter != max_iter:
                    loss = float(self._evaluate(closure))
                    grad = self._flat_grad()
                    ls_evals = 1
            evals += ls_evals
            state["func_evals"] += ls_evals

            if n_iter == max_iter or evals >= max_eval:
                break
            if np.abs(grad).max(initial=0.0) <= tol_grad:
                break
            if np.abs(d * t).max(initial=0.0) <= tol_change or abs(loss - prev_loss) < tol_change:
                break

        state.update(d=_tensor(d), t=t, old_dirs=[_wrap(v) for v in old_dirs], old_stps=[_wrap(v) for v in old_steps],
                     ro=ro, H_diag=h_diag, prev_flat_grad=_tensor(prev_grad), prev_loss=prev_loss)
        return orig_loss


def _array(t: Tensor | None) -> np.ndarray | None:
    return None if t is None else t._data


def _tensor(a: np.ndarray | None) -> Tensor | None:
    return None if a is None else _wrap(a)


def _two_loop(grad: np.ndarray, dirs: list, steps: list, ro: list, h_diag: float) -> np.ndarray:
    """``-H grad`` for the L-BFGS inverse-Hessian approximation ``H`` (gradient changes ``dirs``, steps ``steps``)."""
    q = -grad
    alphas = []
    for y, s, r in zip(reversed(dirs), reversed(steps), reversed(ro)):
        a = float(s @ q) * r
        q = q - a * y
        alphas.append(a)
    r_vec = q * h_diag
    for (y, s, r), a in zip(zip(dirs, steps, ro), reversed(alphas)):
        b = float(y @ r_vec) * r
        r_vec = r_vec + (a - b) * s
    return r_vec


def _cubic_minimum(x1: float, f1: float, g1: float, x2: float, f2: float, g2: float,
                   bounds: tuple[float, float] | None = None) -> float:
    """The minimiser of the cubic matching values and slopes at ``x1`` and ``x2``, clamped to ``bounds``."""
    lo, hi = bounds if bounds is not None else (min(x1, x2), max(x1, x2))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    disc = d1 * d1 - g1 * g2
    if disc >= 0:
        d2 = math.sqrt(disc) * (1.0 if x2 >= x1 else -1.0)
        x = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        return min(max(x, lo), hi)
    return (lo + hi) / 2.0  # no real minimiser: bisect


def _strong_wolfe(evaluate: Callable[[float], tuple[float, np.ndarray]], t: float, d: np.ndarray, f: float,
                  g: np.ndarray, gtd: float, c1: float = 1e-4, c2: float = 0.9, tol_change: float = 1e-9,
                  max_ls: int = 25) -> tuple[float, np.ndarray, float, int]:
    """A step ``t`` along ``d`` with sufficient decrease (``c1``) and curvature (``c2``) conditions.

    Returns ``(loss, flat gradient, t, evaluations)``. First brackets an
    interval holding an acceptable step, then shrinks it by cubic
    interpolation ("zoom").
    """
    d_norm = float(np.abs(d).max())
    f_new, g_new = evaluate(t)
    evals = 1
    gtd_new = float(g_new @ d)

    t_prev, f_prev, g_prev, gtd_prev = 0.0, f, g, gtd
    bracket: list[float] = []
    bracket_f: list[float] = []
    bracket_g: list[np.ndarray] = []
    bracket_gtd: list[float] = []
    done = False
    for _ in range(max_ls):
        if f_new > f + c1 * t * gtd or (evals > 1 and f_new >= f_prev):
            bracket, bracket_f, bracket_g, bracket_gtd = [t_prev, t], [f_prev, f_new], [g_prev, g_new], [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, bracket_f, bracket_g = [t], [f_new], [g_new]
            done = True
            break
        if gtd_new >= 0:
            bracket, bracket_f, bracket_g, bracket_gtd = [t_prev, t], [f_prev, f_new], [g_prev, g_new], [gtd_prev, gtd_new]
            break
        # extrapolate: a longer step, between 1.01x and 10x the current one
        lo, hi = t + 0.01 * (t - t_prev), t * 10
        t_next = _cubic_minimum(t_prev, f_prev, gtd_prev, t, f_new, gtd_new, bounds=(lo, hi))
        t_prev, f_prev, g_prev, gtd_prev = t, f_new, g_new.copy(), gtd_new
        t = t_next
        f_new, g_new = evaluate(t)
        evals += 1
        gtd_new = float(g_new @ d)
    else:  # the bracketing phase ran out of evaluations
        bracket, bracket_f, bracket_g, bracket_gtd = [0.0, t], [f, f_new], [g, g_new], [gtd, gtd_new]

    # zoom: shrink the bracket until a point satisfies both conditions
    insufficient_progress = False
    while not done and len(bracket) == 2 and evals < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tol_change:
            break
        lo_i, hi_i = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        t = _cubic_minimum(bracket[0], bracket_f[0], bracket_gtd[0], bracket[1], bracket_f[1], bracket_gtd[1])
        # keep away from the ends, where interpolation makes little progress
        width = max(bracket) - min(bracket)
        eps = 0.1 * width
        if min(max(bracket) - t, t - min(bracket)) < eps:
            if insufficient_progress or t >= max(bracket) or t <= min(bracket):
                t = max(bracket) - eps if abs(t - max(bracket)) < abs(t - min(bracket)) else min(bracket) + eps
                insufficient_progress = False
            else:
                insufficient_progress = True
        else:
            insufficient_progress = False
        f_new, g_new = evaluate(t)
        evals += 1
        gtd_new = float(g_new @ d)
        if f_new > f + c1 * t * gtd or f_new >= bracket_f[lo_i]:
            bracket[hi_i], bracket_f[hi_i], bracket_g[hi_i], bracket_gtd[hi_i] = t, f_new, g_new.copy(), gtd_new
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[hi_i] - bracket[lo_i]) >= 0:
                bracket[hi_i], bracket_f[hi_i], bracket_g[hi_i], bracket_gtd[hi_i] = (
                    bracket[lo_i], bracket_f[lo_i], bracket_g[lo_i], bracket_gtd[lo_i])
            bracket[lo_i], bracket_f[lo_i], bracket_g[lo_i], bracket_gtd[lo_i] = t, f_new, g_new.copy(), gtd_new
            if done:
                break

    best = 0 if len(bracket) == 1 or bracket_f[0] <= bracket_f[1] else 1
    return bracket_f[best], bracket_g[best], bracket[best], evals
