"""The miscellaneous ops and Tensor members the op table cannot check: errors, storage semantics (as_strided,
resize_, set_, the copies and unsafe splits), random fills and sampling, element maps, predicates, properties,
DLPack and the old dunders. Each check that has a torch counterpart runs it on both libraries."""

from __future__ import annotations

import operator
import re
import warnings
from typing import Any, Callable

import numpy as np
import pytest

import tensorlib
from tensorlib.autograd import gradcheck, gradgradcheck


@pytest.fixture(params=["tensorlib", "torch"])
def L(request: Any) -> Any:
    """The library under test: each test runs on tensorlib and, when installed, on torch."""
    if request.param == "torch":
        return pytest.importorskip("torch")
    return tensorlib


def f(L: Any, *shape: int) -> Any:
    n = int(np.prod(shape)) if shape else 1
    return L.arange(n, dtype=L.float32).reshape(shape)


def i(L: Any, values: Any) -> Any:
    return L.tensor(values, dtype=L.int64)


# -- errors: the same type (and message) as torch ---------------------------------------------------------

ERRORS: dict[str, tuple[Callable[[Any], Any], type, Any]] = {  # message: a literal part, or a pattern
    "as_strided-negative-stride": (lambda L: f(L, 6).as_strided((2, 2), (-1, 2)), RuntimeError,
                                   ("as_strided: Negative strides are not supported at the moment, got strides: [-1, 2]")),
    "as_strided-lengths": (lambda L: f(L, 6).as_strided((2, 2), (1,)), RuntimeError, "mismatch in length of strides and shape"),
    "as_strided-bounds": (lambda L: f(L, 6).as_strided((2, 2), (1, 2), 5), RuntimeError, (
        "setStorage: sizes [2, 2], strides [1, 2], storage offset 5, and itemsize 4 requiring a storage size of 36 are "
        "out of bounds for storage of size 24")),
    "as_strided-offset": (lambda L: f(L, 6).as_strided((2,), (1,), -1), RuntimeError, "invalid storage offset -1"),
    "as_strided-size-int": (lambda L: f(L, 6).as_strided(2, 1), TypeError, "must be tuple of ints"),
    "as_strided-overlap-write": (lambda L: f(L, 3).as_strided((3,), (0,)).add_(1), RuntimeError,
                                 "more than one element of the written-to tensor refers to a single memory location"),
    "as_strided_-leaf": (lambda L: L.zeros(6, requires_grad=True).as_strided_((2, 2), (1, 2)), RuntimeError,
                         "a leaf Variable that requires grad"),
    "as_strided_scatter-src": (lambda L: L.as_strided_scatter(f(L, 6), f(L, 3), (2,), (1,)), RuntimeError, (
        "expected src to have a size equal to the slice of self. src size = [3], slice size = [2]")),
    "as_strided_scatter-bounds": (lambda L: L.as_strided_scatter(f(L, 6), f(L, 2, 2), (2, 2), (1, 2), 5), RuntimeError,
                                  "out of bounds for storage of size 24"),
    "split_copy-sizes": (lambda L: L.split_copy(f(L, 4), [1, 3]), TypeError, "must be int, not list"),
    "unsafe_split-sizes": (lambda L: L.unsafe_split(f(L, 4), [1, 3]), TypeError, "must be int, not list"),
    "view_copy-ints": (lambda L: L.view_copy(f(L, 6), 2, 3), TypeError, ""),
    "permute_copy-varargs": (lambda L: L.permute_copy(f(L, 1, 2, 3), 2, 0, 1), TypeError, ""),
    "gcd-float": (lambda L: L.gcd(f(L, 2), i(L, [1, 2])), NotImplementedError, '"gcd_cpu" not implemented for \'Float\''),
    "gcd-bool": (lambda L: L.gcd(L.tensor([True]), L.tensor([False])), NotImplementedError, "not implemented for 'Bool'"),
    "gcd-scalar": (lambda L: L.gcd(i(L, [4]), 2), TypeError, "argument 'other' (position 2) must be Tensor, not int"),
    "lcm-float": (lambda L: L.lcm(f(L, 2), f(L, 2)), NotImplementedError, "lcm_cpu"),
    "frexp-int": (lambda L: L.frexp(i(L, [1, 2])), RuntimeError, ("torch.frexp() only supports floating-point dtypes")),
    "ldexp-bool-exponent": (lambda L: L.ldexp(f(L, 2), L.tensor([True, False])), NotImplementedError, "ldexp_cpu_exp"),
    "ldexp-scalar": (lambda L: L.ldexp(f(L, 2), 2), TypeError, "must be Tensor, not int"),
    "ldexp_-int-self": (lambda L: i(L, [1, 2]).ldexp_(i(L, [1, 2])), RuntimeError, "can't be cast to the desired output type Long"),
    "nextafter-int": (lambda L: L.nextafter(i(L, [1]), i(L, [2])), NotImplementedError, "nextafter_cpu"),
    "nextafter-scalar": (lambda L: L.nextafter(f(L, 2), 3.0), TypeError, "must be Tensor, not float"),
    "isin-bool": (lambda L: L.isin(L.tensor([True]), i(L, [1])), RuntimeError, "Unsupported input type encountered for isin(): Bool"),
    "unravel_index-float": (lambda L: L.unravel_index(f(L, 2), (2, 3)), TypeError, "expected 'indices' to be integer dtype"),
    "unravel_index-negative": (lambda L: L.unravel_index(i(L, [1]), (-1, 3)), ValueError,
                               ("'shape' cannot have negative values, but got (-1, 3)")),
    "unravel_index-shape-type": (lambda L: L.unravel_index(i(L, [1]), 2.5), TypeError, "expected 'shape' to be int or sequence"),
    "trapezoid-points": (lambda L: L.trapezoid(f(L, 4), f(L, 3)), RuntimeError, "There must be one `x` value for each sample point"),
    "trapezoid-bool": (lambda L: L.trapezoid(L.tensor([True, False])), RuntimeError, "bool is not supported"),
    "trapezoid-both": (lambda L: L.trapezoid(f(L, 4), f(L, 4), dx=2), TypeError, "invalid combination of arguments"),
    "trapezoid-0d": (lambda L: L.trapezoid(L.tensor(3.0)), IndexError, "Dimension specified as -1 but tensor has no dimensions"),
    "trapezoid-dx-bool": (lambda L: L.trapezoid(f(L, 3), dx=True), RuntimeError, "we only support dx as a real number"),
    "cumulative_trapezoid-0d": (lambda L: L.cumulative_trapezoid(L.tensor(1.0)), IndexError, "0-dim"),
    "gradient-uint8": (lambda L: L.gradient(L.tensor([1, 2, 4], dtype=L.uint8)), RuntimeError, "does not support uint8 input"),
    "gradient-edge-order": (lambda L: L.gradient(f(L, 4), edge_order=3), RuntimeError, "only supports edge_order=1 and edge_order=2"),
    "gradient-too-short": (lambda L: L.gradient(f(L, 2, 3), edge_order=2), RuntimeError, "at least edge_order+1"),
    "gradient-repeated-dim": (lambda L: L.gradient(f(L, 3, 3), dim=[1, 1]), RuntimeError, "dim 1 appears multiple times"),
    "gradient-spacing-length": (lambda L: L.gradient(f(L, 3, 3), spacing=[2.0]), RuntimeError, "a list of length equal to 'self.dim() = 2'"),
    "gradient-spacing-dim-length": (lambda L: L.gradient(f(L, 3, 3), spacing=[2.0, 3.0], dim=0), RuntimeError,
                                    "spacing and dim arguments to have the same length"),
    "gradient-coordinates-2d": (lambda L: L.gradient(f(L, 2, 3), spacing=(f(L, 2), f(L, 1, 3))), RuntimeError,
                                "each element of spacing to have one dimension"),
    "cov-3d": (lambda L: L.cov(f(L, 2, 2, 2)), RuntimeError, "expected input to have two or fewer dimensions"),
    "cov-bool": (lambda L: L.cov(L.tensor([[True, False]])), RuntimeError, "bool dtype is not supported for input"),
    "cov-fweights-float": (lambda L: L.cov(f(L, 2, 3), fweights=f(L, 3)), RuntimeError, "fweights to have integral dtype"),
    "cov-fweights-negative": (lambda L: L.cov(f(L, 2, 3), fweights=i(L, [1, -2, 1])), RuntimeError, "fweights cannot be negative"),
    "cov-aweights-int": (lambda L: L.cov(f(L, 2, 3), aweights=i(L, [1, 2, 1])), RuntimeError, "aweights to have floating point dtype"),
    "cov-aweights-negative": (lambda L: L.cov(f(L, 2, 3), aweights=L.tensor([1.0, -2.0, 1.0])), RuntimeError, "aweights cannot be negative"),
    "cov-fweights-numel": (lambda L: L.cov(f(L, 2, 3), fweights=i(L, [1, 2])), RuntimeError, "same numel as there are observations"),
    "cov-fweights-2d": (lambda L: L.cov(f(L, 2, 3), fweights=i(L, [[1, 2, 1]])), RuntimeError, "one or fewer dimensions"),
    "corrcoef-3d": (lambda L: L.corrcoef(f(L, 2, 2, 2)), RuntimeError, "expected input to have two or fewer dimensions"),
    "histogram-int": (lambda L: L.histogram(i(L, [1, 2]), 3), NotImplementedError, '"histogramdd" not implemented for \'Long\''),
    "histogram-bins": (lambda L: L.histogram(f(L, 5), 0), RuntimeError, "bins must be > 0, but got 0 for dimension 0"),
    "histogram-range": (lambda L: L.histogram(f(L, 5), 3, range=(5.0, 0.0)), RuntimeError, "min should not exceed max"),
    "histogram-weight-shape": (lambda L: L.histogram(f(L, 5), 3, weight=L.ones(4)), RuntimeError, "should have the same shape"),
    "histogram-weight-dtype": (lambda L: L.histogram(f(L, 5), 3, weight=L.ones(5, dtype=L.float64)), RuntimeError, "same dtype"),
    "histogram-bins-dtype": (lambda L: L.histogram(f(L, 5), i(L, [0, 2, 5])), RuntimeError, "bins tensors should have the same dtype"),
    "histogram-nan": (lambda L: L.histogram(L.tensor([1.0, float("nan")]), 3), RuntimeError, ("range [nan, nan] is not finite")),
    "histogram-inf": (lambda L: L.histogram(L.tensor([1.0, float("inf")]), 3), RuntimeError, ("range [1, inf] is not finite")),
    "histogramdd-1d": (lambda L: L.histogramdd(f(L, 4), [2]), RuntimeError, "input tensor should have at least 2 dimensions"),
    "histogramdd-bins": (lambda L: L.histogramdd(f(L, 4, 2), [2]), RuntimeError, "size of bins must be equal to the innermost dimension"),
    "histogramdd-range": (lambda L: L.histogramdd(f(L, 4, 2), [2, 2], range=[0.0, 1.0]), RuntimeError, "range should have 4 elements"),
    "put-index-dtype": (lambda L: L.put(f(L, 6), f(L, 1), f(L, 1)), RuntimeError, "Expected a long tensor for index, but got Float"),
    "put-source-dtype": (lambda L: L.put(f(L, 6), i(L, [1]), i(L, [1])), RuntimeError, "self and source expected to have the same dtype"),
    "put-numel": (lambda L: L.put(f(L, 6), i(L, [1, 2]), f(L, 1)), IndexError, "same number of elements"),
    "put-bounds": (lambda L: L.put(f(L, 6), i(L, [6]), f(L, 1)), IndexError, "out of range: tried to access index 6 on a tensor of 6 elements."),
    "put-bounds-negative": (lambda L: L.put(f(L, 6), i(L, [-7]), f(L, 1)), IndexError, "tried to access index -7"),
    "put_-leaf": (lambda L: L.zeros(3, requires_grad=True).put_(i(L, [1]), f(L, 1)), RuntimeError, "a leaf Variable"),
    "index_reduce-sum": (lambda L: L.index_reduce(f(L, 3, 2), 0, i(L, [0]), f(L, 1, 2), "sum"), RuntimeError,
                         "Expected reduce to be one of prod, mean, amax or amin but got sum."),
    "index_reduce-bounds": (lambda L: L.index_reduce(f(L, 3, 2), 0, i(L, [3]), f(L, 1, 2), "prod"), IndexError, "index out of range in self"),
    "index_reduce-index-dtype": (lambda L: L.index_reduce(f(L, 3, 2), 0, f(L, 1), f(L, 1, 2), "prod"), RuntimeError,
                                 "Expected dtype int32/int64 for index"),
    "index_reduce-index-2d": (lambda L: L.index_reduce(f(L, 3, 2), 0, i(L, [[0]]), f(L, 1, 2), "prod"), IndexError,
                              "Index is supposed to be a vector"),
    "index_reduce-count": (lambda L: L.index_reduce(f(L, 3, 2), 0, i(L, [0, 1]), f(L, 1, 2), "prod"), RuntimeError,
                           ("Number of indices (2) should be equal to source.size(dim): (1)")),
    "index_reduce-dtype": (lambda L: L.index_reduce(f(L, 3, 2), 0, i(L, [0]), f(L, 1, 2).double(), "prod"), RuntimeError,
                           "must have the same scalar type"),
    "index_reduce-shape": (lambda L: L.index_reduce(L.tensor(2.0), 0, i(L, [0]), L.tensor([3.0]), "prod"), RuntimeError,
                           "source tensor shape must match self tensor shape"),
    "renorm-p": (lambda L: L.renorm(f(L, 2, 2), 0, 1, 5), RuntimeError, "non-positive-norm not supported"),
    "renorm-maxnorm": (lambda L: L.renorm(f(L, 2, 2), 1, 1, -5), RuntimeError, "expected maxnorm to be >= 0 but got -5"),
    "renorm-1d": (lambda L: L.renorm(f(L, 3), 1, 0, 5), RuntimeError, "input needs at least 2 dimensions, got 1 dimensions"),
    "binomial-int-count": (lambda L: L.binomial(i(L, [3]), L.tensor([0.5])), ValueError, "binomial only supports floating-point dtypes for count, got: Long"),
    "binomial-dtypes": (lambda L: L.binomial(f(L, 3), L.ones(3, dtype=L.float64)), RuntimeError, "Found dtype Double but expected Float"),
    "cauchy_-int": (lambda L: L.ones(3, dtype=L.int64).cauchy_(), RuntimeError, "dtype must be a floating point but you specified long int"),
    "cauchy_-sigma": (lambda L: L.ones(3).cauchy_(sigma=0), RuntimeError, "cauchy_ expects sigma > 0.0, but found sigma=0"),
    "cauchy_-leaf": (lambda L: L.ones(3, requires_grad=True).cauchy_(), RuntimeError, "a leaf Variable"),
    "log_normal_-std": (lambda L: L.ones(3).log_normal_(1.0, -1), RuntimeError, "log_normal_ expects std > 0.0, but found std=-1"),
    "log_normal_-int": (lambda L: L.ones(3, dtype=L.int64).log_normal_(), NotImplementedError, '"log_normal_cpu" not implemented for \'Long\''),
    "geometric_-p": (lambda L: L.ones(3).geometric_(1.5), RuntimeError, ("geometric_ expects p to be in (0, 1), but got p=1.5")),
    "geometric_-bool": (lambda L: L.ones(3, dtype=L.bool).geometric_(0.5), NotImplementedError, "geometric_cpu"),
    "map_-requires-grad": (lambda L: L.ones(3, requires_grad=True).map_(L.ones(3), lambda a, b: a), RuntimeError,
                           ("Can't call map_() on Variable that requires grad. Use var.detach().map_() instead.")),
    "map_-dtype": (lambda L: L.ones(3).map_(i(L, [1, 2, 3]), lambda a, b: a), TypeError, re.compile(r"map_: expected .*FloatTensor for 'other' \(got .*LongTensor\)")),
    "map_-shape": (lambda L: L.ones(3).map_(L.ones(2, 3), lambda a, b: a), RuntimeError, "the number of sizes provided"),
    "map2_-requires-grad": (lambda L: L.ones(3, requires_grad=True).map2_(L.ones(3), L.ones(3), lambda a, b, c: a), RuntimeError,
                            ("Can't call map2_() on Variable")),
    "resize_-requires-grad": (lambda L: L.ones(2, requires_grad=True).resize_(3), RuntimeError, "cannot resize variables that require grad"),
    "resize_-nonleaf": (lambda L: (L.ones(2, requires_grad=True) * 2).resize_(2), RuntimeError, "cannot resize variables that require grad"),
    "resize_-channels-last": (lambda L: L.ones(2).resize_(2, memory_format=L.channels_last), RuntimeError, "required rank 4 tensor"),
    "resize-numel": (lambda L: L.ones(2).resize(3), RuntimeError, ("requested resize to 3 (3 elements in total), but the given "
                     "tensor has a size of 2 (2 elements).")),
    "set_-dtype": (lambda L: L.zeros(2).set_(i(L, [1, 2])), RuntimeError, "Could not set tensor of type long int to a tensor of type float"),
    "set_-leaf": (lambda L: L.zeros(2, requires_grad=True).set_(f(L, 6)), RuntimeError, "a leaf Variable"),
    "set_-bounds": (lambda L: L.zeros(2).set_(f(L, 6), 5, (2,)), RuntimeError, "out of bounds for storage of size 24"),
    "grad_dtype-nonleaf-get": (lambda L: (L.ones(2, requires_grad=True) * 2).grad_dtype, RuntimeError,
                               "grad_dtype can only be accessed on leaf tensors"),
    "grad_dtype-type": (lambda L: setattr(L.ones(2, requires_grad=True), "grad_dtype", "x"), RuntimeError,
                        "grad_dtype must be a torch.dtype or None, but got str"),
    "grad_dtype-assign": (lambda L: _assign_grad_with_grad_dtype(L), RuntimeError,
                          "attempting to assign a gradient with dtype 'float' to a tensor with grad_dtype 'Double'"),
    "cuda_array_interface": (lambda L: L.ones(2).__cuda_array_interface__, AttributeError,
                             re.compile("Can't get __cuda_array_interface__ on non-CUDA tensor type: .*FloatTensor")),
    "setstate-nonleaf": (lambda L: (L.ones(2, requires_grad=True) * 2).__setstate__((True, None, None)), RuntimeError,
                         "__setstate__ can be only called on leaf Tensors"),
    "dlpack-requires-grad": (lambda L: L.ones(2, requires_grad=True).__dlpack__(), BufferError,
                             ("Can't export tensors that require gradient, use tensor.detach()")),
    "idiv-int": (lambda L: i(L, [6]).__idiv__(4), RuntimeError, "result type Float can't be cast to the desired output type Long"),
    "is_nonzero-many": (lambda L: L.ones(2).is_nonzero(), RuntimeError, "more than one value is ambiguous"),
    "nonzero-dunder-many": (lambda L: L.ones(2).__nonzero__(), RuntimeError, "more than one value is ambiguous"),
    "detach_copy-backward": (lambda L: L.detach_copy(L.ones(2, requires_grad=True)).sum().backward(), RuntimeError,
                             "derivative for aten::detach_copy is not implemented"),
    "histogram-backward": (lambda L: L.histogram(L.ones(3, requires_grad=True), 2).hist.sum().backward(), RuntimeError,
                           "derivative for aten::histogram"),
}


