"""Everyday tensor utilities: cat/stack/split/chunk/where/clamp/argmax/topk/sort/gather/scatter/one_hot, views,
unfold, fill_diagonal_, and gradients of the less common differentiable functions."""

from __future__ import annotations

import numpy as np

import tensorlib
from tensorlib.autograd import gradcheck, gradgradcheck

from tests.parity.differential import differential


@differential
def test_cat_stack_split_chunk(torch, rec):
    a = torch.arange(6.0).reshape(2, 3)
    b = torch.ones(2, 3)
    rec((torch.cat([a, b]), torch.cat((a, b), dim=1), torch.cat([a, b], -1).shape, torch.stack([a, b]).shape,
         torch.stack([a, b], dim=2).shape, torch.cat([a, torch.tensor([])])))
    rec.raises(RuntimeError, torch.cat, [a, torch.ones(2, 2)], match="Sizes of tensors must match except in dimension 0")
    rec.raises(RuntimeError, torch.stack, [a, torch.ones(3, 2)], match="stack expects each tensor to be equal size")
    rec.raises(ValueError, torch.cat, [], match="tensorlib.cat(): expected a non-empty list of Tensors")
    rec.raises(RuntimeError, torch.stack, [], match="stack expects a non-empty TensorList")
    rec.raises(RuntimeError, torch.vstack, [], match="vstack expects a non-empty TensorList")
    rec.raises(TypeError, torch.cat, a)
    rec((torch.cat([a, a.long()]).dtype, torch.cat([a.int(), a.long()]).dtype))
    rec((torch.split(torch.arange(10), 3), torch.split(torch.arange(10), [2, 8]), torch.arange(10).split(4),
         torch.chunk(torch.arange(10), 3), torch.arange(5).chunk(2), torch.arange(6).reshape(2, 3).chunk(3, dim=1),
         torch.arange(6).split_with_sizes([1, 5])))
    rec.raises(RuntimeError, torch.split, torch.arange(10), [2, 7])


@differential
def test_where_clamp_sort_topk(torch, rec):
    x = torch.tensor([[1.0, -2.0], [3.0, -4.0]])
    rec((torch.where(x > 0, x, torch.zeros_like(x)), torch.where(x > 0, x, 0.0), torch.where(x > 0, 1, 0), torch.where(x > 0),
         torch.where(x > 0, x, 0).dtype, torch.where(x > 0, 1.0, 0).dtype))
    rec.raises(RuntimeError, torch.where, x, x, x, match="where expected condition to be a boolean tensor, but got a tensor with dtype Float")
    y = x.clone()
    rec((x.clamp(-1, 1), x.clamp(min=0), x.clamp(max=0), torch.clamp(x, min=torch.tensor([0.0, -3.0])), y.clamp_(-3, 3), y,
         torch.clamp(torch.tensor([1, 5]), 2, 3), torch.clamp(torch.tensor([1, 5]), 2.5, 3)))
    rec.raises(RuntimeError, x.clamp, match="At least one of 'min' or 'max' must not be None")
    t = torch.tensor([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]])
    rec((t.argmax(), t.argmax(1), t.argmax(dim=0, keepdim=True), t.topk(2), t.topk(2, dim=0), t.topk(1, largest=False),
         t.sort(), t.sort(dim=0, descending=True), t.sort(stable=True), torch.sort(t, 1), t.argsort(descending=True),
         t.kthvalue(2), t.topk(2).values, t.topk(2).indices, type(t.topk(2)).__name__, type(t.sort()).__name__))
    rec.raises(RuntimeError, t.topk, 4, match="selected index k out of range")


@differential
def test_gather_scatter_one_hot(torch, rec):
    t = torch.tensor([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]])
    idx = torch.tensor([[0, 0], [1, 0]])
    rec((torch.gather(t, 1, idx), t.gather(0, torch.tensor([[1, 0, 1]])), t.gather(1, idx.int())))
    rec.raises(RuntimeError, t.gather, 1, idx.float(), match="gather(): Expected dtype int32/int64 for index")
    rec.raises(RuntimeError, t.scatter, 1, idx.float(), 1.0, match="scatter(): Expected dtype int32/int64 for index")
    rec.raises(RuntimeError, t.gather, 1, torch.tensor([[5, 0], [1, 0]]))
    z = torch.zeros(3, 5)
    rec((z.scatter(0, torch.tensor([[0, 1, 2, 0, 0]]), 1.0), z.scatter(1, torch.tensor([[2], [3]]), torch.tensor([[7.0], [8.0]])),
         z.scatter_add(0, torch.tensor([[0, 0, 0, 0, 0]]), torch.ones(1, 5)), torch.scatter(z, 1, torch.tensor([[1]]), 5.0),
         z.scatter_reduce(1, torch.tensor([[1, 1]]), torch.tensor([[3.0, 4.0]]), reduce="amax"),
         z.scatter_reduce(1, torch.tensor([[1, 1]]), torch.tensor([[3.0, 4.0]]), reduce="mean", include_self=False)))
    F = torch.nn.functional
    rec((F.one_hot(torch.tensor([0, 2, 1])), F.one_hot(torch.tensor([0, 2]), num_classes=4), F.one_hot(torch.tensor([[0], [1]])).shape))
    rec.raises(RuntimeError, F.one_hot, torch.tensor([0.0, 1.0]), match="one_hot is only applicable to index tensor")
    rec.raises(RuntimeError, F.one_hot, torch.tensor([0, 5]), 3, match="Class values must be smaller than num_classes.")
    rec.raises(RuntimeError, F.one_hot, torch.tensor([-1, 1]), match="Class values must be non-negative.")


