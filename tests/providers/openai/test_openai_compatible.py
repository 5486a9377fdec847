"""The compatible profile of the Chat Completions accumulator, on a fixture per server quirk.

Each ``fixtures/openai-compatible/X.sse`` is an HTTP body as an OpenAI-compatible server (or a
gateway in front of it) sends it; ``X.json`` is the expected end state, written from the calls
the server meant (the shape of ``fixtures/openai/X.json``, plus ``quirks``, ``chosen_by`` and
``needs_flag``; see that folder's README). Every stream is replayed with
``compatible=True`` whole, in 1-, 3-, 7- and 64-byte chunks, at seeded random byte splits and
as text; and with the default (``compatible=None``), which must give the same result unless
the fixture ``needs_flag``, in which case it must not be silently wrong (the call whose text
is several values stays ``"invalid"`` and says so). Then: what each quirk does, one test
each; ``compatible=False``; ``jsonsnap replay`` of every fixture in a pipe.
"""

from __future__ import annotations

import copy
import json
from typing import Any, Final

import pytest

import paths
from jsonsnap import __main__ as cli
from jsonsnap.openai import (
    ChatCompletionAccumulator,
    StreamError,
    ToolInput,
    ToolInputError,
    Update,
)
from jsonsnap.openai._compatible import QUIRKS, Quirk, dump_arguments, value_spans
from jsonsnap.openai._tool_input import ChatToolInput
from jsonsnap.sse import ServerSentEvent
from recordings import assert_same_json, cut, error_state, random_pieces, ways
from values import grows

FIXTURES: Final = paths.FIXTURES / "openai-compatible"
NAMES: Final = sorted(p.stem for p in FIXTURES.glob("*.sse"))
WAYS: Final = ways(random_rounds=4, text_rounds=1)

#: One fixture per quirk of the issue (deleting one fails test_every_quirk_has_its_fixture).
CASES: Final = {
    "ollama_missing_index": "index missing: calls told apart by id",
    "ollama_index_duplicated": "index duplicated within one chunk",
    "ollama_index_reused": "index reused by a second call with another id",
    "whole_arguments": "arguments whole in one chunk",
    "vllm_doubled_arguments": "arguments sent twice",
    "groq_glued_calls": "calls glued into one argument string",
    "ollama_arguments_object": "arguments as a JSON object",
    "vllm_reasoning": "reasoning in `reasoning`",
    "deepseek_usage_empty_choices": "reasoning_content; usage with empty choices",
    "openrouter_reasoning_details": "reasoning in `reasoning_details`",
    "gateway_keepalive": "data: : keepalive",
    "vllm_long_silence": "17.5K characters of arguments in one chunk",
    "unstable_ids": "a new id in every chunk of one call, an empty delta after it is whole",
    "arguments_array": "arguments neither a string nor an object: StreamError",
}


def body(name: str) -> bytes:
    return (FIXTURES / f"{name}.sse").read_bytes()


def expected(name: str) -> dict[str, Any]:
    found: dict[str, Any] = json.loads((FIXTURES / f"{name}.json").read_text("utf-8"))
    return found


def replay(
    name: str, chunks: Any, compatible: bool | None = True
) -> tuple[ChatCompletionAccumulator, StreamError | None, list[Update]]:
    acc = ChatCompletionAccumulator(compatible=compatible)
    seen: list[Update] = []
    try:
        seen.extend(acc.updates(chunks))
    except StreamError as err:
        return acc, err, seen
    return acc, None, seen


def state(acc: ChatCompletionAccumulator, error: StreamError | None) -> dict[str, Any]:
    """The end state in the shape of the expected files (without ``chosen_by`` and
    ``needs_flag``, which say how the default mode reads the stream)."""
    tools = {
        f"{choice['index']}:{tool.index}": {
            "status": tool.status,
            "raw": tool.raw,
            "error_pos": None if tool.error is None else tool.error.pos,
        }
        for choice in acc.completion["choices"]
        for tool in acc.tool_calls(choice["index"])
    }
    return {
        "completion": acc.completion,
        "done": acc.done,
        "error": error_state(error),
        "tools": tools,
        "quirks": [[q.kind, q.choice, q.index] for q in acc.quirks],
    }


