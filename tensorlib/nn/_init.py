"""Raw implementations behind :mod:`tensorlib.nn.init`: in-place initialisers run without recording."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from .._registry import NN_INIT, op, public
from .._tensor import Tensor, bump_version
from ..ops import _erf, creation
from ..ops._util import fit_scalar, tensor_arg, writable


def _fill(tensor: Tensor, values: Any, fname: str) -> Tensor:
    t = tensor_arg(tensor, fname, "tensor")
    a = writable(t)
    if a.dtype.kind == "b" and isinstance(values, (int, float, complex)):
        values = bool(values)  # any number fills a bool tensor (a Python int beyond 64 bits included)
    np.copyto(a, fit_scalar(values, a.dtype), casting="unsafe")
    bump_version(t)
    return t


@public(namespace=NN_INIT)
def calculate_gain(nonlinearity: str, param: Any = None) -> float:
    """The recommended gain for an activation (as torch.nn.init.calculate_gain)."""
    linear = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "sigmoid")
    if nonlinearity in linear:
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    shape = tensor_arg(tensor, "_calculate_fan_in_and_fan_out", "tensor")._data.shape
    if len(shape) < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive = int(np.prod(shape[2:])) if len(shape) > 2 else 1
    return shape[1] * receptive, shape[0] * receptive


def _fan(tensor: Tensor, mode: str) -> int:
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of fan_in, fan_out")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def _rng(generator: Any) -> np.random.Generator:
    return creation._rng(generator)


@op(namespace=NN_INIT)
def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator: Any = None) -> Tensor:
    """Fill with samples from U(a, b)."""
    t = tensor_arg(tensor, "uniform_", "tensor")
    creation.check_uniform_bounds(t._data.dtype, a, b)
    return _fill(tensor, creation.uniform_samples(_rng(generator), t._data.shape, t._data.dtype, a, b), "uniform_")


@op(namespace=NN_INIT)
def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator: Any = None) -> Tensor:
    """Fill with samples from N(mean, std^2)."""
    shape = tensor_arg(tensor, "normal_", "tensor")._data.shape
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    return _fill(tensor, _rng(generator).normal(mean, std, size=shape), "normal_")


@op(namespace=NN_INIT)
def trunc_normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0, generator: Any = None) -> Tensor:
    """Fill with N(mean, std^2) samples conditioned on lying in [a, b].

    Drawn by inverting the normal distribution function on the uniform slice
    ``[Phi((a - mean) / std), Phi((b - mean) / std)]``: one draw per element,
    whatever the bounds (values that round outside ``[a, b]`` are clipped).
    """
    shape = tensor_arg(tensor, "trunc_normal_", "tensor")._data.shape
    mean, std, a, b = (float(v) for v in (mean, std, a, b))  # 0-d tensors allowed, as in torch
    if (mean < a - 2 * std) or (mean > b + 2 * std):
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The distribution of values may "
                      "be incorrect.", stacklevel=2)
    std = abs(std)  # N(mean, std^2) is the same law for either sign of std
    lo, hi = (0.5 * math.erfc(-(v - mean) / (std * math.sqrt(2))) if std else float(v >= mean) for v in (a, b))
    if lo > hi:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={2 * lo - 1} > "
                           f"to={2 * hi - 1}")
    u = _rng(generator).uniform(2 * lo - 1, 2 * hi - 1, size=shape)
    out = np.clip(mean + std * math.sqrt(2) * _erf.erfinv(u), a, b)
    return _fill(tensor, out, "trunc_normal_")


@op(namespace=NN_INIT)
def constant_(tensor: Tensor, val: float) -> Tensor:
    """Fill with ``val``."""
    return _fill(tensor, val, "constant_")


@op(namespace=NN_INIT)
def ones_(tensor: Tensor) -> Tensor:
    """Fill with ones."""
    return _fill(tensor, 1, "ones_")


@op(namespace=NN_INIT)
def zeros_(tensor: Tensor) -> Tensor:
    """Fill with zeros."""
    return _fill(tensor, 0, "zeros_")


@op(namespace=NN_INIT)
def eye_(tensor: Tensor) -> Tensor:
    """Fill a 2-D tensor with the identity."""
    t = tensor_arg(tensor, "eye_", "tensor")
    if t._data.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    return _fill(t, np.eye(*t._data.shape), "eye_")


@op(namespace=NN_INIT)
def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """Fill a {3,4,5}-D conv weight so the convolution is the identity."""
    t = tensor_arg(tensor, "dirac_", "tensor")
    shape = t._data.shape
    if len(shape) not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    if isinstance(groups, bool) or not isinstance(groups, (int, np.integer)) or groups <= 0:
        raise ValueError(f"dirac_(): groups must be a positive integer, got {groups!r}")
    if shape[0] % groups:
        raise ValueError("dim 0 must be divisible by groups")
    for axis, size in enumerate(shape[2:], 2):
        if size == 0:
            raise IndexError(f"index 0 is out of bounds for dimension {axis} with size 0")
    out = np.zeros(shape)
    per = shape[0] // groups
    centre = tuple(s // 2 for s in shape[2:])
    for g in range(groups):
        for d in range(min(per, shape[1])):
            out[(g * per + d, d) + centre] = 1
    return _fill(t, out, "dirac_")


@op(namespace=NN_INIT)
def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """Glorot uniform: U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    if fan_in + fan_out == 0:
        raise ZeroDivisionError("float division by zero (xavier_uniform_ of a tensor with no fan in or fan out)")
    a = gain * math.sqrt(6.0 / float(fan_in + fan_out))
    return uniform_(tensor, -a, a, generator)


