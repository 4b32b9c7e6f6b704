"""DaskTensor's coverage of tensorlib's API is read from its table by the coverage tool, and includes every function
a model's forward pass and data preparation need."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("dask")

import tensorlib as torch  # noqa: E402
import tensorlib.nn.functional as F  # noqa: E402
from dispatch.testing import assert_covers  # noqa: E402
from tensorlib.dask import DaskTensor  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
T = torch.Tensor

# What issue 12 asks for, by name.
REQUIRED = [
    torch.add, torch.sub, torch.mul, torch.div, torch.pow, torch.exp, torch.log, torch.sqrt, torch.abs, torch.neg,
    T.__add__, T.__radd__, T.__sub__, T.__rsub__, T.__mul__, T.__truediv__, T.__rtruediv__, T.__pow__, T.__neg__,
    torch.eq, torch.ne, torch.lt, torch.le, torch.gt, torch.ge, T.__eq__, T.__lt__, torch.where,
    torch.sum, torch.mean, torch.max, torch.min, T.max, T.min, torch.argmax, torch.logsumexp, torch.var, torch.std,
    T.sum, T.mean, T.argmax, T.var, T.std,
    torch.matmul, torch.mm, T.__matmul__, F.linear,
    torch.reshape, T.reshape, T.view, torch.transpose, T.transpose, torch.permute, T.permute, torch.unsqueeze,
    T.unsqueeze, torch.cat, torch.stack, T.__getitem__,
    F.softmax, F.log_softmax, torch.softmax, T.softmax, F.relu, F.gelu, torch.sigmoid, torch.tanh, F.sigmoid, F.tanh,
    F.cross_entropy, F.nll_loss, F.layer_norm, F.embedding, F.conv2d,
    T.shape.__get__, T.dtype.__get__, T.size, T.dim, T.numel, T.to, T.float,
]


def test_the_required_functions_are_covered_and_well_signed() -> None:
    report = assert_covers(DaskTensor, REQUIRED)
    assert report.how == "table"
    assert all(not ns.mis_signed and not ns.partial for ns in report.namespaces)


def test_the_coverage_tool_reads_the_table() -> None:
    done = subprocess.run([sys.executable, "-m", "dispatch", "coverage", "tensorlib.dask:DaskTensor", "--json",
                           "--fail-under", "30"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["type"] == "DaskTensor" and report["how"] == "table"
    by_name = {ns["name"]: ns for ns in report["namespaces"]}
    assert by_name["tensorlib.special"]["percent"] == 100.0
    assert "tensorlib.nn.functional.conv2d" in by_name["tensorlib.nn.functional"]["handled_functions"]
    assert "tensorlib.linalg.inv" in by_name["tensorlib.linalg"]["missing"]
    assert report["handled"] > 500


def test_every_handled_tensor_method_is_a_method_of_dask_tensor() -> None:
    """Named methods; operators (reached through Python's own dunders) are checked by test_ops.py."""
    methods = 0
    for public in DaskTensor.__torch_function__.__func__._dispatch_table:  # type: ignore[attr-defined]
        qualname = getattr(public, "__qualname__", "")
        if qualname.startswith("Tensor.") and qualname.count(".") == 1 and not qualname.startswith("Tensor.__"):
            assert hasattr(DaskTensor, qualname.split(".")[1]), qualname
            methods += 1
    assert methods > 200
