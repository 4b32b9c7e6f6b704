"""tensorlib's instance of the dispatch protocol: ``__torch_function__``."""

from dispatch import Protocol

# torch's builtins pass ``kwargs=None`` to handlers when a call has no keyword arguments; so do ours
# ... and warn, as torch does, about handlers written as plain methods rather than classmethods
protocol = Protocol(
    "__torch_function__", mode_class_name="TorchFunctionMode", empty_kwargs="none", plain_method_warning=True,
    accessors_list_plain=True,
)
