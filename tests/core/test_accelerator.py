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
from tensorlib.ops._util import dtypes_of as _dtypes_of

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
    # after dispatch (add and mul), subclasses are taken; the result is a plain tensor
    r = accel.same_dtype(f32.as_subclass(Sub), f32, np.add, floats, True)
    assert type(r) is tensorlib.Tensor and r.tolist() == [2.0, 2.0]


@needs_accel
def test_same_dtype_passes_other_errors_on() -> None:
    def failing(x, y):
        raise ZeroDivisionError("from the ufunc")

    a = tensorlib.ones(2)
    with pytest.raises(ZeroDivisionError, match="from the ufunc"):
        accel.same_dtype(a, a, failing, _dtypes_of("f"))
    with pytest.raises(TypeError, match="takes 4 to 6 arguments"):
        accel.same_dtype(a, a, np.add)
    with pytest.raises(TypeError, match="scalar_dtypes must be a set"):
        accel.same_dtype(a, 1.0, np.add, _dtypes_of("f"), False, ["f"])
    with pytest.raises(TypeError):
        accel.same_dtype(a, a, np.add, ["not", "a", "set"])  # a list: TypeError, not a crash


_NUMBERS = [1.5, -0.0, float("inf"), float("nan"), 3, -7, 2**62, 1e300]


@needs_accel
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "complex64"])
@pytest.mark.parametrize("ufunc", [np.add, np.subtract, np.multiply, np.true_divide])
def test_same_dtype_takes_a_python_number_next_to_a_floating_point_tensor(dtype, ufunc) -> None:
    # what binary_arrays hands the general path for these operands: ufunc(array, number), in the tensor's dtype
    x = (np.random.default_rng(1).standard_normal((2, 3)) * 4).astype(dtype)
    t = _tensor._wrap_python(x)
    for number in _NUMBERS:
        r = accel.same_dtype(t, number, ufunc, _dtypes_of("biufc"), False, _dtypes_of("fc"))
        assert type(r) is tensorlib.Tensor and r._grad_fn is None and r._data.dtype == x.dtype
        with np.errstate(all="ignore"):
            np.testing.assert_array_equal(r._data, ufunc(x, number))
    zero_d = accel.same_dtype(_tensor._wrap_python(x[0, 0]), 2.0, ufunc, _dtypes_of("f"), False, _dtypes_of("fc"))
    assert type(zero_d._data) is np.ndarray and zero_d._data.shape == ()


@needs_accel
def test_same_dtype_leaves_other_numbers_to_the_general_path() -> None:
    f32 = tensorlib.ones(2)
    fc = _dtypes_of("fc")
    declined = [
        (f32, 1.0, None),  # no scalar dtypes given (the comparisons)
        (f32, True, fc), (f32, np.float64(1.0), fc), (f32, 1j, fc),  # bool, NumPy's scalar, complex: promotion rules
        (f32, 2**63, fc), (f32, -(2**63) - 1, fc),  # beyond int64: torch's overflow errors
        (tensorlib.ones(2, dtype=tensorlib.int64), 1.5, fc),  # an integer tensor: promotes to the default float
        (tensorlib.ones(2, requires_grad=True), 1.0, fc),  # a gradient to record
        (1.0, f32, fc),  # the number first: not this path's order
    ]
    for a, b, scalar_dtypes in declined:
        assert accel.same_dtype(a, b, np.add, _dtypes_of("biufc"), False, scalar_dtypes) is None


@pytest.mark.parametrize("expression", ["t + s", "t - s", "t * s", "t / s", "s + t", "s * t", "s - t", "s / t"])
def test_operators_with_a_python_number_give_the_general_paths_results(expression) -> None:
    # whichever implementation runs (the compiled path takes t op s and the reflected s + t, s * t)
    x = (np.random.default_rng(2).standard_normal((3, 2)) * 3).astype(np.float32)
    for s in _NUMBERS:
        t = tensorlib.tensor(x)
        got = eval(expression)
        with np.errstate(all="ignore"):
            if expression == "s / t":  # as torch: the reciprocal, times the number
                want = np.reciprocal(x) * np.float32(s)
            elif expression == "s - t":
                want = np.subtract(s, x)
            else:
                want = eval(expression.replace("t", "x"))
        assert type(got) is tensorlib.Tensor and got.dtype is tensorlib.float32
        np.testing.assert_array_equal(got.numpy(), want.astype(np.float32))
        leaf = tensorlib.tensor(x, requires_grad=True)
        recorded = eval(expression.replace("t", "leaf"))  # recorded: the general path, same values
        np.testing.assert_array_equal(recorded.detach().numpy(), got.numpy())
    torch = pytest.importorskip("torch")
    for s in _NUMBERS:
        t = torch.from_numpy(x.copy())
        theirs = eval(expression).numpy()
        t = tensorlib.tensor(x)
        np.testing.assert_array_equal(eval(expression).numpy(), theirs)


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


