"""``tensorlib.autograd.variable``: where ``Variable`` lives in torch. (``tensorlib.autograd.variable``, the
attribute, is the deprecated function of that name, as in torch: import the class from here or from
``tensorlib.autograd``.)"""

from .._autograd.variable import Variable

__all__ = ["Variable"]
