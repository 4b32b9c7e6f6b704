"""Dispatch on a call whose arguments hold thousands of distinct implementer types, against PyTorch.

``cat([d_0, ..., d_N])`` where every ``d_i`` is an instance of its own class defining ``__torch_function__``: the
protocol must collect one object per type, in order (subclasses before their bases), before calling the first
handler. PyTorch looks every type up again on each call; tensorlib classifies a type once. Printed for N in
500, 2,000 and 5,000 types: the first call with fresh classes (classification included) and later calls, in
milliseconds and as a ratio to PyTorch; a time that grows linearly with N keeps the ratio flat.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any, Callable

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tensorlib  # noqa: E402
from _timing import try_import_torch  # noqa: E402


def _handler(cls: type, func: Any, types: tuple, args: tuple = (), kwargs: Any = None) -> Any:
    return len(types)


def make_objects(n: int, tag: str) -> list:
    """One instance each of ``n`` fresh classes with a ``__torch_function__`` classmethod."""
    return [type(f"{tag}{i}", (), {"__torch_function__": classmethod(_handler)})() for i in range(n)]


def best_ms(fn: Callable[[], Any], repeat: int = 5) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best * 1e3


def first_call_ms(lib: Any, n: int, repeat: int = 3) -> float:
    """The best over ``repeat`` runs of one call with classes never seen before."""
    best = float("inf")
    for r in range(repeat):
        objs = make_objects(n, f"First{r}_")
        start = time.perf_counter()
        assert lib.cat(objs) == n
        best = min(best, time.perf_counter() - start)
    return best * 1e3


def main() -> None:
    torch = try_import_torch()
    libs: dict[str, Any] = {"tensorlib": tensorlib}
    if torch is not None:
        libs["PyTorch"] = torch
    print("cat() of N objects of N distinct implementer types (ms; ratio to PyTorch)")
    print(f"  {'N':>6}  {'call':<12}" + "".join(f"{name:>12}" for name in libs) + ("     ratio" if torch else ""))
    for n in (500, 2000, 5000):
        rows = {"first call": {}, "later calls": {}}
        for name, lib in libs.items():
            rows["first call"][name] = first_call_ms(lib, n)
            objs = make_objects(n, f"Warm{n}_")
            lib.cat(objs)
            rows["later calls"][name] = best_ms(lambda: lib.cat(objs))
        for label, times in rows.items():
            ratio = f"{times['tensorlib'] / times['PyTorch']:>10.2f}" if torch else ""
            print(f"  {n:>6}  {label:<12}" + "".join(f"{t:>12.2f}" for t in times.values()) + ratio)


if __name__ == "__main__":
    main()
