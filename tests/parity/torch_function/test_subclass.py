"""Tensor subclasses under the default ``Tensor.__torch_function__``: propagation, as_subclass, Parameter, autograd.

Each test runs against tensorlib and (when installed) torch with the same subclasses.
"""

from __future__ import annotations

import copy
import pickle
import warnings

import pytest

from tests.parity.torch_function.libraries import TORCH_PLAIN_METHOD_WARNING, Api, type_shape

pytestmark = pytest.mark.filterwarnings(TORCH_PLAIN_METHOD_WARNING)


def subclasses(api):
    class S(api.Tensor):
        pass

    class S2(api.Tensor):
        pass

    class SS(S):
        pass

    return S, S2, SS


def logged(api):
    class Logged(api.Tensor):
        log: list = []

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            cls.log.append(func)
            return super().__torch_function__(func, types, args, kwargs)

    return Logged


# -- propagation through the whole Tensor API, compared with torch -----------------------------

DATA = [[0.5, 1.5], [2.0, 3.0], [1.0, 0.25]]
ARGSETS = [(), (0,), (1,), ("OTHER",), (1.0,), ((3, 2),), (0, 1), (1, 1), ("OTHER", "OTHER"), ("IDX",),
           (0, "IDX"), ("MASK", 0.0), ("OTHERT",), ("SQ",), ("OTHERT", "OTHER"), (1, "IDX", "OTHER")]
# Names whose results differ from torch's for reasons outside the protocol.
NOT_COMPARED = {
    "__reduce_ex__",  # pickling layout
    "__deepcopy__",  # torch's default deepcopy refuses non-wrapper subclasses
    "detach_",  # torch's subclass results are alias views (see test_results_are_not_views)
    "real", "imag",  # properties in torch, methods in tensorlib
    "layout",  # torch.layout object vs string
}


def _arg(api, token):
    lib = api.lib
    if token == "OTHER":
        return lib.tensor(DATA)
    if token == "OTHERT":
        return lib.tensor(DATA).t().contiguous()
    if token == "SQ":
        return lib.tensor([[0.5, 1.5], [2.0, 3.0]])
    if token == "IDX":
        return lib.tensor([[0, 1], [1, 0], [0, 0]])
    if token == "MASK":
        return lib.tensor(DATA) > 1.0
    return token


def _first_success(api, sub, call):
    """(argset, type shape of the result) for the first argset that works, else None."""
    for argset in ARGSETS:
        x = api.lib.tensor(DATA).as_subclass(sub)
        args = tuple(_arg(api, a) for a in argset)
        try:
            r = call(x, args)
        except Exception:  # noqa: BLE001 - trying argument sets
            continue
        if r is NotImplemented:
            continue
        return argset, type_shape(r, sub, api.Tensor)
    return None


def _tensorlib_entries():
    import tensorlib
    import tensorlib.linalg
    import tensorlib.nn.functional
    from tensorlib.overrides import get_overridable_functions

    table = get_overridable_functions()
    methods = sorted({f.__name__ for f in table[tensorlib.Tensor] if f.__name__ not in ("__get__", "__set__")})
    props = sorted(k for k, v in vars(tensorlib.Tensor).items() if isinstance(v, property))
    funcs = {ns.__name__: sorted(f.__name__ for f in table[ns]) for ns in
             (tensorlib, tensorlib.nn.functional, tensorlib.linalg)}
    return methods, props, funcs


def _all_tensors_are(shape) -> bool:
    if shape == "T":
        return False
    if isinstance(shape, tuple):
        return all(_all_tensors_are(s) for s in shape[1])
    return True


def _sweep(api):
    """Type shapes of every Tensor method, property and public function applied to a subclass instance."""
    S, _, _ = subclasses(api)
    methods, props, funcs = _tensorlib_entries()
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in methods:
            m = getattr(api.Tensor, name, None)
            if m is not None:
                out[f"Tensor.{name}"] = _first_success(api, S, lambda x, a, m=m: m(x, *a))
        for name in props:
            if hasattr(api.Tensor, name):
                out[f"Tensor.{name}.__get__"] = _first_success(
                    api, S, lambda x, a, n=name: NotImplemented if a else getattr(x, n))
        for modname, names in funcs.items():
            ns = api.lib if modname == "tensorlib" else api.F if modname.endswith("functional") else api.lib.linalg
            for name in names:
                f = getattr(ns, name, None)
                if f is not None and callable(f):
                    out[f"{modname}.{name}"] = _first_success(api, S, lambda x, a, f=f: f(x, *a))
    return out


_SWEEPS: dict = {}


def sweep(name):
    if name not in _SWEEPS:
        _SWEEPS[name] = _sweep(Api(name))
    return _SWEEPS[name]


