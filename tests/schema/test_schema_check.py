"""Checking while streaming: when and where each violation is reported, the two modes, the
field states, typed values, and the checker against hostile input.

The table of when each keyword is decided (the README's) is tested row by row: in
``on_violation="raise"`` mode, at every way of cutting the document, the error must come from
the ``feed()`` whose fragment holds the character named (or from ``close()`` when it is the
end of the input), with that character's position, line and column.
"""

from __future__ import annotations

import copy
import dataclasses
import enum
import json
import pickle
import warnings
from collections.abc import Sequence
from typing import Any, Literal

import pytest

import jsonsnap
from chunking import chunkings
from fast_configs import CONFIGS
from jsonsnap import NOT_YET, FieldState, Parser, Schema, SchemaError
from jsonsnap._parse.fast import GENERAL

# ---------------------------------------------------------------------------- the table

OBJ = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "maxLength": 8, "pattern": r"\.py$", "minLength": 4},
        "mode": {"enum": ["append", "overwrite"]},
        "kind": {"const": "file"},
        "n": {"type": "integer", "minimum": 1, "maximum": 9, "multipleOf": 2},
        "x": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
        "tags": {"type": "array", "maxItems": 2, "minItems": 1, "uniqueItems": True},
        "meta": {"type": "object", "maxProperties": 1, "minProperties": 1},
        "flag": {"type": "boolean"},
    },
    "required": ["path"],
    "additionalProperties": False,
}

#: (name, document, keyword, the text at the position reported, which occurrence of it;
#: None for the end of the input)
ROWS: list[tuple[str, str, str, str | None, int]] = [
    ("type: string for integer", '{"path": "a.py", "n": "3"}', "type", '"3"', 0),
    ("type: number for string", '{"path": 12}', "type", "12", 0),
    ("type: literal for string", '{"path": true}', "type", "true", 0),
    ("type: array for boolean", '{"path": "a.py", "flag": [1]}', "type", "[1]", 0),
    ("type: float for integer", '{"path": "a.py", "n": 2.5}', "type", "}", 0),
    ("type: root", '[{"path": "a.py"}]', "type", "[", 0),
    ("enum: prefix", '{"path": "a.py", "mode": "apx"}', "enum", "x", 0),
    ("enum: first character", '{"path": "a.py", "mode": "zz"}', "enum", "zz", 0),
    ("enum: a prefix of a value", '{"path": "a.py", "mode": "app"}', "enum", '"}', 0),
    ("enum: a number", '{"path": "a.py", "mode": 7}', "enum", "7", 0),
    ("const: prefix", '{"path": "a.py", "kind": "fold"}', "const", "old", 0),
    (
        "additionalProperties: key prefix",
        '{"path": "a.py", "pbx": 1}',
        "additionalProperties",
        "bx",
        0,
    ),
    ("additionalProperties: a prefix key", '{"pat": 1}', "additionalProperties", '": 1', 0),
    ("maxLength", '{"path": "abcdefghij"}', "maxLength", "ij", 0),
    ("maxItems", '{"path": "a.py", "tags": [1, 2, 3]}', "maxItems", "3]", 0),
    ("maxItems: container", '{"path": "a.py", "tags": [1, 2, {}]}', "maxItems", "{}", 0),
    ("maxProperties", '{"path": "a.py", "meta": {"a": 1, "b": 2}}', "maxProperties", '": 2', 0),
    ("required", '{"mode": "append"}', "required", "}", 0),
    ("minimum", '{"path": "a.py", "n": 0}', "minimum", "}", 0),
    ("maximum", '{"path": "a.py", "n": 12 }', "maximum", " }", 0),
    ("multipleOf", '{"path": "a.py", "n": 3}', "multipleOf", "}", 0),
    ("exclusiveMinimum", '{"path": "a.py", "x": 0, "n": 2}', "exclusiveMinimum", ",", 1),
    ("exclusiveMaximum", '{"path": "a.py", "x": 1.0}', "exclusiveMaximum", "}", 0),
    ("pattern", '{"path": "a.txt"}', "pattern", '"}', 0),
    ("minLength", '{"path": ".py"}', "minLength", '"}', 0),
    ("uniqueItems", '{"path": "a.py", "tags": ["a", "a"]}', "uniqueItems", '"]', 0),
    ("minItems", '{"path": "a.py", "tags": []}', "minItems", "]", 0),
    ("minProperties", '{"path": "a.py", "meta": {}}', "minProperties", "}", 0),
]


