"""tensorlib.testing.make_tensor on its own: shapes, ranges per dtype, flags and validation errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tensorlib
from tensorlib.testing import make_tensor

ALL_DTYPES = [tensorlib.bool, tensorlib.uint8, tensorlib.int8, tensorlib.int16, tensorlib.int32, tensorlib.int64,
              tensorlib.float16, tensorlib.float32, tensorlib.float64, tensorlib.complex64, tensorlib.complex128]


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_dtype_and_default_range(dtype: tensorlib.dtype) -> None:
    t = make_tensor(400, dtype=dtype, device="cpu")
    assert t.dtype is dtype and t.shape == (400,) and not t.requires_grad
    a = t.numpy()
    parts = [a.real, a.imag] if dtype.is_complex else [a.astype(np.float64)]
    low, high = {tensorlib.bool: (0, 2), tensorlib.uint8: (0, 10)}.get(dtype, (-9, 10 if a.dtype.kind == "i" else 9))
    for part in parts:
        assert part.min() >= low and part.max() < high


@pytest.mark.parametrize("shape", [(), (0,), (2, 3), ((2, 3),), ([4],), (tensorlib.Size([1, 2]),)])
def test_shape_as_integers_or_one_sequence(shape: tuple) -> None:
    expected = tuple(shape[0]) if shape and not isinstance(shape[0], int) else shape
    assert make_tensor(*shape, dtype=tensorlib.float32, device="cpu").shape == expected


def test_low_and_high_bound_the_values() -> None:
    t = make_tensor(1000, dtype=tensorlib.float64, device="cpu", low=2.0, high=2.5).numpy()
    assert t.min() >= 2.0 and t.max() < 2.5
    i = make_tensor(1000, dtype=tensorlib.int64, device="cpu", low=-2.5, high=1.5).numpy()
    assert set(np.unique(i)) == {-2, -1, 0, 1}  # low and high are rounded up
    # bounds beyond the dtype's range are clamped
    u = make_tensor(1000, dtype=tensorlib.uint8, device="cpu", low=-100, high=1000).numpy()
    assert u.min() >= 0 and u.max() <= 255
    h = make_tensor(100, dtype=tensorlib.float16, device="cpu", low=-1e10, high=1e10).numpy()
    assert np.isfinite(h).all()
    full_range = make_tensor(100, dtype=tensorlib.float64, device="cpu", low=-math.inf, high=math.inf).numpy()
    assert np.isfinite(full_range).all()


def test_flags() -> None:
    t = make_tensor(3, 4, dtype=tensorlib.float32, device="cpu", noncontiguous=True, requires_grad=True)
    assert t.shape == (3, 4) and not t.is_contiguous() and t.requires_grad and t.is_leaf
    assert make_tensor(1, dtype=tensorlib.float32, device="cpu", noncontiguous=True).is_contiguous()
    z = make_tensor(200, dtype=tensorlib.int32, device="cpu", low=0, high=2, exclude_zero=True).numpy()
    assert (z == 1).all()
    f = make_tensor(50, dtype=tensorlib.float32, device="cpu", low=0, high=1e-40, exclude_zero=True).numpy()
    assert (f != 0).all()
    assert make_tensor(2, 2, dtype=tensorlib.float32, device="cpu", memory_format=None).is_contiguous()


def test_reproducible_under_manual_seed() -> None:
    tensorlib.manual_seed(0)
    a = make_tensor(5, dtype=tensorlib.complex64, device="cpu")
    tensorlib.manual_seed(0)
    b = make_tensor(5, dtype=tensorlib.complex64, device="cpu")
    assert tensorlib.equal(a, b)


@pytest.mark.parametrize(
    ("kwargs", "error", "text"),
    [
        ({"dtype": tensorlib.int64, "requires_grad": True}, ValueError,
         "`requires_grad=True` is not supported for boolean and integral dtypes, but got dtype=tensorlib.int64"),
        ({"dtype": tensorlib.float32, "low": 3, "high": 2}, ValueError,
         "`low` must be less than `high`, but got 3 >= 2"),
        ({"dtype": tensorlib.float32, "low": math.nan}, ValueError,
         "`low` and `high` cannot be NaN, but got low=nan and high=9"),
        ({"dtype": tensorlib.uint8, "low": -20, "high": -10}, ValueError,
         "The value interval specified by `low` and `high` is [-20, -10), but tensorlib.uint8 only supports [0, 256)"),
        ({"dtype": tensorlib.float32, "noncontiguous": True, "memory_format": "contiguous"}, ValueError,
         "The parameters `noncontiguous` and `memory_format` are mutually exclusive"),
        ({"dtype": "float32"}, TypeError, "The requested dtype 'float32' is not supported"),
    ],
)
def test_invalid_arguments(kwargs: dict, error: type[Exception], text: str) -> None:
    with pytest.raises(error) as info:
        make_tensor(3, device="cpu", **kwargs)
    assert str(info.value).startswith(text)


def test_low_equal_high_is_deprecated_for_floating_types() -> None:
    with pytest.warns(FutureWarning, match="low==high"):
        t = make_tensor(3, dtype=tensorlib.float32, device="cpu", low=1, high=1)
    assert (t.numpy() == 1).all()
    with pytest.raises(ValueError, match="must be less than"):
        make_tensor(3, dtype=tensorlib.int32, device="cpu", low=1, high=1)


def test_only_the_cpu_device() -> None:
    assert make_tensor(2, dtype=tensorlib.float32, device=tensorlib.device("cpu")).device == tensorlib.device("cpu")
    with pytest.raises(AssertionError):
        make_tensor(2, dtype=tensorlib.float32, device="cuda")
