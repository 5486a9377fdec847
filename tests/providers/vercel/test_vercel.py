"""The Vercel AI SDK UI message stream: the encoder, the decoder, their fixtures and hostile input.

- ``fixtures/vercel/*.sse`` replayed every way (whole, 1, 3, 7, 64 bytes, random splits, as
  text) through :class:`UIMessageAccumulator` must end as ``X.json`` says; the ``from_*``
  streams must be what the encoder makes of their recordings today;
- every provider recording, encoded and decoded again, must give the message the encoder
  meant: the text and reasoning as the provider sent them, each tool call with its id, name,
  final input or error, and the same raw JSON text;
- the encoder's framing, JSON (deep values, lone surrogates), finish reasons, deferred tool
  starts, several choices, error endings, and its async twin;
- ``jsonsnap replay`` detects and plays a UI message stream in a pipe;
- hostile chunks (the helpers of test_stream_errors.py): only StreamError escapes, a rejected
  chunk changes nothing, memory stays proportional to the input.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
from pathlib import Path
from typing import Any, Final

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from astral import ASTRAL, ASTRAL_TEXTS, code_units
from chunking import chunkings, random_splits
from effort import examples
from hostile_events import DEEP, INDEX, TEXT, VALUE, check, deep, typed
from jsonsnap import __main__ as cli
from jsonsnap import vercel
from jsonsnap.anthropic import MessageAccumulator
from jsonsnap.openai import ChatCompletionAccumulator
from jsonsnap.sse import SSEDecoder
from jsonsnap.streams import PROTOCOLS, StreamError, ToolInput, ToolInputError, Update
from jsonsnap.vercel import UIMessageAccumulator, UIMessageEncoder
from recordings import (
    ROOT,
    accumulator,
    all_fixtures,
    assert_same_json,
    cut,
    error_state,
    tool_state,
    ways,
)
from ui_streams import (
    UI_START,
    call_id_expected,
    message_id_expected,
    raw_input_expected,
    text_held,
    tool_stream,
    ui_pieces,
)

FIXTURES: Final = ROOT / "vercel"
NAMES: Final = sorted(p.stem for p in FIXTURES.glob("*.sse"))
WAYS: Final = ways(random_rounds=3, text_rounds=1)


def encode(protocol: str, path: Path) -> str:
    """A recording read by its accumulator and encoded as a UI message stream."""
    acc = accumulator(protocol, path)
    return "".join(vercel.ui_message_stream(acc.updates(path.read_bytes()), accumulator=acc))


def source_of(name: str) -> tuple[str, Path]:
    """The protocol and the recording a ``from_<folder>_<stem>`` fixture was encoded from."""
    folder, _, stem = name.removeprefix("from_").partition("_")
    protocol = "anthropic" if folder == "anthropic" else stem.partition("_")[0]
    return protocol, ROOT / folder / f"{stem}.sse"


def replay(chunks: Any) -> dict[str, Any]:
    """The end state of a UI message stream, in the shape of the expected files."""
    acc = UIMessageAccumulator()
    error = None
    try:
        for _ in acc.updates(chunks):
            pass
    except StreamError as exc:
        error = error_state(exc)
    tools = {str(place): tool_state(tool) for place, tool in acc.tools.items()}
    return {
        "message": acc.message,
        "done": acc.done,
        "error": error,
        "finish_reason": acc.finish_reason,
        "tools": tools,
    }


def expected(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))
    return loaded


# --------------------------------------------------------------------------- the fixtures


def test_every_fixture_has_its_expected_file_and_a_line_in_the_readme() -> None:
    assert {p.stem for p in FIXTURES.glob("*.json")} == set(NAMES)
    readme = (FIXTURES / "README.md").read_text(encoding="utf-8")
    for name in NAMES:
        assert f"`{name}.sse`" in readme, name
    assert "*.sse -text" in (FIXTURES / ".gitattributes").read_text(encoding="utf-8")


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize("name", NAMES)
def test_replay_gives_the_expected_message(name: str, way: str) -> None:
    got = replay(cut((FIXTURES / f"{name}.sse").read_bytes(), way))
    assert_same_json(expected(name), got, f"{name} ({way})")


@pytest.mark.parametrize("name", [n for n in NAMES if n.startswith("from_")])
def test_encoded_fixtures_are_what_the_encoder_makes(name: str) -> None:
    protocol, path = source_of(name)
    assert encode(protocol, path) == (FIXTURES / f"{name}.sse").read_text(encoding="utf-8")


# --------------------------------------------------------------------------- round trips


@pytest.mark.parametrize(("protocol", "path"), all_fixtures(), ids=lambda v: getattr(v, "name", v))
def test_every_recording_round_trips(protocol: str, path: Path) -> None:
    """Encoded, then decoded: the text and reasoning are the provider's, in order; each call
    has its id, name and final input (or its error, and the raw text); the raw JSON text of
    every call is the provider's, byte for byte; the message id and finish reason are the
    result's. Where a protocol gives no id, or a call's text is not one JSON value, what the
    encoder makes up or the client holds instead is what ``ui_streams`` says."""
    acc: Any = accumulator(protocol, path)
    texts = {False: "", True: ""}
    error: StreamError | None = None
    try:
        for update in acc.updates(path.read_bytes()):
            if update.text and (protocol != "chat" or update.index == 0):
                texts[update.thinking] += update.text
    except StreamError as exc:
        error = exc
    body = encode(protocol, path)
    dec = UIMessageAccumulator()
    try:
        dec.read(body)
    except StreamError as exc:
        assert error is not None and exc.message == str(error)
    else:
        assert error is None
    message = dec.message
    assert message is not None and message_id_expected(protocol, acc.result, message["id"])
    parts = message["parts"]
    sent = acc.tools if protocol != "chat" else dict(enumerate(acc.tool_calls(0)))
    if any(texts.values()) or sent:
        assert parts[0] == {"type": "step-start"}
    else:  # (a message with no content has no parts: a prompt the provider blocked)
        assert parts == []
    got = {False: "", True: ""}
    for part in parts:
        if part["type"] in ("text", "reasoning"):
            got[part["type"] == "reasoning"] += part["text"]
            assert part["state"] == "done"
    assert got == texts
    calls = [p for p in parts if p["type"].startswith("tool-")]
    assert len(calls) == len(sent) == len(dec.tools)
    deltas: dict[str, str] = {}  # each call's inputTextDelta, joined: the text it was sent
    for chunk in chunks_of(body):
        if isinstance(chunk, dict) and chunk["type"] == "tool-input-delta":
            deltas[chunk["toolCallId"]] = (
                deltas.get(chunk["toolCallId"], "") + chunk["inputTextDelta"]
            )
    ends = zip(sorted(sent.items()), calls, dec.tool_calls(), strict=True)
    for n, ((_, tool), part, back) in enumerate(ends, 1):
        call_id = call_id_expected(protocol, tool, n)
        assert call_id is not None  # (the stream needs one)
        assert part["type"] == f"tool-{tool.name}" and part["toolCallId"] == call_id
        assert back.raw == text_held(protocol, tool) and back.id == call_id
        assert deltas.get(call_id, "") == tool.raw  # the provider's text, all of it, as it came
        if tool.complete:
            assert part["state"] == "input-available" and back.complete
            assert_same_json(tool.final(), part["input"], path.name)
            assert_same_json(tool.final(), back.final(), path.name)
        else:
            assert part["state"] == "output-error"
            assert part["rawInput"] == raw_input_expected(tool)
            assert not back.complete and part["errorText"]
    assert dec.finish_reason == (None if error else vercel.finish_reason_of(acc.result))
    assert dec.done == (error is None)  # the decoder stops at the error chunk


# --------------------------------------------------------------------------- the encoder


def chunks_of(body: str) -> list[Any]:
    events = SSEDecoder().feed(body)
    return [e.data if e.data == "[DONE]" else json.loads(e.data) for e in events]


def test_headers_and_framing() -> None:
    assert vercel.HEADERS["x-vercel-ai-ui-message-stream"] == "v1"
    assert vercel.HEADERS["content-type"] == "text/event-stream"
    assert "connection" not in vercel.HEADERS  # hop-by-hop: refused by WSGI servers
    body = list(vercel.ui_message_stream([], message_id="m1"))
    assert body[-1] == vercel.DONE == "data: [DONE]\n\n"
    assert all(e.startswith("data: ") and e.endswith("\n\n") and e.count("\n") == 2 for e in body)
    assert chunks_of("".join(body)) == [
        {"type": "start", "messageId": "m1"},
        {"type": "start-step"},
        {"type": "finish-step"},
        {"type": "finish"},
        "[DONE]",
    ]


def test_dump_is_json_without_recursion_and_valid_utf8() -> None:
    value = {"a": [1, 2.5, -0.0, 1e300, True, None, 'x\n"\\\u2028é😀'], "": {}}
    assert json.loads(vercel.dump(value)) == value
    assert vercel.dump(value) == json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    deep_text = vercel.dump(deep(100_000))
    assert deep_text == "[" * 100_001 + "]" * 100_001
    lone = vercel.dump("\ud83d then \ude00")
    assert lone == '"\\ud83d then \\ude00"' and lone.encode("utf-8")
    # What JSON cannot say: an infinity as the text json.loads reads back as it, NaN as null.
    nonfinite = [float("inf"), float("-inf"), float("nan")]
    assert vercel.dump(nonfinite) == "[1e400,-1e400,null]"
    assert json.loads(vercel.dump(nonfinite))[:2] == nonfinite[:2]
    with pytest.raises(TypeError):
        vercel.dump({1: 2})
    with pytest.raises(TypeError):
        vercel.dump(object())


@pytest.mark.parametrize(
    ("result", "reason"),
    [
        ({"stop_reason": "end_turn"}, "stop"),
        ({"stop_reason": "tool_use"}, "tool-calls"),
        ({"stop_reason": "max_tokens"}, "length"),
        ({"stop_reason": "pause_turn"}, "other"),
        ({"stop_reason": None}, None),
        ({"choices": [{"finish_reason": "tool_calls"}]}, "tool-calls"),
        ({"choices": [{"finish_reason": "content_filter"}]}, "content-filter"),
        ({"choices": []}, None),
        ({"status": "completed", "output": [{"type": "function_call"}]}, "tool-calls"),
        ({"status": "completed", "output": [{"type": "message"}]}, "stop"),
        ({"status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}}, "length"),
        ({"status": "failed"}, "error"),
        ({"stopReason": "guardrail_intervened"}, "content-filter"),
        ({"candidates": [{"finishReason": "MAX_TOKENS"}]}, "length"),
        (None, None),
    ],
)
def test_finish_reason_of(result: Any, reason: str | None) -> None:
    assert vercel.finish_reason_of(result) == reason


def test_a_call_starts_once_its_name_is_known() -> None:
    """A Chat Completions call whose first delta has only an id waits for its name; a call
    with no id gets one of ours; text after a call is a new part."""
    acc = ChatCompletionAccumulator()
    encoder = UIMessageEncoder(message_id="m")
    deltas: list[dict[str, Any]] = [
        {"content": "Hi"},
        {"tool_calls": [{"index": 0, "type": "function"}]},
        {"tool_calls": [{"index": 0, "function": {"name": "f", "arguments": '{"a"'}}]},
        {"tool_calls": [{"index": 0, "function": {"arguments": ": 1}"}}]},
        {"content": " again"},
    ]
    out: list[dict[str, Any]] = []
    for delta in deltas:
        for update in acc.feed({"choices": [{"index": 0, "delta": delta}]}):
            out += encoder.encode(update)
    for update in acc.feed({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}):
        out += encoder.encode(update)
    out += encoder.finish("stop")
    kinds = [c["type"] for c in out]
    assert kinds == [
        "start", "start-step", "text-start", "text-delta", "text-end", "tool-input-start",
        "tool-input-delta", "tool-input-delta", "text-start", "text-delta",
        "tool-input-available", "text-end", "finish-step", "finish",
    ]  # fmt: skip
    start = out[5]
    assert start == {"type": "tool-input-start", "toolCallId": "call-1", "toolName": "f"}
    assert out[10]["input"] == {"a": 1} and out[-1]["finishReason"] == "stop"
    assert out[2]["id"] != out[8]["id"]
    with pytest.raises(ValueError, match="ended"):
        encoder.encode(Update("x"))
    with pytest.raises(ValueError, match="not one of"):
        UIMessageEncoder().finish("end_turn")


def test_a_stream_error_ends_the_body_with_an_error_chunk() -> None:
    path = ROOT / "anthropic" / "error_mid_stream.sse"
    acc = PROTOCOLS["anthropic"]()
    body = "".join(
        vercel.ui_message_stream(
            acc.updates(path.read_bytes()), accumulator=acc, on_error=lambda e: "hidden"
        )
    )
    chunks = chunks_of(body)
    assert [c if c == "[DONE]" else c["type"] for c in chunks[-5:]] == [
        "tool-input-error", "error", "finish-step", "finish", "[DONE]",
    ]  # fmt: skip
    assert chunks[-4] == {"type": "error", "errorText": "hidden"}
    assert chunks[-2] == {"type": "finish", "finishReason": "error"}
    assert "failed before" in chunks[-5]["errorText"]


def test_a_value_that_breaks_its_schema_is_sent_as_a_value() -> None:
    path = ROOT / "anthropic" / "schema_tool_enum.sse"
    request = ROOT / "anthropic" / "schemas" / "schema_tool_enum.request.json"
    acc = PROTOCOLS["anthropic"](tools=json.loads(request.read_text(encoding="utf-8"))["tools"])
    chunks = chunks_of("".join(vercel.ui_message_stream(acc.updates(path.read_bytes()))))
    errors = [c for c in chunks if c != "[DONE]" and c["type"] == "tool-input-error"]
    assert len(errors) == 1 and errors[0]["input"]["unit"] == "kelvin"
    assert "breaks its schema" in errors[0]["errorText"]


def test_only_the_first_choice_of_several() -> None:
    path = ROOT / "openai" / "chat_schema_structured.sse"
    dec = UIMessageAccumulator().read(encode("chat", path))
    acc = ChatCompletionAccumulator().read(path.read_bytes())
    texts = [p["text"] for p in dec.message["parts"] if p["type"] == "text"]  # type: ignore[index]
    assert texts == [acc.completion["choices"][0]["message"]["content"]]


def test_the_first_choice_s_legacy_function_call() -> None:
    """Of several choices, the first one's ``function_call`` (the legacy API) goes in; the
    other's does not."""
    calls: list[Any] = [
        [{"function_call": {"name": "f", "arguments": '{"a":'}}, {"content": "B"}],
        [
            {"function_call": {"arguments": "1}"}},
            {"function_call": {"name": "g", "arguments": "{}"}},
        ],
        [{}, {}],
    ]
    acc = ChatCompletionAccumulator()
    chunks: list[dict[str, Any]] = [
        {"id": "c", "choices": [{"index": n, "delta": delta} for n, delta in enumerate(pair)]}
        for pair in calls
    ]
    chunks[-1]["choices"][0]["finish_reason"] = "function_call"
    chunks[-1]["choices"][1]["finish_reason"] = "stop"
    updates = (u for chunk in chunks for u in acc.feed(chunk))
    body = "".join(vercel.ui_message_stream(updates, accumulator=acc))
    parts = UIMessageAccumulator().read(body).message["parts"]  # type: ignore[index]
    assert [p["type"] for p in parts] == ["step-start", "tool-f"] and parts[1]["input"] == {"a": 1}


