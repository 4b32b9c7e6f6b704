"""Tensor methods and operators with implementations of their own (not a function's method form).

Each is declared with the op registry like any op; ``tensorlib/__init__``
attaches every declared method to :class:`Tensor`. Methods that are the
function of the same name (``t.add(x)``) are declared next to the function.
"""

from __future__ import annotations

import builtins
from typing import Any, Callable

import numpy as np

from . import _dtype
from ._accelerator import accel
from ._autograd.graph import rename_grad_fn
from ._layout import check_layout
from ._memory_format import check_memory_format, check_rank, memory_format as _MemoryFormat, preserve_format
from ._registry import op
from ._size import Size
from ._tensor import _CPU, Tensor, _new, bump_version, check_device, device as _device, legacy_type_name
from .ops import broadcast, comparison, power, selection, unary
from .ops._pointwise import ZeroGradBackward, _meta, inplace_apply
from .ops._util import GRAD, check_inplace, dtypes_of as _dtypes_of, record, tensor_arg, writable
from .ops.arithmetic import add, div, floor_divide, mul, neg, remainder, sub
from .ops.comparison import (
    bitwise_and,
    bitwise_left_shift,
    bitwise_not,
    bitwise_or,
    bitwise_right_shift,
    bitwise_xor,
    eq,
    ge,
    gt,
    le,
    lt,
    ne,
)
from .ops.conversion import clone, positive, to_dtype
from .ops.creation import empty, full, ones, tensor, zeros
from .ops.indexing import index_add, index_fill
from .ops.inplace import add_, div_, floor_divide_, mul_, pow_, remainder_, sub_
from .ops.linalg import matmul
from .ops.shape import flip
from .ops.unary import reciprocal

# -- methods with their own signatures ------------------------------------------------------


@op(variants="method")
def where(self: Tensor, condition: Tensor, y: Any) -> Tensor:
    """``self`` where ``condition`` holds, else ``y``."""
    return selection.where(condition, self, y)


def _cast(target: Any, name: str) -> Callable:
    def cast(self: Tensor, memory_format: _MemoryFormat = preserve_format) -> Tensor:
        check_rank(check_memory_format(memory_format, name), self._data.ndim)
        return to_dtype(self, target)

    cast.__name__ = cast.__qualname__ = name
    cast.__doc__ = f"This tensor as {target!r} (itself if it already is)."
    return op(variants="method")(cast)


for _name, _target in (("double", _dtype.float64), ("float", _dtype.float32), ("half", _dtype.float16),
                       ("long", _dtype.int64), ("int", _dtype.int32), ("short", _dtype.int16), ("char", _dtype.int8),
                       ("byte", _dtype.uint8), ("bool", _dtype.bool), ("cfloat", _dtype.complex64),
                       ("cdouble", _dtype.complex128)):
    _cast(_target, _name)


