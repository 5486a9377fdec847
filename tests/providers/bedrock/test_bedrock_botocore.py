"""botocore, AWS's own Python SDK core, as the oracle of the Bedrock support (never the network).

- Its event stream parser (``botocore.eventstream.EventStreamBuffer``) must decode the same
  messages as :class:`EventStreamDecoder`, headers and payload byte for byte, on every fixture
  and on generated messages with every header type, cut at every byte; and refuse what ours
  refuses where it checks at all (a changed byte: a CRC mismatch).
- A ``bedrock-runtime`` client (``converse_stream()``, ``invoke_model_with_response_stream()``)
  reads each fixture body through a stubbed HTTP send: the event dicts it yields, fed to our
  accumulators, make the same result as the raw body; its error for an exception event is the
  same type and message.
- Where the two differ on purpose, a test says how and why.
"""

from __future__ import annotations

import base64
import struct
import zlib
from collections.abc import Iterator
from typing import Any, Final

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bedrock_frames import FIXTURES, frame
from effort import examples
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
)
from recordings import assert_same_json, cut

botocore = pytest.importorskip("botocore")
from botocore import eventstream  # type: ignore[import-untyped]  # noqa: E402
from botocore.awsrequest import AWSResponse  # type: ignore[import-untyped]  # noqa: E402
from botocore.exceptions import (  # type: ignore[import-untyped]  # noqa: E402
    EventStreamError as BotoStreamError,
)
from botocore.session import get_session  # type: ignore[import-untyped]  # noqa: E402

NAMES: Final = sorted(p.stem for p in FIXTURES.glob("*.bin"))


def ours(chunks: list[bytes]) -> list[tuple[dict[str, Any], bytes]]:
    decoder = EventStreamDecoder()
    out = [m for chunk in chunks for m in decoder.feed(chunk)] + decoder.close()
    return [(comparable(m), m.payload) for m in out]


def comparable(message: EventStreamMessage) -> dict[str, Any]:
    """Our headers as botocore gives them: a timestamp as its int, a UUID as its 16 bytes."""
    out: dict[str, Any] = {}
    for name, value in message.headers.items():
        if isinstance(value, Timestamp):
            value = int(value)
        elif hasattr(value, "bytes") and not isinstance(value, (bytes, str)):
            value = value.bytes
        out[name] = value
    return out


def theirs(chunks: list[bytes]) -> list[tuple[dict[str, Any], bytes]]:
    buffer = eventstream.EventStreamBuffer()
    out = []
    for chunk in chunks:
        buffer.add_data(chunk)
        out += [(dict(m.headers), bytes(m.payload)) for m in buffer]
    return out


def typed_equal(a: Any, b: Any) -> bool:
    """Equal, with the types of header values too (``True`` is not ``1``)."""
    return repr(a) == repr(b)


@pytest.mark.parametrize("name", NAMES)
def test_botocore_decodes_the_same_messages_from_every_fixture(name: str) -> None:
    data = (FIXTURES / f"{name}.bin").read_bytes()
    want = theirs([data])
    assert len(want) > 10
    for way in ("whole", "1-byte", "7-byte", "random#0", "random#1"):
        chunks: Any = cut(data, way)
        assert typed_equal(ours(chunks), want), way
        assert typed_equal(theirs(chunks), want), way


# --------------------------------------------------------------------------- generated messages


NAME = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=0, max_size=12
).filter(lambda s: len(s.encode()) < 256)
VALUE = st.one_of(
    st.tuples(st.just(0), st.just(True)),
    st.tuples(st.just(1), st.just(False)),
    st.tuples(st.just(2), st.integers(-(2**7), 2**7 - 1)),
    st.tuples(st.just(3), st.integers(-(2**15), 2**15 - 1)),
    st.tuples(st.just(4), st.integers(-(2**31), 2**31 - 1)),
    st.tuples(st.just(5), st.integers(-(2**63), 2**63 - 1)),
    st.tuples(st.just(6), st.binary(max_size=40)),
    st.tuples(st.just(7), st.text(max_size=20)),
    st.tuples(st.just(8), st.integers(-(2**63), 2**63 - 1)),
    st.tuples(st.just(9), st.binary(min_size=16, max_size=16)),
)
HEADERS = st.dictionaries(NAME, VALUE, max_size=6).map(
    lambda d: [(name, kind, value) for name, (kind, value) in d.items()]
)
MESSAGE = st.builds(frame, HEADERS, st.binary(max_size=60))


