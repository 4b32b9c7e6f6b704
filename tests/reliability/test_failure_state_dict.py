"""A failed ``Module.load_state_dict`` changes nothing and reports every problem at once, in torch's words.

torch reports missing keys, unexpected keys and size mismatches in one RuntimeError ("Error(s) in loading
state_dict for Linear:\\n\\tMissing key(s) in state_dict: ..."), strict or not (size mismatches fail either
way); but it copies the valid entries before it raises, so a failed load leaves the module half-loaded.
tensorlib checks every entry before it copies the first: a load that raises leaves every parameter and buffer
as it was (values and version counters).
"""

from __future__ import annotations

import numpy as np
import pytest

import tensorlib
from tensorlib import nn


def _snapshot(module):
    return {k: (v._data.copy(), v._version) for k, v in module.state_dict(keep_vars=True).items()}


def _assert_unchanged(module, snapshot):
    now = module.state_dict(keep_vars=True)
    assert set(now) == set(snapshot)
    for k, (data, version) in snapshot.items():
        assert np.array_equal(now[k]._data, data), f"{k} changed"
        assert now[k]._version == version, f"{k}'s version changed"


def _linear(L):
    L.manual_seed(0)
    return L.nn.Linear(3, 2)


def _net(L):
    L.manual_seed(0)
    return L.nn.Sequential(L.nn.Linear(2, 2), L.nn.BatchNorm1d(2))


# (module, the state dict to load (from the module's own), strict, torch's message after the header)
CASES = {
    "missing, unexpected and a size at once": (_linear, lambda L, sd: {"weight": L.zeros(4, 3), "extra": L.zeros(1)},
                                               True),
    "missing key": (_linear, lambda L, sd: {"weight": L.zeros(2, 3)}, True),
    "unexpected key": (_linear, lambda L, sd: {**sd, "a.b": L.zeros(1)}, True),
    "size mismatch": (_linear, lambda L, sd: {"weight": L.zeros(2, 3), "bias": L.zeros(5)}, True),
    "size mismatch, not strict": (_linear, lambda L, sd: {"weight": L.zeros(2, 3), "bias": L.zeros(5)}, False),
    "every problem, not strict": (_linear, lambda L, sd: {"weight": L.zeros(4, 3), "extra": L.zeros(1)}, False),
    "a value that is not a tensor": (_linear, lambda L, sd: {"weight": [1, 2], "bias": L.zeros(2)}, True),
    "a buffer of the wrong size, a missing parameter": (
        _net, lambda L, sd: {k: (L.zeros(3) if k == "1.running_mean" else v) for k, v in sd.items() if k != "0.bias"},
        True),
}


@pytest.mark.parametrize("case", list(CASES))
def test_failed_load_changes_nothing(case):
    make, state, strict = CASES[case]
    module = make(tensorlib)
    sd = state(tensorlib, {k: v.detach().clone() + 1 for k, v in module.state_dict().items()})
    before = _snapshot(module)
    with pytest.raises(RuntimeError, match=r"^Error\(s\) in loading state_dict for \w+:\n\t"):
        module.load_state_dict(sd, strict=strict)
    _assert_unchanged(module, before)


@pytest.mark.parametrize("case", list(CASES))
def test_failed_load_reports_as_torch(case):
    torch = pytest.importorskip("torch")
    make, state, strict = CASES[case]
    messages = []
    for L in (tensorlib, torch):
        module = make(L)
        sd = state(L, {k: v.detach().clone() + 1 for k, v in module.state_dict().items()})
        with pytest.raises(RuntimeError) as info:
            module.load_state_dict(sd, strict=strict)
        messages.append(str(info.value).replace("torch.", "tensorlib."))
    assert messages[0] == messages[1]


def test_every_problem_in_one_message():
    module = _linear(tensorlib)
    with pytest.raises(RuntimeError) as info:
        module.load_state_dict({"weight": tensorlib.zeros(4, 3), "extra": tensorlib.zeros(1)})
    assert str(info.value) == (
        "Error(s) in loading state_dict for Linear:\n"
        '\tMissing key(s) in state_dict: "bias". \n'
        '\tUnexpected key(s) in state_dict: "extra". \n'
        "\tsize mismatch for weight: copying a param with shape tensorlib.Size([4, 3]) from checkpoint, the shape in "
        "current model is tensorlib.Size([2, 3])."
    )


def test_a_load_that_succeeds_still_copies():
    module = _linear(tensorlib)
    result = module.load_state_dict({"weight": tensorlib.ones(2, 3)}, strict=False)
    assert result.missing_keys == ["bias"] and result.unexpected_keys == []
    assert bool((module.weight == 1).all())
    other = _linear(tensorlib)
    other.load_state_dict({"weight": tensorlib.full((2, 3), 2.0), "bias": tensorlib.full((2,), 3.0)}, assign=True)
    assert bool((other.weight == 2).all()) and bool((other.bias == 3).all())
    assert isinstance(other.weight, nn.Parameter)


def test_torch_itself_copies_part_of_a_failed_load():
    """The reason for this file: torch's failed load is not all-or-nothing (checked so that a change in torch shows)."""
    torch = pytest.importorskip("torch")
    module = _linear(torch)
    weight = module.weight.detach().clone()
    with pytest.raises(RuntimeError):
        module.load_state_dict({"weight": torch.zeros(2, 3)})  # bias missing
    assert not torch.equal(module.weight.detach(), weight)
