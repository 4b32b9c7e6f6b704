"""Recurrent layers: RNN, LSTM, GRU (multi-layer, bidirectional) and their single-step cells.

Gates are computed with tensorlib's differentiable ops; the input projection of
a whole sequence is one matrix product, the recurrence a loop over time steps.
"""

from __future__ import annotations

import math
import numbers
import warnings
from typing import Any

import numpy as np

from ... import _VF
from ..._tensor import Tensor
from ...ops.creation import empty, zeros
from ...ops.indexing import index_select
from ...ops.shape import squeeze, unsqueeze
from .. import _init as init
from .._rnn import recurrence
from ..parameter import Parameter
from ..utils.rnn import PackedSequence, pack_padded_sequence, pad_packed_sequence
from .module import Module

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _tensor_like(x: Any) -> bool:
    """A Tensor, or an object whose type implements ``__torch_function__`` (its handler gets the calls)."""
    return isinstance(x, Tensor) or hasattr(type(x), "__torch_function__")


class RNNBase(Module):
    """The shared machinery of :class:`RNN`, :class:`LSTM` and :class:`GRU`."""

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, proj_size: int = 0,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        if not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1 or isinstance(dropout, bool):
            raise ValueError(
                "dropout should be a number in range [0, 1] representing the probability of an element being zeroed"
            )
        if dropout > 0 and num_layers == 1:
            warnings.warn(
                "dropout option adds dropout after all but last recurrent layer, so non-zero dropout expects "
                f"num_layers greater than 1, but got dropout={dropout} and num_layers={num_layers}",
                UserWarning,
                stacklevel=3,
            )
        if not isinstance(hidden_size, int) or isinstance(hidden_size, bool):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if proj_size and mode != "LSTM":
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        directions = 2 if bidirectional else 1
        real_hidden = proj_size if proj_size > 0 else hidden_size
        gate_size = _GATES[mode] * hidden_size
        self._flat_weights_names: list[str] = []
        for layer in range(num_layers):
            for direction in range(directions):
                layer_input = input_size if layer == 0 else real_hidden * directions
                suffix = f"_l{layer}" + ("_reverse" if direction == 1 else "")
                params: list[tuple[str, tuple[int, ...]]] = [
                    ("weight_ih", (gate_size, layer_input)), ("weight_hh", (gate_size, real_hidden))
                ]
                if bias:
                    params += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                if proj_size > 0:
                    params.append(("weight_hr", (proj_size, hidden_size)))
                for name, shape in params:
                    setattr(self, name + suffix, Parameter(empty(*shape, dtype=dtype)))
                    self._flat_weights_names.append(name + suffix)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Every weight and bias uniform in ``[-1/sqrt(hidden_size), 1/sqrt(hidden_size)]``."""
        bound = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for w in self.parameters():
            init.uniform_(w, -bound, bound)

    def flatten_parameters(self) -> None:
        """Kept for compatibility (a cuDNN memory layout in torch): nothing to do on the CPU."""

    @property
    def all_weights(self) -> list:
        names = self._flat_weights_names
        per = len(names) // (self.num_layers * (2 if self.bidirectional else 1))
        return [[getattr(self, n) for n in names[i:i + per]] for i in range(0, len(names), per)]

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    def _weights(self, layer: int, direction: int) -> tuple:
        suffix = f"_l{layer}" + ("_reverse" if direction == 1 else "")
        get = self.__dict__["_parameters"].get
        return (get("weight_ih" + suffix), get("weight_hh" + suffix), get("bias_ih" + suffix),
                get("bias_hh" + suffix), get("weight_hr" + suffix))

    def _initial(self, hx: Any, batch: int, size: int, dtype: Any, batched: bool, what: str) -> Any:
        """The initial state ``hx`` checked and made 3-D (zeros when None); a tensor-like is kept as it is."""
        directions = 2 if self.bidirectional else 1
        expected = (self.num_layers * directions, batch, size)
        if hx is None:
            return zeros(*expected, dtype=dtype)
        if not _tensor_like(hx):
            raise TypeError(f"{type(self).__name__}: expected {what} to be a Tensor, got {type(hx).__name__}")
        if batched and hx.dim() != 3:
            raise RuntimeError(
                f"For batched 3-D input, {what} should also be 3-D but got {hx.dim()}-D tensor"
            )
        if not batched and hx.dim() != 2:
            raise RuntimeError(
                f"For unbatched 2-D input, {what} should also be 2-D but got {hx.dim()}-D tensor"
            )
        h = hx if batched else hx.unsqueeze(1)
        if tuple(h.size()) != expected:
            raise RuntimeError(f"Expected hidden size {expected}, got {list(hx.size())}")
        return h

    def _run(self, x: Tensor, h0: Tensor, c0: Tensor | None, lengths: Any = None) -> tuple:
        """The stacked recurrence over ``x`` ``(T, N, H_in)`` (see :func:`tensorlib.nn._rnn.recurrence`)."""
        directions = 2 if self.bidirectional else 1
        weights = [self._weights(layer, direction) for layer in range(self.num_layers) for direction in range(directions)]
        return recurrence(self.mode, x, h0, c0, weights, self.num_layers, self.bidirectional, self.dropout,
                          self.training, lengths)

    def _forward_packed(self, packed: Any, hx: Any) -> tuple:
        sizes = packed.batch_sizes._data.astype(np.int64)
        padded, _ = pad_packed_sequence(PackedSequence(packed.data, packed.batch_sizes))
        lengths = (sizes[None, :] > np.arange(padded.shape[1])[:, None]).sum(1)  # sorted, longest first
        order, restore = packed.sorted_indices, packed.unsorted_indices

        def to_sorted(h: Any) -> Any:
            return h if h is None or order is None else index_select(h, 1, order)

        def to_original(h: Any) -> Any:
            return h if h is None or restore is None else index_select(h, 1, restore)

        if padded.shape[-1] != self.input_size:
            raise RuntimeError(
                f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got {padded.shape[-1]}"
            )
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        batch = padded.shape[1]
        if self.mode == "LSTM":
            h0 = self._initial(None if hx is None else to_sorted(hx[0]), batch, real_hidden, padded.dtype, True,
                               "hx[0]")
            c0 = self._initial(None if hx is None else to_sorted(hx[1]), batch, self.hidden_size, padded.dtype,
                               True, "hx[1]")
        else:
            h0 = self._initial(to_sorted(hx), batch, real_hidden, padded.dtype, True, "hx")
            c0 = None
        out, h_n, c_n = self._run(padded, h0, c0, lengths)
        data = pack_padded_sequence(out, lengths).data
        result = PackedSequence(data, packed.batch_sizes, packed.sorted_indices, packed.unsorted_indices)
        if self.mode == "LSTM":
            return result, (to_original(h_n), to_original(c_n))
        return result, to_original(h_n)

    def forward(self, input: Tensor, hx: Any = None) -> tuple:
        if isinstance(input, PackedSequence):
            return self._forward_packed(input, hx)
        # As torch: the whole sequence goes to the overridable function of the mode (tensorlib.rnn_tanh, ...),
        # so that a tensor-like input (one whose type has __torch_function__) reaches its handler there.
        if not _tensor_like(input):
            raise TypeError(f"{type(self).__name__}: expected a Tensor as input, got {type(input).__name__}")
        dim = input.dim()
        if dim not in (2, 3):
            raise ValueError(f"{type(self).__name__}: Expected input to be 2D or 3D, got {dim}D tensor instead")
        if input.size(-1) != self.input_size:
            raise RuntimeError(
                f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got {input.size(-1)}"
            )
        batched = dim == 3
        batch_dim = 0 if self.batch_first else 1
        if not batched:
            input = input.unsqueeze(batch_dim)
        batch: int = input.size(batch_dim)  # type: ignore[assignment]  # an int (the input may be a tensor-like)
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        weights = [self.__dict__["_parameters"][name] for name in self._flat_weights_names]
        args = (weights, self.bias, self.num_layers, self.dropout, self.training, self.bidirectional, self.batch_first)
        if self.mode == "LSTM":
            if hx is not None and not (isinstance(hx, (tuple, list)) and len(hx) == 2):
                raise RuntimeError("LSTM expects hx to be a tuple (h_0, c_0)")
            h0 = self._initial(None if hx is None else hx[0], batch, real_hidden, input.dtype, batched, "hx[0]")
            c0 = self._initial(None if hx is None else hx[1], batch, self.hidden_size, input.dtype, batched, "hx[1]")
            out, h_n, c_n = _VF.lstm(input, (h0, c0), *args)
            if not batched:
                return out.squeeze(batch_dim), (h_n.squeeze(1), c_n.squeeze(1))
            return out, (h_n, c_n)
        h0 = self._initial(hx, batch, real_hidden, input.dtype, batched, "hx")
        func = _VF.gru if self.mode == "GRU" else _VF.rnn_tanh if self.mode == "RNN_TANH" else _VF.rnn_relu
        out, h_n = func(input, h0, *args)
        if not batched:
            return out.squeeze(batch_dim), h_n.squeeze(1)
        return out, h_n


class RNN(RNNBase):
    """Elman RNN: ``h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)`` (or ReLU), stacked and optionally
    bidirectional. Returns ``(output, h_n)``."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, nonlinearity: str = "tanh",
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 device: Any = None, dtype: Any = None) -> None:
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        self.nonlinearity = nonlinearity
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", input_size, hidden_size, num_layers,
                         bias, batch_first, dropout, bidirectional, 0, device, dtype)


