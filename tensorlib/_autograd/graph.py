"""Graph nodes (``grad_fn`` objects), saved tensors and hook handles."""

from __future__ import annotations

import itertools
from typing import Any, Callable

from .._registry import AUTOGRAD, public
from .._tensor import _wrap, legacy_type_name

_new_object = object.__new__

FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors after they have "
    "already been freed). Saved intermediate values of the graph are freed when you call .backward() or "
    "autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or "
    "if you need to access saved tensors after calling backward."
)

_handle_ids = itertools.count()


class RemovableHandle:
    """Returned by ``register_hook``: ``remove()`` unregisters the hook."""

    __slots__ = ("_store", "id")

    def __init__(self, store: dict) -> None:
        self.id = next(_handle_ids)
        self._store = store

    def remove(self) -> None:
        self._store.pop(self.id, None)

    def __enter__(self) -> "RemovableHandle":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.remove()


def add_hook(store: dict, fn: Callable) -> RemovableHandle:
    if not callable(fn):
        raise TypeError(f"hook must be callable, got {type(fn).__name__}")
    handle = RemovableHandle(store)
    store[handle.id] = fn
    return handle


class NodeHooks:
    """Hooks of one node; created on first registration."""

    __slots__ = ("pre", "post", "tensor_pre", "retain")

    def __init__(self) -> None:
        self.pre: dict = {}
        self.post: dict = {}
        self.tensor_pre: dict[int, dict] = {}
        self.retain: dict[int, Any] = {}


@public(namespace=AUTOGRAD)
class Node:
    """A recorded operation: the ``grad_fn`` of the tensors it produced.

    ``next_functions`` holds one ``(node, output_nr)`` edge per differentiable
    input (``(None, 0)`` where no gradient is needed). Subclasses implement
    ``apply(grads) -> tuple`` with one gradient per edge; builtin ops implement
    ``backward(grad)`` for their single output.
    """

    __slots__ = ("next_functions", "_freed", "_hooks", "__weakref__")
    next_functions: tuple[tuple[Node | None, int], ...]
    _freed: bool
    _hooks: NodeHooks | None
    num_outputs = 1
    _saved_slots: tuple[str, ...] = ()
    # Reached with no gradient defined for any output, a node passes "no gradient" on (builtin
    # formulas are linear in their output gradients); Python Functions run anyway, as in torch.
    runs_without_grads = False

    def name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {hex(id(self))}>"

    def apply(self, grads: list) -> tuple:
        return self.backward(grads[0])  # type: ignore[attr-defined]

    def __call__(self, *grads: Any) -> Any:
        out = self.apply(list(grads))
        return out[0] if len(out) == 1 else out

    def release(self) -> None:
        """Free the tensors backward saved (called after backward without ``retain_graph``).

        Each saved value is replaced by a marker that raises torch's "backward
        through the graph a second time" error when loaded (torch saves Python
        scalar operands as tensors too, so they count as saved).
        """
        self._freed = True
        for slot in self._saved_slots:
            if getattr(self, slot, None) is not None:
                setattr(self, slot, FREED)

    def needs(self, i: int) -> bool:
        """Whether input ``i`` needs a gradient."""
        return self.next_functions[i][0] is not None

    def _hooks_obj(self) -> NodeHooks:
        h = self._hooks
        if h is None:
            h = self._hooks = NodeHooks()
        return h

    def register_hook(self, fn: Callable) -> RemovableHandle:
        """Run ``fn(grad_inputs, grad_outputs)`` after this node; a non-None return replaces grad_inputs."""
        return add_hook(self._hooks_obj().post, fn)

    def register_prehook(self, fn: Callable) -> RemovableHandle:
        """Run ``fn(grad_outputs)`` before this node; a non-None return replaces grad_outputs."""
        return add_hook(self._hooks_obj().pre, fn)

    @property
    def metadata(self) -> dict:
        d: dict | None = getattr(self, "_metadata", None)
        if d is None:
            d = {}
            try:
                # Only nodes with an instance __dict__ (Python Function subclasses) can keep it.
                setattr(self, "_metadata", d)
            except AttributeError:
                pass
        return d


def node_name(op_name: str) -> str:
    """torch's name for the backward node of op ``op_name``: ``log1p`` -> ``Log1PBackward0``.

    Words (split at ``_``) are capitalised, and so is a letter right after a digit.
    """
    out = []
    for word in op_name.split("_"):
        chars = list(word[:1].upper() + word[1:])
        for i in range(1, len(chars)):
            if chars[i - 1].isdigit():
                chars[i] = chars[i].upper()
        out.append("".join(chars))
    return "".join(out) + "Backward0"


