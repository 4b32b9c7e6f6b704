"""``tensorlib.autograd``: custom differentiable Functions, the backward engine, grad modes, gradcheck."""

from __future__ import annotations

from .._autograd.engine import backward, grad
from .._autograd.function import Function, FunctionCtx, once_differentiable
from .._autograd.gradcheck import GradcheckError, gradcheck, gradgradcheck
from .._autograd.grad_mode import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from .._autograd.graph import Node
from .._tensor import Tensor as Variable
from . import function, graph
from .._namespace import register_ignored as _register_ignored

# Differentiation machinery takes tensors but is not itself overridable, as in torch.
_register_ignored(__name__, [
    "Function", "FunctionCtx", "GradcheckError", "Node", "Variable", "backward", "grad", "gradcheck",
    "gradgradcheck", "once_differentiable", "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled",
    "inference_mode",
])

__all__ = [
    "Function",
    "FunctionCtx",
    "GradcheckError",
    "Node",
    "Variable",
    "backward",
    "enable_grad",
    "function",
    "grad",
    "gradcheck",
    "gradgradcheck",
    "graph",
    "inference_mode",
    "is_grad_enabled",
    "no_grad",
    "once_differentiable",
    "set_grad_enabled",
]
