"""The schema checker at its edges, on generated schemas and documents (those of
``test_schema_oracle``): what is reported does not depend on how the text is cut, and a
duplicate key is checked by the documented rule.

* every violation, as ``(pos, lineno, colno, keyword, msg, path)``, in the order reported, is the
  same whole, one character at a time and at random splits, in collect mode and raise mode;
* an object with duplicate keys: every member is checked, the ones a later duplicate replaces
  included (the rule the README states); jsonschema is the oracle, on each way of choosing
  which member of each key survives.

jsonschema is not in the test dependency group: this module is skipped without it (as
``test_schema_oracle`` is).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import jsonsnap
from chunking import chunkings
from effort import examples
from schema_cases import KEYS, PATTERNS, cases, near, string_text, trees

jsonschema = pytest.importorskip("jsonschema")

Seen = tuple[int, int, int, str, str, tuple[str | int, ...]]


def _seen(err: jsonsnap.SchemaError) -> Seen:
    return (err.pos, err.lineno, err.colno, err.keyword, err.msg, err.path)


def _reported(schema: jsonsnap.Schema, fragments: Sequence[str], mode: str) -> list[Seen]:
    """The violations ``mode`` reports: all of them (collect, ``close()``'s included), or the
    one raised (raise)."""
    parser = jsonsnap.Parser(schema=schema, on_violation=mode)
    try:
        for fragment in fragments:
            parser.feed(fragment)
        parser.close()
    except jsonsnap.SchemaError as exc:
        if mode == "raise":
            return [_seen(exc)]
    return [_seen(v) for v in parser.violations]


#: Short strings over few letters: many share beginnings, as enum values and keys do.
words = st.text("abc", max_size=5)
_consts = st.builds(lambda w: {"const": w}, words)
_string_leaves = st.one_of(
    _consts,
    _consts,
    st.builds(lambda ws: {"enum": ws}, st.lists(words, min_size=1, max_size=4)),
    st.builds(lambda n: {"maxLength": n}, st.integers(0, 4)),
    st.builds(lambda n: {"minLength": n}, st.integers(0, 4)),
    st.builds(lambda p: {"pattern": p}, st.sampled_from(("^a", "b$", "c"))),
    st.just({"type": "string"}),
)
#: Unions of string checks: discriminators, enums and lengths, dying at different characters.
string_unions = st.recursive(
    _string_leaves,
    lambda inner: st.builds(
        lambda keyword, alternatives: {keyword: alternatives},
        st.sampled_from(("anyOf", "oneOf", "allOf")),
        st.lists(inner, min_size=2, max_size=3),
    ),
    max_leaves=6,
)


def _strings_in(schema: Any) -> list[str]:
    """The const and enum strings anywhere in ``schema``."""
    found: list[str] = []
    todo = [schema]
    while todo:
        node = todo.pop()
        if isinstance(node, dict):
            found.extend(v for v in [node.get("const"), *node.get("enum", ())] if type(v) is str)
            todo.extend(node.values())
        elif isinstance(node, list):
            todo.extend(node)
    return found


def _string(draw: st.DrawFn, value: str) -> str:
    """A string token: mostly as json.dumps writes it, sometimes with escapes."""
    return string_text(draw, value) if not draw(st.integers(0, 3)) else json.dumps(value)


@st.composite
def string_cases(draw: st.DrawFn) -> tuple[Any, str]:
    """A union of string checks, alone, as a member (of a tagged union too) or on closed
    keys; and a document whose strings are near its values (some written as escapes)."""
    union: Any = draw(string_unions)
    allowed = [w for w in _strings_in(union) if w]
    value: str = draw(words)
    if allowed and draw(st.integers(0, 3)) > 0:  # an allowed value's beginning, then anything
        near: str = draw(st.sampled_from(allowed))
        cut: int = draw(st.integers(0, len(near)))
        value = near[:cut] + draw(st.sampled_from("abcx")) + value
    form = draw(st.sampled_from(("alone", "member", "tagged", "keys")))
    schema: dict[str, Any]
    if form == "alone":
        return union, _string(draw, value)
    if form == "member":
        schema = {"type": "object", "properties": {"k": union}}
        return schema, "{" + _string(draw, "k") + ": " + _string(draw, value) + "}"
    if form == "tagged":
        tags: list[str] = draw(st.lists(words, min_size=1, max_size=3))
        schema = {
            draw(st.sampled_from(("anyOf", "oneOf"))): [
                {"type": "object", "properties": {"kind": {"const": t}, "k": union}} for t in tags
            ]
        }
        kind = _string(draw, draw(st.sampled_from(tags)) if draw(st.booleans()) else value)
        tagged = [_string(draw, "kind") + ": " + kind, _string(draw, "k") + ': "a"']
        return schema, "{" + ", ".join(tagged) + "}"
    props = {w: union for w in draw(st.lists(words, max_size=4))}
    schema = {"type": "object", "properties": props, "additionalProperties": False}
    if draw(st.booleans()):
        schema["patternProperties"] = {draw(st.sampled_from(("^a", "b$", "c"))): union}
    if draw(st.booleans()):
        schema["maxProperties"] = draw(st.integers(0, 2))
    keys: list[str] = draw(st.lists(words, max_size=3, unique=True))
    members = ", ".join(_string(draw, k) + ": " + _string(draw, value) for k in keys)
    return schema, "{" + members + "}"


@settings(max_examples=examples(100))
@given(case=cases(), seed=st.integers(0, 2**16))
def test_violations_do_not_depend_on_the_cuts(case: tuple[Any, str], seed: int) -> None:
    _same_whichever_cuts(case, seed)


@settings(max_examples=examples(150))
@given(case=string_cases(), seed=st.integers(0, 2**16))
def test_string_violations_do_not_depend_on_the_cuts(case: tuple[Any, str], seed: int) -> None:
    _same_whichever_cuts(case, seed)


@pytest.mark.parametrize("text", ["[null]", "[1]", "[true, 2]", '{"a": [[null]]}'])
def test_a_violation_in_an_alternative_is_reported_once_whatever_the_cuts(text: str) -> None:
    """(An element's place is its container's node: the same object at every fragment, on
    either build.)"""
    schema = {"items": {"anyOf": [False]}, "properties": {"a": {"items": {"oneOf": [False]}}}}
    _same_whichever_cuts((schema, text), 0)


def _same_whichever_cuts(case: tuple[Any, str], seed: int) -> None:
    schema, text = case
    compiled = jsonsnap.Schema(schema, unknown="error")
    for mode in ("collect", "raise"):
        whole = _reported(compiled, [text], mode)
        for label, fragments in chunkings(text, seed=seed, rounds=2):
            assert _reported(compiled, fragments, mode) == whole, (label, mode, schema, text)


# --------------------------------------------------------------------------- duplicate keys


@st.composite
def duplicated(draw: st.DrawFn) -> tuple[Any, dict[str, Any], dict[str, Any], str]:
    """An object schema (its members' schemas any of the generated ones), an object near it,
    earlier members for some of its keys, and the text with those first: each such key
    twice, the object's own member last (it is the one ``json.loads`` keeps)."""
    schema: dict[str, Any] = draw(
        st.fixed_dictionaries(
            {"type": st.just("object")},
            optional={
                "properties": st.dictionaries(st.sampled_from(KEYS), trees, max_size=3),
                "additionalProperties": st.booleans() | trees,
                "patternProperties": st.dictionaries(st.sampled_from(PATTERNS), trees, max_size=1),
                "required": st.lists(st.sampled_from(KEYS), max_size=2, unique=True),
                "maxProperties": st.integers(0, 4),
            },
        )
    )
    document = near(draw, schema, schema, 0)
    assume(isinstance(document, dict) and document)
    keys = draw(st.lists(st.sampled_from(sorted(document)), min_size=1, max_size=2, unique=True))
    props = schema.get("properties", {})
    earlier = {k: near(draw, props.get(k, True), schema, 1) for k in keys}
    members = [f"{json.dumps(k)}: {json.dumps(v)}" for k, v in earlier.items()]
    members.extend(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in document.items())
    return schema, document, earlier, "{" + ", ".join(members) + "}"


@settings(max_examples=examples(100, default=50))
@given(case=duplicated())
def test_duplicate_keys_check_every_member(
    case: tuple[Any, dict[str, Any], dict[str, Any], str],
) -> None:
    schema, document, earlier, text = case
    assert json.loads(text) == document  # the last member of each key survives
    # The rule: valid when the value is valid whichever member of each key survives (each
    # member is checked: no check of an object's members reads two of them together).
    validator = jsonschema.Draft202012Validator(schema)
    expected = all(
        validator.is_valid({**document, **dict(chosen)})
        for n in range(len(earlier) + 1)
        for chosen in itertools.combinations(earlier.items(), n)
    )
    compiled = jsonsnap.Schema(schema, unknown="error")
    for label, fragments in chunkings(text, rounds=1):
        for mode in ("collect", "raise"):
            parser = jsonsnap.Parser(schema=compiled, on_violation=mode)
            try:
                for fragment in fragments:
                    parser.feed(fragment)
                value = parser.close()
            except jsonsnap.SchemaError as exc:
                assert not expected, (label, mode, text, str(exc))
            else:
                assert expected, (label, mode, text)
                assert value == document
