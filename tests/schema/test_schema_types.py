"""Python types as JSON Schema and back (src/jsonsnap/_types.py): schema_of, convert, view.

jsonschema and pydantic are not in the test dependency group: the tests that need them skip
when they are missing.
"""

from __future__ import annotations

import copy
import dataclasses
import enum
import json
import pickle
import types
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, NamedTuple, Optional, TypedDict, TypeVar, Union

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jsonsnap
from effort import examples
from jsonsnap._schema.from_types import NOT_YET, convert, schema_of, view


class Status(enum.Enum):
    OPEN = "open"
    SHIPPED = "shipped"


@dataclass(frozen=True, slots=True)
class Address:
    street: str
    city: str
    zip: str | None = None

    def __post_init__(self) -> None:  # view() must not run it
        if not self.street:
            raise ValueError("street is empty")


class Dim(NamedTuple):
    w: int
    h: int = 1


@dataclass
class Line:
    sku: str
    qty: int
    price: float
    size: Dim | None = None
    tags: list[str] = field(default_factory=list)


@dataclass
class Order:
    id: int
    status: Status
    channel: Literal["web", "shop"]
    address: Address
    lines: list[Line]
    pair: tuple[int, str] = (0, "")
    note: str | None = None
    gift: bool = False


@dataclass
class Node:
    name: str
    children: list[Node] = field(default_factory=list)


class Titled(TypedDict):
    title: str


class Movie(Titled, total=False):
    year: int


Circle = dataclasses.make_dataclass("Circle", [("kind", Literal["circle"]), ("r", int)])
Square = dataclasses.make_dataclass("Square", [("kind", Literal["square"]), ("side", int)])


@dataclass
class Meta:  # annotated-types style constraints, by attribute name
    min_length: int | None = None
    max_length: int | None = None
    gt: float | None = None
    le: float | None = None


@dataclass
class Bad:
    items: list[bytes]


@dataclass
class Outer:
    inner: Bad


INT, STR, NUM, NULL = {"type": "integer"}, {"type": "string"}, {"type": "number"}, {"type": "null"}
ADDRESS = {
    "type": "object",
    "properties": {"street": STR, "city": STR, "zip": {"anyOf": [STR, NULL]}},
    "required": ["street", "city"],
    "additionalProperties": False,
}
DIM = {"type": "array", "prefixItems": [INT, INT], "minItems": 1, "maxItems": 2, "items": False}


def fixed(*items: dict[str, Any]) -> dict[str, Any]:
    """The schema of a tuple of fixed length."""
    n = len(items)
    return dict(type="array", prefixItems=list(items), minItems=n, maxItems=n, items=False)


NODE_BODY = {
    "type": "object",
    "properties": {"name": STR, "children": {"type": "array", "items": {"$ref": "#"}}},
    "required": ["name"],
    "additionalProperties": False,
}


@pytest.mark.parametrize(
    ("tp", "expected"),
    [
        (str, STR),
        (int, INT),
        (float, NUM),
        (bool, {"type": "boolean"}),
        (None, NULL),
        (type(None), NULL),
        (Any, {}),
        (object, {}),
        (list, {"type": "array"}),
        (list[int], {"type": "array", "items": INT}),
        (Sequence[str], {"type": "array", "items": STR}),
        (typing.List[str], {"type": "array", "items": STR}),  # noqa: UP006
        (tuple, {"type": "array"}),
        (tuple[int, ...], {"type": "array", "items": INT}),
        (tuple[int, str], fixed(INT, STR)),
        (dict, {"type": "object"}),
        (dict[str, int], {"type": "object", "additionalProperties": INT}),
        (Mapping[str, float], {"type": "object", "additionalProperties": NUM}),
        (Literal["a", 1, None], {"enum": ["a", 1, None]}),
        (Literal["a"], {"const": "a"}),
        (Literal[Status.OPEN], {"const": "open"}),
        (Status, {"enum": ["open", "shipped"]}),
        (Optional[int], {"anyOf": [INT, NULL]}),  # noqa: UP045
        (int | None, {"anyOf": [INT, NULL]}),
        (
            Union[int, Union[str, list[int]]],  # noqa: UP007
            {"anyOf": [INT, STR, {"type": "array", "items": INT}]},
        ),
        (Annotated[int, {"minimum": 0}], {"type": "integer", "minimum": 0}),
        (Annotated[str, Meta(1, 3)], {"type": "string", "minLength": 1, "maxLength": 3}),
        (Annotated[list[int], Meta(1)], {"type": "array", "items": INT, "minItems": 1}),
        (Annotated[float, Meta(gt=0, le=1)], {**NUM, "exclusiveMinimum": 0, "maximum": 1}),
        (Annotated[str, object(), "doc"], STR),
        (Address, ADDRESS),
        (Dim, DIM),
        (list[Dim], {"type": "array", "items": DIM}),  # used once: written in place
        (
            Movie,
            {"type": "object", "properties": {"title": STR, "year": INT}, "required": ["title"]},
        ),
        (Node, NODE_BODY),
        (
            list[Node],
            {
                "type": "array",
                "items": {"$ref": "#/$defs/Node"},
                "$defs": {"Node": json.loads(json.dumps(NODE_BODY).replace("#", "#/$defs/Node"))},
            },
        ),
        (
            tuple[Address, Address | None],
            {
                **fixed(
                    {"$ref": "#/$defs/Address"}, {"anyOf": [{"$ref": "#/$defs/Address"}, NULL]}
                ),
                "$defs": {"Address": ADDRESS},
            },
        ),
    ],
)
def test_schema_of(tp: Any, expected: dict[str, Any]) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    assert schema_of(tp) == expected
    jsonschema.Draft202012Validator.check_schema(expected)