def test_the_async_twin_gives_the_same_body() -> None:
    path = ROOT / "openai" / "responses_function_call.sse"

    async def collect() -> str:
        acc = PROTOCOLS["responses"]()
        parts = [p async for p in vercel.aui_message_stream(acc.aupdates(path.read_bytes()),
                                                              accumulator=acc)]  # fmt: skip
        return "".join(parts)

    assert asyncio.run(collect()) == encode("responses", path)


# --------------------------------------------------------------------------- the decoder


def test_replay_detects_and_plays_a_ui_message_stream(capsys: pytest.CaptureFixture[str]) -> None:
    path = FIXTURES / "from_anthropic_text_then_write_file.sse"
    assert cli.main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert "╭─ write_file" in out and "✓ final: strictly parsed" in out
    assert cli.main(["replay", str(path), "--json"]) == 0
    assert_same_json(expected(path.stem)["message"], json.loads(capsys.readouterr().out), path.name)
    assert cli.main(["replay", str(FIXTURES / "error_chunk.sse")]) == 1
    assert "Overloaded: try again later" in capsys.readouterr().err


def test_detection() -> None:
    assert UIMessageAccumulator.looks_like({"type": "text-delta"})
    assert UIMessageAccumulator.looks_like({"type": "data-weather"})
    assert not UIMessageAccumulator.looks_like({"type": "error"})  # several protocols' own
    assert not UIMessageAccumulator.looks_like({"type": "message_start"})
    assert PROTOCOLS["ui-message"] is UIMessageAccumulator


