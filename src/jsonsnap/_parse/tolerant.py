"""Tolerant mode: the JSON that models really send, read with named, recorded repairs.

:class:`Tolerant` is the automaton (``automaton``) with the places where strict JSON ends
(``_trailing_comma``, ``_no_key``, ``_no_colon``, ``_no_comma``, ``_extra``, ``_literal``,
``_control``, ``_bad_escape``, ``_unclosed``) read another way when the repair that reads them
is allowed, and three states of its own: ``TOP`` (before a top-level value: a value, or text
to skip, or a scalar held until what follows decides whether it is the value or prose) and
``PROSE`` (text skipped up to the first bracket that begins a value), both read by its
:class:`~.prose.Prose` (see ``prose``); and ``COMMENT`` (inside a ``//`` or ``/* */``
comment, then back to the state it interrupted, ``resume``). The catalogue of repairs and
their record are in ``repairs``.

The strict automaton reaches those places only on input that is not JSON, so valid JSON is
read exactly as strictly, by the same code and the same fast paths (none of which reads
anything but strict JSON: on anything else they decline, and the automaton comes here). So
valid input costs what it costs strictly, and gives the same value and no repair.

Invariants (those of the strict parser hold too: see ``parser``):

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
from typing import Any, Final

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
    KEY,
    PROSE,
    STRING,
    TOP,
    VALUE,
)
from .observer import NOTHING
from .options import Options
from .prose import (
    ELEMENT_STARTS,
    IDENTIFIER_RE,
    IDENTIFIER_START,
    LITERALS,
    NUMBER_STARTS,
    Prose,
)
from .repairs import Repair, RepairLog
from .tree import Tree

__all__ = ["Tolerant"]

#: Single-quoted string content without escapes.
_SINGLE_PLAIN_RE: Final = re.compile(r"[^'\\\x00-\x1f]*")


@functools.cache
def _literals(allowed: frozenset[str], allow_nan: bool) -> dict[str, Any]:
    """The literals a parser reads, by first character, with their values and repairs (one
    table for each set of repairs, shared: never changed)."""
    literals: dict[str, list[tuple[str, Any, str | None]]] = {}
    for name, value, kind in LITERALS:
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
        "first_scalar",
        "ignored_at",
        "literals",
        "log",
        "prose",
        "repairs",
        "resume",
    )

    lenient = True
    first = TOP

    def __init__(
        self, tree: Tree, fast: FastPaths, options: Options, allowed: frozenset[str]
    ) -> None:
        super().__init__(tree, fast, options)
        self.allowed = allowed
        self.log = RepairLog()
        self.repairs: list[Repair] = self.log.made  # (what the parser reads)
        self.open_ended = True
        self.minus_constant = self.allow_nan or "non_finite" in allowed
        self.literals = _literals(allowed, self.allow_nan)
        self.resume = VALUE  # the state a comment interrupted
        self.block = False  # whether the comment is a /* */ one
        # Whether the scalar being read begins at the top (TOP): read whole, it is held, as
        # it may be the first word of prose (see Prose); it begins nothing in the tree yet.
        self.first_scalar = False
        self.ignored_at = -1  # where the text after the value, ignored, begins
        self.prose = Prose()  # the text around the values: TOP, PROSE, after a value

    # ------------------------------------------------------------------ recording

    def _record(self, kind: str, buf: str, index: int) -> None:
        """Record a repair of ``kind`` at ``buf[index]``."""
        self.log.add(kind, self._place(buf, index))

    def _place(self, buf: str, index: int) -> tuple[int, int, int]:
        """The position, line and column of ``buf[index]``, for a repair there."""
        return self.log.place(buf, index, self.offset, self.lines, self.line_start)

    # ------------------------------------------------------------------ the states of its own

    def _own_state(self, buf: str, pos: int, end: int) -> int:
        """TOP, PROSE or COMMENT: the states that strict JSON has not."""
        state = self.state
        if state == TOP:
            return self.prose.top(self, buf, pos, end)
        if state == PROSE:
            return self.prose.text(self, buf, pos, end)
        return self._in_comment(buf, pos, end)

    def _extra(self, buf: str, pos: int, end: int) -> int:
        return self.prose.extra(self, buf, pos, end)

    # ------------------------------------------------------------------ comments

    def _maybe_comment(self, buf: str, pos: int, end: int, strict: str) -> int | None:
        """A ``/`` where a value or text may begin: a comment, when one is allowed and begins
        here (``~pos`` while the next character is not read yet); ``None`` when it is not."""
        if "comment" not in self.allowed:
            return None
        if pos + 1 == end:
            return None if self.final else ~pos  # the next character decides
        if buf[pos + 1] in "/*":
            return self._comment(buf, pos, end, strict)
        return None

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
        if c in IDENTIFIER_START and "unquoted_key" in self.allowed:
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
                if c in ELEMENT_STARTS and not (
                    c in NUMBER_STARTS and pos and buf[pos - 1] in DIGITS
                ):
                    self._record("missing_comma", buf, pos)
                    self.state = VALUE
                    return pos
            elif c == '"' or c == "'" or c in IDENTIFIER_START:
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
                if self.first_scalar:  # at the top: what follows decides (see Prose)
                    self.prose.hold(self, self.offset + pos, "", value, kind)
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
        if self.first_scalar:  # (held: it begins nothing yet, see Prose)
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
            stop = IDENTIFIER_RE.match(buf, pos).end()  # type: ignore[union-attr]
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
                self.prose.hold(self, self.number_at, text, NOTHING, None)
                return j
            if self.prose.may_skip(self):  # prose ("- item", "1. First")
                return self.prose.skip(self, buf, self.number_at - self.offset, j)
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
        if not self.first_scalar:  # (a number at the top is held: see Prose)
            super()._show_number(text, cut)

    def _finish(self, buf: str, pos: int, end: int) -> None:
        if self.state == COMMENT:
            if self.block:
                if "unclosed" not in self.allowed:
                    raise self.fail("Unterminated comment", buf, end, incomplete=True)
                if not self.tree.stack:  # (in a value, closing the value records it)
                    self._record("unclosed", buf, end)
            self.state = self.resume  # a // comment ends with the input
        prose = self.prose
        if prose.held_at >= 0:  # the scalar held at the top is the value
            prose.show(self, buf, end, end)
        skipped = prose.skipped
        if skipped is not None and self.state == PROSE:  # text after the last value
            if "trailing_text" not in self.allowed:
                raise self.fail(EXPECTING_VALUE, buf, end, incomplete=True)
            prose.skipped = None
            self.log.add("trailing_text", skipped)
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
