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
  sets ``additionalProperties: false``).
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

import collections.abc
import contextlib
import copy
import dataclasses
import enum
import math
import types
import typing
import weakref
from collections.abc import Callable
from typing import Any, Literal, TypeAlias, Union, get_args, get_origin

__all__ = ["NOT_YET", "convert", "schema_of", "type_at", "view"]

_Path: TypeAlias = tuple[str | int, ...]
_Schema: TypeAlias = dict[str, Any]


class _NotYet(enum.Enum):
    """The type of :data:`NOT_YET` (an enum, so that it is a picklable singleton)."""

    NOT_YET = "not yet"

    def __repr__(self) -> str:
        return "<not yet>"

    def __bool__(self) -> bool:
        return False


#: In a :func:`view`: this part has not arrived yet, or is not of the right type yet. Falsy.
NOT_YET: typing.Final = _NotYet.NOT_YET


# ---------------------------------------------------------------------------------------------
# What kind of type a type is: the one dispatch every walker below uses.

_Kind: TypeAlias = Literal[
    "any",
    "null",
    "string",
    "integer",
    "number",
    "boolean",
    "list",
    "tuple",
    "dict",
    "literal",
    "enum",
    "union",
    "annotated",
    "wrapper",
    "newtype",
    "alias",
    "dataclass",
    "typeddict",
    "namedtuple",
    "pydantic",
    "unsupported",
]

_SIMPLE: dict[Any, _Kind] = {
    Any: "any",
    object: "any",
    None: "null",
    type(None): "null",
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
}
#: Qualifiers that say something about a field, nothing about its value.
_WRAPPERS = frozenset({"Required", "NotRequired", "ReadOnly", "Final"})
#: The named types: in ``$defs`` when used more than once or recursively.
_NAMED = frozenset({"enum", "dataclass", "typeddict", "namedtuple", "alias"})


def _special_name(origin: Any) -> str | None:
    """The name of a special form such as ``Literal``, from typing or typing_extensions."""
    name = getattr(origin, "_name", None) or getattr(origin, "__name__", None)
    return name if isinstance(name, str) else None


def _is_class(tp: Any) -> bool:
    # Before 3.11, isinstance(list[int], type) is True.
    return isinstance(tp, type) and not isinstance(tp, types.GenericAlias)


def _is_pydantic(tp: type) -> bool:
    return hasattr(tp, "model_json_schema") and hasattr(tp, "model_validate")


def _is_typeddict(tp: type) -> bool:
    return (
        issubclass(tp, dict)
        and hasattr(tp, "__required_keys__")
        and hasattr(tp, "__optional_keys__")
        and hasattr(tp, "__total__")
    )


def _is_namedtuple(tp: type) -> bool:
    return issubclass(tp, tuple) and hasattr(tp, "_fields") and hasattr(tp, "_make")


def _kind(tp: Any) -> _Kind:
    try:
        simple = _SIMPLE.get(tp)
    except TypeError:  # unhashable, such as Annotated[int, {"minimum": 0}]
        simple = None
    if simple is not None:
        return simple
    origin = get_origin(tp)
    if origin is not None and hasattr(tp, "__metadata__"):
        return "annotated"
    if origin is Union or origin is types.UnionType:
        return "union"
    name = _special_name(origin)
    if name == "Literal":
        return "literal"
    if name in _WRAPPERS:
        return "wrapper"
    base = tp if origin is None else origin
    if base is list or base is collections.abc.Sequence:
        return "list"
    if base is tuple:
        return "tuple"
    if base is dict or base is collections.abc.Mapping:
        return "dict"
    if callable(tp) and hasattr(tp, "__supertype__"):
        return "newtype"
    if type(tp).__name__ == "TypeAliasType" and hasattr(tp, "__value__"):
        return "alias"
    if _is_class(tp):
        if _is_pydantic(tp):
            return "pydantic"
        if issubclass(tp, enum.Enum):
            return "enum"
        if dataclasses.is_dataclass(tp):
            return "dataclass"
        if _is_typeddict(tp):
            return "typeddict"
        if _is_namedtuple(tp):
            return "namedtuple"
    return "unsupported"


def _inner(tp: Any, kind: _Kind) -> Any:
    """What an annotated, wrapper, newtype or alias type stands for."""
    if kind == "annotated":
        return tp.__origin__
    if kind == "wrapper":
        return get_args(tp)[0]
    if kind == "newtype":
        return tp.__supertype__
    return tp.__value__


