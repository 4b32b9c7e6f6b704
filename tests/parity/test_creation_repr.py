"""Tensor construction (nested lists, NumPy, scalars, legacy types), printing, conversions, finfo/iinfo."""

from __future__ import annotations

import numpy as np
import pytest

from tests.parity.differential import differential


@differential
def test_construction_from_data(torch, rec):
    values = [[1, 2], [1.0, 2], [[1, 2], [3, 4]], [True, False], 3, 3.5, True, [], [[]], [1, 2.5j], (1, 2),
              [np.float32(1.5)], np.array([1, 2], dtype=np.int32), np.array([1.0, 2.0]), np.array(2.5),
              np.float64(2.0), np.int64(3), 2 ** 62, -7, [1, True], range(4), [range(2), range(2)]]
    for v in values:
        t = torch.tensor(v)
        rec((t, t.dtype, t.shape))
    rec(torch.tensor([torch.tensor(1.0), torch.tensor(2.0)]), [1.0, 2.0])
    rec((torch.tensor([torch.tensor([1.0]), torch.tensor([2.0])]), torch.tensor([[1, 2], torch.tensor([3, 4])]),
         torch.tensor([[1], torch.tensor([2])]), torch.tensor((torch.tensor(1), 2))))
    # a list that starts with a tensor holds scalars: use torch.stack for tensors of several elements
    rec.raises(ValueError, torch.tensor, [torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0])],
               match="only one element tensors can be converted to Python scalars")
    rec.raises(TypeError, torch.tensor, [torch.tensor([1, 2]), torch.tensor([3, 4])],
               match="only integer tensors of a single element can be converted to an index")
    rec.raises(ValueError, torch.tensor, [[1, 2], [3]])
    rec.raises(TypeError, torch.tensor, "abc", match="new(): invalid data type 'str'")
    rec.raises(RuntimeError, torch.tensor, None, match="Could not infer dtype of NoneType")
    rec.raises(RuntimeError, torch.tensor, [1, None], match="Could not infer dtype of NoneType")
    rec.raises(RuntimeError, torch.tensor, {1: 2}, match="Could not infer dtype of dict")
    rec(torch.tensor([1, 2], dtype=torch.float64, requires_grad=True))
    rec.raises(RuntimeError, torch.tensor, [1, 2], requires_grad=True)
    a = np.array([1.0, 2.0])
    t = torch.from_numpy(a)
    t2 = torch.as_tensor(a)
    t3 = torch.tensor(a)
    a[0] = 9
    rec((t, t2, t3), ([9.0, 2.0], [9.0, 2.0], [1.0, 2.0]))
    rec.raises(TypeError, torch.from_numpy, [1, 2])


@differential
def test_factories_and_legacy_types(torch, rec):
    rec((torch.zeros(2, 3), torch.zeros((2, 3)), torch.zeros([2]), torch.ones(2, dtype=torch.int64), torch.full((2,), 3),
         torch.full((2,), 3.0), torch.full((2,), True), torch.eye(2, 3), torch.arange(5), torch.arange(1, 2, 0.25),
         torch.arange(0.0, 3), torch.linspace(0, 1, 5), torch.logspace(0, 2, 3), torch.empty(2).shape,
         torch.zeros_like(torch.ones(2, dtype=torch.int32)), torch.ones_like(torch.ones(2), dtype=torch.float64),
         torch.full_like(torch.ones(2), 7)))
    rec.raises(RuntimeError, torch.zeros, -1)
    rec.raises(TypeError, torch.zeros, 2.5)
    rec.raises(RuntimeError, torch.arange, 0, 10, -1, match="upper bound and lower bound inconsistent with step sign")
    rec((torch.randint(0, 10, (3,)).dtype, torch.rand(2, 2).dtype, torch.randn(3).shape, torch.randperm(4).dtype))
    rec((torch.Tensor([1, 2]), torch.Tensor(2, 3).shape))
    rec((torch.FloatTensor([1, 2]), torch.LongTensor([1, 2]), torch.DoubleTensor(2, 3).shape, torch.BoolTensor([1, 0]),
         torch.FloatTensor(), torch.IntTensor(torch.Size([2])).dtype))
    rec((isinstance(torch.ones(2), torch.FloatTensor), isinstance(torch.ones(2), torch.LongTensor),
         isinstance(torch.ones(2, dtype=torch.long), torch.LongTensor)), (True, False, True))
    rec((torch.ones(2).type(torch.LongTensor), torch.ones(2).type("torch.IntTensor"), torch.ones(2).type()))
    rec.raises(TypeError, torch.FloatTensor, 1.5, match="new(): data must be a sequence (got float)")
    rec((torch.tril_indices(3, 3), torch.triu_indices(3, 4, 1), torch.tril_indices(4, 3, -1).dtype))
    rec((torch.combinations(torch.tensor([1, 2, 3])), torch.combinations(torch.tensor([1, 2, 3]), r=3,
                                                                          with_replacement=True).shape))


