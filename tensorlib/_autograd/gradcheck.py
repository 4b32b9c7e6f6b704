"""Numerical gradient checking: compare backward's Jacobians with finite differences.

Everything here reaches the inputs through the public API (``x.requires_grad``,
``x.data``, ``x.size()``, ``x.new_zeros(...)``, ``tensorlib.autograd.grad``, ...),
never through tensorlib's internals, so tensor-likes that implement
``__torch_function__`` can be checked as in torch: they see the same attribute
reads and the same dispatched calls torch's gradcheck makes on them.

Slow mode builds every Jacobian in full, one input element and one output
element at a time. Fast mode compares one number per (input, output) pair,
``v^T J u`` for random unit vectors ``u`` and ``v``: finite differences give
``J u`` and backward gives ``v^T J``; when they disagree, the slow-mode
Jacobians of the failing pair are added to the report.
"""

from __future__ import annotations

import itertools
import warnings
from typing import Any, Callable, Sequence

from .._hooks import hooks
from .._registry import AUTOGRAD, public
from .function import Function


@public(namespace=AUTOGRAD)
class GradcheckError(RuntimeError):
    """Raised by :func:`gradcheck` and :func:`gradgradcheck` when a check fails."""


def _is_tensor_like(x: Any) -> bool:
    return hasattr(type(x), "__torch_function__")


def _as_tuple(x: Any) -> tuple:
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _is_float_or_complex(x: Any) -> bool:
    return _is_tensor_like(x) and (x.is_floating_point() or x.is_complex())


def _diff_inputs(inputs: tuple) -> list[tuple[int, Any]]:
    """``(position, input)`` for each tensor-like input that requires grad."""
    return [(i, x) for i, x in enumerate(inputs) if _is_tensor_like(x) and x.requires_grad]


def _call(func: Callable, inputs: tuple) -> tuple:
    """``func(*inputs)`` as a tuple of tensor-likes."""
    out = _as_tuple(func(*inputs))
    for i, o in enumerate(out):
        if not _is_tensor_like(o):
            raise TypeError(f"gradcheck: the function must return Tensors, but output {i} is of type {type(o).__name__}")
    return out


def _check_inputs(inputs: tuple) -> None:
    any_requires_grad = False
    for i, x in enumerate(inputs):
        if not (_is_tensor_like(x) and x.requires_grad):
            continue
        api = hooks.api
        if x.dtype not in (api.float64, api.complex128):
            warnings.warn(
                f"Input #{i} requires gradient and is not a double precision floating point or complex. "
                "This check will likely fail if all the inputs are not of double precision floating point or complex. ",
                UserWarning,
                stacklevel=4,
            )
        if x.is_sparse:
            raise NotImplementedError(f"gradcheck: input #{i} is sparse; tensorlib has no sparse layouts")
        if x.layout != api.strided:
            raise NotImplementedError(f"gradcheck: input #{i} has layout {x.layout}; only tensorlib.strided is supported")
        # Finite differences perturb one element at a time: with a zero stride that element is shared.
        if not all(st > 0 or sz <= 1 for st, sz in zip(x.stride(), x.size())):
            raise RuntimeError(
                f"The {i}th input has a dimension with stride 0. gradcheck only supports inputs that are "
                "non-overlapping to be able to compute the numerical gradients correctly. You should call "
                ".contiguous on the input before passing it to gradcheck."
            )
        any_requires_grad = True
    if not any_requires_grad:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, but none of them have requires_grad=True."
        )


# -- finite differences --------------------------------------------------------


