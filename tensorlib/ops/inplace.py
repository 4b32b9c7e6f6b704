"""In-place ops: add_, sub_, mul_, div_ with a fast path that writes straight into the tensor's memory when nothing
needs recording; pow_, remainder_, floor_divide_, fmod_, float_power_, lerp_, nan_to_num_, clamp_min_, clamp_max_
and the aliases; zero_, fill_, copy_.

The machinery every in-place op uses (``inplace_apply``, ``commit_inplace``) is in ``_pointwise``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._autograd.graph import Node
from .._autograd.views import rebase_history
from .._registry import op
from .._tensor import Tensor, bump_version
from . import broadcast
from ._pointwise import _meta, inplace_apply, reduce_to
from ._util import GRAD, Meta, broadcast_error, check_inplace, fit_scalar, record, tensor_arg, type_title, writable
from .arithmetic import _check_alpha, add, div, floor_divide, fmod, mul, remainder, sub
from .conversion import zeros_like
from .power import float_power, pow
from .selection import clamp_, lerp, nan_to_num

# -- fast in-place arithmetic (optimizers, init, the seeds' ``output += ...``) -------------


def _fast_inplace(self: Tensor, other: Any, fname: str, ufunc: Any, alpha: Any = 1) -> Tensor | None:
    """Apply ``ufunc`` straight into ``self``'s memory when nothing needs recording; else None."""
    if GRAD.enabled and (self._requires_grad or (isinstance(other, Tensor) and other._requires_grad)):
        return None
    a = self._data
    b: np.ndarray | int | float
    if isinstance(other, Tensor):
        b = other._data
        if b.dtype is not a.dtype and not np.can_cast(b.dtype, a.dtype, casting="same_kind") and b.ndim != 0:
            return None
    elif isinstance(other, (bool, int, float)):
        b = other
        if type(b) is int:
            if not -9223372036854775808 <= b < 18446744073709551616:
                return None  # the general path raises torch's overflow error
        elif isinstance(b, float) and a.dtype.kind in "iub":
            return None
    else:
        return None
    if alpha != 1:
        try:
            b = b * alpha
        except OverflowError:  # alpha outside an integer tensor's dtype: the general path wraps it as torch
            return None
    if not a.flags.writeable:
        writable(self)
    try:
        ufunc(a, b, out=a, casting="same_kind")
    except ValueError:
        try:
            shape = np.broadcast_shapes(a.shape, np.shape(b))
        except ValueError:
            raise broadcast_error(a, b) from None
        raise RuntimeError(
            f"output with shape {list(a.shape)} doesn't match the broadcast shape {list(shape)}"
        ) from None
    except (TypeError, OverflowError):  # no same-kind loop, or a Python int outside the dtype: the general path
        return None
    bump_version(self)
    return self


