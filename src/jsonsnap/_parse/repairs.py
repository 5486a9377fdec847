"""The repair catalogue of tolerant mode: :data:`REPAIRS` (each kind and what it reads), the
:class:`Repair` a parser records (in a :class:`RepairLog`), and :func:`repairs_of`, what a
``repair=`` option allows.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final

from .._jsontext import describe

__all__ = ["REPAIRS", "Repair", "RepairLog", "repairs_of"]

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


class RepairLog:
    """The repairs a tolerant automaton made, in order, each with its line and column: lines
    are counted from the last repair when it is in the same buffer (from the buffer's start
    otherwise), so that any number of repairs costs time in proportion to the input."""

    __slots__ = ("lines", "made", "pos", "start")

    def __init__(self) -> None:
        self.made: list[Repair] = []
        # Where the last repair was: its absolute position, the lines before it and the
        # absolute position of its line's start.
        self.pos = -1
        self.lines = 0
        self.start = 0

    def place(
        self, buf: str, index: int, offset: int, lines: int, line_start: int
    ) -> tuple[int, int, int]:
        """The position, line and column of a repair at ``buf[index]``, ``buf`` beginning at
        ``offset`` (absolute), ``lines`` lines before it, the last one beginning at
        ``line_start`` (absolute)."""
        at = self.pos - offset
        if at < 0 or index < 0:  # (index < 0: a number begun before the buffer, on its line)
            at = 0
            self.lines = lines
            self.start = line_start
        newlines = buf.count("\n", at, index) if index > at else 0
        if newlines:
            self.lines += newlines
            self.start = offset + buf.rindex("\n", at, index) + 1
        pos = self.pos = offset + index
        return pos, self.lines + 1, pos - self.start + 1

    def add(self, kind: str, place: tuple[int, int, int]) -> None:
        """Record a repair of ``kind`` at ``place`` (from :meth:`place`)."""
        pos, lineno, colno = place
        self.made.append(Repair(kind, pos, lineno, colno))
