"""Padding modules over ``nn.functional.pad``: zero, constant, reflection, replication and circular padding."""

from __future__ import annotations

from typing import Any

from .. import functional
from .module import Module


def _widths(padding: Any, n: int) -> tuple:
    if isinstance(padding, int):
        return (padding,) * (2 * n)
    padding = tuple(padding)
    if len(padding) != 2 * n:
        raise ValueError(f"Padding must be an int or a {2 * n}-tuple, got {padding}")
    return padding


class _PadNd(Module):
    _dims = 1
    _mode = "constant"

    def __init__(self, padding: Any) -> None:
        super().__init__()
        self.padding = _widths(padding, self._dims)

    def forward(self, input: Any) -> Any:
        return functional.pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def __init__(self, padding: Any, value: float) -> None:
        super().__init__(padding)
        self.value = value

    def forward(self, input: Any) -> Any:
        return functional.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


def _constant(name: str, dims: int) -> type:
    return type(name, (_ConstantPadNd,), {"_dims": dims, "__doc__": f"Pad the last {dims} dim(s) with a constant.",
                                          "__module__": __name__})


def _zero(name: str, dims: int) -> type:
    def __init__(self: Any, padding: Any) -> None:
        _ConstantPadNd.__init__(self, padding, 0.0)

    return type(name, (_ConstantPadNd,), {"_dims": dims, "__init__": __init__, "extra_repr": _PadNd.extra_repr,
                                          "__doc__": f"Pad the last {dims} dim(s) with zeros.", "__module__": __name__})


def _mode(name: str, dims: int, mode: str, what: str) -> type:
    return type(name, (_PadNd,), {"_dims": dims, "_mode": mode, "__doc__": f"Pad the last {dims} dim(s) {what}.",
                                  "__module__": __name__})


ConstantPad1d, ConstantPad2d, ConstantPad3d = (_constant(f"ConstantPad{n}d", n) for n in (1, 2, 3))
ZeroPad1d, ZeroPad2d, ZeroPad3d = (_zero(f"ZeroPad{n}d", n) for n in (1, 2, 3))
ReflectionPad1d, ReflectionPad2d, ReflectionPad3d = (
    _mode(f"ReflectionPad{n}d", n, "reflect", "by reflection at the border") for n in (1, 2, 3))
ReplicationPad1d, ReplicationPad2d, ReplicationPad3d = (
    _mode(f"ReplicationPad{n}d", n, "replicate", "by repeating the border values") for n in (1, 2, 3))
CircularPad1d, CircularPad2d, CircularPad3d = (
    _mode(f"CircularPad{n}d", n, "circular", "by wrapping around") for n in (1, 2, 3))
