"""Attention and Transformer layers: MultiheadAttention, Transformer{Encoder,Decoder}[Layer], Transformer."""

from __future__ import annotations

import copy
from typing import Any, Callable

import numpy as np

from ..._tensor import Tensor, _wrap
from ...ops.arithmetic import add
from ...ops.creation import empty
from .. import _init as init, functional
from ..parameter import Parameter
from .container import ModuleList
from .linear import Linear
from .misc import Dropout, LayerNorm
from .module import Module


class NonDynamicallyQuantizableLinear(Linear):
    """A Linear layer (torch's name for the output projection of MultiheadAttention)."""


class MultiheadAttention(Module):
    """Attention over ``num_heads`` heads of ``embed_dim // num_heads`` features each.

    ``forward(query, key, value)`` takes ``(L, N, E)`` inputs (``(N, L, E)`` with
    ``batch_first``, or unbatched ``(L, E)``) and returns ``(output, weights)``;
    the weights are averaged over heads unless ``average_attn_weights=False``.
    """

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True,
                 add_bias_kv: bool = False, add_zero_attn: bool = False, kdim: int | None = None,
                 vdim: int | None = None, batch_first: bool = False, device: Any = None, dtype: Any = None) -> None:
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(
                f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and num_heads={num_heads} "
                "instead"
            )
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(empty(3 * embed_dim, embed_dim, dtype=dtype))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        else:
            self.q_proj_weight = Parameter(empty(embed_dim, embed_dim, dtype=dtype))
            self.k_proj_weight = Parameter(empty(embed_dim, self.kdim, dtype=dtype))
            self.v_proj_weight = Parameter(empty(embed_dim, self.vdim, dtype=dtype))
            self.register_parameter("in_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(empty(3 * embed_dim, dtype=dtype))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, dtype=dtype)
        self.bias_k: Parameter | None
        self.bias_v: Parameter | None
        if add_bias_kv:
            self.bias_k = Parameter(empty(1, 1, embed_dim, dtype=dtype))
            self.bias_v = Parameter(empty(1, 1, embed_dim, dtype=dtype))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def forward(self, query: Tensor, key: Tensor, value: Tensor, key_padding_mask: Tensor | None = None,
                need_weights: bool = True, attn_mask: Tensor | None = None, average_attn_weights: bool = True,
                is_causal: bool = False) -> tuple:
        """Attend from ``query`` over ``key``/``value``: returns ``(output, weights)`` (weights None without need_weights).

        Tensor-likes reach :func:`tensorlib.nn.functional.multi_head_attention_forward`'s handlers, as in torch.
        """
        batched = query.dim() == 3
        if self.batch_first and batched:
            # the same tensor stays the same tensor (self-attention passes x three times)
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query, key = (x.transpose(1, 0) for x in (query, key))
                    value = key
            else:
                query, key, value = (x.transpose(1, 0) for x in (query, key, value))
        out, weights = functional.multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight, self.in_proj_bias,
            self.bias_k, self.bias_v, self.add_zero_attn, self.dropout, self.out_proj.weight, self.out_proj.bias,
            training=self.training, key_padding_mask=key_padding_mask, need_weights=need_weights,
            attn_mask=attn_mask, use_separate_proj_weight=not self._qkv_same_embed_dim,
            q_proj_weight=self.q_proj_weight, k_proj_weight=self.k_proj_weight, v_proj_weight=self.v_proj_weight,
            average_attn_weights=average_attn_weights, is_causal=is_causal,
        )
        if self.batch_first and batched:
            return out.transpose(1, 0), weights
        return out, weights


def _activation(activation: Any) -> Any:
    if isinstance(activation, str):
        if activation == "relu":
            return functional.relu
        if activation == "gelu":
            return functional.gelu
        raise RuntimeError(f"activation should be relu/gelu, not {activation}")
    return activation


class TransformerEncoderLayer(Module):
    """Self-attention then a feed-forward block, each with dropout, a residual connection and LayerNorm
    (applied after, or before with ``norm_first``)."""

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: str | Callable = "relu", layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first,
                                            dtype=dtype)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, dtype=dtype)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, dtype=dtype)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.activation = _activation(activation)

    def _sa_block(self, x: Tensor, mask: Any, key_padding_mask: Any, is_causal: bool) -> Tensor:
        out = self.self_attn(x, x, x, attn_mask=mask, key_padding_mask=key_padding_mask, need_weights=False,
                             is_causal=is_causal)[0]
        return self.dropout1(out)

    def _ff_block(self, x: Tensor) -> Tensor:
        return self.dropout2(self.linear2(self.dropout(self.activation(self.linear1(x)))))

    def forward(self, src: Tensor, src_mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None,
                is_causal: bool = False) -> Tensor:
        x = src
        if self.norm_first:
            x = add(x, self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal))
            x = add(x, self._ff_block(self.norm2(x)))
        else:
            x = self.norm1(add(x, self._sa_block(x, src_mask, src_key_padding_mask, is_causal)))
            x = self.norm2(add(x, self._ff_block(x)))
        return x


