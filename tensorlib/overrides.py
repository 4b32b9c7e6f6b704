"""``tensorlib.overrides``: introspection and helpers for the ``__torch_function__`` protocol (torch's names).

Everything here is bound to tensorlib's instance of :class:`dispatch.Protocol`;
the tables are generated from the registered functions, not kept by hand.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

from dispatch import disabled_handler

from ._protocol import protocol
from ._tensor import Tensor

TorchFunctionMode = protocol.Mode
_disabled_torch_function_impl = disabled_handler


class BaseTorchFunctionMode(TorchFunctionMode):  # type: ignore[misc, valid-type]
    """A mode that runs every function unchanged: subclass it and override only what you need."""

    def __torch_function__(self, func: Callable, types: tuple, args: tuple = (), kwargs: dict | None = None) -> Any:
        return func(*args, **(kwargs or {}))


def get_overridable_functions() -> dict[Any, list[Callable]]:
    """Namespace (``tensorlib``, ``tensorlib.Tensor``, ``tensorlib.nn.functional``, ...) -> its overridable functions."""
    return protocol.registry.overridable_functions()


def get_testing_overrides() -> dict[Callable, Callable]:
    """Every overridable function -> a function with its exact signature that returns -1."""
    return protocol.registry.testing_overrides()


def get_ignored_functions() -> set[Callable]:
    """Public callables that arguments cannot override (creation without tensor arguments, grad modes, seeding, ...).

    As in torch, active modes still see calls to the factories among them (``tensorlib.zeros``, ``tensorlib.tensor``).
    """
    return protocol.registry.ignored_functions()


def has_torch_function(relevant_args: Iterable[Any]) -> bool:
    """Whether a call should go to :func:`handle_torch_function`.

    True if one of ``relevant_args`` (the values themselves, not their
    elements) implements ``__torch_function__``, or if a mode is active; False
    inside :class:`DisableTorchFunction` (and, but for modes, inside
    :class:`DisableTorchFunctionSubclass`).
    """
    return protocol.has_override(relevant_args)


def has_torch_function_unary(arg: Any) -> bool:
    """``has_torch_function((arg,))``."""
    return protocol.has_override((arg,))


def has_torch_function_variadic(*args: Any) -> bool:
    """``has_torch_function(args)``."""
    return protocol.has_override(args)


def handle_torch_function(public_api: Callable, relevant_args: Iterable[Any], *args: Any, **kwargs: Any) -> Any:
    """Dispatch a call of ``public_api(*args, **kwargs)`` to the active mode and the overrides among ``relevant_args``.

    Raises TypeError if none of them handles it.
    """
    return protocol.handle(public_api, relevant_args, args, kwargs)


def wrap_torch_function(dispatcher: Callable[..., Iterable[Any]]) -> Callable[[Callable], Callable]:
    """Decorator making a function overridable by the values ``dispatcher(*args, **kwargs)`` returns.

    ``dispatcher`` takes the same arguments as the decorated function.
    """
    return protocol.wrap_with_dispatcher(dispatcher)


def is_tensor_like(inp: Any) -> bool:
    """True for Tensors and for objects whose type implements ``__torch_function__``."""
    return type(inp) is Tensor or hasattr(type(inp), "__torch_function__")


def is_tensor_method_or_property(func: Callable) -> bool:
    """Whether ``func`` is a Tensor method, operator or property accessor (gets ``self`` first)."""
    return protocol.registry.is_method(func)


def resolve_name(f: Callable) -> str | None:
    """The dotted name of a public function, overridable or ignored (``eval(resolve_name(f))`` gives ``f`` back).

    ``None`` for anything else.
    """
    return protocol.registry.resolve_name(f)


class DisableTorchFunction:
    """Context manager: no ``__torch_function__`` dispatch at all in this thread (modes included).

    An instance can be entered again, nested or later; each exit restores the
    state its matching entry found.
    """

    __slots__ = ("_ctx",)

    def __init__(self) -> None:
        self._ctx = protocol.disabled()

    def __enter__(self) -> None:
        self._ctx.__enter__()

    def __exit__(self, *exc: Any) -> None:
        self._ctx.__exit__(*exc)


class DisableTorchFunctionSubclass:
    """Context manager: no dispatch to Tensor subclasses and duck types in this thread (modes still apply)."""

    __slots__ = ("_ctx",)

    def __init__(self) -> None:
        self._ctx = protocol.subclasses_disabled()

    def __enter__(self) -> None:
        self._ctx.__enter__()

    def __exit__(self, *exc: Any) -> None:
        self._ctx.__exit__(*exc)


def _get_current_function_mode_stack() -> list:
    """This thread's active modes, outermost first."""
    return protocol.mode_stack()


def _get_current_function_mode() -> Any:
    """This thread's innermost active mode, or None."""
    stack = protocol.mode_stack()
    return stack[-1] if stack else None


__all__ = [
    "BaseTorchFunctionMode",
    "DisableTorchFunction",
    "DisableTorchFunctionSubclass",
    "TorchFunctionMode",
    "get_ignored_functions",
    "get_overridable_functions",
    "get_testing_overrides",
    "handle_torch_function",
    "has_torch_function",
    "has_torch_function_unary",
    "has_torch_function_variadic",
    "is_tensor_like",
    "is_tensor_method_or_property",
    "resolve_name",
    "wrap_torch_function",
]
