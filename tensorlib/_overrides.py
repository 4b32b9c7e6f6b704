"""``tensorlib._overrides``: the module name the seed documents (same objects as :mod:`tensorlib.overrides`)."""

from .overrides import *  # noqa: F401,F403
from .overrides import __all__  # noqa: F401
