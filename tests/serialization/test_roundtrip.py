"""save/load round trips within tensorlib: every kind of object torch round-trips, views that keep sharing
memory, paths and file objects, protocols, map_location, mmap, and files written by earlier versions."""

from __future__ import annotations

import collections
import io
import math
import os
import pathlib
import pickle
import tracemalloc
import types
import zipfile

import numpy as np
import pytest

import tensorlib as t
from tensorlib._serialization import archive as archive_module


def roundtrip(obj, **save_kw):
    buf = io.BytesIO()
    t.save(obj, buf, **save_kw)
    buf.seek(0)
    return t.load(buf)


def same(a, b):
    return (type(a) is type(b) and a.dtype == b.dtype and a.shape == b.shape and a.stride() == b.stride()
            and a.requires_grad == b.requires_grad and np.array_equal(a.numpy(force=True), b.numpy(force=True)))


@pytest.mark.parametrize("dtype", [t.bool, t.uint8, t.int8, t.int16, t.int32, t.int64, t.float16, t.float32,
                                   t.float64, t.complex64, t.complex128])
def test_every_dtype(dtype):
    x = t.tensor([[0, 1, 2], [3, 4, 5]]).to(dtype)
    y = roundtrip(x)
    assert same(x, y)
    assert not np.shares_memory(x._data, y._data)


@pytest.mark.parametrize("shape", [(0,), (2, 0, 3), (0, 0), (3, 0)])
def test_empty_tensors(shape):
    x = t.empty(shape)
    y = roundtrip(x)
    assert y.shape == shape and y.dtype == t.float32 and y.stride() == x.stride()


def test_zero_dim_and_scalars():
    x = t.tensor(3.5, dtype=t.float64)
    y = roundtrip(x)
    assert y.shape == () and y.item() == 3.5 and y.dtype == t.float64


def test_zero_size_module_state_dict():
    sd = t.nn.Linear(0, 3).state_dict()
    out = roundtrip(sd)
    assert type(out) is collections.OrderedDict and list(out) == ["weight", "bias"]
    assert out["weight"].shape == (3, 0) and same(out["bias"], sd["bias"])
    t.nn.Linear(0, 3).load_state_dict(out)


def test_plain_python_values():
    obj = {
        "set": {1, 2, 3}, "frozenset": frozenset({"a"}), "complex": 3 + 4j, "slice": slice(1, None, 2),
        "range": range(2, 10, 3), "bytes": b"\x00\xffab", "bytearray": bytearray(b"xy"), "none": None,
        "bools": (True, False), "big": 2**100, "neg": -(2**70), "float": 1.5, "nan": math.inf, "str": "héllo ☃",
        "nested": [1, (2, [3, {"k": (4,)}])], "tuple": (), "counter": collections.Counter("aab"),
        "ordered": collections.OrderedDict([("b", 1), ("a", 2)]), "empty": ({}, [], set()),
    }
    for protocol in range(2, 6):
        out = roundtrip(obj, pickle_protocol=protocol)
        assert out == obj, protocol
        assert type(out["ordered"]) is collections.OrderedDict and type(out["counter"]) is collections.Counter


def test_tensorlib_values():
    obj = {"dtypes": [t.float16, t.int64, t.bool, t.complex128], "size": t.Size([2, 3]), "device": t.device("cpu"),
           "device1": t.device("cuda", 1), "empty_size": t.Size([])}
    out = roundtrip(obj)
    assert out["dtypes"] == obj["dtypes"] and all(a is b for a, b in zip(out["dtypes"], obj["dtypes"]))
    assert type(out["size"]) is t.Size and out["size"] == (2, 3) and out["empty_size"] == ()
    assert out["device"] == t.device("cpu") and out["device1"] == t.device("cuda", 1)


