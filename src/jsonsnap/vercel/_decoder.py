"""The decoder: :class:`UIMessageAccumulator` rebuilds the ``UIMessage`` of a UI message
stream as the ``ai`` package's ``readUIMessageStream`` does (see the package docstring for what
it accepts and refuses, and its three deliberate differences from the client).

One handler per chunk type (``_HANDLERS``); each checks what it reads, then changes the message
through the part operations of ``_parts``. Where the message shows: a chunk after which the
client writes a new message (``_shown()``) brings in the ``step-start`` parts held since.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .. import JSONDecodeError, loads
from .._errors import mypyc_attr
from .._jsontext import NOTHING, describe
from .._streams.surrogates import HeldHalves
from ..streams import Accumulator, StreamError, ToolInput, Update
from ._dump import dump
from ._parts import (
    ATTACHED,
    merge,
    output_fields,
    text_part,
    tool_part,
    update_data_part,
    update_tool_part,
)
from ._protocol import CHUNK_TYPES


@mypyc_attr(allow_interpreted_subclasses=True)  # (users')
class UIMessageAccumulator(Accumulator):
    """Accumulate one UI message stream into ``.message`` (see :mod:`jsonsnap.vercel`).

    ``tools`` is keyed by the place of the call's part in ``message["parts"]``;
    ``tool_calls()`` lists them in order. ``finish_reason`` is the ``finish`` chunk's;
    ``aborted`` says whether an ``abort`` chunk came. The stream is over (``done``) at
    ``[DONE]``: as for the client, chunks after ``finish`` or ``abort`` still count.
    """

    protocol = "ui-message"

    def _begin(self) -> None:
        #: The message so far: ``{"id", "role": "assistant", "parts"}`` and, once a chunk
        #: brings some, ``"metadata"`` (``None`` before the first chunk).
        self.message: dict[str, Any] | None = None
        #: The ``finishReason`` of the ``finish`` chunk, if any.
        self.finish_reason: str | None = None
        self.aborted = False
        self._text: dict[str, int] = {}  # the open text parts: id -> place in parts
        self._reasoning: dict[str, int] = {}
        self._calls: dict[tuple[bool, str], int] = {}  # (dynamic, toolCallId) -> place
        # The calls tool-input-start opened (kept once ended, for the error of a late delta).
        self._streaming: dict[str, tuple[bool, int]] = {}
        self._data: dict[tuple[str, str], int] = {}  # (type, id) of the data parts -> place
        self._step = 0  # where the current step's parts begin
        # The step-start parts not in the message yet: the client adds one at each start-step,
        # but its reader shows it only with the next message it writes.
        self._steps = 0
        # The high surrogate a text or tool input part's last delta ended with, by its place.
        self._halves: HeldHalves[int] = HeldHalves()

    @classmethod
    def looks_like(cls, data: Mapping[str, Any]) -> bool:
        kind = data.get("type")
        if not isinstance(kind, str):
            return False
        return (kind in CHUNK_TYPES and kind != "error") or kind.startswith("data-")

    @property
    def result(self) -> dict[str, Any] | None:
        """The message so far (``.message``)."""
        return self.message

    def _blocks(self) -> list[dict[str, Any]]:
        return self._parts()

    def _parts(self) -> list[dict[str, Any]]:
        """The parts of the message, made by the first chunk (after its checks)."""
        if self.message is None:
            self.message = {"id": "", "role": "assistant", "parts": []}
        parts: list[dict[str, Any]] = self.message["parts"]
        return parts

    def _shown(self) -> list[dict[str, Any]]:
        """The parts of the message, for a chunk after which the client shows it (writes a new
        message): with the step-start parts it holds since the last one."""
        parts = self._parts()
        if self._steps:
            parts.extend({"type": "step-start"} for _ in range(self._steps))
            self._steps = 0
        return parts

    def _kind_of(self, data: Mapping[str, Any]) -> str:
        kind = super()._kind_of(data)
        return "data-*" if kind.startswith("data-") else kind

    def _done_marker(self) -> list[Update]:
        if self._done:
            raise StreamError("a second [DONE]")
        self._done = True
        self._release_all()
        return [Update("done")]

    def close(self) -> list[Update]:
        if not self.closed:
            self._release_all()
        return super().close()

    def _release(self, place: int) -> None:
        """The text or tool input part at ``place`` has ended: the half its last delta held
        back goes in, as it came."""
        half = self._halves.release(place)
        if half:
            self._put_half(place, half)

    def _release_all(self) -> None:
        for place, half in self._halves.release_all():
            self._put_half(place, half)

    def _put_half(self, place: int, half: str) -> None:
        """Append a half held back to the text or tool input of the part at ``place``."""
        tool = self._tools.get(place)
        part = self._parts()[place]
        if tool is None:
            self._fields.append(part, "text", half)
        elif not tool.ended:
            shown = part.get("state") == "input-streaming"  # (not once an output came)
            if shown:
                part["rawInput"] = None
            self._grow(tool, half)
            if shown:
                part["input"] = tool.snapshot
                part["rawInput"] = tool.raw

    # -- checks ----------------------------------------------------------------------------

    def _flag(self, event: Mapping[str, Any], key: str) -> bool | None:
        value = event.get(key)
        if value is not None and type(value) is not bool:
            raise self._fields.malformed(f"{key} is {describe(value)}, not a boolean")
        return value

    def _metadata(self, event: Mapping[str, Any]) -> Mapping[str, Any] | None:
        value = event.get("providerMetadata")
        if value is None:
            return None
        metadata = self._fields.mapping(value, "providerMetadata")
        for inner in metadata.values():
            self._fields.mapping(inner, "a provider's metadata")
        return metadata

    def _part_id(self, event: Mapping[str, Any], open_parts: dict[str, int]) -> int:
        """The place of the open part a delta or end is about."""
        part_id = self._fields.string(event.get("id"), "the part id")
        place = open_parts.get(part_id)
        if place is None:
            kind = self._kind.partition("-")[0]
            raise StreamError(f"{self._kind} for {kind} part {part_id!r}, which is not open")
        return place

    def _json(self, value: Any, what: str) -> str:
        """A value of a chunk as JSON text (a dict chunk may hold anything)."""
        try:
            return dump(value)
        except (TypeError, ValueError) as exc:
            raise self._fields.malformed(f"{what} is not JSON: {exc}") from None

    # -- the message -----------------------------------------------------------------------

    def _start(self, event: Mapping[str, Any]) -> list[Update]:
        message_id = self._fields.opt_string(event.get("messageId"), "the messageId")
        metadata = event.get("messageMetadata")
        had = self.message is not None
        self._parts()
        message: dict[str, Any] = self.message  # type: ignore[assignment]
        old = message["id"]
        # Another message: the client would drop this one, and start that one.
        content = old or message["parts"] or self._steps or len(message) > 3
        if had and message_id not in (None, old) and content:
            raise StreamError(f"a start for message {message_id!r} in message {old!r}")
        if message_id is not None:
            self._shown()
            message["id"] = message_id
        self._merge_metadata(metadata)
        return [Update("start")]

    def _merge_metadata(self, metadata: Any) -> None:
        if metadata is None:
            return
        self._shown()
        message: dict[str, Any] = self.message  # type: ignore[assignment]
        old = message.get("metadata")
        if isinstance(old, dict) and isinstance(metadata, Mapping):
            merge(old, metadata)
        else:
            message["metadata"] = metadata

    def _message_metadata(self, event: Mapping[str, Any]) -> list[Update]:
        self._parts()
        self._merge_metadata(event.get("messageMetadata"))
        return [Update("message-metadata")]

    def _finish(self, event: Mapping[str, Any]) -> list[Update]:
        reason = self._fields.opt_string(event.get("finishReason"), "the finishReason")
        self._parts()
        self._merge_metadata(event.get("messageMetadata"))
        if reason is not None:
            self.finish_reason = reason
        return [Update("finish")]

    def _abort(self, event: Mapping[str, Any]) -> list[Update]:
        self._parts()
        self.aborted = True
        return [Update("abort")]

    def _error_chunk(self, event: Mapping[str, Any]) -> list[Update]:
        text = self._fields.string(event.get("errorText"), "the errorText")
        raise StreamError(text, error_type="error")

    def _start_step(self, event: Mapping[str, Any]) -> list[Update]:
        parts = self._parts()
        self._steps += 1
        self._step = len(parts) + self._steps
        return [Update("start-step")]

    def _finish_step(self, event: Mapping[str, Any]) -> list[Update]:
        self._parts()
        for place in (*self._text.values(), *self._reasoning.values()):
            self._release(place)
        self._text.clear()
        self._reasoning.clear()
        return [Update("finish-step")]

    # -- text and reasoning ----------------------------------------------------------------

    def _open(self, event: Mapping[str, Any]) -> list[Update]:
        reasoning = self._kind == "reasoning-start"
        part_id = self._fields.string(event.get("id"), "the part id")
        metadata = self._metadata(event)
        parts = self._shown()
        part = text_part(reasoning, part_id, metadata)
        (self._reasoning if reasoning else self._text)[part_id] = len(parts)
        parts.append(part)
        return [Update(self._kind, len(parts) - 1, part, thinking=reasoning)]

    def _grow_text(self, event: Mapping[str, Any]) -> list[Update]:
        reasoning = self._kind == "reasoning-delta"
        place = self._part_id(event, self._reasoning if reasoning else self._text)
        text = self._fields.string(event.get("delta"), "the delta")
        metadata = self._metadata(event)
        part = self._shown()[place]
        self._fields.append(part, "text", self._halves.join(place, text))
        if metadata is not None:
            part["providerMetadata"] = metadata
        return [Update(self._kind, place, part, text=text, thinking=reasoning)]

    def _close_text(self, event: Mapping[str, Any]) -> list[Update]:
        reasoning = self._kind == "reasoning-end"
        open_parts = self._reasoning if reasoning else self._text
        place = self._part_id(event, open_parts)
        metadata = self._metadata(event)
        part = self._shown()[place]
        self._release(place)
        if metadata is not None:
            part["providerMetadata"] = metadata
        part["state"] = "done"
        del open_parts[event["id"]]
        return [Update(self._kind, place, part, thinking=reasoning)]

    # -- tool calls ------------------------------------------------------------------------

    def _call_head(self, event: Mapping[str, Any]) -> tuple[str, str, bool, bool | None]:
        """The toolCallId, toolName, dynamic and providerExecuted of a chunk that names both."""
        call_id = self._fields.string(event.get("toolCallId"), "the toolCallId")
        name = self._fields.string(event.get("toolName"), "the toolName")
        dynamic = self._flag(event, "dynamic") is True
        return call_id, name, dynamic, self._flag(event, "providerExecuted")

    def _in_step(self, dynamic: bool, call_id: str) -> int | None:
        """The place of the call's part in the current step (where the client looks)."""
        place = self._calls.get((dynamic, call_id))
        return place if place is not None and place >= self._step else None

    def _set_call(
        self, place: int | None, dynamic: bool, call_id: str, name: str, state: str,
        fields: Mapping[str, Any], executed: bool | None = None,
    ) -> tuple[int, dict[str, Any]]:  # fmt: skip
        """Update the call's part as the client's ``updateToolPart`` does (a new one when there
        is none): see ``update_tool_part``."""
        parts = self._shown()
        if place is None:
            part = tool_part(dynamic, name, call_id)
            place = len(parts)
            parts.append(part)
            self._calls[(dynamic, call_id)] = place
        else:
            part = parts[place]
            if dynamic:
                part["toolName"] = name
        update_tool_part(part, state, fields, executed)
        return place, part

    def _tool_input_start(self, event: Mapping[str, Any]) -> list[Update]:
        call_id, name, dynamic, executed = self._call_head(event)
        streaming = self._streaming.get(call_id)
        if self._in_step(dynamic, call_id) is not None or (
            streaming is not None and not self._tools[streaming[1]].ended
        ):
            raise StreamError(f"a second tool-input-start for tool call {call_id!r}")
        place, part = self._set_call(None, dynamic, call_id, name, "input-streaming", {}, executed)
        tool = self._tools[place] = self._tool(place, name, call_id)
        self._streaming[call_id] = (dynamic, place)
        return [Update(self._kind, place, part, tool=tool)]

    def _streamed(self, event: Mapping[str, Any]) -> tuple[int, ToolInput]:
        call_id = self._fields.string(event.get("toolCallId"), "the toolCallId")
        found = self._streaming.get(call_id)
        if found is None:
            raise StreamError(f"{self._kind} for tool call {call_id!r}, which has not started")
        place = found[1]
        return place, self._tools[place]

    def _tool_input_delta(self, event: Mapping[str, Any]) -> list[Update]:
        place, tool = self._streamed(event)
        text = self._fields.string(event.get("inputTextDelta"), "the inputTextDelta")
        part = self._parts()[place]
        if tool.ended:
            self._grow(tool, text)  # which refuses it, before anything changes
        if "rawInput" in part:
            part["rawInput"] = None  # let go of the text: the tool input grows it in place
        changed = self._grow(tool, self._halves.join(place, text))
        self._shown()
        part["state"] = "input-streaming"
        part["input"] = tool.snapshot
        part["rawInput"] = tool.raw
        return [Update(self._kind, place, part, tool=tool, fragment=text, changed=changed)]

    def _input_tool(
        self, event: Mapping[str, Any], name: str, call_id: str, place: int | None
    ) -> tuple[ToolInput | None, str | None]:
        """The call's tool input, and the text to end it with (``None``: what it streamed):
        the chunk's ``input`` is the truth, the streamed text stands when it is that value."""
        tool = None if place is None else self._tools.get(place)
        if tool is not None and tool.ended:
            raise StreamError(f"{self._kind} for tool call {call_id!r}, whose input has ended")
        value = event.get("input", NOTHING)
        as_text = isinstance(value, str) and self._kind == "tool-input-error"
        text = None if value is NOTHING else value if as_text else self._json(value, "the input")
        if tool is not None and place is not None:
            self._release(place)  # the input has ended: all of what it streamed
        if text is not None and not as_text:
            streamed = "" if tool is None else tool.raw
            if streamed.strip():
                try:
                    if dump(loads(streamed)) == text:
                        text = None  # the streamed text is the value: it stands
                except JSONDecodeError:
                    pass
        return tool, text

    def _end_tool(
        self, place: int, name: str, call_id: str, raw: str | None
    ) -> tuple[ToolInput, bool]:
        """End the call's tool input (made now if it streamed none); whether it changed."""
        tool = self._tools.get(place)
        if tool is None:
            tool = self._tools[place] = self._tool(place, name, call_id)
        return tool, bool(self._end(tool, raw))

    def _tool_input_available(self, event: Mapping[str, Any]) -> list[Update]:
        call_id, name, dynamic, executed = self._call_head(event)
        metadata = self._metadata(event)
        place = self._in_step(dynamic, call_id)
        tool, raw = self._input_tool(event, name, call_id, place)
        value = event.get("input", NOTHING)
        fields = {} if value is NOTHING else {"input": value}
        place, part = self._set_call(place, dynamic, call_id, name, "input-available", fields,
                                     executed)  # fmt: skip
        if metadata is not None:
            part["callProviderMetadata"] = metadata
        tool, changed = self._end_tool(place, name, call_id, raw)
        return [Update(self._kind, place, part, tool=tool, changed=changed)]

    def _tool_input_error(self, event: Mapping[str, Any]) -> list[Update]:
        call_id, name, dynamic, executed = self._call_head(event)
        text = self._fields.string(event.get("errorText"), "the errorText")
        metadata = self._metadata(event)
        place = self._in_step(dynamic, call_id)
        tool, raw = self._input_tool(event, name, call_id, place)
        value = event.get("input", NOTHING)
        fields: dict[str, Any] = {"errorText": text}
        if value is not NOTHING:
            fields["input" if dynamic else "rawInput"] = value
        place, part = self._set_call(place, dynamic, call_id, name, "output-error", fields,
                                     executed)  # fmt: skip
        if metadata is not None:
            part["callProviderMetadata"] = metadata
        tool, _ = self._end_tool(place, name, call_id, raw)
        if tool.status == "complete":  # whole JSON, refused by the server: not fit to run
            tool._refuse(f"the server refused it: {text}")
        return [Update(self._kind, place, part, tool=tool, changed=True)]

    def _output_part(self, event: Mapping[str, Any]) -> tuple[int, dict[str, Any], bool]:
        call_id = self._fields.string(event.get("toolCallId"), "the toolCallId")
        dynamic = self._flag(event, "dynamic") is True
        place = self._calls.get((dynamic, call_id))
        if place is None:
            kind = "dynamic tool call" if dynamic else "tool call"
            raise StreamError(f"{self._kind} for {kind} {call_id!r}, which has no input")
        return place, self._parts()[place], dynamic

    def _tool_output(self, event: Mapping[str, Any]) -> list[Update]:
        place, part, dynamic = self._output_part(event)
        executed = self._flag(event, "providerExecuted")
        available = self._kind == "tool-output-available"
        preliminary = self._flag(event, "preliminary") if available else None
        text = None if available else self._fields.string(event.get("errorText"), "the errorText")
        self._release(place)  # an input still streaming: the output shows all it streamed
        state, fields = output_fields(part, event, dynamic, preliminary, text)
        name = part.get("toolName", "")
        self._set_call(place, dynamic, event["toolCallId"], name, state, fields, executed)
        return [Update(self._kind, place, part, tool=self._tools.get(place))]

    # -- sources, files, data ----------------------------------------------------------------

    def _attached(self, event: Mapping[str, Any]) -> list[Update]:
        required, optional = ATTACHED[self._kind]
        part: dict[str, Any] = {"type": self._kind}
        for key in required:
            part[key] = self._fields.string(event.get(key), f"the {key}")
        for key in optional:
            value = self._fields.opt_string(event.get(key), f"the {key}")
            if value is not None:
                part[key] = value
        metadata = self._metadata(event)
        if metadata is not None and self._kind != "file":
            part["providerMetadata"] = metadata
        parts = self._shown()
        parts.append(part)
        return [Update(self._kind, len(parts) - 1, part)]

    def _data_part(self, event: Mapping[str, Any]) -> list[Update]:
        kind: str = event["type"]
        data_id = self._fields.opt_string(event.get("id"), "the data part id")
        if self._flag(event, "transient"):
            self._parts()
            return [Update(kind)]  # for the moment: never in the message
        parts = self._shown()
        place = None if data_id is None else self._data.get((kind, data_id))
        if place is not None:
            part = parts[place]
            update_data_part(part, event)
            return [Update(kind, place, part)]
        part = dict(event)
        if data_id is not None:
            self._data[(kind, data_id)] = len(parts)
        parts.append(part)
        return [Update(kind, len(parts) - 1, part)]


