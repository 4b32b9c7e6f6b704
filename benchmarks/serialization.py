"""save/load of one large tensor: tensorlib against PyTorch, time, file size and peak extra memory.

    python benchmarks/serialization.py            # a 500 MB float32 tensor
    python benchmarks/serialization.py --mb 50    # smaller

Times are the best of ``--repeat`` interleaved runs, each writing a new file in ``--dir`` (the page cache
absorbs the writes, for both libraries alike; the machine's other load makes single runs vary by 2x). Memory is measured two ways: tracemalloc's peak during
``tensorlib.save`` (NumPy reports its allocations to it, PyTorch does not), and for both libraries the growth
of the process's resident high-water mark during one save, each in a fresh interpreter.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import tracemalloc

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import tensorlib  # noqa: E402
from _timing import try_import_torch  # noqa: E402

_RSS_CHILD = """
import resource, sys, numpy as np
lib, path, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
data = np.random.default_rng(0).random(n, dtype=np.float32)
if lib == "torch":
    import torch
    x = torch.from_numpy(data)
    save = torch.save
else:
    sys.path.insert(0, sys.argv[4])
    import tensorlib
    x = tensorlib.from_numpy(data)
    save = tensorlib.save
save(x[:16], path)  # imports and first-call costs happen before the measurement
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
save(x, path)
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print((after - before) * 1024)
"""


def _best(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def _rss_growth(lib: str, path: str, n: int) -> float:
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    out = subprocess.run([sys.executable, "-c", _RSS_CHILD, lib, path, str(n), root], check=True,
                         capture_output=True, text=True)
    return int(out.stdout.strip()) / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=500.0, help="tensor size in MB (float32)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--dir", default=None, help="where to write the files (default: a temporary directory)")
    args = parser.parse_args()

    n = int(args.mb * 2**20 / 4)
    data = np.random.default_rng(0).random(n, dtype=np.float32)
    ours = tensorlib.from_numpy(data)
    torch = try_import_torch()
    theirs = torch.from_numpy(data) if torch is not None else None  # type: ignore[attr-defined]

    with tempfile.TemporaryDirectory(dir=args.dir) as d:
        mine, ref = os.path.join(d, "tensorlib.pt"), os.path.join(d, "torch.pt")
        tensorlib.save(ours[:16], mine)  # warm up
        save_times = {"tensorlib": float("inf"), "torch": float("inf")}
        load_times = dict(save_times)

        def timed_save(lib: str, save, x, path: str) -> None:
            if os.path.exists(path):
                os.remove(path)  # each save writes a new file: truncating the old one is not part of the time
            save_times[lib] = min(save_times[lib], _best(lambda: save(x, path), 1))

        for _ in range(args.repeat):  # interleaved: both libraries see the same machine state
            timed_save("tensorlib", tensorlib.save, ours, mine)
            load_times["tensorlib"] = min(load_times["tensorlib"], _best(lambda: tensorlib.load(mine), 1))
            if torch is not None:
                timed_save("torch", torch.save, theirs, ref)  # type: ignore[attr-defined]
                load_times["torch"] = min(load_times["torch"], _best(
                    lambda: torch.load(ref, weights_only=True), 1))  # type: ignore[attr-defined]
        assert np.array_equal(tensorlib.load(mine).numpy(), data)
        size_mine = os.path.getsize(mine)
        size_ref = os.path.getsize(ref) if torch is not None else None

        tracemalloc.start()
        tracemalloc.reset_peak()
        tensorlib.save(ours, mine)
        _, traced_peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        rss = {"tensorlib": _rss_growth("tensorlib", mine, n)}
        if torch is not None:
            rss["torch"] = _rss_growth("torch", ref, n)

    mb = n * 4 / 2**20
    print(f"one float32 tensor of {mb:.0f} MB")
    print(f"  save   tensorlib {save_times['tensorlib']:.3f} s", end="")
    if torch is not None:
        print(f"   torch {save_times['torch']:.3f} s   ratio x{save_times['tensorlib'] / save_times['torch']:.2f}"
              " (target <= 2)")
    else:
        print()
    print(f"  load   tensorlib {load_times['tensorlib']:.3f} s", end="")
    if torch is not None:
        print(f"   torch {load_times['torch']:.3f} s   ratio x{load_times['tensorlib'] / load_times['torch']:.2f}"
              " (tensorlib checks every record's CRC, torch does not)")
    else:
        print()
    print(f"  file   tensorlib {size_mine / 2**20:.2f} MB (data + {size_mine - n * 4} bytes)", end="")
    print(f"   torch {size_ref / 2**20:.2f} MB (data + {size_ref - n * 4} bytes)" if size_ref is not None else "")
    print(f"  peak extra memory while saving: tensorlib {traced_peak / 2**20:.2f} MB (tracemalloc)")
    print("  resident high-water growth during one save: "
          + "   ".join(f"{k} {v:.1f} MB" for k, v in rss.items()))


if __name__ == "__main__":
    main()
