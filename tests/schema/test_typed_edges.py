"""Typed values at the edges (src/jsonsnap/_typed.py, the parser's view): any depth, a view
after every fragment that costs what changed, violations masked where they are, the keys of a
TypedDict as pydantic reads them, and what a type refuses reported as a SchemaError.

pydantic is not in the test dependency group: the tests that need it skip without it.
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple, TypedDict, Union

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jsonsnap
import jsonsnap._schema.to_types as typed
import jsonsnap._schema.views as views
import jsonsnap._schema.walk as walk
from chunking import chunkings, random_splits
from effort import examples
from jsonsnap import NOT_YET, Parser, SchemaError
from jsonsnap.streams import StructuredOutput


def same(a: Any, b: Any) -> bool:
    """Equal, and of the same types, all the way down (without recursion: the values here
    are deeper than ``==`` can compare)."""
    todo = [(a, b)]
    while todo:
        x, y = todo.pop()
        if type(x) is not type(y):
            return False
        if dataclasses.is_dataclass(x):
            todo.extend((getattr(x, f.name), getattr(y, f.name)) for f in dataclasses.fields(x))
        elif isinstance(x, (list, tuple)):
            if len(x) != len(y):
                return False
            todo.extend(zip(x, y, strict=True))
        elif isinstance(x, dict):
            if x.keys() != y.keys():
                return False
            todo.extend((x[k], y[k]) for k in x)
        elif x != y:
            return False
    return True


def feed(tp: Any, fragments: Sequence[str], **options: Any) -> Parser:
    parser = Parser(schema=tp, **options)
    for fragment in fragments:
        parser.feed(fragment)
    return parser


# --------------------------------------------------------------------------- any depth


@dataclass
class Node:
    name: str
    children: list[Node] = field(default_factory=list)


class Pair(NamedTuple):
    node: Level | None
    n: int = 0


class _Link(TypedDict):
    node: Level


class Link(_Link, total=False):
    note: str


@dataclass
class Level:
    """A recursive type that nests through every kind: list, dict, fixed tuple, NamedTuple,
    TypedDict, ``X | None`` and a union."""

    name: str
    via_list: list[Level] = field(default_factory=list)
    via_dict: dict[str, Level] | None = None
    via_tuple: tuple[Level, int] | None = None
    via_pair: Pair | None = None
    via_link: Link | None = None
    via_union: Union[int, Level, None] = None  # noqa: UP007 - the older spelling, on purpose


#: How a level holds the next one: the JSON around it, and the Python value around it.
WAYS: dict[str, tuple[str, str, Callable[[Level], Level]]] = {
    "list": ('{"name":"n","via_list":[', "]}", lambda x: Level("n", via_list=[x])),
    "dict": ('{"name":"n","via_dict":{"k":', "}}", lambda x: Level("n", via_dict={"k": x})),
    "tuple": ('{"name":"n","via_tuple":[', ",1]}", lambda x: Level("n", via_tuple=(x, 1))),
    "pair": ('{"name":"n","via_pair":[', ",2]}", lambda x: Level("n", via_pair=Pair(x, 2))),
    # An undeclared key of a TypedDict is dropped.
    "link": (
        '{"name":"n","via_link":{"node":',
        ',"extra":[0]}}',
        lambda x: Level("n", via_link={"node": x}),
    ),
    "union": ('{"name":"n","via_union":', "}", lambda x: Level("n", via_union=x)),
}


def nested(ways: Sequence[str]) -> tuple[str, Level]:
    """A document that nests one level per way (outermost first), and its value."""
    value = Level("leaf")
    for way in reversed(ways):
        value = WAYS[way][2](value)
    opening = "".join(WAYS[way][0] for way in ways)
    closing = "".join(WAYS[way][1] for way in reversed(ways))
    return opening + '{"name":"leaf"}' + closing, value


def test_a_300_deep_document_converts_and_views() -> None:
    """The issue's case: ``close()`` and ``view()`` raised ``ValueError: too deep``."""
    text = '{"name":"n","children":[' * 300 + '{"name":"leaf"}' + "]}" * 300
    expected = Node("leaf")
    for _ in range(300):
        expected = Node("n", [expected])
    parser = feed(Node, [text])
    assert same(parser.view(defaults=True), expected)
    assert same(parser.close(), expected)


def test_10000_deep_through_every_kind() -> None:
    ways = [list(WAYS)[i % len(WAYS)] for i in range(5_500)]
    text, expected = nested(ways)
    assert text.count("{") + text.count("[") > 10_000  # all on one path: the nesting depth
    parser = feed(Level, [text])
    assert same(parser.view(defaults=True), expected)
    assert same(parser.close(), expected)
    assert same(typed.convert(parser.snapshot(), Level | None), expected)


