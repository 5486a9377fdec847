"""The hostile streams of issue 12, one by one: each must cost what it weighs, raise nothing
but ``StreamError``, and leave the result whole. (``test_stream_errors.py`` generates such
streams by the thousand; these are the cases found by hand, kept as they were found.)
"""

from __future__ import annotations

import copy
import tracemalloc
from collections.abc import Callable
from typing import Any

import pytest

from jsonsnap.anthropic import MessageAccumulator
from jsonsnap.openai import ChatCompletionAccumulator, ResponseAccumulator
from jsonsnap.sse import ServerSentEvent
from jsonsnap.streams import PROTOCOLS, Accumulator, StreamError

START = {"type": "message_start", "message": {"id": "m", "content": [], "usage": {"a": 1}}}
CREATED = {"type": "response.created", "response": {"id": "r", "output": []}}
ITEM = {"type": "message", "content": []}


def anthropic(*events: dict[str, Any]) -> MessageAccumulator:
    acc = MessageAccumulator()
    for event in (START, *events):
        acc.feed(event)
    return acc


def block(index: int, kind: str = "text") -> dict[str, Any]:
    content: dict[str, Any] = {"type": kind, "id": "t", "name": "f", "input": {}}
    if kind == "text":
        content = {"type": "text", "text": ""}
    return {"type": "content_block_start", "index": index, "content_block": content}


def delta(index: int, **fields: Any) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": index, "delta": fields}


def responses(*events: dict[str, Any]) -> ResponseAccumulator:
    acc = ResponseAccumulator()
    for event in (CREATED, *events):
        acc.feed(event)
    return acc


def peak_of(action: Callable[[], object]) -> int:
    tracemalloc.start()
    try:
        action()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


# --------------------------------------------------------------------------- memory, indices


@pytest.mark.parametrize("key", ["content_index", "summary_index"])
def test_an_index_may_not_pad_a_list(key: str) -> None:
    """At 10**7 the parts list used to be padded: 3.9 s and 0.72 GB for one small event."""
    added = {"type": "response.output_item.added", "output_index": 0, "item": ITEM}
    acc = responses(added)
    summary = key == "summary_index"
    kind = f"response.{'reasoning_summary_text' if summary else 'output_text'}.delta"
    event = {"type": kind, "output_index": 0, key: 10**7, "delta": "x"}

    def feed() -> None:
        with pytest.raises(StreamError, match="does not exist"):
            acc.feed(event)

    assert peak_of(feed) < 100_000
    event[key] = 0  # the next part: made
    acc.feed(event)
    event[key] = 2  # one past the next: refused
    with pytest.raises(StreamError, match=r"the next one is 1"):
        acc.feed(event)


@pytest.mark.parametrize(
    ("make", "event"),
    [
        (lambda: anthropic(), block(10**7)),
        (lambda: anthropic(block(0)), delta(10**7, type="text_delta", text="x")),
        (lambda: responses(), {"type": "response.output_item.added", "output_index": 10**9}),
        (lambda: responses(), {"type": "response.output_text.delta", "output_index": 2**64}),
    ],
)
def test_every_index_is_checked_the_same_way(
    make: Callable[[], Accumulator], event: dict[str, Any]
) -> None:
    acc = make()
    before = copy.deepcopy(acc.result)
    with pytest.raises(StreamError):
        acc.feed(event)
    assert acc.result == before


def test_chat_indices_are_keys_not_places() -> None:
    """Chat Completions keys choices and calls by index (a first call of index 1 is a real
    server's habit): a large index costs one entry, not a list that long."""
    call = {"index": 10**6, "id": "c", "function": {"name": "f", "arguments": "{}"}}
    chunk = {"choices": [{"index": 10**6, "delta": {"tool_calls": [call]}}]}
    acc = ChatCompletionAccumulator()
    assert peak_of(lambda: acc.feed(chunk)) < 100_000
    assert [t.index for t in acc.tool_calls(10**6)] == [10**6]
    with pytest.raises(StreamError, match="not an index"):
        acc.feed({"choices": [{"index": 2**63, "delta": {}}]})


