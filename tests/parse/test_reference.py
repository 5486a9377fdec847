"""Tests of the reference recognizer (tests/helpers/reference.py) against json.loads.

The recognizer is the oracle for error positions in test_properties.py, so it is checked here
on its own: hand-picked JSONTestSuite-style cases with their exact first-error index, and
properties tying it to json.loads (with NaN/Infinity refused) on generated and random text.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import effort
import strategies
from effort import examples
from reference import NOTHING, completion, first_error, is_complete, snapshot_model
from values import diff, oracle, strict_loads

#: Documents up to this long have every prefix checked; longer ones the first and last few
#: and a seeded sample (every prefix of every document in the thorough profile).
PREFIX_LIMIT = 60
PREFIX_SAMPLE = 40


def loads_ok(text: str) -> bool:
    """Whether json.loads, with NaN and Infinity refused, accepts ``text``."""
    return oracle(text)[0]


# --------------------------------------------------------------------------- hand examples

#: (text, index of the first character that no valid continuation could accept)
ERRORS: list[tuple[str, int]] = [
    ('{"a" 1}', 5),
    ("[1 2]", 3),
    ("01", 1),
    ("-01", 2),
    ("[01]", 2),
    ("tx", 1),
    ("[1,]", 3),
    ('"a\\x', 3),
    ('{"a":1}x', 7),
    ("NaN", 0),
    ("[NaN]", 1),
    ("-NaN", 1),
    ("Infinity", 0),
    ("-Infinity", 1),
    ("1.e5", 2),
    ("[.1]", 1),
    ("[+1]", 1),
    ("[0x1]", 2),
    ("[1e]", 3),
    ("[1e+]", 4),
    ("[1E-x]", 4),
    ("[-]", 2),
    ("[- 1]", 2),
    ("[1.]", 3),
    ("-.5", 1),
    ("0.e1", 2),
    ("[,1]", 1),
    ("[1,,2]", 3),
    ('{"a":1,}', 7),
    ("{,}", 1),
    ("{1:1}", 1),
    ("{'a':1}", 1),
    ('{"a":1 "b":2}', 7),
    ('{"a"::1}', 5),
    ('{"a",1}', 4),
    ('["a":1]', 4),
    ('{"a":1]', 6),
    ('["a"}', 4),
    ("]", 0),
    ("}", 0),
    ("[]]", 2),
    ("[] []", 3),
    ("1 2", 2),
    ('"a" "b"', 4),
    ("true false", 5),
    ("True", 0),
    ("nul1", 3),
    ("truee", 4),
    ("[tru]", 4),
    ('"\x00"', 1),
    ('"a\nb"', 2),
    ('"\t"', 1),
    ('"\x1f"', 1),
    ('"\\u00g0"', 5),
    ('"\\uqqqq"', 3),
    ('"\\U0041"', 2),
    ('"\\a"', 2),
    ("'a'", 0),
    ("\ufeff[]", 0),
    ("[\x0c]", 1),  # form feed is not JSON whitespace
    ("[\xa0]", 1),  # nor is NBSP
    ("[\u2028]", 1),  # nor U+2028 outside strings
    ("[\x0b1]", 1),  # nor vertical tab
    ("[1\x00]", 2),
    ("[\u0661]", 1),  # ARABIC-INDIC DIGIT ONE is not a JSON digit
    ("1\u0661", 1),
    ("[1e\u0661]", 3),
    ("/* c */ 1", 0),
    ("[1] // c", 4),
    ('{"a":1}{', 7),
]
#: Valid prefixes that are not whole documents.
INCOMPLETE = [
    "",
    " ",
    "\n\t\r ",
    "[",
    "{",
    '{"a"',
    '{"a":',
    '{"a": 1',
    "[1,",
    "-",
    "1.",
    "1e",
    "1e+",
    '"',
    '"abc',
    '"\\',
    '"\\u',
    '"\\u00',
    '"\\uD800',
    '"\\uD800\\u',
    "t",
    "nul",
    "[[[[",
    '{"a":{"b":[',
    '[""',
    "[-0",
    "[1",
    '"\\uDBFF\\uDC0',
    '"\\"',
]
#: Whole documents (json.loads accepts them; NaN/Infinity never among them).
VALID = [
    "0",
    "-0",
    "-0.0",
    "1e5",
    "1E+05",
    "1.5e-3",
    "0e0",
    "-0E-0",
    "1e400",
    "123" * 100,
    " 1 ",
    "\t\r\n1\n",
    "[]",
    "{}",
    "[ ]",
    "{ }",
    '""',
    '"\\u0000"',
    '"\\uD800"',
    '"\\udc00\\ud800"',
    '"\\uD83D\\uDE00"',
    '"\\ud83d\\ude00"',
    '"\u2028\u2029\x7f"',
    '"\\/\\b\\f\\n\\r\\t\\"\\\\"',
    '{"a":[1,{"b":null}],"c":true,"d":false}',
    "[" * 30 + "]" * 30,
    '{"":""}',
    '"\ufeff"',
    '{"a":1,"a":2}',
    "[1,2e3,-4.5E-6]",
    '"\\u00e9\\u00E9"',
    '"😀中"',
]


@pytest.mark.parametrize(("text", "expected"), ERRORS)
def test_first_error_hand_examples(text: str, expected: int) -> None:
    assert first_error(text) == expected
    assert not is_complete(text)
    assert not loads_ok(text)


@pytest.mark.parametrize("text", INCOMPLETE)
def test_incomplete_hand_examples(text: str) -> None:
    assert first_error(text) is None
    assert not is_complete(text)
    assert not loads_ok(text)
    suffix = completion(text)
    assert suffix
    assert loads_ok(text + suffix)


@pytest.mark.parametrize("text", VALID)
def test_valid_hand_examples(text: str) -> None:
    assert loads_ok(text)
    assert first_error(text) is None
    assert is_complete(text)
    assert completion(text) == ""


def test_hand_lists_have_no_duplicates() -> None:
    assert len({t for t, _ in ERRORS}) == len(ERRORS)
    assert len(set(INCOMPLETE)) == len(INCOMPLETE)
    assert len(set(VALID)) == len(VALID)


# --------------------------------------------------------------------------- properties

#: Suffixes tried after a claimed error: none of them may turn the text into a document.
PROBE_SUFFIXES = [
    "",
    " ",
    '"',
    "0",
    "]",
    "}",
    '"]',
    '"}',
    "0]",
    "0}",
    ":0}",
    "]]",
    "}}",
    "e0",
    '":0}',
    "rue",
    "ull",
    "alse",
    '0000"',
    'n"',
    '"]]]}}}',
]


def _check_against_json_loads(text: str) -> None:
    """The recognizer's answer for ``text`` agrees with json.loads as far as it can be checked."""
    err = first_error(text)
    assert loads_ok(text) == (err is None and is_complete(text)), (text, err)
    good = text if err is None else text[:err]
    # Everything before the first error is a valid prefix: it can be completed.
    assert first_error(good) is None
    assert loads_ok(good + completion(good)), (good, completion(good))
    if err is not None:
        # After the bad character, no probe completes the document.
        bad = text[: err + 1]
        for suffix in [*PROBE_SUFFIXES, completion(good)]:
            assert not loads_ok(bad + suffix), (bad, suffix)


