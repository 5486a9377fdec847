"""Streamed JSON values: a tool call's input and a structured output, live and checked.

- :class:`ToolInput` keeps one streamed tool call's input: the raw JSON text, a
  :class:`jsonsnap.Parser` for the live snapshot (and, once someone asks for it, the change
  feed), and the strict value once the protocol says the input is finished. Its ``status`` is
  ``"streaming"`` until then, and afterwards ``"complete"`` (strictly parsed), ``"incomplete"``
  (the text stopped before the value did: a cut at the token limit, or a stream that ended) or
  ``"invalid"`` (a character no continuation could accept, or, with a schema, a violation).
  :meth:`ToolInput.final` is the one way to get arguments fit to run a tool with.
- :class:`StructuredOutput` is the same for the answer text of a request with a structured
  output format: the text parsed live as JSON, checked against the format's schema, and its
  final value converted to the schema's Python type when the schema is one.
- With a schema (the request's tool definitions, or its output format), the parser checks the
  value as it streams (``on_violation="collect"``): ``violations`` lists what breaks the schema
  as soon as it is certain; ``field_state()``, ``missing()`` and ``view()`` say where the value
  stands. A violation changes nothing in the snapshot: only the status and :meth:`final`.
- With ``repair=`` (the accumulator's option), the text is read tolerantly (see
  :class:`jsonsnap.Parser`), and ``repairs`` lists what was repaired.
- Two values glued together (``{..}{..}``, as some servers send parallel calls) are read as
  what they are: the first value stays the snapshot, ``values`` holds them all (the ones after
  the first read by one parser with ``multiple_values=True``, unchecked), the status is
  ``"invalid"`` and :meth:`final` says why, instead of an error at the second ``{`` (strict)
  or the second value ignored as text after the first (``repair=``). With ``repair=``, the
  text after the first value is read so from its first character on, so a value after a
  comma, a comment or prose is found too; text that holds none stays ``trailing_text``.

All of them are published in :mod:`jsonsnap.streams`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, ClassVar, Literal

from .. import Change, FieldState, JSONDecodeError, Parser, Path, Repair, Schema, SchemaError
from .._parse.changes import subscription
from .._parse.grammar import EXTRA_DATA
from .._parse.repairs import repairs_of

Status = Literal["streaming", "complete", "incomplete", "invalid"]
_NOTHING: Any = object()
#: The key of the tool schemas whose schema checks a call to any tool not named there (no
#: tool name the APIs allow has a ``*``).
ANY_TOOL = "*"
#: The compiled schemas of a request's tools, by tool name.
ToolSchemas = Mapping[str, Schema]


class ToolInputError(ValueError):
    """A tool's input is not fit to run the tool with: unfinished, invalid JSON, or (its
    ``__cause__`` the first :class:`jsonsnap.SchemaError`) a value that breaks its schema."""


class StructuredOutputError(ValueError):
    """A structured output has no value fit to use: unfinished, invalid JSON, a value that
    breaks its schema (its ``__cause__`` the first :class:`jsonsnap.SchemaError`), or one that
    does not convert to the schema's Python type."""


