"""``tensorlib.Size``: the shape of a tensor, a tuple of ints."""

from __future__ import annotations

from typing import Any


class Size(tuple):
    """A tuple of dimension sizes, printed as ``tensorlib.Size([10, 4])``."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"tensorlib.Size({list(self)})"

    def numel(self) -> int:
        """The number of elements a tensor of this shape holds."""
        n = 1
        for s in self:
            n *= s
        return n

    def __getitem__(self, key: Any) -> Any:
        out = tuple.__getitem__(self, key)
        return Size(out) if isinstance(key, slice) else out

    def __add__(self, other: Any) -> "Size":
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple.__add__(self, other))

    def __radd__(self, other: Any) -> "Size":
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple.__add__(other, self))

    def __reduce__(self) -> Any:
        return (Size, (tuple(self),))
