"""Laying out the weights of 2-D and 3-D convolutions in a memory format.

Tensors here hold NumPy arrays, which may have any strides: the weight's data is copied into the requested
order (channels-last keeps the channel dimension fastest), so ``weight.is_contiguous(memory_format=...)``
and ``weight.stride()`` answer as in torch. The values, and every result computed from them, are unchanged.
"""

from __future__ import annotations

from typing import TypeVar

import numpy as np

from ..._memory_format import check_memory_format, check_rank, contiguous_format, memory_format, preserve_format
from ..._registry import NN_UTILS, public
from ..._tensor import _wrap
from ..modules.conv import Conv2d, Conv3d, ConvTranspose2d, ConvTranspose3d
from ..modules.module import Module

__all__ = ["convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"]

_M = TypeVar("_M", bound=Module)


def _laid_out(a: np.ndarray, fmt: memory_format) -> np.ndarray:
    """A copy of ``a`` with strides of ``fmt`` (channels last: dimension 1 fastest, then the spatial ones)."""
    if fmt is preserve_format:
        return a.copy(order="K")
    order: tuple[int, ...] = tuple(range(a.ndim))
    if fmt is not contiguous_format:
        check_rank(fmt, a.ndim)
        order = (0, *range(2, a.ndim), 1)  # N, spatial..., C
    # a fresh array has the standard strides even for size-1 dimensions (a view may not: NumPy relaxes them)
    out = np.empty([a.shape[d] for d in order], dtype=a.dtype)
    out[...] = a.transpose(order)
    return out.transpose(np.argsort(order))


def _convert(module: _M, fmt: memory_format, kinds: tuple[type, ...]) -> _M:
    if isinstance(module, kinds):
        module.weight.data = _wrap(_laid_out(module.weight._data, fmt))
    for child in module.children():
        _convert(child, fmt, kinds)
    return module


@public(namespace=NN_UTILS)
def convert_conv2d_weight_memory_format(module: _M, memory_format: memory_format) -> _M:
    """Lay out the weight of every ``Conv2d`` and ``ConvTranspose2d`` in ``module`` (itself included) in
    ``memory_format`` (``channels_last`` or ``contiguous_format``); returns ``module``."""
    return _convert(module, check_memory_format(memory_format, "clone", allow_none=False),
                    (Conv2d, ConvTranspose2d))


@public(namespace=NN_UTILS)
def convert_conv3d_weight_memory_format(module: _M, memory_format: memory_format) -> _M:
    """Lay out the weight of every ``Conv3d`` and ``ConvTranspose3d`` in ``module`` (itself included) in
    ``memory_format`` (``channels_last_3d`` or ``contiguous_format``); returns ``module``."""
    return _convert(module, check_memory_format(memory_format, "clone", allow_none=False),
                    (Conv3d, ConvTranspose3d))
