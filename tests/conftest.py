"""Fixtures for every test."""

from __future__ import annotations

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
