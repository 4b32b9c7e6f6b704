"""The op table: one entry per differentiable public op of ``tensorlib``, with sample inputs and a NumPy reference.

The table drives the generic tests of ``test_table_checks.py`` and ``test_variants.py``
(gradcheck, gradgradcheck, forward values against NumPy and torch, method forms,
``out=``); ``test_table_coverage.py`` checks that it covers every differentiable
public op.

Sample arguments are NumPy arrays: float and complex arrays become tensors that
require grad, integer and bool arrays plain tensors, ``Const(array)`` a float tensor
that does not require grad. Lists and tuples of arrays become lists and tuples
of tensors (``cat``, ``index_put``).
"""

from __future__ import annotations

import functools
import importlib
import math
import pkgutil
from dataclasses import dataclass, replace
from typing import Any, Callable

import numpy as np

import tensorlib
from tests.ops import tables as _tables

# -- sample inputs -------------------------------------------------------------------------------

_rng = np.random.default_rng(20240601)


def r(*shape: int, lo: float = -2.0, hi: float = 2.0) -> np.ndarray:
    """Uniform float64 values: distinct with probability 1, so no ties or kinks at the samples."""
    return np.asarray(_rng.uniform(lo, hi, shape))


def pos(*shape: int) -> np.ndarray:
    return r(*shape, lo=0.5, hi=2.0)


def unit(*shape: int) -> np.ndarray:
    return r(*shape, lo=-0.9, hi=0.9)


def nz(*shape: int) -> np.ndarray:
    """Values away from zero, of either sign (divisors)."""
    return np.asarray(pos(*shape) * _rng.choice([-1.0, 1.0], shape))


def idx(values: Any) -> np.ndarray:
    return np.array(values, dtype=np.int64)


def mask(values: Any) -> np.ndarray:
    return np.array(values, dtype=bool)


@dataclass(frozen=True)
class Const:
    """A float array passed as a tensor that does not require grad."""

    a: np.ndarray


@dataclass
class Sample:
    args: tuple
    kwargs: dict

    def __repr__(self) -> str:
        def show(v: Any) -> str:
            if isinstance(v, np.ndarray):
                return f"{v.dtype}{list(v.shape)}"
            if isinstance(v, Const):
                return f"const{list(v.a.shape)}"
            if isinstance(v, (list, tuple)):
                inner = ", ".join(show(e) for e in v)
                return f"[{inner}]" if isinstance(v, list) else f"({inner})"
            return repr(v)

        parts = [show(a) for a in self.args] + [f"{k}={show(v)}" for k, v in self.kwargs.items()]
        return ", ".join(parts)

    def numpy(self) -> tuple[tuple, dict]:
        """The arguments with plain arrays (for the NumPy reference)."""
        return _walk(self.args, _unconst), {k: _walk(v, _unconst) for k, v in self.kwargs.items()}

    def leaves(self) -> list[np.ndarray]:
        """The float and complex arrays that become tensors requiring grad, in order."""
        found: list = []
        _walk((self.args, self.kwargs), lambda a, c: found.append(a) if _differentiable(a, c) else None)
        return found

    def build(self, to_tensor: Callable[[np.ndarray], Any], leaves: list | None = None) -> tuple[tuple, dict]:
        """The arguments with arrays made tensors; float leaves taken from ``leaves`` when given."""
        it = iter(leaves) if leaves is not None else None

        def conv(a: np.ndarray, const: bool) -> Any:
            if it is not None and _differentiable(a, const):
                return next(it)
            return to_tensor(a)

        return _walk(self.args, conv), {k: _walk(v, conv) for k, v in self.kwargs.items()}


def _differentiable(a: np.ndarray, const: bool) -> bool:
    return not const and a.dtype.kind in "fc"


def _unconst(a: np.ndarray, const: bool) -> np.ndarray:
    return a


def _walk(v: Any, fn: Callable[[np.ndarray, bool], Any]) -> Any:
    if isinstance(v, np.ndarray):
        return fn(v, False)
    if isinstance(v, Const):
        return fn(v.a, True)
    if isinstance(v, list):
        return [_walk(e, fn) for e in v]
    if isinstance(v, tuple):
        return tuple(_walk(e, fn) for e in v)
    if isinstance(v, dict):
        return {k: _walk(e, fn) for k, e in v.items()}
    return v


def s(*args: Any, **kwargs: Any) -> Sample:
    return Sample(args, kwargs)


def tl_tensor(a: np.ndarray) -> tensorlib.Tensor:
    """A tensorlib tensor holding a copy of ``a``."""
    return tensorlib.from_numpy(a.copy())


# -- the table --------------------------------------------------------------------------------------


@dataclass
class OpInfo:
    name: str
    samples: list[Sample]
    ref: Callable | None  # NumPy reference: same arguments as the op, arrays for tensors
    grad: bool = True  # run gradcheck (False: forward-only samples, e.g. at points where torch's gradient is a convention)
    gradgrad: bool = True  # run gradgradcheck (torch supports double backward)
    method: bool = True  # a Tensor method form exists (when ``tensorlib.Tensor`` has the name)
    rtol: float = 1e-7
    atol: float = 1e-10
    torch_name: str | None = None  # when torch spells it differently
    check_ref_dtype: bool = True  # the NumPy reference's dtype is torch's
    # Applied to the first argument in every check (NumPy arrays, torch and tensorlib tensors alike): inputs an op
    # reads only part of, such as eigh's triangle, made whole (``a + a.conj().swapaxes(-1, -2)``) so gradients agree.
    pre: Callable | None = None
    # Applied to the results before comparing and differentiating (tensorlib's, torch's and the NumPy reference's,
    # the last as tensorlib tensors), written with the API both libraries share: decompositions made unique where
    # they are defined up to signs or phases (a reconstruction, absolute values, a fixed sign per column).
    post: Callable | None = None

    @property
    def func(self) -> Callable:
        # "special.entr" names tensorlib.special.entr
        return functools.reduce(getattr, self.name.split("."), tensorlib)

    @property
    def has_method(self) -> bool:
        return (self.method and "." not in self.name
                and callable(getattr(tensorlib.Tensor, self.name, None)))  # not properties (real)


OPS: list[OpInfo] = []


def op(name: str, samples: list[Sample], ref: Callable | None, **kw: Any) -> OpInfo:
    info = OpInfo(name, samples, ref, **kw)
    OPS.append(info)
    return info


def alias(name: str, of: OpInfo) -> None:
    OPS.append(replace(of, name=name))


# unary elementwise: name -> (numpy function, sample domain)
_UNARY = {
    "abs": (np.abs, r),
    "neg": (np.negative, r),
    "exp": (np.exp, r),
    "exp2": (np.exp2, r),
    "expm1": (np.expm1, r),
    "log": (np.log, pos),
    "log2": (np.log2, pos),
    "log10": (np.log10, pos),
    "log1p": (np.log1p, pos),
    "sqrt": (np.sqrt, pos),
    "rsqrt": (lambda a: 1 / np.sqrt(a), pos),
    "sin": (np.sin, r),
    "cos": (np.cos, r),
    "tan": (np.tan, unit),
    "asin": (np.arcsin, unit),
    "acos": (np.arccos, unit),
    "atan": (np.arctan, r),
    "sinh": (np.sinh, r),
    "cosh": (np.cosh, r),
    "tanh": (np.tanh, r),
    "asinh": (np.arcsinh, r),
    "acosh": (np.arccosh, lambda *s: r(*s, lo=1.2, hi=3.0)),
    "atanh": (np.arctanh, unit),
    "sigmoid": (lambda a: 1 / (1 + np.exp(-a)), r),
    "reciprocal": (np.reciprocal, nz),
    "square": (np.square, r),
    "relu": (lambda a: np.maximum(a, 0), r),
    "floor": (np.floor, r),
    "ceil": (np.ceil, r),
    "trunc": (np.trunc, r),
    "frac": (lambda a: a - np.trunc(a), r),
    "sign": (np.sign, r),
    "sgn": (np.sign, r),
    "positive": (np.positive, r),
    "clone": (np.copy, r),
    "conj": (np.conj, r),
    "real": (np.real, r),
    "erf": (None, r),
    "erfc": (None, r),
    "erfinv": (None, lambda *s: r(*s, lo=-0.9, hi=0.9)),
    "nan_to_num": (np.nan_to_num, r),
}