@differential
def test_item_tolist_numpy_and_conversions(torch, rec):
    rec((torch.tensor(3).item(), type(torch.tensor(3).item()).__name__, torch.tensor(3.5).item(),
         torch.tensor([True]).item(), torch.tensor([[1, 2]]).tolist(), torch.tensor(2.0).tolist(),
         type(torch.tensor([1.0]).tolist()[0]).__name__))
    rec.raises(RuntimeError, torch.tensor([1, 2]).item, match="a Tensor with 2 elements cannot be converted to Scalar")
    t = torch.tensor([1.0, 2.0])
    n = t.numpy()
    n[0] = 5
    rec((t, str(n.dtype)), ([5.0, 2.0], "float32"))
    rec.raises(RuntimeError, torch.tensor([1.0], requires_grad=True).numpy, match="Use tensor.detach().numpy()")
    rec((float(torch.tensor([2.5])), int(torch.tensor(3.9)), bool(torch.tensor([0]))), (2.5, 3, False))
    rec.raises(ValueError, float, torch.tensor([1, 2]))
    rec.raises(RuntimeError, bool, torch.tensor([1, 2]))
    rec((torch.tensor([1, 2]).new_tensor([3.0]), torch.ones(2).new_zeros(3), torch.ones(2, dtype=torch.int32).new_ones((2,)),
         torch.ones(2).new_full((1,), 5), torch.ones(2).new_empty(3).shape, torch.ones(2).new(2, 3).shape,
         torch.ones(2).new([1, 2]), torch.ones(2, dtype=torch.int32).new([1.5])))
    f = torch.tensor([1.5, -2.5, 3.0])
    rec((f.add(1).dtype, f.type(torch.int32), f.long(), f.int(), f.double(), f.half(), f.bool(), f.to(torch.int64),
         f.to("cpu"), f.to(torch.ones(1, dtype=torch.float64)), f.to(dtype=torch.float64), f.to("cpu", torch.int16)))
    rec((f.to(torch.float32) is f, f.to(torch.float32, copy=True) is f, f.float() is f, f.cpu() is f,
         f.contiguous() is f), (True, False, True, True, True))
    rec((f.is_floating_point(), f.is_signed(), torch.tensor([1], dtype=torch.uint8).is_signed(), f.is_cpu,
         f.is_same_size(torch.ones(3)), f.element_size(), torch.tensor([1]).element_size()))
    rec((torch.arange(4.0).view(2, 2).H, torch.arange(8.0).view(2, 2, 2).mT.shape, torch.ones(2, 3).sum_to_size(1, 3)))
    rec.raises(RuntimeError, lambda: torch.ones(3).H, match="tensor.H is only supported on matrices")
    e = torch.tensor([1.0, 2.0, 3.0])
    e.eq_(2)
    rec(e, [0.0, 1.0, 0.0])
    z = torch.tensor([True, False])
    z.logical_not_()
    rec(z, [False, True])
    rec(torch.get_default_dtype())
    torch.set_default_dtype(torch.float64)
    rec((torch.tensor([1.0]), torch.tensor(1.5).dtype, torch.zeros(1), torch.arange(0.0, 1.0)))
    torch.set_default_dtype(torch.float32)


@differential
def test_finfo_iinfo(torch, rec):
    rec((torch.finfo(torch.float32).eps, torch.finfo(torch.float32).max, torch.finfo().tiny, torch.iinfo(torch.int64).max,
         torch.finfo(torch.float16).eps, torch.iinfo(torch.uint8).min, torch.finfo(torch.float64).bits,
         torch.finfo(torch.complex64).bits, torch.finfo(torch.float32).dtype))
    for info in (torch.finfo(torch.float32), torch.finfo(torch.float16), torch.iinfo(torch.int32), torch.iinfo(torch.uint8)):
        rec(repr(info))
    rec(torch.finfo(torch.float32) == torch.finfo(torch.float32), True)
    rec.raises(TypeError, torch.finfo, torch.int32, match="requires a floating point input type")
    rec.raises(TypeError, torch.iinfo, torch.float32, match="requires an integer input type")
    rec.raises(TypeError, torch.iinfo, torch.bool)
    rec.raises(TypeError, torch.finfo, 3)


