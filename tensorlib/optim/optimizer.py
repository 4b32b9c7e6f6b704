"""``Optimizer``: parameter groups, per-parameter state, ``zero_grad`` and state dicts."""

from __future__ import annotations

import copy
import functools
from collections import OrderedDict
from typing import Any, Callable, Iterable, Iterator

import numpy as np

from .._autograd.grad_mode import enable_grad
from .._autograd.graph import RemovableHandle, add_hook
from .._dtype import DEFAULT
from .._tensor import Tensor, _wrap, bump_version, legacy_type_name


class _Required:
    def __repr__(self) -> str:
        return "<required parameter>"


required = _Required()


def _counted_step(step: Callable) -> Callable:
    """Wrap an optimizer's ``step``: run the step hooks and note that a step happened (for LR schedulers)."""

    @functools.wraps(step)
    def wrapper(self: "Optimizer", *args: Any, **kwargs: Any) -> Any:
        d = self.__dict__
        d["_opt_called"] = True
        pre = d.get("_optimizer_step_pre_hooks", {})
        post = d.get("_optimizer_step_post_hooks", {})
        if not pre and not post:
            return step(self, *args, **kwargs)
        for hook in list(pre.values()):
            r = hook(self, args, kwargs)
            if r is not None:
                if not (isinstance(r, tuple) and len(r) == 2):
                    raise RuntimeError(
                        f"{hook} must return None or a tuple of (new_args, new_kwargs), but got {r}."
                    )
                args, kwargs = r
        out = step(self, *args, **kwargs)
        for hook in list(post.values()):
            hook(self, args, kwargs)
        return out

    wrapper._counted = True  # type: ignore[attr-defined]
    return wrapper


def _check_flags(differentiable: bool = False, **_: Any) -> None:
    if differentiable:
        raise RuntimeError("tensorlib optimizers do not support differentiable=True: their steps are not recorded")


# -- helpers the optimizers share: torch's scalar state, its lerp, complex parameters as pairs of reals -----------


def _check_lr(lr: Any, message: str = "Invalid learning rate: {}", strict: bool = False) -> None:
    """torch's checks of ``lr``: a one-element Tensor or a number, not negative (not zero when ``strict``)."""
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not (0.0 < lr if strict else 0.0 <= lr):
        raise ValueError(message.format(lr))


def _value(x: Any) -> Any:
    """A hyperparameter as a Python number (a one-element Tensor ``lr`` included)."""
    return x.item() if isinstance(x, Tensor) else x


def _scalar_dtype() -> np.dtype:
    """The dtype torch keeps scalar state in (``step``, ``eta``, ...): float64 under a float64 default, else float32."""
    return np.dtype(np.float64) if DEFAULT.float.np == np.float64 else np.dtype(np.float32)


def _scalar(value: float) -> Tensor:
    """A 0-d tensor of :func:`_scalar_dtype` holding ``value`` (torch's ``state["step"]`` and friends)."""
    return _wrap(np.array(value, dtype=_scalar_dtype()))


def _lerp_(a: np.ndarray, end: np.ndarray, weight: float) -> np.ndarray:
    """``a.lerp_(end, weight)`` with torch's formula (the one that is exact at both ends)."""
    if abs(weight) < 0.5:
        a += weight * (end - a)
    else:
        np.subtract(end, (end - a) * (1 - weight), out=a, casting="unsafe")
    return a


def _real(a: np.ndarray) -> np.ndarray:
    """``torch.view_as_real`` flattened into the last axis: a complex array as its real and imaginary parts (a view)."""
    if a.dtype.kind != "c":
        return a
    if not a.flags.c_contiguous:
        raise RuntimeError("complex optimizer state must be contiguous")
    return a.view(a.real.dtype)


