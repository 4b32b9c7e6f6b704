"""In-place operations: version counters, leaf checks, and in-place writes through views inside a graph."""

from __future__ import annotations

import numpy as np
import pytest

import tensorlib

from tests.helpers import assert_close

MODIFIED = "one of the variables needed for gradient computation has been modified by an inplace operation"

INPLACE = {
    "+=": lambda t: t.__iadd__(1),
    "-=": lambda t: t.__isub__(1),
    "*=": lambda t: t.__imul__(2),
    "/=": lambda t: t.__itruediv__(2),
    "add_": lambda t: t.add_(1),
    "add_alpha": lambda t: t.add_(tensorlib.ones(3), alpha=2),
    "mul_": lambda t: t.mul_(2),
    "sub_": lambda t: t.sub_(1),
    "div_": lambda t: t.div_(2),
    "zero_": lambda t: t.zero_(),
    "fill_": lambda t: t.fill_(3),
    "copy_": lambda t: t.copy_(tensorlib.tensor([7.0, 8.0, 9.0])),
    "uniform_": lambda t: t.uniform_(),
    "normal_": lambda t: t.normal_(),
    "clamp_": lambda t: t.clamp_(0, 1),
    "setitem": lambda t: t.__setitem__(0, 5.0),
    "exp_": lambda t: t.exp_(),
}


@pytest.mark.parametrize("name", sorted(INPLACE))
def test_inplace_bumps_the_version_and_returns_self(name):
    t = tensorlib.tensor([1.0, 2.0, 3.0])
    v0 = t._version_value
    out = INPLACE[name](t)
    if name != "setitem":
        assert out is t
    assert t._version_value == v0 + 1


@pytest.mark.parametrize("name", sorted(INPLACE))
def test_inplace_on_leaf_requiring_grad_is_refused_outside_no_grad(name):
    leaf = tensorlib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        INPLACE[name](leaf)
    # nothing was changed by the refused call
    assert leaf.detach().tolist() == [1.0, 2.0, 3.0]
    assert leaf._version_value == 0
    with tensorlib.no_grad():
        INPLACE[name](leaf)
    assert leaf.requires_grad and leaf.is_leaf and leaf.grad_fn is None
    assert leaf._version_value == 1


def test_inplace_ops_compute_the_right_values():
    t = tensorlib.tensor([1.0, -2.0, 3.0])
    t += 1
    assert t.tolist() == [2.0, -1.0, 4.0]
    t.mul_(2).sub_(1)
    assert t.tolist() == [3.0, -3.0, 7.0]
    t.div_(2)
    assert t.tolist() == [1.5, -1.5, 3.5]
    t.clamp_(-1, 2)
    assert t.tolist() == [1.5, -1.0, 2.0]
    t.copy_(tensorlib.tensor([1, 2, 3]))  # copies across dtypes
    assert t.tolist() == [1.0, 2.0, 3.0] and t.dtype is tensorlib.float32
    t.copy_(tensorlib.tensor(5.0))  # broadcasts
    assert t.tolist() == [5.0, 5.0, 5.0]
    t.fill_(0.5)
    assert t.tolist() == [0.5, 0.5, 0.5]
    t.zero_()
    assert t.tolist() == [0.0, 0.0, 0.0]


def test_inplace_errors_leave_the_tensor_unchanged():
    t = tensorlib.tensor([1.0, 2.0, 3.0])
    with pytest.raises(RuntimeError, match="size"):
        t.add_(tensorlib.ones(4))
    with pytest.raises(RuntimeError):
        t.copy_(tensorlib.ones(2))
    with pytest.raises(TypeError):
        t.add_("a")
    i = tensorlib.tensor([1, 2, 3])
    with pytest.raises(RuntimeError, match="can't be cast"):
        i.add_(1.5)  # float result into an int tensor, as torch refuses
    assert t.tolist() == [1.0, 2.0, 3.0] and t._version_value == 0
    assert i.tolist() == [1, 2, 3]


@pytest.mark.parametrize(
    "make, mutate",
    [
        (lambda x: x.exp(), lambda y: y.add_(1)),  # exp saves its result
        (lambda x: x.sigmoid(), lambda y: y.mul_(2)),  # sigmoid saves its result
        (lambda x: x.tanh(), lambda y: y.zero_()),
    ],
)
def test_modifying_a_saved_output_makes_backward_fail(make, mutate):
    x = tensorlib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = make(x)
    mutate(y)
    with pytest.raises(RuntimeError, match=MODIFIED) as info:
        y.sum().backward()
    msg = str(info.value)
    assert "is at version 1; expected version 0 instead" in msg
    assert "tensorlib.FloatTensor [3]" in msg


def test_modifying_a_saved_input_makes_backward_fail():
    x = tensorlib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 2
    w = y * y  # saves y
    y.mul_(3)
    with pytest.raises(RuntimeError, match=MODIFIED):
        w.sum().backward()
    # through a detached alias (same version counter)
    y = x * 2
    w = y.pow(2)
    y.detach().add_(1)
    with pytest.raises(RuntimeError, match=MODIFIED):
        w.sum().backward()
    # through .data the change is not tracked (as torch)
    y = x * 2
    w = y * y
    y.data.add_(1)
    w.sum().backward()


def test_inplace_that_nobody_saved_is_fine_and_correct():
    x = tensorlib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 2  # mul by a scalar does not save its output
    y.add_(1)
    y.mul_(x)  # now y = (2x + 1) * x
    y.sum().backward()
    assert_close(x.grad, 4 * np.array([1.0, 2.0, 3.0]) + 1)


