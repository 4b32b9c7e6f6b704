"""Random calls of every overridable function, Tensor method and operator, and the test of what a failing call may raise.

A call is built from the callee's signature. Its arguments are *specs*, made concrete in either library
(``materialize(spec, tensorlib)`` or ``materialize(spec, torch)``), so that the differential tests can make
the very same call on torch:

- parameters whose names say "tensor" get tensors of random shape (0-d, empty and size-1 dims included),
  any of the eleven dtypes, values with NaN and infinities now and then, sometimes as a non-contiguous view
  (a transpose or a strided slice);
- parameters that name a dim or a size get small integers (negative and out-of-range ones included),
  tuples of them, or a huge int; ``dtype`` parameters get dtypes;
- any parameter may get junk: None, a string, a float, NaN, infinity, an empty or nested (ragged) list,
  ``2**70``, ``-2**63``, a complex number, a dtype, a tensor.

Tensor methods are called on a generated tensor (``t.add(...)``), operators through Python's syntax
(``operator.add(t, x)`` and the reflected ``operator.add(x, t)``, in-place ones too).

Bad calls are expected; what they raise is checked (:func:`internal_error`): torch's exception types only
(TypeError, ValueError, RuntimeError, IndexError, NotImplementedError), raised by a ``raise`` statement of
tensorlib or dispatch, never an error of Python or NumPy escaping from inside (``tuple index out of range``,
NumPy's ``AxisError``, ``ZeroDivisionError``, ``AttributeError``, ...), and with a message that does not name
NumPy or Python internals.
"""

from __future__ import annotations

import inspect
import linecache
import operator
import os
import re
from dataclasses import dataclass
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
DTYPE_NAMES = {"dtype", "out_dtype"}
DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64", "complex64",
          "complex128"]
HUGE = [2**70, -(2**63), 2**63]
SPECIAL_FLOATS = [float("nan"), float("inf"), -float("inf")]


# -- specs: one description of an argument, made concrete in either library ------------------------------


