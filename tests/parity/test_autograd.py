"""Autograd as tutorials use it: backward, .grad, no_grad, autograd.grad, hooks, in-place checks, anomaly mode."""

from __future__ import annotations

import warnings

import pytest

from tests.parity.differential import differential


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


@differential
def test_autograd_functional_products_and_strict_mode(torch, rec):
    F = torch.autograd.functional
    x, y = torch.tensor([1.0, 2.0]), torch.tensor([3.0, -1.0])

    def f(a, b):
        return (a ** 2 * b).sum()

    # J v of (a*b, a): [[b, a], [1, 0]] applied to (va, vb)
    rec(F.jvp(lambda a, b: (a * b, a), (x, y), (torch.ones(2), torch.tensor([1.0, 2.0])))[1],
        ([4.0, 3.0], [1.0, 1.0]))
    # H of f: d2/da2 = 2b, d2/dadb = 2a, d2/db2 = 0
    v = (torch.tensor([1.0, 0.0]), torch.tensor([0.0, 1.0]))
    rec(F.hvp(f, (x, y), v)[1], ([6.0, 4.0], [2.0, 0.0]))
    rec(F.vhp(f, (x, y), v)[1], ([6.0, 4.0], [2.0, 0.0]))

    def independent_of_b(a, b):
        return (a ** 3).sum()

    rec(F.hvp(independent_of_b, (x, y), v)[1], ([6.0, 0.0], [0.0, 0.0]))
    rec(F.vjp(lambda a, b: a * 2, (x, y), torch.ones(2))[1], ([2.0, 2.0], [0.0, 0.0]))
    rec.raises(RuntimeError, F.vjp, lambda a, b: a * 2, (x, y), torch.ones(2), strict=True,
               match="The output of the user-provided function is independent of input 1. This is not allowed in "
                     "strict mode.")
    rec.raises(RuntimeError, F.jvp, lambda a: torch.ones(2), x, torch.ones(2), strict=True,
               match="Output 0 of the user-provided function does not require gradients.")
    rec.raises(RuntimeError, F.jvp, lambda a, b: a * 2, (x, y), (torch.ones(2), torch.ones(2)), strict=True,
               match="The output of the user-provided function is independent of input 1.")
    rec.raises(RuntimeError, F.vhp, lambda a: a.sum() * 2, x, torch.ones(2), strict=True,
               match="the jacobian of the user-provided function with respect to input 0 is independent of the input")
    rec.raises(RuntimeError, F.jacobian, lambda a: a * 2, x, strict=True, create_graph=True,
               match="The jacobian of the user-provided function is independent of input 0. This is not allowed in "
                     "strict mode when create_graph=True.")
    rec.raises(RuntimeError, F.hessian, independent_of_b, (x, y), strict=True,
               match="the jacobian of the user-provided function with respect to input 1 is independent of the input")
    rec(F.hessian(independent_of_b, (x, y))[1][1], [[0.0, 0.0], [0.0, 0.0]])
    for product in (F.vhp, F.hvp):
        rec.raises(RuntimeError, product, independent_of_b, (x, y), v, strict=True,
                   match="The output of the user-provided function is independent of input 1. This is not allowed in "
                         "strict mode.")