def check(name: str, got: dict[str, Any], label: str) -> None:
    want = {k: v for k, v in expected(name).items() if k not in ("chosen_by", "needs_flag")}
    assert_same_json(want, got, f"{name} {label}")


# -- the fixture set ---------------------------------------------------------------------------


def test_every_quirk_has_its_fixture() -> None:
    assert sorted(CASES) == NAMES
    assert sorted(p.stem for p in FIXTURES.glob("*.json")) == NAMES
    assert "*.sse -text" in (FIXTURES / ".gitattributes").read_text("utf-8").splitlines()


def test_the_readme_lists_every_fixture_and_quirk() -> None:
    readme = (FIXTURES / "README.md").read_text("utf-8")
    for name in NAMES:
        assert f"`{name}.sse`" in readme, name
    for kind in QUIRKS:
        assert f"`{kind}`" in readme, kind


@pytest.mark.parametrize("name", NAMES)
def test_expected_file_agrees_with_json(name: str) -> None:
    """Each complete call's ``arguments`` are one JSON value, and its raw text (as it came)
    begins with them: what follows is other calls glued to it, or the text sent again."""
    want = expected(name)
    assert list(want) == [
        "completion",
        "done",
        "error",
        "tools",
        "quirks",
        "chosen_by",
        "needs_flag",
    ]
    calls = [c for ch in want["completion"]["choices"] for c in ch["message"].get("tool_calls", [])]
    assert len(want["tools"]) == len(calls)
    for tool, call in zip(want["tools"].values(), calls, strict=True):
        assert tool["status"] == "complete" and tool["error_pos"] is None
        assert tool["raw"].startswith(call["function"]["arguments"])
        json.loads(call["function"]["arguments"])
    assert all(kind in QUIRKS for kind, _, _ in want["quirks"])


# -- replays -----------------------------------------------------------------------------------


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize("name", NAMES)
def test_replay_with_the_profile_gives_the_calls_meant(name: str, way: str) -> None:
    acc, error, _ = replay(name, cut(body(name), way))
    check(name, state(acc, error), way)
    assert acc.compatible and acc.compatible_reason == "compatible=True"


@pytest.mark.parametrize("way", ["whole", "7-byte", "random#0"])
@pytest.mark.parametrize("name", NAMES)
def test_replay_by_default(name: str, way: str) -> None:
    """The default chooses the profile where the stream shows a compatible server
    (``chosen_by``), gives the same calls unless the fixture ``needs_flag``; then the call
    that is several values is ``"invalid"``, and says it is glued: never silently wrong."""
    want = expected(name)
    acc, error, _ = replay(name, cut(body(name), way), compatible=None)
    assert acc.compatible_reason == want["chosen_by"]
    assert acc.compatible == (want["chosen_by"] is not None)
    if not want["needs_flag"]:
        check(name, state(acc, error), way)
        return
    (tool,) = acc.tool_calls()
    assert tool.status == "invalid" and tool.glued and acc.quirks == []
    with pytest.raises(ToolInputError, match="2 JSON values glued together"):
        tool.final()


@pytest.mark.parametrize("name", NAMES)
def test_read_whole_and_random(name: str) -> None:
    acc = ChatCompletionAccumulator(compatible=True)
    try:
        acc.read(random_pieces(body(name), 5))
    except StreamError as err:
        check(name, state(acc, err), "read")
    else:
        check(name, state(acc, None), "read")


@pytest.mark.parametrize("name", [n for n in NAMES if expected(n)["tools"]])
def test_live_snapshots_only_grow_and_end_final(name: str) -> None:
    """Each call's snapshot only grows, and a complete call's last one is its final value
    (a doubled or glued call's snapshot is its first value all along)."""
    acc = ChatCompletionAccumulator(compatible=True)
    last: dict[int, Any] = {}
    tools = {}
    for update in acc.updates(cut(body(name), "3-byte")):
        if update.tool is None:
            continue
        now = copy.deepcopy(update.snapshot)
        key = id(update.tool)
        if key in last:
            assert grows(last[key], now) is None, (name, grows(last[key], now))
        last[key] = now
        tools[key] = update.tool
    assert len(tools) == len(expected(name)["tools"])
    for key, tool in tools.items():
        assert tool.final() == last[key]


