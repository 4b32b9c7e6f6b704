"""dispatch.coverage, ``python -m dispatch coverage`` and dispatch.testing.assert_covers: counts checked against
known tables (the seed's duck types, verbatim and on the toolkit), JSON and markdown output, --fail-under, and a
protocol of its own."""

from __future__ import annotations

import json
import os
import runpy
import warnings

import pytest

import dispatch
import tensorlib
from dispatch.__main__ import main as cli
from dispatch.testing import assert_covers
from tensorlib.overrides import get_overridable_functions, protocol

EXAMPLES = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir, "examples")


def _example(name: str) -> dict:
    return runpy.run_path(os.path.join(EXAMPLES, name), run_name="coverage_test")


def _totals() -> dict[str, int]:
    """Overridable functions per namespace, named as the report names them."""
    names = {tensorlib.Tensor: "tensorlib.Tensor"}
    return {names.get(ns, getattr(ns, "__name__", None)): len(fs) for ns, fs in get_overridable_functions().items()}


def test_the_toolkit_scalar_tensor_is_read_from_its_table():
    scalar = _example("toolkit_scalar_tensor.py")["ScalarTensor"]
    report = tensorlib.overrides.coverage(scalar)
    assert report.how == "table" and report.method == "__torch_function__"
    by_name = {ns.name: ns for ns in report.namespaces}
    assert {name: ns.total for name, ns in by_name.items()} == _totals()
    assert by_name["tensorlib"].handled == ["tensorlib.add", "tensorlib.mean"]
    assert report.handled == 2 and report.total == sum(_totals().values())
    assert all(not ns.handled for name, ns in by_name.items() if name != "tensorlib")
    assert by_name["tensorlib"].mis_signed == {}
    assert by_name["tensorlib"].partial == {
        "tensorlib.add": ["parameter 'alpha' is missing", "parameter 'out' is missing"],
        "tensorlib.mean": ["parameter 'dim' is missing", "parameter 'keepdim' is missing",
                           "parameter 'dtype' is missing", "parameter 'out' is missing"],
    }
    assert "tensorlib.mul" in by_name["tensorlib"].missing and len(by_name["tensorlib"].missing) == _totals()["tensorlib"] - 2


def test_the_verbatim_seed_scalar_tensor_is_probed_to_the_same_counts():
    scalar = _example("seed_scalar_tensor.py")["ScalarTensor"]
    report = dispatch.coverage(scalar)  # the protocol is found by the method the type defines
    assert report.how == "probe"
    assert [(ns.name, ns.handled) for ns in report.namespaces if ns.handled] == [("tensorlib", ["tensorlib.add",
                                                                                              "tensorlib.mean"])]
    assert report.total == sum(_totals().values())


def test_a_fallback_handles_everything():
    metadata = _example("toolkit_metadata_tensor.py")["MetadataTensor"]
    report = dispatch.coverage(metadata, protocol, factory=lambda: metadata([[1.0, 2.0]], metadata={}))
    assert report.how == "probe" and report.handled == report.total and report.fraction == 1.0


def test_json_markdown_text_and_fail_under(capsys):
    path = os.path.join(EXAMPLES, "toolkit_scalar_tensor.py") + ":ScalarTensor"
    assert cli(["coverage", path, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["handled"] == 2 and data["type"] == "ScalarTensor" and data["how"] == "table"
    tl = next(ns for ns in data["namespaces"] if ns["name"] == "tensorlib")
    assert tl["handled_functions"] == ["tensorlib.add", "tensorlib.mean"] and "tensorlib.mul" in tl["missing"]
    assert cli(["coverage", path, "--markdown"]) == 0
    md = capsys.readouterr().out
    assert "| namespace | handled | total | % |" in md and f"| `tensorlib` | 2 | {tl['total']} |" in md
    assert "### Partial signatures in `tensorlib`" in md
    assert cli(["coverage", path]) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[0] == "ScalarTensor: coverage of __torch_function__ (read from its table)"
    assert "missing in tensorlib: tensorlib.abs" in text and "more" in text
    assert cli(["coverage", path, "--fail-under", "50"]) == 1
    assert "is under 50%" in capsys.readouterr().err
    assert cli(["coverage", path, "--fail-under", "0.1"]) == 0


def test_cli_errors_name_the_problem(capsys):
    with pytest.raises(SystemExit, match="must look like MODULE:NAME"):
        cli(["coverage", "no_colon_here"])
    with pytest.raises(SystemExit, match="no such file"):
        cli(["coverage", "missing_file.py:X"])
    with pytest.raises(SystemExit, match="has no attribute 'Nope'"):
        cli(["coverage", "tensorlib:Nope"])
    with pytest.raises(SystemExit, match="is not a class"):
        cli(["coverage", "tensorlib:add"])
    with pytest.raises(SystemExit, match="does not define __torch_function__"):
        cli(["coverage", "collections:OrderedDict", "--protocol", "tensorlib.overrides:protocol"])
    with pytest.raises(SystemExit, match="cannot tell which protocol OrderedDict implements"):
        cli(["coverage", "collections:OrderedDict"])


def test_a_protocol_of_its_own_with_a_mis_signed_implementation():
    proto = dispatch.Protocol("__coverage_demo__")
    space = type(os)("demo_space")

    @proto.overridable(namespace=space)
    def area(shape, scale=1):
        return shape

    @proto.overridable(namespace=space)
    def perimeter(shape):
        return shape

    @proto.overridable(namespace=space)
    def name(shape, *, upper=False):
        return "plain"

    table = dispatch.Implementations(proto)

    class Square:
        __coverage_demo__ = classmethod(table.handler)

    table.implements(area)(lambda shape, scale=1: 1)
    table.implements(name, check=False)(lambda shape, *, upper=True: "square")
    report = dispatch.coverage(Square, proto)
    (ns,) = report.namespaces
    assert (ns.name, ns.total, ns.handled, ns.missing) == ("demo_space", 3, ["demo_space.area", "demo_space.name"],
                                                          ["demo_space.perimeter"])
    assert ns.mis_signed == {"demo_space.name": ["'upper' defaults to True, the public function's to False"]}

    class Probed:  # no table: every call is tried
        def __coverage_demo__(self, func, types, args, kwargs):
            if func is perimeter:
                raise ValueError("made-up arguments")  # raised from inside the handler: it took the call
            return NotImplemented if func is name else 4

    probed = dispatch.coverage(Probed, proto)
    assert probed.namespaces[0].handled == ["demo_space.area", "demo_space.perimeter"]
    with pytest.raises(AssertionError, match=r"not handled: demo_space.name"):
        assert_covers(Probed, [area, name], protocol=proto)
    with pytest.raises(AssertionError, match=r"mis-signed: demo_space.name: 'upper' defaults to True"):
        assert_covers(Square, [name], protocol=proto)
    assert assert_covers(Square, [area], protocol=proto, signatures=False).handled == 2
    with pytest.raises(AssertionError, match=r"handles 2 of 3 overridable functions \(66.7%\), under the 90.0%"):
        assert_covers(Square, min_fraction=0.9, protocol=proto, signatures=False)


def test_assert_covers_on_tensorlib_finds_the_protocol_itself():
    scalar = _example("toolkit_scalar_tensor.py")["ScalarTensor"]
    assert_covers(scalar, [tensorlib.add, tensorlib.mean])
    with pytest.raises(AssertionError, match="not handled: tensorlib.mul"):
        assert_covers(scalar, [tensorlib.mul, tensorlib.add])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert_covers(scalar, min_fraction=0.001)