# -- record -------------------------------------------------------------------------------------------------


def _record_twins():
    from tensorlib.ops import _util

    twins = [_util.record_python]
    if accel is not None:
        twins.append(accel.record)
    return twins


@pytest.mark.parametrize("record", _record_twins())
def test_record_makes_a_node_and_its_output(record) -> None:
    from tensorlib.ops.arithmetic import MulBackward0

    leaf = tensorlib.ones(2, requires_grad=True)
    inner = leaf * 2
    plain = tensorlib.ones(2)
    data = np.arange(2.0)
    out, node = record(MulBackward0, data, (inner, plain, 3.0, leaf))
    assert type(node) is MulBackward0 and out.grad_fn is node and out._data is data
    assert out.requires_grad and not out.is_leaf and type(out) is tensorlib.Tensor
    assert node.next_functions == ((inner.grad_fn, 0), (None, 0), (None, 0), (leaf.grad_fn or _acc(leaf), 0))
    assert node._freed is False and node._hooks is None
    out2, node2 = record(MulBackward0, data, [plain])  # a list of inputs, none of them differentiable
    assert node2.next_functions == ((None, 0),)


def _acc(leaf):
    from tensorlib._autograd.engine import grad_accumulator

    return grad_accumulator(leaf)


@needs_accel
def test_record_twins_agree_on_every_kind_of_input() -> None:
    from tensorlib.ops import _util
    from tensorlib.ops.arithmetic import AddBackward0

    class Sub(tensorlib.Tensor):
        pass

    class ClaimsToBeATensor:  # isinstance() says Tensor through __class__: read as an attribute, not a slot
        __class__ = tensorlib.Tensor  # type: ignore[assignment]
        _requires_grad = False

    leaf = tensorlib.ones(2, requires_grad=True)
    view = leaf[:1]
    inputs = (leaf, leaf.as_subclass(Sub), view, tensorlib.ones(2), None, 1, ClaimsToBeATensor())
    data = np.zeros(2)
    (a, na), (b, nb) = (r(AddBackward0, data, inputs) for r in (_util.record_python, accel.record))
    assert na.next_functions == nb.next_functions
    assert [getattr(a, s) is getattr(b, s) for s in ("_data", "_size", "_vc", "_base", "_view_version")] == [True] * 5
    with pytest.raises(TypeError, match="subclass of Node"):
        accel.record(int, data, ())
    with pytest.raises(TypeError, match="must be a sequence"):
        accel.record(AddBackward0, data, 5)
    with pytest.raises(AttributeError):  # as the Python twin: a tensor made by object.__new__ has no fields
        accel.record(AddBackward0, data, (object.__new__(tensorlib.Tensor),))
    with pytest.raises(AttributeError):
        _util.record_python(AddBackward0, data, (object.__new__(tensorlib.Tensor),))


# -- the engine's loop ---------------------------------------------------------------------------------------


def _engine_twins():
    from tensorlib._autograd import engine

    twins = [engine._run_all_python]
    if accel is not None:
        twins.append(accel.run_all)
    return twins


@pytest.fixture(params=_engine_twins(), ids=lambda f: "compiled" if f is not _engine_twins()[0] else "python")
def run_all(request, monkeypatch):
    from tensorlib._autograd import engine

    monkeypatch.setattr(engine, "_run_all", request.param)
    return request.param


