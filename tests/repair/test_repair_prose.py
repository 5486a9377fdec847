"""Tolerant mode where prose and values meet: prose that begins like a value, brackets in prose,
comments and text between several values, and the kind of the text skipped between them.

* A number or literal at the top that a letter or a digit, a ``-`` and a digit, or spaces and a
  word follow is the first word of prose (``3 results found: [...]``, ``2024-05-01 report``,
  ``nullable``, ``Nonetheless``), never the value: it is held, unshown, until the character
  after it decides.
* A bracket after prose begins a value only when what follows it can begin its first element
  or member (``[this]``, ``[write_file]``, ``{name}`` are prose).
* Reading several values, comments between them are comments, and text between two values is
  ``leading_text`` of the next one (``trailing_text`` only after the last).
* Whatever the text, reading it gives a value or a ``JSONDecodeError``, at the same place
  however it was cut.

Every table goes through every chunking (``check``); the properties are drawn by hypothesis.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import jsonsnap
import strategies
from chunking import chunkings
from effort import examples
from feeding import parse, same_outcome
from repair_tables import Repairs, check, check_error
from tolerant_texts import FUZZ_TEXTS, REPAIR_TOKENS, several_values
from values import NOTHING, diff, grows, strict_loads

# --------------------------------------------------------------------------- prose like a value

PROSE_FIRST: list[tuple[str, Any, Repairs]] = [
    ("3 results found: [1, 2]", [1, 2], [("leading_text", 0)]),
    ('2024-05-01 report: {"a": 1}', {"a": 1}, [("leading_text", 0)]),
    ('nullable fields are: {"a": 1}', {"a": 1}, [("leading_text", 0)]),
    ('Nonetheless, {"a": 1}', {"a": 1}, [("leading_text", 0)]),
    ('true story: {"a": 1}', {"a": 1}, [("leading_text", 0)]),
    ('3rd attempt:\n{"a": 1}', {"a": 1}, [("leading_text", 0)]),
    ("12345678901234567890123456789 rows\t[1]", [1], [("leading_text", 0)]),
    ("None \t of them: []", [], [("leading_text", 0)]),
    ("NaN values: [1]", [1], [("leading_text", 0)]),
    # ... and what stays the value
    ("42", 42, []),
    ("42 \t", 42, []),
    ("true", True, []),
    ("None", None, [("python_literal", 0)]),
    ('3\nresults: {"a": 1}', 3, [("trailing_text", 2)]),
    ("3 [1]", 3, [("trailing_text", 2)]),
    ("3 true", 3, [("trailing_text", 2)]),
    ("null - x", None, [("trailing_text", 5)]),
    ("true. {}", True, [("trailing_text", 4)]),
    ("-5", -5, []),
]


@pytest.mark.parametrize(("text", "expected", "repairs"), PROSE_FIRST)
def test_prose_that_begins_like_a_value(text: str, expected: Any, repairs: Repairs) -> None:
    check(text, expected, repairs)


def test_a_held_scalar_is_not_shown_until_decided() -> None:
    choices: list[dict[str, Any]] = [{}, {"partial_numbers": True, "partial_literals": True}]
    for options in choices:
        parser = jsonsnap.Parser(repair=True, **options)
        for piece in ("3", " ", " ", "\t"):
            parser.feed(piece)
            assert parser.snapshot(NOTHING) is NOTHING, (options, piece)
        parser.feed("r")  # "3 r": the first word of prose
        parser.feed("esults: [1,")
        assert parser.snapshot() == [1]
        parser = jsonsnap.Parser(repair=True, **options)
        parser.feed("nul")
        assert parser.snapshot(NOTHING) is NOTHING
        parser.feed("l")
        assert parser.snapshot(NOTHING) is NOTHING
        parser.feed("\n")  # a newline ends the value
        assert parser.snapshot(NOTHING) is None
        assert parser.close() is None


@pytest.mark.parametrize("text", ["3 results: {}", "nullable: {}", "1) x: {}", "the answer: {}"])
def test_prose_before_a_checked_value_breaks_no_schema(text: str) -> None:
    for label, fragments in chunkings(text, rounds=1):
        for mode in ("raise", "collect"):
            parser = jsonsnap.Parser(schema={"type": "object"}, repair=True, on_violation=mode)
            for fragment in fragments:
                parser.feed(fragment)
            assert (parser.close(), parser.violations) == ({}, []), (label, mode)
    with pytest.raises(jsonsnap.SchemaError, match="found number"):
        jsonsnap.loads("3\nresults: {}", schema={"type": "object"}, repair=True)


def test_prose_is_prose_whichever_repairs_are_allowed() -> None:
    # Without leading_text, the prose is refused where strict JSON refuses it.
    check_error("3 results: [1]", 2, "Extra data", repair={"trailing_text"})
    check_error("2024-05-01: [1]", 4, "Extra data", repair={"trailing_text"})
    check_error("nullable: [1]", 4, "Extra data", repair={"trailing_text"})
    check("3\nresults", 3, [("trailing_text", 2)], repair={"trailing_text"})


# Prose made of words, numbers, dates and words that begin like a literal, before a value.
_LIKE_A_VALUE = st.sampled_from(
    [
        "3",
        "42",
        "-7",
        "2.5",
        "1e3",
        "2024-05-01",
        "12-31",
        "0123",
        "nullable",
        "Nonetheless",
        "nullify",
        "trueness",
        "falsehood",
        "Nonexistent",
        "undefinedness",
        "NaNs",
        "Infinityish",
        "truly",
        "n",
        "Tr",
    ]
)
_WORD = st.sampled_from(
    ["results", "found", "report", "issues", "here", "is", "the", "answer", "Nope", "items", "x"]
)
_ANY_WORD = st.one_of(_WORD, _LIKE_A_VALUE, st.sampled_from(["true", "null", "None", "42", "-"]))
_BLANKS = st.text(" \t", min_size=1, max_size=3)
_VALUE_WORDS = ("3", "42", "-7", "2.5", "1e3", "true", "false", "null", "None", "NaN")
_VALUE_WORD = st.sampled_from(_VALUE_WORDS)


@st.composite
def prose_before_value(draw: st.DrawFn) -> tuple[str, str]:
    """Prose that begins like a value (a number, a date, a word that begins like a literal, or
    a literal or number and then a word), then a JSON array or object; its text, and the
    value's."""
    first = draw(st.one_of(_LIKE_A_VALUE, _VALUE_WORD))
    if first in _VALUE_WORDS:  # a word must follow: at once ("3rd") or after spaces
        if draw(st.booleans()):
            first += draw(st.sampled_from(["rd", "th", "x", "_a"]))
        else:
            first += draw(_BLANKS) + draw(_WORD)
    rest = draw(st.lists(st.tuples(_BLANKS, _ANY_WORD), max_size=4))
    prose = first + "".join(gap + word for gap, word in rest)
    prose += draw(st.sampled_from([":", ":\n", "\n```json\n", " ", ",\n"]))
    value = draw(
        strategies.json_values(max_leaves=6).filter(lambda t: t.lstrip(" \t\n\r")[:1] in ("[", "{"))
    )
    return prose + value, value


