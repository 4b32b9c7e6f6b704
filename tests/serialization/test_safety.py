"""Safe loading: weights-only loads run no code, check every record, and fail clearly on damaged files."""

from __future__ import annotations

import io
import os
import pickle
import struct
import subprocess
import zipfile

import numpy as np
import pytest

import tensorlib as t
from tensorlib._tensor import _rebuild as legacy_rebuild

# -- hand-made pickles and archives ---------------------------------------------------------------------------


def body(obj) -> bytes:
    """The opcodes that push ``obj`` (a plain value), without PROTO and STOP."""
    return pickle.dumps(obj, protocol=2)[2:-1]


def glob(module: str, name: str) -> bytes:
    return b"c" + module.encode() + b"\n" + name.encode() + b"\n"


def tensor_opcodes(storage="FloatStorage", key="0", numel=4, offset=0, size=(4,), stride=(1,), requires_grad=False,
                   metadata=None, location="cpu", storage_module="torch") -> bytes:
    pid = b"(" + body("storage") + glob(storage_module, storage) + body(key) + body(location) + body(numel) + b"tQ"
    args = (b"(" + pid + body(offset) + body(size) + body(stride) + body(requires_grad)
            + glob("collections", "OrderedDict") + b")R" + (body(metadata) if metadata is not None else b"") + b"t")
    return glob("torch._utils", "_rebuild_tensor_v2") + args + b"R"


def pkl(opcodes: bytes) -> bytes:
    return b"\x80\x02" + opcodes + b"."