def test_engine_loop_twins_compute_the_same_gradients(run_all) -> None:
    from tensorlib.autograd import gradcheck, gradgradcheck

    x = tensorlib.tensor([[0.5, -1.0], [2.0, 0.25]], dtype=tensorlib.float64, requires_grad=True)
    w = tensorlib.tensor([1.5, -0.5], dtype=tensorlib.float64, requires_grad=True)

    def f(x, w):
        h = (x * w).tanh()
        return (h @ h.T).sum() + (h * x).exp().mean()  # shared subexpressions: gradients summed in buffers

    f(x, w).backward()
    gx, gw = x.grad.clone(), w.grad.clone()
    f(x, w).backward()  # accumulates into the existing .grad
    np.testing.assert_allclose(x.grad.numpy(), 2 * gx.numpy())
    np.testing.assert_allclose(w.grad.numpy(), 2 * gw.numpy())
    assert gradcheck(f, (x, w)) and gradgradcheck(f, (x, w))


def test_engine_loop_twins_run_hooks_and_keep_errors(run_all) -> None:
    x = tensorlib.ones(3, requires_grad=True)
    seen = []
    y = x * 2
    y.register_hook(lambda g: seen.append(("tensor", g.tolist())) or g * 10)
    y.retain_grad()
    x.register_post_accumulate_grad_hook(lambda t: seen.append(("post", t.grad.tolist())))
    z = y.sum()
    z.grad_fn.register_prehook(lambda gs: seen.append(("pre", gs[0].item())))
    z.backward(retain_graph=True)
    assert y.grad.tolist() == [10.0] * 3 and x.grad.tolist() == [20.0] * 3
    assert seen == [("pre", 1.0), ("tensor", [1.0] * 3), ("post", [20.0] * 3)]
    z.backward()  # retained once; now freed
    with pytest.raises(RuntimeError, match="second time"):
        z.backward()

    class Boom(tensorlib.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            return t.clone()

        @staticmethod
        def backward(ctx, g):
            raise ValueError("from backward")

    with pytest.raises(ValueError, match="from backward"):
        Boom.apply(x).sum().backward()


def test_engine_loop_twins_pass_no_gradient_where_none_flows(run_all) -> None:
    a = tensorlib.ones(2, requires_grad=True)
    b = tensorlib.ones(2, requires_grad=True)
    out = a * 3 + b.detach()
    out.sum().backward()
    assert a.grad.tolist() == [3.0, 3.0] and b.grad is None
    values, idx = tensorlib.tensor([3.0, 1.0, 2.0], requires_grad=True).sort()  # a node with two outputs
    values.sum().backward()


@needs_accel
def test_engine_loop_refuses_bad_arguments() -> None:
    with pytest.raises(TypeError, match="takes 5 arguments"):
        accel.run_all([], {}, {}, False)
    with pytest.raises(TypeError, match="must be lists"):
        accel.run_all((), {}, {}, False, [])
    accel.run_all([], {}, {}, False, [])  # nothing ready: nothing to do


# -- the default __torch_function__'s result ---------------------------------------------------------------


@needs_accel
def test_default_result_twins_agree() -> None:
    class Sub(tensorlib.Tensor):
        pass

    class Slotted(tensorlib.Tensor):  # its own layout: the class cannot simply change
        __slots__ = ("extra",)

    def outcome(convert, func, make_ret, cls, args_of, kwargs):
        ret = make_ret()
        args = args_of(ret)
        r = convert(func, ret, cls, args, kwargs)
        shapes = [type(x).__name__ for x in (r if isinstance(r, (tuple, list)) else [r])]
        return shapes, r is ret, (r._base is ret) if isinstance(r, tensorlib.Tensor) else None

    plain = tensorlib.ones(2)
    grad_get = tensorlib.Tensor.grad.__get__
    cases = [
        (tensorlib.add, lambda: tensorlib.ones(2), Sub, lambda r: (plain.as_subclass(Sub), plain), {}),  # fresh
        (tensorlib.add, lambda: tensorlib.ones(2), Sub, lambda r: (r,), {}),  # the result is an argument: alias
        (tensorlib.cat, lambda: tensorlib.ones(2), Sub, lambda r: ([plain],), {}),  # a list argument
        (tensorlib.add, lambda: tensorlib.ones(2), Sub, lambda r: (plain,), {"alpha": 2}),  # keyword arguments
        (grad_get, lambda: tensorlib.ones(2), Sub, lambda r: (plain,), {}),  # not wrapped
        (tensorlib.add, lambda: (tensorlib.ones(2), 1), Sub, lambda r: (plain,), {}),  # a tuple result
        (tensorlib.add, lambda: tensorlib.ones(2), tensorlib.Tensor, lambda r: (plain,), {}),
        (tensorlib.add, lambda: tensorlib.ones(2), Slotted, lambda r: (plain,), {}),  # alias, not class change
        # a recorded result: aliased (AliasBackward0), as torch's as_subclass
        (tensorlib.mul, lambda: tensorlib.ones(2, requires_grad=True) * 2, Sub, lambda r: (plain,), {}),
        (tensorlib.mul, lambda: (tensorlib.ones(2, requires_grad=True) * 2, 1), Sub, lambda r: (plain,), {}),
    ]
    for func, make_ret, cls, args_of, kwargs in cases:
        assert outcome(accel.default_result, func, make_ret, cls, args_of, kwargs) == outcome(
            _tensor._default_result, func, make_ret, cls, args_of, kwargs), func
    with pytest.raises(TypeError, match="takes 5 arguments"):
        accel.default_result(tensorlib.add, plain, Sub, ())


@pytest.mark.parametrize("cls_body", [{}, {"__slots__": ("extra",)}])
def test_subclass_ops_return_the_subclass(cls_body) -> None:
    Sub = type("Sub", (tensorlib.Tensor,), dict(cls_body))
    s = tensorlib.tensor([1.0, 2.0]).as_subclass(Sub)
    for r in (s + 1, s * s, tensorlib.add(s, tensorlib.ones(2)), s.sum(), s.unsqueeze(0)):
        assert type(r) is Sub
    assert type(s.tolist()) is list and type((s + 1).grad) is type(None)


def test_dependencies_twins_agree_on_shared_and_repeated_roots() -> None:
    from tensorlib._autograd import engine

    twins = [engine._dependencies_python] + ([accel.dependencies] if accel is not None else [])
    x = tensorlib.ones(2, requires_grad=True)
    h = x * 2
    a, b = h.sum(), (h * h).sum()  # b's graph reaches h twice
    c = a * 3  # root a is also reached from root c
    cases = [[a.grad_fn], [b.grad_fn], [a.grad_fn, b.grad_fn], [c.grad_fn, a.grad_fn, c.grad_fn], (b.grad_fn,)]
    for roots in cases:
        results = [f(roots) for f in twins]
        assert all(r == results[0] for r in results), roots
    counts = twins[-1]([b.grad_fn])
    assert counts[h.grad_fn] == 2 and counts[engine.grad_accumulator(x)] == 1
    assert c.grad_fn not in twins[-1]([c.grad_fn, a.grad_fn])  # a root is walked once, even if also reached


def test_nodes_that_override_apply_or_release_keep_them(run_all) -> None:
    calls = []

    class Twice(tensorlib.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            ctx.save_for_backward(t)
            return t * 2

        @staticmethod
        def backward(ctx, g):
            (t,) = ctx.saved_tensors
            calls.append("backward")
            return g * 2

    x = tensorlib.ones(2, requires_grad=True)
    y = Twice.apply(x)
    y.sum().backward()
    assert calls == ["backward"] and x.grad.tolist() == [2.0, 2.0]
    with pytest.raises(RuntimeError, match="second time|freed"):
        y.sum().backward()  # released: its saved tensor is gone


@pytest.mark.parametrize("func", [tensorlib.add, tensorlib.mul])
def test_add_and_mul_shortcut_agrees_with_the_general_path(func) -> None:
    from tensorlib.ops import arithmetic

    class Sub(tensorlib.Tensor):
        pass

    rng = np.random.default_rng(1)
    for dtype in ("float32", "float64", "int64", "bool", "complex64"):
        x = tensorlib.from_numpy((rng.standard_normal((2, 3)) * 3).astype(dtype))
        y = tensorlib.from_numpy((rng.standard_normal((1, 3)) * 3).astype(dtype))
        for a, b in ((x, y), (x.as_subclass(Sub), y), (x, y.as_subclass(Sub))):
            got = func(a, b)
            impl = arithmetic.add if func is tensorlib.add else arithmetic.mul
            with pytest.MonkeyPatch.context() as m:
                m.setattr(arithmetic, "_same_dtype", None)  # the general path
                want = impl(a.as_subclass(tensorlib.Tensor), b.as_subclass(tensorlib.Tensor))
            assert got.dtype is want.dtype
            np.testing.assert_array_equal(got.numpy(), want.numpy())
            assert type(got) is (Sub if Sub in (type(a), type(b)) else tensorlib.Tensor)
    with pytest.raises(RuntimeError, match="must match the size"):
        func(tensorlib.ones(2), tensorlib.ones(3))
    leaf = tensorlib.ones(2, requires_grad=True)
    assert func(leaf, tensorlib.ones(2)).grad_fn is not None  # recorded: the shortcut declines
    assert func(tensorlib.ones(2), tensorlib.ones(2, dtype=tensorlib.float64)).dtype is tensorlib.float64
    out = tensorlib.empty(2)
    assert func(tensorlib.ones(2), tensorlib.ones(2), out=out) is out


def test_add_with_alpha_takes_the_general_path() -> None:
    a = tensorlib.tensor([1.0, 2.0])
    assert tensorlib.add(a, a, alpha=2).tolist() == [3.0, 6.0]
    assert tensorlib.add(a, a, alpha=1.0).tolist() == [2.0, 4.0]


# -- sub_scaled: the optimizers' fused update --------------------------------------------------------------------


def _numpy_update(p: np.ndarray, g: np.ndarray, lr: object) -> None:
    np.subtract(p, lr * g, out=p, casting="unsafe")


@needs_accel
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(), (0,), (1,), (7,), (128, 784), (3, 1, 5), (2, 3, 4, 5)])
@pytest.mark.parametrize("lr", [0.01, 1e-3, 0.1 + 1e-9, 3, -2.5, 1e-40])
def test_sub_scaled_gives_numpys_bits(dtype, shape, lr) -> None:
    rng = np.random.default_rng(sum(shape) + 7)
    p = np.asarray(rng.standard_normal(shape) * 3, dtype=dtype)
    g = np.asarray(rng.standard_normal(shape), dtype=dtype)
    expected = p.copy()
    _numpy_update(expected, g, lr)
    g_before = g.copy()
    assert accel.sub_scaled(p, g, lr) is True
    np.testing.assert_array_equal(p, expected, strict=True)
    np.testing.assert_array_equal(g, g_before)  # the gradient is only read


