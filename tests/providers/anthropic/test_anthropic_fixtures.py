"""Hand-written Anthropic Messages streams (``fixtures/anthropic/*.sse``) replayed every way.

Each ``X.sse`` is an HTTP body as the Messages API sends it; ``X.json`` beside it is the
expected end state, written from what the API's final message must be (the shape is described
in ``fixtures/README.md``). Every stream goes through ``SSEDecoder`` and ``MessageAccumulator``
whole, in 1-, 3-, 7- and 64-byte chunks, at seeded random byte splits and as text, and must end
in the same state each time.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, Final

import pytest

import paths
from jsonsnap.anthropic import MessageAccumulator, StreamError, ToolInputError, accumulate
from jsonsnap.sse import SSEDecoder
from recordings import assert_same_json, cut, error_state, random_pieces, tool_state, ways
from values import diff

FIXTURES: Final = paths.FIXTURES / "anthropic"
NAMES: Final = sorted(p.stem for p in FIXTURES.glob("*.sse"))

#: The cases the fixture set must cover; deleting one of them fails test_every_case_is_there.
CASES: Final = frozenset(
    {
        "text_then_write_file",
        "thinking_signature",
        "parallel_tools",
        "citations",
        "server_tool",
        "ping_and_comments",
        "error_mid_stream",
        "max_tokens_in_tool_string",
        "invalid_tool_json",
        "crlf",
        "bom",
    }
)

#: Fixtures with a tool input that must not be fit to run: unfinished, or invalid JSON.
UNFIT: Final = ("max_tokens_in_tool_string", "invalid_tool_json")

WAYS: Final = ways(random_rounds=5, text_rounds=2)


def body(name: str) -> bytes:
    return (FIXTURES / f"{name}.sse").read_bytes()


def expected(name: str) -> dict[str, Any]:
    result: dict[str, Any] = json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))
    return result


def replay(chunks: Iterable[bytes | str]) -> tuple[MessageAccumulator, StreamError | None]:
    """Feed the chunks to a decoder and an accumulator; stop at the first StreamError."""
    decoder = SSEDecoder(errors="strict")
    acc = MessageAccumulator()
    try:
        for chunk in chunks:
            for event in decoder.feed(chunk):
                acc.feed(json.loads(event.data))
        for event in decoder.close():
            acc.feed(json.loads(event.data))
    except StreamError as err:
        return acc, err
    return acc, None


def result(acc: MessageAccumulator, error: StreamError | None) -> dict[str, Any]:
    """The accumulator's end state in the shape of the expected files."""
    tools: dict[str, Any] = {}
    for index, tool in acc.tools.items():
        assert tool.complete == (tool.status == "complete"), index
        tools[str(index)] = tool_state(tool)
    return {"message": acc.message, "done": acc.done, "error": error_state(error), "tools": tools}


def check(name: str, got: dict[str, Any]) -> None:
    assert_same_json(expected(name), got, name)


# -- the fixture set itself ------------------------------------------------------------------


def test_every_case_is_there() -> None:
    missing = CASES - set(NAMES)
    assert not missing, f"fixtures missing from fixtures/anthropic/: {sorted(missing)}"


def test_every_fixture_has_its_expected_file_and_back() -> None:
    streams = {p.stem for p in FIXTURES.glob("*.sse")}
    results = {p.stem for p in FIXTURES.glob("*.json")}
    assert streams == results, (sorted(streams - results), sorted(results - streams))


def test_gitattributes_keeps_the_bytes() -> None:
    lines = (FIXTURES / ".gitattributes").read_text(encoding="utf-8").splitlines()
    assert "*.sse -text" in lines


def test_line_ends_and_bom_are_as_named() -> None:
    assert b"\r\n" in body("crlf") and b"\n" not in body("crlf").replace(b"\r\n", b"")
    assert body("bom").startswith(b"\xef\xbb\xbfevent: message_start\n")
    for name in NAMES:
        data = body(name)
        if name != "crlf":
            assert b"\r" not in data, name
        if name != "bom":
            assert not data.startswith(b"\xef\xbb\xbf"), name


@pytest.mark.parametrize("name", NAMES)
def test_fixture_is_the_api_wire_format(name: str) -> None:
    """Each event names its type twice (``event:`` and ``data.type``), as the API does; the
    stream opens with a full message object; tool blocks start with an empty input."""
    decoder = SSEDecoder(errors="strict")
    events = [*decoder.feed(body(name)), *decoder.close()]
    datas = [json.loads(event.data) for event in events]
    assert [event.event for event in events] == [data["type"] for data in datas]
    first = datas[0]
    assert first["type"] == "message_start"
    message = first["message"]
    assert message["id"].startswith("msg_01") and message["type"] == "message"
    assert (message["role"], message["content"], message["stop_reason"]) == ("assistant", [], None)
    assert "stop_sequence" in message and "input_tokens" in message["usage"]
    for data in datas:
        block = data.get("content_block", {})
        if block.get("type") == "tool_use":
            assert block["id"].startswith("toolu_01") and block["input"] == {}
        elif block.get("type") == "server_tool_use":
            assert block["id"].startswith("srvtoolu_01") and block["input"] == {}


