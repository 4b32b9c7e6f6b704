"""Construction: tensor/as_tensor/from_numpy, factories, *_like, random numbers and the legacy Tensor(...)."""

from __future__ import annotations

import numpy as np
import pytest

import tensorlib


def test_tensor_infers_dtype_and_copies():
    src = [[1.0, 2.0], [3.0, 4.0]]
    t = tensorlib.tensor(src)
    assert t.dtype is tensorlib.float32 and t.shape == (2, 2)
    assert t.tolist() == src
    assert tensorlib.tensor([1, 2]).dtype is tensorlib.int64
    assert tensorlib.tensor([1, 2.5]).dtype is tensorlib.float32
    assert tensorlib.tensor([True, False]).dtype is tensorlib.bool
    assert tensorlib.tensor(3).shape == ()
    arr = np.arange(3.0)
    t = tensorlib.tensor(arr)
    assert t.dtype is tensorlib.float64  # NumPy dtypes are kept
    arr[0] = 9.0
    assert t[0].item() == 0.0  # tensor() copies


def test_tensor_dtype_and_requires_grad_arguments():
    t = tensorlib.tensor([1, 2], dtype=tensorlib.float64, requires_grad=True)
    assert t.dtype is tensorlib.float64 and t.requires_grad and t.is_leaf
    assert tensorlib.tensor([1.9, -1.9], dtype=tensorlib.int32).tolist() == [1, -1]


def test_tensor_bad_input():
    with pytest.raises(ValueError, match="expected sequence of length 2 at dim 1"):
        tensorlib.tensor([[1, 2], [3]])
    with pytest.raises(TypeError):
        tensorlib.tensor("abc")
    with pytest.raises(TypeError, match="dtype"):
        tensorlib.tensor([1, 2], dtype="float")
    with pytest.raises(RuntimeError, match="floating point"):
        tensorlib.tensor([1, 2], requires_grad=True)


def test_tensor_bad_input_errors_match_torch_types():
    torch = pytest.importorskip("torch")
    for bad in ([[1, 2], [3]], "abc", [1, "a"]):
        with pytest.raises(Exception) as want:
            torch.tensor(bad)
        with pytest.raises(want.type):
            tensorlib.tensor(bad)


def test_tensor_from_tensors_of_one_element():
    t = tensorlib.tensor([tensorlib.tensor(1.0), tensorlib.tensor(2.0)])
    assert t.tolist() == [1.0, 2.0]


def test_as_tensor_shares_when_it_can():
    arr = np.arange(4.0)
    t = tensorlib.as_tensor(arr)
    arr[1] = 42.0
    assert t[1].item() == 42.0
    converted = tensorlib.as_tensor(arr, dtype=tensorlib.float32)
    assert converted.dtype is tensorlib.float32
    arr[2] = -1.0
    assert converted[2].item() == 2.0  # a cast has to copy
    x = tensorlib.ones(2)
    assert tensorlib.as_tensor(x) is x
    assert tensorlib.as_tensor([1, 2]).dtype is tensorlib.int64


def test_from_numpy_shares_memory_both_ways():
    arr = np.arange(6.0).reshape(2, 3)
    t = tensorlib.from_numpy(arr)
    assert t.dtype is tensorlib.float64 and t.shape == (2, 3)
    arr[0, 0] = 42.0
    assert t[0, 0].item() == 42.0
    t[1, 1] = -1.0
    assert arr[1, 1] == -1.0
    assert np.shares_memory(t.numpy(), arr)
    strided = np.zeros((3, 4))[:, ::2]
    ts = tensorlib.from_numpy(strided)
    strided[0, 0] = 1.0
    assert ts[0, 0].item() == 1.0


def test_from_numpy_errors():
    with pytest.raises(TypeError, match="expected np.ndarray"):
        tensorlib.from_numpy([1, 2])
    with pytest.raises(TypeError, match="can't convert np.ndarray of type numpy.<U1"):
        tensorlib.from_numpy(np.array(["a"]))
    with pytest.raises(TypeError, match="object"):
        tensorlib.from_numpy(np.array([object()]))


