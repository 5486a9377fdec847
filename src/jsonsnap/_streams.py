"""What the stream accumulators share: tool inputs, updates, errors, the SSE edge.

Each protocol module (``anthropic``, ``openai``) rebuilds one kind of stream; they all

- keep a :class:`ToolInput` per streamed tool call: the raw JSON text, a :class:`jsonsnap.Parser`
  for the live snapshot, and the strict value once the protocol says the input is finished.
  Its ``status`` is ``"streaming"`` until then, and afterwards ``"complete"`` (strictly parsed),
  ``"incomplete"`` (the text stopped before the value did: a cut at the token limit) or
  ``"invalid"`` (a character no continuation could accept). :meth:`ToolInput.final` is the one
  way to get arguments fit to run a tool with;
- describe what each event did with an :class:`Update`, for UI code;
- raise :class:`StreamError` for an error the stream reports, for events out of order and for
  malformed ones (a missing key, a value of the wrong type, data that is not JSON), leaving
  what was accumulated readable;
- read the body of an HTTP response through :class:`_Accumulator.updates`, which decodes the
  server-sent events and hands each event's ``data`` to the protocol.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from ._errors import JSONDecodeError
from ._parser import Parser
from .sse import ServerSentEvent, aiter_events, iter_events

Status = Literal["streaming", "complete", "incomplete", "invalid"]


class StreamError(Exception):
    """The stream reported an error (``error_type`` and ``message`` from its body), or broke
    the protocol (``error_type`` is ``None``)."""

    def __init__(self, message: str, *, error_type: str | None = None) -> None:
        super().__init__(f"{error_type}: {message}" if error_type else message)
        self.message = message
        self.error_type = error_type


class ToolInputError(ValueError):
    """A tool's input is not fit to run the tool with: unfinished, or invalid JSON."""


class ToolInput:
    """The streamed JSON input (arguments) of one tool call."""

    __slots__ = ("_parser", "_status", "_value", "error", "id", "index", "name", "raw")

    def __init__(self, index: int, name: str, id: str | None = None) -> None:
        #: Where the call is: the content block, tool call or output item index.
        self.index = index
        self.name = name
        self.id = id
        #: The JSON text received so far.
        self.raw = ""
        #: The error that makes the text invalid JSON (position, line, column), if it is.
        self.error: JSONDecodeError | None = None
        self._parser = Parser()
        self._value: Any = None
        self._status: Status = "streaming"

    @property
    def snapshot(self) -> Any:
        """The best-effort value so far (live; ``{}`` before anything shows). After an error,
        the value of the text before the offending character."""
        return self._parser.snapshot({})

    @property
    def status(self) -> Status:
        """``"streaming"``, then ``"complete"``, ``"incomplete"`` or ``"invalid"``."""
        return "invalid" if self.error is not None else self._status

    @property
    def complete(self) -> bool:
        """Whether the input was strictly parsed (its value is what :meth:`final` returns)."""
        return self.status == "complete"

    def final(self) -> Any:
        """The strictly parsed input, or :class:`ToolInputError` when there is none."""
        status = self.status
        if status == "complete":
            return self._value
        where = f"tool {self.name!r} ({self.index})"
        if status == "invalid":
            raise ToolInputError(f"{where} has invalid input JSON: {self.error}")
        if status == "incomplete":
            raise ToolInputError(f"{where} input was cut off before its end")
        raise ToolInputError(f"{where} input is unfinished")

    def _feed(self, fragment: str) -> None:
        _str(fragment, "the input's text")
        raw = self.raw
        self.raw = ""
        raw += fragment
        self.raw = raw
        if self.error is None and self._status == "streaming":
            try:
                self._parser.feed(fragment)
            except JSONDecodeError as err:
                self.error = err

    def _close(self, raw: str | None = None) -> Any:
        """The input is finished: parse it strictly. ``raw`` is the whole text when the
        protocol repeats it at the end; if it is not what was streamed, it replaces it."""
        if (
            raw is not None
            and _str(raw, "the input's text") != self.raw
            and self._status == "streaming"
        ):
            self.raw = ""
            self.error = None
            self._parser = Parser()
            self._feed(raw)
        if self._status == "streaming" and self.error is None:
            if not self.raw.strip():
                self._value = {}
                self._status = "complete"
            else:
                try:
                    self._value = self._parser.close()
                except JSONDecodeError:  # at the end of the text: it stopped too soon
                    self._status = "incomplete"
                else:
                    self._status = "complete"
        return self._value if self.status == "complete" else self.snapshot

    def __repr__(self) -> str:
        return f"<ToolInput {self.index} {self.name!r} {self.status}, {len(self.raw)} chars>"


