"""tensorlib's instance of the dispatch protocol: ``__torch_function__``."""

from dispatch import Protocol

# torch's builtins pass ``kwargs=None`` to handlers when a call has no keyword arguments; so do ours
protocol = Protocol("__torch_function__", mode_class_name="TorchFunctionMode", empty_kwargs="none")
