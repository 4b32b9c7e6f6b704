"""The complex helpers and the short-time transforms against torch: views sharing memory (``view_as_real``,
``view_as_complex``) with in-place writes through them, ``complex``/``polar``/``conj_physical`` errors and ``out=``,
the conjugate and negative bits (tensorlib has none), ``isreal``, ``stft``/``istft`` over their options, their
errors, warnings and gradients. The op table runs gradcheck and gradgradcheck on each.
"""

from __future__ import annotations

import itertools
import warnings
from typing import Any, Callable

import numpy as np
import pytest

import tensorlib
from tensorlib.autograd import gradcheck, gradgradcheck

from tests.ops.test_fft import _outcome

_rng = np.random.default_rng(11)


def carr(*shape: int) -> np.ndarray:
    return np.asarray(_rng.standard_normal(shape) + 1j * _rng.standard_normal(shape))


def assert_same(torch: Any, fn: Callable[[Any], Any], tol: float = 1e-10) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs, ours = _outcome(torch, fn), _outcome(tensorlib, fn)
    if ours[0] == "error":  # messages name the library's types
        ours = ours[:2] + (ours[2].replace("tensorlib.", "torch."),)
    assert ours[:3] == theirs[:3], (ours[:3], theirs[:3])
    if ours[0] == "ok":
        np.testing.assert_allclose(ours[3], theirs[3], rtol=tol, atol=tol)


# -- views ---------------------------------------------------------------------------------------------------------


def test_views_share_memory_with_their_base() -> None:
    z = tensorlib.from_numpy(carr(3, 4))
    r = tensorlib.view_as_real(z)
    assert r.shape == (3, 4, 2) and r.stride() == (8, 2, 1) and r._base is z
    r[1, 2, 1] = 7.0
    assert z[1, 2].item() == pytest.approx(complex(z[1, 2].real.item(), 7.0))
    c = tensorlib.view_as_complex(r)
    assert c.shape == (3, 4) and c._base is z
    c[0, 0] = 1 + 2j
    assert r[0, 0].tolist() == [1.0, 2.0]
    assert tensorlib.view_as_real(z.T).stride() == (2, 8, 1)
    assert tensorlib.view_as_real(tensorlib.tensor(1 + 2j)).tolist() == [1.0, 2.0]


_VIEW_CASES: list[Callable[[Any], Any]] = [
    lambda L: L.view_as_real(L.ones(3)),
    lambda L: L.view_as_real(L.ones(2, 3, dtype=L.complex64)),
    lambda L: L.view_as_real(L.ones(0, 3, dtype=L.complex64)),
    lambda L: L.view_as_complex(L.ones(3, 2, dtype=L.int64)),
    lambda L: L.view_as_complex(L.ones(3, dtype=L.complex64)),
    lambda L: L.view_as_complex(L.ones(3, 3)),
    lambda L: L.view_as_complex(L.tensor(1.0)),
    lambda L: L.view_as_complex(L.ones(2, 3).T),
    lambda L: L.view_as_complex(L.ones(3, 3)[:, :2]),
    lambda L: L.view_as_complex(L.ones(8)[1:5].view(2, 2)),
    lambda L: L.view_as_complex(L.arange(8.0).view(2, 2, 2)[:, 1]),
    lambda L: L.view_as_complex(L.ones(0, 2)),
    lambda L: L.view_as_complex(L.ones(2)),
    lambda L: L.view_as_complex([1.0, 2.0]),
]


@pytest.mark.parametrize("case", range(len(_VIEW_CASES)))
def test_views_match_torch(case: int) -> None:
    torch = pytest.importorskip("torch")
    assert_same(torch, _VIEW_CASES[case])


