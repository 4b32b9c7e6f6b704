"""The duck-type author's toolkit: a table of implementations checked against the public functions' signatures.

Every type that takes part in a protocol writes the same code: a dict from
public function to implementation, an ``implements`` decorator that fills it,
and a handler that looks the function up and returns ``NotImplemented`` for the
rest. :class:`Implementations` is that code, written once, with what hand-written
tables lack: an implementation whose signature cannot stand in for the public
function's is refused when it is declared (not when a user first calls it), and
the unhandled functions can fall back to the plain type (:class:`Rewrap`).

>>> import dispatch
>>> proto = dispatch.Protocol("__my_function__")
>>> @proto.overridable
... def total(values, start=0):
...     return sum(values, start)
>>> HANDLED = dispatch.Implementations(proto)
>>> class Bag:
...     __my_function__ = HANDLED.handler
>>> @HANDLED.implements(total)
... def bag_total(values, start=0):
...     return "a bag's total"
>>> total(Bag())
"a bag's total"
"""

from __future__ import annotations

import inspect
from typing import Any, Callable, Iterable, Iterator, TypeVar

_P = inspect.Parameter
_POSITIONAL = (_P.POSITIONAL_ONLY, _P.POSITIONAL_OR_KEYWORD)
F = TypeVar("F", bound=Callable[..., Any])

__all__ = ["Implementations", "Rewrap", "SignatureError", "signature_problems"]


class SignatureError(TypeError):
    """An implementation whose parameters cannot stand in for the public function's."""


def _same_default(a: Any, b: Any) -> bool:
    if a is b:
        return True
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:  # noqa: BLE001 - an object whose comparison fails or is ambiguous is not "the same"
        return False


def signature_problems(public: inspect.Signature, impl: inspect.Signature, *, strict: bool = False) -> list[str]:
    """Why an implementation with signature ``impl`` cannot stand in for a public function with ``public``.

    Empty when every call the public function accepts that the implementation
    declares itself for reaches it with the same meaning: same names, order,
    kinds and defaults. An implementation may leave out parameters the public
    function gives defaults to (a call that passes one then fails, as with a
    hand-written table); with ``strict`` it must take every parameter, and may
    not add its own.
    """
    pub = list(public.parameters.values())
    imp = list(impl.parameters.values())
    var_pos = any(p.kind is _P.VAR_POSITIONAL for p in imp)
    var_kw = any(p.kind is _P.VAR_KEYWORD for p in imp)
    pub_pos = [p for p in pub if p.kind in _POSITIONAL]
    imp_pos = [p for p in imp if p.kind in _POSITIONAL]
    pub_names = {p.name: p for p in pub if p.kind not in (_P.VAR_POSITIONAL, _P.VAR_KEYWORD)}
    problems: list[str] = []

    def defaults(p: inspect.Parameter, q: inspect.Parameter) -> None:
        if q.default is not _P.empty and p.default is _P.empty:
            problems.append(f"'{p.name}' has no default, the public function's defaults to {q.default!r}")
        elif q.default is not _P.empty and not _same_default(p.default, q.default):
            problems.append(f"'{p.name}' defaults to {p.default!r}, the public function's to {q.default!r}")

    for i, p in enumerate(imp_pos):
        if i >= len(pub_pos):
            if p.default is _P.empty:
                problems.append(f"positional parameter '{p.name}' has no counterpart and no default")
            elif strict:
                problems.append(f"parameter '{p.name}' is not a parameter of the public function")
            continue
        q = pub_pos[i]
        if p.name != q.name and q.kind is not _P.POSITIONAL_ONLY:  # a keyword call would miss it
            problems.append(f"positional parameter {i + 1} is named '{p.name}', the public function's '{q.name}'")
        elif p.kind is _P.POSITIONAL_ONLY and q.kind is _P.POSITIONAL_OR_KEYWORD:
            problems.append(f"'{p.name}' is positional-only, the public function's can be passed by keyword")
        defaults(p, q)
    for q in pub_pos[len(imp_pos):]:
        if var_pos or (var_kw and q.kind is _P.POSITIONAL_OR_KEYWORD and not strict):
            continue
        other = next((p for p in imp if p.name == q.name), None)
        if other is not None and other.kind is _P.KEYWORD_ONLY:
            problems.append(f"'{q.name}' is keyword-only, the public function's can be passed by position")
        elif q.default is _P.empty:
            problems.append(f"required parameter '{q.name}' is missing")
        elif strict:
            problems.append(f"parameter '{q.name}' is missing")
    for p in imp:
        if p.kind is not _P.KEYWORD_ONLY:
            continue
        match = pub_names.get(p.name)
        if match is None:
            if p.default is _P.empty:
                problems.append(f"keyword-only parameter '{p.name}' is not a parameter of the public function")
            elif strict:
                problems.append(f"parameter '{p.name}' is not a parameter of the public function")
        elif match.kind is _P.KEYWORD_ONLY:
            defaults(p, match)
    for q in pub:
        if q.kind is _P.KEYWORD_ONLY and not var_kw and all(p.name != q.name for p in imp):
            if q.default is _P.empty:
                problems.append(f"required keyword-only parameter '{q.name}' is missing")
            elif strict:
                problems.append(f"parameter '{q.name}' is missing")
    return problems


