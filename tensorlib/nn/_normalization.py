"""Normalisation (batch, instance, group, local response) and channel-wise dropout.

Batch and layer norm of float32/float64 tensors are one node each, as torch records them (NumPy passes forward,
gradients on arrays, differentiable formulas under ``create_graph``); the other normalisations, and other dtypes,
are composed from differentiable reductions and elementwise ops, so their gradients of any order come from the
engine. Running statistics are buffers updated in place, outside the graph, as torch does.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from .._autograd.grad_mode import no_grad
from .._autograd.graph import Node, SavedTensor, save_input, unpack
from .._dtype import float32
from .._registry import NN_FUNCTIONAL, TENSORLIB, op
from .._tensor import Tensor, bump_version
from ..ops import power, reduction
from ..ops.broadcast import _add_reduce  # (typed loosely: NumPy 2.5's stubs lack some overloads)
from ..ops._kernels import last_axis_sums, trailing_sums
from ..ops._util import GRAD, float_only, int_list_arg, not_implemented, real_only, record, tensor_arg, type_title, wrap, writable
from ..ops.arithmetic import add, div, mul, sub
from ..ops.conversion import clone, to_dtype
from ..ops.creation import _rng
from ..ops.inplace import add_, mul_
from ..ops.linalg import einsum
from ..ops.shape import reshape
from ..ops.unary import rsqrt
from ._pooling import Taps, _LinearMapNode, _node_class, linear_map

__all__ = [
    "alpha_dropout", "batch_norm", "dropout1d", "dropout2d", "dropout3d", "feature_alpha_dropout", "group_norm",
    "instance_norm", "local_response_norm",
]


def _check_vector(t: Tensor | None, c: int, name: str) -> None:
    if t is not None and t._data.size != c:
        raise RuntimeError(f"{name} should contain {c} elements not {t._data.size}")


def _check_vectors(c: int, running_mean: Tensor | None, running_var: Tensor | None, weight: Tensor | None = None,
                   bias: Tensor | None = None) -> None:
    """Each per-channel argument given has ``c`` elements."""
    for t, name in ((running_mean, "running_mean"), (running_var, "running_var"), (weight, "weight"), (bias, "bias")):
        _check_vector(t, c, name)


def _update(buf: Tensor, momentum: float, value: np.ndarray) -> None:
    """``buf = (1 - momentum) * buf + momentum * value`` in place (not recorded)."""
    a = writable(buf)
    step = (momentum * value).astype(a.dtype, copy=False)
    if np.broadcast_shapes(a.shape, step.shape) != a.shape:  # a 0-d buffer for one channel: torch refuses it too
        raise RuntimeError(f"output with shape {list(a.shape)} doesn't match the broadcast shape {list(step.shape)}")
    a *= 1 - momentum
    a += step
    bump_version(buf)


def _normalize(x: Tensor, dims: tuple, eps: float) -> tuple[Tensor, Tensor, Tensor]:
    """``(x - mean) / sqrt(var + eps)`` over ``dims`` with the biased variance; also the mean and variance."""
    mean = reduction.mean(x, dims, keepdim=True)
    var = reduction.var(x, dims, keepdim=True, correction=0)
    return mul(sub(x, mean), rsqrt(add(var, eps))), mean, var


def _affine(y: Tensor, weight: Tensor | None, bias: Tensor | None, shape: tuple) -> Tensor:
    if weight is not None:
        y = mul(y, reshape(weight, shape))
    if bias is not None:
        y = add(y, reshape(bias, shape))
    return y


def _empty_affine(x: Tensor, weight: Tensor | None, bias: Tensor | None) -> Tensor:
    """The normalisation of an input with no elements: a copy, connected to ``weight`` and ``bias``.

    As torch, the sizes of the affine parameters are not checked here, only that they have a first element.
    """
    y = clone(x)
    for t, name, combine in ((weight, "weight", mul), (bias, "bias", add)):
        if t is not None:
            if t._data.size == 0:
                raise IndexError(f"{name}: index 0 is out of bounds for dimension 0 with size 0")
            y = combine(y, reshape(t, (-1,))[0])
    return y


@op(namespace=NN_FUNCTIONAL)
def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None, weight: Tensor | None = None,
               bias: Tensor | None = None, training: bool = False, momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalise each channel (dim 1) over the batch and spatial dims, then scale by ``weight`` and shift by ``bias``.

    When ``training``, batch statistics are used and the running ones (if
    given) move towards them by ``momentum`` (the variance unbiased); otherwise
    the running statistics are used.
    """
    x = tensor_arg(input, "batch_norm")
    float_only("batch_norm", x)
    a = x._data
    if a.ndim < 2:
        # torch counts the channels of an input without a channel dim as zero, then fails to find dim 1
        _check_vectors(0, running_mean, running_var, weight, bias)
        raise IndexError(f"Dimension out of range (expected to be in range of [{-max(a.ndim, 1)}, "
                         f"{max(a.ndim, 1) - 1}], but got 1)")
    c = a.shape[1]
    if momentum is None or isinstance(momentum, (str, bool)):
        raise TypeError(f"batch_norm(): argument 'momentum' (position 7) must be float, not {type(momentum).__name__}")
    if training and a.size // max(c, 1) == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {x.shape!r}")
    if a.size == 0:
        return _empty_affine(x, weight, bias)
    _check_vectors(c, running_mean, running_var, weight, bias)
    dims = (0,) + tuple(range(2, a.ndim))
    shape = (1, c) + (1,) * (a.ndim - 2)
    if a.dtype in _FUSED_DTYPES and all(_fusable(t, a.dtype, c) for t in (weight, bias)) and (
            training or all(_fusable(t, a.dtype, c) and t is not None for t in (running_mean, running_var))):
        return _fused_batch_norm(x, running_mean, running_var, weight, bias, training, momentum, eps, dims, shape)
    if training:
        y, mean, var = _normalize(x, dims, eps)
        n = a.size // max(c, 1)
        if running_mean is not None:
            _update(running_mean, momentum, mean._data.reshape(c))
        if running_var is not None:
            _update(running_var, momentum, var._data.reshape(c) * (n / max(n - 1, 1)))
    else:
        if running_mean is None:
            raise RuntimeError("running_mean must be defined in evaluation mode")
        if running_var is None:
            raise RuntimeError("running_var must be defined in evaluation mode")
        mean = reshape(running_mean, shape)
        y = mul(sub(x, mean), rsqrt(add(reshape(running_var, shape), eps)))
    return _affine(y, weight, bias, shape)