def _assign_grad_with_grad_dtype(L: Any) -> None:
    y = L.ones(2, requires_grad=True)
    y.grad_dtype = L.float64
    y.grad = L.ones(2)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_match_torch(L: Any, case: str) -> None:
    call, exc, message = ERRORS[case]
    with pytest.raises(exc, match=message if isinstance(message, re.Pattern) else re.escape(message)):
        call(L)


# -- as_strided and storage geometry ---------------------------------------------------------------------


def test_as_strided_views_the_storage(L: Any) -> None:
    x = f(L, 6)
    v = x[2:].as_strided((2, 2), (1, 2))  # the offset defaults to the input's own
    assert v.tolist() == [[2.0, 4.0], [3.0, 5.0]] and v.storage_offset() == 2 and v.stride() == (1, 2)
    w = x.as_strided((2,), (1,), storage_offset=1)
    w.mul_(10)
    assert x.tolist() == [0.0, 10.0, 20.0, 3.0, 4.0, 5.0]
    assert x.as_strided((0, 2), (1, 1), 7).shape == (0, 2)  # no element: no bounds to keep
    assert x.as_strided((), (), 5).item() == 5.0
    t = f(L, 2, 3).t()  # memory order, not logical order
    assert t.as_strided((3,), (1,)).tolist() == [0.0, 1.0, 2.0]


