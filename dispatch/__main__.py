"""``python -m dispatch coverage MODULE:TYPE``: how much of a protocol's API a type handles.

MODULE is a dotted module name or a path to a ``.py`` file; TYPE a class in it.
Exit status 1 when ``--fail-under PCT`` is given and the coverage is lower.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import sys
from typing import Any

from ._coverage import coverage


def _load(spec: str, what: str) -> Any:
    """The object ``spec`` (``module:attr`` or ``path/to/file.py:attr``) names."""
    module_name, sep, attr = spec.rpartition(":")
    if not sep or not module_name or not attr:
        raise SystemExit(f"error: {what} must look like MODULE:NAME or path/to/file.py:NAME, got {spec!r}")
    if module_name.endswith(".py"):
        path = os.path.abspath(module_name)
        if not os.path.exists(path):
            raise SystemExit(f"error: no such file: {module_name}")
        sys.path.insert(0, os.path.dirname(path))
        name = os.path.splitext(os.path.basename(path))[0]
        loader_spec = importlib.util.spec_from_file_location(name, path)
        assert loader_spec is not None and loader_spec.loader is not None
        module = importlib.util.module_from_spec(loader_spec)
        sys.modules[name] = module
        loader_spec.loader.exec_module(module)
    else:
        module = importlib.import_module(module_name)
    obj = module
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise SystemExit(f"error: {module_name} has no attribute {attr!r}") from None
    return obj


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dispatch", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    cov = commands.add_parser("coverage", help="report which overridable functions a type handles")
    cov.add_argument("type", help="MODULE:TYPE or path/to/file.py:TYPE")
    cov.add_argument("--protocol", help="MODULE:ATTR of the Protocol (default: the one whose method TYPE defines)")
    cov.add_argument("--factory", help="MODULE:CALLABLE making an instance to probe with (default: TYPE())")
    out = cov.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print JSON")
    out.add_argument("--markdown", action="store_true", help="print markdown")
    cov.add_argument("--all-missing", action="store_true", help="list every missing function in the terminal table")
    cov.add_argument("--fail-under", type=float, metavar="PCT", help="exit with status 1 below PCT percent")
    args = parser.parse_args(argv)

    type_ = _load(args.type, "TYPE")
    if not isinstance(type_, type):
        raise SystemExit(f"error: {args.type} is not a class")
    protocol = _load(args.protocol, "--protocol") if args.protocol else None
    factory = _load(args.factory, "--factory") if args.factory else None
    try:
        report = coverage(type_, protocol, factory=factory)
    except (TypeError, ValueError) as exc:
        raise SystemExit(f"error: {exc}") from None
    if args.json:
        print(report.to_json())
    elif args.markdown:
        print(report.to_markdown(), end="")
    else:
        print(report.to_text(-1 if args.all_missing else 20), end="")
    if args.fail_under is not None and 100 * report.fraction < args.fail_under:
        print(f"coverage {100 * report.fraction:.2f}% is under {args.fail_under:g}%", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
