"""The Responses API accumulator on hand-written event streams, arguments cut every way."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

import jsonsnap
from chunking import random_splits
from jsonsnap.openai import ResponseAccumulator, StreamError, Update

ARGS = {"path": "calc.py", "content": 'def add(a, b):\n    return a + b  # "sum" \u2713\n'}
WEATHER = {"city": "Paris", "days": 3, "metric": True}


def cut(text: str, rng: random.Random) -> list[str]:
    return random_splits(text, rng, 9)


def response(
    status: str, output: list[dict[str, Any]] | None = None, **extra: Any
) -> dict[str, Any]:
    return {
        "id": "resp_1",
        "object": "response",
        "created_at": 1700000000,
        "status": status,
        "model": "gpt-test",
        "output": output or [],
        **extra,
    }


def responses_stream(arguments: list[str], final: bool = True) -> list[dict[str, Any]]:
    raw = "".join(arguments)
    message = {
        "type": "message",
        "id": "msg_1",
        "role": "assistant",
        "status": "in_progress",
        "content": [],
    }
    part = {"type": "output_text", "text": "", "annotations": []}
    function = {
        "type": "function_call",
        "id": "fc_1",
        "call_id": "call_1",
        "name": "write_file",
        "arguments": "",
        "status": "in_progress",
    }
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": response("in_progress")},
        {"type": "response.in_progress", "response": response("in_progress")},
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {"type": "reasoning", "id": "rs_1", "summary": []},
        },
        {
            "type": "response.reasoning_summary_part.added",
            "output_index": 0,
            "summary_index": 0,
            "part": {"type": "summary_text", "text": ""},
        },
        {
            "type": "response.reasoning_summary_text.delta",
            "output_index": 0,
            "summary_index": 0,
            "delta": "Plan: ",
        },
        {
            "type": "response.reasoning_summary_text.delta",
            "output_index": 0,
            "summary_index": 0,
            "delta": "write it.",
        },
        {
            "type": "response.reasoning_summary_text.done",
            "output_index": 0,
            "summary_index": 0,
            "text": "Plan: write it.",
        },
        {
            "type": "response.output_item.done",
            "output_index": 0,
            "item": {
                "type": "reasoning",
                "id": "rs_1",
                "summary": [{"type": "summary_text", "text": "Plan: write it."}],
            },
        },
        {"type": "response.output_item.added", "output_index": 1, "item": message},
        {
            "type": "response.content_part.added",
            "output_index": 1,
            "content_index": 0,
            "part": part,
        },
        {
            "type": "response.output_text.delta",
            "output_index": 1,
            "content_index": 0,
            "delta": "Writing ",
        },
        {
            "type": "response.output_text.delta",
            "output_index": 1,
            "content_index": 0,
            "delta": "the file.",
        },
        {
            "type": "response.output_text.done",
            "output_index": 1,
            "content_index": 0,
            "text": "Writing the file.",
        },
        {"type": "response.output_item.added", "output_index": 2, "item": function},
    ]
    events += [
        {
            "type": "response.function_call_arguments.delta",
            "output_index": 2,
            "item_id": "fc_1",
            "delta": piece,
        }
        for piece in arguments
    ]
    if not final:
        return events
    done_message = {
        **message,
        "status": "completed",
        "content": [{**part, "text": "Writing the file."}],
    }
    done_function = {**function, "arguments": raw, "status": "completed"}
    events += [
        {
            "type": "response.function_call_arguments.done",
            "output_index": 2,
            "item_id": "fc_1",
            "arguments": raw,
        },
        {"type": "response.output_item.done", "output_index": 2, "item": done_function},
        {
            "type": "response.completed",
            "response": response(
                "completed",
                [events[7]["item"], done_message, done_function],
                usage={"input_tokens": 3, "output_tokens": 9, "total_tokens": 12},
            ),
        },
    ]
    return events


def feed_responses(events: list[dict[str, Any]]) -> tuple[ResponseAccumulator, list[Update]]:
    acc = ResponseAccumulator()
    updates: list[Update] = []
    for event in events:
        updates += acc.feed(event)
    return acc, updates


@pytest.mark.parametrize("seed", range(5))
def test_responses_function_call(seed: int) -> None:
    raw = json.dumps(ARGS)
    acc, updates = feed_responses(responses_stream(cut(raw, random.Random(seed))))
    assert acc.done and acc.response is not None and acc.response["status"] == "completed"
    output = acc.response["output"]
    assert [item["type"] for item in output] == ["reasoning", "message", "function_call"]
    assert output[1]["content"][0]["text"] == "Writing the file."
    assert output[2]["arguments"] == raw and acc.tools[2].final() == ARGS
    assert acc.response["usage"]["total_tokens"] == 12
    texts = [(u.text, u.thinking) for u in updates if u.text]
    assert texts == [
        ("Plan: ", True),
        ("write it.", True),
        ("Writing ", False),
        ("the file.", False),
    ]
    fed = ""
    for update in updates:
        if update.delta == "arguments":
            assert update.tool is acc.tools[2]
    live = ResponseAccumulator()
    for event in responses_stream(cut(raw, random.Random(seed))):
        for update in live.feed(event):
            if update.event == "response.function_call_arguments.delta":
                fed += event["delta"]
                assert update.snapshot == jsonsnap.parse_partial(fed, {})


def test_responses_streamed_state_before_the_end() -> None:
    raw = json.dumps(ARGS)
    pieces = cut(raw, random.Random(3))
    acc, _ = feed_responses(responses_stream(pieces[:-2], final=False))
    assert acc.response is not None and not acc.done
    output = acc.response["output"]
    assert output[0]["summary"] == [{"type": "summary_text", "text": "Plan: write it."}]
    assert output[1]["content"][0]["text"] == "Writing the file."
    assert output[2]["arguments"] == "".join(pieces[:-2])
    assert acc.tools[2].status == "streaming" and acc.tools[2].snapshot == jsonsnap.parse_partial(
        "".join(pieces[:-2]), {}
    )


def test_responses_incomplete_keeps_the_unfinished_arguments() -> None:
    events = responses_stream(['{"path": "a.py", "content": "li'], final=False)
    events.append(
        {
            "type": "response.incomplete",
            "response": response("incomplete", incomplete_details={"reason": "max_output_tokens"}),
        }
    )
    acc, _ = feed_responses(events)
    assert acc.done and acc.response is not None and acc.response["status"] == "incomplete"
    tool = acc.tools[2]
    assert tool.status == "incomplete" and tool.snapshot == {"path": "a.py", "content": "li"}
    # The final response had no output: the streamed items are kept.
    assert acc.response["output"][2]["arguments"] == '{"path": "a.py", "content": "li'


def test_responses_errors() -> None:
    acc = ResponseAccumulator()
    with pytest.raises(StreamError, match=r"before response\.created"):
        acc.feed({"type": "response.output_text.delta", "output_index": 0, "delta": "x"})
    acc.feed({"type": "response.created", "response": response("in_progress")})
    with pytest.raises(StreamError, match="output item 3, which does not exist"):
        acc.feed({"type": "response.output_text.delta", "output_index": 3, "delta": "x"})
    with pytest.raises(StreamError) as info:
        acc.feed({"type": "error", "code": "server_error", "message": "boom", "param": None})
    assert info.value.error_type == "server_error" and info.value.message == "boom"
    failed = response("failed", error={"code": "rate_limit_exceeded", "message": "slow down"})
    with pytest.raises(StreamError) as info:
        acc.feed({"type": "response.failed", "response": failed})
    assert info.value.error_type == "rate_limit_exceeded" and acc.done
    assert acc.response is not None and acc.response["status"] == "failed"


def test_responses_unknown_events_are_ignored() -> None:
    events = responses_stream(['{"a": 1}'])
    events.insert(3, {"type": "response.future_thing", "x": 1})
    events.insert(5, {"type": "response.future.delta", "output_index": 0, "delta": "?"})
    acc, updates = feed_responses(events)
    assert acc.tools[2].final() == {"a": 1}
    assert "response.future_thing" in [u.event for u in updates]


def test_responses_updates_from_body() -> None:
    events = responses_stream(cut(json.dumps(WEATHER), random.Random(5)))
    body = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()
    acc = ResponseAccumulator()
    acc.read(body[i : i + 7] for i in range(0, len(body), 7))
    assert acc.done and acc.tools[2].final() == WEATHER
    assert acc.response == feed_responses(events)[0].response
