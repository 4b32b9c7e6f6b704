"""Error paths of ops: torch's exception types and messages, never a NumPy error leaking through.

Each case is a function of the library module, so the same call runs on
``tensorlib`` and (when installed) on ``torch``, whose exception type must match.
"""

from __future__ import annotations

import re
from typing import Any, Callable

import numpy as np
import pytest

import tensorlib


class ScalarTensor:
    """A tensor-like object that does not take part in the dispatch protocol."""

    def __init__(self, value: float) -> None:
        self.value = value


def m(L: Any, *shape: int) -> Any:
    """A float tensor of ``shape`` with distinct values."""
    n = int(np.prod(shape)) if shape else 1
    return L.arange(n, dtype=L.float32).reshape(shape)


BROADCAST = "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1"

# id -> (call, expected exception, regex the message must match)
CASES: dict[str, tuple[Callable[[Any], Any], type, str]] = {
    # shapes that do not broadcast
    "add-broadcast": (lambda L: L.add(m(L, 2, 3), m(L, 2, 2)), RuntimeError, re.escape(BROADCAST)),
    "mul-broadcast": (lambda L: m(L, 2, 3) * m(L, 2, 2), RuntimeError, re.escape(BROADCAST)),
    "sub-broadcast": (lambda L: L.sub(m(L, 2, 3), m(L, 2, 2)), RuntimeError, re.escape(BROADCAST)),
    "div-broadcast": (lambda L: L.div(m(L, 2, 3), m(L, 2, 2)), RuntimeError, re.escape(BROADCAST)),
    "pow-broadcast": (lambda L: L.pow(m(L, 2, 3), m(L, 2, 2)), RuntimeError, re.escape(BROADCAST)),
    "maximum-broadcast": (lambda L: L.maximum(m(L, 2, 3), m(L, 2, 2)), RuntimeError, re.escape(BROADCAST)),
    "eq-broadcast": (lambda L: L.eq(m(L, 2, 3), m(L, 2, 2)), RuntimeError, re.escape(BROADCAST)),
    "where-broadcast": (lambda L: L.where(m(L, 2, 3) > 1, m(L, 2, 3), m(L, 2, 2)), RuntimeError, "must match"),
    "lerp-broadcast": (lambda L: L.lerp(m(L, 2, 3), m(L, 2, 2), 0.5), RuntimeError, "must match"),
    "remainder-broadcast": (lambda L: L.remainder(m(L, 2, 3), m(L, 2, 2)), RuntimeError, re.escape(BROADCAST)),
    "atan2-broadcast": (lambda L: L.atan2(m(L, 2, 3), m(L, 2, 2)), RuntimeError, re.escape(BROADCAST)),
    "add_-broadcast": (lambda L: m(L, 2, 2).add_(m(L, 2, 3)), RuntimeError, "must match|doesn't match"),
    "add_-into-smaller": (lambda L: m(L, 3).add_(m(L, 2, 3)), RuntimeError, "doesn't match the broadcast shape"),
    "masked_fill-broadcast": (lambda L: m(L, 2, 3).masked_fill(m(L, 2, 2) > 1, 0.0), RuntimeError, "must match"),
    "broadcast_tensors": (lambda L: L.broadcast_tensors(m(L, 2, 3), m(L, 2, 2)), RuntimeError, "must match|shape mismatch"),
    # matrix products
    "mm-shapes": (lambda L: L.mm(m(L, 2, 3), m(L, 2, 3)), RuntimeError, re.escape("mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)")),
    "mm-1d": (lambda L: L.mm(m(L, 3), m(L, 3, 2)), RuntimeError, "must be a matrix"),
    "matmul-shapes": (lambda L: L.matmul(m(L, 2, 3), m(L, 4, 2)), RuntimeError, "cannot be multiplied"),
    "matmul-operator": (lambda L: m(L, 2, 3) @ m(L, 4), RuntimeError, "size mismatch|cannot be multiplied"),
    "matmul-0d": (lambda L: L.matmul(m(L), m(L, 2)), RuntimeError, "at least 1D"),
    "matmul-batch": (lambda L: L.matmul(m(L, 2, 2, 3), m(L, 3, 3, 2)), RuntimeError, "must match"),
    "bmm-shapes": (lambda L: L.bmm(m(L, 2, 2, 3), m(L, 2, 2, 3)), RuntimeError, "Expected size"),
    "bmm-2d": (lambda L: L.bmm(m(L, 2, 3), m(L, 3, 2)), RuntimeError, "batch1 must be a 3D tensor"),
    "mv-shapes": (lambda L: L.mv(m(L, 2, 3), m(L, 2)), RuntimeError, "size mismatch"),
    "dot-shapes": (lambda L: L.dot(m(L, 3), m(L, 2)), RuntimeError, "inconsistent tensor size"),
    "dot-2d": (lambda L: L.dot(m(L, 2, 3), m(L, 2, 3)), RuntimeError, "1D tensors expected"),
    "mm-dtypes": (lambda L: L.mm(m(L, 2, 3), m(L, 3, 2).double()), RuntimeError, "same dtype"),
    "addmm-shapes": (lambda L: L.addmm(m(L, 3, 3), m(L, 2, 3), m(L, 3, 2)), RuntimeError, "must match|expand"),
    "tensordot-shapes": (lambda L: L.tensordot(m(L, 2, 3), m(L, 2, 3), 1), RuntimeError, "contracted dimensions|cannot be multiplied"),
    "outer-2d": (lambda L: L.outer(m(L, 2, 2), m(L, 2)), RuntimeError, "1-D|1D"),
    "cross-size": (lambda L: L.cross(m(L, 2, 2), m(L, 2, 2), dim=1), RuntimeError, "must have length 3"),
    "trace-1d": (lambda L: L.trace(m(L, 3)), RuntimeError, "expected a matrix"),
    "einsum-operands": (lambda L: L.einsum("ij,jk->ik", m(L, 2, 3)), RuntimeError, "operands"),
    "einsum-sizes": (lambda L: L.einsum("ij,jk->ik", m(L, 2, 3), m(L, 2, 2)), RuntimeError, "subscript j"),
    # indices out of range
    "getitem-int": (lambda L: m(L, 3)[5], IndexError, "index 5 is out of bounds for dimension 0 with size 3"),
    "getitem-negative": (lambda L: m(L, 3)[-4], IndexError, "out of bounds"),
    "getitem-second-dim": (lambda L: m(L, 2, 3)[:, 7], IndexError, "out of bounds for dimension 1 with size 3"),
    "getitem-tensor": (lambda L: m(L, 3)[L.tensor([0, 3])], IndexError, "out of bounds"),
    "getitem-too-many": (lambda L: m(L, 3)[0, 0], IndexError, "too many indices"),
    "getitem-float": (lambda L: m(L, 3)[1.5], IndexError, "only integers, slices"),
    "getitem-float-tensor": (lambda L: m(L, 3)[L.tensor([0.0])], IndexError, "tensors used as indices must be long"),
    "getitem-bool-shape": (lambda L: m(L, 3)[L.tensor([True, False])], IndexError, "shape of the mask"),
    "getitem-0d-int": (lambda L: m(L)[0], IndexError, "invalid index of a 0-dim tensor"),
    "setitem-int": (lambda L: m(L, 3).__setitem__(3, 1.0), IndexError, "out of bounds"),
    "index_select": (lambda L: L.index_select(m(L, 2, 3), 1, L.tensor([0, 3])), RuntimeError, "out of DATA bounds"),
    "select": (lambda L: L.select(m(L, 2, 3), 1, 3), IndexError, "out of range"),
    "narrow": (lambda L: L.narrow(m(L, 2, 3), 1, 2, 2), RuntimeError, "exceeds dimension size"),
    "gather": (lambda L: L.gather(m(L, 2, 3), 1, L.tensor([[0, 3]])), RuntimeError, "out of bounds"),
    "scatter": (lambda L: L.scatter(m(L, 2, 3), 1, L.tensor([[0, 3]]), m(L, 1, 2)), RuntimeError, "out of bounds"),
    "take": (lambda L: L.take(m(L, 2, 3), L.tensor([6])), IndexError, "out of range|out of bounds"),
    "index_put": (lambda L: L.index_put(m(L, 3), (L.tensor([3]),), L.tensor([1.0])), IndexError, "out of bounds"),
    "index_add": (lambda L: L.index_add(m(L, 2, 3), 1, L.tensor([3]), m(L, 2, 1)), RuntimeError, "out of bounds"),
    "index_add-sizes": (lambda L: L.index_add(m(L, 2, 3), 1, L.tensor([0]), m(L, 2, 2)), RuntimeError, "Number of indices"),
    "index_fill": (lambda L: L.index_fill(m(L, 2, 3), 1, L.tensor([3]), 1.0), IndexError, "out of bounds"),
    "topk-k": (lambda L: L.topk(m(L, 3), 4), RuntimeError, "out of range"),
    "kthvalue-k": (lambda L: L.kthvalue(m(L, 3), 4), RuntimeError, "out of range"),
    # impossible views and shapes
    "view-noncontiguous": (lambda L: m(L, 2, 3).t().view(6), RuntimeError, "view size is not compatible"),
    "view-size": (lambda L: m(L, 2, 3).view(4), RuntimeError, re.escape("shape '[4]' is invalid for input of size 6")),
    "view-two-inferred": (lambda L: m(L, 2, 3).view(-1, -1), RuntimeError, "only one dimension can be inferred"),
    "reshape-size": (lambda L: L.reshape(m(L, 2, 3), (4, 2)), RuntimeError, "is invalid for input of size 6"),
    "reshape-negative": (lambda L: L.reshape(m(L, 2, 3), (-2, 3)), RuntimeError, "invalid shape dimension -2"),
    "expand": (lambda L: m(L, 2, 3).expand(3, 3), RuntimeError, "must match the existing size"),
    "expand-fewer-dims": (lambda L: m(L, 2, 3).expand(3), RuntimeError, "number of sizes provided"),
    "broadcast_to": (lambda L: L.broadcast_to(m(L, 2, 3), (2, 2)), RuntimeError, "must match the existing size"),
    "permute-ndims": (lambda L: L.permute(m(L, 2, 3), (0,)), RuntimeError, "number of dimensions"),
    "permute-repeated": (lambda L: L.permute(m(L, 2, 3), (0, 0)), RuntimeError, "repeated dim|duplicate dims"),
    "flatten-order": (lambda L: L.flatten(m(L, 2, 3, 2), 2, 1), RuntimeError, "start_dim cannot come after end_dim"),
    "unflatten-sizes": (lambda L: L.unflatten(m(L, 2, 6), 1, (4, 2)), RuntimeError, "unflatten|invalid"),
    "cat-ndim": (lambda L: L.cat([m(L, 2, 3), m(L, 3)]), RuntimeError, "same number of dimensions"),
    "cat-sizes": (lambda L: L.cat([m(L, 2, 3), m(L, 2, 2)]), RuntimeError, "Sizes of tensors must match except in dimension 0"),
    "cat-0d": (lambda L: L.cat([m(L), m(L)]), RuntimeError, "zero-dimensional tensor"),
    "cat-empty": (lambda L: L.cat([]), ValueError, "non-empty list"),
    "stack-sizes": (lambda L: L.stack([m(L, 2), m(L, 3)]), RuntimeError, "stack expects each tensor to be equal size"),
    "split-sections": (lambda L: L.split(m(L, 5), [2, 2]), RuntimeError, "split_with_sizes expects split_sizes to sum exactly to 5"),
    "chunk-zero": (lambda L: L.chunk(m(L, 4), 0), RuntimeError, "chunk expects `chunks` to be greater than 0"),
    "repeat-fewer": (lambda L: m(L, 2, 3).repeat(2), RuntimeError, "Number of dimensions of repeat dims"),
    "roll-mismatch": (lambda L: L.roll(m(L, 2, 3), (1, 1), (0,)), RuntimeError, "shifts and dimensions must align"),
    "diagonal-same-dims": (lambda L: L.diagonal(m(L, 3, 3), 0, 1, 1), RuntimeError, "diagonal dimensions cannot be identical"),
    "diag-3d": (lambda L: L.diag(m(L, 2, 2, 2)), RuntimeError, "1D or 2D"),
    "movedim-count": (lambda L: L.movedim(m(L, 2, 3), (0, 1), (1,)), RuntimeError, "movedim: Invalid source or destination dims"),
    "t-3d": (lambda L: L.t(m(L, 2, 2, 2)), RuntimeError, "expects a tensor with <= 2 dimensions"),
    "tile-type": (lambda L: L.tile(m(L, 2), 2), TypeError, "tile"),
    "gather-ndim": (lambda L: L.gather(m(L, 2, 3), 1, L.tensor([0, 1])), RuntimeError, "same number of dimensions"),
    # wrong argument types
    "mean-type": (lambda L: L.mean(ScalarTensor(2.0)), TypeError, re.escape("mean(): argument 'input' (position 1) must be Tensor, not ScalarTensor")),
    "sum-list": (lambda L: L.sum([1, 2]), TypeError, re.escape("sum(): argument 'input' (position 1) must be Tensor, not list")),
    "exp-float": (lambda L: L.exp(2.0), TypeError, re.escape("exp(): argument 'input' (position 1) must be Tensor, not float")),
    "mm-other": (lambda L: L.mm(m(L, 2, 2), 3), TypeError, r"mm\(\): argument 'mat2' \(position 2\) must be Tensor, not int"),
    "add-str": (lambda L: L.add(m(L, 2), "a"), TypeError, "add"),
    "remainder-both-numbers": (lambda L: L.remainder(1, 2), TypeError, "remainder"),
    "maximum-number": (lambda L: L.maximum(m(L, 2), 1.0), TypeError, r"maximum\(\): argument 'other' \(position 2\) must be Tensor, not float"),
    "cat-tensor": (lambda L: L.cat(m(L, 2)), TypeError, r"cat\(\): argument 'tensors' \(position 1\) must be tuple of Tensors, not Tensor"),
    "cat-element": (lambda L: L.cat([m(L, 2), 3]), TypeError, "must be tuple of Tensors"),
    "reshape-float": (lambda L: L.reshape(m(L, 2, 3), (2.0, 3)), TypeError, "must be tuple of ints"),
    "view-float": (lambda L: m(L, 2, 3).view(6.0), TypeError, "must be tuple of ints"),
    "sum-dim-float": (lambda L: L.sum(m(L, 2, 3), 1.0), TypeError, "sum"),
    "transpose-dim-str": (lambda L: L.transpose(m(L, 2, 3), "a", 1), TypeError, "transpose"),
    "gather-float-index": (lambda L: L.gather(m(L, 2, 3), 1, m(L, 2, 3)), RuntimeError, "gather"),
    "index_select-float-index": (lambda L: L.index_select(m(L, 2, 3), 1, m(L, 2)), (RuntimeError, IndexError), "index"),
    "masked_fill-float-mask": (lambda L: m(L, 2).masked_fill(m(L, 2), 0.0), RuntimeError, "only supports boolean masks"),
    "where-int-condition": (lambda L: L.where(L.tensor([1, 0]), m(L, 2), m(L, 2)), RuntimeError, "boolean"),
    "logical_and-number": (lambda L: L.logical_and(m(L, 2), 1), TypeError, r"logical_and\(\): argument 'other' \(position 2\) must be Tensor"),
    "clamp-none": (lambda L: L.clamp(m(L, 2)), RuntimeError, "At least one of 'min' or 'max' must not be None"),
    "div-rounding": (lambda L: L.div(m(L, 2), 2, rounding_mode="round"), RuntimeError, "rounding_mode"),
    # bad dims
    "sum-dim": (lambda L: L.sum(m(L, 2, 3), 2), IndexError, re.escape("Dimension out of range (expected to be in range of [-2, 1], but got 2)")),
    "mean-dim": (lambda L: L.mean(m(L, 2, 3), -3), IndexError, re.escape("Dimension out of range (expected to be in range of [-2, 1], but got -3)")),
    "sum-0d-dim": (lambda L: L.sum(m(L), 1), IndexError, re.escape("Dimension out of range (expected to be in range of [-1, 0], but got 1)")),
    "sum-repeated-dims": (lambda L: L.sum(m(L, 2, 3), (1, 1)), RuntimeError, "appears multiple times"),
    "max-dim": (lambda L: L.max(m(L, 2, 3), 2), IndexError, "Dimension out of range"),
    "argmax-dim": (lambda L: L.argmax(m(L, 2, 3), 5), IndexError, "Dimension out of range"),
    "softmax-dim": (lambda L: L.softmax(m(L, 2, 3), 2), IndexError, "Dimension out of range"),
    "cumsum-dim": (lambda L: L.cumsum(m(L, 2, 3), -3), IndexError, "Dimension out of range"),
    "transpose-dim": (lambda L: L.transpose(m(L, 2, 3), 0, 2), IndexError, "Dimension out of range"),
    "unsqueeze-dim": (lambda L: L.unsqueeze(m(L, 2, 3), 3), IndexError, re.escape("(expected to be in range of [-3, 2], but got 3)")),
    "squeeze-dim": (lambda L: L.squeeze(m(L, 2, 3), 2), IndexError, "Dimension out of range"),
    "cat-dim": (lambda L: L.cat([m(L, 2, 3), m(L, 2, 3)], 2), IndexError, "Dimension out of range"),
    "stack-dim": (lambda L: L.stack([m(L, 2, 3), m(L, 2, 3)], 3), IndexError, "Dimension out of range"),
    "flip-dim": (lambda L: L.flip(m(L, 2, 3), (2,)), IndexError, "Dimension out of range"),
    "var-dim": (lambda L: L.var(m(L, 2, 3), 2), IndexError, "Dimension out of range"),
    "logsumexp-dim": (lambda L: L.logsumexp(m(L, 2, 3), 2), IndexError, "Dimension out of range"),
    "sort-dim": (lambda L: L.sort(m(L, 2, 3), 2), IndexError, "Dimension out of range"),
    "gather-dim": (lambda L: L.gather(m(L, 2, 3), 2, L.tensor([[0]])), IndexError, "Dimension out of range"),
    "size-dim": (lambda L: m(L, 2, 3).size(2), IndexError, "Dimension out of range"),
    "norm-dim": (lambda L: L.norm(m(L, 2, 3), dim=2), IndexError, "Dimension out of range"),
    "diagonal-dim": (lambda L: L.diagonal(m(L, 2, 3), 0, 0, 2), IndexError, "Dimension out of range"),
    "prod-dim": (lambda L: L.prod(m(L, 2, 3), 2), IndexError, "Dimension out of range"),
    "select-0d": (lambda L: L.select(m(L), 0, 0), IndexError, "select\\(\\) cannot be applied to a 0-dim tensor"),
    # dtypes without a kernel
    "bitwise_and-float": (lambda L: L.bitwise_and(m(L, 2), m(L, 2)), NotImplementedError, "\"bitwise_and_cpu\" not implemented for 'Float'"),
    "sub-bool": (lambda L: L.tensor([True]) - L.tensor([False]), RuntimeError, "Subtraction, the `-` operator, with two bool tensors"),
    "neg-bool": (lambda L: -L.tensor([True]), RuntimeError, "Negation, the `-` operator, on a bool tensor"),
    "mean-int": (lambda L: L.mean(L.tensor([1, 2])), RuntimeError, "mean\\(\\): could not infer output dtype"),
    "remainder-int-zero": (lambda L: L.remainder(L.tensor([1, 2]), 0), RuntimeError, "ZeroDivisionError"),
    "floor_divide-bool": (lambda L: L.floor_divide(L.tensor([True]), L.tensor([True])), NotImplementedError, "div_floor_cpu"),
    "maximum-complex": (lambda L: L.maximum(L.tensor([1j]), L.tensor([1j])), RuntimeError, "maximum not implemented for complex tensors"),
    "sort-complex": (lambda L: L.sort(L.tensor([1j, 2j])), RuntimeError, "Sort does not support complex dtypes"),
    "argmax-bool": (lambda L: L.argmax(L.tensor([True, False])), RuntimeError, "does not support bool input"),
    "floor-complex": (lambda L: L.floor(L.tensor([1j])), NotImplementedError, "floor is not supported for complex inputs"),
    "sign-complex": (lambda L: L.sign(L.tensor([1j])), NotImplementedError, "torch.sgn"),
    "softmax-int": (lambda L: L.softmax(L.tensor([1, 2]), 0), NotImplementedError, "softmax_lastdim_kernel_impl"),
    "lerp-dtypes": (lambda L: L.lerp(m(L, 2), m(L, 2).double(), 0.5), RuntimeError, "expected dtype float for `end`"),
    "add-alpha-float": (lambda L: L.add(L.tensor([1]), L.tensor([2]), alpha=0.5), RuntimeError, "alpha must not be a floating point"),
    "add_-int-float": (lambda L: L.tensor([1]).add_(0.5), RuntimeError, "result type Float can't be cast to the desired output type Long"),
    "mul_-broadcast-out": (lambda L: L.tensor([1.0]).mul_(m(L, 2)), RuntimeError, "doesn't match the broadcast shape"),
    "requires-grad-int": (lambda L: L.tensor([1]).requires_grad_(), RuntimeError, "only Tensors of floating point"),
    "item-many": (lambda L: m(L, 2).item(), RuntimeError, "a Tensor with 2 elements cannot be converted to Scalar"),
    "bool-many": (lambda L: bool(m(L, 2)), RuntimeError, "Boolean value of Tensor with more than one value is ambiguous"),
    # unchecked arguments caught at the public boundary (tensorlib/_errors.py), in torch's words
    "rand-generator-int": (lambda L: L.rand(2, generator=3), TypeError,
                           r"rand\(\): argument 'generator' must be tensorlib.Generator, not int"),
    "zeros-dtype-tensor": (lambda L: L.zeros(2, dtype=L.ones(1)), TypeError,
                           r"zeros\(\): argument 'dtype' must be tensorlib.dtype, not Tensor"),
    "bernoulli-generator-float": (lambda L: L.bernoulli(L.ones(2), generator=1.5), TypeError,
                                  r"bernoulli\(\): argument 'generator' must be tensorlib.Generator, not float"),
    "atan2-complex": (lambda L: L.atan2(L.ones(2, dtype=L.complex64), L.ones(2, dtype=L.complex64)), NotImplementedError,
                      "\"atan2\" not implemented for 'ComplexFloat'"),
    "amax-keepdim-str": (lambda L: m(L, 2, 3).amax(0, "junk"), TypeError, "argument 'keepdim'.* must be bool, not str"),
    "aminmax-keepdim-str": (lambda L: L.aminmax(m(L, 2, 3), dim=0, keepdim="junk"), TypeError,
                            "argument 'keepdim' must be bool, not str"),
    # found by tests/fuzz: arguments that used to reach Python or NumPy unchecked
    "frobenius_norm-dim-float": (lambda L: L.frobenius_norm(m(L, 2, 3), 1.5), TypeError, "'dim'.*must be tuple of ints"),
    "lu_unpack-1d": (lambda L: L.lu_unpack(m(L, 3), L.ones(3, dtype=L.int32)), RuntimeError,
                     "Expected tensor with 2 or more dimensions"),
    "glu-0d": (lambda L: L.nn.functional.glu(m(L)), RuntimeError, "glu does not support scalars"),
    "dirac-empty": (lambda L: L.nn.init.dirac_(L.ones(2, 2, 0)), IndexError, "out of bounds for dimension 2 with size 0"),
    "pca_lowrank-1d": (lambda L: L.pca_lowrank(m(L, 3)), ValueError, ""),
    "svd_lowrank-0d": (lambda L: L.svd_lowrank(m(L)), ValueError, ""),
    "poisson-negative": (lambda L: L.poisson(L.tensor([-1.0])), RuntimeError, "invalid Poisson rate"),
    "poisson-nan": (lambda L: L.poisson(L.tensor([float("nan")])), RuntimeError, "invalid Poisson rate"),
    "poisson-int": (lambda L: L.poisson(L.ones(2, dtype=L.int32)), NotImplementedError, "\"poisson_cpu\" not implemented for 'Int'"),
    "randint_like-complex": (lambda L: L.randint_like(m(L, 3), high=L.tensor(1j)), RuntimeError, "cannot be converted"),
    "randint_like-str": (lambda L: L.randint_like(m(L, 3), "junk"), TypeError, "randint_like"),
    "randint_like-empty-range": (lambda L: L.randint_like(m(L, 3), 5, 2), RuntimeError, "from=5 >= to=2"),
    "searchsorted-leading-dims": (lambda L: L.searchsorted(L.ones(3, 3), L.ones(2, 0)), RuntimeError,
                                  "first N-1 dimensions of boundaries tensor and input value tensor must match"),
    "searchsorted-scalar-nd": (lambda L: L.searchsorted(L.ones(3, 0), L.tensor(1.0)), RuntimeError,
                               "input value can be a scalar only when boundaries tensor dimension is 1"),
    "tensordot-dims-none": (lambda L: L.tensordot(m(L, 3, 2), m(L, 2, 3), dims=None), RuntimeError,
                            "tensordot expects dims to be int or"),
    "tensordot-dims-negative": (lambda L: L.tensordot(m(L, 3, 2), m(L, 2, 3), dims=-1), RuntimeError, "dims >= 0"),
    "tensordot-dims-too-many": (lambda L: L.tensordot(m(L, 3, 2), m(L, 2, 3), dims=3), RuntimeError,
                                "dims < ndim_a or ndim_b"),
    "tensordot-dims-ints": (lambda L: L.tensordot(m(L, 3, 2), m(L, 2, 3), dims=(1, 0)), TypeError,
                            "'dims_self'.*must be tuple of ints"),
    "apply_-not-callable": (lambda L: m(L, 2).apply_(False), TypeError, "not callable|must be callable"),
    "deepcopy-memo-bool": (lambda L: m(L, 2).__deepcopy__(False), TypeError, "bool"),
    "parameters_to_vector-none": (lambda L: L.nn.utils.parameters_to_vector(None), TypeError, "NoneType"),
    "vector_to_parameters-bool": (lambda L: L.nn.utils.vector_to_parameters(m(L, 2), False), TypeError, "bool"),
    "max_unpool2d-2d": (lambda L: L.nn.functional.max_unpool2d(m(L, 2, 2), L.zeros(2, 2, dtype=L.long), 2), RuntimeError,
                        "Input to max_unpooling2d should be a 3d or 4d Tensor"),
    "split-str": (lambda L: L.split(m(L, 3), "junk"), TypeError, "split_sizes"),
    "roll-0d-dim": (lambda L: L.roll(m(L), 1, 0), IndexError, "Dimension specified as 0 but tensor has no dimensions"),
    "roll-no-shifts": (lambda L: L.roll(m(L, 3), ()), RuntimeError, "`shifts` required"),
    "chunk-0d": (lambda L: m(L).chunk(2), RuntimeError, "chunk expects at least a 1-dimensional tensor"),
    "take_along_dim-ranks": (lambda L: L.take_along_dim(m(L, 3), L.tensor(0), 0), RuntimeError, "same number of dimensions"),
    "repeat_interleave-negative": (lambda L: L.repeat_interleave(m(L, 3), L.tensor([-1, 1, 1])), RuntimeError, "negative"),
    "repeat_interleave-sizes": (lambda L: L.repeat_interleave(m(L, 3), L.tensor([1, 1])), RuntimeError,
                                "repeats must have the same size as input along dim"),
    "exponential_-zero": (lambda L: m(L, 3).exponential_(0), RuntimeError, "exponential_ expects lambda > 0.0"),
    "argmin-empty": (lambda L: L.ones(0).argmin(), IndexError, "Expected reduction dim to be specified"),
    "int-complex": (lambda L: int(L.tensor(1j)), RuntimeError, "cannot be converted to type int64_t"),
    "multinomial-too-many": (lambda L: L.multinomial(L.ones(3, 0), 1), RuntimeError, "cannot sample n_sample"),
    "slice_scatter-step0": (lambda L: L.slice_scatter(m(L, 3), m(L, 3), step=0), RuntimeError, "slice step must be positive"),
    "cdist-0d": (lambda L: L.cdist(m(L), m(L)), RuntimeError, "cdist only supports at least 2D tensors"),
    "clamp_max_-str": (lambda L: m(L, 3).clamp_max_("junk"), TypeError, "clamp"),
    "allclose-broadcast": (lambda L: L.allclose(m(L, 3), m(L, 2)), RuntimeError, "must match the size"),
    "floor_divide-broadcast": (lambda L: L.ones(2, 2) // L.ones(1, 3, 3), RuntimeError, "must match the size"),
    "unflatten-0d": (lambda L: m(L).unflatten(0, (1,)), RuntimeError, "unflatten"),
    "unflatten-int-sizes": (lambda L: m(L, 3).unflatten(0, 3), TypeError, "'sizes'"),
    "cross-0d": (lambda L: L.cross(m(L), m(L), dim=0), IndexError, "no dimensions"),
    "orgqr-0d-tau": (lambda L: L.orgqr(L.ones(3, 3), L.tensor(1.0)), IndexError, "no dimensions"),
    "bernoulli_-none": (lambda L: m(L, 3).bernoulli_(None), TypeError, "bernoulli_"),
    "layer_norm-none": (lambda L: L.nn.functional.layer_norm(m(L, 3), None), TypeError, "normalized_shape"),
    "index_put-none": (lambda L: L.index_put(m(L, 3), None, L.tensor(1.0)), TypeError, "indices"),
    "index_put-values": (lambda L: m(L, 3).index_put((L.tensor([0]),), m(L, 2)), RuntimeError,
                         "value tensor of shape \\[2\\] cannot be broadcast to indexing result of shape \\[1\\]"),
    "float_power-none": (lambda L: L.float_power(m(L, 3), None), TypeError, "float_power"),
    "narrow-tuple": (lambda L: m(L, 3).narrow(0, (1,), 1), TypeError, "narrow"),
    "var_mean-correction-tuple": (lambda L: L.var_mean(m(L, 3), dim=0, correction=(1,)), TypeError, "var"),
    "searchsorted-side-tensor": (lambda L: L.searchsorted(m(L, 3), m(L, 2), side=m(L, 1)), TypeError, "searchsorted"),
    "masked_scatter-broadcast": (lambda L: m(L, 3).masked_scatter(L.ones(2, dtype=L.bool), m(L, 3)), RuntimeError,
                                 "must match the size"),
    "flip-repeated": (lambda L: m(L, 3).flip((0, 0)), RuntimeError, "dim 0 appears multiple times"),
    "unfold-negative": (lambda L: m(L, 3).unfold(0, -1, 1), RuntimeError, "size is -1 but must be >= 0"),
    "uniform_-range": (lambda L: L.nn.init.uniform_(m(L, 3), 2.0, 1.0), RuntimeError, "uniform_ expects"),
    "unique_consecutive-empty": (lambda L: L.ones(0, 3).unique_consecutive(dim=1), RuntimeError,
                                 "There are 0 sized dimensions"),
    "select_scatter-0d": (lambda L: L.select_scatter(m(L), m(L), 0, 0), IndexError, "select\\(\\) cannot be applied"),
    "scatter-index-rank": (lambda L: m(L, 3).scatter(0, L.tensor([[0]]), L.ones(1, 1)), RuntimeError,
                           "Index tensor must have the same number of dimensions as self tensor"),
    "scatter-index-size": (lambda L: L.ones(3, 2).scatter(0, L.tensor([[0, 1, 1]]), L.ones(3, 3)), RuntimeError,
                           "to be no larger than self"),
    "xlogy-complex": (lambda L: L.xlogy(L.ones(2, dtype=L.complex64), L.ones(2, dtype=L.complex64)), NotImplementedError,
                      "\"xlogy_cpu\" not implemented for 'ComplexFloat'"),
    "max_pool2d-complex": (lambda L: L.nn.functional.max_pool2d(L.ones(1, 1, 4, 4, dtype=L.complex64), 2),
                           NotImplementedError, "not implemented for 'ComplexFloat'"),
    "nan_to_num-complex-grad": (lambda L: L.nan_to_num(L.ones(2, dtype=L.complex64, requires_grad=True)), RuntimeError,
                                "nan_to_num does not support automatic differentiation for outputs with complex dtype"),
    "floor_divide-backward": (lambda L: L.floor_divide(m(L, 3).requires_grad_(), 2.0).sum().backward(), RuntimeError,
                              "derivative for aten::floor_divide is not implemented"),
    "embedding_bag-float-indices-max_norm": (
        lambda L: L.nn.functional.embedding_bag(L.tensor([[0.0, 1.0]]), L.ones(3, 2), max_norm=1.0), RuntimeError,
        "'indices' to have one of the following scalar types: Long, Int"),
    # index_copy's source checked against the input and the index
    "index_copy-count": (lambda L: L.zeros(3, 2).index_copy(0, L.tensor([0, 1]), L.ones(3, 2)), IndexError,
                         re.escape("Number of indices (2) should be equal to source.size(dim) (3)")),
    "index_copy-slices": (lambda L: L.zeros(3, 2).index_copy(1, L.tensor([0, 1]), L.ones(2, 2)), RuntimeError,
                          "must have same slice shapes"),
    "index_copy-dims": (lambda L: L.zeros(3, 2).index_copy(0, L.tensor([0]), L.ones(2)), IndexError,
                        "dimensionality must match"),
    "index_copy-empty-source": (lambda L: L.zeros(0, 2).index_copy(0, L.tensor([], dtype=L.long), L.ones(2, 2)),
                                IndexError, "Number of indices"),
    # empty inputs take torch's path that reads the first element of weight and bias
    "batch_norm-empty-weight": (lambda L: L.nn.functional.batch_norm(L.ones(0, 3), L.zeros(0), L.ones(0), L.ones(0)),
                                IndexError, "index 0"),
    "instance_norm-empty-batch": (lambda L: L.nn.functional.instance_norm(L.ones(0, 3, 4), weight=L.ones(3)),
                                  IndexError, "index 0"),
    "batch_norm-0-d": (lambda L: L.nn.functional.batch_norm(L.tensor(1.0), L.zeros(()), L.ones(())), RuntimeError,
                       "running_mean should contain 0 elements not 1"),
    "rms_norm-weight-first": (lambda L: L.nn.functional.rms_norm(L.tensor(1.0), [4], L.tensor(1.0)), RuntimeError,
                              "Expected weight to be of same shape as normalized_shape"),
    "tensorinv-ind": (lambda L: L.linalg.tensorinv(L.ones(2), ind=2), RuntimeError, ""),
    # 0-d tensors where a dim is needed
    "stride-0-d": (lambda L: L.tensor(1).stride(-1), IndexError, "Dimension specified as -1 but tensor has no dimensions"),
    "bilinear-0-d": (lambda L: L.nn.functional.bilinear(L.tensor(1.0), L.tensor(1.0), L.ones(2, 2, 0)), IndexError,
                     "tensor has no dimensions"),
    "grid_sample-0-d": (lambda L: L.nn.functional.grid_sample(L.tensor(1.0), L.tensor(1.0), align_corners=False),
                        IndexError, "tensor has no dimensions"),
    # argument types
    "combinations-bool-r": (lambda L: L.combinations(L.ones(3), r=True), TypeError, "argument 'r' must be int, not bool"),
    "combinations-float-flag": (lambda L: L.combinations(L.ones(3), 2, with_replacement=1.5), TypeError,
                                "'with_replacement' must be bool"),
    "normal-list-std": (lambda L: L.normal(L.ones(3), [1.0]), TypeError, "invalid combination of arguments"),
    "normal-tensor-and-size": (lambda L: L.normal(L.ones(3), 1.0, (3,)), TypeError, "invalid combination of arguments"),
    "normal-broadcast": (lambda L: L.normal(L.ones(3), L.ones(2)), RuntimeError, "must match the size"),
    "normal-integer-mean": (lambda L: L.normal(L.ones(3, dtype=L.int64), 1.0), NotImplementedError,
                            "\"normal_kernel_cpu\" not implemented for 'Long'"),
    # torch's checked conversion of Python numbers into a tensor's dtype
    "fill_-complex-into-float": (lambda L: L.ones(2).fill_(1 + 1j), RuntimeError,
                                 "value cannot be converted to type float without overflow"),
    "fill_-float-into-uint8": (lambda L: L.ones(2, dtype=L.uint8).fill_(-1.5), RuntimeError,
                               "value cannot be converted to type uint8_t without overflow"),
    "fill_-float-into-float32": (lambda L: L.ones(2).fill_(1e39), RuntimeError, "without overflow"),
    "full-complex-into-int": (lambda L: L.full((2,), 2 + 1j, dtype=L.int64), RuntimeError, "without overflow"),
    "size-0-d": (lambda L: L.tensor(1).size(0), IndexError, "Dimension specified as 0 but tensor has no dimensions"),
    "argmin-empty-dim": (lambda L: L.argmin(L.ones(1, 0), -1), IndexError,
                         re.escape("argmin(): Expected reduction dim 1 to have non-zero size.")),
    "bincount-weights-length": (lambda L: L.bincount(L.ones(3, dtype=L.uint8), weights=L.ones(2)), RuntimeError,
                                "weights should be 1-d and have the same length as input"),
    "histc-none-max": (lambda L: L.histc(L.ones(2), max=None), TypeError, "argument 'max' must be Number"),
    "histogramdd-none-bins": (lambda L: L.histogramdd(L.ones(1, 1), None), TypeError, "histogramdd()"),
    "lstsq-dims": (lambda L: L.linalg.lstsq(L.ones(3, 1, 2), L.ones(3)), RuntimeError,
                   re.escape("input.dim() must be greater or equal to other.dim()")),
    "matrix_norm-float-dim": (lambda L: L.linalg.matrix_norm(L.ones(3, 3), dim=1.5), TypeError, "dim"),
    "masked_fill-none": (lambda L: L.ones(3).masked_fill(L.ones(3, dtype=L.bool), None), TypeError, "masked_fill"),
    "repeat_interleave-str": (lambda L: L.ones(2).repeat_interleave("junk"), TypeError, "repeat_interleave"),
    "fill_diagonal_-complex-into-float": (lambda L: L.zeros(3, 3).fill_diagonal_(1 + 1j), RuntimeError,
                                          "value cannot be converted to type float without overflow"),
    "new_full-none": (lambda L: L.ones(3).new_full((2,), None), TypeError, "'fill_value' .* must be Number"),
    "scatter-0-d-src-rank": (lambda L: L.ones(2, 2).scatter(0, L.zeros(1, 1, dtype=L.long), L.tensor(3.0)),
                             RuntimeError, "same number of dimensions as src tensor"),
    "gradient-0-d-dim": (lambda L: L.gradient(L.tensor(1.0), dim=0), IndexError, "tensor has no dimensions"),
    "max_unpool1d-empty-channels": (lambda L: L.nn.functional.max_unpool1d(L.ones(1, 0, 2),
                                                                           L.zeros(1, 0, 2, dtype=L.long), 2),
                                    RuntimeError, "non-zero size for non-batch dimensions"),
    "dropout2d-complex-p": (lambda L: L.nn.functional.dropout2d(L.ones(2, 2, 2), 1j), TypeError, "'p'|complex"),
    "normal-none-mean": (lambda L: L.normal(None, 1.0, (2,)), TypeError, "invalid combination of arguments"),
    "normal-no-size": (lambda L: L.normal(1.0, 1.0), TypeError, "invalid combination of arguments"),
    "take_along_dim-0-d": (lambda L: L.tensor(5).take_along_dim(L.tensor(0), -1), IndexError,
                           "tensor has no dimensions"),
    "scatter-empty-src": (lambda L: L.ones(3).scatter_(0, L.tensor(0), L.ones(0)), RuntimeError,
                          re.escape("to be no larger size than src [0]")),
    "matrix_rank-tolerances-broadcast": (lambda L: L.linalg.matrix_rank(L.ones(3, 2, 2), atol=L.ones(1, 1, 0),
                                                                        rtol=L.ones(2)), RuntimeError, "must match"),
    "repeat_interleave-float-repeats": (lambda L: L.ones(3).repeat_interleave(L.tensor([1.0, 2.0, 3.0])),
                                        NotImplementedError, "\"repeat_interleave_cpu\" not implemented for 'Float'"),
    "one_hot-empty-negative-classes": (lambda L: L.nn.functional.one_hot(L.tensor([], dtype=L.long), -2),
                                       RuntimeError, "Can not infer total number of classes from empty tensor"),
    "rrelu-bounds": (lambda L: L.nn.functional.rrelu(L.ones(3), 0.5, 0.1, training=True), RuntimeError,
                     "Lower bound should be less than or equal to the upper bound"),
    "solve-0-d-B": (lambda L: L.linalg.solve(L.eye(2), L.tensor(1.0)), RuntimeError,
                    "The input tensor B must have at least 2 dimensions"),
    "interpolate-empty-width": (lambda L: L.nn.functional.interpolate(L.ones(1, 1, 0), size=3), RuntimeError,
                                "Input and output sizes should be greater than 0"),
    "interpolate-linear-no-channels": (lambda L: L.nn.functional.interpolate(L.ones(1, 0, 2), scale_factor=2,
                                                                             mode="linear"), RuntimeError,
                                       "Non-empty 3D data tensor expected"),
    "resize-negative": (lambda L: L.ones(6).resize((2, -1)), RuntimeError, "requested resize to"),
    "linalg.norm-float-dim": (lambda L: L.linalg.norm(L.ones(3, 3, 1), dim=1.5), TypeError, "dim"),
    "take_along_dim-broadcast": (lambda L: L.take_along_dim(L.ones(0, 1, 2), L.zeros(3, 1, 2, dtype=L.long), 1),
                                 RuntimeError, "must match the size"),
    "linalg.diagonal-0-d": (lambda L: L.linalg.diagonal(L.tensor(1.0), dim1=0), RuntimeError,
                            "diagonal dimensions cannot be identical 0, -1"),
    "select_scatter-float-index": (lambda L: L.select_scatter(L.ones(1, 1, 1), L.ones(1, 1), 1, L.tensor(0.0)),
                                   TypeError, "argument 'index'"),
    "searchsorted-none": (lambda L: L.searchsorted(L.ones(2), None), TypeError, "invalid combination of arguments"),
    "diagonal_scatter-0-d": (lambda L: L.ones(()).diagonal_scatter(L.ones(()), 0, 0, -1), RuntimeError,
                             "diagonal dimensions cannot be identical"),
    "ldl_solve-zero-pivot": (lambda L: L.linalg.ldl_solve(L.ones(1, 1), L.zeros(1, dtype=L.int32), L.ones(1, 0)),
                             RuntimeError, re.escape("must all satisfy |pivot| >= 1")),
    "ldl_solve-pivots-shape": (lambda L: L.linalg.ldl_solve(L.ones(2, 2), L.ones(1, dtype=L.int32), L.ones(2, 1)),
                               RuntimeError, "Expected LD.shape"),
    "unique-0-d-dim": (lambda L: L.unique(L.tensor(3), dim=-1), IndexError, "tensor has no dimensions"),
    "instance_norm-0-d-running-stats": (lambda L: L.nn.functional.instance_norm(L.ones(2, 1, 3), L.zeros(()),
                                                                                L.ones(())),
                                        RuntimeError, re.escape("output with shape [] doesn't match")),
    "add_-alpha-outside-int8": (lambda L: L.ones(2, dtype=L.int8).add_(L.ones(2, dtype=L.int8), alpha=300),
                                RuntimeError, "value cannot be converted to type int8_t without overflow"),
}


def _check(exc_info: Any, expected: Any, pattern: str) -> None:
    assert isinstance(exc_info.value, expected)
    assert re.search(pattern, str(exc_info.value)), f"message {str(exc_info.value)!r} does not match {pattern!r}"


@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
def test_error(case: str) -> None:
    call, expected, pattern = CASES[case]
    with pytest.raises(Exception) as info:
        call(tensorlib)
    _check(info, expected, pattern)
    # never a NumPy error (its exception classes live in numpy), never AttributeError
    assert type(info.value).__module__ in ("builtins",), type(info.value)
    assert not isinstance(info.value, AttributeError)


@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
def test_error_type_matches_torch(case: str) -> None:
    torch = pytest.importorskip("torch")
    call, expected, _ = CASES[case]
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(Exception) as ours:
        call(tensorlib)
    assert type(ours.value) is type(theirs.value) or (
        # torch's IndexError and friends are plain Python classes; its own types subclass them
        isinstance(ours.value, type(theirs.value).__mro__[1])
        and type(theirs.value).__module__.startswith("torch")
    ), f"ours {type(ours.value).__name__}: {ours.value}; torch {type(theirs.value).__name__}: {theirs.value}"


@pytest.mark.parametrize("pure", [False, True], ids=["extensions", "pure Python"])
def test_no_numpy_warnings_leak(pure: bool) -> None:
    """Float edge cases compute inf and nan quietly, as torch does (no RuntimeWarning from NumPy): in the ops, in
    the operators' inline paths (run inside their dispatch wrappers), in nn's fused ops.

    Run in a fresh interpreter: tensorlib's warning filter is installed at import,
    and pytest's own warning capture around collection would discard it here.
    """
    import os
    import subprocess
    import sys

    code = (
        "import warnings, numpy as np, tensorlib as t\n"
        "warnings.filterwarnings('error', category=RuntimeWarning, append=True)\n"
        "with np.errstate(all='warn'):\n"
        "    x = t.tensor([0.0, 1.0, -1.0])\n"
        "    t.log(x), t.div(x, 0.0), t.sqrt(x), t.remainder(x, 0.0), t.fmod(x, 0.0), x / 0\n"
        "    t.exp(t.tensor([1000.0])), t.tensor([1, 2], dtype=t.int8) * 100\n"
        "    big = t.tensor([3e38])\n"
        "    x / t.zeros(3), big * big, big + big, big - -big, x / x\n"
        "    t.nn.functional.batch_norm(t.ones(4, 2), None, None, training=True, eps=0.0)\n"
        "    try:\n"
        "        np.ones(1) / 0\n"
        "        raise SystemExit('the program lost its own NumPy warnings')\n"
        "    except RuntimeWarning:\n"
        "        pass\n"
    )
    env = {**os.environ, "PYTHONPATH": str(__import__("pathlib").Path(tensorlib.__file__).parents[1])}
    if pure:
        env.update(TENSORLIB_PURE_PYTHON="1", DISPATCH_PURE_PYTHON="1")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr[-2000:]


def test_methods_called_on_the_class_with_something_else():
    for call in (lambda: tensorlib.Tensor.dim(None), lambda: tensorlib.Tensor.size("x")):
        with pytest.raises(TypeError, match=r"descriptor '(dim|size)' for 'tensorlib.Tensor' objects doesn't apply to a"):
            call()


def test_split_into_zero_sections_and_zero_groups_match_torch():
    t = tensorlib.ones(2, 3, 4)
    with pytest.raises(RuntimeError, match="tensorlib.hsplit attempted to split along dimension 1, but the size of "
                                           "the dimension 3 is not divisible by the split_size 0!"):
        tensorlib.hsplit(t, 0)
    with pytest.raises(ZeroDivisionError):  # torch's group_norm does the division in Python
        tensorlib.nn.functional.group_norm(t, 0)
