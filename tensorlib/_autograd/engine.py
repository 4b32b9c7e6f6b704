"""The backward engine: an iterative, dependency-counted walk of the graph.

No recursion, so graph depth is bounded only by memory. Each node runs once,
after every node that feeds it a gradient; gradients arriving at the same node
input are summed. Leaves accumulate into ``.grad`` through their
``AccumulateGrad`` node.

Accumulation is a commit at the end of the walk: a leaf's node runs its tensor
hooks when it is reached, but ``.grad`` (of leaves, and of non-leaves that
retain their gradient) changes only once every node has run. A backward that
raises (in a hook, a custom ``Function.backward``, an anomaly check) leaves
every ``.grad`` as it was, and a graph kept with ``retain_graph=True`` can be
run again. torch accumulates into each leaf as its node runs, so a failure
part-way leaves some leaves updated; post-accumulate-grad hooks here run after
all leaves have accumulated. The commit holds one lock, so backward passes
running in several threads into shared leaves add up exactly.
"""

from __future__ import annotations

import sys
import threading
import weakref
from typing import Any, Iterable, Sequence

import numpy as np

from .._accelerator import accel
from .._hooks import hooks
from .._registry import AUTOGRAD, op
from .._size import Size
from .._tensor import _SAME_DTYPE, Tensor, _wrap, refresh_view
from .anomaly_mode import ANOMALY, ANY_THREAD, check_outputs
from .grad_mode import ENGINE, STATE
from .graph import FREED, Node, new_node


class AccumulateGrad(Node):
    """The node of a leaf tensor: adds incoming gradients into ``variable.grad``.

    The leaf owns its node (cached in its metadata) and the node refers back
    weakly, so neither keeps the other alive in a cycle.
    """

    __slots__ = ("_variable",)
    _variable: weakref.ref[Tensor]

    @property
    def variable(self) -> Tensor | None:
        return self._variable()

    def apply(self, grads: list) -> tuple:
        pending = self._prepare(grads)
        if pending is not None:
            _commit([pending])
        return ()

    def _prepare(self, grads: list) -> tuple | None:
        """Run the leaf's tensor hooks on its gradient: the entry :func:`_commit` accumulates, or None."""
        var = self._variable()
        g = grads[0]
        if g is None or var is None:
            return None
        meta = var._get_meta()
        if meta.hooks:
            for hook in list(meta.hooks.values()):
                r = hook(g)
                if r is not None:
                    g = r
            g = _unshared(g)
        return (var, g, meta)


# Held while gradients are added into ``.grad``: NumPy releases the GIL inside large in-place additions, and a
# first gradient is stored after checking there is none, so concurrent backward passes into one leaf would
# otherwise lose updates. Only NumPy runs under it (ops, which may dispatch to user code, do not: see
# _commit_recorded); reentrant all the same, since a garbage collection there may run finalizers. Taken with
# acquire/release, which costs half as much as ``with``.
_ACCUMULATE_LOCK = threading.RLock()


def _commit(pending: list) -> None:
    """Add the gradients a backward pass collected into ``.grad``, then run the post-accumulate-grad hooks.

    ``pending`` holds ``(tensor, gradient, meta)`` triples: from AccumulateGrad
    nodes, with the leaf's metadata, and from non-leaves that retain their
    gradient, with None.
    """
    if _commit_compiled is not None and not STATE.enabled and _commit_compiled(pending):
        return
    post = False
    if STATE.enabled:
        post = _commit_recorded(pending)
    else:
        _ACCUMULATE_LOCK.acquire()
        try:
            for var, g, meta in pending:
                if meta is None:
                    meta = var._get_meta()
                    meta.grad = _wrap(g._data.copy()) if meta.grad is None else _wrap(meta.grad._data + g._data)
                else:
                    _accumulate(var, meta, g)
                    if meta.post_acc_hooks:
                        post = True
        finally:
            _ACCUMULATE_LOCK.release()
    if post:
        for var, g, meta in pending:
            if meta is not None and meta.post_acc_hooks:
                for hook in list(meta.post_acc_hooks.values()):
                    hook(var)