@op(variants="method")
def to(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """Convert dtype (and check the device): ``to(dtype)``, ``to(device)``, ``to(other)``, ``to(device, dtype)``."""
    dtype = kwargs.pop("dtype", None)
    copy = kwargs.pop("copy", False)
    device = kwargs.pop("device", None)
    kwargs.pop("non_blocking", None)
    fmt = check_memory_format(kwargs.pop("memory_format", None), "to")
    check_rank(fmt, self._data.ndim)
    if kwargs:
        raise TypeError(f"to() got unexpected keyword argument(s) {', '.join(sorted(kwargs))}")
    for a in args:
        if isinstance(a, _dtype.dtype):
            dtype = a
        elif isinstance(a, Tensor):
            dtype = a.dtype
        elif isinstance(a, (str, _device)) or (isinstance(a, int) and not isinstance(a, bool) and device is None):
            device = a
        elif isinstance(a, bool):
            continue
        else:
            raise TypeError(f"to() received an invalid combination of arguments: got {type(a).__name__}")
    if device is not None:
        check_device(device)
    if dtype is None:
        return clone(self) if copy else self
    return to_dtype(self, dtype, copy=copy)


@op(variants="method")
def type_as(self: Tensor, other: Tensor) -> Tensor:
    """This tensor converted to ``other``'s dtype."""
    return to_dtype(self, other.dtype)


def _check_layout_and_pinning(layout: Any, pin_memory: bool, fname: str) -> None:
    check_layout(layout, fname)
    if pin_memory:
        raise RuntimeError(f"{fname}(): pin_memory=True needs an accelerator, and tensorlib runs on the CPU only")


@op(variants="method")
def new_tensor(self: Tensor, data: Any, *, dtype: Any = None, device: Any = None, requires_grad: bool = False,
               layout: Any = None, pin_memory: bool = False) -> Tensor:
    """A new tensor from ``data`` with this tensor's dtype by default."""
    _check_layout_and_pinning(layout, pin_memory, "new_tensor")
    return tensor(data, dtype=dtype if dtype is not None else self.dtype, device=_CPU if device is None else device,
                       requires_grad=requires_grad)


@op(variants="method")
def new_zeros(self: Tensor, *size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False,
              layout: Any = None, pin_memory: bool = False) -> Tensor:
    """Zeros of ``size`` with this tensor's dtype by default."""
    _check_layout_and_pinning(layout, pin_memory, "new_zeros")
    return zeros(*size, dtype=dtype if dtype is not None else self.dtype, device=_CPU if device is None else device,
                       requires_grad=requires_grad)


@op(variants="method")
def new_ones(self: Tensor, *size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False,
             layout: Any = None, pin_memory: bool = False) -> Tensor:
    """Ones of ``size`` with this tensor's dtype by default."""
    _check_layout_and_pinning(layout, pin_memory, "new_ones")
    return ones(*size, dtype=dtype if dtype is not None else self.dtype, device=_CPU if device is None else device,
                      requires_grad=requires_grad)


@op(variants="method")
def new_empty(self: Tensor, *size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False,
              layout: Any = None, pin_memory: bool = False) -> Tensor:
    """An uninitialised tensor of ``size`` with this tensor's dtype by default."""
    _check_layout_and_pinning(layout, pin_memory, "new_empty")
    return empty(*size, dtype=dtype if dtype is not None else self.dtype, device=_CPU if device is None else device,
                       requires_grad=requires_grad)


@op(variants="method")
def new_full(self: Tensor, size: Any, fill_value: Any, *, dtype: Any = None, device: Any = None, requires_grad: bool = False,
             layout: Any = None, pin_memory: bool = False) -> Tensor:
    """``fill_value`` of ``size`` with this tensor's dtype by default."""
    _check_layout_and_pinning(layout, pin_memory, "new_full")
    return full(size, fill_value, dtype=dtype if dtype is not None else self.dtype, device=_CPU if device is None else device,
                                 requires_grad=requires_grad)


@op(variants="method")
def index_add_(self: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: Any = 1) -> Tensor:
    """In-place :func:`index_add`."""
    return inplace_apply(self, index_add, (dim, index, source), {"alpha": alpha}, "index_add_")


@op(variants="method")
def index_fill_(self: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    """In-place :func:`index_fill`."""
    return inplace_apply(self, index_fill, (dim, index, value), {}, "index_fill_")


@op(variants="method")
def apply_(self: Tensor, callable: Callable) -> Tensor:  # noqa: A002
    """Apply a Python function to every element in place (slow; for tests and debugging)."""
    check_inplace(self, "apply_")
    if not builtins.callable(callable):
        raise TypeError(f"apply_(): argument 'callable' must be callable, not {type(callable).__name__}")
    a = writable(self)
    flat = a.reshape(-1)
    for i, v in enumerate(flat.tolist()):
        flat[i] = callable(v)
    if not np.shares_memory(flat, a):
        a[...] = flat.reshape(a.shape)
    bump_version(self)
    return self


def _map_operand(self: Tensor, other: Any, fname: str) -> np.ndarray:
    if not isinstance(other, Tensor):
        raise TypeError(f"{fname}(): argument 'tensor' must be Tensor, not {type(other).__name__}")
    if other._data.dtype != self._data.dtype:
        raise TypeError(f"{fname}: expected {legacy_type_name(self._data.dtype)} for 'other' "
                        f"(got {legacy_type_name(other._data.dtype)})")
    return broadcast.expand(other, self._data.shape)._data


def _map_into(self: Tensor, fname: str, callable: Callable, *operands: np.ndarray) -> Tensor:  # noqa: A002
    if self._requires_grad:
        raise RuntimeError(f"Can't call {fname}() on Variable that requires grad. Use var.detach().{fname}() instead.")
    if not builtins.callable(callable):
        raise TypeError(f"'{type(callable).__name__}' object is not callable")
    a = writable(self)
    values = [callable(*vs) for vs in zip(a.reshape(-1).tolist(), *(o.reshape(-1).tolist() for o in operands))]
    a[...] = np.array(values, dtype=object).astype(a.dtype).reshape(a.shape) if values else a
    return self  # torch's map_ leaves the version counter alone


@op(variants="method")
def map_(self: Tensor, tensor: Tensor, callable: Callable) -> Tensor:  # noqa: A002
    """``self[i] = callable(self[i], tensor[i])`` for every element (``tensor`` broadcast to this shape); Python
    numbers in and out, the results cast to this tensor's dtype. Slow: for tests and debugging, as torch's."""
    return _map_into(self, "map_", callable, _map_operand(self, tensor, "map_"))


@op(variants="method")
def map2_(self: Tensor, x: Tensor, y: Tensor, callable: Callable) -> Tensor:  # noqa: A002
    """``self[i] = callable(self[i], x[i], y[i])`` for every element (see :meth:`map_`)."""
    return _map_into(self, "map2_", callable, _map_operand(self, x, "map2_"), _map_operand(self, y, "map2_"))


# -- operators ------------------------------------------------------------------------------

ndarray = np.ndarray
_NUMBER = (int, float, bool, complex, np.number, np.bool_)
_OPERAND_TYPES = (Tensor,) + _NUMBER
_COMMON = frozenset({Tensor, float, int})


def _operand(other: Any) -> bool:
    return type(other) in _COMMON or isinstance(other, _OPERAND_TYPES)


# The same-dtype path of the binary operators (see _binary), run inside the operator's dispatch wrapper
# (protocol.wrap's ``inline``): on small tensors a call frame is a tenth of the operator's cost.
_SAME_DTYPE_PATH = """\
if type(other) is _Tensor and type(self) is _Tensor:
    _a = self._data
    _b = other._data
    _dt = _a.dtype
    if _dt is _b.dtype and _dt in _dtypes and not (self._requires_grad or other._requires_grad):
        try:
            _r = _ufunc(_a, _b)
        except ValueError:  # shapes that do not broadcast: the general path raises torch's error
            return _general(self, other)
        _t = _new(_Tensor)
        _t._data = _r if type(_r) is _ndarray else _asarray(_r)
        _t._size = None
        _t._grad_fn = None
        _t._requires_grad = False
        _t._vc = None
        _t._base = None
        _t._view_version = None
        return _t
"""
# The same path in tensorlib._accel (its C twin, ``same_dtype``: change both together): None when it does not apply,
# and the wrapper goes on to the impl. The compiled path also takes a Python number next to a floating point tensor
# (``_scalars``: the dtypes for which the impl computes ``ufunc(a, number)``; the Python path leaves those to it).
_SAME_DTYPE_PATH_COMPILED = """\
if type(self) is _Tensor:  # (a subclass skips the call: it dispatches)
    _r = _same_dtype(self, other, _ufunc, _dtypes, False, _scalars)
    if _r is not None:
        return _r
"""
# arithmetic whose impl computes ``ufunc(a, number)`` for a Python float (or an int within int64) and a floating
# point tensor (see binary_arrays), so the compiled path may take those: the comparisons may not (a float beyond a
# float32's range compares unlike its rounding)
_SCALAR_KINDS = "fc"


def _binary(name: str, func: Callable, reflected: bool = False, same_dtype: tuple[Any, str] | None = None,
            scalars: bool = False) -> Callable:
    """The operator ``name`` calling ``func``; ``NotImplemented`` for operands that are neither tensors nor numbers.

    ``same_dtype=(ufunc, kinds)`` declares that on two plain tensors of one dtype of
    those kinds, with no gradient to record, ``func`` computes exactly ``ufunc``:
    the operator's wrapper then calls it directly (the per-call cost of small tensors).
    ``scalars=True`` declares the same of a plain floating point tensor and a Python
    number (taken by the compiled path only). A reflected operator (``number + t``) with
    ``same_dtype`` must be commutative: it computes ``ufunc(t, number)``, and only that
    (its other operand is never a plain tensor).
    """
    if reflected:

        def op(self: Tensor, other: Any) -> Tensor:
            if type(other) not in _COMMON and not isinstance(other, _OPERAND_TYPES):
                return NotImplemented
            return func(other, self) if isinstance(other, Tensor) else _reflected(func, self, other)

    else:

        def op(self: Tensor, other: Any) -> Tensor:
            if type(other) not in _COMMON and not isinstance(other, _OPERAND_TYPES):
                return NotImplemented
            return func(self, other)

    if same_dtype is not None:
        ufunc, kinds = same_dtype
        if accel is not None:
            scalar_kinds = "".join(k for k in kinds if k in _SCALAR_KINDS) if scalars or reflected else ""
            op._dispatch_inline = (_SAME_DTYPE_PATH_COMPILED, {  # type: ignore[attr-defined]
                "_Tensor": Tensor, "_same_dtype": accel.same_dtype, "_ufunc": ufunc,
                "_dtypes": frozenset() if reflected else _dtypes_of(kinds),
                "_scalars": _dtypes_of(scalar_kinds) if scalar_kinds else None,
            })
        elif not reflected:
            op._dispatch_inline = (_SAME_DTYPE_PATH, {  # type: ignore[attr-defined]
                "_Tensor": Tensor, "_ufunc": ufunc, "_dtypes": _dtypes_of(kinds), "_new": _new, "_ndarray": ndarray,
                "_asarray": np.asarray, "_general": func,
            })
    if hasattr(op, "_dispatch_inline"):
        # both paths return only for exact Tensors (and numbers): they run before the wrapper's type checks
        op._dispatch_inline_first = True  # type: ignore[attr-defined]
    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"The ``{name}`` operator."
    return op


def _reflected(func: Callable, self: Tensor, scalar: Any) -> Tensor:
    """``scalar <op> self`` for functions whose first argument must be a tensor."""
    if func is div:  # torch computes ``scalar / t`` as ``t.reciprocal() * scalar`` (its rounding too)
        return mul(reciprocal(self), scalar)
    if func is sub:
        return rename_grad_fn(func(scalar, self), "RsubBackward1")  # torch records ``scalar - t`` as rsub
    if func in (floor_divide, remainder, power.pow):
        return func(scalar, self)
    if func in (add, mul, bitwise_and, bitwise_or, bitwise_xor, eq, ne):
        return func(self, scalar)
    if func in (bitwise_left_shift, bitwise_right_shift):
        return func(scalar, self)
    raise TypeError(f"unsupported operand for reflected {func.__name__}")


def _inplace(name: str, func: Callable) -> Callable:
    def op(self: Tensor, other: Any) -> Tensor:
        if not _operand(other):
            return NotImplemented
        return func(self, other)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"The ``{name}`` operator (in place)."
    return op


def _matmul_op(self: Tensor, other: Any) -> Tensor:
    """The ``@`` operator."""
    if not isinstance(other, Tensor):
        return NotImplemented
    return matmul(self, other)


def _rmatmul_op(self: Tensor, other: Any) -> Tensor:
    """The reflected ``@`` operator."""
    if not isinstance(other, Tensor):
        return NotImplemented
    return matmul(other, self)


def _bitwise_inplace(func: Callable, name: str) -> Callable:
    def op(self: Tensor, other: Any) -> Tensor:
        return inplace_apply(self, func, (other,), {}, name)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"In-place :func:`{name[:-1]}`."
    return op


def _compare_inplace(func: Callable, name: str, title: str) -> Callable:
    """``self.eq_(other)`` and friends: 1/0 in self's dtype; like torch, recorded with a zero gradient."""
    nodes = [type(f"{title}Backward{k}", (ZeroGradBackward,), {"__slots__": ()}) for k in (0, 1)]

    def compare(x: Tensor, other: Any) -> Tensor:
        r = func(x, other)
        other_t = isinstance(other, Tensor)
        if GRAD.enabled and (x._requires_grad or (other_t and other._requires_grad)):
            out, node = record(nodes[other_t], r._data.astype(x._data.dtype), (x, other))
            node.metas = (_meta(x), _meta(other))
            return out
        return r

    def op(self: Tensor, other: Any) -> Tensor:
        return inplace_apply(self, compare, (other,), {}, name)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"In-place :func:`{name[:-1]}`: 1 where it holds, 0 elsewhere, in this tensor's dtype."
    return op


# comparisons written back into ``self`` (as 1/0 in its own dtype), recorded with a zero gradient as in torch
for _name, _title, _alias in (("eq", "Eq", None), ("ne", "Ne", "not_equal"), ("lt", "Lt", "less"),
                              ("le", "Le", "less_equal"), ("gt", "Gt", "greater"), ("ge", "Ge", "greater_equal")):
    op(variants="method", aliases=(_alias + "_",) if _alias else ())(
        _compare_inplace(getattr(comparison, _name), _name + "_", _title)
    )


@op(variants="method")
def new(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """Legacy constructor with this tensor's dtype: ``t.new(2, 3)`` (uninitialised), ``t.new([1, 2])`` (data)."""
    check_device(kwargs.pop("device", None) or _CPU)
    if kwargs:
        raise TypeError(f"new() got an unexpected keyword argument '{next(iter(kwargs))}'")
    dtype = self.dtype
    if not args:
        return empty(0, dtype=dtype)
    if len(args) == 1:
        a = args[0]
        if isinstance(a, Tensor):
            return to_dtype(a.detach(), dtype)
        if isinstance(a, Size):
            return empty(*a, dtype=dtype)
        if isinstance(a, (list, tuple, np.ndarray)):
            return tensor(a, dtype=dtype)
    return empty(*args, dtype=dtype)


@op(variants="method")
def sum_to_size(self: Tensor, *size: Any) -> Tensor:
    """Sum this tensor down to ``size`` (the reverse of expanding ``size`` to this shape)."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    return broadcast.sum_to_size(self, size)


@op(variants="function method")
def is_signed(input: Tensor) -> bool:
    """Whether the dtype is signed (every dtype but ``bool`` and ``uint8``)."""
    return tensor_arg(input, "is_signed").dtype.is_signed


@op(variants="function method")
def is_same_size(input: Tensor, other: Tensor) -> bool:
    """Whether ``other`` has the same shape."""
    x = tensor_arg(input, "is_same_size")
    if not isinstance(other, Tensor):
        raise TypeError(f"is_same_size(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")
    return x._data.shape == other._data.shape


@op(name="detach")
def detach_function(input: Tensor) -> Tensor:
    """:meth:`Tensor.detach`: a tensor sharing ``input``'s memory, cut from the graph."""
    return tensor_arg(input, "detach").detach()


@op(name="detach_")
def detach_inplace_function(input: Tensor) -> Tensor:
    """:meth:`Tensor.detach_`: cut ``input`` from the graph in place, making it a leaf."""
    return tensor_arg(input, "detach_").detach_()


@op(name="get_device")
def get_device_function(input: Tensor) -> int:
    """The index of ``input``'s device: -1 for the CPU, where every tensorlib tensor is."""
    return tensor_arg(input, "get_device").get_device()


@op(name="is_inference")
def is_inference_function(input: Tensor) -> bool:
    """Whether ``input`` is an inference tensor: never here (see :meth:`Tensor.is_inference`)."""
    return tensor_arg(input, "is_inference").is_inference()


def _unary_op(name: str, func: Callable) -> Callable:
    def op(self: Tensor) -> Tensor:
        return func(self)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"The ``{name}`` operator."
    return op


def _contains(self: Tensor, element: Any) -> bool:
    """``element in self``: whether any element equals it."""
    if isinstance(element, (Tensor,) + _NUMBER):
        return bool(eq(self, element)._data.any())
    raise RuntimeError(
        f"Tensor.__contains__ only supports Tensor or scalar, but you passed in a {type(element)}."
    )


def _reversed(self: Tensor) -> Tensor:
    """``reversed(self)``: dim 0 flipped."""
    if self._data.ndim == 0:
        return self
    return flip(self, 0)


_contains.__name__ = _contains.__qualname__ = "__contains__"
_reversed.__name__ = _reversed.__qualname__ = "__reversed__"
_matmul_op.__name__ = _matmul_op.__qualname__ = "__matmul__"
_rmatmul_op.__name__ = _rmatmul_op.__qualname__ = "__rmatmul__"
_rtruediv_op = _binary("__rtruediv__", div, reflected=True)

for _operator in (
    _binary("__add__", add, same_dtype=(np.add, "biufc"), scalars=True),
    _binary("__radd__", add, reflected=True, same_dtype=(np.add, "biufc")), _inplace("__iadd__", add_),
    _binary("__sub__", sub, same_dtype=(np.subtract, "iufc"), scalars=True),
    _binary("__rsub__", sub, reflected=True), _inplace("__isub__", sub_),
    _binary("__mul__", mul, same_dtype=(np.multiply, "biufc"), scalars=True),
    _binary("__rmul__", mul, reflected=True, same_dtype=(np.multiply, "biufc")), _inplace("__imul__", mul_),
    _binary("__truediv__", div, same_dtype=(np.true_divide, "fc"), scalars=True), _inplace("__itruediv__", div_),
    _binary("__floordiv__", floor_divide), _binary("__rfloordiv__", floor_divide, reflected=True),
    _inplace("__ifloordiv__", floor_divide_),
    _binary("__mod__", remainder), _binary("__rmod__", remainder, reflected=True),
    _inplace("__imod__", remainder_),
    _binary("__pow__", power.pow), _binary("__rpow__", power.pow, reflected=True), _inplace("__ipow__", pow_),
    _matmul_op, _rmatmul_op,
    _binary("__lshift__", bitwise_left_shift), _binary("__rlshift__", bitwise_left_shift, reflected=True),
    _inplace("__ilshift__", _bitwise_inplace(bitwise_left_shift, "bitwise_left_shift_")),
    _binary("__rshift__", bitwise_right_shift), _binary("__rrshift__", bitwise_right_shift, reflected=True),
    _inplace("__irshift__", _bitwise_inplace(bitwise_right_shift, "bitwise_right_shift_")),
    _binary("__and__", bitwise_and), _binary("__rand__", bitwise_and, reflected=True),
    _inplace("__iand__", _bitwise_inplace(bitwise_and, "bitwise_and_")),
    _binary("__or__", bitwise_or), _binary("__ror__", bitwise_or, reflected=True),
    _inplace("__ior__", _bitwise_inplace(bitwise_or, "bitwise_or_")),
    _binary("__xor__", bitwise_xor), _binary("__rxor__", bitwise_xor, reflected=True),
    _inplace("__ixor__", _bitwise_inplace(bitwise_xor, "bitwise_xor_")),
    _binary("__eq__", eq, same_dtype=(np.equal, "biufc")), _binary("__ne__", ne, same_dtype=(np.not_equal, "biufc")),
    _binary("__lt__", lt, same_dtype=(np.less, "biuf")), _binary("__le__", le, same_dtype=(np.less_equal, "biuf")),
    _binary("__gt__", gt, same_dtype=(np.greater, "biuf")), _binary("__ge__", ge, same_dtype=(np.greater_equal, "biuf")),
    _unary_op("__neg__", neg), _unary_op("__pos__", positive), _unary_op("__abs__", unary.abs),
    _unary_op("__invert__", bitwise_not),
    _contains, _reversed,
):
    op(variants="method", name=_operator.__name__)(_operator)

# torch's old name for the reflected true division is the same method (and how handlers see it)
op(variants="method", name="__rtruediv__", aliases=("__rdiv__",))(_rtruediv_op)
# Python 2's division operators, which torch still has (handlers see div and div_)
op(variants="method", name="__div__")(_binary("__div__", div))
op(variants="method", name="__idiv__")(_inplace("__idiv__", div_))


@op(variants="method")
def index(self: Tensor, positions: Any, dims: Any) -> Tensor:
    """torch's binding of positional dims to first-class dimensions (``functorch.dim``), which tensorlib does not
    have: it dispatches (a ``__torch_function__`` handler may implement it) and otherwise raises."""
    raise NotImplementedError(
        "Tensor.index binds positional dimensions to first-class dimensions (functorch.dim), which tensorlib does not "
        "implement"
    )