def test_requires_grad_parameters_and_non_leaves():
    p = t.nn.Parameter(t.ones(2, 3))
    frozen = t.nn.Parameter(t.ones(2), requires_grad=False)
    leaf = t.ones(3, requires_grad=True)
    non_leaf = leaf * 2
    out = roundtrip({"p": p, "frozen": frozen, "leaf": leaf, "non_leaf": non_leaf, "int": t.arange(3)})
    assert type(out["p"]) is t.nn.Parameter and out["p"].requires_grad and same(out["p"], p)
    assert type(out["frozen"]) is t.nn.Parameter and not out["frozen"].requires_grad
    assert out["leaf"].requires_grad and out["leaf"].is_leaf
    assert out["non_leaf"].requires_grad and out["non_leaf"].is_leaf and out["non_leaf"].tolist() == [2.0] * 3
    assert not out["int"].requires_grad


def test_grad_is_not_saved_as_in_torch():
    x = t.ones(2, requires_grad=True)
    x.sum().backward()
    assert roundtrip(x).grad is None


def test_views_keep_sharing_memory():
    base = t.arange(24.0)
    grid = base.view(4, 6)
    views = {"base": base, "grid": grid, "row": grid[1], "col": grid[:, 2], "t": grid.t(), "step": base[3::5],
             "expand": base[:1].expand(3, 2), "unfold": base.unfold(0, 4, 3), "strided": base.as_strided((2, 2), (3, 1), 1),
             "diag": grid[:, :4].diagonal()}
    out = roundtrip(views)
    for k, v in views.items():
        assert same(out[k], v), k
    out["row"][0] = -1.0  # grid[1, 0] is base[6]
    assert out["base"][6].item() == -1.0 and out["grid"][1, 0].item() == -1.0
    assert out["col"].tolist() == [2.0, 8.0, 14.0, 20.0]
    out["col"].mul_(10)
    assert out["base"][8].item() == 80.0 and out["t"][2, 1].item() == 80.0
    out["base"].zero_()
    assert all(float(v.abs().sum()) == 0.0 for v in out.values())


def test_views_share_one_storage_in_the_file():
    base = t.arange(1000.0)
    buf = io.BytesIO()
    t.save([base[10:20], base[500:], base], buf)
    z = zipfile.ZipFile(io.BytesIO(buf.getvalue()))
    data = [i for i in z.infolist() if "/data/" in i.filename]
    assert [i.file_size for i in data] == [4000]
    # the whole block is saved, as torch does, so offsets survive
    buf.seek(0)
    a, b, c = t.load(buf)
    a[0] = -5.0
    assert c[10].item() == -5.0 and b[0].item() == 500.0


def test_tensors_sharing_memory_through_numpy():
    arr = np.arange(10.0)
    x, y = t.from_numpy(arr), t.from_numpy(arr[4:])
    out = roundtrip((x, y))
    out[1][0] = 99.0
    assert out[0][4].item() == 99.0


def test_separate_tensors_stay_separate():
    a, b = t.zeros(3), t.zeros(3)
    out = roundtrip([a, b, a])
    out[0][0] = 1.0
    assert out[1][0].item() == 0.0 and out[2][0].item() == 1.0 and out[0] is out[2]


def test_views_of_another_dtype_get_their_own_storage():
    x = t.tensor([1.0, 2.0])
    bits = x.view(t.int32)
    out = roundtrip([x, bits])
    assert same(out[0], x) and same(out[1], bits)


def test_memory_numpy_cannot_describe_as_a_block_is_copied():
    arr = np.arange(12.0)
    flipped = t.from_numpy(arr[::-1].copy()).flip(0)  # whatever flip returns, it round-trips
    odd = t.from_numpy(np.lib.stride_tricks.as_strided(np.frombuffer(bytearray(96), np.float64), (3,), (16,)))
    backwards = t.from_numpy(arr[::-1])  # negative strides: no block describes it
    out = roundtrip([flipped, odd, backwards])
    assert same(out[0], flipped) and out[1].tolist() == [0.0] * 3
    assert out[2].tolist() == arr[::-1].tolist() and out[2].stride() == (1,)


def test_tensor_attributes_and_subclasses():
    x = t.ones(2)
    x.note = "kept"
    out = roundtrip(x)
    assert out.note == "kept" and type(out) is t.Tensor
    p = t.nn.Parameter(t.ones(1))
    p.tag = 3
    assert roundtrip(p).tag == 3