@needs_accel
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sub_scaled_keeps_special_values_as_numpy(dtype) -> None:
    p = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, 1e-45, 3e38], dtype=dtype)
    g = np.array([-0.0, 0.0, 1.0, np.inf, 2.0, np.nan, 1e-45, -3e38], dtype=dtype)
    expected = p.copy()
    with np.errstate(all="ignore"):
        _numpy_update(expected, g, 0.5)
        assert accel.sub_scaled(p, g, 0.5)
    np.testing.assert_array_equal(p, expected)
    assert np.array_equal(np.signbit(p), np.signbit(expected))


@needs_accel
def test_sub_scaled_handles_fortran_ordered_and_transposed_pairs() -> None:
    rng = np.random.default_rng(1)
    p = np.asfortranarray(rng.standard_normal((5, 4)))
    g = np.asfortranarray(rng.standard_normal((5, 4)))
    expected = p.copy(order="F")
    _numpy_update(expected, g, 0.2)
    assert accel.sub_scaled(p, g, 0.2)
    np.testing.assert_array_equal(p, expected)


def _declined_cases() -> list:
    rng = np.random.default_rng(2)
    a = rng.standard_normal((4, 6))
    shared = rng.standard_normal(20)
    read_only = a.copy()
    read_only.flags.writeable = False
    return [
        ("strided parameter", a.copy()[:, ::2], lambda p: p.copy(), 0.1),
        ("non-contiguous gradient", a[:, :3].copy(), lambda p: a[:, ::2], 0.1),
        ("C parameter, Fortran gradient", a.copy(), lambda p: np.asfortranarray(p * 2), 0.1),
        ("other dtypes", a.astype(np.float32), lambda p: a.copy(), 0.1),
        ("float16", a.astype(np.float16), lambda p: p * 2, 0.1),
        ("integers", np.arange(6), lambda p: np.arange(6), 1),
        ("complex", a.astype(np.complex128), lambda p: p * 2, 0.1),
        ("broadcast gradient", a.copy(), lambda p: np.ones(6), 0.1),
        ("same array", a.copy(), lambda p: p, 0.1),
        ("overlapping views", shared[:10], lambda p: shared[5:15], 0.1),
        ("NumPy scalar learning rate", a.copy(), lambda p: p * 2, np.float64(0.1)),  # (a float subclass:
        # NumPy computes in its type, not in the arrays')
        ("huge integer learning rate", a.copy(), lambda p: p * 2, 1 << 40),
        ("bool learning rate", a.copy(), lambda p: p * 2, True),
        ("read-only parameter", read_only, lambda p: p * 2, 0.1),
        ("subclass parameter", np.ma.masked_array(a.copy()), lambda p: np.asarray(p) * 2, 0.1),
    ]