# --------------------------------------------------------------------------- only StreamError


@pytest.mark.parametrize("protocol", sorted(PROTOCOLS))
@pytest.mark.parametrize(
    "data",
    ["[" * 100_000, "[" * 100_000 + "]" * 100_000, '{"type": "x", "a": ' + "[" * 100_000],
    ids=["unfinished", "an array", "inside an object"],
)
def test_deep_data_is_a_stream_error_not_a_recursion_error(protocol: str, data: str) -> None:
    acc = PROTOCOLS[protocol]()
    with pytest.raises(StreamError, match="not"):
        acc.feed(ServerSentEvent("message", data))


def test_deep_data_that_is_kept() -> None:
    """A citation 100,000 deep: decoded, kept, and the stream goes on."""
    deep = "[" * 100_000 + "]" * 100_000
    data = '{"type": "content_block_delta", "index": 0, "delta": {"type": "citations_delta", '
    acc = anthropic(block(0))
    acc.feed(ServerSentEvent("content_block_delta", data + f'"citation": {deep}' + "}}"))
    acc.feed(delta(0, type="text_delta", text="ok"))
    assert acc.message is not None and acc.message["content"][0]["text"] == "ok"


@pytest.mark.parametrize("protocol", ["anthropic", "responses"])
@pytest.mark.parametrize("kind", [[], {}, 5, None, True])
def test_a_type_that_is_not_a_string(protocol: str, kind: Any) -> None:
    with pytest.raises(StreamError, match="type is"):
        PROTOCOLS[protocol]().feed({"type": kind})


# --------------------------------------------------------------------------- never half applied


def test_message_delta_changes_only_what_it_may() -> None:
    """``message.update(delta)`` used to take ``usage: null`` (then raise on the counts, with
    ``stop_reason`` already set), and let ``content: []`` wipe every block and ``id`` change."""
    acc = anthropic(block(0), delta(0, type="text_delta", text="kept"))
    acc.feed(
        {
            "type": "message_delta",
            "delta": {
                "stop_reason": "end_turn",
                "usage": None,
                "content": [],
                "id": "other",
                "container": {"id": "c1"},
            },
            "usage": {"output_tokens": 7},
        }
    )
    message = acc.message
    assert message is not None
    assert message["content"] == [{"type": "text", "text": "kept"}] and message["id"] == "m"
    assert message["usage"] == {"a": 1, "output_tokens": 7}
    assert (message["stop_reason"], message["container"]) == ("end_turn", {"id": "c1"})
    before = copy.deepcopy(message)
    with pytest.raises(StreamError):
        acc.feed({"type": "message_delta", "delta": {"stop_reason": 5}, "usage": {"x": 1}})
    with pytest.raises(StreamError):
        acc.feed({"type": "message_delta", "delta": {"stop_reason": "x"}, "usage": [1]})
    assert acc.message == before


def test_a_message_in_a_chat_choice_is_not_taken() -> None:
    acc = ChatCompletionAccumulator()
    acc.feed({"choices": [{"index": 0, "delta": {"content": "Hel"}}]})
    message = acc.completion["choices"][0]["message"]
    acc.feed({"choices": [{"index": 0, "delta": {}, "message": {"content": "forged"}}]})
    acc.feed({"choices": [{"index": 0, "delta": {"content": "lo"}}]})
    assert acc.completion["choices"][0]["message"] is message
    assert message["content"] == "Hello"


# --------------------------------------------------------------------------- after the end