def _signature_of(obj: Any) -> inspect.Signature | None:
    try:
        return inspect.signature(obj)
    except (TypeError, ValueError):  # builtins without text signatures: nothing to check against
        return None


_ACCESSOR = inspect.Signature([_P("self", _P.POSITIONAL_OR_KEYWORD)])
_SETTER = inspect.Signature([_P("self", _P.POSITIONAL_OR_KEYWORD), _P("value", _P.POSITIONAL_OR_KEYWORD)])


class Rewrap:
    """A fallback for the functions a table does not handle: run them on the plain values inside.

    Each argument that is an instance of ``cls`` (also inside lists, tuples
    and dicts) becomes ``unwrap(instance)``; the function is called again with
    the plain values; its result becomes ``wrap(result, instances)``, where
    ``instances`` are the unwrapped arguments in order (for the metadata to
    carry over). With ``wrap_types``, only results of those types are wrapped,
    also inside tuples and lists; others are returned as they are.
    """

    def __init__(self, cls: type | tuple[type, ...], unwrap: Callable[[Any], Any],
                 wrap: Callable[[Any, list[Any]], Any], *, wrap_types: type | tuple[type, ...] | None = None) -> None:
        self.cls = cls
        self.unwrap = unwrap
        self.wrap = wrap
        self.wrap_types = wrap_types

    def __call__(self, func: Callable, types: tuple, args: tuple, kwargs: dict | None) -> Any:
        instances: list[Any] = []

        def down(v: Any) -> Any:
            if isinstance(v, self.cls):
                instances.append(v)
                return self.unwrap(v)
            if type(v) in (list, tuple):
                return type(v)(down(x) for x in v)
            if type(v) is dict:
                return {k: down(x) for k, x in v.items()}
            return v

        plain_args = tuple(down(a) for a in args)
        plain_kwargs = {k: down(v) for k, v in (kwargs or {}).items()}
        result = func(*plain_args, **plain_kwargs)
        return self._up(result, instances)

    def _up(self, result: Any, instances: list[Any]) -> Any:
        if self.wrap_types is None:
            return self.wrap(result, instances)
        if isinstance(result, self.wrap_types):
            return self.wrap(result, instances)
        if isinstance(result, (tuple, list)):
            items = [self._up(r, instances) for r in result]
            if hasattr(result, "_fields"):  # a named tuple: same fields
                return type(result)(*items)
            return type(result)(items)
        return result