# -- each quirk --------------------------------------------------------------------------------


def quirks_of(tool: ToolInput) -> list[Quirk]:
    """A Chat Completions call's quirks (its tool input is a ``ChatToolInput``)."""
    assert isinstance(tool, ChatToolInput)
    return tool.quirks


def calls_of(acc: ChatCompletionAccumulator) -> list[tuple[int, str | None, str, Any]]:
    return [(t.index, t.id, t.name, t.final()) for t in acc.tool_calls()]


def test_missing_index_tells_calls_apart_by_id() -> None:
    acc, _, _ = replay("ollama_missing_index", [body("ollama_missing_index")])
    assert [(i, n, v["filePath"]) for i, _, n, v in calls_of(acc)] == [
        (0, "file_write", "hello.py"),
        (1, "file_write", "world.py"),
    ]


def test_a_reused_index_is_a_new_call_at_the_next_index() -> None:
    for name in ("ollama_index_reused", "ollama_index_duplicated"):
        acc, _, _ = replay(name, [body(name)])
        first, second = acc.tool_calls()
        assert (first.index, second.index) == (0, 1)
        assert first.id != second.id and first.name == second.name
        (quirk,) = quirks_of(second)
        assert quirk.kind == "reused_index" and quirk.index == 1 and "at index 0" in quirk.detail
        assert quirks_of(first) == []


def test_a_new_id_before_the_arguments_are_complete_continues_the_call() -> None:
    """A server that gives each chunk of a call a new id (unstable ids): the call keeps its
    first id, and its pieces are one call."""
    acc, _, _ = replay("unstable_ids", [body("unstable_ids")])
    ((index, call_id, name, value),) = calls_of(acc)
    assert (index, call_id, name, value) == (
        0,
        "call_first_a1",
        "bash",
        {"command": "ls -la src/", "timeout": 30},
    )
    assert acc.quirks == []


@pytest.mark.parametrize("compatible", [True, None, False])
@pytest.mark.parametrize(
    "empty",
    [
        {"index": 0, "id": "b", "function": {"arguments": ""}},
        {"index": 0, "id": "b", "type": "function"},
        {"index": 0, "id": "b", "function": {"arguments": " \n"}},
        {"id": "b", "function": {"arguments": ""}},
    ],
)
def test_an_empty_delta_under_a_new_id_starts_no_call(
    empty: dict[str, Any], compatible: bool | None
) -> None:
    """Once the arguments are whole, a delta that brings nothing (no name, no arguments but
    whitespace) under a new id is the same call (its id unstable), not a call named '' whose
    input is {}."""
    acc = ChatCompletionAccumulator(compatible=compatible)
    acc.feed(tool_chunk({"index": 0, "id": "a", "function": {"name": "f", "arguments": "{}"}}))
    acc.feed(tool_chunk(empty))
    acc.feed(tool_chunk({"index": 0, "id": "c"}))
    acc.feed("[DONE]")
    assert calls_of(acc) == [(0, "a", "f", {})]
    assert acc.quirks == []


def test_doubled_arguments_keep_one_and_say_so() -> None:
    """The whole text sent again in the last piece: one call, whose raw text stays as it came
    (``XX``: received text is never taken back), its value and ``arguments`` ``X``."""
    acc, _, updates = replay("vllm_doubled_arguments", [body("vllm_doubled_arguments")])
    (tool,) = acc.tool_calls()
    assert tool.final()["path"] == "src/app.py" and not tool.glued and tool.complete
    arguments = acc.completion["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"]
    assert tool.raw == arguments * 2
    (quirk,) = quirks_of(tool)
    detail = f"{len(arguments)} chars, then the same again in one piece"
    assert quirk == Quirk("doubled_arguments", 0, 0, detail)
    done = [u for u in updates if u.event == "tool_call_done"]
    assert len(done) == 1 and done[0].changed  # "invalid" (glued) became complete: redraw
    raws = [len(u.tool.raw) for u in updates if u.tool is not None]
    assert raws == sorted(raws)  # the raw text only grows


