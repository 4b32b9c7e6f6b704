"""Raw implementations behind :mod:`tensorlib.nn.functional` (made overridable there)."""

from __future__ import annotations

import math
import operator
import warnings
from typing import Any, Callable, Literal

import numpy as np

from .._autograd.graph import Node, SavedTensor, named_node_class, save_input, unpack
from .._registry import NN_FUNCTIONAL, TENSORLIB, op
from .._size import Size
from .._tensor import Tensor, bump_version, legacy_type_name, wrap_dim
from ..ops import activation, broadcast, reduction as reduction_ops, shape as shape_ops, unary
from ..ops._kernels import last_axis_sums
from ..ops._pointwise import inplace_apply
from ..ops._util import (
    GRAD,
    float_only,
    float_arg,
    no_complex_grad,
    not_implemented,
    no_half,
    real_only,
    record,
    result_dtype,
    tensor_arg,
    type_title,
    wrap,
    write_out,
    write_out_exact,
)
from ..ops.arithmetic import _conj, add, div, mul, neg, rsub, sub
from ..ops.broadcast import _add_reduce  # (typed loosely: NumPy 2.5's stubs lack some overloads)
from ..ops.comparison import gt, lt
from ..ops.conversion import full_like_scalar, to_dtype
from ..ops.creation import _rng
from ..ops.indexing import (
    add_at_zeros, basic_getitem, gather, index_add, index_put_key, index_select, masked_fill, narrow,
)
from ..ops.inplace import mul_
from ..ops.join_split import cat as _cat, stack as _stack
from ..ops.linalg import einsum, matmul, matrix_product, mm, vector_norm
from ..ops.power import pow as _pow
from ..ops.reduction import divide_by_number, mean, multiply_by_number
from ..ops.selection import clamp, where
from ..ops.shape import reshape, squeeze, unsqueeze
from ..ops.unary import exp, log, rsqrt
from . import _activations as _act, _loss_nodes as _losses
from ._normalization import fused_layer_norm

# -- linear layers -------------------------------------------------------------------------------


class AddmmBackward0(Node):
    """``input @ weight.T + bias`` for 2-D input: one node for the whole layer."""

    __slots__ = ("input", "weight", "has_bias")
    _saved_slots = ("input", "weight")
    input: SavedTensor | None
    weight: SavedTensor | None
    has_bias: bool

    def apply(self, grads: list) -> tuple:
        g = grads[0]
        gi = gw = gb = None
        gd = g._data
        if not GRAD.enabled and type(g) is Tensor and gd.dtype.kind == "f" and gd.ndim == 2:
            # nothing to record, real operands: the three products on the arrays (the layer's whole backward)
            nf = self.next_functions
            if nf[0][0] is not None:
                gi = wrap(matrix_product(gd, unpack(self, self.weight)._data))
            if nf[1][0] is not None:
                gw = wrap(matrix_product(gd.T, unpack(self, self.input)._data))
            if self.has_bias and nf[2][0] is not None:
                # NumPy 2.5's stubs have no overload for this call (2.4's do); the ignore holds for both
                gb = wrap(np.add.reduce(gd, 0))  # type: ignore[call-overload, unused-ignore]
            return gi, gw, gb
        # complex operands enter conjugated: the gradient of a holomorphic product
        if self.needs(0):
            gi = mm(g, _conj(unpack(self, self.weight)))
        if self.needs(1):
            gw = mm(shape_ops.t(g), _conj(unpack(self, self.input)))
        if self.has_bias and self.needs(2):
            gb = broadcast.sum(g, 0)
        return gi, gw, gb


class MmBackward0(AddmmBackward0):
    """The same layer without a bias (torch records it as a plain matrix product)."""

    __slots__ = ()


@op(namespace=(NN_FUNCTIONAL, TENSORLIB))
def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None, *, out: Tensor | None = None) -> Tensor:
    """``input @ weight.T + bias``."""
    res = _linear(input, weight, bias)
    return res if out is None else write_out(out, res, "linear")


