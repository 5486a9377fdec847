"""What is prose and what is a value, in tolerant mode: decided by the text alone, whichever
repairs are allowed (a repair left out makes the text refused, not another value found).

Before a top-level value, text is skipped up to the first ``{`` or ``[`` that begins a value
(``leading_text``); a bracket after prose begins one only when what follows it can begin its
first element or member (``[this]``, ``[write_file]`` and ``{name}`` are prose: :func:`opens`).
A number or literal read at the top is held until what follows it decides whether it is the
value or the first word of prose: a letter or a digit right after it (``3rd``, ``nullable``,
``Nonetheless``), a ``-`` and a digit (``2024-05-01``), or spaces and a word that is not a
literal (``3 results``, ``true story``) make it prose (:func:`direct`, :func:`spaced_word`);
anything else (the end, a newline, a value, a comment) makes it the value.

Each rule answers :data:`IS_PROSE`, :data:`IS_VALUE` or :data:`UNDECIDED` (the next fragment
decides; ``final``: no fragment follows). What decides lies within a few characters, so what
the automaton holds for the next fragment stays short.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Final

from .._errors import JSONDecodeError
from .automaton import Automaton
from .grammar import (
    DIGITS,
    DONE,
    EXPECTING_VALUE,
    EXTRA_DATA,
    NUMBER,
    PROSE,
    TOP,
    VALUE,
    WS,
    WS_RE,
    skip_ws,
)
from .observer import NOTHING

if TYPE_CHECKING:
    from .tolerant import Tolerant

__all__ = [
    "BLANKS_RE",
    "ELEMENT_STARTS",
    "IDENTIFIER_RE",
    "IDENTIFIER_START",
    "IS_PROSE",
    "IS_VALUE",
    "LITERALS",
    "NUMBER_STARTS",
    "PROSE_RE",
    "SCALAR_STARTS",
    "UNDECIDED",
    "Prose",
    "direct",
    "literal_word",
    "opens",
    "spaced_word",
]

#: Where text skipped before a value stops: the first bracket.
PROSE_RE: Final = re.compile(r"[^{\[]*")
#: Spaces and tabs: what may come between a held top-level scalar and the word after it.
BLANKS_RE: Final = re.compile(r"[ \t]*")
#: How far after a bracket that follows prose the whitespace or a key may go on before it is
#: taken to begin a value (with a literal's first letters after it, what is held for the next
#: fragment stays within the tail's 24 characters).
_BRACKET_HOLD: Final = 15
#: The rest of an unquoted key, and what may begin one.
IDENTIFIER_RE: Final = re.compile(r"[A-Za-z0-9_$]*")
IDENTIFIER_START: Final = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_$")
#: The literals, each with its value (``NOTHING``: the parser's ``parse_constant`` of its name)
#: and the repair that reads it (``None`` in strict JSON).
LITERALS: Final = (
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
SCALAR_STARTS: Final = frozenset(DIGITS + "-" + "".join(name[0] for name, _, _ in LITERALS))
NUMBER_STARTS: Final = frozenset(DIGITS + "-")
#: The characters that may begin an array element.
ELEMENT_STARTS: Final = SCALAR_STARTS | frozenset("\"'{[")
#: What, after a bracket that follows prose, begins its first element (or closes it).
_FIRST_ELEMENT: Final = frozenset(DIGITS + '-"{[]')
#: The literals' names, by first character (:func:`literal_word`).
_WORDS: Final = {c: tuple(name for name, _, _ in LITERALS if name[0] == c) for c in "tfnTFNuI"}
#: What a rule decides the text is: prose, the value, or not yet (the next fragment decides).
IS_PROSE: Final = 0
IS_VALUE: Final = 1
UNDECIDED: Final = -1


def _word_char(c: str) -> bool:
    """Whether ``c`` goes on a word (``null`` in ``nullable``, ``3`` in ``3rd``)."""
    return c.isalnum() or c == "_"


def opens(buf: str, pos: int, end: int, final: bool) -> int:
    """Whether the bracket at ``buf[pos]``, after prose, begins a value: what follows it
    (after whitespace) begins an element of an array or closes it, or begins a key with its
    colon or closes an object (or a comment), as tolerant mode reads them whichever repairs
    are allowed. What decides lies within ``_BRACKET_HOLD`` characters of the bracket
    (whitespace or a key that go on further begin a value), so what is held stays short (at
    most 24 characters, as any token's)."""
    i = WS_RE.match(buf, pos + 1).end()  # type: ignore[union-attr]
    if i - pos > _BRACKET_HOLD:
        return IS_VALUE
    if i < end:
        c = buf[i]
        if c == "'":
            return IS_VALUE
        if c == "/":
            if i + 1 < end:
                return IS_VALUE if buf[i + 1] in "/*" else IS_PROSE
        elif buf[pos] == "[":
            if c in _FIRST_ELEMENT:
                return IS_VALUE
            verdict = literal_word(buf, i, end, final)
            if verdict != UNDECIDED:
                return verdict
        elif c == "}" or c == '"':
            return IS_VALUE
        elif c in IDENTIFIER_START:
            j = IDENTIFIER_RE.match(buf, i + 1).end()  # type: ignore[union-attr]
            j = WS_RE.match(buf, j).end()  # type: ignore[union-attr]
            if j - pos > _BRACKET_HOLD:
                return IS_VALUE
            if j < end:  # (its colon, or a comment before it)
                return IS_VALUE if buf[j] == ":" or buf[j] == "/" else IS_PROSE
        else:
            return IS_PROSE
    return IS_VALUE if final else UNDECIDED


def literal_word(buf: str, pos: int, end: int, final: bool) -> int:
    """Whether the word at ``buf[pos]`` is a literal (``true``, and the ones the repairs
    add, allowed or not), not the beginning of a longer word (``trust``, ``nullable``)."""
    names = _WORDS.get(buf[pos])
    if names is None:
        return IS_PROSE
    verdict = IS_PROSE
    for name in names:
        stop = pos + len(name)
        if buf.startswith(name, pos):
            if stop < end:
                return IS_PROSE if _word_char(buf[stop]) else IS_VALUE
            verdict = UNDECIDED
        elif stop > end and name.startswith(buf[pos:end]):
            verdict = UNDECIDED
    if verdict == UNDECIDED and final:
        return IS_VALUE
    return verdict


def direct(buf: str, pos: int, end: int, final: bool, number: bool) -> int:
    """What the character right after a held scalar (a ``number`` or a literal) makes it:
    prose when it goes on a word (``3rd``, ``nullable``), when it is a ``-`` and a digit
    (``2024-05-01``), or, after a number, when it cannot follow a value (``1) First``,
    ``3/4``)."""
    c = buf[pos]
    if c in WS or c in "\"'{[":
        return IS_VALUE
    if c == "-" or c == "/":
        if pos + 1 == end:
            return IS_VALUE if final else UNDECIDED
        d = buf[pos + 1]
        if c == "-":
            return IS_PROSE if d in DIGITS else IS_VALUE
        if d in "/*":  # a comment (allowed or not: what is prose does not depend on it)
            return IS_VALUE
        return IS_PROSE if number else IS_VALUE
    if _word_char(c) or number:
        return IS_PROSE
    return IS_VALUE  # (a literal and a mark: "true." is the answer true)


def spaced_word(buf: str, pos: int, end: int, final: bool) -> int:
    """What the first character after a held scalar and spaces makes it: prose when it
    begins a word that is not a literal (``3 results``, ``true story``)."""
    c = buf[pos]
    if c.isalpha() or c == "_":
        return literal_word(buf, pos, end, final)
    return IS_VALUE


class Prose:
    """The text around a tolerant automaton's values: its states TOP (a top-level value, or
    text before it) and PROSE (text skipped up to a value), and what it reads after a value.
    It keeps the top-level scalar held until what follows decides (its text if it is a
    number, else its value and the repair that reads it), the text skipped after a value
    whose kind the next value or the end decides (``skipped``: where it begins). ``a`` is
    the automaton whose input it reads (passed, not kept)."""

    __slots__ = (
        "held",
        "held_at",
        "held_kind",
        "held_number",
        "held_spaced",
        "skipped",
    )

    def __init__(self) -> None:
        self.held_at = -1  # where the held scalar begins (absolute; -1: none)
        self.held_number = ""
        self.held: Any = NOTHING
        self.held_kind: str | None = None
        self.held_spaced = False  # whether spaces have followed it
        self.skipped: tuple[int, int, int] | None = None  # (position, line, column)

    def top(self, a: Tolerant, buf: str, pos: int, end: int) -> int:
        """TOP: a top-level value, or text before it."""
        if self.held_at >= 0:
            return self.decide(a, buf, pos, end)
        c = buf[pos]
        if c in WS:
            return skip_ws(buf, pos, end)
        if c in "{[\"'":
            a.state = VALUE
            return pos
        if c == "/":
            stop = a._maybe_comment(buf, pos, end, EXPECTING_VALUE)
            if stop is not None:
                return stop
        elif c in SCALAR_STARTS:
            # (read in TOP: a scalar cut here begins nothing for a schema, see _check.begins)
            a.first_scalar = True
            try:
                stop = a._value(buf, pos, end)
            except JSONDecodeError:
                a.first_scalar = False
                if not self.may_skip(a) or a.tree.box[0] is not NOTHING:
                    raise
            else:
                if a.state != NUMBER:  # (a long number decides when it ends)
                    a.first_scalar = False
                if stop < 0:
                    a.state = TOP  # decided by the next fragment
                return stop
        if not self.may_skip(a):
            a.state = VALUE
            return pos  # the strict error
        return self.skip(a, buf, pos, pos)

    def may_skip(self, a: Tolerant) -> bool:
        """Whether text where a top-level value should begin may be skipped."""
        allowed = a.allowed
        return "leading_text" in allowed or (a.index > 0 and "trailing_text" in allowed)

    def skip(self, a: Tolerant, buf: str, index: int, pos: int) -> int:
        """Text to skip up to the first bracket begins at ``buf[index]`` (before the buffer
        when negative: a scalar begun in an earlier fragment, on the same line); ``buf[pos]``
        is the first character not yet read."""
        if a.index:  # a value before it
            return self.between(a, buf, index, pos)
        a._record("leading_text", buf, index)
        a.state = PROSE
        return pos

    def between(self, a: Tolerant, buf: str, index: int, pos: int) -> int:
        """Several values per stream: text after a value begins at ``buf[index]``. Text before
        the next value (``leading_text``), or after the last one (``trailing_text``): when
        both are allowed, what comes first decides; with only ``trailing_text``, the rest of
        the input is ignored."""
        allowed = a.allowed
        if "leading_text" in allowed:
            self.skipped = a._place(buf, index)
            a.state = PROSE
            return pos
        if "trailing_text" not in allowed:
            raise a.fail(EXTRA_DATA, buf, pos)
        a._record("trailing_text", buf, index)
        a.ignored_at = a.offset + index
        a.state = DONE
        return pos

    def text(self, a: Tolerant, buf: str, pos: int, end: int) -> int:
        """PROSE: skip text up to the first ``{`` or ``[`` that begins a value."""
        while True:
            stop = PROSE_RE.match(buf, pos).end()  # type: ignore[union-attr]
            if stop == end:
                return stop
            verdict = opens(buf, stop, end, a.final)
            if verdict == IS_VALUE:
                break
            if verdict == UNDECIDED:
                return ~stop
            pos = stop + 1
        skipped = self.skipped
        if skipped is not None:  # text between two values: before the next one
            self.skipped = None
            a.log.add("leading_text", skipped)
        if a.collected:  # text after a value, before the next one
            return a._next_value(stop)
        a.state = VALUE
        return stop

    def hold(self, a: Tolerant, at: int, number: str, value: Any, kind: str | None) -> None:
        """The top-level scalar that begins at ``at`` (absolute) is read: hold it (the text of
        a number; the value of a literal and the repair that reads it) until what follows it
        decides."""
        self.held_at = at
        self.held_number = number
        self.held = value
        self.held_kind = kind
        self.held_spaced = False
        a.state = TOP

    def show(self, a: Tolerant, buf: str, pos: int, end: int) -> int:
        """The held scalar is the value: show it (``buf[pos]`` is what follows it)."""
        at = a.number_at = self.held_at
        self.held_at = -1
        number = self.held_number
        if number:
            self.held_number = ""
            return Automaton._end_number(a, number, buf, pos, end)
        value = self.held
        self.held = NOTHING
        if self.held_kind is not None:
            a._record(self.held_kind, buf, at - a.offset)
        a.at = at
        a.tree.scalar(value)
        a.state = DONE
        return pos

    def decide(self, a: Tolerant, buf: str, pos: int, end: int) -> int:
        """TOP, a scalar held: what follows it decides whether it is the value."""
        c = buf[pos]
        if c == " " or c == "\t":
            self.held_spaced = True
            return BLANKS_RE.match(buf, pos).end()  # type: ignore[union-attr]
        spaced = self.held_spaced
        if spaced:
            verdict = spaced_word(buf, pos, end, a.final)
        else:
            verdict = direct(buf, pos, end, a.final, bool(self.held_number))
        if verdict == IS_VALUE:
            return self.show(a, buf, pos, end)
        if verdict == UNDECIDED:
            return ~pos
        at = self.held_at - a.offset
        self.held_at = -1
        self.held = NOTHING
        if not self.may_skip(a):  # (prose whichever repairs are allowed: never the value)
            raise a.fail(EXTRA_DATA, buf, pos)
        return self.skip(a, buf, at, pos)

    def extra(self, a: Tolerant, buf: str, pos: int, end: int) -> int:
        """Text after the top-level value: the next value, text between values, or (reading
        one value) text to ignore."""
        if a.ignored_at >= 0:
            return end
        if a.multiple:
            a.collect()
            c = buf[pos]
            if c in ELEMENT_STARTS:
                return a._next_value(pos)
            if c == "/":
                stop = a._maybe_comment(buf, pos, end, EXTRA_DATA)
                if stop is not None:
                    return stop
            return self.between(a, buf, pos, pos)
        if "trailing_text" not in a.allowed:
            raise a.fail(EXTRA_DATA, buf, pos)
        a._record("trailing_text", buf, pos)
        a.ignored_at = a.offset + pos
        return end
