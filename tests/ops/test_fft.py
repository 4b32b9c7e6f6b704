"""tensorlib.fft beyond the op table: every transform against torch on real and complex inputs of several shapes
(0-dim, empty, non-contiguous), every ``norm``, ``n``/``s``/``dim`` forms, single precision and integer inputs,
torch's errors, ``out=``, gradients and their node names, ``fftfreq``/``rfftfreq`` and the shifts.

The table (``tests/ops/tables/fft.py``) runs gradcheck and gradgradcheck; here gradients are compared with torch's.
"""

from __future__ import annotations

import itertools
from typing import Any, Callable

import numpy as np
import pytest

import tensorlib
from tensorlib.autograd import gradcheck, gradgradcheck

ONE_D = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
TWO_D = ["fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2"]
N_D = ["fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn"]
REAL_ONLY = {"rfft", "ihfft", "rfft2", "ihfft2", "rfftn", "ihfftn"}
NORMS = [None, "backward", "ortho", "forward"]

_rng = np.random.default_rng(7)


def arr(shape: tuple, complex_: bool = False, dtype: Any = np.float64) -> np.ndarray:
    a = np.asarray(_rng.standard_normal(shape))
    if complex_:
        a = np.asarray(a + 1j * _rng.standard_normal(shape))
        return a.astype(np.complex64 if dtype == np.float32 else np.complex128)
    return a.astype(dtype)


def _outcome(lib: Any, fn: Callable[[Any], Any]) -> tuple:
    try:
        r = fn(lib)
    except Exception as e:  # noqa: BLE001 - the error is the outcome compared
        return ("error", type(e).__name__, str(e).split("\n")[0])
    if lib is tensorlib:
        return ("ok", r.dtype.name, tuple(r.shape), r.detach().numpy())
    return ("ok", str(r.dtype).split(".")[1], tuple(r.shape), r.detach().resolve_conj().numpy())


def assert_same(torch: Any, fn: Callable[[Any], Any], tol: float = 1e-10) -> None:
    """``fn(torch)`` and ``fn(tensorlib)`` give the same dtype, shape and values, or the same error."""
    theirs, ours = _outcome(torch, fn), _outcome(tensorlib, fn)
    if theirs[0] == "error" and "MKL FFT error" in theirs[2]:
        # torch's MKL build refuses some transforms of empty batches; their result is empty
        assert ours[0] == "ok" and ours[3].size == 0, ours[:3]
        return
    assert ours[:3] == theirs[:3], (ours[:3], theirs[:3])
    if ours[0] == "ok":
        np.testing.assert_allclose(ours[3], theirs[3], rtol=tol, atol=tol)


def _t(lib: Any, a: np.ndarray, requires_grad: bool = False) -> Any:
    t = lib.from_numpy(a.copy())
    return t.requires_grad_() if requires_grad else t


# -- values, dtypes and errors against torch --------------------------------------------------------

_SHAPES = [(5,), (4, 6), (3, 1), (2, 0)]
_ONE_D_ARGS = [{}, {"n": 3}, {"n": 9}, {"dim": 0}, {"n": 4, "dim": 0}, {"n": 1}, {"n": 0}, {"n": -2}, {"dim": 2}]


@pytest.mark.parametrize("name", ONE_D)
@pytest.mark.parametrize("complex_", [False, True], ids=["real", "complex"])
def test_one_dimensional_transforms_match_torch(name: str, complex_: bool) -> None:
    torch = pytest.importorskip("torch")
    for shape, kw, norm in itertools.product(_SHAPES, _ONE_D_ARGS, NORMS):
        a = arr(shape, complex_)
        kwargs = dict(kw, **({"norm": norm} if norm else {}))
        assert_same(torch, lambda L: getattr(L.fft, name)(_t(L, a), **kwargs))


_ND_ARGS = [
    {}, {"s": (3, 4)}, {"s": (6, 8)}, {"dim": (0,)}, {"dim": (-1, 0)}, {"s": (-1, 5), "dim": (0, 1)}, {"dim": 1},
    {"s": 3}, {"dim": ()}, {"s": ()}, {"s": (2,)}, {"dim": (0, 0)}, {"s": (2,), "dim": (0, 1)}, {"s": (2, 2, 2)},
    {"s": (0, 2)}, {"dim": (0, 5)}, {"s": [3, 2], "dim": [1, 0]},
]


