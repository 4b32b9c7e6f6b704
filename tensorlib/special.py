"""``tensorlib.special``: special functions, as ``torch.special`` names them.

Several are the same operations as functions of ``tensorlib`` under the
names SciPy made common (``expit`` is :func:`tensorlib.sigmoid`); each is
still its own overridable function, as in torch.
"""

from __future__ import annotations

from ._namespace import expose as _expose
from .ops import activation as _A
from .ops import elementwise as _E
from .ops import reduction as _R
from .ops import special as _S

_FUNCTIONS = {
    "expit": _S.expit,
    "logit": _S.logit,
    "erf": _A.erf,
    "erfc": _A.erfc,
    "erfinv": _A.erfinv,
    "ndtr": _S.ndtr,
    "entr": _S.entr,
    "xlogy": _S.xlogy,
    "xlog1py": _S.xlog1py,
    "sinc": _S.sinc,
    "exp2": _E.exp2,
    "expm1": _E.expm1,
    "log1p": _E.log1p,
    "round": _E.round,
    "logsumexp": _R.logsumexp,
    "softmax": _S.special_softmax,
    "log_softmax": _S.special_log_softmax,
}

globals().update(_expose(__name__, _FUNCTIONS))

__all__ = sorted(_FUNCTIONS)
