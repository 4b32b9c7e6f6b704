"""The pytest plugin (dispatch.pytest_plugin): --dispatch-coverage reports, --dispatch-fail-under sets the exit status,
and the assert_covers fixture."""

from __future__ import annotations

import importlib.metadata
import os

import pytest

pytest_plugins = ["pytester"]

EXAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, "examples",
                       "toolkit_scalar_tensor.py")
SPEC = f"{EXAMPLE}:ScalarTensor"
# installed, the plugin loads by its entry point; from a source tree that was not installed, by name
INSTALLED = any(ep.value == "dispatch.pytest_plugin" for ep in importlib.metadata.entry_points(group="pytest11"))
LOAD = () if INSTALLED else ("-p", "dispatch.pytest_plugin")


def _run(pytester: pytest.Pytester, *options: str) -> pytest.RunResult:
    pytester.makepyfile(test_nothing="def test_one():\n    assert True\n")
    return pytester.runpytest_subprocess(*LOAD, "-p", "no:cacheprovider", *options)


def test_the_report_is_printed_after_the_tests(pytester: pytest.Pytester) -> None:
    result = _run(pytester, "--dispatch-coverage", SPEC)
    assert result.ret == 0
    result.stdout.fnmatch_lines(["*dispatch coverage*", "ScalarTensor: coverage of __torch_function__ (read from its table)",
                                 "tensorlib * 2 * 0.4*"])


def test_fail_under_fails_the_run_with_the_figure(pytester: pytest.Pytester) -> None:
    result = _run(pytester, "--dispatch-coverage", SPEC, "--dispatch-fail-under", "50")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([f"FAILED: {SPEC} covers 0.*%, under the 50% required", "*1 passed*"])
    assert _run(pytester, "--dispatch-coverage", SPEC, "--dispatch-fail-under", "0.1").ret == 0


def test_usage_errors_name_the_problem(pytester: pytest.Pytester) -> None:
    result = _run(pytester, "--dispatch-fail-under", "50")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--dispatch-fail-under needs at least one --dispatch-coverage MODULE:TYPE*"])
    result = _run(pytester, "--dispatch-coverage", "no_colon")
    assert result.ret != 0
    result.stderr.fnmatch_lines(["*--dispatch-coverage must look like MODULE:NAME*"])


def test_without_options_nothing_is_reported(pytester: pytest.Pytester) -> None:
    result = _run(pytester)
    assert result.ret == 0 and "dispatch coverage" not in result.stdout.str()


def test_the_assert_covers_fixture(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_cover=f"""
import runpy
import tensorlib
import pytest

ScalarTensor = runpy.run_path({EXAMPLE!r}, run_name="fixture_test")["ScalarTensor"]

def test_covered(assert_covers):
    assert_covers(ScalarTensor, [tensorlib.add, tensorlib.mean])

def test_not_covered(assert_covers):
    with pytest.raises(AssertionError, match="not handled: tensorlib.mul"):
        assert_covers(ScalarTensor, [tensorlib.mul])
""")
    result = pytester.runpytest_subprocess(*LOAD, "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)
