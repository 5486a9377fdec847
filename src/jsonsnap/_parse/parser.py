"""The public parser: options, lifecycle and input decoding, over the parser's parts.

The parts
=========

:class:`Parser` holds the options (resolved by ``_options``) and the lifecycle (open, failed,
closed): it decodes UTF-8, refuses re-entrant calls and takes the lane's fragments
(``_fast.Lane``); its read side (the snapshot, positions, the change feed, the queries) is
:class:`~jsonsnap._parse.reading.Reading`, which it derives from. It hands text to the automaton
(``_automaton``, with ``_tokens``: the states, positions, errors), which reads the grammar
(``_grammar``) and tells the builder (``_tree``) what it read; the fast paths (``_fast``) read
the same grammar in bigger steps. The change recorder (``_changes``) observes the builder
through the observer interface (``_observer``). With ``repair=``, the automaton is the tolerant
one (``_tolerant``), which reads where strict JSON ends and records each repair; with
``multiple_values=True``, a value after the first begins the next one. Each module's docstring
says what it owns and what it must never do.

Invariants
==========

1. Everything before the automaton's ``tail`` has been read exactly once; its ``offset`` (once
   the lane has been settled) is the absolute position of ``tail[0]`` in the stream, and
   ``lines``/``line_start`` count the ``\\n`` read so far, so errors carry absolute positions
   without keeping the text.
2. A value is linked into the tree only when the snapshot rules allow it to be shown, and then
   it is never unlinked (the ``partial_numbers`` and ``partial_literals`` options add one
   *provisional* value at the end of a ``feed()``, which the next call takes back first).
3. An error is raised at the first character no continuation could accept, before anything
   at or after it touches the tree; the parser then keeps raising it, and the tree stays as
   it was: the snapshot of the text before the offending character.
4. Every input costs time and memory proportional to its size: no text is read twice but for
   a bounded amount (the tail, at most 24 characters; a failed offer to the C scanner, at
   most once more), and a record or report costs the same at any depth.
5. The fast paths change nothing that can be seen: with any of them off, every snapshot,
   record, final value and error is the same.
"""

from __future__ import annotations

import codecs
import copy
from collections.abc import Callable, Iterable
from typing import Any

from .._errors import JSONDecodeError, ParserStateError, SchemaError, describe
from .._schema.checker import checked_fast_paths
from .changes import Recorder
from .fast import DEFAULT, FastPaths, Lane
from .grammar import PLAIN_CHARS, SIMPLE_ESCAPES, STRING
from .observer import NOTHING
from .options import flag, resolve, schema_options, text_of
from .reading import CLOSED, FAILED, OPEN, Reading
from .repairs import repairs_of
from .tree import Tree

__all__ = ["Parser", "loads", "parse_partial"]

_ERRORS = (JSONDecodeError, SchemaError)


