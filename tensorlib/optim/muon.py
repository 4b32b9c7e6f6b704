"""Muon: momentum SGD whose update is orthogonalised by a Newton-Schulz iteration, for 2-D parameters."""

from __future__ import annotations

import math
from typing import Any, Callable, Iterable

import numpy as np

from .._tensor import _wrap
from .optimizer import Optimizer, _check_lr, _lerp_, _value

EPS = 1e-7
DEFAULT_A = 3.4445
DEFAULT_B = -4.7750
DEFAULT_C = 2.0315
DEFAULT_NS_STEPS = 5


def _bf16(a: Any) -> np.ndarray:
    """``a`` rounded to bfloat16 (round to nearest even), kept as float32: NumPy has no bfloat16 type."""
    a = np.asarray(a, dtype=np.float32)
    bits = a.view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16).astype(np.uint32)
    out = rounded.view(np.float32)
    return np.where(np.isnan(a), np.float32(np.nan), out)


def _zeropower_via_newtonschulz(grad: np.ndarray, ns_coefficients: tuple[float, float, float], ns_steps: int,
                                eps: float) -> np.ndarray:
    """torch's quintic Newton-Schulz orthogonalisation of a matrix, in bfloat16 as torch computes it.

    Every intermediate is rounded to bfloat16 where torch stores one; products accumulate in float32
    and ``addmm`` rounds once, as torch's CPU bfloat16 kernels do (a different order of summation can
    still change a last bit now and then).
    """
    if ns_steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if grad.ndim != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(ns_coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = (np.float32(v) for v in ns_coefficients)
    x = _bf16(grad)
    tall = grad.shape[0] > grad.shape[1]
    if tall:
        x = x.T
    norm = _bf16(np.sqrt(np.sum(x * x, dtype=np.float32)))
    norm = np.maximum(norm, _bf16(eps))
    x = _bf16(x / norm)
    for _ in range(ns_steps):
        gram = _bf16(x @ x.T)
        gram_update = _bf16(c * (gram @ gram) + b * gram)  # addmm: one rounding of beta * C + alpha * A @ B
        x = _bf16(gram_update @ x + a * x)
    return x.T if tall else x


def _adjust_lr(lr: float, adjust_lr_fn: str | None, param_shape: tuple[int, ...]) -> float:
    rows, cols = param_shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        ratio = math.sqrt(max(1, rows / cols))
    elif adjust_lr_fn == "match_rms_adamw":
        ratio = 0.2 * math.sqrt(max(rows, cols))
    else:
        ratio = 1.0
    return lr * ratio


class Muon(Optimizer):
    """torch.optim.Muon: Nesterov momentum, the update orthogonalised by ``ns_steps`` Newton-Schulz iterations
    (in bfloat16, as torch does), decoupled weight decay and a shape-dependent learning rate. 2-D parameters only."""

    def __init__(self, params: Iterable[Any], lr: float = 1e-3, weight_decay: float = 0.1, momentum: float = 0.95,
                 nesterov: bool = True,
                 ns_coefficients: tuple[float, float, float] = (DEFAULT_A, DEFAULT_B, DEFAULT_C),
                 eps: float = EPS, ns_steps: int = DEFAULT_NS_STEPS, adjust_lr_fn: str | None = None) -> None:
        _check_lr(lr, "Learning rate should be >= 0 but is: {}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn is not None and adjust_lr_fn not in ["original", "match_rms_adamw"]:
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        super().__init__(params, dict(lr=lr, weight_decay=weight_decay, momentum=momentum, nesterov=nesterov,
                                      ns_coefficients=ns_coefficients, eps=eps, ns_steps=ns_steps,
                                      adjust_lr_fn=adjust_lr_fn))
        for group in self.param_groups:
            for p in group["params"]:
                if p.ndim != 2:
                    raise ValueError(
                        f"Muon only supports 2D parameters whereas we found a parameter with size: {p.size()}"
                    )

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One Muon update of every parameter that has a gradient."""
        loss = self._evaluate(closure)
        for group in self.param_groups:
            lr, wd, momentum = _value(group["lr"]), group["weight_decay"], group["momentum"]
            for p in group["params"]:
                if p.grad is not None and p._data.dtype.kind == "c":
                    raise RuntimeError("Muon does not support complex parameters")
            for p, g in self._gradients(group):
                if g.ndim != 2:
                    raise ValueError("Param gradient must be a 2D matrix")
                x = p._data
                state = self.state.setdefault(p, {})
                if "momentum_buffer" not in state:
                    state["momentum_buffer"] = _wrap(np.zeros_like(g))
                buf = _lerp_(state["momentum_buffer"]._data, g, 1 - momentum)
                update = _lerp_(g.copy(), buf, momentum) if group["nesterov"] else buf
                ortho = _zeropower_via_newtonschulz(update, group["ns_coefficients"], group["ns_steps"], group["eps"])
                adjusted = _adjust_lr(lr, group["adjust_lr_fn"], x.shape)
                np.multiply(x, 1 - lr * wd, out=x, casting="unsafe")
                np.add(x, -adjusted * ortho.astype(x.dtype), out=x, casting="unsafe")
        return loss