def _linear(input: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor:
    x = tensor_arg(input, "linear")
    w = tensor_arg(weight, "linear", "weight", 2)
    a, wd = x._data, w._data
    if a.dtype.kind == "b":
        raise not_implemented("addmm_impl_cpu_", a.dtype)
    if a.ndim == 2 and wd.ndim == 2 and a.dtype == wd.dtype and (bias is None or isinstance(bias, Tensor)):
        if a.shape[1] != wd.shape[1]:
            raise RuntimeError(
                f"mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x{a.shape[1]} and {wd.shape[1]}x{wd.shape[0]})"
            )
        r = matrix_product(a, wd.T)
        if bias is not None:
            bd = bias._data
            if bd.dtype != a.dtype:
                raise RuntimeError(f"expected scalar type {x.dtype.name} but found {bias.dtype.name}")
            try:
                r += bd
            except ValueError:
                raise RuntimeError(
                    f"The size of tensor a ({r.shape[-1]}) must match the size of tensor b ({bd.shape[-1] if bd.ndim else 1}) "
                    f"at non-singleton dimension 1"
                ) from None
        if GRAD.enabled and (x._requires_grad or w._requires_grad or (bias is not None and bias._requires_grad)):
            res, node = record(AddmmBackward0 if bias is not None else MmBackward0, r, (x, w, bias))
            node.input = save_input(x) if node.needs(1) else None
            node.weight = save_input(w) if node.needs(0) else None
            node.has_bias = bias is not None
            return res
        return wrap(r)
    if (a.ndim > 2 and wd.ndim == 2 and a.dtype == wd.dtype and isinstance(bias, Tensor) and bias._data.ndim == 1
            and a.flags.c_contiguous):
        # a batch of rows with a bias, as torch: one layer on the rows, viewed back (ViewBackward0 over
        # AddmmBackward0); one BLAS call instead of NumPy's loop over the batch
        rows = _linear(shape_ops.reshape(x, (math.prod(a.shape[:-1]), a.shape[-1])), w, bias)
        return shape_ops.reshape(rows, a.shape[:-1] + (wd.shape[0],))
    if bias is not None and a.ndim == 2 and wd.ndim == 2 and a.dtype != wd.dtype:
        raise RuntimeError(
            f"mat1 and mat2 must have the same dtype, but got {type_title(a.dtype)} and {type_title(wd.dtype)}"
        )
    out = matmul(x, shape_ops.t(w) if wd.ndim == 2 else w)
    return add(out, bias) if bias is not None else out


def _grouped_mm_strides(t: Tensor) -> None:
    """torch's layout rule for grouped GEMM operands: row- or column-major, strides a multiple of 16 bytes."""
    a = t._data
    size = a.itemsize
    if a.ctypes.data % 16:
        raise RuntimeError("expected data_ptr to be aligned to 16 bytes\n")
    sizes = a.shape
    if a.size == 0:  # NumPy's strides of an empty array say nothing: torch's are the contiguous ones
        strides = [math.prod(sizes[i + 1:]) for i in range(len(sizes))]
    else:
        strides = [s // size for s in a.strides]
    alignment = 16 // size
    if strides[-2] == 1 and strides[-1] >= max(1, sizes[-2]):
        if strides[-1] % alignment:
            raise RuntimeError("strides should be multiple of 16 bytes")
    elif strides[-1] == 1 and strides[-2] >= max(1, sizes[-1]):
        if strides[-2] % alignment:
            raise RuntimeError("strides should be multiple of 16 bytes")
    else:
        raise RuntimeError(f"Invalid strides/sizes, got {strides} for strides and {list(sizes)} for sizes")


@op(namespace=NN_FUNCTIONAL)
def grouped_mm(mat_a: Tensor, mat_b: Tensor, *, offs: Tensor | None = None, bias: Tensor | None = None,
               out_dtype: Any = None) -> Tensor:
    """Matrix products of groups, for mixture-of-experts layers: torch's CPU semantics.

    ``mat_a`` and ``mat_b`` are 2-D or 3-D float32 or float16 matrices. 3-D x 3-D is a batched product;
    a 2-D operand is cut into groups along its jagged dimension by ``offs`` (int32 ends of the groups):
    2-D x 3-D multiplies row group ``i`` of ``mat_a`` by ``mat_b[i]``, 3-D x 2-D ``mat_a[i]`` by column
    group ``i`` of ``mat_b``, and 2-D x 2-D gives one product per group of the shared ``K`` dimension.
    Rows (columns) past ``offs[-1]`` are zero (torch leaves them uninitialised).
    """
    a = tensor_arg(mat_a, "grouped_mm", "mat_a")
    b = tensor_arg(mat_b, "grouped_mm", "mat_b", 2)
    for t, name in ((a, "mat_a"), (b, "mat_b")):
        if t._data.dtype not in (np.float32, np.float16):
            raise RuntimeError(f"Expected {name} to be Float32, BFloat16 or Float16 matrix, got "
                               f"{type_title(t._data.dtype)}")
    for t, name in ((a, "mat_a"), (b, "mat_b")):
        if t._data.ndim not in (2, 3):
            raise RuntimeError(f"{name} has to be 2 or 3d")
    a2, b2 = a._data.ndim == 2, b._data.ndim == 2
    if (not a2 or not b2) and a._data.shape[-1] != b._data.shape[-2]:
        raise RuntimeError("contraction dimension of mat_a and mat_b must match")
    _grouped_mm_strides(a)
    _grouped_mm_strides(b)
    if (offs is not None) != (a2 or b2):
        raise RuntimeError("Have to provide offsets if there is a 2d matrix, or no offset if both matrices are 3d")
    if offs is not None:
        if offs._data.ndim != 1:
            raise RuntimeError("offs has to be 1D")
        if offs._data.dtype != np.int32:
            raise RuntimeError("Offsets have to be int32")
    if bias is not None:
        raise RuntimeError("Bias not supported yet")
    if out_dtype is not None and out_dtype.np != a._data.dtype:
        raise RuntimeError("Grouped gemm output dtype must match `mat_a` dtype")
    if a._data.dtype != b._data.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {_c10(a._data.dtype)} != "
                           f"{_c10(b._data.dtype)}")
    if offs is None:
        if a._data.shape[0] != b._data.shape[0]:
            raise RuntimeError("batched dimension has to match")
        return matmul(a, b)
    ends = [int(e) for e in offs._data]
    groups = len(ends)
    if a2 and not b2 and groups != b._data.shape[0]:
        raise RuntimeError("matrix batch sizes have to match")
    if b2 and not a2 and groups != a._data.shape[0]:
        raise RuntimeError("matrix batch sizes have to match")
    jagged = a._data.shape[1] if a2 and b2 else (a._data.shape[0] if a2 else b._data.shape[1])
    bounds = []
    start = 0
    for end in ends:
        lo, hi = min(start, jagged), min(max(end, start), jagged)
        bounds.append((lo, hi))
        start = end
    if a2 and b2:  # (M, K) x (K, N): one (M, N) product per group of K
        parts = [matmul(basic_getitem(a, (slice(None), slice(lo, hi))), basic_getitem(b, (slice(lo, hi),)))
                 for lo, hi in bounds]
        if not parts:
            return wrap(np.zeros((0, a._data.shape[0], b._data.shape[1]), dtype=a._data.dtype))
        return _stack(parts)
    if jagged == 0:
        return _zeros_part(a, b, a2, 0, 0)
    # each row (column) of the result belongs to the last group whose span holds it, as torch writes them in order
    owner = np.full(jagged, -1)
    for g, (lo, hi) in enumerate(bounds):
        owner[lo:hi] = g
    pieces = []
    edges = np.flatnonzero(np.diff(owner)) + 1
    for lo, hi in zip([0, *edges.tolist()], [*edges.tolist(), jagged]):
        g = int(owner[lo])
        if g < 0:
            pieces.append(_zeros_part(a, b, a2, lo, hi))
        elif a2:  # (rows, K) x (G, K, N)
            pieces.append(matmul(basic_getitem(a, (slice(lo, hi),)), basic_getitem(b, (g,))))
        else:  # (G, M, K) x (K, cols)
            pieces.append(matmul(basic_getitem(a, (g,)), basic_getitem(b, (slice(None), slice(lo, hi)))))
    return _cat(pieces, 0 if a2 else 1)


def _c10(npdt: np.dtype) -> str:
    return {"float16": "c10::Half", "float32": "float", "float64": "double"}.get(npdt.name, npdt.name)


def _zeros_part(a: Tensor, b: Tensor, a_is_2d: bool, lo: int, hi: int) -> Tensor:
    shape = (hi - lo, b._data.shape[-1]) if a_is_2d else (a._data.shape[1], hi - lo)
    return wrap(np.zeros(shape, dtype=a._data.dtype))


@op(namespace=(NN_FUNCTIONAL, TENSORLIB))
def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``x1^T A x2 + b`` for each output feature, over any leading (batch) dims."""
    no_complex_grad("_trilinear", input1, input2, weight, bias)
    x1 = tensor_arg(input1, "bilinear", "input1")
    x2 = tensor_arg(input2, "bilinear", "input2", 2)
    w = tensor_arg(weight, "bilinear", "weight", 3)
    a1, a2, wd = x1._data, x2._data, w._data
    if a1.ndim != a2.ndim:
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {a1.ndim} and {a2.ndim}")
    if a1.ndim == 0:
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    for i in range(a1.ndim - 1):
        if a1.shape[i] != a2.shape[i]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {i}: got {a1.shape[i]} and "
                               f"{a2.shape[i]}")
    for k, (arg, name) in enumerate(((a1, "input1"), (a2, "input2")), start=1):
        if k >= wd.ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-max(wd.ndim, 1)}, "
                             f"{max(wd.ndim, 1) - 1}], but got {k})")
        if arg.shape[-1] != wd.shape[k]:
            raise RuntimeError(f"bilinear(): {name} size does not match weight size: got {arg.shape[-1]} but expected "
                               f"{wd.shape[k]}")
    if bias is not None and bias._data.shape[:1] != wd.shape[:1]:
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got {bias._data.shape[0]} but "
                           f"expected {wd.shape[0]}")
    out = einsum("...i,oij,...j->...o", x1, w, x2)
    return add(out, bias) if bias is not None else out


# -- activations -------------------------------------------------------------------------------------


@op(namespace=NN_FUNCTIONAL)
def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """``max(x, 0)``."""
    return inplace_apply(input, unary.relu, (), {}, "relu_") if inplace else unary.relu(input)


@op(namespace=NN_FUNCTIONAL)
def relu_(input: Tensor) -> Tensor:
    """In-place :func:`relu`."""
    return inplace_apply(input, unary.relu, (), {}, "relu_")


def _number(value: Any, fname: str, name: str, pos: int) -> Any:
    """A Number argument as torch's parser takes it: a 0-d tensor gives its value; an int must fit int64."""
    if isinstance(value, Tensor) and value._data.ndim == 0:
        value = value.item()
    if isinstance(value, (bool, np.bool_)):
        return int(value)
    if isinstance(value, (int, np.integer)):
        if not -(2**63) <= value < 2**63:
            raise OverflowError("int too big to convert")
        return value
    if isinstance(value, (float, np.floating)):
        return float(value)
    raise TypeError(f"{fname}(): argument '{name}' (position {pos}) must be Number, not {type(value).__name__}")


def _fused(x: Tensor, fname: str, node: str, forward: Callable[..., Any], rule: Callable[..., Tensor],
           *params: Any) -> Tensor:
    """Activation ``fname`` of a floating point tensor as one node named ``node`` (see tensorlib.nn._activations)."""
    return _act.apply(tensor_arg(x, fname), node, forward, rule, *params)


def _in_place_name(node: str, inplace: bool) -> str:
    """torch's node name for an activation that also has an in-place form computing its gradient from the result:
    ``EluBackward0`` out of place, ``EluBackward1`` in place."""
    return f"{node}{1 if inplace else 0}"


def _maybe_inplace(input: Tensor, result_fn: Any, inplace: bool, name: str) -> Tensor:
    if inplace:
        return inplace_apply(input, result_fn, (), {}, name)
    return result_fn(input)


@op(namespace=NN_FUNCTIONAL)
def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """``x`` where ``x > threshold``, else ``value``."""
    return _threshold(input, threshold, value, inplace)


def _threshold(input: Tensor, threshold: float, value: float, inplace: bool) -> Tensor:
    real_only("threshold_cpu", input)
    threshold, value = _number(threshold, "threshold", "threshold", 2), _number(value, "threshold", "value", 3)
    if isinstance(input, Tensor) and input._data.dtype.kind in "iub":
        # integer tensors stay integers: the replacement value must fit their dtype
        float_only("threshold_cpu", input) if input._data.dtype.kind == "b" else None
        info = np.iinfo(input._data.dtype)
        if not info.min <= value <= info.max:
            raise RuntimeError(f"value cannot be converted to type {input._data.dtype.name}_t without overflow")
        fill = int(value)
        return _maybe_inplace(input, lambda x: where(gt(x, threshold), x, full_like_scalar(fill, x)), inplace,
                              "threshold_")
    node = _in_place_name("ThresholdBackward", inplace)
    return _maybe_inplace(input, lambda x: _fused(x, "threshold", node, _act.threshold_forward,
                                                  _act.threshold_rule, threshold, value), inplace, "threshold_")


@op(namespace=NN_FUNCTIONAL)
def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """``min(max(x, 0), 6)``."""
    return _hardtanh(tensor_arg(input, "relu6"), 0.0, 6.0, inplace)  # (handlers see relu6 only, as torch's)


@op(namespace=NN_FUNCTIONAL)
def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:
    """``clamp(x, min_val, max_val)``."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return _hardtanh(input, min_val, max_val, inplace)


def _hardtanh(input: Tensor, min_val: float, max_val: float, inplace: bool) -> Tensor:
    if isinstance(input, Tensor) and input._data.dtype.kind in "iub":
        # integer tensors keep their dtype, with the limits as integers
        kind = input._data.dtype.kind
        if kind == "b":
            raise RuntimeError("Bool inputs not supported for hardtanh")
        if kind == "u" and (min_val < 0 or max_val < 0):
            raise RuntimeError("cannot do hardtanh on an unsigned type with negative limits")
        if not (math.isfinite(min_val) and math.isfinite(max_val)):
            raise RuntimeError("value cannot be converted to type int64_t without overflow")
        lo, hi = int(min_val), int(max_val)
        if not (-2**63 <= lo < 2**63 and -2**63 <= hi < 2**63):
            raise RuntimeError("value cannot be converted to type int64_t without overflow")
        return _maybe_inplace(input, lambda x: clamp(x, lo, hi), inplace, "hardtanh_")
    lo, hi = _number(min_val, "hardtanh", "min_val", 2), _number(max_val, "hardtanh", "max_val", 3)
    return _maybe_inplace(input, lambda x: _fused(x, "hardtanh", "HardtanhBackward0", _act.hardtanh_forward, _act.hardtanh_rule,
                                                  lo, hi), inplace, "hardtanh_")


@op(namespace=NN_FUNCTIONAL)
def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """``x`` for positive ``x``, else ``negative_slope * x``."""
    float_only("leaky_relu_cpu", input)
    slope = _number(negative_slope, "leaky_relu", "negative_slope", 2)
    node = _in_place_name("LeakyReluBackward", inplace)
    return _maybe_inplace(input, lambda x: _fused(x, "leaky_relu", node, _act.leaky_relu_forward,
                                                  _act.leaky_relu_rule, slope), inplace, "leaky_relu_")


@op(namespace=NN_FUNCTIONAL)
def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """``x`` for positive ``x``, else ``alpha * (exp(x) - 1)``."""
    float_only("elu_cpu", input)
    alpha = _number(alpha, "elu", "alpha", 2)
    node = _in_place_name("EluBackward", inplace)
    return _maybe_inplace(input, lambda x: _fused(x, "elu", node, _act.elu_forward, _act.elu_rule, alpha, 1.0, 1.0),
                          inplace, "elu_")


@op(namespace=NN_FUNCTIONAL)
def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``."""
    float_only("elu_cpu", input)
    alpha = _number(alpha, "celu", "alpha", 2)
    return _maybe_inplace(
        input, lambda x: _fused(x, "celu", _in_place_name("CeluBackward", inplace), _act.elu_forward, _act.elu_rule,
                                alpha, 1.0, 1.0 / alpha), inplace,
        "celu_",
    )


# In-place forms (torch's builtins ``F.elu_``, ``F.celu_``, ...; torch also has ``celu_``, ``selu_``, ``threshold_``
# and ``rrelu_`` at the top level, and so does tensorlib).


@op(namespace=NN_FUNCTIONAL)
def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """In-place :func:`elu`."""
    return elu(input, alpha, True)


@op(namespace=(NN_FUNCTIONAL, TENSORLIB))
def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """In-place :func:`celu`."""
    return celu(input, alpha, True)


@op(namespace=(NN_FUNCTIONAL, TENSORLIB))
def selu_(input: Tensor) -> Tensor:
    """In-place :func:`selu`."""
    return selu(input, True)


@op(namespace=NN_FUNCTIONAL)
def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    """In-place :func:`hardtanh` (torch's builtin does not check ``min_val <= max_val``; clamping applies the
    maximum last)."""
    return _hardtanh(input, min_val, max_val, True)


@op(namespace=NN_FUNCTIONAL)
def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    """In-place :func:`leaky_relu`."""
    return leaky_relu(input, negative_slope, True)


@op(namespace=(NN_FUNCTIONAL, TENSORLIB))
def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    """In-place :func:`threshold`."""
    return _threshold(input, threshold, value, True)


def _rrelu(x: Tensor, lower: float, upper: float, training: bool, inplace: bool, generator: Any = None) -> Tensor:
    """Leaky ReLU with a random slope in ``[lower, upper]`` per negative element when training, else the mean slope.

    The slopes are constants of the graph (torch's ``noise``): the gradient is ``grad * slope``.
    """
    name = "rrelu_" if inplace else "rrelu"
    x = tensor_arg(x, name)
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    node = _in_place_name("RreluWithNoiseBackward", inplace)  # torch's name in both modes
    if not training:
        float_only("leaky_relu_cpu", x)
        slope = (lower + upper) / 2
        return _maybe_inplace(x, lambda t: _fused(t, name, node, _act.leaky_relu_forward, _act.leaky_relu_rule, slope),
                              inplace, name)
    a = x._data
    if a.dtype.kind != "f":
        raise NotImplementedError(f"\"rrelu_with_noise_out_cpu\" not implemented for '{type_title(a.dtype)}'")
    slopes = _rng(generator).uniform(lower, upper, a.shape)
    noise = np.where(a <= 0, slopes, 1.0).astype(a.dtype)
    return _maybe_inplace(x, lambda t: _fused(t, name, node, _act.scale_forward, _act.scale_rule, noise), inplace,
                          name)


@op(namespace=NN_FUNCTIONAL)
def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          inplace: bool = False) -> Tensor:
    """Randomized leaky ReLU: negative inputs times a slope drawn from ``U(lower, upper)`` while training,
    times ``(lower + upper) / 2`` otherwise."""
    return _rrelu(input, lower, upper, training, inplace)


