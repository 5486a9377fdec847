"""The compiler: a JSON Schema (draft 2020-12) document read into :class:`~.shape.Shape`
values, each keyword by its own handler (:data:`KEYWORDS`, a table of ``keyword: handler``).

Compiling turns each subschema into one shape: the keywords it checks, as plain attributes,
and its subschemas as shapes. A ``$ref`` (local: ``#`` and JSON Pointers into the document, so
``$defs`` and ``definitions``, recursive too) is compiled once and shared; it is checked as one
more member of ``allOf``, as draft 2020-12 says. :class:`~.schema.Schema` is what users hold.

Checked keywords
================

================================  ==========================================================
any value                         ``type`` (a name or a list), ``enum``, ``const``,
                                  ``allOf``, ``anyOf``, ``oneOf``, ``$ref``, ``nullable``
                                  (with ``type``: ``null`` allowed too)
strings                           ``minLength``, ``maxLength`` (in code points), ``pattern``
                                  (Python's syntax, searched, not anchored, in linear time:
                                  see ``regex``)
numbers                           ``minimum``, ``maximum``, ``exclusiveMinimum``,
                                  ``exclusiveMaximum``, ``multipleOf``
arrays                            ``items``, ``prefixItems``, ``minItems``, ``maxItems``,
                                  ``uniqueItems``
objects                           ``properties``, ``required``, ``additionalProperties``,
                                  ``patternProperties``, ``minProperties``, ``maxProperties``
================================  ==========================================================

Annotations (``title``, ``description``, ``default``, ``examples``, ``$comment``...) are read
and ignored, as the draft says. Any other keyword is *not checked*: the compiler lists where
each is (``unchecked``), and the schema warns or refuses as it is told. A schema that is itself
wrong (an unknown type name, a ``$ref`` that leads nowhere, a pattern that does not compile, a
keyword value of the wrong type or out of range) is a :class:`~jsonsnap.SchemaDefinitionError`.

Limits
======

A schema is input: compiling walks it with a work list (any depth), and a value's checks are
expanded once, when compiled (:meth:`~.shape.Shape.expansion`), within
:data:`~.shape.MAX_EXPANSION` steps plus a few per subschema; a schema that needs more is
refused, so that the work per character of a document is bounded by the schema's size.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any, Final

from .._errors import SchemaDefinitionError
from .._jsontext import describe
from .equality import NULL, TYPE_BITS, json_equal
from .regex import Pattern, PatternRefused, compile_pattern
from .shape import EXPANSION_PER_SHAPE, MAX_EXPANSION, Shape, derive, expand

__all__ = ["ANNOTATIONS", "CHECKED", "KEYWORDS", "Compiler"]

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


class Compiler:
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
        root = self.sub(self.root, "", None)
        self.todo.extend(reversed(self.fresh))
        while self.todo:  # depth first, in document order (for the order of `unchecked`)
            shape, node = self.todo.pop()
            self.fresh = []
            self.read(shape, node)
            self.todo.extend(reversed(self.fresh))
        for shape in self.shapes:
            derive(shape)
        limit = MAX_EXPANSION + EXPANSION_PER_SHAPE * len(self.shapes)
        work = 0
        for shape in (root, *self.values):
            if shape.plan is None and not shape.simple:  # (a simple one is its own checks)
                shape.plan = expand(shape, limit)
                work += len(shape.plan)
                if work > 16 * limit:
                    raise SchemaDefinitionError(
                        f"the checks of this schema's values expand to more than {16 * limit} "
                        "steps together (allOf, anyOf, oneOf and $ref repeat each other's "
                        "subschemas there)"
                    )
        return root

    def sub(self, node: Any, place: str, up: Shape | None) -> Shape:
        """The shape of a subschema (made now, its keywords read later)."""
        if isinstance(node, dict):
            shape = self.nodes.get(id(node))
            if shape is not None:
                return shape
        elif not isinstance(node, bool):
            where = (up.pointer if up is not None else "") + place or "the root"
            found = describe(node, as_json=True)
            raise SchemaDefinitionError(
                f"a schema is an object or a boolean, not {found} (at {where})"
            )
        shape = Shape(place, up)
        self.shapes.append(shape)
        if isinstance(node, dict):
            self.nodes[id(node)] = shape
        self.fresh.append((shape, node))
        return shape

    def value(self, node: Any, place: str, up: Shape) -> Shape:
        """The shape of a subschema given to a whole value (an element, a member's value)."""
        shape = self.sub(node, place, up)
        self.values.append(shape)
        return shape

    def ref(self, ref: Any, here: _At) -> Shape:
        if not isinstance(ref, str) or not ref.startswith("#"):
            raise SchemaDefinitionError(
                f"only local $ref ('#...') is read, not {describe(ref, as_json=True)} (at {here})"
            )
        pointer = ref[1:]
        node = self._resolve(pointer, ref)
        shape = self.nodes.get(id(node)) if isinstance(node, dict) else None
        return shape or self.sub(node, pointer, None)

    def _resolve(self, pointer: str, ref: str) -> Any:
        node = self.root
        if not pointer:
            return node
        if not pointer.startswith("/"):
            shown = describe(ref, as_json=True)
            raise SchemaDefinitionError(
                f"$ref {shown} leads nowhere (a JSON Pointer after '#' begins with '/')"
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
                raise SchemaDefinitionError(f"$ref {describe(ref, as_json=True)} leads nowhere")
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
            handler = KEYWORDS.get(keyword)
            if handler is None:
                self.unchecked.append((shape, str(keyword)))
                continue
            handler(self, shape, value, _At(shape, keyword))
        if node.get("nullable") is True and "type" in node:
            shape.types |= NULL


class _At:
    """Where a keyword is in the schema, for an error: its JSON Pointer is written only when
    an error says it (a pointer costs its depth)."""

    __slots__ = ("keyword", "shape")

    def __init__(self, shape: Shape, keyword: str) -> None:
        self.shape = shape
        self.keyword = keyword

    def __str__(self) -> str:
        return f"{self.shape.pointer}/{_escape(self.keyword)}"

    @property
    def place(self) -> str:
        """The keyword's part of the JSON Pointer of a subschema under it."""
        return "/" + _escape(self.keyword)


# The handlers: each reads one keyword's value into the shape (``here`` says which keyword,
# and where, for an error).


def _type(c: Compiler, shape: Shape, value: Any, here: _At) -> None:
    names = value if isinstance(value, list) else [value]
    bits = 0
    for name in names:
        if not isinstance(name, str) or name not in TYPE_BITS:
            raise SchemaDefinitionError(f"unknown type {describe(name, as_json=True)} at {here}")
        bits |= TYPE_BITS[name]
    shape.types &= bits


def _enum(c: Compiler, shape: Shape, value: Any, here: _At) -> None:
    """``enum`` and ``const`` (both: the values in both)."""
    keyword = here.keyword
    if keyword == "enum" and not isinstance(value, list):
        raise SchemaDefinitionError(f"enum is a list, at {here}")
    values = tuple(value) if keyword == "enum" else (value,)
    _json_values(values, here)
    if shape.enum is not None:
        values = tuple(v for v in values if any(json_equal(v, w) for w in shape.enum))
    shape.enum = values
    shape.enum_kw = keyword if shape.enum_kw != "const" else "const"
    shape.strings = tuple(sorted({v for v in values if isinstance(v, str)}))


def _alternatives(c: Compiler, shape: Shape, value: Any, here: _At) -> None:
    """``allOf``, ``anyOf`` and ``oneOf``."""
    if not isinstance(value, list) or not value:
        raise SchemaDefinitionError(f"{here.keyword} is a non-empty list, at {here}")
    subs = tuple(c.sub(v, f"{here.place}/{i}", shape) for i, v in enumerate(value))
    attr = _ALTERNATIVES[here.keyword]
    setattr(shape, attr, (*getattr(shape, attr), *subs))


def _ref(c: Compiler, shape: Shape, value: Any, here: _At) -> None:
    shape.all_of = (*shape.all_of, c.ref(value, here))


def _nullable(c: Compiler, shape: Shape, value: Any, here: _At) -> None:
    """(What it allows is read with ``type``, in :meth:`Compiler.read`.)"""
    if not isinstance(value, bool):
        raise SchemaDefinitionError(f"nullable is true or false, at {here}")


def _count_keyword(c: Compiler, shape: Shape, value: Any, here: _At) -> None:
    """``minLength``, ``maxItems``, ``minProperties``... (:data:`_COUNTS`)."""
    setattr(shape, _COUNTS[here.keyword], _count(value, here))


def _pattern_keyword(c: Compiler, shape: Shape, value: Any, here: _At) -> None:
    shape.pattern = _pattern(value, here)


def _number_keyword(c: Compiler, shape: Shape, value: Any, here: _At) -> None:
    """``minimum``, ``multipleOf``... (:data:`_NUMBER_KEYWORDS`)."""
    keyword = here.keyword
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SchemaDefinitionError(f"{keyword} is a number, at {here}")
    if isinstance(value, float) and not math.isfinite(value):
        raise SchemaDefinitionError(f"{keyword} is a finite number, at {here}")
    _writable(value, keyword, here)
    if keyword == "multipleOf" and value <= 0:
        raise SchemaDefinitionError(f"multipleOf is above 0, at {here}")
    setattr(shape, _NUMBER_KEYWORDS[keyword], value)


def _unique(c: Compiler, shape: Shape, value: Any, here: _At) -> None:
    if not isinstance(value, bool):
        raise SchemaDefinitionError(f"uniqueItems is true or false, at {here}")
    shape.unique = value


def _items(c: Compiler, shape: Shape, value: Any, here: _At) -> None:
    shape.items = c.value(value, here.place, shape)


def _prefix(c: Compiler, shape: Shape, value: Any, here: _At) -> None:
    if not isinstance(value, list):
        raise SchemaDefinitionError(f"prefixItems is a list, at {here}")
    shape.prefix = tuple(c.value(v, f"{here.place}/{i}", shape) for i, v in enumerate(value))


def _properties(c: Compiler, shape: Shape, value: Any, here: _At) -> None:
    place = here.place
    shape.props = {k: c.value(v, f"{place}/{_escape(k)}", shape) for k, v in _obj(value, here)}


def _pattern_properties(c: Compiler, shape: Shape, value: Any, here: _At) -> None:
    place = here.place
    shape.patterns = tuple(
        (_pattern(k, here), c.value(v, f"{place}/{_escape(k)}", shape))
        for k, v in _obj(value, here)
    )


def _required(c: Compiler, shape: Shape, value: Any, here: _At) -> None:
    if not isinstance(value, list) or not all(isinstance(k, str) for k in value):
        raise SchemaDefinitionError(f"required is a list of strings, at {here}")
    shape.required = tuple(dict.fromkeys(value))


def _additional(c: Compiler, shape: Shape, value: Any, here: _At) -> None:
    shape.additional = c.value(value, here.place, shape)


#: What reads each checked keyword.
KEYWORDS: Final[dict[str, Callable[[Compiler, Shape, Any, _At], None]]] = {
    "type": _type,
    "enum": _enum,
    "const": _enum,
    **dict.fromkeys(_ALTERNATIVES, _alternatives),
    "$ref": _ref,
    "nullable": _nullable,
    **dict.fromkeys(_COUNTS, _count_keyword),
    "pattern": _pattern_keyword,
    **dict.fromkeys(_NUMBER_KEYWORDS, _number_keyword),
    "items": _items,
    "prefixItems": _prefix,
    "uniqueItems": _unique,
    "properties": _properties,
    "required": _required,
    "additionalProperties": _additional,
    "patternProperties": _pattern_properties,
}
#: The keywords checked.
CHECKED: Final = frozenset(KEYWORDS)


def _count(value: Any, here: _At) -> int:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise SchemaDefinitionError(
            f"expected a count (an integer >= 0) at {here}, not {describe(value, as_json=True)}"
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
                f"{here.keyword} holds JSON values, not {describe(value, as_json=True)} (at {here})"
            )


def _pattern(value: Any, here: _At) -> Pattern:
    if not isinstance(value, str):
        raise SchemaDefinitionError(f"a pattern is a string, at {here}")
    try:
        return compile_pattern(value)
    except (re.error, OverflowError, RecursionError) as exc:
        raise SchemaDefinitionError(
            f"pattern {describe(value, as_json=True)} at {here} does not compile: {exc}"
        ) from None
    except PatternRefused as exc:
        shown = describe(value, as_json=True)
        raise SchemaDefinitionError(
            f"pattern {shown} at {here} is refused: {exc} (see 'Schema limits')"
        ) from None


def _obj(value: Any, here: _At) -> list[tuple[str, Any]]:
    if not isinstance(value, dict):
        raise SchemaDefinitionError(f"expected an object at {here}")
    for key in value:
        if not isinstance(key, str):
            raise SchemaDefinitionError(
                f"the keys at {here} are strings, not {describe(key, as_json=True)}"
            )
    return list(value.items())


def _escape(key: str) -> str:
    """A key as a JSON Pointer part."""
    return key.replace("~", "~0").replace("/", "~1")


def _unquote(part: str) -> str:
    if "%" not in part:
        return part
    from urllib.parse import unquote

    return unquote(part)