def test_a_server_refusal_makes_a_whole_input_unfit() -> None:
    acc = UIMessageAccumulator().read(FIXTURES.joinpath("tool_outputs.sse").read_bytes())
    refused = acc.tools[4]
    assert refused.raw and refused.error is None and refused.status == "invalid"
    with pytest.raises(ToolInputError, match="party_size: expected a number"):
        refused.final()
    assert acc.tools[6].final() == {"zone": "America/Toronto"}  # sent whole, never streamed


@pytest.mark.parametrize(
    ("chunks", "message"),
    [
        ([{"type": "text-delta", "id": "x", "delta": "a"}], "text part 'x', which is not open"),
        ([{"type": "text-start", "id": 1}], "the part id is 1, not a string"),
        ([{"type": "tool-input-delta", "toolCallId": "c", "inputTextDelta": "{"}], "not started"),
        ([{"type": "tool-output-available", "toolCallId": "c"}], "which has no input"),
        (
            [
                {"type": "tool-input-start", "toolCallId": "c", "toolName": "f"},
                {"type": "tool-input-start", "toolCallId": "c", "toolName": "f"},
            ],
            "a second tool-input-start",
        ),
        (
            [
                {"type": "tool-input-available", "toolCallId": "c", "toolName": "f", "input": {}},
                {"type": "tool-input-available", "toolCallId": "c", "toolName": "f", "input": {}},
            ],
            "whose input has ended",
        ),
        (
            [{"type": "start", "messageId": "a"}, {"type": "start", "messageId": "b"}],
            "a start for message 'b' in message 'a'",
        ),
        (["[DONE]", {"type": "start"}], "start after the end of the stream"),
        (["[DONE]", "[DONE]"], "a second [DONE]"),
        ([{"type": "text-start", "id": "t", "providerMetadata": {"a": 1}}], "not an object"),
        ([{"type": "error", "errorText": "boom"}], "error: boom"),
    ],
)
def test_what_the_client_would_throw_on_is_a_stream_error(chunks: list[Any], message: str) -> None:
    acc = UIMessageAccumulator()
    with pytest.raises(StreamError, match=message.replace("[", r"\[")):
        for chunk in chunks:
            acc.feed(chunk)


