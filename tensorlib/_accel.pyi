"""Types of the optional C extension built from ``_accel.c`` (see ``tensorlib._accelerator``)."""

from typing import Any

import numpy as np

SOURCE_SHA256: str

def setup(tensor: type, ndarray: type, asarray: Any, /) -> None: ...
def wrap(data: np.ndarray, /) -> Any: ...
def same_dtype(a: Any, b: Any, ufunc: Any, dtypes: frozenset[Any] | set[Any], /) -> Any: ...
