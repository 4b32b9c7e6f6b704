"""``tensorlib.autograd.gradcheck``: the module, for ``from tensorlib.autograd.gradcheck import GradcheckError``.

As in torch, ``tensorlib.autograd.gradcheck`` itself names the function; this
module is what the dotted import path finds.
"""

from .._autograd.gradcheck import GradcheckError, gradcheck, gradgradcheck

__all__ = ["GradcheckError", "gradcheck", "gradgradcheck"]