# --------------------------------------------------------------------------- hostile input

ID = st.sampled_from(["a", "b", "c1"])
UI_CHUNKS = st.one_of(
    typed(
        [*sorted(vercel.CHUNK_TYPES), "data-x"],
        {
            "id": st.one_of(ID, TEXT),
            "delta": TEXT,
            "toolCallId": ID,
            "toolName": TEXT,
            "inputTextDelta": st.sampled_from(['{"a": ', "1}", "", "x", ' "b"', '"\\u001b]52']),
            "input": VALUE,
            "output": VALUE,
            "errorText": TEXT,
            "dynamic": st.booleans(),
            "providerExecuted": st.booleans(),
            "preliminary": st.booleans(),
            "transient": st.booleans(),
            "providerMetadata": st.one_of(st.just({"p": {"k": 1}}), VALUE),
            "messageId": st.one_of(ID, INDEX),
            "messageMetadata": st.one_of(st.just({"u": {"n": 1}}), VALUE),
            "finishReason": st.sampled_from(["stop", "tool-calls"]),
            "data": VALUE,
            "url": TEXT,
            "sourceId": TEXT,
            "mediaType": TEXT,
            "title": TEXT,
        },
    ),
    st.just("[DONE]"),
)


@settings(max_examples=examples(150, default=60), suppress_health_check=[HealthCheck.too_slow])
@given(events=st.lists(UI_CHUNKS, max_size=10), started=st.booleans())
@example(
    events=[
        {
            "type": "tool-input-error",
            "toolCallId": "a",
            "toolName": "f",
            "errorText": "x",
            "input": float("inf"),
        },
        {"type": "data-x", "id": "a", "data": 1},
        {"type": "data-x", "id": "a"},
    ],
    started=True,
)
def test_hostile_chunks(events: list[Any], started: bool) -> None:
    check(UIMessageAccumulator, UI_START if started else None, events)


