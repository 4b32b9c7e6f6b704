"""Gradients at the awkward points (zeros, ties, infinities) follow torch's conventions, not finite differences.

Each case is a function of the library; the expected gradients of ``f(x).sum()``
were read off torch and are checked against it again when it is installed.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tensorlib

INF, NAN = float("inf"), float("nan")

# tensorlib silences NumPy's floating point warnings with a filter installed at import;
# pytest's warning capture around collection undoes it, so say it again here
# (test_ops_errors checks the filter in a fresh interpreter).
pytestmark = [
    pytest.mark.filterwarnings("ignore:.*encountered in:RuntimeWarning"),
    pytest.mark.filterwarnings("ignore:var.*degrees of freedom:UserWarning"),
]

# name -> (function of (library, x), x)
CASES = {
 "abs0": (lambda L, x: L.abs(x), [0., -1., 2.]),
 "relu0": (lambda L, x: L.relu(x), [0., -1., 2.]),
 "clamp edge": (lambda L, x: L.clamp(x, 0., 1.), [0., 1., 0.5, 2.]),
 "sqrt0": (lambda L, x: L.sqrt(x), [0., 4.]),
 "norm0": (lambda L, x: L.norm(x), [0., 0.]),
 "norm1 0": (lambda L, x: L.norm(x, 1), [0., 2.]),
 "norminf ties": (lambda L, x: L.norm(x, float('inf')), [2., -2., 1.]),
 "max ties": (lambda L, x: L.max(x), [2., 2., 1.]),
 "max dim ties": (lambda L, x: L.max(x.reshape(1, 3), 1).values, [2., 2., 1.]),
 "amax ties": (lambda L, x: L.amax(x), [2., 2., 1.]),
 "maximum ties": (lambda L, x: L.maximum(x, L.ones(3, dtype=L.float64)), [1., 2., 0.]),
 "std0": (lambda L, x: L.std(x), [1., 1., 1.]),
 "pow0 0.5": (lambda L, x: L.pow(x, 0.5), [0., 1.]),
 "pow x^0": (lambda L, x: L.pow(x, 0), [0., 1.]),
 "pow 0^y": (lambda L, x: L.pow(L.zeros(2, dtype=L.float64), x), [0., 2.]),
 "pow x^2 at 0": (lambda L, x: L.pow(x, 2.), [0., 1.]),
 "median ties": (lambda L, x: L.median(x), [1., 1., 1.]),
 "sort ties": (lambda L, x: L.sort(x).values * L.arange(3, dtype=L.float64), [1., 1., 0.]),
 "logsumexp -inf": (lambda L, x: L.logsumexp(x, 0), [float('-inf'), 0.]),
 "softmax": (lambda L, x: L.softmax(x, 0)[0], [float('-inf'), 0., 1.]),
 "atan2 00": (lambda L, x: L.atan2(x, L.zeros(2, dtype=L.float64)), [0., 1.]),
 "hypot 00": (lambda L, x: L.hypot(x, L.zeros(2, dtype=L.float64)), [0., 1.]),
 "xlogy 0": (lambda L, x: L.xlogy(x, L.tensor([2., 0.], dtype=L.float64)), [0., 1.]),
 "xlogy 0 at 0": (lambda L, x: L.xlogy(x, L.tensor([0., -1., 0.], dtype=L.float64)), [0., 0., 1.]),
 "xlog1py 0 at -1": (lambda L, x: L.special.xlog1py(x, L.tensor([2., -1., -1.], dtype=L.float64)), [0., 1., 0.]),
 "entr 0": (lambda L, x: L.special.entr(x), [0., 0.5]),
 "sign": (lambda L, x: L.sign(x), [0., 1.]),
 "floor": (lambda L, x: L.floor(x), [0.5, 1.]),
 "frac": (lambda L, x: L.frac(x), [0.5, -1.5]),
 "fmod": (lambda L, x: L.fmod(x, 1.5), [2., -2.]),
 "remainder": (lambda L, x: L.remainder(x, -1.5), [2., -2.]),
 "remainder other": (lambda L, x: L.remainder(L.tensor([2., -5.], dtype=L.float64), x), [1.5, 2.]),
 "div floor": (lambda L, x: L.div(x, 2., rounding_mode='floor'), [3., -3.]),
 "cumsum": (lambda L, x: L.cumsum(x, 0) * L.arange(3, dtype=L.float64), [1., 2., 3.]),
 "prod 2 zeros": (lambda L, x: L.prod(x), [0., 0., 3.]),
 "cumprod 2 zeros": (lambda L, x: (L.cumprod(x, 0) * L.arange(1, 5, dtype=L.float64)).sum(), [2., 0., 3., 0.]),
 "var 1 elem": (lambda L, x: L.var(x[:1]), [1., 2.]),
 "nan_to_num": (lambda L, x: L.nan_to_num(x * L.tensor([float('inf'), 1.], dtype=L.float64)), [1., 2.]),
 "erfc": (lambda L, x: L.erfc(x), [0.3, -1.]),
 "sigmoid": (lambda L, x: L.sigmoid(x), [-800., 0.]),
 "expm1": (lambda L, x: L.expm1(x), [1e-10, 1.]),
 "logit0": (lambda L, x: L.logit(x), [0., 0.5]),
 "logit eps": (lambda L, x: L.logit(x, 0.1), [0.05, 0.5]),
 "sinc0": (lambda L, x: L.sinc(x), [0., 0.5]),
 "dist0": (lambda L, x: L.dist(x, x.detach()), [1., 2.]),
 "cdist0": (lambda L, x: L.cdist(x.reshape(1, 2), x.detach().reshape(1, 2)), [1., 2.]),
 "topk": (lambda L, x: L.topk(x, 2).values, [1., 3., 2.]),
 "kthvalue": (lambda L, x: L.kthvalue(x, 2).values, [1., 3., 2.]),
 "cummax ties": (lambda L, x: L.cummax(x, 0).values, [2., 2., 1.]),
 "angle": (lambda L, x: L.angle(x), [-1., 1.]),
 "trace": (lambda L, x: L.trace(x.reshape(2, 2)), [1., 2., 3., 4.]),
 "lerp": (lambda L, x: L.lerp(x, L.ones(2, dtype=L.float64), x), [0.2, 0.7]),
 "copysign 0": (lambda L, x: L.copysign(x, L.tensor([-1., 1.], dtype=L.float64)), [0., -2.]),
}

EXPECTED = {
    'abs0': [0.0, -1.0, 1.0],
    'relu0': [0.0, 0.0, 1.0],
    'clamp edge': [1.0, 1.0, 1.0, 0.0],
    'sqrt0': [INF, 0.25],
    'norm0': [0.0, 0.0],
    'norm1 0': [0.0, 1.0],
    'norminf ties': [0.5, -0.5, 0.0],
    'max ties': [0.5, 0.5, 0.0],
    'max dim ties': [1.0, 0.0, 0.0],
    'amax ties': [0.5, 0.5, 0.0],
    'maximum ties': [0.5, 1.0, 0.0],
    'std0': [0.0, 0.0, 0.0],
    'pow0 0.5': [INF, 0.5],
    'pow x^0': [0.0, 0.0],
    'pow 0^y': [0.0, 0.0],
    'pow x^2 at 0': [0.0, 2.0],
    'median ties': [0.3333333333333333, 0.3333333333333333, 0.3333333333333333],
    'sort ties': [1.0, 2.0, 0.0],
    'logsumexp -inf': [0.0, 1.0],
    'softmax': [0.0, 0.0, 0.0],
    'atan2 00': [0.0, 0.0],
    'hypot 00': [NAN, 1.0],
    'xlogy 0': [0.6931471805599453, -INF],
    'xlogy 0 at 0': [0.0, 0.0, -INF],
    'xlog1py 0 at -1': [1.0986122886681098, -INF, 0.0],
    'entr 0': [INF, -0.3068528194400547],
    'sign': [0.0, 0.0],
    'floor': [0.0, 0.0],
    'frac': [1.0, 1.0],
    'fmod': [1.0, 1.0],
    'remainder': [1.0, 1.0],
    'remainder other': [-1.0, 3.0],
    'div floor': [0.0, 0.0],
    'cumsum': [3.0, 3.0, 2.0],
    'prod 2 zeros': [0.0, 0.0, 0.0],
    'cumprod 2 zeros': [1.0, 22.0, 0.0, 0.0],
    'var 1 elem': [NAN, 0.0],
    'nan_to_num': [NAN, 1.0],
    'erfc': [-1.031260909618963, -0.4151074974205947],
    'sigmoid': [0.0, 0.25],
    'expm1': [1.0000000001, 2.7182818284590455],
    'logit0': [INF, 4.0],
    'logit eps': [0.0, 4.0],
    'sinc0': [0.0, -1.2732395447351625],
    'dist0': [0.0, 0.0],
    'cdist0': [0.0, 0.0],
    'topk': [0.0, 1.0, 1.0],
    'kthvalue': [0.0, 0.0, 1.0],
    'cummax ties': [1.0, 2.0, 0.0],
    'angle': [0.0, 0.0],
    'trace': [1.0, 0.0, 0.0, 1.0],
    'lerp': [1.6, 0.6000000000000001],
    'copysign 0': [0.0, -1.0],
}


def _grad(L: Any, name: str) -> np.ndarray:
    f, vals = CASES[name]
    x = L.tensor(vals, dtype=L.float64, requires_grad=True)
    y = f(L, x)
    y.backward(L.ones_like(y))
    return np.asarray(x.grad.tolist())


@pytest.mark.parametrize("name", list(CASES))
def test_edge_gradient(name: str) -> None:
    np.testing.assert_allclose(_grad(tensorlib, name), EXPECTED[name], rtol=1e-7, equal_nan=True)


@pytest.mark.parametrize("name", list(CASES))
def test_edge_gradient_matches_torch(name: str) -> None:
    torch = pytest.importorskip("torch")
    np.testing.assert_allclose(_grad(tensorlib, name), _grad(torch, name), rtol=1e-7, equal_nan=True)
