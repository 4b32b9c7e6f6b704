"""Numerical gradient checking: compare backward's Jacobians with finite differences."""

from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np

from .._registry import AUTOGRAD, public
from .._tensor import Tensor, _wrap
from .engine import grad as autograd_grad
from .grad_mode import STATE


@public(namespace=AUTOGRAD)
class GradcheckError(RuntimeError):
    """Raised by :func:`gradcheck` and :func:`gradgradcheck` when a check fails."""


def _as_tuple(x: Any) -> tuple:
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _eval(func: Callable, inputs: tuple) -> tuple:
    return _as_tuple(func(*inputs))


def _numerical_jacobians(func: Callable, inputs: tuple, out_index: list[int], eps: float) -> dict:
    """``{(i, o): J}`` with ``J[j, k] = d out_o[k] / d in_i[j]`` by central differences."""
    result = {}
    with _no_grad():
        base = _eval(func, inputs)
    for i, x in enumerate(inputs):
        if not (isinstance(x, Tensor) and x._requires_grad):
            continue
        data = x._data
        jac = {o: np.zeros((data.size, base[o]._data.size)) for o in out_index}
        for j, idx in enumerate(np.ndindex(data.shape)):
            orig = data[idx].copy()
            data[idx] = orig + eps
            plus = _output_values(func, inputs, out_index)
            data[idx] = orig - eps
            minus = _output_values(func, inputs, out_index)
            data[idx] = orig
            for o in out_index:
                jac[o][j] = ((plus[o] - minus[o]) / (2 * eps)).reshape(-1)
        for o in out_index:
            result[(i, o)] = jac[o]
    return result


def _output_values(func: Callable, inputs: tuple, out_index: list[int]) -> dict:
    """The outputs' values, copied at once: an output may be a view of the input being perturbed."""
    with _no_grad():
        outs = _eval(func, inputs)
    return {o: outs[o]._data.astype(np.float64, copy=True) for o in out_index}


def _analytical_jacobians(func: Callable, inputs: tuple, out_index: list[int]) -> tuple[dict, tuple]:
    outputs = _eval(func, inputs)
    diff_inputs = [(i, x) for i, x in enumerate(inputs) if isinstance(x, Tensor) and x._requires_grad]
    result = {(i, o): np.zeros((x._data.size, outputs[o]._data.size)) for i, x in diff_inputs for o in out_index}
    for o in out_index:
        out = outputs[o]
        for k in range(out._data.size):
            onehot = np.zeros(out._data.size, dtype=out._data.dtype)
            onehot[k] = 1
            grads = autograd_grad(
                out,
                [x for _, x in diff_inputs],
                grad_outputs=_wrap(onehot.reshape(out._data.shape)),
                retain_graph=True,
                allow_unused=True,
            )
            for (i, x), g in zip(diff_inputs, grads):
                if g is None:
                    continue
                if g._data.shape != x._data.shape:
                    raise GradcheckError(f"Gradient has incorrect size: expected {list(x._data.shape)}, got {list(g._data.shape)}")
                result[(i, o)][:, k] = g._data.reshape(-1)
    return result, outputs


class _no_grad:
    def __enter__(self) -> None:
        self.prev = STATE.enabled
        STATE.enabled = False

    def __exit__(self, *exc: Any) -> None:
        STATE.enabled = self.prev


def _fail(msg: str, raise_exception: bool) -> bool:
    if raise_exception:
        raise GradcheckError(msg)
    return False