@op(namespace=(NN_FUNCTIONAL, TENSORLIB))
def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
           generator: Any = None) -> Tensor:
    """In-place :func:`rrelu`."""
    float_only("leaky_relu_cpu", input)
    return _rrelu(input, lower, upper, training, True, generator)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


@op(namespace=NN_FUNCTIONAL)
def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """Scaled ELU with the self-normalising constants."""
    float_only("elu_cpu", input)
    return _maybe_inplace(
        input, lambda x: _fused(x, "selu", _in_place_name("EluBackward", inplace), _act.elu_forward, _act.elu_rule,
                                _SELU_ALPHA, _SELU_SCALE, 1.0),
        inplace, "selu_",
    )


@op(namespace=(NN_FUNCTIONAL, TENSORLIB))
def gelu(input: Tensor, *, approximate: str = "none", out: Tensor | None = None) -> Tensor:
    """Gaussian error linear unit: ``x * Phi(x)`` (or its tanh approximation)."""
    float_only("GeluKernelImpl", input)
    x = tensor_arg(input, "gelu")
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    res = _fused(x, "gelu", "GeluBackward0", _act.gelu_forward, _act.gelu_rule, approximate)
    return res if out is None else write_out(out, res, "gelu")


@op(namespace=NN_FUNCTIONAL)
def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """``x * sigmoid(x)``."""
    if isinstance(input, Tensor) and input._data.dtype.kind == "c":
        return _maybe_inplace(input, lambda x: mul(x, unary.sigmoid(x)), inplace, "silu_")
    float_only("silu_cpu", input)
    return _maybe_inplace(input, lambda x: _fused(x, "silu", "SiluBackward0", _act.silu_forward, _act.silu_rule), inplace,
                          "silu_")


@op(namespace=NN_FUNCTIONAL)
def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """``x * tanh(softplus(x))``."""
    float_only("mish_cpu", input)
    return _maybe_inplace(input, lambda x: _fused(x, "mish", "MishBackward0", _act.mish_forward, _act.mish_rule), inplace,
                          "mish_")


@op(namespace=(NN_FUNCTIONAL, TENSORLIB))
def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0, *, out: Tensor | None = None) -> Tensor:
    """``log(1 + exp(beta * x)) / beta``, linear above ``threshold``."""
    float_only("softplus_cpu", input)
    beta, threshold = _number(beta, "softplus", "beta", 2), _number(threshold, "softplus", "threshold", 3)
    res = _act.softplus_tensor(tensor_arg(input, "softplus"), beta, threshold)
    return res if out is None else write_out(out, res, "softplus")


@op(namespace=NN_FUNCTIONAL)
def softsign(input: Tensor) -> Tensor:
    """``x / (1 + |x|)``."""
    x = tensor_arg(input, "softsign")
    return div(x, add(unary.abs(x), 1))


