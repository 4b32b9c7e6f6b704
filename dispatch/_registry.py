"""What a protocol makes overridable and what it leaves alone, for introspection."""

from __future__ import annotations

import inspect
import types
from typing import TYPE_CHECKING, Any, Callable, Iterable

from . import _codegen

if TYPE_CHECKING:
    from ._protocol import Protocol


def namespace_path(namespace: Any) -> str:
    """The dotted name under which ``namespace`` (a module or a class) is reached."""
    if isinstance(namespace, types.ModuleType):
        return namespace.__name__
    return f"{namespace.__module__}.{namespace.__qualname__}"


class Registry:
    """Overridable and ignored callables of one protocol, grouped by namespace."""

    def __init__(self, protocol: "Protocol") -> None:
        self._protocol = protocol
        self._overridable: dict[Any, dict[str, Any]] = {}
        self._names: dict[Any, str] = {}
        self._methods: set[Any] = set()
        self._ignored: dict[Any, dict[str, Any]] = {}
        self._testing: dict[Any, Callable] | None = None
        self._impls: dict[Any, Callable] = {}
        self._loaders: list[Callable[[], None]] = []

    def add_loader(self, loader: Callable[[], None]) -> None:
        """Have ``loader()`` run before the first listing: it registers namespaces a library builds on first use.

        The listings (:meth:`overridable_functions`, :meth:`ignored_functions`,
        :meth:`testing_overrides`) are then complete without the caller having
        touched those namespaces. Each loader runs once.
        """
        self._loaders.append(loader)

    def _load(self) -> None:
        while self._loaders:
            self._loaders.pop(0)()

    def add_implementation(self, public: Any, impl: Callable) -> None:
        """Remember the raw implementation behind a public overridable object."""
        self._impls[public] = impl

    def implementation(self, public: Any) -> Callable | None:
        """The raw implementation behind ``public`` (None if it is not a registered wrapper)."""
        try:
            return self._impls.get(public)
        except TypeError:
            return None

    def add_overridable(self, namespace: Any, name: str, func: Any, accessor: str | None = None) -> None:
        """Record ``func`` as the overridable entry ``namespace.name`` (``accessor`` for properties)."""
        self._overridable.setdefault(namespace, {})[name if accessor is None else f"{name}.{accessor}"] = func
        path = f"{namespace_path(namespace)}.{name}"
        self._names[func] = path if accessor is None else f"{path}.{accessor}"
        if isinstance(namespace, type):
            self._methods.add(func)
        self._testing = None

    def add_ignored(self, namespace: Any, names: Iterable[str]) -> None:
        """Record public callables of ``namespace`` that deliberately do not dispatch."""
        entry = self._ignored.setdefault(namespace, {})
        path = namespace_path(namespace)
        for name in names:
            obj = inspect.getattr_static(namespace, name) if isinstance(namespace, type) else getattr(namespace, name)
            entry[name] = obj
            if isinstance(obj, (staticmethod, classmethod)):
                obj = obj.__func__
            try:
                self._names.setdefault(obj, f"{path}.{name}")
            except TypeError:  # unhashable: it simply has no name
                pass

    def overridable_functions(self) -> dict[Any, list[Any]]:
        """Namespace -> overridable callables, sorted by name."""
        self._load()
        return {ns: [funcs[k] for k in sorted(funcs)] for ns, funcs in self._overridable.items()}

    def ignored_functions(self) -> set[Any]:
        """Every public callable registered as not overridable."""
        self._load()
        out = set()
        for entries in self._ignored.values():
            for obj in entries.values():
                if isinstance(obj, (staticmethod, classmethod)):
                    obj = obj.__func__
                out.add(obj)
        return out

    def ignored_names(self, namespace: Any) -> set[str]:
        """Names registered as ignored in ``namespace``."""
        return set(self._ignored.get(namespace, ()))

    def overridable_names(self, namespace: Any) -> set[str]:
        """Names registered as overridable in ``namespace`` (a property counts once)."""
        return {k.split(".")[0] for k in self._overridable.get(namespace, ())}

    def is_method(self, func: Any) -> bool:
        """Whether ``func`` is a registered method, operator or property accessor of a class."""
        try:
            return func in self._methods
        except TypeError:
            return False

    def resolve_name(self, func: Any) -> str | None:
        """The dotted name under which ``func`` is registered (overridable or ignored), else ``None``.

        Evaluating the name gives ``func`` back.
        """
        try:
            return self._names.get(func)
        except TypeError:
            return None

    def display_name(self, func: Any) -> str:
        """A name for messages: the registered name, else ``module.qualname``, else ``repr``."""
        name = self.resolve_name(func)
        if name is not None:
            return name
        module = getattr(func, "__module__", None)
        qualname = getattr(func, "__qualname__", None) or getattr(func, "__name__", None)
        if module and qualname:
            return f"{module}.{qualname}"
        return repr(func)

    def testing_overrides(self) -> dict[Any, Callable]:
        """Overridable callable -> a function of identical signature that returns -1."""
        self._load()
        if self._testing is None:
            table: dict[Any, Callable] = {}
            for funcs in self._overridable.values():
                for func in funcs.values():
                    table[func] = _dummy_for(func)
            self._testing = table
        return dict(self._testing)


_GETTER = inspect.Signature([inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)])
_SETTER = inspect.Signature(
    [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in ("self", "value")]
)


def _dummy_for(func: Any) -> Callable:
    """A function with ``func``'s signature returning -1 (property accessors: ``(self)`` / ``(self, value)``)."""
    name = getattr(func, "__name__", "override")
    if name == "__get__":
        sig = _GETTER
    elif name == "__set__":
        sig = _SETTER
    else:
        sig = inspect.signature(func)
    return _codegen.function_with_signature(sig, "-1", "<lambda>")