def archive(data_pkl: bytes, storages: dict[str, bytes] | None = None, folder="archive", extra=None) -> io.BytesIO:
    """A checkpoint written with Python's zipfile (not tensorlib's writer): unaligned, no data descriptors."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
        z.writestr(f"{folder}/data.pkl", data_pkl)
        z.writestr(f"{folder}/byteorder", "little")
        for key, data in (storages or {}).items():
            z.writestr(f"{folder}/data/{key}", data)
        for name, data in (extra or {}).items():
            z.writestr(name, data)
        z.writestr(f"{folder}/version", "3\n")
    buf.seek(0)
    return buf


FLOATS = np.arange(4, dtype=np.float32).tobytes()


def test_hand_made_archive_loads():
    x = t.load(archive(pkl(tensor_opcodes()), {"0": FLOATS}))
    assert x.tolist() == [0.0, 1.0, 2.0, 3.0] and x.dtype == t.float32


# -- code execution ---------------------------------------------------------------------------------------------


class Evil:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


class EvilSubprocess:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (subprocess.call, (["touch", str(self.marker)],))


class EvilEval:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (eval, (f"open({str(self.marker)!r}, 'w')",))


@pytest.mark.parametrize("protocol", range(6))
@pytest.mark.parametrize("payload", [Evil, EvilSubprocess, EvilEval])
def test_malicious_pickle_runs_nothing(tmp_path, protocol, payload):
    marker = tmp_path / "pwned"
    data = pickle.dumps({"weights": [1.0], "x": payload(marker)}, protocol=protocol)
    path = tmp_path / "evil.pt"
    path.write_bytes(data)
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed") as info:
        t.load(path)
    assert "GLOBAL" in str(info.value) and "weights_only" in str(info.value)
    with pytest.raises(pickle.UnpicklingError):  # the same pickle as a zip checkpoint's data.pkl
        t.load(archive(data))
    assert not marker.exists()


def test_the_malicious_pickle_is_real(tmp_path):
    # the payload above does run when the caller opts out of safety: the tests it guards can fail
    marker = tmp_path / "pwned"
    path = tmp_path / "evil.pt"
    t.save({"x": Evil(marker)}, path)
    with pytest.raises(pickle.UnpicklingError, match=r"GLOBAL (posix|nt)\.system"):
        t.load(path)
    assert not marker.exists()
    t.load(path, weights_only=False)
    assert marker.exists()


def test_error_names_the_global_with_the_hint():
    with pytest.raises(pickle.UnpicklingError) as info:
        t.load(io.BytesIO(pickle.dumps(zipfile.ZipInfo("x"))))
    msg = str(info.value)
    assert "Unsupported global: GLOBAL zipfile.ZipInfo was not an allowed global by default" in msg
    assert "add_safe_globals([zipfile.ZipInfo])" in msg and "weights_only` set to `False`" in msg


def test_blocked_modules_stay_blocked_when_allowlisted(tmp_path):
    marker = tmp_path / "pwned"
    t.serialization.add_safe_globals([os.system])
    try:
        with pytest.raises(pickle.UnpicklingError, match="is blocked"):
            t.load(io.BytesIO(pickle.dumps(Evil(marker))))
    finally:
        t.serialization.clear_safe_globals()
    assert not marker.exists()


def test_allowlisted_globals_load():
    info = zipfile.ZipInfo("name.txt")
    with t.serialization.safe_globals([zipfile.ZipInfo]):
        out = t.load(io.BytesIO(pickle.dumps({"i": info})))
    assert type(out["i"]) is zipfile.ZipInfo and out["i"].filename == "name.txt"
    with pytest.raises(pickle.UnpicklingError):
        t.load(io.BytesIO(pickle.dumps({"i": info})))


@pytest.mark.parametrize("opcodes, match", [
    (b"(" + glob("collections", "OrderedDict") + b"o", "OBJ opcode is not allowed"),
    (b"(ibuiltins\nlist\n", "INST opcode is not allowed"),
    (b"\x82\x01", "EXT1 opcode is not allowed"),
    (glob("tensorlib", "Tensor") + b")\x81", "Can only create new object"),
    (glob("builtins", "getattr") + body(("a", "b")) + b"R", "GLOBAL getattr"),
    (glob("builtins", "eval") + body(("1",)) + b"R", "GLOBAL eval"),
    (glob("torch", "FloatStorage") + b")R", "unrecognized function"),
    (b"]" + body(3) + body(4) + b"s", "Can only set items on dicts"),
    (b"}" + b"]" + body(1) + b"s", "malformed pickle data"),  # an unhashable key
    (body(1) + body(2) + b"a", "Can only append to lists"),
    (body(1) + b"a", "too few items on the stack"),
    (b"h\x05", "refers to memo entry 5, which was never stored"),
    (body(1) + b"(" + body(2) + b"\x90", "Can only add items to sets"),
    (b"Z", "invalid load key"),
    (b"1", "could not find MARK"),
    (b"X\xff\xff\xff\x7fabc", "truncated"),
    (b"\x8d" + struct.pack("<Q", 2**60) + b"abc", "truncated"),
    (b"", "empty stack"),
    (body(1) + b"\x97", "NEXT_BUFFER opcode is not allowed"),
])
def test_malformed_or_forbidden_pickles(opcodes, match):
    with pytest.raises(pickle.UnpicklingError, match=match):
        t.load(io.BytesIO(pkl(opcodes)))


def test_tensor_state_cannot_overwrite_internals():
    # BUILD on a tensor, and saved attributes named like tensorlib's own fields, are refused
    build = tensor_opcodes() + body({"_data": "not an array"}) + b"b"
    with pytest.raises(pickle.UnpicklingError, match="Can only build"):
        t.load(archive(pkl(build), {"0": FLOATS}))
    for name in ("_data", "_grad_fn", "grad", "__class__", "shape"):
        opcodes = (glob("torch._tensor", "_rebuild_from_type_v2") + b"(" + glob("torch._utils", "_rebuild_tensor_v2")
                   + glob("torch", "Tensor") + tensor_opcodes()[len(glob("torch._utils", "_rebuild_tensor_v2")):-1]
                   + body({name: "evil"}) + b"tR")
        with pytest.raises(pickle.UnpicklingError, match=f"refusing to set attribute '{name}'"):
            t.load(archive(pkl(opcodes), {"0": FLOATS}))


# -- records that do not describe a valid tensor ------------------------------------------------------------


@pytest.mark.parametrize("fields, storages, match", [
    ({"numel": 1000}, {"0": FLOATS}, "claims 1000 elements of tensorlib.float32 .4000 bytes. but its record holds 16"),
    ({"numel": 10**15}, {"0": FLOATS}, "claims 1000000000000000 elements"),
    ({"numel": 3}, {"0": FLOATS}, "claims 3 elements"),
    ({}, {}, "storage 0 has no record archive/data/0"),
    ({"size": (10,)}, {"0": FLOATS}, "needs 10 elements but storage 0 holds 4"),
    ({"offset": 4, "size": (1,)}, {"0": FLOATS}, "needs 5 elements"),
    ({"size": (2, 2), "stride": (3, 1)}, {"0": FLOATS}, "needs 5 elements"),
    ({"size": (-1,)}, {"0": FLOATS}, "non-negative ints"),
    ({"stride": (-1,)}, {"0": FLOATS}, "non-negative ints"),
    ({"size": (2.0,)}, {"0": FLOATS}, "non-negative ints"),
    ({"size": (True,)}, {"0": FLOATS}, "non-negative ints"),
    ({"size": (4, 1)}, {"0": FLOATS}, "differ in length"),
    ({"size": (1,) * 65, "stride": (0,) * 65}, {"0": FLOATS}, "65 dimensions"),
    ({"offset": -1}, {"0": FLOATS}, "storage offset must be a non-negative int"),
    ({"size": "abcd"}, {"0": FLOATS}, "must be a tuple of ints"),
    ({"requires_grad": 1}, {"0": FLOATS}, "requires_grad must be a bool"),
    ({"storage": "LongStorage", "numel": 2, "size": (2,), "requires_grad": True}, {"0": FLOATS},
     "int64 tensor cannot require"),
    ({"storage": "BFloat16Storage", "numel": 8}, {"0": FLOATS}, "torch.bfloat16 elements"),
    ({"storage": "NotAStorage"}, {"0": FLOATS}, "GLOBAL torch.NotAStorage"),
    ({"metadata": {"conj": True}}, {"0": FLOATS}, "conjugate a tensor that is not complex"),
    ({"metadata": {"zero": True}}, {"0": FLOATS}, "unsupported tensor metadata 'zero'"),
])
def test_invalid_tensor_records(fields, storages, match):
    with pytest.raises((RuntimeError, pickle.UnpicklingError), match=match) as info:
        t.load(archive(pkl(tensor_opcodes(**fields)), storages))
    if isinstance(info.value, RuntimeError):
        assert "cannot load" in str(info.value)


def test_directory_claiming_more_bytes_than_the_file_holds():
    # the pickle and the zip directory agree on 4 GB, but the file is tiny: refused before memory is reserved
    buf = archive(pkl(tensor_opcodes(numel=10**9)), {"0": FLOATS})
    raw = bytearray(buf.getvalue())
    entry = raw.find(b"archive/data/0", raw.find(b"PK\x01\x02")) - 46
    raw[entry + 20:entry + 28] = struct.pack("<II", 4 * 10**9, 4 * 10**9)
    with pytest.raises(RuntimeError, match="claims 4000000000 bytes, more than the file holds"):
        t.load(io.BytesIO(bytes(raw)))


def test_storage_referenced_with_two_dtypes():
    two = b"(" + tensor_opcodes() + tensor_opcodes(storage="IntStorage") + b"l"
    with pytest.raises(RuntimeError, match="storage 0 is referenced as 4 x tensorlib.int32"):
        t.load(archive(pkl(two), {"0": FLOATS}))


def test_unknown_torch_dtype_global():
    with pytest.raises(RuntimeError, match="torch.bfloat16 values; tensorlib has no such dtype"):
        t.load(archive(pkl(glob("torch", "bfloat16"))))


def test_storages_saved_on_a_gpu():
    gpu = pkl(tensor_opcodes(location="cuda:0", storage_module="torch.cuda"))
    with pytest.raises(RuntimeError, match="CUDA device .* map_location='cpu'"):
        t.load(archive(gpu, {"0": FLOATS}))
    for ml in ("cpu", {"cuda:0": "cpu"}, t.device("cpu"), lambda storage, location: storage):
        assert t.load(archive(gpu, {"0": FLOATS}), map_location=ml).tolist() == [0.0, 1.0, 2.0, 3.0]
    with pytest.raises(RuntimeError, match="'mps'"):
        t.load(archive(pkl(tensor_opcodes(location="mps")), {"0": FLOATS}))


def test_big_endian_files_are_swapped():
    data = np.arange(4, dtype=">f4").tobytes()
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("archive/data.pkl", pkl(tensor_opcodes()))
        z.writestr("archive/byteorder", "big")
        z.writestr("archive/data/0", data)
    buf.seek(0)
    assert t.load(buf).tolist() == [0.0, 1.0, 2.0, 3.0]
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("archive/data.pkl", pkl(tensor_opcodes()))
        z.writestr("archive/byteorder", "middle")
        z.writestr("archive/data/0", data)
    buf.seek(0)
    with pytest.raises(RuntimeError, match="unknown byte order"):
        t.load(buf)


def test_conj_and_neg_metadata_as_torch_writes_them():
    data = np.array([1 + 2j, 3 - 4j], dtype=np.complex64).tobytes()
    out = t.load(archive(pkl(tensor_opcodes("ComplexFloatStorage", numel=2, size=(2,), metadata={"conj": True})),
                         {"0": data}))
    assert out.tolist() == [1 - 2j, 3 + 4j]
    out = t.load(archive(pkl(tensor_opcodes(numel=4, metadata={"neg": True})), {"0": FLOATS}))
    assert out.tolist() == [-0.0, -1.0, -2.0, -3.0]


class _Legacy:
    """Pickles as an earlier tensorlib tensor whose data is whatever we like."""

    def __init__(self, data):
        self.data = data

    def __reduce__(self):
        return (legacy_rebuild, (t.Tensor, self.data, False, None, None))


@pytest.mark.parametrize("data, match", [
    (np.array(["a", "b"], dtype=object), "only numeric NumPy dtypes"),
    (np.array(["ab", "cd"]), "only numeric NumPy dtypes"),
    ("not an array", "must be a NumPy array"),
    (np.zeros(2, dtype=[("a", "f4"), ("b", "i4")]), "only numeric NumPy dtypes"),
])
def test_legacy_files_with_non_numeric_data(data, match):
    payload = pickle.dumps({"x": _Legacy(data)}, protocol=2)
    with pytest.raises((RuntimeError, pickle.UnpicklingError), match=match):
        t.load(io.BytesIO(payload))


@pytest.mark.parametrize("data", [np.array(["a", "b"], dtype=object), np.array(["ab"]), "text", 3])
def test_non_numeric_data_is_refused_even_with_weights_only_false(data):
    with pytest.raises(RuntimeError, match="numeric array|must be a NumPy array"):
        t.load(io.BytesIO(pickle.dumps(_Legacy(data))), weights_only=False)


# -- damaged files ----------------------------------------------------------------------------------------------


def _good_file() -> bytes:
    buf = io.BytesIO()
    t.save({"w": t.arange(2000.0), "b": t.ones(3, dtype=t.int64), "meta": "x"}, buf)
    return buf.getvalue()


def test_truncated_files_fail_clearly():
    good = _good_file()
    cuts = sorted(set(range(1, len(good), max(1, len(good) // 60))) | {len(good) - 1, len(good) - 22, 30})
    for cut in cuts:
        with pytest.raises(RuntimeError, match="cannot load the BytesIO object: .*(truncated|corrupted)"):
            t.load(io.BytesIO(good[:cut]))


def test_corrupted_storage_bytes_fail_their_crc():
    good = _good_file()
    z = zipfile.ZipFile(io.BytesIO(good))
    info = z.getinfo("archive/data/0")
    bad = bytearray(good)
    bad[info.header_offset + 200] ^= 0x55  # inside the first storage's data
    with pytest.raises(RuntimeError, match="record data/0 fails its CRC check; the file is corrupted"):
        t.load(io.BytesIO(bytes(bad)))


def test_corrupted_pickle_or_directory():
    good = _good_file()
    z = zipfile.ZipFile(io.BytesIO(good))
    pkl_info = z.getinfo("archive/data.pkl")
    bad = bytearray(good)
    bad[pkl_info.header_offset + 100] ^= 0xFF
    with pytest.raises(RuntimeError, match="data.pkl cannot be read.*corrupted"):
        t.load(io.BytesIO(bytes(bad)))
    entry = good.find(b"archive/data/0", good.find(b"PK\x01\x02")) - 46  # data/0's central directory entry
    bad = bytearray(good)
    bad[entry + 16] ^= 0xFF  # the CRC it records
    with pytest.raises(RuntimeError, match="record data/0 fails its CRC check"):
        t.load(io.BytesIO(bytes(bad)))
    for where in (good.find(b"PK\x01\x02"), len(good) - 10, len(good) - 20):
        bad = bytearray(good)
        bad[where] ^= 0xFF
        with pytest.raises(RuntimeError, match="not a readable zip archive"):
            t.load(io.BytesIO(bytes(bad)))
    bad = bytearray(good)
    bad[0] ^= 0xFF  # no longer a zip: read as a pickle, which it is not
    with pytest.raises(pickle.UnpicklingError, match="neither a checkpoint archive nor a pickle"):
        t.load(io.BytesIO(bytes(bad)))


def test_not_a_checkpoint():
    with pytest.raises(EOFError, match="the file is empty"):
        t.load(io.BytesIO(b""))
    with pytest.raises(pickle.UnpicklingError, match="neither a checkpoint archive nor a pickle"):
        t.load(io.BytesIO(b"hello world, not a checkpoint"))
    with pytest.raises(pickle.UnpicklingError, match="its data.pkl is not a valid pickle .pickle data was truncated"):
        t.load(archive(b""))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("x/other", "1")
    with pytest.raises(RuntimeError, match="no data.pkl record"):
        t.load(io.BytesIO(buf.getvalue()))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("a/data.pkl", pkl(body(1)))
        z.writestr("b/version", "3")
    with pytest.raises(RuntimeError, match="not in the archive's folder 'a'"):
        t.load(io.BytesIO(buf.getvalue()))
    with pytest.raises(RuntimeError, match="TorchScript"):
        t.load(archive(pkl(body(1)), extra={"archive/constants.pkl": b""}))
    legacy = b"\x80\x02\x8a\nl\xfc\x9cF\xf9 j\xa8P\x19.\x80\x02M\xe9\x03."
    with pytest.raises(RuntimeError, match="_use_new_zipfile_serialization=False"):
        t.load(io.BytesIO(legacy))


def test_compressed_records_are_read_and_checked():
    # another tool may re-zip a checkpoint with compression: still read, CRC still checked
    good = zipfile.ZipFile(io.BytesIO(_good_file()))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for info in good.infolist():
            z.writestr(info.filename, good.read(info))
    buf.seek(0)
    assert t.load(buf)["w"].tolist() == list(map(float, range(2000)))
