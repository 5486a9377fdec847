"""Each Parser option, with table tests fed through every chunking."""

from __future__ import annotations

import decimal
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import pytest

import jsonsnap
from chunking import chunkings
from values import NOTHING, diff


def snapshots(text: str, expected: object, **options: Any) -> None:
    """The snapshot after the whole of ``text`` is ``expected`` for every chunking."""
    problems: list[str] = []
    for label, fragments in chunkings(text):
        parser = jsonsnap.Parser(**options)
        for fragment in fragments:
            parser.feed(fragment)
        problem = diff(expected, parser.snapshot(NOTHING))
        if problem is not None:
            problems.append(f"{label}: {problem}")
    assert not problems, f"{text!r} with {options}:\n" + "\n".join(problems[:4])


def finals(text: str, expected: object, **options: Any) -> None:
    """``close()`` returns ``expected`` for every chunking."""
    problems: list[str] = []
    for label, fragments in chunkings(text):
        parser = jsonsnap.Parser(**options)
        for fragment in fragments:
            parser.feed(fragment)
        problem = diff(expected, parser.close())
        if problem is not None:
            problems.append(f"{label}: {problem}")
    assert not problems, f"{text!r} with {options}:\n" + "\n".join(problems[:4])


def error_pos(text: str, **options: Any) -> tuple[int, bool]:
    """``(pos, incomplete)`` of the error, checked to be the same for every chunking."""
    seen: set[tuple[int, bool]] = set()
    for label, fragments in chunkings(text):
        parser = jsonsnap.Parser(**options)
        try:
            for fragment in fragments:
                parser.feed(fragment)
            parser.close()
        except jsonsnap.JSONDecodeError as err:
            seen.add((err.pos, err.incomplete))
        else:
            pytest.fail(f"{text!r} with {options}: {label}: accepted")
    assert len(seen) == 1, f"{text!r}: the error depends on the chunking: {seen}"
    return seen.pop()


def ids(cases: Sequence[tuple[object, ...]]) -> list[str]:
    return [ascii(case[0])[:60] for case in cases]


def table(cases: list[tuple[str, object]]) -> Callable[[Callable[..., None]], Any]:
    return pytest.mark.parametrize(("text", "expected"), cases, ids=ids(cases))


# partial_strings=False: an unfinished string shows nothing, and a member whose value is an
# unfinished string does not appear.
NO_PARTIAL_STRINGS: list[tuple[str, object]] = [
    ('["ab', []),
    ('"ab', NOTHING),
    ('"', NOTHING),
    ('["', []),
    ('{"a": "x', {}),
    ('{"a": "', {}),
    ('{"a": "x"', {"a": "x"}),
    ('["a", "b', ["a"]),
    ('"ab"', "ab"),
    ('{"a": ["x', {"a": []}),
    ('{"a": 1, "b": "xy', {"a": 1}),
    ('{"a": "x", "b": "', {"a": "x"}),
    ('["\\u00e9', []),
    ('["\\u00e9"', ["\u00e9"]),
    ("[1, tru", [1]),
    ("[1, true", [1, True]),
    ("[1, 2", [1]),
]


@table(NO_PARTIAL_STRINGS)
def test_partial_strings_false(text: str, expected: object) -> None:
    snapshots(text, expected, partial_strings=False)


@table([('["ab', ["ab"]), ('{"a": "', {"a": ""}), ('"', "")])
def test_partial_strings_true_is_default(text: str, expected: object) -> None:
    snapshots(text, expected, partial_strings=True)
    snapshots(text, expected)


# partial_numbers=True: an unfinished number shows as the longest part of it that is a number.
PARTIAL_NUMBERS: list[tuple[str, object]] = [
    ("[1, 2", [1, 2]),
    ("[1.", [1]),
    ("[1.5", [1.5]),
    ("[1.5e", [1.5]),
    ("[1.5e-", [1.5]),
    ("[1.5e-3", [0.0015]),
    ("[-", []),
    ("[-1", [-1]),
    ("[1e5", [100000.0]),
    ("[0", [0]),
    ("[-0.0", [-0.0]),
    ('{"a": 1', {"a": 1}),
    ('{"a": -', {}),
    ("12", 12),
    ("-", NOTHING),
    ("-0.", 0),
    ("1.5E", 1.5),
    ("[1e400", [math.inf]),
    ("[12, 3", [12, 3]),
]


