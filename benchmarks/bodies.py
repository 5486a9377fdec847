"""Provider stream bodies of one tool call, and the loops that read them without an accumulator.

A body is a list of network chunks, one server-sent event per chunk: an Anthropic Messages
stream (:func:`anthropic_body`) or a Chat Completions stream (:func:`chat_body`) whose tool
call's arguments arrive in the given fragments, as a provider streams them. The demo recording
(:data:`RECORDING`, a text answer then a ``write_file`` call) is cut the same way
(:func:`recording_chunks`).

Three ways to read a body, each returning the tool call's final arguments:

- :func:`accumulate`: jsonsnap's accumulator, ``acc.updates(chunks)``, reading
  ``update.snapshot`` for each tool update, as a live preview does;
- :func:`hand_anthropic` and :func:`hand_chat`: what a user writes by hand instead (decode the
  bytes incrementally, split lines, ``json.loads`` each data line, pick the argument delta,
  feed a :class:`jsonsnap.Parser`, take a snapshot per token);
- :func:`bare`: the bare parser fed the argument fragments alone (no envelopes at all).
"""

from __future__ import annotations

import codecs
import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Protocol

from jsonsnap import Parser

RECORDING = Path(__file__).resolve().parents[1] / "src/jsonsnap/examples/text_then_write_file.sse"
"""The demo recording (read from this checkout: the same bytes for both builds)."""


class Accumulator(Protocol):
    """What :func:`accumulate` uses of an accumulator: the public stream contract."""

    def updates(self, body: Iterable[bytes]) -> Iterable[Any]: ...

    def tool_calls(self) -> Sequence[Any]: ...


def sse(ev: dict[str, Any] | str, name: str | None = None) -> bytes:
    """One server-sent event: ``ev`` as its data (a mapping as compact JSON), ``name`` as its
    event type."""
    data = ev if isinstance(ev, str) else json.dumps(ev, separators=(",", ":"))
    head = f"event: {name}\n" if name else ""
    return f"{head}data: {data}\n\n".encode()


def anthropic_body(frags: Iterable[str]) -> list[bytes]:
    """A Messages stream of one ``tool_use`` block whose ``input_json_delta`` events bring
    ``frags``."""
    message: dict[str, Any] = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "m",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 1},
    }
    block = {"type": "tool_use", "id": "toolu_1", "name": "write_file", "input": {}}
    out = [
        sse({"type": "message_start", "message": message}, "message_start"),
        sse(
            {"type": "content_block_start", "index": 0, "content_block": block},
            "content_block_start",
        ),
    ]
    for f in frags:
        delta = {"type": "input_json_delta", "partial_json": f}
        out.append(
            sse({"type": "content_block_delta", "index": 0, "delta": delta}, "content_block_delta")
        )
    stop = {"stop_reason": "tool_use", "stop_sequence": None}
    out += [
        sse({"type": "content_block_stop", "index": 0}, "content_block_stop"),
        sse(
            {"type": "message_delta", "delta": stop, "usage": {"output_tokens": 5}}, "message_delta"
        ),
        sse({"type": "message_stop"}, "message_stop"),
    ]
    return out


def chat_body(frags: Iterable[str]) -> list[bytes]:
    """A Chat Completions stream of one tool call whose argument deltas bring ``frags``."""
    base = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    function = {"name": "write_file", "arguments": ""}
    call = {"index": 0, "id": "call_1", "type": "function", "function": function}
    delta = {"role": "assistant", "content": None, "tool_calls": [call]}
    out = [sse({**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]})]
    for f in frags:
        calls = [{"index": 0, "function": {"arguments": f}}]
        choice = {"index": 0, "delta": {"tool_calls": calls}, "finish_reason": None}
        out.append(sse({**base, "choices": [choice]}))
    out.append(sse({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}))
    out.append(sse("[DONE]"))
    return out


def recording_chunks(body: bytes) -> list[bytes]:
    """A recorded body cut after each event (its blank line), one event per chunk."""
    events = body.split(b"\n\n")
    chunks = [event + b"\n\n" for event in events[:-1]]
    return chunks + ([events[-1]] if events[-1] else [])


def argument_fragments(chunks: Iterable[bytes]) -> list[str]:
    """The tool call's argument fragments in an Anthropic body (for :func:`bare`)."""
    frags = []
    for chunk in chunks:
        for line in chunk.decode().split("\n"):
            if line.startswith("data:"):
                event = json.loads(line[5:])
                delta = event.get("delta") or {}
                if event["type"] == "content_block_delta" and delta["type"] == "input_json_delta":
                    frags.append(delta["partial_json"])
    return frags


def hand_anthropic(chunks: Iterable[bytes]) -> Any:
    decoder = codecs.getincrementaldecoder("utf-8")()
    parser = Parser()
    rest = ""
    loads = json.loads
    for chunk in chunks:
        lines = (rest + decoder.decode(chunk)).split("\n")
        rest = lines.pop()
        for line in lines:
            if line.startswith("data:"):
                event = loads(line[5:])
                if event["type"] == "content_block_delta":
                    delta = event["delta"]
                    if delta["type"] == "input_json_delta":
                        parser.feed(delta["partial_json"])
                        parser.snapshot()
    return parser.close()


def hand_chat(chunks: Iterable[bytes]) -> Any:
    decoder = codecs.getincrementaldecoder("utf-8")()
    parsers: dict[int, Parser] = {}
    rest = ""
    loads = json.loads
    for chunk in chunks:
        lines = (rest + decoder.decode(chunk)).split("\n")
        rest = lines.pop()
        for line in lines:
            if line.startswith("data:"):
                data = line[5:].strip()
                if data == "[DONE]":
                    break
                event = loads(data)
                for call in event["choices"][0]["delta"].get("tool_calls") or ():
                    arguments = call["function"].get("arguments")
                    if arguments:
                        parser = parsers.get(call["index"])
                        if parser is None:
                            parser = parsers[call["index"]] = Parser()
                        parser.feed(arguments)
                        parser.snapshot()
    return parsers[0].close()


def accumulate(acc: Accumulator, chunks: Iterable[bytes]) -> Any:
    """``acc`` (a new accumulator) reads ``chunks``; the last tool call's final arguments."""
    for update in acc.updates(chunks):
        if update.tool is not None:
            update.snapshot  # noqa: B018 (what a live preview reads)
    return acc.tool_calls()[-1].final()


def bare(frags: Iterable[str]) -> Any:
    """The bare parser on the argument fragments: ``feed`` and ``snapshot`` per fragment."""
    parser = Parser()
    for f in frags:
        parser.feed(f)
        parser.snapshot()
    return parser.close()
