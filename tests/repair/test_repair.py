"""Tolerant mode, repair by repair, and several values per stream, table by table.

Every entry is fed through every chunking (whole, one character at a time, 2-way splits,
random splits; see chunking.py): the final value, the repairs (kind, position, line, column)
and the error (message and position) must not depend on where the text was cut, and every
snapshot must grow the one before it (nothing shown is taken back or changes type).
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import AsyncIterator
from typing import Any, Final

import pytest

import jsonsnap
from chunking import chunkings
from repair_tables import Repairs, check, check_error, stream
from values import diff

# ---------------------------------------------------------------------------- each repair

REPAIRED: list[tuple[str, Any, Repairs]] = [
    # text before the value, and after it
    (
        'Sure! Here it is:\n```json\n{"a": 1}\n```\n',
        {"a": 1},
        [("leading_text", 0), ("trailing_text", 35)],
    ),
    ("```\n[1, 2]\n```", [1, 2], [("leading_text", 0), ("trailing_text", 11)]),
    ('the answer: {"a": true}', {"a": True}, [("leading_text", 0)]),
    ('1) the file: {"p": 1}', {"p": 1}, [("leading_text", 0)]),
    ('- item\n["x"]', ["x"], [("leading_text", 0)]),
    ('nope {"a": 1} and {"b": 2}', {"a": 1}, [("leading_text", 0), ("trailing_text", 14)]),
    ('{"a": 1}{"b": 2}', {"a": 1}, [("trailing_text", 8)]),
    ("  42  ", 42, []),
    ('12x {"b": 2}', {"b": 2}, [("leading_text", 0)]),
    ("1000000000000000000000000:{", {}, [("leading_text", 0), ("unclosed", 27)]),
    ("truex [1]", [1], [("leading_text", 0)]),
    ("None of them: {}", {}, [("leading_text", 0)]),
    ("true. {}", True, [("trailing_text", 4)]),
    ('"text" then {"a": 1}', "text", [("trailing_text", 7)]),
    # trailing commas
    ("[1, 2,]", [1, 2], [("trailing_comma", 6)]),
    (
        '{"a": [1,], "b": {"c": 2,},}',
        {"a": [1], "b": {"c": 2}},
        [("trailing_comma", 9), ("trailing_comma", 25), ("trailing_comma", 27)],
    ),
    ("[1 , \n ]", [1], [("trailing_comma", 7)]),
    # single quotes and unquoted keys
    ("{'a': 'b'}", {"a": "b"}, [("single_quotes", 1), ("single_quotes", 6)]),
    (
        "['it\\'s', 'say \"hi\"']",
        ["it's", 'say "hi"'],
        [("single_quotes", 1), ("single_quotes", 10)],
    ),
    ("['a\\n\\u00e9\\\\']", ["a\n\u00e9\\"], [("single_quotes", 1)]),
    (
        "{a: 1, $b_2: 'x', _c: [true]}",
        {"a": 1, "$b_2": "x", "_c": [True]},
        [("unquoted_key", 1), ("unquoted_key", 7), ("single_quotes", 13), ("unquoted_key", 18)],
    ),
    ("{key:1}", {"key": 1}, [("unquoted_key", 1)]),
    # Python's literals, undefined, NaN and infinities
    (
        "[True, False, None]",
        [True, False, None],
        [("python_literal", 1), ("python_literal", 7), ("python_literal", 14)],
    ),
    ('{"a": undefined}', {"a": None}, [("undefined", 6)]),
    (
        "[NaN, Infinity, -Infinity, -1]",
        [math.nan, math.inf, -math.inf, -1],
        [
            ("non_finite", 1),
            ("non_finite", 6),
            ("non_finite", 16),
        ],
    ),
    ("[true, false, null]", [True, False, None], []),
    # comments
    (
        '{"a": 1, // one\n "b": /* two */ 2 /* three */}',
        {"a": 1, "b": 2},
        [("comment", 9), ("comment", 22), ("comment", 34)],
    ),
    ("// header\n[1, /**/ 2]", [1, 2], [("comment", 0), ("comment", 14)]),
    ("[1 /* a * b **/, 2]", [1, 2], [("comment", 3)]),
    ('{"a" /* k */ : 1}', {"a": 1}, [("comment", 5)]),
    ("[1]// done", [1], [("trailing_text", 3)]),
    ('{"url": "http://x/*y*/"}', {"url": "http://x/*y*/"}, []),
    # raw control characters and unknown escapes in strings
    (
        '{"code": "a\n\tb"}',
        {"code": "a\n\tb"},
        [("control_character", 11), ("control_character", 12)],
    ),
    (
        '["x\\qy", "\\x41", "it\\\'s"]',
        ["x\\qy", "\\x41", "it's"],
        [("invalid_escape", 3), ("invalid_escape", 10), ("invalid_escape", 20)],
    ),
    ('["\\u12G4", "\\u"]', ["\\u12G4", "\\u"], [("invalid_escape", 2), ("invalid_escape", 12)]),
    ('["\\ud83d\\x", "\\ud83d\\ude00"]', ["\ud83d\\x", "\U0001f600"], [("invalid_escape", 8)]),
    # missing commas
    ("[1 2\n3]", [1, 2, 3], [("missing_comma", 3), ("missing_comma", 5)]),
    (
        '{"a": 1\n "b": "x"\n c: null}',
        {"a": 1, "b": "x", "c": None},
        [("missing_comma", 9), ("missing_comma", 19), ("unquoted_key", 19)],
    ),
    ('[{"a": 1} {"b": 2}]', [{"a": 1}, {"b": 2}], [("missing_comma", 10)]),
    ('["a""b"]', ["a", "b"], [("missing_comma", 4)]),
    ("[1'x']", [1, "x"], [("missing_comma", 2), ("single_quotes", 2)]),
    # the end of the input inside a value
    ('{"a": [1, 2', {"a": [1, 2]}, [("unclosed", 11)]),
    (
        '{"path": "a.py", "content": "print(',
        {"path": "a.py", "content": "print("},
        [("unclosed", 35)],
    ),
    ('{"a": 12.', {"a": 12}, [("unclosed", 9)]),
    ('{"a": 1, "b": tr', {"a": 1}, [("unclosed", 16)]),
    ('{"a": 1, "b"', {"a": 1}, [("unclosed", 12)]),
    ('{"a": 1, "bc', {"a": 1}, [("unclosed", 12)]),
    ('["x\\u00', ["x"], [("unclosed", 7)]),
    ("[1, /* never", [1], [("comment", 4), ("unclosed", 12)]),
    ('"abc', "abc", [("unclosed", 4)]),
    # everything at once
    (
        "Here you go:\n```json\n{\n  // the call\n  name: 'write',\n"
        '  \'args\': {"text": "a\nb", ok: True,},\n}\n```',
        {"name": "write", "args": {"text": "a\nb", "ok": True}},
        [
            ("leading_text", 0),
            ("comment", 25),
            ("unquoted_key", 39),
            ("single_quotes", 45),
            ("single_quotes", 56),
            ("control_character", 75),
            ("unquoted_key", 80),
            ("python_literal", 84),
            ("trailing_comma", 89),
            ("trailing_comma", 92),
            ("trailing_text", 94),
        ],
    ),
]


@pytest.mark.parametrize(("text", "expected", "repairs"), REPAIRED)
def test_each_repair(text: str, expected: Any, repairs: Repairs) -> None:
    check(text, expected, repairs)


STRICT_DOCUMENTS = [
    '{"a": [1, 2.5, -0.0, 1e400, "x\\u00e9\\ud83d\\ude00", true, false, null], "": {}}',
    '  "\\"quoted\\" \\\\ / \\/ \\b\\f\\n\\r\\t"  ',
    "[[[[]]], {}, [{}]]",
    "-12.5e-3",
]


@pytest.mark.parametrize("text", STRICT_DOCUMENTS)
def test_valid_json_is_read_as_strictly(text: str) -> None:
    expected = jsonsnap.loads(text)
    check(text, expected, [])


NOT_REPAIRED: list[tuple[str, int, str]] = [
    ('{"a" 1}', 5, "Expecting ':' delimiter"),
    ('{"a": hello}', 6, "Expecting value"),
    ("[1,,2]", 3, "Expecting value"),
    ('{"a": 1,, "b": 2}', 8, "Expecting property name enclosed in double quotes"),
    ("[1}", 2, "Expecting ',' delimiter"),
    ('{"a": 1]', 7, "Expecting ',' delimiter"),
    ("[01]", 2, "Expecting ',' delimiter"),
    ("[+1]", 1, "Expecting value"),
    ("[.5]", 1, "Expecting value"),
    ("[Tru]", 4, "Expecting value"),
    ("[1 / 2]", 3, "Expecting ',' delimiter"),
    ("no value here", 13, "Expecting value"),
    ("1234567890123456789012345,", 26, "Expecting value"),
    ("", 0, "Expecting value"),
    ("[1, 2] x", -1, ""),  # (not an error: trailing text; checked below)
]


@pytest.mark.parametrize(("text", "pos", "message"), [c for c in NOT_REPAIRED if c[1] >= 0])
def test_what_is_never_repaired(text: str, pos: int, message: str) -> None:
    check_error(text, pos, message)


def test_an_unfinished_document_with_nothing_to_show_is_an_error() -> None:
    for text in ("tr", "-", "{", "  "):
        parser = jsonsnap.Parser(repair=True)
        parser.feed(text)
        if text == "{":
            assert parser.close() == {}
            continue
        with pytest.raises(jsonsnap.JSONDecodeError) as info:
            parser.close()
        assert info.value.incomplete


# ---------------------------------------------------------------------------- chosen repairs


def test_only_the_repairs_asked_for_are_made() -> None:
    assert jsonsnap.loads("[1,]", repair={"trailing_comma"}) == [1]
    with pytest.raises(jsonsnap.JSONDecodeError) as info:
        jsonsnap.loads("[1,] // c", repair={"trailing_comma"})
    assert (info.value.pos, info.value.msg) == (5, "Extra data")
    with pytest.raises(jsonsnap.JSONDecodeError) as info:
        jsonsnap.loads("[True]", repair={"comment"})
    assert (info.value.pos, info.value.msg) == (1, "Expecting value")
    with pytest.raises(jsonsnap.JSONDecodeError) as info:
        jsonsnap.loads("{'a': 1}", repair={"unquoted_key"})
    assert info.value.pos == 1
    with pytest.raises(jsonsnap.JSONDecodeError) as info:
        jsonsnap.loads('{"a": [1', repair={"comment"})
    assert info.value.incomplete
    with pytest.raises(jsonsnap.JSONDecodeError) as info:
        jsonsnap.loads("x [1]", repair={"comment"})
    assert info.value.pos == 0
    # NaN is valid for a parser that allows it: no repair.
    parser = jsonsnap.Parser(repair=True, allow_nan=True)
    parser.feed("[NaN, True]")
    assert math.isnan(parser.close()[0])
    assert [r.kind for r in parser.repairs] == ["python_literal"]


@pytest.mark.parametrize(
    ("repair", "error"),
    [
        ("comment", TypeError),
        (1, TypeError),
        ({"comments"}, ValueError),
        (["trailing_comma", "nope"], ValueError),
    ],
)
def test_a_bad_repair_option_is_refused(repair: Any, error: type[Exception]) -> None:
    with pytest.raises(error):
        jsonsnap.Parser(repair=repair)


def test_repairs_are_described() -> None:
    assert set(jsonsnap.REPAIRS) >= {kind for _, _, made in REPAIRED for kind, _ in made}
    parser = jsonsnap.Parser(repair=True)
    parser.feed("[1,\n]")
    parser.close()
    (repair,) = parser.repairs
    assert str(repair) == "a comma before a closing bracket dropped: line 2 column 1 (char 4)"
    with pytest.raises(AttributeError):
        repair.kind = "x"  # type: ignore[misc]


# ---------------------------------------------------------------------------- with other parts


def test_repairs_with_the_change_feed() -> None:
    text = "{'a': [1 2,], b: 'x\ny'}"
    for label, fragments in chunkings(text):
        parser = jsonsnap.Parser(repair=True, track_changes=True)
        records: list[jsonsnap.Change] = []
        for fragment in fragments:
            parser.feed(fragment)
            records.extend(parser.changes())
        final = parser.close()
        records.extend(parser.changes())
        assert final == {"a": [1, 2], "b": "x\ny"}
        assert jsonsnap.replay(records) == final, label
        assert all(record.index == 0 for record in records)


def test_repairs_with_bytes_and_the_string_lane() -> None:
    text = '{\'w\': \'h\u00e9llo "x" \', "v": "a\tb\\\'c"}'
    data = text.encode()
    for label, fragments in chunkings(data):
        value, repairs, _ = stream(fragments, repair=True)
        assert value == {"w": 'h\u00e9llo "x" ', "v": "a\tb'c"}, label
        assert [r.kind for r in repairs] == [
            "single_quotes",
            "single_quotes",
            "control_character",
            "invalid_escape",
        ]


def test_partial_literals_in_tolerant_mode() -> None:
    parser = jsonsnap.Parser(repair=True, partial_literals=True)
    parser.feed("[Tr")
    assert parser.snapshot() == [True]
    parser.feed("ue, N")
    assert parser.snapshot() == [True]  # None or NaN: not decided yet
    parser.feed("o")
    assert parser.snapshot() == [True, None]
    parser.feed("ne]")
    assert parser.close() == [True, None]


def test_hooks_and_converters_see_repaired_values() -> None:
    value = jsonsnap.loads(
        "{a: 1.5, b: NaN, c: {d: 2,},}",
        repair=True,
        parse_float=str,
        parse_constant=lambda name: f"<{name}>",
        object_hook=lambda d: sorted(d),
    )
    assert value == ["a", "b", "c"]


def test_the_error_after_repairs_keeps_the_last_good_snapshot() -> None:
    parser = jsonsnap.Parser(repair=True)
    parser.feed("{'a': [1, 2,], b: ")
    with pytest.raises(jsonsnap.JSONDecodeError) as info:
        parser.feed("hello}")
    assert info.value.pos == 18
    assert parser.snapshot() == {"a": [1, 2]}
    assert [r.kind for r in parser.repairs] == ["single_quotes", "trailing_comma", "unquoted_key"]
    with pytest.raises(jsonsnap.JSONDecodeError):
        parser.close()


def test_parse_partial_and_writing_in_tolerant_mode() -> None:
    assert jsonsnap.parse_partial("```json\n{'a': 'unfin", repair=True) == {"a": "unfin"}
    parser = jsonsnap.Parser(repair=True)
    parser.feed("{'a': {b: 'x")
    assert parser.writing == ("a", "b")
    assert not parser.is_complete(("a", "b"))
    parser.feed("'")
    assert parser.is_complete(("a", "b"))


# ---------------------------------------------------------------------------- several values


SEVERAL: list[tuple[str, list[Any]]] = [
    ('{"a": 1}{"b": 2}', [{"a": 1}, {"b": 2}]),
    ('{"a": 1}\n{"b": [2]}\n', [{"a": 1}, {"b": [2]}]),
    ("[1] [2]\t[]", [[1], [2], []]),
    ('1 2 "x" true null -0.5', [1, 2, "x", True, None, -0.5]),
    ('1"x"[2]{"y":3}', [1, "x", [2], {"y": 3}]),
    ('true"a""b"null', [True, "a", "b", None]),
    ("", []),
    ("  \n ", []),
]


@pytest.mark.parametrize(("text", "expected"), SEVERAL)
@pytest.mark.parametrize("repair", [False, True])
def test_several_values(text: str, expected: list[Any], repair: bool) -> None:
    for label, fragments in chunkings(text):
        parser = jsonsnap.Parser(multiple_values=True, repair=repair)
        got: list[Any] = []
        for fragment in fragments:
            parser.feed(fragment)
            got.extend(parser.read_values())
        got.extend(parser.close())
        assert diff(expected, got) is None, (label, got)
        assert parser.repairs == []
    assert jsonsnap.loads(text, multiple_values=True) == expected
    assert list(jsonsnap.iter_values(list(text))) == expected


def test_several_values_tolerantly() -> None:
    text = "Here:\n```json\n{'a': 1,}\n```\nand\n```json\n[True]\n```"
    check(
        text,
        [{"a": 1}, [True]],
        [
            ("leading_text", 0),
            ("single_quotes", 15),
            ("trailing_comma", 22),
            ("leading_text", 24),
            ("python_literal", 41),
            ("trailing_text", 47),
        ],
        multiple_values=True,
    )


def test_each_value_has_its_snapshot_index_and_records() -> None:
    parser = jsonsnap.Parser(multiple_values=True, track_changes=True)
    parser.feed('{"a": "x')
    assert (parser.snapshot(), parser.value_index, parser.done) == ({"a": "x"}, 0, False)
    parser.feed('y"}\n{"b"')
    assert (parser.snapshot(), parser.value_index, parser.done) == ({}, 1, False)
    assert parser.read_values() == [{"a": "xy"}]
    assert parser.read_values() == []
    parser.feed(": 1}")
    assert (parser.snapshot(), parser.done) == ({"b": 1}, True)
    records = parser.changes()
    assert [(type(r).__name__, r.path, r.index) for r in records] == [
        ("Started", (), 0),
        ("Started", ("a",), 0),
        ("Appended", ("a",), 0),
        ("Completed", ("a",), 0),
        ("Completed", (), 0),
        ("Started", (), 1),
        ("Completed", ("b",), 1),
        ("Completed", (), 1),
    ]
    assert repr(records[-1]) == "Completed(path=(), value={'b': 1}, index=1)"
    assert records[-1] != jsonsnap.Completed((), {"b": 1})
    assert records[-1] == jsonsnap.Completed((), {"b": 1}, 1)
    assert parser.close() == [{"b": 1}]
    assert parser.close() == [{"b": 1}]


def test_subscriptions_hear_every_value() -> None:
    parser = jsonsnap.Parser(multiple_values=True)
    heard: list[tuple[int, Any]] = []
    parser.subscribe(("n",), lambda r: heard.append((r.index, r.value)), kinds=[jsonsnap.Completed])
    for line in ('{"n": 1}\n', '{"n": 2}\n', '{"m": 0, "n": 3}'):
        parser.feed(line)
    parser.close()
    assert heard == [(0, 1), (1, 2), (2, 3)]


def test_an_error_in_a_later_value() -> None:
    parser = jsonsnap.Parser(multiple_values=True)
    parser.feed('{"a": 1}\n{"b": ')
    with pytest.raises(jsonsnap.JSONDecodeError) as info:
        parser.feed("x}")
    assert (info.value.pos, info.value.lineno, info.value.colno) == (15, 2, 7)
    assert parser.read_values() == [{"a": 1}]
    assert parser.snapshot() == {}
    with pytest.raises(jsonsnap.JSONDecodeError):
        jsonsnap.loads("[1] x", multiple_values=True)
    with pytest.raises(jsonsnap.JSONDecodeError) as info:
        jsonsnap.loads("[1] [2", multiple_values=True)
    assert info.value.incomplete


def test_parse_partial_of_several_values() -> None:
    assert jsonsnap.parse_partial('{"a": 1} {"b": "x', multiple_values=True) == [
        {"a": 1},
        {"b": "x"},
    ]
    assert jsonsnap.parse_partial('{"a": 1} 12', multiple_values=True) == [{"a": 1}]
    assert jsonsnap.parse_partial("[1] [2]", multiple_values=True) == [[1], [2]]


def test_several_values_options() -> None:
    with pytest.raises(ValueError):
        jsonsnap.Parser().read_values()
    with pytest.raises(TypeError):
        jsonsnap.Parser(multiple_values=1)
    with pytest.raises(ValueError):
        jsonsnap.Parser(multiple_values=True, schema={"type": "object"})


def test_aiter_values() -> None:
    async def chunks() -> AsyncIterator[str]:
        for piece in ('{"a"', ": 1}\n[", "2]\n", "3"):
            yield piece

    async def collect() -> list[Any]:
        return [value async for value in jsonsnap.aiter_values(chunks())]

    assert asyncio.run(collect()) == [{"a": 1}, [2], 3]


def test_iter_values_yields_each_value_as_it_completes() -> None:
    seen: list[str] = []

    def chunks() -> Any:
        for piece in ('{"a": 1}', '{"b"', ": 2}"):
            seen.append(piece)
            yield piece

    values = jsonsnap.iter_values(chunks())
    assert next(values) == {"a": 1}
    assert seen == ['{"a": 1}']
    assert next(values) == {"b": 2}
    assert seen == ['{"a": 1}', '{"b"', ": 2}"]
    assert list(values) == []


# ---------------------------------------------------------------------------- with a schema

WEATHER: Final = {
    "type": "object",
    "properties": {
        "unit": {"enum": ["celsius", "fahrenheit"]},
        "s": {"type": "string", "maxLength": 5},
        "n": {"type": "integer"},
    },
    "required": ["unit", "n"],
    "additionalProperties": False,
}


@pytest.mark.parametrize(
    ("text", "violations", "value"),
    [
        ("Here: {unit: 'celsius', n: 1,} done", [], {"unit": "celsius", "n": 1}),
        ("{unit: 'kelvin', n: 1}", [("enum", 8)], None),
        ('{"unit": "celsius", "s": "ab\ncdef", "n": 1}', [("maxLength", 31)], None),
        ('{"unit": "cels\\qius", "n": True}', [("enum", 14), ("type", 27)], None),
        ("{'unit': 'celsius'", [("required", 18)], None),
    ],
)
def test_repairs_with_a_schema(text: str, violations: list[tuple[str, int]], value: Any) -> None:
    """A repaired value is checked as it streams, each violation at its character."""
    for label, fragments in chunkings(text, rounds=2):
        parser = jsonsnap.Parser(schema=WEATHER, on_violation="collect", repair=True)
        for fragment in fragments:
            parser.feed(fragment)
        if violations:
            with pytest.raises(jsonsnap.SchemaError):
                parser.close()
        else:
            assert parser.close() == value, label
        assert [(v.keyword, v.pos) for v in parser.violations] == violations, label