@settings(max_examples=examples(40))
@given(prose_before_value())
def test_prose_before_a_value_gives_the_value_at_every_cut(case: tuple[str, str]) -> None:
    text, value_text = case
    expected = strict_loads(value_text)
    for label, fragments in chunkings(text, rounds=1):
        parser = jsonsnap.Parser(repair=True)
        previous: Any = NOTHING
        for fragment in fragments:
            parser.feed(fragment)
            current = parser.snapshot(NOTHING, copy=True)
            problem = grows(previous, current)
            assert problem is None, (text, label, problem)
            previous = current
        got = parser.close()
        assert diff(expected, got) is None, (text, label, got)
        assert [r.kind for r in parser.repairs][:1] == ["leading_text"], (text, parser.repairs)
        assert parser.repairs[0].pos == 0


@settings(max_examples=examples(30, default=15))
@given(st.data())
def test_several_values_read_tolerantly_as_strictly(data: st.DataObject) -> None:
    texts, stream = data.draw(several_values(), label="stream")
    cuts = data.draw(strategies.split_points(len(stream)), label="cuts")
    expected = [strict_loads(t) for t in texts]
    parser = jsonsnap.Parser(repair=True, multiple_values=True)
    got: list[Any] = []
    for fragment in strategies.fragments_at(stream, cuts):
        parser.feed(fragment)
        got += parser.read_values()
    got += parser.close()
    assert diff(expected, got) is None, (stream, expected, got)
    assert parser.repairs == []


