"""tensorlib: a NumPy-backed tensor library with autograd, in PyTorch's image.

Every public function, Tensor method, operator and property here is
overridable through the ``__torch_function__`` protocol (see
:mod:`tensorlib.overrides`); the few that are not are listed by
``tensorlib.overrides.get_ignored_functions()``.
"""

from __future__ import annotations

import builtins as _builtins

from . import _dtype
from ._autograd.anomaly_mode import is_anomaly_check_nan_enabled as _is_anomaly_check_nan_enabled
from ._autograd.anomaly_mode import is_anomaly_enabled as _is_anomaly_enabled
from ._autograd.grad_mode import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from ._dtype import (
    bool,
    complex64,
    complex128,
    dtype,
    float16,
    float32,
    float64,
    get_default_dtype,
    int8,
    int16,
    int32,
    int64,
    promote_types,
    set_default_dtype,
    uint8,
)
from ._methods import OPERATORS as _OPERATORS
from ._methods import OWN_METHODS as _OWN_METHODS
from ._methods import SAME_AS_FUNCTION as _SAME_AS_FUNCTION
from ._methods import method_signature as _method_signature
from ._namespace import expose as _expose
from ._namespace import expose_to_modes as _expose_to_modes
from ._namespace import make_methods_overridable as _make_methods_overridable
from ._namespace import register_ignored as _register_ignored
from ._protocol import protocol as _protocol
from ._repr import set_printoptions
from ._size import Size
from ._tensor import Tensor, _NO_WRAP, device
from ._legacy import LEGACY_TYPES as _LEGACY_TYPES
from ._typeinfo import finfo, iinfo
from .ops import activation as _A
from .ops import creation as _C
from .ops import elementwise as _E
from .ops import indexing as _I
from .ops import linalg as _L
from .ops import reduction as _R
from .ops import shape as _S
from .ops.creation import Generator, default_generator
from .serialization import load, save

# torch's dtype aliases
half = float16
float = float32  # noqa: A001
double = float64
short = int16
int = int32  # noqa: A001
long = int64
cfloat = complex64
cdouble = complex128

strided = "tensorlib.strided"
__version__ = "0.1.0"

Tensor.__module__ = __name__
Size.__module__ = __name__
dtype.__module__ = __name__
device.__module__ = __name__


def _names(module: object, names: str) -> dict:
    return {n: getattr(module, n) for n in names.split()}


def reshape(input: Tensor, shape: tuple) -> Tensor:
    """The elements of ``input`` in a new shape (a view when possible)."""
    return _S.reshape(input, shape)


def permute(input: Tensor, dims: tuple) -> Tensor:
    """``input`` with its dims reordered (a view)."""
    return _S.permute(input, dims)


def result_type(tensor1: object, tensor2: object) -> dtype:
    """The dtype an arithmetic op between the two operands would produce."""
    from .ops._util import result_dtype

    return result_dtype(tensor1, tensor2)


def is_floating_point(input: Tensor) -> bool:
    """Whether ``input`` has a floating point dtype."""
    return _E.tensor_arg(input, "is_floating_point")._data.dtype.kind == "f"


def is_complex(input: Tensor) -> bool:
    """Whether ``input`` has a complex dtype."""
    return _E.tensor_arg(input, "is_complex")._data.dtype.kind == "c"


def is_nonzero(input: Tensor) -> bool:
    """The truth value of a one-element tensor."""
    x = _E.tensor_arg(input, "is_nonzero")
    if x._data.size != 1:
        raise RuntimeError(
            "Boolean value of Tensor with no values is ambiguous" if x._data.size == 0
            else "Boolean value of Tensor with more than one value is ambiguous"
        )
    return _builtins.bool(x._data.reshape(()).item())


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """Cosine of the angle between ``x1`` and ``x2`` along ``dim`` (as ``nn.functional.cosine_similarity``)."""
    from .nn._functional import cosine_similarity as _cos

    return _cos(x1, x2, dim, eps)


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor:
    """``p``-norm of ``x1 - x2 + eps`` along the last dim (as ``nn.functional.pairwise_distance``)."""
    from .nn._functional import pairwise_distance as _pd

    return _pd(x1, x2, p, eps, keepdim)


def can_cast(from_: dtype, to: dtype) -> _builtins.bool:
    """Whether torch's casting rules allow ``from_`` to be cast to ``to`` in an in-place op."""
    order = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}
    return order[from_.np.kind] <= order[to.np.kind]


