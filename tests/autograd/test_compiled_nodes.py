"""The backward loop's compiled bodies of two common nodes (tensorlib/_accel.c: the sum of everything's
SumBackward0, and the MulBackward0 of ``x * other`` where only ``x`` needs a gradient): in their usual case the
same gradients as the Python methods, bit for bit; in every other case the Python method runs."""

from __future__ import annotations

import numpy as np
import pytest

import tensorlib
from tensorlib._accelerator import accel
from tensorlib._autograd import engine
from tensorlib.ops import arithmetic, broadcast

needs_accel = pytest.mark.skipif(accel is None, reason="tensorlib._accel is not built or is switched off")


def _same(got: tuple, want: tuple) -> None:
    assert len(got) == len(want)
    for a, b in zip(got, want):
        if b is None:
            assert a is None
            continue
        assert type(a) is tensorlib.Tensor and a.grad_fn is None and not a.requires_grad
        np.testing.assert_array_equal(a.numpy(), b.numpy(), strict=True)
        assert a.numpy().flags.writeable and a.numpy().flags.owndata == b.numpy().flags.owndata


@needs_accel
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "complex128", "int64"])
@pytest.mark.parametrize("shape", [(4, 4), (3,), (0, 5), (2, 3, 4), (64, 64), (4097,), (65, 64)])
def test_sum_of_everything_gives_the_python_methods_gradient(dtype, shape) -> None:
    node = tensorlib.ones(shape, requires_grad=True).sum().grad_fn  # (its backward reads only the input's shape)
    g = tensorlib.tensor(np.array(-2.5 if dtype != "int64" else 7).astype(dtype))  # the gradient's dtype is kept
    got = accel.compiled_backward(node, g)
    want = type(node).backward(node, g)
    if int(np.prod(shape)) > broadcast._FILL_LIMIT:
        assert got is None  # declined: _expand_back's broadcast view, from Python
    else:
        _same(got, want)


@needs_accel
def test_sum_declines_what_its_first_case_does_not_cover() -> None:
    x = tensorlib.ones(2, 3, requires_grad=True)
    node = x.sum().grad_fn
    assert accel.compiled_backward(node, tensorlib.tensor(1.0, requires_grad=True)) is None  # a recorded gradient
    assert accel.compiled_backward(node, tensorlib.ones(1)) is None  # not 0-d
    assert accel.compiled_backward(node, tensorlib.tensor(1.0).as_subclass(_Sub)) is None  # a subclass
    assert accel.compiled_backward(x.sum(1).grad_fn, tensorlib.ones(2)) is None  # SumBackward1
    assert accel.compiled_backward(x.mean().grad_fn, tensorlib.tensor(1.0)) is None  # another node
    s = tensorlib.tensor(2.0, requires_grad=True).sum().grad_fn  # a 0-d input: no shape to fill
    assert accel.compiled_backward(s, tensorlib.tensor(1.0)) is None


class _Sub(tensorlib.Tensor):
    pass


@needs_accel
@pytest.mark.parametrize(("xs", "os", "xdt", "odt", "applies"), [
    ((3, 4), (3, 4), "float32", "float32", True),
    ((3, 4), (3, 4), "float64", "float32", True),
    ((3, 4), (3, 4), "float64", "int64", True),
    ((3, 4), (3, 4), "float64", "bool", True),
    ((), (), "float64", "float64", False),           # 0-d: NumPy returns a scalar, the general formula runs
    ((3, 4), (4,), "float32", "float32", True),      # the other operand broadcast: the product has x's shape
    ((1, 4), (3, 4), "float64", "float64", False),   # x broadcast: its gradient is summed back, in Python
    ((3, 4), (3, 4), "float32", "float64", False),   # the product in float64: cast back, in Python
    ((2,), (2,), "float64", "complex128", False),
    ((2,), (2,), "complex128", "float64", False),
])
def test_product_by_a_tensor_gives_the_python_methods_gradient(xs, os, xdt, odt, applies) -> None:
    rng = np.random.default_rng(3)
    x = tensorlib.tensor(rng.standard_normal(xs).astype(xdt), requires_grad=True)
    other = tensorlib.tensor((rng.standard_normal(os) * 3).astype(odt))
    y = x * other
    node = y.grad_fn
    assert type(node) is arithmetic._ScaledBackward
    g = tensorlib.tensor(rng.standard_normal(y.shape).astype(y.detach().numpy().dtype))
    with tensorlib.no_grad():  # as in backward without create_graph
        got = accel.compiled_backward(node, g)
        if applies:
            _same(got, type(node).backward(node, g))
        else:
            assert got is None


