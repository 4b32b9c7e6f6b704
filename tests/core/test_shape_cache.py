"""``shape`` and ``size()`` stay right after everything that gives a tensor new dimensions.

``Tensor.shape`` keeps the ``Size`` it returns (reading it is among the most
frequent calls); each test reads it first, so the cache is filled, then changes
the tensor and compares with the dimensions of the data itself.
"""

from __future__ import annotations

import numpy as np
import pytest

import tensorlib
from tensorlib import nn


def _dims(t):
    return tuple(np.asarray(t.detach()).shape)


def _resize_grow(t):
    t.resize_(5, 5)


def _out_resized(t):
    tensorlib.add(tensorlib.ones(2, 3), 1, out=t)


def _set_data_attribute(t):
    t.data = tensorlib.zeros(7)


CHANGES = {
    "resize_": lambda t: t.resize_(2, 8),
    "resize_ (grows)": _resize_grow,
    "set_(source)": lambda t: t.set_(tensorlib.zeros(3, 1)),
    "set_()": lambda t: t.set_(),
    "set_(source, offset, size, stride)": lambda t: t.set_(tensorlib.zeros(16), 0, (2, 2), (1, 2)),
    "as_strided_": lambda t: t.as_strided_((2, 3), (1, 2)),
    "t_": lambda t: t.t_(),
    "transpose_": lambda t: t.transpose_(0, 1),
    "unsqueeze_": lambda t: t.unsqueeze_(0),
    "squeeze_": lambda t: t.squeeze_(1),
    "swapdims_": lambda t: t.swapdims_(0, 1),
    "out= resized": _out_resized,
    ".data =": _set_data_attribute,
}


@pytest.mark.parametrize("change", list(CHANGES))
def test_shape_follows_in_place_changes(change):
    t = tensorlib.zeros(4, 1) if change == "squeeze_" else tensorlib.zeros(4, 4)
    before = t.shape
    assert before == _dims(t) and t.size() is before
    CHANGES[change](t)
    assert t.shape == _dims(t) and t.size() == _dims(t)
    assert isinstance(t.shape, tensorlib.Size)
    if _dims(t) != tuple(before):
        assert t.shape != before


def test_lazy_parameter_gets_its_shape_when_materialized():
    layer = nn.LazyLinear(3)
    layer(tensorlib.ones(2, 5))
    assert layer.weight.shape == (3, 5) == _dims(layer.weight)


def test_module_apply_that_changes_parameters_updates_their_shape():
    layer = nn.Linear(4, 2)
    assert layer.weight.shape == (2, 4)
    layer._apply(lambda p: p.reshape(-1))  # what .to(), .double(), ... run
    assert layer.weight.shape == (8,) == _dims(layer.weight)


def test_reshaping_the_callers_array_in_place_leaves_the_tensor_alone():
    # As torch: from_numpy/as_tensor share memory with the array, not the array object.
    for make in (tensorlib.from_numpy, tensorlib.as_tensor, tensorlib.asarray):
        a = np.arange(16.0).reshape(4, 4)
        t = make(a)
        assert t.shape == (4, 4)
        a.shape = (16,)
        assert t.shape == (4, 4) == _dims(t)
        a[3] = -1.0  # memory is still shared
        assert t[0, 3].item() == -1.0


def test_reshaping_an_exported_array_in_place_leaves_the_tensor_alone():
    t = tensorlib.arange(6.0).reshape(2, 3)
    assert t.shape == (2, 3)
    exported = t.numpy()
    exported.shape = (6,)
    np.asarray(t).shape = (3, 2)
    assert t.shape == (2, 3) == _dims(t)
    exported[0] = 9.0  # memory is still shared
    assert t[0, 0].item() == 9.0


def test_subclasses_and_modes_still_see_shape_reads():
    seen = []

    class Sub(tensorlib.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(func)
            return super().__torch_function__(func, types, args, kwargs or {})

    s = tensorlib.zeros(2, 3).as_subclass(Sub)
    assert s.shape == (2, 3) and s.shape == (2, 3)
    assert seen.count(tensorlib.Tensor.shape.__get__) == 2

    class Mode(tensorlib.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(("mode", func))
            return func(*args, **(kwargs or {}))

    t = tensorlib.zeros(5)
    assert t.shape == (5,)  # cached before the mode
    with Mode():
        assert t.shape == (5,)
    assert ("mode", tensorlib.Tensor.shape.__get__) in seen