def test_as_strided_gradient_goes_through_the_storage(L: Any) -> None:
    a = L.arange(1.0, 5.0, dtype=L.float64).requires_grad_()
    b = a.detach().expand(2, 4).requires_grad_()  # an input that overlaps itself: the gradient is averaged
    out = L.as_strided(b, (3,), (1,))
    out.sum().backward()
    assert b.grad.tolist() == [[0.5, 0.5, 0.5, 0.0], [0.5, 0.5, 0.5, 0.0]]
    (g,) = L.autograd.grad(L.as_strided(a, (2, 2), (1, 1)).sum(), a)
    assert g.tolist() == [1.0, 2.0, 1.0, 0.0]


def test_as_strided_double_backward() -> None:
    x = tensorlib.randn(6, dtype=tensorlib.float64, requires_grad=True)
    def fn(t: Any) -> Any:
        return (tensorlib.as_strided(t, (2, 3), (1, 2)) ** 2) * 1.0
    assert gradcheck(fn, (x,)) and gradgradcheck(fn, (x,))
    def scatter(t: Any, s: Any) -> Any:
        return tensorlib.as_strided_scatter(t ** 2, s ** 2, (2, 2), (2, 1), 1) * 1.0
    s = tensorlib.randn(2, 2, dtype=tensorlib.float64, requires_grad=True)
    assert gradcheck(scatter, (x, s)) and gradgradcheck(scatter, (x, s))


def test_as_strided_in_place_changes_the_geometry(L: Any) -> None:
    y = L.zeros(6)
    v = y[1:]
    r = v.as_strided_((2, 2), (1, 2))
    assert r is v and v.shape == (2, 2) and v.storage_offset() == 1 and v._version == y._version == 1
    z = (L.zeros(6, requires_grad=True) * 1).as_strided_((2, 3), (3, 1))
    assert type(z.grad_fn).__name__ == "AsStridedBackward1"
    assert L.as_strided_(L.zeros(4), (2,), (2,)).shape == (2,)


def test_as_strided_scatter_follows_the_input_memory_order(L: Any) -> None:
    out = L.as_strided_scatter(L.zeros(2, 3).t(), L.arange(4.0).reshape(2, 2), (2, 2), (1, 2), 1)
    assert out.tolist() == [[0.0, 1.0], [0.0, 3.0], [2.0, 0.0]]
    assert L.as_strided_scatter(L.zeros(6)[1:], L.ones(2, 2), (2, 2), (1, 2)).tolist() == [1.0, 1.0, 1.0, 1.0, 0.0]


def test_copies_are_contiguous_new_memory(L: Any) -> None:
    x = f(L, 2, 3, 4)
    cases = {
        "permute_copy": L.permute_copy(x, (2, 0, 1)), "t_copy": L.t_copy(f(L, 2, 3)), "unfold_copy": L.unfold_copy(x, 2, 2, 1),
        "transpose_copy": L.transpose_copy(x, 0, 2), "slice_copy": L.slice_copy(x, 2, 0, 3, 2), "select_copy": L.select_copy(x, 2, 1),
        "diagonal_copy": L.diagonal_copy(x, 0, 1, 2), "as_strided_copy": L.as_strided_copy(x, (2, 2), (1, 2)),
        "alias_copy": L.alias_copy(x.transpose(0, 1)), "detach_copy": L.detach_copy(x.transpose(0, 1)),
        "unsqueeze_copy": L.unsqueeze_copy(x.transpose(0, 1), 0), "expand_copy": L.expand_copy(f(L, 4), (2, 4)),
        "squeeze_copy": L.squeeze_copy(f(L, 1, 3, 1), (0, 2)), "view_copy": L.view_copy(x, (6, 4)),
        "view_as_real_copy": L.view_as_real_copy(L.ones(2, dtype=L.complex64).transpose(0, 0)),
        "view_as_complex_copy": L.view_as_complex_copy(f(L, 3, 2)),
    }
    for name, c in cases.items():
        assert c.is_contiguous() and c._base is None, name
    before = x.clone()
    for c in cases.values():
        c.fill_(-1)
    assert L.equal(x, before)
    assert L.view_copy(L.tensor([1.0]), L.int32).tolist() == [1065353216]


