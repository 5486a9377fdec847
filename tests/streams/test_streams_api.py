"""The contract every accumulator keeps (``jsonsnap.streams``), tried on each of them.

What ``feed()``, ``read()``, ``updates()``, ``aupdates()`` and ``close()`` take and do, how a
misuse is told (``TypeError``) from a bad stream (``StreamError``), the registry and
``detect()``, what an ``Update`` carries (the fragment, whether the snapshot changed, a custom
tool's text apart from the answer), and a ``ToolInput``'s change feed.
"""

from __future__ import annotations

import asyncio
import json
import pickle
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

import jsonsnap
from jsonsnap.anthropic import MessageAccumulator
from jsonsnap.bedrock import EventStreamDecoder, EventStreamMessage
from jsonsnap.openai import ChatCompletionAccumulator, ResponseAccumulator
from jsonsnap.sse import ServerSentEvent, SSEDecoder
from jsonsnap.streams import (
    PROTOCOLS,
    Accumulator,
    StreamError,
    ToolInput,
    ToolInputError,
    Update,
    detect,
)
from recordings import ROOT, all_fixtures, chunks_of, first_event, fixture_id

FIXTURES = all_fixtures()
#: One recording per protocol, with a tool call that completes.
SAMPLES = {
    "anthropic": ROOT / "anthropic" / "parallel_tools.sse",
    "chat": ROOT / "openai" / "chat_parallel_interleaved.sse",
    "responses": ROOT / "openai" / "responses_function_call.sse",
}
PROTOCOL_NAMES = sorted(SAMPLES)


def sse(path: Path) -> list[ServerSentEvent]:
    decoder = SSEDecoder()
    return [*decoder.feed(path.read_bytes()), *decoder.close()]


def decoded(path: Path) -> list[Any]:
    """The events' data as the caller would decode it (``"[DONE]"`` as it is)."""
    return [e.data if e.data == "[DONE]" else json.loads(e.data) for e in sse(path)]


def whole(protocol: str) -> Accumulator:
    return PROTOCOLS[protocol]().read(SAMPLES[protocol].read_bytes())


class SDKObject:
    """An event as the SDKs give it: an object with ``type`` and ``to_dict()``, iterable (a
    pydantic model yields its fields)."""

    def __init__(self, data: Any) -> None:
        self.data: Any = data
        self.type = data.get("type") if isinstance(data, dict) else None

    def to_dict(self, warnings: bool = True) -> Any:
        return json.loads(json.dumps(self.data))

    def __iter__(self) -> Iterator[Any]:
        return iter(self.data.items())


# --------------------------------------------------------------------------- the registry


def test_the_registry() -> None:
    assert list(PROTOCOLS) == [
        "anthropic",
        "bedrock",
        "bedrock-anthropic",
        "chat",
        "gemini",
        "responses",
        "ui-message",
    ]
    assert PROTOCOLS["anthropic"] is MessageAccumulator
    assert PROTOCOLS["chat"] is ChatCompletionAccumulator
    assert PROTOCOLS["responses"] is ResponseAccumulator
    for name, cls in PROTOCOLS.items():
        assert cls.protocol == name and issubclass(cls, Accumulator)


@pytest.mark.parametrize(("protocol", "path"), FIXTURES, ids=[fixture_id(p) for _, p in FIXTURES])
def test_detect_tells_each_recording_by_its_first_event(protocol: str, path: Path) -> None:
    first, data = first_event(path)
    assert detect(first) == protocol
    assert detect(data) == protocol
    if path.suffix == ".bin":  # the binary message itself, as the decoder gives it
        message = EventStreamDecoder().feed(path.read_bytes())[0]
        assert detect(message) == protocol


def test_detect_reads_a_binary_message_by_the_event_it_carries() -> None:
    def message(kind: str, **headers: str) -> EventStreamMessage:
        return EventStreamMessage({":message-type": kind, **headers}, b"{}")

    assert detect(message("event", **{":event-type": "messageStart"})) == "bedrock"
    assert detect(message("event", **{":event-type": "chunk"})) == "bedrock-anthropic"
    assert detect(message("exception", **{":exception-type": "throttlingException"})) == "bedrock"
    # An error message, or one that is no event: it cannot tell.
    assert detect(message("error", **{":error-code": "x", ":error-message": "y"})) is None
    assert detect(message("other")) is None


