"""The accumulator contract: :class:`Accumulator`, the base of every protocol's accumulator.

It keeps what every protocol shares (the module docstring of :mod:`jsonsnap.streams` states the
contract): events in through ``feed()`` (a decoded event, an SDK object, a server-sent event,
the ``[DONE]`` marker) and dispatched through the protocol's table of handlers, a body read
through ``read()``, ``updates()`` and ``aupdates()`` and closed at its end, ``close()``, the tool
inputs kept live, and the structured output. Its parts are objects of their own: the field
checks (:class:`EventFields`), the schema side (:class:`SchemaSide`), the body's decoder and
head (``body``), the table of protocols (``protocols``: a first event of another protocol is
refused, naming the class that reads it).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Iterator, Mapping
from typing import Any, ClassVar, Final, NoReturn, TypeVar
from weakref import WeakKeyDictionary

from .._errors import StreamError, caused, mypyc_attr
from .._jsontext import copy_data, describe
from .._parse.repairs import repairs_of
from ..sse import ServerSentEvent, SSEDecoder
from .aio import as_async, aupdates
from .body import CHUNK_TYPES, BodyDecoder, BodyHead, body_items, item_events, misuse_hint
from .envelope import DONE, sse_data, string_body
from .events import dump_event, error_from
from .fields import EventFields
from .protocols import PROTOCOLS, detect
from .schemas import SchemaSide, output_schema_of, tool_schemas
from .tool_input import StructuredOutput, ToolInput, ToolSchemas
from .update import Update

A = TypeVar("A", bound="Accumulator")
#: What a body's iterator gives when it has no more items (no item is this object).
_END: Final = object()
#: Whether each class reads a body's server-sent events as pairs (``_pairs_of``).
_PAIRS: Final[WeakKeyDictionary[type, bool]] = WeakKeyDictionary()


@mypyc_attr(allow_interpreted_subclasses=True)  # (every protocol's, and users')
class Accumulator:
    """One stream being rebuilt (see the module docstring for the contract).

    ``tools``: the request's tool definitions as they are sent, in any provider's shape, or a
    mapping ``{name: schema}`` (see :func:`tool_schemas`): each call's input is then checked
    against its tool's schema; a call to a tool not defined there is parsed unchecked.
    ``output_schema``: the request's structured output format (``response_format``,
    ``text.format``, Anthropic's ``output_format``) or any schema ``Parser(schema=)`` takes: the
    answer text is then parsed live and checked (:attr:`structured`). Anything else for either
    is a ``TypeError`` that names it. ``repair``: as ``Parser(repair=)``, for the tool inputs
    and the structured output (``True``: every repair; ``ToolInput.repairs`` lists them).

    Subclasses set :attr:`protocol`, define :meth:`looks_like`, set up their state in
    ``_begin()``, and dispatch the events they know through the table ``_HANDLERS`` (event
    type to handler). An accumulator holds its parts: the reader of an event's fields
    (``_fields``, an :class:`EventFields`: the handlers call its checks,
    ``self._fields.string(...)``) and its schema side (``_side``, a
    :class:`SchemaSide`, which an event's updates go through only given a schema).
    """

    #: The protocol's name, the key of this class in :data:`PROTOCOLS`.
    protocol: ClassVar[str] = ""
    #: Event types allowed before the stream has started, and the one that starts it.
    _OPENERS: ClassVar[frozenset[str]] = frozenset()
    _FIRST: ClassVar[str] = ""
    #: The types of the SDK's own helper events, which repeat what the wire said: skipped.
    _SDK_HELPERS: ClassVar[frozenset[str]] = frozenset()
    #: SDK helper events that wrap a wire event, by type: the attribute holding it.
    _SDK_WRAPPERS: ClassVar[Mapping[str, str]] = {}
    #: The protocol's event types and their handlers.
    _HANDLERS: ClassVar[Mapping[str, Callable[..., list[Update]]]] = {}
    #: How a request asks for a streamed answer (said when a body is a reply that was not).
    _STREAM_REQUEST: ClassVar[str] = "stream=True"
    #: Whether the answer is per choice (the ``index`` of its updates; an update ``"finish"``
    #: ends the choice's answer), rather than one per stream.
    _PER_CHOICE: ClassVar[bool] = False

    def __init__(
        self, *, tools: Any = None, output_schema: Any = None, repair: Any = False
    ) -> None:
        #: How many events were applied (SDK helper events and rejected events not counted).
        self.events = 0
        self._fields = EventFields()
        self._repair = repairs_of(repair) or False
        self._tools: dict[int, ToolInput] = {}  # by the place of their block or item
        self._done = False
        self._closed = False
        self._nothing: str | None = None  # what the body read was, if it brought no event
        self._refused: str | None = None  # why close() refused a stream that brought no event
        self._kind = ""  # the type of the event being applied, for error messages
        # A hot event that may come again (see _hot): its string's place, its chunk's bytes.
        self._span: tuple[int, int] | None = None
        self._lead: bytes | None = None
        self._tail = b""
        #: The compiled schema of each tool, by name (from ``tools=``; each keeps the keywords
        #: it does not check in ``unchecked``).
        self.schemas: ToolSchemas = tool_schemas(tools)
        fmt = output_schema_of(output_schema)
        self._side = SchemaSide(fmt, repair=self._repair, per_choice=self._PER_CHOICE)
        self._checking = bool(self.schemas) or fmt is not None
        self._begin()

    def _begin(self) -> None:
        """Set up the protocol's own state."""

    def __repr__(self) -> str:
        state = "closed" if self._closed else "done" if self.done else "open"
        return f"<{type(self).__name__} {state}, {self.events} events, {len(self.tools)} tools>"

    # ------------------------------------------------------------------ what a protocol defines

    @classmethod
    def looks_like(cls, data: Mapping[str, Any]) -> bool:
        """Whether a decoded event can only belong to this protocol."""
        raise NotImplementedError

    @property
    def result(self) -> dict[str, Any] | None:
        """What the stream built so far: the message, completion or response, a plain dict in
        the API's shape (``None`` before the stream says what it is)."""
        raise NotImplementedError

    @property
    def tools(self) -> Mapping[int, ToolInput]:
        """The streamed tool inputs, keyed as the protocol documents (by default, by the place
        of their block or item)."""
        return self._tools

    def _started(self) -> bool:
        """Whether the stream has begun (its first event has made the result)."""
        return self.result is not None

    def _blocks(self) -> list[dict[str, Any]]:
        """The list of blocks or items that ``_tools`` is keyed by places in."""
        raise NotImplementedError

    def _tool_blocks(self) -> Iterator[tuple[ToolInput, dict[str, Any] | None]]:
        """Every tool input with the block, call or item it belongs to."""
        if not self._tools:
            return  # (nor, maybe, any blocks yet)
        blocks = self._blocks()
        for index, tool in self._tools.items():
            yield tool, blocks[index] if index < len(blocks) else None

    def _done_marker(self) -> list[Update]:
        raise StreamError(f"a [DONE] marker, which the {self.protocol} protocol does not send")

    # ------------------------------------------------------------------ the contract

    def tool_calls(self) -> list[ToolInput]:
        """The streamed tool inputs, in the order of their calls."""
        tools = self.tools
        return [tools[key] for key in sorted(tools)]

    @property
    def structured(self) -> StructuredOutput | None:
        """The structured output: the answer text parsed live as JSON and checked against
        ``output_schema=`` (``None`` without one). For Chat Completions, choice 0's."""
        return self._side.outputs.get(0)

    def structured_output(self, choice: int = 0) -> StructuredOutput | None:
        """The structured output of a Chat Completions choice (``n`` > 1), once its answer has
        begun (choice 0's from the start); the other protocols have one, choice 0."""
        return self._side.outputs.get(choice)

    @property
    def done(self) -> bool:
        """Whether the stream said it is over (its last event has arrived)."""
        return self._done

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called."""
        return self._closed

    def feed(self, event: Mapping[str, Any] | ServerSentEvent | str | Any) -> list[Update]:
        """Take one event: a decoded event (a mapping), an SDK event object, a
        :class:`~jsonsnap.sse.ServerSentEvent`, or the ``"[DONE]"`` marker. Returns what it
        did. Raises :class:`StreamError` for an error the stream reports and for an event that
        is malformed, out of order or after the end, leaving the result as it was."""
        data = self._data_of(event)
        if data is None:
            return []  # an SDK helper event: the wire said nothing new
        return self._apply(data)

    def _apply(self, data: Mapping[str, Any] | str) -> list[Update]:
        """Apply an event's data (of our own: decoded, or copied from the caller's)."""
        if self._closed:
            raise StreamError("an event after close()")
        self._lead = None  # (the state a hot event was read in may change)
        updates = self._done_marker() if data is DONE else self._event(data)  # type: ignore[arg-type]
        return self._applied(updates)

    def _applied(self, updates: list[Update]) -> list[Update]:
        """An event was applied, with these updates: counted, and checked against the
        schemas (given some)."""
        self.events += 1
        return self._side.check(updates, self.done) if self._checking else updates

    def _sse_updates(self, kind: str, text: str) -> list[Update]:
        """The updates of a server-sent event of a body (of type ``kind``, its data
        ``text``): its hot form's (:meth:`_hot`), or its data's, decoded and applied."""
        self._span = None
        self._lead = None  # (kept again by the loop, after a hot event: see _keep)
        updates = self._hot(text)
        if updates is not None:
            return updates
        data = self._sse_data(kind, text)
        return [] if data is None else self._apply(data)

    def _hot(self, text: str) -> list[Update] | None:
        """The updates of an event whose data ``text`` has the protocol's hot form (its
        commonest event, read in one look, with no whole decoding of its envelope), applied;
        or ``None``, and nothing done: the event goes the general way. Invariant: an event
        read here does exactly what the general way would do (the same updates and state,
        counted and checked by :meth:`_applied`); one that would fail is ``None`` here.

        Such an event may come again, the same but for its one string (a block's deltas):
        ``_hot`` sets ``_span`` (the string's text in ``text``) and applies it by
        :meth:`_repeat`; the body's loop keeps the bytes around it (:meth:`_keep`; dropped by
        any other event and ``close()``), and gives a chunk's that has them to _repeat."""
        return None

    def _repeat(self, piece: str) -> list[Update]:
        """The last event :meth:`_hot` read, with the string ``piece``, applied."""
        raise NotImplementedError

    def _repeated(self, chunk: bytes, sse: SSEDecoder) -> str | None:
        """The string of a chunk that is the last hot event again (``None``: not one)."""
        middle = None if self._lead is None else sse._again(chunk, self._lead, self._tail)
        return string_body(middle) if middle else None

    def _keep(self, item: Any, text: str, sse: SSEDecoder | None) -> None:
        """A hot event of ``item`` (data ``text``): its chunk's bytes, if read whole, kept."""
        span = self._span
        if span is not None and sse is not None and type(item) is bytes:
            self._lead, self._tail = sse._frame(item, text, *span)

    def close(self) -> list[Update]:
        """End the stream: each tool input (and structured output) still streaming becomes
        ``"incomplete"`` (its snapshot and raw text kept), with one last :class:`Update`
        (event ``"close"``) each. Later events raise :class:`StreamError`; calling it again
        does nothing.

        A stream that brought no event at all is not an answer: ``close()`` then raises
        :class:`StreamError` (and again if called again), saying what the body was when
        ``read()`` or ``updates()`` read it (empty, a JSON reply that was not streamed, an
        error page...)."""
        if self._closed:
            if self._refused is not None:
                raise StreamError(self._refused)
            return []
        self._closed = True
        self._lead = None
        updates = []
        for tool, block in list(self._tool_blocks()):
            if not tool.ended:
                tool._cut()
                updates.append(Update("close", tool.index, block, tool=tool))
        for output in self._side.outputs.values():
            if not output.ended:
                output._cut()
                updates.append(Update("close", output.choice, structured=output))
        if not self.events:
            self._refused = self._nothing or (
                "the stream ended before its first event: its body was empty, or not an event "
                "stream"
            )
            raise StreamError(self._refused)
        return updates

    def updates(self, body: bytes | str | Iterable[Any]) -> Iterator[Update]:
        """What each event of a body does: ``body`` is the HTTP body of an event stream (its
        chunks, as ``response.iter_bytes()`` gives them, or the whole of it as ``bytes`` or
        ``str``), or an iterable of events (the SDK's stream). Closes the stream at its end,
        and when the body fails (its iterable raises, as boto3's stream does for an exception
        event, or its framing is broken): the exception goes on, and a tool input cut short is
        ``"incomplete"``. (An error an event reports raises :class:`StreamError` as
        ``feed()`` does, and leaves the stream open.) A body that brings no event is refused
        with a :class:`StreamError` that says what it is."""
        return self._read(body, "updates")

    def _body_decoder(self) -> BodyDecoder:
        """What turns the chunks of a body into events (``feed(chunk)`` and ``close()``, each a
        list of events for :meth:`feed`): server-sent events, unless the protocol says
        otherwise (a binary framing)."""
        return SSEDecoder()

    def _read(self, body: bytes | str | Iterable[Any], name: str) -> Iterator[Update]:
        # A wrong body is refused at the call, not at the first next().
        items = body_items(body, name)
        return self._body_updates(items, self._body_decoder(), BodyHead())

    def _body_updates(
        self, items: Iterable[Any], decoder: BodyDecoder, seen: BodyHead
    ) -> Iterator[Update]:
        """What :meth:`updates` yields: the events of each item of a body (a chunk decoded, or
        an event) applied, then the decoder's last ones, and the end. Taking an item and
        decoding it is what may fail as the body itself fails (its iterable or its decoder
        raises): the stream is then ended first (:meth:`_body_failed`); an event's own error is
        ``feed()``'s, and leaves the stream open, as ``feed()`` does. (One generator, with
        nothing between it and the body: it runs for every event.)"""
        sse = self._pairs_of(decoder)
        events: list[Any]
        try:
            iterator = iter(items)
        except BaseException as exc:
            self._body_failed(exc, seen)
        ended = False
        again: str | None = None  # the string of a chunk that repeats the last hot event
        while not ended:
            try:
                item = next(iterator, _END)
                if sse is not None and type(item) is bytes:  # (the commonest item)
                    if self._lead is not None:  # the last hot event again?
                        again = self._repeated(item, sse)
                    if again is None:  # (else the body has brought events: not seen)
                        seen.see(item)
                        pairs, events = True, sse._pairs(item)
                elif item is not _END:
                    pairs, events = item_events(item, decoder, sse, seen)
                else:  # the body is over: the decoder's last events
                    ended = seen.ended = True
                    pairs = sse is not None
                    events = [*(sse._close(True) if sse is not None else decoder.close())]
            except BaseException as exc:
                self._body_failed(exc, seen)
            if again:  # (applied here: an event's own error is feed()'s)
                yield from self._repeat(again)
                again = None
            elif pairs:  # (type, data) of server-sent events, decoded and applied at once
                for kind, text in events:
                    updates = self._sse_updates(kind, text)
                    if self._span is not None:  # (a hot event: kept if read whole)
                        self._keep(item, text, sse)
                    yield from updates
            else:
                for event in events:
                    yield from self.feed(event)
        yield from self._ended(seen)

    def aupdates(
        self, body: bytes | str | AsyncIterable[Any] | Iterable[Any]
    ) -> AsyncIterator[Update]:
        """:meth:`updates` for an async body (``aiter_bytes()``, the SDK's async stream); a
        synchronous one is taken too."""
        items = body if isinstance(body, AsyncIterable) else as_async(body_items(body, "aupdates"))
        return aupdates(self, items, self._body_decoder(), BodyHead())

    def _pairs_of(self, decoder: BodyDecoder) -> SSEDecoder | None:
        """The decoder, if a body's server-sent events go from it straight to :meth:`_sse_data`
        as ``(type, data)`` pairs (no :class:`ServerSentEvent` made): unless the class reads
        one in a ``_data_of()`` of its own (and not in an ``_sse_data()`` of its own)."""
        if type(decoder) is not SSEDecoder:
            return None
        pairs = _PAIRS.get(type(self))
        if pairs is None:  # (found once per class)
            mro = type(self).__mro__
            data_of = next(cls for cls in mro if "_data_of" in cls.__dict__)
            sse_data = next(cls for cls in mro if "_sse_data" in cls.__dict__)
            pairs = _PAIRS[type(self)] = data_of is Accumulator or sse_data is not Accumulator
        return decoder if pairs else None

    def _ended(self, seen: BodyHead) -> list[Update]:
        """The body is over: close the stream (refused, saying what the body is, if it brought
        no event)."""
        if not self.events:
            self._nothing = seen.refusal(self._STREAM_REQUEST)
        return self.close()

    def _body_failed(self, exc: BaseException, seen: BodyHead) -> NoReturn:
        """Reading a body, it raised ``exc`` (its iterable, as boto3's does for an exception
        event, or its decoder): close the stream, so that a tool input cut short is
        ``"incomplete"``, not ``"streaming"`` for ever, and let the exception go on; but a
        decoder's error before any event, in a body that is plainly something else (a JSON
        reply, a page), is replaced by what the body is. (A caller that stops reading,
        ``GeneratorExit``, has not ended the stream.)"""
        if isinstance(exc, GeneratorExit):
            raise exc
        if self.events:
            self.close()
            raise exc
        said = self._nothing = seen.refusal(self._STREAM_REQUEST)
        with contextlib.suppress(StreamError):  # (no event: the error that stops it says more)
            self.close()
        if isinstance(exc, StreamError) and seen.kind() != "text":
            raise caused(StreamError(said), exc)
        raise exc

    def read(self: A, body: bytes | str | Iterable[Any]) -> A:
        """Read a whole body (as :meth:`updates` takes it) and close the stream; returns the
        accumulator."""
        for _ in self._read(body, "read"):
            pass
        return self

    # ------------------------------------------------------------------ events in

    def _data_of(self, event: Any) -> Mapping[str, Any] | str | None:
        """The event as a mapping of our own (never the caller's), the marker, or ``None`` for
        an SDK helper event."""
        if isinstance(event, Mapping):
            data: Mapping[str, Any] = copy_data(event)
            return data
        if isinstance(event, ServerSentEvent):
            return self._sse_data(event.event, event.data)
        if isinstance(event, str) and event.strip() == DONE:
            return DONE
        return self._sdk_data(event)

    def _sdk_data(self, event: Any) -> Mapping[str, Any] | None:
        """An SDK's event object (anything that is no mapping, server-sent event or marker) as
        a mapping of our own, or ``None`` for an SDK helper event."""
        kind = getattr(event, "type", None)
        if isinstance(kind, str) and not isinstance(event, CHUNK_TYPES):
            if kind in self._SDK_HELPERS:
                return None
            if kind in self._SDK_WRAPPERS:
                event = getattr(event, self._SDK_WRAPPERS[kind])
        dumped = dump_event(event)
        if not isinstance(dumped, Mapping):
            raise TypeError(f"{self._what()} not {describe(event)}{misuse_hint(event)}")
        return dumped if isinstance(dumped, dict) else copy_data(dumped)

    def _sse_data(self, event: str, data: str) -> Mapping[str, Any] | str | None:
        """The data of a server-sent event of type ``event``, decoded (see
        :func:`~jsonsnap._streams.envelope.sse_data`), or ``None`` for nothing to apply."""
        return sse_data(event, data)

    def _what(self) -> str:
        marker = ', or "[DONE]"' if self.protocol == "chat" else ""
        return (
            f"{type(self).__name__}.feed() takes one event: a decoded event (a dict), an SDK "
            f"event object or a jsonsnap.sse.ServerSentEvent{marker};"
        )

    def _event(self, data: Mapping[str, Any]) -> list[Update]:
        """Dispatch a decoded event through the handlers' table."""
        started = self._started()
        if not started:
            self._foreign(data)
        kind = self._kind_of(data)
        if self._done and kind != "error":
            raise StreamError(f"{kind} after the end of the stream")
        handler = self._HANDLERS.get(kind)
        if handler is None:
            return [Update(kind)]  # an event type this version does not know
        if not started and kind not in self._OPENERS:
            raise StreamError(f"{kind} before {self._FIRST}")
        self._kind = self._fields.kind = kind
        updates: list[Update] = handler(self, data)
        return updates

    def _kind_of(self, data: Mapping[str, Any]) -> str:
        kind = data.get("type")
        if not isinstance(kind, str):
            raise StreamError(f"an event whose type is {describe(kind)}, not a string")
        return kind

    def _foreign(self, data: Mapping[str, Any]) -> None:
        """Refuse a first event that belongs to another protocol, saying which."""
        other = None if self.looks_like(data) else detect(data)
        if other is not None and other != self.protocol:
            cls: type = PROTOCOLS[other]  # (a class: where it is published)
            raise StreamError(
                f"an event of the {other} protocol, not of {self.protocol}: "
                f"read this stream with {cls.__module__}.{cls.__name__}"
            )

    # ------------------------------------------------------------------ tool inputs

    def _tool(self, index: int, name: str, id: str | None = None) -> ToolInput:
        """A new tool input, to be checked against its tool's schema (if it has one)."""
        return ToolInput(index, name, id, schemas=self.schemas, repair=self._repair)

    def _grow(self, tool: ToolInput, fragment: str) -> bool:
        """Feed a piece of a tool's input; whether its snapshot changed. Refused (before
        anything changes) once the protocol has ended that input."""
        if tool._ended:
            raise StreamError(f"{self._kind}: input for tool call {tool.index} after its end")
        return tool._feed(fragment)

    @staticmethod
    def _end(tool: ToolInput, raw: str | None = None) -> bool | None:
        """The protocol says the input is finished (``raw``: its whole text, when it repeats
        it): parse it strictly. Whether its snapshot changed, or ``None`` if it had ended."""
        if tool.ended:
            return None
        return tool._close(raw)

    @staticmethod
    def _error(
        payload: Mapping[str, Any], default: str | None = None, message: str = ""
    ) -> StreamError:
        """The error a stream reports, from any protocol's payload (see ``error_from``)."""
        return error_from(payload, default, message)


setattr(Accumulator, "__module__", "jsonsnap.streams")  # noqa: B010 (a compiled class too)
