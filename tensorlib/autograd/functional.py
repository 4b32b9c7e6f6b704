"""``tensorlib.autograd.functional``: Jacobians, Hessians and vector products of Python functions.

Differentiation machinery: it takes functions and tensors but is not itself
overridable, as in torch (declared in :mod:`tensorlib._autograd.functional`).
"""

from .._autograd import functional as _functional  # noqa: F401  (declares this namespace)
from .._namespace import build as _build

__all__ = sorted(_build(__name__))
