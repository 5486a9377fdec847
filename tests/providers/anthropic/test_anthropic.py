"""The Anthropic Messages accumulator on hand-written event streams, tool JSON cut every way."""

from __future__ import annotations

import asyncio
import json
import random
import re
from collections.abc import AsyncIterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jsonsnap
from astral import ASTRAL_TEXTS, code_units
from chunking import random_splits
from effort import examples
from jsonsnap.anthropic import MessageAccumulator, StreamError, ToolInputError, accumulate

ARGS = {"path": "calc.py", "content": 'def add(a, b):\n    return a + b  # "sum" \u2713\n'}


def start(**usage: int) -> dict[str, Any]:
    message: dict[str, Any] = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 1, **usage},
    }
    return {"type": "message_start", "message": message}


def tool_events(index: int, pieces: list[str], name: str = "write_file") -> list[dict[str, Any]]:
    block = {"type": "tool_use", "id": f"toolu_{index}", "name": name, "input": {}}
    events: list[dict[str, Any]] = [
        {"type": "content_block_start", "index": index, "content_block": block}
    ]
    for piece in pieces:
        delta = {"type": "input_json_delta", "partial_json": piece}
        events.append({"type": "content_block_delta", "index": index, "delta": delta})
    events.append({"type": "content_block_stop", "index": index})
    return events


def text_events(index: int, pieces: list[str]) -> list[dict[str, Any]]:
    block = {"type": "text", "text": ""}
    events: list[dict[str, Any]] = [
        {"type": "content_block_start", "index": index, "content_block": block}
    ]
    for piece in pieces:
        delta = {"type": "text_delta", "text": piece}
        events.append({"type": "content_block_delta", "index": index, "delta": delta})
    events.append({"type": "content_block_stop", "index": index})
    return events


def finish(stop_reason: str = "tool_use") -> list[dict[str, Any]]:
    delta = {"stop_reason": stop_reason, "stop_sequence": None}
    return [
        {"type": "message_delta", "delta": delta, "usage": {"output_tokens": 42}},
        {"type": "message_stop"},
    ]


def cut(text: str, rng: random.Random) -> list[str]:
    return random_splits(text, rng, 9)


def feed_all(events: list[dict[str, Any]]) -> MessageAccumulator:
    acc = MessageAccumulator()
    for event in events:
        acc.feed(event)
    return acc


@pytest.mark.parametrize("seed", range(20))
def test_text_then_tool_call(seed: int) -> None:
    rng = random.Random(seed)
    raw = json.dumps(ARGS)
    events = [
        start(),
        {"type": "ping"},
        *text_events(0, ["I'll write ", "the file."]),
        *tool_events(1, cut(raw, rng)),
        *finish(),
    ]
    acc = feed_all(events)
    message = acc.message
    assert message is not None and acc.done
    assert message["content"][0] == {"type": "text", "text": "I'll write the file."}
    assert message["content"][1]["input"] == ARGS
    assert message["stop_reason"] == "tool_use"
    assert message["usage"] == {"input_tokens": 10, "output_tokens": 42}
    tool = acc.tools[1]
    assert (tool.complete, tool.error, tool.raw, tool.final()) == (True, None, raw, ARGS)


def test_tool_input_snapshot_grows_with_each_delta() -> None:
    acc = MessageAccumulator()
    acc.feed(start())
    expected: list[dict[str, str]] = [
        {},
        {"path": "ca"},
        {"path": "calc.py"},
        {"path": "calc.py", "content": "print(1)\n"},
    ]
    pieces = ['{"path": "ca', 'lc.py", "con', 'tent": "print(1)\\n"}']
    seen = []
    for event in tool_events(0, pieces)[:-1]:
        acc.feed(event)
        seen.append(dict(acc.message["content"][0]["input"]))  # type: ignore[index]
    assert seen == expected
    with pytest.raises(ToolInputError, match="unfinished"):
        acc.tools[0].final()  # no content_block_stop yet: not fit to run


def test_max_tokens_keeps_the_unfinished_string() -> None:
    events = [
        start(),
        *tool_events(0, ['{"path": "a.py", "content": "line 1\\nli'])[:-1],
        *finish("max_tokens"),
    ]
    acc = feed_all(events)
    assert acc.message["content"][0]["input"] == {"path": "a.py", "content": "line 1\nli"}  # type: ignore[index]
    tool = acc.tools[0]
    assert not tool.complete and tool.raw.endswith("li")
    with pytest.raises(ToolInputError):
        tool.final()


