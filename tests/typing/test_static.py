"""Static checkers on tensorlib: the project is mypy-clean, and a user's script checks under mypy --strict and pyright.

These run the checkers the ``test`` extra installs (pinned in pyproject.toml)
in a subprocess; the user script is run as well, so it cannot rot.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = Path(__file__).with_name("user_script.py")
STUBS = sorted(str(p.relative_to(REPO)) for p in (REPO / "tensorlib").rglob("*.pyi"))


def _expected_reveals() -> dict[int, str]:
    """Line number -> the type the ``# <type>`` comment of each ``reveal_type`` line names."""
    out = {}
    for number, line in enumerate(SCRIPT.read_text().splitlines(), start=1):
        m = re.match(r"\s*reveal_type\(.*\)\s*#\s*(\w+)", line)
        if m:
            out[number] = m.group(1)
    return out


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=REPO, capture_output=True, text=True, timeout=600)


def test_the_script_runs():
    done = subprocess.run([sys.executable, str(SCRIPT)], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "Runtime type is 'Tensor'" in done.stderr


def test_mypy_strict_accepts_the_script_and_infers_tensor(tmp_path):
    # --follow-imports=silent checks tensorlib's .py sources as a user's installed copy is checked (types used,
    # their errors not reported); the stubs and the script are checked in full.
    done = _run("mypy", "--strict", "--follow-imports=silent", "--cache-dir", str(tmp_path / "cache"),
                str(SCRIPT.relative_to(REPO)), *STUBS)
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    assert not errors, "\n".join(errors)
    revealed = {
        int(m.group(1)): m.group(2)
        for m in re.finditer(r"user_script\.py:(\d+): note: Revealed type is \"([^\"]+)\"", done.stdout)
    }
    expected = _expected_reveals()
    assert set(revealed) == set(expected)
    for line, name in expected.items():
        assert re.match(rf"([\w.]+\.)?{name}\b", revealed[line]), (line, revealed[line], name)


def test_pyright_accepts_the_script_and_infers_tensor(tmp_path):
    done = _run("pyright", "--outputjson", str(SCRIPT.relative_to(REPO)))
    report = json.loads(done.stdout)
    errors = [d for d in report["generalDiagnostics"] if d["severity"] == "error"]
    assert not errors, errors
    revealed = {
        d["range"]["start"]["line"] + 1: re.search(r'is "(.+)"$', d["message"]).group(1)
        for d in report["generalDiagnostics"]
        if d["severity"] == "information" and "Type of" in d["message"]
    }
    expected = _expected_reveals()
    assert set(revealed) == set(expected)
    for line, name in expected.items():
        assert re.match(rf"{name}\b", revealed[line]), (line, revealed[line], name)


def test_mypy_finds_no_error_in_the_project(tmp_path):
    done = _run("mypy", "--cache-dir", str(tmp_path / "cache"), "tensorlib", "dispatch")
    assert done.returncode == 0, done.stdout[-5000:]


@pytest.mark.parametrize("tool", ["mypy", "pyright"])
def test_a_type_error_in_user_code_is_reported(tmp_path, tool):
    # the checks above would pass vacuously if the checkers saw everything as Any
    bad = tmp_path / "bad.py"
    bad.write_text("import tensorlib\n\nx: str = tensorlib.ones(2).sum(dim=0)\n")
    args = ["--strict", "--follow-imports=silent", "--cache-dir", str(tmp_path / "cache")] if tool == "mypy" else []
    done = _run(tool, *args, str(bad))
    assert done.returncode != 0
    assert "Tensor" in done.stdout and "str" in done.stdout
