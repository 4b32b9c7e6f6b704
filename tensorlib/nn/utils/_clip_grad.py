"""Gradient clipping: rescale or clamp the ``.grad`` of parameters in place."""

from __future__ import annotations

import math
import warnings
from typing import Any, Iterable

from ..._autograd.grad_mode import no_grad
from ..._registry import NN_UTILS, op, public
from ..._tensor import Tensor
from ...ops.creation import tensor
from ...ops.join_split import stack
from ...ops.linalg import vector_norm
from ...ops.selection import clamp


def _tensors(parameters: Any, fname: str = "clip_grad_norm_", argname: str = "parameters") -> list:
    """``parameters`` (a Tensor or an iterable of Tensors) as a list, or torch's TypeError naming the argument."""
    if isinstance(parameters, Tensor):
        return [parameters]
    try:
        items = list(parameters)
    except TypeError:
        raise TypeError(f"{fname}(): argument '{argname}' must be a Tensor or an iterable of Tensors, not "
                        f"{type(parameters).__name__}") from None
    for item in items:
        if not isinstance(item, Tensor):
            raise TypeError(f"{fname}(): argument '{argname}' must hold Tensors, but found {type(item).__name__}")
    return items


def _grads(parameters: Any, fname: str) -> list:
    return [p.grad for p in _tensors(parameters, fname) if p.grad is not None]


def _norm_type(norm_type: Any) -> float:
    if isinstance(norm_type, str):
        if norm_type not in ("inf", "-inf"):
            raise ValueError(f"norm_type must be a number or 'inf', got {norm_type!r}")
    return float(norm_type)


@op(namespace=NN_UTILS)
def get_total_norm(tensors: Tensor | Iterable[Tensor], norm_type: float = 2.0, error_if_nonfinite: bool = False,
                   foreach: bool | None = None) -> Tensor:
    """The ``norm_type`` norm of all ``tensors`` together, as if they were concatenated into one vector."""
    ts = _tensors(tensors, "get_total_norm", "tensors")
    p = _norm_type(norm_type)
    if not ts:
        return tensor(0.0)
    with no_grad():
        norms = [vector_norm(t, p) for t in ts]
        total = vector_norm(stack(norms), p)
    if error_if_nonfinite and not math.isfinite(total._data):
        raise RuntimeError(
            f"The total norm of order {p} for gradients from `parameters` is non-finite, so it cannot be clipped. "
            "To disable this error and scale the gradients by the non-finite norm anyway, set "
            "`error_if_nonfinite=False`"
        )
    return total


@op(namespace=NN_UTILS)
def clip_grads_with_norm_(parameters: Tensor | Iterable[Tensor], max_norm: float, total_norm: Tensor,
                          foreach: bool | None = None) -> None:
    """Scale the gradients by ``max_norm / total_norm`` when that is below one."""
    grads = _grads(parameters, "clip_grads_with_norm_")
    if not grads:
        return
    with no_grad():
        coef = clamp(max_norm / (total_norm + 1e-6), max=1.0)
        for g in grads:
            g.mul_(coef.to(g.dtype))


@op(namespace=NN_UTILS)
def clip_grad_norm_(parameters: Tensor | Iterable[Tensor], max_norm: float, norm_type: float = 2.0,
                    error_if_nonfinite: bool = False, foreach: bool | None = None) -> Tensor:
    """Rescale the gradients so that their total ``norm_type`` norm is at most ``max_norm``; return that norm
    (measured before clipping)."""
    params = _tensors(parameters, "clip_grad_norm_")
    grads = _grads(params, "clip_grad_norm_")
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(params, max_norm, total, foreach)
    return total


@public(namespace=NN_UTILS)
def clip_grad_norm(parameters: Tensor | Iterable[Tensor], max_norm: float, norm_type: float = 2.0,
                   error_if_nonfinite: bool = False, foreach: bool | None = None) -> Tensor:
    """Deprecated alias of :func:`clip_grad_norm_` (a FutureWarning, as in torch)."""
    warnings.warn("`tensorlib.nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`tensorlib.nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


@op(namespace=NN_UTILS)
def clip_grad_value_(parameters: Tensor | Iterable[Tensor], clip_value: float, foreach: bool | None = None) -> None:
    """Clamp every gradient to ``[-clip_value, clip_value]`` in place."""
    clip_value = float(clip_value)
    with no_grad():
        for g in _grads(parameters, "clip_grad_value_"):
            g.clamp_(min=-clip_value, max=clip_value)
