"""Values that were wrong without an error, and argument errors of the wrong kind, found by fuzzing (issue 13).

Each case states tensorlib's behaviour (checked without torch) and, with torch installed, that torch 2.13
behaves the same (values, dtype and shape, or exception type and message).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import tensorlib

NAN, INF = math.nan, math.inf


def _set(t, key, value):
    t[key] = value
    return t


def _outcome(fn, L):
    try:
        with warnings.catch_warnings():  # deprecated forms (uint8 masks, lists as tuples) warn in both libraries
            warnings.simplefilter("ignore")
            r = fn(L)
    except Exception as exc:  # noqa: BLE001 (the exception is the outcome)
        return ("raises", type(exc).__name__, str(exc).split("\n")[0].replace("torch.", "tensorlib."))
    if isinstance(r, (tuple, list)):
        return tuple(_value(t) for t in r)
    return _value(r)


def _value(t):
    if hasattr(t, "detach"):
        return ("tensor", str(t.dtype).split(".")[-1], tuple(t.shape), t.detach().numpy().tolist())
    return ("value", str(t).split(".")[-1])


def _same(a, b) -> bool:
    if isinstance(a, tuple) and a and a[0] == "tensor":
        return a[:3] == b[:3] and np.array_equal(np.asarray(a[3]), np.asarray(b[3]), equal_nan=True)
    if isinstance(a, tuple) and a and isinstance(a[0], tuple):
        return len(a) == len(b) and all(_same(u, v) for u, v in zip(a, b))
    return a == b


# name -> (the call, tensorlib's expected outcome: a value or ("raises", type, message start))
CASES = {
    "sign of NaN is 0": (lambda L: L.sign(L.tensor([NAN, 1.0, -1.0, 0.0, INF, -INF])),
                         ("tensor", "float32", (6,), [0.0, 1.0, -1.0, 0.0, 1.0, -1.0])),
    "sgn of a real NaN is 0": (lambda L: L.sgn(L.tensor([NAN, -2.0])), ("tensor", "float32", (2,), [0.0, -1.0])),
    "sign_ of NaN in place": (lambda L: L.tensor([NAN, 3.0], dtype=L.float64).sign_(),
                              ("tensor", "float64", (2,), [0.0, 1.0])),
    "sum with dtype=bool": (lambda L: L.tensor([[0.0, 2.0], [0.0, 0.0]]).sum(dim=1, dtype=L.bool),
                            ("tensor", "bool", (2,), [True, False])),
    "sum of floats with dtype=bool": (lambda L: L.sum(L.tensor([0.5, 0.25]), dtype=L.bool),
                                      ("tensor", "bool", (), True)),
    "all over dim=[] reduces nothing": (lambda L: L.all(L.tensor([[0.0, 2.0], [1.0, 1.0]]), dim=[]),
                                        ("tensor", "bool", (2, 2), [[False, True], [True, True]])),
    "any over dim=() reduces nothing": (lambda L: L.tensor([[0, 3], [0, 0]], dtype=L.uint8).any(dim=()),
                                        ("tensor", "uint8", (2, 2), [[0, 1], [0, 0]])),
    "all over dim=() of an empty tensor": (lambda L: L.ones(0, 2).all(dim=()), ("tensor", "bool", (0, 2), [])),
    "block_diag() has the default dtype": (lambda L: L.block_diag(), ("tensor", "float32", (1, 0), [[]])),
    "tensor(2**63) overflows": (lambda L: L.tensor(2**63), ("raises", "ValueError", "Overflow when unpacking long long")),
    "tensor([1, 2**63]) overflows": (lambda L: L.tensor([1, 2**63]),
                                     ("raises", "ValueError", "Overflow when unpacking long long")),
    "tensor(2**70, dtype=float32) is a float": (lambda L: L.tensor(2**70, dtype=L.float32),
                                                ("tensor", "float32", (), float(2**70))),
    "tensor([1.5, 2**70]) is floats": (lambda L: L.tensor([1.5, 2**70]),
                                       ("tensor", "float32", (2,), [1.5, float(np.float32(2**70))])),
    "tensor(300, dtype=uint8) overflows": (
        lambda L: L.tensor(300, dtype=L.uint8),
        ("raises", "RuntimeError", "value cannot be converted to type uint8 without overflow")),
    "tensor(-1, dtype=uint8) wraps": (lambda L: L.tensor([-1], dtype=L.uint8), ("tensor", "uint8", (1,), [255])),
    "bernoulli_(p=2)": (lambda L: L.zeros(3).bernoulli_(p=2),
                        ("raises", "RuntimeError", "bernoulli_ expects p to be in [0, 1], but got p=2")),
    "bernoulli_(p=nan)": (lambda L: L.zeros(3).bernoulli_(NAN),
                          ("raises", "RuntimeError", "bernoulli_ expects p to be in [0, 1], but got p=nan")),
    "bernoulli(p=-0.5)": (lambda L: L.bernoulli(L.zeros(3), p=-0.5),
                          ("raises", "RuntimeError", "bernoulli_ expects p to be in [0, 1], but got p=-0.5")),
    "arange(0, inf)": (lambda L: L.arange(0, INF), ("raises", "RuntimeError", "unsupported range: 0 -> inf")),
    "arange(-inf, 1.5)": (lambda L: L.arange(-INF, 1.5), ("raises", "RuntimeError", "unsupported range: -inf -> 1.5")),
    "arange(nan, 2)": (lambda L: L.arange(NAN, 2), ("raises", "RuntimeError", "unsupported range: nan -> 2")),
    "arange with a NaN step": (lambda L: L.arange(0, 3, NAN), ("raises", "RuntimeError", "step must be nonzero")),
    "arange(0, 2**70)": (lambda L: L.arange(0, 2**70), ("raises", "OverflowError", "int too big to convert")),
    "hsplit(t, 0)": (lambda L: L.hsplit(L.ones(2, 4), 0),
                     ("raises", "RuntimeError", "tensorlib.hsplit attempted to split along dimension 1, but the size "
                      "of the dimension 4 is not divisible by the split_size 0!")),
    "vsplit(t, 0)": (lambda L: L.vsplit(L.ones(2, 4), 0),
                     ("raises", "RuntimeError", "tensorlib.vsplit attempted to split along dimension 0, but the size "
                      "of the dimension 2 is not divisible by the split_size 0!")),
    "diag_embed of a 0-d tensor": (lambda L: L.diag_embed(L.tensor(1.0)),
                                   ("raises", "IndexError",
                                    "Dimension out of range (expected to be in range of [-1, 0], but got -2)")),
    "diag_embed with one dim twice": (lambda L: L.diag_embed(L.ones(2), dim1=0, dim2=0),
                                      ("raises", "RuntimeError", "diagonal dimensions cannot be identical 0, 0")),
    "a float tensor plus 2**70": (lambda L: L.ones(2) + 2**70, ("raises", "OverflowError", "int too big to convert")),
    "an int tensor plus 2**63 wraps": (lambda L: L.ones(1, dtype=L.int64) + 2**63,
                                       ("tensor", "int64", (1,), [-(2**63) + 1])),
    "a dim beyond int64": (lambda L: L.ones(2).sum(2**70), ("raises", "ValueError", "Overflow when unpacking long long")),
    "zeros with a size beyond int64": (lambda L: L.zeros(2**63),
                                       ("raises", "TypeError", "zeros(): argument 'size' failed to unpack the object")),
    "tril with a diagonal far below": (lambda L: L.tril(L.ones(2, 2), -(2**63)),
                                       ("tensor", "float32", (2, 2), [[0.0, 0.0], [0.0, 0.0]])),
    "diagonal with an offset far off": (lambda L: L.diagonal(L.ones(2, 2), -(2**63)), ("tensor", "float32", (0,), [])),
    "round to 2**62 decimals": (lambda L: L.round(L.tensor([1.5, 0.0]), decimals=2**62),
                                ("tensor", "float32", (2,), [NAN, NAN])),
    "polygamma of a huge order": (lambda L: L.special.polygamma(2**62, L.ones(1)), ("tensor", "float32", (1,), [-INF])),
    "mode with NaNs": (lambda L: L.tensor([NAN, NAN, 1.0]).mode()[0], ("tensor", "float32", (), NAN)),
    "searchsorted with a bad side": (
        lambda L: L.searchsorted(L.ones(2), L.ones(2), side="middle"),
        ("raises", "RuntimeError", "tensorlib.searchsorted(): side can only be 'left' or 'right' but got middle")),
    "split with nested sizes": (
        lambda L: L.ones(3).split([[1, 2], [3]]),
        ("raises", "TypeError", "split_with_sizes(): argument 'split_sizes' (position 2) must be tuple of ints, but "
         "found element of type list at pos 0")),
    "view as a wider dtype": (
        lambda L: L.ones(3, 2, dtype=L.bool).view(L.float64),
        ("raises", "RuntimeError", "self.size(-1) must be divisible by 8 to view Bool as Double (different element "
         "sizes), but got 2")),
    "index_put_ of another dtype": (
        lambda L: L.zeros(3).index_put_((L.tensor([0]),), L.ones(1, dtype=L.float64)),
        ("raises", "RuntimeError", "Index put requires the source and destination dtypes match, got Float for the "
         "destination and Double for the source.")),
    "reshape without a shape": (lambda L: L.ones(1).reshape(),
                                ("raises", "TypeError", 'reshape() missing 1 required positional arguments: "shape"')),
    "fractional_max_pool2d with a nested output_ratio": (
        lambda L: L.nn.functional.fractional_max_pool2d(L.ones(1, 4, 4), 2, output_ratio=[[1, 2], [3]]),
        ("raises", "TypeError", "fractional_max_pool2d(): argument 'output_ratio' must be a float or a tuple of "
         "floats, but found element of type list")),
    "fractional_max_pool2d with a NaN output_ratio": (
        lambda L: L.nn.functional.fractional_max_pool2d(L.ones(1, 4, 4), 2, output_ratio=[0.5, NAN]),
        ("raises", "ValueError", "fractional_max_pool2d(): output_ratio element nan gives an output size that is not "
         "a number")),
    "fractional_max_pool3d with an infinite output_ratio": (
        lambda L: L.nn.functional.fractional_max_pool3d(L.ones(1, 4, 4, 4), 2, output_ratio=[0.5, INF, 0.5]),
        ("raises", "OverflowError", "fractional_max_pool3d(): output_ratio element inf gives an infinite output size")),
    "fractional_max_pool2d with an output_ratio beyond int64": (
        lambda L: L.nn.functional.fractional_max_pool2d(L.ones(1, 4, 4), 2, output_ratio=[0.5, 2**62]),
        ("raises", "TypeError", "fractional_max_pool2d(): argument 'output_size' failed to unpack the object at pos 2 "
         "with error \"Overflow when unpacking long long")),
    "fractional_max_pool2d with a float in output_size": (
        lambda L: L.nn.functional.fractional_max_pool2d(L.ones(1, 4, 4), 2, output_size=[1.5, 2]),
        ("raises", "TypeError", "fractional_max_pool2d(): argument 'output_size' (position 3) must be tuple of ints, "
         "but found element of type float at pos 0")),
    "fractional_max_pool3d with a string kernel_size": (
        lambda L: L.nn.functional.fractional_max_pool3d(L.ones(1, 4, 4, 4), "junk", output_size=2),
        ("raises", "TypeError", "fractional_max_pool3d(): argument 'kernel_size' (position 2) must be tuple of ints, "
         "not str")),
    # t[key] = value: keys with tensor indices are index_put's (dtypes must match, checked after the value's shape
    # and before the indices' bounds), except one bool mask with one value element (a fill with that scalar)
    "setitem with an index tensor and float64 values into float32": (
        lambda L: _set(L.zeros(3), L.tensor([0, 1]), L.ones(2, dtype=L.float64)),
        ("raises", "RuntimeError", "Index put requires the source and destination dtypes match, got Float for the "
         "destination and Double for the source.")),
    "setitem with a list index and int64 values": (
        lambda L: _set(L.zeros(3), [0, 2], L.ones(2, dtype=L.int64)),
        ("raises", "RuntimeError", "Index put requires the source and destination dtypes match, got Float for the "
         "destination and Long for the source.")),
    "setitem with a bool in a tuple key": (
        lambda L: _set(L.zeros(3, 2), (0, True), L.ones(2, dtype=L.float64)),
        ("raises", "RuntimeError", "Index put requires the source and destination dtypes match")),
    "setitem: the value's shape is checked before the dtypes": (
        lambda L: _set(L.zeros(3), L.tensor([7, 1]), L.ones(1, 1, 3, dtype=L.float64)),
        ("raises", "RuntimeError", "shape mismatch: value tensor of shape [3] cannot be broadcast to indexing result "
         "of shape [2]")),
    "setitem: the dtypes are checked before the bounds": (
        lambda L: _set(L.zeros(3), L.tensor([5]), L.ones(1, dtype=L.float64)),
        ("raises", "RuntimeError", "Index put requires the source and destination dtypes match")),
    "setitem with a mask and one float64 value fills": (
        lambda L: _set(L.zeros(3), L.tensor([True, False, True]), L.full((1, 1), 2.5, dtype=L.float64)),
        ("tensor", "float32", (3,), [2.5, 0.0, 2.5])),
    "setitem with a mask and one value beyond float32": (
        lambda L: _set(L.zeros(3), L.tensor([True, False, True]), L.tensor([1e300], dtype=L.float64)),
        ("raises", "RuntimeError", "value cannot be converted to type float without overflow")),
    "setitem with a mask and one complex value": (
        lambda L: _set(L.zeros(3), L.tensor([True, False, True]), L.tensor([1 + 2j])),
        ("raises", "RuntimeError", "value cannot be converted to type float without overflow")),
    "setitem with a slice and float64 values casts": (
        lambda L: _set(L.zeros(3), slice(0, 2), L.tensor([1.5, 2.5], dtype=L.float64)),
        ("tensor", "float32", (3,), [1.5, 2.5, 0.0])),
    "setitem with an int and a complex value keeps the real part": (
        lambda L: _set(L.zeros(2), 1, L.tensor(3 + 2j)), ("tensor", "float32", (2,), [0.0, 3.0])),
    "index_put_ with a mask and one float64 value fills": (
        lambda L: L.zeros(3).index_put_((L.tensor([True, False, True]),), L.tensor([4.0], dtype=L.float64)),
        ("tensor", "float32", (3,), [4.0, 0.0, 4.0])),
    "index_put with an int8 index": (
        lambda L: L.zeros(3).index_put((L.tensor([1, 0], dtype=L.int8),), L.ones(2)),
        ("raises", "IndexError", "tensors used as indices must be long, int, byte or bool tensors")),
    # keys: uint8 tensors are masks, other small integer types are refused, and lists are made tensors as torch does
    "getitem with a uint8 mask": (lambda L: L.arange(3)[L.tensor([1, 0, 1], dtype=L.uint8)],
                                  ("tensor", "int64", (2,), [0, 2])),
    "setitem with a uint8 mask": (lambda L: _set(L.zeros(3), L.tensor([0, 1, 1], dtype=L.uint8), L.tensor([1.0, 2.0])),
                                  ("tensor", "float32", (3,), [0.0, 1.0, 2.0])),
    "getitem with a 0-d uint8 index": (lambda L: L.arange(3)[L.tensor(2, dtype=L.uint8)],
                                       ("tensor", "int64", (1, 3), [[0, 1, 2]])),
    "getitem with an int16 index": (lambda L: L.arange(3)[L.tensor([1], dtype=L.int16)],
                                    ("raises", "IndexError", "tensors used as indices must be long, int, byte or bool "
                                     "tensors")),
    "getitem with a list of lists is a tuple": (lambda L: L.arange(9).reshape(3, 3)[[[0, 1], [1, 2]]],
                                                ("tensor", "int64", (2,), [1, 5])),
    "getitem with a list holding a slice": (lambda L: L.arange(9).reshape(3, 3)[[1, slice(None)]],
                                            ("tensor", "int64", (3,), [3, 4, 5])),
    "getitem with a list of floats truncates": (lambda L: L.arange(3)[[1.9, -1.5]], ("tensor", "int64", (2,), [1, 2])),
    "getitem with a list holding NaN": (lambda L: L.arange(3)[[NAN]],
                                        ("raises", "RuntimeError", "value cannot be converted to type int64 without "
                                         "overflow")),
    "getitem with a list holding an object": (lambda L: L.arange(3)[[object()]],
                                              ("raises", "RuntimeError", "Could not infer dtype of object")),
    "getitem with a string": (lambda L: L.arange(3)["a"], ("raises", "TypeError", "new(): invalid data type 'str'")),
    # interpolate's output size from a scale that is not finite or beyond int64: torch's kernel's error, or Python's
    # types where torch computes it in Python (area mode, recompute_scale_factor)
    "upsample_bilinear with a NaN scale": (
        lambda L: L.nn.functional.upsample_bilinear(L.ones(1, 1, 2, 2), scale_factor=NAN),
        ("raises", "RuntimeError", "value cannot be converted to type int64_t without overflow")),
    "upsample_bilinear of 3-D input with a NaN scale": (
        lambda L: L.nn.functional.upsample_bilinear(L.ones(3, 2, 1), scale_factor=NAN),
        ("raises", "NotImplementedError", "Got 3D input, but bilinear mode needs 4D input")),
    "interpolate by 1e19": (lambda L: L.nn.functional.interpolate(L.ones(1, 1, 2), scale_factor=1e19),
                            ("raises", "RuntimeError", "value cannot be converted to type int64_t without overflow")),
    "interpolate, area mode, by NaN": (
        lambda L: L.nn.functional.interpolate(L.ones(1, 1, 2), scale_factor=NAN, mode="area"),
        ("raises", "ValueError", "interpolate(): the output size 2 * nan is not a number")),
    "interpolate, recomputed scale, by infinity": (
        lambda L: L.nn.functional.interpolate(L.ones(1, 1, 2), scale_factor=INF, recompute_scale_factor=True),
        ("raises", "OverflowError", "interpolate(): the output size 2 * inf is infinite")),
    "interpolate, recomputed scale, beyond int64": (
        lambda L: L.nn.functional.interpolate(L.ones(1, 1, 2), scale_factor=1e300, recompute_scale_factor=True),
        ("raises", "TypeError", "upsample_nearest1d(): argument 'output_size' failed to unpack the object at pos 1 with "
         "error \"Overflow when unpacking long long")),
    "interpolate with a string scale": (
        lambda L: L.nn.functional.interpolate(L.ones(1, 1, 2), scale_factor=["a"]),
        ("raises", "TypeError", "interpolate(): argument 'scale_factor' must be float or tuple of floats, but found "
         "element of type str at pos 0")),
    "diagonal_scatter with an offset beyond int64's C long": (
        lambda L: L.zeros(3, 1, 1, dtype=L.uint8).diagonal_scatter(L.zeros(0, 2, dtype=L.int8), -2**63, dim2=1),
        ("raises", "RuntimeError", "expected src to have a size equal to the slice of self. src size = [0, 2], "
         "slice size = [1, 0]")),
    "diagonal_scatter with a huge offset and an empty src": (
        lambda L: L.diagonal_scatter(L.zeros(3, 3), L.zeros(0), 2**62), ("tensor", "float32", (3, 3), [[0.0] * 3] * 3)),
    "operator fast path, shapes that do not broadcast": (
        lambda L: L.zeros(2, 3, dtype=L.int16) >= L.zeros(2, dtype=L.int16),
        ("raises", "RuntimeError", "The size of tensor a (3) must match the size of tensor b (2) at non-singleton "
         "dimension 1")),
    "cosine_similarity with a 0-d tensor eps and mixed dtypes": (
        lambda L: L.cosine_similarity(L.ones(1, 4), L.ones(4, dtype=L.int32), eps=L.tensor(4)),
        ("tensor", "float32", (1,), [0.25])),  # both norms (2) clamped to eps: 4 * (1/4 * 1/4)
    "cosine_similarity of two int tensors": (
        lambda L: L.cosine_similarity(L.ones(3, dtype=L.int32), L.ones(3, dtype=L.int32), dim=0),
        ("raises", "RuntimeError", "expected common dtype to be floating point, yet common dtype is Int")),
    "cosine_similarity with a string eps": (
        lambda L: L.cosine_similarity(L.ones(3), L.ones(3), eps="x"),
        ("raises", "TypeError", "cosine_similarity(): argument 'eps' must be float, not str")),
    "cosine_similarity with a complex 0-d tensor eps": (
        lambda L: L.cosine_similarity(L.ones(3), L.ones(3), dim=0, eps=L.tensor(1j)),
        ("raises", "RuntimeError", "value cannot be converted to type double without overflow")),
    "init.uniform_ of an int tensor": (lambda L: L.nn.init.uniform_(L.zeros(2, 0, 1, dtype=L.int16), b=NAN),
                                       ("raises", "NotImplementedError",
                                        "\"check_uniform_bounds\" not implemented for 'Short'")),
    "uniform_ with a NaN bound": (lambda L: L.zeros(2).uniform_(0, NAN),
                                  ("raises", "RuntimeError", "to is out of bounds for float")),
    "uniform_ with an infinite bound, float16": (lambda L: L.zeros(2, dtype=L.float16).uniform_(-INF, 0),
                                                 ("raises", "RuntimeError", "from is out of bounds for c10::Half")),
    "uniform_ whose range overflows": (
        lambda L: L.zeros(2, dtype=L.float64).uniform_(-1e308, 1e308),
        ("raises", "RuntimeError", "uniform_ expects to-from <= std::numeric_limits<Double>::max(), but found "
         "to=1e+308 and from=-1e+308 which result in to-from to exceed the limit")),
    "init.uniform_ whose range overflows float32": (
        lambda L: L.nn.init.uniform_(L.zeros(2), -3e38, 3e38),
        ("raises", "RuntimeError", "uniform_ expects to-from <= std::numeric_limits<Float>::max()")),
    "uniform_ of an empty range": (lambda L: L.zeros(2, dtype=L.complex64).uniform_(1, 1),
                                   ("tensor", "complex64", (2,), [1 + 1j, 1 + 1j])),
    "exponential_ of an int tensor": (
        lambda L: L.zeros(3, dtype=L.int16).exponential_(),
        ("raises", "RuntimeError", "Exponential distribution is a continuous probability distribution. dtype must be "
         "a floating point but you specified Short")),
    "exponential_ of a complex tensor": (
        lambda L: L.zeros(3, dtype=L.complex64).exponential_(),
        ("raises", "RuntimeError", "Exponential distribution is a continuous probability distribution. dtype must be "
         "a floating point but you specified ComplexFloat")),
    "normal_ of an int tensor": (lambda L: L.zeros(3, dtype=L.int16).normal_(),
                                 ("raises", "NotImplementedError", "\"normal_kernel_cpu\" not implemented for 'Short'")),
    "normal_ checks std before the dtype": (lambda L: L.zeros(3, dtype=L.int16).normal_(0, -1),
                                           ("raises", "RuntimeError", "normal expects std >= 0.0, but found std -1")),
    "one_hot of a uint8 tensor": (lambda L: L.nn.functional.one_hot(L.zeros(1, dtype=L.uint8)),
                                  ("raises", "RuntimeError", "one_hot is only applicable to index tensor of type "
                                   "LongTensor.")),
    "one_hot of an int32 tensor": (lambda L: L.nn.functional.one_hot(L.zeros(1, dtype=L.int32)),
                                   ("raises", "RuntimeError", "one_hot is only applicable to index tensor of type "
                                    "LongTensor.")),
    "detach_ of a view": (lambda L: L.ones(3)[1:].detach_(),
                          ("raises", "RuntimeError", "Can't detach views in-place. Use detach() instead.")),
    "in-place subtraction of a bool tensor": (
        lambda L: L.zeros(2, dtype=L.float16).sub_(L.tensor(True)),
        ("raises", "RuntimeError", "Subtraction, the `-` operator, with a bool tensor is not supported.")),
    "-= True": (lambda L: L.zeros(2).__isub__(True),
                ("raises", "RuntimeError", "Subtraction, the `-` operator, with a bool tensor is not supported.")),
    "split by a negative size": (
        lambda L: L.zeros(2, 0, dtype=L.int8).split(-4, 1),
        ("raises", "RuntimeError", "split expects split_size be non-negative, but got split_size=-4")),
    "pinverse in half precision": (
        lambda L: L.zeros(2, 3, dtype=L.float16).pinverse(),
        ("raises", "RuntimeError", "linalg.pinv(Half{[2, 3]}): expected a tensor with 2 or more dimensions of float, "
         "double, cfloat or cdouble types")),
    "dropout of an int tensor while training": (
        lambda L: L.nn.functional.dropout(L.zeros(2, 1, dtype=L.int8)),
        ("raises", "RuntimeError", "result type Float can't be cast to the desired output type Char")),
    "dropout of an int tensor with p=1": (lambda L: L.nn.functional.dropout(L.ones(2, dtype=L.int8), p=1.0),
                                          ("tensor", "int8", (2,), [0, 0])),
    "dropout of a complex tensor": (
        lambda L: L.nn.functional.dropout(L.zeros(2, dtype=L.complex64)),
        ("raises", "NotImplementedError", "\"bernoulli_scalar_cpu_\" not implemented for 'ComplexFloat'")),
    "hardtanh_ of ints with float limits": (
        lambda L: L.nn.functional.hardtanh_(L.tensor([-5, 0, 5]), -2.5, 3.5), ("tensor", "int64", (3,), [-2, 0, 3])),
    "hardtanh_ of ints with a bool limit": (
        lambda L: L.nn.functional.hardtanh_(L.zeros(2, dtype=L.int64), True), ("tensor", "int64", (2,), [1, 1])),
    "take with an int16 index": (
        lambda L: L.take(L.zeros(1, dtype=L.bool), L.tensor(1, dtype=L.int16)),
        ("raises", "RuntimeError", "take(): Expected a long tensor for index, but got Short")),
    "random_ with a bound beyond int64": (lambda L: L.zeros((), dtype=L.float64).random_(to=2**70),
                                          ("raises", "ValueError", "Overflow when unpacking long long")),
    "random_ beyond uint8": (lambda L: L.zeros(2, dtype=L.uint8).random_(0, 300),
                             ("raises", "RuntimeError", "to - 1 is out of bounds for unsigned char")),
    "random_ below int8": (lambda L: L.zeros(2, dtype=L.int8).random_(-129, 0),
                           ("raises", "RuntimeError", "from is out of bounds for signed char")),
    "random_ beyond float16": (lambda L: L.zeros(2, dtype=L.float16).random_(0, 2**60),
                               ("raises", "RuntimeError", "to - 1 is out of bounds for c10::Half")),
    "random_ of an empty range": (lambda L: L.zeros(2).random_(0, 0),
                                  ("raises", "RuntimeError", "random_ expects 'from' to be less than 'to', but got "
                                   "from=0 >= to=0")),
    "exponential_ of an empty int tensor": (lambda L: L.zeros(1, 0, 3, dtype=L.int16).exponential_(),
                                            ("tensor", "int16", (1, 0, 3), [[]])),
    "normal_ of an empty int tensor": (lambda L: L.zeros(0, dtype=L.int16).normal_(), ("tensor", "int16", (0,), [])),
    "dropout of an empty int tensor": (lambda L: L.nn.functional.dropout(L.zeros(0, dtype=L.int64)),
                                       ("tensor", "int64", (0,), [])),
    "isclose with a negative atol": (
        lambda L: L.isclose(L.zeros(1), L.zeros(1), atol=-1.5),
        ("raises", "RuntimeError", "atol must be greater than or equal to zero, but got -1.5")),
    "allclose with a negative rtol": (
        lambda L: L.allclose(L.zeros(1), L.zeros(1), rtol=-1),
        ("raises", "RuntimeError", "rtol must be greater than or equal to zero, but got -1")),
    "isclose with a NaN atol": (lambda L: L.isclose(L.zeros(1), L.zeros(1), atol=NAN),
                                ("raises", "RuntimeError", "atol must be greater than or equal to zero, but got nan")),
    "isclose with a string atol": (lambda L: L.isclose(L.zeros(1), L.zeros(1), atol="x"),
                                   ("raises", "TypeError", "isclose(): argument 'atol' must be float, not str")),
    "dropout with a NaN probability": (
        lambda L: L.nn.functional.dropout(L.zeros(3), NAN, training=False),
        ("raises", "RuntimeError", "dropout probability has to be between 0 and 1, but got nan")),
    "alpha_dropout with a NaN probability": (
        lambda L: L.nn.functional.alpha_dropout(L.zeros(3, 2), NAN),
        ("raises", "RuntimeError", "dropout probability has to be between 0 and 1, but got nan")),
    "dropout2d of a 1-D tensor": (lambda L: L.nn.functional.dropout2d(L.zeros(3)),
                                  ("raises", "RuntimeError", "Feature dropout requires at least 2 dimensions in the "
                                   "input")),
    "dropout3d of a 0-D tensor": (lambda L: L.nn.functional.dropout3d(L.zeros(())),
                                  ("raises", "RuntimeError", "Feature dropout requires at least 2 dimensions in the "
                                   "input")),
    "dropout3d of a 1-D tensor": (lambda L: L.nn.functional.dropout3d(L.zeros(3), p=1.0),
                                  ("tensor", "float32", (3,), [0.0, 0.0, 0.0])),
    "dropout2d of a 0-D tensor, not training": (lambda L: L.nn.functional.dropout2d(L.ones(()), training=False),
                                                ("tensor", "float32", (), 1.0)),
    "ctc_loss with a float for input_lengths": (
        lambda L: L.ctc_loss(L.zeros(3, 1, 2, dtype=L.float64), L.tensor([[1]]), -0.2, (1,), 0),
        ("raises", "TypeError", "ctc_loss(")),
    "autograd.grad of a float, on the dispatching path": (
        lambda L: L.autograd.grad(math.inf, [L.zeros(2, requires_grad=True)], is_grads_batched=[[1.0]]),
        ("raises", "TypeError", "expected a Tensor or a sequence of Tensors, got float")),
    "kl_div of complex inputs": (lambda L: L.nn.functional.kl_div(L.zeros(3, dtype=L.complex64), L.zeros(1)),
                                 ("raises", "RuntimeError", "kl_div: Complex inputs not supported.")),
    "cosine_embedding_loss with a 3-D target": (
        lambda L: L.nn.functional.cosine_embedding_loss(L.zeros(3), L.zeros(3), L.zeros(3, 0, 3)),
        ("raises", "RuntimeError", "0D or 1D target tensor expected, multi-target not supported")),
    "cosine_embedding_loss with a 1-D target and 1-D inputs": (
        lambda L: L.nn.functional.cosine_embedding_loss(L.ones(3), L.ones(3), L.ones(3)),
        ("raises", "RuntimeError", "1D target tensor expects 2D input tensors, but found inputs with sizes [3] and "
         "[3].")),
    "cosine_embedding_loss with inputs that do not broadcast": (
        lambda L: L.nn.functional.cosine_embedding_loss(L.ones(2, 3), L.ones(2, 4), L.ones(2)),
        ("raises", "RuntimeError", "The size of tensor a (3) must match the size of tensor b (4) at non-singleton "
         "dimension 1")),
    "parameters_to_vector of an empty tensor": (
        lambda L: L.nn.utils.parameters_to_vector(L.zeros(0, dtype=L.bool)),
        ("raises", "ValueError", "tensorlib.cat(): expected a non-empty list of Tensors")),
    "polynomial with a degree beyond 64 bits": (
        lambda L: L.special.chebyshev_polynomial_t(L.zeros(2), 2**70),
        ("raises", "OverflowError", "int too big to convert")),
    "dropout2d of an int tensor while training": (
        lambda L: L.nn.functional.dropout2d(L.zeros(2, 2, 2, dtype=L.int32)),
        ("raises", "RuntimeError", "result type Float can't be cast to the desired output type Int")),
    "alpha_dropout of a complex tensor while training": (
        lambda L: L.nn.functional.alpha_dropout(L.zeros(2, 2, dtype=L.complex64), training=True),
        ("raises", "NotImplementedError", "\"bernoulli_scalar_cpu_\" not implemented for 'ComplexFloat'")),
    "dropout1d of an empty int tensor": (lambda L: L.nn.functional.dropout1d(L.zeros(2, 0, dtype=L.int64)),
                                         ("tensor", "int64", (2, 0), [[], []])),
    "dropout_ with a NaN probability, not training": (
        lambda L: L.dropout_(L.zeros(0, 3, dtype=L.bool), NAN, False),
        ("raises", "RuntimeError", "dropout probability has to be between 0 and 1, but got nan")),
    "hardtanh_ of ints with a limit beyond int64": (
        lambda L: L.nn.functional.hardtanh_(L.zeros((), dtype=L.int8), max_val=2**63),
        ("raises", "RuntimeError", "value cannot be converted to type int64_t without overflow")),
    "signbit into an int out": (lambda L: L.signbit(L.zeros(2), out=L.zeros(2, dtype=L.int16)),
                                ("raises", "RuntimeError", "signbit does not support non-boolean outputs.")),
    "nonzero into an int32 out": (
        lambda L: L.nonzero(L.ones(2, 2), out=L.zeros(4, 2, dtype=L.int32)),
        ("raises", "RuntimeError", "nonzero: Expected out tensor to have scalar type Long but got scalar typeInt")),
    "all into an int out": (lambda L: L.all(L.ones(2), out=L.zeros((), dtype=L.int32)),
                            ("raises", "RuntimeError", "all only supports bool tensor for result, got: Int")),
    "any over a dim into a float out": (lambda L: L.any(L.ones(2, 2), 0, out=L.zeros(2)),
                                        ("raises", "RuntimeError", "any only supports bool tensor for result, got: "
                                         "Float")),
    "all into a uint8 out": (lambda L: L.all(L.ones(2), out=L.zeros((), dtype=L.uint8)),
                             ("tensor", "uint8", (), 1)),
    "Tensor.tile with ints": (lambda L: L.ones(2).tile(2, 3), ("tensor", "float32", (2, 6), [[1.0] * 6] * 2)),
    "Tensor.tile with one int": (lambda L: L.ones(2).tile(2), ("tensor", "float32", (4,), [1.0] * 4)),
    "tile with one int": (lambda L: L.tile(L.ones(2), 2),
                          ("raises", "TypeError", "tile(): argument 'dims' (position 2) must be tuple of ints, not "
                           "int")),
}
# torch raises the same type from inside Python (``int(size * ratio)``, ``math.floor(size * scale)``) or with its
# argument parser's words: only the type is compared with torch's
SAME_TYPE_ONLY = {"fractional_max_pool2d with a nested output_ratio", "fractional_max_pool2d with a NaN output_ratio",
                  "fractional_max_pool3d with an infinite output_ratio", "interpolate, area mode, by NaN",
                  "interpolate, recomputed scale, by infinity", "interpolate with a string scale",
                  "detach_ of a view", "ctc_loss with a float for input_lengths",
                  "autograd.grad of a float, on the dispatching path"}  # (its message names tensorlib's optimizer file, torch's names torch's)


@pytest.mark.parametrize("case", list(CASES))
def test_fuzz_find(case):
    fn, expected = CASES[case]
    got = _outcome(fn, tensorlib)
    if expected[0] == "raises":
        assert got[:2] == expected[:2] and got[2].startswith(expected[2]), got
    else:
        assert _same(got, expected), got


@pytest.mark.parametrize("case", list(CASES))
def test_fuzz_find_as_torch(case):
    torch = pytest.importorskip("torch")
    fn, _ = CASES[case]
    ours, theirs = _outcome(fn, tensorlib), _outcome(fn, torch)
    if ours[0] == "raises":
        assert theirs[0] == "raises" and ours[1] == theirs[1], (ours, theirs)
        assert case in SAME_TYPE_ONLY or theirs[2].startswith(ours[2]) or ours[2].startswith(theirs[2]), (ours, theirs)
    else:
        assert _same(ours, theirs), (ours, theirs)


@pytest.mark.parametrize("op", ["__add__", "__mul__", "__ge__", "__eq__", "__radd__"])
def test_operator_fast_path_raises_from_tensorlibs_own_code(op):
    from tests.fuzz.calls import internal_error

    a, b = tensorlib.zeros(2, 3, dtype=tensorlib.int8), tensorlib.zeros(2, dtype=tensorlib.int8)
    with pytest.raises(RuntimeError, match="must match the size") as info:
        getattr(a, op)(b)
    assert internal_error(info.value, op) is None


def test_uniform_fills_both_parts_of_complex_samples_in_range():
    x = tensorlib.zeros(4000, dtype=tensorlib.complex128).uniform_(-3.0, -1.0)
    re, im = x.real.numpy(), x.imag.numpy()
    for part in (re, im):
        assert part.min() >= -3.0 and part.max() < -1.0 and part.std() > 0.5


@pytest.mark.parametrize("dtype", ["int64", "uint8", "float32", "float16"])
def test_random_with_one_bound_samples_below_it(dtype):
    x = tensorlib.zeros(2000, dtype=getattr(tensorlib, dtype)).random_(5)
    assert x.min().item() == 0 and x.max().item() == 4


@pytest.mark.parametrize(("dtype", "top"), [("float16", 2**11), ("float32", 2**24), ("uint8", 255), ("bool", 1)])
def test_random_without_bounds_covers_the_exact_integers(dtype, top):
    x = tensorlib.zeros(100000, dtype=getattr(tensorlib, dtype)).random_()
    assert x.min().item() >= 0 and top / 2 < float(x.max().item()) <= top


EXACT_OUT = ["abs", "absolute", "neg", "negative", "floor", "ceil", "trunc", "fix", "frac", "sign", "sgn", "round",
             "hardshrink"]


@pytest.mark.parametrize("name", EXACT_OUT)
def test_out_of_another_dtype_is_refused_where_torch_refuses_it(name):
    out = tensorlib.zeros(2, dtype=tensorlib.float64)
    with pytest.raises(RuntimeError, match="^Found dtype Double but expected Float$"):
        getattr(tensorlib, name)(tensorlib.ones(2), out=out)
    assert out.tolist() == [0.0, 0.0] and out._version == 0
    same = tensorlib.zeros(2)
    getattr(tensorlib, name)(-tensorlib.ones(2) * 1.5, out=same)
    assert same.tolist() == getattr(tensorlib, name)(-tensorlib.ones(2) * 1.5).tolist()


@pytest.mark.parametrize("name", ["exp", "sin", "sqrt", "sigmoid", "reciprocal", "log"])
def test_out_of_a_wider_dtype_is_taken_where_torch_takes_it(name):
    out = tensorlib.zeros(2, dtype=tensorlib.float64)
    getattr(tensorlib, name)(tensorlib.ones(2), out=out)
    assert out.dtype == tensorlib.float64 and out.tolist() == getattr(tensorlib, name)(tensorlib.ones(2)).tolist()


def test_bitwise_not_out_dtype():
    with pytest.raises(RuntimeError, match="Found dtype Int but expected Short"):
        tensorlib.bitwise_not(tensorlib.ones(2, dtype=tensorlib.int16), out=tensorlib.zeros(2, dtype=tensorlib.int32))


@pytest.mark.parametrize("name", EXACT_OUT + ["exp", "sin", "sqrt", "sigmoid", "reciprocal", "log"])
def test_out_dtype_rules_as_torch(name):
    torch = pytest.importorskip("torch")
    outcomes = []
    for lib in (tensorlib, torch):
        try:
            getattr(lib, name)(lib.ones(2), out=lib.zeros(2, dtype=lib.float64))
            outcomes.append("ok")
        except RuntimeError as exc:
            outcomes.append(str(exc))
    assert outcomes[0] == outcomes[1]