@pytest.mark.parametrize("name", TWO_D + N_D)
@pytest.mark.parametrize("complex_", [False, True], ids=["real", "complex"])
def test_n_dimensional_transforms_match_torch(name: str, complex_: bool) -> None:
    torch = pytest.importorskip("torch")
    for shape, kw, norm in itertools.product([(4, 5), (3, 4, 6), (1, 3)], _ND_ARGS, [None, "ortho", "forward"]):
        a = arr(shape, complex_)
        kwargs = dict(kw, **({"norm": norm} if norm else {}))
        assert_same(torch, lambda L: getattr(L.fft, name)(_t(L, a), **kwargs))


@pytest.mark.parametrize("name", ONE_D + TWO_D + N_D)
def test_special_inputs_match_torch(name: str) -> None:
    """0-dim, 1-dim (too few dims for the 2-D ones), single precision, integers, bools, non-contiguous, Half."""
    torch = pytest.importorskip("torch")
    cases = [arr(()), arr((), True), arr((3,)), arr((3,), True), np.arange(12).reshape(3, 4),
             np.array([[True, False], [False, True]]), np.arange(6, dtype=np.int32).reshape(2, 3)]
    for a in cases:
        assert_same(torch, lambda L: getattr(L.fft, name)(_t(L, a)))
    for complex_ in (False, True):
        a32 = arr((4, 6), complex_, np.float32)
        assert_same(torch, lambda L: getattr(L.fft, name)(_t(L, a32)), tol=1e-5)
        strided = arr((6, 5), complex_).T[:, ::2]  # transposed and strided
        assert not strided.flags.c_contiguous
        assert_same(torch, lambda L: getattr(L.fft, name)(L.from_numpy(strided)))
    assert_same(torch, lambda L: getattr(L.fft, name)(L.ones(4, 4, dtype=L.float16)))


@pytest.mark.parametrize("name", ONE_D + TWO_D + N_D)
def test_empty_batches_give_empty_results(name: str) -> None:
    """torch's MKL build refuses some empty batches (an MKL configuration error); the transform of nothing is empty."""
    for complex_ in (False, True):
        if complex_ and name in REAL_ONLY:
            continue
        x = tensorlib.from_numpy(arr((0, 4, 4), complex_))
        out = getattr(tensorlib.fft, name)(x, **({"dim": (1, 2)} if name in N_D else {}))
        assert out.shape[0] == 0 and out.ndim == 3
        assert out.dtype.is_complex == (name not in {"irfft", "hfft", "irfft2", "hfft2", "irfftn", "hfftn"})


_ARG_ERRORS = [
    ("fft", {"n": 2.0}), ("fft", {"dim": 1.0}), ("fft", {"dim": None}), ("fft", {"dim": True}), ("fft", {"norm": 1}),
    ("fft", {"norm": "bad"}), ("fft", {"n": "3"}), ("rfft", {"norm": "Ortho"}), ("fftn", {"s": (2.0, 3)}),
    ("fftn", {"s": "ab"}), ("fftn", {"dim": 1.0}), ("fftn", {"dim": (0.0,)}), ("fftn", {"s": (True,)}),
    ("fftn", {"norm": 2}), ("ifft2", {"norm": "bad"}), ("fft2", {"s": (3,)}), ("fftn", {"dim": [0], "s": [2, 2]}),
]


@pytest.mark.parametrize("name,kwargs", _ARG_ERRORS, ids=[f"{n}-{sorted(k)}" for n, k in _ARG_ERRORS])
def test_argument_errors_match_torch(name: str, kwargs: dict) -> None:
    torch = pytest.importorskip("torch")
    a = arr((4, 5))
    assert_same(torch, lambda L: getattr(L.fft, name)(_t(L, a), **kwargs))


