"""``NestedIOFunction``: the legacy autograd Function whose inputs and outputs may be nested lists and tuples.

torch keeps the class for backward compatibility only; in torch 2.13 calling an instance reaches internals
that no longer exist (an AttributeError). Here the legacy API works as documented: subclasses implement
``forward_extended(self, *nested_inputs)`` and ``backward_extended(self, *nested_grads)`` as instance methods,
an instance is called once on the (nested) inputs, and ``save_for_backward``, ``saved_tensors``,
``mark_dirty`` and ``mark_non_differentiable`` take and give nested structures. New code should use
``Function`` with static methods.
"""

from __future__ import annotations

from typing import Any, Iterator

from .._registry import AUTOGRAD, public
from .._tensor import Tensor
from .function import Function


def _iter_tensors(obj: Any) -> Iterator[Tensor]:
    if isinstance(obj, Tensor):
        yield obj
    elif isinstance(obj, (list, tuple)):
        for o in obj:
            yield from _iter_tensors(o)
    elif isinstance(obj, dict):
        for o in obj.values():
            yield from _iter_tensors(o)


def _iter_none_tensors(obj: Any) -> Iterator[Tensor | None]:
    if obj is None or isinstance(obj, Tensor):
        yield obj
    else:
        for o in obj:
            yield from _iter_none_tensors(o)


def _unflatten(flat: tuple, structure: Any) -> Any:
    """``structure`` with its tensors replaced, in order, by the items of ``flat`` (Nones stay None)."""
    items = iter(flat)

    def rebuild(obj: Any) -> Any:
        if obj is None:
            return None
        if isinstance(obj, (list, tuple)):
            return type(obj)(rebuild(o) for o in obj)
        return next(items)

    return rebuild(structure)


def _map_tensor_data(obj: Any) -> Any:
    if isinstance(obj, Tensor):
        return obj.data
    if isinstance(obj, (list, tuple)):
        return type(obj)(_map_tensor_data(o) for o in obj)
    return obj


class _NestedApply(Function):
    """Runs a NestedIOFunction instance's extended forward and backward on the flattened tensors."""

    @staticmethod
    def forward(ctx: Any, fn: "NestedIOFunction", *flat: Tensor) -> Any:
        fn._ctx = ctx
        ctx._nested_fn = fn
        nested = _map_tensor_data(_unflatten(flat, fn._nested_input))
        result = fn.forward_extended(*nested)
        del fn._nested_input
        fn._nested_output = result
        ctx.save_for_backward(*fn.__dict__.pop("to_save", ()))
        ctx.mark_dirty(*fn.__dict__.pop("dirty_tensors", ()))
        ctx.mark_non_differentiable(*fn.__dict__.pop("non_differentiable", ()))
        return tuple(_iter_tensors(result))

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> Any:
        fn: NestedIOFunction = ctx._nested_fn
        nested = _unflatten(grads, fn._nested_output)
        result = fn.backward_extended(*nested)
        return (None, *_iter_none_tensors(result))


@public(namespace=AUTOGRAD)
class NestedIOFunction(Function):
    """A legacy Function with instance methods and nested inputs and outputs (see the module's docstring)."""

    _nested_input: Any
    _nested_output: Any
    _to_save_nested: Any
    _ctx: Any

    def __call__(self, *input: Any) -> Any:  # noqa: A002
        self._nested_input = input
        flat_output = _NestedApply.apply(self, *_iter_tensors(input))
        return _unflatten(flat_output, self._nested_output)

    def forward_extended(self, *input: Any) -> Any:  # noqa: A002
        """User-defined forward on the nested inputs (their data, detached)."""
        raise NotImplementedError

    def backward_extended(self, *grad_output: Any) -> Any:
        """User-defined backward: the gradients of the nested inputs, in their structure (None where none)."""
        raise NotImplementedError

    def save_for_backward(self, *args: Any) -> None:
        """Save (nested) tensors for ``backward_extended``."""
        self.to_save = tuple(_iter_tensors(args))
        self._to_save_nested = args

    @property
    def saved_tensors(self) -> Any:
        """What ``save_for_backward`` was given, in the same structure."""
        return _unflatten(self._ctx.saved_tensors, self._to_save_nested)

    def mark_dirty(self, *args: Any, **kwargs: Any) -> None:
        """Mark (nested) tensors as modified in place by ``forward_extended``."""
        self.dirty_tensors = tuple(_iter_tensors((args, kwargs)))

    def mark_non_differentiable(self, *args: Any, **kwargs: Any) -> None:
        """Mark (nested) outputs as not differentiable."""
        self.non_differentiable = tuple(_iter_tensors((args, kwargs)))
