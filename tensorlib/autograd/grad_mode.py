"""``tensorlib.autograd.grad_mode``: the context managers that switch gradient recording and the engine's modes."""

from .._autograd.grad_mode import (
    enable_grad,
    enforce_grad_layout_policy,
    inference_mode,
    no_grad,
    set_grad_enabled,
    set_multithreading_enabled,
)

__all__ = [
    "enable_grad",
    "enforce_grad_layout_policy",
    "inference_mode",
    "no_grad",
    "set_grad_enabled",
    "set_multithreading_enabled",
]
