"""Files cross between the libraries: torch.load(weights_only=True) reads what tensorlib.save writes, and
tensorlib.load reads what torch.save writes, pretrained state dicts included."""

from __future__ import annotations

import collections
import io
import pickle
import zipfile

import numpy as np
import pytest

import tensorlib as t
from tensorlib._serialization import archive as archive_module

torch = pytest.importorskip("torch")


def to_torch_file(obj, **kw):
    buf = io.BytesIO()
    t.save(obj, buf, **kw)
    buf.seek(0)
    return torch.load(buf, weights_only=True)


def to_tensorlib_file(obj, **kw):
    buf = io.BytesIO()
    torch.save(obj, buf, **kw)
    buf.seek(0)
    return t.load(buf)


def assert_same(ours, theirs):
    """A tensorlib tensor and a torch tensor agree in kind, dtype, shape, strides, grad requirement and values."""
    assert type(ours).__name__ == type(theirs).__name__, (type(ours), type(theirs))
    assert str(ours.dtype).split(".")[1] == str(theirs.dtype).split(".")[1]
    assert tuple(ours.shape) == tuple(theirs.shape) and ours.stride() == theirs.stride()
    assert ours.requires_grad == theirs.requires_grad
    np.testing.assert_array_equal(ours.detach().numpy(), theirs.detach().numpy())


DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64", "complex64",
          "complex128"]


@pytest.mark.parametrize("name", DTYPES)
def test_every_dtype_both_ways(name):
    ours = t.tensor([[0, 1, 2], [3, 4, 5]]).to(getattr(t, name))
    assert_same(ours, to_torch_file(ours))
    theirs = torch.tensor([[0, 1, 2], [3, 4, 5]]).to(getattr(torch, name))
    assert_same(to_tensorlib_file(theirs), theirs)


def test_containers_and_values_tensorlib_to_torch():
    obj = {"sd": collections.OrderedDict(w=t.ones(2, 3), b=t.zeros(3)), "nested": [1, (2.5, "s", None, True)],
           "set": {1, 2}, "complex": 1 - 2j, "bytes": b"\x00a", "bytearray": bytearray(b"z"), "size": t.Size([4, 5]),
           "dtype": t.float64, "device": t.device("cpu"), "big": 2**80, "counter": collections.Counter("abb"),
           "empty": t.empty(0, 3), "scalar": t.tensor(7), "p": t.nn.Parameter(t.ones(2)),
           "frozen": t.nn.Parameter(t.ones(1), requires_grad=False), "grad": t.ones(2, requires_grad=True)}
    out = to_torch_file(obj)
    assert type(out["sd"]) is collections.OrderedDict and list(out["sd"]) == ["w", "b"]
    assert out["nested"] == [1, (2.5, "s", None, True)] and out["set"] == {1, 2} and out["complex"] == 1 - 2j
    assert out["bytes"] == b"\x00a" and out["bytearray"] == bytearray(b"z") and out["big"] == 2**80
    assert out["size"] == torch.Size([4, 5]) and type(out["size"]) is torch.Size
    assert out["dtype"] is torch.float64 and out["device"] == torch.device("cpu")
    assert out["counter"] == collections.Counter("abb")
    for k in ("empty", "scalar", "p", "frozen", "grad"):
        assert_same(obj[k], out[k])
    for k in ("w", "b"):
        assert_same(obj["sd"][k], out["sd"][k])


def test_containers_and_values_torch_to_tensorlib():
    obj = {"sd": collections.OrderedDict(w=torch.ones(2, 3), b=torch.zeros(3)), "set": {3}, "complex": 2j,
           "size": torch.Size([4]), "dtype": torch.int16, "device": torch.device("cpu"), "bytes": b"q",
           "p": torch.nn.Parameter(torch.ones(2)), "grad": torch.ones(2, requires_grad=True), "empty": torch.empty(2, 0),
           "scalar": torch.tensor(3.5, dtype=torch.float64)}
    out = to_tensorlib_file(obj)
    assert type(out["sd"]) is collections.OrderedDict and out["set"] == {3} and out["complex"] == 2j
    assert type(out["size"]) is t.Size and out["size"] == (4,) and out["dtype"] is t.int16
    assert out["device"] == t.device("cpu") and out["bytes"] == b"q"
    for k in ("p", "grad", "empty", "scalar"):
        assert_same(out[k], obj[k])
    assert_same(out["sd"]["w"], obj["sd"]["w"])


