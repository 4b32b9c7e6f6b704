"""Layouts: ``tensorlib.strided`` and the sparse layouts' names, the ``is_sparse``-style flags, ``layout=`` arguments."""

from __future__ import annotations

import copy
import pickle

import pytest

import tensorlib
from tests.parity.differential import differential

LAYOUT_NAMES = ("strided", "sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc", "jagged")


def test_layout_constants():
    t = tensorlib.ones(2)
    assert t.layout is tensorlib.strided
    assert repr(tensorlib.strided) == "tensorlib.strided" and str(tensorlib.sparse_coo) == "tensorlib.sparse_coo"
    for name in LAYOUT_NAMES:
        layout = getattr(tensorlib, name)
        assert isinstance(layout, tensorlib.layout)
        assert pickle.loads(pickle.dumps(layout)) is layout
        assert copy.deepcopy(layout) is layout and copy.copy(layout) is layout
    with pytest.raises(TypeError, match="cannot create 'tensorlib.layout' instances"):
        tensorlib.layout()
    with pytest.raises(AttributeError, match="read-only"):
        tensorlib.strided._name = "x"


@differential
def test_dense_tensor_flags(torch, rec):
    t = torch.ones(2, 3)
    for flag in ("is_sparse", "is_sparse_csr", "is_quantized", "is_meta", "is_mkldnn", "is_nested"):
        rec(getattr(t, flag), False)
    rec(t.layout == torch.strided, True)
    rec(t.layout == torch.sparse_coo, False)
    rec(str(t.layout), "tensorlib.strided")


@differential
def test_layout_arguments(torch, rec):
    rec(torch.zeros(2, layout=torch.strided), [0.0, 0.0])
    rec(torch.ones(2).new_zeros((2, 1), layout=torch.strided).shape, (2, 1))
    rec(torch.arange(3, layout=torch.strided), [0, 1, 2])
    for factory in (lambda: torch.zeros(2, layout="strided"), lambda: torch.ones(2).new_ones(2, layout=3)):
        rec.raises(TypeError, factory, match="argument 'layout' must be tensorlib.layout")


def test_unsupported_layouts_and_pinning_are_clear_errors():
    with pytest.raises(RuntimeError, match=r"zeros\(\): tensorlib stores every tensor strided; layout=tensorlib.sparse_coo"):
        tensorlib.zeros(2, layout=tensorlib.sparse_coo)
    with pytest.raises(RuntimeError, match=r"new_empty\(\).*sparse_csr"):
        tensorlib.ones(1).new_empty(2, layout=tensorlib.sparse_csr)
    with pytest.raises(RuntimeError, match=r"new_full\(\): pin_memory=True needs an accelerator"):
        tensorlib.ones(1).new_full((2,), 3.0, pin_memory=True)


@differential
def test_strides_of_empty_tensors(torch, rec):
    for shape in [(2, 0, 3), (0,), (3, 0), (0, 2, 5), (1, 4)]:
        rec(torch.zeros(shape).stride())
    rec(torch.zeros(0, 4).stride(1))
