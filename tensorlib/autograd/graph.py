"""``tensorlib.autograd.graph``: the graph node type, and pictures of a graph (Graphviz DOT text, SVG/PNG).

>>> import tensorlib
>>> w = tensorlib.ones(3, requires_grad=True)
>>> loss = (w * 2).sum()
>>> print(to_dot(loss, params={"w": w}))  # doctest: +ELLIPSIS
digraph autograd {
...
"""

from __future__ import annotations

import os
from typing import Any, Iterable, Mapping

from .._autograd.engine import AccumulateGrad, grad_accumulator
from .._autograd.graph import Node, SavedTensor
from .._tensor import Tensor

__all__ = ["Node", "render", "to_dot"]


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _describe(t: Any) -> str:
    """``(2, 3) float32``: what a picture says about a tensor."""
    data = getattr(t, "_data", t)
    shape = getattr(data, "shape", None)
    if shape is None:
        return type(t).__name__
    return f"{tuple(shape)} {data.dtype}"


def _held(saved: SavedTensor) -> str:
    held = getattr(saved, "tensor", None)
    if held is None:
        held = getattr(saved, "data", None)  # an output keeps only its data
    return _describe(held) if held is not None else "freed"


def _saved(node: Node) -> list[str]:
    """``name: shape dtype`` for each tensor ``node`` keeps for backward (freed ones say so)."""
    lines = []
    for slot in type(node)._saved_slots:
        value = getattr(node, slot, None)
        if isinstance(value, SavedTensor):
            lines.append(f"{slot.rstrip('_')}: {_held(value)}")
    ctx_saved = getattr(node, "_saved", None)  # a custom Function's save_for_backward
    if isinstance(ctx_saved, (tuple, list)):
        for i, value in enumerate(ctx_saved):
            if isinstance(value, SavedTensor):
                lines.append(f"saved[{i}]: {_held(value)}")
    return lines


def _as_outputs(outputs: Any) -> list[Tensor]:
    if isinstance(outputs, Tensor):
        return [outputs]
    if not isinstance(outputs, (tuple, list)):
        raise TypeError(f"to_dot(): outputs must be a Tensor or a sequence of Tensors, got {type(outputs).__name__}")
    items = list(outputs)
    for i, t in enumerate(items):
        if not isinstance(t, Tensor):
            raise TypeError(f"to_dot(): outputs must be Tensors, got {type(t).__name__} at index {i}")
    return items


def to_dot(outputs: Tensor | Iterable[Tensor], params: Mapping[str, Tensor] | Iterable[tuple[str, Tensor]] | None = None,
           *, show_saved: bool = True) -> str:
    """The graph behind ``outputs`` as Graphviz DOT text (needs nothing installed).

    One box per node, named as its ``grad_fn`` name (``MulBackward0``), with the
    shapes of the tensors it saved for backward when ``show_saved``; one
    ellipse per leaf, named from ``params`` (a dict or ``model.named_parameters()``)
    when it is one of them; edges run from each input towards the outputs.
    """
    outs = _as_outputs(outputs)
    names: dict[int, str] = {}
    if params is not None:
        pairs = params.items() if isinstance(params, Mapping) else params
        for name, p in pairs:
            names[id(p)] = name
    ids: dict[Node, str] = {}
    lines = ["digraph autograd {", '  node [fontname="Helvetica", fontsize=10];', "  rankdir=BT;"]
    edges: list[str] = []

    def node_id(node: Node) -> str:
        nid = ids.get(node)
        if nid is None:
            nid = ids[node] = f"n{len(ids)}"
            if isinstance(node, AccumulateGrad):
                var = node.variable
                label = names.get(id(var), "leaf") + (f"\n{_describe(var)}" if var is not None else "")
                lines.append(f"  {nid} [label={_quote(label)}, shape=ellipse, style=filled, fillcolor=lightblue];")
            else:
                label = "\n".join([node.name()] + (_saved(node) if show_saved else []))
                lines.append(f"  {nid} [label={_quote(label)}, shape=box];")
        return nid

    stack: list[Node] = []
    for i, t in enumerate(outs):
        out_id = f"out{i}"
        lines.append(f"  {out_id} [label={_quote(f'output {i}' + chr(10) + _describe(t))}, shape=ellipse, "
                     "style=filled, fillcolor=darkolivegreen1];")
        fn = t.grad_fn
        if fn is None and t.requires_grad:  # a leaf as an output
            fn = grad_accumulator(t)
        if fn is not None:
            edges.append(f"  {node_id(fn)} -> {out_id};")
            stack.append(fn)
    seen: set[Node] = set()
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        for nxt, _ in node.next_functions:
            if nxt is None:
                continue
            edges.append(f"  {node_id(nxt)} -> {node_id(node)};")
            stack.append(nxt)
    return "\n".join(lines + edges + ["}"]) + "\n"


def render(outputs: Tensor | Iterable[Tensor], path: str | os.PathLike, *, format: str | None = None,  # noqa: A002
           params: Mapping[str, Tensor] | Iterable[tuple[str, Tensor]] | None = None, show_saved: bool = True) -> str:
    """Draw the graph behind ``outputs`` into ``path`` (SVG, PNG, PDF... by its extension or ``format``).

    Runs Graphviz's ``dot`` program, which must be installed (the DOT text of
    :func:`to_dot` needs nothing). Returns the path written.
    """
    path = os.fspath(path)
    fmt = format or os.path.splitext(path)[1].lstrip(".") or "svg"
    import shutil  # here: rendering is rare, and subprocess costs ~3 ms to import
    import subprocess

    dot = shutil.which("dot")
    if dot is None:
        raise RuntimeError("render() needs Graphviz's `dot` program on the PATH (e.g. apt install graphviz); "
                           "to_dot() gives the DOT text without it")
    text = to_dot(outputs, params, show_saved=show_saved)
    done = subprocess.run([dot, f"-T{fmt}", "-o", path], input=text, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"dot failed to render {path!r} as {fmt}: {done.stderr.strip()}")
    return path
