"""``tensorlib.autograd.functional``: Jacobians, Hessians and vector products of Python functions."""

from .._autograd.functional import hessian, hvp, jacobian, jvp, vhp, vjp
from .._namespace import register_ignored as _register_ignored

# Differentiation machinery: takes functions and tensors but is not itself overridable, as in torch.
_register_ignored(__name__, ["hessian", "hvp", "jacobian", "jvp", "vhp", "vjp"])

__all__ = ["hessian", "hvp", "jacobian", "jvp", "vhp", "vjp"]