def test_integer_tensors_are_taken_for_int_arguments() -> None:
    torch = pytest.importorskip("torch")
    a = arr((4, 5))
    for fn in (lambda L: L.fft.fft(_t(L, a), n=L.tensor([3])), lambda L: L.fft.fft(_t(L, a), dim=L.tensor(0)),
               lambda L: L.fft.fft(_t(L, a), n=L.tensor(3.0)), lambda L: L.fft.fftn(_t(L, a), dim=L.tensor([0])),
               lambda L: L.fft.fftn(_t(L, a), dim=L.tensor([0, 1])), lambda L: L.fft.fftn(_t(L, a), s=(L.tensor(2), 3)),
               lambda L: L.fft.fftshift(_t(L, a), dim=L.tensor(0)), lambda L: L.fft.fft([1.0, 2.0])):
        assert_same(torch, fn)


def test_default_dtype_decides_the_promotion_of_integers() -> None:
    x = tensorlib.arange(4)
    tensorlib.set_default_dtype(tensorlib.float64)
    try:
        assert tensorlib.fft.fft(x).dtype == tensorlib.complex128
        assert tensorlib.fft.irfft(x).dtype == tensorlib.float64
    finally:
        tensorlib.set_default_dtype(tensorlib.float32)
    assert tensorlib.fft.fft(x).dtype == tensorlib.complex64
    assert tensorlib.fft.rfft(x).dtype == tensorlib.complex64


# -- out= ---------------------------------------------------------------------------------------------------

_OUT_CASES = [
    ("fft", np.float32, "complex128"), ("fft", np.complex128, "complex64"), ("fft", np.complex128, "float32"),
    ("ifft", np.float64, "complex64"), ("ifft", np.float64, "complex128"), ("ifftn", np.complex128, "float64"),
    ("ifft2", np.complex128, "float64"), ("rfft2", np.float64, "float64"), ("irfft2", np.complex128, "complex64"),
    ("hfft2", np.complex128, "complex64"), ("ihfft2", np.float64, "float64"), ("ihfft2", np.float64, "complex64"),
    ("ihfft", np.float32, "complex128"), ("ihfft", np.float64, "complex128"), ("hfft", np.complex128, "float32"),
    ("irfft", np.complex64, "float64"), ("rfftn", np.float64, "complex128"), ("irfftn", np.complex128, "int64"),
    ("hfftn", np.complex64, "float32"), ("fftn", np.int64, "complex64"),
]


@pytest.mark.parametrize("name,in_dtype,out_dtype", _OUT_CASES)
def test_out_matches_torch(name: str, in_dtype: Any, out_dtype: str) -> None:
    torch = pytest.importorskip("torch")
    a = (arr((4, 5), np.dtype(in_dtype).kind == "c") if np.dtype(in_dtype).kind in "fc"
         else np.arange(20).reshape(4, 5)).astype(in_dtype)

    def call(L: Any) -> Any:
        out = L.empty(0, dtype=getattr(L, out_dtype))
        result = getattr(L.fft, name)(_t(L, a), out=out)
        assert result is out
        return out

    assert_same(torch, call, tol=1e-5)


def test_out_refuses_inputs_that_require_grad() -> None:
    torch = pytest.importorskip("torch")
    a = arr((4,))
    for name in ("fft", "rfft", "irfft", "fftn"):
        assert_same(torch, lambda L: getattr(L.fft, name)(_t(L, a, True), out=L.empty(0, dtype=L.complex128)
                                                          if name != "irfft" else L.empty(0, dtype=L.float64)))


def test_ihfftn_over_one_dim_writes_its_result_into_out() -> None:
    # torch 2.13 swaps the arguments of its conj_physical_out here (it returns `out` unchanged); tensorlib writes
    # the result, as ihfft does
    x = tensorlib.from_numpy(arr((4, 5)))
    out = tensorlib.empty(0, dtype=tensorlib.complex128)
    assert tensorlib.fft.ihfftn(x, dim=0, out=out) is out
    np.testing.assert_allclose(out.numpy(), tensorlib.fft.ihfft(x, dim=0).numpy())


# -- gradients ------------------------------------------------------------------------------------------------

