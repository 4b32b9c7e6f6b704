"""Cost of the __torch_function__ protocol: the no-override check, and dispatch to duck types and subclasses.

Prints, measured in one run: a wrapped function against its raw implementation
and against the raw NumPy operation (the difference is the protocol check);
then dispatch to a duck type and to a Tensor subclass, side by side with
PyTorch's when it is installed.
"""

from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tensorlib  # noqa: E402
from _timing import best_ns, table, try_import_torch  # noqa: E402


class Duck:
    """A duck type whose handler answers at once (measures dispatch, not work); a plain method, as in the seed."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        return 0


class ClassDuck:
    """The same with a classmethod handler (PyTorch's recommended form)."""

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return 0


class Sub(tensorlib.Tensor):
    pass


def main() -> None:
    a_np = np.ones((4, 4))
    b_np = np.ones((4, 4))
    a = tensorlib.from_numpy(a_np)
    b = tensorlib.from_numpy(b_np)
    raw_add = tensorlib.add._implementation
    raw_mul = tensorlib.Tensor.__mul__._implementation

    results = best_ns({
        "np.add(a, b)": lambda: np.add(a_np, b_np),
        "add impl (raw)": lambda: raw_add(a, b),
        "tensorlib.add": lambda: tensorlib.add(a, b),
        "Tensor.__mul__ impl (raw)": lambda: raw_mul(a, b),
        "a * b": lambda: a * b,
    }, number=50000)
    table("No-override path, 4x4 float64", results, "np.add(a, b)")
    check_fn = results["tensorlib.add"] - results["add impl (raw)"]
    check_op = results["a * b"] - results["Tensor.__mul__ impl (raw)"]
    print(f"  protocol check on a function call:  {check_fn:6.0f} ns")
    print(f"  protocol check on an operator:      {check_op:6.0f} ns")

    prop = best_ns({
        "a._data.shape (raw attribute)": lambda: a._data.shape,
        "a.shape": lambda: a.shape,
    }, number=100000)
    table("Property access", prop, "a._data.shape (raw attribute)")

    duck = Duck()
    sub = a.as_subclass(Sub)
    cduck = ClassDuck()
    cases = {
        "tensorlib.add(a, b) plain": lambda: tensorlib.add(a, b),
        "tensorlib.add(duck, b)": lambda: tensorlib.add(duck, b),
        "tensorlib.add(cduck, b)": lambda: tensorlib.add(cduck, b),
        "tensorlib.add(sub, b)": lambda: tensorlib.add(sub, b),
    }
    torch = try_import_torch()
    if torch is not None:
        ta, tb = torch.ones(4, 4, dtype=torch.float64), torch.ones(4, 4, dtype=torch.float64)

        class TorchSub(torch.Tensor):
            pass

        import warnings

        warnings.simplefilter("ignore", DeprecationWarning)  # torch warns on plain-method handlers
        tsub = ta.as_subclass(TorchSub)
        cases.update({
            "torch.add(a, b) plain": lambda: torch.add(ta, tb),
            "torch.add(duck, b)": lambda: torch.add(duck, tb),
            "torch.add(cduck, b)": lambda: torch.add(cduck, tb),
            "torch.add(sub, b)": lambda: torch.add(tsub, tb),
        })
    res = best_ns(cases, number=20000)
    table("Dispatch to a duck type and to a Tensor subclass (default handler)", res, "tensorlib.add(a, b) plain")
    if torch is None:
        print("  (PyTorch not installed: no side-by-side numbers)")
    else:
        for what in ("plain", "duck", "cduck", "sub"):
            key = {"plain": "add(a, b) plain", "duck": "add(duck, b)", "cduck": "add(cduck, b)", "sub": "add(sub, b)"}[what]
            ours, theirs = res["tensorlib." + key], res["torch." + key]
            print(f"  {what:5s}: tensorlib {ours:7.0f} ns  torch {theirs:7.0f} ns  ratio {ours / theirs:4.2f}")


if __name__ == "__main__":
    main()
