"""A sans-IO decoder for the AWS event stream framing (``application/vnd.amazon.eventstream``).

The binary framing AWS streams responses in (Bedrock's ``ConverseStream`` and
``InvokeModelWithResponseStream``, among others). Each message is, all integers big-endian:

====================  =========  ==================================================
field                 size       what it holds
====================  =========  ==================================================
total length          4 bytes    the whole message, these 4 bytes and the CRC included
headers length        4 bytes    the size of the headers section
prelude CRC           4 bytes    CRC32 of the 8 bytes before it
headers               (varies)   name length (u8), name (UTF-8), type (u8), value
payload               (varies)   total length - headers length - 16 bytes
message CRC           4 bytes    CRC32 of everything before it in the message
====================  =========  ==================================================

A header value is one of ten types: ``0`` true and ``1`` false (no bytes), ``2`` byte (i8),
``3`` short (i16), ``4`` integer (i32), ``5`` long (i64), ``6`` bytes (u16 length, then the
bytes), ``7`` string (u16 length, then UTF-8), ``8`` timestamp (i64, milliseconds since the
epoch: :class:`Timestamp`) and ``9`` UUID (16 bytes: :class:`uuid.UUID`).

:class:`EventStreamDecoder` takes a body in whatever chunks arrive and returns the messages each
chunk completes (``feed`` / ``close``, like :class:`jsonsnap.sse.SSEDecoder`). Invariants:

- split-safe: the messages do not depend on where the body was cut;
- linear: the bytes of the unfinished message are kept in one ``bytearray`` that only grows at
  its end, read through an offset, and compacted once per ``feed``; a message is copied and read
  once, when its last byte has arrived (a 16 MiB message fed one byte at a time is not re-read);
- memory follows the input: a length announced in a prelude allocates nothing by itself;
- strict: a bad prelude CRC or message CRC, lengths that do not add up (a total under 16 bytes,
  headers longer than the message has room for), a message over the limits (headers over
  :data:`MAX_HEADERS` bytes, a payload over :data:`MAX_PAYLOAD`: botocore's limits), a header
  that is cut short, of an unknown type, not UTF-8 or named twice, and a partial message left at
  ``close()`` are each an :class:`EventStreamError` (a :class:`jsonsnap.streams.StreamError`)
  that says what and at which byte of the body (the messages a chunk completed before it are
  returned first, and the error raised by the next call); after one, the decoder stays failed:
  every later call raises it again.
"""

from __future__ import annotations

import struct
import uuid
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ._errors import StreamError, mypyc_attr

__all__ = [
    "MAX_HEADERS",
    "MAX_PAYLOAD",
    "EventStreamDecoder",
    "EventStreamError",
    "EventStreamMessage",
    "HeaderValue",
    "Timestamp",
    "starts_eventstream",
]

#: The prelude: total length, headers length, prelude CRC.
PRELUDE = 12
#: The smallest message: a prelude and a message CRC.
MIN_MESSAGE = PRELUDE + 4
#: The most bytes of headers a message may have (botocore's limit, and the AWS CRT's).
MAX_HEADERS = 128 * 1024
#: The largest payload a message may have (botocore's limit).
MAX_PAYLOAD = 24 * 1024 * 1024

_PRELUDE = struct.Struct("!III")
_U32 = struct.Struct("!I")
_U16 = struct.Struct("!H")


@mypyc_attr(native_class=False)  # (a subclass of int: a Python class in both builds)
class Timestamp(int):
    """A header of type timestamp: milliseconds since the Unix epoch (an ``int``, as botocore
    gives it, whose type tells it from a ``long`` header)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"Timestamp({int(self)})"


#: What a header's value may be.
HeaderValue = bool | int | bytes | str | Timestamp | uuid.UUID


class EventStreamError(StreamError):
    """The body is not a well-formed event stream: ``offset`` is the byte of the body where the
    message in question begins (or the broken header, or the end of the body)."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(f"{message} (at byte {offset} of the event stream)")
        self.reason = message
        self.offset = offset

    def __reduce__(self) -> tuple[Any, ...]:
        return EventStreamError, (self.reason, self.offset)


setattr(EventStreamError, "__module__", "jsonsnap.bedrock")  # noqa: B010 (a compiled class too)