class StreamedJSON:
    """JSON text that streams in pieces: the raw text, the live snapshot, the strict value at
    the end and, with a schema, what breaks it. The common part of :class:`ToolInput` and
    :class:`StructuredOutput`."""

    __slots__ = (
        "_allowed",
        "_ended",
        "_failure",
        "_glued",
        "_parser",
        "_refusal",
        "_reported",
        "_schema",
        "_status",
        "_tracking",
        "_value",
        "error",
        "raw",
    )

    #: The final value is converted to the schema's Python type (when it is one).
    _TYPED: ClassVar[bool] = False
    #: The error :meth:`final` raises.
    _ERROR: ClassVar[type[ValueError]] = ValueError

    def __init__(self, schema: Schema | None = None, *, repair: Any = False) -> None:
        #: The JSON text received so far.
        self.raw = ""
        self._allowed = repairs_of(repair)  # the repairs allowed (None: strict JSON)
        #: The error that makes the text invalid JSON (position, line, column), if it is.
        self.error: JSONDecodeError | None = None
        self._schema = schema
        self._tracking = False  # a parser with track_changes=True, once someone asked
        self._parser = self._new_parser()
        self._value: Any = None
        self._failure: Exception | None = None  # the conversion to the schema's type failed
        self._status: Literal["streaming", "complete", "incomplete"] = "streaming"
        self._ended = False
        self._reported = 0  # how many violations updates have carried
        # Values glued after the first: where they start in ``raw`` (and the lines before
        # that, and where its line starts), the values read, and the parser reading them
        # (with ``repair=``, from where the text after the first value starts: glued once it
        # finds a value).
        self._glued: tuple[int, int, int, list[Any], Parser] | None = None
        self._refusal: str | None = None  # why the other side refused the value (_refuse)

    def _new_parser(self, track: bool = False) -> Parser:
        schema = self._schema
        repair = self._allowed or False
        if schema is None:
            return Parser(track_changes=track, repair=repair)
        typed = self._TYPED and schema.type is not None
        return Parser(
            track_changes=track,
            schema=schema,
            on_violation="collect",
            typed=typed,
            repair=repair,
        )

    def _empty(self) -> Any:
        """The snapshot before anything shows."""
        return None

    def _where(self) -> tuple[str, str]:
        """What it is, in :meth:`final`'s messages, and the noun for its text."""
        raise NotImplementedError

    @property
    def schema(self) -> Schema | None:
        """The schema the value is checked against (``None``: not checked)."""
        return self._schema

    @property
    def snapshot(self) -> Any:
        """The best-effort value so far (live). After a JSON error, the value of the text
        before the offending character; a violation changes nothing in it."""
        return self._parser.snapshot(self._empty())

    @property
    def status(self) -> Status:
        """``"streaming"``, then ``"complete"``, ``"incomplete"`` or ``"invalid"`` (invalid JSON,
        from its offending character on; or a violation of the schema, from where it is
        certain)."""
        if self.error is not None or self._failure is not None or self.glued:
            return "invalid"
        if self._refusal is not None:
            return "invalid"
        if self._schema is not None and self._parser.violations:
            return "invalid"
        return self._status

    @property
    def complete(self) -> bool:
        """Whether the value was strictly parsed and checked (:meth:`final` returns it)."""
        return self.status == "complete"

    @property
    def ended(self) -> bool:
        """Whether the text is over: the protocol (or ``close()``) ended it. An invalid value
        is ``"invalid"`` from its offending character on, and ended only with its call."""
        return self._ended

    @property
    def violations(self) -> list[SchemaError]:
        """What breaks the schema so far, in the order it was found (``[]`` without a schema):
        each a :class:`jsonsnap.SchemaError` with its ``path``, ``pos`` (the offset in ``raw``
        of the character that made it certain), ``keyword`` and message."""
        return [] if self._schema is None else self._parser.violations

    @property
    def violations_dropped(self) -> int:
        """How many more violations were found than :attr:`violations` keeps (the first
        1,000, fewer when their paths add up to 100,000 steps; see ``Parser``)."""
        return 0 if self._schema is None else self._parser.violations_dropped

    @property
    def repairs(self) -> list[Repair]:
        """The repairs made to read the text (``repair=``; ``[]`` for strict JSON): each a
        :class:`jsonsnap.Repair` with its kind and its place in ``raw``."""
        made = self._parser.repairs
        glued = self._glued
        if glued is not None and self.glued:
            start, lines, line_start, _, parser = glued
            made = [r for r in made if r.pos != start]  # (the glued value, as text after one)
            for r in parser.repairs:
                colno = r.colno + start - line_start if r.lineno == 1 else r.colno
                made.append(Repair(r.kind, r.pos + start, r.lineno + lines, colno))
        return made

    @property
    def glued(self) -> bool:
        """Whether the text holds several JSON values glued together (``{..}{..}``; with
        ``repair=``, also ``{..}, {..}``, or a comment or prose between them)."""
        glued = self._glued
        return glued is not None and (bool(glued[3]) or glued[4].snapshot(_NOTHING) is not _NOTHING)

    @property
    def values(self) -> list[Any]:
        """The JSON values the text holds: the snapshot, then, when others are glued to it,
        each of them (final, or as it shows)."""
        first = self._parser.snapshot(_NOTHING)
        values = [] if first is _NOTHING else [first]
        if self._glued is not None and self.glued:
            parser = self._glued[4]
            values += self._glued[3]
            if not parser.done and (last := parser.snapshot(_NOTHING)) is not _NOTHING:
                values.append(last)
        return values

    @property
    def schema_error(self) -> SchemaError | None:
        """The first violation of the schema, or ``None`` (``error`` is the JSON error)."""
        found = self.violations
        return found[0] if found else None

    def final(self) -> Any:
        """The strictly parsed value, or the error (see the subclass) when there is none."""
        status = self.status
        if status == "complete":
            return self._value
        where, noun = self._where()
        if self.error is not None:
            raise self._ERROR(f"{where} has invalid {noun}JSON: {self.error}")
        if self._refusal is not None:
            raise self._ERROR(f"{where} {noun}was refused: {self._refusal}")
        if self.glued and self._glued is not None:
            raise self._ERROR(
                f"{where} {noun}is {len(self.values)} JSON values glued together, not one "
                f"(the second begins at char {self._glued[0]}; see .values)"
            )
        found = self.violations
        if found:
            more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
            raise self._ERROR(f"{where} {noun}breaks its schema: {found[0]}{more}") from found[0]
        if self._failure is not None:
            failure = self._failure
            raise self._ERROR(f"{where} {noun}does not convert: {failure}") from failure
        if status == "incomplete":
            raise self._ERROR(f"{where} {noun}was cut off before its end")
        raise self._ERROR(f"{where} {noun}is unfinished")

    # ------------------------------------------------------------------ the schema's questions

    def field_state(self, path: Sequence[str | int] = ()) -> FieldState:
        """The state of the field at ``path`` (see :meth:`jsonsnap.Parser.field_state`):
        pending, streaming, complete, invalid or absent."""
        return self._parser.field_state(path)

    def missing(self, path: Sequence[str | int] = ()) -> list[str]:
        """The properties the schema requires of the object at ``path`` that have not been
        seen (``[]`` without a schema; see :meth:`jsonsnap.Parser.missing`)."""
        return self._parser.missing(path)

    def view(self, *, defaults: bool = False, copy: bool = False) -> Any:
        """The value so far as the schema's Python type, every field its value or
        :data:`jsonsnap.NOT_YET` (see :meth:`jsonsnap.Parser.view`: live, a view after every
        update costs what changed; ``copy=True`` for an independent one); ``ValueError`` when
        the schema is not a Python type."""
        return self._parser.view(defaults=defaults, copy=copy)

    def take(self, path: Sequence[str | int] = ()) -> list[tuple[int, Any]]:
        """The elements of the array at ``path`` finished since the last call, as ``(index,
        value)`` (see :meth:`jsonsnap.Parser.take`)."""
        return self._parser.take(path)

    # ------------------------------------------------------------------ the change feed

    def changes(self) -> list[Change]:
        """The change records of the value since the last call, as
        :meth:`jsonsnap.Parser.changes` gives them (the first call: since its start)."""
        if not self._tracking:
            self._watch(self._tracked())
        return self._parser.changes()

    def subscribe(
        self,
        pattern: Sequence[object],
        callback: Callable[[Any], object],
        *,
        under: bool = False,
        kinds: Iterable[type[Change]] | None = None,
    ) -> Callable[[], None]:
        """Call ``callback(record)`` for each change record of the value whose path matches
        ``pattern`` (see :meth:`jsonsnap.Parser.subscribe`). Returns a function that cancels it.

        The change feed starts when first asked for: the first subscription (unless
        :meth:`changes` came first) gets the records of the text received so far, at once,
        then the rest as it arrives; a later one, the records from then on."""
        # Checked before anything starts; what it gives is passed on (``kinds`` may be an
        # iterator, used up by the check).
        pattern, callback, under, kinds = subscription(pattern, callback, under, kinds)
        if self._tracking:
            return self._parser.subscribe(pattern, callback, under=under, kinds=kinds)
        parser = self._tracked()
        cancel = parser.subscribe(pattern, callback, under=under, kinds=kinds)
        self._watch(parser)
        return cancel

    @property
    def writing(self) -> Path | None:
        """The path being written now (see :attr:`jsonsnap.Parser.writing`)."""
        return self._parser.writing

    def is_complete(self, path: Sequence[str | int] = ()) -> bool:
        """Whether the value at ``path`` is shown and final (see
        :meth:`jsonsnap.Parser.is_complete`)."""
        return self._parser.is_complete(path)

    def _tracked(self) -> Parser:
        """A parser for the change feed (what decides the schema is settled first)."""
        return self._new_parser(track=True)

    def _watch(self, parser: Parser) -> None:
        """Start the change feed: the text so far is read again, once, by a parser with
        ``track_changes=True``, which takes the later fragments alone. (Until then, a plain
        parser costs less.)"""
        self._tracking = True
        self._reread(self.raw, parser)

    # ------------------------------------------------------------------ for the accumulators

    def _feed(self, fragment: str) -> bool:
        """A piece of the text; whether the snapshot changed."""
        raw = self.raw
        self.raw = ""  # let go of the string, so that it grows in place
        raw += fragment
        self.raw = raw
        if self.error is not None:
            return False
        if self._glued is not None:
            return self._feed_glued(fragment)
        parser = self._parser
        try:
            changed = parser.feed(fragment)
        except JSONDecodeError as err:
            if err.msg == EXTRA_DATA and self.raw[err.pos] in "{[":  # a value glued to the first
                self._glue(err.pos)
            else:
                self.error = err
            return True
        if self._allowed is not None:  # text after the first value: a value glued to it?
            at = parser._ignored_at()
            if at >= 0:
                return self._glue(at) or changed
        return changed

    def _glue(self, start: int) -> bool:
        """A value glued to the first begins at ``raw[start]``: read it, and any after it
        (whether one is glued, as :meth:`_feed_glued` says)."""
        raw = self.raw
        lines = raw.count("\n", 0, start)
        parser = Parser(multiple_values=True, repair=self._allowed or False)
        self._glued = (start, lines, raw.rfind("\n", 0, start) + 1, [], parser)
        return self._feed_glued(raw[start:])

    def _feed_glued(self, text: str) -> bool:
        start, _, _, values, parser = self._glued  # type: ignore[misc]
        try:
            parser.feed(text)
        except JSONDecodeError as err:
            if self.glued:  # (before a value is found, the text after the first is text)
                self.error = JSONDecodeError(err.msg, self.raw, start + err.pos)
        values += parser.read_values()
        return self.glued

    def _close(self, raw: str | None = None) -> bool:
        """The protocol says the text is finished: parse it strictly. ``raw`` is the whole
        text when the protocol repeats it at the end; if it is not what was streamed, it
        replaces it. Whether the snapshot changed."""
        self._ended = True
        changed = raw is not None and raw != self.raw
        if changed:
            self.error = None
            self._reread(raw)  # type: ignore[arg-type]
        if self._glued is not None:
            self._close_glued()
            if self.glued:
                return True
        if self.error is None:
            before = self._parser.snapshot(_NOTHING)
            self._settle()
            changed = changed or self._parser.snapshot(_NOTHING) is not before
        return changed

    def _close_glued(self) -> None:
        """The text of glued values is finished."""
        start, _, _, values, parser = self._glued  # type: ignore[misc]
        if self.error is None:
            try:
                values += parser.close()
            except JSONDecodeError as err:
                if self.glued:
                    self.error = JSONDecodeError(
                        err.msg, self.raw, start + err.pos, incomplete=err.incomplete
                    )

    def _refuse(self, reason: str) -> None:
        """The other side refused the value, whole as it is (a UI message stream's
        ``tool-input-error``): it is not fit to use, for ``reason``."""
        self._refusal = reason

    def _cut(self) -> None:
        """The stream ended before the protocol ended the text."""
        self._ended = True
        self._status = "incomplete"

    def _settle(self) -> None:
        try:
            self._value = self._parser.close()
        except JSONDecodeError:  # at the end of the text: it stopped too soon
            self._status = "incomplete"
            return
        except SchemaError:  # whole JSON, whose violations make it invalid
            pass
        except (TypeError, ValueError) as exc:  # the schema's type refused the value
            self._failure = exc
        self._status = "complete"

    def _reread(self, raw: str, parser: Parser | None = None) -> None:
        """A new parser (``parser``, or a fresh one) for ``raw``, in the state the value is in.
        When the protocol's whole text replaces the streamed one, the subscriptions go with
        the parser that read the streamed text."""
        self._parser = parser or self._new_parser(self._tracking)
        self.raw = ""
        self.error = None
        self._glued = None
        self._feed(raw)
        if self._status == "complete" and self.error is None:
            self._settle()

    def _new_violations(self) -> tuple[SchemaError, ...]:
        """The violations found since the last call (for the update of the event that found
        them)."""
        if self._schema is None:
            return ()
        found = self._parser.violations
        reported, self._reported = self._reported, len(found)
        return tuple(found[reported:])