def test_every_result_tensor_of_every_entry_is_the_subclass():
    results = sweep("tensorlib")
    tried = {k: v for k, v in results.items() if v is not None}
    assert len(tried) > 600
    plain = {k: v for k, v in tried.items() if not _all_tensors_are(v[1])}
    assert plain == {}


def test_result_types_match_torch_for_every_shared_entry():
    pytest.importorskip("torch")
    ours, theirs = sweep("tensorlib"), sweep("torch")
    compared, mismatches = 0, []
    for key, t in theirs.items():
        o = ours.get(key)
        if t is None or o is None or key.split(".")[-1] in NOT_COMPARED or key.split(".")[-2] in NOT_COMPARED:
            continue
        if t[0] != o[0]:
            continue  # different argument sets succeeded: not comparable
        compared += 1
        if t[1] != o[1]:
            mismatches.append((key, o, t))
    assert compared > 400
    assert mismatches == []


# -- specific propagation cases ----------------------------------------------------------------------


@pytest.mark.filterwarnings("ignore:The use of `x.T`")
def test_operators_indexing_and_reflected_ops(api):
    S, _, _ = subclasses(api)
    s = api.t(1.0, 2.0, 3.0).as_subclass(S)
    x = api.t(1.0, 2.0, 3.0)
    for r in (s + 1, 1 + s, x + s, s + x, s * s, -s, abs(s), s ** 2, 2 ** s, s @ s, s / 2, 2 / s, s // 1, s % 2,
              s > 1, s == s, s[0], s[1:], s[None], s[[0, 2]], s[s > 1], x[(s - 1).long()], s.T, s.data, s.detach()):
        assert type(r) is S, r


def test_named_tuples_tuples_and_lists(api):
    S, _, _ = subclasses(api)
    s = api.lib.tensor([[3.0, 1.0], [2.0, 4.0]]).as_subclass(S)
    for res, fields in ((s.max(0), ("values", "indices")), (s.sort(), ("values", "indices")),
                        (s.topk(1), ("values", "indices")), (api.lib.min(s, 1), ("values", "indices")),
                        (s.aminmax(), ("min", "max")), (s.kthvalue(1), ("values", "indices"))):
        assert type(res).__name__ in ("max", "min", "sort", "topk", "aminmax", "kthvalue")
        for f in fields:
            assert type(getattr(res, f)) is S
        assert all(type(e) is S for e in res)
    parts = api.lib.split(s, 1)
    assert type(parts) is tuple and all(type(p) is S for p in parts)
    assert all(type(p) is S for p in s.unbind(0))
    assert all(type(p) is S for p in api.lib.broadcast_tensors(s, api.t(1.0, 2.0)))


def test_iteration_yields_the_subclass_and_iter_does_not_dispatch(api):
    Logged = logged(api)
    s = api.lib.ones(2, 3).as_subclass(Logged)
    Logged.log.clear()
    rows = list(s)
    assert all(type(r) is Logged for r in rows)
    names = [f.__name__ for f in Logged.log]
    assert "__iter__" not in names and "unbind" in names
    assert api.Tensor.__iter__ in api.ov.get_ignored_functions()


def test_in_place_ops(api):
    S, _, _ = subclasses(api)
    x = api.t(1.0, 2.0)
    s = api.t(1.0, 1.0).as_subclass(S)
    r = s.add_(x)
    assert r is s and type(s) is S
    r = x.add_(s)
    assert type(r) is S and r is not x and type(x) is api.Tensor  # the argument keeps its class
    r.mul_(0)
    assert x.tolist() == [0.0, 0.0]  # ... and shares its data
    y = api.t()
    y += s
    assert type(y) is S
    z = s.clone()
    z += x
    assert type(z) is S
    w = api.t()
    w[0] = s[0]
    assert type(w) is api.Tensor
    s[0] = x[0]
    assert type(s) is S


def test_out_argument_results(api):
    S, _, _ = subclasses(api)
    o = api.lib.zeros(2).as_subclass(S)
    r = api.lib.add(api.t(), 1, out=o)
    assert r is o and type(r) is S
    o2 = api.lib.zeros(2)
    r = api.lib.add(api.t().as_subclass(S), 1, out=o2)
    assert type(r) is S and r is not o2 and type(o2) is api.Tensor
    assert o2.tolist() == [2.0, 3.0]


def test_subclass_of_subclass_wins_siblings_refuse(api):
    S, S2, SS = subclasses(api)
    a, b, c = api.t().as_subclass(S), api.t().as_subclass(SS), api.t().as_subclass(S2)
    assert type(a + b) is SS and type(b + a) is SS and type(api.lib.cat([a, b])) is SS
    assert S.__torch_function__(api.lib.add, (S2,), (a, c), {}) is NotImplemented
    assert type(S.__torch_function__(api.lib.add, (S, api.Tensor), (a, api.t()), {})) is S
    with pytest.raises(TypeError):
        a + c
    with pytest.raises(TypeError):
        api.lib.add(a, c)