def test_invalid_tool_json_marks_the_block_and_the_stream_goes_on() -> None:
    events = [start(), *tool_events(0, ['{"a": 1', " 2}"]), *text_events(1, ["after"]), *finish()]
    acc = feed_all(events)
    tool = acc.tools[0]
    assert tool.error is not None and tool.error.pos == 8 and not tool.complete
    # The last good snapshot: everything before the offending character.
    assert acc.message["content"][0]["input"] == {"a": 1}  # type: ignore[index]
    assert acc.message["content"][1]["text"] == "after"  # type: ignore[index]
    with pytest.raises(ToolInputError, match="invalid input JSON"):
        tool.final()


def test_empty_tool_input() -> None:
    acc = feed_all([start(), *tool_events(0, []), *finish()])
    assert acc.tools[0].final() == {}


def test_thinking_signature_citations_and_unknown_types() -> None:
    events: list[dict[str, Any]] = [
        start(),
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "thinking", "thinking": ""},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "thinking_delta", "thinking": "Hmm"},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "thinking_delta", "thinking": "..."},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "signature_delta", "signature": "s1"},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "signature_delta", "signature": "s2"},
        },
        {"type": "content_block_delta", "index": 0, "delta": {"type": "future_delta", "x": 1}},
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
        {
            "type": "content_block_delta",
            "index": 1,
            "delta": {"type": "citations_delta", "citation": {"n": 1}},
        },
        {
            "type": "content_block_delta",
            "index": 1,
            "delta": {"type": "citations_delta", "citation": {"n": 2}},
        },
        {"type": "content_block_stop", "index": 1},
        {
            "type": "content_block_start",
            "index": 2,
            "content_block": {"type": "redacted_thinking", "data": "x"},
        },
        {"type": "content_block_stop", "index": 2},
        {"type": "future_event", "anything": True},
        *finish("end_turn"),
    ]
    content = feed_all(events).message["content"]  # type: ignore[index]
    assert content[0] == {"type": "thinking", "thinking": "Hmm...", "signature": "s2"}
    assert content[1]["citations"] == [{"n": 1}, {"n": 2}]
    assert content[2] == {"type": "redacted_thinking", "data": "x"}


def test_message_delta_overwrites_and_keeps_absent_fields() -> None:
    acc = feed_all([start(cache_read_input_tokens=5)])
    acc.feed(
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn"},
            "usage": {"output_tokens": 7},
        }
    )
    acc.feed(
        {"type": "message_delta", "delta": {}, "usage": {"output_tokens": 9, "input_tokens": None}}
    )
    message = acc.message
    assert message is not None and message["stop_reason"] == "end_turn"
    assert message["usage"] == {
        "input_tokens": 10,
        "output_tokens": 9,
        "cache_read_input_tokens": 5,
    }


def test_error_event_raises_and_keeps_the_message() -> None:
    acc = feed_all([start(), *text_events(0, ["partial"])[:-1]])
    error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    with pytest.raises(StreamError) as caught:
        acc.feed(error)
    assert (caught.value.error_type, caught.value.message) == ("overloaded_error", "Overloaded")
    assert acc.message["content"][0]["text"] == "partial"  # type: ignore[index]


@pytest.mark.parametrize(
    "events",
    [
        [{"type": "content_block_start", "index": 0, "content_block": {"type": "text"}}],
        [start(), start()],
        [
            start(),
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": "x"},
            },
        ],
        [start(), {"type": "content_block_start", "index": 1, "content_block": {"type": "text"}}],
        [start(), *text_events(0, [])[:1], {"type": "content_block_stop", "index": 3}],
        [
            start(),
            *text_events(0, [])[:1],
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "input_json_delta", "partial_json": "{"},
            },
        ],
    ],
    ids=["before start", "two starts", "delta first", "index gap", "stop unknown", "json to text"],
)
def test_events_out_of_order_are_refused(events: list[dict[str, Any]]) -> None:
    with pytest.raises(StreamError):
        feed_all(events)


def test_sdk_like_event_objects() -> None:
    class Event:
        def __init__(self, data: dict[str, Any]) -> None:
            self.data = data

        def model_dump(self) -> dict[str, Any]:
            return self.data

    acc = MessageAccumulator()
    for event in [start(), *text_events(0, ["hi"]), *finish("end_turn")]:
        acc.feed(Event(event))
    assert acc.message["content"] == [{"type": "text", "text": "hi"}]  # type: ignore[index]
    with pytest.raises(TypeError):
        acc.feed(object())


