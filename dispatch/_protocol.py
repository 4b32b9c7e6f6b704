"""A named override protocol: overridable wrappers, dispatch, modes and the disable contexts.

How a call of an overridable function is resolved
-------------------------------------------------
1. *Fast path* (in the generated wrapper): every argument's type is known to
   be plain (or is a list/tuple of plain values) and no mode is active in any
   thread. The implementation is called directly.
2. Otherwise the thread's state decides (:meth:`Protocol._slow`):

   * everything disabled (:meth:`Protocol.disabled`): the implementation runs;
   * a mode is active: the innermost mode's handler runs first, with that
     mode popped off the stack while it runs; a result other than
     ``NotImplemented`` is the answer;
   * the implementers among the arguments (:mod:`dispatch._collect`) are
     tried in order, unless implementers are disabled
     (:meth:`Protocol.subclasses_disabled`); the first result other than
     ``NotImplemented`` is the answer;
   * nothing was found: the implementation runs. Something was found but
     every handler declined: ``TypeError``.

A handler is called as ``handler(func, types, args, kwargs)``: ``func`` is the
public object that was called, ``types`` the implementing types in the order
they are tried, ``args`` a tuple and ``kwargs`` a dict (both as the call is
rebuilt by the wrapper: see :mod:`dispatch._codegen`).

Implementer classification is cached per type: define the protocol method in
the class body (a class that gains or loses it after its first use is not
re-examined). The cache never keeps a class alive: classes that live as long
as their module (defined at module level, or not written in Python) are held
in plain sets, which the generated wrappers test directly; any other class (one
made in a function or a loop) is remembered through a weak reference, and
forgotten when it is freed.
"""

from __future__ import annotations

import functools
import inspect
import sys
import threading
import warnings
import weakref
import types
from typing import Any, Callable, Iterable, Literal, TypeVar

from . import _codegen
from ._speedups_loader import speedups as _speedups
from ._collect import BASIC_TYPES, SEQUENCE_TYPES, collect, collect_flat
from ._registry import Registry

F = TypeVar("F", bound=Callable[..., Any])

#: Per-thread dispatch levels, from least to most restrictive.
ENABLED, SUBCLASSES_DISABLED, DISABLED = 0, 1, 2


def disabled_handler(*args: Any, **kwargs: Any) -> Any:
    """Assign to a class's protocol attribute to make its instances plain (never dispatched to).

    ``class Param(Tensor): __torch_function__ = disabled_handler`` gives a
    subclass that behaves like its base class for dispatch.
    """
    return NotImplemented


class DisabledImpl:
    """A protocol's "plain" handler: mark a type with it, or call it to run a function as for plain arguments.

    Assigned as a class's protocol attribute (``__torch_function__ =
    proto.disabled_impl``), it makes the class's instances plain: they are
    never dispatched to, and results are whatever the implementation returns
    (not converted to the subclass). Called as a handler,
    ``impl(func, types, args=(), kwargs=None)`` runs ``func(*args, **kwargs)``
    with implementers disabled (:meth:`Protocol.call_with_subclasses_disabled`).
    It is not a function, so it does not bind: ``obj.attr is type(obj).attr``.
    """

    def __init__(self, protocol: "Protocol", name: str) -> None:
        self._protocol = protocol
        self.__name__ = self.__qualname__ = name
        self.__module__ = "dispatch"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """``(func, types, args=(), kwargs=None)``: call ``func`` with implementers off."""
        if kwargs:
            raise TypeError(f"{self.__name__}() takes no keyword arguments")
        if len(args) < 2:
            raise TypeError(f"function takes at least 2 arguments ({len(args)} given)")
        if len(args) > 4:
            raise TypeError(f"function takes at most 4 arguments ({len(args)} given)")
        func = args[0]
        call_args = args[2] if len(args) > 2 else ()
        call_kwargs = args[3] if len(args) > 3 else None
        if not isinstance(call_args, (list, tuple)):
            raise TypeError(f"expected List or Tuple (got {type(call_args).__name__})")
        return self._protocol.call_with_subclasses_disabled(func, tuple(call_args), dict(call_kwargs or {}))

    def __repr__(self) -> str:
        return f"<dispatch disabled handler {self.__name__} of {self._protocol!r}>"


class _ThreadState:
    """Dispatch state of one thread: its mode stack, its disable level and a pending one-hop skip."""

    __slots__ = ("disabled", "modes", "saved", "skip")

    def __init__(self) -> None:
        self.modes: list = []  # outermost first
        self.disabled = ENABLED
        self.saved: list[int] = []  # levels to restore, one per active disable context
        self.skip = False  # set by Protocol.redispatch: the next has_override answers False


class _Local(threading.local):
    # A plain object held in the thread-local: one thread-local read per
    # access, then ordinary (fast) attribute reads and writes.
    def __init__(self) -> None:
        self.state = _ThreadState()


class _WrapperSpec:
    """What the slow path needs to know about one generated wrapper."""

    __slots__ = ("public", "public_impl", "impl", "name", "none_kwargs", "operator", "prepare", "list_plain",
                 "plain_call")

    def __init__(
        self, impl: Callable, name: str, none_kwargs: bool = False, operator: bool = False,
        prepare: Callable[[tuple, dict], tuple[tuple, dict]] | None = None, list_plain: bool = False,
    ) -> None:
        self.public: Any = None  # the object handlers receive as ``func``
        self.public_impl: Callable = impl  # the raw implementation behind ``public`` (see report_as)
        self.impl = impl
        self.name = name
        self.none_kwargs = none_kwargs  # handlers get ``kwargs=None`` (not ``{}``) when there are none
        self.operator = operator  # a binary operator: a TypeError on the slow path becomes NotImplemented
        self.prepare = prepare  # rewrites the call handlers see (and the implementation then gets)
        self.list_plain = list_plain  # the primary plain type's instances take part once dispatch happens
        # handlers see the call as it was made (no prepare) and only implementers take part (no list_plain):
        # what the default handler's shortcut needs (see Protocol.default_handler)
        self.plain_call = prepare is None and not list_plain


_MethodType = types.MethodType

# kinds of the classes a protocol remembers weakly (Protocol._transient)
_PLAIN, _IMPLEMENTER, _PLAIN_METHOD = 0, 1, 2
_HEAPTYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made at run time (by a class statement or type())


