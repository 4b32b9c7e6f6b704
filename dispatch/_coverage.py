"""How much of a protocol's API a type handles: the coverage report behind ``python -m dispatch coverage``.

A type that keeps its implementations in a :class:`~dispatch.Implementations`
table is read without calling anything, and each implementation's signature is
compared with the public function's. Any other type is probed: its protocol
method is called once per overridable function, with an instance of the type in
every required argument, and the answer is recorded as handled (a result, or an
exception raised from inside the handler) or declined (``NotImplemented``).
Probing runs the type's implementations on those arguments, so it may take a
while for a type that falls back to real computation for everything.
"""

from __future__ import annotations

import inspect
import json
from dataclasses import dataclass, field
from typing import Any, Callable

from ._protocol import _PROTOCOLS
from ._toolkit import _ACCESSOR, _SETTER, Implementations, signature_problems

_P = inspect.Parameter

__all__ = ["CoverageReport", "NamespaceCoverage", "coverage", "implementations_of"]


@dataclass
class NamespaceCoverage:
    """One namespace's part of a :class:`CoverageReport` (names as the registry resolves them)."""

    name: str
    total: int
    handled: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    mis_signed: dict[str, list[str]] = field(default_factory=dict)  # handled, but a call could go wrong
    partial: dict[str, list[str]] = field(default_factory=dict)  # handled, some optional parameters left out

    @property
    def fraction(self) -> float:
        return len(self.handled) / self.total if self.total else 1.0


@dataclass
class CoverageReport:
    """What ``type_`` handles of ``protocol``'s overridable functions, per namespace."""

    type_name: str
    method: str
    how: str  # "table" (read from an Implementations table) or "probe"
    namespaces: list[NamespaceCoverage]

    @property
    def handled(self) -> int:
        return sum(len(ns.handled) for ns in self.namespaces)

    @property
    def total(self) -> int:
        return sum(ns.total for ns in self.namespaces)

    @property
    def fraction(self) -> float:
        return self.handled / self.total if self.total else 1.0

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready summary (``--json``)."""
        return {
            "type": self.type_name, "method": self.method, "how": self.how, "handled": self.handled,
            "total": self.total, "percent": round(100 * self.fraction, 2),
            "namespaces": [
                {"name": ns.name, "handled": len(ns.handled), "total": ns.total,
                 "percent": round(100 * ns.fraction, 2), "handled_functions": ns.handled, "missing": ns.missing,
                 "mis_signed": ns.mis_signed, "partial": ns.partial}
                for ns in self.namespaces
            ],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)

    def to_markdown(self, show_missing: bool = True) -> str:
        """A markdown table of the namespaces, then what is mis-signed and missing (``--markdown``)."""
        lines = [f"## Coverage of `{self.method}` by `{self.type_name}` ({self.how})", "",
                 "| namespace | handled | total | % |", "| --- | ---: | ---: | ---: |"]
        for ns in self.namespaces:
            lines.append(f"| `{ns.name}` | {len(ns.handled)} | {ns.total} | {100 * ns.fraction:.1f} |")
        lines.append(f"| **all** | **{self.handled}** | **{self.total}** | **{100 * self.fraction:.1f}** |")
        for ns in self.namespaces:
            for title, table in (("Mis-signed", ns.mis_signed), ("Partial signatures", ns.partial)):
                if table:
                    lines += ["", f"### {title} in `{ns.name}`", ""]
                    lines += [f"- `{name}`: {'; '.join(problems)}" for name, problems in table.items()]
        if show_missing:
            for ns in self.namespaces:
                if ns.missing:
                    lines += ["", f"### Missing in `{ns.name}` ({len(ns.missing)})", "",
                              ", ".join(f"`{m}`" for m in ns.missing)]
        return "\n".join(lines) + "\n"

    def to_text(self, show_missing: int = 20) -> str:
        """The terminal table: totals and percentages per namespace, then the missing names grouped.

        ``show_missing`` names at most this many missing functions per namespace (-1: all).
        """
        width = max([len(ns.name) for ns in self.namespaces] + [9])
        lines = [f"{self.type_name}: coverage of {self.method} ({'read from its table' if self.how == 'table' else 'probed'})",
                 "", f"{'namespace':<{width}}  handled  total       %"]
        for ns in self.namespaces:
            lines.append(f"{ns.name:<{width}}  {len(ns.handled):>7}  {ns.total:>5}  {100 * ns.fraction:>6.1f}")
        lines.append(f"{'all':<{width}}  {self.handled:>7}  {self.total:>5}  {100 * self.fraction:>6.1f}")
        for ns in self.namespaces:
            for title, table in (("mis-signed", ns.mis_signed), ("partial signatures", ns.partial)):
                for name, problems in table.items():
                    lines.append(f"{title}: {name}: {'; '.join(problems)}")
        for ns in self.namespaces:
            if ns.missing and ns.handled:  # a namespace the type ignores entirely is summarized by its row
                shown = ns.missing if show_missing < 0 else ns.missing[:show_missing]
                more = len(ns.missing) - len(shown)
                lines.append(f"missing in {ns.name}: {', '.join(shown)}" + (f" ... and {more} more" if more else ""))
        return "\n".join(lines) + "\n"


def implementations_of(type_: type, method: str) -> Implementations | None:
    """The :class:`~dispatch.Implementations` table behind ``type_``'s protocol method, if it uses one."""
    attr = inspect.getattr_static(type_, method, None)
    func = getattr(attr, "__func__", attr)  # classmethod / staticmethod
    table = getattr(func, "_dispatch_table", None)
    return table if isinstance(table, Implementations) else None


