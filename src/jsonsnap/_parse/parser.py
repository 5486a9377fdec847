"""The public parser: the object that holds the parser's parts and answers for them.

:class:`Parser` owns the lifecycle (open, failed, closed), decodes UTF-8, refuses re-entrant
calls and takes the lane's fragments (``fast.Lane``); every query it hands to the part that
knows the answer, as h11's ``Connection`` holds its ``ConnectionState``: the automaton, the
tree, the change recorder, and the schema side (made only when ``schema=`` is given, or when
``field_state()`` or ``take()`` is asked without one). The package docstring
(``jsonsnap._parse``) says what each part owns, how a fragment flows through them, and the
invariants they keep together.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Final

from .._errors import JSONDecodeError, ParserStateError, SchemaError
from .._jsontext import describe
from .changes import Change, Path, Recorder, subscription
from .decoding import Utf8, invalid
from .fast import DEFAULT, FastPaths, Lane
from .grammar import DONE, PLAIN_CHARS, SIMPLE_ESCAPES, STRING
from .observer import NOTHING
from .options import flag, resolve, schema_options, steps
from .parts import CLOSED, FAILED, OPEN, Life, make_automaton, make_tree
from .repairs import Repair, repairs_of
from .tolerant import Tolerant
from .tree import Tree, copy_value, walk
from .watched import WatchedTree

if TYPE_CHECKING:
    from .._schema.schema import Schema
    from .._schema.side import FieldState, SchemaSide

__all__ = ["Parser"]

_ERRORS: Final = (JSONDecodeError, SchemaError)


class Parser:
    """Parse one JSON document fed in fragments; show its value while it grows.

    ``feed()`` costs time proportional to the fragment; :meth:`snapshot` costs nothing (it is the
    value being built); :meth:`close` returns the final value, identical to ``json.loads`` of the
    whole text, without parsing anything again. See the module documentation of
    ``jsonsnap`` for the snapshot rules and the options.
    """

    # fmt: off
    __slots__ = (
        "_arms", "_auto", "_box", "_busy", "_decoder", "_error", "_fast", "_lane", "_lanes",
        "_life", "_notify", "_options", "_recorder", "_repair", "_rest", "_side", "_tree",
    )
    # fmt: on

    # (The options given most first: a compiled build looks up a keyword that interpreted code
    # passes in this order, each option before it costing a lookup.)
    def __init__(
        self,
        *,
        schema: Any = None,
        track_changes: object = False,
        repair: bool | Iterable[str] = False,
        on_violation: object = "raise",
        typed: object = None,
        multiple_values: object = False,
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
        _fast_paths: FastPaths = DEFAULT,
    ) -> None:
        # The flags, max_depth, on_violation and typed are declared ``object``: options checks
        # them, with the same messages in both builds (see there and the README's table).
        options = self._options = resolve(
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
            multiple_values,
        )
        self._recorder: Recorder | None = None
        self._repair = repairs_of(repair)
        mode, typing = schema_options(on_violation, typed)
        self._side: SchemaSide | None = None
        self._fast = _fast_paths
        if schema is not None or typing:
            tree: Tree = self._schema_part(schema, mode, typing).tree  # type: ignore[assignment]
        elif options.plain and _fast_paths.plain_tree:
            tree = Tree(options.partial_strings)
        else:
            tree = make_tree(options, _fast_paths, options.track_changes)
        self._build(tree)
        self._lanes: Lane | None = None  # made when first needed
        self._arms = _fast_paths.lane  # whether the lane may be taken
        self._lane: Lane | None = None  # the lane while armed (see feed)
        self._notify: Callable[[], None] | None = None  # delivers records to subscribers
        self._busy = False
        self._life: Life = OPEN
        self._error: JSONDecodeError | SchemaError | None = None
        self._decoder: Utf8 | None = None
        self._rest: list[Any] = []
        if options.track_changes:
            self._observe(keep=True)

    def _build(self, tree: Tree) -> None:
        """Build with ``tree``, read by a new automaton (before anything is read)."""
        self._tree = tree
        self._box = tree.box
        self._auto = make_automaton(tree, self._fast, self._options, self._repair)
        if self._side is not None:
            self._side.reading(self._auto)

    def _observe(self, keep: bool) -> Recorder:
        """Watch the tree with a change recorder (before anything is read)."""
        tree = self._tree
        if not isinstance(tree, WatchedTree):
            tree = make_tree(self._options, self._fast, watched=True)
            assert isinstance(tree, WatchedTree)
        recorder = self._recorder = Recorder(tree, keep)
        tree.observer = recorder
        tree.placed = True
        self._build(tree)
        return recorder

    def _schema_part(
        self, schema: Any = None, mode: str = "raise", typing: bool | None = False
    ) -> SchemaSide:
        """The schema side, made when first needed (loading the schema's modules): for
        ``schema=``, or one that checks nothing for ``field_state()`` and ``take()``."""
        side = self._side
        if side is None:
            from .._schema.side import SchemaSide

            side = self._side = SchemaSide(self, schema, mode, typing, self._options)
            self._fast = side.fast_paths(self._fast)
        return side

    def feed(self, data: str | bytes | bytearray | memoryview) -> bool:
        """Parse the next fragment (text, or UTF-8 bytes split anywhere); return whether the
        snapshot changed. Raises :class:`JSONDecodeError` at the first invalid character."""
        lane = self._lane
        if lane is not None:  # inside a visible string (see fast.Lane)
            try:
                plain = data in PLAIN_CHARS  # one plain character: the commonest case
            except (TypeError, ValueError):  # a bytearray or writable memoryview: unhashable
                plain = False
            if lane.check is not None:  # a checked string's: its checker vets each piece
                text: str | None = lane.vetted(data)
            elif tail := lane.tail:  # an escape held back, decided now
                if tail == "\\" and type(data) is str and data in SIMPLE_ESCAPES:
                    lane.tail = ""  # the escape a lone backslash began, finished
                    lane.mark -= 1  # two characters read, one shown (see Lane)
                    text = SIMPLE_ESCAPES[data]
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
            if text:  # tree.grow, written out: this runs for every character
                holder = lane.holder  # (two statements: a compiled build makes no tuple)
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
            self._leave_lane()  # the lane declined
        if self._life is not OPEN or self._busy:
            self._refuse("feed")
        text = data if type(data) is str and self._decoder is None else self._text(data)
        version = (tree := self._tree).version
        if text:
            self._busy = True
            try:  # _read, written out: this runs for every fragment
                (auto := self._auto).run(text, False)
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
                self._decode(None, True)
            return data
        if isinstance(data, (bytes, bytearray, memoryview)):
            return self._decode(bytes(data), final=False)
        raise TypeError(f"feed() takes str or bytes, not {describe(data)}")

    def close(self) -> Any:
        """End the document and return its final value (strict RFC 8259, or as repaired with
        ``repair=``; with ``multiple_values=True``, the list of the values that
        ``read_values()`` has not returned). Raises :class:`JSONDecodeError` if the document
        is invalid, or incomplete (``err.incomplete`` is then true). Calling it again returns
        the same value."""
        if self._life is CLOSED:
            return self._rest if self._options.multiple_values else self._final()
        if self._life is not OPEN or self._busy:
            self._refuse("close")
        if self._lane is not None:
            self._leave_lane()
        if self._decoder is not None:
            self._decode(None, True)
        try:
            self._read("", True)
        finally:
            if self._notify is not None:
                self._notify()
        if self._side is not None and self._side.collected():
            err = self._side.collected()[0]  # the first violation collected fails the parser
            self._failed(err)
            raise copy.copy(err)
        self._life = CLOSED
        if self._options.multiple_values:
            self._rest = self.read_values()
            return self._rest
        return self._final()

    def _final(self) -> Any:
        """The final value (converted to the schema's type when the parser is typed)."""
        side = self._side
        if side is None:
            return self._box[0]
        try:
            return side.final(self._box[0])
        except SchemaError as err:
            self._failed(err)  # (close() raises it again, as any error)
            raise

    def _refuse(self, call: str) -> None:
        if self._life is FAILED:
            raise copy.copy(self._error)  # type: ignore[misc]
        when = "while the parser is running a hook or a callback" if self._busy else "after close()"
        raise ParserStateError(f"{call}() called {when}")

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

    def _arm_lane(self) -> None:
        """Enter the lane: the automaton stopped inside a visible string."""
        if self._decoder is None:  # (bytes: the lane takes text only)
            lanes = self._lanes = self._lanes or Lane()
            self._lane = lanes.arm(self._tree, self._auto)

    def _leave_lane(self) -> None:
        """Count what the lane read, and give back what it held."""
        self._lanes.leave(self._auto)  # type: ignore[union-attr]
        self._lane = None

    def _decode(self, data: bytes | None, final: bool) -> str:
        """The text of ``data`` (``None``: text comes after bytes, which must have ended with
        a whole character); bad bytes fail the parser where they are."""
        decoder = self._decoder or Utf8()
        text, bad = decoder.flush() if data is None else decoder.decode(data, final)
        self._decoder = None if data is None or bad is not None else decoder
        if bad is None:
            return text
        if text:  # parse what decoded before the bad bytes: a JSON error there comes first
            self._read(text, final=False)
        err = invalid(self._auto, bad, final or data is None)
        self._failed(err)
        raise err

    def snapshot(self, default: Any = None, *, copy: object = False) -> Any:
        """The value so far, following the snapshot rules; ``default`` while nothing shows.
        It is the live value being built (later fragments grow its lists and dicts in place):
        treat it as read-only, or pass ``copy=True`` (``True`` or ``False``) for a copy."""
        copied = copy is not False and flag(copy, "copy")
        root = self._box[0]
        if root is NOTHING:
            return default
        return copy_value(root) if copied else root

    @property
    def done(self) -> bool:
        """Whether the top-level value is complete (only whitespace may follow; reading
        several values, whether the one ``snapshot()`` shows is complete)."""
        return self._auto.state == DONE and not self._auto.tail

    @property
    def repairs(self) -> list[Repair]:
        """The repairs made so far, in the order of the input (``repair=``; empty for strict
        JSON, and for valid JSON)."""
        auto = self._auto
        return list(auto.repairs) if isinstance(auto, Tolerant) else []

    def _ignored_at(self) -> int:
        """Where the text ignored after the value begins (``trailing_text``), or -1."""
        auto = self._auto
        return auto.ignored_at if isinstance(auto, Tolerant) else -1

    @property
    def value_index(self) -> int:
        """Which value of the stream ``snapshot()`` shows (0 for the first; always 0 but with
        ``multiple_values=True``)."""
        return self._auto.index

    def read_values(self) -> list[Any]:
        """The values completed since the last call, final, in order, and forgotten by the
        parser (needs ``multiple_values=True``). ``close()`` returns the ones still unread."""
        if not self._options.multiple_values:
            raise ValueError("read_values() needs Parser(multiple_values=True)")
        return self._auto.take_values()

    @property
    def error(self) -> JSONDecodeError | SchemaError | None:
        """The error the parser failed with, or ``None``."""
        return self._error

    @property
    def position(self) -> int:
        """How many characters have been fed (the absolute offset of the next one)."""
        auto, lane = self._auto, self._lanes
        if lane is not None and lane.holder is not None:  # armed: it counts lazily
            return auto.offset + lane.consumed() + len(lane.tail)
        return auto.offset + len(auto.tail)

    def changes(self) -> list[Change]:
        """The change records since the last call, in document order (needs
        ``track_changes=True``). Growth of an unfinished string is reported up to now."""
        recorder = self._recorder
        if recorder is None or not recorder.keep:
            raise ValueError("changes() needs Parser(track_changes=True)")
        return recorder.take()

    def subscribe(
        self,
        pattern: Sequence[object],
        callback: Callable[[Any], object],
        *,
        under: object = False,
        kinds: Iterable[type[Change]] | None = None,
    ) -> Callable[[], None]:
        """Call ``callback(change)`` for each change record whose path matches ``pattern``
        (keys and indices, :data:`jsonsnap.ANY` for any one: ``("items", ANY)`` matches each
        element of ``items``; with ``under=True``, changes below it too; ``kinds``: some of
        ``Started``, ``Appended`` and ``Completed``). Callbacks run at the end of each
        ``feed()`` and ``close()``, in document order. Returns a function that cancels it.

        A callback that raises does not stop the others; ``feed()`` then raises the first
        exception again (the parser has read the fragment: it is not failed). A callback may
        read the parser, but ``feed()`` or ``close()`` from it raise
        :class:`ParserStateError`. Without ``track_changes=True``, subscribe before the
        first ``feed()`` (records are then made for the subscribers only). Arguments of the
        wrong kind are a ``TypeError`` at the call.
        """
        where, call, below, wanted = subscription(pattern, callback, under, kinds)
        recorder = self._recorder
        if recorder is None:
            options = self._options
            if self.position or options.partial_numbers or options.partial_literals:
                raise ValueError(
                    "subscribe() comes before the first feed(), without partial_numbers or "
                    "partial_literals (or use Parser(track_changes=True))"
                )
            # Records from now on, for the subscribers only: dropped once delivered.
            recorder = self._observe(keep=False)
        cancel = recorder.subscribe(where, call, below, wanted)
        self._notify = self._deliver
        return cancel

    def _deliver(self) -> None:
        """Hand the new records to the subscribers; they may not feed the parser meanwhile."""
        lane = self._lane
        self._lane = None
        self._busy = True
        try:
            self._recorder.dispatch()  # type: ignore[union-attr]
        finally:
            self._busy = False
            self._lane = lane

    @property
    def writing(self) -> Path | None:
        """The path being written now: of the unfinished string, number or literal; of the
        member whose key has been read; of the next element of an array after ``[`` with a
        value started, or after a comma; else of the open array or object. While a key is
        being read, it ends with the key's characters so far (see ``writing_key``). ``None``
        once the top-level value is complete, and before the first one starts."""
        if self._error is not None:
            return None
        return self._auto.writing()

    @property
    def writing_key(self) -> bool:
        """Whether an object key is being read (then ``writing`` ends with it, unfinished)."""
        return self._auto.state == STRING and self._tree.in_key and self._error is None

    def is_complete(self, path: Sequence[str | int] = ()) -> bool:
        """Whether the value at ``path`` has been shown and is final (a later duplicate key
        may still replace it, as in ``json.loads``). ``path`` is a tuple (or list) of object
        keys and array indices; anything else is a ``TypeError``."""
        where = steps(path, "is_complete()")
        value, parents = walk(self._box[0], where)
        if value is NOTHING:
            return False
        return self.done or not self._auto.is_open(where, value, parents)

    @property
    def schema(self) -> Schema | None:
        """The schema the value is checked against (``None``: not checked)."""
        return None if self._side is None else self._side.schema

    @property
    def violations(self) -> list[SchemaError]:
        """The violations found so far (``on_violation="collect"``; with ``"raise"`` the first
        one is raised, and is also here), in the order they were found."""
        return [] if self._side is None else self._side.violations(self._error)

    @property
    def violations_dropped(self) -> int:
        """How many more violations were found than ``violations`` keeps (``"collect"``
        keeps the first 1,000, fewer when their paths add up to 100,000 steps: each holds
        its path, so that many more would cost memory without limit)."""
        return 0 if self._side is None else self._side.dropped

    def field_state(self, path: Sequence[str | int] = ()) -> FieldState:
        """The state of the field at ``path``: ``PENDING`` (declared by the schema and not
        seen yet), ``STREAMING``, ``COMPLETE``, ``INVALID`` (a violation at or under it), or
        ``ABSENT`` (neither in the value nor to be expected: undeclared, or its object is
        complete without it)."""
        return self._schema_part().field_state(tuple(path))

    def missing(self, path: Sequence[str | int] = ()) -> list[str]:
        """The required properties of the object at ``path`` that have not been seen (those
        its schema requires; for an object still open, as the alternatives still possible
        require)."""
        side = self._side
        return [] if side is None else side.missing(tuple(path))

    def view(self, *, defaults: bool = False, copy: bool = False) -> Any:
        """The value so far as the schema's Python type: every field its value so far or
        :data:`jsonsnap.NOT_YET` (never a value of the wrong type, nor one at or under a
        violation); a nested dataclass appears as soon as its object starts; with
        ``defaults=True`` an absent field shows its default. Live, as ``snapshot()`` is (an
        open part may be brought up to date in place: a view per fragment costs what
        changed); ``copy=True`` builds an independent one."""
        side = self._side
        if side is None or side.schema is None or side.schema.type is None:
            raise ValueError("view() needs a schema= that is a Python type")
        return side.view(defaults, copy)

    def take(self, path: Sequence[str | int] = ()) -> list[tuple[int, Any]]:
        """The elements of the array at ``path`` completed since the last call, as
        ``(index, value)``, each converted to its Python type (a typed parser) or the checked
        value; elements with a violation are left out (they are in ``violations``). An
        element its type refuses (an Enum, a constructor, pydantic) is a :class:`SchemaError`,
        raised once: by this call when it is the first element, else by the next one."""
        return self._schema_part().take(tuple(path))
