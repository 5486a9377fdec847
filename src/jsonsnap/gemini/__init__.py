"""Rebuild a Google Gemini ``streamGenerateContent`` stream, with live function-call arguments.

:class:`GenerateContentAccumulator` takes the chunks of a ``streamGenerateContent?alt=sse``
body (each ``data:`` is a whole ``GenerateContentResponse``: the decoded dict, the
:class:`~jsonsnap.sse.ServerSentEvent`, or the ``google-genai`` SDK's
``GenerateContentResponse`` object) and keeps ``.response``, the final response as one
non-streamed ``generateContent`` call would return it (the API's camelCase JSON):

- candidates by ``index`` (absent: 0), in index order; ``content.role`` is set once, and the
  ``content.parts`` are the chunks' parts in order, where a text part is joined to the part
  before it when that one is a text part of the same kind (``thought`` or answer) and the two
  do not carry different ``thoughtSignature`` values (a signature is never dropped: it stays on
  the joined part, and a second, different one starts a new part); ``finishReason`` and the
  other candidate fields keep their latest value, but ``citationMetadata.citations`` grow;
- ``usageMetadata`` is updated field by field (the counts are cumulative: the last chunk's are
  the totals), ``modelVersion``, ``responseId``, ``createTime`` and ``promptFeedback`` keep their
  latest value; a prompt blocked (``promptFeedback.blockReason``) ends the stream, as does every
  candidate having its ``finishReason`` (the API sends the usage with the last one): a chunk
  after that is a :class:`StreamError`.

Function calls. A whole ``functionCall`` (``{name, args, id?}``) is a :class:`ToolInput` fed the
arguments as JSON text at once; Vertex AI's streamed arguments (``streamFunctionCallArguments``:
a call opened with ``willContinue: true``, continued by parts whose ``functionCall`` carries
``partialArgs`` entries ``{jsonPath, stringValue | numberValue | boolValue | nullValue,
willContinue}``, and ended by a part without ``willContinue``) are translated, entry by entry,
into the JSON text of the same arguments (``{"location": "Bos``, ``ton"``, ...), which the
call's :class:`ToolInput` parses as any other streamed JSON: the live snapshot, the change
records, the schema checks (``tools=``) and :meth:`ToolInput.final` are those of that text. The
translation keeps the arguments in the order the paths come; a path must name the next member
of the structure so far, so a malformed ``jsonPath``, one that goes back to a finished value,
one that skips an array element, one that conflicts with the structure so far (a key into an
array, an index into an object, a value where an object is open) and a value that changes type
(a number for a string that was to go on) are each a :class:`StreamError` that names the path.
A string piece with ``willContinue`` keeps its string open: the next entry must be the same
path. A number is followed by a space, so that it shows at once (a number at the end of JSON
text could go on). In ``.response``, a call's part holds ``functionCall: {name, args, id?}``,
``args`` its live snapshot, then its final value (``partialArgs`` and ``willContinue`` are not
kept). A part without ``willContinue`` ends the call: the part after it, in the same chunk or a
later one, is read afresh (text, or another call, to the same function or not), so how the
parts are grouped into chunks changes nothing. A path costs time in proportion to its length.

``tools`` holds candidate 0's calls by the place of their part in ``content.parts``;
``tool_calls(candidate)`` lists a candidate's calls in order. ``tools=`` takes the request's
``tools`` (``functionDeclarations`` with ``parametersJsonSchema`` or ``parameters``), and
``output_schema=`` its ``generationConfig`` (``responseJsonSchema``) or any schema.

A chunk is checked whole before it changes anything (the state the streamed arguments keep is
rolled back if a later entry of the same chunk is refused). An ``{"error": ...}`` payload raises
:class:`StreamError` with the error's ``status`` as its type.
"""

from __future__ import annotations

import base64
import bisect
import datetime
import enum
import json
import math
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from .._errors import describe
from .._streams.events import carry_out, copy_data
from ..streams import Accumulator, StreamError, ToolInput, ToolInputError, Update

__all__ = [
    "GenerateContentAccumulator",
    "StreamError",
    "ToolInput",
    "ToolInputError",
    "Update",
    "accumulate",
    "parse_json_path",
]

#: The keys a part may have and still be joined to the text part before it.
_TEXT_KEYS = frozenset({"text", "thought", "thoughtSignature"})
#: The value fields of a partial argument.
_VALUES = ("stringValue", "numberValue", "boolValue", "nullValue")
#: What the SDK adds to a response that the wire never carried.
_SDK_ONLY = frozenset({"sdk_http_response", "automatic_function_calling_history", "parsed"})
#: Floats at least this large are written as they are, not as integers.
_EXACT = 2.0**53
#: Gemini's OpenAPI schema type names, as JSON Schema spells them.
_TYPES = {"STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL"}

# --------------------------------------------------------------------------- JSON paths

