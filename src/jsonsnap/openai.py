"""Rebuild OpenAI Chat Completions and Responses streams, with live tool-argument snapshots.

:class:`ChatCompletionAccumulator` takes Chat Completions chunks (each the decoded ``data`` of
a server-sent event, an SDK chunk object, or the ``[DONE]`` marker) and keeps
``.completion``, the completion so far as a plain dict in the shape of a non-streamed
``chat.completion``. Per choice (by ``choices[].index``): ``content``, ``refusal``,
``reasoning_content`` and ``reasoning`` are concatenated, ``role`` is set once, ``finish_reason``
and ``logprobs`` follow the chunks. Tool calls are keyed by their ``index``, not by their place
in the list, so interleaved parallel calls (indices 0, 1, 0, 1) and gaps (a first index of 1)
work; a delta without an index continues the call with the same ``id``, or starts a new one
for a new ``id``, or else continues the last call. ``id`` and ``type`` are set once; a
``function.name`` that a server repeats in every chunk is not doubled (a name sent in pieces
is joined); ``function.arguments`` are concatenated, and every call gets a live snapshot
through its own :class:`jsonsnap.Parser` (:class:`ToolInput`), strictly parsed when the choice
finishes; so does a legacy ``function_call`` (:meth:`ChatCompletionAccumulator.function_call`).
``custom`` tool calls carry free text (``custom.input``), concatenated and never parsed.
``usage`` is kept from the chunk that carries it: a later chunk without it does not
erase it. An ``{"error": ...}`` payload raises :class:`StreamError`.

:class:`ResponseAccumulator` does the same for the Responses API's typed events: output items
keyed by ``output_index``, their content parts, text, refusal and reasoning deltas, a live
snapshot per ``function_call`` (and ``mcp_call``) item, and the final response of
``response.completed``, ``response.incomplete`` or ``response.failed``.

Both return :class:`Update` records from ``feed()`` for UI code, and read an HTTP body with
``updates()`` / ``aupdates()`` / ``read()``. A choice cut at ``finish_reason: "length"`` (or a
response that is incomplete) leaves each unfinished call as its best-effort snapshot with the
raw text, status ``"incomplete"``; nothing is raised unless :meth:`ToolInput.final` is asked
for the strict arguments.
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping
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
    "ChatCompletionAccumulator",
    "ResponseAccumulator",
    "StreamError",
    "ToolInput",
    "ToolInputError",
    "Update",
]

#: Message fields whose deltas are pieces of text, and whether they are reasoning.
_TEXT_FIELDS = {"content": False, "refusal": False, "reasoning_content": True, "reasoning": True}
_ARGUMENT_DELTAS = ("response.function_call_arguments.delta", "response.mcp_call_arguments.delta")
#: The events that announce a part of an item, or repeat it whole at its end: the item's list
#: of parts and the event's key for the part's place in it.
_PART_EVENTS = {
    "response.content_part.added": ("content", "content_index"),
    "response.content_part.done": ("content", "content_index"),
    "response.reasoning_summary_part.added": ("summary", "summary_index"),
    "response.reasoning_summary_part.done": ("summary", "summary_index"),
}
#: The events that repeat a whole text at its end: the item's list of parts, the event's key
#: for the part's place in it, and the part's field that holds the text (same in the event).
_TEXT_DONE = {
    "response.output_text.done": ("content", "content_index", "text"),
    "response.refusal.done": ("content", "content_index", "refusal"),
    "response.reasoning_text.done": ("content", "content_index", "text"),
    "response.reasoning_summary_text.done": ("summary", "summary_index", "text"),
}
#: Choice fields with rules of their own; other fields of a choice (a vendor's content filter
#: results, say) are kept as their latest value.
_CHOICE_FIELDS = frozenset({"index", "delta", "logprobs", "finish_reason"})
#: Completion fields taken from the chunks as they come (``usage`` only when not null).
_COMPLETION_FIELDS = ("id", "created", "model", "system_fingerprint", "service_tier")


def _error(payload: Mapping[str, Any]) -> StreamError:
    error = payload.get("error")
    if not isinstance(error, Mapping):
        return StreamError(str(error))
    kind = error.get("type") or error.get("code")
    return StreamError(
        str(error.get("message", "")), error_type=None if kind is None else str(kind)
    )


def _name(part: dict[str, Any], name: str | None) -> None:
    """Take a function's name from a delta: a server that repeats it (whole, or growing) in
    every chunk does not double it; a name sent in pieces is joined."""
    if name:
        old = part["name"]
        part["name"] = name if name.startswith(old) else old + name


def _function_delta(part: dict[str, Any], tool: ToolInput, body: Mapping[str, Any]) -> None:
    """A function's name and a piece of its arguments, from a delta, into ``part`` (the
    ``function`` of a tool call, or a legacy ``function_call``) and its tool input."""
    _name(part, body.get("name"))
    tool.name = part["name"]
    arguments = body.get("arguments")
    if arguments:
        _append(part, "arguments", arguments)
        tool._feed(arguments)


def _check_choice(choice: Any) -> None:
    """Raise unless ``choice`` has the shape :meth:`ChatCompletionAccumulator._choice` reads."""
    choice = _mapping(choice, "a choice")
    if choice.get("index") is not None:
        _index(choice["index"], "the choice index")
    delta = _mapping(choice.get("delta") or {}, "the delta")
    for key in _TEXT_FIELDS:
        _opt_str(delta.get(key), key)
    calls = delta.get("tool_calls")
    if calls is None:
        calls = []
    elif not isinstance(calls, list):
        raise TypeError(f"tool_calls is {type(calls).__name__}, not a list")
    for call in calls:
        call = _mapping(call, "a tool call")
        if call.get("index") is not None:
            _index(call["index"], "the tool call index")
        _opt_str(call.get("id"), "the tool call id")
        _opt_str(call.get("type"), "the tool call type")
        for part in ("function", "custom"):
            body = _mapping(call.get(part) or {}, part)
            for field in ("name", "arguments", "input"):
                _opt_str(body.get(field), field)
    function = delta.get("function_call")
    function = {} if function is None else _mapping(function, "function_call")
    for field in ("name", "arguments"):
        _opt_str(function.get(field), field)
    if choice.get("logprobs") is not None:
        _mapping(choice["logprobs"], "logprobs")
    _opt_str(choice.get("finish_reason"), "finish_reason")


class _Choice:
    """One choice being accumulated: its dict in the completion and its tool calls."""

    __slots__ = ("calls", "choice", "function", "ids", "message", "tools")

    def __init__(self, index: int) -> None:
        self.message: dict[str, Any] = {"role": None, "content": None}
        self.choice: dict[str, Any] = {
            "index": index,
            "message": self.message,
            "logprobs": None,
            "finish_reason": None,
        }
        #: The tool call dicts of the message and their inputs, by tool call index.
        self.calls: dict[int, dict[str, Any]] = {}
        self.tools: dict[int, ToolInput] = {}
        self.ids: dict[str, int] = {}
        #: The arguments of a legacy ``function_call`` (the ``functions`` API), if any.
        self.function: ToolInput | None = None


class ChatCompletionAccumulator(_Accumulator):
    """Accumulate one Chat Completions stream into ``.completion``."""

    def __init__(self) -> None:
        #: The completion so far, shaped as a non-streamed ``chat.completion``.
        self.completion: dict[str, Any] = {
            "id": None,
            "object": "chat.completion",
            "created": None,
            "model": None,
            "choices": [],
            "usage": None,
        }
        #: Whether ``[DONE]`` has arrived.
        self.done = False
        #: How many chunks were fed (``[DONE]`` included).
        self.chunks = 0
        self._choices: dict[int, _Choice] = {}

    @property
    def tools(self) -> dict[int, ToolInput]:
        """The tool calls of the first choice (index 0), by tool call index."""
        choice = self._choices.get(0)
        return {} if choice is None else choice.tools

    def tool_calls(self, choice: int = 0) -> list[ToolInput]:
        """The tool calls of a choice, in index order."""
        state = self._choices.get(choice)
        return [] if state is None else [state.tools[i] for i in sorted(state.tools)]

    def feed(self, chunk: Mapping[str, Any] | str | Any) -> list[Update]:
        """Take one chunk: a mapping (decoded ``data``), an SDK chunk object, or ``"[DONE]"``.
        Returns what it did, one :class:`Update` per text piece, tool call or finish."""
        self.chunks += 1
        if isinstance(chunk, str):
            if chunk.strip() != "[DONE]":
                raise StreamError(f"not a chunk: {chunk[:40]!r}")
            for state in self._choices.values():  # the stream is over: what there is, is all
                self._finish(state)
            self.done = True
            return [Update("done")]
        chunk = _as_mapping(chunk)
        if chunk.get("error") is not None:
            raise _error(chunk)
        if self.done:
            raise StreamError("a chunk after [DONE]")
        choices = chunk.get("choices") or ()
        try:  # all of it, before anything changes: a malformed chunk is not half applied
            if not isinstance(choices, (list, tuple)):
                raise TypeError(f"choices is {type(choices).__name__}, not a list")
            for choice in choices:
                _check_choice(choice)
        except _MALFORMED as exc:
            raise _malformed("chunk", exc) from exc
        completion = self.completion
        for key in _COMPLETION_FIELDS:
            value = chunk.get(key)
            if value is not None:
                completion[key] = value
        if chunk.get("usage") is not None:
            completion["usage"] = chunk["usage"]
        updates: list[Update] = []
        for choice in choices:
            self._choice(choice, updates)
        if chunk.get("usage") is not None:
            updates.append(Update("usage"))
        return updates

    def _feed_event(self, event: ServerSentEvent) -> list[Update]:
        data = event.data
        return self.feed(data if data.strip() == "[DONE]" else _json_data(event))

    def _state(self, index: int) -> _Choice:
        state = self._choices.get(index)
        if state is None:
            state = self._choices[index] = _Choice(index)
            positions = sorted(self._choices)
            self.completion["choices"].insert(positions.index(index), state.choice)
        return state

    def _choice(self, choice: Mapping[str, Any], updates: list[Update]) -> None:
        index = choice.get("index") or 0
        state = self._state(index)
        message = state.message
        delta = choice.get("delta") or {}
        for key, value in delta.items():
            if value is None:
                continue
            if key in _TEXT_FIELDS:
                if value:
                    _append(message, key, value)
                    updates.append(
                        Update(key, index, message, key, value, thinking=_TEXT_FIELDS[key])
                    )
                else:
                    message.setdefault(key, None)
                    if message[key] is None:
                        message[key] = ""
            elif key == "role":
                if message.get("role") is None:
                    message["role"] = value
            elif key == "tool_calls":
                updates.extend(self._tool_call(state, call) for call in value)
            elif key == "function_call":
                updates.append(self._function_call(state, value))
            else:  # a field this version does not know (audio, function_call, ...): the latest
                message[key] = value
        logprobs = choice.get("logprobs")
        if logprobs is not None:
            kept = state.choice["logprobs"]
            if kept is None:
                state.choice["logprobs"] = kept = {}
            for key, value in logprobs.items():
                if isinstance(value, list):
                    old = kept.get(key)
                    kept[key] = (old if isinstance(old, list) else []) + value
                elif value is not None or key not in kept:
                    kept[key] = value
        for key, value in choice.items():  # fields this version does not know: the latest
            if key not in _CHOICE_FIELDS and value is not None:
                state.choice[key] = value
        reason = choice.get("finish_reason")
        if reason is not None:
            state.choice["finish_reason"] = reason
            self._finish(state)
            updates.append(Update("finish", index, message))

    def _call_index(self, state: _Choice, call: Mapping[str, Any]) -> int:
        index = call.get("index")
        if isinstance(index, int):
            return index
        call_id = call.get("id")
        if call_id is not None:
            if call_id in state.ids:
                return state.ids[call_id]
            return max(state.calls, default=-1) + 1  # a new call
        return max(state.calls, default=0)  # more of the last call

    def _tool_call(self, state: _Choice, call: Mapping[str, Any]) -> Update:
        index = self._call_index(state, call)
        entry = state.calls.get(index)
        kind = call.get("type") or (entry or {}).get("type") or "function"
        if entry is None:
            entry = state.calls[index] = {"id": None, "type": kind}
            if kind == "custom":
                entry["custom"] = {"name": "", "input": ""}
            elif kind == "function":
                entry["function"] = {"name": "", "arguments": ""}
            calls = state.message.setdefault("tool_calls", [])
            calls.insert(bisect.bisect(sorted(state.calls), index) - 1, entry)
        if entry["id"] is None and call.get("id"):
            entry["id"] = call["id"]
            state.ids[call["id"]] = index
        body = call.get(entry["type"]) or {}
        part = entry.get(entry["type"])
        if part is None:  # a type this version does not know: kept as it came
            entry.update({k: v for k, v in call.items() if k != "index"})
            return Update("tool_call", index, entry)
        if "function" in entry:
            tool = state.tools.get(index)
            if tool is None:
                tool = state.tools[index] = ToolInput(index, "")
            tool.id = entry["id"]
            _function_delta(part, tool, body)
            return Update("tool_call", index, entry, "arguments", tool=tool)
        _name(part, body.get("name"))
        text = body.get("input") or ""
        if text:
            _append(part, "input", text)
        return Update("tool_call", index, entry, "input", text)

    def _function_call(self, state: _Choice, body: Mapping[str, Any]) -> Update:
        """A legacy ``function_call`` delta: like a tool call's ``function``, one per choice."""
        message = state.message
        part = message.get("function_call")
        if part is None:
            part = message["function_call"] = {"name": "", "arguments": ""}
        tool = state.function
        if tool is None:
            tool = state.function = ToolInput(0, "")
        _function_delta(part, tool, body)
        return Update("function_call", None, message, "arguments", tool=tool)

    def function_call(self, choice: int = 0) -> ToolInput | None:
        """The arguments of a choice's legacy ``function_call`` (the ``functions`` API)."""
        state = self._choices.get(choice)
        return None if state is None else state.function

    def _finish(self, state: _Choice) -> None:
        for tool in state.tools.values():
            tool._close()
        if state.function is not None:
            state.function._close()


