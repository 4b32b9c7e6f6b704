"""Tensor properties and the methods that are not ops: metadata, conversions, autograd fields."""

from __future__ import annotations

import copy
import pickle
import warnings

import numpy as np
import pytest

import tensorlib

from tests.helpers import assert_close


def test_shape_size_dim_numel():
    t = tensorlib.zeros(2, 3, 4)
    assert t.shape == (2, 3, 4)
    assert type(t.shape) is tensorlib.Size
    assert t.size() == t.shape and type(t.size()) is tensorlib.Size
    assert [t.size(d) for d in range(3)] == [2, 3, 4]
    assert [t.size(d) for d in (-1, -2, -3)] == [4, 3, 2]
    assert t.dim() == t.ndim == 3
    assert t.numel() == 24
    assert tensorlib.tensor(5.0).dim() == 0
    assert tensorlib.tensor(5.0).numel() == 1
    assert tensorlib.tensor(5.0).shape == ()


@pytest.mark.parametrize("dim", [3, -4, 10])
def test_size_out_of_range_is_index_error(dim):
    t = tensorlib.zeros(2, 3, 4)
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-3, 2\]"):
        t.size(dim)


def test_size_with_non_int_dim_is_type_error():
    with pytest.raises(TypeError):
        tensorlib.zeros(2).size("0")
    with pytest.raises(TypeError):
        tensorlib.zeros(2).size(0.0)


def test_dtype_device():
    t = tensorlib.ones(2)
    assert t.dtype is tensorlib.float32
    assert t.device == tensorlib.device("cpu")
    assert t.device != "cpu"  # as in torch: a device never equals a string
    assert str(t.device) == "cpu"
    assert repr(t.device) == "device(type='cpu')"
    assert t.to("cpu") is t
    with pytest.raises(AssertionError, match="CUDA"):
        t.to("cuda")


def test_item():
    assert tensorlib.tensor(3.5).item() == 3.5
    assert type(tensorlib.tensor(3.5).item()) is float
    assert tensorlib.tensor([[7]]).item() == 7
    assert type(tensorlib.tensor([[7]]).item()) is int
    assert tensorlib.tensor(True).item() is True
    with pytest.raises(RuntimeError, match="a Tensor with 4 elements cannot be converted to Scalar"):
        tensorlib.zeros(2, 2).item()
    with pytest.raises(RuntimeError, match="0 elements"):
        tensorlib.zeros(0).item()


def test_tolist():
    assert tensorlib.tensor([[1, 2], [3, 4]]).tolist() == [[1, 2], [3, 4]]
    assert tensorlib.tensor(2.5).tolist() == 2.5
    out = tensorlib.tensor([1.5, 2.0]).tolist()
    assert all(type(v) is float for v in out)
    assert tensorlib.tensor([True, False]).tolist() == [True, False]


def test_numpy_shares_memory_and_asarray():
    t = tensorlib.tensor([1.0, 2.0, 3.0])
    a = t.numpy()
    assert isinstance(a, np.ndarray) and a.dtype == np.float32
    a[0] = 10.0
    assert t[0].item() == 10.0
    b = np.asarray(t)
    assert np.shares_memory(a, b)
    assert np.asarray(t, dtype=np.float64).dtype == np.float64
    assert np.array_equal(np.asarray(t), [10.0, 2.0, 3.0])


def test_numpy_on_tensor_requiring_grad_is_runtime_error():
    t = tensorlib.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match=r"Can't call numpy\(\) on Tensor that requires grad"):
        t.numpy()
    with pytest.raises(RuntimeError, match="requires grad"):
        np.asarray(t)
    with pytest.raises(RuntimeError, match="requires grad"):
        (t * 2).numpy()
    # the supported ways out
    assert np.array_equal(t.detach().numpy(), [1.0, 2.0])
    assert np.array_equal(t.numpy(force=True), [1.0, 2.0])


@pytest.mark.parametrize(
    "method, dtype",
    [("double", "float64"), ("float", "float32"), ("long", "int64"), ("int", "int32"), ("half", "float16"),
     ("bool", "bool"), ("short", "int16"), ("char", "int8"), ("byte", "uint8"), ("cfloat", "complex64"),
     ("cdouble", "complex128")],
)
def test_cast_methods(method, dtype):
    t = tensorlib.tensor([0.0, 1.5, -2.5])
    out = getattr(t, method)()
    assert out.dtype is getattr(tensorlib, dtype)
    assert np.array_equal(out.numpy(), t.numpy().astype(out.dtype.np))
    # the source is untouched
    assert t.dtype is tensorlib.float32