_GRAD_CASES = [(name, {}) for name in ONE_D + TWO_D + N_D] + [
    ("fft", {"n": 3}), ("fft", {"n": 8, "norm": "ortho"}), ("ifft", {"n": 7, "dim": 0, "norm": "forward"}),
    ("rfft", {"n": 8}), ("rfft", {"n": 3, "norm": "forward"}), ("irfft", {"n": 5}),
    ("irfft", {"n": 12, "norm": "ortho"}),
    ("hfft", {"n": 7, "dim": 0}), ("ihfft", {"n": 6, "norm": "ortho"}), ("fftn", {"s": (3, 7)}),
    ("rfftn", {"s": (2, 9), "norm": "ortho"}), ("irfftn", {"s": (5, 5)}), ("hfftn", {"s": (3, 6), "norm": "forward"}),
    ("ihfftn", {"dim": (1, 0)}), ("irfft2", {"s": (2, 3)}), ("hfft2", {"dim": (1, 0)}), ("fftshift", {}),
    ("ifftshift", {"dim": 0}),
]


@pytest.mark.parametrize("name,kwargs", _GRAD_CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(_GRAD_CASES)])
@pytest.mark.parametrize("complex_", [False, True], ids=["real", "complex"])
def test_gradients_match_torch(name: str, kwargs: dict, complex_: bool) -> None:
    """Backward with a random upstream gradient, for real and complex inputs, as torch computes it."""
    torch = pytest.importorskip("torch")
    if complex_ and name in REAL_ONLY:
        pytest.skip("real inputs only")
    a = arr((4, 6), complex_)
    tx = _t(torch, a, True)
    ty = getattr(torch.fft, name)(tx, **kwargs)
    g = arr(tuple(ty.shape), ty.is_complex())
    ty.backward(torch.from_numpy(g.copy()))
    x = _t(tensorlib, a, True)
    y = getattr(tensorlib.fft, name)(x, **kwargs)
    assert y.grad_fn.name() == ty.grad_fn.name()
    y.backward(tensorlib.from_numpy(g.copy()))
    assert x.grad.dtype.name == str(tx.grad.dtype).split(".")[1]
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.resolve_conj().numpy(), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("name", ONE_D + N_D)
def test_gradgradcheck_on_non_contiguous_complex_inputs(name: str) -> None:
    complex_ = name not in REAL_ONLY
    x = tensorlib.from_numpy(arr((5, 4), complex_).T[:, ::2]).requires_grad_()
    assert gradcheck(lambda t: getattr(tensorlib.fft, name)(t, norm="ortho"), (x,))
    assert gradgradcheck(lambda t: getattr(tensorlib.fft, name)(t), (x,))


def test_node_names_of_padding_and_promotion() -> None:
    torch = pytest.importorskip("torch")
    for fn in (lambda L: L.fft.fft(L.ones(4, dtype=L.complex128, requires_grad=True), n=6),
               lambda L: L.fft.fftn(L.ones(4, dtype=L.float64, requires_grad=True))):
        ours, theirs = fn(tensorlib), fn(torch)
        assert ours.grad_fn.name() == theirs.grad_fn.name()
        assert ours.grad_fn.next_functions[0][0].name() == theirs.grad_fn.next_functions[0][0].name()


def test_round_trips_and_parseval() -> None:
    """Without torch: each inverse undoes its transform, in every norm, and ``ortho`` keeps the energy."""
    x = tensorlib.from_numpy(arr((4, 6)))
    z = tensorlib.from_numpy(arr((4, 6), True))
    for norm in NORMS:
        F = tensorlib.fft
        np.testing.assert_allclose(F.ifft(F.fft(z, norm=norm), norm=norm).numpy(), z.numpy(), atol=1e-12)
        np.testing.assert_allclose(F.irfft(F.rfft(x, norm=norm), n=6, norm=norm).numpy(), x.numpy(), atol=1e-12)
        np.testing.assert_allclose(F.hfft(F.ihfft(x, norm=norm), n=6, norm=norm).numpy(), x.numpy(), atol=1e-12)
        np.testing.assert_allclose(F.ifftn(F.fftn(z, norm=norm), norm=norm).numpy(), z.numpy(), atol=1e-12)
        np.testing.assert_allclose(F.irfftn(F.rfftn(x, norm=norm), s=(4, 6), norm=norm).numpy(), x.numpy(), atol=1e-12)
        np.testing.assert_allclose(F.hfftn(F.ihfftn(x, norm=norm), s=(4, 6), norm=norm).numpy(), x.numpy(), atol=1e-12)
    energy = (z.abs() ** 2).sum().item()
    assert np.isclose((tensorlib.fft.fftn(z, norm="ortho").abs() ** 2).sum().item(), energy)


