"""``t[key]`` and ``t[key] = value``: torch's result layouts (not NumPy's where they differ) and gradients."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import tensorlib
from tensorlib.autograd import gradcheck, gradgradcheck

A = np.arange(24.0).reshape(2, 3, 4)

# (key builder taking the library, expected result shape)
KEYS: list[tuple[Callable[[Any], Any], tuple]] = [
    (lambda L: 0, (3, 4)),
    (lambda L: (-1, slice(1, None)), (2, 4)),
    (lambda L: (Ellipsis, 0), (2, 3)),
    (lambda L: (None, 0, Ellipsis, None), (1, 3, 4, 1)),
    (lambda L: (slice(None), [0, 2]), (2, 2, 4)),
    (lambda L: ([0, 1], [1, 2]), (2, 4)),
    (lambda L: ([0, 1], slice(None), [1, 2]), (2, 3)),
    (lambda L: (slice(None), [[0], [2]], [1, 3]), (2, 2, 2)),
    (lambda L: (0, slice(None), [1]), (3, 1)),  # torch selects the int first; NumPy would give (1, 3)
    (lambda L: ([0, 1], 1, [2, 3]), (2,)),
    (lambda L: (1, [0, 2], slice(1, 3)), (2, 2)),
    (lambda L: L.tensor([[0, 1]]), (1, 2, 3, 4)),
    (lambda L: (Ellipsis, L.tensor([0, 3]), None), (2, 3, 2, 1)),
    (lambda L: (slice(None), None, [0, 1], None), (2, 1, 2, 1, 4)),
    (lambda L: (1, slice(None, None, 2), slice(1, 3)), (2, 2)),
    (lambda L: (L.tensor([True, False]),), (1, 3, 4)),
    (lambda L: True, (1, 2, 3, 4)),
    (lambda L: (0, True), (1, 3, 4)),
    (lambda L: [], (0, 3, 4)),
    (lambda L: (slice(None), slice(1, 1)), (2, 0, 4)),
]


def _x(L: Any, requires_grad: bool = False) -> Any:
    return L.tensor(A.tolist(), dtype=L.float64, requires_grad=requires_grad)


@pytest.mark.parametrize("i", range(len(KEYS)))
def test_getitem_shape_and_values(i: int) -> None:
    key, shape = KEYS[i]
    out = _x(tensorlib)[key(tensorlib)]
    assert tuple(out.shape) == shape
    torch = pytest.importorskip("torch")
    expected = _x(torch)[key(torch)]
    assert tuple(expected.shape) == shape
    np.testing.assert_array_equal(out.numpy(), expected.numpy())


def test_getitem_with_a_mask_tensor() -> None:
    x = _x(tensorlib)
    assert x[x > 10].tolist() == list(range(11, 24))
    assert x[0, :, x[0, 0] > 1].shape == (3, 2)


@pytest.mark.parametrize("i", range(len(KEYS)))
def test_getitem_gradients(i: int) -> None:
    key, _ = KEYS[i]
    x = tensorlib.tensor(np.random.default_rng(i).standard_normal(A.shape), requires_grad=True)
    fn = lambda t: t[key(tensorlib)] * 1.0  # noqa: E731 (fresh memory: gradcheck perturbs inputs in place)
    assert gradcheck(fn, [x])
    assert gradgradcheck(fn, [x])


def test_repeated_advanced_indices_accumulate_gradients() -> None:
    x = tensorlib.ones(3, requires_grad=True)
    x[[0, 0, 2]].sum().backward()
    assert x.grad.tolist() == [2.0, 0.0, 1.0]


SETS = [
    ((0, slice(None), [1]), np.ones((3, 1))),
    (([0, 1], 1, [2, 3]), 5.0),
    ((slice(None), [0, 2]), np.ones((2, 2, 4))),
    ((1, [0, 1], slice(1, 3)), np.zeros((2, 2))),
    ((Ellipsis, 1), np.full((2, 3), 9.0)),
    ((0, 1, 2), -3.0),
]


@pytest.mark.parametrize("i", range(len(SETS)))
def test_setitem(i: int) -> None:
    key, value = SETS[i]
    x = _x(tensorlib)
    x[key] = tensorlib.tensor(value) if isinstance(value, np.ndarray) else value
    torch = pytest.importorskip("torch")
    t = _x(torch)
    t[key] = torch.tensor(value) if isinstance(value, np.ndarray) else value
    np.testing.assert_array_equal(x.numpy(), t.numpy())


@pytest.mark.parametrize("i", [0, 2, 3, 4])
def test_setitem_gradients(i: int) -> None:
    key, value = SETS[i]
    x = tensorlib.tensor(np.random.default_rng(i).standard_normal(A.shape), requires_grad=True)
    v = tensorlib.tensor(np.random.default_rng(i + 1).standard_normal(np.shape(value)), requires_grad=True)

    def fn(x: Any, v: Any) -> Any:
        y = x * 1.0
        y[key] = v
        return y

    assert gradcheck(fn, [x, v])
    assert gradgradcheck(fn, [x, v])


def test_setitem_dtype_and_shape_errors() -> None:
    x = tensorlib.zeros(2, 3)
    with pytest.raises(RuntimeError, match="shape mismatch"):
        x[0] = tensorlib.ones(2)
    with pytest.raises(IndexError, match="out of bounds"):
        x[2] = 1.0
    with pytest.raises(TypeError):
        x[0] = "a"
