"""``tensorlib.cuda``: what ported code asks of CUDA, answered as by a PyTorch built without it.

There is no CUDA here. The queries say so (``is_available()`` is ``False``), seeding is a
no-op as in torch without CUDA, and anything that needs a device raises ``AssertionError``
as torch does.
"""

from __future__ import annotations

from ._tensor import cuda_not_available

__all__ = [
    "current_device", "device_count", "empty_cache", "get_device_name", "init", "is_available", "is_initialized",
    "manual_seed", "manual_seed_all", "seed", "seed_all", "synchronize",
]


def is_available() -> bool:
    """Whether CUDA can be used: never."""
    return False


def device_count() -> int:
    """The number of CUDA devices: zero."""
    return 0


def is_initialized() -> bool:
    """Whether CUDA has been initialised: never."""
    return False


def init() -> None:
    """Initialise CUDA: raises ``AssertionError`` (there is none)."""
    raise cuda_not_available()


def current_device() -> int:
    """The index of the selected CUDA device: raises ``AssertionError`` (there is none)."""
    raise cuda_not_available()


def get_device_name(device: object = None) -> str:
    """The name of a CUDA device: raises ``AssertionError`` (there is none)."""
    raise cuda_not_available()


def synchronize(device: object = None) -> None:
    """Wait for a CUDA device: raises ``AssertionError`` (there is none)."""
    raise cuda_not_available()


def manual_seed(seed: int) -> None:
    """Seed the CUDA generator: a no-op without CUDA, as in torch (``seed`` must still be an integer)."""
    int(seed)


def manual_seed_all(seed: int) -> None:
    """Seed every CUDA generator: a no-op without CUDA, as in torch (``seed`` must still be an integer)."""
    int(seed)


def seed() -> None:
    """Seed the CUDA generator randomly: a no-op without CUDA, as in torch."""


def seed_all() -> None:
    """Seed every CUDA generator randomly: a no-op without CUDA, as in torch."""


def empty_cache() -> None:
    """Release cached CUDA memory: a no-op without CUDA, as in torch."""
