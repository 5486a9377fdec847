"""The public parser: options, lifecycle and input decoding, over the parser's parts.

Layout
======

Each part calls the next one way, and owns what its docstring says it owns:

==================  ==========================================================================
``_parser``         :class:`Parser`: the options (validated and resolved once, as ``json``
                    resolves ``parse_float or float``), the lifecycle (open, failed, closed),
                    UTF-8 decoding, re-entrancy, and the lane's entry; ``loads``,
                    ``parse_partial``
``_automaton``      the resumable tokenizer, one method per state; the only owner of positions
                    and of positioned errors
``_grammar``        the states and their transitions as data, the token patterns, the messages
``_fast``           the fast paths, which read the same grammar in bigger steps, and
                    :class:`~jsonsnap._fast.FastPaths`, which says which of them run
``_tree``           the builder: the value, the one place that links a value into its parent,
                    object hooks, ``max_depth``, provisional values; it reports every value
                    that appears, grows or completes to its observer
``_changes``        the change records, and the recorder that observes the tree for
                    ``changes()`` and ``subscribe()``
==================  ==========================================================================

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
   a bounded amount (the tail, at most 12 characters; a failed offer to the C scanner, at
   most once more), and a record or report costs the same at any depth.
5. The fast paths change nothing that can be seen: with any of them off, every snapshot,
   record, final value and error is the same.
"""

from __future__ import annotations

import codecs
import copy
from collections.abc import Callable, Iterable, Sequence
from enum import Enum
from typing import Any, Final

from ._automaton import Automaton
from ._changes import Change, Path, Recorder
from ._errors import JSONDecodeError, ParserStateError
from ._fast import DEFAULT, FastPaths, Lane
from ._grammar import CONSTANT_VALUES, DONE, PLAIN_CHARS, SIMPLE_ESCAPES, STRING
from ._tree import NOTHING, Tree, WatchedTree

__all__ = ["Parser", "loads", "parse_partial"]


class _Life(Enum):
    """The parser's lifecycle: open, then closed by close() or failed by an error."""

    OPEN = "open"
    FAILED = "failed"
    CLOSED = "closed"


_OPEN: Final = _Life.OPEN
_FAILED: Final = _Life.FAILED
_CLOSED: Final = _Life.CLOSED


def _copy_tree(value: Any) -> Any:
    """An independent copy of the lists and dicts in ``value``, without recursion."""
    kind = type(value)
    if kind is not list and kind is not dict:
        return value
    root: Any = kind()
    todo: list[tuple[Any, Any]] = [(value, root)]
    while todo:
        src, dst = todo.pop()
        if type(src) is list:
            dst.extend(src)
            items: Any = enumerate(src)
        else:
            dst.update(src)
            items = src.items()
        for key, item in items:
            kind = type(item)
            if kind is list or kind is dict:
                child: Any = kind()
                dst[key] = child
                todo.append((item, child))
    return root


_FLAGS = ("partial_strings", "partial_numbers", "partial_literals", "allow_nan", "track_changes")
_HOOKS = ("parse_float", "parse_int", "parse_constant", "object_hook", "object_pairs_hook")


def _check_options(flags: tuple[object, ...], hooks: tuple[object, ...], depth: object) -> None:
    """Refuse options of the wrong type or value, naming them."""
    for name, value in zip(_FLAGS, flags, strict=True):
        if type(value) is not bool:
            raise TypeError(f"{name} must be True or False, not {value!r}")
    for name, value in zip(_HOOKS, hooks, strict=True):
        if value is not None and not callable(value):
            raise TypeError(f"{name} must be callable or None, not {value!r}")
    if depth is not None:
        if type(depth) is not int:
            raise TypeError(f"max_depth must be None or an int, not {depth!r}")
        if depth < 0:
            raise ValueError("max_depth must be None or a non-negative integer")
    if flags[4] and (flags[1] or flags[2]):
        raise ValueError("track_changes does not go with partial_numbers or partial_literals")


