"""``tensorlib.overrides``: introspection and helpers for the ``__torch_function__`` protocol (torch's names).

Everything here is bound to tensorlib's instance of :class:`dispatch.Protocol`;
the tables are generated from the registered functions, not kept by hand.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import warnings
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, TypeVar

from dispatch import disabled_handler

from ._C import (
    DisableTorchFunction,
    DisableTorchFunctionSubclass,
    _disabled_torch_function_impl,
    _get_function_stack_at,
    _has_torch_function,
    _has_torch_function_unary,
    _has_torch_function_variadic,
    _is_torch_function_enabled,
    _is_torch_function_mode_enabled,
    _len_torch_function_stack,
    _pop_torch_function_stack,
    _push_on_torch_function_stack,
)
from ._protocol import protocol

if TYPE_CHECKING:
    from dispatch import CoverageReport

    from ._trace import CallRecord, TraceMode
from ._tensor import _NO_WRAP, Tensor

F = TypeVar("F", bound=Callable[..., Any])

TorchFunctionMode = protocol.Mode

# As in torch, these are the very objects of the private C module.
has_torch_function = _has_torch_function
has_torch_function_unary = _has_torch_function_unary
has_torch_function_variadic = _has_torch_function_variadic


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


def coverage(type_: type, *, factory: Callable[[], Any] | None = None) -> CoverageReport:
    """Which of tensorlib's overridable functions ``type_`` handles, per namespace, and how well it is signed.

    Read from the type's ``dispatch.Implementations`` table when it has one,
    else probed (see :func:`dispatch.coverage`; ``factory`` makes the instance
    to probe with). Print ``report.to_text()`` or ``to_markdown()``; the same
    report is ``python -m dispatch coverage MODULE:TYPE``.
    """
    import dispatch  # the coverage tool loads on first use

    return dispatch.coverage(type_, protocol, factory=factory)


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


def redispatch_function(func: Callable, types: tuple, args: tuple, kwargs: dict | None = None) -> Any:
    """Inside a ``__torch_function__`` handler: call ``func`` skipping this one level of dispatch.

    For a tensorlib function the implementation runs on the same arguments (the
    functions it calls dispatch as usual); a function guarded by
    :func:`has_torch_function` runs with that first check answering False.
    """
    return protocol.redispatch(func, tuple(args), kwargs)


def _get_overloaded_args(relevant_args: Iterable[Any], get_type_fn: Callable[[Any], type] | None = None) -> list[Any]:
    """The arguments whose ``__torch_function__`` would be called, one per type, in calling order.

    A subclass comes before its superclasses, otherwise left to right. Plain
    Tensors count (their type defines ``__torch_function__``); types whose
    handler is ``_disabled_torch_function_impl`` do not. Empty while
    dispatch to subclasses is disabled.
    """
    type_of: Callable[[Any], type] = type if get_type_fn is None else get_type_fn
    if not _is_torch_function_enabled():
        return []
    seen: set[type] = set()
    out: list[Any] = []
    for arg in relevant_args:
        tp = type_of(arg)
        if tp in seen or not hasattr(tp, "__torch_function__"):
            continue
        handler = tp.__torch_function__
        if handler is _disabled_torch_function_impl or handler is disabled_handler:
            continue
        seen.add(tp)
        index = next((i for i, old in enumerate(out) if issubclass(tp, type_of(old))), len(out))
        out.insert(index, arg)
    return out


@functools.cache
def _get_overridable_functions() -> tuple[dict[Any, list[Callable]], dict[Callable, str]]:
    """``(get_overridable_functions(), index)``, ``index`` mapping every overridable function to its dotted name."""
    funcs = get_overridable_functions()
    index: dict[Callable, str] = {}
    for namespace_funcs in funcs.values():
        for f in namespace_funcs:
            name = resolve_name(f)
            if name is not None:
                index[f] = name
    return funcs, index


@functools.cache
def _get_tensor_methods() -> set[Callable]:
    """The overridable methods, operators and property accessors of Tensor (one cached set)."""
    return set(get_overridable_functions()[Tensor])


def get_default_nowrap_functions() -> set[Callable]:
    """Functions whose results Tensor's default ``__torch_function__`` returns as they are, not as the subclass.

    Field reads such as ``Tensor.grad.__get__``, whose result must keep its
    identity. This is the set the default handler consults: adding to it changes
    what that handler wraps.
    """
    return _NO_WRAP


def _get_current_function_mode() -> Any:
    """This thread's innermost active mode, or None."""
    n = _len_torch_function_stack()
    return _get_function_stack_at(n - 1) if n > 0 else None


def _get_current_function_mode_stack() -> list:
    """This thread's active modes, outermost first."""
    return [_get_function_stack_at(i) for i in range(_len_torch_function_stack())]


def _push_mode(mode: Any) -> None:
    """Push ``mode`` on this thread's mode stack."""
    _push_on_torch_function_stack(mode)


def _pop_mode() -> Any:
    """Pop and return this thread's innermost mode (RuntimeError on an empty stack)."""
    return _pop_torch_function_stack()


@contextlib.contextmanager
def _pop_mode_temporarily() -> Iterator[Any]:
    """Context manager: the innermost mode is off the stack for the block (it is the ``as`` value), then back."""
    old = _pop_mode()
    try:
        yield old
    finally:
        _push_mode(old)


@contextlib.contextmanager
def _enable_torch_function() -> Iterator[None]:
    """Context manager: full ``__torch_function__`` dispatch in the block, even inside a disable context."""
    with protocol.enabled():
        yield


@contextlib.contextmanager
def enable_reentrant_dispatch() -> Iterator[None]:
    """torch's re-entry into ``__torch_dispatch__``: tensorlib has no such level, so it is never inside one.

    Entering raises torch's RuntimeError for use outside ``__torch_dispatch__``.
    """
    raise RuntimeError("Accessing torch dispatch state outside of '__torch_dispatch__' is not allowed.")
    yield  # pragma: no cover


def _disable_user_warnings(
    func: F, regex: str = ".*is deprecated, please use.*", module: str = "tensorlib"
) -> F:
    """Wrap ``func`` so that UserWarnings matching ``regex`` raised from ``module`` are ignored while it runs."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", category=UserWarning, message=regex, module=module)
            return func(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


__all__ = [
    "BaseTorchFunctionMode",
    "CallRecord",
    "TraceMode",
    "coverage",
    "DisableTorchFunction",
    "DisableTorchFunctionSubclass",
    "TorchFunctionMode",
    "get_ignored_functions",
    "get_overridable_functions",
    "enable_reentrant_dispatch",
    "get_testing_overrides",
    "handle_torch_function",
    "has_torch_function",
    "has_torch_function_unary",
    "has_torch_function_variadic",
    "is_tensor_like",
    "is_tensor_method_or_property",
    "redispatch_function",
    "resolve_name",
    "wrap_torch_function",
]


def __getattr__(name: str) -> Any:
    # the call tracer loads on first use
    if name in ("CallRecord", "TraceMode"):
        value = getattr(importlib.import_module("._trace", __package__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
