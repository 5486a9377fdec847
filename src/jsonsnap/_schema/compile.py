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
                                  (Python's syntax, searched, not anchored, in linear time:
                                  see ``_regex``)
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
name, a ``$ref`` that leads nowhere, a pattern that does not compile, a keyword value of the
wrong type or out of range) is a :class:`SchemaDefinitionError`.

Limits
======

A schema is input: compiling walks it with a work list (any depth), and a value's checks are
expanded once, when compiled (:meth:`Shape.expansion`: ``allOf``/``$ref`` met again for the
same value are checked once, each ``anyOf``/``oneOf`` alternative is a branch), within
:data:`MAX_EXPANSION` steps plus a few per subschema; a schema that needs more is refused, so
that the work per character of a document is bounded by the schema's size. Numbers are decided
on the digits written (``Decimal("1e999999999")`` is not expanded).

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

from .regex import Pattern, PatternRefused, compile_pattern

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
    """Whether a number has no fraction (``2.0``: an integer to JSON Schema), decided without
    writing it out (``Decimal("1e999999999")`` is one at once)."""
    if isinstance(value, int):
        return True
    if isinstance(value, float):
        return value.is_integer()
    if isinstance(value, Decimal):
        return value.is_finite() and value == value.to_integral_value()
    try:
        return bool(value == math.floor(value))
    except (OverflowError, ValueError, TypeError, ArithmeticError):  # inf, nan
        return False


def describe(value: Any, limit: int = 60) -> str:
    """A short text for a value found in a document."""
    if isinstance(value, str):
        text = repr(value)
    elif value is None or isinstance(value, bool):
        text = {None: "null", True: "true", False: "false"}[value]
    elif isinstance(value, (dict, list, tuple)):
        return f"an {_kind_name(value)}" if isinstance(value, dict) else "an array"
    elif isinstance(value, int) and value.bit_length() > 10_000:
        text = f"an integer of {value.bit_length()} bits"  # (too long to write in decimal)
    elif isinstance(value, (set, frozenset)):
        return f"a {type(value).__name__}"
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
    """A hashable key equal for values that are JSON-equal (for ``uniqueItems`` and
    ``enum``), made without recursion, and flat, so that hashing and comparing it do not
    recurse either (a nested tuple is hashed by recursion in C).

    Without ``ids``, the value as a tuple of tokens (:func:`_flat`). With ``ids``, each
    container's key is a number, the same for equal containers (``ids`` numbers them), made
    of its elements' keys: hashing it costs the container's length, not its size. ``known``
    holds the keys of containers already done (by ``id``, with the container), so that
    nested ones are not walked again."""
    if ids is None:
        return _flat(value)
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
            out.append(ids.setdefault(("a", parts), len(ids)))
        elif kind == OBJECT:
            if not done:
                todo.append((item, True))
                todo.extend((x, False) for x in reversed(list(item.values())))
                continue
            n = len(item)
            parts = tuple(out[len(out) - n :]) if n else ()
            del out[len(out) - n :]
            members = ("o", frozenset(zip(item.keys(), parts, strict=True)))
            out.append(ids.setdefault(members, len(ids)))
        elif kind in (INTEGER, NUMBER):
            out.append(("n", item))
        else:
            out.append((kind, item))
    return out[0]


def _flat(value: Any) -> Any:
    """:func:`canonical` without ``ids``: a tuple of tokens (so that hashing and comparing it
    do not recurse either), the value in prefix order, numbers tagged apart from booleans, an
    object's members in the order of their keys."""
    out: list[Any] = []
    todo = [value]
    while todo:
        item = todo.pop()
        kind = kind_of(item)
        if kind == ARRAY:
            out.append(("a", len(item)))
            todo.extend(reversed(item))
        elif kind == OBJECT:
            out.append(("o", len(item)))
            for key in sorted(item, reverse=True):
                todo.append(item[key])
                todo.append(_Key(key))
        elif kind == 0 and type(item) is _Key:
            out.append(("k", item.key))
        elif kind in (INTEGER, NUMBER):
            out.append(("n", item))
        else:
            out.append((kind, item))
    return tuple(out)


