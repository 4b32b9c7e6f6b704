"""DaskTensor against in-memory tensorlib: each function on DaskTensors (chunked along the batch, or along every
dimension) gives, once computed, what it gives on the same data in memory (same dtype, shape, values), and raises
what it raises (same type, same message) when the call is wrong.

These run on Dask's synchronous scheduler (the graph is the same on a cluster: tests/dask/test_cluster.py).
"""

from __future__ import annotations

from typing import Any, Callable

import pytest

dask = pytest.importorskip("dask")

import tensorlib as torch  # noqa: E402
import tensorlib.dask as td  # noqa: E402
import tensorlib.nn as nn  # noqa: E402
import tensorlib.nn.functional as F  # noqa: E402
from tensorlib.testing import assert_close  # noqa: E402


@pytest.fixture(autouse=True, scope="module")
def _synchronous_scheduler():
    with dask.config.set(scheduler="synchronous"):
        yield


def _data() -> dict[str, tuple[torch.Tensor, Any]]:
    """name -> (tensor, chunks of its DaskTensor)."""
    g = torch.Generator().manual_seed(7)
    labels = torch.randint(0, 5, (12,), generator=g)
    ignored = labels.clone()
    ignored[[2, 7]] = -100
    return {
        "a": (torch.randn(12, 5, generator=g), (4, 5)),           # chunked along the batch
        "c": (torch.randn(12, 5, generator=g), (5, 2)),           # chunked along both dimensions
        "p": (torch.rand(12, 5, generator=g) + 0.1, (3, 5)),      # positive
        "v": (torch.randn(5, generator=g), (2,)),
        "d": (torch.randn(12, 5, generator=g, dtype=torch.float64), (6, 5)),
        "i": (labels, (5,)),
        "ig": (ignored, (5,)),
        "k": (torch.randint(-3, 4, (12, 5), generator=g), (4, 5)),  # int64
        "img": (torch.randn(10, 2, 6, 6, generator=g), (3, 2, 6, 6)),
        "ids": (torch.randint(0, 7, (12, 4), generator=g), (5, 2)),
        "prob": (torch.softmax(torch.randn(12, 5, generator=g), 1), (4, 5)),
        "b3": (torch.randn(4, 6, 5, generator=g), (2, 3, 5)),
    }


DATA = _data()
W = torch.randn(3, 5)
B = torch.randn(3)
CONV = torch.randn(4, 2, 3, 3)
EMB = torch.randn(7, 3)
CLASS_WEIGHT = torch.rand(5) + 0.5

