"""The incremental parser: one grammar, one state machine, for live snapshots and the final value.

Design
======

A :class:`Parser` is a pushdown automaton whose whole state lives in a few attributes, so that
parsing can stop after any character and resume when the next fragment arrives:

``_state``
    what the grammar expects next (one of the ``_VALUE`` ... ``_DONE`` constants below);
``_stack``
    the open containers, innermost last. They are the very ``list``/``dict`` objects of the
    value being built, already linked into their parent: the snapshot *is* the root object, and
    it grows in place. No recursion anywhere, so depth is limited only by memory (or
    ``max_depth``);
``_keys``
    for each open container, the key of the member being read (``None`` for arrays);
``_slot``, ``_slot_key``, ``_str``
    the string being read. A visible string value lives in its parent only, at
    ``_slot[_slot_key]`` (the root lives in ``_box[0]``, so that it has a slot too); to append
    without copying, the slot is emptied for the duration of ``s += text``, so CPython resizes
    the string in place (it does when it holds the only reference). A key, or a string hidden
    by ``partial_strings=False``, is built in ``_str`` and ``_slot`` is ``None``;
``_lane``
    the slot again while the parser sits inside a visible string: ``feed()`` then appends a
    fragment of plain printable text straight to it, a lone backslash and the character that
    completes a simple escape (one character at a time), or any fragment of string content
    (see ``_lane_escaped``), without entering the automaton (the common case of a long
    argument streamed in small pieces). The lane does not count what it reads: ``_offset``
    is brought up to date by ``_settle()`` from the string's growth since ``_lane_mark``
    (which an escape, read as more characters than it shows, moves back);
``_tail``
    the only input kept between calls: the unconsumed end of the last fragment, which is always
    the beginning of one token that cannot be decided yet: a number (``12`` may become
    ``123``), a literal (``fal``), an escape (``\\u00``) or a high-surrogate escape waiting to see
    whether a low one follows. It is a few characters long (except for absurdly long numbers).

``feed()`` prepends the tail to the fragment and runs :meth:`Parser._run` over it, which walks
positions, never slices, and hands long runs to compiled regexes: whitespace, the body of a
string (plain characters and complete escapes at once, decoded by the standard library's C
string scanner), and numbers. Python code runs only at token boundaries.

Fast paths read the same grammar in bigger steps, and tests/test_fast_paths.py holds each to
the automaton (same snapshots, values and errors): the lane above; one regex match for a
plain key, its colon and a scalar value (``_MEMBER_RE``), or a scalar element
(``_ELEMENT_RE``); long string content decoded in windows (``_decode_long``); and an array or
object offered whole to the standard library's C scanner when much input is left
(``_scan``).

Change records (``track_changes``, subscriptions; see ``_changes``) are made where values
are linked and finished (``_open``, ``_close``, ``_open_string``, ``_done``), with paths
computed from the stack; string growth is reported lazily, so the lane stays free of them.
``_version`` counts changes to the snapshot, for ``feed()``'s answer.

Invariants
==========

1. Everything before ``_tail`` has been consumed exactly once; ``_offset`` (once settled) is
   the absolute position of ``_tail[0]`` in the stream, and ``_lines``/``_line_start`` count
   the ``\\n`` consumed so far, so errors carry absolute positions without keeping the text.
2. A value is linked into the tree only when the snapshot rules allow it to be shown, and then
   it is never unlinked (the ``partial_numbers`` and ``partial_literals`` options add one
   *provisional* value at the end of a ``feed()``, which the next call takes back first).
3. An error is raised at the first character no continuation could accept, before anything
   at or after it touches the tree; the parser then keeps raising it, and the tree stays as
   it was: the snapshot of the text before the offending character.
"""

from __future__ import annotations

import codecs
import copy
import json.decoder
import json.scanner
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Final

from ._changes import Appended, Change, Completed, Path, Started, matches
from ._errors import JSONDecodeError

__all__ = ["Parser", "loads", "parse_partial"]

# The standard library's string decoder (C when available): content after an opening quote
# up to the closing one -> (decoded text, position after the quote).
_scanstring: Callable[[str, int, bool], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]

# What the grammar expects next.
_VALUE: Final = 0  # a value: at the top, after ':' and after ',' in an array
_ARRAY_START: Final = 1  # a value or ']' (just after '[')
_OBJECT_START: Final = 2  # a key or '}' (just after '{')
_KEY: Final = 3  # a key (after ',' in an object)
_COLON: Final = 4  # ':' after a key
_AFTER: Final = 5  # ',' or the closing bracket, after a member
_STRING: Final = 6  # inside a string (a key when _in_key)
_DONE: Final = 7  # the top-level value is complete: only whitespace may follow

_NOTHING: Any = object()  # the root before anything can be shown

_WS = " \t\n\r"
_WS_RE: Final = re.compile(r"[ \t\n\r]*")
# The longest prefix of a number: a '.' and an exponent are only allowed after a digit, so the
# match stops at the first character that cannot continue the number.
_NUMBER_RE: Final = re.compile(
    r"-?(?:0|[1-9][0-9]*)?(?:(?<=[0-9])\.[0-9]*)?(?:(?<=[0-9])[eE][-+]?[0-9]*)?"
)
# The longest prefix of a number's text that is a number itself (for partial_numbers).
_VALID_NUMBER_RE: Final = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")
# Fast paths for the common members and elements: a plain key and its colon, then a whole
# scalar value (a string without escapes, a number that a delimiter ends, a literal), the
# whitespace after it and its comma. Anything else is left to the automaton, which reads the
# same grammar one token at a time (tests/test_fast_paths.py checks that they agree).
_SCALAR_STARTS: Final = frozenset('"-0123456789tfn')
_LITERALS: Final = {"true": True, "false": False, "null": None}


def _scalar_pattern(closer: str) -> str:
    return (
        r'(?:"([^"\\\x00-\x1f]*)"'
        r"|(-?(?:0|[1-9][0-9]*)((?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?))(?=[ \t\n\r," + closer + "])"
        r"|(true|false|null))"
        r"[ \t\n\r]*(?:(,)[ \t\n\r]*)?"
    )


