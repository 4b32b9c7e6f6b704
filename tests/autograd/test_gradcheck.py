"""gradcheck and gradgradcheck: finite differences against backward, and the seed 004 failure report."""

from __future__ import annotations

import numpy as np
import pytest

import tensorlib
from tensorlib.autograd import Function, gradcheck, gradgradcheck

from tests.autograd.functions import LinearFunction


class GoodLinear(Function):
    """Seed 004, case 1: ``input.mm(weight)`` with the right gradients."""

    @staticmethod
    def forward(ctx, input, weight, bias=None):
        ctx.save_for_backward(input, weight, bias)
        output = input.mm(weight)
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight.t())
        if ctx.needs_input_grad[1]:
            grad_weight = input.t().mm(grad_output)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0).squeeze(0)
        return grad_input, grad_weight, grad_bias


class WrongLinear(GoodLinear):
    """Seed 004, case 2: ``grad_weight = input.mm(grad_output)`` (wrong)."""

    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight.t())
        if ctx.needs_input_grad[1]:
            grad_weight = input.mm(grad_output)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0).squeeze(0)
        return grad_input, grad_weight, grad_bias


def _seed_inputs():
    a = tensorlib.arange(4).view(2, 2).double()
    b = tensorlib.arange(6).view(2, 3).double()
    a.requires_grad = True
    b.requires_grad = True
    return a, b


SEED_004_MISMATCH = """Jacobian mismatch for output 0 with respect to input 1,
numerical:tensor([[0.0000, 0.0000, 0.0000, 2.0000, 0.0000, 0.0000],
        [0.0000, 0.0000, 0.0000, 0.0000, 2.0000, 0.0000],
        [0.0000, 0.0000, 0.0000, 0.0000, 0.0000, 2.0000],
        [1.0000, 0.0000, 0.0000, 3.0000, 0.0000, 0.0000],
        [0.0000, 1.0000, 0.0000, 0.0000, 3.0000, 0.0000],
        [0.0000, 0.0000, 1.0000, 0.0000, 0.0000, 3.0000]],
       dtype=torch.float64)
analytical:tensor([[0., 0., 0., 1., 0., 0.],
        [0., 0., 0., 0., 1., 0.],
        [0., 0., 0., 0., 0., 1.],
        [2., 0., 0., 3., 0., 0.],
        [0., 2., 0., 0., 3., 0.],
        [0., 0., 2., 0., 0., 3.]], dtype=torch.float64)
""".replace("torch.", "tensorlib.")


def test_seed_004_correct_backward_passes():
    assert gradcheck(GoodLinear.apply, _seed_inputs(), eps=1e-6, atol=1e-4) is True


def test_seed_004_wrong_backward_reports_both_jacobians():
    with pytest.raises(RuntimeError) as info:
        gradcheck(WrongLinear.apply, _seed_inputs(), eps=1e-6, atol=1e-4)
    assert isinstance(info.value, tensorlib.autograd.GradcheckError)
    assert str(info.value).startswith("Jacobian mismatch for output 0 with respect to input 1,\n")
    assert str(info.value) == SEED_004_MISMATCH


def test_raise_exception_false_returns_false():
    assert gradcheck(WrongLinear.apply, _seed_inputs(), eps=1e-6, atol=1e-4, raise_exception=False) is False


def test_seed_004_exp_example():
    class Exp(Function):
        @staticmethod
        def forward(ctx, input):
            output = input.exp()
            ctx.save_for_backward(output)
            return output

        @staticmethod
        def backward(ctx, grad_output):
            (output,) = ctx.saved_tensors
            return grad_output * output

    x = tensorlib.Tensor([2]).squeeze().double()
    x.requires_grad = True
    assert gradcheck(Exp.apply, (x,), eps=1e-6, atol=1e-4) is True
    output = Exp.apply(x)
    assert "output = " + str(output) == "output = tensor(7.3891, dtype=tensorlib.float64, grad_fn=<ExpBackward>)"
    output.backward()
    assert str(x.grad) == "tensor(7.3891, dtype=tensorlib.float64)"


def test_seed_002_gradcheck_example():
    Linear = LinearFunction  # seed 002's Function, shared with the Function tests
    inputs = (tensorlib.randn(8, 6, dtype=tensorlib.double, requires_grad=True),
              tensorlib.randn(5, 6, dtype=tensorlib.double, requires_grad=True),
              tensorlib.randn(5, dtype=tensorlib.double, requires_grad=True))
    assert gradcheck(Linear.apply, inputs, eps=1e-6, atol=1e-4) is True
    assert gradgradcheck(Linear.apply, inputs) is True


def test_gradcheck_on_builtin_ops():
    x = tensorlib.randn(3, 4, dtype=tensorlib.float64, requires_grad=True)
    y = tensorlib.randn(4, 2, dtype=tensorlib.float64, requires_grad=True)
    assert gradcheck(lambda a, b: (a @ b).tanh() * 2, (x, y))
    assert gradcheck(lambda a: a.softmax(1), (x,))
    assert gradgradcheck(lambda a, b: (a @ b).sigmoid(), (x, y))


