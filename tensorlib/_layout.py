"""Layouts: ``tensorlib.strided`` and the sparse layouts' names, as ``torch.layout`` constants.

Every tensorlib tensor is strided (a NumPy array); the sparse layouts exist so
that code comparing ``t.layout`` with them runs, and asking a factory for one
is a clear RuntimeError. This module imports nothing from tensorlib.
"""

from __future__ import annotations

from typing import Any

from ._constant import NamedConstant
from ._registry import public


@public()
class layout(NamedConstant):
    """How a tensor's elements are stored; the instances are the module's constants."""

    __slots__ = ()


strided = layout._make("strided")
sparse_coo = layout._make("sparse_coo")
sparse_csr = layout._make("sparse_csr")
sparse_csc = layout._make("sparse_csc")
sparse_bsr = layout._make("sparse_bsr")
sparse_bsc = layout._make("sparse_bsc")
jagged = layout._make("jagged")



def check_layout(value: Any, fname: str) -> None:
    """Accept ``None`` or ``strided``; any other layout is a RuntimeError, anything else a TypeError naming ``fname``."""
    if value is None or value is strided:
        return
    if isinstance(value, layout):
        raise RuntimeError(f"{fname}(): tensorlib stores every tensor strided; layout={value!r} is not supported")
    raise TypeError(f"{fname}(): argument 'layout' must be tensorlib.layout, not {type(value).__name__}")
