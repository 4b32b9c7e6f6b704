"""The generated stubs: fresh, complete, and faithful to the signatures the public objects carry."""

from __future__ import annotations

import ast
import inspect
import sys
from pathlib import Path

import pytest

import tensorlib
import tensorlib.nn.modules
from tensorlib import _registry, _stubs

ROOT = Path(tensorlib.__file__).parent


def test_stubs_are_fresh():
    stale = _stubs.stale()
    assert not stale, f"stale stubs {stale}: run `python -m tensorlib._stubs`"


def test_check_mode_lists_stale_stubs(tmp_path, monkeypatch, capsys):
    fresh, stale, missing = tmp_path / "fresh.pyi", tmp_path / "stale.pyi", tmp_path / "missing.pyi"
    fresh.write_text("def f() -> int: ...\n")
    stale.write_text("def g() -> int: ...\n")
    expected = {fresh: "def f() -> int: ...\n", stale: "def g() -> str: ...\n", missing: "x: int\n"}
    monkeypatch.setattr(_stubs, "stubs", lambda declarations=None: expected)
    assert _stubs.stale() == [stale, missing]
    assert _stubs.main(["--check"]) == 1
    assert capsys.readouterr().out.split() == ["stale:", str(stale), "stale:", str(missing)]
    assert not missing.exists()  # --check writes nothing
    assert _stubs.main([]) == 0
    assert stale.read_text() == expected[stale] and missing.read_text() == expected[missing]
    assert _stubs.main(["--check"]) == 0


def test_the_namespaces_built_at_import_are_stubbed():
    stubbed = set(_stubs.stubbed_namespaces())
    assert {"tensorlib", "tensorlib.linalg", "tensorlib.special", "tensorlib.nn.functional"} <= stubbed
    for namespace in stubbed:
        assert Path(sys.modules[namespace].__file__).with_suffix(".pyi").exists()
    assert (ROOT / "_tensor_methods.pyi").exists()


def _stub_functions(path: Path) -> dict[str, ast.FunctionDef]:
    tree = ast.parse(path.read_text())
    body = tree.body
    classes = [n for n in body if isinstance(n, ast.ClassDef)]
    if classes:
        body = classes[0].body
    return {n.name: n for n in body if isinstance(n, ast.FunctionDef)}


def _stub_names(path: Path) -> set[str]:
    names = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.FunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign):
            names.add(node.target.id)
        elif isinstance(node, ast.Assign):  # aliases (``LinAlgError = _LinAlgError``)
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.ImportFrom):
            names.update(a.asname for a in node.names if a.asname == a.name)
    return names


def _kinds(params: ast.arguments) -> list[tuple[str, str, bool]]:
    """(name, kind, has default) of each parameter of a stub ``def``."""
    out = []
    positional = params.posonlyargs + params.args
    defaults = [False] * (len(positional) - len(params.defaults)) + [True] * len(params.defaults)
    for i, (a, d) in enumerate(zip(positional, defaults)):
        out.append((a.arg, "POSITIONAL_ONLY" if i < len(params.posonlyargs) else "POSITIONAL_OR_KEYWORD", d))
    if params.vararg:
        out.append((params.vararg.arg, "VAR_POSITIONAL", False))
    for a, d in zip(params.kwonlyargs, params.kw_defaults):
        out.append((a.arg, "KEYWORD_ONLY", d is not None))
    if params.kwarg:
        out.append((params.kwarg.arg, "VAR_KEYWORD", False))
    return out


def _runtime_kinds(obj) -> list[tuple[str, str, bool]]:
    return [(p.name, p.kind.name, p.default is not p.empty) for p in inspect.signature(obj).parameters.values()]


@pytest.mark.parametrize("namespace", _stubs.stubbed_namespaces())
def test_namespace_stub_lists_every_public_name_with_its_runtime_signature(namespace):
    module = sys.modules[namespace]
    path = Path(module.__file__).with_suffix(".pyi")
    functions = _stub_functions(path)
    public = {b.name for b in _registry.bindings(namespace)} | set(getattr(module, "__all__", ()))
    assert public <= _stub_names(path)
    for name, node in functions.items():
        assert _kinds(node.args) == _runtime_kinds(getattr(module, name)), f"{namespace}.{name}"


def test_tensor_methods_stub_has_every_registered_method_with_its_runtime_signature():
    functions = _stub_functions(ROOT / "_tensor_methods.pyi")
    assert set(functions) == {b.name for b in _registry.bindings(_registry.TENSOR)}
    for name, node in functions.items():
        assert _kinds(node.args) == _runtime_kinds(getattr(tensorlib.Tensor, name)), f"Tensor.{name}"


def test_stub_names_shadowing_builtins_spell_the_builtin_explicitly():
    text = (ROOT / "__init__.pyi").read_text()
    assert "bool: dtype" in text and "float: dtype" in text  # tensorlib.bool is a dtype ...
    sig = _stub_functions(ROOT / "__init__.pyi")["sum"]
    keepdim = next(a for a in sig.args.args if a.arg == "keepdim")
    assert ast.unparse(keepdim.annotation) == "builtins.bool"  # ... so the stub cannot say plain ``bool``


def test_bare_generics_get_parameters_and_defaults_are_literal_or_ellipsis():
    def f(x: tuple, /, y: list | None = None, *, z: dict = None, w: float = float("inf"), k: str = "mean") -> tuple:  # noqa
        return ()

    imports = _stubs._Imports("tensorlib.linalg", False, set())
    sig = _stubs._signature(inspect.signature(f), {"__name__": __name__}, imports, method=False)
    assert sig == (
        "(x: tuple[Any, ...], /, y: list[Any] | None = None, *, z: dict[Any, Any] = None, w: float = ..., "
        "k: str = 'mean') -> tuple[Any, ...]"
    )
    assert imports.lines() == ["from typing import Any"]


def test_quoted_forward_references_are_respelled():
    def f(x: "Tensor | None") -> "tuple":
        return ()

    imports = _stubs._Imports("tensorlib.linalg", False, set())
    sig = _stubs._signature(inspect.signature(f), {"Tensor": tensorlib.Tensor}, imports, method=False)
    assert sig == "(x: Tensor | None) -> tuple[Any, ...]"
    assert imports.lines() == ["from typing import Any", "from ._tensor import Tensor"]


def test_unknown_annotation_names_are_reported():
    def f(x: Missing) -> None:  # noqa: F821
        pass

    with pytest.raises(NameError, match="Missing"):
        _stubs._signature(inspect.signature(f), {}, _stubs._Imports("tensorlib", True, set()), method=False)


def test_layer_classes_are_all_exported_for_star_imports():
    # nn/__init__ re-exports nn.modules by ``*`` and ``__all__``: a class missing there is invisible to strict checkers
    classes = {n for n, v in vars(tensorlib.nn.modules).items() if isinstance(v, type) and not n.startswith("_")}
    assert classes == set(tensorlib.nn.modules.__all__)
    assert classes <= set(tensorlib.nn.__all__)


def test_stubs_are_shipped_in_the_wheel():
    pyproject = (ROOT.parent / "pyproject.toml").read_text()
    assert '"*" = ["*.pyi"]' in pyproject