@op(variants="method")
def add_(self: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    """In-place ``self += alpha * other``."""
    if isinstance(alpha, Tensor) or alpha != 1:
        _check_alpha(tensor_arg(self, "add_"), other, alpha, "add_")
        alpha = alpha.item() if isinstance(alpha, Tensor) else alpha
    done = _fast_inplace(self, other, "add_", np.add, alpha)
    if done is not None:
        return done
    return inplace_apply(self, add, (other,), {"alpha": alpha}, "add_")


@op(variants="method", aliases=("subtract_",))
def sub_(self: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    """In-place ``self -= alpha * other``."""
    if isinstance(alpha, Tensor) or alpha != 1:
        _check_alpha(tensor_arg(self, "sub_"), other, alpha, "sub_")
        alpha = alpha.item() if isinstance(alpha, Tensor) else alpha
    if type(other) is bool or (isinstance(other, Tensor) and other._data.dtype.kind == "b"):
        return inplace_apply(self, sub, (other,), {"alpha": alpha}, "sub_")  # sub's error for bool operands
    done = _fast_inplace(self, other, "sub_", np.subtract, alpha)
    if done is not None:
        return done
    return inplace_apply(self, sub, (other,), {"alpha": alpha}, "sub_")


@op(variants="method", aliases=("multiply_",))
def mul_(self: Tensor, other: Any) -> Tensor:
    """In-place ``self *= other``."""
    done = _fast_inplace(self, other, "mul_", np.multiply)
    if done is not None:
        return done
    return inplace_apply(self, mul, (other,), {}, "mul_")


@op(variants="method", aliases=("divide_", "true_divide_"))
def div_(self: Tensor, other: Any, *, rounding_mode: str | None = None) -> Tensor:
    """In-place ``self /= other``."""
    if rounding_mode is None and self._data.dtype.kind in "fc":
        done = _fast_inplace(self, other, "div_", np.true_divide)
        if done is not None:
            return done
    return inplace_apply(self, div, (other,), {"rounding_mode": rounding_mode}, "div_")


@op(variants="method")
def pow_(self: Tensor, exponent: Any) -> Tensor:
    """In-place ``self **= exponent``."""
    return inplace_apply(self, pow, (exponent,), {}, "pow_")


@op(variants="method")
def remainder_(self: Tensor, other: Any) -> Tensor:
    """In-place :func:`remainder`."""
    return inplace_apply(self, remainder, (other,), {}, "remainder_")


@op(variants="method")
def floor_divide_(self: Tensor, other: Any) -> Tensor:
    """In-place :func:`floor_divide`."""
    return inplace_apply(self, floor_divide, (other,), {}, "floor_divide_")


@op(variants="method")
def lerp_(self: Tensor, end: Tensor, weight: Any) -> Tensor:
    """In-place :func:`lerp`."""
    return inplace_apply(self, lerp, (end, weight), {}, "lerp_")


@op(variants="method")
def fmod_(self: Tensor, other: Any) -> Tensor:
    """In-place :func:`fmod`."""
    return inplace_apply(self, fmod, (other,), {}, "fmod_")


@op(variants="method")
def float_power_(self: Tensor, exponent: Any) -> Tensor:
    """In-place :func:`float_power` (``self`` must already be double precision)."""
    a = tensor_arg(self, "float_power_", "self")._data
    cplx = a.dtype.kind == "c" or isinstance(exponent, complex) or (
        isinstance(exponent, Tensor) and exponent._data.dtype.kind == "c"
    )
    need = np.dtype(np.complex128 if cplx else np.float64)
    if a.dtype != need:
        raise RuntimeError(
            f"the base given to float_power_ has dtype {type_title(a.dtype)} but the operation's result requires "
            f"dtype {type_title(need)}"
        )
    return inplace_apply(self, float_power, (exponent,), {}, "float_power_")


@op(variants="function method")
def nan_to_num_(self: Tensor, nan: float = 0.0, posinf: float | None = None, neginf: float | None = None) -> Tensor:
    """In-place :func:`nan_to_num`."""
    return inplace_apply(self, nan_to_num, (nan, posinf, neginf), {}, "nan_to_num_")


@op(variants="function method")
def clamp_min_(self: Tensor, min: Any) -> Tensor:  # noqa: A002
    """In-place :func:`clamp_min`."""
    return clamp_(self, min=min)


@op(variants="function method")
def clamp_max_(self: Tensor, max: Any) -> Tensor:  # noqa: A002
    """In-place :func:`clamp_max`."""
    return clamp_(self, max=max)



@op(variants="method")
def zero_(self: Tensor) -> Tensor:
    """Fill with zeros in place."""
    return fill_(self, 0)


class FillBackward(Node):
    __slots__ = ("value_meta",)
    value_meta: Meta | None

    def apply(self, grads: list) -> tuple:
        g = grads[0]
        gv = broadcast.sum(g) if self.needs(1) else None
        return zeros_like(g), gv


@op(variants="method")
def fill_(self: Tensor, value: Any) -> Tensor:
    """Fill with ``value`` (a number or a 0-dim tensor) in place."""
    tensor_arg(self, "fill_", "self")
    check_inplace(self, "fill_")
    if isinstance(value, Tensor):
        if value._data.ndim != 0:
            raise RuntimeError(
                f"fill_ only supports 0-dimension value tensor but got tensor with {value._data.ndim} dimensions."
            )
        v = value._data  # a tensor's value is cast unchecked, as torch copies tensors
    elif isinstance(value, (bool, int, float, complex, np.number)):
        v = fit_scalar(value, self._data.dtype)
    else:
        raise TypeError(f"fill_(): argument 'value' must be Number, not {type(value).__name__}")
    a = writable(self)
    np.copyto(a, v, casting="unsafe")
    bump_version(self)
    if GRAD.enabled and (self._requires_grad or (isinstance(value, Tensor) and value._requires_grad)):
        res, node = record(FillBackward, a.copy(), (self, value))

        rebase_history(self, res)
    return self


class CopyBackwards(Node):
    __slots__ = ("src_meta",)
    src_meta: Meta

    def apply(self, grads: list) -> tuple:
        g = grads[0]
        gs = reduce_to(g, self.src_meta) if self.needs(1) else None
        return (zeros_like(g) if self.needs(0) else None), gs


@op(variants="method")
def copy_(self: Tensor, src: Tensor, non_blocking: bool = False) -> Tensor:
    """Copy ``src`` (broadcast, cast to this dtype) into this tensor in place."""
    tensor_arg(self, "copy_", "self")
    s = tensor_arg(src, "copy_", "src", 1)
    check_inplace(self, "copy_")
    a = writable(self)
    try:
        b = np.broadcast_to(s._data, a.shape)
    except ValueError:
        raise RuntimeError(
            f"The size of tensor a ({a.shape[-1] if a.ndim else 1}) must match the size of tensor b "
            f"({s._data.shape[-1] if s._data.ndim else 1}) at non-singleton dimension {max(a.ndim - 1, 0)}"
        ) from None
    if b.dtype.kind == "c" and a.dtype.kind != "c":
        b = b.real
    np.copyto(a, b, casting="unsafe")
    bump_version(self)
    if GRAD.enabled and (self._requires_grad or s._requires_grad) and a.dtype.kind in "fc":
        res, node = record(CopyBackwards, a.copy(), (self, s))
        node.src_meta = _meta(s)

        rebase_history(self, res)
    return self
