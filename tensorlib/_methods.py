"""The Tensor methods and operators that are ops, as a table: name -> raw implementation.

Most methods are the function of the same name with ``self`` as ``input``
(and no ``out=``); their signatures are derived from the function's. The rest
are written here. ``tensorlib/__init__`` makes all of them overridable.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable

import numpy as np

from . import _dtype
from ._autograd.graph import Node, rename_grad_fn
from ._tensor import Tensor
from .ops import activation as A
from .ops import creation as C
from .ops import elementwise as E
from .ops import indexing as I
from .ops import linalg as L
from .ops import reduction as R
from .ops import shape as S
from .ops._util import GRAD, record

# Functions whose method form is ``tensor.name(*args)`` == ``name(tensor, *args)``.
SAME_AS_FUNCTION: dict[str, Callable] = {}
_FUNCTION_METHODS = {
    E: """add sub subtract mul multiply div divide true_divide floor_divide remainder fmod pow float_power neg negative
        abs absolute exp exp2 expm1 log log2 log10 log1p sqrt rsqrt sin cos tan asin acos atan sinh cosh tanh asinh
        acosh atanh sigmoid reciprocal square relu floor ceil trunc fix frac sign sgn round conj lerp maximum minimum
        fmax fmin clamp clip clamp_min clamp_max eq ne lt le gt ge greater greater_equal less less_equal not_equal
        logical_and logical_or logical_xor logical_not bitwise_and bitwise_or bitwise_xor bitwise_not isnan isinf
        isfinite isposinf isneginf isclose allclose equal nan_to_num clone positive
        add_ sub_ mul_ div_ pow_ neg_ negative_ abs_ exp_ exp2_ expm1_ log_ log2_ log10_ log1p_ sqrt_ rsqrt_ sin_
        cos_ tan_ asin_ acos_ atan_ sinh_ cosh_ tanh_ asinh_ acosh_ atanh_ sigmoid_ reciprocal_ square_ relu_ floor_
        ceil_ trunc_ fix_ frac_ sign_ round_ clamp_ clip_ zero_ fill_ copy_ remainder_ floor_divide_ lerp_ sgn_
        absolute_ divide_ true_divide_ multiply_ subtract_ fmod_ float_power_ nan_to_num_ clamp_min_ clamp_max_
        atan2 atan2_ arctan2 arctan2_ hypot hypot_ logaddexp logaddexp2 xlogy xlogy_ copysign copysign_ deg2rad deg2rad_
        rad2deg rad2deg_ sinc sinc_ logit logit_ angle signbit heaviside heaviside_ addcmul addcmul_ addcdiv addcdiv_
        arccos arccos_ arcsin arcsin_ arctan arctan_ arccosh arccosh_ arcsinh arcsinh_ arctanh arctanh_
        bitwise_left_shift bitwise_right_shift""",
    R: """sum mean nansum nanmean prod max min amax amin aminmax argmax argmin var std var_mean std_mean logsumexp all
        any count_nonzero cumsum cumprod median mode cumsum_ cumprod_ cummax cummin logcumsumexp diff dist nanmedian
        quantile nanquantile histc""",
    L: """mm matmul bmm mv dot vdot inner outer ger addmm addmv baddbmm tril triu trace norm cross addmm_ addmv_ baddbmm_
        tril_ triu_ kron addr addr_ addbmm addbmm_ matrix_power logdet inverse det""",
    S: """view reshape permute expand repeat view_as reshape_as flatten unflatten squeeze unsqueeze transpose swapaxes swapdims t movedim moveaxis
        expand_as broadcast_to contiguous narrow select unbind split chunk tensor_split flip fliplr flipud roll tile
        repeat_interleave diagonal diag diag_embed adjoint transpose_ swapaxes_ swapdims_ t_ squeeze_ unsqueeze_
        ravel narrow_copy rot90 hsplit vsplit dsplit diagflat unfold split_with_sizes""",
    I: """gather scatter scatter_ scatter_add scatter_add_ index_select index_add index_fill index_put index_put_
        masked_fill masked_fill_ masked_select masked_scatter masked_scatter_ nonzero argwhere argsort sort msort topk
        kthvalue unique index_copy index_copy_ select_scatter slice_scatter diagonal_scatter unique_consecutive
        scatter_reduce scatter_reduce_
        take take_along_dim bincount fill_diagonal_""",
    A: "softmax log_softmax erf erf_ erfc erfc_ erfinv erfinv_",
    C: "uniform_ normal_ random_ bernoulli_ exponential_ bernoulli multinomial",
}
for _mod, _names in _FUNCTION_METHODS.items():
    for _name in _names.split():
        SAME_AS_FUNCTION[_name] = getattr(_mod, _name)


def method_signature(func: Callable) -> inspect.Signature:
    """The method form of a function's signature: first parameter renamed ``self``, no ``out``."""
    sig = inspect.signature(func)
    params = list(sig.parameters.values())
    if params and params[0].kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD):
        params[0] = params[0].replace(name="self")
    params = [p for p in params if p.name != "out"]
    return sig.replace(parameters=params, return_annotation=inspect.Signature.empty)


