"""Memory formats: ``tensorlib.contiguous_format``, ``preserve_format``, ``channels_last``, ``channels_last_3d``.

Tensors here always hold NumPy C-contiguous data when they are freshly made, whatever format is asked
for; the formats are accepted (and checked) where torch takes them, and ``Tensor.is_contiguous`` answers
for the strides a tensor reports. This module imports nothing from tensorlib.
"""

from __future__ import annotations

from typing import Any, Sequence

from ._constant import NamedConstant
from ._registry import public


@public()
class memory_format(NamedConstant):
    """A memory layout request; the four instances are the module's constants."""

    __slots__ = ()


contiguous_format = memory_format._make("contiguous_format")
preserve_format = memory_format._make("preserve_format")
channels_last = memory_format._make("channels_last")
channels_last_3d = memory_format._make("channels_last_3d")

# dims from the fastest-varying to the slowest, for the channels-last formats
_ORDER = {channels_last: (1, 3, 2, 0), channels_last_3d: (1, 4, 3, 2, 0)}
_RANK = {channels_last: 4, channels_last_3d: 5}


def check_memory_format(value: Any, fname: str, *, allow_none: bool = True) -> memory_format:
    """``value`` as a memory format (``None`` means preserve where allowed); a TypeError names ``fname``."""
    if value is None and allow_none:
        return preserve_format
    if not isinstance(value, memory_format):
        cls = type(value)
        kind = f"tensorlib.{cls.__name__}" if cls.__module__ == "tensorlib" else cls.__name__
        raise TypeError(f"{fname}(): argument 'memory_format' must be tensorlib.memory_format, not {kind}")
    return value


def check_rank(fmt: memory_format, ndim: int) -> None:
    """Raise torch's RuntimeError when a channels-last format is asked of a tensor of another rank."""
    rank = _RANK.get(fmt)
    if rank is not None and ndim != rank:
        raise RuntimeError(f"required rank {rank} tensor to use {fmt._name} format")


def is_channels_last(fmt: memory_format, sizes: Sequence[int], strides: Sequence[int]) -> bool:
    """Whether ``strides`` lay ``sizes`` out densely in ``fmt``'s channels-last order (size-1 dims are free)."""
    order = _ORDER[fmt]
    if len(sizes) != len(order):
        return False
    expected = 1
    for d in order:
        if sizes[d] != 1:
            if strides[d] != expected:
                return False
            expected *= sizes[d]
    return True