class _Key:
    """An object's key among the values :func:`canonical` has yet to write."""

    __slots__ = ("key",)

    def __init__(self, key: str) -> None:
        self.key = key


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
        "place",
        "plain",
        "plan",
        "prefix",
        "props",
        "required",
        "scalar",
        "simple",
        "strings",
        "types",
        "unique",
        "up",
        "xmax",
        "xmin",
    )

    def __init__(self, place: str, up: Shape | None = None) -> None:
        # Where it is in the schema document: its JSON Pointer is ``up``'s and then ``place``
        # (kept apart, so that a deep schema's pointers cost one part each, not their depth).
        self.place = place
        self.up = up
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
        self.pattern: Pattern | None = None
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
        self.patterns: tuple[tuple[Pattern, Shape], ...] = ()
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
        # The checks of a value this shape is given to, expanded (see expansion()).
        self.plan: tuple[tuple[int, Shape, str, int], ...] | None = None

    def __repr__(self) -> str:
        return f"<Shape {self.pointer or '#'}>"

    @property
    def pointer(self) -> str:
        """Where the shape is in the schema document, as a JSON Pointer (``""``: the root)."""
        if self.up is None:
            return self.place
        parts = []
        shape: Shape | None = self
        while shape is not None:
            parts.append(shape.place)
            shape = shape.up
        pointer = "".join(reversed(parts))
        self.place, self.up = pointer, None  # found once
        return pointer

    def expansion(self) -> tuple[tuple[int, Shape, str, int], ...]:
        """The checks of a value this shape is given to: its own and those of ``allOf`` and
        ``$ref``, each once, and ``anyOf``/``oneOf`` as groups of branches, as steps
        ``(owner, shape, keyword, branches)``. Owner 0 is the value's own owner; a group
        (``keyword`` ``"anyOf"``/``"oneOf"``, of ``shape``) of ``owner`` makes ``branches``
        new owners, numbered on; a step with keyword ``""`` is ``shape``'s checks, for
        ``owner``. Found once (see :func:`_expand`)."""
        plan = self.plan
        if plan is None:
            if self.simple:
                plan = ((0, self, "", 0),) if self.own else ()
            else:  # (compiled with the schema: only a shape given to no value comes here)
                plan = _expand(self, MAX_EXPANSION)
            self.plan = plan
        return plan

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
    except (TypeError, ArithmeticError):  # a NaN Decimal, a number of the user's: unordered
        return "type", "a comparable number"
    return None


def _is_multiple(value: Any, step: Any) -> bool:
    """Whether ``value`` is a multiple of ``step``, exactly, on the numbers as written in
    decimal (``0.3`` is a multiple of ``0.1``; ``1e29`` is not one of ``3``), at any size, in
    time that grows with the digits written, not with the exponent."""
    if isinstance(value, int) and isinstance(step, int):
        return value % step == 0
    a, b = _scaled(value), _scaled(step)
    if a is None or b is None:
        try:  # a number of the user's parse_float
            return Fraction(str(value)) % Fraction(str(step)) == 0
        except (ValueError, TypeError, ArithmeticError):
            return False
    (m, e), (n, f) = a, b  # value = m * 10**e, step = n * 10**f (n > 0)
    if m == 0:
        return True
    shift = e - f  # value / step = (m / n) * 10**shift
    if shift >= 0:
        return (m % n) * pow(10, shift, n) % n == 0
    if -shift > abs(m).bit_length():  # |m| < 10**-shift: a fraction of n, not a multiple
        return False
    scale: int = 10**-shift
    return m % (n * scale) == 0