def test_gradcheck_multiple_outputs_and_non_tensor_arguments():
    x = tensorlib.randn(3, dtype=tensorlib.float64, requires_grad=True)
    assert gradcheck(lambda a, k: (a * k, a.exp()), (x, 3.0))

    class BadSecond(Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2, a * 3

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 * 2 + g2 * 2  # should be g2 * 3

    with pytest.raises(RuntimeError, match="Jacobian mismatch for output 1 with respect to input 0,"):
        gradcheck(BadSecond.apply, (x,))


def test_gradcheck_ignores_inputs_that_do_not_require_grad():
    x = tensorlib.randn(3, dtype=tensorlib.float64, requires_grad=True)
    c = tensorlib.randn(3, dtype=tensorlib.float64)
    assert gradcheck(lambda a, b: a * b, (x, c))


def test_gradcheck_restores_inputs():
    x = tensorlib.randn(3, dtype=tensorlib.float64, requires_grad=True)
    before = x.detach().clone()
    gradcheck(lambda a: a**2, (x,))
    assert np.array_equal(x.detach().numpy(), before.numpy())
    assert x.grad is None


def test_gradcheck_needs_an_input_that_requires_grad():
    with pytest.raises(ValueError, match="at least one input tensor to require gradient"):
        gradcheck(lambda a: a * 2, (tensorlib.ones(2, dtype=tensorlib.float64),))


def test_gradcheck_needs_tensor_outputs():
    x = tensorlib.ones(2, dtype=tensorlib.float64, requires_grad=True)
    with pytest.raises(TypeError, match="output 0 is of type int"):
        gradcheck(lambda a: 3, (x,))
    with pytest.raises(TypeError, match="not callable"):
        gradcheck(3, (x,))


def test_gradcheck_warns_for_single_precision():
    x = tensorlib.randn(2, requires_grad=True)
    with pytest.warns(UserWarning, match="not a double precision"):
        gradcheck(lambda a: a * 2, (x,), eps=1e-3, atol=1e-2)


def test_gradcheck_tolerances():
    class Slightly(Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2.01  # off by 0.5%: more than the default rtol=1e-3 allows

    x = tensorlib.randn(3, dtype=tensorlib.float64, requires_grad=True)
    assert not gradcheck(Slightly.apply, (x,), raise_exception=False)
    assert gradcheck(Slightly.apply, (x,), atol=0.05)
    assert gradcheck(Slightly.apply, (x,), atol=0, rtol=1e-2)
    assert not gradcheck(Slightly.apply, (x,), atol=0, rtol=1e-3, raise_exception=False)


def test_gradcheck_reports_wrongly_shaped_gradient():
    class Wrong(Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g.sum()

    x = tensorlib.randn(3, dtype=tensorlib.float64, requires_grad=True)
    # summed to a scalar: the engine refuses it before gradcheck compares anything
    with pytest.raises(RuntimeError, match="WrongBackward returned an invalid gradient at index 0"):
        gradcheck(Wrong.apply, (x,))


def test_gradgradcheck_detects_a_non_differentiable_backward():
    class Cube(Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a**3

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return g * 3 * a.detach() ** 2  # correct values, but hides the dependence on a

    x = tensorlib.tensor([1.5, -0.5], dtype=tensorlib.float64, requires_grad=True)
    assert gradcheck(Cube.apply, (x,))
    with pytest.raises(RuntimeError, match="Jacobian mismatch for output 0 with respect to input 0,"):
        gradgradcheck(Cube.apply, (x,))
    assert gradgradcheck(Cube.apply, (x,), raise_exception=False) is False


def test_gradgradcheck_with_given_grad_outputs():
    x = tensorlib.randn(3, dtype=tensorlib.float64, requires_grad=True)
    go = tensorlib.randn(3, dtype=tensorlib.float64, requires_grad=True)
    assert gradgradcheck(lambda a: a.sin() * a, (x,), (go,))


def test_gradcheck_matches_torch_verdicts():
    torch = pytest.importorskip("torch")

    def make(lib, wrong):
        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                ctx.save_for_backward(a, b)
                return a * b.exp()

            @staticmethod
            def backward(ctx, g):
                a, b = ctx.saved_tensors
                gb = g * a * b.exp()
                return g * b.exp(), (gb * 1.01 if wrong else gb)

        return F.apply

    rng = np.random.default_rng(3)
    da, db = rng.standard_normal(4), rng.standard_normal(4)
    for wrong in (False, True):
        ours = gradcheck(make(tensorlib, wrong), (tensorlib.tensor(da, requires_grad=True),
                                                  tensorlib.tensor(db, requires_grad=True)), raise_exception=False)
        theirs = torch.autograd.gradcheck(make(torch, wrong), (torch.tensor(da, requires_grad=True),
                                                               torch.tensor(db, requires_grad=True)),
                                          raise_exception=False)
        assert ours == theirs == (not wrong)


def test_gradcheck_functions_returning_views_of_their_input():
    x = tensorlib.randn(3, dtype=tensorlib.double, requires_grad=True)
    assert gradcheck(lambda a: a.view(3), (x,))
    assert gradcheck(lambda a: a[1:], (x,))
    assert gradcheck(lambda a: a.t(), (tensorlib.randn(2, 3, dtype=tensorlib.double, requires_grad=True),))