# -- fftfreq, rfftfreq, fftshift, ifftshift --------------------------------------------------------------------

_FREQ_CASES: list[tuple[str, tuple, dict]] = [
    (name, args, kw)
    for name in ("fftfreq", "rfftfreq")
    for args, kw in [
        ((7, 0.3), {}), ((8,), {}), ((1,), {}), ((0,), {}), ((-1,), {}), ((-3,), {}), ((3, 0), {}),
        ((5, 2), {"dtype": "float64"}), ((5, 2), {"dtype": "float16"}), ((5,), {"requires_grad": True}),
        ((5,), {"dtype": "int64"}), ((5,), {"dtype": "complex64"}), ((4.0,), {}), ((True,), {}), ((3, 1j), {}),
        ((3, "a"), {}), ((5, 3), {"device": "cpu"}),
        ((6, -0.5), {"layout": "strided", "pin_memory": False}), ((9,), {"d": 0.1}),
    ]
]


@pytest.mark.parametrize("name,args,kwargs", _FREQ_CASES)
def test_sample_frequencies_match_torch(name: str, args: tuple, kwargs: dict) -> None:
    torch = pytest.importorskip("torch")

    def call(L: Any) -> Any:
        kw = {k: (getattr(L, v) if k in ("dtype", "layout") else v) for k, v in kwargs.items()}
        r = getattr(L.fft, name)(*args, **kw)
        assert r.requires_grad == bool(kwargs.get("requires_grad"))
        return r

    assert_same(torch, call, tol=0)  # exactly torch's values (integers times 1 / (n d) in the result's dtype)


def test_sample_frequencies_take_a_tensor_spacing_and_out() -> None:
    torch = pytest.importorskip("torch")
    assert_same(torch, lambda L: L.fft.fftfreq(5, L.tensor(0.5)), tol=0)
    assert_same(torch, lambda L: L.fft.rfftfreq(6, out=L.empty(0, dtype=L.float64)), tol=0)
    assert_same(torch, lambda L: L.fft.fftfreq(6, out=L.empty(0, dtype=L.int64)))
    assert_same(torch, lambda L: L.fft.fftfreq(3, out=L.empty(0, dtype=L.float64, requires_grad=True)))


def test_only_modes_see_the_sample_frequency_factories() -> None:
    from tensorlib.overrides import TorchFunctionMode, get_ignored_functions

    seen = []

    class Log(TorchFunctionMode):
        def __torch_function__(self, func: Any, types: Any, args: tuple = (), kwargs: Any = None) -> Any:
            seen.append((func.__name__, args, kwargs))
            return func(*args, **(kwargs or {}))

    with Log():
        tensorlib.fft.fftfreq(4)
        tensorlib.fft.rfftfreq(5, 0.5, dtype=tensorlib.float64)
    assert seen == [("fftfreq", (4,), None), ("rfftfreq", (5, 0.5), {"dtype": tensorlib.float64})]
    assert {tensorlib.fft.fftfreq, tensorlib.fft.rfftfreq} <= get_ignored_functions()


_SHIFT_CASES = [
    ((4, 5), {}), ((4, 5), {"dim": 1}), ((4, 5), {"dim": (0, 0)}), ((4, 5), {"dim": [-1]}), ((4, 5), {"dim": ()}),
    ((4, 5), {"dim": 2}), ((4, 5), {"dim": 1.0}), ((), {}), ((), {"dim": 0}), ((0, 3), {}), ((7,), {}),
]


@pytest.mark.parametrize("name", ["fftshift", "ifftshift"])
def test_shifts_match_torch(name: str) -> None:
    torch = pytest.importorskip("torch")
    for (shape, kw), complex_ in itertools.product(_SHIFT_CASES, (False, True)):
        a = arr(shape, complex_)
        assert_same(torch, lambda L: getattr(L.fft, name)(_t(L, a), **kw))
    assert_same(torch, lambda L: getattr(L.fft, name)(L.arange(5)))
    assert_same(torch, lambda L: getattr(L.fft, name)([1.0]))
    x = tensorlib.arange(10.0)
    np.testing.assert_array_equal(tensorlib.fft.ifftshift(tensorlib.fft.fftshift(x)).numpy(), x.numpy())