def test_copies_report_torch_node_names(L: Any) -> None:
    a = L.ones(1, 2, 1, requires_grad=True)
    names = {
        "SqueezeBackward0_copy": L.squeeze_copy(a), "SqueezeBackward1_copy": L.squeeze_copy(a, 0),
        "SqueezeBackward2_copy": L.squeeze_copy(a, (0, 2)), "SliceBackward0_copy": L.slice_copy(a, 1, 0, 1),
        "UnbindBackward0_copy": L.unbind_copy(a, 1)[0], "SplitBackward0_copy": L.split_copy(a, 1, 1)[0],
        "SplitWithSizesBackward0_copy": L.split_with_sizes_copy(a, [1, 1], 1)[0], "AliasBackward0_copy": L.alias_copy(a),
        "UnsafeSplitBackward0": L.unsafe_split(a, 1, 1)[0], "UnsafeSplitWithSizesBackward0": L.unsafe_split_with_sizes(a, [1, 1], 1)[0],
        "AsStridedBackward0_copy": L.as_strided_copy(a, (2,), (1,)), "NotImplemented": L.detach_copy(a),
    }
    for name, t in names.items():
        assert type(t.grad_fn).__name__ == name


def test_copies_with_out(L: Any) -> None:
    out = L.empty(0)
    assert L.t_copy(f(L, 2, 3), out=out) is out and out.shape == (3, 2)
    outs = [L.empty(2), L.empty(2)]
    assert L.split_copy(f(L, 4), 2, out=outs) is None and outs[1].tolist() == [2.0, 3.0]
    with pytest.raises(RuntimeError):
        L.unbind_copy(f(L, 2), out=[L.empty(0)])


def test_unsafe_splits_share_memory_but_not_the_version_counter(L: Any) -> None:
    x = f(L, 2, 3)
    pieces = L.unsafe_split(x, 1)
    assert pieces[0].data_ptr() == x.data_ptr() and pieces[0]._base is None
    x.add_(1)
    assert pieces[0].tolist() == [[1.0, 2.0, 3.0]] and pieces[0]._version == 0
    assert [p.shape for p in x.unsafe_chunk(2, 1)] == [(2, 2), (2, 1)]
    assert [p.shape for p in x.unsafe_split_with_sizes([1, 2], dim=1)] == [(2, 1), (2, 2)]
    assert [p.shape for p in x.split_with_sizes([2, 1], 1)] == [(2, 2), (2, 1)]


# -- numeric helpers ----------------------------------------------------------------------------------


def test_ldexp_and_nextafter_forms(L: Any) -> None:
    x = L.tensor([1.0, 2.0])
    assert x.ldexp_(i(L, [1, 2])).tolist() == [2.0, 8.0] and L.ldexp_(x, i(L, [1, 1])).tolist() == [4.0, 16.0]
    assert L.ldexp(L.tensor([1.0, 2.0], dtype=L.float16), i(L, [1, 2])).dtype == L.float16
    assert L.ldexp(L.tensor(1.0, dtype=L.float64), i(L, [1, 2])).dtype == L.float64
    assert L.ldexp(i(L, [1]), i(L, [1])).dtype == L.float32
    y = L.tensor([1.0, 2.0], dtype=L.float64)
    y.nextafter_(L.tensor([2.0, 1.0], dtype=L.float64))
    assert y.tolist() == [np.nextafter(1.0, 2.0), np.nextafter(2.0, 1.0)]
    a = L.tensor([1.0, 2.0], requires_grad=True)
    b = L.tensor([2.0, 1.0], requires_grad=True)
    L.nextafter(a, b).sum().backward()
    assert a.grad.tolist() == [1.0, 1.0] and b.grad.tolist() == [0.0, 0.0]
    g = i(L, [4, 6])
    assert g.gcd_(i(L, [6, 4])).tolist() == [2, 2] and g.lcm_(i(L, [3, 3])).tolist() == [6, 6]
    assert L.gcd_(i(L, [4]), i(L, [6])).tolist() == [2] and L.lcm_(i(L, [4]), i(L, [6])).tolist() == [12]
    m, e = L.frexp(L.tensor([8.0]))
    assert m.tolist() == [0.5] and e.dtype == L.int32 and type(L.frexp(L.tensor([8.0]))).__name__ == "frexp"


def test_cov_warns_on_no_degrees_of_freedom(L: Any) -> None:
    with pytest.warns(UserWarning, match="degrees of freedom is <= 0"):
        assert L.cov(L.tensor(3.0)).isnan().item()
    with pytest.warns(UserWarning, match="degrees of freedom is <= 0"):
        L.cov(L.ones(2, 1))


def test_corrcoef_of_a_constant_row_is_nan(L: Any) -> None:
    c = L.corrcoef(L.tensor([[1.0, 2.0, 4.0], [1.0, 1.0, 1.0]]))
    assert c[0, 0].item() == 1.0 and c[1, 1].isnan().item()


def test_histogram_corner_cases(L: Any) -> None:
    h, edges = L.histogram(L.ones(3), 2)  # equal min and max: the range widens by 0.5 each side
    assert h.tolist() == [0.0, 3.0] and edges.tolist() == [0.5, 1.0, 1.5]
    h, edges = L.histogram(L.ones(0), 3)
    assert h.tolist() == [0.0] * 3 and edges[-1].item() == 1.0
    h, _ = L.histogram(L.tensor([0.0, 0.5, 1.0, 1.0]), L.tensor([0.0, 0.5, 1.0]))  # the last bin keeps its right edge
    assert h.tolist() == [1.0, 3.0]
    r = L.histogram(L.tensor([1.0, 2.0]).requires_grad_(), 2)
    assert r.hist.requires_grad and r.bin_edges.requires_grad and type(r.hist.grad_fn).__name__ == "NotImplemented"
    r = L.histogramdd(L.tensor([[0.0, 1.0], [1.0, 0.0]]), 2)
    assert type(r).__name__ == "histogramdd" and isinstance(r.bin_edges, tuple)