@pytest.mark.parametrize(
    "factory, args, value",
    [("zeros", (2, 3), 0.0), ("ones", (2, 3), 1.0)],
)
def test_zeros_ones_size_forms(factory, args, value):
    f = getattr(tensorlib, factory)
    for t in (f(*args), f(args), f(list(args)), f(tensorlib.Size(args))):
        assert t.shape == args and t.dtype is tensorlib.float32
        assert np.all(t.numpy() == value)
    assert f(2, dtype=tensorlib.int32).dtype is tensorlib.int32
    assert f(2, requires_grad=True).requires_grad
    assert f(()).shape == ()
    assert f(0, 3).shape == (0, 3)


def test_empty_full_eye():
    assert tensorlib.empty(2, 3).shape == (2, 3)
    assert tensorlib.empty(2, dtype=tensorlib.int64).dtype is tensorlib.int64
    f = tensorlib.full((2, 2), 7)
    assert f.dtype is tensorlib.int64 and f.tolist() == [[7, 7], [7, 7]]
    assert tensorlib.full((2,), 7.5).dtype is tensorlib.float32
    assert tensorlib.full((2,), True).dtype is tensorlib.bool
    assert np.array_equal(tensorlib.eye(3).numpy(), np.eye(3, dtype=np.float32))
    assert np.array_equal(tensorlib.eye(2, 3).numpy(), np.eye(2, 3, dtype=np.float32))


def test_arange_linspace():
    assert tensorlib.arange(5).tolist() == [0, 1, 2, 3, 4]
    assert tensorlib.arange(5).dtype is tensorlib.int64
    assert tensorlib.arange(1, 4, 0.5).tolist() == [1.0, 1.5, 2.0, 2.5, 3.0, 3.5]
    assert tensorlib.arange(1, 4, 0.5).dtype is tensorlib.float32
    assert tensorlib.arange(0, 1, 0.1).shape == (10,)
    assert tensorlib.arange(3, dtype=tensorlib.float64).dtype is tensorlib.float64
    np.testing.assert_allclose(tensorlib.linspace(0, 1, 5).numpy(), [0, 0.25, 0.5, 0.75, 1.0])
    assert tensorlib.linspace(-1, 1, 1).tolist() == [-1.0]


def test_factories_match_torch():
    torch = pytest.importorskip("torch")
    cases = [
        ("arange", (10,), {}), ("arange", (1, 4, 0.5), {}), ("arange", (0, 1, 0.1), {}), ("arange", (-3, 3, 2), {}),
        ("arange", (0.5, 2.7), {}), ("linspace", (0, 1, 7), {}), ("linspace", (-2.5, 10, 4), {}),
        ("eye", (3, 5), {}), ("full", ((2, 3), 1.5), {}), ("zeros", (2, 3), {}), ("ones", (4,), {}),
    ]
    for name, args, kwargs in cases:
        a = getattr(tensorlib, name)(*args, **kwargs)
        b = getattr(torch, name)(*args, **kwargs)
        assert repr(a.dtype) == repr(b.dtype).replace("torch.", "tensorlib."), (name, args)
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6, atol=1e-7, err_msg=f"{name}{args}")


def test_factory_errors():
    with pytest.raises(RuntimeError, match="negative dimension|non-negative"):
        tensorlib.zeros(-1)
    with pytest.raises(TypeError, match="tuple of ints"):
        tensorlib.zeros(2.5)
    with pytest.raises(TypeError, match="tuple of ints"):
        tensorlib.ones("a")
    with pytest.raises(RuntimeError, match="step"):
        tensorlib.arange(0, 5, 0)
    with pytest.raises(RuntimeError, match="inconsistent with step sign"):
        tensorlib.arange(5, 0, 1)
    with pytest.raises(RuntimeError, match="number of steps must be non-negative"):
        tensorlib.linspace(0, 1, -1)
    with pytest.raises(RuntimeError, match="from"):
        tensorlib.randint(5, 2, (2,))
    with pytest.raises(RuntimeError, match="floating point"):
        tensorlib.zeros(2, dtype=tensorlib.int64, requires_grad=True)


