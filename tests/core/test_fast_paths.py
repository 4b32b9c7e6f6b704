"""The shortcuts taken for speed give the same results, dtypes, errors and gradients as the general paths.

Operators on two plain tensors of one dtype call NumPy directly; the gradient of
a full reduction of a small tensor is filled in rather than broadcast; the
engine's loop for ``backward()`` without ``inputs`` skips target bookkeeping.
"""

from __future__ import annotations

import operator

import numpy as np
import pytest

import tensorlib

from tests.helpers import assert_close

OPS = [operator.add, operator.sub, operator.mul, operator.truediv, operator.eq, operator.ne,
       operator.lt, operator.le, operator.gt, operator.ge]
FUNCS = {operator.add: tensorlib.add, operator.sub: tensorlib.sub, operator.mul: tensorlib.mul,
         operator.truediv: tensorlib.div, operator.eq: tensorlib.eq, operator.ne: tensorlib.ne,
         operator.lt: tensorlib.lt, operator.le: tensorlib.le, operator.gt: tensorlib.gt, operator.ge: tensorlib.ge}


def _operands(dtype: tensorlib.dtype, shape: tuple[int, ...]) -> tuple[tensorlib.Tensor, tensorlib.Tensor]:
    rng = np.random.default_rng(0)
    a, b = rng.integers(1, 5, shape), rng.integers(1, 5, shape)
    return tensorlib.tensor(a).to(dtype), tensorlib.tensor(b).to(dtype)


@pytest.mark.parametrize("fn", OPS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("dtype", [tensorlib.float32, tensorlib.float64, tensorlib.int64, tensorlib.uint8,
                                   tensorlib.bool, tensorlib.complex64], ids=str)
@pytest.mark.parametrize("shape", [(), (3,), (2, 3)], ids=str)
def test_operator_matches_the_function(fn, dtype, shape):
    a, b = _operands(dtype, shape)
    try:
        expected = FUNCS[fn](a, b)
    except RuntimeError as exc:
        with pytest.raises(type(exc), match=str(exc)[:40].replace("(", r"\(").replace(")", r"\)")):
            fn(a, b)
        return
    got = fn(a, b)
    assert type(got) is tensorlib.Tensor
    assert got.dtype == expected.dtype and got.shape == expected.shape
    assert_close(got, expected)


def test_operator_results_are_fresh_tensors_even_for_0d_operands():
    a, b = tensorlib.tensor(2.0), tensorlib.tensor(3.0)
    r = a * b
    assert type(r) is tensorlib.Tensor and r.shape == () and r.item() == 6.0
    r.add_(1)  # a NumPy scalar would not be writable
    assert r.item() == 7.0 and a.item() == 2.0


def test_integer_true_division_gives_the_default_float_dtype():
    a, b = tensorlib.tensor([3, 4]), tensorlib.tensor([2, 8])
    r = a / b
    assert r.dtype == tensorlib.get_default_dtype()
    assert r.tolist() == [1.5, 0.5]


def test_operators_keep_torch_errors():
    a, b = tensorlib.ones(2, 3), tensorlib.ones(4)
    with pytest.raises(RuntimeError, match=r"size of tensor a \(3\) must match the size of tensor b \(4\)"):
        a + b
    t = tensorlib.tensor([True, False])
    with pytest.raises(RuntimeError, match="Subtraction, the `-` operator, with two bool tensors"):
        t - t
    c = tensorlib.ones(2, dtype=tensorlib.complex64)
    with pytest.raises(NotImplementedError):
        c < c


def test_operators_still_record_gradients():
    x = tensorlib.ones(3, dtype=tensorlib.float64, requires_grad=True)
    y = tensorlib.full((3,), 2.0, dtype=tensorlib.float64)
    ((x * y) + x / y - y).sum().backward()
    assert_close(x.grad, tensorlib.full((3,), 2.5, dtype=tensorlib.float64))


def test_operators_on_subclasses_still_dispatch():
    class Sub(tensorlib.Tensor):
        pass

    s = tensorlib.ones(2).as_subclass(Sub)
    assert type(s + tensorlib.ones(2)) is Sub
    assert type(tensorlib.ones(2) * s) is Sub


@pytest.mark.parametrize("shape", [(3, 4), (80, 80)], ids=["filled", "broadcast"])
def test_gradient_of_a_full_sum(shape):
    x = tensorlib.rand(*shape, dtype=tensorlib.float64, requires_grad=True)
    (x.sum() * 3).backward()
    assert_close(x.grad, tensorlib.full(shape, 3.0, dtype=tensorlib.float64))
    g = x.grad
    x.sum().backward()  # accumulates in place into the first gradient
    assert x.grad is g
    assert_close(x.grad, tensorlib.full(shape, 4.0, dtype=tensorlib.float64))


@pytest.mark.parametrize("shape", [(3, 4), (80, 80)], ids=["filled", "broadcast"])
def test_double_backward_through_a_full_sum(shape):
    x = tensorlib.rand(*shape, dtype=tensorlib.float64, requires_grad=True)
    (g,) = tensorlib.autograd.grad((x * x).sum(), x, create_graph=True)
    g.sum().backward()
    assert_close(x.grad, tensorlib.full(shape, 2.0, dtype=tensorlib.float64))


def test_backward_of_several_roots_where_one_feeds_another():
    x = tensorlib.tensor([1.0, 2.0], dtype=tensorlib.float64, requires_grad=True)
    y = x * 3
    z = y.sum()
    tensorlib.autograd.backward([z, y], [tensorlib.tensor(1.0, dtype=tensorlib.float64),
                                         tensorlib.ones(2, dtype=tensorlib.float64)])
    assert x.grad.tolist() == [6.0, 6.0]  # (1 + 1) * 3 each: y's gradient is summed before y's node runs