@op(namespace=NN_FUNCTIONAL)
def logsigmoid(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """``log(sigmoid(x))``, computed stably."""
    float_only("log_sigmoid_cpu", input)
    res = _fused(input, "log_sigmoid", "LogSigmoidBackward0", _act.logsigmoid_forward, _act.logsigmoid_rule)
    return res if out is None else write_out(out, res, "log_sigmoid")


@op()
def log_sigmoid(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """``log(sigmoid(x))``, computed stably (torch's ``_C._nn.log_sigmoid``, :func:`nn.functional.logsigmoid`)."""
    return logsigmoid(input, out=out)


@op(namespace=NN_FUNCTIONAL)
def tanhshrink(input: Tensor) -> Tensor:
    """``x - tanh(x)``."""
    x = tensor_arg(input, "tanhshrink")
    return sub(x, unary.tanh(x))


@op(namespace=(NN_FUNCTIONAL, TENSORLIB))
def softshrink(input: Tensor, lambd: float = 0.5, *, out: Tensor | None = None) -> Tensor:
    """Shrink towards 0 by ``lambd``, zero inside ``[-lambd, lambd]``."""
    float_only("softshrink_check", input)
    res = _fused(input, "softshrink", "SoftshrinkBackward0", _act.softshrink_forward, _act.shrink_rule,
                 _number(lambd, "softshrink", "lambd", 2))
    return res if out is None else write_out(out, res, "softshrink")


@op(variants="function method", namespace=(NN_FUNCTIONAL, TENSORLIB))
def hardshrink(input: Tensor, lambd: float = 0.5, *, out: Tensor | None = None) -> Tensor:
    """``x`` outside ``[-lambd, lambd]``, else 0."""
    x = tensor_arg(input, "hardshrink")
    float_only("hardshrink_cpu", x)
    res = _fused(x, "hardshrink", "HardshrinkBackward0", _act.hardshrink_forward, _act.shrink_rule,
                 _number(lambd, "hardshrink", "lambd", 2))
    return res if out is None else write_out_exact(out, res, "hardshrink")


@op(namespace=NN_FUNCTIONAL)
def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """Piecewise-linear sigmoid: ``clamp(x / 6 + 1/2, 0, 1)``."""
    float_only("hardsigmoid_cpu", input)
    return _maybe_inplace(input, lambda x: _fused(x, "hardsigmoid", "HardsigmoidBackward0", _act.hardsigmoid_forward,
                                                  _act.hardsigmoid_rule), inplace, "hardsigmoid_")


@op(namespace=NN_FUNCTIONAL)
def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """``x * hardsigmoid(x)``."""
    float_only("hardswish_cpu", input)
    return _maybe_inplace(input, lambda x: _fused(x, "hardswish", "HardswishBackward0", _act.hardswish_forward,
                                                  _act.hardswish_rule), inplace, "hardswish_")


@op(namespace=NN_FUNCTIONAL)
def sigmoid(input: Tensor) -> Tensor:
    """Elementwise logistic function."""
    return unary.sigmoid(input)


@op(namespace=NN_FUNCTIONAL)
def tanh(input: Tensor) -> Tensor:
    """Elementwise hyperbolic tangent."""
    return unary.tanh(input)


def _softmax_dim(name: str, input: Any, dim: Any, stacklevel: int) -> Any:
    """``dim``, or torch's legacy implicit choice (with its deprecation warning) when it is None."""
    if dim is not None:
        return dim
    stacklevel = operator.index(stacklevel)
    if not -9223372036854775808 <= stacklevel < 9223372036854775808:
        raise OverflowError("Python int too large to convert to C ssize_t")  # as torch's warning call
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X as an argument.",
        UserWarning,
        stacklevel=stacklevel,
    )
    nd = tensor_arg(input, name)._data.ndim
    return 0 if nd in (0, 1, 3) else 1


@op(namespace=NN_FUNCTIONAL)
def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:
    """Softmax along ``dim``."""
    return activation.softmax(input, _softmax_dim("softmax", input, dim, _stacklevel + 1), dtype)


@op(namespace=NN_FUNCTIONAL)
def softmin(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:
    """Softmax of ``-input`` along ``dim``."""
    x = tensor_arg(input, "softmin")
    return activation.softmax(neg(x), _softmax_dim("softmin", x, dim, _stacklevel + 1), dtype)


@op(namespace=NN_FUNCTIONAL)
def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:
    """Log-softmax along ``dim``."""
    return activation.log_softmax(input, _softmax_dim("log_softmax", input, dim, _stacklevel + 1), dtype)


@op(namespace=NN_FUNCTIONAL)
def glu(input: Tensor, dim: int = -1) -> Tensor:
    """Gated linear unit: first half times sigmoid of the second half along ``dim``."""
    x = tensor_arg(input, "glu")
    float_only("glu_cpu", x)
    if x._data.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = wrap_dim(dim, x._data.ndim)
    if x._data.shape[d] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {x._data.shape[d]}")
    half = x._data.shape[d] // 2
    a, b = narrow(x, d, 0, half), narrow(x, d, half, half)
    return mul(a, unary.sigmoid(b))


@op(namespace=NN_FUNCTIONAL)
def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero elements with probability ``p`` and scale the rest by ``1 / (1 - p)`` (only when training)."""
    x = tensor_arg(input, "dropout")
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if p != p:  # NaN passes the range check above (torch's Python check), then fails the kernel's
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0 or x._data.size == 0:
        return x
    if p == 1.0:
        mask = np.zeros(x._data.shape, dtype=x._data.dtype)
    else:
        kind = x._data.dtype.kind
        if kind == "c":
            raise not_implemented("bernoulli_scalar_cpu_", x._data.dtype)
        if kind != "f":  # the kept elements are scaled by a float
            raise RuntimeError(f"result type Float can't be cast to the desired output type {type_title(x._data.dtype)}")
        keep = _rng(None).random(x._data.shape) >= p
        mask = (keep / (1.0 - p)).astype(x._data.dtype)
    if inplace:
        return mul_(x, wrap(mask))
    return mul(x, wrap(mask))


@op(namespace=(NN_FUNCTIONAL, TENSORLIB))
def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """Integer class labels as one-hot int64 vectors (last dim)."""
    t = tensor_arg(tensor, "one_hot", "tensor")
    a = t._data
    if a.dtype != np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if a.size and a.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if num_classes <= 0 and not a.size:
        raise RuntimeError("Can not infer total number of classes from empty tensor.")
    n = int(a.max()) + 1 if num_classes == -1 else num_classes
    if a.size and a.max() >= n:
        raise RuntimeError("Class values must be smaller than num_classes.")
    return wrap(np.eye(n, dtype=np.int64)[a])


# -- losses -------------------------------------------------------------------------------------------


def _reduction(size_average: Any, reduce: Any, reduction: str, validate: bool = True) -> str:
    """The reduction the arguments ask for (the legacy pair warns as torch does); a bad name is torch's ValueError."""
    if size_average is not None or reduce is not None:
        sa = True if size_average is None else size_average
        rd = True if reduce is None else reduce
        red = "none" if not rd else ("mean" if sa else "sum")
        warnings.warn(
            f"size_average and reduce args will be deprecated, please use reduction='{red}' instead.",
            UserWarning,
            stacklevel=4,
        )
        return red
    if validate and reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _reduce(loss: Tensor, reduction: str) -> Tensor:
    if reduction == "mean":
        return mean(loss)
    if reduction == "sum":
        return broadcast.sum(loss)
    return loss


def _check_target_size(input: Tensor, target: Tensor, name: str) -> None:
    if target._data.shape != input._data.shape:
        warnings.warn(
            f"Using a target size ({target.shape!r}) that is different to the input size ({input.shape!r}). "
            "This will likely lead to incorrect results due to broadcasting. Please ensure they have the same size.",
            UserWarning,
            stacklevel=3,
        )


def _expanded(x: Tensor, t: Tensor) -> tuple[Tensor, Tensor]:
    """Input and target at their common shape (torch's losses broadcast them first: the expansion is recorded)."""
    if x._data.shape == t._data.shape:
        return x, t
    return broadcast.broadcast_tensors(x, t)


def _weighted(loss_of: Callable[[], Tensor], weight: Any, input: Tensor, reduction: str, mean_by_weight: bool,
              fname: str) -> Tensor:
    """A loss times per-element ``weight`` (of the input's size), reduced as torch's Python does for the weighted
    form: a mean divides by the total weight (mse, l1) or by the number of elements (huber)."""
    w = tensor_arg(weight, fname, "weight", 6)
    if w._data.shape != input._data.shape:
        raise ValueError("Weights and input must have the same size.")
    loss = mul(loss_of(), w)
    if reduction == "none":
        return loss
    if reduction == "sum":
        return broadcast.sum(loss)
    if reduction == "mean":
        return div(broadcast.sum(loss), broadcast.sum(w)) if mean_by_weight else mean(loss)
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")


@op(namespace=NN_FUNCTIONAL)
def mse_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None, reduction: str = "mean", weight: Tensor | None = None) -> Tensor:
    """Mean squared error (one ``MseLossBackward0`` node; with ``weight``, a mean divides by the total weight)."""
    x = tensor_arg(input, "mse_loss")
    t = tensor_arg(target, "mse_loss", "target", 2)
    _check_target_size(x, t, "mse_loss")
    red = _reduction(size_average, reduce, reduction, validate=False)
    xe, te = _expanded(x, t)
    if weight is not None:
        return _weighted(lambda: _pow(sub(xe, te), 2), weight, x, red, True, "mse_loss")
    return _losses.pair_loss(_losses.MseLossBackward0, xe, te, _reduction(None, None, red), _losses.mse_forward,
                             kernel="mse_cpu")


@op(namespace=NN_FUNCTIONAL)
def l1_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None, reduction: str = "mean", weight: Tensor | None = None) -> Tensor:
    """Mean absolute error (with ``weight``, a mean divides by the total weight)."""
    x = tensor_arg(input, "l1_loss")
    t = tensor_arg(target, "l1_loss", "target", 2)
    _check_target_size(x, t, "l1_loss")
    red = _reduction(size_average, reduce, reduction, validate=False)
    xe, te = _expanded(x, t)
    if weight is not None:
        return _weighted(lambda: unary.abs(sub(xe, te)), weight, x, red, True, "l1_loss")
    return _reduce(unary.abs(sub(xe, te)), _reduction(None, None, red))


@op(namespace=NN_FUNCTIONAL)
def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0, weight: Tensor | None = None) -> Tensor:
    """Quadratic for errors below ``delta``, linear above (one ``HuberLossBackward0`` node, in the input's dtype)."""
    x = tensor_arg(input, "huber_loss")
    t = tensor_arg(target, "huber_loss", "target", 2)
    _check_target_size(x, t, "huber_loss")
    delta = float_arg(delta, "huber_loss", "delta", 4)
    xe, te = _expanded(x, t)

    def unweighted(red: str) -> Tensor:
        if delta <= 0:
            raise RuntimeError("huber_loss does not support non-positive values for delta.")
        return _losses.pair_loss(_losses.HuberLossBackward0, xe, te, red, _losses.huber_forward, delta,
                                 kernel="huber_cpu", same_dtype_as_input=True)

    if weight is None:
        return unweighted(_reduction(None, None, reduction))
    return _weighted(lambda: unweighted("none"), weight, x, reduction, False, "huber_loss")


@op(namespace=NN_FUNCTIONAL)
def smooth_l1_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None, reduction: str = "mean", beta: float = 1.0) -> Tensor:
    """Huber loss scaled by ``1 / beta`` (one ``SmoothL1LossBackward0`` node; ``beta=0`` is :func:`l1_loss`)."""
    x = tensor_arg(input, "smooth_l1_loss")
    t = tensor_arg(target, "smooth_l1_loss", "target", 2)
    _check_target_size(x, t, "smooth_l1_loss")
    red = _reduction(size_average, reduce, reduction)
    beta = float_arg(beta, "smooth_l1_loss", "beta", 6)
    xe, te = _expanded(x, t)
    if beta == 0:
        return _reduce(unary.abs(sub(xe, te)), red)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    return _losses.pair_loss(_losses.SmoothL1LossBackward0, xe, te, red, _losses.smooth_l1_forward, beta,
                             kernel="smooth_l1_cpu")