class LSTM(RNNBase):
    """Long short-term memory layers. Returns ``(output, (h_n, c_n))``."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, proj_size: int = 0,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         proj_size, device, dtype)


class GRU(RNNBase):
    """Gated recurrent unit layers. Returns ``(output, h_n)``."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional, 0,
                         device, dtype)


class RNNCellBase(Module):
    """The shared machinery of the single-step cells."""

    _mode = "RNN_TANH"

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(empty(num_chunks * hidden_size, input_size, dtype=dtype))
        self.weight_hh = Parameter(empty(num_chunks * hidden_size, hidden_size, dtype=dtype))
        if bias:
            self.bias_ih = Parameter(empty(num_chunks * hidden_size, dtype=dtype))
            self.bias_hh = Parameter(empty(num_chunks * hidden_size, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        bound = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for w in self.parameters():
            init.uniform_(w, -bound, bound)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def _prepare(self, input: Any, hx: Any) -> tuple:
        if not isinstance(input, Tensor):
            raise TypeError(f"{type(self).__name__}: expected a Tensor as input, got {type(input).__name__}")
        if input.dim() not in (1, 2):
            raise ValueError(
                f"{type(self).__name__}: Expected input to be 1D or 2D, got {input.dim()}D instead"
            )
        if input.shape[-1] != self.input_size:
            raise RuntimeError(
                f"input has inconsistent input_size: got {input.shape[-1]} expected {self.input_size}"
            )
        batched = input.dim() == 2
        x = input if batched else unsqueeze(input, 0)
        return x, batched

    def _hidden(self, h: Any, x: Tensor, batched: bool) -> Tensor:
        if h is None:
            return zeros(x.shape[0], self.hidden_size, dtype=x.dtype)
        h = h if batched else unsqueeze(h, 0)
        if tuple(h.shape) != (x.shape[0], self.hidden_size):
            raise RuntimeError(
                f"Expected hidden size {(x.shape[0], self.hidden_size)}, got {list(h.shape)}"
            )
        return h


class RNNCell(RNNCellBase):
    """One Elman RNN step: ``h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)`` (or ReLU)."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, nonlinearity: str = "tanh",
                 device: Any = None, dtype: Any = None) -> None:
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity: {nonlinearity}")
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        x, batched = self._prepare(input, hx)
        h = self._hidden(hx, x, batched)
        cell = _VF.rnn_tanh_cell if self.nonlinearity == "tanh" else _VF.rnn_relu_cell
        out = cell(x, h, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return out if batched else squeeze(out, 0)


class LSTMCell(RNNCellBase):
    """One LSTM step; returns ``(h', c')``."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input: Tensor, hx: Any = None) -> tuple:
        x, batched = self._prepare(input, hx)
        h = self._hidden(None if hx is None else hx[0], x, batched)
        c = self._hidden(None if hx is None else hx[1], x, batched)
        h2, c2 = _VF.lstm_cell(x, (h, c), self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        if not batched:
            return squeeze(h2, 0), squeeze(c2, 0)
        return h2, c2


class GRUCell(RNNCellBase):
    """One GRU step."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        x, batched = self._prepare(input, hx)
        h = self._hidden(hx, x, batched)
        out = _VF.gru_cell(x, h, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return out if batched else squeeze(out, 0)
