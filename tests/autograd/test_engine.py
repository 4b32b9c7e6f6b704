"""The backward engine: ordering, accumulation, graph freeing, higher order, grad(), hooks, inputs=."""

from __future__ import annotations

import gc
import time
import weakref

import numpy as np
import pytest

import tensorlib

from tests.helpers import assert_close

FREED = "Trying to backward through the graph a second time"


def test_deep_chain_backward_is_not_recursive():
    x = tensorlib.tensor([1.5], requires_grad=True)
    y = x
    start = time.perf_counter()
    for _ in range(100_000):
        y = y * 1.0
    y.sum().backward()
    assert time.perf_counter() - start < 10
    assert_close(x.grad, [1.0])


def test_deep_chain_with_create_graph_and_retain():
    x = tensorlib.tensor([2.0], dtype=tensorlib.float64, requires_grad=True)
    y = x
    for _ in range(3000):
        y = y + x * x * 1e-4
    (g,) = tensorlib.autograd.grad(y.sum(), x, create_graph=True)
    assert_close(g, [1 + 3000 * 2 * 2.0 * 1e-4], rtol=1e-10)
    assert g.requires_grad
    (h,) = tensorlib.autograd.grad(g.sum(), x)
    assert_close(h, [3000 * 2 * 1e-4], rtol=1e-10)


def test_diamond_graph_runs_each_node_once_after_its_dependents():
    # a node reached through two paths must get the sum of both gradients before it runs
    order = []

    class Tap(tensorlib.autograd.Function):
        @staticmethod
        def forward(ctx, x, tag):
            ctx.tag = tag
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            order.append((ctx.tag, g.detach().clone()))
            return g, None

    x = tensorlib.tensor([1.0, 2.0], requires_grad=True)
    a = Tap.apply(x, "a")
    b = a * 2
    c = a * 3
    d = Tap.apply(b + c, "d")
    d.sum().backward()
    assert [t for t, _ in order] == ["d", "a"]
    assert_close(order[1][1], [5.0, 5.0])
    assert_close(x.grad, [5.0, 5.0])


def test_gradients_match_torch_on_a_mixed_graph():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    xa, wa = rng.standard_normal((4, 3)), rng.standard_normal((3, 5))

    def f(lib, x, w):
        h = (x @ w).tanh()
        z = h * h.sigmoid() + h.exp().mean(0, keepdim=True)
        return (z.sum(1) ** 2).mean() + (x.abs() * 0.5).sum()

    x = tensorlib.tensor(xa, requires_grad=True)
    w = tensorlib.tensor(wa, requires_grad=True)
    f(tensorlib, x, w).backward()
    tx = torch.tensor(xa, requires_grad=True)
    tw = torch.tensor(wa, requires_grad=True)
    f(torch, tx, tw).backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-10)
    np.testing.assert_allclose(w.grad.numpy(), tw.grad.numpy(), rtol=1e-10)


def test_gradients_accumulate_into_grad():
    x = tensorlib.tensor([1.0, 2.0], requires_grad=True)
    (x * 3).sum().backward()
    first = x.grad
    (x * x).sum().backward()
    assert_close(x.grad, [3.0 + 2.0, 3.0 + 4.0])
    assert x.grad is first  # accumulated in place, as torch
    x.grad = None
    (x * 2).sum().backward()
    assert_close(x.grad, [2.0, 2.0])


def test_grad_dtype_follows_the_leaf():
    x = tensorlib.tensor([1.0, 2.0], dtype=tensorlib.float16, requires_grad=True)
    (x.double() * 3).sum().backward()
    assert x.grad.dtype is tensorlib.float16
    assert_close(x.grad, [3.0, 3.0])


def test_leaf_used_twice_in_one_op():
    x = tensorlib.tensor([3.0], requires_grad=True)
    (x * x).backward()
    assert_close(x.grad, [6.0])