@pytest.mark.filterwarnings("ignore:Input #0 requires gradient and is not a double precision")
@differential
def test_backward_inputs_hooks_and_kinks(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = torch.tensor([3.0], requires_grad=True)
    (x * y).sum().backward(inputs=[x])
    rec((x.grad, y.grad), ([3.0, 3.0], None))
    torch.autograd.backward([(x * 2).sum(), (y * 3).sum()])
    rec((x.grad, y.grad), ([5.0, 5.0], [3.0]))
    rec(torch.autograd.grad([(x ** 2).sum(), (x ** 3).sum()], x), ([5.0, 16.0],))
    rec(torch.autograd.grad(x * 2, x, torch.ones(2)), ([2.0, 2.0],))
    rec.raises(RuntimeError, torch.autograd.grad, x * 2, x, match="grad can be implicitly created only for scalar outputs")
    post = []
    x.register_post_accumulate_grad_hook(lambda p: post.append(p.grad.clone()))
    (x * 3).sum().backward()
    rec(post, [[8.0, 8.0]])
    node_calls = []
    out = x * 2
    out.grad_fn.register_hook(lambda gi, go: node_calls.append(("post", gi, go)))
    out.grad_fn.register_prehook(lambda go: node_calls.append(("pre", go)))
    out.sum().backward()
    rec(node_calls)
    rec(((x * 2).grad_fn.name(), x.sum().grad_fn.next_functions[0][0].variable is x), ("MulBackward0", True))
    i = torch.tensor([1, 2])
    rec(((i * 2).requires_grad, (x > 0).requires_grad, x.argmax().requires_grad, x.long().requires_grad,
         x.round().requires_grad), (False, False, False, False, True))
    z = torch.tensor(0.0, requires_grad=True)
    for f in (torch.abs, torch.relu, torch.sqrt, lambda t: t.norm(), lambda t: t.clamp(0, 1),
              lambda t: torch.max(t, torch.tensor(0.0)), lambda t: t ** 0.5, torch.sign):
        z.grad = None
        f(z).backward()
        rec(z.grad)
    v = torch.tensor([0.0, 0.0], requires_grad=True)
    v.norm().backward()
    rec(v.grad, [0.0, 0.0])
    t = torch.tensor([1.0, 1.0, 2.0, 2.0], requires_grad=True)
    t.max().backward()
    rec(t.grad, [0.0, 0.0, 0.5, 0.5])
    t.grad = None
    torch.max(t, 0)[0].backward()
    rec(t.grad)
    t.grad = None
    t.amax().backward()
    rec(t.grad, [0.0, 0.0, 0.5, 0.5])
    m = torch.tensor([2.0, 1.0, 2.0], requires_grad=True)
    m.median().backward()
    rec(m.grad)
    s = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    a, b = s.split(2)
    (a.sum() * 2 + b.sum()).backward()
    rec(s.grad, [2.0, 2.0, 1.0])
    e = torch.ones(3, requires_grad=True)
    e.expand(2, 3).sum().backward()
    rec(e.grad, [2.0, 2.0, 2.0])
    err = rec.raises(RuntimeError, torch.autograd.gradcheck, lambda q: (q ** 2).sum(),
                     (torch.tensor([1.0, 2.0], requires_grad=True),), match="Jacobian mismatch for output 0 with respect to input 0")
    rec(type(err).__name__, "GradcheckError")
    for name, other in (("eq_", torch.tensor([2.0, 2.0], requires_grad=True)), ("lt_", 2.0), ("ge_", torch.tensor(1.5))):
        leaf = torch.tensor([1.0, 2.0], requires_grad=True)
        y = leaf * 1
        getattr(y, name)(other)
        y.sum().backward()
        rec((y, leaf.grad, getattr(other, "grad", None)))  # comparisons in place: zero gradient, like torch
    old = torch.autograd.Variable(torch.ones(2), requires_grad=True)
    rec((old, type(old).__name__, isinstance(torch.ones(1), torch.autograd.Variable)))
    rec.raises(TypeError, torch.autograd.Variable, [1, 2], match="Variable data has to be a tensor, but got list")


@differential
def test_complex_real_and_imag_are_view_properties(torch, rec):
    z = torch.tensor([1 + 2j, 3 - 1j])
    rec((z.real, z.imag), ([1.0, 3.0], [2.0, -1.0]))
    # views: writing through them changes z, and assigning to the property writes into z
    z.imag.mul_(10)
    z.real = torch.tensor([5.0, 6.0])
    rec(z)
    rec(z.imag._base is z)
    r = torch.tensor([1.0, 2.0])
    rec(r.real is r, True)
    rec.raises(RuntimeError, lambda: r.imag, match="imag is not implemented for tensors with non-complex dtypes")
    # gradients flow back as complex: through real unchanged, through imag times 1j
    w = torch.tensor([2.0, 5.0])
    x = torch.tensor([1 + 2j, 3 - 1j], requires_grad=True)
    (x.imag * w).sum().backward()
    rec(x.grad)
    x = torch.tensor([1 + 2j, 3 - 1j], requires_grad=True)
    (x.real * w + x.imag * x.imag).sum().backward()
    rec(x.grad)
    rec(torch.real(x).requires_grad and torch.imag(x).requires_grad, True)
