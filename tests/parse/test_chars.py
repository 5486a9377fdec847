"""The ``chars`` fast path: elements and members read a character at a time (the compiled
build's default) against the regexes they stand for, and against the automaton alone.

Each table input is fed whole, one character at a time, at 2-way splits and at random splits
(``chunkings``), with ``chars`` on and off and with every fast path off: every snapshot,
position, record, final value and error must be the same.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jsonsnap
from chunking import chunkings
from effort import examples
from jsonsnap._parse.automaton import Automaton
from jsonsnap._parse.chars import COMPILED, members, plain_end, scalar
from jsonsnap._parse.fast import DEFAULT, GENERAL, FastPaths
from jsonsnap._parse.grammar import AFTER, ELEMENT_RE, KEY, MEMBER_RE, PLAIN_RE, VALUE
from jsonsnap._parse.options import Options
from jsonsnap._parse.tree import Tree
from values import diff

CHARS = replace(GENERAL, elements=True, members=True, chars=True)
REGEX = replace(GENERAL, elements=True, members=True)
ALL_CHARS = replace(DEFAULT, chars=True)
ALL_REGEX = replace(DEFAULT, chars=False)


def _outcome(fragments: list[str], fast: FastPaths, **options: Any) -> list[object]:
    parser = jsonsnap.Parser(_fast_paths=fast, **options)
    seen: list[object] = []
    try:
        for fragment in fragments:
            changed = parser.feed(fragment)
            seen.append((changed, parser.position, parser.snapshot(copy=True)))
            if options.get("track_changes"):
                seen.append([(type(r).__name__, r.path) for r in parser.changes()])
        seen.append(parser.close())
    except jsonsnap.JSONDecodeError as err:
        seen.append(("error", err.pos, err.lineno, err.colno, err.msg, err.incomplete))
        seen.append(parser.snapshot(copy=True))
    return seen


_NUMBERS = [
    "0",
    "-0",
    "1",
    "-1",
    "10",
    "01",
    "-01",
    "00",
    "0.5",
    "0.",
    ".5",
    "-",
    "-.5",
    "1e5",
    "1E5",
    "1e+5",
    "1e-5",
    "1e",
    "1e+",
    "1.5e3",
    "1.5e",
    "-0.0e-0",
    "12.34.5",
    "1ee5",
    "9" * 600,
    "9" * 601,
    "1" + "0" * 599 + ".5",
    "1" + "0" * 600 + ".5",
    "1.5E+07",
    "123abc",
    "0x10",
    "1_000",
    "+1",
    "Infinity",
    "NaN",
    "-Infinity",
]
_STRINGS = [
    '""',
    '"a"',
    '"a b"',
    '"tab\there"',
    '"nl\\n"',
    '"q\\"q"',
    '"' + "x" * 31 + '"',
    '"' + "x" * 32 + '"',
    '"' + "y" * 33 + '"',
    '"' + "z" * 100 + '"',
    '"é☃😀"',
    '"\u2028"',
    '"\x7f"',
    '"bad\x01"',
    '"unterminated',
    '"esc\\u00e9"',
]
_LITERALS = ["true", "false", "null", "tru", "fals", "nul", "truex", "nullnull", "True"]
_SCALARS = _NUMBERS + _STRINGS + _LITERALS


def _documents() -> list[str]:
    docs = []
    for value in _SCALARS:
        docs.append(f'{{"k": {value}, "k2":{value} ,"k3" :\t{value}\n}}')
        docs.append(f"[{value}, {value},{value} ]")
        docs.append(f'[{{"a": [{value}]}}, {value}]')
    docs += [
        '{"a": 1, "b": "two", "c": [3, 4.5, true, null, "x"], "d": {"e": false}}',
        "[1, 2, 3,]",
        '{"a": 1,}',
        '{"a" 1}',
        '{"a": 1 "b": 2}',
        "[1 2]",
        '{"a\\"b": 1, "c\\n": [1]}',
        '{"": 0, "": 1}',
        '{"k": 1, "k": [2], "k": {"k": 3}}',
        '[[], [[]], {}, [{}], "", 0]',
        '{"a": {"b": {"c": [1, {"d": [true, {"e": null}]}]}}}',
        "  [  1 ,  2  ,\r\n 3 ]  ",
        '{"a":1,"b":2,"c":3}',
        "[1,2,3" + ",4" * 50 + "]",
        '{"a": 1, "b": 2, "c": 3',
        '["x", "y", "z"',
    ]
    return docs


@pytest.mark.parametrize("text", _documents())
def test_chars_agree_with_the_regexes_and_the_automaton(text: str) -> None:
    for label, fragments in chunkings(text, rounds=2):
        fragments = list(fragments)
        expected = _outcome(fragments, GENERAL)
        for name, fast in (("chars", CHARS), ("regex", REGEX), ("all chars", ALL_CHARS)):
            got = _outcome(fragments, fast)
            assert diff(expected, got) is None, (label, name, diff(expected, got))
        assert diff(_outcome(fragments, ALL_REGEX), expected) is None, label


@pytest.mark.parametrize("options", [{"track_changes": True}, {"max_depth": 2}])
def test_chars_agree_with_options(options: dict[str, Any]) -> None:
    text = '{"a": 1, "b": [1, "x", {"c": [true, 2.5]}], "d": null}'
    for label, fragments in chunkings(text, rounds=3):
        fragments = list(fragments)
        expected = _outcome(fragments, GENERAL, **options)
        assert diff(expected, _outcome(fragments, ALL_CHARS, **options)) is None, label


# --------------------------------------------------------------------------- the readers


def _regex_scalar(pattern: Any, buf: str, i: int) -> tuple[Any, int]:
    """What the regex path reads at ``buf[i]``: the scalar and where the match's scalar ends."""
    m = pattern.match(buf, i)
    if m is None:
        return None, -1
    if m["string"] is not None:
        return m["string"], m.end("string") + 1
    if m["number"] is not None:
        number = m["number"]
        return (float(number) if m["fraction"] else int(number)), m.end("number")
    if m["literal"] is not None:
        return json.loads(m["literal"]), m.end("literal")
    return None, -1


