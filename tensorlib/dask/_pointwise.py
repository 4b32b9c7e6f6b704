"""Pointwise functions on DaskTensors: arithmetic, comparisons, math, activations, ``where``, dtype conversions.

Each is one blockwise task per output chunk that calls the very function that was called (``tensorlib.add``,
``Tensor.__rsub__``, ``F.gelu``) on the operands' chunks, broadcast as tensorlib broadcasts.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable

import dask.array as da

import tensorlib
import tensorlib.nn.functional as F
import tensorlib.special as special

from ._tensor import (
    HANDLED,
    DaskTensor,
    Kernel,
    Template,
    blockwise,
    evaluate,
    ghost,
    letters,
    map_structure,
    standin,
)

T = tensorlib.Tensor

# Pointwise in tensorlib's namespace and as Tensor methods (where each exists).
_POINTWISE = """
abs absolute neg negative positive exp exp2 expm1 log log2 log10 log1p sqrt rsqrt square sin cos tan asin acos atan
arcsin arccos arctan sinh cosh tanh asinh acosh atanh arcsinh arccosh arctanh sigmoid erf erfc erfinv floor ceil
round trunc fix frac sign sgn signbit reciprocal relu logical_not bitwise_not isnan isinf isposinf isneginf isfinite
isreal nan_to_num clamp clip clamp_min clamp_max deg2rad rad2deg lgamma digamma polygamma i0 sinc logit conj
float_power xlogy copysign nextafter heaviside ldexp logaddexp logaddexp2 lerp addcmul addcdiv maximum minimum fmax
fmin add sub subtract rsub mul multiply div divide true_divide floor_divide remainder fmod pow atan2 arctan2 hypot
eq ne lt le gt ge greater less greater_equal less_equal not_equal logical_and logical_or logical_xor bitwise_and
bitwise_or bitwise_xor bitwise_left_shift bitwise_right_shift isclose masked_fill
float double half int long short bool byte char cfloat cdouble celu selu hardshrink softshrink threshold
""".split()
# Operators as handlers receive them (``d - 1`` arrives as ``Tensor.sub``; these keep their own names).
_OPERATORS = """
__rsub__ __rdiv__ __floordiv__ __rfloordiv__ __rmod__ __rpow__ __invert__ __and__ __or__ __xor__ __eq__
__lshift__ __rshift__ __rlshift__ __rrshift__
""".split()
_ACTIVATIONS = """
relu relu6 elu selu celu gelu silu mish sigmoid tanh hardtanh hardsigmoid hardswish leaky_relu logsigmoid softplus
softsign tanhshrink hardshrink softshrink threshold
""".split()
_NOT_POINTWISE_SPECIAL = {"softmax", "log_softmax", "logsumexp"}


def _publics() -> list[Callable]:
    found: list[Callable] = []
    for name in _POINTWISE:
        found += [f for f in (getattr(tensorlib, name, None), getattr(T, name, None)) if callable(f)]
    found += [getattr(T, name) for name in _OPERATORS if hasattr(T, name)]
    found += [getattr(F, name) for name in _ACTIVATIONS if hasattr(F, name)]
    found += [getattr(special, name) for name in dir(special) if not name.startswith("_")
              and name not in _NOT_POINTWISE_SPECIAL and callable(getattr(special, name))
              and not isinstance(getattr(special, name), type)]
    return found


def _unsupported(name: str, why: str) -> NotImplementedError:
    return NotImplementedError(f"{name}: {why} is not supported on a DaskTensor")


def pointwise(func: Callable, args: tuple, kwargs: dict) -> DaskTensor:
    """``func(*args, **kwargs)`` chunk by chunk, the tensor operands broadcast against each other."""
    name = protocol_name(func)
    if kwargs.get("out") is not None:
        raise _unsupported(name, "out=")
    operands = [v for v in list(args) + list(kwargs.values()) if isinstance(v, (DaskTensor, tensorlib.Tensor))]
    try:
        shape = tensorlib.broadcast_shapes(*[v.shape for v in operands])
    except RuntimeError:
        evaluate(func, *map_structure(ghost, args, kwargs))  # the function's own message (before computing)
        raise
    small_args, small_kwargs = map_structure(standin, args, kwargs)
    result = evaluate(func, small_args, small_kwargs)  # tensorlib's dtype rules and argument errors
    if not isinstance(result, tensorlib.Tensor) or result.dim() != len(shape):
        raise _unsupported(name, "this call")
    template = Template(args, kwargs)
    out_ind = letters("d", len(shape))
    pairs = [(a, out_ind[len(shape) - a.ndim:]) for a in template.arrays()]
    return DaskTensor(blockwise(template.kernel(func), out_ind, pairs, result.dtype))


def protocol_name(func: Callable) -> str:
    """The dotted name of a public function, for messages."""
    return str(tensorlib.overrides.protocol.registry.display_name(func))


def _with_inplace(func: Callable) -> Callable[..., Any]:
    """An activation with an ``inplace`` parameter: in place, the DaskTensor is rebound to the lazy result."""
    sig = inspect.signature(func)

    def impl(*args: Any, **kwargs: Any) -> Any:
        bound = sig.bind(*args, **kwargs)
        if not bound.arguments.get("inplace", False):
            return pointwise(func, args, kwargs)
        bound.arguments["inplace"] = False
        result = pointwise(func, bound.args, bound.kwargs)
        target = bound.args[0]
        if isinstance(target, DaskTensor):
            target._array = result._array
            return target
        return result

    return impl


_CONVERSIONS = {getattr(T, name) for name in "float double half int long short bool byte char cfloat cdouble".split()}


def _conversion_impl(func: Callable) -> Callable[..., Any]:
    """``x.float()`` and the like: ``x`` itself when it already has that dtype, as on Tensor."""

    def impl(self: Any, *args: Any, **kwargs: Any) -> Any:
        converted = evaluate(func, (standin(self),) + args, kwargs)
        return self if converted.dtype == self.dtype else pointwise(func, (self,) + args, kwargs)

    impl.__name__ = impl.__qualname__ = f"convert_{func.__name__}"
    return impl


def _register_pointwise() -> None:
    for public in _publics():
        if HANDLED.get(tensorlib.overrides.protocol.reported_as(public)) is not None:
            continue  # an alias already filed (tensorlib.clip and clamp are one function)
        if public in _CONVERSIONS:
            HANDLED.implements(public)(_conversion_impl(public))
        elif "inplace" in _parameters(public):
            HANDLED.implements(public)(_with_inplace(public))
        else:
            HANDLED.implements(public)(_pointwise_impl(public))


def _parameters(func: Callable) -> tuple[str, ...]:
    try:
        return tuple(inspect.signature(func).parameters)
    except (TypeError, ValueError):
        return ()


def _pointwise_impl(func: Callable) -> Callable[..., Any]:
    def impl(*args: Any, **kwargs: Any) -> Any:
        return pointwise(func, args, kwargs)

    impl.__name__ = impl.__qualname__ = f"pointwise_{getattr(func, '__name__', 'op')}"
    return impl


_register_pointwise()


# -- where, dropout and conversions ---------------------------------------------------------------------------------


@HANDLED.implements(tensorlib.where)
def where(condition: Any, input: Any = None, other: Any = None, *, out: Any = None) -> Any:
    if input is None and other is None:
        raise _unsupported("tensorlib.where", "where(condition) (a data-dependent shape)")
    return pointwise(tensorlib.where, (condition, input, other), {"out": out} if out is not None else {})


@HANDLED.implements(T.where)
def where_method(self: Any, condition: Any, y: Any) -> Any:
    return pointwise(T.where, (self, condition, y), {})


@HANDLED.implements(F.dropout)
def dropout(input: Any, p: float = 0.5, training: bool = True, inplace: bool = False) -> Any:
    evaluate(F.dropout, (standin(input), p, False, False), {})  # tensorlib's checks of p
    if training and p > 0:
        raise _unsupported("tensorlib.nn.functional.dropout", "dropout in training mode (call model.eval())")
    return input


def _cast(x: DaskTensor, dtype: tensorlib.dtype) -> DaskTensor:
    return pointwise(T.to, (x, dtype), {})


@HANDLED.implements(T.to)
def to(self: Any, *args: Any, **kwargs: Any) -> Any:
    small_args, small_kwargs = map_structure(standin, args, kwargs)
    converted = evaluate(T.to, (standin(self),) + small_args, small_kwargs)  # tensorlib's parsing and errors
    if converted.dtype == self.dtype and not kwargs.get("copy", False):
        return self
    return _cast(self, converted.dtype)


@HANDLED.implements(T.type_as)
def type_as(self: Any, other: Any) -> Any:
    return self if self.dtype == other.dtype else _cast(self, other.dtype)


@HANDLED.implements(T.type)
def type_(self: Any, dtype: Any = None, non_blocking: bool = False, **kwargs: Any) -> Any:
    result = evaluate(T.type, (standin(self), dtype, non_blocking), kwargs)
    if not isinstance(result, tensorlib.Tensor):
        return result  # the type's name
    return self if result.dtype == self.dtype else _cast(self, result.dtype)


def _identity(public: Callable) -> None:
    def impl(self: Any, *args: Any, **kwargs: Any) -> Any:
        evaluate(public, (standin(self),) + args, kwargs)  # the arguments are checked as tensorlib checks them
        return self

    impl.__name__ = impl.__qualname__ = f"identity_{public.__name__}"
    HANDLED.implements(public)(impl)


# DaskTensors are immutable graphs on the CPU without autograd history: these return the tensor itself.
for _public in (T.contiguous, T.cpu, T.detach):
    _identity(_public)


@HANDLED.implements(tensorlib.clone)
def clone(input: Any, *, memory_format: Any = None) -> Any:
    return DaskTensor(input._array)


@HANDLED.implements(T.clone)
def clone_method(self: Any, *, memory_format: Any = None) -> Any:
    return DaskTensor(self._array)


@HANDLED.implements(T.requires_grad_)
def requires_grad_(self: Any, requires_grad: bool = True) -> Any:
    if requires_grad:
        raise _unsupported("tensorlib.Tensor.requires_grad_", "autograd (train with tensorlib.dask.data_parallel_step)")
    return self


# -- *_like factories: chunked like the input, without depending on its data ------------------------------------------


def _full(like: DaskTensor, value: Any, result: tensorlib.Tensor, name: str, requires_grad: bool) -> DaskTensor:
    if requires_grad:
        raise _unsupported(name, "requires_grad=True")
    return DaskTensor(da.full(like._array.shape, value, chunks=like._array.chunks, dtype=result.dtype.np))


@HANDLED.implements(tensorlib.zeros_like)
def zeros_like(input: Any, *, dtype: Any = None, layout: Any = None, device: Any = None, requires_grad: bool = False,
               memory_format: Any = None) -> Any:
    result = evaluate(tensorlib.zeros_like, (standin(input),), {"dtype": dtype, "layout": layout, "device": device})
    return _full(input, 0, result, "tensorlib.zeros_like", requires_grad)


@HANDLED.implements(tensorlib.ones_like)
def ones_like(input: Any, *, dtype: Any = None, layout: Any = None, device: Any = None, requires_grad: bool = False,
              memory_format: Any = None) -> Any:
    result = evaluate(tensorlib.ones_like, (standin(input),), {"dtype": dtype, "layout": layout, "device": device})
    return _full(input, 1, result, "tensorlib.ones_like", requires_grad)


@HANDLED.implements(tensorlib.empty_like)
def empty_like(input: Any, *, dtype: Any = None, layout: Any = None, device: Any = None, requires_grad: bool = False,
               memory_format: Any = None) -> Any:
    result = evaluate(tensorlib.empty_like, (standin(input),), {"dtype": dtype, "layout": layout, "device": device})
    return _full(input, 0, result, "tensorlib.empty_like", requires_grad)


@HANDLED.implements(tensorlib.full_like)
def full_like(input: Any, fill_value: Any, *, dtype: Any = None, layout: Any = None, device: Any = None,
              requires_grad: bool = False, memory_format: Any = None) -> Any:
    result = evaluate(tensorlib.full_like, (standin(input), fill_value),
                      {"dtype": dtype, "layout": layout, "device": device})
    return _full(input, result.reshape(-1)[0].item(), result, "tensorlib.full_like", requires_grad)


__all__ = ["pointwise", "protocol_name", "Kernel"]