_OVERRIDABLE = {
    **_names(_E, """add sub subtract rsub mul multiply div divide true_divide floor_divide remainder fmod pow
        float_power neg negative abs absolute exp exp2 expm1 log log2 log10 log1p sqrt rsqrt sin cos tan asin acos atan
        sinh cosh tanh asinh acosh atanh sigmoid reciprocal square relu floor ceil trunc fix frac sign sgn round conj
        real imag lerp maximum minimum fmax fmin clamp clip clamp_min clamp_max where eq ne lt le gt ge greater
        greater_equal less less_equal not_equal logical_and logical_or logical_xor logical_not bitwise_and bitwise_or
        bitwise_xor bitwise_not isnan isinf isfinite isposinf isneginf isclose allclose equal nan_to_num clone
        positive abs_ exp_ exp2_ expm1_ log_ log2_ log10_ log1p_ sqrt_ rsqrt_ sin_ cos_ tan_ asin_ acos_ atan_ sinh_
        cosh_ tanh_ asinh_ acosh_ atanh_ sigmoid_ reciprocal_ square_ relu_ floor_ ceil_ trunc_ fix_ frac_ round_
        neg_ negative_ clamp_ clip_ clamp_min_ clamp_max_ nan_to_num_ atan2 arctan2 hypot logaddexp logaddexp2 xlogy
        xlogy_ copysign deg2rad deg2rad_ rad2deg rad2deg_ sinc sinc_ logit logit_ angle signbit heaviside addcmul addcdiv
        arccos arccos_ arcsin arcsin_ arctan arctan_ arccosh arccosh_ arcsinh arcsinh_ arctanh arctanh_
        bitwise_left_shift bitwise_right_shift"""),
    **_names(_R, """sum mean nansum nanmean prod max min amax amin aminmax argmax argmin var std var_mean std_mean
        logsumexp all any count_nonzero cumsum cumprod median mode cummax cummin logcumsumexp diff dist nanmedian
        quantile nanquantile histc"""),
    **_names(_L, """mm matmul bmm mv dot vdot inner outer ger addmm addmv baddbmm tensordot einsum tril triu trace
        norm cross cdist addmv_ kron addr addbmm matrix_power logdet inverse det"""),
    **_names(_S, """flatten unflatten squeeze unsqueeze transpose swapaxes swapdims t movedim moveaxis broadcast_to
        broadcast_tensors narrow select unbind split chunk tensor_split cat concat concatenate stack hstack vstack
        atleast_1d atleast_2d flip fliplr flipud roll tile repeat_interleave diagonal diag diag_embed adjoint ravel
        narrow_copy rot90 hsplit vsplit dsplit atleast_3d column_stack dstack row_stack meshgrid cartesian_prod block_diag
        diagflat combinations"""),
    **_names(_I, """gather scatter scatter_add index_select index_add index_fill index_put masked_fill masked_select
        masked_scatter nonzero argwhere argsort sort msort topk kthvalue unique take take_along_dim bincount
        searchsorted bucketize index_put_ index_copy select_scatter slice_scatter diagonal_scatter unique_consecutive
        scatter_reduce"""),
    **_names(_A, "softmax log_softmax erf erfc erfinv erf_ erfc_ erfinv_"),
    **_names(_C, """zeros_like ones_like empty_like full_like rand_like randn_like randint_like normal bernoulli
        multinomial poisson numel"""),
    "reshape": reshape,
    "permute": permute,
    "result_type": result_type,
    "is_floating_point": is_floating_point,
    "is_complex": is_complex,
    "is_nonzero": is_nonzero,
    "cosine_similarity": cosine_similarity,
    "pairwise_distance": pairwise_distance,
}

_IGNORED = {
    **_names(_C, """tensor as_tensor asarray from_numpy is_tensor zeros ones empty full eye arange linspace logspace
        rand randn randint randperm manual_seed seed initial_seed get_rng_state set_rng_state tril_indices
        triu_indices"""),
    "broadcast_shapes": _S.broadcast_shapes,
    "can_cast": can_cast,
    "save": save,
    "load": load,
    "is_anomaly_enabled": _is_anomaly_enabled,
    "is_anomaly_check_nan_enabled": _is_anomaly_check_nan_enabled,
    **_LEGACY_TYPES,
}

globals().update(_expose(__name__, _OVERRIDABLE))
globals().update(_IGNORED)
# Factories have no tensor argument to dispatch on, but modes see them (as in torch).
globals().update(_expose_to_modes(__name__, """tensor as_tensor asarray zeros ones empty full eye arange linspace
    logspace rand randn randint randperm can_cast promote_types""".split()))
_register_ignored(
    __name__,
    list(_IGNORED)
    + """get_default_dtype set_default_dtype promote_types set_printoptions is_grad_enabled no_grad enable_grad
    set_grad_enabled inference_mode Tensor Size dtype device Generator finfo iinfo""".split(),
)

# Tensor: methods that are functions, methods of their own, operators, and the class's own methods/properties.
_make_methods_overridable(
    Tensor,
    extra={**_OWN_METHODS, **_OPERATORS},
    from_functions=_SAME_AS_FUNCTION,
    signature_of=_method_signature,
    # As in torch, as_subclass and __iter__ do not dispatch (see Tensor.__iter__).
    skip={"__new__", "__init__", "__torch_function__", "__hash__", "as_subclass", "__iter__"},
)
_protocol.add_plain_type(Tensor, primary=True)
for _t in (Size, dtype, device):
    _protocol.add_plain_type(_t)
_NO_WRAP.add(Tensor.grad.__get__)

from . import autograd, nn, optim, overrides, return_types, serialization, utils  # noqa: E402
from . import distributions, linalg, special  # noqa: E402
from . import overrides as _overrides  # noqa: E402  (torch's historical spelling)

__all__ = sorted(
    [n for n in _OVERRIDABLE]
    + [n for n in _IGNORED]
    + """Tensor Size dtype device Generator default_generator no_grad enable_grad set_grad_enabled is_grad_enabled
    inference_mode get_default_dtype set_default_dtype promote_types set_printoptions bool uint8 int8 int16 int32
    int64 float16 float32 float64 complex64 complex128 half float double short int long cfloat cdouble autograd nn
    optim overrides linalg special distributions return_types finfo iinfo serialization utils""".split()
)