@needs_accel
@pytest.mark.parametrize("name, p, make_g, lr", _declined_cases(), ids=[c[0] for c in _declined_cases()])
def test_sub_scaled_declines_and_leaves_the_arrays_alone(name, p, make_g, lr) -> None:
    g = make_g(p)
    before = np.array(p, copy=True)
    assert accel.sub_scaled(p, g, lr) is False
    np.testing.assert_array_equal(np.asarray(p), before)


@needs_accel
def test_sub_scaled_refuses_a_wrong_call() -> None:
    with pytest.raises(TypeError, match="3 arguments"):
        accel.sub_scaled(np.ones(2), np.ones(2))
    assert accel.sub_scaled([1.0], np.ones(1), 0.1) is False  # not arrays: declined, not an error


def test_sgd_step_matches_the_numpy_update_bit_for_bit() -> None:
    # both implementations of the step (the compiled one where built) against NumPy's two passes
    rng = np.random.default_rng(3)
    values = [rng.standard_normal(s).astype(np.float32) for s in [(16, 8), (8,), (3, 16)]]
    params = [tensorlib.from_numpy(v.copy()).requires_grad_() for v in values]
    grads = [rng.standard_normal(v.shape).astype(np.float32) for v in values]
    for p, g in zip(params, grads):
        p.grad = tensorlib.from_numpy(g.copy())
    versions = [p._version for p in params]
    tensorlib.optim.SGD(params, lr=0.03).step()
    for p, v, g, ver in zip(params, values, grads, versions):
        np.testing.assert_array_equal(p.detach().numpy(), v - np.float32(0.03) * g, strict=True)
        assert p._version == ver + 1  # autograd sees the in-place change


