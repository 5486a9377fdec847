"""``jsonsnap.anthropic`` against the official ``anthropic`` SDK, on the same SSE bytes.

The SDK is driven end to end without a network: ``anthropic.Anthropic`` gets an
``anthropic.DefaultHttpxClient`` (an ``httpx2.Client``: this SDK is built on ``httpx2``, not
``httpx``) whose ``httpx2.MockTransport`` answers every request with ``200``,
``content-type: text/event-stream`` and the stream's bytes, in the chunks the test chose (so the
SDK's own SSE decoder sees the cuts too). ``messages.stream(...).get_final_message()`` is what
the SDK builds; ``accumulate(chunks).message`` is what we build from the same chunks.

How the two are compared, and why that is fair:

- The SDK's message is dumped with ``model_dump(exclude_unset=True)`` (what its own ``to_dict()``
  does): the fields the wire carried, plus the ones its accumulator wrote. A plain
  ``model_dump()`` would add ``None`` for every optional field of the model (``container``,
  ``diagnostics``, ``citations``, ``caller``, ``usage.cache_creation``...), which the wire did
  not carry and we rightly do not invent.
- The SDK's accumulator writes ``stop_details`` from every ``message_delta``, whether the delta
  carried one or not, so a ``None`` there is no information: dropped on both sides.
- Unknown fields are kept by both (the SDK's models allow extras), so nothing else is
  normalised; where the SDK drops something (usage keys it does not know in ``message_delta``),
  a test below says so.

The well-formed streams (the fixtures whose expected ``.json`` says done, no error, every tool
complete; and the hypothesis-generated ones) must give equal messages. The deliberate
differences, where the SDK loses, hides or crashes on data that we keep and report, each have
a test that pins down both behaviours.
"""

from __future__ import annotations

import itertools
import json
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import anthropic
import httpx2
import pytest
from anthropic.types import Message, RawMessageStreamEvent
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st

import paths
import strategies
from effort import examples
from jsonsnap.anthropic import MessageAccumulator, StreamError, ToolInputError, accumulate
from recordings import byte_cuts, chunks_of, well_formed

FIXTURES = paths.FIXTURES / "anthropic"
MODEL = "claude-test"
BOM = "\ufeff".encode()


# --------------------------------------------------------------------------- the two sides


def sdk_client(chunks: Sequence[bytes]) -> anthropic.Anthropic:
    """A client whose every request gets ``chunks`` back as an event stream; no network."""

    def handler(request: httpx2.Request) -> httpx2.Response:
        assert request.url.path == "/v1/messages"
        headers = {"content-type": "text/event-stream"}
        return httpx2.Response(200, headers=headers, content=iter(chunks))

    http_client = anthropic.DefaultHttpxClient(transport=httpx2.MockTransport(handler))
    return anthropic.Anthropic(api_key="test", http_client=http_client, max_retries=0)


def sdk_message(chunks: Sequence[bytes]) -> Message:
    """What ``messages.stream(...).get_final_message()`` builds from ``chunks``."""
    client = sdk_client(chunks)
    with client.messages.stream(
        model=MODEL, max_tokens=1024, messages=[{"role": "user", "content": "hi"}]
    ) as stream:
        return stream.get_final_message()


def sdk_events(chunks: Sequence[bytes]) -> list[RawMessageStreamEvent]:
    """The raw event objects of ``messages.create(..., stream=True)`` on ``chunks``."""
    client = sdk_client(chunks)
    stream = client.messages.create(
        model=MODEL, max_tokens=1024, messages=[{"role": "user", "content": "hi"}], stream=True
    )
    return list(stream)


def normalised(message: dict[str, Any]) -> dict[str, Any]:
    """A copy without a ``None`` ``stop_details`` (see the module docstring)."""
    message = dict(message)
    if "stop_details" in message and message["stop_details"] is None:
        del message["stop_details"]
    return message