def test_backward_on_non_scalar_needs_a_gradient():
    x = tensorlib.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        y.backward()
    assert x.grad is None
    y.backward(tensorlib.tensor([1.0, 10.0]))
    assert_close(x.grad, [2.0, 20.0])


def test_backward_gradient_is_checked():
    x = tensorlib.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        (x * 2).backward(tensorlib.ones(3))
    with pytest.raises(TypeError):
        (x * 2).backward([1.0, 1.0])
    assert x.grad is None


def test_backward_on_tensor_without_graph():
    with pytest.raises(RuntimeError, match="does not require grad and does not have a grad_fn"):
        tensorlib.tensor([1.0]).sum().backward()
    with pytest.raises(RuntimeError, match="does not require grad"):
        x = tensorlib.tensor([1.0], requires_grad=True)
        with tensorlib.no_grad():
            y = x * 2
        y.sum().backward()


def test_backward_on_integer_scalar():
    x = tensorlib.tensor([1.0], requires_grad=True)
    idx = x.argmax()
    with pytest.raises(RuntimeError):
        idx.backward()


def test_backward_on_a_leaf_itself():
    x = tensorlib.tensor(2.0, requires_grad=True)
    x.backward()
    assert_close(x.grad, 1.0)


def test_graph_is_freed_after_backward():
    x = tensorlib.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match=FREED):
        y.backward()
    z = (x.exp() * 2).sum()
    tensorlib.autograd.grad(z, x)
    with pytest.raises(RuntimeError, match=FREED):
        z.backward()


def test_retain_graph_allows_a_second_backward():
    x = tensorlib.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert_close(x.grad, [4.0, 8.0])
    with pytest.raises(RuntimeError, match=FREED):
        y.backward()


def test_second_backward_matches_torch_for_nodes_without_saved_tensors():
    torch = pytest.importorskip("torch")
    for f in (lambda a: (a + 1).sum(), lambda a: a.mean(), lambda a: a[1:].sum(), lambda a: (a * 2).sum(),
              lambda a: a.exp().sum(), lambda a: (a - a.detach()).sum()):
        x = tensorlib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        t = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        results = []
        for lib_x in (x, t):
            y = f(lib_x)
            y.backward()
            try:
                y.backward()
                results.append("ok")
            except RuntimeError as e:
                assert FREED in str(e)
                results.append("freed")
        assert results[0] == results[1]


def test_saved_tensors_are_released():
    x = tensorlib.tensor([1.0, 2.0], requires_grad=True)
    big = x * 2
    ref = weakref.ref(big)
    y = (big * big).sum()
    del big
    gc.collect()
    assert ref() is not None  # kept alive by the graph
    y.backward()
    gc.collect()
    assert ref() is None


def test_create_graph_gives_higher_order_derivatives():
    x = tensorlib.tensor([2.0, -1.0], requires_grad=True)
    y = (x**3).sum()
    (g,) = tensorlib.autograd.grad(y, x, create_graph=True)
    assert g.requires_grad
    assert_close(g, [12.0, 3.0])
    (g2,) = tensorlib.autograd.grad(g.sum(), x, create_graph=True)
    assert_close(g2, [12.0, -6.0])
    (g3,) = tensorlib.autograd.grad(g2.sum(), x)
    assert_close(g3, [6.0, 6.0])


def test_backward_with_create_graph_makes_grad_differentiable():
    x = tensorlib.tensor([1.5], requires_grad=True)
    (x**4).sum().backward(create_graph=True)
    g = x.grad
    assert g.requires_grad and g.grad_fn is not None
    assert_close(g, [4 * 1.5**3])
    x.grad = None
    g.sum().backward()
    assert_close(x.grad, [12 * 1.5**2])


