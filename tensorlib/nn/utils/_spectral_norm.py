"""Spectral normalization (Miyato et al., 2018) in torch's hook-based form: ``weight / sigma(weight)``, the
largest singular value estimated by power iteration with the vectors ``<name>_u`` and ``<name>_v`` kept as
buffers and refined in place by every forward call in training mode."""

from __future__ import annotations

from typing import Any, TypeVar

import numpy as np

from ..._autograd.grad_mode import no_grad
from ..._registry import NN_UTILS, public
from ..._tensor import Tensor, _wrap, bump_version
from ..modules.conv import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from ..modules.module import Module
from ..parameter import Parameter

__all__ = ["SpectralNorm", "remove_spectral_norm", "spectral_norm"]

T_module = TypeVar("T_module", bound=Module)


def _normalize_into(x: np.ndarray, eps: float, out: np.ndarray) -> np.ndarray:
    """``F.normalize(x, dim=0, eps=eps, out=out)`` for a vector."""
    np.divide(x, max(float(np.sqrt(np.sum(x * x))), eps), out=out, casting="unsafe")
    return out


class SpectralNorm:
    """The forward pre-hook that sets ``module.<name>`` to ``<name>_orig / sigma``."""

    _version: int = 1
    name: str
    dim: int
    n_power_iterations: int
    eps: float

    def __init__(self, name: str = "weight", n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12) -> None:
        self.name = name
        self.dim = dim
        if n_power_iterations <= 0:
            raise ValueError(
                f"Expected n_power_iterations to be positive, but got n_power_iterations={n_power_iterations}"
            )
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        """The weight as a matrix whose rows are the slices along ``dim``."""
        weight_mat = weight
        if self.dim != 0:
            weight_mat = weight_mat.permute(self.dim, *[d for d in range(weight_mat.dim()) if d != self.dim])
        return weight_mat.reshape(weight_mat.shape[0], -1)

    def power_iteration(self, weight_mat: Tensor, u: Tensor, v: Tensor) -> None:
        """``n_power_iterations`` steps of power iteration, written into the buffers ``u`` and ``v``."""
        w = weight_mat._data
        for _ in range(self.n_power_iterations):
            _normalize_into(w.T @ u._data, self.eps, v._data)
            _normalize_into(w @ v._data, self.eps, u._data)
        bump_version(u)
        bump_version(v)

    def compute_weight(self, module: Module, do_power_iteration: bool) -> Tensor:
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        weight_mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():
                self.power_iteration(weight_mat, u, v)
            u, v = _wrap(u._data.copy()), _wrap(v._data.copy())  # the buffers change in place at the next call
        sigma = u.dot(weight_mat.mv(v))
        return weight / sigma

    def remove(self, module: Module) -> None:
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        delattr(module, self.name)
        delattr(module, self.name + "_u")
        delattr(module, self.name + "_v")
        delattr(module, self.name + "_orig")
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module, do_power_iteration=module.training))

    @staticmethod
    def apply(module: Module, name: str, n_power_iterations: int, dim: int, eps: float) -> "SpectralNorm":
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two spectral_norm hooks on the same parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if weight is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        with no_grad():
            h, w = fn.reshape_weight_to_matrix(weight).shape
            u = weight.new_empty(h).normal_(0, 1)
            v = weight.new_empty(w).normal_(0, 1)
            _normalize_into(u._data, fn.eps, u._data)
            _normalize_into(v._data, fn.eps, v._data)
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        setattr(module, fn.name, weight.data)
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        return fn


@public(namespace=NN_UTILS)
def spectral_norm(module: T_module, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12,
                  dim: int | None = None) -> T_module:
    """Rescale ``module.<name>`` by the inverse of its spectral norm before every forward call.

    The parameter becomes ``<name>_orig``; ``<name>_u`` and ``<name>_v`` (buffers, in ``state_dict``) hold the
    power-iteration vectors, started from normal draws of the generator and refined ``n_power_iterations``
    times by each forward call in training mode. ``dim`` is the output dimension: 1 for transposed
    convolutions, 0 otherwise. (torch's state-dict hooks that convert checkpoints of torch before 1.1,
    which saved no ``<name>_v``, have no counterpart: there are no such tensorlib checkpoints.)
    """
    if dim is None:
        dim = 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)) else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


@public(namespace=NN_UTILS)
def remove_spectral_norm(module: T_module, name: str = "weight") -> T_module:
    """Undo :func:`spectral_norm`: ``module.<name>`` becomes a plain parameter holding the normalized weight."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"spectral_norm of '{name}' not found in {module}")
