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


class Boxed:
    """A tensor-like holding a Tensor: every call on it is unwrapped, run on the Tensor, and rewrapped.

    ``scale_grads`` multiplies what ``autograd.grad`` returns, to play a wrong backward.
    """

    def __init__(self, t, scale_grads=1.0):
        self.inner, self.scale_grads = t, scale_grads

    def __getattr__(self, name):
        value = getattr(self.inner, name)
        if callable(value):
            method = getattr(tensorlib.Tensor, name)
            return lambda *a, **kw: self.__torch_function__(method, (Boxed,), (self, *a), kw)
        return Boxed._box(value, self.scale_grads)

    def __setitem__(self, key, value):
        self.inner[key] = Boxed._unbox(value)

    def __getitem__(self, key):
        return Boxed(self.inner[key], self.scale_grads)

    @staticmethod
    def _unbox(v):
        if isinstance(v, (tuple, list)):
            return type(v)(Boxed._unbox(e) for e in v)
        return v.inner if isinstance(v, Boxed) else v

    @staticmethod
    def _box(v, scale):
        if isinstance(v, (tuple, list)):
            return type(v)(Boxed._box(e, scale) for e in v)
        return Boxed(v, scale) if isinstance(v, tensorlib.Tensor) else v

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        boxes = [a for a in args if isinstance(a, Boxed)] + [
            e for a in args if isinstance(a, (tuple, list)) for e in a if isinstance(e, Boxed)]
        scale = boxes[0].scale_grads
        out = func(*Boxed._unbox(tuple(args)), **{k: Boxed._unbox(v) for k, v in (kwargs or {}).items()})
        if func is tensorlib.autograd.grad:
            out = tuple(None if g is None else g * scale for g in out)
        return Boxed._box(out, scale)

    def __mul__(self, other):
        return tensorlib.mul(self, other)

    def __sub__(self, other):
        return tensorlib.sub(self, other)

    def __add__(self, other):
        return tensorlib.add(self, other)

    def __truediv__(self, other):
        return tensorlib.div(self, other)

    def __gt__(self, other):
        return tensorlib.gt(self, other)

    def __bool__(self):
        return bool(self.inner)

    __radd__ = __add__
    __rmul__ = __mul__


def _boxed(scale=1.0):
    a = tensorlib.tensor([0.5, -1.5, 2.0], dtype=tensorlib.float64, requires_grad=True)
    b = tensorlib.tensor([1.0, 0.25, -0.75], dtype=tensorlib.float64, requires_grad=True)
    return Boxed(a, scale), Boxed(b, scale)


@pytest.mark.parametrize("fast_mode", [False, True])
def test_gradcheck_checks_tensor_likes(fast_mode):
    f = lambda a, b: tensorlib.mul(tensorlib.sin(a), b)  # noqa: E731
    assert gradcheck(f, _boxed(), fast_mode=fast_mode) is True
    assert gradgradcheck(f, _boxed(), fast_mode=fast_mode) is True
    # the Jacobians are read from what the tensor-like's autograd.grad returns: a wrong one is caught
    with pytest.raises(tensorlib.autograd.GradcheckError, match="Jacobian mismatch for output 0 with respect to input 0"):
        gradcheck(f, _boxed(scale=1.01), fast_mode=fast_mode)


def test_gradcheck_restores_an_input_when_the_function_raises():
    x = tensorlib.tensor([1.0, 2.0], dtype=tensorlib.float64, requires_grad=True)
    calls = []

    def flaky(a):
        calls.append(1)
        if len(calls) == 3:  # the second finite-difference evaluation, with the input perturbed
            raise ValueError("boom")
        return a * 2

    with pytest.raises(ValueError, match="boom"):
        gradcheck(flaky, (x,))
    assert x.tolist() == [1.0, 2.0]


@pytest.mark.parametrize("fast_mode", [False, True])
def test_gradcheck_checks_complex_functions(fast_mode):
    z = tensorlib.tensor([0.5 + 1j, -1.0 - 0.5j], dtype=tensorlib.complex128, requires_grad=True)
    assert gradcheck(lambda a: a * a.conj() * 2, (z,), fast_mode=fast_mode)

    class WrongConj(Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * a

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return g * 2 * a  # should be g * conj(2a)

    with pytest.raises(tensorlib.autograd.GradcheckError,
                       match="While considering the imaginary part of complex outputs only, Jacobian mismatch"):
        gradcheck(WrongConj.apply, (z,), fast_mode=fast_mode)


def test_fast_mode_leaves_the_global_random_state_alone():
    x = tensorlib.randn(4, dtype=tensorlib.float64, requires_grad=True)
    tensorlib.manual_seed(7)
    expected = tensorlib.rand(3)
    tensorlib.manual_seed(7)
    assert gradcheck(lambda a: a.exp(), (x,), fast_mode=True)
    assert tensorlib.equal(tensorlib.rand(3), expected)


def test_checks_tensorlib_cannot_run_raise_not_implemented():
    x = tensorlib.ones(2, dtype=tensorlib.float64, requires_grad=True)
    with pytest.raises(NotImplementedError, match="no vmap"):
        gradcheck(lambda a: a * 2, (x,), check_batched_grad=True)
    with pytest.raises(NotImplementedError, match="forward-mode AD"):
        gradcheck(lambda a: a * 2, (x,), check_forward_ad=True)
    with pytest.raises(AssertionError, match="requires check_backward_ad to be True"):
        gradcheck(lambda a: a * 2, (x,), check_batched_grad=True, check_backward_ad=False, check_forward_ad=True)


def test_gradcheck_checks_backward_with_undefined_output_gradients():
    class OnesWhenUndefined(Function):
        @staticmethod
        def forward(ctx, a):
            ctx.set_materialize_grads(False)
            ctx.save_for_backward(a)
            return a * 2

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return tensorlib.ones_like(a) if g is None else g * 2  # an undefined gradient must act as zeros

    x = tensorlib.randn(3, dtype=tensorlib.float64, requires_grad=True)
    with pytest.raises(tensorlib.autograd.GradcheckError, match="Expected all input grads to be undefined or zero"):
        gradcheck(OnesWhenUndefined.apply, (x,))
    assert gradcheck(OnesWhenUndefined.apply, (x,), check_undefined_grad=False)


def test_python_functions_run_when_no_gradient_reaches_them():
    """As in torch, a Function whose outputs get no gradient still runs its backward (on zeros)."""
    seen = []

    class Recorded(Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            seen.append(g.tolist())
            return g * 2

    class Blocks(Function):
        @staticmethod
        def forward(ctx, a):
            return a * 3

        @staticmethod
        def backward(ctx, g):
            return None

    x = tensorlib.ones(2, dtype=tensorlib.float64, requires_grad=True)
    Blocks.apply(Recorded.apply(x)).sum().backward()
    assert seen == [[0.0, 0.0]] and x.grad.tolist() == [0.0, 0.0]
    # builtin backward formulas pass "no gradient" on
    y = tensorlib.ones(2, dtype=tensorlib.float64, requires_grad=True)
    assert tensorlib.autograd.grad(Blocks.apply(y.exp()).sum(), y, allow_unused=True) == (None,)


def test_module_path_of_gradcheck():
    from tensorlib.autograd.gradcheck import GradcheckError, gradcheck as gc

    assert gc is tensorlib.autograd.gradcheck and GradcheckError is tensorlib.autograd.GradcheckError