def _inplace_scenarios(L: Any) -> list:
    out = []
    x0 = np.array([1 + 2j, 3 - 1j, 0.5 + 0.5j])
    # written through the real view: the complex base's gradient
    x = L.tensor(x0, dtype=L.complex128, requires_grad=True)
    y = x * 1
    r = L.view_as_real(y)
    r.mul_(L.tensor([2.0, 3.0], dtype=L.float64))
    (y * L.tensor([1 + 1j, 2, 3j], dtype=L.complex128)).real.sum().backward()
    out.append(x.grad)
    # the base written after the view was taken: the view's history is regenerated
    x = L.tensor(x0, dtype=L.complex128, requires_grad=True)
    y = x * 1
    r = L.view_as_real(y)
    y.mul_(2j)
    (r * L.arange(6.0, dtype=L.float64).view(3, 2)).sum().backward()
    out.append(x.grad)
    # written through the complex view of a real base, then a slice of it
    a = L.tensor(np.arange(6.0).reshape(3, 2), dtype=L.float64, requires_grad=True)
    b = a * 1
    c = L.view_as_complex(b)
    c.mul_(1j)
    c[1:].add_(L.tensor([1 + 1j, 2], dtype=L.complex128) * 3)
    (b * L.arange(6.0, dtype=L.float64).view(3, 2)).sum().backward()
    out.append(a.grad)
    # a real view of a complex view of a real base
    a = L.tensor(np.arange(8.0).reshape(2, 4), dtype=L.float64, requires_grad=True)
    b = a * 1
    w = L.view_as_real(L.view_as_complex(b.view(2, 2, 2)))
    w[0].mul_(-1)
    (b ** 2).sum().backward()
    out.append(a.grad)
    return [t.detach().resolve_conj().numpy() if L.__name__ == "torch" else t.numpy() for t in out]


def test_inplace_writes_through_views_of_another_dtype_match_torch() -> None:
    torch = pytest.importorskip("torch")
    for ours, theirs in zip(_inplace_scenarios(tensorlib), _inplace_scenarios(torch), strict=True):
        np.testing.assert_allclose(ours, theirs)


def test_gradients_through_inplace_writes_on_views_are_checked() -> None:
    def fn(x: Any) -> Any:
        y = x * 1
        tensorlib.view_as_real(y)[..., 1].mul_(3.0)
        return y * 1

    x = tensorlib.from_numpy(carr(2, 3)).requires_grad_()
    assert gradcheck(fn, (x,)) and gradgradcheck(fn, (x,))

    def fn2(a: Any) -> Any:
        b = a * 1
        tensorlib.view_as_complex(b).mul_(1 + 1j)
        return b * 1

    a = tensorlib.from_numpy(_rng.standard_normal((3, 2))).requires_grad_()
    assert gradcheck(fn2, (a,)) and gradgradcheck(fn2, (a,))


# -- complex, polar, conj_physical -------------------------------------------------------------------------------------

_BUILD_CASES: list[Callable[[Any], Any]] = [
    lambda L: L.complex(L.ones(3), L.ones(3)),
    lambda L: L.complex(L.ones(3, 1, dtype=L.float64), L.arange(4.0, dtype=L.float64)),
    lambda L: L.complex(L.ones(3), L.ones(3, dtype=L.float64)),
    lambda L: L.complex(L.ones(3, dtype=L.int64), L.ones(3, dtype=L.int64)),
    lambda L: L.complex(L.ones(3), L.ones(4)),
    lambda L: L.complex(L.ones(3), L.ones(3), out=L.empty(0, dtype=L.complex128)),
    lambda L: L.complex(L.ones(3), L.ones(3), out=L.empty(0, dtype=L.complex64)),
    lambda L: L.complex(L.ones(3), L.ones(3), out=L.empty(0)),
    lambda L: L.complex(L.ones(3), 1.0),
    lambda L: L.complex(L.ones(3, requires_grad=True), L.ones(3)).requires_grad,
    lambda L: L.polar(L.ones(3), L.arange(3.0)),
    lambda L: L.polar(L.ones(3, 1, dtype=L.float64), L.arange(4.0, dtype=L.float64)),
    lambda L: L.polar(L.ones(3), L.ones(3, dtype=L.float64)),
    lambda L: L.polar(L.ones(3, dtype=L.complex64), L.ones(3)),
    lambda L: L.polar(L.ones(3), 1.0),
    lambda L: L.polar(L.ones(2), L.ones(2), out=L.empty(0, dtype=L.complex128)),
    lambda L: L.conj_physical(L.tensor([1 + 2j, 3j])),
    lambda L: L.conj_physical(L.ones(3, dtype=L.int64)),
    lambda L: L.conj_physical(L.tensor([1 + 2j]), out=L.empty(0, dtype=L.complex128)),
    lambda L: L.conj_physical(L.tensor([1 + 2j], dtype=L.complex64), out=L.empty(0, dtype=L.complex128)),
    lambda L: L.tensor([1 + 2j]).conj_physical_(),
    lambda L: L.conj_physical_(L.tensor([1.0, -2.0])),
    lambda L: L.isreal(L.tensor([1 + 0j, 1 + 1j, complex(float("nan"), 0), complex(1, -0.0)])),
    lambda L: L.isreal(L.ones(2, requires_grad=True)),
    lambda L: L.ones(2, dtype=L.int64).isreal(),
    lambda L: L.isreal(L.tensor(2j)),
]


