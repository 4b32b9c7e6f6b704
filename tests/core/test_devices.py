"""Device and memory-format names: ``tensorlib.device``, ``tensorlib.cuda``, the default device, memory formats.

Only the CPU holds tensors; CUDA requests fail as in a PyTorch built without CUDA. The parity tests compare
with the installed torch (CPU build): results, exception types and messages up to the library's name.
"""

from __future__ import annotations

import copy
import pickle
import re
from typing import Any, Callable, Iterator

import numpy as np
import pytest

import tensorlib
from tensorlib.cuda import __all__ as CUDA_NAMES


@pytest.fixture(autouse=True)
def _cpu_default() -> Iterator[None]:
    """Every test here starts and ends with the CPU as the default device."""
    tensorlib.set_default_device(None)
    yield
    tensorlib.set_default_device(None)


def _outcome(f: Callable[[], Any]) -> tuple[str, str]:
    """``("ok", repr(result))`` or the exception's type name and message, library names normalised."""
    try:
        r = f()
    except Exception as e:  # noqa: BLE001 - the outcome is what is compared
        msg = str(e).split("\n")[0]
        return type(e).__name__, re.sub(r"\btorch\b|\btensorlib\b", "LIB", msg, flags=re.IGNORECASE)
    return "ok", re.sub(r"\btorch\b|\btensorlib\b", "LIB", repr(r))


# -- tensorlib.device ---------------------------------------------------------------------

DEVICE_SPECS: list[tuple] = [
    ("cpu",), ("cpu:0",), ("cpu", 1), ("cuda",), ("cuda:1",), ("cuda", 0), ("meta",), ("mps",), ("xpu:3",),
]
BAD_DEVICE_SPECS: list[tuple] = [
    ("CUDA",), ("foo",), ("",), ("cuda:-1",), ("cuda:x",), ("cuda:01",), ("cuda: 1",), ("cuda:1:2",), (" cuda",),
    ("cuda:",), ("cuda:+1",), ("cuda:1 ",), ("cuda", -1), ("cuda:1", 0), ("cpu", "1"), ("cuda", True), ("cpu", -1),
    (1,), (0,), (-1,), ("cuda:99999999999999999999",),
]


@pytest.mark.parametrize("spec", DEVICE_SPECS, ids=str)
def test_device_construction(spec: tuple) -> None:
    d = tensorlib.device(*spec)
    kind, _, idx = spec[0].partition(":")
    index = int(idx) if idx else (spec[1] if len(spec) > 1 else None)
    assert (d.type, d.index) == (kind, index)
    assert str(d) == (kind if index is None else f"{kind}:{index}")
    assert repr(d) == (f"device(type='{kind}')" if index is None else f"device(type='{kind}', index={index})")
    assert d == tensorlib.device(str(d)) and hash(d) == hash(tensorlib.device(str(d)))
    assert tensorlib.device(d) == d
    assert pickle.loads(pickle.dumps(d)) == d


def test_device_equality_and_attributes() -> None:
    cuda0, cuda = tensorlib.device("cuda:0"), tensorlib.device("cuda")
    assert cuda0 == tensorlib.device("cuda", 0) and cuda0 != cuda  # an index makes a different device
    assert tensorlib.device("cpu") != tensorlib.device("cpu:0")
    assert tensorlib.device("cpu") != "cpu" and cuda != 0  # never equal to a string or an int, as in torch
    assert len({tensorlib.device("cuda:1"), tensorlib.device("cuda", 1), cuda}) == 2
    assert tensorlib.device(type="cuda", index=1) == tensorlib.device("cuda:1")
    with pytest.raises(AttributeError):
        cuda0.index = 2  # type: ignore[misc]
    with pytest.raises(AttributeError):
        cuda0.type = "cpu"  # type: ignore[misc]


@pytest.mark.parametrize("spec", BAD_DEVICE_SPECS, ids=str)
def test_bad_device_raises(spec: tuple) -> None:
    kind, _ = _outcome(lambda: tensorlib.device(*spec))
    assert kind in ("RuntimeError", "TypeError")


def test_device_type_errors() -> None:
    with pytest.raises(TypeError, match="must be str"):
        tensorlib.device(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="must be str"):
        tensorlib.device(1.5)  # type: ignore[arg-type]
    with pytest.raises(RuntimeError, match="Expected one of cpu, cuda"):
        tensorlib.device("gpu")
    with pytest.raises(RuntimeError, match="Invalid device string: 'cuda:x'"):
        tensorlib.device("cuda:x")