def test_schema_of_clashing_names() -> None:
    first = dataclasses.make_dataclass("Item", [("a", int)])
    second = dataclasses.make_dataclass("Item", [("b", str)])
    schema = schema_of(types.GenericAlias(tuple, (first, first, second, second)))
    assert list(schema["$defs"]) == ["Item", "Item_2"]
    assert schema["$defs"]["Item_2"]["properties"] == {"b": STR}
    refs = [item["$ref"] for item in schema["prefixItems"]]
    assert refs == ["#/$defs/Item", "#/$defs/Item", "#/$defs/Item_2", "#/$defs/Item_2"]


T = TypeVar("T")
BadEnum = enum.Enum("BadEnum", {"A": b"a"})


@pytest.mark.parametrize(
    ("tp", "message"),
    [
        (bytes, "cannot express bytes as JSON Schema (at $)"),
        (Bad, "cannot express bytes as JSON Schema (at Bad.items[])"),
        (list[Outer], "cannot express bytes as JSON Schema (at $[].inner.items[])"),
        (tuple[int, set[int]], "cannot express set[int] as JSON Schema (at $[1])"),
        (dict[str, T], "cannot express ~T as JSON Schema (at ${})"),  # type: ignore[valid-type]
        (dict[int, str], "keys of a JSON object are strings, use str (at $)"),
        (BadEnum, "the value of A, b'a', is not a JSON value (at BadEnum)"),
        (Literal[b"x"], "b'x' is not a JSON value (at $)"),
    ],
)
def test_schema_of_refuses(tp: Any, message: str) -> None:
    with pytest.raises(TypeError) as caught:
        schema_of(tp)
    assert message in str(caught.value)


def test_unresolvable_annotation() -> None:
    @dataclass
    class Local:
        x: Missing  # type: ignore[name-defined]  # noqa: F821

    with pytest.raises(
        TypeError, match=r"cannot resolve the annotations of .*Local.* \(at Local\)"
    ):
        schema_of(Local)


def plain(x: Any) -> Any:
    """The JSON form of an instance: what a model sends for it."""
    if isinstance(x, enum.Enum):
        return x.value
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return {f.name: plain(getattr(x, f.name)) for f in dataclasses.fields(x)}
    if isinstance(x, (list, tuple)):
        return [plain(v) for v in x]
    if isinstance(x, dict):
        return {k: plain(v) for k, v in x.items()}
    return x


floats = st.floats(allow_nan=False, allow_infinity=False)
texts = st.text(max_size=8)
dims = st.builds(Dim, st.integers(), st.integers())
addresses = st.builds(Address, street=st.text(min_size=1), city=texts, zip=st.none() | texts)
lines = st.builds(
    Line, sku=texts, price=floats, size=st.none() | dims, tags=st.lists(texts, max_size=2)
)
orders = st.builds(
    Order,
    lines=st.lists(lines, max_size=3),
    address=addresses,
    pair=st.tuples(st.integers(), texts),
    note=st.none() | texts,
    gift=st.booleans(),
)
nodes = st.recursive(
    st.builds(Node, name=texts),
    lambda kids: st.builds(Node, name=texts, children=st.lists(kids, max_size=3)),
    max_leaves=8,
)
Mixed = Status | int | bool | str | Line | Address | Dim | None
words = texts.filter(lambda t: t not in ("open", "shipped"))  # those would be a Status
mixed = st.one_of(st.sampled_from(Status), st.integers(), st.booleans(), words, lines)
mixed |= st.one_of(addresses, dims, st.none())
SAMPLES: list[tuple[Any, st.SearchStrategy[Any]]] = [
    (Order, orders),
    (Node, nodes),
    (list[Mixed], st.lists(mixed, max_size=4)),
    (
        dict[str, tuple[int, Status]],
        st.dictionaries(texts, st.tuples(st.integers(), st.sampled_from(Status))),
    ),
    (Movie, st.fixed_dictionaries({"title": texts}, optional={"year": st.integers()})),
]


