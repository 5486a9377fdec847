"""Malformed events: every accumulator answers with StreamError and loses nothing.

Hypothesis builds events of the right kinds with keys missing, values of the wrong type and
unknown types mixed in, after a well-formed start. Each ``feed()`` either applies the event or
raises :class:`StreamError` and leaves the accumulated result exactly as it was: never a
``KeyError``, ``TypeError`` or ``AttributeError`` from inside, and never half an event.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from effort import examples
from jsonsnap._streams import _Accumulator
from jsonsnap.anthropic import MessageAccumulator, StreamError
from jsonsnap.openai import ChatCompletionAccumulator, ResponseAccumulator
from jsonsnap.sse import ServerSentEvent

SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 5), st.text(max_size=6), st.just('{"a": 1')
)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=6,
)


def shaped(fields: dict[str, st.SearchStrategy[Any]]) -> st.SearchStrategy[dict[str, Any]]:
    """Dicts with some of ``fields`` (each drawn from its strategy, or any JSON value)."""

    @st.composite
    def build(draw: st.DrawFn) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, strategy in fields.items():
            if draw(st.booleans()):
                out[key] = draw(st.one_of(strategy, JSON) if draw(st.booleans()) else strategy)
        return out

    return build()


def typed(kinds: list[str], fields: dict[str, st.SearchStrategy[Any]]) -> st.SearchStrategy[Any]:
    """Events whose ``type`` is one of ``kinds`` (or unknown), with some of ``fields``."""
    return st.builds(
        lambda kind, rest: {"type": kind, **rest},
        st.sampled_from([*kinds, "future_thing"]),
        shaped(fields),
    )


INDEX = st.integers(-1, 3)

# --------------------------------------------------------------------------- Anthropic

ANTHROPIC_DELTA = typed(
    ["text_delta", "input_json_delta", "thinking_delta", "signature_delta", "citations_delta"],
    {
        "text": st.text(max_size=5),
        "partial_json": st.sampled_from(['{"a": ', "1}", "", "x", ' "b"']),
        "thinking": st.text(max_size=5),
        "signature": st.text(max_size=5),
        "citation": JSON,
    },
)
ANTHROPIC_BLOCK = typed(
    ["text", "tool_use", "thinking", "server_tool_use", "mcp_tool_use", "web_search_tool_result"],
    {"text": st.text(max_size=3), "id": st.text(max_size=3), "name": st.text(max_size=3)},
)
ANTHROPIC_EVENTS = typed(
    [
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
        "ping",
        "error",
    ],
    {
        "index": INDEX,
        "delta": st.one_of(ANTHROPIC_DELTA, shaped({"stop_reason": st.text(max_size=4)})),
        "content_block": ANTHROPIC_BLOCK,
        "usage": st.dictionaries(st.sampled_from(["input_tokens", "output_tokens"]), JSON),
        "message": shaped({"id": st.text(max_size=3), "content": st.just([]), "usage": JSON}),
        "error": shaped({"type": st.text(max_size=3), "message": st.text(max_size=3)}),
    },
)
ANTHROPIC_START = {
    "type": "message_start",
    "message": {"id": "msg", "role": "assistant", "content": [], "usage": {}},
}

# --------------------------------------------------------------------------- Chat Completions

TOOL_CALL = shaped(
    {
        "index": INDEX,
        "id": st.sampled_from(["call_1", "call_2"]),
        "type": st.sampled_from(["function", "custom", "other"]),
        "function": shaped(
            {"name": st.text(max_size=3), "arguments": st.sampled_from(['{"a"', ": 1}", "", "]"])}
        ),
        "custom": shaped({"name": st.text(max_size=3), "input": st.text(max_size=3)}),
    }
)
CHOICE = shaped(
    {
        "index": st.integers(0, 2),
        "delta": shaped(
            {
                "role": st.just("assistant"),
                "content": st.text(max_size=4),
                "reasoning_content": st.text(max_size=4),
                "refusal": st.text(max_size=4),
                "tool_calls": st.lists(TOOL_CALL, max_size=2),
            }
        ),
        "finish_reason": st.sampled_from(["stop", "length", "tool_calls"]),
        "logprobs": shaped({"content": st.lists(JSON, max_size=2), "refusal": JSON}),
    }
)
CHUNKS = st.one_of(
    shaped(
        {
            "id": st.text(max_size=3),
            "model": st.text(max_size=3),
            "choices": st.lists(CHOICE, max_size=2),
            "usage": JSON,
        }
    ),
    st.just("[DONE]"),
    st.builds(lambda e: {"error": e}, JSON),
)

# --------------------------------------------------------------------------- Responses

ITEM = typed(
    ["function_call", "message", "reasoning", "mcp_call", "custom_tool_call"],
    {
        "name": st.text(max_size=3),
        "arguments": st.sampled_from(["", '{"a": 1}', "{"]),
        "content": st.just([]),
    },
)
RESPONSE_EVENTS = typed(
    [
        "response.created",
        "response.output_item.added",
        "response.output_item.done",
        "response.content_part.added",
        "response.output_text.delta",
        "response.output_text.done",
        "response.function_call_arguments.delta",
        "response.function_call_arguments.done",
        "response.reasoning_summary_text.delta",
        "response.reasoning_summary_part.added",
        "response.output_text.annotation.added",
        "response.custom_tool_call_input.delta",
        "response.completed",
        "response.incomplete",
        "response.failed",
        "error",
    ],
    {
        "output_index": INDEX,
        "content_index": INDEX,
        "summary_index": INDEX,
        "item": ITEM,
        "part": shaped({"type": st.just("output_text"), "text": st.text(max_size=3)}),
        "delta": st.sampled_from(["ab", '{"x": ', "2}", ""]),
        "text": st.text(max_size=3),
        "arguments": st.sampled_from(['{"a": 1}', "{"]),
        "annotation": JSON,
        "response": shaped({"id": st.text(max_size=2), "output": st.just([]), "error": JSON}),
        "code": st.text(max_size=3),
        "message": st.text(max_size=3),
    },
)
RESPONSE_START = {"type": "response.created", "response": {"id": "resp", "output": []}}


def result(acc: _Accumulator) -> Any:
    if isinstance(acc, MessageAccumulator):
        return acc.message
    if isinstance(acc, ChatCompletionAccumulator):
        return acc.completion
    assert isinstance(acc, ResponseAccumulator)
    return acc.response


def check(make: Callable[[], _Accumulator], start: Any, events: list[Any]) -> None:
    acc = make()
    if start is not None:
        acc.feed(start)  # type: ignore[attr-defined]
    for event in events:
        before = copy.deepcopy(result(acc))
        raws = {key: tool.raw for key, tool in _tools(acc).items()}
        try:
            acc.feed(event)  # type: ignore[attr-defined]
        except StreamError:
            if isinstance(event, dict) and event.get("type") == "response.failed":
                continue  # the final response, taken whole, then reported as the error
            assert result(acc) == before, event  # nothing half applied, nothing lost
            assert {key: tool.raw for key, tool in _tools(acc).items()} == raws
        json.dumps(result(acc))  # still plain JSON data, readable
        for tool in _tools(acc).values():
            tool.snapshot  # noqa: B018 - readable, whatever happened


def _tools(acc: _Accumulator) -> dict[Any, Any]:
    if isinstance(acc, ChatCompletionAccumulator):
        return {(c, t.index): t for c in range(3) for t in acc.tool_calls(c)}
    return dict(acc.tools)  # type: ignore[attr-defined]


@settings(max_examples=examples(300))
@given(events=st.lists(ANTHROPIC_EVENTS, max_size=8), started=st.booleans())
@example(  # a good delta, then usage that is not an object: neither is applied
    events=[{"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": True}],
    started=True,
)
@example(  # a block whose type cannot be looked up: not added
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
def test_anthropic_malformed_events(events: list[Any], started: bool) -> None:
    check(MessageAccumulator, ANTHROPIC_START if started else None, events)


@settings(max_examples=examples(300))
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
def test_chat_malformed_chunks(chunks: list[Any]) -> None:
    check(ChatCompletionAccumulator, None, chunks)


@settings(max_examples=examples(300))
@given(events=st.lists(RESPONSE_EVENTS, max_size=8), started=st.booleans())
@example(
    events=[
        {"type": "response.output_item.added", "output_index": 0, "item": {"type": "message"}},
        {"type": "response.content_part.added", "output_index": 0, "content_index": 2},
        {"type": "response.content_part.added", "output_index": 0, "content_index": 0, "part": 1},
        {"type": "response.output_text.delta", "output_index": 0, "content_index": 5, "delta": 2},
    ],
    started=True,
)
def test_responses_malformed_events(events: list[Any], started: bool) -> None:
    check(ResponseAccumulator, RESPONSE_START if started else None, events)


@pytest.mark.parametrize(
    "make", [MessageAccumulator, ChatCompletionAccumulator, ResponseAccumulator]
)
@pytest.mark.parametrize("data", ["{not json", "[1, 2]", '"text"'])
def test_event_data_that_is_not_a_json_object(make: Callable[[], _Accumulator], data: str) -> None:
    acc = make()
    with pytest.raises(StreamError, match="not"):
        acc._feed_event(ServerSentEvent("message", data, "", None))