# -- tensors and CUDA -----------------------------------------------------------------------

CUDA_REQUESTS: dict[str, Callable[[Any], Any]] = {
    "to('cuda')": lambda m: m.zeros(2).to("cuda"),
    "to(device('cuda:1'))": lambda m: m.zeros(2).to(m.device("cuda:1")),
    "to(device='cuda')": lambda m: m.zeros(2).to(device="cuda"),
    "cuda()": lambda m: m.zeros(2).cuda(),
    "cuda(1)": lambda m: m.zeros(2).cuda(1),
    "to(0)": lambda m: m.zeros(2).to(0),
    "zeros(device='cuda')": lambda m: m.zeros(2, device="cuda"),
    "ones(device='cuda:0')": lambda m: m.ones(2, device="cuda:0"),
    "tensor(device='cuda')": lambda m: m.tensor([1.0], device="cuda"),
    "arange(device='cuda')": lambda m: m.arange(3, device="cuda"),
    "empty_like(device='cuda')": lambda m: m.empty_like(m.zeros(2), device="cuda"),
    "new_zeros(device='cuda')": lambda m: m.zeros(2).new_zeros(2, device="cuda"),
    "zeros(device=0)": lambda m: m.zeros(2, device=0),
    "to('foo')": lambda m: m.zeros(2).to("foo"),
    "zeros(device='foo')": lambda m: m.zeros(2, device="foo"),
    "zeros(device='cpu:1')": lambda m: m.zeros(2, device="cpu:1").device,
    "to('cpu')": lambda m: m.zeros(2).to("cpu").device,
    "zeros(device='cpu:0')": lambda m: m.zeros(2, device="cpu:0").device,
}


@pytest.mark.parametrize("call", list(CUDA_REQUESTS), ids=str)
def test_cuda_requests(call: str) -> None:
    kind, msg = _outcome(lambda: CUDA_REQUESTS[call](tensorlib))
    if "cpu" in call:
        assert (kind, msg) == ("ok", "device(type='cpu')")
    else:
        assert kind in ("AssertionError", "RuntimeError")


def test_cuda_error_is_assertion_error() -> None:
    with pytest.raises(AssertionError, match="^tensorlib not compiled with CUDA enabled$"):
        tensorlib.zeros(2).cuda()
    with pytest.raises(NotImplementedError, match="'mps'"):
        tensorlib.zeros(2, device="mps")
    with pytest.raises(RuntimeError, match="CPU"):
        tensorlib.Generator("cuda")


def test_cuda_module() -> None:
    cuda = tensorlib.cuda
    assert cuda.is_available() is False and cuda.device_count() == 0 and cuda.is_initialized() is False
    assert cuda.manual_seed(0) is None and cuda.manual_seed_all(3) is None
    assert cuda.seed() is None and cuda.seed_all() is None and cuda.empty_cache() is None
    for f in (cuda.current_device, cuda.init, cuda.synchronize, cuda.get_device_name):
        with pytest.raises(AssertionError, match="CUDA"):
            f()
    with pytest.raises(ValueError):
        cuda.manual_seed("x")  # type: ignore[arg-type]
    assert "cuda" in tensorlib.__all__ and set(CUDA_NAMES) <= set(dir(cuda))


# -- the default device -----------------------------------------------------------------------


def test_default_device() -> None:
    assert tensorlib.get_default_device() == tensorlib.device("cpu")
    tensorlib.set_default_device("cpu")
    assert tensorlib.zeros(2).device == tensorlib.device("cpu")
    tensorlib.set_default_device(tensorlib.device("cpu", 0))
    assert tensorlib.get_default_device() == tensorlib.device("cpu:0")
    tensorlib.set_default_device("cuda")  # accepted, as in torch; creating tensors then fails
    for f in (tensorlib.get_default_device, lambda: tensorlib.zeros(2), lambda: tensorlib.tensor([1.0]),
              lambda: tensorlib.randn(3), lambda: tensorlib.Tensor(2)):
        with pytest.raises(AssertionError, match="CUDA"):
            f()
    x = np.zeros(2)
    assert tensorlib.as_tensor(x).numpy() is not None  # an array keeps its own (CPU) memory
    tensorlib.set_default_device(None)
    assert tensorlib.zeros(2).device.type == "cpu"
    with pytest.raises(RuntimeError, match="Expected one of"):
        tensorlib.set_default_device("foo")
    with pytest.raises(RuntimeError, match="accelerator"):
        tensorlib.set_default_device(3)
    assert tensorlib.get_default_device() == tensorlib.device("cpu")