# -- commit: the engine's accumulation into .grad ----------------------------------------------------------------


def _commit_twins():
    return [None] + ([accel.commit] if accel is not None else [])


@pytest.fixture(params=_commit_twins(), ids=lambda f: "python" if f is None else "compiled")
def commit_impl(request, monkeypatch):
    from tensorlib._autograd import engine

    monkeypatch.setattr(engine, "_commit_compiled", request.param)
    return request.param


def _leaf_grads_after(make_leaves, steps) -> list:
    """``.grad`` of each leaf (values, strides, writeable, the tensor's id across steps) after each backward."""
    leaves = make_leaves()
    seen = []
    for step in steps:
        step(*leaves)
        seen.append([(None if t.grad is None else (t.grad.numpy().copy(), t.grad.numpy().strides,
                                                    t.grad.numpy().flags.writeable, t.grad._version))
                     for t in leaves])
    return seen


COMMIT_CASES = {
    # a fresh gradient stored as it is, then added in place (the tensor stays, its version counts the addition)
    "store then add": (lambda: [tensorlib.ones(3, 4, requires_grad=True), tensorlib.ones(4, requires_grad=True)],
                       [lambda w, b: ((w * 2 + b) ** 2).sum().backward()] * 3),
    # a leaf laid out column by column: its gradient takes that layout
    "transposed leaf": (lambda: [tensorlib.ones(4, 3).T.detach().requires_grad_()],
                        [lambda w: (w * w).sum().backward()] * 2),
    # a gradient that is a view (a transposed product) and one that is the output of a sum's broadcast
    "views": (lambda: [tensorlib.ones(3, 5, requires_grad=True), tensorlib.ones(5, requires_grad=True)],
              [lambda w, v: ((w @ v) ** 2).sum().backward()] * 2),
    # a tensor hook that keeps its gradient: the stored .grad must be a copy
    "kept by a hook": (lambda: [tensorlib.ones(3, requires_grad=True)],
                       [lambda x: (x.register_hook(lambda g: _KEPT.append(g)), (x * 3).sum().backward())] * 2),
    "float32 and float64 leaves": (lambda: [tensorlib.ones(2, 2, requires_grad=True),
                                            tensorlib.ones(2, dtype=tensorlib.float64, requires_grad=True)],
                                   [lambda a, b: ((a.double() * b).sum()).backward()] * 2),
}
_KEPT: list = []