def test_like_factories():
    src = tensorlib.ones(2, 3, dtype=tensorlib.int8)
    z = tensorlib.zeros_like(src)
    assert z.shape == (2, 3) and z.dtype is tensorlib.int8 and np.all(z.numpy() == 0)
    o = tensorlib.ones_like(src, dtype=tensorlib.float64)
    assert o.dtype is tensorlib.float64 and np.all(o.numpy() == 1)
    f = tensorlib.full_like(tensorlib.ones(2), 3)
    assert f.dtype is tensorlib.float32 and f.tolist() == [3.0, 3.0]
    assert tensorlib.full_like(tensorlib.ones(2, dtype=tensorlib.int64), 3.7).tolist() == [3, 3]
    assert tensorlib.empty_like(src).shape == (2, 3)
    r = tensorlib.rand_like(tensorlib.ones(100, dtype=tensorlib.float64))
    assert r.dtype is tensorlib.float64 and 0 <= r.min().item() and r.max().item() < 1
    assert tensorlib.randn_like(tensorlib.ones(3, 2)).shape == (3, 2)
    ri = tensorlib.randint_like(tensorlib.ones(50), 5)
    assert ri.dtype is tensorlib.float32 and set(ri.tolist()) <= {0.0, 1.0, 2.0, 3.0, 4.0}
    # *_like results are new leaves, whatever the source
    x = tensorlib.ones(2, requires_grad=True)
    assert not tensorlib.zeros_like(x).requires_grad
    assert tensorlib.zeros_like(x, requires_grad=True).requires_grad


def test_random_factories_ranges_and_dtypes():
    r = tensorlib.rand(1000)
    assert r.dtype is tensorlib.float32
    assert 0.0 <= r.min().item() and r.max().item() < 1.0
    n = tensorlib.randn(20000, dtype=tensorlib.float64)
    assert abs(n.mean().item()) < 0.05 and abs(n.std().item() - 1.0) < 0.05
    i = tensorlib.randint(3, 7, (1000,))
    assert i.dtype is tensorlib.int64
    assert set(i.tolist()) == {3, 4, 5, 6}
    assert tensorlib.randint(5, (2, 2)).shape == (2, 2)
    assert tensorlib.randn(2, 3).shape == (2, 3) and tensorlib.randn((2, 3)).shape == (2, 3)
    assert tensorlib.randn(2, requires_grad=True).requires_grad


def test_manual_seed_reproducibility():
    tensorlib.manual_seed(123)
    a = (tensorlib.randn(5), tensorlib.rand(3), tensorlib.randint(0, 100, (4,)), tensorlib.empty(3).uniform_(-2, 2),
         tensorlib.empty(3).normal_(1, 3))
    tensorlib.manual_seed(123)
    b = (tensorlib.randn(5), tensorlib.rand(3), tensorlib.randint(0, 100, (4,)), tensorlib.empty(3).uniform_(-2, 2),
         tensorlib.empty(3).normal_(1, 3))
    for x, y in zip(a, b):
        assert np.array_equal(x.numpy(), y.numpy())
    tensorlib.manual_seed(124)
    assert not np.array_equal(tensorlib.randn(5).numpy(), a[0].numpy())
    assert tensorlib.initial_seed() == 124


def test_rng_state_roundtrip_and_generators():
    state = tensorlib.get_rng_state()
    x = tensorlib.randn(4)
    tensorlib.set_rng_state(state)
    assert np.array_equal(tensorlib.randn(4).numpy(), x.numpy())
    g1 = tensorlib.Generator().manual_seed(7)
    g2 = tensorlib.Generator().manual_seed(7)
    assert np.array_equal(tensorlib.randn(3, generator=g1).numpy(), tensorlib.randn(3, generator=g2).numpy())
    with pytest.raises(TypeError):
        tensorlib.manual_seed("a")


def test_uniform_and_normal_fill_in_place():
    t = tensorlib.empty(5000)
    assert t.uniform_(-2, 3) is t
    a = t.numpy()
    assert a.min() >= -2 and a.max() < 3 and abs(a.mean() - 0.5) < 0.1
    assert t.normal_(4, 0.5) is t
    assert abs(t.mean().item() - 4) < 0.05 and abs(t.std().item() - 0.5) < 0.05


def test_legacy_tensor_constructor():
    t = tensorlib.Tensor(2, 3)
    assert t.shape == (2, 3) and t.dtype is tensorlib.float32 and not t.requires_grad
    v = tensorlib.Tensor([2])
    assert v.tolist() == [2.0] and v.dtype is tensorlib.float32
    assert tensorlib.Tensor([[1, 2], [3, 4]]).tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert tensorlib.Tensor((2, 3)).tolist() == [2.0, 3.0]  # a tuple is data, as torch
    assert tensorlib.Tensor(tensorlib.Size([2, 3])).shape == (2, 3)
    assert tensorlib.Tensor().shape == (0,)
    assert tensorlib.Tensor(np.array([1, 2])).dtype is tensorlib.float32
    assert isinstance(tensorlib.Tensor(1), tensorlib.Tensor)
    # seed 004: x = Tensor([2]).squeeze().double()
    x = tensorlib.Tensor([2]).squeeze().double()
    assert x.shape == () and x.dtype is tensorlib.float64 and x.item() == 2.0


