"""The package is layered: every module imports on its own, and module-level imports form no cycle.

Layers, bottom up: ``_registry``/``_hooks``/``_dtype``/``_size``/``_protocol``; ``_tensor``; the autograd
graph and engine; the op families (``tensorlib/ops``, a DAG); the namespaces, methods, ``nn``, ``optim``
and the rest. A lower module that calls something from above reads it from ``tensorlib._hooks``, which
``tensorlib/__init__`` fills in once.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("tensorlib", "dispatch")
# Function-level imports kept on purpose: (module, imported module) -> why.
DELIBERATE_LATE_IMPORTS = {
    ("tensorlib", "importlib"): "tensorlib.distributions loads on first attribute access (module __getattr__)",
    ("dispatch._codegen", "tempfile"): "only a cold import writes the wrapper cache; tempfile costs ~5 ms to import",
    ("dispatch", "dispatch._coverage"): "the coverage tool loads on first use (module __getattr__): ~5 ms at import",
    ("tensorlib.overrides", "dispatch"): "tensorlib.overrides.coverage loads dispatch's coverage tool on first use",
    ("tensorlib.autograd.graph", "shutil"): "only render() runs a program; shutil and subprocess cost ~5 ms to import",
    ("tensorlib.autograd.graph", "subprocess"): "as shutil, for render()",
    ("dispatch.pytest_plugin", "dispatch._coverage"): "the pytest plugin loads nothing unless its options are used",
    ("dispatch.pytest_plugin", "dispatch.__main__"): "as dispatch._coverage, for the plugin (MODULE:TYPE loading)",
    ("dispatch.pytest_plugin", "dispatch.testing"): "as dispatch._coverage, for the plugin's assert_covers fixture",
    ("tensorlib._trace", "json"): "only writing a trace file needs json (~2 ms to import)",
    ("tensorlib.ops._gamma", "decimal"): "only making or checking lgamma's stored table needs decimal arithmetic",
    ("tensorlib.ops.activation", "tensorlib.ops._erf"): "erf's interpolants (23 KB of bytecode) load with the first call",
    ("tensorlib.ops._gamma", "tensorlib.ops._lgamma_nodes"): "lgamma's stored table (47 KB) loads with the first call",
    ("tensorlib.ops.reduction", "tensorlib.ops.sorting"): "sorting (22 KB of bytecode) loads on first use; quantile sorts",
    ("tensorlib.ops.linalg", "tensorlib.ops._lapack"): "LAPACK's drivers (37 KB of bytecode) load with the first inverse",
}
# Packages that need an optional extra: package -> (the module it needs, the extra that installs it). Without the
# module they must fail to import with an ImportError that names the extra.
OPTIONAL = {"tensorlib.dask": ("dask", "dask")}


def _module_files() -> dict[str, Path]:
    """Each module's source: Python files, and the C files of extension modules (which import nothing of ours)."""
    modules = {}
    for package in PACKAGES:
        for path in sorted([*(ROOT / package).rglob("*.py"), *(ROOT / package).rglob("*.c")]):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join(parts)] = path
    return modules


MODULES = _module_files()


def _resolve(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _imports(module: str, path: Path) -> tuple[set[str], set[str]]:
    """Modules of the two packages imported at module level, and every module imported inside a function."""
    tree = ast.parse(path.read_text())
    is_package = path.name == "__init__.py"
    top: set[str] = set()
    late: set[str] = set()

    def targets(node: ast.AST) -> list[str]:
        if isinstance(node, ast.Import):
            return [a.name for a in node.names]
        assert isinstance(node, ast.ImportFrom)
        base = _resolve(module, is_package, node)
        # ``from pkg import sub`` imports the submodule; ``from mod import name`` imports mod
        return [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and isinstance(child.test, ast.Name) and child.test.id == "TYPE_CHECKING":
                continue
            nested = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                for target in targets(child):
                    if nested:
                        late.add(target)
                    elif target in MODULES and target != module:
                        top.add(target)
            visit(child, nested)

    visit(tree, False)
    return top, late


GRAPH = {m: _imports(m, p) if p.suffix == ".py" else (set(), set()) for m, p in MODULES.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def test_module_level_imports_form_no_cycle() -> None:
    graph = {m: top for m, (top, _) in GRAPH.items()}
    assert _cycles(graph) == []


def test_cycle_detection_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_function_level_imports_but_the_documented_ones() -> None:
    late = {(m, target) for m, (_, lates) in GRAPH.items() for target in lates}
    stdlib = {(m, t) for m, t in late if t.split(".")[0] in sys.stdlib_module_names and (m, t) not in DELIBERATE_LATE_IMPORTS}
    assert sorted(late - stdlib - set(DELIBERATE_LATE_IMPORTS)) == []
    assert sorted(stdlib) == [], "import standard-library modules at module level too"


def test_ops_never_import_the_layers_above_them() -> None:
    above = ("tensorlib.nn", "tensorlib.optim", "tensorlib.distributions", "tensorlib.utils", "tensorlib._methods",
             "tensorlib._namespace", "tensorlib.overrides")
    offenders = sorted(
        (m, t) for m, (top, _) in GRAPH.items() if m.startswith("tensorlib.ops") for t in top if t.startswith(above)
    )
    assert offenders == []


def test_tensor_and_engine_import_no_op() -> None:
    low = ["tensorlib._tensor", "tensorlib._autograd.graph", "tensorlib._autograd.engine", "tensorlib._autograd.views",
           "tensorlib._autograd.grad_mode", "tensorlib._dtype", "tensorlib._size", "tensorlib._registry"]
    offenders = sorted((m, t) for m in low for t in GRAPH[m][0] if t.startswith(("tensorlib.ops", "tensorlib.nn")))
    assert offenders == []


def test_dispatch_imports_nothing_from_tensorlib() -> None:
    offenders = sorted((m, t) for m, (top, late) in GRAPH.items() if m.startswith("dispatch")
                       for t in top | late if t.startswith("tensorlib"))
    assert offenders == []


def _import_alone(module: str) -> tuple[str, int, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=120)
    return module, proc.returncode, proc.stderr[-2000:]


def _missing_extra(module: str) -> str | None:
    """The extra ``module`` needs, if it is not installed here."""
    for package, (needed, extra) in OPTIONAL.items():
        if (module == package or module.startswith(package + ".")) and importlib.util.find_spec(needed) is None:
            return extra
    return None


@pytest.mark.filterwarnings("ignore")
def test_every_module_imports_on_its_own_in_a_fresh_interpreter() -> None:
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        # (an extension module may not be built: tests/core/test_accelerator.py covers it)
        results = list(pool.map(_import_alone, sorted(m for m, p in MODULES.items() if p.suffix == ".py")))
    failures = {m: err for m, code, err in results if code != 0 and _missing_extra(m) is None}
    assert failures == {}
    unexplained = {m: err for m, code, err in results if (extra := _missing_extra(m)) is not None
                   and (code == 0 or "ImportError" not in err or f"'{extra}' extra" not in err)}
    assert unexplained == {}, "without its extra, a module must fail with an ImportError naming the extra"
