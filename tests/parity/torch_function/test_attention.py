"""nn.MultiheadAttention hands tensor-likes to the overridable ``nn.functional.multi_head_attention_forward``,
as torch's layer does, and the function itself equals torch's on every option.

Each test runs against tensorlib and (when installed) torch.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.parity.torch_function.libraries import TORCH_PLAIN_METHOD_WARNING
from tests.parity.torch_function.test_rnn import wrapper_class

pytestmark = pytest.mark.filterwarnings(TORCH_PLAIN_METHOD_WARNING)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("batched", [True, False])
def test_layer_reaches_multi_head_attention_forward(api, batch_first, batched):
    api.lib.manual_seed(0)
    mha = api.lib.nn.MultiheadAttention(4, 2, batch_first=batch_first)
    x = api.lib.randn(2, 3, 4) if batched else api.lib.randn(3, 4)
    Wrapper = wrapper_class(api)
    out, weights = mha(Wrapper(x), Wrapper(x), Wrapper(x))
    reached = [c for c in Wrapper.calls if c[0] == "multi_head_attention_forward"]
    # query ... out_proj_bias positionally, the options by keyword (as torch's Python code passes them)
    assert reached == [("multi_head_attention_forward", 13, [
        "attn_mask", "average_attn_weights", "is_causal", "k_proj_weight", "key_padding_mask", "need_weights",
        "q_proj_weight", "static_k", "static_v", "training", "use_separate_proj_weight", "v_proj_weight"])]
    assert isinstance(out, Wrapper) and isinstance(weights, Wrapper)
    plain_out, plain_weights = mha(x, x, x)
    assert api.lib.allclose(out._data, plain_out) and api.lib.allclose(weights._data, plain_weights)


def _inputs(lib, seed=0):
    rng = np.random.default_rng(seed)
    t = lambda *shape: lib.tensor(rng.standard_normal(shape), dtype=lib.float64)  # noqa: E731
    return {
        "q": t(3, 2, 4), "k": t(5, 2, 4), "v": t(5, 2, 4), "in_w": t(12, 4), "in_b": t(12), "out_w": t(4, 4),
        "out_b": t(4), "bias_k": t(1, 1, 4), "bias_v": t(1, 1, 4), "qw": t(4, 4), "kw": t(4, 4), "vw": t(4, 4),
        "static_k": t(4, 6, 2), "static_v": t(4, 6, 2), "mask3": t(4, 3, 5),
    }


CASES = {
    "plain": {},
    "bias_kv": {"bias": True},
    "zero_attn": {"add_zero_attn": True},
    "separate": {"use_separate_proj_weight": True},
    "bool_mask": {"attn_mask": "bool"},
    "float_mask_3d": {"attn_mask": "mask3"},
    "padding": {"key_padding_mask": True},
    "per_head": {"average_attn_weights": False},
    "no_weights": {"need_weights": False},
    "static": {"static": True},
    "causal": {"attn_mask": "causal", "is_causal": True},
}


def _call(lib, case):
    d = _inputs(lib)
    F = lib.nn.functional
    opts = {}
    if case.get("use_separate_proj_weight"):
        opts.update(use_separate_proj_weight=True, q_proj_weight=d["qw"], k_proj_weight=d["kw"], v_proj_weight=d["vw"])
    mask = case.get("attn_mask")
    if mask == "bool":
        opts["attn_mask"] = lib.tensor(np.random.default_rng(1).random((3, 5)) > 0.7)
    elif mask == "mask3":
        opts["attn_mask"] = d["mask3"]
    elif mask == "causal":
        opts["attn_mask"] = lib.tensor(np.triu(np.ones((3, 5), dtype=bool), 1))
    if case.get("key_padding_mask"):
        opts["key_padding_mask"] = lib.tensor([[False, False, True, False, True], [False] * 5])
    for name in ("average_attn_weights", "need_weights", "is_causal"):
        if name in case:
            opts[name] = case[name]
    if case.get("static"):
        opts.update(static_k=d["static_k"], static_v=d["static_v"])
    bias = case.get("bias")
    return F.multi_head_attention_forward(
        d["q"], d["k"], d["v"], 4, 2, d["in_w"], d["in_b"], d["bias_k"] if bias else None,
        d["bias_v"] if bias else None, case.get("add_zero_attn", False), 0.0, d["out_w"], d["out_b"],
        training=False, **opts,
    )


@pytest.mark.parametrize("case", sorted(CASES))
def test_multi_head_attention_forward_matches_torch(case):
    torch = pytest.importorskip("torch")
    import tensorlib

    ours, theirs = _call(tensorlib, CASES[case]), _call(torch, CASES[case])
    for a, b in zip(ours, theirs):
        if b is None:
            assert a is None
            continue
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10, atol=1e-12)


def test_multi_head_attention_forward_checks_shapes(api):
    d = _inputs(api.lib)
    F = api.lib.nn.functional
    with pytest.raises(AssertionError, match="expected `key` and `value` to be 3-D"):
        F.multi_head_attention_forward(d["q"], d["k"][0], d["v"], 4, 2, d["in_w"], d["in_b"], None, None, False, 0.0,
                                       d["out_w"], d["out_b"])
    with pytest.raises(AssertionError, match="was expecting embedding dimension of 8, but got 4"):
        F.multi_head_attention_forward(d["q"], d["k"], d["v"], 8, 2, d["in_w"], d["in_b"], None, None, False, 0.0,
                                       d["out_w"], d["out_b"])
    with pytest.raises(RuntimeError, match="Need attn_mask if specifying the is_causal hint"):
        F.multi_head_attention_forward(d["q"], d["k"], d["v"], 4, 2, d["in_w"], d["in_b"], None, None, False, 0.0,
                                       d["out_w"], d["out_b"], is_causal=True)


@pytest.mark.parametrize("case", ["plain", "bias_kv", "padding", "separate"])
def test_multi_head_attention_forward_gradients(case):
    import tensorlib

    d = _inputs(tensorlib)
    F = tensorlib.nn.functional
    names = ["q", "k", "v", "in_w", "in_b", "out_w", "out_b"] + (["bias_k", "bias_v"] if case == "bias_kv" else [])
    names += ["qw", "kw", "vw"] if case == "separate" else []
    leaves = [d[n].clone().requires_grad_() for n in names]

    def f(*xs):
        x = dict(zip(names, xs))
        opts = {}
        if case == "padding":
            opts["key_padding_mask"] = tensorlib.tensor([[False, False, True, False, True], [False] * 5])
        if case == "separate":
            opts.update(use_separate_proj_weight=True, q_proj_weight=x["qw"], k_proj_weight=x["kw"],
                        v_proj_weight=x["vw"])
        return F.multi_head_attention_forward(
            x["q"], x["k"], x["v"], 4, 2, x["in_w"], x["in_b"], x.get("bias_k"), x.get("bias_v"), False, 0.0,
            x["out_w"], x["out_b"], training=False, **opts)

    assert tensorlib.autograd.gradcheck(f, leaves)
    assert tensorlib.autograd.gradgradcheck(f, leaves, fast_mode=True)
