"""Feeding a parser and reading how it went: snapshots that must grow, how one parse ended, and
what it showed and said at each fragment."""

from __future__ import annotations

import copy
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


def observe(parser: jsonsnap.Parser, fragments: Sequence[str]) -> list[Any]:
    """What a parser shows and says, fragment by fragment (what ``feed()`` returns, the
    snapshot, the position, the violations so far; or the error), then at ``close()``."""
    seen: list[Any] = []
    for fragment in fragments:
        try:
            changed = parser.feed(fragment)
        except (jsonsnap.SchemaError, jsonsnap.JSONDecodeError) as err:
            seen.append(described(err))
            return seen
        violations = [described(v) for v in parser.violations]
        seen.append((changed, copy.deepcopy(parser.snapshot()), parser.position, violations))
    try:
        seen.append(("closed", parser.close()))
    except (jsonsnap.SchemaError, jsonsnap.JSONDecodeError) as err:
        seen.append(described(err))
    return seen


def described(err: jsonsnap.SchemaError | jsonsnap.JSONDecodeError) -> tuple[Any, ...]:
    """An error with every field: a violation's message, keyword, place, path...; a JSON
    error's message, position, line and column."""
    if isinstance(err, jsonsnap.SchemaError):
        return ("schema", str(err), sorted(vars(err).items()))
    return ("json", str(err), err.pos, err.lineno, err.colno)
