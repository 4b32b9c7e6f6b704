"""tensorlib.overrides.TraceMode: every public call under it is recorded (name, argument and result summaries,
time, errors), summarized per function, and written as a Chrome/Perfetto trace-event file."""

from __future__ import annotations

import json

import pytest

import tensorlib
import tensorlib.nn.functional as F
from tensorlib.overrides import TraceMode


def test_calls_are_recorded_with_argument_and_result_summaries():
    x = tensorlib.ones(3, 4, requires_grad=True)
    with TraceMode() as trace:
        y = F.relu(x * 2).sum()
        y.backward()
        shape = x.shape
    assert shape == (3, 4) and x.grad.tolist() == [[2.0] * 4] * 3  # results are the real ones
    names = [r.name for r in trace.records]
    assert names == ["tensorlib.Tensor.mul", "tensorlib.nn.functional.relu", "tensorlib.Tensor.sum",
                     "tensorlib.Tensor.backward", "tensorlib.Tensor.shape.__get__"]
    mul = trace.records[0]
    assert (mul.args, mul.kwargs, mul.result, mul.error) == (["float32[3, 4]", "int"], {}, "float32[3, 4]", None)
    assert trace.records[2].result == "float32[]"
    assert all(r.duration_ns >= 0 for r in trace.records)
    assert [r.start_ns for r in trace.records] == sorted(r.start_ns for r in trace.records)


def test_a_failing_call_is_recorded_and_still_raises():
    two, parts = tensorlib.ones(1), tensorlib.zeros(2)
    with TraceMode() as trace:
        with pytest.raises(TypeError):
            tensorlib.add(two, "a")
        tensorlib.cat([two, parts], dim=-1)
    failed, cat = trace.records
    assert failed.name == "tensorlib.add" and failed.error == "TypeError" and failed.result == "-"
    assert cat.args == ["[float32[1], float32[2]]", "int"] and cat.kwargs == {}  # handlers see dim by position


def test_summary_counts_calls_per_function():
    a = tensorlib.ones(2)
    with TraceMode() as trace:
        for _ in range(3):
            a = a + 1
        tensorlib.exp(a)
    totals = {name: calls for name, calls, _ in trace.totals()}
    assert totals == {"tensorlib.Tensor.add": 3, "tensorlib.exp": 1}
    lines = trace.summary().splitlines()
    assert lines[0].split() == ["function", "calls", "total", "ms", "mean", "us"]
    assert lines[-1].split()[:2] == ["all", "4"]
    assert len(trace.summary(top=1).splitlines()) == 3


def test_chrome_trace_follows_the_trace_event_format(tmp_path):
    t = tensorlib.ones(2)
    with TraceMode() as trace:
        t.mul(3).sum()
    path = trace.save_chrome_trace(tmp_path / "trace.json")
    doc = json.loads(open(path).read())
    assert set(doc) == {"traceEvents", "displayTimeUnit"} and doc["displayTimeUnit"] in ("ms", "ns")
    events = doc["traceEvents"]
    assert [e["name"] for e in events] == ["tensorlib.Tensor.mul", "tensorlib.Tensor.sum"]
    for e in events:  # complete events: name, phase X, timestamps and durations in microseconds, process and thread
        assert e["ph"] == "X" and isinstance(e["name"], str) and isinstance(e["cat"], str)
        assert isinstance(e["ts"], (int, float)) and e["ts"] >= 0
        assert isinstance(e["dur"], (int, float)) and e["dur"] >= 0
        assert isinstance(e["pid"], int) and isinstance(e["tid"], int) and isinstance(e["args"], dict)
    assert events[0]["ts"] == 0 and events[1]["ts"] >= events[0]["ts"]


def test_an_empty_trace_and_nesting_under_another_mode():
    assert TraceMode().chrome_trace() == {"traceEvents": [], "displayTimeUnit": "ms"}

    class Doubling(tensorlib.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            return out * 2 if func is tensorlib.sum else out

    three = tensorlib.ones(3)
    with TraceMode() as outer, Doubling():
        total = tensorlib.sum(three)
    assert total.item() == 6.0  # the inner mode ran, and its own calls reached the outer one
    assert [r.name for r in outer.records] == ["tensorlib.sum", "tensorlib.Tensor.mul"]
