"""The op table covers tensorlib: every overridable function is in the table, a known non-differentiable op,
or the in-place variant of a table entry; and every entry is public and has samples."""

from __future__ import annotations

import tensorlib

from tests.ops.opinfo import BY_NAME, NOT_DIFFERENTIABLE, OPS


def public_names() -> set[str]:
    from tensorlib.overrides import get_overridable_functions

    overridable = get_overridable_functions()
    return {f.__name__ for f in overridable[tensorlib]} | {
        "special." + f.__name__ for f in overridable[tensorlib.special]
    }


def test_every_differentiable_op_has_an_entry() -> None:
    missing = sorted(
        n for n in public_names()
        if n not in BY_NAME and n not in NOT_DIFFERENTIABLE and not (n.endswith("_") and n[:-1] in BY_NAME)
    )
    assert not missing, f"public ops with no OpInfo entry (add one, or list them as not differentiable): {missing}"


def test_table_names_are_public() -> None:
    names = public_names()
    assert not sorted(set(BY_NAME) - names)
    assert not sorted(NOT_DIFFERENTIABLE - names)
    assert not sorted(NOT_DIFFERENTIABLE & set(BY_NAME))


def test_entries_have_samples() -> None:
    for info in OPS:
        assert info.samples, info.name