class ToolInput(StreamedJSON):
    """The streamed JSON input (arguments) of one tool call.

    Checked against the schema of the tool's definition when the accumulator was given the
    request's ``tools``: the schema of the name the call has when its input starts (its first
    fragment, or the first call to :meth:`changes` or :meth:`subscribe`). A call to a tool that
    is not among them is parsed unchecked (``schema`` is ``None``). An empty input counts as
    ``{}``, and is checked as ``{}``."""

    __slots__ = ("_schemas", "id", "index", "name")

    _ERROR = ToolInputError

    def __init__(
        self,
        index: int,
        name: str,
        id: str | None = None,
        *,
        schemas: ToolSchemas | None = None,
        repair: Any = False,
    ) -> None:
        super().__init__(repair=repair)
        #: Where the call is: the content block, tool call or output item index.
        self.index = index
        self.name = name
        self.id = id
        self._schemas = schemas or None  # until the schema is chosen

    def _empty(self) -> Any:
        return {}

    def _where(self) -> tuple[str, str]:
        return f"tool {self.name!r} ({self.index})", "input "

    def _choose(self) -> None:
        """Choose the schema by the tool's name now (once)."""
        schemas, self._schemas = self._schemas, None
        if schemas is not None:
            schema = schemas.get(self.name)
            self._schema = schemas.get(ANY_TOOL) if schema is None else schema
            if self._schema is not None:
                self._parser = self._new_parser(self._tracking)

    def _tracked(self) -> Parser:
        if self._schemas is not None:
            self._choose()
        return super()._tracked()

    def _feed(self, fragment: str) -> bool:
        if self._schemas is not None:
            self._choose()
        return super()._feed(fragment)

    def _close(self, raw: str | None = None) -> bool:
        if self._schemas is not None:
            self._choose()
        return super()._close(raw)

    def _settle(self) -> None:
        if not self.raw.strip():
            if self._schema is None:
                self._value = {}
                self._status = "complete"
                return
            self._parser.feed("{}")  # checked as what it stands for
        super()._settle()

    def __repr__(self) -> str:
        return f"<ToolInput {self.index} {self.name!r} {self.status}, {len(self.raw)} chars>"