def test_index_reduce_in_place_and_warning(L: Any) -> None:
    z = L.ones(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert z.index_reduce_(0, i(L, [1]), L.tensor([5.0]), "amax") is z
        assert L.index_reduce(L.tensor(2.0), 0, L.tensor(0), L.tensor(3.0), "prod").item() == 6.0
        grad_fn = L.index_reduce(L.ones(3, requires_grad=True), 0, i(L, [0]), L.ones(1), "prod").grad_fn
    assert z.tolist() == [1.0, 5.0, 1.0] and type(grad_fn).__name__ == "IndexReduceBackward0"


def test_index_reduce_warns_that_it_is_beta() -> None:
    from tensorlib.ops import _util

    _util.WARNED.discard("index_reduce")
    with pytest.warns(UserWarning, match="index_reduce\\(\\) is in beta"):
        tensorlib.index_reduce(tensorlib.ones(3), 0, tensorlib.tensor([0]), tensorlib.ones(1), "prod")


def test_put_forms(L: Any) -> None:
    x = f(L, 2, 3)
    assert x.put_(i(L, [1]), L.tensor([10.0])) is x and x[0, 1].item() == 10.0
    assert x.put(i(L, [0, 0]), L.tensor([1.0, 2.0]), accumulate=True)[0, 0].item() == 3.0
    assert L.put(L.tensor(5.0), i(L, [0]), L.tensor([10.0])).item() == 10.0


def test_isin_scalars(L: Any) -> None:
    assert L.isin(2, i(L, [1, 2, 3])).item() is True and L.isin(2, i(L, [1, 2, 3])).shape == ()
    assert L.isin(i(L, [1, 2, 3]), 2).tolist() == [False, True, False]
    assert L.isin(L.tensor([1.0]), 2.5).tolist() == [False]


def test_unravel_index_results(L: Any) -> None:
    assert [t.tolist() for t in L.unravel_index(i(L, [4, 1]), (2, 3))] == [[1, 0], [1, 1]]
    assert L.unravel_index(i(L, [1]), ()) == ()
    assert all(t.dtype == L.int64 for t in L.unravel_index(L.tensor([5], dtype=L.int32), (2, 3)))


def test_gradient_forms(L: Any) -> None:
    x = L.tensor([[1.0, 2.0, 4.0], [3.0, 9.0, 27.0]])
    assert L.gradient(L.tensor(1.0)) == ()
    (g,) = L.gradient(x, spacing=[L.tensor([0.0, 1.0, 5.0])], dim=[1])
    assert np.allclose(g.tolist(), [[1.0, 0.9, 0.5], [6.0, 5.7, 4.5]])
    assert L.gradient(i(L, [1, 2, 4]))[0].dtype == L.float32
    assert type(L.gradient(x.requires_grad_())[0].grad_fn).__name__ == "CatBackward0"


def test_trapezoid_forms(L: Any) -> None:
    y = L.tensor([1.0, 4.0, 9.0, 16.0])
    assert L.trapezoid(y, x=L.tensor([0.0, 1.0, 3.0, 6.0])).item() == 53.0
    assert L.trapz(i(L, [1, 2, 3]), dx=2).item() == 8.0
    assert L.trapezoid(L.ones(2, 0), dim=0).shape == (0,)
    assert L.cumulative_trapezoid(L.ones(0)).shape == (0,)
    assert L.trapezoid(L.ones(2, 3), L.tensor([[0.0, 1.0, 3.0]])).tolist() == [3.0, 3.0]


def test_renorm_in_place(L: Any) -> None:
    x = f(L, 3, 3) + 1
    expected = L.renorm(x, 1, 0, 5)
    assert x.renorm_(1, 0, 5) is x and L.allclose(x, expected)
    assert type(L.renorm(x.requires_grad_(), 2, 0, 5).grad_fn).__name__ == "RenormBackward0"


# -- random sampling ------------------------------------------------------------------------------------


def test_binomial_samples_and_generator() -> None:
    count = tensorlib.full((20000,), 10.0)
    prob = tensorlib.full((20000,), 0.3)
    s = tensorlib.binomial(count, prob)
    assert s.dtype == tensorlib.float32 and abs(s.mean().item() - 3.0) < 0.1 and abs(s.var().item() - 2.1) < 0.15
    assert s.min().item() >= 0 and s.max().item() <= 10 and bool((s == s.round()).all())
    g1, g2 = tensorlib.Generator().manual_seed(3), tensorlib.Generator().manual_seed(3)
    assert tensorlib.equal(tensorlib.binomial(count, prob, generator=g1), tensorlib.binomial(count, prob, g2))
    edge = tensorlib.binomial(tensorlib.tensor([0.0, 5.0, 2.5, -1.0]), tensorlib.tensor([0.5, 1.0, 0.0, 0.5]))
    assert edge.tolist() == [0.0, 5.0, 0.0, 0.0]
    assert tensorlib.binomial(tensorlib.ones(3, dtype=tensorlib.float64), tensorlib.tensor([0.5], dtype=tensorlib.float64)).shape == (3,)
    r = tensorlib.binomial(tensorlib.ones(2, requires_grad=True), tensorlib.full((2,), 0.5))
    assert type(r.grad_fn).__name__ == "NotImplemented"


@pytest.mark.parametrize("fill,check", [
    (lambda t, g: t.cauchy_(median=1.0, sigma=2.0, generator=g), lambda a: abs(np.median(a) - 1.0) < 0.05),
    (lambda t, g: t.log_normal_(1.0, 0.5, generator=g),
     lambda a: abs(np.log(a).mean() - 1.0) < 0.02 and abs(np.log(a).std() - 0.5) < 0.02),
    (lambda t, g: t.geometric_(0.3, generator=g),
     lambda a: a.min() >= 1 and abs(a.mean() - 1 / 0.3) < 0.1 and np.all(a == np.round(a))),
])
def test_random_fills(fill: Callable, check: Callable) -> None:
    t = tensorlib.empty(20000, dtype=tensorlib.float64)
    assert fill(t, None) is t and check(t.numpy())
    a = fill(tensorlib.empty(5, dtype=tensorlib.float64), tensorlib.Generator().manual_seed(7))
    b = fill(tensorlib.empty(5, dtype=tensorlib.float64), tensorlib.Generator().manual_seed(7))
    assert tensorlib.equal(a, b) and t._version == 1


def test_random_fills_keep_the_dtype(L: Any) -> None:
    assert L.empty(3, dtype=L.float16).cauchy_().dtype == L.float16
    ints = L.empty(100, dtype=L.int64).geometric_(0.5)
    assert ints.dtype == L.int64 and ints.min().item() >= 1
    assert L.empty(4, dtype=L.uint8).geometric_(0.5).dtype == L.uint8


# -- element maps -------------------------------------------------------------------------------------------


def test_map_and_map2(L: Any) -> None:
    x = L.tensor([1.0, 2.0, 3.0])
    assert x.map_(L.tensor([10.0, 20.0, 30.0]), lambda a, b: a + b) is x and x.tolist() == [11.0, 22.0, 33.0]
    assert x.map_(L.tensor(2.0), lambda a, b: a * b).tolist() == [22.0, 44.0, 66.0]  # broadcast
    assert x.map2_(L.ones(3), L.tensor([1.0, 2.0, 3.0]), lambda a, b, c: a + b * c).tolist() == [23.0, 46.0, 69.0]
    assert i(L, [1, 2]).map_(i(L, [1, 2]), lambda a, b: 7.9).tolist() == [7, 7]  # cast to the tensor's dtype
    y = L.ones(3)
    y[:2].map_(L.ones(2), lambda a, b: 5.0)
    assert y.tolist() == [5.0, 5.0, 1.0] and y._version == 0  # writes through views, no version bump (as torch)


# -- resize_ and set_ ---------------------------------------------------------------------------------------


def test_resize_keeps_data_when_it_fits(L: Any) -> None:
    x = L.arange(6.0)
    assert x.resize_(2, 3) is x and x.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert x.resize_(4).tolist() == [0.0, 1.0, 2.0, 3.0] and x._version == 2
    x = L.arange(6.0)
    b = x[1:]
    assert b.resize_(2).tolist() == [1.0, 2.0]
    b.fill_(-1)
    assert x.tolist() == [0.0, -1.0, -1.0, 3.0, 4.0, 5.0]  # still a view of x's memory
    assert L.ones(2).resize_((3,)).shape == (3,) and L.ones(2).resize_([3]).shape == (3,) and L.ones(2).resize_(0).shape == (0,)
    assert L.ones(2).resize_(2, 3).stride() == (3, 1)
    v = L.arange(6.0).view(2, 3).t()
    assert v.resize_(3, 2).stride() == (1, 3)  # the same shape: nothing changes


def test_resize_grows_into_new_memory(L: Any) -> None:
    x = L.arange(6.0)
    x.resize_(3, 3)
    assert x[:2].tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]] and x.stride() == (3, 1)
    assert L.ones(2).resize_as_(L.ones(3, 2, dtype=L.int64)).shape == (3, 2)


def test_resize_remembers_the_memory_of_a_shrunk_tensor() -> None:
    x = tensorlib.arange(6.0)
    x.resize_(2)
    assert x.resize_(6).tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]  # torch keeps the storage too


def test_deprecated_resize(L: Any) -> None:
    y = L.ones(2, requires_grad=True)
    with pytest.warns(UserWarning, match="non-inplace resize is deprecated"):
        r = y.resize(2, 1)
    assert r.shape == (2, 1) and type(r.grad_fn).__name__ == "ResizeBackward"
    r.sum().backward()
    assert y.grad.tolist() == [1.0, 1.0]
    with pytest.warns(UserWarning, match="non-inplace resize_as is deprecated"):
        assert y.resize_as(L.ones(1, 2)).shape == (1, 2)


