"""The schema checker against big schemas and many violations, and where it reports what one
fragment breaks twice: one regression test per case (the classes are generated in
``test_schema_edges``).

Costs are shown by counting operations, never by timing: the work per string against an enum
(or per key of a closed object) must not grow with the number of values allowed, and
``uniqueItems`` must read each element once, however deep it is nested.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import pytest

import jsonsnap
from chunking import chunkings
from jsonsnap import Parser, Schema, SchemaError
from jsonsnap._schema import equality as _schema

Seen = tuple[int, str, str, tuple[str | int, ...]]


def _violations(schema: Any, fragments: Sequence[str]) -> list[Seen]:
    parser = Parser(schema=schema, on_violation="collect")
    for fragment in fragments:
        parser.feed(fragment)
    return [(v.pos, v.keyword, v.msg, v.path) for v in parser.violations]


def _same_at_every_cut(schema: Any, doc: str) -> list[Seen]:
    whole = _violations(schema, [doc])
    for label, fragments in chunkings(doc):
        assert _violations(schema, fragments) == whole, label
    return whole


# ---------------------------------------------------------------------------- big enums


class Counted(str):
    """A string that counts what is asked of it (the candidates' side of a comparison)."""

    calls = 0

    def __getitem__(self, index: Any) -> str:
        Counted.calls += 1
        return str.__getitem__(self, index)

    def startswith(self, *args: Any) -> bool:
        Counted.calls += 1
        return str.startswith(self, *args)

    def __eq__(self, other: object) -> bool:
        Counted.calls += 1
        return str.__eq__(self, other)

    def __lt__(self, other: str) -> bool:
        Counted.calls += 1
        return str.__lt__(self, other)

    __hash__ = str.__hash__


def _work(against: str, size: int, feed_by: int) -> int:
    """The candidate operations that 50 strings (half of them allowed) cost against an enum
    of ``size`` values, or 50 keys against a closed object of ``size`` properties (beside
    ``patternProperties`` too), fed ``feed_by`` characters at a time."""
    allowed = [Counted(f"value-{i:06d}") for i in range(size)]
    strings = [f"value-{i * 7919 % size:06d}" if i % 2 else f"value-x{i}" for i in range(50)]
    if against != "enum":
        props: dict[str, Any] = {key: {} for key in allowed}
        closed = {"type": "object", "properties": props, "additionalProperties": False}
        if against == "patterns":
            closed["patternProperties"] = {"^z": {}}
        schema = Schema(closed)
        doc = json.dumps(dict.fromkeys(strings, 1))
    else:
        schema = Schema({"type": "array", "items": {"enum": allowed}})
        doc = json.dumps(strings)
    parser = Parser(schema=schema, on_violation="collect")
    Counted.calls = 0
    for i in range(0, len(doc), feed_by):
        parser.feed(doc[i : i + feed_by])
    assert len(parser.violations) == 25
    return Counted.calls


@pytest.mark.parametrize("feed_by", [1, 5, 10_000])
@pytest.mark.parametrize("against", ["enum", "closed", "patterns"])
def test_a_string_costs_no_more_for_more_allowed_values(against: str, feed_by: int) -> None:
    small, big = _work(against, 1_000, feed_by), _work(against, 16_000, feed_by)
    assert big < 2 * small, (small, big)  # a bisection: log 16,000 / log 1,000 is 1.4


def test_other_enum_values_are_looked_up_not_compared_one_by_one() -> None:
    values: list[Any] = [*range(20_000), [1, {"a": 1.0}], {"b": [True]}]
    schema = Schema({"type": "array", "items": {"enum": values}})
    doc = '[7, 7.0, -1, 19999, [1, {"a": 1}], {"b": [true]}, {"b": [1]}, true, 1e300]'
    calls = 0
    real = _schema.json_equal

    def counted(a: Any, b: Any) -> bool:
        nonlocal calls
        calls += 1
        return real(a, b)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("jsonsnap._schema.frames.json_equal", counted)
        for label, fragments in chunkings(doc):
            found = [(v.path, v.keyword) for v in _check_all(schema, fragments)]
            assert found == [((2,), "enum"), ((6,), "enum"), ((7,), "enum"), ((8,), "enum")], label
    assert calls == 0


def _check_all(schema: Schema, fragments: Sequence[str]) -> list[SchemaError]:
    parser = Parser(schema=schema, on_violation="collect")
    for fragment in fragments:
        parser.feed(fragment)
    return parser.violations


def test_violations_share_what_a_long_enum_allows() -> None:
    values = [f"v{i}" for i in range(5_000)]
    schema = Schema({"type": "array", "items": {"enum": values}})
    found = _check_all(schema, [json.dumps(["x", "y", "z"])])
    assert [v.keyword for v in found] == ["enum"] * 3
    assert found[0].expected == values
    assert found[0].expected is found[1].expected is found[2].expected  # no copy each


# ---------------------------------------------------------------------------- collect mode


def test_collect_keeps_the_first_violations_and_counts_the_others() -> None:
    schema = Schema({"type": "array", "items": {"type": "string"}})
    parser = Parser(schema=schema, on_violation="collect")
    parser.feed(json.dumps(list(range(2_500))))
    assert parser.violations_dropped == 1_500
    found = parser.violations
    assert len(found) == 1_000
    assert [v.path for v in found[:2]] == [(0,), (1,)] and found[-1].path == (999,)
    parser.feed(" ")
    assert len(parser.violations) == 1_000 and parser.violations_dropped == 1_500
    with pytest.raises(SchemaError) as info:
        parser.close()
    assert info.value.path == (0,)


def test_collect_keeps_fewer_violations_when_their_paths_are_long() -> None:
    # One violation per level, the deepest first: each holds its path.
    level = {"type": "array", "minItems": 2, "items": {"$ref": "#/$defs/n"}}
    schema = Schema({"$defs": {"n": level}, "$ref": "#/$defs/n"})
    depth = 4_000
    parser = Parser(schema=schema, on_violation="collect")
    parser.feed("[" * depth + "]" * depth)
    found = parser.violations
    assert sum(len(v.path) for v in found) <= 100_000
    assert len(found) == 25 and [len(v.path) for v in found[:2]] == [depth - 1, depth - 2]
    assert len(found) + parser.violations_dropped == depth


def test_a_violation_is_kept_once_per_place_and_keyword() -> None:
    both = {"allOf": [{"type": "string"}, {"type": "string", "minLength": 1}]}
    found = _violations({"type": "array", "items": both}, ["[1, [2], {}]"])
    assert [(v[0], v[1], v[3]) for v in found] == [
        (1, "type", (0,)),
        (4, "type", (1,)),
        (9, "type", (2,)),
    ]


def test_dropped_violations_are_counted_once_each() -> None:
    # One violation per element, however the text is cut (a place is reported once).
    schema = Schema({"type": "array", "items": {"type": "string", "maxLength": 0}})
    doc = json.dumps(["ab"] * 1_200)
    for label, fragments in chunkings(doc, rounds=2):
        parser = Parser(schema=schema, on_violation="collect")
        for fragment in fragments:
            parser.feed(fragment)
        assert (len(parser.violations), parser.violations_dropped) == (1_000, 200), label
    assert Parser(schema=schema).violations_dropped == 0
    assert Parser().violations_dropped == 0


@contextmanager
def _counting_walk() -> Iterator[list[int]]:
    """Counts the values canonical() visits (it asks each one's kind)."""
    visits = [0]
    real = _schema.kind_of

    def counted(value: Any) -> int:
        visits[0] += 1
        return real(value)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_schema, "kind_of", counted)
        yield visits


