"""The one exception type of jsonsnap.

Every problem with the input, in every layer, is reported as :class:`JSONDecodeError`, a
subclass of the standard library's :class:`json.JSONDecodeError` (and so of ``ValueError``), so
code written for ``json.loads`` keeps working. Positions are absolute: ``pos`` counts characters
from the start of the whole stream, across every fragment fed, and ``lineno``/``colno`` follow
the standard library's convention (lines split at ``\\n`` only, both 1-based).
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["JSONDecodeError", "ParserStateError"]


class JSONDecodeError(json.JSONDecodeError):
    """The input is not (or cannot become) a valid JSON document.

    Attributes, beyond those of :class:`json.JSONDecodeError`:

    ``incomplete``
        ``True`` when the text read so far is a valid beginning of a document but the input ended
        (``close()`` on ``'{"a": '``), ``False`` when a character no valid continuation could
        accept was found (then ``pos`` is that character's offset).
    ``doc_offset``
        The absolute offset of ``doc[0]``. A streaming parser keeps only the unconsumed part of
        its input, so ``doc`` is the text it held when the error was found and the offending
        character is ``doc[pos - doc_offset]`` (when ``pos - doc_offset < len(doc)``). For a
        one-shot parse ``doc`` is the whole document and ``doc_offset`` is 0.
    """

    incomplete: bool
    doc_offset: int

    def __init__(
        self,
        msg: str,
        doc: str,
        pos: int,
        *,
        lineno: int | None = None,
        colno: int | None = None,
        doc_offset: int = 0,
        incomplete: bool = False,
    ) -> None:
        if lineno is None or colno is None:
            # Same arithmetic as the standard library, for a document that starts at doc_offset.
            local = pos - doc_offset
            lineno = doc.count("\n", 0, local) + 1
            colno = local - doc.rfind("\n", 0, local)
        ValueError.__init__(self, f"{msg}: line {lineno} column {colno} (char {pos})")
        self.msg = msg
        self.doc = doc
        self.pos = pos
        self.lineno = lineno
        self.colno = colno
        self.doc_offset = doc_offset
        self.incomplete = incomplete

    def __reduce__(self) -> tuple[Any, ...]:
        return (
            _rebuild,
            (
                type(self),
                self.msg,
                self.doc,
                self.pos,
                self.lineno,
                self.colno,
                self.doc_offset,
                self.incomplete,
            ),
        )


def _rebuild(
    cls: type[JSONDecodeError],
    msg: str,
    doc: str,
    pos: int,
    lineno: int,
    colno: int,
    doc_offset: int,
    incomplete: bool,
) -> JSONDecodeError:
    """Unpickle a :class:`JSONDecodeError` (its positions need not be derivable from ``doc``)."""
    return cls(
        msg, doc, pos, lineno=lineno, colno=colno, doc_offset=doc_offset, incomplete=incomplete
    )


class ParserStateError(ValueError):
    """A call the parser cannot take in its state: ``feed()`` after ``close()``, or ``feed()``
    and ``close()`` from inside a hook or a subscription callback. (The input is not at fault,
    so this is not a :class:`JSONDecodeError`.)"""


# Tracebacks and reprs name the classes where users import them from.
JSONDecodeError.__module__ = "jsonsnap"
ParserStateError.__module__ = "jsonsnap"