def sdk_dict(chunks: Sequence[bytes]) -> dict[str, Any]:
    """The SDK's final message as a dict, fields the wire did not carry left out. A block the
    SDK built as the wrong model makes pydantic warn when dumping: an error here."""
    message = sdk_message(chunks)
    dumped: dict[str, Any] = message.model_dump(exclude_unset=True, warnings="error")
    return normalised(dumped)


def our_dict(acc: MessageAccumulator) -> dict[str, Any]:
    assert acc.message is not None
    return normalised(acc.message)


def assert_same(
    chunks: Sequence[bytes], sdk_chunks: Sequence[bytes] | None = None, label: str = ""
) -> MessageAccumulator:
    """Both sides on ``chunks`` (the SDK on ``sdk_chunks`` if given): the stream is whole and
    well-formed, the messages equal. ``label`` says which input failed."""
    acc = accumulate(chunks)
    assert acc.done, label
    for tool in acc.tools.values():
        assert tool.complete and tool.error is None, (label, tool.index, tool.error)
    ours, sdk = our_dict(acc), sdk_dict(chunks if sdk_chunks is None else sdk_chunks)
    assert ours == sdk, label
    return acc


# --------------------------------------------------------------------------- building streams


def render(
    events: Sequence[dict[str, Any]],
    *,
    newline: str = "\n",
    ensure_ascii: bool = True,
    event_lines: bool = True,
) -> bytes:
    """The events as an SSE body, ``event:`` and ``data:`` lines, as the API sends them."""
    out = []
    for event in events:
        if event_lines:
            out.append(f"event: {event['type']}{newline}")
        out.append(f"data: {json.dumps(event, ensure_ascii=ensure_ascii)}{newline}{newline}")
    return "".join(out).encode()


def message_start(**usage: Any) -> dict[str, Any]:
    message: dict[str, Any] = {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "model": MODEL,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 12, "output_tokens": 1, **usage},
    }
    return {"type": "message_start", "message": message}


def block(index: int, content_block: dict[str, Any], *deltas: dict[str, Any]) -> list[Any]:
    """``content_block_start``, one ``content_block_delta`` per delta (no stop)."""
    events: list[dict[str, Any]] = [
        {"type": "content_block_start", "index": index, "content_block": content_block}
    ]
    events += [{"type": "content_block_delta", "index": index, "delta": d} for d in deltas]
    return events


def stop(index: int) -> dict[str, Any]:
    return {"type": "content_block_stop", "index": index}


def text_block(index: int, *pieces: str) -> list[dict[str, Any]]:
    deltas = [{"type": "text_delta", "text": p} for p in pieces]
    return [*block(index, {"type": "text", "text": ""}, *deltas), stop(index)]


def tool_block(
    index: int, pieces: Sequence[str], *, kind: str = "tool_use", name: str = "write_file"
) -> list[dict[str, Any]]:
    """A tool block without its ``content_block_stop``."""
    start = {"type": kind, "id": f"toolu_{index:02}", "name": name, "input": {}}
    return block(index, start, *({"type": "input_json_delta", "partial_json": p} for p in pieces))


def finish(stop_reason: str = "tool_use", **usage: Any) -> list[dict[str, Any]]:
    delta = {"stop_reason": stop_reason, "stop_sequence": None}
    return [
        {"type": "message_delta", "delta": delta, "usage": {"output_tokens": 40, **usage}},
        {"type": "message_stop"},
    ]


def tool_stream(pieces: Sequence[str], stop_reason: str = "tool_use") -> list[dict[str, Any]]:
    """Text, then one tool call whose input arrives as ``pieces``, closed; then the end."""
    return [
        message_start(),
        *text_block(0, "Writing it."),
        *tool_block(1, pieces),
        stop(1),
        *finish(stop_reason),
    ]


# --------------------------------------------------------------------------- fixtures


WELL_FORMED = sorted(p for p in FIXTURES.glob("*.sse") if well_formed(p))


