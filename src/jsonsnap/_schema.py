"""Schemas: a JSON Schema (draft 2020-12) compiled into :class:`Shape` values, and the checks
that need a whole value (JSON equality, ``uniqueItems`` keys, numbers, strings).

A schema is given as a ``dict`` (or ``True``/``False``), as a Python type (read by ``_types``),
or as a pydantic model class (read through its ``model_json_schema()``); :class:`Schema` holds
it compiled. Compiling turns each subschema into one :class:`Shape`: the keywords it checks,
as plain attributes, and its subschemas as shapes. A ``$ref`` (local: ``#`` and JSON Pointers
into the document, so ``$defs`` and ``definitions``, recursive too) is compiled once and
shared; it is checked as one more member of ``allOf``, as draft 2020-12 says.

Checked keywords
================

================================  ==========================================================
any value                         ``type`` (a name or a list), ``enum``, ``const``,
                                  ``allOf``, ``anyOf``, ``oneOf``, ``$ref``, ``nullable``
                                  (with ``type``: ``null`` allowed too)
strings                           ``minLength``, ``maxLength`` (in code points), ``pattern``
                                  (Python's ``re``, searched, not anchored)
numbers                           ``minimum``, ``maximum``, ``exclusiveMinimum``,
                                  ``exclusiveMaximum``, ``multipleOf``
arrays                            ``items``, ``prefixItems``, ``minItems``, ``maxItems``,
                                  ``uniqueItems``
objects                           ``properties``, ``required``, ``additionalProperties``,
                                  ``patternProperties``, ``minProperties``, ``maxProperties``
================================  ==========================================================

Annotations (``title``, ``description``, ``default``, ``examples``, ``$comment``...) are read
and ignored, as the draft says. Any other keyword is *not checked*: :attr:`Schema.unchecked`
lists where each is, a :class:`SchemaWarning` says so when the schema is compiled, and
``unknown="error"`` refuses the schema instead. A schema that is itself wrong (an unknown type
name, a ``$ref`` that leads nowhere, a pattern that does not compile) is a
:class:`SchemaDefinitionError`.

Equality is JSON's: ``1`` equals ``1.0``, ``true`` does not equal ``1``, and objects are equal
whatever the order of their keys.
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Mapping
from decimal import Decimal
from fractions import Fraction
from typing import Any, Final

__all__ = [
    "ANY_TYPE",
    "ARRAY",
    "BOOLEAN",
    "INTEGER",
    "KIND_NAMES",
    "NULL",
    "NUMBER",
    "OBJECT",
    "STRING",
    "Schema",
    "SchemaDefinitionError",
    "SchemaWarning",
    "Shape",
    "canonical",
    "describe",
    "integral",
    "json_equal",
    "kind_of",
    "number_fault",
    "type_names",
]

# The JSON types, as bits: a shape allows a set of them. "number" allows integers too; an
# "integer" is an int, or a float with no fraction (1.0), as the draft says.
NULL: Final = 1
BOOLEAN: Final = 2
INTEGER: Final = 4
NUMBER: Final = 8
STRING: Final = 16
ARRAY: Final = 32
OBJECT: Final = 64
ANY_TYPE: Final = 127

_TYPE_BITS: Final = {
    "null": NULL,
    "boolean": BOOLEAN,
    "integer": INTEGER,
    "number": NUMBER | INTEGER,
    "string": STRING,
    "array": ARRAY,
    "object": OBJECT,
}
#: The name of each type bit, for what was found.
KIND_NAMES: Final = {
    NULL: "null",
    BOOLEAN: "boolean",
    INTEGER: "integer",
    NUMBER: "number",
    STRING: "string",
    ARRAY: "array",
    OBJECT: "object",
}
_KINDS: Final[dict[type, int]] = {
    type(None): NULL,
    bool: BOOLEAN,
    int: INTEGER,
    float: NUMBER,
    str: STRING,
    list: ARRAY,
    dict: OBJECT,
}

#: Keywords read and not checked: they say nothing about validity.
ANNOTATIONS: Final = frozenset(
    {
        "$schema",
        "$id",
        "$comment",
        "$defs",
        "definitions",
        "$anchor",
        "$vocabulary",
        "title",
        "description",
        "default",
        "examples",
        "deprecated",
        "readOnly",
        "writeOnly",
        "discriminator",  # OpenAPI's hint: the const members of oneOf say the same
        "propertyOrdering",
        "strict",
    }
)
CHECKED: Final = frozenset(
    {
        "type",
        "enum",
        "const",
        "allOf",
        "anyOf",
        "oneOf",
        "$ref",
        "nullable",
        "minLength",
        "maxLength",
        "pattern",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "items",
        "prefixItems",
        "minItems",
        "maxItems",
        "uniqueItems",
        "properties",
        "required",
        "additionalProperties",
        "patternProperties",
        "minProperties",
        "maxProperties",
    }
)


class SchemaDefinitionError(ValueError):
    """The schema itself is wrong (or has a keyword that is not checked, when asked)."""


class SchemaWarning(UserWarning):
    """A schema has keywords that are not checked."""


SchemaDefinitionError.__module__ = "jsonsnap"
SchemaWarning.__module__ = "jsonsnap"


def kind_of(value: Any) -> int:
    """The JSON type bit of a value (a number of another class, such as ``Decimal``, is a
    number; an integral one an integer)."""
    kind = _KINDS.get(type(value))
    if kind is not None:
        return kind
    if isinstance(value, bool):
        return BOOLEAN
    if isinstance(value, int):
        return INTEGER
    if isinstance(value, (float, Decimal)):
        return NUMBER
    if isinstance(value, str):
        return STRING
    if isinstance(value, (list, tuple)):
        return ARRAY
    if isinstance(value, Mapping):
        return OBJECT
    return 0


def type_names(bits: int) -> str:
    """The JSON type names of ``bits``: ``"string or null"``."""
    names = [name for name, bit in _TYPE_BITS.items() if bits & bit == bit]
    if "number" in names:
        names.remove("integer")
    return " or ".join(names) or "nothing"


def _kind_name(value: Any) -> str:
    kind = kind_of(value)
    if kind == NUMBER and integral(value):
        return "number"
    return type_names(kind) if kind else type(value).__name__


def integral(value: Any) -> bool:
    """Whether a number has no fraction (``2.0``: an integer to JSON Schema)."""
    try:
        return bool(value == math.floor(value))
    except (OverflowError, ValueError, TypeError):  # inf, nan
        return False


def describe(value: Any, limit: int = 60) -> str:
    """A short text for a value found in a document."""
    if isinstance(value, str):
        text = repr(value)
    elif value is None or isinstance(value, bool):
        text = {None: "null", True: "true", False: "false"}[value]
    elif isinstance(value, (dict, list)):
        return f"an {_kind_name(value)}" if isinstance(value, dict) else "an array"
    else:
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def json_equal(a: Any, b: Any) -> bool:
    """Equality as JSON Schema defines it (without recursion)."""
    todo = [(a, b)]
    while todo:
        x, y = todo.pop()
        kx, ky = kind_of(x), kind_of(y)
        if kx & (INTEGER | NUMBER) and ky & (INTEGER | NUMBER):
            if x != y:
                return False
            continue
        if kx != ky:
            return False
        if kx == ARRAY:
            if len(x) != len(y):
                return False
            todo.extend(zip(x, y, strict=True))
        elif kx == OBJECT:
            if x.keys() != y.keys():
                return False
            todo.extend((x[k], y[k]) for k in x)
        elif x != y:
            return False
    return True


def canonical(
    value: Any,
    known: dict[int, tuple[Any, Any]] | None = None,
    ids: dict[Any, int] | None = None,
) -> Any:
    """A hashable key equal for values that are JSON-equal (for ``uniqueItems``), without
    recursion: numbers are tagged apart from booleans, arrays become tuples, objects sets.

    With ``ids``, each container's key is a number instead, the same for equal containers
    (``ids`` numbers them): a key is then flat, so that hashing and comparing it costs the
    container's length, not its depth (a nested tuple is hashed by recursion in C). ``known``
    holds the keys of containers already done (by ``id``, with the container), so that
    nested ones are not walked again."""
    # Build bottom-up with an explicit stack of (value, children done) entries.
    out: list[Any] = []
    todo: list[tuple[Any, bool]] = [(value, False)]
    while todo:
        item, done = todo.pop()
        kind = kind_of(item)
        if known and not done and kind & (ARRAY | OBJECT):
            hit = known.get(id(item))
            if hit is not None and hit[0] is item:
                out.append(hit[1])
                continue
        if kind == ARRAY:
            if not done:
                todo.append((item, True))
                todo.extend((x, False) for x in reversed(item))
                continue
            n = len(item)
            parts = tuple(out[len(out) - n :]) if n else ()
            del out[len(out) - n :]
            out.append(("a", parts) if ids is None else ids.setdefault(("a", parts), len(ids)))
        elif kind == OBJECT:
            if not done:
                todo.append((item, True))
                todo.extend((x, False) for x in reversed(list(item.values())))
                continue
            n = len(item)
            parts = tuple(out[len(out) - n :]) if n else ()
            del out[len(out) - n :]
            members = ("o", frozenset(zip(item.keys(), parts, strict=True)))
            out.append(members if ids is None else ids.setdefault(members, len(ids)))
        elif kind in (INTEGER, NUMBER):
            out.append(("n", item))
        else:
            out.append((kind, item))
    return out[0]


class Shape:
    """One compiled subschema: what it checks, as attributes (``None``: not checked)."""

    __slots__ = (
        "additional",
        "all_of",
        "allowed",
        "any_of",
        "closed",
        "enum",
        "enum_keys",
        "enum_kinds",
        "enum_kw",
        "exact",
        "items",
        "keyed",
        "max_items",
        "max_len",
        "max_props",
        "maximum",
        "min_items",
        "min_len",
        "min_props",
        "minimum",
        "multiple",
        "never",
        "one_of",
        "own",
        "pattern",
        "patterns",
        "plain",
        "pointer",
        "prefix",
        "props",
        "required",
        "scalar",
        "simple",
        "strings",
        "types",
        "unique",
        "xmax",
        "xmin",
    )

    def __init__(self, pointer: str) -> None:
        self.pointer = pointer  # where it is in the schema document
        self.types = ANY_TYPE
        self.never = False  # the schema ``false``: nothing is valid
        self.enum: tuple[Any, ...] | None = None
        self.enum_kw = "enum"  # or "const"
        self.strings: tuple[str, ...] | None = None  # the strings of enum/const, sorted
        # The canonical keys of enum/const (None: some value is not hashable) and their kinds.
        self.enum_keys: frozenset[Any] | None = None
        self.enum_kinds = 0
        self.min_len: int | None = None
        self.max_len: int | None = None
        self.pattern: re.Pattern[str] | None = None
        self.minimum: Any = None
        self.maximum: Any = None
        self.xmin: Any = None
        self.xmax: Any = None
        self.multiple: Any = None
        self.prefix: tuple[Shape, ...] = ()
        self.items: Shape | None = None
        self.min_items: int | None = None
        self.max_items: int | None = None
        self.unique = False
        self.props: dict[str, Shape] = {}
        self.required: tuple[str, ...] = ()
        self.additional: Shape | None = None
        self.patterns: tuple[tuple[re.Pattern[str], Shape], ...] = ()
        self.min_props: int | None = None
        self.max_props: int | None = None
        self.all_of: tuple[Shape, ...] = ()
        self.any_of: tuple[Shape, ...] = ()
        self.one_of: tuple[Shape, ...] = ()
        # Derived when compiled (see _finish): whether it checks anything itself, whether it
        # has subschemas for the same value, whether a string needs each character's place,
        # and the keys an object may have (None: any).
        self.own = False
        self.plain = True  # checks a type at most (and nothing else of a scalar)
        self.scalar = True  # checks a type and number keywords at most, of a scalar
        self.simple = True
        self.exact = False
        self.closed: frozenset[str] | None = None
        self.allowed: tuple[str, ...] = ()  # the properties of a closed object, sorted
        self.keyed = False  # checks keys as they are read (closed, or maxProperties)

    def __repr__(self) -> str:
        return f"<Shape {self.pointer or '#'}>"

    def key_shapes(self, key: str) -> tuple[Shape, ...]:
        """The shapes a member's value must match (none: anything)."""
        found = self.props.get(key)
        if not self.patterns:
            if found is not None:
                return (found,)
            return (self.additional,) if self.additional is not None else ()
        shapes = [found] if found is not None else []
        shapes.extend(shape for pattern, shape in self.patterns if pattern.search(key))
        if not shapes and self.additional is not None:
            shapes.append(self.additional)
        return tuple(shapes)

    def item_shape(self, index: int) -> Shape | None:
        """The shape the element at ``index`` must match (``None``: anything)."""
        if index < len(self.prefix):
            return self.prefix[index]
        return self.items


