"""``tensorlib.autograd``: custom differentiable Functions, the backward engine, grad modes, gradcheck."""

from __future__ import annotations

import importlib as _importlib
from typing import Any as _Any

from .._autograd import engine as _engine  # noqa: F401  (declares backward and grad here)
from .._autograd.anomaly_mode import (
    detect_anomaly,
    is_anomaly_check_nan_enabled,
    is_anomaly_enabled,
    set_detect_anomaly,
)
from .._autograd.function import Function, FunctionCtx, once_differentiable
from .._autograd.grad_mode import (
    enable_grad,
    enforce_grad_layout_policy,
    inference_mode,
    is_grad_enabled,
    no_grad,
    set_grad_enabled,
    set_multithreading_enabled,
)
from .._autograd.graph import Node
from .._autograd.nested_io import NestedIOFunction
from .._autograd.variable import Variable
from .._namespace import build as _build
from . import function, grad_mode, graph, variable as _variable_module  # noqa: F401

# importing the submodule binds the name to it; the function takes the name back, as in torch
from .gradcheck import GradcheckError, gradcheck, gradgradcheck

# As in torch, grad and backward dispatch on the tensors they are given (a Tensor
# subclass gets its gradients back as its own type); the rest of the
# differentiation machinery is not overridable (see the declarations in tensorlib._autograd).
# Building binds ``variable`` to the deprecated function, over the submodule of that name (as in torch).
_build(__name__)

__all__ = [
    "Function",
    "FunctionCtx",
    "GradcheckError",
    "NestedIOFunction",
    "Node",
    "Variable",
    "backward",
    "detect_anomaly",
    "enable_grad",
    "enforce_grad_layout_policy",
    "function",
    "functional",
    "grad",
    "grad_mode",
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
    "set_multithreading_enabled",
    "variable",
]


def __getattr__(name: str) -> _Any:
    # tensorlib.autograd.functional (jacobian, hessian, vjp, ...) loads on first use
    if name == "functional":
        return _importlib.import_module(".functional", __name__)  # binds the submodule here
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