def test_detect_says_none_when_it_cannot_tell() -> None:
    cannot: list[dict[str, Any]] = [
        {"type": "error", "error": {}},
        {"error": "x"},
        {},
        {"type": []},
    ]
    for data in cannot:
        assert detect(data) is None, data
    for event in (ServerSentEvent(data="[DONE]"), ServerSentEvent(data="[" * 100_000)):
        assert detect(event) is None
    assert detect({"type": "ping"}) == "anthropic"


def test_public_names_in_tracebacks() -> None:
    for cls in (StreamError, ToolInputError, ToolInput, Update, Accumulator):
        assert cls.__module__ == "jsonsnap.streams", cls
    assert MessageAccumulator.__module__ == "jsonsnap.anthropic"
    assert ChatCompletionAccumulator.__module__ == "jsonsnap.openai"
    assert ResponseAccumulator.__module__ == "jsonsnap.openai"
    error = pickle.loads(pickle.dumps(StreamError("boom", error_type="server_error")))
    assert (error.message, error.error_type, str(error)) == ("boom", "server_error", str(error))


# --------------------------------------------------------------------------- what feed() takes


@pytest.mark.parametrize("protocol", PROTOCOL_NAMES)
def test_every_way_in_gives_the_same_result(protocol: str) -> None:
    path = SAMPLES[protocol]
    want = whole(protocol)
    body = path.read_bytes()
    events = [e for e in decoded(path) if e != "[DONE]"]  # in a body, a str is a chunk of it
    ways: dict[str, Any] = {
        "chunks": chunks_of(body, 7),
        "bytes": body,
        "str": body.decode("utf-8"),
        "bytearray chunks": [bytearray(c) for c in chunks_of(body, 64)],
        "server-sent events": sse(path),
        "decoded events": events,
        "SDK objects": [SDKObject(e) for e in events],
    }
    for label, way in ways.items():
        acc = PROTOCOLS[protocol]()
        assert acc.read(way) is acc, label
        assert acc.result == want.result, label
        assert [t.final() for t in acc.tool_calls()] == [t.final() for t in want.tool_calls()]
        without_done = protocol == "chat" and label in ("decoded events", "SDK objects")
        assert (acc.done, acc.closed, acc.events) == (True, True, want.events - without_done)


@pytest.mark.parametrize("protocol", PROTOCOL_NAMES)
def test_misuse_is_a_type_error_that_says_what_to_pass(protocol: str) -> None:
    acc = PROTOCOLS[protocol]()
    data = sse(SAMPLES[protocol])[0].data
    with pytest.raises(TypeError, match=r"feed\(\) takes one event.*decode the event's data"):
        acc.feed(data)  # the event's data, not decoded
    with pytest.raises(TypeError, match=r"read\(\) or updates\(\)"):
        acc.feed(data.encode())
    for wrong in (None, 42, object(), [1], SDKObject):
        with pytest.raises(TypeError, match=r"a decoded event \(a dict\), an SDK event object"):
            acc.feed(wrong)
    with pytest.raises(TypeError, match=r"read\(\) takes the body of an event stream"):
        acc.read(42)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"for one event, use feed\(\)"):
        acc.updates(json.loads(data))
    with pytest.raises(TypeError, match=r"aupdates\(\)"):
        acc.aupdates(3.5)  # type: ignore[arg-type]
    assert acc.events == 0 and not acc.closed  # nothing was taken


@pytest.mark.parametrize("protocol", PROTOCOL_NAMES)
def test_sdk_helper_events_are_skipped_and_not_counted(protocol: str) -> None:
    helpers = {
        "anthropic": ["text", "input_json", "citation", "thinking", "signature"],
        "chat": ["content.delta", "tool_calls.function.arguments.done", "logprobs.content.done"],
        "responses": [],
    }[protocol]
    acc = PROTOCOLS[protocol]()
    for kind in helpers:
        assert acc.feed(SDKObject({"type": kind, "snapshot": "x"})) == []
    assert acc.events == 0