_FUSED_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def _fusable(t: Tensor | None, dtype: np.dtype, c: int) -> bool:
    """Whether a per-channel argument can enter the fused batch norm: absent, or a tensor of ``c`` elements and of
    the input's dtype (other dtypes take the composed path, with its promotions and errors)."""
    return t is None or (isinstance(t, Tensor) and t._data.dtype == dtype and t._data.shape == (c,))


class _FusedNormBackward(Node):
    """A whole normalisation (statistics, normalisation and affine) as one node, as torch records batch and layer
    norm: ``y = (x - mean) * invstd * weight + bias``.

    ``dims``: the dims the statistics reduce; ``param_dims``: the dims the affine parameters' gradients reduce;
    ``param_shape``: the weight's shape as it broadcasts against the input. ``mean`` and ``invstd`` are the
    statistics used, shaped to broadcast against the input; when ``batch_stats``, they are the input's own (so
    the input's gradient goes through them too). Gradients come from the arrays when nothing is recorded, and
    from differentiable ops under ``create_graph``.
    """

    __slots__ = ("input", "weight", "mean", "invstd", "batch_stats", "eps", "dims", "param_dims", "param_shape")
    _saved_slots: tuple[str, ...] = ("input", "weight")
    input: SavedTensor | None
    weight: SavedTensor | None
    mean: np.ndarray | None
    invstd: np.ndarray | None
    batch_stats: bool
    eps: float
    dims: tuple[int, ...]
    param_dims: tuple[int, ...]
    param_shape: tuple[int, ...]

    def statistics(self, x: Tensor) -> tuple[np.ndarray, np.ndarray]:
        """The mean and inverse standard deviation the forward used."""
        assert self.mean is not None and self.invstd is not None
        return self.mean, self.invstd

    def apply(self, grads: list) -> tuple:
        g = grads[0]
        if g is None:
            return None, None, None
        x = unpack(self, self.input)
        w = unpack(self, self.weight) if self.weight is not None else None
        mean, invstd = self.statistics(x)
        if not GRAD.enabled and type(g) is Tensor and g._data.dtype == x._data.dtype:
            return self._on_arrays(g._data, x._data, None if w is None else w._data, mean, invstd)
        return self._recorded(g, x, w, mean, invstd)

    def _on_arrays(self, gy: np.ndarray, a: np.ndarray, w: np.ndarray | None, mean: np.ndarray,
                   invstd: np.ndarray) -> tuple:
        """The three gradients with NumPy (nothing to record)."""
        dims, param_dims = self.dims, self.param_dims
        xhat = a - mean
        xhat *= invstd
        gyx = gy * xhat
        gx = gw = gb = None
        if self.needs(1):
            gw = wrap(_add_reduce(gyx, axis=param_dims))
        if self.needs(2):
            gb = wrap(_add_reduce(gy, axis=param_dims))
        if self.needs(0):
            scale = invstd
            if w is not None:
                w = w.reshape(self.param_shape)
                if dims == param_dims or not self.batch_stats:
                    scale = invstd * w  # constant over each group the statistics reduce (batch norm): a factor
                else:  # the weight varies inside a group (layer norm): it enters the group means
                    gy = gy * w
                    gyx = gy * xhat
            if self.batch_stats:
                # d/dx of (x - mean) * invstd: the statistics depend on x too
                n = a.size // mean.size
                gyx_mean = _add_reduce(gyx, axis=dims, keepdims=True) / n
                gy_mean = _add_reduce(gy, axis=dims, keepdims=True) / n
                xhat *= gyx_mean
                np.subtract(gy, xhat, out=xhat)
                xhat -= gy_mean
                xhat *= scale
                gx = wrap(xhat)
            else:
                gx = wrap(gy * scale)
        return gx, gw, gb

    def _recorded(self, g: Tensor, x: Tensor, w: Tensor | None, mean_a: np.ndarray, invstd_a: np.ndarray) -> tuple:
        """The same gradients as differentiable ops (``create_graph``): their own gradients follow."""
        dims, param_dims = self.dims, self.param_dims
        if self.batch_stats:  # the statistics again, as functions of x
            mean = reduction.mean(x, dims, keepdim=True)
            invstd = rsqrt(add(reduction.var(x, dims, keepdim=True, correction=0), self.eps))
        else:
            mean, invstd = wrap(mean_a), wrap(np.asarray(invstd_a, dtype=x._data.dtype))
        xhat = mul(sub(x, mean), invstd)
        gx = gw = gb = None
        if self.needs(1):
            gw = reduction.sum(mul(g, xhat), param_dims)
        if self.needs(2):
            gb = reduction.sum(g, param_dims)
        if self.needs(0):
            gxhat = g if w is None else mul(g, reshape(w, self.param_shape))
            if self.batch_stats:
                centred = sub(gxhat, reduction.mean(gxhat, dims, keepdim=True))
                gxhat = sub(centred, mul(xhat, reduction.mean(mul(gxhat, xhat), dims, keepdim=True)))
            gx = mul(gxhat, invstd)
        return gx, gw, gb