def _position(doc: str, text: str | None, nth: int) -> int:
    if text is None:
        return len(doc)
    at = -1
    for _ in range(nth + 1):
        at = doc.index(text, at + 1)
    return at


def _first_error(schema: Any, fragments: Sequence[str]) -> tuple[SchemaError, int, int]:
    """The violation raised, and the range of positions the call that raised it was fed."""
    parser = Parser(schema=schema)
    fed = 0
    for fragment in fragments:
        try:
            parser.feed(fragment)
        except SchemaError as err:
            return err, fed, fed + len(fragment)
        fed += len(fragment)
    try:
        parser.close()
    except SchemaError as err:
        return err, fed, fed + 1
    raise AssertionError("no violation reported")


@pytest.mark.parametrize(("name", "doc", "keyword", "text", "nth"), ROWS, ids=[r[0] for r in ROWS])
def test_each_violation_is_reported_at_its_character(
    name: str, doc: str, keyword: str, text: str | None, nth: int
) -> None:
    schema = Schema(OBJ)
    expected = _position(doc, text, nth)
    json.loads(doc)  # the JSON itself is fine
    for label, fragments in chunkings(doc):
        err, lo, hi = _first_error(schema, fragments)
        assert (err.keyword, err.pos) == (keyword, expected), (label, str(err))
        assert lo <= err.pos < hi, f"{label}: reported by the call fed {lo}..{hi}, not at {err.pos}"
        assert err.lineno == 1 and err.colno == expected + 1


def test_a_character_from_an_escape_is_placed_at_the_escape() -> None:
    doc = '{"path": "a.py", "mode": "ap\\u0078end"}'
    for label, fragments in chunkings(doc):
        err, _, _ = _first_error(OBJ, fragments)
        assert (err.keyword, err.pos) == ("enum", doc.index("\\u")), label
    doc = '{"path": "a\\n\\tbcdefghijk"}'  # the 9th character is "g"
    for label, fragments in chunkings(doc):
        err, _, _ = _first_error(OBJ, fragments)
        assert (err.keyword, err.pos) == ("maxLength", doc.index("ghijk")), label


def test_lines_and_columns_count_across_fragments() -> None:
    doc = '{\n  "path": "a.py",\n  "mode":\n    "nope"\n}'
    for label, fragments in chunkings(doc):
        err, _, _ = _first_error(OBJ, fragments)
        assert (err.pos, err.lineno, err.colno) == (doc.index("nope"), 4, 6), label
        assert err.path == ("mode",) and err.pointer == "/mode"
        assert err.start == doc.index('"nope"')
        assert err.schema_path == "/properties/mode/enum"
        assert err.found == "n" and err.expected == ["append", "overwrite"]
        assert str(err) == (
            f"expected one of 'append', 'overwrite' at /mode: line 4 column 6 (char {err.pos})"
        )


# ---------------------------------------------------------------------------- alternatives

SHAPES = {
    "oneOf": [
        {
            "type": "object",
            "properties": {"kind": {"const": "circle"}, "r": {"type": "number"}},
            "required": ["kind", "r"],
        },
        {
            "type": "object",
            "properties": {"kind": {"const": "square"}, "side": {"type": "integer"}},
            "required": ["kind", "side"],
        },
    ]
}


@pytest.mark.parametrize(
    ("doc", "keyword", "text", "path"),
    [
        ('{"kind": "square", "side": "9"}', "type", '"9"', ("side",)),  # the discriminator chose
        ('{"kind": "circle", "r": true}', "type", "true", ("r",)),
        ('{"kind": "star"}', "const", "tar", ("kind",)),  # "square" outlived "circle"
        ('{"kind": "disc"}', "oneOf", "disc", ()),  # both die at the same character
        ("[]", "oneOf", "[", ()),
        ('{"kind": "circle"}', "required", "}", ()),
    ],
)
def test_alternatives_are_ruled_out_as_the_value_streams(
    doc: str, keyword: str, text: str, path: tuple[str, ...]
) -> None:
    for label, fragments in chunkings(doc):
        err, lo, hi = _first_error(SHAPES, fragments)
        assert (err.keyword, err.pos, err.path) == (keyword, doc.index(text), path), label
        assert lo <= err.pos < hi


