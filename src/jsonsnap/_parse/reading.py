"""What a parser shows: its value, its positions, its change feed and what it is writing.

:class:`Reading` is the read side of :class:`~jsonsnap.Parser` (which derives from it and adds
``feed()`` and ``close()``): the snapshot, ``done``, ``error`` and ``position``; the change
records and subscriptions, whose recorder it attaches to the tree (``_observe``); and the
queries ``writing``, ``writing_key`` and ``is_complete``, which it answers from the automaton's
state and the tree. It holds the parser's attributes. Nothing here reads input or changes the
value; ``subscribe()`` may only, before anything is read, swap the plain tree for a watched one.
"""

from __future__ import annotations

import codecs
from collections.abc import Callable, Iterable, Sequence
from enum import Enum
from typing import Any, Final

from .._errors import JSONDecodeError, SchemaError
from .._schema.checker import CheckedTree
from .._schema.side import Validating
from .automaton import Automaton
from .changes import Change, Path, Recorder, subscription
from .fast import FastPaths, Lane
from .grammar import DONE, STRING
from .observer import NOTHING
from .options import Options, flag, steps
from .repairs import Repair
from .tolerant import Tolerant
from .tree import Tree, WatchedTree, copy_value

__all__ = ["CLOSED", "FAILED", "OPEN", "Reading"]


class Life(Enum):
    """The parser's lifecycle: open, then closed by close() or failed by an error."""

    OPEN = "open"
    FAILED = "failed"
    CLOSED = "closed"


OPEN: Final = Life.OPEN
FAILED: Final = Life.FAILED
CLOSED: Final = Life.CLOSED


class Reading(Validating):
    """The read side of a parser (see the module docstring)."""

    __slots__ = (
        "_arms",  # whether the lane may be taken
        "_auto",  # the automaton
        "_box",  # the tree's root slot
        "_busy",  # in feed() or close(), a hook or a callback: no re-entry
        "_decoder",  # UTF-8 bytes held back
        "_error",  # the error the parser failed with
        "_fast",  # the fast paths
        "_lane",  # the lane while armed (see _fast.Lane)
        "_lanes",  # the lane, made when first needed
        "_life",  # OPEN, FAILED or CLOSED
        "_multiple",  # whether several values are read, one after the other
        "_notify",  # delivers records to subscribers
        "_options",  # the options, resolved
        "_recorder",  # the change recorder
        "_repair",  # the repairs allowed, or None for strict JSON
        "_tree",  # the builder
    )

    _arms: bool
    _auto: Automaton
    _box: list[Any]
    _busy: bool
    _decoder: codecs.IncrementalDecoder | None
    _error: JSONDecodeError | SchemaError | None
    _fast: FastPaths
    _lane: Lane | None
    _lanes: Lane | None
    _life: Life
    _notify: Callable[[], None] | None
    _multiple: bool
    _options: Options
    _recorder: Recorder | None
    _repair: frozenset[str] | None
    _tree: Tree

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

    def _automaton(self, tree: Tree) -> Automaton:
        """The automaton that reads into ``tree``: strict, or tolerant with ``repair``."""
        allowed = self._repair
        if allowed is None:
            auto = Automaton(tree, self._fast, self._options)
        else:
            auto = Tolerant(tree, self._fast, self._options, allowed)
        if self._multiple:
            auto.multiple = auto.open_ended = True
        return auto

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
        tree.placed = True
        self._auto = self._automaton(tree)
        if isinstance(tree, CheckedTree):
            tree.auto = self._auto
        return recorder

    # ------------------------------------------------------------------ the value

    def snapshot(self, default: Any = None, *, copy: object = False) -> Any:
        """The value so far, following the snapshot rules; ``default`` while nothing shows.

        The result is the live value being built: later fragments grow its lists and dicts in
        place. Treat it as read-only; pass ``copy=True`` for an independent copy (``copy`` is
        ``True`` or ``False``).
        """
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

    # ------------------------------------------------------------------ repairs, several values

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
        if not self._multiple:
            raise ValueError("read_values() needs Parser(multiple_values=True)")
        auto = self._auto
        if auto.state == DONE and not auto.tail:
            auto.collect()
        values = auto.values
        auto.values = []
        return values

    def _life_closed(self) -> None:
        self._life = CLOSED

    @property
    def error(self) -> JSONDecodeError | SchemaError | None:
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
        under: object = False,
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
        makes records for the subscribers only. Arguments of the wrong kind (a pattern that is
        not a tuple of keys, indices and ``ANY``, a callback that is not callable, a kind that
        is not one of the three) are a ``TypeError`` at the call.
        """
        where, call, below, wanted = subscription(pattern, callback, under, kinds)
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
        value: Any = self._box[0]
        if value is NOTHING:
            return False
        parents: list[Any] = []
        for step in where:
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
        return not self._auto.is_open(where, value, parents)
