"""Regression tests for hostile input to the parser and for misuse of it.

Long numbers, deep nesting with change records, re-entrant calls, callbacks that raise, text
after half a UTF-8 character, options of the wrong type. The speed of the first two is shown
by growth exponents in ``benchmarks/hostile.py``, not by timed tests; here they are held to
what makes them linear: a bounded tail, and records that do not build their paths.
"""

from __future__ import annotations

import json
import math
import sys
import time
import tracemalloc
from typing import Any

import pytest

import jsonsnap
from jsonsnap import ANY, Completed, ParserStateError
from jsonsnap._parse.fast import FastPaths
from values import diff

# --------------------------------------------------------------------------- long numbers


def _held(parser: jsonsnap.Parser) -> int:
    """How much input the parser holds back (white-box: the automaton's and the lane's)."""
    lane = parser._lanes
    return len(parser._auto.tail) + (len(lane.tail) if lane else 0)


@pytest.mark.parametrize(
    "text",
    [
        "[0." + "0" * 5000 + "1]",
        "[1e" + "0" * 5000 + "1]",
        "[1E+" + "0" * 5000 + "1]",
        "[-" + "1" * 5000 + ".5]",
        "[" + "1" * 4000 + "]",
        "1" * 3000,
    ],
    ids=["fraction", "exponent", "signed exponent", "negative", "int", "top-level int"],
)
@pytest.mark.parametrize("partial_numbers", [False, True])
def test_a_long_number_is_read_once_not_held(text: str, partial_numbers: bool) -> None:
    """A number is read on where the last fragment cut it: what is held back between
    fragments stays bounded however long it gets (it used to be the whole number, read again
    at every fragment: quadratic)."""
    parser = jsonsnap.Parser(partial_numbers=partial_numbers)
    longest = 0
    for char in text:
        parser.feed(char)
        longest = max(longest, _held(parser))
    assert longest <= 24
    assert diff(parser.close(), json.loads(text)) is None


def test_an_unfinished_int_too_long_to_convert_shows_nothing_yet() -> None:
    text = "[" + "1" * 4301
    assert jsonsnap.parse_partial(text, partial_numbers=True) == []
    parser = jsonsnap.Parser(partial_numbers=True)
    parser.feed(text)
    assert parser.snapshot() == []
    parser.feed(".0]")
    assert parser.close() == [float("inf")]
    # One character at a time: shown while Python converts it, then nothing, then the value.
    parser = jsonsnap.Parser(partial_numbers=True)
    for char in text:
        parser.feed(char)
    assert parser.snapshot() == []
    parser.feed(".0]")
    assert parser.close() == [float("inf")]


def test_a_long_int_is_shown_as_it_grows() -> None:
    digits = "-" + "7" * 600
    parser = jsonsnap.Parser(partial_numbers=True)
    parser.feed("[")
    for i, char in enumerate(digits, 1):
        parser.feed(char)
        shown = parser.snapshot()
        assert shown == ([] if i == 1 else [int(digits[:i])])
    parser.feed("]")
    assert parser.close() == [int(digits)]


def test_an_int_past_the_limit_fails_at_its_first_digit() -> None:
    text = '{"a": ' + "1" * 4301 + "}"
    for cut in (7, 100, len(text) - 1):
        parser = jsonsnap.Parser()
        parser.feed(text[:cut])
        with pytest.raises(jsonsnap.JSONDecodeError, match="too large") as caught:
            parser.feed(text[cut:])
        assert (caught.value.pos, caught.value.colno) == (6, 7)


def test_hooks_get_final_numbers_only() -> None:
    seen: list[str] = []

    def parse_int(text: str) -> int:
        seen.append(text)
        return int(text)

    parser = jsonsnap.Parser(partial_numbers=True, parse_int=parse_int, parse_float=float)
    for char in "[12, 345, 6" + "7" * 40 + "]":
        parser.feed(char)
        assert all(type(x) is int for x in parser.snapshot())
    assert parser.close() == [12, 345, int("6" + "7" * 40)]
    assert seen == ["12", "345", "6" + "7" * 40]


# --------------------------------------------------------------------------- long strings

#: The ways a long string is read: the lane (fragments taken by ``Parser.feed`` itself), the
#: automaton (``Tree.append``), and one character at a time.
GROWTH_WAYS = {
    "lane": (FastPaths(), 48, 1 << 15),
    "automaton": (FastPaths(lane=False), 48, 1 << 15),
    "1 char": (FastPaths(), 1, 1 << 13),
}


