"""``tensorlib.autograd.graph``: the graph node type."""

from .._autograd.graph import Node

__all__ = ["Node"]
