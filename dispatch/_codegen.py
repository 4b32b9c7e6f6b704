"""Source generation for wrappers that keep a function's exact signature.

A wrapper generated here has the wrapped function's real parameters, so
``inspect.signature`` needs no metadata and Python itself reports bad calls.
Its fast path is a handful of inline type checks (see :func:`plain_check_source`).

Its slow path rebuilds the call as ``(args, kwargs)`` for the handlers, with
generated code too (no generic loops). A wrapper with named parameters cannot
tell how an argument was passed, so the rebuilt call follows one rule:

* parameters that can be passed by position are passed by position, in
  signature order, except that trailing ones still at their default are left
  out (``sum(x)`` gives ``args == (x,)``, ``sum(x, dim=0)`` gives ``(x, 0)``);
* keyword-only parameters are passed in ``kwargs`` unless at their default
  (``add(x, y, alpha=2)`` gives ``kwargs == {"alpha": 2}``);
* ``*args`` and ``**kwargs`` are spread as given;
* parameters a wrapper names as keyword parameters are always passed in
  ``kwargs``, with their values, default or not (as a function written in
  Python passes them on by name); the positional parameters after the first
  of them can no longer go by position, so they are passed in ``kwargs``
  unless at their default, as keyword-only ones are.

"At its default" means the very default object (``is``), so passing a value
equal to the default, like ``alpha=1``, is also left out. Handlers that call
``func(*args, **kwargs)`` get the same result either way.
"""

from __future__ import annotations

import inspect
import marshal
import os
import sys
import types
from typing import Any, Callable

_P = inspect.Parameter

# Compiled wrapper sources, kept across runs: compiling is most of the cost of wrapping a namespace,
# and the sources are the same from one import to the next. Keyed by the source itself, so an entry
# can never be stale; see save_code_cache. Wrapper factories are also kept under the shape of the
# signature they were generated for (see signature_shape), which skips generating their source at
# all; those entries are only valid for the code generator that made them, whose fingerprint
# (see _generator_stamp) each file records under _STAMP_KEY.
#
# Two files, each a marshalled dict: _CODE_FILE holds the entries processes used before their first
# save_code_cache() call (what a library's import needs), the ".rest" file next to it every other one.
# The second is read only when a lookup misses, so an import does not pay for the thousands of wrappers other uses
# made (the testing overrides of every function, say).
_CODE_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "__pycache__",
                          f"wrappers.{sys.implementation.cache_tag}.marshal")
_STAMP_KEY = "__generator__"
_codes: dict[object, object] | None = None
_rest_pending = True  # whether the second file's entries are still to be read (on the first miss)
_used: dict[object, object] = {}
_first_used: frozenset | None = None  # keys used before the first save_code_cache() call
_first_keys: frozenset = frozenset()  # the keys of the first file, as loaded or last written
_compiled_new = False
_stamp: tuple[int, ...] | int = -1  # this generator's fingerprint (see _generator_stamp), read with the first file


def _rest_file() -> str:
    """The second cache file: the entries no import used."""
    return _CODE_FILE + ".rest"


def _generator_stamp() -> tuple[int, ...] | int:
    """A fingerprint of the modules that generate wrapper sources (this one and the protocol's wrap): their
    modification times and sizes, as Python's bytecode cache uses (-1 when they cannot be read)."""
    here = os.path.dirname(os.path.abspath(__file__))
    stamp: list[int] = []
    for module in ("_codegen.py", "_protocol.py"):
        try:
            st = os.stat(os.path.join(here, module))
        except OSError:
            return -1
        stamp += [st.st_mtime_ns, st.st_size]
    return tuple(stamp)


def _read(path: str) -> dict:
    """The compiled entries of one cache file this generator can use ({} when it is missing or damaged).

    Shape-keyed entries count only if the file's stamp is this generator's; source-keyed ones always do.
    """
    try:
        with open(path, "rb") as f:
            loaded = marshal.loads(f.read())  # one read: marshal.load on a file reads in small pieces
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    if not isinstance(loaded, dict):
        return {}
    shapes = loaded.get(_STAMP_KEY) == _stamp and _stamp != -1
    return {k: v for k, v in loaded.items() if type(v) is types.CodeType and (shapes or isinstance(k, str))}


def _load_codes() -> dict[object, object]:
    global _codes, _first_keys, _stamp, _rest_pending
    if _codes is None:
        _stamp = _generator_stamp()
        _codes = _read(_CODE_FILE)
        _first_keys = frozenset(_codes)
        _rest_pending = True
    return _codes


