"""Every exception type of jsonsnap, and how a value is shown in an error message.

Every problem with the JSON text, in every layer, is reported as :class:`JSONDecodeError`, a
subclass of the standard library's :class:`json.JSONDecodeError` (and so of ``ValueError``), so
code written for ``json.loads`` keeps working. Positions are absolute: ``pos`` counts characters
from the start of the whole stream, across every fragment fed, and ``lineno``/``colno`` follow
the standard library's convention (lines split at ``\\n`` only, both 1-based). A stream of
events that reports an error, or breaks its protocol, raises :class:`StreamError` (published in
:mod:`jsonsnap.streams`; the wire formats below the accumulators raise it too, so it is here).

:func:`describe` (defined in :mod:`jsonsnap._jsontext`, the other module of the bottom layer,
and imported from there everywhere but in the parser's and the schema's layers, which still
find it here) shows a value the caller or a stream gave, in a message of any layer: short and
safe (no huge repr, no recursion, no address), so that both builds say the same.

Two helpers of the compiled build's, for the modules above: :func:`caused` (an error raised
from another, which mypyc does not link from ``raise ... from``) and ``mypyc_attr`` (mypyc's
class options: the compiler reads them from the source; at run time it is nothing, so the
compiled build has no dependency).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from mypy_extensions import mypyc_attr as mypyc_attr
else:

    def mypyc_attr(*args: object, **kwargs: object) -> Any:
        """mypyc's class options, read by the compiler from the source: nothing at run time
        (the compiled build has no dependency either)."""
        return lambda cls: cls


E = TypeVar("E", bound=BaseException)


def caused(error: E, cause: BaseException) -> E:
    """``error``, to be raised from ``cause``: ``raise caused(error, cause)`` is ``raise error
    from cause``, which a compiled build does not link."""
    error.__cause__ = cause
    return error


__all__ = [
    "JSONDecodeError",
    "ParserStateError",
    "SchemaDefinitionError",
    "SchemaError",
    "SchemaWarning",
    "StreamError",
]


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


class SchemaError(ValueError):
    """A value breaks its schema (the JSON itself may be fine, so this is not a
    :class:`JSONDecodeError`).

    ``path`` and ``pointer``
        where the value is: keys and indices from the root, and the same as a JSON Pointer
        (``"/items/3/name"``; ``""`` for the root);
    ``pos``, ``lineno``, ``colno``
        the character that made the violation certain, counted as in :class:`JSONDecodeError`
        (``pos`` from the start of the stream, across fragments): the value's first character
        for a wrong type, the first character no allowed value begins with for ``enum`` and
        ``const``, the closing brace for ``required``... (the README has the table);
    ``start``
        where the offending value begins;
    ``keyword``, ``expected``, ``found``
        the schema keyword broken, what it asks for, and what was found there;
    ``schema_path``
        where that keyword is in the schema, as a JSON Pointer.
    """

    def __init__(
        self,
        msg: str,
        *,
        path: tuple[str | int, ...] = (),
        pos: int = 0,
        lineno: int = 1,
        colno: int = 1,
        start: int = 0,
        keyword: str = "",
        expected: Any = None,
        found: Any = None,
        schema_path: str = "",
    ) -> None:
        pointer = "".join("/" + str(k).replace("~", "~0").replace("/", "~1") for k in path)
        where = f"at {pointer}" if path else "at the root"
        ValueError.__init__(self, f"{msg} {where}: line {lineno} column {colno} (char {pos})")
        self.msg = msg
        self.path = path
        self.pointer = pointer
        self.pos = pos
        self.lineno = lineno
        self.colno = colno
        self.start = start
        self.keyword = keyword
        self.expected = expected
        self.found = found
        self.schema_path = schema_path

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild_schema, (self.msg, self.__dict__))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SchemaError):
            return NotImplemented
        return self.__dict__ == other.__dict__

    __hash__ = ValueError.__hash__


def _rebuild_schema(msg: str, fields: dict[str, Any]) -> SchemaError:
    names = ("path", "pos", "lineno", "colno", "start", "keyword", "expected", "found")
    err = SchemaError(msg, **{k: fields[k] for k in names}, schema_path=fields["schema_path"])
    return err


class StreamError(Exception):
    """The stream reported an error (``error_type`` and ``message`` from its body), or broke
    the protocol (``error_type`` is ``None``): an event malformed, out of order or after the
    end."""

    def __init__(self, message: str, *, error_type: str | None = None) -> None:
        super().__init__(f"{error_type}: {message}" if error_type else message)
        self.message = message
        self.error_type = error_type

    def __reduce__(self) -> tuple[Any, ...]:
        return _stream_error, (self.message, self.error_type)


def _stream_error(message: str, error_type: str | None) -> StreamError:
    return StreamError(message, error_type=error_type)


class SchemaDefinitionError(ValueError):
    """The schema itself is wrong (or has a keyword that is not checked, when asked)."""


class SchemaWarning(UserWarning):
    """A schema has keywords that are not checked."""


# Tracebacks and reprs name the classes where users import them from.
JSONDecodeError.__module__ = "jsonsnap"
ParserStateError.__module__ = "jsonsnap"
SchemaError.__module__ = "jsonsnap"
StreamError.__module__ = "jsonsnap.streams"
SchemaDefinitionError.__module__ = "jsonsnap"
SchemaWarning.__module__ = "jsonsnap"
