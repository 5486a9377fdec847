"""Rebuild AWS Bedrock streams, with live tool-input snapshots: ``ConverseStream``, and
``InvokeModelWithResponseStream`` for Anthropic models.

Bedrock streams its responses in the binary AWS event stream framing
(``application/vnd.amazon.eventstream``), not server-sent events: :class:`EventStreamDecoder`
(sans-IO, split-safe at any byte, every CRC and length checked) turns the raw HTTP body into
:class:`EventStreamMessage` objects, each with its headers (``:event-type``, ``:message-type``
``event`` / ``exception`` / ``error``, ``:exception-type``, ``:content-type``) and payload.
A malformed body is an :class:`EventStreamError` (a :class:`StreamError`) with its offset.

:class:`ConverseStreamAccumulator` (protocol ``"bedrock"``) takes a ``ConverseStream``: the
decoded messages, or the event dicts boto3's ``converse_stream()["stream"]`` yields
(``{"messageStart": {"role": ...}}``, ``{"contentBlockDelta": {"contentBlockIndex": 0,
"delta": {"text": ...}}}``...), and keeps ``.response`` in the shape ``converse()`` returns:
``{"output": {"message": {"role", "content"}}, "stopReason", "usage", "metrics"}`` (and
``additionalModelResponseFields``, ``trace``, ``performanceConfig``, ``serviceTier`` when the
stream has them). The content blocks, by ``contentBlockIndex``:

- ``{"text"}``: ``text`` deltas joined (a block begins with its first delta: the API sends no
  ``contentBlockStart`` for text); with ``citation`` deltas it becomes the API's
  ``{"citationsContent": {"content": [{"text"}], "citations": [...]}}``;
- ``{"toolUse": {"toolUseId", "name", "input"}}``, opened by ``contentBlockStart``: the input
  streams as JSON text in ``toolUse.input`` deltas, parsed live (:class:`ToolInput`, in
  ``.tools[index]``) and strictly at ``contentBlockStop``; a call whose input never received a
  piece is ``{}`` (as the API means it), and a ``toolUse`` delta without its ``input`` is no
  piece at all, never a ``KeyError``;
- ``{"reasoningContent": {"reasoningText": {"text", "signature"}}}`` from ``reasoningContent``
  deltas, or ``{"reasoningContent": {"redactedContent": "<base64>"}}``;
- ``{"toolResult": {"toolUseId", "content": [...]}}`` for a server tool's result, and any other
  block kept as it came.

``messageStop`` brings ``stopReason``, ``metadata`` (after it) the usage and metrics, and
ends the stream. An exception event (``throttlingException``, ``modelStreamErrorException``...)
raises :class:`StreamError` with the exception's name as ``error_type``; so does a message of
type ``error``. Events out of order, after the end, or malformed raise :class:`StreamError`
before anything changes.

:class:`InvokeModelAccumulator` (protocol ``"bedrock-anthropic"``) is the Anthropic
:class:`~jsonsnap.anthropic.MessageAccumulator` for ``InvokeModelWithResponseStream``: each
``chunk`` event carries ``{"bytes": "<base64 of an Anthropic Messages event>"}``, unwrapped and
fed to it; the message is the Anthropic one, and ``invocation_metrics`` keeps what Bedrock adds
to ``message_stop`` (``amazon-bedrock-invocationMetrics``).

Both read a raw HTTP body with ``read()``, ``updates()`` and ``aupdates()`` (bytes only: the
framing is binary), or boto3's event stream (an iterable of event dicts), and keep the contract
of :class:`jsonsnap.streams.Accumulator`. In both, ``tools`` is keyed by content block index
(``contentBlockIndex``, or the Messages event's ``index``): a text block first makes the first
tool ``tools[1]``. ``ConverseStreamAccumulator(tools=)`` takes the request's
``toolConfig["tools"]`` as they are sent.
"""

from __future__ import annotations

from .._eventstream import (
    MAX_HEADERS,
    MAX_PAYLOAD,
    EventStreamDecoder,
    EventStreamError,
    EventStreamMessage,
    HeaderValue,
    Timestamp,
    starts_eventstream,
)
from ..streams import StreamError, ToolInput, ToolInputError, Update
from ._converse import EVENTS as EVENTS
from ._converse import METADATA as METADATA
from ._converse import ConverseStreamAccumulator
from ._converse import accumulate as accumulate
from ._events import EXCEPTIONS as EXCEPTIONS
from ._events import event_of
from ._invoke import InvokeModelAccumulator

__all__ = [
    "MAX_HEADERS",
    "MAX_PAYLOAD",
    "ConverseStreamAccumulator",
    "EventStreamDecoder",
    "EventStreamError",
    "EventStreamMessage",
    "HeaderValue",
    "InvokeModelAccumulator",
    "StreamError",
    "Timestamp",
    "ToolInput",
    "ToolInputError",
    "Update",
    "event_of",
    "starts_eventstream",
]

# The public names are this package's, wherever their code lives (as errors and reprs say).
for _public in (ConverseStreamAccumulator, InvokeModelAccumulator, accumulate, event_of):
    _public.__module__ = __name__
del _public