def _scaled(number: Any) -> tuple[int, int] | None:
    """A finite number as ``(m, e)``: ``m * 10**e`` (a float as its shortest repr says);
    ``None`` for any other."""
    if isinstance(number, int):
        return number, 0
    if isinstance(number, float):
        if not math.isfinite(number):
            return None
        number = Decimal(repr(number))
    elif not isinstance(number, Decimal) or not number.is_finite():
        return None
    sign, digits, exponent = number.as_tuple()
    assert isinstance(exponent, int)  # (finite)
    m = int(Decimal((sign, digits, 0)))
    return m, exponent


#: The work (steps) the expansion of one value's checks may take beyond what its schema
#: explains (see :meth:`Shape.expansion`); a schema needing more is refused.
MAX_EXPANSION: Final = 10_000
#: The work per subschema of the document the expansion of one value may take too (a schema
#: without ``$ref`` never needs more than this).
_EXPANSION_PER_SHAPE: Final = 8
_NUMBER_KEYWORDS: Final = {
    "minimum": "minimum",
    "maximum": "maximum",
    "exclusiveMinimum": "xmin",
    "exclusiveMaximum": "xmax",
    "multipleOf": "multiple",
}
_COUNTS: Final = {
    "minLength": "min_len",
    "maxLength": "max_len",
    "minItems": "min_items",
    "maxItems": "max_items",
    "minProperties": "min_props",
    "maxProperties": "max_props",
}
_ALTERNATIVES: Final = {"allOf": "all_of", "anyOf": "any_of", "oneOf": "one_of"}
_POINTER_INDEX: Final = re.compile(r"0|[1-9][0-9]*")