@settings(max_examples=examples(15), deadline=None)
@given(ways=st.lists(st.sampled_from(sorted(WAYS)), min_size=1, max_size=600), seed=st.integers())
def test_any_depth_converts_and_views(ways: list[str], seed: int) -> None:
    text, expected = nested(ways)
    rng = random.Random(seed)
    for fragments in ([text], random_splits(text, rng, max_piece=400)):
        parser = feed(Level, fragments)
        assert same(parser.view(defaults=True), expected)
        assert same(parser.close(), expected)
    half = feed(Level, [text[: len(text) // 2]])
    assert isinstance(half.view(), Level)  # an open document as deep views too


# --------------------------------------------------------------------------- a live view


@dataclass
class Record:
    id: int
    name: str
    kind: Literal["a", "b"]
    tags: dict[str, int]


@dataclass
class Doc:
    title: str
    records: list[Record] | None = None


def records_text(n: int) -> str:
    records = [{"id": i, "name": f"r{i}", "kind": "ab"[i % 2], "tags": {"t": i}} for i in range(n)]
    return json.dumps({"title": "t", "records": records})


def test_a_view_after_every_fragment_costs_what_changed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Finished records are shown by the same objects, and the frames a view walks do not
    grow with the number of finished records."""
    frames = [0]
    viewing = views._Viewer.viewing
    matching = walk._Walk.matching

    def counted(f: Any) -> Any:
        def wrapper(*args: Any) -> Any:
            frames[0] += 1
            return f(*args)

        return wrapper

    monkeypatch.setattr(views._Viewer, "viewing", counted(viewing))
    monkeypatch.setattr(walk._Walk, "matching", counted(matching))
    walked = []
    for n in (20, 200):
        text = records_text(n)
        cut = text.index(f'{{"id": {n - 1},')
        parser = feed(Doc, [text[:cut]])
        first = parser.view()
        parser.feed(text[cut : cut + 10])
        parser.view()
        parser.feed(text[cut + 10 : cut + 13])
        frames[0] = 0
        second = parser.view()
        walked.append(frames[0])
        assert second.records[: n - 1] == first.records[: n - 1]
        assert all(a is b for a, b in zip(first.records[:-1], second.records, strict=False))
        assert second.records[-1].id == n - 1 and second.records[-1].name is NOT_YET
        fresh = parser.view(copy=True)
        assert fresh == second and fresh.records[0] is not second.records[0]
    assert walked[0] == walked[1] < 40


def test_the_structured_output_view_is_the_parsers() -> None:
    output = StructuredOutput(jsonsnap.Schema(Doc))
    text = records_text(30)
    output._feed(text[:-40])
    before = output.view()
    output._feed(text[-40:])
    after = output.view()
    assert after.records[0] is before.records[0] and len(after.records) == 30


kinds = st.sampled_from(["a", "b"])
record_values = st.fixed_dictionaries(
    {
        "id": st.integers(-5, 5),
        "name": st.text("xyz", max_size=3),
        "kind": kinds,
        "tags": st.dictionaries(st.sampled_from("pqr"), st.integers(0, 3), max_size=2),
    }
)
#: What breaks a record's schema, field by field: values of the wrong type.
WRONG: dict[str, list[Any]] = {"id": ["1", 1.5, None], "name": [2, []], "kind": ["c", 1]}


@st.composite
def spoiled_docs(draw: st.DrawFn) -> tuple[str, list[tuple[int, str]]]:
    """A Doc whose records are broken in some fields, and where: (record, field)."""
    records = draw(st.lists(record_values, max_size=6))
    bad = []
    for i, record in enumerate(records):
        for name, wrong in WRONG.items():
            if draw(st.integers(0, 5)) == 0:
                record[name] = draw(st.sampled_from(wrong))
                bad.append((i, name))
    return json.dumps({"title": "t", "records": records}), bad


@settings(max_examples=examples(30, default=15), deadline=None)
@given(doc=spoiled_docs(), seed=st.integers(0, 2**16))
def test_violations_mask_only_where_they_are(
    doc: tuple[str, list[tuple[int, str]]], seed: int
) -> None:
    """In collect mode each view masks the fields with a violation and nothing else; the live
    view is, at every fragment, what a view made anew shows."""
    text, bad = doc
    final = json.loads(text)
    for _, fragments in chunkings(text, seed=seed, rounds=1):
        parser = Parser(schema=Doc, on_violation="collect")
        for fragment in fragments:
            parser.feed(fragment)
            live = parser.view()
            assert live == parser.view(copy=True)
            assert live == parser.view()
        shown = parser.view()
        assert shown.title == "t"
        for i, record in enumerate(final["records"]):
            for name, value in record.items():
                expected = NOT_YET if (i, name) in bad else value
                assert getattr(shown.records[i], name) == expected, (i, name)
        # (Under the anyOf of ``list[Record] | None``, only the first one is reported.)
        assert {(v.path[1], v.path[2]) for v in parser.violations} <= set(bad)
        assert bool(parser.violations) == bool(bad)


def test_one_violation_masks_one_field() -> None:
    """The issue's case: one violation anywhere made the whole view NOT_YET."""
    parser = Parser(schema=Doc, on_violation="collect")
    parser.feed('{"title": "t", "records": [{"id": "x", "name": "a", "kind": "a", "tags": {}}')
    shown = parser.view()
    assert shown.title == "t"
    assert (shown.records[0].id, shown.records[0].name) == (NOT_YET, "a")


# --------------------------------------------------------------------------- TypedDict, pydantic


try:  # TypedDicts pydantic reads on every Python: typing_extensions's (pydantic brings it)
    import typing_extensions as te
except ImportError:  # pragma: no cover
    te = None  # type: ignore[assignment]

if te is not None:

    class Inner(te.TypedDict):
        n: int
        label: te.NotRequired[str]

    class Outer(te.TypedDict):
        name: str
        inner: Inner
        items: list[Inner]
        maybe: te.NotRequired[Inner | None]


def typeddicts() -> Any:
    pytest.importorskip("pydantic")
    if te is None:  # pragma: no cover
        pytest.skip("typing_extensions is missing")
    return Outer


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-9, 9) | st.text("ab", max_size=2),
    lambda inner: (
        st.lists(inner, max_size=2) | st.dictionaries(st.text("ab", max_size=2), inner, max_size=2)
    ),
    max_leaves=4,
)
extras = st.dictionaries(st.sampled_from(["x", "y", "label2"]), json_values, max_size=2)


@st.composite
def inner_values(draw: st.DrawFn) -> dict[str, Any]:
    value: dict[str, Any] = {"n": draw(st.integers(-9, 9))}
    if draw(st.booleans()):
        value["label"] = draw(st.text("ab", max_size=3))
    return {**draw(extras), **value}


@st.composite
def outer_values(draw: st.DrawFn) -> dict[str, Any]:
    value: dict[str, Any] = {
        "name": draw(st.text("cd", max_size=3)),
        "inner": draw(inner_values()),
        "items": draw(st.lists(inner_values(), max_size=3)),
    }
    if draw(st.booleans()):
        value["maybe"] = draw(st.none() | inner_values())
    return {**draw(extras), **value}


def test_a_typeddict_keeps_its_declared_keys() -> None:
    outer = typeddicts()
    from pydantic import TypeAdapter

    doc = {"name": "a", "inner": {"n": 1, "x": 2}, "items": [], "y": [1]}
    expected = {"name": "a", "inner": {"n": 1}, "items": []}
    assert TypeAdapter(outer).validate_python(doc) == expected
    assert feed(outer, [json.dumps(doc)]).close() == expected
    assert feed(outer, [json.dumps(doc)], typed=False).close() == doc  # typed=False keeps all


@settings(max_examples=examples(20), deadline=None)
@given(value=outer_values(), seed=st.integers(0, 2**16))
def test_typeddicts_read_as_pydantic_reads_them(value: dict[str, Any], seed: int) -> None:
    outer = typeddicts()
    from pydantic import TypeAdapter

    text = json.dumps(value)
    expected = TypeAdapter(outer).validate_python(value)
    for label, fragments in chunkings(text, seed=seed, rounds=1):
        if label.startswith("split@"):
            continue
        parser = feed(outer, fragments)
        assert parser.view(defaults=True) == expected, label
        assert parser.close() == expected, label


def pydantic_models() -> Any:
    pytest.importorskip("pydantic")
    import datetime
    import uuid

    from pydantic import BaseModel

    class PNode(BaseModel):
        name: str
        children: list[PNode] = []

    class Event(BaseModel):
        when: datetime.datetime
        id: uuid.UUID
        note: str = ""

    class Log(BaseModel):
        events: list[Event]

    PNode.model_rebuild()
    return PNode, Event, Log


@pytest.mark.filterwarnings("ignore::jsonsnap.SchemaWarning")  # format: pydantic's to check
def test_what_pydantic_refuses_is_a_schema_error() -> None:
    from pydantic import ValidationError

    pnode, event, log = pydantic_models()
    deep = '{"name":"n","children":[' * 300 + '{"name":"leaf"}' + "]}" * 300
    parser = feed(pnode, [deep])
    assert isinstance(parser.view(), pnode)
    with pytest.raises(SchemaError) as caught:
        parser.close()
    assert isinstance(caught.value.__cause__, ValidationError)
    assert caught.value.path[:2] == ("children", 0)
    with pytest.raises(SchemaError):  # and it stays failed
        parser.close()
    text = '{"when": "yesterday", "id": "not a uuid"}'
    with pytest.raises(SchemaError, match="does not convert to Event") as caught:
        feed(event, [text]).close()
    assert isinstance(caught.value.__cause__, ValidationError)
    assert caught.value.path == ("when",) and caught.value.pos == len(text)
    good = '{"when": "2025-01-02T03:04:05Z", "id": "12345678-1234-5678-1234-567812345678"}'
    parser = feed(log, ['{"events": [', good, ", ", text, ", ", good, "]"])
    assert [i for i, _ in parser.take(("events",))] == [0]
    with pytest.raises(SchemaError) as caught:
        parser.take(("events",))
    assert caught.value.path == ("events", 1, "when")
    assert [i for i, _ in parser.take(("events",))] == [2]


moments = st.one_of(
    st.datetimes().map(lambda d: d.isoformat()),
    st.text("0123456789-:TZ", max_size=12),
)
ids = st.one_of(st.uuids().map(str), st.text("0123456789abcdef-", max_size=12))


@pytest.mark.filterwarnings("ignore::jsonsnap.SchemaWarning")
@settings(max_examples=examples(30), deadline=None)
@given(when=moments, id_=ids, seed=st.integers(0, 2**16))
def test_pydantic_verdicts_come_as_schema_errors(when: str, id_: str, seed: int) -> None:
    """Either the value pydantic validates, or a SchemaError caused by its ValidationError."""
    from pydantic import ValidationError

    _, event, _ = pydantic_models()
    text = json.dumps({"when": when, "id": id_})
    try:
        expected = event.model_validate_json(text)
    except ValidationError:
        expected = None
    for label, fragments in chunkings(text, seed=seed, rounds=1):
        if label.startswith("split@"):
            continue
        parser = feed(event, fragments)
        if expected is not None:
            assert parser.close() == expected
            continue
        with pytest.raises(SchemaError) as caught:
            parser.close()
        assert isinstance(caught.value.__cause__, ValidationError), label
        assert caught.value.path in (("when",), ("id",))


def test_a_repeated_key_shows_the_last_value_once_its_object_closes() -> None:
    parser = feed(dict[str, list[int]], ['{"a": [1], "b": [2]'])
    assert parser.view() == {"a": [1], "b": [2]}
    parser.feed(', "a": [3], "c": [4]}')
    assert parser.view() == parser.close() == {"a": [3], "b": [2], "c": [4]}


@pytest.mark.filterwarnings("ignore::jsonsnap.SchemaWarning")
def test_the_path_of_a_refusal_leaves_out_the_union_member_pydantic_names() -> None:
    pytest.importorskip("pydantic")
    import datetime
    from typing import Annotated

    from pydantic import BaseModel, Field

    class Cat(BaseModel):
        kind: Literal["cat"]
        born: datetime.date

    class Dog(BaseModel):
        kind: Literal["dog"]

    class Owner(BaseModel):
        pet: Annotated[Union[Cat, Dog], Field(discriminator="kind")]  # noqa: UP007

    with pytest.raises(SchemaError) as caught:
        feed(Owner, ['{"pet": {"kind": "cat", "born": "nope"}}']).close()
    assert caught.value.path == ("pet", "born")  # pydantic's loc: ("pet", "cat", "born")


@dataclass
class Span:
    start: int
    end: int

    def __post_init__(self) -> None:
        if self.end < self.start:
            raise ValueError("the span ends before it starts")


def test_what_a_constructor_refuses_is_a_schema_error() -> None:
    text = '{"spans": [{"start": 1, "end": 2}, {"start": 5, "end": 3}]}'
    tp = dataclasses.make_dataclass("Spans", [("spans", list[Span])])
    for _, fragments in chunkings(text, rounds=1):
        parser = feed(tp, fragments)
        assert parser.view().spans[1].end == 3  # a view builds without __init__
        with pytest.raises(SchemaError, match="ends before it starts") as caught:
            parser.close()
        assert caught.value.path == ("spans", 1)
        assert isinstance(caught.value.__cause__, ValueError)
        assert parser.error is not None and parser.violations  # failed, and says so
