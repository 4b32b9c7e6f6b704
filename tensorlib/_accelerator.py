"""Which implementation of the hot paths runs: the compiled ``tensorlib._accel`` when it was built, else Python.

The extension is optional (``pip install`` builds it when a C compiler is present and goes on without it). The
pure-Python code is the reference: every function of ``_accel`` has a Python twin that the same tests cover.
Set ``TENSORLIB_PURE_PYTHON=1`` before importing tensorlib to run the Python twins although the extension is
built (CI runs the suite both ways).
"""

from __future__ import annotations

import os
from types import ModuleType

#: the compiled module, or None when the pure-Python paths run
accel: ModuleType | None = None
if os.environ.get("TENSORLIB_PURE_PYTHON", "") in ("", "0"):
    try:
        from . import _accel as accel
    except ImportError:  # not built: no C compiler at install time, or TENSORLIB_NO_EXTENSION=1
        accel = None
