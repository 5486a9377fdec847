"""Hand-written OpenAI streams (``fixtures/openai/*.sse``) replayed every way.

Each ``X.sse`` is an HTTP body as the API sends it: ``chat_*`` a Chat Completions stream
(``data:`` chunks, then ``[DONE]``), ``responses_*`` a Responses API stream (typed events).
``X.json`` beside it is the expected end state, written from what the API's final result must
be (the shape is described in ``fixtures/README.md``). Every stream goes through the
accumulator's ``updates()`` whole, in 1-, 3-, 7- and 64-byte chunks, at seeded random byte
splits and as text, and must end in the same state each time.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Final

import pytest

import paths
from jsonsnap.openai import (
    ChatCompletionAccumulator,
    ResponseAccumulator,
    StreamError,
    ToolInput,
    ToolInputError,
)
from jsonsnap.sse import SSEDecoder
from recordings import assert_same_json, cut, error_state, random_pieces, ways
from values import diff, grows

FIXTURES: Final = paths.FIXTURES / "openai"
NAMES: Final = sorted(p.stem for p in FIXTURES.glob("*.sse"))

#: The cases the fixture set must cover; deleting one of them fails test_every_case_is_there.
CASES: Final = frozenset(
    {
        "chat_text",
        "chat_reasoning_content",
        "chat_tool_call",
        "chat_parallel_sequential",
        "chat_parallel_interleaved",
        "chat_repeated_id_name",
        "chat_missing_index",
        "chat_index_gap",
        "chat_include_usage",
        "chat_error",
        "chat_length_in_argument",
        "responses_function_call",
    }
)

#: Fixtures that stream tool arguments: their live snapshots are checked as they grow.
TOOL_NAMES: Final = [
    name for name in NAMES if json.loads((FIXTURES / f"{name}.json").read_text("utf-8"))["tools"]
]

WAYS: Final = ways(random_rounds=6, text_rounds=1)

Accumulator = ChatCompletionAccumulator | ResponseAccumulator


def body(name: str) -> bytes:
    return (FIXTURES / f"{name}.sse").read_bytes()


def expected(name: str) -> dict[str, Any]:
    result: dict[str, Any] = json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))
    return result


def accumulator(name: str) -> Accumulator:
    """The accumulator the file name's prefix calls for."""
    if name.startswith("chat_"):
        return ChatCompletionAccumulator()
    assert name.startswith("responses_"), name
    return ResponseAccumulator()


def tool_state(tool: ToolInput) -> dict[str, Any]:
    return {
        "status": tool.status,
        "raw": tool.raw,
        "error_pos": None if tool.error is None else tool.error.pos,
    }


def tools_of(acc: Accumulator) -> dict[str, ToolInput]:
    """The accumulator's tool inputs under the expected files' keys: ``"<choice>:<index>"``
    for Chat Completions, ``"<output_index>"`` for the Responses API."""
    if isinstance(acc, ResponseAccumulator):
        return {str(index): tool for index, tool in acc.tools.items()}
    return {
        f"{choice['index']}:{tool.index}": tool
        for choice in acc.completion["choices"]
        for tool in acc.tool_calls(choice["index"])
    }


def result(acc: Accumulator, error: StreamError | None) -> dict[str, Any]:
    """The accumulator's end state in the shape of the expected files."""
    state: dict[str, Any] = {}
    if isinstance(acc, ResponseAccumulator):
        state["response"] = acc.response
    else:
        state["completion"] = acc.completion
    state["done"] = acc.done
    state["error"] = error_state(error)
    state["tools"] = {key: tool_state(tool) for key, tool in tools_of(acc).items()}
    return state


def replay(name: str, chunks: Sequence[bytes | str]) -> tuple[Accumulator, StreamError | None]:
    """Feed the chunks through ``updates()``; stop at the first StreamError."""
    acc = accumulator(name)
    try:
        for _ in acc.updates(chunks):
            pass
    except StreamError as err:
        return acc, err
    return acc, None


def check(name: str, got: dict[str, Any]) -> None:
    assert_same_json(expected(name), got, name)


def events(name: str) -> Iterator[tuple[str, str]]:
    """The fixture's events as ``(event type, data)``."""
    decoder = SSEDecoder(errors="strict")
    for event in [*decoder.feed(body(name)), *decoder.close()]:
        yield event.event, event.data


def argument_pieces(name: str) -> dict[str, str]:
    """The streamed argument text of each call, joined straight from the wire, under the
    expected files' keys. A Chat Completions delta without an index belongs to call 0: the
    only fixture without indices has a single call."""
    joined: dict[str, str] = {}
    for kind, data in events(name):
        if data == "[DONE]":
            continue
        payload = json.loads(data)
        if name.startswith("chat_"):
            for choice in payload.get("choices") or ():
                for call in (choice.get("delta") or {}).get("tool_calls") or ():
                    key = f"{choice['index']}:{call.get('index', 0)}"
                    piece = call.get("function", {}).get("arguments", "")
                    joined[key] = joined.get(key, "") + piece
        elif kind == "response.function_call_arguments.delta":
            key = str(payload["output_index"])
            joined[key] = joined.get(key, "") + payload["delta"]
    return joined


