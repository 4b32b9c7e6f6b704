"""Every assignment to a tensor's ``_data`` also resets its cached shape (the ``_size`` slot).

``Tensor.shape`` returns ``_size`` without looking at the array when it is set
(see ``Protocol.wrap_property(cached=...)``): code that gives a tensor a new
array and forgets the cache would make ``shape`` lie. This reads every source
file, generated-code templates included, so a new assignment cannot forget.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "tensorlib"
_LHS = re.compile(r"^\s*[\"']?\s*([\w.]+(?:\s*,\s*[\w.]+)*)\s*=(?!=)")  # targets of an assignment statement


def _assignments_without_reset(text: str) -> list[tuple[int, str]]:
    lines = text.splitlines()
    bad = []
    for i, line in enumerate(lines):
        m = _LHS.match(line.split("#", 1)[0])
        if m is None:
            continue
        for target in (t.strip() for t in m.group(1).split(",")):
            if not target.endswith("._data"):
                continue
            owner = target[: -len("._data")]
            window = "\n".join(lines[i:i + 2])
            if not re.search(rf"(?m)^\s*[\"']?\s*(?:[\w.]+\s*,\s*)*{re.escape(owner)}\._size\b[^=\n]*=(?!=)", window):
                bad.append((i + 1, line.strip()))
    return bad


def test_every_data_assignment_resets_the_cached_shape():
    problems = []
    for path in sorted(ROOT.rglob("*.py")):
        for lineno, line in _assignments_without_reset(path.read_text()):
            problems.append(f"{path.relative_to(ROOT.parent)}:{lineno}: {line}")
    assert not problems, "assignments to _data with no _size reset on the same or next line:\n" + "\n".join(problems)


def test_the_check_sees_assignments_in_every_form():
    assert _assignments_without_reset("t._data = a\n") == [(1, "t._data = a")]
    assert _assignments_without_reset("p.grad._data, p.grad._size = g, None\n") == []
    assert _assignments_without_reset("t._data = a\nt._size = None\n") == []
    assert _assignments_without_reset("t._data = a\nu._size = None\n") == [(1, "t._data = a")]
    assert _assignments_without_reset("if t._data == a:\n    pass\n") == []
    assert _assignments_without_reset("f(t._data, out=r)\nv, i = g(x._data, k=1)\n") == []
    assert _assignments_without_reset("a, t._data = f()\n") == [(1, "a, t._data = f()")]
    assert _assignments_without_reset('"_t._data = _r"\n') == [(1, '"_t._data = _r"')]
