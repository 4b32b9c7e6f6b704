"""The shortcuts the common calls take (``x.T``, ``unsqueeze``, ``cat`` of one dtype, ``zeros(2, 3)``) give what
the general code gives: the same values, views that share memory, the same recorded history and gradients, and
torch's errors where the shortcut hands over to the checked path."""

from __future__ import annotations

import numpy as np
import pytest

import tensorlib
from tensorlib.autograd import gradcheck, gradgradcheck


def _strided_inputs():
    base = np.arange(60.0).reshape(3, 4, 5)
    return {
        "contiguous": base.copy(),
        "transposed": base.transpose(2, 0, 1),
        "negative strides": base[:, ::-1, ::2],
        "zero-size": np.zeros((0, 3)),
        "0-d": np.array(2.5),
        "1-d": np.arange(4.0),
    }


@pytest.mark.parametrize("name", list(_strided_inputs()))
def test_T_reverses_every_dim_as_a_view_recorded_as_a_permutation(name):
    a = _strided_inputs()[name]
    x = tensorlib.tensor(a)
    t = x.T
    np.testing.assert_array_equal(t.numpy(), a.T)
    assert t._base is x
    if a.size:  # (an empty tensor reports torch's strides, not NumPy's)
        assert t.stride() == tuple(s // a.itemsize for s in x.numpy().T.strides)
    leaf = tensorlib.tensor(a, requires_grad=True)
    out = leaf.T
    assert type(out.grad_fn).__name__ == "PermuteBackward0"
    if a.size:  # the recorded permutation sends a gradient back to leaf's layout
        g = tensorlib.tensor(np.arange(float(a.size)).reshape(a.T.shape))
        out.backward(g)
        np.testing.assert_array_equal(leaf.grad.numpy(), g.numpy().T)
    if a.size:
        assert gradcheck(lambda v: v.T * 2, (leaf,))
        assert gradgradcheck(lambda v: (v.T * v.T), (leaf,))


def test_T_warns_once_per_process_on_tensors_that_are_not_matrices():
    # as torch: .T of a 0-d tensor and of a tensor of 1 or 3+ dims is deprecated, each said once per process
    import warnings

    from tensorlib.ops import _util

    _util.WARNED.difference_update({"T-0d", "T-nd"})
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        tensorlib.ones(2, 3).T  # a matrix: no warning
        assert seen == []
        tensorlib.ones(3).T
        tensorlib.ones(2, 3, 4).T  # the same warning: not repeated
        tensorlib.ones(()).T
        tensorlib.ones(()).T
    assert [w.category for w in seen] == [UserWarning, UserWarning]
    assert str(seen[0].message).startswith("The use of `x.T` on tensors of dimension other than 2 to reverse their")
    assert str(seen[1].message) == "Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases."
    assert {w.filename for w in seen} == {__file__}  # attributed to the caller's line, not to tensorlib
    torch = pytest.importorskip("torch")
    with warnings.catch_warnings(record=True) as theirs:
        warnings.simplefilter("always")
        torch.ones(3).T
        torch.ones(()).T
    if len(theirs) == 2:  # (torch says each once per process: an earlier test may have seen them already)
        for ours, their in zip(seen, theirs):
            assert str(their.message).startswith(str(ours.message))


def test_T_writes_reach_the_tensor_it_views():
    x = tensorlib.zeros(2, 3)
    x.T[2, 1] = 5.0
    assert x[1, 2].item() == 5.0


@pytest.mark.parametrize("name", list(_strided_inputs()))
def test_unsqueeze_at_every_dim_is_a_view_like_numpys_expand_dims(name):
    a = _strided_inputs()[name]
    for d in range(-a.ndim - 1, a.ndim + 1):
        x = tensorlib.tensor(a)
        u = x.unsqueeze(d)
        want = np.expand_dims(a, d)
        np.testing.assert_array_equal(u.numpy(), want)
        assert u.shape == want.shape and u._base is x
        if a.size:
            u.fill_(3.0)  # the view writes into x
            assert (x == 3.0).all().item()
    leaf = tensorlib.tensor(a, requires_grad=True)
    assert type(leaf.unsqueeze(0).grad_fn).__name__ == "UnsqueezeBackward0"
    if a.size:
        assert gradcheck(lambda v: v.unsqueeze(-1) * 3, (leaf,))


def test_unsqueeze_rejects_a_dim_out_of_range():
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-3, 2\], but got 3\)"):
        tensorlib.zeros(2, 3).unsqueeze(3)


