"""Metadata and conversions of DaskTensors, and the methods and operators a DaskTensor answers.

Metadata (``size``, ``dim``, ``numel``, ``is_floating_point``, ...) is read from a zero-stride view of the full
shape, so answers and errors are tensorlib's. Conversions to Python and NumPy values (``item``, ``tolist``,
``numpy``, ``bool(t)``, ``float(t)``) compute the graph. Every Tensor method and operator the table handles is
then made a method of DaskTensor that calls the Tensor method, so ``x.view(n, -1)`` and ``x + 1`` reach the table
through the protocol like ``tensorlib.add(x, 1)`` does.
"""

from __future__ import annotations

from typing import Any, Callable

import tensorlib
from tensorlib.overrides import protocol

from ._tensor import HANDLED, DaskTensor, ghost

T = tensorlib.Tensor

_METADATA: list[Callable[..., Any]] = [T.size, T.dim, T.ndimension, T.numel, T.nelement, T.element_size, T.is_floating_point, T.is_complex,
             T.is_signed, T.__len__, T.get_device]
_MATERIALIZING: list[Callable[..., Any]] = [T.item, T.tolist, T.numpy, T.__bool__, T.__float__, T.__int__, T.__index__, T.__complex__,
                  T.__array__]


def _metadata_impl(func: Callable) -> Callable:
    def impl(self: Any, *args: Any, **kwargs: Any) -> Any:
        return func(ghost(self), *args, **kwargs)

    impl.__name__ = impl.__qualname__ = f"metadata_{func.__name__}"
    return impl


def _materializing_impl(func: Callable) -> Callable:
    def impl(self: Any, *args: Any, **kwargs: Any) -> Any:
        if func in (T.item, T.__bool__, T.__float__, T.__int__, T.__index__, T.__complex__) and self.numel() != 1:
            func(ghost(self), *args, **kwargs)  # tensorlib's error for more than one element, before any work
        return func(self.compute(), *args, **kwargs)

    impl.__name__ = impl.__qualname__ = f"computing_{func.__name__}"
    return impl


for _func in _METADATA:
    HANDLED.implements(_func)(_metadata_impl(_func))
for _func in _MATERIALIZING:
    HANDLED.implements(_func)(_materializing_impl(_func))


# -- properties ---------------------------------------------------------------------------------------------------------

_PROPERTIES: dict[str, Callable[[Any], Any]] = {
    "shape": lambda self: self.shape,
    "dtype": lambda self: self.dtype,
    "ndim": lambda self: self.ndim,
    "device": lambda self: self.device,
    "requires_grad": lambda self: False,
    "grad": lambda self: None,
    "grad_fn": lambda self: None,
    "is_leaf": lambda self: True,
    "layout": lambda self: tensorlib.strided,
    "is_cpu": lambda self: True,
    "is_cuda": lambda self: False,
    "itemsize": lambda self: self.dtype.itemsize,
    "nbytes": lambda self: self.dtype.itemsize * self.numel(),
}


def _property_impl(getter: Callable[[Any], Any], name: str) -> Callable[[Any], Any]:
    def impl(self: Any) -> Any:
        return getter(self)

    impl.__name__ = impl.__qualname__ = f"property_{name}"
    impl.__doc__ = f"``Tensor.{name}`` of a DaskTensor."
    return impl


for _name, _getter in _PROPERTIES.items():
    HANDLED.implements(getattr(T, _name))(_property_impl(_getter, _name))


# -- DaskTensor's methods, operators and properties ---------------------------------------------------------------------

_OPERATORS = """
__add__ __radd__ __sub__ __rsub__ __mul__ __rmul__ __truediv__ __rtruediv__ __floordiv__ __rfloordiv__ __mod__
__rmod__ __pow__ __rpow__ __matmul__ __rmatmul__ __neg__ __pos__ __abs__ __invert__ __and__ __rand__ __or__ __ror__
__xor__ __rxor__ __lshift__ __rshift__ __rlshift__ __rrshift__ __eq__ __ne__ __lt__ __le__ __gt__ __ge__ __getitem__
__len__ __bool__ __float__ __int__ __index__ __complex__ __array__
""".split()


def _forward(public: Callable, name: str) -> Callable:
    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        return public(self, *args, **kwargs)

    method.__name__ = name
    method.__qualname__ = f"DaskTensor.{name}"
    method.__doc__ = getattr(public, "__doc__", None)
    return method


def _handles(public: Any) -> bool:
    return HANDLED.get(protocol.reported_as(public)) is not None


def install() -> None:
    """Give DaskTensor a method for every Tensor method, operator and property the table handles."""
    for public in HANDLED:
        qualname = getattr(public, "__qualname__", "")
        if not qualname.startswith("Tensor.") or qualname.count(".") != 1:
            continue
        name = qualname.split(".", 1)[1]
        if name.startswith("__") or name in vars(DaskTensor):
            continue
        setattr(DaskTensor, name, _forward(public, name))
    for name in _OPERATORS:
        public = getattr(T, name, None)
        if public is not None and _handles(public):
            setattr(DaskTensor, name, _forward(public, name))
    for name, value in vars(T).items():
        if isinstance(value, property) and name not in vars(DaskTensor) and HANDLED.get(value.__get__) is not None:
            setattr(DaskTensor, name, property(_forward(value.__get__, name)))
