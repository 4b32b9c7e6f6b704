"""Attention: ``scaled_dot_product_attention`` and the multi-head attention used by ``nn.MultiheadAttention``."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._registry import NN_FUNCTIONAL, op
from .._tensor import Tensor
from ..ops._util import tensor_arg, wrap
from ..ops.activation import softmax
from ..ops.arithmetic import add, mul
from ..ops.broadcast import expand
from ..ops.indexing import repeat_interleave
from ..ops.join_split import cat, chunk
from ..ops.linalg import matmul
from ..ops.reduction import mean
from ..ops.shape import permute, reshape, squeeze, transpose, unsqueeze
from ._functional import dropout, linear


def _mask_as_bias(mask: Tensor, dtype: Any) -> Tensor:
    """A boolean mask (True = may attend) as an additive bias of 0 / -inf; float masks are biases already."""
    if mask._data.dtype == np.bool_:
        return wrap(np.where(mask._data, 0.0, -np.inf).astype(dtype))
    return mask


@op(namespace=NN_FUNCTIONAL)
def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None = None,
                                 dropout_p: float = 0.0, is_causal: bool = False, scale: float | None = None,
                                 enable_gqa: bool = False) -> Tensor:
    """``softmax(query @ key^T * scale + mask) @ value`` over the last two dims (batch dims broadcast).

    A boolean ``attn_mask`` marks the positions that may be attended; a float one is added to the scores.
    ``is_causal`` masks out the future (the upper triangle).
    """
    q = tensor_arg(query, "scaled_dot_product_attention", "query")
    k = tensor_arg(key, "scaled_dot_product_attention", "key", 2)
    v = tensor_arg(value, "scaled_dot_product_attention", "value", 3)
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
    if enable_gqa and q.dim() >= 3 and k.shape[-3] != q.shape[-3]:
        rep = q.shape[-3] // k.shape[-3]
        k = repeat_interleave(k, rep, -3)
        v = repeat_interleave(v, rep, -3)
    L_, S_ = q.shape[-2], k.shape[-2]
    factor = 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale
    scores = mul(matmul(q, transpose(k, -2, -1)), factor)
    if is_causal:
        causal = np.tril(np.ones((L_, S_), dtype=bool))
        scores = add(scores, _mask_as_bias(wrap(causal), scores._data.dtype))
    if attn_mask is not None:
        scores = add(scores, _mask_as_bias(attn_mask, scores._data.dtype))
    weights = softmax(scores, -1)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p, True)
    return matmul(weights, v)


def multi_head_attention(module: Any, query: Tensor, key: Tensor, value: Tensor, key_padding_mask: Tensor | None,
                         need_weights: bool, attn_mask: Tensor | None, average_attn_weights: bool,
                         is_causal: bool) -> tuple:
    """The forward of ``nn.MultiheadAttention`` (inputs ``(L, N, E)``, or ``(L, E)`` unbatched)."""
    m = module
    batched = query.dim() == 3
    if m.batch_first and batched:
        query, key, value = (transpose(t, 0, 1) for t in (query, key, value))
    if not batched:
        query, key, value = (unsqueeze(t, 1) for t in (query, key, value))
        if key_padding_mask is not None:
            key_padding_mask = unsqueeze(key_padding_mask, 0)
    tgt_len, bsz, embed = query.shape
    if embed != m.embed_dim:
        raise AssertionError(f"was expecting embedding dimension of {m.embed_dim}, but got {embed}")
    heads, head_dim = m.num_heads, m.head_dim
    if m._qkv_same_embed_dim:
        w_q, w_k, w_v = chunk(m.in_proj_weight, 3)
    else:
        w_q, w_k, w_v = m.q_proj_weight, m.k_proj_weight, m.v_proj_weight
    b_q = b_k = b_v = None
    if m.in_proj_bias is not None:
        b_q, b_k, b_v = chunk(m.in_proj_bias, 3)
    q = linear(query, w_q, b_q)
    k = linear(key, w_k, b_k)
    v = linear(value, w_v, b_v)
    if m.bias_k is not None:
        k = cat([k, expand(m.bias_k, (1, bsz, embed))])
        v = cat([v, expand(m.bias_v, (1, bsz, embed))])
        if attn_mask is not None:
            attn_mask = _pad_last(attn_mask)
        if key_padding_mask is not None:
            key_padding_mask = _pad_last(key_padding_mask)

    def split_heads(t: Tensor) -> Tensor:  # (len, N, E) -> (N, heads, len, head_dim)
        return permute(reshape(t, (t.shape[0], bsz, heads, head_dim)), (1, 2, 0, 3))

    q, k, v = split_heads(q), split_heads(k), split_heads(v)
    if m.add_zero_attn:
        zeros = wrap(np.zeros((bsz, heads, 1, head_dim), dtype=k._data.dtype))
        k, v = cat([k, zeros], 2), cat([v, zeros], 2)
        if attn_mask is not None:
            attn_mask = _pad_last(attn_mask)
        if key_padding_mask is not None:
            key_padding_mask = _pad_last(key_padding_mask)
    src_len = k.shape[2]
    dtype = q._data.dtype
    bias = None
    if is_causal and attn_mask is None:
        raise RuntimeError(
            "Need attn_mask if specifying the is_causal hint. You may use the Transformer module method "
            "`generate_square_subsequent_mask` to create this mask."
        )
    if attn_mask is not None:
        a = attn_mask._data
        # here True means "may not attend" (the opposite of scaled_dot_product_attention's boolean masks)
        am = wrap(np.where(a, -np.inf, 0.0).astype(dtype)) if a.dtype == np.bool_ else attn_mask
        if am.dim() == 3:  # (N * heads, L, S)
            am = reshape(am, (bsz, heads, tgt_len, src_len))
        bias = am
    if key_padding_mask is not None:
        kpm = key_padding_mask._data
        pad = np.where(kpm, -np.inf, 0.0) if kpm.dtype == np.bool_ else kpm
        pad_t = wrap(np.asarray(pad, dtype=dtype).reshape(bsz, 1, 1, src_len))
        bias = pad_t if bias is None else add(bias, pad_t)
    scores = mul(matmul(q, transpose(k, -2, -1)), 1.0 / math.sqrt(head_dim))
    if bias is not None:
        scores = add(scores, bias)
    weights = softmax(scores, -1)
    attn = dropout(weights, m.dropout, m.training) if m.dropout > 0.0 else weights
    out = matmul(attn, v)  # (N, heads, L, head_dim)
    out = reshape(permute(out, (2, 0, 1, 3)), (tgt_len, bsz, embed))
    out = linear(out, m.out_proj.weight, m.out_proj.bias)
    if m.batch_first and batched:
        out = transpose(out, 0, 1)
    if not batched:
        out = squeeze(out, 1)
    if not need_weights:
        return out, None
    w = mean(attn, 1) if average_attn_weights else attn
    if not batched:
        w = squeeze(w, 0)
    return out, w


def _pad_last(mask: Tensor) -> Tensor:
    """A mask with one more (unmasked) key position at the end."""
    a = mask._data
    fill = False if a.dtype == np.bool_ else 0
    return wrap(np.concatenate([a, np.full(a.shape[:-1] + (1,), fill, dtype=a.dtype)], -1))
