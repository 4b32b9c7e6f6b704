"""Op-table entries kept per area (``fft.py``, ``linalg.py``, ...), loaded by ``tests/ops/opinfo.py``.

Each module calls ``op(...)``/``alias(...)`` from ``tests.ops.opinfo`` at import and may define
``NOT_IN_TABLE`` (a set of names its area tests elsewhere, with a comment saying where).
"""