def test_accumulate_reads_an_sse_body_cut_anywhere() -> None:
    events = [
        start(),
        *text_events(0, ["Hello"]),
        *tool_events(1, ['{"path": ', '"x"}']),
        *finish(),
    ]
    body = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()
    rng = random.Random(3)
    for _ in range(5):
        chunks, pos = [], 0
        while pos < len(body):
            step = rng.choice((1, 3, 7, 64))
            chunks.append(body[pos : pos + step])
            pos += step
        acc = accumulate(chunks)
        assert acc.message["content"][1]["input"] == {"path": "x"}  # type: ignore[index]
        assert acc.done and acc.events == len(events)
    assert isinstance(acc.tools[1].error, type(None)) and jsonsnap.loads(acc.tools[1].raw) == {
        "path": "x"
    }


def render(events: list[dict[str, Any]]) -> bytes:
    """The events in the wire format, with a CRLF, a comment and a ping among them."""
    lines = [": stream opened\r\n"]
    lines += (f"event: {event['type']}\ndata: {json.dumps(event)}\n\n" for event in events)
    return "".join(lines).encode()


def test_feed_says_what_each_event_did() -> None:
    raw = '{"path": "a.py", "content": "x\\ny"}'
    events = [
        start(),
        *text_events(0, ["Hi", " there"]),
        *tool_events(1, cut(raw, random.Random(3))),
    ]
    events += finish()
    acc = MessageAccumulator()
    each = [acc.feed(event) for event in events]
    assert all(len(updates) == 1 for updates in each)  # each of these events does one thing
    updates = [u for (u,) in each]
    assert [u.event for u in updates] == [e["type"] for e in events]
    assert "".join(u.text for u in updates) == "Hi there"
    # Each tool delta's update carries the tool and its snapshot right after that delta.
    tool_updates = [u for u in updates if u.delta == "input_json_delta"]
    assert all(u.tool is acc.tools[1] and u.index == 1 for u in tool_updates)
    pieces = [
        e["delta"]["partial_json"]
        for e in events
        if e.get("delta", {}).get("type") == "input_json_delta"
    ]
    fed = ""
    acc2 = MessageAccumulator()
    acc2.feed(start())
    for event in events[1:]:
        (update,) = acc2.feed(event)
        if update.delta == "input_json_delta":
            fed += event["delta"]["partial_json"]
            assert update.snapshot == jsonsnap.parse_partial(fed, {})
    assert fed == "".join(pieces)
    stop = updates[-3]
    assert stop.event == "content_block_stop" and stop.tool is not None and stop.tool.complete
    assert stop.block is acc.message["content"][1]  # type: ignore[index]
    # Message-level events concern no block.
    assert updates[0].index is None and updates[-1].block is None and updates[-1].snapshot is None


def test_text_and_thinking_updates_name_their_delta() -> None:
    acc = MessageAccumulator()
    acc.feed(start())
    acc.feed(
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "thinking", "thinking": ""},
        }
    )
    (update,) = acc.feed(
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "thinking_delta", "thinking": "hm"},
        }
    )
    assert (update.delta, update.text, update.tool) == ("thinking_delta", "hm", None)
    assert [u.event for u in acc.feed({"type": "future_event"})] == ["future_event"]


def test_updates_from_body_chunks() -> None:
    raw = json.dumps(ARGS)
    events = [
        start(),
        {"type": "ping"},
        *text_events(0, ["a", "b"]),
        *tool_events(1, cut(raw, random.Random(1))),
    ]
    events += finish()
    body = render(events)
    rng = random.Random(7)
    chunks, pos = [], 0
    while pos < len(body):
        step = rng.randint(1, 40)
        chunks.append(body[pos : pos + step])
        pos += step
    acc = MessageAccumulator()
    texts = [u.text for u in acc.updates(chunks) if u.text]
    assert texts == ["a", "b"] and acc.done and acc.tools[1].final() == ARGS
    assert acc.message == accumulate([body]).message == feed_all(events).message


def test_async_updates() -> None:
    body = render([start(), *text_events(0, ["x", "y"]), *finish("end_turn")])

    async def chunks() -> AsyncIterator[bytes]:
        for i in range(0, len(body), 5):
            yield body[i : i + 5]

    async def run() -> tuple[MessageAccumulator, list[str]]:
        acc = MessageAccumulator()
        return acc, [u.event async for u in acc.aupdates(chunks())]

    acc, kinds = asyncio.run(run())
    assert kinds[0] == "message_start" and kinds[-1] == "message_stop" and len(kinds) == 7
    assert acc.message["content"] == [{"type": "text", "text": "xy"}]  # type: ignore[index]


