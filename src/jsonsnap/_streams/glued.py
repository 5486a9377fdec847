"""The values glued after the first in a streamed JSON text (``{..}{..}``).

Some servers send parallel calls as one call's arguments, values glued together. A streamed
JSON value (:class:`jsonsnap.streams.StreamedJSON`) reads them as what they are: its own
parser keeps the first value, and once a second begins, a :class:`GluedValues` reads the text
from there on, with one parser that takes ``multiple_values=True`` (unchecked). With
``repair=``, it reads from where the text after the first value starts, and the text is glued
only once it finds a value there (a comment or prose between them is not a value).

Its positions are the text's: an error or a repair in the glued part is shifted to where it
is in the whole text (its offset, line and column).
"""

from __future__ import annotations

from typing import Any

from .._errors import JSONDecodeError
from .._jsontext import NOTHING
from .._parse.parser import Parser
from .._parse.repairs import Repair


class GluedValues:
    """The values of a text after its first, from ``raw[start]`` on (see the module
    docstring). ``repair``: the repairs allowed (``None``: strict JSON)."""

    __slots__ = ("line_start", "lines", "parser", "start", "values")

    def __init__(self, raw: str, start: int, repair: Any) -> None:
        self.start = start
        self.lines = raw.count("\n", 0, start)  # the lines before it
        self.line_start = raw.rfind("\n", 0, start) + 1  # where its first line starts
        #: The values read whole.
        self.values: list[Any] = []
        self.parser = Parser(multiple_values=True, repair=repair or False)

    @property
    def found(self) -> bool:
        """Whether a value was found: the text holds several values."""
        return bool(self.values) or self.parser.snapshot(NOTHING) is not NOTHING

    def shown(self) -> list[Any]:
        """The values read whole, then the one being read, as it shows."""
        parser = self.parser
        last = NOTHING if parser.done else parser.snapshot(NOTHING)
        return self.values if last is NOTHING else [*self.values, last]

    def feed(self, text: str, raw: str) -> JSONDecodeError | None:
        """The next piece of the text (``raw``: the whole text so far); the error that makes
        the text invalid JSON, at its place in ``raw``, once a value was found."""
        error = None
        try:
            self.parser.feed(text)
        except JSONDecodeError as err:
            if self.found:  # (before a value is found, the text after the first is text)
                error = JSONDecodeError(err.msg, raw, self.start + err.pos)
        self.values += self.parser.read_values()
        return error

    def close(self, raw: str) -> JSONDecodeError | None:
        """The text is finished: the last value is read whole; the error, as :meth:`feed`."""
        try:
            self.values += self.parser.close()
        except JSONDecodeError as err:
            if self.found:
                return JSONDecodeError(
                    err.msg, raw, self.start + err.pos, incomplete=err.incomplete
                )
        return None

    def repairs(self, first: list[Repair]) -> list[Repair]:
        """The repairs made to read the whole text: ``first``, those of the first value's
        parser (but the one that read the glued value as text after the first), then the
        glued part's, at their places in the whole text."""
        start = self.start
        made = [r for r in first if r.pos != start]
        for r in self.parser.repairs:
            colno = r.colno + start - self.line_start if r.lineno == 1 else r.colno
            made.append(Repair(r.kind, r.pos + start, r.lineno + self.lines, colno))
        return made
