"""The optional compiled hot paths (tensorlib._accel) against their pure-Python twins.

CI runs the whole suite twice: once with the extension (``TENSORLIB_REQUIRE_ACCEL=1``: it must have been built and
loaded) and once with ``TENSORLIB_PURE_PYTHON=1`` (the Python twins). The tests here compare the two directly.
"""

from __future__ import annotations

import gc
import hashlib
import os
import subprocess
import sys
import weakref
from pathlib import Path

import numpy as np
import pytest

import tensorlib
from tensorlib import _tensor
from tensorlib._accelerator import accel
from tensorlib._methods import _dtypes_of

ROOT = Path(__file__).resolve().parents[2]
needs_accel = pytest.mark.skipif(accel is None, reason="tensorlib._accel is not built or is switched off")
SLOTS = ("_data", "_size", "_grad_fn", "_requires_grad", "_vc", "_base", "_view_version")


def test_the_environment_gets_the_implementation_it_asks_for() -> None:
    if os.environ.get("TENSORLIB_PURE_PYTHON", "") not in ("", "0"):
        assert accel is None
        assert _tensor._wrap is _tensor._wrap_python
    if os.environ.get("TENSORLIB_REQUIRE_ACCEL", "") not in ("", "0"):
        assert accel is not None, "TENSORLIB_REQUIRE_ACCEL is set but tensorlib._accel did not load"
        assert _tensor._wrap is accel.wrap


def test_pure_python_switch_in_a_fresh_process() -> None:
    code = (
        "import tensorlib, tensorlib._accelerator as a, tensorlib._tensor as t;"
        "x = tensorlib.ones(2, 2) + tensorlib.ones(2, 2);"
        "print(a.accel is None, t._wrap is t._wrap_python, x.tolist())"
    )
    env = dict(os.environ, TENSORLIB_PURE_PYTHON="1")
    env.pop("TENSORLIB_REQUIRE_ACCEL", None)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.split() == ["True", "True", "[[2.0,", "2.0],", "[2.0,", "2.0]]"]


@needs_accel
def test_build_is_of_the_current_source() -> None:
    source = ROOT / "tensorlib" / "_accel.c"
    if not source.exists():
        pytest.skip("an installed copy without its C source")
    digest = hashlib.sha256(source.read_bytes()).hexdigest()
    assert accel.SOURCE_SHA256 == digest, "tensorlib/_accel.c changed since the build: run `pip install -e .` again"


# -- wrap ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("make", [_tensor._wrap_python, pytest.param("accel", marks=needs_accel)])
def test_wrap_makes_a_plain_tensor_around_the_array(make) -> None:
    wrap = accel.wrap if make == "accel" else make
    data = np.arange(6.0).reshape(2, 3)
    t = wrap(data)
    assert type(t) is tensorlib.Tensor
    assert t._data is data
    assert [getattr(t, s) for s in SLOTS[1:]] == [None, None, False, None, None, None]
    assert t.shape == (2, 3) and t.dtype is tensorlib.float64
    assert not t.requires_grad and t.grad_fn is None and t.is_leaf
    t.note = "user attribute"  # the instance dict and weak references work as on any tensor
    assert t.note == "user attribute"
    ref = weakref.ref(t)
    assert gc.is_tracked(t)
    del t
    gc.collect()
    assert ref() is None


@needs_accel
def test_wrap_twins_agree_and_release_their_data() -> None:
    data = np.ones(3, np.float32)
    before = sys.getrefcount(data)
    made = [accel.wrap(data) for _ in range(100)]
    assert sys.getrefcount(data) == before + 100
    twin = _tensor._wrap_python(data)
    assert [getattr(made[0], s) for s in SLOTS] == [getattr(twin, s) for s in SLOTS]
    del made, twin
    assert sys.getrefcount(data) == before


@needs_accel
def test_wrapped_tensor_takes_part_in_autograd() -> None:
    x = accel.wrap(np.array([1.0, 2.0]))
    x.requires_grad_()
    (x * x).sum().backward()
    assert x.grad.tolist() == [2.0, 4.0]