# -- methods with their own signatures ------------------------------------------------------












def where(self: Tensor, condition: Tensor, y: Any) -> Tensor:
    """``self`` where ``condition`` holds, else ``y``."""
    return E.where(condition, self, y)


def _cast(target: Any, name: str) -> Callable:
    def cast(self: Tensor, memory_format: Any = None) -> Tensor:
        return E.to_dtype(self, target)

    cast.__name__ = cast.__qualname__ = name
    cast.__doc__ = f"This tensor as {target!r} (itself if it already is)."
    return cast


def to(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """Convert dtype (and check the device): ``to(dtype)``, ``to(device)``, ``to(other)``, ``to(device, dtype)``."""
    dtype = kwargs.pop("dtype", None)
    copy = kwargs.pop("copy", False)
    device = kwargs.pop("device", None)
    kwargs.pop("non_blocking", None)
    kwargs.pop("memory_format", None)
    if kwargs:
        raise TypeError(f"to() got unexpected keyword argument(s) {', '.join(sorted(kwargs))}")
    for a in args:
        if isinstance(a, _dtype.dtype):
            dtype = a
        elif isinstance(a, Tensor):
            dtype = a.dtype
        elif isinstance(a, (str, type(self.device))):
            device = a
        elif isinstance(a, bool):
            continue
        else:
            raise TypeError(f"to() received an invalid combination of arguments: got {type(a).__name__}")
    if device is not None:
        from ._tensor import device as _device

        _device(device)
    if dtype is None:
        return E.clone(self) if copy else self
    return E.to_dtype(self, dtype, copy=copy)


def type_as(self: Tensor, other: Tensor) -> Tensor:
    """This tensor converted to ``other``'s dtype."""
    return E.to_dtype(self, other.dtype)


def new_tensor(self: Tensor, data: Any, *, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """A new tensor from ``data`` with this tensor's dtype by default."""
    return C.tensor(data, dtype=dtype if dtype is not None else self.dtype, requires_grad=requires_grad)


def new_zeros(self: Tensor, *size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """Zeros of ``size`` with this tensor's dtype by default."""
    return C.zeros(*size, dtype=dtype if dtype is not None else self.dtype, requires_grad=requires_grad)


def new_ones(self: Tensor, *size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """Ones of ``size`` with this tensor's dtype by default."""
    return C.ones(*size, dtype=dtype if dtype is not None else self.dtype, requires_grad=requires_grad)


def new_empty(self: Tensor, *size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """An uninitialised tensor of ``size`` with this tensor's dtype by default."""
    return C.empty(*size, dtype=dtype if dtype is not None else self.dtype, requires_grad=requires_grad)


def new_full(self: Tensor, size: Any, fill_value: Any, *, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """``fill_value`` of ``size`` with this tensor's dtype by default."""
    return C.full(size, fill_value, dtype=dtype if dtype is not None else self.dtype, requires_grad=requires_grad)


def index_add_(self: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: Any = 1) -> Tensor:
    """In-place :func:`index_add`."""
    return E.inplace_apply(self, I.index_add, (dim, index, source), {"alpha": alpha}, "index_add_")


def index_fill_(self: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    """In-place :func:`index_fill`."""
    return E.inplace_apply(self, I.index_fill, (dim, index, value), {}, "index_fill_")


def apply_(self: Tensor, callable: Callable) -> Tensor:  # noqa: A002
    """Apply a Python function to every element in place (slow; for tests and debugging)."""
    from .ops._util import bump_version, check_inplace, writable

    check_inplace(self, "apply_")
    a = writable(self)
    flat = a.reshape(-1)
    for i, v in enumerate(flat.tolist()):
        flat[i] = callable(v)
    if not np.shares_memory(flat, a):
        a[...] = flat.reshape(a.shape)
    bump_version(self)
    return self


# -- operators ------------------------------------------------------------------------------

_NUMBER = (int, float, bool, complex, np.number, np.bool_)
_OPERAND_TYPES = (Tensor,) + _NUMBER
_COMMON = frozenset({Tensor, float, int})


def _operand(other: Any) -> bool:
    return type(other) in _COMMON or isinstance(other, _OPERAND_TYPES)


def _binary(name: str, func: Callable, reflected: bool = False) -> Callable:
    if reflected:

        def op(self: Tensor, other: Any) -> Any:
            if type(other) not in _COMMON and not isinstance(other, _OPERAND_TYPES):
                return NotImplemented
            return func(other, self) if isinstance(other, Tensor) else _reflected(func, self, other)

    else:

        def op(self: Tensor, other: Any) -> Any:
            if type(other) not in _COMMON and not isinstance(other, _OPERAND_TYPES):
                return NotImplemented
            return func(self, other)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"The ``{name}`` operator."
    return op


def _reflected(func: Callable, self: Tensor, scalar: Any) -> Tensor:
    """``scalar <op> self`` for functions whose first argument must be a tensor."""
    if func is E.div:  # torch computes ``scalar / t`` as ``t.reciprocal() * scalar`` (its rounding too)
        return E.mul(E.reciprocal(self), scalar)
    if func is E.sub:
        return rename_grad_fn(func(scalar, self), "RsubBackward1")  # torch records ``scalar - t`` as rsub
    if func in (E.floor_divide, E.remainder, E.pow):
        return func(scalar, self)
    if func in (E.add, E.mul, E.bitwise_and, E.bitwise_or, E.bitwise_xor, E.eq, E.ne):
        return func(self, scalar)
    if func in (E.bitwise_left_shift, E.bitwise_right_shift):
        return func(scalar, self)
    raise TypeError(f"unsupported operand for reflected {func.__name__}")


def _inplace(name: str, func: Callable) -> Callable:
    def op(self: Tensor, other: Any) -> Any:
        if not _operand(other):
            return NotImplemented
        return func(self, other)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"The ``{name}`` operator (in place)."
    return op


def _matmul_op(self: Tensor, other: Any) -> Any:
    """The ``@`` operator."""
    if not isinstance(other, Tensor):
        return NotImplemented
    return L.matmul(self, other)


def _rmatmul_op(self: Tensor, other: Any) -> Any:
    """The reflected ``@`` operator."""
    if not isinstance(other, Tensor):
        return NotImplemented
    return L.matmul(other, self)


def _bitwise_inplace(func: Callable, name: str) -> Callable:
    def op(self: Tensor, other: Any) -> Tensor:
        return E.inplace_apply(self, func, (other,), {}, name)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"In-place :func:`{name[:-1]}`."
    return op


def _unary_inplace(func: Callable, name: str) -> Callable:
    def op(self: Tensor) -> Tensor:
        return E.inplace_apply(self, func, (), {}, name)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"In-place :func:`{name[:-1]}`."
    return op


class _ZeroGradBackward(Node):
    """Backward of an in-place comparison: the result (0/1 written into self) has zero gradient everywhere."""

    __slots__ = ("metas",)

    def backward(self, g: Tensor) -> tuple:
        from ._tensor import _wrap

        return tuple(_wrap(np.zeros(*m)) if m is not None and self.needs(i) else None for i, m in enumerate(self.metas))


def _compare_inplace(func: Callable, name: str, title: str) -> Callable:
    """``self.eq_(other)`` and friends: 1/0 in self's dtype; like torch, recorded with a zero gradient."""
    nodes = [type(f"{title}Backward{k}", (_ZeroGradBackward,), {"__slots__": ()}) for k in (0, 1)]

    def compare(x: Tensor, other: Any) -> Tensor:
        r = func(x, other)
        other_t = isinstance(other, Tensor)
        if GRAD.enabled and (x._requires_grad or (other_t and other._requires_grad)):
            out, node = record(nodes[other_t], r._data.astype(x._data.dtype), (x, other))
            node.metas = [(x._data.shape, x._data.dtype), (other._data.shape, other._data.dtype) if other_t else None]
            return out
        return r

    def op(self: Tensor, other: Any) -> Tensor:
        return E.inplace_apply(self, compare, (other,), {}, name)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"In-place :func:`{name[:-1]}`: 1 where it holds, 0 elsewhere, in this tensor's dtype."
    return op


_TITLES = {"eq": "Eq", "ne": "Ne", "not_equal": "Ne", "lt": "Lt", "less": "Lt", "le": "Le", "less_equal": "Le",
           "gt": "Gt", "greater": "Gt", "ge": "Ge", "greater_equal": "Ge"}
# comparisons and logic written back into ``self`` (as 1/0 in its own dtype); torch keeps the previous history
# for the logical ones
_INPLACE_LOGIC = {name + "_": _compare_inplace(getattr(E, name), name + "_", title) for name, title in _TITLES.items()}
_INPLACE_LOGIC.update({name + "_": _bitwise_inplace(getattr(E, name), name + "_")
                       for name in ("logical_and", "logical_or", "logical_xor")})
_INPLACE_LOGIC["logical_not_"] = _unary_inplace(E.logical_not, "logical_not_")
_INPLACE_LOGIC["bitwise_not_"] = _unary_inplace(E.bitwise_not, "bitwise_not_")


def new(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """Legacy constructor with this tensor's dtype: ``t.new(2, 3)`` (uninitialised), ``t.new([1, 2])`` (data)."""
    from ._size import Size

    kwargs.pop("device", None)
    if kwargs:
        raise TypeError(f"new() got an unexpected keyword argument '{next(iter(kwargs))}'")
    dtype = self.dtype
    if not args:
        return C.empty(0, dtype=dtype)
    if len(args) == 1:
        a = args[0]
        if isinstance(a, Tensor):
            return E.to_dtype(a.detach(), dtype)
        if isinstance(a, Size):
            return C.empty(*a, dtype=dtype)
        if isinstance(a, (list, tuple, np.ndarray)):
            return C.tensor(a, dtype=dtype)
    return C.empty(*args, dtype=dtype)


def sum_to_size(self: Tensor, *size: Any) -> Tensor:
    """Sum this tensor down to ``size`` (the reverse of expanding ``size`` to this shape)."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    return R.sum_to_size(self, size)


def is_signed(self: Tensor) -> bool:
    """Whether the dtype is signed (every dtype but ``bool`` and ``uint8``)."""
    return self.dtype.is_signed


def is_same_size(self: Tensor, other: Tensor) -> bool:
    """Whether ``other`` has the same shape."""
    if not isinstance(other, Tensor):
        raise TypeError(f"is_same_size(): argument 'other' (position 1) must be Tensor, not {type(other).__name__}")
    return self._data.shape == other._data.shape


bitwise_and_ = _bitwise_inplace(E.bitwise_and, "bitwise_and_")
bitwise_or_ = _bitwise_inplace(E.bitwise_or, "bitwise_or_")
bitwise_xor_ = _bitwise_inplace(E.bitwise_xor, "bitwise_xor_")
bitwise_left_shift_ = _bitwise_inplace(E.bitwise_left_shift, "bitwise_left_shift_")
bitwise_right_shift_ = _bitwise_inplace(E.bitwise_right_shift, "bitwise_right_shift_")


def _unary_op(name: str, func: Callable) -> Callable:
    def op(self: Tensor) -> Tensor:
        return func(self)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"The ``{name}`` operator."
    return op


def _contains(self: Tensor, element: Any) -> bool:
    """``element in self``: whether any element equals it."""
    if isinstance(element, (Tensor,) + _NUMBER):
        return bool(E.eq(self, element)._data.any())
    raise RuntimeError(
        f"Tensor.__contains__ only supports Tensor or scalar, but you passed in a {type(element)}."
    )


def _reversed(self: Tensor) -> Tensor:
    """``reversed(self)``: dim 0 flipped."""
    if self._data.ndim == 0:
        return self
    return S.flip(self, 0)


OPERATORS: dict[str, Callable] = {
    "__add__": _binary("__add__", E.add),
    "__radd__": _binary("__radd__", E.add, reflected=True),
    "__iadd__": _inplace("__iadd__", E.add_),
    "__sub__": _binary("__sub__", E.sub),
    "__rsub__": _binary("__rsub__", E.sub, reflected=True),
    "__isub__": _inplace("__isub__", E.sub_),
    "__mul__": _binary("__mul__", E.mul),
    "__rmul__": _binary("__rmul__", E.mul, reflected=True),
    "__imul__": _inplace("__imul__", E.mul_),
    "__truediv__": _binary("__truediv__", E.div),
    "__rtruediv__": _binary("__rtruediv__", E.div, reflected=True),
    "__itruediv__": _inplace("__itruediv__", E.div_),
    "__floordiv__": _binary("__floordiv__", E.floor_divide),
    "__rfloordiv__": _binary("__rfloordiv__", E.floor_divide, reflected=True),
    "__ifloordiv__": _inplace("__ifloordiv__", E.floor_divide_),
    "__mod__": _binary("__mod__", E.remainder),
    "__rmod__": _binary("__rmod__", E.remainder, reflected=True),
    "__imod__": _inplace("__imod__", E.remainder_),
    "__pow__": _binary("__pow__", E.pow),
    "__rpow__": _binary("__rpow__", E.pow, reflected=True),
    "__ipow__": _inplace("__ipow__", E.pow_),
    "__matmul__": _matmul_op,
    "__rmatmul__": _rmatmul_op,
    "__lshift__": _binary("__lshift__", E.bitwise_left_shift),
    "__rlshift__": _binary("__rlshift__", E.bitwise_left_shift, reflected=True),
    "__ilshift__": _inplace("__ilshift__", _bitwise_inplace(E.bitwise_left_shift, "bitwise_left_shift_")),
    "__rshift__": _binary("__rshift__", E.bitwise_right_shift),
    "__rrshift__": _binary("__rrshift__", E.bitwise_right_shift, reflected=True),
    "__irshift__": _inplace("__irshift__", _bitwise_inplace(E.bitwise_right_shift, "bitwise_right_shift_")),
    "__and__": _binary("__and__", E.bitwise_and),
    "__rand__": _binary("__rand__", E.bitwise_and, reflected=True),
    "__iand__": _inplace("__iand__", bitwise_and_),
    "__or__": _binary("__or__", E.bitwise_or),
    "__ror__": _binary("__ror__", E.bitwise_or, reflected=True),
    "__ior__": _inplace("__ior__", bitwise_or_),
    "__xor__": _binary("__xor__", E.bitwise_xor),
    "__rxor__": _binary("__rxor__", E.bitwise_xor, reflected=True),
    "__ixor__": _inplace("__ixor__", bitwise_xor_),
    "__eq__": _binary("__eq__", E.eq),
    "__ne__": _binary("__ne__", E.ne),
    "__lt__": _binary("__lt__", E.lt),
    "__le__": _binary("__le__", E.le),
    "__gt__": _binary("__gt__", E.gt),
    "__ge__": _binary("__ge__", E.ge),
    "__neg__": _unary_op("__neg__", E.neg),
    "__pos__": _unary_op("__pos__", E.positive),
    "__abs__": _unary_op("__abs__", E.abs),
    "__invert__": _unary_op("__invert__", E.bitwise_not),
    "__getitem__": I.getitem,
    "__setitem__": I.setitem,
    "__contains__": _contains,
    "__reversed__": _reversed,
}
OPERATORS["__matmul__"].__name__ = OPERATORS["__matmul__"].__qualname__ = "__matmul__"
OPERATORS["__rmatmul__"].__name__ = OPERATORS["__rmatmul__"].__qualname__ = "__rmatmul__"
OPERATORS["__contains__"].__name__ = OPERATORS["__contains__"].__qualname__ = "__contains__"
OPERATORS["__reversed__"].__name__ = OPERATORS["__reversed__"].__qualname__ = "__reversed__"

# Methods with their own signature (raw implementations).
OWN_METHODS: dict[str, Callable] = {
    "where": where,
    "to": to,
    "type_as": type_as,
    "new_tensor": new_tensor,
    "new_zeros": new_zeros,
    "new_ones": new_ones,
    "new_empty": new_empty,
    "new_full": new_full,
    "index_add_": index_add_,
    "index_fill_": index_fill_,
    "apply_": apply_,
    "new": new,
    "sum_to_size": sum_to_size,
    "is_signed": is_signed,
    "is_same_size": is_same_size,
    **_INPLACE_LOGIC,
    "bitwise_and_": bitwise_and_,
    "bitwise_or_": bitwise_or_,
    "bitwise_xor_": bitwise_xor_,
    "bitwise_left_shift_": bitwise_left_shift_,
    "bitwise_right_shift_": bitwise_right_shift_,
    "double": _cast(_dtype.float64, "double"),
    "float": _cast(_dtype.float32, "float"),
    "half": _cast(_dtype.float16, "half"),
    "long": _cast(_dtype.int64, "long"),
    "int": _cast(_dtype.int32, "int"),
    "short": _cast(_dtype.int16, "short"),
    "char": _cast(_dtype.int8, "char"),
    "byte": _cast(_dtype.uint8, "byte"),
    "bool": _cast(_dtype.bool, "bool"),
    "cfloat": _cast(_dtype.complex64, "cfloat"),
    "cdouble": _cast(_dtype.complex128, "cdouble"),
}
