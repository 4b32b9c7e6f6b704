"""The ``api`` fixture of the protocol-state tests (test_c_module, test_overrides_private): each runs on tensorlib and, when installed, on torch."""

from __future__ import annotations

import types

import pytest

import tensorlib
import tensorlib._C
import tensorlib.overrides


def make_api(name: str) -> types.SimpleNamespace:
    """``lib``, ``C`` (its ``_C``) and ``ov`` (its ``overrides``) of tensorlib or torch (skips without torch)."""
    if name == "torch":
        torch = pytest.importorskip("torch")  # torch imports torch.overrides itself
        return types.SimpleNamespace(name=name, lib=torch, C=torch._C, ov=torch.overrides)
    return types.SimpleNamespace(name=name, lib=tensorlib, C=tensorlib._C, ov=tensorlib.overrides)


@pytest.fixture(params=["tensorlib", "torch"])
def api(request: pytest.FixtureRequest) -> types.SimpleNamespace:
    return make_api(request.param)