def _commit_recorded(pending: list) -> bool:
    """:func:`_commit`'s accumulation under ``create_graph``: each sum is an op that keeps its history.

    An op may dispatch to user code (a Tensor subclass, a mode), which must not
    run under the lock; so each sum is computed outside it and stored only if
    ``.grad`` has not changed meanwhile (else computed again). Returns whether a
    leaf has post-accumulate-grad hooks.
    """
    post = False
    for var, g, leaf_meta in pending:
        meta = var._get_meta()
        if leaf_meta is not None:
            wanted = meta.grad_dtype
            if wanted is not None and wanted is not _SAME_DTYPE and g._data.dtype != wanted.np:
                g = hooks.to_dtype(g, wanted)
            post = post or bool(leaf_meta.post_acc_hooks)
        while True:
            old = meta.grad
            new = g if old is None else _add(old, g)
            _ACCUMULATE_LOCK.acquire()
            try:
                if meta.grad is old:
                    meta.grad = new
                    break
            finally:
                _ACCUMULATE_LOCK.release()
    return post


def _unshared(g: Any) -> Any:
    """``g`` after user code (a hook) has seen it: a fresh tensor around the same array.

    A hook may keep the tensor it saw; if it does, the tensor still refers to the
    array, so the array's reference count tells :func:`_accumulate` that it must
    not be stored as ``.grad`` and updated in place (as torch clones a gradient
    someone else holds). Recorded gradients (``create_graph``) keep their history.
    """
    if type(g) is Tensor and not STATE.enabled:
        return _wrap(g._data)
    return g


def _unshared_all(grads: Any) -> tuple:
    return tuple(_unshared(g) for g in grads)