def test_unique_items_at_every_level_reads_each_element_once() -> None:
    level = {"type": "array", "uniqueItems": True, "items": {"$ref": "#/$defs/n"}}
    schema = Schema({"$defs": {"n": level}, "$ref": "#/$defs/n"})
    for depth in (100, 400):
        with _counting_walk() as visits:
            parser = Parser(schema=schema, on_violation="collect")
            parser.feed("[" * depth + "]" * depth)
            parser.close()
        assert visits[0] < 4 * depth, (depth, visits[0])


def test_unique_items_of_deep_equal_elements_is_refused_without_recursion() -> None:
    depth = 20_000
    deep = "[" * depth + "]" * depth
    doc = f"[{deep}, {deep}]"
    schema = Schema({"type": "array", "uniqueItems": True})
    for label, fragments in [("whole", [doc]), ("two", [doc[:depth], doc[depth:]])]:
        found = _check_all(schema, fragments)
        # At the repeated element's last bracket.
        assert [(v.keyword, v.pos) for v in found] == [("uniqueItems", len(doc) - 2)], label
    assert _check_all(schema, [f"[{deep}, [{deep}]]"]) == []


def test_unique_items_and_enum_of_containers_agree_with_json_equality() -> None:
    schema = Schema(
        {
            "type": "array",
            "uniqueItems": True,
            "items": {"enum": [[1, {"a": 1}], {"b": [True, None]}, [], {}]},
        }
    )
    assert _same_at_every_cut(schema, '[[1.0, {"a": 1e0}], {"b": [true, null]}, [], {}]') == []
    found = _same_at_every_cut(schema, '[[1, {"a": 1}], {"b": [true, null]}, [1.0, {"a": 1.0}]]')
    assert [(v[1], v[3]) for v in found] == [("uniqueItems", ())]
    found = _same_at_every_cut(schema, '[[true, {"a": 1}], {"b": [1, null]}]')
    assert [(v[1], v[3]) for v in found] == [("enum", (0,)), ("enum", (1,))]


# ---------------------------------------------------------------------------- positions


def test_a_union_of_string_consts_is_decided_at_the_same_character_at_every_cut() -> None:
    schema = {"anyOf": [{"const": "abcdef"}, {"const": "xyz"}]}
    # "xyz" dies at "a", "abcdef" at the second "x": the survivor's own violation.
    assert _same_at_every_cut(schema, '"abx"') == [(3, "const", "expected 'abcdef'", ())]
    tagged = {
        "oneOf": [
            {"type": "object", "properties": {"kind": {"const": "circle"}, "r": {}}},
            {"type": "object", "properties": {"kind": {"const": "cube"}, "side": {}}},
        ]
    }
    doc = '{"kind": "cubx", "side": 1}'
    assert _same_at_every_cut(tagged, doc) == [
        (doc.index("x"), "const", "expected 'cube'", ("kind",))
    ]


