"""``tensorlib.nn``: modules, parameters, functional forms and initialisers."""

from . import functional, init, utils
from . import modules as _modules
from .modules import *  # noqa: F401,F403
from .parameter import Buffer, Parameter

__all__ = ["Buffer", "Parameter", "functional", "init", "utils"] + sorted(
    n for n, v in vars(_modules).items() if isinstance(v, type) and not n.startswith("_")
)