def _load_rest() -> None:
    """Add the second file's entries (see _rest_file) to the loaded ones, once."""
    global _rest_pending
    codes = _load_codes()
    if not _rest_pending:
        return
    _rest_pending = False
    for k, v in _read(_rest_file()).items():
        codes.setdefault(k, v)


def _cached(key: object) -> object | None:
    """The compiled code stored under ``key``, reading the second file on the first miss."""
    code = _load_codes().get(key)
    if code is None and _rest_pending:
        _load_rest()
        code = _load_codes().get(key)
    return code


def _code_for(src: str) -> object:
    """``src`` compiled, from the on-disk cache when it is there."""
    global _compiled_new
    code = _cached(src)
    if code is None:
        code = compile(src, "<dispatch wrapper>", "exec")
        _compiled_new = True
    _used[src] = code
    return code


def keyed_factory(key: tuple, body: Callable[[], str], free: tuple[str, ...], ns: dict) -> Callable:
    """:func:`closure_factory` for a wrapper whose source is fully determined by ``key`` (a marshallable tuple).

    ``body()`` generates the source only when neither this process nor the on-disk cache has the factory.
    """
    global _compiled_new
    code = _cached(key)
    if code is None:
        code = compile(_factory_source(body(), free), "<dispatch wrapper>", "exec")
        _load_codes()[key] = code
        _compiled_new = True
    _used[key] = code
    local: dict = {}
    exec(code, ns, local)  # type: ignore[arg-type]
    return local["_make"]


_NO_DEFAULT, _NONE_DEFAULT, _OTHER_DEFAULT = 0, 1, 2


class DerivedSignature(inspect.Signature):
    """The signature of ``source`` with its first positional parameter renamed ``first`` and ``drop`` removed,
    built only when something reads it (a method form of a function: ``(input, dim, *, out)`` as ``(self, dim)``).

    Wrapping hundreds of methods at import then builds no ``inspect.Signature``:
    :func:`signature_shape` reads the derived shape from ``source``'s code object.
    Behaves as the signature it stands for (``str``, ``parameters``, ``bind``, ``==``);
    ``replace`` returns a plain :class:`inspect.Signature`.
    """

    __slots__ = ("_source", "_first", "_drop")

    def __init__(self, source: Callable, *, first: str | None = None, drop: tuple[str, ...] = ()) -> None:
        # Signature.__init__ is not called: its two slots stay unset until __getattr__ fills them
        self._source = source
        self._first = first
        self._drop = drop

    def __getattr__(self, name: str) -> Any:
        if name not in ("_parameters", "_return_annotation"):  # reached only for slots that are not set yet
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        sig = inspect.signature(self._source)
        params = list(sig.parameters.values())
        if self._first is not None and params and params[0].kind in (_P.POSITIONAL_ONLY, _P.POSITIONAL_OR_KEYWORD):
            params[0] = params[0].replace(name=self._first)
        built = inspect.Signature([p for p in params if p.name not in self._drop],
                                  return_annotation=sig.return_annotation)
        for slot in ("_parameters", "_return_annotation"):
            object.__setattr__(self, slot, getattr(built, slot))
        return getattr(built, name)

    def replace(self, **changes: Any) -> inspect.Signature:  # type: ignore[override]
        plain = inspect.Signature(list(self.parameters.values()), return_annotation=self.return_annotation)
        return plain.replace(**changes)

    def __reduce__(self) -> tuple:
        return _derived, (self._source, self._first, self._drop)

    def shape(self) -> tuple[tuple, list] | None:
        """:func:`signature_shape`'s ``(shape, defaults)``, from the code object; None if ``source`` has none."""
        fn = self._source
        if not _plain_function(fn):
            return None
        shape, defaults = _function_shape(fn)  # type: ignore[arg-type]
        out_shape, out_defaults = [], []
        values = iter(defaults)
        for i, (name, kind, state) in enumerate(shape):
            value = next(values) if state else None
            if name in self._drop:
                continue
            if i == 0 and self._first is not None and kind in (int(_P.POSITIONAL_ONLY), int(_P.POSITIONAL_OR_KEYWORD)):
                name = self._first
            out_shape.append((name, kind, state))
            if state:
                out_defaults.append(value)
        return tuple(out_shape), out_defaults


