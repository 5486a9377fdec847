"""Fast paths: the same grammar as the automaton, read in bigger steps.

Each fast path takes the buffer, a position and the builder, and either reads a stretch of
input through the builder and returns where it stopped, or declines (it returns ``None``,
``0`` or the position it was given, as each says) and leaves the input to the automaton,
which then reads it one token at a time. A fast path never raises a positioned error: on
anything doubtful it declines, and the automaton finds the error and its position. So every
fast path can be switched off without changing any snapshot, record, value or error, and
tests/test_fast_paths.py holds each of them, alone and together, to the automaton alone.

Which fast paths run is a :class:`FastPaths` value given to the parser (``DEFAULT``, or
another in tests), never module state.

==================  ==========================================================================
``lane``            inside a visible string, ``Parser.feed`` appends a fragment of string
                    content straight to it without entering the automaton (:class:`Lane`)
``elements``        a whole scalar array element and its comma in one regex match, element
                    after element (written out in ``Automaton._value``)
``members``         a plain key, its colon, a whole scalar value and its comma in one match,
                    member after member (written out in ``Automaton._key``)
``runs``            plain text and complete escapes in a string, decoded at once by the standard
                    library's C string scanner (:func:`escaped_run`)
``long_string``     long string content with escapes decoded by the C string scanner in windows
                    of doubling width (:class:`LongStrings`); the threshold, or ``None``
``scan_min``        an array or object with at least this much input left offered whole to the
                    standard library's C scanner (:class:`Scanner`); or ``None``
``plain_tree``      a parser without hooks, depth limit or observer builds with the plain
                    :class:`~jsonsnap._parse.tree.Tree` (otherwise the watched one, as if it had)
``chars``           ``elements`` and ``members`` (and the plain runs in strings) read a
                    character at a time instead of by regex (``chars``; on by default in the
                    compiled build, where that is the faster)
==================  ==========================================================================
"""

from __future__ import annotations

import json
import json.scanner
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from .chars import COMPILED
from .grammar import (
    RUN_RE,
    SIMPLE_ESCAPES,
    held_from,
    high_surrogate_ends,
    scanstring,
)
from .observer import NOTHING
from .simple import simple_text
from .tree import Tree

if TYPE_CHECKING:
    from .tokens import Tokens

__all__ = [
    "DEFAULT",
    "GENERAL",
    "FastPaths",
    "Lane",
    "LongStrings",
    "Scanner",
    "escaped_run",
]


@dataclass(frozen=True)
class FastPaths:
    """Which fast paths a parser takes (see the table above)."""

    lane: bool = True
    elements: bool = True
    members: bool = True
    runs: bool = True
    long_string: int | None = 512
    window: int = 1024  # the first window of long_string
    scan_min: int | None = 128
    #: Whether the top-level value is offered to the scanner (a one-shot ``parse_partial``,
    #: which expects an unfinished document, says no: the offer would only scan it twice).
    scan_top: bool = True
    plain_tree: bool = True
    chars: bool = COMPILED


DEFAULT: Final = FastPaths()
#: Every fast path off: the automaton reads one token at a time.
GENERAL: Final = FastPaths(
    lane=False,
    elements=False,
    members=False,
    runs=False,
    long_string=None,
    scan_min=None,
    plain_tree=False,
    chars=False,
)


# ---------------------------------------------------------------------------- scalars


# ---------------------------------------------------------------------------- strings


