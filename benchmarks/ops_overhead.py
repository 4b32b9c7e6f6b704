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


def _no_grad(lib: object) -> None:
    with lib.no_grad():  # type: ignore[attr-defined]
        pass


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
        ("a.T", lambda: an.T, lambda: a.T, (lambda: ta.T) if torch else None),
        ("a.permute(1, 0)", lambda: an.transpose(1, 0), lambda: a.permute(1, 0),
         (lambda: ta.permute(1, 0)) if torch else None),
        ("a.view(-1)", lambda: an.reshape(-1), lambda: a.view(-1), (lambda: ta.view(-1)) if torch else None),
        ("a.unsqueeze(0)", lambda: an[None], lambda: a.unsqueeze(0), (lambda: ta.unsqueeze(0)) if torch else None),
        ("a.squeeze()", lambda: an.squeeze(), lambda: a.squeeze(), (lambda: ta.squeeze()) if torch else None),
        ("cat([a, b])", lambda: np.concatenate([an, bn]), lambda: tensorlib.cat([a, b]),
         (lambda: torch.cat([ta, tb])) if torch else None),
        ("stack([a, b])", lambda: np.stack([an, bn]), lambda: tensorlib.stack([a, b]),
         (lambda: torch.stack([ta, tb])) if torch else None),
        ("zeros(4, 4)", lambda: np.zeros((4, 4), np.float32), lambda: tensorlib.zeros(4, 4),
         (lambda: torch.zeros(4, 4)) if torch else None),
        ("zeros_like(a)", lambda: np.zeros_like(an), lambda: tensorlib.zeros_like(a),
         (lambda: torch.zeros_like(ta)) if torch else None),
        ("a.clone()", lambda: an.copy(), lambda: a.clone(), (lambda: ta.clone()) if torch else None),
        ("a.mean()", lambda: an.mean(), lambda: a.mean(), (lambda: ta.mean()) if torch else None),
        ("a.argmax(1)", lambda: an.argmax(1), lambda: a.argmax(1), (lambda: ta.argmax(1)) if torch else None),
        ("a.max()", lambda: an.max(), lambda: a.max(), (lambda: ta.max()) if torch else None),
        ("a == b", lambda: an == bn, lambda: a == b, (lambda: ta == tb) if torch else None),
        ("a[0, 0].item()", lambda: an[0, 0].item(), lambda: a[0, 0].item(),
         (lambda: ta[0, 0].item()) if torch else None),
        ("a.size(0)", lambda: an.shape[0], lambda: a.size(0), (lambda: ta.size(0)) if torch else None),
        ("a.dtype", lambda: an.dtype, lambda: a.dtype, (lambda: ta.dtype) if torch else None),
        ("a.float()", lambda: an.astype(np.float32, copy=False), lambda: a.float(),
         (lambda: ta.float()) if torch else None),
        ("a.to(float64)", lambda: an.astype(np.float64), lambda: a.to(tensorlib.float64),
         (lambda: ta.to(torch.float64)) if torch else None),
        ("tensor([1., 2., 3.])", lambda: np.array([1.0, 2.0, 3.0], np.float32),
         lambda: tensorlib.tensor([1.0, 2.0, 3.0]), (lambda: torch.tensor([1.0, 2.0, 3.0])) if torch else None),
        ("softmax(a, 1)", lambda: np.exp(an) / np.exp(an).sum(1, keepdims=True),
         lambda: tensorlib.softmax(a, 1), (lambda: torch.softmax(ta, 1)) if torch else None),
        ("where(a > 0, a, b)", lambda: np.where(an > 0, an, bn), lambda: tensorlib.where(a > 0, a, b),
         (lambda: torch.where(ta > 0, ta, tb)) if torch else None),
        ("a[a > 0]", lambda: an[an > 0], lambda: a[a > 0], (lambda: ta[ta > 0]) if torch else None),
        ("a[0] = 1.0", lambda: an.__setitem__(0, 1.0), lambda: a.__setitem__(0, 1.0),
         (lambda: ta.__setitem__(0, 1.0)) if torch else None),
        ("a.add_(1.0)", lambda: np.add(an, 1.0, out=an), lambda: a.add_(1.0), (lambda: ta.add_(1.0)) if torch else None),
        ("with no_grad()", lambda: None, lambda: _no_grad(tensorlib), (lambda: _no_grad(torch)) if torch else None),
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