# --------------------------------------------------------------------------- brackets in prose

BRACKETS: list[tuple[str, Any, Repairs]] = [
    ('Use [this] format: {"a": 1}', {"a": 1}, [("leading_text", 0)]),
    (
        'I will call [write_file] now.\n```json\n{"path": "x"}\n```',
        {"path": "x"},
        [("leading_text", 0), ("trailing_text", 52)],
    ),
    ("Result [see notes below]:\n[1]", [1], [("leading_text", 0)]),
    ('See [the docs](https://x.org), then {"a": 1}', {"a": 1}, [("leading_text", 0)]),
    ('Fill {name} and { other } in: {"a": 1}', {"a": 1}, [("leading_text", 0)]),
    ("Note [truest] and [nullable]: [null]", [None], [("leading_text", 0)]),
    ("A [/ b] c [2]", [2], [("leading_text", 0)]),
    # ... and brackets that begin a value
    ("As in [1], the value: {}", [1], [("leading_text", 0), ("trailing_text", 9)]),
    ("Here: [true, 1]", [True, 1], [("leading_text", 0)]),
    ("Here: [ ]", [], [("leading_text", 0)]),
    ("Here: {a: 1}", {"a": 1}, [("leading_text", 0), ("unquoted_key", 7)]),
    ("Here: {a// k\n: 1}", {"a": 1}, [("leading_text", 0), ("unquoted_key", 7), ("comment", 8)]),
    ("Here: {\n  'a': 1}", {"a": 1}, [("leading_text", 0), ("single_quotes", 10)]),
    ("Here: [ // one\n 1]", [1], [("leading_text", 0), ("comment", 8)]),
    ("Here: [Tr", [], [("leading_text", 0), ("unclosed", 9)]),
]


@pytest.mark.parametrize(("text", "expected", "repairs"), BRACKETS)
def test_brackets_in_prose(text: str, expected: Any, repairs: Repairs) -> None:
    check(text, expected, repairs)


def test_a_bracket_in_prose_is_decided_within_a_few_characters() -> None:
    # Past 15 characters after the bracket it begins a value (what is held stays short).
    check_error("x [" + " " * 16 + "this", 20, "Expecting value")
    check_error("x {" + "k" * 16 + "}", 19, "Expecting ':' delimiter")
    check("x [" + " " * 14 + "this] {" + "k" * 14 + "} [2]", [2], [("leading_text", 0)])
    for text in ("x [" + " " * 15 + "Infinit", "x [" + " " * 20 + "Infinit", "x {" + "k" * 15):
        parser = jsonsnap.Parser(repair=True)
        parser.feed(text)
        assert len(parser._auto.tail) <= 24, text
    check("x [" + " " * 30 + "1]", [1], [("leading_text", 0)])


# --------------------------------------------------------------------------- several values


SEVERAL: list[tuple[str, list[Any], Repairs]] = [
    ("[1] /**", [[1]], [("comment", 4), ("unclosed", 7)]),
    ("[1] /* c", [[1]], [("comment", 4), ("unclosed", 8)]),
    ("[1] //", [[1]], [("comment", 4)]),
    ("[1] /", [[1]], [("trailing_text", 4)]),
    ("1 2/*c*/ 3", [1, 2, 3], [("comment", 3)]),
    ("1/* c */ 2", [1, 2], [("comment", 1)]),
    ("1// c\n2", [1, 2], [("comment", 1)]),
    ("3 true null", [3, True, None], []),
    ("1 true story [2]", [1, [2]], [("leading_text", 2)]),
    ('{"a": 1}, {"b": 2}', [{"a": 1}, {"b": 2}], [("leading_text", 8)]),
    (
        '{"a": 1} then {"b": 2} done',
        [{"a": 1}, {"b": 2}],
        [("leading_text", 9), ("trailing_text", 23)],
    ),
    ('{"a": 1}\n3 results: [2]', [{"a": 1}, [2]], [("leading_text", 9)]),
    ('{"a": 1}\n```\n', [{"a": 1}], [("trailing_text", 9)]),
    (
        '```json\n{"a": 1}\n```\n\n```json\n{"b": 2}\n```',
        [{"a": 1}, {"b": 2}],
        [("leading_text", 0), ("leading_text", 17), ("trailing_text", 39)],
    ),
    ("[1] / 2 [3]", [[1], [3]], [("leading_text", 4)]),
]


