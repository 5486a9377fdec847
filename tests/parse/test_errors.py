"""Errors: exact positions whatever the chunking, line/column, messages, failed state, bytes."""

from __future__ import annotations

import json
import pickle
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pytest

import jsonsnap
from chunking import chunkings
from reference import snapshot_model
from values import NOTHING, diff, show


@dataclass
class Failure:
    """Where feeding some fragments failed."""

    err: jsonsnap.JSONDecodeError
    parser: jsonsnap.Parser
    stage: str  # "feed" or "close"
    start: int  # offset of the first character of the fragment that raised (str input only)
    stop: int


def fail(fragments: Sequence[str | bytes], **options: Any) -> Failure:
    """Feed ``fragments`` then close; the first JSONDecodeError, which must happen."""
    parser = jsonsnap.Parser(**options)
    offset = 0
    for fragment in fragments:
        try:
            parser.feed(fragment)
        except jsonsnap.JSONDecodeError as err:
            return Failure(err, parser, "feed", offset, offset + len(fragment))
        offset += len(fragment)
    try:
        value = parser.close()
    except jsonsnap.JSONDecodeError as err:
        return Failure(err, parser, "close", offset, offset)
    pytest.fail(f"{fragments!r} accepted: {show(value)}")


def line_col(text: str, pos: int) -> tuple[int, int]:
    """The json module's convention: 1-based, lines split at LF only."""
    return text.count("\n", 0, pos) + 1, pos - text.rfind("\n", 0, pos)


def check_error_attributes(err: jsonsnap.JSONDecodeError, text: str) -> None:
    lineno, colno = line_col(text, err.pos)
    assert (err.lineno, err.colno) == (lineno, colno), f"{text!r}: line/column"
    assert str(err) == f"{err.msg}: line {err.lineno} column {err.colno} (char {err.pos})"
    assert err.args == (str(err),)
    assert isinstance(err, json.JSONDecodeError)
    assert isinstance(err, ValueError)
    assert isinstance(err.msg, str) and err.msg
    assert isinstance(err.doc, str)
    # _errors.py documents doc_offset: the offending character is doc[pos - doc_offset].
    local = err.pos - err.doc_offset
    assert 0 <= local <= len(err.doc)
    if local < len(err.doc) and err.pos < len(text):
        assert err.doc[local] == text[err.pos]


def ids(cases: Sequence[tuple[object, ...]]) -> list[str]:
    return [ascii(case[0])[:60] for case in cases]


# (text, pos of the first character no valid continuation could accept)
INVALID: list[tuple[str, int]] = [
    ('{"a" 1}', 5),
    ("[1 2]", 3),
    ("01", 1),
    ("tx", 1),
    ("[1,]", 3),
    ('"a\\x', 3),
    ('{"a":1}x', 7),
    ("NaN", 0),
    ('{"a":1,}', 7),
    ("{,", 1),
    ("[,", 1),
    ('{"a" : 1 "b"}', 9),
    ('"\\u12g4"', 5),
    ("1.e5", 2),
    ("[1.]", 3),
    ("-a", 1),
    ("[1]]", 3),
    ('{"a":1}}', 7),
    ("{1:2}", 1),
    ("{'a':1}", 1),
    ("[01]", 2),
    ("-01", 2),
    ("1.5.", 3),
    (".5", 0),
    ("+1", 0),
    ("[1e+]", 4),
    ("truex", 4),
    ("nulll", 4),
    ("[true false]", 6),
    ("\u00a0[]", 0),
    ("[\u00a01]", 1),
    ('"abc"  "def"', 7),
    ("1 2", 2),
    ("True", 0),
    ("nul l", 3),
    ("[1,\n2,\n,3]", 7),
    ('"a\x00"', 2),
    ('"\x1f', 1),
    ('"\t"', 1),
    ('["ok", "line\nbreak"]', 12),
    ("\ufeff[]", 0),
    (" \ufeff", 1),
    ("]", 0),
    ("}", 0),
    (":", 0),
    ('{"a":}', 5),
    ('{"a"::1}', 5),
    ('{"a":1 "b":2}', 7),
    ("[1 [", 3),
    ('"\\U0041"', 2),
    ('"\\u-123"', 3),
    ("[\x0c]", 1),
    ("[\x0b]", 1),
    ("1\x00", 1),
    ("[1, 2]   {", 9),
    ("[12a", 3),
    ("[1.5x", 4),
    ('{"a": 12x', 8),
    ('{"a": "b" "c"}', 10),
    ('["a\\u00e9\\q', 10),
    ('["x", "abc\x01', 10),
]


