"""PyTorch's checkpoint container: a zip archive of uncompressed records under one top-level folder.

The writer lays records out as PyTorch's does: each record's data starts on a 64-byte boundary (the local
header is padded with an extra field), CRC and sizes follow the data in a data descriptor, zip64 fields
appear only for records (or offsets) past 4 GiB. Storages are streamed from the tensor's memory in chunks,
so writing needs no copy of the data.

The reader takes the directory from :mod:`zipfile` and reads each storage straight into the array that
will hold it, checking its CRC. Every failure is a ``RuntimeError`` that names the file and what is wrong.
"""

from __future__ import annotations

import io
import struct
import threading
import zipfile
import zlib
from typing import Any

import numpy as np

ALIGNMENT = 64
CHUNK = 8 << 20  # bytes written (and checksummed) at a time: large enough to amortise the calls, small for the cache
# From this size a record's CRC is computed on a second thread while the first writes it: both calls release the
# GIL, and the checksum then costs no time next to the write.
PARALLEL_CRC = 32 << 20
# Past this size or offset a record needs zip64 fields. A module variable so that tests can exercise that layout.
ZIP64_LIMIT = 0xFFFFFFFF

_LOCAL = struct.Struct("<4sHHHHHIIIHH")
_CENTRAL = struct.Struct("<4sHHHHHHIIIHHHHHII")
_END = struct.Struct("<4sHHHHIIH")
_END64 = struct.Struct("<4sQHHIIQQQQ")
_END64_LOCATOR = struct.Struct("<4sIQI")
_FLAGS = 0x0808  # bit 3: CRC and sizes in a data descriptor after the data; bit 11: UTF-8 names
_PADDING_ID = 0x4246  # "FB", the extra-field id PyTorch's writer pads with
_ZIP64_ID = 0x0001


class ArchiveWriter:
    """Writes records ``<archive_name>/<name>`` to a binary file object, then the central directory."""

    def __init__(self, fh: Any, archive_name: str) -> None:
        self._fh = fh
        self._prefix = archive_name + "/"
        self._pos = 0  # offsets in a zip archive count from its first byte
        self._entries: list[tuple[bytes, int, int, int]] = []  # name, local header offset, size, CRC

    def _write(self, data: bytes | memoryview) -> None:
        size = len(data) if isinstance(data, bytes) else data.nbytes
        written = self._fh.write(data)
        # an unbuffered (raw) file may write less than it was given
        while written is not None and 0 < written < size:
            data = memoryview(data)[written:]
            size -= written
            self._pos += written
            written = self._fh.write(data)
        self._pos += size

    def write_record(self, name: str, data: bytes | np.ndarray) -> None:
        """Write one record; ``data`` is bytes or a contiguous uint8 array (streamed without a copy)."""
        full = (self._prefix + name).encode("utf-8")
        size = len(data) if isinstance(data, bytes) else int(data.nbytes)
        offset = self._pos
        zip64 = size >= ZIP64_LIMIT or offset >= ZIP64_LIMIT
        extra = struct.pack("<HHQQ", _ZIP64_ID, 16, size, size) if zip64 else b""
        start = offset + _LOCAL.size + len(full) + len(extra) + 4
        pad = -start % ALIGNMENT
        extra += struct.pack("<HH", _PADDING_ID, pad) + b"Z" * pad
        unknown = 0xFFFFFFFF if zip64 else 0
        self._write(_LOCAL.pack(b"PK\x03\x04", 45 if zip64 else 20, _FLAGS, 0, 0, 0, 0, unknown, unknown,
                                len(full), len(extra)) + full + extra)
        crc = 0
        if isinstance(data, bytes):
            crc = zlib.crc32(data)
            self._write(data)
        elif size >= PARALLEL_CRC:
            view = data.data.cast("B")
            result: list[int] = []
            worker = threading.Thread(target=lambda: result.append(zlib.crc32(view)), daemon=True)
            worker.start()
            try:
                for i in range(0, size, CHUNK):
                    self._write(view[i:i + CHUNK])
            finally:
                worker.join()
            crc = result[0]
        else:
            view = data.data.cast("B")
            for i in range(0, size, CHUNK):
                chunk = view[i:i + CHUNK]
                crc = zlib.crc32(chunk, crc)
                self._write(chunk)
        if zip64:
            self._write(struct.pack("<4sIQQ", b"PK\x07\x08", crc, size, size))
        else:
            self._write(struct.pack("<4sIII", b"PK\x07\x08", crc, size, size))
        self._entries.append((full, offset, size, crc))

    def finish(self) -> None:
        """Write the central directory and its end records."""
        start = self._pos
        parts = []
        for full, offset, size, crc in self._entries:
            fields = b""
            if size >= ZIP64_LIMIT:
                fields += struct.pack("<QQ", size, size)
            if offset >= ZIP64_LIMIT:
                fields += struct.pack("<Q", offset)
            extra = struct.pack("<HH", _ZIP64_ID, len(fields)) + fields if fields else b""
            small = size if size < ZIP64_LIMIT else 0xFFFFFFFF
            parts.append(_CENTRAL.pack(b"PK\x01\x02", 45 if fields else 20, 45 if fields else 20, _FLAGS, 0, 0, 0,
                                       crc, small, small, len(full), len(extra), 0, 0, 0, 0,
                                       min(offset, 0xFFFFFFFF)) + full + extra)
        directory = b"".join(parts)
        self._write(directory)
        count, size = len(self._entries), len(directory)
        if count >= 0xFFFF or size >= ZIP64_LIMIT or start >= ZIP64_LIMIT:
            end64 = self._pos
            self._write(_END64.pack(b"PK\x06\x06", _END64.size - 12, 45, 45, 0, 0, count, count, size, start))
            self._write(_END64_LOCATOR.pack(b"PK\x06\x07", 0, end64, 1))
        self._write(_END.pack(b"PK\x05\x06", 0, 0, min(count, 0xFFFF), min(count, 0xFFFF), min(size, 0xFFFFFFFF),
                              min(start, 0xFFFFFFFF), 0))


