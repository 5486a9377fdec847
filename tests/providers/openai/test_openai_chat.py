"""The Chat Completions accumulator on hand-written chunk streams, arguments cut every way."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

import jsonsnap
from chunking import random_splits
from jsonsnap.openai import ChatCompletionAccumulator, StreamError, ToolInputError, Update

ARGS = {"path": "calc.py", "content": 'def add(a, b):\n    return a + b  # "sum" \u2713\n'}
WEATHER = {"city": "Paris", "days": 3, "metric": True}


def cut(text: str, rng: random.Random) -> list[str]:
    return random_splits(text, rng, 9)


def chunk(*choices: dict[str, Any], **fields: Any) -> dict[str, Any]:
    base = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1700000000,
        "model": "gpt-test",
        "choices": list(choices),
    }
    return {**base, **fields}


def delta(index: int = 0, finish: str | None = None, **fields: Any) -> dict[str, Any]:
    return {"index": index, "delta": fields, "logprobs": None, "finish_reason": finish}


def call(index: int | None, arguments: str, **first: Any) -> dict[str, Any]:
    """A tool-call delta; ``first`` carries id/name for the call's first delta."""
    entry: dict[str, Any] = {"function": {"arguments": arguments}}
    if index is not None:
        entry["index"] = index
    if "id" in first:
        entry["id"] = first["id"]
        entry["type"] = "function"
    if "name" in first:
        entry["function"]["name"] = first["name"]
    return entry


def feed_all(chunks: list[Any]) -> tuple[ChatCompletionAccumulator, list[Update]]:
    acc = ChatCompletionAccumulator()
    updates: list[Update] = []
    for item in chunks:
        updates += acc.feed(item)
    return acc, updates


def tool_stream(calls: list[tuple[int, str, str, list[str]]], order: list[int]) -> list[Any]:
    """Chunks for calls ``(index, id, name, pieces)``, one piece per chunk, taken from the
    calls in ``order`` (a list of positions in ``calls``)."""
    chunks: list[Any] = [chunk(delta(role="assistant", content=None))]
    left = [list(pieces) for *_, pieces in calls]
    started = [False] * len(calls)
    for k in order:
        index, call_id, name, _ = calls[k]
        piece = left[k].pop(0) if left[k] else ""
        extra = {} if started[k] else {"id": call_id, "name": name}
        started[k] = True
        chunks.append(chunk(delta(tool_calls=[call(index, piece, **extra)])))
    chunks.append(chunk(delta(finish="tool_calls")))
    chunks.append("[DONE]")
    return chunks


def test_text_role_and_finish() -> None:
    chunks = [
        chunk(delta(role="assistant", content="")),
        chunk(delta(content="Hel")),
        chunk(delta(content="lo")),
        chunk(delta(finish="stop"), system_fingerprint="fp_1"),
        "[DONE]",
    ]
    acc, updates = feed_all(chunks)
    assert acc.done and acc.completion == {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1700000000,
        "model": "gpt-test",
        "system_fingerprint": "fp_1",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "Hello"},
                "logprobs": None,
                "finish_reason": "stop",
            }
        ],
        "usage": None,
    }
    assert [u.text for u in updates if u.text] == ["Hel", "lo"]
    assert [u.event for u in updates] == ["content", "content", "finish", "done"]


def test_reasoning_content_then_content() -> None:
    chunks = [
        chunk(delta(role="assistant", content=None, reasoning_content="")),
        chunk(delta(content=None, reasoning_content="Let me")),
        chunk(delta(content=None, reasoning_content=" think.")),
        chunk(delta(content="HTTP is", reasoning_content=None)),
        chunk(delta(content=" a protocol.")),
        chunk(delta(finish="stop")),
        "[DONE]",
    ]
    acc, updates = feed_all(chunks)
    message = acc.completion["choices"][0]["message"]
    assert message == {
        "role": "assistant",
        "content": "HTTP is a protocol.",
        "reasoning_content": "Let me think.",
    }
    assert [(u.text, u.thinking) for u in updates if u.text] == [
        ("Let me", True),
        (" think.", True),
        ("HTTP is", False),
        (" a protocol.", False),
    ]


def test_refusal_reasoning_and_unknown_fields() -> None:
    chunks = [
        chunk(delta(role="assistant", refusal="I can")),
        chunk(delta(refusal="not.", reasoning="r", audio={"id": "a1"})),
        chunk(delta(audio={"id": "a2"}, role="user")),  # role is set once
    ]
    acc, _ = feed_all(chunks)
    message = acc.completion["choices"][0]["message"]
    assert message == {
        "role": "assistant",
        "content": None,
        "refusal": "I cannot.",
        "reasoning": "r",
        "audio": {"id": "a2"},
    }


