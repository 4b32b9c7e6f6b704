"""Attention: ``scaled_dot_product_attention`` and ``multi_head_attention_forward`` (``nn.MultiheadAttention``'s)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._registry import NN_FUNCTIONAL, TENSORLIB, op
from .._tensor import Tensor
from ..ops._util import tensor_arg, wrap
from ..ops.activation import softmax
from ..ops.arithmetic import add, mul
from ..ops.broadcast import expand
from ..ops.indexing import repeat_interleave
from ..ops.join_split import cat, chunk, split
from ..ops.linalg import matmul
from ..ops.reduction import mean
from ..ops.shape import contiguous, permute, reshape, squeeze, transpose, unsqueeze
from ._functional import dropout, linear


def _mask_as_bias(mask: Tensor, dtype: Any) -> Tensor:
    """A boolean mask (True = may attend) as an additive bias of 0 / -inf; float masks are biases already."""
    if mask._data.dtype == np.bool_:
        return wrap(np.where(mask._data, 0.0, -np.inf).astype(dtype))
    return mask


@op(namespace=(NN_FUNCTIONAL, TENSORLIB))
def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None = None,
                                 dropout_p: float = 0.0, is_causal: bool = False, *, scale: float | None = None,
                                 enable_gqa: bool = False) -> Tensor:
    """``softmax(query @ key^T * scale + mask) @ value`` over the last two dims (batch dims broadcast).

    A boolean ``attn_mask`` marks the positions that may be attended; a float one is added to the scores.
    ``is_causal`` masks out the future (the upper triangle).
    """
    q = tensor_arg(query, "scaled_dot_product_attention", "query")
    k = tensor_arg(key, "scaled_dot_product_attention", "key", 2)
    v = tensor_arg(value, "scaled_dot_product_attention", "value", 3)
    if min(q.dim(), k.dim(), v.dim()) < 2:
        raise RuntimeError("Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: "
                           f"{q.dim()} key.dim: {k.dim()} and value.dim: {v.dim()} instead.")
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
    if enable_gqa and q.dim() >= 3 and k.shape[-3] != q.shape[-3]:
        rep = q.shape[-3] // k.shape[-3]
        k = repeat_interleave(k, rep, -3)
        v = repeat_interleave(v, rep, -3)
    L_, S_ = q.shape[-2], k.shape[-2]
    # with no features every score is an empty sum (0), whatever the scale
    factor = (1.0 / math.sqrt(q.shape[-1]) if q.shape[-1] else 1.0) if scale is None else scale
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


@op(namespace=NN_FUNCTIONAL)
def multi_head_attention_forward(
    query: Tensor, key: Tensor, value: Tensor, embed_dim_to_check: int, num_heads: int,
    in_proj_weight: Tensor | None, in_proj_bias: Tensor | None, bias_k: Tensor | None, bias_v: Tensor | None,
    add_zero_attn: bool, dropout_p: float, out_proj_weight: Tensor, out_proj_bias: Tensor | None,
    training: bool = True, key_padding_mask: Tensor | None = None, need_weights: bool = True,
    attn_mask: Tensor | None = None, use_separate_proj_weight: bool = False, q_proj_weight: Tensor | None = None,
    k_proj_weight: Tensor | None = None, v_proj_weight: Tensor | None = None, static_k: Tensor | None = None,
    static_v: Tensor | None = None, average_attn_weights: bool = True, is_causal: bool = False,
) -> tuple[Tensor, Tensor | None]:
    """Multi-head attention of ``(L, N, E)`` queries over ``(S, N, E)`` keys and values (or unbatched ``(L, E)``).

    The forward of ``nn.MultiheadAttention``: input projections (one packed
    ``in_proj_weight``, or three with ``use_separate_proj_weight``), optional
    ``bias_k``/``bias_v`` rows and a zero key/value, scaled dot-product attention
    per head, then the output projection. Boolean masks mark with True what may
    not be attended. ``static_k``/``static_v`` (``(N * num_heads, S, E / num_heads)``)
    replace the projected keys and values. Returns ``(output, weights)``, the
    weights averaged over heads unless ``average_attn_weights=False`` (None
    without ``need_weights``).
    """
    fname = "multi_head_attention_forward"
    query = tensor_arg(query, fname, "query")
    key = tensor_arg(key, fname, "key", 2)
    value = tensor_arg(value, fname, "value", 3)
    batched = _check_shapes(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not batched:
        query, key, value = (unsqueeze(t, 1) for t in (query, key, value))
        if key_padding_mask is not None:
            key_padding_mask = unsqueeze(key_padding_mask, 0)
    tgt_len, bsz, embed = query.shape
    if embed != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed}")
    head_dim = embed // num_heads
    if head_dim * num_heads != embed:
        raise AssertionError(f"embed_dim {embed} not divisible by num_heads {num_heads}")
    if is_causal and attn_mask is None:
        raise RuntimeError(
            "Need attn_mask if specifying the is_causal hint. You may use the Transformer module method "
            "`generate_square_subsequent_mask` to create this mask."
        )
    if use_separate_proj_weight:
        if q_proj_weight is None or k_proj_weight is None or v_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is True but q_proj_weight, k_proj_weight or "
                                 "v_proj_weight is None")
        w_q, w_k, w_v = q_proj_weight, k_proj_weight, v_proj_weight
        b_q = b_k = b_v = None
        if in_proj_bias is not None:
            b_q, b_k, b_v = chunk(in_proj_bias, 3)
        q, k, v = linear(query, w_q, b_q), linear(key, w_k, b_k), linear(value, w_v, b_v)
    else:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    if bias_k is not None and bias_v is not None:
        if static_k is not None or static_v is not None:
            raise AssertionError("bias cannot be added to static key or value.")
        k = cat([k, expand(bias_k, (1, bsz, embed))])
        v = cat([v, expand(bias_v, (1, bsz, embed))])
        if attn_mask is not None:
            attn_mask = _pad_last(attn_mask)
        if key_padding_mask is not None:
            key_padding_mask = _pad_last(key_padding_mask)
    elif (bias_k is None) != (bias_v is None):
        raise AssertionError("bias_k and bias_v must both be given or both be None")

    def split_heads(t: Tensor, static: Tensor | None) -> Tensor:  # -> (N, heads, len, head_dim)
        if static is not None:
            static = tensor_arg(static, fname, "static_k/static_v")
            if tuple(static.shape[::2]) != (bsz * num_heads, head_dim):
                raise AssertionError(f"expecting static key/value of shape ({bsz * num_heads}, S, {head_dim}), "
                                     f"but got {tuple(static.shape)}")
            return reshape(static, (bsz, num_heads, static.shape[1], head_dim))
        return permute(reshape(t, (t.shape[0], bsz, num_heads, head_dim)), (1, 2, 0, 3))

    q, k, v = split_heads(q, None), split_heads(k, static_k), split_heads(v, static_v)
    if add_zero_attn:
        zeros = wrap(np.zeros((bsz, num_heads, 1, head_dim), dtype=k._data.dtype))
        k, v = cat([k, zeros], 2), cat([v, zeros], 2)
        if attn_mask is not None:
            attn_mask = _pad_last(attn_mask)
        if key_padding_mask is not None:
            key_padding_mask = _pad_last(key_padding_mask)
    src_len = k.shape[2]
    dtype = q._data.dtype
    bias = None
    if attn_mask is not None:
        a = attn_mask._data
        # True means "may not attend" here (the opposite of scaled_dot_product_attention's boolean masks)
        am = wrap(np.where(a, -np.inf, 0.0).astype(dtype)) if a.dtype == np.bool_ else attn_mask
        if am.dim() == 3:  # (N * heads, L, S)
            am = reshape(am, (bsz, num_heads, tgt_len, src_len))
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
    attn = dropout(weights, dropout_p, training) if dropout_p > 0.0 and training else weights
    out = matmul(attn, v)  # (N, heads, L, head_dim)
    out = reshape(permute(out, (2, 0, 1, 3)), (tgt_len, bsz, embed))
    out = linear(out, out_proj_weight, out_proj_bias)
    if not batched:
        out = squeeze(out, 1)
    if not need_weights:
        return out, None
    w = mean(attn, 1) if average_attn_weights else attn
    if not batched:
        w = squeeze(w, 0)
    return out, w


def _in_projection_packed(query: Tensor, key: Tensor, value: Tensor, w: Tensor,
                          b: Tensor | None) -> tuple[Tensor, Tensor, Tensor]:
    """The three input projections with the packed weight, as torch computes them: self-attention (one tensor
    three times) is one product with the whole weight, then split; attention over one tensor of keys and values
    projects them together; otherwise each projection is its own product."""
    e = query.shape[-1]
    if key is value:
        if query is key:
            qkv = _split_last(linear(query, w, b), 3, e)
            return qkv[0], qkv[1], qkv[2]
        w_q, w_kv = split(w, [e, 2 * e])
        b_q, b_kv = (None, None) if b is None else split(b, [e, 2 * e])
        kv = _split_last(linear(key, w_kv, b_kv), 2, e)
        return linear(query, w_q, b_q), kv[0], kv[1]
    w_q, w_k, w_v = chunk(w, 3)
    b_q, b_k, b_v = (None, None, None) if b is None else chunk(b, 3)
    return linear(query, w_q, b_q), linear(key, w_k, b_k), linear(value, w_v, b_v)


def _split_last(t: Tensor, parts: int, e: int) -> Tensor:
    """``(..., parts * e) -> (parts, ..., e)``, each part contiguous."""
    shape = tuple(t.shape[:-1])
    moved = permute(reshape(t, shape + (parts, e)), (len(shape),) + tuple(range(len(shape))) + (len(shape) + 1,))
    return contiguous(moved)


def _check_shapes(query: Tensor, key: Tensor, value: Tensor, key_padding_mask: Tensor | None,
                  attn_mask: Tensor | None, num_heads: int) -> bool:
    """Whether the inputs are batched (3-D) or unbatched (2-D); any other combination is torch's AssertionError."""
    if query.dim() == 3:
        if key.dim() != 3 or value.dim() != 3:
            raise AssertionError("For batched (3-D) `query`, expected `key` and `value` to be 3-D but found "
                                 f"{key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError("For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but "
                                 f"found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError("For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but "
                                 f"found {attn_mask.dim()}-D tensor instead")
        return True
    if query.dim() == 2:
        if key.dim() != 2 or value.dim() != 2:
            raise AssertionError("For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found "
                                 f"{key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError("For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D but "
                                 f"found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError("For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but "
                                     f"found {attn_mask.dim()}-D tensor instead")
            if attn_mask.dim() == 3:
                expected = (num_heads, query.shape[0], key.shape[0])
                if tuple(attn_mask.shape) != expected:
                    raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got {tuple(attn_mask.shape)}")
        return False
    raise AssertionError(
        f"query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D query tensor"
    )


def _pad_last(mask: Tensor) -> Tensor:
    """A mask with one more (unmasked) key position at the end."""
    a = mask._data
    fill = False if a.dtype == np.bool_ else 0
    return wrap(np.concatenate([a, np.full(a.shape[:-1] + (1,), fill, dtype=a.dtype)], -1))
