"""A backward pass that raises changes no ``.grad``, and a retained graph can be run again.

The failure may come from a tensor hook (on a leaf or not), a node's pre- or post-hook,
a custom ``autograd.Function.backward`` or anomaly detection. tensorlib adds gradients
into ``.grad`` only once every node has run, so either all leaves get their gradients or
none does.

torch differs here: it accumulates into each leaf as soon as that leaf's node runs, so a
failure after some leaves were reached leaves those updated (``test_torch_accumulates_part_way``
shows it). When the failure comes before any leaf is reached, both agree
(``test_torch_agrees_when_no_leaf_was_reached``). A post-accumulate-grad hook that raises
runs after the commit: every leaf has its gradient by then, here as in torch for the
leaves torch had reached.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import tensorlib
from tensorlib.autograd import Function


class Boom(Exception):
    pass


class Switch:
    """A callable that raises :class:`Boom` while armed."""

    def __init__(self) -> None:
        self.armed = True

    def __call__(self, *args: Any) -> None:
        if self.armed:
            raise Boom("hook failed")


def leaves(lib: Any = tensorlib, with_grad: bool = False) -> tuple:
    a = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64, requires_grad=True)
    b = lib.tensor([4.0, 5.0, 6.0], dtype=lib.float64, requires_grad=True)
    if with_grad:
        a.grad = lib.tensor([10.0, 10.0, 10.0], dtype=lib.float64)
        b.grad = lib.tensor([20.0, 20.0, 20.0], dtype=lib.float64)
    return a, b


def grads(*ts: Any) -> list:
    return [None if t.grad is None else t.grad.detach().numpy().copy() for t in ts]


def assert_grads(ts: tuple, expected: list) -> None:
    for t, e in zip(ts, expected):
        if e is None:
            assert t.grad is None
        else:
            np.testing.assert_array_equal(t.grad.detach().numpy(), e)


# Each case builds y from leaves (a, b) and arms a failure somewhere in its backward; b's branch is
# reached first or last depending on the case, so some leaf is always reached before the failure.
def hook_on_leaf_a(a, b, fail):
    a.register_hook(fail)
    return (a * b).sum() + (b * 3.0).sum()


def hook_on_leaf_b(a, b, fail):
    b.register_hook(fail)
    return (a * 2.0).sum() + (b * b).sum()


def hook_on_intermediate(a, b, fail):
    h = a * 2.0
    h.register_hook(fail)
    return (h * b).sum() + (b * 3.0).sum()


def node_pre_hook(a, b, fail):
    h = a * 2.0
    h.grad_fn.register_prehook(lambda grad_outputs: fail())
    return h.sum() + (b * 3.0).sum()


def node_post_hook(a, b, fail):
    h = a * b
    h.grad_fn.register_hook(lambda grad_inputs, grad_outputs: fail())
    return h.sum() + (b * 3.0).sum()


class Failing(Function):
    fail: Callable[[], None] = staticmethod(lambda: None)

    @staticmethod
    def forward(ctx, x):
        return x * 2.0

    @staticmethod
    def backward(ctx, grad):
        Failing.fail()
        return grad * 2.0


def function_backward(a, b, fail):
    Failing.fail = fail
    return Failing.apply(a).sum() + (b * 3.0).sum() + (a * b).sum()


CASES = [hook_on_leaf_a, hook_on_leaf_b, hook_on_intermediate, node_pre_hook, node_post_hook, function_backward]


@pytest.mark.parametrize("with_grad", [False, True], ids=["empty grad", "existing grad"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.__name__)
def test_failed_backward_changes_no_grad_and_the_graph_runs_again(case, with_grad):
    a, b = leaves(with_grad=with_grad)
    before = grads(a, b)
    fail = Switch()
    y = case(a, b, fail)
    with pytest.raises(Boom):
        y.backward(retain_graph=True)
    assert_grads((a, b), before)

    fail.armed = False
    y.backward()
    # the same graph, fresh leaves, no failure: the gradients the retry must have added
    a2, b2 = leaves(with_grad=with_grad)
    case(a2, b2, lambda *args: None).backward()
    assert_grads((a, b), grads(a2, b2))


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.__name__)
def test_failed_backward_with_inputs_or_create_graph_changes_no_grad(case):
    for kwargs in ({"inputs": None}, {"create_graph": True}):
        a, b = leaves(with_grad=True)
        fail = Switch()
        y = case(a, b, fail)
        if "inputs" in kwargs:
            kwargs = {"inputs": [a, b]}
        with pytest.raises(Boom):
            y.backward(retain_graph=True, **kwargs)
        assert_grads((a, b), [[10.0] * 3, [20.0] * 3])
        assert not a.grad.requires_grad


def test_a_retained_non_leaf_gradient_is_untouched_too():
    a, b = leaves()
    h = a * b
    h.retain_grad()
    fail = Switch()
    y = h.sum() + (b * 3.0).sum()
    b.register_hook(fail)  # b's node runs after h's gradient is known
    with pytest.raises(Boom):
        y.backward(retain_graph=True)
    assert h.grad is None and a.grad is None and b.grad is None
    fail.armed = False
    y.backward()
    np.testing.assert_array_equal(h.grad.numpy(), [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(a.grad.numpy(), b.detach().numpy())
    np.testing.assert_array_equal(b.grad.numpy(), a.detach().numpy() + 3.0)


def test_anomaly_detection_failure_changes_no_grad():
    a, b = leaves(with_grad=True)
    y = (b * 3.0).sum() + (tensorlib.sqrt(a * 0.0) * 0.0).sum()  # sqrt's backward at 0 makes NaN
    with tensorlib.autograd.set_detect_anomaly(True):
        with pytest.raises(RuntimeError, match="returned nan values"):
            y.backward(retain_graph=True)
    assert_grads((a, b), [[10.0] * 3, [20.0] * 3])
    y.backward()  # without detection the NaN goes through, as in torch
    assert np.isnan(a.grad.numpy()).all()
    np.testing.assert_array_equal(b.grad.numpy(), [23.0] * 3)


def test_a_failing_post_accumulate_grad_hook_runs_after_every_leaf_has_accumulated():
    a, b = leaves()
    fail = Switch()
    a.register_post_accumulate_grad_hook(fail)
    seen = []
    b.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.clone()))
    y = (a * b).sum()
    with pytest.raises(Boom):
        y.backward()
    np.testing.assert_array_equal(a.grad.numpy(), b.detach().numpy())
    np.testing.assert_array_equal(b.grad.numpy(), a.detach().numpy())


def test_hooks_see_gradients_before_anything_is_committed():
    a, b = leaves()
    observed = []
    a.register_hook(lambda g: observed.append(("a hook", b.grad)))
    b.register_post_accumulate_grad_hook(lambda t: observed.append(("b post", a.grad is not None)))
    (a * b).sum().backward()
    assert observed == [("a hook", None), ("b post", True)]


# -- torch ----------------------------------------------------------------------------------------------


def test_torch_agrees_when_no_leaf_was_reached():
    torch = pytest.importorskip("torch")
    results = {}
    for lib in (tensorlib, torch):
        a, b = leaves(lib, with_grad=True)
        fail = Switch()
        y = (a * b).sum()
        y.grad_fn.register_prehook(lambda grad_outputs: fail())  # the first node: before every leaf
        with pytest.raises(Boom):
            y.backward(retain_graph=True)
        first = grads(a, b)
        fail.armed = False
        y.backward()
        results[lib.__name__] = (first, grads(a, b))
    (tl_first, tl_after), (t_first, t_after) = results["tensorlib"], results["torch"]
    for x, t in zip(tl_first + tl_after, t_first + t_after):
        np.testing.assert_array_equal(x, t)


def test_torch_accumulates_part_way():
    """The documented difference: torch has updated the leaves it reached before the failure."""
    torch = pytest.importorskip("torch")
    outcome = {}
    for lib in (tensorlib, torch):
        a, b = leaves(lib)
        fail = Switch()
        a.register_hook(fail)
        y = (a * 2.0 + b * 3.0).sum()  # torch runs b's branch, the one recorded last, first
        with pytest.raises(Boom):
            y.backward(retain_graph=True)
        outcome[lib.__name__] = (a.grad is None, b.grad is None)
    assert outcome["tensorlib"] == (True, True)
    assert outcome["torch"] == (True, False)
