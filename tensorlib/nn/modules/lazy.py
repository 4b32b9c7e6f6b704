"""``LazyModuleMixin``: modules whose parameters' shapes are inferred from the first input.

A lazy module holds :class:`~tensorlib.nn.parameter.UninitializedParameter` (and
``UninitializedBuffer``) placeholders. A forward pre-hook calls ``initialize_parameters`` on the first
call, which materializes them from the input's shape and initialises them; the module then becomes
``cls_to_become`` (``LazyLinear`` a ``Linear``). Loading a state dict into a lazy module materializes its
placeholders with the shapes of the values loaded, as torch does.
"""

from __future__ import annotations

import itertools
from typing import Any

from ..parameter import is_lazy


class LazyModuleMixin:
    """Mixin of the lazy modules: ``initialize_parameters`` runs before the first forward, then the module
    becomes ``cls_to_become``."""

    cls_to_become: type | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        me: Any = self
        self._load_hook = me._register_load_state_dict_pre_hook(self._lazy_load_hook)
        self._initialize_hook = me.register_forward_pre_hook(self._infer_parameters, with_kwargs=True)

    def _save_to_state_dict(self, destination: dict, prefix: str, keep_vars: bool) -> None:
        # placeholders are saved as they are (detaching one would refuse)
        me: Any = self
        for name, param in me._parameters.items():
            if param is not None:
                destination[prefix + name] = param if is_lazy(param) or keep_vars else param.detach()
        for name, buf in me._buffers.items():
            if buf is not None and name not in me._non_persistent_buffers_set:
                destination[prefix + name] = buf if is_lazy(buf) or keep_vars else buf.detach()

    def _lazy_load_hook(self, state_dict: dict, prefix: str, local_metadata: Any, strict: bool, missing_keys: list,
                        unexpected_keys: list, error_msgs: list) -> None:
        """Materialize the placeholders that ``state_dict`` has values for, with the values' shapes."""
        me: Any = self
        for name, param in itertools.chain(me._parameters.items(), me._buffers.items()):
            key = prefix + name
            if key in state_dict and param is not None:
                value = state_dict[key]
                if is_lazy(param) and not is_lazy(value):
                    param.materialize(value.shape)

    def initialize_parameters(self, *args: Any, **kwargs: Any) -> None:
        """Materialize and initialise the parameters from the first input (each lazy module implements it)."""
        raise NotImplementedError(f"initialize_parameters is not implemented for {self.__class__.__name__}")

    def has_uninitialized_params(self) -> bool:
        """Whether some parameter or buffer is still a placeholder."""
        me: Any = self
        return any(is_lazy(t) for t in itertools.chain(me._parameters.values(), me._buffers.values()))

    def _infer_parameters(self, module: Any, args: tuple, kwargs: dict | None = None) -> None:
        """The forward pre-hook: initialise from the input, then drop the hooks and become ``cls_to_become``."""
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {module._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        module._load_hook.remove()
        delattr(module, "_initialize_hook")
        delattr(module, "_load_hook")
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _replicate_for_data_parallel(self) -> Any:
        raise RuntimeError("Modules with uninitialized parameters can't be used with `DataParallel`. Run a dummy "
                           "forward pass to correctly initialize the modules")