def test_a_change_feed_started_late_changes_no_reading() -> None:
    """The change feed, first asked for after the text came again (the text is then read
    once more, for it), is not a piece that came: still one call, X, raw XX."""
    acc = ChatCompletionAccumulator(compatible=True)
    acc.feed(tool_chunk({"index": 0, "id": "a", "function": {"name": "f", "arguments": ""}}))
    for piece in ('{"a": ', "1}", '{"a": 1}'):
        (update,) = acc.feed(tool_chunk({"index": 0, "function": {"arguments": piece}}))
    assert update.tool is not None and update.tool.changes()  # the first time
    acc.feed("[DONE]")
    assert calls_of(acc) == [(0, "a", "f", {"a": 1})]
    assert [q.kind for q in acc.quirks] == ["doubled_arguments"]
    assert acc.tool_calls()[0].raw == '{"a": 1}{"a": 1}'


@pytest.mark.parametrize(
    "pieces",
    [
        ['{"a": 1}{"a": 1}'],  # glued in one piece, as Groq sends parallel calls
        ['{"a": 1}{"a"', ": 1}"],
        ['{"a": 1}{', '"a": 1}'],
        ['{"a": ', '1}{"a": 1}'],
    ],
)
def test_two_equal_glued_calls_are_two_calls(pieces: list[str]) -> None:
    """Two equal values glued together are two calls (a model may well call a tool twice
    with the same arguments), unless the second came alone, whole, in the last piece."""
    acc = ChatCompletionAccumulator(compatible=True)
    acc.feed(tool_chunk({"index": 0, "id": "a", "function": {"name": "f", "arguments": ""}}))
    for piece in pieces:
        acc.feed(tool_chunk({"index": 0, "function": {"arguments": piece}}))
    acc.feed("[DONE]")
    assert calls_of(acc) == [(0, "a", "f", {"a": 1}), (1, "a_1", "f", {"a": 1})]
    first = acc.tool_calls()[0]
    assert first.raw == "".join(pieces) and first.values == [{"a": 1}]
    assert [q.kind for q in acc.quirks] == ["glued_calls", "glued_calls"]
    changes = first.changes()  # read again from the call's own text, not the whole raw
    assert first.complete and changes[-1].path == () and first.final() == {"a": 1}


def test_glued_calls_become_one_call_each_with_derived_ids() -> None:
    acc, _, updates = replay("groq_glued_calls", [body("groq_glued_calls")])
    assert calls_of(acc) == [
        (0, "call_rx7p", "get_weather", {"location": "Paris, France"}),
        (1, "call_rx7p_1", "get_weather", {"location": "Tokyo, Japan"}),
        (2, "call_rx7p_2", "get_weather", {"location": "Lima, Peru"}),
    ]
    events = [(u.event, u.index) for u in updates if u.tool is not None]
    assert events[-5:] == [
        ("tool_call_done", 0),
        ("tool_call", 1),
        ("tool_call_done", 1),
        ("tool_call", 2),
        ("tool_call_done", 2),
    ]


def test_arguments_object_is_written_as_json_text() -> None:
    acc, _, updates = replay("ollama_arguments_object", [body("ollama_arguments_object")])
    (tool,) = acc.tool_calls()
    assert tool.raw.startswith('{"sql":"SELECT') and tool.final()["tags"] == ["report", "q3"]
    assert [u.fragment for u in updates if u.event == "tool_call"] == [tool.raw]


def test_arguments_object_then_more_text_is_not_silently_merged() -> None:
    acc = ChatCompletionAccumulator()
    acc.feed(tool_chunk({"index": 0, "id": "a", "function": {"name": "f", "arguments": {"x": 1}}}))
    acc.feed(tool_chunk({"index": 0, "function": {"arguments": ', "y": 2}'}}))
    acc.feed("[DONE]")
    (tool,) = acc.tool_calls()
    assert tool.status == "invalid" and tool.raw == '{"x":1}, "y": 2}'


