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

The compatible profile (``compatible=``) reads what OpenAI-compatible servers send: its state,
its rules and what turns it on are :class:`CompatibleProfile`'s (``_compatible_profile``); the
pieces that need no state are in ``_compatible``, what is kept per choice in ``_choice``.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterator, Mapping
from typing import Any, ClassVar

from .._errors import mypyc_attr
from .._jsontext import describe
from .._streams.events import carry_out
from ..streams import Accumulator, StreamError, ToolInput, Update
from ._choice import (
    CallDelta,
    Choice,
    Step,
    after_finish,
    latest,
    latest_fields,
    logprobs_step,
    other,
    read_call_delta,
    role_step,
    take_name,
)
from ._compatible import Quirk, check_details, is_comment
from ._compatible_profile import CompatibleProfile
from ._hot import HotChunks
from ._lean import TEXT_FIELDS, Piece, lean_piece
from ._tool_input import ChatToolInput

#: Choice fields with rules of their own (a ``message`` is never taken: it is built from the
#: deltas); a choice's other fields (a vendor's content filter results) keep their latest value.
_CHOICE_FIELDS = frozenset({"index", "delta", "logprobs", "finish_reason", "message"})


@mypyc_attr(allow_interpreted_subclasses=True)  # (users')
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
        compatible: Any = None,  # (Any: checked below, in both builds with our message)
        tools: Any = None,
        output_schema: Any = None,
        repair: Any = False,
    ) -> None:
        if compatible is not None and type(compatible) is not bool:
            raise TypeError(
                "compatible= takes True, False, or None (chosen from the stream), "
                f"not {describe(compatible)}"
            )
        self._profile = CompatibleProfile(compatible)
        super().__init__(tools=tools, output_schema=output_schema, repair=repair)

    def _begin(self) -> None:
        #: What the compatible profile did, in the order it did it (see ``QUIRKS``).
        self.quirks: list[Quirk] = self._profile.quirks
        #: The completion so far, shaped as a non-streamed ``chat.completion``.
        self.completion: dict[str, Any] = {
            "id": None,
            "object": "chat.completion",
            "created": None,
            "model": None,
            "choices": [],
            "usage": None,
        }
        self._choices: dict[int, Choice] = {}
        self._order: list[int] = []  # the choice indices, sorted
        self._seen = False
        self._echoed = False  # the choice being checked has reasoning text beside its details
        self._hot_chunks = HotChunks()
        self._last: Piece | None = None  # the piece of the last hot chunk, for _repeat

    @property
    def compatible(self) -> bool:
        """Whether the compatible profile is on: ``compatible=True``, or (the default) since
        the stream showed it comes from an OpenAI-compatible server."""
        return self._profile.on

    @property
    def compatible_reason(self) -> str | None:
        """Why the compatible profile is on (``None``: it is not)."""
        return self._profile.reason

    def _tool(self, index: int, name: str, id: str | None = None) -> ChatToolInput:
        return ChatToolInput(index, name, id, schemas=self.schemas, repair=self._repair)

    def _sse_data(self, event: str, data: str) -> Mapping[str, Any] | str | None:
        if self._profile.mode is not False and is_comment(data):  # a keep-alive as data
            if self._closed:
                raise StreamError("an event after close()")
            self._profile.turn_on("an SSE comment sent as data (data: : keepalive)")
            self._profile.note(Quirk("comment_data"))
            return None
        return super()._sse_data(event, data)

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
        """Whether ``[DONE]`` came, or every choice has its ``finish_reason`` (SDKs keep it)."""
        choices = self._choices.values()
        return self._done or (bool(choices) and all(state.finished for state in choices))

    @property
    def tools(self) -> dict[int, ToolInput]:
        """The tool calls of the first choice (index 0), by tool call index."""
        state = self._choices.get(0)
        return {} if state is None else dict(state.tool_items())

    def tool_calls(self, choice: int = 0) -> list[ToolInput]:
        """The tool calls of a choice, in index order."""
        state = self._choices.get(choice)
        return [] if state is None else [tool for _, tool in state.tool_items()]

    def function_call(self, choice: int = 0) -> ToolInput | None:
        """The arguments of a choice's legacy ``function_call`` (the ``functions`` API)."""
        state = self._choices.get(choice)
        return None if state is None else state.function

    def _started(self) -> bool:
        return self._seen

    def _kind_of(self, data: Mapping[str, Any]) -> str:
        return "chunk" if data.get("error") is None else "error"

    def _tool_blocks(self) -> Iterator[tuple[ToolInput, dict[str, Any] | None]]:
        for choice in self._order:
            yield from self._choices[choice].tool_blocks()

    # -- the stream's end, errors -----------------------------------------------------------

    def _done_marker(self) -> list[Update]:
        if self._done:
            raise StreamError("a second [DONE]")
        # The stream is over: what there is, is all.
        updates = [u for c in self._order for u in self._end_calls(self._choices[c])]
        self._done = True
        updates.append(Update("done"))
        return updates

    def _error_payload(self, chunk: Mapping[str, Any]) -> list[Update]:
        raise self._error(chunk)

    def _end_calls(self, state: Choice) -> list[Update]:
        """The choice is over: its calls' inputs are parsed strictly, one update each."""
        ends: list[tuple[str, int | None, dict[str, Any], ToolInput]] = [
            ("tool_call_done", index, state.calls[index], tool)
            for index, tool in state.tool_items()
        ]
        if state.function is not None:
            ends.append(("function_call_done", None, state.message, state.function))
        updates = []
        for event, index, block, tool in ends:
            end: int | None = None
            more: list[Update] = []
            if self._profile.on and index is not None and tool.glued and not tool.ended:
                end, more = self._unglue(state, index)
            if end is not None and isinstance(tool, ChatToolInput):
                changed: bool | None = tool._end_at(end)
            else:
                changed = self._end(tool)
            if changed is not None:
                updates.append(Update(event, index, block, tool=tool, changed=changed))
            updates += more
        return updates

    def _unglue(self, state: Choice, index: int) -> tuple[int | None, list[Update]]:
        """A call whose arguments are several JSON values glued together, at its end (see
        :meth:`CompatibleProfile.unglue`): where the call's own value ends in its raw text
        (``None``: it stays as it is), and the updates of a new call for each of the others."""
        end, texts = self._profile.unglue(state, index, self._repair)
        choice = state.choice["index"]
        entry = state.calls[index]
        updates = []
        for k, text in enumerate(texts, 2):
            new = state.order[-1] + 1
            call_id = None if entry["id"] is None else f"{entry['id']}_{k - 1}"
            block = self._new_call(state, new, "function")
            block["id"] = call_id
            if call_id is not None:
                state.ids[call_id] = new
            split = state.tools[new]
            split.id = call_id
            detail = f"value {k} of call {index}"
            self._profile.note(Quirk("glued_calls", choice, new, detail), split)
            updates.append(
                self._function("tool_call", new, block, split, entry["function"]["name"], text)
            )
            changed = self._end(split)
            updates.append(Update("tool_call_done", new, block, tool=split, changed=bool(changed)))
        return end, updates

    # -- a chunk: every field checked, then applied -----------------------------------------

    def _chunk(self, chunk: Mapping[str, Any]) -> list[Update]:
        lean = lean_piece(chunk, self._choices)
        if lean is not None:  # one piece of text or arguments (most chunks): at once
            self._took(chunk)
            return self._piece(*lean)
        choices = chunk.get("choices")
        choices = [] if choices is None else self._fields.array(choices, "choices")
        usage = chunk.get("usage")
        if usage is not None:
            self._fields.mapping(usage, "the usage")
        finishing: set[int] = set()
        plans = [self._choice(choice, finishing) for choice in choices]
        # Nothing below can fail: the chunk is applied whole.
        self._took(chunk)
        if usage is not None:
            self.completion["usage"] = usage
        updates = carry_out(plans, self._state)
        if usage is not None:
            updates.append(Update("usage"))
        return updates

    def _hot(self, text: str) -> list[Update] | None:
        # A lean chunk in its hot form (see _hot), for a choice begun: what _event() and
        # _chunk() do to it.
        hot = self._hot_chunks
        piece = None if self._closed or self._done else hot.read(text, self._choices)
        if piece is None:
            return None
        self._kind = self._fields.kind = "chunk"
        self._took(hot.fields)  # (what a chunk with the same head, read again, has done)
        self._last = piece
        updates = self._repeat(piece[2])
        self._span = hot.span
        return updates

    def _repeat(self, piece: str) -> list[Update]:
        state, key, _, call, name = self._last  # type: ignore[misc]
        return self._applied(self._piece(state, key, piece, call, name))

    def _piece(
        self, state: Choice, key: str, text: str, call: int, name: str | None
    ) -> list[Update]:
        """Apply a lean chunk's piece (see ``_lean``: ``Piece``'s fields), its chunk taken
        (:meth:`_took`)."""
        if call < 0:
            return [self._append_text(state, key, text)]
        state.last = call
        return [self._call_piece(state, call, name, text)]

    def _took(self, chunk: Mapping[str, Any]) -> None:
        """What every chunk applied does (nothing here can fail): the stream has begun, the
        profile is on if the chunk shows a compatible server, the completion's fields are its."""
        self._seen = True
        self._profile.see(chunk)
        latest_fields(self.completion, chunk)

    def _state(self, index: int) -> Choice:
        state = self._choices.get(index)
        if state is None:
            state = self._choices[index] = Choice(index)
            position = bisect.bisect(self._order, index)
            self._order.insert(position, index)
            self.completion["choices"].insert(position, state.choice)
        return state

    def _choice(self, choice: Any, finishing: set[int]) -> tuple[int, list[Step]]:
        """Check one choice of a chunk; the steps that apply it."""
        choice = self._fields.mapping(choice, "a choice")
        index = choice.get("index")
        index = 0 if index is None else self._fields.key(index, "the choice index")
        state = self._choices.get(index)
        finished = index in finishing or (state is not None and state.finished)
        delta = choice.get("delta")
        delta = {} if delta is None else self._fields.mapping(delta, "the delta")
        # OpenRouter sends its reasoning twice, as text and as details: shown once.
        self._echoed = isinstance(delta.get("reasoning"), str) or isinstance(
            delta.get("reasoning_content"), str
        )
        steps = []
        for key, value in delta.items():
            field = self._FIELDS.get(key)
            if value is not None:
                steps.append(
                    field(self, index, key, value, finished) if field else other(key, value)
                )
        logprobs = choice.get("logprobs")
        if logprobs is not None:
            steps.append(logprobs_step(self._fields.mapping(logprobs, "logprobs")))
        extra = {k: v for k, v in choice.items() if k not in _CHOICE_FIELDS and v is not None}
        if extra:
            steps.append(lambda state: latest(state.choice, extra))
        reason = self._fields.opt_string(choice.get("finish_reason"), "finish_reason")
        if reason is not None:
            finishing.add(index)
            steps.append(lambda state: self._finish(state, index, reason))
        return index, steps

    def _text(self, index: int, key: str, value: Any, finished: bool) -> Step:
        text = self._fields.string(value, key)
        if text and finished:
            raise after_finish(index, key)

        def step(state: Choice) -> list[Update]:
            if text:
                return [self._append_text(state, key, text)]
            if state.message.get(key) is None:
                state.message[key] = ""
            return []

        return step

    def _append_text(self, state: Choice, key: str, text: str) -> Update:
        message = state.message
        self._fields.append(message, key, text)
        index = state.choice["index"]
        return Update(key, index, message, key, text, thinking=TEXT_FIELDS[key])

    def _role(self, index: int, key: str, value: Any, finished: bool) -> Step:
        return role_step(self._fields.string(value, "the role"))

    def _finish(self, state: Choice, index: int, reason: str) -> list[Update]:
        state.choice["finish_reason"] = reason
        updates = self._end_calls(state)
        state.finished = True
        updates.append(Update("finish", index, state.message))
        return updates

    # -- tool calls and legacy function calls -----------------------------------------------

    def _tool_calls(self, index: int, key: str, value: Any, finished: bool) -> Step:
        objects = self._profile.mode is not False  # arguments may come as a JSON object
        calls = self._fields.array(value, "tool_calls")
        deltas = [read_call_delta(self._fields, call, objects) for call in calls]
        if deltas and finished:
            raise after_finish(index, "a tool call")
        return lambda state: [self._tool_call(state, delta) for delta in deltas]

    def _tool_call(self, state: Choice, delta: CallDelta) -> Update:
        profile = self._profile
        if delta.whole:
            profile.turn_on("arguments sent as a JSON object")
        reused = False
        if profile.on:
            index, reused = profile.call_index(state, delta)
        else:
            index = state.call_index(delta)
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
            profile.note(Quirk("reused_index", choice, index, detail), tool_input)
        if delta.whole:
            profile.note(Quirk("arguments_object", choice, index), tool_input)
        if entry["id"] is None and delta.id:
            entry["id"] = delta.id
            state.ids[delta.id] = index
        kind = state.kinds[index]
        if kind == "function":
            return self._call_piece(state, index, delta.name, delta.arguments)
        if kind == "custom":
            part = entry["custom"]
            take_name(part, delta.name)
            if delta.input:
                self._fields.append(part, "input", delta.input)
            return Update("tool_call", index, entry, "input", custom_input=delta.input)
        entry.update((k, v) for k, v in delta.call.items() if k not in ("index", "id", "type"))
        return Update("tool_call", index, entry)  # a type this version does not know: as it came

    def _call_piece(self, state: Choice, index: int, name: str | None, text: str) -> Update:
        """A function call's name and a piece of its arguments."""
        entry = state.calls[index]
        tool = state.tools[index]
        tool.id = entry["id"]
        return self._function("tool_call", index, entry, tool, name, text)

    def _new_call(self, state: Choice, index: int, kind: str) -> dict[str, Any]:
        return state.add_call(index, kind, self._tool(index, "") if kind == "function" else None)

    def _function(
        self, event: str, index: int | None, block: dict[str, Any], tool: ToolInput, *delta: Any
    ) -> Update:
        """A function's name and a piece of its arguments (``delta``) into the ``function`` of
        a tool call, or a legacy ``function_call`` (in ``block``), and its tool input."""
        name, text = delta
        part = block["function" if event == "tool_call" else "function_call"]
        if name:  # (no name: the commonest, as a piece of the arguments goes)
            take_name(part, name)
        tool.name = part["name"]
        changed = bool(text) and (self._grow(tool, text) if tool._ended else tool._feed(text))
        if text:
            self._fields.append(part, "arguments", text)
        return Update(event, index, block, "arguments", "", tool, False, text, changed)

    def _function_call(self, index: int, key: str, value: Any, finished: bool) -> Step:
        """A legacy ``function_call`` delta: like a tool call's ``function``, one per choice."""
        body = self._fields.mapping(value, "function_call")
        name = self._fields.opt_string(body.get("name"), "the function name")
        text = self._fields.opt_string(body.get("arguments"), "the function arguments") or ""
        if (name or text) and finished:
            raise after_finish(index, "a function call")

        def step(state: Choice) -> list[Update]:
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
        if self._profile.mode is False:
            return other(key, value)
        pieces = check_details(value, self._kind)
        if pieces and finished:
            raise after_finish(index, key)
        return self._profile.details_step(index, key, pieces, self._echoed)

    _FIELDS: ClassVar[Mapping[str, Callable[..., Step]]]


# The tables, set once the class exists (a compiled class body cannot name its methods).
ChatCompletionAccumulator._HANDLERS = {
    "chunk": ChatCompletionAccumulator._chunk,
    "error": ChatCompletionAccumulator._error_payload,
}
ChatCompletionAccumulator._FIELDS = {
    **dict.fromkeys(TEXT_FIELDS, ChatCompletionAccumulator._text),
    "role": ChatCompletionAccumulator._role,
    "tool_calls": ChatCompletionAccumulator._tool_calls,
    "function_call": ChatCompletionAccumulator._function_call,
    "reasoning_details": ChatCompletionAccumulator._reasoning_details,
}