def test_one_of_that_matches_two_alternatives_is_refused_when_the_value_completes() -> None:
    schema = {"oneOf": [{"type": "integer"}, {"minimum": 0}]}
    assert jsonsnap.loads("-1", schema=schema) == -1
    with pytest.raises(SchemaError) as info:
        jsonsnap.loads("[1, 5]", schema={"type": "array", "items": schema})
    assert info.value.keyword == "oneOf" and info.value.path == (0,)


def test_any_of_keeps_every_alternative_alive_until_it_fails() -> None:
    schema = {"anyOf": [{"type": "string", "maxLength": 2}, {"type": "string", "pattern": "^a"}]}
    assert jsonsnap.loads('"abcdef"', schema=schema) == "abcdef"
    with pytest.raises(SchemaError) as info:
        jsonsnap.loads('"bcd"', schema=schema)
    assert info.value.keyword == "pattern" and info.value.pos == 4  # the last one left


def test_recursive_schemas_check_deep_values_without_recursion() -> None:
    tree = {
        "$defs": {"node": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
        "$ref": "#/$defs/node",
    }
    depth = 20_000
    assert jsonsnap.loads("[" * depth + "]" * depth, schema=tree) is not None
    with pytest.raises(SchemaError) as info:
        jsonsnap.loads("[" * depth + "1" + "]" * depth, schema=tree)
    assert info.value.pos == depth and len(info.value.path) == depth


# ---------------------------------------------------------------------------- modes


def test_collect_mode_keeps_parsing_and_close_raises_the_first() -> None:
    doc = '{"path": 1, "mode": "x", "n": 40, "extra": {"deep": [1]}}'
    for label, fragments in chunkings(doc):
        parser = Parser(schema=OBJ, on_violation="collect")
        for fragment in fragments:
            assert parser.feed(fragment) in (True, False)
        keywords = [v.keyword for v in parser.violations]
        assert keywords == ["type", "enum", "maximum", "additionalProperties"]
        assert parser.snapshot() == json.loads(doc), label
        with pytest.raises(SchemaError) as info:
            parser.close()
        assert info.value == parser.violations[0]
        with pytest.raises(SchemaError):
            parser.feed(" ")  # failed, and stays so
        assert parser.snapshot() == json.loads(doc)


def test_raise_mode_fails_the_parser_and_keeps_the_value_read_before() -> None:
    parser = Parser(schema=OBJ)
    parser.feed('{"path": "a.py", "mode": "app')
    with pytest.raises(SchemaError) as info:
        parser.feed('x", "n": 2}')
    assert parser.error is info.value and parser.violations == [info.value]
    assert parser.snapshot() == {"path": "a.py", "mode": "app"}
    for call in (lambda: parser.feed("1"), parser.close):
        with pytest.raises(SchemaError) as again:
            call()
        assert again.value == info.value


def test_schema_errors_pickle_and_copy() -> None:
    with pytest.raises(SchemaError) as info:
        jsonsnap.loads('{"path": "a.py", "n": 3}', schema=OBJ)
    err = info.value
    for twin in (copy.copy(err), pickle.loads(pickle.dumps(err))):
        assert twin == err and str(twin) == str(err) and twin.path == ("n",)
    assert isinstance(err, ValueError) and not isinstance(err, jsonsnap.JSONDecodeError)


def test_checking_works_with_the_change_feed_and_the_other_options() -> None:
    doc = '{"path": "a.py", "n": 4, "tags": [1.5, 2]}'
    seen: list[Any] = []
    parser = Parser(schema=OBJ, track_changes=True)
    parser.subscribe(("tags", jsonsnap.ANY), seen.append, kinds=[jsonsnap.Completed])
    for ch in doc:
        parser.feed(ch)
    assert parser.close() == json.loads(doc)
    assert [c.value for c in seen] == [1.5, 2]
    assert [type(c).__name__ for c in parser.changes()][-2:] == ["Completed", "Completed"]
    shown = Parser(schema=OBJ, partial_numbers=True, partial_literals=True)
    shown.feed('{"path": "a.py", "n": 1')
    assert shown.snapshot() == {"path": "a.py", "n": 1}
    with pytest.raises(SchemaError) as info:
        shown.feed("1}")
    assert info.value.keyword == "maximum"
    hooked = jsonsnap.loads(doc, schema=OBJ, object_pairs_hook=list, max_depth=3)
    assert hooked[0] == ("path", "a.py")
    with pytest.raises(jsonsnap.JSONDecodeError):  # whichever comes first is raised
        jsonsnap.loads('{"path": "a.py",}', schema=OBJ)
    with pytest.raises(SchemaError):
        jsonsnap.loads('{"path": 1,}', schema=OBJ)


# ---------------------------------------------------------------------------- schemas


def test_keywords_that_are_not_checked_are_named() -> None:
    schema = {"type": "object", "properties": {"a": {"format": "email", "not": {}}}}
    with pytest.warns(jsonsnap.SchemaWarning, match="format at /properties/a"):
        compiled = Schema(schema)
    assert compiled.unchecked == (("/properties/a", "format"), ("/properties/a", "not"))
    with pytest.raises(jsonsnap.SchemaDefinitionError, match="not at /properties/a"):
        Schema(schema, unknown="error")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Schema(schema, unknown="ignore")
        Schema({"title": "t", "description": "d", "default": 1, "examples": [1]})


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "strnig"},
        {"$ref": "#/$defs/missing"},
        {"$ref": "other.json#/a"},
        {"pattern": "("},
        {"maxLength": -1},
        {"enum": "abc"},
        {"anyOf": []},
        {"minimum": "3"},
        [],
    ],
)
def test_a_wrong_schema_is_refused_when_compiled(schema: Any) -> None:
    with pytest.raises(jsonsnap.SchemaDefinitionError):
        Schema(schema)


