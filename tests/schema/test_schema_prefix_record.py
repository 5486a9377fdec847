"""A compiled schema keeps, per shape, where the candidates that begin with a prefix lie (the
allowed keys of a closed object, the strings of an ``enum``), for the prefixes a key or string
has been seen to begin with (``Leaf.narrow``). That record is shared by every parser of the
schema: held here to a schema compiled anew for each parser, with keys and strings that part
from the candidates at each of their characters, fed whole, one character at a time and at
every 2-way and random split, in both ``on_violation`` modes; and its size is capped.
"""

from __future__ import annotations

from typing import Any

import pytest

from chunking import chunkings
from feeding import observe
from jsonsnap import Parser, Schema
from jsonsnap._schema.strings import RANGES

#: Keys that share beginnings, a closed object of them, and an enum of strings that do too.
KEYS = ["id", "idx", "name", "names", "namespace", "note", "qty", "tags"]
COLOURS = ["red", "redder", "reddish", "green", "greenish", "blue"]
SCHEMA: dict[str, Any] = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {
            **{key: {"type": "integer"} for key in KEYS},
            "colour": {"enum": COLOURS},
        },
        "additionalProperties": False,
    },
}

#: Records with allowed keys, with keys and strings that part from every candidate at their
#: first, a middle and their last character, and with one a candidate's beginning only.
RECORDS = [
    '{"id": 1, "names": 2, "colour": "reddish"}',
    '{"namespace": 3, "colour": "greenish", "qty": 4}',
    '{"nam": 1}',
    '{"namx": 1}',
    '{"nb": 1}',
    '{"xid": 1}',
    '{"idxx": 1}',
    '{"colour": "redd"}',
    '{"colour": "bluer"}',
    '{"colour": "gre"}',
    '{"colour": "x"}',
    '{"note": 5, "tags": 6, "colour": "blue"}',
]


@pytest.mark.parametrize("mode", ["raise", "collect"])
@pytest.mark.parametrize("record", RECORDS)
def test_a_shared_schema_says_what_a_new_one_says(mode: str, record: str) -> None:
    shared = Schema(SCHEMA)
    # (The record filled first by every other record, cut every way.)
    for other in RECORDS:
        for _, fragments in chunkings(f"[{other}]", rounds=1):
            observe(Parser(schema=shared, on_violation=mode), fragments)
    doc = f"[{record}, {record}]"
    for label, fragments in chunkings(doc, rounds=2):
        expected = observe(Parser(schema=Schema(SCHEMA), on_violation=mode), fragments)
        got = observe(Parser(schema=shared, on_violation=mode), fragments)
        assert got == expected, label


def test_a_violation_is_found_once_the_record_holds_its_prefix() -> None:
    # A key that goes on past every candidate, read after the same beginning was recorded.
    shared = Schema(SCHEMA)
    observe(Parser(schema=shared), ['[{"names', '": 1}]'])
    parser = Parser(schema=shared, on_violation="collect")
    parser.feed('[{"names')
    parser.feed('x": 1}]')
    (fault,) = parser.violations
    assert fault.keyword == "additionalProperties"
    assert fault.found == "namesx"
    assert fault.pos == len('[{"namesx') - 1


def test_the_record_is_capped() -> None:
    # Many candidates, each read as a string of its own beginning only: a prefix each.
    words = [f"w{i:05d}" for i in range(3 * RANGES)]
    schema = Schema({"type": "array", "items": {"enum": words}})
    parser = Parser(schema=schema, on_violation="collect")
    parser.feed("[")
    for i, word in enumerate(words):
        parser.feed(("" if i == 0 else ", ") + '"')
        parser.feed(word)
        parser.feed('"')
    parser.feed("]")
    assert parser.close() == words
    assert parser.violations == []
    ranges = schema.root.items.strings_ranges  # type: ignore[union-attr]
    assert ranges is not None
    assert 0 < len(ranges) <= RANGES
