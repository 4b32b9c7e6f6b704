"""tensorlib.distributions.transforms and the constraint registries: round trips, Jacobians, shapes, caching, torch parity."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest

import tensorlib
from tensorlib.autograd import gradcheck
from tensorlib.autograd.functional import jacobian
from tensorlib.distributions import Normal, biject_to, constraints, transform_to, transforms as T
from tests.helpers import assert_close

D = tensorlib.float64


def t(values):
    return tensorlib.tensor(values, dtype=D)


def randn(*shape, seed=0):
    return tensorlib.from_numpy(np.random.default_rng(seed).standard_normal(shape))


def _positive(*shape, seed=0):
    return randn(*shape, seed=seed).exp()


def _simplex(*shape, seed=0):
    return randn(*shape, seed=seed).softmax(-1)


def _corr_cholesky(n, seed=0):
    return T.CorrCholeskyTransform()(randn(n * (n - 1) // 2, seed=seed))


def _torch_f64(value):
    import torch

    return torch.tensor(value, dtype=torch.float64)


# name -> (tensorlib transform factory, torch factory (given the torch module), input factory,
#          how to flatten an event: "elementwise", or the number of event dims of the input)
CASES = {
    "exp": (lambda: T.ExpTransform(), lambda tt: tt.ExpTransform(), lambda: randn(5), "elementwise"),
    "power": (lambda: T.PowerTransform(2.5), lambda tt: tt.PowerTransform(_torch_f64(2.5)), lambda: _positive(5), "elementwise"),
    "power_neg": (lambda: T.PowerTransform(t(-1.5)), lambda tt: tt.PowerTransform(_torch_f64(-1.5)), lambda: _positive(4),
                  "elementwise"),
    "sigmoid": (lambda: T.SigmoidTransform(), lambda tt: tt.SigmoidTransform(), lambda: randn(5), "elementwise"),
    "tanh": (lambda: T.TanhTransform(), lambda tt: tt.TanhTransform(), lambda: randn(5), "elementwise"),
    "softplus": (lambda: T.SoftplusTransform(), lambda tt: tt.SoftplusTransform(), lambda: randn(5), "elementwise"),
    "affine": (lambda: T.AffineTransform(1.5, -2.0), lambda tt: tt.AffineTransform(1.5, -2.0), lambda: randn(5),
               "elementwise"),
    "affine_event": (lambda: T.AffineTransform(t([1.0, 2.0, 3.0]), t([0.5, -2.0, 3.0]), event_dim=1),
                     None, lambda: randn(3), 1),
    "stick_breaking": (lambda: T.StickBreakingTransform(), lambda tt: tt.StickBreakingTransform(),
                       lambda: randn(4), 1),
    "corr_cholesky": (lambda: T.CorrCholeskyTransform(), lambda tt: tt.CorrCholeskyTransform(),
                      lambda: randn(6) * 0.5, 1),
    "reshape": (lambda: T.ReshapeTransform((2, 3), (6,)), lambda tt: tt.ReshapeTransform((2, 3), (6,)),
                lambda: randn(2, 3), 2),
    "independent_exp": (lambda: T.IndependentTransform(T.ExpTransform(), 1),
                        lambda tt: tt.IndependentTransform(tt.ExpTransform(), 1), lambda: randn(4), 1),
    "compose": (lambda: T.ComposeTransform([T.AffineTransform(0.5, 2.0), T.ExpTransform()]),
                lambda tt: tt.ComposeTransform([tt.AffineTransform(0.5, 2.0), tt.ExpTransform()]),
                lambda: randn(5), "elementwise"),
    "compose_event": (lambda: T.ComposeTransform([T.ExpTransform(), T.StickBreakingTransform()]),
                      lambda tt: tt.ComposeTransform([tt.ExpTransform(), tt.StickBreakingTransform()]),
                      lambda: randn(3), 1),
    "cat": (lambda: T.CatTransform([T.ExpTransform(), T.SigmoidTransform()], 0, [2, 3]),
            lambda tt: tt.CatTransform([tt.ExpTransform(), tt.SigmoidTransform()], 0, [2, 3]),
            lambda: randn(5), "elementwise"),
    "stack": (lambda: T.StackTransform([T.ExpTransform(), T.TanhTransform()], 0),
              lambda tt: tt.StackTransform([tt.ExpTransform(), tt.TanhTransform()], 0),
              lambda: randn(2), "elementwise"),
    "cdf": (lambda: T.CumulativeDistributionTransform(Normal(t(0.5), t(2.0))), None, lambda: randn(5),
            "elementwise"),
    "inverse_sigmoid": (lambda: T.SigmoidTransform().inv, lambda tt: tt.SigmoidTransform().inv,
                        lambda: _simplex(5) * 0.9 + 0.01, "elementwise"),
    "inverse_stick": (lambda: T.StickBreakingTransform().inv, lambda tt: tt.StickBreakingTransform().inv,
                      lambda: _simplex(5), "simplex"),
}


def _event_jacobian(transform, x, kind):
    """The square Jacobian of one event: d(free coordinates of y) / d(free coordinates of x)."""
    if kind == "elementwise":
        return jacobian(lambda v: transform(v), x).diagonal()
    if kind == "simplex":  # x on the simplex: its last coordinate is determined by the others
        def fn(head):
            full = tensorlib.cat([head, (1 - head.sum(-1, keepdim=True))], -1)
            return transform(full)
        return jacobian(fn, x[:-1])
    y = transform(x)
    if isinstance(transform, T.StickBreakingTransform) or (isinstance(transform, T.ComposeTransform)
                                                           and transform.parts[-1] == T.StickBreakingTransform()):
        def fn(v):
            return transform(v)[:-1]
        return jacobian(fn, x)
    if isinstance(transform, T.CorrCholeskyTransform):
        rows, cols = np.tril_indices(y.shape[-1], -1)

        def fn(v):
            return transform(v)[tensorlib.from_numpy(rows), tensorlib.from_numpy(cols)]
        return jacobian(fn, x)
    return jacobian(lambda v: transform(v).reshape(-1), x).reshape(y.numel(), x.numel())


@pytest.mark.parametrize("name", sorted(CASES))
def test_round_trip(name):
    make, _, inputs, _ = CASES[name]
    transform, x = make(), inputs()
    y = transform(x)
    assert transform.codomain.check(y).all()
    assert_close(transform.inv(y), x, rtol=1e-9, atol=1e-10)
    assert tuple(transform.forward_shape(x.shape)) == tuple(y.shape)
    assert tuple(transform.inverse_shape(y.shape)) == tuple(x.shape)


@pytest.mark.parametrize("name", sorted(CASES))
def test_log_abs_det_jacobian_matches_numerical_jacobian(name):
    make, _, inputs, kind = CASES[name]
    transform, x = make(), inputs()
    y = transform(x)
    ladj = transform.log_abs_det_jacobian(x, y)
    jac = _event_jacobian(transform, x, kind)
    if kind == "elementwise":
        assert_close(ladj, jac.abs().log(), rtol=1e-9, atol=1e-9)
    else:
        expected = np.linalg.slogdet(jac.numpy())[1]
        assert_close(ladj, np.array(expected), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck_forward_inverse_and_log_det(name):
    make, _, inputs, _ = CASES[name]
    transform, x0 = make(), inputs()
    y0 = transform(x0).detach()
    x = x0.clone().requires_grad_()
    y = y0.clone().requires_grad_()
    assert gradcheck(lambda v: transform(v), (x,))
    if name not in ("inverse_stick", "stick_breaking", "compose_event"):  # a free simplex point leaves the simplex
        assert gradcheck(lambda v: transform.inv(v), (y,))
    assert gradcheck(lambda v: transform.log_abs_det_jacobian(v, transform(v)), (x,))


def test_stick_breaking_inverse_gradcheck_on_the_simplex():
    transform = T.StickBreakingTransform()
    head = _simplex(4)[:-1].clone().requires_grad_()
    assert gradcheck(lambda h: transform.inv(tensorlib.cat([h, 1 - h.sum(-1, keepdim=True)])), (head,))


def test_batched_log_det_shapes():
    x = randn(3, 2, 4)
    cases = [(T.ExpTransform(), (3, 2, 4)), (T.StickBreakingTransform(), (3, 2)),
             (T.IndependentTransform(T.SigmoidTransform(), 2), (3,)), (T.ReshapeTransform((2, 4), (8,)), (3,)),
             (T.AffineTransform(t([1.0, 2.0, 3.0, 4.0]), 2.0, event_dim=1), (3, 2)),
             (T.ComposeTransform([T.ExpTransform(), T.StickBreakingTransform()]), (3, 2))]
    for transform, shape in cases:
        assert tuple(transform.log_abs_det_jacobian(x, transform(x)).shape) == shape, transform


def test_lower_cholesky_and_positive_definite():
    x = randn(2, 3, 3)
    lower = T.LowerCholeskyTransform()(x)
    assert constraints.lower_cholesky.check(lower).all()
    assert_close(T.LowerCholeskyTransform().inv(lower), x.tril(), rtol=1e-12)
    pd = T.PositiveDefiniteTransform()(x)
    assert constraints.positive_definite.check(pd).all()
    assert_close(T.PositiveDefiniteTransform().inv(pd), x.tril(), rtol=1e-9, atol=1e-10)
    assert not T.LowerCholeskyTransform().bijective


def test_abs_and_softmax_are_not_injective():
    x = t([-2.0, 0.5])
    assert_close(T.AbsTransform()(x), [2.0, 0.5]) and assert_close(T.AbsTransform().inv(t([2.0])), [2.0])
    probs = T.SoftmaxTransform()(t([1.0, 2.0, 3.0]))
    assert_close(probs, np.exp([1, 2, 3]) / np.exp([1, 2, 3]).sum(), rtol=1e-12)
    assert_close(T.SoftmaxTransform()(T.SoftmaxTransform().inv(probs)), probs, rtol=1e-12)
    with pytest.raises(ValueError, match="Too few dimensions"):
        T.SoftmaxTransform().forward_shape(())


# -- the Transform protocol -------------------------------------------------------------------------


def test_inverse_is_cached_and_its_inverse_is_the_original():
    exp = T.ExpTransform()
    assert exp.inv is exp.inv and exp.inv.inv is exp
    compose = T.ComposeTransform([T.ExpTransform(), T.AffineTransform(1.0, 2.0)])
    assert compose.inv.inv is compose and compose.inv is compose.inv
    assert repr(exp.inv) == "_InverseTransform(ExpTransform())"
    assert exp.inv.domain is constraints.positive and exp.inv.codomain is constraints.real
    assert exp.inv.sign == 1 and exp.inv.bijective
    assert exp.inv == T.ExpTransform().inv and exp.inv != exp


def test_caching():
    x = randn(3)
    plain = T.ExpTransform()
    assert plain(x) is not plain(x)
    cached = T.ExpTransform(cache_size=1)
    y = cached(x)
    assert cached(x) is y and cached.inv(y) is x
    y2 = t([1.0, 2.0])
    x2 = cached.inv(y2)
    assert cached(x2) is y2
    assert plain.with_cache(0) is plain and plain.with_cache(1)._cache_size == 1
    compose = T.ComposeTransform([T.ExpTransform(), T.AffineTransform(0.0, 2.0)], cache_size=1)
    assert all(p._cache_size == 1 for p in compose.parts)
    assert T.IndependentTransform(T.ExpTransform(), 1, cache_size=1).base_transform._cache_size == 1
    assert T.SoftmaxTransform().with_cache(1)._cache_size == 1
    assert T.ExpTransform().inv.with_cache(1).inv._cache_size == 1
    with pytest.raises(ValueError, match="cache_size must be 0 or 1"):
        T.ExpTransform(cache_size=2)


def test_equality():
    assert T.ExpTransform() == T.ExpTransform() and T.SigmoidTransform() != T.ExpTransform()
    assert T.AffineTransform(1.0, 2.0) == T.AffineTransform(t(1.0), 2.0)
    assert T.AffineTransform(1.0, 2.0) != T.AffineTransform(1.0, 3.0)
    assert T.PowerTransform(2.0) == T.PowerTransform(2.0) and T.PowerTransform(2.0) != T.PowerTransform(3.0)
    assert T.ComposeTransform([T.ExpTransform()]) == T.ComposeTransform([T.ExpTransform()])
    assert T.Transform() != T.Transform() and T.CorrCholeskyTransform() != T.CorrCholeskyTransform()
    assert T.identity_transform == T.ComposeTransform([])


def test_event_dims_and_signs():
    assert T.ExpTransform().event_dim == 0 and T.StickBreakingTransform().event_dim == 1
    assert T.AffineTransform(0.0, 1.0, event_dim=2).event_dim == 2
    assert T.AffineTransform(0.0, -3.0).sign == -1 and T.AffineTransform(t(0.0), t(-3.0)).sign.item() == -1
    assert T.PowerTransform(-2.0).sign.item() == -1
    assert T.ComposeTransform([T.AffineTransform(0.0, -1.0), T.ExpTransform()]).sign == -1
    with pytest.raises(NotImplementedError):
        _ = T.AbsTransform().sign
    with pytest.raises(ValueError, match="Please use either"):
        _ = T.CorrCholeskyTransform().event_dim
    compose = T.ComposeTransform([T.ExpTransform(), T.StickBreakingTransform()])
    assert compose.domain.event_dim == 1 and compose.codomain.event_dim == 1
    assert repr(compose.domain) == "IndependentConstraint(Real(), 1)"
    assert T.identity_transform.domain is constraints.real


def test_shape_errors():
    with pytest.raises(ValueError, match="different numbers of elements"):
        T.ReshapeTransform((2, 3), (5,))
    with pytest.raises(ValueError, match="Shape mismatch"):
        T.ReshapeTransform((2, 3), (6,)).forward_shape((3, 2))
    with pytest.raises(ValueError, match="Too few dimensions"):
        T.ReshapeTransform((2, 3), (6,)).forward_shape((3,))
    with pytest.raises(ValueError, match="flattened lower-diagonal"):
        T.CorrCholeskyTransform().forward_shape((4,))
    with pytest.raises(ValueError, match="not square"):
        T.CorrCholeskyTransform().inverse_shape((4, 3))
    with pytest.raises(ValueError, match="Too few dimensions"):
        T.IndependentTransform(T.ExpTransform(), 1)(t(1.0))
    with pytest.raises(NotImplementedError):
        T.Transform()(t(1.0))
    assert tuple(T.PowerTransform(t([2.0, 3.0])).forward_shape((4, 1))) == (4, 2)
    assert tuple(T.AffineTransform(t([1.0, 2.0]), 1.0).forward_shape(())) == (2,)
    assert tuple(T.CorrCholeskyTransform().forward_shape((5, 6))) == (5, 4, 4)


def test_reprs():
    assert repr(T.AffineTransform(1.0, 2.0)) == "AffineTransform()"
    assert repr(T.IndependentTransform(T.ExpTransform(), 1)) == "IndependentTransform(ExpTransform(), 1)"
    assert repr(T.identity_transform) == "ComposeTransform(\n    \n)"
    assert repr(T.ComposeTransform([T.ExpTransform(), T.SigmoidTransform()])) == \
        "ComposeTransform(\n    ExpTransform(),\n    SigmoidTransform()\n)"


def test_pickle_round_trip():
    transform = T.ComposeTransform([T.ExpTransform(), T.AffineTransform(1.0, 2.0)])
    _ = transform.inv
    copy = pickle.loads(pickle.dumps(transform))
    assert copy == transform and copy.inv.inv is copy


def test_cat_transform_log_det_within_and_across_events():
    x = randn(4, 5)
    within = T.CatTransform([T.IndependentTransform(T.ExpTransform(), 1), T.SigmoidTransform()], -1, [2, 3])
    assert within.event_dim == 1
    sig = x[:, 2:].sigmoid()
    assert_close(within.log_abs_det_jacobian(x, within(x)), x[:, :2].sum(-1) + (sig * (1 - sig)).log().sum(-1),
                 rtol=1e-12)
    across = T.CatTransform([T.IndependentTransform(T.ExpTransform(), 1),
                             T.IndependentTransform(T.SigmoidTransform(), 1)], 0, [1, 3])
    sig = x[1:].sigmoid()
    expected = tensorlib.cat([x[:1].sum(-1), (sig * (1 - sig)).log().sum(-1)])
    assert_close(across.log_abs_det_jacobian(x, across(x)), expected, rtol=1e-12)
    with pytest.raises(ValueError):
        within(randn(4, 6))


# -- constraint registries ----------------------------------------------------------------------------

REGISTERED = [
    constraints.real, constraints.positive, constraints.nonnegative, constraints.greater_than(1.5),
    constraints.greater_than_eq(-2.0), constraints.less_than(3.0), constraints.interval(-1.0, 2.0),
    constraints.half_open_interval(1.0, 3.0), constraints.unit_interval, constraints.simplex,
    constraints.corr_cholesky, constraints.independent(constraints.positive, 1), constraints.real_vector,
    constraints.cat([constraints.real, constraints.positive], 0, [2, 2]),
    constraints.stack([constraints.unit_interval, constraints.positive, constraints.real, constraints.real], 0),
]


@pytest.mark.parametrize("index", range(len(REGISTERED)))
def test_biject_to_lands_in_the_constraint(index):
    constraint = REGISTERED[index]
    x = randn(3, 4)
    if constraint is constraints.corr_cholesky:
        x = randn(3, 6)
    if isinstance(constraint, (type(constraints.cat([constraints.real])), type(constraints.stack([constraints.real])))):
        x = randn(4, 3)
    for registry in (biject_to, transform_to):
        transform = registry(constraint)
        y = transform(x)
        assert constraint.check(y).all(), (registry, constraint)
        if registry is biject_to:
            assert transform.bijective
            assert_close(transform.inv(y), x, rtol=1e-7, atol=1e-7)


def test_transform_to_matrix_constraints():
    x = randn(2, 3, 3)
    for constraint in (constraints.lower_cholesky, constraints.positive_definite, constraints.positive_semidefinite):
        assert constraint.check(transform_to(constraint)(x)).all()
        with pytest.raises(NotImplementedError, match="Cannot transform"):
            biject_to(constraint)
    assert isinstance(transform_to(constraints.simplex), T.SoftmaxTransform)
    assert isinstance(biject_to(constraints.simplex), T.StickBreakingTransform)
    assert isinstance(biject_to(constraints.unit_interval), T.SigmoidTransform)


def test_unregistered_constraints_and_custom_registration():
    with pytest.raises(NotImplementedError, match="Cannot transform _Boolean constraints"):
        biject_to(constraints.boolean)
    registry = type(biject_to)()
    registry.register(constraints.positive, lambda c: T.SoftplusTransform())

    @registry.register(constraints.boolean)
    def _factory(constraint):
        return T.SigmoidTransform()

    assert isinstance(registry(constraints.positive), T.SoftplusTransform)
    assert isinstance(registry(constraints.greater_than(3.0)), T.SoftplusTransform)
    assert isinstance(registry(constraints.boolean), T.SigmoidTransform)
    with pytest.raises(TypeError, match="Expected constraint"):
        registry.register(3, lambda c: T.ExpTransform())


# -- parity with torch ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(k for k, v in CASES.items() if v[1] is not None))
def test_torch_parity(name):
    torch = pytest.importorskip("torch")
    import torch.distributions.transforms as tt

    make, make_torch, inputs, _ = CASES[name]
    ours, theirs = make(), make_torch(tt)
    x = inputs()
    tx = torch.from_numpy(x.numpy().copy())
    y, ty = ours(x), theirs(tx)
    assert_close(y, ty.numpy(), rtol=1e-10, atol=1e-12)
    assert_close(ours.inv(y), theirs.inv(ty).numpy(), rtol=1e-10, atol=1e-12)
    assert_close(ours.log_abs_det_jacobian(x, y), theirs.log_abs_det_jacobian(tx, ty).numpy(), rtol=1e-10,
                 atol=1e-12)
    assert repr(ours) == repr(theirs)
    assert repr(ours.domain) == repr(theirs.domain) and repr(ours.codomain) == repr(theirs.codomain)
    assert ours.bijective == theirs.bijective
    for shape in [(7,) + tuple(x.shape), tuple(x.shape)]:
        assert tuple(ours.forward_shape(shape)) == tuple(theirs.forward_shape(shape))


def test_torch_parity_batched_cat_and_stack():
    torch = pytest.importorskip("torch")
    import torch.distributions.transforms as tt

    x = randn(4, 5)
    tx = torch.from_numpy(x.numpy().copy())
    pairs = [
        (T.CatTransform([T.ExpTransform(), T.SigmoidTransform()], 1, [2, 3]),
         tt.CatTransform([tt.ExpTransform(), tt.SigmoidTransform()], 1, [2, 3])),
        (T.CatTransform([T.ExpTransform(), T.SigmoidTransform()], 0, [1, 3]),
         tt.CatTransform([tt.ExpTransform(), tt.SigmoidTransform()], 0, [1, 3])),
        (T.CatTransform([T.IndependentTransform(T.ExpTransform(), 1), T.SigmoidTransform()], -1, [2, 3]),
         tt.CatTransform([tt.IndependentTransform(tt.ExpTransform(), 1), tt.SigmoidTransform()], -1, [2, 3])),
        (T.CatTransform([T.IndependentTransform(T.ExpTransform(), 1), T.IndependentTransform(T.TanhTransform(), 1)],
                        0, [2, 2]),
         tt.CatTransform([tt.IndependentTransform(tt.ExpTransform(), 1),
                          tt.IndependentTransform(tt.TanhTransform(), 1)], 0, [2, 2])),
        (T.StackTransform([T.ExpTransform(), T.TanhTransform(), T.ExpTransform(), T.SoftplusTransform(),
                           T.SigmoidTransform()], 1),
         tt.StackTransform([tt.ExpTransform(), tt.TanhTransform(), tt.ExpTransform(), tt.SoftplusTransform(),
                            tt.SigmoidTransform()], 1)),
        (T.AffineTransform(t([1.0, 2.0, 3.0, 4.0, 5.0]), t([2.0, 1.0, 0.5, -1.0, 3.0]), event_dim=1),
         tt.AffineTransform(torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0], dtype=torch.float64),
                            torch.tensor([2.0, 1.0, 0.5, -1.0, 3.0], dtype=torch.float64), event_dim=1)),
    ]
    for ours, theirs in pairs:
        y, ty = ours(x), theirs(tx)
        assert_close(y, ty.numpy(), rtol=1e-12)
        assert_close(ours.log_abs_det_jacobian(x, y), theirs.log_abs_det_jacobian(tx, ty).numpy(), rtol=1e-10)
        assert ours.event_dim == theirs.event_dim


def test_torch_parity_registries():
    torch = pytest.importorskip("torch")
    from torch.distributions import biject_to as tbiject, constraints as tc, transform_to as tto

    pairs = [(constraints.real, tc.real), (constraints.positive, tc.positive), (constraints.simplex, tc.simplex),
             (constraints.interval(-1.0, 2.0), tc.interval(-1.0, 2.0)), (constraints.unit_interval, tc.unit_interval),
             (constraints.less_than(3.0), tc.less_than(3.0)), (constraints.real_vector, tc.real_vector),
             (constraints.corr_cholesky, tc.corr_cholesky), (constraints.lower_cholesky, tc.lower_cholesky),
             (constraints.positive_definite, tc.positive_definite), (constraints.boolean, tc.boolean)]
    x = randn(3, 6)
    tx = torch.from_numpy(x.numpy().copy())
    for ours, theirs in pairs:
        for reg, treg in ((biject_to, tbiject), (transform_to, tto)):
            try:
                expected = treg(theirs)
            except NotImplementedError as e:
                with pytest.raises(NotImplementedError, match=str(e)):
                    reg(ours)
                continue
            got = reg(ours)
            assert repr(got) == repr(expected)
            if ours is constraints.lower_cholesky or ours is constraints.positive_definite:
                continue
            assert_close(got(x), expected(tx).numpy(), rtol=1e-10, atol=1e-12)


def test_log_det_closed_forms():
    x = t([-1.0, 0.0, 2.0])
    assert_close(T.TanhTransform().log_abs_det_jacobian(x, x.tanh()), np.log(1 - np.tanh([-1.0, 0.0, 2.0]) ** 2),
                 rtol=1e-12)
    assert_close(T.SigmoidTransform().log_abs_det_jacobian(x, x.sigmoid()),
                 [math.log(s * (1 - s)) for s in (1 / (1 + np.exp(-np.array([-1.0, 0.0, 2.0]))))], rtol=1e-12)
    assert_close(T.AffineTransform(0.0, -2.0).log_abs_det_jacobian(x, x), [math.log(2)] * 3, rtol=1e-12)


def test_torch_parity_extreme_inputs():
    torch = pytest.importorskip("torch")
    import torch.distributions.transforms as tt

    x = t([-40.0, -1.0, 0.0, 1.0, 40.0])
    tx = torch.from_numpy(x.numpy().copy())
    for ours, theirs in [(T.SigmoidTransform(), tt.SigmoidTransform()), (T.TanhTransform(), tt.TanhTransform()),
                         (T.SoftplusTransform(), tt.SoftplusTransform())]:
        y, ty = ours(x), theirs(tx)
        assert_close(y, ty.numpy(), rtol=1e-12, atol=0)
        assert_close(ours.inv(y), theirs.inv(ty).numpy(), rtol=1e-12, atol=1e-15)
        assert_close(ours.log_abs_det_jacobian(x, y), theirs.log_abs_det_jacobian(tx, ty).numpy(), rtol=1e-12)
    big = t([-50.0, 50.0])
    assert_close(T.StickBreakingTransform()(big),
                 tt.StickBreakingTransform()(torch.from_numpy(big.numpy().copy())).numpy(), rtol=1e-12, atol=0)
    with pytest.raises(AssertionError):
        tt.CatTransform([tt.ExpTransform()], 0, [1, 2])
    with pytest.raises(AssertionError, match="lengths"):
        T.CatTransform([T.ExpTransform()], 0, [1, 2])


def test_gradcheck_non_bijective_transforms():
    x = randn(2, 3, 3).requires_grad_()
    lower = T.LowerCholeskyTransform()
    assert gradcheck(lambda v: lower(v), (x,))
    assert gradcheck(lambda v: lower.inv(lower(v)), (x,))
    pd = T.PositiveDefiniteTransform()
    assert gradcheck(lambda v: pd(v), (x,))
    assert gradcheck(lambda v: pd.inv(pd(v)), (x,))
    vec = randn(4).requires_grad_()
    assert gradcheck(lambda v: T.SoftmaxTransform()(v), (vec,))
    assert gradcheck(lambda v: T.SoftmaxTransform().inv(T.SoftmaxTransform()(v)), (vec,))
    assert gradcheck(lambda v: T.AbsTransform()(v), (vec,))