@pytest.mark.parametrize(("text", "pos"), INVALID, ids=ids(INVALID))
def test_invalid_input_position(text: str, pos: int) -> None:
    problems: list[str] = []
    for label, fragments in chunkings(text):
        failure = fail(fragments)
        err = failure.err
        if err.pos != pos:
            problems.append(f"{label}: pos {err.pos}, expected {pos} ({err})")
            continue
        if failure.stage != "feed" or not failure.start <= pos < failure.stop:
            problems.append(f"{label}: raised by {failure.stage} of {failure.start}:{failure.stop}")
        if err.incomplete:
            problems.append(f"{label}: incomplete=True for an invalid character")
        check_error_attributes(err, text)
    assert not problems, f"{text!r}:\n" + "\n".join(problems[:5])


def test_message_format_matches_json() -> None:
    for label, fragments in chunkings("[1 2]"):
        err = fail(fragments).err
        assert str(err) == "Expecting ',' delimiter: line 1 column 4 (char 3)", label
        assert err.msg == "Expecting ',' delimiter", label


@pytest.mark.parametrize(("text", "pos"), INVALID, ids=ids(INVALID))
def test_stays_failed(text: str, pos: int) -> None:
    for label, fragments in chunkings(text, rounds=2):
        failure = fail(fragments)
        parser = failure.parser
        before = parser.snapshot(NOTHING, copy=True)
        for more in ("", "1", "]", '"', " "):
            with pytest.raises(jsonsnap.JSONDecodeError) as again:
                parser.feed(more)
            assert again.value.pos == pos, f"{label}: feed({more!r}) after the error"
            assert not again.value.incomplete, label
        for _ in range(2):
            with pytest.raises(jsonsnap.JSONDecodeError) as closing:
                parser.close()
            assert closing.value.pos == pos, f"{label}: close() after the error"
            assert not closing.value.incomplete, label
        assert diff(before, parser.snapshot(NOTHING)) is None, label


@pytest.mark.parametrize(("text", "pos"), INVALID, ids=ids(INVALID))
def test_snapshot_after_error_is_text_before_it(text: str, pos: int) -> None:
    expected = jsonsnap.parse_partial(text[:pos], NOTHING)
    for label, fragments in chunkings(text):
        failure = fail(fragments)
        assert failure.err.pos == pos
        problem = diff(expected, failure.parser.snapshot(NOTHING))
        assert problem is None, f"{text!r} {label}: {problem}"


# Multi-line documents where json.loads raises at the same character as the spec requires.
MULTILINE: list[tuple[str, int]] = [
    ("[\n1\n2]", 4),
    ('{\n  "a": 1\n  "b": 2\n}', 13),
    ('{"a":\n\t1}\nx', 10),
    ('"abc\ndef"', 4),
    ('{\n"a" 1}', 6),
    ("\n\n[1]\n ]", 7),
    ('{"a": 1,\r\n "b" 2}', 15),
    ("[\r\n1\r\n2]", 6),
    ('[\n  "ab",\n  "c\x01"\n]', 14),
    ("[true,\n false\n null]", 15),
    ('{\n "a": {\n  "b" : [1,\n 2 3]}}', 25),
    ("\r\r[1 2]", 5),
]


@pytest.mark.parametrize(("text", "pos"), MULTILINE, ids=ids(MULTILINE))
def test_line_and_column(text: str, pos: int) -> None:
    with pytest.raises(json.JSONDecodeError) as reference:
        json.loads(text)
    assert reference.value.pos == pos  # the table only holds cases json agrees on
    for label, fragments in chunkings(text):
        err = fail(fragments).err
        assert err.pos == pos, f"{label}: {err}"
        assert (err.lineno, err.colno) == (reference.value.lineno, reference.value.colno), label
        check_error_attributes(err, text)


INCOMPLETE: list[str] = [
    "",
    "[",
    '{"a"',
    '"abc',
    "tru",
    "-",
    "1.",
    '"\\u12',
    "   ",
    '{"a": 1',
    "[1, 2",
    '"\\ud83d',
    '"\\ud83d\\u',
    '{"a":',
    "-0.",
    "1e",
    "1e+",
    "[\n[\n",
    '{"a": [1, {"b": "c\\',
    "n",
]


@pytest.mark.parametrize("text", INCOMPLETE, ids=[ascii(t) for t in INCOMPLETE])
def test_incomplete_at_close(text: str) -> None:
    for label, fragments in chunkings(text):
        failure = fail(fragments)
        err = failure.err
        assert failure.stage == "close", f"{label}: feed raised {err}"
        assert err.incomplete is True, label
        assert err.pos == len(text), label
        check_error_attributes(err, text)
        with pytest.raises(jsonsnap.JSONDecodeError) as again:
            failure.parser.close()
        assert again.value.pos == len(text) and again.value.incomplete, label


