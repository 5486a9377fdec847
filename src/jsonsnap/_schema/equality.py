"""JSON's types as bits, and JSON Schema's equality: what ``type``, ``enum``, ``const`` and
``uniqueItems`` compare values with.

A value's kind is one bit (:func:`kind_of`); a shape allows a set of them. Equality is JSON's
(:func:`json_equal`): ``1`` equals ``1.0``, ``true`` does not equal ``1``, and objects are equal
whatever the order of their keys. :func:`canonical` makes a hashable key equal for JSON-equal
values. Both work without recursion, at any depth. (A value found in a document is shown in a
violation's message by ``jsonsnap._jsontext.describe(value, as_json=True)``.)
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from decimal import Decimal
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
    "TYPE_BITS",
    "canonical",
    "integral",
    "json_equal",
    "kind_of",
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

TYPE_BITS: Final = {
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
    names = [name for name, bit in TYPE_BITS.items() if bits & bit == bit]
    if "number" in names:
        names.remove("integer")
    return " or ".join(names) or "nothing"


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
                values: list[Any] = list(item.values())
                values.reverse()
                todo.extend((x, False) for x in values)
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
