"""Python types as JSON Schema, and JSON values as instances of those types.

This module owns the bridge between the plain values the parser produces (``dict``, ``list``,
``str``, ``int``, ``float``, ``bool``, ``None``) and the caller's types:

* :func:`schema_of` gives the JSON Schema (draft 2020-12) of a type, to hand to a model as the
  shape its output must take;
* :func:`convert` turns the final value, already valid against that schema, into the type;
* :func:`view` turns a snapshot of a value still streaming into a typed partial view, with
  :data:`NOT_YET` wherever a part has not arrived (or is not of the right type yet).

The mapping (``X``, ``Y`` stand for any supported type; "named" types are marked with *)::

    Python type                          JSON Schema
    -----------------------------------  -------------------------------------------------------
    str, int, float, bool                {"type": "string" | "integer" | "number" | "boolean"}
    None, type(None)                     {"type": "null"}
    Any, object                          {}
    list[X], Sequence[X]                 {"type": "array", "items": X}   (bare: no "items")
    tuple[X, Y]                          {"type": "array", "prefixItems": [X, Y],
                                          "minItems": 2, "maxItems": 2, "items": false}
    tuple[X, ...]                        {"type": "array", "items": X}
    dict[str, X], Mapping[str, X]        {"type": "object", "additionalProperties": X}
    Literal["a", 1, None]                {"enum": ["a", 1, None]}   (one value: {"const": v})
    Enum subclass *                      {"enum": [member values]}
    X | Y, Optional[X], Union[X, Y]      {"anyOf": [X, Y]}   (nested unions flattened)
    Annotated[X, *meta]                  X, merged with the metadata (see below)
    dataclass *                          {"type": "object", "properties": ..., "required": ...,
                                          "additionalProperties": false}
    TypedDict *                          {"type": "object", "properties": ..., "required": ...}
    NamedTuple *                         {"type": "array", "prefixItems": [...], "items": false,
                                          "minItems": fields without default,
                                          "maxItems": all fields}
    pydantic model class                 Model.model_json_schema()
    NewType("N", X)                      X
    type A = X (Python 3.12+) *          X

Choices worth knowing:

* A **TypedDict** sets no ``additionalProperties``: Python allows extra keys in a TypedDict at
  run time, so the schema does too (a dataclass, whose constructor refuses unknown keywords,
  sets ``additionalProperties: false``). :func:`convert` and :func:`view` keep its declared
  keys only, as pydantic does (``TypeAdapter(TD)``): what the type promises is what is there.
* Values convert and view at **any depth** (no recursion). A pydantic model is validated by
  pydantic, whose own depth limit (its recursion guard: 255 nested models in pydantic 2.14)
  refuses deeper values: :func:`convert` raises :class:`ConversionError` then, as for any value
  the type refuses, with pydantic's ``ValidationError`` as its ``__cause__`` (a parser's
  ``close()`` makes it a ``SchemaError``).
* A **NamedTuple** is a tuple, so it travels as a JSON array of its fields in order, the
  trailing ones with defaults optional.
* In ``Annotated``, a ``dict`` item is taken as JSON Schema keywords and merged in as is; an
  object with annotated-types style attributes adds ``min_length``/``max_length`` (as
  ``minLength``/``maxLength`` on a string, ``minItems``/``maxItems`` on an array,
  ``minProperties``/``maxProperties`` on an object), ``ge``, ``gt``, ``le``, ``lt``
  (``minimum``, ``exclusiveMinimum``, ``maximum``, ``exclusiveMaximum``), ``multiple_of`` and
  ``pattern``. Anything else is ignored, and so are these constraints in :func:`convert` and
  :func:`view` (they check the JSON types, not the constraints).
* A named type (*) used more than once, or recursively, is written once under ``$defs`` with
  its ``__name__`` (``Name_2``, ``Name_3`` ... when two types share a name) and referenced as
  ``{"$ref": "#/$defs/Name"}``; one used once is written in place. The root type is the body of
  the schema itself, so a reference back to it is ``{"$ref": "#"}``. A pydantic model's own
  ``$defs`` are merged into the root's.
* A **union** is converted to its first member the value matches structurally (JSON types,
  required and unknown keys, array lengths, literal and enum values), so order the members
  from the most to the least specific; ``int | float`` keeps ``1`` an ``int``, and a ``float``
  given ``1`` keeps the ``int`` as JSON does. An ``int`` given an integral float such as
  ``2.0`` (an integer to JSON Schema) gets ``2``.

Anything else (``bytes``, ``set``, a plain class, a ``TypeVar``, ``dict[int, X]``) is a
:class:`TypeError` naming the type and where it occurs: ``Order.items[]`` is an item of the
list in field ``items`` of the root ``Order``; ``[2]`` is a position in a tuple, ``{}`` a value
of a dict, and ``$`` the root when it is not a named type.

>>> schema_of(list[int] | None)
{'anyOf': [{'type': 'array', 'items': {'type': 'integer'}}, {'type': 'null'}]}
>>> from dataclasses import dataclass
>>> @dataclass
... class Point:
...     x: int
...     y: int = 0
>>> convert({"x": 1}, Point)
Point(x=1, y=0)
>>> view({}, Point)
Point(x=<not yet>, y=<not yet>)
>>> view({}, Point, defaults=True)
Point(x=<not yet>, y=0)
"""