@pytest.mark.parametrize("case", range(len(_BUILD_CASES)))
def test_complex_builders_match_torch(case: int) -> None:
    torch = pytest.importorskip("torch")
    fn = _BUILD_CASES[case]
    if case == 9:
        assert fn(tensorlib) == fn(torch)
        return
    assert_same(torch, fn, tol=1e-6)  # single precision


def test_node_names_match_torch() -> None:
    torch = pytest.importorskip("torch")
    for fn in (lambda L: L.complex(L.ones(2, requires_grad=True), L.ones(2)),
               lambda L: L.polar(L.ones(2, requires_grad=True), L.ones(2)),
               lambda L: L.conj_physical(L.ones(2, dtype=L.complex64, requires_grad=True)),
               lambda L: L.view_as_real(L.ones(2, dtype=L.complex64, requires_grad=True)),
               lambda L: L.view_as_complex(L.ones(2, 2, requires_grad=True))):
        assert fn(tensorlib).grad_fn.name() == fn(torch).grad_fn.name()


def test_conj_physical_of_real_tensors_is_the_tensor_itself() -> None:
    x = tensorlib.ones(3)
    assert tensorlib.conj_physical(x) is x and x.conj_physical() is x
    assert tensorlib.conj_physical_(x) is x and x.conj_physical_() is x
    z = tensorlib.tensor([1 + 1j])
    version = z._version
    assert z.conj_physical_() is z and z.tolist() == [1 - 1j] and z._version > version


def test_there_are_no_conjugate_or_negative_bits() -> None:
    """conj and neg are computed at once in tensorlib: no tensor is lazily conjugated or negated."""
    z = tensorlib.from_numpy(carr(3))
    for t in (z, z.conj(), tensorlib.conj(z).imag, tensorlib.fft.ifft(tensorlib.ones(4)), -z):
        assert t.is_conj() is False and t.is_neg() is False
        assert tensorlib.is_conj(t) is False and tensorlib.is_neg(t) is False
        assert t.resolve_conj() is t and tensorlib.resolve_neg(t) is t and tensorlib.resolve_conj(t) is t
        assert t.resolve_neg() is t
    np.testing.assert_array_equal(z.conj().numpy(), np.conj(z.numpy()))
    with pytest.raises(TypeError, match=r"is_conj\(\): argument 'input' \(position 1\) must be Tensor"):
        tensorlib.is_conj(1.0)


def test_bits_match_torch_where_torch_has_none() -> None:
    torch = pytest.importorskip("torch")
    for L in (torch, tensorlib):
        z = L.ones(2, dtype=L.complex64)
        assert (z.is_conj(), z.is_neg(), L.is_conj(z), L.is_neg(z), L.resolve_conj(z) is z) == (False, False, False,
                                                                                              False, True)


# -- stft and istft ----------------------------------------------------------------------------------------------------

_SIG1 = _rng.standard_normal(21)
_SIG2 = _rng.standard_normal((2, 19))
_CSIG = carr(21)
_HANN8 = np.hanning(10)[1:-1].copy()
_HAMMING5 = np.hamming(5)


def _window(L: Any, kind: str | None, win_length: int | None) -> Any:
    if kind is None:
        return None
    return L.from_numpy((_HANN8 if win_length is None else _HAMMING5).copy())


_STFT_GRID = [
    (sig, hop, winl, win, center, pad, normalized, onesided, rc)
    for sig, hop, winl, win, center, pad, normalized, onesided, rc in itertools.product(
        ("real", "batch", "complex"), (None, 3), (None, 5), (None, "w"), (True, False),
        ("reflect", "constant", "replicate", "circular"), (False, True), (None, False, True), (None, True, False))
    if (pad == "reflect" or center) and (normalized or hop is None)
][::5]  # a fifth of the grid: a stride prime to every option count, so each value appears with the others


@pytest.mark.parametrize("sig", ["real", "batch", "complex"])
def test_stft_matches_torch(sig: str) -> None:
    torch = pytest.importorskip("torch")
    signal = {"real": _SIG1, "batch": _SIG2, "complex": _CSIG}[sig]
    for _, hop, winl, win, center, pad, normalized, onesided, rc in (g for g in _STFT_GRID if g[0] == sig):
        def fn(L: Any) -> Any:
            return L.stft(L.from_numpy(signal.copy()), 8, hop_length=hop, win_length=winl, window=_window(L, win, winl),
                          center=center, pad_mode=pad, normalized=normalized, onesided=onesided, return_complex=rc)

        assert_same(torch, fn)


