"""AWS Bedrock: the event stream decoder, the ConverseStream and InvokeModel accumulators, and
the fixtures in ``fixtures/bedrock/`` replayed every way.

Each ``X.bin`` is an HTTP body as Bedrock sends it (binary event stream messages), built from
``X.jsonl`` by ``tests/helpers/bedrock_frames.py``; ``X.json`` is the expected end state, written
from what the final response must be (see ``fixtures/bedrock/README.md``). Every body goes through
``updates()`` whole, in 1-, 3-, 7- and 64-byte chunks and at seeded random splits, and must end
in the same state each time. The comparisons with botocore are in test_bedrock_botocore.py,
the hostile input in test_bedrock_hostile.py.
"""

from __future__ import annotations

import asyncio
import base64
import json
import pickle
import struct
import time
import tracemalloc
import uuid
import zlib
from collections.abc import Iterable
from typing import Any, Final

import pytest

from bedrock_frames import FIXTURES, build, chunk_frame, event_frame, exception_frame, frame
from jsonsnap.anthropic import MessageAccumulator
from jsonsnap.bedrock import (
    MAX_HEADERS,
    MAX_PAYLOAD,
    ConverseStreamAccumulator,
    EventStreamDecoder,
    EventStreamError,
    EventStreamMessage,
    InvokeModelAccumulator,
    StreamError,
    Timestamp,
    ToolInputError,
    accumulate,
    event_of,
    starts_eventstream,
)
from jsonsnap.streams import PROTOCOLS, Accumulator, detect
from recordings import assert_same_json, cut, error_state, tool_state, ways
from values import diff, grows

NAMES: Final = sorted(p.stem for p in FIXTURES.glob("*.bin"))
CASES: Final = frozenset(
    {
        "converse_text_tool",
        "converse_reasoning",
        "converse_parallel_tools",
        "converse_empty_tool_input",
        "converse_throttled",
        "invoke_anthropic_tool",
    }
)
#: Byte cuts only: the body is binary (no text ways).
WAYS: Final = [way for way in ways(random_rounds=5, text_rounds=0) if not way.startswith("text")]


def body(name: str) -> bytes:
    return (FIXTURES / f"{name}.bin").read_bytes()


def expected(name: str) -> dict[str, Any]:
    result: dict[str, Any] = json.loads((FIXTURES / f"{name}.json").read_text("utf-8"))
    return result


def make(name: str) -> Accumulator:
    return InvokeModelAccumulator() if name.startswith("invoke") else ConverseStreamAccumulator()


def end_state(acc: Accumulator, error: StreamError | None) -> dict[str, Any]:
    tools = {str(index): tool_state(tool) for index, tool in acc.tools.items()}
    return {"result": acc.result, "done": acc.done, "error": error_state(error), "tools": tools}


def replay(name: str, chunks: Iterable[bytes | str]) -> dict[str, Any]:
    acc = make(name)
    error = None
    try:
        for _ in acc.updates(chunks):
            pass
    except StreamError as exc:
        error = exc
    return end_state(acc, error)


def messages(data: bytes, chunks: Iterable[bytes] | None = None) -> list[EventStreamMessage]:
    decoder = EventStreamDecoder()
    out = [m for chunk in (chunks or [data]) for m in decoder.feed(chunk)]
    return out + decoder.close()


def prelude(total: int, headers: int) -> bytes:
    """A prelude with a right CRC, for lengths that may be wrong."""
    head = struct.pack("!II", total, headers)
    return head + struct.pack("!I", zlib.crc32(head))


def sealed(data: bytes) -> bytes:
    """``data`` (a prelude and what follows) with its message CRC."""
    return data + struct.pack("!I", zlib.crc32(data))


# --------------------------------------------------------------------------- the decoder


ALL_TYPES: Final = [
    ("yes", 0, True),
    ("no", 1, False),
    ("byte", 2, -128),
    ("short", 3, 32767),
    ("int", 4, -(2**31)),
    ("long", 5, 2**63 - 1),
    ("bytes", 6, b"\x00\xff\x10"),
    ("string", 7, "caf\u00e9 \U0001f600"),
    ("time", 8, 1717171717171),
    ("id", 9, uuid.UUID("0f8fad5b-d9cb-469f-a165-70867728950e")),
]


