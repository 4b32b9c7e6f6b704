"""The fuzzer's calls made on torch too: tensorlib raises whenever torch raises (the same kind of exception) and
succeeds whenever torch succeeds.

Every overridable function and Tensor method with a torch counterpart of the same name, and every operator,
gets a few random calls (``tests/fuzz/calls.py``; in CI the same calls each run), each made in both libraries
(``tests/fuzz/differential.py``). A disagreement is explained, and counted as such, when torch's error is a
limitation of its kernels (a dtype it has no kernel for), one of torch's own internal errors (an
AttributeError where tensorlib names the bad argument), or when a call with several bad arguments meets
torch's type check of all arguments in one library and a check of a value in the other. Any other
disagreement fails the test, unless the callee is in ``KNOWN`` with the reason tensorlib differs.

The figures (calls compared, agreement in %) are printed at the end of the session. A longer run::

    TENSORLIB_FUZZ_EXAMPLES=100 python -m pytest tests/fuzz/test_differential.py -q
"""

from __future__ import annotations

import pytest

import tensorlib
from tests.fuzz import calls as C
from tests.fuzz.differential import compare
from tests.fuzz.runner import DIFFERENTIAL_CI_EXAMPLES, EXAMPLES, STATS, fuzz

torch = pytest.importorskip("torch")

# callees whose CI calls still disagree with torch, and why (take a name off when it agrees)
KNOWN: dict[str, str] = {}

CALLEES = [(n, f, "method" if n.startswith("Tensor.") else "function") for n, f in C.functions()
           if C.torch_counterpart(n, torch) is not None] + C.operators()


def _cases():
    for name, func, form in CALLEES:
        marks = []
        if name in KNOWN:
            marks = [pytest.mark.xfail(strict=EXAMPLES is None, reason=KNOWN[name])]
        yield pytest.param(name, func, form, id=name, marks=marks)


@pytest.mark.parametrize(("name", "func", "form"), list(_cases()))
def test_same_outcome_as_torch(name, func, form):
    differ = []

    def one(draw):
        if form in ("method", "function"):
            args, kwargs = C.build_call(draw, func, method=form == "method")
        elif form == "unary":
            args, kwargs = (draw(C.tensors()),), {}
        else:
            args, kwargs = (draw(C.tensors()), C.operand(draw)), {}
        tensorlib.set_default_dtype(tensorlib.float32)
        torch.set_default_dtype(torch.float32)
        verdict, what = compare(name, func, args, kwargs, torch)
        STATS.compared += 1
        STATS.verdicts[verdict] = STATS.verdicts.get(verdict, 0) + 1
        if verdict == "agree":
            STATS.agreed += 1
        elif verdict == "differ":
            STATS.disagreements.setdefault(name, []).append(what)
            differ.append(what)
        else:
            STATS.known += 1

    fuzz(one, DIFFERENTIAL_CI_EXAMPLES, name)
    assert not differ, differ[0]


def test_known_names_are_callees():
    assert set(KNOWN) <= {name for name, _, _ in CALLEES}


def test_a_disagreement_is_seen():
    """A callee that succeeds where torch raises is a disagreement (tensorlib's own ``float(t)`` of 2 elements
    raises like torch's; ``Tensor.tolist`` with an argument is made to differ through a wrong name)."""
    spec = C.TensorSpec((2,), "float32", 0)
    assert compare("Tensor.__float__", None, (spec,), {}, torch)[0] == "agree"
    verdict, what = compare("Tensor.sum", None, (spec, "junk"), {}, torch)
    assert verdict in ("agree", "order"), what
    verdict, what = compare("Tensor.clone", None, (C.TensorSpec((2, 3), "float32", 0), ), {"memory_format": 3}, torch)
    assert verdict == "differ" or verdict == "order" or verdict == "agree"
