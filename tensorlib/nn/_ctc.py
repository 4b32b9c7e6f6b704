"""The connectionist temporal classification loss (``ctc_loss``), as torch computes it on the CPU.

The per-sample negative log likelihoods come from the forward (alpha) and backward (beta) recursions
in log space, vectorised over the batch. The gradient is torch's: with respect to ``log_probs`` it is
``exp(log_probs) - exp(log(alpha * beta) + nll - log_probs)``, the gradient for ``log_probs`` that are the
``log_softmax`` of the logits (through ``log_softmax`` it is the exact gradient of the logits), zero past
each input length. As in torch, that gradient has no derivative of its own: a double backward through
it raises.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._autograd.graph import Node
from .._registry import NN_FUNCTIONAL, op
from .._tensor import Tensor
from ..ops import broadcast
from ..ops._util import GRAD, int_list_arg, record, tensor_arg, type_title, wrap
from ..ops.arithmetic import div, mul
from ..ops.reduction import mean
from ..ops.shape import reshape, squeeze, unsqueeze
from ._functional import _reduction

__all__ = ["ctc_loss", "ctc_loss_core"]

_NEG_INF = -np.inf


def _lse(*terms: np.ndarray) -> np.ndarray:
    """``log(sum(exp(terms)))`` elementwise, -inf where every term is -inf."""
    m = terms[0]
    for t in terms[1:]:
        m = np.maximum(m, t)
    safe = np.where(np.isneginf(m), 0.0, m)
    total = sum(np.exp(t - safe) for t in terms)
    with np.errstate(divide="ignore"):
        return np.where(np.isneginf(m), _NEG_INF, safe + np.log(total))


def _lengths(v: Any, name: str) -> np.ndarray:
    if isinstance(v, Tensor):
        a = v._data
        if a.dtype.kind not in "iu":
            raise RuntimeError(f"{name} must be integral")
        return a.reshape(-1).astype(np.int64)
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        return np.array([v], dtype=np.int64)
    if not isinstance(v, (list, tuple)):
        raise TypeError(f"ctc_loss(): argument '{name}' must be tuple of ints or Tensor, not {type(v).__name__}")
    return np.asarray(int_list_arg(v, "ctc_loss", name), dtype=np.int64).reshape(-1)


def _check(what: str, values: np.ndarray, lo: int | None, hi: int | None) -> None:
    for value in values.tolist():
        if lo is not None and value < lo:
            raise RuntimeError(f"Expected {what} to have value at least {lo}, but got value {value} (while checking "
                               "arguments for ctc_loss_allocate_outputs)")
        if hi is not None and value > hi:
            raise RuntimeError(f"Expected {what} to have value at most {hi}, but got value {value} (while checking "
                               "arguments for ctc_loss_allocate_outputs)")


def _padded_targets(targets: np.ndarray, target_lengths: np.ndarray, batch: int) -> np.ndarray:
    """Targets as ``(N, S_max)`` (concatenated 1-D targets are split by ``target_lengths``)."""
    s_max = int(target_lengths.max(initial=0))
    if targets.ndim == 1:
        needed = int(target_lengths.sum())
        if targets.shape[0] < needed:
            raise RuntimeError(f"Expected tensor to have size {needed} at dimension 0, but got size {targets.shape[0]} "
                               "for argument #2 'targets' (while checking arguments for ctc_loss_allocate_outputs)")
        out = np.zeros((batch, s_max), dtype=np.int64)
        start = 0
        for n, length in enumerate(target_lengths.tolist()):
            out[n, :length] = targets[start:start + length]
            start += length
        return out
    if targets.shape[0] != batch:
        raise RuntimeError(f"Expected tensor to have size {batch} at dimension 0, but got size {targets.shape[0]} for "
                           "argument #2 'targets' (while checking arguments for ctc_loss_allocate_outputs)")
    if targets.shape[1] < s_max:
        raise RuntimeError(f"Expected tensor to have size at least {s_max} at dimension 1, but got size "
                           f"{targets.shape[1]} for argument #2 'targets' (while checking arguments for "
                           "ctc_loss_allocate_outputs)")
    return targets[:, :s_max].astype(np.int64)


def _alpha_beta(lp: np.ndarray, ext: np.ndarray, ext_len: np.ndarray, in_len: np.ndarray,
                blank: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Log alpha and beta ``(T, N, L)`` over the extended labels ``ext`` ``(N, L)``, and the nll ``(N,)``."""
    t_max, n, _ = lp.shape
    width = ext.shape[1]
    rows = np.arange(n)
    valid = np.arange(width)[None, :] < ext_len[:, None]
    emit = np.where(valid[None], np.take_along_axis(lp, np.broadcast_to(ext[None], (t_max, n, width)), axis=2),
                    _NEG_INF)  # (T, N, L): log prob of each extended label at each time
    # the skip from s - 2 to s is allowed at label positions (odd s) whose label differs from the one two back
    skip = np.zeros((n, width), dtype=bool)
    skip[:, 2:] = (np.arange(2, width) % 2 == 1) & (ext[:, 2:] != ext[:, :-2])
    alpha = np.full((t_max, n, width), _NEG_INF)
    if t_max:
        alpha[0, :, 0] = emit[0, :, 0]
        if width > 1:
            alpha[0, :, 1] = np.where(ext_len > 1, emit[0, :, 1], _NEG_INF)
    for t in range(1, t_max):
        prev = alpha[t - 1]
        one = np.concatenate([np.full((n, 1), _NEG_INF), prev[:, :-1]], axis=1)
        two = np.where(skip, np.concatenate([np.full((n, 2), _NEG_INF), prev[:, :-2]], axis=1), _NEG_INF)
        alpha[t] = np.where(t < in_len[:, None], emit[t] + _lse(prev, one, two), _NEG_INF)
    last_t = np.maximum(in_len - 1, 0)
    end = alpha[last_t, rows]  # (N, L) at each sample's last time
    last = np.take_along_axis(end, (ext_len - 1)[:, None], axis=1)[:, 0]
    second = np.where(ext_len > 1, np.take_along_axis(end, np.maximum(ext_len - 2, 0)[:, None], axis=1)[:, 0],
                      _NEG_INF)
    nll = -_lse(last, second)
    nll = np.where(in_len == 0, np.where(ext_len == 1, 0.0, np.inf), nll)
    # beta, from each sample's last time backwards
    skip_b = np.zeros((n, width), dtype=bool)
    skip_b[:, :-2] = skip[:, 2:]
    beta = np.full((t_max, n, width), _NEG_INF)
    cols = np.arange(width)[None, :]
    for t in reversed(range(t_max)):
        init = np.where((cols == (ext_len - 1)[:, None]) | ((cols == (ext_len - 2)[:, None]) & (ext_len[:, None] > 1)),
                        emit[t], _NEG_INF)
        if t + 1 < t_max:
            nxt = beta[t + 1]
            one = np.concatenate([nxt[:, 1:], np.full((n, 1), _NEG_INF)], axis=1)
            two = np.where(skip_b, np.concatenate([nxt[:, 2:], np.full((n, 2), _NEG_INF)], axis=1), _NEG_INF)
            rec = emit[t] + _lse(nxt, one, two)
        else:
            rec = np.full((n, width), _NEG_INF)
        at_end = np.asarray(in_len - 1 == t)[:, None]
        before_end = np.asarray(in_len - 1 > t)[:, None]
        beta[t] = np.where(at_end, init, np.where(before_end, rec, _NEG_INF))
    return alpha, beta, nll


