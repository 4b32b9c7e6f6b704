"""Assertions shared by the test packages."""

from __future__ import annotations

import numpy as np

import tensorlib


def assert_close(actual, expected, rtol=1e-6, atol=1e-6):
    """Compare a tensor (or array-like) with expected values, shapes included."""
    a = actual._data if isinstance(actual, tensorlib.Tensor) else np.asarray(actual)
    e = expected._data if isinstance(expected, tensorlib.Tensor) else np.asarray(expected)
    assert a.shape == e.shape, f"shape {a.shape} != {e.shape}"
    np.testing.assert_allclose(a, e, rtol=rtol, atol=atol)