def number_fault(shape: Shape, value: Any) -> tuple[str, Any] | None:
    """The first number keyword ``value`` breaks, with what was expected; ``None``."""
    try:
        if shape.minimum is not None and value < shape.minimum:
            return "minimum", shape.minimum
        if shape.maximum is not None and value > shape.maximum:
            return "maximum", shape.maximum
        if shape.xmin is not None and value <= shape.xmin:
            return "exclusiveMinimum", shape.xmin
        if shape.xmax is not None and value >= shape.xmax:
            return "exclusiveMaximum", shape.xmax
        if shape.multiple is not None and not _is_multiple(value, shape.multiple):
            return "multipleOf", shape.multiple
    except TypeError:  # an unordered number (a parse_float of the user's): not comparable
        return "type", "a comparable number"
    return None


def _is_multiple(value: Any, step: Any) -> bool:
    """Whether ``value`` is a multiple of ``step``, exactly, on the numbers as written in
    decimal (``0.3`` is a multiple of ``0.1``; ``1e29`` is not one of ``3``), at any size."""
    if isinstance(value, float) and not math.isfinite(value):
        return False
    if isinstance(value, int) and isinstance(step, int):
        return value % step == 0
    try:
        return _exact(value) % _exact(step) == 0
    except (ValueError, TypeError, ArithmeticError):  # a number of the user's parse_float
        return False