class TransformerDecoderLayer(Module):
    """Self-attention, attention over the encoder's memory, then a feed-forward block (each with dropout,
    a residual connection and LayerNorm)."""

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: str | Callable = "relu", layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first, bias=bias,
                                            dtype=dtype)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first, bias=bias,
                                                 dtype=dtype)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, dtype=dtype)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, dtype=dtype)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.norm3 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.dropout3 = Dropout(dropout)
        self.activation = _activation(activation)

    def _sa_block(self, x: Tensor, mask: Any, kpm: Any, is_causal: bool) -> Tensor:
        out = self.self_attn(x, x, x, attn_mask=mask, key_padding_mask=kpm, need_weights=False,
                             is_causal=is_causal)[0]
        return self.dropout1(out)

    def _mha_block(self, x: Tensor, mem: Tensor, mask: Any, kpm: Any, is_causal: bool) -> Tensor:
        out = self.multihead_attn(x, mem, mem, attn_mask=mask, key_padding_mask=kpm, need_weights=False,
                                  is_causal=is_causal)[0]
        return self.dropout2(out)

    def _ff_block(self, x: Tensor) -> Tensor:
        return self.dropout3(self.linear2(self.dropout(self.activation(self.linear1(x)))))

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None, memory_mask: Tensor | None = None,
                tgt_key_padding_mask: Tensor | None = None, memory_key_padding_mask: Tensor | None = None,
                tgt_is_causal: bool = False, memory_is_causal: bool = False) -> Tensor:
        x = tgt
        if self.norm_first:
            x = add(x, self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal))
            x = add(x, self._mha_block(self.norm2(x), memory, memory_mask, memory_key_padding_mask,
                                         memory_is_causal))
            x = add(x, self._ff_block(self.norm3(x)))
        else:
            x = self.norm1(add(x, self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal)))
            x = self.norm2(add(x, self._mha_block(x, memory, memory_mask, memory_key_padding_mask,
                                                    memory_is_causal)))
            x = self.norm3(add(x, self._ff_block(x)))
        return x


class TransformerEncoder(Module):
    """``num_layers`` copies of ``encoder_layer`` applied in turn, then an optional final ``norm``."""

    def __init__(self, encoder_layer: TransformerEncoderLayer, num_layers: int, norm: Module | None = None,
                 enable_nested_tensor: bool = True, mask_check: bool = True) -> None:
        super().__init__()
        self.layers = ModuleList([copy.deepcopy(encoder_layer) for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, src: Tensor, mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None,
                is_causal: bool | None = None) -> Tensor:
        x = src
        for layer in self.layers:
            x = layer(x, src_mask=mask, src_key_padding_mask=src_key_padding_mask, is_causal=bool(is_causal))
        return self.norm(x) if self.norm is not None else x


class TransformerDecoder(Module):
    """``num_layers`` copies of ``decoder_layer`` applied in turn, then an optional final ``norm``."""

    def __init__(self, decoder_layer: TransformerDecoderLayer, num_layers: int, norm: Module | None = None) -> None:
        super().__init__()
        self.layers = ModuleList([copy.deepcopy(decoder_layer) for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None, memory_mask: Tensor | None = None,
                tgt_key_padding_mask: Tensor | None = None, memory_key_padding_mask: Tensor | None = None,
                tgt_is_causal: bool | None = None, memory_is_causal: bool = False) -> Tensor:
        x = tgt
        for layer in self.layers:
            x = layer(x, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                      tgt_key_padding_mask=tgt_key_padding_mask, memory_key_padding_mask=memory_key_padding_mask,
                      tgt_is_causal=bool(tgt_is_causal), memory_is_causal=memory_is_causal)
        return self.norm(x) if self.norm is not None else x


class Transformer(Module):
    """An encoder-decoder Transformer ("Attention Is All You Need"), built from the layers above."""

    def __init__(self, d_model: int = 512, nhead: int = 8, num_encoder_layers: int = 6, num_decoder_layers: int = 6,
                 dim_feedforward: int = 2048, dropout: float = 0.1, activation: str | Callable = "relu",
                 custom_encoder: Any = None, custom_decoder: Any = None, layer_norm_eps: float = 1e-5,
                 batch_first: bool = False, norm_first: bool = False, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            encoder_layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout, activation,
                                                    layer_norm_eps, batch_first, norm_first, bias, dtype=dtype)
            self.encoder = TransformerEncoder(encoder_layer, num_encoder_layers,
                                              LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            decoder_layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout, activation,
                                                    layer_norm_eps, batch_first, norm_first, bias, dtype=dtype)
            self.decoder = TransformerDecoder(decoder_layer, num_decoder_layers,
                                              LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype))
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first
        for p in self.parameters():
            if p.dim() > 1:
                init.xavier_uniform_(p)

    def forward(self, src: Tensor, tgt: Tensor, src_mask: Tensor | None = None, tgt_mask: Tensor | None = None,
                memory_mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None,
                tgt_key_padding_mask: Tensor | None = None, memory_key_padding_mask: Tensor | None = None,
                src_is_causal: bool | None = None, tgt_is_causal: bool | None = None,
                memory_is_causal: bool = False) -> Tensor:
        batch_dim = 0 if self.batch_first else 1
        if src.dim() == 3 and tgt.dim() == 3 and src.shape[batch_dim] != tgt.shape[batch_dim]:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask, is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask, tgt_is_causal=tgt_is_causal,
                            memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz: int, device: Any = None, dtype: Any = None) -> Tensor:
        """A float mask hiding future positions: ``-inf`` above the diagonal, 0 elsewhere."""
        npdt = dtype.np if dtype is not None else np.float32
        return _wrap(np.triu(np.full((sz, sz), -np.inf, dtype=npdt), 1))