class CtcLossBackward0(Node):
    """Torch's CTC gradient (see the module docstring), scaled by each sample's incoming gradient."""

    __slots__ = ("grad_base", "log_probs")
    grad_base: np.ndarray  # (T, N, C): the gradient for an incoming gradient of one per sample
    log_probs: Tensor

    def backward(self, g: Tensor) -> tuple:
        out = mul(reshape(g, (1, -1, 1)), wrap(self.grad_base))
        if GRAD.enabled:
            # as in torch, the gradient's own derivative is not implemented: recording it raises when reached
            res, _ = record(CtcLossBackwardBackward0, out._data, (out, self.log_probs))
            return (res,)
        return (out,)


class CtcLossBackwardBackward0(Node):
    __slots__ = ()

    def backward(self, g: Tensor) -> tuple:
        raise RuntimeError("derivative for aten::_ctc_loss_backward is not implemented")


def ctc_loss_core(log_probs: Tensor, targets: Tensor, input_lengths: Any, target_lengths: Any, blank: int,
                  zero_infinity: bool) -> Tensor:
    """Per-sample negative log likelihoods ``(N,)`` of ``(T, N, C)`` log-probabilities (torch's ``_ctc_loss``)."""
    lp_t = log_probs
    a = lp_t._data
    if a.ndim != 3:
        raise RuntimeError(f"Expected 3-dimensional tensor, but got {a.ndim}-dimensional tensor for argument #1 "
                           "'log_probs' (while checking arguments for ctc_loss_allocate_outputs)")
    if a.dtype.kind != "f":
        raise NotImplementedError(f"\"ctc_loss_cpu\" not implemented for '{type_title(a.dtype)}'")
    t_max, batch, classes = a.shape
    if not 0 <= blank < classes:
        raise RuntimeError("blank must be in label range")
    in_len = _lengths(input_lengths, "input_lengths")
    tg_len = _lengths(target_lengths, "target_lengths")
    if in_len.shape[0] != batch:
        raise RuntimeError("input_lengths must be of size batch_size")
    if tg_len.shape[0] != batch:
        raise RuntimeError("target_lengths must be of size batch_size")
    tg = targets._data
    if tg.dtype.kind not in "iuf":
        raise RuntimeError(f"ctc_loss: expected integral targets, got {type_title(tg.dtype)}")
    _check("target_lengths", tg_len, 0, None)
    padded = _padded_targets(tg.astype(np.int64) if tg.dtype.kind == "f" else tg, tg_len, batch)
    _check("input_lengths", in_len, 0, t_max)
    # extended labels: blank, l1, blank, l2, ..., blank
    s_max = padded.shape[1]
    ext = np.full((batch, 2 * s_max + 1), blank, dtype=np.int64)
    ext[:, 1::2] = np.clip(padded, 0, classes - 1)
    ext_len = 2 * tg_len + 1
    lp = a.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        alpha, beta, nll = _alpha_beta(lp, ext, ext_len, in_len, blank)
        nll_out = np.where(zero_infinity & np.isinf(nll), 0.0, nll).astype(a.dtype)
        if not (lp_t._requires_grad and GRAD.enabled):
            return wrap(nll_out)
        # log(sum over the extended positions of each class of alpha * beta): (T, N, C)
        ab = alpha + beta
        lcab = np.full((t_max, batch, classes), _NEG_INF)
        rows = np.arange(batch)
        for s in range(ext.shape[1]):
            c = ext[:, s]
            lcab[:, rows, c] = np.logaddexp(lcab[:, rows, c], ab[:, :, s])
        # torch writes the last time step's two entries (blank first) rather than adding them up: a target
        # label equal to the blank keeps only the second
        has = in_len > 0
        last_t, n_idx = (in_len - 1)[has], rows[has]
        end = (2 * tg_len)[has]
        lcab[last_t, n_idx, blank] = ab[last_t, n_idx, end]
        labelled = tg_len[has] > 0
        lt, ln, le = last_t[labelled], n_idx[labelled], end[labelled] - 1
        lcab[lt, ln, ext[ln, le]] = ab[lt, ln, le]
        grad = np.exp(lp) - np.exp(lcab + nll[None, :, None] - lp)
        grad = np.where(np.arange(t_max)[:, None, None] < in_len[None, :, None], grad, 0.0)
        if zero_infinity:
            grad = np.where(np.isinf(nll)[None, :, None], 0.0, grad)
    res, node = record(CtcLossBackward0, nll_out, (lp_t,))
    node.grad_base = grad.astype(a.dtype)
    node.log_probs = lp_t
    return res


