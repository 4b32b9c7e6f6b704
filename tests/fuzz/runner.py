"""The fuzz budget and its figures.

``TENSORLIB_FUZZ_EXAMPLES`` unset: a few derandomized calls per callee (the CI budget, the same calls every
run). Set to N: N random calls per callee. The figures of a run (calls made, internal errors, agreement with
torch) are printed at the end of the pytest session (``tests/fuzz/conftest.py``) and written as JSON to
``TENSORLIB_FUZZ_REPORT`` when that is set.
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable

from hypothesis import HealthCheck, Phase, given, settings, strategies as st

_env = os.environ.get("TENSORLIB_FUZZ_EXAMPLES")
EXAMPLES: int | None = int(_env) if _env else None
CI_EXAMPLES = 5
DIFFERENTIAL_CI_EXAMPLES = 4


@dataclass
class Stats:
    calls: int = 0
    internal: list = field(default_factory=list)
    compared: int = 0
    agreed: int = 0
    disagreements: dict = field(default_factory=dict)  # name -> [description]
    known: int = 0  # disagreements explained by KNOWN or a torch limitation

    def figures(self) -> dict:
        return {
            "calls": self.calls, "internal_errors": len(self.internal), "compared_with_torch": self.compared,
            "agreed_with_torch": self.agreed,
            "agreement_percent": round(100 * self.agreed / self.compared, 2) if self.compared else None,
            "explained_disagreements": self.known,
            "callees_with_disagreements": len(self.disagreements),
        }


STATS = Stats()


def fuzz(one: Callable[[Any], None], ci_examples: int = CI_EXAMPLES) -> None:
    """Run ``one(draw)`` for the budget's number of examples (derandomized in CI), warnings silenced."""

    @settings(max_examples=EXAMPLES or ci_examples, derandomize=EXAMPLES is None, deadline=None, database=None,
              suppress_health_check=list(HealthCheck), phases=[Phase.generate])
    @given(st.data())
    def run(data: Any) -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            one(data.draw)

    run()
