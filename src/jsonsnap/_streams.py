"""The values of :mod:`jsonsnap.streams` (published there): tool inputs, updates, errors.

- :class:`ToolInput` keeps one streamed tool call's input: the raw JSON text, a
  :class:`jsonsnap.Parser` for the live snapshot (and, once someone asks for it, the change
  feed), and the strict value once the protocol says the input is finished. Its ``status`` is
  ``"streaming"`` until then, and afterwards ``"complete"`` (strictly parsed), ``"incomplete"``
  (the text stopped before the value did: a cut at the token limit, or a stream that ended) or
  ``"invalid"`` (a character no continuation could accept). :meth:`ToolInput.final` is the one
  way to get arguments fit to run a tool with.
- :class:`Update` says what one event did, for UI code.
- :class:`StreamError` and :class:`ToolInputError`.
- The data helpers the accumulators share: :func:`copy_data` (an event is never kept or changed
  in place: what is kept is copied, without recursion), :func:`describe` (a value in an error
  message, safely: no huge repr, no recursion), :func:`error_from` (the error a payload reports,
  in any protocol's shape), and what reads a body or an SDK object.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, Literal

from . import Change, JSONDecodeError, Parser, Path
from .sse import ServerSentEvent

Status = Literal["streaming", "complete", "incomplete", "invalid"]
_NOTHING: Any = object()
#: What a body's chunks may be (anything else in a body is an event).
CHUNK_TYPES = (bytes, bytearray, memoryview, str)
_LEAVES = frozenset({str, int, float, bool, type(None)})
_PUBLIC = "jsonsnap.streams"


class StreamError(Exception):
    """The stream reported an error (``error_type`` and ``message`` from its body), or broke
    the protocol (``error_type`` is ``None``): an event malformed, out of order or after the
    end."""

    def __init__(self, message: str, *, error_type: str | None = None) -> None:
        super().__init__(f"{error_type}: {message}" if error_type else message)
        self.message = message
        self.error_type = error_type

    def __reduce__(self) -> tuple[Any, ...]:
        return _stream_error, (self.message, self.error_type)


def _stream_error(message: str, error_type: str | None) -> StreamError:
    return StreamError(message, error_type=error_type)


class ToolInputError(ValueError):
    """A tool's input is not fit to run the tool with: unfinished, or invalid JSON."""