def test_duck_and_subclass_mix(api):
    S, _, _ = subclasses(api)

    class Duck:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return [t.__name__ for t in types]

    s = api.t().as_subclass(S)
    assert api.lib.add(s, Duck()) == ["S", "Duck"]
    assert api.lib.add(Duck(), s) == ["Duck", "S"]
    assert s + Duck() == ["S", "Duck"]


# -- as_subclass and construction ----------------------------------------------------------------


def test_as_subclass(api):
    S, _, _ = subclasses(api)
    base = api.t(1.0, 2.0)
    s = base.as_subclass(S)
    assert type(s) is S and s is not base
    s.add_(1)
    assert base.tolist() == [2.0, 3.0]  # shares data
    assert type(s.as_subclass(api.Tensor)) is api.Tensor  # as_subclass is not dispatched, so not re-wrapped
    assert type(s.as_subclass(S)) is S and s.as_subclass(S) is not s
    with pytest.raises(TypeError):
        base.as_subclass(int)
    assert api.Tensor.as_subclass in api.ov.get_ignored_functions()


def test_as_subclass_does_not_dispatch(api):
    Logged = logged(api)
    s = api.t().as_subclass(Logged)
    Logged.log.clear()
    s.as_subclass(api.Tensor)
    assert Logged.log == []


def test_as_subclass_autograd(api):
    S, _, _ = subclasses(api)
    leaf = api.lib.ones(2, requires_grad=True)
    s = leaf.as_subclass(S)
    assert not s.is_leaf and s.requires_grad and type(s.grad_fn).__name__ == "AliasBackward0"
    assert s._base is leaf
    s2 = api.lib.ones(2).as_subclass(S)
    assert s2.is_leaf and s2.grad_fn is None


def test_subclass_construction(api):
    S, _, _ = subclasses(api)
    made = S([1, 2])
    assert type(made) is S and made.dtype is api.lib.float32
    assert repr(made) == "S([1., 2.])"
    assert type(made + 1) is S


def test_subclass_init_new_slots_and_extra_attributes(api):
    created = []

    class WithInit(api.Tensor):
        def __init__(self, *args, **kwargs):
            created.append(args)

    class WithNew(api.Tensor):
        @staticmethod
        def __new__(cls, data, extra=None):
            r = data.as_subclass(cls)
            r.extra = extra
            return r

        def __init__(self, data, extra=None):
            pass

    class Slotted(api.Tensor):
        __slots__ = ("foo",)

    w = api.t().as_subclass(WithInit)
    assert type(w + 1) is WithInit and created == []  # results are not constructed through __init__
    n = WithNew(api.t(), extra=5)
    assert type(n) is WithNew and n.extra == 5
    r = n + 1
    assert type(r) is WithNew and not hasattr(r, "extra")  # attributes are not propagated
    sl = api.t().as_subclass(Slotted)
    assert type(sl + 1) is Slotted and type(sl.add_(1)) is Slotted and type(api.lib.neg(sl)) is Slotted


def test_custom_handler_sees_properties_methods_and_operators(api):
    Logged = logged(api)
    s = api.t().as_subclass(Logged)
    Logged.log.clear()
    _ = s.shape
    s.requires_grad = True
    _ = s.sum()
    _ = s * 2
    _ = 2 - s
    # ``s * 2`` is reported as Tensor.mul, ``2 - s`` as Tensor.__rsub__ (torch writes that one in Python)
    assert Logged.log == [
        api.Tensor.shape.__get__, api.Tensor.requires_grad.__set__, api.Tensor.sum, api.Tensor.mul, api.Tensor.__rsub__,
    ]


def test_default_handler_does_not_dispatch_again_inside_implementations(api):
    # Implementations that use the public API (new_* read self.dtype) run inside the default handler
    # without dispatching to the subclass again: each call is logged once.
    Logged = logged(api)
    s = api.t().as_subclass(Logged)
    cases = [
        (lambda: s.new_zeros(2), api.Tensor.new_zeros),
        (lambda: s.new_ones(2), api.Tensor.new_ones),
        (lambda: s.new_empty(2), api.Tensor.new_empty),
        (lambda: s.new_full((2,), 1.0), api.Tensor.new_full),
        (lambda: s.new_tensor([1.0]), api.Tensor.new_tensor),
        (lambda: api.F.softmax(s, 0), api.F.softmax),
        (lambda: api.F.mse_loss(s, api.t()), api.F.mse_loss),
        (lambda: s.norm(), api.Tensor.norm),
    ]
    for call, func in cases:
        Logged.log.clear()
        r = call()
        assert type(r) is Logged
        assert Logged.log == [func], Logged.log


