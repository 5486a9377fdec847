"""Anthropic's hot events (``MessageAccumulator._hot``) against the general way they stand for.

A body's commonest event, a content block's delta as the API sends it, is read from its data
text in one look instead of being decoded whole and dispatched. Each body here is read twice,
by the accumulator and by one whose ``_hot`` always declines (so every event goes the general
way), and the two must agree on everything: each update as it comes (its block, tool input and
snapshot at that moment), the error that stops a body, and the state after it (the message, the
tool inputs, the count of events). The bodies: every Anthropic recording, cut anywhere, and
hand-made events at the edges of the hot form. Each is also read one event per chunk, as a
server that flushes each event sends it: a block's deltas then come again and again in the same
framing but for their string, which the body's loop reads as the last hot event once more
(``_repeat``), and which must agree too.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from chunking import chunkings, per_event, random_splits
from jsonsnap.anthropic import MessageAccumulator
from jsonsnap.sse import SSEDecoder
from jsonsnap.streams import StreamError, ToolInput, Update
from recordings import all_fixtures, fixture_id

FIXTURES = [path for protocol, path in all_fixtures() if protocol == "anthropic"]
SCHEMAS = Path(__file__).parents[2] / "fixtures" / "anthropic" / "schemas"


class Cold(MessageAccumulator):
    """Every event the general way (an interpreted subclass: on either build)."""

    def _hot(self, text: str) -> list[Update] | None:
        return None


class Counted(MessageAccumulator):
    """The accumulator, counting the events its hot form took (``hot``: each is applied by
    ``_repeat``), and of them, those the body's loop read again without ``_hot``
    (``again``)."""

    hot = 0
    again = 0

    def _hot(self, text: str) -> list[Update] | None:
        updates = super()._hot(text)
        if updates is not None:
            type(self).again -= 1
        return updates

    def _repeat(self, piece: str) -> list[Update]:
        type(self).hot += 1
        type(self).again += 1
        return super()._repeat(piece)


def tool_seen(tool: ToolInput | None) -> Any:
    if tool is None:
        return None
    err = tool.error
    return (
        tool.index,
        tool.name,
        tool.id,
        tool.raw,
        tool.status,
        repr(tool.snapshot),
        None if err is None else (err.msg, err.pos),
        [repr(v) for v in tool.violations],
    )


def update_seen(update: Update) -> Any:
    """An update as it comes: its fields, with the block and tool input as they are now."""
    structured = update.structured
    return (
        update.event,
        update.index,
        repr(update.block),
        update.delta,
        update.text,
        tool_seen(update.tool),
        update.thinking,
        update.fragment,
        update.changed,
        update.custom_input,
        [repr(v) for v in update.violations],
        None if structured is None else (structured.raw, structured.status),
        repr(update.snapshot),
    )


def outcome(acc: MessageAccumulator, pieces: Iterable[bytes | str]) -> Any:
    """What reading a body does: the updates as they come, the error, the state after."""
    seen = []
    error = None
    try:
        for update in acc.updates(pieces):
            seen.append(update_seen(update))  # noqa: PERF401 (as they come: a body may fail)
    except StreamError as exc:
        error = str(exc)
    return (seen, error, *outcome_state(acc))


def outcome_state(acc: MessageAccumulator) -> tuple[Any, ...]:
    """The state a body leaves."""
    structured = acc.structured
    return (
        repr(acc.message),
        acc.events,
        acc.done,
        acc.closed,
        [tool_seen(tool) for tool in acc.tool_calls()],
        None if structured is None else (structured.raw, structured.status),
    )


def same_both_ways(
    body: bytes, cuts: Iterable[tuple[str, Sequence[bytes]]] = (), **options: Any
) -> int:
    """The body read hot and cold agree, whole and at every cut; how many events the hot form
    took of the whole body."""
    expected = outcome(Cold(**options), [body])
    Counted.hot = 0
    assert outcome(Counted(**options), [body]) == expected
    hot = Counted.hot
    for label, pieces in [("per event", per_event(body)), *cuts]:
        assert outcome(Counted(**options), pieces) == expected, label
    return hot


def aoutcome(acc: MessageAccumulator, pieces: Sequence[bytes]) -> Any:
    """:func:`outcome` of the body read by ``aupdates()``."""
    seen = []
    error = None

    async def read() -> None:
        async for update in acc.aupdates(pieces):
            seen.append(update_seen(update))  # noqa: PERF401 (as they come: a body may fail)

    try:
        asyncio.run(read())
    except StreamError as exc:
        error = str(exc)
    return (seen, error, *outcome_state(acc))


def read_again(body: bytes) -> int:
    """How many events of the body, one event per chunk, the body's loop read again."""
    Counted.again = 0
    outcome(Counted(), per_event(body))
    return Counted.again