def test_every_header_type_is_read() -> None:
    data = frame(ALL_TYPES, b'{"a":1}') + frame([], b"")
    first, second = messages(data)
    assert list(first.headers) == [name for name, _, _ in ALL_TYPES]
    for name, _, value in ALL_TYPES:
        got = first.headers[name]
        assert (got == value and type(got) is type(value)) or isinstance(got, Timestamp), name
    assert type(first.headers["time"]) is Timestamp and repr(first.headers["time"]).startswith(
        "Timestamp(1717"
    )
    assert type(first.headers["yes"]) is bool and type(first.headers["byte"]) is int
    assert (first.payload, first.offset, second.headers, second.payload) == (
        b'{"a":1}',
        0,
        {},
        b"",
    )
    assert second.offset == len(data) - 16


def test_message_properties_and_repr() -> None:
    (message,) = messages(event_frame("contentBlockStop", {"contentBlockIndex": 0}))
    assert message.event_type == "contentBlockStop" and message.message_type == "event"
    assert message.content_type == "application/json" and message.exception_type is None
    assert repr(message) == "<EventStreamMessage 'contentBlockStop' at 0, 23 bytes>"
    (thrown,) = messages(exception_frame("throttlingException", {"message": "slow down"}))
    assert (thrown.message_type, thrown.exception_type, thrown.event_type) == (
        "exception",
        "throttlingException",
        None,
    )
    assert event_of(thrown) == {"throttlingException": {"message": "slow down"}}


@pytest.mark.parametrize("name", NAMES)
def test_the_messages_do_not_depend_on_the_cuts(name: str) -> None:
    data = body(name)
    want = messages(data)
    assert sum(16 for _ in want) < len(data) and want[-1].offset < len(data)
    for way in WAYS:
        assert messages(data, cut(data, way)) == want, way  # type: ignore[arg-type]
    offsets = [m.offset for m in want]
    assert offsets[0] == 0 and offsets == sorted(offsets)


def test_the_decoder_takes_bytes_only() -> None:
    decoder = EventStreamDecoder()
    for chunk in (bytearray(b"\x00"), memoryview(b"\x00\x00")):
        assert decoder.feed(chunk) == []
    with pytest.raises(TypeError, match="an event stream is binary"):
        decoder.feed("text")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="binary"):
        ConverseStreamAccumulator().read("not bytes")


GOOD: Final = event_frame("messageStart", {"role": "assistant"})


def corrupt(data: bytes, at: int, value: int) -> bytes:
    return data[:at] + bytes([value]) + data[at + 1 :]


#: Malformed bodies (after a first good message, so that offsets are checked too): the error
#: and where it is said to be.
BAD: Final = [
    ("prelude CRC", corrupt(GOOD, 9, GOOD[9] ^ 1), r"the prelude CRC is 0x", 0),
    ("total length", corrupt(GOOD, 3, GOOD[3] + 1), r"the prelude CRC", 0),
    (
        "message CRC",
        corrupt(GOOD, len(GOOD) - 1, 0),
        r"the message CRC is 0x[0-9a-f]{8}, computed",
        0,
    ),
    ("payload byte", corrupt(GOOD, len(GOOD) - 6, 0x20), r"the message CRC", 0),
    (
        "tiny",
        sealed(prelude(12, 0))[:12] + b"\x00" * 4,
        r"a message of 12 bytes, less than the 16",
        0,
    ),
    (
        "headers too long",
        sealed(prelude(20, 5) + b"\x00"),
        r"5 bytes of headers in a message of 20",
        0,
    ),
    (
        "headers over the limit",
        prelude(MAX_HEADERS + 17, MAX_HEADERS + 1),
        rf"{MAX_HEADERS + 1} bytes of headers, over the limit of {MAX_HEADERS}",
        0,
    ),
    (
        "payload over the limit",
        prelude(MAX_PAYLOAD + 17, 0),
        rf"a payload of {MAX_PAYLOAD + 1} bytes, over the limit of {MAX_PAYLOAD}",
        0,
    ),
    (
        "unknown type",
        sealed(prelude(20, 4) + b"\x01a\x0a\x00"),
        r"header 'a' has the unknown type 10",
        12,
    ),
    ("cut name", sealed(prelude(18, 2) + b"\x05a"), r"a header name cut short", 12),
    (
        "cut value",
        sealed(prelude(20, 4) + b"\x01a\x04\x00"),
        r"the value of the header 'a' is cut short",
        12,
    ),
    ("cut string", sealed(prelude(22, 6) + b"\x01a\x07\x00\x09x"), r"header 'a' is cut short", 12),
    ("cut uuid", sealed(prelude(22, 6) + b"\x01a\x09abc"), r"header 'a' is cut short", 12),
    ("bad name", sealed(prelude(19, 3) + b"\x01\xff\x00"), r"a header name is not UTF-8", 12),
    (
        "bad string",
        sealed(prelude(22, 6) + b"\x01a\x07\x00\x01\xc3"),
        r"the header 'a' is not UTF-8",
        12,
    ),
    ("twice", sealed(prelude(22, 6) + b"\x01a\x00\x01a\x01"), r"the header 'a' appears twice", 15),
]