#: The options, checked, with the hooks and number converters resolved (see _make_options).
_Options = tuple[
    bool,  # partial_strings
    bool,  # partial_numbers
    bool,  # partial_literals
    bool,  # allow_nan
    Callable[[str], Any],  # to_int: parse_int or int
    Callable[[str], Any],  # to_float: parse_float or float
    Callable[[str], Any],  # constant: parse_constant or the standard values
    Callable[[dict[str, Any]], Any] | None,  # object_hook
    Callable[[list[tuple[str, Any]]], Any] | None,  # object_pairs_hook
    int | None,  # max_depth
    bool,  # hooked: any hook, so no C scanner (hooks run once per value)
]


class Parser:
    """Parse one JSON document fed in fragments; show its value while it grows.

    ``feed()`` costs time proportional to the fragment; :meth:`snapshot` costs nothing (it is the
    value being built); :meth:`close` returns the final value, identical to ``json.loads`` of the
    whole text, without parsing anything again. See the module documentation of
    ``jsonsnap`` for the snapshot rules and the options.
    """

    __slots__ = (
        "_arms",
        "_auto",
        "_box",
        "_busy",
        "_decoder",
        "_error",
        "_fast",
        "_lane",
        "_lanes",
        "_life",
        "_notify",
        "_options",
        "_recorder",
        "_tree",
    )

    def __init__(
        self,
        *,
        partial_strings: bool = True,
        partial_numbers: bool = False,
        partial_literals: bool = False,
        allow_nan: bool = False,
        parse_float: Callable[[str], Any] | None = None,
        parse_int: Callable[[str], Any] | None = None,
        parse_constant: Callable[[str], Any] | None = None,
        object_hook: Callable[[dict[str, Any]], Any] | None = None,
        object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None,
        max_depth: int | None = None,
        track_changes: bool = False,
        _fast_paths: FastPaths = DEFAULT,
    ) -> None:
        plain = (
            type(partial_strings)
            is type(partial_numbers)
            is type(partial_literals)
            is type(allow_nan)
            is type(track_changes)
            is bool
            and parse_float is None
            and parse_int is None
            and parse_constant is None
            and object_hook is None
            and object_pairs_hook is None
            and max_depth is None
            and not (track_changes or partial_numbers or partial_literals)
        )
        if not plain:  # anything but the defaults (checked at once, the common case)
            _check_options(
                (partial_strings, partial_numbers, partial_literals, allow_nan, track_changes),
                (parse_float, parse_int, parse_constant, object_hook, object_pairs_hook),
                max_depth,
            )
        self._options: _Options = (
            partial_strings,
            partial_numbers,
            partial_literals,
            allow_nan,
            parse_int or int,
            parse_float or float,
            parse_constant or CONSTANT_VALUES.__getitem__,
            object_hook,
            object_pairs_hook,
            max_depth,
            bool(parse_float or parse_int or parse_constant or object_hook or object_pairs_hook),
        )
        self._fast = _fast_paths
        self._recorder: Recorder | None = None
        if plain and _fast_paths.plain_tree:
            tree: Tree = Tree(partial_strings)
        else:
            tree = self._make_tree(watched=track_changes)
        self._tree = tree
        self._box = tree.box
        self._auto = Automaton(tree, _fast_paths, self._options)
        self._lanes: Lane | None = None  # made when first needed
        self._arms = _fast_paths.lane  # whether the lane may be taken
        self._lane: Lane | None = None  # the lane while armed (see feed)
        self._notify: Callable[[], None] | None = None  # delivers records to subscribers
        self._busy = False
        self._life = _OPEN
        self._error: JSONDecodeError | None = None
        self._decoder: codecs.IncrementalDecoder | None = None
        if track_changes:
            self._observe(keep=True)

    def _make_tree(self, watched: bool) -> Tree:
        """A plain tree, or a watched one for hooks, a depth limit, provisional values or an
        observer (or when the ``plain_tree`` fast path is off)."""
        partial_strings, partial_numbers, partial_literals = self._options[:3]
        object_hook, pairs_hook, depth, hooked = self._options[7:]
        if (
            watched
            or hooked
            or depth is not None
            or partial_numbers
            or partial_literals
            or not self._fast.plain_tree
        ):
            return WatchedTree(
                partial_strings,
                object_hook=object_hook,
                pairs_hook=pairs_hook,
                max_depth=depth,
            )
        return Tree(partial_strings)

    def _observe(self, keep: bool) -> Recorder:
        """Watch the tree with a change recorder (before anything is read)."""
        tree = self._tree
        if not isinstance(tree, WatchedTree):
            tree = self._make_tree(watched=True)
            assert isinstance(tree, WatchedTree)
            self._tree = tree
            self._box = tree.box
        recorder = self._recorder = Recorder(tree, keep)
        tree.observer = recorder
        self._auto = Automaton(tree, self._fast, self._options)
        return recorder

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
            if not tail and (
                plain
                or (
                    type(data) is str
                    and data
                    and '"' not in data
                    and "\\" not in data
                    and data.isprintable()
                )
            ):
                text = data
            elif data == "\\" and not tail:  # an escape begins: the next fragment says which
                lane.tail = data
                return False
            elif tail == "\\" and type(data) is str and data in SIMPLE_ESCAPES:  # ... this one
                lane.tail = ""
                lane.mark -= 1  # two characters read, one shown (see Lane)
                text = SIMPLE_ESCAPES[data]
            else:
                text = lane.take(data)  # type: ignore[assignment]
            if text:
                # _tree.grow, written out: this runs for every character of a long string.
                holder = lane.holder
                key = lane.key
                s = holder[key]
                holder[key] = None
                s += text
                holder[key] = s
                if self._notify is not None:
                    self._notify()
                return True
            if text is not None:
                return False  # held back
            auto = self._auto
            read, auto.tail = lane.leave()
            auto.offset += read
            self._lane = None
        if self._life is not _OPEN or self._busy:
            self._refuse("feed")
        text = data if type(data) is str and self._decoder is None else self._text(data)
        tree = self._tree
        version = tree.version
        if text:
            auto = self._auto
            self._busy = True
            try:  # _read, written out: this runs for every fragment
                auto.run(text, False)
            except JSONDecodeError as err:
                self._failed(err)
                raise
            except BaseException:
                self._failed(auto.stopped)
                raise
            finally:
                self._busy = False
                if self._notify is not None:
                    self._notify()
            if auto.state is STRING and tree.slot is not None and self._arms:
                if self._lanes is not None and self._decoder is None:
                    self._lane = self._lanes.arm(tree, auto)
                else:
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
        raise TypeError(f"feed() takes str or bytes, not {type(data).__name__}")

    def close(self) -> Any:
        """End the document and return its final value (strict RFC 8259).

        Raises :class:`JSONDecodeError` if the document is invalid, or incomplete
        (``err.incomplete`` is then true). Calling it again returns the same value.
        """
        if self._life is _CLOSED:
            return self._box[0]
        if self._life is not _OPEN or self._busy:
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
        self._life = _CLOSED
        return self._box[0]

    def _refuse(self, call: str) -> None:
        if self._life is _FAILED:
            raise copy.copy(self._error)  # type: ignore[misc]
        if self._busy:
            raise ParserStateError(
                f"{call}() called while the parser is running a hook or a callback"
            )
        raise ParserStateError(f"{call}() called after close()")

    def _read(self, text: str, final: bool) -> None:
        """Hand ``text`` to the automaton; an error fails the parser (for an exception from a
        hook, with the error the automaton made of it)."""
        self._busy = True
        try:
            self._auto.run(text, final)
        except JSONDecodeError as err:
            self._failed(err)
            raise
        except BaseException:
            self._failed(self._auto.stopped)
            raise
        finally:
            self._busy = False

    def _failed(self, err: JSONDecodeError) -> None:
        if self._lane is not None:
            self._leave_lane()
        self._error = err
        self._life = _FAILED

    # ------------------------------------------------------------------ the lane

    def _arm_lane(self) -> None:
        """Enter the lane: the automaton stopped inside a visible string."""
        if self._decoder is not None:  # bytes: the lane takes text only
            return
        lanes = self._lanes
        if lanes is None:
            lanes = self._lanes = Lane()
        self._lane = lanes.arm(self._tree, self._auto)

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

    # ------------------------------------------------------------------ the value

    def snapshot(self, default: Any = None, *, copy: bool = False) -> Any:
        """The value so far, following the snapshot rules; ``default`` while nothing shows.

        The result is the live value being built: later fragments grow its lists and dicts in
        place. Treat it as read-only; pass ``copy=True`` for an independent copy.
        """
        root = self._box[0]
        if root is not NOTHING:
            return _copy_tree(root) if copy else root
        return default

    @property
    def done(self) -> bool:
        """Whether the top-level value is complete (only whitespace may follow)."""
        return self._auto.state == DONE and not self._auto.tail

    @property
    def error(self) -> JSONDecodeError | None:
        """The error the parser failed with, or ``None``."""
        return self._error

    @property
    def position(self) -> int:
        """How many characters have been fed (the absolute offset of the next one)."""
        auto = self._auto
        lane = self._lanes
        if lane is not None and lane.holder is not None:  # armed: it counts lazily
            return auto.offset + lane.consumed() + len(lane.tail)
        return auto.offset + len(auto.tail)

    # ------------------------------------------------------------------ changes

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
        under: bool = False,
        kinds: Iterable[type[Change]] | None = None,
    ) -> Callable[[], None]:
        """Call ``callback(change)`` for each change record whose path matches ``pattern``.

        ``pattern`` is a sequence of keys and indices, with :data:`jsonsnap.ANY` for any one of
        them: ``("items", ANY)`` matches each element of ``items``. With ``under=True`` changes
        below the pattern match too. ``kinds`` limits the records to some of ``Started``,
        ``Appended`` and ``Completed``. Callbacks run at the end of each ``feed()`` (and of
        ``close()``), after the parser has taken the fragment, in document order. Returns a
        function that cancels the subscription.

        A callback that raises does not stop the others: every record of the fragment still
        reaches every other subscription, then ``feed()`` raises the first exception again
        (the parser is not failed: it has read the fragment). A callback may read the parser
        (``snapshot()``, ``position``, ``changes()``...) but not ``feed()`` or ``close()`` it:
        that raises :class:`ParserStateError`.

        Without ``track_changes=True``, subscribe before the first ``feed()``: the parser then
        makes records for the subscribers only.
        """
        recorder = self._recorder
        if recorder is None:
            partial_numbers, partial_literals = self._options[1:3]
            if self.position or partial_numbers or partial_literals:
                raise ValueError(
                    "subscribe() comes before the first feed(), without partial_numbers or "
                    "partial_literals (or use Parser(track_changes=True))"
                )
            # Records from now on, for the subscribers only: dropped once delivered.
            recorder = self._observe(keep=False)
        wanted = None if kinds is None else tuple(kinds)
        cancel = recorder.subscribe(tuple(pattern), callback, under, wanted)
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
        may still replace it, as in ``json.loads``)."""
        value: Any = self._box[0]
        if value is NOTHING:
            return False
        parents: list[Any] = []
        for step in path:
            if isinstance(value, str):
                return False  # a string has no parts to be complete
            parents.append(value)
            if type(step) is int and step < 0:
                return False  # paths count from the start
            try:
                value = value[step]
            except (KeyError, IndexError, TypeError):
                return False
        if self.done:
            return True
        return not self._auto.is_open(tuple(path), value, parents)


def parse_partial(text: str | bytes, default: Any = None, **options: Any) -> Any:
    """The best-effort value of a prefix of a JSON document, by the snapshot rules.

    Equivalent to ``Parser(**options)``, ``feed(text)``, ``snapshot(default)``; raises
    :class:`JSONDecodeError` if ``text`` cannot begin any valid document.
    """
    # A prefix rarely holds its whole top-level value: offering it to the C scanner whole
    # would only scan it twice.
    parser = Parser(**options, _fast_paths=_PARTIAL)
    parser.feed(text)
    return parser.snapshot(default)


_PARTIAL = FastPaths(scan_top=False)


def loads(text: str | bytes, **options: Any) -> Any:
    """Parse a complete JSON document strictly: a :class:`Parser` fed once and closed."""
    parser = Parser(**options)
    parser.feed(text)
    return parser.close()
