"""What the Chat Completions accumulator keeps per choice, and the checked pieces of a delta.

- :class:`Choice`: one choice being accumulated (its dict in the completion, its message, its
  tool calls by index, and the compatible profile's bookkeeping of them);
- :class:`CallDelta` and :func:`read_call_delta`: a tool call's delta, checked whole before it
  changes anything;
- :data:`Step` and the steps of the fields that need no handler of their own: a checked change
  to a choice, applied once the whole chunk has been checked.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterator, Mapping
from types import NoneType
from typing import Any

from .._errors import StreamError
from .._parse.grammar import WS
from .._streams.fields import EventFields
from .._streams.update import Update
from ..streams import ToolInput
from ._compatible import dump_arguments
from ._tool_input import ChatToolInput

#: A checked change to one choice, applied once the whole chunk has been checked.
Step = Callable[["Choice"], list[Update]]


class Choice:
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

    def add_call(self, index: int, kind: str, tool: ChatToolInput | None) -> dict[str, Any]:
        """A new tool call at ``index`` (in its place among the others): its dict, and its
        tool input (``tool``, for a function call)."""
        entry: dict[str, Any] = {"id": None, "type": kind}
        if kind == "custom":
            entry["custom"] = {"name": "", "input": ""}
        elif kind == "function":
            entry["function"] = {"name": "", "arguments": ""}
        self.calls[index] = entry
        self.kinds[index] = kind
        position = bisect.bisect(self.order, index)
        self.order.insert(position, index)
        self.message.setdefault("tool_calls", []).insert(position, entry)
        if tool is not None:
            self.tools[index] = tool
        return entry

    def tool_items(self) -> Iterator[tuple[int, ChatToolInput]]:
        """The function calls' inputs, in index order, with their indices."""
        tools = self.tools
        for index in self.order:
            if index in tools:
                yield index, tools[index]

    def tool_blocks(self) -> Iterator[tuple[ToolInput, dict[str, Any]]]:
        """Every tool input of the choice, with its call (a legacy function call's: with the
        message)."""
        for index, tool in self.tool_items():
            yield tool, self.calls[index]
        if self.function is not None:
            yield self.function, self.message

    def call_index(self, delta: CallDelta) -> int:
        """The call a delta is for, by OpenAI's own rules (the compatible profile has its
        own, ``CompatibleProfile.call_index``)."""
        if delta.index is not None:
            return delta.index
        if delta.id is not None:
            if delta.id in self.ids:
                return self.ids[delta.id]
            if not delta.empty:
                return self.order[-1] + 1 if self.order else 0  # a new call
        return self.order[-1] if self.order else 0  # more of the last call

    def finished_call(self, index: int) -> bool:
        """Whether a call's arguments are a whole JSON value (its text could end there)."""
        tool = self.tools.get(index)
        return (
            tool is not None
            and tool.error is None
            and not tool.glued
            and tool.is_complete(())  # (nothing shown yet is not complete)
        )


class CallDelta:
    """A tool call's delta, checked (a plain class: made for every chunk of a call, where a
    frozen dataclass's fields, each set through ``object.__setattr__``, cost more)."""

    __slots__ = ("arguments", "call", "empty", "id", "index", "input", "name", "type", "whole")

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

    def __init__(
        self,
        index: int | None,
        id: str | None,
        type: str | None,
        name: str | None,
        arguments: str,
        whole: bool,
        input: str,
        call: Mapping[str, Any],
        empty: bool,
    ) -> None:
        self.index = index
        self.id = id
        self.type = type
        self.name = name
        self.arguments = arguments
        self.whole = whole
        self.input = input
        self.call = call
        self.empty = empty


def read_call_delta(fields: EventFields, call: Any, objects: bool) -> CallDelta:
    """A tool call's delta, checked (``objects``: ``arguments`` may come as a JSON object,
    written as JSON text, as Ollama sends them)."""
    call = fields.mapping(call, "a tool call")
    index = call.get("index")
    bodies = []
    whole = False
    for part, text in (("function", "arguments"), ("custom", "input")):
        body = call.get(part)
        body = {} if body is None else fields.mapping(body, part)
        name = fields.opt_string(body.get("name"), f"the {part} name")
        piece = body.get(text)
        if part == "function" and objects and not isinstance(piece, (str, NoneType)):
            try:  # Ollama: the arguments whole, as an object
                piece = dump_arguments(piece)
            except StreamError as exc:
                raise fields.malformed(str(exc)) from None
            whole = True
        bodies.append((name, fields.opt_string(piece, f"the {part} {text}") or ""))
    kind = fields.opt_string(call.get("type"), "the tool call type")
    (function, arguments), (custom, text) = bodies
    call_id = fields.opt_string(call.get("id"), "the tool call id")
    empty = (
        call_id is not None
        and kind in (None, "function", "custom")
        and not (function or custom or arguments.strip(WS) or text.strip(WS))
    )
    return CallDelta(
        None if index is None else fields.key(index, "the tool call index"),
        call_id,
        kind,
        custom if kind == "custom" else function,
        arguments,
        whole,
        text,
        call,
        empty,
    )


def after_finish(index: int, what: str) -> StreamError:
    """The error of a delta (``what``) that brings something to a choice that finished."""
    return StreamError(f"{what} after finish_reason in choice {index}")


def take_name(part: dict[str, Any], name: str | None) -> None:
    """Take a function's name from a delta: a server that repeats it (whole, or growing) in
    every chunk does not double it; a name sent in pieces is joined."""
    if name:
        old = part["name"]
        part["name"] = name if name.startswith(old) else old + name


def latest(target: dict[str, Any], values: Mapping[str, Any]) -> list[Update]:
    """Fields kept as their latest value: no update to report."""
    target.update(values)
    return []


#: Completion fields taken from the chunks as they come (``usage`` only when not null).
COMPLETION_FIELDS = ("id", "created", "model", "system_fingerprint", "service_tier")


def latest_fields(completion: dict[str, Any], chunk: Mapping[str, Any]) -> None:
    """A chunk's completion fields (:data:`COMPLETION_FIELDS`) that are not null, kept as their
    latest value."""
    for key in COMPLETION_FIELDS:
        value = chunk.get(key)
        if value is not None:
            completion[key] = value


def other(key: str, value: Any) -> Step:
    """A message field this version does not know (``audio``...): its latest value."""
    return lambda state: latest(state.message, {key: value})


def role_step(role: str) -> Step:
    """A delta's ``role``: set once (a server that repeats it changes nothing)."""

    def step(state: Choice) -> list[Update]:
        if state.message.get("role") is None:
            state.message["role"] = role
        return []

    return step


def logprobs_step(logprobs: Mapping[str, Any]) -> Step:
    """A choice's ``logprobs``: its token lists grow, its other fields keep their latest
    value."""

    def step(state: Choice) -> list[Update]:
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