@op(namespace=NN_FUNCTIONAL)
def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average: Any = None, ignore_index: int = -100, reduce: Any = None, reduction: str = "mean") -> Tensor:
    """Negative log likelihood of class ``target`` given log-probabilities ``input`` (class dim 1)."""
    x = tensor_arg(input, "nll_loss")
    t = tensor_arg(target, "nll_loss", "target", 2)
    red = _reduction(size_average, reduce, reduction)
    ta = t._data
    nd = x._data.ndim
    if nd == 0:
        raise ValueError("Expected 1 or more dimensions (got 0)")
    unbatched = nd == 1
    if unbatched:
        if ta.ndim > 1 or (ta.ndim == 1 and ta.shape[0] != 1):
            raise ValueError(f"For 1D input, 1D target must have size 1, but got target size: {ta.shape}")
    else:
        n = x._data.shape[0]
        if ta.ndim == 0 or ta.shape[0] != n:
            got = ta.shape[0] if ta.ndim else 0
            raise ValueError(f"Expected input batch_size ({n}) to match target batch_size ({got}).")
        if nd == 2 and ta.ndim != 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        if nd > 2 and ta.shape != (n,) + x._data.shape[2:]:
            raise RuntimeError(
                f"Expected target size {[n] + list(x._data.shape[2:])}, got {list(ta.shape)}"
            )
    if ta.dtype != np.int64 and ta.dtype != np.uint8:
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {type_title(ta.dtype)}")
    if unbatched:  # (one sample: computed as a batch of one, recorded on the input itself, as torch's)
        ta = ta.reshape(1)
    n, c = (1, x._data.shape[0]) if unbatched else x._data.shape[:2]
    # NumPy 2.5's stubs have no overload for this call (2.4's do); the ignore holds for both
    if not 0 <= ignore_index < c and ta.size and np.maximum.reduce(ta.view(_UNSIGNED[ta.dtype.itemsize]), axis=None) < c:  # type: ignore[call-overload, unused-ignore]
        # every target is a class index (none ignored): one comparison instead of five array passes
        safe, valid = ta, None
    else:
        valid = ta != ignore_index
        invalid = ((ta < 0) | (ta >= c)) & valid
        if invalid.any():
            raise IndexError(f"Target {ta[invalid].reshape(-1)[0]} is out of bounds.")
        safe = np.where(valid, ta, 0)
    if (x._data.ndim == 2 or unbatched) and (weight is None or not weight._requires_grad):
        return _nll_loss_2d(x, safe, valid, weight, red, unbatched)
    if x._data.ndim > 2 and (weight is None or not weight._requires_grad) and x._data.dtype.kind == "f":
        return _nll_loss_nd(x, safe, valid, weight, red)
    if unbatched:
        x = unsqueeze(x, 0)
    picked = squeeze(gather(x, 1, wrap(np.expand_dims(safe, 1))), 1)
    w = np.ones(c, dtype=x._data.dtype) if weight is None else weight._data
    wt = (w[safe] if valid is None else w[safe] * valid).astype(x._data.dtype)
    loss = neg(mul(picked, wrap(wt)))
    if red == "none":
        return squeeze(loss, 0) if unbatched else loss
    if red == "sum":
        return broadcast.sum(loss)
    total = float(wt.sum())
    if total == 0:
        # every target ignored (or weighted 0): torch's mean is nan, its gradient zero
        return add(mul(broadcast.sum(loss), 0.0), float("nan"))
    return div(broadcast.sum(loss), total)


class NllLossBackward0(Node):
    """Backward of nll_loss on (N, C) log-probabilities: -weight / denominator at each target, zero elsewhere.

    The (N, C) array of those coefficients is built when backward needs it:
    ``picks`` holds ``(shape, rows, targets, values)`` until then (``coef`` None).
    """

    __slots__ = ("coef", "picks", "per_sample", "unbatched")
    coef: np.ndarray | None
    picks: tuple | None
    per_sample: bool
    unbatched: bool

    def coefficients(self) -> np.ndarray:
        """The gradient of the loss w.r.t. each log-probability (before the incoming gradient)."""
        coef = self.coef
        if coef is None:
            shape, rows, targets, values = self.picks  # type: ignore[misc]
            coef = np.zeros(shape, dtype=values.dtype)
            coef[rows, targets] = values
            coef = self.coef = coef[0] if self.unbatched else coef
        return coef

    def backward(self, g: Tensor) -> tuple:
        if self.per_sample:  # reduction='none': one gradient per sample
            if not self.unbatched:
                g = reshape(g, (-1, 1))
        elif not GRAD.enabled and type(g) is Tensor:
            picks = self.picks
            if picks is not None and g._data.dtype is picks[3].dtype:
                # a scalar loss's gradient, nothing recorded: the incoming gradient scales the picked positions only
                # (zero elsewhere whatever it is, as torch's)
                shape, rows, targets, values = picks
                r = np.zeros(shape, dtype=values.dtype)
                r[rows, targets] = values * g._data
                return (wrap(r[0] if self.unbatched else r),)
        return (mul(g, wrap(self.coefficients())),)


def _nll_weights(safe: np.ndarray, valid: np.ndarray | None, weight: Tensor | None, dtype: np.dtype) -> Any:
    """Each position's weight: its class's (or one), zero where the target is ignored; None when all are one."""
    if valid is None and weight is None:
        return None
    wt = np.ones(safe.shape, dtype=dtype) if valid is None else valid.astype(dtype)
    return wt if weight is None else wt * weight._data[safe].astype(dtype)


def _nll_reduced(picked: np.ndarray, wt: np.ndarray | None, red: str, dtype: np.dtype) -> tuple[np.ndarray, Any]:
    """nll_loss of the ``picked`` log-probabilities with weights ``wt`` (None: all one), reduced; and the factor
    of each position's gradient (the caller negates it). A mean divides by the total weight (nan if zero)."""
    losses = -picked if wt is None else -(picked * wt)
    factor: Any = 1.0 if wt is None else wt
    if red == "none":
        return losses, factor
    if red == "sum":
        return np.asarray(_add_reduce(losses, None), dtype=dtype), factor
    total = float(picked.size) if wt is None else float(_add_reduce(wt, None))
    if not total:
        return np.asarray(np.nan, dtype=dtype), 0.0
    return np.asarray(_add_reduce(losses, None) / total, dtype=dtype), factor / total


class NllLoss2DBackward0(NllLossBackward0):
    """Backward of nll_loss on (N, C, d1, ...) log-probabilities (torch's name for every input with spatial dims)."""

    __slots__ = ()

    def backward(self, g: Tensor) -> tuple:
        if self.per_sample:  # reduction='none': one gradient per position, broadcast over the classes
            g = unsqueeze(g, 1)
        else:
            coef = self.coefficients()
            if not GRAD.enabled and type(g) is Tensor and g._data.dtype is coef.dtype:
                return (wrap(coef * g._data),)
        return (mul(g, wrap(self.coefficients())),)


def _nll_loss_nd(x: Tensor, safe: np.ndarray, valid: np.ndarray | None, weight: Tensor | None, red: str) -> Tensor:
    """nll_loss for (N, C, d1, ...) input as one NllLoss2DBackward0 node (torch's); other than two spatial dims, on
    a (N, C, 1, rest) view of the input, and for reduction 'none' a view of the result back, as torch's."""
    a = x._data
    if a.ndim != 4:
        n, c = a.shape[:2]
        flat = None if valid is None else valid.reshape(n, 1, -1)
        res = _nll_loss_nd(reshape(x, (n, c, 1, -1)), safe.reshape(n, 1, -1), flat, weight, red)
        return reshape(res, safe.shape) if red == "none" else res
    picked = np.take_along_axis(a, safe[:, None], axis=1)[:, 0]
    out, scale = _nll_reduced(picked, _nll_weights(safe, valid, weight, a.dtype), red, a.dtype)
    if not (x._requires_grad and GRAD.enabled):
        return wrap(out)
    res, node = record(NllLoss2DBackward0, out, (x,))
    coef = np.zeros(a.shape, dtype=a.dtype)
    np.put_along_axis(coef, safe[:, None], np.broadcast_to(-np.asarray(scale, dtype=a.dtype), safe.shape)[:, None],
                      axis=1)
    node.coef, node.picks, node.per_sample, node.unbatched = coef, None, red == "none", False
    return res


# the unsigned type of each integer item size: a negative target read as unsigned is larger than any class count
_UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def _nll_loss_2d(x: Tensor, safe: np.ndarray, valid: np.ndarray | None, weight: Tensor | None, red: str,
                 unbatched: bool) -> Tensor:
    """nll_loss for (N, C) input, or (C,) for one sample (``unbatched``): one gather and one node instead of a chain
    of ops (``valid`` None: all valid)."""
    a = x._data.reshape(1, -1) if unbatched else x._data
    n = a.shape[0]
    rows = _rows(n)
    if valid is None and weight is None and red == "mean":
        # the usual classification loss, on the hot path of every training step: the mean of the picked
        # log-probabilities, negated, without the general path's weights (~5 us less)
        # NumPy 2.5's stubs have no overload for this call (2.4's do); the ignore holds for both
        out = np.asarray(-np.add.reduce(a[rows, safe], axis=None) / n, dtype=a.dtype)  # type: ignore[call-overload, unused-ignore]  # the ufunc: .sum() wraps it
        scale: Any = 1.0 / n
    else:
        out, scale = _nll_reduced(a[rows, safe], _nll_weights(safe, valid, weight, a.dtype), red, a.dtype)
    if red == "none" and unbatched:
        out = out.reshape(())
    if x._requires_grad and GRAD.enabled:
        # (with no target ignored, they are the caller's array: a copy, so that changing it in place later cannot
        # change this gradient)
        targets = safe.copy() if valid is None else safe
        values = np.negative(scale, dtype=a.dtype)
        return _record_nll(x, a.shape, out, rows, targets, values, red == "none", unbatched)
    return wrap(out)


def _record_nll(x: Tensor, shape: tuple[int, ...], out: np.ndarray, rows: np.ndarray, targets: np.ndarray,
                values: np.ndarray, per_sample: bool, unbatched: bool) -> Tensor:
    """``out`` as the result of an NllLossBackward0 node on ``x`` seen as ``shape`` (N, C): ``values`` at
    ``(rows, targets)`` of the gradient (one per row, or one for all), zero elsewhere."""
    res, node = record(NllLossBackward0, out, (x,))
    node.coef = None
    node.picks = (shape, rows, targets, values)
    node.per_sample = per_sample
    node.unbatched = unbatched
    return res


# np.arange(n) by n: the rows of a batch's targets, read-only (shared by every loss of that batch size)
_ROWS: dict[int, np.ndarray] = {}