@pytest.mark.parametrize(
    "events",
    [
        [
            {"type": "tool-input-start", "toolCallId": "a", "toolName": "f"},
            {"type": "tool-input-delta", "toolCallId": "a", "inputTextDelta": '{"a": '},
            {"type": "tool-input-available", "toolCallId": "a", "toolName": "f", "input": DEEP},
            {"type": "tool-input-delta", "toolCallId": "a", "inputTextDelta": "1}"},
        ],
        [
            {"type": "message-metadata", "messageMetadata": {"u": {"n": 1}}},
            {"type": "finish", "messageMetadata": {"u": {"n": DEEP}, "__proto__": 1}},
        ],
        [
            {"type": "data-x", "id": "a", "data": DEEP},
            {
                "type": "tool-input-error",
                "toolCallId": "b",
                "toolName": "f",
                "errorText": "x",
                "input": DEEP,
            },
        ],
    ],
    ids=["deep input", "deep metadata", "deep data and error input"],
)
def test_data_deeper_than_the_recursion_limit(events: list[Any]) -> None:
    """(Outside hypothesis, which would print the examples with recursion.)"""
    check(UIMessageAccumulator, UI_START, events)


def test_an_input_the_server_refused_is_not_fit_to_run() -> None:
    """Whole JSON that the server refused (``tool-input-error``): invalid, and ``final()``
    says the server's reason."""
    acc = UIMessageAccumulator()
    for chunk in (
        UI_START,
        {"type": "tool-input-start", "toolCallId": "a", "toolName": "f"},
        {"type": "tool-input-delta", "toolCallId": "a", "inputTextDelta": '{"n": 1}'},
        {
            "type": "tool-input-error",
            "toolCallId": "a",
            "toolName": "f",
            "input": {"n": 1},
            "errorText": "n must be 2",
        },
    ):
        acc.feed(chunk)
    (tool,) = acc.tool_calls()
    assert tool.status == "invalid" and tool.error is None and tool.snapshot == {"n": 1}
    with pytest.raises(ToolInputError, match=r"'f' \(\d+\) input was refused: the server "
                       r"refused it: n must be 2"):  # fmt: skip
        tool.final()


