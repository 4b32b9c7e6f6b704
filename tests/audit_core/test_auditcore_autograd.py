"""Autograd as tutorials use it: backward, .grad, no_grad, autograd.grad, hooks, in-place checks, anomaly mode."""

from __future__ import annotations

import warnings

from auditcore_diff import differential


@differential
def test_backward_and_grad_accumulation(torch, rec):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = (x * x).sum()
    rec(y, 14.0)
    y.backward()
    rec(x.grad, [2.0, 4.0, 6.0])
    (x ** 3).sum().backward()  # accumulates
    rec(x.grad, [5.0, 16.0, 33.0])
    x.grad.zero_()
    rec(x.grad, [0.0, 0.0, 0.0])
    x.grad = None
    rec(x.grad is None, True)
    rec.raises(RuntimeError, (x * 2).backward, match="grad can be implicitly created only for scalar outputs")
    z = x * 2
    z.backward(torch.tensor([1.0, 0.5, 0.25]))
    rec(x.grad, [2.0, 1.0, 0.5])
    rec.raises(RuntimeError, (x * 2).backward, torch.ones(2), match="Mismatch in shape")
    s = x.exp().sum()
    s.backward(retain_graph=True)
    s.backward()
    rec(x.grad)
    s = (x * x).sum()  # mul saves its inputs: a second backward needs them
    s.backward()
    rec.raises(RuntimeError, s.backward, match="backward through the graph a second time")
    rec.raises(RuntimeError, torch.tensor([1.0, 2.0]).sum().backward,
               match="does not require grad and does not have a grad_fn")


@differential
def test_tutorial_autograd(torch, rec):
    x = torch.ones(2, 2, requires_grad=True)
    y = x + 2
    rec(y)
    rec(type(y.grad_fn).__name__, "AddBackward0")
    z = y * y * 3
    out = z.mean()
    rec((z, out))
    out.backward()
    rec(x.grad, [[4.5, 4.5], [4.5, 4.5]])
    a = torch.tensor([[2.0, 3.0], [4.0, 5.0]])
    a = (a * 3) / (a - 1)
    rec(a.requires_grad, False)
    a.requires_grad_(True)
    rec(a.requires_grad, True)
    rec(type((a * a).sum().grad_fn).__name__, "SumBackward0")
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    while y.data.norm() < 1000:
        y = y * 2
    rec(y)
    y.backward(torch.tensor([0.1, 1.0]))
    rec(x.grad)
    with torch.no_grad():
        rec((x ** 2).requires_grad, False)
    d = x.detach()
    rec((d.requires_grad, d.is_leaf, bool(x.eq(d).all())), (False, True, True))
    rec.raises(RuntimeError, torch.tensor([1, 2]).requires_grad_,
               match="floating point")


@differential
def test_grad_modes(torch, rec):
    x = torch.ones(2, requires_grad=True)

    @torch.no_grad()
    def f(v):
        return v * 2

    @torch.no_grad
    def g(v):
        return v * 2

    rec((f(x).requires_grad, g(x).requires_grad), (False, False))
    with torch.set_grad_enabled(False):
        rec((x * 2).requires_grad, False)
    torch.set_grad_enabled(False)
    rec(((x * 2).requires_grad, torch.is_grad_enabled()), (False, False))
    torch.set_grad_enabled(True)
    with torch.inference_mode():
        y = x * 2
    rec(y.requires_grad, False)
    with torch.no_grad():
        with torch.enable_grad():
            rec((x * 2).requires_grad, True)


@differential
def test_autograd_grad_higher_order(torch, rec):
    a = torch.tensor(3.0, requires_grad=True)
    g, = torch.autograd.grad(a ** 3, a, create_graph=True)
    rec(g, 27.0)
    g2, = torch.autograd.grad(g, a)
    rec(g2, 18.0)
    # Hessian-vector product by double backward
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    v = torch.tensor([0.5, -1.0])
    f = (w ** 2).prod() + w.sin().sum()
    gw, = torch.autograd.grad(f, w, create_graph=True)
    hv, = torch.autograd.grad(gw, w, grad_outputs=v)
    rec(hv)
    # gradient penalty pattern: backward through a gradient norm
    x = torch.tensor([[1.0, -2.0], [0.5, 3.0]], requires_grad=True)
    out = (x.tanh() * torch.tensor([1.0, 2.0])).sum()
    gx, = torch.autograd.grad(out, x, create_graph=True)
    penalty = (gx.norm() - 1) ** 2
    penalty.backward()
    rec(x.grad)
    unused = torch.tensor(1.0, requires_grad=True)
    rec.raises(RuntimeError, torch.autograd.grad, (w * 2).sum(), [w, unused],
               match="appears to not have been used in the graph")
    rec(torch.autograd.grad((w * 2).sum(), [w, unused], allow_unused=True))
    rec(torch.autograd.grad((w * 2).sum(), [w, unused], allow_unused=True, materialize_grads=True))
    rec.raises(RuntimeError, torch.autograd.grad, w.sum(), torch.tensor([1.0, 2.0]))