def _central_difference(func: Callable, inputs: tuple, entry: Any, delta: Any, scale: float,
                        wanted: Sequence[int], where: str) -> list:
    """``(f(entry + delta) - f(entry - delta)) / (2 * scale)``, flattened, for the outputs at ``wanted``.

    ``entry`` is (a view of) an input's ``.data``, perturbed in place and
    restored even when ``func`` raises.
    """
    orig = entry.clone()
    try:
        entry.copy_(orig - delta)
        out = _call(func, inputs)
        before = [out[k].clone() for k in wanted]
        entry.copy_(orig + delta)
        out = _call(func, inputs)
        after = [out[k].clone() for k in wanted]
    finally:
        entry.copy_(orig)
    columns = []
    for a, b in zip(before, after):
        if a.shape != b.shape:
            raise AssertionError(f"Expected `func` to return outputs with the same shape when inputs are perturbed "
                                 f"{where}by {scale}, but got: shapes {a.shape} and {b.shape}.")
        if a.dtype != b.dtype:
            raise AssertionError(f"Expected `func` to return outputs with the same dtype when inputs are perturbed "
                                 f"{where}by {scale}, but got: dtypes {a.dtype} and {b.dtype}.")
        columns.append(((b - a) / (2 * scale)).detach().reshape(-1))
    return columns


def _directional_derivatives(func: Callable, inputs: tuple, entry: Any, delta: Any, delta_imag: Any,
                             is_complex: bool, scale: float, wanted: Sequence[int], where: str = "") -> list:
    """The derivative of each wanted output along ``delta``; for a complex input, the conjugate Wirtinger one.

    A complex input ``z = x + iy`` is perturbed along its real and imaginary
    parts separately; the two real derivatives combine as ``ds/dx + i ds/dy``.
    """
    ds_dx = _central_difference(func, inputs, entry, delta, scale, wanted, where)
    if not is_complex:
        return ds_dx
    ds_dy = _central_difference(func, inputs, entry, delta_imag * 1j, scale, wanted, where)
    return [dx + dy * 1j for dx, dy in zip(ds_dx, ds_dy)]


def _numerical_jacobian(func: Callable, inputs: tuple, x: Any, outputs: tuple, wanted: Sequence[int],
                        eps: float) -> list:
    """The Jacobians ``J[j, k] = d out[k] / d x[j]`` of the outputs at ``wanted`` with respect to input ``x``."""
    data = x.data  # perturbing .data keeps x's version counter (and any saved graph) untouched
    is_complex = data.is_complex()
    columns = []
    for idx in itertools.product(*[range(m) for m in data.size()]):
        columns.append(_directional_derivatives(func, inputs, data[idx], eps, eps, is_complex, eps, wanted,
                                                f"on index {idx} "))
    if not columns:
        dtype = x.dtype if x.dtype.is_complex else None
        return [outputs[k].new_zeros((0, outputs[k].numel()), dtype=dtype) for k in wanted]
    stack = hooks.api.stack
    return [stack([cols[n] for cols in columns]) for n in range(len(wanted))]


def _float_outputs(outputs: tuple) -> list[int]:
    return [k for k, o in enumerate(outputs) if _is_float_or_complex(o)]


def _check_zero_numerical_gradient(func: Callable, inputs: tuple, func_out: tuple, eps: float) -> None:
    """With no differentiable output, every output must be locally constant in every input."""
    wanted = _float_outputs(func_out)
    for _, x in _diff_inputs(inputs):
        for jac in _numerical_jacobian(func, inputs, x, func_out, wanted, eps):
            if jac.ne(0).sum() > 0:
                raise GradcheckError("Numerical gradient for function expected to be zero")


# -- backward ------------------------------------------------------------------


def _vjp_rows(output: Any, diff: list[Any], grad_outputs: Sequence[Any]) -> list[list[Any]]:
    """``rows[i][r]``: the gradient for input ``i`` of ``grad_outputs[r]`` through ``output`` (None if unused)."""
    rows: list[list[Any]] = [[] for _ in diff]
    for go in grad_outputs:
        grads = hooks.api.autograd.grad(output, diff, go, retain_graph=True, allow_unused=True)
        for i, g in enumerate(grads):
            rows[i].append(None if g is None else g.clone())
    return rows


def _basis(output: Any) -> list[Any]:
    """One-hot gradients shaped like ``output``: backward of each gives one row of the Jacobian."""
    basis = []
    for r in range(output.numel()):
        e = hooks.api.zeros_like(output)
        e.view(-1)[r] = 1.0
        basis.append(e)
    return basis


