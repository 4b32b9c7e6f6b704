"""Indexing and assignment, broadcasting and dtype promotion in mixed expressions, reductions."""

from __future__ import annotations

import numpy as np

from tests.parity.differential import differential


@differential
def test_getitem_basic_advanced_and_masks(torch, rec):
    a = torch.arange(24).reshape(2, 3, 4)
    rec((a[0], a[:, 1], a[..., 2], a[None, 0, ::2], a[1, -1, -1], a[:, [0, 2]], a[[0, 1], [1, 2]], a[a > 10]))
    rec(a[[0, 1], :, [1, 3]])
    rec((a[torch.tensor([1, 0])].shape, a[torch.tensor(1)].shape, a[torch.tensor([[0, 1], [1, 0]])].shape))
    rec(a[0, [True, False, True]])
    rec.raises(IndexError, lambda: a[3], match="index 3 is out of bounds for dimension 0 with size 2")
    rec.raises(IndexError, lambda: a[0, 0, 7])
    rec.raises(IndexError, lambda: a[[0, 5]])
    rec.raises(IndexError, lambda: a[1.5])
    rec.raises(IndexError, lambda: a[0, 0, 0, 0], match="too many indices")
    rec.raises(IndexError, lambda: a[torch.tensor([0.5])])
    m = torch.tensor([[1, 2], [3, 4]])
    mask = torch.tensor([[True, False], [False, True]])
    rec((m[mask], m.masked_fill(mask, 0), m.masked_fill(~mask, -1)))
    x = torch.arange(10)
    rec((x[x % 2 == 0], x[2:8:3], x[-3:], x.flip(0)))
    rec.raises(ValueError, lambda: x[::-1], match="step must be greater than zero")
    t = torch.arange(12).view(3, 4)
    rec((t[1][2], t[1, 2].item(), t[:, -1].tolist()))
    i = torch.tensor([[0, 1], [2, 0]])
    rec((t[i], t[i, 1], t[:, i].shape, t[None, ..., None].shape, t[..., None, 1].shape))
    rec((t[torch.tensor([], dtype=torch.long)], t[[]], t[(0, 1)], t[[0, 1]]))
    rec((t[np.array([0, 2])], t[np.int64(1)]))


@differential
def test_setitem_with_broadcasting(torch, rec):
    b = torch.zeros(3, 4)
    b[0] = 1
    b[:, 1] = torch.tensor([1.0, 2.0, 3.0])
    b[b == 0] = -1
    b[[0, 2], [3, 3]] = torch.tensor([7.0, 8.0])
    b[1:, 2:] = torch.tensor([10.0, 20.0])
    rec(b)
    rec.raises(RuntimeError, b.__setitem__, 0, torch.ones(2))
    b[torch.tensor([True, False, True])] = 5.0
    b[:, torch.tensor([1, 1])] += 1
    b[0, 0] = torch.tensor(3)
    rec(b)
    c = torch.zeros(3, dtype=torch.long)
    c[0] = 2.7
    rec(c, [2, 0, 0])
    t = torch.arange(12).view(3, 4)
    t[1][2] = 100
    rec(t)
    g = torch.arange(6.0).reshape(2, 3).requires_grad_()
    g[:, [0, 0, 2]].sum().backward()
    rec(g.grad, [[2.0, 0.0, 1.0], [2.0, 0.0, 1.0]])
    g.grad = None
    g[g > 2].sum().backward()
    rec(g.grad, [[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]])


@differential
def test_broadcasting_and_type_promotion(torch, rec):
    i = torch.tensor([1, 2, 3])
    f = torch.tensor([1.0, 2.0, 3.0])
    d = torch.tensor([1.0, 2.0], dtype=torch.float64)
    b = torch.tensor([True, False, True])
    u = torch.tensor([1, 2, 3], dtype=torch.uint8)
    h = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float16)
    i8 = torch.tensor([1, 2, 3], dtype=torch.int8)
    exprs = [i + f, i * 2.5, i / 2, i // 2, i + True, b + b, b * 2, b + 1.5, u + i8, u - 5, i8 * 1000, h + f,
             h + 1.0, f + d[0], i + d[0], f * torch.tensor(2.0, dtype=torch.float64), i ** 2, i ** 0.5, 2 ** i,
             f ** i, i % 2, -i, torch.tensor(3) / torch.tensor(2), i.sum(), b.sum(), u.sum(), f.mean(),
             i.float().mean(), i & 1, b & b, b | False, ~b, ~i, i.pow(2.0), torch.tensor([1, 2], dtype=torch.int32) * 3.0,
             u * -1, torch.tensor([1, 2]) + torch.tensor([[1], [2], [3]])]
    for e in exprs:
        rec(e)
    rec((i + f).dtype == torch.float32, True)
    rec.raises(RuntimeError, i.mean, match="mean(): could not infer output dtype")
    rec.raises(RuntimeError, lambda: torch.ones(2, 3) + torch.ones(3, 2),
               match="The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1")
    rec.raises(RuntimeError, lambda: torch.ones(2, 3) @ torch.ones(2, 3),
               match="mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)")
    rec((i.sqrt(), i.exp(), b.float(), i.sin().dtype, torch.sigmoid(i)))
    ff = f.clone()
    ff += i
    rec(ff)
    ii = i.clone()
    rec.raises(RuntimeError, ii.__iadd__, f, match="result type Float can't be cast to the desired output type Long")
    ii *= 2
    rec(ii)
    rec.raises(RuntimeError, ii.__itruediv__, 2)
    rec((torch.add(i, 1, alpha=2), torch.add(f, f, alpha=0.5), torch.sub(f, 1, alpha=3)))
    rec.raises(RuntimeError, torch.add, i, 1, alpha=0.5)
    rec((torch.result_type(i, 1.0), torch.promote_types(torch.int32, torch.float32),
         torch.can_cast(torch.float32, torch.int32)))