_MEMBER_RE: Final = re.compile(
    r'"([^"\\\x00-\x1f]*)"[ \t\n\r]*:[ \t\n\r]*(?:' + _scalar_pattern("}") + ")?"
)
_ELEMENT_RE: Final = re.compile(_scalar_pattern(r"\]"))
# Arrays and objects that start with at least this much input left in the buffer (a one-shot
# parse, a large fragment) are first offered whole to the standard library's C scanner, which
# gives the value if it is complete and valid there. Only without hooks or max_depth, so that
# hooks run exactly once per value.
_SCAN_MIN: Final = 128
# Whether feed() may take the fast lane inside strings (see Parser._lane_escaped).
_LANE: Final = True


def _refuse_constant(name: str) -> Any:
    raise ValueError(name)


_make_scanner: Any = json.scanner.make_scanner
_SCANNERS: Final[dict[bool, Callable[[str, int], tuple[Any, int]]]] = {
    allow_nan: _make_scanner(
        json.JSONDecoder(parse_constant=None if allow_nan else _refuse_constant)
    )
    for allow_nan in (False, True)
}
# String content without escapes, and content made of plain runs and complete escapes.
_PLAIN_RE: Final = re.compile(r'[^"\\\x00-\x1f]*')
_RUN_RE: Final = re.compile(r'(?:[^"\\\x00-\x1f]+|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*')
# String content with escapes longer than this in one buffer goes to the C scanner in windows
# that start this wide and double (see Parser._decode_long).
_LONG_STRING: Final = 512
_WINDOW: Final = 1024
# The beginning of an escape that the next fragment will finish (a held high surrogate is longer).
_ESCAPE_START_RE: Final = re.compile(r"\\(?:u[0-9a-fA-F]{0,3})?")
# The beginning of a low-surrogate escape (\uDC00-\uDFFF) that the next fragment may finish.
_LOW_START_RE: Final = re.compile(r"\\(?:u(?:[dD](?:[c-fC-F][0-9a-fA-F]?)?)?)?")
_HEX: Final = frozenset("0123456789abcdefABCDEF")
# Character classes of a low-surrogate escape, \uDC00 to \uDFFF, position by position.
_LOW_SURROGATE: Final = ("\\", "u", "dD", "cdefCDEF", _HEX, _HEX)
# Printable ASCII but the quote and the backslash: string content as it is (one hash lookup
# tells a one-character fragment of it, the common case of text streamed a character at a time).
_PLAIN_CHARS: Final = frozenset(map(chr, range(32, 127))) - {'"', "\\"}
_SIMPLE_ESCAPES: Final = dict(zip('"\\/bfnrt', '"\\/\b\f\n\r\t', strict=True))
_DIGITS: Final = "0123456789"
# What may end a number inside an object (False) or an array (True).
_ENDS: Final = (",}", ",]")

# Messages, worded as the standard library words them where it has the same error.
_EXPECTING_VALUE: Final = "Expecting value"
_EXPECTING_COMMA: Final = "Expecting ',' delimiter"
_EXPECTING_COLON: Final = "Expecting ':' delimiter"
_EXPECTING_KEY: Final = "Expecting property name enclosed in double quotes"
_EXTRA_DATA: Final = "Extra data"

_INCOMPLETE_MESSAGES: Final = {
    _VALUE: _EXPECTING_VALUE,
    _ARRAY_START: _EXPECTING_VALUE,
    _OBJECT_START: _EXPECTING_KEY,
    _KEY: _EXPECTING_KEY,
    _COLON: _EXPECTING_COLON,
    _AFTER: _EXPECTING_COMMA,
    _STRING: "Unterminated string",
}


def _high_surrogate_ends(buf: str, start: int, stop: int) -> bool:
    """Whether ``buf[start:stop]``, string content that starts at a token boundary, ends with a
    ``\\uD800``-``\\uDBFF`` escape (and not with an escaped backslash followed by ``uD8..``)."""
    k = stop - 6
    if k < start or buf[k] != "\\" or buf[k + 3] not in "89abAB" or buf[k + 2] not in "dD":
        return False
    slashes = 0
    while k > start and buf[k - 1] == "\\":
        slashes += 1
        k -= 1
    return slashes % 2 == 0


def _escape_boundary(buf: str, start: int, stop: int) -> int:
    """The last position in string content ``buf[start:stop]`` (which begins at a token
    boundary) up to which every escape is complete and decided.

    Escapes are at most 6 characters long (a surrogate pair, 12), so only the last 12 characters
    can hold an unfinished one: cut at the last backslash run there, or before a high surrogate
    escape that the text after the cut could still pair with.
    """
    cut = buf.rfind("\\", max(start, stop - 12), stop)
    if cut < 0:
        return stop
    while cut > start and buf[cut - 1] == "\\":
        cut -= 1
    if _high_surrogate_ends(buf, start, cut):
        cut -= 6
    return cut


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


