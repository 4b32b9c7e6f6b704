"""Random calls of every overridable function, and the test of what a failing call may raise.

A call is built from the function's signature: parameters whose names say "tensor" get tensors of random
shape (0-d, empty and size-1 dims included) and dtype, parameters that name a dim or a size get small
integers or tuples, and any parameter may get junk (None, a string, a float, an empty list). Bad calls are
expected; what they raise is checked: torch's exception types only (TypeError, ValueError, RuntimeError,
IndexError, NotImplementedError), raised by a ``raise`` statement of tensorlib or dispatch, never an error
of Python or NumPy escaping from inside (``tuple index out of range``, NumPy's ``AxisError``,
``ZeroDivisionError``, ``AttributeError``, ...).
"""

from __future__ import annotations

import inspect
import linecache
import os
from typing import Any, Callable

import numpy as np
from hypothesis import strategies as st

import tensorlib
from tensorlib.overrides import get_overridable_functions

ALLOWED = (TypeError, ValueError, RuntimeError, IndexError, NotImplementedError)
ROOTS = tuple(os.path.dirname(m.__file__) + os.sep for m in (tensorlib, __import__("dispatch")))

TENSOR_NAMES = {
    "input", "self", "other", "tensor", "x", "x1", "x2", "y", "a", "b", "weight", "bias", "target", "mask", "index",
    "src", "source", "values", "value", "exponent", "end", "mat", "mat1", "mat2", "vec", "vec1", "vec2", "batch1",
    "batch2", "tensor1", "tensor2", "input1", "input2", "grad_output", "indices", "boundaries", "sorted_sequence",
    "A", "B", "LU", "pivots", "query", "key", "min", "max", "lower", "upper", "anchor", "positive", "negative",
    "log_input", "var", "mean", "std", "running_mean", "running_var", "elements", "test_elements", "q", "p",
}
SEQUENCE_NAMES = {"tensors", "inputs", "outputs", "operands", "matrices"}
INT_NAMES = {"dim", "dim0", "dim1", "dim2", "axis", "k", "n", "diagonal", "offset", "start_dim", "end_dim",
             "chunks", "sections", "repeats", "num_classes", "groups", "steps", "upscale_factor", "downscale_factor",
             "split_size", "split_size_or_sections", "length", "start", "step", "size", "ndim", "N", "bins",
             "minlength", "decimals", "correction", "ddof", "shifts", "diagonals", "output_size", "kernel_size",
             "stride", "padding", "dilation", "pad", "dims", "shape", "sizes", "normalized_shape"}
DTYPES = [tensorlib.bool, tensorlib.uint8, tensorlib.int8, tensorlib.int32, tensorlib.int64, tensorlib.float32,
          tensorlib.float64, tensorlib.complex64]
JUNK: list[Any] = [None, "junk", 1.5, [], -1]


def functions() -> list[tuple[str, Callable]]:
    """``(name, function)`` for every overridable function and method (property accessors left out)."""
    out = []
    for namespace, funcs in get_overridable_functions().items():
        prefix = getattr(namespace, "__name__", str(namespace))
        for f in funcs:
            name = getattr(f, "__name__", "")
            if name in ("__get__", "__set__", "__delete__") or not callable(f):
                continue
            out.append((f"{prefix}.{name}", f))
    return sorted(out, key=lambda p: p[0])


@st.composite
def tensors(draw: Any) -> tensorlib.Tensor:
    ndim = draw(st.integers(0, 3))
    shape = tuple(draw(st.lists(st.integers(0, 3), min_size=ndim, max_size=ndim)))
    dtype = draw(st.sampled_from(DTYPES))
    data = np.random.default_rng(draw(st.integers(0, 2**16))).standard_normal(shape) * 3
    t = tensorlib.tensor(data).to(dtype)
    if draw(st.booleans()) and t.dim() >= 2:
        t = t.transpose(0, 1)  # a non-contiguous view
    return t


def value_for(draw: Any, name: str) -> Any:
    """A random argument for a parameter called ``name`` (junk one time in six)."""
    if draw(st.integers(0, 5)) == 0:
        return draw(st.sampled_from(JUNK + [tensorlib.ones(2)]))
    if name in SEQUENCE_NAMES:
        return draw(st.lists(tensors(), min_size=0, max_size=3))
    if name in INT_NAMES:
        if draw(st.booleans()):
            return draw(st.integers(-4, 4))
        return tuple(draw(st.lists(st.integers(-2, 3), max_size=3)))
    if name in TENSOR_NAMES or draw(st.booleans()):
        return draw(tensors())
    return draw(st.one_of(st.integers(-3, 3), st.floats(-3, 3, allow_nan=False), st.booleans()))


def build_call(draw: Any, func: Callable) -> tuple[tuple, dict]:
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError):
        return (draw(tensors()),), {}
    args: list = []
    kwargs: dict = {}
    for p in sig.parameters.values():
        required = p.default is inspect.Parameter.empty
        if p.kind is p.VAR_POSITIONAL:
            args.extend(draw(st.lists(st.integers(0, 3), max_size=3)) if p.name in ("size", "shape", "dims")
                        else [value_for(draw, p.name) for _ in range(draw(st.integers(0, 2)))])
        elif p.kind is p.VAR_KEYWORD:
            continue
        elif required or draw(st.integers(0, 3)) == 0:
            v = value_for(draw, p.name)
            if p.kind is p.KEYWORD_ONLY or (not required and draw(st.booleans())):
                kwargs[p.name] = v
            elif p.kind is not p.KEYWORD_ONLY and len(args) == _position(sig, p):
                args.append(v)
            else:
                kwargs[p.name] = v
    return tuple(args), kwargs


def _position(sig: inspect.Signature, param: inspect.Parameter) -> int:
    return list(sig.parameters).index(param.name)


def internal_error(exc: BaseException, caller: str = __file__) -> str | None:
    """Why ``exc`` is an internal error (None when it is a deliberate error of torch's kinds).

    AssertionError and ZeroDivisionError count as deliberate when tensorlib raises them on purpose, where torch
    raises them too (CUDA, MultiheadAttention's shapes, ``group_norm`` with zero groups); a TypeError raised at the call itself (``caller``'s frame: a wrong number of
    arguments) is Python's check of the signature, which torch makes too.
    """
    if not isinstance(exc, ALLOWED + (AssertionError, ZeroDivisionError)):
        return f"{type(exc).__name__} is not an exception type torch raises for bad arguments"
    tb = exc.__traceback__
    if tb is None:
        return None
    while tb.tb_next is not None:
        tb = tb.tb_next
    filename = tb.tb_frame.f_code.co_filename
    line = linecache.getline(filename, tb.tb_lineno).strip()
    if isinstance(exc, TypeError) and filename == caller:
        return None
    if not filename.startswith(ROOTS):
        return f"raised inside {filename}:{tb.tb_lineno}"
    if not line.startswith("raise"):
        return f"escaped from {os.path.relpath(filename)}:{tb.tb_lineno} ({line})"
    return None