@pytest.mark.parametrize("dim", [0, 1, -1, -2])
def test_cat_of_one_dtype_matches_the_promoting_path(dim):
    rng = np.random.default_rng(0)
    parts = [rng.standard_normal((2, 3)), rng.standard_normal((2, 3))]
    if dim in (0, -2):
        parts.append(rng.standard_normal((4, 3)))
    else:
        parts.append(rng.standard_normal((2, 1)))
    same = tensorlib.cat([tensorlib.tensor(p) for p in parts], dim)
    np.testing.assert_array_equal(same.numpy(), np.concatenate(parts, axis=dim))
    # one float32 part: the checked path promotes; same values in float64
    mixed = tensorlib.cat([tensorlib.tensor(parts[0]).float()] + [tensorlib.tensor(p) for p in parts[1:]], dim)
    assert mixed.dtype == tensorlib.float64
    np.testing.assert_allclose(mixed.numpy(), same.numpy(), rtol=1e-6)
    leaves = [tensorlib.tensor(p, requires_grad=True) for p in parts]
    out = tensorlib.cat(leaves, dim)
    assert type(out.grad_fn).__name__ == "CatBackward0"
    assert gradcheck(lambda *v: tensorlib.cat(v, dim), tuple(leaves))


def test_cat_errors_come_from_the_checked_path():
    a, b = tensorlib.zeros(2, 3), tensorlib.zeros(2, 2)
    with pytest.raises(RuntimeError, match=r"^Sizes of tensors must match except in dimension 0\. Expected size 3 but got "
                                           r"size 2 for tensor number 1 in the list\.$"):
        tensorlib.cat([a, b])
    assert tensorlib.cat([a, b], 1).shape == (2, 5)
    with pytest.raises(RuntimeError, match="Tensors must have same number of dimensions: got 2 and 1"):
        tensorlib.cat([a, tensorlib.zeros(3)])
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"):
        tensorlib.cat([a, a], 2)
    with pytest.raises(TypeError, match="must be tuple of Tensors"):
        tensorlib.cat([a, 1.0])
    # torch skips 1-D empty tensors (backward compatibility): the checked path, here too
    assert tensorlib.cat([a, tensorlib.zeros(0)]).shape == (2, 3)
    assert tensorlib.cat([tensorlib.zeros(0), tensorlib.ones(2)]).tolist() == [1.0, 1.0]


def test_sizes_as_plain_ints_and_the_checked_cases():
    assert tensorlib.zeros(2, 3).shape == (2, 3) and tensorlib.ones((2, 3)).shape == (2, 3)
    assert tensorlib.empty([4]).shape == (4,) and tensorlib.zeros(()).shape == ()
    assert tensorlib.zeros(np.int64(2), tensorlib.tensor(3)).shape == (2, 3)  # __index__ values: the checked path
    with pytest.raises(RuntimeError, match=r"^Trying to create tensor with negative dimension -1: \[2, -1\]$"):
        tensorlib.zeros(2, -1)
    with pytest.raises(RuntimeError, match="Storage size calculation overflowed"):
        tensorlib.zeros(2**62, 4)
    with pytest.raises(TypeError, match="Overflow when unpacking long long"):
        tensorlib.zeros(2**63)
    with pytest.raises(TypeError, match="must be tuple of ints, but found element of type bool at pos 0"):
        tensorlib.zeros(True, 2)


