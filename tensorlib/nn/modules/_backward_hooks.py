"""Module backward hooks: gradients w.r.t. a module's inputs and outputs, seen (and replaceable) by hooks.

The tensors going into and coming out of ``forward`` pass through an identity
``Function``. Backward reaches the output identity first (the gradients w.r.t.
the outputs: backward pre-hooks run there), then, after the module's own
graph, the input identity (the gradients w.r.t. the inputs: full backward
hooks run there with both).
"""

from __future__ import annotations

import warnings
from typing import Any, Callable

from ..._autograd.function import Function
from ..._autograd.grad_mode import STATE
from ..._tensor import Tensor


class BackwardHookFunction(Function):
    """The identity on any number of tensors; a place in the graph for a module's hooks."""

    @staticmethod
    def forward(ctx: Any, *tensors: Tensor) -> tuple:
        ctx.set_materialize_grads(False)
        ctx.mark_non_differentiable(*[t for t in tensors if not t.requires_grad])
        return tensors

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> tuple:
        return grads


def _pass_through(values: tuple) -> tuple[tuple, Any]:
    """``values`` with every tensor routed through one BackwardHookFunction node (None if no tensor needs grad)."""
    idx = [i for i, v in enumerate(values) if isinstance(v, Tensor)]
    if not idx or not STATE.enabled or not any(values[i].requires_grad for i in idx):
        return values, None
    outs = BackwardHookFunction.apply(*(values[i] for i in idx))
    new = list(values)
    node = None
    for i, o in zip(idx, outs):
        new[i] = o
        if node is None and o.grad_fn is not None:
            node = o.grad_fn
    return tuple(new), (node, idx, len(values))


class BackwardHook:
    """One forward call's bookkeeping: the gradients w.r.t. the outputs, waiting for those w.r.t. the inputs."""

    def __init__(self, module: Any, full_hooks: list[Callable], pre_hooks: list[Callable]) -> None:
        self.module = module
        self.full_hooks = full_hooks
        self.pre_hooks = pre_hooks
        self.grad_outputs: tuple | None = None
        self.n_inputs = 0
        self.inputs_need_grad = False

    def setup_input_hook(self, args: tuple) -> tuple:
        self.n_inputs = len(args)
        if not self.full_hooks:
            return args
        new, info = _pass_through(args)
        if info is None:
            return args
        node, idx, n = info
        self.inputs_need_grad = True

        def on_input_grads(grads: tuple) -> tuple | None:
            grad_input = [None] * n
            for i, g in zip(idx, grads):
                grad_input[i] = g
            grad_input_t = tuple(grad_input)
            changed = False
            for hook in self.full_hooks:
                r = hook(self.module, grad_input_t, self.grad_outputs)
                if r is not None:
                    r = tuple(r) if isinstance(r, (tuple, list)) else (r,)
                    if len(r) != n:
                        raise RuntimeError(
                            f"Backward hook returned an invalid number of grad_input, got {len(r)}, but expected {n}"
                        )
                    grad_input_t = r
                    changed = True
            self.grad_outputs = None
            if not changed:
                return None
            return tuple(grad_input_t[i] for i in idx)

        node.register_prehook(on_input_grads)
        return new

    def setup_output_hook(self, result: Any) -> Any:
        single = isinstance(result, Tensor)
        values = (result,) if single else tuple(result) if isinstance(result, (tuple, list)) else None
        if values is None:
            return result
        new, info = _pass_through(values)
        if info is None:
            return result
        node, idx, n = info

        def on_output_grads(grads: tuple) -> tuple | None:
            grad_output = [None] * n
            for i, g in zip(idx, grads):
                grad_output[i] = g
            grad_output_t = tuple(grad_output)
            changed = False
            for hook in self.pre_hooks:
                r = hook(self.module, grad_output_t)
                if r is not None:
                    r = tuple(r) if isinstance(r, (tuple, list)) else (r,)
                    if len(r) != n:
                        raise RuntimeError(
                            f"Backward pre hook returned an invalid number of grad_output, got {len(r)}, "
                            f"but expected {n}"
                        )
                    grad_output_t = r
                    changed = True
            self.grad_outputs = grad_output_t
            if not self.inputs_need_grad and self.full_hooks:
                warnings.warn(
                    "Full backward hook is firing when gradients are computed with respect to module outputs since "
                    "no inputs require gradients. See https://pytorch.org/docs/main/generated/torch.nn.Module.html"
                    "#torch.nn.Module.register_full_backward_hook for more details.",
                    UserWarning,
                    stacklevel=2,
                )
                grad_input = (None,) * self.n_inputs
                for hook in self.full_hooks:
                    r = hook(self.module, grad_input, grad_output_t)
                    if r is not None and any(g is not None for g in (r if isinstance(r, tuple) else (r,))):
                        raise RuntimeError(
                            "Backward hook for Modules where no input requires gradient should always return None "
                            "or None for all gradients."
                        )
                self.grad_outputs = None
            if not changed:
                return None
            return tuple(grad_output_t[i] for i in idx)

        node.register_prehook(on_output_grads)
        if single:
            return new[0]
        return type(result)(new) if isinstance(result, list) else new
