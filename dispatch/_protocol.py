"""A named override protocol: wrapping, dispatch, modes and the disable contexts."""

from __future__ import annotations

import functools
import inspect
import threading
import types
from typing import Any, Callable, Iterable, TypeVar

from . import _codegen
from ._collect import BASIC_TYPES, collect
from ._registry import Registry

F = TypeVar("F", bound=Callable[..., Any])

ENABLED, SUBCLASSES_DISABLED, DISABLED = 0, 1, 2


def disabled_handler(*args: Any, **kwargs: Any) -> Any:
    """Assign to a class's protocol attribute to mark its instances as plain (never dispatched to)."""
    return NotImplemented


class _ThreadState(threading.local):
    def __init__(self) -> None:
        self.modes: list = []
        self.disabled = ENABLED


class _WrapperSpec:
    """What the slow path needs to know about one generated wrapper."""

    __slots__ = ("public", "impl", "name")

    def __init__(self, impl: Callable, name: str) -> None:
        self.public: Any = None
        self.impl = impl
        self.name = name


class Protocol:
    """An override protocol named by the method its implementers define.

    ``Protocol("__torch_function__")`` is tensorlib's. Any library can declare
    its own; protocols share nothing but this code. An object takes part when
    its type defines the method; the method is called as
    ``method(func, types, args, kwargs)`` with ``func`` the public object that
    was called.
    """

    def __init__(self, method: str, *, plain_types: Iterable[type] = (), mode_class_name: str = "Mode") -> None:
        if not method.isidentifier():
            raise ValueError(f"protocol method name must be an identifier, got {method!r}")
        self.method = method
        self._plain: set[type] = set(BASIC_TYPES)
        self._plain.update(plain_types)
        # Types seen to implement the protocol (a class that later gains or
        # loses the method is not re-examined: define it in the class body).
        self._implementers: set[type] = set()
        self._tls = _ThreadState()
        self._mode_count = 0
        # How many modes and disable contexts are active in any thread: while 0,
        # the slow path need not look at thread-local state at all.
        self._busy = 0
        self._lock = threading.Lock()
        self.registry = Registry(self)
        # Every wrapper of this protocol is compiled into this one globals dict,
        # so the fast path reads ``_F`` and ``_M`` as cached globals.
        self._ns: dict = {
            "__name__": f"dispatch.protocol[{method}]",
            "_F": self._plain,
            "_M": 0,
            "_all_plain": self._all_plain,
            "_plain_seq": self._plain_seq,
            "_slow": self._slow,
        }
        self.Mode = _make_mode_class(self, mode_class_name)

    def __repr__(self) -> str:
        return f"Protocol({self.method!r})"

    # -- which objects take part -------------------------------------------

    def add_plain_type(self, tp: type) -> None:
        """Declare that instances of exactly ``tp`` never dispatch, even if it defines the method."""
        self._plain.add(tp)

    def is_implementer_type(self, tp: type) -> bool:
        """Whether instances of ``tp`` take part in dispatch (plain types are remembered)."""
        if tp in self._implementers:
            return True
        if tp in self._plain:
            return False
        handler = getattr(tp, self.method, None)
        if handler is None or getattr(handler, "__func__", handler) is disabled_handler:
            self._plain.add(tp)
            return False
        self._implementers.add(tp)
        return True

    def _all_plain(self, values: Iterable[Any]) -> bool:
        plain = self._plain
        for v in values:
            if type(v) not in plain:
                return False
        return True

    def _plain_seq(self, value: Any) -> bool:
        tp = type(value)
        if tp is not tuple and tp is not list:
            return False
        plain = self._plain
        for v in value:
            if type(v) not in plain:
                return False
        return True

    def implementers(self, values: Iterable[Any]) -> tuple[list[type], list[Any]]:
        """The implementing types and one object of each, in the order their handlers are tried."""
        return collect(values, self.is_implementer_type, self._plain)

    def has_override(self, values: Iterable[Any]) -> bool:
        """Whether calling an overridable function with ``values`` would leave the default path."""
        st = self._tls
        if st.disabled == DISABLED:
            return False
        if st.modes:
            return True
        if st.disabled == SUBCLASSES_DISABLED:
            return False
        return bool(self.implementers(values)[0])

    # -- dispatch -------------------------------------------------------------

    def _slow(self, spec: _WrapperSpec, args: tuple, kwargs: dict) -> Any:
        if self._busy:
            relevant = args + tuple(kwargs.values()) if kwargs else args
            return self.dispatch(spec.public, spec.impl, relevant, args, kwargs)
        types, objs = collect(args, self.is_implementer_type, self._plain, None, None, self._implementers)
        if kwargs:
            collect(kwargs.values(), self.is_implementer_type, self._plain, types, objs, self._implementers)
        if not objs:
            return spec.impl(*args, **kwargs)
        if len(objs) == 1:
            result = getattr(objs[0], self.method)(spec.public, (types[0],), args, kwargs)
            if result is NotImplemented:
                self._raise_not_implemented(spec.public, types, False)
            return result
        return self._call_handlers(spec.public, types, objs, args, kwargs, mode_tried=False)

    def dispatch(self, public: Any, impl: Callable, relevant: Iterable[Any], args: tuple, kwargs: dict) -> Any:
        """Call the first handler that does not return NotImplemented, or ``impl`` if none applies."""
        st = self._tls
        state = st.disabled
        if state == DISABLED:
            return impl(*args, **kwargs)
        modes = st.modes
        if state == ENABLED:
            types, objs = collect(relevant, self.is_implementer_type, self._plain)
        else:
            types, objs = [], []
        if modes:
            types_t = tuple(types)
            mode = modes.pop()
            try:
                result = getattr(mode, self.method)(public, types_t, args, kwargs)
            finally:
                modes.append(mode)
            if result is not NotImplemented:
                return result
        elif not objs:
            return impl(*args, **kwargs)
        return self._call_handlers(public, types, objs, args, kwargs, mode_tried=bool(modes))

    def _call_handlers(self, public: Any, types: list, objs: list, args: tuple, kwargs: dict, mode_tried: bool) -> Any:
        types_t = tuple(types)
        method = self.method
        for obj in objs:
            result = getattr(obj, method)(public, types_t, args, kwargs)
            if result is not NotImplemented:
                return result
        self._raise_not_implemented(public, types, mode_tried)

    def _raise_not_implemented(self, public: Any, types: list, mode_tried: bool) -> None:
        method = self.method
        names = ", ".join(t.__qualname__ for t in types)
        msg = (
            f"no implementation found for '{self.registry.resolve_name(public)}' on types that "
            f"implement {method}: [{names}]"
        )
        if mode_tried:
            msg += f" nor in mode {self._tls.modes[-1]!r}"
        raise TypeError(msg)

    def handle(self, public: Any, relevant: Iterable[Any], args: tuple, kwargs: dict) -> Any:
        """Dispatch a call of ``public`` to the overrides among ``relevant`` (``handle_torch_function``).

        Raises TypeError if no handler (and no mode) accepts it.
        """
        st = self._tls
        relevant = tuple(relevant)
        types, objs = collect(relevant, self.is_implementer_type, self._plain)
        if st.modes and st.disabled != DISABLED:
            modes = st.modes
            mode = modes.pop()
            try:
                result = getattr(mode, self.method)(public, tuple(types), args, kwargs)
            finally:
                modes.append(mode)
            if result is not NotImplemented:
                return result
            return self._call_handlers(public, types, objs, args, kwargs, mode_tried=True)
        return self._call_handlers(public, types, objs, args, kwargs, mode_tried=False)

    def call_with_subclasses_disabled(self, func: Callable, args: tuple, kwargs: dict) -> Any:
        """Run ``func(*args, **kwargs)`` with dispatch to implementers off (modes stay on).

        When no mode is active anywhere and ``func`` is a registered public
        function, its raw implementation is called directly: implementations
        do not dispatch, so this is the same call minus a second dispatch.
        """
        if not self._mode_count:
            impl = self.registry.implementation(func)
            if impl is not None:
                return impl(*args, **kwargs)
        st = self._tls
        prev = st.disabled
        if prev != ENABLED:
            return func(*args, **kwargs)
        st.disabled = SUBCLASSES_DISABLED
        self._busy_add(1)
        try:
            return func(*args, **kwargs)
        finally:
            st.disabled = prev
            self._busy_add(-1)

    # -- disable contexts and modes ----------------------------------------

    def disabled(self) -> "_DisableContext":
        """Context manager: no dispatch at all, not even to modes."""
        return _DisableContext(self, DISABLED)

    def subclasses_disabled(self) -> "_DisableContext":
        """Context manager: no dispatch to implementers; modes still apply."""
        return _DisableContext(self, SUBCLASSES_DISABLED)

    def is_enabled(self) -> bool:
        return self._tls.disabled == ENABLED

    def mode_stack(self) -> list:
        """The calling thread's active modes, outermost first (a copy)."""
        return list(self._tls.modes)

    def _busy_add(self, n: int) -> None:
        with self._lock:
            self._busy += n

    def _push_mode(self, mode: Any) -> None:
        self._tls.modes.append(mode)
        with self._lock:
            self._mode_count += 1
            self._busy += 1
            self._ns["_M"] = self._mode_count

    def _pop_mode(self, mode: Any) -> None:
        modes = self._tls.modes
        if not modes or modes[-1] is not mode:
            raise RuntimeError("modes must be exited in the reverse order they were entered")
        modes.pop()
        with self._lock:
            self._mode_count -= 1
            self._busy -= 1
            self._ns["_M"] = self._mode_count

    # -- wrapping -----------------------------------------------------------

    def wrap(
        self,
        impl: Callable,
        *,
        name: str | None = None,
        qualname: str | None = None,
        module: str | None = None,
        signature: inspect.Signature | None = None,
        doc: str | None = None,
        namespace: Any = None,
    ) -> Callable:
        """Make ``impl`` overridable: return a wrapper with the same (or the given) signature.

        The wrapper checks its arguments for implementers; with none it calls
        ``impl`` directly. ``namespace`` (a module or class) registers it for
        introspection. The raw implementation is ``wrapper._implementation``.
        """
        sig = signature if signature is not None else inspect.signature(impl)
        name = name or impl.__name__
        tag = _codegen.unique_tag()
        ns = self._ns
        params, call = _codegen.parameter_source(sig, ns, tag)
        check = _codegen.plain_check_source(sig, tag)
        spec = _WrapperSpec(impl, name)
        impl_name, spec_name = f"_impl{tag}", f"_spec{tag}"
        ns[impl_name] = impl
        ns[spec_name] = spec
        fname = name if name.isidentifier() and not name.startswith("__") else f"_wrapper{tag}"
        src = (
            f"def {fname}({params}):\n"
            f"    if {check}:\n"
            f"        return {impl_name}({call})\n"
            + _codegen.call_rebuild_source(sig, tag)
            + f"    return _slow({spec_name}, {_codegen.ARGS}, {_codegen.KWARGS})\n"
        )
        wrapper = _codegen.compile_function(src, fname, ns)
        wrapper.__name__ = name
        wrapper.__qualname__ = qualname or getattr(impl, "__qualname__", None) or name
        wrapper.__module__ = module or getattr(impl, "__module__", None) or self._ns["__name__"]
        wrapper.__doc__ = doc if doc is not None else impl.__doc__
        if signature is None:
            wrapper.__wrapped__ = impl  # type: ignore[attr-defined]
        wrapper._implementation = impl  # type: ignore[attr-defined]
        spec.public = wrapper
        self.registry.add_implementation(wrapper, impl)
        if namespace is not None:
            self.registry.add_overridable(namespace, name, wrapper)
        return wrapper

    def overridable(self, impl: F | None = None, **options: Any) -> Any:
        """Decorator form of :meth:`wrap`."""
        if impl is None:
            return functools.partial(self.overridable, **options)
        return self.wrap(impl, **options)

    def wrap_property(self, prop: property, *, owner: type, name: str) -> property:
        """Make a property overridable: its getter dispatches as ``prop.__get__``, its setter as ``prop.__set__``."""
        fget = self._accessor(prop.fget, ["self"], f"{name}_get") if prop.fget else None
        fset = self._accessor(prop.fset, ["self", "value"], f"{name}_set") if prop.fset else None
        new = property(fget[0] if fget else None, fset[0] if fset else None, prop.fdel, prop.__doc__)
        if fget and prop.fget:
            fget[1].public = new.__get__
            self.registry.add_implementation(new.__get__, prop.fget)
            self.registry.add_overridable(owner, name, new.__get__, accessor="__get__")
        if fset and prop.fset:
            fset[1].public = new.__set__
            self.registry.add_implementation(new.__set__, prop.fset)
            self.registry.add_overridable(owner, name, new.__set__, accessor="__set__")
        return new

    def _accessor(self, impl: Callable, params: list[str], name: str) -> tuple[Callable, _WrapperSpec]:
        sig = inspect.Signature([inspect.Parameter(p, inspect.Parameter.POSITIONAL_OR_KEYWORD) for p in params])
        tag = _codegen.unique_tag()
        ns = self._ns
        spec = _WrapperSpec(impl, name)
        impl_name, spec_name = f"_impl{tag}", f"_spec{tag}"
        ns[impl_name] = impl
        ns[spec_name] = spec
        plist = ", ".join(params)
        check = _codegen.plain_check_source(sig)
        fname = f"_accessor{tag}"
        src = (
            f"def {fname}({plist}):\n"
            f"    if {check}:\n"
            f"        return {impl_name}({plist})\n"
            f"    return _slow({spec_name}, ({plist},), {{}})\n"
        )
        fn = _codegen.compile_function(src, fname, ns)
        fn.__name__ = name
        fn.__doc__ = impl.__doc__
        return fn, spec

    def wrap_module(self, module: types.ModuleType, names: Iterable[str] | None = None, ignore: Iterable[str] = ()) -> None:
        """Make a module's public functions overridable in place.

        ``names`` defaults to every public function the module defines (not
        ones it imported); ``ignore`` lists public callables that must stay
        plain: they are registered as ignored, so introspection knows them.
        """
        ignore = set(ignore)
        if names is None:
            names = [
                n for n, v in vars(module).items()
                if not n.startswith("_") and inspect.isfunction(v) and v.__module__ == module.__name__
            ]
        for name in names:
            if name in ignore:
                continue
            impl = getattr(module, name)
            setattr(module, name, self.wrap(impl, name=name, qualname=name, module=module.__name__, namespace=module))
        if ignore:
            self.registry.add_ignored(module, sorted(ignore))

    def wrap_class(self, cls: type, ignore: Iterable[str] = ()) -> None:
        """Make a class's public methods, operators (dunders) and properties overridable in place.

        Methods dispatch as ``cls.name``; properties as ``cls.name.__get__`` and
        ``cls.name.__set__``. ``ignore`` names stay plain and are registered as ignored.
        """
        ignore = set(ignore)
        for name, attr in list(vars(cls).items()):
            if name in ignore:
                continue
            dunder = name.startswith("__") and name.endswith("__")
            if name.startswith("_") and not dunder:
                continue
            if isinstance(attr, property):
                setattr(cls, name, self.wrap_property(attr, owner=cls, name=name))
            elif inspect.isfunction(attr) and not getattr(attr, "_implementation", None):
                setattr(cls, name, self.wrap(attr, name=name, qualname=f"{cls.__qualname__}.{name}",
                                             module=cls.__module__, namespace=cls))
        if ignore:
            self.registry.add_ignored(cls, sorted(ignore))

    def wrap_with_dispatcher(self, dispatcher: Callable[..., Iterable[Any]]) -> Callable[[F], F]:
        """Decorator: overridable by the implementers among the values ``dispatcher`` returns."""

        def decorate(impl: F) -> F:
            @functools.wraps(impl)
            def wrapped(*args: Any, **kwargs: Any) -> Any:
                relevant = dispatcher(*args, **kwargs)
                if self.has_override(relevant):
                    return self.dispatch(wrapped, impl, relevant, args, kwargs)
                return impl(*args, **kwargs)

            wrapped._implementation = impl  # type: ignore[attr-defined]
            return wrapped  # type: ignore[return-value]

        return decorate


