"""Training loops hold memory flat: nothing accumulates per step, and every graph is freed by reference counting.

Each loop runs with the cyclic garbage collector off after a warm-up. Then the memory
traced by ``tracemalloc`` (NumPy's buffers included) and the count of live objects of
each tensorlib type must be where they were, and ``gc.collect()`` must find no garbage:
a graph, its saved tensors, hooks and the exceptions raised through it are all freed
the moment the last reference goes, never left to the cyclic collector.
"""

from __future__ import annotations

import collections
import gc
import tracemalloc
from typing import Callable

import pytest

import tensorlib
import tensorlib.nn as nn
import tensorlib.nn.functional as F
from tensorlib.autograd import Function

# The free lists are filled before measuring (see fill_free_lists); what is left is a few stray blocks, while
# a leak of one small tensor per step over the measured steps is far above it
SLACK_BYTES = 16 * 1024


def fill_free_lists() -> None:
    """Fill Python's free lists of tuples (2,000 per length up to 20), lists, dicts and floats.

    Freed objects of those types are kept for reuse rather than released, and
    tracemalloc still counts them: a loop that happens to free more tuples
    than it reuses fills the free list gradually, which looks like a leak
    that stops after a few hundred steps. Filled first, they cannot grow.
    """
    junk: list = [tuple(range(n)) for n in range(1, 21) for _ in range(2100)]
    junk += [[i] for i in range(200)] + [{i: i} for i in range(200)] + [float(i) + 0.5 for i in range(200)]
    del junk


def tensorlib_objects() -> collections.Counter:
    """How many objects of each tensorlib (or dispatch) type the garbage collector knows of."""
    counts: collections.Counter = collections.Counter()
    for obj in gc.get_objects():
        module = getattr(type(obj), "__module__", "")
        if isinstance(module, str) and module.startswith(("tensorlib", "dispatch", __name__)):
            counts[f"{module}.{type(obj).__qualname__}"] += 1
    return counts


def assert_flat(step: Callable[[], None], steps: int, warmup: int = 100) -> None:
    """Run ``step`` ``warmup`` times, then ``steps`` times with the cyclic GC off: nothing may accumulate."""
    for _ in range(warmup):
        step()
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    tracemalloc.start()
    try:
        fill_free_lists()
        before_objects = tensorlib_objects()
        before_bytes = tracemalloc.get_traced_memory()[0]
        for _ in range(steps):
            step()
        grown = tracemalloc.get_traced_memory()[0] - before_bytes
        after_objects = tensorlib_objects()
        gc.set_debug(gc.DEBUG_SAVEALL)
        try:
            found = gc.collect()
            garbage = collections.Counter(type(o).__qualname__ for o in gc.garbage)
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
    finally:
        tracemalloc.stop()
        if was_enabled:
            gc.enable()
    assert found == 0, f"reference cycles left to the cyclic GC after {steps} steps: {garbage.most_common(10)}"
    growth = {k: after_objects[k] - before_objects[k] for k in after_objects | before_objects
              if after_objects[k] != before_objects[k]}
    assert not growth, f"live tensorlib objects changed over {steps} steps: {growth}"
    assert grown < SLACK_BYTES, f"traced memory grew by {grown} bytes over {steps} steps"


@pytest.fixture
def mlp():
    tensorlib.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))
    x = tensorlib.randn(5, 8)
    target = tensorlib.randint(0, 3, (5,))
    return model, x, target


def test_training_loop(mlp):
    model, x, target = mlp
    opt = tensorlib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)

    def step():
        loss = F.cross_entropy(model(x), target)
        opt.zero_grad()
        loss.backward()
        opt.step()

    assert_flat(step, steps=2000)


def test_retain_graph_loop(mlp):
    model, x, target = mlp

    def step():
        loss = F.cross_entropy(model(x), target)
        loss.backward(retain_graph=True)
        loss.backward(retain_graph=True)
        loss.backward()
        model.zero_grad()

    assert_flat(step, steps=400)


def test_hooks_loop(mlp):
    model, x, target = mlp
    weight = model[0].weight

    def step():
        out = model(x)
        out.register_hook(lambda g: g * 0.5)  # on a tensor of this step's graph: freed with it
        h = out.grad_fn.register_prehook(lambda grads: None)
        handles = [
            weight.register_hook(lambda g: g + 0.0),
            weight.register_post_accumulate_grad_hook(lambda p: None),
            model[2].register_full_backward_hook(lambda mod, gin, gout: None),
        ]
        inner = out * 2.0
        inner.retain_grad()
        F.cross_entropy(inner, target).backward()
        for handle in handles:
            handle.remove()
        h.remove()
        model.zero_grad()

    assert_flat(step, steps=400)


def test_double_backward_loop(mlp):
    model, x, target = mlp

    def step():
        loss = F.cross_entropy(model(x), target)
        grads = tensorlib.autograd.grad(loss, list(model.parameters()), create_graph=True)
        penalty = sum((g * g).sum() for g in grads)
        (loss + penalty).backward()
        model.zero_grad()

    assert_flat(step, steps=400)


def test_accumulated_gradients_with_create_graph(mlp):
    model, x, target = mlp

    def step():
        F.cross_entropy(model(x), target).backward(create_graph=True)
        # .grad now has a history that refers to the parameters; dropping it frees that graph
        model.zero_grad(set_to_none=True)

    assert_flat(step, steps=400)


class Square(Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        ctx.note = a.shape  # arbitrary state on ctx
        return a * a

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return 2.0 * a * grad


class SaveOutput(Function):
    @staticmethod
    def forward(ctx, a):
        out = a.exp()
        ctx.save_for_backward(out)  # an output saved by its own node
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return grad * out


def test_custom_function_loop(mlp):
    model, x, _ = mlp

    def step():
        SaveOutput.apply(Square.apply(model(x))).sum().backward()
        model.zero_grad()

    assert_flat(step, steps=400)


class FailingBackward(Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a * 1.0

    @staticmethod
    def backward(ctx, grad):
        raise ValueError("backward failed")


def test_exceptions_raised_inside_backward(mlp):
    model, x, target = mlp

    def failing_hook(g):
        raise KeyError("hook failed")

    def step():
        with pytest.raises(ValueError):
            FailingBackward.apply(model(x)).sum().backward()
        out = model(x)
        out.register_hook(failing_hook)
        loss = F.cross_entropy(out, target)
        with pytest.raises(KeyError):
            loss.backward(retain_graph=True)
        with pytest.raises(RuntimeError, match="returned nan"), tensorlib.autograd.set_detect_anomaly(True):
            (tensorlib.sqrt(model(x) * 0.0) * 0.0).sum().backward()
        assert model[0].weight.grad is None  # nothing was committed

    assert_flat(step, steps=300)


def test_no_grad_and_inference_loops(mlp):
    model, x, _ = mlp

    def step():
        with tensorlib.no_grad():
            model(x).sum()
        with tensorlib.inference_mode():
            model(x).sum()

    assert_flat(step, steps=1000)
