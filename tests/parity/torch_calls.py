"""What torch's Python-level functions pass to ``__torch_function__`` handlers, read from torch itself.

A torch function written in Python calls ``handle_torch_function(f, relevant, *args, **kwargs)``
with the parameters it forwards by keyword written out. ``python -m tests.parity.torch_calls``
prints the table ``tensorlib/_calling.py`` holds (needs torch); ``test_calling.py`` checks the two agree.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from typing import Any

import tensorlib
from tensorlib import _registry


def forwarded_keywords(func: Any) -> tuple[str, ...] | None:
    """The parameters ``func`` (a torch function written in Python) passes to handlers by keyword; None if it does not."""
    func = inspect.unwrap(func)
    try:
        source = textwrap.dedent(inspect.getsource(func))
    except (OSError, TypeError):
        return None
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            callee = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
            if callee == "handle_torch_function":
                return tuple(sorted(k.arg for k in node.keywords if k.arg is not None))
    return None


def torch_modules() -> dict[str, Any]:
    """The torch module or class behind each of tensorlib's namespaces."""
    import torch
    import torch.nn.functional

    return {
        _registry.TENSORLIB: torch, _registry.TENSOR: torch.Tensor, _registry.NN_FUNCTIONAL: torch.nn.functional,
        _registry.LINALG: torch.linalg, _registry.SPECIAL: torch.special, _registry.FFT: torch.fft,
        _registry.AUTOGRAD: torch.autograd,
    }


def python_level_calls() -> dict[str, dict[str, tuple[str, ...]]]:
    """namespace -> {name: parameters forwarded by keyword} for every tensorlib op that torch writes in Python."""
    out: dict[str, dict[str, tuple[str, ...]]] = {}
    for namespace, module in torch_modules().items():
        ours = {b.name for b in _registry.bindings(namespace)}
        if namespace == _registry.TENSOR:
            ours |= {n for n in vars(tensorlib.Tensor) if not n.startswith("_") or n.startswith("__")}
        table = {}
        for name in sorted(ours):
            obj = (vars(module).get(name) if isinstance(module, type) else getattr(module, name, None))
            if inspect.isfunction(obj):
                keywords = forwarded_keywords(obj)
                table[name] = keywords if keywords is not None else ()
        out[namespace] = table
    return out


if __name__ == "__main__":
    for namespace, table in python_level_calls().items():
        print(f"    {namespace!r}: {{")
        for name, keywords in table.items():
            print(f"        {name!r}: {keywords!r},")
        print("    },")
