"""``Optimizer``: parameter groups, per-parameter state, ``zero_grad`` and state dicts."""

from __future__ import annotations

import copy
from typing import Any, Callable, Iterable

from .._tensor import Tensor


class _Required:
    def __repr__(self) -> str:
        return "<required parameter>"


required = _Required()


class Optimizer:
    """Base class: holds ``param_groups`` (dicts of params and options) and ``state`` per parameter."""

    def __init__(self, params: Iterable[Any], defaults: dict) -> None:
        self.defaults = defaults
        self.state: dict = {}
        self.param_groups: list[dict] = []
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or dicts, but got "
                + type(params).__name__
            )
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for g in groups:
            self.add_param_group(g)

    def add_param_group(self, param_group: dict) -> None:
        """Add a group of parameters with its own options (missing ones take the defaults)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group).__name__}")
        params = param_group["params"]
        params = [params] if isinstance(params, Tensor) else list(params)
        for p in params:
            if not isinstance(p, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is " + type(p).__name__)
            if p._grad_fn is not None:
                raise ValueError("can't optimize a non-leaf Tensor")
        group = {k: v for k, v in param_group.items() if k != "params"}
        for k, v in self.defaults.items():
            if v is required and k not in group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {k}")
            group.setdefault(k, v)
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in seen for p in params):
            raise ValueError("some parameters appear in more than one parameter group")
        group["params"] = params
        self.param_groups.append(group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of all optimised parameters (to None by default)."""
        for g in self.param_groups:
            for p in g["params"]:
                meta = p._meta
                if meta is None or meta.grad is None:
                    continue
                if set_to_none:
                    meta.grad = None
                else:
                    grad = meta.grad
                    if grad._grad_fn is not None:
                        grad = meta.grad = grad.detach()
                    grad._data[...] = 0

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        raise NotImplementedError(f"{type(self).__name__} does not implement step()")

    def state_dict(self) -> dict:
        """Options and state, with parameters replaced by their index."""
        index = {}
        groups = []
        for g in self.param_groups:
            packed = {k: v for k, v in g.items() if k != "params"}
            ids = []
            for p in g["params"]:
                index.setdefault(id(p), len(index))
                ids.append(index[id(p)])
            packed["params"] = ids
            groups.append(packed)
        state = {index[id(p)]: copy.deepcopy(v) for g in self.param_groups for p in g["params"] if (v := self.state.get(p)) is not None}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore options and state saved by :meth:`state_dict`."""
        groups = state_dict["param_groups"]
        if len(groups) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        params = []
        for mine, saved in zip(self.param_groups, groups):
            if len(mine["params"]) != len(saved["params"]):
                raise ValueError("loaded state dict contains a parameter group that doesn't match the size of optimizer's group")
            params.extend(zip(saved["params"], mine["params"]))
        lookup = dict(params)
        self.state = {lookup[k]: copy.deepcopy(v) for k, v in state_dict["state"].items()}
        for mine, saved in zip(self.param_groups, groups):
            for k, v in saved.items():
                if k != "params":
                    mine[k] = v

    def __repr__(self) -> str:
        lines = [type(self).__name__ + " ("]
        for i, g in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for k in sorted(g):
                if k != "params":
                    lines.append(f"    {k}: {g[k]}")
        lines.append(")")
        return "\n".join(lines)
