"""The dispatch package on its own: a toy library's protocol, independent of tensorlib."""

from __future__ import annotations

import inspect
import pickle
import subprocess
import sys
import threading

import pytest

from dispatch import Protocol, disabled_handler
from tests.dispatch import toylib
from tests.dispatch.toylib import Vec, concat, protocol, scale


class Duck:
    """A duck type for the toy protocol recording the calls it gets."""

    def __init__(self, tag="duck", result=None):
        self.tag = tag
        self.result = result
        self.calls = []

    def __toy_function__(self, func, types, args, kwargs):
        self.calls.append((func, types, args, kwargs))
        return (self.tag, func.__name__) if self.result is None else self.result


class ClassDuck:
    """A handler written as a classmethod works the same way."""

    @classmethod
    def __toy_function__(cls, func, types, args, kwargs):
        return ("classmethod", cls.__name__, func.__name__)


class SubDuck(Duck):
    pass


class Refuser:
    def __toy_function__(self, func, types, args, kwargs):
        return NotImplemented


def test_plain_arguments_take_the_default_path():
    assert scale(Vec([1, 2])) == Vec([2, 4])
    assert scale(Vec([1, 2]), 3.0, offset=1.0) == Vec([4, 7])
    assert concat([Vec([1]), Vec([2])], Vec([3])) == Vec([1, 2, 3])


def test_wrapper_keeps_metadata_and_signature():
    assert scale.__name__ == "scale"
    assert scale.__qualname__ == "scale"
    assert scale.__module__ == "tests.dispatch.toylib"
    assert scale.__doc__ == "Multiply every element and add an offset."
    assert str(inspect.signature(scale)) == "(v, factor=2.0, *, offset=0.0)"
    assert scale._implementation(Vec([1]), 3.0).values == [3.0]


def test_wrapper_rejects_bad_calls_like_the_real_function():
    with pytest.raises(TypeError, match="unexpected keyword argument 'bogus'"):
        scale(Vec([1]), bogus=1)
    with pytest.raises(TypeError, match="missing 1 required positional argument"):
        scale()


def test_wrapped_functions_pickle_by_reference():
    assert pickle.loads(pickle.dumps(scale)) is scale
    assert pickle.loads(pickle.dumps(concat)) is concat


def test_handler_gets_public_function_types_args_and_kwargs():
    d = Duck()
    assert scale(d, 3.0, offset=1.0) == ("duck", "scale")
    func, types, args, kwargs = d.calls[0]
    assert func is scale
    assert types == (Duck,)
    assert args == (d, 3.0)
    assert kwargs == {"offset": 1.0}


def test_defaults_left_alone_are_not_passed_to_handlers():
    d = Duck()
    scale(d)
    assert d.calls[0][2:] == ((d,), {})


def test_classmethod_handlers_work():
    assert scale(ClassDuck()) == ("classmethod", "ClassDuck", "scale")


def test_implementers_inside_list_and_var_args_and_kwargs():
    d = Duck()
    assert concat([Vec([1]), d]) == ("duck", "concat")
    e = Duck("e")
    assert concat([Vec([1])], e) == ("e", "concat")
    f = Duck("f")
    assert concat([Vec([1])], extra=f) == ("f", "concat")
    assert f.calls[0][3] == {"extra": f}


def test_leftmost_unrelated_type_wins():
    class A(Duck):
        pass

    class B(Duck):
        pass

    a, b = A("a"), B("b")
    assert concat([a, b]) == ("a", "concat")
    assert concat([b, a]) == ("b", "concat")
    assert a.calls[0][1] == (A, B)


@pytest.mark.parametrize("order", ["sub_first", "sub_last"])
def test_subclass_goes_before_its_superclass_from_any_position(order):
    base, sub = Duck("base"), SubDuck("sub")
    items = [sub, base] if order == "sub_first" else [base, sub]
    assert concat(items) == ("sub", "concat")
    assert sub.calls[0][1] == (SubDuck, Duck)


