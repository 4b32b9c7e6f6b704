"""dtypes, their aliases, the default dtype, promotion and ``tensorlib.Size``."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import tensorlib

DTYPES = {
    "float16": np.float16,
    "float32": np.float32,
    "float64": np.float64,
    "int8": np.int8,
    "int16": np.int16,
    "int32": np.int32,
    "int64": np.int64,
    "uint8": np.uint8,
    "bool": np.bool_,
    "complex64": np.complex64,
    "complex128": np.complex128,
}


@pytest.mark.parametrize("name", sorted(DTYPES))
def test_dtype_attributes_and_repr(name):
    d = getattr(tensorlib, name)
    assert isinstance(d, tensorlib.dtype)
    assert repr(d) == f"tensorlib.{name}"
    t = tensorlib.zeros(3, dtype=d)
    assert t.dtype is d
    assert t.numpy().dtype == np.dtype(DTYPES[name])
    assert d.itemsize == np.dtype(DTYPES[name]).itemsize
    assert d.is_floating_point == (name.startswith("float"))
    assert d.is_complex == (name.startswith("complex"))


@pytest.mark.parametrize(
    "alias, target",
    [("float", "float32"), ("double", "float64"), ("half", "float16"), ("long", "int64"), ("int", "int32"),
     ("short", "int16"), ("cfloat", "complex64"), ("cdouble", "complex128")],
)
def test_dtype_aliases_are_the_same_objects(alias, target):
    assert getattr(tensorlib, alias) is getattr(tensorlib, target)


def test_dtype_pickles_to_the_same_object():
    for name in DTYPES:
        d = getattr(tensorlib, name)
        assert pickle.loads(pickle.dumps(d)) is d


def test_default_dtype_is_float32_and_can_be_switched():
    assert tensorlib.get_default_dtype() is tensorlib.float32
    assert tensorlib.tensor([1.5]).dtype is tensorlib.float32
    assert tensorlib.zeros(2).dtype is tensorlib.float32
    assert tensorlib.Tensor(2).dtype is tensorlib.float32
    assert tensorlib.tensor([1, 2]).dtype is tensorlib.int64
    assert tensorlib.tensor([True]).dtype is tensorlib.bool
    tensorlib.set_default_dtype(tensorlib.float64)
    try:
        assert tensorlib.get_default_dtype() is tensorlib.float64
        for t in (tensorlib.tensor([1.5]), tensorlib.zeros(2), tensorlib.ones(1), tensorlib.randn(2), tensorlib.rand(2),
                  tensorlib.Tensor(2, 3), tensorlib.arange(0.0, 2.0), tensorlib.linspace(0, 1, 3), tensorlib.full((2,), 1.5)):
            assert t.dtype is tensorlib.float64
        assert tensorlib.tensor([1j]).dtype is tensorlib.complex128
    finally:
        tensorlib.set_default_dtype(tensorlib.float32)
    assert tensorlib.tensor([1j]).dtype is tensorlib.complex64


@pytest.mark.parametrize("bad", [tensorlib.int64, tensorlib.bool, tensorlib.complex64, "float32", np.float32])
def test_set_default_dtype_rejects_non_float(bad):
    with pytest.raises(TypeError, match="floating-point"):
        tensorlib.set_default_dtype(bad)
    assert tensorlib.get_default_dtype() is tensorlib.float32


def test_promotion_matches_torch():
    torch = pytest.importorskip("torch")
    names = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64", "complex64",
             "complex128"]
    for a in names:
        for b in names:
            got = tensorlib.promote_types(getattr(tensorlib, a), getattr(tensorlib, b))
            want = torch.promote_types(getattr(torch, a), getattr(torch, b))
            assert repr(got) == repr(want).replace("torch.", "tensorlib."), (a, b)


def test_binary_op_result_dtypes_match_torch():
    torch = pytest.importorskip("torch")
    cases = [
        (("int32", [1, 2]), 1.5),
        (("int32", [1, 2]), 3),
        (("uint8", [1, 2]), True),
        (("float16", [1, 2]), ("float64", 2.0)),  # 0-dim float64 does not promote a float16 tensor
        (("int64", [1, 2]), ("float32", 2.0)),
        (("float16", [1, 2]), ("float64", [2.0, 1.0])),
        (("bool", [True, False]), 2),
        (("int8", [1, 2]), ("uint8", [1, 2])),
    ]
    for (da, va), other in cases:
        a = tensorlib.tensor(va, dtype=getattr(tensorlib, da))
        ta = torch.tensor(va, dtype=getattr(torch, da))
        if isinstance(other, tuple):
            db, vb = other
            b, tb = tensorlib.tensor(vb, dtype=getattr(tensorlib, db)), torch.tensor(vb, dtype=getattr(torch, db))
        else:
            b = tb = other
        assert repr((a + b).dtype) == repr((ta + tb).dtype).replace("torch.", "tensorlib."), (da, other)


def test_size_is_a_tuple_with_torch_repr():
    s = tensorlib.randn(10, 4).shape
    assert type(s) is tensorlib.Size
    assert isinstance(s, tuple)
    assert repr(s) == "tensorlib.Size([10, 4])"
    assert str(s) == "tensorlib.Size([10, 4])"
    assert s == (10, 4)
    assert hash(s) == hash((10, 4))
    assert repr(tensorlib.tensor(1.0).shape) == "tensorlib.Size([])"
    assert s.numel() == 40
    assert tensorlib.Size([]).numel() == 1


def test_size_operations_keep_the_type():
    s = tensorlib.Size([2, 3])
    for r in (s[1:], s + (4,), (1,) + s, s * 2, 2 * s):
        assert type(r) is tensorlib.Size
    assert s[1:] == (3,)
    assert s + (4,) == (2, 3, 4)
    assert (1,) + s == (1, 2, 3)
    assert s * 2 == (2, 3, 2, 3)
    assert type(s[0]) is int
    assert pickle.loads(pickle.dumps(s)) == s
    assert type(pickle.loads(pickle.dumps(s))) is tensorlib.Size


def test_size_converts_index_likes_and_rejects_others():
    assert tensorlib.Size([np.int64(3), tensorlib.tensor(4)]) == (3, 4)
    for bad, kind in ((["a"], "str"), ([2.5], "float"), ([None], "NoneType"), ([tensorlib.tensor(2.5)], "Tensor")):
        with pytest.raises(TypeError, match=f"item 0 is '{kind}'"):
            tensorlib.Size(bad)


def test_size_matches_torch_behaviour():
    torch = pytest.importorskip("torch")
    for shape in ([], [0], [3], [2, 0, 5], [1, 1, 1, 7]):
        assert repr(tensorlib.Size(shape)) == repr(torch.Size(shape)).replace("torch.", "tensorlib.")
        assert tensorlib.Size(shape).numel() == torch.Size(shape).numel()
