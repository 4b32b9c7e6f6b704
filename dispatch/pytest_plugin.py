"""pytest plugin: report (and require) how much of a protocol's API a type covers, at the end of a test run.

Installed with the package (entry point ``pytest11``), it adds two options:

    pytest --dispatch-coverage mypkg.tensors:MyTensor --dispatch-fail-under 40

``--dispatch-coverage MODULE:TYPE`` (repeatable; MODULE may be a ``.py`` path)
prints each type's coverage table in the terminal summary, as ``python -m
dispatch coverage`` does; with ``--dispatch-fail-under PCT`` the run fails
when a type handles less than PCT percent of the overridable functions. In a
test, :func:`dispatch.testing.assert_covers` (also the ``assert_covers``
fixture) checks specific functions.

Nothing is imported until an option is used: the plugin costs nothing to test runs that do not.
"""

from __future__ import annotations

from typing import Any, Callable

import pytest

_REPORTS = pytest.StashKey[list]()


def pytest_addoption(parser: Any) -> None:
    group = parser.getgroup("dispatch", "coverage of an override protocol (dispatch)")
    group.addoption("--dispatch-coverage", action="append", default=[], metavar="MODULE:TYPE",
                    help="report which overridable functions TYPE handles, at the end of the run (repeatable)")
    group.addoption("--dispatch-fail-under", type=float, default=None, metavar="PCT",
                    help="fail the run when a type given to --dispatch-coverage covers less than PCT percent")


def pytest_configure(config: Any) -> None:
    specs = config.getoption("dispatch_coverage")
    if config.getoption("dispatch_fail_under") is not None and not specs:
        raise pytest.UsageError("--dispatch-fail-under needs at least one --dispatch-coverage MODULE:TYPE")
    config.stash[_REPORTS] = []


def _reports(config: Any) -> list:
    """``(spec, report)`` per ``--dispatch-coverage``, computed once, after the tests ran."""
    done = config.stash[_REPORTS]
    if not done:
        from ._coverage import coverage
        from .__main__ import _load

        for spec in config.getoption("dispatch_coverage"):
            try:
                type_ = _load(spec, "--dispatch-coverage")
            except SystemExit as exc:  # the CLI's loader reports bad specs this way
                raise pytest.UsageError(str(exc)) from None
            if not isinstance(type_, type):
                raise pytest.UsageError(f"--dispatch-coverage {spec}: not a class")
            done.append((spec, coverage(type_)))
    return done


def _below(config: Any) -> list[tuple[str, float]]:
    limit = config.getoption("dispatch_fail_under")
    if limit is None:
        return []
    return [(spec, 100 * r.fraction) for spec, r in _reports(config) if 100 * r.fraction < limit]


def pytest_sessionfinish(session: Any, exitstatus: int) -> None:
    if session.config.getoption("dispatch_coverage") and _below(session.config) and exitstatus == 0:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: Any) -> None:
    if not config.getoption("dispatch_coverage"):
        return
    terminalreporter.section("dispatch coverage")
    for _, report in _reports(config):
        terminalreporter.write(report.to_text(20))
    limit = config.getoption("dispatch_fail_under")
    for spec, pct in _below(config):
        terminalreporter.write_line(f"FAILED: {spec} covers {pct:.2f}%, under the {limit:g}% required", red=True)


@pytest.fixture
def assert_covers() -> Callable[..., Any]:
    """:func:`dispatch.testing.assert_covers`, as a fixture."""
    from .testing import assert_covers as check

    return check
