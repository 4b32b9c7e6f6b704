"""Higher-level differentiation of Python functions: vjp, jvp, jacobian, hessian, vhp, hvp.

Each takes ``func`` and its ``inputs`` (a tensor or a tuple of tensors) and
calls ``func`` once on fresh leaves that require grad. Results have the
structure of the inputs (and outputs): a tensor for a tensor, tuples for
tuples. Parts of the output that do not depend on an input get zeros (or an
error with ``strict=True``).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .._tensor import Tensor, _wrap
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


def _vjp_parts(outputs: tuple, inputs: tuple, grad_outputs: tuple, create_graph: bool, retain_graph: bool | None,
               strict: bool, fn_name: str, zeros_like: tuple) -> list:
    """Gradients of ``outputs`` (weighted by ``grad_outputs``) w.r.t. ``inputs``; zeros where not connected."""
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    if pairs:
        grads = list(_grad([o for o, _ in pairs], inputs, [g for _, g in pairs], retain_graph=retain_graph,
                           create_graph=create_graph, allow_unused=True))
    else:
        grads = [None] * len(inputs)
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(
                    f"The output of the user-provided function is independent of input {i}. This is not allowed "
                    "in strict mode."
                )
            grads[i] = _zeros_like(zeros_like[i])
    return grads


def _zeros_like(t: Tensor) -> Tensor:
    return _wrap(np.zeros(t._data.shape, dtype=t._data.dtype))


def vjp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False) -> tuple:
    """``(func(*inputs), v^T J)``: the vector-Jacobian product at ``inputs``."""
    with enable_grad():
        in_tuple, ins = _as_tuple(inputs, "inputs", "vjp")
        ins = _prepare(ins, create_graph)
        out_tuple, outs = _as_tuple(func(*ins), "outputs of the user-provided function", "vjp")
        _check_outputs(outs, "vjp")
        if v is not None:
            _, vs = _as_tuple(v, "v", "vjp")
            _check_v(vs, outs, "vjp", "")
        else:
            if len(outs) != 1 or outs[0].numel() != 1:
                raise RuntimeError(
                    "The vector v can only be None if the user-provided function returns a single Tensor with a "
                    "single element."
                )
            vs = (_wrap(np.ones(outs[0]._data.shape, dtype=outs[0]._data.dtype)),)
        grads = _vjp_parts(outs, ins, vs, create_graph, None, strict, "vjp", ins)
    return _tuple_postprocess(_finish(outs, create_graph), out_tuple), _tuple_postprocess(
        _finish(tuple(grads), create_graph), in_tuple
    )


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
            vs = (_wrap(np.ones(ins[0]._data.shape, dtype=ins[0]._data.dtype)),)
        out_tuple, outs = _as_tuple(func(*ins), "outputs of the user-provided function", "jvp")
        _check_outputs(outs, "jvp")
        dummies = tuple(_zeros_like(o).requires_grad_(True) if o._data.dtype.kind in "fc" else _zeros_like(o)
                        for o in outs)
        pairs = [(o, d) for o, d in zip(outs, dummies) if o.requires_grad]
        if pairs:
            back = list(_grad([o for o, _ in pairs], ins, [d for _, d in pairs], create_graph=True,
                              allow_unused=True))
        else:
            back = [None] * len(ins)
        used = [(b, vi) for b, vi in zip(back, vs) if b is not None and b.requires_grad]
        if used:
            res = list(_grad([b for b, _ in used], dummies, [vi for _, vi in used], create_graph=create_graph,
                             allow_unused=True))
        else:
            res = [None] * len(outs)
        for i, r in enumerate(res):
            if r is None:
                if strict:
                    raise RuntimeError(
                        f"The output of the user-provided function is independent of input {i}. This is not allowed "
                        "in strict mode."
                    )
                res[i] = _zeros_like(outs[i])
    return _tuple_postprocess(_finish(outs, create_graph), out_tuple), _tuple_postprocess(
        _finish(tuple(res), create_graph), out_tuple
    )


def _jacobian_rows(outs: tuple, ins: tuple, create_graph: bool, strict: bool) -> tuple:
    """For each output, for each input: the Jacobian of shape ``out.shape + in.shape``."""
    from ..ops.shape import reshape, stack

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


def jacobian(func: Callable, inputs: Any, create_graph: bool = False, strict: bool = False, vectorize: bool = False,
             strategy: str = "reverse-mode") -> Any:
    """The Jacobian of ``func`` at ``inputs``: ``J[i][j]`` has shape ``outputs[i].shape + inputs[j].shape``."""
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError(
            'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your function has more '
            'outputs than inputs, "forward-mode" tends to be more performant. Otherwise, prefer to use '
            '"reverse-mode".'
        )
    with enable_grad():
        in_tuple, ins = _as_tuple(inputs, "inputs", "jacobian")
        ins = _prepare(ins, create_graph)
        out_tuple, outs = _as_tuple(func(*ins), "outputs of the user-provided function", "jacobian")
        _check_outputs(outs, "jacobian")
        jac = _jacobian_rows(outs, ins, create_graph, strict)
    return _tuple_postprocess(jac, (out_tuple, in_tuple))


def hessian(func: Callable, inputs: Any, create_graph: bool = False, strict: bool = False, vectorize: bool = False,
            outer_jacobian_strategy: str = "reverse-mode") -> Any:
    """The Hessian of the scalar function ``func`` at ``inputs``: ``H[i][j]`` has shape
    ``inputs[i].shape + inputs[j].shape``."""
    in_tuple, ins = _as_tuple(inputs, "inputs", "hessian")

    def gradient(*xs: Tensor) -> tuple:
        out = func(*xs)
        is_tuple, outs = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_outputs(outs, "hessian")
        if is_tuple or not isinstance(out, Tensor):
            raise RuntimeError("The function given in hessian should return a single Tensor")
        if out.numel() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should contain a single element")
        squeezed = out.reshape(())
        parts = _vjp_parts((squeezed,), xs, (_wrap(np.ones((), dtype=out._data.dtype)),), True, True, strict,
                           "hessian", xs)
        return tuple(parts)

    res = jacobian(gradient, ins, create_graph=create_graph, strict=strict, strategy=outer_jacobian_strategy)
    return _tuple_postprocess(res, (in_tuple, in_tuple))


def _scalar_function(func: Callable, ins: tuple, fn_name: str) -> Tensor:
    out = func(*ins)
    is_tuple, outs = _as_tuple(out, "outputs of the user-provided function", fn_name)
    _check_outputs(outs, fn_name)
    if is_tuple or len(outs) != 1:
        raise RuntimeError(f"The function given in {fn_name} must return a single Tensor")
    if outs[0].numel() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn_name} should contain a single element")
    return outs[0]


def vhp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False) -> tuple:
    """``(func(*inputs), v^T H)`` for a scalar ``func``: a vector-Hessian product."""
    with enable_grad():
        in_tuple, ins = _as_tuple(inputs, "inputs", "vhp")
        ins = _prepare(ins, create_graph)
        vs = _hessian_vector(v, ins, "vhp")
        out = _scalar_function(func, ins, "vhp")
        jac = _vjp_parts((out,), ins, (_wrap(np.ones(out._data.shape, dtype=out._data.dtype)),), True, True,
                         strict, "vhp", ins)
        used = [(j, vi) for j, vi in zip(jac, vs) if j.requires_grad]
        if used:
            res = list(_grad([j for j, _ in used], ins, [vi for _, vi in used], create_graph=create_graph,
                             allow_unused=True))
        else:
            res = [None] * len(ins)
        for i, r in enumerate(res):
            if r is None:
                if strict:
                    raise RuntimeError(
                        f"The jacobian of the user-provided function is independent of input {i}. This is not "
                        "allowed in strict mode."
                    )
                res[i] = _zeros_like(ins[i])
    return _finish((out,), create_graph)[0], _tuple_postprocess(_finish(tuple(res), create_graph), in_tuple)


def hvp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False) -> tuple:
    """``(func(*inputs), H v)`` for a scalar ``func``: a Hessian-vector product."""
    with enable_grad():
        in_tuple, ins = _as_tuple(inputs, "inputs", "hvp")
        ins = _prepare(ins, create_graph)
        vs = _hessian_vector(v, ins, "hvp")
        out = _scalar_function(func, ins, "hvp")
        jac = _vjp_parts((out,), ins, (_wrap(np.ones(out._data.shape, dtype=out._data.dtype)),), True, True,
                         strict, "hvp", ins)
        dummies = tuple(_zeros_like(i).requires_grad_(True) for i in ins)
        used = [(j, d) for j, d in zip(jac, dummies) if j.requires_grad]
        if used:
            back = list(_grad([j for j, _ in used], ins, [d for _, d in used], create_graph=True,
                              allow_unused=True))
        else:
            back = [None] * len(ins)
        pairs = [(b, vi) for b, vi in zip(back, vs) if b is not None and b.requires_grad]
        if pairs:
            res = list(_grad([b for b, _ in pairs], dummies, [vi for _, vi in pairs], create_graph=create_graph,
                             allow_unused=True))
        else:
            res = [None] * len(ins)
        for i, r in enumerate(res):
            if r is None:
                if strict:
                    raise RuntimeError(
                        f"The jacobian of the user-provided function is independent of input {i}. This is not "
                        "allowed in strict mode."
                    )
                res[i] = _zeros_like(ins[i])
    return _finish((out,), create_graph)[0], _tuple_postprocess(_finish(tuple(res), create_graph), in_tuple)


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
    return (_wrap(np.ones(ins[0]._data.shape, dtype=ins[0]._data.dtype)),)
