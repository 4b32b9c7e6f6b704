"""Type promotion of arithmetic and comparison ops, by torch's rules.

Operands are written as strings: ``"int32"`` is a 1-D tensor of that dtype,
``"int32[]"`` a 0-dim one; anything else is a Python scalar. The fixed table
below was read off torch; with torch installed, every dtype pair is compared
with it too.
"""

from __future__ import annotations

import itertools
import warnings
from typing import Any

import pytest

import tensorlib

DTYPES = "bool uint8 int8 int16 int32 int64 float16 float32 float64 complex64 complex128".split()
SCALARS = [True, 3, -7, 2.5, 1 + 2j]


def operand(lib: Any, spec: Any) -> Any:
    if not isinstance(spec, str):
        return spec
    if spec.endswith("[]"):
        return lib.tensor(1, dtype=getattr(lib, spec[:-2]))
    return lib.tensor([1, 2, 3], dtype=getattr(lib, spec))


def run(lib: Any, op: str, a: Any, b: Any) -> Any:
    if op == "where":
        return lib.where(lib.tensor([True, False, True]), operand(lib, a), operand(lib, b))
    return getattr(lib, op)(operand(lib, a), operand(lib, b))


EXPECTED = [
    ("add", "int32", "int64", "int64"),
    ("add", "int8", "uint8", "int16"),
    ("add", "uint8", "int16", "int16"),
    ("add", "bool", "bool", "bool"),
    ("add", "bool", "int8", "int8"),
    ("add", "int64", "float16", "float16"),
    ("add", "float16", "float32", "float32"),
    ("add", "float32", "float64", "float64"),
    ("add", "float32", "complex64", "complex64"),
    ("add", "float64", "complex64", "complex128"),
    ("add", "int64", "complex64", "complex64"),
    ("add", "int32", 2, "int32"),
    ("add", "int32", 2.5, "float32"),
    ("add", "int32", True, "int32"),
    ("add", "bool", 3, "int64"),
    ("add", "bool", 2.5, "float32"),
    ("add", "float16", 2.5, "float16"),
    ("add", "float64", 1j, "complex128"),
    ("add", "uint8", 300, "uint8"),
    ("add", "int32", "float64[]", "float64"),
    ("add", "float32", "float64[]", "float32"),
    ("add", "int64", "int8[]", "int64"),
    ("add", "uint8", "int64[]", "uint8"),
    ("add", "int32[]", "float16[]", "float16"),
    ("add", "int32[]", 2.5, "float32"),
    ("add", "bool[]", 7, "int64"),
    ("add", 3, "uint8", "uint8"),
    ("add", 2.5, "int64", "float32"),
    ("add", True, "int16", "int16"),
    ("mul", 2, "float16[]", "float16"),
    ("sub", "int64", "float32", "float32"),
    ("mul", "bool", "bool", "bool"),
    ("mul", "int8", "int8[]", "int8"),
    ("div", "int64", "int64", "float32"),
    ("div", "int32", 2, "float32"),
    ("div", "bool", "bool", "float32"),
    ("div", "uint8", "float64[]", "float64"),
    ("div", 3, "int32", "float32"),
    ("remainder", "int32", 3, "int32"),
    ("remainder", "float32", "int64", "float32"),
    ("pow", "int64", 2, "int64"),
    ("pow", "int64", 0.5, "float32"),
    ("pow", "bool", 2, "int64"),
    ("pow", "float32", "float64[]", "float32"),
    ("pow", 2, "int32", "int32"),
    ("pow", 2.5, "int32", "float32"),
    ("maximum", "int32", "float32", "float32"),
    ("maximum", "uint8", "int8", "int16"),
    ("eq", "int32", 2.5, "bool"),
    ("lt", "float16", "float64", "bool"),
    ("ne", "complex64", "complex128", "bool"),
    ("floor_divide", "int32", 2, "int32"),
    ("fmod", "int16", 3, "int16"),
    ("where", "float32", "float64", "float64"),
    ("where", "int32", 2.5, "float32"),
    ("where", 2, 3.5, "float32"),
]


@pytest.mark.parametrize("op,a,b,expected", EXPECTED, ids=[f"{c[0]}-{c[1]}-{c[2]}" for c in EXPECTED])
def test_result_dtype(op: str, a: Any, b: Any, expected: str) -> None:
    out = run(tensorlib, op, a, b)
    assert out.dtype == getattr(tensorlib, expected)
    if op in ("add", "sub", "mul") and (isinstance(a, str) or isinstance(b, str)):
        assert tensorlib.result_type(operand(tensorlib, a), operand(tensorlib, b)) == out.dtype


