"""``tensorlib.nn.utils``: gradient clipping, parameter/vector conversion, sequence padding."""

from __future__ import annotations

from typing import Callable

from ..._namespace import expose as _expose
from . import _clip_grad, rnn
from . import _convert_parameters as _cp

_FUNCTIONS: dict[str, Callable] = {
    "clip_grad_norm_": _clip_grad.clip_grad_norm_,
    "clip_grad_value_": _clip_grad.clip_grad_value_,
    "get_total_norm": _clip_grad.get_total_norm,
    "clip_grads_with_norm_": _clip_grad.clip_grads_with_norm_,
    "parameters_to_vector": _cp.parameters_to_vector,
    "vector_to_parameters": _cp.vector_to_parameters,
}

globals().update(_expose(__name__, _FUNCTIONS))

__all__ = sorted(_FUNCTIONS) + ["rnn"]