def _stack(rows: list[list[Any]], diff: list[Any], width: int) -> tuple[list[Any], bool, bool]:
    """The rows as one ``(x.numel(), width)`` matrix per float input, with whether sizes and dtypes matched."""
    sizes_ok = types_ok = True
    jacobians = []
    for i, x in enumerate(diff):
        if not _is_float_or_complex(x):
            continue
        jac = x.new_zeros((x.numel(), width))
        numel = x.numel()
        defined, columns = [], []
        for r, g in enumerate(rows[i]):
            if g is None:
                continue
            if g.size() != x.size():
                sizes_ok = False
            elif g.dtype != x.dtype:
                types_ok = False
            if g.numel() != numel:
                raise GradcheckError("Analytical gradient has incorrect size")
            defined.append(r)
            columns.append(g.reshape(-1))
        if columns:  # one write for all the columns: this runs once per output element
            jac[:, defined] = hooks.api.stack(columns, 1)
        jacobians.append(jac)
    return jacobians, sizes_ok, types_ok


def _analytical_jacobians(output: Any, diff: list[Any], grad_outputs: Sequence[Any], nondet_tol: float,
                          check_grad_dtypes: bool) -> list[Any]:
    """Backward's Jacobian rows for ``grad_outputs``, computed twice to catch a backward that is not reentrant."""
    first, sizes_ok, types_ok = _stack(_vjp_rows(output, diff, grad_outputs), diff, len(grad_outputs))
    second, _, _ = _stack(_vjp_rows(output, diff, grad_outputs), diff, len(grad_outputs))
    if not types_ok and check_grad_dtypes:
        raise GradcheckError("Gradient has dtype mismatch")
    if not sizes_ok:
        raise GradcheckError("Analytical gradient has incorrect size")
    for a, b in zip(first, second):
        if a.numel() != 0 and (a - b).abs().max() > nondet_tol:
            raise GradcheckError(
                "Backward is not reentrant, i.e., running backward with same input and grad_output multiple times "
                "gives different values, although analytical gradient matches numerical gradient. "
                f"The tolerance for nondeterminism was {nondet_tol}."
            )
    return first


# -- comparing -----------------------------------------------------------------


def _allclose(a: Any, b: Any, rtol: float, atol: float) -> bool:
    api = hooks.api
    dtype = api.promote_types(a.dtype, b.dtype)
    return bool(api.allclose(a.to(dtype=dtype), b.to(dtype=dtype), rtol, atol))


def _mismatch(analytical: Any, numerical: Any, out: int, inp: int, part: str | None) -> str:
    prefix = f"While considering the {'imaginary' if part == 'imag' else 'real'} part of complex outputs only, " if part else ""
    return (f"{prefix}Jacobian mismatch for output {out:d} with respect to input {inp:d},\n"
            f"numerical:{numerical}\nanalytical:{analytical}\n")


