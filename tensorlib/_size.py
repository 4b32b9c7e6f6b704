"""``tensorlib.Size``: the shape of a tensor, a tuple of ints."""

from __future__ import annotations

from typing import Any, Iterable

from ._registry import public


@public()
class Size(tuple):
    """A tuple of dimension sizes, printed as ``tensorlib.Size([10, 4])``."""

    __slots__ = ()

    def __new__(cls, sizes: Iterable[Any] = ()) -> "Size":
        items = tuple(sizes)
        for i, v in enumerate(items):
            if type(v) is not int:
                items = _as_ints(items, i)
                break
        return tuple.__new__(cls, items)

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

    def __mul__(self, n: Any) -> "Size":
        r = tuple.__mul__(self, n)
        return r if r is NotImplemented else Size(r)

    __rmul__ = __mul__

    def __reduce__(self) -> Any:
        return (Size, (tuple(self),))


def _as_ints(items: tuple, start: int) -> tuple:
    """``items`` with every element an int (anything with ``__index__`` is accepted, as torch does)."""
    out = list(items)
    for i in range(start, len(out)):
        v = out[i]
        if type(v) is int:
            continue
        if isinstance(v, float) or not hasattr(v, "__index__"):
            raise TypeError(f"tensorlib.Size() takes an iterable of 'int' (item {i} is '{type(v).__name__}')")
        try:
            out[i] = v.__index__()
        except TypeError:
            raise TypeError(f"tensorlib.Size() takes an iterable of 'int' (item {i} is '{type(v).__name__}')") from None
    return tuple(out)