def request_options(path: Path) -> dict[str, Any]:
    """The request's tools and output format, for a recording that has its request."""
    request = SCHEMAS / f"{path.stem}.request.json"
    if not request.exists():
        return {}
    sent = json.loads(request.read_text())
    options: dict[str, Any] = {}
    if "tools" in sent:
        options["tools"] = sent["tools"]
    if "output_format" in sent:
        options["output_schema"] = sent["output_format"]
    return options


def fixture_cuts(body: bytes) -> Iterator[tuple[str, Sequence[bytes]]]:
    yield "whole", [body]
    rng = random.Random(len(body))
    for round_ in range(4):
        yield f"random#{round_}", random_splits(body, rng, max_piece=rng.choice((1, 7, 64)))


@pytest.mark.parametrize("path", FIXTURES, ids=[fixture_id(path) for path in FIXTURES])
@pytest.mark.parametrize("repair", [False, True])
def test_every_recording_reads_the_same_hot_and_cold(path: Path, repair: bool) -> None:
    body = path.read_bytes()
    options = {**request_options(path), "repair": repair}
    same_both_ways(body, fixture_cuts(body), **options)


@pytest.mark.parametrize("path", FIXTURES, ids=[fixture_id(path) for path in FIXTURES])
def test_every_recording_reads_the_same_async_one_event_per_chunk(path: Path) -> None:
    """``aupdates()`` reads a chunk again as ``updates()`` does (the same chunks), and as it
    reads the body the general way."""
    body = path.read_bytes()
    options = request_options(path)
    expected = aoutcome(Cold(**options), [body])
    Counted.again = 0
    assert aoutcome(Counted(**options), per_event(body)) == expected
    again = Counted.again
    Counted.again = 0
    outcome(Counted(**options), per_event(body))
    assert again == Counted.again


def test_the_recordings_take_the_hot_form() -> None:
    """(So that the tests above test something: most deltas of a real stream are hot, and one
    event per chunk, most are read again by the loop.)"""
    hot = again = deltas = 0
    for path in FIXTURES:
        body = path.read_bytes()
        hot += same_both_ways(body)
        again += read_again(body)
        deltas += body.count(b'data: {"type":"content_block_delta"')
    assert hot > 0.9 * deltas > 100
    assert again > 0.8 * deltas


# --------------------------------------------------------------------------- edge events

START = json.dumps(
    {
        "type": "message_start",
        "message": {"id": "m", "type": "message", "role": "assistant", "content": [], "usage": {}},
    },
    separators=(",", ":"),
)
BLOCKS = [
    '{"type":"content_block_start","index":0,"content_block":'
    '{"type":"tool_use","id":"t","name":"get_weather","input":{}}}',
    '{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}',
    '{"type":"content_block_start","index":2,"content_block":{"type":"thinking","thinking":""}}',
    '{"type":"content_block_start","index":3,"content_block":{"type":"text","text":""}}',
    '{"type":"content_block_stop","index":3}',
    '{"type":"content_block_start","index":4,"content_block":{"type":"text","text":5}}',
]
END = ['{"type":"content_block_stop","index":0}', '{"type":"message_stop"}']


def json_delta(index: str, raw: str) -> str:
    """The hot form of an ``input_json_delta``, its string's JSON text ``raw`` as written."""
    return (
        f'{{"type":"content_block_delta","index":{index},'
        f'"delta":{{"type":"input_json_delta","partial_json":"{raw}"}}}}'
    )


def text_delta(index: str, raw: str, key: str = "text") -> str:
    return (
        f'{{"type":"content_block_delta","index":{index},'
        f'"delta":{{"type":"{key}_delta","{key}":"{raw}"}}}}'
    )


def body_of(events: Iterable[str], head: Iterable[str] = (START, *BLOCKS)) -> bytes:
    return "".join(f"event: e\ndata: {data}\n\n" for data in [*head, *events]).encode()


