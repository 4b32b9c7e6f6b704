"""Higher-level differentiation of Python functions: vjp, jvp, jacobian, hessian, vhp, hvp.

Each takes ``func`` and its ``inputs`` (a tensor or a tuple of tensors) and
calls ``func`` once on fresh leaves that require grad. Results have the
structure of the inputs (and outputs): a tensor for a tensor, tuples for
tuples. Parts of the output that do not depend on an input get zeros (or an
error with ``strict=True``).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from .._registry import AUTOGRAD_FUNCTIONAL, public
from .._tensor import Tensor, _wrap
from ..ops.join_split import stack
from ..ops.shape import reshape
from .engine import grad as _grad
from .grad_mode import enable_grad


def _as_tuple(x: Any, arg_name: str, fn_name: str) -> tuple[bool, tuple]:
    is_tuple = isinstance(x, (tuple, list))
    xs = tuple(x) if is_tuple else (x,)
    for i, el in enumerate(xs):
        if not isinstance(el, Tensor):
            if is_tuple:
                raise TypeError(
                    f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors but the value at "
                    f"index {i} has type {type(el)}."
                )
            raise TypeError(
                f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors but the given "
                f"{arg_name} has type {type(el)}."
            )
    return is_tuple, xs


def _tuple_postprocess(res: Any, flags: Any) -> Any:
    """Undo ``_as_tuple``: unwrap one level (or two, for a pair of flags) where the user gave plain tensors."""
    if isinstance(flags, tuple):
        out_tuple, in_tuple = flags
        if not out_tuple:
            res = res[0]
            if not in_tuple:
                res = res[0]
            return res
        if not in_tuple:
            return tuple(r[0] for r in res)
        return res
    return res if flags else res[0]


def _prepare(inputs: tuple, create_graph: bool) -> tuple:
    """Fresh tensors to differentiate with respect to (still attached to the caller's graph with create_graph)."""
    out = []
    for t in inputs:
        if create_graph and t.requires_grad:
            out.append(t.view_as(t))
        else:
            out.append(t.detach().requires_grad_(True))
    return tuple(out)


def _finish(values: tuple, create_graph: bool) -> tuple:
    return tuple(v if v is None or create_graph else v.detach() for v in values)


def _check_outputs(outputs: tuple, fn_name: str) -> None:
    for o in outputs:
        if not isinstance(o, Tensor):
            raise TypeError(
                f"The outputs of the user-provided function given to {fn_name} must be either a Tensor or a tuple "
                f"of Tensors but got {type(o)}."
            )


def _check_v(v: tuple, other: tuple, fn_name: str, what: str) -> None:
    if len(v) != len(other):
        raise RuntimeError(
            f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}."
        )
    for i, (a, b) in enumerate(zip(v, other)):
        if a.shape != b.shape:
            raise RuntimeError(
                f"Mismatch in shape: v[{i}] has a shape of {a.shape} and the {what}[{i}] has a shape of {b.shape}."
                if what else f"Entry {i} in v has invalid size: should be {b.shape} but got {a.shape}."
            )


_NOT_DIFFERENTIABLE = {
    "outputs": "Output {i} of the user-provided function does not require gradients. The outputs must be computed in "
               "a differentiable manner from the input when running in strict mode.",
    "grad_inputs": "The gradient with respect to input {i} is independent of the inputs of the user-provided "
                   "function. This is not allowed in strict mode.",
    "jacobian": "While computing the hessian, found that the jacobian of the user-provided function with respect to "
                "input {i} is independent of the input. This is not allowed in strict mode. You should ensure that "
                "your function is twice differentiable and that the jacobian depends on the inputs (this would be "
                "violated by a linear function for example).",
}

# What a missing gradient means, by the stage of the computation that found it.
_INDEPENDENT = {
    "back": "The output of the user-provided function is independent of input {i}. This is not allowed in strict "
            "mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the grad_outputs when using "
                  "the double backward trick to compute forward mode gradients. This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. This is not allowed in "
                   "strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {i} in the grad_jacobian. "
                         "This is not allowed in strict mode as it prevents from using the double backward trick to "
                         "replace forward mode AD.",
}


