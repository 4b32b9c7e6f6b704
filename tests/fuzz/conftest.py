"""Prints the fuzz run's figures at the end of the session (and writes them to ``TENSORLIB_FUZZ_REPORT``)."""

from __future__ import annotations

import json
import os

from tests.fuzz.runner import STATS


def pytest_terminal_summary(terminalreporter, exitstatus, config):  # noqa: ARG001 (pytest's hook signature)
    if not STATS.calls and not STATS.compared:
        return
    figures = STATS.figures()
    terminalreporter.write_sep("-", "fuzz figures")
    for key, value in figures.items():
        terminalreporter.write_line(f"{key}: {value}")
    path = os.environ.get("TENSORLIB_FUZZ_REPORT")
    if path:
        with open(path, "w") as f:
            json.dump({**figures, "internal": STATS.internal, "disagreements": STATS.disagreements}, f, indent=1)