def test_higher_order_matches_torch():
    torch = pytest.importorskip("torch")
    data = np.array([0.3, -1.2, 2.0])

    def f(a):
        return (a.sin() * a.exp() + a.tanh() ** 2 / (1 + a * a)).sum()

    x = tensorlib.tensor(data, requires_grad=True)
    t = torch.tensor(data, requires_grad=True)
    (g,) = tensorlib.autograd.grad(f(x), x, create_graph=True)
    (tg,) = torch.autograd.grad(f(t), t, create_graph=True)
    (h,) = tensorlib.autograd.grad((g * g).sum(), x)
    (th,) = torch.autograd.grad((tg * tg).sum(), t)
    np.testing.assert_allclose(g.detach().numpy(), tg.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(h.numpy(), th.numpy(), rtol=1e-10)


def test_autograd_grad_returns_without_touching_grad():
    x = tensorlib.tensor([1.0, 2.0], requires_grad=True)
    w = tensorlib.tensor([3.0, 4.0], requires_grad=True)
    gx, gw = tensorlib.autograd.grad((x * w).sum(), [x, w])
    assert_close(gx, [3.0, 4.0])
    assert_close(gw, [1.0, 2.0])
    assert x.grad is None and w.grad is None
    (gx,) = tensorlib.autograd.grad((x * w).sum(), x)
    assert isinstance(gx, tensorlib.Tensor) and not gx.requires_grad


def test_autograd_grad_with_grad_outputs_and_several_outputs():
    x = tensorlib.tensor([1.0, 2.0], requires_grad=True)
    a, b = x * 2, x * x
    (g,) = tensorlib.autograd.grad([a, b], x, grad_outputs=[tensorlib.tensor([1.0, 0.0]), tensorlib.tensor([1.0, 1.0])])
    assert_close(g, [2.0 + 2.0, 0.0 + 4.0])
    with pytest.raises(RuntimeError, match="grad_output"):
        tensorlib.autograd.grad([x * 2, x * 3], x, grad_outputs=[tensorlib.ones(2)])
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        tensorlib.autograd.grad(x * 2, x, grad_outputs=tensorlib.ones(3))


def test_autograd_grad_with_non_leaf_input():
    x = tensorlib.tensor([1.0, 2.0], requires_grad=True)
    h = x * 3
    y = (h * h).sum()
    (gh,) = tensorlib.autograd.grad(y, h)
    assert_close(gh, [6.0, 12.0])
    assert x.grad is None


def test_autograd_grad_unused_input():
    x = tensorlib.tensor([1.0], requires_grad=True)
    z = tensorlib.tensor([5.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="appears to not have been used in the graph. Set allow_unused=True"):
        tensorlib.autograd.grad((x * 2).sum(), [x, z])
    gx, gz = tensorlib.autograd.grad((x * 2).sum(), [x, z], allow_unused=True)
    assert_close(gx, [2.0])
    assert gz is None
    gx, gz = tensorlib.autograd.grad((x * 2).sum(), [x, z], materialize_grads=True)
    assert_close(gz, [0.0])


def test_autograd_grad_input_errors():
    x = tensorlib.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="does not require grad"):
        tensorlib.autograd.grad((x * 2).sum(), tensorlib.tensor([1.0]))
    with pytest.raises(RuntimeError, match="non-empty inputs"):
        tensorlib.autograd.grad((x * 2).sum(), [])
    with pytest.raises(TypeError):
        tensorlib.autograd.grad((x * 2).sum(), [x, 3])
    with pytest.raises(TypeError):
        tensorlib.autograd.grad("y", x)
    with pytest.raises(RuntimeError, match="does not require grad and does not have a grad_fn"):
        tensorlib.autograd.grad(tensorlib.ones(1).sum(), x)


def test_autograd_grad_frees_unless_retained():
    x = tensorlib.tensor([1.0], requires_grad=True)
    y = (x * x).sum()
    tensorlib.autograd.grad(y, x, retain_graph=True)
    (g,) = tensorlib.autograd.grad(y, x)
    assert_close(g, [2.0])
    with pytest.raises(RuntimeError, match=FREED):
        tensorlib.autograd.grad(y, x)


def test_autograd_backward_function():
    x = tensorlib.tensor([1.0, 2.0], requires_grad=True)
    tensorlib.autograd.backward([(x * x).sum(), (x * 3).sum()])
    assert_close(x.grad, [5.0, 7.0])
    x.grad = None
    tensorlib.autograd.backward(x * 2, grad_tensors=tensorlib.tensor([1.0, 2.0]))
    assert_close(x.grad, [2.0, 4.0])
    x.grad = None
    tensorlib.autograd.backward([x * 2, x * 3], [tensorlib.ones(2), tensorlib.ones(2)])
    assert_close(x.grad, [5.0, 5.0])
    with pytest.raises(RuntimeError, match="got 1 gradients for 2 tensors"):
        tensorlib.autograd.backward([x * 2, x * 3], [tensorlib.ones(2)])


def test_backward_inputs_restricts_accumulation():
    a = tensorlib.tensor([1.0], requires_grad=True)
    b = tensorlib.tensor([2.0], requires_grad=True)
    (a * b).sum().backward(inputs=[a])
    assert_close(a.grad, [2.0])
    assert b.grad is None
    (a * b).sum().backward(inputs=b)
    assert_close(b.grad, [1.0])
    assert_close(a.grad, [2.0])
    with pytest.raises(RuntimeError, match="cannot be empty"):
        (a * b).sum().backward(inputs=[])


def test_backward_inputs_with_non_leaf():
    torch = pytest.importorskip("torch")
    x = tensorlib.tensor([1.0, 2.0], requires_grad=True)
    h = x * 3
    (h * h).sum().backward(inputs=[h])
    tx = torch.tensor([1.0, 2.0], requires_grad=True)
    th = tx * 3
    (th * th).sum().backward(inputs=[th])
    assert h.retains_grad and th.retains_grad
    np.testing.assert_allclose(h.grad.numpy(), th.grad.numpy())
    assert x.grad is None and tx.grad is None


def test_tensor_hook_on_leaf_modifies_gradient_and_can_be_removed():
    x = tensorlib.tensor([1.0, 2.0], requires_grad=True)
    seen = []
    h1 = x.register_hook(lambda g: seen.append(g.clone()))
    h2 = x.register_hook(lambda g: g * 10)
    (x * 3).sum().backward()
    assert_close(seen[0], [3.0, 3.0])
    assert_close(x.grad, [30.0, 30.0])
    h2.remove()
    x.grad = None
    (x * 3).sum().backward()
    assert_close(x.grad, [3.0, 3.0])
    h1.remove()
    h1.remove()  # removing twice is harmless
    assert len(seen) == 2


def test_tensor_hook_on_non_leaf_changes_what_flows_on():
    torch = pytest.importorskip("torch")
    results = []
    for lib in (tensorlib, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        seen = []
        y.register_hook(lambda g: seen.append(g.clone()) or g + 1)
        y.retain_grad()
        (y * y).sum().backward()
        results.append((seen[0].tolist(), y.grad.tolist(), x.grad.tolist()))
    assert results[0] == results[1]


def test_hooks_run_in_registration_order_and_chain():
    x = tensorlib.tensor([1.0], requires_grad=True)
    y = x * 1
    y.register_hook(lambda g: g + 1)
    y.register_hook(lambda g: g * 10)
    y.sum().backward()
    assert_close(x.grad, [20.0])


def test_hook_handle_as_context_manager():
    x = tensorlib.tensor([1.0], requires_grad=True)
    with x.register_hook(lambda g: g * 0):
        x.sum().backward()
    assert_close(x.grad, [0.0])
    x.sum().backward()
    assert_close(x.grad, [1.0])


def test_hook_errors():
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        tensorlib.tensor([1.0]).register_hook(lambda g: g)
    with pytest.raises(TypeError, match="callable"):
        tensorlib.tensor([1.0], requires_grad=True).register_hook(3)


def test_hook_exception_propagates_and_nothing_is_accumulated():
    x = tensorlib.tensor([1.0], requires_grad=True)

    def bad(g):
        raise ValueError("boom")

    x.register_hook(bad)
    with pytest.raises(ValueError, match="boom"):
        (x * 2).sum().backward()
    assert x.grad is None


def test_retain_grad():
    x = tensorlib.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    z = y * y
    y.retain_grad()
    assert y.retains_grad and not z.retains_grad
    z.sum().backward(retain_graph=True)
    assert_close(y.grad, [4.0, 8.0])
    z.sum().backward()
    assert_close(y.grad, [8.0, 16.0])  # accumulates like a leaf
    x.retain_grad()  # no-op on leaves
    assert not x.retains_grad
    with pytest.raises(RuntimeError, match="can't retain_grad on Tensor that has requires_grad=False"):
        tensorlib.ones(1).retain_grad()


def test_node_hooks_and_next_functions():
    x = tensorlib.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    node = y.grad_fn
    ((nxt, nr),) = [e for e in node.next_functions if e[0] is not None]
    assert type(nxt).__name__ == "AccumulateGrad" and nxt.variable is x and nr == 0
    seen = []
    node.register_prehook(lambda grads: seen.append(("pre", grads[0].tolist())))
    node.register_hook(lambda gin, gout: seen.append(("post", gin[0].tolist())))
    y.sum().backward()
    assert seen == [("pre", [1.0, 1.0]), ("post", [3.0, 3.0])]


def test_post_accumulate_grad_hook():
    p = tensorlib.tensor([1.0, 2.0], requires_grad=True)
    seen = []
    p.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.clone()))
    (p * 2).sum().backward()
    assert_close(seen[0], [2.0, 2.0])
    with pytest.raises(RuntimeError, match="non-leaf"):
        (p * 2).register_post_accumulate_grad_hook(lambda t: None)


