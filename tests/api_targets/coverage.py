"""How much of PyTorch 2.13's public API tensorlib has, per namespace, against the target lists kept here.

The lists (``torch*.txt``, one in-scope name a line; ``out-of-scope.txt`` says what is left out and why) are a copy
of the project's API targets, generated from torch's own tables. ``python -m tests.api_targets.coverage`` prints
the table and, with ``--missing``, the names still to build.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

import tensorlib

HERE = Path(__file__).resolve().parent
TARGET = 0.95  # every namespace must reach this fraction of its in-scope names


def namespaces() -> list[str]:
    """The torch namespaces with a target list (``torch``, ``torch.Tensor``, ``torch.linalg``, ...)."""
    return sorted(p.stem for p in HERE.glob("torch*.txt"))


def targets(namespace: str) -> list[str]:
    return [line.strip() for line in (HERE / f"{namespace}.txt").read_text().splitlines() if line.strip()]


def tensorlib_object(namespace: str) -> Any:
    """tensorlib's module (or Tensor) for a torch namespace; None when the module does not exist yet."""
    if namespace == "torch.Tensor":
        return tensorlib.Tensor
    try:
        return importlib.import_module("tensorlib" + namespace[len("torch"):])
    except ModuleNotFoundError:
        return None


def missing(namespace: str) -> list[str]:
    obj = tensorlib_object(namespace)
    return [n for n in targets(namespace) if obj is None or not hasattr(obj, n)]


def report() -> dict[str, tuple[int, int]]:
    """``namespace -> (names tensorlib has, in-scope names)``."""
    return {ns: (len(targets(ns)) - len(missing(ns)), len(targets(ns))) for ns in namespaces()}


def main(argv: list[str]) -> None:
    show_missing = "--missing" in argv
    print(f"{'namespace':28} {'has':>5} {'of':>5} {'share':>7}")
    for ns, (has, total) in report().items():
        print(f"{ns:28} {has:5d} {total:5d} {has / total:7.1%}")
        if show_missing and has < total:
            print("    missing: " + " ".join(missing(ns)))


if __name__ == "__main__":
    main(sys.argv[1:])