class Parser(Reading):
    """Parse one JSON document fed in fragments; show its value while it grows.

    ``feed()`` costs time proportional to the fragment; :meth:`snapshot` costs nothing (it is the
    value being built); :meth:`close` returns the final value, identical to ``json.loads`` of the
    whole text, without parsing anything again. See the module documentation of
    ``jsonsnap`` for the snapshot rules and the options. (What it shows, its change feed and
    its queries are defined on :class:`~jsonsnap._parse.reading.Reading`.)
    """

    __slots__ = ("_rest",)  # (the others are declared by Reading)

    _rest: list[Any]  # several values: what close() returned

    def __init__(
        self,
        *,
        partial_strings: object = True,
        partial_numbers: object = False,
        partial_literals: object = False,
        allow_nan: object = False,
        parse_float: Callable[[str], Any] | None = None,
        parse_int: Callable[[str], Any] | None = None,
        parse_constant: Callable[[str], Any] | None = None,
        object_hook: Callable[[dict[str, Any]], Any] | None = None,
        object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None,
        max_depth: object = None,
        track_changes: object = False,
        schema: Any = None,
        on_violation: object = "raise",
        typed: object = None,
        repair: bool | Iterable[str] = False,
        multiple_values: object = False,
        _fast_paths: FastPaths = DEFAULT,
    ) -> None:
        # The flags, max_depth, on_violation and typed are declared ``object``: _options checks
        # them, with the same messages in both builds (see there). The README's table of
        # options says what each takes: bool flags, max_depth an int or None, on_violation
        # "raise" or "collect", typed True, False or None.
        self._options, plain = resolve(
            partial_strings,
            partial_numbers,
            partial_literals,
            allow_nan,
            parse_float,
            parse_int,
            parse_constant,
            object_hook,
            object_pairs_hook,
            max_depth,
            track_changes,
        )
        watched = track_changes is True  # (a bool: resolve() checked it)
        self._recorder: Recorder | None = None
        self._repair = repairs_of(repair)
        multiple = self._multiple = flag(multiple_values, "multiple_values")
        mode, typing = schema_options(on_violation, typed)
        if multiple and schema is not None:
            raise ValueError("schema does not go with multiple_values (yet)")
        checked = self._set_schema(schema, mode, typing)
        if checked is not None:
            _fast_paths = checked_fast_paths(_fast_paths)
        self._fast = _fast_paths
        if checked is not None:
            tree: Tree = checked
        elif plain and _fast_paths.plain_tree:
            tree = Tree(self._options[0])
        else:
            tree = self._make_tree(watched)
        self._tree = tree
        self._box = tree.box
        self._auto = self._automaton(tree)
        if checked is not None:
            checked.auto = self._auto
        self._lanes: Lane | None = None  # made when first needed
        self._arms = _fast_paths.lane  # whether the lane may be taken
        self._lane: Lane | None = None  # the lane while armed (see feed)
        self._notify: Callable[[], None] | None = None  # delivers records to subscribers
        self._busy = False
        self._life = OPEN
        self._error: JSONDecodeError | SchemaError | None = None
        self._decoder: codecs.IncrementalDecoder | None = None
        if watched:
            self._observe(keep=True)

    # ------------------------------------------------------------------ reading

    def feed(self, data: str | bytes | bytearray | memoryview) -> bool:
        """Parse the next fragment of the document; return whether the snapshot changed.

        ``data`` is text, or UTF-8 bytes (a character may be split across fragments). Raises
        :class:`JSONDecodeError` at the first character that no continuation could make valid;
        after that every call raises it again.
        """
        lane = self._lane
        if lane is not None:  # inside a visible string (see _fast.Lane)
            try:
                plain = data in PLAIN_CHARS  # one plain character: the commonest case
            except (TypeError, ValueError):  # a bytearray or writable memoryview: unhashable
                plain = False
            tail = lane.tail
            if tail:
                if tail == "\\" and type(data) is str and data in SIMPLE_ESCAPES:
                    lane.tail = ""  # the escape a lone backslash began, finished
                    lane.mark -= 1  # two characters read, one shown (see Lane)
                    text: str | None = SIMPLE_ESCAPES[data]
                else:
                    text = lane.take(data)
            elif plain:
                text = data  # type: ignore[assignment]
            elif type(data) is not str or ('"' in data and '\\"' not in data):
                text = None  # the string ends in it (or bytes): the lane declines
            elif "\\" not in data and data.isprintable():
                text = data  # plain text (or "", printable too)
            elif data == "\\":  # an escape begins: the next fragment says which
                lane.tail = data
                return False
            else:
                text = lane.take(data)
            if text:  # _tree.grow, written out: this runs for every character
                holder = lane.holder
                key = lane.key
                s: str = holder[key]  # (typed: a compiled build then appends in place)
                holder[key] = None
                s += text
                holder[key] = s
                if self._notify is not None:
                    self._notify()
                return True
            if text is not None:
                return False  # held back, or empty
            auto = self._auto  # _leave_lane, written out: the lane declined
            read, auto.tail = lane.leave()
            auto.offset += read
            self._lane = None
        if self._life is not OPEN or self._busy:
            self._refuse("feed")
        text = data if type(data) is str and self._decoder is None else self._text(data)
        tree = self._tree
        version = tree.version
        if text:
            auto = self._auto
            self._busy = True
            try:  # _read, written out: this runs for every fragment
                auto.run(text, False)
            except BaseException as exc:
                self._failed(exc if isinstance(exc, _ERRORS) else auto.stopped)
                raise
            finally:
                self._busy = False
                if self._notify is not None:
                    self._notify()
            if auto.state is STRING and tree.slot is not None and self._arms:
                self._arm_lane()
        return tree.version != version

    def _text(self, data: object) -> str:
        """The text of a fragment that is not plain ``str`` (or comes after bytes)."""
        if isinstance(data, str):
            if self._decoder is not None:
                self._flush_decoder()
            return data
        if isinstance(data, (bytes, bytearray, memoryview)):
            return self._decode(bytes(data), final=False)
        raise TypeError(f"feed() takes str or bytes, not {describe(data)}")

    def close(self) -> Any:
        """End the document and return its final value (strict RFC 8259, or as repaired with
        ``repair=``; with ``multiple_values=True``, the list of the values that
        ``read_values()`` has not returned).

        Raises :class:`JSONDecodeError` if the document is invalid, or incomplete
        (``err.incomplete`` is then true). Calling it again returns the same value.
        """
        if self._life is CLOSED:
            if self._multiple:
                return self._rest
            return self._final()
        if self._life is not OPEN or self._busy:
            self._refuse("close")
        if self._lane is not None:
            self._leave_lane()
        if self._decoder is not None:
            self._flush_decoder()
        try:
            self._read("", True)
        finally:
            if self._notify is not None:
                self._notify()
        if self._schema is not None:
            return self._close_checked()
        self._life = CLOSED
        if self._multiple:
            self._rest = self.read_values()
            return self._rest
        return self._box[0]

    def _refuse(self, call: str) -> None:
        if self._life is FAILED:
            raise copy.copy(self._error)  # type: ignore[misc]
        if self._busy:
            raise ParserStateError(
                f"{call}() called while the parser is running a hook or a callback"
            )
        raise ParserStateError(f"{call}() called after close()")

    def _read(self, text: str, final: bool) -> None:
        """Hand ``text`` to the automaton; an error fails the parser (for an exception from a
        hook, with the error the automaton made of it)."""
        auto = self._auto
        self._busy = True
        try:
            auto.run(text, final)
        except BaseException as exc:
            self._failed(exc if isinstance(exc, _ERRORS) else auto.stopped)
            raise
        finally:
            self._busy = False

    def _failed(self, err: JSONDecodeError | SchemaError) -> None:
        if self._lane is not None:
            self._leave_lane()
        self._error = err
        self._life = FAILED

    # ------------------------------------------------------------------ the lane

    def _arm_lane(self) -> None:
        """Enter the lane: the automaton stopped inside a visible string."""
        if self._decoder is not None:  # bytes: the lane takes text only
            return
        auto = self._auto
        # A string that a schema checks character by character has its fast paths off
        # (``_check``); a single-quoted string or an unquoted key (tolerant) has no lane.
        if not auto.fast.lane or auto.closer != '"':
            return
        lanes = self._lanes
        if lanes is None:
            lanes = self._lanes = Lane()
        self._lane = lanes.arm(self._tree, auto)

    def _leave_lane(self) -> None:
        """Count what the lane read, and give back what it held."""
        auto = self._auto
        read, auto.tail = self._lanes.leave()  # type: ignore[union-attr]
        auto.offset += read
        self._lane = None

    # ------------------------------------------------------------------ input decoding

    def _decode(self, data: bytes, final: bool) -> str:
        decoder = self._decoder
        if decoder is None:
            decoder = self._decoder = codecs.getincrementaldecoder("utf-8")("strict")
        try:
            return decoder.decode(data, final)
        except UnicodeDecodeError as exc:
            # Parse what decoded before the bad bytes: a JSON error there comes first.
            good = exc.object[: exc.start].decode("utf-8")
            self._decoder = None
            if good:
                self._read(good, final=False)
            auto = self._auto
            err = auto.fail(
                f"Invalid UTF-8 ({exc.reason})",
                auto.tail,
                len(auto.tail),
                incomplete=exc.end >= len(exc.object) and final,
            )
            self._failed(err)
            raise err from None

    def _flush_decoder(self) -> None:
        """Text comes after bytes: the bytes must have ended with a whole character."""
        text = self._decode(b"", final=True)
        self._decoder = None
        if text:  # pragma: no cover - a strict UTF-8 decoder holds back only incomplete sequences
            self._read(text, final=False)


