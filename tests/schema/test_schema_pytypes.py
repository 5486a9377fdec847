"""Python types check what the same schema written as JSON Schema checks.

Each type below comes with the JSON Schema a person would write for it. Generated documents
(most of them near the shape, some broken in one place) are streamed through a parser given
the type and one given the hand-written schema, at random split points: the same verdict, the
same first violation (keyword, path, position), and for valid documents the converted value.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import random
from typing import Any, Literal, NamedTuple, TypedDict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import effort
import jsonsnap
from chunking import random_splits
from jsonsnap import Parser, SchemaError


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


@dataclasses.dataclass
class Point:
    x: int
    y: float = 0.0


class Tag(TypedDict, total=False):
    name: str
    weight: int | None


class Pair(NamedTuple):
    left: str
    right: bool = False


@dataclasses.dataclass
class Shape:
    kind: Literal["dot", "line"]
    color: Color
    points: list[Point]
    tags: dict[str, Tag]
    pair: Pair | None = None


POINT = {
    "type": "object",
    "properties": {"x": {"type": "integer"}, "y": {"type": "number"}},
    "required": ["x"],
    "additionalProperties": False,
}
SHAPE = {
    "type": "object",
    "properties": {
        "kind": {"enum": ["dot", "line"]},
        "color": {"enum": ["red", "green"]},
        "points": {"type": "array", "items": POINT},
        "tags": {
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "weight": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
                },
            },
        },
        "pair": {
            "anyOf": [
                {
                    "type": "array",
                    "prefixItems": [{"type": "string"}, {"type": "boolean"}],
                    "minItems": 1,
                    "maxItems": 2,
                    "items": False,
                },
                {"type": "null"},
            ]
        },
    },
    "required": ["kind", "color", "points", "tags"],
    "additionalProperties": False,
}

_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 5),
    st.sampled_from([1.5, -0.25]),
    st.text("ab", max_size=3),
)


def _near(good: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Mostly ``good``; one time in twenty a scalar of any type instead."""
    return st.integers(0, 19).flatmap(lambda i: good if i else _scalars)


_point = st.fixed_dictionaries(
    {"x": _near(st.integers(-9, 9))}, optional={"y": _near(st.floats(-2, 2, allow_nan=False))}
)
_tag = st.fixed_dictionaries(
    {},
    optional={
        "name": _near(st.text("xyz", max_size=3)),
        "weight": _near(st.none() | st.integers(0, 3)),
    },
)
_shape = st.fixed_dictionaries(
    {
        "kind": _near(st.sampled_from(["dot", "line", "dot", "line", "lin", "ring"])),
        "color": _near(st.sampled_from(["red", "green", "red", "green", "blue"])),
        "points": _near(st.lists(_near(_point), max_size=3)),
        "tags": _near(st.dictionaries(st.text("ab", max_size=2), _near(_tag), max_size=2)),
    },
    optional={
        "pair": _near(st.none() | st.tuples(st.text("q", max_size=2), st.booleans()).map(list)),
        "extra": st.integers(0, 9).filter(lambda i: i == 0),
    },
)


def _outcome(schema: Any, fragments: list[str]) -> tuple[Any, ...]:
    parser = Parser(schema=schema, on_violation="collect")
    for fragment in fragments:
        parser.feed(fragment)
    try:
        value = parser.close()
    except SchemaError as err:
        return ("invalid", err.keyword, err.path, err.pos)
    return ("valid", value)


@settings(max_examples=effort.examples(150), deadline=None)
@given(doc=_shape, seed=st.integers(0, 2**16))
def test_a_dataclass_checks_what_its_json_schema_checks(doc: dict[str, Any], seed: int) -> None:
    text = json.dumps(doc)
    fragments = random_splits(text, random.Random(seed))
    typed = _outcome(Shape, fragments)
    plain = _outcome(SHAPE, fragments)
    if typed[0] == "valid":
        assert plain[0] == "valid"
        value = typed[1]
        assert isinstance(value, Shape) and value.color == Color(doc["color"])
        assert all(isinstance(p, Point) for p in value.points)
        assert value.pair is None or isinstance(value.pair, Pair)
        assert jsonsnap.loads(text, schema=Shape, typed=False) == doc
    else:
        assert typed == plain


@pytest.mark.parametrize(
    ("tp", "schema", "good", "bad"),
    [
        (Literal["a", 1, None], {"enum": ["a", 1, None]}, ["a", 1, None], ["b", 2, True, 1.5]),
        (Color, {"enum": ["red", "green"]}, ["red"], ["Red", 0]),
        (
            tuple[int, str],
            {
                "prefixItems": [{"type": "integer"}, {"type": "string"}],
                "minItems": 2,
                "maxItems": 2,
                "items": False,
                "type": "array",
            },
            [[1, "a"]],
            [[1], [1, "a", 2], ["a", 1]],
        ),
        (
            list[int] | None,
            {"anyOf": [{"type": "array", "items": {"type": "integer"}}, {"type": "null"}]},
            [None, [], [1, 2]],
            [[1.5], "x"],
        ),
        (
            dict[str, float],
            {"type": "object", "additionalProperties": {"type": "number"}},
            [{}, {"a": 1, "b": 2.5}],
            [{"a": "1"}, []],
        ),
    ],
)
def test_simple_types_and_their_schemas_agree(
    tp: Any, schema: dict[str, Any], good: list[Any], bad: list[Any]
) -> None:
    cases = [(json.dumps(v), "valid") for v in good] + [(json.dumps(v), "invalid") for v in bad]
    for text, verdict in cases:
        for fragments in ([text], list(text)):
            typed, plain = _outcome(tp, fragments)[0], _outcome(schema, fragments)[0]
            assert typed == plain == verdict, text