@op(namespace=NN_INIT)
def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """Glorot normal: N(0, std^2) with std = gain * sqrt(2 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    if fan_in + fan_out == 0:
        raise ZeroDivisionError("float division by zero (xavier_normal_ of a tensor with no fan in or fan out)")
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


@op(namespace=NN_INIT)
def kaiming_uniform_(tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu", generator: Any = None) -> Tensor:
    """He uniform: U(-b, b) with b = gain * sqrt(3 / fan)."""
    if isinstance(tensor, Tensor) and 0 in tensor._data.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _fan(tensor, mode)
    if fan == 0:
        return tensor
    bound = math.sqrt(3.0) * calculate_gain(nonlinearity, a) / math.sqrt(fan)
    return uniform_(tensor, -bound, bound, generator)


@op(namespace=NN_INIT)
def kaiming_normal_(tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu", generator: Any = None) -> Tensor:
    """He normal: N(0, std^2) with std = gain / sqrt(fan)."""
    if isinstance(tensor, Tensor) and 0 in tensor._data.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _fan(tensor, mode)
    if fan == 0:
        return tensor
    return normal_(tensor, 0.0, calculate_gain(nonlinearity, a) / math.sqrt(fan), generator)


@op(namespace=NN_INIT)
def orthogonal_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """Fill with a (semi-)orthogonal matrix scaled by ``gain``."""
    t = tensor_arg(tensor, "orthogonal_", "tensor")
    shape = t._data.shape
    if len(shape) < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    rows, cols = shape[0], int(np.prod(shape[1:]))
    flat = _rng(generator).normal(size=(rows, cols))
    if rows < cols:
        flat = flat.T
    q, r = np.linalg.qr(flat)
    q = q * np.sign(np.diag(r))
    if rows < cols:
        q = q.T
    return _fill(t, gain * q.reshape(shape), "orthogonal_")


@op(namespace=NN_INIT)
def sparse_(tensor: Tensor, sparsity: float, std: float = 0.01, generator: Any = None) -> Tensor:
    """Fill a 2-D tensor with N(0, std^2) values, zeroing a ``sparsity`` fraction of each column."""
    t = tensor_arg(tensor, "sparse_", "tensor")
    if t._data.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = t._data.shape
    rng = _rng(generator)
    out = rng.normal(0, std, size=(rows, cols))
    if not math.isfinite(sparsity * rows):
        raise OverflowError(f"cannot convert float {'NaN' if sparsity != sparsity else 'infinity'} to integer")
    zeros = int(math.ceil(sparsity * rows))
    for c in range(cols):
        out[rng.permutation(rows)[:zeros], c] = 0
    return _fill(t, out, "sparse_")
