"""Rebuild an OpenAI Chat Completions stream, with live tool-argument snapshots.

:class:`ChatCompletionAccumulator` takes chunks (decoded ``data``, a
:class:`~jsonsnap.sse.ServerSentEvent`, an SDK chunk object, or the ``[DONE]`` marker) and keeps
``.completion``, shaped as a non-streamed ``chat.completion``. Per choice (by
``choices[].index``): text fields are concatenated, ``role`` is set once, ``finish_reason`` and
``logprobs`` follow the chunks, unknown fields keep their latest value. Tool calls are keyed by
their ``index`` (interleaved calls and gaps work; a delta without an index continues the call
with its ``id``, starts a new one for a new ``id``, or continues the last); a name a server
repeats is not doubled; every call's ``arguments`` get a live snapshot (:class:`ToolInput`),
strictly parsed when the choice finishes or at ``[DONE]``, with one ``"tool_call_done"`` update;
a legacy ``function_call`` too. ``custom`` calls carry free text. ``usage`` is kept from the
chunk that carries it. An ``{"error": ...}`` payload raises :class:`StreamError`.

A chunk is checked whole before it changes anything: each field of a choice's delta goes to its
handler (the table ``_FIELDS``), which checks it and returns the step that applies it; the steps
run once every field of every choice has passed.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ..streams import Accumulator, StreamError, ToolInput, Update

#: Message fields whose deltas are pieces of text, and whether they are reasoning.
_TEXT_FIELDS = {"content": False, "refusal": False, "reasoning_content": True, "reasoning": True}
#: Choice fields with rules of their own (a ``message`` is never taken: the message is built
#: from the deltas); other fields of a choice (a vendor's content filter results, say) are kept
#: as their latest value.
_CHOICE_FIELDS = frozenset({"index", "delta", "logprobs", "finish_reason", "message"})
#: Completion fields taken from the chunks as they come (``usage`` only when not null).
_COMPLETION_FIELDS = ("id", "created", "model", "system_fingerprint", "service_tier")

#: A checked change to one choice, applied once the whole chunk has been checked.
Step = Callable[["_Choice"], list[Update]]


class _Choice:
    """One choice being accumulated: its dict in the completion and its tool calls."""

    def __init__(self, index: int) -> None:
        self.message: dict[str, Any] = {"role": None, "content": None}
        self.choice: dict[str, Any] = {
            "index": index,
            "message": self.message,
            "logprobs": None,
            "finish_reason": None,
        }
        #: The tool call dicts of the message, their kinds and their inputs, by index.
        self.calls: dict[int, dict[str, Any]] = {}
        self.kinds: dict[int, str] = {}
        self.tools: dict[int, ToolInput] = {}
        self.order: list[int] = []  # the tool call indices, sorted
        self.ids: dict[str, int] = {}
        #: The arguments of a legacy ``function_call`` (the ``functions`` API), if any.
        self.function: ToolInput | None = None
        self.finished = False


@dataclass(frozen=True, slots=True)
class _CallDelta:
    """A tool call's delta, checked."""

    index: int | None
    id: str | None
    type: str | None
    name: str | None  # of the function, or of the custom tool
    arguments: str  # a piece of the function's arguments
    input: str  # a piece of the custom tool's input
    call: Mapping[str, Any]


def _name(part: dict[str, Any], name: str | None) -> None:
    """Take a function's name from a delta: a server that repeats it (whole, or growing) in
    every chunk does not double it; a name sent in pieces is joined."""
    if name:
        old = part["name"]
        part["name"] = name if name.startswith(old) else old + name


def _update(target: dict[str, Any], values: Mapping[str, Any]) -> list[Update]:
    """Fields kept as their latest value: no update to report."""
    target.update(values)
    return []


def _other(key: str, value: Any) -> Step:
    """A message field this version does not know (``audio``...): its latest value."""
    return lambda state: _update(state.message, {key: value})