class _Compiler:
    """Compiles one schema document, without recursion: each node once (``$ref`` cycles
    included), each value's checks expanded once (:meth:`Shape.expansion`), within a limit."""

    def __init__(self, root: Any) -> None:
        self.root = root
        self.nodes: dict[int, Shape] = {}  # the shape of each object node, by id
        self.shapes: list[Shape] = []
        self.todo: list[tuple[Shape, Any]] = []  # shapes made, their keywords not yet read
        self.fresh: list[tuple[Shape, Any]] = []  # (those of the node being read)
        self.values: list[Shape] = []  # the shapes given to whole values (items, properties)
        self.unchecked: list[tuple[Shape, str]] = []  # keywords not checked, where they are

    def run(self) -> Shape:
        root = self._sub(self.root, "", None)
        self.todo.extend(reversed(self.fresh))
        while self.todo:  # depth first, in document order (for the order of `unchecked`)
            shape, node = self.todo.pop()
            self.fresh = []
            self.read(shape, node)
            self.todo.extend(reversed(self.fresh))
        for shape in self.shapes:
            _finish(shape)
        limit = MAX_EXPANSION + _EXPANSION_PER_SHAPE * len(self.shapes)
        work = 0
        for shape in (root, *self.values):
            if shape.plan is None and not shape.simple:  # (a simple one is its own checks)
                shape.plan = _expand(shape, limit)
                work += len(shape.plan)
                if work > 16 * limit:
                    raise SchemaDefinitionError(
                        f"the checks of this schema's values expand to more than {16 * limit} "
                        "steps together (allOf, anyOf, oneOf and $ref repeat each other's "
                        "subschemas there)"
                    )
        return root

    def _sub(self, node: Any, place: str, up: Shape | None) -> Shape:
        """The shape of a subschema (made now, its keywords read later)."""
        if isinstance(node, dict):
            shape = self.nodes.get(id(node))
            if shape is not None:
                return shape
        elif not isinstance(node, bool):
            where = (up.pointer if up is not None else "") + place or "the root"
            raise SchemaDefinitionError(
                f"a schema is an object or a boolean, not {describe(node)} (at {where})"
            )
        shape = Shape(place, up)
        self.shapes.append(shape)
        if isinstance(node, dict):
            self.nodes[id(node)] = shape
        self.fresh.append((shape, node))
        return shape

    def _value(self, node: Any, place: str, up: Shape) -> Shape:
        """The shape of a subschema given to a whole value (an element, a member's value)."""
        shape = self._sub(node, place, up)
        self.values.append(shape)
        return shape

    def _ref(self, ref: Any, here: _At) -> Shape:
        if not isinstance(ref, str) or not ref.startswith("#"):
            raise SchemaDefinitionError(
                f"only local $ref ('#...') is read, not {describe(ref)} (at {here})"
            )
        pointer = ref[1:]
        node = self._resolve(pointer, ref)
        shape = self.nodes.get(id(node)) if isinstance(node, dict) else None
        return shape or self._sub(node, pointer, None)

    def _resolve(self, pointer: str, ref: str) -> Any:
        node = self.root
        if not pointer:
            return node
        if not pointer.startswith("/"):
            raise SchemaDefinitionError(
                f"$ref {describe(ref)} leads nowhere (a JSON Pointer after '#' begins with '/')"
            )
        for raw in pointer[1:].split("/"):
            part = _unquote(raw).replace("~1", "/").replace("~0", "~")
            if isinstance(node, dict) and part in node:
                node = node[part]
            elif (
                isinstance(node, list)
                and _POINTER_INDEX.fullmatch(part)
                and len(part) <= len(str(len(node)))
                and int(part) < len(node)
            ):
                node = node[int(part)]
            else:
                raise SchemaDefinitionError(f"$ref {describe(ref)} leads nowhere")
        return node

    def read(self, shape: Shape, node: Any) -> None:
        """Read the keywords of ``node`` into ``shape``."""
        if node is True:
            return
        if node is False:
            shape.never = True
            return
        for keyword, value in node.items():
            if keyword in ANNOTATIONS:
                continue
            if keyword not in CHECKED:
                self.unchecked.append((shape, str(keyword)))
                continue
            self._keyword(shape, keyword, value, _At(shape, keyword))
        if node.get("nullable") is True and "type" in node:
            shape.types |= NULL

    def _keyword(self, shape: Shape, keyword: str, value: Any, here: _At) -> None:
        place = "/" + _escape(keyword)
        if keyword == "type":
            names = value if isinstance(value, list) else [value]
            bits = 0
            for name in names:
                if not isinstance(name, str) or name not in _TYPE_BITS:
                    raise SchemaDefinitionError(f"unknown type {describe(name)} at {here}")
                bits |= _TYPE_BITS[name]
            shape.types &= bits
        elif keyword in ("enum", "const"):
            if keyword == "enum" and not isinstance(value, list):
                raise SchemaDefinitionError(f"enum is a list, at {here}")
            values = tuple(value) if keyword == "enum" else (value,)
            _json_values(values, here)
            if shape.enum is not None:  # both: the values in both
                values = tuple(v for v in values if any(json_equal(v, w) for w in shape.enum))
            shape.enum = values
            shape.enum_kw = keyword if shape.enum_kw != "const" else "const"
            shape.strings = tuple(sorted({v for v in values if isinstance(v, str)}))
        elif keyword in _ALTERNATIVES:
            if not isinstance(value, list) or not value:
                raise SchemaDefinitionError(f"{keyword} is a non-empty list, at {here}")
            subs = tuple(self._sub(v, f"{place}/{i}", shape) for i, v in enumerate(value))
            attr = _ALTERNATIVES[keyword]
            setattr(shape, attr, (*getattr(shape, attr), *subs))
        elif keyword == "$ref":
            shape.all_of = (*shape.all_of, self._ref(value, here))
        elif keyword == "nullable":
            if not isinstance(value, bool):
                raise SchemaDefinitionError(f"nullable is true or false, at {here}")
        elif keyword in _COUNTS:
            setattr(shape, _COUNTS[keyword], _count(value, here))
        elif keyword == "pattern":
            shape.pattern = _pattern(value, here)
        elif keyword in _NUMBER_KEYWORDS:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise SchemaDefinitionError(f"{keyword} is a number, at {here}")
            if isinstance(value, float) and not math.isfinite(value):
                raise SchemaDefinitionError(f"{keyword} is a finite number, at {here}")
            _writable(value, keyword, here)
            if keyword == "multipleOf" and value <= 0:
                raise SchemaDefinitionError(f"multipleOf is above 0, at {here}")
            setattr(shape, _NUMBER_KEYWORDS[keyword], value)
        elif keyword == "uniqueItems":
            if not isinstance(value, bool):
                raise SchemaDefinitionError(f"uniqueItems is true or false, at {here}")
            shape.unique = value
        elif keyword == "items":
            shape.items = self._value(value, place, shape)
        elif keyword == "prefixItems":
            if not isinstance(value, list):
                raise SchemaDefinitionError(f"prefixItems is a list, at {here}")
            shape.prefix = tuple(self._value(v, f"{place}/{i}", shape) for i, v in enumerate(value))
        elif keyword == "properties":
            shape.props = {
                k: self._value(v, f"{place}/{_escape(k)}", shape) for k, v in _obj(value, here)
            }
        elif keyword == "patternProperties":
            shape.patterns = tuple(
                (_pattern(k, here), self._value(v, f"{place}/{_escape(k)}", shape))
                for k, v in _obj(value, here)
            )
        elif keyword == "required":
            if not isinstance(value, list) or not all(isinstance(k, str) for k in value):
                raise SchemaDefinitionError(f"required is a list of strings, at {here}")
            shape.required = tuple(dict.fromkeys(value))
        elif keyword == "additionalProperties":
            shape.additional = self._value(value, place, shape)