# --------------------------------------------------------------------------- at the edges


def strict_chunks(body: str) -> list[Any]:
    """The chunks of a body, each read as strict JSON (no NaN, no Infinity), from UTF-8."""

    def refuse(name: str) -> Any:
        raise AssertionError(f"{name} is not JSON")

    events = SSEDecoder().feed(body.encode("utf-8"))
    return [e.data if e.data == "[DONE]" else json.loads(e.data, parse_constant=refuse)
            for e in events]  # fmt: skip


def joined(text: str) -> str:
    """``text`` with each surrogate pair joined, as UTF-16 (JavaScript, a JSON decoder) reads
    two escapes ``\\ud83d\\ude00``."""
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def as_json(value: Any) -> Any:
    """A value as JSON text carries it: NaN as None (an infinity is read back as itself)."""
    return json.loads(vercel.dump(value))


NUMBER_TEXTS = ["1e400", "-1e999", "1.5", "0", "NaN", "Infinity", "-Infinity", "9" * 5000]
LONE = st.sampled_from(["\ud800", "\udbff", "\udc00", "\udfff", "\ud83d", "\ude00"])
STRING_TEXTS = st.builds(
    lambda text, ascii_: json.dumps(text, ensure_ascii=ascii_),
    st.lists(st.one_of(LONE, st.text(max_size=3)), max_size=4).map("".join),
    st.booleans(),
)
LEAF_TEXTS = st.one_of(st.sampled_from(NUMBER_TEXTS), STRING_TEXTS)


@st.composite
def tool_input_texts(draw: st.DrawFn) -> str:
    """The JSON text (or, with NaN and the infinities, repair-mode text) of a tool input whose
    values JSON cannot carry as Python holds them, or that Python cannot read."""
    leaves = draw(st.lists(LEAF_TEXTS, min_size=1, max_size=4))
    members = [f'"k{n}": {leaf}' for n, leaf in enumerate(leaves)]
    if draw(st.booleans()):
        return "{" + ", ".join(members) + "}"
    return '{"a": [' + ", ".join(leaves) + "]}"


def check_encoded_tool(text: str, pieces: list[str], repair: bool) -> None:
    """Encode the message: the body is UTF-8 and strict JSON, and the client's tool part is
    the strict value as JSON carries it, or an error with the raw text."""
    acc = MessageAccumulator(repair=repair)
    updates = (u for event in tool_stream(pieces) for u in acc.feed(event))
    body = "".join(vercel.ui_message_stream(updates, accumulator=acc))
    chunks = strict_chunks(body)
    assert chunks[-1] == "[DONE]" and chunks[-2] == {"type": "finish", "finishReason": "tool-calls"}
    (tool,) = acc.tool_calls()
    dec = UIMessageAccumulator().read(body)
    (part,) = [p for p in dec.message["parts"] if p["type"] == "tool-f"]  # type: ignore[index]
    if tool.complete:
        assert part["state"] == "input-available"
        assert_same_json(as_json(tool.final()), as_json(part["input"]), text)
    else:
        assert part["state"] == "output-error" and part["rawInput"] == joined(tool.raw)
        assert tool.raw == joined(text)


def test_a_tool_input_json_cannot_carry_is_written_as_json_the_client_reads() -> None:
    """An infinity (``1e400``) goes out as ``1e400`` (what json.loads and JSON.parse read back
    as it), NaN (repair mode) as null; a lone surrogate as its escape; an int too long for
    Python (more than 4300 digits) is refused by the parser: an error with the raw text."""
    for text, value in [
        ('{"a": 1e400, "b": -1e400}', {"a": float("inf"), "b": float("-inf")}),
        ('{"a": NaN, "b": [Infinity]}', {"a": None, "b": [float("inf")]}),
        ('{"a": "\ud83d", "b": "\\udc00"}', {"a": "\ud83d", "b": "\udc00"}),
    ]:
        for repair in (False, True):
            acc = MessageAccumulator(repair=repair)
            updates = (u for event in tool_stream([text]) for u in acc.feed(event))
            body = "".join(vercel.ui_message_stream(updates, accumulator=acc))
            (available,) = [c for c in strict_chunks(body) if c != "[DONE]"
                            and c["type"].startswith("tool-input-") and "input" in c]  # fmt: skip
            if repair or "NaN" not in text:
                assert available["type"] == "tool-input-available", text
                assert_same_json(value, available["input"], text)
            else:
                assert available["type"] == "tool-input-error", text
    check_encoded_tool('{"a": ' + "9" * 5000 + "}", ['{"a": ', "9" * 5000 + "}"], True)


