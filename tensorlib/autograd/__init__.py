"""``tensorlib.autograd``: custom differentiable Functions, the backward engine, grad modes, gradcheck."""

from __future__ import annotations

from .._autograd.anomaly_mode import detect_anomaly, is_anomaly_check_nan_enabled, is_anomaly_enabled, set_detect_anomaly
from .._autograd import engine as _engine
from .._autograd.function import Function, FunctionCtx, once_differentiable
from .._autograd.gradcheck import GradcheckError, gradcheck, gradgradcheck
from .._autograd.grad_mode import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from .._autograd.graph import Node
from .._autograd.variable import Variable
from . import function, functional, graph
from .._namespace import expose as _expose
from .._namespace import register_ignored as _register_ignored

# As in torch, grad and backward dispatch on the tensors they are given (a Tensor
# subclass gets its gradients back as its own type); the rest of the
# differentiation machinery is not overridable.
globals().update(_expose(__name__, {"backward": _engine.backward, "grad": _engine.grad}))
_register_ignored(__name__, [
    "Function", "FunctionCtx", "GradcheckError", "Node", "Variable", "gradcheck",
    "gradgradcheck", "once_differentiable", "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled",
    "inference_mode", "detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled", "is_anomaly_check_nan_enabled",
])

__all__ = [
    "Function",
    "FunctionCtx",
    "GradcheckError",
    "Node",
    "Variable",
    "backward",
    "detect_anomaly",
    "enable_grad",
    "function",
    "functional",
    "grad",
    "gradcheck",
    "gradgradcheck",
    "graph",
    "inference_mode",
    "is_anomaly_check_nan_enabled",
    "is_anomaly_enabled",
    "is_grad_enabled",
    "no_grad",
    "once_differentiable",
    "set_detect_anomaly",
    "set_grad_enabled",
]
