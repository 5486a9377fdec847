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

The compatible profile (``compatible=``; the pieces that need no state are in ``_compat``)
reads what OpenAI-compatible servers send. What only such a server sends is read in every
mode but ``compatible=False``, and turns the profile on (``compatible=None``, the default):
an SSE comment sent as data (``data: : keepalive``, skipped), ``arguments`` as a JSON object
(written as JSON text), ``reasoning_details`` (merged by ``index``), a vendor's chunk field
(``x_groq``, ``system_fingerprint: fp_ollama``). What OpenAI's own stream could mean otherwise
is read so only with the profile on: a new ``id`` at the index of a call whose arguments are
complete starts a new call (at the next free index; before they are complete it is a server
that changes ids, and continues the call); at a call's end, several values glued together
become one call each, and a text sent again whole in the last piece (``X``, then ``X``) is one
call ``X``. Every such change is a :class:`Quirk` in ``quirks`` (and in the call's
``ChatToolInput.quirks``); the call's ``raw`` stays the text as it came. In every mode, a delta
that brings nothing (no name, no arguments but whitespace) starts no call, whatever its ``id``.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from types import NoneType
from typing import Any, ClassVar

from .. import JSONDecodeError, loads
from .._errors import describe
from .._parse.grammar import WS
from .._streams.events import carry_out
from ..sse import ServerSentEvent
from ..streams import Accumulator, StreamError, ToolInput, Update
from . import _compat
from ._compat import ChatToolInput, Quirk

#: Message fields whose deltas are pieces of text, and whether they are reasoning.
_TEXT_FIELDS = {"content": False, "refusal": False, "reasoning_content": True, "reasoning": True}
#: Choice fields with rules of their own (a ``message`` is never taken: the message is built
#: from the deltas); other fields of a choice (a vendor's content filter results, say) are kept
#: as their latest value.
_CHOICE_FIELDS = frozenset({"index", "delta", "logprobs", "finish_reason", "message"})
#: Completion fields taken from the chunks as they come (``usage`` only when not null).
_COMPLETION_FIELDS = ("id", "created", "model", "system_fingerprint", "service_tier")

