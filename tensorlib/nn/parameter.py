"""``nn.Parameter``: a Tensor that a Module registers as a learnable parameter."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._dtype import DEFAULT
from .._repr import tensor_repr
from .._tensor import Tensor, _disabled_torch_function_impl, _init, _wrap


class _ParameterMeta(type):
    """Makes ``isinstance(t, Parameter)`` true for Tensor-subclass instances made parameters (``_is_param``)."""

    def __instancecheck__(cls, instance: Any) -> bool:
        if cls is Parameter and isinstance(instance, Tensor) and instance.__dict__.get("_is_param", False):
            return True
        return super().__instancecheck__(instance)


class Parameter(Tensor, metaclass=_ParameterMeta):
    """A tensor that is a module parameter: assigning one to a Module attribute registers it.

    ``Parameter(data)`` shares ``data``'s memory and requires grad by default.
    For dispatch it behaves like a plain Tensor (its ops return plain Tensors
    and it never takes precedence over a duck type's ``__torch_function__``).

    For an instance of a Tensor subclass, as in torch, the result keeps that
    subclass: it is ``data.detach()`` marked as a parameter, and
    ``isinstance(result, Parameter)`` holds.
    """

    __torch_function__ = _disabled_torch_function_impl

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True) -> "Parameter":
        if data is None:
            arr = np.empty((0,), dtype=DEFAULT.np_float)
        elif isinstance(data, Tensor):
            if type(data) is not Tensor and type(data) is not Parameter:
                return _subclass_parameter(data, requires_grad)
            arr = data._data
        else:
            raise TypeError(f"Parameter(): expected a Tensor as data, got {type(data).__name__}")
        p = object.__new__(cls)
        _init(p, arr)
        if isinstance(data, Tensor) and data._vc is not None:
            p._vc = data._vc
        if requires_grad:
            if arr.dtype.kind not in "fc":
                raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
            p._requires_grad = True
        return p

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True) -> None:
        pass

    # Tensor.__repr__'s signature; mypy drops the names of dunder methods' arguments, keyword-only ones too,
    # and then finds even identical signatures incompatible.
    def __repr__(self, *, tensor_contents: Any = None) -> str:  # type: ignore[override]
        return "Parameter containing:\n" + tensor_repr(self, prefix="tensor(")

    def __deepcopy__(self, memo: dict) -> "Parameter":
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(_copy_tensor(self), self._requires_grad)
        memo[id(self)] = result
        return result

    def __reduce_ex__(self, proto: Any) -> Any:
        return (_rebuild_parameter, (self._data.copy(), self._requires_grad))


def _subclass_parameter(data: Tensor, requires_grad: bool) -> Any:
    t = data.detach()
    if type(t) is not type(data):
        raise RuntimeError(
            f"Creating a Parameter from an instance of type {type(data).__name__} requires that detach() returns an "
            f"instance of the same type, but return type {type(t).__name__} was found instead. To use the type as a "
            "Parameter, please correct the detach() semantics defined by its __torch_function__() implementation."
        )
    t.requires_grad_(requires_grad)
    setattr(t, "_is_param", True)  # an instance attribute, read by Parameter's isinstance check
    return t


def _copy_tensor(t: Tensor) -> Tensor:
    return _wrap(t._data.copy())


def _rebuild_parameter(data: np.ndarray, requires_grad: bool) -> Parameter:
    return Parameter(_wrap(data), requires_grad)


class Buffer(Tensor):
    """Marks a tensor to be registered as a module buffer when assigned as an attribute."""

    __torch_function__ = _disabled_torch_function_impl
    persistent: bool

    def __new__(cls, data: Tensor, *, persistent: bool = True) -> "Buffer":
        b = object.__new__(cls)
        _init(b, data._data)
        b.persistent = persistent
        return b