@public(namespace=AUTOGRAD)
def gradcheck(
    func: Callable,
    inputs: Any,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_batched_forward_grad: bool = False,
    check_forward_ad: bool = False,
    check_backward_ad: bool = True,
    fast_mode: bool = False,
    masked: bool | None = None,
) -> bool:
    """Check backward against finite differences for every input that requires grad.

    Returns True, or raises ``GradcheckError`` (a RuntimeError) starting
    ``Jacobian mismatch for output O with respect to input I,`` followed by both
    Jacobians (or returns False with ``raise_exception=False``). Use float64 inputs.
    """
    inputs = _as_tuple(inputs)
    if check_forward_ad:
        raise NotImplementedError("gradcheck: forward-mode AD is not supported by tensorlib (check_forward_ad=True)")
    any_requires = False
    for i, x in enumerate(inputs):
        if isinstance(x, Tensor) and x._requires_grad:
            any_requires = True
            if x._data.dtype.kind == "c":
                raise NotImplementedError("gradcheck: complex inputs are not supported by tensorlib")
            if x._data.dtype != np.float64:
                warnings.warn(
                    f"Input #{i} requires gradient and is not a double precision floating point or complex. "
                    "This check will likely fail if all the inputs are not of double precision floating point or complex.",
                    UserWarning,
                    stacklevel=2,
                )
    if not any_requires:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of them have requires_grad=True.")
    outputs = _eval(func, inputs)
    for o, t in enumerate(outputs):
        if not isinstance(t, Tensor):
            raise TypeError(
                f"gradcheck: the function must return Tensors, but output {o} is of type {type(t).__name__}"
            )
    out_index = [o for o, t in enumerate(outputs) if t._requires_grad]
    if not check_backward_ad:
        return True
    numerical = _numerical_jacobians(func, inputs, out_index, eps)
    analytical, _ = _analytical_jacobians(func, inputs, out_index)
    if nondet_tol >= 0:
        again, _ = _analytical_jacobians(func, inputs, out_index)
        for key, a in analytical.items():
            if not np.allclose(a, again[key], rtol=0, atol=nondet_tol):
                return _fail(
                    "Backward is not reentrant, i.e., running backward with same input and grad_output multiple times "
                    "gives different values, although analytical gradient matches numerical gradient. The tolerance "
                    f"for nondeterminism was {nondet_tol}.",
                    raise_exception,
                )
    for i, x in enumerate(inputs):
        if not (isinstance(x, Tensor) and x._requires_grad):
            continue
        for o in out_index:
            n = numerical[(i, o)]
            a = analytical[(i, o)]
            if not np.allclose(a, n, rtol=rtol, atol=atol):
                dt = x._data.dtype  # torch reports both Jacobians in the input's dtype
                return _fail(
                    f"Jacobian mismatch for output {o} with respect to input {i},\n"
                    f"numerical:{_wrap(np.asarray(n, dtype=dt))!r}\nanalytical:{_wrap(np.asarray(a, dtype=dt))!r}\n",
                    raise_exception,
                )
    # Inputs that no differentiable output depends on must have zero numerical gradient too.
    for o, t in enumerate(outputs):
        if isinstance(t, Tensor) and not t._requires_grad and t._data.dtype.kind == "f" and o not in out_index:
            num = _numerical_jacobians(func, inputs, [o], eps)
            for (i, _), n in num.items():
                if not np.allclose(n, 0, atol=atol):
                    return _fail(f"Jacobian mismatch for output {o} with respect to input {i},\n"
                                 f"numerical:{_wrap(n)!r}\nanalytical:{_wrap(np.zeros_like(n))!r}\n", raise_exception)
    if check_undefined_grad and out_index:
        # backward must be linear in the output gradient: zero in, zero out
        outs = _eval(func, inputs)
        diff_in = [x for x in inputs if isinstance(x, Tensor) and x._requires_grad]
        diff_out = [outs[o] for o in out_index]
        zeros = [_wrap(np.zeros(t._data.shape, dtype=t._data.dtype)) for t in diff_out]
        for g in autograd_grad(diff_out, diff_in, zeros, allow_unused=True):
            if g is not None and np.any(g._data != 0):
                return _fail("backward returned a nonzero gradient for zero output gradients", raise_exception)
    return True


@public(namespace=AUTOGRAD)
def gradgradcheck(
    func: Callable,
    inputs: Any,
    grad_outputs: Any = None,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    gen_non_contig_grad_outputs: bool = False,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_fwd_over_rev: bool = False,
    check_rev_over_rev: bool = True,
    fast_mode: bool = False,
    masked: bool = False,
) -> bool:
    """Check second derivatives: :func:`gradcheck` applied to the function computing first derivatives."""
    inputs = _as_tuple(inputs)
    outputs = _eval(func, inputs)
    diff_out = [o for o in outputs if isinstance(o, Tensor) and o._requires_grad]
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = tuple(
            _requires(_wrap(rng.standard_normal(o._data.shape).astype(o._data.dtype))) for o in diff_out
        )
    else:
        grad_outputs = _as_tuple(grad_outputs)
    n_in = len(inputs)
    diff_idx = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x._requires_grad]

    def first_derivatives(*args: Any) -> tuple:
        # gradcheck evaluates this under no_grad for its finite differences; the first
        # derivatives themselves always need a graph.
        prev = STATE.enabled
        STATE.enabled = True
        try:
            ins, gos = args[:n_in], args[n_in:]
            outs = [o for o in _eval(func, ins) if isinstance(o, Tensor) and o._requires_grad]
            grads = autograd_grad(outs, [ins[i] for i in diff_idx], gos, create_graph=True, allow_unused=True)
        finally:
            STATE.enabled = prev
        return tuple(g for g in grads if g is not None)

    return gradcheck(
        first_derivatives,
        inputs + tuple(grad_outputs),
        eps=eps,
        atol=atol,
        rtol=rtol,
        raise_exception=raise_exception,
        nondet_tol=nondet_tol,
        check_undefined_grad=False,
    )


def _requires(t: Tensor) -> Tensor:
    t._requires_grad = True
    return t
