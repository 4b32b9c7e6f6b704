"""``autograd.Function``: user-defined operations with a custom backward."""

from __future__ import annotations

import functools
import inspect
from typing import Any, Callable

import numpy as np

from .._dtype import FROM_NP
from .._registry import AUTOGRAD, public
from .._tensor import Tensor, _make_view, _wrap, bump_version
from ..ops.broadcast import sum_to_size
from ..ops.conversion import to_dtype
from .engine import edge
from .grad_mode import STATE
from .graph import FREED_MESSAGE, Node, SavedTensor, new_node, save_input

_LEGACY_MESSAGE = (
    "Legacy autograd function with non-static forward method is not supported. {name} must define forward and "
    "backward as @staticmethod, with a context object first:\n\n"
    "    class {name}(Function):\n"
    "        @staticmethod\n"
    "        def forward(ctx, input, ...):\n"
    "            ctx.save_for_backward(input)\n"
    "            ...\n"
    "        @staticmethod\n"
    "        def backward(ctx, grad_output):\n"
    "            input, = ctx.saved_tensors\n"
    "            ...\n\n"
    "and be called as {name}.apply(input, ...) instead of {name}()(input, ...)."
)


@public(namespace=AUTOGRAD)
class FunctionCtx:
    """The ``ctx`` methods available inside ``forward`` (and ``setup_context``)."""

    def save_for_backward(self, *tensors: Tensor | None) -> None:
        """Save tensors (inputs or outputs) for ``backward``; read them back as ``ctx.saved_tensors``."""
        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(
                    f"save_for_backward can only save variables, but argument {i} is of type {type(t).__name__}"
                )
        self._to_save = tensors

    def save_for_forward(self, *tensors: Tensor | None) -> None:
        self._saved_for_forward = tensors

    def mark_dirty(self, *args: Tensor) -> None:
        """Declare inputs that ``forward`` modified in place (they must also be returned)."""
        self._dirty = {id(t) for t in args}

    def mark_non_differentiable(self, *args: Tensor) -> None:
        """Declare outputs that have no gradient; they will not require grad."""
        self._non_differentiable = {id(t) for t in args}

    def set_materialize_grads(self, value: bool) -> None:
        """Whether ``backward`` gets zero tensors (True, the default) or None for outputs without a gradient."""
        self._materialize_grads = bool(value)

    def mark_shared_storage(self, *pairs: Any) -> None:
        raise RuntimeError("mark_shared_storage is deprecated: tensors with shared storage are detected automatically")


class BackwardCFunction(Node, FunctionCtx):
    """The ``ctx`` of one ``Function.apply`` call, which is also its graph node (``<NameBackward>``)."""

    _forward_cls: Any = None
    runs_without_grads = True  # backward sees zeros (or None without materialized grads)

    def __init__(self) -> None:
        self.next_functions = ()
        self._freed = False
        self._hooks = None
        self._to_save: tuple = ()
        self._saved: tuple = ()
        self._dirty: set = set()
        self._non_differentiable: set = set()
        self._materialize_grads = True
        self._output_meta: list = []
        self._input_meta: list = []
        self.needs_input_grad: tuple = ()

    def __repr__(self) -> str:
        return f"<tensorlib.autograd.function.{type(self).__name__} object at {hex(id(self))}>"

    @property
    def num_outputs(self) -> int:  # type: ignore[override]
        return len(self._output_meta)

    @property
    def saved_tensors(self) -> tuple:
        """The tensors given to ``save_for_backward``, checked for in-place modification since."""
        if self._freed:
            raise RuntimeError(FREED_MESSAGE)
        return tuple(None if s is None else s.unpack(self) for s in self._saved)

    @property
    def saved_variables(self) -> tuple:
        return self.saved_tensors

    def release(self) -> None:
        self._freed = True
        self._saved = ()

    def apply(self, grads: list) -> tuple:
        cls = self._forward_cls
        name = type(self).__name__
        if self._materialize_grads:
            grads = [
                g if g is not None or m is None else _wrap(np.zeros(m[0], dtype=m[1]))
                for g, m in zip(grads, self._output_meta)
            ]
        result = cls.backward(self, *grads)
        if not isinstance(result, tuple):
            result = (result,)
        n = len(self._input_meta)
        if len(result) != n:
            if len(result) > n and all(r is None for r in result[n:]):
                result = result[:n]
            else:
                raise RuntimeError(
                    f"function {name} returned an incorrect number of gradients (expected {n}, got {len(result)})"
                )
        return tuple(self._check_grad(i, g, name) for i, g in enumerate(result))

    def _check_grad(self, i: int, g: Any, name: str) -> Any:
        if g is None:
            return None
        meta = self._input_meta[i]
        if meta is None:
            raise RuntimeError(
                f"function {name} returned a gradient different than None at position {i + 1}, but the "
                "corresponding forward input was not a Variable"
            )
        if not isinstance(g, Tensor):
            raise RuntimeError(
                f"function {name} returned a gradient at index {i} that is not a Tensor or None "
                f"(expected Variable or None (got {type(g).__name__}))"
            )
        if self.next_functions[i][0] is None:
            return None
        shape, npdt = meta
        if g._data.shape != shape:
            if _expandable(shape, g._data.shape):
                g = sum_to_size(g, shape)
            else:
                raise RuntimeError(
                    f"Function {name} returned an invalid gradient at index {i} - got {list(g._data.shape)} "
                    f"but expected shape compatible with {list(shape)}"
                )
        if g._data.dtype != npdt:
            g = to_dtype(g, FROM_NP[npdt])
        if not STATE.enabled:
            # A fresh object: the engine may keep it as a leaf's .grad, and the
            # user's backward may still hold (or have saved) the tensor it returned.
            g = _wrap(g._data)
        return g