_STFT_CASES: list[Callable[[Any], Any]] = [
    lambda L: L.from_numpy(_SIG1.copy()).stft(8, window=L.from_numpy(_HANN8.astype(np.complex128)),
                                              return_complex=True),
    lambda L: L.from_numpy(_SIG1.astype(np.float32)).stft(8, window=L.from_numpy(_HANN8), return_complex=True),
    lambda L: L.stft(L.from_numpy(_SIG1.copy()), 8, 2, 4, center=False, align_to_window=True, return_complex=True),
    lambda L: L.stft(L.from_numpy(_SIG1.copy()), 8, 2, 4, center=False, align_to_window=False, return_complex=True),
    lambda L: L.stft(L.from_numpy(_SIG1.copy()), 8, align_to_window=True, return_complex=True),
    lambda L: L.stft(L.from_numpy(_SIG1.copy()), 30, center=False, return_complex=True),
    lambda L: L.stft(L.from_numpy(_SIG1.copy()), 0, return_complex=True),
    lambda L: L.stft(L.from_numpy(_SIG1.copy()), 8, hop_length=0, return_complex=True),
    lambda L: L.stft(L.from_numpy(_SIG1.copy()), 8, win_length=9, return_complex=True),
    lambda L: L.stft(L.from_numpy(_SIG1.copy()), 8, window=L.ones(7, dtype=L.float64), return_complex=True),
    lambda L: L.stft(L.from_numpy(_SIG1.copy()), 8, pad_mode="foo", return_complex=True),
    lambda L: L.stft(L.from_numpy(_SIG1.copy()), 8),
    lambda L: L.stft(L.from_numpy(_CSIG.copy()), 8, onesided=True),
    lambda L: L.stft(L.arange(20), 8, return_complex=True),
    lambda L: L.stft(L.ones(2, 2, 20), 8, return_complex=True),
    lambda L: L.stft(L.tensor(1.0), 8, return_complex=True),
    lambda L: L.stft(L.tensor(1.0), 8, return_complex=True, pad_mode="constant"),
    lambda L: L.stft(L.ones(3), 8, return_complex=True),
    lambda L: L.stft(L.ones(3), 8, return_complex=True, pad_mode="circular"),
    lambda L: L.stft(L.ones(3), 8, return_complex=True, pad_mode="replicate"),
]


@pytest.mark.parametrize("case", range(len(_STFT_CASES)))
def test_stft_options_and_errors_match_torch(case: int) -> None:
    torch = pytest.importorskip("torch")
    assert_same(torch, _STFT_CASES[case], tol=1e-5)


def test_stft_warns_as_torch() -> None:
    x = tensorlib.from_numpy(_SIG1.copy())
    with pytest.warns(UserWarning, match="stft with return_complex=False is deprecated"):
        tensorlib.stft(x, 8, window=tensorlib.ones(8, dtype=tensorlib.float64), return_complex=False)
    with pytest.warns(UserWarning, match="A window was not provided. A rectangular window will be applied,"):
        tensorlib.stft(x, 8, return_complex=True)
    spec = tensorlib.stft(x, 8, window=tensorlib.ones(8, dtype=tensorlib.float64), return_complex=True)
    with pytest.warns(UserWarning, match="A window was not provided. A rectangular window will be applied.Please"):
        tensorlib.istft(spec, 8)
    with pytest.warns(UserWarning, match="The length of signal is shorter than the length parameter"):
        assert tensorlib.istft(spec, 8, window=tensorlib.ones(8, dtype=tensorlib.float64), length=40).shape == (40,)


def _spectrogram(sig: np.ndarray, hop: Any, winl: Any, win: Any, center: bool, normalized: bool) -> np.ndarray:
    torch = pytest.importorskip("torch")
    window = None if win is None else torch.from_numpy(_HANN8 if winl is None else np.hanning(8)[1:-1].copy())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return torch.stft(torch.from_numpy(sig.copy()), 8, hop_length=hop, win_length=winl, window=window,
                          center=center, normalized=normalized, return_complex=True).resolve_conj().numpy()