@pytest.mark.parametrize(("text", "expected", "repairs"), SEVERAL)
def test_comments_and_text_between_values(text: str, expected: Any, repairs: Repairs) -> None:
    check(text, expected, repairs, multiple_values=True)


def test_text_between_values_with_one_kind_allowed() -> None:
    text = '{"a": 1} x {"b": 2}'
    # Text before a value only: it must be followed by one.
    check(
        text,
        [{"a": 1}, {"b": 2}],
        [("leading_text", 9)],
        multiple_values=True,
        repair={"leading_text"},
    )
    check_error('{"a": 1} x', 10, "Expecting value", multiple_values=True, repair={"leading_text"})
    # Text after the last value only: the rest of the input is ignored.
    check(text, [{"a": 1}], [("trailing_text", 9)], multiple_values=True, repair={"trailing_text"})
    check_error(text, 9, "Extra data", multiple_values=True, repair={"comment"})


def test_the_repair_kinds_say_what_they_read() -> None:
    assert jsonsnap.REPAIRS["leading_text"].startswith("text before a value")
    assert jsonsnap.REPAIRS["trailing_text"].startswith("text after the last")


# --------------------------------------------------------------------------- fuzz

_PROSE_TOKENS = (
    *REPAIR_TOKENS,
    "[this]",
    "{name}",
    "[1]",
    "[ ",
    "{ ",
    "3 results",
    "2024-05-01",
    "nullable",
    "Nonetheless",
    "true story",
    "/**",
    ", ",
    " ",
    "-",
    "3",
)
_PROSE_FUZZ = st.one_of(
    FUZZ_TEXTS,
    st.lists(
        st.one_of(st.sampled_from(_PROSE_TOKENS), strategies.scalar_literals()), max_size=20
    ).map("".join),
)


@settings(max_examples=examples(150))
@given(strategies.chunked(_PROSE_FUZZ))
@example(("[1] /**", ["[1] /**"]))
@example(("1 /*", ["1 /", "*"]))
def test_several_values_from_any_text_read_or_raise_the_same_however_cut(
    case: tuple[str, list[str]],
) -> None:
    text, fragments = case
    whole = parse([text], repair=True, multiple_values=True)
    cut = parse(fragments, repair=True, multiple_values=True)
    same_outcome(text, whole, cut, fragments)
    one = parse(fragments, repair=True)
    same_outcome(text, parse([text], repair=True), one, fragments)
    if whole.error is not None:
        assert 0 <= whole.error.pos <= len(text), (text, whole.error)


def test_regression_texts_that_raised_other_errors() -> None:
    # KeyError: 8 (an unclosed comment after a value), and the texts around it.
    for text in ("[1] /**", "[1] /*", "1 /**", "/**", '"a" /**', "[1] /", "1 /", "1 -", "[1] [x"):
        for multiple in (False, True):
            whole = parse([text], repair=True, multiple_values=multiple)
            for _, fragments in chunkings(text):
                cut = parse(fragments, repair=True, multiple_values=multiple)
                same_outcome(text, whole, cut, fragments)


@pytest.mark.parametrize("text", ["12.x", "12. ", "1e+ 2", "-x", "0.]"])
def test_an_unfinished_top_level_number_that_is_no_prose_gets_the_strict_error(text: str) -> None:
    """Only a whole number is held to see whether prose follows; a cut one (``12.``) that no
    repair allowed reads as prose is refused where strict JSON refuses it, at every cut."""
    with pytest.raises(jsonsnap.JSONDecodeError) as strict:
        jsonsnap.loads(text)
    for _label, fragments in chunkings(text):
        parser = jsonsnap.Parser(repair={"trailing_text"})
        with pytest.raises(jsonsnap.JSONDecodeError) as info:
            for fragment in fragments:
                parser.feed(fragment)
            parser.close()
        assert (info.value.msg, info.value.pos) == (strict.value.msg, strict.value.pos)