@pytest.mark.parametrize(("text", "pos"), INVALID[:12], ids=ids(INVALID[:12]))
def test_invalid_is_not_incomplete_at_close(text: str, pos: int) -> None:
    parser = jsonsnap.Parser()
    with pytest.raises(jsonsnap.JSONDecodeError):
        parser.feed(text)
    with pytest.raises(jsonsnap.JSONDecodeError) as info:
        parser.close()
    assert info.value.incomplete is False
    assert info.value.pos == pos


@pytest.mark.parametrize(
    ("text", "pos"),
    [("[" * 100_000, 100_000), ('{"a":' * 50_000, 250_000), ('[{"a":' * 20_000, 120_000)],
    ids=["arrays", "objects", "mixed"],
)
def test_deep_input_no_recursion_error(text: str, pos: int) -> None:
    for label, fragments in chunkings(text, rounds=1):
        failure = fail(fragments)
        assert failure.stage == "close", label
        assert failure.err.incomplete and failure.err.pos == pos, label
        snapshot = failure.parser.snapshot()
        assert isinstance(snapshot, (list, dict)), label


def test_deep_invalid_no_recursion_error() -> None:
    text = "[" * 100_000 + "}"
    for label, fragments in chunkings(text, rounds=1):
        failure = fail(fragments)
        assert failure.err.pos == 100_000 and not failure.err.incomplete, label


# Bytes that are not UTF-8: pos is the character offset where the bad bytes begin.
BAD_UTF8: list[tuple[bytes, int]] = [
    (b'["a\xff"]', 3),
    (b"[\xff]", 1),
    (b"\xff", 0),
    (b'["\xc3\xa9\xff"]', 3),
    (b'["\xc3\xa9", "\xe2\x82"]', 7),
    (b'["\xc0\xaf"]', 2),
    (b'["\xed\xa0\x80"]', 2),
    (b'["\xf4\x90\x80\x80"]', 2),
    (b'["\x80"]', 2),
    (b'["\xf0\x9f\x98"]', 2),
    (b'{"\xe2\x82\xac": "\xf0\x9f\x98\x80\xf0"}', 8),
    (b"\xef\xbb\xbf[]", 0),
    (b"\xef\xbb\xbf", 0),
    (b'\xfe\xff\x00"\x00"', 0),
]


@pytest.mark.parametrize(("data", "pos"), BAD_UTF8, ids=ids(BAD_UTF8))
def test_invalid_utf8(data: bytes, pos: int) -> None:
    before = jsonsnap.parse_partial(data.decode("utf-8", "replace")[:pos], NOTHING)
    for label, fragments in chunkings(data):
        failure = fail(fragments)
        err = failure.err
        assert err.pos == pos, f"{label}: {err}"
        assert not err.incomplete, label
        assert str(err) == f"{err.msg}: line {err.lineno} column {err.colno} (char {err.pos})"
        assert diff(before, failure.parser.snapshot(NOTHING)) is None, label


@pytest.mark.parametrize("data", [b'["\xe2\x82', b'"\xf0\x9f\x98', b"[1, \xc3"])
def test_truncated_utf8_at_close(data: bytes) -> None:
    for label, fragments in chunkings(data):
        failure = fail(fragments)
        assert failure.stage == "close", label


def test_bytes_positions_count_characters() -> None:
    text = '["\u00e9\u20ac\U0001f600", 1 2]'
    pos = text.index("2")
    for label, fragments in chunkings(text.encode()):
        err = fail(fragments).err
        assert err.pos == pos, label
        assert (err.lineno, err.colno) == line_col(text, pos), label


MULTIBYTE = '["\u00e9\u20ac\U0001f600", {"\u043a\u043b\u044e\u0447": "\u0437\u043d\u0430\u0447"}]'


def test_multibyte_split_across_fragments() -> None:
    data = MULTIBYTE.encode()
    expected = json.loads(MULTIBYTE)
    for label, fragments in chunkings(data):
        parser = jsonsnap.Parser()
        for fragment in fragments:
            parser.feed(fragment)
            snapshot = parser.snapshot(copy=True)
            # Never half a character: every string shown encodes back to UTF-8.
            json.dumps(snapshot, ensure_ascii=False).encode("utf-8")
        assert diff(expected, parser.snapshot()) is None, label
        assert diff(expected, parser.close()) is None, label