def test_an_error_in_the_body_stops_the_updates_and_keeps_the_message() -> None:
    error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    body = render([start(), *text_events(0, ["partial"])[:2], error, *finish()])
    acc = MessageAccumulator()
    seen: list[str] = []
    with pytest.raises(StreamError) as info:
        seen.extend(update.event for update in acc.updates([body]))
    assert info.value.error_type == "overloaded_error" and info.value.message == "Overloaded"
    assert seen == ["message_start", "content_block_start", "content_block_delta"]
    assert acc.message["content"][0]["text"] == "partial"  # type: ignore[index]


def test_a_block_stopped_before_its_input_ends_is_incomplete() -> None:
    # At max_tokens the API still stops the block, then says why in message_delta.
    pieces = ['{"path": "a.py", "content": "line 1\\nli']
    acc = feed_all([start(), *tool_events(0, pieces), *finish("max_tokens")])
    tool = acc.tools[0]
    assert (tool.status, tool.error, tool.complete) == ("incomplete", None, False)
    assert acc.message["content"][0]["input"] == {"path": "a.py", "content": "line 1\nli"}  # type: ignore[index]
    with pytest.raises(ToolInputError, match="cut off"):
        tool.final()
    assert "incomplete" in repr(tool)


def test_tool_status_while_streaming_and_after() -> None:
    acc = MessageAccumulator()
    acc.feed(start())
    events = tool_events(0, ['{"a": ', "1}"])
    acc.feed(events[0])
    acc.feed(events[1])
    tool = acc.tools[0]
    statuses = [tool.status]
    acc.feed(events[2])
    acc.feed(events[3])
    statuses.append(tool.status)
    assert statuses == ["streaming", "complete"] and tool.id == "toolu_0"
    assert tool.final() == {"a": 1}


def thinking_events(index: int, pieces: list[str]) -> list[dict[str, Any]]:
    events = text_events(index, pieces)
    events[0]["content_block"] = {"type": "thinking", "thinking": ""}
    for event in events[1:-1]:
        event["delta"] = {"type": "thinking_delta", "thinking": event["delta"]["text"]}
    return events


def check_halves_joined(text: str, pieces: list[str]) -> None:
    """Text, thinking and a tool input whose pieces cut pairs: each ends as ``text`` (the
    halves joined, as the SDK's JavaScript joins them), and no half ever shows."""
    events = [
        start(), *text_events(0, pieces), *thinking_events(1, pieces),
        *tool_events(2, pieces), *finish(),
    ]  # fmt: skip
    acc = MessageAccumulator()
    for event in events:
        acc.feed(event)
        shown = json.dumps(acc.message, ensure_ascii=False)
        assert re.search("[\ud800-\udfff]", shown) is None, pieces
    content = acc.message["content"]  # type: ignore[index]
    assert content[0]["text"] == content[1]["thinking"] == acc.tools[2].raw == text, pieces
    assert content[2]["input"] == json.loads(text)


def test_a_surrogate_pair_cut_between_deltas_is_joined() -> None:
    text = json.dumps({"s": 'a\U0001f600 \U0001d11e"\U0010ffff b'}, ensure_ascii=False)
    units = code_units(text)
    for cut in range(len(units) + 1):
        check_halves_joined(text, [units[:cut], units[cut:]])
    check_halves_joined(text, list(units))
    # A half whose other half never comes goes in as it came, when its block ends.
    acc = MessageAccumulator()
    for event in [start(), *text_events(0, ["a\ud83d", "b\ud83d"])]:
        acc.feed(event)
    assert acc.message["content"][0]["text"] == "a\ud83db\ud83d"  # type: ignore[index]
    acc = MessageAccumulator()
    for event in [start(), *text_events(0, ["a\ud83d"])[:-1]]:
        acc.feed(event)
    assert acc.message["content"][0]["text"] == "a"  # type: ignore[index]
    acc.close()
    assert acc.message["content"][0]["text"] == "a\ud83d"  # type: ignore[index]


#: Short texts of characters beyond the BMP, and a few that JSON escapes.
@settings(max_examples=examples(40))
@given(text=ASTRAL_TEXTS, seed=st.integers(0, 2**16))
def test_generated_texts_cut_anywhere_join(text: str, seed: int) -> None:
    value = json.dumps([text], ensure_ascii=False)
    rng = random.Random(seed)
    check_halves_joined(value, random_splits(code_units(value), rng, rng.choice((1, 2, 3, 7))))