@pytest.mark.parametrize("seed", range(10))
def test_one_tool_call_with_live_snapshots(seed: int) -> None:
    raw = json.dumps(ARGS)
    pieces = cut(raw, random.Random(seed))
    chunks = tool_stream([(0, "call_1", "write_file", pieces)], [0] * len(pieces))
    acc = ChatCompletionAccumulator()
    fed = ""
    for item in chunks[:-2]:
        for update in acc.feed(item):
            if update.event == "tool_call":
                assert update.tool is not None and update.tool.status == "streaming"
                fed = update.tool.raw
                assert update.snapshot == jsonsnap.parse_partial(fed, {})
    assert fed == raw
    for item in chunks[-2:]:
        acc.feed(item)
    tool = acc.tools[0]
    assert (tool.name, tool.id, tool.status, tool.final()) == (
        "write_file",
        "call_1",
        "complete",
        ARGS,
    )
    calls = acc.completion["choices"][0]["message"]["tool_calls"]
    assert calls == [
        {"id": "call_1", "type": "function", "function": {"name": "write_file", "arguments": raw}}
    ]
    assert acc.completion["choices"][0]["finish_reason"] == "tool_calls"


@pytest.mark.parametrize(
    "order",
    [
        [0, 0, 0, 0, 1, 1, 1, 1],  # sequential
        [0, 1, 0, 1, 0, 1, 0, 1],  # interleaved
        [1, 0, 1, 0, 1, 1, 0, 0],  # the second call starts first
    ],
)
def test_parallel_calls_keyed_by_index(order: list[int]) -> None:
    first, second = json.dumps(WEATHER), json.dumps({"city": "Tokyo", "days": 1})
    calls = [
        (0, "call_a", "get_weather", cut(first, random.Random(1))[:4]),
        (1, "call_b", "get_weather", cut(second, random.Random(2))[:4]),
    ]
    # Four pieces each: the rest of each text in its last piece.
    calls = [
        (i, c, n, [*p[:3], (first if i == 0 else second)[len("".join(p[:3])) :]])
        for i, c, n, p in calls
    ]
    acc, _ = feed_all(tool_stream(calls, order))
    assert [t.final() for t in acc.tool_calls()] == [WEATHER, {"city": "Tokyo", "days": 1}]
    ids = [c["id"] for c in acc.completion["choices"][0]["message"]["tool_calls"]]
    assert ids == ["call_a", "call_b"]  # in index order, whatever order they started in


def test_one_chunk_carries_pieces_of_two_calls() -> None:
    chunks = [
        chunk(delta(role="assistant")),
        chunk(
            delta(
                tool_calls=[
                    call(0, '{"a":', id="call_a", name="f"),
                    call(1, '{"b":', id="call_b", name="g"),
                    call(0, " 1}"),
                ]
            )
        ),
        chunk(delta(tool_calls=[call(1, " 2}")], finish="tool_calls")),
    ]
    acc, updates = feed_all(chunks)
    assert [u.index for u in updates if u.event == "tool_call"] == [0, 1, 0, 1]
    assert [t.final() for t in acc.tool_calls()] == [{"a": 1}, {"b": 2}]


def test_a_gap_in_the_indices() -> None:
    pieces = ['{"city": "Pa', 'ris"}']
    acc, _ = feed_all(tool_stream([(1, "call_1", "get_weather", pieces)], [0, 0]))
    assert list(acc.tools) == [1] and acc.tools[1].final() == {"city": "Paris"}
    calls = acc.completion["choices"][0]["message"]["tool_calls"]
    assert [c["id"] for c in calls] == ["call_1"]


def test_missing_index() -> None:
    chunks = [
        chunk(delta(role="assistant")),
        chunk(delta(tool_calls=[call(None, "", id="call_1", name="get_weather")])),
        chunk(delta(tool_calls=[call(None, '{"city": ')])),
        chunk(delta(tool_calls=[call(None, '"Paris"}')])),
        # A second call without an index, told apart by its new id.
        chunk(delta(tool_calls=[call(None, '{"city": "Rome"}', id="call_2", name="get_weather")])),
        chunk(delta(finish="tool_calls")),
    ]
    acc, _ = feed_all(chunks)
    assert [(t.index, t.id, t.final()) for t in acc.tool_calls()] == [
        (0, "call_1", {"city": "Paris"}),
        (1, "call_2", {"city": "Rome"}),
    ]