def _like_layout(data: np.ndarray, like: np.ndarray) -> np.ndarray:
    """A copy of ``data`` laid out like ``like`` (in elements) when ``like`` is dense (else row-major)."""
    # the usual leaf: one C-order copy (a size-1 dim may carry any stride, which the general path keeps)
    if data.shape == like.shape and like.flags.c_contiguous and 1 not in like.shape:
        return np.array(data, order="C")
    if data.shape == like.shape and _dense(like):
        # strides count bytes: a gradient of another dtype (grad_dtype) has another item size
        strides = tuple(s // like.itemsize * data.itemsize for s in like.strides)
        out = np.lib.stride_tricks.as_strided(np.empty(like.size, dtype=data.dtype), like.shape, strides)
        out[...] = data
        return out
    return data.copy()


def _dense(a: np.ndarray) -> bool:
    """Whether ``a``'s elements fill its memory without gaps or overlaps, with no negative stride."""
    if a.itemsize == 0 or any(s < 0 for s in a.strides):
        return False
    expected = a.itemsize
    for stride, n in sorted((s, n) for s, n in zip(a.strides, a.shape) if n != 1):
        if stride != expected:
            return False
        expected *= n
    return all(s <= expected for s, n in zip(a.strides, a.shape) if n == 1)


def _accumulate(var: Tensor, meta: Any, g: Tensor) -> None:
    """Add gradient ``g`` (no history) into the ``.grad`` of leaf ``var``; the caller holds the lock."""
    old = meta.grad
    wanted = meta.grad_dtype  # the tensor's dtype unless set (None: keep the gradient's)
    target = var._data.dtype if wanted is _SAME_DTYPE else None if wanted is None else wanted.np
    data = g._data
    if target is not None and data.dtype != target:
        data = data.astype(target)
    if old is None:
        # Store without copying only if nothing else can see this array: it owns
        # its memory and the gradient tensor is its only referrer. A copy, or (under the
        # layout policy) a gradient laid out unlike a dense leaf, takes the leaf's strides.
        vd = var._data
        exclusive = sys.getrefcount(data) <= 3  # g's and this variable's, and the argument's
        if exclusive and data.base is not None:
            base = _exclusive_base(data, g)
            exclusive = base is not None
            if base is not None:
                data = base
        if not exclusive or not data.flags.writeable:
            data = _like_layout(data, vd)
        elif (ENGINE.grad_layout and data.shape == vd.shape and data.strides != vd.strides
              and (data.itemsize == vd.itemsize  # same item size: byte strides compare as element strides
                   or [st // data.itemsize for st in data.strides] != [st // vd.itemsize for st in vd.strides])):
            data = _like_layout(data, vd)
        meta.grad = _wrap(data)
        return
    od = old._data
    if od.flags.writeable and od.shape == data.shape and old._grad_fn is None:
        np.add(od, data, out=od)
        c = old._vc
        if c is not None:
            c[0] += 1
    else:
        meta.grad = _wrap(od + data)


def _exclusive_base(view: np.ndarray, g: Tensor) -> np.ndarray | None:
    """``view``'s base if the view is all of it, laid out as it is, and nothing else refers to the base; else None.

    The base can then be stored as the gradient itself: the usual case of a
    gradient transposed twice on its way (``x @ w.T``'s weight gradient). ``g``
    is the gradient tensor around ``view``; the tensor it is a view of (its
    ``_base``, which holds the base array) may be the one other referrer, if
    nothing but ``g`` refers to that tensor.
    """
    base = view.base
    if not (type(base) is np.ndarray and base.base is None and base.shape == view.shape
            and base.strides == view.strides and base.dtype == view.dtype):
        return None
    # references to base: the view's, this local's and getrefcount's argument (and the owner tensor's, below)
    refs = sys.getrefcount(base)
    if refs == 3:
        return base
    owner = g._base
    # references to owner: g's, this local's and getrefcount's argument: no one else can see the base array
    if refs == 4 and owner is not None and owner._data is base and sys.getrefcount(owner) == 3:
        return base
    return None


def grad_accumulator(t: Tensor) -> AccumulateGrad:
    """The AccumulateGrad node of leaf ``t`` (one per leaf, cached on it)."""
    meta = t._meta
    if meta is None:
        meta = t._get_meta()
    node = meta.grad_acc
    if node is None:
        with _ACCUMULATE_LOCK:  # one node per leaf, even when threads reach a new leaf together
            node = meta.grad_acc
            if node is None:
                node = new_node(AccumulateGrad, ())
                node._variable = weakref.ref(t)
                meta.grad_acc = node
    return node


def _add(a: Tensor, b: Tensor) -> Tensor:
    return hooks.add(a, b)


def _make_grads(outputs: Sequence[Tensor], grads: Sequence[Any] | None) -> list[Tensor]:
    out = []
    for i, t in enumerate(outputs):
        g = grads[i] if grads is not None and i < len(grads) else None
        if g is None:
            if t._data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if t._data.dtype.kind not in "fc":
                raise RuntimeError(
                    f"grad can be implicitly created only for real scalar outputs but got {t.dtype!r}"
                )
            shape = t._data.shape
            # np.array(1) is several times cheaper than np.ones for the usual 0-d loss
            g = _wrap(np.array(1, dtype=t._data.dtype) if not shape else np.ones(shape, dtype=t._data.dtype))
        elif isinstance(g, Tensor):
            if g._data.shape != t._data.shape:
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{i}] has a shape of {Size(g._data.shape)!r} and output[{i}] "
                    f"has a shape of {Size(t._data.shape)!r}."
                )
            if g._data.dtype.kind != t._data.dtype.kind and not (
                g._data.dtype.kind in "fc" and t._data.dtype.kind in "fc"
            ):
                raise RuntimeError(
                    f"For complex Tensors, both grad_output and output are required to have the same dtype. "
                    f"Mismatch in dtype: grad_output[{i}] has a dtype of {g.dtype!r} and output[{i}] has a dtype "
                    f"of {t.dtype!r}."
                )
            if not STATE.enabled:
                # A fresh object around the caller's array, so accumulation never writes into it.
                g = _wrap(g._data)
        else:
            raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")
        out.append(g)
    return out


def _as_tuple(x: Any, what: str) -> tuple:
    if isinstance(x, Tensor):
        return (x,)
    if isinstance(x, (tuple, list)):
        return tuple(x)
    if x is None:
        return ()
    raise TypeError(f"{what} must be a Tensor or a sequence of Tensors, got {type(x).__name__}")


def _root_edge(t: Tensor, i: int) -> tuple[Node, int]:
    if not isinstance(t, Tensor):
        raise TypeError(f"outputs must be Tensors, got {type(t).__name__} at index {i}")
    if t._base is not None:
        refresh_view(t)
    fn = t._grad_fn
    if fn is not None:
        return fn, t._output_nr
    if t._requires_grad:
        return grad_accumulator(t), 0
    raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")


def _tensor_or_sequence(value: Any) -> tuple:
    """One tensor-like as a 1-tuple, a sequence as a tuple: how torch hands ``outputs``/``inputs`` to handlers."""
    if hasattr(type(value), "__torch_function__"):  # Tensor and every tensor-like
        return (value,)
    try:
        return tuple(value)
    except TypeError:  # torch's Python raises the same type, in Python's words
        raise TypeError(f"expected a Tensor or a sequence of Tensors, got {type(value).__name__}") from None


def _prepare_backward(args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    return (_tensor_or_sequence(args[0]), *args[1:]), kwargs


def _prepare_grad(args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    return (_tensor_or_sequence(args[0]), _tensor_or_sequence(args[1]), *args[2:]), kwargs


@op(namespace=AUTOGRAD, prepare=_prepare_backward)
def backward(
    tensors: Any,
    grad_tensors: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    grad_variables: Any = None,
    inputs: Any = None,
) -> None:
    """Accumulate gradients of ``tensors`` into the ``.grad`` of graph leaves (or of ``inputs`` only)."""
    if grad_variables is not None:
        if grad_tensors is not None:
            raise RuntimeError("'grad_tensors' and 'grad_variables' (deprecated) arguments both passed to backward()")
        grad_tensors = grad_variables
    if retain_graph is None:
        retain_graph = create_graph
    if type(tensors) is tuple and len(tensors) == 1 and grad_tensors is None and inputs is None:
        backward_root(tensors[0], retain_graph, create_graph)
        return
    outputs = _as_tuple(tensors, "tensors")
    grads = None if grad_tensors is None else _as_tuple(grad_tensors, "grad_tensors")
    if grads is not None and len(grads) != len(outputs):
        raise RuntimeError(f"got {len(grads)} gradients for {len(outputs)} tensors")
    input_list = _as_tuple(inputs, "inputs") if inputs is not None else None
    if input_list is not None and len(input_list) == 0:
        raise RuntimeError("'inputs' argument to backward() cannot be empty.")
    roots = [_root_edge(t, i) for i, t in enumerate(outputs)]
    prev = STATE.enabled
    STATE.enabled = create_graph
    try:
        root_grads = _make_grads(outputs, grads)
        if input_list is None:
            _execute(roots, root_grads, retain_graph, None)
            return
        targets, _ = _targets(input_list, "backward")
        for t in input_list:
            if t._grad_fn is not None:
                t.retain_grad()  # as torch: a non-leaf input keeps its gradient in .grad from now on
        _execute(roots, root_grads, retain_graph, targets)
    finally:
        STATE.enabled = prev


def backward_root(t: Tensor, retain_graph: bool | None, create_graph: bool) -> None:
    """``t.backward()`` with no gradient or inputs given: :func:`backward`'s steps for one output, without its
    sequence handling (the call of every training step)."""
    node = t._grad_fn if type(t) is Tensor else None
    if node is None or t._base is not None or t._meta is not None:
        node, nr = _root_edge(t, 0)
    else:
        nr = 0  # (_root_edge's usual case: an output with no view to refresh and no metadata naming another)
    a = t._data
    # a scalar loss: its gradient of one directly (np.array(1) is several times cheaper than np.ones for 0-d)
    g = _wrap(np.array(1, dtype=a.dtype)) if not a.shape and a.dtype.kind in "fc" else _make_grads((t,), None)[0]
    prev = STATE.enabled
    STATE.enabled = create_graph
    try:
        _run_from(node, nr, g, create_graph if retain_graph is None else retain_graph)
    finally:
        STATE.enabled = prev


def _run_from(node: Node, nr: int, g: Tensor, retain_graph: bool) -> None:
    """Run the graph from one root (never reachable from itself) with gradient ``g`` for its output ``nr``."""
    deps = _dependencies([node])
    buf: list[Tensor | None]
    if nr == 0 and node.num_outputs == 1:
        buf = [g]
    else:
        buf = [None] * node.num_outputs
        buf[nr] = g
    pending: list = []
    _run_all([node], {node: buf}, deps, retain_graph, pending)
    if pending:
        _commit(pending)


def _targets(inputs: Sequence[Any], fname: str) -> tuple[list[tuple[Node, int]], Sequence[Any]]:
    keys: list[tuple[Node, int]] = []
    for i, t in enumerate(inputs):
        if not isinstance(t, Tensor):
            raise TypeError(f"{fname}: inputs must be Tensors, got {type(t).__name__} at index {i}")
        if t._base is not None:
            refresh_view(t)
        if not t._requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
        if t._grad_fn is None:
            keys.append((grad_accumulator(t), 0))
        else:
            keys.append((t._grad_fn, t._output_nr))
    return keys, inputs


@op(namespace=AUTOGRAD, prepare=_prepare_grad)
def grad(
    outputs: Any,
    inputs: Any,
    grad_outputs: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    only_inputs: bool = True,
    allow_unused: bool | None = None,
    is_grads_batched: bool = False,
    materialize_grads: bool = False,
) -> tuple:
    """Gradients of ``outputs`` w.r.t. ``inputs``, returned rather than accumulated into ``.grad``."""
    if is_grads_batched:
        raise NotImplementedError("is_grads_batched=True is not supported by tensorlib.autograd.grad")
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, but got: allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    outs = _as_tuple(outputs, "outputs")
    ins = _as_tuple(inputs, "inputs")
    if not ins:
        raise RuntimeError("grad requires non-empty inputs.")
    grads = None if grad_outputs is None else _as_tuple(grad_outputs, "grad_outputs")
    if grads is not None and len(grads) != len(outs):
        raise RuntimeError(
            f"grad requires one grad_output per output: got {len(grads)} grad_outputs and {len(outs)} outputs"
        )
    if retain_graph is None:
        retain_graph = create_graph
    roots = [_root_edge(t, i) for i, t in enumerate(outs)]
    targets, _ = _targets(ins, "grad")
    prev = STATE.enabled
    STATE.enabled = create_graph
    try:
        root_grads = _make_grads(outs, grads)
        captured = _execute(roots, root_grads, retain_graph, targets, accumulate=False)
    finally:
        STATE.enabled = prev
    result = []
    for i, key in enumerate(targets):
        g = captured.get(key)
        if g is None:
            if not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in the graph. "
                    "Set allow_unused=True if this is the desired behavior."
                )
            if materialize_grads:
                g = _wrap(np.zeros(ins[i]._data.shape, dtype=ins[i]._data.dtype))
        result.append(g)
    return tuple(result)


def _dependencies(roots: list[Node]) -> dict[Node, int]:
    """How many edges lead into each node reachable from ``roots`` (a root is walked once even if also reached).

    ``dependencies`` in tensorlib/_accel.c is its compiled twin: change both together.
    """
    deps: dict[Node, int] = {}
    stack = list(dict.fromkeys(roots)) if len(roots) > 1 else list(roots)
    also_roots = set(stack) if len(stack) > 1 else ()
    get = deps.get
    while stack:
        for nxt, _ in stack.pop().next_functions:
            if nxt is None:
                continue
            d = get(nxt)
            if d is None:
                deps[nxt] = 1
                if nxt not in also_roots:
                    stack.append(nxt)
            else:
                deps[nxt] = d + 1
    return deps


def _needed(roots: list[Node], deps: dict[Node, int], targets: set[Node]) -> set[Node]:
    """Nodes from which some target can be reached (only those run when targets are given)."""
    order = []
    remaining = dict(deps)
    ready = [n for n in dict.fromkeys(roots) if remaining.get(n, 0) == 0]
    while ready:
        node = ready.pop()
        order.append(node)
        for nxt, _ in node.next_functions:
            if nxt is None:
                continue
            remaining[nxt] -= 1
            if remaining[nxt] == 0:
                ready.append(nxt)
    needed: set[Node] = set()
    for node in reversed(order):
        if node in targets or any(nxt in needed for nxt, _ in node.next_functions if nxt is not None):
            needed.add(node)
    return needed


def _execute(
    roots: list[tuple[Node, int]],
    root_grads: list[Tensor],
    retain_graph: bool,
    targets: list | None,
    accumulate: bool = True,
) -> dict:
    """Run the graph from ``roots``; return gradients captured at ``targets`` (``(node, output_nr)`` keys)."""
    if len(roots) == 1 and targets is None and accumulate:
        # backward() of one tensor: the general set-up below, for a single root
        node, nr = roots[0]
        _run_from(node, nr, root_grads[0], retain_graph)
        return {}
    root_nodes = [n for n, _ in roots]
    deps = _dependencies(root_nodes)
    buffers: dict[Node, list] = {}
    for (node, nr), root_grad in zip(roots, root_grads):
        buf = buffers.get(node)
        if buf is None:
            buf = buffers[node] = [None] * node.num_outputs
        buf[nr] = root_grad if buf[nr] is None else _add(buf[nr], root_grad)
    needed = None
    captured: dict = {}
    capture_keys: set = set()
    if targets is not None:
        target_nodes = {n for n, _ in targets}
        needed = _needed(root_nodes, deps, target_nodes)
        capture_keys = set(targets)
    ready = [n for n in dict.fromkeys(root_nodes) if deps.get(n, 0) == 0]
    pending: list = []
    if targets is None and accumulate:
        _run_all(ready, buffers, deps, retain_graph, pending)
        if pending:
            _commit(pending)
        return captured
    while ready:
        node = ready.pop()
        grads = buffers.pop(node, None)
        run = needed is None or node in needed
        if grads is None and run and node.runs_without_grads:
            grads = [None] * node.num_outputs
        if run and grads is not None:
            hooks = node._hooks
            if hooks is not None:
                grads = _pre_hooks(node, hooks, grads, pending)
            if capture_keys:
                for nr, g in enumerate(grads):
                    if (node, nr) in capture_keys and g is not None:
                        captured[(node, nr)] = g
            if type(node) is AccumulateGrad:
                if accumulate and (targets is None or (node, 0) in capture_keys):
                    entry = node._prepare(grads)
                    if entry is not None:
                        pending.append(entry)
                outs: Any = ()
            elif needed is not None and node in target_nodes and not any(
                nxt in needed for nxt, _ in node.next_functions if nxt is not None
            ):
                outs = ()
            else:
                outs = _apply(node, grads, hooks)
            if not retain_graph:
                node.release()
        else:
            outs = ()
        for i, (nxt, nr) in enumerate(node.next_functions):
            if nxt is None:
                continue
            g = outs[i] if i < len(outs) else None
            if g is not None:
                buf = buffers.get(nxt)
                if buf is None:
                    buf = buffers[nxt] = [None] * nxt.num_outputs
                old = buf[nr]
                buf[nr] = g if old is None else _add(old, g)
            d = deps[nxt] - 1
            deps[nxt] = d
            if d == 0:
                ready.append(nxt)
    if pending:
        _commit(pending)
    return captured


def _apply(node: Node, grads: list, hooks: Any) -> Any:
    """Run ``node`` on ``grads``, with the anomaly check and its post hooks: one gradient per input edge."""
    outs = node.apply(grads)
    if ANY_THREAD.active and ANOMALY.active:
        check_outputs(node, outs)
    if hooks is not None and hooks.post:
        for hook in list(hooks.post.values()):
            r = hook(outs, tuple(grads))
            if r is not None:
                outs = tuple(r)
        outs = _unshared_all(outs)
    return outs


def _run_all(
    ready: list[Node], buffers: dict[Node, list], deps: dict[Node, int], retain_graph: bool, pending: list
) -> None:
    """The loop of :func:`_execute` when every reachable node runs (``backward()`` without ``inputs``).

    The same steps as the general loop, minus its target bookkeeping: this is
    the engine's hot path for training loops on small tensors. Gradients for
    ``.grad`` are appended to ``pending``, for :func:`_commit`.
    ``run_all`` in tensorlib/_accel.c is its compiled twin, step for step: change both together.
    """
    pop_buffer = buffers.pop
    get_buffer = buffers.get
    while ready:
        node = ready.pop()
        grads = pop_buffer(node, None)
        if grads is None and node.runs_without_grads:
            grads = [None] * node.num_outputs
        if grads is not None:
            hooks = node._hooks
            if hooks is not None:
                grads = _pre_hooks(node, hooks, grads, pending)
            if type(node) is AccumulateGrad:
                # a leaf: no edges to follow and nothing saved to release (its node outlives the graph)
                var = node._variable()
                g = grads[0]
                if g is not None and var is not None:
                    meta = var._meta
                    if meta is None or meta.hooks:
                        entry = node._prepare(grads)
                        if entry is not None:
                            pending.append(entry)
                    else:
                        pending.append((var, g, meta))
                continue
            if hooks is None and not ANY_THREAD.active:
                outs: Any = node.apply(grads)
            else:
                outs = _apply(node, grads, hooks)
            if not retain_graph:
                node.release()
        else:
            outs = ()
        n_outs = len(outs)
        i = -1
        for nxt, nr in node.next_functions:
            i += 1
            if nxt is None:
                continue
            if i < n_outs:
                g = outs[i]
                if g is not None:
                    buf = get_buffer(nxt)
                    if buf is None:
                        if nxt.num_outputs == 1:
                            buffers[nxt] = [g]
                        else:
                            buf = buffers[nxt] = [None] * nxt.num_outputs
                            buf[nr] = g
                    else:
                        old = buf[nr]
                        buf[nr] = g if old is None else _add(old, g)
            d = deps[nxt] - 1
            deps[nxt] = d
            if d == 0:
                ready.append(nxt)


def _pre_hooks(node: Node, hooks: Any, grads: list, pending: list) -> list:
    grads = list(grads)
    for nr, store in hooks.tensor_pre.items():
        g = grads[nr]
        if g is None:
            continue
        for hook in list(store.values()):
            r = hook(g)
            if r is not None:
                g = r
        grads[nr] = g
    for nr, ref in hooks.retain.items():
        t = ref()
        g = grads[nr]
        if t is not None and g is not None:
            pending.append((t, g, None))
    for hook in list(hooks.pre.values()):
        r = hook(tuple(grads))
        if r is not None:
            grads = list(r)
    if hooks.tensor_pre or hooks.pre:  # user code saw these gradients
        grads = [_unshared(g) for g in grads]
    return grads


def edge(t: Tensor) -> tuple:
    """The graph edge a gradient for ``t`` flows into."""
    if t._base is not None:
        refresh_view(t)
    fn = t._grad_fn
    m = t._meta
    if fn is not None:
        return (fn, m.output_nr if m is not None else 0)
    if t._requires_grad:
        acc = m.grad_acc if m is not None else None
        return (acc if acc is not None else grad_accumulator(t), 0)
    return (None, 0)


# the references the compiled twins are tested against
_run_all_python = _run_all
_dependencies_python = _dependencies
# the usual commits (leaves' gradients, no hooks after accumulation, no grad_dtype), compiled: True when done
_commit_compiled: Any = None
if accel is not None:  # the compiled twins (see tensorlib._accelerator)
    accel.setup_engine(AccumulateGrad, ANY_THREAD, _pre_hooks, _apply, _add, Node.apply, Node.release, FREED)
    _run_all = accel.run_all
    _dependencies = accel.dependencies
    accel.setup_commit(_ACCUMULATE_LOCK, np.add, _SAME_DTYPE, _accumulate)
    _commit_compiled = accel.commit