def test_set_shares_memory(L: Any) -> None:
    s = L.arange(6.0)
    t = L.zeros(2)
    assert t.set_(s) is t and t.is_set_to(s) and s.is_set_to(t) and t._version == 1
    t.fill_(3)
    assert s.tolist() == [3.0] * 6
    t = L.zeros(2)
    assert t.set_(L.arange(6.0), 2, (2, 2), (1, 2)).tolist() == [[2.0, 4.0], [3.0, 5.0]]
    assert L.zeros(2).set_(L.arange(6.0), 2, (2,)).stride() == (1,)
    assert L.zeros(2).set_().shape == (0,)
    assert L.zeros(2).set_(source=L.arange(3.0)).tolist() == [0.0, 1.0, 2.0]
    assert type(L.zeros(2).set_(L.arange(6.0, requires_grad=True)).grad_fn).__name__ == "NotImplemented"
    x = L.ones(2, 3)
    assert x.is_set_to(x[:]) and not x.is_set_to(x.view(6)) and not x.is_set_to(x.clone())


def test_legacy_setstate(L: Any) -> None:
    x = L.ones(2)
    x.__setstate__((True, None, None))
    assert x.requires_grad
    x = L.ones(2)
    x.__setstate__((L.zeros(3), 0, (2,), (1,)))
    assert x.tolist() == [0.0, 0.0]


# -- predicates, properties and dunders ------------------------------------------------------------------


def test_predicates_as_functions(L: Any) -> None:
    x = L.ones(2, 3)
    assert L.is_same_size(x, L.zeros(2, 3)) and not L.is_same_size(x, L.zeros(3))
    assert L.is_signed(x) and not L.is_signed(L.ones(2, dtype=L.uint8)) and not x.is_signed() is False
    assert L.get_device(x) == -1 and x.get_device() == -1
    assert L.is_inference(x) is False and x.is_inference() is False
    d = L.detach(x.requires_grad_())
    assert not d.requires_grad and d.data_ptr() == x.data_ptr()
    y = x * 2
    assert L.detach_(y) is y and y.grad_fn is None and not y.requires_grad
    assert L.tensor([2.0]).is_nonzero() and not L.is_nonzero(L.tensor([0]))
    assert x.share_memory_() is x


def test_backend_flags_name_and_volatile(L: Any) -> None:
    x = L.ones(2)
    for flag in "is_ipu is_maia is_mps is_mtia is_vulkan is_xla is_xpu".split():
        assert getattr(x, flag) is False
    assert x.name is None
    with pytest.raises(AttributeError):
        x.name = "a"
    with pytest.warns(UserWarning, match="volatile was removed"):
        assert x.volatile is False
    with pytest.warns(UserWarning, match="volatile was removed and now has no effect"):
        x.volatile = True
    assert not hasattr(x, "__cuda_array_interface__")


def test_grad_dtype(L: Any) -> None:
    y = L.ones(2, requires_grad=True)
    assert y.grad_dtype == L.float32 and L.ones(2).grad_dtype == L.float32
    y.grad_dtype = L.float64
    (y * 2).sum().backward()
    assert y.grad.dtype == L.float64 and y.grad.tolist() == [2.0, 2.0]
    z = L.ones(2, requires_grad=True)
    z.grad_dtype = None
    assert z.grad_dtype is None
    z.grad = L.ones(2, dtype=L.float64)
    assert z.grad.dtype == L.float64
    w = L.ones(2, requires_grad=True)
    w.grad_dtype = L.float64
    L.autograd.backward((w * w).sum(), create_graph=True)
    assert w.grad.dtype == L.float64 and w.grad.requires_grad and w.grad.tolist() == [2.0, 2.0]


def test_old_dunders(L: Any) -> None:
    assert L.tensor(6.0).__div__(4).item() == 1.5 and L.tensor(6).__div__(4).item() == 1.5
    y = L.tensor(6.0)
    assert y.__idiv__(4) is y and y.item() == 1.5
    assert L.tensor(2.7).__long__() == 2 and L.tensor([2.7]).__long__() == 2
    assert L.tensor(2.0).__nonzero__() is True and L.tensor(0.0).__nonzero__() is False


def test_array_wrap_and_numpy_functions(L: Any) -> None:
    x = L.ones(2)
    w = x.__array_wrap__(np.array([True, False]))
    assert w.dtype == L.uint8 and w.tolist() == [1, 0]
    assert x.__array_wrap__(np.array([1.0, 2.0])).dtype == L.float64
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # NumPy 2 asks for more parameters than torch's
        r = np.sin(L.tensor([1.0, 2.0]))
    assert isinstance(r, L.Tensor) and np.allclose(r.tolist(), np.sin([1.0, 2.0]))


def test_dlpack_exchange_with_numpy_and_torch() -> None:
    x = tensorlib.arange(6.0).reshape(2, 3)
    a = np.from_dlpack(x)
    assert a.tolist() == x.tolist() and a.__array_interface__["data"][0] == x.data_ptr()
    assert tuple(x.__dlpack_device__()) == (1, 0) and x.__dlpack_device__()[0].name == "kDLCPU"
    assert type(x.__dlpack__(max_version=(1, 0))).__name__ == "PyCapsule"
    torch = pytest.importorskip("torch")
    t = torch.from_dlpack(x)
    assert t.tolist() == x.tolist() and t.data_ptr() == x.data_ptr()
    assert x.__dlpack_device__() == torch.ones(1).__dlpack_device__()
    assert np.from_dlpack(x.t()).tolist() == x.t().tolist()