@pytest.mark.parametrize("default", [tensorlib.float32, tensorlib.float64])
@pytest.mark.parametrize("a,b", [("int64", "int64"), ("int32", 3), ("bool", "uint8"), (7, "int16"), ("int8[]", "int8[]")])
def test_true_division_of_integers_gives_the_default_float(default: Any, a: Any, b: Any) -> None:
    tensorlib.set_default_dtype(default)
    assert run(tensorlib, "div", a, b).dtype == default
    assert run(tensorlib, "true_divide", a, b).dtype == default
    if isinstance(a, str):
        assert (operand(tensorlib, a) / operand(tensorlib, b)).dtype == default


def test_true_division_keeps_the_divisor_value() -> None:
    # -7 does not fit uint8, but true division must not wrap it
    x = tensorlib.tensor([7, 14], dtype=tensorlib.uint8)
    assert tensorlib.div(x, -7).tolist() == [-1.0, -2.0]
    assert tensorlib.div(-7, x).tolist() == [-1.0, -0.5]


@pytest.mark.parametrize("op", ["eq", "ne", "lt", "le", "gt", "ge"])
@pytest.mark.parametrize("a,b", [("int32", "float64"), ("uint8", 2.5), ("float16[]", "int64"), ("bool", True)])
def test_comparisons_give_bool(op: str, a: Any, b: Any) -> None:
    out = run(tensorlib, op, a, b)
    assert out.dtype == tensorlib.bool and out.shape == (3,)


def test_scalar_first_operand() -> None:
    t = tensorlib.tensor([1, 2], dtype=tensorlib.int32)
    assert tensorlib.add(2, t).tolist() == [3, 4] and tensorlib.add(2, t).dtype == tensorlib.int32
    assert tensorlib.sub(10, t, alpha=2).tolist() == [8, 6]
    assert tensorlib.mul(1.5, t).dtype == tensorlib.float32
    assert tensorlib.pow(2, t).tolist() == [2, 4]
    assert tensorlib.remainder(5, t).tolist() == [0, 1]
    assert tensorlib.add(2, 3).tolist() == 5 and tensorlib.add(2, 3).dtype == tensorlib.int64
    assert tensorlib.div(1, 2).dtype == tensorlib.float32
    with pytest.raises(TypeError, match=r"exp\(\): argument 'input' \(position 1\) must be Tensor, not int"):
        tensorlib.exp(3)


def test_integer_pow_with_negative_exponents() -> None:
    base = tensorlib.tensor([2, 1, -1, -1, 0], dtype=tensorlib.int64)
    exp = tensorlib.tensor([-1, -3, -3, -2, 2], dtype=tensorlib.int64)
    assert tensorlib.pow(base, exp).tolist() == [0, 1, -1, 1, 0]
    with pytest.raises(RuntimeError, match="Integers to negative integer powers are not allowed"):
        tensorlib.pow(base, -1)


# -- against torch: every dtype and scalar pairing --------------------------------------------------

OPS = ["add", "sub", "mul", "div", "remainder", "pow", "maximum", "eq", "lt", "floor_divide", "fmod", "bitwise_and", "where"]


def _operand_specs() -> list:
    tensors = [d + z for d in DTYPES for z in ("", "[]")]
    pairs = list(itertools.product(tensors, tensors))
    pairs += [(t, s) for t in tensors for s in SCALARS] + [(s, t) for t in tensors for s in SCALARS]
    return pairs


def _complex32(a: Any, b: Any) -> bool:
    """float16 with complex gives torch's complex32, which tensorlib does not have."""
    specs = [str(v) for v in (a, b)]
    return any(s.startswith("float16") for s in specs) and any(
        s.startswith("complex") or isinstance(v, complex) for s, v in zip(specs, (a, b))
    )


def _outcome(lib: Any, op: str, a: Any, b: Any) -> tuple:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = run(lib, op, a, b)
    except Exception as e:  # noqa: BLE001 - the error type is what is compared
        return (type(e).__name__,)
    return (str(r.dtype).split(".")[-1], tuple(r.shape))


@pytest.mark.parametrize("op", OPS)
def test_promotion_matches_torch(op: str) -> None:
    torch = pytest.importorskip("torch")
    mismatches = []
    for a, b in _operand_specs():
        if _complex32(a, b) or (op in ("maximum", "fmod", "eq", "lt") and not isinstance(a, str)):
            continue
        ours, theirs = _outcome(tensorlib, op, a, b), _outcome(torch, op, a, b)
        if ours != theirs:
            mismatches.append((a, b, ours, theirs))
    assert not mismatches, f"{len(mismatches)} differences from torch, e.g. {mismatches[:5]}"
