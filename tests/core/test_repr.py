"""Printing: element formatting, summarisation and suffixes exactly as torch prints them.

Reference strings come from torch's own repr with ``torch.`` replaced by
``tensorlib.``. The one deliberate difference (spec seed 004): when the
suffixes (``dtype=...``, ``grad_fn=...``) do not fit on the last line they all
move to a new line together, where torch 2 wraps them one by one. Since
``tensorlib.float64`` is longer than ``torch.float64`` the wrapping decision
can differ near the line end, so the torch comparison joins wrapped suffixes
back onto the last line; the wrapping rule itself is tested separately.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import tensorlib

_SUFFIX = r"(dtype=|requires_grad=|grad_fn=|size=)"


def _unwrap_suffixes(s: str) -> str:
    return re.sub(r",\n *" + _SUFFIX, r", \1", s)


def _torch_repr(t) -> str:
    return repr(t).replace("torch.", "tensorlib.")


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


@pytest.fixture
def printoptions(torch):
    """Set the same print options in both libraries; restore the defaults afterwards."""

    def set_both(**kw):
        tensorlib.set_printoptions(**kw)
        torch.set_printoptions(**kw)

    yield set_both
    tensorlib.set_printoptions(profile="default", sci_mode=None)
    torch.set_printoptions(profile="default", sci_mode=None)


def _pair(torch, data, dtype_name=None, requires_grad=False):
    """The same values as a torch tensor and a tensorlib tensor."""
    t = torch.tensor(data, dtype=getattr(torch, dtype_name) if dtype_name else None)
    x = tensorlib.tensor(t.numpy().copy())
    if requires_grad:
        t.requires_grad_(True)
        x.requires_grad_(True)
    return t, x


def _check(t, x):
    want = _unwrap_suffixes(_torch_repr(t))
    got = _unwrap_suffixes(repr(x))
    assert got == want


_rng = np.random.default_rng(1234)
VALUE_CASES = {
    "small floats": [0.1, 2.5, -3.0],
    "ints as floats": [1.0, 2.0, 3.0],
    "sci small": [1e-5, 1.0],
    "sci ratio": [1000.5, 0.1],
    "int mode sci": [1e10, 1.0],
    "border 1e-4": [1e-4, 1.0],
    "just below 1e-4": [9.99e-5, 1.0],
    "ratio 1000": [1000.0, 1.0],
    "big int mode": [123456789.0, 1.0],
    "zeros": [0.0, 0.0],
    "negative zero": [-0.0, 1.0],
    "nan inf": [float("nan"), 1.0, float("inf")],
    "nan with fraction": [float("nan"), 1.5, float("-inf")],
    "only inf": [float("inf"), -float("inf")],
    "extreme": [1e-20, 1e20],
    "matrix": _rng.standard_normal((5, 5)).tolist(),
    "3d big": (_rng.standard_normal((3, 4, 5)) * 1000).tolist(),
    "4d": _rng.standard_normal((2, 3, 4, 5)).tolist(),
    "tiny values": (_rng.standard_normal(30) * 1e-3).tolist(),
    "wide rows": _rng.standard_normal((10, 200)).tolist(),
    "mixed scale": [12345.678, 0.001],
    "one element": [0.5],
    "scalar": 3.14159,
    "scalar int": 7,
    "scalar bool": True,
}


@pytest.mark.parametrize("name", sorted(VALUE_CASES))
@pytest.mark.parametrize("dtype", [None, "float64", "float16", "int32", "int64", "int16", "int8", "uint8", "bool"])
def test_repr_matches_torch(torch, name, dtype):
    data = VALUE_CASES[name]
    try:
        t, x = _pair(torch, data, dtype)
    except (RuntimeError, TypeError, OverflowError):
        pytest.skip("torch refuses this combination")
    arr = np.asarray(data, dtype=np.float64)
    if dtype in ("int32", "int64", "int16", "int8", "uint8") and not np.all(np.isfinite(arr)):
        pytest.skip("non-finite values in an integer dtype")
    if dtype in ("int8", "uint8", "int16"):
        info = np.iinfo(dtype)
        if np.any(arr < info.min) or np.any(arr > info.max):
            pytest.skip(f"out of {dtype} range")
    _check(t, x)
    if t.dtype.is_floating_point:
        t, x = _pair(torch, data, dtype, requires_grad=True)
        _check(t, x)


@pytest.mark.parametrize("shape", [(1001,), (2000,), (40, 30), (3, 400), (5, 5, 50), (1, 1001), (1001, 1), (1000,)])
def test_summarised_repr_matches_torch(torch, shape):
    data = _rng.standard_normal(shape)
    _check(torch.tensor(data, dtype=torch.float32), tensorlib.tensor(data, dtype=tensorlib.float32))
    _check(torch.tensor(data), tensorlib.tensor(data))
    ints = (data * 100).astype(np.int64)
    _check(torch.tensor(ints), tensorlib.tensor(ints))
    assert ("..." in repr(tensorlib.tensor(data))) == (data.size > 1000)


@pytest.mark.parametrize("shape", [(0,), (0, 3), (2, 0, 3), (1, 0)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool", "int32"])
def test_empty_repr_matches_torch(torch, shape, dtype):
    _check(torch.zeros(shape, dtype=getattr(torch, dtype)), tensorlib.zeros(shape, dtype=getattr(tensorlib, dtype)))


def test_empty_repr_follows_the_default_dtype(torch):
    tensorlib.set_default_dtype(tensorlib.float64)
    torch.set_default_dtype(torch.float64)
    try:
        for dtype in ("float32", "float64"):
            _check(torch.zeros(0, dtype=getattr(torch, dtype)), tensorlib.zeros(0, dtype=getattr(tensorlib, dtype)))
        _check(torch.ones(2), tensorlib.ones(2))
        _check(torch.ones(2, dtype=torch.float32), tensorlib.ones(2, dtype=tensorlib.float32))
    finally:
        torch.set_default_dtype(torch.float32)


@pytest.mark.parametrize(
    "data",
    [[1 + 2j, 3 - 4j], [0.5j, 1.0], [1e-6 + 1j, 1e5j], [0j, 0j], (_rng.standard_normal((3, 3)) + 1j).tolist()],
)
def test_complex_repr_matches_torch(torch, data):
    _check(torch.tensor(data), tensorlib.tensor(data))
    _check(torch.tensor(data, dtype=torch.complex128), tensorlib.tensor(data, dtype=tensorlib.complex128))


def test_complex_wraps_at_the_same_width_as_torch(torch):
    data = (_rng.standard_normal(20) + 1j * _rng.standard_normal(20)).tolist()
    _check(torch.tensor(data), tensorlib.tensor(data))


@pytest.mark.parametrize("value", [0.0, -0.0, 1e-5, 123456.0, float("nan"), float("inf"), 1e20, 2.5])
def test_zero_dim_repr_matches_torch(torch, value):
    _check(torch.tensor(value), tensorlib.tensor(value))
    _check(torch.tensor(value, dtype=torch.float64), tensorlib.tensor(value, dtype=tensorlib.float64))
    _check(torch.tensor(value, requires_grad=True), tensorlib.tensor(value, requires_grad=True))


def test_non_contiguous_repr_matches_torch(torch):
    a = np.arange(24.0).reshape(2, 3, 4)
    _check(torch.tensor(a).transpose(0, 2), tensorlib.tensor(a).transpose(0, 2))
    _check(torch.tensor(a)[:, ::2], tensorlib.tensor(a)[:, ::2])


@pytest.mark.parametrize(
    "options",
    [dict(precision=2), dict(precision=0), dict(precision=6), dict(sci_mode=True), dict(sci_mode=False),
     dict(threshold=5), dict(edgeitems=1, threshold=10), dict(edgeitems=0, threshold=10), dict(linewidth=40),
     dict(profile="short"), dict(profile="full")],
    ids=str,
)
def test_printoptions_match_torch(torch, printoptions, options):
    printoptions(**options)
    datasets = [np.array([1e-5, 1.0]), np.array([1.0, 2e9]), np.array([0.0, 0.0]), _rng.standard_normal((4, 6)),
                _rng.standard_normal(30) * 1e5, _rng.standard_normal((3, 3)) * 1e-6, np.arange(12.0).reshape(3, 4),
                _rng.standard_normal((2, 2, 50)), _rng.integers(0, 1000, 40)]
    for d in datasets:
        _check(torch.tensor(d), tensorlib.tensor(d))
        _check(torch.tensor(d, dtype=torch.float32), tensorlib.tensor(d, dtype=tensorlib.float32))


def test_set_printoptions_rejects_unknown_profile():
    with pytest.raises(ValueError, match="profile"):
        tensorlib.set_printoptions(profile="verbose")


@pytest.mark.parametrize(
    "op",
    ["add", "mul", "sub", "div", "sum", "mean", "exp", "view", "reshape", "relu", "sigmoid", "tanh", "pow", "unsqueeze",
     "squeeze", "max", "clone", "abs", "log_softmax", "softmax", "double", "transpose", "expand", "neg", "sqrt",
     "sum0", "permute", "slice"],
)
def test_grad_fn_suffix_matches_torch(torch, op):
    ops = {
        "add": lambda a: a + 1, "mul": lambda a: a * 2, "sub": lambda a: a - a, "div": lambda a: a / 2,
        "sum": lambda a: a.sum(), "mean": lambda a: a.mean(), "exp": lambda a: a.exp(), "view": lambda a: a.view(9),
        "reshape": lambda a: a.reshape(9), "relu": lambda a: a.relu(), "sigmoid": lambda a: a.sigmoid(),
        "tanh": lambda a: a.tanh(), "pow": lambda a: a**2, "unsqueeze": lambda a: a.unsqueeze(0),
        "squeeze": lambda a: a.unsqueeze(0).squeeze(), "max": lambda a: a.max(), "clone": lambda a: a.clone(),
        "abs": lambda a: a.abs(), "log_softmax": lambda a: a.log_softmax(1), "softmax": lambda a: a.softmax(0),
        "double": lambda a: a.double(), "transpose": lambda a: a.transpose(0, 1), "expand": lambda a: a.expand(2, 3, 3),
        "neg": lambda a: -a, "sqrt": lambda a: a.abs().sqrt(), "sum0": lambda a: a.sum(0),
        "permute": lambda a: a.permute(1, 0), "slice": lambda a: a[:, 1:],
    }
    data = _rng.standard_normal((3, 3))
    x = tensorlib.tensor(data, dtype=tensorlib.float32, requires_grad=True)
    t = torch.tensor(data, dtype=torch.float32, requires_grad=True)
    _check(ops[op](t), ops[op](x))


def test_suffixes_that_do_not_fit_all_move_together():
    """Spec seed 004, printed exactly."""
    a = tensorlib.arange(4).view(2, 2).double()
    b = tensorlib.arange(6).view(2, 3).double()
    a.requires_grad = True
    b.requires_grad = True

    class LinearFunction(tensorlib.autograd.Function):
        @staticmethod
        def forward(ctx, input, weight):
            return input.mm(weight)

        @staticmethod
        def backward(ctx, grad_output):
            return None, None

    output = LinearFunction.apply(a, b)
    assert repr(a) == "tensor([[0., 1.],\n        [2., 3.]], dtype=tensorlib.float64, requires_grad=True)"
    assert repr(output) == (
        "tensor([[ 3.,  4.,  5.],\n"
        "        [ 9., 14., 19.]],\n"
        "       dtype=tensorlib.float64, grad_fn=<LinearFunctionBackward>)"
    )


def _split_suffixes(s: str) -> tuple[str, str, bool]:
    """(body, suffix text, whether the suffixes were moved to their own line)."""
    m = re.search(r"(,\n *|, )" + _SUFFIX, s)
    assert m is not None
    return s[: m.start()], s[m.end(1) : -1], m.group(1) != ", "


@pytest.mark.parametrize("rows", [1, 2, 5])
@pytest.mark.parametrize("cols", [3, 5, 7, 8, 9, 10])
@pytest.mark.parametrize("kind", ["float64", "float64+grad", "float32+grad", "float16+grad_fn"])
def test_suffix_wrapping_rule(torch, rows, cols, kind):
    """Same body as torch; suffixes either all fit on the last line or all move to one new line."""
    data = _rng.standard_normal((rows, cols))
    dtype = kind.split("+")[0]
    t = torch.tensor(data, dtype=getattr(torch, dtype))
    x = tensorlib.tensor(data, dtype=getattr(tensorlib, dtype))
    if "grad" in kind:
        t.requires_grad_(True)
        x.requires_grad_(True)
    if kind.endswith("grad_fn"):
        t, x = t * 1, x * 1
    ours, theirs = repr(x), _torch_repr(t)
    body, suffixes, moved = _split_suffixes(ours)
    tbody, tsuffixes, _ = _split_suffixes(theirs)
    assert body == tbody
    assert suffixes == re.sub(r",\n *", ", ", tsuffixes)
    last_line = body[body.rfind("\n") + 1 :]
    fits = len(last_line) + len(suffixes) + 4 <= 80  # torch's test for one suffix of this length
    assert moved == (not fits)
    if moved:
        assert ours == body + ",\n       " + suffixes + ")"
    else:
        assert ours == body + ", " + suffixes + ")"
    if "," not in suffixes and "tensorlib." not in suffixes:  # one suffix, same length in both: torch's layout
        assert ours == theirs


def test_repr_with_requires_grad_and_grad_fn_suffix():
    x = tensorlib.tensor([1.0, 2.0], requires_grad=True)
    assert repr(x) == "tensor([1., 2.], requires_grad=True)"
    assert repr(x * 2) == "tensor([2., 4.], grad_fn=<MulBackward0>)"
    with tensorlib.no_grad():
        assert repr(x * 2) == "tensor([2., 4.])"
    assert repr(x.detach()) == "tensor([1., 2.])"


def test_str_and_format():
    x = tensorlib.tensor([1.5, 2.0])
    assert str(x) == repr(x)
    assert f"{tensorlib.tensor(2.5):.2f}" == "2.50"
    assert f"{x}" == repr(x)


def test_subclass_repr_uses_class_name(torch):
    class Mine(tensorlib.Tensor):
        pass

    class TMine(torch.Tensor):
        pass

    x = tensorlib.tensor([1.0, 2.0]).as_subclass(Mine)
    t = torch.tensor([1.0, 2.0]).as_subclass(TMine)
    assert repr(x) == _torch_repr(t).replace("TMine", "Mine")
