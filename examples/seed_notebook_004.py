"""Seed 004: a notebook on Function, backward and gradcheck (including a failing check), cells run unchanged."""

import tensorlib as torch
from tensorlib.autograd import Function, gradcheck


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
        # This is a pattern that is very convenient - at the top of backward
        # unpack saved_tensors and initialize all gradients w.r.t. inputs to
        # None. Thanks to the fact that additional trailing Nones are
        # ignored, the return statement is simple even when the function has
        # optional inputs.
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


def cell_3():
    linear = LinearFunction.apply
    #input = (torch.randn(20,20,dtype=torch.double,requires_grad=True), torch.randn(30,20,dtype=torch.double,requires_grad=True))
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
    return a, b


def cell_4(a, b):
    """Case 1: the correct way (a correct grad_weight)."""
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


def cell_5(a, b):
    """Case 2: what if the backward has problems? (a wrong grad_weight)"""
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

    test = gradcheck(linear, (a, b), eps=1e-6, atol=1e-4)
    print(test)


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


def cell_6():
    exp = Exp.apply

    x = torch.Tensor([2]).squeeze().double()
    x.requires_grad = True
    test = gradcheck(exp, (x,), eps=1e-6, atol=1e-4)
    print(test)
    output = exp(x)
    print('output =', output)
    output.backward()
    print(x.grad)


def main():
    a, b = cell_3()
    print()
    cell_4(a, b)
    print()
    try:
        cell_5(a, b)
    except RuntimeError as e:  # the notebook shows the raised error
        print(f"RuntimeError: {e}")
    print()
    cell_6()


if __name__ == "__main__":
    main()