#: One segment of an RFC 9535 path, as the partial arguments use them: ``.name`` (a member
#: name shorthand; ``-`` is taken after the first character too), ``[0]`` (an index: no sign,
#: no leading zero, at most 18 digits) or ``['name']`` / ``["name"]`` (escapes as in JSON, and
#: the quote of the string).
_SEGMENT = re.compile(
    r"""
    \.(?P<name>[A-Za-z_\u0080-\ud7ff\ue000-\U0010ffff][A-Za-z0-9_\-\u0080-\ud7ff\ue000-\U0010ffff]*)
  | \[[ \t\n\r]*
    (?:
        (?P<index>0|[1-9][0-9]{0,17})
      | '(?P<single>(?:[^'\\\x00-\x1f]|\\(?:[bfnrt/\\']|u[0-9A-Fa-f]{4}))*)'
      | "(?P<double>(?:[^"\\\x00-\x1f]|\\(?:[bfnrt/\\"]|u[0-9A-Fa-f]{4}))*)"
    )
    [ \t\n\r]*\]
    """,
    re.VERBOSE,
)
_ESCAPE = re.compile(r"\\(?:u(?P<hex>[0-9A-Fa-f]{4})|(?P<char>.))", re.DOTALL)
_ESCAPED = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_SURROGATE = re.compile("[\ud800-\udfff]")
_SHORTHAND = re.compile(r"[A-Za-z_\u0080-\uffff][A-Za-z0-9_\-\u0080-\uffff]*")

Segment = str | int


def _unescape(text: str) -> str:
    def one(match: re.Match[str]) -> str:
        code = match["hex"]
        if code is not None:
            return chr(int(code, 16))
        char = match["char"]
        return _ESCAPED.get(char, char)

    joined = _ESCAPE.sub(one, text)
    if _SURROGATE.search(joined):  # \uD83D\uDE00 is one character
        joined = joined.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
    return joined


def parse_json_path(path: str) -> tuple[Segment, ...]:
    """The segments of a partial argument's ``jsonPath`` (``"$.a.b[0]['c d']"`` is ``("a",
    "b", 0, "c d")``): names and indices only, at least one. ``ValueError`` says where a path
    is not one (wildcards, slices, filters, negative indices and descendants are not)."""
    if not path.startswith("$"):
        raise ValueError("it does not start with '$'")
    segments: list[Segment] = []
    pos, end = 1, len(path)
    while pos < end:
        match = _SEGMENT.match(path, pos)
        if match is None:
            raise ValueError(f"no name or index at char {pos}")
        name, index = match["name"], match["index"]
        if name is not None:
            segments.append(name)
        elif index is not None:
            segments.append(int(index))
        else:
            quoted = match["single"] if match["single"] is not None else match["double"]
            segments.append(_unescape(quoted))
        pos = match.end()
    if not segments:
        raise ValueError("it names the arguments themselves, not one of them")
    return tuple(segments)


def _show(segments: tuple[Segment, ...], count: int | None = None) -> str:
    """A path (its first ``count`` segments) as the partial arguments write it
    (``$.a[0]['b c']``), cut after 120 characters: the time it takes is bounded too."""
    out = ["$"]
    size = 1
    for at in range(len(segments) if count is None else count):
        segment = segments[at]
        if isinstance(segment, int):
            piece = f"[{segment}]"
        elif len(segment) <= 120 and _SHORTHAND.fullmatch(segment):
            piece = f".{segment}"
        else:
            piece = f"[{json.dumps(segment[:121])}]"
        out.append(piece)
        size += len(piece)
        if size > 120:
            break
    shown = "".join(out)
    return shown if len(shown) <= 120 else shown[:120] + "..."


# --------------------------------------------------------------------------- JSON text


def _string(text: str) -> str:
    """``text`` as the inside of a JSON string: surrogates escaped, so that a pair split
    across two pieces is joined by the parser, as it would be in the whole text."""
    inner = json.dumps(text, ensure_ascii=False)[1:-1]
    if _SURROGATE.search(inner):
        inner = _SURROGATE.sub(lambda m: f"\\u{ord(m[0]):04x}", inner)
    return inner


def _number(value: Any) -> str:
    """A JSON number's text; ``ValueError`` for anything else. A float with an integral value
    is written as an integer, as the API's own JSON writes doubles."""
    if type(value) is int:
        if value.bit_length() > 4000:
            raise ValueError("a number too large")
        return str(value)
    if type(value) is float:
        if not math.isfinite(value):
            raise ValueError(f"{value!r}, not a JSON number")
        if value.is_integer() and abs(value) < _EXACT:
            return str(int(value))
        return repr(value)
    raise ValueError(f"{describe(value)}, not a number")


