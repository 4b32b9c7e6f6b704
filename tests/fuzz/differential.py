"""The same random call made on tensorlib and on torch, outcomes compared (used by ``test_differential.py``).

An outcome is "ok" or the kind of exception raised (:func:`tests.fuzz.calls.kind`: IndexError, TypeError,
ValueError, NotImplementedError or RuntimeError, subclasses folded in). Two outcomes agree when they are equal.
A disagreement is explained when torch's error is one of its own limitations (:data:`TORCH_LIMITATIONS`), and
otherwise must be fixed or listed, with its reason, in ``test_differential.KNOWN``.
"""

from __future__ import annotations

import re
from typing import Any, Callable

import tensorlib
from tests.fuzz import calls as C

# torch errors that are limitations of torch's kernels, not argument errors: tensorlib computes these
TORCH_LIMITATIONS = re.compile(
    r"not implemented for '|\"\w+\" not implemented for|Unsupported dtype|not supported for (Half|complex|"
    r"ComplexFloat|ComplexDouble)|does not support (Half|complex)|only supports (floating|float)|"
    r"(Half|ComplexHalf) (is|are) not supported|is not supported for complex|should be either floating point or "
    r"complex|expected (a )?floating[- ]point|Expected a floating point|Low precision dtypes not supported"
)


# torch's own callees that never return on some bad arguments: not called on torch
TORCH_HANGS = {
    "Tensor.index": "torch's functorch.dim Tensor.index loops forever in _wrap_dim on some arguments",
}


def outcome(fn: Callable[[], Any]) -> BaseException | None:
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 (the exception is the outcome)
        return exc
    return None


# torch's argument parser: it checks every argument's type against the schema before any value is looked at
ARGUMENT_PARSER = re.compile(
    r"received an invalid combination of arguments|argument '\w+' (\(position \d+\) )?must be|"
    r"failed to unpack the object|takes (from )?\d+ (to \d+ )?positional argument|got an unexpected keyword|"
    r"missing \d+ required|got multiple values for"
)


def compare(name: str, func: Callable, args: tuple, kwargs: dict, torch: Any) -> tuple[str, str]:
    """Make the call on both libraries: ``(verdict, description)``.

    The verdicts: "agree"; "limitation" (torch lacks a kernel tensorlib has); "torch internal" (torch raised one of
    its own internal errors, an AttributeError or ``tuple index out of range``, where tensorlib raised an argument
    error); "order" (both raised, one of them from a type check of the arguments: the call has more than one
    error and the libraries look at them in a different order); "differ".
    """
    tensorlib.manual_seed(0)
    torch.manual_seed(0)
    ours = outcome(lambda: C.call(name, func, args, kwargs, tensorlib))
    theirs = outcome(lambda: C.call(name, func, args, kwargs, torch))
    a, b = C.kind(ours), C.kind(theirs)
    if a == b:
        return "agree", ""
    what = f"{name}{args}{kwargs}: tensorlib {a}{_msg(ours)}, torch {b}{_msg(theirs)}"
    if theirs is not None and TORCH_LIMITATIONS.search(str(theirs)):
        return "limitation", what
    if theirs is not None and ours is not None and C.internal_error(ours, name) is None and (
        not isinstance(theirs, C.ALLOWED) or C.INTERNAL_MESSAGE.search(str(theirs))
    ):
        return "torch internal", what
    if theirs is not None and ours is not None and any(
        isinstance(e, TypeError) and ARGUMENT_PARSER.search(str(e)) for e in (ours, theirs)
    ):
        return "order", what
    return "differ", what


def _msg(exc: BaseException | None) -> str:
    return "" if exc is None else f" ({str(exc).splitlines()[0][:160] if str(exc) else ''})"
