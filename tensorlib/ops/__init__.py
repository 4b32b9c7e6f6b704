"""The op families: each module implements its ops and declares them with :func:`tensorlib._registry.op`.

The modules in ``tensorlib._registry.ON_FIRST_USE_MODULES`` are imported when one of their names is first used.
"""

import importlib
from typing import Any

from .._registry import ON_FIRST_USE_MODULES as _ON_FIRST_USE_MODULES
from . import (
    activation,
    arithmetic,
    comparison,
    complex_views,
    conversion,
    copies,
    creation,
    indexing,
    inplace,
    join_split,
    linalg,
    reduction,
    selection,
    shape,
    strided,
    unary,
)

__all__ = [
    "activation",
    "arithmetic",
    "comparison",
    "complex_views",
    "conversion",
    "copies",
    "creation",
    "decompositions",
    "fft",
    "indexing",
    "inplace",
    "join_split",
    "linalg",
    "linalg_functions",
    "numeric",
    "reduction",
    "selection",
    "shape",
    "sorting",
    "special",
    "special_functions",
    "strided",
    "unary",
]


def __getattr__(name: str) -> Any:
    if f"{__name__}.{name}" in _ON_FIRST_USE_MODULES:
        return importlib.import_module(f".{name}", __name__)  # binds the submodule here
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
