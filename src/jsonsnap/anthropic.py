"""Rebuild an Anthropic Messages stream, with live tool-input snapshots.

:class:`MessageAccumulator` takes the stream's events one at a time (each the decoded
``data`` of a server-sent event, the :class:`~jsonsnap.sse.ServerSentEvent` itself, or an event
object of the official SDK) and keeps ``.message``, the message so far as a plain dict in the
API's shape. One handler per event type, and one per delta type; content blocks are addressed
by ``index``. A tool block's input is streamed as JSON fragments (``input_json_delta``): a
:class:`jsonsnap.Parser` per block turns them into a live snapshot at every delta and into the
strict value at ``content_block_stop``; its state is in ``.tools[index]`` (:class:`ToolInput`),
and :meth:`ToolInput.final` is the one way to get arguments fit to run a tool with.

A surrogate pair cut between two deltas of a block (``text_delta``, ``thinking_delta``,
``input_json_delta``: each event's JSON decodes half of it as a lone surrogate) is joined into
one character, as the SDK's JavaScript strings join it: a delta's last character, when it is
the first half of a pair, is held back until the block's next delta (or its end, where a half
whose other half never came goes in as it came). The updates carry the deltas as they came.

Nothing is lost on bad or unfinished input: invalid tool JSON marks that block (with the
position and the raw text) and the stream goes on; a stream cut at ``max_tokens`` leaves each
unfinished input as its best-effort snapshot, marked incomplete. An ``error`` event raises
:class:`StreamError`, and so do events out of order or after the end (a delta after its block's
``content_block_stop``, anything after ``message_stop``); ``.message`` stays readable. Unknown
event, block and delta types are ignored, or kept as they came.

The accumulator keeps the contract of :class:`jsonsnap.streams.Accumulator`: ``feed()``
returns a list of :class:`Update`, ``updates()`` / ``aupdates()`` / ``read()`` take an HTTP body
(or the SDK's stream), ``close()`` ends the stream; :func:`accumulate` reads a whole body.

Given the request's ``tools`` (``MessageAccumulator(tools=request["tools"])``), each
``tool_use`` input is checked against its tool's ``input_schema`` as it streams (a server
tool's is not, having no input schema there); given its ``output_format`` (``output_schema=``,
or a dataclass or pydantic model), the text blocks are the structured output, parsed live into
``.structured``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from types import NoneType
from typing import Any, ClassVar, Final

from ._errors import mypyc_attr
from ._streams.envelope import string_at
from ._streams.surrogates import HeldHalves
from .streams import Accumulator, StreamError, ToolInput, ToolInputError, Update

__all__ = [
    "MessageAccumulator",
    "StreamError",
    "ToolInput",
    "ToolInputError",
    "Update",
    "accumulate",
]

#: The protocol's event types (``error`` is left out: the OpenAI Responses API has one too).
EVENTS = frozenset(
    {
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
        "ping",
    }
)
#: Block types whose ``input`` streams as JSON fragments.
TOOL_BLOCKS = frozenset({"tool_use", "server_tool_use", "mcp_tool_use"})
#: Message fields that ``message_delta`` may not change (its other fields overwrite).
FIXED = frozenset({"id", "type", "role", "model", "content", "usage"})
#: The event type of a content block's delta (every delta's update has it).
DELTA: Final = "content_block_delta"
#: The hot form of a block's delta (see ``MessageAccumulator._hot``), as the API sends it:
#: compact, in its key order. Its text up to the block's index (at most :data:`INDEX_DIGITS`
#: digits), then, from the comma after it, up to the delta's one string: the form of each
#: delta type read so, with the key of that string.
HOT_HEAD: Final = '{"type":"content_block_delta","index":'
HOT_DELTAS: Final = (
    (',"delta":{"type":"input_json_delta","partial_json":"', "partial_json"),
    (',"delta":{"type":"text_delta","text":"', "text"),
    (',"delta":{"type":"thinking_delta","thinking":"', "thinking"),
)
INDEX_DIGITS: Final = 9


@mypyc_attr(allow_interpreted_subclasses=True)
class MessageAccumulator(Accumulator):
    """Accumulate one Anthropic Messages stream into ``.message``.

    ``tools`` is keyed by content block index (a text block first makes the first tool
    ``tools[1]``); ``tool_calls()`` lists them in order. ``tools=`` and ``output_schema=``: see
    :class:`jsonsnap.streams.Accumulator`.
    """

    protocol = "anthropic"
    _OPENERS = frozenset({"message_start", "ping", "error"})
    _FIRST = "message_start"
    # The SDK's MessageStream adds these after the wire events they repeat.
    _SDK_HELPERS = frozenset({"text", "input_json", "citation", "thinking", "signature"})
    #: The handler of each delta type (set after the class, as ``_HANDLERS`` is).
    _DELTAS: ClassVar[Mapping[str, Callable[..., Update]]]

    def _begin(self) -> None:
        #: The message so far, in the API's shape (``None`` before ``message_start``).
        self.message: dict[str, Any] | None = None
        self._open: set[int] = set()  # blocks started and not stopped
        # The high surrogate a block's last delta ended with, by (index, field): joined to the
        # low half the next delta of that field starts with, as the SDKs' JavaScript does.
        self._halves: HeldHalves[tuple[int, str]] = HeldHalves()
        # The block, tool input and key of the last hot event (see _hot), for _repeat.
        self._last: tuple[int, dict[str, Any], ToolInput | None, str] | None = None

    @classmethod
    def looks_like(cls, data: Mapping[str, Any]) -> bool:
        kind = data.get("type")
        return isinstance(kind, str) and kind in EVENTS

    @property
    def result(self) -> dict[str, Any] | None:
        """The message so far (``.message``)."""
        return self.message

    def _started(self) -> bool:
        return self.message is not None

    def _blocks(self) -> list[dict[str, Any]]:
        content: list[dict[str, Any]] = self.message["content"]  # type: ignore[index]
        return content

    # -- handlers (each checks what it reads, then changes the message) ---------------------

    def _message_start(self, event: Mapping[str, Any]) -> list[Update]:
        if self.message is not None:
            raise StreamError("a second message_start")
        message = dict(self._fields.mapping(event.get("message"), "the message"))
        content = message.get("content")
        blocks = [] if content is None else self._fields.array(content, "the content")
        blocks = [dict(self._fields.mapping(block, "a content block")) for block in blocks]
        usage = message.get("usage")
        message["usage"] = {} if usage is None else dict(self._fields.mapping(usage, "the usage"))
        message["content"] = blocks
        self.message = message
        return [Update("message_start")]

    def _block_start(self, event: Mapping[str, Any]) -> list[Update]:
        content = self._blocks()
        index = self._fields.next_place(event.get("index"), "block", content)
        block = dict(self._fields.mapping(event.get("content_block"), "the content block"))
        kind = self._fields.string(block.get("type"), "the block type")
        tool = None
        if kind in TOOL_BLOCKS:
            name = self._fields.opt_string(block.get("name"), "the tool name") or ""
            tool = self._tool(index, name, self._fields.opt_string(block.get("id"), "the tool id"))
            self._tools[index] = tool
        content.append(block)
        self._open.add(index)
        return [Update("content_block_start", index, block, tool=tool)]

    def _block(self, event: Mapping[str, Any]) -> tuple[int, dict[str, Any]]:
        """The open block an event is about."""
        content = self._blocks()
        index = self._fields.place(event.get("index"), "block", content, extend=False)
        if index not in self._open:
            raise StreamError(f"{self._kind} for block {index}, which has stopped")
        return index, content[index]

    def _block_delta(self, event: Mapping[str, Any]) -> list[Update]:
        # The checks of _block() and of the field readers, written out for the valid event
        # (the commonest of a stream); anything else goes to them, for their errors.
        index = event.get("index")
        content: list[dict[str, Any]] = self.message["content"]  # type: ignore[index]
        if type(index) is int and 0 <= index < len(content) and index in self._open:
            block = content[index]
        else:
            index, block = self._block(event)
        delta = event.get("delta")
        if type(delta) is not dict:
            delta = self._fields.mapping(delta, "the delta")
        kind = delta.get("type")
        if type(kind) is not str:
            kind = self._fields.string(kind, "the delta type")
        if kind == "input_json_delta":
            return [self._json_delta(index, block, delta)]
        handler = self._DELTAS.get(kind)
        if handler is None:  # a delta type this version does not know: ignored
            return [Update("content_block_delta", index, block, kind)]
        update: Update = handler(self, index, block, delta)
        return [update]

    def _hot(self, text: str) -> list[Update] | None:
        # A content block's delta in its hot form (HOT_HEAD, the index, a form of HOT_DELTAS,
        # the string, "}}"), for an open block that takes it: the state _event() and the
        # delta handlers check, checked here, then their own code applied.
        if not text.startswith(HOT_HEAD):
            return None
        at = len(HOT_HEAD)
        comma = text.find(",", at, at + INDEX_DIGITS + 1)
        digits = text[at:comma]
        if comma < 0 or not (digits.isascii() and digits.isdigit()):
            return None
        if digits[0] == "0" and len(digits) > 1:  # (not JSON: the general way's error)
            return None
        for form, key in HOT_DELTAS:  # noqa: B007 (the form found, and its key, read after)
            if text.startswith(form, comma):
                break
        else:
            return None
        piece = string_at(text, comma + len(form), "}}")
        message = self.message
        if piece is None or message is None or self._closed or self._done:
            return None
        index = int(digits)
        content: list[dict[str, Any]] = message["content"]
        if index >= len(content) or index not in self._open:
            return None
        block = content[index]
        tool = None
        if key == "partial_json":
            tool = self._tools.get(index)
            if tool is None or tool._ended:
                return None
        self._kind = self._fields.kind = DELTA
        self._last = (index, block, tool, key)
        # (A block whose text so far is no string: _grow_text() raises the general way's
        # error, before it changes anything.)
        updates = self._repeat(piece)
        self._span = (comma + len(form), len(text) - 3)  # (the string's text, before '"}}')
        return updates

    def _repeat(self, piece: str) -> list[Update]:
        index, block, tool, key = self._last  # type: ignore[misc]
        if tool is not None:
            return self._applied([self._grow_input(index, block, tool, piece)])
        return self._applied([self._grow_text(index, block, piece, key)])

    def _text_delta(self, index: int, block: dict[str, Any], delta: Mapping[str, Any]) -> Update:
        return self._grow_text(index, block, self._delta_text(delta, "text"), "text")

    def _thinking_delta(
        self, index: int, block: dict[str, Any], delta: Mapping[str, Any]
    ) -> Update:
        return self._grow_text(index, block, self._delta_text(delta, "thinking"), "thinking")

    def _delta_text(self, delta: Mapping[str, Any], key: str) -> str:
        """A delta's ``text`` or ``thinking`` (checked: a string)."""
        text = delta.get(key)
        if type(text) is not str:
            text = self._fields.string(text, f"the {key}")
        return text

    def _grow_text(self, index: int, block: dict[str, Any], text: str, key: str) -> Update:
        """Append a delta's ``text`` or ``thinking`` to its block (checked: the block's so
        far, absent, ``None`` or a string); the delta's update."""
        kind = type(block.get(key))  # (not the string: held here, it could not grow in place)
        if kind is not str and kind is not NoneType:
            self._fields.check_text(block, key)
        halves = self._halves
        piece = text if not halves.held and text.isascii() else halves.join((index, key), text)
        self._fields.append(block, key, piece)
        if key == "text":
            return Update(DELTA, index, block, "text_delta", text)
        return Update(DELTA, index, block, "thinking_delta", text, None, True)

    def _json_delta(self, index: int, block: dict[str, Any], delta: Mapping[str, Any]) -> Update:
        fragment = delta.get("partial_json")
        if type(fragment) is not str:
            fragment = self._fields.string(fragment, "the partial JSON")
        tool = self._tools.get(index)
        if tool is None:
            raise StreamError(f"input_json_delta for block {index}, not a tool")
        return self._grow_input(index, block, tool, fragment)

    def _grow_input(
        self, index: int, block: dict[str, Any], tool: ToolInput, fragment: str
    ) -> Update:
        """Feed a delta's ``partial_json`` to its block's tool input; the delta's update."""
        halves = self._halves
        if halves.held or not fragment.isascii():
            changed = self._grow(tool, halves.join((index, "input"), fragment))
        elif tool._ended:  # (_grow()'s refusal, with its message)
            changed = self._grow(tool, fragment)
        else:  # (nothing to join, and an input still open: the commonest fragment)
            changed = tool._feed(fragment)
        block["input"] = tool.snapshot
        # (Its fields given in order: a call with keywords costs more than the rest of it.)
        return Update(DELTA, index, block, "input_json_delta", "", tool, False, fragment, changed)

    def _signature_delta(
        self, index: int, block: dict[str, Any], delta: Mapping[str, Any]
    ) -> Update:
        block["signature"] = self._fields.string(delta.get("signature"), "the signature")
        return Update("content_block_delta", index, block, "signature_delta")

    def _citations_delta(
        self, index: int, block: dict[str, Any], delta: Mapping[str, Any]
    ) -> Update:
        if "citation" not in delta:
            raise self._fields.malformed("a citations_delta without its citation")
        citations = block.get("citations")
        if citations is not None:
            self._fields.array(citations, "the block's citations")
        else:
            citations = block["citations"] = []
        citations.append(delta["citation"])
        return Update("content_block_delta", index, block, "citations_delta")

    def _put_half(self, index: int, field: str, half: str) -> None:
        """A half held back goes in as it came: its block (or the stream) has ended."""
        block = self._blocks()[index]
        tool = self._tools.get(index)
        if field != "input":
            self._fields.append(block, field, half)
        elif tool is not None and not tool.ended:
            self._grow(tool, half)
            block["input"] = tool.snapshot

    def _release(self, index: int | None = None) -> None:
        """Put in the halves held for a block that ends (every block, with no ``index``)."""
        if not self._halves.held:
            return  # (none held: the commonest)
        if index is None:
            for (place, field), half in self._halves.release_all():
                self._put_half(place, field, half)
            return
        for field in ("text", "thinking", "input"):
            half = self._halves.release((index, field))
            if half:
                self._put_half(index, field, half)

    def close(self) -> list[Update]:
        if not self.closed:
            self._release()
        return super().close()

    def _block_stop(self, event: Mapping[str, Any]) -> list[Update]:
        index, block = self._block(event)
        self._release(index)
        self._open.discard(index)
        tool = self._tools.get(index)
        changed = False
        if tool is not None:
            changed = bool(self._end(tool))
            block["input"] = tool.final() if tool.complete else tool.snapshot
        return [Update("content_block_stop", index, block, tool=tool, changed=changed)]

    def _message_delta(self, event: Mapping[str, Any]) -> list[Update]:
        delta = event.get("delta")
        delta = {} if delta is None else self._fields.mapping(delta, "the delta")
        counts = event.get("usage")
        counts = {} if counts is None else self._fields.mapping(counts, "the usage")
        for key in ("stop_reason", "stop_sequence"):
            self._fields.opt_string(delta.get(key), key)
        message: dict[str, Any] = self.message  # type: ignore[assignment]
        message.update((key, value) for key, value in delta.items() if key not in FIXED)
        usage = message["usage"]
        for key, value in counts.items():
            if value is not None:  # counts are cumulative: the latest overwrites
                usage[key] = value
        return [Update("message_delta")]

    def _message_stop(self, event: Mapping[str, Any]) -> list[Update]:
        self._release()
        self._done = True
        return [Update("message_stop")]

    def _ping(self, event: Mapping[str, Any]) -> list[Update]:
        return [Update("ping")]

    def _error_event(self, event: Mapping[str, Any]) -> list[Update]:
        raise self._error(event, "error")


# The tables, set once the class exists (a compiled class body cannot name its methods).
MessageAccumulator._HANDLERS = {
    "message_start": MessageAccumulator._message_start,
    "content_block_start": MessageAccumulator._block_start,
    "content_block_delta": MessageAccumulator._block_delta,
    "content_block_stop": MessageAccumulator._block_stop,
    "message_delta": MessageAccumulator._message_delta,
    "message_stop": MessageAccumulator._message_stop,
    "ping": MessageAccumulator._ping,
    "error": MessageAccumulator._error_event,
}
MessageAccumulator._DELTAS = {
    "text_delta": MessageAccumulator._text_delta,
    "input_json_delta": MessageAccumulator._json_delta,
    "thinking_delta": MessageAccumulator._thinking_delta,
    "signature_delta": MessageAccumulator._signature_delta,
    "citations_delta": MessageAccumulator._citations_delta,
}


def accumulate(chunks: bytes | str | Iterable[Any]) -> MessageAccumulator:
    """Read a whole event stream (the chunks of an HTTP body, or the SDK's stream of events)
    into an accumulator, closed at its end."""
    return MessageAccumulator().read(chunks)