@pytest.mark.parametrize(
    ("wrong", "right"), [(a, b) for a in PROTOCOL_NAMES for b in PROTOCOL_NAMES if a != b]
)
def test_a_stream_of_another_protocol_is_named(wrong: str, right: str) -> None:
    acc = PROTOCOLS[wrong]()
    cls = PROTOCOLS[right]
    message = f"of the {right} protocol, not of {wrong}: read this stream with {cls.__module__}"
    with pytest.raises(StreamError, match=message):
        acc.read(SAMPLES[right].read_bytes())
    assert acc.events == 0


# --------------------------------------------------------------------------- close()


def cut_inside_a_call(protocol: str) -> list[Any]:
    """The sample's events up to a tool call's middle."""
    events = decoded(SAMPLES[protocol])
    acc = PROTOCOLS[protocol]()
    for n, event in enumerate(events):
        if any(u.tool is not None and u.fragment and len(u.tool.raw) > 20 for u in acc.feed(event)):
            return events[: n + 1]
    raise AssertionError("no tool call")


@pytest.mark.parametrize("protocol", PROTOCOL_NAMES)
def test_close_ends_what_is_still_streaming(protocol: str) -> None:
    acc = PROTOCOLS[protocol]()
    for event in cut_inside_a_call(protocol):
        acc.feed(event)
    streaming = [tool for tool in acc.tool_calls() if not tool.ended]
    assert streaming and all(tool.status == "streaming" for tool in streaming)
    snapshots = [json.dumps(tool.snapshot) for tool in streaming]
    updates = acc.close()
    assert [u.tool for u in updates] == streaming and {u.event for u in updates} == {"close"}
    for tool, snapshot in zip(streaming, snapshots, strict=True):
        assert (tool.status, tool.ended) == ("incomplete", True)
        assert json.dumps(tool.snapshot) == snapshot
        with pytest.raises(ToolInputError, match="cut off"):
            tool.final()
    assert acc.close() == [] and acc.closed  # again: nothing more
    events = acc.events
    with pytest.raises(StreamError, match=r"after close\(\)"):
        acc.feed(decoded(SAMPLES[protocol])[-1])
    assert acc.events == events


@pytest.mark.parametrize("protocol", PROTOCOL_NAMES)
@pytest.mark.parametrize(
    ("body", "said"),
    [
        (b"", "the body is empty"),
        ("", "the body is empty"),
        ([], "the body is empty"),
        (b": just a comment\n\n", "it has no data: lines"),
    ],
)
def test_an_empty_body_is_refused(protocol: str, body: Any, said: str) -> None:
    """A body that brings no event is no answer: refused at its end, the stream closed (and
    refused again by a later close()); a stream closed before any event, too."""
    acc = PROTOCOLS[protocol]()
    updates = acc.updates(body)
    with pytest.raises(StreamError, match=said):
        list(updates)
    assert acc.closed and not acc.done and acc.tool_calls() == [] and acc.events == 0
    with pytest.raises(StreamError, match=said):
        acc.close()
    with pytest.raises(StreamError, match="before its first event"):
        PROTOCOLS[protocol]().close()


@pytest.mark.parametrize("protocol", PROTOCOL_NAMES)
def test_updates_close_at_the_end_of_the_body(protocol: str) -> None:
    events = cut_inside_a_call(protocol)
    acc = PROTOCOLS[protocol]()
    updates = list(acc.updates(events))
    assert updates[-1].event == "close" and acc.closed
    assert all(tool.status == "incomplete" for tool in acc.tool_calls() if tool.raw)

    async def body() -> AsyncIterator[Any]:
        for event in events:
            yield event

    async def run() -> list[Update]:
        return [u async for u in PROTOCOLS[protocol]().aupdates(body())]

    assert [u.event for u in asyncio.run(run())] == [u.event for u in updates]


def test_aupdates_takes_a_sync_body_too() -> None:
    body = SAMPLES["chat"].read_bytes()

    async def run(source: Any) -> list[str]:
        return [u.event async for u in ChatCompletionAccumulator().aupdates(source)]

    want = [u.event for u in ChatCompletionAccumulator().updates(body)]
    assert asyncio.run(run(body)) == asyncio.run(run(chunks_of(body, 5))) == want


# --------------------------------------------------------------------------- what an Update says