@pytest.mark.parametrize("path", WELL_FORMED, ids=lambda p: p.stem)
def test_well_formed_fixtures_give_the_sdks_message(path: Path) -> None:
    body = path.read_bytes()
    sdk_body = body
    if body.startswith(BOM):
        # The SDK loses the first event after a BOM (test_leading_bom): it is compared on the
        # same stream without the BOM, and shown to fail with it.
        with pytest.raises(AssertionError):
            sdk_message([body])
        sdk_body = body[len(BOM) :]
    # Each side cut every way, against the other side whole.
    for label, chunks in byte_cuts(body, 3):
        assert_same(chunks, [sdk_body], f"{path.name}, ours {label}")
    for label, chunks in byte_cuts(sdk_body, 3):
        assert_same([body], chunks, f"{path.name}, SDK {label}")


# --------------------------------------------------------------------------- parity by hand


def test_text_thinking_tools_and_pings_give_the_sdks_message() -> None:
    events = [
        message_start(cache_read_input_tokens=5),
        {"type": "ping"},
        *block(
            0,
            {"type": "thinking", "thinking": "", "signature": ""},
            {"type": "thinking_delta", "thinking": "Let me "},
            {"type": "thinking_delta", "thinking": "think \u2713"},
            {"type": "signature_delta", "signature": "EqQBCgIYAhIM"},
        ),
        stop(0),
        *text_block(1, "I'll write ", "the file \U0001f600."),
        *tool_block(2, ["", '{"path": "a.py", ', '"content": "x = 1\\n"', "}"]),
        stop(2),
        *tool_block(3, ['{"query": "jsonsnap"}'], kind="server_tool_use", name="web_search"),
        stop(3),
        *tool_block(4, []),
        stop(4),
        *finish(input_tokens=12, cache_read_input_tokens=7),
    ]
    for newline in ("\n", "\r\n", "\r"):
        body = render(events, newline=newline, ensure_ascii=False)
        for size in (len(body), 1, 2, 7, 64):
            acc = assert_same(chunks_of(body, size))
    content = acc.message["content"]  # type: ignore[index]
    assert [block["type"] for block in content] == [
        "thinking",
        "text",
        "tool_use",
        "server_tool_use",
        "tool_use",
    ]
    assert content[2]["input"] == {"path": "a.py", "content": "x = 1\n"}
    assert content[4]["input"] == {}


def test_citations_and_redacted_thinking_give_the_sdks_message() -> None:
    citation = {
        "type": "char_location",
        "cited_text": "The sky is blue.",
        "document_index": 0,
        "document_title": "Facts",
        "start_char_index": 0,
        "end_char_index": 16,
    }
    events = [
        message_start(),
        *block(0, {"type": "redacted_thinking", "data": "EmwKAhgB"}),
        stop(0),
        *block(
            1,
            {"type": "text", "text": ""},
            {"type": "citations_delta", "citation": citation},
            {"type": "text_delta", "text": "It is blue."},
            {"type": "citations_delta", "citation": {**citation, "document_index": 1}},
        ),
        stop(1),
        *finish("end_turn"),
    ]
    assert_same([render(events)])


# --------------------------------------------------------------------------- generated streams


def json_objects() -> st.SearchStrategy[dict[str, Any]]:
    """Tool inputs: JSON objects of every JSON type, surrogate-free strings, big integers."""
    scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.floats(allow_nan=False, allow_infinity=False),
        st.text(max_size=12),
    )
    values = st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner),
        max_leaves=10,
    )
    return st.dictionaries(st.text(max_size=8), values, max_size=5)


@st.composite
def pieces_of(draw: st.DrawFn, text: str) -> list[str]:
    """``text`` cut at random places, with empty pieces (as the API's first delta often is)."""
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=12)))
    bounds = [0, *cuts, len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds)]


@st.composite
def tool_json(draw: st.DrawFn) -> str:
    """A tool input as a serializer writes it, in one of its layouts."""
    return json.dumps(
        draw(json_objects()),
        separators=draw(st.sampled_from([None, (",", ":"), (", ", ": "), (" ,\n", " :\t")])),
        ensure_ascii=draw(st.booleans()),
        indent=draw(st.sampled_from([None, None, 2])),
    )


