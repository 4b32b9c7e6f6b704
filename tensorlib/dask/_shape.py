"""Shape functions on DaskTensors: reshape/view/flatten/squeeze/unsqueeze, transpose/permute/movedim, expand,
basic indexing, narrow/select/flip/roll, split/chunk/unbind, cat/stack.

They move data without computing on it, so Dask's own array operations do the work. The result shape (and any
error) is tensorlib's: the same function runs first on a zero-stride view of the input's full shape, which
costs no memory.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import dask.array as da

import tensorlib

from ._pointwise import pointwise
from ._tensor import HANDLED, DaskTensor, dask_array, evaluate, ghost, map_structure, standin

T = tensorlib.Tensor


def _ghost_call(func: Callable, args: tuple, kwargs: dict) -> Any:
    g_args, g_kwargs = map_structure(ghost, args, kwargs)
    return evaluate(func, g_args, g_kwargs)


def _checked(array: Any, expected: Any) -> DaskTensor:
    if tuple(array.shape) != tuple(expected):
        raise NotImplementedError(f"internal error: Dask gave shape {tuple(array.shape)}, tensorlib {tuple(expected)}")
    return DaskTensor(array)


# -- reshapes: the result is the input's elements in the same (row-major) order --------------------------------------

_RESHAPES: list[Callable[..., Any]] = [
    tensorlib.reshape, T.reshape, T.view, tensorlib.flatten, T.flatten, tensorlib.unflatten, T.unflatten,
    tensorlib.squeeze, T.squeeze, tensorlib.unsqueeze, T.unsqueeze, T.view_as, T.reshape_as, tensorlib.ravel,
    T.ravel, tensorlib.atleast_1d, tensorlib.atleast_2d, tensorlib.atleast_3d,
]


def reshape_array(array: Any, shape: tuple[int, ...]) -> Any:
    """``array.reshape(shape)``, through one dimension when Dask cannot split or merge the dimensions directly."""
    try:
        return array.reshape(shape)
    except NotImplementedError:  # Dask reshapes only by merging or splitting whole dimensions
        return array.reshape(-1).reshape(shape)


def _reshape_impl(func: Callable) -> Callable:
    def impl(*args: Any, **kwargs: Any) -> Any:
        shape = _ghost_call(func, args, kwargs).shape
        x = args[0]
        if tuple(shape) == tuple(x.shape):
            return DaskTensor(x._array)
        return _checked(reshape_array(x._array, tuple(shape)), shape)

    impl.__name__ = impl.__qualname__ = f"reshape_{func.__name__}"
    return impl


# -- permutations of the dimensions -----------------------------------------------------------------------------------

_PERMUTATIONS: list[Callable[..., Any]] = [
    tensorlib.permute, T.permute, tensorlib.transpose, T.transpose, tensorlib.swapaxes, T.swapaxes,
    tensorlib.swapdims, T.swapdims, tensorlib.t, T.t, tensorlib.movedim, T.movedim, tensorlib.moveaxis, T.moveaxis,
    tensorlib.adjoint, T.adjoint,
]


def _permutation(func: Callable, x: DaskTensor, args: tuple, kwargs: dict) -> tuple[int, ...]:
    """Which input dimension each output dimension is: the function run on a view of shape (1, 2, ..., ndim)."""
    labelled = tensorlib.zeros((), dtype=x.dtype).expand(tuple(range(1, x.ndim + 1)))
    return tuple(int(n) - 1 for n in evaluate(func, (labelled,) + args[1:], kwargs).shape)


def _permute_impl(func: Callable) -> Callable:
    def impl(*args: Any, **kwargs: Any) -> Any:
        x = args[0]
        result = _ghost_call(func, args, kwargs)
        if x.dtype.is_complex and func in (tensorlib.adjoint, T.adjoint):
            x = tensorlib.conj(x)
        return _checked(da.transpose(x._array, _permutation(func, x, args, kwargs)), result.shape)

    impl.__name__ = impl.__qualname__ = f"permute_{func.__name__}"
    return impl


# -- broadcasting ---------------------------------------------------------------------------------------------------

_EXPANSIONS: list[Callable[..., Any]] = [T.expand, T.expand_as, tensorlib.broadcast_to, T.broadcast_to]


def _expand_impl(func: Callable) -> Callable:
    def impl(*args: Any, **kwargs: Any) -> Any:
        shape = tuple(_ghost_call(func, args, kwargs).shape)
        return _checked(da.broadcast_to(args[0]._array, shape), shape)

    impl.__name__ = impl.__qualname__ = f"expand_{func.__name__}"
    return impl


for _funcs, _make in ((_RESHAPES, _reshape_impl), (_PERMUTATIONS, _permute_impl), (_EXPANSIONS, _expand_impl)):
    for _func in _funcs:
        HANDLED.implements(_func)(_make(_func))


def _transposed(self: Any, func: Callable, dims: Callable[[int], tuple[int, ...]]) -> DaskTensor:
    evaluate(func, (ghost(self),), {})  # tensorlib's errors (mT of a 1-D tensor, ...)
    conjugated: Any = tensorlib.conj(self) if self.dtype.is_complex and func in (T.H.__get__, T.mH.__get__) else self
    array = conjugated._array
    return DaskTensor(da.transpose(array, dims(self.ndim)))


def _reverse(n: int) -> tuple[int, ...]:
    return tuple(reversed(range(n)))


def _swap_last(n: int) -> tuple[int, ...]:
    return tuple(range(n - 2)) + (n - 1, n - 2) if n >= 2 else tuple(range(n))


@HANDLED.implements(T.T)
def T_(self: Any) -> Any:
    return _transposed(self, T.T.__get__, _reverse)


@HANDLED.implements(T.mT)
def mT(self: Any) -> Any:
    return _transposed(self, T.mT.__get__, _swap_last)


@HANDLED.implements(T.H)
def H(self: Any) -> Any:
    return _transposed(self, T.H.__get__, _reverse)


@HANDLED.implements(T.mH)
def mH(self: Any) -> Any:
    return _transposed(self, T.mH.__get__, _swap_last)


# -- indexing ---------------------------------------------------------------------------------------------------------


def _basic_key(key: Any) -> tuple:
    parts = key if isinstance(key, tuple) else (key,)
    for p in parts:
        if p is None or p is Ellipsis or isinstance(p, slice):
            continue
        if isinstance(p, int) and not isinstance(p, bool):
            continue
        raise NotImplementedError(
            f"indexing a DaskTensor with {type(p).__name__} (advanced indexing) is not supported: use integers, "
            "slices, None and ...")
    return parts


@HANDLED.implements(T.__getitem__)
def getitem(self: Any, key: Any) -> Any:
    parts = _basic_key(key)
    shape = evaluate(T.__getitem__, (ghost(self), key), {}).shape  # bounds, steps, too many indices
    return _checked(self._array[parts], shape)


def _normalized(index: Any, size: int) -> int:
    index = int(index)
    return index + size if index < 0 else index


@HANDLED.implements(tensorlib.select)
def select(input: Any, dim: int, index: int) -> Any:
    shape = evaluate(tensorlib.select, (ghost(input), dim, index), {}).shape
    d = int(dim) % input.ndim
    key = (slice(None),) * d + (_normalized(index, input.shape[d]),)
    return _checked(input._array[key], shape)


@HANDLED.implements(T.select)
def select_method(self: Any, dim: int, index: int) -> Any:
    return select(self, dim, index)


@HANDLED.implements(tensorlib.narrow)
def narrow(input: Any, dim: int, start: Any, length: int) -> Any:
    shape = evaluate(tensorlib.narrow, (ghost(input), dim, start, length), {}).shape
    d = int(dim) % input.ndim
    begin = _normalized(start, input.shape[d])
    key = (slice(None),) * d + (slice(begin, begin + int(length)),)
    return _checked(input._array[key], shape)


@HANDLED.implements(T.narrow)
def narrow_method(self: Any, dim: int, start: Any, length: int) -> Any:
    return narrow(self, dim, start, length)


def _dims_of(dims: Any, ndim: int) -> list[int]:
    return [int(d) % ndim for d in (dims if isinstance(dims, (list, tuple)) else (dims,))]


@HANDLED.implements(tensorlib.flip)
def flip(input: Any, dims: Any) -> Any:
    shape = evaluate(tensorlib.flip, (ghost(input), dims), {}).shape
    flipped = set(_dims_of(dims, input.ndim)) if input.ndim else set()
    key = tuple(slice(None, None, -1) if d in flipped else slice(None) for d in range(input.ndim))
    return _checked(input._array[key], shape)


@HANDLED.implements(T.flip)
def flip_method(self: Any, dims: Any) -> Any:
    return flip(self, dims)


@HANDLED.implements(tensorlib.roll)
def roll(input: Any, shifts: Any, dims: Any = None) -> Any:
    evaluate(tensorlib.roll, (standin(input), shifts, dims), {})
    axes = None if dims is None else tuple(_dims_of(dims, input.ndim))
    return DaskTensor(da.roll(input._array, shifts, axis=axes))


@HANDLED.implements(T.roll)
def roll_method(self: Any, shifts: Any, dims: Any = None) -> Any:
    return roll(self, shifts, dims)


def _pieces(func: Callable, x: DaskTensor, args: tuple, dim: int) -> tuple[DaskTensor, ...]:
    parts = _ghost_call(func, args, {})
    d = int(dim) % x.ndim
    out, begin = [], 0
    for part in parts:
        size = int(part.shape[d])
        out.append(_checked(x._array[(slice(None),) * d + (slice(begin, begin + size),)], part.shape))
        begin += size
    return tuple(out)


@HANDLED.implements(tensorlib.split)
def split(tensor: Any, split_size_or_sections: Any, dim: int = 0) -> Any:
    return _pieces(tensorlib.split, tensor, (tensor, split_size_or_sections, dim), dim)


@HANDLED.implements(T.split)
def split_method(self: Any, split_size_or_sections: Any, dim: int = 0) -> Any:
    return _pieces(T.split, self, (self, split_size_or_sections, dim), dim)


@HANDLED.implements(tensorlib.chunk)
def chunk(input: Any, chunks: int, dim: int = 0) -> Any:
    return _pieces(tensorlib.chunk, input, (input, chunks, dim), dim)


@HANDLED.implements(T.chunk)
def chunk_method(self: Any, chunks: int, dim: int = 0) -> Any:
    return _pieces(T.chunk, self, (self, chunks, dim), dim)


@HANDLED.implements(tensorlib.unbind)
def unbind(input: Any, dim: int = 0) -> Any:
    evaluate(tensorlib.unbind, (standin(input), dim), {})
    d = int(dim) % input.ndim
    return tuple(select(input, d, i) for i in range(input.shape[d]))


@HANDLED.implements(T.unbind)
def unbind_method(self: Any, dim: int = 0) -> Any:
    return unbind(self, dim)


# -- joining ----------------------------------------------------------------------------------------------------------


def _as_dtype(t: Any, dtype: tensorlib.dtype) -> Any:
    return t if t.dtype == dtype else (pointwise(T.to, (t, dtype), {}) if isinstance(t, DaskTensor) else t.to(dtype))


def _join_checks(func: Callable, tensors: Sequence[Any], dim: int) -> tensorlib.Tensor:
    """tensorlib's errors about the list and the dimension, and the promoted dtype (from one-element stand-ins)."""
    if isinstance(tensors, (DaskTensor, tensorlib.Tensor)) or not isinstance(tensors, (list, tuple)):
        return evaluate(func, (ghost(tensors), dim), {})  # raises tensorlib's TypeError
    return evaluate(func, ([standin(t) for t in tensors], dim), {})


