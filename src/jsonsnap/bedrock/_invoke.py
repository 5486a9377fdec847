"""The ``InvokeModelWithResponseStream`` accumulator for Anthropic models: each ``chunk`` of the
AWS event stream carries one Anthropic Messages event (base64 JSON), unwrapped and fed to the
Anthropic :class:`~jsonsnap.anthropic.MessageAccumulator`, which this one is (Bedrock streams
Anthropic's messages; the one provider another may build on)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._eventstream import EventStreamMessage
from .._jsontext import describe
from .._streams.body import BodyDecoder
from ..anthropic import MessageAccumulator
from ..streams import StreamError, Update
from ._events import EXCEPTIONS, blob, body_decoder, event_of, exception, feed_takes, json_object


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
        return body_decoder(self)

    def _what(self) -> str:
        return feed_takes(
            self,
            "a decoded EventStreamMessage, a chunk dict as boto3 yields it, or an Anthropic "
            "Messages event",
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
                raise exception(kind, data[kind])
        return data

    @staticmethod
    def _unwrap(chunk: Any) -> dict[str, Any]:
        """The Messages event a chunk carries."""
        if not isinstance(chunk, Mapping):
            raise StreamError(f"a chunk that is {describe(chunk)}, not an object")
        if "bytes" not in chunk:
            raise StreamError("a chunk without its bytes")
        data: dict[str, Any] = json_object(
            blob(chunk["bytes"], "the bytes of a chunk"), "the bytes of a chunk"
        )
        return data

    def _message_stop(self, event: Mapping[str, Any]) -> list[Update]:
        metrics = event.get("amazon-bedrock-invocationMetrics")
        if metrics is not None:
            self.invocation_metrics = dict(self._fields.mapping(metrics, "the invocation metrics"))
        return super()._message_stop(event)


# The tables, set once the class exists (a compiled class body cannot name its methods).
InvokeModelAccumulator._HANDLERS = {
    **MessageAccumulator._HANDLERS,
    "message_stop": InvokeModelAccumulator._message_stop,
}