def two_way_and_bytewise(data: bytes) -> Iterator[list[bytes]]:
    yield [data]
    yield [data[i : i + 1] for i in range(len(data))]
    for at in range(1, len(data)):
        yield [data[:at], data[at:]]


@settings(max_examples=examples(60), suppress_health_check=[HealthCheck.too_slow])
@given(messages=st.lists(MESSAGE, min_size=1, max_size=3))
def test_generated_messages_cut_at_every_byte(messages: list[bytes]) -> None:
    data = b"".join(messages)
    want = theirs([data])
    assert len(want) == len(messages)
    for chunks in two_way_and_bytewise(data):
        assert typed_equal(ours(chunks), want)


@settings(max_examples=examples(60), suppress_health_check=[HealthCheck.too_slow])
@given(message=MESSAGE, data=st.data())
def test_a_changed_byte_is_refused_by_both(message: bytes, data: st.DataObject) -> None:
    at = data.draw(st.integers(0, len(message) - 1))
    flip = data.draw(st.integers(1, 255))
    bad = message[:at] + bytes([message[at] ^ flip]) + message[at + 1 :]
    with pytest.raises(EventStreamError):
        ours([bad])
    with pytest.raises(eventstream.ParserError):  # ChecksumMismatch, InvalidPayloadLength...
        theirs([bad])


# --------------------------------------------------------------------------- the differences


def test_both_refuse_a_message_over_the_limits() -> None:
    for total, headers, theirs_error in (
        (MAX_PAYLOAD + 17, 0, eventstream.InvalidPayloadLength),
        (MAX_HEADERS + 17, MAX_HEADERS + 1, eventstream.InvalidHeadersLength),
    ):
        head = struct.pack("!II", total, headers)
        prelude = head + struct.pack("!I", zlib.crc32(head))
        with pytest.raises(EventStreamError, match="over the limit"):
            ours([prelude])
        with pytest.raises(theirs_error):
            theirs([prelude])


def test_difference_a_body_cut_inside_a_message() -> None:
    """botocore stops without a word when the body ends inside a message (the rest of it is
    silently lost); ours says so at close()."""
    data = (FIXTURES / "converse_text_tool.bin").read_bytes()[:-5]
    assert len(theirs([data])) == len(ours_until_error(data))
    with pytest.raises(EventStreamError, match="ends inside a message"):
        ours([data])


def ours_until_error(data: bytes) -> list[EventStreamMessage]:
    decoder = EventStreamDecoder()
    return decoder.feed(data)


def test_difference_a_message_whose_lengths_do_not_add_up() -> None:
    """A 12-byte "message" (a total length of 12, no room for its CRC) whose prelude CRC is
    right: botocore reads the prelude CRC again as the message CRC and takes it, an empty
    message; ours refuses it (the smallest message is 16 bytes)."""
    head = struct.pack("!II", 12, 0)
    tiny = head + struct.pack("!I", zlib.crc32(head))
    assert theirs([tiny]) == [({}, b"")]
    with pytest.raises(EventStreamError, match="a message of 12 bytes, less than the 16"):
        ours([tiny])


def test_difference_malformed_headers_are_our_error_not_a_python_one() -> None:
    """Headers that are cut short, of an unknown type or not UTF-8 (inside a message whose CRCs
    are right): botocore raises whatever Python raises (KeyError, struct.error,
    UnicodeDecodeError); ours, an EventStreamError that says which header and where."""
    for raw, python in (
        (b"\x01a\x0a", KeyError),
        (b"\x01a\x04\x00", struct.error),
        (b"\x02\xff\xfe\x00", UnicodeDecodeError),
    ):
        head = struct.pack("!II", 16 + len(raw), len(raw))
        body = head + struct.pack("!I", zlib.crc32(head)) + raw
        data = body + struct.pack("!I", zlib.crc32(body))
        with pytest.raises(python):
            theirs([data])
        with pytest.raises(EventStreamError, match="header"):
            ours([data])


# --------------------------------------------------------------------------- the SDK's client


