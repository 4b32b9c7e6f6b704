"""Anomaly detection: make backward raise as soon as a node produces NaN gradients (a per-thread setting)."""

from __future__ import annotations

import functools
import threading
import warnings
from typing import Any, Callable

import numpy as np

from .._registry import AUTOGRAD, TENSORLIB, public


class _AnomalyState(threading.local):
    # Per thread, like grad mode: a thread debugging its backward does not slow down (or make raise) the
    # backward passes of other threads. torch keeps this one switch process-wide.
    def __init__(self) -> None:
        self.enabled = False
        self.check_nan = True
        self.active = False  # enabled and check_nan: what the engine tests per node


ANOMALY = _AnomalyState()


class _Threads:
    """How many threads have anomaly detection active: the engine reads this plain counter per node, and
    this thread's (slower to read) state only while it is not zero."""

    __slots__ = ("active",)

    def __init__(self) -> None:
        self.active = 0


ANY_THREAD = _Threads()
_COUNT_LOCK = threading.Lock()


def _set(enabled: bool, check_nan: bool) -> None:
    was = ANOMALY.active
    ANOMALY.enabled = bool(enabled)
    ANOMALY.check_nan = bool(check_nan)
    ANOMALY.active = ANOMALY.enabled and ANOMALY.check_nan
    if ANOMALY.active != was:
        # a thread that ends with detection on leaves the count up: the engine then reads each thread's state
        with _COUNT_LOCK:
            ANY_THREAD.active += 1 if ANOMALY.active else -1


@public(namespace=(TENSORLIB, AUTOGRAD))
def is_anomaly_enabled() -> bool:
    """Whether anomaly detection is on in this thread."""
    return ANOMALY.enabled


@public(namespace=(TENSORLIB, AUTOGRAD))
def is_anomaly_check_nan_enabled() -> bool:
    """Whether anomaly detection checks backward outputs for NaN."""
    return ANOMALY.check_nan


def check_outputs(node: Any, outs: Any) -> None:
    """Raise if any gradient ``node`` produced contains NaN (called by the engine in anomaly mode)."""
    for i, g in enumerate(outs):
        data = getattr(g, "_data", None)
        if data is not None and data.dtype.kind in "fc" and np.isnan(data).any():
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")


@public(namespace=AUTOGRAD)
class detect_anomaly:
    """Context manager (and decorator) turning anomaly detection on: backward raises on NaN gradients."""

    def __init__(self, check_nan: bool = True) -> None:
        self.check_nan = check_nan
        self._prev: list = []
        warnings.warn(
            "Anomaly Detection has been enabled. This mode will increase the runtime and should only be enabled "
            "for debugging.",
            UserWarning,
            stacklevel=2,
        )

    def __enter__(self) -> None:
        self._prev.append((ANOMALY.enabled, ANOMALY.check_nan))
        _set(True, self.check_nan)

    def __exit__(self, *exc: Any) -> None:
        _set(*self._prev.pop())

    def __call__(self, func: Callable) -> Callable:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self:
                return func(*args, **kwargs)

        return wrapper


@public(namespace=AUTOGRAD)
class set_detect_anomaly:
    """Turn anomaly detection on or off now; as a context manager, restore the previous setting on exit."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self._prev = (ANOMALY.enabled, ANOMALY.check_nan)
        _set(mode, check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: Any) -> None:
        _set(*self._prev)
