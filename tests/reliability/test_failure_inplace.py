"""A failed in-place op changes nothing: the tensor's data, shape, dtype and version counter are as before.

``CASES`` are the classic failures (operands that do not broadcast or do not cast, bad indices and values,
probabilities out of range...), each compared with torch's exception type. (torch itself sometimes writes
part of the result before it raises, ``scatter_`` with an index out of bounds for one; tensorlib checks first.)
``test_failed_inplace_methods_change_nothing`` runs every in-place Tensor method and ``__setitem__`` on random
bad arguments (the fuzzer's, ``tests/fuzz/calls.py``) and checks the same of every call that raises, for the
tensor and for every tensor argument.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tensorlib
from tests.fuzz import calls as C
from tests.fuzz.runner import fuzz


def F(L):
    return L.arange(6.0).reshape(2, 3)


def I(L):  # noqa: E743 (an integer tensor)
    return L.arange(6).reshape(2, 3)


CASES = {
    "add_ not broadcastable": (F, lambda L, t: t.add_(L.ones(4))),
    "add_ result larger than self": (F, lambda L, t: t.add_(L.ones(2, 2, 3))),
    "add_ float into int": (I, lambda L, t: t.add_(L.ones(2, 3))),
    "add_ float scalar into int": (I, lambda L, t: t.add_(1.5)),
    "add_ complex into float": (F, lambda L, t: t.add_(1j)),
    "add_ float alpha on ints": (I, lambda L, t: t.add_(L.ones(2, 3, dtype=L.int64), alpha=1.5)),
    "add_ int beyond 64 bits": (F, lambda L, t: t.add_(2**70)),
    "mul_ string": (F, lambda L, t: t.mul_("x")),
    "iadd not broadcastable": (F, lambda L, t: t.__iadd__(L.ones(4))),
    "sub_ of bools": (lambda L: L.ones(3, dtype=L.bool), lambda L, t: t.sub_(True)),
    "div_ float into int": (I, lambda L, t: t.div_(2.5)),
    "pow_ negative int power": (I, lambda L, t: t.pow_(-1)),
    "sqrt_ of ints": (I, lambda L, t: t.sqrt_()),
    "copy_ not broadcastable": (F, lambda L, t: t.copy_(L.ones(4))),
    "copy_ larger source": (F, lambda L, t: t.copy_(L.ones(3, 3))),
    "setitem index out of range": (F, lambda L, t: t.__setitem__((L.tensor([0, 5]),), 1.0)),
    "setitem list index out of range": (F, lambda L, t: t.__setitem__([0, 1, 7], 1.0)),
    "setitem second index out of range": (F, lambda L, t: t.__setitem__((L.tensor([0, 1]), L.tensor([1, 9])), 7.0)),
    "setitem value not broadcastable": (F, lambda L, t: t.__setitem__(slice(None), L.ones(4))),
    "setitem string value": (F, lambda L, t: t.__setitem__(0, "x")),
    "setitem complex value into float": (F, lambda L, t: t.__setitem__(0, 1j)),
    "setitem int8 overflow": (lambda L: L.zeros(3, dtype=L.int8), lambda L, t: t.__setitem__(0, 1000)),
    "setitem mask of the wrong shape": (F, lambda L, t: t.__setitem__(L.tensor([True, False, True]), 1.0)),
    "setitem too many indices": (F, lambda L, t: t.__setitem__((0, 0, 0), 1.0)),
    "index_put_ index out of range": (F, lambda L, t: t.index_put_((L.tensor([0, 1]), L.tensor([0, 9])), L.tensor(5.0))),
    "index_put_ accumulate out of range": (
        F, lambda L, t: t.index_put_((L.tensor([0, 1]), L.tensor([0, 9])), L.tensor(5.0), accumulate=True)),
    "index_put_ values not broadcastable": (F, lambda L, t: t.index_put_((L.tensor([0, 1]),), L.ones(5))),
    "index_put_ values of another dtype": (F, lambda L, t: t.index_put_((L.tensor([0, 1]),), L.ones(3, dtype=L.float64))),
    "scatter_ index out of range": (F, lambda L, t: t.scatter_(1, L.tensor([[0, 5]]), L.ones(1, 2))),
    "scatter_ negative index": (F, lambda L, t: t.scatter_(1, L.tensor([[0, -1]]), L.ones(1, 2))),
    "scatter_ src of another dtype": (F, lambda L, t: t.scatter_(1, L.tensor([[0, 1]]), L.ones(1, 2, dtype=L.float64))),
    "scatter_add_ index out of range": (F, lambda L, t: t.scatter_add_(1, L.tensor([[0, 5]]), L.ones(1, 2))),
    "scatter_reduce_ index out of range": (F, lambda L, t: t.scatter_reduce_(1, L.tensor([[0, 5]]), L.ones(1, 2), "sum")),
    "index_add_ index out of range": (F, lambda L, t: t.index_add_(0, L.tensor([0, 5]), L.ones(2, 3))),
    "index_add_ source of another dtype": (F, lambda L, t: t.index_add_(0, L.tensor([0, 1]), L.ones(2, 3, dtype=L.float64))),
    "index_copy_ index out of range": (F, lambda L, t: t.index_copy_(0, L.tensor([0, 5]), L.ones(2, 3))),
    "index_fill_ index out of range": (F, lambda L, t: t.index_fill_(1, L.tensor([0, 5]), 2.0)),
    "put_ index out of range": (F, lambda L, t: t.put_(L.tensor([0, 50]), L.ones(2))),
    "masked_fill_ float mask": (F, lambda L, t: t.masked_fill_(L.ones(2, 3), 1.0)),
    "masked_fill_ mask not broadcastable": (F, lambda L, t: t.masked_fill_(L.ones(4, dtype=L.bool), 1.0)),
    "masked_fill_ 1-d value": (F, lambda L, t: t.masked_fill_(L.ones(2, 3, dtype=L.bool), L.ones(2))),
    "masked_fill_ complex into float": (F, lambda L, t: t.masked_fill_(L.ones(2, 3, dtype=L.bool), 1j)),
    "masked_scatter_ short source": (F, lambda L, t: t.masked_scatter_(L.ones(2, 3, dtype=L.bool), L.ones(2))),
    "masked_scatter_ source of another dtype": (
        F, lambda L, t: t.masked_scatter_(L.ones(2, 3, dtype=L.bool), L.ones(6, dtype=L.float64))),
    "clamp_ float bound on ints": (I, lambda L, t: t.clamp_(L.tensor(1.5))),
    "clamp_ bound not broadcastable": (F, lambda L, t: t.clamp_(L.ones(4))),
    "bernoulli_ p=2": (F, lambda L, t: t.bernoulli_(2.0)),
    "bernoulli_ p=-0.5": (F, lambda L, t: t.bernoulli_(-0.5)),
    "bernoulli_ p=nan": (F, lambda L, t: t.bernoulli_(float("nan"))),
    "bernoulli_ tensor p out of range": (F, lambda L, t: t.bernoulli_(L.full((2, 3), 2.0))),
    "uniform_ from > to": (F, lambda L, t: t.uniform_(2, 1)),
    "normal_ negative std": (F, lambda L, t: t.normal_(0, -1)),
    "random_ from >= to": (F, lambda L, t: t.random_(5, 2)),
    "exponential_ negative rate": (F, lambda L, t: t.exponential_(-1)),
    "fill_ 1-d value": (F, lambda L, t: t.fill_(L.ones(2))),
    "zero_ of a leaf that requires grad": (lambda L: L.ones(2, requires_grad=True), lambda L, t: t.zero_()),
    "lerp_ end of another dtype": (F, lambda L, t: t.lerp_(L.ones(2, 3, dtype=L.float64), 0.5)),
    "addcmul_ not broadcastable": (F, lambda L, t: t.addcmul_(L.ones(4), L.ones(4))),
    "addmm_ shapes": (lambda L: L.ones(2, 2), lambda L, t: t.addmm_(L.ones(2, 3), L.ones(2, 3))),
    "t_ of 3 dims": (lambda L: L.ones(2, 2, 2), lambda L, t: t.t_()),
    "squeeze_ dim out of range": (F, lambda L, t: t.squeeze_(5)),
    "transpose_ dim out of range": (F, lambda L, t: t.transpose_(0, 5)),
    "unsqueeze_ dim out of range": (F, lambda L, t: t.unsqueeze_(5)),
    "resize_ negative size": (F, lambda L, t: t.resize_(-1)),
    "as_strided_ beyond the storage": (F, lambda L, t: t.as_strided_((4, 4), (1, 1), 100)),
    "relu_ of bools": (lambda L: L.ones(3, dtype=L.bool), lambda L, t: L.relu_(t)),
    "sigmoid_ of ints": (I, lambda L, t: t.sigmoid_()),
    "iand of floats": (F, lambda L, t: t.__iand__(L.ones(2, 3))),
    "add_ into an expanded tensor": (lambda L: L.ones(3).expand(2, 3), lambda L, t: t.add_(1)),
    "cumsum_ dim out of range": (F, lambda L, t: t.cumsum_(5)),
    "fill_diagonal_ of 1 dim": (lambda L: L.ones(3), lambda L, t: t.fill_diagonal_(2.0)),
    "index_reduce_ index out of range": (F, lambda L, t: t.index_reduce_(0, L.tensor([0, 5]), L.ones(2, 3), "prod")),
    "renorm_ negative p": (F, lambda L, t: t.renorm_(-1, 0, 1.0)),
}


def _state(t):
    return t._data.copy(), t._data.shape, t._data.dtype, t._version


def _unchanged(t, state) -> bool:
    data, shape, dtype, version = state
    a = t._data
    return (a.shape == shape and a.dtype == dtype and t._version == version
            and np.array_equal(a, data, equal_nan=dtype.kind in "fc"))


@pytest.mark.parametrize("case", list(CASES))
def test_failed_inplace_op_changes_nothing(case):
    make, call = CASES[case]
    t = make(tensorlib)
    state = _state(t)
    with pytest.raises((TypeError, ValueError, RuntimeError, IndexError, OverflowError)) as info:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            call(tensorlib, t)
    assert C.internal_error(info.value) is None, info.value
    assert _unchanged(t, state), f"{case}: the tensor changed although the op raised {info.value!r}"


@pytest.mark.parametrize("case", list(CASES))
def test_failed_inplace_op_raises_as_torch(case):
    torch = pytest.importorskip("torch")
    make, call = CASES[case]
    kinds = []
    for lib in (tensorlib, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                call(lib, make(lib))
                kinds.append("ok")
            except Exception as exc:  # noqa: BLE001 (the kind of exception is compared)
                kinds.append(C.kind(exc))
    assert kinds[0] == kinds[1], f"{case}: tensorlib {kinds[0]}, torch {kinds[1]}"


INPLACE = [(n, f) for n, f in C.functions()
           if n.startswith("Tensor.") and ((n.endswith("_") and not n.endswith("__")) or n in (
               "Tensor.__setitem__", "Tensor.__iadd__", "Tensor.__isub__", "Tensor.__imul__", "Tensor.__itruediv__",
               "Tensor.__ipow__", "Tensor.__iand__", "Tensor.__ior__"))]


@pytest.mark.parametrize(("name", "func"), INPLACE, ids=[n for n, _ in INPLACE])
def test_failed_inplace_methods_change_nothing(name, func):
    failures = []

    def one(draw):
        args, kwargs = C.build_call(draw, func, method=True)
        args, kwargs = C.materialize(args, tensorlib), C.materialize(kwargs, tensorlib)
        tensors = [a for a in list(args) + list(kwargs.values()) if isinstance(a, tensorlib.Tensor)]
        before = [_state(t) for t in tensors]
        try:
            getattr(args[0], name[len("Tensor."):])(*args[1:], **kwargs)
        except Exception as exc:  # noqa: BLE001 (a failure of any kind must change nothing)
            for i, (t, state) in enumerate(zip(tensors, before)):
                if not _unchanged(t, state):
                    failures.append(f"{name}: argument {i} changed although the call raised {exc!r}")

    fuzz(one, 8, name)
    assert not failures, failures[0]


def test_the_check_sees_a_change():
    t = F(tensorlib)
    state = _state(t)
    t.add_(1)
    assert not _unchanged(t, state)
    t = F(tensorlib)
    state = _state(t)
    t._data[0, 0] = 7.0  # a write behind the counter's back: the data differ
    assert not _unchanged(t, state)
