"""A mode that records every public call made under it: a summary table and a Chrome/Perfetto trace file."""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass
from typing import Any

from ._protocol import protocol
from ._tensor import Tensor


@dataclass
class CallRecord:
    """One call seen by a :class:`TraceMode`: what was called, on what, what came back, and when."""

    name: str
    args: list[str]  # one summary per positional argument (``float32[2, 3]``, ``int``, ...)
    kwargs: dict[str, str]
    result: str
    start_ns: int  # perf_counter_ns at the call
    duration_ns: int
    thread: int
    error: str | None = None  # the exception type, when the call raised


def describe(value: Any) -> str:
    """A short summary of a value: ``float32[2, 3]`` for a tensor, ``[float32[2], int]`` for a list, else its type."""
    if isinstance(value, Tensor):
        return f"{value._data.dtype.name}{list(value._data.shape)}"
    if isinstance(value, (list, tuple)):
        inner = ", ".join(describe(v) for v in value[:4]) + (", ..." if len(value) > 4 else "")
        return f"[{inner}]" if isinstance(value, list) else f"({inner})"
    if value is None:
        return "None"
    return type(value).__name__


class TraceMode(protocol.Mode):  # type: ignore[name-defined]
    """Record every public function, method and property access called under ``with TraceMode() as trace:``.

    ``trace.records`` holds a :class:`CallRecord` per call (calls made by the
    implementations themselves are not seen, as in any mode);
    :meth:`summary` is a table of calls and time per function, and
    :meth:`save_chrome_trace` writes a file that chrome://tracing and
    https://ui.perfetto.dev open.
    """

    def __init__(self) -> None:
        super().__init__()
        self.records: list[CallRecord] = []
        self._lock = threading.Lock()

    def __torch_function__(self, func: Any, types: tuple, args: tuple = (), kwargs: dict | None = None) -> Any:
        kwargs = kwargs or {}
        name = protocol.registry.display_name(func)
        start = time.perf_counter_ns()
        error = None
        result: Any = None
        try:
            result = func(*args, **kwargs)
            return result
        except BaseException as exc:
            error = type(exc).__name__
            raise
        finally:
            duration = time.perf_counter_ns() - start
            record = CallRecord(name, [describe(a) for a in args], {k: describe(v) for k, v in kwargs.items()},
                                describe(result) if error is None else "-", start, duration,
                                threading.get_ident(), error)
            with self._lock:
                self.records.append(record)

    def totals(self) -> list[tuple[str, int, int]]:
        """``(name, calls, total ns)`` per function, the most expensive first."""
        acc: dict[str, list[int]] = {}
        for r in self.records:
            entry = acc.setdefault(r.name, [0, 0])
            entry[0] += 1
            entry[1] += r.duration_ns
        return sorted(((n, c, t) for n, (c, t) in acc.items()), key=lambda row: (-row[2], row[0]))

    def summary(self, top: int | None = None) -> str:
        """A table of calls, total and mean time per function (the ``top`` most expensive, or all)."""
        rows = self.totals()[:top] if top else self.totals()
        width = max([len(n) for n, _, _ in rows] + [8])
        lines = [f"{'function':<{width}}  {'calls':>6}  {'total ms':>9}  {'mean us':>8}"]
        for name, calls, total in rows:
            lines.append(f"{name:<{width}}  {calls:>6}  {total / 1e6:>9.3f}  {total / calls / 1e3:>8.1f}")
        all_ns = sum(t for _, _, t in self.totals())
        lines.append(f"{'all':<{width}}  {len(self.records):>6}  {all_ns / 1e6:>9.3f}")
        return "\n".join(lines) + "\n"

    def chrome_trace(self) -> dict[str, Any]:
        """The records as a trace-event document (complete events, microseconds from the first call)."""
        origin = min((r.start_ns for r in self.records), default=0)
        pid = os.getpid()
        events = [{
            "name": r.name, "cat": "tensorlib", "ph": "X", "ts": (r.start_ns - origin) / 1e3,
            "dur": r.duration_ns / 1e3, "pid": pid, "tid": r.thread,
            "args": {"args": r.args, "kwargs": r.kwargs, "result": r.result, **({"error": r.error} if r.error else {})},
        } for r in self.records]
        return {"traceEvents": events, "displayTimeUnit": "ms"}

    def save_chrome_trace(self, path: str | os.PathLike) -> str:
        """Write :meth:`chrome_trace` as JSON to ``path``; returns the path."""
        path = os.fspath(path)
        with open(path, "w") as f:
            import json  # here: only writing a trace file needs it

            json.dump(self.chrome_trace(), f)
        return path