_NAMED: dict[tuple[type, str], type] = {}


def named_node_class(cls: type, name: str) -> type:
    """``cls`` under another name (a cached subclass adding nothing): one backward shared by sibling ops
    (maximum and minimum, amax and amin...) that torch reports under their own names."""
    if cls.__name__ == name:
        return cls
    sub = _NAMED.get((cls, name))
    if sub is None:
        sub = _NAMED[(cls, name)] = type(name, (cls,), {"__slots__": (), "__module__": cls.__module__})
    return sub


def rename_grad_fn(t: Any, name: str) -> Any:
    """Report the node that made ``t`` under ``name``, torch's name for the op ``t`` is the result of.

    For ops composed of other ops: their last step made a fresh node, which
    keeps its backward and takes the composite's name.
    """
    node = t._grad_fn
    if node is not None:
        node.__class__ = named_node_class(type(node), name)
    return t


def new_node(cls: type, next_functions: tuple) -> Any:
    """Create a node without running ``__init__`` (the hot path of every recorded op)."""
    node: Any = _new_object(cls)
    node.next_functions = next_functions
    node._freed = False
    node._hooks = None
    return node


class SavedTensor:
    """A tensor saved for backward, with the version it had when saved.

    Inputs are kept by reference. Outputs of the saving node keep only their
    data, so the node and its output do not keep each other alive; unpacking
    rebuilds a tensor whose ``grad_fn`` is the node (for double backward).
    """

    __slots__ = ("tensor", "data", "counter", "version", "output_nr", "requires_grad", "cls")

    def __init__(self, t: Any, is_output: bool, output_nr: int = 0) -> None:
        counter = t._vc
        if counter is None:
            counter = t._vc = [0]
        self.counter = counter
        self.version = counter[0]
        if is_output:
            self.tensor = None
            self.data = t._data
            self.output_nr = output_nr
            self.requires_grad = t._requires_grad
            self.cls = type(t)
        else:
            self.tensor = t

    def unpack(self, node: Node) -> Any:
        if node._freed:
            raise RuntimeError(FREED_MESSAGE)
        if self.counter[0] != self.version:
            raise RuntimeError(_modified_message(self, node))
        t = self.tensor
        if t is not None:
            return t

        t = _wrap(self.data)
        t._vc = self.counter
        if self.requires_grad:
            t._grad_fn = node
            t._requires_grad = True
            if self.output_nr:
                t._get_meta().output_nr = self.output_nr
        return t


def save_input(t: Any) -> SavedTensor:
    """``SavedTensor(t, False)`` for an op's input, without the constructor call (the hot path of recording)."""
    s = _new_object(SavedTensor)
    counter = t._vc
    if counter is None:
        counter = t._vc = [0]
    s.counter = counter
    s.version = counter[0]
    s.tensor = t
    return s


class _FreedSavedTensor(SavedTensor):
    """What a saved tensor becomes once its graph is freed: loading it raises."""

    __slots__ = ()

    def __init__(self) -> None:
        pass

    def unpack(self, node: Node) -> Any:
        raise RuntimeError(FREED_MESSAGE)


FREED = _FreedSavedTensor()


def _modified_message(saved: SavedTensor, node: Node) -> str:
    if saved.tensor is not None:
        t = saved.tensor
        data = t._data
        fn = t._grad_fn
        origin = f", which is output {t._output_nr} of {fn.name()}," if fn is not None else ""
    else:
        data = saved.data
        origin = f", which is output {saved.output_nr} of {node.name()},"
    shape = list(data.shape)
    return (
        "one of the variables needed for gradient computation has been modified by an inplace operation: "
        f"[{legacy_type_name(data.dtype)} {shape}]{origin} is at version {saved.counter[0]}; "
        f"expected version {saved.version} instead. Hint: the backtrace further above shows the operation "
        "that failed to compute its gradient. The variable in question was changed in there or anywhere later. "
        "Good luck!"
    )


def unpack(node: Node, saved: SavedTensor | None) -> Any:
    """The tensor behind ``saved`` (None stays None), checking it was not freed or modified."""
    if saved is None:
        if node._freed:
            raise RuntimeError(FREED_MESSAGE)
        return None
    return saved.unpack(node)


class NotImplementedBackward(Node):
    """torch's ``NotImplemented`` node: the result requires grad, but backward through it is an error."""

    __slots__ = ("op_name",)
    op_name: str

    def backward(self, g: Any) -> tuple:
        raise RuntimeError(f"derivative for aten::{self.op_name} is not implemented")


NOT_IMPLEMENTED = named_node_class(NotImplementedBackward, "NotImplemented")
