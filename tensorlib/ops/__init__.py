"""The op families: each module implements its ops and declares them with :func:`tensorlib._registry.op`."""

from . import (
    activation,
    arithmetic,
    comparison,
    conversion,
    creation,
    fft,
    indexing,
    inplace,
    join_split,
    linalg,
    reduction,
    selection,
    shape,
    sorting,
    special,
    unary,
)

__all__ = [
    "activation",
    "arithmetic",
    "comparison",
    "conversion",
    "creation",
    "fft",
    "indexing",
    "inplace",
    "join_split",
    "linalg",
    "reduction",
    "selection",
    "shape",
    "sorting",
    "special",
    "unary",
]
