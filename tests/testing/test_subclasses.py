"""assert_close with Tensor subclasses: allow_subclasses, and no dispatch through ``__torch_function__``."""

from __future__ import annotations

from typing import Any, Callable

import pytest

import tensorlib
from tensorlib.testing import assert_close


class Logged(tensorlib.Tensor):
    """A subclass that records every call its ``__torch_function__`` sees."""

    calls: list[str] = []

    @classmethod
    def __torch_function__(cls, func: Callable[..., Any], types: Any, args: Any = (), kwargs: Any = None) -> Any:
        cls.calls.append(getattr(func, "__name__", repr(func)))
        return super().__torch_function__(func, types, args, kwargs or {})


class Reentrant(tensorlib.Tensor):
    """A subclass whose ``__torch_function__`` itself calls assert_close: dispatching to it would recurse."""

    @classmethod
    def __torch_function__(cls, func: Callable[..., Any], types: Any, args: Any = (), kwargs: Any = None) -> Any:
        assert_close(args[0], args[0])
        raise AssertionError("assert_close dispatched through __torch_function__")


def _logged(values: list[float]) -> Logged:
    return tensorlib.tensor(values).as_subclass(Logged)  # type: ignore[return-value]


def test_subclass_against_its_base_passes_by_default() -> None:
    assert_close(_logged([1.0, 2.0]), tensorlib.tensor([1.0, 2.0]))
    assert_close(tensorlib.nn.Parameter(tensorlib.ones(2)), tensorlib.ones(2))


def test_allow_subclasses_false_requires_the_same_type() -> None:
    with pytest.raises(TypeError, match="No comparison pair was able to handle inputs of type"):
        assert_close(tensorlib.nn.Parameter(tensorlib.ones(2)), tensorlib.ones(2), allow_subclasses=False)
    assert_close(_logged([1.0]), _logged([1.0]), allow_subclasses=False)


def test_comparison_never_reaches_torch_function() -> None:
    a, e = _logged([1.0, 2.0]), _logged([1.0, 3.0])
    Logged.calls.clear()
    assert_close(a, a)
    with pytest.raises(AssertionError, match="Tensor-likes are not close!"):
        assert_close(a, e, check_stride=True)
    with pytest.raises(AssertionError, match="attribute 'shape'"):
        assert_close(a, _logged([1.0]))
    assert Logged.calls == []


def test_reentrant_subclass_does_not_recurse() -> None:
    t = tensorlib.tensor([1.0, 2.0]).as_subclass(Reentrant)
    assert_close(t, t)
    with pytest.raises(AssertionError, match="Mismatched elements: 1 / 2"):
        assert_close(t, tensorlib.tensor([1.0, 5.0]).as_subclass(Reentrant))


def test_tensors_requiring_grad_are_compared_by_value() -> None:
    w = tensorlib.ones(3, requires_grad=True)
    assert_close(w * 2, tensorlib.full((3,), 2.0))