@differential
def test_views_unfold_fill_diagonal(torch, rec):
    a = torch.arange(6.0).reshape(2, 3)
    rec((a.view(3, 2), a.view(-1), a.reshape(3, -1), a.t().contiguous().view(6), a.flatten(), a.unsqueeze(0).shape,
         a.squeeze().shape, a.permute(1, 0), a.transpose(0, 1).is_contiguous(), a.expand(2, 2, 3).shape,
         a[:, :1].expand(2, 4), a.repeat(2, 1).shape))
    rec.raises(RuntimeError, a.t().view, 6, match="view size is not compatible with input tensor's size and stride")
    rec.raises(RuntimeError, a.view, 4, 2, match="shape '[4, 2]' is invalid for input of size 6")
    rec.raises(RuntimeError, a.reshape, -1, -1, match="only one dimension can be inferred")
    rec.raises(RuntimeError, a.expand, 3, 3)
    rec.raises(IndexError, a.unsqueeze, 3)
    rec((torch.arange(10.0).unfold(0, 3, 2), torch.arange(12.0).view(3, 4).unfold(1, 2, 2).shape, torch.tensor(5.0).unfold(0, 1, 1)))
    rec.raises(RuntimeError, torch.arange(3.0).unfold, 0, 4, 1, match="maximum size for tensor at dimension 0 is 3 but size is 4")
    rec.raises(RuntimeError, torch.arange(3.0).unfold, 0, 1, 0, match="step is 0 but must be > 0")
    x = torch.arange(5.0, requires_grad=True)
    x.unfold(0, 3, 1).sum().backward()
    rec(x.grad, [1.0, 2.0, 3.0, 2.0, 1.0])
    u = torch.zeros(6)
    u.unfold(0, 2, 2)[1].fill_(7)  # non-overlapping windows are writable views
    rec(u, [0.0, 0.0, 7.0, 7.0, 0.0, 0.0])
    m = torch.zeros(3, 4)
    m.fill_diagonal_(5)
    tall = torch.zeros(7, 3)
    tall.fill_diagonal_(1, wrap=True)
    rec((m, tall))
    w = torch.ones(3, 3, requires_grad=True)
    c = w * 2
    c.fill_diagonal_(0)
    c.sum().backward()
    rec(w.grad, [[0.0, 2.0, 2.0], [2.0, 0.0, 2.0], [2.0, 2.0, 0.0]])
    rec.raises(RuntimeError, torch.zeros(3).fill_diagonal_, 1, match="dimensions must larger than 1")


@differential
def test_tensor_iteration_and_misc(torch, rec):
    t = torch.tensor([[1, 2], [3, 4]])
    rec(([r for r in t], len(t), list(reversed(t)), 3 in t, torch.tensor(5) in t))
    rec.raises(TypeError, len, torch.tensor(1), match="len() of a 0-d tensor")
    rec.raises(TypeError, iter, torch.tensor(1), match="iteration over a 0-d tensor")
    rec((torch.allclose(torch.ones(2), torch.ones(2) + 1e-9), torch.equal(torch.ones(2), torch.ones(2)),
         torch.isclose(torch.ones(2), torch.tensor([1.0, 1.1]))))
    rec.raises(RuntimeError, torch.allclose, torch.ones(2), torch.ones(2, dtype=torch.float64))
    rec((torch.unique(torch.tensor([3, 1, 2, 3, 1])), torch.unique(torch.tensor([3, 1, 3]), return_counts=True),
         torch.unique(torch.tensor([3, 1, 3]), return_inverse=True), torch.bincount(torch.tensor([0, 1, 1, 3]))))
    rec((torch.meshgrid(torch.arange(2), torch.arange(3), indexing="ij")[0], torch.tril(torch.ones(3, 3)),
         torch.triu(torch.ones(3, 3), 1), torch.diag(torch.tensor([1, 2])),
         torch.einsum("ij,jk->ik", torch.ones(2, 3), torch.ones(3, 2)), torch.outer(torch.arange(2.0), torch.arange(3.0))))
    rec((torch.matmul(torch.ones(2, 3), torch.ones(3)), (torch.ones(5, 2, 3) @ torch.ones(3, 4)).shape,
         torch.bmm(torch.ones(2, 2, 3), torch.ones(2, 3, 1)).shape))
    rec.raises(RuntimeError, torch.mm, torch.ones(2, 3), torch.ones(2, 3))
    rec.raises(RuntimeError, torch.bmm, torch.ones(2, 3), torch.ones(3, 2), match="batch1 must be a 3D tensor")
    rec.raises(RuntimeError, torch.mm, torch.ones(2, 2, dtype=torch.float64), torch.ones(2, 2),
               match="expected m1 and m2 to have the same dtype, but got: double != float")
    x = torch.ones(2, 3)
    rec((torch.cosine_similarity(x, x * 2), torch.pairwise_distance(x, x + 1)))


