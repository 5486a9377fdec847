"""Hostile input to the Bedrock support: only our errors escape, memory follows the input, a
rejected event changes nothing.

- The event stream decoder, fed random bytes, and well-formed bodies spoiled (bytes changed,
  cut, inserted, dropped), at random cuts: it returns messages or raises
  :class:`EventStreamError`, nothing else, and never holds much more than what it was fed.
- The accumulators, fed hostile events with the property test of ``test_stream_errors.py``
  (its ``check``: StreamError only, nothing half applied, nothing after the end, the caller's
  events untouched, memory bounded): ``ConverseStream`` event dicts with members missing, of
  the wrong type, indices huge or negative, unions with several members, unknown events and
  deltas; InvokeModel chunks wrapping the hostile Anthropic events; and whole bodies of
  well-framed messages whose payloads are hostile.
"""

from __future__ import annotations

import base64
import contextlib
import json
import tracemalloc
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from bedrock_frames import FIXTURES, event_frame, exception_frame, frame
from effort import examples
from hostile_events import (
    ANTHROPIC_EVENTS,
    ANTHROPIC_START,
    INDEX,
    TEXT,
    VALUE,
    WRONG,
    check,
    shaped,
)
from jsonsnap.bedrock import (
    EVENTS,
    EXCEPTIONS,
    ConverseStreamAccumulator,
    EventStreamDecoder,
    EventStreamError,
    InvokeModelAccumulator,
    StreamError,
)
from recordings import random_pieces

FIXTURE_BODIES = [p.read_bytes() for p in sorted(FIXTURES.glob("*.bin"))]

# --------------------------------------------------------------------------- the decoder


def decode(chunks: list[bytes]) -> int:
    """Feed the chunks and close; how many messages came out. Only EventStreamError may
    escape."""
    decoder = EventStreamDecoder()
    count = 0
    try:
        for chunk in chunks:
            count += len(decoder.feed(chunk))
        decoder.close()
    except EventStreamError as exc:
        assert 0 <= exc.offset <= sum(map(len, chunks))
    return count


@settings(max_examples=examples(100), suppress_health_check=[HealthCheck.too_slow])
@given(data=st.binary(max_size=300), seed=st.integers(0, 100))
@example(data=b"\x00\x00\x00\x10\x00\x00\x00\x00" + b"\x00" * 8, seed=0)
def test_random_bytes(data: bytes, seed: int) -> None:
    decode(random_pieces(data, seed))


SPOILERS = st.sampled_from(["flip", "cut", "insert", "drop", "swap"])


@settings(max_examples=examples(100), suppress_health_check=[HealthCheck.too_slow])
@given(which=st.integers(0, len(FIXTURE_BODIES) - 1), how=SPOILERS, data=st.data())
def test_spoiled_fixture_bodies(which: int, how: str, data: st.DataObject) -> None:
    body = FIXTURE_BODIES[which]
    at = data.draw(st.integers(0, len(body) - 1))
    if how == "flip":
        body = body[:at] + bytes([body[at] ^ data.draw(st.integers(1, 255))]) + body[at + 1 :]
    elif how == "cut":
        body = body[:at]
    elif how == "insert":
        body = body[:at] + data.draw(st.binary(min_size=1, max_size=20)) + body[at:]
    elif how == "drop":
        body = body[:at] + body[at + data.draw(st.integers(1, 20)) :]
    else:
        other = data.draw(st.integers(0, len(body) - 1))
        body = body[:at] + body[other:] + body[at:other]
    decode(random_pieces(body, at))
    for make in (ConverseStreamAccumulator, InvokeModelAccumulator):
        acc = make()
        with contextlib.suppress(StreamError):
            acc.read(random_pieces(body, at + 1))
        with contextlib.suppress(StreamError):  # (refused again, if it brought no event)
            acc.close()
        assert acc.closed and all(tool.ended for tool in acc.tool_calls())