@differential
def test_reductions_with_dim_and_keepdim(torch, rec):
    m = torch.arange(12.0).reshape(3, 4)
    rec((m.sum(), m.sum(0), m.sum(1, keepdim=True), m.sum((0, 1)), m.mean(-1), m.max(1), m.min(0, keepdim=True),
         m.amax((0, 1)), m.prod(1), m.std(0), m.var(1, keepdim=True), m.median(), m.median(1), m.norm(),
         m.norm(dim=1), m.logsumexp(1), m.cumsum(1), m.argmax(1), m.argmin(), m.all(), m.any(1),
         m.count_nonzero(), m.mode(1)))
    rec.raises(IndexError, m.sum, 2, match="Dimension out of range (expected to be in range of [-2, 1], but got 2)")
    rec((m.sum(dtype=torch.int64), m.long().sum(1, dtype=torch.float32)))
    rec((torch.max(m, torch.tensor(5.0)), torch.max(m, 1)[0], torch.max(m, 1).values, torch.max(m, 1).indices,
         m.max(1, True)))
    rec((torch.tensor([]).sum(), torch.tensor([]).mean(), torch.tensor([]).prod()))
    rec.raises(RuntimeError, torch.tensor([]).max)
    rec(torch.zeros(0, 3).max(1))
    rec.raises(IndexError, torch.zeros(0, 3).max, 0, match="Expected reduction dim 0 to have non-zero size")
    nan = torch.tensor([1.0, float("nan"), 3.0])
    rec((nan.max(), nan.sum(), torch.tensor([1.0, float("nan")]).nansum(), torch.tensor([1.0, float("nan")]).argmax()))
    rec((torch.tensor([3, 1, 2]).median(), torch.tensor([4, 1, 2, 3]).median()))
    rec((m.sum(dim=None), torch.tensor([[1, 2], [3, 4]]).float().mean(dim=(0, 1), keepdim=True)))
    x = torch.tensor([[1.0, 7.0, 3.0, 4.0], [2.0, float("nan"), 0.0, 5.0]])
    rec(torch.quantile(x[0], 0.3), 2.8)
    rec((x.quantile(torch.tensor([0.25, 0.5]), dim=1, keepdim=True), x.quantile(0.5, dim=1), x.nanquantile(0.5, dim=1),
         x.nanquantile(torch.tensor([0.1, 0.9]), dim=0)))
    for interp in ("lower", "higher", "nearest", "midpoint"):
        rec(torch.quantile(torch.tensor([1.0, 2.0, 3.0, 4.0]), torch.tensor([0.5, 0.4, 0.1]), interpolation=interp))
    rec.raises(RuntimeError, torch.quantile, x, 1.5, match="quantile() q must be in the range [0, 1] but got 1.5")
    rec.raises(RuntimeError, torch.quantile, x.long(), 0.5, match="input tensor must be either float or double dtype")
    rec.raises(RuntimeError, torch.quantile, x, 0.5, interpolation="cubic")
    q = torch.tensor([1.0, 7.0, 3.0, 4.0], requires_grad=True)
    torch.quantile(q, 0.3).backward()
    rec(q.grad, [0.1, 0.0, 0.9, 0.0])
    rec((torch.histc(torch.tensor([1.0, 2.0, 1.0]), bins=4, min=0, max=3), torch.tensor([0.0, 1, 2, 3]).histc(bins=3),
         torch.histc(torch.tensor([1.0, 2, 1, 5]))))
    rec.raises(NotImplementedError, torch.histc, torch.tensor([1, 2]))
    rec.raises(RuntimeError, torch.histc, torch.tensor([1.0, 2.0]), min=3, max=1, match="max must be larger than min")