def test_partial_character_is_held_back() -> None:
    parser = jsonsnap.Parser()
    parser.feed(b'["a\xf0\x9f')
    assert parser.snapshot() == ["a"]
    parser.feed(b"\x98")
    assert parser.snapshot() == ["a"]
    parser.feed(b"\x80")
    assert parser.snapshot() == ["a\U0001f600"]


def test_bom_only_rejected_at_start() -> None:
    data = b'["\xef\xbb\xbf", "\xef\xbb\xbf"]'
    for label, fragments in chunkings(data):
        parser = jsonsnap.Parser()
        for fragment in fragments:
            parser.feed(fragment)
        assert parser.close() == ["\ufeff", "\ufeff"], label


def test_str_after_complete_bytes() -> None:
    parser = jsonsnap.Parser()
    parser.feed(b'["a", "\xc3\xa9", ')
    parser.feed('"b", "\u00e9"]')
    assert parser.close() == ["a", "\u00e9", "b", "\u00e9"]


def test_bytes_after_str() -> None:
    parser = jsonsnap.Parser()
    parser.feed('["a", ')
    parser.feed(b'"\xc3\xa9"]')
    assert parser.close() == ["a", "\u00e9"]


def test_mixed_positions_are_absolute() -> None:
    parser = jsonsnap.Parser()
    parser.feed(b'["\xc3\xa9", ')
    with pytest.raises(jsonsnap.JSONDecodeError) as info:
        parser.feed("1 2]")
    assert info.value.pos == 8


PICKLED = ["[1 2]", '{"a":\n 1 x', '"\\u12', "[\n[", "", '[\n"abc",\n"def",\n 1 2]']


@pytest.mark.parametrize("text", PICKLED, ids=[ascii(t) for t in PICKLED])
def test_pickle_round_trip(text: str) -> None:
    for label, fragments in chunkings(text, rounds=2):
        err = fail(fragments).err
        clone = pickle.loads(pickle.dumps(err))
        assert type(clone) is jsonsnap.JSONDecodeError, label
        for name in ("msg", "doc", "pos", "lineno", "colno", "incomplete", "doc_offset"):
            assert getattr(clone, name) == getattr(err, name), f"{label}: {name}"
        assert str(clone) == str(err), label
        assert clone.args == err.args, label


def test_error_class() -> None:
    assert issubclass(jsonsnap.JSONDecodeError, json.JSONDecodeError)
    assert issubclass(jsonsnap.JSONDecodeError, ValueError)
    with pytest.raises(json.JSONDecodeError):
        jsonsnap.loads("[1 2]")
    with pytest.raises(ValueError, match="Expecting"):
        jsonsnap.loads("[1 2]")


def test_loads_errors_match_parser() -> None:
    for text, pos in INVALID:
        with pytest.raises(jsonsnap.JSONDecodeError) as info:
            jsonsnap.loads(text)
        assert info.value.pos == pos, text
    for text in INCOMPLETE:
        with pytest.raises(jsonsnap.JSONDecodeError) as info:
            jsonsnap.loads(text)
        assert info.value.incomplete and info.value.pos == len(text), text


#: What parse_partial shows for each INCOMPLETE text (NOTHING: nothing to show yet).
INCOMPLETE_SNAPSHOTS: dict[str, object] = {
    "": NOTHING,
    "[": [],
    '{"a"': {},
    '"abc': "abc",
    "tru": NOTHING,
    "-": NOTHING,
    "1.": NOTHING,
    '"\\u12': "",
    "   ": NOTHING,
    '{"a": 1': {},
    "[1, 2": [1],
    '"\\ud83d': "",
    '"\\ud83d\\u': "",
    '{"a":': {},
    "-0.": NOTHING,
    "1e": NOTHING,
    "1e+": NOTHING,
    "[\n[\n": [[]],
    '{"a": [1, {"b": "c\\': {"a": [1, {"b": "c"}]},
    "n": NOTHING,
}


def test_parse_partial_does_not_raise_for_incomplete() -> None:
    assert list(INCOMPLETE_SNAPSHOTS) == INCOMPLETE
    for text, expected in INCOMPLETE_SNAPSHOTS.items():
        got = jsonsnap.parse_partial(text, NOTHING)
        problem = diff(expected, got)
        assert problem is None, f"{text!r}: {problem}"
        # The same as the spec's independent model of a prefix, and None by default.
        assert diff(snapshot_model(text), got) is None, text
        by_default = None if expected is NOTHING else expected
        assert diff(by_default, jsonsnap.parse_partial(text)) is None, text
