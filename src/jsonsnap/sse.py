"""A sans-IO decoder for Server-Sent Events (the ``text/event-stream`` format), by the WHATWG
HTML standard's "event stream interpretation".

:class:`SSEDecoder` takes the body of a response in whatever chunks arrive, as bytes (UTF-8,
a character may be split across chunks) or text, and returns the events each chunk completes.
It imports nothing from any I/O library; :func:`iter_events` and :func:`aiter_events` are the
thin loops for a synchronous or asynchronous iterable of chunks (an HTTP client's
``iter_bytes()`` / ``aiter_bytes()``).

State carried between chunks, and why:

- the incremental UTF-8 decoder's few bytes of an unfinished character;
- the pieces of the unfinished line, joined once when its end arrives, so one long line
  (a 16 MB ``data:`` line in 4 KiB chunks) is never rescanned;
- ``_after_cr``: a chunk that ends in CR has ended a line, and an LF at the start of the next
  chunk belongs to that line end (CRLF split across chunks is one line end, not two);
- whether the leading byte order mark has been looked for (it may arrive after empty chunks
  or be split across chunks);
- the event being built: its type, its data lines, its ``retry``; and the last event ID,
  which persists from event to event.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

from ._errors import mypyc_attr
from ._jsontext import describe

__all__ = ["SSEDecoder", "ServerSentEvent", "aiter_events", "iter_events"]

# "Lines must be separated by either a U+000D CARRIAGE RETURN U+000A LINE FEED (CRLF) character
# pair, a single U+000A LINE FEED (LF) character, or a single U+000D CARRIAGE RETURN (CR)
# character." Nothing else ends a line (not U+2028, U+0085, form feed...).
_LINE_END = re.compile(r"[\r\n]")
#: The most digits a ``retry`` may have (leading zeros aside) to count.
_RETRY_DIGITS = 15
#: What ``errors=`` takes: what to do with bytes that are not UTF-8.
_ERRORS = ("replace", "strict")
#: The C decoder of UTF-8 (what an incremental decoder calls): ``(text, bytes used)``.
_utf_8_decode = codecs.utf_8_decode


@dataclass(frozen=True, slots=True)
class ServerSentEvent:
    """One dispatched event.

    ``event`` is the event type (``"message"`` when the stream gave none), ``data`` its data
    lines joined with ``"\\n"``, ``id`` the last event ID seen so far in the stream (it
    persists across events, as the standard says), ``retry`` the reconnection time in
    milliseconds given in this event's block, if any.
    """

    event: str = "message"
    data: str = ""
    id: str = ""
    retry: int | None = None


@mypyc_attr(allow_interpreted_subclasses=True)
class SSEDecoder:
    """Turn chunks of an event stream into :class:`ServerSentEvent` objects.

    ``errors`` is what to do with bytes that are not UTF-8: ``"replace"`` (the default, as the
    standard's UTF-8 decode does) puts U+FFFD in their place; ``"strict"`` raises
    ``UnicodeDecodeError``.
    """

    __slots__ = (
        "_after_cr",
        "_bom_checked",
        "_data",
        "_errors",
        "_event",
        "_last_id",
        "_line",
        "_retry",
        "_undecoded",
        "_whole",
        "retry",
    )

    # (Any in the types of what a caller passes: a compiled build would refuse a wrong type
    # with its own message before ours.)
    def __init__(self, *, errors: Literal["replace", "strict"] | Any = "replace") -> None:
        if errors not in _ERRORS:
            wrong = ValueError if isinstance(errors, str) else TypeError
            raise wrong(f"errors is 'replace' or 'strict', not {describe(errors)}")
        self._errors: str = errors
        self._undecoded = b""  # the bytes of a character split across chunks
        self._line: list[str] = []
        self._after_cr = False
        self._bom_checked = False
        self._event = ""
        self._data: list[str] = []
        self._retry: int | None = None
        self._last_id = ""
        # Whether the last chunk was read as one whole event (by the fast path of _pairs(), or
        # by _again()): then nothing is held (no line, data, event type, CR or bytes of a
        # character; the BOM checked). Every other read goes through _read(), which clears it.
        self._whole = False
        #: The last reconnection time the stream set (``retry:``), in milliseconds.
        self.retry: int | None = None

    @property
    def last_event_id(self) -> str:
        """The last event ID the stream set (``id:``), empty if none."""
        return self._last_id

    def feed(self, chunk: bytes | bytearray | memoryview | str) -> list[ServerSentEvent]:
        """Take the next chunk (bytes, or text); return the events it completes, in order."""
        return self._read(self._text(chunk), False)  # type: ignore[return-value]

    def _pairs(self, chunk: bytes | bytearray | memoryview | str) -> list[tuple[str, str]]:
        """:meth:`feed` for a reader of the events' types and data only (the accumulators):
        each event as ``(type, data)``, with no :class:`ServerSentEvent` made. The decoder's
        state (the last event ID, ``retry``) is kept as :meth:`feed` keeps it."""
        text = self._decode(chunk, False) if type(chunk) is bytes else self._text(chunk)
        if self._data or self._line or self._event or self._after_cr or not self._bom_checked:
            return self._read(text, True)  # type: ignore[return-value]
        # Nothing held before the chunk: if it is one whole event of the commonest form (an
        # event: line, one data: line, the blank line; no CR), its pair is read here, as
        # _read() would read it (which reads anything else).
        end = len(text) - 2
        if end < 5 or not text.endswith("\n\n") or "\r" in text:
            return self._read(text, True)  # type: ignore[return-value]
        kind = "message"
        at = 0
        if text.startswith("event:"):
            at = text.find("\n") + 1
            kind = text[7 if text.startswith(" ", 6) else 6 : at - 1] or kind
        if not text.startswith("data:", at) or text.find("\n", at, end) >= 0:
            return self._read(text, True)  # type: ignore[return-value]
        self._retry = None  # (what a dispatch does)
        self._whole = True
        return [(kind, text[at + 6 if text.startswith(" ", at + 5) else at + 5 : end])]

    def _frame(self, chunk: bytes, data: str, start: int, stop: int) -> tuple[bytes | None, bytes]:
        """The bytes of ``chunk`` before ``data[start]`` and from ``data[stop]`` on, when
        :meth:`_pairs` has just read it as one whole event whose data is ``data`` (and it is
        ASCII, so that a character is a byte); else ``(None, b"")``. What :meth:`_again`
        takes."""
        if not self._whole or not chunk.isascii():
            return None, b""
        at = len(chunk) - 2 - len(data)  # (the data line ends the chunk, before "\n\n")
        return chunk[: at + start], chunk[at + stop :]

    def _again(self, chunk: bytes, lead: bytes, tail: bytes) -> str | None:
        """If ``chunk`` is an event framed as the one :meth:`_frame` gave ``lead`` and
        ``tail`` of (the same lines around its data's text from ``start`` to ``stop``), with
        nothing held before it: the text between them, the event read (the decoder's state as
        :meth:`_pairs` leaves it). Else ``None``, and nothing done.

        Invariant: :meth:`_pairs` reads such a chunk as one event, of the same type, whose data
        is the data it was framed from with this text from ``start`` to ``stop``: ``lead`` and
        ``tail`` hold the event's lines but for that part of its data line (and no CR), which
        the text, with no line end in it, does not end."""
        if not self._whole:  # (else nothing is held: see _whole)
            return None
        size = len(chunk) - len(tail)
        if size < len(lead) or not chunk.startswith(lead) or not chunk.endswith(tail):
            return None
        try:
            text = chunk[len(lead) : size].decode("ascii")
        except UnicodeDecodeError:
            return None
        if "\n" in text or "\r" in text:
            return None
        self._retry = None  # (what a dispatch does)
        return text

    def _text(self, chunk: bytes | bytearray | memoryview | str) -> str:
        if isinstance(chunk, str):
            return chunk
        if isinstance(chunk, (bytes, bytearray, memoryview)):
            return self._decode(chunk, False)
        raise TypeError(f"SSEDecoder.feed() takes bytes or str, not {describe(chunk)}")

    def _decode(self, chunk: bytes | bytearray | memoryview, final: bool) -> str:
        """The text of the next bytes, as an incremental UTF-8 decoder gives it (the bytes of
        a character they end inside are held for the next chunk), with no decoder object in
        between."""
        held = self._undecoded
        data = held + chunk if held else chunk
        text, used = _utf_8_decode(data, self._errors, final)
        self._undecoded = bytes(data[used:]) if used != len(data) else b""
        return text

    def close(self) -> list[ServerSentEvent]:
        """End of the stream: an unterminated last line and an undispatched event are dropped,
        as the standard says. Returns the events the decoder's last bytes complete (none, but
        for a stream whose last line end was held in the decoder)."""
        events = self._close(False)
        return events  # type: ignore[return-value]

    def _close(self, pairs: bool) -> list[ServerSentEvent] | list[tuple[str, str]]:
        """:meth:`close`, its events as :meth:`_pairs` gives them when ``pairs``."""
        events = self._read(self._decode(b"", True), pairs)
        self._line.clear()
        self._after_cr = False
        self._event = ""
        self._data.clear()
        self._retry = None
        return events

    def _split(self, text: str) -> list[str]:
        """The lines ``text`` ends (the first one joined to the pieces held before it); the
        unfinished one after them is held."""
        if not self._bom_checked:
            self._bom_checked = True
            if (
                text[0] == "\ufeff"
            ):  # "One leading U+FEFF BYTE ORDER MARK character must be ignored"
                text = text[1:]
        if self._after_cr:
            self._after_cr = False
            if text[:1] == "\n":
                text = text[1:]
        held = self._line
        if "\r" not in text:  # the commonest chunk: its lines split at once
            lines = text.split("\n")
            if len(lines) == 1:  # no line ends in it: one more piece of the unfinished line
                if text:
                    held.append(text)
                return []
            if held:
                held.append(lines[0])
                lines[0] = "".join(held)
                held.clear()
            last = lines.pop()
            if last:
                held.append(last)
            return lines
        lines = []
        pos = 0
        end = len(text)
        search = _LINE_END.search
        while pos < end:
            m = search(text, pos)
            if m is None:
                held.append(text[pos:])
                break
            stop = m.start()
            if held:
                held.append(text[pos:stop])
                lines.append("".join(held))
                held.clear()
            else:
                lines.append(text[pos:stop])
            pos = stop + 1
            if text[stop] == "\r":
                if pos == end:
                    self._after_cr = True
                elif text[pos] == "\n":
                    pos += 1
        return lines

    def _read(self, text: str, pairs: bool) -> list[ServerSentEvent] | list[tuple[str, str]]:
        """The events the lines of ``text`` complete (as :meth:`_pairs` gives them when
        ``pairs``). The lines every event stream is made of (``data:``, a blank line,
        ``event:``) are read here; the others by :meth:`_line_done`."""
        self._whole = False
        if not text:
            return []
        events: list[ServerSentEvent | tuple[str, str]] = []
        data = self._data
        for line in self._split(text):
            if line.startswith("data:"):
                # "If value starts with a U+0020 SPACE character, remove it"
                data.append(line[6:] if line.startswith(" ", 5) else line[5:])
            elif not line:  # "If the line is empty (a blank line): Dispatch the event"
                kind = self._event or "message"
                self._event = ""
                retry, self._retry = self._retry, None
                if not data:  # "If the data buffer is an empty string, ... return."
                    continue
                joined = "\n".join(data)
                data.clear()
                events.append(
                    (kind, joined) if pairs else ServerSentEvent(kind, joined, self._last_id, retry)
                )
            elif line.startswith("event:"):
                self._event = line[7:] if line.startswith(" ", 6) else line[6:]
            else:
                self._line_done(line)
        return events  # type: ignore[return-value]

    def _line_done(self, line: str) -> None:
        """A line other than ``data:``, ``event:`` or a blank one."""
        if (
            line[0] == ":"
        ):  # "If the line starts with a U+003A COLON character (:): Ignore the line."
            return
        colon = line.find(":")
        if colon < 0:  # "the whole line as the field name, and the empty string as the field value"
            field, value = line, ""
        else:
            field = line[:colon]
            value = line[colon + 1 :]
            if value[:1] == " ":  # "If value starts with a U+0020 SPACE character, remove it"
                value = value[1:]
        if field == "data":
            self._data.append(value)
        elif field == "event":
            self._event = value
        elif field == "id" and "\0" not in value:  # "If the field value does not contain NULL"
            self._last_id = value
        elif field == "retry" and value.isascii() and value.isdigit():  # "only ASCII digits"
            # "interpret the field value as an integer in base ten": one of more than
            # _RETRY_DIGITS digits (over 30,000 years) is not a time anyone waits, and Python
            # would refuse to convert 5,000 of them; it is ignored.
            digits = value.lstrip("0") or "0"
            if len(digits) <= _RETRY_DIGITS:
                self._retry = self.retry = int(digits)
        # "Otherwise: The field is ignored." (and so are an id with NULL and a bad retry)


def iter_events(
    chunks: Iterable[bytes | str], *, errors: Literal["replace", "strict"] = "replace"
) -> Iterator[ServerSentEvent]:
    """The events of a stream given as an iterable of chunks (e.g. ``response.iter_bytes()``)."""
    decoder = SSEDecoder(errors=errors)
    for chunk in chunks:
        yield from decoder.feed(chunk)
    yield from decoder.close()


def aiter_events(
    chunks: AsyncIterable[bytes | str], *, errors: Literal["replace", "strict"] = "replace"
) -> AsyncIterator[ServerSentEvent]:
    """The events of a stream given as an async iterable of chunks (``aiter_bytes()``)."""
    return _AsyncEvents(chunks, errors)


class _AsyncEvents:
    """:func:`aiter_events`: an async iterator written out (mypyc compiles no async generator),
    which, as one, starts (makes its decoder, checking ``errors``) at its first step."""

    __slots__ = ("_chunks", "_decoder", "_errors", "_iterator", "_ready")

    def __init__(self, chunks: AsyncIterable[bytes | str], errors: Any) -> None:
        self._chunks: AsyncIterable[bytes | str] | None = chunks  # (None: all given)
        self._errors = errors
        self._iterator: AsyncIterator[bytes | str] | None = None
        self._decoder = SSEDecoder()
        self._ready: list[ServerSentEvent] = []  # the events decoded and not given, last first

    def __aiter__(self) -> _AsyncEvents:
        return self

    async def __anext__(self) -> ServerSentEvent:
        ready = self._ready
        while not ready:
            if self._chunks is None:
                raise StopAsyncIteration
            iterator = self._iterator
            if iterator is None:  # the first step
                self._decoder = SSEDecoder(errors=self._errors)
                iterator = self._iterator = self._chunks.__aiter__()
            try:
                chunk = await iterator.__anext__()
            except StopAsyncIteration:
                self._chunks = None
                ready += self._decoder.close()
            except BaseException:
                self._chunks = None  # (over, as a generator is once it raises)
                raise
            else:
                ready += self._decoder.feed(chunk)
            ready.reverse()
        return ready.pop()
