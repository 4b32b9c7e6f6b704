"""Weight normalization (Salimans & Kingma, 2016) in torch's hook-based form: ``weight = g * v / ||v||``."""

from __future__ import annotations

import warnings
from typing import Any, TypeVar

from ..._registry import NN_UTILS, public
from ..._tensor import Tensor
from ..modules.module import Module
from ..parameter import Parameter

__all__ = ["WeightNorm", "remove_weight_norm", "weight_norm"]

T_module = TypeVar("T_module", bound=Module)


def norm_except_dim(v: Tensor, pow: float = 2, dim: int = 0) -> Tensor:  # noqa: A002
    """torch's ``norm_except_dim``: the ``pow``-norm of ``v`` over every dimension but ``dim``, kept as size-1
    dimensions; ``dim=-1`` means over the whole tensor (a 0-d result)."""
    if dim == -1:
        return v.norm(pow)
    if dim == 0:
        return v.contiguous().reshape(v.shape[0], -1).norm(pow, 1).reshape([v.shape[0]] + [1] * (v.dim() - 1))
    if dim == v.dim() - 1:
        return v.contiguous().reshape(-1, v.shape[-1]).norm(pow, 0).reshape([1] * (v.dim() - 1) + [v.shape[-1]])
    return norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)


def _weight_norm(v: Tensor, g: Tensor, dim: int = 0) -> Tensor:
    """``v * (g / norm_except_dim(v, 2, dim))`` (torch's ``_weight_norm``), differentiable in ``v`` and ``g``."""
    return v * (g / norm_except_dim(v, 2, dim))


class WeightNorm:
    """The forward pre-hook that recomputes ``module.<name>`` from ``<name>_g`` and ``<name>_v``."""

    name: str
    dim: int

    def __init__(self, name: str, dim: int | None) -> None:
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module: Module) -> Tensor:
        return _weight_norm(getattr(module, self.name + "_v"), getattr(module, self.name + "_g"), self.dim)

    @staticmethod
    def apply(module: Module, name: str, dim: int | None) -> "WeightNorm":
        warnings.warn("`tensorlib.nn.utils.weight_norm` is deprecated in favor of "
                      "`tensorlib.nn.utils.parametrizations.weight_norm`.", FutureWarning, stacklevel=3)
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        del module._parameters[name]
        module.register_parameter(name + "_g", Parameter(norm_except_dim(weight, 2, fn.dim).data))
        module.register_parameter(name + "_v", Parameter(weight.data))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module: Module) -> None:
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.data))

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module))


@public(namespace=NN_UTILS)
def weight_norm(module: T_module, name: str = "weight", dim: int | None = 0) -> T_module:
    """Reparametrize ``module.<name>`` as ``g * v / ||v||``: parameters ``<name>_g`` (the norms, one per slice
    along ``dim``, or one for the whole tensor when ``dim`` is None) and ``<name>_v`` (the direction); a forward
    pre-hook recomputes the weight before each call. Deprecated in torch (a FutureWarning) for
    ``parametrizations.weight_norm``."""
    WeightNorm.apply(module, name, dim)
    return module


@public(namespace=NN_UTILS)
def remove_weight_norm(module: T_module, name: str = "weight") -> T_module:
    """Undo :func:`weight_norm`: ``module.<name>`` becomes a plain parameter again, with the current weight."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")