from __future__ import annotations

import copy
import math
from typing import Any, get_args

from .to_types import ConversionError, convert
from .type_kinds import (  # the shared helpers of the type modules
    _NAMED,
    NOT_YET,
    _Field,
    _fields,
    _inner,
    _is_json,
    _item,
    _Kind,
    _kind,
    _literal_json,
    _members,
    _number,
    _Schema,
    _tuple_items,
    _type_name,
)
from .views import view
from .walk import type_at

__all__ = ["NOT_YET", "ConversionError", "convert", "schema_of", "type_at", "view"]

# ---------------------------------------------------------------------------------------------
# schema_of


class _Entry:
    """A named type met while writing a schema: its body, and every reference to it."""

    __slots__ = ("body", "name", "refs")

    def __init__(self, name: str) -> None:
        self.name = name
        self.body: _Schema = {}
        self.refs: list[_Schema] = []


_LENGTH_KEYWORDS = {
    "string": ("minLength", "maxLength"),
    "array": ("minItems", "maxItems"),
    "object": ("minProperties", "maxProperties"),
}
_BOUND_KEYWORDS = {
    "ge": "minimum",
    "gt": "exclusiveMinimum",
    "le": "maximum",
    "lt": "exclusiveMaximum",
    "multiple_of": "multipleOf",
}


def _json_type(tp: Any) -> str | None:
    """The JSON type every value of ``tp`` has, if one: what a length constraint applies to."""
    kind = _kind(tp)
    while kind in ("annotated", "wrapper", "newtype", "alias"):
        tp = _inner(tp, kind)
        kind = _kind(tp)
    if kind == "string":
        return "string"
    if kind in ("list", "tuple", "namedtuple"):
        return "array"
    if kind in ("dict", "dataclass", "typeddict"):
        return "object"
    return None


def _annotation_keywords(tp: Any, metadata: tuple[Any, ...]) -> _Schema:
    out: _Schema = {}
    lengths = _LENGTH_KEYWORDS.get(_json_type(tp) or "")
    for item in metadata:
        if isinstance(item, dict):
            out.update(copy.deepcopy(item))
            continue
        if lengths is not None:
            for attribute, keyword in zip(("min_length", "max_length"), lengths, strict=False):
                length = getattr(item, attribute, None)
                if isinstance(length, int) and not isinstance(length, bool) and length >= 0:
                    out[keyword] = length
        for attribute, keyword in _BOUND_KEYWORDS.items():
            bound: Any = getattr(item, attribute, None)
            if _number(bound) and math.isfinite(bound):
                out[keyword] = bound
        pattern = getattr(item, "pattern", None)
        if isinstance(pattern, str):
            out["pattern"] = pattern
    return out