def _views(lib):
    base = lib.arange(24.0)
    grid = base.view(4, 6)
    return [base, grid, grid[1], grid[:, 2], grid.t(), base[3::5], base[:1].expand(3, 2), base.unfold(0, 4, 3),
            base.as_strided((2, 2), (3, 1), 1), grid[:, :4].diagonal(), grid[2:, 1:5:2]]


def test_views_tensorlib_to_torch_share_storage():
    ours = _views(t)
    theirs = to_torch_file(ours)
    for a, b in zip(ours, theirs):
        assert_same(a, b)
        assert b.untyped_storage().data_ptr() == theirs[0].untyped_storage().data_ptr()
    assert [b.storage_offset() for b in theirs] == [b.storage_offset() for b in _views(torch)]
    theirs[2][0] = -1.0  # grid[1, 0]
    assert theirs[0][6].item() == -1.0 and theirs[4][0, 1].item() == -1.0


def test_views_torch_to_tensorlib_share_memory():
    theirs = _views(torch)
    ours = to_tensorlib_file(theirs)
    for a, b in zip(ours, theirs):
        assert_same(a, b)
    ours[3].mul_(0)  # column 2 of the grid
    assert ours[0][8].item() == 0.0 and ours[4][2, 1].item() == 0.0 and ours[9][2].item() == 0.0


def test_buffers_both_ways():
    theirs = to_torch_file(t.nn.Buffer(t.ones(2), persistent=False))
    assert isinstance(theirs, torch.nn.Buffer) and theirs.persistent is False
    ours = to_tensorlib_file(torch.nn.Buffer(torch.zeros(1)))
    assert type(ours) is t.nn.Buffer and ours.persistent is True and ours.tolist() == [0.0]


def test_conj_and_neg_views_from_torch():
    z = torch.tensor([1 + 2j, 3 - 1j])
    assert to_tensorlib_file(z.conj()).tolist() == [1 - 2j, 3 + 1j]
    assert to_tensorlib_file(z.conj().imag).tolist() == [-2.0, 1.0]


def test_dtypes_tensorlib_lacks_give_a_clear_error():
    for x in (torch.ones(2, dtype=torch.bfloat16), torch.ones(2, dtype=torch.uint16)):
        with pytest.raises(RuntimeError, match="tensorlib has no such dtype"):
            to_tensorlib_file(x)


def test_whole_torch_modules_need_weights_only_false():
    with pytest.raises(pickle.UnpicklingError, match="GLOBAL torch.nn.modules.linear.Linear was not an allowed"):
        to_tensorlib_file(torch.nn.Linear(2, 2))


def _torch_net():
    torch.manual_seed(0)
    return torch.nn.Sequential(
        torch.nn.Conv2d(1, 4, 3, padding=1), torch.nn.BatchNorm2d(4), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Flatten(), torch.nn.Linear(4 * 4 * 4, 10))


def _our_net():
    return t.nn.Sequential(
        t.nn.Conv2d(1, 4, 3, padding=1), t.nn.BatchNorm2d(4), t.nn.ReLU(), t.nn.MaxPool2d(2), t.nn.Flatten(),
        t.nn.Linear(4 * 4 * 4, 10))


def test_pretrained_torch_weights_load_into_a_tensorlib_model(tmp_path):
    net = _torch_net()
    net.train()
    net(torch.randn(16, 1, 8, 8))  # moves the batch-norm running statistics
    net.eval()
    path = tmp_path / "pretrained.pth"
    torch.save(net.state_dict(), path)
    ours = _our_net()
    result = ours.load_state_dict(t.load(path))
    assert not result.missing_keys and not result.unexpected_keys
    ours.eval()
    x = np.random.default_rng(0).standard_normal((3, 1, 8, 8)).astype(np.float32)
    expected = net(torch.from_numpy(x)).detach().numpy()
    np.testing.assert_allclose(ours(t.from_numpy(x)).detach().numpy(), expected, rtol=1e-5, atol=1e-5)
    assert ours[1].num_batches_tracked.item() == 1


