"""``tensorlib.autograd.function``: where torch users import ``Function`` and ``once_differentiable`` from."""

from .._autograd.function import BackwardCFunction, Function, FunctionCtx, once_differentiable

__all__ = ["BackwardCFunction", "Function", "FunctionCtx", "once_differentiable"]