class NativeBatchNormBackward0(_FusedNormBackward):
    """Batch norm's node. In evaluation it saves the running statistics themselves (so that, as in torch,
    changing them in place before backward is an error) and reads them back in backward."""

    __slots__ = ("running_mean", "running_var")
    _saved_slots = ("input", "weight", "running_mean", "running_var")
    running_mean: SavedTensor | None
    running_var: SavedTensor | None

    def statistics(self, x: Tensor) -> tuple[np.ndarray, np.ndarray]:
        if self.batch_stats:
            return super().statistics(x)
        mean = unpack(self, self.running_mean)._data.reshape(self.param_shape)
        invstd = 1.0 / np.sqrt(unpack(self, self.running_var)._data.reshape(self.param_shape) + self.eps)
        return mean, invstd


class NativeLayerNormBackward0(_FusedNormBackward):
    """Layer norm's node."""

    __slots__ = ()

    def _on_arrays(self, gy: np.ndarray, a: np.ndarray, w: np.ndarray | None, mean: np.ndarray,
                   invstd: np.ndarray) -> tuple:
        """The three gradients on the input seen as (rows, normalized elements): the sums of products come from
        single einsum passes, without their products as arrays."""
        c = math.prod(a.shape[d] for d in self.dims)
        rows = a.size // max(c, 1)
        a2, gy2, inv = a.reshape(rows, c), gy.reshape(rows, c), invstd.reshape(rows, 1)
        xhat = a2 - mean.reshape(rows, 1)
        xhat *= inv
        gx = gw = gb = None
        if self.needs(1):
            gw = wrap(np.einsum("ni,ni->i", gy2, xhat).reshape(self.param_shape))
        if self.needs(2):
            gb = wrap(_add_reduce(gy2, 0).reshape(self.param_shape))
        if self.needs(0):
            gyw = gy2 if w is None else gy2 * w.reshape(c)
            # (gyw - xhat * mean(gyw * xhat) - mean(gyw)) * invstd, row by row
            xhat *= np.einsum("ni,ni->n", gyw, xhat)[:, None] / c
            np.subtract(gyw, xhat, out=xhat)
            xhat -= last_axis_sums(gyw) / c
            xhat *= inv
            gx = wrap(xhat.reshape(a.shape))
        return gx, gw, gb


