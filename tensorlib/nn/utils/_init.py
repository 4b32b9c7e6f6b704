"""``skip_init``: build a module without running its parameter initialisation."""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from ..._registry import NN_UTILS, public
from ..._tensor import _wrap
from ..modules.module import Module

__all__ = ["skip_init"]


@public(namespace=NN_UTILS)
def skip_init(module_cls: type, *args: Any, **kwargs: Any) -> Any:
    """A ``module_cls(*args, **kwargs)`` whose parameters and buffers are left uninitialised (``empty``), as
    torch's ``skip_init`` leaves them; fill them in afterwards. The class must take a ``device`` argument.

    torch builds the module on the meta device and then allocates it with ``to_empty``; tensorlib has no
    meta device, so the module is built as usual and its tensors are then replaced by empty ones of the
    same shapes and dtypes (gradients requirements and the parameter objects kept).
    """
    if not issubclass(module_cls, Module):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    kwargs["device"] = kwargs.pop("device", "cpu")
    module = module_cls(*args, **kwargs)
    for m in module.modules():
        for store in (m._parameters, m._buffers):
            for name, t in store.items():
                if t is not None:
                    t.data = _wrap(np.empty_like(t._data))
    return module