@pytest.mark.parametrize(("label", "data", "message", "where"), BAD, ids=[b[0] for b in BAD])
def test_a_malformed_message_is_an_error_at_its_offset(
    label: str, data: bytes, message: str, where: int
) -> None:
    stream = GOOD + data
    for chunks in ([stream], [stream[i : i + 1] for i in range(len(stream))]):
        decoder = EventStreamDecoder()
        got: list[EventStreamMessage] = []
        with pytest.raises(EventStreamError, match=message) as info:
            for chunk in chunks:
                got += decoder.feed(chunk)
            decoder.close()
        assert len(got) == 1  # the good message before it came out
        error = info.value
        assert isinstance(error, StreamError) and error.error_type is None
        assert error.offset == len(GOOD) + where
        assert str(error).endswith(f"(at byte {error.offset} of the event stream)")
        # Failed, it stays failed: every later call raises the same error.
        with pytest.raises(EventStreamError) as later:
            decoder.feed(GOOD)
        assert later.value is error
        with pytest.raises(EventStreamError) as later:
            decoder.close()
        assert later.value is error


def test_a_body_cut_inside_a_message_is_an_error_at_close() -> None:
    for size, what in ((5, "5 bytes, less than a message's prelude"), (30, "30 of the 118 bytes")):
        decoder = EventStreamDecoder()
        assert decoder.feed(GOOD + GOOD[:size]) != []
        with pytest.raises(EventStreamError, match=f"ends inside a message: {what}") as info:
            decoder.close()
        assert info.value.offset == len(GOOD)
    assert len(GOOD) == 118
    assert EventStreamDecoder().close() == []


def test_the_error_pickles_with_its_offset() -> None:
    error = EventStreamError("the prelude CRC is wrong", 1234)
    back = pickle.loads(pickle.dumps(error))
    assert type(back) is EventStreamError and (back.offset, str(back)) == (1234, str(error))


def test_starts_eventstream() -> None:
    assert starts_eventstream(GOOD) and starts_eventstream(GOOD[:12])
    assert not starts_eventstream(GOOD[:11])
    assert not starts_eventstream(b"event: message_start\ndata: {}\n\n")
    assert not starts_eventstream(corrupt(GOOD, 0, 1))
    assert not starts_eventstream(prelude(12, 0)) and not starts_eventstream(prelude(20, 5))


def test_memory_follows_the_input_not_the_announced_length() -> None:
    """A prelude announcing 24 MiB allocates nothing by itself; a long message costs what its
    bytes weigh, fed in small chunks or whole."""
    announced = prelude(MAX_PAYLOAD + 16, 0)
    tracemalloc.start()
    try:
        decoder = EventStreamDecoder()
        decoder.feed(announced + b"x" * 1000)
        small = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert small < 20_000
    payload = b"y" * (1 << 20)
    big = frame([(":event-type", 7, "chunk")], payload)
    tracemalloc.start()
    try:
        decoder = EventStreamDecoder()
        out = [m for i in range(0, len(big), 4096) for m in decoder.feed(big[i : i + 4096])]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert out[0].payload == payload
    assert peak < 5 * len(big)


