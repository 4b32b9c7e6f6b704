"""One adapter for the names torch and tensorlib give the same things, so each test is written once.

Tests take the ``api`` fixture (``conftest.py``) and run twice: against tensorlib,
and against torch when it is installed (skipped otherwise).
"""

from __future__ import annotations

import pytest

TORCH_PLAIN_METHOD_WARNING = "ignore:Defining your `__torch_function__"


class Api:
    """The pieces of one library the protocol tests use."""

    def __init__(self, name: str) -> None:
        self.name = name
        if name == "torch":
            torch = pytest.importorskip("torch")
            import torch.nn.functional
            import torch.overrides

            self.lib = torch
            self.ov = torch.overrides
            self.DisableTorchFunction = torch._C.DisableTorchFunction
            self.DisableTorchFunctionSubclass = torch._C.DisableTorchFunctionSubclass
            self.disabled_impl = torch._C._disabled_torch_function_impl
        else:
            import tensorlib
            import tensorlib.nn.functional
            import tensorlib.overrides

            self.lib = tensorlib
            self.ov = tensorlib.overrides
            self.DisableTorchFunction = tensorlib.overrides.DisableTorchFunction
            self.DisableTorchFunctionSubclass = tensorlib.overrides.DisableTorchFunctionSubclass
            self.disabled_impl = tensorlib.overrides._disabled_torch_function_impl
        self.Tensor = self.lib.Tensor
        self.F = self.lib.nn.functional
        self.Parameter = self.lib.nn.Parameter
        self.TorchFunctionMode = self.ov.TorchFunctionMode

    @property
    def is_torch(self) -> bool:
        return self.name == "torch"

    def t(self, *values: float):
        """A float32 tensor (default ``[1., 2.]``)."""
        return self.lib.tensor(list(values) if values else [1.0, 2.0])

    def rename(self, text: str) -> str:
        """``text`` with tensorlib's spelling of the library name replaced by this library's."""
        return text.replace("tensorlib", self.name)

    def __repr__(self) -> str:
        return f"Api({self.name})"


def kwargs_of(kwargs):
    """A handler's ``kwargs`` as a dict (torch passes None when there are none)."""
    return {} if kwargs is None else kwargs


def type_shape(value, sub: type, base: type):
    """Describe ``value`` by the types in it: ``'S'`` for ``sub``, ``'T'`` for ``base``, nested for tuples and lists."""
    if isinstance(value, base):
        if type(value) is sub:
            return "S"
        return "T" if type(value) is base else type(value).__name__
    if isinstance(value, (tuple, list)):
        return (type(value).__name__, tuple(type_shape(v, sub, base) for v in value))
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    return "other"