def test_like_and_new_follow_the_input_not_the_default() -> None:
    t = tensorlib.ones(2, 2)
    tensorlib.set_default_device("cuda")
    assert tensorlib.zeros_like(t).shape == (2, 2) and tensorlib.rand_like(t).shape == (2, 2)
    assert t.new_zeros(3).shape == (3,) and t.new_tensor([1.0]).tolist() == [1.0]


def test_device_as_context_manager() -> None:
    with tensorlib.device("cpu") as d:
        assert d == tensorlib.device("cpu") and tensorlib.zeros(1).device.type == "cpu"
    with tensorlib.device("cuda"):
        with pytest.raises(AssertionError):
            tensorlib.zeros(1)
    assert tensorlib.zeros(1).device.type == "cpu"


# -- memory formats -----------------------------------------------------------------------------

FORMATS = ("contiguous_format", "preserve_format", "channels_last", "channels_last_3d")


@pytest.mark.parametrize("name", FORMATS)
def test_memory_format_objects(name: str) -> None:
    fmt = getattr(tensorlib, name)
    assert isinstance(fmt, tensorlib.memory_format) and name in tensorlib.__all__
    assert repr(fmt) == str(fmt) == f"tensorlib.{name}"
    assert copy.copy(fmt) is fmt and copy.deepcopy(fmt) is fmt and pickle.loads(pickle.dumps(fmt)) is fmt
    assert fmt == fmt and hash(fmt) == hash(fmt)
    assert tensorlib.memory_format.__module__ == "tensorlib"


def test_memory_format_cannot_be_made() -> None:
    with pytest.raises(TypeError, match="cannot create 'tensorlib.memory_format' instances"):
        tensorlib.memory_format()
    assert tensorlib.contiguous_format != tensorlib.preserve_format


def test_memory_format_accepted_everywhere() -> None:
    x = tensorlib.randn(2, 3, 4, 5)
    for fmt in (tensorlib.contiguous_format, tensorlib.channels_last):
        for y in (x.contiguous(memory_format=fmt), x.clone(memory_format=fmt), x.to(memory_format=fmt),
                  x.cpu(memory_format=fmt), x.float(memory_format=fmt)):
            assert y.shape == x.shape and y.is_contiguous() and np.array_equal(y.numpy(), x.numpy())
        for f in (tensorlib.empty_like, tensorlib.zeros_like, tensorlib.ones_like, tensorlib.rand_like,
                  tensorlib.randn_like):
            y = f(x, memory_format=fmt)
            assert y.shape == x.shape and y.stride() == (60, 20, 5, 1)
        assert tensorlib.full_like(x, 2.0, memory_format=fmt).shape == x.shape
        assert tensorlib.empty(2, 3, 4, 5, memory_format=fmt).is_contiguous()
    assert x.clone(memory_format=tensorlib.preserve_format).is_contiguous()
    z = tensorlib.randn(1, 2, 3, 4, 5)
    assert z.contiguous(memory_format=tensorlib.channels_last_3d).shape == z.shape


def test_channels_last_strides() -> None:
    x = tensorlib.randn(2, 3, 4, 5)
    assert x.is_contiguous(memory_format=tensorlib.contiguous_format)
    assert not x.is_contiguous(memory_format=tensorlib.channels_last)
    cl = x.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)
    assert cl.stride() == (60, 1, 15, 3)
    assert cl.is_contiguous(memory_format=tensorlib.channels_last) and not cl.is_contiguous()
    assert cl.contiguous(memory_format=tensorlib.channels_last) is cl  # already dense in that order
    assert cl.contiguous().is_contiguous()
    assert tensorlib.empty(2, 1, 4, 5).is_contiguous(memory_format=tensorlib.channels_last)  # size-1 channels
    assert not tensorlib.randn(2, 3).is_contiguous(memory_format=tensorlib.channels_last)