#: The most values glued in one call's arguments that are split into calls (more are left
#: as they are, ``"invalid"``: a server glues a few parallel calls, not thousands).
_MOST_GLUED = 16

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
        self.tools: dict[int, ChatToolInput] = {}
        self.order: list[int] = []  # the tool call indices, sorted
        self.ids: dict[str, int] = {}
        #: The compatible profile's bookkeeping: the call each index the server gave last
        #: named, the calls placed at an index the server did not give, the call that had
        #: the last delta, the calls that got deltas under another id than theirs (never split:
        #: their text may be two calls' mixed), and the place of each reasoning_details entry
        #: by its index.
        self.server: dict[int, int] = {}
        self.moved: set[int] = set()
        self.last: int | None = None
        self.mixed: set[int] = set()
        self.details: dict[int, int] = {}
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
    whole: bool  # the arguments came as a JSON object (written here as text)
    input: str  # a piece of the custom tool's input
    call: Mapping[str, Any]
    #: Whether it brings nothing to a call (a function or custom call's delta with no name,
    #: and no arguments or input but JSON whitespace): under a new id it starts no call.
    #: Worked out only for a delta with an id (False without one, where it is not read).
    empty: bool


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

    ``compatible``: the profile for OpenAI-compatible servers (vLLM, Ollama, Groq, OpenRouter,
    DeepSeek, LM Studio, llama.cpp, gateways). ``None`` (the default): off until the stream
    shows it comes from such a server, then on; ``True``: on from the start; ``False``: the
    OpenAI wire format only, anything else a :class:`StreamError`. ``compatible`` (the
    attribute) says whether it is on, ``compatible_reason`` why, ``quirks`` what it did.
    It does not imply ``repair=``: the profile reads the server's envelope, ``repair`` the
    model's JSON.
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

    def __init__(
        self,
        *,
        compatible: bool | None = None,
        tools: Any = None,
        output_schema: Any = None,
        repair: Any = False,
    ) -> None:
        if compatible is not None and type(compatible) is not bool:
            raise TypeError(
                "compatible= takes True, False, or None (chosen from the stream), "
                f"not {describe(compatible)}"
            )
        self._mode = compatible
        super().__init__(tools=tools, output_schema=output_schema, repair=repair)

    def _begin(self) -> None:
        #: What the compatible profile did, in the order it did it (see ``_compat.QUIRKS``).
        self.quirks: list[Quirk] = []
        self._on = self._mode is True
        #: Why the compatible profile is on (``None``: it is not).
        self.compatible_reason: str | None = "compatible=True" if self._on else None
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
        self._echoed = False  # the choice being checked has reasoning text beside its details

    @property
    def compatible(self) -> bool:
        """Whether the compatible profile is on: ``compatible=True``, or (the default) since
        the stream showed it comes from an OpenAI-compatible server."""
        return self._on

    def _turn_on(self, reason: str) -> None:
        if not self._on and self._mode is None:
            self._on = True
            self.compatible_reason = reason

    def _note(self, quirk: Quirk, tool: ToolInput | None = None) -> None:
        self.quirks.append(quirk)
        if isinstance(tool, ChatToolInput):
            tool.quirks.append(quirk)

    def _tool(self, index: int, name: str, id: str | None = None) -> ChatToolInput:
        return ChatToolInput(index, name, id, schemas=self.schemas, repair=self._repair)

    def _data_of(self, event: Any) -> Mapping[str, Any] | str | None:
        if (
            isinstance(event, ServerSentEvent)
            and self._mode is not False
            and _compat.is_comment(event.data)
        ):  # a gateway's keep-alive, as data: nothing to apply (after [DONE] too)
            if self._closed:
                raise StreamError("an event after close()")
            self._turn_on("an SSE comment sent as data (data: : keepalive)")
            self._note(Quirk("comment_data"))
            return None
        return super()._data_of(event)

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
    def _tools_of(state: _Choice) -> Iterator[tuple[int, ChatToolInput]]:
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
            end: int | None = None
            more: list[Update] = []
            if self._on and index is not None and tool.glued and not tool.ended:
                end, more = self._unglue(state, index)
            if end is not None and isinstance(tool, ChatToolInput):
                changed: bool | None = tool._end_at(end)
            else:
                changed = self._end(tool)
            if changed is not None:
                updates.append(Update(event, index, block, tool=tool, changed=changed))
            updates += more
        return updates

    def _unglue(self, state: _Choice, index: int) -> tuple[int | None, list[Update]]:
        """A call whose arguments are several JSON values glued together, at its end: where
        the first ends in its raw text (the call's value is the first; its raw text stays as
        it came) and the updates of a new call for each of the others (or ``None`` and none:
        the values are not all whole, there are too many of them to be calls, or deltas under
        several ids made the text: the call stays ``"invalid"``). A text sent again whole in
        the last piece (``X``, then ``X`` at once) is the call once; two equal values glued
        any other way are two calls."""
        tool = state.tools[index]
        raw = tool.raw
        spans = _compat.value_spans(raw)
        if index in state.mixed or not 2 <= len(spans) <= _MOST_GLUED:
            return None, []
        texts = [raw[a:b] for a, b in spans]
        try:
            for text in texts:
                loads(text, repair=self._repair)
        except JSONDecodeError:
            return None, []
        choice = state.choice["index"]
        entry = state.calls[index]
        entry["function"]["arguments"] = texts[0]
        if texts == [texts[0]] * 2 and tool.last_piece.strip(WS) == texts[1]:
            detail = f"{len(texts[0])} chars, then the same again in one piece"
            self._note(Quirk("doubled_arguments", choice, index, detail), tool)
            return spans[0][1], []
        self._note(Quirk("glued_calls", choice, index, f"{len(texts)} values"), tool)
        updates = []
        for k, text in enumerate(texts[1:], 1):
            new = state.order[-1] + 1
            call_id = None if entry["id"] is None else f"{entry['id']}_{k}"
            block = self._new_call(state, new, "function")
            block["id"] = call_id
            if call_id is not None:
                state.ids[call_id] = new
            split = state.tools[new]
            split.id = call_id
            self._note(Quirk("glued_calls", choice, new, f"value {k + 1} of call {index}"), split)
            updates.append(
                self._function("tool_call", new, block, split, entry["function"]["name"], text)
            )
            changed = self._end(split)
            updates.append(Update("tool_call_done", new, block, tool=split, changed=bool(changed)))
        return spans[0][1], updates

    # -- a chunk: every field checked, then applied -----------------------------------------

    def _chunk(self, chunk: Mapping[str, Any]) -> list[Update]:
        choices = chunk.get("choices")
        choices = [] if choices is None else self._list(choices, "choices")
        usage = chunk.get("usage")
        if usage is not None:
            self._mapping(usage, "the usage")
        finishing: set[int] = set()
        plans = [self._choice(choice, finishing) for choice in choices]
        reason = None if self._mode is not None else _compat.marker(chunk)
        # Nothing below can fail: the chunk is applied whole.
        self._seen = True
        if reason is not None:
            self._turn_on(reason)
        completion = self.completion
        for key in _COMPLETION_FIELDS:
            value = chunk.get(key)
            if value is not None:
                completion[key] = value
        if usage is not None:
            completion["usage"] = usage
        updates = carry_out(plans, self._state)
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
        # OpenRouter sends its reasoning twice, as text and as details: shown once.
        self._echoed = any(
            isinstance(delta.get(key), str) for key in ("reasoning", "reasoning_content")
        )
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
        whole = False
        for part, text in (("function", "arguments"), ("custom", "input")):
            body = call.get(part)
            body = {} if body is None else self._mapping(body, part)
            name = self._opt_str(body.get("name"), f"the {part} name")
            piece = body.get(text)
            if (
                part == "function"
                and self._mode is not False
                and not isinstance(piece, (str, NoneType))
            ):
                try:  # Ollama: the arguments whole, as an object
                    piece = _compat.dump_arguments(piece)
                except StreamError as exc:
                    raise self._malformed(str(exc)) from None
                whole = True
            bodies.append((name, self._opt_str(piece, f"the {part} {text}") or ""))
        kind = self._opt_str(call.get("type"), "the tool call type")
        (function, arguments), (custom, text) = bodies
        call_id = self._opt_str(call.get("id"), "the tool call id")
        empty = (
            call_id is not None
            and kind in (None, "function", "custom")
            and not (function or custom or arguments.strip(WS) or text.strip(WS))
        )
        return _CallDelta(
            None if index is None else self._key(index, "the tool call index"),
            call_id,
            kind,
            custom if kind == "custom" else function,
            arguments,
            whole,
            text,
            call,
            empty,
        )

    def _call_index(self, state: _Choice, delta: _CallDelta) -> int:
        if delta.index is not None:
            return delta.index
        if delta.id is not None:
            if delta.id in state.ids:
                return state.ids[delta.id]
            if not delta.empty:
                return state.order[-1] + 1 if state.order else 0  # a new call
        return state.order[-1] if state.order else 0  # more of the last call

    def _compatible_index(self, state: _Choice, delta: _CallDelta) -> tuple[int, bool]:
        """The call a delta is for, by the compatible profile's rules (see the module's
        docstring), and whether it is a new call at the index of a finished one."""
        free = state.order[-1] + 1 if state.order else 0
        if delta.id is not None and delta.id in state.ids:
            return state.ids[delta.id], False
        new_id = delta.id is not None and not delta.empty  # (an empty delta starts no call)
        if delta.index is None:
            last = state.last
            if last is None or (new_id and self._finished(state, last)):
                return free, False
            return last, False  # no index: more of the last call, even under a new id
        index = state.server.get(delta.index)
        if index is None:  # an index not seen: the call goes there, unless a moved call is
            if delta.index in state.moved:
                return free, False
            index = delta.index
        entry = state.calls.get(index)
        known = None if entry is None else entry["id"]
        if new_id and known not in (None, delta.id) and self._finished(state, index):
            return free, True
        return index, False  # (a server that changes the id in every chunk: the same call)

    @staticmethod
    def _finished(state: _Choice, index: int) -> bool:
        """Whether a call's arguments are a whole JSON value (its text could end there)."""
        tool = state.tools.get(index)
        return (
            tool is not None
            and tool.error is None
            and not tool.glued
            and tool.is_complete(())  # (nothing shown yet is not complete)
        )

    def _tool_call(self, state: _Choice, delta: _CallDelta) -> Update:
        if delta.whole:
            self._turn_on("arguments sent as a JSON object")
        reused = False
        if self._on:
            index, reused = self._compatible_index(state, delta)
        else:
            index = self._call_index(state, delta)
        entry = state.calls.get(index)
        if entry is None:
            entry = self._new_call(state, index, delta.type or "function")
        choice = state.choice["index"]
        if delta.index is not None:
            state.server[delta.index] = index
            if index != delta.index:
                state.moved.add(index)
        state.last = index
        if delta.id is not None and entry["id"] not in (None, delta.id) and not delta.empty:
            state.mixed.add(index)
        tool_input = state.tools.get(index)
        if reused:
            detail = f"id {delta.id!r} at index {delta.index}"
            self._note(Quirk("reused_index", choice, index, detail), tool_input)
        if delta.whole:
            self._note(Quirk("arguments_object", choice, index), tool_input)
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

    def _reasoning_details(self, index: int, key: str, value: Any, finished: bool) -> Step:
        """OpenRouter's ``reasoning_details``: pieces merged by their ``index`` into the
        message's list, their text reasoning (unless the delta's ``reasoning`` said it)."""
        if self._mode is False:
            return _other(key, value)
        pieces = _compat.check_details(value, self._kind)
        if pieces and finished:
            raise self._after_finish(index, key)
        echoed = self._echoed

        def step(state: _Choice) -> list[Update]:
            self._turn_on("reasoning_details (OpenRouter)")
            message = state.message
            kept = message.get(key)
            if not isinstance(kept, list):
                kept = message[key] = []
            text = _compat.merge_details(kept, state.details, pieces)
            if not text or echoed:
                return []
            return [Update(key, index, message, key, text, thinking=True)]

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
        "reasoning_details": _reasoning_details,
    }
