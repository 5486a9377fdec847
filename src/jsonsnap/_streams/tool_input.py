"""Streamed JSON values: a tool call's input and a structured output, live and checked.

- :class:`ToolInput` keeps one streamed tool call's input: the raw JSON text, a
  :class:`jsonsnap.Parser` for the live snapshot (and, once someone asks for it, the change
  feed), and the strict value once the protocol says the input is finished. Its ``status`` is
  ``"streaming"`` until then, and afterwards ``"complete"`` (strictly parsed), ``"incomplete"``
  (the text stopped before the value did: a cut at the token limit, or a stream that ended) or
  ``"invalid"`` (a character no continuation could accept, or, with a schema, a violation).
  :meth:`ToolInput.final` is the one way to get arguments fit to run a tool with.
- :class:`StructuredOutput` is the same for the answer text of a request with a structured
  output format: the text parsed live as JSON, checked against the format's schema, and its
  final value converted to the schema's Python type when the schema is one.
- With a schema (the request's tool definitions, or its output format), the parser checks the
  value as it streams (``on_violation="collect"``): ``violations`` lists what breaks the schema
  as soon as it is certain; ``field_state()``, ``missing()`` and ``view()`` say where the value
  stands. A violation changes nothing in the snapshot: only the status and :meth:`final`.
- With ``repair=`` (the accumulator's option), the text is read tolerantly (see
  :class:`jsonsnap.Parser`), and ``repairs`` lists what was repaired.
- Two values glued together (``{..}{..}``, as some servers send parallel calls) are read as
  what they are: the first value stays the snapshot, ``values`` holds them all (the ones after
  the first read by one parser with ``multiple_values=True``, unchecked), the status is
  ``"invalid"`` and :meth:`final` says why, instead of an error at the second ``{`` (strict)
  or the second value ignored as text after the first (``repair=``). With ``repair=``, the
  text after the first value is read so from its first character on, so a value after a
  comma, a comment or prose is found too; text that holds none stays ``trailing_text``.

Their common part is :class:`StreamedJSON` (``streamed_json``), which holds the glued values
in a ``GluedValues`` (``glued``). All of them are published in :mod:`jsonsnap.streams`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .. import Parser, Schema
from .._errors import mypyc_attr
from .streamed_json import StreamedJSON

#: The key of the tool schemas whose schema checks a call to any tool not named there (no
#: tool name the APIs allow has a ``*``).
ANY_TOOL = "*"
#: The compiled schemas of a request's tools, by tool name.
ToolSchemas = Mapping[str, Schema]


class ToolInputError(ValueError):
    """A tool's input is not fit to run the tool with: unfinished, invalid JSON, or (its
    ``__cause__`` the first :class:`jsonsnap.SchemaError`) a value that breaks its schema."""


class StructuredOutputError(ValueError):
    """A structured output has no value fit to use: unfinished, invalid JSON, a value that
    breaks its schema (its ``__cause__`` the first :class:`jsonsnap.SchemaError`), or one that
    does not convert to the schema's Python type."""


@mypyc_attr(allow_interpreted_subclasses=True)  # (users', and the tests' spies)
class ToolInput(StreamedJSON):
    """The streamed JSON input (arguments) of one tool call.

    Checked against the schema of the tool's definition when the accumulator was given the
    request's ``tools``: the schema of the name the call has when its input starts (its first
    fragment, or the first call to :meth:`changes` or :meth:`subscribe`). A call to a tool that
    is not among them is parsed unchecked (``schema`` is ``None``). An empty input counts as
    ``{}``, and is checked as ``{}``."""

    __slots__ = ("_schemas", "id", "index", "name")

    _ERROR = ToolInputError

    def __init__(
        self,
        index: int,
        name: str,
        id: str | None = None,
        *,
        schemas: ToolSchemas | None = None,
        repair: Any = False,
    ) -> None:
        super().__init__(repair=repair)
        #: Where the call is: the content block, tool call or output item index.
        self.index = index
        self.name = name
        self.id = id
        self._schemas = schemas or None  # until the schema is chosen

    def _empty(self) -> Any:
        return {}

    def _where(self) -> tuple[str, str]:
        return f"tool {self.name!r} ({self.index})", "input "

    def _choose(self) -> None:
        """Choose the schema by the tool's name now (once)."""
        schemas, self._schemas = self._schemas, None
        if schemas is not None:
            schema = schemas.get(self.name)
            self._schema = schemas.get(ANY_TOOL) if schema is None else schema
            if self._schema is not None:
                self._parser = self._new_parser(self._tracking)

    def _tracked(self) -> Parser:
        if self._schemas is not None:
            self._choose()
        return super()._tracked()

    def _feed(self, fragment: str) -> bool:
        if self._schemas is not None:
            self._choose()
        return StreamedJSON._feed(self, fragment)  # (no super(): it runs for every fragment)

    def _close(self, raw: str | None = None) -> bool:
        if self._schemas is not None:
            self._choose()
        return super()._close(raw)

    def _settle(self) -> None:
        if not self.raw.strip():
            if self._schema is None:
                self._value = {}
                self._status = "complete"
                return
            self._parser.feed("{}")  # checked as what it stands for
        super()._settle()

    def __repr__(self) -> str:
        return f"<ToolInput {self.index} {self.name!r} {self.status}, {len(self.raw)} chars>"


@mypyc_attr(allow_interpreted_subclasses=True)
class StructuredOutput(StreamedJSON):
    """The answer text of a request with a structured output format (``output_schema=`` of an
    accumulator), parsed live as JSON and checked against the format's schema.

    Every piece of answer text goes to it (not reasoning, not a refusal): the text blocks of an
    Anthropic message, a Chat Completions choice's ``content``, a response's ``output_text``.
    It ends with the stream (a choice with its ``finish_reason``). :meth:`final` returns the
    value converted to the schema's Python type when the schema is one (a dataclass, a pydantic
    model...), the JSON value otherwise; :meth:`view` shows the partial value as that type."""

    __slots__ = ("choice",)

    _TYPED = True
    _ERROR = StructuredOutputError

    def __init__(self, schema: Schema, choice: int | None = None, *, repair: Any = False) -> None:
        super().__init__(schema, repair=repair)
        #: The Chat Completions choice it is the answer of (``None`` in the other protocols).
        self.choice = choice

    def _where(self) -> tuple[str, str]:
        if self.choice is None:
            return "the structured output", ""
        return f"the structured output of choice {self.choice}", ""

    def final(self) -> Any:
        """The value, strictly parsed, checked and converted, or
        :class:`StructuredOutputError` when there is none."""
        if self.ended and self.status == "incomplete" and not self.raw.strip():
            where = self._where()[0]
            raise StructuredOutputError(f"{where} is empty (no answer text, or a refusal)")
        return super().final()

    def __repr__(self) -> str:
        choice = "" if self.choice is None else f" of choice {self.choice}"
        return f"<StructuredOutput{choice} {self.status}, {len(self.raw)} chars>"


for _cls in (ToolInputError, StructuredOutputError, ToolInput, StructuredOutput):
    setattr(_cls, "__module__", "jsonsnap.streams")  # noqa: B010 (a compiled class too)