class _Check:
    """The settings one gradcheck run compares with."""

    def __init__(self, eps: float, atol: float, rtol: float, nondet_tol: float, check_grad_dtypes: bool) -> None:
        self.eps, self.atol, self.rtol = eps, atol, rtol
        self.nondet_tol, self.check_grad_dtypes = nondet_tol, check_grad_dtypes

    def slow(self, func: Callable, func_out: tuple, inputs: tuple, outputs: tuple,
             complex_outputs: Sequence[int] = (), part: str | None = None) -> None:
        """Every Jacobian in full, element by element."""
        if not outputs:
            _check_zero_numerical_gradient(func, inputs, func_out, self.eps)
            return
        # the differentiable outputs' positions in func_out, where finite differences read them
        wanted = [k for k, o in enumerate(func_out) if o.requires_grad]
        diff = [x for _, x in _diff_inputs(inputs)]
        numerical = [_numerical_jacobian(func, inputs, x, func_out, wanted, self.eps) for x in diff]
        for j, o in enumerate(outputs):
            analytical = _analytical_jacobians(o, diff, _basis(o), self.nondet_tol, self.check_grad_dtypes)
            for i, a in enumerate(analytical):
                n = numerical[i][j]
                if not _allclose(a, n, self.rtol, self.atol):
                    raise GradcheckError(_mismatch(a, n, j, i, part if j in complex_outputs else None))

    def fast(self, func: Callable, func_out: tuple, inputs: tuple, outputs: tuple,
             complex_outputs: Sequence[int] = (), part: str | None = None) -> None:
        """One number per (input, output) pair: ``v^T J u`` from both sides, for random unit ``u`` and ``v``."""
        api = hooks.api
        generator = api.Generator()  # a private stream: the user's random state is left alone
        diff = _diff_inputs(inputs)
        us = []
        for _, x in diff:
            ur = _unit_vector(x, generator, real=True)
            us.append((ur, _unit_vector(x, generator, real=True)) if x.is_complex() else ur)
        vs = [_unit_vector(o, generator) for o in outputs]
        wanted = [k for k, o in enumerate(func_out) if o.requires_grad] if outputs else _float_outputs(func_out)
        eps = self.eps
        numerical = []  # numerical[i][j]: v_j . (J_ij u_i), or J_ij u_i when nothing is differentiable
        for (_, x), u in zip(diff, us):
            data = x.data
            ur, ui = u if isinstance(u, tuple) else (u, None)
            jus = _directional_derivatives(func, inputs, data, ur.reshape(data.shape) * eps,
                                           None if ui is None else ui.reshape(data.shape) * eps,
                                           x.is_complex(), eps, wanted)
            numerical.append(jus if not outputs else [(v * ju).sum() for v, ju in zip(vs, jus)])
        if not outputs:
            for jus in numerical:
                for ju in jus:
                    if ju.numel() != 0 and ju.abs().max() > self.nondet_tol:
                        raise GradcheckError("Numerical gradient for function expected to be zero")
            return
        xs = [x for _, x in diff]
        analytical = []  # analytical[j][i]: (v_j^T J_ij) . u_i
        for o, v in zip(outputs, vs):
            rows = _analytical_jacobians(o, xs, [v.reshape(o.shape)], self.nondet_tol, self.check_grad_dtypes)
            analytical.append([_dot_u(vj.t().squeeze(0), u) for vj, u in zip(rows, us)])
        for i, u in enumerate(us):
            for j, v in enumerate(vs):
                a, n = analytical[j][i], numerical[i][j]
                if not _allclose(a, n, self.rtol, _scaled_atol(self.atol, u, v)):
                    raise GradcheckError(_mismatch(a, n, j, i, part if j in complex_outputs else None)
                                         + self._slow_report(func, inputs, outputs, func_out, i, j))

    def _slow_report(self, func: Callable, inputs: tuple, outputs: tuple, func_out: tuple, i: int, j: int) -> str:
        """The failing pair's full Jacobians, which say more than two mismatched numbers."""
        diff = [x for _, x in _diff_inputs(inputs)]
        k = [n for n, o in enumerate(func_out) if o.requires_grad][j]
        n = _numerical_jacobian(func, inputs, diff[i], func_out, [k], self.eps)[0]
        a = _analytical_jacobians(outputs[j], diff, _basis(outputs[j]), float("inf"), False)[i]
        report = ("\nFast mode compared v^T J u for random unit vectors u and v; the full Jacobians of this pair "
                  f"(slow mode) are:\n\nNumerical:\n {n}\nAnalytical:\n{a}\n\n"
                  f"The max per-element difference (slow mode) is: {(n - a).abs().max()}.\n")
        if _allclose(a, n, self.rtol, self.atol):
            report += ("They agree element by element, so slow mode would pass: the random projection made the "
                       "tolerance too tight. Pass fast_mode=False for this function.")
        return report


def _unit_vector(x: Any, generator: Any, real: bool = False) -> Any:
    """A random non-negative unit vector with ``x.numel()`` elements, in ``x``'s dtype (its real dtype if ``real``)."""
    api = hooks.api
    dtype = x.dtype
    if real and dtype.is_complex:
        dtype = api.float64 if dtype == api.complex128 else api.float32
    vec = api.rand(x.numel(), generator=generator, dtype=api.float64).to(dtype=dtype, device=x.device)
    return vec / vec.norm()