def _exact(number: Any) -> Fraction:
    """A number as the exact fraction its decimal text says (a float by its shortest repr)."""
    if isinstance(number, int):
        return Fraction(number)
    return Fraction(str(number))


class _Compiler:
    """Compiles one schema document: each JSON Pointer once (``$ref`` cycles included)."""

    def __init__(self, root: Any) -> None:
        self.root = root
        self.shapes: dict[str, Shape] = {}
        self.unchecked: list[tuple[str, str]] = []

    def at(self, pointer: str) -> Shape:
        shape = self.shapes.get(pointer)
        if shape is None:
            shape = self.compile(self._resolve(pointer), pointer)
        return shape

    def _resolve(self, pointer: str) -> Any:
        node = self.root
        if not pointer:
            return node
        for raw in pointer[1:].split("/"):
            part = _unquote(raw).replace("~1", "/").replace("~0", "~")
            if isinstance(node, dict) and part in node:
                node = node[part]
            elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
                node = node[int(part)]
            else:
                raise SchemaDefinitionError(f"$ref '#{pointer}' leads nowhere")
        return node

    def compile(self, node: Any, pointer: str) -> Shape:
        shape = Shape(pointer)
        self.shapes[pointer] = shape
        if node is True:
            return _finish(shape)
        if node is False:
            shape.never = True
            return _finish(shape)
        if not isinstance(node, dict):
            raise SchemaDefinitionError(f"a schema is an object or a boolean, not {node!r}")
        for keyword, value in node.items():
            if keyword in ANNOTATIONS:
                continue
            if keyword not in CHECKED:
                self.unchecked.append((pointer or "#", keyword))
                continue
            self._keyword(shape, keyword, value, f"{pointer}/{_escape(keyword)}")
        if node.get("nullable") is True and "type" in node:
            shape.types |= NULL
        return _finish(shape)

    def _sub(self, node: Any, pointer: str) -> Shape:
        return self.shapes.get(pointer) or self.compile(node, pointer)

    def _keyword(self, shape: Shape, keyword: str, value: Any, here: str) -> None:
        if keyword == "type":
            names = value if isinstance(value, list) else [value]
            bits = 0
            for name in names:
                if not isinstance(name, str) or name not in _TYPE_BITS:
                    raise SchemaDefinitionError(f"unknown type {name!r} at {here}")
                bits |= _TYPE_BITS[name]
            shape.types &= bits
        elif keyword in ("enum", "const"):
            values = tuple(value) if keyword == "enum" else (value,)
            if keyword == "enum" and not isinstance(value, list):
                raise SchemaDefinitionError(f"enum is a list, at {here}")
            if shape.enum is not None:  # both: the values in both
                values = tuple(v for v in values if any(json_equal(v, w) for w in shape.enum))
            shape.enum = values
            shape.enum_kw = keyword if shape.enum_kw != "const" else "const"
            shape.strings = tuple(sorted({v for v in values if isinstance(v, str)}))
        elif keyword in ("allOf", "anyOf", "oneOf"):
            if not isinstance(value, list) or not value:
                raise SchemaDefinitionError(f"{keyword} is a non-empty list, at {here}")
            subs = tuple(self._sub(v, f"{here}/{i}") for i, v in enumerate(value))
            setattr(shape, {"allOf": "all_of", "anyOf": "any_of", "oneOf": "one_of"}[keyword], subs)
        elif keyword == "$ref":
            if not isinstance(value, str) or not value.startswith("#"):
                raise SchemaDefinitionError(f"only local $ref ('#...') is read, not {value!r}")
            shape.all_of = (*shape.all_of, self.at(value[1:]))
        elif keyword == "nullable":
            return
        elif keyword in ("minLength", "maxLength", "minItems", "maxItems"):
            count = _count(value, here)
            name = {"minLength": "min_len", "maxLength": "max_len"}.get(keyword)
            setattr(
                shape, name or {"minItems": "min_items", "maxItems": "max_items"}[keyword], count
            )
        elif keyword in ("minProperties", "maxProperties"):
            setattr(shape, "min_props" if keyword[1] == "i" else "max_props", _count(value, here))
        elif keyword == "pattern":
            shape.pattern = _pattern(value, here)
        elif keyword in (
            "minimum",
            "maximum",
            "exclusiveMinimum",
            "exclusiveMaximum",
            "multipleOf",
        ):
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise SchemaDefinitionError(f"{keyword} is a number, at {here}")
            if keyword == "multipleOf" and value <= 0:
                raise SchemaDefinitionError(f"multipleOf is above 0, at {here}")
            attr = {
                "minimum": "minimum",
                "maximum": "maximum",
                "exclusiveMinimum": "xmin",
                "exclusiveMaximum": "xmax",
                "multipleOf": "multiple",
            }[keyword]
            setattr(shape, attr, value)
        elif keyword == "uniqueItems":
            shape.unique = value is True
        elif keyword == "items":
            shape.items = self._sub(value, here)
        elif keyword == "prefixItems":
            if not isinstance(value, list):
                raise SchemaDefinitionError(f"prefixItems is a list, at {here}")
            shape.prefix = tuple(self._sub(v, f"{here}/{i}") for i, v in enumerate(value))
        elif keyword == "properties":
            shape.props = {k: self._sub(v, f"{here}/{_escape(k)}") for k, v in _obj(value, here)}
        elif keyword == "patternProperties":
            shape.patterns = tuple(
                (_pattern(k, here), self._sub(v, f"{here}/{_escape(k)}"))
                for k, v in _obj(value, here)
            )
        elif keyword == "required":
            if not isinstance(value, list) or not all(isinstance(k, str) for k in value):
                raise SchemaDefinitionError(f"required is a list of strings, at {here}")
            shape.required = tuple(dict.fromkeys(value))
        elif keyword == "additionalProperties":
            shape.additional = self._sub(value, here)


