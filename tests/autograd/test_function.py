"""Custom ``autograd.Function``: the API of spec seed 002 (forward/backward with ctx, apply, ctx methods)."""

from __future__ import annotations

import numpy as np
import pytest

import tensorlib
from tensorlib.autograd import Function, once_differentiable

from tests.autograd.functions import LinearFunction
from tests.helpers import assert_close


class MulConstant(Function):
    @staticmethod
    def forward(ctx, tensor, constant):
        ctx.constant = constant
        return tensor * constant

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.constant, None


def _rand(*shape, requires_grad=True):
    return tensorlib.randn(*shape, dtype=tensorlib.float64, requires_grad=requires_grad)


def test_linear_function_forward_and_gradients():
    x, w, b = _rand(5, 4), _rand(3, 4), _rand(3)
    out = LinearFunction.apply(x, w, b)
    assert out.shape == (5, 3)
    assert type(out.grad_fn).__name__ == "LinearFunctionBackward"
    assert repr(out).endswith("grad_fn=<LinearFunctionBackward>)")
    ref = x.detach().numpy() @ w.detach().numpy().T + b.detach().numpy()
    np.testing.assert_allclose(out.detach().numpy(), ref)
    g = np.random.default_rng(0).standard_normal((5, 3))
    out.backward(tensorlib.tensor(g))
    np.testing.assert_allclose(x.grad.numpy(), g @ w.detach().numpy())
    np.testing.assert_allclose(w.grad.numpy(), g.T @ x.detach().numpy())
    np.testing.assert_allclose(b.grad.numpy(), g.sum(0))


def test_linear_function_matches_torch():
    torch = pytest.importorskip("torch")

    class TorchLinear(torch.autograd.Function):
        forward = staticmethod(LinearFunction.forward)
        backward = staticmethod(LinearFunction.backward)

    rng = np.random.default_rng(1)
    data = [rng.standard_normal(s) for s in ((6, 4), (3, 4), (3,))]
    ours = [tensorlib.tensor(d, requires_grad=True) for d in data]
    theirs = [torch.tensor(d, requires_grad=True) for d in data]
    (LinearFunction.apply(*ours) ** 2).sum().backward()
    (TorchLinear.apply(*theirs) ** 2).sum().backward()
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-12)


def test_optional_argument_and_needs_input_grad():
    seen = {}

    class Probe(Function):
        @staticmethod
        def forward(ctx, a, b, c=None, scale=2.0):
            seen["forward_grad_enabled"] = tensorlib.is_grad_enabled()
            seen["a_requires_grad_in_forward"] = a.requires_grad
            return a * b * scale

        @staticmethod
        def backward(ctx, g):
            seen["needs"] = ctx.needs_input_grad
            return g, None, None, None

    a, b = _rand(2), _rand(2, requires_grad=False)
    Probe.apply(a, b).sum().backward()
    assert seen["needs"] == (True, False)  # one entry per argument given, as torch
    assert seen["forward_grad_enabled"] is False  # forward runs without recording
    assert seen["a_requires_grad_in_forward"] is True
    Probe.apply(a, b, None, scale=3.0).sum().backward()  # keyword arguments are bound to forward's signature
    assert seen["needs"] == (True, False, False, False)


def test_mul_constant_and_non_tensor_argument():
    x = tensorlib.tensor([1.0, 2.0], requires_grad=True)
    y = MulConstant.apply(x, 5.0)
    assert y.requires_grad and type(y.grad_fn).__name__ == "MulConstantBackward"
    y.sum().backward()
    assert_close(x.grad, [5.0, 5.0])


def test_seed_003_mul_constant_prints():
    x = tensorlib.tensor([1.0], requires_grad=True)
    y = MulConstant.apply(x, tensorlib.tensor([2.0]))
    assert f"{y} {y.requires_grad}" == "tensor([2.], grad_fn=<MulConstantBackward>) True"