@dataclass(frozen=True)
class Update:
    """What one event did to the accumulated result, for UI code."""

    #: The event's type (``"content_block_delta"``, ``"response.output_text.delta"``, ...;
    #: for Chat Completions, the part of the chunk: ``"content"``, ``"tool_call"``, ...).
    event: str
    #: The content block, tool call or output item the event is about (``None`` if none).
    index: int | None = None
    #: That block, message or item as accumulated so far (live: later events grow it).
    block: dict[str, Any] | None = None
    #: The delta's type, when the event has one (``"text_delta"``, ``"reasoning_content"``).
    delta: str | None = None
    #: The text this event appended to a text or reasoning part.
    text: str = ""
    #: The tool input of the call, for the events of a tool call.
    tool: ToolInput | None = None
    #: Whether ``text`` is reasoning (thinking) rather than the answer.
    thinking: bool = False

    @property
    def snapshot(self) -> Any:
        """The tool input's best-effort value now (``None`` when the event is not a tool's)."""
        return None if self.tool is None else self.tool.snapshot


def _append(container: dict[str, Any], key: str, text: str) -> None:
    """``container[key] += text`` (``None`` counts as empty), in place when CPython can: the
    dict lets go of the string meanwhile."""
    _str(text, key)
    s = _str(container.get(key) or "", key)
    container[key] = None
    s += text
    container[key] = s


#: What the handlers raise on an event of the wrong shape (a missing key, a value of the wrong
#: type): reported as a :class:`StreamError` by :func:`_malformed`.
_MALFORMED = (KeyError, TypeError, AttributeError, IndexError, ValueError)


def _str(value: Any, what: str) -> str:
    """``value``, which must be a string (handlers check before they change anything)."""
    if type(value) is not str:
        raise TypeError(f"{what} is {type(value).__name__}, not a string")
    return value


def _opt_str(value: Any, what: str) -> str | None:
    return None if value is None else _str(value, what)


def _mapping(value: Any, what: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise TypeError(f"{what} is {type(value).__name__}, not an object")
    return value


def _index(value: Any, what: str) -> int:
    if type(value) is not int or value < 0:
        raise TypeError(f"{what} is {value!r}, not an index")
    return value


def _malformed(what: str, exc: Exception) -> StreamError:
    return StreamError(f"malformed {what}: {type(exc).__name__}: {exc}")


def _json_data(event: ServerSentEvent) -> dict[str, Any]:
    """The ``data`` of a server-sent event, which must be a JSON object."""
    try:
        data = json.loads(event.data)
    except ValueError as exc:
        raise StreamError(f"the data of a {event.event!r} event is not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise StreamError(f"the data of a {event.event!r} event is not a JSON object")
    return data


def _as_mapping(event: Mapping[str, Any] | Any) -> Mapping[str, Any]:
    """An event or chunk as a mapping: itself, or an SDK object's ``to_dict()`` (the fields
    the wire carried, without the defaults a ``model_dump()`` would add)."""
    if isinstance(event, Mapping):
        return event
    dump = getattr(event, "to_dict", None) or getattr(event, "model_dump", None)
    if dump is None:
        raise TypeError(f"not an event: {type(event).__name__}")
    mapping: Mapping[str, Any] = dump()
    return mapping


class _Accumulator:
    """The SSE edge of an accumulator: body chunks in, updates out."""

    def _feed_event(self, event: ServerSentEvent) -> list[Update]:
        raise NotImplementedError

    def updates(self, chunks: Iterable[bytes | str]) -> Iterator[Update]:
        """Decode an event stream given as chunks of the HTTP body (``iter_bytes()``), feed
        each event, and yield what each did. The result is complete when the iteration ends."""
        for event in iter_events(chunks):
            yield from self._feed_event(event)

    async def aupdates(self, chunks: AsyncIterable[bytes | str]) -> AsyncIterator[Update]:
        """:meth:`updates` for an async iterable of chunks (``aiter_bytes()``)."""
        async for event in aiter_events(chunks):
            for update in self._feed_event(event):
                yield update

    def read(self, chunks: Iterable[bytes | str]) -> None:
        """Read a whole event stream (the chunks of an HTTP body)."""
        for _ in self.updates(chunks):
            pass
