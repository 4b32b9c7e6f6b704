"""``tensorlib.nn``: modules, parameters, functional forms and initialisers."""

from . import functional, init, modules as _modules, parallel, utils
from .modules import *  # noqa: F401,F403
from .parallel import DataParallel
from .parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter

__all__ = ["Buffer", "DataParallel", "Parameter", "UninitializedBuffer", "UninitializedParameter", "functional", "init",
           "parallel", "utils"]
__all__ += _modules.__all__