_INF = float("inf")
_EXTREME_ROWS = [[1.0, float("nan"), 3.0, float("nan")], [2.0, 5.0, 5.0, 1.0], [-0.0, 0.0, -1.0, -0.0],
                 [0.0, -0.0, -1.0, 0.0], [_INF, 1.0, 2.0, 0.0], [-_INF, -_INF, -_INF, -_INF], [-_INF, 0.0, 1.0, 2.0]]


def test_softmax_of_a_slice_with_an_infinite_max_is_all_nan():
    # inf - inf: torch's kernel shifts by the max as it is, and the NaN reaches the whole slice through the sum
    x = tensorlib.tensor([[_INF, 1.0, 2.0], [-_INF, -_INF, -_INF], [-_INF, 0.0, 0.0]])
    for f in (tensorlib.softmax, tensorlib.log_softmax):
        r = f(x, 1).numpy()
        assert np.isnan(r[:2]).all() and not np.isnan(r[2]).any()
    np.testing.assert_allclose(tensorlib.softmax(x, 1)[2].numpy(), [0.0, 0.5, 0.5])


def test_extremes_along_a_dim_and_softmax_match_torch_on_nan_signed_zeros_and_infinities():
    torch = pytest.importorskip("torch")
    for dtype in ("float32", "float64"):
        a = tensorlib.tensor(_EXTREME_ROWS, dtype=getattr(tensorlib, dtype))
        t = torch.tensor(_EXTREME_ROWS, dtype=getattr(torch, dtype))
        for keepdim in (False, True):
            for name in ("max", "min"):
                got, want = getattr(a, name)(1, keepdim=keepdim), getattr(t, name)(1, keepdim=keepdim)
                np.testing.assert_array_equal(got.values.numpy(), want.values.numpy())
                np.testing.assert_array_equal(np.signbit(got.values.numpy()), np.signbit(want.values.numpy()))
                assert got.indices.tolist() == want.indices.tolist() and got.values.shape == tuple(want.values.shape)
            for name in ("argmax", "argmin"):
                assert getattr(a, name)(1, keepdim=keepdim).tolist() == getattr(t, name)(1, keepdim=keepdim).tolist()
        for name in ("max", "min", "argmax", "argmin"):
            got, want = getattr(a, name)(), getattr(t, name)()
            np.testing.assert_array_equal(got.numpy(), want.numpy())
        for name in ("softmax", "log_softmax"):
            np.testing.assert_allclose(getattr(tensorlib, name)(a, 1).numpy(), getattr(torch, name)(t, 1).numpy(),
                                       rtol=1e-6, equal_nan=True)
    flags = torch.tensor([[True, False], [False, False]])
    assert tensorlib.tensor(flags.tolist()).max(1).indices.tolist() == flags.max(1).indices.tolist()
    assert tensorlib.tensor(flags.tolist()).max().item() is True


def test_stack_of_views_and_mixed_dtypes_matches_numpy():
    base = np.arange(24.0).reshape(2, 3, 4)
    parts = [base[:, ::-1, 1], base[:, :, 0], np.ones((2, 3))]
    for d in range(-3, 3):
        got = tensorlib.stack([tensorlib.tensor(p) for p in parts], d)
        np.testing.assert_array_equal(got.numpy(), np.stack(parts, d))
    mixed = tensorlib.stack([tensorlib.tensor(parts[0]).float(), tensorlib.tensor(parts[1])])
    assert mixed.dtype == tensorlib.float64
    with pytest.raises(RuntimeError, match=r"stack expects each tensor to be equal size, but got \[2, 3\] at entry 0 "
                                           r"and \[3\] at entry 1"):
        tensorlib.stack([tensorlib.zeros(2, 3), tensorlib.zeros(3)])
    leaves = [tensorlib.tensor(p, requires_grad=True) for p in parts]
    assert gradcheck(lambda *v: tensorlib.stack(v, 1), tuple(leaves))