def test_a_chunk_costs_its_own_size_not_the_buffers() -> None:
    """Small chunks of a message whose first 8 MiB are already buffered cost what they cost
    after 8 KiB (re-copying or re-scanning the buffer at each chunk would cost a thousand
    times more)."""
    pieces = [b"z" * 256] * 16384

    def seconds(pending: int) -> float:
        best = float("inf")
        for _ in range(3):
            decoder = EventStreamDecoder()
            decoder.feed(prelude(pending + 2**23, 0) + b"z" * pending)
            start = time.perf_counter()
            for piece in pieces:
                decoder.feed(piece)
            best = min(best, time.perf_counter() - start)
        return best

    ratio = seconds(2**23) / seconds(2**13)
    assert ratio < 5, ratio


# --------------------------------------------------------------------------- the fixtures


def test_every_case_is_there() -> None:
    assert not CASES - set(NAMES), sorted(CASES - set(NAMES))
    for suffix in (".jsonl", ".json"):
        assert {p.stem for p in FIXTURES.glob(f"*{suffix}")} == set(NAMES), suffix


@pytest.mark.parametrize("name", NAMES)
def test_each_body_is_built_from_its_description(name: str) -> None:
    assert build(name) == body(name), "run python tests/helpers/bedrock_frames.py"


@pytest.mark.parametrize("name", NAMES)
def test_the_bodies_are_the_wire_format(name: str) -> None:
    """Headers in Bedrock's order, JSON payloads with the padding field ``p``; tool ids and
    message ids as the API makes them."""
    for message in messages(body(name)):
        names = list(message.headers)
        assert names[1:] == [":content-type", ":message-type"], names
        assert message.content_type == "application/json"
        payload = json.loads(message.payload)
        if message.message_type == "event":
            assert isinstance(payload.pop("p"), str)
        if message.event_type == "chunk":
            event = json.loads(base64.b64decode(payload["bytes"]))
            assert (
                event["type"] in ("message_start", "content_block_start")
                or "index" in event
                or (event["type"] in ("message_delta", "message_stop"))
            )
        start = payload.get("start", {}).get("toolUse")
        if start is not None:
            assert start["toolUseId"].startswith("tooluse_") and "input" not in start


@pytest.mark.parametrize("name", NAMES)
def test_expected_file_agrees_with_the_description(name: str) -> None:
    """Each raw is the input pieces joined; a complete one is json.loads of it."""
    want = expected(name)
    assert set(want) == {"result", "done", "error", "tools"}
    pieces: dict[str, str] = {}
    for message in messages(body(name)):
        data = event_of(message)
        if "chunk" in data:
            event = json.loads(base64.b64decode(data["chunk"]["bytes"]))
            if event.get("delta", {}).get("type") == "input_json_delta":
                key = str(event["index"])
                pieces[key] = pieces.get(key, "") + event["delta"]["partial_json"]
        delta = data.get("contentBlockDelta", {})
        if "toolUse" in delta.get("delta", {}):
            key = str(delta["contentBlockIndex"])
            pieces[key] = pieces.get(key, "") + delta["delta"]["toolUse"].get("input", "")
    result = want["result"]
    content = result["content"] if "content" in result else result["output"]["message"]["content"]
    for key, tool in want["tools"].items():
        assert tool["raw"] == pieces.get(key, ""), key
        if tool["status"] == "complete":
            block = content[int(key)]
            value = block["input"] if "input" in block else block["toolUse"]["input"]
            assert diff(json.loads(tool["raw"] or "{}"), value) is None, key


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize("name", NAMES)
def test_replay_gives_the_expected_result(name: str, way: str) -> None:
    assert_same_json(expected(name), replay(name, cut(body(name), way)), f"{name} {way}")


@pytest.mark.parametrize("name", NAMES)
def test_aupdates_gives_the_same(name: str) -> None:
    async def run() -> dict[str, Any]:
        acc = make(name)
        error = None
        try:
            async for _ in acc.aupdates(cut(body(name), "7-byte")):
                pass
        except StreamError as exc:
            error = exc
        return end_state(acc, error)

    assert_same_json(expected(name), asyncio.run(run()), name)