@pytest.mark.parametrize("sig", ["real", "batch", "complex"])
def test_istft_matches_torch(sig: str) -> None:
    torch = pytest.importorskip("torch")
    signal = {"real": _SIG1, "batch": _SIG2, "complex": _CSIG}[sig]
    grid = list(itertools.product((None, 6), (None, "w"), (True, False), (False, True), (None, False, True),
                                  (None, 15, 40), (False, True), (None, 2)))
    for winl, win, center, normalized, onesided, length, rc, hop in grid[::5]:  # a stride prime to each count
        spec = _spectrogram(signal, hop, winl, win, center, normalized)

        def fn(L: Any) -> Any:
            window = None if win is None else L.from_numpy(_HANN8 if winl is None else np.hanning(8)[1:-1].copy())
            return L.istft(L.from_numpy(spec.copy()), 8, hop_length=hop, win_length=winl, window=window, center=center,
                           normalized=normalized, onesided=onesided, length=length, return_complex=rc)

        assert_same(torch, fn)


def _istft_case(**kw: Any) -> Callable[[Any], Any]:
    def fn(L: Any) -> Any:
        spec = _spectrogram(_SIG1, None, None, "w", True, False)
        kw_ = dict(kw)
        n_fft = kw_.pop("n_fft", 8)
        window = kw_.get("window", "hann")
        kw_["window"] = {"short": lambda: L.ones(5, dtype=L.float64), "zeros": lambda: L.zeros(8, dtype=L.float64),
                         "complex": lambda: L.from_numpy(_HANN8.astype(np.complex128)),
                         "hann": lambda: L.from_numpy(_HANN8.copy())}[window]()
        x = L.from_numpy(spec.copy())
        part = kw_.pop("part", None)
        if part == "empty":
            x = x[:, :0]
        elif part == "1d":
            x = x[0]
        elif part == "real":
            x = x.real.contiguous()
        elif part == "complex64":
            x = x.to(L.complex64)
        return L.istft(x, n_fft, **kw_)

    return fn


_ISTFT_CASES = [
    _istft_case(hop_length=9), _istft_case(win_length=9), _istft_case(window="short"), _istft_case(window="zeros"),
    _istft_case(window="zeros", center=False), _istft_case(window="complex"),
    _istft_case(window="complex", return_complex=True, onesided=False), _istft_case(part="empty"),
    _istft_case(part="1d"), _istft_case(part="real"), _istft_case(onesided=False), _istft_case(part="complex64"),
    _istft_case(n_fft=8.0), _istft_case(length=10),
]


@pytest.mark.parametrize("case", range(len(_ISTFT_CASES)))
def test_istft_options_and_errors_match_torch(case: int) -> None:
    torch = pytest.importorskip("torch")
    assert_same(torch, _ISTFT_CASES[case], tol=1e-6)


def test_istft_inverts_stft() -> None:
    """Without torch: the round trip gives the signal back, for real and complex signals."""
    window = tensorlib.from_numpy(_HANN8.copy())
    for sig in (_SIG1, _SIG2, _CSIG):
        x = tensorlib.from_numpy(sig.copy())
        complex_ = np.iscomplexobj(sig)
        spec = tensorlib.stft(x, 8, hop_length=2, window=window, return_complex=True)
        back = tensorlib.istft(spec, 8, hop_length=2, window=window, length=sig.shape[-1], return_complex=complex_,
                               onesided=False if complex_ else None)
        np.testing.assert_allclose(back.numpy(), sig, atol=1e-12)


_GRAD_CASES: list[tuple[str, Callable[..., Any], tuple]] = [
    ("stft", lambda L, x, w: L.stft(x, 8, hop_length=2, window=w, return_complex=True), (_SIG1, _HANN8 + 0.1)),
    ("stft-complex", lambda L, x, w: L.stft(x, 8, hop_length=3, window=w, normalized=True, pad_mode="constant"),
     (_CSIG, _HANN8 + 0.1)),
    ("stft-real-view", lambda L, x: L.stft(x, 6, 2, 4, center=False, return_complex=False, align_to_window=True),
     (_SIG1,)),
    ("istft", lambda L, X, w: L.istft(X, 8, hop_length=2, window=w), (carr(5, 11), _HANN8 + 0.1)),
    ("istft-complex", lambda L, X, w: L.istft(X, 8, hop_length=2, window=w.to(L.complex128), return_complex=True,
                                              onesided=False, length=12), (carr(8, 11), _HANN8 + 0.1)),
]