def _dot_u(vj: Any, u: Any) -> Any:
    if isinstance(u, tuple):  # complex input: real and imaginary parts were probed separately
        return vj.real.dot(u[0]) + 1j * vj.imag.dot(u[1])
    return vj.dot(u)


def _scaled_atol(atol: float, u: Any, v: Any) -> float:
    # |v^T (A - N) u| <= atol elementwise scales with v^T 1 1^T u = sum(v) * sum(u) for non-negative u, v
    su = float(u[0].sum()) + float(u[1].sum()) if isinstance(u, tuple) else float(u.sum())
    return atol * su * float(v.sum())


# -- complex outputs -------------------------------------------------------------


def _part_of_outputs(func: Callable, part: str) -> Callable:
    """``func`` with ``real`` or ``imag`` applied to each complex output."""
    take = getattr(hooks.api, part)

    def real_valued(*inputs: Any) -> tuple:
        return tuple(take(o) if o.is_complex() else o for o in _call(func, inputs))

    return real_valued


# -- the extra backward checks ---------------------------------------------------


def _check_backward_is_linear(outputs: tuple, inputs: tuple) -> None:
    """Zero output gradients give zero input gradients of the inputs' dtypes and sizes."""
    diff = [x for _, x in _diff_inputs(inputs)]
    if not outputs:
        return
    zeros = [hooks.api.zeros_like(o) for o in outputs]
    grads = hooks.api.autograd.grad(outputs, diff, zeros, allow_unused=True)
    for g, x in zip(grads, diff):
        if g is None:
            continue
        if not g.eq(0).all():
            raise GradcheckError("backward not multiplied by grad_output")
        if g.dtype != x.dtype:
            raise GradcheckError("grad is incorrect type")
        if g.size() != x.size():
            raise GradcheckError("grad is incorrect size")


class _UndefinedGrad(Function):
    """The identity whose backward gives its input no gradient at all (None, not zeros)."""

    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        return x.clone()

    @staticmethod
    def backward(ctx: Any, grad: Any) -> None:
        return None


def _check_undefined_output_grads(func: Callable, outputs: tuple, inputs: tuple) -> None:
    """Backward copes with outputs that receive no gradient: all of them, and one at a time."""
    diff = [x for _, x in _diff_inputs(inputs)]
    api = hooks.api

    def fresh() -> list:
        # tensor-likes that are not Tensors cannot go through a Function: they are left out, as in torch
        return [o for o in _call(func, inputs) if o.requires_grad and isinstance(o, api.Tensor)]

    cases = [[_UndefinedGrad.apply(o) for o in fresh()]]
    if len(cases[0]) > 1:
        for k in range(len(cases[0])):
            cases.append([_UndefinedGrad.apply(o) if n == k else o for n, o in enumerate(fresh())])
    for case in cases:
        if not case:
            continue
        try:
            grads = api.autograd.grad(case, diff, [api.zeros_like(o) for o in case], allow_unused=True)
        except RuntimeError as e:
            raise GradcheckError(
                "Expected backward function to handle undefined output grads: a backward must accept None "
                "for an output that received no gradient (and treat it as zeros)"
            ) from e
        for g in grads:
            if g is not None and not g.eq(0).all():
                raise GradcheckError(
                    "Expected all input grads to be undefined or zero when all output grads are undefined or zero."
                )