class StructuredOutput(StreamedJSON):
    """The answer text of a request with a structured output format (``output_schema=`` of an
    accumulator), parsed live as JSON and checked against the format's schema.

    Every piece of answer text goes to it (not reasoning, not a refusal): the text blocks of an
    Anthropic message, a Chat Completions choice's ``content``, a response's ``output_text``.
    It ends with the stream (a choice with its ``finish_reason``). :meth:`final` returns the
    value converted to the schema's Python type when the schema is one (a dataclass, a pydantic
    model...), the JSON value otherwise; :meth:`view` shows the partial value as that type."""

    __slots__ = ("choice",)

    _TYPED = True
    _ERROR = StructuredOutputError

    def __init__(self, schema: Schema, choice: int | None = None, *, repair: Any = False) -> None:
        super().__init__(schema, repair=repair)
        #: The Chat Completions choice it is the answer of (``None`` in the other protocols).
        self.choice = choice

    def _where(self) -> tuple[str, str]:
        if self.choice is None:
            return "the structured output", ""
        return f"the structured output of choice {self.choice}", ""

    def final(self) -> Any:
        """The value, strictly parsed, checked and converted, or
        :class:`StructuredOutputError` when there is none."""
        if self.ended and self.status == "incomplete" and not self.raw.strip():
            where = self._where()[0]
            raise StructuredOutputError(f"{where} is empty (no answer text, or a refusal)")
        return super().final()

    def __repr__(self) -> str:
        choice = "" if self.choice is None else f" of choice {self.choice}"
        return f"<StructuredOutput{choice} {self.status}, {len(self.raw)} chars>"


for _cls in (ToolInputError, StructuredOutputError, StreamedJSON, ToolInput, StructuredOutput):
    _cls.__module__ = "jsonsnap.streams"