def _erf(a: np.ndarray) -> np.ndarray:
    import math

    return np.vectorize(math.erf, otypes=[np.float64])(a)


for _name, (_fn, _dom) in _UNARY.items():
    if _name == "erf":
        _fn = _erf
    elif _name == "erfc":
        _fn = lambda a: 1 - _erf(a)  # noqa: E731
    op(_name, [s(_dom(2, 3)), s(_dom())], _fn, atol=1e-9 if _name in ("erf", "erfc") else 1e-10)

alias("absolute", OPS[0])
alias("negative", OPS[1])
alias("fix", next(o for o in OPS if o.name == "trunc"))
op("round", [s(r(2, 3) * 3), s(r(2, 3) * 3, decimals=1)], lambda a, decimals=0: np.round(a, decimals))
op("nan_to_num", [s(r(2, 3), nan=1.0, posinf=5.0)], lambda a, **k: np.nan_to_num(a, **k))

# binary arithmetic: the same-shape, broadcast, scalar and 0-dim cases
def _binary_samples(x: Callable, y: Callable) -> list[Sample]:
    return [
        s(x(2, 3), y(2, 3)),
        s(x(2, 3), y(3)),
        s(x(2, 1), y(1, 3)),
        s(x(2, 3), float(y())),
        s(x(2, 3), y()),
        s(x(), y(2, 3)),
    ]


_add = op(
    "add", _binary_samples(r, r) + [s(r(2, 3), r(2, 3), alpha=2.5)], lambda a, b, alpha=1: a + alpha * np.asarray(b)
)
_sub = op(
    "sub", _binary_samples(r, r) + [s(r(2, 3), r(3), alpha=-0.5)], lambda a, b, alpha=1: a - alpha * np.asarray(b)
)
alias("subtract", _sub)
op("rsub", [s(r(2, 3), r(2, 3)), s(r(2, 3), 1.5), s(r(2, 3), r(3), alpha=2.0)], lambda a, b, alpha=1: b - alpha * a)
_mul = op("mul", _binary_samples(r, r), np.multiply)
alias("multiply", _mul)
_div = op("div", _binary_samples(r, nz), np.divide)
alias("divide", _div)
alias("true_divide", _div)
op(
    "div",
    [s(r(2, 3) * 3, nz(2, 3), rounding_mode="floor"), s(r(2, 3) * 3, nz(3), rounding_mode="trunc")],
    lambda a, b, rounding_mode: np.floor(a / b) if rounding_mode == "floor" else np.trunc(a / b),
)
op("floor_divide", [s(r(2, 3) * 3, nz(2, 3)), s(r(2, 3) * 3, 0.7)], lambda a, b: np.floor(a / b),
   grad=False)  # torch defines no derivative: backward through it is an error (tests/ops/test_errors.py)
op("remainder", [s(r(2, 3) * 3, nz(2, 3)), s(r(2, 3) * 3, nz(3)), s(r(2, 3) * 3, 0.7)], np.mod)
op("fmod", [s(r(2, 3) * 3, nz(2, 3)), s(r(2, 3) * 3, nz(3)), s(r(2, 3) * 3, -0.7)], np.fmod)
op(
    "pow",
    [s(pos(2, 3), r(2, 3)), s(pos(2, 3), r(3)), s(r(2, 3), 2), s(pos(2, 3), 2.5), s(r(2, 3), 3.0), s(pos(2, 3), -1.5),
     s(1.7, r(2, 3)), s(pos(2, 3), r())],
    np.power,
)
op("float_power", [s(pos(2, 3), r(2, 3)), s(pos(2, 3), 2.5), s(2.0, r(3))], lambda a, b: np.power(a, b))
for _name, _fn in (("maximum", np.maximum), ("minimum", np.minimum), ("fmax", np.fmax), ("fmin", np.fmin)):
    op(_name, [s(r(2, 3), r(2, 3)), s(r(2, 3), r(3)), s(r(2, 1), r(1, 3))], _fn)
op(
    "lerp",
    [s(r(2, 3), r(2, 3), 0.3), s(r(2, 3), r(3), r(2, 3)), s(r(2, 3), r(2, 3), r())],
    lambda a, b, w: a + w * (b - a),
)
_clamp = op(
    "clamp",
    [s(r(2, 3), -0.5, 0.5), s(r(2, 3), min=-0.3), s(r(2, 3), max=0.4), s(r(2, 3), Const(r(3) - 1), Const(r(2, 3) + 1)),
     s(r(2, 3), r(3) * 0.5, r(2, 1) * 0.5 + 1), s(r(2, 3), r(3), r(3)), s(r(2, 3), max=r(2, 3))],
    lambda a, min=None, max=None: np.clip(a, min, max),
)
alias("clip", _clamp)
op("clamp_min", [s(r(2, 3), 0.1), s(r(2, 3), r(3))], lambda a, m: np.maximum(a, m))
op("clamp_max", [s(r(2, 3), 0.1), s(r(2, 3), r(3))], lambda a, m: np.minimum(a, m))
op(
    "where",
    [s(mask([[1, 0, 1], [0, 1, 1]]), r(2, 3), r(2, 3)), s(mask([True, False, True]), r(2, 3), r(3)),
     s(mask([[1, 0, 0], [1, 1, 0]]), r(2, 3), 0.5), s(mask([[1, 0, 0], [1, 1, 0]]), -1.5, r(2, 3))],
    np.where,
    method=False,  # Tensor.where(condition, y) takes self as the values, tested on its own
)
# two numbers give the default float dtype (NumPy would give float64)
op("where", [s(mask([True, False]), 2.0, -1.0), s(mask([[True], [False]]), 1, 2.5)], np.where, method=False, check_ref_dtype=False)

for _name, _fn, _x, _y in (
    ("atan2", np.arctan2, r, r), ("hypot", np.hypot, r, r), ("logaddexp", np.logaddexp, r, r),
    ("logaddexp2", np.logaddexp2, r, r), ("xlogy", lambda a, b: a * np.log(b), r, pos), ("copysign", np.copysign, nz, nz),
):
    _e = op(_name, [s(_x(2, 3), _y(2, 3)), s(_x(2, 3), _y(3)), s(_x(2, 1), _y(1, 3)), s(_x(2, 3), _y())], _fn)
    if _name == "atan2":
        alias("arctan2", _e)
op("xlogy", [s(r(2, 3), float(pos()))], lambda a, b: a * np.log(b))
# 0 * log(y) is 0 unless y is nan; torch's gradient at x == 0 is a convention (0), not a derivative
op("xlogy", [s(np.array([0.0, 1.5, 0.0]), np.array([0.0, 0.5, np.nan]))], lambda a, b: np.array([0.0, 1.5 * np.log(0.5), np.nan]), grad=False)
op("deg2rad", [s(r(2, 3) * 90)], np.deg2rad)
op("rad2deg", [s(r(2, 3))], np.rad2deg)
op("sinc", [s(r(2, 3))], np.sinc, atol=1e-9)
op("sinc", [s(np.array([0.0, 0.5, -1.5]))], np.sinc, gradgrad=False)  # torch masks the gradient at 0 too
op("logit", [s(r(2, 3, lo=0.05, hi=0.95)), s(r(2, 3, lo=-0.2, hi=1.2) * 0 + np.array([0.01, 0.3, 0.999]), 0.05)],
   lambda a, eps=None: np.log(np.clip(a, eps, 1 - eps) / (1 - np.clip(a, eps, 1 - eps))) if eps else np.log(a / (1 - a)))
op("angle", [s(r(2, 3))], lambda a: np.where(a < 0, np.pi, 0.0))
op("addcmul", [s(r(2, 3), r(2, 3), r(2, 3)), s(r(2, 3), r(3), r(2, 1), value=-0.5)], lambda a, b, c, value=1: a + value * b * c)
op("addcdiv", [s(r(2, 3), r(2, 3), nz(2, 3)), s(r(2, 3), r(3), nz(2, 1), value=2.0)], lambda a, b, c, value=1: a + value * b / c)
for _name, _of in (("arccos", "acos"), ("arcsin", "asin"), ("arctan", "atan"), ("arccosh", "acosh"), ("arcsinh", "asinh"), ("arctanh", "atanh")):
    alias(_name, next(o for o in OPS if o.name == _of))

