"""Deep graphs and huge sizes.

Backward through a chain of hundreds of thousands of ops runs without recursion, and
freeing such a graph (with or without running it) does not recurse either. Sizes that
cannot be allocated raise torch's errors, naming the size: a ``RuntimeError`` for memory
(``DefaultCPUAllocator: can't allocate memory: you tried to allocate N bytes``) and for a
byte count that overflows (``Storage size calculation overflowed``), and never NumPy's
``MemoryError`` or ``ValueError``.
"""

from __future__ import annotations

import gc
import re
import sys
import weakref

import numpy as np
import pytest

import tensorlib
from tensorlib.autograd import Function

DEPTH = 200_000


@pytest.fixture
def low_recursion_limit():
    """A recursion limit far below the depths used, so that anything recursive fails loudly."""
    prev = sys.getrecursionlimit()
    sys.setrecursionlimit(400)
    yield
    sys.setrecursionlimit(prev)


def test_backward_through_a_chain_of_200k_ops(low_recursion_limit):
    x = tensorlib.tensor([1.5, -2.0], dtype=tensorlib.float64, requires_grad=True)
    y = x
    for _ in range(DEPTH):
        y = y * 1.0
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 1.0])


class Identity(Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a.clone()

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad


@pytest.mark.parametrize("kind", ["mul", "saved inputs", "views", "custom Function"])
@pytest.mark.parametrize("run_backward", [False, True], ids=["unused", "after backward"])
def test_freeing_a_deep_graph_does_not_recurse(kind, run_backward, low_recursion_limit):
    depth = DEPTH // 4 if kind in ("custom Function", "saved inputs") else DEPTH // 2
    x = tensorlib.tensor([1.0], dtype=tensorlib.float64, requires_grad=True)
    y = x
    for _ in range(depth):
        if kind == "mul":
            y = y * 1.0
        elif kind == "saved inputs":
            y = y * y  # each node keeps its input tensor, whose grad_fn is the node before
        elif kind == "views":
            y = y.view(1)
        else:
            y = Identity.apply(y)
    probe = weakref.ref(y.grad_fn)
    if run_backward:
        y.sum().backward(retain_graph=True)  # keeps every saved tensor alive until the graph goes
    gc.disable()
    try:
        del y  # the whole chain goes with its last reference, by reference counting
        assert probe() is None
    finally:
        gc.enable()
    assert (x.grad is not None) == run_backward


def test_double_backward_through_a_deep_chain(low_recursion_limit):
    x = tensorlib.tensor([2.0], dtype=tensorlib.float64, requires_grad=True)
    y = x
    for _ in range(20_000):
        y = y * 1.0
    (g,) = tensorlib.autograd.grad((y * y).sum(), x, create_graph=True)
    (h,) = tensorlib.autograd.grad(g.sum(), x)
    np.testing.assert_array_equal(g.detach().numpy(), [4.0])
    np.testing.assert_array_equal(h.numpy(), [2.0])


# -- sizes -------------------------------------------------------------------------------------------------

ALLOC = r"^DefaultCPUAllocator: can't allocate memory: you tried to allocate {} bytes"
OVERFLOW = r"^Storage size calculation overflowed"


# Sizes far beyond any machine's address space (2**48 bytes and more), so that no overcommit setting lets the
# allocation succeed (and a tensor of ones be written page by page)
BIG = 2**48


@pytest.mark.parametrize(
    "make, nbytes",
    [
        (lambda: tensorlib.zeros(BIG), 4 * BIG),
        (lambda: tensorlib.ones(10**8, 10**8), 4 * 10**16),
        (lambda: tensorlib.empty(BIG, dtype=tensorlib.float64), 8 * BIG),
        (lambda: tensorlib.zeros(BIG, dtype=tensorlib.int8), BIG),
        (lambda: tensorlib.full((BIG,), 1.0), 4 * BIG),
        (lambda: tensorlib.rand(BIG), 4 * BIG),
        (lambda: tensorlib.randn(BIG), 4 * BIG),
        (lambda: tensorlib.randint(0, 5, (BIG,)), 8 * BIG),
        (lambda: tensorlib.arange(BIG), 8 * BIG),
        (lambda: tensorlib.eye(2**25), 4 * 2**50),
        (lambda: tensorlib.zeros(BIG, requires_grad=True), 4 * BIG),
        (lambda: tensorlib.ones(3).new_zeros(BIG), 4 * BIG),
        (lambda: tensorlib.ones(3).new_full((BIG,), 2.0), 4 * BIG),
        (lambda: tensorlib.ones(3).expand(BIG, 3).contiguous(), 12 * BIG),
        (lambda: tensorlib.ones(3).repeat(BIG), 12 * BIG),
        (lambda: tensorlib.ones(2**18, 1) * tensorlib.ones(1, 1).expand(1, 2**30), 4 * BIG),
        (lambda: tensorlib.ones(2).resize_(BIG), 4 * BIG),
        (lambda: tensorlib.Tensor(BIG), 4 * BIG),
        (lambda: tensorlib.FloatTensor(BIG), 4 * BIG),
    ],
)
def test_allocations_beyond_memory_raise_torchs_runtime_error(make, nbytes):
    with pytest.raises(RuntimeError, match=ALLOC.format(nbytes)) as info:
        make()
    assert not isinstance(info.value, MemoryError)


@pytest.mark.parametrize(
    "make, sizes",
    [
        (lambda: tensorlib.zeros(2**31, 2**31, 2**31), "[2147483648, 2147483648, 2147483648]"),
        (lambda: tensorlib.zeros(3, 2**62), "[3, 4611686018427387904]"),
        (lambda: tensorlib.ones(3).new_empty((2**40, 2**40)), "[1099511627776, 1099511627776]"),
        (lambda: tensorlib.empty(2**62), None),  # its count fits int64, its bytes do not
        (lambda: tensorlib.Tensor(2**62), None),
        (lambda: tensorlib.ones(3).repeat(2**62), None),
    ],
)
def test_sizes_whose_bytes_overflow_raise_torchs_runtime_error(make, sizes):
    pattern = OVERFLOW + (re.escape(f" with sizes={sizes}") if sizes else "")
    with pytest.raises(RuntimeError, match=pattern):
        make()


@pytest.mark.parametrize("make", [lambda: tensorlib.zeros(-1), lambda: tensorlib.empty(2, -3),
                                  lambda: tensorlib.Tensor(-1)])
def test_negative_sizes(make):
    with pytest.raises(RuntimeError, match=r"^Trying to create tensor with negative dimension -\d: \[(2, )?-\d\]$"):
        make()


def test_integers_beyond_int64():
    with pytest.raises(TypeError, match=r"zeros\(\): argument 'size' failed to unpack .*Overflow when unpacking"):
        tensorlib.zeros(2**63)
    with pytest.raises(TypeError, match=r"full\(\): argument 'size' failed to unpack .*Overflow when unpacking"):
        tensorlib.full((3, 2**64), 1.0)
    with pytest.raises(TypeError, match=r"^repeat\(\): argument 'repeats' failed to unpack the object at pos 1 with error \"Overflow when unpacking long long"):
        tensorlib.ones(3).repeat(2**63)
    with pytest.raises(RuntimeError, match="value cannot be converted to type int64_t without overflow"):
        tensorlib.arange(2**63)  # NumPy made an empty tensor of it
    with pytest.raises(RuntimeError, match="value cannot be converted to type int64_t without overflow"):
        tensorlib.arange(0, 2**63, 2**62)
    with pytest.raises(ValueError, match="Overflow when unpacking long long"):
        tensorlib.randperm(2**63)


def test_the_largest_empty_and_ordinary_sizes_still_work():
    assert tensorlib.zeros(0, 2**40).shape == (0, 2**40)
    assert tensorlib.arange(2**63 - 1, 2**63 - 1).shape == (0,)
    assert tensorlib.ones(1000, 1000).sum().item() == 1e6


# -- torch ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "expr",
    ["zeros(2**48)", "ones(10**8, 10**8)", "empty(2**62)", "zeros(2**31, 2**31, 2**31)", "zeros(-1)",
     "empty(2, -3)", "zeros(2**63)", "ones(3).repeat(2**48)", "arange(2**63)", "randint(0, 5, (2**48,))"],
)
def test_same_exception_types_as_torch(expr):
    torch = pytest.importorskip("torch")
    raised = {}
    for lib in (tensorlib, torch):
        with pytest.raises(Exception) as info:
            eval(expr, {"__builtins__": {}}, vars(lib))
        raised[lib.__name__] = type(info.value)
    assert raised["tensorlib"] is raised["torch"], raised
