"""A request's schemas, and what an accumulator does with them.

- :func:`tool_schemas` (published in :mod:`jsonsnap.streams`) and :func:`output_schema_of`: the
  schemas of a request's tool definitions and of its structured output format, read from any
  provider's shape and compiled once.
- :class:`SchemaSide`: the schema side of an accumulator, which holds one when it is given a
  schema: the structured output of each answer, the answer text of the updates fed to it, and
  the violations an event found put on that event's updates. (Each tool input checks itself:
  the accumulator makes it with its tool's schema.)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import UnionType
from typing import Any, get_origin

from .. import Schema, SchemaDefinitionError
from .._jsontext import describe
from .body import CHUNK_TYPES
from .events import dump_event
from .tool_input import StructuredOutput
from .update import Update


def _compile(source: Any, where: str) -> Schema:
    """A schema compiled once (a :class:`jsonsnap.Schema` is kept as it is); the keywords it
    does not check are left in its ``unchecked``, without a warning."""
    if isinstance(source, Schema):
        return source
    if isinstance(source, Mapping) and not isinstance(source, dict):
        source = dict(source)
    typelike = isinstance(source, (type, UnionType)) or get_origin(source) is not None
    if not (typelike or isinstance(source, (dict, bool))):
        raise TypeError(
            f"{where} takes a JSON Schema (a dict), a jsonsnap.Schema, a Python type or a "
            f"pydantic model class; not {describe(source)}"
        )
    try:
        return Schema(source, unknown="ignore")
    except TypeError as exc:
        raise TypeError(f"{where}: {exc}") from None
    except SchemaDefinitionError as exc:
        raise SchemaDefinitionError(f"{where}: {exc}") from None


def _definition(tool: Any, place: int) -> tuple[str, Any] | None:
    """The name and the schema of a tool definition, in any provider's shape; ``None`` for a
    tool with no JSON input schema (a server or built-in tool, a custom tool)."""
    if not isinstance(tool, Mapping):
        dumped = dump_event(tool)  # an SDK's model object
        if not isinstance(dumped, Mapping):
            raise TypeError(
                f"tools= takes the request's tool definitions (dicts), or a mapping "
                f"{{name: schema}}; item {place} is {describe(tool)}"
            )
        tool = dumped
    function = tool.get("function")
    body = function if isinstance(function, Mapping) else tool  # Chat Completions nests it
    schema = body.get("parameters", body.get("input_schema"))  # OpenAI, Anthropic
    if schema is None:
        return None
    name = body.get("name")
    if not isinstance(name, str):
        raise TypeError(f"tools=: item {place} is a tool definition whose name is {describe(name)}")
    return name, schema


def tool_schemas(tools: Any) -> dict[str, Schema]:
    """The schema of each tool, by name, compiled once, from ``tools``: the request's tool
    definitions as they are sent (Anthropic ``{"name", "input_schema"}``, Chat Completions
    ``{"type": "function", "function": {"name", "parameters"}}``, Responses ``{"type":
    "function", "name", "parameters"}``, in any mix), or a mapping ``{name: schema}`` whose
    schemas are anything ``Parser(schema=)`` takes. Tools without an input schema (server
    tools, built-in tools, custom tools) are left out: their calls are not checked. The name
    ``"*"`` in a mapping gives the schema of any tool not named."""
    if tools is None:
        return {}
    if isinstance(tools, Mapping):
        function = tools.get("function")
        if isinstance(tools.get("name"), str) or (
            isinstance(function, Mapping) and "name" in function
        ):
            raise TypeError("tools= takes a list of tool definitions: put this one in a list")
        pairs = list(tools.items())
        for name, _ in pairs:
            if not isinstance(name, str):
                raise TypeError(f"tools= maps tool names to schemas; a key is {describe(name)}")
    elif isinstance(tools, Iterable) and not isinstance(tools, (*CHUNK_TYPES, type)):
        found = (_definition(tool, place) for place, tool in enumerate(tools))
        pairs = [pair for pair in found if pair is not None]
    else:
        raise TypeError(
            "tools= takes the request's tool definitions (a list), or a mapping {name: schema}; "
            f"not {describe(tools)}"
        )
    schemas: dict[str, Schema] = {}
    for name, source in pairs:
        if name in schemas:
            raise ValueError(f"tools= defines the tool {name!r} twice")
        schemas[name] = _compile(source, f"tools= (tool {name!r})")
    return schemas


def output_schema_of(source: Any) -> Schema | None:
    """The schema of a structured output, compiled once, from ``source``: the request's format
    as it is sent (Chat Completions ``response_format`` ``{"type": "json_schema",
    "json_schema": {"name", "schema", "strict"}}``, Responses ``text`` or ``text.format``
    ``{"type": "json_schema", "name", "schema"}``, Anthropic's ``{"type": "json_schema",
    "schema"}``, or an ``output_config`` ``{"format": ...}``; ``{"type": "json_object"}`` asks
    for any object, ``{"type": "text"}`` for no structure: ``None``), or anything
    ``Parser(schema=)`` takes: a JSON Schema, a :class:`jsonsnap.Schema`, a Python type or a
    pydantic model class."""
    where = "output_schema="
    if source is None or isinstance(source, Schema):
        return source
    if isinstance(source, Mapping):
        kind = source.get("type")
        nested = source.get("format")
        if kind is None and isinstance(nested, Mapping):
            return output_schema_of(nested)
        if kind == "text":
            return None
        if kind == "json_object":
            return _compile({"type": "object"}, where)
        if kind == "json_schema":
            body = source.get("json_schema", source)
            schema = body.get("schema") if isinstance(body, Mapping) else None
            if schema is None:
                raise ValueError(f"{where} a json_schema format without its schema")
            return _compile(schema, where)
    return _compile(source, where)


class SchemaSide:
    """The schema side of an accumulator (see the module docstring). ``format``: the schema of
    the structured output, or ``None``; ``per_choice``: the answer is per choice (the ``index``
    of its updates; an update ``"finish"`` ends the choice's answer), rather than one per
    stream."""

    __slots__ = ("format", "outputs", "per_choice", "repair")

    def __init__(
        self, format: Schema | None, *, repair: Any = False, per_choice: bool = False
    ) -> None:
        self.format = format
        self.repair = repair  # the repairs allowed in a structured output (repair=)
        self.per_choice = per_choice
        #: The structured output of each answer, by choice (0 when there is one per stream).
        self.outputs: dict[int, StructuredOutput] = {}
        if format is not None:
            self.answer(0)

    def answers(self, update: Update) -> bool:
        """Whether an update brings answer text to a structured output."""
        text = update.text and not update.thinking and update.delta != "refusal"
        return bool(text) and self.format is not None

    def answer(self, choice: int) -> StructuredOutput:
        """The structured output of a choice (0 when there is one per stream), made once."""
        output = self.outputs.get(choice)
        if output is None:
            schema: Schema = self.format  # type: ignore[assignment]
            output = StructuredOutput(
                schema, choice if self.per_choice else None, repair=self.repair
            )
            self.outputs[choice] = output
        return output

    def check(self, updates: list[Update], done: bool) -> list[Update]:
        """What the schemas make of an event's updates: a tool input's update carries the
        violations its event found; answer text (not reasoning, not a refusal) goes to the
        structured output, whose update carries it and what it found; an answer that is over
        (the stream's end, ``done``; a choice's ``finish``) is parsed strictly, with one
        update ``"structured_done"``."""
        checked = []
        for update in updates:
            tool = update.tool
            if tool is not None:
                found = tool._new_violations()
                if found:
                    update = update._but(found)
            elif self.answers(update):
                output = self.answer((update.index or 0) if self.per_choice else 0)
                output._feed(update.text)
                found = output._new_violations()
                update = update._but(found, output)
            checked.append(update)
        if not self.outputs:
            return checked
        finished = {u.index for u in updates if u.event == "finish"} if self.per_choice else ()
        for choice, output in self.outputs.items():
            if not output.ended and (done or choice in finished):
                output._close()
                found = output._new_violations()
                end = Update("structured_done", output.choice, structured=output, violations=found)
                checked.append(end)
        return checked