class ToolInput:
    """The streamed JSON input (arguments) of one tool call."""

    __slots__ = (
        "_ended",
        "_parser",
        "_status",
        "_tracking",
        "_value",
        "error",
        "id",
        "index",
        "name",
        "raw",
    )

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
        self._tracking = False  # a parser with track_changes=True, once someone asked
        self._value: Any = None
        self._status: Literal["streaming", "complete", "incomplete"] = "streaming"
        self._ended = False

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

    @property
    def ended(self) -> bool:
        """Whether the input is over: the protocol (or ``close()``) ended it. An invalid input
        is ``"invalid"`` from its offending character on, and ended only with its call."""
        return self._ended

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

    # ------------------------------------------------------------------ the change feed

    def changes(self) -> list[Change]:
        """The change records of the input since the last call, as
        :meth:`jsonsnap.Parser.changes` gives them (the first call: since its start)."""
        if not self._tracking:
            self._watch(Parser(track_changes=True))
        return self._parser.changes()

    def subscribe(
        self,
        pattern: Sequence[object],
        callback: Callable[[Any], object],
        *,
        under: bool = False,
        kinds: Iterable[type[Change]] | None = None,
    ) -> Callable[[], None]:
        """Call ``callback(record)`` for each change record of the input whose path matches
        ``pattern`` (see :meth:`jsonsnap.Parser.subscribe`). Returns a function that cancels it.

        The change feed starts when first asked for: the first subscription (unless
        :meth:`changes` came first) gets the records of the text received so far, at once,
        then the rest as it arrives; a later one, the records from then on."""
        if self._tracking:
            return self._parser.subscribe(pattern, callback, under=under, kinds=kinds)
        parser = Parser(track_changes=True)
        cancel = parser.subscribe(pattern, callback, under=under, kinds=kinds)
        self._watch(parser)
        return cancel

    @property
    def writing(self) -> Path | None:
        """The path being written now (see :attr:`jsonsnap.Parser.writing`)."""
        return self._parser.writing

    def is_complete(self, path: Sequence[str | int] = ()) -> bool:
        """Whether the value at ``path`` is shown and final (see
        :meth:`jsonsnap.Parser.is_complete`)."""
        return self._parser.is_complete(path)

    def _watch(self, parser: Parser) -> None:
        """Start the change feed: the text so far is read again, once, by a parser with
        ``track_changes=True``, which takes the later fragments alone. (Until then, a plain
        parser costs less.)"""
        self._tracking = True
        self._reread(self.raw, parser)

    # ------------------------------------------------------------------ for the accumulators

    def _feed(self, fragment: str) -> bool:
        """A piece of the input's text; whether the snapshot changed."""
        raw = self.raw
        self.raw = ""  # let go of the string, so that it grows in place
        raw += fragment
        self.raw = raw
        if self.error is not None:
            return False
        try:
            return self._parser.feed(fragment)
        except JSONDecodeError as err:
            self.error = err
            return True

    def _close(self, raw: str | None = None) -> bool:
        """The protocol says the input is finished: parse it strictly. ``raw`` is the whole
        text when the protocol repeats it at the end; if it is not what was streamed, it
        replaces it. Whether the snapshot changed."""
        self._ended = True
        changed = raw is not None and raw != self.raw
        if changed:
            self.error = None
            self._reread(raw)  # type: ignore[arg-type]
        if self.error is None:
            before = self._parser.snapshot(_NOTHING)
            self._settle()
            changed = changed or self._parser.snapshot(_NOTHING) is not before
        return changed

    def _cut(self) -> None:
        """The stream ended before the protocol ended the input."""
        self._ended = True
        self._status = "incomplete"

    def _settle(self) -> None:
        if not self.raw.strip():
            self._value = {}
            self._status = "complete"
            return
        try:
            self._value = self._parser.close()
        except JSONDecodeError:  # at the end of the text: it stopped too soon
            self._status = "incomplete"
        else:
            self._status = "complete"

    def _reread(self, raw: str, parser: Parser | None = None) -> None:
        """A new parser (``parser``, or a fresh one) for ``raw``, in the state the input is in.
        When the protocol's whole text replaces the streamed one, the subscriptions go with
        the parser that read the streamed text."""
        self._parser = parser or Parser(track_changes=self._tracking)
        self.raw = ""
        self.error = None
        self._feed(raw)
        if self._status == "complete" and self.error is None:
            self._settle()

    def __repr__(self) -> str:
        return f"<ToolInput {self.index} {self.name!r} {self.status}, {len(self.raw)} chars>"


@dataclass(frozen=True, slots=True, repr=False)
class Update:
    """What one event did to the accumulated result, for UI code."""

    #: The event's type (``"content_block_delta"``, ``"response.output_text.delta"``, ...;
    #: for Chat Completions, the part of the chunk: ``"content"``, ``"tool_call"``, ...;
    #: ``"close"`` for what :meth:`Accumulator.close` ended).
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
    #: The piece of the tool input's JSON text this event brought.
    fragment: str = ""
    #: Whether the tool input's snapshot changed.
    changed: bool = False
    #: The free text this event appended to a custom tool call's input (not JSON).
    custom_input: str = ""

    @property
    def snapshot(self) -> Any:
        """The tool input's best-effort value now (``None`` when the event is not a tool's)."""
        return None if self.tool is None else self.tool.snapshot

    def __repr__(self) -> str:
        shown = [repr(self.event)]
        for field in fields(self)[1:]:
            value = getattr(self, field.name)
            if value is not field.default and value != field.default:
                text = f"<{len(value)} keys>" if field.name == "block" else repr(value)
                shown.append(f"{field.name}={text}")
        return f"Update({', '.join(shown)})"


