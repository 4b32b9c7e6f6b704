"""Thread-local switches for gradient recording: ``no_grad``, ``enable_grad``, ``set_grad_enabled``."""

from __future__ import annotations

import functools
import inspect
import threading
from typing import Any, Callable, TypeVar

from .._registry import AUTOGRAD, TENSORLIB, public

F = TypeVar("F", bound=Callable[..., Any])


class _GradState(threading.local):
    def __init__(self) -> None:
        self.enabled = True


STATE = _GradState()


@public(namespace=(TENSORLIB, AUTOGRAD))
def is_grad_enabled() -> bool:
    """Whether operations on tensors that require grad are recorded in this thread."""
    return STATE.enabled


class _GradModeContext:
    """Base of the grad-mode context managers; each also works as a decorator."""

    _target: bool

    def __init__(self) -> None:
        self._prev: list[bool] = []

    def __enter__(self) -> None:
        self._prev.append(STATE.enabled)
        STATE.enabled = self._target

    def __exit__(self, *exc: Any) -> None:
        STATE.enabled = self._prev.pop()

    def __call__(self, func: F) -> F:
        if inspect.isclass(func):
            raise TypeError(f"{type(self).__name__} cannot decorate a class; decorate its methods instead")
        target = self._target
        if inspect.isgeneratorfunction(func):

            @functools.wraps(func)
            def gen_wrapper(*args: Any, **kwargs: Any) -> Any:
                gen = func(*args, **kwargs)
                prev = STATE.enabled
                try:
                    STATE.enabled = target
                    value = next(gen)
                    while True:
                        STATE.enabled = prev
                        sent = yield value
                        STATE.enabled = target
                        value = gen.send(sent)
                except StopIteration as stop:
                    return stop.value
                finally:
                    STATE.enabled = prev

            return gen_wrapper  # type: ignore[return-value]

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            prev = STATE.enabled
            STATE.enabled = target
            try:
                return func(*args, **kwargs)
            finally:
                STATE.enabled = prev

        return wrapper  # type: ignore[return-value]


class _NoParamContext(_GradModeContext):
    """A grad-mode context that also decorates without parentheses (``@no_grad``), as torch allows."""

    def __new__(cls, orig_func: Any = None) -> Any:
        if orig_func is None:
            return super().__new__(cls)
        if not callable(orig_func):
            raise TypeError(f"{cls.__name__}() takes no arguments (got {type(orig_func).__name__})")
        return cls()(orig_func)

    def __init__(self, orig_func: Any = None) -> None:
        super().__init__()


@public(namespace=(TENSORLIB, AUTOGRAD))
class no_grad(_NoParamContext):
    """Context manager and decorator that disables gradient recording in this thread."""

    _target = False


@public(namespace=(TENSORLIB, AUTOGRAD))
class enable_grad(_NoParamContext):
    """Context manager and decorator that enables gradient recording (e.g. inside ``no_grad``)."""

    _target = True


@public(namespace=(TENSORLIB, AUTOGRAD))
class set_grad_enabled(_GradModeContext):
    """Enable or disable gradient recording: at once, or as a context manager or decorator.

    As in torch, ``set_grad_enabled(False)`` used as a plain call switches the
    mode immediately; used with ``with`` it restores the previous mode on exit.
    """

    def __init__(self, mode: bool) -> None:
        super().__init__()
        if not isinstance(mode, (bool, int)):
            raise TypeError(f"set_grad_enabled(): argument 'mode' must be bool, not {type(mode).__name__}")
        self._target = bool(mode)
        self._entry_prev = STATE.enabled
        STATE.enabled = self._target

    def __enter__(self) -> None:
        self._prev.append(self._entry_prev)
        STATE.enabled = self._target

    def __call__(self, func: F) -> F:
        STATE.enabled = self._entry_prev
        return super().__call__(func)


@public(namespace=(TENSORLIB, AUTOGRAD))
class inference_mode(_GradModeContext):
    """Like ``no_grad`` (this library has no separate inference tensors)."""

    def __new__(cls, mode: Any = True) -> Any:
        if callable(mode) and not isinstance(mode, bool):
            return cls()(mode)
        return super().__new__(cls)

    def __init__(self, mode: bool = True) -> None:
        super().__init__()
        self._target = not mode