def _check_strict(values: Sequence[Tensor | None], kind: str, strict: bool) -> None:
    """In strict mode, every value must exist and require grad (``kind`` names what they are, for the message)."""
    if not strict:
        return
    for i, v in enumerate(values):
        if v is None:
            raise RuntimeError(_INDEPENDENT["back"].format(i=i))
        if not v.requires_grad:
            raise RuntimeError(_NOT_DIFFERENTIABLE[kind].format(i=i))


def _grads(outputs: Sequence[Tensor | None], inputs: tuple, grad_outputs: Sequence[Tensor | None],
           create_graph: bool, retain_graph: bool | None = None) -> list:
    """``autograd.grad`` that skips outputs that are None or need no grad, and gives None for unused inputs."""
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not pairs:
        return [None] * len(inputs)
    return list(_grad([o for o, _ in pairs], inputs, [g for _, g in pairs], retain_graph=retain_graph,
                      create_graph=create_graph, allow_unused=True))


def _fill_zeros(grads: list, like: tuple, strict: bool, create_graph: bool, stage: str) -> tuple:
    """Missing gradients become zeros shaped like ``like``, or, in strict mode, the error for ``stage``."""
    out = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_INDEPENDENT[stage].format(i=i))
            g = _zeros_like(like[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if stage.startswith("double") else "jacobian"
            raise RuntimeError(
                f"The {what} of the user-provided function is independent of input {i}. This is not allowed in "
                "strict mode when create_graph=True."
            )
        out.append(g)
    return tuple(out)


def _ones_like(t: Tensor) -> Tensor:
    return _wrap(np.ones(t._data.shape, dtype=t._data.dtype))


def _zeros_like(t: Tensor) -> Tensor:
    return _wrap(np.zeros(t._data.shape, dtype=t._data.dtype))


@public(namespace=AUTOGRAD_FUNCTIONAL)
def vjp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False) -> tuple:
    """``(func(*inputs), v^T J)``: the vector-Jacobian product at ``inputs``."""
    with enable_grad():
        in_tuple, ins = _as_tuple(inputs, "inputs", "vjp")
        ins = _prepare(ins, create_graph)
        out_tuple, outs = _as_tuple(func(*ins), "outputs of the user-provided function", "vjp")
        _check_outputs(outs, "vjp")
        _check_strict(outs, "outputs", strict)
        if v is not None:
            _, vs = _as_tuple(v, "v", "vjp")
            _check_v(vs, outs, "vjp", "")
        else:
            if len(outs) != 1 or outs[0].numel() != 1:
                raise RuntimeError(
                    "The vector v can only be None if the user-provided function returns a single Tensor with a "
                    "single element."
                )
            vs = (_ones_like(outs[0]),)
        grads = _fill_zeros(_grads(outs, ins, vs, create_graph), ins, strict, create_graph, "back")
    return _tuple_postprocess(_finish(outs, create_graph), out_tuple), _tuple_postprocess(
        _finish(grads, create_graph), in_tuple
    )


def _jacobian_vector(outs: Sequence[Tensor | None], ins: tuple, vs: tuple, create_graph: bool, strict: bool,
                     like: tuple) -> list:
    """``J v`` for ``outs`` (shaped like ``like``; None where independent of ``ins``), with reverse mode only.

    The vjp ``u -> J^T u`` is linear in ``u``; differentiating it with respect
    to a dummy ``u`` along ``v`` gives ``J v`` (the "double backward trick").
    """
    dummies = tuple(_zeros_like(t).requires_grad_(True) if t._data.dtype.kind in "fc" else _zeros_like(t)
                    for t in like)
    back = _grads(outs, ins, dummies, create_graph=True)
    _check_strict(back, "grad_inputs", strict)
    return _grads(back, dummies, vs, create_graph)


@public(namespace=AUTOGRAD_FUNCTIONAL)
def jvp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False) -> tuple:
    """``(func(*inputs), J v)``: the Jacobian-vector product at ``inputs`` (by differentiating a vjp)."""
    with enable_grad():
        in_tuple, ins = _as_tuple(inputs, "inputs", "jvp")
        ins = _prepare(ins, create_graph)
        if v is not None:
            _, vs = _as_tuple(v, "v", "jvp")
            _check_v(vs, ins, "jvp", "")
        else:
            if len(ins) != 1 or ins[0].numel() != 1:
                raise RuntimeError(
                    "The vector v can only be None if the input to the user-provided function is a single Tensor with "
                    "a single element."
                )
            vs = (_ones_like(ins[0]),)
        out_tuple, outs = _as_tuple(func(*ins), "outputs of the user-provided function", "jvp")
        _check_outputs(outs, "jvp")
        _check_strict(outs, "outputs", strict)
        res = _fill_zeros(_jacobian_vector(outs, ins, vs, create_graph, strict, outs), outs, strict, create_graph,
                          "back_trick")
    return _tuple_postprocess(_finish(outs, create_graph), out_tuple), _tuple_postprocess(
        _finish(res, create_graph), out_tuple
    )


