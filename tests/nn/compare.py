"""Running the same call in tensorlib and torch: values, dtypes, gradients and errors (the nn tests' helpers)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import tensorlib
from tensorlib.autograd import gradcheck, gradgradcheck


def _tensors(lib: Any, arrays: tuple, differentiable: tuple) -> list:
    return [lib.tensor(a, requires_grad=i in differentiable and a.dtype.kind == "f") if isinstance(a, np.ndarray)
            else a for i, a in enumerate(arrays)]


def _flat(out: Any) -> list:
    return list(out) if isinstance(out, (tuple, list)) else [out]


def compare(fn: Callable, *arrays: Any, differentiable: tuple = (0,), rtol: float = 1e-7, atol: float = 1e-9,
            seed: int = 0) -> Any:
    """Run ``fn(lib, *tensors)`` with ``lib`` tensorlib and torch; compare every output (values, shapes, dtypes) and
    the gradients of the ``differentiable`` arrays for a random incoming gradient on the float outputs."""
    torch = pytest.importorskip("torch")
    ours = _tensors(tensorlib, arrays, differentiable)
    theirs = _tensors(torch, arrays, differentiable)
    out, tout = fn(tensorlib, *ours), fn(torch, *theirs)
    outs, touts = _flat(out), _flat(tout)
    assert len(outs) == len(touts)
    for o, t in zip(outs, touts):
        assert tuple(o.shape) == tuple(t.shape), (o.shape, t.shape)
        assert repr(o.dtype) == repr(t.dtype).replace("torch.", "tensorlib."), (o.dtype, t.dtype)
        assert o.requires_grad == t.requires_grad
        np.testing.assert_allclose(o.detach().numpy(), t.detach().numpy(), rtol=rtol, atol=atol, equal_nan=True)
    rng = np.random.default_rng(seed)
    pairs = [(o, t) for o, t in zip(outs, touts) if t.requires_grad]
    if pairs:
        grads = [rng.standard_normal(tuple(t.shape)) for _, t in pairs]
        tensorlib.autograd.backward([o for o, _ in pairs], [tensorlib.tensor(g, dtype=o.dtype) for g, (o, _) in
                                                            zip(grads, pairs)])
        torch.autograd.backward([t for _, t in pairs], [torch.tensor(g, dtype=t.dtype) for g, (_, t) in
                                                        zip(grads, pairs)])
        for a, b in zip(ours, theirs):
            if isinstance(b, torch.Tensor) and b.requires_grad:
                assert (a.grad is None) == (b.grad is None)
                if b.grad is not None:
                    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=rtol, atol=atol, equal_nan=True)
    return out


def same_error(fn: Callable, *arrays: Any, match: str | None = None) -> str:
    """``fn(lib, *tensors)`` raises the same exception type in both libraries (torch's message when ``match`` is
    None must then appear in ours); returns our message."""
    torch = pytest.importorskip("torch")
    with pytest.raises(Exception) as theirs:
        fn(torch, *[torch.tensor(a) if isinstance(a, np.ndarray) else a for a in arrays])
    with pytest.raises(theirs.type) as ours:
        fn(tensorlib, *[tensorlib.tensor(a) if isinstance(a, np.ndarray) else a for a in arrays])
    if match is not None:
        assert match in str(ours.value), str(ours.value)
    return str(ours.value)


def same_message(fn: Callable, *arrays: Any) -> None:
    """As :func:`same_error`, and the messages are the same once torch's names are tensorlib's."""
    torch = pytest.importorskip("torch")
    with pytest.raises(Exception) as theirs:
        fn(torch, *[torch.tensor(a) if isinstance(a, np.ndarray) else a for a in arrays])
    with pytest.raises(theirs.type) as ours:
        fn(tensorlib, *[tensorlib.tensor(a) if isinstance(a, np.ndarray) else a for a in arrays])
    assert str(ours.value) == str(theirs.value).replace("torch.", "tensorlib."), (str(ours.value), str(theirs.value))


def leaf(*shape: int, seed: int = 0, lo: float = -1.0, hi: float = 1.0) -> tensorlib.Tensor:
    rng = np.random.default_rng(seed)
    return tensorlib.tensor(rng.uniform(lo, hi, shape), dtype=tensorlib.float64, requires_grad=True)


def check_gradients(fn: Callable, *inputs: tensorlib.Tensor, twice: bool = True) -> None:
    """gradcheck (and gradgradcheck) in float64."""
    assert gradcheck(fn, inputs)
    if twice:
        assert gradgradcheck(fn, inputs)