def test_reasoning_details_merge_and_are_told_once() -> None:
    acc, _, updates = replay("openrouter_reasoning_details", [body("openrouter_reasoning_details")])
    message = acc.completion["choices"][0]["message"]
    (detail,) = message["reasoning_details"]
    assert detail["text"] == message["reasoning"] and detail["signature"].startswith("EqQB")
    thinking = "".join(u.text for u in updates if u.thinking)
    assert thinking == message["reasoning"]  # told once, though the server sent it twice
    assert {u.event for u in updates if u.thinking} == {"reasoning"}


def test_reasoning_details_alone_are_reasoning_text() -> None:
    acc = ChatCompletionAccumulator()
    updates: list[Update] = []
    for piece in ("Think", "ing."):
        details = [{"type": "reasoning.text", "text": piece, "index": 0}]
        updates += acc.feed(text_chunk(reasoning_details=details))
    updates += acc.feed(
        text_chunk(reasoning_details=[{"type": "reasoning.summary", "summary": "S"}])
    )
    assert [(u.event, u.text, u.thinking) for u in updates] == [
        ("reasoning_details", "Think", True),
        ("reasoning_details", "ing.", True),
        ("reasoning_details", "S", True),
    ]
    assert acc.completion["choices"][0]["message"]["reasoning_details"] == [
        {"type": "reasoning.text", "text": "Thinking.", "index": 0},
        {"type": "reasoning.summary", "summary": "S"},
    ]
    assert acc.compatible_reason == "reasoning_details (OpenRouter)"


def test_keepalives_are_skipped_and_counted() -> None:
    acc, _, _ = replay("gateway_keepalive", [body("gateway_keepalive")], compatible=None)
    keepalives = body("gateway_keepalive").count(b"data: : keepalive")
    assert [q.kind for q in acc.quirks] == ["comment_data"] * keepalives
    assert acc.events == len(body("gateway_keepalive").split(b"\n\n")) - 1 - keepalives - 1
    # After close(), a keep-alive is an event too many, like any other; after [DONE] (the
    # connection still open) a gateway may send one more: skipped.
    with pytest.raises(StreamError, match="after close"):
        acc.feed(ServerSentEvent("message", ": keepalive"))
    acc = ChatCompletionAccumulator()
    acc.feed("[DONE]")
    assert acc.feed(ServerSentEvent("message", ": keepalive")) == [] and acc.events == 1


def test_usage_in_a_last_chunk_with_empty_choices() -> None:
    acc, _, updates = replay("deepseek_usage_empty_choices", [body("deepseek_usage_empty_choices")])
    assert acc.completion["usage"]["completion_tokens_details"] == {"reasoning_tokens": 38}
    assert [u.event for u in updates][-2:] == ["usage", "done"]


def test_long_arguments_in_one_chunk() -> None:
    acc, _, updates = replay("vllm_long_silence", [body("vllm_long_silence")])
    (tool,) = acc.tool_calls()
    assert len(tool.raw) > 17_000 and tool.final()["content"].startswith("DATA = {")
    assert [len(u.fragment) for u in updates if u.event == "tool_call"] == [0, len(tool.raw)]


def test_arguments_neither_string_nor_object_is_a_stream_error() -> None:
    acc, error, _ = replay("arguments_array", [body("arguments_array")], compatible=None)
    assert error is not None and "not a string or object" in error.message
    assert acc.completion["choices"][0]["message"]["content"] == "Running it."


# -- choosing the profile ----------------------------------------------------------------------


def text_chunk(choice: int = 0, finish: str | None = None, **delta: Any) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "m",
        "choices": [{"index": choice, "delta": delta, "finish_reason": finish}],
    }


def tool_chunk(*calls: dict[str, Any]) -> dict[str, Any]:
    return text_chunk(tool_calls=list(calls))


def test_compatible_takes_true_false_or_none() -> None:
    with pytest.raises(TypeError, match="compatible= takes True, False, or None"):
        ChatCompletionAccumulator(compatible="yes")
    with pytest.raises(TypeError):
        ChatCompletionAccumulator(compatible=1)
    assert not ChatCompletionAccumulator().compatible
    assert ChatCompletionAccumulator(compatible=True).compatible