def test_shape_and_dtype_from_another_tensor():
    t = tensorlib.arange(6.0)
    other = tensorlib.zeros(2, 3, dtype=tensorlib.int64)
    view = t.view_as(other)
    assert view.shape == (2, 3) and view._base is t
    assert t.reshape_as(other).shape == (2, 3)
    cast = t.type_as(other)
    assert cast.dtype is tensorlib.int64 and cast.tolist() == [0, 1, 2, 3, 4, 5]
    with pytest.raises(RuntimeError):
        t.view_as(tensorlib.zeros(4))


def test_apply_calls_a_python_function_per_element_in_place():
    t = tensorlib.tensor([[1.0, -2.0], [3.0, 4.0]])
    version = t._version
    assert t.apply_(lambda v: v * 10 + 1) is t
    assert t.tolist() == [[11.0, -19.0], [31.0, 41.0]]
    assert t._version > version
    leaf = tensorlib.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        leaf.apply_(abs)


def test_random_methods_draw_from_the_global_generator():
    tensorlib.manual_seed(3)
    p = tensorlib.full((1000,), 0.25)
    b = p.bernoulli()
    assert set(b.unique().tolist()) <= {0.0, 1.0} and 150 < b.sum().item() < 350
    z = tensorlib.zeros(1000)
    assert z.bernoulli_(0.75) is z and 650 < z.sum().item() < 850
    e = tensorlib.empty(2000).exponential_(2.0)
    assert e.min().item() >= 0 and abs(e.mean().item() - 0.5) < 0.05
    r = tensorlib.empty(500, dtype=tensorlib.int64).random_(3, 7)
    assert set(r.unique().tolist()) == {3, 4, 5, 6}
    weights = tensorlib.tensor([0.0, 1.0, 3.0])
    draws = weights.multinomial(400, replacement=True)
    counts = tensorlib.bincount(draws, minlength=3).tolist()
    assert counts[0] == 0 and 60 < counts[1] < 140
    tensorlib.manual_seed(3)
    assert tensorlib.equal(p.bernoulli(), b)


def test_to_dtype():
    t = tensorlib.tensor([1.7, -2.2])
    assert t.to(tensorlib.float32) is t  # no copy when nothing changes, as torch
    c = t.to(tensorlib.float32, copy=True)
    assert c is not t and not np.shares_memory(c.numpy(), t.numpy())
    assert t.to(tensorlib.int64).tolist() == [1, -2]
    assert t.to(dtype=tensorlib.float64).dtype is tensorlib.float64
    assert t.to(tensorlib.zeros(1, dtype=tensorlib.int32)).dtype is tensorlib.int32
    assert t.to("cpu", tensorlib.float64).dtype is tensorlib.float64
    with pytest.raises(RuntimeError, match="accelerator"):  # an int is a device index, as in torch
        t.to(5)
    with pytest.raises(TypeError):
        t.to(5.0)


def test_to_is_differentiable():
    x = tensorlib.tensor([1.0, 2.0], requires_grad=True)
    y = x.to(tensorlib.float64)
    assert y.requires_grad and y.grad_fn is not None
    (y * y).sum().backward()
    assert x.grad.dtype is tensorlib.float32
    assert_close(x.grad, [2.0, 4.0])
    # casting to an integer type leaves the graph
    assert not x.long().requires_grad


def test_clone_copies_and_records():
    x = tensorlib.tensor([1.0, 2.0], requires_grad=True)
    c = x.clone()
    assert not np.shares_memory(c.detach().numpy(), x.detach().numpy())
    assert c.requires_grad and not c.is_leaf
    (c * 3).sum().backward()
    assert_close(x.grad, [3.0, 3.0])
    plain = tensorlib.tensor([1, 2])
    cp = plain.clone()
    cp[0] = 5
    assert plain.tolist() == [1, 2]


def test_detach_shares_data_and_version():
    x = tensorlib.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    d = y.detach()
    assert not d.requires_grad and d.is_leaf and d.grad_fn is None
    d[0] = 100.0
    assert y[0].item() == 100.0
    # the shared version counter lets autograd see the change through the detached alias
    z = x.exp()  # exp saves its result for backward
    z.detach().zero_()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