def escaped_run(
    buf: str,
    start: int,
    pos: int,
    end: int,
    tree: Tree,
    vet: Callable[[str, int], bool] | None = None,
) -> int:
    """String content from ``start``: plain text up to ``pos``, then plain text and complete
    escapes. Append it decoded and return where it stops; -1 when ``vet`` (a checker's, see
    ``Tokens.read_exactly``) refuses it, which appends nothing.

    It stops before a ``\\uD800``-``\\uDBFF`` escape at its end unless a closing quote
    follows: what comes next may make it half of a pair, or be an error reported at its own
    place.
    """
    j: int = RUN_RE.match(buf, pos).end()  # type: ignore[union-attr]
    if (j == end or buf[j] != '"') and high_surrogate_ends(buf, start, j):
        j -= 6
    if j > start:
        text = scanstring(buf[start:j] + '"', 0, True)[0]
        if vet is None:
            tree.append(text)
        elif vet(text, j - start):
            # Counted by the checker: the plain builder's append (the checking tree's own
            # would tell the checker again, as if it were plain text).
            Tree.append(tree, text)
        else:
            return -1
    return j


class LongStrings:
    """Long string content with escapes, decoded by the C string scanner in windows of
    doubling width, each cut at an escape boundary (a one-shot parse, a large fragment)."""

    __slots__ = ("hint", "window")

    def __init__(self, window: int) -> None:
        self.window = window
        # (id of a buffer, position of its last unescaped quote or -1): one scan per buffer.
        # Keyed by identity, without keeping the buffer alive: a stale hint for a new buffer at
        # the same address would only cost a failed scan, never a wrong value.
        self.hint: tuple[int, int] = (0, -1)

    def _closes_in(self, buf: str, pos: int) -> bool:
        """Whether the string read from ``pos`` surely closes in ``buf``: true when the last
        ``"`` of ``buf`` is at or after ``pos`` and not escaped."""
        hint = self.hint
        if hint[0] != id(buf):
            quote = k = buf.rfind('"')
            while k > 0 and buf[k - 1] == "\\":
                k -= 1
            hint = self.hint = (id(buf), quote if (quote - k) % 2 == 0 else -1)
        return hint[1] >= pos

    def decode(self, buf: str, pos: int, end: int, tree: Tree) -> int:
        """Append what can be decoded from ``pos``; return the position reached: the closing
        quote, or an escape the rest must decide, or (for invalid text, left to the automaton
        to report exactly) a position before the problem; ``pos`` to decline."""
        if self._closes_in(buf, pos):
            try:
                text, after = scanstring(buf, pos, True)
            except ValueError:
                return pos
            tree.append(text)
            return after - 1
        width = self.window
        while True:
            stop = min(end, pos + width)
            cut = held_from(buf, pos, stop)
            if cut <= pos:
                return pos
            try:
                text, after = scanstring(buf[pos:cut] + '"', 0, True)
            except ValueError:
                return pos
            tree.append(text)
            if after <= cut - pos:  # the string closed inside the window
                return pos + after - 1
            pos = cut
            if stop == end:
                return pos
            width *= 2


