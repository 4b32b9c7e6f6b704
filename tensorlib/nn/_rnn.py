"""The recurrence of the RNN layers, and the overridable functions torch's layers call: ``rnn_tanh``, ``rnn_relu``,
``lstm`` and ``gru`` (``torch._VF.*``).

Their signatures are those of torch's dense overloads: a whole sequence ``input`` (3-D), the initial state ``hx``
(a tuple ``(h_0, c_0)`` for ``lstm``), the flat list of weights in the layers' order (per layer and direction:
``w_ih, w_hh[, b_ih, b_hh][, w_hr]``) and the layers' options. They return torch's tuples: ``(output, h_n)``, for
``lstm`` ``(output, h_n, c_n)``. Gates are computed with tensorlib's differentiable ops; the input projection of a
whole sequence is one matrix product, the recurrence a loop over time steps.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .._autograd.graph import Node, SavedTensor, save_input, unpack
from .._registry import op
from .._tensor import Tensor, _wrap
from ..ops._util import GRAD, record, tensor_arg, type_title, wrap
from ..ops.arithmetic import add, mul, rsub, sub
from ..ops.conversion import zeros_like
from ..ops.creation import zeros
from ..ops.decompositions import outputs
from ..ops.join_split import cat, chunk, stack, unbind
from ..ops.selection import where
from ..ops.shape import transpose
from ..ops.unary import _sigmoid_np, relu, sigmoid, tanh
from ._functional import dropout as _dropout
from ._functional import linear

# the weights of one layer in one direction: w_ih, w_hh, b_ih, b_hh, w_hr (the last three may be None)
Weights = tuple[Tensor, Tensor, "Tensor | None", "Tensor | None", "Tensor | None"]


def _linear(x: Tensor, w: Tensor, b: Tensor | None) -> Tensor:
    return linear(x, w, b)


def rnn_step(mode: str, gi: Tensor, h: Any, w_hh: Tensor, b_hh: Tensor | None, w_hr: Tensor | None = None) -> Any:
    """One time step given the input projection ``gi``; ``h`` is ``(h, c)`` for LSTM."""
    if mode == "LSTM":
        hp, c = h
        h2, c2 = lstm_gates(gi, _linear(hp, w_hh, b_hh), c)
        if w_hr is not None:
            h2 = _linear(h2, w_hr, None)
        return h2, c2
    if mode == "GRU":
        return gru_gates(gi, _linear(h, w_hh, b_hh), h)
    pre = add(gi, _linear(h, w_hh, b_hh))
    return tanh(pre) if mode == "RNN_TANH" else relu(pre)


def _fusable(gi: Tensor, gh: Tensor, state: Tensor, gates: int) -> bool:
    """Whether a cell's fused node applies: plain tensors of one float32/float64 dtype, a batch of rows of
    ``gates`` gates each, and a state of one gate's width."""
    a, b, s = gi._data, gh._data, state._data
    return (type(gi) is Tensor and type(gh) is Tensor and type(state) is Tensor and a.dtype.kind == "f"
            and a.dtype.itemsize >= 4 and a.dtype == b.dtype == s.dtype and a.ndim == 2 and a.shape == b.shape
            and s.shape == (a.shape[0], a.shape[1] // gates))


def _lstm_gates_ops(gi: Tensor, gh: Tensor, c: Tensor) -> tuple[Tensor, Tensor]:
    """The LSTM cell after its two products, with differentiable ops: ``(h, c)`` of the step."""
    i, f, g, o = chunk(add(gi, gh), 4, -1)
    c2 = add(mul(sigmoid(f), c), mul(sigmoid(i), tanh(g)))
    return mul(sigmoid(o), tanh(c2)), c2


class ThnnFusedLstmCellBackward0(Node):
    """The LSTM cell after its two products as one node with two outputs ``(h, c)``, as torch's fused cell: its
    backward is a few array passes where the composed ops would record and run a dozen nodes per time step. Under
    ``create_graph`` the same gradients come from differentiable ops, recomputed from the saved inputs."""

    __slots__ = ("gi", "gh", "c", "act", "tc")
    _saved_slots = ("gi", "gh", "c")
    num_outputs = 2
    gi: SavedTensor | None
    gh: SavedTensor | None
    c: SavedTensor | None
    act: np.ndarray | None  # the gates' activations: sigmoid(i), sigmoid(f), tanh(g), sigmoid(o)
    tc: np.ndarray | None  # tanh of the new cell state

    def release(self) -> None:
        super().release()
        self.act = self.tc = None

    def apply(self, grads: list) -> tuple:
        gh2, gc2 = grads
        if gh2 is None and gc2 is None:
            return None, None, None
        if GRAD.enabled or any(g is not None and type(g) is not Tensor for g in grads):
            return self._recorded(gh2, gc2)
        act, tc, c = self.act, self.tc, unpack(self, self.c)._data
        assert act is not None and tc is not None
        n = c.shape[-1]
        i, f, g, o = act[:, :n], act[:, n:2 * n], act[:, 2 * n:3 * n], act[:, 3 * n:]
        dgates = np.empty_like(act)
        if gh2 is not None:
            gh = gh2._data
            np.multiply(gh, tc, out=dgates[:, 3 * n:])  # d/do
            dc = gh * o
            dc *= 1 - tc * tc
            if gc2 is not None:
                dc += gc2._data
        else:
            dgates[:, 3 * n:] = 0
            dc = gc2._data.copy()
        np.multiply(dc, g, out=dgates[:, :n])  # d/di
        np.multiply(dc, c, out=dgates[:, n:2 * n])  # d/df
        np.multiply(dc, i, out=dgates[:, 2 * n:3 * n])  # d/dg
        dc *= f  # the previous cell state's gradient
        # through the activations: sigmoid' = s (1 - s), tanh' = 1 - t^2
        sig = np.subtract(1, act)
        sig *= act
        sig[:, 2 * n:3 * n] = 1 - g * g
        dgates *= sig
        out = wrap(dgates)
        return out, out, wrap(dc)

    def _recorded(self, gh2: Tensor | None, gc2: Tensor | None) -> tuple:
        gi, gh, c = unpack(self, self.gi), unpack(self, self.gh), unpack(self, self.c)
        i, f, g, o = chunk(add(gi, gh), 4, -1)
        si, sf, tg, so = sigmoid(i), sigmoid(f), tanh(g), sigmoid(o)
        tc = tanh(add(mul(sf, c), mul(si, tg)))
        dc = gc2
        do = None
        if gh2 is not None:
            do = mul(gh2, tc)
            through = mul(mul(gh2, so), rsub(mul(tc, tc), 1))
            dc = through if dc is None else add(dc, through)
        assert dc is not None
        parts = [mul(mul(dc, tg), mul(si, rsub(si, 1))), mul(mul(dc, c), mul(sf, rsub(sf, 1))),
                 mul(mul(dc, si), rsub(mul(tg, tg), 1)),
                 zeros_like(so) if do is None else mul(do, mul(so, rsub(so, 1)))]
        dgates = cat(parts, -1)
        return dgates, dgates, mul(dc, sf)


def lstm_gates(gi: Tensor, gh: Tensor, c: Tensor) -> tuple[Tensor, Tensor]:
    """The LSTM cell after its input and hidden products ``gi``, ``gh`` (``(N, 4H)``, gates i, f, g, o) and the
    previous cell state ``c``: ``(h, c)`` of the step, as one fused node on float arrays."""
    if not _fusable(gi, gh, c, 4):
        return _lstm_gates_ops(gi, gh, c)
    a, b, cd = gi._data, gh._data, c._data
    n = cd.shape[1]
    act = a + b
    act[:, :2 * n] = _sigmoid_np(act[:, :2 * n])  # (the same kernels as the sigmoid and tanh ops)
    act[:, 3 * n:] = _sigmoid_np(act[:, 3 * n:])
    np.tanh(act[:, 2 * n:3 * n], out=act[:, 2 * n:3 * n])
    c2 = act[:, n:2 * n] * cd
    c2 += act[:, :n] * act[:, 2 * n:3 * n]
    tc = np.tanh(c2)
    h2 = act[:, 3 * n:] * tc
    if not (GRAD.enabled and (gi._requires_grad or gh._requires_grad or c._requires_grad)):
        return wrap(h2), wrap(c2)
    (h_t, c_t), node = outputs(ThnnFusedLstmCellBackward0, [h2, c2], (gi, gh, c), (0, 1))
    node.gi, node.gh, node.c = save_input(gi), save_input(gh), save_input(c)
    node.act, node.tc = act, tc
    return h_t, c_t


def _gru_gates_ops(gi: Tensor, gh: Tensor, h: Tensor) -> Tensor:
    """The GRU cell after its two products, with differentiable ops: the step's ``h``."""
    ir, iz, in_ = chunk(gi, 3, -1)
    hr, hz, hn = chunk(gh, 3, -1)
    r = sigmoid(add(ir, hr))
    z = sigmoid(add(iz, hz))
    n = tanh(add(in_, mul(r, hn)))
    return add(mul(rsub(z, 1), n), mul(z, h))


class ThnnFusedGruCellBackward0(Node):
    """The GRU cell after its two products as one node, as torch's fused cell (see the LSTM's)."""

    __slots__ = ("gi", "gh", "h", "act")
    _saved_slots = ("gi", "gh", "h")
    gi: SavedTensor | None
    gh: SavedTensor | None
    h: SavedTensor | None
    act: np.ndarray | None  # r, z, n side by side

    def release(self) -> None:
        super().release()
        self.act = None

    def apply(self, grads: list) -> tuple:
        g = grads[0]
        if g is None:
            return None, None, None
        if GRAD.enabled or type(g) is not Tensor:
            return self._recorded(g)
        act, h, hd = self.act, unpack(self, self.h)._data, unpack(self, self.gh)._data
        assert act is not None
        gd = g._data
        n_ = h.shape[-1]
        r, z, n = act[:, :n_], act[:, n_:2 * n_], act[:, 2 * n_:]
        dgi = np.empty_like(act)
        dn = gd * (1 - z)
        dn *= 1 - n * n  # through tanh: the gradient of the new gate's input
        dgi[:, 2 * n_:] = dn
        dr = dn * hd[:, 2 * n_:]
        dr *= r * (1 - r)
        dgi[:, :n_] = dr
        dz = gd * (h - n)
        dz *= z * (1 - z)
        dgi[:, n_:2 * n_] = dz
        dgh = dgi.copy()
        dgh[:, 2 * n_:] *= r
        return wrap(dgi), wrap(dgh), wrap(gd * z)

    def _recorded(self, g: Tensor) -> tuple:
        gi, gh, h = unpack(self, self.gi), unpack(self, self.gh), unpack(self, self.h)
        ir, iz, in_ = chunk(gi, 3, -1)
        hr, hz, hn = chunk(gh, 3, -1)
        r = sigmoid(add(ir, hr))
        z = sigmoid(add(iz, hz))
        n = tanh(add(in_, mul(r, hn)))
        dn = mul(mul(g, rsub(z, 1)), rsub(mul(n, n), 1))
        dr = mul(mul(dn, hn), mul(r, rsub(r, 1)))
        dz = mul(mul(g, sub(h, n)), mul(z, rsub(z, 1)))
        return cat([dr, dz, dn], -1), cat([dr, dz, mul(dn, r)], -1), mul(g, z)


def gru_gates(gi: Tensor, gh: Tensor, h: Tensor) -> Tensor:
    """The GRU cell after its input and hidden products ``gi``, ``gh`` (``(N, 3H)``, gates r, z, n; ``gh`` with
    its bias) and the previous state ``h``: the step's ``h``, as one fused node on float arrays."""
    if not _fusable(gi, gh, h, 3):
        return _gru_gates_ops(gi, gh, h)
    a, b, hd = gi._data, gh._data, h._data
    n_ = hd.shape[1]
    act = np.empty_like(a)
    # the same kernels in the same order as the composed ops
    act[:, :2 * n_] = _sigmoid_np(a[:, :2 * n_] + b[:, :2 * n_])
    r, z = act[:, :n_], act[:, n_:2 * n_]
    np.tanh(a[:, 2 * n_:] + r * b[:, 2 * n_:], out=act[:, 2 * n_:])
    n = act[:, 2 * n_:]
    h2 = (1 - z) * n
    h2 += z * hd
    if not (GRAD.enabled and (gi._requires_grad or gh._requires_grad or h._requires_grad)):
        return wrap(h2)
    res, node = record(ThnnFusedGruCellBackward0, h2, (gi, gh, h))
    node.gi, node.gh, node.h = save_input(gi), save_input(gh), save_input(h)
    node.act = act
    return res


def recurrence(mode: str, x: Tensor, h0: Tensor, c0: Tensor | None, weights: Sequence[Weights], num_layers: int,
               bidirectional: bool, dropout: float, train: bool, lengths: Any = None) -> tuple:
    """The stacked recurrence over ``x`` ``(T, N, H_in)``: ``(output, h_n, c_n)`` (``c_n`` None unless LSTM).

    ``weights[layer * directions + direction]`` are that layer's weights; ``c0`` is the LSTM's initial cell state,
    given exactly when the mode is LSTM. With ``lengths`` (packed input, sorted longest first), each sequence's state
    stops changing after its last step (and the reverse direction starts at that step)."""
    steps = x.shape[0]
    directions = 2 if bidirectional else 1
    layer_input = x
    h_n, c_n = [], []
    for layer in range(num_layers):
        outs = []
        for direction in range(directions):
            k = layer * directions + direction
            w_ih, w_hh, b_ih, b_hh, w_hr = weights[k]
            h: Any = (h0[k], c0[k]) if c0 is not None else h0[k]
            # the input projection of the whole sequence, then its steps (one node: their gradients are stacked
            # once, not each padded to the whole sequence's size and summed)
            gi_steps = unbind(_linear(layer_input, w_ih, b_ih), 0)  # T pieces of (N, gates)
            order = range(steps - 1, -1, -1) if direction == 1 else range(steps)
            seq: list = [None] * steps
            for t in order:
                h_new = rnn_step(mode, gi_steps[t], h, w_hh, b_hh, w_hr)
                if lengths is not None and lengths[-1] <= t:  # some sequences have ended by step t
                    live = _wrap(np.asarray(lengths > t).reshape(-1, 1))
                    if mode == "LSTM":
                        h_new = (where(live, h_new[0], h[0]), where(live, h_new[1], h[1]))
                    else:
                        h_new = where(live, h_new, h)
                h = h_new
                seq[t] = h[0] if mode == "LSTM" else h
            if mode == "LSTM":
                h_n.append(h[0])
                c_n.append(h[1])
            else:
                h_n.append(h)
            outs.append(stack(seq) if steps else zeros(0, x.shape[1], h0.shape[-1], dtype=x.dtype))
        layer_input = outs[0] if directions == 1 else cat(outs, -1)
        if dropout and train and layer < num_layers - 1:
            layer_input = _dropout(layer_input, dropout, True)
    return layer_input, stack(h_n), (stack(c_n) if mode == "LSTM" else None)


def _group(fname: str, params: Sequence[Tensor], has_biases: bool, has_projections: bool, num_layers: int,
           bidirectional: bool) -> list[Weights]:
    """The flat weight list split per layer and direction."""
    per = 2 + (2 if has_biases else 0) + (1 if has_projections else 0)
    params = [tensor_arg(p, fname, "params", 3) for p in params]
    if len(params) != per * num_layers * (2 if bidirectional else 1):
        raise RuntimeError(
            f"{fname}: expected {per * num_layers * (2 if bidirectional else 1)} weights, got {len(params)}"
        )
    groups: list[Weights] = []
    for i in range(0, len(params), per):
        g = params[i:i + per]
        groups.append((g[0], g[1], g[2] if has_biases else None, g[3] if has_biases else None,
                       g[-1] if has_projections else None))
    return groups


def _dense(mode: str, fname: str, input: Any, h0: Any, c0: Any, params: Sequence[Tensor], has_biases: bool,
           num_layers: int, dropout: float, train: bool, bidirectional: bool, batch_first: bool) -> tuple:
    x = tensor_arg(input, fname)
    if x.dim() != 3:
        raise RuntimeError(f"{fname}: input must have 3 dimensions, got {x.dim()}")
    h = tensor_arg(h0, fname, "hx", 2)
    c = None if c0 is None else tensor_arg(c0, fname, "hx", 2)
    has_projections = c is not None and h.shape[-1] != c.shape[-1]
    weights = _group(fname, params, has_biases, has_projections, num_layers, bidirectional)
    if batch_first:
        x = transpose(x, 0, 1)
    out, h_n, c_n = recurrence(mode, x, h, c, weights, num_layers, bidirectional, dropout, train)
    if batch_first:
        out = transpose(out, 0, 1)
    return (out, h_n, c_n) if mode == "LSTM" else (out, h_n)


@op()
def rnn_tanh(input: Tensor, hx: Tensor, params: Sequence[Tensor], has_biases: bool, num_layers: int, dropout: float,
             train: bool, bidirectional: bool, batch_first: bool) -> tuple[Tensor, Tensor]:
    """The Elman RNN with ``tanh`` of :class:`~tensorlib.nn.RNN` over a whole sequence: ``(output, h_n)``."""
    return _dense("RNN_TANH", "rnn_tanh", input, hx, None, params, has_biases, num_layers, dropout, train,
                  bidirectional, batch_first)


@op()
def rnn_relu(input: Tensor, hx: Tensor, params: Sequence[Tensor], has_biases: bool, num_layers: int, dropout: float,
             train: bool, bidirectional: bool, batch_first: bool) -> tuple[Tensor, Tensor]:
    """The Elman RNN with ReLU of :class:`~tensorlib.nn.RNN` over a whole sequence: ``(output, h_n)``."""
    return _dense("RNN_RELU", "rnn_relu", input, hx, None, params, has_biases, num_layers, dropout, train,
                  bidirectional, batch_first)


@op()
def lstm(input: Tensor, hx: Sequence[Tensor], params: Sequence[Tensor], has_biases: bool, num_layers: int,
         dropout: float, train: bool, bidirectional: bool, batch_first: bool) -> tuple[Tensor, Tensor, Tensor]:
    """The LSTM of :class:`~tensorlib.nn.LSTM` over a whole sequence, ``hx = (h_0, c_0)``: ``(output, h_n, c_n)``
    (projections when ``h_0`` is narrower than ``c_0``)."""
    if not isinstance(hx, (tuple, list)) or len(hx) != 2:
        raise RuntimeError("lstm expects hx to be a tuple (h_0, c_0)")
    return _dense("LSTM", "lstm", input, hx[0], hx[1], params, has_biases, num_layers, dropout, train,
                  bidirectional, batch_first)


@op()
def gru(input: Tensor, hx: Tensor, params: Sequence[Tensor], has_biases: bool, num_layers: int, dropout: float,
        train: bool, bidirectional: bool, batch_first: bool) -> tuple[Tensor, Tensor]:
    """The GRU of :class:`~tensorlib.nn.GRU` over a whole sequence: ``(output, h_n)``."""
    return _dense("GRU", "gru", input, hx, None, params, has_biases, num_layers, dropout, train, bidirectional,
                  batch_first)


# -- single steps (torch's ``rnn_tanh_cell``, ``lstm_cell``, ...; the cell layers call them through ``_VF``) -----



def _check_cell(fname: str, x: Tensor, h: Any, w_ih: Any, gates: int) -> None:
    """torch's checks of a cell's arguments: no 0-d tensors, ``w_ih`` rows for every gate, float inputs for GRU/LSTM."""
    if x._data.ndim == 0 or (isinstance(h, Tensor) and h._data.ndim == 0):
        raise IndexError("Dimension specified as 1 but tensor has no dimensions")
    if isinstance(h, Tensor) and isinstance(w_ih, Tensor) and w_ih._data.ndim:
        hidden = h._data.shape[-1]
        if w_ih._data.shape[0] != gates * hidden:
            raise RuntimeError(f"weight_ih first dim must be {gates} * hidden_size = {gates * hidden}, but got "
                               f"{w_ih._data.shape[0]}")
    if gates > 1 and x._data.dtype.kind in "iu":  # the gates' sigmoid results cannot go back into integers
        raise RuntimeError(f"result type Float can't be cast to the desired output type {type_title(x._data.dtype)}")


@op()
def rnn_tanh_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None = None,
                  b_hh: Tensor | None = None) -> Tensor:
    """One Elman RNN step: ``tanh(input @ w_ih.T + b_ih + hx @ w_hh.T + b_hh)``."""
    x = tensor_arg(input, "rnn_tanh_cell")
    _check_cell("rnn_tanh_cell", x, hx, w_ih, 1)
    return rnn_step("RNN_TANH", _linear(x, w_ih, b_ih), tensor_arg(hx, "rnn_tanh_cell", "hx", 2), w_hh, b_hh)


@op()
def rnn_relu_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None = None,
                  b_hh: Tensor | None = None) -> Tensor:
    """One Elman RNN step with ReLU: ``relu(input @ w_ih.T + b_ih + hx @ w_hh.T + b_hh)``."""
    x = tensor_arg(input, "rnn_relu_cell")
    _check_cell("rnn_relu_cell", x, hx, w_ih, 1)
    return rnn_step("RNN_RELU", _linear(x, w_ih, b_ih), tensor_arg(hx, "rnn_relu_cell", "hx", 2), w_hh, b_hh)


