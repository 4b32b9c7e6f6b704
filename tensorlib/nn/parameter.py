"""``nn.Parameter``: a Tensor that a Module registers as a learnable parameter."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._dtype import DEFAULT, FROM_NP
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


# -- lazy initialisation ------------------------------------------------------------------------------------------

# the Tensor methods an uninitialised parameter or buffer allows (torch's list), by name: the public methods are
# bound after this module is imported, so the set is built on first use
_ALLOWED_NAMES = ("__hash__", "size", "copy_", "is_complex", "is_floating_point", "half", "float", "double", "char",
                  "short", "int", "long", "cuda", "cpu", "to", "get_device")
_allowed: set = set()


def _allowed_methods() -> set:
    if not _allowed:
        _allowed.update(getattr(Tensor, name) for name in _ALLOWED_NAMES if hasattr(Tensor, name))
    return _allowed


class UninitializedTensorMixin:
    """What uninitialised parameters and buffers share: no shape yet, most operations refused, ``materialize``."""

    cls_to_become: type

    def materialize(self, shape: Any, device: Any = None, dtype: Any = None) -> None:
        """Create the tensor's memory with ``shape`` (and ``dtype``, by default the current one) and become
        ``cls_to_become`` (``Parameter`` or ``Tensor``). The values are uninitialised."""
        t: Any = self
        if isinstance(shape, int):
            shape = (shape,)
        npdt = t._data.dtype if dtype is None else dtype.np
        t._data = np.empty(tuple(shape), dtype=npdt)
        t._size = None
        t.__class__ = self.cls_to_become

    @property
    def shape(self) -> Any:
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error usually happens in "
            "`load_state_dict` when trying to load an uninitialized parameter into an initialized one. Call "
            "`forward` to initialize the parameters before accessing their attributes."
        )

    def share_memory_(self) -> Any:
        raise RuntimeError(
            "Can't share memory on an uninitialized parameter or buffer. Call `forward` to initialize the "
            "parameters before calling `module.share_memory()`."
        )

    def __repr__(self, *, tensor_contents: Any = None) -> str:
        return f"<{self.__class__.__name__}>"

    def __reduce_ex__(self, proto: Any) -> Any:
        return (self.__class__, (getattr(self, "_requires_grad"),))

    @classmethod
    def __torch_function__(cls, func: Any, types: tuple, args: tuple = (), kwargs: dict | None = None) -> Any:
        # property getters reach handlers as method-wrappers, as in torch: those are allowed
        if func in _allowed_methods() or func.__class__.__name__ == "method-wrapper":
            return super().__torch_function__(func, types, args, {} if kwargs is None else kwargs)  # type: ignore[misc]
        raise ValueError(
            f"Attempted to use an uninitialized parameter in {func}. This error happens when you are using a "
            f"`LazyModule` or explicitly manipulating `tensorlib.nn.parameter.{cls.__name__}` objects. When using "
            "LazyModules Call `forward` with a dummy batch to initialize the parameters before calling tensorlib "
            "functions"
        )


def is_lazy(param: Any) -> bool:
    """Whether ``param`` is an uninitialised parameter or buffer (of a lazy module)."""
    return isinstance(param, UninitializedTensorMixin)


class UninitializedParameter(UninitializedTensorMixin, Parameter):  # type: ignore[misc]
    """A parameter whose shape is not known yet (lazy modules'): it becomes a :class:`Parameter` when
    materialized, on the module's first forward."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad: bool = True, device: Any = None, dtype: Any = None) -> "UninitializedParameter":
        p = object.__new__(cls)
        _init(p, np.empty((0,), dtype=DEFAULT.np_float if dtype is None else dtype.np))
        p._requires_grad = bool(requires_grad)
        return p

    def __init__(self, requires_grad: bool = True, device: Any = None, dtype: Any = None) -> None:
        pass

    def __deepcopy__(self, memo: dict) -> "UninitializedParameter":
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self._requires_grad, None, _dtype_of(self))
        memo[id(self)] = result
        return result


class UninitializedBuffer(UninitializedTensorMixin, Tensor):  # type: ignore[misc]
    """A buffer whose shape is not known yet (lazy modules'): it becomes a plain Tensor when materialized."""

    cls_to_become = Tensor
    persistent: bool

    def __new__(cls, requires_grad: bool = False, device: Any = None, dtype: Any = None,
                persistent: bool = True) -> "UninitializedBuffer":
        b = object.__new__(cls)
        _init(b, np.empty((0,), dtype=DEFAULT.np_float if dtype is None else dtype.np))
        b._requires_grad = bool(requires_grad)
        b.persistent = persistent
        return b

    def __init__(self, requires_grad: bool = False, device: Any = None, dtype: Any = None,
                 persistent: bool = True) -> None:
        pass


def _dtype_of(t: Tensor) -> Any:
    return FROM_NP[t._data.dtype]
