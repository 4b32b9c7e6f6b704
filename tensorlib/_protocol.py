"""tensorlib's instance of the dispatch protocol: ``__torch_function__``."""

from dispatch import Protocol

protocol = Protocol("__torch_function__", mode_class_name="TorchFunctionMode")