# -- entry points -------------------------------------------------------------------


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
    Jacobians (or returns False with ``raise_exception=False``); ``O`` and ``I``
    count differentiable outputs and inputs. Use float64 (or complex128) inputs.
    Inputs may be Tensors or tensor-likes implementing ``__torch_function__``.
    ``fast_mode=True`` compares random projections ``v^T J u`` instead of whole
    Jacobians. Forward-mode AD and the batched (vmap) checks do not exist in
    tensorlib: asking for them raises NotImplementedError.
    """
    if not (check_forward_ad or check_backward_ad):
        raise AssertionError("Expected at least one of check_forward_ad or check_backward_ad to be True")
    if check_batched_grad and not check_backward_ad:
        raise AssertionError("Setting check_batched_grad=True requires check_backward_ad to be True")
    if check_batched_forward_grad and not check_forward_ad:
        raise AssertionError("Setting check_batched_forward_grad=True requires check_forward_ad to be True")
    if check_forward_ad:
        raise NotImplementedError("gradcheck: forward-mode AD is not supported by tensorlib (check_forward_ad=True)")
    if check_batched_grad:
        raise NotImplementedError("gradcheck: tensorlib has no vmap, so check_batched_grad=True cannot be checked")
    if not callable(func):
        raise TypeError(f"gradcheck: func must be callable, but got {type(func).__name__} (not callable)")
    try:
        return _gradcheck(func, _as_tuple(inputs), _Check(eps, atol, rtol, nondet_tol, check_grad_dtypes),
                          fast_mode, check_undefined_grad)
    except GradcheckError:
        if raise_exception:
            raise
        return False


def _gradcheck(func: Callable, inputs: tuple, check: _Check, fast_mode: bool, check_undefined_grad: bool) -> bool:
    _check_inputs(inputs)
    func_out = _call(func, inputs)
    outputs = tuple(o for o in func_out if o.requires_grad)
    run = check.fast if fast_mode else check.slow
    if any(o.is_complex() for o in func_out):
        complex_outputs = [j for j, o in enumerate(outputs) if o.is_complex()]
        for part in ("imag", "real"):
            part_func = _part_of_outputs(func, part)
            part_out = _call(part_func, inputs)
            run(part_func, part_out, inputs, tuple(o for o in part_out if o.requires_grad), complex_outputs, part)
    else:
        run(func, func_out, inputs, outputs)
    _check_backward_is_linear(outputs, inputs)
    if check_undefined_grad:
        _check_undefined_output_grads(func, outputs, inputs)
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
    """Check second derivatives: :func:`gradcheck` of the function that computes first derivatives.

    Without ``grad_outputs``, random ones in ``[-1, 1)`` are made with
    :func:`tensorlib.testing.make_tensor` (they require grad, so gradients with
    respect to them are checked too).
    """
    if not (check_fwd_over_rev or check_rev_over_rev):
        raise AssertionError("Expected at least one of check_fwd_over_rev or check_rev_over_rev to be True")
    if check_undefined_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_undefined_grad=True requires check_rev_over_rev to be True")
    if check_batched_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_batched_grad=True requires check_rev_over_rev to be True")
    api = hooks.api
    inputs = _as_tuple(inputs)
    if grad_outputs is None:
        grad_outputs = tuple(
            api.testing.make_tensor(
                o.shape, dtype=o.dtype if o.is_floating_point() or o.is_complex() else api.double, device=o.device,
                low=-1, high=1, requires_grad=True, noncontiguous=gen_non_contig_grad_outputs,
            )
            for o in _call(func, inputs) if o.requires_grad
        )
    else:
        grad_outputs = _as_tuple(grad_outputs)
    n_out = len(grad_outputs)
    diff_in = {i for i, _ in _diff_inputs(inputs)}
    diff_go = {i for i, g in enumerate(grad_outputs) if g.requires_grad}

    def first_derivatives(*args: Any) -> tuple:
        ins = tuple(x.requires_grad_() if i in diff_in else x for i, x in enumerate(args[: len(args) - n_out]))
        outs = tuple(o for o in _call(func, ins) if o.requires_grad)
        gos = tuple(g.requires_grad_() if i in diff_go else g for i, g in enumerate(args[len(args) - n_out:]))
        grads = api.autograd.grad(outs, tuple(x for i, x in enumerate(ins) if i in diff_in), gos,
                                  create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(
        first_derivatives, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol, raise_exception=raise_exception,
        nondet_tol=nondet_tol, check_undefined_grad=check_undefined_grad, check_grad_dtypes=check_grad_dtypes,
        check_batched_grad=check_batched_grad, fast_mode=fast_mode, check_forward_ad=check_fwd_over_rev,
        check_backward_ad=check_rev_over_rev, masked=masked,
    )