@st.composite
def content_block(draw: st.DrawFn, index: int) -> list[dict[str, Any]]:
    kind = draw(st.sampled_from(["text", "thinking", "tool_use", "server_tool_use"]))
    text_pieces = st.lists(st.text(max_size=10), max_size=4)
    if kind == "text":
        deltas = [{"type": "text_delta", "text": p} for p in draw(text_pieces)]
        return [*block(index, {"type": "text", "text": ""}, *deltas), stop(index)]
    if kind == "thinking":
        deltas = [{"type": "thinking_delta", "thinking": p} for p in draw(text_pieces)]
        signatures = draw(st.lists(st.text("ABCDEFabcdef0123456789+/=", max_size=16), max_size=2))
        deltas += [{"type": "signature_delta", "signature": s} for s in signatures]
        start = {"type": "thinking", "thinking": "", "signature": ""}
        return [*block(index, start, *deltas), stop(index)]
    name = draw(st.sampled_from(["web_search", "web_fetch"] if kind != "tool_use" else ["f", "g"]))
    pieces = draw(pieces_of(draw(tool_json())))
    return [*tool_block(index, pieces, kind=kind, name=name), stop(index)]


@st.composite
def event_streams(draw: st.DrawFn) -> list[dict[str, Any]]:
    """A whole, well-formed stream: start, blocks, pings anywhere, delta, stop."""
    counts = st.integers(0, 100_000)
    usage = {"input_tokens": draw(counts), "output_tokens": draw(counts)}
    if draw(st.booleans()):
        usage["cache_read_input_tokens"] = draw(counts)
    events = [message_start(**usage)]
    for index in range(draw(st.integers(0, 4))):
        events += draw(content_block(index))
    end_usage = {"output_tokens": draw(counts)}
    if draw(st.booleans()):
        end_usage["input_tokens"] = draw(counts)
    reason = draw(st.sampled_from(["end_turn", "tool_use", "max_tokens", "stop_sequence"]))
    delta = {"stop_reason": reason, "stop_sequence": "###" if reason == "stop_sequence" else None}
    events += [
        {"type": "message_delta", "delta": delta, "usage": end_usage},
        {"type": "message_stop"},
    ]
    for at in sorted(draw(st.lists(st.integers(1, len(events) - 1), max_size=3)), reverse=True):
        events.insert(at, {"type": "ping"})
    return events


@st.composite
def sse_bodies(draw: st.DrawFn) -> list[bytes]:
    """A generated stream rendered to SSE bytes (any line end), cut at random byte positions."""
    body = render(
        draw(event_streams()),
        newline=draw(st.sampled_from(["\n", "\r\n", "\r"])),
        ensure_ascii=draw(st.booleans()),
    )
    cuts = draw(strategies.split_points(len(body)))
    bounds = [0, *cuts, len(body)]
    return [body[a:b] for a, b in itertools.pairwise(bounds)]


@settings(max_examples=examples(60, default=30), suppress_health_check=[HealthCheck.too_slow])
@given(sse_bodies())
def test_generated_streams_give_the_sdks_message(chunks: list[bytes]) -> None:
    assert_same(chunks)


def _has_surrogate(value: Any) -> bool:
    if isinstance(value, str):
        return any("\ud800" <= c <= "\udfff" for c in value)
    if isinstance(value, list):
        return any(_has_surrogate(v) for v in value)
    if isinstance(value, dict):
        return any(_has_surrogate(k) or _has_surrogate(v) for k, v in value.items())
    return False


@st.composite
def spelled_inputs(draw: st.DrawFn) -> list[str]:
    """A tool input in the spellings no serializer writes: whitespace everywhere, escapes in
    both cases, surrogate pairs as escapes, ``-0``, ``1E+05``, 400-digit integers... cut into
    pieces. Lone surrogates are left out: the SDK's JSON parser refuses them (a test below)."""
    doc = draw(strategies.json_documents(max_leaves=12))
    text = '{"v":' + doc + "}"
    if _has_surrogate(json.loads(text)):
        reject()
    return draw(pieces_of(text))