@pytest.mark.parametrize("name", NAMES)
def test_the_live_snapshots_only_grow_to_the_final_value(name: str) -> None:
    acc = make(name)
    shown: dict[int, Any] = {}
    try:
        for update in acc.updates(cut(body(name), "3-byte")):
            tool = update.tool
            if tool is not None:
                before = shown.get(tool.index)
                now = json.loads(json.dumps(tool.snapshot))
                if before is not None:
                    assert grows(before, now) is None, (before, now)
                shown[tool.index] = now
    except StreamError:
        pass
    for tool in acc.tool_calls():
        if tool.complete:
            assert diff(shown[tool.index], tool.final()) is None


def test_the_empty_inputs_are_objects_fit_to_run() -> None:
    acc = ConverseStreamAccumulator().read(body("converse_empty_tool_input"))
    assert [(t.name, t.final(), t.raw) for t in acc.tool_calls()] == [
        ("get_current_time", {}, ""),
        ("list_files", {}, ""),
    ]


def test_throttling_mid_stream_keeps_what_came() -> None:
    acc = ConverseStreamAccumulator()
    with pytest.raises(StreamError) as info:
        acc.read(body("converse_throttled"))
    assert info.value.error_type == "throttlingException"
    assert str(info.value).startswith("throttlingException: Too many tokens")
    tool = acc.tools[1]
    assert not acc.done and [tool.status, tool.ended] == ["streaming", False]
    with pytest.raises(ToolInputError, match="unfinished"):
        tool.final()
    acc.close()
    assert [tool.status, tool.ended] == ["incomplete", True]


def test_accumulate_reads_a_whole_body() -> None:
    acc = accumulate([body("converse_parallel_tools")])
    assert acc.closed and acc.done and len(acc.tool_calls()) == 3


# --------------------------------------------------------------------------- ConverseStream


def start(**fields: Any) -> dict[str, Any]:
    return {"messageStart": {"role": "assistant", **fields}}


def delta(index: int, **fields: Any) -> dict[str, Any]:
    return {"contentBlockDelta": {"contentBlockIndex": index, "delta": fields}}


def tool_start(index: int, name: str = "f", id_: str = "tooluse_1") -> dict[str, Any]:
    use = {"toolUseId": id_, "name": name}
    return {"contentBlockStart": {"contentBlockIndex": index, "start": {"toolUse": use}}}


def stop(index: int) -> dict[str, Any]:
    return {"contentBlockStop": {"contentBlockIndex": index}}


def converse(*events: Any, **options: Any) -> ConverseStreamAccumulator:
    acc = ConverseStreamAccumulator(**options)
    for event in (start(), *events):
        acc.feed(event)
    return acc


def test_a_tool_delta_without_input_is_no_piece_never_a_key_error() -> None:
    acc = converse(
        tool_start(0),
        delta(0, toolUse={}),
        delta(0, toolUse={"input": None}),
        delta(0, toolUse={"input": '{"a": '}),
        delta(0, toolUse={}),
        delta(0, toolUse={"input": "1}"}),
        stop(0),
    )
    assert acc.tools[0].final() == {"a": 1}
    assert acc.message == {
        "role": "assistant",
        "content": [{"toolUse": {"toolUseId": "tooluse_1", "name": "f", "input": {"a": 1}}}],
    }


def test_a_delta_of_the_wrong_kind_is_named() -> None:
    acc = converse(delta(0, text="hi"), tool_start(1))
    with pytest.raises(StreamError, match=r"a text delta for block 1, a 'toolUse' block"):
        acc.feed(delta(1, text="x"))
    with pytest.raises(
        StreamError, match=r"a toolUse delta for block 0, which no contentBlockStart"
    ):
        acc.feed(delta(0, toolUse={"input": "{}"}))
    with pytest.raises(
        StreamError, match=r"a toolUse delta for block 2, which no contentBlockStart"
    ):
        acc.feed(delta(2, toolUse={"input": "{}"}))
    with pytest.raises(StreamError, match=r"a reasoningContent delta for block 0, a 'text'"):
        acc.feed(delta(0, reasoningContent={"text": "x"}))
    with pytest.raises(StreamError, match=r"contentBlockDelta for block 3, which does not exist"):
        acc.feed(delta(3, text="x"))
    assert acc.message == {
        "role": "assistant",
        "content": [
            {"text": "hi"},
            {"toolUse": {"toolUseId": "tooluse_1", "name": "f", "input": {}}},
        ],
    }