def _json_text(value: Any) -> str:
    """``value`` as JSON text (``", "`` and ``": "`` between items), written without
    recursion; ``ValueError`` for what is not JSON."""
    out: list[str] = []
    # Each entry: the items still to write of an open container, and its closing bracket.
    stack: list[tuple[Iterator[Any], str, bool]] = []
    pending: list[Any] = [value]
    while pending or stack:
        if pending:
            item = pending.pop()
        else:
            items, close, is_object = stack[-1]
            nxt = next(items, _END)
            if nxt is _END:
                stack.pop()
                out.append(close)
                continue
            first = out[-1] in "{["
            if is_object:
                key, item = nxt
                if not isinstance(key, str):
                    raise ValueError(f"an object key that is {describe(key)}")
                out.append(f'{"" if first else ", "}"{_string(key)}": ')
            else:
                item = nxt
                if not first:
                    out.append(", ")
        if isinstance(item, str):
            out.append(f'"{_string(item)}"')
        elif item is None:
            out.append("null")
        elif item is True or item is False:
            out.append("true" if item else "false")
        elif isinstance(item, Mapping):
            out.append("{")
            stack.append((iter(item.items()), "}", True))
        elif isinstance(item, (list, tuple)):
            out.append("[")
            stack.append((iter(item), "]", False))
        else:
            out.append(_number(item))
    return "".join(out)


_END: Any = object()


# --------------------------------------------------------------------------- partial arguments


class _Frame:
    """A container open in the JSON text of streamed arguments."""

    __slots__ = ("array", "count", "key", "keys")

    def __init__(self, key: Segment | None, array: bool) -> None:
        self.key = key  # how its parent reaches it
        self.array = array
        self.count = 0  # members or elements written
        self.keys: set[str] = set()


class _ArgText:
    """Vertex's partial arguments of one call, turned into the JSON text of the arguments.

    The text is written in the order of the paths: ``frames`` are the containers open, from
    the arguments object down; a new path closes the containers it leaves and opens the ones it
    enters, and must name the next member of its container (a key not yet written, or the next
    index). Every change is logged until :meth:`commit`, so that :meth:`rollback` can undo what
    a refused chunk did."""

    __slots__ = ("_log", "ended", "frames", "open", "started")

    def __init__(self) -> None:
        self.frames = [_Frame(None, False)]
        self.open: tuple[Segment, ...] | None = None  # the string that is to go on
        self.started = False
        self.ended = False
        self._log: list[tuple[Any, ...]] = []

    def commit(self) -> None:
        self._log.clear()

    def rollback(self) -> None:
        log = self._log
        while log:
            op, *args = log.pop()
            if op == "push":
                self.frames.pop()
            elif op == "pop":
                self.frames.append(args[0])
            elif op == "member":
                frame, key = args
                frame.count -= 1
                if key is not None:
                    frame.keys.discard(key)
            else:  # an attribute's old value
                setattr(self, op, args[0])

    def _set(self, name: str, value: Any) -> None:
        self._log.append((name, getattr(self, name)))
        setattr(self, name, value)

    def entry(self, entry: Mapping[str, Any], fail: Callable[[str], StreamError]) -> str:
        """The JSON text of one ``partialArgs`` entry."""
        raw = entry.get("jsonPath")
        if not isinstance(raw, str):
            raise fail(f"a partial argument whose jsonPath is {describe(raw)}, not a string")
        try:
            path = parse_json_path(raw)
        except ValueError as exc:
            raise fail(f"a bad jsonPath {_quoted(raw)}: {exc}") from None
        named = _quoted(raw)
        given = [key for key in _VALUES if key in entry and entry[key] is not None]
        if "nullValue" in entry and entry["nullValue"] is None and not given:
            given = ["nullValue"]  # JSON's null is protobuf's NULL_VALUE too
        cont = entry.get("willContinue")
        if cont is not None and not isinstance(cont, bool):
            raise fail(f"willContinue of {named} is {describe(cont)}, not a boolean")
        if len(given) > 1:
            raise fail(f"the partial argument {named} has {' and '.join(given)}: one value only")
        kind = given[0] if given else None
        piece: str | None = None
        literal = ""
        if kind == "stringValue":
            piece = entry[kind]
            if not isinstance(piece, str):
                raise fail(f"the stringValue of {named} is {describe(piece)}, not a string")
        elif kind == "numberValue":
            try:
                literal = _number(entry[kind]) + " "  # the space ends the number: shown at once
            except ValueError as exc:
                raise fail(f"the numberValue of {named} is {exc}") from None
        elif kind == "boolValue":
            value = entry[kind]
            if not isinstance(value, bool):
                raise fail(f"the boolValue of {named} is {describe(value)}, not a boolean")
            literal = "true" if value else "false"
        elif kind == "nullValue":
            value = entry[kind]
            if value not in (None, "NULL_VALUE", 0):
                raise fail(f"the nullValue of {named} is {describe(value)}, not NULL_VALUE")
            literal = "null"
        return self._write(path, named, kind, piece, literal, bool(cont), fail)

    def _write(
        self,
        path: tuple[Segment, ...],
        named: str,
        kind: str | None,
        piece: str | None,
        literal: str,
        cont: bool,
        fail: Callable[[str], StreamError],
    ) -> str:
        if self.open is not None:
            if path != self.open:
                raise fail(
                    f"a partial argument for {named} while the string at {_show(self.open)} "
                    "was to go on (willContinue)"
                )
            if kind is None and not cont:
                self._set("open", None)  # an entry without a value that ends the string
                return '"'
            if piece is None:
                raise fail(f"{_kind(kind)} for {named}, which is a string")
            if not cont:
                self._set("open", None)
                return f'{_string(piece)}"'
            return _string(piece)
        if kind is None:
            raise fail(f"the partial argument {named} has no value")
        out = []
        if not self.started:
            self._set("started", True)
            out.append("{")
        frames = self.frames
        depth = 0  # how many of the path's segments are containers open now
        while (
            depth < len(frames) - 1 and depth < len(path) and frames[depth + 1].key == path[depth]
        ):
            depth += 1
        if depth == len(path):
            what = "an array" if frames[depth].array else "an object"
            raise fail(f"{_kind(kind)} for {named}, which is {what} so far")
        self._check_member(frames[depth], path, depth, named, fail)
        while len(frames) - 1 > depth:
            frame = frames.pop()
            self._log.append(("pop", frame))
            out.append("]" if frame.array else "}")
        frame = frames[depth]
        for at in range(depth, len(path)):
            if at > depth:
                self._check_member(frame, path, at, named, fail)
            segment = path[at]
            separator = ", " if frame.count else ""
            frame.count += 1
            if isinstance(segment, str):
                frame.keys.add(segment)
                out.append(f'{separator}"{_string(segment)}": ')
            else:
                out.append(separator)
            self._log.append(("member", frame, segment if isinstance(segment, str) else None))
            if at == len(path) - 1:
                break
            child = _Frame(segment, isinstance(path[at + 1], int))
            out.append("[" if child.array else "{")
            frames.append(child)
            self._log.append(("push",))
            frame = child
        if piece is not None:
            out.append(f'"{_string(piece)}')
            if cont:
                self._set("open", path)
            else:
                out.append('"')
        elif cont:
            raise fail(f"willContinue on {_kind(kind)} at {named}: only a string goes on")
        else:
            out.append(literal)
        return "".join(out)

    @staticmethod
    def _check_member(
        frame: _Frame,
        path: tuple[Segment, ...],
        at: int,
        named: str,
        fail: Callable[[str], StreamError],
    ) -> None:
        """Whether ``path[at]`` is the next member of ``frame`` (the container at
        ``path[:at]``)."""
        segment = path[at]
        if isinstance(segment, int):
            if not frame.array:
                raise fail(f"{named} indexes {_show(path, at)}, which is an object")
            if segment < frame.count:
                raise fail(f"{named} goes back to {_show(path, at + 1)}, which is finished")
            if segment > frame.count:
                raise fail(
                    f"{named} skips to {_show(path, at + 1)}: the next element is [{frame.count}]"
                )
        else:
            if frame.array:
                raise fail(f"{named} names a member of {_show(path, at)}, which is an array")
            if segment in frame.keys:
                raise fail(f"{named} goes back to {_show(path, at + 1)}, which is finished")

    def finish(self, fail: Callable[[str], StreamError]) -> str:
        """The text that ends the arguments."""
        if self.open is not None:
            raise fail(
                f"the call ended while the string at {_show(self.open)} was to go on (willContinue)"
            )
        self._set("ended", True)
        if not self.started:
            return "{}"
        return "".join("]" if frame.array else "}" for frame in reversed(self.frames))