class ChatCompletionAccumulator(Accumulator):
    """Accumulate one Chat Completions stream into ``.completion``.

    ``tools`` holds choice 0's tool calls by index, ``tool_calls(choice)`` a choice's calls in
    order; with ``output_schema=``, ``structured_output(choice)`` checks each choice's answer.
    """

    protocol = "chat"
    _PER_CHOICE = True  # a structured output per choice
    _OPENERS = frozenset({"chunk", "error"})
    # chat.completions.stream() adds these after the chunk they come from (wrapped in "chunk").
    _SDK_HELPERS = frozenset(
        f"{part}.{end}"
        for part in ("content", "refusal", "logprobs.content", "logprobs.refusal")
        for end in ("delta", "done")
    ) | {"tool_calls.function.arguments.delta", "tool_calls.function.arguments.done"}
    _SDK_WRAPPERS: ClassVar[Mapping[str, str]] = {"chunk": "chunk"}

    def _begin(self) -> None:
        #: The completion so far, shaped as a non-streamed ``chat.completion``.
        self.completion: dict[str, Any] = {
            "id": None,
            "object": "chat.completion",
            "created": None,
            "model": None,
            "choices": [],
            "usage": None,
        }
        self._choices: dict[int, _Choice] = {}
        self._order: list[int] = []  # the choice indices, sorted
        self._seen = False

    @classmethod
    def looks_like(cls, data: Mapping[str, Any]) -> bool:
        kind = data.get("object")
        return "type" not in data and (
            isinstance(data.get("choices"), list)
            or (isinstance(kind, str) and kind.startswith("chat.completion"))
        )

    @property
    def result(self) -> dict[str, Any]:
        """The completion so far (``.completion``)."""
        return self.completion

    @property
    def done(self) -> bool:
        """Whether ``[DONE]`` has arrived, or every choice has its ``finish_reason`` (the SDKs
        keep ``[DONE]`` to themselves)."""
        choices = self._choices.values()
        return self._done or (bool(choices) and all(state.finished for state in choices))

    @property
    def tools(self) -> dict[int, ToolInput]:
        """The tool calls of the first choice (index 0), by tool call index."""
        state = self._choices.get(0)
        return {} if state is None else dict(self._tools_of(state))

    def tool_calls(self, choice: int = 0) -> list[ToolInput]:
        """The tool calls of a choice, in index order."""
        state = self._choices.get(choice)
        return [] if state is None else [tool for _, tool in self._tools_of(state)]

    def function_call(self, choice: int = 0) -> ToolInput | None:
        """The arguments of a choice's legacy ``function_call`` (the ``functions`` API)."""
        state = self._choices.get(choice)
        return None if state is None else state.function

    @staticmethod
    def _tools_of(state: _Choice) -> Iterator[tuple[int, ToolInput]]:
        tools = state.tools
        for index in state.order:
            if index in tools:
                yield index, tools[index]

    def _started(self) -> bool:
        return self._seen

    def _kind_of(self, data: Mapping[str, Any]) -> str:
        return "chunk" if data.get("error") is None else "error"

    def _tool_blocks(self) -> Iterator[tuple[ToolInput, dict[str, Any] | None]]:
        for choice in self._order:
            state = self._choices[choice]
            for index, tool in self._tools_of(state):
                yield tool, state.calls[index]
            if state.function is not None:
                yield state.function, state.message

    # -- the stream's end, errors -----------------------------------------------------------

    def _done_marker(self) -> list[Update]:
        if self._done:
            raise StreamError("a second [DONE]")
        updates: list[Update] = []
        for choice in self._order:  # the stream is over: what there is, is all
            updates += self._end_calls(self._choices[choice])
        self._done = True
        updates.append(Update("done"))
        return updates

    def _error_payload(self, chunk: Mapping[str, Any]) -> list[Update]:
        raise self._error(chunk)

    def _end_calls(self, state: _Choice) -> list[Update]:
        """The choice is over: its calls' inputs are parsed strictly, one update each."""
        ends: list[tuple[str, int | None, dict[str, Any], ToolInput]] = [
            ("tool_call_done", index, state.calls[index], tool)
            for index, tool in self._tools_of(state)
        ]
        if state.function is not None:
            ends.append(("function_call_done", None, state.message, state.function))
        updates = []
        for event, index, block, tool in ends:
            changed = self._end(tool)
            if changed is not None:
                updates.append(Update(event, index, block, tool=tool, changed=changed))
        return updates

    # -- a chunk: every field checked, then applied -----------------------------------------

    def _chunk(self, chunk: Mapping[str, Any]) -> list[Update]:
        choices = chunk.get("choices")
        choices = [] if choices is None else self._list(choices, "choices")
        usage = chunk.get("usage")
        if usage is not None:
            self._mapping(usage, "the usage")
        finishing: set[int] = set()
        plans = [self._choice(choice, finishing) for choice in choices]
        # Nothing below can fail: the chunk is applied whole.
        self._seen = True
        completion = self.completion
        for key in _COMPLETION_FIELDS:
            value = chunk.get(key)
            if value is not None:
                completion[key] = value
        if usage is not None:
            completion["usage"] = usage
        updates: list[Update] = []
        for index, steps in plans:
            state = self._state(index)
            for step in steps:
                updates += step(state)
        if usage is not None:
            updates.append(Update("usage"))
        return updates

    def _state(self, index: int) -> _Choice:
        state = self._choices.get(index)
        if state is None:
            state = self._choices[index] = _Choice(index)
            position = bisect.bisect(self._order, index)
            self._order.insert(position, index)
            self.completion["choices"].insert(position, state.choice)
        return state

    def _choice(self, choice: Any, finishing: set[int]) -> tuple[int, list[Step]]:
        """Check one choice of a chunk; the steps that apply it."""
        choice = self._mapping(choice, "a choice")
        index = choice.get("index")
        index = 0 if index is None else self._key(index, "the choice index")
        state = self._choices.get(index)
        finished = index in finishing or (state is not None and state.finished)
        delta = choice.get("delta")
        delta = {} if delta is None else self._mapping(delta, "the delta")
        steps = []
        for key, value in delta.items():
            field = self._FIELDS.get(key)
            if value is not None:
                steps.append(
                    field(self, index, key, value, finished) if field else _other(key, value)
                )
        logprobs = choice.get("logprobs")
        if logprobs is not None:
            steps.append(self._logprobs(self._mapping(logprobs, "logprobs")))
        extra = {k: v for k, v in choice.items() if k not in _CHOICE_FIELDS and v is not None}
        if extra:
            steps.append(lambda state: _update(state.choice, extra))
        reason = self._opt_str(choice.get("finish_reason"), "finish_reason")
        if reason is not None:
            finishing.add(index)
            steps.append(lambda state: self._finish(state, index, reason))
        return index, steps

    def _after_finish(self, index: int, what: str) -> StreamError:
        return StreamError(f"{what} after finish_reason in choice {index}")

    def _text(self, index: int, key: str, value: Any, finished: bool) -> Step:
        text = self._str(value, key)
        if text and finished:
            raise self._after_finish(index, key)

        def step(state: _Choice) -> list[Update]:
            message = state.message
            if not text:
                if message.get(key) is None:
                    message[key] = ""
                return []
            self._append(message, key, text)
            return [Update(key, index, message, key, text, thinking=_TEXT_FIELDS[key])]

        return step

    def _role(self, index: int, key: str, value: Any, finished: bool) -> Step:
        role = self._str(value, "the role")

        def step(state: _Choice) -> list[Update]:
            if state.message.get("role") is None:  # set once
                state.message["role"] = role
            return []

        return step

    def _logprobs(self, logprobs: Mapping[str, Any]) -> Step:
        def step(state: _Choice) -> list[Update]:
            kept = state.choice["logprobs"]
            if kept is None:
                state.choice["logprobs"] = kept = {}
            for key, value in logprobs.items():
                if isinstance(value, list):  # token lists grow (in place: each is ours)
                    old = kept.get(key)
                    if isinstance(old, list):
                        old.extend(value)
                    else:
                        kept[key] = list(value)
                elif value is not None or key not in kept:
                    kept[key] = value
            return []

        return step

    def _finish(self, state: _Choice, index: int, reason: str) -> list[Update]:
        state.choice["finish_reason"] = reason
        updates = self._end_calls(state)
        state.finished = True
        updates.append(Update("finish", index, state.message))
        return updates

    # -- tool calls and legacy function calls -----------------------------------------------

    def _tool_calls(self, index: int, key: str, value: Any, finished: bool) -> Step:
        deltas = [self._call_delta(call) for call in self._list(value, "tool_calls")]
        if deltas and finished:
            raise self._after_finish(index, "a tool call")
        return lambda state: [self._tool_call(state, delta) for delta in deltas]

    def _call_delta(self, call: Any) -> _CallDelta:
        call = self._mapping(call, "a tool call")
        index = call.get("index")
        bodies = []
        for part, text in (("function", "arguments"), ("custom", "input")):
            body = call.get(part)
            body = {} if body is None else self._mapping(body, part)
            name = self._opt_str(body.get("name"), f"the {part} name")
            bodies.append((name, self._opt_str(body.get(text), f"the {part} {text}") or ""))
        kind = self._opt_str(call.get("type"), "the tool call type")
        (function, arguments), (custom, text) = bodies
        return _CallDelta(
            None if index is None else self._key(index, "the tool call index"),
            self._opt_str(call.get("id"), "the tool call id"),
            kind,
            custom if kind == "custom" else function,
            arguments,
            text,
            call,
        )

    def _call_index(self, state: _Choice, delta: _CallDelta) -> int:
        if delta.index is not None:
            return delta.index
        if delta.id is not None:
            if delta.id in state.ids:
                return state.ids[delta.id]
            return state.order[-1] + 1 if state.order else 0  # a new call
        return state.order[-1] if state.order else 0  # more of the last call

    def _tool_call(self, state: _Choice, delta: _CallDelta) -> Update:
        index = self._call_index(state, delta)
        entry = state.calls.get(index)
        if entry is None:
            entry = self._new_call(state, index, delta.type or "function")
        if entry["id"] is None and delta.id:
            entry["id"] = delta.id
            state.ids[delta.id] = index
        kind = state.kinds[index]
        if kind == "function":
            tool = state.tools[index]
            tool.id = entry["id"]
            return self._function("tool_call", index, entry, tool, delta.name, delta.arguments)
        if kind == "custom":
            part = entry["custom"]
            _name(part, delta.name)
            if delta.input:
                self._append(part, "input", delta.input)
            return Update("tool_call", index, entry, "input", custom_input=delta.input)
        entry.update((k, v) for k, v in delta.call.items() if k not in ("index", "id", "type"))
        return Update("tool_call", index, entry)  # a type this version does not know: as it came

    def _new_call(self, state: _Choice, index: int, kind: str) -> dict[str, Any]:
        entry: dict[str, Any] = {"id": None, "type": kind}
        if kind == "custom":
            entry["custom"] = {"name": "", "input": ""}
        elif kind == "function":
            entry["function"] = {"name": "", "arguments": ""}
        state.calls[index] = entry
        state.kinds[index] = kind
        position = bisect.bisect(state.order, index)
        state.order.insert(position, index)
        state.message.setdefault("tool_calls", []).insert(position, entry)
        if kind == "function":
            state.tools[index] = self._tool(index, "")
        return entry

    def _function(
        self, event: str, index: int | None, block: dict[str, Any], tool: ToolInput, *delta: Any
    ) -> Update:
        """A function's name and a piece of its arguments (``delta``) into the ``function`` of
        a tool call, or a legacy ``function_call`` (in ``block``), and its tool input."""
        name, text = delta
        part = block["function" if event == "tool_call" else "function_call"]
        _name(part, name)
        tool.name = part["name"]
        changed = bool(text) and self._grow(tool, text)
        if text:
            self._append(part, "arguments", text)
        return Update(event, index, block, "arguments", tool=tool, fragment=text, changed=changed)

    def _function_call(self, index: int, key: str, value: Any, finished: bool) -> Step:
        """A legacy ``function_call`` delta: like a tool call's ``function``, one per choice."""
        body = self._mapping(value, "function_call")
        name = self._opt_str(body.get("name"), "the function name")
        text = self._opt_str(body.get("arguments"), "the function arguments") or ""
        if (name or text) and finished:
            raise self._after_finish(index, "a function call")

        def step(state: _Choice) -> list[Update]:
            message = state.message
            if message.get("function_call") is None:
                message["function_call"] = {"name": "", "arguments": ""}
            tool = state.function
            if tool is None:
                tool = state.function = self._tool(0, "")
            return [self._function("function_call", None, message, tool, name, text)]

        return step

    _HANDLERS: ClassVar[Mapping[str, Callable[..., list[Update]]]] = {
        "chunk": _chunk,
        "error": _error_payload,
    }
    _FIELDS: ClassVar[Mapping[str, Callable[..., Step]]] = {
        **dict.fromkeys(_TEXT_FIELDS, _text),
        "role": _role,
        "tool_calls": _tool_calls,
        "function_call": _function_call,
    }