class ResponseAccumulator(_Accumulator):
    """Accumulate one Responses API stream into ``.response``."""

    #: Output item types whose ``arguments`` stream as JSON.
    TOOL_ITEMS = frozenset({"function_call", "mcp_call"})

    def __init__(self) -> None:
        #: The response so far (``None`` before ``response.created``).
        self.response: dict[str, Any] | None = None
        #: The streamed tool arguments, by output index.
        self.tools: dict[int, ToolInput] = {}
        #: Whether the final response (completed, incomplete or failed) has arrived.
        self.done = False
        #: How many events were fed.
        self.events = 0

    def feed(self, event: Mapping[str, Any] | Any) -> list[Update]:
        """Take one event: a mapping (decoded ``data``) or an SDK event object."""
        event = _as_mapping(event)
        self.events += 1
        kind = str(event.get("type"))
        try:
            return self._event(kind, event)
        except _MALFORMED as exc:
            raise _malformed(f"{kind} event", exc) from exc

    def _event(self, kind: str, event: Mapping[str, Any]) -> list[Update]:
        if kind == "error":  # {"type": "error", "code", "message", "param"}, or nested
            error = event.get("error")
            if isinstance(error, Mapping):
                raise _error(event)
            code = event.get("code")
            raise StreamError(
                str(event.get("message", "")), error_type=None if code is None else str(code)
            )
        if kind in ("response.created", "response.in_progress", "response.queued"):
            self._adopt(event["response"], final=False)
            return [Update(kind)]
        if self.response is None:
            raise StreamError(f"{kind} before response.created")
        if kind in ("response.completed", "response.incomplete", "response.failed"):
            self._adopt(event["response"], final=True)
            self.done = True
            if kind == "response.failed":
                error = self.response.get("error")
                if not isinstance(error, Mapping):
                    error = {}
                raise StreamError(
                    str(error.get("message", "the response failed")),
                    error_type=str(error.get("code") or "response.failed"),
                )
            return [Update(kind)]
        if kind == "response.output_item.added":
            return [self._item_added(event)]
        if kind == "response.output_item.done":
            return [self._item_done(event)]
        return self._delta(kind, event)

    def _feed_event(self, event: ServerSentEvent) -> list[Update]:
        if event.data.strip() == "[DONE]":
            return []
        return self.feed(_json_data(event))

    def _output(self) -> list[dict[str, Any]]:
        output: list[dict[str, Any]] = self.response.setdefault("output", [])  # type: ignore[union-attr]
        return output

    def _adopt(self, response: Any, final: bool) -> None:
        """Take the response's fields; its output only when it has one (the final response
        repeats every item whole), so that streamed items are never lost."""
        response = _mapping(response, "the response")
        final_output = None
        if final and response.get("output"):
            items = response["output"]
            if not isinstance(items, list):
                raise TypeError(f"output is {type(items).__name__}, not a list")
            final_output = [dict(_mapping(item, "an output item")) for item in items]
            for index in self.tools:
                if index < len(final_output):
                    _opt_str(final_output[index].get("arguments"), "the arguments")
        output = self._output() if self.response is not None else []
        self.response = dict(response)
        if final_output is not None:
            output = final_output
            for index, tool in self.tools.items():
                if index < len(output) and "arguments" in output[index]:
                    tool._close(output[index]["arguments"])
        self.response["output"] = output
        if final:
            for tool in self.tools.values():
                tool._close()

    def _item(self, event: Mapping[str, Any]) -> dict[str, Any]:
        index = event.get("output_index")
        output = self._output()
        if type(index) is not int or not 0 <= index < len(output):
            raise StreamError(f"{event.get('type')} for output item {index}, which was not added")
        return output[index]

    def _item_added(self, event: Mapping[str, Any]) -> Update:
        index = _index(event["output_index"], "the output index")
        output = self._output()
        if index != len(output):
            raise StreamError(f"output item {index} added, expected {len(output)}")
        item = dict(_mapping(event["item"], "the item"))
        tool = None
        if item.get("type") in self.TOOL_ITEMS:
            arguments = _opt_str(item.get("arguments"), "the arguments") or ""
            name = _opt_str(item.get("name"), "the name") or ""
            call_id = _opt_str(item.get("call_id") or item.get("id"), "the call id")
            tool = self.tools[index] = ToolInput(index, name, call_id)
            item["arguments"] = arguments
            if arguments:
                tool._feed(arguments)
        output.append(item)
        return Update("response.output_item.added", index, item, tool=tool)

    def _item_done(self, event: Mapping[str, Any]) -> Update:
        self._item(event)
        index = event["output_index"]
        item = dict(_mapping(event["item"], "the item"))
        tool = self.tools.get(index)
        if tool is not None:
            tool._close(_opt_str(item.get("arguments"), "the arguments"))
            item["arguments"] = tool.raw
        self._output()[index] = item
        return Update("response.output_item.done", index, item, tool=tool)

    def _part(self, item: dict[str, Any], key: str, index: Any) -> dict[str, Any]:
        parts: list[dict[str, Any]] = item.setdefault(key, [])
        if not isinstance(index, int) or index < 0:
            raise StreamError(f"a {key} part without an index")
        while len(parts) <= index:  # a delta before its part was announced: make room
            parts.append({})
        return parts[index]

    def _delta(self, kind: str, event: Mapping[str, Any]) -> list[Update]:
        if kind.endswith(".delta") and "output_index" in event:
            item = self._item(event)
            index = event["output_index"]
            text = _str(event.get("delta") or "", "the delta")
            if kind in (
                "response.function_call_arguments.delta",
                "response.mcp_call_arguments.delta",
            ):
                tool = self.tools.get(index)
                if tool is None:
                    raise StreamError(f"{kind} for output item {index}, not a tool call")
                _append(item, "arguments", text)
                tool._feed(text)
                return [Update(kind, index, item, "arguments", tool=tool)]
            if kind == "response.custom_tool_call_input.delta":
                _append(item, "input", text)
                return [Update(kind, index, item, "input", text)]
            if kind == "response.reasoning_summary_text.delta":
                part = self._part(item, "summary", event.get("summary_index"))
                part.setdefault("type", "summary_text")
                _append(part, "text", text)
                return [Update(kind, index, item, "summary", text, thinking=True)]
            if kind in (
                "response.output_text.delta",
                "response.refusal.delta",
                "response.reasoning_text.delta",
            ):
                part = self._part(item, "content", event.get("content_index"))
                field = "refusal" if kind == "response.refusal.delta" else "text"
                _append(part, field, text)
                thinking = kind == "response.reasoning_text.delta"
                return [Update(kind, index, item, field, text, thinking=thinking)]
            return [Update(kind, index, item)]  # a delta this version does not know
        where = _PART_EVENTS.get(kind)
        if where is not None:  # a part announced, or repeated whole at its end
            key, index_key = where
            item = self._item(event)
            whole = _mapping(event.get("part") or {}, "the part")
            part = self._part(item, key, event.get(index_key))
            part.clear()
            part.update(whole)
            return [Update(kind, event["output_index"], item)]
        if kind == "response.output_text.annotation.added":
            item = self._item(event)
            part = self._part(item, "content", event.get("content_index"))
            part.setdefault("annotations", []).append(event.get("annotation"))
            return [Update(kind, event["output_index"], item)]
        if kind in ("response.function_call_arguments.done", "response.mcp_call_arguments.done"):
            item = self._item(event)
            tool = self.tools.get(event["output_index"])
            if tool is not None:
                tool._close(event.get("arguments"))
                item["arguments"] = tool.raw
            return [Update(kind, event["output_index"], item, tool=tool)]
        done = _TEXT_DONE.get(kind)
        if done is not None:  # the whole text again: it stands over the deltas
            key, index_key, field = done
            item = self._item(event)
            part = self._part(item, key, event.get(index_key))
            if isinstance(event.get(field), str):
                part[field] = event[field]
            return [Update(kind, event["output_index"], item)]
        return [Update(kind)]  # an event this version does not know