def test_order_and_the_end() -> None:
    acc = ConverseStreamAccumulator()
    with pytest.raises(StreamError, match="contentBlockDelta before messageStart"):
        acc.feed(delta(0, text="x"))
    acc.feed(start())
    with pytest.raises(StreamError, match="a second messageStart"):
        acc.feed(start())
    acc.feed(delta(0, text="a"))
    acc.feed(stop(0))
    with pytest.raises(StreamError, match="contentBlockDelta for block 0, which has stopped"):
        acc.feed(delta(0, text="b"))
    with pytest.raises(StreamError, match="contentBlockStop for block 0, which has stopped"):
        acc.feed(stop(0))
    with pytest.raises(StreamError, match="contentBlockStart for block 0, expected 1"):
        acc.feed(tool_start(0))
    acc.feed({"messageStop": {"stopReason": "end_turn", "additionalModelResponseFields": {"x": 1}}})
    assert not acc.done  # the metadata comes after messageStop
    with pytest.raises(StreamError, match="contentBlockDelta after messageStop"):
        acc.feed(delta(1, text="late"))
    with pytest.raises(StreamError, match="a second messageStop"):
        acc.feed({"messageStop": {"stopReason": "end_turn"}})
    usage = {"inputTokens": 3, "outputTokens": 1, "totalTokens": 4}
    acc.feed({"metadata": {"usage": usage, "metrics": {"latencyMs": 9}, "p": "abc"}})
    assert acc.done
    with pytest.raises(StreamError, match="metadata after the end of the stream"):
        acc.feed({"metadata": {}})
    assert acc.response == {
        "output": {"message": {"role": "assistant", "content": [{"text": "a"}]}},
        "stopReason": "end_turn",
        "additionalModelResponseFields": {"x": 1},
        "usage": usage,
        "metrics": {"latencyMs": 9},
    }


@pytest.mark.parametrize(
    "kind",
    [
        "internalServerException",
        "modelStreamErrorException",
        "validationException",
        "throttlingException",
        "serviceUnavailableException",
    ],
)
def test_each_exception_is_a_stream_error(kind: str) -> None:
    for first in (True, False):
        acc = ConverseStreamAccumulator() if first else converse(delta(0, text="kept"))
        with pytest.raises(StreamError) as info:
            acc.feed({kind: {"message": "it broke", "originalStatusCode": 500}})
        assert (info.value.error_type, info.value.message) == (kind, "it broke")
        if not first:
            assert acc.message == {"role": "assistant", "content": [{"text": "kept"}]}
        (message,) = messages(exception_frame(kind, {"message": "framed"}))
        with pytest.raises(StreamError, match=f"^{kind}: framed$"):
            ConverseStreamAccumulator().feed(message)


def test_an_error_message_is_a_stream_error() -> None:
    data = frame(
        [
            (":message-type", 7, "error"),
            (":error-code", 7, "InternalFailure"),
            (":error-message", 7, "the model failed"),
        ],
        b"",
    )
    (message,) = messages(data)
    with pytest.raises(StreamError, match=r"^InternalFailure: the model failed$"):
        ConverseStreamAccumulator().feed(message)
    (odd,) = messages(frame([(":message-type", 7, "gossip")], b""))
    with pytest.raises(StreamError, match="a message of type 'gossip' at byte 0"):
        ConverseStreamAccumulator().feed(odd)
    (nameless,) = messages(frame([(":message-type", 7, "event")], b"{}"))
    with pytest.raises(StreamError, match="an event message without its :event-type header"):
        ConverseStreamAccumulator().feed(nameless)


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        (b"{not json", r"the payload of 'messageStart' is not JSON: Expecting"),
        (b"[1]", r"the payload of 'messageStart' is a list, not a JSON object"),
        (b"\xff", r"is not JSON: 'utf-8' codec"),
        (b"[" * 50_000, r"is not JSON"),
    ],
)
def test_a_payload_that_is_not_a_json_object(payload: bytes, message: str) -> None:
    (frame_,) = messages(frame([(":event-type", 7, "messageStart")], payload))
    acc = ConverseStreamAccumulator()
    with pytest.raises(StreamError, match=message):
        acc.feed(frame_)
    assert acc.events == 0 and acc.response is None