def _quoted(path: str) -> str:
    return repr(path) if len(path) <= 120 else repr(path[:120]) + "..."


def _kind(kind: str | None) -> str:
    return {
        "stringValue": "a string",
        "numberValue": "a number",
        "boolValue": "a boolean",
        "nullValue": "a null",
    }.get(kind or "", "an entry")


# --------------------------------------------------------------------------- the accumulator


class _Call:
    """A function call of a candidate: its part, its tool input, and (streamed) its text."""

    __slots__ = ("args", "part", "tool")

    def __init__(self, part: dict[str, Any], tool: ToolInput, args: _ArgText | None) -> None:
        self.part = part
        self.tool = tool
        self.args = args  # the partial arguments' translator, while they stream


class _Candidate:
    """One candidate being accumulated."""

    def __init__(self, index: int) -> None:
        self.content: dict[str, Any] = {"role": None, "parts": []}
        self.candidate: dict[str, Any] = {"index": index, "content": self.content}
        self.parts: list[dict[str, Any]] = self.content["parts"]
        self.calls: dict[int, _Call] = {}  # by part index
        self.joinable = False  # whether the last part is a text part new text may join
        self.streaming: _Call | None = None  # the call whose arguments stream
        #: While a chunk is checked: the translator of the call whose arguments stream at the
        #: part being checked, and the call's name (a part may end one call and the next part
        #: open another, of the same function or not).
        self.open: _ArgText | None = None
        self.open_name = ""
        self.finished = False


@dataclass(frozen=True, slots=True)
class _CallPlan:
    """A checked ``functionCall`` part: what it adds to which call."""

    part: Mapping[str, Any]
    call: Mapping[str, Any]
    name: str | None
    id: str | None
    text: str  # the JSON text of the arguments it brings
    ends: bool  # whether the call's arguments are over with it
    new: _ArgText | None  # for a new call: its translator, if it streams (else None)
    opens: bool  # whether it opens a call


#: A checked change, applied once the whole chunk has passed.
Step = Callable[[_Candidate], list[Update]]


