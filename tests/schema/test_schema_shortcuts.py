"""The checker's commonest cases, written out, against its general way.

A value whose container has one simple shape is checked by ``SchemaChecker.open``,
``string_start`` and ``Checks.quick`` without expanding its shapes (and an array or object
whose shape checks nothing but its type gets no frame at all). Wrapping every subschema in
``allOf: [...]`` makes each shape not simple, so that the same checks take the general way
(``Checks.begin``): both must report the same violations, at the same places, whole, one
character at a time and at random cuts, collected or raised.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest

import jsonsnap
from chunking import chunkings

Seen = tuple[int, int, int, str, str, tuple[str | int, ...]]

_NUMBER = {"type": "number"}
RECORDS: dict[str, Any] = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {
            "id": {"type": "integer", "minimum": 0},
            "name": {"type": "string"},
            "qty": {"type": "integer", "minimum": 0, "maximum": 500},
            "note": {"type": ["string", "null"]},
            "tags": {"type": "array", "items": {"type": "string"}},
            "dims": {
                "type": "array",
                "prefixItems": [_NUMBER, {"type": "array"}, {"type": "object"}],
                "minItems": 3,
                "maxItems": 3,
            },
        },
        "required": ["id", "name", "qty", "note", "tags", "dims"],
        "additionalProperties": False,
    },
}
_GOOD = {"id": 1, "name": "a b", "qty": 5, "note": None, "tags": ["x"], "dims": [1.5, [], {}]}


def _with(**changes: Any) -> dict[str, Any]:
    return {**_GOOD, **changes}


DOCUMENTS: tuple[Any, ...] = (
    [_GOOD, _GOOD],
    [_with(dims=[2, [1, None, {"a": [1]}], {"k": [True]}]), _with(id=-1)],
    [_with(dims=[1, {"not": "an array"}, {}]), _with(qty=501)],
    [_with(dims=[1, [], []]), _with(name=7)],
    [_with(dims=[1, [[[]]], {"deep": {"er": []}}, 4]), _with(tags=["x", 2])],
    [_with(dims=[1, []]), {"id": 2}],
    [_with(extra=1), _with(note="n", id=1.5)],
    [_with(dims="flat"), _with(tags={}), _with(note=[])],
    [{"dims": [1, [], {}], "name": "late", "zzz": [], "id": 3}],
    [_with(dims=[True, "s", 3])],
)


def _all_of(schema: Any) -> Any:
    """``schema`` with each of its subschemas wrapped in ``allOf`` (booleans kept as they
    are): the same checks, none of them simple."""
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for keyword, value in schema.items():
        if keyword == "properties":
            out[keyword] = {k: _all_of(v) for k, v in value.items()}
        elif keyword == "prefixItems":
            out[keyword] = [_all_of(v) for v in value]
        elif keyword in ("items", "additionalProperties"):
            out[keyword] = _all_of(value)
        else:
            out[keyword] = value
    return {"allOf": [out]}


def _seen(err: jsonsnap.SchemaError) -> Seen:
    return (err.pos, err.lineno, err.colno, err.keyword, err.msg, err.path)


def _reported(schema: jsonsnap.Schema, fragments: Sequence[str], mode: str) -> list[Seen]:
    parser = jsonsnap.Parser(schema=schema, on_violation=mode)
    try:
        for fragment in fragments:
            parser.feed(fragment)
            parser.snapshot()
        parser.close()
    except jsonsnap.SchemaError as exc:
        if mode == "raise":
            return [_seen(exc)]
    return [_seen(v) for v in parser.violations]


SIMPLE = jsonsnap.Schema(RECORDS)
GENERAL = jsonsnap.Schema(_all_of(RECORDS))


@pytest.mark.parametrize("index", range(len(DOCUMENTS)))
@pytest.mark.parametrize("mode", ["collect", "raise"])
def test_the_written_out_cases_report_as_the_general_way(index: int, mode: str) -> None:
    text = json.dumps(DOCUMENTS[index], indent=index % 2 or None)
    expected = _reported(GENERAL, [text], mode)
    assert (expected == []) == (index == 0)
    for label, fragments in chunkings(text, seed=index, rounds=3):
        assert _reported(SIMPLE, fragments, mode) == expected, label
        assert _reported(GENERAL, fragments, mode) == expected, label


def test_a_container_checked_for_its_type_only_is_still_checked_for_it() -> None:
    parser = jsonsnap.Parser(schema=SIMPLE, on_violation="collect")
    parser.feed(json.dumps([_with(dims=[1, {"x": [1, 2]}, [3]])]))
    assert [(v.keyword, v.path) for v in parser.violations] == [
        ("type", (0, "dims", 1)),
        ("type", (0, "dims", 2)),
    ]
