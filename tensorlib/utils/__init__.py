"""``tensorlib.utils``: data loading (:mod:`tensorlib.utils.data`)."""

from . import data

__all__ = ["data"]
