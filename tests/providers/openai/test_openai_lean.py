"""The lean chunk path of the Chat Completions accumulator against the general one.

A chunk that brings one piece of text or of one call's arguments is read at once
(``openai/_lean.py``); every other chunk goes the general way. A choice's ``"message": null``
changes nothing in the general reading (a streamed choice's ``message`` is never taken) but
is outside the lean shape, so each stream here is fed twice, as it is and with that field in
every choice: the updates, the completion, the quirks, the tool inputs and the errors must be
the same, with the body whole, one byte at a time and at random splits.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from typing import Any, Final

import pytest

import paths
from jsonsnap.openai import ChatCompletionAccumulator, StreamError
from jsonsnap.openai._lean import lean_piece
from jsonsnap.sse import SSEDecoder
from recordings import byte_cuts, chunks_of

FIXTURES: Final = sorted(
    [
        *(paths.FIXTURES / "openai").glob("chat_*.sse"),
        *(paths.FIXTURES / "openai-compatible").glob("*.sse"),
    ]
)
HEAD: Final = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m"}


def _events(body: bytes) -> list[tuple[str | None, str]]:
    decoder = SSEDecoder()
    return [
        (sse.event if sse.event != "message" else None, sse.data)
        for sse in [*decoder.feed(body), *decoder.close()]
    ]


def _general(data: str) -> str:
    """The data of an event with ``"message": null`` in each choice (the general path)."""
    try:
        value = json.loads(data)
    except json.JSONDecodeError:
        return data
    if isinstance(value, dict) and isinstance(value.get("choices"), list):
        for choice in value["choices"]:
            if isinstance(choice, dict):
                choice.setdefault("message", None)
    return json.dumps(value)


def _body(events: Sequence[tuple[str | None, str]], *, general: bool) -> bytes:
    out = []
    for name, data in events:
        head = "" if name is None else f"event: {name}\n"
        text = _general(data) if general else data
        out.append(f"{head}data: {text}\n\n")
    return "".join(out).encode()


def _outcome(body: list[bytes], **options: Any) -> dict[str, Any]:
    """Everything the accumulator shows of a body: each update, the end state, the error."""
    acc = ChatCompletionAccumulator(**options)
    seen: list[Any] = []
    error = None
    try:
        seen.extend(
            (repr(update), update.snapshot, update.fragment, update.changed, update.text)
            for update in acc.updates(body)
        )
    except StreamError as exc:
        error = (type(exc).__name__, str(exc))
    tools = {
        choice: [
            (t.index, t.id, t.name, t.raw, t.status, repr(t.error), getattr(t, "quirks", None))
            for t in acc.tool_calls(choice)
        ]
        for choice in range(3)
    }
    return {
        "updates": seen,
        "error": error,
        "completion": json.dumps(acc.completion, sort_keys=True, default=repr),
        "quirks": list(acc.quirks),
        "compatible": (acc.compatible, acc.compatible_reason),
        "tools": tools,
        "done": acc.done,
    }


def _same_both_ways(events: Sequence[tuple[str | None, str]], **options: Any) -> None:
    lean, general = _body(events, general=False), _body(events, general=True)
    want = _outcome([general], **options)
    for label, pieces in byte_cuts(lean, rounds=3):
        assert _outcome(pieces, **options) == want, label
    assert _outcome(chunks_of(general, 7), **options) == want


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: f"{p.parent.name}/{p.stem}")
@pytest.mark.parametrize("compatible", [None, True, False])
def test_every_recording_reads_the_same_both_ways(path: Any, compatible: bool | None) -> None:
    _same_both_ways(_events(path.read_bytes()), compatible=compatible)


def _chunk(delta: dict[str, Any], **choice: Any) -> tuple[None, str]:
    return None, json.dumps({**HEAD, "choices": [{"index": 0, "delta": delta, **choice}]})


def _call(**call: Any) -> tuple[None, str]:
    return _chunk({"tool_calls": [call]})


#: Streams whose chunks the lean path takes, declines, or takes and refuses, one per case.
STREAMS: Final[dict[str, list[tuple[None, str]]]] = {
    "text, role repeated": [
        _chunk({"role": "assistant", "content": ""}),
        *(_chunk({"role": "assistant", "content": t}) for t in ("Hel", "lo", " there")),
        _chunk({"reasoning_content": "hm", "content": None}),
        _chunk({"refusal": "no"}),
        _chunk({}, finish_reason="stop"),
    ],
    "arguments, name repeated, null id and type": [
        _call(index=0, id="call_1", type="function", function={"name": "f", "arguments": ""}),
        _call(index=0, function={"arguments": '{"a": '}),
        _call(index=0, id=None, type=None, function={"name": "f", "arguments": '"x'}),
        _call(index=0, type="function", function={"name": None, "arguments": '", "b"'}),
        _call(index=0, function={"arguments": ""}),
        _call(index=0, function={"arguments": ": [1, 2]}"}),
        _chunk({}, finish_reason="tool_calls"),
    ],
    "two calls interleaved": [
        _call(index=0, id="a", function={"name": "f", "arguments": ""}),
        _call(index=1, id="b", function={"name": "g", "arguments": "[1"}),
        _call(index=0, function={"arguments": "{}"}),
        _call(index=1, function={"arguments": ", 2]"}),
        _chunk({"content": "and"}),
        (None, "[DONE]"),
    ],
    "a piece after finish_reason": [
        _chunk({"role": "assistant", "content": "a"}),
        _chunk({"content": "b"}, finish_reason="stop"),
        _chunk({"content": "c"}),
    ],
    "arguments after finish_reason": [
        _call(index=0, id="a", function={"name": "f", "arguments": "{"}),
        _chunk({}, finish_reason="tool_calls"),
        _call(index=0, function={"arguments": "}"}),
    ],
    "a wrong type": [
        _call(index=0, id="a", function={"name": "f", "arguments": "{"}),
        _call(index=0, function={"arguments": 5}),
    ],
    "a wrong name type": [
        _call(index=0, id="a", function={"name": "f", "arguments": "{"}),
        _call(index=0, function={"name": 5, "arguments": "}"}),
    ],
    "a wrong content type": [
        _chunk({"role": "assistant", "content": "a"}),
        _chunk({"content": ["b"]}),
    ],
    "an index that is a bool": [
        _call(index=0, id="a", function={"name": "f", "arguments": "{"}),
        _call(index=True, function={"arguments": "}"}),
    ],
    "a choice index that is text": [
        _chunk({"role": "assistant", "content": "a"}),
        (None, json.dumps({**HEAD, "choices": [{"index": "0", "delta": {"content": "b"}}]})),
    ],
    "arguments as an object": [
        _call(index=0, id="a", function={"name": "f", "arguments": ""}),
        _call(index=0, function={"arguments": {"x": 1}}),
    ],
    "an index the server reuses under a new id": [
        _call(index=0, id="a", function={"name": "f", "arguments": "{}"}),
        _call(index=0, id="b", function={"name": "g", "arguments": "{"}),
        _call(index=0, function={"arguments": "}"}),
        (None, "[DONE]"),
    ],
    "a custom tool": [
        _call(index=0, id="a", type="custom", custom={"name": "c", "input": "x"}),
        _call(index=0, custom={"input": "y"}),
        _call(index=0, function={"arguments": "z"}),
    ],
}


@pytest.mark.parametrize("name", STREAMS)
@pytest.mark.parametrize("compatible", [None, True, False])
def test_each_shape_reads_the_same_both_ways(name: str, compatible: bool | None) -> None:
    _same_both_ways(STREAMS[name], compatible=compatible)


def test_random_streams_read_the_same_both_ways() -> None:
    rng = random.Random(24)
    pieces = ["", "{", '"a"', ": ", "1", "}", " ", "[", "]", ",", '"\\u00e9"']
    for _ in range(40):
        events = [_call(index=0, id="a", function={"name": "f", "arguments": ""})]
        for _ in range(rng.randint(1, 12)):
            kind = rng.random()
            if kind < 0.6:
                call: dict[str, Any] = {
                    "index": rng.choice((0, 0, 0, 1)),
                    "function": {"arguments": rng.choice(pieces)},
                }
                if rng.random() < 0.2:
                    call["id"] = rng.choice(("a", "b", None))
                if rng.random() < 0.2:
                    call["function"]["name"] = rng.choice(("f", "", None))
                events.append(_call(**call))
            elif kind < 0.9:
                events.append(
                    _chunk({"content": rng.choice(pieces), "role": rng.choice((None, "assistant"))})
                )
            else:
                events.append(_chunk({}, finish_reason="tool_calls"))
        _same_both_ways(events, compatible=rng.choice((None, True, False)))


def test_the_lean_path_takes_the_pieces_of_a_stream() -> None:
    """Of a recorded tool call, every chunk but the first and the last is lean."""
    acc = ChatCompletionAccumulator()
    taken = []
    for _, data in _events((paths.FIXTURES / "openai" / "chat_tool_call.sse").read_bytes()):
        if data == "[DONE]":
            break
        chunk = json.loads(data)
        taken.append(lean_piece(chunk, acc._choices) is not None)
        acc.feed(chunk)
    assert taken[0] is False and taken[-1] is False
    assert all(taken[2:-1]), taken
