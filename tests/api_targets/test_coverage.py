"""Coverage of PyTorch 2.13's public names, per namespace (the lists are the copy kept in this directory).

Every namespace is held to the names it already has (a floor that only rises as names land), and namespaces
that reached the target are held to it. ``python -m tests.api_targets.coverage --missing`` lists what is left.
"""

from __future__ import annotations

import pytest

from tests.api_targets import coverage

# namespace -> names tensorlib had when the floor was last raised (raise it when names land; never lower it)
FLOORS = {
    "torch": 425,
    "torch.Tensor": 604,
    "torch.autograd": 18,
    "torch.distributions": 67,
    "torch.fft": 20,
    "torch.linalg": 41,
    "torch.nn": 163,
    "torch.nn.functional": 128,
    "torch.nn.init": 14,
    "torch.nn.utils": 18,
    "torch.optim": 16,
    "torch.optim.lr_scheduler": 16,
    "torch.special": 56,
    "torch.testing": 2,
    "torch.utils.data": 19,
}
# namespaces that reached the target (add one when it does)
AT_TARGET = {
    "torch",
    "torch.Tensor",
    "torch.autograd",
    "torch.distributions",
    "torch.fft",
    "torch.linalg",
    "torch.nn",
    "torch.nn.functional",
    "torch.nn.init",
    "torch.nn.utils",
    "torch.optim",
    "torch.optim.lr_scheduler",
    "torch.special",
    "torch.testing",
    "torch.utils.data",
}
REPORT = coverage.report()


def test_every_target_list_has_a_floor():
    assert sorted(FLOORS) == coverage.namespaces()


@pytest.mark.parametrize("namespace", sorted(FLOORS))
def test_no_namespace_loses_names(namespace):
    has, total = REPORT[namespace]
    assert has >= FLOORS[namespace], f"{namespace}: {has} of {total}, below the floor {FLOORS[namespace]}; " \
        f"missing: {coverage.missing(namespace)}"


@pytest.mark.parametrize("namespace", sorted(AT_TARGET))
def test_namespaces_at_the_target_stay_there(namespace):
    has, total = REPORT[namespace]
    assert has >= coverage.TARGET * total


def test_missing_lists_what_the_module_lacks():
    assert "fft" in coverage.targets("torch.fft")
    assert coverage.missing("torch.testing") == []
    assert set(coverage.missing("torch")) <= set(coverage.targets("torch"))
