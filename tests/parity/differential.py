"""Differential scenarios: the same code run against ``torch`` and ``tensorlib``, observations compared.

A scenario is a function ``scenario(torch, rec)``: ``torch`` is the library
under test (the real torch or tensorlib) and ``rec`` records observations:

- ``rec(value, expect=...)``: a tensor (repr, dtype, shape, values, requires_grad),
  number, bool, string or a (nested) tuple/list of them. ``expect`` is checked
  against every library, so the scenario still asserts the essential behaviour
  when torch is not installed.
- ``rec.raises(ExcType, fn, *args, match=...)``: ``fn`` must raise ``ExcType``
  (whose message contains ``match``, with ``torch.`` spelled ``tensorlib.``).
- ``rec.meta(t)``: only dtype and shape (for random values).

``@differential`` turns a scenario into two tests: one running tensorlib alone
(the expectations), one comparing tensorlib's observations with torch's.
"""

from __future__ import annotations

import re
from typing import Any, Callable

import numpy as np
import pytest

import tensorlib

_ADDR = re.compile(r" at 0x[0-9a-fA-F]+")


def fix(s: str) -> str:
    """A string with torch's names spelled as tensorlib's and object addresses removed."""
    return _ADDR.sub("", s.replace("torch.", "tensorlib.")).rstrip()


def _is_tensor(x: Any) -> bool:
    return type(x).__module__.split(".")[0] in ("torch", "tensorlib") and hasattr(x, "detach") and hasattr(x, "dim")


def _values(t: Any) -> np.ndarray:
    """A copy of the tensor's values (later in-place changes must not alter a recorded observation)."""
    return np.array(t.detach().cpu().numpy() if hasattr(t, "cpu") else t.detach().numpy(), copy=True)


class Observation:
    """One recorded value in a comparable form."""

    def __init__(self, kind: str, data: Any, repr_: str | None = None) -> None:
        self.kind, self.data, self.repr = kind, data, repr_

    def __repr__(self) -> str:
        return f"{self.kind}:{self.repr if self.repr is not None else self.data!r}"


def observe(x: Any, exact_repr: bool = True) -> Any:
    if _is_tensor(x):
        vals = _values(x)
        return Observation("tensor", (fix(str(x.dtype)), tuple(x.shape), vals, bool(x.requires_grad)),
                           fix(repr(x)) if exact_repr else None)
    if isinstance(x, (list, tuple)) and not isinstance(x, str):
        return Observation(type(x).__name__ if type(x) in (list, tuple) else "seq",
                           [observe(e, exact_repr) for e in x])
    if isinstance(x, dict):
        return Observation("dict", {k: observe(v, exact_repr) for k, v in x.items()})
    if isinstance(x, bool) or x is None:
        return Observation("value", x)
    if isinstance(x, (int, float, complex, np.number)):
        return Observation("number", complex(x) if isinstance(x, complex) else float(x))
    if isinstance(x, str):
        return Observation("str", fix(x))
    return Observation("other", fix(repr(x)))


def _close(a: Any, b: Any, rtol: float, atol: float) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return False
    if a.dtype.kind in "fc" or b.dtype.kind in "fc":
        return bool(np.allclose(a.astype(complex), b.astype(complex), rtol=rtol, atol=atol, equal_nan=True))
    return bool(np.array_equal(a, b))


def same(a: Observation, b: Observation, rtol: float = 1e-5, atol: float = 1e-6) -> str | None:
    """None when the observations agree, else a description of the difference."""
    if a.kind != b.kind:
        return f"kind {a.kind} != {b.kind}: {a} vs {b}"
    if a.kind == "tensor":
        (da, sa, va, ga), (db, sb, vb, gb) = a.data, b.data
        if (da, sa, ga) != (db, sb, gb):
            return f"dtype/shape/requires_grad {(da, sa, ga)} != {(db, sb, gb)}"
        if not _close(va, vb, rtol, atol):
            return f"values differ:\n{va}\n{vb}"
        if a.repr is not None and b.repr is not None and a.repr != b.repr:
            return f"repr differs:\n{a.repr}\n{b.repr}"
        return None
    if a.kind in ("list", "tuple", "seq"):
        if len(a.data) != len(b.data):
            return f"lengths {len(a.data)} != {len(b.data)}"
        for x, y in zip(a.data, b.data):
            d = same(x, y, rtol, atol)
            if d:
                return d
        return None
    if a.kind == "dict":
        if list(a.data) != list(b.data):
            return f"keys {list(a.data)} != {list(b.data)}"
        for k in a.data:
            d = same(a.data[k], b.data[k], rtol, atol)
            if d:
                return f"[{k!r}] {d}"
        return None
    if a.kind == "number":
        return None if _close(a.data, b.data, rtol, atol) else f"{a.data} != {b.data}"
    return None if a.data == b.data else f"{a.data!r} != {b.data!r}"


