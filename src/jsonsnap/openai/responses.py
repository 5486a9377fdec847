"""Rebuild an OpenAI Responses API stream, with live tool-argument snapshots.

:class:`ResponseAccumulator` takes the Responses API's typed events (each the decoded ``data``
of a server-sent event, the :class:`~jsonsnap.sse.ServerSentEvent` itself, or an SDK event
object) and keeps ``.response``: output items keyed by ``output_index``, their content parts
(text, refusal, reasoning text, reasoning summaries, annotations), a live snapshot per
``function_call`` and ``mcp_call`` item (:class:`ToolInput`), and the final response of
``response.completed`` or ``response.incomplete`` (items streamed so far are kept when it
repeats none), which ends every call still streaming. ``error`` and ``response.failed`` raise
:class:`StreamError`. An index may name an item or part there is, or the next one: never more.
Events about an item after its ``output_item.done``, and any event after the final response,
are refused.

Given the request's ``tools`` and ``text`` (``ResponseAccumulator(tools=request["tools"],
output_schema=request["text"])``; the response repeats both), the calls are checked against
their functions' ``parameters`` and the ``output_text`` of a structured output is parsed live
(``.structured``; it ends with the final response).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._errors import mypyc_attr
from ..streams import Accumulator, StreamError, Update

#: The events that announce a part of an item, or repeat it whole at its end: the item's list
#: of parts and the event's key for the part's place in it.
_PART_EVENTS = {
    "response.content_part.added": ("content", "content_index"),
    "response.content_part.done": ("content", "content_index"),
    "response.reasoning_summary_part.added": ("summary", "summary_index"),
    "response.reasoning_summary_part.done": ("summary", "summary_index"),
}
#: The events that grow a part's text: the item's list of parts, the event's key for the
#: part's place, the part's field, and whether it is reasoning.
_TEXT_DELTAS = {
    "response.output_text.delta": ("content", "content_index", "text", False),
    "response.refusal.delta": ("content", "content_index", "refusal", False),
    "response.reasoning_text.delta": ("content", "content_index", "text", True),
    "response.reasoning_summary_text.delta": ("summary", "summary_index", "text", True),
}
#: The events that repeat a whole text at its end: as above (the event has the same field).
_TEXT_DONE = {
    "response.output_text.done": ("content", "content_index", "text"),
    "response.refusal.done": ("content", "content_index", "refusal"),
    "response.reasoning_text.done": ("content", "content_index", "text"),
    "response.reasoning_summary_text.done": ("summary", "summary_index", "text"),
}


@mypyc_attr(allow_interpreted_subclasses=True)  # (users')
class ResponseAccumulator(Accumulator):
    """Accumulate one Responses API stream into ``.response``.

    ``tools`` is keyed by output index; ``tool_calls()`` lists them in order.
    """

    protocol = "responses"
    _OPENERS = frozenset({"response.created", "response.in_progress", "response.queued", "error"})
    _FIRST = "response.created"
    #: Output item types whose ``arguments`` stream as JSON.
    TOOL_ITEMS = frozenset({"function_call", "mcp_call"})

    def _begin(self) -> None:
        #: The response so far (``None`` before ``response.created``).
        self.response: dict[str, Any] | None = None
        self._finished: set[int] = set()  # the items whose output_item.done has come

    @classmethod
    def looks_like(cls, data: Mapping[str, Any]) -> bool:
        kind = data.get("type")
        return isinstance(kind, str) and kind.startswith("response.")

    @property
    def result(self) -> dict[str, Any] | None:
        """The response so far (``.response``)."""
        return self.response

    def _done_marker(self) -> list[Update]:
        return []  # a proxy's [DONE] after the final response: nothing to do

    def _blocks(self) -> list[dict[str, Any]]:
        return self._output()

    def _output(self) -> list[dict[str, Any]]:
        output: list[dict[str, Any]] = self.response["output"]  # type: ignore[index]
        return output

    # -- the response itself ----------------------------------------------------------------

    def _progress(self, event: Mapping[str, Any]) -> list[Update]:
        self._adopt(event, final=False)
        return [Update(self._kind)]

    def _final(self, event: Mapping[str, Any]) -> list[Update]:
        updates = self._adopt(event, final=True)
        updates.append(Update(self._kind))
        return updates

    def _failed(self, event: Mapping[str, Any]) -> list[Update]:
        self._adopt(event, final=True)
        error = self.response.get("error")  # type: ignore[union-attr]
        raise self._error(
            error if isinstance(error, Mapping) else {}, "response.failed", "the response failed"
        )

    def _error_event(self, event: Mapping[str, Any]) -> list[Update]:
        raise self._error(event)  # {"type": "error", "code", "message", "param"}, or nested

    def _adopt(self, event: Mapping[str, Any], final: bool) -> list[Update]:
        """Take the response's fields; its output only when it has one (the final response
        repeats every item whole), so that streamed items are never lost. The final response
        ends every tool call still streaming."""
        response = dict(self._fields.mapping(event.get("response"), "the response"))
        output = self._output() if self.response is not None else []
        raws: dict[int, str | None] = {}
        items = response.get("output") if final else None
        if items:
            items = [
                dict(self._fields.mapping(i, "an output item"))
                for i in self._fields.array(items, "output")
            ]
            for index in self._tools:
                if index < len(items):
                    raws[index] = self._fields.opt_string(
                        items[index].get("arguments"), "the arguments"
                    )
            output = items
        response["output"] = output
        self.response = response
        if not final:
            return []
        self._done = True
        updates = []
        for index, tool in self._tools.items():
            changed = self._end(tool, raws.get(index))
            if changed is not None:
                item = output[index] if index < len(output) else None
                updates.append(Update(self._kind, index, item, tool=tool, changed=changed))
        return updates

    # -- output items -----------------------------------------------------------------------

    def _item(self, event: Mapping[str, Any]) -> tuple[int, dict[str, Any]]:
        """The item an event is about, added and not done."""
        output = self._output()
        index = self._fields.place(event.get("output_index"), "output item", output, extend=False)
        if index in self._finished:
            raise StreamError(f"{self._kind} for output item {index}, which is done")
        return index, output[index]

    def _item_added(self, event: Mapping[str, Any]) -> list[Update]:
        output = self._output()
        index = self._fields.next_place(event.get("output_index"), "output item", output)
        item = dict(self._fields.mapping(event.get("item"), "the item"))
        tool = None
        arguments = ""
        changed = False
        if self._fields.opt_string(item.get("type"), "the item type") in self.TOOL_ITEMS:
            arguments = self._fields.opt_string(item.get("arguments"), "the arguments") or ""
            name = self._fields.opt_string(item.get("name"), "the name") or ""
            call_id = self._fields.opt_string(item.get("call_id") or item.get("id"), "the call id")
            tool = self._tools[index] = self._tool(index, name, call_id)
            item["arguments"] = arguments
            changed = bool(arguments) and self._grow(tool, arguments)
        output.append(item)
        return [Update(self._kind, index, item, tool=tool, fragment=arguments, changed=changed)]

    def _item_done(self, event: Mapping[str, Any]) -> list[Update]:
        index, _ = self._item(event)
        item = dict(self._fields.mapping(event.get("item"), "the item"))
        tool = self._tools.get(index)
        changed = None
        if tool is not None:
            changed = self._end(
                tool, self._fields.opt_string(item.get("arguments"), "the arguments")
            )
            item["arguments"] = tool.raw
        self._output()[index] = item
        self._finished.add(index)
        return [Update(self._kind, index, item, tool=tool, changed=bool(changed))]

    def _part(self, item: dict[str, Any], key: str, place: Any) -> dict[str, Any]:
        """The part of an item an event is about: one there is, or the next one (made now:
        the caller has checked everything else)."""
        parts = item.get(key)
        parts = [] if parts is None else self._fields.array(parts, f"the item's {key}")
        index = self._fields.place(place, f"{key} part", parts, extend=True)
        if index == len(parts):
            item[key] = parts
            parts.append({})
        part = parts[index]
        if not isinstance(part, dict):
            raise self._fields.malformed(f"a {key} part is not an object")
        return part

    def _part_event(self, event: Mapping[str, Any]) -> list[Update]:
        key, place = _PART_EVENTS[self._kind]
        index, item = self._item(event)
        whole = event.get("part")
        whole = {} if whole is None else self._fields.mapping(whole, "the part")
        part = self._part(item, key, event.get(place))
        part.clear()
        part.update(whole)
        return [Update(self._kind, index, item)]

    def _delta_text(self, event: Mapping[str, Any]) -> str:
        delta = event.get("delta")
        return "" if delta is None else self._fields.string(delta, "the delta")

    def _text_delta(self, event: Mapping[str, Any]) -> list[Update]:
        key, place, field, thinking = _TEXT_DELTAS[self._kind]
        index, item = self._item(event)
        text = self._delta_text(event)
        part = self._part(item, key, event.get(place))
        self._fields.check_text(part, field)
        if key == "summary":
            part.setdefault("type", "summary_text")
        self._fields.append(part, field, text)
        delta = "summary" if key == "summary" else field
        return [Update(self._kind, index, item, delta, text, thinking=thinking)]

    def _text_done(self, event: Mapping[str, Any]) -> list[Update]:
        key, place, field = _TEXT_DONE[self._kind]  # the whole text again: it stands
        index, item = self._item(event)
        text = event.get(field)
        part = self._part(item, key, event.get(place))
        if isinstance(text, str):
            part[field] = text
        return [Update(self._kind, index, item)]

    def _annotation(self, event: Mapping[str, Any]) -> list[Update]:
        index, item = self._item(event)
        part = self._part(item, "content", event.get("content_index"))
        annotations = part.get("annotations")
        if annotations is None:
            annotations = part["annotations"] = []
        self._fields.array(annotations, "the annotations").append(event.get("annotation"))
        return [Update(self._kind, index, item)]

    def _arguments_delta(self, event: Mapping[str, Any]) -> list[Update]:
        index, item = self._item(event)
        text = self._delta_text(event)
        tool = self._tools.get(index)
        if tool is None:
            raise StreamError(f"{self._kind} for output item {index}, not a tool call")
        self._fields.check_text(item, "arguments")
        changed = self._grow(tool, text)
        self._fields.append(item, "arguments", text)
        return [
            Update(self._kind, index, item, "arguments", tool=tool, fragment=text, changed=changed)
        ]

    def _arguments_done(self, event: Mapping[str, Any]) -> list[Update]:
        index, item = self._item(event)
        raw = self._fields.opt_string(event.get("arguments"), "the arguments")
        tool = self._tools.get(index)
        if tool is None:
            return [Update(self._kind, index, item)]
        changed = self._end(tool, raw)
        item["arguments"] = tool.raw
        return [Update(self._kind, index, item, tool=tool, changed=bool(changed))]

    def _custom_delta(self, event: Mapping[str, Any]) -> list[Update]:
        index, item = self._item(event)
        text = self._delta_text(event)
        self._fields.check_text(item, "input")
        self._fields.append(item, "input", text)
        return [Update(self._kind, index, item, "input", custom_input=text)]


# The tables, set once the class exists (a compiled class body cannot name its methods).
ResponseAccumulator._HANDLERS = {
    **dict.fromkeys(ResponseAccumulator._OPENERS - {"error"}, ResponseAccumulator._progress),
    "response.completed": ResponseAccumulator._final,
    "response.incomplete": ResponseAccumulator._final,
    "response.failed": ResponseAccumulator._failed,
    "error": ResponseAccumulator._error_event,
    "response.output_item.added": ResponseAccumulator._item_added,
    "response.output_item.done": ResponseAccumulator._item_done,
    **dict.fromkeys(_PART_EVENTS, ResponseAccumulator._part_event),
    **dict.fromkeys(_TEXT_DELTAS, ResponseAccumulator._text_delta),
    **dict.fromkeys(_TEXT_DONE, ResponseAccumulator._text_done),
    "response.output_text.annotation.added": ResponseAccumulator._annotation,
    "response.function_call_arguments.delta": ResponseAccumulator._arguments_delta,
    "response.mcp_call_arguments.delta": ResponseAccumulator._arguments_delta,
    "response.function_call_arguments.done": ResponseAccumulator._arguments_done,
    "response.mcp_call_arguments.done": ResponseAccumulator._arguments_done,
    "response.custom_tool_call_input.delta": ResponseAccumulator._custom_delta,
}