def test_compatible_false_is_the_openai_wire_format_only() -> None:
    """``compatible=False``: what only a compatible server sends is refused (a keep-alive,
    arguments as an object) or kept as an unknown field (``reasoning_details``, its latest
    value), and nothing turns the profile on."""
    acc = ChatCompletionAccumulator(compatible=False)
    with pytest.raises(StreamError, match="not JSON"):
        acc.feed(ServerSentEvent("message", ": keepalive"))
    with pytest.raises(StreamError, match="the function arguments is a dict, not a string"):
        acc.feed(tool_chunk({"index": 0, "id": "a", "function": {"name": "f", "arguments": {}}}))
    acc.feed({**text_chunk(reasoning_details=[{"text": "a", "index": 0}]), "x_groq": {"id": "r"}})
    acc.feed(text_chunk(reasoning_details=[{"text": "b", "index": 0}]))
    assert acc.completion["choices"][0]["message"]["reasoning_details"] == [
        {"text": "b", "index": 0}
    ]
    assert not acc.compatible and acc.quirks == []


def test_a_reused_index_without_the_profile_keeps_the_strict_rules() -> None:
    """Without a sign of a compatible server, the index is the call: the second id is
    dropped, the text is two values, and the call says so (``invalid``, ``glued``)."""
    acc = ChatCompletionAccumulator()
    acc.feed(tool_chunk({"index": 0, "id": "a", "function": {"name": "f", "arguments": '{"x":1}'}}))
    acc.feed(tool_chunk({"index": 0, "id": "b", "function": {"name": "f", "arguments": '{"x":2}'}}))
    acc.feed("[DONE]")
    (tool,) = acc.tool_calls()
    assert (tool.id, tool.status, tool.glued, tool.values) == (
        "a",
        "invalid",
        True,
        [{"x": 1}, {"x": 2}],
    )


def test_a_call_merged_before_the_profile_was_chosen_is_never_split() -> None:
    """Two calls merged under the strict rules (two ids at one index) and only then a sign
    of a compatible server: splitting the text would give calls that look right under a
    name that is both names joined. The call stays ``invalid``, glued."""
    acc = ChatCompletionAccumulator()
    acc.feed(tool_chunk({"index": 0, "id": "a", "function": {"name": "f", "arguments": '{"x":1}'}}))
    acc.feed(tool_chunk({"index": 0, "id": "b", "function": {"name": "g", "arguments": '{"x":2}'}}))
    acc.feed({**text_chunk(), "x_groq": {"id": "req_1"}})
    assert acc.compatible and acc.compatible_reason == "an x_groq field (Groq)"
    acc.feed("[DONE]")
    (tool,) = acc.tool_calls()
    assert tool.status == "invalid" and tool.glued and acc.quirks == []


def test_a_rejected_chunk_does_not_choose_the_profile() -> None:
    acc = ChatCompletionAccumulator()
    with pytest.raises(StreamError):
        acc.feed({**text_chunk(content=5), "x_groq": {"id": "r"}})
    with pytest.raises(StreamError):
        acc.feed(tool_chunk({"index": 0, "function": {"arguments": {"x": float("nan")}}}))
    assert not acc.compatible and acc.completion["choices"] == []


def test_glued_values_that_are_not_all_whole_are_not_split() -> None:
    """The second value cut short, too many values to be calls, a value repaired: the call
    stays ``invalid`` (glued), never split into calls that were not sent."""
    cases = ['{"a":1}{"b":', '{"a":1}' + "{}" * 20, '{"a":1}[1,2]x']
    for text in cases:
        acc = ChatCompletionAccumulator(compatible=True)
        acc.feed(tool_chunk({"index": 0, "id": "c", "function": {"name": "f", "arguments": text}}))
        acc.feed("[DONE]")
        (tool,) = acc.tool_calls()
        assert tool.status == "invalid", text
    acc = ChatCompletionAccumulator(compatible=True, repair=True)
    acc.feed(
        tool_chunk(
            {"index": 0, "id": "c", "function": {"name": "f", "arguments": "{'a': 1}{'b': 2,}"}}
        )
    )
    acc.feed("[DONE]")
    assert [t.final() for t in acc.tool_calls()] == [{"a": 1}, {"b": 2}]