def _expandable(shape: tuple, to: tuple) -> bool:
    if len(shape) > len(to):
        return False
    for s, t in zip(reversed(shape), reversed(to)):
        if s != t and s != 1:
            return False
    return True


class FunctionMeta(type):
    """Gives every Function subclass its own node class, named ``<Name>Backward``."""

    def __init__(cls, name: str, bases: tuple, attrs: dict) -> None:
        super().__init__(name, bases, attrs)
        cls._backward_cls = type(f"{name}Backward", (BackwardCFunction,), {"_forward_cls": cls})


@public(namespace=AUTOGRAD)
class Function(metaclass=FunctionMeta):
    """Base class for differentiable operations with a hand-written backward.

    Subclasses define ``forward(ctx, *args, **kwargs)`` and
    ``backward(ctx, *grad_outputs)`` as static methods and are called through
    ``apply``. Alternatively ``forward(*args)`` plus
    ``setup_context(ctx, inputs, output)`` separate computing from saving.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # Instantiation is allowed (torch allows it); calling the instance is the legacy API.
        pass

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(_LEGACY_MESSAGE.format(name=type(self).__name__))

    @staticmethod
    def forward(ctx: Any, *args: Any, **kwargs: Any) -> Any:
        """Compute the outputs; runs with gradient recording off."""
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple, output: Any) -> Any:
        """Save what backward needs, when ``forward`` does not take ``ctx``."""
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        """Return one gradient per ``forward`` input (None for inputs without one)."""
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom autograd.Function to use it "
            "with backward mode AD."
        )

    vjp = backward

    @staticmethod
    def jvp(ctx: Any, *grad_inputs: Any) -> Any:
        raise NotImplementedError("forward-mode AD (jvp) is not supported by tensorlib")

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        """Run ``forward`` and, if any input requires grad, record the call in the graph."""
        uses_setup = cls.setup_context is not Function.setup_context
        if kwargs:
            args = _bind(cls.forward, args, kwargs, skip_ctx=not uses_setup)
            kwargs = {}
        ctx = cls._backward_cls()
        needs = tuple(isinstance(a, Tensor) and a._requires_grad for a in args)
        recording = STATE.enabled and any(needs)
        ctx.needs_input_grad = needs
        prev = STATE.enabled
        STATE.enabled = False
        try:
            if uses_setup:
                output = cls.forward(*args)
                cls.setup_context(ctx, args, output)
            else:
                output = cls.forward(ctx, *args)
        finally:
            STATE.enabled = prev
        return _wrap_outputs(ctx, args, output, recording)


def _bind(forward: Callable, args: tuple, kwargs: dict, skip_ctx: bool) -> tuple:
    sig = inspect.signature(forward)
    params = list(sig.parameters.values())
    if skip_ctx:
        params = params[1:]
    try:
        bound = inspect.Signature(params).bind(*args, **kwargs)
    except TypeError as e:
        raise TypeError(f"{forward.__qualname__}() {e}") from None
    bound.apply_defaults()
    return bound.args


def _wrap_outputs(ctx: BackwardCFunction, args: tuple, output: Any, recording: bool) -> Any:
    is_tuple = isinstance(output, tuple)
    outputs = output if is_tuple else (output,)
    input_ids = {id(a) for a in args if isinstance(a, Tensor)}

    if recording:
        ctx.next_functions = tuple(
            edge(a) if isinstance(a, Tensor) and a._requires_grad else (None, 0) for a in args
        )
        ctx._input_meta = [(a._data.shape, a._data.dtype) if isinstance(a, Tensor) else None for a in args]
    dirty = ctx._dirty
    non_diff = ctx._non_differentiable
    results = []
    out_meta: list[tuple[tuple[int, ...], np.dtype] | None] = []
    originals = []
    for i, o in enumerate(outputs):
        originals.append(o)
        if not isinstance(o, Tensor):
            results.append(o)
            out_meta.append(None)
            continue
        is_input = id(o) in input_ids
        is_dirty = id(o) in dirty
        differentiable = o._data.dtype.kind in "fc" and id(o) not in non_diff
        if is_dirty and recording and o._grad_fn is None and o._requires_grad:
            raise RuntimeError("a leaf Variable that requires grad has been used in an in-place operation.")
        if is_input and not is_dirty:
            o = _make_view(o, o._data)  # returning an input unchanged gives a new tensor viewing it
        if recording:
            if differentiable:
                o._grad_fn = ctx
                o._requires_grad = True
                if i or o._meta is not None:
                    o._get_meta().output_nr = i
            elif not is_input or is_dirty:
                o._grad_fn = None
                o._requires_grad = False
        elif not is_input and not is_dirty:
            o._requires_grad = False
        if is_dirty:
            if o._vc is None:
                bump_version(o)
        results.append(o)
        # every Tensor output gets a zero gradient when materialising (torch does so even
        # for non-differentiable and integer outputs)
        out_meta.append((o._data.shape, o._data.dtype))
    ctx._output_meta = out_meta
    if recording:
        by_id = {id(orig): (j, res) for j, (orig, res) in enumerate(zip(originals, results)) if isinstance(res, Tensor)}
        saved: list[SavedTensor | None] = []
        for t in ctx._to_save:
            if t is None:
                saved.append(None)
            elif id(t) in by_id and by_id[id(t)][1]._grad_fn is ctx:
                j, res = by_id[id(t)]
                saved.append(SavedTensor(res, True, j))
            else:
                saved.append(save_input(t))
        ctx._saved = tuple(saved)
    else:
        ctx._saved = tuple(None if t is None else save_input(t) for t in ctx._to_save)
    ctx._to_save = ()
    return tuple(results) if is_tuple else results[0]


class _OnceDifferentiableBackward(Node):
    """Stands in for a backward marked once-differentiable: differentiating it again is an error."""

    __slots__ = ("fn_name",)
    fn_name: str

    def apply(self, grads: list) -> tuple:
        raise RuntimeError(
            f"trying to differentiate twice a function that was marked with @once_differentiable ({self.fn_name})"
        )


@public(namespace=AUTOGRAD)
def once_differentiable(fn: Callable) -> Callable:
    """Decorate a ``backward`` that is not itself differentiable: it runs without recording."""

    @functools.wraps(fn)
    def wrapper(ctx: Any, *args: Any) -> Any:
        prev = STATE.enabled
        STATE.enabled = False
        try:
            outputs = fn(ctx, *args)
        finally:
            STATE.enabled = prev
        if not prev:
            return outputs
        grad_inputs = [a for a in args if isinstance(a, Tensor) and a._requires_grad]
        if not grad_inputs:
            return outputs

        node = new_node(_OnceDifferentiableBackward, tuple(edge(a) for a in grad_inputs))
        node.fn_name = getattr(fn, "__qualname__", "backward")
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        wrapped = []
        for o in outs:
            if isinstance(o, Tensor) and o._data.dtype.kind in "fc":
                o = _wrap(o._data)
                o._grad_fn = node
                o._requires_grad = True
            wrapped.append(o)
        return wrapped[0] if single else tuple(wrapped)

    return wrapper
