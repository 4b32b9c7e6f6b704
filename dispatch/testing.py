"""Test helpers for implementers: fail a test with the list of functions a type does not cover.

>>> # in a test module:
>>> # from dispatch.testing import assert_covers
>>> # def test_my_tensor_covers_the_basics():
>>> #     assert_covers(MyTensor, [torch.add, torch.mean], min_fraction=0.05)
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

from ._coverage import CoverageReport, coverage
from ._protocol import protocols_for

__all__ = ["assert_covers"]


def assert_covers(type_: type, functions: Iterable[Any] = (), *, min_fraction: float | None = None,
                  protocol: Any = None, factory: Callable[[], Any] | None = None,
                  signatures: bool = True) -> CoverageReport:
    """Raise AssertionError unless ``type_`` handles every one of ``functions`` (and at least ``min_fraction``
    of all overridable functions, when given), with no mis-signed implementation when ``signatures``.

    The message lists what is missing or mis-signed. Returns the report (see :func:`dispatch.coverage`).
    """
    report = coverage(type_, protocol, factory=factory)
    proto = protocol if protocol is not None else _protocol_of(report, type_)
    wanted = {proto.registry.display_name(f) for f in functions}
    handled = {name for ns in report.namespaces for name in ns.handled}
    problems = []
    missing = sorted(wanted - handled)
    if missing:
        problems.append(f"not handled: {', '.join(missing)}")
    if signatures:
        for ns in report.namespaces:
            for name, why in ns.mis_signed.items():
                if not wanted or name in wanted:
                    problems.append(f"mis-signed: {name}: {'; '.join(why)}")
    if min_fraction is not None and report.fraction < min_fraction:
        problems.append(f"handles {report.handled} of {report.total} overridable functions "
                        f"({100 * report.fraction:.1f}%), under the {100 * min_fraction:.1f}% required")
    if problems:
        raise AssertionError(f"{type_.__qualname__} does not cover what is required:\n  " + "\n  ".join(problems))
    return report


def _protocol_of(report: CoverageReport, type_: type) -> Any:
    return next(p for p in protocols_for(report.method) if hasattr(type_, p.method))