def test_violations_of_one_fragment_come_in_the_order_of_their_places() -> None:
    schema = {"allOf": [{"enum": ["abc"]}, {"maxLength": 1}]}
    assert _same_at_every_cut(schema, '"abX"') == [
        (2, "maxLength", "longer than 1 characters", ()),
        (3, "enum", "expected one of 'abc'", ()),
    ]
    keyed = {
        "allOf": [
            {"type": "object", "properties": {"abc": {}}, "additionalProperties": False},
            {"maxProperties": 0},
        ]
    }
    assert [v[:2] for v in _same_at_every_cut(keyed, '{"abX": 1}')] == [
        (4, "additionalProperties"),
        (5, "maxProperties"),
    ]


def test_an_unknown_key_beside_pattern_properties_is_refused_at_its_closing_quote() -> None:
    schema = {
        "type": "object",
        "properties": {"id": {"type": "integer"}},
        "patternProperties": {"^x-": {"type": "string"}},
        "additionalProperties": False,
    }
    doc = '{"id": 1, "x-a": "b", "other": {"deep": [1]}}'
    found = _same_at_every_cut(schema, doc)
    close = doc.index('": {')
    assert found == [
        (
            close,
            "additionalProperties",
            "unknown property 'other' (allowed: 'id', or keys matching '^x-')",
            (),
        )
    ]
    with pytest.raises(SchemaError) as info:
        jsonsnap.loads(doc, schema=schema)
    assert (info.value.pos, info.value.pointer) == (close, "")


# ---------------------------------------------------------------------------- duplicate keys


def test_a_duplicate_key_checks_every_member() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}}
    doc = '{"a": "x", "a": 1}'
    assert _same_at_every_cut(schema, doc) == [
        (6, "type", "expected integer, found string", ("a",))
    ]
    with pytest.raises(SchemaError):
        jsonsnap.loads(doc, schema=schema)
    # The other rule, as json.loads and jsonschema read it: the value's surviving members.
    assert jsonsnap.loads(json.dumps(json.loads(doc)), schema=schema) == {"a": 1}


def test_a_tool_input_counts_the_violations_it_drops_too() -> None:
    from jsonsnap.anthropic import MessageAccumulator

    tools = [{"name": "f", "input_schema": {"properties": {"n": {"items": {"type": "integer"}}}}}]
    acc = MessageAccumulator(tools=tools)
    events: list[dict[str, Any]] = [
        {"type": "message_start", "message": {"id": "m", "role": "assistant", "content": []}},
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "tool_use", "id": "t", "name": "f", "input": {}},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": json.dumps({"n": ["x"] * 2_500})},
        },
        {"type": "content_block_stop", "index": 0},
    ]
    for event in events:
        acc.feed(event)
    (tool,) = acc.tool_calls()
    assert tool.status == "invalid"
    assert (len(tool.violations), tool.violations_dropped) == (1_000, 1_500)


def test_groups_in_groups_repeat_a_bounded_part_of_the_inner_message() -> None:
    """Each ``oneOf`` that fails words its alternatives' failure: nested 3,000 deep, each
    level repeats at most ``MAX_INNER`` characters of the one below (not the whole of it,
    which would cost time and memory growing with the square of the depth)."""
    depth = 3_000
    schema: Any = {"type": "integer"}
    for _ in range(depth):
        schema = {"oneOf": [{"type": "array", "items": schema}]}
    with pytest.raises(SchemaError) as info:
        jsonsnap.loads("[" * depth + '"x"' + "]" * depth, schema=schema, max_depth=None)
    message = info.value.msg
    assert message.startswith("matches none of the 1 alternatives of oneOf (")
    assert len(message) <= len("matches none of the 1 alternatives of oneOf ()") + 200


@pytest.mark.parametrize(
    "text", ["\U0010ffff", "\U0010ffff\U0010ffffx", "a\U0010ffffb", "a\U0010ffff", "b", "ab"]
)
def test_enum_strings_that_end_in_the_last_code_point_narrow_as_others(text: str) -> None:
    """Candidates are found by bisection up to the least string past a prefix: a prefix of
    U+10FFFF has none (every string after it begins with it)."""
    allowed = ["\U0010ffff", "\U0010ffff\U0010ffffx", "a\U0010ffff", "a\U0010ffffb", "b"]
    schema = Schema({"enum": allowed})
    doc = json.dumps(text, ensure_ascii=False)
    for _label, fragments in chunkings(doc):
        parser = Parser(schema=schema)
        try:
            for fragment in fragments:
                parser.feed(fragment)
            assert parser.close() == text and text in allowed
        except SchemaError as err:
            assert text not in allowed and err.keyword == "enum"