# The tables, set once the class exists (a compiled class body cannot name its methods).
UIMessageAccumulator._HANDLERS = {
    "start": UIMessageAccumulator._start,
    "finish": UIMessageAccumulator._finish,
    "abort": UIMessageAccumulator._abort,
    "error": UIMessageAccumulator._error_chunk,
    "message-metadata": UIMessageAccumulator._message_metadata,
    "start-step": UIMessageAccumulator._start_step,
    "finish-step": UIMessageAccumulator._finish_step,
    "text-start": UIMessageAccumulator._open,
    "reasoning-start": UIMessageAccumulator._open,
    "text-delta": UIMessageAccumulator._grow_text,
    "reasoning-delta": UIMessageAccumulator._grow_text,
    "text-end": UIMessageAccumulator._close_text,
    "reasoning-end": UIMessageAccumulator._close_text,
    "tool-input-start": UIMessageAccumulator._tool_input_start,
    "tool-input-delta": UIMessageAccumulator._tool_input_delta,
    "tool-input-available": UIMessageAccumulator._tool_input_available,
    "tool-input-error": UIMessageAccumulator._tool_input_error,
    "tool-output-available": UIMessageAccumulator._tool_output,
    "tool-output-error": UIMessageAccumulator._tool_output,
    "source-url": UIMessageAccumulator._attached,
    "source-document": UIMessageAccumulator._attached,
    "file": UIMessageAccumulator._attached,
    "data-*": UIMessageAccumulator._data_part,
}
UIMessageAccumulator._OPENERS = frozenset(UIMessageAccumulator._HANDLERS)