def test_buffers():
    out = roundtrip({"b": t.nn.Buffer(t.zeros(2), persistent=False), "c": t.nn.Buffer(t.ones(1))})
    assert type(out["b"]) is t.nn.Buffer and out["b"].persistent is False and out["c"].persistent is True
    assert out["b"].tolist() == [0.0, 0.0] and not hasattr(out["b"], "_is_buffer")


class MyTensor(t.Tensor):
    pass


def test_tensor_subclass_needs_allowlisting():
    x = t.ones(2).as_subclass(MyTensor)
    buf = io.BytesIO()
    t.save(x, buf)
    buf.seek(0)
    with pytest.raises(pickle.UnpicklingError, match=f"GLOBAL {__name__}.MyTensor"):
        t.load(buf)
    buf.seek(0)
    assert type(t.load(buf, weights_only=False)) is MyTensor
    buf.seek(0)
    with t.serialization.safe_globals([MyTensor]):
        out = t.load(buf)
    assert type(out) is MyTensor and out.tolist() == [1.0, 1.0]
    assert t.serialization.get_safe_globals() == []


class OwnPickling(t.Tensor):
    def __reduce_ex__(self, protocol):
        return (_make_own, (self.tolist(),))


def _make_own(values):
    return t.tensor(values).as_subclass(OwnPickling)


def test_subclass_that_pickles_itself_is_respected():
    x = t.tensor([1.0, 2.0]).as_subclass(OwnPickling)
    buf = io.BytesIO()
    t.save(x, buf)
    assert b"/data/" not in buf.getvalue()  # its own reduction: no storage record
    buf.seek(0)
    out = t.load(buf, weights_only=False)
    assert type(out) is OwnPickling and out.tolist() == [1.0, 2.0]


def test_loaded_subclass_tensors_are_not_views():
    buf = io.BytesIO()
    t.save(t.ones(2).as_subclass(MyTensor), buf)
    buf.seek(0)
    out = t.load(buf, weights_only=False)
    assert type(out) is MyTensor and out._base is None and not out._is_view()


def test_whole_modules_and_optimizers_with_weights_only_false(tmp_path):
    net = t.nn.Sequential(t.nn.Linear(3, 4), t.nn.ReLU(), t.nn.Linear(4, 2))
    opt = t.optim.Adam(net.parameters(), lr=0.01)
    net(t.ones(5, 3)).sum().backward()
    opt.step()
    path = tmp_path / "whole.pt"
    t.save({"net": net, "opt": opt.state_dict()}, path)
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        t.load(path)
    ck = t.load(path, weights_only=False)
    assert t.equal(ck["net"](t.ones(1, 3)), net(t.ones(1, 3)))
    state = t.load(path, weights_only=False)["opt"]
    opt2 = t.optim.Adam(net.parameters(), lr=0.5)
    opt2.load_state_dict(state)
    assert opt2.param_groups[0]["lr"] == 0.01


def test_state_dict_metadata_survives():
    net = t.nn.Sequential(t.nn.Linear(2, 2), t.nn.BatchNorm1d(2))
    sd = net.state_dict()
    out = roundtrip(sd)
    assert list(out) == list(sd)
    assert getattr(out, "_metadata", None) == getattr(sd, "_metadata", None)
    net2 = t.nn.Sequential(t.nn.Linear(2, 2), t.nn.BatchNorm1d(2))
    net2.load_state_dict(out)
    assert all(t.equal(a, b) for a, b in zip(net2.state_dict().values(), sd.values()))


def test_paths_and_file_objects(tmp_path):
    x = t.arange(5)
    for target in (str(tmp_path / "s.pt"), tmp_path / "p.pt", pathlib.PurePath(tmp_path / "q.pt")):
        t.save(x, target)
        assert t.equal(t.load(target), x)
        assert t.equal(t.load(os.fspath(target)), x)
    with open(tmp_path / "f.pt", "wb") as fh:
        t.save(x, fh)
    with open(tmp_path / "f.pt", "rb") as fh:
        assert t.equal(t.load(fh), x)
    # the folder in the archive is the file's name, as torch names it
    assert zipfile.ZipFile(tmp_path / "p.pt").namelist()[0] == "p/data.pkl"


