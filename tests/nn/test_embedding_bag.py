"""embedding_bag and EmbeddingBag: sums, means and maxima of bags against torch (values, the four results of
``tensorlib.embedding_bag``, gradients of the weight and the per-sample weights), gradcheck and gradgradcheck,
the module, errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tensorlib
import tensorlib.nn.functional as F
from tests.nn.compare import check_gradients, compare, leaf, same_message

RNG = np.random.default_rng(51)
W = RNG.standard_normal((7, 3))
IDX = np.array([0, 2, 1, 4, 5, 1, 6, 2, 2])
OFFSETS = np.array([0, 2, 2, 5, 8])  # an empty bag, and (with include_last_offset) a last one past the end


@pytest.mark.parametrize("mode", [0, 1, 2])
@pytest.mark.parametrize("include_last_offset", [False, True])
@pytest.mark.parametrize("padding_idx", [None, 2, -1])
@pytest.mark.parametrize("scale_grad_by_freq", [False, True])
def test_embedding_bag_kernel_matches_torch(mode, include_last_offset, padding_idx, scale_grad_by_freq):
    if mode == 2 and scale_grad_by_freq:
        pytest.skip("max mode does not scale gradients")
    # scale_grad_by_freq divides as torch's CPU kernel does (see _embedding_bag.py), repeats included
    compare(lambda lib, w, i, o: lib.embedding_bag(w, i, o, scale_grad_by_freq, mode, False, None,
                                                   include_last_offset, padding_idx), W, IDX, OFFSETS, rtol=1e-12)


def test_embedding_bag_kernel_per_sample_weights_and_index_dtypes():
    psw = RNG.random(9)
    compare(lambda lib, w, i, o, p: lib.embedding_bag(w, i, o, False, 0, False, p), W, IDX, OFFSETS, psw,
            differentiable=(0, 3))
    compare(lambda lib, w, i, o, p: lib.embedding_bag(w, i, o, False, 0, False, p, True, 2), W, IDX, OFFSETS, psw,
            differentiable=(0, 3))
    compare(lambda lib, w, i, o: lib.embedding_bag(w, i, o, False, 1), W, IDX.astype(np.int32),
            OFFSETS.astype(np.int32))
    compare(lambda lib, w, i, o: lib.embedding_bag(w, i, o), W.astype(np.float32), IDX, OFFSETS.astype(np.int32),
            rtol=1e-6)
    for mode in (0, 1, 2):  # without a gradient to record (torch sizes two of the results otherwise then)
        compare(lambda lib, w, i, o, mode=mode: lib.embedding_bag(w, i, o, False, mode, False, None, True), W, IDX,
                OFFSETS, differentiable=())


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_functional_embedding_bag_matches_torch(mode):
    f = "embedding_bag"
    compare(lambda lib, i, w, o: getattr(lib.nn.functional, f)(i, w, o, mode=mode), IDX, W, OFFSETS,
            differentiable=(1,))
    compare(lambda lib, i, w: getattr(lib.nn.functional, f)(i, w, mode=mode, padding_idx=4), IDX.reshape(3, 3), W,
            differentiable=(1,))
    compare(lambda lib, i, w, o: getattr(lib.nn.functional, f)(i, w, o, mode=mode, include_last_offset=True,
                                                               padding_idx=1), IDX, W, OFFSETS, differentiable=(1,))
    if mode != "max":
        compare(lambda lib, i, w, o: getattr(lib.nn.functional, f)(i, w, o, mode=mode, scale_grad_by_freq=True),
                IDX, W, OFFSETS, differentiable=(1,))


def test_functional_embedding_bag_options():
    psw = RNG.random((3, 3))
    compare(lambda lib, i, w, p: lib.nn.functional.embedding_bag(i, w, mode="sum", per_sample_weights=p),
            IDX.reshape(3, 3), W, psw, differentiable=(1, 2))

    def renormed(lib, i, w):
        weight = w * 1  # max_norm renormalises the rows used, in place
        out = lib.nn.functional.embedding_bag(i, weight, mode="max", max_norm=1.0, norm_type=1.0)
        return out, weight

    compare(renormed, IDX.reshape(3, 3), W, differentiable=(1,))
    with pytest.warns(UserWarning, match="Argument order of nn.functional.embedding_bag was changed"):
        swapped = F.embedding_bag(tensorlib.tensor(W), tensorlib.tensor(IDX.reshape(3, 3)))
    assert tensorlib.allclose(swapped, F.embedding_bag(tensorlib.tensor(IDX.reshape(3, 3)), tensorlib.tensor(W)))


def test_embedding_bag_gradcheck_and_gradgradcheck():
    idx, off = tensorlib.tensor(IDX), tensorlib.tensor(OFFSETS)
    for mode in ("sum", "mean", "max"):
        check_gradients(lambda w, mode=mode: F.embedding_bag(idx, w, off, mode=mode, padding_idx=1), leaf(7, 3))
    check_gradients(lambda w, p: F.embedding_bag(idx, w, off, mode="sum", per_sample_weights=p), leaf(7, 3),
                    leaf(9, seed=1))


@pytest.mark.parametrize("args, kwargs", [
    ((IDX, W, np.array([1, 2, 5])), {}),
    ((IDX, W, np.array([0, 2, 10])), {}),
    ((IDX, W, np.array([0, 2, 10])), {"include_last_offset": True}),
    ((np.array([0, 2, 7]), W, np.array([0, 2])), {}),
    ((np.array([0, 2, -1]), W, np.array([0, 2])), {}),
    ((IDX.astype(np.float64), W, OFFSETS), {}),
    ((IDX, W, OFFSETS), {"mode": "max", "per_sample_weights": RNG.random(9)}),
    ((IDX, W, OFFSETS), {"per_sample_weights": RNG.random(8)}),
    ((IDX, W, OFFSETS), {"mode": "sum", "per_sample_weights": RNG.random(9).astype(np.float32)}),
    ((IDX, W, OFFSETS), {"mode": "avg"}),
    ((IDX, W, None), {}),
    ((IDX.reshape(3, 3), W, OFFSETS), {}),
    ((IDX.reshape(1, 3, 3), W, None), {}),
    ((IDX, W[0], OFFSETS), {}),
    ((IDX, W, OFFSETS.reshape(1, 5)), {}),
    ((IDX, W, OFFSETS), {"padding_idx": 7}),
    ((IDX, W, OFFSETS), {"padding_idx": -8}),
    ((IDX, W, OFFSETS), {"mode": "max", "scale_grad_by_freq": True}),
    ((IDX, W, OFFSETS), {"mode": "max", "sparse": True}),
    ((IDX, W, np.zeros(0, np.int64)), {"include_last_offset": True}),
    ((np.array([0, 2, 7]), W.astype(np.float32), np.array([0, 2])), {"mode": "sum"}),
    ((IDX, W.astype(np.int32), OFFSETS), {}),
])
def test_embedding_bag_errors(args, kwargs):
    def call(lib, *tensors):
        extra = {k: lib.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
        return lib.nn.functional.embedding_bag(*tensors, **extra)

    same_message(call, *args)


def test_embedding_bag_kernel_errors():
    same_message(lambda lib, w: lib.embedding_bag(w, lib.tensor([0, 1]), lib.tensor([0]), False, 3), W)
    same_message(lambda lib, w: lib.embedding_bag(w, lib.tensor([0, 1]), lib.tensor([0]), False, 1, False,
                                                  lib.ones(2, dtype=w.dtype)), W)


def test_embedding_bag_empty_inputs():
    # no offsets: no bags (torch's float32 kernel agrees; some of its other kernels crash on this input)
    compare(lambda lib, i, w, o: lib.nn.functional.embedding_bag(i, w, o), IDX, W.astype(np.float32),
            np.zeros(0, np.int64))
    for mode in (0, 1, 2):
        out = tensorlib.embedding_bag(tensorlib.tensor(W, requires_grad=True), tensorlib.tensor(IDX),
                                      tensorlib.zeros(0, dtype=tensorlib.int64), False, mode)
        assert out[0].shape == (0, 3) and out[0].requires_grad
    compare(lambda lib, i, w, o: lib.nn.functional.embedding_bag(i, w, o, mode="max"), np.zeros(0, np.int64), W,
            np.array([0, 0]))
    compare(lambda lib, i, w, o: lib.embedding_bag(w, i, o, False, 2), np.zeros(0, np.int64), W, np.array([0, 0]))


def test_embedding_bag_module():
    torch = pytest.importorskip("torch")
    # (torch's float32 sum kernel ends the last bag at the last offset rather than at the end of the input, unlike its
    # other kernels: these offsets end at the end)
    offsets = np.array([0, 2, 2, 5, 9])
    for kwargs in ({}, {"mode": "max", "padding_idx": -1}, {"mode": "sum", "include_last_offset": True,
                                                            "max_norm": 2.0, "norm_type": 1.0,
                                                            "scale_grad_by_freq": True}):
        ours = tensorlib.nn.EmbeddingBag(7, 3, **kwargs)
        theirs = torch.nn.EmbeddingBag(7, 3, **kwargs)
        assert repr(ours) == repr(theirs)
        ours.load_state_dict({"weight": tensorlib.tensor(W)})
        theirs.load_state_dict({"weight": torch.tensor(W)})
        compare(lambda lib, i, o: (ours if lib is tensorlib else theirs)(i, o), IDX, offsets, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(ours.weight.grad.numpy(), theirs.weight.grad.numpy(), rtol=1e-5, atol=1e-6)
    padded = tensorlib.nn.EmbeddingBag(5, 2, padding_idx=3)
    assert (padded.weight[3].detach().numpy() == 0).all() and padded.padding_idx == 3
    frozen = tensorlib.nn.EmbeddingBag.from_pretrained(tensorlib.tensor(W), mode="sum")
    assert not frozen.weight.requires_grad and frozen.mode == "sum"
    np.testing.assert_allclose(frozen(tensorlib.tensor(IDX), tensorlib.tensor(OFFSETS)).numpy(),
                               F.embedding_bag(tensorlib.tensor(IDX), tensorlib.tensor(W), tensorlib.tensor(OFFSETS),
                                               mode="sum").numpy())
    with pytest.raises(AssertionError, match="padding_idx must be within num_embeddings"):
        tensorlib.nn.EmbeddingBag(5, 2, padding_idx=5)
    with pytest.raises(AssertionError, match="Shape of weight does not match"):
        tensorlib.nn.EmbeddingBag(5, 2, _weight=tensorlib.ones(4, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m = tensorlib.nn.EmbeddingBag(4, 2, mode="max")
        psw = tensorlib.ones(2)
        with pytest.raises(NotImplementedError, match="only supported for mode='sum'"):
            m(tensorlib.tensor([0, 1]), tensorlib.tensor([0]), per_sample_weights=psw)