class Lane:
    """The lane: while the parser sits inside a visible string, ``Parser.feed`` appends each
    fragment of string content straight to it (``holder[key]``) without entering the
    automaton: the common case of a long argument streamed in small pieces.

    ``Parser.feed`` takes a fragment of plain printable text itself (inline: it is the one
    path run for every character of a long string); :meth:`take` takes the rest it can: a
    lone backslash and the character that completes a simple escape, and any fragment of
    plain text and complete escapes. What it cannot take (a quote, an error, bytes) leaves the
    lane for the automaton.

    A string whose characters a checker reads (``check``: the automaton's ``vet``, see
    ``Tokens.read_exactly``) has the lane too, but every fragment goes through
    :meth:`vetted`, which hands the checker each piece of text with the number of characters
    it is read from before the lane takes it; a piece the checker refuses leaves the lane for
    the automaton, which reads it one escape at a time and finds the fault at its place.

    The lane does not count what it reads: :meth:`consumed` tells how many characters it has
    read since it was armed, from the string's growth since ``mark`` (which an escape, read as
    more characters than it shows, moves back). ``tail`` is an escape held back until the next
    fragment decides it; it is not counted as read.
    """

    __slots__ = ("check", "holder", "key", "mark", "simple", "tail")

    def __init__(self) -> None:
        self.simple = False  # whether take decodes simple escapes itself (FastPaths.chars)
        self.holder: Any = None
        self.key: Any = None
        self.mark = 0
        self.tail = ""
        self.check: Callable[[str, int], bool] | None = None

    def arm(self, tree: Tree, automaton: Tokens) -> Lane | None:
        """Enter the open string of ``tree``, taking over what ``automaton`` holds back (an
        undecided escape); return the lane (``None``: the string has no lane)."""
        # A string that a schema checks one escape at a time has its fast paths off; a
        # single-quoted string or an unquoted key (tolerant) has no lane.
        if not automaton.fast.lane or automaton.closer != '"':
            return None
        holder = self.holder = tree.slot
        key = self.key = tree.slot_key
        self.mark = len(holder[key])
        self.tail = automaton.tail
        self.check = automaton.vet
        self.simple = automaton.fast.chars
        automaton.tail = ""
        return self

    def leave(self, automaton: Tokens) -> None:
        """Leave the string: count what the lane has read since it was armed in the
        ``automaton``'s offset, and give it back the escape the lane holds back."""
        automaton.offset += len(self.holder[self.key]) - self.mark
        automaton.tail = self.tail
        self.holder = None
        self.tail = ""

    def consumed(self) -> int:
        """How many characters the lane has read since it was armed."""
        return len(self.holder[self.key]) - self.mark

    def take(self, data: Any) -> str | None:
        """What ``Parser.feed`` appends for a fragment it could not take by itself: the text
        decoded from it, ``""`` when the fragment is only held back, ``None`` to decline.

        It takes a lone backslash (the next fragment says which escape it begins) and the
        character that completes it; and any fragment that, after what is held back, is
        string content (plain text and whole escapes, lone surrogates included) up to its end
        or up to an escape the next fragment will finish or pair (``held_from``: a few
        characters looked at, the rest decoded and checked by the C string scanner in one
        call). It declines anything else (a quote, an error, bytes): the automaton reads it.
        """
        if type(data) is not str:
            return None
        tail = self.tail
        if not tail:
            if data == "\\":
                self.tail = data
                return ""
            buf = data
        elif tail == "\\" and data in SIMPLE_ESCAPES:
            self.tail = ""
            self.mark -= 1  # two characters read, one shown
            return SIMPLE_ESCAPES[data]
        else:
            buf = tail + data
        end = len(buf)
        if self.simple:
            stop = end
            if buf[-1] == "\\":  # held back when not escaped by the backslash before it
                k = end - 1
                while k > 0 and buf[k - 1] == "\\":
                    k -= 1
                stop -= (end - k) % 2
            text = simple_text(buf, stop)
            if text is not None:
                self.tail = buf[stop:]
                self.mark += len(text) - stop  # stop characters read
                return text
        j = held_from(buf, 0, end)
        if j <= 0:
            if j < 0:  # an escape no fragment can finish: the automaton reports it
                return None
            self.tail = buf
            return ""
        try:
            text, after = scanstring(buf[:j] + '"' if j < end else buf + '"', 0, True)
        except ValueError:  # an invalid escape or a control character before the held part
            return None
        if after <= j:  # a quote before the held part: the string may end there
            return None
        self.tail = buf[j:] if j < end else ""
        self.mark += len(text) - j  # j characters read
        return text

    def vetted(self, data: Any) -> str | None:
        """What ``Parser.feed`` appends for any fragment of a checked string: plain text, or
        what :meth:`take` takes, each piece of text counted by the checker (``check``) with
        the characters it is read from first; ``None`` (the lane declines, as it was) when
        the checker refuses it whole."""
        check = self.check
        assert check is not None
        if (
            type(data) is str
            and not self.tail
            and "\\" not in data
            and '"' not in data
            and data.isprintable()
        ):  # plain text (or "", printable too): one character read for each shown
            return data if check(data, len(data)) else None
        tail, mark = self.tail, self.mark
        text = self.take(data)
        if text and not check(text, len(text) - (self.mark - mark)):  # (see take: mark)
            self.tail, self.mark = tail, mark
            return None
        return text


