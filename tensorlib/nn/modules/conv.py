"""Convolution layers: Conv1d/2d/3d and ConvTranspose1d/2d/3d, and their lazy forms."""

from __future__ import annotations

import math
from typing import Any

from ...ops.creation import empty
from .. import _init as init, functional
from ..parameter import Parameter, UninitializedParameter
from .lazy import LazyModuleMixin
from .module import Module

_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


def _F() -> Any:
    return functional


def _tuple(v: Any, n: int) -> tuple:
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * n


class _ConvNd(Module):
    """What every convolution layer holds: geometry, ``weight`` and optional ``bias``."""

    _nd = 0
    _transposed = False

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any, padding: Any,
                 dilation: Any, output_padding: Any, groups: int, bias: bool, padding_mode: str,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        n = self._nd
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {{'valid', 'same'}}")
            if padding == "same" and any(s != 1 for s in _tuple(stride, n)):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {list(_PADDING_MODES)}, but got padding_mode='{padding_mode}'")
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size, self.stride = _tuple(kernel_size, n), _tuple(stride, n)
        self.padding = padding if isinstance(padding, str) else _tuple(padding, n)
        self.dilation, self.transposed = _tuple(dilation, n), self._transposed
        self.output_padding, self.groups, self.padding_mode = _tuple(output_padding, n), groups, padding_mode
        self._reversed_padding_repeated_twice = self._padding_for_pad()
        shape = (in_channels, out_channels // groups) if self.transposed else (out_channels, in_channels // groups)
        self.weight = Parameter(empty(*shape, *self.kernel_size, dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_channels, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def _padding_for_pad(self) -> list:
        """``F.pad``'s argument (last dim first, both sides) for non-zero padding modes."""
        if self.padding == "valid":
            return [0, 0] * self._nd
        out = []
        for i in reversed(range(self._nd)):
            if self.padding == "same":
                total = self.dilation[i] * (self.kernel_size[i] - 1)
                out += [total // 2, total - total // 2]
            else:
                out += [self.padding[i], self.padding[i]]
        return out

    def reset_parameters(self) -> None:
        """Kaiming-uniform weights (``a = sqrt(5)``) and uniform bias in ``±1/sqrt(fan_in)``, as torch."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self) -> str:
        n = self._nd
        parts = [f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"]
        if self.padding != (0,) * n:
            parts.append(f"padding={self.padding}")
        if self.dilation != (1,) * n:
            parts.append(f"dilation={self.dilation}")
        if self.output_padding != (0,) * n:
            parts.append(f"output_padding={self.output_padding}")
        if self.groups != 1:
            parts.append(f"groups={self.groups}")
        if self.bias is None:
            parts.append("bias=False")
        if self.padding_mode != "zeros":
            parts.append(f"padding_mode={self.padding_mode}")
        return ", ".join(parts)

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        if "padding_mode" not in self.__dict__:
            self.padding_mode = "zeros"


class _Conv(_ConvNd):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 dilation: Any = 1, groups: int = 1, bias: bool = True, padding_mode: str = "zeros",
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, 0, groups, bias,
                         padding_mode, device, dtype)

    def _conv_forward(self, input: Any, weight: Any, bias: Any) -> Any:
        conv = getattr(_F(), f"conv{self._nd}d")
        if self.padding_mode != "zeros":
            padded = _F().pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return conv(padded, weight, bias, self.stride, 0, self.dilation, self.groups)
        return conv(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input: Any) -> Any:
        return self._conv_forward(input, self.weight, self.bias)


class Conv1d(_Conv):
    """1-D convolution over ``(N, C_in, L)``; weight ``(C_out, C_in / groups, k)``."""

    _nd = 1


class Conv2d(_Conv):
    """2-D convolution over ``(N, C_in, H, W)``; weight ``(C_out, C_in / groups, kH, kW)``."""

    _nd = 2


class Conv3d(_Conv):
    """3-D convolution over ``(N, C_in, D, H, W)``; weight ``(C_out, C_in / groups, kD, kH, kW)``."""

    _nd = 3


class _ConvTranspose(_ConvNd):
    _transposed = True

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 output_padding: Any = 0, groups: int = 1, bias: bool = True, dilation: Any = 1,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, output_padding, groups,
                         bias, padding_mode, device, dtype)

    def _output_padding(self, input: Any, output_size: Any) -> tuple:
        """The output padding that makes the output ``output_size`` (which may include batch and channel dims)."""
        if output_size is None:
            return self.output_padding
        n = self._nd
        lead = input.dim() - n  # batch and channel dims may be given too
        size = output_size[lead:] if len(output_size) == n + lead else output_size
        if len(size) != n:
            raise ValueError(f"ConvTranspose{n}D: for {input.dim()}D input, output_size must have {n} or "
                             f"{n + lead} elements (got {len(output_size)})")
        spatial = input.shape[input.dim() - n:]
        smallest = [(spatial[i] - 1) * self.stride[i] - 2 * self.padding[i]
                    + self.dilation[i] * (self.kernel_size[i] - 1) + 1 for i in range(n)]
        largest = [lo + s - 1 for lo, s in zip(smallest, self.stride)]
        if any(not lo <= v <= hi for v, lo, hi in zip(size, smallest, largest)):
            raise ValueError(f"requested an output size of {size}, but valid sizes range from {smallest} to "
                             f"{largest} (for an input of {spatial})")
        return tuple(v - lo for v, lo in zip(size, smallest))

    def forward(self, input: Any, output_size: Any = None) -> Any:
        op = self._output_padding(input, output_size)
        fn = getattr(_F(), f"conv_transpose{self._nd}d")
        return fn(input, self.weight, self.bias, self.stride, self.padding, op, self.groups, self.dilation)


class ConvTranspose1d(_ConvTranspose):
    """1-D transposed convolution; weight ``(C_in, C_out / groups, k)``."""

    _nd = 1


class ConvTranspose2d(_ConvTranspose):
    """2-D transposed convolution; weight ``(C_in, C_out / groups, kH, kW)``."""

    _nd = 2


class ConvTranspose3d(_ConvTranspose):
    """3-D transposed convolution; weight ``(C_in, C_out / groups, kD, kH, kW)``."""

    _nd = 3


# -- lazy convolutions --------------------------------------------------------------------------------------------


class _LazyConvXdMixin(LazyModuleMixin):
    """``in_channels`` inferred from the first input (dim 1, or dim 0 unbatched)."""

    def reset_parameters(self) -> None:
        me: Any = self
        if not self.has_uninitialized_params() and me.in_channels != 0:
            super().reset_parameters()  # type: ignore[misc]

    def initialize_parameters(self, input: Any, *args: Any, **kwargs: Any) -> None:
        """Materialize ``weight`` and ``bias`` for the input's channels, then initialise them."""
        me: Any = self
        if self.has_uninitialized_params():
            me.in_channels = self._get_in_channels(input)
            if me.in_channels % me.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            if me.transposed:
                me.weight.materialize((me.in_channels, me.out_channels // me.groups, *me.kernel_size))
            else:
                me.weight.materialize((me.out_channels, me.in_channels // me.groups, *me.kernel_size))
            if me.bias is not None:
                me.bias.materialize((me.out_channels,))
            self.reset_parameters()

    def _get_in_channels(self, input: Any) -> int:
        n = getattr(self, "_nd")
        unbatched, batched = n + 1, n + 2
        if input.dim() not in (unbatched, batched):
            raise RuntimeError(f"Expected {unbatched}D (unbatched) or {batched}D (batched) input to "
                               f"{self.__class__.__name__}, but got input of size: {input.shape}")
        return input.shape[1] if input.dim() == batched else input.shape[0]


class _LazyConv(_LazyConvXdMixin, _Conv):
    def __init__(self, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0, dilation: Any = 1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode, device, dtype)
        self.weight = UninitializedParameter(dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(dtype=dtype)


class _LazyConvTranspose(_LazyConvXdMixin, _ConvTranspose):
    def __init__(self, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 output_padding: Any = 0, groups: int = 1, bias: bool = True, dilation: Any = 1,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation, padding_mode,
                         device, dtype)
        self.weight = UninitializedParameter(dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(dtype=dtype)


class LazyConv1d(_LazyConv):
    """:class:`Conv1d` with ``in_channels`` inferred from the first input."""

    cls_to_become = Conv1d
    _nd = 1


class LazyConv2d(_LazyConv):
    """:class:`Conv2d` with ``in_channels`` inferred from the first input."""

    cls_to_become = Conv2d
    _nd = 2


class LazyConv3d(_LazyConv):
    """:class:`Conv3d` with ``in_channels`` inferred from the first input."""

    cls_to_become = Conv3d
    _nd = 3


class LazyConvTranspose1d(_LazyConvTranspose):
    """:class:`ConvTranspose1d` with ``in_channels`` inferred from the first input."""

    cls_to_become = ConvTranspose1d
    _nd = 1


class LazyConvTranspose2d(_LazyConvTranspose):
    """:class:`ConvTranspose2d` with ``in_channels`` inferred from the first input."""

    cls_to_become = ConvTranspose2d
    _nd = 2


class LazyConvTranspose3d(_LazyConvTranspose):
    """:class:`ConvTranspose3d` with ``in_channels`` inferred from the first input."""

    cls_to_become = ConvTranspose3d
    _nd = 3