def _normalized(a: np.ndarray, dims: tuple[int, ...], eps: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``((a - mean) * invstd, mean, var, invstd)`` over ``dims`` (biased variance, two passes: no cancellation)."""
    n = math.prod(a.shape[d] for d in dims)
    mean = trailing_sums(a, dims) / n
    y = a - mean
    var = trailing_sums(y * y, dims) / n
    invstd = 1.0 / np.sqrt(var + eps)
    y *= invstd
    return y, mean, var, invstd


def _affine_in_place(y: np.ndarray, weight: Tensor | None, bias: Tensor | None, shape: tuple[int, ...]) -> None:
    if weight is not None:
        y *= weight._data.reshape(shape)
    if bias is not None:
        y += bias._data.reshape(shape)


def _record_fused(node_cls: type, y: np.ndarray, x: Tensor, weight: Tensor | None, bias: Tensor | None,
                  mean: np.ndarray | None, invstd: np.ndarray | None, batch_stats: bool, eps: float,
                  dims: tuple[int, ...], param_dims: tuple[int, ...],
                  param_shape: tuple[int, ...]) -> tuple[Tensor, Any]:
    """``(y as a tensor, its node)``: the output of a new fused normalisation node when something needs its
    gradient, else a plain tensor and None."""
    if not (GRAD.enabled and (x._requires_grad or (weight is not None and weight._requires_grad)
                              or (bias is not None and bias._requires_grad))):
        return wrap(y), None
    res, node = record(node_cls, y, (x, weight, bias))
    node.input = save_input(x)
    node.weight = save_input(weight) if weight is not None else None
    node.mean, node.invstd, node.batch_stats, node.eps = mean, invstd, batch_stats, float(eps)
    node.dims, node.param_dims, node.param_shape = dims, param_dims, param_shape
    return res, node


def _fused_batch_norm(x: Tensor, running_mean: Tensor | None, running_var: Tensor | None, weight: Tensor | None,
                      bias: Tensor | None, training: bool, momentum: float, eps: float, dims: tuple[int, ...],
                      shape: tuple[int, ...]) -> Tensor:
    """batch_norm on float32/float64 arrays in a few passes, recorded as one node (its statistics stay out of the
    graph, as torch's do)."""
    a = x._data
    c = shape[1]
    if training:
        y, mean, var, invstd = _normalized(a, dims, eps)
        n = a.size // c
        if running_mean is not None:
            _update(running_mean, momentum, mean.reshape(c))
        if running_var is not None:
            _update(running_var, momentum, var.reshape(c) * (n / max(n - 1, 1)))
    else:
        assert running_mean is not None and running_var is not None  # (the caller checked)
        y = a - running_mean._data.reshape(shape)
        y *= 1.0 / np.sqrt(running_var._data.reshape(shape) + eps)
    _affine_in_place(y, weight, bias, shape)
    res, node = _record_fused(NativeBatchNormBackward0, y, x, weight, bias, mean if training else None,
                              invstd if training else None, bool(training), eps, dims, dims, shape)
    if node is not None:
        # evaluation: the running statistics, saved (torch's error if they change before backward)
        node.running_mean = None if training else save_input(running_mean)
        node.running_var = None if training else save_input(running_var)
    return res


def fused_layer_norm(x: Tensor, normalized: tuple[int, ...], weight: Tensor | None, bias: Tensor | None,
                     eps: float) -> Tensor | None:
    """layer_norm on float32/float64 arrays recorded as one node, as torch's; None when the arguments need the
    composed path (other dtypes, parameters of another dtype)."""
    a = x._data
    if a.size == 0 or a.dtype not in _FUSED_DTYPES or any(t is not None and (not isinstance(t, Tensor) or t._data.dtype != a.dtype)
                                           for t in (weight, bias)):
        return None
    k = len(normalized)
    dims = tuple(range(a.ndim - k, a.ndim))
    # the statistics of each row of the input seen as (rows, normalized elements); the variance's sum of squares
    # as one einsum pass
    c = math.prod(normalized)
    rows = a.reshape(-1, c)
    mean = last_axis_sums(rows) / c
    y = rows - mean
    invstd = 1.0 / np.sqrt(np.einsum("ni,ni->n", y, y)[:, None] / c + eps)
    y *= invstd
    y = y.reshape(a.shape)
    stat_shape = a.shape[: a.ndim - k] + (1,) * k
    mean, invstd = mean.reshape(stat_shape), invstd.reshape(stat_shape)
    _affine_in_place(y, weight, bias, normalized)
    res, _ = _record_fused(NativeLayerNormBackward0, y, x, weight, bias, mean, invstd, True, eps, dims,
                           tuple(range(a.ndim - k)), normalized)
    return res


@op(namespace=NN_FUNCTIONAL)
def instance_norm(input: Tensor, running_mean: Tensor | None = None, running_var: Tensor | None = None,
                  weight: Tensor | None = None, bias: Tensor | None = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalise each channel of each sample over its spatial dims, then apply the per-channel affine.

    Running statistics (if given) track the batch average of the per-sample statistics.
    """
    float_only("batch_norm", input)
    x = tensor_arg(input, "instance_norm")
    a = x._data
    if a.ndim < 2:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-max(a.ndim, 1)}, "
                         f"{max(a.ndim, 1) - 1}], but got 1)")
    c = a.shape[1]
    if use_input_stats and math.prod(a.shape[2:]) == 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size {x.shape!r}")
    if a.size == 0:
        # torch repeats weight and bias once per sample before its empty-input path reads their first element
        for t, name in ((weight, "weight"), (bias, "bias")):
            if t is not None and a.shape[0] * t._data.size == 0:
                raise IndexError(f"{name} repeated per sample: index 0 is out of bounds for dimension 0 with size 0")
        _check_vectors(c, running_mean, running_var)
        return _empty_affine(x, weight, bias)
    _check_vectors(c, running_mean, running_var, weight, bias)
    shape = (1, c) + (1,) * (a.ndim - 2)
    if use_input_stats:
        y, mean, var = _normalize(x, tuple(range(2, a.ndim)), eps)
        n = math.prod(a.shape[2:])
        if running_mean is not None:
            _update(running_mean, momentum, mean._data.reshape(a.shape[0], c).mean(0))
        if running_var is not None:
            _update(running_var, momentum, (var._data.reshape(a.shape[0], c) * (n / max(n - 1, 1))).mean(0))
    else:
        if running_mean is None or running_var is None:
            raise RuntimeError("Expected running_mean and running_var to be defined when use_input_stats is false")
        y = mul(sub(x, reshape(running_mean, shape)), rsqrt(add(reshape(running_var, shape), eps)))
    return _affine(y, weight, bias, shape)


@op(namespace=NN_FUNCTIONAL)
def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5) -> Tensor:
    """Normalise each of ``num_groups`` channel groups of each sample, then apply the per-channel affine."""
    x = tensor_arg(input, "group_norm")
    float_only("GroupNormKernelImpl", x)
    a = x._data
    if a.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    if a.ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {a.ndim}")
    n, c = a.shape[:2]
    if num_groups == 0:  # torch's group_norm computes c % num_groups in Python, with this result
        raise ZeroDivisionError("integer division or modulo by zero")
    if num_groups < 0 or c % num_groups:
        raise RuntimeError("Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {list(a.shape)} and num_groups={num_groups}")
    for t, name in ((weight, "weight"), (bias, "bias")):
        if t is not None and (t._data.ndim != 1 or t._data.size != c):
            # torch's message shows the weight's shape for both checks ([0] when there is no weight)
            shown = [0] if weight is None else list(weight._data.shape)
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of channels in input, "
                               f"but got {name} of shape {shown} and input of shape {list(a.shape)}")
    fused = _fused_group_norm(x, num_groups, weight, bias, eps)
    if fused is not None:
        return fused
    grouped = reshape(x, (n, num_groups, -1))
    y, _, _ = _normalize(grouped, (2,), eps)
    return _affine(reshape(y, a.shape), weight, bias, (1, c) + (1,) * (a.ndim - 2))


class NativeGroupNormBackward0(_FusedNormBackward):
    """Group norm's node: the statistics and the affine seen on the input as ``(N, groups, C / groups, rest)``."""

    __slots__ = ("grouped",)
    grouped: tuple[int, int, int, int]

    def _recorded(self, g: Tensor, x: Tensor, w: Tensor | None, mean_a: np.ndarray, invstd_a: np.ndarray) -> tuple:
        shape, c = x._data.shape, x._data.shape[1]
        gx, gw, gb = super()._recorded(reshape(g, self.grouped), reshape(x, self.grouped), w, mean_a, invstd_a)
        return (None if gx is None else reshape(gx, shape), None if gw is None else reshape(gw, (c,)),
                None if gb is None else reshape(gb, (c,)))

    def _on_arrays(self, gy: np.ndarray, a: np.ndarray, w: np.ndarray | None, mean: np.ndarray,
                   invstd: np.ndarray) -> tuple:
        """The three gradients on the arrays, seen as (N, groups, channels of a group, rest): sums of products as
        single einsum passes (as layer norm's)."""
        shape = a.shape
        gy, a = gy.reshape(self.grouped), a.reshape(self.grouped)
        n, groups, per_group, rest = self.grouped
        count = per_group * rest
        xhat = a - mean
        xhat *= invstd
        gx = gw = gb = None
        if self.needs(1):
            gw = wrap(np.einsum("ngcs,ngcs->gc", gy, xhat).reshape(-1))
        if self.needs(2):
            gb = wrap(_add_reduce(gy, (0, 3)).reshape(-1))
        if self.needs(0):
            gyw = gy if w is None else gy * w.reshape(1, groups, per_group, 1)
            xhat *= np.einsum("ngcs,ngcs->ng", gyw, xhat)[:, :, None, None] / count
            np.subtract(gyw, xhat, out=xhat)
            xhat -= trailing_sums(gyw, (2, 3)) / count
            xhat *= invstd
            gx = wrap(xhat.reshape(shape))
        return gx, gw, gb


def _fused_group_norm(x: Tensor, groups: int, weight: Tensor | None, bias: Tensor | None, eps: float) -> Tensor | None:
    """group_norm on float32/float64 arrays recorded as one node, as torch's; None when the arguments need the
    composed path (other dtypes, parameters of another dtype)."""
    a = x._data
    if a.size == 0 or a.dtype not in _FUSED_DTYPES or any(
            t is not None and (not isinstance(t, Tensor) or t._data.dtype != a.dtype) for t in (weight, bias)):
        return None
    n, c = a.shape[:2]
    grouped = (n, groups, c // groups, a.size // (n * c))
    y, mean, _, invstd = _normalized(a.reshape(grouped), (2, 3), eps)
    param_shape = (1, groups, c // groups, 1)
    _affine_in_place(y, weight, bias, param_shape)
    res, node = _record_fused(NativeGroupNormBackward0, y.reshape(a.shape), x, weight, bias, mean, invstd, True, eps,
                              (2, 3), (0, 3), param_shape)
    if node is not None:
        node.grouped = grouped
    return res


def _normalized_dims(x: Tensor, normalized_shape: Any, weight: Tensor | None, fname: str) -> tuple[int, ...]:
    """The trailing dims ``normalized_shape`` names, checked in torch's order (``rms_norm``'s messages)."""
    if isinstance(normalized_shape, (int, np.integer)) or not isinstance(normalized_shape, (tuple, list)):
        raise TypeError(f"{fname}(): argument 'normalized_shape' (position 2) must be tuple of ints, not "
                        f"{type(normalized_shape).__name__}")
    shape = tuple(int_list_arg(normalized_shape, fname, "normalized_shape", 2))
    a = x._data
    if not shape:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
                           "element, but got normalized_shape = []")
    if weight is not None and weight._data.shape != shape:
        raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but got weight of shape "
                           f"{list(weight._data.shape)} and normalized_shape = {list(shape)}")
    if a.dtype.kind not in "fc":
        raise NotImplementedError(f"\"{fname}\" not implemented for '{type_title(a.dtype)}'")
    if len(shape) > a.ndim:
        raise ValueError(f"Input tensor must have at least {len(shape)} dimensions, but got {a.ndim}")
    if a.shape[a.ndim - len(shape):] != shape:
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[*{', '.join(map(str, shape))}], but got input of size{list(a.shape)}")
    return tuple(range(a.ndim - len(shape), a.ndim))


@op(namespace=(NN_FUNCTIONAL, TENSORLIB))
def rms_norm(input: Tensor, normalized_shape: Any, weight: Tensor | None = None, eps: float | None = None) -> Tensor:
    """Root-mean-square normalisation over the last ``len(normalized_shape)`` dims, then scale by ``weight``.

    ``x / sqrt(mean(x ** 2) + eps)``; ``eps`` defaults to the machine epsilon of the computation's dtype
    (float16 is computed in float32, as torch does), and the result has ``input``'s dtype. As torch, a complex
    input is normalised by the mean of its squares (not of its squared moduli), which keeps the op holomorphic.
    """
    x = tensor_arg(input, "rms_norm")
    dims = _normalized_dims(x, normalized_shape, weight, "rms_norm")
    a = x._data
    xc = to_dtype(x, float32) if a.dtype == np.float16 else x
    if eps is None:
        eps = float(np.finfo(xc._data.dtype).eps)
    y = mul(xc, rsqrt(add(reduction.mean(mul(xc, xc), dims, keepdim=True), eps)))
    if weight is not None:
        y = mul(y, weight)
    return to_dtype(y, x.dtype) if y._data.dtype != a.dtype else y


@op(namespace=NN_FUNCTIONAL)
def local_response_norm(input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> Tensor:
    """Divide each element by ``(k + alpha * mean of squares over `size` neighbouring channels) ** beta``."""
    real_only("avg_pool2d", input)
    x = tensor_arg(input, "local_response_norm")
    a = x._data
    if a.ndim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality                          input (got {a.ndim} dimensions)")
    if size <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kH: {size} kW: 1")
    if a.size == 0:
        return x
    c = a.shape[1]
    # channel window [i - size // 2, i + (size - 1) // 2], zero outside, always divided by size
    pos = (np.arange(c) - size // 2)[:, None] + np.arange(size)
    taps = Taps(np.clip(pos, 0, c - 1), np.full(pos.shape, 1.0 / size), c, (pos >= 0) & (pos < c))
    avg = linear_map(mul(x, x), ((1, taps),), _node_class("AvgPool3DBackward0", _LinearMapNode))
    return div(x, power.pow(add(mul(avg, alpha), k), beta))


# -- channel-wise dropout ----------------------------------------------------------------------------------------


def _check_p(p: Any, fname: str) -> None:
    if isinstance(p, Tensor) and p.dim() == 0:
        p = p.item()
    if isinstance(p, (bool, np.bool_)) or not isinstance(p, (int, float, np.integer, np.floating)):
        raise TypeError(f"{fname}(): argument 'p' must be float, not {type(p).__name__}")
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if p != p:  # NaN passes the range check above (torch's Python check), then fails the kernel's
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")


def _dropout(x: Tensor, p: float, training: bool, inplace: bool, lead: int | None, alpha: bool,
             min_dims: int = 2) -> Tensor:
    """Dropout with one random draw per index of the first ``lead`` dims (None: per element)."""
    if isinstance(p, Tensor) and p.dim() == 0:
        p = p.item()  # a 0-d tensor probability, as torch accepts
    _check_p(p, "dropout")
    if not training or p == 0.0:
        return x
    a = x._data
    if lead is not None and a.ndim < min_dims:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    if p != 1.0 and a.size and a.dtype.kind != "f":  # torch's mask is a float tensor it multiplies in place
        if a.dtype.kind == "c":
            raise not_implemented("bernoulli_scalar_cpu_", a.dtype)
        raise RuntimeError(f"result type Float can't be cast to the desired output type {type_title(a.dtype)}")
    shape = a.shape if lead is None else a.shape[:lead] + (1,) * (a.ndim - lead)
    keep = (_rng(None).random(shape) >= p).astype(a.dtype)
    if p == 1.0:
        scale, shift = np.zeros_like(keep), None
    elif alpha:
        # SELU-preserving dropout: dropped units go to the SELU's negative saturation, then mean/variance are restored
        sat = 1.7580993408473766
        amp = 1.0 / math.sqrt((sat * sat * p + 1) * (1 - p))
        scale, shift = keep * amp, (keep - 1) * (sat * amp) + sat * amp * p
    else:
        scale, shift = keep / (1 - p), None
    if inplace:
        out = mul_(x, wrap(scale.astype(a.dtype)))
        return add_(out, wrap(shift.astype(a.dtype))) if shift is not None else out
    out = mul(x, wrap(scale.astype(a.dtype)))
    return add(out, wrap(shift.astype(a.dtype))) if shift is not None else out


@op(namespace=NN_FUNCTIONAL)
def dropout1d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels of ``(N, C, L)`` or ``(C, L)`` with probability ``p``, scaling the rest by ``1 / (1 - p)``."""
    x = tensor_arg(input, "dropout1d")
    _check_p(p, "dropout1d")
    nd = x._data.ndim
    if nd not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {nd}D input. Note that dropout1d "
                           "exists to provide channel-wise dropout on inputs with 1 spatial dimension, a channel "
                           "dimension, and an optional batch dimension (i.e. 2D or 3D inputs).")
    return _dropout(x, p, training, inplace, nd - 1, False)


@op(namespace=NN_FUNCTIONAL)
def dropout2d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels of ``(N, C, H, W)`` with probability ``p`` (3-D input is read as ``(N, C, L)``)."""
    x = tensor_arg(input, "dropout2d")
    _check_p(p, "dropout2d")
    nd = x._data.ndim
    if nd not in (3, 4):
        warnings.warn(f"dropout2d: Received a {nd}-D input to dropout2d, which is deprecated and will result in an "
                      "error in a future release. To retain the behavior and silence this warning, please use dropout "
                      "instead. Note that dropout2d exists to provide channel-wise dropout on inputs with 2 spatial "
                      "dimensions, a channel dimension, and an optional batch dimension (i.e. 3D or 4D inputs).",
                      stacklevel=2)
    if nd == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior "
                      "is desired - input is interpreted as shape (N, C, L), where C is the channel dim. This behavior "
                      "will change in a future release to interpret the input as one without a batch dimension, i.e. "
                      "shape (C, H, W). To maintain the 1D channel-wise dropout behavior, please switch to using "
                      "dropout1d instead.", stacklevel=2)
    return _dropout(x, p, training, inplace, min(nd, 2), False)


@op(namespace=NN_FUNCTIONAL)
def dropout3d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` with probability ``p``."""
    x = tensor_arg(input, "dropout3d")
    _check_p(p, "dropout3d")
    nd = x._data.ndim
    if nd not in (4, 5):
        warnings.warn(f"dropout3d: Received a {nd}-D input to dropout3d, which is deprecated and will result in an "
                      "error in a future release. To retain the behavior and silence this warning, please use dropout "
                      "instead. Note that dropout3d exists to provide channel-wise dropout on inputs with 3 spatial "
                      "dimensions, a channel dimension, and an optional batch dimension (i.e. 4D or 5D inputs).",
                      stacklevel=2)
    # torch adds a batch dim to anything but 5-D input: a 1-D input has the two dims feature dropout needs
    return _dropout(x, p, training, inplace, 1 if nd == 4 else min(nd, 2), False, min_dims=1)


@op(namespace=NN_FUNCTIONAL)
def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """Dropout for SELU networks: keeps zero mean and unit variance of the activations."""
    return _dropout(tensor_arg(input, "alpha_dropout"), p, training, inplace, None, True)


@op(namespace=NN_FUNCTIONAL)
def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """:func:`alpha_dropout` of whole channels."""
    return _dropout(tensor_arg(input, "feature_alpha_dropout"), p, training, inplace, 2, True)


# -- the legacy cross-map response normalisation of nn.CrossMapLRN2d ---------------------------------------------------


def _cross_map_window(channels: int, size: int) -> np.ndarray:
    """Which channels' squares each channel's scale sums, as torch's running-sum loop adds and removes them.

    That loop starts from channels ``[0, pre_pad)`` and never removes channel 0, so for ``size`` narrower
    than the channels the window is not the centred one ``nn.LocalResponseNorm`` uses.
    """
    pre_pad = int((size - 1) / 2 + 1)
    window = np.zeros((channels, channels))
    window[0, : min(pre_pad, channels)] = 1
    for c in range(1, channels):
        window[c] = window[c - 1]
        if c < channels - pre_pad + 1:
            window[c, c + pre_pad - 1] += 1
        if c > pre_pad:
            window[c, c - pre_pad] -= 1
    return window


def _cross_map_scale(x: Tensor, size: int, alpha: float, k: float) -> Tensor:
    window = _cross_map_window(x._data.shape[1], size).astype(x._data.dtype)
    return add(mul(einsum("cj,njhw->nchw", wrap(window), mul(x, x)), alpha / size), k)


class CrossMapLrn2dBackward(Node):
    """torch's backward of ``CrossMapLRN2d`` (its own formula, whose window differs from the forward's)."""

    __slots__ = ("input", "size", "alpha", "beta", "k")
    _saved_slots = ("input",)
    input: SavedTensor | None
    size: int
    alpha: float
    beta: float
    k: float

    def backward(self, g: Tensor) -> tuple:
        x = unpack(self, self.input)
        channels = x._data.shape[1]
        inverse_pre_pad = int(self.size - (self.size - 1) / 2)
        if inverse_pre_pad > self.size - 1:  # torch's narrow fails for size 1
            raise RuntimeError(f"start ({inverse_pre_pad}) + length ({channels}) exceeds dimension size "
                               f"({channels + self.size - 1}).")
        scale = _cross_map_scale(x, self.size, self.alpha, self.k)
        scaled = power.pow(scale, -self.beta)
        out = mul(x, scaled)
        c = np.arange(channels)
        lo = (c - inverse_pre_pad)[:, None]
        accumulate = ((c[None, :] >= lo) & (c[None, :] <= lo + self.size - 1)).astype(x._data.dtype)
        ratio = div(mul(g, out), scale)
        summed = einsum("cj,njhw->nchw", wrap(accumulate), ratio)
        return (sub(mul(scaled, g), mul(mul(x, summed), 2 * self.alpha * self.beta / self.size)),)


def cross_map_lrn2d(input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> Tensor:
    """``x * (k + alpha / size * sum of squares over a channel window) ** -beta`` for 4-D input, with torch's
    legacy window and gradient (``nn.CrossMapLRN2d``)."""
    x = tensor_arg(input, "CrossMapLRN2d")
    if x._data.ndim != 4:
        raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {x._data.ndim}D instead.")
    with no_grad():
        out = mul(x, power.pow(_cross_map_scale(x, size, alpha, k), -beta))
    if x._requires_grad and GRAD.enabled:
        res, node = record(CrossMapLrn2dBackward, out._data, (x,))
        node.input = save_input(x)
        node.size, node.alpha, node.beta, node.k = size, alpha, beta, k
        return res
    return out
