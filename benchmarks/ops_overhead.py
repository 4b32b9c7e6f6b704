"""Per-call overhead of common ops on small tensors: tensorlib vs raw NumPy vs PyTorch, measured in one run.

On a 4x4 tensor the arithmetic itself is nearly free, so these numbers are the
price of each library's Python (or C++) layers. Ratios are against NumPy doing
the same arithmetic on the same arrays.
"""

from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tensorlib  # noqa: E402
from _timing import best_ns, try_import_torch  # noqa: E402


def main() -> None:
    an = np.random.default_rng(0).standard_normal((4, 4)).astype(np.float32)
    bn = an.copy()
    a, b = tensorlib.from_numpy(an), tensorlib.from_numpy(bn)
    leaf = tensorlib.from_numpy(an.copy()).requires_grad_()
    torch = try_import_torch()
    if torch is not None:
        torch.set_num_threads(1)
        ta, tb = torch.from_numpy(an.copy()), torch.from_numpy(bn.copy())
        tleaf = torch.from_numpy(an.copy()).requires_grad_()

    def tiny_backward_tl():
        (leaf * b).sum().backward()

    def tiny_backward_torch():
        (tleaf * tb).sum().backward()

    rows = [
        ("a + b", lambda: an + bn, lambda: a + b, (lambda: ta + tb) if torch else None),
        ("a * 2.0", lambda: an * 2.0, lambda: a * 2.0, (lambda: ta * 2.0) if torch else None),
        ("exp(a)", lambda: np.exp(an), lambda: tensorlib.exp(a), (lambda: torch.exp(ta)) if torch else None),
        ("a.sum()", lambda: np.add.reduce(an, axis=None), lambda: a.sum(), (lambda: ta.sum()) if torch else None),
        ("a.sum(0)", lambda: np.add.reduce(an, axis=0), lambda: a.sum(0), (lambda: ta.sum(0)) if torch else None),
        ("a @ b", lambda: an @ bn, lambda: a @ b, (lambda: ta @ tb) if torch else None),
        ("a[1]", lambda: an[1], lambda: a[1], (lambda: ta[1]) if torch else None),
        ("a.reshape(16)", lambda: an.reshape(16), lambda: a.reshape(16), (lambda: ta.reshape(16)) if torch else None),
        ("a.t()", lambda: an.T, lambda: a.t(), (lambda: ta.t()) if torch else None),
        ("relu(a)", lambda: np.maximum(an, 0), lambda: tensorlib.relu(a), (lambda: torch.relu(ta)) if torch else None),
        ("a.shape", lambda: an.shape, lambda: a.shape, (lambda: ta.shape) if torch else None),
        ("leaf * b (records)", lambda: an * bn, lambda: leaf * b, (lambda: tleaf * tb) if torch else None),
        ("(leaf*b).sum().backward()", lambda: an * bn, tiny_backward_tl, tiny_backward_torch if torch else None),
    ]
    print("Per-call time on 4x4 float32 tensors (best of interleaved repeats)")
    header = f"  {'op':<28} {'numpy':>8} {'tensorlib':>10} {'torch':>8}   {'tl/np':>6} {'tl/torch':>8}"
    print(header)
    for name, f_np, f_tl, f_torch in rows:
        cands = {"np": f_np, "tl": f_tl}
        if f_torch is not None:
            cands["torch"] = f_torch
        r = best_ns(cands, number=5000 if "backward" in name else 30000, repeat=5)
        t = r.get("torch")
        print(f"  {name:<28} {r['np']:8.0f} {r['tl']:10.0f} {t if t else float('nan'):8.0f}   "
              f"{r['tl'] / r['np']:6.2f} {(r['tl'] / t) if t else float('nan'):8.2f}")
    print("  (times in ns; tl/torch < 1 means tensorlib is faster)")
    _erf_throughput(torch)


def _erf_throughput(torch: object) -> None:
    """erf on a large tensor: NumPy has no erf, so the baseline is math.erf element by element."""
    import math

    xn = np.random.default_rng(1).standard_normal((256, 1024))
    x = tensorlib.from_numpy(xn)
    scalar_erf = np.frompyfunc(math.erf, 1, 1)
    cands = {"math.erf per element": lambda: scalar_erf(xn), "tensorlib.erf": lambda: tensorlib.erf(x)}
    if torch is not None:
        tx = torch.from_numpy(xn.copy())  # type: ignore[attr-defined]
        cands["torch.erf"] = lambda: torch.erf(tx)  # type: ignore[attr-defined]
    r = best_ns(cands, number=2, repeat=3)
    base = r["math.erf per element"]
    print("\nerf on a 256x1024 float64 tensor (per element)")
    for name, ns in r.items():
        print(f"  {name:<24} {ns / xn.size:8.1f} ns   x {ns / base:5.2f} of math.erf per element")


if __name__ == "__main__":
    main()