@dataclass(frozen=True, slots=True)
class EventStreamMessage:
    """One message of an event stream: its headers by name (in the order they came) and its
    payload; ``offset`` is where it begins in the body."""

    headers: Mapping[str, HeaderValue]
    payload: bytes
    offset: int = 0

    def _text(self, name: str) -> str | None:
        value = self.headers.get(name)
        return value if isinstance(value, str) else None

    @property
    def event_type(self) -> str | None:
        """``:event-type``: the event's name (``"contentBlockDelta"``, ``"chunk"``...)."""
        return self._text(":event-type")

    @property
    def message_type(self) -> str | None:
        """``:message-type``: ``"event"``, ``"exception"`` (a modelled error, named by
        ``:exception-type``) or ``"error"`` (``:error-code``, ``:error-message``)."""
        return self._text(":message-type")

    @property
    def exception_type(self) -> str | None:
        """``:exception-type``: the exception's name, for a message of type ``exception``."""
        return self._text(":exception-type")

    @property
    def content_type(self) -> str | None:
        """``:content-type``: the payload's media type (``"application/json"``)."""
        return self._text(":content-type")

    def __repr__(self) -> str:
        kind = self.event_type or self.exception_type or self.message_type
        return f"<EventStreamMessage {kind!r} at {self.offset}, {len(self.payload)} bytes>"


setattr(EventStreamMessage, "__module__", "jsonsnap.bedrock")  # noqa: B010 (a compiled class too)


def _fixed(fmt: str) -> tuple[int, Callable[[bytes | bytearray | memoryview, int], Any]]:
    packer = struct.Struct(fmt)
    return packer.size, lambda data, at: packer.unpack_from(data, at)[0]


#: The fixed-size header types: their size and how to read them.
_FIXED = {2: _fixed("!b"), 3: _fixed("!h"), 4: _fixed("!i"), 5: _fixed("!q"), 8: _fixed("!q")}


def starts_eventstream(data: bytes | bytearray | memoryview) -> bool:
    """Whether ``data`` (at least 12 bytes) begins with an event stream prelude that checks out:
    its CRC is right and its lengths are possible."""
    if len(data) < PRELUDE:
        return False
    total, headers, crc = _PRELUDE.unpack_from(data, 0)
    if zlib.crc32(memoryview(data)[:8]) != crc:
        return False
    return bool(total >= MIN_MESSAGE and headers <= min(total - MIN_MESSAGE, MAX_HEADERS))