def parse_partial(
    text: str | bytes | bytearray | memoryview, default: Any = None, **options: Any
) -> Any:
    """The best-effort value of a prefix of a JSON document, by the snapshot rules.

    Equivalent to ``Parser(**options)``, ``feed(text)``, ``snapshot(default)``; raises
    :class:`JSONDecodeError` if ``text`` cannot begin any valid document. With
    ``multiple_values=True``, the list of the values so far, the last one as it shows.
    """
    # A prefix rarely holds its whole top-level value: offering it to the C scanner whole
    # would only scan it twice.
    data = text_of(text, "parse_partial()")
    parser = Parser(**options, _fast_paths=_PARTIAL)
    parser.feed(data)
    if parser._multiple:
        values = parser.read_values()
        if not parser.done and (last := parser.snapshot(NOTHING)) is not NOTHING:
            values.append(last)
        return values
    return parser.snapshot(default)


_PARTIAL = FastPaths(scan_top=False)


def loads(text: str | bytes | bytearray | memoryview, **options: Any) -> Any:
    """Parse a complete JSON document strictly (or as repaired, with ``repair=``): a
    :class:`Parser` fed once and closed (with ``multiple_values=True``: the list of values)."""
    data = text_of(text, "loads()")
    parser = Parser(**options)
    parser.feed(data)
    return parser.close()