@pytest.mark.parametrize(("tp", "strategy"), SAMPLES, ids=lambda s: getattr(s, "__name__", None))
def test_values_validate_and_round_trip(tp: Any, strategy: st.SearchStrategy[Any]) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    validator = jsonschema.Draft202012Validator(schema_of(tp))

    @settings(max_examples=examples(40))
    @given(strategy)
    def check(instance: Any) -> None:
        value = json.loads(json.dumps(plain(instance)))
        validator.validate(value)
        back = convert(value, tp)
        assert back == instance
        assert type(back) is type(instance)
        assert view(value, tp, defaults=True) == instance

    check()


ORDER = Order(
    id=7,
    status=Status.SHIPPED,
    channel="shop",
    address=Address("1 Main St", "Springfield", zip=None),
    lines=[Line("ab-1", 2, 9.5, size=Dim(3, 4), tags=["x"]), Line("cd", 1, 3, tags=[])],
    pair=(5, "five"),
    note="ring twice",
    gift=True,
)


@pytest.mark.parametrize(
    "change",
    [
        lambda v: v.pop("address"),
        lambda v: v.update(extra=1),
        lambda v: v.update(id="7"),
        lambda v: v.update(id=True),
        lambda v: v.update(status="closed"),
        lambda v: v.update(channel="mail"),
        lambda v: v.update(pair=[1, "a", 2]),
        lambda v: v["lines"][0].update(qty=1.5),
        lambda v: v["lines"][0].update(size=[1, 2, 3]),
        lambda v: v["address"].pop("city"),
        lambda v: v.update(lines={}),
    ],
)
def test_wrong_shapes_do_not_validate(change: Any) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    value = plain(ORDER)
    change(value)
    assert not jsonschema.Draft202012Validator(schema_of(Order)).is_valid(value)


def test_convert() -> None:
    assert convert(plain(ORDER), Order) == ORDER
    assert convert([1, "a"], tuple[int, str]) == (1, "a")
    assert type(convert(1, float)) is int  # JSON semantics: not coerced
    assert type(convert(2.0, int)) is int  # 2.0 is an integer to JSON Schema
    assert convert(1, float | int) == 1
    assert convert({"title": "x", "other": [1]}, Movie) == {"title": "x"}  # as pydantic does
    assert convert({"kind": "square", "side": 2}, Circle | Square) == Square("square", 2)
    assert convert("open", Annotated[Status, {"x": 1}]) is Status.OPEN
    assert convert(True, Literal[1, True]) is True
    assert convert("open", Literal[Status.OPEN, 1]) is Status.OPEN
    assert convert({"street": "s", "city": "c"}, Meta | Address) == Address("s", "c")
    assert convert([], Dim | list[int]) == []
    with pytest.raises(ValueError, match="matches no member"):
        convert("x", int | None)


def test_not_yet() -> None:
    assert repr(NOT_YET) == "<not yet>"
    assert not NOT_YET
    assert copy.deepcopy(NOT_YET) is NOT_YET
    assert pickle.loads(pickle.dumps(NOT_YET)) is NOT_YET


def conforms(value: Any, tp: Any) -> bool:
    """Whether a view holds only NOT_YET or instances of the annotated types, all the way down."""
    if value is NOT_YET:
        return True
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (Union, types.UnionType):
        return any(conforms(value, member) for member in args)
    if origin is Literal:
        return any(value == a and type(value) is type(a) for a in args)
    if origin is list:
        return isinstance(value, list) and all(conforms(v, args[0]) for v in value)
    if origin is tuple:
        if not isinstance(value, tuple) or len(value) != len(args):
            return False
        return all(conforms(v, t) for v, t in zip(value, args, strict=True))
    if tp is None:
        return value is None
    if tp is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if tp is int and isinstance(value, bool):
        return False
    if not isinstance(value, tp):
        return False
    if dataclasses.is_dataclass(tp) or hasattr(tp, "_fields"):
        hints = typing.get_type_hints(tp)
        return all(conforms(getattr(value, name), hint) for name, hint in hints.items())
    return True