class RawBody:
    """A streamed HTTP body, as botocore reads one (``stream()``), in 37-byte pieces."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def stream(self, **_: Any) -> Iterator[bytes]:
        for i in range(0, len(self.data), 37):
            yield self.data[i : i + 37]

    def read(self, *_: Any) -> bytes:
        return self.data

    def close(self) -> None:
        pass


def client_stream(name: str) -> Any:
    """The stream a bedrock-runtime client returns for the fixture's body (sent nowhere)."""
    data = (FIXTURES / f"{name}.bin").read_bytes()
    client = get_session().create_client(
        "bedrock-runtime",
        region_name="us-east-1",
        aws_access_key_id="AKIDEXAMPLE",
        aws_secret_access_key="secret",
    )
    headers = {"content-type": "application/vnd.amazon.eventstream"}

    def send(request: Any, **_: Any) -> AWSResponse:
        return AWSResponse(request.url, 200, headers, RawBody(data))

    client.meta.events.register("before-send.bedrock-runtime.*", send)
    messages = [{"role": "user", "content": [{"text": "hi"}]}]
    if name.startswith("invoke"):
        response = client.invoke_model_with_response_stream(modelId="anthropic.claude", body=b"{}")
        return response["body"]
    return client.converse_stream(modelId="anthropic.claude", messages=messages)["stream"]


def sdk_events(name: str) -> tuple[list[dict[str, Any]], Any]:
    events: list[dict[str, Any]] = []
    try:
        for event in client_stream(name):
            events.append(event)  # noqa: PERF402 - those before an error are kept
    except BotoStreamError as exc:
        return events, exc
    return events, None


def raw_result(name: str) -> tuple[Any, StreamError | None]:
    acc: Any = (
        InvokeModelAccumulator() if name.startswith("invoke") else ConverseStreamAccumulator()
    )
    try:
        acc.read((FIXTURES / f"{name}.bin").read_bytes())
    except StreamError as exc:
        return acc, exc
    return acc, None


@pytest.mark.parametrize("name", NAMES)
def test_the_sdks_events_make_the_same_result_as_the_raw_body(name: str) -> None:
    events, sdk_error = sdk_events(name)
    want, error = raw_result(name)
    acc: Any = type(want)()
    for event in events:  # as boto3 yields them, one dict per event, blobs as bytes
        assert len(event) == 1
        acc.feed(event)
    acc.close()
    assert_same_json(want.result, acc.result, name)
    assert [t.raw for t in acc.tool_calls()] == [t.raw for t in want.tool_calls()]
    assert acc.done == want.done
    if error is None:
        assert sdk_error is None
    else:
        assert sdk_error is not None
        assert sdk_error.response["Error"] == {"Code": error.error_type, "Message": error.message}


def test_the_sdks_stream_goes_to_read_as_it_is() -> None:
    acc = ConverseStreamAccumulator().read(client_stream("converse_parallel_tools"))
    want, _ = raw_result("converse_parallel_tools")
    assert acc.result == want.result and acc.done


def test_boto3s_error_for_an_exception_event_ends_the_stream() -> None:
    """boto3 raises its own EventStreamError for an exception event as its stream is
    iterated: the accumulator never sees the event. read() and updates() end the stream when
    the iterable raises (the error goes on): the call it cut is incomplete, not streaming for
    ever (from the raw body, the accumulator sees the event, raises, and stays open)."""
    want, error = raw_result("converse_throttled")
    assert error is not None
    for read in (
        lambda acc: acc.read(client_stream("converse_throttled")),
        lambda acc: list(acc.updates(client_stream("converse_throttled"))),
    ):
        acc = ConverseStreamAccumulator()
        with pytest.raises(BotoStreamError, match="throttlingException"):
            read(acc)
        assert acc.closed and not acc.done
        assert [t.status for t in acc.tool_calls()] == ["incomplete"]
        assert [t.raw for t in acc.tool_calls()] == [t.raw for t in want.tool_calls()]
        assert_same_json(want.result, acc.result, "converse_throttled")


def test_difference_redacted_content_is_base64_text() -> None:
    """boto3 decodes a blob (``redactedContent``) into bytes; the response keeps it as the
    API's JSON has it, base64 text, so that it can be written out as JSON (the same from the
    SDK's bytes and from the raw body)."""
    events, _ = sdk_events("converse_reasoning")
    blobs = [
        e["contentBlockDelta"]["delta"]["reasoningContent"]["redactedContent"]
        for e in events
        if "redactedContent"
        in e.get("contentBlockDelta", {}).get("delta", {}).get("reasoningContent", {})
    ]
    assert len(blobs) == 2 and all(isinstance(b, bytes) for b in blobs)
    acc, _ = raw_result("converse_reasoning")
    kept = acc.message["content"][1]["reasoningContent"]["redactedContent"]
    assert isinstance(kept, str) and base64.b64decode(kept) == b"".join(blobs)


def test_botocore_knows_the_converse_stream_events() -> None:
    model = get_session().get_service_model("bedrock-runtime")
    members = model.operation_model("ConverseStream").output_shape.members["stream"].members
    assert {"messageStart", "contentBlockDelta", "metadata", "throttlingException"} <= set(members)
