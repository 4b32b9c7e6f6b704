"""autograd: NestedIOFunction (the legacy nested-IO Function), the engine switches set_multithreading_enabled and
enforce_grad_layout_policy, the grad_mode and variable names."""

from __future__ import annotations

import sys
import threading

import numpy as np
import pytest

import tensorlib
from tensorlib import autograd
from tensorlib._autograd.grad_mode import ENGINE
from tensorlib.autograd import NestedIOFunction, enforce_grad_layout_policy, set_multithreading_enabled


class ScaleAndShift(NestedIOFunction):
    """``(a * pair[0], a + pair[1])`` with nested inputs and a hand-written nested backward."""

    def forward_extended(self, a, pair):
        self.save_for_backward(a, (pair[0], None))
        return a * pair[0], a + pair[1]

    def backward_extended(self, g_mul, g_add):
        a, (scale, nothing) = self.saved_tensors
        assert nothing is None
        return g_mul * scale + g_add, (g_mul * a, g_add)


def test_nested_io_function_forward_and_backward():
    a = tensorlib.tensor([1.0, 2.0], requires_grad=True)
    s = tensorlib.tensor([3.0, 4.0], requires_grad=True)
    t = tensorlib.tensor([0.5, 0.5], requires_grad=True)
    prod, total = ScaleAndShift()(a, (s, t))
    assert prod.tolist() == [3.0, 8.0] and total.tolist() == [1.5, 2.5]
    assert prod.grad_fn is not None and prod.grad_fn is total.grad_fn
    (prod.sum() + 2 * total.sum()).backward()
    assert a.grad.tolist() == [5.0, 6.0] and s.grad.tolist() == [1.0, 2.0] and t.grad.tolist() == [2.0, 2.0]


def test_nested_io_function_outputs_keep_their_structure():
    class Nest(NestedIOFunction):
        def forward_extended(self, x):
            return [x * 2, (x * 3,)]

        def backward_extended(self, g2, g3):
            return g2 * 2 + g3[0] * 3

    x = tensorlib.ones(2, requires_grad=True)
    out = Nest()(x)
    assert isinstance(out, list) and isinstance(out[1], tuple)
    (out[0].sum() + out[1][0].sum()).backward()
    assert x.grad.tolist() == [5.0, 5.0]


def test_nested_io_function_marks_and_defaults():
    class Flags(NestedIOFunction):
        def forward_extended(self, x):
            idx = (x > 0).long()
            self.mark_non_differentiable(idx)
            return x * 2, idx

        def backward_extended(self, g, g_idx):
            return g * 2

    x = tensorlib.tensor([1.0, -1.0], requires_grad=True)
    y, idx = Flags()(x)
    assert y.requires_grad and not idx.requires_grad
    with pytest.raises(NotImplementedError):
        NestedIOFunction()(x)
    assert issubclass(NestedIOFunction, autograd.Function)
    assert autograd.function.NestedIOFunction is NestedIOFunction


def test_set_multithreading_enabled_is_a_thread_local_switch():
    assert ENGINE.multithreading
    with set_multithreading_enabled(False):
        assert not ENGINE.multithreading
        seen = []
        thread = threading.Thread(target=lambda: seen.append(ENGINE.multithreading))
        thread.start()
        thread.join()
        assert seen == [True]  # other threads keep their own mode
        x = tensorlib.ones(2, requires_grad=True)
        (x * 3).sum().backward()  # the engine runs on the calling thread either way
        assert x.grad.tolist() == [3.0, 3.0]
    assert ENGINE.multithreading
    switch = set_multithreading_enabled(False)  # takes effect when made, as in torch
    assert not ENGINE.multithreading and switch.clone().mode is False
    set_multithreading_enabled(True)
    assert ENGINE.multithreading


def test_engine_switches_as_decorators_match_torch():
    torch = pytest.importorskip("torch")
    results = []
    for lib, state in ((torch, lambda: (torch._C._is_multithreading_enabled(),
                                        torch._C._is_grad_layout_enforcement_enabled())),
                       (tensorlib, lambda: (ENGINE.multithreading, ENGINE.grad_layout))):
        rows = []

        @lib.autograd.enforce_grad_layout_policy(False)
        def relaxed():
            return state()

        rows.append(state())
        rows.append(relaxed())
        rows.append(state())
        with lib.autograd.enforce_grad_layout_policy(False):
            rows.append(state())
        rows.append(state())

        @lib.autograd.set_multithreading_enabled(False)
        def single():
            return state()

        rows.append(single())
        rows.append(state())  # the decorator leaves the mode it set (torch's behaviour)
        lib.autograd.set_multithreading_enabled(True)
        rows.append(state())
        results.append(rows)
    assert results[0] == results[1]


def _channels_last_leaf():
    conv = tensorlib.nn.Conv2d(5, 3, (4, 5))
    tensorlib.nn.utils.convert_conv2d_weight_memory_format(conv, tensorlib.channels_last)
    return conv.weight


def test_gradients_take_the_layout_of_a_dense_leaf():
    w = _channels_last_leaf()
    assert w.is_contiguous(memory_format=tensorlib.channels_last)
    (w * 2).sum().backward()
    assert w.grad.stride() == w.stride() and w.grad.is_contiguous(memory_format=tensorlib.channels_last)
    assert (w.grad == 2).all()
    w.grad = None
    with enforce_grad_layout_policy(False):
        (w * 2).sum().backward()
        assert w.grad.is_contiguous() and not w.grad.is_contiguous(memory_format=tensorlib.channels_last)
    assert ENGINE.grad_layout


def test_gradient_layout_matches_torch():
    torch = pytest.importorskip("torch")
    data = np.random.default_rng(1).standard_normal((2, 3, 4, 5))
    strides = []
    for lib in (torch, tensorlib):
        conv = lib.nn.Conv2d(3, 2, 1)
        lib.nn.utils.convert_conv2d_weight_memory_format(conv, lib.channels_last)
        conv(lib.tensor(data, dtype=lib.float32)).sum().backward()
        strides.append((tuple(conv.weight.stride()), tuple(conv.weight.grad.stride())))
    assert strides[0] == strides[1]


def test_grad_mode_and_variable_names():
    assert autograd.grad_mode.no_grad is tensorlib.no_grad
    assert autograd.grad_mode.set_multithreading_enabled is set_multithreading_enabled
    assert autograd.grad_mode.enforce_grad_layout_policy is enforce_grad_layout_policy
    assert sys.modules["tensorlib.autograd.variable"].Variable is autograd.Variable
    with pytest.raises(RuntimeError, match=r"tensorlib.autograd.variable\(...\) is deprecated, use tensorlib.tensor"):
        autograd.variable(tensorlib.ones(1))


def test_variable_function_matches_torch():
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError) as theirs:
        torch.autograd.variable(torch.ones(1))
    with pytest.raises(RuntimeError) as ours:
        autograd.variable(tensorlib.ones(1))
    assert str(ours.value).replace("tensorlib.", "torch.") == str(theirs.value)
    assert callable(torch.autograd.variable) and callable(autograd.variable)
    assert sorted(n for n in dir(torch.autograd.grad_mode) if not n.startswith("_") and n not in ("Any", "F", "torch")) \
        == sorted(autograd.grad_mode.__all__)
