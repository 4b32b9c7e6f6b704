"""The spec notebooks (seeds 003 and 004) run as written and print what they print (torch's names replaced)."""

from __future__ import annotations

import contextlib
import io
import textwrap

import tensorlib

SEED_003_CELLS = [
    (
        '''
        import tensorlib as torch

        # Inherit from Function
        class LinearFunction(torch.autograd.Function):

            # Note that both forward and backward are @staticmethods
            @staticmethod
            # bias is an optional argument
            def forward(ctx, input, weight, bias=None):
                ctx.save_for_backward(input, weight, bias)
                output = input.mm(weight.t())
                if bias is not None:
                    output += bias.unsqueeze(0).expand_as(output)
                return output

            # This function has only a single output, so it gets only one gradient
            @staticmethod
            def backward(ctx, grad_output):
                input, weight, bias = ctx.saved_tensors
                grad_input = grad_weight = grad_bias = None
                if ctx.needs_input_grad[0]:
                    grad_input = grad_output.mm(weight)
                if ctx.needs_input_grad[1]:
                    grad_weight = grad_output.t().mm(input)
                if bias is not None and ctx.needs_input_grad[2]:
                    grad_bias = grad_output.sum(0).squeeze(0)

                return grad_input, grad_weight, grad_bias

        linear = LinearFunction.apply

        _input = torch.randn((10, 4), dtype=torch.float, requires_grad=True)
        print(_input.size())
        weight = torch.randn((3, 4))
        print(weight.size())

        output = linear(_input, weight)
        print(output.size())
        ''',
        "torch.Size([10, 4])\ntorch.Size([3, 4])\ntorch.Size([10, 3])\n",
    ),
    (
        '''
        class MulConstant(torch.autograd.Function):
            @staticmethod
            def forward(ctx, tensor, constant):
                ctx.constant = constant
                return tensor * constant

            @staticmethod
            def backward(ctx, grad_output):
                return grad_output * ctx.constant, None

        mul_constant = MulConstant.apply

        _input = torch.tensor([1.], requires_grad=True)
        constant = torch.tensor([2.])

        y = mul_constant(_input, constant)
        print(y, y.requires_grad)
        ''',
        "tensor([2.], grad_fn=<MulConstantBackward>) True\n",
    ),
]

SEED_004_CELLS = [
    (
        '''
        import tensorlib as torch
        from tensorlib.autograd import Function, gradcheck
        ''',
        "",
    ),
    (
        '''
        class LinearFunction(Function):

            # Note that both forward and backward are @staticmethods
            @staticmethod
            # bias is an optional argument
            def forward(ctx, input, weight, bias=None):
                ctx.save_for_backward(input, weight, bias)
                output = input.mm(weight)
                if bias is not None:
                    output += bias.unsqueeze(0).expand_as(output)
                print('FORWARD: output=', output)
                return output
            # This function has only a single output, so it gets only one gradient
            @staticmethod
            def backward(ctx, grad_output):
                print('BACKWARD: gard_output=', grad_output)
                input, weight, bias = ctx.saved_tensors
                grad_input = grad_weight = grad_bias = None
                if ctx.needs_input_grad[0]:
                    grad_input = grad_output.mm(weight.t())
                if ctx.needs_input_grad[1]:
                    grad_weight = input.t().mm(grad_output)
                if bias is not None and ctx.needs_input_grad[2]:
                    grad_bias = grad_output.sum(0).squeeze(0)
                print('BACKWARD: gard_input=', grad_input)
                print('BACKWARD: gard_weight=', grad_weight)
                print('BACKWARD: gard_bias=', grad_bias)
                return grad_input, grad_weight, grad_bias
        linear = LinearFunction.apply
        ''',
        "",
    ),
    (
        '''
        a = torch.arange(4).view(2,2).double()
        b = torch.arange(6).view(2,3).double()
        a.requires_grad = True
        b.requires_grad = True


        print(a)
        print(b)
        output = linear(a, b)
        print('output=', output)
        loss = torch.sum(output)
        loss.backward()
        ''',
        """tensor([[0., 1.],
        [2., 3.]], dtype=torch.float64, requires_grad=True)
tensor([[0., 1., 2.],
        [3., 4., 5.]], dtype=torch.float64, requires_grad=True)
FORWARD: output= tensor([[ 3.,  4.,  5.],
        [ 9., 14., 19.]], dtype=torch.float64)
output= tensor([[ 3.,  4.,  5.],
        [ 9., 14., 19.]],
       dtype=torch.float64, grad_fn=<LinearFunctionBackward>)
BACKWARD: gard_output= tensor([[1., 1., 1.],
        [1., 1., 1.]], dtype=torch.float64)
BACKWARD: gard_input= tensor([[ 3., 12.],
        [ 3., 12.]], dtype=torch.float64)
BACKWARD: gard_weight= tensor([[2., 2., 2.],
        [4., 4., 4.]], dtype=torch.float64)
BACKWARD: gard_bias= None
""",
    ),
    (
        '''
        class LinearFunction(Function):
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
        linear = LinearFunction.apply

        test = gradcheck(linear, (a, b), eps=1e-6, atol=1e-4)
        print(test)
        ''',
        "True\n",
    ),
    (
        '''
        class LinearFunction(Function):
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
                    grad_weight = input.mm(grad_output)
                if bias is not None and ctx.needs_input_grad[2]:
                    grad_bias = grad_output.sum(0).squeeze(0)
                return grad_input, grad_weight, grad_bias
        linear = LinearFunction.apply

        try:
            test = gradcheck(linear, (a, b), eps=1e-6, atol=1e-4)
            print(test)
        except RuntimeError as e:
            print(f"RuntimeError: {e}")
        ''',
        """RuntimeError: Jacobian mismatch for output 0 with respect to input 1,
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

""",
    ),
    (
        '''
        class Exp(Function):
            @staticmethod
            def forward(ctx, input):
                output = input.exp()
                ctx.save_for_backward(output)
                return output

            @staticmethod
            def backward(ctx, grad_output):
                grad_input = None
                output, = ctx.saved_tensors
                grad_input = grad_output * output
                return grad_input

        exp = Exp.apply

        x = torch.Tensor([2]).squeeze().double()
        x.requires_grad = True
        test = gradcheck(exp, (x,), eps=1e-6, atol=1e-4)
        print(test)
        output = exp(x)
        print('output =', output)
        output.backward()
        print(x.grad)
        ''',
        "True\noutput = tensor(7.3891, dtype=torch.float64, grad_fn=<ExpBackward>)\ntensor(7.3891, dtype=torch.float64)\n",
    ),
]


def _run_notebook(cells):
    namespace: dict = {}
    for code, expected in cells:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(textwrap.dedent(code), "<seed cell>", "exec"), namespace)
        assert out.getvalue() == expected.replace("torch.", "tensorlib."), code
    return namespace


def test_seed_003_notebook_prints_as_the_seed():
    ns = _run_notebook(SEED_003_CELLS)
    assert ns["y"].requires_grad
    ns["y"].backward()
    assert ns["_input"].grad.tolist() == [2.0]


def test_seed_004_notebook_prints_as_the_seed():
    ns = _run_notebook(SEED_004_CELLS)
    assert ns["a"].grad.tolist() == [[3.0, 12.0], [3.0, 12.0]]
    assert ns["b"].grad.tolist() == [[2.0, 2.0, 2.0], [4.0, 4.0, 4.0]]
    assert tensorlib.is_grad_enabled()