def _finish(shape: Shape) -> Shape:
    """Derive what the checker asks of a shape (after its keywords are read; a shape reached
    again through a ``$ref`` cycle is derived before its subschemas are, which is fine: the
    derived fields describe the shape's own keywords only)."""
    shape.simple = not (shape.all_of or shape.any_of or shape.one_of)
    shape.exact = bool(
        shape.strings is not None
        or shape.min_len is not None
        or shape.max_len is not None
        or shape.pattern is not None
    )
    additional = shape.additional
    if additional is not None and additional.never:
        shape.allowed = tuple(sorted(shape.props))
        if not shape.patterns:
            shape.closed = frozenset(shape.props)
    if shape.enum is not None:
        shape.enum_kinds = 0
        for v in shape.enum:
            shape.enum_kinds |= kind_of(v)
        try:  # (containers are looked up by the checker, in its own numbering)
            shape.enum_keys = frozenset(
                canonical(v) for v in shape.enum if not kind_of(v) & (ARRAY | OBJECT)
            )
        except TypeError:  # a value that is not hashable: compared one by one
            shape.enum_keys = None
    shape.own = (
        shape.never
        or shape.types != ANY_TYPE
        or shape.enum is not None
        or shape.exact
        or any(
            x is not None
            for x in (shape.minimum, shape.maximum, shape.xmin, shape.xmax, shape.multiple)
        )
        or bool(shape.prefix)
        or shape.items is not None
        or shape.min_items is not None
        or shape.max_items is not None
        or shape.unique
        or bool(shape.props)
        or bool(shape.required)
        or additional is not None
        or bool(shape.patterns)
        or shape.min_props is not None
        or shape.max_props is not None
    )
    shape.keyed = (
        shape.closed is not None
        or shape.max_props is not None
        or (additional is not None and additional.never)  # (with patternProperties)
    )
    shape.scalar = shape.simple and not shape.never and shape.enum is None and not shape.exact
    shape.plain = shape.scalar and all(
        x is None for x in (shape.minimum, shape.maximum, shape.xmin, shape.xmax, shape.multiple)
    )
    return shape