def _rows(n: int) -> np.ndarray:
    rows = _ROWS.get(n)
    if rows is None:
        rows = np.arange(n)
        rows.flags.writeable = False
        if len(_ROWS) < 64:
            _ROWS[n] = rows
    return rows


def _cross_entropy_2d(x: Tensor, t: Tensor, ignore_index: int, red: str) -> Tensor | None:
    """cross_entropy of (N, C) logits and N class indices, no target ignored, a mean or sum: log_softmax and
    nll_loss (their two nodes, their values bit for bit) without their calls' argument handling; None when the
    arguments are not that case, or are wrong (the general path then raises torch's error)."""
    a, ta = x._data, t._data
    if a.ndim != 2 or ta.ndim != 1 or a.dtype.kind != "f" or ta.dtype != np.int64 or red == "none":
        return None
    n, c = a.shape
    # NumPy 2.5's stubs have no overload for this call (2.4's do); the ignore holds for both
    if not (ta.shape[0] == n and n and c and not 0 <= ignore_index < c
            and np.maximum.reduce(ta.view(np.uint64), axis=None) < c):  # type: ignore[call-overload, unused-ignore]
        return None  # (a negative target, read as unsigned, is larger than any class count)
    logp = a - np.maximum.reduce(a, axis=1, keepdims=True)
    total = last_axis_sums(np.exp(logp))
    np.log(total, out=total)
    np.subtract(logp, total, out=logp)
    rows = _rows(n)
    picked = np.add.reduce(logp[rows, ta], axis=None)  # type: ignore[call-overload, unused-ignore]
    out = np.asarray(-picked / n if red == "mean" else -picked, dtype=a.dtype)
    if not (x._requires_grad and GRAD.enabled):
        return wrap(out)
    lp, node = record(activation.LogSoftmaxBackward0, logp, (x,))
    node.result = SavedTensor(lp, True)
    node.dim = 1
    scale = np.asarray(-1.0 / n if red == "mean" else -1.0, dtype=a.dtype)
    return _record_nll(lp, a.shape, out, rows, ta.copy(), scale, False, False)


