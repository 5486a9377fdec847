"""Tolerant tool inputs in every accumulator, and tool inputs that hold values glued together.

Each protocol's events are made here, as small as the protocol allows, around one tool call
whose arguments arrive in the pieces given (every piece of every chunking of the text). With
``repair=True`` the call's input is read tolerantly (``ToolInput.repairs``); strict or not, an
input of two values glued together (``{..}{..}``) is reported as such, never as an error at
the second ``{`` or as text after the first value; with ``repair=True``, so are two values with
a comma, a comment or prose between them, while text after the value that holds no value stays
``trailing_text``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, Final

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jsonsnap
import strategies
from chunking import chunkings
from effort import examples
from jsonsnap.anthropic import MessageAccumulator
from jsonsnap.openai import ChatCompletionAccumulator, ResponseAccumulator
from jsonsnap.streams import Accumulator, ToolInput, ToolInputError


def message_start() -> dict[str, Any]:
    message: dict[str, Any] = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 1},
    }
    return {"type": "message_start", "message": message}


def anthropic_events(pieces: Sequence[str]) -> list[dict[str, Any]]:
    block = {"type": "tool_use", "id": "toolu_1", "name": "run", "input": {}}
    return [
        message_start(),
        {"type": "content_block_start", "index": 0, "content_block": block},
        *(
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "input_json_delta", "partial_json": piece},
            }
            for piece in pieces
        ),
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use", "stop_sequence": None},
            "usage": {"output_tokens": 9},
        },
        {"type": "message_stop"},
    ]


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "gpt",
        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
    }


def chat_events(pieces: Sequence[str]) -> list[dict[str, Any]]:
    first = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "index": 0,
                "id": "call_1",
                "type": "function",
                "function": {"name": "run", "arguments": ""},
            }
        ],
    }
    return [
        _chunk(first),
        *(
            _chunk({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]})
            for piece in pieces
        ),
        _chunk({}, "tool_calls"),
    ]


def responses_events(pieces: Sequence[str]) -> list[dict[str, Any]]:
    text = "".join(pieces)
    response = {
        "id": "resp_1",
        "object": "response",
        "created_at": 1,
        "status": "in_progress",
        "model": "gpt",
        "output": [],
    }
    item = {
        "id": "fc_1",
        "type": "function_call",
        "status": "in_progress",
        "arguments": "",
        "call_id": "call_1",
        "name": "run",
    }
    done = {**item, "status": "completed", "arguments": text}
    events: list[dict[str, Any]] = [
        {"type": "response.created", "sequence_number": 0, "response": response},
        {"type": "response.output_item.added", "output_index": 0, "item": item},
        *(
            {
                "type": "response.function_call_arguments.delta",
                "item_id": "fc_1",
                "output_index": 0,
                "delta": piece,
            }
            for piece in pieces
        ),
        {
            "type": "response.function_call_arguments.done",
            "item_id": "fc_1",
            "output_index": 0,
            "arguments": text,
        },
        {"type": "response.output_item.done", "output_index": 0, "item": done},
        {
            "type": "response.completed",
            "response": {**response, "status": "completed", "output": [done]},
        },
    ]
    for number, event in enumerate(events):
        event["sequence_number"] = number
    return events


PROTOCOLS: Final[dict[str, tuple[type[Accumulator], Callable[[Sequence[str]], list[Any]]]]] = {
    "anthropic": (MessageAccumulator, anthropic_events),
    "chat": (ChatCompletionAccumulator, chat_events),
    "responses": (ResponseAccumulator, responses_events),
}


def call(protocol: str, pieces: Sequence[str], **options: Any) -> tuple[ToolInput, list[Any]]:
    """The tool input of a stream whose one call's arguments come in ``pieces``, and its
    snapshot after each event."""
    kind, events = PROTOCOLS[protocol]
    acc = kind(**options)
    shown = []
    for event in events(pieces):
        acc.feed(event)
        if acc.tool_calls():
            shown.append(json.dumps(acc.tool_calls()[0].snapshot))
    acc.close()
    (tool,) = acc.tool_calls()
    return tool, shown


BROKEN: Final = "```json\n{command: 'ls -la', // list\n 'args': [\"a\", \"b\",], dry: True,}\n```"


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_tool_arguments_read_tolerantly(protocol: str) -> None:
    for label, pieces in chunkings(BROKEN, rounds=2):
        tool, _ = call(protocol, pieces, repair=True)
        assert tool.status == "complete", (label, tool.status, tool.error)
        assert tool.final() == {"command": "ls -la", "args": ["a", "b"], "dry": True}
        assert [r.kind for r in tool.repairs] == [
            "leading_text",
            "unquoted_key",
            "single_quotes",
            "comment",
            "single_quotes",
            "trailing_comma",
            "unquoted_key",
            "python_literal",
            "trailing_comma",
            "trailing_text",
        ], label
        tool, _ = call(protocol, pieces)  # strict: the first character is an error
        assert tool.status == "invalid"
        assert tool.error is not None and tool.error.pos == 0
        with pytest.raises(ToolInputError, match="invalid input JSON"):
            tool.final()


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_only_the_repairs_asked_for(protocol: str) -> None:
    tool, _ = call(protocol, ['{"a": [1,', "]}"], repair={"trailing_comma"})
    assert tool.final() == {"a": [1]}
    tool, _ = call(protocol, ['{"a": [1,', "]} // x"], repair={"trailing_comma"})
    assert tool.status == "invalid" and tool.error is not None and tool.error.msg == "Extra data"
    with pytest.raises(ValueError, match="unknown repair"):
        PROTOCOLS[protocol][0](repair={"nope"})


@pytest.mark.parametrize("repair", [False, True])
@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_glued_values_are_reported_as_such(protocol: str, repair: bool) -> None:
    text = '{"city": "Paris"}{"city": "Rome", "days": [1, 2]}\n{"city": "Oslo"}'
    for label, pieces in chunkings(text, rounds=2):
        tool, shown = call(protocol, pieces, repair=repair)
        assert tool.glued, label
        assert tool.status == "invalid"
        assert tool.error is None
        assert tool.values == [
            {"city": "Paris"},
            {"city": "Rome", "days": [1, 2]},
            {"city": "Oslo"},
        ], label
        assert tool.snapshot == {"city": "Paris"}  # the first value, never replaced
        assert "Rome" not in "".join(shown) and json.loads(shown[-1]) == {"city": "Paris"}
        assert tool.repairs == []
        with pytest.raises(ToolInputError, match=r"is 3 JSON values glued together.*char 17"):
            tool.final()


def test_glued_values_with_repairs_and_an_error_in_the_second() -> None:
    tool, _ = call("anthropic", ["{'a': 1}\n", "{b: [1,]", "}  {'c': "], repair=True)
    assert tool.values == [{"a": 1}, {"b": [1]}, {}]
    assert [(r.kind, r.pos, r.lineno, r.colno) for r in tool.repairs] == [
        ("single_quotes", 1, 1, 2),
        ("unquoted_key", 10, 2, 2),
        ("trailing_comma", 16, 2, 8),
        ("single_quotes", 21, 2, 13),
        ("unclosed", 26, 2, 18),
    ]
    tool, _ = call("chat", ['{"a": 1}{"b": x}'])
    assert tool.status == "invalid" and tool.glued
    assert tool.error is not None and (tool.error.pos, tool.error.msg) == (14, "Expecting value")
    with pytest.raises(ToolInputError, match="invalid input JSON"):
        tool.final()


def test_text_after_the_arguments_is_a_repair_not_a_glued_value() -> None:
    tool, _ = call("anthropic", ['{"a": 1}', "}"], repair=True)
    assert not tool.glued and tool.final() == {"a": 1}
    assert [(r.kind, r.pos) for r in tool.repairs] == [("trailing_text", 8)]
    tool, _ = call("anthropic", ['{"a": 1}', "}"])
    assert tool.status == "invalid" and not tool.glued


def test_structured_output_read_tolerantly() -> None:
    schema = {
        "type": "object",
        "properties": {"n": {"type": "integer"}},
        "required": ["n"],
    }
    acc = MessageAccumulator(output_schema=schema, repair=True)
    events: list[dict[str, Any]] = [
        message_start(),
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        *(
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": t}}
            for t in ("Here:\n```json\n{n: 4", "2,}\n```")
        ),
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn", "stop_sequence": None},
            "usage": {"output_tokens": 9},
        },
        {"type": "message_stop"},
    ]
    for event in events:
        acc.feed(event)
    output = acc.structured
    assert output is not None and output.final() == {"n": 42}
    assert [r.kind for r in output.repairs] == [
        "leading_text",
        "unquoted_key",
        "trailing_comma",
        "trailing_text",
    ]
    assert jsonsnap.REPAIRS["trailing_text"].startswith("text after")


#: What may separate two calls glued into one argument text, and the repair it is.
SEPARATED: Final = [
    (", ", "leading_text"),
    (",\n", "leading_text"),
    (" /* next */ ", "comment"),
    ("// next\n", "comment"),
    ("\nand then ", "leading_text"),
    ("\n```\n```json\n", "leading_text"),
]


@pytest.mark.parametrize(("separator", "kind"), SEPARATED)
@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_glued_values_with_something_between_them(protocol: str, separator: str, kind: str) -> None:
    text = '{"city": "Paris"}' + separator + '{"city": "Rome"}'
    at = 17 + len(separator) - len(separator.lstrip())  # where the separator's text begins
    for label, pieces in chunkings(text, rounds=1):
        tool, _ = call(protocol, pieces, repair=True)
        assert tool.glued, label
        assert (tool.status, tool.error) == ("invalid", None), label
        assert tool.values == [{"city": "Paris"}, {"city": "Rome"}], label
        assert tool.snapshot == {"city": "Paris"}
        assert [(r.kind, r.pos) for r in tool.repairs] == [(kind, at)], label
        with pytest.raises(ToolInputError, match="is 2 JSON values glued together"):
            tool.final()


@pytest.mark.parametrize(
    "after", ["\n```", "}", " // {'b': 2}", "\n\nThanks! [see] above", " 12 items"]
)
def test_text_after_the_arguments_that_holds_no_value_is_not_glued(after: str) -> None:
    for label, pieces in chunkings('{"a": 1}' + after, rounds=1):
        tool, _ = call("anthropic", pieces, repair=True)
        assert not tool.glued and tool.values == [{"a": 1}], label
        assert tool.final() == {"a": 1}
        at = 8 + len(after) - len(after.lstrip())
        assert [(r.kind, r.pos) for r in tool.repairs] == [("trailing_text", at)], label


_SEPARATOR = st.lists(
    st.sampled_from([", ", ",", " ", "\n", "/* c */", "// c\n", "then", "and", "```", ":", "x"]),
    min_size=1,
    max_size=5,
).map("".join)


@settings(max_examples=examples(40))
@given(st.data())
def test_two_calls_with_anything_between_them_are_glued(data: st.DataObject) -> None:
    separator = data.draw(_SEPARATOR, label="separator")
    text = '{"a": 1}' + separator + '{"b": [2]}'
    cuts = data.draw(strategies.split_points(len(text)), label="cuts")
    tool, _ = call("anthropic", strategies.fragments_at(text, cuts), repair=True)
    assert tool.glued and tool.values == [{"a": 1}, {"b": [2]}], (text, tool.values)
    assert tool.status == "invalid" and tool.error is None
    if separator.strip():  # (whitespace alone needs no repair)
        at = 8 + len(separator) - len(separator.lstrip())
        assert tool.repairs and tool.repairs[0].pos == at, tool.repairs
