"""``tensorlib.nn``: modules, parameters, functional forms and initialisers.

``import tensorlib`` imports this package only for its private modules, which
declare the top-level forms of layers and losses (``tensorlib.conv2d``, ...).
The public parts (``functional``, the module classes, ``init``, ``utils``...)
load on first use of any of them: a program that only computes gradients does
not pay for them at import.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from dispatch import save_code_cache as _save_code_cache

from .._protocol import protocol as _protocol

if TYPE_CHECKING:
    from . import functional as functional, init as init, modules as modules, parallel as parallel, utils as utils
    from .modules import *  # noqa: F403
    from .parallel import DataParallel as DataParallel
    from .parameter import (
        Buffer as Buffer,
        Parameter as Parameter,
        UninitializedBuffer as UninitializedBuffer,
        UninitializedParameter as UninitializedParameter,
    )

_SUBMODULES = frozenset({"functional", "init", "modules", "parallel", "parameter", "utils"})
_OWN = ["Buffer", "DataParallel", "Parameter", "UninitializedBuffer", "UninitializedParameter", "functional", "init",
        "parallel", "utils"]
_state = {"loaded": False, "loading": False}


def load() -> None:
    """Import every public part of ``tensorlib.nn`` and bind its names here (done once, on first use)."""
    if _state["loaded"] or _state["loading"]:
        return
    _state["loading"] = True
    try:
        parts = {name: importlib.import_module(f".{name}", __name__) for name in sorted(_SUBMODULES)}
        names: dict[str, Any] = {name: getattr(parts["modules"], name) for name in parts["modules"].__all__}
        names.update(DataParallel=parts["parallel"].DataParallel)
        names.update({n: getattr(parts["parameter"], n)
                      for n in ("Buffer", "Parameter", "UninitializedBuffer", "UninitializedParameter")})
        globals().update(names, __all__=_OWN + list(parts["modules"].__all__))
        _state["loaded"] = True
    finally:
        _state["loading"] = False
    _save_code_cache()  # keep the wrappers of the namespaces built just now, as tensorlib/__init__ does


# listing the overridable functions (tensorlib.overrides, python -m dispatch coverage) includes nn's
_protocol.registry.add_loader(load)


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:  # importing a submodule binds it here: this runs once per name
        return importlib.import_module(f".{name}", __name__)
    if not _state["loading"] and (name == "__all__" or not name.startswith("_")):  # private names: submodules
        load()
        if name in globals():
            return globals()[name]
    raise AttributeError(f"module 'tensorlib.nn' has no attribute {name!r}")


def __dir__() -> list[str]:
    load()
    return sorted(globals())
