"""dispatch._speedups (optional): the compiled entry of the slow path against Protocol._slow, its Python twin.

CI runs the whole suite with the extension and again with ``DISPATCH_PURE_PYTHON=1``; here both run side by side
on the same scenarios (the default handler's shortcut and every way out of it).
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dispatch import DISABLED, ENABLED, SUBCLASSES_DISABLED
from dispatch._speedups_loader import speedups

from .test_default_handler import make_library

ROOT = Path(__file__).resolve().parents[2]
needs_speedups = pytest.mark.skipif(speedups is None, reason="dispatch._speedups is not built or is switched off")


def test_the_environment_gets_the_implementation_it_asks_for() -> None:
    lib = make_library()
    slow = lib.proto._ns["_slow"]
    if os.environ.get("DISPATCH_PURE_PYTHON", "") not in ("", "0"):
        assert speedups is None and slow == lib.proto._slow
    if os.environ.get("TENSORLIB_REQUIRE_ACCEL", "") not in ("", "0"):
        assert speedups is not None, "TENSORLIB_REQUIRE_ACCEL is set but dispatch._speedups did not load"
    if speedups is not None:
        assert type(slow).__name__ == "builtin_function_or_method"


def test_pure_python_switch_in_a_fresh_process() -> None:
    code = "import dispatch._speedups_loader as s; print(s.speedups is None)"
    env = dict(os.environ, DISPATCH_PURE_PYTHON="1")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.strip() == "True"


@needs_speedups
def test_build_is_of_the_current_source() -> None:
    source = ROOT / "dispatch" / "_speedups.c"
    if not source.exists():
        pytest.skip("an installed copy without its C source")
    digest = hashlib.sha256(source.read_bytes()).hexdigest()
    assert speedups.SOURCE_SHA256 == digest, "dispatch/_speedups.c changed since the build: run `pip install -e .`"


def _library(kind: str):
    lib = make_library()
    proto = lib.proto
    if kind == "python":
        proto._ns["_slow"] = proto._slow
    else:
        proto._ns["_slow"] = speedups.slow_path(proto, proto._slow_general, proto._plain, proto._disabling,
                                                proto._tls, proto.method, ENABLED, SUBCLASSES_DISABLED)
    return lib


KINDS = ["python", pytest.param("compiled", marks=needs_speedups)]


def _scenarios(lib) -> list:
    """Each call's outcome (type and value, or the error) and the dispatch state after it."""

    class Sub(lib.Arr):
        pass

    class SubSub(Sub):
        pass

    class Other(lib.Arr):
        pass

    class Own(lib.Arr):  # its own handler: the shortcut must not apply
        @classmethod
        def __arr_function__(cls, func, types, args=(), kwargs=None):
            return ("own", func.__name__)

    s = Sub(3)
    calls = [
        lambda: lib.double(s, plus=1),  # the shortcut, with keyword arguments
        lambda: lib.add(s, lib.Arr(1)),  # plain arguments take no part
        lambda: lib.add(s, s),
        lambda: lib.add(s, 5),  # the implementation raises TypeError: an operator gives NotImplemented
        lambda: lib.double(Sub("boom")),  # the implementation raises ValueError: passed on
        lambda: lib.add(s, SubSub(5)),  # two implementer types: the general path
        lambda: lib.double(s, plus=Other(1)),  # an implementer in kwargs: the general path
        lambda: lib.add(s, Other(1)),
        lambda: lib.total([s, lib.Arr(2)]),  # inside a list
        lambda: lib.double(Own(1)),
        lambda: lib.add_method(s, lib.Arr(2)),
    ]
    out = []
    for call in calls:
        try:
            r = call()
            got = ("value", type(r).__name__, getattr(r, "v", r))
        except Exception as exc:  # noqa: BLE001 - the outcome is what is compared
            got = ("error", type(exc).__name__, str(exc))
        out.append((got, lib.proto.dispatch_level(), list(lib.proto._disabling)))
    with lib.proto.disabled():  # inside a disable context: the general path
        out.append((type(lib.double(s)).__name__, lib.proto.dispatch_level()))

    class Watch(lib.proto.Mode):
        def __arr_function__(self, func, types, args, kwargs=None):
            return "mode"

    with Watch():
        out.append(lib.double(s))
    out.append((lib.handler_calls, [(f.__name__, c.__name__, len(a), k) for f, c, a, k in lib.converted]))
    return out


@pytest.mark.parametrize("kind", KINDS)
def test_slow_path_entry_matches_the_expected_outcomes(kind) -> None:
    results = _scenarios(_library(kind))
    outcomes = [r[0] for r in results[:11]]
    assert outcomes[0] == ("value", "Sub", 7)
    assert outcomes[3] == ("value", "NotImplementedType", NotImplemented)
    assert outcomes[4] == ("error", "ValueError", "boom")
    assert outcomes[9] == ("value", "tuple", ("own", "double"))
    assert all(level == ENABLED and disabling == [] for _, level, disabling in results[:11])  # state restored
    assert results[11] == ("Arr", DISABLED)  # everything off: the implementation's own result
    assert results[12] == "mode"
    # the handler itself ran only for the two calls the shortcut leaves to it (a list argument, two types)
    assert results[13][0] == 2


@needs_speedups
def test_slow_path_twins_agree() -> None:
    assert _scenarios(_library("compiled")) == _scenarios(_library("python"))


@needs_speedups
def test_slow_path_refuses_bad_arguments() -> None:
    lib = make_library()
    proto = lib.proto
    with pytest.raises(TypeError, match="takes 8 arguments"):
        speedups.slow_path(proto)
    with pytest.raises(TypeError, match="plain: set"):
        speedups.slow_path(proto, proto._slow_general, [], proto._disabling, proto._tls, proto.method, 0, 1)
    entry = speedups.slow_path(proto, proto._slow_general, proto._plain, proto._disabling, proto._tls, proto.method,
                               ENABLED, SUBCLASSES_DISABLED)
    with pytest.raises(TypeError, match="spec, args: tuple"):
        entry(None, [], {})


@pytest.mark.parametrize("kind", KINDS)
def test_a_handler_set_after_the_type_was_seen_is_called(kind) -> None:
    lib = _library(kind)

    class Sub(lib.Arr):
        pass

    class Base(lib.Arr):
        pass

    class Child(Base):
        pass

    s, c = Sub(3), Child(3)
    assert (type(lib.double(s)).__name__, type(lib.double(c)).__name__) == ("Sub", "Child")  # the shortcut, twice

    def own(cls, func, types, args=(), kwargs=None):
        return ("own", cls.__name__)

    Sub.__arr_function__ = classmethod(own)  # on the class the shortcut saw
    assert lib.double(s) == ("own", "Sub")
    del Sub.__arr_function__
    assert type(lib.double(s)).__name__ == "Sub"
    Base.__arr_function__ = classmethod(own)  # on a base of it
    assert lib.double(c) == ("own", "Child")
    del Base.__arr_function__
    assert type(lib.double(c)).__name__ == "Child"