class Implementations:
    """A duck type's table of implementations: ``implements`` fills it, ``handler`` answers the protocol.

    ``protocol``: the :class:`~dispatch.Protocol` the public functions belong
    to; with it, an operator registered under its own name (``Tensor.__add__``)
    is filed under the function handlers actually receive for it.
    ``accepts``: the types a call may involve (the seed's ``issubclass(t,
    (Tensor, ScalarTensor))`` check); a call with another type is not handled.
    ``fallback``: called as ``fallback(func, types, args, kwargs)`` for calls
    the table does not handle (see :class:`Rewrap`); without one they get
    ``NotImplemented``. ``strict``: the default for :meth:`implements`.

    Use the handler as the protocol method: ``__torch_function__ = table.handler``
    (an instance method, as in the seed) or ``classmethod(table.handler)``.
    """

    def __init__(self, protocol: Any = None, *, accepts: type | tuple[type, ...] | None = None,
                 fallback: Callable[[Callable, tuple, tuple, dict | None], Any] | None = None,
                 strict: bool = False) -> None:
        self.protocol = protocol
        self.accepts = accepts
        self.fallback = fallback
        self.strict = strict
        self._table: dict[Any, Callable] = {}
        self._declared: dict[Any, Any] = {}  # key -> the public object it was declared for

        def handler(owner: Any, func: Any, types: tuple, args: tuple = (), kwargs: dict | None = None) -> Any:
            return self.handle(func, types, args, kwargs)

        handler.__doc__ = "Answer the protocol from this table (see dispatch.Implementations)."
        handler._dispatch_table = self  # type: ignore[attr-defined]  # how coverage() finds the table
        self.handler = handler

    def _key(self, public: Any) -> tuple[Any, inspect.Signature | None]:
        if isinstance(public, property):
            if public.fget is None:
                raise TypeError("implements() needs a property with a getter")
            return public.__get__, _ACCESSOR
        if getattr(public, "__name__", None) == "__set__" and isinstance(getattr(public, "__self__", None), property):
            return public, _SETTER
        if getattr(public, "__name__", None) == "__get__" and isinstance(getattr(public, "__self__", None), property):
            return public, _ACCESSOR
        if not callable(public):
            raise TypeError(f"implements() needs a public function, method or property, got {type(public).__name__}")
        key = self.protocol.reported_as(public) if self.protocol is not None else public
        return key, _signature_of(public)

    def _name(self, public: Any) -> str:
        if self.protocol is not None:
            return str(self.protocol.registry.display_name(public))
        module = getattr(public, "__module__", None)
        qualname = getattr(public, "__qualname__", None) or getattr(public, "__name__", None) or repr(public)
        return f"{module}.{qualname}" if module else str(qualname)

    def check(self, public: Any, impl: Callable, *, strict: bool | None = None) -> None:
        """Raise :class:`SignatureError` (a TypeError) if ``impl`` cannot stand in for ``public``."""
        _, public_sig = self._key(public)
        impl_sig = _signature_of(impl)
        if public_sig is None or impl_sig is None:
            return
        problems = signature_problems(public_sig, impl_sig, strict=self.strict if strict is None else strict)
        if problems:
            impl_name = getattr(impl, "__qualname__", None) or getattr(impl, "__name__", repr(impl))
            raise SignatureError(
                f"{impl_name}{impl_sig} cannot implement {self._name(public)}{public_sig}: " + "; ".join(problems)
            )

    def implements(self, public: Any, *, strict: bool | None = None, check: bool = True) -> Callable[[F], F]:
        """Decorator: ``impl`` handles calls of ``public`` (its signature is checked now; see :func:`signature_problems`).

        The implementation is returned unchanged; declaring a second one for
        the same function is an error. ``check=False`` files it unchecked (the
        coverage report still lists it as mis-signed).
        """
        key, _ = self._key(public)

        def decorator(impl: F) -> F:
            if not callable(impl):
                raise TypeError(f"implements() decorates a callable, got {type(impl).__name__}")
            if check:
                self.check(public, impl, strict=strict)
            if key in self._table:
                raise ValueError(f"{self._name(public)} already has an implementation: {self._table[key]!r}")
            self._table[key] = impl
            self._declared[key] = public
            return impl

        return decorator

    def handle(self, func: Any, types: tuple, args: tuple = (), kwargs: dict | None = None) -> Any:
        """The protocol method's body: the implementation of ``func``, the fallback, or ``NotImplemented``."""
        impl = self._table.get(func)
        accepted = self.accepts is None or all(issubclass(t, self.accepts) for t in types)
        if impl is None or not accepted:
            if self.fallback is not None:
                return self.fallback(func, types, args, kwargs)
            return NotImplemented
        return impl(*args, **(kwargs or {}))

    def get(self, func: Any) -> Callable | None:
        """The implementation filed for ``func`` (as handlers receive it), or None."""
        return self._table.get(func)

    def functions(self) -> dict[Any, Callable]:
        """Public object as declared -> implementation: what the type handles, read without calling anything."""
        return {self._declared[k]: v for k, v in self._table.items()}

    def __contains__(self, func: Any) -> bool:
        return func in self._table

    def __iter__(self) -> Iterator[Any]:
        return iter(list(self._declared.values()))

    def __len__(self) -> int:
        return len(self._table)

    def __repr__(self) -> str:
        return f"<Implementations: {len(self)} functions>"

    def update(self, pairs: Iterable[tuple[Any, Callable]]) -> None:
        """Declare several ``(public, impl)`` pairs (each checked as by :meth:`implements`)."""
        for public, impl in pairs:
            self.implements(public)(impl)