def test_several_objects_in_one_stream():
    buf = io.BytesIO()
    t.save(t.ones(2), buf)
    buf.write(b"trailer")
    buf.seek(0)
    assert t.load(buf).tolist() == [1.0, 1.0]


class _Stream(io.RawIOBase):
    """A stream that cannot seek (a pipe or a socket)."""

    def __init__(self, data=b""):
        self._data = io.BytesIO(data)
        self.written = bytearray()

    def readable(self):
        return True

    def writable(self):
        return True

    def readinto(self, b):
        chunk = self._data.read(len(b))
        b[:len(chunk)] = chunk
        return len(chunk)

    def write(self, b):
        n = min(len(b), 3)  # a raw stream may write less than it is given
        self.written += bytes(b[:n])
        return n


def test_streams_that_cannot_seek():
    out = _Stream()
    x = t.arange(100.0)
    t.save({"x": x}, out)
    back = t.load(_Stream(bytes(out.written)))
    assert t.equal(back["x"], x)


def test_pickle_module_and_protocols():
    x = {"w": t.randn(3, 2), "v": [t.ones(1)]}
    for protocol in range(1, 6):
        buf = io.BytesIO()
        t.save(x, buf, pickle_module=pickle, pickle_protocol=protocol)
        buf.seek(0)
        out = t.load(buf, pickle_module=pickle, weights_only=False)
        assert t.equal(out["w"], x["w"]) and t.equal(out["v"][0], x["v"][0])
        buf.seek(0)
        assert t.equal(t.load(buf)["w"], x["w"])
    with pytest.raises(RuntimeError, match="explicit pickle_module is specified and weights_only=True"):
        t.load(io.BytesIO(), pickle_module=pickle, weights_only=True)
    with pytest.raises(TypeError, match="pickle_protocol"):
        t.save(x, io.BytesIO(), pickle_protocol="2")


def test_another_pickle_module():
    # a pickle module of the user's (here the pure-Python pickler under another name)
    module = types.SimpleNamespace(Pickler=pickle._Pickler, Unpickler=pickle._Unpickler, dumps=pickle.dumps)
    x = {"w": t.arange(3.0), "d": t.float64}
    for protocol in (2, 4):
        buf = io.BytesIO()
        t.save(x, buf, pickle_module=module, pickle_protocol=protocol)
        buf.seek(0)
        assert t.equal(t.load(buf)["w"], x["w"])
        buf.seek(0)
        out = t.load(buf, pickle_module=module, weights_only=False)
        assert t.equal(out["w"], x["w"]) and out["d"] is t.float64


def test_user_bytes_that_look_like_a_stand_in_global():
    # the writer renames its stand-ins by substitution; user data holding the same bytes must survive
    fake = b"ctensorlib._serialization.names\n_torch__utils__rebuild_tensor_v2\n"
    obj = {"trap": fake, "text": "ctensorlib\nfloat32\n", "x": t.ones(2), "d": t.float32}
    out = roundtrip(obj)
    assert out["trap"] == fake and out["text"] == obj["text"] and out["d"] is t.float32 and t.equal(out["x"], obj["x"])


def test_map_location_forms():
    x = t.arange(3.0)
    buf = io.BytesIO()
    t.save(x, buf)
    seen = []

    def keep(storage, location):
        seen.append(location)
        return storage

    for ml in ("cpu", t.device("cpu"), {"cuda:0": "cpu"}, keep, lambda s, loc: None):
        buf.seek(0)
        assert t.equal(t.load(buf, map_location=ml), x)
    assert seen == ["cpu"]
    buf.seek(0)
    with pytest.raises(RuntimeError, match="'cuda'"):
        t.load(buf, map_location="cuda:0")
    buf.seek(0)
    with pytest.raises(RuntimeError, match="must return the storage"):
        t.load(buf, map_location=lambda s, loc: "elsewhere")
    buf.seek(0)
    with pytest.raises(RuntimeError, match="CUDA"):
        t.load(buf, map_location={"cpu": "cuda:1"})


