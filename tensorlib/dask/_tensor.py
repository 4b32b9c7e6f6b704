"""``DaskTensor``: a tensor whose data is a ``dask.array.Array``, and the machinery its implementations share.

Every implementation builds a Dask graph whose tasks compute one chunk with tensorlib's own function on
tensors made from the chunk's NumPy data (a :class:`Kernel`), so a chunk's result is exactly what tensorlib
gives on that chunk. Shapes, dtypes and errors are decided before any graph is built, by running the same
tensorlib function on stand-ins: small tensors of the operands' dtypes, or zero-stride views of their full
shapes (which cost no memory), so a bad call raises tensorlib's own exception where it is made.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Callable, Iterator, Sequence

import dask
import dask.array as da
import numpy as np

import dispatch
import tensorlib
from tensorlib._dtype import FROM_NP
from tensorlib.overrides import protocol

__all__ = ["DaskTensor", "HANDLED", "Kernel", "from_tensor", "compute"]

# The table of implementations; filled by the modules of this package, read by ``python -m dispatch coverage``.
HANDLED = dispatch.Implementations(protocol)


class DaskTensor:
    """A tensor whose data is a ``dask.array.Array``: tensorlib functions on it build a lazy Dask graph.

    Create one with :func:`tensorlib.dask.from_tensor` (an in-memory tensor cut into chunks) or
    ``DaskTensor(array)`` (any Dask array of a tensorlib dtype, e.g. generated chunk by chunk). Results of
    tensorlib functions are DaskTensors chunked like their inputs; :meth:`compute` runs the graph on the
    active Dask scheduler (a ``distributed.Client`` if one is set) and returns a :class:`tensorlib.Tensor`.
    A DaskTensor never requires grad; functions it does not support decline, so calling them raises
    tensorlib's ``TypeError``.
    """

    __slots__ = ("_array",)

    def __init__(self, array: Any) -> None:
        if not isinstance(array, da.Array):
            raise TypeError(f"DaskTensor() expects a dask.array.Array, got {type(array).__name__}")
        if array.dtype not in FROM_NP:
            raise TypeError(f"DaskTensor(): dask array of dtype {array.dtype} has no tensorlib dtype")
        if any(isinstance(c, float) and math.isnan(c) for chunks in array.chunks for c in chunks):
            raise ValueError("DaskTensor(): the array has unknown chunk sizes; call array.compute_chunk_sizes() first")
        self._array = array

    __torch_function__ = classmethod(HANDLED.handler)

    if TYPE_CHECKING:  # the Tensor methods and operators it handles are installed by tensorlib.dask._methods
        def __getattr__(self, name: str) -> Any: ...

    __hash__ = object.__hash__  # __eq__ is elementwise, as on Tensor; identity hashing as on Tensor
    __array_priority__ = 1000  # NumPy operands defer to our reflected operators instead of computing the graph

    # -- metadata, as on Tensor (also filed in the table under Tensor's properties) ---------------------------------
    @property
    def shape(self) -> tensorlib.Size:
        """The size of each dimension (``tensorlib.Size``)."""
        return tensorlib.Size(int(n) for n in self._array.shape)

    @property
    def dtype(self) -> tensorlib.dtype:
        """The element type (``tensorlib.float32``, ...)."""
        return FROM_NP[self._array.dtype]

    @property
    def ndim(self) -> int:
        """The number of dimensions."""
        return int(self._array.ndim)

    @property
    def device(self) -> tensorlib.device:
        """Always the CPU: chunks are NumPy arrays wherever they are."""
        return tensorlib.device("cpu")

    @property
    def requires_grad(self) -> bool:
        """Always False: a DaskTensor's graph records no autograd history."""
        return False

    # -- what is not a tensorlib function: the Dask side -------------------------------------------------------
    @property
    def array(self) -> Any:
        """The ``dask.array.Array`` holding the data."""
        return self._array

    @property
    def chunks(self) -> tuple[tuple[int, ...], ...]:
        """The chunk sizes along each dimension (Dask's ``chunks``)."""
        return tuple(self._array.chunks)

    @property
    def npartitions(self) -> int:
        """The number of chunks."""
        return int(self._array.npartitions)

    def compute(self, **kwargs: Any) -> tensorlib.Tensor:
        """Run the graph (``dask.compute``; keyword arguments go to it) and return the result as a Tensor."""
        (value,) = dask.compute(self._array, **kwargs)
        return _tensor_of(value)

    def persist(self, **kwargs: Any) -> "DaskTensor":
        """Compute the chunks and keep them in the scheduler's memory (on the workers, with ``distributed``)."""
        (array,) = dask.persist(self._array, **kwargs)
        return DaskTensor(array)

    def rechunk(self, chunks: Any) -> "DaskTensor":
        """The same data cut into other chunks (``dask.array.Array.rechunk``)."""
        return DaskTensor(self._array.rechunk(chunks))

    def __iter__(self) -> Iterator["DaskTensor"]:
        return iterate_rows(self)

    def __repr__(self) -> str:
        return (f"DaskTensor(shape={list(self._array.shape)}, dtype={FROM_NP[self._array.dtype]!r}, "
                f"chunksize={tuple(int(c) for c in self._array.chunksize)}, npartitions={self._array.npartitions})")

    def __dask_tokenize__(self) -> Any:
        return ("tensorlib.dask.DaskTensor", self._array.name)