@table(PARTIAL_NUMBERS)
def test_partial_numbers(text: str, expected: object) -> None:
    snapshots(text, expected, partial_numbers=True)


@table([("[1, 2", [1]), ("[1.5", []), ("12", NOTHING), ('{"a": 1', {})])
def test_partial_numbers_false_is_default(text: str, expected: object) -> None:
    snapshots(text, expected, partial_numbers=False)
    snapshots(text, expected)


# partial_literals=True: an unfinished literal shows as the value it must become.
PARTIAL_LITERALS: list[tuple[str, object]] = [
    ("[tr", [True]),
    ("[t", [True]),
    ("[f", [False]),
    ("[fals", [False]),
    ("[n", [None]),
    ('{"a": nu', {"a": None}),
    ('{"a": t', {"a": True}),
    ("t", True),
    ("nul", None),
    ("[true, f", [True, False]),
    ("[1, 2", [1]),
]


@table(PARTIAL_LITERALS)
def test_partial_literals(text: str, expected: object) -> None:
    snapshots(text, expected, partial_literals=True)


@pytest.mark.parametrize(("text", "pos"), [("[tx", 2), ("[trux", 4), ("nulL", 3), ("[fa1", 3)])
def test_partial_literals_still_reject_bad_literals(text: str, pos: int) -> None:
    assert error_pos(text, partial_literals=True) == (pos, False)


def test_partial_options_combined() -> None:
    options = {"partial_strings": False, "partial_numbers": True, "partial_literals": True}
    snapshots('{"a": [1, "xy', {"a": [1]}, **options)
    snapshots('{"a": [1, "x", tr', {"a": [1, "x", True]}, **options)
    snapshots('{"a": [1, "x", 2', {"a": [1, "x", 2]}, **options)
    snapshots('{"a": 12', {"a": 12}, **options)


# allow_nan=True accepts NaN, Infinity and -Infinity.
NAN = math.nan
INF = math.inf
ALLOW_NAN_FINAL: list[tuple[str, object]] = [
    ("[NaN, Infinity, -Infinity]", [NAN, INF, -INF]),
    ("NaN", NAN),
    ("Infinity", INF),
    ("-Infinity", -INF),
    ('{"a": NaN, "b": -Infinity}', {"a": NAN, "b": -INF}),
    (" [ NaN ] ", [NAN]),
]


@table(ALLOW_NAN_FINAL)
def test_allow_nan_final(text: str, expected: object) -> None:
    finals(text, expected, allow_nan=True)
    assert diff(json.loads(text), expected) is None


ALLOW_NAN_SNAPSHOTS: list[tuple[str, object]] = [
    ("[NaN,", [NAN]),
    ("[Infinity ", [INF]),
    ("[-Infinity,", [-INF]),
    ("[Na", []),
    ("[-Inf", []),
    ('{"a": NaN, "b": Infin', {"a": NAN}),
    # Finished constants, like finished literals (rule 4), need no delimiter.
    ("[NaN", [NAN]),
    ("[-Infinity", [-INF]),
]


@table(ALLOW_NAN_SNAPSHOTS)
def test_allow_nan_snapshots(text: str, expected: object) -> None:
    snapshots(text, expected, allow_nan=True)


NAN_REJECTED: list[tuple[str, int]] = [
    ("NaN", 0),
    ("[NaN]", 1),
    ("Infinity", 0),
    ("-Infinity", 1),
    ("[1, -Infinity]", 5),
    ('{"a": NaN}', 6),
    ("[Infinity, 1]", 1),
]


@pytest.mark.parametrize(("text", "pos"), NAN_REJECTED, ids=ids(NAN_REJECTED))
def test_nan_rejected_by_default(text: str, pos: int) -> None:
    assert error_pos(text) == (pos, False)
    assert error_pos(text, allow_nan=False) == (pos, False)