def test_one_handler_call_per_type():
    d1, d2 = Duck("one"), Duck("two")
    assert concat([d1, d2]) == ("one", "concat")
    assert len(d1.calls) == 1 and not d2.calls


def test_not_implemented_falls_through_to_the_next_handler():
    d = Duck("second")
    assert concat([Refuser(), d]) == ("second", "concat")


def test_all_not_implemented_raises_type_error_naming_function_and_types():
    with pytest.raises(TypeError) as e:
        scale(Refuser())
    assert str(e.value) == (
        "no implementation found for 'tests.dispatch.toylib.scale' on types that implement __toy_function__: [Refuser]"
    )


def test_handler_exceptions_propagate_unchanged():
    class Boom:
        def __toy_function__(self, func, types, args, kwargs):
            raise KeyError("boom")

    with pytest.raises(KeyError, match="boom"):
        scale(Boom())


def test_disabled_handler_marks_a_type_plain():
    class NotADuck(Duck):
        __toy_function__ = disabled_handler

    with pytest.raises(AttributeError):  # default path: the plain implementation reads .values
        scale(NotADuck())


def test_modes_see_every_call_innermost_first_and_are_popped_while_running():
    seen = []

    class Outer(protocol.Mode):
        def __toy_function__(self, func, types, args, kwargs):
            seen.append(("outer", func.__name__))
            return func(*args, **kwargs)

    class Inner(protocol.Mode):
        def __toy_function__(self, func, types, args, kwargs):
            seen.append(("inner", func.__name__))
            assert protocol.mode_stack() == [outer]  # popped while its handler runs
            return func(*args, **kwargs)

    outer = Outer()
    with outer, Inner():
        assert scale(Vec([1])) == Vec([2])
    assert seen == [("inner", "scale"), ("outer", "scale")]
    assert protocol.mode_stack() == []


def test_mode_reentry_and_nesting_the_same_mode():
    calls = []

    class Counting(protocol.Mode):
        def __toy_function__(self, func, types, args, kwargs):
            calls.append(func.__name__)
            return func(*args, **kwargs)

    m = Counting()
    with m:
        with m:
            scale(Vec([1]))
    assert calls == ["scale", "scale"]


def test_mode_not_implemented_falls_through_to_implementers():
    class Passive(protocol.Mode):
        def __toy_function__(self, func, types, args, kwargs):
            return NotImplemented

    with Passive():
        assert scale(Duck("d")) == ("d", "scale")
        with pytest.raises(TypeError, match="nor in mode"):
            scale(Vec([1]))


def test_modes_are_thread_local():
    class Capture(protocol.Mode):
        def __toy_function__(self, func, types, args, kwargs):
            return "captured"

    results = []
    with Capture():
        assert scale(Vec([1])) == "captured"
        t = threading.Thread(target=lambda: results.append(scale(Vec([1]))))
        t.start()
        t.join()
    assert results == [Vec([2])]


def test_modes_exited_out_of_order_remove_themselves():
    class M(protocol.Mode):
        def __toy_function__(self, func, types, args, kwargs):
            return func(*args, **kwargs)

    a, b = M(), M()
    a.__enter__()
    b.__enter__()
    a.__exit__(None, None, None)  # as when a generator holding ``a`` is closed under ``b``
    assert protocol.mode_stack() == [b]
    b.__exit__(None, None, None)
    assert protocol.mode_stack() == []
    with pytest.raises(RuntimeError, match="empty mode stack"):
        a.__exit__(None, None, None)
    # a mode that is not on the stack pops the innermost one, as torch's exit does (see
    # tests/parity/torch_function/test_mode_reentry.py for why that matters)
    b.__enter__()
    a.__exit__(None, None, None)
    assert protocol.mode_stack() == []


