"""Layers against torch with shared weights: RNN/LSTM/GRU and cells, MultiheadAttention,
Transformer layers, scaled_dot_product_attention, PReLU, padding, distances and the extra losses."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tensorlib

from tests.parity.differential import differential

_RNG = np.random.default_rng(11)
SEQ = _RNG.standard_normal((5, 2, 3)).astype(np.float32)
EMB = _RNG.standard_normal((5, 2, 4)).astype(np.float32)
MEM = _RNG.standard_normal((6, 2, 4)).astype(np.float32)
X1, X2, X3 = (_RNG.standard_normal((4, 3)).astype(np.float32) for _ in range(3))
K3 = _RNG.standard_normal((6, 2, 3)).astype(np.float32)
V5 = _RNG.standard_normal((6, 2, 5)).astype(np.float32)
Q4 = _RNG.standard_normal((2, 3, 5, 4)).astype(np.float32)
K4 = _RNG.standard_normal((2, 3, 6, 4)).astype(np.float32)
BOOL_MASK = _RNG.random((5, 6)) > 0.3
BOOL_MASK[:, 0] = True
FLOAT_MASK = _RNG.standard_normal((5, 6)).astype(np.float32)
SIGNS = np.sign(_RNG.standard_normal((4, 3))).astype(np.float32)
PRELU_IN = _RNG.standard_normal((2, 3, 4)).astype(np.float32)
PACK_IN = _RNG.standard_normal((5, 3, 2)).astype(np.float32)
PACK_H = _RNG.standard_normal((4, 3, 4)).astype(np.float32)
# (inputs are drawn once, here: both libraries must see the same values)


def shared(torch, module, seed=0):
    """Deterministic parameters (identical in torch and tensorlib) and eval mode."""
    rng = np.random.default_rng(seed)
    with torch.no_grad():
        for _, p in sorted(module.named_parameters()):
            p.copy_(torch.tensor(rng.uniform(-0.5, 0.5, tuple(p.shape)).astype(np.float32)))
    return module.eval()


def run_module(torch, rec, module, *inputs, **kwargs):
    """Forward with inputs that require grad, backward of the sum of all outputs; record outputs and grads."""
    xs = [torch.tensor(x, requires_grad=True) for x in inputs]
    out = module(*xs, **kwargs)
    flat = []
    for o in out if isinstance(out, tuple) else (out,):
        flat.extend(o if isinstance(o, tuple) else (o,) if o is not None else ())
    sum(o.sum() for o in flat).backward()
    rec(flat, exact_repr=False)
    rec([x.grad for x in xs], exact_repr=False)
    rec([p.grad for _, p in sorted(module.named_parameters())], exact_repr=False)


@pytest.mark.filterwarnings("ignore:LSTM with projections")
@differential(atol=1e-5, rtol=1e-4)
def test_recurrent_layers(torch, rec):
    nn = torch.nn
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        layers = [nn.RNN(3, 4), nn.RNN(3, 4, num_layers=2, nonlinearity="relu", bidirectional=True),
                  nn.LSTM(3, 4, num_layers=2, bidirectional=True), nn.LSTM(3, 4, batch_first=True, proj_size=2),
                  nn.GRU(3, 4, num_layers=2, bias=False), nn.GRU(3, 4, dropout=0.3)]
    for layer in layers:
        run_module(torch, rec, shared(torch, layer), SEQ)
    run_module(torch, rec, shared(torch, nn.GRU(3, 4)), SEQ[:, 0])  # unbatched
    h0 = torch.full((1, 2, 4), 0.5)
    rec(shared(torch, nn.RNN(3, 4))(torch.tensor(SEQ), h0)[1], exact_repr=False)
    lstm = shared(torch, nn.LSTM(3, 4))
    out, (h, c) = lstm(torch.tensor(SEQ), (h0, h0 * 2))
    rec((out, h, c), exact_repr=False)
    run_module(torch, rec, shared(torch, nn.LSTMCell(3, 4)), SEQ[0])
    run_module(torch, rec, shared(torch, nn.GRUCell(3, 4, bias=False)), SEQ[0])
    run_module(torch, rec, shared(torch, nn.RNNCell(3, 4, nonlinearity="relu")), SEQ[0, 0])
    rec([(n, tuple(p.shape)) for n, p in nn.LSTM(3, 4, num_layers=2, bidirectional=True, proj_size=2).named_parameters()])
    rec.raises(RuntimeError, nn.LSTM(3, 4), torch.ones(5, 2, 7), match="input.size(-1) must be equal to input_size. Expected 3, got 7")
    rec.raises(ValueError, nn.GRU(3, 4), torch.ones(5, 2, 3, 1))
    rec.raises(RuntimeError, nn.RNN(3, 4), torch.ones(5, 2, 3), torch.zeros(2, 2, 4), match="Expected hidden size (1, 2, 4), got [2, 2, 4]")
    rec.raises(ValueError, nn.LSTM, 3, 4, dropout=1.5)
    rec.raises(ValueError, nn.RNN, 3, 4, nonlinearity="sigmoid")
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        nn.LSTM(3, 4, dropout=0.5)
    rec(any("non-zero dropout expects num_layers greater than 1" in str(x.message) for x in w), True)


@differential(atol=1e-5, rtol=1e-4)
def test_packed_sequences(torch, rec):
    R = torch.nn.utils.rnn
    x = torch.arange(12.0).view(4, 3, 1)
    rec(R.pack_padded_sequence(x, [4, 2, 1]))
    p = R.pack_padded_sequence(x, torch.tensor([2, 4, 1]), enforce_sorted=False)
    rec((p, R.pad_packed_sequence(p), R.pad_packed_sequence(p, batch_first=True, total_length=5)[0].shape))
    rec(R.pack_sequence([torch.ones(3), torch.ones(1), torch.ones(2)], enforce_sorted=False))
    rec(R.pack_sequence(torch.arange(6.0).view(2, 3)))  # a tensor: the sequence of its rows
    rec.raises(TypeError, R.pack_sequence, torch.tensor(1.0), match="iteration over a 0-d tensor")
    rec(R.unpad_sequence(torch.arange(6.0).view(2, 3), torch.tensor([3, 1]), batch_first=True))
    rec.raises(RuntimeError, R.pack_padded_sequence, x, [2, 4, 1], match="must be sorted in decreasing order")
    rec.raises(ValueError, R.pad_packed_sequence, p, total_length=2, match="Expected total_length to be at least")
    nn = torch.nn
    for layer in (nn.GRU(2, 4, num_layers=2, bidirectional=True), nn.LSTM(2, 4, num_layers=2, bidirectional=True),
                  nn.RNN(2, 4, num_layers=2, bidirectional=True, batch_first=True)):
        m = shared(torch, layer)
        for enforce, lengths in ((True, [5, 3, 1]), (False, [2, 5, 3])):
            xs = torch.tensor(PACK_IN.transpose(1, 0, 2).copy() if m.batch_first else PACK_IN, requires_grad=True)
            hx = torch.tensor(PACK_H, requires_grad=True)
            packed = R.pack_padded_sequence(xs, lengths, batch_first=m.batch_first, enforce_sorted=enforce)
            out, h = m(packed, (hx, hx * 0.5) if isinstance(m, nn.LSTM) else hx)
            padded, lens = R.pad_packed_sequence(out, batch_first=m.batch_first)
            hs = h if isinstance(h, tuple) else (h,)
            (padded.sum() + sum((t * t).sum() for t in hs)).backward()
            rec((padded, list(hs), lens, out.batch_sizes, xs.grad, hx.grad), exact_repr=False)


@differential(atol=1e-5, rtol=1e-4)
def test_attention_and_transformer(torch, rec):
    nn = torch.nn
    F = nn.functional
    run_module(torch, rec, shared(torch, nn.MultiheadAttention(4, 2)), EMB, MEM, MEM)
    run_module(torch, rec, shared(torch, nn.MultiheadAttention(4, 2, batch_first=True, add_bias_kv=True, add_zero_attn=True)),
               EMB, MEM[:5], MEM[:5])
    run_module(torch, rec, shared(torch, nn.MultiheadAttention(4, 2, kdim=3, vdim=5, bias=False)), EMB, K3, V5)
    mask = torch.tensor(np.triu(np.ones((5, 6), dtype=bool), 1))
    kpm = torch.tensor(np.array([[False] * 5 + [True], [False] * 6]))
    run_module(torch, rec, shared(torch, nn.MultiheadAttention(4, 2)), EMB, MEM, MEM, attn_mask=mask, key_padding_mask=kpm,
               average_attn_weights=False)
    run_module(torch, rec, shared(torch, nn.MultiheadAttention(4, 2)), EMB[:, 0], MEM[:, 0], MEM[:, 0])
    run_module(torch, rec, shared(torch, nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0)), EMB)
    run_module(torch, rec, shared(torch, nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0, norm_first=True, activation="gelu",
                                                                     batch_first=True)), EMB)
    run_module(torch, rec, shared(torch, nn.TransformerDecoderLayer(4, 2, 8, dropout=0.0)), EMB, MEM)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = shared(torch, nn.Transformer(4, 2, 1, 1, 8, dropout=0.0))
    causal = model.generate_square_subsequent_mask(5)
    rec(causal)
    run_module(torch, rec, model, MEM, EMB, tgt_mask=causal)
    q, k = Q4, K4
    for kw in ({}, {"scale": 0.3}, {"attn_mask": torch.tensor(BOOL_MASK)}, {"attn_mask": torch.tensor(FLOAT_MASK)}):
        rec(F.scaled_dot_product_attention(torch.tensor(q), torch.tensor(k), torch.tensor(k), **kw), exact_repr=False)
    rec(F.scaled_dot_product_attention(torch.tensor(q), torch.tensor(q), torch.tensor(q), is_causal=True), exact_repr=False)
    rec.raises(AssertionError, nn.MultiheadAttention, 5, 2, match="embed_dim must be divisible by num_heads")


@differential(atol=1e-5, rtol=1e-4)
def test_prelu_padding_distance_losses(torch, rec):
    nn = torch.nn
    F = nn.functional
    run_module(torch, rec, shared(torch, nn.PReLU(3)), PRELU_IN)
    rec(nn.PReLU()(torch.tensor([-2.0, 3.0])), [-0.5, 3.0], exact_repr=False)
    rec.raises(RuntimeError, F.prelu, torch.ones(2, 3), torch.ones(2), match="Mismatch of parameter numbers and input channel size")
    img = torch.arange(12.0).reshape(1, 1, 3, 4)
    for pad in (nn.ZeroPad2d((1, 2, 0, 1)), nn.ConstantPad2d(1, -1.0), nn.ReflectionPad2d(1), nn.ReplicationPad2d((2, 0, 1, 0)),
                nn.CircularPad2d(1)):
        rec(pad(img))
    rec((nn.ConstantPad1d((1, 2), 9.0)(torch.ones(1, 2)), nn.ReplicationPad1d(2)(torch.tensor([[[1.0, 2.0]]]))))
    a, b = torch.tensor(X1), torch.tensor(X2)
    rec((nn.CosineSimilarity()(a, b), nn.CosineSimilarity(dim=0)(a, b), nn.PairwiseDistance()(a, b), nn.PairwiseDistance(p=1, keepdim=True)(a, b)))
    y = torch.tensor([1.0, -1.0, 1.0, -1.0])
    yy = torch.tensor(SIGNS)
    losses = [
        lambda p, q, r: nn.MarginRankingLoss(margin=0.2)(p[:, 0], q[:, 0], y),
        lambda p, q, r: nn.HingeEmbeddingLoss(margin=0.5)(p, yy),
        lambda p, q, r: nn.SoftMarginLoss()(p, yy),
        lambda p, q, r: nn.MultiLabelSoftMarginLoss(weight=torch.tensor([1.0, 2.0, 3.0]))(p, (yy > 0).float()),
        lambda p, q, r: nn.CosineEmbeddingLoss(margin=0.1, reduction="sum")(p, q, y),
        lambda p, q, r: nn.TripletMarginLoss(swap=True)(p, q, r),
        lambda p, q, r: nn.PoissonNLLLoss(full=True)(p, torch.tensor(np.abs(X3) * 3)),
        lambda p, q, r: nn.PoissonNLLLoss(log_input=False, reduction="none")(p.abs(), torch.tensor(np.abs(X3) * 3)),
        lambda p, q, r: nn.GaussianNLLLoss(full=True)(p, q, r.abs() + 0.1),
        lambda p, q, r: F.gaussian_nll_loss(p, q, (r.abs() + 0.1)[:, 0]),
        lambda p, q, r: nn.MultiMarginLoss(p=2, margin=0.7, weight=torch.tensor([1.0, 0.5, 2.0]))(p, torch.tensor([0, 2, 1, 1])),
        lambda p, q, r: nn.MultiMarginLoss()(p, torch.tensor([0, 2, 1, 1])),
    ]
    for loss in losses:
        p, q, r = (torch.tensor(v, requires_grad=True) for v in (X1, X2, X3))
        out = loss(p, q, r)
        out.sum().backward()
        rec((out, p.grad, q.grad, r.grad), exact_repr=False)
    rec.raises(ValueError, F.gaussian_nll_loss, a, b, -a.abs(), match="var has negative entry/entries")
    rec.raises(ValueError, nn.TripletMarginLoss, margin=-1.0)


def test_lstm_learns_without_torch():
    """A small LSTM regression trains (loss falls) on tensorlib alone."""
    t = tensorlib
    t.manual_seed(0)
    lstm, head = t.nn.LSTM(1, 8, batch_first=True), t.nn.Linear(8, 1)
    xs = t.linspace(0, 6.28, 40).sin().view(1, 40, 1)
    params = list(lstm.parameters()) + list(head.parameters())
    opt = t.optim.Adam(params, lr=0.02)
    losses = []
    for _ in range(40):
        opt.zero_grad()
        out, _ = lstm(xs[:, :-1])
        loss = t.nn.functional.mse_loss(head(out), xs[:, 1:])
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.3 * losses[0]
    mha = t.nn.MultiheadAttention(4, 2, batch_first=True)
    out, weights = mha(t.ones(2, 3, 4), t.ones(2, 5, 4), t.ones(2, 5, 4))
    assert out.shape == (2, 3, 4) and weights.shape == (2, 3, 5)
    assert t.allclose(weights.sum(-1), t.ones(2, 3))
    with pytest.raises(RuntimeError, match="Need attn_mask if specifying the is_causal hint"):
        mha(t.ones(2, 3, 4), t.ones(2, 3, 4), t.ones(2, 3, 4), is_causal=True)