WEATHER = {
    "name": "get_weather",
    "input_schema": {
        "type": "object",
        "properties": {"location": {"type": "string"}, "unit": {"enum": ["c", "f"]}},
        "required": ["location"],
    },
}

EDGES: dict[str, list[str]] = {
    "plain": [json_delta("0", '{\\"location\\": \\"Os'), json_delta("0", 'lo\\"}'), *END],
    "escapes": [
        json_delta("0", '{\\"location\\": \\"a\\\\nb\\\\\\"c\\\\\\\\d\\\\u00e9'),
        json_delta("0", '\\u00e9 \\n \\" \\\\ \\/ \\b\\f\\r\\t\\u0000\\"}'),
        text_delta("1", 'a\\nb\\"c\\\\d\\u00e9\\/'),
        *END,
    ],
    "a pair cut between deltas": [
        text_delta("1", "x\\ud83d"),
        text_delta("1", "\\ude00y"),
        text_delta("2", "\\ud83d", "thinking"),
        text_delta("2", "\\ude00", "thinking"),
        json_delta("0", '{\\"location\\": \\"\\ud83d'),
        json_delta("0", '\\ude00\\"}'),
        *END,
    ],
    "a lone half, then other text": [
        text_delta("1", "\\ud83d"),
        text_delta("1", "b"),
        text_delta("1", "\\ude00"),
        json_delta("0", '{\\"location\\": \\"\\ud83d'),
        *END,
    ],
    "a half held at the end": [text_delta("1", "x\\ud83d"), json_delta("0", "\\ud83d"), *END],
    "a raw control character": [text_delta("1", "a\x01b"), *END],
    "a raw control character in the input": [json_delta("0", "{\x1f"), *END],
    "a raw tab": [text_delta("1", "a\tb"), *END],
    "an unknown escape": [text_delta("1", "a\\xb"), *END],
    "a truncated escape": [text_delta("1", "a\\u12"), *END],
    "no closing quote": [
        '{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"a'
    ],
    "a leading zero": [text_delta("01", "a"), *END],
    "zero": [text_delta("0", "a"), *END],
    "a huge index": [text_delta("9" * 30, "a"), *END],
    "an index of ten digits": [text_delta("1000000000", "a"), *END],
    "a negative index": [text_delta("-1", "a"), *END],
    "a fractional index": [text_delta("1.0", "a"), *END],
    "an exponent index": [text_delta("1e0", "a"), *END],
    "an index past the blocks": [text_delta("5", "a"), *END],
    "a block whose text is not a string": [text_delta("4", "a"), *END],
    "a block whose thinking is not a string": [text_delta("4", "a", "thinking"), *END],
    "an index in other digits": [text_delta("\u0661", "a"), *END],
    "no index": [text_delta("", "a"), *END],
    "a stopped block": [text_delta("3", "a"), *END],
    "a text block given JSON": [json_delta("1", "{"), *END],
    "a tool block given text": [text_delta("0", "a"), json_delta("0", "{}"), *END],
    "a thinking block given text": [text_delta("2", "a"), *END],
    "a text block given thinking": [text_delta("1", "a", "thinking"), *END],
    "after its block's stop": [json_delta("0", "{}"), END[0], json_delta("0", " ")],
    "after message_stop": [json_delta("0", "{}"), *END, json_delta("0", " ")],
    "after message_stop, its block open": [
        text_delta("1", "a"),
        END[1],
        text_delta("1", "b"),
        json_delta("0", "{}"),
    ],
    "extra keys": [
        '{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"a","x":1}}',
        '{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"b"},"x":1}',
        *END,
    ],
    "a key given twice": [
        '{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"a","text":"b"}}',
        *END,
    ],
    "other key orders": [
        '{"index":1,"type":"content_block_delta","delta":{"type":"text_delta","text":"a"}}',
        '{"type":"content_block_delta","delta":{"type":"text_delta","text":"b"},"index":1}',
        '{"type":"content_block_delta","index":1,"delta":{"text":"c","type":"text_delta"}}',
        *END,
    ],
    "spaces": [
        '{"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "a"}}',
        '{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"b"}} ',
        ' {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"c"}}',
        '{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"d"} }',
        *END,
    ],
    "text after the event": [
        '{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"a"}}}',
        '{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"a"}}x',
        '{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"a"}',
        *END,
    ],
    "a delta that is not a string": [
        '{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":null}}',
        *END,
    ],
    "a long string of brackets": [
        json_delta("0", '{\\"location\\": \\"' + "[{" * 300 + "\\ud83d"),
        json_delta("0", "\\ude00" + "]}" * 300 + '\\"}'),
        text_delta("1", "[" * 500 + "\\udc00"),
        *END,
    ],
    "invalid tool JSON": [json_delta("0", "{x"), json_delta("0", "}"), *END],
    "the unit out of its enum": [
        json_delta("0", '{\\"location\\": \\"Oslo\\", \\"unit\\": \\"k'),
        json_delta("0", '\\"}'),
        *END,
    ],
    "a repairable input": [json_delta("0", "{location: 'Oslo',"), *END],
    # A delta after a first one of its block, in the same framing: what the loop reads again.
    "again: a quote": [json_delta("0", '{\\"a\\": \\"x'), json_delta("0", 'y"z'), *END],
    "again: a line end": [json_delta("0", '{\\"a\\": \\"x'), json_delta("0", "y\nz"), *END],
    "again: a CR": [json_delta("0", '{\\"a\\": \\"x'), json_delta("0", "y\rz"), *END],
    "again: a control character": [text_delta("1", "a"), text_delta("1", "\x01"), *END],
    "again: DEL": [text_delta("1", "a"), text_delta("1", "\x7f"), text_delta("1", "b"), *END],
    "again: not ASCII": [text_delta("1", "a"), text_delta("1", "é"), text_delta("1", "b"), *END],
    "again: empty": [json_delta("0", "{"), json_delta("0", ""), json_delta("0", "}"), *END],
    "again: a pair cut": [
        text_delta("1", "a"),
        text_delta("1", "\\ud83d"),
        text_delta("1", "\\ude00"),
    ],
    "again: an escape cut": [text_delta("1", "a\\"), text_delta("1", "nb"), *END],
    "again: blocks in turn": [
        text_delta("1", "a"),
        text_delta("1", "b"),
        json_delta("0", '{\\"a'),
        json_delta("0", "b"),
        text_delta("1", "c"),
        text_delta("2", "d", "thinking"),
        text_delta("2", "e", "thinking"),
        json_delta("0", '\\"}'),
        END[0],
        json_delta("0", " "),
        END[1],
    ],
}