@settings(max_examples=examples(60), suppress_health_check=[HealthCheck.too_slow])
@given(spelled_inputs())
def test_every_json_spelling_gives_the_sdks_input(pieces: list[str]) -> None:
    body = render(tool_stream(pieces))
    acc = assert_same(chunks_of(body, 97))
    assert acc.tools[1].final() == json.loads("".join(pieces))


# --------------------------------------------------------------------------- SDK event objects


RICH_STREAM = [
    message_start(),
    {"type": "ping"},
    *block(
        0,
        {"type": "thinking", "thinking": "", "signature": ""},
        {"type": "thinking_delta", "thinking": "Hmm."},
        {"type": "signature_delta", "signature": "c2ln"},
    ),
    stop(0),
    *text_block(1, "Sure, ", "writing it."),
    *tool_block(2, ['{"path": "a', '.py", "lines": [1, 2.5, null, true]}']),
    stop(2),
    *finish(),
]


def test_feed_takes_the_sdks_event_objects() -> None:
    """Feeding what ``create(stream=True)`` yields gives the message the decoded dicts give."""
    body = render(RICH_STREAM)
    acc = MessageAccumulator()
    objects = sdk_events(chunks_of(body, 5))
    assert objects and all(not isinstance(event, dict) for event in objects)
    for event in objects:
        acc.feed(event)
    assert acc.done and acc.tools[2].final() == {"path": "a.py", "lines": [1, 2.5, None, True]}
    expected = accumulate([body]).message
    extra = sorted(set(_leaves(acc.message)) - set(_leaves(expected)))
    assert acc.message == expected, f"only from the SDK's objects: {extra}"


