"""``import tensorlib`` does not load what a program may never use, and everything is still reachable.

The public parts of ``tensorlib.nn`` (module classes, ``functional``, ``init``, ``utils``), ``tensorlib.fft``,
``linalg``, ``special``, ``optim``, ``serialization`` (and ``save``/``load``), ``testing``, ``utils``,
``distributions`` and NumPy's random module load on first use; the introspection helpers of
``tensorlib.overrides`` see their functions without the program touching them first.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _run(code: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_import_leaves_nn_and_numpy_random_for_later():
    out = _run(
        "import sys, json, tensorlib\n"
        "lazy = ['tensorlib.nn.modules', 'tensorlib.nn.functional', 'tensorlib.nn.init', 'tensorlib.nn.utils',"
        " 'numpy.random']\n"
        "before = {m: m in sys.modules for m in lazy}\n"
        "t = tensorlib.conv2d(tensorlib.ones(1, 1, 3, 3), tensorlib.ones(1, 1, 2, 2))  # declared by nn's private parts\n"
        "r = tensorlib.rand(2)\n"
        "print(json.dumps({'before': before, 'random_after_rand': 'numpy.random' in sys.modules,"
        " 'conv': t.tolist()}))"
    )
    assert out["before"] == dict.fromkeys(out["before"], False)
    assert out["random_after_rand"]
    assert out["conv"] == [[[[4.0, 4.0], [4.0, 4.0]]]]


def test_nn_loads_on_first_use_by_any_route():
    out = _run(
        "import json, tensorlib\n"
        "linear = tensorlib.nn.Linear(3, 2)\n"
        "import tensorlib.nn as nn\n"
        "from tensorlib.nn import *  # noqa\n"
        "print(json.dumps({'linear': type(linear).__name__, 'star': 'Conv2d' in globals() and 'Parameter' in globals(),"
        " 'all': len(nn.__all__), 'dir': 'Sequential' in dir(nn), 'F': nn.functional.relu(tensorlib.tensor([-1., 2.])).tolist(),"
        " 'missing': hasattr(nn, 'NoSuchLayer')}))"
    )
    assert out["linear"] == "Linear" and out["star"] and out["dir"] and out["F"] == [0.0, 2.0]
    assert out["all"] > 100 and not out["missing"]


def test_submodule_import_first_then_the_rest():
    out = _run(
        "import json\n"
        "import tensorlib.nn.functional as F\n"
        "from tensorlib.nn import Module, init\n"
        "print(json.dumps({'F': F.__name__, 'module': Module.__name__, 'init': init.__name__}))"
    )
    assert out == {"F": "tensorlib.nn.functional", "module": "Module", "init": "tensorlib.nn.init"}


def test_overrides_listings_include_nn_without_touching_it_first():
    out = _run(
        "import json, tensorlib\n"
        "from tensorlib.overrides import get_overridable_functions, get_testing_overrides, get_ignored_functions\n"
        "funcs = get_overridable_functions()\n"
        "names = sorted(getattr(ns, '__name__', str(ns)) for ns in funcs)\n"
        "import tensorlib.nn.functional as F\n"
        "print(json.dumps({'names': names, 'relu': F.relu in get_testing_overrides(),"
        " 'ignored': len(get_ignored_functions())}))"
    )
    assert {"tensorlib.nn.functional", "tensorlib.nn.init"} <= set(out["names"])
    assert out["relu"] and out["ignored"] > 0


def test_tensorlib_never_imports_its_optional_dask_module():
    out = _run(
        "import sys, json, tensorlib\n"
        "import tensorlib.nn.functional as F\n"
        "from tensorlib.overrides import get_overridable_functions\n"
        "F.relu(tensorlib.nn.Linear(3, 2)(tensorlib.ones(1, 3)))\n"
        "get_overridable_functions()\n"
        "print(json.dumps({'loaded': sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')"
        " or m.startswith('tensorlib.dask'))}))"
    )
    assert out["loaded"] == []


ON_FIRST_USE = ["tensorlib.fft", "tensorlib.linalg", "tensorlib.special", "tensorlib.optim", "tensorlib.serialization",
                "tensorlib.testing", "tensorlib.utils", "tensorlib.distributions", "tensorlib.autograd.functional",
                "dispatch._toolkit", "dispatch._coverage", "zipfile", "tensorlib.ops._erf", "tensorlib.ops._lapack"]


def test_import_leaves_the_other_public_parts_for_later_and_each_route_reaches_them():
    out = _run(
        "import sys, json, io, tensorlib\n"
        f"lazy = {ON_FIRST_USE!r}\n"
        "before = [m for m in lazy if m in sys.modules]\n"
        "x = tensorlib.tensor([[2., 1.], [1., 3.]], dtype=tensorlib.float64)\n"
        "inv = tensorlib.linalg.inv(x).tolist()\n"
        "from tensorlib.fft import fft\n"
        "spectrum = fft(tensorlib.ones(2)).real.tolist()\n"
        "import tensorlib.special as special\n"
        "buf = io.BytesIO(); tensorlib.save(x, buf); buf.seek(0)\n"
        "loaded = tensorlib.load(buf).tolist()\n"
        "star = {}; exec('from tensorlib import *', star)\n"
        "jac = tensorlib.autograd.functional.jacobian(lambda v: v * 3, tensorlib.ones(2)).tolist()\n"
        "from dispatch import Implementations\n"
        "print(json.dumps({'before': before, 'inv': inv, 'fft': spectrum,"
        " 'expit': special.expit(tensorlib.zeros(1)).tolist(), 'loaded': loaded,"
        " 'same': [tensorlib.save is tensorlib.serialization.save, tensorlib.load is tensorlib.serialization.load],"
         " 'star': all(n in star for n in ('optim', 'testing', 'utils', 'save', 'load', 'distributions')),"
        " 'dir': all(n in dir(tensorlib) for n in ('fft', 'save', 'optim')),"
        " 'missing': hasattr(tensorlib, 'no_such_name'), 'sgd': tensorlib.optim.SGD.__name__, 'jac': jac,"
        " 'toolkit': Implementations.__module__}))"
    )
    assert out["before"] == []
    assert out["inv"] == [[0.6, -0.2], [-0.2, 0.4]] and out["fft"] == [2.0, 0.0] and out["expit"] == [0.5]
    assert out["loaded"] == [[2.0, 1.0], [1.0, 3.0]] and out["same"] == [True, True]
    assert out["star"] and out["dir"] and not out["missing"] and out["sgd"] == "SGD"
    assert out["jac"] == [[3.0, 0.0], [0.0, 3.0]] and out["toolkit"] == "dispatch._toolkit"


def test_overrides_listings_include_the_parts_loaded_on_first_use():
    out = _run(
        "import json, tensorlib\n"
        "from tensorlib.overrides import get_overridable_functions, get_ignored_functions\n"
        "funcs = get_overridable_functions()\n"
        "ignored = get_ignored_functions()\n"
        "names = sorted(getattr(ns, '__name__', str(ns)) for ns in funcs)\n"
        "print(json.dumps({'names': names, 'inv': tensorlib.linalg.inv in funcs[tensorlib.linalg],"
        " 'ignored': [f in ignored for f in (tensorlib.save, tensorlib.load, tensorlib.testing.assert_close,"
        " tensorlib.serialization.add_safe_globals)]}))"
    )
    assert {"tensorlib.fft", "tensorlib.linalg", "tensorlib.special"} <= set(out["names"])
    assert out["inv"] and out["ignored"] == [True, True, True, True]


def test_function_wrappers_are_made_on_first_access_once_for_all_threads():
    out = _run(
        "import json, pickle, threading, tensorlib\n"
        "before = [n in vars(tensorlib) for n in ('atan2', 'cos', 'zeros', 'logaddexp')]\n"
        "seen = []\n"
        "barrier = threading.Barrier(8)\n"
        "def grab():\n"
        "    barrier.wait()\n"
        "    seen.append(tensorlib.atan2)\n"
        "threads = [threading.Thread(target=grab) for _ in range(8)]\n"
        "[t.start() for t in threads]; [t.join() for t in threads]\n"
        "from tensorlib import cos\n"
        "from tensorlib.overrides import get_overridable_functions, get_ignored_functions, resolve_name\n"
        "listed = get_overridable_functions()[tensorlib]\n"
        "print(json.dumps({'before': before, 'one': all(f is tensorlib.atan2 for f in seen) and len(seen) == 8,"
        " 'cos': cos is tensorlib.cos and cos(tensorlib.zeros(1)).tolist() == [1.0],"
        " 'pickle': pickle.loads(pickle.dumps(tensorlib.sin)) is tensorlib.sin,"
        " 'listed': 'logaddexp' in vars(tensorlib) and tensorlib.logaddexp in listed,"
        " 'zeros_ignored': tensorlib.zeros in get_ignored_functions(), 'name': resolve_name(tensorlib.atan2),"
        " 'dir': 'logaddexp' in dir(tensorlib)}))"
    )
    assert out["before"] == [False, False, False, False]
    assert out["one"] and out["cos"] and out["pickle"] and out["listed"] and out["zeros_ignored"] and out["dir"]
    assert out["name"] == "tensorlib.atan2"


def test_tensor_method_wrappers_are_made_on_first_access_and_then_are_plain_functions():
    out = _run(
        "import inspect, json, threading, tensorlib\n"
        "T = tensorlib.Tensor\n"
        "before = [inspect.isfunction(vars(T)[n]) for n in ('exp', 'cos', 'logaddexp', '__add__', 'add')]\n"
        "class Sub(T):\n"
        "    pass\n"
        "s = Sub(tensorlib.zeros(2))\n"
        "seen = []\n"
        "barrier = threading.Barrier(8)\n"
        "def grab():\n"
        "    barrier.wait()\n"
        "    seen.append(T.exp)\n"
        "threads = [threading.Thread(target=grab) for _ in range(8)]\n"
        "[t.start() for t in threads]; [t.join() for t in threads]\n"
        "through_dict = vars(T)['cos'](tensorlib.zeros(1)).tolist()\n"
        "from tensorlib.overrides import get_overridable_functions\n"
        "listed = get_overridable_functions()[T]\n"
        "print(json.dumps({'before': before, 'sub': type(s.exp()).__name__, 'one': all(f is T.exp for f in seen),"
        " 'function': inspect.isfunction(vars(T)['exp']) and vars(T)['exp'] is T.exp, 'cos': through_dict,"
        " 'signature': str(inspect.signature(T.clamp)), 'listed': inspect.isfunction(vars(T)['logaddexp'])"
        " and T.logaddexp in listed}))"
    )
    assert out["before"] == [False, False, False, True, True]  # operators and the methods they report as: at once
    assert out["sub"] == "Sub" and out["one"] and out["function"] and out["cos"] == [1.0] and out["listed"]
    assert out["signature"].startswith("(self: 'Tensor', min: 'Any' = None, max")


def test_op_modules_left_for_first_use_load_with_their_first_name():
    out = _run(
        "import json, sys, tensorlib\n"
        "from tensorlib import _registry\n"
        "from tensorlib._declarations import DECLARED\n"
        "lazy = list(_registry.ON_FIRST_USE_MODULES)\n"
        "before = [m for m in lazy if m in sys.modules]\n"
        "x = tensorlib.tensor([[2., 1.], [1., 3.]], dtype=tensorlib.float64)\n"
        "det = x.slogdet().logabsdet.exp().item()  # a Tensor method declared by tensorlib.ops.decompositions\n"
        "after_det = [m for m in lazy if m in sys.modules]\n"
        "window = tensorlib.stft(tensorlib.ones(16), 8, return_complex=True).shape  # a top-level function\n"
        "from tensorlib.overrides import get_overridable_functions, get_ignored_functions\n"
        "funcs, ignored = get_overridable_functions(), get_ignored_functions()\n"
        "def owner(ns):\n"
        "    return tensorlib.Tensor if ns == 'tensorlib.Tensor' else sys.modules[ns]\n"
        "listed = all(getattr(owner(ns), n) in funcs.get(owner(ns), []) or getattr(owner(ns), n) in ignored"
        " for m in DECLARED for ns, n in DECLARED[m])\n"
        "print(json.dumps({'before': before, 'after_det': after_det, 'det': det, 'window': list(window),"
        " 'listed': listed, 'all': sorted(DECLARED) == sorted(lazy)}))"
    )
    assert out["before"] == []
    assert "tensorlib.ops.decompositions" in out["after_det"] and "tensorlib.ops.fft" not in out["after_det"]
    assert out["det"] == pytest.approx(5.0) and out["window"] == [5, 9]
    assert out["listed"] and out["all"]


def test_import_leaves_the_garbage_collector_as_it_found_it():
    # the import runs with collection off and moves what it made to the oldest generation at the end (freeze then
    # unfreeze): collection is on again afterwards, nothing stays frozen, and a program's own frozen objects
    # (a server that froze them before forking) stay frozen; a program that turned collection off keeps it off
    out = _run(
        "import gc, json\n"
        "import tensorlib\n"
        "after = {'enabled': gc.isenabled(), 'frozen': gc.get_freeze_count(),"
        " 'oldest': any(o is vars(tensorlib) for o in gc.get_objects(generation=2))}\n"
        "garbage = []\n"
        "garbage.append(garbage)\n"
        "del garbage\n"
        "after['collected'] = gc.collect() >= 1\n"
        "print(json.dumps(after))"
    )
    assert out == {"enabled": True, "frozen": 0, "oldest": True, "collected": True}
    out = _run(
        "import gc, json\n"
        "kept = [[i] for i in range(100)]\n"
        "gc.freeze()\n"
        "before = gc.get_freeze_count()\n"
        "import tensorlib\n"
        "kept_frozen = all(not any(o is k for o in gc.get_objects()) for k in kept[:3])\n"
        "print(json.dumps({'kept': kept_frozen, 'count': 0 < gc.get_freeze_count() <= before,"
        " 'enabled': gc.isenabled()}))"
    )
    assert out == {"kept": True, "count": True, "enabled": True}
    out = _run("import gc, json\ngc.disable()\nimport tensorlib\nprint(json.dumps({'enabled': gc.isenabled()}))")
    assert out == {"enabled": False}