@needs_accel
def test_setup_refuses_a_class_without_the_slots() -> None:
    class NoSlots:
        pass

    with pytest.raises(TypeError, match="_data is not a slot"):
        accel.setup(NoSlots, np.ndarray, np.asarray)
    with pytest.raises(TypeError):
        accel.setup("Tensor", np.ndarray, np.asarray)
    # the failed calls left the state alone
    assert type(accel.wrap(np.zeros(1))) is tensorlib.Tensor


# -- the operators' same-dtype path -----------------------------------------------------------------------


@needs_accel
@pytest.mark.parametrize("dtype", ["bool", "uint8", "int32", "int64", "float32", "float64", "complex64"])
@pytest.mark.parametrize("ufunc", [np.add, np.multiply])
def test_same_dtype_computes_the_ufunc(dtype, ufunc) -> None:
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((3, 4)) * 5).astype(dtype)
    y = (rng.standard_normal((1, 4)) * 5).astype(dtype)
    r = accel.same_dtype(_tensor._wrap_python(x), _tensor._wrap_python(y), ufunc, _dtypes_of("biufc"))
    assert type(r) is tensorlib.Tensor and r._base is None and r._grad_fn is None
    np.testing.assert_array_equal(r._data, ufunc(x, y))
    assert r._data.dtype == x.dtype


@needs_accel
def test_same_dtype_of_zero_dim_tensors_is_an_array() -> None:
    a = tensorlib.tensor(2.0)
    r = accel.same_dtype(a, a, np.add, _dtypes_of("f"))
    assert type(r._data) is np.ndarray and r._data.shape == () and r.item() == 4.0


@needs_accel
def test_same_dtype_declines_what_the_general_path_must_handle() -> None:
    floats = _dtypes_of("fc")
    f32, f64 = tensorlib.ones(2), tensorlib.ones(2, dtype=tensorlib.float64)
    leaf = tensorlib.ones(2, requires_grad=True)

    class Sub(tensorlib.Tensor):
        pass

    declined = [
        (f32, f64),  # dtypes differ: type promotion
        (leaf, f32), (f32, leaf),  # a gradient to record
        (f32.as_subclass(Sub), f32), (f32, f32.as_subclass(Sub)),  # a subclass: __torch_function__
        (f32, 1.0), (np.ones(2, np.float32), f32),  # not tensors
        (tensorlib.ones(2, dtype=tensorlib.int32), tensorlib.ones(2, dtype=tensorlib.int32)),  # kind not allowed
        (tensorlib.ones(2), tensorlib.ones(3)),  # shapes that do not broadcast: the general path raises torch's error
        (object.__new__(tensorlib.Tensor), f32),  # never initialised
    ]
    for a, b in declined:
        assert accel.same_dtype(a, b, np.true_divide, floats) is None


@needs_accel
def test_same_dtype_passes_other_errors_on() -> None:
    def failing(x, y):
        raise ZeroDivisionError("from the ufunc")

    a = tensorlib.ones(2)
    with pytest.raises(ZeroDivisionError, match="from the ufunc"):
        accel.same_dtype(a, a, failing, _dtypes_of("f"))
    with pytest.raises(TypeError, match="takes 4 arguments"):
        accel.same_dtype(a, a, np.add)
    with pytest.raises(TypeError):
        accel.same_dtype(a, a, np.add, ["not", "a", "set"])  # a list: TypeError, not a crash


@pytest.mark.parametrize("op", ["+", "-", "*", "/"])
def test_operators_give_the_general_paths_results(op) -> None:
    # whichever implementation runs, the operator agrees with the function it stands for
    funcs = {"+": tensorlib.add, "-": tensorlib.sub, "*": tensorlib.mul, "/": tensorlib.div}
    a = tensorlib.tensor([[1.5, -2.0], [0.0, 3.0]])
    b = tensorlib.tensor([4.0, -0.5])
    got = eval(f"a {op} b")
    want = funcs[op](a, b)
    assert type(got) is tensorlib.Tensor and got.dtype is want.dtype
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    with pytest.raises(RuntimeError, match="must match the size"):
        eval(f"a {op} tensorlib.ones(3)")
