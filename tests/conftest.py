"""Shared test helpers."""

from __future__ import annotations

import numpy as np
import pytest

import tensorlib


@pytest.fixture(autouse=True)
def _fresh_state():
    """Every test starts with seed 0, float32 default dtype and grad mode on."""
    tensorlib.manual_seed(0)
    tensorlib.set_default_dtype(tensorlib.float32)
    prev = tensorlib.is_grad_enabled()
    tensorlib.set_grad_enabled(True)
    yield
    tensorlib.set_grad_enabled(prev)
    tensorlib.set_default_dtype(tensorlib.float32)


def assert_close(actual, expected, rtol=1e-6, atol=1e-6):
    """Compare a tensor (or array-like) with expected values, shapes included."""
    a = actual._data if isinstance(actual, tensorlib.Tensor) else np.asarray(actual)
    e = expected._data if isinstance(expected, tensorlib.Tensor) else np.asarray(expected)
    assert a.shape == e.shape, f"shape {a.shape} != {e.shape}"
    np.testing.assert_allclose(a, e, rtol=rtol, atol=atol)
