"""Build hook for the optional C extensions; everything else is in pyproject.toml.

``tensorlib._accel`` (tensorlib/_accel.c) and ``dispatch._speedups`` (dispatch/_speedups.c) are ``optional``:
without a C compiler (or with ``TENSORLIB_NO_EXTENSION=1`` in the environment) the install goes on and both
packages run their pure-Python paths.
"""

import hashlib
import os
from pathlib import Path

from setuptools import Extension, setup

HERE = Path(__file__).parent


def optional_extension(name: str, source: str, digest_macro: str) -> Extension:
    """``name`` built from ``source``, with the source's digest compiled in: a test compares it with the file,
    so a stale build cannot go unnoticed."""
    digest = hashlib.sha256((HERE / source).read_bytes()).hexdigest()
    return Extension(name, [source], optional=True, define_macros=[(digest_macro, f'"{digest}"')])


extensions = []
if os.environ.get("TENSORLIB_NO_EXTENSION", "") in ("", "0"):
    extensions = [
        optional_extension("tensorlib._accel", "tensorlib/_accel.c", "TENSORLIB_ACCEL_SOURCE_SHA256"),
        optional_extension("dispatch._speedups", "dispatch/_speedups.c", "DISPATCH_SPEEDUPS_SOURCE_SHA256"),
    ]

setup(ext_modules=extensions)