class EventStreamDecoder:
    """Turn chunks of an event stream body into :class:`EventStreamMessage` objects (see the
    module docstring for the format and the invariants)."""

    __slots__ = ("_buffer", "_failure", "_offset", "_pos", "_total")

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._pos = 0  # where the next message begins in the buffer
        self._offset = 0  # the offset in the body of the buffer's first byte
        self._total: int | None = None  # the checked total length of the message at _pos
        self._failure: EventStreamError | None = None

    @property
    def offset(self) -> int:
        """How many bytes of the body were taken into whole messages."""
        return self._offset + self._pos

    def feed(self, chunk: bytes | bytearray | memoryview) -> list[EventStreamMessage]:
        """Take the next chunk of the body; return the messages it completes, in order."""
        if self._failure is not None:
            raise self._failure
        if not isinstance(chunk, (bytes, bytearray, memoryview)):
            raise TypeError(
                "an event stream is binary: EventStreamDecoder.feed() takes bytes, not "
                f"{type(chunk).__name__}"
            )
        buffer = self._buffer
        buffer += chunk
        messages: list[EventStreamMessage] = []
        try:
            while True:
                available = len(buffer) - self._pos
                total = self._total
                if total is None:
                    if available < PRELUDE:
                        break
                    total = self._total = self._prelude()
                if available < total:
                    break
                messages.append(self._message(total))
                self._pos += total
                self._total = None
        except EventStreamError as exc:
            self._failure = exc
            if not messages:
                raise
            return messages  # the messages before it: the error comes with the next call
        if self._pos:  # compact once per chunk: what is left is less than one message
            del buffer[: self._pos]
            self._offset += self._pos
            self._pos = 0
        return messages

    def close(self) -> list[EventStreamMessage]:
        """The end of the body: a partial message left is an :class:`EventStreamError`."""
        if self._failure is not None:
            raise self._failure
        left = len(self._buffer) - self._pos
        if left:
            what = (
                f"{left} of the {self._total} bytes of a message"
                if self._total is not None
                else f"{left} bytes, less than a message's prelude"
            )
            self._failure = EventStreamError(
                f"the event stream ends inside a message: {what}", self.offset
            )
            raise self._failure
        return []

    # -- one message ---------------------------------------------------------------------

    def _prelude(self) -> int:
        """Check the prelude of the message at ``_pos``; its total length."""
        at = self._pos
        total, headers, crc = _PRELUDE.unpack_from(self._buffer, at)
        offset = self._offset + at
        computed = zlib.crc32(self._buffer[at : at + 8])
        if computed != crc:
            raise EventStreamError(
                f"the prelude CRC is 0x{crc:08x}, computed 0x{computed:08x}", offset
            )
        if total < MIN_MESSAGE:
            raise EventStreamError(
                f"a message of {total} bytes, less than the {MIN_MESSAGE} of its prelude and CRC",
                offset,
            )
        if headers > total - MIN_MESSAGE:
            raise EventStreamError(
                f"{headers} bytes of headers in a message of {total} bytes", offset
            )
        if headers > MAX_HEADERS:
            raise EventStreamError(
                f"{headers} bytes of headers, over the limit of {MAX_HEADERS}", offset
            )
        payload = total - headers - MIN_MESSAGE
        if payload > MAX_PAYLOAD:
            raise EventStreamError(
                f"a payload of {payload} bytes, over the limit of {MAX_PAYLOAD}", offset
            )
        return int(total)

    def _message(self, total: int) -> EventStreamMessage:
        """The whole message at ``_pos``, its CRC checked."""
        at = self._pos
        offset = self._offset + at
        data = self._buffer[at : at + total]  # one copy of the message, read from there on
        (crc,) = _U32.unpack_from(data, total - 4)
        computed = zlib.crc32(memoryview(data)[:-4])
        if computed != crc:
            raise EventStreamError(
                f"the message CRC is 0x{crc:08x}, computed 0x{computed:08x}", offset
            )
        (length,) = _U32.unpack_from(data, 4)
        headers = _headers(data, PRELUDE, PRELUDE + length, offset)
        return EventStreamMessage(headers, bytes(data[PRELUDE + length : total - 4]), offset)


def _headers(data: bytearray, pos: int, end: int, base: int) -> dict[str, HeaderValue]:
    """The headers in ``data[pos:end]``; ``base`` turns a position into an offset in the body."""
    headers: dict[str, HeaderValue] = {}
    while pos < end:
        at = pos
        size = data[pos]
        pos += 1
        if pos + size + 1 > end:
            raise EventStreamError("a header name cut short by the end of the headers", base + at)
        name = _utf8(data[pos : pos + size], "a header name", base + at)
        pos += size
        kind = data[pos]
        pos += 1
        value: HeaderValue
        if kind <= 1:
            value = kind == 0
        elif kind in _FIXED:
            width, read = _FIXED[kind]
            if pos + width > end:
                raise _cut(name, base + at)
            value = read(data, pos)
            if kind == 8:
                value = Timestamp(value)
            pos += width
        elif kind in (6, 7):
            if pos + 2 > end:
                raise _cut(name, base + at)
            (length,) = _U16.unpack_from(data, pos)
            pos += 2
            if pos + length > end:
                raise _cut(name, base + at)
            raw = data[pos : pos + length]
            value = bytes(raw) if kind == 6 else _utf8(raw, f"the header {name!r}", base + at)
            pos += length
        elif kind == 9:
            if pos + 16 > end:
                raise _cut(name, base + at)
            value = uuid.UUID(bytes=bytes(data[pos : pos + 16]))
            pos += 16
        else:
            raise EventStreamError(f"the header {name!r} has the unknown type {kind}", base + at)
        if name in headers:
            raise EventStreamError(f"the header {name!r} appears twice", base + at)
        headers[name] = value
    return headers


def _cut(name: str, offset: int) -> EventStreamError:
    return EventStreamError(f"the value of the header {name!r} is cut short", offset)


def _utf8(raw: bytearray, what: str, offset: int) -> str:
    try:
        return str(raw, "utf-8")
    except UnicodeDecodeError:
        raise EventStreamError(f"{what} is not UTF-8", offset) from None