def test_memory_format_errors() -> None:
    x = tensorlib.randn(2, 3)
    with pytest.raises(TypeError, match="argument 'memory_format' must be tensorlib.memory_format, not str"):
        x.contiguous(memory_format="channels_last")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="not NoneType"):
        x.is_contiguous(memory_format=None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="not tensorlib.dtype"):
        tensorlib.zeros_like(x, memory_format=tensorlib.float32)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        x.is_contiguous(tensorlib.channels_last)  # type: ignore[misc]  # keyword-only, as in torch
    with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last format"):
        x.clone(memory_format=tensorlib.channels_last)
    with pytest.raises(RuntimeError, match="required rank 5 tensor to use channels_last_3d format"):
        tensorlib.empty_like(x, memory_format=tensorlib.channels_last_3d)
    with pytest.raises(RuntimeError, match="preserve memory format is unsupported"):
        x.t().contiguous(memory_format=tensorlib.preserve_format)
    with pytest.raises(RuntimeError, match="unsupported memory format Preserve"):
        tensorlib.empty(2, memory_format=tensorlib.preserve_format)
    for call in (lambda: x.to(memory_format=1), lambda: x.cpu(memory_format="a"), lambda: x.float(memory_format=2)):
        with pytest.raises(TypeError):
            call()


# -- parity with torch ----------------------------------------------------------------------------


@pytest.mark.parametrize("spec", DEVICE_SPECS + BAD_DEVICE_SPECS + [(None,), (1.5,)], ids=str)
def test_device_parity(spec: tuple) -> None:
    torch = pytest.importorskip("torch")
    ours = _outcome(lambda: tensorlib.device(*spec))
    theirs = _outcome(lambda: torch.device(*spec))
    if theirs[0] == "TypeError" and "invalid combination" in theirs[1]:
        assert ours[0] == "TypeError"  # torch lists its overloads; we name the argument
    else:
        assert ours == theirs
    if ours[0] == "ok":
        a, b = tensorlib.device(*spec), torch.device(*spec)
        assert (a.type, a.index, str(a)) == (b.type, b.index, str(b))


def test_device_equality_parity() -> None:
    torch = pytest.importorskip("torch")
    names = ["cpu", "cpu:0", "cuda", "cuda:0", "cuda:1", "meta"]
    for a in names:
        for b in names:
            assert (tensorlib.device(a) == tensorlib.device(b)) == (torch.device(a) == torch.device(b))
        assert (tensorlib.device(a) == a) == (torch.device(a) == a)


@pytest.mark.parametrize("call", list(CUDA_REQUESTS), ids=str)
def test_cuda_requests_parity(call: str) -> None:
    torch = pytest.importorskip("torch")
    assert _outcome(lambda: CUDA_REQUESTS[call](tensorlib)) == _outcome(lambda: CUDA_REQUESTS[call](torch))


@pytest.mark.parametrize("name", ["is_available", "device_count", "is_initialized", "current_device", "init",
                                  "synchronize", "get_device_name", "seed", "seed_all", "empty_cache"])
def test_cuda_module_parity(name: str) -> None:
    torch = pytest.importorskip("torch")
    assert _outcome(getattr(tensorlib.cuda, name)) == _outcome(getattr(torch.cuda, name))


@pytest.mark.parametrize("name", ["manual_seed", "manual_seed_all"])
@pytest.mark.parametrize("seed", [0, 123, "x"])
def test_cuda_seed_parity(name: str, seed: Any) -> None:
    torch = pytest.importorskip("torch")
    ours = _outcome(lambda: getattr(tensorlib.cuda, name)(seed))
    assert ours[0] == _outcome(lambda: getattr(torch.cuda, name)(seed))[0]


def test_default_device_parity() -> None:
    torch = pytest.importorskip("torch")
    try:
        for m in (tensorlib, torch):
            m.set_default_device("cuda")
        assert _outcome(lambda: tensorlib.zeros(2)) == _outcome(lambda: torch.zeros(2))
        assert _outcome(tensorlib.get_default_device) == _outcome(torch.get_default_device)
        for value in ("cpu", tensorlib.device("cpu", 0)):
            tensorlib.set_default_device(value)
            torch.set_default_device(str(value))
            assert repr(tensorlib.get_default_device()) == repr(torch.get_default_device())
        assert _outcome(lambda: tensorlib.set_default_device("foo")) == _outcome(lambda: torch.set_default_device("foo"))
    finally:
        torch.set_default_device(None)