def test_memory_of_the_decoder_follows_the_input() -> None:
    junk = b"\x00\x10\x00\x00" * 5000  # a prelude announcing a large message, then more
    body = frame([], b"a" * 50_000) * 4
    for data in (junk, body, body[:-1]):
        pieces = random_pieces(data, 3)
        tracemalloc.start()
        try:
            decode(pieces)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < 4 * len(data) + 50_000, (peak, len(data))


# --------------------------------------------------------------------------- ConverseStream


INPUTS = st.sampled_from(['{"a": ', "1}", "", "x", ' "b"', '"\\u001b]52', None])
DELTA = st.one_of(
    st.builds(lambda v: {"text": v}, st.one_of(TEXT, WRONG)),
    st.builds(lambda v: {"toolUse": v}, st.one_of(shaped({"input": INPUTS}), WRONG)),
    st.builds(
        lambda v: {"reasoningContent": v},
        st.one_of(
            shaped(
                {
                    "text": TEXT,
                    "signature": TEXT,
                    "redactedContent": st.sampled_from(["YWI=", "***", "YQ", ""]),
                }
            ),
            WRONG,
        ),
    ),
    st.builds(lambda v: {"citation": v}, VALUE),
    st.builds(lambda v: {"toolResult": v}, st.one_of(st.lists(shaped({"text": TEXT})), VALUE)),
    st.builds(lambda v: {"image": v}, VALUE),
    shaped({"text": TEXT, "toolUse": st.just({})}),  # a union with several members, or none
)
START = st.one_of(
    st.builds(lambda v: {"toolUse": v}, shaped({"toolUseId": TEXT, "name": TEXT})),
    st.builds(lambda v: {"toolResult": v}, shaped({"toolUseId": TEXT, "status": TEXT})),
    st.builds(lambda v: {"image": v}, VALUE),
    shaped({"toolUse": st.just({}), "image": st.just({})}),
    WRONG,
)
BODY = shaped(
    {
        "contentBlockIndex": st.one_of(st.integers(0, 3), INDEX),
        "delta": DELTA,
        "start": START,
        "role": TEXT,
        "stopReason": TEXT,
        "additionalModelResponseFields": VALUE,
        "usage": st.one_of(shaped({"inputTokens": VALUE, "outputTokens": VALUE}), VALUE),
        "metrics": VALUE,
        "trace": VALUE,
        "message": TEXT,
        "p": TEXT,
    }
)
KINDS = st.sampled_from(sorted(EVENTS | EXCEPTIONS | {"futureEvent"}))
CONVERSE_EVENTS = st.one_of(
    st.builds(lambda kind, body: {kind: body}, KINDS, st.one_of(BODY, BODY, BODY, VALUE)),
    st.builds(lambda kind, body: {kind: body, "p": "x"}, KINDS, BODY),  # two members
    st.sampled_from([{}, {"type": "message_start"}, {"chunk": {}}]),
)
CONVERSE_START = {"messageStart": {"role": "assistant"}}


@settings(max_examples=examples(100, default=50), suppress_health_check=[HealthCheck.too_slow])
@given(events=st.lists(CONVERSE_EVENTS, max_size=10), started=st.booleans())
@example(  # a tool delta without its input: no KeyError, and nothing wrong
    events=[
        {"contentBlockStart": {"contentBlockIndex": 0, "start": {"toolUse": {"name": "f"}}}},
        {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"toolUse": {}}}},
        {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "x"}}},
    ],
    started=True,
)
@example(  # redacted bytes left over, then a delta that is refused: the carry unchanged
    events=[
        {
            "contentBlockDelta": {
                "contentBlockIndex": 0,
                "delta": {"reasoningContent": {"redactedContent": "YQ=="}},
            }
        },
        {
            "contentBlockDelta": {
                "contentBlockIndex": 0,
                "delta": {"reasoningContent": {"redactedContent": "***"}},
            }
        },
        {"contentBlockStop": {"contentBlockIndex": 0}},
    ],
    started=True,
)
@example(  # the end, then anything: refused
    events=[
        {"messageStop": {"stopReason": "end_turn"}},
        {"metadata": {"usage": {}}},
        {"throttlingException": {"message": "x"}},
        {"futureEvent": {}},
    ],
    started=True,
)
@example(
    events=[{"contentBlockDelta": {"contentBlockIndex": 10**7, "delta": {"text": "x"}}}],
    started=True,
)
def test_converse_hostile_events(events: list[Any], started: bool) -> None:
    check(ConverseStreamAccumulator, CONVERSE_START if started else None, events)