class GenerateContentAccumulator(Accumulator):
    """Accumulate one Gemini ``streamGenerateContent`` stream into ``.response``.

    ``tools`` holds candidate 0's function calls by the place of their part;
    ``tool_calls(candidate)`` a candidate's calls in order. ``tools=`` and ``output_schema=``:
    see the module docstring and :class:`jsonsnap.streams.Accumulator`.
    """

    protocol = "gemini"
    _PER_CHOICE = True  # a structured output per candidate
    _OPENERS = frozenset({"chunk", "error"})
    _FIRST = "a chunk"

    def __init__(
        self, *, tools: Any = None, output_schema: Any = None, repair: Any = False
    ) -> None:
        super().__init__(
            tools=_declarations(tools),
            output_schema=_response_schema(output_schema),
            repair=repair,
        )

    def _begin(self) -> None:
        #: The response so far, shaped as a non-streamed ``GenerateContentResponse`` (``None``
        #: before the first chunk).
        self.response: dict[str, Any] | None = None
        self._candidates: dict[int, _Candidate] = {}
        self._order: list[int] = []  # the candidate indices, sorted
        self._placed: set[int] = set()  # the candidates in the response
        self._fresh: list[int] = []  # the candidates made to check the chunk being applied
        self._opened: list[_ArgText] = []  # the translators of the calls the chunk opens

    @classmethod
    def looks_like(cls, data: Mapping[str, Any]) -> bool:
        if "type" in data or "choices" in data or "object" in data:
            return False
        return (
            isinstance(data.get("candidates"), list)
            or isinstance(data.get("usageMetadata"), Mapping)
            or isinstance(data.get("promptFeedback"), Mapping)
        )

    @property
    def result(self) -> dict[str, Any] | None:
        """The response so far (``.response``)."""
        return self.response

    @property
    def done(self) -> bool:
        """Whether the response is over: every candidate has its ``finishReason``, or the
        prompt was blocked."""
        response = self.response
        if response is None:
            return False
        feedback = response.get("promptFeedback")
        if isinstance(feedback, Mapping) and feedback.get("blockReason"):
            return True
        states = self._candidates.values()
        return bool(states) and all(state.finished for state in states)

    @property
    def tools(self) -> dict[int, ToolInput]:
        """The function calls of candidate 0, by the place of their part."""
        state = self._candidates.get(0)
        return {} if state is None else {i: call.tool for i, call in state.calls.items()}

    def tool_calls(self, candidate: int = 0) -> list[ToolInput]:
        """The function calls of a candidate, in order."""
        state = self._candidates.get(candidate)
        return [] if state is None else [call.tool for call in state.calls.values()]

    def _tool_blocks(self) -> Iterator[tuple[ToolInput, dict[str, Any] | None]]:
        for index in self._order:
            for call in self._candidates[index].calls.values():
                yield call.tool, call.part

    def _kind_of(self, data: Mapping[str, Any]) -> str:
        return "chunk" if data.get("error") is None else "error"

    def _data_of(self, event: Any) -> Mapping[str, Any] | str | None:
        dump = getattr(event, "model_dump", None)
        if callable(dump) and not isinstance(event, (Mapping, type)):
            fields = getattr(type(event), "model_fields", {})
            exclude = {name for name in _SDK_ONLY if name in fields}
            dumped = dump(mode="python", by_alias=True, exclude_none=True, exclude=exclude)
            if isinstance(dumped, Mapping):
                return _wire(dumped)
        return super()._data_of(event)

    # -- the stream's errors ------------------------------------------------------------------

    def _error_payload(self, data: Mapping[str, Any]) -> list[Update]:
        body = data.get("error")
        if not isinstance(body, Mapping):
            raise self._error(data)
        status, code, message = body.get("status"), body.get("code"), body.get("message")
        kind = status if isinstance(status, str) else None if code is None else describe(code)
        text = message if isinstance(message, str) else describe(message)
        raise StreamError(text, error_type=kind or "error")

    # -- a chunk: checked whole, then applied -------------------------------------------------

    def _chunk(self, data: Mapping[str, Any]) -> list[Update]:
        if self.done:
            raise StreamError(
                "a chunk after the end of the response (every candidate has its finishReason, "
                "or the prompt was blocked)"
            )
        candidates = data.get("candidates")
        candidates = [] if candidates is None else self._list(candidates, "candidates")
        usage = data.get("usageMetadata")
        if usage is not None:
            self._mapping(usage, "usageMetadata")
        feedback = data.get("promptFeedback")
        if feedback is not None:
            self._mapping(feedback, "promptFeedback")
        plans: list[tuple[int, list[Step]]] = []
        seen: set[int] = set()
        try:
            plans.extend(self._plan(candidate, seen) for candidate in candidates)
        except StreamError:
            self._rollback()
            raise
        self._commit()
        # Nothing below can fail: the chunk is applied whole.
        response = self.response
        if response is None:
            response = self.response = {"candidates": []}
        for key, value in data.items():  # modelVersion, responseId...: the latest value
            if value is not None and key not in ("candidates", "usageMetadata"):
                response[key] = value
        if usage is not None:
            kept = response.get("usageMetadata")
            if not isinstance(kept, dict):
                kept = response["usageMetadata"] = {}
            kept.update((k, v) for k, v in usage.items() if v is not None)
        updates = carry_out(plans, self._state)
        if usage is not None:
            updates.append(Update("usage"))
        if feedback is not None:
            updates.append(Update("prompt_feedback", block=response))
        return updates

    def _rollback(self) -> None:
        """Undo what checking a refused chunk wrote (the calls it opened are dropped)."""
        for state in self._candidates.values():
            if state.streaming is not None and state.streaming.args is not None:
                state.streaming.args.rollback()
        self._opened.clear()

    def _commit(self) -> None:
        for state in self._candidates.values():
            if state.streaming is not None and state.streaming.args is not None:
                state.streaming.args.commit()
        for opened in self._opened:
            opened.commit()
        self._opened.clear()

    def _state(self, index: int) -> _Candidate:
        state = self._candidates[index]  # made by _plan
        if index not in self._placed:
            self._placed.add(index)
            position = bisect.bisect(self._order, index)
            self._order.insert(position, index)
            self.response["candidates"].insert(position, state.candidate)  # type: ignore[index]
        return state

    def _plan(self, candidate: Any, seen: set[int]) -> tuple[int, list[Step]]:
        """Check one candidate of a chunk; the steps that apply it."""
        candidate = self._mapping(candidate, "a candidate")
        index = candidate.get("index")
        index = 0 if index is None else self._key(index, "the candidate index")
        if index in seen:
            raise StreamError(f"candidate {index} twice in one chunk")
        seen.add(index)
        state = self._candidates.get(index)
        if state is None:  # checked against a state of its own, kept if the chunk passes
            state = _Candidate(index)
            self._candidates[index] = state
            self._fresh.append(index)
        content = candidate.get("content")
        content = {} if content is None else self._mapping(content, "the content")
        role = self._opt_str(content.get("role"), "the role")
        parts = content.get("parts")
        parts = [] if parts is None else self._list(parts, "the parts")
        reason = self._opt_str(candidate.get("finishReason"), "finishReason")
        if parts and state.finished:
            raise StreamError(f"parts after the finishReason of candidate {index}")
        streaming = state.streaming  # the parts are checked from where the last chunk left
        state.open = None if streaming is None else streaming.args
        state.open_name = "" if streaming is None else streaming.tool.name
        steps: list[Step] = []
        if role is not None:
            steps.append(_role(role))
        steps.extend(self._part(state, index, self._mapping(part, "a part")) for part in parts)
        citations = _citations(candidate.get("citationMetadata"))
        if citations is not None:
            self._list(citations, "the citations")
        extra = {
            k: v
            for k, v in candidate.items()
            if k not in ("index", "content", "finishReason") and v is not None
        }
        if extra:
            steps.append(lambda state: _others(state, extra))
        if reason is not None:
            steps.append(lambda state: self._finish(state, index, reason))
        return index, steps

    def _event(self, data: Mapping[str, Any]) -> list[Update]:
        self._fresh = []
        try:
            return super()._event(data)
        except StreamError:
            for index in self._fresh:  # candidates made only to check the refused chunk
                if index not in self._placed:
                    del self._candidates[index]
            raise

    def _part(self, state: _Candidate, index: int, part: Mapping[str, Any]) -> Step:
        call = part.get("functionCall")
        if call is not None:
            if part.get("text") is not None:
                raise self._malformed("a part with both text and a functionCall")
            plan = self._call_plan(state, part, self._mapping(call, "the functionCall"))
            return lambda state: self._apply_call(state, plan)
        if state.open is not None:
            raise StreamError(
                f"a part of another kind while a function call's arguments stream in candidate "
                f"{index}"
            )
        if _TEXT_KEYS.issuperset(part):
            text = self._opt_str(part.get("text"), "the text") or ""
            thought = part.get("thought")
            if thought is not None and not isinstance(thought, bool):
                raise self._malformed(f"thought is {describe(thought)}, not a boolean")
            signature = self._opt_str(part.get("thoughtSignature"), "the thoughtSignature")
            return lambda state: self._apply_text(
                state, index, part, text, bool(thought), signature
            )
        return lambda state: self._apply_other(state, index, part)

    # -- text and other parts -----------------------------------------------------------------

    def _apply_text(
        self,
        state: _Candidate,
        index: int,
        part: Mapping[str, Any],
        text: str,
        thought: bool,
        signature: str | None,
    ) -> list[Update]:
        last = state.parts[-1] if state.joinable else None
        if (
            last is None
            or bool(last.get("thought")) != thought
            or (signature is not None and last.get("thoughtSignature") not in (None, signature))
        ):
            last = {key: value for key, value in part.items() if value is not None}
            state.parts.append(last)
            state.joinable = True
        else:
            if text:
                self._check_text(last, "text")
                self._append(last, "text", text)
            if signature is not None:
                last["thoughtSignature"] = signature
        kind = "thought" if thought else "text"
        if text:
            return [Update("text", index, last, kind, text, thinking=thought)]
        if signature is not None:
            return [Update("signature", index, last, kind, thinking=thought)]
        return []

    def _apply_other(self, state: _Candidate, index: int, part: Mapping[str, Any]) -> list[Update]:
        kept = dict(part)
        state.parts.append(kept)
        state.joinable = False
        return [Update("part", index, kept)]

    # -- function calls -----------------------------------------------------------------------

    def _call_plan(
        self, state: _Candidate, part: Mapping[str, Any], call: Mapping[str, Any]
    ) -> _CallPlan:
        name = self._opt_str(call.get("name"), "the function name")
        id = self._opt_str(call.get("id"), "the function call id")
        args = call.get("args")
        partial = call.get("partialArgs")
        partial = [] if partial is None else self._list(partial, "partialArgs")
        more = call.get("willContinue")
        if more is not None and not isinstance(more, bool):
            raise self._malformed(f"willContinue is {describe(more)}, not a boolean")
        self._opt_str(part.get("thoughtSignature"), "the thoughtSignature")
        if args is not None:
            args = self._mapping(args, "the function call's args")
        texts: list[str] = []
        translator = state.open
        if translator is not None:  # more of the call whose arguments stream
            old = state.open_name
            if name and name != old:
                raise StreamError(
                    f"a call to {name!r} while the arguments of the call to {old!r} stream"
                )
            if args:
                raise self._malformed("args in a call whose arguments stream as partialArgs")
            texts.extend(translator.entry(self._entry(entry), self._bad) for entry in partial)
            ends = not more
            if ends:
                texts.append(translator.finish(self._bad))
                state.open = None  # the next part may open another call
            return _CallPlan(part, call, name, id, "".join(texts), ends, None, opens=False)
        if partial or more:
            if not name:
                raise StreamError(
                    "partialArgs with no function call open (a call streams from a part that "
                    "names it, with willContinue)"
                )
            if args:
                raise self._malformed("args and partialArgs in one call")
            new = _ArgText()
            self._opened.append(new)
            texts.extend(new.entry(self._entry(entry), self._bad) for entry in partial)
            if more:
                state.open = new
                state.open_name = name
            else:
                texts.append(new.finish(self._bad))
            return _CallPlan(part, call, name, id, "".join(texts), not more, new, opens=True)
        if not name:
            raise StreamError("a functionCall with no name, and no call whose arguments stream")
        try:
            text = "" if args is None else _json_text(args)
        except ValueError as exc:
            raise self._malformed(f"the args of {name!r} are not JSON: {exc}") from None
        return _CallPlan(part, call, name, id, text, True, None, opens=True)

    def _entry(self, entry: Any) -> Mapping[str, Any]:
        return self._mapping(entry, "a partial argument")

    def _bad(self, message: str) -> StreamError:
        return StreamError(f"{self._kind}: {message}")

    def _apply_call(self, state: _Candidate, plan: _CallPlan) -> list[Update]:
        if plan.opens:
            body = {
                k: v
                for k, v in plan.call.items()
                if k not in ("partialArgs", "willContinue", "args") and v is not None
            }
            body["args"] = {}
            part = {k: v for k, v in plan.part.items() if v is not None}
            part["functionCall"] = body
            place = len(state.parts)
            state.parts.append(part)
            state.joinable = False
            tool = self._tool(place, plan.name or "", plan.id)
            entry = _Call(part, tool, plan.new if not plan.ends else None)
            state.calls[place] = entry
            if not plan.ends:
                state.streaming = entry
        else:
            entry = state.streaming  # type: ignore[assignment]
            part = entry.part
            body = part["functionCall"]
            if plan.id and body.get("id") is None:
                body["id"] = entry.tool.id = plan.id
            signature = plan.part.get("thoughtSignature")
            if signature is not None and part.get("thoughtSignature") is None:
                part["thoughtSignature"] = signature
        tool = entry.tool
        place = tool.index
        updates = []
        changed = bool(plan.text) and self._grow(tool, plan.text)
        body["args"] = tool.snapshot
        updates.append(
            Update("function_call", place, part, tool=tool, fragment=plan.text, changed=changed)
        )
        if plan.ends:
            if state.streaming is entry:
                state.streaming = None
            entry.args = None
            updates += self._end_call(entry)
        return updates

    def _end_call(self, entry: _Call) -> list[Update]:
        tool = entry.tool
        changed = self._end(tool)
        if changed is None:
            return []
        entry.part["functionCall"]["args"] = tool.final() if tool.complete else tool.snapshot
        return [Update("function_call_done", tool.index, entry.part, tool=tool, changed=changed)]

    # -- the candidate's end ------------------------------------------------------------------

    def _finish(self, state: _Candidate, index: int, reason: str) -> list[Update]:
        state.candidate["finishReason"] = reason
        updates: list[Update] = []
        if state.streaming is not None:  # cut inside its arguments (MAX_TOKENS...)
            entry, state.streaming = state.streaming, None
            entry.args = None
            updates += self._end_call(entry)
        state.finished = True
        updates.append(Update("finish", index, state.candidate))
        return updates

    _HANDLERS: ClassVar[Mapping[str, Callable[..., list[Update]]]] = {
        "chunk": _chunk,
        "error": _error_payload,
    }