def test_permute_takes_every_order_and_refuses_wrong_lengths_and_repeats():
    import itertools

    for n in range(5):
        a = np.arange(float(np.prod(range(2, n + 2)))).reshape(tuple(range(2, n + 2)))
        x = tensorlib.tensor(a)
        for order in itertools.permutations(range(n)):
            np.testing.assert_array_equal(x.permute(order).numpy(), a.transpose(order))
            if n:  # (permute() with no dims at all is a missing argument, as in torch)
                np.testing.assert_array_equal(x.permute(*[d - n for d in order]).numpy(), a.transpose(order))
    x = tensorlib.zeros(2, 3, 4)
    with pytest.raises(RuntimeError, match="number of dimensions in the tensor input does not match"):
        x.permute(1, 0)
    with pytest.raises(RuntimeError, match="duplicate dims are not allowed"):
        x.permute(0, 0, 1)
    with pytest.raises(TypeError, match="found element of type bool at pos 0"):
        x.permute(True, False, 2)
    with pytest.raises(IndexError, match="Dimension out of range"):
        x.permute(0, 1, 3)


def test_squeeze_forms_match_numpy():
    a = np.zeros((1, 3, 1, 2))
    x = tensorlib.tensor(a)
    assert x.squeeze().shape == (3, 2) and x.squeeze(0).shape == (3, 1, 2) and x.squeeze(1).shape == (1, 3, 1, 2)
    assert x.squeeze((0, 2)).shape == (3, 2) and x.squeeze(-2).shape == (1, 3, 2)
    s = x.squeeze()
    s.fill_(4.0)  # a view
    assert (x == 4.0).all().item()
    assert type(tensorlib.zeros(1, 2, requires_grad=True).squeeze(0).grad_fn).__name__ == "SqueezeBackward1"


def test_tensor_from_python_lists_big_nested_and_mixed():
    values = [float(i) / 7 for i in range(1000)]
    t = tensorlib.tensor(values)
    assert t.dtype == tensorlib.float32 and t.shape == (1000,)
    np.testing.assert_array_equal(t.numpy(), np.array(values, dtype=np.float32))
    nested = [[i, i + 1, True] for i in range(50)]
    assert tensorlib.tensor(nested).dtype == tensorlib.int64 and tensorlib.tensor(nested).tolist() == \
        [[i, i + 1, 1] for i in range(50)]
    assert tensorlib.tensor([1, 2.5, 3j]).dtype == tensorlib.complex64
    assert tensorlib.tensor([range(2), range(2)]).tolist() == [[0, 1], [0, 1]]
    # tensors inside lists: where a list starts with one, its tensors are scalars
    assert tensorlib.tensor([tensorlib.tensor(1.5), 2.0]).tolist() == [1.5, 2.0]
    assert tensorlib.tensor([[1.0, 2.0], tensorlib.tensor([3.0, 4.0])]).tolist() == [[1.0, 2.0], [3.0, 4.0]]
    with pytest.raises(RuntimeError, match="Could not infer dtype of NoneType"):
        tensorlib.tensor([1.0] * 100 + [None])
    with pytest.raises(TypeError, match="invalid data type 'str'"):
        tensorlib.tensor([[1, "x"]])


@pytest.mark.parametrize("shape,dim", [((3, 4), 0), ((3, 4), 1), ((3, 4), -1), ((5,), 0), ((2, 3, 4), 1), ((0, 2), 1)])
def test_unbind_without_history_gives_views_like_select(shape, dim):
    a = np.arange(float(np.prod(shape))).reshape(shape)
    x = tensorlib.tensor(a)
    parts = x.unbind(dim)
    assert len(parts) == shape[dim]
    for i, p in enumerate(parts):
        np.testing.assert_array_equal(p.numpy(), np.take(a, i, axis=dim))
        assert p.shape == np.take(a, i, axis=dim).shape and p._base is x and p.grad_fn is None
    if parts and parts[0].numel():
        parts[0].fill_(-1.0)  # views: the write reaches x, and x's version counter moves with it
        assert (x.select(dim, 0) == -1.0).all().item() and x._version == parts[0]._version == 1
    assert [r.tolist() for r in x] == [r.tolist() for r in x.unbind(0)]  # iteration is unbind(0)
    leaf = tensorlib.tensor(a, requires_grad=True)  # with history: one node per slice, named as torch names it
    if shape[dim]:
        assert type(leaf.unbind(dim)[0].grad_fn).__name__ == "UnbindBackward0"