def test_tensorlib_weights_load_into_a_torch_model(tmp_path):
    ours = _our_net()
    ours.train()
    ours(t.randn(16, 1, 8, 8))
    ours.eval()
    path = tmp_path / "ours.pt"
    t.save(ours.state_dict(), path)
    net = _torch_net()
    net.load_state_dict(torch.load(path, weights_only=True))
    net.eval()
    x = np.random.default_rng(1).standard_normal((2, 1, 8, 8)).astype(np.float32)
    np.testing.assert_allclose(net(torch.from_numpy(x)).detach().numpy(), ours(t.from_numpy(x)).detach().numpy(),
                               rtol=1e-5, atol=1e-5)


def test_optimizer_state_both_ways():
    net = _our_net()
    opt = t.optim.Adam(net.parameters(), lr=0.01)
    net(t.randn(2, 1, 8, 8)).sum().backward()
    opt.step()
    theirs = to_torch_file(opt.state_dict())
    tnet = _torch_net()
    topt = torch.optim.Adam(tnet.parameters(), lr=0.5)
    topt.load_state_dict(theirs)
    assert topt.param_groups[0]["lr"] == 0.01
    back = to_tensorlib_file(topt.state_dict())
    opt2 = t.optim.Adam(net.parameters(), lr=0.5)
    opt2.load_state_dict(back)
    assert t.equal(opt2.state_dict()["state"][0]["exp_avg"], opt.state_dict()["state"][0]["exp_avg"])


def test_torch_reads_other_protocols_without_weights_only():
    obj = {"x": t.arange(4.0), "s": {1}}
    for protocol in (3, 4, 5):
        buf = io.BytesIO()
        t.save(obj, buf, pickle_protocol=protocol)
        buf.seek(0)
        out = torch.load(buf, weights_only=False)
        assert out["x"].tolist() == [0.0, 1.0, 2.0, 3.0] and out["s"] == {1}
    buf = io.BytesIO()
    torch.save(obj["s"], buf, pickle_protocol=4)
    buf.seek(0)
    assert t.load(buf) == {1}


def test_layout_matches_torch_writer(tmp_path, monkeypatch):
    x = t.randn(33, 7)
    path = tmp_path / "model.pt"
    t.save({"x": x, "y": t.arange(5), "z": x[2]}, path)
    z = zipfile.ZipFile(path)
    names = [i.filename for i in z.infolist()]
    assert names == ["model/data.pkl", "model/.format_version", "model/.storage_alignment", "model/byteorder",
                     "model/data/0", "model/data/1", "model/version", "model/.data/serialization_id"]
    raw = path.read_bytes()
    for info in z.infolist():
        n, e = int.from_bytes(raw[info.header_offset + 26:][:2], "little"), int.from_bytes(
            raw[info.header_offset + 28:][:2], "little")
        assert (info.header_offset + 30 + n + e) % 64 == 0, info.filename
    # torch's loader can compute every record's offset from the sizes alone, as it does for its own files
    monkeypatch.setenv("TORCH_SERIALIZATION_DEBUG", "1")
    for mmap in (False, True):
        out = torch.load(path, weights_only=True, mmap=mmap)
        np.testing.assert_array_equal(out["x"].numpy(), x.numpy())
        assert out["z"].untyped_storage().data_ptr() == out["x"].untyped_storage().data_ptr()
    from torch.utils.serialization import config

    before = config.load.calculate_storage_offsets
    config.load.calculate_storage_offsets = True
    try:
        out = torch.load(path, weights_only=True, mmap=True)
    finally:
        config.load.calculate_storage_offsets = before
    np.testing.assert_array_equal(out["y"].numpy(), np.arange(5))


def test_zip64_records(tmp_path, monkeypatch):
    # records past the 4 GiB limits get zip64 fields: exercised here with the limit lowered to 1 KiB
    monkeypatch.setattr(archive_module, "ZIP64_LIMIT", 1024)
    x = t.randn(3000)
    small = t.arange(3)
    path = tmp_path / "z64.pt"
    t.save({"x": x, "small": small}, path)
    assert b"PK\x06\x06" in path.read_bytes()  # the zip64 end of central directory
    zf = zipfile.ZipFile(path)
    assert zf.testzip() is None
    out = torch.load(path, weights_only=True)
    np.testing.assert_array_equal(out["x"].numpy(), x.numpy())
    assert out["small"].tolist() == [0, 1, 2]
    assert t.equal(t.load(path)["x"], x)