def _derived(source: Callable, first: str | None, drop: tuple[str, ...]) -> DerivedSignature:
    return DerivedSignature(source, first=first, drop=drop)


def _plain_function(fn: Any) -> bool:
    """Whether ``fn``'s signature is its code object's: a Python function without ``__wrapped__``/``__signature__``."""
    return type(fn) is types.FunctionType and not hasattr(fn, "__wrapped__") and not hasattr(fn, "__signature__")


def signature_shape(impl: Callable, signature: inspect.Signature | None) -> tuple[tuple, list]:
    """``(shape, defaults)`` of the signature a wrapper of ``impl`` gets: everything its generated source depends
    on, as ``((name, kind, default state), ...)``, and the default values in signature order.

    A plain Python function's is read from its code object, without building an ``inspect.Signature``.
    """
    if signature is None and _plain_function(impl):
        return _function_shape(impl)  # type: ignore[arg-type]
    if type(signature) is DerivedSignature:
        derived = signature.shape()
        if derived is not None:
            return derived
    sig = signature if signature is not None else inspect.signature(impl)
    shape, defaults = [], []
    for p in sig.parameters.values():
        state = _NO_DEFAULT if p.default is _P.empty else _NONE_DEFAULT if p.default is None else _OTHER_DEFAULT
        if state:
            defaults.append(p.default)
        shape.append((p.name, int(p.kind), state))
    return tuple(shape), defaults


def _function_shape(fn: types.FunctionType) -> tuple[tuple, list]:
    co = fn.__code__
    names, n_pos, n_kw = co.co_varnames, co.co_argcount, co.co_kwonlyargcount
    pos_defaults = fn.__defaults__ or ()
    kw_defaults = fn.__kwdefaults__ or {}
    shape, defaults = [], []

    def add(name: str, kind: int, has_default: bool, value: Any = None) -> None:
        state = (_NONE_DEFAULT if value is None else _OTHER_DEFAULT) if has_default else _NO_DEFAULT
        if has_default:
            defaults.append(value)
        shape.append((name, kind, state))

    first_default = n_pos - len(pos_defaults)
    for i in range(n_pos):
        kind = int(_P.POSITIONAL_ONLY if i < co.co_posonlyargcount else _P.POSITIONAL_OR_KEYWORD)
        add(names[i], kind, i >= first_default, pos_defaults[i - first_default] if i >= first_default else None)
    extra = n_pos + n_kw
    if co.co_flags & inspect.CO_VARARGS:
        add(names[extra], int(_P.VAR_POSITIONAL), False)
        extra += 1
    for name in names[n_pos:n_pos + n_kw]:
        add(name, int(_P.KEYWORD_ONLY), name in kw_defaults, kw_defaults.get(name))
    if co.co_flags & inspect.CO_VARKEYWORDS:
        add(names[extra], int(_P.VAR_KEYWORD), False)
    return tuple(shape), defaults


def save_code_cache() -> None:
    """Write the wrapper sources compiled in this process to the cache, if any were new (best effort).

    A library calls this once its namespaces are wrapped; the next import then compiles nothing. What the
    process used before its first call goes to the first file, which the next import reads; the rest to the
    second, read only when a lookup misses. The first file keeps what earlier processes put there: two ways
    of importing a library (say, with and without an optional extension, whose wrappers differ) then both
    find their wrappers in it, and do not take turns rewriting it. A process whose import found a wrapper
    only in the second file rewrites both once.
    """
    global _compiled_new, _first_used, _first_keys
    if _first_used is None:
        _first_used = frozenset(_used)
    _load_codes()
    if not _compiled_new and _first_used <= _first_keys:
        return
    _load_rest()  # the second file's entries, so that they are written back
    everything = {**_load_codes(), **_used}
    first = {k: v for k, v in everything.items() if k in _first_used or k in _first_keys}
    rest = {k: v for k, v in everything.items() if k not in first}
    first[_STAMP_KEY] = rest[_STAMP_KEY] = _stamp
    try:
        directory = os.path.dirname(_CODE_FILE)
        os.makedirs(directory, exist_ok=True)
        import tempfile  # here, not at the top: a warm import never saves, and tempfile takes ~5 ms to import

        for path, entries in ((_rest_file(), rest), (_CODE_FILE, first)):
            fd, tmp = tempfile.mkstemp(dir=directory, suffix=".tmp")
            with os.fdopen(fd, "wb") as f:
                marshal.dump(entries, f)
            os.chmod(tmp, 0o644)  # readable by whoever imports the package next, as .pyc files are
            os.replace(tmp, path)  # atomic: processes saving at once each write whole files
        _compiled_new = False
        _first_keys = frozenset(first)
    except OSError:  # a read-only installation: wrappers are compiled at each import
        _first_keys = _first_keys | _first_used  # not tried again until something new is compiled