def streamed_calls(name: str, want: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The expected final call objects under the tools' keys."""
    if name.startswith("responses_"):
        output = want["response"]["output"]
        return {key: output[int(key)] for key in want["tools"]}
    calls: dict[str, dict[str, Any]] = {}
    for choice in want["completion"]["choices"]:
        keys = sorted(
            (key for key in want["tools"] if key.startswith(f"{choice['index']}:")),
            key=lambda key: int(key.partition(":")[2]),
        )
        listed = choice["message"].get("tool_calls") or []
        assert len(listed) == len(keys), name
        for key, call in zip(keys, listed, strict=True):
            calls[key] = call["function"]
    return calls


# -- the fixture set itself ------------------------------------------------------------------


def test_every_case_is_there() -> None:
    missing = CASES - set(NAMES)
    assert not missing, f"fixtures missing from fixtures/openai/: {sorted(missing)}"


def test_every_fixture_has_its_expected_file_and_back() -> None:
    streams = {p.stem for p in FIXTURES.glob("*.sse")}
    results = {p.stem for p in FIXTURES.glob("*.json")}
    assert streams == results, (sorted(streams - results), sorted(results - streams))
    assert all(name.startswith(("chat_", "responses_")) for name in NAMES), NAMES


def test_gitattributes_keeps_the_bytes() -> None:
    lines = (FIXTURES / ".gitattributes").read_text(encoding="utf-8").splitlines()
    assert "*.sse -text" in lines


@pytest.mark.parametrize("name", NAMES)
def test_fixture_is_the_api_wire_format(name: str) -> None:
    """Chat Completions: ``data: <chunk>`` blocks of one completion's chunks, ending in
    ``[DONE]`` unless an error payload ends the stream. Responses: ``event:`` lines that
    name ``data.type``, sequence numbers counting from 0, created first, completed last."""
    data = body(name)
    if name.startswith("chat_"):
        assert re.fullmatch(rb"(?:data: [^\r\n]+\n\n)+", data), name
        payloads = [json.loads(d) if d != "[DONE]" else d for _, d in events(name)]
        chunks = [p for p in payloads if isinstance(p, dict) and "error" not in p]
        ids = {c["id"] for c in chunks}
        assert len(ids) == 1, ids
        assert len({(c["created"], c["model"]) for c in chunks}) == 1
        for c in chunks:
            assert c["object"] == "chat.completion.chunk"
            assert "system_fingerprint" in c
            for choice in c["choices"]:
                assert {"index", "delta", "finish_reason"} <= set(choice)
        if name == "chat_error":
            last = payloads[-1]
            assert isinstance(last, dict) and set(last) == {"error"}
            assert "[DONE]" not in payloads
        else:
            assert payloads[-1] == "[DONE]" and payloads.count("[DONE]") == 1
            assert data.endswith(b"data: [DONE]\n\n")
        return
    assert re.fullmatch(rb"(?:event: [a-z_.]+\ndata: [^\r\n]+\n\n)+", data), name
    typed = [(kind, json.loads(d)) for kind, d in events(name)]
    assert [kind for kind, _ in typed] == [d["type"] for _, d in typed]
    assert [d["sequence_number"] for _, d in typed] == list(range(len(typed)))
    assert typed[0][0] == "response.created" and typed[-1][0] == "response.completed"
    assert typed[0][1]["response"]["id"].startswith("resp_")


@pytest.mark.parametrize("name", NAMES)
def test_expected_file_agrees_with_the_stream_and_json(name: str) -> None:
    """The expected file on its own, against the wire and ``json.loads``: each raw is the
    concatenated argument pieces and the call's final ``arguments``; a complete call's raw is
    valid JSON, an incomplete one's is not."""
    want = expected(name)
    first = "completion" if name.startswith("chat_") else "response"
    assert list(want) == [first, "done", "error", "tools"]
    pieces = argument_pieces(name)
    assert set(want["tools"]) == set(pieces)
    calls = streamed_calls(name, want)
    for key, tool in want["tools"].items():
        assert set(tool) == {"status", "raw", "error_pos"}
        raw = tool["raw"]
        assert raw == pieces[key] == calls[key]["arguments"], key
        if tool["status"] == "complete":
            assert tool["error_pos"] is None
            json.loads(raw)
        else:
            with pytest.raises(json.JSONDecodeError):
                json.loads(raw)


# -- replays ---------------------------------------------------------------------------------


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize("name", NAMES)
def test_replay_gives_the_expected_result(name: str, way: str) -> None:
    acc, error = replay(name, cut(body(name), way))
    check(name, result(acc, error))


@pytest.mark.parametrize("name", NAMES)
def test_read_gives_the_expected_result(name: str) -> None:
    acc = accumulator(name)
    if expected(name)["error"] is not None:
        with pytest.raises(StreamError) as caught:
            acc.read(random_pieces(body(name), 11))
        check(name, result(acc, caught.value))
        return
    acc.read(random_pieces(body(name), 11))
    check(name, result(acc, None))


def test_error_payload_carries_type_and_message_and_keeps_the_text() -> None:
    name = "chat_error"
    acc, error = replay(name, [body(name)])
    assert isinstance(error, StreamError)
    assert error.error_type == "server_error"
    assert error.message.startswith("The server had an error")
    assert str(error) == f"server_error: {error.message}"
    assert isinstance(acc, ChatCompletionAccumulator) and not acc.done
    choice = acc.completion["choices"][0]
    assert choice["finish_reason"] is None
    assert choice["message"]["content"].endswith("(2017) introduced")


@pytest.mark.parametrize("name", TOOL_NAMES)
def test_final_is_json_loads_of_raw_or_refuses(name: str) -> None:
    acc, _ = replay(name, [body(name)])
    want = expected(name)["tools"]
    tools = tools_of(acc)
    assert sorted(tools) == sorted(want)
    for key, tool in tools.items():
        if want[key]["status"] == "complete":
            value = tool.final()
            assert diff(json.loads(tool.raw), value) is None, (
                key,
                diff(json.loads(tool.raw), value),
            )
        else:
            with pytest.raises(ToolInputError):
                tool.final()


def test_length_cut_call_is_incomplete_and_refuses_final() -> None:
    name = "chat_length_in_argument"
    acc, error = replay(name, [body(name)])
    assert error is None and isinstance(acc, ChatCompletionAccumulator) and acc.done
    assert acc.completion["choices"][0]["finish_reason"] == "length"
    (tool,) = acc.tool_calls(0)
    assert tool.status == "incomplete" and not tool.complete and tool.error is None
    with pytest.raises(ToolInputError, match="cut off"):
        tool.final()
    # The best-effort value: the fields that arrived, the cut string as far as it went.
    snapshot = tool.snapshot
    assert snapshot["title"] == "Checkout fails on Safari 17"
    assert snapshot["labels"] == ["bug", "payments"]
    assert snapshot["body"].startswith("Steps to reproduce:\n1. Add any item")
    assert snapshot["body"].endswith('shows "TypeError: undefined is not an obj')


@pytest.mark.parametrize("way", ["whole", "1-byte", "random#0"])
@pytest.mark.parametrize("name", TOOL_NAMES)
def test_live_snapshots_only_grow(name: str, way: str) -> None:
    """Each call's snapshots, seen through ``updates()``, only grow: a string becomes a longer
    string with the old one as prefix, keys and elements never vanish, other values never
    change. The last snapshot of a complete call is its final value."""
    acc = accumulator(name)
    last: dict[int, Any] = {}
    seen: dict[int, ToolInput] = {}
    counts: dict[int, int] = {}
    try:
        for update in acc.updates(cut(body(name), way)):
            tool = update.tool
            if tool is None:
                continue
            now = copy.deepcopy(update.snapshot)  # snapshots are live: keep this one as is
            key = id(tool)
            if key in last:
                problem = grows(last[key], now)
                assert problem is None, f"{name} {tool.name}: {problem}"
            last[key] = now
            seen[key] = tool
            counts[key] = counts.get(key, 0) + 1
    except StreamError:
        assert expected(name)["error"] is not None
    assert len(seen) == len(expected(name)["tools"])
    assert all(count > 5 for count in counts.values()), counts  # many snapshots compared
    for key, tool in seen.items():
        if tool.complete:
            assert diff(tool.final(), last[key]) is None, (tool.name, diff(tool.final(), last[key]))


def _shorter_raw(state: dict[str, Any]) -> None:
    state["tools"]["0:0"]["raw"] = state["tools"]["0:0"]["raw"][:-1]


def _other_finish(state: dict[str, Any]) -> None:
    state["completion"]["choices"][0]["finish_reason"] = "stop"


def _float_created(state: dict[str, Any]) -> None:
    state["completion"]["created"] = float(state["completion"]["created"])


def _no_tool_calls(state: dict[str, Any]) -> None:
    del state["completion"]["choices"][0]["message"]["tool_calls"]


@pytest.mark.parametrize("corrupt", [_shorter_raw, _other_finish, _float_created, _no_tool_calls])
def test_comparison_can_fail(corrupt: Callable[[dict[str, Any]], None]) -> None:
    """The comparison is strict: a changed character or value, a number's type, a lost key."""
    name = "chat_tool_call"
    acc, error = replay(name, [body(name)])
    got = copy.deepcopy(result(acc, error))
    check(name, got)
    corrupt(got)
    with pytest.raises(AssertionError):
        check(name, got)
