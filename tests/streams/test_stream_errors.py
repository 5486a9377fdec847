"""Hostile event sequences: every accumulator answers with StreamError, loses nothing, and
costs what the events weigh.

Hypothesis builds events of each protocol's kinds with keys missing, values of the wrong type,
indices huge, negative or of the wrong type, unknown types mixed in, strings full of escape
sequences and control characters, data nested thousands deep, and the stream's end events
(``message_stop``, ``[DONE]``, ``response.completed``...) anywhere, so that events come after
the end. Each ``feed()`` either applies the event or raises :class:`StreamError`, and then:

- nothing else escapes (no ``KeyError``, ``TypeError``, ``RecursionError``, ``MemoryError``);
- a rejected event leaves the result and every tool input exactly as they were;
- after the end (``done``), every event is rejected;
- the caller's events are never changed;
- ``close()`` then ends every tool input, whatever came before;
- the memory the accumulator allocates is bounded by a multiple of the events' size (32
  times their size as JSON, about, and 300 KB; seen: at most 12 times and 76 KB).

The events and the check are in ``helpers/hostile_events.py`` (Gemini, Vercel, Bedrock and the
compatible profile use them too); the comparisons walk the values with an explicit stack
(``hostile_events.frozen``), since the data may be deeper than Python's recursion limit.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

# Every provider is loaded up front: a first event of another protocol is named by detect(),
# which imports each provider once; the memory bounds below are the accumulators' own.
import jsonsnap.bedrock
import jsonsnap.gemini
import jsonsnap.vercel  # noqa: F401
from effort import examples
from hostile_events import (
    ANTHROPIC_EVENTS,
    ANTHROPIC_START,
    CHUNKS,
    RESPONSE_EVENTS,
    RESPONSE_START,
    check,
)
from jsonsnap.anthropic import MessageAccumulator
from jsonsnap.openai import ChatCompletionAccumulator, ResponseAccumulator
from jsonsnap.sse import ServerSentEvent
from jsonsnap.streams import Accumulator, StreamError


@settings(max_examples=examples(100, default=50), suppress_health_check=[HealthCheck.too_slow])
@given(events=st.lists(ANTHROPIC_EVENTS, max_size=8), started=st.booleans())
@example(  # a good delta, then usage that is not an object: neither is applied
    events=[{"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": True}],
    started=True,
)
@example(  # usage null in the delta, counts beside it: nothing half applied or lost
    events=[
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn", "usage": None, "content": []},
            "usage": {"output_tokens": 5},
        }
    ],
    started=True,
)
@example(  # a block whose type is not a string: not added
    events=[{"type": "content_block_start", "index": 0, "content_block": {"type": ["x"]}}],
    started=True,
)
@example(
    events=[
        {"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use"}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta"}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": 1}},
    ],
    started=True,
)
@example(events=[{"type": []}, {"type": "content_block_start", "index": 10**7}], started=True)
def test_anthropic_hostile_events(events: list[Any], started: bool) -> None:
    check(MessageAccumulator, ANTHROPIC_START if started else None, events)


@settings(max_examples=examples(100, default=50), suppress_health_check=[HealthCheck.too_slow])
@given(chunks=st.lists(CHUNKS, max_size=6))
@example(  # the first choice is good, the second is not: the chunk is not half applied
    chunks=[
        {
            "id": "c2",
            "choices": [
                {"index": 0, "delta": {"content": "a"}},
                {"index": 1, "delta": {"content": 5}},
            ],
        }
    ]
)
@example(chunks=[{"choices": [{"delta": {"tool_calls": [{"index": -1}]}}]}])
@example(chunks=[{"choices": [{"delta": {"tool_calls": False, "function_call": False}}]}])
@example(  # arguments after finish_reason, in the same chunk
    chunks=[
        {
            "choices": [
                {"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "c"}]}},
                {"index": 0, "finish_reason": "stop"},
                {"index": 0, "delta": {"tool_calls": [{"index": 0}]}},
            ]
        }
    ]
)
def test_chat_hostile_chunks(chunks: list[Any]) -> None:
    check(ChatCompletionAccumulator, None, chunks)


@settings(max_examples=examples(100, default=50), suppress_health_check=[HealthCheck.too_slow])
@given(events=st.lists(RESPONSE_EVENTS, max_size=8), started=st.booleans())
@example(
    events=[
        {"type": "response.output_item.added", "output_index": 0, "item": {"type": "message"}},
        {"type": "response.content_part.added", "output_index": 0, "content_index": 2},
        {"type": "response.content_part.added", "output_index": 0, "content_index": 0, "part": 1},
        {"type": "response.output_text.delta", "output_index": 0, "content_index": 10**7},
    ],
    started=True,
)
@example(
    events=[
        {"type": "response.output_item.added", "output_index": 0, "item": {"content": [[]]}},
        {"type": "response.output_text.delta", "output_index": 0, "content_index": 0},
    ],
    started=True,
)
@example(  # parts added to the lists of the caller's item: they must stay the caller's own
    events=[
        {"type": "response.output_item.added", "output_index": 0, "item": {"content": []}},
        {"type": "response.output_text.delta", "output_index": 0, "content_index": 0},
        {"type": "response.output_text.annotation.added", "output_index": 0, "content_index": 0},
    ],
    started=True,
)
def test_responses_hostile_events(events: list[Any], started: bool) -> None:
    check(ResponseAccumulator, RESPONSE_START if started else None, events)


@pytest.mark.parametrize(
    "make", [MessageAccumulator, ChatCompletionAccumulator, ResponseAccumulator]
)
@pytest.mark.parametrize(
    "data",
    ["{not json", "[1, 2]", '"text"', "[" * 100_000, "[" * 100_000 + "]" * 100_000, "NaN"],
    ids=["not JSON", "array", "string", "deep unfinished", "deep array", "NaN"],
)
def test_event_data_that_is_not_a_json_object(make: Callable[[], Accumulator], data: str) -> None:
    acc = make()
    with pytest.raises(StreamError, match="not"):
        acc.feed(ServerSentEvent("message", data, "", None))
    assert acc.events == 0 and acc.result in (None, ChatCompletionAccumulator().completion)