# Calls that involve another type implementing the protocol are declined: that type may not compute chunk by chunk.
HANDLED.accepts = (DaskTensor, tensorlib.Tensor)


def _tensor_of(value: Any) -> tensorlib.Tensor:
    """A Tensor owning a computed NumPy result (copied when NumPy gives a read-only or borrowed array)."""
    arr = np.asarray(value)
    if not arr.flags.writeable or not arr.flags.owndata:
        arr = arr.copy()
    return tensorlib.from_numpy(arr)


def from_tensor(tensor: Any, chunks: Any = "auto") -> DaskTensor:
    """A DaskTensor holding a copy of ``tensor`` (a Tensor or anything ``tensorlib.as_tensor`` takes) cut into
    ``chunks`` (Dask's chunk specification: ``1000``, ``(1000, -1)``, ``{0: 1000}``, ``"auto"``)."""
    t = tensor if isinstance(tensor, tensorlib.Tensor) else tensorlib.as_tensor(tensor)
    data = np.array(t.detach().numpy(), copy=True)
    return DaskTensor(da.from_array(data, chunks=chunks))


def compute(*tensors: Any, **kwargs: Any) -> tuple[Any, ...]:
    """Compute several DaskTensors in one graph run (shared work is done once); other values pass through."""
    values = dask.compute(*[t._array if isinstance(t, DaskTensor) else t for t in tensors], **kwargs)
    return tuple(_tensor_of(v) if isinstance(t, DaskTensor) else v for t, v in zip(tensors, values))


# -- chunk kernels ------------------------------------------------------------------------------------------------


class Slot:
    """Where a chunk goes in a kernel's argument template (the ``index``-th block the task receives)."""

    __slots__ = ("index",)

    def __init__(self, index: int) -> None:
        self.index = index

    def __reduce__(self) -> tuple[Any, tuple[int]]:
        return Slot, (self.index,)

    def __repr__(self) -> str:
        return f"Slot({self.index})"


class Inline:
    """A small tensor (0-d) carried in the task itself rather than as a graph key."""

    __slots__ = ("data",)

    def __init__(self, data: np.ndarray) -> None:
        self.data = data

    def __reduce__(self) -> tuple[Any, tuple[np.ndarray]]:
        return Inline, (self.data,)


def _fill(template: Any, tensors: Sequence[tensorlib.Tensor]) -> Any:
    if type(template) is Slot:
        return tensors[template.index]
    if type(template) is Inline:
        return tensorlib.from_numpy(template.data.copy())
    if type(template) in (list, tuple):
        return type(template)(_fill(v, tensors) for v in template)
    return template


def to_numpy(result: Any) -> np.ndarray:
    """The NumPy data of a kernel's tensor result, as a task returns it."""
    if isinstance(result, tensorlib.Tensor):
        return result.detach().numpy()
    return np.asarray(result)