def test_tensor_index_dispatches_and_is_not_implemented() -> None:
    class Dims(tensorlib.Tensor):
        @classmethod
        def __torch_function__(cls, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            if func is tensorlib.Tensor.index:
                return "bound"
            return super().__torch_function__(func, types, args, kwargs)

    assert tensorlib.ones(2).as_subclass(Dims).index(0, "d") == "bound"
    with pytest.raises(NotImplementedError, match="first-class dimensions"):
        tensorlib.ones(2).index(0, "d")


def test_half_precision_conversions_are_absent() -> None:
    # tensorlib has no bfloat16 or complex32 dtype, so no Tensor.bfloat16() / Tensor.chalf()
    assert not hasattr(tensorlib, "bfloat16") and not hasattr(tensorlib.Tensor, "bfloat16")
    assert not hasattr(tensorlib, "complex32") and not hasattr(tensorlib.Tensor, "chalf")


def test_sum_with_a_dtype_accumulates_in_it():
    # torch accumulates in the requested dtype: int8 wraps around, bool sums to "any element is nonzero"
    small = tensorlib.tensor([100, 100], dtype=tensorlib.int8)
    assert tensorlib.sum(small, dtype=tensorlib.int8).item() == -56
    assert tensorlib.sum(small).item() == 200 and tensorlib.sum(small).dtype == tensorlib.int64
    assert tensorlib.sum(tensorlib.tensor([0, 2, 0]), dtype=tensorlib.bool).item() is True
    assert tensorlib.sum(tensorlib.zeros(3, dtype=tensorlib.int64), dtype=tensorlib.bool).item() is False
    products = tensorlib.ones(3, 2, 2, dtype=tensorlib.int8)
    assert tensorlib.addbmm(tensorlib.ones(2, 2, dtype=tensorlib.int8), products, products).dtype == tensorlib.int8


def test_numbers_written_into_integer_tensors_follow_torchs_conversion():
    a = tensorlib.tensor([1, 2, 3], dtype=tensorlib.uint8)
    a.sub_(tensorlib.tensor([1, 5, 9], dtype=tensorlib.uint8), alpha=-3)  # alpha wraps to 253 in uint8
    assert a.tolist() == [4, 17, 30]
    b = tensorlib.tensor([1, 2, 3], dtype=tensorlib.int8).add(tensorlib.tensor([1, 5, 9], dtype=tensorlib.int8), alpha=100)
    assert b.tolist() == [101, -10, -121]  # 502 and 903 wrapped into int8
    filled = tensorlib.ones(2, dtype=tensorlib.uint8).fill_(tensorlib.tensor(3 + 1j))  # a tensor value is cast
    assert filled.tolist() == [3, 3]
    assert tensorlib.ones(2, dtype=tensorlib.int8).fill_(-1.5).tolist() == [-1, -1]  # truncated toward zero
    assert tensorlib.ones(1, dtype=tensorlib.int64).fill_(2.0**63).tolist() == [-(2**63)]
    assert tensorlib.ones(2).fill_(2 + 0j).tolist() == [2.0, 2.0]


def test_normal_with_a_complex_mean_has_unit_variance_around_it():
    tensorlib.manual_seed(0)
    mean = tensorlib.full((20000,), 1 + 2j, dtype=tensorlib.complex128)
    z = tensorlib.normal(mean, 1.0).numpy()
    assert z.dtype == np.complex128
    assert abs(z.mean() - (1 + 2j)) < 0.05 and abs(np.mean(np.abs(z - (1 + 2j)) ** 2) - 1) < 0.05


def test_edge_inputs_that_torch_accepts():
    F = tensorlib.nn.functional
    assert tensorlib.zeros(3, 3, dtype=tensorlib.uint8).fill_diagonal_(-2).diagonal().tolist() == [254] * 3
    mask = tensorlib.ones(3, dtype=tensorlib.bool)
    assert tensorlib.ones(3, dtype=tensorlib.uint8).masked_fill(mask, -2).tolist() == [254] * 3
    assert F.pad(tensorlib.tensor(1), ()).item() == 1  # nothing to pad on a 0-d tensor
    weight = tensorlib.full((3, 2), 2.0)
    F.embedding(tensorlib.tensor([0, 1]), weight, max_norm=tensorlib.tensor(1.0))  # a 0-d tensor bound
    assert np.allclose(weight.numpy()[:2], 2.0 / (np.sqrt(8) + 1e-7)) and weight.numpy()[2].tolist() == [2.0, 2.0]
    # no features: every score is 0, so the attention is the mean of the values
    out = F.scaled_dot_product_attention(tensorlib.ones(2, 3, 0), tensorlib.ones(2, 2, 0),
                                         tensorlib.arange(4.0).reshape(2, 2, 1))
    assert out[:, :, 0].tolist() == [[0.5] * 3, [2.5] * 3]
    assert tensorlib.poisson(tensorlib.tensor(2.0)).shape == ()


def test_dirac_rejects_a_group_count_that_is_not_positive():
    with pytest.raises(ValueError, match="groups must be a positive integer"):
        tensorlib.nn.init.dirac_(tensorlib.ones(2, 2, 3), 0)


@pytest.mark.parametrize("shape", [(), (3,), (2, 3)])
def test_tanh_and_sigmoid_gradients_of_any_shape(shape):
    # their backward formulas compute in place on their own buffers when nothing is recorded
    rng = np.random.default_rng(4)
    a = rng.standard_normal(shape).astype(np.float32)
    for fn, derivative in ((tensorlib.tanh, lambda v: 1 - np.tanh(v) ** 2),
                           (tensorlib.sigmoid, lambda v: np.exp(-v) / (1 + np.exp(-v)) ** 2)):
        x = tensorlib.tensor(a, requires_grad=True)
        weights = tensorlib.tensor(np.full(shape, 0.5, np.float32))
        (fn(x) * weights).sum().backward()
        assert x.grad.dtype == tensorlib.float32 and x.grad.shape == shape
        assert np.allclose(x.grad.numpy(), 0.5 * derivative(a), rtol=1e-5)


@pytest.mark.parametrize("name", ["xlogy", "special.xlogy", "special.xlog1py"])
@pytest.mark.parametrize("number, values, dtype", [
    (2, [1.0, 2.0, 0.0], "float32"), (0, [0.0, 3.0, float("nan")], "float32"), (2.5, [1, 2, 3], "int64"),
    (True, [1.0, 2.0, 4.0], "float64"), (3, [0.5, 1.0, 2.0], "float16"),
])
def test_a_number_first_xlogy_computes_as_a_tensor_would(name, number, values, dtype):
    fn = operator.attrgetter(name)(tensorlib)
    other = tensorlib.tensor(values, dtype=getattr(tensorlib, dtype))
    got = fn(number, other)
    want = fn(tensorlib.tensor(number, dtype=got.dtype), other)  # torch: (Number self, Tensor other)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_a_number_first_xlogy_is_differentiable_in_other():
    y = tensorlib.tensor([0.5, 1.0, 2.0], dtype=tensorlib.float64, requires_grad=True)
    assert tensorlib.autograd.gradcheck(lambda v: tensorlib.xlogy(2, v), (y,))
    assert tensorlib.autograd.gradgradcheck(lambda v: tensorlib.special.xlog1py(3, v), (y,))


@pytest.mark.parametrize("args", [(2, 3), ("a", None)])
def test_xlogy_still_needs_a_tensor(args):
    if args[1] is None:
        args = (args[0], tensorlib.ones(1))
    with pytest.raises(TypeError, match="xlogy"):
        tensorlib.xlogy(*args)


def test_number_first_xlogy_matches_torch():
    torch = pytest.importorskip("torch")
    for ours, theirs in ((tensorlib.xlogy, torch.xlogy), (tensorlib.special.xlog1py, torch.special.xlog1py)):
        for number, values in ((2, [1.0, 2.0, 0.0]), (0, [0.0, 3.0, float("nan")]), (2.5, [1, 2, 3])):
            got, want = ours(number, tensorlib.tensor(values)), theirs(number, torch.tensor(values))
            assert str(got.dtype).split(".")[1] == str(want.dtype).split(".")[1]
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6, equal_nan=True)


