"""Random calls of every overridable function, Tensor method and operator raise only torch's exception types.

The calls (``tests/fuzz/calls.py``) are derandomized: each run makes the same few calls per callee, so the
test is deterministic and its cost bounded. ``KNOWN`` lists the callees some of whose calls still end in an
internal error (an unchecked argument reaching Python or NumPy); they are strict expected failures, so
fixing one fails the test until its name is taken off the list.

A longer random search is one command (then derandomized no more; the figures are printed at the end)::

    TENSORLIB_FUZZ_EXAMPLES=200 python -m pytest tests/fuzz -p no:randomly -q
"""

from __future__ import annotations

import pytest

from tests.fuzz import calls as C
from tests.fuzz.runner import EXAMPLES, STATS, fuzz

# callees with an internal error among their derandomized calls (take a name off when it is fixed)
KNOWN: set[str] = set(
    """
    """.split()
)
FUNCTIONS = C.functions()
OPERATORS = C.operators()


def _cases():
    for name, func in FUNCTIONS:
        marks = [pytest.mark.xfail(strict=EXAMPLES is None, reason="known internal error")] if name in KNOWN else []
        yield pytest.param(name, func, id=name, marks=marks)


def _check(name, make_call):
    failures = []

    def one(draw):
        args, kwargs, func = make_call(draw)
        STATS.calls += 1
        try:
            C.call(name, func, args, kwargs, C.tensorlib)
        except Exception as exc:  # noqa: BLE001 (what it raises is the point)
            why = C.internal_error(exc, name)
            if why:
                STATS.internal.append(f"{name}{args}{kwargs}")
                failures.append(f"{type(exc).__name__}: {exc} ({why}) in {name}{args}{kwargs}")

    fuzz(one, name=name)
    assert not failures, failures[0]


@pytest.mark.parametrize(("name", "func"), list(_cases()))
def test_bad_calls_raise_only_torch_errors(name, func):
    method = name.startswith("Tensor.")
    _check(name, lambda draw: (*C.build_call(draw, func, method=method), func))


@pytest.mark.parametrize(("name", "func", "form"), C.operators(), ids=[n for n, _, _ in OPERATORS])
def test_operators_raise_only_torch_errors(name, func, form):
    def make(draw):
        args = (draw(C.tensors()),) if form == "unary" else (draw(C.tensors()), C.operand(draw))
        return args, {}, func

    _check(name, make)


def test_known_names_exist():
    assert KNOWN <= {name for name, _ in FUNCTIONS}


def test_internal_errors_are_recognised():
    import tensorlib

    try:
        (1,)[3]
    except IndexError as exc:
        assert C.internal_error(exc) is not None
    try:
        tensorlib.ones(2).sum(dim=5)
    except IndexError as exc:
        assert C.internal_error(exc) is None  # tensorlib's own "Dimension out of range" error
    try:
        tensorlib.ones(2)._data + tensorlib.ones(3)._data  # NumPy's own error, from inside NumPy
    except ValueError as exc:
        assert C.internal_error(exc) is not None
    assert C.INTERNAL_MESSAGE.search("operands could not be broadcast together with shapes (2,) (3,)")
    assert not C.INTERNAL_MESSAGE.search("The size of tensor a (2) must match the size of tensor b (3)")


def test_specs_make_the_same_tensor_in_each_call():
    spec = C.TensorSpec((2, 3), "float32", 7, view="T", special=True)
    a, b = spec.make(C.tensorlib), spec.make(C.tensorlib)
    assert a.shape == (2, 3) and not a.is_contiguous()
    assert a.isnan().equal(b.isnan()) and a.nan_to_num().equal(b.nan_to_num())
    assert bool(a.isnan().any() | a.isinf().any())
