"""``tensorlib.special``: special functions, as ``torch.special`` names them.

Several are the same operations as functions of ``tensorlib`` under the
names SciPy made common (``expit`` is :func:`tensorlib.sigmoid`); each is
still its own overridable function, as in torch.
"""

from __future__ import annotations

import math
from typing import Any

from ._namespace import expose as _expose
from ._tensor import Tensor
from .ops import activation as _A
from .ops import elementwise as _E
from .ops import reduction as _R
from .ops import special as _S

_INV_SQRT2 = 1.0 / math.sqrt(2.0)


def expit(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The logistic sigmoid ``1 / (1 + exp(-x))``."""
    return _E.sigmoid(input, out=out)


def ndtr(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The standard normal distribution function: the area under the Gaussian density left of ``x``."""
    return _E.mul(_A.erfc(_E.mul(input, -_INV_SQRT2)), 0.5, out=out)


def softmax(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """``exp(x) / sum(exp(x))`` along ``dim``."""
    return _A.softmax(input, dim, dtype)


def log_softmax(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """``log(softmax(x))`` along ``dim``, computed stably."""
    return _A.log_softmax(input, dim, dtype)


_FUNCTIONS = {
    "expit": expit,
    "logit": _S.logit,
    "erf": _A.erf,
    "erfc": _A.erfc,
    "ndtr": ndtr,
    "entr": _S.entr,
    "xlogy": _S.xlogy,
    "xlog1py": _S.xlog1py,
    "sinc": _S.sinc,
    "exp2": _E.exp2,
    "expm1": _E.expm1,
    "log1p": _E.log1p,
    "round": _E.round,
    "logsumexp": _R.logsumexp,
    "softmax": softmax,
    "log_softmax": log_softmax,
}

globals().update(_expose(__name__, _FUNCTIONS))

__all__ = sorted(_FUNCTIONS)
del Any, Tensor  # only needed by the annotations above; every public name here is a special function
