"""``nn.parallel``: ``DataParallel``, which on a machine without accelerators (tensorlib's only kind) runs the
module as it is, as torch's does on the CPU."""

from __future__ import annotations

from typing import Any, Sequence

from .modules.module import Module

__all__ = ["DataParallel"]


class DataParallel(Module):
    """Data parallelism over accelerators: with none available (always, here), ``forward`` calls ``module``.

    As torch's on the CPU, ``device_ids`` is ``[]`` whatever is passed, ``output_device`` and ``dim`` are
    not kept, and the state dict holds the module's entries under ``module.``.
    """

    def __init__(self, module: Module, device_ids: Sequence[Any] | None = None, output_device: Any = None,
                 dim: int = 0) -> None:
        super().__init__()
        self.module = module
        self.device_ids: list = []

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        return self.module(*inputs, **kwargs)