def test_options_are_checked() -> None:
    with pytest.raises(ValueError, match="on_violation"):
        Parser(schema=OBJ, on_violation="ignore")
    with pytest.raises(ValueError, match="typed=True"):
        Parser(schema=OBJ, typed=True)
    with pytest.raises(ValueError, match="typed=True"):
        Parser(typed=True)


# ---------------------------------------------------------------------------- for UIs


class Mode(enum.Enum):
    APPEND = "append"
    OVERWRITE = "overwrite"


@dataclasses.dataclass
class Line:
    no: int
    text: str


@dataclasses.dataclass
class Edit:
    path: str
    lines: list[Line]
    mode: Mode = Mode.APPEND
    kind: Literal["edit"] = "edit"


EDIT = (
    '{"path": "a.py", "lines": [{"no": 1, "text": "x"}, {"no": 2, "text": "y"}], '
    '"mode": "overwrite"}'
)


def test_field_states_and_missing_fields() -> None:
    parser = Parser(schema=OBJ, on_violation="collect")
    assert parser.field_state(("path",)) is FieldState.PENDING
    assert parser.missing() == ["path"]
    parser.feed('{"path": "a.p')
    assert parser.field_state(("path",)) is FieldState.STREAMING
    assert parser.field_state(("mode",)) is FieldState.PENDING
    assert parser.field_state(("nope",)) is FieldState.ABSENT
    parser.feed('y", "n": 3, "mode": "ov')
    assert parser.field_state(("path",)) is FieldState.COMPLETE
    assert parser.field_state(("n",)) is FieldState.INVALID
    assert parser.missing() == []
    parser.feed('erwrite"')
    parser.feed("}")
    assert parser.field_state(("mode",)) is FieldState.COMPLETE
    assert parser.field_state(("kind",)) is FieldState.ABSENT  # its object is complete
    assert str(FieldState.PENDING) == "pending"


def test_missing_follows_the_alternatives_still_possible() -> None:
    parser = Parser(schema=SHAPES, on_violation="collect")
    parser.feed('{"kind": "squ')
    assert parser.missing() == ["side"]
    parser2 = Parser(schema=SHAPES, on_violation="collect")
    parser2.feed('{"ki')
    assert sorted(parser2.missing()) == ["kind", "r", "side"]


