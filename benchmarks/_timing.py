"""Timing helpers for the benchmark scripts: interleaved repeats, best-of, per-call nanoseconds.

These machines are noisy, so every script measures all its candidates in one
run, interleaving the repeats, and reports ratios against a baseline measured
alongside; a lone absolute number means little.
"""

from __future__ import annotations

import timeit
from typing import Callable


def best_ns(candidates: dict[str, Callable[[], object]], number: int = 20000, repeat: int = 7) -> dict[str, float]:
    """Best per-call time in nanoseconds of each candidate, repeats interleaved across candidates."""
    timers = {name: timeit.Timer(fn) for name, fn in candidates.items()}
    for t in timers.values():
        t.timeit(number=max(1, number // 10))  # warm up
    best = {name: float("inf") for name in candidates}
    for _ in range(repeat):
        for name, t in timers.items():
            best[name] = min(best[name], t.timeit(number=number) / number * 1e9)
    return best


def table(title: str, results: dict[str, float], baseline: str) -> None:
    """Print results as ns per call and as a ratio to ``baseline``."""
    base = results[baseline]
    print(f"\n{title}")
    width = max(len(k) for k in results)
    for name, ns in results.items():
        print(f"  {name:<{width}}  {ns:9.0f} ns   x{ns / base:5.2f} of {baseline}")


def try_import_torch() -> object | None:
    try:
        import torch  # noqa: F401 - optional reference
    except Exception:  # noqa: BLE001 - any import failure means "not available"
        return None
    return torch