# --------------------------------------------------------------------------- helpers


def _role(role: str) -> Step:
    def step(state: _Candidate) -> list[Update]:
        if state.content.get("role") is None:  # set once
            state.content["role"] = role
        return []

    return step


def _citations(meta: Any) -> Any:
    """The citations a ``citationMetadata`` brings (``None`` when it brings no list)."""
    return meta.get("citations") if isinstance(meta, Mapping) else None


def _others(state: _Candidate, extra: Mapping[str, Any]) -> list[Update]:
    """Candidate fields kept as their latest value; the citations grow."""
    candidate = state.candidate
    for key, value in extra.items():
        kept = candidate.get(key)
        if key == "citationMetadata" and isinstance(value, Mapping):
            new = dict(value)
            citations = new.get("citations")
            if isinstance(kept, dict) and isinstance(kept.get("citations"), list):
                old = kept["citations"]
                if isinstance(citations, list):
                    old.extend(citations)
                new["citations"] = old
            elif isinstance(citations, list):
                new["citations"] = list(citations)
            candidate[key] = new
        else:
            candidate[key] = value
    return []


def _plain(value: Any) -> Any:
    """A value of an SDK object's dump as the wire carries it: ``bytes`` as standard base64
    (the SDK's JSON dump uses the URL-safe alphabet), enums as their value, times in UTC as
    ``...Z``."""
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, datetime.datetime):
        text = value.isoformat()
        return text[:-6] + "Z" if text.endswith("+00:00") else text
    return value