# (id, function, input names, rtol/atol for float results)
CASES: list[tuple[str, Callable, tuple[str, ...]]] = [
    # pointwise and operators
    ("add", lambda a, c: a + c, ("a", "c")),
    ("add-broadcast", lambda a, v: torch.add(a, v, alpha=2), ("a", "v")),
    ("radd", lambda a: 1 + a, ("a",)),
    ("rsub", lambda a: 1 - a, ("a",)),
    ("tensor-minus-dask", lambda a: DATA["c"][0] - a, ("a",)),
    ("mul-div", lambda a, c: a * c / 3, ("a", "c")),
    ("rdiv", lambda p: 2 / p, ("p",)),
    ("floordiv-mod", lambda k: (k // 2, k % 3, -k), ("k",)),
    ("pow", lambda a: (a ** 2, 2 ** a, a.pow(3)), ("a",)),
    ("int-float-promotion", lambda k, a: k * a, ("k", "a")),
    ("int-true-divide", lambda k: k / 2, ("k",)),
    ("zero-dim-tensor-operand", lambda a: a * torch.tensor(2.5, dtype=torch.float64), ("a",)),
    ("comparisons", lambda a, c: (a > c, a <= 0, a == c, a != c, c < a), ("a", "c")),
    ("logical", lambda a, c: torch.logical_and(a > 0, c > 0) | (a < -1), ("a", "c")),
    ("where", lambda a, c: torch.where(a > 0, a, c), ("a", "c")),
    ("where-scalar", lambda a: torch.where(a > 0, a, 0.0), ("a",)),
    ("method-where", lambda a, c: a.where(a > 0, c), ("a", "c")),
    ("masked-fill", lambda a: a.masked_fill(a < 0, -1.0), ("a",)),
    ("clamp", lambda a: (a.clamp(-0.5, 0.5), torch.clamp(a, min=0)), ("a",)),
    ("math", lambda p: (torch.exp(p), p.log(), torch.sqrt(p), p.rsqrt(), torch.sin(p), p.abs(), torch.erf(p)),
     ("p",)),
    ("rounding", lambda a: (a.floor(), torch.ceil(a), a.round(decimals=1), a.sign()), ("a",)),
    ("special", lambda a: (torch.special.expit(a), torch.special.ndtr(a), torch.special.xlogy(a, 2.0)), ("a",)),
    ("activations", lambda a: (F.relu(a), F.gelu(a), F.gelu(a, approximate="tanh"), torch.sigmoid(a),
                               torch.tanh(a), F.silu(a), F.leaky_relu(a, 0.2), F.softplus(a), F.elu(a)), ("a",)),
    ("nan-checks", lambda p: (torch.isnan(p.log() - 1), torch.isfinite(1 / (p - p))), ("p",)),
    ("conversions", lambda a: (a.long(), a.double(), a.to(torch.float16), a.int(), a.bool(), a.type_as(DATA["k"][0])),
     ("a",)),
    ("like", lambda c: (torch.zeros_like(c), torch.ones_like(c, dtype=torch.int64), torch.full_like(c, 7)), ("c",)),
    # reductions
    ("sum", lambda c: (c.sum(), c.sum(0), c.sum(1, keepdim=True), torch.sum(c, (0, 1)), c.sum(dtype=torch.float64)),
     ("c",)),
    ("sum-int-and-bool", lambda k: (k.sum(0), (k > 0).sum(), torch.count_nonzero(k, 0)), ("k",)),
    ("mean", lambda c: (c.mean(), c.mean(0), torch.mean(c, 1, keepdim=True)), ("c",)),
    ("mean-batch-chunks", lambda a: (a.mean(0), a.mean(1)), ("a",)),
    ("prod", lambda p: (p.prod(0), torch.prod(p)), ("p",)),
    ("max-min", lambda c: (c.max(), c.min(), torch.amax(c, 0), torch.amin(c, (0, 1))), ("c",)),
    ("max-with-dim", lambda c: (c.max(0), c.min(1, keepdim=True), torch.max(c, dim=-1)), ("c",)),
    ("max-with-dim-one-chunk", lambda a: (a.max(1), torch.min(a, 1)), ("a",)),
    ("max-elementwise", lambda a, c: torch.max(a, c), ("a", "c")),
    ("argmax", lambda c: (c.argmax(), c.argmax(0), torch.argmin(c, 1, keepdim=True), c.argmax(keepdim=True)),
     ("c",)),
    ("all-any", lambda c: ((c > -3).all(), torch.any(c > 1, 0), (c > 0).all(1)), ("c",)),
    ("logsumexp", lambda c: (torch.logsumexp(c, 0), torch.logsumexp(c, 1, keepdim=True), c.logsumexp((0, 1))),
     ("c",)),
    ("var-std", lambda c: (c.var(0), c.std(), torch.var(c, 1, correction=0), torch.std(c, 0, keepdim=True),
                           torch.var_mean(c, 0), torch.std_mean(c, unbiased=False)), ("c",)),
    ("var-float64", lambda d: (d.var(0), d.std(1)), ("d",)),
    ("softmax", lambda c: (F.softmax(c, dim=1), F.softmax(c, dim=0), F.log_softmax(c, 1), c.softmax(-1),
                           torch.log_softmax(c, 0, dtype=torch.float64)), ("c",)),
    ("cumsum", lambda c: (c.cumsum(0), torch.cumprod(c, 1)), ("c",)),
    # shapes
    ("reshape", lambda c: (c.reshape(6, 10), c.view(-1), c.reshape(3, 4, 5), torch.reshape(c, (60, 1))), ("c",)),
    ("flatten-unflatten", lambda b3: (b3.flatten(1), torch.flatten(b3), b3.unflatten(1, (2, 3))), ("b3",)),
    ("squeeze-unsqueeze", lambda a: (a.unsqueeze(1), torch.unsqueeze(a, -1).squeeze(-1), a[None].squeeze()),
     ("a",)),
    ("transpose", lambda b3: (b3.transpose(0, 2), b3.permute(2, 0, 1), b3.mT, torch.movedim(b3, 0, -1),
                              b3.swapaxes(1, 2)), ("b3",)),
    ("t-and-T", lambda c: (c.t(), c.T, torch.t(c)), ("c",)),
    ("expand", lambda v: (v.expand(3, 5), v.unsqueeze(0).expand(4, -1), torch.broadcast_to(v, (2, 5))), ("v",)),
    ("indexing", lambda c: (c[3], c[2:9:2, 1], c[None, ..., -1], c[:, 1:3], c[-1, -2]), ("c",)),
    ("narrow-select-flip", lambda c: (c.narrow(0, 3, 5), torch.select(c, 1, -1), c.flip(0), torch.roll(c, 2, 0)),
     ("c",)),
    ("split-chunk-unbind", lambda c: (c.split(5), torch.chunk(c, 3, 1), c[:3].unbind()), ("c",)),
    ("cat-stack", lambda a, c: (torch.cat([a, c]), torch.cat([a, c], 1), torch.stack([a, c], 1),
                                torch.cat([a, DATA["a"][0]], 0)), ("a", "c")),
    ("cat-promotes", lambda a, k: torch.cat([a, k]), ("a", "k")),
    # products
    ("matmul", lambda a, c: (a @ c.T, c.T @ c, torch.matmul(c, DATA["v"][0]), a.mm(W.T)), ("a", "c")),
    ("matmul-1d", lambda v: (v @ v, torch.dot(v, v), torch.mv(DATA["c"][0], v)), ("v",)),
    ("matmul-batched", lambda b3: (b3 @ b3.mT, torch.bmm(b3, b3.transpose(1, 2)), b3 @ DATA["v"][0]), ("b3",)),
    ("rmatmul", lambda c: DATA["a"][0].T @ c, ("c",)),
    # nn.functional on batch chunks
    ("linear", lambda a, c: (F.linear(a, W, B), F.linear(c, W), torch.nn.functional.linear(a, W.double().float())),
     ("a", "c")),
    ("layer-norm", lambda c: (F.layer_norm(c, (5,)), F.layer_norm(c, (5,), W[0], B.repeat(2)[:5] if False else None)),
     ("c",)),
    ("embedding", lambda ids: (F.embedding(ids, EMB), F.embedding(ids[:, 0], EMB, padding_idx=0)), ("ids",)),
    ("conv-pool", lambda img: (F.conv2d(img, CONV, padding=1), F.conv2d(img, CONV, stride=2), F.max_pool2d(img, 2),
                               F.avg_pool2d(img, 3), F.adaptive_avg_pool2d(img, 1), torch.conv2d(img, CONV)),
     ("img",)),
    ("norms", lambda img, c: (F.batch_norm(img, torch.zeros(2), torch.ones(2)), F.group_norm(img, 2),
                              F.normalize(c), F.normalize(c, dim=0)), ("img", "c")),
    ("dropout-eval", lambda a: F.dropout(a, 0.5, training=False), ("a",)),
    ("unbatched", lambda v: (F.linear(v, W, B), F.layer_norm(v, (5,)), F.softmax(v, 0)), ("v",)),
    # losses
    ("cross-entropy", lambda a, i: (F.cross_entropy(a, i), F.cross_entropy(a, i, reduction="sum"),
                                    F.cross_entropy(a, i, reduction="none")), ("a", "i")),
    ("cross-entropy-chunked-classes", lambda c, i: F.cross_entropy(c, i), ("c", "i")),
    ("cross-entropy-weight-ignore-smoothing",
     lambda a, ig: (F.cross_entropy(a, ig, weight=CLASS_WEIGHT), F.cross_entropy(a, ig, label_smoothing=0.2),
                    F.cross_entropy(a, ig, weight=CLASS_WEIGHT, label_smoothing=0.1)), ("a", "ig")),
    ("cross-entropy-probabilities", lambda a, prob: F.cross_entropy(a, prob), ("a", "prob")),
    ("cross-entropy-in-memory-target", lambda a: F.cross_entropy(a, DATA["i"][0]), ("a",)),
    ("cross-entropy-unbatched", lambda v: F.cross_entropy(v, torch.tensor(3)), ("v",)),
    ("nll-loss", lambda a, ig: (F.nll_loss(F.log_softmax(a, 1), ig), F.nll_loss(a, ig, weight=CLASS_WEIGHT)),
     ("a", "ig")),
    ("elementwise-losses", lambda a, c: (F.mse_loss(a, c), F.l1_loss(a, c, reduction="sum"), F.smooth_l1_loss(a, c),
                                         F.binary_cross_entropy_with_logits(a, torch.sigmoid(c)),
                                         F.kl_div(F.log_softmax(a, 1), F.softmax(c, 1), reduction="batchmean")),
     ("a", "c")),
]


def _to_dask(name: str) -> td.DaskTensor:
    tensor, chunks = DATA[name]
    return td.from_tensor(tensor, chunks=chunks)


def _compare(got: Any, want: Any) -> None:
    if isinstance(want, (tuple, list)):
        assert type(got) is type(want), (type(got), type(want))
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _compare(g, w)
        return
    assert isinstance(got, td.DaskTensor), type(got)
    assert got.shape == want.shape and got.dtype == want.dtype  # known before computing
    computed = got.compute()
    assert type(computed) is torch.Tensor
    assert_close(computed, want, rtol=1e-5, atol=1e-6, equal_nan=True)


@pytest.mark.parametrize("name, func, inputs", CASES, ids=[c[0] for c in CASES])
def test_same_result_as_in_memory(name: str, func: Callable, inputs: tuple[str, ...]) -> None:
    want = func(*[DATA[n][0] for n in inputs])
    got = func(*[_to_dask(n) for n in inputs])
    _compare(got, want)


def test_chunks_follow_the_input() -> None:
    x = _to_dask("a")
    assert (F.relu(F.linear(x, W, B))).chunks == ((4, 4, 4), (3,))
    assert (x + DATA["v"][0]).chunks == x.chunks
    assert F.conv2d(_to_dask("img"), CONV).chunks[0] == (3, 3, 3, 1)


def test_inplace_activation_rebinds_the_dask_tensor() -> None:
    x = _to_dask("a")
    before = x.array
    out = F.relu(x, inplace=True)
    assert out is x and x.array is not before
    assert_close(x.compute(), F.relu(DATA["a"][0]))
    relu = nn.ReLU(inplace=True)
    y = _to_dask("c")
    assert relu(y) is y
    assert_close(y.compute(), F.relu(DATA["c"][0]))


# -- errors: the same exception as tensorlib, raised when the call is made ---------------------------------------------

ERROR_CASES: list[tuple[str, Callable, tuple[str, ...]]] = [
    ("broadcast", lambda a, v: a + v[:3], ("a", "v")),
    ("reshape", lambda c: c.view(7, -1), ("c",)),
    ("index-bounds", lambda c: c[12], ("c",)),
    ("index-step", lambda c: c[::-1], ("c",)),
    ("too-many-indices", lambda c: c[0, 0, 0], ("c",)),
    ("dim-range", lambda c: c.transpose(0, 2), ("c",)),
    ("sum-dim-range", lambda c: c.sum(3), ("c",)),
    ("mean-of-int", lambda k: k.mean(), ("k",)),
    ("permute-duplicate", lambda c: c.permute(0, 0), ("c",)),
    ("matmul-shapes", lambda a: a @ DATA["c"][0], ("a",)),
    ("mm-1d", lambda v: torch.mm(v, v), ("v",)),
    ("linear-features", lambda a: F.linear(a, torch.randn(3, 4)), ("a",)),
    ("conv-channels", lambda img: F.conv2d(img, torch.randn(4, 3, 3, 3)), ("img",)),
    ("cat-sizes", lambda a: torch.cat([a, DATA["a"][0][:, :3]]), ("a",)),
    ("stack-sizes", lambda a: torch.stack([a, DATA["a"][0][:5]]), ("a",)),
    ("cat-not-a-list", lambda a: torch.cat(a), ("a",)),
    ("bitwise-float", lambda a: a & a, ("a",)),
    ("softmax-dim", lambda a: F.softmax(a, dim=2), ("a",)),
    ("item-of-many", lambda a: a.item(), ("a",)),
    ("bool-of-many", lambda a: bool(a), ("a",)),
    ("len-of-0d", lambda a: len(a.sum()), ("a",)),
    ("cross-entropy-target-dtype", lambda a, c: F.cross_entropy(a, c[:, :2]), ("a", "c")),
    ("bad-reduction", lambda a, c: F.mse_loss(a, c, reduction="average"), ("a", "c")),
]


@pytest.mark.parametrize("name, func, inputs", ERROR_CASES, ids=[c[0] for c in ERROR_CASES])
def test_same_error_as_in_memory(name: str, func: Callable, inputs: tuple[str, ...]) -> None:
    with pytest.raises(Exception) as in_memory:
        func(*[DATA[n][0] for n in inputs])
    with pytest.raises(Exception) as on_dask:
        func(*[_to_dask(n) for n in inputs])
    assert type(on_dask.value) is type(in_memory.value)
    assert str(on_dask.value) == str(in_memory.value)


@pytest.mark.parametrize("call", [
    lambda x: torch.linalg.inv(x),
    lambda x: torch.fft.fft(x),
    lambda x: torch.sort(x),
    lambda x: torch.Tensor.add_(x, 1),
    lambda x: torch.nn.init.zeros_(x),
], ids=["linalg.inv", "fft.fft", "sort", "Tensor.add_", "nn.init.zeros_"])
def test_unsupported_functions_decline_with_tensorlibs_type_error(call: Callable) -> None:
    x = _to_dask("a")
    with pytest.raises(TypeError, match="no implementation found for 'tensorlib.*DaskTensor"):
        call(x)


@pytest.mark.parametrize("call, message", [
    (lambda x: x[torch.tensor([0, 1])], "advanced indexing"),
    (lambda x: F.dropout(x, 0.5, training=True), "training mode"),
    (lambda x: torch.add(x, 1, out=torch.empty(12, 5)), "out="),
    (lambda x: x.requires_grad_(), "autograd"),
    (lambda x: torch.where(x > 0), "data-dependent shape"),
    (lambda x: F.batch_norm(x, None, None, training=True), "batch statistics"),
    (lambda x: F.one_hot((x > 0).long()), "num_classes"),
    (lambda x: F.embedding((x > 0).long(), EMB, max_norm=1.0), "max_norm"),
], ids=["advanced-index", "dropout-training", "out", "requires-grad", "where-1-arg", "batch-norm-training",
        "one-hot", "embedding-max-norm"])
def test_unsupported_arguments_raise_not_implemented_error(call: Callable, message: str) -> None:
    x = _to_dask("a")
    with pytest.raises(NotImplementedError, match=message):
        call(x)


def test_calls_with_another_protocol_type_are_declined() -> None:
    class Other:
        @classmethod
        def __torch_function__(cls, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            return NotImplemented

    with pytest.raises(TypeError, match=r"no implementation found for 'tensorlib.add'.*\[DaskTensor, Other\]"):
        torch.add(_to_dask("a"), Other())


def test_numpy_operands_defer_to_the_dask_tensor() -> None:
    import numpy as np

    x = _to_dask("a")
    for out in (np.float32(2) * x, np.float64(1) - x):
        assert isinstance(out, td.DaskTensor)
    assert_close((np.float32(2) * x).compute(), np.float32(2) * DATA["a"][0])


def test_conversion_to_the_same_dtype_is_the_tensor_itself() -> None:
    x = _to_dask("a")
    assert x.float() is x and x.to(torch.float32) is x and x.type_as(DATA["a"][0]) is x
    assert x.double() is not x and x.to(torch.float32, copy=True) is not x


# -- the DaskTensor itself ----------------------------------------------------------------------------------------------


def test_metadata_without_computing() -> None:
    x = _to_dask("c")
    assert x.shape == torch.Size([12, 5]) and x.size() == x.shape and x.size(1) == 5 and x.size(-2) == 12
    assert (x.dtype, x.ndim, x.dim(), x.numel(), len(x)) == (torch.float32, 2, 2, 60, 12)
    assert x.device == torch.device("cpu") and not x.requires_grad and x.grad is None and x.is_leaf
    assert x.is_floating_point() and not x.is_complex() and x.element_size() == 4 and x.nbytes == 240
    assert torch.Tensor.shape.__get__(x) == x.shape  # the property answers through the protocol too
    assert x.chunks == ((5, 5, 2), (2, 2, 1)) and x.npartitions == 9
    assert repr(x) == "DaskTensor(shape=[12, 5], dtype=tensorlib.float32, chunksize=(5, 2), npartitions=9)"
    with pytest.raises(IndexError, match="Dimension out of range"):
        x.size(2)


def test_values_compute_on_demand() -> None:
    x, t = _to_dask("a"), DATA["a"][0]
    total = x.sum()
    assert total.item() == pytest.approx(t.sum().item(), rel=1e-6)
    assert float(total) == pytest.approx(float(t.sum()), rel=1e-6)
    assert bool(x[0, 0] > 0) == bool(t[0, 0] > 0)
    assert x.tolist() == t.tolist()
    assert (x.numpy() == t.numpy()).all()
    rows = list(x[:3])
    assert len(rows) == 3 and all(isinstance(r, td.DaskTensor) for r in rows)
    assert_close(rows[1].compute(), t[1])


def test_compute_returns_a_tensor_of_its_own() -> None:
    x = _to_dask("a")
    out = x.compute()
    out.add_(1)  # writable, and not the memory of the source
    assert_close(x.compute(), DATA["a"][0])
    a, b, s = td.compute(x * 2, x.sum(), "other")
    assert_close(a, DATA["a"][0] * 2) and isinstance(b, torch.Tensor) and s == "other"


def test_persist_and_rechunk_keep_the_values() -> None:
    x = _to_dask("c")
    p = x.persist()
    assert isinstance(p, td.DaskTensor) and p.chunks == x.chunks
    r = x.rechunk((6, 5))
    assert r.chunks == ((6, 6), (5,))
    assert_close(r.compute(), DATA["c"][0])


def test_constructor_checks_its_argument() -> None:
    import dask.array as da
    import numpy as np

    with pytest.raises(TypeError, match="expects a dask.array.Array, got Tensor"):
        td.DaskTensor(DATA["a"][0])
    with pytest.raises(TypeError, match="dtype uint16 has no tensorlib dtype"):
        td.DaskTensor(da.zeros(3, dtype=np.uint16))
    unknown = da.arange(10, chunks=5)
    with pytest.raises(ValueError, match="unknown chunk sizes"):
        td.DaskTensor(unknown[unknown > 3])
    assert_close(td.from_tensor([[1, 2], [3, 4]], chunks=1).compute(), torch.tensor([[1, 2], [3, 4]]))


def test_the_weights_are_one_graph_key_whatever_the_chunk_count() -> None:
    import pickle

    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10))
    x = td.from_tensor(torch.randn(200, 64), chunks=(20, 64))
    out = model(x)
    graph = dict(out.array.__dask_graph__())
    assert x.npartitions == 10
    for p in model.parameters():
        payload = p.detach().numpy().tobytes()
        holders = [k for k, v in graph.items() if payload in pickle.dumps(v)]
        assert len(holders) == 1, holders
    # and the graph does compute the model
    assert_close(out.compute(), model(x.compute()).detach(), rtol=1e-5, atol=1e-6)


def test_an_unmodified_model_runs_on_a_dask_tensor() -> None:
    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv = nn.Conv2d(2, 4, 3, padding=1)
            self.bn = nn.BatchNorm2d(4)
            self.pool = nn.MaxPool2d(2)
            self.drop = nn.Dropout(0.3)
            self.fc = nn.Linear(4 * 3 * 3, 5)
            self.norm = nn.LayerNorm(5)

        def forward(self, x: Any) -> Any:
            x = self.pool(F.relu(self.bn(self.conv(x))))
            x = self.drop(x.view(x.size(0), -1))
            return self.norm(self.fc(x)).log_softmax(dim=1)

    net = Net()
    net.bn.running_mean.uniform_(-0.5, 0.5)
    net.bn.running_var.uniform_(0.5, 2.0)
    net.eval()
    img, _ = DATA["img"]
    out = net(_to_dask("img"))
    assert isinstance(out, td.DaskTensor) and out.chunks == ((3, 3, 3, 1), (5,))
    with torch.no_grad():
        want = net(img)
    assert_close(out.compute(), want, rtol=1e-5, atol=1e-6)
    predictions = out.argmax(1)
    assert_close(predictions.compute(), want.argmax(1))


def test_embedding_model_with_mean_pooling() -> None:
    emb = nn.Embedding(7, 3)
    norm = nn.LayerNorm(3)
    ids, _ = DATA["ids"]
    got = norm(emb(_to_dask("ids"))).mean(1)
    with torch.no_grad():
        want = norm(emb(ids)).mean(1)
    assert_close(got.compute(), want, rtol=1e-5, atol=1e-6)