@pytest.mark.parametrize("protocol", PROTOCOL_NAMES)
def test_updates_carry_the_fragment_and_whether_the_snapshot_changed(protocol: str) -> None:
    acc = PROTOCOLS[protocol]()
    fragments: dict[int, str] = {}
    for update in acc.updates(SAMPLES[protocol].read_bytes()):
        tool = update.tool
        if tool is None:
            assert (update.fragment, update.changed) == ("", False)
            continue
        fragments[id(tool)] = fragments.get(id(tool), "") + update.fragment
        if update.fragment:
            assert tool.raw.endswith(update.fragment)
        if update.changed:
            assert update.fragment or tool.ended
    for tool in acc.tool_calls():
        assert fragments[id(tool)] == tool.raw and tool.complete


def test_changed_is_false_when_a_fragment_shows_nothing_new() -> None:
    acc = MessageAccumulator()
    acc.feed({"type": "message_start", "message": {"content": []}})
    acc.feed({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use"}})
    seen = []
    for piece in ['{"n": 1', "2", ', "s": "', "a", '"}']:
        delta = {"type": "input_json_delta", "partial_json": piece}
        (update,) = acc.feed({"type": "content_block_delta", "index": 0, "delta": delta})
        seen.append(update.changed)
    assert seen == [True, False, True, True, False]
    (stop,) = acc.feed({"type": "content_block_stop", "index": 0})
    assert stop.tool is not None and stop.tool.final() == {"n": 12, "s": "a"}


def test_a_custom_tool_calls_text_is_not_the_answer() -> None:
    call = {"index": 0, "id": "c", "type": "custom", "custom": {"name": "patch", "input": "*** "}}
    acc = ChatCompletionAccumulator()
    updates = acc.feed({"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]})
    assert [(u.text, u.custom_input) for u in updates] == [("", "*** ")]
    responses = ResponseAccumulator()
    responses.feed({"type": "response.created", "response": {"output": []}})
    item = {"type": "custom_tool_call", "name": "patch", "input": ""}
    responses.feed({"type": "response.output_item.added", "output_index": 0, "item": item})
    event = {"type": "response.custom_tool_call_input.delta", "output_index": 0, "delta": "+x"}
    assert [(u.text, u.custom_input) for u in responses.feed(event)] == [("", "+x")]


def test_update_repr_leaves_out_the_defaults() -> None:
    update = Update("content_block_delta", 1, {"type": "text"}, "text_delta", "hi")
    assert repr(update) == (
        "Update('content_block_delta', index=1, block=<1 keys>, delta='text_delta', text='hi')"
    )


# --------------------------------------------------------------------------- the change feed


@pytest.mark.parametrize("protocol", PROTOCOL_NAMES)
def test_a_tool_inputs_change_feed(protocol: str) -> None:
    """Subscribed at the call's first update, whenever that is (some servers send a piece of
    the arguments with it), a subscription sees the whole input; ``changes()`` replays it."""
    acc = PROTOCOLS[protocol]()
    records: dict[int, list[Any]] = {}
    writing: list[Any] = []
    for update in acc.updates(SAMPLES[protocol].read_bytes()):
        tool = update.tool
        if tool is not None and id(tool) not in records:
            records[id(tool)] = []
            tool.subscribe((), records[id(tool)].append, under=True)
        if tool is not None and not tool.ended:
            writing.append(tool.writing)
    assert any(path for path in writing)
    for tool in acc.tool_calls():
        rebuilt = jsonsnap.replay(records[id(tool)], None)
        assert rebuilt == tool.final() and tool.is_complete(())
        assert jsonsnap.replay(tool.changes(), None) == tool.final()  # from its start
        assert tool.changes() == []


def test_changes_first_then_subscribe_from_then_on() -> None:
    acc = MessageAccumulator()
    acc.feed({"type": "message_start", "message": {"content": []}})
    acc.feed({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use"}})

    def piece(text: str) -> None:
        delta = {"type": "input_json_delta", "partial_json": text}
        acc.feed({"type": "content_block_delta", "index": 0, "delta": delta})

    piece('{"a": "x')
    tool = acc.tools[0]
    assert [type(r).__name__ for r in tool.changes()] == ["Started", "Started", "Appended"]
    seen: list[Any] = []
    tool.subscribe(("a",), seen.append, kinds=[jsonsnap.Appended])
    piece('yz"}')
    assert [r.text for r in seen] == ["yz"] and tool.writing is None