def test_disable_contexts():
    class Capture(protocol.Mode):
        def __toy_function__(self, func, types, args, kwargs):
            return "mode"

    d = Duck()
    with protocol.subclasses_disabled():
        with pytest.raises(AttributeError):
            scale(d)  # implementers ignored: the default path runs
        with Capture():
            assert scale(d) == "mode"  # modes still apply
    with protocol.disabled():
        with Capture():
            assert scale(Vec([1])) == Vec([2])
    assert scale(d) == ("duck", "scale")


def test_introspection_tables():
    table = protocol.registry.overridable_functions()
    assert table[toylib] == [concat, scale]
    assert protocol.registry.ignored_functions() == {toylib.make}
    overrides = protocol.registry.testing_overrides()
    assert set(overrides) == {scale, concat}
    dummy = overrides[scale]
    assert inspect.signature(dummy) == inspect.signature(scale)
    assert dummy(Vec([1])) == -1
    with pytest.raises(TypeError):
        dummy(Vec([1]), bogus=1)
    assert protocol.registry.resolve_name(scale) == "tests.dispatch.toylib.scale"


def test_protocols_are_independent():
    other = Protocol("__other_function__")

    @other.overridable
    def ident(x):
        return x

    d = Duck()
    assert ident(d) is d  # Duck implements __toy_function__, not __other_function__
    assert scale(d) == ("duck", "scale")


def test_dispatch_does_not_import_tensorlib():
    code = "import sys, dispatch; assert 'tensorlib' not in sys.modules and 'numpy' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_invalid_protocol_name():
    with pytest.raises(ValueError):
        Protocol("not an identifier")


def test_wrap_a_whole_module_and_class():
    import types as _types

    proto = Protocol("__ns_function__")
    mod = _types.ModuleType("nsmod")
    exec(
        "def double(x):\n    return 2 * x\n\n"
        "def make(n):\n    return [0] * n\n\n"
        "class Box:\n"
        "    def __init__(self, v):\n        self.v = v\n"
        "    def get(self):\n        return self.v\n"
        "    @property\n"
        "    def twice(self):\n        return 2 * self.v\n"
        "    def __add__(self, other):\n        return Box(self.v + other.v)\n",
        mod.__dict__,
    )
    proto.wrap_module(mod, ignore=["make"])
    proto.wrap_class(mod.Box, ignore=["__init__"])
    proto.add_plain_type(mod.Box)

    class Handler:
        def __ns_function__(self, func, types, args, kwargs):
            return ("handled", proto.registry.resolve_name(func))

    h = Handler()
    assert mod.double(3) == 6 and mod.double(h) == ("handled", "nsmod.double")
    assert mod.make(2) == [0, 0]
    box = mod.Box(5)
    assert box.get() == 5 and box.twice == 10 and (box + box).v == 10
    assert mod.Box.get(h) == ("handled", "nsmod.Box.get")
    assert mod.Box.twice.__get__(h) == ("handled", "nsmod.Box.twice.__get__")
    assert mod.Box.__add__(box, h) == ("handled", "nsmod.Box.__add__")
    table = proto.registry.overridable_functions()
    assert [f.__name__ for f in table[mod]] == ["double"]
    assert mod.Box.get in table[mod.Box] and mod.Box.twice.__get__ in table[mod.Box]
    assert proto.registry.ignored_functions() >= {mod.make}


def test_parameters_after_a_keyword_parameter_reach_handlers_by_keyword():
    """A wrapper that forwards a middle parameter by keyword (as a Python function passing it on by name) must not
    pass the later ones by position: they would bind to the wrong parameters when the handler calls ``func`` again."""
    proto = Protocol("__gap_function__")

    def loss(input, target, size_average=None, reduction="mean", weight=None):
        return (input, target, size_average, reduction, weight)

    wrapped = proto.wrap(loss, keyword_params=("size_average", "reduction"))
    seen = []

    class Handler:
        def __gap_function__(self, func, types, args, kwargs):
            seen.append((args, dict(kwargs)))
            plain = tuple(0 if a is self else a for a in args)
            return func(*plain, **kwargs)

    h = Handler()
    assert wrapped(h, 1, weight="w") == (0, 1, None, "mean", "w")
    assert seen[-1] == ((h, 1), {"size_average": None, "reduction": "mean", "weight": "w"})
    assert wrapped(h, 1, True, "sum") == (0, 1, True, "sum", None)  # a default left alone is still left out
    assert seen[-1] == ((h, 1), {"size_average": True, "reduction": "sum"})


