"""A checked parser reading elements and members a character at a time (``chars``, the
compiled build's default) against the same parser reading them by regex and against the
automaton alone (every fast path off).

The checker places a value read whole by ``chars`` from the automaton's ``quote``,
``number_at`` and ``at`` rather than from a match: every violation (keyword, path, position,
start, what was found, message), every snapshot and change record, every error (message,
position, line, column) and the state after it must be the same, each input fed whole, one
character at a time and at random splits, in both violation modes, with and without
``track_changes``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jsonsnap
from chunking import chunkings
from effort import examples
from jsonsnap._parse.fast import DEFAULT, GENERAL, FastPaths
from schema_cases import cases

#: Each reading with chars, and the same with the regexes: (chars, regex).
READERS: dict[str, tuple[FastPaths, FastPaths]] = {
    "alone": (
        replace(GENERAL, elements=True, members=True, chars=True),
        replace(GENERAL, elements=True, members=True),
    ),
    "all": (replace(DEFAULT, chars=True), replace(DEFAULT, chars=False)),
}


def _outcome(
    schema: Any,
    fragments: Sequence[str],
    fast: FastPaths,
    mode: str,
    track: bool,
    state_after_violation: bool = True,
) -> list[object]:
    """What a parser shows as it reads ``fragments``. ``state_after_violation``: with the
    snapshot after a raised violation (which the automaton alone leaves otherwise when the
    value is a member read whole: it began the value before it read it)."""
    parser = jsonsnap.Parser(
        schema=schema, on_violation=mode, track_changes=track, _fast_paths=fast
    )
    seen: list[object] = []
    try:
        for fragment in fragments:
            changed = parser.feed(fragment)
            seen.append((changed, parser.position, parser.snapshot(copy=True)))
            if track:
                seen.append([(type(r).__name__, r.path) for r in parser.changes()])
            seen.append(_violations(parser))
        seen.append(parser.close())
    except jsonsnap.SchemaError as err:
        seen.append(("schema", err.keyword, err.path, err.pos, err.start, err.found, str(err)))
        seen.append((err.lineno, err.colno))
        if state_after_violation:
            seen.append(parser.snapshot(copy=True))
    except jsonsnap.JSONDecodeError as err:
        seen.append(("error", err.pos, err.lineno, err.colno, err.msg, err.incomplete))
        seen.append(parser.snapshot(copy=True))
    seen.append(_violations(parser))
    return seen


def _violations(parser: jsonsnap.Parser) -> list[tuple[Any, ...]]:
    return [
        (v.keyword, v.path, v.pos, v.start, v.found, v.lineno, v.colno, str(v))
        for v in parser.violations
    ]


def _same(schema: Any, text: str, seed: int, rounds: int = 2) -> None:
    for label, fragments in chunkings(text, seed=seed, rounds=rounds):
        for mode in ("collect", "raise"):
            for track in (False, True):
                general = _outcome(schema, fragments, GENERAL, mode, track, False)
                for name, (chars, regex) in READERS.items():
                    got = _outcome(schema, fragments, chars, mode, track)
                    expected = _outcome(schema, fragments, regex, mode, track)
                    assert got == expected, (name, label, mode, track, text)
                    got = _outcome(schema, fragments, chars, mode, track, False)
                    assert got == general, (name, label, mode, track, text)


RECORD: dict[str, Any] = {
    "type": "object",
    "properties": {
        "id": {"type": "integer", "minimum": 0},
        "name": {"type": "string", "maxLength": 5},
        "price": {"type": "number", "exclusiveMaximum": 100},
        "ok": {"type": "boolean"},
        "note": {"type": ["string", "null"]},
        "kind": {"enum": ["a", "ab", "b"]},
        "dims": {"type": "array", "items": {"type": "number", "maximum": 9}, "maxItems": 3},
        "tags": {"type": "array", "items": {"type": "string", "pattern": "^x"}},
    },
    "required": ["id", "name"],
    "additionalProperties": False,
}

#: Documents that pass and that break the schema at each kind of value read whole.
DOCS = [
    '{"id": 1, "name": "abc", "price": 2.5, "ok": true, "note": null, "kind": "ab"}',
    '{"id": -1, "name": "abcdef", "price": 100, "ok": 1, "note": false, "kind": "c"}',
    '{ "id" : 12 ,\n "name":"x", "dims": [1, 2.5e0, 10, 3], "tags": ["xa", "y", "x"] }',
    '[{"id": 1}, {"zz": 1, "id": 2, "name": "n"}]',
    '{"id": 1, "name": "a", "extra": 5, "other": "s", "third": [1]}',
    '{"id": 1, "name": "a", "id": true, "name": null}',
    '{"dims": [true, null, "s", 1e400], "tags": [1, "x\\u0062", "xy"]}',
    '{"id": 1, "name": "a"} x',
    '{"id": 1, "name": "a", "ok": tru}',
    '{"id": 01}',
    '{"id": 1, "name": "ab\\ncd", "kind": "a\\u0062"}',
    '{"kind": "a", "kind": "b", "kind": "ba"}',
]


@pytest.mark.parametrize("text", DOCS)
@pytest.mark.parametrize("schema", [RECORD, {"type": "array", "items": RECORD}])
def test_table_inputs_are_checked_alike(schema: Any, text: str) -> None:
    _same(schema, text, seed=len(text))


def test_chars_reads_the_checked_members() -> None:
    # The members are read by chars (the parser keeps it), placed where the text has them:
    # the unknown key at its first character, the number over the bound at the character
    # that ends it.
    text = '{"id": 1, "name": "a", "extra": 5,\n "price": 100.5}'
    fast = READERS["alone"][0]
    parser = jsonsnap.Parser(schema=RECORD, on_violation="collect", _fast_paths=fast)
    assert parser._fast.chars
    parser.feed(text)
    assert [(v.keyword, v.path, v.pos, v.lineno, v.colno) for v in parser.violations] == [
        ("additionalProperties", (), text.index("extra"), 1, text.index("extra") + 1),
        ("exclusiveMaximum", ("price",), text.index("}"), 2, text.index("}") - text.index("\n")),
    ]


@settings(max_examples=examples(100, default=40), deadline=None)
@given(case=cases(), seed=st.integers(0, 2**16))
def test_generated_schemas_are_checked_alike(case: tuple[Any, str], seed: int) -> None:
    schema, text = case
    _same(schema, text, seed, rounds=1)
