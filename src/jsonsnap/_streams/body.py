"""A body: what ``read()``, ``updates()`` and ``aupdates()`` take, and what it is when it
brings no event.

- :class:`BodyDecoder`: the shape of what turns a body's chunks into events (``feed(chunk)``
  and ``close()``, as :class:`jsonsnap.sse.SSEDecoder`);
- :func:`body_items`: the chunks or events of a body (``TypeError`` for anything else);
- :class:`BodyHead` and :func:`body_kind`: the first bytes of a body and its size, kept as its
  chunks go by, and what they say it is (empty, a JSON reply that was not streamed, an error
  page, a file's name...), for the error of a body that is no event stream.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from types import GeneratorType
from typing import Any, Protocol

from .._jsontext import describe
from ..sse import ServerSentEvent, SSEDecoder

#: What a body's chunks may be (anything else in a body is an event).
CHUNK_TYPES = (bytes, bytearray, memoryview, str)


class BodyDecoder(Protocol):
    """An incremental decoder of a body's chunks into events (``SSEDecoder``'s shape)."""

    def feed(self, chunk: Any) -> list[Any]: ...

    def close(self) -> list[Any]: ...


#: How many of a body's first bytes are kept, to say what it is when it brings no event.
BODY_HEAD = 512
#: A body that names a file (or an address) rather than holding one: one word, with a separator
#: in it or an extension at its end.
_PATHLIKE = re.compile(rb"\S*(?:[/\\]\S*|\.[A-Za-z0-9]{1,8})")


def body_kind(head: bytes, size: int) -> str:
    """What a body that brought no event is, from its first bytes (``head``, up to
    :data:`BODY_HEAD` of them) and its size: ``"empty"``, ``"blank"`` (whitespace only),
    ``"object"`` or ``"array"`` (JSON: a reply that was not streamed), ``"html"`` (markup: an
    error page), ``"path"`` (one short line that names a file), or ``"text"``. The
    accumulators' ``read()`` and the command line both say what a body is from this."""
    if size == 0:
        return "empty"
    start = head.removeprefix(b"\xef\xbb\xbf").lstrip(b" \t\r\n")
    whole = size <= len(head)
    if not start:
        return "blank" if whole else "text"
    first = start[:1]
    if first in b"{[<":
        return "object" if first == b"{" else "array" if first == b"[" else "html"
    if whole and _PATHLIKE.fullmatch(start.rstrip(b" \t\r\n")):
        return "path"
    return "text"


class BodyHead:
    """The first bytes of a body and its size, kept as its chunks go by (a few hundred bytes at
    most: the body is never buffered), to say what it is if it brings no event. (So a chunk
    read once the body has brought an event need not be seen: ``updates()`` does not show it
    the chunks it reads again as the last hot event.)"""

    __slots__ = ("ended", "head", "size")

    def __init__(self) -> None:
        self.head = b""
        self.size = 0
        self.ended = False  # whether the body's last chunk has been seen

    def kind(self) -> str:
        """What the body is (:func:`body_kind`), as far as its bytes so far tell: a body
        refused before its end is not known to be empty, blank or a file's name."""
        kind = body_kind(self.head, self.size)
        return kind if self.ended or kind not in ("empty", "blank", "path") else "text"

    def see(self, chunk: bytes | str) -> None:
        """Take the next chunk (its size; its bytes, while the head is not full)."""
        if self.size < BODY_HEAD:
            piece = chunk[:BODY_HEAD]
            raw = piece.encode("utf-8", "replace") if isinstance(piece, str) else piece
            self.head = (self.head + raw)[:BODY_HEAD]
        self.size += len(chunk)

    def refusal(self, request: str) -> str:
        """Why the body is not an event stream, for a :class:`StreamError` (``request``: how a
        streamed answer is asked for, ``stream=True``)."""
        kind = self.kind()
        if kind == "empty":
            return "the body is empty: the stream brought no event"
        if kind == "blank":
            return "the body is only whitespace: the stream brought no event"
        if kind == "object":
            return (
                "the body is a JSON object, not an event stream: was the request made with "
                f"{request}?"
            )
        if kind == "array":
            return (
                "the body is a JSON array, not an event stream: was the request made with "
                f"{request}? (Gemini's streamGenerateContent answers with an array without "
                "alt=sse)"
            )
        if kind == "html":
            return (
                "the body is HTML, not an event stream: an error page? (look at the response's "
                "status)"
            )
        text = self.head.decode("utf-8", "replace")
        if kind == "path":
            return (
                f"the body is the text {describe(text.strip())}, not an event stream: read() and "
                "updates() take the body itself (its bytes or chunks), not a file's name "
                "(open(path, 'rb').read())"
            )
        return (
            "the body is not an event stream: it has no data: lines (it begins with "
            f"{describe(text.lstrip()[:40])})"
        )


def item_events(
    item: Any, decoder: BodyDecoder, sse: SSEDecoder | None, seen: BodyHead
) -> tuple[bool, list[Any]]:
    """The events of an item of a body, and whether they are ``(type, data)`` pairs (``sse``:
    the decoder, when its events go as pairs): a chunk's, decoded (and seen), or the item."""
    if isinstance(item, CHUNK_TYPES):
        chunk = item if isinstance(item, (bytes, str)) else bytes(item)
        seen.see(chunk)
        if sse is not None:
            return True, sse._pairs(chunk)
        return False, decoder.feed(chunk)
    return False, [item]


def body_items(body: Any, name: str) -> Iterable[Any]:
    """The chunks or events of a body given to ``name()``; ``TypeError`` for anything else."""
    kind = type(body)
    if kind is list or kind is tuple or kind is GeneratorType:  # (the commonest: at once)
        return body  # type: ignore[no-any-return]
    if isinstance(body, CHUNK_TYPES):
        return (body,)
    if isinstance(body, Iterable) and not isinstance(body, Mapping):
        return body
    raise TypeError(
        f"{name}() takes the body of an event stream: bytes, str, or an iterable of its chunks "
        f"(response.iter_bytes()) or of events (the SDK's stream); not {describe(body)}"
        + (" (for one event, use feed())" if isinstance(body, (Mapping, ServerSentEvent)) else "")
    )


def misuse_hint(event: Any) -> str:
    """What to do instead of passing ``event`` to ``feed()``."""
    if isinstance(event, str):
        return ": decode the event's data first, or pass the ServerSentEvent"
    if isinstance(event, CHUNK_TYPES):
        return ": the bytes of a body go to read() or updates()"
    return ""