def _rewritten(source: Mapping[str, Any], change: Callable[[Any, Any], Any]) -> dict[str, Any]:
    """A copy of ``source`` whose every scalar is ``change(key, value)`` (without recursion)."""
    data = copy_data(source)
    stack: list[Any] = [data]
    while stack:
        item = stack.pop()
        pairs = item.items() if isinstance(item, dict) else enumerate(item)
        for key, value in list(pairs):
            if isinstance(value, (dict, list)):
                stack.append(value)
            else:
                item[key] = change(key, value)
    return data


def _wire(dumped: Mapping[str, Any]) -> dict[str, Any]:
    """An SDK response's dump as plain data in the wire's shape."""
    return _rewritten(dumped, lambda key, value: _plain(value))


def _lower_type(key: Any, value: Any) -> Any:
    if key == "type" and isinstance(value, str) and value in _TYPES:
        return value.lower()
    return value


def _openapi(schema: Any) -> Any:
    """A Gemini ``Schema`` (OpenAPI's subset, its types in capitals) as JSON Schema spells it:
    the types in lower case (a copy)."""
    if not isinstance(schema, Mapping):
        return schema
    return _rewritten(schema, _lower_type)


def _dumped(value: Any) -> Any:
    dump = getattr(value, "model_dump", None)
    if callable(dump) and not isinstance(value, type):
        return dump(by_alias=True, exclude_none=True)
    return value