def _leaves(value: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """``(path, repr(value))`` for every leaf of nested dicts and lists."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, f"{path}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _leaves(item, f"{path}[{i}]")
    else:
        yield path, repr(value)


def test_feed_takes_the_sdks_event_objects_as_to_dict() -> None:
    """The SDK's own ``to_dict()`` (fields the wire set) of its objects, fed, gives the same
    message as the decoded dicts: what :meth:`MessageAccumulator.feed` would need to call."""
    body = render(RICH_STREAM)
    acc = MessageAccumulator()
    for event in sdk_events([body]):
        acc.feed(event.to_dict())
    assert acc.message == accumulate([body]).message


# --------------------------------------------------------------------------- deliberate differences
# Each test shows what we build and what the SDK builds from the same bytes.


def test_max_tokens_inside_a_tool_string() -> None:
    """We keep the unfinished string and mark the tool incomplete; the SDK drops the whole
    member whose string was cut (jiter's ``partial_mode=True``, not ``"trailing-strings"``), and
    its block has no way to say that the input is unfinished."""
    events = [
        message_start(),
        *tool_block(0, ['{"path": "a.py", "content": "line 1\\nli']),
        *finish("max_tokens"),
    ]
    chunks = [render(events)]
    acc = accumulate(chunks)
    ours, sdk = our_dict(acc), sdk_dict(chunks)
    assert ours["content"][0]["input"] == {"path": "a.py", "content": "line 1\nli"}
    assert sdk["content"][0]["input"] == {"path": "a.py"}
    assert not acc.tools[0].complete and acc.tools[0].error is None
    with pytest.raises(ToolInputError, match="cut off"):  # the block never stopped
        acc.tools[0].final()
    # Everything else agrees.
    ours["content"][0]["input"] = sdk["content"][0]["input"]
    assert ours == sdk


def test_max_tokens_after_a_number() -> None:
    """A number cut at the end may have had more digits (``12`` of ``125`` or ``12.5``): we leave
    it out of the snapshot; the SDK shows ``12``."""
    events = [
        message_start(),
        *tool_block(0, ['{"path": "a.py", "retries": 12']),
        *finish("max_tokens"),
    ]
    chunks = [render(events)]
    acc = accumulate(chunks)
    assert our_dict(acc)["content"][0]["input"] == {"path": "a.py"}
    assert sdk_dict(chunks)["content"][0]["input"] == {"path": "a.py", "retries": 12}
    assert not acc.tools[0].complete


@pytest.mark.parametrize(
    ("pieces", "position", "ours", "sdk"),
    [
        (['{"path": "a.py"', ' "content": "x"}'], 16, {"path": "a.py"}, {"path": "a.py"}),
        (['{"n": 1', " 2}"], 8, {"n": 1}, {"n": 1}),
        (['{"n": [1, 2}'], 11, {"n": [1]}, {"n": [1, 2]}),
        (['{"n": 1}', ' {"m": 2}'], None, {"n": 1}, {"n": 1}),
    ],
    ids=["missing comma", "two numbers", "wrong bracket", "glued values"],
)
def test_invalid_tool_json_the_sdk_truncates_silently(
    pieces: list[str], position: int | None, ours: dict[str, Any], sdk: dict[str, Any]
) -> None:
    """Where a comma or a closing bracket should be, anything else ends the input for the SDK:
    it returns what came before as if it were the whole input, with no error. We report the
    error at its position and keep the last good snapshot (which leaves out a number that only
    the offending character ended: ``2`` in ``[1, 2}``). Two values glued together are not an
    error at the second: they are reported as what they are."""
    chunks = [render(tool_stream(pieces))]
    acc = accumulate(chunks)
    tool = acc.tools[1]
    if position is None:
        assert tool.error is None and tool.glued and tool.values == [{"n": 1}, {"m": 2}]
    else:
        assert tool.error is not None and tool.error.pos == position
    assert not tool.complete
    with pytest.raises(ToolInputError, match="invalid input JSON" if position else "glued"):
        tool.final()
    got_ours, got_sdk = our_dict(acc), sdk_dict(chunks)
    assert got_ours["content"][1]["input"] == ours
    assert got_sdk["content"][1]["input"] == sdk
    got_ours["content"][1]["input"] = sdk
    assert got_ours == got_sdk  # and nothing else differs: the SDK shows no sign of trouble


def test_invalid_tool_json_the_sdk_raises_and_loses_the_stream() -> None:
    """A value that cannot start (an unquoted string): the SDK raises ``ValueError`` from
    ``get_final_message()``, and what came after is never read. We mark the tool with the
    error's position and read the stream to its end."""
    events = [
        message_start(),
        *tool_block(0, ['{"path": ', "a.py}"]),
        stop(0),
        *text_block(1, "after"),
        *finish(),
    ]
    chunks = [render(events)]
    with pytest.raises(ValueError, match="Unable to parse tool parameter JSON") as caught:
        sdk_message(chunks)
    assert "expected value at line 1 column 10" in str(caught.value)
    acc = accumulate(chunks)
    assert acc.done
    tool = acc.tools[0]
    assert tool.error is not None and tool.error.pos == 9
    assert acc.message["content"][0]["input"] == {}  # type: ignore[index]
    assert acc.message["content"][1]["text"] == "after"  # type: ignore[index]


def test_tool_block_closed_on_unfinished_json() -> None:
    """A block that stops with its JSON unfinished (``stop_reason`` ``tool_use``): the SDK gives
    the partial parse as the input, fit to run by every sign it shows, and drops the member
    whose string was cut. We keep that string in the snapshot, mark the input ``incomplete``
    and refuse ``final()``."""
    chunks = [render(tool_stream(['{"path": "a.py", "content": "x']))]
    assert sdk_dict(chunks)["content"][1]["input"] == {"path": "a.py"}
    acc = accumulate(chunks)
    tool = acc.tools[1]
    assert (tool.status, tool.error) == ("incomplete", None)
    assert acc.message["content"][1]["input"] == {"path": "a.py", "content": "x"}  # type: ignore[index]
    with pytest.raises(ToolInputError, match="cut off"):
        tool.final()


def fixture_body(name: str) -> bytes:
    """The recorded stream ``name``; a missing one fails the test (FileNotFoundError)."""
    return (FIXTURES / f"{name}.sse").read_bytes()


def test_fixture_cut_at_max_tokens_inside_a_tool_string() -> None:
    """The recorded stream cut inside ``content``: the SDK's input has only ``path``."""
    chunks = [fixture_body("max_tokens_in_tool_string")]
    acc = accumulate(chunks)
    ours, sdk = our_dict(acc), sdk_dict(chunks)
    assert ours["stop_reason"] == sdk["stop_reason"] == "max_tokens"
    assert sdk["content"][1]["input"] == {"path": "report/summary.py"}
    assert ours["content"][1]["input"]["content"].startswith('"""Monthly summary."""\n')
    assert acc.tools[1].status != "complete"
    ours["content"][1]["input"] = sdk["content"][1]["input"]
    assert ours == sdk


def test_fixture_invalid_tool_json_the_sdk_does_not_notice() -> None:
    """The recorded stream with an unescaped quote in one tool's input and a stray ``}`` after
    another's: the SDK returns the same dicts as our snapshots, with no error anywhere; we
    report both errors with their positions."""
    chunks = [fixture_body("invalid_tool_json")]
    acc = accumulate(chunks)
    assert sdk_dict(chunks) == our_dict(acc)
    errors = {i: (t.error.msg, t.error.pos) for i, t in acc.tools.items() if t.error is not None}
    assert errors == {1: ("Expecting ',' delimiter", 23), 3: ("Extra data", 25)}
    assert acc.tools[2].complete


def test_fixture_error_event_both_raise() -> None:
    """An ``error`` event mid-stream: both raise, the SDK an ``APIStatusError`` carrying the
    body, we a ``StreamError`` with the error's type and message."""
    chunks = [fixture_body("error_mid_stream")]
    with pytest.raises(anthropic.APIStatusError) as sdk_error:
        sdk_message(chunks)
    assert sdk_error.value.body == {
        "type": "error",
        "error": {"type": "overloaded_error", "message": "Overloaded"},
    }
    with pytest.raises(StreamError) as our_error:
        accumulate(chunks)
    assert (our_error.value.error_type, our_error.value.message) == (
        "overloaded_error",
        "Overloaded",
    )


def test_leading_bom() -> None:
    """The SDK's decoder keeps U+FEFF in the first line, so the first field is named
    ``\\ufeffevent`` and ignored; an event without a type is skipped: ``message_start`` is lost.
    The message stream then passes every later event through without accumulating, and
    ``get_final_message()`` fails on a bare ``assert``. We drop the BOM, as the standard says."""
    events = tool_stream(['{"path": "a.py"}'])
    plain = render(events)
    chunks = chunks_of(b"\xef\xbb\xbf" + plain, 2)  # the BOM split across chunks, too
    with pytest.raises(AssertionError):
        sdk_message(chunks)
    sdk_types = [event.type for event in sdk_events(chunks)]
    assert sdk_types[0] == "content_block_start" and "message_start" not in sdk_types
    assert len(sdk_types) == len(events) - 1
    assert our_dict(accumulate(chunks)) == sdk_dict([plain])


def test_mcp_tool_use_input_is_lost_by_the_sdk() -> None:
    """The SDK has no model for ``mcp_tool_use`` in a Message: the block is built as a
    ``ParsedTextBlock`` carrying ``type="mcp_tool_use"``, which is not a tool block to it, so its
    ``input_json_delta`` events are ignored and the input stays ``{}``."""
    events = [
        message_start(),
        *tool_block(0, ['{"query": ', '"jsonsnap"}'], kind="mcp_tool_use", name="search"),
        stop(0),
        *finish(),
    ]
    chunks = [render(events)]
    message = sdk_message(chunks)
    assert type(message.content[0]).__name__ == "ParsedTextBlock"
    sdk = normalised(message.model_dump(exclude_unset=True, warnings=False))
    acc = accumulate(chunks)
    assert sdk["content"][0]["input"] == {}
    assert our_dict(acc)["content"][0]["input"] == {"query": "jsonsnap"}
    assert acc.tools[0].final() == {"query": "jsonsnap"}


def test_unknown_block_type_kept_by_both() -> None:
    """An unknown block type: both keep it as it came. The SDK builds it as a
    ``ParsedTextBlock`` (whose ``type`` is then not ``"text"``), so dumping it warns."""
    events = [
        message_start(),
        *block(0, {"type": "future_block", "foo": [1]}, {"type": "future_delta", "x": 1}),
        stop(0),
        *text_block(1, "ok"),
        *finish("end_turn"),
    ]
    chunks = [render(events)]
    message = sdk_message(chunks)
    assert type(message.content[0]).__name__ == "ParsedTextBlock"
    with pytest.warns(UserWarning, match="PydanticSerializationUnexpectedValue"):
        message.model_dump(exclude_unset=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sdk = normalised(message.model_dump(exclude_unset=True))
    assert our_dict(accumulate(chunks)) == sdk


def test_lone_surrogate_escape_in_tool_input() -> None:
    """``"\\ud800"`` is valid JSON text (RFC 8259's grammar; ``json.loads`` takes it): the SDK's
    parser (jiter) refuses it and ``get_final_message()`` raises; we decode it as ``json.loads``
    does."""
    pieces = ['{"a": "x\\ud800', 'y"}']
    chunks = [render(tool_stream(pieces))]
    with pytest.raises(ValueError, match="Unable to parse tool parameter JSON"):
        sdk_message(chunks)
    acc = accumulate(chunks)
    assert acc.tools[1].final() == json.loads("".join(pieces)) == {"a": "x\ud800y"}


def test_whitespace_first_delta() -> None:
    """JSON may start with whitespace: a first delta of ``" "`` makes the SDK raise (it parses
    every prefix and an all-blank one is "EOF while parsing a value"); we wait for the value."""
    chunks = [render(tool_stream([" ", '{"a": 1}']))]
    with pytest.raises(ValueError, match="EOF while parsing a value"):
        sdk_message(chunks)
    assert accumulate(chunks).tools[1].final() == {"a": 1}


def test_stream_without_event_lines() -> None:
    """``data:`` lines only (the type is in the JSON): the SDK skips every event that has no
    ``event:`` field, so it sees nothing and fails on its bare ``assert``; we read the types
    from the data."""
    events = tool_stream(['{"path": "a.py"}'])
    chunks = [render(events, event_lines=False)]
    with pytest.raises(AssertionError):
        sdk_message(chunks)
    assert sdk_events(chunks) == []
    assert our_dict(accumulate(chunks)) == sdk_dict([render(events)])


def test_invalid_utf8_in_the_stream() -> None:
    """A byte that is not UTF-8: the SDK's decoder raises ``UnicodeDecodeError``; we put U+FFFD
    in its place, as the standard's UTF-8 decode does."""
    body = render([message_start(), *text_block(0, "Hi"), *finish("end_turn")])
    body = body.replace(b'"Hi"', b'"H\xffi"')
    with pytest.raises(UnicodeDecodeError):
        sdk_message([body])
    assert accumulate([body]).message["content"][0]["text"] == "H\ufffdi"  # type: ignore[index]


def test_message_delta_usage_the_sdk_does_not_know() -> None:
    """``message_delta`` usage counts are copied by name in the SDK: one it does not know is
    dropped; we keep every count the delta carries."""
    events = [message_start(), *text_block(0, "Hi"), *finish("end_turn", future_tokens=9)]
    chunks = [render(events)]
    ours, sdk = our_dict(accumulate(chunks)), sdk_dict(chunks)
    assert ours["usage"] == {"input_tokens": 12, "output_tokens": 40, "future_tokens": 9}
    assert sdk["usage"] == {"input_tokens": 12, "output_tokens": 40}
    ours["usage"] = sdk["usage"]
    assert ours == sdk