class Optimizer:
    """Base class: holds ``param_groups`` (dicts of params and options) and ``state`` per parameter."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        step = cls.__dict__.get("step")
        if step is not None and not getattr(step, "_counted", False):
            cls.step = _counted_step(step)  # type: ignore[method-assign]

    def __init__(self, params: Iterable[Any], defaults: dict) -> None:
        self.defaults = defaults
        self.state: dict = {}
        self.param_groups: list[dict] = []
        self._optimizer_step_pre_hooks: OrderedDict = OrderedDict()
        self._optimizer_step_post_hooks: OrderedDict = OrderedDict()
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or dicts, but got "
                + legacy_type_name(params._data.dtype)
            )
        if isinstance(params, dict):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or dicts, but got dict"
            )
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for g in groups:
            self.add_param_group(g)

    def register_step_pre_hook(self, hook: Callable) -> RemovableHandle:
        """Call ``hook(optimizer, args, kwargs)`` before each ``step``; it may return new ``(args, kwargs)``."""
        return add_hook(self.__dict__.setdefault("_optimizer_step_pre_hooks", OrderedDict()), hook)

    def register_step_post_hook(self, hook: Callable) -> RemovableHandle:
        """Call ``hook(optimizer, args, kwargs)`` after each ``step``."""
        return add_hook(self.__dict__.setdefault("_optimizer_step_post_hooks", OrderedDict()), hook)

    def add_param_group(self, param_group: dict) -> None:
        """Add a group of parameters with its own options (missing ones take the defaults)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group).__name__}")
        params = param_group["params"]
        params = [params] if isinstance(params, Tensor) else list(params)
        param_group = dict(param_group)
        if params and all(isinstance(p, tuple) and len(p) == 2 and isinstance(p[0], str) for p in params):
            param_group["param_names"] = [n for n, _ in params]  # named_parameters() given
            params = [p for _, p in params]
        elif any(isinstance(p, tuple) for p in params):
            raise ValueError("all optimizer params should be with/without names. Some param names are missing")
        if isinstance(param_group["params"], set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the ordering of tensors in "
                "sets will change between runs. Please use a list instead."
            )
        for p in params:
            if not isinstance(p, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is " + type(p).__name__)
            if p._grad_fn is not None:
                raise ValueError("can't optimize a non-leaf Tensor")
        group = {k: v for k, v in param_group.items() if k != "params"}
        _check_flags(**group)
        for k, v in self.defaults.items():
            if v is required and k not in group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {k}")
            group.setdefault(k, v)
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in seen for p in params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append({"params": params, **group})

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

    @staticmethod
    def _evaluate(closure: Callable[[], Any] | None) -> Any:
        """The loss ``closure()`` returns (with grad enabled, since it usually calls backward), or None."""
        if closure is None:
            return None
        with enable_grad():
            return closure()

    @staticmethod
    def _gradients(group: dict) -> Iterator[tuple[Tensor, np.ndarray]]:
        """``(param, gradient array)`` for each parameter of ``group`` that has a gradient.

        The gradient is negated when the group maximizes. Updates happen in the
        caller's loop body, so the version bump that tells autograd the
        parameter changed runs when the loop asks for the next parameter.
        """
        maximize = group.get("maximize", False)
        for p in group["params"]:
            meta = p._meta
            if meta is None or meta.grad is None:
                continue
            g = meta.grad._data
            yield p, (-g if maximize else g)
            bump_version(p)

    def state_dict(self) -> dict:
        """Options and state, with parameters replaced by their index."""
        index: dict[int, int] = {}
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
        params: list[tuple[int, Any]] = []
        for mine, saved in zip(self.param_groups, groups):
            if len(mine["params"]) != len(saved["params"]):
                raise ValueError("loaded state dict contains a parameter group that doesn't match the size of optimizer's group")
            params.extend(zip(saved["params"], mine["params"]))
        lookup = dict(params)
        self.state = {lookup[k]: _cast_state(lookup[k], copy.deepcopy(v)) if k in lookup else copy.deepcopy(v)
                      for k, v in state_dict["state"].items()}
        for mine, saved in zip(self.param_groups, groups):
            for k, v in saved.items():
                if k != "params":
                    mine[k] = v

    def __repr__(self) -> str:
        lines = [type(self).__name__ + " ("]
        for i, g in enumerate(self.param_groups):
            if i:
                lines.append("")
            lines.append(f"Parameter Group {i}")
            for k in sorted(g):
                if k not in ("params", "param_names"):
                    lines.append(f"    {k}: {g[k]}")
        lines.append(")")
        return "\n".join(lines)


def _cast_state(param: Tensor, value: Any, key: Any = None) -> Any:
    """torch's policy for loaded state: tensors other than ``step`` take a floating-point parameter's dtype."""
    if isinstance(value, Tensor):
        if key != "step" and param._data.dtype.kind == "f" and value._data.dtype != param._data.dtype:
            return _wrap(value._data.astype(param._data.dtype))
        return value
    if isinstance(value, dict):
        return {k: _cast_state(param, v, k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast_state(param, v) for v in value)
    return value