# -- tensorlib.special --------------------------------------------------------------------------------

_erf_np = np.vectorize(math.erf, otypes=[float])
op("special.entr", [s(pos(2, 3))], lambda a: -a * np.log(a))
# 0 at 0, -inf below 0, nan stays nan
op("special.entr", [s(np.array([0.0, 0.5, -1.0, np.nan]))], lambda a: np.array([0.0, -0.5 * np.log(0.5), -np.inf, np.nan]),
   grad=False)
op("special.xlog1py", [s(r(2, 3), pos(2, 3)), s(r(2, 3), pos(3)), s(r(2, 3), float(pos()))],
   lambda a, b: a * np.log1p(b))
op("special.xlog1py", [s(np.array([0.0, 1.5, 0.0]), np.array([-1.0, 0.5, np.nan]))],
   lambda a, b: np.array([0.0, 1.5 * np.log1p(0.5), np.nan]), grad=False)
op("special.ndtr", [s(r(2, 3) * 3)], lambda a: 0.5 * (1 + _erf_np(a / math.sqrt(2))))
op("special.expit", [s(r(2, 3))], lambda a: 1 / (1 + np.exp(-a)))
for _name in ("erf", "erfc", "erfinv", "exp2", "expm1", "log1p", "sinc", "logit"):
    alias("special." + _name, next(o for o in OPS if o.name == _name))
alias("special.xlogy", next(o for o in OPS if o.name == "xlogy"))
op("special.round", [s(r(2, 3) * 5)], np.round, grad=False)
op("special.logsumexp", [s(r(2, 3), 1), s(r(2, 3), (0, 1), True)],
   lambda a, dim, keepdim=False: np.log(np.sum(np.exp(a), axis=dim, keepdims=keepdim)))
op("special.softmax", [s(r(2, 3), 1), s(r(2, 3), 0, dtype=tensorlib.float64)],
   lambda a, dim, dtype=None: np.exp(a) / np.sum(np.exp(a), axis=dim, keepdims=True))
op("special.log_softmax", [s(r(2, 3), 1)], lambda a, dim: a - np.log(np.sum(np.exp(a), axis=dim, keepdims=True)))

# -- reductions ---------------------------------------------------------------------------------

_DIM_SAMPLES = lambda: [s(r(2, 3)), s(r(2, 3), 1), s(r(2, 3), -1, True), s(r(2, 3), (0, 1)), s(r(2, 3), dim=0, keepdim=True), s(r())]  # noqa: E731


def _axis(dim: Any) -> Any:
    return tuple(dim) if isinstance(dim, (list, tuple)) else dim


op("sum", _DIM_SAMPLES() + [s(r(2, 3), 1, dtype=tensorlib.float64)],
   lambda a, dim=None, keepdim=False, dtype=None: np.sum(a, axis=_axis(dim), keepdims=keepdim))
op("mean", _DIM_SAMPLES(), lambda a, dim=None, keepdim=False: np.mean(a, axis=_axis(dim), keepdims=keepdim))
op("nansum", _DIM_SAMPLES(), lambda a, dim=None, keepdim=False: np.nansum(a, axis=_axis(dim), keepdims=keepdim))
op("nanmean", _DIM_SAMPLES(), lambda a, dim=None, keepdim=False: np.nanmean(a, axis=_axis(dim), keepdims=keepdim))
_with_zero = np.array([[1.5, 0.0, -0.7], [0.4, -1.3, 2.0]])
op(
    "prod",
    [s(r(2, 3)), s(r(2, 3), 1), s(r(2, 3), 0, True), s(_with_zero.copy()), s(_with_zero.copy(), 1), s(r())],
    lambda a, dim=None, keepdim=False: np.prod(a, axis=dim, keepdims=keepdim),
)


def _extreme_ref(np_fn: Callable, arg_fn: Callable) -> Callable:
    def ref(a: np.ndarray, dim: Any = None, keepdim: bool = False) -> Any:
        if isinstance(dim, np.ndarray):
            return (np.maximum if np_fn is np.max else np.minimum)(a, dim)
        if dim is None:
            return np_fn(a)
        i = arg_fn(a, axis=dim, keepdims=keepdim)
        return np_fn(a, axis=dim, keepdims=keepdim), i

    return ref


_DIM_ONLY = lambda: [s(r(2, 3)), s(r(2, 3), 1), s(r(2, 3), 0, True), s(r(2, 3), dim=-1), s(r(2, 3), r(2, 3)), s(r(2, 3), r(3))]  # noqa: E731
op("max", _DIM_ONLY(), _extreme_ref(np.max, np.argmax))
op("min", _DIM_ONLY(), _extreme_ref(np.min, np.argmin))
op("amax", _DIM_SAMPLES()[:-1] + [s(r(2, 3), ())],
   lambda a, dim=None, keepdim=False: np.max(a, axis=_axis(dim) if dim != () else None, keepdims=keepdim))
op("amin", _DIM_SAMPLES()[:-1],
   lambda a, dim=None, keepdim=False: np.min(a, axis=_axis(dim), keepdims=keepdim))
op("aminmax", [s(r(2, 3)), s(r(2, 3), dim=1), s(r(2, 3), dim=0, keepdim=True)],
   lambda a, dim=None, keepdim=False: (np.min(a, axis=dim, keepdims=keepdim), np.max(a, axis=dim, keepdims=keepdim)))


def _var_ref(a: np.ndarray, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *, correction: Any = None) -> np.ndarray:
    c = correction if correction is not None else (0 if unbiased is False else 1)
    return np.var(a, axis=_axis(dim), ddof=c, keepdims=keepdim)


_VAR_SAMPLES = lambda: [s(r(2, 3)), s(r(2, 3), 1), s(r(2, 3), 1, keepdim=True), s(r(2, 3), (0, 1), correction=0), s(r(2, 3), dim=0, unbiased=False), s(r(3, 2), 0, correction=2)]  # noqa: E731
op("var", _VAR_SAMPLES(), _var_ref)
op("std", _VAR_SAMPLES(), lambda *a, **k: np.sqrt(_var_ref(*a, **k)))
op("var_mean", _VAR_SAMPLES(),
   lambda a, dim=None, unbiased=None, keepdim=False, **k: (_var_ref(a, dim, unbiased, keepdim, **k), np.mean(a, axis=_axis(dim), keepdims=keepdim)),
   method=False)
op("std_mean", _VAR_SAMPLES(),
   lambda a, dim=None, unbiased=None, keepdim=False, **k: (np.sqrt(_var_ref(a, dim, unbiased, keepdim, **k)), np.mean(a, axis=_axis(dim), keepdims=keepdim)),
   method=False)


def _logsumexp(a: np.ndarray, dim: Any, keepdim: bool = False) -> np.ndarray:
    return np.log(np.sum(np.exp(a), axis=_axis(dim), keepdims=keepdim))


op("logsumexp", [s(r(2, 3), 1), s(r(2, 3), (0, 1)), s(r(2, 3), 0, True), s(r(2, 3), -1, keepdim=True)], _logsumexp)
op("cumsum", [s(r(2, 3), 1), s(r(2, 3), 0), s(r(2, 3), dim=-1)], lambda a, dim: np.cumsum(a, axis=dim))
op("cumprod", [s(r(2, 3), 1), s(r(2, 3), 0), s(_with_zero.copy(), 1), s(_with_zero.copy(), 0)], lambda a, dim: np.cumprod(a, axis=dim))


def _cum_extreme(np_acc: Callable) -> Callable:
    def ref(a: np.ndarray, dim: int) -> tuple:
        v = np_acc(a, axis=dim)
        i = np.argmax(np.moveaxis(a, dim, -1)[..., None, :] == np.moveaxis(v, dim, -1)[..., :, None], axis=-1)
        return v, np.moveaxis(i, -1, dim)

    return ref


op("cummax", [s(r(2, 3), 1), s(r(2, 3), 0), s(r(3), -1)], _cum_extreme(np.maximum.accumulate))
op("cummin", [s(r(2, 3), 1), s(r(2, 3), 0)], _cum_extreme(np.minimum.accumulate))
op("logcumsumexp", [s(r(2, 3), 1), s(r(2, 3), 0), s(r(3) * 5, dim=-1)], lambda a, dim: np.logaddexp.accumulate(a, axis=dim))
op("diff", [s(r(2, 4)), s(r(2, 4), 2), s(r(3, 2), 1, 0), s(r(2, 3), 1, -1, r(2, 1), r(2, 2))],
   lambda a, n=1, dim=-1, prepend=None, append=None: np.diff(a, n, dim, **({"prepend": prepend} if prepend is not None else {}), **({"append": append} if append is not None else {})))