@pytest.mark.parametrize("events", EDGES.values(), ids=EDGES.keys())
@pytest.mark.parametrize(
    "options", [{}, {"tools": [WEATHER]}, {"repair": True}], ids=["plain", "tools", "repair"]
)
def test_an_edge_event_reads_the_same_hot_and_cold(
    events: list[str], options: dict[str, Any]
) -> None:
    body = body_of(events)
    cuts = [(label, list(pieces)) for label, pieces in chunkings(body, rounds=3)]
    same_both_ways(body, cuts, **options)


def test_the_edge_bodies_take_the_hot_form_where_they_can() -> None:
    """(So that the test above tests something: the plain deltas are hot, the others not.)"""
    assert same_both_ways(body_of(EDGES["plain"])) == 2
    assert same_both_ways(body_of(EDGES["escapes"])) == 3
    assert same_both_ways(body_of(EDGES["a pair cut between deltas"])) == 6
    for name in ("a leading zero", "a huge index", "spaces", "other key orders", "extra keys"):
        assert same_both_ways(body_of(EDGES[name])) == 0, name
    assert same_both_ways(body_of(EDGES["zero"])) == 1
    assert read_again(body_of(EDGES["plain"])) == 1
    assert read_again(body_of(EDGES["again: blocks in turn"])) == 3
    assert read_again(body_of(EDGES["again: DEL"])) == 2
    assert read_again(body_of(EDGES["again: a pair cut"])) == 2
    for name in ("again: a quote", "again: a line end", "again: not ASCII"):
        assert read_again(body_of(EDGES[name])) == 0, name


# A chunk before a delta that would be read again: what the decoder holds then (or not).
BEFORE = {
    "a line begun": b"data: x",
    "an event type": b"event: other\n",
    "a data line": b"data: 1\n",
    "a CR": b": comment\r",
    "a character begun": "é".encode()[:1],
    "a comment": b": comment\n",
    "a retry": b"retry: 5\n",
    "an id": b"id: 7\n",
}