def test_sort_and_topk_without_history_match_the_recorded_path():
    nan = float("nan")
    data = [[3.0, nan, 1.0, 3.0, 2.0, nan], [0.0, -0.0, 0.0, 5.0, 5.0, 1.0]]
    plain = tensorlib.tensor(data)
    leaf = tensorlib.tensor(data, requires_grad=True)
    for d in (0, 1):
        for descending in (False, True):
            a, b = plain.sort(dim=d, descending=descending, stable=True), leaf.sort(dim=d, descending=descending,
                                                                                    stable=True)
            assert a.indices.tolist() == b.indices.tolist() and b.values.grad_fn is not None
            np.testing.assert_array_equal(a.values.numpy(), b.values.detach().numpy())
    # stable: equal elements keep their order; NaN sorts as the largest
    assert plain.sort(dim=1, stable=True).indices[0].tolist() == [2, 4, 0, 3, 1, 5]
    assert plain.sort(dim=1, descending=True, stable=True).indices[0].tolist() == [1, 5, 0, 3, 4, 2]
    for k in range(7):
        for largest in (True, False):
            a, b = plain.topk(k, 1, largest=largest), leaf.topk(k, 1, largest=largest)
            assert a.indices.tolist() == b.indices.tolist()
            np.testing.assert_array_equal(a.values.numpy(), b.values.detach().numpy())
    assert type(leaf.topk(2).values.grad_fn).__name__ == "TopkBackward0"
    assert gradcheck(lambda v: v.sort(dim=1, descending=True).values * 2,
                     (tensorlib.tensor([[3.0, 1.0, 2.0], [0.5, 4.0, -1.0]], dtype=tensorlib.float64, requires_grad=True),))


@pytest.mark.parametrize("args", [(5,), (0,), (2, 9), (2, 9, 3), (0, 10, 4), (-3, 3), (2**62, 2**62 + 2)])
def test_arange_of_ints_counting_up(args):
    t = tensorlib.arange(*args)
    assert t.dtype == tensorlib.int64 and t.tolist() == list(range(*args))


def test_arange_checks_still_apply_to_the_other_calls():
    with pytest.raises(RuntimeError, match="upper bound and lower bound inconsistent with step sign"):
        tensorlib.arange(9, 2)
    with pytest.raises(RuntimeError, match="Only Tensors of floating point and complex dtype can require gradients"):
        tensorlib.arange(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="step must be nonzero"):
        tensorlib.arange(0, 3, 0)
    assert tensorlib.arange(3.0).dtype == tensorlib.float32 and tensorlib.arange(3, dtype=tensorlib.float64).tolist() == \
        [0.0, 1.0, 2.0]
    assert tensorlib.arange(5, 0, -2).tolist() == [5, 3, 1]


def test_embedding_checks_index_dtype_and_range_in_one_pass():
    emb = tensorlib.nn.Embedding(10, 4)
    assert emb(tensorlib.tensor([[0, 9], [1, 2]])).shape == (2, 2, 4)
    np.testing.assert_array_equal(emb(tensorlib.tensor([3, 1], dtype=tensorlib.int32)).detach().numpy(),
                                  emb.weight.detach().numpy()[[3, 1]])
    for bad in ([-1], [10], [3, 11], [[2], [-5]]):
        with pytest.raises(IndexError, match="^index out of range in self$"):
            emb(tensorlib.tensor(bad))
    for dtype, name in ((tensorlib.uint8, "ByteTensor"), (tensorlib.int16, "ShortTensor")):
        with pytest.raises(RuntimeError, match=f"scalar types: Long, Int; but got tensorlib.{name} instead"):
            emb(tensorlib.tensor([1, 2], dtype=dtype))