def _lives_with_module(tp: type) -> bool:
    """Whether ``tp`` lives as long as the process: not written in Python, or reachable as its module's attribute.

    A class made at run time (inside a function, in a loop, by ``type()``) is
    not, and must not be kept alive by a cache. Looked up in the ``__dict__``
    of the module and the enclosing classes, so no module ``__getattr__`` runs.
    """
    if not tp.__flags__ & _HEAPTYPE:
        return True
    try:
        obj: Any = sys.modules.get(tp.__module__)
        for part in tp.__qualname__.split("."):
            obj = vars(obj).get(part)
    except Exception:  # noqa: BLE001 - an odd __module__ or __qualname__: not reachable
        return False
    return obj is tp


# every protocol alive in this process, so that tools can find one by its method name (see protocols_for)
_PROTOCOLS: weakref.WeakSet = weakref.WeakSet()


def protocols_for(method: str) -> list[Protocol]:
    """The protocols alive in this process whose implementers define ``method``."""
    return [p for p in list(_PROTOCOLS) if p.method == method]


class Protocol:
    """An override protocol named by the method its implementers define.

    ``Protocol("__torch_function__")`` is tensorlib's; any library can declare
    its own, and protocols share nothing but this code. An argument takes part
    in dispatch when its type defines the method (and is not declared plain
    with :meth:`add_plain_type`).

    :param method: the method name implementers define, e.g. ``"__my_function__"``.
    :param plain_types: types whose exact instances never dispatch, in addition
        to Python's scalars, strings, ``None``, slices and ``Ellipsis``
        (:data:`dispatch.BASIC_TYPES`). A library registers its own array type
        here so that its plain instances take the fast path.
    :param mode_class_name: the ``__name__`` of :attr:`Mode`, this protocol's
        mode base class.
    :param plain_method_warning: warn when an implementer's handler is a
        plain method rather than a classmethod, as torch does for
        ``__torch_function__`` (``UserWarning`` from wrappers whose empty
        kwargs are ``None``, ``DeprecationWarning`` from the others and :meth:`handle`).
    :param accessors_list_plain: property accessors dispatch with ``list_plain``
        (see :meth:`wrap`), as torch's ``__get__``/``__set__`` do.
    :param empty_kwargs: what handlers receive as ``kwargs`` when a wrapped
        function was called without keyword arguments: ``"dict"`` (``{}``) or
        ``"none"`` (``None``, as torch's builtin functions pass it). A wrapper
        may say otherwise (:meth:`wrap`).

    ``wrapper_module`` is the module name of this protocol's generated wrappers:
    a warning raised by a wrapper's own code (an ``inline`` path, see :meth:`wrap`)
    is attributed to it, so ``warnings.filterwarnings(module=...)`` can target it.
    """

    wrapper_module: str

    def __init__(
        self, method: str, *, plain_types: Iterable[type] = (), mode_class_name: str = "Mode",
        empty_kwargs: Literal["dict", "none"] = "dict", plain_method_warning: bool = False,
        accessors_list_plain: bool = False,
    ) -> None:
        if not method.isidentifier():
            raise ValueError(f"protocol method name must be an identifier, got {method!r}")
        if empty_kwargs not in ("dict", "none"):
            raise ValueError(f"empty_kwargs must be 'dict' or 'none', got {empty_kwargs!r}")
        self.method = method
        self.empty_kwargs = empty_kwargs
        self.plain_method_warning = plain_method_warning
        self.accessors_list_plain = accessors_list_plain
        self._primary: type | None = None  # see add_plain_type
        self._plain_method_types: set[type] = set()  # implementers whose handler is a plain method (see _warn)
        self._any_plain_method = False  # whether any type (here or in _transient) has such a handler
        self._specs: dict[Callable, _WrapperSpec] = {}  # wrapper -> its spec (see report_as)
        # Types known not to take part. Containers are never added (their
        # elements must be looked at); a type added here stays plain.
        self._plain: set[type] = set(BASIC_TYPES)
        self._plain.update(plain_types)
        self._implementers: set[type] = set()  # types known to take part
        # Classes that may be freed before this protocol (see _lives_with_module), by id: their kind (_PLAIN,
        # _IMPLEMENTER or _PLAIN_METHOD), and a weak reference whose callback removes both entries while the
        # class is being freed, before its id can be given to another object. An id found here is the class's.
        self._transient: dict[int, int] = {}
        self._transient_refs: dict[int, weakref.ref] = {}
        self._tls = _Local()
        self._mode_count = 0  # active modes in all threads
        # One entry per active disable context in any thread (list append and
        # pop are atomic, so no lock is needed). While this and the mode count
        # are empty, the slow path need not read thread-local state.
        self._disabling: list = []
        self._lock = threading.Lock()
        self.registry = Registry(self)
        # The globals of every wrapper of this protocol: the fast path reads
        # ``_F`` (the plain types) and ``_M`` (the mode count) from here.
        self.wrapper_module = f"dispatch.protocol[{method}]"
        self._ns: dict = {
            "__name__": self.wrapper_module,
            "_F": self._plain,
            "_T": type(None),  # the primary plain type (see add_plain_type); None's type until one is declared
            "_M": 0,
            "_all_plain": self._all_plain,
            "_plain_seq": self._plain_seq,
            # the slow path's entry: its compiled twin when dispatch._speedups is built (see _speedups.c)
            "_slow": self._slow if _speedups is None else _speedups.slow_path(
                self, self._slow_general, self._plain, self._disabling, self._tls, self.method,
                ENABLED, SUBCLASSES_DISABLED,
            ),
            "_slow_modes": self._slow_modes,
            "_X": (),  # the exception types an implementation's failure is translated from (see translate_errors)
            "_failed": self._failed,
        }
        self._translate: Callable[[Any, BaseException, tuple, dict], BaseException | None] | None = None
        # the function made by default_handler, and the convert it was made with
        self._default: Callable | None = None
        self._default_convert: Callable[[Any, Any, type, tuple, dict], Any] | None = None
        # compiled wrapper factories, one per distinct wrapper source (see _codegen.closure_factory)
        self._factories: dict = {}
        #: Base class of this protocol's modes: subclass it, define the
        #: protocol method, and use an instance as a context manager.
        self.Mode = _make_mode_class(self, mode_class_name)
        #: The plain handler (see :class:`DisabledImpl`): ``_disabled_torch_function_impl`` for ``__torch_function__``.
        self.disabled_impl = DisabledImpl(self, f"_disabled_{method.strip('_')}_impl")
        _PROTOCOLS.add(self)

    def __repr__(self) -> str:
        return f"Protocol({self.method!r})"

    # -- which objects take part -------------------------------------------

    def add_plain_type(self, tp: type, *, primary: bool = False) -> None:
        """Declare that exact instances of ``tp`` never dispatch, even though ``tp`` defines the method.

        This is how a library's own tensor type stays on the fast path while
        its subclasses still dispatch. ``primary=True`` marks the type most
        arguments have (the library's tensor): the fast path tests it by
        identity before the set lookup.
        """
        self._plain.add(tp)
        self._implementers.discard(tp)
        self._transient.pop(id(tp), None)
        self._transient_refs.pop(id(tp), None)
        if primary:
            self._ns["_T"] = tp
            self._primary = tp

    def is_implementer_type(self, tp: type) -> bool:
        """Whether instances of ``tp`` take part in dispatch (the answer is cached per type)."""
        if tp in self._implementers:
            return True
        if tp in self._plain:
            return False
        kind = self._transient.get(id(tp))
        if kind is not None:
            return kind != _PLAIN
        handler = getattr(tp, self.method, None)
        implements = (
            handler is not None
            and handler is not self.disabled_impl
            and getattr(handler, "__func__", handler) is not disabled_handler
        )
        plain_method = implements and self.plain_method_warning and isinstance(
            inspect.getattr_static(tp, self.method, None), types.FunctionType
        )
        if not implements and issubclass(tp, SEQUENCE_TYPES):
            return False  # never cached: what a container holds decides
        if plain_method:
            self._any_plain_method = True
        if _lives_with_module(tp):
            if implements:
                self._implementers.add(tp)
                if plain_method:
                    self._plain_method_types.add(tp)
            else:
                self._plain.add(tp)
        else:
            self._remember(tp, _PLAIN_METHOD if plain_method else _IMPLEMENTER if implements else _PLAIN)
        return implements

    def _remember(self, tp: type, kind: int) -> None:
        """Cache the kind of a class that may be freed, without keeping it alive."""
        key = id(tp)
        transient, refs = self._transient, self._transient_refs

        def forget(ref: weakref.ref, key: int = key, transient: dict = transient, refs: dict = refs) -> None:
            if refs.get(key) is ref:
                del refs[key]
                transient.pop(key, None)

        refs[key] = weakref.ref(tp, forget)
        transient[key] = kind

    def _is_plain_method_type(self, tp: type) -> bool:
        """Whether ``tp``'s handler is a plain method (the warning's subject)."""
        return tp in self._plain_method_types or self._transient.get(id(tp)) == _PLAIN_METHOD

    def _all_plain(self, values: Iterable[Any]) -> bool:
        plain = self._plain
        for v in values:
            if type(v) not in plain and not self._plain_seq(v):
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
        """The implementing types among ``values`` (and inside their lists and tuples), and one object of each.

        Both lists are in the order handlers are tried: subclasses before
        superclasses, otherwise left to right.
        """
        return collect(values, self.is_implementer_type, self._plain)

    def has_override(self, relevant: Iterable[Any]) -> bool:
        """Whether :meth:`handle` should be called for ``relevant`` (``has_torch_function``).

        True when a mode is active (and dispatch is not disabled), or when one
        of ``relevant`` itself (not its elements) is an implementer and
        implementers are not disabled. ``relevant`` must be iterable
        (``TypeError: expected a sequence`` otherwise). Right after
        :meth:`redispatch` of a function that is not a wrapper, the first call
        answers False (that function's own check is the hop skipped).
        """
        try:
            relevant = iter(relevant)
        except TypeError:
            raise TypeError("expected a sequence") from None
        st = self._tls.state
        if st.skip:
            st.skip = False
            return False
        if st.disabled == DISABLED:
            return False
        if st.modes:
            return True
        if st.disabled == SUBCLASSES_DISABLED:
            return False
        for v in relevant:
            tp = type(v)
            if tp not in self._plain and self.is_implementer_type(tp):
                return True
        return False

    # -- dispatch -------------------------------------------------------------

    def translate_errors(
        self, translate: Callable[[Any, BaseException, tuple, dict], BaseException | None],
        types: tuple[type[BaseException], ...] = (Exception,),
    ) -> None:
        """Let ``translate(func, exc, args, kwargs)`` replace errors that escape implementations.

        When an implementation called by a wrapper raises an exception of one of
        ``types``, ``translate`` gets the public function, the exception and the
        call; an exception it returns is raised instead (chained to the
        original), None keeps the original. This is how a library turns a
        Python or NumPy error deep inside an implementation (an argument of the
        wrong type that nothing checked) into its own message at the public
        boundary, at no cost to calls that succeed.
        """
        self._translate = translate
        self._ns["_X"] = tuple(types)

    def _failed(self, spec: _WrapperSpec, exc: BaseException, args: tuple, kwargs: dict) -> None:
        """Called by a wrapper whose implementation raised ``exc``: raise its translation, if there is one."""
        translate = self._translate
        if translate is None:
            return
        new = translate(spec.public, exc, args, kwargs)
        if new is not None and new is not exc:
            raise new from exc

    def _run(self, spec: _WrapperSpec, args: tuple, kwargs: dict | None) -> Any:
        """``spec.impl(*args, **kwargs)``, its errors translated as a wrapper's fast path translates them."""
        try:
            return spec.impl(*args, **(kwargs or {}))
        except self._ns["_X"] as exc:
            self._failed(spec, exc, args, kwargs or {})
            raise

    def _slow(self, spec: _WrapperSpec, args: tuple, kwargs: dict) -> Any:
        """Entry point of a wrapper whose fast-path check failed.

        ``slow_path`` in dispatch/_speedups.c is its compiled twin (the shortcut below, then
        :meth:`_slow_general`): change both together.
        """
        default = self._default
        if default is not None and spec.plain_call and not self._disabling and not self._mode_count:
            # The shortcut of default_handler: when the only implementer type among the arguments keeps the
            # default handler (as a classmethod), the protocol takes the handler's steps itself.
            plain = self._plain
            found: Any = None
            for v in args:
                if (tp := type(v)) is not found and tp not in plain:
                    if found is not None:
                        break  # a second kind of argument (another implementer, a list...): the general path
                    found = tp
            else:
                if kwargs and found is not None:
                    for v in kwargs.values():
                        if (tp := type(v)) is not found and tp not in plain:
                            found = None
                            break
                handler = getattr(found, self.method, None)
                if type(handler) is _MethodType and handler.__func__ is default and handler.__self__ is found:
                    st = self._tls.state
                    disabling = self._disabling
                    st.disabled = SUBCLASSES_DISABLED
                    disabling.append(None)
                    try:
                        try:
                            ret = spec.public_impl(*args, **kwargs)
                        finally:
                            disabling.pop()
                            st.disabled = ENABLED
                        return self._default_convert(spec.public, ret, handler.__self__, args, kwargs)  # type: ignore[misc]
                    except TypeError:
                        if spec.operator:  # as the general path below: Python then tries the reflected operator
                            return NotImplemented
                        raise
        return self._slow_general(spec, args, kwargs)

    def _slow_general(self, spec: _WrapperSpec, args: tuple, kwargs: dict) -> Any:
        """:meth:`_slow` past the default handler's shortcut (where dispatch._speedups' twin hands over)."""
        if spec.operator:
            # as Python expects of a binary operator (and torch does): a call no one can handle gives
            # NotImplemented, so that the other operand's reflected method is tried
            try:
                return self._slow_call(spec, args, kwargs)
            except TypeError:
                return NotImplemented
        return self._slow_call(spec, args, kwargs)

    def _slow_call(self, spec: _WrapperSpec, args: tuple, kwargs: dict | None) -> Any:
        if spec.prepare is not None:
            args, kwargs = spec.prepare(args, kwargs or {})
        if not kwargs and spec.none_kwargs:
            kwargs = None
        if self._disabling or self._mode_count:
            st = self._tls.state
            if st.disabled or st.modes:
                relevant = args + tuple(kwargs.values()) if kwargs else args
                return self.dispatch(spec.public, spec.impl, relevant, args, kwargs, list_plain=spec.list_plain)
        plain, impls = self._plain, self._implementers
        if not kwargs and not spec.list_plain:
            # The usual case: one already-known implementer among plain positional args.
            found = None
            for v in args:
                tp = type(v)
                if tp in plain:
                    continue
                if found is None and (tp in impls or self._transient.get(id(tp), _PLAIN) != _PLAIN):
                    found = v
                    continue
                break
            else:
                if found is not None:
                    if self._any_plain_method and self._is_plain_method_type(type(found)):
                        self._warn_plain_method(spec.public)
                    result = getattr(found, self.method)(spec.public, (type(found),), args, kwargs)
                    if result is NotImplemented:
                        self._raise_unhandled(spec.public, [type(found)], None)
                    return result
        is_impl = self.is_implementer_type
        types, objs = collect(args, is_impl, plain, impls)
        if kwargs:
            collect(kwargs.values(), is_impl, plain, impls, types, objs)
        if not objs:
            return self._run(spec, args, kwargs)
        if spec.list_plain:
            types, objs = self._collect_listing_plain(args + tuple(kwargs.values()) if kwargs else args)
        if len(objs) == 1:  # the usual case, without the generic loop
            if self._any_plain_method and self._is_plain_method_type(types[0]):
                self._warn_plain_method(spec.public)
            result = getattr(objs[0], self.method)(spec.public, (types[0],), args, kwargs)
            if result is NotImplemented:
                self._raise_unhandled(spec.public, types, None)
            return result
        return self._call_handlers(spec.public, types, objs, args, kwargs, None)

    def _slow_modes(self, spec: _WrapperSpec, args: tuple, kwargs: dict) -> Any:
        """Entry point of a mode-only wrapper (see :meth:`wrap`) while a mode is active somewhere."""
        st = self._tls.state
        if st.modes and st.disabled != DISABLED:
            handler_kwargs = None if not kwargs and spec.none_kwargs else kwargs
            mode, result = self._call_mode(st.modes, spec.public, [], args, handler_kwargs)
            if result is NotImplemented:
                self._raise_unhandled(spec.public, [], mode)
            return result
        return self._run(spec, args, kwargs)

    def dispatch(self, public: Any, impl: Callable, relevant: Iterable[Any], args: tuple, kwargs: dict | None,
                 *, list_plain: bool = False) -> Any:
        """Resolve a call of ``public(*args, **kwargs)`` whose implementers are looked for among ``relevant``.

        Runs the innermost mode, then the implementers' handlers; calls
        ``impl(*args, **kwargs)`` when neither applies. This is what a
        generated wrapper does when its fast-path check fails. ``kwargs`` is
        passed to handlers as it is (``None`` included). ``list_plain``: the
        primary plain type takes part too (see :meth:`wrap`).
        """
        st = self._tls.state
        state = st.disabled
        if state == DISABLED:
            return impl(*args, **(kwargs or {}))
        if state == ENABLED:
            if list_plain:
                types, objs = self._collect_listing_plain(relevant)
            else:
                types, objs = collect(relevant, self.is_implementer_type, self._plain, self._implementers)
        else:
            types, objs = [], []
        mode = None
        if st.modes:
            mode, result = self._call_mode(st.modes, public, types, args, kwargs)
            if result is not NotImplemented:
                return result
        elif not objs:
            return impl(*args, **(kwargs or {}))
        return self._call_handlers(public, types, objs, args, kwargs, mode)

    def handle(self, public: Any, relevant: Iterable[Any], args: tuple, kwargs: dict | None) -> Any:
        """Dispatch a call of ``public`` to the mode and the implementers among ``relevant`` (``handle_torch_function``).

        Only the values of ``relevant`` are candidates, not their elements.
        There is no default implementation to fall back on: if no mode and
        no handler accepts the call, TypeError is raised. While implementers
        are disabled (inside a subclass's default handler), the mode sees no
        types and no implementer is called, so a function that dispatches
        from its own body cannot recurse through the subclass.
        """
        st = self._tls.state
        if st.disabled == ENABLED:
            # as a function written in Python would see them: the primary plain type takes part too
            primary = self._primary
            if primary is None:
                types, objs = collect_flat(relevant, self.is_implementer_type, self._plain)
            else:
                types, objs = collect_flat(relevant, lambda tp: tp is primary or self.is_implementer_type(tp),
                                           self._plain - {primary})
        else:
            types, objs = [], []
        mode = None
        if st.modes and st.disabled != DISABLED:
            mode, result = self._call_mode(st.modes, public, types, args, kwargs, strict=False)
            if result is not NotImplemented:
                return result
        return self._call_handlers(public, types, objs, args, kwargs, mode, python_level=True)

    def _collect_listing_plain(self, values: Iterable[Any]) -> tuple[list[type], list[Any]]:
        """:func:`collect` with the primary plain type counted as an implementer, in its argument order."""
        primary = self._primary
        if primary is None:
            return collect(values, self.is_implementer_type, self._plain, self._implementers)
        return collect(values, self.is_implementer_type, self._plain - {primary}, self._implementers | {primary})

    def _call_mode(
        self, modes: list, public: Any, types: list, args: tuple, kwargs: dict | None, strict: bool = True
    ) -> tuple[Any, Any]:
        """Run the innermost mode's handler with that mode popped; return ``(mode, result)``.

        ``strict``: the handler must be a plain method of the mode (RuntimeError
        for a classmethod or staticmethod), as wrapped functions require;
        :meth:`handle` does not check.
        """
        mode = modes.pop()
        try:
            handler = getattr(mode, self.method)
            if strict and getattr(handler, "__self__", None) is not mode:
                raise RuntimeError(
                    f"Defining your mode's `{self.method}` as a classmethod is not supported, "
                    "please make it a plain method"
                )
            return mode, handler(public, tuple(types), args, kwargs)
        finally:
            modes.append(mode)

    def _call_handlers(
        self, public: Any, types: list, objs: list, args: tuple, kwargs: dict | None, mode: Any,
        python_level: bool = False,
    ) -> Any:
        types_t = tuple(types)
        method = self.method
        for obj in objs:
            if self._any_plain_method and self._is_plain_method_type(type(obj)):
                # the caller is 5 frames up from handle(), 7 from a wrapper (wrapper, _slow, _slow_call, dispatch)
                self._warn_plain_method(public, python_level, stacklevel=5 if python_level else 7)
            result = getattr(obj, method)(public, types_t, args, kwargs)
            if result is not NotImplemented:
                return result
        self._raise_unhandled(public, types, mode)

    def _warn_plain_method(self, public: Any, python_level: bool = False, stacklevel: int = 5) -> None:
        """Warn that an implementer's handler is a plain method; ``stacklevel`` points at the caller."""
        spec = self._specs.get(public)
        builtin = not python_level and spec is not None and spec.none_kwargs
        warnings.warn(
            f"Defining your `{self.method}` as a plain method is deprecated and will be an error in future, "
            "please define it as a classmethod.",
            UserWarning if builtin else DeprecationWarning,
            stacklevel=stacklevel,
        )

    def _raise_unhandled(self, public: Any, types: list, mode: Any) -> None:
        # The wording of the seed (the "Extending PyTorch" note); torch 2.13's builtins now say
        # "Multiple dispatch failed for ...", its Python-level functions still say this.
        names = ", ".join(t.__name__ for t in types)
        msg = (
            f"no implementation found for '{self.registry.display_name(public)}' on types that "
            f"implement {self.method}: [{names}]"
        )
        if mode is not None:
            msg += f" nor in mode {mode!r}"
        raise TypeError(msg)

    def default_handler(
        self, convert: Callable[[Any, Any, type, tuple, dict], Any], *, name: str | None = None,
        qualname: str | None = None, module: str | None = None, doc: str | None = None,
    ) -> Callable:
        """Make this protocol's default handler, for the subclasses of a library's own type (one per protocol).

        Returns a function ``handler(cls, func, types, args=(), kwargs=None)``
        for the library to assign, as a classmethod, as its base type's
        protocol method. It returns ``NotImplemented`` unless ``cls`` is a
        subclass of every type in ``types``; otherwise it runs
        ``func(*args, **kwargs)`` with implementers disabled
        (:meth:`call_with_subclasses_disabled`) and returns
        ``convert(func, result, cls, args, kwargs)`` (``kwargs`` a dict), which
        typically returns results as instances of ``cls``.

        The protocol knows this handler: when a wrapper's call has a single
        implementer type whose protocol method is this handler bound as a
        classmethod to that type (inherited unchanged, or assigned as
        ``classmethod(handler)``), and neither a mode nor a disable context is
        active in any thread, the protocol takes the handler's steps itself,
        without calling it: the same result for a fraction of the cost.
        Handlers that override it, and calls with other implementers, arrays of
        implementers in lists, wrappers with ``prepare`` or ``list_plain``,
        go through the handler as usual.
        """
        if self._default is not None:
            raise RuntimeError(f"{self!r} already has a default handler")
        protocol = self

        def handler(cls: type, func: Any, types: tuple, args: tuple = (), kwargs: dict | None = None) -> Any:
            if kwargs is None:
                kwargs = {}
            for t in types:
                if not issubclass(cls, t):
                    return NotImplemented
            ret = protocol.call_with_subclasses_disabled(func, args, kwargs)
            return convert(func, ret, cls, args, kwargs)

        handler.__name__ = name or self.method
        handler.__qualname__ = qualname or handler.__name__
        handler.__module__ = module or self._ns["__name__"]
        handler.__doc__ = doc
        self._default = handler
        self._default_convert = convert
        return handler

    def call_with_subclasses_disabled(self, func: Callable, args: tuple, kwargs: dict) -> Any:
        """Run ``func(*args, **kwargs)`` with implementers' handlers off (modes still apply).

        This is the core of a default handler for a library's tensor subclass:
        the call runs as if every subclass instance were a plain instance, and
        any public function the implementation calls in turn does not dispatch
        back to the subclass either. When no mode is active anywhere and
        ``func`` is a registered wrapper, its raw implementation is called
        directly (the same call, minus a second trip through the wrapper).
        """
        st = self._tls.state
        prev = st.disabled
        if prev != ENABLED:
            return func(*args, **kwargs)
        impl = None if self._mode_count else self.registry.implementation(func)
        st.disabled = SUBCLASSES_DISABLED
        disabling = self._disabling
        disabling.append(None)
        try:
            if impl is not None:
                return impl(*args, **kwargs)
            return func(*args, **kwargs)
        finally:
            disabling.pop()
            st.disabled = prev

    # -- disable contexts and modes ----------------------------------------

    def disabled(self) -> "_DisableContext":
        """Context manager: no dispatch at all in this thread, not even to modes.

        One context object may be entered several times, nested or in turn.
        """
        return _DisableContext(self, DISABLED)

    def subclasses_disabled(self) -> "_DisableContext":
        """Context manager: no dispatch to implementers in this thread; modes still apply."""
        return _DisableContext(self, SUBCLASSES_DISABLED)

    def enabled(self) -> "_DisableContext":
        """Context manager: full dispatch in this thread, even inside a disable context (``_EnableTorchFunction``)."""
        return _DisableContext(self, ENABLED, force=True)

    def is_enabled(self) -> bool:
        """Whether this thread dispatches to implementers (no disable context is active)."""
        return self._tls.state.disabled == ENABLED

    def dispatch_level(self) -> int:
        """This thread's level: :data:`ENABLED`, :data:`SUBCLASSES_DISABLED` or :data:`DISABLED`."""
        return self._tls.state.disabled

    def modes_enabled(self) -> bool:
        """Whether a call in this thread would go to a mode (one is active and dispatch is not disabled)."""
        st = self._tls.state
        return bool(st.modes) and st.disabled != DISABLED

    def mode_stack(self) -> list:
        """The calling thread's active modes, outermost first (a copy)."""
        return list(self._tls.state.modes)

    def mode_stack_len(self) -> int:
        """How many modes are active in this thread (a mode whose handler is running is not)."""
        return len(self._tls.state.modes)

    def mode_at(self, index: int) -> Any:
        """The mode at ``index`` of this thread's stack, 0 the outermost; RuntimeError if there is none."""
        modes = self._tls.state.modes
        if index < 0:
            raise RuntimeError("Tried to get stack at negative idx")
        if index >= len(modes):
            raise RuntimeError("Tried to get stack at idx that's too big")
        return modes[index]

    def push_mode(self, mode: Any) -> None:
        """Make ``mode`` the innermost active mode of this thread (what ``with mode:`` does on entry)."""
        self._push_mode(mode)

    def pop_mode(self) -> Any:
        """Deactivate and return this thread's innermost mode; RuntimeError if none is active."""
        modes = self._tls.state.modes
        if not modes:
            raise RuntimeError("trying to pop from empty mode stack")
        mode = modes.pop()
        with self._lock:
            self._mode_count -= 1
            self._ns["_M"] = self._mode_count
        return mode

    def redispatch(self, func: Callable, args: tuple, kwargs: dict | None = None) -> Any:
        """Call ``func`` skipping one level of dispatch (``redispatch_function``), for use inside a handler.

        A wrapper's raw implementation runs directly, on the same arguments;
        the public functions it calls dispatch as usual. Any other ``func``
        (one guarded by :meth:`has_override`) runs with its first
        :meth:`has_override` check answering False.
        """
        kwargs = kwargs or {}
        impl = self.registry.implementation(func)
        if impl is not None:
            return impl(*args, **kwargs)
        st = self._tls.state
        st.skip = True
        try:
            return func(*args, **kwargs)
        finally:
            st.skip = False

    def _push_mode(self, mode: Any) -> None:
        self._tls.state.modes.append(mode)
        with self._lock:
            self._mode_count += 1
            self._ns["_M"] = self._mode_count

    def _pop_mode(self, mode: Any) -> None:
        # Remove this mode's innermost entry. It is the top of the stack unless
        # modes were exited out of order, as when a generator that entered a
        # mode is resumed or closed under another mode. A mode that is not on
        # the stack (exited from inside its own handler, which runs with the
        # mode popped) pops the innermost mode, as torch's exit always does;
        # the stack then ends as torch's would once the handler returns.
        modes = self._tls.state.modes
        for i in range(len(modes) - 1, -1, -1):
            if modes[i] is mode:
                del modes[i]
                break
        else:
            if not modes:
                raise RuntimeError("trying to pop from empty mode stack")
            modes.pop()
        with self._lock:
            self._mode_count -= 1
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
        modes_only: bool = False,
        empty_kwargs: Literal["dict", "none"] | None = None,
        keyword_params: Iterable[str] = (),
        operator: bool = False,
        prepare: Callable[[tuple, dict], tuple[tuple, dict]] | None = None,
        list_plain: bool = False,
        inline: tuple[str, dict[str, Any]] | None = None,
        inline_first: bool = False,
    ) -> Callable:
        """Make ``impl`` overridable: return a wrapper with the same (or the given) signature.

        The wrapper checks its arguments' types; when all are plain it calls
        ``impl`` directly, otherwise it dispatches. ``name``, ``qualname``,
        ``module`` and ``doc`` default to ``impl``'s; the wrapper pickles by
        reference when it is bound under that name. ``namespace`` (a module or
        class) registers it for introspection. The raw implementation is
        ``wrapper._implementation``.

        ``modes_only=True`` is for functions with nothing to dispatch on, such
        as factories (``zeros(2, 3)``): the wrapper never looks at its
        arguments, but active modes still see the call, as it was written.
        Such a function is not overridable by implementers; register it as
        ignored. Its wrapper takes ``(*args, **kwargs)``, reports ``impl``'s
        signature through ``__wrapped__`` and leaves bad calls to ``impl``.

        What handlers receive can be shaped to match another implementation
        of the same protocol (torch's, for ``__torch_function__``):
        ``empty_kwargs`` overrides the protocol's choice of ``{}`` or ``None``
        for a call without keyword arguments; ``keyword_params`` are always
        passed to handlers by keyword, with their values (defaults included),
        as a function written in Python that forwards its parameters by name
        does; ``operator=True`` marks a binary operator, which returns
        ``NotImplemented`` instead of raising TypeError when its slow path
        fails (so Python tries the reflected operator); ``prepare(args,
        kwargs)`` returns the call as handlers see it (say, a sequence
        argument as a tuple), and runs only when the fast path is not taken,
        so it must not change what the implementation computes.
        ``list_plain=True``: once the call dispatches (a mode is active or an
        implementer is among the arguments), instances of the primary plain
        type (see :meth:`add_plain_type`) take part like implementers: their
        type is in ``types`` and their handler runs in turn, as torch's
        functions written in Python do with plain tensors.
        :meth:`report_as` changes the ``func`` handlers receive.

        ``inline=(source, names)`` puts the hot path of ``impl`` into the
        wrapper itself, saving a call: ``source`` is Python statements that
        run when the arguments are plain (no mode active), before ``impl`` is
        called; they see the wrapper's parameters by name and the values of
        ``names`` (a dict) as closure variables, and either ``return`` the
        call's result or fall through to ``impl``. They must compute exactly
        what ``impl`` would (their errors are translated as ``impl``'s are),
        and their local names must not start with ``_dispatch``. Wrappers with
        the same signature shape and the same ``source`` share one compiled
        factory. ``inline_first=True`` declares that ``source`` returns only
        for arguments it has found plain itself (exact types of the primary
        plain type, numbers): it then runs before the wrapper's own type
        checks, whenever no mode is active, which saves them on its hot path.
        """
        if inline is not None and modes_only:
            raise ValueError("inline= needs a wrapper that checks its arguments, not modes_only=True")
        if inline_first and inline is None:
            raise ValueError("inline_first=True needs inline=")
        name = name or impl.__name__
        qualname = qualname or getattr(impl, "__qualname__", None) or name
        none_kwargs = (empty_kwargs or self.empty_kwargs) == "none"
        spec = _WrapperSpec(impl, name, none_kwargs=none_kwargs, operator=operator, prepare=prepare,
                            list_plain=list_plain)
        if modes_only:
            modes_body = (
                "def _fn(*args, **kwargs):\n"
                "    if not _M:\n"
                "        try:\n"
                "            return _impl(*args, **kwargs)\n"
                "        except _X as _dispatch_e_:\n"
                "            _failed(_spec, _dispatch_e_, args, kwargs)\n"
                "            raise\n"
                "    return _slow_modes(_spec, args, kwargs)\n"
            )
            make = _codegen.closure_factory(modes_body, ("_impl", "_spec"), self._ns, self._factories)
            wrapper = _codegen.rename(make(impl, spec), name, qualname)
        else:
            # the source depends only on the signature's shape: wrappers of the same shape share one factory,
            # found without generating the source again (in this process or from the on-disk cache)
            keyword = frozenset(keyword_params)
            shape, default_values = _codegen.signature_shape(impl, signature)
            if keyword:
                unknown = keyword - {p[0] for p in shape}
                if unknown:
                    raise ValueError(f"keyword parameters {sorted(unknown)} are not in the signature of {name}")
            inline_source, inline_names = inline if inline is not None else ("", {})
            key: tuple = ("wrap", shape, tuple(sorted(keyword)) if keyword else ())
            if inline is not None:
                taken = {"_impl", "_spec", *(p[0] for p in shape)}
                taken.update(_codegen.default_name("", p[0]) for p in shape if p[2])
                clash = [n for n in inline_names if not n.isidentifier() or n.startswith("_dispatch") or n in taken]
                if clash:
                    raise ValueError(f"inline names {clash} of {name} are not free identifiers")
                key += (inline_source, tuple(inline_names), inline_first)
            factory = self._factories.get(key)
            if factory is None:
                factory = self._factories[key] = self._wrapper_factory(
                    key, impl, signature, shape, keyword, inline_source, tuple(inline_names), inline_first)
            wrapper = _codegen.rename(factory(impl, spec, *default_values, *inline_names.values()), name, qualname)
        wrapper.__module__ = module or getattr(impl, "__module__", None) or self._ns["__name__"]
        wrapper.__doc__ = doc if doc is not None else impl.__doc__
        if signature is None or modes_only:
            wrapper.__wrapped__ = impl  # type: ignore[attr-defined]
        if signature is not None:
            wrapper.__signature__ = signature  # type: ignore[attr-defined]
        wrapper._implementation = impl  # type: ignore[attr-defined]
        spec.public = wrapper
        self._specs[wrapper] = spec
        self.registry.add_implementation(wrapper, impl)
        if namespace is not None and not modes_only:
            self.registry.add_overridable(namespace, name, wrapper)
        return wrapper

    def _wrapper_factory(self, key: tuple, impl: Callable, signature: inspect.Signature | None, shape: tuple,
                         keyword: frozenset, inline_source: str, inline_names: tuple[str, ...],
                         inline_first: bool = False) -> Callable:
        """The factory of wrappers of one signature shape (see :meth:`wrap`), from the code cache or compiled."""
        free = ("_impl", "_spec", *(_codegen.default_name("", p[0]) for p in shape if p[2]), *inline_names)
        inlined = "".join(f"            {line}\n" for line in inline_source.splitlines())

        def body() -> str:
            sig = signature if signature is not None else inspect.signature(impl)
            params, call = _codegen.parameter_source(sig, {}, "")
            rebuild = _codegen.call_rebuild_source(sig, "", keyword=keyword)
            translated = (
                f"        except _X as _dispatch_e_:\n"
                + _codegen.call_rebuild_source(sig, "", indent="            ", keyword=keyword)
                + f"            _failed(_spec, _dispatch_e_, {_codegen.ARGS}, {_codegen.KWARGS})\n"
                f"            raise\n"
            )
            first = f"    if not _M:\n        try:\n{inlined}{translated}" if inline_first else ""
            return (
                f"def _fn({params}):\n"
                + first
                + f"    if {_codegen.plain_check_source(sig, '')}:\n"
                f"        try:\n"
                + ("" if inline_first else inlined)
                + f"            return _impl({call})\n"
                + translated
                + rebuild
                + f"    return _slow(_spec, {_codegen.ARGS}, {_codegen.KWARGS})\n"
            )

        return _codegen.keyed_factory(key, body, free, self._ns)

    def report_as(self, wrapper: Callable, func: Callable) -> None:
        """Make handlers receive ``func`` as the ``func`` of calls to ``wrapper`` (both wrappers of this protocol).

        For an alias that another implementation of the protocol reports under
        its original's name (torch reports ``t + 1`` as ``Tensor.add``).
        Handlers that call ``func(*args, **kwargs)`` then call ``func``.
        """
        for f in (wrapper, func):
            if f not in self._specs:
                raise ValueError(f"{f!r} is not a wrapper of {self!r}")
        spec = self._specs[wrapper]
        spec.public = func
        spec.public_impl = self.registry.implementation(func) or func

    def reported_as(self, func: Any) -> Any:
        """The object handlers receive as ``func`` for calls of ``func`` (itself, unless :meth:`report_as` changed it).

        Property accessors and other objects that are not wrappers of this protocol are returned as they are.
        """
        try:
            spec = self._specs.get(func)
        except TypeError:  # unhashable
            return func
        return func if spec is None or spec.public is None else spec.public

    def overridable(self, impl: F | None = None, **options: Any) -> Any:
        """Decorator form of :meth:`wrap` (``@proto.overridable`` or ``@proto.overridable(namespace=mod)``)."""
        if impl is None:
            return functools.partial(self.overridable, **options)
        return self.wrap(impl, **options)

    def wrap_property(self, prop: property, *, owner: type, name: str, cached: str | None = None) -> property:
        """Make a property overridable: its getter dispatches as ``prop.__get__``, its setter as ``prop.__set__``.

        Handlers receive ``args == (obj,)`` for a read and ``(obj, value)`` for
        an assignment. ``cached`` names an attribute in which the getter keeps
        the value it computes (``None`` until then): on the plain path a read
        returns it without calling the getter, which saves a call on hot
        properties. The owner must reset it whenever the value changes.
        """
        if cached is not None and not cached.isidentifier():
            raise ValueError(f"wrap_property(): cached must be an attribute name, got {cached!r}")
        fget = self._accessor(prop.fget, ["self"], f"{name}_get", cached) if prop.fget else None
        fset = self._accessor(prop.fset, ["self", "value"], f"{name}_set") if prop.fset else None
        new = property(fget[0] if fget else None, fset[0] if fset else None, prop.fdel, prop.__doc__)
        if fget and prop.fget:
            fget[1].public = new.__get__
            self._specs[new.__get__] = fget[1]
            self.registry.add_implementation(new.__get__, prop.fget)
            self.registry.add_overridable(owner, name, new.__get__, accessor="__get__")
        if fset and prop.fset:
            fset[1].public = new.__set__
            self._specs[new.__set__] = fset[1]
            self.registry.add_implementation(new.__set__, prop.fset)
            self.registry.add_overridable(owner, name, new.__set__, accessor="__set__")
        return new

    def _accessor(self, impl: Callable, params: list[str], name: str,
                  cached: str | None = None) -> tuple[Callable, _WrapperSpec]:
        sig = inspect.Signature([inspect.Parameter(p, inspect.Parameter.POSITIONAL_OR_KEYWORD) for p in params])
        spec = _WrapperSpec(impl, name, none_kwargs=self.empty_kwargs == "none", list_plain=self.accessors_list_plain)
        plist = ", ".join(params)
        hit = (
            f"        _value = {params[0]}.{cached}\n"
            f"        if _value is not None:\n"
            f"            return _value\n"
        ) if cached else ""
        body = (
            f"def _fn({plist}):\n"
            f"    if {_codegen.plain_check_source(sig)}:\n"
            f"{hit}"
            f"        return _impl({plist})\n"
            f"    return _slow(_spec, ({plist},), {{}})\n"
        )
        make = _codegen.closure_factory(body, ("_impl", "_spec"), self._ns, self._factories)
        fn = _codegen.rename(make(impl, spec), name, name)
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

    def wrap_class(self, cls: type, ignore: Iterable[str] = (), options: dict[str, dict[str, Any]] | None = None) -> None:
        """Make a class's public methods, operators (dunders) and properties overridable in place.

        Methods dispatch as ``cls.name``; properties as ``cls.name.__get__`` and
        ``cls.name.__set__``. ``ignore`` names stay plain and are registered as ignored.
        ``options`` maps a method's name to further keyword arguments of :meth:`wrap`
        (a property's, of :meth:`wrap_property`).
        """
        ignore = set(ignore)
        options = options or {}
        for name, attr in list(vars(cls).items()):
            if name in ignore:
                continue
            dunder = name.startswith("__") and name.endswith("__")
            if name.startswith("_") and not dunder:
                continue
            if isinstance(attr, property):
                setattr(cls, name, self.wrap_property(attr, owner=cls, name=name, **options.get(name, {})))
            elif inspect.isfunction(attr) and not getattr(attr, "_implementation", None):
                setattr(cls, name, self.wrap(attr, name=name, qualname=f"{cls.__qualname__}.{name}",
                                             module=cls.__module__, namespace=cls, **options.get(name, {})))
        if ignore:
            self.registry.add_ignored(cls, sorted(ignore))

    def wrap_with_dispatcher(self, dispatcher: Callable[..., Iterable[Any]]) -> Callable[[F], F]:
        """Decorator: overridable by the implementers among the values ``dispatcher(*args, **kwargs)`` returns.

        ``dispatcher`` takes the function's arguments and returns the
        candidates (their elements are not looked at), as ``wrap_torch_function``
        does. Slower than :meth:`wrap`, which needs no dispatcher.
        """

        def decorate(impl: F) -> F:
            @functools.wraps(impl)
            def wrapped(*args: Any, **kwargs: Any) -> Any:
                relevant = tuple(dispatcher(*args, **kwargs))
                if self.has_override(relevant):
                    return self.handle(wrapped, relevant, args, kwargs)
                return impl(*args, **kwargs)

            wrapped._implementation = impl  # type: ignore[attr-defined]
            return wrapped  # type: ignore[return-value]

        return decorate