@op(namespace=NN_FUNCTIONAL)
def cross_entropy(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: Any = None,
    ignore_index: int = -100,
    reduce: Any = None,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Tensor:
    """Cross entropy between logits ``input`` (class dim 1) and class indices or class probabilities ``target``."""
    x = tensor_arg(input, "cross_entropy")
    t = tensor_arg(target, "cross_entropy", "target", 2)
    red = _reduction(size_average, reduce, reduction)
    if weight is None and label_smoothing == 0 and type(x) is Tensor and type(t) is Tensor:
        # the usual classification loss (on every training step): one pass of checks, the two nodes directly
        fast = _cross_entropy_2d(x, t, ignore_index, red)
        if fast is not None:
            return fast
    class_dim = 0 if x._data.ndim == 1 else 1
    logp = activation.log_softmax(x, class_dim)
    if t._data.shape == x._data.shape:  # class probabilities (torch decides by shape, then checks the dtype)
        if t._data.dtype.kind not in "f":
            raise RuntimeError(
                f"Expected floating point type for target with class probabilities, got {type_title(t._data.dtype)}"
            )
        c = x._data.shape[class_dim]
        probs = t if label_smoothing == 0 else add(mul(t, 1 - label_smoothing), label_smoothing / c)
        terms = mul(logp, probs)
        if weight is not None:
            shape = [1] * x._data.ndim
            shape[class_dim] = c
            terms = mul(terms, reshape(weight, shape))
        if red == "none":
            return neg(broadcast.sum(terms, class_dim))
        # as torch: the sum of everything, negated, over the number of samples for a mean (one node each)
        total = neg(broadcast.sum(terms))
        return total if red == "sum" else divide_by_number(total, x._data.size // c)
    nll = nll_loss(logp, t, weight, None, ignore_index, None, red)
    if label_smoothing == 0:
        return nll
    c = x._data.shape[class_dim]
    valid = t._data != ignore_index
    smooth_terms = logp if weight is None else mul(logp, reshape(weight, [1] * class_dim + [c] + [1] * (x._data.ndim - class_dim - 1)))
    smooth = masked_fill(neg(broadcast.sum(smooth_terms, class_dim)), wrap(~valid), 0.0)
    if red == "mean":
        if weight is None:
            smooth = div(broadcast.sum(smooth), float(valid.sum()))
        else:
            denom = float((weight._data[np.where(valid, t._data, 0)] * valid).sum())
            smooth = div(broadcast.sum(smooth), denom)
    elif red == "sum":
        smooth = broadcast.sum(smooth)
    return add(multiply_by_number(nll, 1 - label_smoothing), multiply_by_number(smooth, label_smoothing / c))


@op(namespace=NN_FUNCTIONAL)
def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> Tensor:
    """Binary cross entropy between probabilities ``input`` and ``target`` (logs clamped at -100, as torch).

    One ``BinaryCrossEntropyBackward0`` node with edges to the input and the target; ``weight`` (broadcast to the
    input's shape) is a constant: torch refuses to differentiate it.
    """
    x = tensor_arg(input, "binary_cross_entropy")
    t = tensor_arg(target, "binary_cross_entropy", "target", 2)
    red = _reduction(size_average, reduce, reduction)
    if t._data.shape != x._data.shape:
        raise ValueError(
            f"Using a target size ({t.shape!r}) that is different to the input size ({x.shape!r}) is deprecated. "
            "Please ensure they have the same size."
        )
    a, b = x._data, t._data
    w = None
    if weight is not None:
        wt = tensor_arg(weight, "binary_cross_entropy", "weight", 3)
        _check_broadcastable_to(wt._data.shape, a.shape)
        if GRAD.enabled and wt._requires_grad and (x._requires_grad or t._requires_grad):
            raise RuntimeError("The function 'binary_cross_entropy' is not differentiable with respect to argument "
                               "'weight'. This input cannot have requires_grad True.")
        w = np.broadcast_to(wt._data, a.shape).astype(a.dtype)
    if b.dtype != a.dtype:
        raise RuntimeError(f"Found dtype {type_title(b.dtype)} but expected {type_title(a.dtype)}")
    float_only("binary_cross_entropy", x)
    # the first element out of [0, 1] (NaN included), input before target, decides the message (torch checks each
    # element in turn)
    bad_input, bad_target = ~((a >= 0) & (a <= 1)), ~((b >= 0) & (b <= 1))
    if bad_input.any() or bad_target.any():
        first = int(np.argmax((bad_input | bad_target).reshape(-1)))
        which = "input" if bad_input.reshape(-1)[first] else "target"
        raise RuntimeError(f"all elements of {which} should be between 0 and 1")
    node = _losses.BinaryCrossEntropyBackward0
    return _losses.pair_loss(node, x, t, red, _losses.bce_forward, w, kernel="binary_cross_entropy")


def _check_broadcastable_to(shape: tuple, target: tuple) -> None:
    """torch's ``_infer_size`` error when a weight of ``shape`` cannot broadcast to ``target``."""
    for k in range(1, len(shape) + 1):
        n, m = shape[-k], target[-k] if k <= len(target) else 1
        if n != m and n != 1 and m != 1:
            raise RuntimeError(f"Attempting to broadcast a dimension of length {n} at {-k}! Mismatching argument at "
                               f"index 1 had {Size(shape)!r}; but expected shape should be broadcastable to "
                               f"{list(target)}")
    if len(shape) > len(target):
        raise RuntimeError(f"output with shape {list(target)} doesn't match the broadcast shape "
                           f"{list(np.broadcast_shapes(shape, target))}")


@op(namespace=NN_FUNCTIONAL)
def binary_cross_entropy_with_logits(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
    pos_weight: Tensor | None = None,
) -> Tensor:
    """Binary cross entropy on logits, computed stably (``sigmoid`` folded in)."""
    x = tensor_arg(input, "binary_cross_entropy_with_logits")
    t = tensor_arg(target, "binary_cross_entropy_with_logits", "target", 2)
    float_only("log_sigmoid_cpu", x)
    if t._data.shape != x._data.shape:
        raise ValueError(f"Target size ({t.shape!r}) must be the same as input size ({x.shape!r})")
    fused = _losses.bce_with_logits(x, t, weight, pos_weight, _reduction(size_average, reduce, reduction))
    if fused is not None:
        return fused
    log_sig = logsigmoid(x)
    log_one_minus = logsigmoid(neg(x))
    pos = mul(t, log_sig)
    if pos_weight is not None:
        pos = mul(pos, pos_weight)
    loss = neg(add(pos, mul(rsub(t, 1), log_one_minus)))
    if weight is not None:
        loss = mul(loss, weight)
    return _reduce(loss, _reduction(size_average, reduce, reduction))


@op(namespace=NN_FUNCTIONAL)
def kl_div(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None, reduction: str = "mean", log_target: bool = False) -> Tensor:
    """KL divergence with log-probabilities ``input`` and (log-)probabilities ``target``."""
    x = tensor_arg(input, "kl_div")
    t = tensor_arg(target, "kl_div", "target", 2)
    if x._data.dtype.kind in "iub" or t._data.dtype.kind in "iub":
        raise RuntimeError("kl_div: Integral inputs not supported.")
    if x._data.dtype.kind == "c" or t._data.dtype.kind == "c":
        raise RuntimeError("kl_div: Complex inputs not supported.")
    if log_target:
        loss = mul(exp(t), sub(t, x))
    else:
        safe_log = log(where(gt(t, 0), t, 1.0))
        loss = where(gt(t, 0), mul(t, sub(safe_log, x)), 0.0)
    if reduction == "batchmean" and size_average is None and reduce is None:
        return div(broadcast.sum(loss), x._data.shape[0]) if x._data.ndim else broadcast.sum(loss)
    red = _reduction(size_average, reduce, reduction)
    if red == "mean":
        warnings.warn(
            "reduction: 'mean' divides the total loss by both the batch size and the support size."
            "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
            "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
            UserWarning,
            stacklevel=3,
        )
    return _reduce(loss, red)


@op(namespace=(NN_FUNCTIONAL, TENSORLIB))
def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """Cosine of the angle between ``x1`` and ``x2`` along ``dim``."""
    a = tensor_arg(x1, "cosine_similarity", "x1")
    b = tensor_arg(x2, "cosine_similarity", "x2", 2)
    eps = float_arg(eps, "cosine_similarity", "eps")
    common = result_dtype(a, b)
    if common.np.kind != "f":
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is {type_title(common.np)}")
    a, b = broadcast.broadcast_tensors(to_dtype(a, common), to_dtype(b, common))
    # as torch: normalise each input by its norm (clamped to eps, the clamp not differentiated), then take the dot
    na = _clamped_norm(a, dim, eps)
    nb = _clamped_norm(b, dim, eps)
    return broadcast.sum(mul(div(a, na), div(b, nb)), dim)


def _clamped_norm(x: Tensor, dim: int, eps: float) -> Tensor:
    n = vector_norm(x, 2, dim, True)
    nd = n._data
    if (nd < eps).any():
        n = add(n, wrap((np.maximum(nd, eps) - nd).astype(nd.dtype)))
    return n


@op(namespace=(NN_FUNCTIONAL, TENSORLIB))
def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor:
    """``p``-norm of ``x1 - x2 + eps`` along the last dim."""
    a = tensor_arg(x1, "pairwise_distance", "x1")
    b = tensor_arg(x2, "pairwise_distance", "x2", 2)
    return vector_norm(add(sub(a, b), eps), p, -1, keepdim)


@op(namespace=(NN_FUNCTIONAL, TENSORLIB))
def pdist(input: Tensor, p: float = 2) -> Tensor:
    """``p``-norm distances between the rows of a 2-D ``input``: the upper triangle of the distance matrix, row by row.

    One ``PdistBackward0`` node, computed a block of rows at a time; its gradient is differentiable again (torch
    has no double backward).
    """
    x = tensor_arg(input, "pdist")
    no_half("pdist", x)
    a = x._data
    if a.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {a.ndim}D")
    if a.dtype.kind != "f":
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    p = float(p)
    n = a.shape[0]
    dist = np.empty(n * (n - 1) // 2, a.dtype)
    for _, pairs, diff in _pdist_rows(a):
        dist[pairs] = _row_norms(diff, p)
    if not (x._requires_grad and GRAD.enabled):
        return wrap(dist)
    res, node = record(PdistBackward0, dist, (x,))
    node.self_, node.p, node.result = save_input(x), p, SavedTensor(res, True)
    return res


def _pdist_rows(a: np.ndarray) -> Any:
    """The row pairs ``i < j`` of ``a`` in torch's order, one first row at a time: yields ``(i, the pairs' slice in
    the output, a[i] - a[i + 1:])`` (a broadcast subtraction: no gathered copies of the rows)."""
    n = a.shape[0]
    start = 0
    for i in range(n - 1):
        stop = start + n - 1 - i
        yield i, slice(start, stop), a[i] - a[i + 1:]
        start = stop


def _row_norms(diff: np.ndarray, p: float) -> np.ndarray:
    """The ``p``-norm of each row of ``diff`` (``p = 0``: the number of non-zeros), as torch's pdist."""
    if p == 2:
        return np.sqrt(np.einsum("ij,ij->i", diff, diff))
    ad = np.abs(diff)
    if p == 1:
        return ad.sum(1)
    if p == 0:
        return (ad != 0).sum(1).astype(diff.dtype)
    if p == math.inf:
        return ad.max(1, initial=0)
    return np.power(np.power(ad, p).sum(1), 1 / p)


def _pair_slopes(diff: Any, d: Any, g: Any, p: float, ops: Any) -> Any:
    """``g * d |diff|_p / d diff`` for each pair's difference (rows), as torch's ``_pdist_backward`` computes it,
    on arrays (``ops`` is NumPy) or with differentiable ops (``ops`` is the tensor namespace below)."""
    g = ops.col(g)
    d = ops.col(d)
    if p == 1:
        return ops.mul(ops.sign(diff), g)
    if p == math.inf:
        return ops.mul(ops.mul(ops.sign(diff), ops.eq_mask(ops.abs(diff), d)), g)
    safe = ops.where_zero(d)  # 0 where the distance is 0: no gradient there, as torch
    if p == 2:
        return ops.mul(diff, ops.mul(ops.div(g, safe[0]), safe[1]))
    scale = ops.mul(ops.div(g, ops.pow(safe[0], p - 1)), safe[1])
    if p < 2:  # |diff| ** (p - 1) is infinite at 0, where torch's slope is 0
        return ops.mul(ops.mul(ops.sign(diff), ops.pow_nonzero(ops.abs(diff), p - 1)), scale)
    return ops.mul(ops.mul(diff, ops.pow(ops.abs(diff), p - 2)), scale)


class _ArrayOps:
    col = staticmethod(lambda v: v[:, None])
    mul = staticmethod(np.multiply)
    div = staticmethod(np.divide)
    sign = staticmethod(np.sign)
    abs = staticmethod(np.abs)
    pow = staticmethod(np.power)
    eq_mask = staticmethod(lambda a, b: (a == b).astype(a.dtype))
    where_zero = staticmethod(lambda d: (np.where(d == 0, 1, d), (d != 0).astype(d.dtype)))
    pow_nonzero = staticmethod(lambda a, e: np.power(np.where(a == 0, 1, a), e) * (a != 0))


class _TensorOps:
    col = staticmethod(lambda v: reshape(v, (-1, 1)))
    mul = staticmethod(mul)
    div = staticmethod(div)
    sign = staticmethod(unary.sign)
    abs = staticmethod(unary.abs)
    pow = staticmethod(_pow)
    eq_mask = staticmethod(lambda a, b: wrap((a._data == b._data).astype(a._data.dtype)))
    where_zero = staticmethod(lambda d: (where(wrap(d._data == 0), 1.0, d), wrap((d._data != 0).astype(d._data.dtype))))
    pow_nonzero = staticmethod(lambda a, e: mul(_pow(where(wrap(a._data == 0), 1.0, a), e),
                                                wrap((a._data != 0).astype(a._data.dtype))))


class PdistBackward0(Node):
    """The distances' gradient: each pair's slope added to its first row and taken from its second."""

    __slots__ = ("self_", "p", "result")
    _saved_slots = ("self_", "result")
    self_: SavedTensor | None
    p: float
    result: SavedTensor | None

    def backward(self, g: Tensor) -> tuple:
        x, d = unpack(self, self.self_), unpack(self, self.result)
        p = self.p
        a = x._data
        if p == 0:
            return (wrap(np.zeros_like(a)),)
        if not GRAD.enabled and type(g) is Tensor:
            out = np.zeros_like(a)
            for i, pairs, diff in _pdist_rows(a):
                slopes = _pair_slopes(diff, d._data[pairs], g._data[pairs], p, _ArrayOps)
                out[i] += slopes.sum(0)
                out[i + 1:] -= slopes
            return (wrap(out),)
        first, second = (wrap(v) for v in np.triu_indices(a.shape[0], 1))
        diff = sub(index_select(x, 0, first), index_select(x, 0, second))
        slopes = _pair_slopes(diff, d, g, p, _TensorOps)
        zeros = wrap(np.zeros_like(a))
        return (sub(index_add(zeros, 0, first, slopes), index_add(zeros, 0, second, slopes)),)


@op(namespace=NN_FUNCTIONAL)
def gumbel_softmax(logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10, dim: int = -1) -> Tensor:
    """A Gumbel-softmax sample over ``dim``: ``softmax((logits + g) / tau)`` with ``g ~ Gumbel(0, 1)``.

    With ``hard`` the result is one-hot (the sample's argmax) in value, with the soft sample's gradient
    (straight-through).
    """
    x = tensor_arg(logits, "gumbel_softmax", "logits")
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    a = x._data
    gumbels = wrap((-np.log(_rng(None).exponential(1.0, a.shape))).astype(a.dtype, copy=False))
    y_soft = activation.softmax(div(add(x, gumbels), tau), dim)
    if not hard:
        return y_soft
    d = wrap_dim(dim, a.ndim)
    index = np.expand_dims(np.argmax(y_soft._data, axis=d), d)
    y_hard = np.zeros(a.shape, dtype=a.dtype)
    np.put_along_axis(y_hard, index, 1.0, axis=d)
    return add(sub(wrap(y_hard), y_soft.detach()), y_soft)


@op(namespace=NN_FUNCTIONAL)
def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out: Tensor | None = None) -> Tensor:
    """``input / max(||input||_p, eps)`` along ``dim``."""
    x = tensor_arg(input, "normalize")
    n = clamp(vector_norm(x, p, dim, keepdim=True), min=eps)
    res = div(x, n)
    return res if out is None else write_out(out, res, "normalize")


def embedding_renorm_(w: Tensor, indices: np.ndarray, max_norm: float, norm_type: float) -> None:
    """As torch: the rows of ``w`` looked up whose norm exceeds ``max_norm`` are scaled down in place, outside
    autograd."""
    if isinstance(max_norm, Tensor):
        max_norm = max_norm.item()
    rows = np.unique(indices)
    wd = w._data
    norms = np.linalg.norm(wd[rows].astype(np.float64), ord=norm_type, axis=1)
    scale = np.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
    if np.any(scale != 1.0):
        wd[rows] = (wd[rows] * scale[:, None]).astype(wd.dtype)
        bump_version(w)


@op(namespace=NN_FUNCTIONAL)
def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None, max_norm: float | None = None, norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """Rows of ``weight`` selected by the indices in ``input``."""
    no_complex_grad("embedding", weight)
    idx = tensor_arg(input, "embedding")
    w = tensor_arg(weight, "embedding", "weight", 2)
    if w._data.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    if w._data.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    if idx._data.dtype.kind != "i" or idx._data.itemsize not in (4, 8):  # int64 or int32, as torch
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, "
                           f"Int; but got {legacy_type_name(idx._data.dtype)} instead (while checking arguments for "
                           "embedding)")
    flat = reshape(idx, (-1,))
    n_rows = w._data.shape[0]
    fa = flat._data
    # one reduction checks both ends: read as unsigned, a negative index is larger than any row count
    # NumPy 2.5's stubs have no overload for this call (2.4's do); the ignore holds for both
    if fa.size and np.maximum.reduce(fa.view(_UNSIGNED[fa.itemsize]), axis=None) >= n_rows:  # type: ignore[call-overload, unused-ignore]
        raise IndexError("index out of range in self")
    if max_norm is not None:
        embedding_renorm_(w, flat._data, max_norm, norm_type)
    rows = np.take(w._data, fa, axis=0).reshape(idx._data.shape + (w._data.shape[1],))
    if not (w._requires_grad and GRAD.enabled):
        return wrap(rows)
    scale = None
    if padding_idx is not None or scale_grad_by_freq:
        scale = np.ones(fa.shape, dtype=w._data.dtype)
        if padding_idx is not None:
            p = padding_idx if padding_idx >= 0 else w._data.shape[0] + padding_idx
            scale[fa == p] = 0  # no gradient reaches the padding row
        if scale_grad_by_freq:
            _, inverse, counts = np.unique(fa, return_inverse=True, return_counts=True)
            scale = (scale / counts[inverse.reshape(-1)]).astype(w._data.dtype)
    res, node = record(EmbeddingBackward0, rows, (w,))
    node.indices, node.num_weights, node.scale = fa, n_rows, scale
    return res


class EmbeddingBackward0(Node):
    """The looked-up rows' gradients added into a zero weight gradient (each scaled, for padding_idx and
    scale_grad_by_freq), as torch's embedding_backward."""

    __slots__ = ("indices", "num_weights", "scale")
    indices: np.ndarray
    num_weights: int
    scale: np.ndarray | None

    def backward(self, g: Tensor) -> tuple:
        dim = g._data.shape[-1]
        if not GRAD.enabled and type(g) is Tensor:
            gd = g._data.reshape(-1, dim)
            if self.scale is not None:
                gd = gd * self.scale[:, None]
            out = np.zeros((self.num_weights, dim), dtype=gd.dtype)
            add_at_zeros(out, (self.indices,), gd)
            return (wrap(out),)
        g2 = reshape(g, (-1, dim))
        if self.scale is not None:
            g2 = mul(g2, wrap(self.scale[:, None]))
        zeros = wrap(np.zeros((self.num_weights, dim), dtype=g._data.dtype))
        return (index_add(zeros, 0, wrap(self.indices), g2),)


@op(namespace=NN_FUNCTIONAL)
def layer_norm(input: Tensor, normalized_shape: Any, weight: Tensor | None = None, bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:
    """Normalise over the last ``len(normalized_shape)`` dims, then scale and shift."""
    x = tensor_arg(input, "layer_norm")
    float_only("LayerNormKernelImpl", x)
    if not isinstance(normalized_shape, (int, tuple, list)):
        raise TypeError("layer_norm(): argument 'normalized_shape' (position 2) must be tuple of ints, not "
                        f"{type(normalized_shape).__name__}")
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if not shape:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
                           "element, but got normalized_shape = []")
    for t, name in ((weight, "weight"), (bias, "bias")):
        if isinstance(t, Tensor) and t._data.shape != shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got {name} of shape "
                               f"{list(t._data.shape)} and normalized_shape = {list(shape)}")
    if x._data.shape[x._data.ndim - len(shape):] != shape:
        raise RuntimeError(
            f"Given normalized_shape={list(shape)}, expected input with shape [*, {', '.join(map(str, shape))}], "
            f"but got input of size{list(x._data.shape)}"
        )
    fused = fused_layer_norm(x, shape, weight, bias, eps)
    if fused is not None:
        return fused
    dims = tuple(range(x._data.ndim - len(shape), x._data.ndim))
    mu = mean(x, dims, keepdim=True)
    var = reduction_ops.var(x, dims, keepdim=True, correction=0)
    y = mul(sub(x, mu), rsqrt(add(var, eps)))
    if weight is not None:
        y = mul(y, weight)
    if bias is not None:
        y = add(y, bias)
    return y