def test_an_event_is_one_member() -> None:
    acc = converse()
    with pytest.raises(StreamError, match=r"an event with 2 members \('contentBlockDelta', 'p'\)"):
        acc.feed({**delta(0, text="x"), "p": "abc"})
    with pytest.raises(StreamError, match="a delta with 2 members"):
        acc.feed(delta(0, text="x", toolUse={}))
    with pytest.raises(StreamError, match="an event of the anthropic protocol, not of bedrock"):
        ConverseStreamAccumulator().feed({"type": "message_start", "message": {}})
    assert acc.feed({"futureEvent": {"x": 1}})[0].event == "futureEvent"  # ignored
    assert acc.feed(delta(0))[0].index is None  # an empty delta: nothing begun
    assert acc.message == {"role": "assistant", "content": []}


def test_reasoning_signature_and_redacted_content() -> None:
    secret = bytes(range(10))
    acc = converse(
        delta(0, reasoningContent={"text": "Let me "}),
        delta(0, reasoningContent={"text": "think."}),
        delta(0, reasoningContent={"signature": "sig=="}),
        stop(0),
        delta(1, reasoningContent={"redactedContent": base64.b64encode(secret[:4]).decode()}),
        delta(1, reasoningContent={"redactedContent": secret[4:8]}),  # boto3 gives bytes
    )
    part = acc.message["content"][1]["reasoningContent"]  # type: ignore[index]
    assert base64.b64decode(part["redactedContent"]) == secret[:6]  # whole groups so far
    acc.feed(delta(1, reasoningContent={"redactedContent": base64.b64encode(secret[8:]).decode()}))
    acc.feed(stop(1))
    assert acc.message["content"] == [  # type: ignore[index]
        {"reasoningContent": {"reasoningText": {"text": "Let me think.", "signature": "sig=="}}},
        {"reasoningContent": {"redactedContent": base64.b64encode(secret).decode()}},
    ]
    cut_short = converse(delta(0, reasoningContent={"redactedContent": b"ab"}))
    cut_short.close()  # the bytes left over are shown at the end
    assert cut_short.message["content"][0]["reasoningContent"]["redactedContent"] == "YWI="  # type: ignore[index]
    with pytest.raises(StreamError, match="the redactedContent is not base64"):
        converse(delta(0, reasoningContent={"redactedContent": "***"}))


def test_reasoning_updates_are_thinking() -> None:
    acc = converse()
    (update,) = acc.feed(delta(0, reasoningContent={"text": "hmm"}))
    assert update.thinking and update.text == "hmm" and update.delta == "reasoningContent"
    (update,) = acc.feed(delta(1, text="answer"))
    assert not update.thinking and update.text == "answer" and update.delta == "text"


def test_citations_make_the_apis_citations_content_block() -> None:
    citation = {"title": "Doc", "location": {"documentChar": {"documentIndex": 0, "start": 0}}}
    acc = converse(delta(0, text="The sky "), delta(0, citation=citation), delta(0, text="is blue"))
    assert acc.message["content"] == [  # type: ignore[index]
        {"citationsContent": {"content": [{"text": "The sky is blue"}], "citations": [citation]}}
    ]


def test_a_server_tool_result_and_unknown_blocks_are_kept() -> None:
    result_start = {
        "contentBlockStart": {
            "contentBlockIndex": 0,
            "start": {"toolResult": {"toolUseId": "t", "status": "success"}},
        }
    }
    acc = converse(
        result_start,
        delta(0, toolResult=[{"text": "42"}]),
        delta(0, toolResult=[{"json": {"a": 1}}]),
        delta(1, image={"source": {"bytes": "AAA="}}),
    )
    assert acc.message["content"] == [  # type: ignore[index]
        {
            "toolResult": {
                "toolUseId": "t",
                "status": "success",
                "content": [{"text": "42"}, {"json": {"a": 1}}],
            }
        },
        {"image": {"source": {"bytes": "AAA="}}},
    ]
    with pytest.raises(StreamError, match="a toolResult delta for block 2, which no"):
        acc.feed(delta(2, toolResult=[]))


