"""A tolerant-mode table entry checked under every chunking: its value, its repairs, its error.

Every entry is fed through every chunking (whole, one character at a time, 2-way splits, random
splits; see chunking.py): the final value, the repairs (kind, position, line, column) and the
error (message and position) must not depend on where the text was cut, and every snapshot must
grow the one before it (nothing shown is taken back or changes type).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

import jsonsnap
from chunking import chunkings
from values import NOTHING, diff, grows

Repairs = list[tuple[str, int]]


def stream(
    fragments: Sequence[str | bytes], **options: Any
) -> tuple[Any, list[jsonsnap.Repair], list[Any]]:
    """Feed ``fragments`` to a parser; return its final value, its repairs and its snapshots
    (each must grow the one before)."""
    parser = jsonsnap.Parser(**options)
    shown: list[Any] = []
    previous: object = NOTHING
    for fragment in fragments:
        parser.feed(fragment)
        current = parser.snapshot(NOTHING, copy=True)
        if not options.get("multiple_values"):
            problem = grows(previous, current)
            assert problem is None, (fragments, problem)
        shown.append(current)
        previous = current
    value = parser.close()
    if not options.get("multiple_values") and previous is not NOTHING:
        assert grows(previous, value) is None, (fragments, previous, value)
    return value, parser.repairs, shown


def check(text: str, expected: Any, repairs: Repairs, **options: Any) -> None:
    """``text`` gives ``expected`` with ``repairs`` (kind, position) under every chunking, and
    the same lines and columns as the whole text gives."""
    options.setdefault("repair", True)
    whole: list[jsonsnap.Repair] | None = None
    for label, fragments in chunkings(text):
        value, made, _ = stream(fragments, **options)
        assert diff(expected, value) is None, (label, diff(expected, value))
        assert [(r.kind, r.pos) for r in made] == repairs, (label, made)
        if whole is None:
            whole = made
        assert made == whole, label
    assert whole is not None
    for r in whole:  # line and column agree with the position
        before = text[: r.pos]
        assert r.lineno == before.count("\n") + 1, r
        assert r.colno == r.pos - (before.rfind("\n") + 1) + 1, r


def check_error(text: str, pos: int, message: str, **options: Any) -> None:
    """``text`` fails at ``pos`` with ``message`` under every chunking, in feed() or close()."""
    options.setdefault("repair", True)
    for label, fragments in chunkings(text):
        parser = jsonsnap.Parser(**options)
        with pytest.raises(jsonsnap.JSONDecodeError) as info:
            for fragment in fragments:
                parser.feed(fragment)
            parser.close()
        assert (info.value.pos, info.value.msg) == (pos, message), (label, info.value)