def test_detach_inplace():
    x = tensorlib.tensor([1.0], requires_grad=True)
    y = x * 2
    assert y.detach_() is y
    assert y.is_leaf and not y.requires_grad


def test_requires_grad_flag():
    t = tensorlib.tensor([1.0, 2.0])
    assert t.requires_grad is False
    assert t.requires_grad_() is t
    assert t.requires_grad is True
    t.requires_grad = False
    assert t.requires_grad is False
    t.requires_grad_(True)
    y = t * 2
    assert y.requires_grad
    with pytest.raises(RuntimeError, match="you can only change requires_grad flags of leaf variables"):
        y.requires_grad_(False)
    with pytest.raises(RuntimeError, match="you can only change requires_grad flags of leaf variables"):
        y.requires_grad = False
    assert y.requires_grad


def test_requires_grad_needs_float_and_bool():
    with pytest.raises(RuntimeError, match="floating point and complex dtype can require gradients"):
        tensorlib.tensor([1, 2]).requires_grad_()
    with pytest.raises(RuntimeError, match="floating point and complex dtype can require gradients"):
        tensorlib.tensor([1, 2], requires_grad=True)
    t = tensorlib.tensor([1, 2])
    with pytest.raises(RuntimeError):
        t.requires_grad = True
    assert not t.requires_grad
    with pytest.raises(TypeError):
        tensorlib.ones(1).requires_grad_("yes")
    assert tensorlib.tensor([1j], requires_grad=True).requires_grad


def test_grad_is_settable_and_validated():
    x = tensorlib.tensor([1.0, 2.0], requires_grad=True)
    assert x.grad is None
    g = tensorlib.tensor([0.5, 0.5])
    x.grad = g
    assert x.grad is g
    x.grad = None
    assert x.grad is None
    with pytest.raises(RuntimeError, match="different size"):
        x.grad = tensorlib.zeros(3)
    with pytest.raises(RuntimeError, match="different type"):
        x.grad = tensorlib.zeros(2, dtype=tensorlib.float64)
    with pytest.raises(TypeError, match="expected to be a Tensor or None"):
        x.grad = [1.0, 2.0]
    assert x.grad is None  # nothing stuck after the failures
    # a set gradient is accumulated into by backward
    x.grad = tensorlib.tensor([1.0, 1.0])
    (x * 3).sum().backward()
    assert_close(x.grad, [4.0, 4.0])


def test_grad_fn_and_is_leaf():
    x = tensorlib.tensor([1.0], requires_grad=True)
    c = tensorlib.tensor([1.0])
    assert x.is_leaf and c.is_leaf and x.grad_fn is None
    y = x * 2
    assert not y.is_leaf
    assert type(y.grad_fn).__name__ == "MulBackward0"
    assert (c * 2).is_leaf  # no input requires grad: nothing recorded
    with tensorlib.no_grad():
        assert (x * 2).is_leaf


def test_grad_of_non_leaf_warns():
    x = tensorlib.tensor([1.0], requires_grad=True)
    y = x * 2
    with pytest.warns(UserWarning, match="not a leaf Tensor"):
        assert y.grad is None
    y.retain_grad()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert y.grad is None


def test_data_get_and_set():
    x = tensorlib.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    d = y.data
    assert not d.requires_grad and d.is_leaf
    d[0] = 7.0  # writes through, untracked
    assert y[0].item() == 7.0
    x.data = tensorlib.tensor([5.0, 6.0, 7.0])
    assert x.requires_grad and x.is_leaf
    assert x.shape == (3,)
    (x * x).sum().backward()
    assert_close(x.grad, [10.0, 12.0, 14.0])
    with pytest.raises(TypeError, match="Variable data has to be a tensor"):
        x.data = [1.0]
    with pytest.raises(RuntimeError, match="must be floating point"):
        x.data = tensorlib.tensor([1, 2])
    assert x.dtype is tensorlib.float32


def test_data_inplace_on_parameter_like_leaf_is_allowed():
    w = tensorlib.zeros(3, requires_grad=True)
    w.data.uniform_(-0.1, 0.1)
    assert w.requires_grad and w.is_leaf
    assert np.all(np.abs(w.detach().numpy()) <= 0.1)
    assert np.any(w.detach().numpy() != 0)


