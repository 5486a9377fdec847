"""The request's ``tools`` and ``generationConfig``, as the schemas the accumulator checks.

``tools=`` takes the request's ``tools``: each ``Tool``'s ``functionDeclarations``, whose
parameters are in ``parametersJsonSchema`` (JSON Schema) or ``parameters`` (Gemini's
``Schema``, OpenAPI's subset, its type names in capitals). ``output_schema=`` takes the
``generationConfig`` (``responseJsonSchema``, else ``responseSchema``) or the request body
holding one. Both accept the SDK's objects and their snake_case field names too. An OpenAPI
schema is rewritten into JSON Schema's spelling (the types in lower case).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._sdk import dumped, rewritten

#: Gemini's OpenAPI schema type names, as JSON Schema spells them.
_TYPES = {"STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL"}


def _lower_type(key: Any, value: Any) -> Any:
    if key == "type" and isinstance(value, str) and value in _TYPES:
        return value.lower()
    return value


def _openapi(schema: Any) -> Any:
    """A Gemini ``Schema`` (OpenAPI's subset, its types in capitals) as JSON Schema spells it:
    the types in lower case (a copy)."""
    if not isinstance(schema, Mapping):
        return schema
    return rewritten(schema, _lower_type)


def declarations(tools: Any) -> Any:
    """The request's ``tools`` (``functionDeclarations`` in each, their schema in
    ``parametersJsonSchema`` or ``parameters``) as the tool definitions ``tools=`` reads;
    anything else as it is."""
    if tools is None or isinstance(tools, (Mapping, str, bytes)):
        return tools
    try:
        items = list(tools)
    except TypeError:
        return tools
    out: list[Any] = []
    for tool in items:
        tool = dumped(tool)
        found = None
        if isinstance(tool, Mapping):
            found = tool.get("functionDeclarations", tool.get("function_declarations"))
        if not isinstance(found, list):
            out.append(tool)
            continue
        for declaration in found:
            declaration = dumped(declaration)
            if not isinstance(declaration, Mapping):
                out.append(declaration)  # refused by tools=, which says why
                continue
            schema = declaration.get(
                "parametersJsonSchema", declaration.get("parameters_json_schema")
            )
            if schema is None:
                schema = _openapi(declaration.get("parameters"))
            if schema is None:
                schema = {"type": "object"}  # a function without parameters: {}
            out.append({"name": declaration.get("name"), "parameters": schema})
    return out


def response_schema(source: Any) -> Any:
    """The structured output's schema from the request's ``generationConfig`` (or the
    request body holding one): ``responseJsonSchema``, else ``responseSchema``; anything
    else as it is."""
    source = dumped(source)
    if not isinstance(source, Mapping):
        return source
    config = source.get("generationConfig", source.get("generation_config"))
    if isinstance(config, Mapping):
        source = config
    for key in ("responseJsonSchema", "response_json_schema"):
        if source.get(key) is not None:
            return source[key]
    for key in ("responseSchema", "response_schema"):
        if source.get(key) is not None:
            return _openapi(source[key])
    return source