def test_view_every_prefix() -> None:
    text = json.dumps(plain(ORDER))
    final = jsonsnap.loads(text)
    fields = {f.name: f for f in dataclasses.fields(Order)}

    def invalid(path: tuple[str | int, ...]) -> bool:
        return path[:1] == ("address",) or path == ("lines", 0, "qty")

    for i in range(len(text) + 1):
        prefix = text[:i]
        snapshot = jsonsnap.parse_partial(prefix)
        seen = view(snapshot, Order)
        assert conforms(seen, Order), (prefix, seen)
        if snapshot is None:
            assert seen is NOT_YET
            continue
        if '"address": {' in prefix:
            assert isinstance(seen.address, Address)
        if '"lines": [{' in prefix:
            assert isinstance(seen.lines[0], Line)
        if '"size": [' in prefix:
            assert isinstance(seen.lines[0].size, Dim)
        with_defaults = view(snapshot, Order, defaults=True)
        assert conforms(with_defaults, Order)
        for name, f in fields.items():
            if name not in snapshot:
                assert getattr(seen, name) is NOT_YET
                expected: Any = NOT_YET
                if f.default is not dataclasses.MISSING:
                    expected = f.default
                elif f.default_factory is not dataclasses.MISSING:
                    expected = f.default_factory()
                assert getattr(with_defaults, name) == expected
        masked = view(snapshot, Order, invalid=invalid)
        assert masked.address is NOT_YET
        if snapshot.get("lines") and isinstance(masked.lines[0], Line):
            assert masked.lines[0].qty is NOT_YET
            assert masked.lines[0].sku == seen.lines[0].sku
    assert view(final, Order) == ORDER == convert(final, Order)


def test_view_rules() -> None:
    assert view(None, Order) is NOT_YET
    assert view(NOT_YET, Any) is NOT_YET
    assert view(None, Address | None) is None
    address = view({"street": ""}, Address)  # no __post_init__, which refuses ""
    assert (address.street, address.city, address.zip) == ("", NOT_YET, NOT_YET)
    assert view("op", Status) is NOT_YET
    assert view("open", Status) is Status.OPEN
    assert view("we", Literal["web"]) is NOT_YET
    assert view([1, "x", None], list[int]) == [1, NOT_YET, NOT_YET]
    assert view([1], tuple[int, str]) == (1, NOT_YET)
    assert view([1, "a", 2], tuple[int, str]) is NOT_YET
    assert view([2], Dim, defaults=True) == Dim(2, 1)
    assert view({"title": "x"}, Movie) == {"title": "x", "year": NOT_YET}
    assert view({"title": "x"}, Movie, defaults=True) == {"title": "x"}
    assert repr(view({"kind": "ci"}, Square | Circle)) == "Circle(kind=<not yet>, r=<not yet>)"
    assert view({"kind": "square"}, Circle | Square).kind == "square"
    assert view("x", int | None) is NOT_YET
    assert type(view(2.0, int)) is int


def pydantic_models() -> Any:
    pytest.importorskip("pydantic")
    from pydantic import BaseModel, Field

    class Kind(str, enum.Enum):
        BOOK = "book"
        GAME = "game"

    class Item(BaseModel):
        name: str
        kind: Kind = Kind.BOOK
        price: float | None = None

    class Cart(BaseModel):
        owner: str = Field(alias="ownerName")
        mode: Literal["fast", "slow"]
        items: list[Item]
        best: Item | None = None

    return types.SimpleNamespace(Item=Item, Cart=Cart)


CARTS = [
    {"ownerName": "ann", "mode": "fast", "items": []},
    {"ownerName": "bo", "mode": "slow", "items": [{"name": "x", "kind": "game"}], "best": None},
    {"ownerName": "c", "mode": "fast", "items": [{"name": "y", "price": 2}], "best": {"name": ""}},
]


@pytest.mark.parametrize("value", CARTS)
def test_pydantic(value: dict[str, Any]) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    models = pydantic_models()
    assert schema_of(models.Cart) == models.Cart.model_json_schema()
    assert convert(value, models.Cart) == models.Cart.model_validate(value)
    carts = types.GenericAlias(list, (models.Cart,))
    assert convert([value], carts) == [models.Cart.model_validate(value)]

    @dataclass
    class Item:  # the same name as the pydantic model's $defs entry
        n: int

    wrapped = {"carts": [value, value], "item": {"n": 1}, "again": {"n": 2}}
    tp = dataclasses.make_dataclass("Holder", [("carts", carts), ("item", Item), ("again", Item)])
    schema = schema_of(tp)
    assert list(schema["$defs"]) == ["Item", "Kind", "Item_2"]  # pydantic's, then ours
    assert schema["$defs"]["Item_2"]["properties"] == {"n": INT}
    jsonschema.Draft202012Validator(schema).validate(wrapped)
    assert convert(wrapped, tp).carts[1] == models.Cart.model_validate(value)


def test_pydantic_view() -> None:
    models = pydantic_models()
    seen = view({"ownerName": "an", "items": [{"name": "x", "kind": "ga"}]}, models.Cart)
    assert isinstance(seen, models.Cart)
    assert (seen.owner, seen.mode, seen.best) == ("an", NOT_YET, NOT_YET)
    assert isinstance(seen.items[0], models.Item)
    assert (seen.items[0].name, seen.items[0].kind) == ("x", NOT_YET)
    assert view({"items": [{}]}, models.Cart, defaults=True).items[0].kind == "book"
