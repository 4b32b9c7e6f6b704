"""Whether dispatch's slow path runs its compiled twin (``dispatch._speedups``, optional) or Python.

The extension is built by ``pip install`` when a C compiler is present. Set ``DISPATCH_PURE_PYTHON=1`` before
importing dispatch to run the Python code although it is built; the Python code is the reference.
"""

from __future__ import annotations

import os
from types import ModuleType

#: the compiled module, or None when the pure-Python slow path runs
speedups: ModuleType | None = None
if os.environ.get("DISPATCH_PURE_PYTHON", "") in ("", "0"):
    try:
        from . import _speedups as speedups
    except ImportError:  # not built: no C compiler at install time, or TENSORLIB_NO_EXTENSION=1
        speedups = None
