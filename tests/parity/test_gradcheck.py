"""gradcheck and gradgradcheck give torch's verdicts and errors, in slow and fast mode, on every kind of function.

Each scenario runs one function through both modes; a verdict is recorded as a
bool, a failure as its exception type and first line.
"""

from __future__ import annotations

import importlib
import warnings

import pytest

from tests.parity.differential import differential


def _verdicts(torch, rec, func, inputs, expect, match=None, **kwargs):
    """Record gradcheck's answer in slow and fast mode: ``expect`` is True or an exception type."""
    for fast in (False, True):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # single-precision inputs warn in both libraries
            if expect is True:
                rec(torch.autograd.gradcheck(func, inputs, fast_mode=fast, **kwargs), True)
            else:
                rec.raises(expect, torch.autograd.gradcheck, func, inputs, fast_mode=fast, match=match, **kwargs)


def _error(torch):
    return importlib.import_module(torch.__name__ + ".autograd.gradcheck").GradcheckError


def _x(torch, requires_grad=True):
    return torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64, requires_grad=requires_grad)


def _y(torch):
    return torch.tensor([1.5, 0.25, -2.0], dtype=torch.float64, requires_grad=True)


@differential
def test_correct_functions_pass(torch, rec):
    x, y = _x(torch), _y(torch)
    _verdicts(torch, rec, lambda a, b: (a * b).sin() + b.exp(), (x, y), True)
    _verdicts(torch, rec, lambda a, k, b: a * k + b ** 2, (x, 2.0, y), True)  # a number between two tensors
    _verdicts(torch, rec, lambda a: a.sin(), (torch.tensor(0.3, dtype=torch.float64, requires_grad=True),), True)
    _verdicts(torch, rec, lambda a: a.sin(), (torch.zeros(0, dtype=torch.float64, requires_grad=True),), True)
    _verdicts(torch, rec, lambda a: (a.sin(), a.argmax()), (x,), True)  # integer outputs are not checked
    _verdicts(torch, rec, lambda a: (a * 2, a.detach() * 3), (x,), True)  # nor float outputs without grad
    _verdicts(torch, rec, lambda a: (a > 0).double(), (x,), True)  # nothing differentiable, locally constant
    _verdicts(torch, rec, lambda a: a * 2, (torch.tensor([1.0, 2.0], requires_grad=True),), True, eps=1e-3, atol=1e-2)
    m = torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.float64, requires_grad=True)
    _verdicts(torch, rec, lambda a: a.t() @ a, (m,), True)
    _verdicts(torch, rec, lambda a: a.t(), (m,), True)  # outputs that are views of the input


@differential
def test_complex_inputs_and_outputs(torch, rec):
    z = torch.tensor([0.5 + 1j, -1.0 - 0.5j], dtype=torch.complex128, requires_grad=True)
    x = _x(torch)
    _verdicts(torch, rec, lambda a: (a * a.conj()).real * 2 + a.abs(), (z,), True)
    _verdicts(torch, rec, lambda a: a * a * 2, (z,), True)
    _verdicts(torch, rec, lambda a: a * (1 + 2j), (x,), True)


def _wrong_function(torch, kind):
    class Wrong(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a * b

        @staticmethod
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            if kind == "second input":
                return g * b, g * a * 1.5
            if kind == "not linear":
                return g * b + 1e-9, g * a
            if kind == "dtype":
                return (g * b).float(), g * a
            raise AssertionError(kind)

    return Wrong.apply


@differential
def test_wrong_backwards_are_reported(torch, rec):
    x, y = _x(torch), _y(torch)
    GradcheckError = _error(torch)
    wrong = _wrong_function(torch, "second input")
    # inputs are counted among those that require grad: y is input 1, not 2
    _verdicts(torch, rec, lambda a, k, b: wrong(a, b), (x, 2.0, y), GradcheckError,
              match="Jacobian mismatch for output 0 with respect to input 1,")
    _verdicts(torch, rec, _wrong_function(torch, "not linear"), (x, y), GradcheckError,
              match="backward not multiplied by grad_output")
    # the engine casts a gradient to its input's dtype, so even check_grad_dtypes sees no mismatch
    _verdicts(torch, rec, _wrong_function(torch, "dtype"), (x, y), True, check_grad_dtypes=True)
    _verdicts(torch, rec, lambda a: a.detach() * 2, (x,), GradcheckError,
              match="Numerical gradient for function expected to be zero")
    rec(torch.autograd.gradcheck(wrong, (x, y), raise_exception=False), False)
    rec(torch.autograd.gradcheck(wrong, (x, y), raise_exception=False, fast_mode=True), False)


@differential
def test_bad_inputs(torch, rec):
    expanded = torch.tensor([1.0], dtype=torch.float64).expand(3).requires_grad_()
    _verdicts(torch, rec, lambda a: a * 2, (expanded,), RuntimeError, match="The 0th input has a dimension with stride 0")
    _verdicts(torch, rec, lambda a: a * 2, (_x(torch, requires_grad=False),), ValueError,
              match="gradcheck expects at least one input tensor to require gradient")
    x = _x(torch)
    rec.raises(AssertionError, torch.autograd.gradcheck, lambda a: a, (x,), check_backward_ad=False,
               match="Expected at least one of check_forward_ad or check_backward_ad to be True")
    rec.raises(AssertionError, torch.autograd.gradgradcheck, lambda a: a, (x,), check_rev_over_rev=False,
               match="Expected at least one of check_fwd_over_rev or check_rev_over_rev to be True")


@differential
def test_gradgradcheck(torch, rec):
    x, y = _x(torch), _y(torch)

    class HiddenDependence(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a ** 3

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return g * 3 * a.detach() ** 2  # right values, but the dependence on a is hidden from double backward

    for fast in (False, True):
        rec(torch.autograd.gradgradcheck(lambda a, b: (a * b).sin() * a, (x, y), fast_mode=fast), True)
        go = torch.tensor([0.3, -0.7, 1.1], dtype=torch.float64, requires_grad=True)
        rec(torch.autograd.gradgradcheck(lambda a: a.exp() * a, (x,), (go,), fast_mode=fast), True)
        rec(torch.autograd.gradcheck(HiddenDependence.apply, (x,), fast_mode=fast), True)
        rec.raises(_error(torch), torch.autograd.gradgradcheck, HiddenDependence.apply, (x,),
                   fast_mode=fast, match="Jacobian mismatch for output 0 with respect to input 0,")


def test_fast_mode_report_adds_the_slow_jacobians():
    import tensorlib

    wrong = _wrong_function(tensorlib, "second input")
    with pytest.raises(tensorlib.autograd.GradcheckError) as info:
        tensorlib.autograd.gradcheck(wrong, (_x(tensorlib), _y(tensorlib)), fast_mode=True)
    message = str(info.value)
    # the two projections are 0-d tensors, which format as numbers (torch's Tensor.__format__)
    head = message.split("\n")
    assert head[0] == "Jacobian mismatch for output 0 with respect to input 1,"
    assert float(head[1].removeprefix("numerical:")) != float(head[2].removeprefix("analytical:"))
    assert "Numerical:\n tensor([[" in message and "Analytical:\ntensor([[" in message
    assert "The max per-element difference (slow mode) is: " in message