def test_primary_plain_type_is_fast_but_its_subclasses_dispatch():
    proto = Protocol("__prim_function__")

    class Base:
        def __prim_function__(self, func, types, args, kwargs):  # pragma: no cover - plain, never called
            raise AssertionError("the primary type is plain")

    class Sub(Base):
        def __prim_function__(self, func, types, args, kwargs):
            return ("sub", types)

    def first(x, y=None):
        return "impl"

    wrapped = proto.wrap(first)
    proto.add_plain_type(Base, primary=True)
    assert wrapped(Base(), Base()) == "impl" and wrapped(Base(), y=3) == "impl" and wrapped([Base()]) == "impl"
    assert wrapped(Base(), Sub()) == ("sub", (Sub,))  # exact-type identity only: a subclass is not the primary type
    assert wrapped(Sub()) == ("sub", (Sub,))


def test_translate_errors_replaces_failures_of_implementations():
    proto = Protocol("__xlate_function__")
    seen = []

    def translate(func, exc, args, kwargs):
        seen.append((func.__name__, type(exc).__name__, args, kwargs))
        if isinstance(exc, AttributeError):
            return TypeError(f"{func.__name__}(): bad argument {args[0]!r}")
        return None

    proto.translate_errors(translate, (AttributeError, KeyError))

    def length(x, scale=1):
        """Needs something with a .size attribute."""
        return x.size * scale

    def lookup(key):
        return {"a": 1}[key]

    wrapped_length = proto.wrap(length)
    wrapped_lookup = proto.wrap(lookup, modes_only=True)
    with pytest.raises(TypeError, match=r"length\(\): bad argument 3") as info:
        wrapped_length(3)
    assert isinstance(info.value.__cause__, AttributeError)
    assert seen[-1] == ("length", "AttributeError", (3,), {})
    with pytest.raises(KeyError):  # translated to None: the original stands
        wrapped_lookup("b")
    assert seen[-1][:2] == ("lookup", "KeyError")
    with pytest.raises(ZeroDivisionError):  # not a translated type: never shown to translate
        proto.wrap(lambda x: 1 / x, name="inv")(0)
    assert seen[-1][0] == "lookup"
    assert wrapped_length(type("S", (), {"size": 4})(), scale=2) == 8


def test_compiled_wrappers_are_cached_across_processes(tmp_path, monkeypatch):
    from dispatch import _codegen

    path = tmp_path / "wrappers.marshal"
    monkeypatch.setattr(_codegen, "_CODE_FILE", str(path))
    monkeypatch.setattr(_codegen, "_codes", None)
    monkeypatch.setattr(_codegen, "_used", {})
    monkeypatch.setattr(_codegen, "_compiled_new", False)

    def cached_example(a, b=2, *, c=None):
        return (a, b, c)

    proto = Protocol("__cache_function__")
    wrapped = proto.wrap(cached_example)
    assert _codegen._compiled_new and not path.exists()
    _codegen.save_code_cache()
    assert path.exists() and not _codegen._compiled_new
    # a new process (simulated): the same source comes from the file, nothing is compiled
    monkeypatch.setattr(_codegen, "_codes", None)
    again = Protocol("__cache_function__").wrap(cached_example)
    assert not _codegen._compiled_new
    assert again(1, c=3) == wrapped(1, c=3) == (1, 2, 3)
    assert inspect.signature(again) == inspect.signature(cached_example)
    # damaged files are ignored: wrappers are compiled again
    path.write_bytes(b"not marshal data")
    with open(_codegen._rest_file(), "wb") as f:
        f.write(b"\x00damaged")
    monkeypatch.setattr(_codegen, "_codes", None)
    assert Protocol("__cache_function__").wrap(cached_example)(5) == (5, 2, None)
    assert _codegen._compiled_new


