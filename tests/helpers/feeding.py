"""Feeding a parser and reading how it went: snapshots that must grow, and how one parse ended."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

import jsonsnap
from values import NOTHING, diff, grows


def snap(parser: jsonsnap.Parser) -> Any:
    """An independent copy of the parser's snapshot; NOTHING when nothing is shown yet."""
    return parser.snapshot(NOTHING, copy=True)


def feed_growing(parser: jsonsnap.Parser, fragments: Sequence[str]) -> Any:
    """Feed ``fragments``, checking that each snapshot grows the one before it (settled: only
    the last member of each container may still change); return the last snapshot."""
    previous: Any = NOTHING
    fed = ""
    for fragment in fragments:
        parser.feed(fragment)
        fed += fragment
        current = snap(parser)
        problem = grows(previous, current, settled=True)
        assert problem is None, (fed, previous, current, problem)
        previous = current
    return previous


class Outcome(NamedTuple):
    """How one parse ended: the final value (NOTHING on error), the error, and the repairs."""

    value: Any
    error: jsonsnap.JSONDecodeError | None
    repairs: list[jsonsnap.Repair]


def parse(fragments: Iterable[str], **options: Any) -> Outcome:
    """Feed ``fragments`` to a new ``Parser(**options)`` and close it; any exception but
    ``JSONDecodeError`` propagates."""
    parser = jsonsnap.Parser(**options)
    try:
        for fragment in fragments:
            parser.feed(fragment)
        value = parser.close()
    except jsonsnap.JSONDecodeError as err:
        assert isinstance(err.pos, int) and isinstance(err.incomplete, bool)
        return Outcome(NOTHING, err, list(parser.repairs))
    return Outcome(value, None, list(parser.repairs))


def same_outcome(text: str, whole: Outcome, cut: Outcome, fragments: Sequence[str]) -> None:
    """``cut`` (``text`` fed as ``fragments``) ended as ``whole`` (``text`` fed at once)."""
    if whole.error is not None or cut.error is not None:
        assert whole.error is not None and cut.error is not None, (text, fragments, whole, cut)
        assert whole.error.pos == cut.error.pos, (text, fragments, whole.error, cut.error)
        return
    assert diff(whole.value, cut.value) is None, (text, fragments, whole.value, cut.value)
    assert whole.repairs == cut.repairs, (text, fragments, whole.repairs, cut.repairs)