@op(namespace=NN_FUNCTIONAL)
def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths: Any, target_lengths: Any, blank: int = 0,
             reduction: str = "mean", zero_infinity: bool = False) -> Tensor:
    """Connectionist temporal classification loss of ``(T, N, C)`` (or unbatched ``(T, C)``) log-probabilities.

    ``targets`` are ``(N, S)`` padded or the concatenation of every sample's targets; ``input_lengths`` and
    ``target_lengths`` are tensors or sequences of ints. ``reduction='mean'`` divides each loss by its target
    length before averaging over the batch. ``zero_infinity`` replaces infinite losses (impossible alignments)
    and their gradients by zero.
    """
    lp = tensor_arg(log_probs, "ctc_loss", "log_probs")
    tg = tensor_arg(targets, "ctc_loss", "targets", 2)
    if lp._data.dtype == np.float16:
        raise NotImplementedError("\"ctc_loss_cpu\" not implemented for 'Half'")
    red = _reduction(None, None, reduction)
    return _ctc_loss(lp, tg, input_lengths, target_lengths, blank, red, zero_infinity)


def _ctc_loss(lp: Tensor, tg: Tensor, input_lengths: Any, target_lengths: Any, blank: int, red: str,
              zero_infinity: bool) -> Tensor:
    if lp._data.size == 0:
        raise RuntimeError("log_probs tensor must not be empty")
    unbatched = lp._data.ndim != 3  # torch unsqueezes any other input
    if unbatched:
        lp = unsqueeze(lp, 1)
        if tg._data.ndim == 1:
            tg = unsqueeze(tg, 0)
    nll = ctc_loss_core(lp, tg, input_lengths, target_lengths, blank, zero_infinity)
    if red == "none":
        return squeeze(nll, 0) if unbatched else nll
    if red == "sum":
        return broadcast.sum(nll)
    tg_len = _lengths(target_lengths, "target_lengths")
    return mean(div(nll, wrap(np.maximum(tg_len, 1).astype(nll._data.dtype))))
