"""tensorlib.testing.assert_close on its own: what passes, what fails and with which message."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import tensorlib
from tensorlib.testing import assert_close


def _message(actual: Any, expected: Any, error: type[Exception] = AssertionError, **kwargs: Any) -> str:
    with pytest.raises(error) as info:
        assert_close(actual, expected, **kwargs)
    return str(info.value)


@pytest.mark.parametrize(
    ("actual", "expected"),
    [
        (tensorlib.tensor([1.0, 2.0]), tensorlib.tensor([1.0, 2.0 + 1e-6])),
        (tensorlib.tensor([1.0], dtype=tensorlib.float64), tensorlib.tensor([1.0 + 1e-8], dtype=tensorlib.float64)),
        (tensorlib.tensor([1.0], dtype=tensorlib.float16), tensorlib.tensor([1.0005], dtype=tensorlib.float16)),
        (tensorlib.tensor([1 + 1j]), tensorlib.tensor([1 + 1j + 1e-6])),
        (tensorlib.tensor([1, 2]), tensorlib.tensor([1, 2])),
        (tensorlib.tensor([True, False]), tensorlib.tensor([True, False])),
        (tensorlib.tensor([math.inf, -math.inf]), tensorlib.tensor([math.inf, -math.inf])),
        (1.0, 1.0 + 1e-9),
        (1, 1),
        (True, True),
        (None, None),
        ([1, (2.0, None)], (1, [2.0, None])),
        ({"a": tensorlib.ones(2), "b": [3]}, {"b": [3], "a": tensorlib.ones(2)}),
        (np.array([1.0, 2.0]), np.array([1.0, 2.0])),
        (np.float32(1.5), 1.5),
    ],
)
def test_close_inputs_pass(actual: Any, expected: Any) -> None:
    assert_close(actual, expected)


def test_default_tolerances_follow_the_dtype() -> None:
    a32, e32 = tensorlib.tensor([1.0]), tensorlib.tensor([1.0 + 5e-5])
    assert "up to 1e-05 allowed" in _message(a32, e32)
    a64 = tensorlib.tensor([1.0], dtype=tensorlib.float64)
    assert_close(a64, tensorlib.tensor([1.0 + 1e-8], dtype=tensorlib.float64))
    assert "up to 1e-07 allowed" in _message(a64, tensorlib.tensor([1.0 + 1e-6], dtype=tensorlib.float64))
    # integers are compared exactly
    assert _message(tensorlib.tensor([1, 2]), tensorlib.tensor([1, 3])).startswith("Tensor-likes are not equal!")


def test_mismatch_message_reports_count_and_greatest_differences() -> None:
    actual = tensorlib.tensor([[1.0, 4.0], [5.0, 1.0]])
    expected = tensorlib.tensor([[1.0, 2.0], [3.0, 0.5]])
    assert _message(actual, expected) == (
        "Tensor-likes are not close!\n\n"
        "Mismatched elements: 3 / 4 (75.0%)\n"
        "Greatest absolute difference: 2.0 at index (0, 1) (up to 1e-05 allowed)\n"
        "Greatest relative difference: 1.0 at index (0, 1) (up to 1.3e-06 allowed)"
    )


def test_zero_dim_tensors_are_reported_as_scalars() -> None:
    assert _message(tensorlib.tensor(2.0), tensorlib.tensor(1.0)) == (
        "Scalars are not close!\n\n"
        "Expected 1.0 but got 2.0.\n"
        "Absolute difference: 1.0 (up to 1e-05 allowed)\n"
        "Relative difference: 1.0 (up to 1.3e-06 allowed)"
    )


def test_nan_is_equal_only_with_equal_nan() -> None:
    nan = tensorlib.tensor([1.0, math.nan])
    assert "Mismatched elements: 1 / 2 (50.0%)" in _message(nan, nan.clone())
    assert_close(nan, nan.clone(), equal_nan=True)
    assert _message(math.nan, math.nan).startswith("Scalars are not close!")
    assert_close(math.nan, math.nan, equal_nan=True)


def test_infinities_are_only_close_to_themselves() -> None:
    assert "Greatest absolute difference: inf" in _message(tensorlib.tensor([math.inf]), tensorlib.tensor([-math.inf]))


def test_attribute_mismatches_name_tensorlib_types() -> None:
    assert _message(tensorlib.ones(2), tensorlib.ones(3)) == (
        "The values for attribute 'shape' do not match: tensorlib.Size([2]) != tensorlib.Size([3])."
    )
    f64 = tensorlib.ones(2, dtype=tensorlib.float64)
    assert _message(tensorlib.ones(2), f64) == (
        "The values for attribute 'dtype' do not match: tensorlib.float32 != tensorlib.float64."
    )
    assert_close(tensorlib.ones(2), f64, check_dtype=False)
    t = tensorlib.ones(2, 3).t()
    assert_close(t, tensorlib.ones(3, 2))
    assert _message(t, tensorlib.ones(3, 2), check_stride=True) == (
        "The values for attribute 'stride()' do not match: (1, 3) != (2, 1)."
    )


def test_scalar_types_must_match_unless_check_dtype_is_off() -> None:
    assert _message(1.0, 1) == "The (d)types do not match: <class 'float'> != <class 'int'>."
    assert_close(1.0, 1, check_dtype=False)
    assert _message(True, False) == "Booleans mismatch: True is not False"
    assert _message(None, 0) == "None mismatch: None is not 0"


def test_rtol_and_atol_go_together() -> None:
    text = "Both 'rtol' and 'atol' must be either specified or omitted, but got no atol."
    assert _message(1.0, 1.0, ValueError, rtol=0.1) == text
    assert _message(tensorlib.ones(1), tensorlib.ones(1), ValueError, atol=0.1).endswith("but got no rtol.")
    assert_close(tensorlib.tensor([1.0]), tensorlib.tensor([1.5]), rtol=0.0, atol=0.5)
    assert "are not equal!" in _message(1e-9, 1e-10, rtol=0, atol=0)


def test_structures_are_compared_item_by_item() -> None:
    assert _message([1, 2], [1, 2, 3]) == "The length of the sequences mismatch: 2 != 3"
    assert _message({"a": 1, "b": 2}, {"a": 1, "c": 2}) == (
        "The keys of the mappings do not match:\n"
        "Missing keys in the actual mapping: ['c']\n"
        "Additional keys in the actual mapping: ['b']"
    )
    text = _message({"x": [1.0, tensorlib.tensor([1.0, 2.0])]}, {"x": [1.0, tensorlib.tensor([1.0, 3.0])]})
    assert text.endswith("\n\nThe failure occurred for item ['x'][1]")


def test_unrelated_types_raise_type_error() -> None:
    assert _message(tensorlib.ones(2), [1.0, 1.0], TypeError) == (
        "No comparison pair was able to handle inputs of type <class 'tensorlib.Tensor'> and <class 'list'>."
    )
    _message(np.ones(2), tensorlib.ones(2), TypeError)
    _message("a", "a", TypeError)
    _message(1, tensorlib.tensor(1), TypeError)


def test_msg_replaces_or_wraps_the_message_of_a_value_mismatch() -> None:
    a, e = tensorlib.tensor([1.0]), tensorlib.tensor([2.0])
    assert _message(a, e, msg="custom") == "custom"
    wrapped = _message([a], [e], msg=lambda m: f"Header\n\n{m}\n\nFooter")
    assert wrapped.startswith("Header\n\nTensor-likes are not close!")
    assert wrapped.endswith("The failure occurred for item [0]\n\nFooter")
    # structure and type errors come before any comparison and keep their own message
    assert _message([1], [1, 2], msg="custom") == "The length of the sequences mismatch: 1 != 2"


def test_integer_and_bool_mismatches_report_integer_differences() -> None:
    text = _message(tensorlib.tensor([0, 5], dtype=tensorlib.uint8), tensorlib.tensor([0, 7], dtype=tensorlib.uint8))
    assert "Greatest absolute difference: 2 at index (1,)" in text
    text = _message(tensorlib.tensor([True, False]), tensorlib.tensor([True, True]))
    assert "Greatest absolute difference: 1 at index (1,)" in text


def test_is_public_and_not_overridable() -> None:
    assert tensorlib.testing.assert_close is assert_close
    assert "testing" in tensorlib.__all__
    assert set(tensorlib.testing.__all__) == {"assert_close", "make_tensor"}
    ignored = tensorlib.overrides.get_ignored_functions()
    assert assert_close in ignored and tensorlib.testing.make_tensor in ignored
