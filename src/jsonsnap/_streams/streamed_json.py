"""Streamed JSON text: the raw text, the live snapshot, the strict value at its end, checked.

:class:`StreamedJSON` is the common part of :class:`ToolInput` and :class:`StructuredOutput`
(in ``tool_input``, where the module docstring says what they promise): the JSON text received
so far (``raw``), a :class:`jsonsnap.Parser` for the live snapshot (and, once someone asks for
it, the change feed: the text so far is then read again, once, by a parser that tracks
changes), the strict value once the protocol says the text is finished, and, with a schema,
what breaks it. Values glued after the first are read by a :class:`GluedValues` it holds.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, ClassVar, Literal

from .. import Change, FieldState, JSONDecodeError, Parser, Path, Repair, Schema, SchemaError
from .._errors import caused, mypyc_attr
from .._jsontext import NOTHING
from .._parse.changes import subscription
from .._parse.grammar import EXTRA_DATA
from .._parse.repairs import repairs_of
from .glued import GluedValues

Status = Literal["streaming", "complete", "incomplete", "invalid"]


@mypyc_attr(allow_interpreted_subclasses=True)  # (ToolInput and StructuredOutput)
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
        # The values glued after the first, once a second may begin (with ``repair=``, from
        # where the text after the first value starts: glued once it finds a value).
        self._glued: GluedValues | None = None
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
        value = self._parser.snapshot(NOTHING)
        return self._empty() if value is NOTHING else value

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
        glued = self._glued
        if glued is not None and glued.found:
            return glued.repairs(self._parser.repairs)
        return self._parser.repairs

    @property
    def glued(self) -> bool:
        """Whether the text holds several JSON values glued together (``{..}{..}``; with
        ``repair=``, also ``{..}, {..}``, or a comment or prose between them)."""
        return self._glued is not None and self._glued.found

    @property
    def values(self) -> list[Any]:
        """The JSON values the text holds: the snapshot, then, when others are glued to it,
        each of them (final, or as it shows)."""
        first = self._parser.snapshot(NOTHING)
        values = [] if first is NOTHING else [first]
        glued = self._glued
        if glued is not None and glued.found:
            values += glued.shown()
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
        if self._glued is not None and self._glued.found:
            raise self._ERROR(
                f"{where} {noun}is {len(self.values)} JSON values glued together, not one "
                f"(the second begins at char {self._glued.start}; see .values)"
            )
        found = self.violations
        if found:
            more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
            error = self._ERROR(f"{where} {noun}breaks its schema: {found[0]}{more}")
            raise caused(error, found[0])
        if self._failure is not None:
            failure = self._failure
            raise caused(self._ERROR(f"{where} {noun}does not convert: {failure}"), failure)
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
        self._glued = GluedValues(self.raw, start, self._allowed)
        return self._feed_glued(self.raw[start:])

    def _feed_glued(self, text: str) -> bool:
        glued: GluedValues = self._glued  # type: ignore[assignment]
        error = glued.feed(text, self.raw)
        if error is not None:
            self.error = error
        return glued.found

    def _close(self, raw: str | None = None) -> bool:
        """The protocol says the text is finished: parse it strictly. ``raw`` is the whole
        text when the protocol repeats it at the end; if it is not what was streamed, it
        replaces it. Whether the snapshot changed."""
        self._ended = True
        changed = raw is not None and raw != self.raw
        if changed:
            self.error = None
            self._reread(raw)  # type: ignore[arg-type]
        glued = self._glued
        if glued is not None:
            if self.error is None:
                self.error = glued.close(self.raw)
            if glued.found:
                return True
        if self.error is None:
            before = self._parser.snapshot(NOTHING)
            self._settle()
            changed = changed or self._parser.snapshot(NOTHING) is not before
        return changed

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


setattr(StreamedJSON, "__module__", "jsonsnap.streams")  # noqa: B010 (a compiled class too)