@pytest.mark.parametrize("before", BEFORE.values(), ids=BEFORE.keys())
def test_what_the_decoder_holds_before_a_delta_is_read_as_it_is(before: bytes) -> None:
    """The loop reads a chunk again only with nothing held before it: the decoder's state is
    the general way's in every case (and ``retry`` and the last event ID, as it leaves them)."""
    events = [json_delta("0", '{\\"a\\": \\"x'), json_delta("0", "y"), json_delta("0", "z")]
    pieces = per_event(body_of([*events, *END]))
    at = len(pieces) - 4  # (before the second delta)
    cut = [*pieces[:at], before, *pieces[at:]]
    expected = outcome(Cold(), [b"".join(cut)])
    assert outcome(Counted(), cut) == expected
    for cls in (Cold, Counted):
        decoder = SSEDecoder()
        outcome(reading_with(cls, decoder), cut)
        assert (decoder.retry, decoder.last_event_id) == (
            5 if before.startswith(b"retry") else None,
            "7" if before.startswith(b"id") else "",
        )


def reading_with(cls: type[MessageAccumulator], decoder: SSEDecoder) -> MessageAccumulator:
    """An accumulator of ``cls`` that reads a body with ``decoder``."""

    class Kept(cls):  # type: ignore[valid-type,misc]
        def _body_decoder(self) -> SSEDecoder:
            return decoder

    return Kept()


@pytest.mark.parametrize(
    "head",
    [[], [START], [START, BLOCKS[0], *END]],
    ids=["before message_start", "before the block starts", "after message_stop"],
)
def test_a_delta_out_of_order_reads_the_same_hot_and_cold(head: list[str]) -> None:
    body = body_of([json_delta("0", "{}"), text_delta("1", "a")], head)
    same_both_ways(body, chunkings(body, rounds=2))


@pytest.mark.parametrize("delta", [json_delta("0", "{}"), text_delta("1", "a")])
def test_a_delta_after_close_is_refused_both_ways(delta: str) -> None:
    got = []
    for cls in (MessageAccumulator, Cold):
        acc = cls()
        for data in (START, *BLOCKS[:2]):
            acc._sse_updates("e", data)
        acc.close()
        with pytest.raises(StreamError) as raised:
            acc._sse_updates("e", delta)
        got.append((str(raised.value), acc.events, repr(acc.message), tool_seen(acc.tools[0])))
    assert got[0] == got[1]
    assert got[0][0] == "an event after close()"


def test_a_hot_delta_is_counted_and_named() -> None:
    """The state a dispatched event leaves, left by a hot one too: its count, and its type in
    the error of the next event that fails in a field reader."""
    acc = MessageAccumulator()
    for data in (START, BLOCKS[0]):
        acc._sse_updates("e", data)
    (update,) = acc._sse_updates("e", json_delta("0", '{\\"a\\": 1'))
    assert acc.events == 3 and acc._kind == acc._fields.kind == "content_block_delta"
    assert update == Update(
        "content_block_delta", 0, acc.message["content"][0], "input_json_delta",  # type: ignore[index]
        tool=acc.tools[0], fragment='{"a": 1', changed=True,
    )  # fmt: skip


def test_a_hot_event_of_another_loop_drops_the_lead() -> None:
    """A chunk read again is the last hot event again: after one that another body's loop read
    (``aupdates()``, left before its end), a chunk framed as the event before it is not."""
    head = per_event(body_of([json_delta("0", '{\\"a\\": \\"x'), json_delta("0", "y")]))
    other = per_event(body_of([text_delta("1", "b")], head=()))
    last = per_event(body_of([json_delta("0", "z")], head=()))
    seen = []
    for acc in (Counted(), Cold()):
        chunks = iter([*head, *last])
        reading = acc.updates(chunks)
        for update in reading:
            if update.fragment == "y":
                break

        async def one(acc: MessageAccumulator = acc) -> None:
            async for _ in acc.aupdates(other):
                break

        asyncio.run(one())
        updates = [update_seen(update) for update in reading]
        seen.append((updates, repr(acc.message), acc.events))
    assert seen[0] == seen[1]
    assert "xyz" in seen[0][1]
