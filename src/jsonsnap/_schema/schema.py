"""The public :class:`Schema`: a schema given as a JSON Schema, a Python type or a pydantic
model class, compiled (by :mod:`.compile`) once, then given to parsers and accumulators.

A Python type is written as a JSON Schema first (by :mod:`.from_types`, loaded only then). The
keywords not checked are listed in :attr:`Schema.unchecked` and, as ``unknown=`` says, warned of
(a :class:`~jsonsnap.SchemaWarning`), ignored or refused (a
:class:`~jsonsnap.SchemaDefinitionError`).
"""

from __future__ import annotations

import warnings
from decimal import Decimal
from typing import Any, Final

from .._errors import SchemaDefinitionError, SchemaWarning
from .._jsontext import describe
from .compile import Compiler
from .shape import Shape

__all__ = ["Schema"]

#: Values that are neither a schema nor a Python type.
_NOT_SCHEMAS: Final = (
    list,
    tuple,
    set,
    frozenset,
    str,
    bytes,
    bytearray,
    int,
    float,
    complex,
    Decimal,
)
#: The places of keywords not checked a warning names (the others are counted).
_SHOWN: Final = 20


class Schema:
    """A schema, compiled: give it to :class:`~jsonsnap.Parser` (``schema=``) or to the
    stream accumulators.

    ``source`` is a JSON Schema (a ``dict``, or ``True``/``False``), a Python type (a dataclass,
    ``TypedDict``, ``NamedTuple``, ``Enum``, ``Literal``, ``list[...]``, ``tuple[...]``,
    ``dict[str, ...]``, a union, ``Annotated``), or a pydantic model class. ``unknown`` says
    what to do with keywords that are not checked: ``"warn"`` (a :class:`SchemaWarning`),
    ``"ignore"``, or ``"error"`` (a :class:`SchemaDefinitionError`); they are listed in
    :attr:`unchecked` either way.
    """

    __slots__ = ("_unchecked", "json", "root", "type")

    def __init__(self, source: Any, *, unknown: str = "warn") -> None:
        if unknown not in ("warn", "ignore", "error"):
            raise ValueError(f"unknown= is 'warn', 'ignore' or 'error', not {unknown!r}")
        if isinstance(source, Schema):
            self.json: Any = source.json
            self.type: Any = source.type
            self.root: Shape = source.root
            self._unchecked: list[tuple[Shape, str]] = source._unchecked
            return
        if isinstance(source, _NOT_SCHEMAS) and not isinstance(source, bool):
            raise SchemaDefinitionError(
                f"a schema is an object or a boolean, not {describe(source, as_json=True)}"
            )
        if isinstance(source, (dict, bool)):
            self.type = None
            document: Any = source
        else:
            from .from_types import schema_of

            self.type = source
            document = schema_of(source)
        self.json = document
        compiler = Compiler(document)
        self.root = compiler.run()
        self._unchecked = compiler.unchecked
        if self._unchecked and unknown != "ignore":
            shown = self._unchecked[:_SHOWN]
            where = ", ".join(f"{k} at {s.pointer or '#'}" for s, k in shown)
            if len(self._unchecked) > _SHOWN:
                where += f" and {len(self._unchecked) - _SHOWN} more"
            if unknown == "error":
                raise SchemaDefinitionError(f"keywords not checked: {where}")
            warnings.warn(f"jsonsnap does not check these keywords: {where}", SchemaWarning, 3)

    @property
    def unchecked(self) -> tuple[tuple[str, str], ...]:
        """Where each keyword that is not checked is: ``(JSON Pointer, keyword)``."""
        return tuple((shape.pointer or "#", keyword) for shape, keyword in self._unchecked)

    def __repr__(self) -> str:
        what = getattr(self.type, "__name__", None) or repr(self.type) if self.type else "dict"
        return f"<Schema of {what}>"