def parameter_source(signature: inspect.Signature, ns: dict, tag: str) -> tuple[str, str]:
    """Render a signature as Python source: ``(def parameter list, call passing every parameter through)``.

    Defaults are bound to names (see :func:`default_name`) placed in ``ns``, in
    signature order; annotations are dropped (wrappers never need them).
    """
    params: list[str] = []
    call: list[str] = []
    seen_star = False
    plist = list(signature.parameters.values())
    last_posonly = max((i for i, p in enumerate(plist) if p.kind is _P.POSITIONAL_ONLY), default=None)
    for idx, p in enumerate(plist):
        text = p.name
        if p.default is not _P.empty:
            ns[default_name(tag, p.name)] = p.default
            text = f"{p.name}={default_name(tag, p.name)}"
        if p.kind is _P.VAR_POSITIONAL:
            text = "*" + p.name
            seen_star = True
            call.append("*" + p.name)
        elif p.kind is _P.VAR_KEYWORD:
            text = "**" + p.name
            call.append("**" + p.name)
        elif p.kind is _P.KEYWORD_ONLY:
            if not seen_star:
                params.append("*")
                seen_star = True
            call.append(f"{p.name}={p.name}")
        else:
            call.append(p.name)
        params.append(text)
        if idx == last_posonly:
            params.append("/")
    return ", ".join(params), ", ".join(call)


def default_name(tag: str, param: str) -> str:
    """The global name under which a wrapper's generated code finds a parameter's default."""
    return f"_d{tag}_{param}"


def plain_check_source(signature: inspect.Signature, tag: str | None = None) -> str:
    """An expression that is true when no argument can carry an override.

    ``_T`` is the primary plain type (tested by identity first: most
    arguments are the library's tensors), ``_F`` the set of types known to be
    plain; a list or tuple passes if its elements are plain. Anything else
    takes the slow path, which scans properly.
    """

    def plain(x: str) -> str:
        return (f"(_dispatch_t_ := type({x})) is _T or _dispatch_t_ in _F"
                f" or ((_dispatch_t_ is tuple or _dispatch_t_ is list) and _plain_seq({x}))")

    checks: list[str] = []
    for p in signature.parameters.values():
        if p.kind is _P.VAR_POSITIONAL:
            # one or two positional extras are the usual case: check them inline
            n = p.name
            checks.append(f"(not {n} or (({plain(n + '[0]')}) and (len({n}) == 1 or _all_plain({n}))))")
        elif p.kind is _P.VAR_KEYWORD:
            checks.append(f"(not {p.name} or _all_plain({p.name}.values()))")
        elif p.default is None:
            checks.append(f"({p.name} is None or {plain(p.name)})")
        elif p.default is not _P.empty and tag is not None:
            # left at its default (the usual case): no type lookup needed
            checks.append(f"({p.name} is {default_name(tag, p.name)} or {plain(p.name)})")
        else:
            checks.append(f"({plain(p.name)})")
    checks.append("not _M")
    return " and ".join(checks)


ARGS, KWARGS = "_dispatch_args_", "_dispatch_kwargs_"