_TEXT = st.text(alphabet=st.sampled_from(list('0123456789-+.eE"\\ntrufalsex ,]}\t\x01é')))


@settings(max_examples=examples(400))
@given(text=_TEXT, closer=st.sampled_from("]}"))
def test_scalar_reads_what_the_pattern_matches(text: str, closer: str) -> None:
    if not text or text[0] in " \t\n\r":
        return  # (a member's value may follow whitespace, which the caller skips)
    value, stop = scalar(text, 0, len(text), ord(closer), int, float)
    if closer == "]":
        expected = _regex_scalar(ELEMENT_RE, text, 0)
    else:
        m = MEMBER_RE.match('"":' + text)
        expected = (None, -1) if m is None else _regex_scalar(MEMBER_RE, '"":' + text, 0)
        if expected[1] >= 0:
            expected = (expected[0], expected[1] - 3)
    assert (stop, type(value), value) == (expected[1], type(expected[0]), expected[0])


@settings(max_examples=examples(200))
@given(
    text=st.text(alphabet=st.sampled_from(list('ab "\\\x00\x1f\x7fé😀'))), start=st.integers(0, 5)
)
def test_plain_end_is_plain_re(text: str, start: int) -> None:
    text = "x" * 40 + text + "y" * 40 if start % 2 else text
    start = min(start, len(text))
    expected = PLAIN_RE.match(text, start).end()  # type: ignore[union-attr]
    assert plain_end(text, start, len(text)) == expected


def _reader() -> Automaton:
    """An automaton whose tree has an object open."""
    tree = Tree()
    tree.open({})
    return Automaton(tree, CHARS, Options())


def test_members_stop_where_the_member_loop_stops() -> None:
    auto = _reader()
    buf = '"a": 1, "b": "x", "c": [1], "d": 2'
    assert members(buf, 0, len(buf), auto) == (buf.index("["), VALUE)
    assert auto.tree.stack[-1] == {"a": 1, "b": "x"} and auto.tree.keys[-1] == "c"
    auto = _reader()
    assert members('"a": 1, "b', 0, 10, auto) == (8, KEY)
    assert members('"a": true}', 0, 10, auto) == (9, AFTER)
    assert members('"a" 1', 0, 5, auto)[1] == -1


def test_chars_is_on_by_default_in_the_compiled_build_only() -> None:
    assert (jsonsnap.__build__ == "compiled") == COMPILED
    assert DEFAULT.chars is COMPILED
    assert GENERAL.chars is False


def test_a_schema_keeps_chars_but_not_the_scanner() -> None:
    # The checker reads a member's place from the automaton's places when chars reads it
    # (tests/schema/test_schema_chars.py holds it to the regex and to the automaton alone);
    # the C scanner, which gives no place to what it reads, is off.
    parser = jsonsnap.Parser(
        schema={"type": "object", "properties": {"a": {"type": "integer"}}},
        _fast_paths=ALL_CHARS,
    )
    assert parser._fast.chars is True and parser._fast.scan_min is None
    parser.feed('{"a": 1, "b": 2}')
    assert parser.close() == {"a": 1, "b": 2}
