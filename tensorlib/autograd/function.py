"""``tensorlib.autograd.function``: where torch users import ``Function`` and ``once_differentiable`` from."""

from .._autograd.function import BackwardCFunction, Function, FunctionCtx, once_differentiable
from .._autograd.nested_io import NestedIOFunction

__all__ = ["BackwardCFunction", "Function", "FunctionCtx", "NestedIOFunction", "once_differentiable"]
