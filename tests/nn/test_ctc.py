"""ctc_loss and CTCLoss: losses and torch's gradients for padded and concatenated targets, every reduction,
zero_infinity, unbatched input, gradcheck through log_softmax, torch's missing double backward, errors."""

from __future__ import annotations

import numpy as np
import pytest

import tensorlib
import tensorlib.nn.functional as F
from tensorlib.autograd import gradcheck, gradgradcheck
from tests.nn.compare import compare, leaf, same_message

RNG = np.random.default_rng(41)
LOGITS = RNG.standard_normal((7, 3, 5))
PADDED = np.array([[1, 2, 2], [3, 4, 0], [1, 1, 1]])
LENGTHS_IN = np.array([7, 5, 6])
LENGTHS_TG = np.array([3, 2, 3])


def _ctc(lib, x, targets, input_lengths, target_lengths, **kwargs):
    return lib.nn.functional.ctc_loss(x.log_softmax(-1), targets, input_lengths, target_lengths, **kwargs)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("case", ["padded", "concatenated", "lists", "blank", "zero_infinity", "unbatched"])
def test_ctc_loss_matches_torch(case, reduction):
    def run(lib, x, tg, il, tl):
        kwargs = {"reduction": reduction}
        if case == "lists":
            il, tl = il.tolist(), tuple(tl.tolist())
        if case == "blank":
            kwargs["blank"] = 4  # a target equal to the blank is kept, as torch's kernel treats it
        if case == "zero_infinity":
            kwargs["zero_infinity"] = True
        if case == "unbatched":
            x, tg, il, tl = x[:, 0], tg[0], il[0], tl[0]
        return _ctc(lib, x, tg, il, tl, **kwargs)

    targets = np.array([1, 2, 2, 3, 4, 1, 1, 1]) if case == "concatenated" else PADDED
    lengths_in = np.array([7, 2, 6]) if case == "zero_infinity" else LENGTHS_IN  # 3 labels in 2 steps: impossible
    compare(run, LOGITS, targets, lengths_in, LENGTHS_TG, rtol=1e-9, atol=1e-11)


def test_ctc_loss_edge_cases():
    # an impossible alignment without zero_infinity: an infinite loss and torch's nan gradient
    compare(lambda lib, x, tg: _ctc(lib, x, tg, [7, 2, 6], [3, 2, 3], reduction="none"), LOGITS, PADDED)
    # empty targets and float32
    compare(lambda lib, x, tg: _ctc(lib, x, tg, [7, 5, 6], [0, 2, 1]), LOGITS, PADDED, rtol=1e-9)
    compare(lambda lib, x, tg: _ctc(lib, x, tg, [7, 5, 6], [3, 2, 3]), LOGITS.astype(np.float32), PADDED, rtol=1e-5,
            atol=1e-6)
    compare(lambda lib, x, tg: _ctc(lib, x, tg, lib.tensor([7, 5, 6], dtype=lib.int32),
                                    lib.tensor([3, 2, 3], dtype=lib.int32)), LOGITS, PADDED.astype(np.int32))


def test_ctc_gradient_is_torch_s_for_log_softmax_outputs():
    # with respect to log_probs, torch's gradient adds exp(log_probs) to the exact one (it is exact through
    # log_softmax): so gradcheck holds through log_softmax only, and the double backward raises, as torch's
    targets, il, tl = tensorlib.tensor(PADDED), tensorlib.tensor(LENGTHS_IN), tensorlib.tensor(LENGTHS_TG)
    assert gradcheck(lambda x: F.ctc_loss(x.log_softmax(-1), targets, il, tl), (leaf(7, 3, 5),))
    assert gradcheck(lambda x: F.ctc_loss(x.log_softmax(-1), targets, il, tl, reduction="sum"), (leaf(7, 3, 5),))
    with pytest.raises(RuntimeError, match="derivative for aten::_ctc_loss_backward is not implemented"):
        gradgradcheck(lambda x: F.ctc_loss(x.log_softmax(-1), targets, il, tl), (leaf(7, 3, 5),))
    x = leaf(7, 3, 5)
    loss = F.ctc_loss(x.log_softmax(-1), targets, il, tl, reduction="none")
    assert type(loss.grad_fn).__name__ == "CtcLossBackward0"
    assert type(F.ctc_loss(x.log_softmax(-1), targets, il, tl).grad_fn).__name__ == "MeanBackward0"


def test_ctc_loss_module():
    torch = pytest.importorskip("torch")
    for kwargs in ({}, {"blank": 2, "reduction": "sum", "zero_infinity": True}):
        assert repr(tensorlib.nn.CTCLoss(**kwargs)) == repr(torch.nn.CTCLoss(**kwargs))
        compare(lambda lib, x, tg, il, tl: lib.nn.CTCLoss(**kwargs)(x.log_softmax(-1), tg, il, tl), LOGITS, PADDED,
                LENGTHS_IN, LENGTHS_TG)
    m = tensorlib.nn.CTCLoss(blank=1)
    assert m.blank == 1 and m.zero_infinity is False and m.reduction == "mean"


@pytest.mark.parametrize("call", [
    lambda lib, lp, tg, il, tl: _ctc(lib, lp, tg[0, :2], il, tl),
    lambda lib, lp, tg, il, tl: _ctc(lib, lp, tg, il, tl, blank=5),
    lambda lib, lp, tg, il, tl: _ctc(lib, lp, tg, il, tl, blank=-1),
    lambda lib, lp, tg, il, tl: _ctc(lib, lp, tg, il[:1], tl),
    lambda lib, lp, tg, il, tl: _ctc(lib, lp, tg, il, tl[:2]),
    lambda lib, lp, tg, il, tl: _ctc(lib, lp, tg, il, tl + 1),
    lambda lib, lp, tg, il, tl: _ctc(lib, lp, tg, il + 1, tl),
    lambda lib, lp, tg, il, tl: _ctc(lib, lp, tg, il - 7, tl),
    lambda lib, lp, tg, il, tl: _ctc(lib, lp, tg, il, tl - 4),
    lambda lib, lp, tg, il, tl: _ctc(lib, lp, tg[:2], il, tl),
    lambda lib, lp, tg, il, tl: _ctc(lib, lp, tg, il.float(), tl),
    lambda lib, lp, tg, il, tl: _ctc(lib, lp, tg, il, tl, reduction="avg"),
    lambda lib, lp, tg, il, tl: _ctc(lib, lp[:, 0, 0], tg[0], il[0], tl[0]),
    lambda lib, lp, tg, il, tl: _ctc(lib, lp[:0], tg, il * 0, tl * 0),
    lambda lib, lp, tg, il, tl: lib.nn.functional.ctc_loss(lp.long(), tg, il, tl),
])
def test_ctc_loss_errors(call):
    same_message(call, LOGITS, PADDED, LENGTHS_IN, LENGTHS_TG)
