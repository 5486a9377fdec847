"""The fast paths against the automaton alone.

Every fast path reads the same grammar as the automaton in bigger steps (see
``jsonsnap._parse.fast``). Which of them run is a ``FastPaths`` value given to the parser, so each
is switched on alone here, then all together, then all as eagerly as they can be (every threshold
at its lowest), and every configuration must give what the automaton gives alone: the same
snapshots after every fragment, positions, change records, final values and errors.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from itertools import accumulate
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jsonsnap
import strategies
from chunking import chunkings
from effort import examples
from fast_configs import ALONE, CONFIGS, EAGER
from jsonsnap._parse import fast as _fast
from jsonsnap._parse import simple as _simple
from jsonsnap._parse.fast import DEFAULT, GENERAL, FastPaths
from jsonsnap._parse.grammar import PLAIN_RE
from jsonsnap._parse.tree import Tree
from values import diff


def test_the_configurations_differ() -> None:
    # Each configuration switches on exactly one fast path more than the automaton alone.
    for name, fast in ALONE.items():
        assert fast != GENERAL, name
    assert len(set(CONFIGS.values())) == len(CONFIGS)


def _outcome(text: str | bytes, cuts: list[int], fast: FastPaths, **options: Any) -> list[object]:
    """Everything a user can see while ``text`` is fed in pieces cut at ``cuts``."""
    parser = jsonsnap.Parser(_fast_paths=fast, **options)
    seen: list[object] = []
    tracked = options.get("track_changes", False)
    start = 0
    try:
        for cut in [*cuts, len(text)]:
            changed = parser.feed(text[start:cut])
            start = cut
            # The lane counts what it reads lazily: the position must be right at any time.
            seen.append((changed, parser.position, parser.snapshot(copy=True)))
            if tracked:
                seen.append(_records(parser))
        seen.append(parser.close())
    except jsonsnap.JSONDecodeError as err:
        where = (err.pos, err.lineno, err.colno)
        seen.append(("error", where, err.msg, err.incomplete, parser.snapshot(copy=True)))
    if tracked:
        seen.append(_records(parser))
    return seen


def _records(parser: jsonsnap.Parser) -> list[object]:
    """The records since the last call, as plain values (compared without recursion)."""
    out: list[object] = []
    for record in parser.changes():
        if isinstance(record, jsonsnap.Started):
            out.append(["Started", list(record.path), record.kind])
        elif isinstance(record, jsonsnap.Appended):
            out.append(["Appended", list(record.path), record.text])
        else:
            out.append(["Completed", list(record.path), record.value])
    return out


def _cuts(data: st.DataObject, text: str | bytes) -> list[int]:
    return sorted(set(data.draw(st.lists(st.integers(0, len(text)), max_size=6))))


def _check_all(text: str | bytes, cuts: list[int], **options: Any) -> None:
    expected = _outcome(text, cuts, GENERAL, **options)
    for name, fast in CONFIGS.items():
        got = _outcome(text, cuts, fast, **options)
        assert diff(expected, got) is None, (name, diff(expected, got))


@settings(max_examples=examples(150))
@given(
    text=st.one_of(strategies.json_documents(), strategies.corrupted_documents()),
    data=st.data(),
    allow_nan=st.booleans(),
)
def test_fast_paths_agree_with_the_automaton(
    text: str, data: st.DataObject, allow_nan: bool
) -> None:
    _check_all(text, _cuts(data, text), allow_nan=allow_nan)


@settings(max_examples=examples(100, default=50))
@given(
    text=st.one_of(strategies.json_documents(), strategies.corrupted_documents()),
    data=st.data(),
)
def test_fast_paths_make_the_same_records(text: str, data: st.DataObject) -> None:
    _check_all(text, _cuts(data, text), track_changes=True)


@settings(max_examples=examples(50))
@given(
    text=st.one_of(strategies.json_documents(), strategies.corrupted_documents()),
    data=st.data(),
    hooks=st.sampled_from(["pairs", "object", "depth", "partial"]),
)
def test_fast_paths_agree_with_options(text: str, data: st.DataObject, hooks: str) -> None:
    cuts = _cuts(data, text)
    choices: dict[str, dict[str, Any]] = {
        "pairs": {"object_pairs_hook": lambda pairs: ("pairs", pairs)},
        "object": {"object_hook": lambda obj: ("object", sorted(obj.items()))},
        "depth": {"max_depth": 3},
        "partial": {"partial_numbers": True, "partial_literals": True},
    }
    _check_all(text, cuts, **choices[hooks])


@settings(max_examples=examples(50))
@given(text=strategies.json_documents(), data=st.data())
def test_fast_paths_agree_on_utf8_bytes(text: str, data: st.DataObject) -> None:
    raw = text.encode("utf-8", "surrogatepass")
    cuts = _cuts(data, raw)
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return  # lone surrogates do not encode: not a UTF-8 document
    _check_all(raw, cuts)


# --------------------------------------------------------------------------- strings

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
        r"\nd8ab",  # an escape, then text that looks like a surrogate's digits
        r"\\ud8ab",
        r"\ud83d\n",
        r"\ud83dx",
    ]
)
_BODIES = st.lists(_ESCAPES, max_size=12).map("".join)


@settings(max_examples=examples(150))
@given(
    bodies=st.lists(_BODIES, min_size=1, max_size=3),
    tail=st.sampled_from(["", '"', "x", r"\q", "\x01", r"\u12g4"]),
    data=st.data(),
)
def test_string_fast_paths_agree_with_the_automaton(
    bodies: list[str], tail: str, data: st.DataObject
) -> None:
    """Three ways decode string content: one escape at a time (the automaton), runs of plain
    text and complete escapes (a regex, then the C string scanner), and long content (the C
    scanner in windows of doubling width, here from 1 character)."""
    text = "[" + ", ".join(f'"{b}"' for b in bodies) + "]"
    # Corrupt the last string's end sometimes, so errors go through both paths too.
    if tail:
        text = text[:-2] + tail + text[-2:]
    cuts = sorted(set(data.draw(st.lists(st.integers(0, len(text)), max_size=8))))
    general = _outcome(text, cuts, GENERAL)
    assert diff(general, _outcome(text, cuts, DEFAULT)) is None
    for window in (1, 2, 7, 64):
        fast = replace(DEFAULT, long_string=0, window=window)
        assert diff(general, _outcome(text, cuts, fast)) is None, window
    if not tail:
        assert diff(general[-1], json.loads(text)) is None


# --------------------------------------------------------------------------- the C scanner


@contextmanager
def _scanned() -> Iterator[list[int]]:
    """Count the containers the C scanner reads whole (the offers it does not decline). It
    patches the scanner's class: a compiled class cannot be patched, so the tests that count
    skip under a compiled build (the tests that hold each fast path to the automaton run under
    both)."""
    if jsonsnap.__build__ == "compiled":
        pytest.skip(
            "counts the scanner's offers by patching its class, which a compiled build's is not"
        )
    taken: list[int] = []
    offer: Callable[..., int] = _fast.Scanner.offer

    def counting(self: _fast.Scanner, *args: Any) -> int:
        stop = offer(self, *args)
        if stop:
            taken.append(stop)
        return stop

    with pytest.MonkeyPatch.context() as m:
        m.setattr(_fast.Scanner, "offer", counting)
        yield taken


_WHOLE = [
    '{"a": 1, "b": [1, 2.5, "x", true, null], "c": {"d": -0.0}, "e": "\\u00e9\\n"}',
    '[{"id": 1, "tags": ["a", "b"]}, {"id": 2, "tags": []}, {"id": 3, "tags": [',
    "[[1, 2], [3, NaN], [4, 5]]",
    "[" * 3000 + "1" + "]" * 3000,
    '[{"a": 1}, {"a": 2}, {"a": 1' + "0" * 5000 + "}]",
    '{"a": [1, 2, 3], "b": [4, 5, 6}',
    '{"a": 1, "a": [2, {"a": 3, "a": 4}], "b": ""}',
    '[{"": {"": [[], {}]}}, "", [""]]',
]


@pytest.mark.parametrize("text", _WHOLE)
@pytest.mark.parametrize("allow_nan", [False, True])
def test_scanner_offers_agree_with_the_automaton(text: str, allow_nan: bool) -> None:
    # One buffer: every array and object is offered to the C scanner first.
    expected = _outcome(text, [], GENERAL, allow_nan=allow_nan)
    for fast in (ALONE["scanner"], DEFAULT, EAGER):
        assert diff(expected, _outcome(text, [], fast, allow_nan=allow_nan)) is None


# Reading every record's path costs the depth each: 300 levels here, not 3,000.
@pytest.mark.parametrize(
    "text", [t.replace("[" * 3000, "[" * 300).replace("]" * 3000, "]" * 300) for t in _WHOLE]
)
def test_whole_containers_report_every_value_inside(text: str) -> None:
    """A container the C scanner reads whole is built again through the builder, so every
    value inside it is reported in document order, duplicate keys included."""
    expected = _outcome(text, [], GENERAL, track_changes=True)
    with _scanned() as taken:
        got = _outcome(text, [], ALONE["scanner"], track_changes=True)
    assert diff(expected, got) is None
    if text.count("[") < 100 and "NaN" not in text and "0000" not in text:
        assert taken, "the scanner read nothing whole"


def test_the_scanner_takes_a_large_document_whole_with_records() -> None:
    doc = json.dumps([{"id": i, "name": f"n{i}", "tags": ["a"] * (i % 3)} for i in range(200)])
    with _scanned() as taken:
        parser = jsonsnap.Parser(track_changes=True)
        parser.feed(doc)
        final = parser.close()
    assert taken == [len(doc)]
    records = parser.changes()
    completed = [r for r in records if isinstance(r, jsonsnap.Completed)]
    # One Completed per value: 200 records of 3 members, the tags, and the array itself.
    values = 1 + 200 * (1 + 3) + sum(i % 3 for i in range(200))
    assert len(completed) == values
    assert completed[-1] == jsonsnap.Completed((), final)
    assert jsonsnap.replay(records) == json.loads(doc)


# --------------------------------------------------------------------------- the lane


@pytest.mark.parametrize(
    "escape", ["\\n", '\\"', "\\\\", "\\/", "\\u00e9", "\\ud83d\\ude00", "\\q"]
)
@pytest.mark.parametrize("end", ['"}', '\n"}'])  # the second: a raw newline, an error
def test_one_character_at_a_time_through_escapes(escape: str, end: str) -> None:
    """The lane takes a lone backslash, then the character that finishes a simple escape,
    without the automaton; positions, errors and snapshots stay those of the automaton."""
    text = '{"a": "x' + escape + "y" + escape + "z" + end
    cuts = list(range(1, len(text)))
    assert diff(_outcome(text, cuts, GENERAL), _outcome(text, cuts, DEFAULT)) is None
    if escape != "\\q" and end == '"}':
        mixed = jsonsnap.Parser()
        for i, char in enumerate(text):
            mixed.feed(char.encode() if i % 3 == 0 else char)  # bytes leave the lane and return
            assert mixed.position == i + 1
        assert mixed.close() == json.loads(text)


#: String content dense in what the lane must hold back or decide: escapes cut anywhere,
#: surrogate pairs, lone high and low surrogates, escaped backslashes before ``u``, an escape
#: followed by text that looks like a surrogate's digits.
_DENSE = (
    r"\ud83d\ude00\u00e9\nd8ab\\ud8ab\ud83d\n\ud83dx\uDC00\"\/\ud83d\u0041\\\u00e9"
    r"\ud800\ud800\udc00"
)


@pytest.mark.parametrize(
    "end", ['"]', r'\q"]', r'\u12g4"]', '\x01"]', r'\ud83d\u12"]', '", "more\\n"]']
)
def test_the_lane_holds_back_exactly_what_the_automaton_does(end: str) -> None:
    """Content dense in escapes, cut at every place and fed in pieces of every size from 1 to
    13: the same snapshots, positions, errors and values with the lane as without."""
    text = '["' + _DENSE + end
    plans = [[cut] for cut in range(1, len(text))]
    plans += [list(range(size, len(text), size)) for size in range(1, 14)]
    for cuts in plans:
        got = _outcome(text, cuts, DEFAULT)
        assert diff(_outcome(text, cuts, GENERAL), got) is None, cuts
    if end.startswith('"'):
        assert _outcome(text, [], DEFAULT)[-1] == json.loads(text)


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


# --------------------------------------------------------------------------- simple escapes

#: Pieces of string content for the simple-escape paths: plain text, every simple escape, a
#: backslash escaped before a quote, and what makes them decline (a ``\u`` escape, an invalid
#: escape, a quote, a control or unprintable character, a lone backslash).
_SIMPLE = [r"\n", r"\"", r"\\", r"\/", r"\b", r"\f", r"\r", r"\t", "ab", " ", "é", "\U0001f600"]
_DECLINING = [r"\u00e9", r"\ud83d", r"\q", '"', "\x01", "\t", "\u2028", "\\"]


def _simple_stop(buf: str) -> int:
    """Where the lane's simple decoding stops: before a backslash at the end that no backslash
    escapes."""
    k = len(buf)
    while k > 0 and buf[k - 1] == "\\":
        k -= 1
    return len(buf) - (len(buf) - k) % 2


@settings(max_examples=examples(150))
@given(st.lists(st.sampled_from(_SIMPLE + _DECLINING), max_size=10).map("".join))
def test_simple_text_decodes_as_the_c_scanner(buf: str) -> None:
    """The lane's decoding of simple escapes gives what the C string scanner gives, and
    declines exactly what it must leave to the general way."""
    stop = _simple_stop(buf)
    got = _simple.simple_text(buf, stop)
    try:
        expected: tuple[str, int] | None = json.decoder.scanstring(buf[:stop] + '"', 0, True)  # type: ignore[attr-defined]
    except ValueError:
        expected = None
    kinds = re.findall(r"\\(.)", buf[:stop], re.DOTALL)  # the escapes, left to right
    if expected is None or expected[1] != stop + 1 or "u" in kinds or not buf.isprintable():
        assert got is None, buf
    else:
        assert got == expected[0], buf


@settings(max_examples=examples(150))
@given(
    st.lists(st.sampled_from(_SIMPLE + _DECLINING), max_size=10).map("".join),
    st.sampled_from(["", '"', '"]', "\x01", "\\"]),
)
def test_simple_run_reads_what_escaped_run_reads(body: str, end: str) -> None:
    """The string state's decoding of simple escapes (the compiled build's) appends the same
    text in one piece and stops at the same place as the regex and the C scanner, or
    declines, appending nothing, at a ``\\u`` escape only."""
    buf = "x" + body + end
    pos = PLAIN_RE.match(buf).end()  # type: ignore[union-attr]
    if pos == len(buf) or buf[pos] != "\\":  # (the string state calls it at a backslash)
        return
    plain, general = Tree(), Tree()
    for tree in (plain, general):
        tree.string_start()
    k = _simple.simple_run(buf, 0, pos, len(buf), plain)
    if k < 0:
        assert "\\u" in buf.replace("\\\\", ""), buf
        assert plain.box[0] == "" and plain.version == 1
        return
    j = _fast.escaped_run(buf, 0, pos, len(buf), general)
    assert (k, plain.box[0], plain.version) == (j, general.box[0], general.version)


_TOOL_CALL = (
    '{"path": "src/app.py", "content": "def f(x):\\n\\treturn \\"a\\\\b\\" % x\\n'
    '# \\/ done\\r\\n\\\\", "mode": "overwrite", "note": "caf\\u00e9 \\n", "n": 5}'
)


@pytest.mark.parametrize("chars", [False, True])
@pytest.mark.parametrize("end", ["", '"}', '\\q"}', '\x01"}', '\\u12g4"}', '\\"\\n\\"'])
def test_simple_escapes_agree_with_the_automaton(chars: bool, end: str) -> None:
    """Content with many simple escapes, as a tool call's code has (the lane and the string
    state decode them without the C scanner in the compiled build): the same snapshots,
    positions, errors and values as the automaton alone, fed whole, a character at a time and
    at random splits, in both builds' ways."""
    text = _TOOL_CALL[:-1] + ', "z": "' + end if end else _TOOL_CALL
    fast = replace(DEFAULT, chars=chars)
    for label, pieces in chunkings(text):
        cuts = list(accumulate(len(p) for p in pieces))[:-1]
        assert diff(_outcome(text, cuts, GENERAL), _outcome(text, cuts, fast)) is None, label
    if not end:
        assert _outcome(text, [], fast)[-1] == json.loads(text)