@pytest.mark.parametrize("exponent", [3, 3.0, -1, -2, -0.5, np.float32(3)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_pow_by_small_exponents_is_a_product_as_in_torch(exponent, dtype) -> None:
    # x ** 3 is x * x * x, x ** -1 a reciprocal, x ** -2 the reciprocal of a square, x ** -0.5 of a root: torch's
    # kernels and roundings (NumPy's power differs in the last bit and costs hundreds of times more)
    x = np.random.default_rng(5).standard_normal(2000).astype(dtype)
    x[:4] = [0.0, -0.0, np.inf, -np.inf]
    got = (tensorlib.from_numpy(x) ** exponent).numpy()
    with np.errstate(all="ignore"):
        expected = {3: x * x * x, -1: 1 / x, -2: 1 / (x * x), -0.5: 1 / np.sqrt(x)}[float(exponent)]
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, expected)
    leaf = tensorlib.tensor(np.abs(x[4:12]).astype(np.float64) + 0.5, requires_grad=True)
    assert gradcheck(lambda t: t ** exponent, (leaf,)) and gradgradcheck(lambda t: t ** exponent, (leaf,))
    assert (tensorlib.tensor([2.0]) ** complex(exponent)).dtype is tensorlib.complex64  # a complex exponent promotes
    torch = pytest.importorskip("torch")
    np.testing.assert_array_equal(got, (torch.from_numpy(x) ** exponent).numpy())


@pytest.mark.parametrize("exponent", [4, 5, -3, -4, 7.0, 0, 1, True])
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_pow_by_an_integer_is_the_power_of_the_magnitude_signed_back(exponent, dtype) -> None:
    # |x| ** n in double precision (NumPy's power of a negative base takes a much slower path), the sign restored
    # for odd n: within an ulp of torch's, 0-d tensors included
    x = (np.random.default_rng(6).standard_normal(3000) * 4).astype(dtype)
    x[:6] = [0.0, -0.0, np.inf, -np.inf, np.nan, -2.0]
    got = (tensorlib.from_numpy(x) ** exponent).numpy()
    with np.errstate(all="ignore"):
        ref = np.power(x.astype(np.longdouble), int(exponent)).astype(dtype)  # correctly rounded
    assert got.dtype == dtype
    assert np.array_equal(np.isnan(got), np.isnan(ref))
    finite = np.isfinite(ref)
    assert np.all(np.abs(got[finite] - ref[finite]) <= np.spacing(np.abs(ref[finite])))  # within an ulp
    beyond = np.isinf(ref)  # overflowed: inf, or (an ulp away) the largest finite value
    assert np.all((got[beyond] == ref[beyond]) | (np.abs(got[beyond]) == np.finfo(dtype).max))
    assert (tensorlib.tensor(-2.0, dtype=tensorlib.float32) ** exponent).item() == (-2.0) ** int(exponent)
    torch = pytest.importorskip("torch")
    theirs = (torch.from_numpy(x) ** exponent).numpy()
    both = np.isfinite(theirs) & np.isfinite(got)
    assert np.all(np.abs(got[both] - theirs[both]) <= np.spacing(np.abs(theirs[both])))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_sigmoid_is_torchs_formula(dtype) -> None:
    # 1 / (1 + exp(-x)) (half precision computed in float32 and rounded once): 0 for very negative x, not nan
    x = (np.random.default_rng(7).standard_normal(3000) * 6).astype(dtype)
    x[:6] = [0.0, -0.0, np.inf, -np.inf, np.nan, -6e4]  # exp(6e4) overflows in every dtype
    got = tensorlib.sigmoid(tensorlib.from_numpy(x)).numpy()
    assert got.dtype == dtype and got[0] == got[1] == 0.5 and got[2] == 1.0 and got[3] == got[5] == 0.0
    assert np.isnan(got[4])
    with np.errstate(over="ignore"):
        expected = (1.0 / (1.0 + np.exp(-x[6:].astype(np.longdouble))))
    # within three ulps of the exact value (three roundings: exp, the sum, the reciprocal), subnormals too
    assert np.all(np.abs(got[6:] - expected) <= 3 * np.spacing(expected.astype(dtype)))
    assert tensorlib.sigmoid(tensorlib.tensor(0.0)).item() == 0.5  # 0-d
    leaf = tensorlib.tensor(x[6:16].astype(np.float64), requires_grad=True)
    assert gradcheck(tensorlib.sigmoid, (leaf,)) and gradgradcheck(tensorlib.sigmoid, (leaf,))
    torch = pytest.importorskip("torch")
    theirs = torch.sigmoid(torch.from_numpy(x)).numpy()
    finite = ~np.isnan(theirs)
    # their exp is not NumPy's: within a few ulps of each other, both within three of the exact value
    assert np.all(np.abs(got[finite] - theirs[finite]) <= 4 * np.spacing(theirs[finite]))


@pytest.mark.parametrize("kind", ["distinct", "ties", "integers", "signed zeros", "with nan"])
def test_topk_selects_what_a_stable_sort_would_without_sorting_whole_rows(kind) -> None:
    # a partition finds each row's k-th value; among the values equal to it the first ones are taken: the same
    # indices, in the same order, as the full stable sort's first k (rows with NaN still take the full sort)
    from tensorlib.ops import sorting

    rng = np.random.default_rng(8)
    for trial in range(40):
        shape = [int(v) for v in rng.integers(1, 5, 3)]
        d = trial % 3
        shape[d] = int(rng.integers(32, 80))
        a = {"distinct": lambda: rng.standard_normal(shape).astype(np.float32),
             "ties": lambda: rng.integers(0, 4, shape).astype(np.float64),
             "integers": lambda: rng.integers(-3, 3, shape),
             "signed zeros": lambda: np.where(rng.random(shape) < 0.3, -0.0, 0.0),
             "with nan": lambda: np.where(rng.random(shape) < 0.05, np.nan, rng.standard_normal(shape))}[kind]()
        for k in (1, 3, shape[d] // 3):
            for largest in (True, False):
                full = sorting._sort_indices(a, d, largest)[(slice(None),) * d + (slice(0, k),)]
                values, indices = tensorlib.from_numpy(a).topk(k, d, largest=largest)
                assert np.array_equal(indices.numpy(), full)
                np.testing.assert_array_equal(values.numpy(), np.take_along_axis(a, full, axis=d))
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(9).standard_normal((6, 100))
    for largest in (True, False):
        ours, theirs = tensorlib.from_numpy(a).topk(7, 1, largest), torch.from_numpy(a).topk(7, 1, largest)
        assert np.array_equal(ours[1].numpy(), theirs[1].numpy()) and np.array_equal(ours[0].numpy(), theirs[0].numpy())


# -- running extremes, mode and order statistics without loops over the elements or rows -------------------------


def _random_arrays(seed: int, count: int, nan: bool = True):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        shape = tuple(int(n) for n in rng.integers(1, 40, rng.integers(1, 4)))
        a = rng.integers(-3, 4, shape).astype(rng.choice(["float64", "float32", "int64", "int8"]))
        if nan and a.dtype.kind == "f" and rng.random() < 0.5:
            a.reshape(-1)[rng.integers(0, a.size, 3)] = np.nan
        yield a, int(rng.integers(-len(shape), len(shape)))


@pytest.mark.parametrize("name", ["cummax", "cummin"])
def test_running_extremes_match_torch_with_ties_and_nan(name):
    torch = pytest.importorskip("torch")
    for a, d in _random_arrays(3, 150):
        ours, theirs = getattr(tensorlib, name)(tensorlib.tensor(a), d), getattr(torch, name)(torch.tensor(a), d)
        np.testing.assert_array_equal(ours.values.numpy(), theirs.values.numpy())
        np.testing.assert_array_equal(ours.indices.numpy(), theirs.indices.numpy())


def test_mode_matches_torch_and_counts_nans_as_one_value():
    torch = pytest.importorskip("torch")
    for a, d in _random_arrays(4, 150, nan=False):
        ours, theirs = tensorlib.mode(tensorlib.tensor(a), d), torch.mode(torch.tensor(a), d)
        np.testing.assert_array_equal(ours.values.numpy(), theirs.values.numpy())
        # the value's last index (torch's index among equal values is another one on rows of more than 16)
        idx = np.expand_dims(ours.indices.numpy(), d)
        np.testing.assert_array_equal(np.take_along_axis(a, idx, d), np.expand_dims(ours.values.numpy(), d))
        later = np.arange(a.shape[d]).reshape([-1 if i == d % a.ndim else 1 for i in range(a.ndim)]) > idx
        assert not np.any(later & (a == np.expand_dims(ours.values.numpy(), d)))
        if a.shape[d] <= 16:
            np.testing.assert_array_equal(ours.indices.numpy(), theirs.indices.numpy())
    # NaNs are one value here (torch's order among NaNs is unspecified): two NaNs outnumber two distinct numbers
    r = tensorlib.mode(tensorlib.tensor([[3.0, np.nan, 1.0, np.nan], [2.0, 2.0, np.nan, 5.0]]), 1)
    assert np.isnan(r.values[0].item()) and r.indices.tolist() == [3, 1] and r.values[1].item() == 2.0


def test_kthvalue_and_median_pick_the_stable_sorts_element():
    torch = pytest.importorskip("torch")
    from tensorlib.ops.sorting import _sort_indices

    rng = np.random.default_rng(6)
    for _ in range(100):
        a = rng.integers(-4, 5, (int(rng.integers(1, 6)), int(rng.integers(1, 90)))).astype(np.float64)
        k = int(rng.integers(1, a.shape[1] + 1))
        got = tensorlib.kthvalue(tensorlib.tensor(a), k, 1)
        want_idx = _sort_indices(a, 1, False)[:, k - 1]
        np.testing.assert_array_equal(got.indices.numpy(), want_idx)
        np.testing.assert_array_equal(got.values.numpy(), torch.kthvalue(torch.tensor(a), k, 1).values.numpy())
        med = tensorlib.median(tensorlib.tensor(a), 1)
        np.testing.assert_array_equal(med.indices.numpy(), _sort_indices(a, 1, False)[:, (a.shape[1] - 1) // 2])
        np.testing.assert_array_equal(med.values.numpy(), torch.median(torch.tensor(a), 1).values.numpy())


def test_gradients_through_strided_views_of_a_contiguous_base():
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(7).standard_normal((6, 40))
    calls = [lambda L, x: x.unfold(1, 8, 4), lambda L, x: L.as_strided(x, (6, 10), (40, 3), 2),
             lambda L, x: x[:, 1:].unfold(1, 5, 3).unfold(0, 2, 1)]
    for call in calls:
        grads = []
        for L in (tensorlib, torch):
            x = L.tensor(a, requires_grad=True)
            y = call(L, x)
            (g,) = L.autograd.grad(y, x, L.tensor(np.linspace(-1, 1, y.numel()).reshape(tuple(y.shape))))
            grads.append(g.numpy())
        np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12, atol=1e-14)
