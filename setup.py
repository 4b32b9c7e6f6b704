"""Build hook for the optional C extension ``tensorlib._accel``; everything else is in pyproject.toml.

The extension is ``optional``: without a C compiler (or with ``TENSORLIB_NO_EXTENSION=1`` in the environment)
the install goes on and tensorlib runs its pure-Python paths.
"""

import hashlib
import os
from pathlib import Path

from setuptools import Extension, setup

SOURCE = "tensorlib/_accel.c"

extensions = []
if os.environ.get("TENSORLIB_NO_EXTENSION", "") in ("", "0"):
    # the source's digest, compiled in: a test compares it with the file, so a stale build cannot go unnoticed
    digest = hashlib.sha256(Path(__file__).with_name("tensorlib").joinpath("_accel.c").read_bytes()).hexdigest()
    extensions.append(Extension(
        "tensorlib._accel", [SOURCE], optional=True, define_macros=[("TENSORLIB_ACCEL_SOURCE_SHA256", f'"{digest}"')],
    ))

setup(ext_modules=extensions)
