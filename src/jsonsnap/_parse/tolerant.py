"""Tolerant mode: the JSON that models really send, read with named, recorded repairs.

:class:`Tolerant` is the automaton (``_automaton``) with the places where strict JSON ends
(``_trailing_comma``, ``_no_key``, ``_no_colon``, ``_no_comma``, ``_extra``, ``_literal``,
``_control``, ``_bad_escape``, ``_unclosed``) read another way when the repair that reads them
is allowed, and three states of its own:

``TOP``
    before a top-level value. A value begins here, or text to skip: when the first character
    cannot begin a value, or the first scalar cannot be read (``the answer: {...}`` fails at
    the ``h`` of ``the``), everything up to the first ``{`` or ``[`` is skipped
    (``leading_text``). A number or literal read here is *held* (not shown, ``held_at``) until
    what follows it decides whether it is the value or the first word of prose: a letter or a
    digit right after it (``3rd``, ``nullable``, ``Nonetheless``), a ``-`` and a digit
    (``2024-05-01``), or spaces and a word that is not a literal (``3 results``, ``true
    story``) make it prose; anything else (the end, a newline, a value, a comment) makes it
    the value;
``PROSE``
    skipping text up to the first ``{`` or ``[`` that begins a value: before the value, or,
    reading several values per stream, after one. A bracket after prose begins a value only
    when what follows it can begin its first element or member (``[this]``, ``[write_file]``
    and ``{name}`` are prose: see ``_opens``). Text after a value is ``leading_text`` of the
    next value when one follows, ``trailing_text`` when the input ends first: its repair is
    recorded when the one or the other is read (``skipped``);
``COMMENT``
    inside a ``//`` or ``/* */`` comment, then back to the state it interrupted (``resume``).

The strict automaton reaches those places only on input that is not JSON, so valid JSON is
read exactly as strictly, by the same code and the same fast paths (none of which reads
anything but strict JSON: on anything else they decline, and the automaton comes here). So
valid input costs what it costs strictly, and gives the same value and no repair.

Invariants (those of the strict parser hold too: see ``_parser``):

1. A repair is decided when the input that needs it is read, and never revised: the value
   only grows, as strictly. A token the next fragment may still decide (a literal cut in two,
   a ``/`` that may begin a comment, a backslash) is held in the tail, as strictly, and its
   repair recorded only when it is read whole; a top-level number or literal is held
   (unshown) until the character after it decides, and text skipped after a value is
   recorded once the next value or the end says which kind it is. What is held is bounded
   (to 24 characters, as strictly) or read incrementally (spaces, a long number).
2. Each repair is recorded once, with its kind and the absolute position of the character
   that needed it (a trailing comma: of the bracket after it; ``unclosed``: of the end of the
   input; skipped text: of its first character). Line and column are counted from the last
   repair of the same fragment, so any number of repairs costs time in proportion to the
   input.
3. What no allowed repair reads is the strict error, at the same character. What is prose
   (a word that begins like a value, a bracket no element follows) is decided by the text
   alone, whichever repairs are allowed.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Final

from .._errors import JSONDecodeError, describe
from .automaton import Automaton
from .fast import FastPaths
from .grammar import (
    AFTER,
    BYTE_ORDER_MARK,
    COMMENT,
    DIGITS,
    DONE,
    EXPECTING_COLON,
    EXPECTING_COMMA,
    EXPECTING_KEY,
    EXPECTING_VALUE,
    EXTRA_DATA,
    KEY,
    NUMBER,
    PROSE,
    STRING,
    TOP,
    VALUE,
    WS,
    WS_RE,
    skip_ws,
)
from .observer import NOTHING
from .options import Options
from .tree import Tree

__all__ = ["REPAIRS", "Repair", "Tolerant", "repairs_of"]

#: The repairs, by kind: what each one reads.
REPAIRS: Final[Mapping[str, str]] = MappingProxyType(
    {
        "leading_text": "text before a value (prose, a code fence) skipped",
        "trailing_text": "text after the last complete value (a closing fence, prose) ignored",
        "trailing_comma": "a comma before a closing bracket dropped",
        "single_quotes": "a string in single quotes read as a string",
        "unquoted_key": "an identifier read as an object key",
        "python_literal": "True, False or None read as true, false or null",
        "undefined": "undefined read as null",
        "non_finite": "NaN, Infinity or -Infinity read as a float",
        "comment": "a // or /* */ comment skipped",
        "control_character": "a raw control character in a string kept as it is",
        "invalid_escape": "an unknown escape kept as its text (\\' read as ')",
        "missing_comma": "a missing comma between two elements or members supplied",
        "unclosed": "an unfinished value closed at the end of the input as it shows",
    }
)


@dataclass(frozen=True, slots=True)
class Repair:
    """A repair the tolerant parser made: its ``kind`` (a key of :data:`REPAIRS`), and where,
    as the absolute position of the character that needed it (``pos``, from 0) and its line
    and column (from 1)."""

    kind: str
    pos: int
    lineno: int
    colno: int

    def __str__(self) -> str:
        return f"{REPAIRS[self.kind]}: line {self.lineno} column {self.colno} (char {self.pos})"


_ALL: Final = frozenset(REPAIRS)


def repairs_of(repair: object) -> frozenset[str] | None:
    """The repairs a ``repair=`` option allows: ``None`` for strict JSON (``False``)."""
    if repair is False or repair is None:
        return None
    if repair is True:
        return _ALL
    if isinstance(repair, (str, bytes)) or not isinstance(repair, Iterable):
        raise TypeError(
            f"repair must be True, False or an iterable of repair kinds, not {describe(repair)}"
        )
    kinds = frozenset(repair)
    unknown = sorted(str(kind) for kind in kinds.difference(REPAIRS))
    if unknown:
        raise ValueError(f"unknown repair {', '.join(unknown)} (known: {', '.join(REPAIRS)})")
    return kinds


#: Where text skipped before a value stops: the first bracket.
_PROSE_RE: Final = re.compile(r"[^{\[]*")
#: Spaces and tabs: what may come between a held top-level scalar and the word after it.
_BLANKS_RE: Final = re.compile(r"[ \t]*")
#: How far after a bracket that follows prose the whitespace or a key may go on before it is
#: taken to begin a value (with a literal's first letters after it, what is held for the next
#: fragment stays within the tail's 24 characters).
_BRACKET_HOLD: Final = 15
#: The rest of an unquoted key, and single-quoted string content without escapes.
_IDENTIFIER_RE: Final = re.compile(r"[A-Za-z0-9_$]*")
_SINGLE_PLAIN_RE: Final = re.compile(r"[^'\\\x00-\x1f]*")
_IDENTIFIER_START: Final = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_$")
#: The literals, each with its value (``NOTHING``: the parser's ``parse_constant`` of its name)
#: and the repair that reads it (``None`` in strict JSON).
_LITERALS: Final = (
    ("true", True, None),
    ("false", False, None),
    ("null", None, None),
    ("True", True, "python_literal"),
    ("False", False, "python_literal"),
    ("None", None, "python_literal"),
    ("undefined", None, "undefined"),
    ("NaN", NOTHING, "non_finite"),
    ("Infinity", NOTHING, "non_finite"),
    ("-Infinity", NOTHING, "non_finite"),
)
#: The characters that may begin a value that is not a string or a container.
_SCALAR_STARTS: Final = frozenset(DIGITS + "-" + "".join(name[0] for name, _, _ in _LITERALS))
_NUMBER_STARTS: Final = frozenset(DIGITS + "-")
#: The characters that may begin an array element.
_ELEMENT_STARTS: Final = _SCALAR_STARTS | frozenset("\"'{[")
#: What, after a bracket that follows prose, begins its first element (or closes it).
_FIRST_ELEMENT: Final = frozenset(DIGITS + '-"{[]')
#: The literals' names, by first character (``_literal_word``).
_WORDS: Final = {c: tuple(name for name, _, _ in _LITERALS if name[0] == c) for c in "tfnTFNuI"}
#: What a held top-level scalar is decided as (``_direct``, ``_word``, ``_opens``): prose, the
#: value, or not yet (the next fragment decides).
_IS_PROSE: Final = 0
_IS_VALUE: Final = 1
_UNDECIDED: Final = -1


def _word_char(c: str) -> bool:
    """Whether ``c`` goes on a word (``null`` in ``nullable``, ``3`` in ``3rd``)."""
    return c.isalnum() or c == "_"


@functools.cache
def _literals(allowed: frozenset[str], allow_nan: bool) -> dict[str, Any]:
    """The literals a parser reads, by first character, with their values and repairs (one
    table for each set of repairs, shared: never changed)."""
    literals: dict[str, list[tuple[str, Any, str | None]]] = {}
    for name, value, kind in _LITERALS:
        if kind == "non_finite" and allow_nan:
            kind = None  # valid JSON for this parser
        if kind is None or kind in allowed:
            literals.setdefault(name[0], []).append((name, value, kind))
    return {c: tuple(names) for c, names in literals.items()}


class Tolerant(Automaton):
    """The automaton, reading what strict JSON refuses where a repair allows it (see the
    module docstring)."""

    __slots__ = (
        "allowed",
        "block",
        "count_lines",
        "count_pos",
        "count_start",
        "first_scalar",
        "held",
        "held_at",
        "held_kind",
        "held_number",
        "held_spaced",
        "ignored_at",
        "literals",
        "repairs",
        "resume",
        "skipped",
    )

    lenient = True
    first = TOP

    def __init__(
        self, tree: Tree, fast: FastPaths, options: Options, allowed: frozenset[str]
    ) -> None:
        super().__init__(tree, fast, options)
        self.allowed = allowed
        self.repairs: list[Repair] = []
        self.open_ended = True
        self.minus_constant = self.allow_nan or "non_finite" in allowed
        self.literals = _literals(allowed, self.allow_nan)
        self.resume = VALUE  # the state a comment interrupted
        self.block = False  # whether the comment is a /* */ one
        self.ignored_at = -1  # where the text after the value, ignored, begins
        # Whether the scalar being read begins at the top (TOP): read whole, it is held, as
        # it may be the first word of prose (see _held); it begins nothing in the tree yet.
        self.first_scalar = False
        # The top-level scalar read and held (see TOP in the module docstring): where it
        # begins (absolute; -1: none), its text if it is a number, else its value and the
        # repair that reads it, and whether spaces have followed it.
        self.held_at = -1
        self.held_number = ""
        self.held: Any = NOTHING
        self.held_kind: str | None = None
        self.held_spaced = False
        # Text skipped after a value, whose kind the next value or the end decides: where
        # it begins (position, line, column).
        self.skipped: tuple[int, int, int] | None = None
        # Where the last repair was (see _record): its absolute position, the lines before it
        # and the absolute position of its line's start.
        self.count_pos = -1
        self.count_lines = 0
        self.count_start = 0

    # ------------------------------------------------------------------ recording

    def _record(self, kind: str, buf: str, index: int) -> None:
        """Record a repair of ``kind`` at ``buf[index]``."""
        pos, lineno, colno = self._place(buf, index)
        self.repairs.append(Repair(kind, pos, lineno, colno))

    def _place(self, buf: str, index: int) -> tuple[int, int, int]:
        """The position, line and column of a repair at ``buf[index]``, counting lines from the
        last one when it is in ``buf`` too (from the start of ``buf`` otherwise), so that any
        number of them costs time in proportion to the input."""
        offset = self.offset
        at = self.count_pos - offset
        if at < 0 or index < 0:  # (index < 0: a number begun before the buffer, on its line)
            at = 0
            self.count_lines = self.lines
            self.count_start = self.line_start
        newlines = buf.count("\n", at, index) if index > at else 0
        if newlines:
            self.count_lines += newlines
            self.count_start = offset + buf.rindex("\n", at, index) + 1
        pos = self.count_pos = offset + index
        return pos, self.count_lines + 1, pos - self.count_start + 1

    # ------------------------------------------------------------------ the value's bounds

    def _own_state(self, buf: str, pos: int, end: int) -> int:
        """TOP, PROSE or COMMENT: the states that strict JSON has not."""
        state = self.state
        if state == TOP:
            return self._top(buf, pos, end)
        if state == PROSE:
            return self._prose(buf, pos, end)
        return self._in_comment(buf, pos, end)

    def _top(self, buf: str, pos: int, end: int) -> int:
        """TOP: a top-level value, or text before it."""
        if self.held_at >= 0:
            return self._held(buf, pos, end)
        c = buf[pos]
        if c in WS:
            return skip_ws(buf, pos, end)
        if c in "{[\"'":
            self.state = VALUE
            return pos
        if c == "/" and "comment" in self.allowed:
            if pos + 1 == end and not self.final:
                return ~pos
            if pos + 1 < end and buf[pos + 1] in "/*":
                return self._comment(buf, pos, end, EXPECTING_VALUE)
        elif c in _SCALAR_STARTS:
            # (read in TOP: a scalar cut here begins nothing for a schema, see _check.begins)
            self.first_scalar = True
            try:
                stop = self._value(buf, pos, end)
            except JSONDecodeError:
                self.first_scalar = False
                if not self._may_skip() or self.tree.box[0] is not NOTHING:
                    raise
            else:
                if self.state != NUMBER:  # (a long number decides when it ends)
                    self.first_scalar = False
                if stop < 0:
                    self.state = TOP  # decided by the next fragment
                return stop
        if not self._may_skip():
            self.state = VALUE
            return pos  # the strict error
        return self._skip(buf, pos, pos)

    def _may_skip(self) -> bool:
        """Whether text where a top-level value should begin may be skipped."""
        allowed = self.allowed
        return "leading_text" in allowed or (self.index > 0 and "trailing_text" in allowed)

    def _skip(self, buf: str, index: int, pos: int) -> int:
        """Text to skip up to the first bracket begins at ``buf[index]`` (before the buffer
        when negative: a scalar begun in an earlier fragment, on the same line); ``buf[pos]``
        is the first character not yet read."""
        if self.index:  # a value before it
            return self._between(buf, index, pos)
        self._record("leading_text", buf, index)
        self.state = PROSE
        return pos

    def _between(self, buf: str, index: int, pos: int) -> int:
        """Several values per stream: text after a value begins at ``buf[index]``. Text before
        the next value (``leading_text``), or after the last one (``trailing_text``): when
        both are allowed, what comes first decides; with only ``trailing_text``, the rest of
        the input is ignored."""
        allowed = self.allowed
        if "leading_text" in allowed:
            self.skipped = self._place(buf, index)
            self.state = PROSE
            return pos
        if "trailing_text" not in allowed:
            raise self.fail(EXTRA_DATA, buf, pos)
        self._record("trailing_text", buf, index)
        self.ignored_at = self.offset + index
        self.state = DONE
        return pos

    def _prose(self, buf: str, pos: int, end: int) -> int:
        """PROSE: skip text up to the first ``{`` or ``[`` that begins a value."""
        while True:
            stop = _PROSE_RE.match(buf, pos).end()  # type: ignore[union-attr]
            if stop == end:
                return stop
            verdict = self._opens(buf, stop, end)
            if verdict == _IS_VALUE:
                break
            if verdict == _UNDECIDED:
                return ~stop
            pos = stop + 1
        skipped = self.skipped
        if skipped is not None:  # text between two values: before the next one
            self.skipped = None
            self.repairs.append(Repair("leading_text", *skipped))
        if self.collected:  # text after a value, before the next one
            return self._next_value(stop)
        self.state = VALUE
        return stop

    def _opens(self, buf: str, pos: int, end: int) -> int:
        """Whether the bracket at ``buf[pos]``, after prose, begins a value: what follows it
        (after whitespace) begins an element of an array or closes it, or begins a key with its
        colon or closes an object (or a comment), as tolerant mode reads them whichever repairs
        are allowed (what is prose does not depend on them: a repair left out makes the text
        refused, not another value found). ``_UNDECIDED`` while the input ends before that.
        What decides lies within ``_BRACKET_HOLD`` characters of the bracket (whitespace or
        a key that go on further begin a value), so what is held stays short (at most 24
        characters, as any token's)."""
        i = WS_RE.match(buf, pos + 1).end()  # type: ignore[union-attr]
        if i - pos > _BRACKET_HOLD:
            return _IS_VALUE
        if i < end:
            c = buf[i]
            if c == "'":
                return _IS_VALUE
            if c == "/":
                if i + 1 < end:
                    return _IS_VALUE if buf[i + 1] in "/*" else _IS_PROSE
            elif buf[pos] == "[":
                if c in _FIRST_ELEMENT:
                    return _IS_VALUE
                verdict = self._literal_word(buf, i, end)
                if verdict != _UNDECIDED:
                    return verdict
            elif c == "}" or c == '"':
                return _IS_VALUE
            elif c in _IDENTIFIER_START:
                j = _IDENTIFIER_RE.match(buf, i + 1).end()  # type: ignore[union-attr]
                j = WS_RE.match(buf, j).end()  # type: ignore[union-attr]
                if j - pos > _BRACKET_HOLD:
                    return _IS_VALUE
                if j < end:  # (its colon, or a comment before it)
                    return _IS_VALUE if buf[j] == ":" or buf[j] == "/" else _IS_PROSE
            else:
                return _IS_PROSE
        return _IS_VALUE if self.final else _UNDECIDED

    def _literal_word(self, buf: str, pos: int, end: int) -> int:
        """Whether the word at ``buf[pos]`` is a literal (``true``, and the ones the repairs
        add, allowed or not), not the beginning of a longer word (``trust``, ``nullable``);
        ``_UNDECIDED`` when the input ends before that is known."""
        names = _WORDS.get(buf[pos])
        if names is None:
            return _IS_PROSE
        verdict = _IS_PROSE
        for name in names:
            stop = pos + len(name)
            if buf.startswith(name, pos):
                if stop < end:
                    return _IS_PROSE if _word_char(buf[stop]) else _IS_VALUE
                verdict = _UNDECIDED
            elif stop > end and name.startswith(buf[pos:end]):
                verdict = _UNDECIDED
        if verdict == _UNDECIDED and self.final:
            return _IS_VALUE
        return verdict

    # ------------------------------------------------------------------ a held top-level scalar

    def _hold(self, at: int, number: str, value: Any, kind: str | None) -> None:
        """The top-level scalar that begins at ``at`` (absolute) is read: hold it (the text of
        a number; the value of a literal and the repair that reads it) until what follows it
        decides."""
        self.held_at = at
        self.held_number = number
        self.held = value
        self.held_kind = kind
        self.held_spaced = False
        self.state = TOP

    def _held(self, buf: str, pos: int, end: int) -> int:
        """TOP, a scalar held: what follows it decides whether it is the value."""
        c = buf[pos]
        if c == " " or c == "\t":
            self.held_spaced = True
            return _BLANKS_RE.match(buf, pos).end()  # type: ignore[union-attr]
        spaced = self.held_spaced
        verdict = self._word(buf, pos, end) if spaced else self._direct(buf, pos, end)
        if verdict == _IS_VALUE:
            return self._show_held(buf, pos, end)
        if verdict == _UNDECIDED:
            return ~pos
        at = self.held_at - self.offset
        self.held_at = -1
        self.held = NOTHING
        if not self._may_skip():  # (prose whichever repairs are allowed: never the value)
            raise self.fail(EXTRA_DATA, buf, pos)
        return self._skip(buf, at, pos)

    def _direct(self, buf: str, pos: int, end: int) -> int:
        """What the character right after a held scalar makes it: prose when it goes on a word
        (``3rd``, ``nullable``), when it is a ``-`` and a digit (``2024-05-01``), or, after a
        number, when it cannot follow a value (``1) First``, ``3/4``)."""
        c = buf[pos]
        if c in WS or c in "\"'{[":
            return _IS_VALUE
        if c == "-" or c == "/":
            if pos + 1 == end:
                return _IS_VALUE if self.final else _UNDECIDED
            d = buf[pos + 1]
            if c == "-":
                return _IS_PROSE if d in DIGITS else _IS_VALUE
            if d in "/*":  # a comment (allowed or not: what is prose does not depend on it)
                return _IS_VALUE
            return _IS_PROSE if self.held_number else _IS_VALUE
        if _word_char(c) or self.held_number:
            return _IS_PROSE
        return _IS_VALUE  # (a literal and a mark: "true." is the answer true)

    def _word(self, buf: str, pos: int, end: int) -> int:
        """What the first character after a held scalar and spaces makes it: prose when it
        begins a word that is not a literal (``3 results``, ``true story``)."""
        c = buf[pos]
        if c.isalpha() or c == "_":
            return self._literal_word(buf, pos, end)
        return _IS_VALUE

    def _show_held(self, buf: str, pos: int, end: int) -> int:
        """The held scalar is the value: show it (``buf[pos]`` is what follows it)."""
        at = self.number_at = self.held_at
        self.held_at = -1
        number = self.held_number
        if number:
            self.held_number = ""
            return super()._end_number(number, buf, pos, end)
        value = self.held
        self.held = NOTHING
        if self.held_kind is not None:
            self._record(self.held_kind, buf, at - self.offset)
        self.at = at
        self.tree.scalar(value)
        self.state = DONE
        return pos

    def _extra(self, buf: str, pos: int, end: int) -> int:
        """Text after the top-level value: the next value, text between values, or (reading
        one value) text to ignore."""
        if self.ignored_at >= 0:
            return end
        if self.multiple:
            self.collect()
            c = buf[pos]
            if c in _ELEMENT_STARTS:
                return self._next_value(pos)
            if c == "/" and "comment" in self.allowed:
                if pos + 1 == end and not self.final:
                    return ~pos  # the next character decides
                if pos + 1 < end and buf[pos + 1] in "/*":
                    return self._comment(buf, pos, end, EXTRA_DATA)
            return self._between(buf, pos, pos)
        if "trailing_text" not in self.allowed:
            raise self.fail(EXTRA_DATA, buf, pos)
        self._record("trailing_text", buf, pos)
        self.ignored_at = self.offset + pos
        return end

    # ------------------------------------------------------------------ comments

    def _comment(self, buf: str, pos: int, end: int, strict: str) -> int:
        """A ``/`` where whitespace may be: a comment begins, or the strict error ``strict``."""
        if "comment" in self.allowed:
            if pos + 1 == end:
                if not self.final:
                    return ~pos  # the next character decides
            elif buf[pos + 1] in "/*":
                self._record("comment", buf, pos)
                self.block = buf[pos + 1] == "*"
                self.resume = self.state
                self.state = COMMENT
                return pos + 2
        raise self.fail(strict, buf, pos)

    def _in_comment(self, buf: str, pos: int, end: int) -> int:
        """COMMENT: up to the end of the line, or past ``*/``."""
        if not self.block:
            stop = buf.find("\n", pos, end)
            if stop < 0:
                return end
            self.state = self.resume
            return stop + 1
        stop = buf.find("*/", pos, end)
        if stop >= 0:
            self.state = self.resume
            return stop + 2
        if buf[end - 1] == "*" and not self.final:
            return ~(end - 1)  # the next fragment may begin with the "/"
        return end

    # ------------------------------------------------------------------ between tokens

    def _trailing_comma(self, buf: str, pos: int) -> int:
        if "trailing_comma" not in self.allowed:
            return super()._trailing_comma(buf, pos)
        self._record("trailing_comma", buf, pos)
        return self._close(pos)

    def _no_key(self, buf: str, pos: int, end: int) -> int:
        c = buf[pos]
        if c == "'" and "single_quotes" in self.allowed:
            self._record("single_quotes", buf, pos)
            self._open_string(pos, "'", key=True)
            return pos + 1
        if c in _IDENTIFIER_START and "unquoted_key" in self.allowed:
            self._record("unquoted_key", buf, pos)
            self._open_string(pos, "", key=True)
            return pos
        if c == "/":
            return self._comment(buf, pos, end, EXPECTING_KEY)
        return super()._no_key(buf, pos, end)

    def _no_colon(self, buf: str, pos: int, end: int) -> int:
        if buf[pos] == "/":
            return self._comment(buf, pos, end, EXPECTING_COLON)
        return super()._no_colon(buf, pos, end)

    def _no_comma(self, buf: str, pos: int, end: int) -> int:
        c = buf[pos]
        if c == "/":
            return self._comment(buf, pos, end, EXPECTING_COMMA)
        if "missing_comma" in self.allowed:
            if type(self.tree.stack[-1]) is list:
                # (not between two digits: "01" is a number with a leading zero, not two)
                if c in _ELEMENT_STARTS and not (
                    c in _NUMBER_STARTS and pos and buf[pos - 1] in DIGITS
                ):
                    self._record("missing_comma", buf, pos)
                    self.state = VALUE
                    return pos
            elif c == '"' or c == "'" or c in _IDENTIFIER_START:
                self._record("missing_comma", buf, pos)
                self.state = KEY
                return pos
        return super()._no_comma(buf, pos, end)

    # ------------------------------------------------------------------ literals

    def _literal(self, buf: str, pos: int, end: int) -> int:
        """A literal (``true``... and the ones the allowed repairs add), a single-quoted string,
        or a comment, at ``pos``."""
        c = buf[pos]
        names = self.literals.get(c)
        if names is None:
            if c == "'" and "single_quotes" in self.allowed:
                self._record("single_quotes", buf, pos)
                self._open_string(pos, "'", key=False)
                return pos + 1
            if c == "/":
                return self._comment(buf, pos, end, EXPECTING_VALUE)
            raise self.fail(BYTE_ORDER_MARK if c == "\ufeff" else EXPECTING_VALUE, buf, pos)
        for name, value, kind in names:
            if buf.startswith(name, pos):
                if value is NOTHING:
                    value = self.constant(name)
                if self.first_scalar:  # at the top: what follows decides (see _held)
                    self._hold(self.offset + pos, "", value, kind)
                    return pos + len(name)
                if kind is not None:
                    self._record(kind, buf, pos)
                tree = self.tree
                self.number_at = self.at = self.offset + pos
                tree.scalar(value)
                self.state = AFTER if tree.stack else DONE
                return pos + len(name)
        # Not whole here: the beginning of some of them, or an error where none goes on.
        reach = 0
        begun: list[tuple[str, Any]] = []
        for name, value, _ in names:
            k = 1
            while k < len(name) and pos + k < end and buf[pos + k] == name[k]:
                k += 1
            if pos + k == end:
                begun.append((name, value))
            reach = max(reach, k)
        if not begun:
            raise self.fail(EXPECTING_VALUE, buf, pos + reach)
        if self.final:
            raise self.fail(EXPECTING_VALUE, buf, end, incomplete=True)
        self.at = self.offset + pos
        if self.first_scalar:  # (held: it begins nothing yet, see _held)
            return ~pos
        self.tree.begins()
        if self.partial_literals and len(begun) == 1:
            name, value = begun[0]
            self.tree.provisional(self.constant(name) if value is NOTHING else value)
        return ~pos

    # ------------------------------------------------------------------ strings

    def _open_string(self, pos: int, closer: str, key: bool) -> None:
        """A string that ``closer`` closes begins at ``pos`` (after its quote, if it has one)."""
        self.quote = self.offset + pos
        if key:
            self.tree.key_start()
        else:
            self.tree.string_start()
        self.closer = closer
        self.state = STRING

    def _string(self, buf: str, pos: int, end: int) -> int:
        closer = self.closer
        if closer == '"':
            return super()._string(buf, pos, end)
        tree = self.tree
        if not closer:  # an unquoted key: up to the first character that is not in one
            stop = _IDENTIFIER_RE.match(buf, pos).end()  # type: ignore[union-attr]
            if stop > pos:
                tree.append(buf[pos:stop])
            if stop == end:
                return stop
            self.closer = '"'
            return self._closed(buf, stop, end)
        while True:  # a single-quoted string (Tokens._string, with the other quote)
            stop = _SINGLE_PLAIN_RE.match(buf, pos).end()  # type: ignore[union-attr]
            if stop > pos:
                tree.append(buf[pos:stop])
                pos = stop
            if pos == end:
                return pos
            c = buf[pos]
            if c == "'":
                self.closer = '"'
                return self._closed(buf, pos + 1, end)
            if c != "\\":
                pos = self._control(buf, pos)
                continue
            stop = self._escape(buf, pos, end)
            if stop < 0:
                return ~pos
            pos = stop

    def _control(self, buf: str, pos: int) -> int:
        if "control_character" not in self.allowed:
            return super()._control(buf, pos)
        self._record("control_character", buf, pos)
        self.tree.escape(buf[pos], 1)
        return pos + 1

    def _bad_escape(self, buf: str, pos: int, at: int) -> int:
        if at == pos + 1 and buf[at] == "'" and self.closer == "'":
            self.tree.escape("'", 2)  # in single quotes, \' is the escape of the quote
            return at + 1
        if "invalid_escape" not in self.allowed:
            return super()._bad_escape(buf, pos, at)
        self._record("invalid_escape", buf, pos)
        if at == pos + 1 and buf[at] == "'":
            self.tree.escape("'", 2)
            return at + 1
        if at == pos + 1:  # \x: both characters, as they are (a control character too)
            self.tree.escape(buf[pos : at + 1], 2)
            return at + 1
        self.tree.escape(buf[pos:at], at - pos)  # \u12G4: the escape as far as it went
        return at

    # ------------------------------------------------------------------ the end of the input

    def _end_number(self, text: str, buf: str, j: int, end: int) -> int:
        if self.first_scalar and j < end:  # (at the end of the input: the value)
            self.first_scalar = False
            if text[-1] in DIGITS:  # a whole number: held until what follows says
                self._hold(self.number_at, text, NOTHING, None)
                return j
            if self._may_skip():  # prose ("- item", "1. First")
                return self._skip(buf, self.number_at - self.offset, j)
        self.first_scalar = False
        if (
            text[-1] not in DIGITS
            and j == end
            and self.final
            and "unclosed" in self.allowed
            and (cut := text.rstrip("-+.eE"))
            and cut[-1] in DIGITS
        ):
            text = cut  # "12." at the end of the input: as far as it is a number
        return super()._end_number(text, buf, j, end)

    def _show_number(self, text: str, cut: str) -> None:
        if not self.first_scalar:  # (a number at the top is held: see _held)
            super()._show_number(text, cut)

    def _finish(self, buf: str, pos: int, end: int) -> None:
        if self.state == COMMENT:
            if self.block:
                if "unclosed" not in self.allowed:
                    raise self.fail("Unterminated comment", buf, end, incomplete=True)
                if not self.tree.stack:  # (in a value, closing the value records it)
                    self._record("unclosed", buf, end)
            self.state = self.resume  # a // comment ends with the input
        if self.held_at >= 0:  # the scalar held at the top is the value
            self._show_held(buf, end, end)
        skipped = self.skipped
        if skipped is not None and self.state == PROSE:  # text after the last value
            if "trailing_text" not in self.allowed:
                raise self.fail(EXPECTING_VALUE, buf, end, incomplete=True)
            self.skipped = None
            self.repairs.append(Repair("trailing_text", *skipped))
            self.state = DONE
        if self.multiple and (self.state == PROSE or self.state == TOP) and pos >= 0:
            self.state = DONE  # text after the last value, or none at all
        super()._finish(buf, pos, end)

    def _unclosed(self, buf: str, end: int) -> bool:
        """Close the value as it shows, when the input ends inside it: the open string as far
        as it got (a key without its value is dropped, as is a literal or a number that does
        not show), then each open container."""
        if "unclosed" not in self.allowed:
            return False
        tree = self.tree
        if self.state == STRING:
            self.closer = '"'
            if tree.slot is not None:
                tree.string_end()
            tree.in_key = False
        if tree.box[0] is NOTHING:
            return False
        while tree.stack:
            self.at = self.offset + end
            tree.close()
        self.state = DONE
        self._record("unclosed", buf, end)
        return True
