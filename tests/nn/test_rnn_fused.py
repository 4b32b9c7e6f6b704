"""The recurrent layers' fast paths: the LSTM and GRU cells after their two products as fused nodes (torch's
``ThnnFusedLstmCellBackward0``, with two outputs, and ``ThnnFusedGruCellBackward0``), and the steps of a sequence's
input projection as one ``unbind`` (one ``UnbindBackward0``, whose backward stacks the steps' gradients once).

The fused cells must give the composed ops' values bit for bit (the same kernels in the same order), their
gradients (numerically checked, to the second order), and fall back to the ops where they do not apply.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import tensorlib
from tensorlib.autograd import gradcheck, gradgradcheck
from tensorlib.nn._rnn import _gru_gates_ops, _lstm_gates_ops, gru_gates, lstm_gates


def _cell_inputs(dtype: Any = tensorlib.float64, n: int = 3, h: int = 2, seed: int = 0, gates: int = 4) -> tuple:
    """A cell's two products (``gates`` gates of ``h`` each, for ``n`` rows) and its state."""
    rng = np.random.default_rng(seed)
    return tuple(tensorlib.tensor(rng.standard_normal(s) * 2, dtype=dtype, requires_grad=True)
                 for s in ((n, gates * h), (n, gates * h), (n, h)))


@pytest.mark.parametrize("dtype", [tensorlib.float32, tensorlib.float64])
def test_fused_cell_gives_the_ops_values(dtype: Any) -> None:
    gi, gh, c = _cell_inputs(dtype, n=5, h=7)
    fused, composed = lstm_gates(gi, gh, c), _lstm_gates_ops(gi, gh, c)
    for u, v in zip(fused, composed):
        assert u.dtype == dtype
        np.testing.assert_array_equal(u.detach().numpy(), v.detach().numpy())
    assert type(fused[0].grad_fn).__name__ == "ThnnFusedLstmCellBackward0"
    assert fused[0].grad_fn is fused[1].grad_fn and fused[1].output_nr == 1
    for g_h, g_c in ((True, True), (True, False), (False, True)):
        grads = []
        for h2, c2 in (lstm_gates(gi, gh, c), _lstm_gates_ops(gi, gh, c)):
            loss = (h2 * 3).sum() * g_h + (c2 * c2).sum() * g_c
            grads.append(tensorlib.autograd.grad(loss, (gi, gh, c)))
        for u, v in zip(*grads):
            np.testing.assert_allclose(u.numpy(), v.numpy(), rtol=1e-6 if dtype == tensorlib.float32 else 1e-14,
                                       atol=1e-6 if dtype == tensorlib.float32 else 1e-14)


SELECT: list[Callable[[tuple], Any]] = [lambda r: r[0], lambda r: r[1], lambda r: r[0] * 2 + r[1] ** 2]


@pytest.mark.parametrize("select", SELECT, ids=["h", "c", "both"])
def test_fused_cell_gradients(select: Callable[[tuple], Any]) -> None:
    args = _cell_inputs()
    assert gradcheck(lambda *a: select(lstm_gates(*a)), args)
    assert gradgradcheck(lambda *a: select(lstm_gates(*a)), args)


def test_fused_cell_only_some_inputs_need_gradients() -> None:
    gi, gh, c = _cell_inputs()
    c_const = c.detach()
    h2, _ = lstm_gates(gi.detach(), gh, c_const)
    (g,) = tensorlib.autograd.grad(h2.sum(), (gh,))
    (want,) = tensorlib.autograd.grad(_lstm_gates_ops(gi.detach(), gh, c_const)[0].sum(), (gh,))
    np.testing.assert_allclose(g.numpy(), want.numpy(), rtol=1e-14)


def test_fused_cell_falls_back_to_the_ops() -> None:
    gi, gh, c = _cell_inputs(tensorlib.float16)  # half precision: the ops' own rounding
    assert type(lstm_gates(gi, gh, c)[0].grad_fn).__name__ == "MulBackward0"

    class Sub(tensorlib.Tensor):
        pass

    gi, gh, c = _cell_inputs()
    out = lstm_gates(gi.as_subclass(Sub), gh, c)[0]
    assert type(out.grad_fn).__name__ == "MulBackward0"  # a subclass takes the composed ops


def test_fused_cell_frees_its_buffers_after_backward() -> None:
    gi, gh, c = _cell_inputs()
    h2, c2 = lstm_gates(gi, gh, c)
    node = h2.grad_fn
    (h2.sum() + c2.sum()).backward()
    assert node.act is None and node.tc is None
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        h2.sum().backward()


@pytest.mark.parametrize("kwargs", [{}, {"num_layers": 2, "bidirectional": True}, {"proj_size": 2},
                                    {"batch_first": True}])
def test_lstm_layer_gradients(kwargs: dict) -> None:
    tensorlib.manual_seed(0)
    m = tensorlib.nn.LSTM(3, 4, dtype=tensorlib.float64, **kwargs)
    x = tensorlib.randn(5, 2, 3, dtype=tensorlib.float64, requires_grad=True)
    assert gradcheck(lambda t: m(t)[0], (x,))
    assert gradcheck(lambda t: m(t)[1][1], (x,))
    assert gradgradcheck(lambda t: m(t)[1][0], (x,))


