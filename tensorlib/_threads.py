"""Thread control: ``set_num_threads`` / ``get_num_threads`` for the BLAS pool NumPy computes with.

tensorlib's heavy kernels (matrix products, convolutions as GEMMs, linear algebra) run inside the BLAS library
NumPy was built with; its thread pool is the only one tensorlib has. This module finds that library among the
ones loaded in the process and calls its own thread-count functions (OpenBLAS, including the ``scipy_openblas``
build NumPy's wheels ship, MKL and BLIS), with ``ctypes`` only: no extra dependency.

The pool is shared with NumPy itself (and anything else using the same BLAS in the process), as it is shared by
all NumPy users. When no known BLAS is found (a NumPy without threaded BLAS), the count is kept and reported but
changes nothing.

Default: one thread, set when tensorlib is imported. Training steps are made of many small and medium matrix
products, where BLAS threads gain little, and BLAS threads that spin waiting for a core slow each other down badly
on a machine other processes keep busy (measured in ``benchmarks/cnn_step.py``).
``TENSORLIB_NUM_THREADS=n`` chooses another default; when the BLAS is configured through its own environment
variables (``OMP_NUM_THREADS``, ``OPENBLAS_NUM_THREADS``, ``MKL_NUM_THREADS``, ...) tensorlib leaves it alone.
Large matrix products gain from more threads: ``set_num_threads(n)``.
"""

from __future__ import annotations

import ctypes
import os
from typing import Callable

import numpy as np

from ._registry import public

__all__ = ["get_num_threads", "set_num_threads"]

# (setter, getter) symbol names of the thread-count functions of the BLAS libraries NumPy builds with
_SYMBOLS = (
    ("scipy_openblas_set_num_threads64_", "scipy_openblas_get_num_threads64_"),
    ("scipy_openblas_set_num_threads", "scipy_openblas_get_num_threads"),
    ("openblas_set_num_threads64_", "openblas_get_num_threads64_"),
    ("openblas_set_num_threads", "openblas_get_num_threads"),
    ("MKL_Set_Num_Threads", "MKL_Get_Max_Threads"),
    ("bli_thread_set_num_threads", "bli_thread_get_num_threads"),
)
_LIBRARY_HINTS = ("openblas", "mkl_rt", "libblis", "libblas")


class _BlasThreads:
    """The loaded BLAS library's thread-count functions, looked up once, on first use."""

    def __init__(self) -> None:
        self.looked_up = False
        self.setter: Callable[[int], object] | None = None
        self.getter: Callable[[], int] | None = None
        self.library: str | None = None
        self.requested = _available_cpus()

    def lookup(self) -> None:
        if self.looked_up:
            return
        self.looked_up = True
        np.dot(np.ones((2, 2)), np.ones((2, 2)))  # makes sure NumPy has loaded its BLAS
        for path in _candidate_libraries():
            try:
                lib = ctypes.CDLL(path)
            except OSError:
                continue
            for set_name, get_name in _SYMBOLS:
                setter, getter = getattr(lib, set_name, None), getattr(lib, get_name, None)
                if setter is not None and getter is not None:
                    setter.argtypes, setter.restype = [ctypes.c_int], None
                    getter.argtypes, getter.restype = [], ctypes.c_int
                    self.setter, self.getter, self.library = setter, getter, path
                    return


def _available_cpus() -> int:
    """The CPUs this process may run on (its affinity mask where the platform has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _mapped_libraries(maps: str) -> list[str]:
    """The BLAS-looking paths of a ``/proc/<pid>/maps`` text, in order of appearance.

    The hints are searched for in the whole text and only the lines they fall on are split: a process with
    NumPy maps hundreds of lines, and looking at each one in Python was a millisecond of ``import tensorlib``.
    """
    lowered = maps.lower()
    hits: list[tuple[int, str]] = []
    for hint in _LIBRARY_HINTS:
        at = lowered.find(hint)
        while at != -1:
            start, end = maps.rfind("\n", 0, at) + 1, maps.find("\n", at)
            end = len(maps) if end == -1 else end
            line = maps[start:end]
            path = line.rsplit(None, 1)[-1] if "/" in line else ""
            if hint in os.path.basename(path).lower():
                hits.append((start, path))
            at = lowered.find(hint, end)
    found: list[str] = []
    for _, path in sorted(hits):
        if path not in found:
            found.append(path)
    return found


def _candidate_libraries() -> list[str]:
    """Paths of loaded (or bundled with NumPy) shared libraries that look like a BLAS, most likely first."""
    found: list[str] = []
    try:  # Linux: the libraries actually mapped into this process
        with open("/proc/self/maps") as maps:
            found = _mapped_libraries(maps.read())
    except OSError:
        pass
    if found:
        return found
    # elsewhere: the BLAS NumPy's wheels bundle next to the package
    root = os.path.dirname(os.path.dirname(os.path.abspath(np.__file__)))
    for folder in (os.path.join(root, "numpy.libs"), os.path.join(root, "numpy", ".dylibs")):
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        for name in names:
            path = os.path.join(folder, name)
            if any(h in name.lower() for h in _LIBRARY_HINTS) and path not in found:
                found.append(path)
    return found


_BLAS = _BlasThreads()


def _check_count(nthreads: object, fname: str) -> int:
    if isinstance(nthreads, (bool, np.bool_)) or not isinstance(nthreads, (int, np.integer)):
        raise RuntimeError(f"{fname} expects an int, but got {type(nthreads).__name__}")
    if nthreads <= 0:
        raise RuntimeError(f"{fname} expects a positive integer")
    return int(nthreads)


@public()
def set_num_threads(nthreads: int) -> None:
    """Set the number of threads the BLAS library behind NumPy (and so tensorlib) computes with.

    The setting is process-wide and shared with NumPy. One thread is often fastest for small tensors and on a
    machine that other processes keep busy, where BLAS threads that spin waiting for a core slow each other down.
    """
    n = _check_count(nthreads, "set_num_threads")
    _BLAS.lookup()
    _BLAS.requested = n
    if _BLAS.setter is not None:
        _BLAS.setter(n)


@public()
def get_num_threads() -> int:
    """The number of threads the BLAS library behind NumPy computes with (the CPUs available by default)."""
    _BLAS.lookup()
    if _BLAS.getter is not None:
        return int(_BLAS.getter())
    return _BLAS.requested


_BLAS_ENVIRONMENT = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS",
                     "GOTO_NUM_THREADS")


def apply_default() -> None:
    """Set the import-time default thread count (see the module's documentation)."""
    chosen = os.environ.get("TENSORLIB_NUM_THREADS", "").strip()
    if chosen:
        try:
            n = int(chosen)
        except ValueError:
            raise RuntimeError(f"TENSORLIB_NUM_THREADS must be a positive integer, not {chosen!r}") from None
        set_num_threads(n)
    elif not any(os.environ.get(name) for name in _BLAS_ENVIRONMENT):
        set_num_threads(1)


def blas_library() -> str | None:
    """The path of the BLAS library whose threads :func:`set_num_threads` controls (None when none was found)."""
    _BLAS.lookup()
    return _BLAS.library


apply_default()