def _namespace_name(namespace: Any) -> str:
    module = getattr(namespace, "__module__", None)
    name = getattr(namespace, "__name__", None) or repr(namespace)
    if isinstance(namespace, type) and module:
        return f"{module}.{getattr(namespace, '__qualname__', name)}"
    return str(name)


def _probe_call(func: Any, instance: Any) -> tuple[tuple, dict]:
    """Arguments for one probe: the instance in every required parameter of ``func``'s signature."""
    name = getattr(func, "__name__", "")
    if name == "__get__":
        return (instance,), {}
    if name == "__set__":
        return (instance, instance), {}
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError):
        return (instance,), {}
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    for p in sig.parameters.values():
        if p.kind in (_P.POSITIONAL_ONLY, _P.POSITIONAL_OR_KEYWORD) and (p.default is _P.empty or not args):
            args.append(instance)
        elif p.kind is _P.VAR_POSITIONAL and not args:
            args.append(instance)
        elif p.kind is _P.KEYWORD_ONLY and p.default is _P.empty:
            kwargs[p.name] = instance
    return tuple(args), kwargs


def _public_signature(func: Any) -> inspect.Signature | None:
    name = getattr(func, "__name__", "")
    if name == "__get__":
        return _ACCESSOR
    if name == "__set__":
        return _SETTER
    try:
        return inspect.signature(func)
    except (TypeError, ValueError):
        return None


def coverage(type_: type, protocol: Any = None, *, factory: Callable[[], Any] | None = None) -> CoverageReport:
    """Which of ``protocol``'s overridable functions ``type_`` handles (see the module docstring).

    ``protocol`` defaults to the only protocol alive whose method ``type_``
    defines. ``factory`` makes the instance probes pass (default: ``type_()``,
    else an instance made without calling ``__init__``); a type read from its
    table needs none.
    """
    if protocol is None:
        protocol = _find_protocol(type_)
    method = protocol.method
    if not hasattr(type_, method):
        raise TypeError(f"{type_.__qualname__} does not define {method}: it takes no part in {protocol!r}")
    table = implementations_of(type_, method)
    handles: Callable[[Any], bool]
    if table is not None and table.fallback is None:
        handles = lambda public: protocol.reported_as(public) in table  # noqa: E731
        how = "table"
    else:
        instance = _instance(type_, factory)
        handler = getattr(instance, method)

        def handles(public: Any) -> bool:
            args, kwargs = _probe_call(public, instance)
            try:
                return handler(protocol.reported_as(public), (type_,), args, kwargs) is not NotImplemented
            except Exception:  # noqa: BLE001 - the handler took the call; our made-up arguments made it fail
                return True

        how = "probe"
    namespaces = []
    for namespace, funcs in protocol.registry.overridable_functions().items():
        ns = NamespaceCoverage(_namespace_name(namespace), len(funcs))
        for public in funcs:
            name = protocol.registry.display_name(public)
            if not handles(public):
                ns.missing.append(name)
                continue
            ns.handled.append(name)
            impl = table.get(protocol.reported_as(public)) if table is not None else None
            public_sig = _public_signature(public)
            if impl is None or public_sig is None:
                continue
            try:
                impl_sig = inspect.signature(impl)
            except (TypeError, ValueError):
                continue
            loose = signature_problems(public_sig, impl_sig)
            if loose:
                ns.mis_signed[name] = loose
            else:
                strict = signature_problems(public_sig, impl_sig, strict=True)
                if strict:
                    ns.partial[name] = strict
        namespaces.append(ns)
    namespaces.sort(key=lambda ns: ns.name)
    return CoverageReport(type_.__qualname__, method, how, namespaces)


def _find_protocol(type_: type) -> Any:
    found = [p for p in list(_PROTOCOLS) if hasattr(type_, p.method)]
    if len(found) != 1:
        names = ", ".join(repr(p) for p in found) or "none"
        raise ValueError(f"cannot tell which protocol {type_.__qualname__} implements (alive and defined: {names}); "
                         "pass protocol=")
    return found[0]


def _instance(type_: type, factory: Callable[[], Any] | None) -> Any:
    if factory is not None:
        return factory()
    try:
        return type_()
    except Exception:  # noqa: BLE001 - a constructor that needs arguments: an instance without __init__ will do
        new: Any = type_.__new__
        return object.__new__(type_) if new is object.__new__ else new(type_)