@pytest.mark.parametrize("name", NAMES)
def test_expected_file_agrees_with_the_stream_and_json(name: str) -> None:
    """The expected file on its own, checked against the stream and ``json.loads``: each raw
    is the concatenated fragments; a complete input is ``json.loads(raw)``; an unfinished one
    fails ``json.loads`` and has no error; an invalid one fails ``json.loads`` with the same
    message at the same position."""
    want = expected(name)
    assert set(want) == {"message", "done", "error", "tools"}
    decoder = SSEDecoder(errors="strict")
    fragments: dict[str, str] = {}
    for event in [*decoder.feed(body(name)), *decoder.close()]:
        data = json.loads(event.data)
        delta = data.get("delta", {})
        if delta.get("type") == "input_json_delta":
            key = str(data["index"])
            fragments[key] = fragments.get(key, "") + delta["partial_json"]
    assert set(want["tools"]) == set(fragments)
    content = want["message"]["content"]
    for key, tool in want["tools"].items():
        raw, status, error = tool["raw"], tool["status"], tool["error"]
        assert raw == fragments[key], key
        assert status in ("streaming", "complete", "incomplete", "invalid"), key
        assert (error is not None) == (status == "invalid"), key
        if status == "complete":
            assert diff(json.loads(raw), content[int(key)]["input"]) is None, key
            continue
        with pytest.raises(json.JSONDecodeError) as caught:
            json.loads(raw)
        if status == "streaming":  # cut before its content_block_stop: no verdict yet
            assert want["error"] is not None or not want["done"], key
        elif status == "invalid":
            assert (caught.value.msg, caught.value.pos) == (error["msg"], error["pos"]), key


# -- replays ---------------------------------------------------------------------------------


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize("name", NAMES)
def test_replay_gives_the_expected_message(name: str, way: str) -> None:
    acc, error = replay(cut(body(name), way))
    check(name, result(acc, error))


@pytest.mark.parametrize("name", NAMES)
def test_accumulate_gives_the_expected_message(name: str) -> None:
    want = expected(name)
    if want["error"] is not None:
        with pytest.raises(StreamError):
            accumulate([body(name)])
        return
    acc = accumulate(random_pieces(body(name), 7))
    check(name, result(acc, None))


def test_error_event_carries_type_and_message_and_keeps_the_text() -> None:
    name = "error_mid_stream"
    acc, error = replay([body(name)])
    assert isinstance(error, StreamError)
    assert (error.error_type, error.message) == ("overloaded_error", "Overloaded")
    assert str(error) == "overloaded_error: Overloaded"
    message = acc.message
    assert message is not None and not acc.done and message["stop_reason"] is None
    want = expected(name)["message"]["content"]
    assert message["content"][0] == want[0]
    assert message["content"][0]["text"].startswith("I'll write the migration script")
    # The tool block was cut before its content_block_stop: its snapshot, not fit to run.
    assert message["content"][1]["input"] == want[1]["input"]
    with pytest.raises(ToolInputError):
        acc.tools[1].final()


@pytest.mark.parametrize("name", NAMES)
def test_final_is_json_loads_of_raw_or_refuses(name: str) -> None:
    acc, _ = replay([body(name)])
    want = expected(name)["tools"]
    assert sorted(str(i) for i in acc.tools) == sorted(want)
    for index, tool in acc.tools.items():
        if want[str(index)]["status"] == "complete":
            value = tool.final()
            assert diff(json.loads(tool.raw), value) is None, index
        else:
            with pytest.raises(ToolInputError):
                tool.final()


@pytest.mark.parametrize("name", UNFIT)
def test_unfit_fixtures_do_have_an_unfit_tool(name: str) -> None:
    acc, error = replay([body(name)])
    assert error is None and acc.done
    unfit = [tool for tool in acc.tools.values() if not tool.complete]
    assert unfit
    for tool in unfit:
        with pytest.raises(ToolInputError) as caught:
            tool.final()
        if tool.status == "invalid":
            assert tool.error is not None and "invalid" in str(caught.value)
        else:  # cut at max_tokens: unfinished, which is not the same as invalid
            assert tool.status == "incomplete" and tool.error is None
            assert "invalid" not in str(caught.value)
