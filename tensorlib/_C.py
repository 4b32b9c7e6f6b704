"""``tensorlib._C``: the ``__torch_function__`` state and helpers that ``torch.overrides`` users import from ``torch._C``.

Everything here works on tensorlib's instance of :class:`dispatch.Protocol`
(:mod:`tensorlib._protocol`) for the calling thread. Private, as in torch.
"""

from __future__ import annotations

from typing import Any, Iterable

from dispatch import DISABLED, ENABLED

from ._protocol import protocol

# Assign as a Tensor subclass's ``__torch_function__``: its instances then dispatch (and come back) as plain
# Tensors. Called as ``(func, types, args=(), kwargs=None)`` it runs ``func`` with ``__torch_function__`` off
# for subclasses and returns the result unconverted.
_disabled_torch_function_impl = protocol.disabled_impl
_disabled_torch_function_impl.__module__ = __name__


class _StateContext:
    """Base of the context managers that change this thread's ``__torch_function__`` state."""

    __slots__ = ("_ctx",)
    _ctx: Any

    def __enter__(self) -> None:
        self._ctx.__enter__()

    def __exit__(self, *exc: Any) -> None:
        self._ctx.__exit__(*exc)


class DisableTorchFunction(_StateContext):
    """Context manager: no ``__torch_function__`` dispatch at all in this thread (modes included).

    An instance can be entered again, nested or later; each exit restores the
    state its matching entry found. Arguments are accepted and ignored, as torch does.
    """

    __slots__ = ()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._ctx = protocol.disabled()


class DisableTorchFunctionSubclass(_StateContext):
    """Context manager: no dispatch to Tensor subclasses and duck types in this thread (modes still apply)."""

    __slots__ = ()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._ctx = protocol.subclasses_disabled()


class _EnableTorchFunction:
    """Full ``__torch_function__`` dispatch in this thread, even inside the disable contexts.

    A guard, as torch's: the state changes when the object is created and is
    restored when it is deleted or, used in a ``with`` statement, when the block exits.
    """

    __slots__ = ("_ctx", "_active")

    def __init__(self) -> None:
        self._ctx = protocol.enabled()
        self._ctx.__enter__()
        self._active = True

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> None:
        self._restore()

    def __del__(self) -> None:
        self._restore()

    def _restore(self) -> None:
        if getattr(self, "_active", False):
            self._active = False
            self._ctx.__exit__(None, None, None)


def _is_torch_function_enabled() -> bool:
    """Whether Tensor subclasses and duck types are dispatched to in this thread (no disable context is active)."""
    return protocol.dispatch_level() == ENABLED


def _is_torch_function_all_disabled() -> bool:
    """Whether this thread is inside :class:`DisableTorchFunction` (no dispatch, not even to modes)."""
    return protocol.dispatch_level() == DISABLED


def _is_torch_function_mode_enabled() -> bool:
    """Whether calls in this thread go to a mode: one is on the stack and dispatch is not all disabled."""
    return protocol.modes_enabled()


def _len_torch_function_stack() -> int:
    """The number of modes on this thread's stack (a mode whose handler is running is off it)."""
    return protocol.mode_stack_len()


def _push_on_torch_function_stack(mode: Any) -> None:
    """Push ``mode`` on this thread's mode stack (no check that it is a mode)."""
    protocol.push_mode(mode)


def _pop_torch_function_stack() -> Any:
    """Pop and return this thread's innermost mode (RuntimeError on an empty stack)."""
    return protocol.pop_mode()


def _get_function_stack_at(level: int) -> Any:
    """The mode at position ``level`` of this thread's stack, 0 the outermost (RuntimeError if out of range)."""
    if not isinstance(level, int) or isinstance(level, bool):
        raise TypeError(f"get_stack_at(): argument 'level' (position 1) must be int, not {type(level).__name__}")
    return protocol.mode_at(level)


def _has_torch_function(relevant_args: Iterable[Any]) -> bool:
    """Whether a call should go to ``handle_torch_function``.

    True if one of ``relevant_args`` (the values themselves, not their
    elements) implements ``__torch_function__``, or if a mode is active; False
    inside :class:`DisableTorchFunction` (and, but for modes, inside
    :class:`DisableTorchFunctionSubclass`). Plain Tensors and Parameters never
    count. ``TypeError: expected a sequence`` if ``relevant_args`` is not iterable.
    """
    return protocol.has_override(relevant_args)


def _has_torch_function_unary(arg: Any) -> bool:
    """``has_torch_function((arg,))``."""
    return protocol.has_override((arg,))


def _has_torch_function_variadic(*args: Any) -> bool:
    """``has_torch_function(args)``."""
    return protocol.has_override(args)


class _LinAlgError(RuntimeError):
    """Raised when a linear algebra routine fails on its input (a singular matrix, one that is not positive-definite).

    A RuntimeError, as torch's; public as ``tensorlib.linalg.LinAlgError``.
    """