def test_tool_config_schemas_check_the_inputs() -> None:
    schema = {"type": "object", "properties": {"unit": {"enum": ["celsius", "fahrenheit"]}}}
    config = {
        "tools": [
            {"toolSpec": {"name": "get_weather", "inputSchema": {"json": schema}}},
            {"cachePoint": {"type": "default"}},
        ]
    }
    acc = converse(
        tool_start(0, "get_weather"),
        delta(0, toolUse={"input": '{"unit": "kel'}),
        tools=config,
    )
    assert acc.tools[0].status == "invalid"
    assert [v.pointer for v in acc.tools[0].violations] == ["/unit"]


def test_structured_output_takes_the_answer_text() -> None:
    acc = converse(
        delta(0, reasoningContent={"text": "not this"}),
        delta(1, text='{"a": '),
        delta(1, text="1}"),
        stop(1),
        {"messageStop": {"stopReason": "end_turn"}},
        {"metadata": {}},
        output_schema={"type": "object"},
    )
    assert acc.structured is not None and acc.structured.final() == {"a": 1}


def test_detect_and_the_registry() -> None:
    assert PROTOCOLS["bedrock"] is ConverseStreamAccumulator
    assert PROTOCOLS["bedrock-anthropic"] is InvokeModelAccumulator
    assert detect(start()) == "bedrock" and detect({"throttlingException": {}}) == "bedrock"
    assert detect({"chunk": {"bytes": "e30="}}) == "bedrock-anthropic"
    assert detect({"type": "message_start"}) == "anthropic"
    assert detect({"messageStart": {}, "p": "x"}) is None


def test_feed_misuse_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="a decoded EventStreamMessage or an event dict"):
        ConverseStreamAccumulator().feed(42)
    with pytest.raises(TypeError, match="a decoded EventStreamMessage, a chunk dict"):
        InvokeModelAccumulator().feed(42)


# --------------------------------------------------------------------------- InvokeModel


ANTHROPIC_EVENTS: Final = [
    json.loads(base64.b64decode(event_of(m)["chunk"]["bytes"]))
    for m in messages(body("invoke_anthropic_tool"))
]


def test_invoke_model_takes_frames_chunk_dicts_and_anthropic_events() -> None:
    want = expected("invoke_anthropic_tool")["result"]
    as_boto3 = [{"chunk": {"bytes": json.dumps(e).encode()}} for e in ANTHROPIC_EVENTS]
    for label, events in (
        ("frames", messages(body("invoke_anthropic_tool"))),
        ("boto3", as_boto3),
        ("anthropic", ANTHROPIC_EVENTS),
    ):
        acc = InvokeModelAccumulator().read(events)
        assert_same_json(want, acc.message, label)
        assert acc.invocation_metrics == {
            "inputTokenCount": 388,
            "outputTokenCount": 71,
            "invocationLatency": 1796,
            "firstByteLatency": 512,
        }
    plain = MessageAccumulator().read(ANTHROPIC_EVENTS)
    assert plain.message == want  # the same as the Anthropic accumulator's


@pytest.mark.parametrize(
    ("event", "message"),
    [
        ({"chunk": {"bytes": "***"}}, r"the bytes of a chunk is not base64"),
        ({"chunk": {"bytes": base64.b64encode(b"[1]").decode()}}, r"a list, not a JSON object"),
        ({"chunk": {"bytes": b"{nope"}}, r"the bytes of a chunk is not JSON"),
        ({"chunk": {}}, r"a chunk without its bytes"),
        ({"chunk": 3}, r"a chunk that is 3, not an object"),
        ({"chunk": {"bytes": 3}}, r"is 3, not base64 text or bytes"),
        ({"modelTimeoutException": {"message": "slow"}}, r"^modelTimeoutException: slow$"),
    ],
)
def test_invoke_model_refuses_a_broken_chunk(event: dict[str, Any], message: str) -> None:
    acc = InvokeModelAccumulator()
    acc.feed(ANTHROPIC_EVENTS[0])
    with pytest.raises(StreamError, match=message):
        acc.feed(event)
    assert acc.events == 1


def test_invoke_model_exception_frame() -> None:
    (message,) = messages(exception_frame("modelStreamErrorException", {"message": "bad model"}))
    acc = InvokeModelAccumulator()
    with pytest.raises(StreamError, match=r"^modelStreamErrorException: bad model$"):
        acc.feed(message)
    chunk = messages(chunk_frame(ANTHROPIC_EVENTS[0]))
    assert acc.feed(chunk[0])[0].event == "message_start"
