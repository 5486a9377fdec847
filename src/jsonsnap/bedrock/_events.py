"""The AWS event stream side of Bedrock: a decoded :class:`EventStreamMessage` as the event
dict boto3 yields, the exceptions a stream may carry, and the reading of what the framing
holds (a JSON payload, a binary field, the one key of an event dict). Both accumulators read
their events through these."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from typing import Any

from .._errors import JSONDecodeError, StreamError
from .._eventstream import EventStreamDecoder, EventStreamMessage
from .._jsontext import describe
from .._streams.body import BodyDecoder
from .._streams.envelope import loads_envelope

#: The exceptions a Bedrock stream may carry (``modelTimeoutException``: InvokeModel's only).
EXCEPTIONS = frozenset(
    {
        "internalServerException",
        "modelStreamErrorException",
        "validationException",
        "throttlingException",
        "serviceUnavailableException",
        "modelTimeoutException",
    }
)


def event_of(message: EventStreamMessage) -> dict[str, Any]:
    """The event a decoded message carries, as boto3 yields it: ``{event type: payload}`` for
    an event, ``{exception type: payload}`` for an exception (the accumulators raise it). A
    message of type ``error`` is raised here as :class:`StreamError` (``:error-code``,
    ``:error-message``); a payload that is not a JSON object is a :class:`StreamError` too.
    Binary fields stay as the wire has them (base64 text), where boto3 decodes them."""
    kind = message.message_type or "event"  # (botocore, too, reads no type as an event)
    if kind == "error":
        code = message.headers.get(":error-code")
        text = message.headers.get(":error-message")
        raise StreamError(
            text if isinstance(text, str) else "an error message without :error-message",
            error_type=code if isinstance(code, str) else "error",
        )
    if kind == "exception":
        name = message.exception_type
    elif kind == "event":
        name = message.event_type
    else:
        raise StreamError(
            f"a message of type {describe(kind)} at byte {message.offset}, not an event, an "
            "exception or an error"
        )
    if name is None:
        raise StreamError(f"an {kind} message without its :{kind}-type header")
    return {name: json_object(message.payload, f"the payload of {name!r}")}


def json_object(payload: bytes, what: str) -> Any:
    """A JSON object from bytes (an empty payload is ``{}``, as botocore reads it), decoded as
    every event's envelope is (:func:`~jsonsnap._streams.envelope.loads_envelope`)."""
    if not payload:
        return {}
    try:
        data = loads_envelope(payload.decode("utf-8"))
    except (UnicodeDecodeError, JSONDecodeError) as exc:
        raise StreamError(f"{what} is not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise StreamError(f"{what} is {describe(data)}, not a JSON object")
    return data


def blob(value: Any, what: str) -> bytes:
    """A binary field: bytes as boto3 gives it, or base64 text as the wire carries it."""
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    if not isinstance(value, str):
        raise StreamError(f"{what} is {describe(value)}, not base64 text or bytes")
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise StreamError(f"{what} is not base64: {describe(value)}") from None


def exception(kind: str, body: Any) -> StreamError:
    """The error an exception event reports."""
    text = body.get("message") if isinstance(body, Mapping) else body
    return StreamError(text if isinstance(text, str) else describe(text), error_type=kind)


def only(data: Mapping[str, Any], what: str) -> str:
    """The one key of an event dict (or of a union member): its name."""
    if len(data) != 1:
        names = ", ".join(describe(key) for key in list(data)[:4])
        raise StreamError(
            f"{what} with {len(data)} members ({names}), not one: "
            "an event dict as boto3 yields it has exactly one"
        )
    (kind,) = data
    if not isinstance(kind, str):
        raise StreamError(f"{what} named {describe(kind)}, not a string")
    return kind


def feed_takes(accumulator: object, events: str) -> str:
    """How the ``TypeError`` of an accumulator's ``feed()`` given something else begins."""
    return f"{type(accumulator).__name__}.feed() takes one event: {events};"


def body_decoder(accumulator: object) -> BodyDecoder:
    """What reads the body of either accumulator (its ``_body_decoder``): the AWS event stream
    framing, binary, so bytes only."""
    return EventStreamDecoder()