@pytest.mark.parametrize("case", list(COMMIT_CASES), ids=list(COMMIT_CASES))
def test_commit_twins_give_the_same_grads(case, monkeypatch) -> None:
    from tensorlib._autograd import engine

    make, steps = COMMIT_CASES[case]
    results = []
    for impl in _commit_twins():
        monkeypatch.setattr(engine, "_commit_compiled", impl)
        _KEPT.clear()
        results.append(_leaf_grads_after(make, steps))
        if case == "kept by a hook":  # what the hook kept is unchanged by later accumulation
            assert [g.tolist() for g in _KEPT] == [[3.0] * 3] * 3
    for other in results[1:]:
        for step_a, step_b in zip(results[0], other):
            for a, b in zip(step_a, step_b):
                np.testing.assert_array_equal(a[0], b[0], strict=True)
                assert a[1:] == b[1:]


def test_commit_leaves_grad_dtype_retain_grad_and_post_hooks_to_the_general_path(commit_impl) -> None:
    x = tensorlib.ones(3, requires_grad=True)
    x.grad_dtype = tensorlib.float64
    y = x * 2
    y.retain_grad()
    order = []
    x.register_post_accumulate_grad_hook(lambda t: order.append(t.grad.dtype))
    (y * y).sum().backward()
    assert x.grad.dtype == tensorlib.float64 and x.grad.tolist() == [8.0] * 3
    assert y.grad.tolist() == [4.0] * 3 and order == [tensorlib.float64]


def test_commit_replaces_a_read_only_or_recorded_grad(commit_impl) -> None:
    x = tensorlib.ones(3, requires_grad=True)
    x.grad = tensorlib.from_numpy(np.ones(3, dtype=np.float32))
    x.grad._data.flags.writeable = False
    old = x.grad
    (x * 2).sum().backward()
    assert x.grad is not old and x.grad.tolist() == [3.0] * 3 and old.tolist() == [1.0] * 3
    y = tensorlib.ones(2, requires_grad=True)
    (y * y).sum().backward(create_graph=True)  # a .grad with history (2y): not added to in place
    assert y.grad.grad_fn is not None
    held = y.grad
    (y * 2).sum().backward()
    assert y.grad is not held and y.grad.tolist() == [4.0, 4.0] and held.tolist() == [2.0, 2.0]


def test_commit_releases_its_lock_when_an_addition_fails(commit_impl) -> None:
    import threading

    from tensorlib._autograd import engine

    x = tensorlib.ones(2, requires_grad=True)
    (x * 1).sum().backward()
    x.grad._vc = "not a counter"  # the in-place addition's version bump then fails
    with pytest.raises(TypeError):
        (x * 1).sum().backward()
    free = []

    def try_lock() -> None:
        got = engine._ACCUMULATE_LOCK.acquire(blocking=False)
        free.append(got)
        if got:
            engine._ACCUMULATE_LOCK.release()

    t = threading.Thread(target=try_lock)
    t.start()
    t.join()
    assert free == [True]


@needs_accel
def test_commit_declines_what_it_does_not_handle() -> None:
    from tensorlib._autograd import engine

    with pytest.raises(TypeError, match="expects a list"):
        accel.commit(())
    x = tensorlib.ones(2, requires_grad=True)
    g = tensorlib.ones(2)
    assert accel.commit([(x, g, None)]) is False  # a non-leaf's retained gradient
    assert x.grad is None
    assert accel.commit([]) is True
    x._get_meta().post_acc_hooks = {0: lambda t: None}
    assert accel.commit([(x, g, x._meta)]) is False and x.grad is None
    x._meta.post_acc_hooks = None
    assert accel.commit([(x, g, x._meta)]) is True and x.grad.tolist() == [1.0, 1.0]
    assert engine._commit_compiled is accel.commit