class Kernel:
    """A picklable chunk function: ``func(*args, **kwargs)`` with the task's blocks put in the argument slots.

    Blocks arrive as NumPy arrays and become tensors sharing their memory; the function runs with grad
    recording off; ``pick`` selects one element of a tuple result; ``shape``, when given, reshapes the
    result (per-chunk partial results of a reduction keep a length-1 axis per chunk).
    """

    __slots__ = ("func", "args", "kwargs", "pick", "shape")

    def __init__(self, func: Callable, args: tuple = (), kwargs: dict | None = None, *, pick: int | None = None,
                 shape: tuple[int, ...] | None = None) -> None:
        self.func = func
        self.args = args
        self.kwargs = kwargs or {}
        self.pick = pick
        self.shape = shape

    def __call__(self, *blocks: Any) -> np.ndarray:
        tensors = [tensorlib.from_numpy(np.asarray(_gathered(b))) for b in blocks]
        args = _fill(self.args, tensors)
        kwargs = {k: _fill(v, tensors) for k, v in self.kwargs.items()}
        with tensorlib.no_grad():
            out = self.func(*args, **kwargs)
        if self.pick is not None:
            out = out[self.pick]
        data = to_numpy(out)
        return data.reshape(self.shape) if self.shape is not None else data

    def __reduce__(self) -> tuple[Any, ...]:
        return _make_kernel, (self.func, self.args, self.kwargs, self.pick, self.shape)

    def __repr__(self) -> str:
        return f"Kernel({getattr(self.func, '__qualname__', self.func)})"


def _gathered(block: Any) -> Any:
    """The block inside the one-element lists ``blockwise`` passes, unconcatenated, along the indices the output
    drops when each holds a single block (see :func:`blockwise`)."""
    while isinstance(block, list):
        (block,) = block
    return block


def _make_kernel(func: Callable, args: tuple, kwargs: dict, pick: int | None, shape: tuple | None) -> Kernel:
    return Kernel(func, args, kwargs, pick=pick, shape=shape)


# -- operands ------------------------------------------------------------------------------------------------------


def is_tensorish(value: Any) -> bool:
    """A DaskTensor or a Tensor: what takes part in a chunked computation as data."""
    return isinstance(value, (DaskTensor, tensorlib.Tensor))


def constant(tensor: tensorlib.Tensor) -> Any:
    """An in-memory tensor as a one-chunk Dask array: one graph key holds its data, whatever the chunk count.

    The key is named by the data's hash, so the same weights used twice in a graph are one key; the data is
    copied, so later in-place changes (an optimizer step) do not reach a graph already built.
    """
    data = np.array(tensor.detach().numpy(), copy=True)
    return da.from_array(data, chunks=data.shape or ())


def dask_array(value: DaskTensor | tensorlib.Tensor) -> Any:
    """The Dask array of an operand (an in-memory tensor becomes a :func:`constant`)."""
    return value._array if isinstance(value, DaskTensor) else constant(value)


class Template:
    """Arguments with their tensor operands replaced by :class:`Slot` markers, and the Dask arrays that fill them.

    0-d in-memory tensors travel inside the tasks (:class:`Inline`); other in-memory tensors become one-chunk
    arrays (:func:`constant`); DaskTensors are their arrays.
    """

    def __init__(self, args: tuple, kwargs: dict) -> None:
        self.operands: list[DaskTensor | tensorlib.Tensor] = []
        self.args = tuple(self._mark(a) for a in args)
        self.kwargs = {k: self._mark(v) for k, v in kwargs.items()}

    def _mark(self, value: Any) -> Any:
        if isinstance(value, DaskTensor) or (isinstance(value, tensorlib.Tensor) and value.dim() > 0):
            self.operands.append(value)
            return Slot(len(self.operands) - 1)
        if isinstance(value, tensorlib.Tensor):
            return Inline(np.array(value.detach().numpy(), copy=True))
        if type(value) in (list, tuple):
            return type(value)(self._mark(v) for v in value)
        return value

    def arrays(self) -> list[Any]:
        return [dask_array(v) for v in self.operands]

    def kernel(self, func: Callable, **options: Any) -> Kernel:
        return Kernel(func, self.args, self.kwargs, **options)