def call_rebuild_source(
    signature: inspect.Signature, tag: str, indent: str = "    ", keyword: frozenset[str] = frozenset()
) -> str:
    """Statements binding ``ARGS`` and ``KWARGS`` to the call, rebuilt by the rule in the module docstring.

    Parameters named in ``keyword`` are always passed in ``KWARGS``, defaults included.
    """
    unknown = keyword - set(signature.parameters)
    if unknown:
        raise ValueError(f"keyword parameters {sorted(unknown)} are not in the signature {signature}")
    params = list(signature.parameters.values())
    positional = [p for p in params if p.kind in (_P.POSITIONAL_ONLY, _P.POSITIONAL_OR_KEYWORD)]
    gap = next((i for i, p in enumerate(positional) if p.name in keyword), len(positional))
    # after a parameter passed by keyword, the positional ones would bind to the wrong parameters: keywords too
    by_keyword = [p for p in positional[gap:] if p.name not in keyword and p.kind is _P.POSITIONAL_OR_KEYWORD]
    positional = positional[:gap]
    var_pos = next((p.name for p in params if p.kind is _P.VAR_POSITIONAL), None)
    kwonly = by_keyword + [p for p in params if p.kind is _P.KEYWORD_ONLY and p.name not in keyword]
    always = [p for p in params if p.name in keyword]
    var_kw = next((p.name for p in signature.parameters.values() if p.kind is _P.VAR_KEYWORD), None)

    def tup(params: list) -> str:
        return "(" + "".join(p.name + ", " for p in params) + ")"

    lines: list[str] = []
    required = [p for p in positional if p.default is _P.empty]
    optional = [p for p in positional if p.default is not _P.empty]
    branches: list[tuple[str, str]] = []
    if var_pos:
        branches.append((var_pos, f"{tup(positional)} + {var_pos}"))
    for i in range(len(optional), 0, -1):
        p = optional[i - 1]
        branches.append((f"{p.name} is not {default_name(tag, p.name)}", tup(required + optional[:i])))
    if branches:
        for n, (cond, value) in enumerate(branches):
            lines.append(f"{indent}{'if' if n == 0 else 'elif'} {cond}:")
            lines.append(f"{indent}    {ARGS} = {value}")
        lines.append(f"{indent}else:")
        lines.append(f"{indent}    {ARGS} = {tup(required)}")
    else:
        lines.append(f"{indent}{ARGS} = {tup(required)}")
    lines.append(f"{indent}{KWARGS} = {{{', '.join(f'{p.name!r}: {p.name}' for p in always)}}}")
    for p in kwonly:
        if p.default is _P.empty:
            lines.append(f"{indent}{KWARGS}[{p.name!r}] = {p.name}")
        else:
            lines.append(f"{indent}if {p.name} is not {default_name(tag, p.name)}:")
            lines.append(f"{indent}    {KWARGS}[{p.name!r}] = {p.name}")
    if var_kw:
        lines.append(f"{indent}if {var_kw}:")
        lines.append(f"{indent}    {KWARGS}.update({var_kw})")
    return "\n".join(lines) + "\n"


def _factory_source(body: str, free: tuple[str, ...]) -> str:
    """``def _make(*free)`` around ``body`` (which defines ``_fn``), returning ``_fn``: the names become closure cells."""
    indented = "".join("    " + line + "\n" for line in body.splitlines())
    return f"def _make({', '.join(free)}):\n{indented}    return _fn\n"


def closure_factory(body: str, free: tuple[str, ...], ns: dict, cache: dict) -> Callable:
    """``make(*values)``: returns the function ``body`` defines as ``_fn``, with the names ``free`` bound to ``values``.

    The names become closure variables (as fast to read as globals), so
    wrappers that differ only in what they wrap, their defaults and their
    name share one compiled factory: ``cache`` maps ``(body, free)`` to it.
    ``ns`` provides the globals (the protocol's ``_F``, ``_M``, ``_slow``...).
    Compiling is most of the cost of wrapping a namespace.
    """
    key = (body, free)
    make = cache.get(key)
    if make is None:
        local: dict = {}
        exec(_code_for(_factory_source(body, free)), ns, local)  # type: ignore[arg-type]
        make = cache[key] = local["_make"]
    return make


def rename(fn: Callable, name: str, qualname: str) -> Callable:
    """Give ``fn`` (and its code object, for tracebacks and profilers) a public name."""
    fn.__name__ = name
    fn.__qualname__ = qualname
    if sys.version_info >= (3, 11):
        fn.__code__ = fn.__code__.replace(co_name=name, co_qualname=qualname)
    else:  # pragma: no cover - Python 3.10
        fn.__code__ = fn.__code__.replace(co_name=name)
    return fn


_OVERRIDE_FACTORIES: dict = {}


def function_with_signature(signature: inspect.Signature, body_result: str, name: str) -> Callable:
    """A real function with exactly ``signature`` whose body returns ``body_result``.

    Used for the testing overrides: calling one with arguments its signature
    rejects raises the same TypeError the real function would.
    """
    defaults: dict = {}
    params, _ = parameter_source(signature, defaults, "")
    body = f"def _fn({params}):\n    return {body_result}\n"
    make = closure_factory(body, tuple(defaults), {}, _OVERRIDE_FACTORIES)
    return rename(make(*defaults.values()), name, name)