def _expand(shape: Shape, limit: int) -> tuple[tuple[int, Shape, str, int], ...]:
    """The steps of :meth:`Shape.expansion`, found without recursion, in the order a
    recursive walk takes (a shape's own checks, its ``allOf`` and ``$ref``, then its
    ``anyOf`` and its ``oneOf``), in at most ``limit`` steps of work.

    A shape met again for the same owner is its checks again: left out (so ``allOf`` that
    doubles through ``$ref`` costs each subschema once). A shape met inside a branch of its
    own group (a loop of ``$ref`` on one value, which reads nothing) is left out there."""
    hops: dict[int, Shape] = {}
    while not shape.own and not shape.any_of and not shape.one_of and len(shape.all_of) == 1:
        if id(shape) in hops:  # a loop of bare $ref: nothing to check
            return ()
        hops[id(shape)] = shape  # a bare $ref: its target's checks
        shape = shape.all_of[0]
        if shape.plan is not None:
            return shape.plan
    steps: list[tuple[int, Shape, str, int]] = []
    # The shapes expanded for each owner, as ``owner << 64 | id(shape)``: an int, which the
    # garbage collector does not track (a set of tuples of this size made its full
    # collections cost more than the walk).
    seen: set[int] = set()
    owners = 1
    grouping: set[int] = set()  # the shapes whose groups hold the branch being expanded
    todo: list[tuple[str, Shape, int]] = [("", shape, 0)]  # ("": expand; "/": a group ends)
    work = 0
    while todo:
        work += 1
        if work > limit:
            raise SchemaDefinitionError(
                f"the checks of one value at {shape.pointer or 'the root'} expand to more "
                f"than {limit} steps (allOf, anyOf, oneOf and $ref repeat each other's "
                "subschemas there)"
            )
        action, sub, owner = todo.pop()
        if action == "/":
            grouping.discard(id(sub))
        elif action:  # "anyOf" or "oneOf": the group, then each branch
            alternatives = sub.any_of if action == "anyOf" else sub.one_of
            first = owners
            owners += len(alternatives)
            steps.append((owner, sub, action, len(alternatives)))
            grouping.add(id(sub))
            todo.append(("/", sub, owner))
            todo.extend(("", alt, first + i) for i, alt in reversed(list(enumerate(alternatives))))
        elif (key := owner << 64 | id(sub)) not in seen and id(sub) not in grouping:
            seen.add(key)
            if sub.own:
                steps.append((owner, sub, "", 0))
            if sub.one_of:
                todo.append(("oneOf", sub, owner))
            if sub.any_of:
                todo.append(("anyOf", sub, owner))
            todo.extend(("", s, owner) for s in reversed(sub.all_of))
    plan = tuple(steps)
    for hop in hops.values():
        hop.plan = plan
    return plan


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