# ---------------------------------------------------------------------------- containers


def pairs_of(members: list[tuple[str, Any]]) -> tuple[list[tuple[str, Any]]]:
    """An object's members as ``(key, value)`` pairs, in order, in a 1-tuple (the C scanner's
    ``object_pairs_hook`` when the tree is observed): no JSON value is a tuple, so it tells an
    object from an array."""
    return (members,)


def _refuse_constant(name: str) -> Any:
    raise ValueError(name)


def _make_scanner(allow_nan: bool, pairs: bool) -> Callable[[str, int], tuple[Any, int]]:
    decoder = json.JSONDecoder(
        parse_constant=None if allow_nan else _refuse_constant,
        object_pairs_hook=pairs_of if pairs else None,
    )
    scanner: Callable[[str, int], tuple[Any, int]] = json.scanner.make_scanner(decoder)  # type: ignore[arg-type]
    return scanner


#: The C scanners, by (allow_nan, pairs): made once, shared by every parser.
_SCANNERS: Final = {
    (allow_nan, pairs): _make_scanner(allow_nan, pairs)
    for allow_nan in (False, True)
    for pairs in (False, True)
}


class Scanner:
    """Arrays and objects offered whole to the standard library's C scanner, which gives the
    value when it is complete and valid in the buffer (only without hooks or ``max_depth``, so
    that hooks run exactly once per value). With an observer, objects come as member pairs,
    so that the builder can report every value inside (duplicate keys included).

    A failed offer costs the scan up to where it failed, at ``f``. The values nested in it
    that end before ``f`` will be offered with success, but the ones that contain ``f`` would
    each fail there again: after a second failure at the same place, offers stop until the
    input has passed it, so no text is scanned more than twice.
    """

    __slots__ = ("block", "fail", "pairs", "scan", "top")

    def __init__(self, allow_nan: bool, pairs: bool, fast: FastPaths) -> None:
        self.scan = _SCANNERS[allow_nan, pairs]
        self.pairs = pairs
        self.top = fast.scan_top
        # Where the last offer failed, and before where not to offer again (absolute).
        self.fail = self.block = -1

    def offer(self, buf: str, pos: int, base: int, tree: Tree) -> int:
        """Offer the array or object at ``pos`` (``base`` is the absolute position of
        ``buf[0]``): link it and return where it ends, or return 0."""
        if base + pos < self.block or not (self.top or tree.stack):
            return 0
        try:
            value, stop = self.scan(buf, pos)
        except StopIteration as exc:
            stop = exc.value
        except json.JSONDecodeError as exc:
            stop = exc.pos
        except (ValueError, RecursionError):  # NaN refused, an int too long, or too deep
            stop = len(buf)
        else:
            if self.pairs:
                rebuild(tree, value)
            else:
                tree.whole(value)
            return stop
        stop += base
        if stop == self.fail:
            self.block = stop
        self.fail = stop
        return 0


# ---------------------------------------------------------------------------- whole values


def rebuild(tree: Tree, value: Any) -> None:
    """Build ``value`` (a whole array or object the C scanner read) through the builder
    interface, so that the observer hears of every value inside it, in document order, as if
    it had been read piece by piece.

    Objects come as ``pairs_of`` makes them (every member, duplicates included, as the text
    has them), so that a key given twice is reported twice, as the automaton reports it. No
    recursion: an explicit stack of iterators.
    """
    todo: list[Any] = []
    item = value
    while True:
        kind = type(item)
        if kind is tuple:
            tree.open({})
            todo.append(iter(item[0]))
        elif kind is list:
            tree.open([])
            todo.append(iter(item))
        else:
            tree.scalar(item)
        while todo:
            nxt = next(todo[-1], NOTHING)
            if nxt is not NOTHING:
                break
            todo.pop()
            tree.close()
        else:
            return
        if type(tree.stack[-1]) is dict:
            key, item = nxt
            tree.key(key)
        else:
            item = nxt
