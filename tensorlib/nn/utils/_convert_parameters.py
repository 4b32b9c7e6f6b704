"""Flatten parameters into one vector and back."""

from __future__ import annotations

from typing import Iterable

from ..._registry import NN_UTILS, op
from ..._tensor import Tensor
from ...ops.join_split import cat
from ...ops.shape import reshape
from ._clip_grad import _tensors


@op(namespace=NN_UTILS)
def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """All ``parameters`` flattened and concatenated into one 1-D tensor (differentiable)."""
    # a Tensor is iterated as torch iterates it (along its first dim; an empty one holds no parameters)
    tensors = list(parameters) if isinstance(parameters, Tensor) else _tensors(parameters, "parameters_to_vector")
    return cat([reshape(p, (-1,)) for p in tensors])


@op(namespace=NN_UTILS)
def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Copy consecutive slices of the 1-D ``vec`` into the data of each of ``parameters``."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected tensorlib.Tensor, but got: {type(vec).__name__}")
    tensors = _tensors(parameters, "vector_to_parameters")
    offset = 0
    for p in tensors:
        n = p.numel()
        p.data = vec[offset:offset + n].view_as(p).data
        offset += n
