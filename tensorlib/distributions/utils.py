"""Conversions between probabilities and logits."""

from __future__ import annotations

from typing import Any

import tensorlib as _t


def clamp_probs(probs: Any) -> Any:
    """``probs`` kept one machine epsilon away from 0 and 1 (so their logits are finite)."""
    eps = _t.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def logits_to_probs(logits: Any, is_binary: bool = False) -> Any:
    """Probabilities from logits: ``sigmoid`` for one binary event, ``softmax`` over the last dim otherwise."""
    return _t.sigmoid(logits) if is_binary else _t.softmax(logits, dim=-1)


def probs_to_logits(probs: Any, is_binary: bool = False) -> Any:
    """Logits from probabilities (clamped away from 0 and 1): ``log(p) - log1p(-p)``, or ``log(p)``."""
    p = clamp_probs(probs)
    return p.log() - (-p).log1p() if is_binary else p.log()
