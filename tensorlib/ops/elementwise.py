"""Elementwise ops: arithmetic, math functions, comparisons, clamp, where, dtype casts.

Each family has its own module; this one re-exports them all, so ``from . import
elementwise as E`` and ``E.add`` keep working (the objects are the same):

- ``_pointwise``: what every op shares (``reduce_to``, ``_finish``, ``inplace_apply``, ...)
- ``arithmetic``: add, sub, mul, div, remainder, fmod, pow, float_power
- ``unary``: the ``_unary`` factory and exp, log, sqrt, trig, sigmoid, relu, round, neg, conj, real, imag, ...
- ``comparison``: eq/lt/..., logical and bitwise ops, isnan/isinf/isclose, equal, nan_to_num
- ``selection``: maximum/minimum, clamp, where, lerp
- ``conversion``: to_dtype, clone, positive, zeros_like
- ``special``: atan2, hypot, logaddexp, xlogy, copysign, sinc, logit, heaviside, addcmul, addcdiv, ...
- ``inplace``: the fast in-place arithmetic (add_, mul_, ...), fill_, copy_, zero_

Each differentiable op records a node whose ``backward`` is written with these
same ops, so gradients of gradients work. Gradients of broadcast operands are
summed back to the operand's shape (``reduce_to``).

Import order: ``tensorlib`` imports this module before any family module. Importing a
family module first can fail: ``reduction`` (which ``_pointwise`` imports) imports
this module, and this module needs every family fully loaded.
"""

from __future__ import annotations

from ._util import (  # noqa: F401 - re-exported
    not_implemented, tensor_arg, type_title, write_out,
)
from ._pointwise import (  # noqa: F401 - re-exported
    commit_inplace, inplace_apply, _meta, reduce_to, _type_title, ZeroGradBackward, zeros_like_meta,
)
from .conversion import (  # noqa: F401 - re-exported
    clone, CloneBackward0, full_like_scalar, positive, to_dtype, ToCopyBackward0, zeros_like,
)
from .arithmetic import (  # noqa: F401 - re-exported
    add, AddBackward0, div, DivBackward0, divide, float_power, floor_divide, fmod, FmodBackward0, mul, MulBackward0, multiply, pow, PowBackward0, PowBackward1, remainder, RemainderBackward0, rsub, sub, SubBackward0, subtract, true_divide,
)
from .comparison import (  # noqa: F401 - re-exported
    allclose, bitwise_and, bitwise_left_shift, bitwise_not, bitwise_or, bitwise_right_shift, bitwise_xor, eq, equal, ge, gt, isclose, isfinite, isinf, isnan, isneginf, isposinf, le, logical_and, logical_not, logical_or, logical_xor, lt, MaskedGradBackward, nan_to_num, ne,
)
from .unary import (  # noqa: F401 - re-exported
    abs, acos, acosh, asin, asinh, atan, atanh, ceil, conj, ConjBackward0, cos, cosh, exp, exp2, expm1, floor, frac, imag, log, log10, log1p, log2, neg, NegBackward0, real, _real_in_float, RealBackward0, reciprocal, relu, round, RoundBackward0, rsqrt, sgn, sigmoid, sign, sin, sinh, sqrt, square, tan, tanh, trunc, _unary,
)
from .selection import (  # noqa: F401 - re-exported
    clamp, clamp_, clamp_max, clamp_min, ClampBackward0, ClampBackward1, clip, clip_, fmax, fmin, lerp, LerpBackward0, maximum, MaximumBackward0, minimum, where, WhereBackward0,
)
from .special import (  # noqa: F401 - re-exported
    addcdiv, addcdiv_, addcmul, addcmul_, angle, atan2, copysign, deg2rad, heaviside, heaviside_, hypot, logaddexp, logaddexp2, logit, logit_, LogitBackward0, rad2deg, signbit, sinc, xlogy,
)
from .inplace import (  # noqa: F401 - re-exported
    add_, clamp_max_, clamp_min_, copy_, CopyBackwards, div_, fill_, FillBackward, float_power_, floor_divide_, fmod_, lerp_, mul_, nan_to_num_, pow_, remainder_, sub_, zero_,
)