def test_mmap(tmp_path):
    path = tmp_path / "m.pt"
    x = t.randn(64, 8, dtype=t.float64)
    t.save({"x": x, "v": x[3]}, path)
    out = t.load(path, mmap=True)
    assert t.equal(out["x"], x) and isinstance(out["x"]._data.base, np.ndarray)
    out["v"][0] = 123.0  # copy-on-write: visible through the views, never written to the file
    assert out["x"][3, 0].item() == 123.0
    assert t.load(path)["x"][3, 0].item() == x[3, 0].item()
    with pytest.raises(ValueError, match="mmap"):
        t.load(io.BytesIO(path.read_bytes()), mmap=True)


def test_failed_save_leaves_the_file_alone(tmp_path):
    path = tmp_path / "keep.pt"
    t.save(t.ones(2), path)
    before = path.read_bytes()
    with pytest.raises((TypeError, pickle.PicklingError, AttributeError)):
        t.save({"ok": t.zeros(2), "bad": lambda: None}, path)
    assert path.read_bytes() == before


def test_save_argument_errors():
    with pytest.raises(AttributeError, match="file-like object with a 'write' attribute"):
        t.save(t.ones(1), 123)
    with pytest.raises(AttributeError, match="'read' method, or a path"):
        t.load(123)
    with pytest.raises(FileNotFoundError):
        t.load("/nonexistent/dir/file.pt")


def test_files_are_not_inflated():
    x = t.randn(256, 1024)  # 1 MiB
    buf = io.BytesIO()
    t.save(x, buf)
    assert x.numel() * 4 <= len(buf.getvalue()) <= x.numel() * 4 + 2048


def test_checksum_computed_alongside_the_write(monkeypatch):
    # large records get their CRC from a second thread while the first writes: exercised here at 64 KiB
    monkeypatch.setattr(archive_module, "PARALLEL_CRC", 1 << 16)
    monkeypatch.setattr(archive_module, "CHUNK", 1 << 12)
    x = t.randn(300, 100)
    buf = io.BytesIO()
    t.save({"x": x, "small": t.ones(3)}, buf)
    assert zipfile.ZipFile(io.BytesIO(buf.getvalue())).testzip() is None
    buf.seek(0)
    assert t.equal(t.load(buf)["x"], x)


def test_saving_copies_no_tensor_memory():
    x = t.randn(2048, 1024)  # 8 MiB
    sink = open(os.devnull, "wb")
    try:
        tracemalloc.start()
        t.save({"x": x, "row": x[7], "col": x[:, 3]}, sink)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        sink.close()
    assert peak < 1 << 20, peak  # the 8 MiB are written from the tensor itself


def test_legacy_plain_pickle_files_still_load():
    # what tensorlib.save wrote before it wrote PyTorch's format: a protocol-2 pickle of NumPy arrays
    x = t.arange(6.0).reshape(2, 3)
    p = t.nn.Parameter(t.ones(2))
    obj = {"x": x, "p": p, "g": t.ones(2, requires_grad=True), "dt": t.int16, "size": t.Size([1]), "s": {1},
           "arr": np.arange(3), "scalar": np.float32(1.5), "b": t.nn.Buffer(t.zeros(1))}
    for protocol in range(6):
        out = t.load(io.BytesIO(pickle.dumps(obj, protocol=protocol)))
        assert t.equal(out["x"], x) and type(out["p"]) is t.nn.Parameter and out["p"].requires_grad
        assert out["g"].requires_grad and out["dt"] is t.int16 and out["size"] == (1,) and out["s"] == {1}
        assert out["arr"].tolist() == [0, 1, 2] and out["scalar"] == np.float32(1.5), protocol
    buf = io.BytesIO()
    t.save(obj, buf, _use_new_zipfile_serialization=False)
    assert not buf.getvalue().startswith(b"PK")
    buf.seek(0)
    assert t.equal(t.load(buf)["x"], x)