ALWAYS_REJECTED: list[tuple[str, int]] = [
    ("nan", 1),
    ("-NaN", 1),
    ("+Infinity", 0),
    ("infinity", 0),
    ("[NaNa]", 4),
    ("[Infinite]", 8),
    ("-infinity", 1),
]


@pytest.mark.parametrize(("text", "pos"), ALWAYS_REJECTED, ids=ids(ALWAYS_REJECTED))
def test_allow_nan_still_rejects_other_spellings(text: str, pos: int) -> None:
    assert error_pos(text, allow_nan=True) == (pos, False)


@pytest.mark.parametrize("text", ["NaN", "[Inf", "-Infinit", "[-"])
def test_allow_nan_incomplete(text: str) -> None:
    if text == "NaN":
        finals(text, NAN, allow_nan=True)
    else:
        assert error_pos(text, allow_nan=True) == (len(text), True)


DOC_NUMBERS = '[1.5, 2, -0.0, 1e3, 0.1, 12345678901234567890.5, {"a": [3.25, -7]}, 1E400]'


def test_parse_float_decimal() -> None:
    expected = json.loads(DOC_NUMBERS, parse_float=decimal.Decimal)
    assert isinstance(expected[0], decimal.Decimal)
    finals(DOC_NUMBERS, expected, parse_float=decimal.Decimal)
    assert diff(expected, jsonsnap.loads(DOC_NUMBERS, parse_float=decimal.Decimal)) is None


@pytest.mark.parametrize("hook", [str, float], ids=["str", "float"])
def test_parse_int(hook: Callable[[str], object]) -> None:
    doc = '[1, -2, 30, 0, -0, 1.5, {"a": 7}, ' + "9" * 400 + "]"
    expected = json.loads(doc, parse_int=hook)
    finals(doc, expected, parse_int=hook)


def test_parse_int_top_level() -> None:
    finals("42", "42", parse_int=str)
    finals("-7 ", -7.0, parse_int=float)


def test_parse_constant() -> None:
    def hook(name: str) -> str:
        return f"const:{name}"

    doc = '[NaN, Infinity, -Infinity, {"a": NaN}, 1.5]'
    expected = json.loads(doc, parse_constant=hook)
    assert expected[0] == "const:NaN"
    finals(doc, expected, allow_nan=True, parse_constant=hook)


@dataclass(frozen=True)
class Hooked:
    value: dict[str, Any]


DOC_OBJECTS = '{"a": {"b": 1, "c": [{"d": null}, {}]}, "e": [], "a2": {"x": "y"}, "a": 3}'


def test_object_hook() -> None:
    expected = json.loads(DOC_OBJECTS, object_hook=Hooked)
    assert isinstance(expected, Hooked)
    finals(DOC_OBJECTS, expected, object_hook=Hooked)
    finals("[{}]", [Hooked({})], object_hook=Hooked)


def test_object_pairs_hook_keeps_duplicates() -> None:
    doc = '{"a": 1, "a": 2, "b": {"c": 3, "c": [4]}, "d": [{}]}'
    expected = json.loads(doc, object_pairs_hook=list)
    assert expected[0] == ("a", 1) and expected[1] == ("a", 2)
    finals(doc, expected, object_pairs_hook=list)
    finals(DOC_OBJECTS, json.loads(DOC_OBJECTS, object_pairs_hook=list), object_pairs_hook=list)


def test_object_pairs_hook_wins_over_object_hook() -> None:
    expected = json.loads(DOC_OBJECTS, object_hook=Hooked, object_pairs_hook=tuple)
    finals(DOC_OBJECTS, expected, object_hook=Hooked, object_pairs_hook=tuple)


