"""An event's envelope: decoded by the standard library's decoder, with our acceptance and our
errors, and by our parser where depth needs it.

``loads_envelope`` must take exactly what ``jsonsnap.loads`` takes, give the same value, and
raise the same ``JSONDecodeError`` (message and position) for everything else; deep data gets
our error or our value, never a ``RecursionError``.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest

import jsonsnap
from jsonsnap._streams.envelope import DONE, MOST_BRACKETS, event_data, loads_envelope
from jsonsnap.anthropic import MessageAccumulator
from jsonsnap.sse import ServerSentEvent
from jsonsnap.streams import StreamError

VALID = [
    '{"type": "message_start", "message": {"id": "m", "content": []}}',
    '{"a": 1, "b": 2, "a": 3}',  # a key given twice: its last value, in its first place
    '{"n": [0, -0, -0.0, 1e400, 12345678901234567890, 1.5e-7, true, false, null]}',
    '{"s": "\\ud83d\\ude00 \\ud800 caf\\u00e9 \\" \\\\ \\/ \\b\\f\\n\\r\\t"}',
    ' \t\r\n{"padded": "with JSON whitespace"} \n',
    "[1, 2, 3]",
    '"a string"',
    "12",
    "{}",
]

INVALID = [
    "",
    " ",
    '{"a": NaN}',
    '{"a": Infinity}',
    '{"a": -Infinity}',
    "NaN",
    "{'a': 1}",
    '{"a": 1,}',
    '{"a": 1} x',
    '{"a": 1}{"b": 2}',
    '{"a": "\x01"}',
    '{"a": 01}',
    '{"a": 1.}',
    '{"a": .5}',
    '{"a": +1}',
    '{"a": tru}',
    '{"a": "\\x"}',
    '{"a": "\\u12"}',
    '{"a": 1',
    '{"a": "open',
    "\ufeff{}",
    "{\u00a0}",  # (a no-break space is no JSON whitespace)
    '{"a": ' + "1" * 5000 + "}",  # more digits than int() converts by default
]


def ours(text: str) -> Any:
    try:
        return ("value", jsonsnap.loads(text))
    except jsonsnap.JSONDecodeError as exc:
        return ("error", str(exc), exc.pos, exc.incomplete)


def theirs(text: str) -> Any:
    try:
        return ("value", loads_envelope(text))
    except jsonsnap.JSONDecodeError as exc:
        return ("error", str(exc), exc.pos, exc.incomplete)


@pytest.mark.parametrize("text", VALID)
def test_a_valid_envelope_is_what_both_decoders_make_of_it(text: str) -> None:
    got = theirs(text)
    assert got == ours(text)
    assert got == ("value", json.loads(text))
    if isinstance(got[1], dict):  # (the keys in the same order too)
        assert list(got[1]) == list(jsonsnap.loads(text))


@pytest.mark.parametrize("text", INVALID)
def test_an_invalid_envelope_gets_our_error(text: str) -> None:
    got = theirs(text)
    assert got[0] == "error"
    assert got == ours(text)


@pytest.mark.parametrize("depth", [MOST_BRACKETS // 2, MOST_BRACKETS + 1, 100_000])
def test_deep_data_is_read_without_recursion(depth: int) -> None:
    whole = '{"a": ' + "[" * depth + "]" * depth + "}"
    value = loads_envelope(whole)["a"]  # (compared by hand: == on it would recurse)
    for _ in range(depth - 1):
        (value,) = value
    assert value == []
    cut = whole[:-2]
    assert theirs(cut) == ours(cut)
    assert theirs(cut)[0] == "error"


def test_brackets_in_strings_count_but_change_nothing() -> None:
    text = json.dumps({"code": "{" * (MOST_BRACKETS * 3)})
    assert loads_envelope(text) == json.loads(text)


def test_a_recursion_error_of_the_standard_decoder_falls_back_to_ours() -> None:
    depth = MOST_BRACKETS  # (not counted: within the limit)
    text = "[" * depth + "]" * depth
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(100)
    try:
        got = theirs(text)
    finally:
        sys.setrecursionlimit(limit)
    assert got == ours(text)


def test_the_data_of_a_server_sent_event() -> None:
    assert event_data(ServerSentEvent(data=" [DONE] ")) is DONE
    assert event_data(ServerSentEvent(data='{"type": "ping"}')) == {"type": "ping"}
    with pytest.raises(StreamError, match="the data of a 'ping' event is not a JSON object"):
        event_data(ServerSentEvent(event="ping", data="[1]"))
    with pytest.raises(StreamError) as info:
        event_data(ServerSentEvent(event="ping", data='{"a": NaN}'))
    expected = ours('{"a": NaN}')[1]
    assert str(info.value) == f"the data of a 'ping' event is not JSON: {expected}"


def test_an_accumulator_reads_deep_data_in_an_event() -> None:
    depth = 50_000
    nested = "[" * depth + "]" * depth
    start = (
        '{"type": "message_start", "message": {"id": "m", "type": "message", "role": '
        '"assistant", "content": [], "model": "x", "stop_reason": null, "usage": {"deep": '
        + nested
        + "}}}"
    )
    acc = MessageAccumulator()
    acc.feed(ServerSentEvent(event="message_start", data=start))
    assert acc.result is not None
    with pytest.raises(StreamError, match="is not JSON"):
        MessageAccumulator().feed(ServerSentEvent(event="message_start", data=start[:-3]))