def test_legacy_tensor_constructor_errors():
    with pytest.raises(TypeError, match=r"data must be a sequence \(got float\)"):  # torch's messages
        tensorlib.Tensor(2.5)
    with pytest.raises(TypeError, match="invalid data type 'str'"):
        tensorlib.Tensor("a")
    with pytest.raises(TypeError, match="must be tuple of ints"):
        tensorlib.Tensor(2, 2.5)
    with pytest.raises(RuntimeError, match="negative dimension"):
        tensorlib.Tensor(-1)
    with pytest.raises(TypeError, match="unexpected keyword"):
        tensorlib.Tensor(2, foo=1)


def test_arange_reads_bools_as_numbers():
    # as torch: a Python bool (or a bool tensor's value) is an int, NumPy's bool a float
    assert tensorlib.arange(True).tolist() == [0] and tensorlib.arange(True).dtype is tensorlib.int64
    assert tensorlib.arange(False).shape == (0,)
    assert tensorlib.arange(0, 5, True).tolist() == [0, 1, 2, 3, 4]
    assert tensorlib.arange(tensorlib.tensor(True)).dtype is tensorlib.int64
    assert tensorlib.arange(np.bool_(True)).dtype is tensorlib.float32
    assert tensorlib.arange(True, 5.5).tolist() == [1.0, 2.0, 3.0, 4.0, 5.0]
    with pytest.raises(RuntimeError, match="upper bound and lower bound inconsistent with step sign"):
        tensorlib.arange(3.0, True)
    with pytest.raises(TypeError, match=r"^arange\(\): argument 'end' \(position 1\) must be Number, not str$"):
        tensorlib.arange("a")
    with pytest.raises(TypeError, match=r"^arange\(\): argument 'end' must be Number, not NoneType$"):
        tensorlib.arange(0, 1, None)


_TEXT_DATA = ['["a"]', '[["a"]]', '[1, "a"]', '["a", 1]', '[b"a"]', '[[1], ["a"]]', '("ab",)', '[[1, 2], "ab"]',
              '[""]', '["ab", "cd"]', '[[], "a"]', '"a"', '[tensorlib.ones(2), "a"]']


@pytest.mark.parametrize("data", _TEXT_DATA)
def test_text_in_tensor_data_gets_torchs_error(data):
    # torch reads a string's first character as its first element, again and again: text that the first elements
    # lead to is "too many dimensions" (ValueError); text met later, or at the top, is an invalid data type
    value = eval(data)
    first = value
    while isinstance(first, (list, tuple)) and first:
        first = first[0]
    expected = ValueError if first is not value and isinstance(first, str) and first else TypeError
    with pytest.raises(expected) as info:
        tensorlib.tensor(value)
    kind = "bytes" if data.startswith('[b"') else "str"
    assert str(info.value) == ("too many dimensions 'str'" if expected is ValueError
                               else f"new(): invalid data type '{kind}'")
    torch = pytest.importorskip("torch")
    with pytest.raises(expected) as theirs:
        torch.tensor(eval(data.replace("tensorlib.", "torch.")))
    assert str(theirs.value) == str(info.value)


@pytest.mark.parametrize("arg", [1.5, True, 1j, None, b"a", "a", np.float64(1.5), object(), {1: 2}])
def test_legacy_constructors_reject_a_lone_argument_that_is_neither_size_nor_sequence(arg):
    name = type(arg).__name__ if type(arg).__module__ == "builtins" else f"numpy.{type(arg).__name__}"
    message = (f"new(): invalid data type '{name}'" if isinstance(arg, (str, bytes))
               else f"new(): data must be a sequence (got {name})")
    for make in (tensorlib.Tensor, tensorlib.FloatTensor):
        with pytest.raises(TypeError) as info:
            make(arg)
        assert str(info.value) == message
    assert tensorlib.Tensor(np.int64(2)).shape == (2,)  # an integer is a size, a NumPy one too
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError) as theirs:
        torch.Tensor(arg)
    assert str(theirs.value) == message
