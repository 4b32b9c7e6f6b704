"""nn.RNN / LSTM / GRU hand a tensor-like input to the overridable recurrence (``rnn_tanh``, ``rnn_relu``, ``lstm``,
``gru``: torch's ``_VF`` functions), as torch's layers do (gh-55868).

Each test runs against tensorlib and (when installed) torch.
"""

from __future__ import annotations

import pytest

from tests.parity.torch_function.libraries import TORCH_PLAIN_METHOD_WARNING

pytestmark = [
    pytest.mark.filterwarnings(TORCH_PLAIN_METHOD_WARNING),
    pytest.mark.filterwarnings("ignore:LSTM with projections is not supported with oneDNN"),
]

RECURRENCES = {"rnn_tanh", "rnn_relu", "lstm", "gru"}


def wrapper_class(api):
    """A data container that unwraps itself for every call and logs the functions it reaches."""

    def unwrap(v):
        if isinstance(v, (tuple, list)):
            return type(v)(unwrap(x) for x in v)
        return v._data if isinstance(v, Wrapper) else v

    def wrap(v):
        if isinstance(v, (tuple, list)):
            return type(v)(wrap(x) for x in v)
        return Wrapper(v) if isinstance(v, api.Tensor) else v

    class Wrapper:
        calls: list = []

        def __init__(self, data):
            self._data = data

        def __getattr__(self, name):
            val = getattr(self._data, name)
            if callable(val) and not isinstance(val, (api.lib.dtype, api.lib.device)):
                method = getattr(type(self._data), name)
                return lambda *a, **kw: self.__torch_function__(method, (Wrapper,), (self, *a), kw)
            return wrap(val)

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            cls.calls.append((func.__name__, len(args), sorted(kwargs)))
            if func.__name__ in RECURRENCES:
                assert func is getattr(api.lib, func.__name__) is getattr(api.lib._VF, func.__name__)
            return wrap(func(*unwrap(args), **unwrap(kwargs)))

    Wrapper.calls = []
    return Wrapper


@pytest.mark.parametrize(
    "layer, kwargs, expected",
    [
        ("RNN", {}, "rnn_tanh"),
        ("RNN", {"nonlinearity": "relu", "num_layers": 2}, "rnn_relu"),
        ("LSTM", {"bidirectional": True}, "lstm"),
        ("LSTM", {"proj_size": 2, "batch_first": True}, "lstm"),
        ("GRU", {"batch_first": True}, "gru"),
    ],
)
@pytest.mark.parametrize("batched", [True, False])
def test_layer_reaches_recurrence(api, layer, kwargs, expected, batched):
    api.lib.manual_seed(0)
    module = getattr(api.lib.nn, layer)(3, 4, **kwargs)
    x = api.lib.randn(2, 5, 3) if batched else api.lib.randn(5, 3)
    Wrapper = wrapper_class(api)
    result = module(Wrapper(x))
    reached = [c for c in Wrapper.calls if c[0] in RECURRENCES]
    # the input, the initial state, the weights and six options, all positional
    assert reached == [(expected, 9, [])]
    out = result[0]
    assert isinstance(out, Wrapper)
    plain = module(x)[0]
    assert tuple(out._data.shape) == tuple(plain.shape)
    assert api.lib.allclose(out._data, plain)


def test_recurrence_functions_direct(api):
    """The functions themselves, called with a plain tensor, return torch's tuples."""
    api.lib.manual_seed(0)
    lstm = api.lib.nn.LSTM(3, 4, num_layers=2)
    x, h0, c0 = api.lib.randn(5, 2, 3), api.lib.zeros(2, 2, 4), api.lib.zeros(2, 2, 4)
    weights = [p for _, p in lstm.named_parameters()]
    res = api.lib.lstm(x, (h0, c0), weights, True, 2, 0.0, False, False, False)
    assert isinstance(res, tuple) and len(res) == 3
    out, (h_n, c_n) = lstm(x, (h0, c0))
    assert api.lib.allclose(res[0], out) and api.lib.allclose(res[1], h_n) and api.lib.allclose(res[2], c_n)
    gru = api.lib.nn.GRU(3, 4)
    res = api.lib.gru(x, h0[:1], [p for _, p in gru.named_parameters()], True, 1, 0.0, False, False, False)
    assert isinstance(res, tuple) and len(res) == 2