op("dist", [s(r(2, 3), r(2, 3)), s(r(2, 3), r(3), 1), s(r(2, 3), r(2, 3), 3.0)], lambda a, b, p=2: np.sum(np.abs(a - b) ** p) ** (1 / p))


def _lower_median(a: np.ndarray, dim: Any = None, keepdim: bool = False) -> Any:
    if dim is None:
        return np.sort(a.reshape(-1))[(a.size - 1) // 2]
    k = (a.shape[dim] - 1) // 2
    i = np.take(np.argsort(a, axis=dim), [k], axis=dim)
    v = np.take_along_axis(a, i, axis=dim)
    return (v, i) if keepdim else (v.squeeze(dim), i.squeeze(dim))


op("median", [s(r(2, 3)), s(r(2, 4)), s(r(2, 3), 1), s(r(2, 4), 1, True), s(r(3, 2), dim=0)], _lower_median)
_with_nan = lambda: np.where(np.eye(3, 4, dtype=bool), np.nan, r(3, 4))  # noqa: E731
op("nanmedian", [s(r(2, 3)), s(r(2, 4), 1), s(_with_nan()), s(_with_nan(), 1, True)],
   lambda a, dim=None, keepdim=False: _lower_median(a[~np.isnan(a)]) if dim is None else _nan_lower_median(a, dim, keepdim))


def _nan_lower_median(a: np.ndarray, dim: int, keepdim: bool) -> tuple:
    order = np.argsort(a, axis=dim)  # NaN last
    k = (np.sum(~np.isnan(a), axis=dim, keepdims=True) - 1) // 2
    i = np.take_along_axis(order, k, axis=dim)
    v = np.take_along_axis(a, i, axis=dim)
    return (v, i) if keepdim else (v.squeeze(dim), i.squeeze(dim))


def _mode(a: np.ndarray, dim: int = -1, keepdim: bool = False) -> Any:
    # distinct samples: every count is 1, so the mode is the smallest value
    i = np.argmin(a, axis=dim, keepdims=True)
    v = np.take_along_axis(a, i, axis=dim)
    return (v, i) if keepdim else (v.squeeze(dim), i.squeeze(dim))


op("mode", [s(r(2, 3)), s(r(2, 3), 0), s(r(2, 3), 1, True)], _mode)


def _kth(a: np.ndarray, k: int, dim: int = -1, keepdim: bool = False) -> Any:
    i = np.take(np.argsort(a, axis=dim), [k - 1], axis=dim)
    v = np.take_along_axis(a, i, axis=dim)
    return (v, i) if keepdim else (v.squeeze(dim), i.squeeze(dim))


op("kthvalue", [s(r(2, 3), 2), s(r(2, 3), 1, 0), s(r(2, 3), 3, 1, True)], _kth)


def _topk(a: np.ndarray, k: int, dim: int = -1, largest: bool = True, sorted: bool = True) -> Any:  # noqa: A002
    order = np.argsort(-a if largest else a, axis=dim)
    i = np.take(order, np.arange(k), axis=dim)
    return np.take_along_axis(a, i, axis=dim), i


op("topk", [s(r(2, 3), 2), s(r(2, 3), 1, 0), s(r(2, 4), 3, largest=False)], _topk)


def _sort(a: np.ndarray, dim: int = -1, descending: bool = False, stable: bool = False) -> Any:
    i = np.argsort(-a if descending else a, axis=dim)
    return np.take_along_axis(a, i, axis=dim), i


op("sort", [s(r(2, 3)), s(r(2, 3), 0), s(r(2, 3), descending=True), s(r(2, 3), 1, True)], _sort)
op("msort", [s(r(3, 2)), s(r(3))], lambda a: np.sort(a, axis=0))


def _norm(a: np.ndarray, p: Any = "fro", dim: Any = None, keepdim: bool = False) -> np.ndarray:
    p = 2 if p == "fro" else p
    ax = _axis(dim)
    if p == np.inf:
        return np.max(np.abs(a), axis=ax, keepdims=keepdim)
    return np.sum(np.abs(a) ** p, axis=ax, keepdims=keepdim) ** (1 / p)


op("norm", [s(r(2, 3)), s(r(2, 3), 1), s(r(2, 3), 3, 1), s(r(2, 3), "fro", (0, 1)), s(r(2, 3), float("inf"), 1), s(r(2, 3), dim=0, keepdim=True)], _norm)


def _softmax(a: np.ndarray, dim: int) -> np.ndarray:
    e = np.exp(a - a.max(axis=dim, keepdims=True))
    return e / e.sum(axis=dim, keepdims=True)


op("softmax", [s(r(2, 3), 1), s(r(2, 3), 0), s(r(2, 3), dim=-1)], _softmax)
op("log_softmax", [s(r(2, 3), 1), s(r(2, 3), 0), s(r(2, 3), dim=-1)], lambda a, dim: np.log(_softmax(a, dim)))

# -- linear algebra -------------------------------------------------------------------------------

op("mm", [s(r(2, 3), r(3, 4))], np.matmul)
op(
    "matmul",
    [s(r(2, 3), r(3, 4)), s(r(3), r(3)), s(r(2, 3), r(3)), s(r(3), r(3, 2)), s(r(2, 2, 3), r(3, 2)), s(r(2, 1, 2, 3), r(2, 3, 2)), s(r(3), r(2, 3, 2))],
    np.matmul,
)
op("bmm", [s(r(2, 2, 3), r(2, 3, 2))], np.matmul)
op("mv", [s(r(2, 3), r(3))], np.matmul)
op("dot", [s(r(3), r(3))], np.dot)
op("vdot", [s(r(3), r(3))], np.vdot)
op("inner", [s(r(3), r(3)), s(r(2, 3), r(4, 3)), s(r(2, 3), r(2, 2, 3)), s(r(2, 3), r())], np.inner)
_outer = op("outer", [s(r(3), r(2))], np.outer)
alias("ger", _outer)
op(
    "addmm",
    [s(r(2, 4), r(2, 3), r(3, 4)), s(r(4), r(2, 3), r(3, 4)), s(r(2, 4), r(2, 3), r(3, 4), beta=0.5, alpha=2.0)],
    lambda c, a, b, beta=1, alpha=1: beta * c + alpha * (a @ b),
)
op(
    "addmv",
    [s(r(2), r(2, 3), r(3)), s(r(), r(2, 3), r(3)), s(r(2), r(2, 3), r(3), beta=0.5, alpha=-1.5)],
    lambda c, a, b, beta=1, alpha=1: beta * c + alpha * (a @ b),
)
op(
    "baddbmm",
    [s(r(2, 2, 2), r(2, 2, 3), r(2, 3, 2)), s(r(2, 2), r(2, 2, 3), r(2, 3, 2), beta=2.0, alpha=0.5)],
    lambda c, a, b, beta=1, alpha=1: beta * c + alpha * (a @ b),
)
op(
    "tensordot",
    [s(r(2, 3), r(3, 2), 1), s(r(2, 3), r(2, 3)), s(r(2, 3, 2), r(3, 2, 2), ([1, 2], [0, 1])), s(r(2, 3), r(3, 2), dims=([1], [0]))],
    lambda a, b, dims=2: np.tensordot(a, b, dims),
    method=False,
)
op(
    "einsum",
    [s("ij,jk->ik", r(2, 3), r(3, 2)), s("ij->", r(2, 3)), s("bij,bjk->bik", r(2, 2, 3), r(2, 3, 2)), s("i,i", r(3), r(3)),
     s("ij->ji", r(2, 3)), s("i,j->ij", r(2), r(3)), s("ij,j->i", r(2, 3), r(3))],
    np.einsum,
    method=False,
)
op("tril", [s(r(3, 3)), s(r(2, 3), 1), s(r(2, 3, 3), diagonal=-1)], lambda a, diagonal=0: np.tril(a, diagonal))
op("triu", [s(r(3, 3)), s(r(2, 3), 1), s(r(2, 3, 3), diagonal=-1)], lambda a, diagonal=0: np.triu(a, diagonal))
op("trace", [s(r(3, 3)), s(r(2, 3))], np.trace)
op("cross", [s(r(2, 3), r(2, 3)), s(r(3, 2), r(3, 2), 0), s(r(2, 3), r(2, 3), dim=-1)],
   lambda a, b, dim=None: np.cross(a, b, axis=-1 if dim is None else dim), method=True)


def _cdist(a: np.ndarray, b: np.ndarray, p: float = 2.0) -> np.ndarray:
    d = np.abs(a[..., :, None, :] - b[..., None, :, :])
    return np.sum(d**p, axis=-1) ** (1 / p)


op("cdist", [s(r(2, 3), r(3, 3)), s(r(2, 2, 3), r(2, 3, 3), 1.0), s(r(2, 3), r(2, 3), p=3.0)], _cdist, method=False)

op("kron", [s(r(2, 2), r(2, 3)), s(r(3), r(2)), s(r(2, 1, 2), r(2, 2))], np.kron)
op("addr", [s(r(2, 3), r(2), r(3)), s(r(3), r(2), r(3), beta=0.5, alpha=2.0)], lambda c, a, b, beta=1, alpha=1: beta * c + alpha * np.outer(a, b))
op("addbmm", [s(r(2, 2), r(3, 2, 3), r(3, 3, 2)), s(r(2), r(3, 2, 3), r(3, 3, 2), beta=0.5, alpha=-1.0)],
   lambda c, a, b, beta=1, alpha=1: beta * c + alpha * np.sum(a @ b, axis=0))
_well_conditioned = lambda: np.eye(3) * 2 + r(3, 3) * 0.3  # noqa: E731
op("matrix_power", [s(_well_conditioned(), 3), s(_well_conditioned(), 0), s(_well_conditioned(), -2), s(r(2, 2, 2), 2)], np.linalg.matrix_power, rtol=1e-6)
op("inverse", [s(_well_conditioned()), s(np.stack([_well_conditioned(), _well_conditioned()]))], np.linalg.inv, rtol=1e-6)
op("det", [s(_well_conditioned()), s(np.stack([_well_conditioned(), _well_conditioned()]))], np.linalg.det, rtol=1e-6)
op("logdet", [s(_well_conditioned())], lambda a: np.log(np.linalg.det(a)), rtol=1e-6)

# -- shape ------------------------------------------------------------------------------------------

op("reshape", [s(r(2, 3), (3, 2)), s(r(2, 3), (-1,)), s(r(2, 3), (1, 3, -1)), s(r(), (1,))], np.reshape)
def _flatten(a: np.ndarray, start_dim: int = 0, end_dim: int = -1) -> np.ndarray:
    if a.ndim == 0:
        return a.reshape(1)
    end = end_dim % a.ndim
    return a.reshape(a.shape[:start_dim] + (-1,) + a.shape[end + 1 :])


op("flatten", [s(r(2, 3, 2)), s(r(2, 3, 2), 1), s(r(2, 3, 2), 0, 1), s(r())], _flatten)
op("unflatten", [s(r(2, 6), 1, (2, 3)), s(r(6), 0, (3, -1))], lambda a, d, sizes: a.reshape(a.shape[:d] + tuple(sizes) + a.shape[d + 1 :]))
op("squeeze", [s(r(2, 1, 3)), s(r(2, 1, 3), 1), s(r(2, 1, 3), 0), s(r(1, 2, 1), (0, 2)), s(r(1, 1))],
   lambda a, dim=None: np.squeeze(a, tuple(d for d in (dim if isinstance(dim, tuple) else (dim,)) if a.shape[d] == 1) if dim is not None else None))
op("unsqueeze", [s(r(2, 3), 0), s(r(2, 3), -1), s(r(2, 3), 1), s(r(), 0)], np.expand_dims)
_transpose = op("transpose", [s(r(2, 3), 0, 1), s(r(2, 3, 2), -1, 0)], np.swapaxes)
alias("swapaxes", _transpose)
alias("swapdims", _transpose)
op("t", [s(r(2, 3)), s(r(3)), s(r())], lambda a: a.T)
op("adjoint", [s(r(2, 3)), s(r(2, 3, 2))], lambda a: np.swapaxes(a, -1, -2))
op("permute", [s(r(2, 3, 2), (2, 0, 1)), s(r(2, 3), (-1, 0))], np.transpose)
_movedim = op("movedim", [s(r(2, 3, 2), 0, 2), s(r(2, 3, 2), (0, 1), (2, 0))], np.moveaxis)
alias("moveaxis", _movedim)
op("broadcast_to", [s(r(3), (2, 3)), s(r(2, 1), (2, 2, 3)), s(r(), (2,))], np.broadcast_to)
op("broadcast_tensors", [s(r(2, 1), r(3)), s(r(2, 3), r())], lambda *a: tuple(np.broadcast_arrays(*a)), method=False)
op("narrow", [s(r(2, 4), 1, 1, 2), s(r(3, 2), 0, -2, 2)], lambda a, d, st, n: np.take(a, range(st % a.shape[d], st % a.shape[d] + n), axis=d))
op("select", [s(r(2, 3), 1, 2), s(r(2, 3), 0, -1)], lambda a, d, i: np.take(a, i, axis=d))
op("unbind", [s(r(2, 3)), s(r(2, 3), 1)], lambda a, dim=0: tuple(np.moveaxis(a, dim, 0)))
op("split", [s(r(5, 2), 2), s(r(2, 5), [1, 4], 1), s(r(4, 2), 4)],
   lambda a, size, dim=0: tuple(np.split(a, np.cumsum(size)[:-1] if isinstance(size, list) else range(size, a.shape[dim], size), axis=dim)))
op("chunk", [s(r(5, 2), 2), s(r(2, 6), 3, 1)], lambda a, n, dim=0: tuple(np.array_split(a, -(-a.shape[dim] // -(-a.shape[dim] // n)), axis=dim)))
op("tensor_split", [s(r(5, 2), 3), s(r(2, 5), [1, 3], 1), s(r(5), (2,))], lambda a, n, dim=0: tuple(np.array_split(a, n, axis=dim)))
_cat = op("cat", [s([r(2, 3), r(1, 3)]), s([r(2, 3), r(2, 2)], 1), s((r(2, 3), r(2, 3)), dim=-1), s([r(2, 3), r(0)])],
          lambda ts, dim=0: np.concatenate([t for t in ts if t.shape != (0,)], axis=dim), method=False)
alias("concat", _cat)
alias("concatenate", _cat)
op("stack", [s([r(2, 3), r(2, 3)]), s([r(2, 3), r(2, 3), r(2, 3)], 2), s((r(3), r(3)), dim=-1)], lambda ts, dim=0: np.stack(ts, axis=dim), method=False)
op("hstack", [s([r(2, 3), r(2, 1)]), s([r(3), r(2)])], lambda ts: np.hstack(ts), method=False)
op("vstack", [s([r(2, 3), r(1, 3)]), s([r(3), r(3)])], lambda ts: np.vstack(ts), method=False)
op("atleast_1d", [s(r()), s(r(2, 3))], np.atleast_1d, method=False)
op("atleast_2d", [s(r()), s(r(3)), s(r(2, 3))], np.atleast_2d, method=False)
op("flip", [s(r(2, 3), (0,)), s(r(2, 3), (0, 1)), s(r(2, 3), [-1])], lambda a, dims: np.flip(a, tuple(dims)))
op("fliplr", [s(r(2, 3))], np.fliplr)
op("flipud", [s(r(2, 3))], np.flipud)
op("roll", [s(r(2, 3), 1), s(r(2, 3), 1, 1), s(r(2, 3), (1, -1), (0, 1)), s(r(2, 3), shifts=-2, dims=-1)],
   lambda a, shifts, dims=None: np.roll(a, shifts, dims))
op("tile", [s(r(2, 3), (2,)), s(r(2, 3), (2, 1)), s(r(3), (2, 2))], np.tile)
op(
    "repeat_interleave",
    [s(r(2, 3), 2), s(r(2, 3), 2, 1), s(r(2, 3), idx([1, 0, 2]), 1), s(r(2, 3), 3, dim=0)],
    lambda a, rep, dim=None: np.repeat(a, rep, axis=dim),
)
op("diagonal", [s(r(3, 3)), s(r(2, 3), 1), s(r(2, 3, 3), 0, 1, 2), s(r(3, 3), -1)], lambda a, offset=0, dim1=0, dim2=1: np.diagonal(a, offset, dim1, dim2))
op("diag", [s(r(3)), s(r(3), 1), s(r(2, 3)), s(r(3, 3), -1)], np.diag)


def _diag_embed(a: np.ndarray, offset: int = 0, dim1: int = -2, dim2: int = -1) -> np.ndarray:
    n = a.shape[-1] + abs(offset)
    out = np.zeros(a.shape[:-1] + (n, n))
    i = np.arange(a.shape[-1])
    out[..., i + max(-offset, 0), i + max(offset, 0)] = a
    return np.moveaxis(out, (-2, -1), (dim1, dim2))


op("diag_embed", [s(r(2, 3)), s(r(3), 1), s(r(2, 2), 0, 0, 2)], _diag_embed)

op("ravel", [s(r(2, 3)), s(r())], np.ravel)
op("narrow_copy", [s(r(2, 4), 1, 1, 2)], lambda a, d, st, n: np.take(a, range(st, st + n), axis=d))
op("rot90", [s(r(2, 3)), s(r(2, 3), 2), s(r(2, 3), -1), s(r(2, 3, 2), 1, [1, 2])], lambda a, k=1, dims=(0, 1): np.rot90(a, k, tuple(dims)))
op("hsplit", [s(r(2, 4), 2), s(r(2, 4), [1, 3])], lambda a, n: tuple(np.hsplit(a, n)))
op("vsplit", [s(r(4, 2), 2), s(r(3, 2), [1])], lambda a, n: tuple(np.vsplit(a, n)))
op("dsplit", [s(r(1, 2, 4), 2)], lambda a, n: tuple(np.dsplit(a, n)))
op("atleast_3d", [s(r()), s(r(3)), s(r(2, 3))], np.atleast_3d, method=False)
op("column_stack", [s([r(3), r(3, 2)]), s((r(2), r()[None].repeat(2)))], lambda ts: np.column_stack(ts), method=False)
op("dstack", [s([r(2, 3), r(2, 3)]), s([r(3), r(3)])], lambda ts: np.dstack(ts), method=False)
op("row_stack", [s([r(2, 3), r(3)])], lambda ts: np.vstack(ts), method=False)
op("meshgrid", [s(r(2), r(3), indexing="ij"), s(r(2), r(3), indexing="xy"), s([r(2), r(3), r(2)], indexing="ij")],
   lambda *ts, indexing: tuple(np.meshgrid(*(ts[0] if isinstance(ts[0], list) else ts), indexing=indexing)), method=False)
op("cartesian_prod", [s(r(2), r(3))], lambda a, b: np.stack([g.reshape(-1) for g in np.meshgrid(a, b, indexing="ij")], 1), method=False)


def _block_diag(*ts: np.ndarray) -> np.ndarray:
    ts = [t.reshape(1, -1) if t.ndim < 2 else t for t in ts]
    out = np.zeros((sum(t.shape[0] for t in ts), sum(t.shape[1] for t in ts)))
    i = j = 0
    for t in ts:
        out[i : i + t.shape[0], j : j + t.shape[1]] = t
        i, j = i + t.shape[0], j + t.shape[1]
    return out


op("block_diag", [s(r(2, 2), r(3)), s(r(), r(1, 2), r(2, 1))], _block_diag, method=False)
op("diagflat", [s(r(3)), s(r(2, 2), 1)], lambda a, offset=0: np.diagflat(a, offset))

# -- indexing -------------------------------------------------------------------------------------

op("gather", [s(r(2, 3), 1, idx([[0, 2, 2], [1, 0, 0]])), s(r(2, 3), 0, idx([[1, 0, 1]]))],
   lambda a, d, i: np.take_along_axis(a, i, axis=d))


def _scatter(a: np.ndarray, d: int, i: np.ndarray, src: Any = None, *, value: Any = None) -> np.ndarray:
    out = a.copy()
    v = src if src is not None else value
    if isinstance(v, np.ndarray):
        v = v[tuple(slice(0, n) for n in i.shape)]
    np.put_along_axis(out, i, v, axis=d)
    return out


op("scatter", [s(r(2, 3), 1, idx([[2, 0], [1, 2]]), r(2, 2)), s(r(2, 3), 0, idx([[1, 0, 1]]), r(2, 3)), s(r(2, 3), 1, idx([[0], [2]]), value=0.5)], _scatter)


def _scatter_add(a: np.ndarray, d: int, i: np.ndarray, src: np.ndarray) -> np.ndarray:
    out = a.copy()
    grid = list(np.indices(i.shape, sparse=True))
    grid[d] = i
    np.add.at(out, tuple(grid), src[tuple(slice(0, n) for n in i.shape)])
    return out


op("scatter_add", [s(r(2, 3), 1, idx([[2, 2], [1, 0]]), r(2, 2)), s(r(2, 3), 0, idx([[1, 0, 1], [1, 1, 0]]), r(2, 3))], _scatter_add)
op("index_select", [s(r(2, 3), 1, idx([2, 0, 2])), s(r(3, 2), 0, idx([1]))], lambda a, d, i: np.take(a, i, axis=d))


def _index_add(a: np.ndarray, d: int, i: np.ndarray, src: np.ndarray, alpha: float = 1) -> np.ndarray:
    out = np.moveaxis(a.copy(), d, 0)
    np.add.at(out, i, np.moveaxis(src, d, 0) * alpha)
    return np.moveaxis(out, 0, d)


op("index_add", [s(r(2, 3), 1, idx([2, 0, 2]), r(2, 3)), s(r(3, 2), 0, idx([1, 2]), r(2, 2), alpha=-2.0)], _index_add)


def _index_fill(a: np.ndarray, d: int, i: np.ndarray, v: Any) -> np.ndarray:
    out = np.moveaxis(a.copy(), d, 0)
    out[i] = v
    return np.moveaxis(out, 0, d)


op("index_fill", [s(r(2, 3), 1, idx([2, 0]), 0.5), s(r(3, 2), 0, idx([1]), r())], _index_fill)


def _index_put(a: np.ndarray, indices: tuple, values: np.ndarray, accumulate: bool = False) -> np.ndarray:
    out = a.copy()
    if accumulate:
        np.add.at(out, tuple(indices), values)
    else:
        out[tuple(indices)] = values
    return out


op(
    "index_put",
    [s(r(2, 3), (idx([0, 1]), idx([2, 0])), r(2)), s(r(2, 3), (idx([1, 1, 0]),), r(3), True),
     s(r(3, 2), (idx([0, 2]),), r(2)), s(r(2, 3), (idx([0, 0]), idx([1, 1])), r(2), accumulate=True)],
    _index_put,
)
op(
    "masked_fill",
    [s(r(2, 3), mask([[1, 0, 1], [0, 0, 1]]), 0.5), s(r(2, 3), mask([True, False, False]), r()), s(r(2, 3), mask(True), -1.0)],
    lambda a, m, v: np.where(m, v, a),
)
op("masked_select", [s(r(2, 3), mask([[1, 0, 1], [0, 0, 1]])), s(r(2, 3), mask([False, True, True]))], lambda a, m: a[np.broadcast_to(m, a.shape)])


def _masked_scatter(a: np.ndarray, m: np.ndarray, src: np.ndarray) -> np.ndarray:
    out = a.copy()
    mb = np.broadcast_to(m, a.shape)
    out[mb] = src.reshape(-1)[: int(mb.sum())]
    return out


op("masked_scatter", [s(r(2, 3), mask([[1, 0, 1], [0, 0, 1]]), r(2, 3)), s(r(2, 3), mask([True, False, True]), r(5))], _masked_scatter)
op("take", [s(r(2, 3), idx([0, 5, 2])), s(r(2, 3), idx([[1, -1], [3, 3]]))], lambda a, i: np.take(a, i))
op(
    "take_along_dim",
    [s(r(2, 3), idx([[0, 2], [1, 1]]), 1), s(r(2, 3), idx([4, 0])), s(r(2, 3), idx([[2], [0]]), dim=1), s(r(2, 3), idx([[0, 1, 1]]), 0)],
    lambda a, i, dim=None: np.take_along_axis(a.reshape(-1) if dim is None else a, i, axis=0 if dim is None else dim),
)

op("index_copy", [s(r(2, 3), 1, idx([2, 0]), r(2, 2)), s(r(3, 2), 0, idx([1]), r(1, 2))],
   lambda a, d, i, src: _index_fill(a, d, i, 0) + _index_add(np.zeros_like(a), d, i, src))
op("select_scatter", [s(r(2, 3), r(3), 0, 1), s(r(2, 3), r(2), 1, -1)],
   lambda a, src, d, i: _put(a, (slice(None),) * d + (i,), src))
op("slice_scatter", [s(r(4, 3), r(2, 3), 0, 1, 3), s(r(2, 4), r(2, 2), 1, 0, None, 2)],
   lambda a, src, d=0, start=None, end=None, step=1: _put(a, (slice(None),) * d + (slice(start, end, step),), src))
op("diagonal_scatter", [s(r(3, 3), r(3)), s(r(2, 3), r(2), 1), s(r(2, 3, 3), r(2, 3), 0, 1, 2)],
   lambda a, src, offset=0, dim1=0, dim2=1: _diag_put(a, src, offset, dim1, dim2))


def _scatter_reduce(a: np.ndarray, d: int, i: np.ndarray, src: np.ndarray, reduce: str, include_self: bool = True) -> np.ndarray:
    out = a.copy()
    grid = list(np.indices(i.shape, sparse=True))
    grid[d] = i
    key = tuple(grid)
    vals = src[tuple(slice(0, n) for n in i.shape)]
    fn = {"sum": np.add, "mean": np.add, "prod": np.multiply, "amax": np.maximum, "amin": np.minimum}[reduce]
    if not include_self:
        out[key] = {"sum": 0, "mean": 0, "prod": 1, "amax": -np.inf, "amin": np.inf}[reduce]
    fn.at(out, key, vals)
    if reduce == "mean":
        count = np.zeros(a.shape) + (1 if include_self else 0)
        np.add.at(count, key, 1)
        out = out / np.maximum(count, 1)
    return out


_SR_INDEX = idx([[2, 0], [1, 1]])
op("scatter_reduce", [s(r(2, 3), 1, _SR_INDEX, r(2, 2), reduce) for reduce in ("sum", "prod", "mean", "amax", "amin")]
   + [s(r(2, 3), 1, _SR_INDEX, r(2, 3), reduce, include_self=False) for reduce in ("sum", "prod", "mean", "amax", "amin")],
   _scatter_reduce)


def _put(a: np.ndarray, key: tuple, v: np.ndarray) -> np.ndarray:
    out = a.copy()
    out[key] = v
    return out


def _diag_put(a: np.ndarray, v: np.ndarray, offset: int, d1: int, d2: int) -> np.ndarray:
    out = np.moveaxis(a.copy(), (d1, d2), (-2, -1))
    n = v.shape[-1]
    i = np.arange(n)
    out[..., i + max(-offset, 0), i + max(offset, 0)] = v
    return np.moveaxis(out, (-2, -1), (d1, d2))


def _quantile_ref(fn: Callable) -> Callable:
    def ref(a: np.ndarray, q: Any, dim: Any = None, keepdim: bool = False, interpolation: str = "linear") -> np.ndarray:
        return np.asarray(fn(a, q, axis=dim, keepdims=keepdim, method=interpolation))

    return ref


_Q = Const(np.array([0.25, 0.75]))
_QUANTILE_SAMPLES = [s(r(2, 5), 0.3), s(r(3, 4), _Q, 1), s(r(3, 4), 0.5, 0, True), s(r(2, 3), _Q, None, True),
                     s(r(2, 3), 0.4, 1, interpolation="midpoint"), s(r(5), 0.6, interpolation="lower"),
                     s(r(5), 0.6, interpolation="higher"), s(r(5), 0.6, interpolation="nearest")]
op("quantile", _QUANTILE_SAMPLES, _quantile_ref(np.quantile))
op("nanquantile", _QUANTILE_SAMPLES, _quantile_ref(np.nanquantile))


def _combinations(a: np.ndarray, r_: int = 2, with_replacement: bool = False) -> np.ndarray:
    import itertools

    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    return np.array(list(pick(a, r_)))


op("combinations", [s(r(4)), s(r(3), 3), s(r(3), 2, True)], _combinations, method=False)
op("cosine_similarity", [s(r(2, 3), r(2, 3)), s(r(2, 3), r(1, 3), 1), s(r(3, 2), r(3, 2), 0)],
   lambda a, b, dim=1, eps=1e-8: (a * b).sum(dim) / np.maximum(np.linalg.norm(a, axis=dim) * np.linalg.norm(b, axis=dim), eps),
   method=False)
op("pairwise_distance", [s(r(2, 3), r(2, 3)), s(r(2, 3), r(2, 3), 1.0), s(r(4), r(4), 3.0, keepdim=True)],
   lambda a, b, p=2.0, eps=1e-6, keepdim=False: np.linalg.norm(a - b + eps, ord=p, axis=-1, keepdims=keepdim),
   method=False)


# -- tensorlib.linalg ---------------------------------------------------------------------------------


def _vector_norm(a: np.ndarray, ord: Any = 2, dim: Any = None, keepdim: bool = False) -> np.ndarray:
    if dim is None:
        return np.asarray(np.linalg.norm(a.reshape(-1), ord))
    axes = (dim,) if isinstance(dim, int) else tuple(dim)
    moved = np.moveaxis(a, axes, tuple(range(-len(axes), 0)))
    flat = moved.reshape(moved.shape[: moved.ndim - len(axes)] + (-1,))
    r = np.linalg.norm(flat, ord, axis=-1)
    return np.expand_dims(r, axes) if keepdim else r


op("linalg.vector_norm", [s(r(2, 3)), s(r(2, 3), 1), s(r(2, 3), 3, 1), s(r(2, 3), float("inf"), (0, 1)),
                          s(r(2, 3), 2, 0, True)], _vector_norm)
_matrix_norm = op("linalg.matrix_norm", [s(r(3, 3)), s(r(2, 3, 3), 1), s(r(3, 2), float("inf"))],
                  lambda a, ord="fro", dim=(-2, -1), keepdim=False: np.linalg.norm(a, ord, axis=dim, keepdims=keepdim),
                  rtol=1e-6)
# svdvals' backward (and so the nuclear norm's) treats the singular vectors as constants: no double backward yet
OPS.append(replace(_matrix_norm, samples=[s(r(2, 3), "nuc")], gradgrad=False))
op("linalg.norm", [s(r(2, 3)), s(r(2, 3), 1, 1), s(r(2, 3), "fro", (0, 1))], _norm)
op("linalg.inv", [s(_well_conditioned()), s(np.stack([_well_conditioned(), _well_conditioned()]))], np.linalg.inv,
   rtol=1e-6)
op("linalg.det", [s(_well_conditioned())], np.linalg.det, rtol=1e-6)
op("linalg.solve", [s(_well_conditioned(), r(3, 2)), s(np.stack([_well_conditioned(), _well_conditioned()]), r(2, 3, 1))],
   np.linalg.solve, rtol=1e-6)
op("linalg.svdvals", [s(r(3, 2)), s(r(2, 2, 3))], lambda a: np.linalg.svd(a, compute_uv=False), rtol=1e-6,
   gradgrad=False)
op("linalg.cross", [s(r(2, 3), r(2, 3)), s(r(3, 3), r(3, 3), dim=0)],
   lambda a, b, dim=-1: np.cross(a, b, axis=dim))
op("linalg.matmul", [s(r(2, 3), r(3, 4)), s(r(2, 2, 3), r(3, 2))], np.matmul)


# -- forward-only entries: ops without a gradient (comparisons, logic, integer results) ---------------


def ints(*shape: int, lo: int = -5, hi: int = 6) -> np.ndarray:
    return np.asarray(_rng.integers(lo, hi, shape), dtype=np.int64)


def bools(*shape: int) -> np.ndarray:
    return np.asarray(_rng.integers(0, 2, shape), dtype=bool)


def _ties(*shape: int) -> np.ndarray:
    """Floats with repeats and special values (comparisons, isfinite, unique)."""
    return np.asarray(_rng.choice([-2.0, -0.5, 0.0, 0.5, 2.0, np.inf, -np.inf, np.nan], shape))


def forward_only(name: str, samples: list[Sample], ref: Callable | None, **kw: Any) -> OpInfo:
    return op(name, samples, ref, grad=False, **kw)


_COMPARE = [s(r(2, 3), r(2, 3)), s(r(2, 3), r(3)), s(_ties(2, 3), _ties(2, 3)), s(r(2, 3), 0.25), s(ints(2, 3), ints(3))]
for _name, _np in (("eq", np.equal), ("ne", np.not_equal), ("lt", np.less), ("le", np.less_equal),
                   ("gt", np.greater), ("ge", np.greater_equal)):
    _entry = forward_only(_name, _COMPARE, _np)
for _alias, _of in (("not_equal", "ne"), ("less", "lt"), ("less_equal", "le"), ("greater", "gt"),
                    ("greater_equal", "ge")):
    alias(_alias, next(i for i in OPS if i.name == _of))

_LOGIC = [s(bools(2, 3), bools(2, 3)), s(ints(2, 3), ints(3)), s(_ties(2, 3), r(2, 3))]
for _name, _np in (("logical_and", np.logical_and), ("logical_or", np.logical_or), ("logical_xor", np.logical_xor)):
    forward_only(_name, _LOGIC, _np)
forward_only("logical_not", [s(bools(2, 3)), s(ints(4)), s(_ties(2, 3))], np.logical_not)
_BITWISE = [s(ints(2, 3), ints(2, 3)), s(bools(2, 3), bools(3)), s(ints(2, 3), 3)]
for _name, _np in (("bitwise_and", np.bitwise_and), ("bitwise_or", np.bitwise_or), ("bitwise_xor", np.bitwise_xor)):
    forward_only(_name, _BITWISE, _np)
forward_only("bitwise_not", [s(ints(2, 3)), s(bools(4))], np.invert)
_SHIFTS = [s(ints(2, 3, lo=0, hi=50), ints(2, 3, lo=0, hi=5)), s(ints(4, lo=-20, hi=20), 2)]
forward_only("bitwise_left_shift", _SHIFTS, np.left_shift)
forward_only("bitwise_right_shift", _SHIFTS, np.right_shift)

_PREDICATES = [s(_ties(2, 4)), s(r(3)), s(ints(3))]
for _name, _np in (("isnan", np.isnan), ("isinf", np.isinf), ("isfinite", np.isfinite), ("isposinf", np.isposinf),
                   ("isneginf", np.isneginf), ("signbit", np.signbit)):
    forward_only(_name, _PREDICATES, _np)
forward_only("isclose", [s(r(2, 3), r(2, 3)), s(_ties(2, 3), _ties(2, 3), equal_nan=True),
                         s(r(3), r(3) + 1e-9, rtol=0.0, atol=1e-6)],
             lambda a, b, rtol=1e-5, atol=1e-8, equal_nan=False: np.isclose(a, b, rtol, atol, equal_nan))
forward_only("heaviside", [s(Const(_ties(2, 3)), Const(r(2, 3))), s(Const(r(4)), Const(r(1)))], np.heaviside)

_BOOL_REDUCE = [s(bools(2, 3)), s(bools(2, 3), 1), s(bools(2, 3), 0, True), s(_ties(3, 2), 0), s(ints(4))]
forward_only("all", _BOOL_REDUCE, lambda a, dim=None, keepdim=False: np.all(a, axis=dim, keepdims=keepdim))
forward_only("any", _BOOL_REDUCE, lambda a, dim=None, keepdim=False: np.any(a, axis=dim, keepdims=keepdim))
forward_only("count_nonzero", [s(ints(3, 4)), s(ints(3, 4), 1), s(bools(2, 3), (0, 1))],
             lambda a, dim=None: np.asarray(np.count_nonzero(a, axis=dim), dtype=np.int64))
forward_only("argmax", [s(r(3, 4)), s(r(3, 4), 1), s(r(3, 4), 0, True), s(ints(5))],
             lambda a, dim=None, keepdim=False: np.argmax(a, axis=dim, keepdims=keepdim))
forward_only("argmin", [s(r(3, 4)), s(r(3, 4), 1), s(r(3, 4), 0, True), s(ints(5))],
             lambda a, dim=None, keepdim=False: np.argmin(a, axis=dim, keepdims=keepdim))
forward_only("argsort", [s(r(3, 4)), s(r(3, 4), 0), s(r(5), descending=True)],
             lambda a, dim=-1, descending=False: np.argsort(-a if descending else a, axis=dim, kind="stable"))
forward_only("nonzero", [s(ints(3, 4)), s(bools(5)), s(_ties(2, 2))], lambda a: np.argwhere(a))
forward_only("argwhere", [s(ints(3, 4)), s(bools(5))], lambda a: np.argwhere(a))
forward_only("bincount", [s(ints(6, lo=0, hi=4)), s(ints(5, lo=0, hi=3), minlength=5),
                          s(ints(4, lo=0, hi=3), Const(r(4)))],
             lambda a, weights=None, minlength=0: np.bincount(a, weights, minlength))
_EDGES = np.array([-1.0, 0.0, 0.5, 1.5])
forward_only("bucketize", [s(r(2, 3), Const(_EDGES)), s(r(5), Const(_EDGES), right=True)],
             lambda a, b, right=False: np.searchsorted(b, a, side="right" if right else "left"), method=False)
forward_only("searchsorted", [s(Const(_EDGES), r(2, 3)), s(Const(_EDGES), r(5), right=True)],
             lambda b, a, right=False: np.searchsorted(b, a, side="right" if right else "left"), method=False)
# float inputs as constants: torch records a node for them whose backward is not implemented
forward_only("unique", [s(ints(8, lo=0, hi=4)), s(Const(_ties(6)))], lambda a: np.unique(a))
forward_only("unique_consecutive", [s(np.array([1, 1, 2, 2, 3, 1, 1], dtype=np.int64)), s(Const(np.array([0.5, 0.5, -1.0])))],
             lambda a: a[np.concatenate([[True], a[1:] != a[:-1]])])
forward_only("histc", [s(r(20)), s(r(20), 4, -1.0, 1.0)],
             lambda a, bins=100, min=0, max=0: np.histogram(a, bins, (a.min(), a.max()) if min == max == 0
                                                           else (min, max))[0].astype(a.dtype))
forward_only("zeros_like", [s(r(2, 3)), s(ints(4))], np.zeros_like)
forward_only("ones_like", [s(r(2, 3)), s(bools(4))], np.ones_like)
forward_only("full_like", [s(r(2, 3), 2.5), s(ints(4), 7)], np.full_like)


# -- what is not in the table -------------------------------------------------------------------------

# Public functions whose results the table cannot compare: random ones, uninitialised memory, results that are
# not tensors (predicates, dtypes, counts), and ``imag`` (complex inputs only). Each has tests of its own.
NOT_IN_TABLE = set(
    """bernoulli multinomial normal poisson rand_like randint_like randn_like empty_like allclose equal is_complex
    is_floating_point is_nonzero numel result_type imag""".split()
)
# The recurrences behind nn.RNN / LSTM / GRU (torch._VF's): tuples of results from a list of weights, tested with
# their layers in tests/nn (gradcheck included) and for dispatch in tests/parity/torch_function/test_rnn.py.
NOT_IN_TABLE |= {"rnn_tanh", "rnn_relu", "lstm", "gru"}

# Entries kept in their own files, one per area (tests/ops/tables/), so that areas grow independently.
for _module in pkgutil.iter_modules(_tables.__path__):
    NOT_IN_TABLE |= getattr(importlib.import_module(f"{_tables.__name__}.{_module.name}"), "NOT_IN_TABLE", set())

BY_NAME: dict[str, list[OpInfo]] = {}
for _info in OPS:
    BY_NAME.setdefault(_info.name, []).append(_info)


def _cases() -> tuple[list, list]:
    cases, ids, seen = [], [], {}
    for info in OPS:
        for sample in info.samples:
            k = seen.get(info.name, 0)
            seen[info.name] = k + 1
            cases.append((info, sample))
            ids.append(f"{info.name}[{k}]")
    return cases, ids


CASES, CASE_IDS = _cases()