def test_repeated_id_type_and_name_are_not_doubled() -> None:
    raw = json.dumps(WEATHER)
    pieces = cut(raw, random.Random(4))
    chunks: list[Any] = [chunk(delta(role="assistant"))]
    chunks += [
        chunk(delta(tool_calls=[call(0, piece, id="call_1", name="get_weather")]))
        for piece in pieces
    ]
    chunks.append(chunk(delta(finish="tool_calls")))
    acc, _ = feed_all(chunks)
    entry = acc.completion["choices"][0]["message"]["tool_calls"][0]
    assert entry == {
        "id": "call_1",
        "type": "function",
        "function": {"name": "get_weather", "arguments": raw},
    }


def test_a_name_sent_in_pieces_is_joined() -> None:
    chunks = [
        chunk(delta(tool_calls=[call(0, "", id="call_1", name="get_")])),
        chunk(delta(tool_calls=[{"index": 0, "function": {"name": "weather", "arguments": "{}"}}])),
        chunk(delta(finish="tool_calls")),
    ]
    acc, _ = feed_all(chunks)
    assert acc.tools[0].name == "get_weather" and acc.tools[0].final() == {}


def test_custom_tool_calls_are_text() -> None:
    first = {"index": 0, "id": "call_1", "type": "custom", "custom": {"name": "sh", "input": "ls "}}
    chunks = [
        chunk(delta(tool_calls=[first])),
        chunk(delta(tool_calls=[{"index": 0, "custom": {"input": "-la"}}])),
        chunk(delta(finish="tool_calls")),
    ]
    acc, updates = feed_all(chunks)
    entry = acc.completion["choices"][0]["message"]["tool_calls"][0]
    assert entry == {"id": "call_1", "type": "custom", "custom": {"name": "sh", "input": "ls -la"}}
    inputs = [(u.custom_input, u.text, u.tool) for u in updates if u.event == "tool_call"]
    assert acc.tools == {} and inputs == [("ls ", "", None), ("-la", "", None)]


def test_usage_is_kept_from_the_chunk_that_carries_it() -> None:
    usage = {"prompt_tokens": 5, "completion_tokens": 7, "total_tokens": 12}
    chunks = [
        chunk(delta(role="assistant", content="x"), usage=None),
        chunk(delta(finish="stop"), usage=None),
        chunk(usage=usage),
        chunk(usage=None),  # a late chunk without usage does not erase it
        "[DONE]",
    ]
    acc, updates = feed_all(chunks)
    assert (
        acc.completion["usage"] == usage and acc.completion["choices"][0]["finish_reason"] == "stop"
    )
    assert "usage" in [u.event for u in updates]


def test_logprobs_are_extended() -> None:
    def lp(token: str) -> dict[str, Any]:
        return {"token": token, "logprob": -0.1, "bytes": None, "top_logprobs": []}

    first = delta(content="a")
    first["logprobs"] = {"content": [lp("a")], "refusal": None}
    second = delta(content="b")
    second["logprobs"] = {"content": [lp("b")], "refusal": None}
    acc, _ = feed_all([chunk(first), chunk(second)])
    assert acc.completion["choices"][0]["logprobs"] == {
        "content": [lp("a"), lp("b")],
        "refusal": None,
    }


def test_choices_by_index() -> None:
    chunks = [
        chunk(delta(1, content="second")),
        chunk(delta(0, content="first")),
        chunk(delta(1, finish="stop"), delta(0, finish="length")),
    ]
    acc, _ = feed_all(chunks)
    choices = acc.completion["choices"]
    assert [(c["index"], c["message"]["content"], c["finish_reason"]) for c in choices] == [
        (0, "first", "length"),
        (1, "second", "stop"),
    ]
    assert acc.tool_calls(1) == [] and acc.tool_calls(5) == []


def test_length_inside_an_argument_string() -> None:
    chunks = [
        chunk(
            delta(
                tool_calls=[call(0, '{"path": "a.py", "content": "line 1\\nli', id="c", name="w")]
            )
        ),
        chunk(delta(finish="length")),
        "[DONE]",
    ]
    acc, _ = feed_all(chunks)
    tool = acc.tools[0]
    assert tool.status == "incomplete" and tool.error is None
    assert tool.snapshot == {"path": "a.py", "content": "line 1\nli"}
    assert tool.raw.endswith("li")
    with pytest.raises(ToolInputError, match="cut off"):
        tool.final()


