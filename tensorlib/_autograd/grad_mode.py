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


# -- switches of the backward engine that torch exposes (thread-local, as in torch) -----------------------


class _EngineState(threading.local):
    def __init__(self) -> None:
        self.multithreading = True
        self.grad_layout = True


ENGINE = _EngineState()


class _EngineSwitch:
    """Base of the engine switches: set at construction, restored on ``with`` exit; usable as a decorator."""

    _attr: str

    def __init__(self, value: bool) -> None:
        self.prev = getattr(ENGINE, self._attr)
        setattr(ENGINE, self._attr, bool(value))
        self.mode = value

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: Any) -> None:
        setattr(ENGINE, self._attr, self.prev)

    def clone(self) -> Any:
        """A new switch with the same mode."""
        return type(self)(self.mode)

    def __call__(self, func: F) -> F:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self.clone():
                return func(*args, **kwargs)

        return wrapper  # type: ignore[return-value]


@public(namespace=AUTOGRAD)
class set_multithreading_enabled(_EngineSwitch):
    """Enable or disable multithreaded backward (at once, or as a context manager or decorator).

    torch runs the backward pass of accelerator tensors on per-device worker threads; tensorlib's engine
    always runs on the calling thread, so the switch is kept (and restored) but changes nothing. As in torch,
    decorating a function leaves the mode it set in place, since the switch takes effect when it is made.
    """

    _attr = "multithreading"


@public(namespace=AUTOGRAD)
class enforce_grad_layout_policy(_EngineSwitch):
    """Whether accumulated gradients are given their parameter's strides (the default, ``True``), as a
    context manager or decorator.

    A leaf whose data is laid out densely but not in row-major order (a channels-last convolution weight)
    gets a ``.grad`` with the same strides, as in torch: the engine copies a first gradient of another
    layout into the leaf's. With ``enable=False`` a gradient the engine may take over (one nothing else
    refers to) is stored in whatever layout it has; a gradient that must be copied is still copied into
    the leaf's layout.
    """

    _attr = "grad_layout"

    def __call__(self, func: F) -> F:
        setattr(ENGINE, self._attr, self.prev)  # as in torch: the decorator applies the switch per call only
        return super().__call__(func)