def test_cached_wrappers_are_dropped_when_the_generator_changes(tmp_path, monkeypatch):
    from dispatch import _codegen

    monkeypatch.setattr(_codegen, "_CODE_FILE", str(tmp_path / "wrappers.marshal"))
    monkeypatch.setattr(_codegen, "_codes", None)
    monkeypatch.setattr(_codegen, "_used", {})

    def example(a, *rest, scale=3):
        return (a, rest, scale)

    Protocol("__stamp_function__").wrap(example)
    _codegen.save_code_cache()
    monkeypatch.setattr(_codegen, "_codes", None)
    monkeypatch.setattr(_codegen, "_compiled_new", False)
    Protocol("__stamp_function__").wrap(example)
    assert not _codegen._compiled_new  # same generator: from the file
    # an edited generator (another fingerprint) may generate other sources: the shape-keyed entries are not used
    monkeypatch.setattr(_codegen, "_generator_stamp", lambda: 12345)
    monkeypatch.setattr(_codegen, "_codes", None)
    again = Protocol("__stamp_function__").wrap(example)
    assert _codegen._compiled_new and again(1, 2, scale=4) == (1, (2,), 4)


def test_saving_keeps_cached_wrappers_this_process_did_not_use(tmp_path, monkeypatch):
    # a library that builds some namespaces later (on first use) saves twice; a process that never loads
    # them must not drop what an earlier process cached for them
    from dispatch import _codegen

    monkeypatch.setattr(_codegen, "_CODE_FILE", str(tmp_path / "wrappers.marshal"))
    monkeypatch.setattr(_codegen, "_codes", None)
    monkeypatch.setattr(_codegen, "_used", {})

    def early(a, b=1):
        return a + b

    def late(x, *, y=None, z=0):
        return (x, y, z)

    Protocol("__union_function__").wrap(early)
    Protocol("__union_function__").wrap(late)
    _codegen.save_code_cache()
    # the next process uses only `early`, and something new: its save must keep `late`'s entry
    monkeypatch.setattr(_codegen, "_codes", None)
    monkeypatch.setattr(_codegen, "_used", {})
    Protocol("__union_function__").wrap(early)

    def new(p, q, r, s):
        return p

    Protocol("__union_function__").wrap(new)
    assert _codegen._compiled_new
    _codegen.save_code_cache()
    monkeypatch.setattr(_codegen, "_codes", None)
    monkeypatch.setattr(_codegen, "_compiled_new", False)
    assert Protocol("__union_function__").wrap(late)(1, z=2) == (1, None, 2)
    assert not _codegen._compiled_new


def _shapes_of(fn):
    from dispatch import _codegen

    fast = _codegen.signature_shape(fn, None)
    slow = _codegen.signature_shape(fn, inspect.signature(fn))
    return fast, slow


def test_the_signature_shape_read_from_code_equals_inspects():
    def positional_only(a, b=None, /, c=1):
        return a

    def everything(x, y=2.5, *args, key, flag=None, other=(), **extra):
        return x

    def nothing():
        return None

    def only_star(*values):
        return values

    for fn in (positional_only, everything, nothing, only_star, lambda q, r=[]: q):  # noqa: B006
        fast, slow = _shapes_of(fn)
        assert fast[0] == slow[0] and all(a is b for a, b in zip(fast[1], slow[1])) and len(fast[1]) == len(slow[1])