@differential
def test_retain_grad_and_tensor_hooks(torch, rec):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 2
    y.retain_grad()
    (y ** 2).sum().backward()
    rec((y.grad, x.grad, y.retains_grad, x.retains_grad))
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    h = x.register_hook(lambda g: g * 10)
    (x * 2).sum().backward()
    rec(x.grad, [20.0, 20.0, 20.0])
    h.remove()
    (x * 2).sum().backward()
    rec(x.grad, [22.0, 22.0, 22.0])
    seen = []
    y = x * 2
    y.register_hook(lambda g: seen.append(g))
    y.register_hook(lambda g: g + 1)
    y.retain_grad()
    x.grad = None
    y.sum().backward()
    rec((seen, y.grad, x.grad))
    rec.raises(RuntimeError, torch.tensor([1.0]).register_hook, lambda g: g,
               match="cannot register a hook on a tensor that doesn't require gradient")
    # a hook on a module's output
    lin = torch.nn.Linear(2, 2)
    with torch.no_grad():
        lin.weight.copy_(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
        lin.bias.zero_()
    out = lin(torch.ones(1, 2))
    got = []
    out.register_hook(lambda g: got.append(g))
    (out * torch.tensor([[1.0, 2.0]])).sum().backward()
    rec((got, lin.weight.grad))


@differential
def test_version_counter_and_inplace(torch, rec):
    a = torch.ones(3)
    rec(a._version, 0)
    a.add_(1)
    a[0] = 5
    a.zero_()
    rec(a._version, 3)
    v = a[1:]
    v.fill_(2)
    rec((a._version, v._version), (4, 4))
    leaf = torch.tensor([1.0, 2.0], requires_grad=True)
    rec.raises(RuntimeError, leaf.add_, 1, match="a leaf Variable that requires grad")
    with torch.no_grad():
        leaf.add_(1)
    rec(leaf)
    b = leaf * 2
    b.add_(1)
    rec(b)
    b.sum().backward()
    rec(leaf.grad, [2.0, 2.0])
    c = leaf.exp()
    c.mul_(2)
    rec.raises(RuntimeError, c.sum().backward, match="modified by an inplace operation")
    base = leaf * 1
    view = base[0:1]
    view.mul_(5)
    rec(base)
    leaf.grad = None
    base.sum().backward()
    rec(leaf.grad, [5.0, 1.0])
    w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    z = torch.zeros(3)
    z[0] = w[1] * 2
    z[2] = w.sum()
    z.sum().backward()
    rec(w.grad, [1.0, 3.0, 1.0])
    d = leaf.detach()
    d.zero_()
    rec(leaf)
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    s = (x * x).sum()
    x.detach().mul_(2)
    rec.raises(RuntimeError, s.backward, match="modified by an inplace operation")


@differential
def test_anomaly_detection(torch, rec):
    x = torch.tensor([0.0, 1.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with torch.autograd.detect_anomaly():
            rec(torch.is_anomaly_enabled(), True)
            y = (x.sqrt() * 0).sum()
            rec.raises(RuntimeError, torch.autograd.grad, y, x,
                       match="Function 'SqrtBackward0' returned nan values in its 0th output.")
    rec(torch.is_anomaly_enabled(), False)
    y = (x.sqrt() * 0).sum()
    rec(torch.autograd.grad(y, x)[0].isnan().tolist(), [True, False])
    with torch.autograd.set_detect_anomaly(True, check_nan=False):
        rec((torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()), (True, False))
        y = (x.sqrt() * 0).sum()
        torch.autograd.grad(y, x)
    rec(torch.is_anomaly_enabled(), False)


@differential
def test_autograd_functional(torch, rec):
    F = torch.autograd.functional

    def f(x):
        return (x ** 3).sum()

    x = torch.tensor([1.0, 2.0])
    rec(F.hessian(f, x), [[6.0, 0.0], [0.0, 12.0]])
    rec(F.jacobian(lambda t: t ** 2, x), [[2.0, 0.0], [0.0, 4.0]])
    rec(F.vjp(lambda t: t ** 2, x, torch.ones(2)))
    rec(F.jvp(lambda t: t ** 2, x, torch.ones(2)))
    rec(F.hvp(f, x, torch.tensor([1.0, -1.0])))
    rec(F.vhp(f, x, torch.tensor([1.0, -1.0])))
    rec(F.jacobian(lambda a, b: (a * b, a + b), (x, torch.tensor([3.0, 4.0]))))
    rec(F.hessian(lambda a, b: (a * b * b).sum(), (x, torch.tensor([3.0, 4.0]))))
    rec(F.jacobian(lambda t: torch.ones(3), x), [[0.0, 0.0]] * 3)
    rec.raises(RuntimeError, F.jacobian, lambda t: torch.ones(3), x, strict=True)
    rec.raises(RuntimeError, F.vjp, lambda t: t * 2, x, match="The vector v can only be None")
    rec.raises(TypeError, F.jacobian, lambda t: t, [1.0, 2.0])
    rec.raises(RuntimeError, F.hessian, lambda t: t * 2, x)
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    h = F.hessian(lambda t: (t ** 3 * w).sum(), x, create_graph=True)
    h.sum().backward()
    rec(w.grad, [6.0, 12.0])
