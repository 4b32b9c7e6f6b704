"""``autograd.Variable``: the pre-0.4 wrapper, kept for old code. Every tensor is a Variable."""

from __future__ import annotations

import warnings
from typing import Any

from .._registry import AUTOGRAD, public
from .._tensor import Tensor
from ..ops.creation import empty


class _VariableMeta(type):
    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, Tensor)


@public(namespace=AUTOGRAD)
class Variable(metaclass=_VariableMeta):
    """``Variable(tensor, requires_grad=False)``: a leaf sharing ``tensor``'s data (``volatile`` has no effect)."""

    def __new__(cls, data: Any = None, requires_grad: bool = False, volatile: bool = False) -> Any:
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use `with tensorlib.no_grad():` instead.",
                          UserWarning, stacklevel=2)
        if data is None:
            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        out = data.detach()
        if requires_grad:
            if out._data.dtype.kind not in "fc":
                raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
            out._requires_grad = True
        return out


@public(namespace=AUTOGRAD)
def variable(*args: Any, **kwargs: Any) -> Any:
    """Removed: build tensors with ``tensorlib.tensor`` (raises, as torch's ``torch.autograd.variable`` does)."""
    raise RuntimeError("tensorlib.autograd.variable(...) is deprecated, use tensorlib.tensor(...) instead")