@dataclass(frozen=True)
class TensorSpec:
    """A tensor: shape, dtype name, seed of its values; ``view`` makes it non-contiguous, ``special`` adds NaN/inf."""

    shape: tuple
    dtype: str
    seed: int
    view: str = ""  # "", "T" (transpose of the first two dims) or "step" (every other row)
    special: bool = False

    def array(self) -> np.ndarray:
        rng = np.random.default_rng(self.seed)
        shape = list(self.shape)
        if self.view == "T":
            shape[0], shape[1] = shape[1], shape[0]
        elif self.view == "step":
            shape[0] *= 2
        data = rng.standard_normal(shape) * 3
        if self.special and data.size:
            flat = data.reshape(-1)
            flat[rng.integers(0, flat.size, size=max(1, flat.size // 3))] = rng.choice(SPECIAL_FLOATS)
        if self.dtype == "bool":
            return data > 0
        if self.dtype.startswith(("int", "uint")):
            values = np.nan_to_num(np.round(data), nan=0, posinf=7, neginf=-7)
            return (np.abs(values) if self.dtype == "uint8" else values).astype(self.dtype)
        if self.dtype.startswith("complex"):
            return (data + 1j * rng.standard_normal(shape)).astype(self.dtype)
        return data.astype(self.dtype)

    def make(self, lib: Any) -> Any:
        t = lib.tensor(self.array())
        if self.view == "T":
            t = t.transpose(0, 1)
        elif self.view == "step":
            t = t[::2]
        return t


@dataclass(frozen=True)
class DtypeSpec:
    name: str

    def make(self, lib: Any) -> Any:
        return getattr(lib, self.name)


def materialize(value: Any, lib: Any) -> Any:
    """``value`` with every spec made concrete in ``lib`` (tensorlib or torch)."""
    if isinstance(value, (TensorSpec, DtypeSpec)):
        return value.make(lib)
    if isinstance(value, list):
        return [materialize(v, lib) for v in value]
    if isinstance(value, tuple):
        return tuple(materialize(v, lib) for v in value)
    if isinstance(value, dict):
        return {k: materialize(v, lib) for k, v in value.items()}
    return value


# -- what can be called --------------------------------------------------------------------------------


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


BINARY_OPERATORS = ["add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and_", "or_", "xor",
                    "lshift", "rshift", "lt", "le", "eq", "ne", "gt", "ge"]
INPLACE_OPERATORS = ["iadd", "isub", "imul", "itruediv", "ifloordiv", "imod", "ipow", "imatmul", "iand", "ior",
                     "ixor", "ilshift", "irshift"]
UNARY_OPERATORS = ["neg", "pos", "abs", "invert", "index", "truth"]


def operators() -> list[tuple[str, Callable, str]]:
    """``(name, operator function, form)``; ``form`` is "unary", "left" (``t op x``) or "right" (``x op t``, the
    name ending in ``.reflected``)."""
    out = [(f"operator.{n}", getattr(operator, n), "unary") for n in UNARY_OPERATORS]
    for n in BINARY_OPERATORS:
        out += [(f"operator.{n}", getattr(operator, n), "left"),
                (f"operator.{n}.reflected", getattr(operator, n), "right")]
    out += [(f"operator.{n}", getattr(operator, n), "left") for n in INPLACE_OPERATORS]
    return out


# -- strategies ----------------------------------------------------------------------------------------


@st.composite
def tensors(draw: Any) -> TensorSpec:
    ndim = draw(st.integers(0, 3))
    shape = tuple(draw(st.lists(st.integers(0, 3), min_size=ndim, max_size=ndim)))
    dtype = draw(st.sampled_from(DTYPES))
    view = ""
    if ndim >= 1 and draw(st.integers(0, 3)) == 0:
        view = "T" if ndim >= 2 and draw(st.booleans()) else "step"
    special = dtype.startswith(("float", "complex")) and draw(st.integers(0, 4)) == 0
    return TensorSpec(shape, dtype, draw(st.integers(0, 2**16)), view, special)


def junk(draw: Any) -> Any:
    """A value no parameter wants, or wants only at its edges."""
    return draw(st.sampled_from([
        None, "junk", 1.5, [], -1, [[1, 2], [3]], [[1.0, 2.0], [3.0, 4.0]], 2**70, -(2**63), float("nan"),
        float("inf"), 1 + 2j, True, DtypeSpec("float64"), TensorSpec((2,), "float32", 0),
    ]))


def value_for(draw: Any, name: str) -> Any:
    """A random argument for a parameter called ``name`` (junk one time in six)."""
    if draw(st.integers(0, 5)) == 0:
        return junk(draw)
    if name in DTYPE_NAMES:
        return DtypeSpec(draw(st.sampled_from(DTYPES)))
    if name in SEQUENCE_NAMES:
        return draw(st.lists(tensors(), min_size=0, max_size=3))
    if name in INT_NAMES:
        kind = draw(st.integers(0, 9))
        if kind < 6:
            return draw(st.integers(-4, 4))
        if kind < 9:
            return tuple(draw(st.lists(st.integers(-2, 3), max_size=3)))
        return draw(st.sampled_from(HUGE))
    if name in TENSOR_NAMES or draw(st.booleans()):
        return draw(tensors())
    return draw(st.one_of(st.integers(-3, 3), st.floats(-3, 3, allow_nan=False), st.booleans(),
                          st.sampled_from(SPECIAL_FLOATS + HUGE)))


def operand(draw: Any) -> Any:
    """The other operand of an operator: a tensor most of the time, else a number, a list or junk."""
    kind = draw(st.integers(0, 5))
    if kind < 3:
        return draw(tensors())
    if kind == 3:
        return draw(st.one_of(st.integers(-3, 3), st.floats(-3, 3), st.booleans(), st.complex_numbers(max_magnitude=3)))
    return junk(draw)


def index_for(draw: Any) -> Any:
    """A key for ``t[key]``: ints (out of range too), slices, None, Ellipsis, index and mask tensors, tuples, junk."""
    def one() -> Any:
        kind = draw(st.integers(0, 7))
        if kind == 0:
            return draw(st.integers(-4, 4))
        if kind == 1:
            return slice(draw(st.one_of(st.none(), st.integers(-3, 3))), draw(st.one_of(st.none(), st.integers(-3, 3))),
                         draw(st.sampled_from([None, 1, 2, -1, 0])))
        if kind == 2:
            return draw(st.sampled_from([None, Ellipsis]))
        if kind == 3:
            ndim = draw(st.integers(0, 2))
            return TensorSpec(tuple(draw(st.lists(st.integers(0, 3), min_size=ndim, max_size=ndim))),
                              draw(st.sampled_from(["int64", "bool", "int32", "uint8", "float32"])), draw(st.integers(0, 99)))
        if kind == 4:
            return draw(st.lists(st.integers(-3, 3), max_size=3))
        if kind == 5:
            return draw(st.sampled_from(HUGE + [1.5, "junk", [[0, 1], [1]], [True, False]]))
        return draw(st.integers(0, 2))
    if draw(st.booleans()):
        return one()
    return tuple(one() for _ in range(draw(st.integers(0, 3))))


def build_call(draw: Any, func: Callable, method: bool = False) -> tuple[tuple, dict]:
    """Arguments for ``func`` (``method``: the first parameter is ``self`` and always gets a tensor)."""
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError):
        return (draw(tensors()),), {}
    args: list = []
    kwargs: dict = {}
    for i, p in enumerate(sig.parameters.values()):
        required = p.default is inspect.Parameter.empty
        if method and i == 0:
            args.append(draw(tensors()))
        elif p.kind is p.VAR_POSITIONAL:
            if p.name in ("size", "shape", "dims", "sizes"):
                args.extend(draw(st.lists(st.one_of(st.integers(-2, 3), st.sampled_from(HUGE)), max_size=3)))
            else:
                args.extend(value_for(draw, p.name) for _ in range(draw(st.integers(0, 2))))
        elif p.kind is p.VAR_KEYWORD:
            continue
        elif required or draw(st.integers(0, 3)) == 0:
            v = index_for(draw) if p.name == "key" and method else value_for(draw, p.name)
            if p.kind is p.KEYWORD_ONLY or (not required and draw(st.booleans())):
                kwargs[p.name] = v
            elif len(args) == _position(sig, p):
                args.append(v)
            else:
                kwargs[p.name] = v
    return tuple(args), kwargs


def _position(sig: inspect.Signature, param: inspect.Parameter) -> int:
    return list(sig.parameters).index(param.name)


def call(name: str, func: Callable, args: tuple, kwargs: dict, lib: Any) -> Any:
    """Make the call ``name`` in ``lib`` (tensorlib or torch) with the specs made concrete there.

    ``Tensor.x`` is called as a method of the first argument; ``operator.x.reflected`` with its operands swapped.
    """
    a, kw = materialize(args, lib), materialize(kwargs, lib)
    if name.startswith("operator."):
        return func(a[1], a[0]) if name.endswith(".reflected") else func(*a)
    if lib is not tensorlib:
        func = torch_counterpart(name, lib)
    if name.startswith("Tensor."):
        return getattr(a[0], name[len("Tensor."):])(*a[1:], **kw)
    return func(*a, **kw)


def torch_counterpart(name: str, torch: Any) -> Any:
    """torch's function of the same public name (``tensorlib.linalg.norm`` -> ``torch.linalg.norm``), or None."""
    if name.startswith("Tensor."):
        return getattr(torch.Tensor, name[len("Tensor."):], None)
    if name.startswith("operator."):
        return getattr(operator, name.split(".")[1])
    obj: Any = torch
    for part in name.split(".")[1:]:
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


# -- the verdict on an exception -----------------------------------------------------------------------

INTERNAL_MESSAGE = re.compile(
    r"numpy|ndarray|ufunc|\bnp\.|dtype\('|tuple index out of range|list index out of range|operands could not be "
    r"broadcast|out of bounds for axis|cannot reshape array|AxisError|too large to convert to C|cannot convert float "
    r"(NaN|infinity) to integer|unhashable type|object is not subscriptable|has no attribute|"
    r"object cannot be interpreted as an integer|pop from empty"
)


# Python's own conversions, which raise exactly as torch's do (``int(t)`` of an infinite tensor, ``format(t,
# "junk")``), and NumPy's protocol, whose messages rightly name NumPy
PYTHON_SEMANTICS: dict[str, tuple[type, ...]] = {
    "Tensor.__int__": (OverflowError, ValueError), "Tensor.__long__": (OverflowError, ValueError),
    "Tensor.__index__": (OverflowError, ValueError), "Tensor.__format__": (ValueError, TypeError),
    "Tensor.__array_wrap__": (TypeError,), "Tensor.__array__": (TypeError, ValueError),
    "operator.index": (OverflowError, ValueError),
    # torch's init.sparse_ is Python too: an infinite or NaN sparsity fails in int(math.ceil(...)), as here
    "tensorlib.nn.init.sparse_": (OverflowError, ValueError),
    # the implicit-dim warning's stacklevel, given to Python's warnings as torch does
    **{f"tensorlib.{ns}{fn}": (OverflowError,) for ns in ("", "nn.functional.", "special.")
       for fn in ("softmax", "log_softmax", "softmin")},
}
# Python's check of a call against a signature (a TypeError raised before the callee runs), which torch makes too
SIGNATURE = re.compile(r"got multiple values for argument|missing \d+ required|takes \d+ positional argument|"
                       r"got an unexpected keyword argument|takes from \d+ to \d+ positional")


def internal_error(exc: BaseException, name: str = "", caller: str = __file__) -> str | None:
    """Why ``exc``, raised by the call ``name``, is an internal error (None when it is a deliberate error).

    AssertionError, ZeroDivisionError and OverflowError count as deliberate when tensorlib raises them on purpose,
    where torch raises them too (CUDA, MultiheadAttention's shapes, ``group_norm`` with zero groups, a Python int
    beyond 64 bits as a scalar operand); a TypeError raised at the call itself (``caller``'s frame: a wrong number
    of arguments) is Python's check of the signature, which torch makes too.
    """
    if isinstance(exc, PYTHON_SEMANTICS.get(name, ())):
        return None
    if not isinstance(exc, ALLOWED + (AssertionError, ZeroDivisionError, OverflowError)):
        return f"{type(exc).__name__} is not an exception type torch raises for bad arguments"
    tb = exc.__traceback__
    if tb is None:
        return None
    while tb.tb_next is not None:
        tb = tb.tb_next
    filename = tb.tb_frame.f_code.co_filename
    line = linecache.getline(filename, tb.tb_lineno).strip()
    if isinstance(exc, TypeError) and (filename in (caller, __file__) or SIGNATURE.search(str(exc))):
        return None
    if not filename.startswith(ROOTS):
        return f"raised inside {filename}:{tb.tb_lineno}"
    if not line.startswith("raise"):
        return f"escaped from {os.path.relpath(filename)}:{tb.tb_lineno} ({line})"
    if INTERNAL_MESSAGE.search(str(exc)):
        return "its message names NumPy or Python internals"
    return None


def kind(exc: BaseException | None) -> str:
    """The exception's torch kind: the first of torch's argument-error types it is an instance of ("ok" for none).

    NotImplementedError is a RuntimeError (torch raises it for kernels missing for a dtype, as RuntimeError's
    subclass, and ``except RuntimeError`` catches it), so it counts as one.
    """
    if exc is None:
        return "ok"
    for t in (IndexError, TypeError, ValueError, RuntimeError):
        if isinstance(exc, t):
            return t.__name__
    return type(exc).__name__