def _pad_adjoint(gd: np.ndarray, ax: int, widths: tuple[int, int], n: int, mode: Any) -> np.ndarray:
    """The gradient of padding one axis of length ``n`` by ``widths`` in NumPy's ``mode``: the interior, plus each
    padded side added back to the elements it copied (a side's sources repeat only for 'edge': one sum)."""
    lo, hi = widths
    lead = (slice(None),) * ax
    sources = np.pad(np.arange(n), widths, mode=mode)
    out = gd[lead + (slice(lo, lo + n),)].copy()
    for side in (slice(0, lo), slice(lo + n, lo + n + hi)):
        src = sources[side]
        if src.size == 0:
            continue
        values = gd[lead + (side,)]
        if np.unique(src).size == src.size:
            out[lead + (src,)] += values
        elif (src == src[0]).all():
            out[lead + (slice(src[0], src[0] + 1),)] += _add_reduce(values, ax, keepdims=True)
        else:
            key: Any = lead + (src,)
            np.add.at(out, key, values)
    return out


_NpPadMode = Literal["constant", "reflect", "edge", "wrap"]
_NP_PAD_MODES: dict[str, _NpPadMode] = {"constant": "constant", "reflect": "reflect", "replicate": "edge", "circular": "wrap"}


@op(namespace=NN_FUNCTIONAL)
def pad(input: Tensor, pad: Any, mode: str = "constant", value: float | None = None) -> Tensor:
    """Pad the last ``len(pad) // 2`` dims: ``(left, right, top, bottom, ...)``; modes constant/reflect/replicate/circular."""
    x = tensor_arg(input, "pad")
    if not isinstance(pad, (list, tuple)):
        raise TypeError(f"pad(): argument 'pad' (position 2) must be tuple of ints, not {type(pad).__name__}")
    # 0-d integer tensors count as ints (torch's SymInt arguments accept them)
    pad = [int(p) if isinstance(p, Tensor) and p.dim() == 0 and not p.is_floating_point() else p for p in pad]
    for i, p in enumerate(pad):
        if isinstance(p, bool) or not isinstance(p, (int, np.integer)):
            raise TypeError(f"pad(): argument 'pad' (position 2) must be tuple of ints, but found element of type "
                            f"{type(p).__name__} at pos {i}")
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    n = len(pad) // 2
    if n > x._data.ndim:
        raise RuntimeError("Padding length too large")
    widths = [(0, 0)] * (x._data.ndim - n) + [(pad[2 * i], pad[2 * i + 1]) for i in reversed(range(n))]
    if not isinstance(mode, str):
        raise TypeError(f"pad(): argument 'mode' (position 3) must be str, not {type(mode).__name__}")
    np_mode = _NP_PAD_MODES.get(mode)
    if np_mode is None:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    # negative pads crop
    crop = tuple(slice(-lo if lo < 0 else None, hi if hi < 0 else None) for lo, hi in widths)
    x = basic_getitem(x, crop) if any(lo < 0 or hi < 0 for lo, hi in widths) else x
    widths = [(max(lo, 0), max(hi, 0)) for lo, hi in widths]
    a = x._data
    if not widths:  # a 0-d input has nothing to pad
        r = a.copy()
    elif np_mode == "constant":
        r = np.pad(a, widths, mode=np_mode, constant_values=0 if value is None else value)
    else:
        r = np.pad(a, widths, mode=np_mode)
    if x._requires_grad and GRAD.enabled:
        res, node = record(_pad_node(np_mode, n), r, (x,))
        node.widths, node.mode, node.shape = widths, np_mode, a.shape
        return res
    return wrap(r)


def _pad_node(np_mode: str, padded_dims: int) -> type:
    """torch's node for a padding: ConstantPadNdBackward0, ReflectionPad2DBackward0, ... (circular padding is
    copies into a new tensor there: CopySlices)."""
    if np_mode == "constant":
        name = "ConstantPadNdBackward0"
    elif np_mode == "wrap":
        name = "CopySlices"
    else:
        name = f"{'ReflectionPad' if np_mode == 'reflect' else 'ReplicationPad'}{min(max(padded_dims, 1), 3)}DBackward0"
    return named_node_class(PadBackward0, name)


class PadBackward0(Node):
    __slots__ = ("widths", "mode", "shape")
    widths: list[tuple[int, int]]
    mode: _NpPadMode
    shape: tuple[int, ...]

    def backward(self, g: Tensor) -> tuple:
        if self.mode == "constant":
            key = tuple(slice(lo, lo + s) for (lo, _), s in zip(self.widths, self.shape))
            return (basic_getitem(g, key),)
        # reflect/replicate/circular: each output element came from one input element
        if not GRAD.enabled and type(g) is Tensor and g._data.dtype.kind == "f":
            # nothing recorded: the padding is one axis after another, so its adjoint is too (each a scatter-add)
            gd = g._data
            for ax in reversed(range(gd.ndim)):
                if self.widths[ax] != (0, 0):
                    gd = _pad_adjoint(gd, ax, self.widths[ax], self.shape[ax], self.mode)
            return (wrap(gd),)
        index = np.arange(int(np.prod(self.shape))).reshape(self.shape)
        src = np.pad(index, self.widths, mode=self.mode)
        flat_g = reshape(g, (-1,))
        out = index_put_key(wrap(np.zeros(int(np.prod(self.shape)), dtype=g._data.dtype)), (src.reshape(-1),), flat_g, accumulate=True)
        return (reshape(out, self.shape),)
