"""The ``ConverseStream`` accumulator: the events of a Converse stream (decoded messages, or
boto3's event dicts) rebuilt into ``.response``, in the shape ``converse()`` returns (see the
package docstring for its blocks and its errors).

One handler per event (``_HANDLERS``), and one per kind of delta (``_DELTAS``); each checks
what it reads, then changes the response. Blocks are addressed by ``contentBlockIndex``; a
text or reasoning block begins with its first delta (the API sends no ``contentBlockStart``
for them), and ``_kinds`` keeps what each block is.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterable, Mapping
from typing import Any, ClassVar

from .._eventstream import EventStreamMessage
from .._jsontext import describe
from .._streams.body import BodyDecoder
from ..streams import Accumulator, StreamError, Update
from ._events import EXCEPTIONS, blob, body_decoder, event_of, exception, feed_takes, only

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
#: The fields of ``metadata`` kept in the response (``p``, Bedrock's padding, is not).
METADATA = ("usage", "metrics", "trace", "performanceConfig", "serviceTier")


class ConverseStreamAccumulator(Accumulator):
    """Accumulate one Bedrock ``ConverseStream`` into ``.response`` (see :mod:`jsonsnap.bedrock`).

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

    #: The handler of each delta type (set after the class, as ``_HANDLERS`` is).
    _DELTAS: ClassVar[Mapping[str, Callable[..., Update]]]

    def __init__(
        self, *, tools: Any = None, output_schema: Any = None, repair: Any = False
    ) -> None:
        super().__init__(tools=_tool_specs(tools), output_schema=output_schema, repair=repair)

    def _begin(self) -> None:
        #: The response so far, in the shape of ``converse()`` (``None`` before messageStart).
        self.response: dict[str, Any] | None = None
        #: The message (``response["output"]["message"]``).
        self.message: dict[str, Any] | None = None
        self._content_blocks: list[dict[str, Any]] = []  # the message's content, once it starts
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
        return self._content_blocks

    def _body_decoder(self) -> BodyDecoder:
        return body_decoder(self)

    def _what(self) -> str:
        return feed_takes(
            self,
            "a decoded EventStreamMessage or an event dict as boto3's converse_stream() yields it",
        )

    def _data_of(self, event: Any) -> Mapping[str, Any] | str | None:
        if isinstance(event, EventStreamMessage):
            return event_of(event)
        return super()._data_of(event)

    def _kind_of(self, data: Mapping[str, Any]) -> str:
        return only(data, "an event")

    def close(self) -> list[Update]:
        """End the stream (see :meth:`jsonsnap.streams.Accumulator.close`); a redacted
        reasoning block cut short shows all its bytes."""
        if not self._closed:
            for index in list(self._carry):
                self._flush(index)
        return super().close()

    # -- checks ----------------------------------------------------------------------------

    def _body(self, data: Mapping[str, Any]) -> Mapping[str, Any]:
        return self._fields.mapping(data[self._kind], f"the {self._kind} event")

    def _content(self) -> list[dict[str, Any]]:
        """The blocks, for an event about them: refused after messageStop."""
        if self._stopped:
            raise StreamError(f"{self._kind} after messageStop")
        return self._blocks()

    def _block_at(self, body: Mapping[str, Any], *, extend: bool) -> int:
        """The place of the block an event names: an open block (or, with ``extend``, the next
        place, where a delta begins a text or reasoning block)."""
        content = self._content()
        index = self._fields.place(body.get("contentBlockIndex"), "block", content, extend=extend)
        if index < len(content) and index not in self._open:
            raise StreamError(f"{self._kind} for block {index}, which has stopped")
        return index

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
        role = self._fields.opt_string(self._body(data).get("role"), "the role")
        self.message = {"role": role or "assistant", "content": self._content_blocks}
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
        index = self._fields.next_place(body.get("contentBlockIndex"), "block", content)
        start = self._fields.mapping(body.get("start"), "the start")
        kind = only(start, f"malformed {self._kind} event: a start")
        value = start[kind]
        tool = None
        if kind == "toolUse":
            use = dict(self._fields.mapping(value, "the toolUse start"))
            name = self._fields.opt_string(use.get("name"), "the tool name") or ""
            id_ = self._fields.opt_string(use.get("toolUseId"), "the toolUseId")
            use["input"] = {}
            tool = self._tool(index, name, id_)
            self._tools[index] = tool
            value = use
        elif kind == "toolResult":
            value = {**self._fields.mapping(value, "the toolResult start"), "content": []}
        block = self._new(index, kind, {kind: value})
        return [Update("contentBlockStart", index, block, tool=tool)]

    def _block_delta(self, data: Mapping[str, Any]) -> list[Update]:
        body = self._body(data)
        index = self._block_at(body, extend=True)
        content = self._blocks()
        delta = self._fields.mapping(body.get("delta"), "the delta")
        if not delta:  # nothing in it: nothing to do (and no block begun)
            return [Update(self._kind, index if index < len(content) else None)]
        kind = only(delta, f"malformed {self._kind} event: a delta")
        handler = self._DELTAS.get(kind)
        if handler is None:  # a delta this version does not know: its latest value kept
            self._fits(index, kind, kind)
            block = self._new(index, kind, {})
            block[kind] = delta[kind]
            return [Update(self._kind, index, block, kind)]
        update: Update = handler(self, index, delta[kind])
        return [update]

    def _text_delta(self, index: int, value: Any) -> Update:
        text = self._fields.string(value, "the text")
        self._fits(index, "text", "text", "citationsContent")
        block = self._new(index, "text", {"text": ""})
        if self._kinds[index] == "citationsContent":
            parts = block["citationsContent"]["content"]
            if not parts:
                parts.append({"text": ""})
            target = parts[-1]
        else:
            target = block
        self._fields.check_text(target, "text")
        self._fields.append(target, "text", text)
        return Update(self._kind, index, block, "text", text)

    def _citation_delta(self, index: int, value: Any) -> Update:
        citation = self._fields.mapping(value, "the citation")
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
        use = self._fields.mapping(value, "the toolUse delta")
        fragment = self._fields.opt_string(use.get("input"), "the toolUse input") or ""
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
        reasoning = self._fields.mapping(value, "the reasoningContent delta")
        text = self._fields.opt_string(reasoning.get("text"), "the reasoning text")
        signature = self._fields.opt_string(reasoning.get("signature"), "the signature")
        redacted = reasoning.get("redactedContent")
        if redacted is not None:
            redacted = blob(redacted, f"malformed {self._kind} event: the redactedContent")
        self._fits(index, "reasoningContent", "reasoningContent")
        block = self._new(index, "reasoningContent", {"reasoningContent": {}})
        part = block["reasoningContent"]
        said = part.get("reasoningText")
        if (text is not None or signature is not None) and said is None:
            said = part["reasoningText"] = {"text": ""}
        if text is not None:
            self._fields.check_text(said, "text")
            self._fields.append(said, "text", text)
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
        self._fields.check_text(part, "redactedContent")
        self._fields.append(part, "redactedContent", base64.b64encode(data[:whole]).decode("ascii"))

    def _flush(self, index: int) -> None:
        left = self._carry.pop(index, b"")
        if left:
            part = self._blocks()[index]["reasoningContent"]
            self._fields.append(part, "redactedContent", base64.b64encode(left).decode("ascii"))

    def _result_delta(self, index: int, value: Any) -> Update:
        items = [
            self._fields.mapping(item, "a toolResult part")
            for item in self._fields.array(value, "the toolResult")
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
        index = self._block_at(self._body(data), extend=False)
        block = self._blocks()[index]
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
        reason = self._fields.opt_string(body.get("stopReason"), "the stopReason")
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
                self._fields.mapping(body[key], f"the {key}")
        response: dict[str, Any] = self.response  # type: ignore[assignment]
        response.update((key, body[key]) for key in METADATA if body.get(key) is not None)
        self._metadata = True
        self._done = self._stopped
        return [Update(self._kind)]

    def _exception_event(self, data: Mapping[str, Any]) -> list[Update]:
        raise exception(self._kind, data[self._kind])


# The tables, set once the class exists (a compiled class body cannot name its methods).
ConverseStreamAccumulator._HANDLERS = {
    "messageStart": ConverseStreamAccumulator._message_start,
    "contentBlockStart": ConverseStreamAccumulator._block_start,
    "contentBlockDelta": ConverseStreamAccumulator._block_delta,
    "contentBlockStop": ConverseStreamAccumulator._block_stop,
    "messageStop": ConverseStreamAccumulator._message_stop,
    "metadata": ConverseStreamAccumulator._metadata_event,
    **dict.fromkeys(EXCEPTIONS, ConverseStreamAccumulator._exception_event),
}
ConverseStreamAccumulator._DELTAS = {
    "text": ConverseStreamAccumulator._text_delta,
    "toolUse": ConverseStreamAccumulator._tool_delta,
    "reasoningContent": ConverseStreamAccumulator._reasoning_delta,
    "citation": ConverseStreamAccumulator._citation_delta,
    "toolResult": ConverseStreamAccumulator._result_delta,
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


def accumulate(chunks: bytes | Iterable[Any]) -> ConverseStreamAccumulator:
    """Read a whole ``ConverseStream`` (the chunks of its HTTP body, or boto3's event stream)
    into an accumulator, closed at its end."""
    return ConverseStreamAccumulator().read(chunks)