def test_sequence_steps_are_one_unbind() -> None:
    tensorlib.manual_seed(0)
    m = tensorlib.nn.GRU(3, 4)
    x = tensorlib.randn(6, 2, 3, requires_grad=True)
    out, _ = m(x)
    seen, stack = set(), [out.grad_fn]
    names = []
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        names.append(type(node).__name__)
        stack.extend(n for n, _ in node.next_functions)
    assert names.count("UnbindBackward0") == 1 and "SelectBackward0" not in names


def test_split_pieces_share_one_node() -> None:
    x = tensorlib.randn(3, 8, dtype=tensorlib.float64, requires_grad=True)
    pieces = x.chunk(4, 1)
    assert len({id(p.grad_fn) for p in pieces}) == 1
    assert [p.output_nr for p in pieces] == [0, 1, 2, 3]
    assert all(p._base is x for p in pieces)
    (pieces[1] * 2 + pieces[3]).sum().backward()  # unused pieces get zeros
    want = np.zeros((3, 8))
    want[:, 2:4], want[:, 6:8] = 2, 1
    np.testing.assert_array_equal(x.grad.numpy(), want)
    assert gradgradcheck(lambda t: t.split([3, 5], 1)[1] ** 2, (x.detach().requires_grad_(),))
    assert gradgradcheck(lambda t: t.unbind(1)[2] ** 2, (x.detach().requires_grad_(),))


def test_unbind_pieces_of_a_vector_are_views() -> None:
    x = tensorlib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1
    pieces = y.unbind(0)
    assert all(type(p._data) is np.ndarray and p._data.ndim == 0 and p._base is y for p in pieces)
    pieces[1].mul_(5)  # a view: the vector sees it, and the gradient goes through it
    assert y.tolist() == [1.0, 10.0, 3.0]
    (pieces[0] * 2 + pieces[1] + y.sum()).backward()
    assert x.grad.tolist() == [3.0, 10.0, 1.0]


def test_split_pieces_match_torch() -> None:
    torch = pytest.importorskip("torch")
    got = []
    for lib in (torch, tensorlib):
        x = lib.tensor(np.arange(24.0).reshape(3, 8), requires_grad=True)
        pieces = x.chunk(4, 1)
        rows = x.unbind(0)
        (pieces[0] * pieces[2]).sum().backward()
        (rows[2] ** 2).sum().backward()
        got.append((x.grad.numpy().copy(), pieces[0].grad_fn is pieces[3].grad_fn, pieces[2].output_nr,
                    rows[0].grad_fn is rows[2].grad_fn, type(rows[1].grad_fn).__name__))
    np.testing.assert_array_equal(got[0][0], got[1][0])
    assert got[0][1:] == got[1][1:]


# -- the GRU cell ------------------------------------------------------------------------------------------------


def _gru_inputs(dtype: Any = tensorlib.float64, n: int = 3, h: int = 2) -> tuple:
    return _cell_inputs(dtype, n, h, seed=1, gates=3)


@pytest.mark.parametrize("dtype", [tensorlib.float32, tensorlib.float64])
def test_fused_gru_cell_gives_the_ops_values(dtype: Any) -> None:
    gi, gh, h = _gru_inputs(dtype, n=5, h=7)
    fused, composed = gru_gates(gi, gh, h), _gru_gates_ops(gi, gh, h)
    np.testing.assert_array_equal(fused.detach().numpy(), composed.detach().numpy())
    assert type(fused.grad_fn).__name__ == "ThnnFusedGruCellBackward0"
    got = tensorlib.autograd.grad((fused * fused).sum(), (gi, gh, h))
    want = tensorlib.autograd.grad((composed * composed).sum(), (gi, gh, h))
    for u, v in zip(got, want):
        np.testing.assert_allclose(u.numpy(), v.numpy(), rtol=1e-5 if dtype == tensorlib.float32 else 1e-14,
                                   atol=1e-5 if dtype == tensorlib.float32 else 1e-14)


def test_fused_gru_cell_gradients() -> None:
    args = _gru_inputs()
    assert gradcheck(gru_gates, args) and gradgradcheck(gru_gates, args)
    gi, gh, h = args
    assert gradcheck(lambda b: gru_gates(gi.detach(), b, h.detach()), (gh,))
    half = _gru_inputs(tensorlib.float16)
    assert type(gru_gates(*half).grad_fn).__name__ == "AddBackward0"  # half precision: the composed ops


@pytest.mark.parametrize("kwargs", [{}, {"num_layers": 2, "bidirectional": True}, {"batch_first": True}])
def test_gru_layer_gradients(kwargs: dict) -> None:
    tensorlib.manual_seed(0)
    m = tensorlib.nn.GRU(3, 4, dtype=tensorlib.float64, **kwargs)
    x = tensorlib.randn(5, 2, 3, dtype=tensorlib.float64, requires_grad=True)
    assert gradcheck(lambda t: m(t)[0], (x,))
    assert gradgradcheck(lambda t: m(t)[1], (x,))