@differential
def test_printing_shapes_and_dtypes(torch, rec):
    vals = [torch.tensor(1e-8), torch.tensor([1e-8, 1.0]), torch.tensor([1e10, 1.0]), torch.tensor([123456789.0]),
            torch.tensor([0.1, 0.25]), torch.tensor([float("nan"), float("inf"), -float("inf"), 1.0]),
            torch.tensor([1.5e-5, 2e3]), torch.tensor(0.0), torch.tensor(-0.0), torch.tensor([100000.0]),
            torch.arange(2000), torch.arange(2000.0).reshape(40, 50), torch.arange(24.0).reshape(2, 3, 4),
            torch.zeros(2, 0), torch.zeros(0), torch.zeros(1, 0, 3), torch.tensor([True, False]),
            torch.tensor([1, -20, 300]), torch.tensor([1.0, 2.0], dtype=torch.float64),
            torch.tensor([1, 2], dtype=torch.int32), torch.tensor([1, 2], dtype=torch.uint8),
            torch.tensor([1.5, 2], dtype=torch.float16), torch.tensor([1 + 2j, 3.5 - 1j]), torch.tensor(5),
            torch.tensor(True), torch.tensor(2.5, dtype=torch.float64), torch.tensor([[1e-10, 1.0], [3.0, 4.0]]),
            torch.tensor([1.23456789, 1000.5]), torch.tensor([12345.678]), torch.tensor([1e-4, 1e4]),
            torch.arange(10.0).reshape(10, 1), torch.ones(3, 1, 2), torch.tensor([2.0, 4.0]) / 3,
            torch.tensor([1.0, 2.0]).requires_grad_(), torch.tensor([1, 2], dtype=torch.float64) * torch.tensor(2.0, requires_grad=True),
            torch.zeros(2, 0, dtype=torch.float64), torch.tensor([], dtype=torch.int64), torch.arange(1001.0),
            torch.tensor(1e20), torch.tensor([3 + 0j, 1e10j]), torch.tensor([2 ** 40, -5])]
    for v in vals:
        rec(repr(v))
        rec(str(v))
    torch.set_printoptions(precision=2)
    rec(repr(torch.tensor([1.23456, 2.5])))
    torch.set_printoptions(profile="default")
    torch.set_printoptions(sci_mode=True)
    rec(repr(torch.tensor([1.23456, 2.5])))
    torch.set_printoptions(sci_mode=None)
    torch.set_printoptions(threshold=5, edgeitems=2)
    rec(repr(torch.arange(30).reshape(5, 6)))
    torch.set_printoptions(profile="default")
    torch.set_printoptions(linewidth=30)
    rec(repr(torch.arange(20.0)))
    torch.set_printoptions(profile="default")
    rec((repr(torch.nn.Parameter(torch.ones(2))), repr(torch.nn.Parameter(torch.ones(2), requires_grad=False))))
    rec((repr(torch.Size([2, 3])), repr(torch.float32), repr(torch.device("cpu")), str(torch.float64)))
    rec((f"{torch.tensor(2.5):.3f}", f"{torch.tensor(3)}", f"{torch.tensor(2.5)}", "{}".format(torch.tensor([1, 2])),
         "{:>6}".format(torch.tensor(1.5))), ("2.500", "3", "2.5", "tensor([1, 2])", "   1.5"))
    rec.raises(TypeError, "{:.3f}".format, torch.tensor([2.5]), match="unsupported format string passed to Tensor.__format__")


@pytest.mark.parametrize("lib_name", ["tensorlib", "torch"])
def test_legacy_constructor_of_a_tensor_is_a_view_of_it(lib_name):
    lib = pytest.importorskip(lib_name)

    class Sub(lib.Tensor):
        pass

    a = lib.ones(2)
    for cls in (lib.Tensor, Sub):
        v = cls(a)
        assert type(v) is cls and v._is_view() and v._base is a
        v[0] = 5.0
        assert a[0].item() == 5.0  # shares a's data
    b = lib.ones(2, requires_grad=True)
    w = lib.Tensor(b)
    assert w.requires_grad and type(w.grad_fn).__name__ == "AliasBackward0"
