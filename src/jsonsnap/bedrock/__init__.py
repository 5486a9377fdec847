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
of :class:`jsonsnap.streams.Accumulator`.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Iterable, Mapping
from typing import Any, ClassVar

from .. import JSONDecodeError, loads
from .._errors import describe
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
from .._streams.body import BodyDecoder
from ..anthropic import MessageAccumulator
from ..streams import Accumulator, StreamError, ToolInput, ToolInputError, Update

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

#: The events of a ``ConverseStream``.
EVENTS = frozenset(
    {
        "messageStart",
        "contentBlockStart",
        "contentBlockDelta",
        "contentBlockStop",
        "messageStop",
        "metadata",
    }
)
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
#: The fields of ``metadata`` kept in the response (``p``, Bedrock's padding, is not).
METADATA = ("usage", "metrics", "trace", "performanceConfig", "serviceTier")


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
    return {name: _json_object(message.payload, f"the payload of {name!r}")}


def _json_object(payload: bytes, what: str) -> Any:
    """A JSON object from bytes (an empty payload is ``{}``, as botocore reads it)."""
    if not payload:
        return {}
    try:
        data = loads(payload.decode("utf-8"))  # our parser: no recursion, however deep
    except (UnicodeDecodeError, JSONDecodeError) as exc:
        raise StreamError(f"{what} is not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise StreamError(f"{what} is {describe(data)}, not a JSON object")
    return data


def _blob(value: Any, what: str) -> bytes:
    """A binary field: bytes as boto3 gives it, or base64 text as the wire carries it."""
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    if not isinstance(value, str):
        raise StreamError(f"{what} is {describe(value)}, not base64 text or bytes")
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise StreamError(f"{what} is not base64: {describe(value)}") from None


def _exception(kind: str, body: Any) -> StreamError:
    """The error an exception event reports."""
    text = body.get("message") if isinstance(body, Mapping) else body
    return StreamError(text if isinstance(text, str) else describe(text), error_type=kind)


def _only(data: Mapping[str, Any], what: str) -> str:
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


class ConverseStreamAccumulator(Accumulator):
    """Accumulate one Bedrock ``ConverseStream`` into ``.response`` (see the module docstring).

    ``tools`` is keyed by content block index (a text block first makes the first tool
    ``tools[1]``); ``tool_calls()`` lists them in order. ``tools=`` takes the request's
    ``toolConfig["tools"]`` (``{"toolSpec": {"name", "inputSchema": {"json": schema}}}``) as
    well as the other providers' shapes; ``output_schema=``: see
    :class:`jsonsnap.streams.Accumulator`.
    """

    protocol = "bedrock"
    _OPENERS = frozenset({"messageStart", *EXCEPTIONS})
    _FIRST = "messageStart"
    _STREAM_REQUEST = "converse_stream() (not converse())"

    def __init__(
        self, *, tools: Any = None, output_schema: Any = None, repair: Any = False
    ) -> None:
        super().__init__(tools=_tool_specs(tools), output_schema=output_schema, repair=repair)

    def _begin(self) -> None:
        #: The response so far, in the shape of ``converse()`` (``None`` before messageStart).
        self.response: dict[str, Any] | None = None
        #: The message (``response["output"]["message"]``).
        self.message: dict[str, Any] | None = None
        self._kinds: list[str] = []  # each block's kind: its key in the content block
        self._open: set[int] = set()  # blocks begun and not stopped
        self._carry: dict[int, bytes] = {}  # redacted bytes not yet in whole base64 groups
        self._stopped = False  # messageStop has come
        self._metadata = False  # metadata has come

    @classmethod
    def looks_like(cls, data: Mapping[str, Any]) -> bool:
        if len(data) != 1:
            return False
        (kind,) = data
        return kind in EVENTS or (kind in EXCEPTIONS and kind != "modelTimeoutException")

    @property
    def result(self) -> dict[str, Any] | None:
        """The response so far (``.response``)."""
        return self.response

    def _blocks(self) -> list[dict[str, Any]]:
        content: list[dict[str, Any]] = self.message["content"]  # type: ignore[index]
        return content

    def _body_decoder(self) -> BodyDecoder:
        return EventStreamDecoder()

    def _what(self) -> str:
        return (
            f"{type(self).__name__}.feed() takes one event: a decoded EventStreamMessage or an "
            "event dict as boto3's converse_stream() yields it;"
        )

    def _data_of(self, event: Any) -> Mapping[str, Any] | str | None:
        if isinstance(event, EventStreamMessage):
            return event_of(event)
        return super()._data_of(event)

    def _kind_of(self, data: Mapping[str, Any]) -> str:
        return _only(data, "an event")

    def close(self) -> list[Update]:
        """End the stream (see :meth:`jsonsnap.streams.Accumulator.close`); a redacted
        reasoning block cut short shows all its bytes."""
        if not self._closed:
            for index in list(self._carry):
                self._flush(index)
        return super().close()

    # -- checks ----------------------------------------------------------------------------

    def _body(self, data: Mapping[str, Any]) -> Mapping[str, Any]:
        return self._mapping(data[self._kind], f"the {self._kind} event")

    def _content(self) -> list[dict[str, Any]]:
        """The blocks, for an event about them: refused after messageStop."""
        if self._stopped:
            raise StreamError(f"{self._kind} after messageStop")
        return self._blocks()

    def _block(self, body: Mapping[str, Any]) -> tuple[int, dict[str, Any]]:
        """The open block an event names."""
        content = self._content()
        index = self._place(body.get("contentBlockIndex"), "block", content, extend=False)
        if index not in self._open:
            raise StreamError(f"{self._kind} for block {index}, which has stopped")
        return index, content[index]

    def _fits(self, index: int, kind: str, *kinds: str) -> None:
        """The block at ``index`` (if there is one yet) is of one of ``kinds``."""
        if index < len(self._kinds) and self._kinds[index] not in kinds:
            raise StreamError(
                f"a {kind} delta for block {index}, a {describe(self._kinds[index])} block"
            )

    def _new(self, index: int, kind: str, block: dict[str, Any]) -> dict[str, Any]:
        """The block at ``index``: the one there, or ``block``, added."""
        content = self._blocks()
        if index < len(content):
            return content[index]
        content.append(block)
        self._kinds.append(kind)
        self._open.add(index)
        return block

    # -- handlers (each checks what it reads, then changes the response) ---------------------

    def _message_start(self, data: Mapping[str, Any]) -> list[Update]:
        if self.message is not None:
            raise StreamError("a second messageStart")
        role = self._opt_str(self._body(data).get("role"), "the role")
        self.message = {"role": role or "assistant", "content": []}
        self.response = {
            "output": {"message": self.message},
            "stopReason": None,
            "usage": None,
            "metrics": None,
        }
        return [Update("messageStart")]

    def _block_start(self, data: Mapping[str, Any]) -> list[Update]:
        body = self._body(data)
        content = self._content()
        index = self._next(body.get("contentBlockIndex"), "block", content)
        start = self._mapping(body.get("start"), "the start")
        kind = _only(start, f"malformed {self._kind} event: a start")
        value = start[kind]
        tool = None
        if kind == "toolUse":
            use = dict(self._mapping(value, "the toolUse start"))
            name = self._opt_str(use.get("name"), "the tool name") or ""
            id_ = self._opt_str(use.get("toolUseId"), "the toolUseId")
            use["input"] = {}
            tool = self._tool(index, name, id_)
            self._tools[index] = tool
            value = use
        elif kind == "toolResult":
            value = {**self._mapping(value, "the toolResult start"), "content": []}
        block = self._new(index, kind, {kind: value})
        return [Update("contentBlockStart", index, block, tool=tool)]

    def _block_delta(self, data: Mapping[str, Any]) -> list[Update]:
        body = self._body(data)
        content = self._content()
        index = self._place(body.get("contentBlockIndex"), "block", content, extend=True)
        if index < len(content) and index not in self._open:
            raise StreamError(f"{self._kind} for block {index}, which has stopped")
        delta = self._mapping(body.get("delta"), "the delta")
        if not delta:  # nothing in it: nothing to do (and no block begun)
            return [Update(self._kind, index if index < len(content) else None)]
        kind = _only(delta, f"malformed {self._kind} event: a delta")
        handler = self._DELTAS.get(kind)
        if handler is None:  # a delta this version does not know: its latest value kept
            self._fits(index, kind, kind)
            block = self._new(index, kind, {})
            block[kind] = delta[kind]
            return [Update(self._kind, index, block, kind)]
        update: Update = handler(self, index, delta[kind])
        return [update]

    def _text_delta(self, index: int, value: Any) -> Update:
        text = self._str(value, "the text")
        self._fits(index, "text", "text", "citationsContent")
        block = self._new(index, "text", {"text": ""})
        if self._kinds[index] == "citationsContent":
            parts = block["citationsContent"]["content"]
            if not parts:
                parts.append({"text": ""})
            target = parts[-1]
        else:
            target = block
        self._check_text(target, "text")
        self._append(target, "text", text)
        return Update(self._kind, index, block, "text", text)

    def _citation_delta(self, index: int, value: Any) -> Update:
        citation = self._mapping(value, "the citation")
        self._fits(index, "citation", "text", "citationsContent")
        block = self._new(index, "citationsContent", {"citationsContent": {"content": []}})
        if self._kinds[index] == "text":  # the first citation: the block becomes the API's
            self._kinds[index] = "citationsContent"
            text = block.pop("text", "")
            block["citationsContent"] = {"content": [{"text": text}] if text else []}
        cited = block["citationsContent"]
        cited.setdefault("citations", []).append(citation)
        return Update(self._kind, index, block, "citation")

    def _tool_delta(self, index: int, value: Any) -> Update:
        use = self._mapping(value, "the toolUse delta")
        fragment = self._opt_str(use.get("input"), "the toolUse input") or ""
        tool = self._tools.get(index)
        if tool is None:
            raise StreamError(
                f"a toolUse delta for block {index}, which no contentBlockStart opened as a tool"
            )
        block = self._blocks()[index]
        changed = self._grow(tool, fragment)
        block["toolUse"]["input"] = tool.snapshot
        return Update(
            self._kind, index, block, "toolUse", tool=tool, fragment=fragment, changed=changed
        )

    def _reasoning_delta(self, index: int, value: Any) -> Update:
        reasoning = self._mapping(value, "the reasoningContent delta")
        text = self._opt_str(reasoning.get("text"), "the reasoning text")
        signature = self._opt_str(reasoning.get("signature"), "the signature")
        redacted = reasoning.get("redactedContent")
        if redacted is not None:
            redacted = _blob(redacted, f"malformed {self._kind} event: the redactedContent")
        self._fits(index, "reasoningContent", "reasoningContent")
        block = self._new(index, "reasoningContent", {"reasoningContent": {}})
        part = block["reasoningContent"]
        said = part.get("reasoningText")
        if (text is not None or signature is not None) and said is None:
            said = part["reasoningText"] = {"text": ""}
        if text is not None:
            self._check_text(said, "text")
            self._append(said, "text", text)
        if signature is not None:
            said["signature"] = signature
        if redacted is not None:
            self._redacted(index, part, redacted)
        return Update(self._kind, index, block, "reasoningContent", text or "", thinking=True)

    def _redacted(self, index: int, part: dict[str, Any], data: bytes) -> None:
        """Redacted reasoning, kept as base64 text that grows in place: whole groups of three
        bytes now, the one or two bytes left over with the next piece or the block's end."""
        data = self._carry.pop(index, b"") + data
        whole = len(data) - len(data) % 3
        if whole < len(data):
            self._carry[index] = data[whole:]
        self._check_text(part, "redactedContent")
        self._append(part, "redactedContent", base64.b64encode(data[:whole]).decode("ascii"))

    def _flush(self, index: int) -> None:
        left = self._carry.pop(index, b"")
        if left:
            part = self._blocks()[index]["reasoningContent"]
            self._append(part, "redactedContent", base64.b64encode(left).decode("ascii"))

    def _result_delta(self, index: int, value: Any) -> Update:
        items = [
            self._mapping(item, "a toolResult part") for item in self._list(value, "the toolResult")
        ]
        if index >= len(self._kinds):
            raise StreamError(
                f"a toolResult delta for block {index}, which no contentBlockStart opened"
            )
        self._fits(index, "toolResult", "toolResult")
        block = self._blocks()[index]
        block["toolResult"]["content"].extend(dict(item) for item in items)
        return Update(self._kind, index, block, "toolResult")

    def _block_stop(self, data: Mapping[str, Any]) -> list[Update]:
        index, block = self._block(self._body(data))
        self._open.discard(index)
        self._flush(index)
        tool = self._tools.get(index)
        changed = False
        if tool is not None:
            changed = bool(self._end(tool))
            block["toolUse"]["input"] = tool.final() if tool.complete else tool.snapshot
        return [Update(self._kind, index, block, tool=tool, changed=changed)]

    def _message_stop(self, data: Mapping[str, Any]) -> list[Update]:
        if self._stopped:
            raise StreamError("a second messageStop")
        body = self._body(data)
        reason = self._opt_str(body.get("stopReason"), "the stopReason")
        response: dict[str, Any] = self.response  # type: ignore[assignment]
        response["stopReason"] = reason
        fields = body.get("additionalModelResponseFields")
        if fields is not None:
            response["additionalModelResponseFields"] = fields
        self._stopped = True
        self._done = self._metadata
        return [Update(self._kind)]

    def _metadata_event(self, data: Mapping[str, Any]) -> list[Update]:
        if self._metadata:
            raise StreamError("a second metadata")
        body = self._body(data)
        for key in ("usage", "metrics"):
            if body.get(key) is not None:
                self._mapping(body[key], f"the {key}")
        response: dict[str, Any] = self.response  # type: ignore[assignment]
        response.update((key, body[key]) for key in METADATA if body.get(key) is not None)
        self._metadata = True
        self._done = self._stopped
        return [Update(self._kind)]

    def _exception_event(self, data: Mapping[str, Any]) -> list[Update]:
        raise _exception(self._kind, data[self._kind])

    _HANDLERS: ClassVar[Mapping[str, Callable[..., list[Update]]]] = {
        "messageStart": _message_start,
        "contentBlockStart": _block_start,
        "contentBlockDelta": _block_delta,
        "contentBlockStop": _block_stop,
        "messageStop": _message_stop,
        "metadata": _metadata_event,
        **dict.fromkeys(EXCEPTIONS, _exception_event),
    }
    _DELTAS: ClassVar[Mapping[str, Callable[..., Update]]] = {
        "text": _text_delta,
        "toolUse": _tool_delta,
        "reasoningContent": _reasoning_delta,
        "citation": _citation_delta,
        "toolResult": _result_delta,
    }


def _tool_specs(tools: Any) -> Any:
    """The Converse API's tool definitions (``toolConfig``, or its ``tools``) in the shape
    ``tools=`` reads; anything else as it is."""
    if isinstance(tools, Mapping) and isinstance(tools.get("tools"), list):
        tools = tools["tools"]
    if not isinstance(tools, list):
        return tools
    specs: list[Any] = []
    for tool in tools:
        spec = tool.get("toolSpec") if isinstance(tool, Mapping) else None
        if isinstance(spec, Mapping):
            schema = spec.get("inputSchema")
            json = schema.get("json") if isinstance(schema, Mapping) else None
            if json is not None:
                specs.append({"name": spec.get("name"), "input_schema": json})
        elif not (isinstance(tool, Mapping) and "cachePoint" in tool):
            specs.append(tool)
    return specs


class InvokeModelAccumulator(MessageAccumulator):
    """Accumulate an ``InvokeModelWithResponseStream`` of an Anthropic model into
    ``.message`` (the Anthropic Messages shape): each ``chunk`` (a decoded
    :class:`EventStreamMessage`, or ``{"chunk": {"bytes": ...}}`` as boto3 yields it) carries
    one Messages event, fed to :class:`~jsonsnap.anthropic.MessageAccumulator`; the Messages
    events themselves are taken too. An exception (a message of type ``exception``, or
    ``{"throttlingException": {...}}``) raises :class:`StreamError`."""

    protocol = "bedrock-anthropic"
    _STREAM_REQUEST = "invoke_model_with_response_stream() (not invoke_model())"

    def _begin(self) -> None:
        super()._begin()
        #: What Bedrock adds to ``message_stop`` (``amazon-bedrock-invocationMetrics``:
        #: token counts and latencies), once it has come.
        self.invocation_metrics: dict[str, Any] | None = None

    @classmethod
    def looks_like(cls, data: Mapping[str, Any]) -> bool:
        return len(data) == 1 and "chunk" in data

    def _foreign(self, data: Mapping[str, Any]) -> None:
        if not MessageAccumulator.looks_like(data):
            super()._foreign(data)

    def _body_decoder(self) -> BodyDecoder:
        return EventStreamDecoder()

    def _what(self) -> str:
        return (
            f"{type(self).__name__}.feed() takes one event: a decoded EventStreamMessage, a "
            "chunk dict as boto3 yields it, or an Anthropic Messages event;"
        )

    def _data_of(self, event: Any) -> Mapping[str, Any] | str | None:
        if isinstance(event, EventStreamMessage):
            event = event_of(event)
        data = super()._data_of(event)
        if isinstance(data, Mapping) and len(data) == 1 and "type" not in data:
            (kind,) = data
            if kind == "chunk":
                return self._unwrap(data["chunk"])
            if kind in EXCEPTIONS:
                raise _exception(kind, data[kind])
        return data

    @staticmethod
    def _unwrap(chunk: Any) -> dict[str, Any]:
        """The Messages event a chunk carries."""
        if not isinstance(chunk, Mapping):
            raise StreamError(f"a chunk that is {describe(chunk)}, not an object")
        if "bytes" not in chunk:
            raise StreamError("a chunk without its bytes")
        data: dict[str, Any] = _json_object(
            _blob(chunk["bytes"], "the bytes of a chunk"), "the bytes of a chunk"
        )
        return data

    def _message_stop(self, event: Mapping[str, Any]) -> list[Update]:
        metrics = event.get("amazon-bedrock-invocationMetrics")
        if metrics is not None:
            self.invocation_metrics = dict(self._mapping(metrics, "the invocation metrics"))
        return super()._message_stop(event)

    _HANDLERS: ClassVar[Mapping[str, Callable[..., list[Update]]]] = {
        **MessageAccumulator._HANDLERS,
        "message_stop": _message_stop,
    }


def accumulate(chunks: bytes | Iterable[Any]) -> ConverseStreamAccumulator:
    """Read a whole ``ConverseStream`` (the chunks of its HTTP body, or boto3's event stream)
    into an accumulator, closed at its end."""
    return ConverseStreamAccumulator().read(chunks)
