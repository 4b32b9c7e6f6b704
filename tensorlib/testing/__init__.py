"""Testing helpers in torch.testing's image: :func:`assert_close` and :func:`make_tensor`.

Neither dispatches through ``__torch_function__`` (torch does not make them
overridable either): they are listed by ``tensorlib.overrides.get_ignored_functions()``.
"""

from __future__ import annotations

from ._comparison import assert_close
from ._creation import make_tensor
from .._namespace import build as _build

__all__ = ["assert_close", "make_tensor"]

_build(__name__)