class Recorder:
    """Collects a scenario's observations for one library and checks its expectations."""

    def __init__(self, lib: Any) -> None:
        self.lib = lib
        self.items: list[tuple[str, Any]] = []

    @property
    def is_torch(self) -> bool:
        return self.lib.__name__ == "torch"

    def __call__(self, value: Any, expect: Any = None, *, exact_repr: bool = True, label: str = "") -> Any:
        obs = observe(value, exact_repr)
        self.items.append((label, obs))
        if expect is not None:
            self._check(value, expect, label)
        return value

    def _check(self, value: Any, expect: Any, label: str) -> None:
        """``value`` matches ``expect``: tensors by value, sequences item by item, the rest by observation."""
        if _is_tensor(value):
            want = _values(expect) if _is_tensor(expect) else np.asarray(expect)
            assert _close(_values(value), want, 1e-5, 1e-6), (
                f"{self.lib.__name__}: {label} {value!r} != expected {expect!r}")
        elif isinstance(value, (tuple, list)) and isinstance(expect, (tuple, list)):
            assert len(value) == len(expect), f"{self.lib.__name__}: {label} length {len(value)} != {len(expect)}"
            for v, e in zip(value, expect):
                self._check(v, e, label)
        else:
            d = same(observe(value), observe(expect))
            assert d is None, f"{self.lib.__name__}: {label} {d}"

    def meta(self, t: Any, label: str = "") -> Any:
        self.items.append((label, Observation("meta", (fix(str(t.dtype)), tuple(t.shape)))))
        return t

    def raises(self, exc: type, fn: Callable, *args: Any, match: str | None = None, **kwargs: Any) -> BaseException:
        try:
            fn(*args, **kwargs)
        except Exception as e:  # noqa: BLE001 - the type is what is checked
            msg = fix(str(e))
            self.items.append(("raises", Observation("raise", type(e).__name__, f"{type(e).__name__}: {msg}")))
            assert isinstance(e, exc), f"{self.lib.__name__}: expected {exc.__name__}, got {type(e).__name__}: {msg}"
            if match is not None:
                assert match in msg, f"{self.lib.__name__}: {match!r} not in {msg!r}"
            return e
        raise AssertionError(f"{self.lib.__name__}: {getattr(fn, '__name__', fn)} did not raise {exc.__name__}")


def run(scenario: Callable, lib: Any) -> Recorder:
    rec = Recorder(lib)
    lib.manual_seed(0)
    scenario(lib, rec)
    return rec


def compare(scenario: Callable, rtol: float = 1e-5, atol: float = 1e-6) -> None:
    torch = pytest.importorskip("torch")
    ref = run(scenario, torch)
    got = run(scenario, tensorlib)
    assert len(ref.items) == len(got.items), f"{len(ref.items)} observations in torch, {len(got.items)} in tensorlib"
    for i, ((label, a), (_, b)) in enumerate(zip(ref.items, got.items)):
        d = same(a, b, rtol, atol)
        assert d is None, f"observation {i} {label}: {d}\n(torch: {a!r}\n tensorlib: {b!r})"


def differential(fn: Callable | None = None, *, rtol: float = 1e-5, atol: float = 1e-6) -> Any:
    """Decorator: a scenario becomes a test, parametrized over tensorlib alone and tensorlib against torch."""

    def make(scenario: Callable) -> Callable:
        @pytest.mark.parametrize("mode", ["tensorlib", "vs_torch"])
        def test(mode: str) -> None:
            if mode == "tensorlib":
                run(scenario, tensorlib)
            else:
                compare(scenario, rtol, atol)

        test.__name__ = scenario.__name__
        test.__qualname__ = scenario.__qualname__
        test.__doc__ = scenario.__doc__
        test.__module__ = scenario.__module__
        return test

    return make(fn) if fn is not None else make
