"""What every elementwise op shares: result and ``out=`` handling, gradient helpers, in-place machinery.

``reduce_to`` sums a broadcast gradient back to its operand's shape;
``inplace_apply`` and ``commit_inplace`` turn any out-of-place op into its
in-place form (every family's ``op_`` goes through them, and the registry
derives the simple ``op_`` variants from them).
"""

from __future__ import annotations

from typing import Any, Callable, overload

import numpy as np

from .._autograd.engine import edge
from .._autograd.graph import Node, SavedTensor, save_input
from .._autograd.views import rebase_history
from .._dtype import FROM_NP
from .._tensor import Tensor, bump_version
from ._util import (
    GRAD,
    Meta,
    Operand,
    broadcast_error,
    check_inplace,
    needs_grad,
    type_title,
    wrap,
    writable,
    write_out,
)
from .broadcast import sum_to_size
from .conversion import clone, real, to_dtype

ndarray = np.ndarray


def _arr(r: Any) -> np.ndarray:
    """NumPy returns scalars for 0-d operands; tensors always hold arrays."""
    return r if type(r) is ndarray else np.asarray(r)


@overload
def _meta(v: Tensor) -> Meta: ...
@overload
def _meta(v: Any) -> Meta | None: ...
def _meta(v: Any) -> Meta | None:
    """What a gradient for ``v`` must match: ``(shape, dtype)`` for tensors, None for scalars."""
    if isinstance(v, Tensor):
        return (v._data.shape, v._data.dtype)
    return None


def reduce_to(g: Tensor, meta: Meta) -> Tensor:
    """Sum a broadcast gradient back to an operand's shape and cast it to its dtype."""
    shape, npdt = meta
    if g._data.shape != shape:
        g = sum_to_size(g, shape)
    if g._data.dtype != npdt:
        if g._data.dtype.kind == "c" and npdt.kind != "c":
            g = real(g)  # a real operand of a complex result: its gradient is the real part, as in torch
        g = to_dtype(g, FROM_NP[npdt])
    return g


def _save(v: Any) -> Operand:
    return save_input(v) if isinstance(v, Tensor) else v


def _load(node: Node, v: Any) -> Any:
    return v.unpack(node) if isinstance(v, SavedTensor) else v


def _finish(result: Tensor, out: Any, fname: str) -> Tensor:
    return result if out is None else write_out(out, result, fname)


def logaddexp_np(a: np.ndarray, b: Any) -> np.ndarray:
    """``log(exp(a) + exp(b))`` without overflow, complex operands included.

    A complex sum is taken as ``hi + log1p(exp(lo - hi))`` around the operand of larger real part (the first on
    ties), so the imaginary part follows that operand's branch, as torch's does.
    """
    if a.dtype.kind != "c":
        return np.logaddexp(a, b)
    a, b = np.broadcast_arrays(a, np.asarray(b, dtype=a.dtype))
    first = a.real >= b.real
    hi, lo = np.where(first, a, b), np.where(first, b, a)
    with np.errstate(all="ignore"):
        r = hi + np.log1p(np.exp(lo - hi))
        # equal infinite real parts make lo - hi undefined: +inf sums the exponentials, -inf keeps the second
        same_inf = np.isinf(a.real) & (a.real == b.real)
        if same_inf.any():
            up = same_inf & (a.real > 0)
            r[up] = np.log(np.exp(a[up]) + np.exp(b[up]))
            down = same_inf & (a.real < 0)
            r[down] = b[down]
    return r


def _apply2(fn: Any, a: Any, b: Any) -> np.ndarray:
    """``fn(a, b)`` as an array, with torch's error for shapes that do not broadcast."""
    try:
        r = fn(a, b)
    except ValueError:
        raise broadcast_error(a, b) from None
    return r if type(r) is ndarray else np.asarray(r)



class ZeroGradBackward(Node):
    """For piecewise-constant ops (rounding, comparisons written in place): the gradient is zero everywhere it exists.

    ``metas`` holds each input's ``_meta``: the zero gradient's shape and dtype, None for a scalar.
    """

    __slots__ = ("metas",)
    metas: tuple[Meta | None, ...]

    def apply(self, grads: list) -> tuple:
        return tuple(
            zeros_like_meta(m) if m is not None and self.needs(i) else None for i, m in enumerate(self.metas)
        )


def zeros_like_meta(meta: Meta) -> Tensor:
    return wrap(np.zeros(meta[0], dtype=meta[1]))



def inplace_apply(self: Tensor, op: Callable, args: tuple, kwargs: dict, fname: str) -> Tensor:
    """Run an out-of-place op and write its result into ``self``, rebasing ``self``'s history.

    While recording, the op sees a snapshot of ``self`` (so saved values are the
    originals); the result's graph node becomes ``self``'s ``grad_fn``.
    """
    if not isinstance(self, Tensor):
        raise TypeError(f"{fname}(): argument 'self' must be Tensor, not {type(self).__name__}")
    check_inplace(self, fname)
    recording = GRAD.enabled and (self._requires_grad or needs_grad(*args, *kwargs.values()))
    src = _snapshot(self) if recording and self._requires_grad else self
    res = op(src, *args, **kwargs)
    return commit_inplace(self, res, fname)


def _snapshot(t: Tensor) -> Tensor:
    """``t``'s value before an in-place op, attached where ``t`` is in the graph: what the op saves and records
    its edge to. torch keeps the original internally, so its graph has the op's node right after ``t``'s (a
    recorded ``clone`` would add a CloneBackward0 between them)."""
    fn, nr = edge(t)  # (a view's history refreshed first)
    if fn is not t._grad_fn:  # a leaf (its gradient accumulator): check_inplace refused it while recording
        return clone(t)
    s = wrap(t._data.copy())
    s._requires_grad = True
    s._grad_fn = fn
    if nr:
        s._get_meta().output_nr = nr
    return s


def commit_inplace(self: Tensor, res: Tensor, fname: str) -> Tensor:
    """Copy ``res`` into ``self`` (same memory) and make ``res``'s history ``self``'s."""
    dst = writable(self)
    src = res._data
    if src.dtype != dst.dtype and not np.can_cast(src.dtype, dst.dtype, casting="same_kind"):
        raise RuntimeError(
            f"result type {type_title(src.dtype)} can't be cast to the desired output type {type_title(dst.dtype)}"
        )
    if src.shape != dst.shape:
        try:
            np.broadcast_to(src, dst.shape)
        except ValueError:
            raise RuntimeError(
                f"output with shape {list(dst.shape)} doesn't match the broadcast shape {list(src.shape)}"
            ) from None
    if dst.ndim == 0:
        dst[()] = src
    else:
        np.copyto(dst, src, casting="unsafe")
    bump_version(self)
    if res._grad_fn is not None:

        rebase_history(self, res)
    return self

