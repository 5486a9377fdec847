"""The string fast paths against the general path.

Three ways decode string content: the general path (one escape at a time in Python), runs of
plain text and complete escapes (a regex, then the standard library's C scanner), and long
content (the C scanner on the whole string, or on windows cut at escape boundaries). Module
constants switch each off or force it on; every configuration must give the same snapshots,
final values and errors.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jsonsnap
import strategies
from jsonsnap import _parser
from values import diff

_ESCAPES = st.sampled_from(
    [
        r"\n",
        r"\"",
        r"\\",
        r"\/",
        r"\b",
        r"\u00e9",
        r"\uD83D\uDE00",
        r"\ud83d",
        r"\uDC00",
        r"\uD800\uD800",
        r"\\uD83D",
        r"\\\uD83D",
        "\U0001f600",
        "a",
        "\u2028",
        " ",
        r"\u0041",
    ]
)
_BODIES = st.lists(_ESCAPES, max_size=12).map("".join)


def _run(text: str, cuts: list[int]) -> tuple[list[object], object]:
    parser = jsonsnap.Parser()
    shots: list[object] = []
    start = 0
    for cut in [*sorted(set(cuts)), len(text)]:
        try:
            parser.feed(text[start:cut])
        except jsonsnap.JSONDecodeError as err:
            return shots, ("error", err.pos, err.lineno, err.colno, err.msg)
        assert parser.position == cut
        start = cut
        shots.append(parser.snapshot(copy=True))
    try:
        return shots, parser.close()
    except jsonsnap.JSONDecodeError as err:
        return shots, ("error", err.pos, err.msg, err.incomplete)


@settings(max_examples=300, deadline=None)
@given(
    bodies=st.lists(_BODIES, min_size=1, max_size=3),
    tail=st.sampled_from(["", '"', "x", r"\q", "\x01", r"\u12g4"]),
    data=st.data(),
)
def test_general_path_agrees_with_fast_path(
    bodies: list[str], tail: str, data: st.DataObject
) -> None:
    text = "[" + ", ".join(f'"{b}"' for b in bodies) + "]"
    # Corrupt the last string's end sometimes, so errors go through both paths too.
    if tail:
        text = text[:-2] + tail + text[-2:]
    cuts = data.draw(st.lists(st.integers(0, len(text)), max_size=8))
    fast = _run(text, cuts)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(_parser, "_RUN_RE", re.compile(""))
        m.setattr(_parser, "_LONG_STRING", 10**9)
        general = _run(text, cuts)
    assert repr(fast) == repr(general)
    for window in (1, 2, 7, 64):
        with pytest.MonkeyPatch.context() as m:
            m.setattr(_parser, "_LONG_STRING", 0)
            m.setattr(_parser, "_WINDOW", window)
            assert repr(_run(text, cuts)) == repr(general), window
    if not tail:
        assert repr(fast[1]) == repr(json.loads(text))


# Every fast path off: the automaton reads one token at a time.
GENERAL: dict[str, object] = {
    "_RUN_RE": re.compile(""),
    "_LONG_STRING": 10**9,
    "_MEMBER_RE": re.compile(r"(?!)"),
    "_ELEMENT_RE": re.compile(r"(?!)"),
    "_SCAN_MIN": 10**9,
    "_LANE": False,
}
# Every fast path taken as often as it can be.
EAGER: dict[str, object] = {"_LONG_STRING": 0, "_WINDOW": 3, "_SCAN_MIN": 0}


def _outcome(text: str, cuts: list[int], **options: Any) -> object:
    parser = jsonsnap.Parser(**options)
    seen: list[object] = []
    start = 0
    try:
        for cut in [*cuts, len(text)]:
            parser.feed(text[start:cut])
            start = cut
            # The lane counts what it reads lazily: the position must be right at any time.
            assert parser.position == cut
            seen.append(parser.snapshot(copy=True))
        seen.append(parser.close())
    except jsonsnap.JSONDecodeError as err:
        where = (err.pos, err.lineno, err.colno)
        seen.append(("error", where, err.msg, err.incomplete, parser.snapshot(copy=True)))
    return seen


def _under(patches: dict[str, object], text: str, cuts: list[int], **options: Any) -> object:
    with pytest.MonkeyPatch.context() as m:
        for name, value in patches.items():
            m.setattr(_parser, name, value)
        return _outcome(text, cuts, **options)


@settings(max_examples=300, deadline=None)
@given(
    text=st.one_of(strategies.json_documents(), strategies.corrupted_documents()),
    data=st.data(),
    allow_nan=st.booleans(),
)
def test_fast_paths_agree_with_the_automaton(
    text: str, data: st.DataObject, allow_nan: bool
) -> None:
    cuts = sorted(set(data.draw(st.lists(st.integers(0, len(text)), max_size=6))))
    expected = _under(GENERAL, text, cuts, allow_nan=allow_nan)
    assert diff(expected, _outcome(text, cuts, allow_nan=allow_nan)) is None
    assert diff(expected, _under(EAGER, text, cuts, allow_nan=allow_nan)) is None


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1, "b": [1, 2.5, "x", true, null], "c": {"d": -0.0}}',
        '[{"id": 1, "tags": ["a", "b"]}, {"id": 2, "tags": []}, {"id": 3, "tags": [',
        "[[1, 2], [3, NaN], [4, 5]]",
        "[" * 3000 + "1" + "]" * 3000,
        '[{"a": 1}, {"a": 2}, {"a": 1' + "0" * 5000 + "}]",
        '{"a": [1, 2, 3], "b": [4, 5, 6}',
    ],
    ids=["members", "truncated records", "nan", "deep", "huge int", "mismatched"],
)
@pytest.mark.parametrize("allow_nan", [False, True])
def test_scanner_offers_agree_with_the_automaton(text: str, allow_nan: bool) -> None:
    # One buffer: every array and object is offered to the C scanner first.
    expected = _under(GENERAL, text, [], allow_nan=allow_nan)
    assert diff(expected, _under({"_SCAN_MIN": 0}, text, [], allow_nan=allow_nan)) is None
    assert diff(expected, _outcome(text, [], allow_nan=allow_nan)) is None


@pytest.mark.parametrize(
    "escape", ["\\n", '\\"', "\\\\", "\\/", "\\u00e9", "\\ud83d\\ude00", "\\q"]
)
@pytest.mark.parametrize("end", ['"}', '\n"}'])  # the second: a raw newline, an error
def test_one_character_at_a_time_through_escapes(escape: str, end: str) -> None:
    """The lane takes a lone backslash, then the character that finishes a simple escape,
    without the automaton; positions, errors and snapshots stay those of the automaton."""
    text = '{"a": "x' + escape + "y" + escape + "z" + end
    cuts = list(range(1, len(text)))
    lane = _outcome(text, cuts)
    with pytest.MonkeyPatch.context() as m:
        for name, value in GENERAL.items():
            m.setattr(_parser, name, value)
        general = _outcome(text, cuts)
    assert repr(lane) == repr(general)
    if escape != "\\q" and end == '"}':
        mixed = jsonsnap.Parser()
        for i, char in enumerate(text):
            mixed.feed(char.encode() if i % 3 == 0 else char)  # bytes leave the lane and return
            assert mixed.position == i + 1
        assert mixed.close() == json.loads(text)


def test_bytes_of_every_kind_inside_a_string() -> None:
    """Inside a string the lane takes text; bytes, a bytearray (not hashable) and a memoryview
    go the general way, and back."""
    parser = jsonsnap.Parser()
    parser.feed('{"a": "x')
    for piece in (bytearray(b"y"), "z", memoryview(b"w"), b"v", "\\", bytearray(b"n"), "!"):
        assert parser.feed(piece) == (piece != "\\")  # a lone backslash shows nothing yet
    assert parser.snapshot() == {"a": "xyzwv\n!"}
    parser.feed(memoryview(b'"}'))
    assert parser.close() == {"a": "xyzwv\n!"} and parser.position == 17