class _At:
    """Where a keyword is in the schema, for an error: its JSON Pointer is written only when
    an error says it (a pointer costs its depth)."""

    __slots__ = ("keyword", "shape")

    def __init__(self, shape: Shape, keyword: str) -> None:
        self.shape = shape
        self.keyword = keyword

    def __str__(self) -> str:
        return f"{self.shape.pointer}/{_escape(self.keyword)}"


def _count(value: Any, here: _At) -> int:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise SchemaDefinitionError(
            f"expected a count (an integer >= 0) at {here}, not {describe(value)}"
        )
    _writable(value, here.keyword, here)
    return value


def _writable(value: Any, keyword: str, here: _At) -> None:
    """Refuse an integer too long to be written in decimal (an error message says it)."""
    if isinstance(value, int) and value.bit_length() > 10_000:
        try:
            str(value)
        except ValueError:
            raise SchemaDefinitionError(
                f"{keyword} at {here} has more digits than Python writes "
                "(sys.get_int_max_str_digits())"
            ) from None


def _json_values(values: tuple[Any, ...], here: _At) -> None:
    """Refuse enum/const values that are not JSON values (checked without recursion)."""
    todo = list(values)
    while todo:
        value = todo.pop()
        if value is None or isinstance(value, (bool, float, str, Decimal)):
            continue
        if isinstance(value, int):
            _writable(value, here.keyword, here)
        elif isinstance(value, (list, tuple)):
            todo.extend(value)
        elif isinstance(value, dict) and all(isinstance(k, str) for k in value):
            todo.extend(value.values())
        else:
            raise SchemaDefinitionError(
                f"{here.keyword} holds JSON values, not {describe(value)} (at {here})"
            )


def _pattern(value: Any, here: _At) -> Pattern:
    if not isinstance(value, str):
        raise SchemaDefinitionError(f"a pattern is a string, at {here}")
    try:
        return compile_pattern(value)
    except (re.error, OverflowError, RecursionError) as exc:
        raise SchemaDefinitionError(
            f"pattern {describe(value)} at {here} does not compile: {exc}"
        ) from None
    except PatternRefused as exc:
        raise SchemaDefinitionError(
            f"pattern {describe(value)} at {here} is refused: {exc} (see 'Schema limits')"
        ) from None


def _obj(value: Any, here: _At) -> list[tuple[str, Any]]:
    if not isinstance(value, dict):
        raise SchemaDefinitionError(f"expected an object at {here}")
    for key in value:
        if not isinstance(key, str):
            raise SchemaDefinitionError(f"the keys at {here} are strings, not {describe(key)}")
    return list(value.items())


def _escape(key: str) -> str:
    """A key as a JSON Pointer part."""
    return key.replace("~", "~0").replace("/", "~1")


def _unquote(part: str) -> str:
    if "%" not in part:
        return part
    from urllib.parse import unquote

    return unquote(part)


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
                f"a schema is an object or a boolean, not {describe(source)}"
            )
        if isinstance(source, (dict, bool)):
            self.type = None
            document: Any = source
        else:
            from .from_types import schema_of

            self.type = source
            document = schema_of(source)
        self.json = document
        compiler = _Compiler(document)
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
