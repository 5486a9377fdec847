"""Hostile events of each protocol, and the check every accumulator must pass on them.

The strategies build events of each protocol's kinds with keys missing, values of the wrong
type, indices huge, negative or of the wrong type, unknown types mixed in, strings full of escape
sequences and control characters, and data nested thousands deep (:data:`DEEP`). :func:`check`
feeds them to a new accumulator and holds it to the contract that test_stream_errors.py states:
each event applied or refused whole with ``StreamError``, nothing else escaping, nothing after
the end, the caller's events unchanged, memory bounded by the events' size, and ``close()``
ending every tool input. The comparisons walk the values with an explicit stack
(:func:`frozen`), since the data may be deeper than Python's recursion limit.
"""

from __future__ import annotations

import contextlib
import tracemalloc
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import strategies as st

from jsonsnap.openai import ChatCompletionAccumulator
from jsonsnap.streams import PROTOCOLS, Accumulator, StreamError

#: Pieces of text a terminal would act on, and characters that trip up decoders.
ESCAPES = ["\x1b]52;c;aGk=\x07", "\x1b[2J", "\x9b31m", "\x9d0;t\x9c", "\u202e", "\x00", "\\u00"]
TEXT = st.one_of(
    st.text(alphabet=st.sampled_from('ab "\\\n\t\u00e9\U0001f600'), max_size=6),
    st.sampled_from(ESCAPES),
)
WRONG = st.sampled_from([None, True, 1.5, -1, [], {}, ["x"], {"a": 1}, "0"])
INDEX = st.one_of(
    st.integers(-1, 3),
    st.sampled_from([2, 10**7, 2**63, 10**30, -(10**9)]),
    WRONG,
)


def deep(depth: int) -> Any:
    """``[[[...]]]`` ``depth`` levels deep, built without recursion."""
    value: Any = []
    for _ in range(depth):
        value = [value]
    return value


SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-3, 5), TEXT, st.just('{"a": 1'))
JSON = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=6,
)
#: Deeper than Python's recursion limit (one value, shared: building it is not what is tested).
DEEP = deep(1200)
VALUE = st.one_of(JSON, WRONG, st.just(DEEP))


def shaped(fields: dict[str, st.SearchStrategy[Any]]) -> st.SearchStrategy[dict[str, Any]]:
    """Dicts with some of ``fields`` (each drawn from its strategy, or any value)."""

    @st.composite
    def build(draw: st.DrawFn) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, strategy in fields.items():
            if draw(st.booleans()):
                out[key] = draw(st.one_of(strategy, VALUE) if draw(st.booleans()) else strategy)
        return out

    return build()


def typed(kinds: list[str], fields: dict[str, st.SearchStrategy[Any]]) -> st.SearchStrategy[Any]:
    """Events whose ``type`` is one of ``kinds`` (or unknown, or not a string), with some of
    ``fields``."""
    return st.builds(
        lambda kind, rest: {"type": kind, **rest},
        st.one_of(st.sampled_from([*kinds, "future_thing"]), WRONG),
        shaped(fields),
    )


# --------------------------------------------------------------------------- Anthropic

ANTHROPIC_DELTA = typed(
    ["text_delta", "input_json_delta", "thinking_delta", "signature_delta", "citations_delta"],
    {
        "text": TEXT,
        "partial_json": st.sampled_from(['{"a": ', "1}", "", "x", ' "b"', '"\\u001b]52']),
        "thinking": TEXT,
        "signature": TEXT,
        "citation": VALUE,
    },
)
ANTHROPIC_BLOCK = typed(
    ["text", "tool_use", "thinking", "server_tool_use", "mcp_tool_use", "web_search_tool_result"],
    {"text": TEXT, "id": TEXT, "name": TEXT, "citations": st.just([]), "input": st.just({})},
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
        "delta": st.one_of(
            ANTHROPIC_DELTA,
            shaped(
                {
                    "stop_reason": TEXT,
                    "content": st.just([]),
                    "usage": VALUE,
                    "id": TEXT,
                    "container": VALUE,
                }
            ),
        ),
        "content_block": ANTHROPIC_BLOCK,
        "usage": st.dictionaries(st.sampled_from(["input_tokens", "output_tokens"]), VALUE),
        "message": shaped({"id": TEXT, "content": st.just([]), "usage": VALUE}),
        "error": shaped({"type": TEXT, "message": TEXT}),
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
            {"name": TEXT, "arguments": st.sampled_from(['{"a"', ": 1}", "", "]", '"\x1b'])}
        ),
        "custom": shaped({"name": TEXT, "input": TEXT}),
    }
)
CHOICE = shaped(
    {
        "index": st.one_of(st.integers(0, 2), INDEX),
        "delta": shaped(
            {
                "role": st.just("assistant"),
                "content": TEXT,
                "reasoning_content": TEXT,
                "refusal": TEXT,
                "tool_calls": st.lists(TOOL_CALL, max_size=2),
                "function_call": shaped({"name": TEXT, "arguments": TEXT}),
                "audio": VALUE,
            }
        ),
        "finish_reason": st.sampled_from(["stop", "length", "tool_calls"]),
        "logprobs": shaped({"content": st.lists(VALUE, max_size=2), "refusal": VALUE}),
        "message": shaped({"content": TEXT}),
    }
)
CHUNKS = st.one_of(
    shaped(
        {
            "id": TEXT,
            "model": TEXT,
            "object": st.just("chat.completion.chunk"),
            "choices": st.lists(CHOICE, max_size=2),
            "usage": VALUE,
        }
    ),
    st.just("[DONE]"),
    st.builds(lambda e: {"error": e}, VALUE),
)