def test_wrappers_sharing_a_factory_keep_their_own_defaults():
    proto = Protocol("__shared_function__")

    def first(a, b=1):
        return a + b

    def second(a, b=10):
        return a * b

    f, g = proto.wrap(first), proto.wrap(second)
    assert f.__code__.co_code == g.__code__.co_code  # one generated factory for both
    assert (f(2), g(2), f(2, 3), g(2, 3)) == (3, 20, 5, 6)
    assert inspect.signature(g) == inspect.signature(second)


def test_wrappers_used_before_the_first_save_load_first_and_the_rest_on_a_miss(tmp_path, monkeypatch):
    from dispatch import _codegen

    path = tmp_path / "wrappers.marshal"
    for name, value in (("_CODE_FILE", str(path)), ("_codes", None), ("_used", {}), ("_compiled_new", False),
                        ("_first_used", None), ("_rest_pending", True)):
        monkeypatch.setattr(_codegen, name, value)

    def at_import(a, b=2):
        return a + b

    def later(x, *, scale):
        return x * scale

    proto = Protocol("__split_function__")
    proto.wrap(at_import)
    _codegen.save_code_cache()  # the library's import is done
    proto.wrap(later)  # used afterwards (say, a namespace built on first use)
    _codegen.save_code_cache()
    # a new process (simulated): the import's wrapper comes from the first part, the other stays marshalled
    monkeypatch.setattr(_codegen, "_codes", None)
    monkeypatch.setattr(_codegen, "_compiled_new", False)
    assert Protocol("__split_function__").wrap(at_import)(1) == 3
    assert _codegen._rest_pending and not _codegen._compiled_new
    assert Protocol("__split_function__").wrap(later)(2, scale=5) == 10  # a miss: the rest is loaded, not compiled
    assert not _codegen._rest_pending and not _codegen._compiled_new
    # the import reads only the first file: the second may be much larger
    import marshal

    first = marshal.loads(path.read_bytes())
    rest = marshal.loads(open(_codegen._rest_file(), "rb").read())
    assert len(first) == len(rest) == 2 and first["__generator__"] == rest["__generator__"]  # an entry and the stamp
    # a damaged second file is ignored: its wrappers are compiled again
    with open(_codegen._rest_file(), "wb") as f:
        f.write(b"not marshal data")
    monkeypatch.setattr(_codegen, "_codes", None)
    monkeypatch.setattr(_codegen, "_compiled_new", False)
    monkeypatch.setattr(_codegen, "_rest_pending", True)
    assert Protocol("__split_function__").wrap(later)(3, scale=2) == 6 and _codegen._compiled_new


def _new_process(monkeypatch):
    """The code cache's state as a fresh process starts with it."""
    from dispatch import _codegen

    for name, value in (("_codes", None), ("_used", {}), ("_compiled_new", False), ("_first_used", None),
                        ("_rest_pending", True), ("_first_keys", frozenset())):
        monkeypatch.setattr(_codegen, name, value)


def test_two_ways_of_importing_both_find_their_wrappers_in_the_first_part(tmp_path, monkeypatch):
    # a library imported with and without an optional extension wraps some functions differently: each way's
    # wrappers must stay in the file's first part, whichever process saved last, or every import of the other
    # way pays for loading the whole rest
    from dispatch import _codegen

    path = tmp_path / "wrappers.marshal"
    monkeypatch.setattr(_codegen, "_CODE_FILE", str(path))

    def one_way(a, b=2):
        return a + b

    def other_way(a, *, b=2, c=3):
        return a + b + c

    def import_library(way):
        wrapped = Protocol("__ways_function__").wrap(way)
        _codegen.save_code_cache()  # the end of the library's import
        return wrapped

    _new_process(monkeypatch)
    assert import_library(one_way)(1) == 3
    _new_process(monkeypatch)
    assert import_library(other_way)(1) == 6  # compiled and saved: the first part now holds both ways
    for way in (one_way, other_way, one_way):
        _new_process(monkeypatch)
        stamp = path.stat().st_mtime_ns, path.read_bytes(), open(_codegen._rest_file(), "rb").read()
        assert import_library(way)(0) in (2, 5)
        assert not _codegen._compiled_new and _codegen._rest_pending  # found in the first part
        assert (path.stat().st_mtime_ns, path.read_bytes(), open(_codegen._rest_file(), "rb").read()) == stamp