def _cat(func: Callable, tensors: Sequence[Any], dim: int, out: Any) -> DaskTensor:
    if out is not None:
        raise NotImplementedError("tensorlib.cat: out= is not supported on a DaskTensor")
    result = _join_checks(func, tensors, dim)
    parts = [t for t in tensors if tuple(t.shape) != (0,)] or list(tensors[:1])  # 1-D empty ones are skipped
    ref = parts[0]
    d = int(dim) % ref.ndim
    for i, p in enumerate(parts):
        for k in range(ref.ndim):
            if k != d and p.shape[k] != ref.shape[k]:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. Expected size "
                                   f"{ref.shape[k]} but got size {p.shape[k]} for tensor number {i} in the list.")
    arrays = [dask_array(_as_dtype(p, result.dtype)) for p in parts]
    return DaskTensor(da.concatenate(arrays, axis=d))


def _cat_impl(func: Callable) -> Callable:
    def impl(tensors: Sequence[Any], dim: int = 0, *, out: Any = None) -> Any:
        return _cat(func, tensors, dim, out)

    return impl


for _func in (tensorlib.cat, tensorlib.concat, tensorlib.concatenate):
    if HANDLED.get(tensorlib.overrides.protocol.reported_as(_func)) is None:
        HANDLED.implements(_func)(_cat_impl(_func))


@HANDLED.implements(tensorlib.stack)
def stack(tensors: Sequence[Any], dim: int = 0, *, out: Any = None) -> Any:
    if out is not None:
        raise NotImplementedError("tensorlib.stack: out= is not supported on a DaskTensor")
    result = _join_checks(tensorlib.stack, tensors, dim)
    shape = tuple(tensors[0].shape)
    for i, t in enumerate(tensors):
        if tuple(t.shape) != shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(shape)} at entry 0 and "
                               f"{list(t.shape)} at entry {i}")
    d = int(dim) % (len(shape) + 1)
    return DaskTensor(da.stack([dask_array(_as_dtype(t, result.dtype)) for t in tensors], axis=d))


@HANDLED.implements(tensorlib.hstack)
def hstack(tensors: Sequence[Any], *, out: Any = None) -> Any:
    parts = [tensorlib.atleast_1d(t) for t in tensors]
    return _cat(tensorlib.cat, parts, 0 if parts and parts[0].ndim == 1 else 1, out)


@HANDLED.implements(tensorlib.vstack)
def vstack(tensors: Sequence[Any], *, out: Any = None) -> Any:
    return _cat(tensorlib.cat, [tensorlib.atleast_2d(t) for t in tensors], 0, out)