class _DisableContext:
    __slots__ = ("_protocol", "_level", "_prev")

    def __init__(self, protocol: Protocol, level: int) -> None:
        self._protocol = protocol
        self._level = level
        self._prev: list[int] = []

    def __enter__(self) -> "_DisableContext":
        st = self._protocol._tls
        self._prev.append(st.disabled)
        st.disabled = max(st.disabled, self._level)
        self._protocol._busy_add(1)
        return self

    def __exit__(self, *exc: Any) -> None:
        self._protocol._tls.disabled = self._prev.pop()
        self._protocol._busy_add(-1)

    def __call__(self, func: F) -> F:
        @functools.wraps(func)
        def inner(*args: Any, **kwargs: Any) -> Any:
            with _DisableContext(self._protocol, self._level):
                return func(*args, **kwargs)

        return inner  # type: ignore[return-value]


def _make_mode_class(protocol: Protocol, class_name: str) -> type:
    method = protocol.method

    def __enter__(self: Any) -> Any:
        protocol._push_mode(self)
        return self

    def __exit__(self: Any, *exc: Any) -> None:
        protocol._pop_mode(self)

    def handler(self: Any, func: Callable, types: tuple, args: tuple = (), kwargs: dict | None = None) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must implement {method}")

    body = {
        "__doc__": f"Base class for modes of the {method} protocol: while entered, every overridable call goes to "
        f"``{method}(func, types, args, kwargs)`` first (innermost mode first; popped while it runs).",
        "__enter__": __enter__,
        "__exit__": __exit__,
        method: handler,
        "protocol": protocol,
    }
    return type(class_name, (), body)