def test_an_import_that_found_a_wrapper_only_in_the_rest_moves_it_to_the_first_part(tmp_path, monkeypatch):
    from dispatch import _codegen

    path = tmp_path / "wrappers.marshal"
    monkeypatch.setattr(_codegen, "_CODE_FILE", str(path))

    def at_import(a, b=2):
        return a + b

    def later(x, *, scale):
        return x * scale

    _new_process(monkeypatch)
    proto = Protocol("__moved_function__")
    proto.wrap(at_import)
    _codegen.save_code_cache()
    proto.wrap(later)
    _codegen.save_code_cache()  # `later` went to the rest
    _new_process(monkeypatch)  # a process whose import uses `later`: a miss in the first part, found in the rest
    assert Protocol("__moved_function__").wrap(later)(2, scale=3) == 6
    assert not _codegen._rest_pending and not _codegen._compiled_new
    _codegen.save_code_cache()  # rewritten once, with `later` in the first part
    _new_process(monkeypatch)
    assert Protocol("__moved_function__").wrap(later)(1, scale=4) == 4
    assert _codegen._rest_pending and not _codegen._compiled_new
    assert Protocol("__moved_function__").wrap(at_import)(1) == 3 and _codegen._rest_pending


def test_cached_property_reads_its_slot_on_the_plain_path_and_dispatches_otherwise():
    proto = Protocol("__cached_function__")
    calls = []

    class Box:
        __slots__ = ("v", "_twice")

        def __init__(self, v):
            self.v, self._twice = v, None

        def _get_twice(self):
            calls.append(self.v)
            self._twice = 2 * self.v
            return self._twice

        twice = property(_get_twice)

    Box.twice = proto.wrap_property(Box.__dict__["twice"], owner=Box, name="twice", cached="_twice")
    proto.add_plain_type(Box)
    box = Box(4)
    assert box.twice == 8 and box.twice == 8 and calls == [4]  # the second read did not call the getter
    box.v, box._twice = 5, None  # the owner resets the cache when the value changes
    assert box.twice == 10 and calls == [4, 5]

    class Handler:
        def __cached_function__(self, func, types, args, kwargs):
            return ("handled", func == Box.twice.__get__)

    assert Box.twice.__get__(Handler()) == ("handled", True)

    class Sub(Box):  # not a plain type: dispatches, then the getter runs
        __slots__ = ()

    assert Sub(3).twice == 6 and calls[-1] == 3
    with pytest.raises(ValueError, match="cached must be an attribute name"):
        proto.wrap_property(property(lambda self: 1), owner=Box, name="x", cached="not a name")


def test_warnings_from_inline_code_are_attributed_to_the_wrapper_module():
    # a library that puts NumPy calls in a wrapper's inline path can filter the warnings they raise by module
    import re
    import warnings

    proto = Protocol("__warning_function__")

    def noisy(x):
        return x

    wrapped = proto.wrap(noisy, inline=("_warn('from the inline path', RuntimeWarning)\n", {"_warn": warnings.warn}))
    assert proto.wrapper_module == "dispatch.protocol[__warning_function__]"
    with warnings.catch_warnings():
        warnings.filterwarnings("error", category=RuntimeWarning, module=re.escape(proto.wrapper_module) + "$")
        with pytest.raises(RuntimeWarning, match="from the inline path"):
            wrapped(1)
        warnings.filterwarnings("ignore", category=RuntimeWarning, module=re.escape(proto.wrapper_module) + "$")
        assert wrapped(2) == 2
    assert Protocol("__other_function__").wrapper_module != proto.wrapper_module