def test_invalid_arguments_are_marked_and_the_stream_goes_on() -> None:
    chunks = [
        chunk(delta(tool_calls=[call(0, '{"a": 1', id="c1", name="f")])),
        chunk(delta(tool_calls=[call(0, " 2}")])),
        chunk(delta(tool_calls=[call(1, '{"b": 2}', id="c2", name="g")])),
        chunk(delta(content="after"), delta(1, content="other choice")),
        chunk(delta(finish="tool_calls")),
    ]
    acc, _ = feed_all(chunks)
    bad, good = acc.tool_calls()
    assert bad.status == "invalid" and bad.error is not None and bad.error.pos == 8
    assert bad.snapshot == {"a": 1} and bad.raw == '{"a": 1 2}'
    assert good.final() == {"b": 2}
    assert acc.completion["choices"][0]["message"]["content"] == "after"
    with pytest.raises(ToolInputError, match="invalid input JSON"):
        bad.final()


def test_a_stream_without_finish_reason_is_finished_by_done() -> None:
    chunks = [chunk(delta(tool_calls=[call(0, '{"a": [1, 2]}', id="c", name="f")]))]
    acc, _ = feed_all(chunks)
    assert acc.tools[0].status == "streaming"
    with pytest.raises(ToolInputError, match="unfinished"):
        acc.tools[0].final()
    acc.feed("[DONE]")
    assert acc.tools[0].final() == {"a": [1, 2]}


def test_error_payload() -> None:
    acc = ChatCompletionAccumulator()
    acc.feed(chunk(delta(content="partial")))
    with pytest.raises(StreamError) as info:
        acc.feed({"error": {"message": "The server had an error", "type": "server_error"}})
    assert (info.value.error_type, info.value.message) == (
        "server_error",
        "The server had an error",
    )
    assert acc.completion["choices"][0]["message"]["content"] == "partial"
    with pytest.raises(StreamError, match="oops"):
        acc.feed({"error": "oops"})


def test_protocol_errors() -> None:
    acc = ChatCompletionAccumulator()
    with pytest.raises(TypeError, match="decode the event's data first"):
        acc.feed('{"choices": []}')  # the data, not decoded: a mistake in the calling code
    acc.feed("[DONE]")
    with pytest.raises(StreamError, match="after"):
        acc.feed(chunk(delta(content="late")))
    with pytest.raises(TypeError):
        ChatCompletionAccumulator().feed(42)


def render_chat(chunks: list[Any]) -> bytes:
    return "".join(
        f"data: {item if isinstance(item, str) else json.dumps(item)}\n\n" for item in chunks
    ).encode()


@pytest.mark.parametrize("size", [1, 3, 7, 64, 10**6])
def test_chat_updates_from_body_chunks(size: int) -> None:
    raw = json.dumps(ARGS)
    chunks = tool_stream([(0, "call_1", "write_file", cut(raw, random.Random(9)))], [0] * 20)
    body = render_chat(chunks)
    acc = ChatCompletionAccumulator()
    events = [u.event for u in acc.updates(body[i : i + size] for i in range(0, len(body), size))]
    assert events[-1] == "done" and acc.done and acc.tools[0].final() == ARGS
    assert acc.completion == feed_all(chunks)[0].completion


def test_unknown_choice_fields_are_kept() -> None:
    filtered = {"hate": {"filtered": False, "severity": "safe"}}
    first = delta(content="a")
    first["content_filter_results"] = {}
    second = delta(content="b")
    second["content_filter_results"] = filtered
    acc, _ = feed_all([chunk(first), chunk(second)])
    assert acc.completion["choices"][0]["content_filter_results"] == filtered


def test_legacy_function_call() -> None:
    raw = json.dumps(WEATHER)
    pieces = cut(raw, random.Random(6))
    first = delta(
        role="assistant", content=None, function_call={"name": "get_weather", "arguments": ""}
    )
    chunks: list[Any] = [chunk(first)]
    chunks += [chunk(delta(function_call={"arguments": piece})) for piece in pieces]
    chunks += [chunk(delta(finish="function_call")), "[DONE]"]
    acc = ChatCompletionAccumulator()
    snapshots = []
    for item in chunks[:-2]:
        snapshots += [copy.deepcopy(u.snapshot) for u in acc.feed(item) if u.tool is not None]
    assert snapshots[-1] == WEATHER and snapshots[0] == {}
    function = acc.function_call()
    assert function is not None and function.status == "streaming"
    for item in chunks[-2:]:
        acc.feed(item)
    assert function.final() == WEATHER and function.name == "get_weather"
    message = acc.completion["choices"][0]["message"]
    assert message["function_call"] == {"name": "get_weather", "arguments": raw}
    assert acc.function_call(3) is None and ChatCompletionAccumulator().function_call() is None