@needs_accel
def test_product_declines_what_its_first_case_does_not_cover() -> None:
    x = tensorlib.ones(3, requires_grad=True)
    other = tensorlib.tensor([1.0, 2.0, 3.0])
    node = (x * other).grad_fn
    g = tensorlib.ones(3)
    with tensorlib.enable_grad():  # recording (create_graph): the general formula
        assert accel.compiled_backward(node, g) is None
    assert accel.compiled_backward(node, g.as_subclass(_Sub)) is None
    assert accel.compiled_backward(node, tensorlib.ones(3, dtype=tensorlib.int64)) is None  # not a float gradient
    with tensorlib.no_grad():
        assert accel.compiled_backward(node, g) is not None
        other.add_(1)  # changed in place since: the Python method raises torch's error
        assert accel.compiled_backward(node, g) is None
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            type(node).backward(node, g)
    y = x * tensorlib.tensor([1.0, 2.0, 3.0])
    y.sum().backward()  # frees the graph
    with tensorlib.no_grad():
        assert accel.compiled_backward(y.grad_fn, g) is None
    with pytest.raises(RuntimeError, match="second time"):
        y.sum().backward()
    assert accel.compiled_backward((x * 2).grad_fn, g) is None  # a product by a number: another node


@needs_accel
def test_compiled_backward_refuses_bad_arguments() -> None:
    with pytest.raises(TypeError, match="takes 2 arguments"):
        accel.compiled_backward(None)
    assert accel.compiled_backward(object(), None) is None


@pytest.fixture(params=["python", "compiled"] if accel is not None else ["python"])
def loop(request, monkeypatch):
    if request.param == "python":
        monkeypatch.setattr(engine, "_run_all", engine._run_all_python)
    return request.param


def test_graphs_through_both_nodes_give_the_same_gradients_in_both_loops(loop) -> None:
    rng = np.random.default_rng(5)
    for dtype in ("float32", "float64"):
        xv = rng.standard_normal((5, 3)).astype(dtype)
        mv = (rng.standard_normal((5, 3)) > 0).astype(dtype)
        results = {}
        for which in ("python", "compiled"):
            x = tensorlib.tensor(xv, requires_grad=True)
            m = tensorlib.tensor(mv)
            ((x * m).sum() * 3 + (x.tanh() * m).sum()).backward()
            (x * m).sum().backward()  # accumulated
            results[which] = x.grad.numpy().copy()
        np.testing.assert_array_equal(results["python"], results["compiled"], strict=True)
        x = tensorlib.tensor(xv.astype(np.float64), requires_grad=True)
        m = tensorlib.tensor(mv.astype(np.float64))
        assert tensorlib.autograd.gradcheck(lambda t: (t * m).sum(), (x,))
        assert tensorlib.autograd.gradgradcheck(lambda t: (t * m).sum() ** 2, (x,))


def test_hooks_and_retained_gradients_still_see_the_nodes(loop) -> None:
    x = tensorlib.ones(2, 2, requires_grad=True)
    m = tensorlib.tensor([[1.0, 0.0], [2.0, -1.0]])
    y = x * m
    y.retain_grad()
    seen = []
    y.grad_fn.register_hook(lambda gi, go: seen.append("post"))
    s = y.sum()
    s.grad_fn.register_prehook(lambda go: seen.append("pre"))
    s.backward()
    assert seen == ["pre", "post"]
    assert y.grad.tolist() == [[1.0, 1.0], [1.0, 1.0]] and x.grad.tolist() == m.tolist()


@needs_accel
def test_a_changed_method_is_called_and_the_change_undone_is_compiled_again(monkeypatch) -> None:
    calls = []
    real = broadcast.SumBackward0.backward

    def spy(self, g):
        calls.append(type(self).__name__)
        return real(self, g)

    x = tensorlib.ones(3, requires_grad=True)
    x.sum().backward()
    with monkeypatch.context() as m:
        m.setattr(broadcast.SumBackward0, "backward", spy)
        node = x.sum().grad_fn
        assert accel.compiled_backward(node, tensorlib.tensor(1.0)) is None
        x.sum().backward()
        assert calls == ["SumBackward0"]
    assert accel.compiled_backward(x.sum().grad_fn, tensorlib.tensor(1.0)) is not None
    x.sum().backward()
    assert calls == ["SumBackward0"] and x.grad.tolist() == [3.0, 3.0, 3.0]

    # a method changed on a base class reaches its subclasses too
    real_mul = arithmetic.MulBackward0.backward
    with monkeypatch.context() as m:
        m.setattr(arithmetic._ScaledBackward, "backward", lambda self, g: calls.append("mul") or real_mul(self, g))
        (x * tensorlib.ones(3)).sum().backward()
    assert calls[-1] == "mul" and x.grad.tolist() == [4.0, 4.0, 4.0]


def test_the_loop_reads_overridden_node_attributes(loop) -> None:
    class Three(tensorlib.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            return t.clone(), t * 2, t * 3

        @staticmethod
        def backward(ctx, a, b, c):
            return a + 2 * b + 3 * c

    x = tensorlib.ones(2, requires_grad=True)
    a, b, c = Three.apply(x)
    assert a.grad_fn.num_outputs == 3
    (b.sum() + c.sum()).backward()
    assert x.grad.tolist() == [5.0, 5.0]  # a has no gradient: materialized as zeros