@op()
def lstm_cell(input: Tensor, hx: Sequence[Tensor], w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None = None,
              b_hh: Tensor | None = None) -> tuple[Tensor, Tensor]:
    """One LSTM step from ``hx = (h, c)``: ``(h', c')`` (gates in torch's order: input, forget, cell, output)."""
    x = tensor_arg(input, "lstm_cell")
    if not isinstance(hx, (tuple, list)) or not all(isinstance(t, Tensor) for t in hx):
        raise TypeError(f"lstm_cell(): argument 'hx' (position 2) must be tuple of Tensors, not {type(hx).__name__}")
    if len(hx) != 2:
        raise RuntimeError("lstm_cell expects two hidden states")
    _check_cell("lstm_cell", x, hx[0], w_ih, 4)
    h, c = rnn_step("LSTM", _linear(x, w_ih, b_ih), (hx[0], hx[1]), w_hh, b_hh)
    return h, c


@op()
def gru_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None = None,
             b_hh: Tensor | None = None) -> Tensor:
    """One GRU step (gates in torch's order: reset, update, new)."""
    x = tensor_arg(input, "gru_cell")
    _check_cell("gru_cell", x, hx, w_ih, 3)
    return rnn_step("GRU", _linear(x, w_ih, b_ih), tensor_arg(hx, "gru_cell", "hx", 2), w_hh, b_hh)
