"""``Parser(schema=Model)`` for pydantic models, against pydantic itself.

A few models cover what pydantic puts in a JSON Schema: a nested model, ``Optional`` fields,
``Literal``, a list of models with constrained fields (``Field(min_length=, pattern=, ge=,
gt=...)``), a ``str`` and an ``int`` ``Enum``, a discriminated union
(``Field(discriminator=...)``: ``oneOf`` with a ``discriminator`` annotation), defaults, and a
recursive model (``$ref`` to itself). Instances are drawn by hypothesis and written by
``model_dump_json()`` (sometimes without their defaults):

* fed whole, one character at a time and at random cuts (:func:`_cuts`), ``close()`` returns
  ``Model.model_validate_json(text)``;
* variants of them (a field of the wrong type, a required field removed, a wrong ``Literal`` or
  enum value, a key added) get the same verdict from jsonsnap (a :class:`jsonsnap.SchemaError`
  or not) as from pydantic. The wrong values are chosen among those pydantic's lax mode does not
  coerce (no ``"5"`` for an ``int``, no ``true`` for a ``float``): there pydantic accepts what
  the JSON Schema refuses, by design.

pydantic is not in the test dependency group: this module is skipped without it.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Iterator, Sequence
from typing import Annotated, Any, Final, Literal, Optional, Union

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

import jsonsnap
from chunking import chunkings
from effort import examples

pydantic = pytest.importorskip("pydantic")

from pydantic import BaseModel, Field, ValidationError  # noqa: E402 - after the skip


class Color(str, enum.Enum):
    RED = "red"
    GREEN = "green"


class Size(enum.Enum):
    S = 1
    M = 2


class Address(BaseModel):
    street: str
    zip: Optional[str] = None  # noqa: UP045 - Optional on purpose (the older spelling)


class Cat(BaseModel):
    kind: Literal["cat"]
    lives: int = 9


class Dog(BaseModel):
    kind: Literal["dog"]
    good: bool = True


class Item(BaseModel):
    sku: Annotated[str, Field(min_length=1, max_length=8, pattern="^[A-Z]")]
    qty: Annotated[int, Field(ge=0, le=1000)]
    price: Annotated[float, Field(gt=0)]


class Order(BaseModel):
    id: int
    status: Literal["open", "shipped"]
    color: Color
    address: Address
    items: list[Item]
    pet: Annotated[Union[Cat, Dog], Field(discriminator="kind")]  # noqa: UP007
    size: Size = Size.M
    note: str | None = None
    tags: list[str] = []
    gift: bool = False


class Folder(BaseModel):
    name: str
    children: list[Folder] = []
    size: int | None = None


texts = st.text(max_size=6)
i64 = st.integers(-(2**63), 2**63 - 1)
floats = st.floats(allow_nan=False, allow_infinity=False)
addresses = st.builds(Address, street=texts, zip=st.none() | texts)
pets = st.builds(Cat, kind=st.just("cat"), lives=i64) | st.builds(
    Dog, kind=st.just("dog"), good=st.booleans()
)
orders = st.builds(
    Order,
    id=i64,
    status=st.sampled_from(("open", "shipped")),
    color=st.sampled_from(Color),
    address=addresses,
    items=st.lists(
        st.builds(
            Item,
            sku=st.from_regex(r"\A[A-Z][a-zé0-9]{0,7}\Z"),
            qty=st.integers(0, 1000),
            price=st.floats(min_value=0, exclude_min=True, allow_infinity=False),
        ),
        max_size=3,
    ),
    pet=pets,
    size=st.sampled_from(Size),
    note=st.none() | texts,
    tags=st.lists(texts, max_size=3),
    gift=st.booleans(),
)
folders = st.recursive(
    st.builds(Folder, name=texts, children=st.just([]), size=st.none() | i64),
    lambda kids: st.builds(
        Folder, name=texts, children=st.lists(kids, max_size=3), size=st.none() | i64
    ),
    max_leaves=8,
)
MODELS: Final[dict[str, tuple[type[BaseModel], st.SearchStrategy[Any]]]] = {
    "Order": (Order, orders),
    "Folder": (Folder, folders),
}

#: Replacement values that pydantic (lax) and the JSON Schema judge alike for every field here:
#: each is refused by both, or (``null`` for an optional field, ``7`` for a number, ``[]`` for
#: a list) accepted by both.
WRONG_VALUES: Final[tuple[Any, ...]] = (None, "zz", 1.5, 7, -3, [], {}, "dog", [1.5])


@st.composite
def documents(draw: st.DrawFn, model: Any) -> str:
    instance = draw(MODELS[model.__name__][1])
    text: str = instance.model_dump_json(exclude_defaults=draw(st.booleans()))
    return text


def _places(value: Any, out: list[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
    """Every (container, key or index) in ``value``."""
    if isinstance(value, dict):
        for key, item in value.items():
            out.append((value, key))
            _places(item, out)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            out.append((value, index))
            _places(item, out)
    return out


@st.composite
def variants(draw: st.DrawFn, model: Any) -> str:
    """A document of ``model`` with one change: a value replaced, a key removed or added."""
    data = json.loads(draw(documents(model)))
    places = _places(data, [])
    op = draw(st.sampled_from(("replace", "remove", "add")))
    if op == "add" or not places:
        objects = [data, *(c[k] for c, k in places if isinstance(c[k], dict))]
        target = draw(st.sampled_from(objects))
        event("add")
        target[draw(st.sampled_from(("extra", "zip", "kind")))] = draw(
            st.sampled_from(WRONG_VALUES)
        )
    else:
        container, key = draw(st.sampled_from(places))
        event(f"{op} {key if isinstance(key, str) else 'element'}")
        if op == "remove":
            del container[key]
        elif isinstance(container[key], str) and draw(st.booleans()):
            container[key] = draw(st.sampled_from(("closed", "blue", "cow", "")))  # a wrong Literal
        else:
            container[key] = draw(st.sampled_from(WRONG_VALUES))
    return json.dumps(data, ensure_ascii=draw(st.booleans()))


def _cuts(text: str, seed: int, rounds: int) -> Iterator[tuple[str, Sequence[str]]]:
    """The cuts of :func:`chunkings` but its 2-way splits: whole, 1 character at a time and at
    random. (The documents here are long, and what is tested is the mapping of the model, not
    the reading of a cut: test_schema_oracle.py cuts everywhere.)"""
    for label, fragments in chunkings(text, seed=seed, rounds=rounds):
        if not label.startswith("split@"):
            yield label, fragments


def _feed(model: Any, fragments: Sequence[str]) -> Any:
    parser = jsonsnap.Parser(schema=model)
    for fragment in fragments:
        parser.feed(fragment)
    return parser.close()


def _verdict(model: Any, fragments: Sequence[str]) -> tuple[Any, jsonsnap.SchemaError | None]:
    """The value read, or the SchemaError raised (any other exception escapes)."""
    try:
        return _feed(model, fragments), None
    except jsonsnap.SchemaError as exc:
        return None, exc


@pytest.mark.parametrize("name", sorted(MODELS))
@settings(max_examples=examples(100, default=50))
@given(data=st.data(), seed=st.integers(0, 2**16))
def test_instances_read_as_pydantic_reads_them(name: str, data: st.DataObject, seed: int) -> None:
    model = MODELS[name][0]
    text = data.draw(documents(model))
    expected = model.model_validate_json(text)
    for label, fragments in _cuts(text, seed, rounds=3):
        assert _feed(model, fragments) == expected, label


@pytest.mark.parametrize("name", sorted(MODELS))
@settings(max_examples=examples(200, default=100))
@given(data=st.data(), seed=st.integers(0, 2**16))
def test_variants_get_pydantics_verdict(name: str, data: st.DataObject, seed: int) -> None:
    model = MODELS[name][0]
    text = data.draw(variants(model))
    try:
        expected = model.model_validate_json(text)
    except ValidationError:
        expected = None
    event("valid" if expected is not None else "invalid")
    for label, fragments in _cuts(text, seed, rounds=2):
        value, error = _verdict(model, fragments)
        if error is not None:
            assert expected is None, f"{label}: refused what pydantic accepts: {error}"
        else:
            assert value == expected, f"{label}: accepted what pydantic refuses"


def test_the_schemas_are_checked_whole() -> None:
    """Every keyword of the models' schemas is checked (nothing is skipped unseen)."""
    for model, _ in MODELS.values():
        assert jsonsnap.Schema(model, unknown="error").unchecked == ()


def test_the_union_is_a_oneof_with_a_discriminator() -> None:
    schema: dict[str, Any] = jsonsnap.Schema(Order).json
    pet = schema["properties"]["pet"]
    assert "oneOf" in pet and pet["discriminator"]["propertyName"] == "kind"
    assert pydantic.VERSION.startswith("2")