def _count(value: Any, here: str) -> int:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise SchemaDefinitionError(f"expected a count (an integer >= 0) at {here}, not {value!r}")
    return value


def _pattern(value: Any, here: str) -> re.Pattern[str]:
    if not isinstance(value, str):
        raise SchemaDefinitionError(f"a pattern is a string, at {here}")
    try:
        return re.compile(value)
    except re.error as exc:
        raise SchemaDefinitionError(
            f"pattern {value!r} at {here} does not compile: {exc}"
        ) from None


def _obj(value: Any, here: str) -> list[tuple[str, Any]]:
    if not isinstance(value, dict):
        raise SchemaDefinitionError(f"expected an object at {here}")
    return list(value.items())


def _escape(key: str) -> str:
    """A key as a JSON Pointer part."""
    return key.replace("~", "~0").replace("/", "~1")


def _unquote(part: str) -> str:
    if "%" not in part:
        return part
    from urllib.parse import unquote

    return unquote(part)


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

    __slots__ = ("json", "root", "type", "unchecked")

    def __init__(self, source: Any, *, unknown: str = "warn") -> None:
        if unknown not in ("warn", "ignore", "error"):
            raise ValueError(f"unknown= is 'warn', 'ignore' or 'error', not {unknown!r}")
        if isinstance(source, Schema):
            self.json: Any = source.json
            self.type: Any = source.type
            self.root: Shape = source.root
            self.unchecked: tuple[tuple[str, str], ...] = source.unchecked
            return
        if isinstance(source, (list, str, int, float)) and not isinstance(source, bool):
            raise SchemaDefinitionError(f"a schema is an object or a boolean, not {source!r}")
        if isinstance(source, (dict, bool)):
            self.type = None
            document: Any = source
        else:
            from ._types import schema_of

            self.type = source
            document = schema_of(source)
        self.json = document
        compiler = _Compiler(document)
        self.root = compiler.at("")
        #: Where each keyword that is not checked is: ``(JSON Pointer, keyword)``.
        self.unchecked = tuple(compiler.unchecked)
        if self.unchecked and unknown != "ignore":
            where = ", ".join(f"{k} at {p}" for p, k in self.unchecked)
            if unknown == "error":
                raise SchemaDefinitionError(f"keywords not checked: {where}")
            warnings.warn(f"jsonsnap does not check these keywords: {where}", SchemaWarning, 3)

    def __repr__(self) -> str:
        what = getattr(self.type, "__name__", None) or repr(self.type) if self.type else "dict"
        return f"<Schema of {what}>"