def _seconds_to_stream(chars: int, fast: FastPaths, size: int) -> float:
    """CPU seconds to stream a file write of ``chars`` characters of content (with escapes
    and non-ASCII text) in fragments of ``size``: the best of three."""
    line = 'print("value: %s\\n" % x)\t# été \U0001f680 done\n'
    content = json.dumps(line * (chars // len(line)))  # quotes, escapes and surrogate pairs
    doc = '{"path": "a.py", "content": ' + content + "}"
    fragments = [doc[i : i + size] for i in range(0, len(doc), size)]
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        parser = jsonsnap.Parser(_fast_paths=fast)
        for fragment in fragments:
            parser.feed(fragment)
            parser.snapshot()
        parser.close()
        best = min(best, time.process_time() - start)
    return best


@pytest.mark.skipif(
    sys.gettrace() is not None, reason="a tracer makes CPython 3.11 copy a string it appends to"
)
@pytest.mark.parametrize("way", list(GROWTH_WAYS))
def test_an_open_string_grows_in_place(way: str) -> None:
    """Streaming 16 times more content takes about 16 times longer, on the build under test:
    the open string is appended to in place, never copied (a copy per fragment would make it
    256 times). ``benchmarks/run.py`` holds B's growth exponent to 1.1; this only catches a
    quadratic cost, with room for a busy machine."""
    fast, size, chars = GROWTH_WAYS[way]
    small = _seconds_to_stream(chars, fast, size)
    large = _seconds_to_stream(16 * chars, fast, size)
    exponent = math.log(large / small) / math.log(16)
    assert exponent < 1.4, f"{way}: {small:.4f} s -> {large:.4f} s, exponent {exponent:.2f}"


# --------------------------------------------------------------------------- deep nesting


@pytest.mark.parametrize("how", ["changes", "subscribe"])
def test_records_at_depth_cost_no_more_than_at_the_top(how: str) -> None:
    """A record says where its value is without building its path, so 5,000 levels of
    records take memory in proportion to the depth (a path per record took 100 MB)."""
    depth = 5000
    parser = jsonsnap.Parser(track_changes=how == "changes")
    got: list[Any] = []
    if how == "subscribe":
        parser.subscribe(("x",), got.append)
        parser.subscribe((ANY,), got.append, under=True, kinds=[Completed])
    tracemalloc.start()
    try:
        parser.feed("[" * depth)
        parser.feed("]" * depth)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 5_000_000, peak
    if how == "changes":
        records = parser.changes()
        assert len(records) == 2 * depth
        assert records[depth].path == (0,) * (depth - 1)  # paths are there when read
        assert records[-2].path == (0,)
    else:
        assert len(got) == depth - 1
        assert got[0].path == (0,) * (depth - 1)
        assert got[-1].path == (0,)


def test_subscriptions_match_deep_paths_exactly() -> None:
    parser = jsonsnap.Parser()
    under: list[Any] = []
    exact: list[Any] = []
    parser.subscribe((0, 0), under.append, under=True, kinds=[Completed])
    parser.subscribe((0, 0, 0), exact.append, kinds=[Completed])
    parser.feed('[[["a", ["b"]], "c"], "d"]')
    assert [r.path for r in under] == [(0, 0, 0), (0, 0, 1, 0), (0, 0, 1), (0, 0)]
    assert [r.value for r in exact] == ["a"]


# --------------------------------------------------------------------------- misuse


def test_a_writable_memoryview_inside_a_string() -> None:
    parser = jsonsnap.Parser()
    parser.feed('{"a": "x')
    assert parser.feed(memoryview(bytearray(b"y")))
    parser.feed(bytearray(b'z"}'))
    assert parser.close() == {"a": "xyz"}


def test_text_after_half_a_character_fails_at_that_byte() -> None:
    parser = jsonsnap.Parser()
    parser.feed('"ab')
    parser.feed(b"\xc3")
    with pytest.raises(jsonsnap.JSONDecodeError, match="UTF-8") as caught:
        parser.feed("c")
    assert caught.value.pos == 3
    assert parser.snapshot() == "ab"
    with pytest.raises(jsonsnap.JSONDecodeError):
        parser.close()


def test_feed_after_close_is_a_parser_state_error() -> None:
    parser = jsonsnap.Parser()
    parser.feed("[1]")
    assert parser.close() == [1]
    with pytest.raises(ParserStateError, match="after close"):
        parser.feed("2")
    assert isinstance(ParserStateError("x"), ValueError)
    assert parser.close() == [1]


@pytest.mark.parametrize(
    ("options", "error"),
    [
        ({"max_depth": "3"}, TypeError),
        ({"max_depth": True}, TypeError),
        ({"max_depth": 2.0}, TypeError),
        ({"max_depth": -1}, ValueError),
        ({"partial_strings": 1}, TypeError),
        ({"allow_nan": "yes"}, TypeError),
        ({"track_changes": None}, TypeError),
        ({"parse_float": 1.5}, TypeError),
        ({"object_hook": "dict"}, TypeError),
        ({"track_changes": True, "partial_numbers": True}, ValueError),
    ],
)
def test_options_are_checked_at_construction(options: dict[str, Any], error: type) -> None:
    """Refused when the parser is made, naming the option (a compiled build refuses a value of
    the wrong type for a typed parameter itself, with its own message: "bool object expected;
    got int")."""
    name = next(iter(options))
    pattern = name if jsonsnap.__build__ == "pure" else f"{name}|object expected; got"
    with pytest.raises(error, match=pattern):
        jsonsnap.Parser(**options)


def test_is_complete_does_not_look_inside_a_string() -> None:
    parser = jsonsnap.Parser()
    parser.feed('{"s": "abc')
    assert not parser.is_complete(("s", 0))
    assert not parser.is_complete(("s",))
    parser.feed('", "t": "xyz"')
    assert parser.is_complete(("s",)) and not parser.is_complete(("s", 0))


def test_an_unfinished_number_is_not_complete() -> None:
    parser = jsonsnap.Parser(partial_numbers=True)
    parser.feed("[1, 23")
    assert parser.snapshot() == [1, 23]
    assert parser.is_complete((0,)) and not parser.is_complete((1,))
    parser.feed(", ")
    assert parser.is_complete((1,))


# --------------------------------------------------------------------------- re-entrancy


def test_feed_from_an_object_hook_is_refused() -> None:
    parser: jsonsnap.Parser

    def hook(obj: dict[str, Any]) -> Any:
        parser.feed("1")
        return obj

    parser = jsonsnap.Parser(object_hook=hook)
    with pytest.raises(ParserStateError, match="hook or a callback"):
        parser.feed('[{"a": 1}, 2]')
    assert parser.snapshot() == [{"a": 1}]
    with pytest.raises(jsonsnap.JSONDecodeError, match="ParserStateError"):
        parser.feed("]")


@pytest.mark.parametrize("call", ["feed", "close"])
@pytest.mark.parametrize("start", ['"ab', "[1, "])  # in the lane, and out of it
def test_feed_or_close_from_a_callback_is_refused(call: str, start: str) -> None:
    parser = jsonsnap.Parser()
    refused: list[Exception] = []

    def callback(record: Any) -> None:
        try:
            parser.feed("x") if call == "feed" else parser.close()
        except ParserStateError as exc:
            refused.append(exc)

    parser.subscribe((), callback, under=True)
    more, rest = ("c", '"') if start.startswith('"') else ("2", "]")
    parser.feed(start)
    parser.feed(more)
    assert refused and all("callback" in str(exc) for exc in refused)
    assert parser.error is None
    parser.feed(rest)
    assert parser.close() == json.loads(start + more + rest)


def test_a_raising_callback_does_not_stop_the_others() -> None:
    parser = jsonsnap.Parser()
    first: list[Any] = []
    second: list[Any] = []

    def boom(record: Any) -> None:
        first.append(record)
        raise RuntimeError("boom")

    parser.subscribe(("x", ANY), boom, kinds=[Completed])
    parser.subscribe(("x", ANY), second.append, kinds=[Completed])
    with pytest.raises(RuntimeError, match="boom"):
        parser.feed('{"x": [1, 2], "y": 3 ')
    # Every record of the fragment reached both subscribers; the parser read it all.
    assert [r.value for r in first] == [r.value for r in second] == [1, 2]
    assert parser.error is None and parser.snapshot() == {"x": [1, 2], "y": 3}
    parser.feed("}")
    assert parser.close() == {"x": [1, 2], "y": 3}


def test_changes_from_a_callback() -> None:
    parser = jsonsnap.Parser(track_changes=True)
    taken: list[Any] = []
    parser.subscribe((ANY,), lambda record: taken.extend(parser.changes()))
    parser.feed("[1, 2")
    parser.feed(", 3]")
    assert [type(r).__name__ for r in taken[:2]] == ["Started", "Completed"]
    assert jsonsnap.replay(taken + parser.changes()) == [1, 2, 3]


# --------------------------------------------------------------------------- messages


@pytest.mark.parametrize(
    ("text", "message", "pos"),
    [
        ("[1,]", "Illegal trailing comma before end of array", 3),
        ('{"a": 1,}', "Illegal trailing comma before end of object", 8),
        ('{"a": 1 , }', "Illegal trailing comma before end of object", 10),
        ('{"a": "xy', "Unterminated string starting at line 1 column 7 (char 6)", 9),
        ('[\n  "x\\u00', "Unterminated string starting at line 2 column 3 (char 4)", 10),
        ('{"ke', "Unterminated string starting at line 1 column 2 (char 1)", 4),
    ],
)
def test_messages_are_worded_as_cpython_words_them(text: str, message: str, pos: int) -> None:
    for cut in range(1, len(text)):
        parser = jsonsnap.Parser()
        with pytest.raises(jsonsnap.JSONDecodeError) as caught:
            parser.feed(text[:cut])
            parser.feed(text[cut:])
            parser.close()
        assert (caught.value.msg, caught.value.pos) == (message, pos)
    if sys.version_info >= (3, 13):
        with pytest.raises(json.JSONDecodeError) as theirs:
            json.loads(text)
        assert message.startswith(theirs.value.msg)