def test_anthropic_events_after_the_end() -> None:
    acc = anthropic(block(0), delta(0, type="text_delta", text="a"))
    acc.feed({"type": "content_block_stop", "index": 0})
    with pytest.raises(StreamError, match="block 0, which has stopped"):
        acc.feed(delta(0, type="text_delta", text="late"))
    acc.feed(block(1, "tool_use"))
    acc.feed(delta(1, type="input_json_delta", partial_json='{"a": 1}'))
    acc.feed({"type": "content_block_stop", "index": 1})
    with pytest.raises(StreamError, match="which has stopped"):
        acc.feed(delta(1, type="input_json_delta", partial_json='{"rm": "-rf"}'))
    tool = acc.tools[1]
    assert (tool.status, tool.raw, tool.final()) == ("complete", '{"a": 1}', {"a": 1})
    acc.feed({"type": "message_stop"})
    for event in (delta(0, type="text_delta", text="x"), block(2), {"type": "ping"}, START):
        with pytest.raises(StreamError, match="after the end"):
            acc.feed(event)
    assert acc.message is not None and acc.message["content"][0]["text"] == "a"


def test_chat_arguments_after_finish_reason() -> None:
    call = {"index": 0, "id": "c", "function": {"name": "f", "arguments": '{"a": 1}'}}
    acc = ChatCompletionAccumulator()
    acc.feed({"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]})
    acc.feed({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
    assert acc.done
    more = {"index": 0, "function": {"arguments": "{}"}}
    for late in ({"tool_calls": [more]}, {"content": "late"}, {"function_call": {"name": "g"}}):
        with pytest.raises(StreamError, match="after finish_reason in choice 0"):
            acc.feed({"choices": [{"index": 0, "delta": late}]})
    acc.feed({"choices": [], "usage": {"total_tokens": 3}})  # usage after the end: fine
    acc.feed("[DONE]")
    with pytest.raises(StreamError, match="after the end"):
        acc.feed({"choices": []})
    assert acc.tool_calls()[0].final() == {"a": 1}


def test_responses_events_after_the_end() -> None:
    added = {"type": "response.output_item.added", "output_index": 0, "item": ITEM}
    done = {"type": "response.output_item.done", "output_index": 0, "item": ITEM}
    acc = responses(added, done)
    text = {"type": "response.output_text.delta", "output_index": 0, "content_index": 0}
    with pytest.raises(StreamError, match="output item 0, which is done"):
        acc.feed({**text, "delta": "late"})
    acc.feed({"type": "response.completed", "response": {"id": "r", "status": "completed"}})
    more = {"type": "response.output_item.added", "output_index": 1, "item": ITEM}
    with pytest.raises(StreamError, match="after the end"):
        acc.feed(more)
    assert acc.response is not None and len(acc.response["output"]) == 1


def test_responses_arguments_after_their_done() -> None:
    call = {"type": "function_call", "name": "f", "call_id": "c", "arguments": ""}
    acc = responses({"type": "response.output_item.added", "output_index": 0, "item": call})
    args = {"type": "response.function_call_arguments.delta", "output_index": 0}
    acc.feed({**args, "delta": '{"a": 1}'})
    acc.feed({"type": "response.function_call_arguments.done", "output_index": 0})
    with pytest.raises(StreamError, match="after its end"):
        acc.feed({**args, "delta": "2"})
    assert acc.tools[0].raw == '{"a": 1}' and acc.tools[0].final() == {"a": 1}


# --------------------------------------------------------------------------- the caller's data


def test_the_callers_events_are_never_changed() -> None:
    """The Responses accumulator used to append parts and annotations to the lists of the
    caller's own ``item`` dict; Anthropic, to a block's ``citations``."""
    item = {"type": "message", "content": [], "summary": []}
    events: list[dict[str, Any]] = [
        CREATED,
        {"type": "response.output_item.added", "output_index": 0, "item": item},
        {"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "delta": "a"},
        {
            "type": "response.output_text.annotation.added",
            "output_index": 0,
            "content_index": 0,
            "annotation": {"url": "u"},
        },
    ]
    kept = copy.deepcopy(events)
    acc = ResponseAccumulator()
    for event in events:
        acc.feed(event)
    assert events == kept
    cited = {"type": "text", "text": "", "citations": []}
    start = {"type": "content_block_start", "index": 0, "content_block": cited}
    citation = delta(0, type="citations_delta", citation={"n": 1})
    anthropic(start, citation)
    assert cited == {"type": "text", "text": "", "citations": []}
