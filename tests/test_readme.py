"""The code in README.md and dispatch/README.md runs and gives what its comments say."""

from __future__ import annotations

import ast
import contextlib
import importlib.util
import io
import pathlib
import re
import sys
import types

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOCS = ("README.md", "dispatch/README.md")


def _blocks(doc: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", (ROOT / doc).read_text(), re.S)


def _run(doc: str, block: str, namespace: dict) -> list[str]:
    """Run ``block`` statement by statement; check ``expr  # literal`` lines; return what it printed."""
    out = io.StringIO()
    tree = ast.parse(block)
    lines = block.splitlines()
    with contextlib.redirect_stdout(out):
        for stmt in tree.body:
            code = compile(ast.Module([stmt], []), doc, "exec")
            comment = lines[stmt.end_lineno - 1].partition("#")[2].split(" -- ")[0].strip()
            error = re.match(r"(\w+Error): (.*)", comment)
            if error:
                with pytest.raises(getattr(__builtins__, error.group(1), None) or Exception) as info:
                    exec(code, namespace)
                assert str(info.value) == error.group(2)
            elif isinstance(stmt, ast.Expr) and not _is_print(stmt.value) and _literal(comment):
                value = eval(compile(ast.Expression(stmt.value), doc, "eval"), namespace)
                assert value == ast.literal_eval(comment), f"{ast.unparse(stmt)}: {value!r} != {comment}"
            else:
                exec(code, namespace)
    return [line.strip() for line in out.getvalue().splitlines()]


def _is_print(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and getattr(node.func, "id", None) == "print"


def _literal(text: str) -> bool:
    try:
        ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return False
    return True


def _printed(block: str) -> list[str]:
    return [m.group(1).strip() for m in re.finditer(r"^\s*print\(.*\)\s+#\s*(.*)$", block, re.M)]


@pytest.mark.parametrize("doc", DOCS)
def test_readme_examples(doc: str, monkeypatch: pytest.MonkeyPatch) -> None:
    module = types.ModuleType(f"readme_{doc.replace('/', '_').replace('.', '_')}")
    monkeypatch.setitem(sys.modules, module.__name__, module)  # examples may register their module
    blocks = _blocks(doc)
    assert blocks
    for block in blocks:  # later blocks build on earlier ones
        if "import tensorlib.dask" in block and importlib.util.find_spec("dask") is None:
            continue  # the optional module's example, without its extra
        printed = _run(doc, block, module.__dict__)
        expected = _printed(block)
        assert printed[: len(expected)] == expected