def test_python_number_conversions():
    assert int(tensorlib.tensor(2.7)) == 2
    assert float(tensorlib.tensor([3])) == 3.0
    assert bool(tensorlib.tensor([1])) is True
    assert complex(tensorlib.tensor(1.0)) == 1 + 0j
    assert [10, 20, 30][tensorlib.tensor(1)] == 20
    with pytest.raises(RuntimeError, match="more than one value is ambiguous"):
        bool(tensorlib.tensor([1, 2]))
    with pytest.raises(ValueError, match="only one element tensors"):
        float(tensorlib.tensor([1.0, 2.0]))
    with pytest.raises(TypeError):
        [1, 2][tensorlib.tensor(1.0)]


def test_len_and_iteration():
    t = tensorlib.tensor([[1, 2], [3, 4], [5, 6]])
    assert len(t) == 3
    rows = list(t)
    assert [r.tolist() for r in rows] == [[1, 2], [3, 4], [5, 6]]
    with pytest.raises(TypeError, match="0-d tensor"):
        len(tensorlib.tensor(1))
    with pytest.raises(TypeError, match="0-d tensor"):
        iter(tensorlib.tensor(1))


def test_deepcopy_and_pickle_of_leaves():
    x = tensorlib.tensor([1.0, 2.0], requires_grad=True)
    (x * 2).sum().backward()
    c = copy.deepcopy(x)
    assert c.requires_grad and c is not x
    assert_close(c.grad, x.grad)
    c.detach()[0] = 9.0
    assert x[0].item() == 1.0
    p = pickle.loads(pickle.dumps(x))
    assert p.requires_grad and p.tolist() == [1.0, 2.0]
    with pytest.raises(RuntimeError, match="graph leaves"):
        copy.deepcopy(x * 2)


def test_type_method():
    t = tensorlib.ones(2)
    assert t.type() == "tensorlib.FloatTensor"
    assert tensorlib.ones(2, dtype=tensorlib.int64).type() == "tensorlib.LongTensor"
    assert t.type(tensorlib.float64).dtype is tensorlib.float64
    assert t.type("tensorlib.IntTensor").dtype is tensorlib.int32
    with pytest.raises(ValueError, match="invalid type"):
        t.type("tensorlib.NoSuchTensor")


def test_type_names_match_torch():
    torch = pytest.importorskip("torch")
    for name in ("float32", "float64", "float16", "int64", "int32", "int8", "uint8", "bool"):
        a = tensorlib.zeros(1, dtype=getattr(tensorlib, name)).type()
        b = torch.zeros(1, dtype=getattr(torch, name)).type()
        assert a == b.replace("torch.", "tensorlib.")


def test_is_floating_point_and_complex():
    assert tensorlib.ones(1).is_floating_point()
    assert not tensorlib.ones(1, dtype=tensorlib.int64).is_floating_point()
    assert tensorlib.tensor([1j]).is_complex()
    assert tensorlib.is_floating_point(tensorlib.ones(1, dtype=tensorlib.float16))


def _creation_paths():
    leaf = tensorlib.randn(3, 3, requires_grad=True)
    other = tensorlib.randn(3, 3)

    class Sub(tensorlib.Tensor):
        pass

    return {
        "factory": tensorlib.zeros(2),
        "tensor()": tensorlib.tensor([1.0]),
        "legacy Tensor(2, 3)": tensorlib.Tensor(2, 3),
        "plain op": other + other,
        "recorded binary op": leaf * other,
        "recorded unary op": leaf.exp(),
        "recorded 3-input op": tensorlib.where(other > 0, leaf, other),
        "view": other.t(),
        "recorded view": leaf.t(),
        "index view": leaf[1],
        "Parameter": tensorlib.nn.Parameter(other),
        "subclass": other.as_subclass(Sub),
        "subclass result": other.as_subclass(Sub) + 1,
        "clone": leaf.clone(),
        "detach": leaf.detach(),
        "deepcopy": __import__("copy").deepcopy(leaf),
    }


@pytest.mark.parametrize("path", list(_creation_paths()))
def test_every_creation_path_sets_every_tensor_slot(path):
    # The autograd fields are slots without class defaults: a path that
    # forgets one would raise AttributeError far from where it went wrong.
    t = _creation_paths()[path]
    for slot in tensorlib.Tensor.__slots__:
        if slot not in ("__dict__", "__weakref__"):
            getattr(t, slot)
    assert t.is_leaf == (t.grad_fn is None)