def _leaf(*shape: int, seed: int = 0) -> tensorlib.Tensor:
    rng = np.random.default_rng(seed)
    return tensorlib.tensor(rng.uniform(-1, 1, shape), dtype=tensorlib.float64, requires_grad=True)


def test_less_common_functions_gradcheck():
    """gradcheck and gradgradcheck of unfold, quantiles, combinations, fill_diagonal_, the extra losses,
    attention, cosine similarity and the nn.utils helpers."""
    F = tensorlib.nn.functional
    cases = [
        (lambda t: t.unfold(1, 2, 1), (_leaf(2, 4),)),
        (lambda t: t.unfold(0, 2, 3), (_leaf(7),)),
        (lambda t: tensorlib.quantile(t, 0.3, dim=1), (_leaf(3, 5),)),
        (lambda t: tensorlib.nanquantile(t, tensorlib.tensor([0.2, 0.9], dtype=tensorlib.float64)), (_leaf(6),)),
        (lambda t: tensorlib.combinations(t, 2), (_leaf(4),)),
        (lambda t: (t * 1).fill_diagonal_(0.5), (_leaf(3, 3),)),
        (lambda t, w: F.prelu(t, w), (_leaf(2, 3, 4), _leaf(3, seed=1) + 0.0)),
        (lambda a, b: F.margin_ranking_loss(a, b, tensorlib.tensor([1.0, -1.0, 1.0], dtype=tensorlib.float64), margin=0.3),
         (_leaf(3), _leaf(3, seed=2))),
        (lambda a: F.hinge_embedding_loss(a, tensorlib.tensor([1.0, -1.0, 1.0], dtype=tensorlib.float64)), (_leaf(3),)),
        (lambda a: F.soft_margin_loss(a, tensorlib.tensor([1.0, -1.0, 1.0], dtype=tensorlib.float64)), (_leaf(3),)),
        (lambda a: F.multilabel_soft_margin_loss(a, tensorlib.tensor([[1.0, 0.0, 1.0]], dtype=tensorlib.float64)), (_leaf(1, 3),)),
        (lambda a, b: F.cosine_embedding_loss(a, b, tensorlib.tensor([1.0, -1.0], dtype=tensorlib.float64)),
         (_leaf(2, 3), _leaf(2, 3, seed=3))),
        (lambda a, p, n: F.triplet_margin_loss(a, p, n, swap=True), (_leaf(2, 3), _leaf(2, 3, seed=4), _leaf(2, 3, seed=5))),
        (lambda a: F.poisson_nll_loss(a, tensorlib.tensor([1.0, 2.0, 0.0], dtype=tensorlib.float64), full=True), (_leaf(3),)),
        (lambda a, v: F.gaussian_nll_loss(a, tensorlib.zeros(3, dtype=tensorlib.float64), v.abs() + 0.5), (_leaf(3), _leaf(3, seed=6))),
        (lambda a: F.multi_margin_loss(a, tensorlib.tensor([0, 2])), (_leaf(2, 3),)),
        (lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True), (_leaf(1, 3, 2), _leaf(1, 3, 2, seed=7), _leaf(1, 3, 2, seed=8))),
        (lambda a, b: tensorlib.cosine_similarity(a, b), (_leaf(2, 3), _leaf(2, 3, seed=9))),
        (lambda a: tensorlib.nn.utils.parameters_to_vector([a, a * 2]), (_leaf(2, 2),)),
        (lambda a: tensorlib.nn.utils.rnn.pad_sequence([a, a[:1]], batch_first=True), (_leaf(2, 3),)),
    ]
    for fn, inputs in cases:
        assert gradcheck(fn, inputs), fn
        assert gradgradcheck(fn, inputs), fn