def _item(tp: Any) -> Any:
    """The item type of a list, the value type of a dict (``Any`` when bare)."""
    args = get_args(tp)
    return args[-1] if args else Any


def _tuple_items(tp: Any) -> tuple[Any, ...] | None:
    """The fixed item types of a tuple type, or None for ``tuple[X, ...]`` and bare tuples."""
    args = get_args(tp)
    if tp is tuple or tp is typing.Tuple or (len(args) == 2 and args[1] is Ellipsis):  # noqa: UP006
        return None
    if args == ((),):  # typing.Tuple[()] before 3.11
        return ()
    return args


def _members(tp: Any) -> list[Any]:
    """The members of a union, nested unions flattened."""
    out: list[Any] = []
    for member in get_args(tp):
        if _kind(member) == "union":
            out.extend(_members(member))
        else:
            out.append(member)
    return out


def _type_name(tp: Any) -> str:
    if _is_class(tp):
        return str(tp.__qualname__)
    if tp is None:
        return "None"
    return repr(tp).replace("typing.", "")


# ---------------------------------------------------------------------------------------------
# The fields of dataclasses, TypedDicts and NamedTuples, resolved once per class.


@dataclasses.dataclass(frozen=True)
class _Field:
    name: str
    tp: Any
    required: bool
    #: Makes the default value; None when the field has none.
    default: Callable[[], Any] | None
    #: Whether the field is in the JSON form (a dataclass field with init=False is not).
    init: bool = True


_fields_cache: weakref.WeakKeyDictionary[type, tuple[_Field, ...]] = weakref.WeakKeyDictionary()


def _hints(cls: type) -> dict[str, Any]:
    try:
        return typing.get_type_hints(cls, include_extras=True)
    except Exception as error:  # NameError for a name it cannot find, and others
        raise TypeError(f"cannot resolve the annotations of {cls.__qualname__}: {error}") from error


def _constant(value: Any) -> Callable[[], Any]:
    return lambda: value


def _fields(cls: type, kind: _Kind) -> tuple[_Field, ...]:
    cached = _fields_cache.get(cls)
    if cached is not None:
        return cached
    hints = _hints(cls)
    fields: list[_Field] = []
    if kind == "dataclass":
        for f in dataclasses.fields(cls):
            default: Callable[[], Any] | None = None
            if f.default is not dataclasses.MISSING:
                default = _constant(f.default)
            elif f.default_factory is not dataclasses.MISSING:
                default = f.default_factory
            tp = hints.get(f.name, Any)
            fields.append(_Field(f.name, tp, default is None, default, f.init))
    elif kind == "typeddict":
        required: frozenset[str] = getattr(cls, "__required_keys__", frozenset())
        for name, tp in hints.items():
            # Required[X] and NotRequired[X] written as strings (from __future__ import
            # annotations) are not seen by TypedDict itself, so __required_keys__ misses them.
            qualifier = _special_name(get_origin(tp))
            is_required = qualifier != "NotRequired" and (
                qualifier == "Required" or name in required
            )
            fields.append(_Field(name, tp, is_required, None))
    else:  # namedtuple
        defaults: dict[str, Any] = getattr(cls, "_field_defaults", {})
        for name in getattr(cls, "_fields", ()):
            default = _constant(defaults[name]) if name in defaults else None
            fields.append(_Field(name, hints.get(name, Any), default is None, default))
    result = tuple(fields)
    with contextlib.suppress(TypeError):  # a class without weak references: not cached
        _fields_cache[cls] = result
    return result


# ---------------------------------------------------------------------------------------------
# JSON values: what a Literal or an Enum may hold, and equality as JSON sees it.