def test_memory_format_parity() -> None:
    torch = pytest.importorskip("torch")
    for name in FORMATS:
        assert repr(getattr(tensorlib, name)).replace("tensorlib", "torch") == repr(getattr(torch, name))
    assert _outcome(tensorlib.memory_format) == _outcome(torch.memory_format)


_MF_CALLS: dict[str, Callable[[Any, Any, Any], Any]] = {
    "is_contiguous": lambda m, x, f: x.is_contiguous(memory_format=f),
    "contiguous": lambda m, x, f: x.contiguous(memory_format=f).shape,
    "clone": lambda m, x, f: x.clone(memory_format=f).shape,
    "cpu": lambda m, x, f: x.cpu(memory_format=f).shape,
    "float": lambda m, x, f: x.float(memory_format=f).shape,
    "empty_like": lambda m, x, f: m.empty_like(x, memory_format=f).shape,
    "zeros_like": lambda m, x, f: m.zeros_like(x, memory_format=f).shape,
    "ones_like": lambda m, x, f: m.ones_like(x, memory_format=f).shape,
    "full_like": lambda m, x, f: m.full_like(x, 1.0, memory_format=f).shape,
    "rand_like": lambda m, x, f: m.rand_like(x, memory_format=f).shape,
    "randn_like": lambda m, x, f: m.randn_like(x, memory_format=f).shape,
    "empty": lambda m, x, f: m.empty(*x.shape, memory_format=f).shape,
}


@pytest.mark.parametrize("call", list(_MF_CALLS))
@pytest.mark.parametrize("shape", [(2, 3), (2, 3, 4, 5), (1, 2, 3, 4, 5)], ids=str)
@pytest.mark.parametrize("fmt", [*FORMATS, None, "channels_last", 1])
def test_memory_format_calls_parity(call: str, shape: tuple, fmt: Any) -> None:
    torch = pytest.importorskip("torch")
    x = tensorlib.zeros(*shape)
    y = torch.zeros(*shape)
    ours = _outcome(lambda: _MF_CALLS[call](tensorlib, x, getattr(tensorlib, fmt) if fmt in FORMATS else fmt))
    theirs = _outcome(lambda: _MF_CALLS[call](torch, y, getattr(torch, fmt) if fmt in FORMATS else fmt))
    if "invalid combination of arguments" in theirs[1]:
        assert ours[0] == theirs[0]  # torch lists its overloads; we name the argument
    else:
        assert ours == theirs


def test_is_contiguous_parity_on_strides() -> None:
    """For any strides our views report, ``is_contiguous`` answers as torch does for a tensor of those strides."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    checked = 0
    for shape in [(2, 3, 4, 5), (1, 3, 1, 5), (2, 1, 4, 1), (2, 3, 1, 1), (0, 3, 4, 5), (2, 3, 4, 5, 6), (1, 1, 2, 1, 3)]:
        base = tensorlib.randn(*shape)
        for _ in range(12):
            perm = tuple(int(i) for i in rng.permutation(len(shape)))
            inverse = tuple(int(i) for i in np.argsort(perm))
            view = base.permute(*perm).contiguous().permute(*inverse)
            reference = torch.empty_strided(shape, view.stride())
            for name in FORMATS:
                if name == "preserve_format":
                    continue
                ours = view.is_contiguous(memory_format=getattr(tensorlib, name))
                assert ours == reference.is_contiguous(memory_format=getattr(torch, name)), (shape, perm, name)
                checked += 1
    assert checked > 100


def test_devices_in_saved_files() -> None:
    import io

    buf = io.BytesIO()
    tensorlib.save({"d": tensorlib.device("cuda:1"), "x": tensorlib.zeros(2)}, buf)
    buf.seek(0)
    assert tensorlib.load(buf)["d"] == tensorlib.device("cuda", 1)  # weights-only loading allows devices
    buf.seek(0)
    assert tensorlib.load(buf, map_location="cpu:0")["x"].tolist() == [0.0, 0.0]
    buf.seek(0)
    with pytest.raises(RuntimeError, match="'cuda'"):  # torch raises RuntimeError here too
        tensorlib.load(buf, map_location="cuda")
