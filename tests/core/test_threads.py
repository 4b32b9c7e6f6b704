"""set_num_threads / get_num_threads: the BLAS pool NumPy computes with, its import-time default, torch's errors."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import tensorlib
from tensorlib import _threads

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture
def restore_threads():
    before = tensorlib.get_num_threads()
    yield
    tensorlib.set_num_threads(before)


def test_the_count_round_trips_and_reaches_the_blas_library(restore_threads):
    for n in (2, 1, 3):
        tensorlib.set_num_threads(n)
        assert tensorlib.get_num_threads() == n
        if _threads.blas_library() is not None:  # the library's own getter reports it
            assert _threads._BLAS.getter() == n
    a = np.ones((64, 64))
    assert np.allclose(tensorlib.from_numpy(a) @ tensorlib.from_numpy(a), a @ a)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="NumPy's Linux wheels bundle OpenBLAS")
def test_numpys_bundled_blas_is_found():
    if "openblas" not in str(np.show_config(mode="dicts")["Build Dependencies"]["blas"]).lower():
        pytest.skip("this NumPy was not built with OpenBLAS")
    assert _threads.blas_library() is not None


@pytest.mark.parametrize("value, message", [
    (0, "set_num_threads expects a positive integer"),
    (-2, "set_num_threads expects a positive integer"),
    (1.5, "set_num_threads expects an int, but got float"),
    (True, "set_num_threads expects an int, but got bool"),
])
def test_bad_counts_raise_torchs_error_and_change_nothing(value, message, restore_threads):
    before = tensorlib.get_num_threads()
    with pytest.raises(RuntimeError, match=message):
        tensorlib.set_num_threads(value)
    assert tensorlib.get_num_threads() == before


def test_bad_counts_match_torch():
    torch = pytest.importorskip("torch")
    for value in (0, 1.5, True):
        with pytest.raises(RuntimeError) as theirs:
            torch.set_num_threads(value)
        with pytest.raises(RuntimeError) as ours:
            tensorlib.set_num_threads(value)
        assert str(ours.value) == str(theirs.value)


def _threads_at_import(**env: str) -> str:
    clean = {k: v for k, v in os.environ.items() if k not in _threads._BLAS_ENVIRONMENT + ("TENSORLIB_NUM_THREADS",)}
    done = subprocess.run([sys.executable, "-c", "import tensorlib; print(tensorlib.get_num_threads())"],
                          capture_output=True, text=True, env={**clean, **env, "PYTHONPATH": ROOT}, cwd=ROOT,
                          timeout=120, check=False)
    return done.stdout.strip() or done.stderr.strip().splitlines()[-1]


def test_import_defaults_to_one_thread_unless_configured():
    assert _threads_at_import() == "1"
    assert _threads_at_import(TENSORLIB_NUM_THREADS="2") == "2"
    if _threads._available_cpus() > 1:
        assert _threads_at_import(OPENBLAS_NUM_THREADS="2") == "2"  # the BLAS's own setting is left alone
    assert "TENSORLIB_NUM_THREADS must be a positive integer" in _threads_at_import(TENSORLIB_NUM_THREADS="many")


def test_the_functions_are_public_and_not_overridable():
    assert tensorlib.set_num_threads in tensorlib.overrides.get_ignored_functions()
    assert tensorlib.get_num_threads in tensorlib.overrides.get_ignored_functions()


def test_without_proc_maps_the_blas_bundled_with_numpy_is_found(monkeypatch, tmp_path):
    def no_maps(path, *args, **kwargs):
        raise OSError(f"no {path}")

    monkeypatch.setattr(_threads, "open", no_maps, raising=False)  # as on a platform without /proc
    root = tmp_path / "site-packages"
    (root / "numpy").mkdir(parents=True)
    (root / "numpy.libs").mkdir()
    for name in ("libgfortran-1.so.5", "libscipy_openblas64_-2.so", "libquadmath-3.so.0"):
        (root / "numpy.libs" / name).write_bytes(b"")
    monkeypatch.setattr(_threads.np, "__file__", str(root / "numpy" / "__init__.py"))
    assert _threads._candidate_libraries() == [str(root / "numpy.libs" / "libscipy_openblas64_-2.so")]
    (root / "numpy.libs" / "libscipy_openblas64_-2.so").unlink()
    assert _threads._candidate_libraries() == []


def test_the_blas_is_picked_out_of_the_mapped_files_in_order():
    maps = (
        "7f0-7f1 r-xp 00000000 08:01 11 /usr/lib/libfoo.so\n"
        "7f1-7f2 r-xp 00000000 08:01 12 /opt/x/libOpenBLAS.so.0\n"
        "7f2-7f3 r--p 00000000 08:01 12 /opt/x/libOpenBLAS.so.0\n"
        "7f3-7f4 rw-p 00000000 00:00 0 \n"
        "7f4-7f5 r-xp 00000000 08:01 13 /opt/mkl/libmkl_rt.so.2\n"
        "7f5-7f6 r-xp 00000000 08:01 14 /home/openblas/libother.so\n"
        "7f6-7f7 rw-p 00000000 00:00 0 [heap]\n"
        "7f7-7f8 r-xp 00000000 08:01 15 /usr/lib/libblas.so.3"
    )
    assert _threads._mapped_libraries(maps) == ["/opt/x/libOpenBLAS.so.0", "/opt/mkl/libmkl_rt.so.2",
                                                 "/usr/lib/libblas.so.3"]
    assert _threads._mapped_libraries("") == []