def _jacobian_rows(outs: tuple, ins: tuple, create_graph: bool, strict: bool) -> tuple:
    """For each output, for each input: the Jacobian of shape ``out.shape + in.shape``."""
    result = []
    for i, out in enumerate(outs):
        flat = reshape(out, (-1,))
        rows: list[list] = [[] for _ in ins]
        for j in range(flat.shape[0]):
            if out.requires_grad:
                gs = _grad(flat[j], ins, retain_graph=True, create_graph=create_graph, allow_unused=True)
            else:
                gs = (None,) * len(ins)
            for k, g in enumerate(gs):
                if g is None:
                    if strict:
                        raise RuntimeError(
                            f"Output {i} of the user-provided function is independent of input {k}. This is not "
                            "allowed in strict mode."
                        )
                    g = _zeros_like(ins[k])
                elif strict and create_graph and not g.requires_grad:
                    raise RuntimeError(
                        f"The jacobian of the user-provided function is independent of input {k}. This is not allowed "
                        "in strict mode when create_graph=True."
                    )
                rows[k].append(g)
        per_input = []
        for k, inp in enumerate(ins):
            if rows[k]:
                jac = reshape(stack(rows[k]), tuple(out.shape) + tuple(inp.shape))
            else:
                jac = _wrap(np.zeros(tuple(out.shape) + tuple(inp.shape), dtype=inp._data.dtype))
            per_input.append(jac if create_graph else jac.detach())
        result.append(tuple(per_input))
    return tuple(result)


@public(namespace=AUTOGRAD_FUNCTIONAL)
def jacobian(func: Callable, inputs: Any, create_graph: bool = False, strict: bool = False, vectorize: bool = False,
             strategy: str = "reverse-mode") -> Any:
    """The Jacobian of ``func`` at ``inputs``: ``J[i][j]`` has shape ``outputs[i].shape + inputs[j].shape``."""
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError(
            'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your function has more '
            'outputs than inputs, "forward-mode" tends to be more performant. Otherwise, prefer to use '
            '"reverse-mode".'
        )
    if strict and vectorize:
        raise RuntimeError(
            "tensorlib.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not supported together. "
            "Please either set `strict=False` or `vectorize=False`."
        )
    with enable_grad():
        in_tuple, ins = _as_tuple(inputs, "inputs", "jacobian")
        ins = _prepare(ins, create_graph)
        out_tuple, outs = _as_tuple(func(*ins), "outputs of the user-provided function", "jacobian")
        _check_outputs(outs, "jacobian")
        _check_strict(outs, "outputs", strict)
        jac = _jacobian_rows(outs, ins, create_graph, strict)
    return _tuple_postprocess(jac, (out_tuple, in_tuple))