class Parser:
    """Parse one JSON document fed in fragments; show its value while it grows.

    ``feed()`` costs time proportional to the fragment; :meth:`snapshot` costs nothing (it is the
    value being built); :meth:`close` returns the final value, identical to ``json.loads`` of the
    whole text, without parsing anything again. See the module documentation of
    ``jsonsnap`` for the snapshot rules and the options.
    """

    __slots__ = (
        "_allow_nan",
        "_box",
        "_changes",
        "_closed",
        "_decoder",
        "_dispatched",
        "_error",
        "_in_key",
        "_keep",
        "_keys",
        "_lane",
        "_lane_mark",
        "_line_start",
        "_lines",
        "_max_depth",
        "_object_hook",
        "_offset",
        "_pairs",
        "_pairs_hook",
        "_parse_constant",
        "_parse_float",
        "_parse_int",
        "_partial_literals",
        "_partial_numbers",
        "_partial_strings",
        "_plain",
        "_provisional",
        "_quote_hint",
        "_retracted",
        "_route",
        "_scan_block",
        "_scan_fail",
        "_scan_top",
        "_scanner",
        "_slot",
        "_slot_key",
        "_stack",
        "_state",
        "_str",
        "_str_mark",
        "_str_path",
        "_subs",
        "_tail",
        "_version",
        "_watch",
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
    ) -> None:
        if max_depth is not None and max_depth < 0:
            raise ValueError("max_depth must be None or a non-negative integer")
        if track_changes and (partial_numbers or partial_literals):
            raise ValueError("track_changes does not go with partial_numbers or partial_literals")
        self._partial_strings = partial_strings
        self._partial_numbers = partial_numbers
        self._partial_literals = partial_literals
        self._allow_nan = allow_nan
        self._parse_float = parse_float
        self._parse_int = parse_int
        self._parse_constant = parse_constant
        self._object_hook = object_hook
        self._pairs_hook = object_pairs_hook
        self._max_depth = max_depth

        self._state = _VALUE
        self._stack: list[Any] = []
        self._keys: list[str | None] = []
        # One list of (key, value) pairs per open object, kept only for object_pairs_hook.
        self._pairs: list[list[tuple[str, Any]]] | None = [] if object_pairs_hook else None
        self._box: list[Any] = [_NOTHING]
        self._slot: Any = None
        self._slot_key: Any = None
        self._lane: Any = None
        self._lane_mark = 0  # the lane string's length when _offset was last brought up to date
        self._str = ""
        self._in_key = False
        self._tail = ""
        self._offset = 0
        self._lines = 0
        self._line_start = 0
        # (container or None for the root, key or None, previous value or _NOTHING)
        self._provisional: tuple[Any, Any, Any] | None = None
        # The provisional value last taken back: (container, key or index, value).
        self._retracted: tuple[Any, Any, Any] | None = None
        self._quote_hint: tuple[int, int] | None = None
        # Without object hooks, a depth limit or change records, brackets are handled inline.
        self._plain = not (
            object_pairs_hook or object_hook or max_depth is not None or track_changes
        )
        # Change records (None when not kept), how many went to subscribers, the subscribers,
        # and the open string's path and length already reported.
        self._changes: list[Change] | None = [] if track_changes else None
        self._keep = track_changes  # records kept for changes(), not only for subscribers
        self._dispatched = 0
        # The subscribers of the open string's path: (that path, their callbacks).
        self._route: tuple[Path, list[Callable[[Any], object]]] | None = None
        self._subs: list[tuple[tuple[object, ...], bool, Any, Callable[[Any], object]]] = []
        self._str_path: Path = ()
        self._str_mark = 0
        # Whether finished values are reported (object_pairs_hook, change records).
        self._watch = object_pairs_hook is not None or track_changes
        # Counts changes to the snapshot, for feed()'s answer.
        self._version = 0
        hooked = parse_float or parse_int or parse_constant or object_hook or object_pairs_hook
        watched = hooked or max_depth is not None or track_changes
        self._scanner = None if watched else _SCANNERS[allow_nan]
        # Where the last offer to the scanner failed, and before where not to offer again.
        self._scan_fail = self._scan_block = -1
        self._scan_top = True  # parse_partial, expecting an unfinished document, says False
        self._decoder: codecs.IncrementalDecoder | None = None
        self._error: JSONDecodeError | None = None
        self._closed = False

    # ------------------------------------------------------------------ public API

    def feed(self, data: str | bytes | bytearray | memoryview) -> bool:
        """Parse the next fragment of the document; return whether the snapshot changed.

        ``data`` is text, or UTF-8 bytes (a character may be split across fragments). Raises
        :class:`JSONDecodeError` at the first character that no continuation could make valid;
        after that every call raises it again.
        """
        lane = self._lane
        if lane is not None:
            try:
                char = data in _PLAIN_CHARS  # one plain character: the commonest case
            except TypeError:  # a bytearray: not hashable
                char = False
            tail = self._tail
            if not tail:
                if char or (
                    type(data) is str
                    and (data and '"' not in data and "\\" not in data and data.isprintable())
                ):
                    key = self._slot_key
                    s = lane[key]
                    lane[key] = None
                    s += data
                    lane[key] = s  # _offset is brought up to date from its length, later
                    if self._subs:
                        self._dispatch()
                    return True
                if data == "\\":  # an escape begins: the next fragment says which
                    self._tail = data
                    return False
            elif tail == "\\" and type(data) is str and data in _SIMPLE_ESCAPES:  # ... this does
                self._tail = ""
                self._lane_mark -= 1  # two characters read, one shown (see _settle)
                key = self._slot_key
                s = lane[key]
                lane[key] = None
                s += _SIMPLE_ESCAPES[data]
                lane[key] = s
                if self._subs:
                    self._dispatch()
                return True
            taken = self._lane_escaped(data) if type(data) is str else -1
            if taken >= 0:
                if self._subs:
                    self._dispatch()
                return taken == 1
        if self._error is not None:
            raise self._reraise()
        if self._closed:
            raise ValueError("feed() called after close()")
        if isinstance(data, str):
            if self._decoder is not None:
                self._flush_decoder()
            text = data
        elif isinstance(data, (bytes, bytearray, memoryview)):
            text = self._decode(bytes(data) if not isinstance(data, bytes) else data, final=False)
        else:
            raise TypeError(f"feed() takes str or bytes, not {type(data).__name__}")
        version = self._version
        if text:
            try:
                self._parse(text, final=False)
            finally:
                if self._subs:
                    self._dispatch()
        return self._version != version

    def _lane_escaped(self, data: str) -> int:
        """The fast lane for a fragment with escapes: take it if, after what is held back, it
        is string content (plain text and whole escapes) up to its end or up to an escape the
        next fragment will finish or pair; anything else (a quote, an error, a confirmed lone
        surrogate before a partial escape) goes to the automaton. Returns -1 when not taken,
        else 1 if the string grew, 0 if the fragment was only held back."""
        tail = self._tail
        buf = tail + data if tail else data
        end = len(buf)
        j = _RUN_RE.match(buf).end()  # type: ignore[union-attr]
        if j >= 6 and buf[j - 6] == "\\" and _high_surrogate_ends(buf, 0, j):
            # Held back while what follows may still become its low half.
            if j < end and _LOW_START_RE.fullmatch(buf, j) is None:
                return -1
            j -= 6
        elif j < end and _ESCAPE_START_RE.fullmatch(buf, j) is None:
            return -1
        if not j:
            self._tail = buf
            return 0
        if j < end:
            text = _scanstring(buf[:j] + '"', 0, True)[0]
            self._tail = buf[j:]
        else:
            text = _scanstring(buf + '"', 0, True)[0]
            self._tail = ""
        lane = self._lane
        key = self._slot_key
        s = lane[key]
        lane[key] = None
        s += text
        lane[key] = s
        self._lane_mark += len(text) - j  # j characters read (see _settle)
        return 1

    def snapshot(self, default: Any = None, *, copy: bool = False) -> Any:
        """The value so far, following the snapshot rules; ``default`` while nothing shows.

        The result is the live value being built: later fragments grow its lists and dicts in
        place. Treat it as read-only; pass ``copy=True`` for an independent copy.
        """
        root = self._box[0]
        if root is _NOTHING:
            return default
        return _copy_tree(root) if copy else root

    def close(self) -> Any:
        """End the document and return its final value (strict RFC 8259).

        Raises :class:`JSONDecodeError` if the document is invalid, or incomplete
        (``err.incomplete`` is then true). Calling it again returns the same value.
        """
        if self._error is not None:
            raise self._reraise()
        if not self._closed:
            if self._decoder is not None:
                self._flush_decoder()
            try:
                self._parse("", final=True)
            finally:
                if self._subs:
                    self._dispatch()
            self._closed = True
            self._lane = None
        return self._box[0]

    @property
    def done(self) -> bool:
        """Whether the top-level value is complete (only whitespace may follow)."""
        return self._state == _DONE and not self._tail

    @property
    def error(self) -> JSONDecodeError | None:
        """The error the parser failed with, or ``None``."""
        return self._error

    @property
    def position(self) -> int:
        """How many characters have been fed (the absolute offset of the next one)."""
        self._settle()
        return self._offset + len(self._tail)

    def _settle(self) -> None:
        """Bring ``_offset`` up to date with what the lane appended (it does not count)."""
        lane = self._lane
        if lane is not None:
            length = len(lane[self._slot_key])
            self._offset += length - self._lane_mark
            self._lane_mark = length

    # ------------------------------------------------------------------ changes

    def changes(self) -> list[Change]:
        """The change records since the last call, in document order (needs
        ``track_changes=True``). Growth of an unfinished string is reported up to now."""
        changes = self._changes
        if changes is None or not self._keep:
            raise ValueError("changes() needs Parser(track_changes=True)")
        self._flush_growth()
        self._changes = []
        self._dispatched = 0
        return changes

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

        Without ``track_changes=True``, subscribe before the first ``feed()``: the parser then
        makes records for the subscribers only.
        """
        if self._changes is None:
            if self._offset or self._tail or self._partial_numbers or self._partial_literals:
                raise ValueError(
                    "subscribe() comes before the first feed(), without partial_numbers or "
                    "partial_literals (or use Parser(track_changes=True))"
                )
            # Records from now on, for the subscribers only: dropped once delivered.
            self._changes = []
            self._watch = True
            self._plain = False
            self._scanner = None
        if not self._subs:  # the records so far were for changes() only
            self._flush_growth()
            self._dispatched = len(self._changes)
        wanted = None if kinds is None else tuple(kinds)
        entry = (tuple(pattern), under, wanted, callback)
        self._subs.append(entry)
        self._route = None

        def cancel() -> None:
            if entry in self._subs:
                self._subs.remove(entry)
                self._route = None

        return cancel

    def _flush_growth(self) -> None:
        if self._state == _STRING and self._slot is not None and self._changes is not None:
            self._report_growth(self._slot[self._slot_key])

    def _dispatch(self) -> None:
        """Hand the records not yet delivered to the subscribers."""
        self._flush_growth()
        changes: Any = self._changes
        start = self._dispatched
        self._dispatched = len(changes)
        if not self._keep:
            self._changes = []
            self._dispatched = 0
        for change in changes[start:]:
            path = change.path
            route = self._route
            if route is not None and route[0] is path and type(change) is Appended:
                callbacks = route[1]  # more of the string the last records were about
            else:
                callbacks = [
                    callback
                    for pattern, under, kinds, callback in self._subs
                    if (kinds is None or type(change) in kinds)
                    and matches(pattern, path, under=under)
                ]
                if type(change) is Appended:
                    self._route = (path, callbacks)
            for callback in callbacks:
                callback(change)

    @property
    def writing(self) -> Path | None:
        """The path being written now: of the unfinished string, number or literal; of the
        member whose key has been read; of the next element of an array after ``[`` with a
        value started, or after a comma; else of the open array or object. While a key is
        being read, it ends with the key's characters so far (see ``writing_key``). ``None``
        once the top-level value is complete, and before the first one starts."""
        if self._state == _DONE or self._error is not None:
            return None
        stack = self._stack
        state = self._state
        if state == _STRING:
            if self._in_key:
                partial = self._str
                return (*self._slot_path(len(stack) - 1), partial)
            return self._slot_path(len(stack))
        if not stack:
            return () if self._tail else None
        top = stack[-1]
        if state == _VALUE or (state == _ARRAY_START and self._tail):
            if type(top) is list:
                return (*self._slot_path(len(stack) - 1), len(top))
            return self._slot_path(len(stack))
        if state == _COLON:
            return self._slot_path(len(stack))
        return self._slot_path(len(stack) - 1)

    @property
    def writing_key(self) -> bool:
        """Whether an object key is being read (then ``writing`` ends with it, unfinished)."""
        return self._state == _STRING and self._in_key and self._error is None

    def is_complete(self, path: Sequence[str | int] = ()) -> bool:
        """Whether the value at ``path`` has been shown and is final (a later duplicate key
        may still replace it, as in ``json.loads``)."""
        value: Any = self._box[0]
        if value is _NOTHING:
            return False
        parents: list[Any] = []
        for step in path:
            parents.append(value)
            if type(step) is int and step < 0:
                return False  # paths count from the start
            try:
                value = value[step]
            except (KeyError, IndexError, TypeError):
                return False
        if self._state == _DONE and not self._tail:
            return True
        depth = len(path)
        stack = self._stack
        # Open: an array or object on the stack, or the unfinished string, at the same place.
        if depth < len(stack) and stack[depth] is value:
            return not all(stack[i] is parents[i] for i in range(depth))
        if self._state == _STRING and not self._in_key and self._slot is not None:
            return tuple(path) != self._slot_path(len(stack))
        return True

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
                self._parse(good, final=False)
            buf = self._tail
            raise self._fail(
                f"Invalid UTF-8 ({exc.reason})",
                buf,
                len(buf),
                incomplete=exc.end >= len(exc.object) and final,
            ) from None

    def _flush_decoder(self) -> None:
        text = self._decode(b"", final=True)
        self._decoder = None
        if text:  # pragma: no cover - a strict UTF-8 decoder holds back only incomplete sequences
            self._parse(text, final=False)

    # ------------------------------------------------------------------ errors

    def _fail(self, msg: str, buf: str, index: int, *, incomplete: bool = False) -> JSONDecodeError:
        """Record and return the error at ``buf[index]`` (``buf`` starts at ``_offset``)."""
        self._settle()
        pos = self._offset + index
        newlines = buf.count("\n", 0, index)
        lineno = self._lines + newlines + 1
        colno = index - buf.rfind("\n", 0, index) if newlines else pos - self._line_start + 1
        err = JSONDecodeError(
            msg,
            buf,
            pos,
            lineno=lineno,
            colno=colno,
            doc_offset=self._offset,
            incomplete=incomplete,
        )
        self._error = err
        self._lane = None
        return err

    def _reraise(self) -> JSONDecodeError:
        """A fresh copy of the error the parser failed with, to raise again."""
        return copy.copy(self._error)  # type: ignore[return-value]

    # ------------------------------------------------------------------ building the value

    def _attach(self, value: Any) -> None:
        """Link a new value into the member slot being read (or make it the root)."""
        if self._retracted is None or not self._same_as_retracted(value):
            self._version += 1
        stack = self._stack
        if not stack:
            self._box[0] = value
        elif type(top := stack[-1]) is list:
            top.append(value)
        else:
            top[self._keys[-1]] = value

    def _done(self, value: Any, whole: bool = False) -> None:
        """The value in the slot being read is final: give the pair to ``object_pairs_hook``,
        and record the change. ``whole``: a string read in one match, which has not had the
        records of its start and growth, as one read piece by piece has."""
        stack = self._stack
        if self._pairs is not None and stack and type(stack[-1]) is dict:
            self._pairs[-1].append((self._keys[-1], value))  # type: ignore[arg-type]
        changes = self._changes
        if changes is not None:
            path = self._slot_path(len(stack))
            if whole and type(value) is str and self._partial_strings:
                changes.append(Started(path, "string"))
                if value:
                    changes.append(Appended(path, value))
            changes.append(Completed(path, value))

    def _slot_path(self, depth: int) -> Path:
        """The path of the value in the slot being read of the container at ``depth`` (of the
        root, for 0): keys of objects and indices of the last elements of arrays."""
        stack = self._stack
        keys = self._keys
        return tuple(
            len(stack[i]) - 1 if type(stack[i]) is list else keys[i]  # type: ignore[misc]
            for i in range(depth)
        )

    def _open_string(self, key: bool) -> None:
        """An opening quote was read: start a key, or a string value (visible at once unless
        ``partial_strings`` is off)."""
        self._in_key = key
        self._str = ""
        if key or not self._partial_strings:
            self._slot = None
            return
        self._version += 1
        stack = self._stack
        if not stack:
            self._box[0] = ""
            self._slot, self._slot_key = self._box, 0
        elif type(top := stack[-1]) is list:
            top.append("")
            self._slot, self._slot_key = top, -1
        else:
            key_ = self._keys[-1]
            top[key_] = ""
            self._slot, self._slot_key = top, key_
        if self._changes is not None:
            self._str_path = path = self._slot_path(len(stack))
            self._str_mark = 0
            self._changes.append(Started(path, "string"))

    def _append_str(self, text: str) -> None:
        """Append decoded text to the string being read, in place when CPython can."""
        slot = self._slot
        if slot is None:
            s = self._str
            self._str = ""
            s += text
            self._str = s
        else:
            self._version += 1
            key = self._slot_key
            s = slot[key]
            slot[key] = None
            s += text
            slot[key] = s

    def _end_string(self) -> int:
        """The closing quote was read: finish a key or a string value; return the next state."""
        slot = self._slot
        if slot is None:
            s = self._str
            self._str = ""
        else:
            s = slot[self._slot_key]
            self._slot = None
        if self._in_key:
            self._keys[-1] = s
            return _COLON
        if slot is None:
            self._attach(s)
        elif self._changes is not None:
            self._report_growth(s)
        if self._watch:
            self._done(s)
        return _AFTER if self._stack else _DONE

    def _report_growth(self, s: str) -> None:
        """Record what the open string gained since it was last reported."""
        if len(s) > self._str_mark:
            self._changes.append(Appended(self._str_path, s[self._str_mark :]))  # type: ignore[union-attr]
            self._str_mark = len(s)

    def _open(self, container: Any, buf: str, index: int) -> None:
        if self._max_depth is not None and len(self._stack) >= self._max_depth:
            raise self._fail(f"Maximum nesting depth of {self._max_depth} exceeded", buf, index)
        self._attach(container)
        stack = self._stack
        stack.append(container)
        self._keys.append(None)
        if self._pairs is not None:
            self._pairs.append([])
        if self._changes is not None:
            path = self._slot_path(len(stack) - 1)
            self._changes.append(Started(path, "array" if type(container) is list else "object"))

    def _close(self) -> int:
        """Pop the innermost container, apply the object hooks; return the next state."""
        stack = self._stack
        value = stack.pop()
        self._keys.pop()
        pairs = self._pairs
        if pairs is not None:
            members = pairs.pop()
            if type(value) is dict:
                value = self._pairs_hook(members)  # type: ignore[misc]
                self._relink(value)
        elif self._object_hook is not None and type(value) is dict:
            value = self._object_hook(value)
            self._relink(value)
        if self._watch:
            self._done(value)
        return _AFTER if stack else _DONE

    def _relink(self, value: Any) -> None:
        """Replace the value just closed by what a hook made of it."""
        self._version += 1
        stack = self._stack
        if not stack:
            self._box[0] = value
        elif type(top := stack[-1]) is list:
            top[-1] = value
        else:
            top[self._keys[-1]] = value

    def _number(self, text: str, buf: str, index: int) -> Any:
        if "." in text or "e" in text or "E" in text:
            return float(text) if self._parse_float is None else self._parse_float(text)
        if self._parse_int is not None:
            return self._parse_int(text)
        try:
            return int(text)
        except ValueError:  # more digits than sys.get_int_max_str_digits() allows
            raise self._fail("Number too large to convert to int", buf, index) from None

    def _scan(self, buf: str, pos: int) -> int:
        """Offer the array or object at ``pos`` to the C scanner. When it is complete and valid
        in ``buf``, link it and return where it ends; else return 0.

        A failed offer costs the scan up to where it failed, at ``f``. The values nested in it
        that end before ``f`` will be offered with success, but the ones that contain ``f`` would
        each fail there again: after a second failure at the same place, offers stop until the
        input has passed it, so no text is scanned more than twice.
        """
        scanner = self._scanner
        if (
            scanner is None
            or self._offset + pos < self._scan_block
            or not (self._scan_top or self._stack)
        ):
            return 0
        try:
            value, stop = scanner(buf, pos)
        except StopIteration as exc:
            stop = exc.value
        except json.JSONDecodeError as exc:
            stop = exc.pos
        except (ValueError, RecursionError):  # NaN refused, an int too long, or too deep
            stop = len(buf)
        else:
            self._attach(value)
            return stop
        stop += self._offset
        if stop == self._scan_fail:
            self._scan_block = stop
        self._scan_fail = stop
        return 0

    def _scalar(self, m: re.Match[str], group: int, buf: str) -> Any:
        """The value of a scalar matched by ``_MEMBER_RE`` or ``_ELEMENT_RE`` from ``group``."""
        text = m[group]
        if text is not None:
            return text
        text = m[group + 1]
        if text is not None:
            return self._number(text, buf, m.start(group + 1))
        return _LITERALS[m[group + 3]]

    def _constant(self, name: str) -> Any:
        if name[0] in "tfn":
            return True if name == "true" else False if name == "false" else None
        if self._parse_constant is not None:
            return self._parse_constant(name)
        return float(name.lower().replace("infinity", "inf"))

    def _set_provisional(self, value: Any) -> None:
        stack = self._stack
        if not stack:
            self._provisional = (self._box, 0, self._box[0])
        elif type(top := stack[-1]) is list:
            self._provisional = (top, None, _NOTHING)
        else:
            key = self._keys[-1]
            self._provisional = (top, key, top.get(key, _NOTHING))
        self._attach(value)

    def _same_as_retracted(self, value: Any) -> bool:
        """Whether ``value`` goes where the provisional value just taken back was, and equals
        it: then the snapshot is as it was (the answer feed() gives)."""
        container, key, old = self._retracted  # type: ignore[misc]
        self._retracted = None
        stack = self._stack
        if not stack:
            here = container is self._box
        elif type(top := stack[-1]) is list:
            here = top is container and len(top) == key
        else:
            here = top is container and self._keys[-1] == key
        return (
            here
            and type(value) is type(old)
            and value == old
            and (type(value) is not float or repr(value) == repr(old))
        )

    def _take_back_provisional(self) -> None:
        container, key, previous = self._provisional  # type: ignore[misc]
        self._provisional = None
        slot = key
        if type(container) is list and container is not self._box:
            slot = len(container) - 1
        self._retracted = (container, slot, container[slot])
        if container is self._box:
            self._box[0] = previous
        elif type(container) is list:
            container.pop()
        elif previous is _NOTHING:
            del container[key]
        else:
            container[key] = previous

    # ------------------------------------------------------------------ the automaton

    def _parse(self, text: str, final: bool) -> None:
        if self._lane is not None:  # leaving the lane: count what it read
            self._settle()
            self._lane = None
        if self._provisional is not None:
            self._take_back_provisional()
        buf = self._tail + text if self._tail else text
        try:
            consumed = self._run(buf, final)
        except JSONDecodeError:
            self._tail = ""
            raise
        except BaseException as exc:
            # An exception from a hook (or KeyboardInterrupt) left the state half updated.
            self._fail(f"Parsing stopped by {type(exc).__name__}", buf, 0)
            raise
        if self._retracted is not None:  # taken back and not put back: a change
            self._retracted = None
            self._version += 1
        newlines = buf.count("\n", 0, consumed)
        if newlines:
            self._lines += newlines
            self._line_start = self._offset + buf.rindex("\n", 0, consumed) + 1
        self._offset += consumed
        self._tail = buf[consumed:]
        if _LANE and self._state == _STRING and self._decoder is None:
            self._lane = lane = self._slot
            if lane is not None:
                self._lane_mark = len(lane[self._slot_key])

    def _run(self, buf: str, final: bool) -> int:
        """Consume ``buf`` from the start; return where the undecided tail begins."""
        pos = 0
        end = len(buf)
        state = self._state
        stack = self._stack
        keys = self._keys
        plain = self._plain
        watch = self._watch
        try:
            while pos < end:
                if state == _STRING:
                    pos, closed = self._scan_string(buf, pos, end)
                    if closed:
                        state = self._end_string()
                    elif pos < end:  # an escape that the rest of the input will decide
                        if final:
                            break
                        return pos
                    continue

                c = buf[pos]
                if c in _WS:
                    pos = _WS_RE.match(buf, pos).end()  # type: ignore[union-attr]
                    continue

                if state == _AFTER:
                    in_list = type(stack[-1]) is list
                    if c == ",":
                        state = _VALUE if in_list else _KEY
                    elif c == ("]" if in_list else "}"):
                        if plain:
                            stack.pop()
                            keys.pop()
                            state = _AFTER if stack else _DONE
                        else:
                            state = self._close()
                    else:
                        raise self._fail(_EXPECTING_COMMA, buf, pos)
                    pos += 1
                    continue

                if state in (_VALUE, _ARRAY_START):
                    if stack and c in _SCALAR_STARTS and type(stack[-1]) is list:
                        # Fast path: a whole scalar element (and its comma) in one match.
                        m = _ELEMENT_RE.match(buf, pos)
                        if m is not None:
                            value = self._scalar(m, 1, buf)
                            if self._retracted is None or not self._same_as_retracted(value):
                                self._version += 1
                            stack[-1].append(value)
                            if watch:
                                self._done(value, True)
                            state = _VALUE if m[5] else _AFTER
                            pos = m.end()
                            continue
                    if c == '"':
                        self._open_string(False)
                        state = _STRING
                        pos += 1
                    elif c in "{[" and end - pos >= _SCAN_MIN and (j := self._scan(buf, pos)) > 0:
                        state = _AFTER if stack else _DONE
                        pos = j
                    elif c == "{" or c == "[":
                        new: Any = {} if c == "{" else []
                        if not plain:
                            self._open(new, buf, pos)
                        else:
                            if not stack:
                                self._box[0] = new
                            elif type(top := stack[-1]) is list:
                                top.append(new)
                            else:
                                top[keys[-1]] = new
                            self._version += 1
                            stack.append(new)
                            keys.append(None)
                        state = _OBJECT_START if c == "{" else _ARRAY_START
                        pos += 1
                    elif c == "]" and state == _ARRAY_START:
                        state = self._close()
                        pos += 1
                    elif c in _DIGITS or (
                        c == "-" and not (self._allow_nan and buf.startswith("-I", pos))
                    ):
                        j = _NUMBER_RE.match(buf, pos).end()  # type: ignore[union-attr]
                        if j == end and not final:
                            if self._partial_numbers:
                                shown = _VALID_NUMBER_RE.match(buf, pos)
                                if shown:
                                    self._set_provisional(self._number(shown[0], buf, pos))
                            return pos
                        if buf[j - 1] not in _DIGITS:
                            if j == end:
                                raise self._fail(_EXPECTING_VALUE, buf, end, incomplete=True)
                            raise self._fail(
                                _EXPECTING_VALUE if j == pos + 1 else "Invalid number", buf, j
                            )
                        value = self._number(buf[pos:j], buf, pos)
                        # Show the number only if what follows ends it; otherwise the next
                        # state reports the error and the number stays unshown.
                        if (
                            j == end
                            or buf[j] in _WS
                            or (stack and buf[j] in _ENDS[type(stack[-1]) is list])
                        ):
                            self._attach(value)
                            if watch:
                                self._done(value)
                        state = _AFTER if stack else _DONE
                        pos = j
                    else:
                        j = self._literal(buf, pos, end, final)
                        if j < 0:
                            return pos
                        pos = j
                        state = _AFTER if stack else _DONE
                    continue

                if state in (_OBJECT_START, _KEY):
                    if c == '"':
                        # Fast path: a plain key, its colon and a whole scalar value (and its
                        # comma) in one match; or at least the key and the colon.
                        m = _MEMBER_RE.match(buf, pos)
                        if m is not None:
                            key = keys[-1] = m[1]
                            pos = m.end()
                            if m.lastindex == 1:
                                state = _VALUE
                            else:
                                value = self._scalar(m, 2, buf)
                                if self._retracted is None or not self._same_as_retracted(value):
                                    self._version += 1
                                stack[-1][key] = value
                                if watch:
                                    self._done(value, True)
                                state = _KEY if m[6] else _AFTER
                            continue
                        self._open_string(True)
                        state = _STRING
                    elif c == "}" and state == _OBJECT_START:
                        state = self._close()
                    else:
                        raise self._fail(_EXPECTING_KEY, buf, pos)
                    pos += 1
                    continue

                if state == _COLON:
                    if c != ":":
                        raise self._fail(_EXPECTING_COLON, buf, pos)
                    state = _VALUE
                    pos += 1
                    continue

                raise self._fail(_EXTRA_DATA, buf, pos)  # _DONE

            if final and (state != _DONE or pos < end):
                raise self._fail(_INCOMPLETE_MESSAGES[state], buf, end, incomplete=True)
            return end
        finally:
            self._state = state

    def _literal(self, buf: str, pos: int, end: int, final: bool) -> int:
        """Read ``true``, ``false``, ``null`` (or the NaN family) at ``pos``; return the position
        after it, or -1 when the input ends inside it."""
        c = buf[pos]
        if c == "t":
            name = "true"
        elif c == "f":
            name = "false"
        elif c == "n":
            name = "null"
        elif self._allow_nan and c == "N":
            name = "NaN"
        elif self._allow_nan and c == "I":
            name = "Infinity"
        elif self._allow_nan and c == "-":
            name = "-Infinity"
        elif c == "\ufeff":
            raise self._fail("Unexpected byte order mark (U+FEFF)", buf, pos)
        else:
            raise self._fail(_EXPECTING_VALUE, buf, pos)
        stop = pos + len(name)
        if buf.startswith(name, pos):
            value = self._constant(name)
            self._attach(value)
            if self._watch:
                self._done(value)
            return stop
        for i in range(pos + 1, min(stop, end)):
            if buf[i] != name[i - pos]:
                raise self._fail(_EXPECTING_VALUE, buf, i)
        if final:
            raise self._fail(_EXPECTING_VALUE, buf, end, incomplete=True)
        if self._partial_literals:
            self._set_provisional(self._constant(name))
        return -1

    def _scan_string(self, buf: str, pos: int, end: int) -> tuple[int, bool]:
        """Read string content from ``pos``; return ``(position, closed)``.

        When not closed and the position is before ``end``, it is at an escape the rest of the
        input must decide (incomplete, or a high surrogate that may get its low half).
        """
        while True:
            j = _PLAIN_RE.match(buf, pos).end()  # type: ignore[union-attr]
            escaped = j < end and buf[j] == "\\"
            if escaped:
                if end - j > _LONG_STRING:
                    j = self._decode_long(buf, pos, end)
                    if j > pos:
                        pos = j
                        continue
                j = _RUN_RE.match(buf, j).end()  # type: ignore[union-attr]
                # A high surrogate at the end of the run may pair with what comes next, or be
                # followed by an error; only a closing quote confirms it here.
                if (j == end or buf[j] != '"') and _high_surrogate_ends(buf, pos, j):
                    j -= 6
            if j > pos:
                chunk = buf[pos:j]
                if escaped:
                    chunk = _scanstring(chunk + '"', 0, True)[0]
                self._append_str(chunk)
                pos = j
            if pos == end:
                return pos, False
            c = buf[pos]
            if c == '"':
                return pos + 1, True
            if c != "\\":
                raise self._fail("Invalid control character at", buf, pos)
            j = self._escape(buf, pos, end)
            if j < 0:
                return pos, False
            pos = j

    def _closes_in(self, buf: str, pos: int) -> bool:
        """Whether the string read from ``pos`` surely closes in ``buf``: true when the last
        ``"`` of ``buf`` is at or after ``pos`` and not escaped. (One scan per buffer.)"""
        hint = self._quote_hint
        if hint is None or hint[0] != id(buf):
            # Keyed by identity, without keeping the buffer alive: a stale hint for a new
            # buffer at the same address would only cost a failed scan, never a wrong value.
            quote = k = buf.rfind('"')
            while k > 0 and buf[k - 1] == "\\":
                k -= 1
            hint = self._quote_hint = (id(buf), quote if (quote - k) % 2 == 0 else -1)
        return hint[1] >= pos

    def _decode_long(self, buf: str, pos: int, end: int) -> int:
        """Fast path for a long stretch of string content with escapes (a one-shot parse, a
        large fragment): the standard library's C scanner decodes it in windows of doubling
        width, each cut at an escape boundary. Returns the position reached: the closing quote,
        or an escape the rest must decide, or (for invalid text, left to the general path to
        report exactly) a position before the problem."""
        if self._closes_in(buf, pos):
            # Some quote after ``pos`` is not escaped: the string closes in ``buf``.
            try:
                text, after = _scanstring(buf, pos, True)
            except ValueError:
                return pos
            self._append_str(text)
            return after - 1
        width = _WINDOW
        while True:
            stop = min(end, pos + width)
            cut = _escape_boundary(buf, pos, stop)
            if cut <= pos:
                return pos
            try:
                text, after = _scanstring(buf[pos:cut] + '"', 0, True)
            except ValueError:
                return pos
            self._append_str(text)
            if after <= cut - pos:  # the string closed inside the window
                return pos + after - 1
            pos = cut
            if stop == end:
                return pos
            width *= 2

    def _escape(self, buf: str, pos: int, end: int) -> int:
        """Decode the one escape at ``pos`` that a run could not take; return the position after
        it, or -1 if the input ends before it can be decided."""
        if pos + 1 == end:
            return -1
        kind = buf[pos + 1]
        if kind in _SIMPLE_ESCAPES:
            self._append_str(_SIMPLE_ESCAPES[kind])
            return pos + 2
        if kind != "u":
            raise self._fail("Invalid \\escape", buf, pos + 1)
        stop = pos + 6
        for i in range(pos + 2, min(stop, end)):
            if buf[i] not in _HEX:
                raise self._fail("Invalid \\uXXXX escape", buf, i)
        if stop > end:
            return -1
        code = int(buf[pos + 2 : stop], 16)
        if 0xD800 <= code <= 0xDBFF:
            low_end = min(stop + 6, end)
            for i in range(stop, low_end):
                c = buf[i]
                if c not in _LOW_SURROGATE[i - stop]:
                    # What follows cannot pair: a lone high surrogate, as json keeps it, unless
                    # the character that decides it is itself an error.
                    k = i - stop
                    if k == 0 and c < " ":
                        raise self._fail("Invalid control character at", buf, i)
                    if k == 1 and c not in _SIMPLE_ESCAPES:
                        raise self._fail("Invalid \\escape", buf, i)
                    if k > 1 and c not in _HEX:
                        raise self._fail("Invalid \\uXXXX escape", buf, i)
                    break
            else:
                if low_end < stop + 6:
                    return -1
                low = int(buf[stop + 2 : stop + 6], 16)
                self._append_str(chr(0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)))
                return stop + 6
        self._append_str(chr(code))
        return stop


def parse_partial(text: str | bytes, default: Any = None, **options: Any) -> Any:
    """The best-effort value of a prefix of a JSON document, by the snapshot rules.

    Equivalent to ``Parser(**options)``, ``feed(text)``, ``snapshot(default)``; raises
    :class:`JSONDecodeError` if ``text`` cannot begin any valid document.
    """
    parser = Parser(**options)
    # A prefix rarely holds its whole top-level value: offering it to the scanner whole would
    # only scan it twice.
    parser._scan_top = False
    parser.feed(text)
    return parser.snapshot(default)


def loads(text: str | bytes, **options: Any) -> Any:
    """Parse a complete JSON document strictly: a :class:`Parser` fed once and closed."""
    parser = Parser(**options)
    parser.feed(text)
    return parser.close()