class ArchiveError(RuntimeError):
    """A checkpoint archive that cannot be read: truncated, corrupted, or not laid out as PyTorch's."""


class ArchiveReader:
    """The records of a checkpoint archive read from a seekable binary file object."""

    def __init__(self, fh: Any, source: str, mmap_path: Any = None) -> None:
        self._fh = fh
        self.source = source
        self._mmap_path = mmap_path
        self._map: np.ndarray | None = None
        try:
            self._zip = zipfile.ZipFile(fh)
            infos = self._zip.infolist()
        except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, ValueError, struct.error) as e:
            raise self.error(f"not a readable zip archive ({e}); the file is truncated or corrupted") from None
        if not infos:
            raise self.error("the zip archive holds no records")
        prefix = infos[0].filename.split("/", 1)[0]
        self.records: dict[str, zipfile.ZipInfo] = {}
        for info in infos:
            head, sep, rest = info.filename.partition("/")
            if not sep or head != prefix:
                raise self.error(f"record {info.filename!r} is not in the archive's folder {prefix!r}")
            self.records[rest] = info
        self.archive_name = prefix
        try:
            self._length = fh.seek(0, io.SEEK_END)
        except (OSError, ValueError) as e:
            raise self.error(f"cannot seek in the file ({e})") from None

    def check_record(self, name: str, nbytes: int) -> None:
        """Check, before any memory is reserved for it, that record ``name`` holds exactly ``nbytes`` bytes that the
        file can contain (a stored record within the file, a compressed one within deflate's ratio)."""
        info = self._info(name)
        if info.file_size != nbytes:
            raise self.error(f"record {name} holds {info.file_size} bytes but its storage needs {nbytes}")
        if info.compress_type == zipfile.ZIP_STORED:
            end = info.header_offset + _LOCAL.size + nbytes
            if end > self._length:
                raise self.error(f"record {name} claims {nbytes} bytes, more than the file holds; the file is "
                                 "truncated or corrupted")
        elif nbytes > 1100 * info.compress_size + 1024:
            raise self.error(f"record {name} claims {nbytes} bytes from {info.compress_size} compressed ones")

    def close(self) -> None:
        self._zip.close()
        self._map = None  # arrays mapped from the file keep the mapping open themselves

    def error(self, problem: str) -> ArchiveError:
        return ArchiveError(f"cannot load {self.source}: {problem}")

    def has_record(self, name: str) -> bool:
        return name in self.records

    def _info(self, name: str) -> zipfile.ZipInfo:
        info = self.records.get(name)
        if info is None:
            raise self.error(f"the archive has no record {self.archive_name}/{name}")
        return info

    def get_record(self, name: str, limit: int = 1 << 31) -> bytes:
        """A small record's bytes (the pickle, the version), its CRC checked."""
        info = self._info(name)
        if info.file_size > limit:
            raise self.error(f"record {name} claims {info.file_size} bytes, more than {limit}")
        try:
            return self._zip.read(info)
        except (zipfile.BadZipFile, EOFError, OSError, ValueError, struct.error, zlib.error,
                NotImplementedError) as e:
            raise self.error(f"record {name} cannot be read ({e}); the file is truncated or corrupted") from None

    def read_into(self, name: str, out: np.ndarray) -> None:
        """Fill the contiguous array ``out`` with the bytes of record ``name``, which must have exactly its size."""
        info = self._info(name)
        self.check_record(name, int(out.nbytes))
        view = out.reshape(-1).view(np.uint8).data
        if info.compress_type == zipfile.ZIP_STORED:
            self._read_stored(name, info, view)
        else:
            self._read_compressed(name, info, view)

    def _data_offset(self, name: str, info: zipfile.ZipInfo) -> int:
        fh = self._fh
        fh.seek(info.header_offset)
        header = fh.read(_LOCAL.size)
        if len(header) != _LOCAL.size or header[:4] != b"PK\x03\x04":
            raise self.error(f"record {name} has no valid local header; the file is corrupted")
        name_len, extra_len = struct.unpack("<HH", header[26:30])
        return info.header_offset + _LOCAL.size + name_len + extra_len

    def mapped(self, name: str, dtype: np.dtype, numel: int) -> np.ndarray | None:
        """With ``mmap``, the record as a copy-on-write array mapped from the file (None if it cannot be)."""
        if self._mmap_path is None:
            return None
        info = self._info(name)
        nbytes = numel * dtype.itemsize
        self.check_record(name, nbytes)
        if info.compress_type != zipfile.ZIP_STORED or nbytes == 0:
            return None
        try:
            offset = self._data_offset(name, info)
            if offset % dtype.itemsize:
                return None
            if self._map is None:
                self._map = np.memmap(self._mmap_path, dtype=np.uint8, mode="c")
        except (OSError, ValueError) as e:
            raise self.error(f"record {name} cannot be mapped ({e})") from None
        if offset + nbytes > self._map.size:
            raise self.error(f"record {name} is cut short; the file is truncated")
        return np.ndarray((numel,), dtype=dtype, buffer=self._map, offset=offset)

    def _read_stored(self, name: str, info: zipfile.ZipInfo, view: memoryview) -> None:
        fh = self._fh
        try:
            fh.seek(self._data_offset(name, info))
            done = crc = 0
            while done < view.nbytes:
                chunk = view[done:done + CHUNK]
                n = fh.readinto(chunk)
                if not n:
                    raise self.error(f"record {name} is cut short ({done} of {view.nbytes} bytes); the file is "
                                     "truncated")
                crc = zlib.crc32(chunk[:n], crc)  # while the chunk is in the cache
                done += n
        except (OSError, ValueError) as e:
            raise self.error(f"record {name} cannot be read ({e})") from None
        if crc != info.CRC:
            raise self.error(f"record {name} fails its CRC check; the file is corrupted")

    def _read_compressed(self, name: str, info: zipfile.ZipInfo, view: memoryview) -> None:
        try:
            with self._zip.open(info) as src:
                done = 0
                while done < view.nbytes:
                    chunk = src.read(min(CHUNK, view.nbytes - done))
                    if not chunk:
                        raise self.error(f"record {name} is cut short; the file is truncated")
                    view[done:done + len(chunk)] = chunk
                    done += len(chunk)
        except (zipfile.BadZipFile, EOFError, OSError, ValueError, struct.error, zlib.error,
                NotImplementedError) as e:
            raise self.error(f"record {name} cannot be read ({e}); the file is truncated or corrupted") from None


def readable_copy(fh: Any) -> io.BytesIO:
    """The rest of a stream that cannot seek, in memory (the zip directory is at the end)."""
    return io.BytesIO(fh.read())
