"""The snapshot rules 1-7, table by table, each input fed through every chunking.

For each table entry the snapshot after the whole text is fed must equal the expected value
exactly (types, key order and the sign of zero included) whatever the chunking; fed one
character at a time, every snapshot must only grow (rule 0: nothing shown is taken back or
changes type); and ``close()`` must agree with ``json.loads`` (value, or an error for both).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from typing import Any

import pytest

import jsonsnap
from chunking import chunkings
from values import NOTHING, diff, grows, oracle, show


def check(text: str, expected: object, *, growth: bool = True, **options: Any) -> None:
    """Feed ``text`` through every chunking and check snapshot, growth and final value."""
    ok, final = oracle(text)
    problems: list[str] = []
    for label, fragments in chunkings(text):
        parser = jsonsnap.Parser(**options)
        previous: object = NOTHING
        feed: Callable[[str], object] = parser.feed
        fed = 0
        before = parser.snapshot(NOTHING, copy=True)
        for fragment in fragments:
            changed = feed(fragment)
            after = parser.snapshot(NOTHING, copy=True)
            # feed() says whether the snapshot changed: exactly, but for a duplicate key that
            # brings back an equal value within one fragment (a change all the same).
            differs = diff(before, after) is not None
            assert changed is differs or (changed and not growth), (label, fragment, after)
            before = after
            fed += len(fragment)
            if growth and label == "1-char":
                current = parser.snapshot(NOTHING, copy=True)
                problem = grows(previous, current)
                if problem is not None:
                    problems.append(f"{label}: after {text[:fed]!r} snapshot went back: {problem}")
                previous = current
        problem = diff(expected, parser.snapshot(NOTHING))
        if problem is not None:
            problems.append(f"{label}: snapshot {problem}")
        try:
            value = parser.close()
        except jsonsnap.JSONDecodeError as err:
            if ok:
                problems.append(f"{label}: close() raised {err} but json.loads gives {show(final)}")
        else:
            if not ok:
                problems.append(f"{label}: close() returned {show(value)}, json.loads rejects")
            else:
                problem = diff(final, value)
                if problem is not None:
                    problems.append(f"{label}: close() {problem}")
        if len(problems) >= 4:
            break
    assert not problems, f"{text!r}:\n" + "\n".join(problems)


def prefixes(*steps: tuple[str, object]) -> list[tuple[str, object]]:
    """Every prefix of a document with its expected snapshot.

    Each step is ``(piece, expected)``: every prefix that ends inside ``piece`` (or at its end)
    must show ``expected``.
    """
    cases: list[tuple[str, object]] = []
    text = ""
    for piece, expected in steps:
        for char in piece:
            text += char
            cases.append((text, expected))
    return cases


def ids(cases: Sequence[tuple[str, object]]) -> list[str]:
    return [ascii(text)[:60] for text, _ in cases]


def table(cases: list[tuple[str, object]]) -> Callable[[Callable[..., None]], Any]:
    return pytest.mark.parametrize(("text", "expected"), cases, ids=ids(cases))


# Rule 1: complete values appear exactly as json.loads returns them.
BIG = "9" * 400
RULE1: list[tuple[str, object]] = [
    (doc, json.loads(doc))
    for doc in [
        "[1, 1.0, -0.0, 0, -0, 1e2, 1E+2, 1E400, -1E400, 1e-400, 0.5, -12.5e-3]",
        '{"a": 1, "b": [true, false, null], "c": {"d": "e"}, "f": {}, "g": []}',
        '"abc"',
        "true",
        "false",
        "null",
        "[]",
        "{}",
        " [ ] ",
        "[[[]]]",
        '[{"a": [{"b": {}}]}]',
        f"[{BIG}, -{BIG}, {BIG}.5]",
        '{"k\\u00e9y": "v"}',
        '"\\u00e9\\u20ac\\ud83d\\ude00"',
        "[1.0]",
        "[-0.0]",
        "[1E400]",
        "[-1e400]",
        "[1e-400]",
        '{"z": 1, "a": 2, "m": 3}',
    ]
] + [
    ("1.0 ", 1.0),
    ("-0.0 ", -0.0),
    ("-0 ", 0),
    ("12 ", 12),
    ("1E400 ", math.inf),
    ("0\n", 0),
    (f"{BIG} ", int(BIG)),
    (f"-{BIG}\t", -int(BIG)),
    ("[1.0, 1]", [1.0, 1]),
]


@table(RULE1)
def test_rule1_complete_values(text: str, expected: object) -> None:
    check(text, expected)


def test_rule1_types_of_numbers() -> None:
    value = jsonsnap.parse_partial("[1, 1.0, -0.0, 1E400, " + BIG + ", ")
    assert isinstance(value, list)
    assert [type(v) for v in value] == [int, float, float, float, int]
    assert math.copysign(1.0, value[2]) == -1.0
    assert value[3] == math.inf
    assert value[4] == int(BIG)


DUPLICATES: list[tuple[str, object]] = [
    ('{"a": 1, "b": 2, "a": 3}', {"a": 3, "b": 2}),
    ('{"a": 1, "a": 2', {"a": 1}),
    ('{"a": 1, "a": 2,', {"a": 2}),
    ('{"a": 1, "a": "x', {"a": "x"}),
    ('{"a": [1], "a": [', {"a": []}),
    ('{"a": {"b": 1}, "a": {', {"a": {}}),
    ('{"a": 1, "a": null', {"a": None}),
    # Rule 5: the second "a" has not shown anything yet, so the first value still stands.
    ('{"a": 1, "a": ', {"a": 1}),
    ('{"a": 1, "a"', {"a": 1}),
]


@table(DUPLICATES)
def test_duplicate_keys_overwrite(text: str, expected: object) -> None:
    check(text, expected, growth=False)


# Rule 2: unfinished strings show every decoded character; unfinished escapes are held back.
RULE2: list[tuple[str, object]] = [
    ('"ab', "ab"),
    ('["ab', ["ab"]),
    ('"a\\', "a"),
    ('"a\\n', "a\n"),
    ('"a\\u', "a"),
    ('"a\\u00', "a"),
    ('"a\\u00e', "a"),
    ('"a\\u00e9', "a\u00e9"),
    ('"\\n\\"\\\\\\/\\b\\f\\r\\t"', '\n"\\/\b\f\r\t'),
    ('["\\n", "\\"", "\\\\", "\\/", "\\b", "\\f", "\\r", "\\t"]', list('\n"\\/\b\f\r\t')),
    ('"\\u00e9"', "\u00e9"),
    ('"\\u00E9\\u20AC"', "\u00e9\u20ac"),
    ('"\\u0000"', "\x00"),
    ('"\\uD83D\\uDE00"', "\U0001f600"),
    ('"\u00e9\u20ac\U0001f600', "\u00e9\u20ac\U0001f600"),
    ('{"a": "x\\ty', {"a": "x\ty"}),
    ('"\x7f', "\x7f"),
    ('"\\ude00', "\ude00"),
    ('"\\ude00x"', "\ude00x"),
    ('"\\udfff\\ud83d', "\udfff"),
    ('"\ufeff\u2028"', "\ufeff\u2028"),
]


@table(RULE2)
def test_rule2_strings(text: str, expected: object) -> None:
    check(text, expected)


ESCAPE_PREFIXES = prefixes(
    ('"', ""), ("a", "a"), ("\\u00e", "a"), ("9", "a\u00e9"), ("b", "a\u00e9b"),
    ("\\", "a\u00e9b"), ("n", "a\u00e9b\n"), ("\\", "a\u00e9b\n"), ('"', 'a\u00e9b\n"'),
    ("\\", 'a\u00e9b\n"'), ("\\", 'a\u00e9b\n"\\'), ("\\", 'a\u00e9b\n"\\'),
    ("/", 'a\u00e9b\n"\\/'), ('"', 'a\u00e9b\n"\\/'),
)  # fmt: skip


@table(ESCAPE_PREFIXES)
def test_rule2_escape_prefixes(text: str, expected: object) -> None:
    check(text, expected)


EMOJI = "\U0001f600"
HIGH = "\ud83d"
SURROGATE_PREFIXES = (
    # A pair, split at every position: nothing of it shows until the low half is complete.
    prefixes(
        ("[", []), ('"', [""]), ("x", ["x"]), ("\\ud83d\\ude0", ["x"]), ("0", ["x" + EMOJI]),
        ("y", ["x" + EMOJI + "y"]), ('"]', ["x" + EMOJI + "y"]),
    )
    # A lone high surrogate followed by x: shown once the x confirms it is alone.
    + prefixes(("[", []), ('"\\ud83d', [""]), ("x", [HIGH + "x"]), ('"]', [HIGH + "x"]))
    # ... followed by the closing quote.
    + prefixes(("[", []), ('"\\ud83d', [""]), ('"', [HIGH]), ("]", [HIGH]))
    # ... followed by \n: the backslash alone could still start \uDC00.
    + prefixes(("[", []), ('"\\ud83d\\', [""]), ("n", [HIGH + "\n"]), ('"]', [HIGH + "\n"]))
    # ... followed by \u0041: "\u0" can no longer become a low surrogate.
    + prefixes(
        ("[", []), ('"\\ud83d\\u', [""]), ("0", [HIGH]), ("04", [HIGH]), ("1", [HIGH + "A"]),
        ('"]', [HIGH + "A"]),
    )
    # ... followed by another high surrogate, itself the start of a pair (json.loads keeps the
    # first one alone and combines the second with the low one).
    + prefixes(
        ("[", []), ('"\\ud83d\\ud', [""]), ("8", [HIGH]), ("3d\\ude0", [HIGH]),
        ("0", [HIGH + EMOJI]), ('"]', [HIGH + EMOJI]),
    )
    # ... followed by \uDB.. and \uE...: neither can be a low surrogate.
    + prefixes(("[", []), ('"\\ud83d\\uD', [""]), ("B", [HIGH]), ("FF", [HIGH]))
    + prefixes(('"\\ud83d\\u', ""), ("e", HIGH), ("00", HIGH), ("0", HIGH + "\ue000"),
       ('"', HIGH + "\ue000"))
    # Upper-case hex digits in a pair.
    + prefixes(('"\\uD83D\\uDE0', ""), ("0", EMOJI), ('"', EMOJI))
    # A lone low surrogate shows at once: nothing can combine with it.
    + prefixes(("[", []), ('"', [""]), ("\\ude0", [""]), ("0", ["\ude00"]), ('"]', ["\ude00"]))
)  # fmt: skip


@table(SURROGATE_PREFIXES)
def test_rule2_surrogates(text: str, expected: object) -> None:
    check(text, expected)


# Rule 3: an unfinished number is held back until a delimiter ends it.
RULE3: list[tuple[str, object]] = [
    ("[1, 2", [1]),
    ('{"a": 12 ', {"a": 12}),
    ("[1", []),
    ("[-", []),
    ("[1.", []),
    ("[1.5e", []),
    ("[1.5e+", []),
    ("[1.5e3", []),
    ("[1.5e3]", [1500.0]),
    ("[12,", [12]),
    ("[12 ", [12]),
    ("[12\n", [12]),
    ("[12\t", [12]),
    ("[12\r", [12]),
    ('{"a": 1', {}),
    ('{"a": 1}', {"a": 1}),
    ('{"a": 1, "b": 2', {"a": 1}),
    ("12", NOTHING),
    ("12 ", 12),
    ("-", NOTHING),
    ("-0", NOTHING),
    ("-0 ", 0),
    ("[-0.0 ", [-0.0]),
    ("[0", []),
    ("[0,", [0]),
    ("1.0", NOTHING),
    ("1.0\n", 1.0),
    ("[1, [2, [3", [1, [2, []]]),
    (f"[{BIG}", []),
    (f"[{BIG},", [int(BIG)]),
]


@table(RULE3)
def test_rule3_numbers(text: str, expected: object) -> None:
    check(text, expected)


NUMBER_PREFIXES = prefixes(
    ("[", []), ("12.5e-3", []), (",", [0.0125]), (" -4", [0.0125]), ("]", [0.0125, -4]),
)  # fmt: skip


@table(NUMBER_PREFIXES)
def test_rule3_number_prefixes(text: str, expected: object) -> None:
    check(text, expected)


# Rule 4: unfinished literals are held back, finished ones show.
RULE4: list[tuple[str, object]] = [
    ("[tr", []),
    ("[true", [True]),
    ("[fals", []),
    ("[false", [False]),
    ("[nul", []),
    ("[null", [None]),
    ('{"a": nu', {}),
    ('{"a": null', {"a": None}),
    ('{"a": t', {}),
    ('{"a": true', {"a": True}),
    ("t", NOTHING),
    ("tr", NOTHING),
    ("true", True),
    ("fals", NOTHING),
    ("false", False),
    ("nul", NOTHING),
    ("null", None),
    (" true ", True),
]
RULE4_PREFIXES = prefixes(
    ("[", []), ("tru", []), ("e", [True]), (", ", [True]), ("fals", [True]),
    ("e", [True, False]), (", nul", [True, False]), ("l", [True, False, None]),
    ("]", [True, False, None]),
)  # fmt: skip


@table(RULE4)
def test_rule4_literals(text: str, expected: object) -> None:
    check(text, expected)


@table(RULE4_PREFIXES)
def test_rule4_literal_prefixes(text: str, expected: object) -> None:
    check(text, expected)


# Rule 5: a member appears once its key is complete and its value shows something.
RULE5: list[tuple[str, object]] = [
    ('{"a": ', {}),
    ('{"a": "', {"a": ""}),
    ('{"a": [', {"a": []}),
    ('{"a": {', {"a": {}}),
    ('{"a"', {}),
    ('{"a":', {}),
    ('{"ab', {}),
    ('{"a\\', {}),
    ('{"a\\u00e9', {}),
    ('{"a\\u00e9": "', {"a\u00e9": ""}),
    ('{"a": 1, "b', {"a": 1}),
    ('{"a": 1, "b": tr', {"a": 1}),
    ('{"a": "x", "b": "y', {"a": "x", "b": "y"}),
    ('{"a": "\\ud83d', {"a": ""}),
]
RULE5_PREFIXES = prefixes(
    ("{", {}), ('"a', {}), ('"', {}), (": ", {}), ('"', {"a": ""}), ("x", {"a": "x"}),
    ('"', {"a": "x"}), (', "b": ', {"a": "x"}), ("[", {"a": "x", "b": []}),
    ("1", {"a": "x", "b": []}), (", ", {"a": "x", "b": [1]}),
    ("{", {"a": "x", "b": [1, {}]}), ('"c": nul', {"a": "x", "b": [1, {}]}),
    ("l", {"a": "x", "b": [1, {"c": None}]}), ('}], "d": ', {"a": "x", "b": [1, {"c": None}]}),
    ("{", {"a": "x", "b": [1, {"c": None}], "d": {}}),
    ("}", {"a": "x", "b": [1, {"c": None}], "d": {}}),
)  # fmt: skip


@table(RULE5)
def test_rule5_members(text: str, expected: object) -> None:
    check(text, expected)


@table(RULE5_PREFIXES)
def test_rule5_member_prefixes(text: str, expected: object) -> None:
    check(text, expected)


# Rule 6: open containers show their members so far.
RULE6: list[tuple[str, object]] = [
    ("{", {}),
    ("[", []),
    ("[[", [[]]),
    ("[{", [{}]),
    (" [ ", []),
    ("[\n\t\r ", []),
    ('[{}, [], ""', [{}, [], ""]),
    ('{"a": {"b": [1, {"c": ', {"a": {"b": [1, {}]}}),
    ("[[1, [2, [3", [[1, [2, []]]]),
    ("[[1, [2, [3]", [[1, [2, [3]]]]),
    ('[{"a": [{"b": [', [{"a": [{"b": []}]}]),
    ("[1, 2, 3,", [1, 2, 3]),
]


@table(RULE6)
def test_rule6_open_containers(text: str, expected: object) -> None:
    check(text, expected)


# Rule 7: the top level follows the same rules.
RULE7: list[tuple[str, object]] = [
    ('"ab', "ab"),
    ("12", NOTHING),
    ("", NOTHING),
    ("   ", NOTHING),
    ('"', ""),
    (' \n"', ""),
    ("null", None),
    ("{", {}),
    (" [", []),
    ('\n"a\\n', "a\n"),
    ("tr", NOTHING),
    ("-", NOTHING),
    ('"ab"', "ab"),
    ('"ab" ', "ab"),
    ("[] ", []),
]


@table(RULE7)
def test_rule7_top_level(text: str, expected: object) -> None:
    check(text, expected)


@pytest.mark.parametrize("text", ["", "   ", "tr", "12", "-", "\n\t", "nul", "-1.5e"])
def test_default_while_nothing_displayable(text: str) -> None:
    for label, fragments in chunkings(text):
        parser = jsonsnap.Parser()
        for fragment in fragments:
            parser.feed(fragment)
        assert parser.snapshot(NOTHING) is NOTHING, label
        assert parser.snapshot(default=NOTHING) is NOTHING, label
        # NOTHING has no __deepcopy__: a copied default would be another object.
        assert parser.snapshot(default=NOTHING, copy=True) is NOTHING, label
        assert parser.snapshot() is None, label
    assert jsonsnap.parse_partial(text, NOTHING) is NOTHING
    assert jsonsnap.parse_partial(text, default=NOTHING) is NOTHING
    assert jsonsnap.parse_partial(text) is None


@pytest.mark.parametrize(("text", "expected"), [('"', ""), ("null", None), ("[", [])])
def test_displayable_is_not_default(text: str, expected: object) -> None:
    for label, fragments in chunkings(text):
        parser = jsonsnap.Parser()
        for fragment in fragments:
            parser.feed(fragment)
        got = parser.snapshot(default=NOTHING)
        assert got is not NOTHING, label
        assert diff(expected, got) is None, label
    assert jsonsnap.parse_partial("null", default=NOTHING) is None


@pytest.mark.parametrize(
    "text", ["[1, 2", '{"a": [tr', '"ab\\u00', "", '{"a": 1, "b": {"c": "d"}}', "12", "12 "]
)
def test_parse_partial_and_loads_are_shortcuts(text: str) -> None:
    parser = jsonsnap.Parser()
    parser.feed(text)
    assert diff(parser.snapshot(NOTHING), jsonsnap.parse_partial(text, NOTHING)) is None
    ok, final = oracle(text)
    if ok:
        assert diff(final, jsonsnap.loads(text)) is None
    else:
        with pytest.raises(jsonsnap.JSONDecodeError):
            jsonsnap.loads(text)


def test_options_reach_parse_partial_and_loads() -> None:
    assert jsonsnap.parse_partial('["ab', partial_strings=False) == []
    assert jsonsnap.parse_partial("[1, 2", partial_numbers=True) == [1, 2]
    assert jsonsnap.loads("[1]", parse_int=str) == ["1"]


LIVE_DOC = '{"a": [1, 2, {"b": "xyz"}], "c": {"d": [true, "\\u00e9"]}, "e": []}'


def containers(value: object) -> dict[tuple[object, ...], object]:
    """Every list and dict inside ``value``, by path (iterative)."""
    found: dict[tuple[object, ...], object] = {}
    stack: list[tuple[tuple[object, ...], object]] = [((), value)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, list):
            found[path] = node
            stack.extend(((*path, i), child) for i, child in enumerate(node))
        elif isinstance(node, dict):
            found[path] = node
            stack.extend(((*path, key), child) for key, child in node.items())
    return found


def test_live_view_grows_in_place() -> None:
    for label, fragments in chunkings(LIVE_DOC):
        parser = jsonsnap.Parser()
        seen: dict[tuple[object, ...], object] = {}
        live: object = NOTHING
        for fragment in fragments:
            parser.feed(fragment)
            current = parser.snapshot(NOTHING)
            if live is NOTHING:
                live = current
            assert current is live, f"{label}: snapshot() is a new object"
            assert diff(parser.snapshot(NOTHING, copy=True), live) is None, label
            for path, node in containers(current).items():
                assert seen.setdefault(path, node) is node, f"{label}: {path} replaced"
        assert diff(json.loads(LIVE_DOC), live) is None, label
        assert set(seen) == set(containers(json.loads(LIVE_DOC))), label


def test_live_view_sees_growing_strings() -> None:
    parser = jsonsnap.Parser()
    parser.feed('["ab')
    live = parser.snapshot()
    assert live == ["ab"]
    parser.feed("c")
    assert live == ["abc"]
    parser.feed('", 1')
    assert live == ["abc"]
    parser.feed(",")
    assert live == ["abc", 1]


def test_copy_is_independent() -> None:
    text = '{"a": [1, {"b": [2]}], "c": "x'
    more = 'y", "d": [3]}'
    for label, fragments in chunkings(text):
        parser = jsonsnap.Parser()
        for fragment in fragments:
            parser.feed(fragment)
        copied = parser.snapshot(copy=True)
        pristine = parser.snapshot(copy=True)
        live = parser.snapshot()
        assert copied is not live and copied is not pristine, label
        assert diff(pristine, copied) is None, label
        assert isinstance(copied, dict)
        assert isinstance(live, dict)
        assert copied["a"] is not live["a"], label
        # Mutating the copy, at every depth, does not reach the parser.
        copied["a"].append("junk")
        copied["a"][1]["b"].append("junk")
        copied["new"] = 1
        assert diff(jsonsnap.parse_partial(text), parser.snapshot()) is None, label
        # Feeding more does not reach an earlier copy.
        parser.feed(more)
        assert diff(pristine, jsonsnap.parse_partial(text)) is None, label
        assert diff(json.loads(text + more), parser.snapshot()) is None, label


def depth_of(value: object) -> int:
    depth = 0
    while isinstance(value, list):
        depth += 1
        value = value[0] if value else None
    return depth


def test_copy_of_deep_objects() -> None:
    parser = jsonsnap.Parser()
    parser.feed('{"a": [' * 50_000)
    copied = parser.snapshot(copy=True)
    depth = 0
    node: Any = copied
    while node:
        node = node["a"] if depth % 2 == 0 else node[0]
        depth += 1
    assert depth == 99_999 and node == []


def test_copy_of_deep_structure() -> None:
    parser = jsonsnap.Parser()
    parser.feed("[" * 100_000)
    copied = parser.snapshot(copy=True)
    live = parser.snapshot()
    assert depth_of(copied) == 100_000
    assert depth_of(live) == 100_000
    assert copied is not live
    innermost: Any = copied
    for _ in range(99_999):
        innermost = innermost[0]
    innermost.append(1)
    assert depth_of(parser.snapshot()) == 100_000
