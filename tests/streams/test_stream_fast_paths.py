"""The fast paths of the accumulator path against the slow paths they stand for.

A body read by ``updates()`` goes from the SSE decoder's ``(type, data)`` pairs straight to the
protocol's handlers, with no ``ServerSentEvent`` made; each envelope is read by the C scanner
itself; Anthropic's commonest deltas are checked inline. Each is held here to what the general
path gives for the same input: the same events, values, updates and errors, whole, one
character at a time and at random splits.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import AsyncIterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

import jsonsnap
from chunking import chunkings, random_splits
from jsonsnap._streams.envelope import loads_envelope, sse_data
from jsonsnap.anthropic import MessageAccumulator
from jsonsnap.sse import ServerSentEvent, SSEDecoder, aiter_events, iter_events
from jsonsnap.streams import Accumulator, StreamError, Update
from recordings import accumulator, all_fixtures, fixture_id

# --------------------------------------------------------------------------- SSE: pairs

STREAMS = [
    "event: a\ndata: 1\n\ndata: 2\n\n",
    "event:a\ndata:1\n\nevent:  b\ndata:  2\n\n",
    "data: one\ndata: two\n\n",
    "data\n\ndata:\n\nevent\ndata: x\n\n",
    "event: x\n\ndata: y\n\n\n\n",
    ": comment\ndata: x\n:another\n\n",
    "id: 7\ndata: a\n\ndata: b\n\nid\ndata: c\n\nid: x\0y\ndata: d\n\n",
    "retry: 3000\ndata: a\n\nretry: x\ndata: b\n\nretry\ndata: c\n\n",
    "data: a\r\n\r\ndata: b\r\rdata: c\n\nevent: e\rdata: d\r\n\n",
    "\ufeffdata: bom\n\n",
    "\ufeff\ufeffdata: two boms\n\n",
    'event: content_block_delta\ndata: {"type":"content_block_delta"}\n\ndata: [DONE]\n\n',
    "data: caf\u00e9 \U0001f600 \u2028 \x85 \x0c\n\n",
    "unknown: field\ndata: x\nevent: last wins\nevent: t\n\n",
    "data: unfinished\n\ndata: never dispatched",
    "data: a\n\ndata: cut before its blank line\n",
]


def _events_and_pairs(
    pieces: Sequence[bytes | str],
) -> tuple[list[ServerSentEvent], list[tuple[str, str]], tuple[str, int | None]]:
    events_decoder, pairs_decoder = SSEDecoder(), SSEDecoder()
    events: list[ServerSentEvent] = []
    pairs: list[tuple[str, str]] = []
    for piece in pieces:
        events += events_decoder.feed(piece)
        pairs += pairs_decoder._pairs(piece)
        assert pairs_decoder.last_event_id == events_decoder.last_event_id
        assert pairs_decoder.retry == events_decoder.retry
    events += events_decoder.close()
    pairs += pairs_decoder._close(True)  # type: ignore[arg-type]
    return events, pairs, (pairs_decoder.last_event_id, pairs_decoder.retry)


@pytest.mark.parametrize("stream", STREAMS)
def test_pairs_are_the_events_types_and_data(stream: str) -> None:
    whole, _, _ = _events_and_pairs([stream])
    expected = [(event.event, event.data) for event in whole]
    cuts: list[tuple[str, Sequence[bytes | str]]] = [*chunkings(stream)]
    cuts += chunkings(stream.encode("utf-8"))
    for label, pieces in cuts:
        events, pairs, _ = _events_and_pairs(pieces)
        assert events == whole, label
        assert pairs == expected, label


def test_a_str_subclass_is_read_as_text() -> None:
    class Text(str):
        pass

    decoder = SSEDecoder()
    assert decoder.feed(Text("data: x\n\n")) == [ServerSentEvent(data="x")]
    with pytest.raises(TypeError, match="takes bytes or str, not"):
        decoder._pairs(12)  # type: ignore[arg-type]


def test_aiter_events_starts_at_its_first_step() -> None:
    """As the async generator it was: a wrong ``errors`` raises at the first step, not at
    the call; a source that raises ends it."""

    async def source() -> AsyncIterator[bytes]:
        yield b"data: 1\n\nda"
        yield b"ta: 2\n\n"
        raise OSError("connection reset")

    async def collect() -> tuple[list[ServerSentEvent], list[ServerSentEvent]]:
        events = aiter_events(source())
        got: list[ServerSentEvent] = []
        with pytest.raises(OSError, match="reset"):
            async for event in events:
                got.append(event)  # noqa: PERF401 (kept as they come: the source raises)
        return got, [event async for event in events]

    assert asyncio.run(collect()) == ([ServerSentEvent(data="1"), ServerSentEvent(data="2")], [])
    bad = aiter_events(source(), errors="ignore")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="errors is 'replace' or 'strict'"):
        asyncio.run(bad.__anext__())  # type: ignore[arg-type]


# --------------------------------------------------------------------------- envelopes

ENVELOPES = [
    '{"type": "ping"}',
    ' \t\r\n{"padded": 1} \n',
    '{"a": 1}\u00a0',  # no JSON whitespace after it
    '{"a": 1} x',
    '{"a": 1}{"b": 2}',
    '\u00a0{"a": 1}',
    '{"a": NaN}',
    '{"a": "\x01"}',
    "[1, 2]",
    "",
    " ",
    "[" * 399 + "]" * 399,
    "[" * 2000,
]


@pytest.mark.parametrize("text", ENVELOPES)
def test_the_scanner_takes_what_loads_takes(text: str) -> None:
    try:
        expected: Any = jsonsnap.loads(text)
    except jsonsnap.JSONDecodeError as exc:
        with pytest.raises(jsonsnap.JSONDecodeError) as got:
            loads_envelope(text)
        assert (got.value.msg, got.value.pos) == (exc.msg, exc.pos)
    else:
        assert loads_envelope(text) == expected


def test_the_done_marker_and_its_lookalikes() -> None:
    assert sse_data("message", " [DONE] \n") == "[DONE]"
    with pytest.raises(StreamError, match="not a JSON object"):
        sse_data("message", '["[DONE]"]')
    with pytest.raises(StreamError, match="'message' event is not JSON"):
        sse_data("message", "{[DONE]")


# --------------------------------------------------------------------------- the body path


#: The recordings that are event streams (Bedrock's are a binary framing).
SSE_FIXTURES = [(protocol, path) for protocol, path in all_fixtures() if path.suffix == ".sse"]


@pytest.mark.parametrize(
    ("protocol", "path"), SSE_FIXTURES, ids=[fixture_id(path) for _, path in SSE_FIXTURES]
)
def test_a_body_read_as_its_events_fed_one_by_one(protocol: str, path: Path) -> None:
    """``updates(body)`` (the pairs' path, for an event stream) does what ``feed()`` of each
    ``ServerSentEvent`` does, for every recording, cut anywhere."""
    body = path.read_bytes()
    fed = accumulator(protocol, path)
    events = list(iter_events([body]))
    expected: list[str] = []
    error: str | None = None
    try:
        for event in events:
            expected += map(repr, fed.feed(event))
        expected += map(repr, fed.close())
    except StreamError as exc:
        error = str(exc)
    rng = random.Random(len(body))
    for pieces in ([body], random_splits(body, rng, max_piece=64)):
        read = accumulator(protocol, path)
        got: list[str] = []
        try:
            got += (repr(update) for update in read.updates(pieces))
        except StreamError as exc:
            assert str(exc) == error
        else:
            assert error is None
        assert got == expected
        assert read.result == fed.result
        assert [t.raw for t in read.tool_calls()] == [t.raw for t in fed.tool_calls()]


class _Lines(Accumulator):
    """A protocol of its own, as a user writes one (interpreted, on a compiled base)."""

    protocol = "lines"
    _OPENERS = frozenset({"start"})
    _FIRST = "start"

    def _begin(self) -> None:
        self.lines: list[str] | None = None
        self.seen: list[str] = []

    @classmethod
    def looks_like(cls, data: Mapping[str, Any]) -> bool:
        return data.get("type") in ("start", "line")

    @property
    def result(self) -> dict[str, Any] | None:
        return None if self.lines is None else {"lines": self.lines}

    def _blocks(self) -> list[dict[str, Any]]:
        return []

    def _start(self, event: Mapping[str, Any]) -> list[Update]:
        self.lines = []
        return [Update("start")]

    def _line(self, event: Mapping[str, Any]) -> list[Update]:
        text = self._fields.string(event.get("text"), "the text")
        self.lines.append(text)  # type: ignore[union-attr]
        return [Update("line", text=text)]


_Lines._HANDLERS = {"start": _Lines._start, "line": _Lines._line}


class _SeesEvents(_Lines):
    """One that reads a server-sent event in a ``_data_of()`` of its own: given the events."""

    def _data_of(self, event: Any) -> Mapping[str, Any] | str | None:
        if isinstance(event, ServerSentEvent):
            self.seen.append(f"{event.event}#{event.id}")
        return super()._data_of(event)


class _SeesPairs(_Lines):
    """One that reads the data in an ``_sse_data()`` of its own: given the pairs."""

    def _sse_data(self, event: str, data: str) -> Mapping[str, Any] | str | None:
        self.seen.append(event)
        return None if data == "skip" else super()._sse_data(event, data)


LINES = (
    b'event: s\nid: 1\ndata: {"type": "start"}\n\n'
    b"data: skip\n\n"
    b'event: l\ndata: {"type": "line", "text": "a"}\n\n'
    b'id: 2\ndata: {"type": "line", "text": "b"}\n\n'
)


@pytest.mark.parametrize("cls", [_Lines, _SeesEvents, _SeesPairs])
def test_a_protocol_of_ones_own(cls: type[_Lines]) -> None:
    for label, pieces in chunkings(LINES, rounds=2):
        acc = cls()
        if cls is _SeesPairs:
            updates = list(acc.updates(pieces))
            assert acc.seen == ["s", "message", "l", "message"], label
        else:
            with pytest.raises(StreamError, match="'message' event is not JSON"):
                list(acc.updates(pieces))
            continue
        assert [(u.event, u.text) for u in updates] == [("start", ""), ("line", "a"), ("line", "b")]
        assert acc.result == {"lines": ["a", "b"]} and acc.closed
    acc = _SeesEvents()
    with pytest.raises(StreamError, match="not JSON"):
        list(acc.updates(LINES))
    assert acc.seen == ["s#1", "message#1"]


def test_an_async_body_takes_the_same_path() -> None:
    body = (
        Path(__file__).parents[2] / "fixtures" / "anthropic" / "parallel_tools.sse"
    ).read_bytes()

    async def chunks() -> AsyncIterator[bytes]:
        for piece in random_splits(body, random.Random(3), max_piece=40):
            yield piece

    async def collect() -> list[str]:
        return [repr(u) async for u in MessageAccumulator().aupdates(chunks())]

    assert asyncio.run(collect()) == [repr(u) for u in MessageAccumulator().updates(body)]


# --------------------------------------------------------------------------- Anthropic's deltas

START = {
    "type": "message_start",
    "message": {"id": "m", "type": "message", "role": "assistant", "content": [], "usage": {}},
}
D = "content_block_delta"


def _blocks() -> MessageAccumulator:
    acc = MessageAccumulator()
    acc.feed(START)
    for index, block in enumerate(
        (
            {"type": "tool_use", "id": "t", "name": "f", "input": {}},
            {"type": "text", "text": ""},
            {"type": "thinking", "thinking": 5},
            {"type": "text", "text": ""},
        )
    ):
        acc.feed({"type": "content_block_start", "index": index, "content_block": block})
    acc.feed({"type": "content_block_stop", "index": 3})
    return acc


# (the event, the error: as the field readers say it)
MALFORMED = [
    ({"index": True, "delta": {"type": "text_delta", "text": "x"}}, "block is True, not an index"),
    ({"index": "0", "delta": {"type": "text_delta", "text": "x"}}, "block is '0', not an index"),
    ({"index": -1, "delta": {"type": "text_delta", "text": "x"}}, "block is -1, not an index"),
    (
        {"index": 4, "delta": {"type": "text_delta", "text": "x"}},
        "for block 4, which does not exist (there are 4)",
    ),
    ({"index": 3, "delta": {"type": "text_delta", "text": "x"}}, "for block 3, which has stopped"),
    ({"delta": {"type": "text_delta", "text": "x"}}, "block is None, not an index"),
    ({"index": 0, "delta": ["x"]}, "the delta is a list, not an object"),
    ({"index": 0}, "the delta is None, not an object"),
    ({"index": 0, "delta": {"type": 7}}, "the delta type is 7, not a string"),
    (
        {"index": 0, "delta": {"type": "input_json_delta", "partial_json": 7}},
        "the partial JSON is 7, not a string",
    ),
    ({"index": 0, "delta": {"type": "input_json_delta"}}, "the partial JSON is None, not a string"),
    (
        {"index": 1, "delta": {"type": "input_json_delta", "partial_json": "{"}},
        "input_json_delta for block 1, not a tool",
    ),
    ({"index": 1, "delta": {"type": "text_delta", "text": None}}, "the text is None, not a string"),
    (
        {"index": 1, "delta": {"type": "thinking_delta", "thinking": 1.5}},
        "the thinking is 1.5, not a string",
    ),
    (
        {"index": 2, "delta": {"type": "thinking_delta", "thinking": "ok"}},
        "the thinking so far is 5, not a string",
    ),
]


@pytest.mark.parametrize(("event", "error"), MALFORMED)
def test_a_malformed_delta_gets_the_field_readers_error(event: dict[str, Any], error: str) -> None:
    acc = _blocks()
    before = json.dumps(acc.message)
    with pytest.raises(StreamError) as raised:
        acc.feed({"type": D, **event})
    assert error in str(raised.value)
    assert json.dumps(acc.message) == before


def test_deltas_the_inline_checks_take() -> None:
    """A str subclass, a text block whose text is ``None``, surrogate halves cut between
    deltas: the inline path gives what the field readers and the halves give."""

    class Text(str):
        pass

    acc = _blocks()
    acc.message["content"][1]["text"] = None  # type: ignore[index]
    for piece in (Text("a"), "\ud83d", "\ude00b", "caf\u00e9"):
        acc.feed({"type": D, "index": 1, "delta": {"type": "text_delta", "text": piece}})
    assert acc.message["content"][1]["text"] == "a\U0001f600bcaf\u00e9"  # type: ignore[index]
    for piece in ('{"s": "\\ud83d', Text("\\ude00"), "\ud83d", '\ude00"}'):
        acc.feed(
            {"type": D, "index": 0, "delta": {"type": "input_json_delta", "partial_json": piece}}
        )
    tool = acc.tools[0]
    assert tool.snapshot == {"s": "\U0001f600\U0001f600"} and tool.raw.endswith('"}')


# --------------------------------------------------------------------------- Update


def test_update_is_a_value() -> None:
    block: dict[str, Any] = {"type": "text"}
    one = Update("content_block_delta", 1, block, "text_delta", "hi")
    two = Update("content_block_delta", 1, block, "text_delta", text="hi")
    assert one == two
    assert one != Update("content_block_delta", 1, block, "text_delta", "ho")
    assert one != ("content_block_delta", 1)
    assert Update("x") == Update("x") and hash(Update("x")) == hash(Update("x"))
    found = (jsonsnap.SchemaError("bad", path=("a",)),)
    checked = one._but(found)
    assert checked.violations == found and checked.text == "hi" and one.violations == ()
    assert repr(checked).startswith("Update('content_block_delta', index=1, block=<1 keys>")
    assert Update("x").snapshot is None