@settings(max_examples=examples(40), suppress_health_check=[HealthCheck.too_slow])
@given(text=tool_input_texts(), seed=st.integers(0, 2**16), repair=st.booleans())
def test_generated_tool_inputs_json_cannot_carry(text: str, seed: int, repair: bool) -> None:
    """Fed whole, and at random splits."""
    check_encoded_tool(text, [text], repair)
    check_encoded_tool(text, random_splits(text, random.Random(seed), max_piece=7), repair)


def gemini_chunk(candidate: int, part: dict[str, Any], reason: str | None = None) -> Any:
    entry: dict[str, Any] = {"index": candidate, "content": {"role": "model", "parts": [part]}}
    if reason is not None:
        entry["finishReason"] = reason
    return {"candidates": [entry], "responseId": "resp"}


def encode_gemini(chunks: list[Any]) -> dict[str, Any]:
    acc = PROTOCOLS["gemini"]()
    updates = (u for chunk in chunks for u in acc.feed(chunk))
    body = "".join(vercel.ui_message_stream(updates, accumulator=acc, message_id="m"))
    message: dict[str, Any] = UIMessageAccumulator().read(body).message  # type: ignore[assignment]
    return message


def test_only_the_first_candidate_of_several() -> None:
    """Two Gemini candidates, interleaved: the message is candidate 0's alone (text joined in
    one part, its call only), whichever candidate comes first."""
    chunks = [
        gemini_chunk(1, {"text": "B0 "}),
        gemini_chunk(0, {"text": "A0 "}),
        gemini_chunk(1, {"text": "B1"}),
        gemini_chunk(0, {"text": "A1"}),
        gemini_chunk(1, {"functionCall": {"name": "g", "args": {"y": 2}}}, "STOP"),
        gemini_chunk(0, {"functionCall": {"name": "f", "args": {"x": 1}}}, "STOP"),
    ]
    parts = encode_gemini(chunks)["parts"]
    assert [p["type"] for p in parts] == ["step-start", "text", "tool-f"]
    assert parts[1]["text"] == "A0 A1" and parts[2]["input"] == {"x": 1}


GEMINI_PARTS = st.one_of(
    st.builds(lambda t: {"text": t}, st.text(alphabet="ab ", min_size=1, max_size=3)),
    st.builds(
        lambda name, n: {"functionCall": {"name": name, "args": {"n": n}}},
        st.sampled_from(["f", "g"]),
        st.integers(0, 9),
    ),
)


@settings(max_examples=examples(40), suppress_health_check=[HealthCheck.too_slow])
@given(steps=st.lists(st.tuples(st.integers(0, 2), GEMINI_PARTS), max_size=10))
def test_several_candidates_encode_as_the_first_alone(steps: list[tuple[int, Any]]) -> None:
    chunks = [gemini_chunk(c, part) for c, part in steps]
    alone = [chunk for chunk, (c, _) in zip(chunks, steps, strict=True) if c == 0]
    last = [gemini_chunk(c, {"text": "."}, "STOP")["candidates"][0] for c in (0, 1, 2)]
    chunks.append({"candidates": last})
    alone.append({"candidates": last[:1]})
    assert_same_json(encode_gemini(alone), encode_gemini(chunks), "candidate 0")


def test_a_message_with_no_content_has_no_step_start() -> None:
    """As the client shows it: a step-start part is in the message from the next chunk after
    which the client writes the message (a part, metadata), never alone at the end."""
    assert UIMessageAccumulator().read(
        "".join(vercel.ui_message_stream([], message_id="m"))
    ).message == {"id": "m", "role": "assistant", "parts": []}
    acc = UIMessageAccumulator()
    for chunk in ({"type": "start", "messageId": "m"}, {"type": "start-step"},
                  {"type": "finish-step"}, {"type": "start-step"}):  # fmt: skip
        acc.feed(chunk)
    assert acc.message == {"id": "m", "role": "assistant", "parts": []}
    acc.feed({"type": "text-start", "id": "t"})
    assert [p["type"] for p in acc.message["parts"]] == ["step-start", "step-start", "text"]
    acc.feed({"type": "finish-step"})
    acc.feed({"type": "start-step"})
    acc.feed({"type": "message-metadata", "messageMetadata": {"n": 1}})
    assert [p["type"] for p in acc.message["parts"]][-1] == "step-start"


