"""Callables the lowest layers need from the layers above them, installed once when tensorlib is imported.

:class:`~tensorlib.Tensor`'s own methods (``t.T``, ``t.backward()``, ``repr(t)``)
and the autograd engine (accumulating gradients, replaying views) call ops, the
engine and the printer, which live in modules that import ``_tensor`` and
``_autograd``. Rather than import upward, those lower modules read the callables
from :data:`hooks`; ``tensorlib/__init__`` fills it in once every layer is loaded.
"""

from __future__ import annotations

from typing import Any, Callable


class Hooks:
    """The injected callables, one slot each (reading an unset one means tensorlib is still being imported)."""

    __slots__ = (
        # ops used by Tensor's own properties and methods
        "reverse_dims", "transpose", "adjoint", "real", "imag", "alias", "to_dtype", "array_from_data", "parse_size",
        # autograd engine and views, for Tensor.backward / register_hook and view replay
        "backward", "backward_root", "add_hook", "regenerate_view_history",
        # printing
        "tensor_repr",
        # ops the autograd engine uses: accumulating gradients, masking a view's gradient, and converting it
        # between a base and a view of another dtype
        "add", "mul", "view_as_real", "view_as_complex", "reshape", "contiguous",
        # the tensorlib module itself, for helpers that must call the public (dispatching) functions:
        # gradcheck works on tensor-likes by calling what torch's gradcheck calls on them
        "api",
    )

    def __getattr__(self, name: str) -> Any:
        raise RuntimeError(f"tensorlib is not fully imported yet: {name!r} is not installed")


hooks: Any = Hooks()


def install(**callables: Callable) -> None:
    """Set the named hooks (each name must be one of :class:`Hooks`' slots)."""
    for name, fn in callables.items():
        setattr(hooks, name, fn)
