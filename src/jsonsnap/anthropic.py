"""Rebuild an Anthropic Messages stream, with live tool-input snapshots.

:class:`MessageAccumulator` takes the stream's events one at a time (each the decoded
``data`` of a server-sent event, or an event object of the official SDK) and keeps
``.message``, the message so far as a plain dict in the API's shape. One handler per event
type; content blocks are addressed by ``index``. A tool block's input is streamed as JSON
fragments (``input_json_delta``): a :class:`jsonsnap.Parser` per block turns them into a live
snapshot at every delta and into the strict value at ``content_block_stop``; its state is in
``.tools[index]`` (:class:`ToolInput`), and :meth:`ToolInput.final` is the one way to get
arguments fit to run a tool with.

Nothing is lost on bad or unfinished input: invalid tool JSON marks that block (with the
position and the raw text) and the stream goes on; a stream cut at ``max_tokens`` or before
``message_stop`` leaves each unfinished input as its best-effort snapshot, marked incomplete.
An ``error`` event raises :class:`StreamError`, and so do events out of order; ``.message``
stays readable. Unknown event, block and delta types are ignored, or kept as they came.

For UI code, :meth:`MessageAccumulator.feed` returns an :class:`Update` saying what the event
did (the text it appended, the tool input it grew, with its snapshot), and
:meth:`MessageAccumulator.updates` / :meth:`~MessageAccumulator.aupdates` turn the chunks of an
HTTP body into those updates; :func:`accumulate` reads a whole body into an accumulator.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ._streams import (
    _MALFORMED,
    StreamError,
    ToolInput,
    ToolInputError,
    Update,
    _Accumulator,
    _append,
    _as_mapping,
    _index,
    _json_data,
    _malformed,
    _mapping,
    _opt_str,
    _str,
)
from .sse import ServerSentEvent

__all__ = [
    "MessageAccumulator",
    "StreamError",
    "ToolInput",
    "ToolInputError",
    "Update",
    "accumulate",
]

#: Block types whose ``input`` streams as JSON fragments.
TOOL_BLOCKS = frozenset({"tool_use", "server_tool_use", "mcp_tool_use"})


class MessageAccumulator(_Accumulator):
    """Accumulate one Anthropic Messages stream into ``.message``."""

    def __init__(self) -> None:
        #: The message so far, in the API's shape (``None`` before ``message_start``).
        self.message: dict[str, Any] | None = None
        #: The streamed tool inputs, by content block index.
        self.tools: dict[int, ToolInput] = {}
        #: Whether ``message_stop`` has arrived.
        self.done = False
        #: How many events were fed.
        self.events = 0
        self._handlers: dict[str, Callable[[Mapping[str, Any]], Update | None]] = {
            "message_start": self._message_start,
            "content_block_start": self._block_start,
            "content_block_delta": self._block_delta,
            "content_block_stop": self._block_stop,
            "message_delta": self._message_delta,
            "message_stop": self._message_stop,
            "ping": lambda event: None,
            "error": self._error,
        }

    def feed(self, event: Mapping[str, Any] | Any) -> Update:
        """Take one event: a mapping (decoded ``data``) or an SDK event object. Returns what it
        did; raises :class:`StreamError` for an ``error`` event or one out of order."""
        event = _as_mapping(event)
        self.events += 1
        kind = event.get("type")
        handler = self._handlers.get(kind)  # type: ignore[arg-type]
        if handler is None:
            return Update(str(kind))  # an event type this version does not know
        if self.message is None and kind not in ("message_start", "ping", "error"):
            raise StreamError(f"{kind} before message_start")
        try:
            return handler(event) or Update(kind)  # type: ignore[arg-type]
        except _MALFORMED as exc:
            raise _malformed(f"{kind} event", exc) from exc

    def _feed_event(self, event: ServerSentEvent) -> list[Update]:
        return [self.feed(_json_data(event))]

    # -- handlers ---------------------------------------------------------------------------

    def _message_start(self, event: Mapping[str, Any]) -> None:
        if self.message is not None:
            raise StreamError("a second message_start")
        message = dict(_mapping(event["message"], "the message"))
        message["content"] = [dict(_mapping(b, "a block")) for b in message.get("content") or ()]
        message["usage"] = dict(_mapping(message.get("usage") or {}, "the usage"))
        self.message = message

    def _block(self, event: Mapping[str, Any]) -> tuple[int, dict[str, Any]]:
        index = _index(event["index"], "the block index")
        content = self.message["content"]  # type: ignore[index]
        if index >= len(content):
            raise StreamError(f"{event['type']} for block {index}, which has not started")
        return index, content[index]

    def _block_start(self, event: Mapping[str, Any]) -> Update:
        index = _index(event["index"], "the block index")
        content = self.message["content"]  # type: ignore[index]
        if index != len(content):
            raise StreamError(f"content_block_start for block {index}, expected {len(content)}")
        block = dict(_mapping(event["content_block"], "the content block"))
        tool = None
        if block.get("type") in TOOL_BLOCKS:
            name = _opt_str(block.get("name"), "the tool name") or ""
            tool = ToolInput(index, name, _opt_str(block.get("id"), "the tool id"))
            self.tools[index] = tool
        content.append(block)
        return Update("content_block_start", index, block, tool=tool)

    def _block_delta(self, event: Mapping[str, Any]) -> Update:
        index, block = self._block(event)
        delta = _mapping(event["delta"], "the delta")
        kind = delta.get("type")
        text = ""
        tool = None
        thinking = False
        if kind == "text_delta":
            text = delta["text"]
            _append(block, "text", text)
        elif kind == "input_json_delta":
            tool = self.tools.get(index)
            if tool is None:
                raise StreamError(f"input_json_delta for block {index}, not a tool")
            tool._feed(delta["partial_json"])
            block["input"] = tool.snapshot
        elif kind == "thinking_delta":
            text = delta["thinking"]
            _append(block, "thinking", text)
            thinking = True
        elif kind == "signature_delta":
            block["signature"] = _str(delta["signature"], "the signature")
        elif kind == "citations_delta":
            citation = delta["citation"]
            citations = block.get("citations")
            if citations is None:
                citations = block["citations"] = []
            citations.append(citation)
        # Other delta types: ignored, so that new API features do not break the stream.
        return Update("content_block_delta", index, block, kind, text, tool, thinking)

    def _block_stop(self, event: Mapping[str, Any]) -> Update:
        index, block = self._block(event)
        tool = self.tools.get(index)
        if tool is not None:
            block["input"] = tool._close()
        return Update("content_block_stop", index, block, tool=tool)

    def _message_delta(self, event: Mapping[str, Any]) -> None:
        message: dict[str, Any] = self.message  # type: ignore[assignment]
        delta = _mapping(event.get("delta") or {}, "the delta")
        counts = _mapping(event.get("usage") or {}, "the usage")
        message.update(delta)
        usage = message["usage"]
        for key, value in counts.items():
            if value is not None:  # counts are cumulative: the latest overwrites
                usage[key] = value

    def _message_stop(self, event: Mapping[str, Any]) -> None:
        self.done = True

    def _error(self, event: Mapping[str, Any]) -> None:
        error = event.get("error") or {}
        raise StreamError(str(error.get("message", "")), error_type=error.get("type", "error"))


def accumulate(chunks: Iterable[bytes | str]) -> MessageAccumulator:
    """Read a whole event stream (chunks of the HTTP body) into an accumulator."""
    accumulator = MessageAccumulator()
    accumulator.read(chunks)
    return accumulator