# -- the scatter-add behind index_select's and advanced indexing's gradients ---------------------------------------


def _scatter_cases():
    rng = np.random.default_rng(3)
    return {
        "rows, repeated": ((64, 256), (rng.integers(0, 64, 2016),), (2016, 256)),
        "rows of a 2-D index": ((300, 20), (rng.integers(0, 300, (40, 32)),), (40, 32, 20)),
        "middle axis, negative": ((8, 500), (slice(None), rng.integers(-500, 500, 3000)), (8, 3000)),
        "middle axis of 3-D": ((8, 50, 30), (slice(None), rng.integers(0, 50, 30)), (8, 30, 30)),
        "no repeats": ((5000, 4), (rng.permutation(5000)[:3000],), (3000, 4)),
        "single elements": ((5000,), (rng.integers(0, 5000, 30000),), (30000,)),
        "small": ((4, 5), (rng.integers(0, 4, 3), rng.integers(0, 5, 3)), (3,)),
    }


@pytest.mark.parametrize("name", list(_scatter_cases()))
def test_scatter_add_into_zeros_is_np_add_at(name):
    from tensorlib.ops.indexing import add_at_zeros

    shape, key, vshape = _scatter_cases()[name]
    values = np.random.default_rng(4).standard_normal(vshape)
    want, got = np.zeros(shape), np.zeros(shape)
    np.add.at(want, key, values)
    add_at_zeros(got, key, values)
    np.testing.assert_array_equal(got, want)  # double precision: the same additions in the same order
    want32, got32 = np.zeros(shape, np.float32), np.zeros(shape, np.float32)
    np.add.at(want32, key, values.astype(np.float32))
    add_at_zeros(got32, key, values.astype(np.float32))
    assert got32.dtype == np.float32
    np.testing.assert_allclose(got32, want32, rtol=1e-5, atol=1e-5)  # single precision sums in double, then rounds


def test_index_select_gradient_with_repeated_rows():
    rng = np.random.default_rng(5)
    x = tensorlib.tensor(rng.standard_normal((40, 130)), requires_grad=True)
    idx = tensorlib.tensor(rng.integers(0, 40, 100))
    g = rng.standard_normal((100, 130))
    (gx,) = tensorlib.autograd.grad(tensorlib.index_select(x, 0, idx), x, tensorlib.tensor(g))
    want = np.zeros((40, 130))
    np.add.at(want, idx.numpy(), g)
    np.testing.assert_array_equal(gx.numpy(), want)
    assert gradgradcheck(lambda t: tensorlib.index_select(t, 0, idx) ** 2, (x[:, :40].detach().requires_grad_(),))


@pytest.mark.parametrize("shape,ishape,dim", [((4, 5), (2, 3), 1), ((4, 5), (3, 5), 0), ((3, 4, 5), (2, 4, 3), 2),
                                              ((3, 4, 5), (3, 2, 5), 1), ((8, 16, 4, 4), (8, 1, 4, 4), 1),
                                              ((6,), (9,), 0)])
def test_gather_gradient_with_an_index_smaller_than_the_input(shape, ishape, dim):
    """The gradient of gather scatters into the input's shape at each index entry's own coordinates (an index
    smaller than the input along other dims once failed to reshape); repeated entries add up."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(9)
    a, idx = rng.standard_normal(shape), rng.integers(0, shape[dim], ishape)
    g = rng.standard_normal(ishape)
    grads = []
    for L in (tensorlib, torch):
        x = L.tensor(a, requires_grad=True)
        (gx,) = L.autograd.grad(L.gather(x, dim, L.tensor(idx)), x, L.tensor(g))
        grads.append(gx.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-14, atol=1e-15)
    x = tensorlib.tensor(a, requires_grad=True)
    assert gradgradcheck(lambda t: tensorlib.gather(t, dim, tensorlib.tensor(idx)) ** 2, (x,))
