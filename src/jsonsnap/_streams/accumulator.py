"""The values of :mod:`jsonsnap.streams` (published there), and what the accumulators share.

- :class:`Update` says what one event did, for UI code; :class:`StreamError` is an error the
  stream reports, or a broken protocol. (The streamed JSON values, :class:`ToolInput` and
  :class:`StructuredOutput`, are in ``_streamed_json``.)
- :class:`EventChecks`: the checks an accumulator makes of an event's fields before it changes
  anything (each failure a :class:`StreamError` naming the field).
- :func:`tool_schemas` (published in :mod:`jsonsnap.streams`) and :func:`output_schema_of`: the
  schemas of a request's tool definitions and of its structured output format, read from any
  provider's shape and compiled once.
- :class:`SchemaChecks`: the schema side of an accumulator (its tool inputs made checked, the
  answer text fed to the structured output, the violations an event found put on its updates).
- The data helpers the accumulators share: :func:`copy_data` (an event is never kept or changed
  in place: what is kept is copied, without recursion), :func:`describe` (a value in an error
  message, safely: no huge repr, no recursion), :func:`error_from` (the error a payload reports,
  in any protocol's shape), and what reads a body or an SDK object.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from dataclasses import dataclass, fields, replace
from types import UnionType
from typing import Any, ClassVar, TypeVar, get_origin

from .. import Schema, SchemaDefinitionError, SchemaError
from .._errors import describe as describe  # (here too: the accumulators import it from here)
from ..sse import ServerSentEvent
from .tool_input import StructuredOutput, ToolInput, ToolSchemas

#: What a body's chunks may be (anything else in a body is an event).
CHUNK_TYPES = (bytes, bytearray, memoryview, str)
_LEAVES = frozenset({str, int, float, bool, type(None)})
_PUBLIC = "jsonsnap.streams"
#: The largest index an event may name, plus one.
_INDEX_LIMIT = 2**63


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


@dataclass(frozen=True, slots=True, repr=False)
class Update:
    """What one event did to the accumulated result, for UI code."""

    #: The event's type (``"content_block_delta"``, ``"response.output_text.delta"``, ...;
    #: for Chat Completions, the part of the chunk: ``"content"``, ``"tool_call"``, ...;
    #: ``"close"`` for what :meth:`Accumulator.close` ended; ``"structured_done"`` when a
    #: structured output ends with the stream).
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
    #: The violations of the schema this event found, in the tool input or the structured
    #: output (each is reported once, by the event that made it certain).
    violations: tuple[SchemaError, ...] = ()
    #: The structured output the answer ``text`` went to (with an ``output_schema=``).
    structured: StructuredOutput | None = None

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


for _cls in (StreamError, Update):
    _cls.__module__ = _PUBLIC


class EventChecks:
    """The checks an accumulator makes of an event's fields before it changes anything: each
    failure is a :class:`StreamError` that names the field and the event (``_kind``)."""

    _kind: str  # the type of the event being applied

    def _malformed(self, what: str) -> StreamError:
        return StreamError(f"malformed {self._kind} event: {what}")

    def _str(self, value: Any, what: str) -> str:
        if not isinstance(value, str):
            raise self._malformed(f"{what} is {describe(value)}, not a string")
        return value

    def _opt_str(self, value: Any, what: str) -> str | None:
        return None if value is None else self._str(value, what)

    def _mapping(self, value: Any, what: str) -> Mapping[str, Any]:
        if not isinstance(value, Mapping):
            raise self._malformed(f"{what} is {describe(value)}, not an object")
        return value

    def _list(self, value: Any, what: str) -> list[Any]:
        if not isinstance(value, list):
            raise self._malformed(f"{what} is {describe(value)}, not a list")
        return value

    def _key(self, value: Any, what: str) -> int:
        """An index that names a thing (a choice, a tool call) rather than a place in a list:
        a count, from 0 to 2**63 - 1 (so that messages and reprs can always print it)."""
        if type(value) is not int or not 0 <= value < _INDEX_LIMIT:
            raise self._malformed(f"{what} is {describe(value)}, not an index")
        return value

    def _next(self, value: Any, what: str, items: list[Any]) -> int:
        """The place of a new block or item: right after the last."""
        index = self._key(value, f"the {what} index")
        if index != len(items):
            raise StreamError(f"{self._kind} for {what} {index}, expected {len(items)}")
        return index

    def _place(self, value: Any, what: str, items: list[Any], *, extend: bool) -> int:
        """A place in ``items``: an item there (or, with ``extend``, the next one). An index
        never extends a list by more than one."""
        index = self._key(value, what)
        if index < len(items) or (extend and index == len(items)):
            return index
        there = f"the next one is {len(items)}" if extend else f"there are {len(items)}"
        raise StreamError(f"{self._kind} for {what} {index}, which does not exist ({there})")

    def _check_text(self, container: Mapping[str, Any], key: str) -> None:
        """Check the text a delta will grow (absent and ``None`` count as empty)."""
        old = container.get(key)
        if old is not None:
            self._str(old, f"the {key} so far")

    @staticmethod
    def _append(container: dict[str, Any], key: str, text: str) -> None:
        """``container[key] += text``, in place when CPython can (the dict lets go of the
        string meanwhile); the caller checked the old value with :meth:`_check_text`."""
        s = container.get(key) or ""
        container[key] = None
        s += text
        container[key] = s


# --------------------------------------------------------------------------- a request's schemas


def _compile(source: Any, where: str) -> Schema:
    """A schema compiled once (a :class:`jsonsnap.Schema` is kept as it is); the keywords it
    does not check are left in its ``unchecked``, without a warning."""
    if isinstance(source, Schema):
        return source
    if isinstance(source, Mapping) and not isinstance(source, dict):
        source = dict(source)
    typelike = isinstance(source, (type, UnionType)) or get_origin(source) is not None
    if not (typelike or isinstance(source, (dict, bool))):
        raise TypeError(
            f"{where} takes a JSON Schema (a dict), a jsonsnap.Schema, a Python type or a "
            f"pydantic model class; not {describe(source)}"
        )
    try:
        return Schema(source, unknown="ignore")
    except TypeError as exc:
        raise TypeError(f"{where}: {exc}") from None
    except SchemaDefinitionError as exc:
        raise SchemaDefinitionError(f"{where}: {exc}") from None


def _definition(tool: Any, place: int) -> tuple[str, Any] | None:
    """The name and the schema of a tool definition, in any provider's shape; ``None`` for a
    tool with no JSON input schema (a server or built-in tool, a custom tool)."""
    if not isinstance(tool, Mapping):
        dumped = dump_event(tool)  # an SDK's model object
        if not isinstance(dumped, Mapping):
            raise TypeError(
                f"tools= takes the request's tool definitions (dicts), or a mapping "
                f"{{name: schema}}; item {place} is {describe(tool)}"
            )
        tool = dumped
    function = tool.get("function")
    body = function if isinstance(function, Mapping) else tool  # Chat Completions nests it
    schema = body.get("parameters", body.get("input_schema"))  # OpenAI, Anthropic
    if schema is None:
        return None
    name = body.get("name")
    if not isinstance(name, str):
        raise TypeError(f"tools=: item {place} is a tool definition whose name is {describe(name)}")
    return name, schema


def tool_schemas(tools: Any) -> dict[str, Schema]:
    """The schema of each tool, by name, compiled once, from ``tools``: the request's tool
    definitions as they are sent (Anthropic ``{"name", "input_schema"}``, Chat Completions
    ``{"type": "function", "function": {"name", "parameters"}}``, Responses ``{"type":
    "function", "name", "parameters"}``, in any mix), or a mapping ``{name: schema}`` whose
    schemas are anything ``Parser(schema=)`` takes. Tools without an input schema (server
    tools, built-in tools, custom tools) are left out: their calls are not checked. The name
    ``"*"`` in a mapping gives the schema of any tool not named."""
    if tools is None:
        return {}
    if isinstance(tools, Mapping):
        function = tools.get("function")
        if isinstance(tools.get("name"), str) or (
            isinstance(function, Mapping) and "name" in function
        ):
            raise TypeError("tools= takes a list of tool definitions: put this one in a list")
        pairs = list(tools.items())
        for name, _ in pairs:
            if not isinstance(name, str):
                raise TypeError(f"tools= maps tool names to schemas; a key is {describe(name)}")
    elif isinstance(tools, Iterable) and not isinstance(tools, (*CHUNK_TYPES, type)):
        found = (_definition(tool, place) for place, tool in enumerate(tools))
        pairs = [pair for pair in found if pair is not None]
    else:
        raise TypeError(
            "tools= takes the request's tool definitions (a list), or a mapping {name: schema}; "
            f"not {describe(tools)}"
        )
    schemas: dict[str, Schema] = {}
    for name, source in pairs:
        if name in schemas:
            raise ValueError(f"tools= defines the tool {name!r} twice")
        schemas[name] = _compile(source, f"tools= (tool {name!r})")
    return schemas


def output_schema_of(source: Any) -> Schema | None:
    """The schema of a structured output, compiled once, from ``source``: the request's format
    as it is sent (Chat Completions ``response_format`` ``{"type": "json_schema",
    "json_schema": {"name", "schema", "strict"}}``, Responses ``text`` or ``text.format``
    ``{"type": "json_schema", "name", "schema"}``, Anthropic's ``{"type": "json_schema",
    "schema"}``, or an ``output_config`` ``{"format": ...}``; ``{"type": "json_object"}`` asks
    for any object, ``{"type": "text"}`` for no structure: ``None``), or anything
    ``Parser(schema=)`` takes: a JSON Schema, a :class:`jsonsnap.Schema`, a Python type or a
    pydantic model class."""
    where = "output_schema="
    if source is None or isinstance(source, Schema):
        return source
    if isinstance(source, Mapping):
        kind = source.get("type")
        nested = source.get("format")
        if kind is None and isinstance(nested, Mapping):
            return output_schema_of(nested)
        if kind == "text":
            return None
        if kind == "json_object":
            return _compile({"type": "object"}, where)
        if kind == "json_schema":
            body = source.get("json_schema", source)
            schema = body.get("schema") if isinstance(body, Mapping) else None
            if schema is None:
                raise ValueError(f"{where} a json_schema format without its schema")
            return _compile(schema, where)
    return _compile(source, where)


class SchemaChecks:
    """The schema side of an accumulator: its tool inputs made to be checked against their
    tools' schemas, the structured output of each answer, and what they find carried by the
    updates of the events that found it."""

    schemas: ToolSchemas
    _format: Schema | None
    _repair: Any  # the repairs allowed in tool inputs and structured outputs (repair=)
    _outputs: dict[int, StructuredOutput]
    #: Whether the answer is per choice (the ``index`` of its updates; an update ``"finish"``
    #: ends the choice's answer), rather than one per stream.
    _PER_CHOICE: ClassVar[bool] = False

    @property
    def done(self) -> bool:  # pragma: no cover - the accumulator's
        raise NotImplementedError

    def _tool(self, index: int, name: str, id: str | None = None) -> ToolInput:
        """A new tool input, to be checked against its tool's schema (if it has one)."""
        return ToolInput(index, name, id, schemas=self.schemas, repair=self._repair)

    def _answers(self, update: Update) -> bool:
        """Whether an update brings answer text to a structured output."""
        text = update.text and not update.thinking and update.delta != "refusal"
        return bool(text) and self._format is not None

    def _answer(self, choice: int) -> StructuredOutput:
        """The structured output of a choice (0 when there is one per stream), made once."""
        output = self._outputs.get(choice)
        if output is None:
            schema: Schema = self._format  # type: ignore[assignment]
            output = StructuredOutput(
                schema, choice if self._PER_CHOICE else None, repair=self._repair
            )
            self._outputs[choice] = output
        return output

    def _check(self, updates: list[Update]) -> list[Update]:
        """What the schemas make of an event's updates: a tool input's update carries the
        violations its event found; answer text (not reasoning, not a refusal) goes to the
        structured output, whose update carries it and what it found; an answer that is over
        (the stream's end, a choice's ``finish``) is parsed strictly, with one update
        ``"structured_done"``."""
        checked = []
        for update in updates:
            tool = update.tool
            if tool is not None:
                found = tool._new_violations()
                if found:
                    update = replace(update, violations=found)
            elif self._answers(update):
                output = self._answer((update.index or 0) if self._PER_CHOICE else 0)
                output._feed(update.text)
                found = output._new_violations()
                update = replace(update, structured=output, violations=found)
            checked.append(update)
        if not self._outputs:
            return checked
        finished = {u.index for u in updates if u.event == "finish"} if self._PER_CHOICE else ()
        for choice, output in self._outputs.items():
            if not output.ended and (self.done or choice in finished):
                output._close()
                found = output._new_violations()
                end = Update("structured_done", output.choice, structured=output, violations=found)
                checked.append(end)
        return checked


_State = TypeVar("_State")


def carry_out(
    plans: Iterable[tuple[int, Iterable[Callable[[_State], list[Update]]]]],
    state_of: Callable[[int], _State],
) -> list[Update]:
    """Apply a chunk's plans, once the whole chunk has been checked: each ``(index, steps)``
    runs its steps on the state of that choice or candidate (``state_of(index)``); return
    the updates, in order."""
    updates: list[Update] = []
    for index, steps in plans:
        state = state_of(index)
        for step in steps:
            updates += step(state)
    return updates


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
    most: the body is never buffered), to say what it is if it brings no event."""

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