@settings(max_examples=examples(300, default=150))
@given(strategies.json_documents())
def test_generated_documents_are_complete(text: str) -> None:
    assert loads_ok(text)
    assert first_error(text) is None
    assert is_complete(text)


@settings(max_examples=examples(150))
@given(strategies.json_documents(max_leaves=8))
def test_every_prefix_of_a_document_is_valid(text: str) -> None:
    cuts = effort.positions(
        0,
        len(text) + 1,
        limit=PREFIX_LIMIT,
        thorough_limit=len(text) + 1,
        sample=PREFIX_SAMPLE,
        seed=effort.seed_of(text),
    )
    for cut in cuts:
        prefix = text[:cut]
        assert first_error(prefix) is None, prefix
        assert is_complete(prefix) == loads_ok(prefix), prefix
    assert loads_ok(text[:0] + completion(""))


@settings(max_examples=examples(600))
@given(strategies.json_ish_text())
def test_agrees_with_json_loads_on_random_text(text: str) -> None:
    _check_against_json_loads(text)


@settings(max_examples=examples(300))
@given(strategies.corrupted_documents())
def test_agrees_with_json_loads_on_corrupted_documents(text: str) -> None:
    _check_against_json_loads(text)


@settings(max_examples=examples(200))
@given(st.text(max_size=30))
def test_agrees_with_json_loads_on_arbitrary_text(text: str) -> None:
    _check_against_json_loads(text)


# --------------------------------------------------------------------------- snapshot model

#: (valid prefix, snapshot the spec prescribes) -- the examples written in the spec itself.
SNAPSHOTS: list[tuple[str, Any]] = [
    ("", NOTHING),
    ("  ", NOTHING),
    ('{"a": ', {}),
    ('{"a": "', {"a": ""}),
    ('{"a"', {}),
    ('{"a', {}),
    ('{"a": [', {"a": []}),
    ('{"a": 1', {}),
    ('{"a": 1 ', {"a": 1}),
    ('{"a": tr', {}),
    ('{"a": true', {"a": True}),
    ('"ab', "ab"),
    ("12", NOTHING),
    ("12 ", 12),
    ("-", NOTHING),
    ("[1, 2", [1]),
    ("[1, 2]", [1, 2]),
    ("[-0.0,", [-0.0]),
    ("[1e400 ", [float("inf")]),
    ('"a\\', "a"),
    ('"a\\u00e', "a"),
    ('"a\\u00e9', "a\u00e9"),
    ('"\\uD800', ""),
    ('"\\uD800\\', ""),
    ('"\\uD800\\u', ""),
    ('"\\uD800\\udC', ""),
    ('"\\uD800\\udC0', ""),
    ('"\\uD800\\u0', "\ud800"),
    ('"\\uD800\\uD', ""),
    ('"\\uD800\\uDB', "\ud800"),
    ('"\\uD800\\n', "\ud800\n"),
    ('"\\uD800x', "\ud800x"),
    ('"\\uD83D\\uDE00', "\U0001f600"),
    ('"\\uDE00', "\ude00"),
    ('"\\uD800\\uD800', "\ud800"),
    ('["\\"",', ['"']),
    ('{"a":1,"b":[{"c":"x\\n', {"a": 1, "b": [{"c": "x\n"}]}),
    ("[[], {}, [", [[], {}, []]),
    ("[nul", []),
    ("[null", [None]),
]


@pytest.mark.parametrize(("text", "expected"), SNAPSHOTS)
def test_snapshot_model_hand_examples(text: str, expected: Any) -> None:
    problem = diff(expected, snapshot_model(text))
    assert problem is None, problem


@settings(max_examples=examples(150))
@given(strategies.json_documents(max_leaves=10))
def test_snapshot_model_of_a_whole_document_is_json_loads(text: str) -> None:
    # The trailing space ends a top-level number, which is otherwise held back until close().
    problem = diff(strict_loads(text), snapshot_model(text + " "))
    assert problem is None, (text, problem)
