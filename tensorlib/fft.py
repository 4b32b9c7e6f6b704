"""``tensorlib.fft``: discrete Fourier transforms, as ``torch.fft`` names them (declared in :mod:`tensorlib.ops.fft`).

Every transform takes torch's ``n``/``s``, ``dim``, ``norm`` (``"backward"``, ``"ortho"``, ``"forward"``) and ``out=``,
promotes integer inputs to the default float dtype, and is differentiable to any order.
"""

from __future__ import annotations

from . import ops as _ops  # noqa: F401  (declares this namespace's functions)
from ._namespace import build as _build

__all__ = sorted(_build(__name__))
