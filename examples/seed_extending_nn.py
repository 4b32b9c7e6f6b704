"""Seed 002, "Extending torch.nn": a Linear module built on LinearFunction, run unchanged."""

import tensorlib as torch
import tensorlib.nn as nn

from seed_extending_autograd import LinearFunction


class Linear(nn.Module):
    def __init__(self, input_features, output_features, bias=True):
        super(Linear, self).__init__()
        self.input_features = input_features
        self.output_features = output_features

        # nn.Parameter is a special kind of Tensor, that will get
        # automatically registered as Module's parameter once it's assigned
        # as an attribute. Parameters and buffers need to be registered, or
        # they won't appear in .parameters() (doesn't apply to buffers), and
        # won't be converted when e.g. .cuda() is called. You can use
        # .register_buffer() to register buffers.
        # nn.Parameters require gradients by default.
        self.weight = nn.Parameter(torch.Tensor(output_features, input_features))
        if bias:
            self.bias = nn.Parameter(torch.Tensor(output_features))
        else:
            # You should always register all possible parameters, but the
            # optional ones can be None if you want.
            self.register_parameter('bias', None)

        # Not a very smart way to initialize weights
        self.weight.data.uniform_(-0.1, 0.1)
        if self.bias is not None:
            self.bias.data.uniform_(-0.1, 0.1)

    def forward(self, input):
        # See the autograd section for explanation of what happens here.
        return LinearFunction.apply(input, self.weight, self.bias)

    def extra_repr(self):
        # (Optional)Set the extra information about this module. You can test
        # it by printing an object of this class.
        return 'input_features={}, output_features={}, bias={}'.format(
            self.input_features, self.output_features, self.bias is not None
        )


def main() -> None:
    torch.manual_seed(0)
    layer = Linear(4, 3)
    print(layer)
    print([name for name, _ in layer.named_parameters()])
    x = torch.randn(5, 4)
    out = layer(x)
    print(out.shape, type(out.grad_fn).__name__)
    out.sum().backward()
    print(layer.weight.grad.shape, layer.bias.grad.shape)
    print(Linear(4, 3, bias=False))


if __name__ == "__main__":
    main()
