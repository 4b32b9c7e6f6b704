"""The base of torch's enum-like types (``memory_format``, ``layout``): named constants made once, read-only.

This module imports nothing from tensorlib.
"""

from __future__ import annotations

from typing import Any, TypeVar

C = TypeVar("C", bound="NamedConstant")


class NamedConstant:
    """A constant shown (and pickled) as ``tensorlib.<name>``; users cannot make new ones."""

    __slots__ = ("_name",)
    _name: str

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(f"cannot create 'tensorlib.{cls.__name__}' instances")

    @classmethod
    def _make(cls: type[C], name: str) -> C:
        """One of the module's constants (only the defining module makes them)."""
        obj = object.__new__(cls)
        object.__setattr__(obj, "_name", name)
        return obj

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"'tensorlib.{type(self).__name__}' object attribute '{name}' is read-only")

    def __repr__(self) -> str:
        return f"tensorlib.{self._name}"

    def __reduce__(self) -> str:
        return self._name  # pickled by name: unpickling gives the same constant back

    def __copy__(self: C) -> C:
        return self

    def __deepcopy__(self: C, memo: dict) -> C:
        return self