def test_a_long_tool_input_grows_in_place() -> None:
    """While a tool input grows, the message lets go of its raw text (which CPython can then
    append in place), so that a long input costs time in proportion to its length; a delta
    refused (after the input's end) changes nothing."""
    held = []

    class Watched(ToolInput):
        """A tool input that notes, as each fragment comes, whether the message holds its
        raw text."""

        def _feed(self, fragment: str) -> bool:
            held.append(any(part.get("rawInput") is self.raw for part in parts))
            return super()._feed(fragment)

    class Watching(UIMessageAccumulator):
        def _tool(self, index: int, name: str, id: str | None = None) -> ToolInput:
            return Watched(index, name, id)

    acc = Watching()
    acc.feed(UI_START)
    acc.feed({"type": "tool-input-start", "toolCallId": "a", "toolName": "f"})
    parts: list[dict[str, Any]] = acc.message["parts"]  # type: ignore[index]
    tool = acc.tool_calls()[0]
    assert type(tool) is Watched
    for piece in ['{"a": "', "x" * 64, "x" * 64, '"}']:
        acc.feed({"type": "tool-input-delta", "toolCallId": "a", "inputTextDelta": piece})
    assert held == [False] * 4 and parts[-1]["rawInput"] == tool.raw
    acc.feed({"type": "tool-input-available", "toolCallId": "a", "toolName": "f",
              "input": {"a": "x" * 128}})  # fmt: skip
    before = dict(parts[-1])
    with pytest.raises(StreamError, match="after its end"):
        acc.feed({"type": "tool-input-delta", "toolCallId": "a", "inputTextDelta": "1"})
    assert parts[-1] == before and before["state"] == "input-available"


# A text whose characters beyond the BMP a stream may cut between two events, each half then
# a lone surrogate (what each event's JSON escape ``\ud83d`` decodes to).
HALF = re.compile("[\ud800-\udfff]")


def halves_in(value: Any) -> bool:
    """Whether a lone surrogate shows anywhere in the value."""
    return HALF.search(json.dumps(value, ensure_ascii=False)) is not None


def check_joined(text: str, pieces: list[str]) -> None:
    """Text, reasoning and a tool input cut into ``pieces`` (code units): each ends as
    ``text``, and no half of a pair ever shows."""
    for kind in ("text", "reasoning", "tool"):
        acc = UIMessageAccumulator()
        for chunk in ui_pieces(kind, pieces):
            acc.feed(chunk)
            assert not halves_in(acc.message), (kind, pieces)
        part = acc.message["parts"][-1]  # type: ignore[index]
        if kind != "tool":
            assert part["text"] == text and part["state"] == "done", (kind, pieces)
            continue
        acc.feed({"type": "tool-input-available", "toolCallId": "c", "toolName": "f",
                  "input": json.loads(text)})  # fmt: skip
        (tool,) = acc.tool_calls()
        assert tool.raw == text and tool.final() == json.loads(text), pieces  # it stood


def test_a_surrogate_pair_cut_between_deltas_is_joined() -> None:
    """As the client's ``text += delta`` joins the halves (its strings are UTF-16): text,
    reasoning and tool input alike, cut at every place; and a lone half stays as it came."""
    text = json.dumps({"s": ASTRAL}, ensure_ascii=False)
    coded = code_units(text)
    assert len(coded) > len(text)
    for _, pieces in chunkings(coded):
        check_joined(text, list(pieces))
    acc = UIMessageAccumulator()
    for chunk in ui_pieces("text", ["a\ud83d", "b\ud83d", "", "\ude00\udc00", "\ud800"]):
        acc.feed(chunk)
    assert acc.message["parts"][-1]["text"] == "a\ud83db\U0001f600\udc00\ud800"  # type: ignore[index]


@settings(max_examples=examples(40), suppress_health_check=[HealthCheck.too_slow])
@given(text=ASTRAL_TEXTS, seed=st.integers(0, 2**16))
def test_generated_texts_cut_anywhere_join(text: str, seed: int) -> None:
    value = json.dumps([text], ensure_ascii=False)
    coded = code_units(value)
    rng = random.Random(seed)
    check_joined(value, random_splits(coded, rng, max_piece=rng.choice((1, 2, 3, 7))))


def test_a_half_held_at_the_end_goes_in_as_it_came() -> None:
    """A half whose other half never comes is in the message once its part ends: at
    ``finish-step``, ``[DONE]``, ``close()`` (text, tool input)."""
    for end in ({"type": "finish-step"}, "[DONE]", None):
        acc = UIMessageAccumulator()
        for chunk in ui_pieces("text", ["a\ud83d"])[:-1] + ui_pieces("tool", ['"\ud83d'])[1:]:
            acc.feed(chunk)
        parts = acc.message["parts"]  # type: ignore[index]
        assert parts[0]["text"] == "a" and parts[1]["rawInput"] == '"'
        if end is None:
            acc.close()
        else:
            acc.feed(end)
        assert parts[0]["text"] == "a\ud83d", end
        ended = end != {"type": "finish-step"}  # which ends text parts, not tool inputs
        assert (parts[1]["rawInput"] == acc.tools[1].raw == '"\ud83d') == ended, end