def test_engine_error_does_not_corrupt_later_runs():
    x = tensorlib.tensor([1.0, 2.0], requires_grad=True)

    class Boom(tensorlib.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 1

        @staticmethod
        def backward(ctx, g):
            raise ValueError("inside backward")

    with pytest.raises(ValueError, match="inside backward"):
        (Boom.apply(x) + x).sum().backward()
    assert tensorlib.is_grad_enabled()
    x.grad = None
    (x * x).sum().backward()
    assert_close(x.grad, [2.0, 4.0])


def test_grad_mode_restored_after_create_graph_failure():
    x = tensorlib.tensor([1.0], requires_grad=True)
    with tensorlib.no_grad():
        pass
    with pytest.raises(RuntimeError):
        tensorlib.autograd.grad((x * x).sum(), x, grad_outputs=tensorlib.ones(3), create_graph=True)
    assert tensorlib.is_grad_enabled()
    with tensorlib.no_grad():
        with pytest.raises(RuntimeError):
            tensorlib.autograd.grad((x * 1).sum(), x)
        assert not tensorlib.is_grad_enabled()


def test_backward_inside_no_grad_still_computes_gradients():
    x = tensorlib.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    with tensorlib.no_grad():
        y.backward()
    assert_close(x.grad, [2.0, 4.0])
    assert not x.grad.requires_grad


def test_hooks_see_the_summed_gradient_once():
    torch = pytest.importorskip("torch")
    results = []
    for lib in (tensorlib, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        leaf_calls, inner_calls = [], []
        x.register_hook(lambda g: leaf_calls.append(g.tolist()))
        z = x * 1
        z.register_hook(lambda g: inner_calls.append(g.tolist()))
        (z * 2 + z * 3 + x).sum().backward()
        results.append((leaf_calls, inner_calls, x.grad.tolist()))
    assert results[0] == results[1]
    assert len(results[0][0]) == 1 and len(results[0][1]) == 1


def test_grad_of_an_output_with_respect_to_itself():
    x = tensorlib.tensor([1.0, 2.0], requires_grad=True)
    (g,) = tensorlib.autograd.grad(x, x, grad_outputs=tensorlib.ones(2))
    assert_close(g, [1.0, 1.0])
    y = x * 2
    (g,) = tensorlib.autograd.grad(y, y, grad_outputs=tensorlib.full((2,), 3.0))
    assert_close(g, [3.0, 3.0])


def test_failed_function_forward_restores_grad_mode():
    class Fails(tensorlib.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            raise ValueError("forward failed")

        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(ValueError, match="forward failed"):
        Fails.apply(tensorlib.ones(1, requires_grad=True))
    assert tensorlib.is_grad_enabled()


# -- gradients stored without a copy, unless someone else holds them ----------------------------------------------


def _twice(x: tensorlib.Tensor) -> None:
    (x * 2).sum().backward()
    (x * 2).sum().backward()


def test_a_gradient_a_leaf_hook_kept_is_not_changed_by_later_accumulation():
    x = tensorlib.ones(3, requires_grad=True)
    seen = []
    x.register_hook(seen.append)
    _twice(x)
    assert seen[0].tolist() == [2.0, 2.0, 2.0] and seen[1].tolist() == [2.0, 2.0, 2.0]
    assert x.grad.tolist() == [4.0, 4.0, 4.0]


def test_a_gradient_a_hook_returned_and_kept_is_not_changed_either():
    x = tensorlib.ones(3, requires_grad=True)
    kept = []

    def hook(g):
        kept.append(g * 1)
        return kept[-1]

    x.register_hook(hook)
    _twice(x)
    assert kept[0].tolist() == [2.0, 2.0, 2.0] and x.grad.tolist() == [4.0, 4.0, 4.0]


def test_gradients_node_hooks_kept_are_not_changed():
    x = tensorlib.ones(3, requires_grad=True)
    post, pre = [], []
    y = x * 2
    y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: post.append(grad_inputs[0]))
    y.grad_fn.next_functions[0][0].register_prehook(lambda grad_outputs: pre.append(grad_outputs[0]))
    y.sum().backward()
    (x * 2).sum().backward()
    assert post[0].tolist() == pre[0].tolist() == [2.0, 2.0, 2.0]
    assert x.grad.tolist() == [4.0, 4.0, 4.0]


def test_without_hooks_the_first_gradient_is_stored_as_computed():
    x = tensorlib.ones(3, requires_grad=True)
    _twice(x)
    g = x.grad
    (x * 2).sum().backward()
    assert x.grad is g and g.tolist() == [6.0, 6.0, 6.0]  # accumulated in place


@pytest.mark.parametrize("transposed", [True, False], ids=["x @ w.T", "x @ w"])
def test_weight_gradient_of_a_matrix_product_is_row_major_like_the_weight(transposed):
    rng = np.random.default_rng(0)
    x = tensorlib.tensor(rng.standard_normal((5, 4)))
    w = tensorlib.tensor(rng.standard_normal((3, 4) if transposed else (4, 3)), requires_grad=True)
    out = x @ (w.T if transposed else w)
    g = tensorlib.tensor(rng.standard_normal((5, 3)))
    out.backward(g)
    expected = (g.numpy().T @ x.numpy()) if transposed else (x.numpy().T @ g.numpy())
    np.testing.assert_allclose(w.grad.numpy(), expected, rtol=1e-12)
    assert w.grad.numpy().flags.c_contiguous and w.grad.stride() == w.stride()
    assert tensorlib.autograd.gradcheck(lambda a, b: a @ (b.T if transposed else b), (x.requires_grad_(), w))
    assert tensorlib.autograd.gradgradcheck(lambda a, b: a @ (b.T if transposed else b), (x, w))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_hand_written_layer_stores_its_weight_and_bias_gradients_without_a_copy(monkeypatch, dtype):
    # ``x @ w.T + b``: three nodes (permute, product, sum); the weight's product and the bias's reduction each become
    # .grad as they are, as the hand-written NumPy step stores its arrays
    import tensorlib._autograd.engine as engine

    copies = []
    real = engine._like_layout
    monkeypatch.setattr(engine, "_like_layout", lambda data, like: copies.append(data.shape) or real(data, like))
    rng = np.random.default_rng(2)
    x = tensorlib.tensor(rng.standard_normal((6, 5)).astype(dtype))
    w = tensorlib.tensor(rng.standard_normal((4, 5)).astype(dtype), requires_grad=True)
    b = tensorlib.tensor(rng.standard_normal(4).astype(dtype), requires_grad=True)
    g = rng.standard_normal((6, 4)).astype(dtype)
    out = x @ w.T + b
    assert [type(n).__name__ for n, _ in out.grad_fn.next_functions] == ["MmBackward0", "AccumulateGrad"]
    out.backward(tensorlib.tensor(g))
    assert copies == []
    assert w.grad.dtype == w.dtype and b.grad.dtype == b.dtype and w.grad.stride() == w.stride()
    np.testing.assert_allclose(w.grad.numpy(), g.T @ x.numpy(), rtol=1e-5)
    np.testing.assert_allclose(b.grad.numpy(), g.sum(0), rtol=1e-5)
    # the same gradients through the recorded formulas (create_graph), which a second backward differentiates
    gw, gb = tensorlib.autograd.grad(x @ w.T + b, (w, b), tensorlib.tensor(g), create_graph=True)
    np.testing.assert_allclose(gw.detach().numpy(), w.grad.numpy(), rtol=1e-6)
    np.testing.assert_allclose(gb.detach().numpy(), b.grad.numpy(), rtol=1e-6)
    x64 = x.double().requires_grad_()
    assert tensorlib.autograd.gradgradcheck(lambda a, c, d: a @ c.T + d, (x64, w.double(), b.double()))


def test_weight_gradient_of_x_at_w_t_reaches_grad_without_a_copy(monkeypatch):
    # x @ w.T computes w's gradient transposed and transposes it back (a view of the product): the product's array
    # itself becomes .grad when nothing else can see it, as the hand-written NumPy step stores its product
    import tensorlib._autograd.engine as engine

    copies = []
    real = engine._like_layout
    monkeypatch.setattr(engine, "_like_layout", lambda data, like: copies.append(data.shape) or real(data, like))
    rng = np.random.default_rng(1)
    x = tensorlib.tensor(rng.standard_normal((6, 5)))
    w = tensorlib.tensor(rng.standard_normal((4, 5)), requires_grad=True)
    g = rng.standard_normal((6, 4))
    (x @ w.T).backward(tensorlib.tensor(g))
    assert copies == [] and w.grad.numpy().flags.c_contiguous
    np.testing.assert_allclose(w.grad.numpy(), g.T @ x.numpy(), rtol=1e-12)
    # a hook that keeps the gradient it saw: stored as a copy, so accumulating later leaves the hook's tensor alone
    w.grad = None
    seen = []
    w.register_hook(lambda grad: seen.append(grad))
    (x @ w.T).backward(tensorlib.tensor(g))
    kept = seen[0].numpy().copy()
    (x @ w.T).backward(tensorlib.tensor(g))
    np.testing.assert_array_equal(seen[0].numpy(), kept)
    np.testing.assert_allclose(w.grad.numpy(), 2 * (g.T @ x.numpy()), rtol=1e-12)
    # the transposed view kept by the caller still sees the product it was made from, not the accumulated gradient
    w.grad = None
    wt = w.T
    wt.retain_grad()
    (x @ wt).backward(tensorlib.tensor(g))
    before = wt.grad.numpy().copy()
    (x @ w.T).backward(tensorlib.tensor(g))
    np.testing.assert_array_equal(wt.grad.numpy(), before)