def test_gradient_for_non_tensor_input_is_an_error():
    class Bad(Function):
        @staticmethod
        def forward(ctx, a, k):
            return a * k

        @staticmethod
        def backward(ctx, g):
            return g, g

    x = _rand(2)
    with pytest.raises(RuntimeError, match="BadBackward returned a gradient different than None at position 2"):
        Bad.apply(x, 3).sum().backward()
    assert x.grad is None


def test_extra_trailing_none_gradients_are_allowed_but_not_extra_tensors():
    class Extra(Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2, None, None

    class TooMany(Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2, g

    class TooFew(Function):
        @staticmethod
        def forward(ctx, a, b):
            return a * b

        @staticmethod
        def backward(ctx, g):
            return g

    x = _rand(2)
    Extra.apply(x).sum().backward()
    assert_close(x.grad, [2.0, 2.0])
    with pytest.raises(RuntimeError, match=r"function TooManyBackward returned an incorrect number of gradients \(expected 1, got 2\)"):
        TooMany.apply(x).sum().backward()
    with pytest.raises(RuntimeError, match=r"function TooFewBackward returned an incorrect number of gradients \(expected 2, got 1\)"):
        TooFew.apply(x, x).sum().backward()


def test_wrong_gradient_shape_names_function_and_index():
    class WrongShape(Function):
        @staticmethod
        def forward(ctx, a, b):
            return a * b

        @staticmethod
        def backward(ctx, g):
            return g, tensorlib.ones(5, dtype=tensorlib.float64)

    a, b = _rand(2), _rand(2)
    with pytest.raises(
        RuntimeError,
        match=r"Function WrongShapeBackward returned an invalid gradient at index 1 - got \[5\] but expected shape "
        r"compatible with \[2\]",
    ):
        WrongShape.apply(a, b).sum().backward()
    assert a.grad is None and b.grad is None


def test_broadcastable_gradient_is_summed_to_the_input_shape():
    class Broad(Function):
        @staticmethod
        def forward(ctx, a):
            return a * 1

        @staticmethod
        def backward(ctx, g):
            return g.expand(3, 2)

    x = _rand(2)
    Broad.apply(x).sum().backward()
    assert_close(x.grad, [3.0, 3.0])


def test_non_tensor_gradient_is_an_error():
    class Wrong(Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return 3

    with pytest.raises(RuntimeError, match="WrongBackward.*index 0.*got int"):
        Wrong.apply(_rand(2)).sum().backward()


def test_gradient_dtype_is_cast_to_the_input_dtype():
    class Cast(Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return (g * 2).float()

    x = _rand(2)
    Cast.apply(x).sum().backward()
    assert x.grad.dtype is tensorlib.float64


def test_tensors_inside_containers_are_not_tracked():
    seen = {}

    class ListIn(Function):
        @staticmethod
        def forward(ctx, tensors, scale):
            return tensors[0] * scale

        @staticmethod
        def backward(ctx, g):
            seen["needs"] = ctx.needs_input_grad
            return None, g

    x = _rand(2)
    out = ListIn.apply([x], tensorlib.ones(2, dtype=tensorlib.float64))
    assert not out.requires_grad  # x is inside a list: not an input of the graph
    s = _rand(2)
    ListIn.apply([x], s).sum().backward()
    assert seen["needs"] == (False, True)
    assert x.grad is None
    assert_close(s.grad, [1.0, 1.0])

    class DictIn(Function):
        @staticmethod
        def forward(ctx, d):
            return d["t"] * 2

        @staticmethod
        def backward(ctx, g):
            return None

    assert not DictIn.apply({"t": x}).requires_grad


def test_no_input_requires_grad_means_no_graph():
    out = LinearFunction.apply(_rand(2, 3, requires_grad=False), _rand(4, 3, requires_grad=False))
    assert not out.requires_grad and out.grad_fn is None
    with tensorlib.no_grad():
        out = LinearFunction.apply(_rand(2, 3), _rand(4, 3))
    assert not out.requires_grad and out.grad_fn is None


def test_integer_outputs_never_require_grad():
    grads = {}

    class Both(Function):
        @staticmethod
        def forward(ctx, a):
            return a.argmax(), a * 2

        @staticmethod
        def backward(ctx, g_idx, g_val):
            grads["idx"] = g_idx
            return g_val * 2

    x = _rand(3)
    idx, val = Both.apply(x)
    assert idx.dtype is tensorlib.int64 and not idx.requires_grad and idx.grad_fn is None
    assert val.requires_grad
    val.sum().backward()
    assert_close(x.grad, [2.0, 2.0, 2.0])
    assert grads["idx"].dtype is tensorlib.int64 and grads["idx"].item() == 0  # materialised zero, as torch


def test_mark_non_differentiable():
    seen = {}

    class Sort(Function):
        @staticmethod
        def forward(ctx, a):
            values, indices = a.sort()
            ctx.mark_non_differentiable(indices)
            ctx.save_for_backward(indices)
            return values, indices

        @staticmethod
        def backward(ctx, g_values, g_indices):
            (indices,) = ctx.saved_tensors
            seen["g_indices"] = g_indices
            return tensorlib.zeros_like(g_values).scatter(0, indices, g_values)

    class Twice(Function):
        @staticmethod
        def forward(ctx, a):
            out = a * 2
            ctx.mark_non_differentiable(out)
            return out

        @staticmethod
        def backward(ctx, g):
            return g

    a = tensorlib.tensor([3.0, 1.0, 2.0], requires_grad=True)
    values, indices = Sort.apply(a)
    assert values.requires_grad and not indices.requires_grad
    (values * tensorlib.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert_close(a.grad, [3.0, 1.0, 2.0])
    assert seen["g_indices"].tolist() == [0, 0, 0]
    assert not Twice.apply(a).requires_grad


def test_mark_dirty():
    class Double(Function):
        @staticmethod
        def forward(ctx, a):
            a.mul_(2)
            ctx.mark_dirty(a)
            return a

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = tensorlib.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1
    v0 = y._version_value
    out = Double.apply(y)
    assert out is y  # the modified input itself is returned
    assert type(y.grad_fn).__name__ == "DoubleBackward"
    assert y._version_value > v0
    assert_close(y.detach(), [2.0, 4.0])
    (y * 3).sum().backward()
    assert_close(x.grad, [6.0, 6.0])


def test_mark_dirty_on_a_leaf_requiring_grad_is_refused():
    class Dirty(Function):
        @staticmethod
        def forward(ctx, a):
            ctx.mark_dirty(a)
            return a

        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        Dirty.apply(tensorlib.ones(2, requires_grad=True))


def test_dirty_input_saved_elsewhere_is_detected():
    class AddOne(Function):
        @staticmethod
        def forward(ctx, a):
            a.add_(1)
            ctx.mark_dirty(a)
            return a

        @staticmethod
        def backward(ctx, g):
            return g

    x = tensorlib.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1
    z = y * y  # saves y
    AddOne.apply(y)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


def test_returning_an_input_unchanged_gives_a_new_tensor():
    class Identity(Function):
        @staticmethod
        def forward(ctx, a):
            return a

        @staticmethod
        def backward(ctx, g):
            return g * 3

    x = tensorlib.tensor([1.0, 2.0], requires_grad=True)
    y = Identity.apply(x)
    assert y is not x and y.grad_fn is not None and x.is_leaf
    y.sum().backward()
    assert_close(x.grad, [3.0, 3.0])


def test_set_materialize_grads():
    seen = []

    class Two(Function):
        @staticmethod
        def forward(ctx, a, materialize):
            ctx.set_materialize_grads(materialize)
            return a * 1, a * 2

        @staticmethod
        def backward(ctx, g1, g2):
            seen.append(g2)
            return (g1 if g2 is None else g1 + g2 * 2), None

    x = _rand(3)
    o1, _ = Two.apply(x, False)
    o1.sum().backward()
    assert seen[-1] is None
    x.grad = None
    o1, _ = Two.apply(x, True)
    o1.sum().backward()
    assert_close(seen[-1], [0.0, 0.0, 0.0])
    assert_close(x.grad, [1.0, 1.0, 1.0])


def test_saved_tensors_and_free_attributes():
    class Save(Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, None, b)
            ctx.note = "kept"
            ctx.shape = a.shape
            out = a * b
            return out

        @staticmethod
        def backward(ctx, g):
            a, none, b = ctx.saved_tensors
            assert none is None
            assert ctx.note == "kept" and ctx.shape == (2,)
            return g * b, g * a

    a, b = _rand(2), _rand(2)
    Save.apply(a, b).sum().backward()
    assert_close(a.grad, b.detach())
    assert_close(b.grad, a.detach())


def test_save_for_backward_rejects_non_tensors():
    class SaveInt(Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a, 3)
            return a * 1

        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(TypeError, match="save_for_backward can only save variables"):
        SaveInt.apply(_rand(2))


def test_saved_output_and_version_check():
    class Exp(Function):
        @staticmethod
        def forward(ctx, a):
            out = a.exp()
            ctx.save_for_backward(out)
            return out

        @staticmethod
        def backward(ctx, g):
            (out,) = ctx.saved_tensors
            return g * out

    x = tensorlib.tensor([0.0, 1.0], dtype=tensorlib.float64, requires_grad=True)
    y = Exp.apply(x)
    y.sum().backward(retain_graph=True)
    assert_close(x.grad, np.exp([0.0, 1.0]))
    with tensorlib.no_grad():
        y.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_saved_tensors_after_free():
    store = {}

    class Keep(Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * 2

        @staticmethod
        def backward(ctx, g):
            store["ctx"] = ctx
            return g * 2

    x = _rand(2)
    y = Keep.apply(x)
    y.sum().backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        store["ctx"].saved_tensors
    # a backward that does not read its saved tensors can run again (as in torch)
    y.sum().backward()
    assert_close(x.grad, [4.0, 4.0])


def test_several_outputs_each_get_their_gradient():
    class Split(Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2, a * 3

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 * 2 + g2 * 3

    x = _rand(2)
    p, q = Split.apply(x)
    assert p.grad_fn is q.grad_fn
    (p * 10 + q).sum().backward()
    assert_close(x.grad, [23.0, 23.0])


def test_double_backward_through_a_function_with_differentiable_backward():
    class Cube(Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a**3

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return g * 3 * a**2

    x = tensorlib.tensor([2.0, -1.0], dtype=tensorlib.float64, requires_grad=True)
    (g,) = tensorlib.autograd.grad(Cube.apply(x).sum(), x, create_graph=True)
    assert g.requires_grad
    assert_close(g, [12.0, 3.0])
    (gg,) = tensorlib.autograd.grad(g.sum(), x)
    assert_close(gg, [12.0, -6.0])
    assert tensorlib.autograd.gradgradcheck(Cube.apply, (x,))


def test_double_backward_through_seed_linear_function_matches_torch():
    torch = pytest.importorskip("torch")

    class TorchLinear(torch.autograd.Function):
        forward = staticmethod(LinearFunction.forward)
        backward = staticmethod(LinearFunction.backward)

    rng = np.random.default_rng(2)
    xd, wd = rng.standard_normal((3, 4)), rng.standard_normal((2, 4))
    results = []
    for lib, fn in ((tensorlib, LinearFunction), (torch, TorchLinear)):
        x, w = lib.tensor(xd, requires_grad=True), lib.tensor(wd, requires_grad=True)
        out = fn.apply(x, w)
        (gx,) = lib.autograd.grad((out**2).sum(), x, create_graph=True)
        (gx**2).sum().backward()
        results.append((gx.detach().numpy().copy(), w.grad.numpy().copy(), x.grad.numpy().copy()))
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_once_differentiable():
    class Square(Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a**2

        @staticmethod
        @once_differentiable
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            assert not tensorlib.is_grad_enabled()
            return g * 2 * a

    x = tensorlib.tensor([1.0, 3.0], requires_grad=True)
    Square.apply(x).sum().backward()
    assert_close(x.grad, [2.0, 6.0])
    y = Square.apply(x)
    go = tensorlib.ones(2, requires_grad=True)
    (g,) = tensorlib.autograd.grad(y, x, grad_outputs=go, create_graph=True)
    assert_close(g, [2.0, 6.0])
    assert g.requires_grad
    with pytest.raises(RuntimeError, match="once_differentiable"):
        g.sum().backward()


def test_setup_context_style():
    class Scale(Function):
        @staticmethod
        def forward(a, k):
            return a * k

        @staticmethod
        def setup_context(ctx, inputs, output):
            a, k = inputs
            ctx.k = k
            ctx.save_for_backward(a, output)

        @staticmethod
        def backward(ctx, g):
            a, out = ctx.saved_tensors
            assert_close(out, a.detach() * ctx.k)
            return g * ctx.k, None

    x = _rand(3)
    y = Scale.apply(x, 4.0)
    assert type(y.grad_fn).__name__ == "ScaleBackward"
    y.sum().backward()
    assert_close(x.grad, [4.0, 4.0, 4.0])


def test_function_name_and_node_interface():
    x = _rand(2)
    y = MulConstant.apply(x, 2.0)
    node = y.grad_fn
    assert node.name() == "MulConstantBackward"
    assert repr(node).startswith("<tensorlib.autograd.function.MulConstantBackward object at 0x")  # as torch spells it
    assert node.next_functions[0][0].variable is x
    assert node.next_functions[1] == (None, 0)
    assert isinstance(node, tensorlib.autograd.graph.Node)


def test_legacy_instance_style_function_gets_a_clear_error():
    """Seed 000's old API: ``Linear()(input, weight, bias)`` with non-static forward/backward."""

    class Linear(Function):
        def forward(self, input, weight, bias=None):
            self.save_for_backward(input, weight, bias)
            output = input.mm(weight.t())
            if bias is not None:
                output += bias.unsqueeze(0).expand_as(output)
            return output

        def backward(self, grad_output):
            input, weight, bias = self.saved_tensors
            return grad_output.mm(weight), grad_output.t().mm(input), None

    x, w = _rand(2, 3), _rand(4, 3)
    with pytest.raises(RuntimeError) as info:
        Linear()(x, w)
    msg = str(info.value)
    assert "Legacy autograd function with non-static forward method is not supported" in msg
    assert "@staticmethod" in msg and "def forward(ctx, input, ...)" in msg
    assert "Linear.apply(input, ...)" in msg


def test_unimplemented_forward_and_backward():
    class NoForward(Function):
        @staticmethod
        def backward(ctx, g):
            return g

    class NoBackward(Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

    with pytest.raises(NotImplementedError, match="forward"):
        NoForward.apply(_rand(2))
    y = NoBackward.apply(_rand(2))
    with pytest.raises(NotImplementedError, match="backward"):
        y.sum().backward()


def test_apply_with_bad_keyword():
    with pytest.raises(TypeError, match="forward"):
        MulConstant.apply(_rand(2), constant=2.0, nope=1)


def test_function_inside_a_larger_graph_matches_plain_ops():
    x = _rand(4, 3)
    w = _rand(2, 3)
    a = (LinearFunction.apply(x.tanh(), w).relu() ** 2).sum()
    a.backward()
    gx, gw = x.grad.clone(), w.grad.clone()
    x.grad = w.grad = None
    b = ((x.tanh() @ w.t()).relu() ** 2).sum()
    b.backward()
    assert_close(a.detach(), b.detach())
    assert_close(gx, x.grad)
    assert_close(gw, w.grad)