@pytest.mark.parametrize("name,fn,arrays", _GRAD_CASES, ids=[c[0] for c in _GRAD_CASES])
def test_short_time_gradients_match_torch(name: str, fn: Callable[..., Any], arrays: tuple) -> None:
    torch = pytest.importorskip("torch")

    def grads(L: Any) -> list:
        ts = [L.from_numpy(a.copy()).requires_grad_() for a in arrays]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = fn(L, *ts)
        g = np.random.default_rng(5).standard_normal(tuple(out.shape))
        if out.is_complex():
            g = g + 1j * np.random.default_rng(6).standard_normal(tuple(out.shape))
        out.backward(L.from_numpy(np.asarray(g)))
        return [t.grad.resolve_conj().numpy() if L is torch else t.grad.numpy() for t in ts]

    for ours, theirs in zip(grads(tensorlib), grads(torch), strict=True):
        np.testing.assert_allclose(ours, theirs, atol=1e-10)


def test_istft_gradgradcheck_with_the_window() -> None:
    spec = tensorlib.from_numpy(carr(5, 7)).requires_grad_()
    window = tensorlib.from_numpy(_HANN8 + 0.1).requires_grad_()
    fn = lambda s, w: tensorlib.istft(s, 8, hop_length=2, window=w, length=11, center=False)  # noqa: E731
    assert gradcheck(fn, (spec, window)) and gradgradcheck(fn, (spec, window))


# Holomorphic functions take the conjugate derivative (g * conj(f'(z))); abs, sgn and angle are not holomorphic and
# have rules of their own. Each is checked numerically, to the second order.
_COMPLEX_GRAD_CASES: dict[str, Callable] = {
    **{name: getattr(tensorlib, name) for name in (
        "abs sgn angle exp exp2 expm1 log log2 log10 log1p sqrt rsqrt sin cos tan asin acos atan sinh cosh tanh "
        "asinh acosh atanh reciprocal sigmoid square".split())},
    "pow-scalar": lambda z: z ** 2.5,
    "pow-complex-exponent": lambda z: z ** (1 + 1j),
    "pow-tensors": lambda z: tensorlib.pow(z, z.flip(0)),
    "prod": tensorlib.prod,
    "prod-with-zero": lambda z: (z * tensorlib.tensor([0.0, 1.0, 1.0], dtype=z.dtype)).prod(),
    "cumprod": lambda z: z.cumprod(0),
    "linear": lambda z: tensorlib.nn.functional.linear(z.reshape(1, 3), z.reshape(3, 1) * z.reshape(1, 3)),
    "conv1d": lambda z: tensorlib.nn.functional.conv1d(z.reshape(1, 1, 3), z.flip(0).reshape(1, 1, 3)[..., :2]),
    "logaddexp": lambda z: tensorlib.logaddexp(z, z.flip(0) * 2),
    "logcumsumexp": lambda z: tensorlib.logcumsumexp(z * 3, 0),
    "rms_norm": lambda z: tensorlib.nn.functional.rms_norm(z, [3], z.flip(0)),
}


def test_complex_logaddexp_is_the_log_of_the_sum_of_exponentials() -> None:
    rng = np.random.default_rng(3)
    a, b = (rng.normal(size=(3, 4)) * 2 + 1j * rng.normal(size=(3, 4)) for _ in range(2))
    got = tensorlib.logaddexp(tensorlib.tensor(a), tensorlib.tensor(b)).numpy()
    expected = np.log(np.exp(a) + np.exp(b))
    # equal up to the branch of the imaginary part (torch keeps the larger operand's)
    assert np.allclose(np.exp(got), np.exp(a) + np.exp(b)) and np.allclose(got.real, expected.real)
    big = tensorlib.logaddexp(tensorlib.tensor([800 + 1j], dtype=tensorlib.complex128), tensorlib.tensor([799 + 0j])).numpy()
    assert np.isclose(big[0], 800 + 1j + np.log1p(np.exp(-1 - 1j)), rtol=1e-14)
    cumulative = tensorlib.logcumsumexp(tensorlib.tensor(a), 1).numpy()
    assert np.allclose(np.exp(cumulative), np.cumsum(np.exp(a), axis=1))


@pytest.mark.parametrize("name", list(_COMPLEX_GRAD_CASES))
def test_complex_gradients_are_conjugate_derivatives(name: str) -> None:
    z = tensorlib.tensor([1 + 2j, -0.5 + 0.3j, 0.2 - 0.4j], dtype=tensorlib.complex128, requires_grad=True)
    fn = _COMPLEX_GRAD_CASES[name]
    assert gradcheck(fn, (z,)) and gradgradcheck(fn, (z,))