def test_compatible_does_not_imply_repair() -> None:
    acc = ChatCompletionAccumulator(compatible=True)
    acc.feed(
        tool_chunk({"index": 0, "id": "c", "function": {"name": "f", "arguments": "{'a': 1}"}})
    )
    acc.feed("[DONE]")
    assert acc.tools[0].status == "invalid" and acc.tools[0].repairs == []


def test_tool_inputs_are_chat_tool_inputs() -> None:
    acc, _, _ = replay("whole_arguments", [body("whole_arguments")], compatible=False)
    (tool,) = acc.tool_calls()
    assert isinstance(tool, ChatToolInput) and tool.quirks == []
    assert repr(Quirk("reused_index", 0, 1, "id 'b' at index 0")) == (
        "<Quirk reused_index choice 0 call 1: id 'b' at index 0>"
    )


# -- the pieces of _compat ---------------------------------------------------------------------


def test_dump_arguments_is_json_at_any_depth() -> None:
    value = {"a": [1, 2.5, -0.0, True, None, 'é"\\\n'], "b": {}, "c": [], "d": {"e": [{}]}}
    assert json.loads(dump_arguments(value)) == value
    assert dump_arguments({"k": (1, 2)}) == '{"k":[1,2]}'
    deep: Any = []
    for _ in range(50_000):
        deep = [deep]
    assert dump_arguments({"x": deep}) == '{"x":' + "[" * 50_001 + "]" * 50_001 + "}"
    cycle: dict[str, Any] = {}
    cycle["self"] = cycle
    shared = [1]
    assert dump_arguments({"a": shared, "b": shared}) == '{"a":[1],"b":[1]}'
    for bad, message in [
        (cycle, "cycle"),
        ({"n": float("nan")}, "which JSON cannot"),
        ({1: 2}, "the key 1"),
        ({"o": object()}, "which JSON cannot"),
        ([1], "a list, not a string or object"),
    ]:
        with pytest.raises(StreamError, match=message):
            dump_arguments(bad)


def test_value_spans() -> None:
    text = '{"a": "}{\\"["} [1, {"b": []}]\n"s" 12 true{}'
    spans = value_spans(text)
    assert [text[a:b] for a, b in spans] == [
        '{"a": "}{\\"["}',
        '[1, {"b": []}]',
        '"s"',
        "12",
        "true",
        "{}",
    ]
    assert value_spans("{]}") == [] and value_spans("{") == [] and value_spans("") == []
    deep = "[" * 100_000 + "]" * 100_000
    assert value_spans(deep + deep) == [(0, 200_000), (200_000, 400_000)]


# -- the command line --------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_jsonsnap_replay_in_a_pipe(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    """``jsonsnap replay`` plays each fixture with the default accumulator (the profile
    chosen where the stream shows it): plain lines, the exit status of its error."""
    want = expected(name)
    status = cli.main(["replay", str(FIXTURES / f"{name}.sse")])
    out, err = capsys.readouterr()
    acc, _, _ = replay(name, [body(name)], compatible=None)
    unfit = any(call.status != "complete" for call in acc.tool_calls())  # fails too
    assert status == (1 if want["error"] or unfit else 0), err
    assert "\x1b" not in out and ("stream error" in err) == bool(want["error"])
    assert out.count("╭─") == out.count("╰─") == len(want["tools"])


@pytest.mark.parametrize("name", NAMES)
def test_jsonsnap_replay_json(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    """``--json`` is the default accumulator's result: the calls meant, unless the fixture
    needs ``compatible=True`` (``replay`` has no option for it)."""
    status = cli.main(["replay", str(FIXTURES / f"{name}.sse"), "--json"])
    out, _ = capsys.readouterr()
    acc, error, _ = replay(name, [body(name)], compatible=None)
    unfit = any(call.status != "complete" for call in acc.tool_calls())  # fails too
    assert json.loads(out) == acc.completion and status == (1 if error or unfit else 0)
    if not expected(name)["needs_flag"]:
        check(name, state(acc, error), "replay")
