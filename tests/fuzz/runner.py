"""The fuzz budget and its figures.

``TENSORLIB_FUZZ_EXAMPLES`` unset: a few derandomized calls per callee (the CI budget, the same calls every
run). Set to N: N random calls per callee. The figures of a run (calls made, internal errors, agreement with
torch) are printed at the end of the pytest session (``tests/fuzz/conftest.py``) and written as JSON to
``TENSORLIB_FUZZ_REPORT`` when that is set.
"""

from __future__ import annotations

import contextlib
import os
import warnings
import zlib
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

from hypothesis import HealthCheck, Phase, given, seed, settings, strategies as st

_env = os.environ.get("TENSORLIB_FUZZ_EXAMPLES")
EXAMPLES: int | None = int(_env) if _env else None
CI_EXAMPLES = 4
DIFFERENTIAL_CI_EXAMPLES = 3


@dataclass
class Stats:
    calls: int = 0
    internal: list = field(default_factory=list)
    compared: int = 0
    agreed: int = 0
    disagreements: dict = field(default_factory=dict)  # name -> [description]
    known: int = 0  # disagreements explained (torch's limitations and internal errors, the order of checks)
    verdicts: dict = field(default_factory=dict)

    def figures(self) -> dict:
        return {
            "calls": self.calls, "internal_errors": len(self.internal), "compared_with_torch": self.compared,
            "agreed_with_torch": self.agreed,
            "agreement_percent": round(100 * self.agreed / self.compared, 2) if self.compared else None,
            "explained_disagreements": self.known, "verdicts": self.verdicts,
            "callees_with_disagreements": len(self.disagreements),
        }


STATS = Stats()


def fuzz(one: Callable[[Any], None], ci_examples: int = CI_EXAMPLES, name: str = "") -> None:
    """Run ``one(draw)`` for the budget's number of examples, warnings silenced.

    In CI the examples are fixed: seeded by ``name`` (each callee its own calls, the same ones every run).
    """

    @settings(max_examples=EXAMPLES or ci_examples, deadline=None, database=None,
              suppress_health_check=list(HealthCheck), phases=[Phase.generate])
    @given(st.data())
    def run(data: Any) -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            one(data.draw)

    if EXAMPLES is None:
        with _no_source_constants():
            seed(zlib.crc32(name.encode()))(run)()
    else:
        run()


@contextlib.contextmanager
def _no_source_constants() -> Iterator[None]:
    """Hypothesis now and then draws a constant found in the source of the modules loaded so far, so a seeded
    run depends on what the session imported before it; the CI calls must not, so no constants are drawn."""
    provider = getattr(getattr(_hypothesis_internal(), "providers", None), "HypothesisProvider", None)
    original = getattr(provider, "_maybe_draw_constant", None)
    if original is None:
        yield
        return
    provider._maybe_draw_constant = lambda self, *args, **kwargs: None  # type: ignore[union-attr]
    try:
        yield
    finally:
        provider._maybe_draw_constant = original  # type: ignore[union-attr]


def _hypothesis_internal() -> Any:
    try:
        import hypothesis.internal.conjecture as conjecture
        import hypothesis.internal.conjecture.providers  # noqa: F401
    except ImportError:  # another version's layout: seeded runs may then vary with what was imported
        return None
    return conjecture
