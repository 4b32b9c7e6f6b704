"""``tensorlib._VF``, as ``torch._VF``: the functions of tensorlib's namespace, read from it when called.

torch's layers call their functions through this module (``_VF.rnn_tanh(...)``). The layers are imported
while ``tensorlib`` is being built, before its public functions exist, so the names are resolved at call time;
each one is the very object ``tensorlib.<name>`` (same identity, same dispatch).
"""

from __future__ import annotations

import sys
from typing import Any


def __getattr__(name: str) -> Any:
    try:
        return getattr(sys.modules[__name__.rpartition(".")[0]], name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
