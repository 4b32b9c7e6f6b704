"""``tensorlib.nn``: modules, parameters, functional forms and initialisers."""

from . import functional, init, modules as _modules, utils
from .modules import *  # noqa: F401,F403
from .parameter import Buffer, Parameter

__all__ = ["Buffer", "Parameter", "functional", "init", "utils"]
__all__ += _modules.__all__