class _DisableContext:
    """Raises (or, with ``force``, sets) the thread's disable level for a ``with`` block (reusable, nestable)."""

    __slots__ = ("_protocol", "_level", "_force")

    def __init__(self, protocol: Protocol, level: int, force: bool = False) -> None:
        self._protocol = protocol
        self._level = level
        self._force = force

    def __enter__(self) -> "_DisableContext":
        st = self._protocol._tls.state
        st.saved.append(st.disabled)
        st.disabled = self._level if self._force else max(st.disabled, self._level)
        self._protocol._disabling.append(None)
        return self

    def __exit__(self, *exc: Any) -> None:
        st = self._protocol._tls.state
        st.disabled = st.saved.pop()
        self._protocol._disabling.pop()

    def __call__(self, func: F) -> F:
        """Use as a decorator: ``func`` always runs inside this context."""

        @functools.wraps(func)
        def inner(*args: Any, **kwargs: Any) -> Any:
            with self:
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
        "__doc__": f"Base class for modes of the {method} protocol.\n\n"
        f"While an instance is entered (``with mode:``), every overridable call in this thread goes to its "
        f"``{method}(func, types, args, kwargs)`` first, innermost mode first; the mode is popped while its "
        f"handler runs, so calling ``func`` there does not recurse into it. Returning NotImplemented passes the "
        f"call on to the arguments' handlers.",
        "__enter__": __enter__,
        "__exit__": __exit__,
        method: handler,
        "protocol": protocol,
    }
    return type(class_name, (), body)