for _cls in (StreamError, ToolInputError, ToolInput, Update):
    _cls.__module__ = _PUBLIC


def copy_data(value: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of an event's data: mappings become dicts, lists and tuples lists, other values
    are shared. Made without recursion (any depth), each container once (shared ones stay
    shared, a cycle stays a cycle)."""
    copies: dict[int, Any] = {}
    root: dict[str, Any] = {}
    copies[id(value)] = root
    stack: list[tuple[Any, Any]] = [(value, root)]
    while stack:
        source, target = stack.pop()
        pairs = source.items() if isinstance(source, Mapping) else enumerate(source)
        for key, item in pairs:
            kind = type(item)
            if kind in _LEAVES:
                target[key] = item
                continue
            is_list = kind is list or kind is tuple
            if is_list or kind is dict or isinstance(item, Mapping):
                copy = copies.get(id(item))
                if copy is None:
                    copy = [None] * len(item) if is_list else {}
                    copies[id(item)] = copy
                    stack.append((item, copy))
                item = copy
            target[key] = item
    return root


def describe(value: Any) -> str:
    """A short, safe description of a value for an error message."""
    if isinstance(value, str):
        return repr(value) if len(value) <= 40 else repr(value[:40]) + "..."
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return "a very large int"
    if value is None or isinstance(value, (bool, int, float)):
        return repr(value)
    name = type(value).__name__
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"


def error_from(
    payload: Mapping[str, Any], default: str | None = None, message: str = ""
) -> StreamError:
    """The error a payload reports: ``{"error": {"type" or "code", "message"}}`` (Anthropic's
    ``error`` event, Chat Completions, a nested Responses error), ``{"error": "text"}``, or the
    fields themselves (``{"code", "message"}``: a Responses ``error`` event, a failed
    response's ``error``). ``default`` is the type and ``message`` the message when the
    payload gives none."""
    body = payload.get("error")
    if body is None:
        body = payload
    elif not isinstance(body, Mapping):
        return StreamError(body if isinstance(body, str) else describe(body))
    kind = body.get("code") if body is payload else body.get("type") or body.get("code")
    text = body.get("message")
    return StreamError(
        message if text is None else text if isinstance(text, str) else describe(text),
        error_type=default if kind is None else kind if isinstance(kind, str) else describe(kind),
    )


def body_items(body: Any, name: str) -> Iterable[Any]:
    """The chunks or events of a body given to ``name()``; ``TypeError`` for anything else."""
    if isinstance(body, CHUNK_TYPES):
        return (body,)
    if isinstance(body, Iterable) and not isinstance(body, Mapping):
        return body
    raise TypeError(
        f"{name}() takes the body of an event stream: bytes, str, or an iterable of its chunks "
        f"(response.iter_bytes()) or of events (the SDK's stream); not {describe(body)}"
        + (" (for one event, use feed())" if isinstance(body, (Mapping, ServerSentEvent)) else "")
    )


def dump_event(event: Any) -> Any:
    """An SDK object's fields as the wire carried them: ``to_dict()`` (``model_dump()`` adds
    every default). The SDKs' parsed subclasses make pydantic warn as it dumps them: not
    a concern of ours, so not shown."""
    dump = getattr(event, "to_dict", None) or getattr(event, "model_dump", None)
    if not callable(dump) or isinstance(event, type):
        return None
    try:
        return dump(warnings=False)
    except TypeError:  # a to_dict() of another kind
        return dump()


async def as_async(items: Iterable[Any]) -> AsyncIterator[Any]:
    for item in items:
        yield item


def misuse_hint(event: Any) -> str:
    """What to do instead of passing ``event`` to ``feed()``."""
    if isinstance(event, str):
        return ": decode the event's data first, or pass the ServerSentEvent"
    if isinstance(event, CHUNK_TYPES):
        return ": the bytes of a body go to read() or updates()"
    return ""