# --------------------------------------------------------------------------- InvokeModel


def wrapped(event: Any) -> Any:
    """An Anthropic event in a chunk, as Bedrock sends it (an event too deep for the json
    module to write is sent as it is)."""
    try:
        text = json.dumps(event)
    except (RecursionError, TypeError, ValueError):
        return event
    return {"chunk": {"bytes": base64.b64encode(text.encode()).decode()}}


@settings(max_examples=examples(100, default=50), suppress_health_check=[HealthCheck.too_slow])
@given(
    events=st.lists(
        st.one_of(
            ANTHROPIC_EVENTS.map(wrapped),
            ANTHROPIC_EVENTS,
            st.builds(lambda b: {"chunk": b}, st.one_of(shaped({"bytes": TEXT}), VALUE)),
            st.builds(lambda b: {"throttlingException": b}, VALUE),
        ),
        max_size=8,
    ),
    started=st.booleans(),
)
def test_invoke_model_hostile_chunks(events: list[Any], started: bool) -> None:
    check(InvokeModelAccumulator, wrapped(ANTHROPIC_START) if started else None, events)


# --------------------------------------------------------------------------- hostile bodies


PAYLOAD = st.one_of(
    st.binary(max_size=40),
    st.sampled_from([b"", b"[]", b"null", b'"x"', b"[" * 5000, b'{"role": 1}']),
    CONVERSE_EVENTS.map(lambda e: json.dumps(next(iter(e.values()), None)).encode()),
)
MESSAGES = st.one_of(
    st.builds(
        lambda kind, payload: frame(
            [(":event-type", 7, kind), (":message-type", 7, "event")], payload
        ),
        st.one_of(KINDS, st.just("chunk")),
        PAYLOAD,
    ),
    st.builds(lambda kind: exception_frame(kind, {"message": "no"}), KINDS),
    st.builds(
        lambda headers: frame(headers, b"{}"),
        st.lists(
            st.tuples(
                st.sampled_from([":event-type", ":message-type", ":exception-type", "x"]),
                st.sampled_from([7, 6, 0, 5]),
                st.just(b"event"),
            ).map(lambda h: (h[0], h[1], h[2] if h[1] == 6 else 1 if h[1] == 5 else "event")),
            max_size=3,
            unique_by=lambda h: h[0],
        ),
    ),
)


@settings(max_examples=examples(100), suppress_health_check=[HealthCheck.too_slow])
@given(messages=st.lists(MESSAGES, max_size=6), seed=st.integers(0, 50))
def test_hostile_bodies_of_well_framed_messages(messages: list[bytes], seed: int) -> None:
    body = event_frame("messageStart", {"role": "assistant"}) + b"".join(messages)
    pieces = random_pieces(body, seed)
    for make in (ConverseStreamAccumulator, InvokeModelAccumulator):
        acc = make()
        tracemalloc.start()
        try:
            with contextlib.suppress(StreamError):
                acc.read(pieces)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        # An unfinished '[' costs the JSON parser about 100 bytes of state (seen: 104x).
        assert peak < 128 * len(body) + 300_000, (peak, len(body))
        with contextlib.suppress(StreamError):  # (refused again, if it brought no event)
            acc.close()
        assert acc.closed
