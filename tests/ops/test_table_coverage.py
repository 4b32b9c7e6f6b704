"""Every op the registry declares is tested: in the op table, or (for layers and utilities) by its area's tests.

The registry (``tensorlib._registry``) is the one list of public ops, so a new op with no entry here fails.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tensorlib import _registry

from tests.ops.opinfo import BY_NAME, NOT_IN_TABLE, OPS

TESTS = Path(__file__).resolve().parents[1]
# namespaces whose functions the op table covers, and the prefix their entries carry
IN_TABLE = {_registry.TENSORLIB: "", _registry.SPECIAL: "special.", _registry.LINALG: "linalg.",
            _registry.FFT: "fft."}
# namespaces tested by their areas' own tests (layers, initialisers, utilities): each function must be named there
# (called, or listed in a parametrization)
BY_AREA = {
    _registry.NN_FUNCTIONAL: ("nn", "parity"),
    _registry.NN_INIT: ("nn", "parity"),
    _registry.NN_UTILS: ("nn", "parity"),
    _registry.NN_UTILS_RNN: ("nn", "parity"),
    _registry.AUTOGRAD: ("autograd", "parity"),
}


def _table_names(namespace: str) -> set[str]:
    """Overridable functions of ``namespace`` the table must cover (in-place variants ride on their op's entry)."""
    prefix = IN_TABLE[namespace]
    names = set()
    for b in _registry.bindings(namespace):
        if b.dispatch != "full" or (b.name.endswith("_") and prefix + b.name[:-1] in BY_NAME):
            continue
        names.add(prefix + b.name)
    return names


def _area_text(areas: tuple[str, ...]) -> str:
    return "\n".join(p.read_text() for area in areas for p in sorted((TESTS / area).rglob("test_*.py")))


@pytest.mark.parametrize("namespace", sorted(IN_TABLE))
def test_every_op_has_a_table_entry(namespace: str) -> None:
    missing = sorted(n for n in _table_names(namespace) if n not in BY_NAME and n not in NOT_IN_TABLE)
    assert not missing, f"ops with no entry in tests/ops/opinfo.py (add one): {missing}"


@pytest.mark.parametrize("namespace", sorted(BY_AREA))
def test_every_layer_function_is_named_by_its_area_tests(namespace: str) -> None:
    text = _area_text(BY_AREA[namespace])
    missing = sorted(b.name for b in _registry.bindings(namespace)
                     if b.dispatch == "full" and not re.search(rf"\b{re.escape(b.name)}\b", text))
    assert not missing, f"{namespace} functions no test under tests/{BY_AREA[namespace]} names: {missing}"


def test_every_tensor_method_is_tested() -> None:
    """A method form of a table op is checked by the table; any other method must be called (or named) in tests."""
    text = "\n".join(p.read_text() for p in sorted(TESTS.rglob("test_*.py")))
    untested = []
    for b in _registry.bindings(_registry.TENSOR):
        name = b.name
        if name.startswith("__") or name in BY_NAME or (name.endswith("_") and name[:-1] in BY_NAME):
            continue
        if not re.search(rf"\.{re.escape(name)}\(|[\"']{re.escape(name)}[\"']", text):
            untested.append(name)
    assert not untested, f"Tensor methods no test calls: {sorted(untested)}"


def test_table_names_are_public() -> None:
    names = set().union(*(_table_names(ns) for ns in IN_TABLE))
    assert not sorted(set(BY_NAME) - names)
    assert not sorted(NOT_IN_TABLE - names)
    assert not sorted(NOT_IN_TABLE & set(BY_NAME))


def test_entries_have_samples() -> None:
    for info in OPS:
        assert info.samples, info.name