@public(namespace=AUTOGRAD_FUNCTIONAL)
def hessian(func: Callable, inputs: Any, create_graph: bool = False, strict: bool = False, vectorize: bool = False,
            outer_jacobian_strategy: str = "reverse-mode") -> Any:
    """The Hessian of the scalar function ``func`` at ``inputs``: ``H[i][j]`` has shape
    ``inputs[i].shape + inputs[j].shape``."""
    in_tuple, ins = _as_tuple(inputs, "inputs", "hessian")

    def gradient(*xs: Tensor) -> tuple:
        out = func(*xs)
        is_tuple, outs = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_outputs(outs, "hessian")
        _check_strict(outs, "outputs", strict)
        if is_tuple or not isinstance(out, Tensor):
            raise RuntimeError("The function given in hessian should return a single Tensor")
        if out.numel() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should contain a single element")
        squeezed = out.reshape(())
        jac = _grads((squeezed,), xs, (_ones_like(squeezed),), create_graph=True, retain_graph=True)
        # filled first: an input the output ignores has a constant (zero) jacobian
        filled = _fill_zeros(jac, xs, False, True, "back")
        _check_strict(filled, "jacobian", strict)
        return filled

    res = jacobian(gradient, ins, create_graph=create_graph, strict=strict, strategy=outer_jacobian_strategy)
    return _tuple_postprocess(res, (in_tuple, in_tuple))


def _scalar_function(func: Callable, ins: tuple, fn_name: str, strict: bool) -> Tensor:
    out = func(*ins)
    is_tuple, outs = _as_tuple(out, "outputs of the user-provided function", fn_name)
    _check_outputs(outs, fn_name)
    _check_strict(outs, "outputs", strict)
    if is_tuple or len(outs) != 1:
        raise RuntimeError(f"The function given in {fn_name} must return a single Tensor")
    if outs[0].numel() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn_name} should contain a single element")
    return outs[0]


@public(namespace=AUTOGRAD_FUNCTIONAL)
def vhp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False) -> tuple:
    """``(func(*inputs), v^T H)`` for a scalar ``func``: a vector-Hessian product."""
    with enable_grad():
        in_tuple, ins = _as_tuple(inputs, "inputs", "vhp")
        ins = _prepare(ins, create_graph)
        vs = _hessian_vector(v, ins, "vhp")
        out = _scalar_function(func, ins, "vhp", strict)
        jac = _grads((out,), ins, (_ones_like(out),), create_graph=True)
        _check_strict(jac, "jacobian", strict)
        res = _fill_zeros(_grads(jac, ins, vs, create_graph), ins, strict, create_graph, "double_back")
    return _finish((out,), create_graph)[0], _tuple_postprocess(_finish(res, create_graph), in_tuple)


@public(namespace=AUTOGRAD_FUNCTIONAL)
def hvp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False) -> tuple:
    """``(func(*inputs), H v)`` for a scalar ``func``: a Hessian-vector product."""
    with enable_grad():
        in_tuple, ins = _as_tuple(inputs, "inputs", "hvp")
        ins = _prepare(ins, create_graph)
        vs = _hessian_vector(v, ins, "hvp")
        out = _scalar_function(func, ins, "hvp", strict)
        jac = _grads((out,), ins, (_ones_like(out),), create_graph=True)
        _check_strict(jac, "jacobian", strict)
        res = _fill_zeros(_jacobian_vector(jac, ins, vs, create_graph, strict, ins), ins, strict, create_graph,
                          "double_back_trick")
    return _finish((out,), create_graph)[0], _tuple_postprocess(_finish(res, create_graph), in_tuple)


def _hessian_vector(v: Any, ins: tuple, fn_name: str) -> tuple:
    if v is not None:
        _, vs = _as_tuple(v, "v", fn_name)
        _check_v(vs, ins, fn_name, "")
        return vs
    if len(ins) != 1 or ins[0].numel() != 1:
        raise RuntimeError(
            "The vector v can only be None if the input to the user-provided function is a single Tensor with a "
            "single element."
        )
    return (_ones_like(ins[0]),)