# --------------------------------------------------------------------------- Responses

ITEM = typed(
    ["function_call", "message", "reasoning", "mcp_call", "custom_tool_call"],
    {
        "name": TEXT,
        "arguments": st.sampled_from(["", '{"a": 1}', "{"]),
        "content": st.one_of(st.just([]), VALUE),
        "summary": st.one_of(st.just([]), VALUE),
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
        "part": shaped({"type": st.just("output_text"), "text": TEXT}),
        "delta": st.sampled_from(["ab", '{"x": ', "2}", "", "\x1b[2J"]),
        "text": TEXT,
        "arguments": st.sampled_from(['{"a": 1}', "{"]),
        "annotation": VALUE,
        "response": shaped({"id": TEXT, "output": st.just([]), "error": VALUE}),
        "code": TEXT,
        "message": TEXT,
    },
)
RESPONSE_START = {"type": "response.created", "response": {"id": "resp", "output": []}}

# --------------------------------------------------------------------------- the checks

#: Every protocol's accumulator class, loaded now: an accumulator refusing an event looks up
#: which protocol it belongs to, which imports every provider's module the first time (over
#: a megabyte), and that import is not the stream's memory that :func:`check` bounds.
LOADED: list[type[Accumulator]] = list(PROTOCOLS.values())


def frozen(value: Any) -> list[Any]:
    """``value`` as a flat list of tokens, equal exactly when the values are (types included),
    made without recursion."""
    out: list[Any] = []
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is dict:
            out.append(("dict", len(item)))
            for key, child in item.items():
                out.append(("key", key))
                stack.append(child)
        elif kind is list:
            out.append(("list", len(item)))
            stack.extend(reversed(item))
        else:
            assert item is None or isinstance(item, (bool, int, float, str)), type(item)
            out.append((type(item).__name__, item))
    return out


def weight(value: Any) -> int:
    """About how many bytes a value takes as JSON (without recursion)."""
    total, stack = 0, [value]
    while stack:
        item = stack.pop()
        total += 8
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str):
            total += len(item)
    return total


def state(acc: Accumulator) -> list[Any]:
    """The result and every tool input's state, frozen."""
    if isinstance(acc, ChatCompletionAccumulator):
        tools = [tool for choice in range(3) for tool in acc.tool_calls(choice)]
    else:
        tools = acc.tool_calls()
    kept = [acc.result, [[t.raw, t.status, t.ended, t.snapshot] for t in tools]]
    return frozen(kept)


def fed_peak(make: Callable[[], Accumulator], stream: list[Any]) -> int:
    """The peak of the memory traced while a new accumulator is fed ``stream`` (each event
    applied or refused): the accumulator's memory alone, none of the checks' copies."""
    acc = make()
    tracemalloc.start()
    try:
        for event in stream:
            with contextlib.suppress(StreamError):
                acc.feed(event)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def check(make: Callable[[], Accumulator], start: Any, events: list[Any]) -> None:
    """Feed ``start`` (unless ``None``) and ``events`` to a new accumulator and hold it to the
    contract (see the module docstring). The memory is measured on a second accumulator fed the
    same stream, so that the state compared after each event is not counted in it (nor slowed
    by the tracing)."""
    acc = make()
    stream = [start, *events] if start is not None else events
    bound = 32 * sum(weight(event) for event in stream) + 300_000  # seen: 12x + 76 KB
    ended = False  # for Chat Completions, the end is [DONE] (done is every choice finished)
    given = [frozen(event) for event in stream]
    for event in stream:
        before = state(acc)
        if not isinstance(acc, ChatCompletionAccumulator):
            ended = acc.done
        try:
            acc.feed(event)
        except StreamError:
            failed = isinstance(event, dict) and event.get("type") == "response.failed"
            if not failed:  # the final response, taken whole, then reported as the error
                assert state(acc) == before, event  # nothing half applied, nothing lost
        else:
            assert not ended, f"accepted after the end: {event}"
            ended = ended or event == "[DONE]"
    assert [frozen(event) for event in stream] == given, "the caller's events were changed"
    peak = fed_peak(make, stream)
    assert peak <= bound, (peak, bound)
    if acc.events:
        acc.close()  # whatever happened, the stream can be ended: every tool input with it
    else:  # a stream that brought no event is no answer: refused, and ended all the same
        with pytest.raises(StreamError, match="before its first event"):
            acc.close()
        assert acc.closed
    for tool in acc.tool_calls():
        assert tool.ended and tool.status != "streaming"
        tool.snapshot  # noqa: B018 - readable