def standin(value: Any, fill: float = 1) -> Any:
    """A small tensor of ``value``'s dtype and number of dimensions (every size 2): enough to learn a pointwise
    function's or a reduction's result dtype and check its arguments, at no cost. (Size 2 rather than 1, so that
    reductions such as ``var`` have something to reduce and warn only when the real data would.)"""
    if isinstance(value, DaskTensor) or (isinstance(value, tensorlib.Tensor) and value.dim() > 0):
        return tensorlib.full((2,) * value.ndim, fill, dtype=value.dtype)
    return value


def ghost(value: Any) -> Any:
    """A zero-stride view of ``value``'s full shape and dtype: shape functions run on it give tensorlib's exact
    result shape and errors without allocating the data."""
    if isinstance(value, DaskTensor):
        return tensorlib.zeros((), dtype=value.dtype).expand(tuple(value.shape))
    return value


def map_structure(fn: Callable[[Any], Any], args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """``fn`` applied to each argument (inside lists and tuples too)."""

    def walk(v: Any) -> Any:
        if type(v) in (list, tuple):
            return type(v)(walk(x) for x in v)
        return fn(v)

    return tuple(walk(a) for a in args), {k: walk(v) for k, v in kwargs.items()}


def evaluate(func: Callable, args: tuple, kwargs: dict) -> Any:
    """``func`` on stand-in arguments with grad recording off."""
    with tensorlib.no_grad():
        return func(*args, **kwargs)


def checked_evaluate(func: Callable, small: tuple[tuple, dict], full: tuple[tuple, dict]) -> Any:
    """``func`` on small stand-ins; if that fails, on zero-stride views of the full shapes, so that the error
    raised is tensorlib's with the real sizes in its message (shape checks come before any computing)."""
    try:
        return evaluate(func, *small)
    except Exception as small_error:
        evaluate(func, *full)
        raise small_error


def dask_tensors(args: tuple, kwargs: dict) -> list[DaskTensor]:
    """The DaskTensors among the arguments (inside lists and tuples too)."""
    found: list[DaskTensor] = []
    map_structure(lambda v: found.append(v) if isinstance(v, DaskTensor) else None, args, kwargs)
    return found


def meta(dtype: tensorlib.dtype, ndim: int) -> np.ndarray:
    """Dask's ``meta`` for a result: an empty NumPy array of the dtype and number of dimensions."""
    return np.empty((0,) * ndim, dtype=dtype.np)


def letters(prefix: str, n: int) -> tuple[str, ...]:
    """``n`` distinct blockwise index names."""
    return tuple(f"{prefix}{i}" for i in range(n))


def blockwise(kernel: Kernel, out_ind: tuple, pairs: list[tuple[Any, tuple]], dtype: tensorlib.dtype,
              **options: Any) -> Any:
    """``dask.array.blockwise`` of a kernel, blocks concatenated along the indices the output drops.

    Dask copies even a single block when it concatenates, so when every dropped index has one block (a layer's
    weight, the features of a batch chunk: the usual case) the blocks are passed as they are.
    """
    flat = [x for pair in pairs for x in pair]
    concatenate = any(array.numblocks[i] > 1 for array, ind in pairs for i, ix in enumerate(ind) if ix not in out_ind)
    name = f"tensorlib-{getattr(kernel.func, '__name__', 'op')}-{dask.base.tokenize(kernel, out_ind, *flat, options)}"
    return da.blockwise(kernel, out_ind, *flat, dtype=dtype.np, meta=meta(dtype, len(out_ind)), concatenate=concatenate,
                        name=name, **options)


def iterate_rows(t: DaskTensor) -> Iterator[DaskTensor]:
    """``iter(t)``: the sub-tensors along dimension 0, lazily."""
    if t._array.ndim == 0:
        raise TypeError("iteration over a 0-d tensor")
    for i in range(t._array.shape[0]):
        yield DaskTensor(t._array[i])