@pytest.mark.filterwarnings("ignore")
def test_tensorlib_no_entry_dispatches_twice():
    import tensorlib
    from tensorlib.overrides import get_overridable_functions, resolve_name

    Logged = logged(Api("tensorlib"))
    nested = []
    for fs in get_overridable_functions().values():
        for f in fs:
            if f.__name__ == "__set__":
                continue
            for argset in ARGSETS:
                x = tensorlib.tensor(DATA).as_subclass(Logged)
                args = tuple(_arg(Api("tensorlib"), a) for a in argset)
                Logged.log.clear()
                try:
                    f(x) if f.__name__ == "__get__" else f(x, *args)
                except Exception:  # noqa: BLE001 - trying argument sets
                    continue
                if len(Logged.log) > 1:
                    nested.append((resolve_name(f), [resolve_name(g) for g in Logged.log]))
                break
    assert nested == []


# -- Parameter ------------------------------------------------------------------------------------


def test_parameter_is_plain_for_dispatch(api):
    S, _, _ = subclasses(api)
    p = api.Parameter(api.t())
    assert type(p) is api.Parameter
    for r in (p + 1, p * 2, p.detach(), p.data, p[0], p.sum(), api.lib.neg(p)):
        assert type(r) is api.Tensor
    assert type(p.as_subclass(S)) is S
    assert not api.ov.has_torch_function((p,))

    class SubParam(api.Parameter):
        pass

    sp = SubParam(api.t())
    assert type(sp) is SubParam and type(sp + 1) is api.Tensor


def test_parameter_does_not_shadow_a_duck_type(api):
    class Duck:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return types

    p = api.Parameter(api.t())
    assert api.lib.add(p, Duck()) == (Duck,)
    assert api.lib.add(Duck(), p) == (Duck,)
    assert p + Duck() == (Duck,)


# -- autograd ---------------------------------------------------------------------------------------


def test_autograd_through_subclass(api):
    S, _, _ = subclasses(api)
    leaf = api.lib.ones(2, requires_grad=True)
    out = (leaf.as_subclass(S) * 3).sum()
    assert type(out) is S and out.requires_grad
    out.backward()
    assert type(leaf.grad) is api.Tensor and leaf.grad.tolist() == [3.0, 3.0]
    x = S(api.lib.ones(2))
    x.requires_grad_()
    assert type(x) is S and x.is_leaf
    (x * 2).sum().backward()
    assert type(x.grad) is api.Tensor  # .grad comes back as stored
    x.grad = api.lib.zeros(2).as_subclass(S)
    assert type(x.grad) is S


def test_autograd_grad_and_backward_dispatch(api):
    # autograd.grad and autograd.backward are overridable: a subclass in the graph sees them.
    S, _, _ = subclasses(api)
    x = api.lib.ones(2, requires_grad=True)
    y = (x.as_subclass(S) * 2).sum()
    (g,) = api.lib.autograd.grad(y, x)
    assert type(g) is S and g.tolist() == [2.0, 2.0]
    api.lib.autograd.backward((x.as_subclass(S) * 3).sum())
    assert x.grad.tolist() == [3.0, 3.0]

    class Duck:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return func.__name__

    assert api.lib.autograd.grad(Duck(), x) == "grad"
    assert api.lib.autograd.backward(Duck()) == "backward"


def test_custom_function_with_subclass_inputs(api):
    S, _, _ = subclasses(api)

    class Double(api.lib.autograd.Function):
        @staticmethod
        def forward(ctx, inp):
            return inp * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    leaf = api.lib.ones(2, requires_grad=True)
    out = Double.apply(leaf.as_subclass(S))
    assert type(out) is S
    out.sum().backward()
    assert leaf.grad.tolist() == [2.0, 2.0]


# -- pickling and copying -------------------------------------------------------------------------------


def test_pickle_and_copy_subclass_tensors(api):
    S, _, _ = subclasses(api)
    globals()["PickledSub"] = S  # picklable by reference
    S.__qualname__ = S.__name__ = "PickledSub"
    try:
        s = api.t(1.0, 2.0).as_subclass(S)
        s.note = "kept"
        r = pickle.loads(pickle.dumps(s))
        assert type(r) is S and r.tolist() == [1.0, 2.0] and r.note == "kept"
        c = copy.copy(s)
        assert type(c) is S
        if not api.is_torch:  # torch's default __deepcopy__ refuses non-wrapper subclasses
            d = copy.deepcopy(s)
            assert type(d) is S and d.note == "kept" and d.tolist() == [1.0, 2.0]
    finally:
        del globals()["PickledSub"]