def _is_json(value: Any) -> bool:
    if value is None or isinstance(value, (bool, int, str)):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list):
        return all(_is_json(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _is_json(v) for k, v in value.items())
    return False


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON values: ``True`` is not ``1``, ``1`` is ``1.0``."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=False))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(v, b[k]) for k, v in a.items())
    if a is None or b is None:
        return a is b
    return type(a) is type(b) and bool(a == b)


def _literal_json(value: Any) -> Any:
    return value.value if isinstance(value, enum.Enum) else value


def _choice(value: Any, choices: collections.abc.Iterable[Any]) -> Any:
    """The choice (a Literal value or an enum member) whose JSON value is ``value``, or NOT_YET."""
    for choice in choices:
        if _same(_literal_json(choice), value):
            return choice
    return NOT_YET


def _prefix_of_choice(value: Any, choices: collections.abc.Iterable[Any]) -> bool:
    """Whether ``value`` is a string cut short of some string choice."""
    if not isinstance(value, str):
        return False
    for choice in choices:
        text = _literal_json(choice)
        if isinstance(text, str) and text.startswith(value):
            return True
    return False


def _integer(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and value.is_integer())


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _as_int(value: Any) -> Any:
    """An integral float as the int it stands for (JSON Schema counts 2.0 as an integer)."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


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
            args = get_args(tp)
            if not args:
                return {"type": "object"}
            if args[0] is not str:
                raise TypeError(
                    f"cannot express {_type_name(tp)} as JSON Schema: the keys of a JSON "
                    f"object are strings, use str (at {where})"
                )
            return {"type": "object", "additionalProperties": self.schema(args[1], f"{where}{{}}")}
        if kind == "literal":
            values = [copy.deepcopy(_literal_json(v)) for v in get_args(tp)]
            for value in values:
                if not _is_json(value):
                    raise TypeError(
                        f"cannot express {_type_name(tp)} as JSON Schema: {value!r} is not a "
                        f"JSON value (at {where})"
                    )
            return {"const": values[0]} if len(values) == 1 else {"enum": values}
        if kind == "enum":
            for member in tp:
                if not _is_json(member.value):
                    raise TypeError(
                        f"cannot express {_type_name(tp)} as JSON Schema: the value of "
                        f"{member.name}, {member.value!r}, is not a JSON value (at {where})"
                    )
            return {"enum": [copy.deepcopy(member.value) for member in tp]}
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
            fields = self.fields(tp, kind, where)
            array: _Schema = {"type": "array"}
            if fields:
                array["prefixItems"] = [
                    self.schema(f.tp, f"{where}[{i}]") for i, f in enumerate(fields)
                ]
            array["minItems"] = sum(f.required for f in fields)
            array["maxItems"] = len(fields)
            array["items"] = False
            return array
        if kind == "pydantic":
            return self.pydantic_schema(tp)
        raise TypeError(f"cannot express {_type_name(tp)} as JSON Schema (at {where})")

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


# ---------------------------------------------------------------------------------------------
# Structural matching: which member of a union a value is.


def _pydantic_key(value: dict[str, Any], name: str, field: Any) -> str | None:
    """The key a pydantic field's value is under in ``value`` (alias first), or None."""
    for key in (getattr(field, "validation_alias", None), getattr(field, "alias", None), name):
        if isinstance(key, str) and key in value:
            return key
    return None


def _matches(value: Any, tp: Any, partial: bool) -> bool:
    """Whether ``value`` has the shape of ``tp``: the JSON types, required and unknown keys,
    array lengths, literal and enum values; constraints from ``Annotated`` are not checked.

    With ``partial``, ``value`` is a snapshot of a value still streaming: keys may be missing,
    arrays short, and a string may be cut short of a literal or enum value.
    """
    kind = _kind(tp)
    if kind in ("any", "unsupported"):  # unsupported: within a pydantic model, its business
        return True
    if kind == "null":
        return value is None
    if kind == "string":
        return isinstance(value, str)
    if kind == "integer":
        return _integer(value)
    if kind == "number":
        return _number(value)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind in ("annotated", "wrapper", "newtype", "alias"):
        return _matches(value, _inner(tp, kind), partial)
    if kind in ("literal", "enum"):
        choices = get_args(tp) if kind == "literal" else list(tp)
        if _choice(value, choices) is not NOT_YET:
            return True
        return partial and _prefix_of_choice(value, choices)
    if kind == "union":
        return any(_matches(value, member, partial) for member in _members(tp))
    if kind == "list":
        item = _item(tp)
        return isinstance(value, list) and all(_matches(v, item, partial) for v in value)
    if kind == "dict":
        item = _item(tp)
        return isinstance(value, dict) and all(_matches(v, item, partial) for v in value.values())
    if kind == "tuple":
        if not isinstance(value, list):
            return False
        items = _tuple_items(tp)
        if items is None:
            item = get_args(tp)[0] if get_args(tp) else Any
            return all(_matches(v, item, partial) for v in value)
        if len(value) > len(items) or (len(value) < len(items) and not partial):
            return False
        return all(_matches(v, t, partial) for v, t in zip(value, items, strict=False))
    if kind == "namedtuple":
        fields = _fields(tp, kind)
        if not isinstance(value, list) or len(value) > len(fields):
            return False
        if not partial and any(f.required for f in fields[len(value) :]):
            return False
        return all(_matches(v, f.tp, partial) for v, f in zip(value, fields, strict=False))
    if kind in ("dataclass", "typeddict"):
        if not isinstance(value, dict):
            return False
        by_name = {f.name: f for f in _fields(tp, kind) if f.init}
        if kind == "dataclass" and not by_name.keys() >= value.keys():
            return False
        if not partial and any(f.required and name not in value for name, f in by_name.items()):
            return False
        return all(_matches(v, by_name[k].tp, partial) for k, v in value.items() if k in by_name)
    # pydantic
    if not isinstance(value, dict):
        return False
    model_fields = getattr(tp, "model_fields", None)
    if not isinstance(model_fields, dict):
        return True
    for name, field in model_fields.items():
        key = _pydantic_key(value, name, field)
        if key is None:
            if not partial and getattr(field, "is_required", lambda: False)():
                return False
        elif not _matches(value[key], getattr(field, "annotation", Any), partial):
            return False
    return True


# ---------------------------------------------------------------------------------------------
# convert


def _expect(value: Any, json_type: type, tp: Any) -> None:
    if not isinstance(value, json_type):
        raise ValueError(f"cannot convert {type(value).__name__} to {_type_name(tp)}")


def _convert(value: Any, tp: Any) -> Any:
    kind = _kind(tp)
    if kind in ("any", "null", "string", "number", "boolean"):
        return value
    if kind == "integer":
        return _as_int(value)
    if kind in ("annotated", "wrapper", "newtype", "alias"):
        return _convert(value, _inner(tp, kind))
    if kind == "literal":
        choice = _choice(value, get_args(tp))
        return value if choice is NOT_YET else choice
    if kind == "enum":
        member = _choice(value, tp)
        return tp(value) if member is NOT_YET else member  # tp(value) raises ValueError
    if kind == "list":
        _expect(value, list, tp)
        item = _item(tp)
        return [_convert(v, item) for v in value]
    if kind == "tuple":
        _expect(value, list, tp)
        items = _tuple_items(tp)
        if items is None:
            item = get_args(tp)[0] if get_args(tp) else Any
            return tuple(_convert(v, item) for v in value)
        return tuple(_convert(v, t) for v, t in zip(value, items, strict=False))
    if kind == "dict":
        _expect(value, dict, tp)
        item = _item(tp)
        return {k: _convert(v, item) for k, v in value.items()}
    if kind == "dataclass":
        _expect(value, dict, tp)
        return tp(
            **{
                f.name: _convert(value[f.name], f.tp)
                for f in _fields(tp, kind)
                if f.init and f.name in value
            }
        )
    if kind == "typeddict":
        _expect(value, dict, tp)
        by_name = {f.name: f.tp for f in _fields(tp, kind)}
        return {k: _convert(v, by_name[k]) if k in by_name else v for k, v in value.items()}
    if kind == "namedtuple":
        _expect(value, list, tp)
        return tp(*[_convert(v, f.tp) for v, f in zip(value, _fields(tp, kind), strict=False)])
    if kind == "union":
        for member in _members(tp):
            if _matches(value, member, False):
                return _convert(value, member)
        raise ValueError(f"{_short(value)} matches no member of {_type_name(tp)}")
    if kind == "pydantic":
        return tp.model_validate(value)
    raise TypeError(f"cannot convert to {_type_name(tp)}: not a type schema_of() can express")


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def convert(value: Any, tp: Any) -> Any:
    """The final value (plain JSON, valid against ``schema_of(tp)``) as an instance of ``tp``.

    Dataclasses are built from their fields by name (absent fields take their defaults),
    NamedTuples from the array, Enum members from their values, tuples from arrays; lists and
    dicts are rebuilt with their items converted; a TypedDict stays a dict. A union takes the
    first member the value matches. A pydantic model is ``tp.model_validate(value)``.

    Raises :class:`ValueError` for a value of the wrong shape (or nesting too deep to convert)
    and :class:`TypeError` for a type :func:`schema_of` cannot express.
    """
    try:
        return _convert(value, tp)
    except RecursionError:
        raise ValueError("too deep to convert") from None


# ---------------------------------------------------------------------------------------------
# view


def _never(path: _Path) -> bool:
    return False


class _Viewer:
    """Views one snapshot: the caller's ``invalid`` and ``defaults`` for every part of it."""

    __slots__ = ("defaults", "invalid")

    def __init__(self, invalid: Callable[[_Path], bool], defaults: bool) -> None:
        self.invalid = invalid
        self.defaults = defaults

    def absent(self, field: _Field) -> Any:
        if self.defaults and field.default is not None:
            return field.default()
        return NOT_YET

    def view(self, value: Any, tp: Any, path: _Path, lenient: bool) -> Any:
        if value is NOT_YET or self.invalid(path):
            return NOT_YET
        kind = _kind(tp)
        if kind == "any":
            return value
        if kind in ("null", "string", "number", "boolean"):
            return value if _matches(value, tp, True) else NOT_YET
        if kind == "integer":
            return _as_int(value) if _integer(value) else NOT_YET
        if kind in ("annotated", "wrapper", "newtype", "alias"):
            return self.view(value, _inner(tp, kind), path, lenient)
        if kind == "literal":
            return _choice(value, get_args(tp))
        if kind == "enum":
            return _choice(value, tp)
        if kind == "union":
            # The member convert() would take if the value is complete, else the first it fits.
            members = _members(tp)
            for partial in (False, True):
                for member in members:
                    if _matches(value, member, partial):
                        return self.view(value, member, path, lenient)
            return NOT_YET
        if kind == "list":
            if not isinstance(value, list):
                return NOT_YET
            item = _item(tp)
            return [self.view(v, item, (*path, i), lenient) for i, v in enumerate(value)]
        if kind == "dict":
            if not isinstance(value, dict):
                return NOT_YET
            item = _item(tp)
            return {k: self.view(v, item, (*path, k), lenient) for k, v in value.items()}
        if kind == "tuple":
            return self.view_tuple(value, tp, path, lenient)
        if kind in ("dataclass", "typeddict", "namedtuple"):
            return self.view_fields(value, tp, kind, path, lenient)
        if kind == "pydantic":
            return self.view_pydantic(value, tp, path)
        if lenient:
            return value
        raise TypeError(f"cannot view as {_type_name(tp)}: not a type schema_of() can express")

    def view_tuple(self, value: Any, tp: Any, path: _Path, lenient: bool) -> Any:
        if not isinstance(value, list):
            return NOT_YET
        items = _tuple_items(tp)
        if items is None:
            item = get_args(tp)[0] if get_args(tp) else Any
            return tuple(self.view(v, item, (*path, i), lenient) for i, v in enumerate(value))
        if len(value) > len(items):
            return NOT_YET
        viewed = [
            self.view(v, t, (*path, i), lenient)
            for i, (v, t) in enumerate(zip(value, items, strict=False))
        ]
        return (*viewed, *[NOT_YET] * (len(items) - len(value)))

    def view_fields(self, value: Any, tp: Any, kind: _Kind, path: _Path, lenient: bool) -> Any:
        fields = _fields(tp, kind)
        if kind == "namedtuple":
            if not isinstance(value, list) or len(value) > len(fields):
                return NOT_YET
            viewed = [
                self.view(v, f.tp, (*path, i), lenient)
                for i, (v, f) in enumerate(zip(value, fields, strict=False))
            ]
            viewed.extend(self.absent(f) for f in fields[len(value) :])
            return tp._make(viewed)
        if not isinstance(value, dict):
            return NOT_YET
        values = {
            f.name: (
                self.view(value[f.name], f.tp, (*path, f.name), lenient)
                if f.init and f.name in value
                else self.absent(f)
            )
            for f in fields
            # The default of a key a TypedDict does not require is its absence.
            if not (
                kind == "typeddict" and self.defaults and not f.required and f.name not in value
            )
        }
        if kind == "typeddict":
            known = {f.name for f in fields}
            values.update((k, v) for k, v in value.items() if k not in known)
            return values
        # Built without __init__: no validation in __post_init__, frozen and slots work.
        obj = object.__new__(tp)
        for name, v in values.items():
            object.__setattr__(obj, name, v)
        return obj

    def view_pydantic(self, value: Any, tp: Any, path: _Path) -> Any:
        model_fields = getattr(tp, "model_fields", None)
        if getattr(tp, "__pydantic_root_model__", False) and isinstance(model_fields, dict):
            root = getattr(model_fields.get("root"), "annotation", Any)
            return tp.model_construct(self.view(value, root, path, True))
        if not isinstance(value, dict):
            return NOT_YET
        if not isinstance(model_fields, dict):
            return tp.model_construct(**value)
        values: dict[str, Any] = {}
        for name, field in model_fields.items():
            key = _pydantic_key(value, name, field)
            if key is not None:
                annotation = getattr(field, "annotation", Any)
                values[name] = self.view(value[key], annotation, (*path, key), True)
            elif not (self.defaults and not getattr(field, "is_required", lambda: True)()):
                values[name] = NOT_YET
            # else: left out, model_construct() fills in the default
        return tp.model_construct(**values)


def view(
    value: Any,
    tp: Any,
    *,
    invalid: Callable[[tuple[str | int, ...]], bool] = _never,
    defaults: bool = False,
) -> Any:
    """A typed partial view of ``value``, a snapshot of a JSON value still streaming.

    Each part present and of the right JSON type so far is viewed as its type; a part absent,
    of the wrong type, or whose path ``invalid(path)`` says is invalid, is :data:`NOT_YET`
    (with ``defaults=True``, a field absent that has a default gets the default instead).
    Paths are tuples of keys and indices, like ``("items", 3, "name")``; the root is ``()``.

    * A dataclass appears as soon as its object starts, built without calling ``__init__`` (so
      ``__post_init__`` does not run, and NOT_YET can be stored even in a frozen or slots
      dataclass); a NamedTuple as soon as its array starts, padded with NOT_YET; a TypedDict
      as a dict with every declared key, NOT_YET for the ones not there (with ``defaults``, a
      key it does not require is left out instead: its absence is its default), and any
      undeclared keys as they are.
    * A string is shown as far as it arrived, but an Enum or a Literal only once the value is
      exactly one of theirs: a string cut short is NOT_YET.
    * A list shows its items so far, NOT_YET in place of an item that does not fit; a fixed
      tuple is padded with NOT_YET.
    * A union is viewed as the member :func:`convert` would take if the value were complete,
      and otherwise as its first member the value fits so far (a string cut short fits a
      literal it begins), so the member may change as more arrives.
    * A pydantic model is ``tp.model_construct(...)`` (no validation) with its fields viewed.

    The root follows the same rules: ``view(None, Model)`` for a model that is not nullable is
    NOT_YET, so a snapshot's "nothing yet" default may be ``None`` or :data:`NOT_YET` itself.
    Raises :class:`TypeError` for a type :func:`schema_of` cannot express, and
    :class:`ValueError` if the value is nested too deep to view.
    """
    try:
        return _Viewer(invalid, defaults).view(value, tp, (), False)
    except RecursionError:
        raise ValueError("too deep to view") from None


# ---------------------------------------------------------------------------------------------
# The type at a path


def type_at(tp: Any, path: tuple[str | int, ...]) -> Any:
    """The Python type of the part of a ``tp`` value at ``path`` (``Any`` where the type says
    nothing, and for a union whose members disagree); for :meth:`jsonsnap.Parser.take`."""
    for step in path:
        tp = _bare(tp)
        kind = _kind(tp)
        if kind == "list" or (kind == "dict" and isinstance(step, str)):
            tp = _item(tp)
        elif kind == "tuple" and isinstance(step, int):
            items = _tuple_items(tp)
            tp = _item(tp) if items is None else (items[step] if step < len(items) else Any)
        elif kind in ("dataclass", "typeddict") and isinstance(step, str):
            found = [f.tp for f in _fields(tp, kind) if f.name == step]
            tp = found[0] if found else Any
        elif kind == "namedtuple" and isinstance(step, int):
            fields = _fields(tp, kind)
            tp = fields[step].tp if step < len(fields) else Any
        elif kind == "pydantic" and isinstance(step, str):
            field = getattr(tp, "model_fields", {}).get(step)
            tp = field.annotation if field is not None else Any
        elif kind == "union":
            members = [m for m in _members(tp) if _kind(m) != "null"]
            if len(members) != 1:
                return Any
            tp = type_at(members[0], (step,))
        else:
            return Any
    return tp


def _bare(tp: Any) -> Any:
    """``tp`` without Annotated, Required and the like, NewType and aliases; ``X | None`` as
    ``X``."""
    while True:
        kind = _kind(tp)
        if kind in ("annotated", "wrapper", "newtype", "alias"):
            tp = _inner(tp, kind)
        elif kind == "union":
            members = [m for m in _members(tp) if _kind(m) != "null"]
            if len(members) != 1:
                return tp
            tp = members[0]
        else:
            return tp