def _declarations(tools: Any) -> Any:
    """The request's ``tools`` (``functionDeclarations`` in each, their schema in
    ``parametersJsonSchema`` or ``parameters``) as the tool definitions ``tools=`` reads;
    anything else as it is."""
    if tools is None or isinstance(tools, (Mapping, str, bytes)):
        return tools
    try:
        items = list(tools)
    except TypeError:
        return tools
    out: list[Any] = []
    for tool in items:
        tool = _dumped(tool)
        found = None
        if isinstance(tool, Mapping):
            found = tool.get("functionDeclarations", tool.get("function_declarations"))
        if not isinstance(found, list):
            out.append(tool)
            continue
        for declaration in found:
            declaration = _dumped(declaration)
            if not isinstance(declaration, Mapping):
                out.append(declaration)  # refused by tools=, which says why
                continue
            schema = declaration.get(
                "parametersJsonSchema", declaration.get("parameters_json_schema")
            )
            if schema is None:
                schema = _openapi(declaration.get("parameters"))
            if schema is None:
                schema = {"type": "object"}  # a function without parameters: {}
            out.append({"name": declaration.get("name"), "parameters": schema})
    return out


def _response_schema(source: Any) -> Any:
    """The structured output's schema from the request's ``generationConfig`` (or the
    request body holding one): ``responseJsonSchema``, else ``responseSchema``; anything
    else as it is."""
    source = _dumped(source)
    if not isinstance(source, Mapping):
        return source
    config = source.get("generationConfig", source.get("generation_config"))
    if isinstance(config, Mapping):
        source = config
    for key in ("responseJsonSchema", "response_json_schema"):
        if source.get(key) is not None:
            return source[key]
    for key in ("responseSchema", "response_schema"):
        if source.get(key) is not None:
            return _openapi(source[key])
    return source


def accumulate(chunks: Any) -> GenerateContentAccumulator:
    """Read a whole ``streamGenerateContent?alt=sse`` body (its chunks, or the SDK's stream
    of responses) into an accumulator, closed at its end."""
    return GenerateContentAccumulator().read(chunks)
