"""tensorlib.autograd.graph.to_dot / render: the picture of a graph names every node, the tensors it saved,
the leaves by their parameter names, and its edges; rendering goes through Graphviz's ``dot``."""

from __future__ import annotations

import os
import re
import shutil

import pytest

import tensorlib
import tensorlib.nn as nn
import tensorlib.nn.functional as F
from tensorlib.autograd import Function
from tensorlib.autograd.graph import render, to_dot

_NODE = re.compile(r'^  (\w+) \[label="((?:[^"\\]|\\.)*)"(.*)\];$')
_EDGE = re.compile(r"^  (\w+) -> (\w+);$")


def parse(dot: str) -> tuple[dict[str, str], list[tuple[str, str]]]:
    """Node id -> label, and the edges, of the DOT text to_dot writes (every line must be one of its forms)."""
    lines = dot.splitlines()
    assert lines[0] == "digraph autograd {" and lines[-1] == "}"
    nodes, edges = {}, []
    for line in lines[1:-1]:
        if m := _NODE.match(line):
            nodes[m.group(1)] = re.sub(r"\\(.)", lambda e: "\n" if e.group(1) == "n" else e.group(1), m.group(2))
        elif m := _EDGE.match(line):
            edges.append((m.group(1), m.group(2)))
        else:
            assert line.strip().startswith(("node [", "rankdir=")), line
    assert all(a in nodes and b in nodes for a, b in edges)
    return nodes, edges


def _model_loss() -> tuple[nn.Module, tensorlib.Tensor]:
    tensorlib.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    loss = F.cross_entropy(model(tensorlib.ones(5, 3)), tensorlib.tensor([0, 1, 0, 1, 1]))
    return model, loss


def test_an_mlp_graph_names_nodes_saved_tensors_and_parameters():
    model, loss = _model_loss()
    nodes, edges = parse(to_dot(loss, model.named_parameters()))
    by_label = {label.split("\n")[0]: nid for nid, label in nodes.items()}
    assert set(by_label) == {"output 0", "NllLossBackward0", "LogSoftmaxBackward0", "AddmmBackward0", "ReluBackward0",
                             "0.weight", "0.bias", "2.weight", "2.bias"}
    labels = sorted(nodes.values())
    assert "AddmmBackward0\ninput: (5, 4) float32\nweight: (2, 4) float32" in labels
    assert "0.weight\n(4, 3) float32" in labels and "ReluBackward0\ny: (5, 4) float32" in labels
    name = {nid: label.split("\n")[0] for nid, label in nodes.items()}
    named_edges = {(name[a], name[b]) for a, b in edges}
    assert ("NllLossBackward0", "output 0") in named_edges and ("LogSoftmaxBackward0", "NllLossBackward0") in named_edges
    assert ("ReluBackward0", "AddmmBackward0") in named_edges and ("0.bias", "AddmmBackward0") in named_edges
    assert len(edges) == 9  # one per graph edge, each once


def test_after_backward_saved_tensors_show_as_freed_and_unnamed_leaves_as_leaf():
    x = tensorlib.ones(2, requires_grad=True)
    y = (x * x).sum()
    y.backward()
    nodes, _ = parse(to_dot(y, show_saved=True))
    assert "MulBackward0\nself: freed\nother: freed" in nodes.values()
    assert "leaf\n(2,) float32" in nodes.values()
    plain, _ = parse(to_dot(y, show_saved=False))
    assert "MulBackward0" in plain.values()


def test_custom_functions_several_outputs_and_a_leaf_output():
    class Double(Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    a = tensorlib.ones(3, requires_grad=True)
    out = Double.apply(a)
    nodes, edges = parse(to_dot([out, a], {"a": a}))
    labels = set(nodes.values())
    assert "DoubleBackward\nsaved[0]: (3,) float32" in labels
    assert {"output 0\n(3,) float32", "output 1\n(3,) float32", "a\n(3,) float32"} <= labels
    assert len(edges) == 3  # Double -> out0, a -> Double, a -> out1


def test_labels_are_escaped():
    w = tensorlib.ones(1, requires_grad=True)
    nodes, _ = parse(to_dot(w * 1, {'say "hi"\\': w}))
    assert 'say "hi"\\\n(1,) float32' in nodes.values()


def test_bad_outputs_are_type_errors():
    with pytest.raises(TypeError, match="outputs must be a Tensor or a sequence of Tensors, got int"):
        to_dot(3)


def test_render_without_dot_explains(monkeypatch, tmp_path):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(RuntimeError, match="needs Graphviz's `dot` program"):
        render(tensorlib.ones(1, requires_grad=True) * 2, tmp_path / "g.svg")


@pytest.mark.skipif(shutil.which("dot") is None and not os.environ.get("TENSORLIB_REQUIRE_DOT"),
                    reason="Graphviz's dot is not installed (CI installs it and sets TENSORLIB_REQUIRE_DOT)")
def test_render_writes_svg_and_png(tmp_path):
    model, loss = _model_loss()
    svg = render(loss, tmp_path / "graph.svg", params=model.named_parameters())
    text = open(svg).read()
    assert "<svg" in text and "AddmmBackward0" in text and "0.weight" in text
    png = render(loss, tmp_path / "graph.png")
    assert open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(RuntimeError, match="dot failed to render"):
        render(loss, tmp_path / "graph.nosuchformat")


def test_a_non_tensor_in_the_outputs_is_a_type_error():
    with pytest.raises(TypeError, match="outputs must be Tensors, got str at index 1"):
        to_dot([tensorlib.ones(1), "x"])