@pytest.mark.parametrize("hooks", ["object_hook", "object_pairs_hook"])
def test_hooked_snapshot_while_streaming_is_a_dict(hooks: str) -> None:
    options: dict[str, Any] = {hooks: Hooked if hooks == "object_hook" else list}
    text = '{"a": 1, "a": 2, "b": {"c": 3, "d": [{"e": "f'
    snapshots(text, {"a": 2, "b": {"c": 3, "d": [{"e": "f"}]}}, **options)
    for label, fragments in chunkings(text):
        parser = jsonsnap.Parser(**options)
        for fragment in fragments:
            parser.feed(fragment)
        parser.feed('"}]}}')
        final = parser.close()
        assert diff(json.loads(text + '"}]}}', **options), final) is None, label


# max_depth=N: the bracket that opens level N+1 raises at its own position.
MAX_DEPTH_REJECTED: list[tuple[str, int, int]] = [
    ("[[]]", 1, 1),
    ("[[[]]]", 2, 2),
    ("[[], [[]]]", 2, 6),
    ('{"a": {"b": {"c": 1}}}', 2, 12),
    ('[{"a": [', 2, 7),
    ("[" * 6, 5, 5),
    ('{"x": [1, 2, {"y": [[]]}]}', 3, 19),
    ("[" * 100_000, 1000, 1000),
]


@pytest.mark.parametrize(("text", "depth", "pos"), MAX_DEPTH_REJECTED, ids=ids(MAX_DEPTH_REJECTED))
def test_max_depth_rejects_deeper(text: str, depth: int, pos: int) -> None:
    assert error_pos(text, max_depth=depth) == (pos, False)


MAX_DEPTH_ACCEPTED: list[tuple[str, int]] = [
    ("[]", 1),
    ("[[]]", 2),
    ("[[], [], {}]", 2),
    ('{"a": {"b": {"c": 1}}}', 3),
    ('{"x": [1, 2, {"y": [[]]}]}', 5),
    ("[" * 64 + "]" * 64, 64),
    ('"[[[[" ', 1),
    ("1 ", 1),
    ('[{"a": [{"b": []}]}]', 5),
]


@pytest.mark.parametrize(("text", "depth"), MAX_DEPTH_ACCEPTED, ids=ids(MAX_DEPTH_ACCEPTED))
def test_max_depth_accepts_exact_depth(text: str, depth: int) -> None:
    finals(text, json.loads(text), max_depth=depth)


@pytest.mark.parametrize("depth", [1, 2, 3, 10, 500])
def test_max_depth_boundary(depth: int) -> None:
    ok = "[" * depth + "]" * depth
    finals(ok, json.loads(ok), max_depth=depth)
    bad = "[" * (depth + 1) + "]" * (depth + 1)
    assert error_pos(bad, max_depth=depth) == (depth, False)
    objects = '{"k":' * depth + "0" + "}" * depth
    finals(objects, json.loads(objects), max_depth=depth)
    deeper = '{"k":' * (depth + 1) + "0" + "}" * (depth + 1)
    assert error_pos(deeper, max_depth=depth) == (5 * depth, False)


def test_no_max_depth_by_default() -> None:
    text = "[" * 100_000
    for label, fragments in chunkings(text, rounds=2):
        parser = jsonsnap.Parser()
        for fragment in fragments:
            parser.feed(fragment)
        with pytest.raises(jsonsnap.JSONDecodeError) as info:
            parser.close()
        assert info.value.incomplete, label
        assert info.value.pos == 100_000, label
    closed = "[" * 100_000 + "]" * 100_000
    value = jsonsnap.loads(closed)
    depth = 0
    while isinstance(value, list) and value:
        value = value[0]
        depth += 1
    assert depth == 99_999 and value == []


@pytest.mark.parametrize("hooks", ["object_hook", "object_pairs_hook"])
def test_hooks_on_deep_nesting(hooks: str) -> None:
    options: dict[str, Any] = {hooks: Hooked if hooks == "object_hook" else list}
    text = '{"a":' * 50_000 + "1" + "}" * 50_000
    value = jsonsnap.loads(text, **options)
    depth = 0
    while not isinstance(value, int):
        value = value.value["a"] if isinstance(value, Hooked) else value[0][1]
        depth += 1
    assert depth == 50_000 and value == 1
