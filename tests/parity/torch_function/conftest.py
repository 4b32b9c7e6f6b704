"""The ``api`` fixture: every test of this package runs against tensorlib and, when it is installed, torch."""

from __future__ import annotations

import pytest

from tests.parity.torch_function.libraries import Api


@pytest.fixture(params=["tensorlib", "torch"])
def api(request) -> Api:
    return Api(request.param)
