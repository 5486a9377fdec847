"""Generated schemas, and documents drawn partly from them, written as JSON text.

The schemas are drawn from the keywords jsonsnap checks, with values chosen where two validators
must agree (patterns from a small set, ``multipleOf`` only of integers and powers of two). The
documents are drawn partly *from* the schema (:func:`near`: an enum member, a string of an
allowed length, an object with its required keys...), with some noise, and written with random
whitespace and escapes (:func:`string_text`); :func:`cases` gives a schema and such a text.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

from hypothesis import strategies as st

# --------------------------------------------------------------------------- the vocabulary

#: Object keys: some match the patterns below, some do not.
KEYS: Final = ("a", "b", "ab", "c1", "ba", "d")
#: Patterns both validators read alike (``re.search`` in both).
PATTERNS: Final = ("^a", "b$", "[0-9]", "^[ab]*$", "é")
#: Characters of generated strings (two outside the BMP: counted as one code point each).
ALPHABET: Final = "ab1é😀 "
#: multipleOf values: floats divide exactly by powers of two, and integers leave exact remainders,
#: so both validators (jsonschema divides floats, jsonsnap uses Decimal) agree.
MULTIPLES: Final = (0.5, 0.25, 1, 2, 3, 5)
TYPE_NAMES: Final = ("null", "boolean", "integer", "number", "string", "array", "object")
#: The ``$defs`` every generated schema may hold, and the references to them.
REF_LEAF: Final = "#/$defs/leaf"
REF_NODE: Final = "#/$defs/node"

small_ints = st.integers(-4, 6)
halves = st.integers(-8, 12).map(lambda n: n / 2)
bounds = small_ints | halves
short_text = st.text(ALPHABET, max_size=4)
scalars = (
    st.none()
    | st.booleans()
    | small_ints
    | halves
    | st.floats(-1e6, 1e6, allow_nan=False)
    | short_text
    | st.sampled_from(KEYS)
)
#: Any JSON value, small: enum/const values and the noise in documents.
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(KEYS), inner, max_size=3)
    ),
    max_leaves=6,
)

# --------------------------------------------------------------------------- schemas

types = st.sampled_from(TYPE_NAMES) | st.lists(
    st.sampled_from(TYPE_NAMES), min_size=1, max_size=3, unique=True
)
counts = st.integers(0, 4)

any_keywords = st.fixed_dictionaries(
    {},
    optional={
        "type": types,
        "enum": st.lists(json_values, min_size=1, max_size=4),
        "const": json_values,
    },
)
string_keywords = st.fixed_dictionaries(
    {},
    optional={
        "type": st.just("string"),
        "minLength": counts,
        "maxLength": counts,
        "pattern": st.sampled_from(PATTERNS),
    },
)
number_keywords = st.fixed_dictionaries(
    {},
    optional={
        "type": st.sampled_from(("integer", "number")),
        "minimum": bounds,
        "maximum": bounds,
        "exclusiveMinimum": bounds,
        "exclusiveMaximum": bounds,
        "multipleOf": st.sampled_from(MULTIPLES),
    },
)
leaf_schemas = (
    st.booleans()  # the schemas true and false
    | any_keywords
    | string_keywords
    | number_keywords
)


def _extend(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    objects = st.fixed_dictionaries(
        {},
        optional={
            "type": st.just("object"),
            "properties": st.dictionaries(st.sampled_from(KEYS), children, max_size=3),
            "required": st.lists(st.sampled_from(KEYS), max_size=3, unique=True),
            "additionalProperties": st.booleans() | children,
            "patternProperties": st.dictionaries(st.sampled_from(PATTERNS), children, max_size=2),
            "minProperties": counts,
            "maxProperties": counts,
        },
    )
    arrays = st.fixed_dictionaries(
        {},
        optional={
            "type": st.just("array"),
            "items": children,
            "prefixItems": st.lists(children, min_size=1, max_size=3),
            "minItems": counts,
            "maxItems": counts,
            "uniqueItems": st.booleans(),
        },
    )
    combined = st.fixed_dictionaries(
        {},
        optional={
            "allOf": st.lists(children, min_size=1, max_size=3),
            "anyOf": st.lists(children, min_size=1, max_size=3),
            "oneOf": st.lists(children, min_size=1, max_size=3),
        },
    )
    return objects | arrays | combined


def _trees(refs: bool) -> st.SearchStrategy[Any]:
    leaves = leaf_schemas
    if refs:
        leaves = leaves | st.sampled_from(({"$ref": REF_LEAF}, {"$ref": REF_NODE}))
    return st.recursive(leaves, _extend, max_leaves=6)


#: Schemas without and with references into the ``$defs`` of :func:`schemas` (built once: a
#: strategy built on every draw costs hypothesis a validation each time).
trees = _trees(refs=False)
trees_with_refs = _trees(refs=True) | st.just({"$ref": REF_NODE})

#: A tree node: an object with a value and children that are nodes again.
node_schemas = st.builds(
    lambda value, required, closed, width: {
        "type": "object",
        "properties": {
            "v": value,
            "kids": {"type": "array", "items": {"$ref": REF_NODE}, "maxItems": width},
        },
        "required": required,
        "additionalProperties": not closed,
    },
    trees,
    st.lists(st.sampled_from(("v", "kids")), max_size=2, unique=True),
    st.booleans(),
    st.integers(1, 3),
)


@st.composite
def schemas(draw: st.DrawFn) -> Any:
    """A schema; half of them with ``$defs`` (a leaf schema and a tree node) and ``$ref``."""
    if not draw(st.booleans()):
        return draw(trees)
    body = draw(trees_with_refs)
    defs = {"leaf": draw(trees), "node": draw(node_schemas)}
    if isinstance(body, bool):
        body = {"allOf": [body]}
    return {"$defs": defs, **body}


# --------------------------------------------------------------------------- documents


def _resolve(root: Any, ref: str) -> Any:
    node = root
    for part in ref[2:].split("/"):
        node = node[part]
    return node


NUMBER_KEYWORDS: Final = (
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
)


def _kind(schema: dict[str, Any]) -> str | None:
    """The type a document drawn for ``schema`` should have, from its keywords."""
    if any(k in schema for k in ("minLength", "maxLength", "pattern")):
        return "string"
    if any(k in schema for k in NUMBER_KEYWORDS):
        return "number"
    if any(k in schema for k in ("properties", "required", "patternProperties", "minProperties")):
        return "object"
    if any(k in schema for k in ("items", "prefixItems", "minItems", "uniqueItems")):
        return "array"
    return None


def _string(draw: st.DrawFn, s: dict[str, Any]) -> str:
    low = s.get("minLength", 0)
    high = max(low, s.get("maxLength", low + 3))
    text = draw(st.text(ALPHABET, min_size=low, max_size=high))
    pattern = s.get("pattern")
    if pattern == "^a":
        text = "a" + text[1:]
    elif pattern == "b$":
        text = text[:-1] + "b"
    elif pattern == "[0-9]":
        text = text[:-1] + "7"
    elif pattern == "^[ab]*$":
        text = draw(st.text("ab", min_size=low, max_size=high))
    elif pattern == "é":
        text = "é" + text[1:]
    return text


def _number(draw: st.DrawFn, s: dict[str, Any], integer: bool) -> Any:
    lows = [x for x in (s.get("minimum"), s.get("exclusiveMinimum")) if x is not None]
    highs = [x for x in (s.get("maximum"), s.get("exclusiveMaximum")) if x is not None]
    low = max(lows, default=-6)
    high = min(highs, default=8)
    if high < low:
        low, high = high, low
    step = s.get("multipleOf", 1 if integer else draw(st.sampled_from((1, 0.5, 0.25))))
    first, last = int(low // step), int(high // step) + 1
    value = draw(st.integers(first, last)) * step
    if integer or (isinstance(value, float) and value.is_integer() and draw(st.booleans())):
        return int(value) if isinstance(value, float) and value.is_integer() else value
    return float(value)


def _object(draw: st.DrawFn, s: dict[str, Any], root: Any, depth: int) -> dict[str, Any]:
    props = s.get("properties", {})
    keys = list(dict.fromkeys([*s.get("required", []), *draw(st.sets(st.sampled_from(KEYS)))]))
    if s.get("additionalProperties") is False and draw(st.integers(0, 3)):
        keys = [k for k in keys if k in props]
    high = s.get("maxProperties")
    if high is not None and draw(st.integers(0, 3)):
        keys = keys[:high]
    out: dict[str, Any] = {}
    for key in keys:
        sub: Any = props.get(key)
        if sub is None:
            matching = [v for p, v in s.get("patternProperties", {}).items() if _search(p, key)]
            sub = matching[0] if matching else s.get("additionalProperties", True)
        out[key] = near(draw, sub, root, depth + 1)
    return out


def _search(pattern: str, key: str) -> bool:
    return re.search(pattern, key) is not None


def _array(draw: st.DrawFn, s: dict[str, Any], root: Any, depth: int) -> list[Any]:
    prefix = s.get("prefixItems", [])
    low = s.get("minItems", 0)
    high = max(low, s.get("maxItems", low + 3))
    size = draw(st.integers(low, min(high, low + 4)))
    items = []
    for i in range(size):
        sub = prefix[i] if i < len(prefix) else s.get("items", True)
        items.append(near(draw, sub, root, depth + 1))
    if s.get("uniqueItems") and draw(st.integers(0, 3)):
        unique: list[Any] = []
        for item in items:
            if not any(_same(item, other) for other in unique):
                unique.append(item)
        items = unique
    return items


def _same(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def near(draw: st.DrawFn, schema: Any, root: Any, depth: int) -> Any:
    """A document that likely matches ``schema`` (sometimes noise instead)."""
    if depth > 4 or not isinstance(schema, dict) or draw(st.integers(0, 11)) == 0:
        return draw(json_values)
    s: dict[str, Any] = schema
    if "$ref" in s and draw(st.integers(0, 3)):
        return near(draw, _resolve(root, s["$ref"]), root, depth + 1)
    if "const" in s and draw(st.integers(0, 5)):
        return s["const"]
    if "enum" in s and draw(st.integers(0, 5)):
        return draw(st.sampled_from(s["enum"]))
    branches = [*s.get("allOf", ()), *s.get("anyOf", ()), *s.get("oneOf", ())]
    if branches and draw(st.integers(0, 3)) > 0:
        return near(draw, draw(st.sampled_from(branches)), root, depth + 1)
    named = s.get("type")
    allowed = [named] if isinstance(named, str) else named
    kind = _kind(s)
    if allowed is not None and (kind is None or kind not in allowed):
        kind = draw(st.sampled_from(allowed))
    if kind == "string":
        return _string(draw, s)
    if kind in ("number", "integer"):
        return _number(draw, s, integer=kind == "integer")
    if kind == "object":
        return _object(draw, s, root, depth)
    if kind == "array":
        return _array(draw, s, root, depth)
    if kind == "null":
        return None
    if kind == "boolean":
        return draw(st.booleans())
    return draw(json_values)


_SPACE = st.sampled_from(("", "", "", " ", "\n", " \t"))
_ESCAPES: Final = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "/": "\\/"}


def string_text(draw: st.DrawFn, value: str) -> str:
    """A string token for ``value``, with some characters as escapes (``\\u00e9``,
    ``\\ud83d\\ude00``, in either case)."""
    out = ['"']
    for char in value:
        if char in _ESCAPES and not draw(st.integers(0, 3)):
            out.append(_ESCAPES[char])
        elif char in _ESCAPES or char < " " or not draw(st.integers(0, 3)):
            units = char.encode("utf-16-be", "surrogatepass")
            hexes = [units[i : i + 2].hex() for i in range(0, len(units), 2)]
            upper = draw(st.booleans())
            out.extend("\\u" + (h.upper() if upper else h) for h in hexes)
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def _number_text(draw: st.DrawFn, value: int | float) -> str:
    """A spelling of ``value``: as json.dumps writes it, or another one of (about) the same
    number: ``2.0``, ``2e0``, ``20E-1``... (the verdicts are taken on what it decodes to)."""
    plain = json.dumps(value)
    if isinstance(value, bool) or not draw(st.integers(0, 2)):
        return plain
    if value == 0:
        return draw(st.sampled_from(("-0", "0.0", "-0.0", "0e0", "0E-2", "0.00e+1")))
    if isinstance(value, int):
        return draw(st.sampled_from((f"{value}.0", f"{value}e0", f"{value}0E-1", f"{value}E+00")))
    mantissa, _, exponent = plain.partition("e")
    power = int(exponent or 0)
    longer = f"{mantissa}0E{power:+d}" if "." in mantissa else f"{mantissa}0E{power - 1:+d}"
    return draw(st.sampled_from((f"{mantissa}e{power}", longer)))


def _render(draw: st.DrawFn, value: Any) -> str:
    """JSON text for ``value``, drawn with whitespace, escapes and number spellings."""
    if isinstance(value, str):
        return string_text(draw, value)
    if isinstance(value, (int, float)):
        return _number_text(draw, value)
    if isinstance(value, list):
        inner = ",".join(draw(_SPACE) + _render(draw, v) + draw(_SPACE) for v in value)
        return "[" + (inner or draw(_SPACE)) + "]"
    if isinstance(value, dict):
        inner = ",".join(
            draw(_SPACE)
            + string_text(draw, k)
            + draw(_SPACE)
            + ":"
            + draw(_SPACE)
            + _render(draw, v)
            for k, v in value.items()
        )
        return "{" + (inner or draw(_SPACE)) + "}"
    return json.dumps(value)


@st.composite
def cases(draw: st.DrawFn) -> tuple[Any, str]:
    """A schema and the text of a document near it: as json.dumps writes it, or drawn with
    whitespace, escapes and other spellings of its numbers."""
    schema = draw(schemas())
    document = near(draw, schema, schema, 0)
    if draw(st.booleans()):
        return schema, json.dumps(document, ensure_ascii=draw(st.booleans()))
    return schema, draw(_SPACE) + _render(draw, document) + draw(_SPACE)