def _rename_refs(node: Any, renamed: dict[str, str]) -> None:
    """Point the ``#/$defs/`` references in a pydantic schema at their new names, in place."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            name = ref[len("#/$defs/") :]
            node["$ref"] = "#/$defs/" + renamed.get(name, name)
        for value in node.values():
            _rename_refs(value, renamed)
    elif isinstance(node, list):
        for value in node:
            _rename_refs(value, renamed)


def _literal_schema(tp: Any, where: str) -> _Schema:
    values = [copy.deepcopy(_literal_json(v)) for v in get_args(tp)]
    for value in values:
        if not _is_json(value):
            raise TypeError(
                f"cannot express {_type_name(tp)} as JSON Schema: {value!r} is not a "
                f"JSON value (at {where})"
            )
    return {"const": values[0]} if len(values) == 1 else {"enum": values}


def _enum_schema(tp: Any, where: str) -> _Schema:
    for member in tp:
        if not _is_json(member.value):
            raise TypeError(
                f"cannot express {_type_name(tp)} as JSON Schema: the value of "
                f"{member.name}, {member.value!r}, is not a JSON value (at {where})"
            )
    return {"enum": [copy.deepcopy(member.value) for member in tp]}


class _SchemaWriter:
    """Writes the schema of one root type: named types are written once, referenced after."""

    def __init__(self) -> None:
        self.entries: dict[Any, _Entry] = {}
        self.defs: dict[str, _Schema] = {}

    def root(self, tp: Any) -> _Schema:
        kind = _kind(tp)
        if kind == "pydantic":
            schema: _Schema = copy.deepcopy(tp.model_json_schema())
            return schema
        root_entry = None
        if kind in _NAMED:
            root_entry = self.entries[tp] = _Entry(tp.__name__)
            body = root_entry.body = self.body(tp, kind, tp.__name__)
        else:
            body = self.schema(tp, "$")
        self.finish(root_entry)
        if self.defs:
            body["$defs"] = self.defs
        return body

    def finish(self, root_entry: _Entry | None) -> None:
        """Give each reference its target: ``#``, the body in place, or a ``$defs`` entry."""
        for entry in list(self.entries.values()):
            if entry is root_entry:
                for ref in entry.refs:
                    ref["$ref"] = "#"
            elif len(entry.refs) == 1:
                ref = entry.refs[0]
                extra = {k: v for k, v in ref.items() if k != "$ref"}
                ref.clear()
                ref.update(entry.body)
                ref.update(extra)
            else:
                name = self.free_name(entry.name)
                self.defs[name] = entry.body
                for ref in entry.refs:
                    ref["$ref"] = f"#/$defs/{name}"

    def free_name(self, name: str) -> str:
        candidate, number = name, 1
        while candidate in self.defs:
            number += 1
            candidate = f"{name}_{number}"
        return candidate

    def schema(self, tp: Any, where: str) -> _Schema:
        kind = _kind(tp)
        if kind not in _NAMED:
            return self.body(tp, kind, where)
        entry = self.entries.get(tp)
        if entry is None:
            entry = self.entries[tp] = _Entry(tp.__name__)
            entry.body = self.body(tp, kind, where)
        ref: _Schema = {"$ref": ""}  # filled in by finish()
        entry.refs.append(ref)
        return ref

    def body(self, tp: Any, kind: _Kind, where: str) -> _Schema:
        if kind == "any":
            return {}
        if kind in ("null", "string", "integer", "number", "boolean"):
            return {"type": kind}
        if kind == "list":
            if not get_args(tp):
                return {"type": "array"}
            return {"type": "array", "items": self.schema(_item(tp), f"{where}[]")}
        if kind == "tuple":
            return self.tuple_schema(tp, where)
        if kind == "dict":
            return self.dict_schema(tp, where)
        if kind == "literal":
            return _literal_schema(tp, where)
        if kind == "enum":
            return _enum_schema(tp, where)
        if kind == "union":
            return {"anyOf": [self.schema(member, where) for member in _members(tp)]}
        if kind == "annotated":
            inner = _inner(tp, kind)
            schema = self.schema(inner, where)
            schema.update(_annotation_keywords(inner, tp.__metadata__))
            return schema
        if kind in ("wrapper", "newtype", "alias"):
            return self.schema(_inner(tp, kind), where)
        if kind in ("dataclass", "typeddict"):
            return self.object_schema(tp, kind, where)
        if kind == "namedtuple":
            return self.namedtuple_schema(tp, where)
        if kind == "pydantic":
            return self.pydantic_schema(tp)
        raise TypeError(f"cannot express {_type_name(tp)} as JSON Schema (at {where})")

    def dict_schema(self, tp: Any, where: str) -> _Schema:
        args = get_args(tp)
        if not args:
            return {"type": "object"}
        if args[0] is not str:
            raise TypeError(
                f"cannot express {_type_name(tp)} as JSON Schema: the keys of a JSON "
                f"object are strings, use str (at {where})"
            )
        return {"type": "object", "additionalProperties": self.schema(args[1], f"{where}{{}}")}

    def namedtuple_schema(self, tp: Any, where: str) -> _Schema:
        fields = self.fields(tp, "namedtuple", where)
        array: _Schema = {"type": "array"}
        if fields:
            array["prefixItems"] = [
                self.schema(f.tp, f"{where}[{i}]") for i, f in enumerate(fields)
            ]
        array["minItems"] = sum(f.required for f in fields)
        array["maxItems"] = len(fields)
        array["items"] = False
        return array

    def fields(self, tp: type, kind: _Kind, where: str) -> tuple[_Field, ...]:
        try:
            return _fields(tp, kind)
        except TypeError as error:
            raise TypeError(f"{error} (at {where})") from error.__cause__

    def tuple_schema(self, tp: Any, where: str) -> _Schema:
        items = _tuple_items(tp)
        if items is None:
            if not get_args(tp):
                return {"type": "array"}
            return {"type": "array", "items": self.schema(get_args(tp)[0], f"{where}[]")}
        if not items:
            return {"type": "array", "maxItems": 0}
        return {
            "type": "array",
            "prefixItems": [self.schema(t, f"{where}[{i}]") for i, t in enumerate(items)],
            "minItems": len(items),
            "maxItems": len(items),
            "items": False,
        }

    def object_schema(self, tp: type, kind: _Kind, where: str) -> _Schema:
        fields = [f for f in self.fields(tp, kind, where) if f.init]
        schema: _Schema = {
            "type": "object",
            "properties": {f.name: self.schema(f.tp, f"{where}.{f.name}") for f in fields},
        }
        required = [f.name for f in fields if f.required]
        if required:
            schema["required"] = required
        if kind == "dataclass":
            schema["additionalProperties"] = False
        return schema

    def pydantic_schema(self, tp: Any) -> _Schema:
        """The model's schema, its ``$defs`` merged into the root's (renamed on a clash)."""
        schema: _Schema = copy.deepcopy(tp.model_json_schema())
        defs: dict[str, _Schema] = schema.pop("$defs", {})
        renamed: dict[str, str] = {}
        for name, body in defs.items():
            if self.defs.get(name) == body:
                renamed[name] = name
            else:
                renamed[name] = self.free_name(name)
                self.defs[renamed[name]] = {}  # reserved: filled in below
        for name, body in defs.items():
            _rename_refs(body, renamed)
            self.defs[renamed[name]] = body
        _rename_refs(schema, renamed)
        return schema


def schema_of(tp: Any) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of the Python type ``tp``, as a new dict.

    See the module's documentation for the mapping. Raises :class:`TypeError` for a type it
    cannot express, naming the type and where it occurs (``at Order.items[]``).
    """
    return _SchemaWriter().root(tp)
