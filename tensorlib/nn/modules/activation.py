"""Activation modules: thin Module wrappers over :mod:`tensorlib.nn.functional`."""

from __future__ import annotations

from typing import Any

from ...ops.creation import empty
from .. import _init, functional
from ..parameter import Parameter
from .module import Module


def _F() -> Any:
    return functional


class ReLU(Module):
    """``max(x, 0)``."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Any) -> Any:
        return _F().relu(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class ReLU6(ReLU):
    """``min(max(x, 0), 6)``."""

    def forward(self, input: Any) -> Any:
        return _F().relu6(input, inplace=self.inplace)


class LeakyReLU(Module):
    """``x`` if positive else ``negative_slope * x``."""

    def __init__(self, negative_slope: float = 1e-2, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input: Any) -> Any:
        return _F().leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


class ELU(Module):
    """Exponential linear unit."""

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input: Any) -> Any:
        return _F().elu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class CELU(ELU):
    """Continuously differentiable ELU."""

    def forward(self, input: Any) -> Any:
        return _F().celu(input, self.alpha, self.inplace)


class SELU(Module):
    """Scaled ELU."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Any) -> Any:
        return _F().selu(input, self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class GELU(Module):
    """Gaussian error linear unit."""

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, input: Any) -> Any:
        return _F().gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class SiLU(SELU):
    """``x * sigmoid(x)``."""

    def forward(self, input: Any) -> Any:
        return _F().silu(input, self.inplace)


class Mish(SELU):
    """``x * tanh(softplus(x))``."""

    def forward(self, input: Any) -> Any:
        return _F().mish(input, self.inplace)


class Hardtanh(Module):
    """``clamp(x, min_val, max_val)``."""

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.min_val, self.max_val, self.inplace = min_val, max_val, inplace

    def forward(self, input: Any) -> Any:
        return _F().hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self) -> str:
        return f"min_val={self.min_val}, max_val={self.max_val}" + (", inplace=True" if self.inplace else "")


class Hardsigmoid(SELU):
    def forward(self, input: Any) -> Any:
        return _F().hardsigmoid(input, self.inplace)


class Hardswish(SELU):
    def forward(self, input: Any) -> Any:
        return _F().hardswish(input, self.inplace)


class Threshold(Module):
    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__()
        self.threshold, self.value, self.inplace = threshold, value, inplace

    def forward(self, input: Any) -> Any:
        return _F().threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self) -> str:
        return f"threshold={self.threshold}, value={self.value}" + (", inplace=True" if self.inplace else "")


def _simple(name: str, fname: str, doc: str) -> type:
    def forward(self: Any, input: Any) -> Any:
        return getattr(_F(), fname)(input)

    return type(name, (Module,), {"forward": forward, "__doc__": doc, "__module__": __name__})


Sigmoid = _simple("Sigmoid", "sigmoid", "Elementwise logistic function.")
Tanh = _simple("Tanh", "tanh", "Elementwise hyperbolic tangent.")
Softsign = _simple("Softsign", "softsign", "``x / (1 + |x|)``.")
LogSigmoid = _simple("LogSigmoid", "logsigmoid", "``log(sigmoid(x))``.")
Tanhshrink = _simple("Tanhshrink", "tanhshrink", "``x - tanh(x)``.")


class Softplus(Module):
    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, input: Any) -> Any:
        return _F().softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class Softshrink(Module):
    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def forward(self, input: Any) -> Any:
        return _F().softshrink(input, self.lambd)

    def extra_repr(self) -> str:
        return str(self.lambd)


class Hardshrink(Softshrink):
    def forward(self, input: Any) -> Any:
        return _F().hardshrink(input, self.lambd)


class _SoftmaxBase(Module):
    _fn = "softmax"

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Any) -> Any:
        return getattr(_F(), self._fn)(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmax(_SoftmaxBase):
    """Softmax along ``dim``."""

    _fn = "softmax"


class Softmin(_SoftmaxBase):
    """Softmax of ``-x`` along ``dim``."""

    _fn = "softmin"


class LogSoftmax(_SoftmaxBase):
    """Log-softmax along ``dim``."""

    _fn = "log_softmax"


class GLU(Module):
    def __init__(self, dim: int = -1) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Any) -> Any:
        return _F().glu(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class PReLU(Module):
    """``x`` if positive else ``a * x``, with ``a`` learnt (one value, or one per channel)."""

    def __init__(self, num_parameters: int = 1, init: float = 0.25, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.num_parameters = num_parameters
        self.init = init
        self.weight = Parameter(empty(num_parameters, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        _init.constant_(self.weight, self.init)

    def forward(self, input: Any) -> Any:
        return _F().prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


class RReLU(Module):
    """Randomized leaky ReLU: slopes drawn from ``U(lower, upper)`` while training, their mean otherwise."""

    def __init__(self, lower: float = 1.0 / 8, upper: float = 1.0 / 3, inplace: bool = False) -> None:
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input: Any) -> Any:
        return _F().rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"lower={self.lower}, upper={self.upper}" + (", inplace=True" if self.inplace else "")


class Softmax2d(Module):
    """Softmax over the channels (``dim=-3``) of ``(N, C, H, W)`` or ``(C, H, W)`` at each location."""

    def forward(self, input: Any) -> Any:
        if input.dim() not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D instead")
        return _F().softmax(input, -3, _stacklevel=5)
