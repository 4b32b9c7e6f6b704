"""Source generation for wrappers that keep a function's exact signature.

A wrapper generated here has the wrapped function's real parameters, so
``inspect.signature`` needs no metadata, Python itself reports bad calls, and
the no-override fast path is a handful of inline type checks with no
``*args``/``**kwargs`` packing.
"""

from __future__ import annotations

import inspect
import itertools
from typing import Any, Callable

_P = inspect.Parameter
_counter = itertools.count()


class ParamLayout:
    """How a signature's parameters map back to ``(args, kwargs)`` as a caller passed them."""

    __slots__ = ("positional", "var_positional", "keyword_only", "var_keyword")

    def __init__(self, signature: inspect.Signature) -> None:
        self.positional: list[tuple[str, Any]] = []
        self.var_positional = False
        self.keyword_only: list[tuple[str, Any]] = []
        self.var_keyword = False
        for p in signature.parameters.values():
            if p.kind in (_P.POSITIONAL_ONLY, _P.POSITIONAL_OR_KEYWORD):
                self.positional.append((p.name, p.default))
            elif p.kind is _P.VAR_POSITIONAL:
                self.var_positional = True
            elif p.kind is _P.KEYWORD_ONLY:
                self.keyword_only.append((p.name, p.default))
            else:
                self.var_keyword = True

    def split(self, values: tuple) -> tuple[tuple, dict]:
        """Rebuild ``(args, kwargs)`` from the values of all parameters in order.

        Trailing positional parameters left at their default and keyword-only
        parameters left at their default are omitted, so a handler sees the
        call the way the user most plausibly wrote it.
        """
        npos = len(self.positional)
        args = list(values[:npos])
        i = npos
        extra: tuple = ()
        if self.var_positional:
            extra = values[i]
            i += 1
        if not extra:
            while args and args[-1] is self.positional[len(args) - 1][1]:
                args.pop()
        args.extend(extra)
        kwargs = {}
        for name, default in self.keyword_only:
            v = values[i]
            i += 1
            if v is not default:
                kwargs[name] = v
        if self.var_keyword:
            kwargs.update(values[i])
        return tuple(args), kwargs


def parameter_source(signature: inspect.Signature, ns: dict, tag: str) -> tuple[str, str, str, list[str]]:
    """Render a signature as Python source.

    Returns ``(params, call, values, names)``: the text of the ``def`` parameter
    list (defaults bound to names placed in ``ns``), the text of a call passing
    every parameter through, the text of a tuple of all parameter values, and
    the parameter names. Annotations are dropped: wrappers never need them.
    """
    params: list[str] = []
    call: list[str] = []
    values: list[str] = []
    names: list[str] = []
    seen_kwonly_marker = False
    last_posonly = None
    plist = list(signature.parameters.values())
    for idx, p in enumerate(plist):
        if p.kind is _P.POSITIONAL_ONLY:
            last_posonly = idx
    for idx, p in enumerate(plist):
        names.append(p.name)
        text = p.name
        if p.default is not _P.empty:
            dname = f"_d{tag}_{p.name}"
            ns[dname] = p.default
            text = f"{p.name}={dname}"
        if p.kind is _P.VAR_POSITIONAL:
            text = "*" + p.name
            seen_kwonly_marker = True
            call.append("*" + p.name)
        elif p.kind is _P.VAR_KEYWORD:
            text = "**" + p.name
            call.append("**" + p.name)
        elif p.kind is _P.KEYWORD_ONLY:
            if not seen_kwonly_marker:
                params.append("*")
                seen_kwonly_marker = True
            call.append(f"{p.name}={p.name}")
        else:
            call.append(p.name)
        params.append(text)
        if last_posonly is not None and idx == last_posonly:
            params.append("/")
        values.append(p.name)
    values_src = "(" + "".join(v + ", " for v in values) + ")"
    return ", ".join(params), ", ".join(call), values_src, names


def plain_check_source(signature: inspect.Signature) -> str:
    """An expression that is true when no argument can carry an override.

    ``_F`` is the set of types known to be plain; a list or tuple passes if its
    elements are plain. Anything else takes the slow path, which scans properly.
    """
    checks: list[str] = []
    for p in signature.parameters.values():
        if p.kind is _P.VAR_POSITIONAL:
            checks.append(f"_all_plain({p.name})")
        elif p.kind is _P.VAR_KEYWORD:
            checks.append(f"(not {p.name} or _all_plain({p.name}.values()))")
        elif p.default is None:
            checks.append(f"({p.name} is None or type({p.name}) in _F or _plain_seq({p.name}))")
        else:
            checks.append(f"(type({p.name}) in _F or _plain_seq({p.name}))")
    checks.append("not _M")
    return " and ".join(checks)


def compile_function(source: str, name: str, ns: dict) -> Callable:
    """Execute ``source`` in ``ns`` and return the function it defines as ``name``."""
    code = compile(source, f"<dispatch wrapper {name}>", "exec")
    exec(code, ns)
    return ns.pop(name)


def unique_tag() -> str:
    return str(next(_counter))


def function_with_signature(signature: inspect.Signature, body_result: str, name: str) -> Callable:
    """A real function with exactly ``signature`` whose body returns ``body_result``.

    Used for the testing overrides: calling one with arguments its signature
    rejects raises the same TypeError the real function would.
    """
    ns: dict = {}
    params, _, _, _ = parameter_source(signature, ns, "t")
    fname = name if name.isidentifier() else "override"
    src = f"def {fname}({params}):\n    return {body_result}\n"
    fn = compile_function(src, fname, ns)
    fn.__name__ = fn.__qualname__ = name
    return fn
