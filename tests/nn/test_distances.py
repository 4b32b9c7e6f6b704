"""cdist and pdist as torch computes them: Euclidean cdist between more than 25 rows by one matrix product (torch's
``_euclidean_dist``, recorded as ``EuclideanDistBackward0`` under a view), the others by differences
(``CdistBackward0``); pdist as one ``PdistBackward0`` node. Values, nodes, first and second derivatives against torch,
including rows that coincide (where torch's slopes are zero)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tensorlib
import tensorlib.nn.functional as F
from tensorlib.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(21)
MODES = ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist")


def _cdist_run(lib, a, b, g, mode, p=2.0):
    x, y = lib.tensor(a, requires_grad=True), lib.tensor(b, requires_grad=True)
    d = lib.cdist(x, y, p=p, compute_mode=mode)
    inner = d.grad_fn.next_functions[0][0] if d.grad_fn.name() == "ViewBackward0" else None
    gx, gy = lib.autograd.grad(d, (x, y), lib.tensor(g))
    return (d.grad_fn.name(), None if inner is None else inner.name(), d.detach().numpy(), gx.numpy(), gy.numpy())


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shapes", [((30, 7), (20, 7)), ((10, 7), (12, 7)), ((3, 30, 5), (1, 8, 5))])
def test_cdist_nodes_values_and_gradients_match_torch(mode, shapes):
    torch = pytest.importorskip("torch")
    a, b = RNG.standard_normal(shapes[0]), RNG.standard_normal(shapes[1])
    g = RNG.standard_normal(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + (a.shape[-2], b.shape[-2]))
    ours, theirs = _cdist_run(tensorlib, a, b, g, mode), _cdist_run(torch, a, b, g, mode)
    assert ours[:2] == theirs[:2]
    mm = mode == "use_mm_for_euclid_dist" or (mode == MODES[0] and max(a.shape[-2], b.shape[-2]) > 25)
    assert (ours[1] == "EuclideanDistBackward0") == mm and (ours[0] == "CdistBackward0") != mm
    for o, t in zip(ours[2:], theirs[2:]):
        np.testing.assert_allclose(o, t, rtol=1e-10, atol=1e-12)


def test_cdist_by_matrix_product_has_torchs_second_derivatives():
    torch = pytest.importorskip("torch")
    a, b = RNG.standard_normal((30, 6)), RNG.standard_normal((9, 6))
    seconds = []
    for lib in (tensorlib, torch):
        x, y = lib.tensor(a, requires_grad=True), lib.tensor(b, requires_grad=True)
        gx, gy = lib.autograd.grad((lib.cdist(x, y) ** 2).sum(), (x, y), create_graph=True)
        seconds.append([t.numpy() for t in lib.autograd.grad((gx * gx).sum() + (gy ** 3).sum(), (x, y))])
    for o, t in zip(*seconds):
        np.testing.assert_allclose(o, t, rtol=1e-9, atol=1e-10)
    x = tensorlib.tensor(a[:27, :3], requires_grad=True)
    y = tensorlib.tensor(b[:4, :3], requires_grad=True)
    assert gradcheck(lambda u, v: tensorlib.cdist(u, v), (x, y))
    assert gradgradcheck(lambda u, v: tensorlib.cdist(u, v), (x, y))


def test_cdist_mode_errors():
    x = tensorlib.ones(3, 2)
    with pytest.raises(ValueError, match="bad is not a valid value for compute_mode"):
        tensorlib.cdist(x, x, compute_mode="bad")
    with pytest.raises(ValueError, match="is not a valid value for compute_mode"):  # checked before the inputs
        tensorlib.cdist(tensorlib.ones(3), x, compute_mode="bad")


@pytest.mark.parametrize("p", [2.0, 1.0, 0.0, 0.5, 1.5, 3.0, math.inf])
def test_pdist_one_node_with_torchs_values_and_gradients(p):
    torch = pytest.importorskip("torch")
    a = RNG.standard_normal((9, 5))
    a[3] = a[5]  # a zero distance
    a[7, 2] = a[1, 2]  # a zero difference in one coordinate
    g = RNG.standard_normal(36)
    out = []
    for lib in (tensorlib, torch):
        x = lib.tensor(a, requires_grad=True)
        d = lib.nn.functional.pdist(x, p)
        (gx,) = lib.autograd.grad(d, x, lib.tensor(g))
        out.append((d.grad_fn.name(), [type(n).__name__ for n, _ in d.grad_fn.next_functions], d.detach().numpy(),
                    gx.numpy()))
    assert out[0][:2] == out[1][:2] == ("PdistBackward0", ["AccumulateGrad"])
    np.testing.assert_allclose(out[0][2], out[1][2], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(out[0][3], out[1][3], rtol=1e-12, atol=1e-14)
    # under create_graph the same gradient comes from differentiable ops
    x = tensorlib.tensor(a, requires_grad=True)
    (gx,) = tensorlib.autograd.grad(F.pdist(x, p), x, tensorlib.tensor(g), create_graph=True)
    np.testing.assert_allclose(gx.detach().numpy(), out[0][3], rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("p", [2.0, 1.0, 1.5, 3.0, math.inf])
def test_pdist_gradients_of_every_order(p):
    x = tensorlib.tensor(RNG.standard_normal((6, 4)), requires_grad=True)
    assert gradcheck(lambda t: F.pdist(t, p), (x,))
    assert gradgradcheck(lambda t: F.pdist(t, p), (x,))


def test_pdist_float32_and_small_inputs():
    torch = pytest.importorskip("torch")
    a = RNG.standard_normal((70, 33)).astype(np.float32)
    ours = F.pdist(tensorlib.tensor(a)).numpy()
    theirs = torch.nn.functional.pdist(torch.tensor(a)).numpy()
    assert ours.dtype == np.float32 and ours.shape == (70 * 69 // 2,)
    np.testing.assert_allclose(ours, theirs, rtol=1e-5)
    for n in (0, 1, 2):
        x = tensorlib.tensor(RNG.standard_normal((n, 3)), requires_grad=True)
        d = F.pdist(x)
        assert tuple(d.shape) == (n * (n - 1) // 2,)
        (gx,) = tensorlib.autograd.grad(d.sum(), x, allow_unused=True) if n > 1 else (None,)
        if gx is not None:
            assert tuple(gx.shape) == (n, 3)