def test_inplace_in_grad_mode_on_non_leaf_changes_its_grad_fn():
    x = tensorlib.tensor([1.0, 2.0], requires_grad=True)
    y = x + 0
    before = y.grad_fn
    y.mul_(3)
    assert y.grad_fn is not before
    assert type(y.grad_fn).__name__ == "MulBackward0"
    assert not y.is_leaf


def test_inplace_on_a_view_of_a_leaf_is_refused():
    x = tensorlib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        x[0:2].mul_(2)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        x.view(3).zero_()
    assert x.detach().tolist() == [1.0, 2.0, 3.0]


def test_inplace_on_a_leaf_that_does_not_require_grad_then_used():
    a = tensorlib.zeros(3)
    x = tensorlib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    a.copy_(x)  # a now carries x's history
    assert a.requires_grad and not a.is_leaf
    (a * a).sum().backward()
    assert_close(x.grad, [2.0, 4.0, 6.0])


# -- in-place through views of tensors in a graph, compared with torch ------------------------

VIEW_CASES = {
    "row mul_": lambda x: _then(x * 2, lambda y: y[0].mul_(3), lambda y: y.sum()),
    "column +=": lambda x: _then(x * 2, lambda y: y[:, 1].__iadd__(1), lambda y: (y * y).sum()),
    "row mul_ other": lambda x: _then(x * 2, lambda y: y[1].mul_(x[0]), lambda y: (y**2).sum()),
    "transposed setitem": lambda x: _then(x * 2, lambda y: y.t().__setitem__((0, 1), 7.0), lambda y: (y * x).sum()),
    "setitem from graph": lambda x: _then(x.clone(), lambda y: y.__setitem__(0, x[1] * x[0]), lambda y: y.sum()),
    "flat view exp_": lambda x: _then(x * 1, lambda y: y.view(-1)[2:4].exp_(), lambda y: y.sum()),
    "chained views": lambda x: _then(x + 0, lambda y: y[1:][0, 1:].mul_(5), lambda y: (y * y).sum()),
    "view of view copy_": lambda x: _then(x * 3, lambda y: y[:, 0].copy_(x[:, 2] ** 2), lambda y: (y * y).sum()),
    "strided zero_": lambda x: _then(x * x, lambda y: y[:, ::2].zero_(), lambda y: (y * 3).sum()),
    "view used after": lambda x: _view_used_after(x),
    "base changed, view seen": lambda x: _base_changed(x),
    "fill_ slice": lambda x: _then(x.sin(), lambda y: y[0].fill_(2.0), lambda y: (y * y).sum()),
}


def _then(y, mutate, loss):
    mutate(y)
    return loss(y)


def _view_used_after(x):
    y = x * 2
    v = y[1]
    v.mul_(4)
    return (v * v).sum() + y.sum()


def _base_changed(x):
    y = x * 2
    v = y[0]
    y.add_(x)  # the base changes in place; the view sees it
    return (v * v).sum()


@pytest.mark.parametrize("case", sorted(VIEW_CASES))
def test_inplace_on_views_gives_torch_gradients(case):
    torch = pytest.importorskip("torch")
    data = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    x = tensorlib.tensor(data, requires_grad=True)
    loss = VIEW_CASES[case](x)
    loss.backward()
    t = torch.tensor(data, requires_grad=True)
    tloss = _torch_version(case, torch)(t)
    tloss.backward()
    np.testing.assert_allclose(loss.item(), tloss.item(), rtol=1e-6)
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-6)


def _torch_version(case, torch):
    # the cases are written against the tensor API, which torch shares
    return VIEW_CASES[case]


def test_inplace_on_view_gives_base_a_copyslices_history():
    x = tensorlib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = x * 2
    y[0].mul_(3)
    assert type(y.grad_fn).__name__ == "CopySlices"
    y.sum().backward()
    assert_close(x.grad, [[6.0, 6.0], [2.0, 2.0]])


def test_double_backward_through_inplace_on_view():
    torch = pytest.importorskip("torch")
    data = np.array([0.5, -1.0, 2.0])

    def f(x):
        y = x * x
        y[1:].mul_(x[:2])
        return y.sum()

    x = tensorlib.tensor(data, requires_grad=True)
    (g,) = tensorlib.autograd.grad(f(x), x, create_graph=True)
    g.sum().backward()
    t = torch.tensor(data, requires_grad=True)
    (tg,) = torch.autograd.grad(f(t), t, create_graph=True)
    tg.sum().backward()
    np.testing.assert_allclose(g.detach().numpy(), tg.detach().numpy())
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy())


def test_view_made_before_an_inplace_change_of_its_base_gets_a_new_history():
    x = tensorlib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 2
    v = y[:2]
    old = v.grad_fn
    y.mul_(x)  # y = 2x * x; v sees the new values
    assert v.grad_fn is not old
    assert_close(v.detach(), [2.0, 8.0])
    v.sum().backward()
    assert_close(x.grad, [4.0, 8.0, 0.0])  # d(2x^2)/dx on the viewed part


def test_view_of_base_modified_under_no_grad_keeps_a_valid_history():
    x = tensorlib.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    v = y[1:]
    with tensorlib.no_grad():
        y.add_(1)
    assert v.requires_grad
    (v * v).sum().backward()
    assert_close(x.grad, [0.0, 2 * 7.0 * 3])
