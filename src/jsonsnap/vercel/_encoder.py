"""The encoder: the updates of any accumulator in, UI message stream chunks (dicts) out.

It reads only what every :class:`~jsonsnap.streams.Update` carries (``text``, ``thinking``,
``index``, ``delta``, ``tool``, ``fragment``, ``block``), so one encoder serves every protocol.
Sans-IO: the chunks are dicts; ``_body`` frames them as the body of a response.
"""

from __future__ import annotations

import uuid
from typing import Any, Final

from ..streams import ToolInput, ToolInputError, Update
from ._protocol import FINISH_REASONS

#: Block or item types of calls the provider runs itself.
_PROVIDER_EXECUTED: Final = frozenset({"server_tool_use", "mcp_tool_use", "mcp_call"})


class _Call:
    """A tool call being encoded: its id and name as sent, how much of its text was sent
    (``sent``, in characters), and whether its input has ended."""

    __slots__ = ("executed", "id", "name", "over", "sent", "tool")

    def __init__(self, tool: ToolInput, call_id: str, executed: bool) -> None:
        self.tool = tool  # kept: the key of the calls is its id()
        self.id = call_id
        self.name = tool.name
        self.executed = executed
        self.sent = 0
        self.over = False


class UIMessageEncoder:
    """Updates in, UI message stream chunks (dicts) out; sans-IO.

    ``encode(update)`` returns the chunks an update makes (the first also opens the stream:
    ``start``, ``start-step``); :meth:`finish` or :meth:`error` ends it (``[DONE]`` is the
    framing's: :data:`DONE`). ``message_id`` is the ``messageId`` of ``start`` (a new
    ``msg-<uuid>`` if none is given before the stream opens); ``metadata``, if any, its
    ``messageMetadata``.
    """

    def __init__(self, *, message_id: str | None = None, metadata: Any = None) -> None:
        self.message_id = message_id
        self.metadata = metadata
        self.started = False
        self.ended = False
        self._part: tuple[tuple[Any, ...], str, str] | None = None  # key, kind, id
        self._parts = 0
        self._calls: dict[int, _Call] = {}  # by id() of the ToolInput

    def start(self) -> list[dict[str, Any]]:
        """Open the stream (once): ``start`` and ``start-step``."""
        if self.started:
            return []
        self.started = True
        if self.message_id is None:
            self.message_id = f"msg-{uuid.uuid4().hex}"
        start: dict[str, Any] = {"type": "start", "messageId": self.message_id}
        if self.metadata is not None:
            start["messageMetadata"] = self.metadata
        return [start, {"type": "start-step"}]

    def encode(self, update: Update) -> list[dict[str, Any]]:
        """The chunks one update makes."""
        if self.ended:
            raise ValueError("the UI message stream has ended")
        out = self.start()
        if update.text:
            kind = "reasoning" if update.thinking else "text"
            key = (update.index, update.thinking, update.delta)
            part = self._part
            if part is None or part[0] != key:
                out += self._end_part()
                self._parts += 1
                part = self._part = (key, kind, f"{kind}-{self._parts}")
                out.append({"type": f"{kind}-start", "id": part[2]})
            out.append({"type": f"{kind}-delta", "id": part[2], "delta": update.text})
        tool = update.tool
        if tool is not None:
            out += self._tool(tool, update)
        return out

    def _tool(self, tool: ToolInput, update: Update) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        call = self._calls.get(id(tool))
        if call is None:
            if not (tool.name or tool.raw or tool.ended):
                return out  # nothing to show yet: started once the name (or input) comes
            out += self._end_part()
            block = update.block or {}
            executed = block.get("type") in _PROVIDER_EXECUTED or block.get("providerExecuted")
            call = _Call(tool, tool.id or f"call-{len(self._calls) + 1}", executed is True)
            self._calls[id(tool)] = call
            start = {"type": "tool-input-start", "toolCallId": call.id, "toolName": call.name}
            out.append(self._executed(start, call))
            text, piece = tool.raw, update.fragment
            if piece and 0xD800 <= ord(piece[-1]) <= 0xDBFF and not text.endswith(piece[-1]):
                text += piece[-1]  # the half of a pair the accumulator holds back for now
            if text:
                out.append(self._delta(call, text))
        elif update.fragment and not call.over:
            out.append(self._delta(call, update.fragment))
        if tool.ended and not call.over:
            if len(tool.raw) > call.sent:  # the text's end, which came with an earlier update
                out.append(self._delta(call, tool.raw[call.sent :]))
            out.append(self._end_call(call))
        return out

    @staticmethod
    def _delta(call: _Call, text: str) -> dict[str, Any]:
        call.sent += len(text)
        return {"type": "tool-input-delta", "toolCallId": call.id, "inputTextDelta": text}

    @staticmethod
    def _executed(chunk: dict[str, Any], call: _Call) -> dict[str, Any]:
        if call.executed:
            chunk["providerExecuted"] = True
        return chunk

    def _end_call(self, call: _Call, why: str | None = None) -> dict[str, Any]:
        """``tool-input-available`` with the final input, or ``tool-input-error`` and why."""
        call.over = True
        tool = call.tool
        head = {"toolCallId": call.id, "toolName": call.name}
        if why is None and tool.complete:
            chunk = {"type": "tool-input-available", **head, "input": tool.final()}
            return self._executed(chunk, call)
        if why is None:
            try:
                tool.final()
            except ToolInputError as exc:
                why = str(exc)
        # The value, when it is whole JSON that breaks its schema; else the text as it came.
        whole = tool.ended and tool.status == "invalid" and tool.error is None and not tool.glued
        value = tool.snapshot if whole else tool.raw
        chunk = {"type": "tool-input-error", **head, "input": value, "errorText": why or ""}
        return self._executed(chunk, call)

    def _end_part(self) -> list[dict[str, Any]]:
        part, self._part = self._part, None
        return [] if part is None else [{"type": f"{part[1]}-end", "id": part[2]}]

    def _end_all(self, why: str) -> list[dict[str, Any]]:
        out = self.start() + self._end_part()
        for call in self._calls.values():
            if not call.over:
                ended = call.tool.ended
                out.append(self._end_call(call, None if ended else why))
        return out

    def finish(self, finish_reason: str | None = None) -> list[dict[str, Any]]:
        """End the stream: the part still open ends, every call still streaming becomes a
        ``tool-input-error`` (its input never ended), then ``finish-step`` and ``finish``
        (with ``finishReason`` when given: one of :data:`FINISH_REASONS`)."""
        if self.ended:
            return []
        if finish_reason is not None and finish_reason not in FINISH_REASONS:
            raise ValueError(f"finish_reason is {finish_reason!r}, not one of the protocol's")
        out = self._end_all("the stream ended before the tool call's input did")
        self.ended = True
        finish: dict[str, Any] = {"type": "finish"}
        if finish_reason is not None:
            finish["finishReason"] = finish_reason
        return [*out, {"type": "finish-step"}, finish]

    def error(self, text: str) -> list[dict[str, Any]]:
        """End the stream with an error: the parts end as in :meth:`finish`, then ``error``
        (``errorText``: ``text``) and ``finish`` (``finishReason: "error"``)."""
        if self.ended:
            return []
        out = self._end_all(f"the stream failed before the tool call's input ended: {text}")
        self.ended = True
        return [*out, {"type": "error", "errorText": text}, {"type": "finish-step"},
                {"type": "finish", "finishReason": "error"}]  # fmt: skip
