"""The legacy tensor types: ``tensorlib.FloatTensor``, ``LongTensor``, ... (one per dtype).

They construct tensors of their dtype (``FloatTensor([1, 2])``, ``LongTensor(2, 3)``)
and match tensors of that dtype in ``isinstance``; ``t.type(tensorlib.LongTensor)``
converts to it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _dtype
from ._registry import public
from ._size import Size
from ._alloc import allocation_error
from ._tensor import _LEGACY_NAMES, Tensor, _wrap, check_device, check_legacy_data
from .ops.creation import array_from_data, parse_size


class tensortype(type):
    """The metaclass of the legacy tensor types."""

    dtype: _dtype.dtype

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, Tensor) and obj._data.dtype == cls.dtype.np

    def __repr__(cls) -> str:
        return f"<class 'tensorlib.{cls.__name__}'>"

    def __call__(cls, *args: Any, **kwargs: Any) -> Tensor:
        try:
            return cls._construct(args, kwargs)
        except (MemoryError, ValueError) as exc:
            alloc = allocation_error(exc)
            if alloc is not None:
                raise alloc from exc
            raise

    def _construct(cls, args: tuple, kwargs: dict) -> Tensor:
        check_device(kwargs.pop("device", None))
        if kwargs:
            raise TypeError(
                f"new() received an invalid combination of arguments - got unexpected keyword argument(s) "
                f"{', '.join(sorted(kwargs))}"
            )
        npdt = cls.dtype.np
        if not args:
            return _wrap(np.empty((0,), dtype=npdt))
        if len(args) == 1:
            a = args[0]
            if isinstance(a, Tensor):
                if a._data.dtype != npdt:
                    raise TypeError(f"expected {cls.dtype!r} (got {a.dtype!r})")
                return a
            if isinstance(a, Size):
                return _wrap(np.empty(tuple(a), dtype=npdt))
            if isinstance(a, (list, tuple, np.ndarray, range)):
                return _wrap(array_from_data(a, cls.dtype))
            check_legacy_data(a)

        return _wrap(np.empty(parse_size(args, "new"), dtype=npdt))


def _make(dtype_name: str) -> type:
    name = _LEGACY_NAMES[dtype_name]
    cls = tensortype(name, (), {"__doc__": f"The legacy type of {dtype_name} tensors.", "__module__": "tensorlib"})
    cls.dtype = getattr(_dtype, dtype_name)
    return public()(cls)


LEGACY_TYPES = {_LEGACY_NAMES[n]: _make(n) for n in _LEGACY_NAMES}