def test_the_typed_view_never_holds_a_wrong_type() -> None:
    for cut in range(len(EDIT) + 1):
        parser = Parser(schema=Edit)
        parser.feed(EDIT[:cut])
        view = parser.view()
        if cut == 0:
            assert view is NOT_YET
            continue
        assert isinstance(view, Edit)
        v: Any = view  # its fields may hold NOT_YET
        assert v.path is NOT_YET or isinstance(v.path, str)
        assert v.mode is NOT_YET or isinstance(v.mode, Mode)
        lines: list[Any] = [] if v.lines is NOT_YET else v.lines
        assert all(isinstance(line, Line) for line in lines)
        assert all(line.no is NOT_YET or isinstance(line.no, int) for line in lines)
        assert v.kind is NOT_YET
        assert parser.view(defaults=True).kind == "edit"


def test_close_returns_the_typed_value_and_take_hands_over_finished_elements() -> None:
    parser = Parser(schema=Edit)
    taken: list[tuple[int, Any]] = []
    for ch in EDIT:
        parser.feed(ch)
        taken += parser.take(("lines",))
    assert taken == [(0, Line(1, "x")), (1, Line(2, "y"))]
    assert parser.close() == Edit("a.py", [Line(1, "x"), Line(2, "y")], Mode.OVERWRITE)
    assert Parser(schema=Edit, typed=False).feed(EDIT) is True
    plain = jsonsnap.loads(EDIT, schema=Edit, typed=False)
    assert plain == json.loads(EDIT)


def test_take_leaves_out_invalid_elements() -> None:
    schema = {"type": "array", "items": {"type": "object", "required": ["id"]}}
    parser = Parser(schema=schema, on_violation="collect")
    parser.feed('[{"id": 1}, {"x": 2}, {"id": 3}')
    assert parser.take() == [(0, {"id": 1}), (2, {"id": 3})]
    parser.feed("]")
    assert parser.take() == []


# ---------------------------------------------------------------------------- hostile input


def test_long_values_cost_time_in_proportion() -> None:
    # A long constrained string and a long closed key are read once (no quadratic rescans);
    # the check itself is bounded by the schema, not the document.
    schema = {
        "type": "object",
        "properties": {"s": {"type": "string", "maxLength": 10**7, "pattern": "z$"}},
        "additionalProperties": False,
    }
    body = "a" * 300_000
    parser = Parser(schema=schema, on_violation="collect")
    parser.feed('{"s": "')
    for i in range(0, len(body), 7):
        parser.feed(body[i : i + 7])
    parser.feed('"}')
    assert [v.keyword for v in parser.violations] == ["pattern"]
    with pytest.raises(SchemaError) as info:
        jsonsnap.loads('{"' + "s" * 100_000 + '": 1}', schema=schema)
    assert info.value.pos == 3 and info.value.keyword == "additionalProperties"


def test_huge_numbers_and_many_alternatives() -> None:
    schema = {"type": "integer", "maximum": 10**30, "multipleOf": 7}
    with pytest.raises(SchemaError) as info:
        jsonsnap.loads("9" * 2000, schema=schema)
    assert info.value.keyword == "maximum"
    many = {"anyOf": [{"const": i} for i in range(300)]}
    assert jsonsnap.loads("299", schema=many) == 299
    with pytest.raises(SchemaError) as err:
        jsonsnap.loads("300", schema=many)
    assert err.value.keyword == "anyOf"


# ---------------------------------------------------------------------------- fast paths


def test_violations_are_the_same_whichever_fast_paths_run() -> None:
    docs = [doc for _, doc, *_ in ROWS] + ['{"path": "a\\u0062c.py", "tags": ["\\n", "\\n"]}']
    for doc in docs:
        for label, fragments in chunkings(doc, rounds=2):
            expected = _collected(doc, fragments, GENERAL)
            for name, fast in CONFIGS.items():
                assert _collected(doc, fragments, fast) == expected, (name, label, doc)


def _collected(doc: str, fragments: Sequence[str], fast: Any) -> list[tuple[Any, ...]]:
    parser = Parser(schema=OBJ, on_violation="collect", _fast_paths=fast)
    for fragment in fragments:
        parser.feed(fragment)
    return [(v.keyword, v.path, v.pos, v.start, v.found, str(v)) for v in parser.violations]
