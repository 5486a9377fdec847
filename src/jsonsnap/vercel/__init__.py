"""The Vercel AI SDK's UI message stream (``useChat``'s wire format, version 1), both ways.

The UI message stream is server-sent events whose ``data`` is one JSON chunk each (``{"type":
"text-delta", "id", "delta"}``, ``{"type": "tool-input-delta", "toolCallId",
"inputTextDelta"}``...), ended by ``data: [DONE]``; the response carries the header
``x-vercel-ai-ui-message-stream: v1`` (:data:`HEADERS`). The client folds the chunks into one
assistant ``UIMessage``: ``{"id", "role": "assistant", "parts": [...]}``.

Out (a Python backend behind ``useChat``): :class:`UIMessageEncoder` turns the
:class:`~jsonsnap.streams.Update` objects of any accumulator into chunks, and
:func:`ui_message_stream` / :func:`aui_message_stream` into the body's SSE text. It reads only
what every update carries, so one encoder serves every protocol:

- answer text (``update.text``, not ``thinking``) becomes a ``text`` part, reasoning a
  ``reasoning`` part: ``*-start`` when a part begins, ``*-delta`` per piece, ``*-end`` when
  another part begins or the stream ends. A part is one run of text with the same ``index``,
  ``thinking`` and ``delta`` kind: text that resumes after a tool call is a new part, in the
  order it came;
- a tool call (``update.tool``) becomes ``tool-input-start`` (once its name is known, or its
  first fragment is), a ``tool-input-delta`` per fragment (``inputTextDelta`` is exactly the
  JSON text the provider sent), and when its input ends ``tool-input-available`` with ``input``
  the strict value (:meth:`ToolInput.final`), or ``tool-input-error`` when the input is invalid
  or was cut off (``input`` the raw text, or the value that breaks its schema; ``errorText``
  why). Several calls may stream at once;
- the stream is framed by ``start`` (``messageId``) and ``start-step``, and ended by
  ``finish-step``, ``finish`` (``finishReason``, from the provider's stop reason by
  :func:`finish_reason_of` when the accumulator is given) and ``[DONE]``; a
  :class:`StreamError` ends it with an ``error`` chunk instead (every call still streaming
  becomes a ``tool-input-error``), then ``finish`` and ``[DONE]``.

Every chunk is serialised without recursion (a tool input may nest deeper than Python's
recursion limit) as one ``data:`` line: JSON escapes every line end, and a lone surrogate is
written as its ``\\uXXXX`` escape, so the body is always valid UTF-8. What JSON cannot say is
written as JSON the client reads: an infinity (a tool input's ``1e400``) as ``1e400``, which
``json.loads`` reads back as that infinity and ``JSON.parse`` as ``Infinity``; NaN (a repaired
``NaN``) as ``null``, as ``JSON.stringify`` writes it. (An integer longer than Python reads,
4300 digits, makes the tool input invalid: it goes out as a ``tool-input-error``.)

A UI message is one answer: of a stream with several (a Chat Completions stream with ``n``
choices, a Gemini stream with several candidates), :func:`ui_message_stream` given the
``accumulator`` encodes the first (index 0) only.

In (a client, a test, ``jsonsnap replay``): :class:`UIMessageAccumulator` (protocol
``"ui-message"``) rebuilds the ``UIMessage`` exactly as the ``ai`` package's
``readUIMessageStream`` does (its parts, their states, undefined fields left out), with a live
:class:`ToolInput` per tool call keyed by the place of its part. What the client accepts, it
accepts; where the client would throw (a chunk whose fields are missing or of the wrong type,
a delta for a part that was never started or has ended, an output for an unknown call) it
raises :class:`StreamError`, and so does an ``error`` chunk. A surrogate pair cut between two
deltas (of a text, a reasoning or a tool input) is joined into one character, as the client's
UTF-16 strings join it; a ``step-start`` part shows from the next chunk after which the client
shows the message (so a message with no content has no parts). Three deliberate differences:
a streaming part's ``input`` is jsonsnap's snapshot (a number or literal shows once it is
whole), not the client's repaired parse; a delta's last character, when it is the first half
of a pair, is held back until the next delta (or the part's end), where the client shows the
half alone meanwhile; and a chunk type this version does not know is skipped (the client
refuses it).
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Iterator, Mapping
from typing import Any, ClassVar, Final

from .. import JSONDecodeError, loads
from .._errors import describe
from .._streams.surrogates import HeldHalves
from ..streams import Accumulator, StreamError, ToolInput, ToolInputError, Update

__all__ = [
    "DONE",
    "HEADERS",
    "StreamError",
    "ToolInput",
    "ToolInputError",
    "UIMessageAccumulator",
    "UIMessageEncoder",
    "Update",
    "aui_message_stream",
    "finish_reason_of",
    "sse",
    "ui_message_stream",
]

#: The response headers of a UI message stream (the ``ai`` package's
#: ``UI_MESSAGE_STREAM_HEADERS`` without ``connection: keep-alive``, a hop-by-hop header that
#: WSGI servers refuse and HTTP/2 forbids).
HEADERS: Final[Mapping[str, str]] = {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    "x-vercel-ai-ui-message-stream": "v1",
    "x-accel-buffering": "no",
}
#: The last event of the body.
DONE: Final = "data: [DONE]\n\n"

#: The finish reasons the protocol knows.
FINISH_REASONS: Final = frozenset(
    {"stop", "length", "content-filter", "tool-calls", "error", "other", "unknown"}
)
#: Providers' stop and finish reasons (lower case), as the protocol's.
_REASONS: Final = {
    # Anthropic stop_reason, Bedrock stopReason
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "tool-calls",
    "refusal": "content-filter",
    "guardrail_intervened": "content-filter",
    "content_filtered": "content-filter",
    # Chat Completions finish_reason, Gemini finishReason
    "stop": "stop",
    "length": "length",
    "tool_calls": "tool-calls",
    "function_call": "tool-calls",
    "content_filter": "content-filter",
    "safety": "content-filter",
    "recitation": "content-filter",
    "prohibited_content": "content-filter",
    "blocklist": "content-filter",
    "spii": "content-filter",
    # Responses incomplete_details.reason
    "max_output_tokens": "length",
}
#: Block or item types of calls the provider runs itself.
_PROVIDER_EXECUTED: Final = frozenset({"server_tool_use", "mcp_tool_use", "mcp_call"})


def finish_reason_of(result: Mapping[str, Any] | None) -> str | None:
    """The protocol's ``finishReason`` for an accumulator's result: Anthropic's ``stop_reason``,
    Chat Completions' first choice's ``finish_reason``, a Responses ``status`` (with its
    ``incomplete_details``), Bedrock's ``stopReason``, Gemini's first candidate's
    ``finishReason``; ``"other"`` for a reason the protocol has no name for, ``None`` when
    the result says none."""
    if not isinstance(result, Mapping):
        return None
    reason: Any = result.get("stop_reason", result.get("stopReason"))
    for key, field in (("choices", "finish_reason"), ("candidates", "finishReason")):
        entries = result.get(key)
        if reason is None and isinstance(entries, list) and entries:
            first = entries[0]
            reason = first.get(field) if isinstance(first, Mapping) else None
    status = result.get("status")
    if reason is None and status == "completed":
        output = result.get("output")
        items = output if isinstance(output, list) else []
        calls = any(isinstance(i, Mapping) and i.get("type") == "function_call" for i in items)
        return "tool-calls" if calls else "stop"
    if reason is None and status == "incomplete":
        details = result.get("incomplete_details")
        reason = details.get("reason") if isinstance(details, Mapping) else None
        return "other" if not isinstance(reason, str) else _REASONS.get(reason.lower(), "other")
    if reason is None and status == "failed":
        return "error"
    if not isinstance(reason, str):
        return None
    return _REASONS.get(reason.lower(), "other")


# --------------------------------------------------------------------------- JSON out

_SURROGATE = re.compile("[\ud800-\udfff]")
_INFINITY: Final = float("inf")
_encode_string: Callable[[str], str] = json.encoder.encode_basestring


class _Piece(str):
    """Output already written (punctuation), on the stack of :func:`dump`."""

    __slots__ = ()


_OPEN_OBJECT, _CLOSE_OBJECT = _Piece("{"), _Piece("}")
_OPEN_ARRAY, _CLOSE_ARRAY, _COMMA = _Piece("["), _Piece("]"), _Piece(",")


def _float_text(value: float) -> str:
    """A float as JSON: an infinity as ``1e400`` (the text ``json.loads`` reads back as that
    infinity, and JavaScript's ``JSON.parse`` as ``Infinity``), NaN as ``null`` (no JSON text
    means NaN; ``JSON.stringify`` writes ``null`` too)."""
    if value != value:
        return "null"
    if value in (_INFINITY, -_INFINITY):
        return "1e400" if value > 0 else "-1e400"
    return float.__repr__(value)


def dump(value: Any) -> str:
    """``value`` as compact JSON text on one line, without recursion (any depth). Lone
    surrogates are written as ``\\uXXXX`` escapes, so the text encodes to UTF-8; an infinity
    as ``1e400`` or ``-1e400``, NaN as ``null``. ``TypeError`` for what JSON cannot hold,
    ``ValueError`` for an int too long to write (``sys.get_int_max_str_digits``)."""
    out: list[str] = []
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is _Piece:
            out.append(item)
        elif kind is str:
            out.append(_encode_string(item))
        elif item is None:
            out.append("null")
        elif kind is bool:
            out.append("true" if item else "false")
        elif kind is int:
            out.append(int.__repr__(item))
        elif kind is float:
            out.append(_float_text(item))
        elif isinstance(item, Mapping):
            stack.append(_CLOSE_OBJECT)
            pairs = list(item.items())
            for place in range(len(pairs) - 1, -1, -1):
                key, child = pairs[place]
                if not isinstance(key, str):
                    raise TypeError(f"an object key is {describe(key)}, not a string")
                stack.append(child)
                stack.append(_Piece(_encode_string(key) + ":"))
                if place:
                    stack.append(_COMMA)
            stack.append(_OPEN_OBJECT)
        elif isinstance(item, (list, tuple)):
            stack.append(_CLOSE_ARRAY)
            for place in range(len(item) - 1, -1, -1):
                stack.append(item[place])
                if place:
                    stack.append(_COMMA)
            stack.append(_OPEN_ARRAY)
        elif isinstance(item, str):  # a str subclass
            out.append(_encode_string(str(item)))
        elif isinstance(item, int) and not isinstance(item, bool):
            out.append(int.__repr__(int(item)))
        elif isinstance(item, float):
            out.append(_float_text(float(item)))
        else:
            raise TypeError(f"{describe(item)} is not JSON")
    text = "".join(out)
    if _SURROGATE.search(text) is None:
        return text
    return _SURROGATE.sub(lambda m: f"\\u{ord(m[0]):04x}", text)


def sse(chunk: Mapping[str, Any]) -> str:
    """One chunk as the server-sent event that carries it: ``data: <JSON>`` and a blank line."""
    return f"data: {dump(chunk)}\n\n"


# --------------------------------------------------------------------------- the encoder


class _Call:
    """A tool call being encoded: its id and name as sent, and whether its input has ended."""

    __slots__ = ("executed", "id", "name", "over", "tool")

    def __init__(self, tool: ToolInput, call_id: str, executed: bool) -> None:
        self.tool = tool  # kept: the key of the calls is its id()
        self.id = call_id
        self.name = tool.name
        self.executed = executed
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
            if piece and "\ud800" <= piece[-1] <= "\udbff" and not text.endswith(piece[-1]):
                text += piece[-1]  # the half of a pair the accumulator holds back for now
            if text:
                out.append(self._delta(call, text))
        elif update.fragment and not call.over:
            out.append(self._delta(call, update.fragment))
        if tool.ended and not call.over:
            out.append(self._end_call(call))
        return out

    @staticmethod
    def _delta(call: _Call, text: str) -> dict[str, Any]:
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


def _id_of(accumulator: Accumulator | None) -> str | None:
    result = None if accumulator is None else accumulator.result
    found = result.get("id") if isinstance(result, Mapping) else None
    return found if isinstance(found, str) and found else None


#: The protocols whose stream may hold several answers, and the key of their list in the
#: result: Chat Completions' choices (``n``), Gemini's candidates (``candidateCount``).
_ANSWERS: Final = {"chat": "choices", "gemini": "candidates"}


def _first_answer(accumulator: Accumulator | None) -> Callable[[Update], bool]:
    """Which updates go into the message: all of them, but of a stream with several answers
    (:data:`_ANSWERS`) only the first's, index 0 (a UI message is one answer). Text names its
    answer (``update.index``); a tool call's answer is looked up once, at its first update:
    the one answer so far, or, of several, the first's when the call is there (a Gemini
    call's part is at its index in candidate 0's parts; a Chat Completions call is among the
    accumulator's ``tools``, choice 0's calls by their index, or is its legacy
    ``function_call``)."""
    key = None if accumulator is None else _ANSWERS.get(accumulator.protocol)
    if key is None:
        return lambda update: True
    source: Any = accumulator
    seen: dict[int, bool] = {}

    def keep(update: Update) -> bool:
        tool = update.tool
        if tool is None:
            return update.index in (None, 0)
        first = seen.get(id(tool))
        if first is None:
            answers: list[Any] = (source.result or {}).get(key) or []
            if len(answers) < 2:
                first = all(answer.get("index") == 0 for answer in answers)
            elif key == "candidates":
                parts = answers[0]["content"]["parts"] if answers[0].get("index") == 0 else []
                first = tool.index < len(parts) and parts[tool.index] is update.block
            else:
                first = source.tools.get(tool.index) is tool or source.function_call(0) is tool
            seen[id(tool)] = first
        return first

    return keep


def _ending(
    encoder: UIMessageEncoder, accumulator: Accumulator | None, error: StreamError | None,
    on_error: Callable[[StreamError], str],
) -> Iterator[str]:  # fmt: skip
    if error is not None:
        chunks = encoder.error(on_error(error))
    else:
        result = None if accumulator is None else accumulator.result
        chunks = encoder.finish(finish_reason_of(result))
    for chunk in chunks:
        yield sse(chunk)
    yield DONE


def ui_message_stream(
    updates: Iterable[Update],
    *,
    accumulator: Accumulator | None = None,
    message_id: str | None = None,
    metadata: Any = None,
    on_error: Callable[[StreamError], str] = str,
) -> Iterator[str]:
    """The body of a UI message stream (send it with :data:`HEADERS`): one string per event,
    from the updates of an accumulator (``acc.updates(body)``, or ``feed()``'s).

    ``accumulator``: the one the updates come from; the ``messageId`` is then its result's id
    (unless ``message_id`` is given) and ``finish`` carries its finish reason
    (:func:`finish_reason_of`); of a stream with several answers (a Chat Completions stream
    with several choices, a Gemini stream with several candidates), only the first (index 0)
    goes into the message, as a UI message is one answer (without ``accumulator``, every
    update does). A :class:`StreamError` from ``updates`` ends the body with an ``error``
    chunk whose text is ``on_error(error)`` (the error's message by default: pass a function
    to hide it from the page); other exceptions are not caught.
    """
    encode = _Encoding(accumulator, message_id, metadata)

    def run() -> Iterator[str]:
        error = None
        try:
            for update in updates:
                yield from encode(update)
        except StreamError as exc:
            error = exc
        yield from _ending(encode.encoder, accumulator, error, on_error)

    return run()


def aui_message_stream(
    updates: AsyncIterable[Update] | Iterable[Update],
    *,
    accumulator: Accumulator | None = None,
    message_id: str | None = None,
    metadata: Any = None,
    on_error: Callable[[StreamError], str] = str,
) -> AsyncIterator[str]:
    """:func:`ui_message_stream` for async updates (``acc.aupdates(body)``); a synchronous
    iterable is taken too."""
    encode = _Encoding(accumulator, message_id, metadata)

    async def source() -> AsyncIterator[Update]:
        if isinstance(updates, AsyncIterable):
            async for update in updates:
                yield update
        else:
            for update in updates:
                yield update

    async def run() -> AsyncIterator[str]:
        error = None
        try:
            async for update in source():
                for text in encode(update):
                    yield text
        except StreamError as exc:
            error = exc
        for text in _ending(encode.encoder, accumulator, error, on_error):
            yield text

    return run()


class _Encoding:
    """What each update adds to the body (for the sync and async streams alike): the events
    of its chunks, the first answer's only."""

    __slots__ = ("accumulator", "encoder", "keep")

    def __init__(self, accumulator: Accumulator | None, message_id: str | None, metadata: Any):
        self.accumulator = accumulator
        self.encoder = UIMessageEncoder(message_id=message_id, metadata=metadata)
        self.keep = _first_answer(accumulator)

    def __call__(self, update: Update) -> list[str]:
        if not self.keep(update):
            return []
        encoder = self.encoder
        if not encoder.started and encoder.message_id is None:
            encoder.message_id = _id_of(self.accumulator)
        return [sse(chunk) for chunk in encoder.encode(update)]


# --------------------------------------------------------------------------- the decoder

#: The chunk types of the protocol (``data-*`` aside).
CHUNK_TYPES: Final = frozenset(
    {
        "start",
        "finish",
        "abort",
        "error",
        "start-step",
        "finish-step",
        "message-metadata",
        "text-start",
        "text-delta",
        "text-end",
        "reasoning-start",
        "reasoning-delta",
        "reasoning-end",
        "tool-input-start",
        "tool-input-delta",
        "tool-input-available",
        "tool-input-error",
        "tool-output-available",
        "tool-output-error",
        "source-url",
        "source-document",
        "file",
    }
)
#: Keys the client never lets an override merge into metadata.
_UNSAFE_KEYS: Final = frozenset({"__proto__", "constructor", "prototype"})
#: The fields of a tool part that each update of it sets or clears (``undefined``).
_CALL_FIELDS: Final = ("input", "output", "rawInput", "errorText", "preliminary")
_MISSING: Any = object()


def _merge(base: dict[str, Any], override: Mapping[str, Any]) -> None:
    """Merge metadata into ``base`` in place, as the client's ``mergeObjects`` does (objects
    merge key by key, anything else replaces), without recursion and in time proportional to
    ``override``."""
    stack = [(base, override)]
    while stack:
        target, source = stack.pop()
        for key, value in source.items():
            if key in _UNSAFE_KEYS:
                continue
            old = target.get(key)
            if isinstance(value, dict) and isinstance(old, dict):
                stack.append((old, value))
            else:
                target[key] = value


class UIMessageAccumulator(Accumulator):
    """Accumulate one UI message stream into ``.message`` (see the module docstring).

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
            self._append(part, "text", half)
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
            raise self._malformed(f"{key} is {describe(value)}, not a boolean")
        return value

    def _metadata(self, event: Mapping[str, Any]) -> Mapping[str, Any] | None:
        value = event.get("providerMetadata")
        if value is None:
            return None
        metadata = self._mapping(value, "providerMetadata")
        for inner in metadata.values():
            self._mapping(inner, "a provider's metadata")
        return metadata

    def _part_id(self, event: Mapping[str, Any], open_parts: dict[str, int]) -> int:
        """The place of the open part a delta or end is about."""
        part_id = self._str(event.get("id"), "the part id")
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
            raise self._malformed(f"{what} is not JSON: {exc}") from None

    # -- the message -----------------------------------------------------------------------

    def _start(self, event: Mapping[str, Any]) -> list[Update]:
        message_id = self._opt_str(event.get("messageId"), "the messageId")
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
            _merge(old, metadata)
        else:
            message["metadata"] = metadata

    def _message_metadata(self, event: Mapping[str, Any]) -> list[Update]:
        self._parts()
        self._merge_metadata(event.get("messageMetadata"))
        return [Update("message-metadata")]

    def _finish(self, event: Mapping[str, Any]) -> list[Update]:
        reason = self._opt_str(event.get("finishReason"), "the finishReason")
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
        text = self._str(event.get("errorText"), "the errorText")
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
        part_id = self._str(event.get("id"), "the part id")
        metadata = self._metadata(event)
        parts = self._shown()
        part: dict[str, Any] = {"type": "reasoning", "id": part_id} if reasoning else {
            "type": "text"}  # fmt: skip
        part["text"] = ""
        if metadata is not None:
            part["providerMetadata"] = metadata
        part["state"] = "streaming"
        (self._reasoning if reasoning else self._text)[part_id] = len(parts)
        parts.append(part)
        return [Update(self._kind, len(parts) - 1, part, thinking=reasoning)]

    def _grow_text(self, event: Mapping[str, Any]) -> list[Update]:
        reasoning = self._kind == "reasoning-delta"
        place = self._part_id(event, self._reasoning if reasoning else self._text)
        text = self._str(event.get("delta"), "the delta")
        metadata = self._metadata(event)
        part = self._shown()[place]
        self._append(part, "text", self._halves.join(place, text))
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
        call_id = self._str(event.get("toolCallId"), "the toolCallId")
        name = self._str(event.get("toolName"), "the toolName")
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
        is none): the state, and each of ``_CALL_FIELDS`` set or cleared."""
        parts = self._shown()
        if place is None:
            part: dict[str, Any] = {"type": "dynamic-tool", "toolName": name} if dynamic else {
                "type": f"tool-{name}"}  # fmt: skip
            part["toolCallId"] = call_id
            place = len(parts)
            parts.append(part)
            self._calls[(dynamic, call_id)] = place
        else:
            part = parts[place]
            if dynamic:
                part["toolName"] = name
        part["state"] = state
        for key in _CALL_FIELDS:
            value = fields.get(key, _MISSING)
            if value is _MISSING:
                part.pop(key, None)
            else:
                part[key] = value
        if executed is not None:
            part["providerExecuted"] = executed
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
        call_id = self._str(event.get("toolCallId"), "the toolCallId")
        found = self._streaming.get(call_id)
        if found is None:
            raise StreamError(f"{self._kind} for tool call {call_id!r}, which has not started")
        place = found[1]
        return place, self._tools[place]

    def _tool_input_delta(self, event: Mapping[str, Any]) -> list[Update]:
        place, tool = self._streamed(event)
        text = self._str(event.get("inputTextDelta"), "the inputTextDelta")
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
        value = event.get("input", _MISSING)
        as_text = isinstance(value, str) and self._kind == "tool-input-error"
        text = None if value is _MISSING else value if as_text else self._json(value, "the input")
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
        value = event.get("input", _MISSING)
        fields = {} if value is _MISSING else {"input": value}
        place, part = self._set_call(place, dynamic, call_id, name, "input-available", fields,
                                     executed)  # fmt: skip
        if metadata is not None:
            part["callProviderMetadata"] = metadata
        tool, changed = self._end_tool(place, name, call_id, raw)
        return [Update(self._kind, place, part, tool=tool, changed=changed)]

    def _tool_input_error(self, event: Mapping[str, Any]) -> list[Update]:
        call_id, name, dynamic, executed = self._call_head(event)
        text = self._str(event.get("errorText"), "the errorText")
        metadata = self._metadata(event)
        place = self._in_step(dynamic, call_id)
        tool, raw = self._input_tool(event, name, call_id, place)
        value = event.get("input", _MISSING)
        fields: dict[str, Any] = {"errorText": text}
        if value is not _MISSING:
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
        call_id = self._str(event.get("toolCallId"), "the toolCallId")
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
        text = None if available else self._str(event.get("errorText"), "the errorText")
        self._release(place)  # an input still streaming: the output shows all it streamed
        fields: dict[str, Any] = {}
        if "input" in part:
            fields["input"] = part["input"]
        if available:
            state = "output-available"
            if "output" in event:
                fields["output"] = event["output"]
            if preliminary is not None:
                fields["preliminary"] = preliminary
        else:
            state = "output-error"
            fields["errorText"] = text
            if not dynamic and "rawInput" in part:
                fields["rawInput"] = part["rawInput"]
        name = part.get("toolName", "")
        self._set_call(place, dynamic, event["toolCallId"], name, state, fields, executed)
        return [Update(self._kind, place, part, tool=self._tools.get(place))]

    # -- sources, files, data ----------------------------------------------------------------

    #: The fields of each kind of source and file part: required, and optional strings.
    _ATTACHED: ClassVar[Mapping[str, tuple[tuple[str, ...], tuple[str, ...]]]] = {
        "source-url": (("sourceId", "url"), ("title",)),
        "source-document": (("sourceId", "mediaType", "title"), ("filename",)),
        "file": (("url", "mediaType"), ()),
    }

    def _attached(self, event: Mapping[str, Any]) -> list[Update]:
        required, optional = self._ATTACHED[self._kind]
        part: dict[str, Any] = {"type": self._kind}
        for key in required:
            part[key] = self._str(event.get(key), f"the {key}")
        for key in optional:
            value = self._opt_str(event.get(key), f"the {key}")
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
        data_id = self._opt_str(event.get("id"), "the data part id")
        if self._flag(event, "transient"):
            self._parts()
            return [Update(kind)]  # for the moment: never in the message
        parts = self._shown()
        place = None if data_id is None else self._data.get((kind, data_id))
        if place is not None:
            part = parts[place]
            if "data" in event:
                part["data"] = event["data"]
            else:
                part.pop("data", None)
            return [Update(kind, place, part)]
        part = dict(event)
        if data_id is not None:
            self._data[(kind, data_id)] = len(parts)
        parts.append(part)
        return [Update(kind, len(parts) - 1, part)]

    _HANDLERS: ClassVar[Mapping[str, Callable[..., list[Update]]]] = {
        "start": _start,
        "finish": _finish,
        "abort": _abort,
        "error": _error_chunk,
        "message-metadata": _message_metadata,
        "start-step": _start_step,
        "finish-step": _finish_step,
        "text-start": _open,
        "reasoning-start": _open,
        "text-delta": _grow_text,
        "reasoning-delta": _grow_text,
        "text-end": _close_text,
        "reasoning-end": _close_text,
        "tool-input-start": _tool_input_start,
        "tool-input-delta": _tool_input_delta,
        "tool-input-available": _tool_input_available,
        "tool-input-error": _tool_input_error,
        "tool-output-available": _tool_output,
        "tool-output-error": _tool_output,
        "source-url": _attached,
        "source-document": _attached,
        "file": _attached,
        "data-*": _data_part,
    }
    _OPENERS = frozenset(_HANDLERS)
