"""Schemas as hostile input: a schema (a tool definition from a server, a ``--schema`` file) is
compiled and checked in time and memory that grow with its size and the document's, and only
:class:`~jsonsnap.SchemaDefinitionError` (a wrong schema) or :class:`~jsonsnap.SchemaError` (a
wrong document) ever escapes.

* ``allOf``/``anyOf``/``oneOf`` that double through ``$ref``: ``allOf`` is checked once per
  subschema; what would multiply past the expansion limit is refused when compiled;
* patterns with nested quantifiers: searched in one pass (counted in automaton steps), or
  refused when they need what an automaton cannot read;
* schemas of any depth: compiled and checked without recursion, through ``Parser``,
  ``loads``, ``jsonsnap replay --schema FILE`` and the tools a stream repeats;
* huge numbers (``parse_float=Decimal``, long integers, ``1e400`` as ``inf``): decided
  without writing them out;
* keyword values of the wrong type or out of range: refused when compiled, never another
  exception (a fuzz over arbitrary JSON-ish and non-JSON values).
"""

from __future__ import annotations

import contextlib
import json
import math
import re
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jsonsnap
import jsonsnap._schema.compile
import jsonsnap._schema.shape
import paths
from chunking import chunkings
from effort import examples
from jsonsnap import (
    JSONDecodeError,
    Parser,
    Schema,
    SchemaDefinitionError,
    SchemaError,
    loads,
)
from jsonsnap import __main__ as cli
from jsonsnap._schema import regex as _regex

FIXTURES = paths.FIXTURES
RESPONSES = FIXTURES / "openai" / "responses_schema_tool_enum.sse"

# --------------------------------------------------------------------------- doubling $ref


def doubling(levels: int, keywords: list[str], width: int = 2) -> dict[str, Any]:
    """A schema whose level ``i`` is ``{keyword: [level i-1] * width}`` through ``$ref``."""
    defs: dict[str, Any] = {"d0": {"type": "integer", "minimum": 0}}
    for i in range(1, levels + 1):
        keyword = keywords[(i - 1) % len(keywords)]
        defs[f"d{i}"] = {keyword: [{"$ref": f"#/$defs/d{i - 1}"}] * width}
    return {"$defs": defs, "$ref": f"#/$defs/d{levels}"}


@pytest.mark.parametrize("levels", [16, 64])
def test_all_of_that_doubles_through_ref_checks_each_subschema_once(levels: int) -> None:
    schema = Schema(doubling(levels, ["allOf"]))
    assert len(schema.root.expansion()) == 1  # d0's checks, once
    assert loads("1", schema=schema) == 1
    with pytest.raises(SchemaError) as info:
        loads("-1", schema=schema)
    assert info.value.keyword == "minimum"


@pytest.mark.parametrize("keyword", ["anyOf", "oneOf"])
@pytest.mark.parametrize("levels", [16, 64])
def test_alternatives_that_double_through_ref_are_refused_when_compiled(
    keyword: str, levels: int
) -> None:
    with pytest.raises(SchemaDefinitionError, match=r"expand to more than \d+ steps"):
        Schema(doubling(levels, [keyword]))
    with pytest.raises(SchemaDefinitionError):
        loads("1", schema=doubling(2 * levels, ["allOf", keyword]))


def test_doubling_inside_a_property_is_refused_too() -> None:
    inner = doubling(20, ["anyOf"])
    schema = {"$defs": inner["$defs"], "properties": {"a": {"$ref": "#/$defs/d20"}}}
    with pytest.raises(SchemaDefinitionError, match="at /\\$defs/d20"):
        Schema(schema)


def test_values_that_share_a_large_expansion_are_refused_together() -> None:
    big = {"allOf": [{"minimum": -i} for i in range(1_000)]}
    places = {f"p{i}": {"$ref": "#/$defs/big", "type": "integer"} for i in range(1_000)}
    with pytest.raises(SchemaDefinitionError, match="steps together"):
        Schema({"$defs": {"big": big}, "properties": places})
    few = dict(list(places.items())[:3])
    assert loads('{"p0": 1}', schema={"$defs": {"big": big}, "properties": few}) == {"p0": 1}


def test_a_schema_without_ref_is_never_refused_by_the_expansion_limit() -> None:
    alternatives = [
        {"allOf": [{"properties": {f"k{i}": {"const": i}}}, {"required": [f"k{i}"]}]}
        for i in range(5_100)
    ]
    wide = {"anyOf": alternatives}
    assert len(Schema(wide).root.expansion()) > jsonsnap._schema.shape.MAX_EXPANSION
    assert loads('{"k7": 7}', schema=wide) == {"k7": 7}


@settings(max_examples=examples(40), deadline=None)
@given(
    levels=st.integers(1, 40),
    keywords=st.lists(st.sampled_from(["allOf", "anyOf", "oneOf"]), min_size=1, max_size=4),
    width=st.integers(1, 3),
    doc=st.sampled_from(["1", "-1", '"x"', "[1]", "2.5"]),
)
def test_any_doubling_schema_is_refused_or_checked_within_the_limit(
    levels: int, keywords: list[str], width: int, doc: str
) -> None:
    source = doubling(levels, keywords, width)
    try:
        schema = Schema(source)
    except SchemaDefinitionError as exc:
        assert "expand to more than" in str(exc)
        return
    # The work a value's checks take is bounded: its expansion, at most the limit.
    limit = jsonsnap._schema.shape.MAX_EXPANSION + 8 * (levels + 1 + levels * width)
    assert len(schema.root.expansion()) <= limit
    with contextlib.suppress(SchemaError):
        loads(doc, schema=schema)


# --------------------------------------------------------------------------- patterns


def counted_search(pattern: _regex.Pattern, text: str) -> tuple[bool, int]:
    """``pattern.search(text)`` and how many automaton steps (cache misses, each at most the
    automaton's size in work) it took."""
    automaton = getattr(pattern._search, "__self__", None)
    if not isinstance(automaton, _regex._Automaton):
        return pattern.search(text), 0
    automaton.cache.clear()
    steps = 0
    step = _regex._Automaton._step

    def counting(self: Any, *args: Any) -> Any:
        nonlocal steps
        steps += 1
        return step(self, *args)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_regex._Automaton, "_step", counting)
        return pattern.search(text), steps


@pytest.mark.parametrize("n", [27, 108, 10_000])
def test_nested_quantifiers_are_searched_in_one_pass(n: int) -> None:
    compiled = Schema({"pattern": "^(a+)+$"}).root.pattern
    assert compiled is not None
    assert counted_search(compiled, "a" * n)[0]
    found, steps = counted_search(compiled, "a" * n + "!")
    assert not found and steps <= n + 1
    schema = {"type": "array", "items": {"type": "string", "pattern": "^(a+)+$"}}
    doc = json.dumps(["a" * n, "a" * n + "!"])
    for _, fragments in list(chunkings(doc, rounds=1))[:3]:
        parser = Parser(schema=schema)
        with pytest.raises(SchemaError) as info:
            for fragment in fragments:
                parser.feed(fragment)
            parser.close()
        assert info.value.keyword == "pattern" and info.value.path == (1,)


def test_an_unanchored_pattern_is_searched_in_one_pass() -> None:
    compiled = Schema({"pattern": "[a-z]+x"}).root.pattern
    assert compiled is not None
    found, steps = counted_search(compiled, "a" * 50_000)
    assert not found and steps <= 4  # the states repeat: the cache answers
    assert compiled.search("ab x abx")


@pytest.mark.parametrize(
    ("pattern", "why"),
    [
        (r"(a+)\1", "backreference"),
        (r"(?=a)a*", "lookahead or lookbehind"),
        (r"(?<!b)a+", "lookahead or lookbehind"),
        (r"(a)?(?(1)b|c)", "conditional group"),
        (r"(?>a+)b", "atomic group"),
        (r"a++b", "possessive"),
        (r"(a{100}){101}", "more than 10000 states"),
        ("(" * 200 + ")" * 200, "nest 200 deep"),
    ],
)
def test_patterns_an_automaton_cannot_read_are_refused(pattern: str, why: str) -> None:
    schemas: list[dict[str, Any]] = [{"pattern": pattern}, {"patternProperties": {pattern: {}}}]
    for schema in schemas:
        with pytest.raises(SchemaDefinitionError, match=re.escape(why)):
            Schema(schema)


def test_patterns_without_repetition_keep_re_features() -> None:
    assert loads('"aa"', schema={"pattern": r"(a)\1"}) == "aa"
    assert loads('"ab"', schema={"pattern": r"(?=a)ab"}) == "ab"
    with pytest.raises(SchemaError):
        loads('"ab"', schema={"pattern": r"(?!a)ab"})


ATOMS = st.sampled_from(
    ["a", "b", "A", "[ab]", "[^a]", ".", r"\w", r"\s", "\n", "(?:)", "^", "$", r"\b", r"\B", r"\Z"]
)


def _quantified(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    quantifier = st.sampled_from(["*", "+", "?", "{1,3}", "{2}", "*?", ""])
    group = st.builds(lambda p, q: f"({p}){q}", inner, quantifier)
    alternation = st.builds(lambda p, q: f"(?:{p}|{q})", inner, inner)
    sequence = st.builds(lambda p, q: p + q, inner, inner)
    return group | alternation | sequence


nested_patterns = st.recursive(ATOMS, _quantified, max_leaves=8)


@settings(max_examples=examples(100), deadline=None)
@given(
    flags=st.sampled_from(["", "(?i)", "(?m)", "(?s)", "(?a)"]),
    pattern=nested_patterns,
    texts=st.lists(st.text("abA!\n é", max_size=8), min_size=1, max_size=6),
    n=st.integers(100, 2000),
)
def test_generated_nested_quantifiers_match_as_re_does_in_one_pass(
    flags: str, pattern: str, texts: list[str], n: int
) -> None:
    pattern = flags + pattern
    try:
        compiled = Schema({"pattern": pattern}).root.pattern
    except SchemaDefinitionError as exc:  # refused: only for its size
        assert "states" in str(exc)
        return
    assert compiled is not None
    for text in texts:
        assert compiled.search(text) == (re.search(pattern, text) is not None), (pattern, text)
    for hostile in ("a" * n + "!", "ab" * (n // 2) + "\n!"):
        _, steps = counted_search(compiled, hostile)
        assert steps <= len(hostile) + 1


# --------------------------------------------------------------------------- deep schemas


def nested(kind: str, depth: int, leaf: Any) -> tuple[Any, str, str, tuple[Any, ...]]:
    """A schema ``depth`` levels of ``kind`` deep over ``leaf``, a document it accepts, one it
    refuses, and the path of the refusal."""
    schema = leaf
    if kind == "ref":
        defs = {f"d{i}": {"$ref": f"#/$defs/d{i + 1}"} for i in range(depth)}
        defs[f"d{depth}"] = leaf
        return {"$defs": defs, "$ref": "#/$defs/d0"}, "1", '"x"', ()
    for _ in range(depth):
        if kind == "items":
            schema = {"type": "array", "items": schema}
        elif kind == "prefixItems":
            schema = {"prefixItems": [schema]}
        elif kind == "properties":
            schema = {"properties": {"a": schema}}
        elif kind == "additionalProperties":
            schema = {"additionalProperties": schema}
        elif kind in ("allOf", "oneOf"):
            schema = {kind: [schema]}
        elif kind == "anyOf":
            schema = {"anyOf": [schema, {"type": "null"}]}
    if kind in ("items", "prefixItems"):
        return (
            schema,
            "[" * depth + "1" + "]" * depth,
            "[" * depth + '"x"' + "]" * depth,
            (0,) * depth,
        )
    if kind in ("properties", "additionalProperties"):
        good = '{"a": ' * depth + "1" + "}" * depth
        return schema, good, good.replace("1", '"x"'), ("a",) * depth
    return schema, "1", '"x"', ()


KINDS = ["items", "prefixItems", "properties", "additionalProperties", "allOf", "anyOf", "oneOf"]


@pytest.mark.parametrize(
    ("kind", "depth"),
    [(kind, 400) for kind in [*KINDS, "ref"]]
    + [(kind, 10_000) for kind in ("items", "properties", "anyOf", "ref")],  # one of each walk
)
def test_a_schema_of_any_depth_compiles_and_checks(kind: str, depth: int) -> None:
    schema, good, bad, path = nested(kind, depth, {"type": "integer"})
    if depth <= 400:  # (a dict is compiled by each call: once is enough at 10,000)
        assert loads(good, schema=schema) is not None
    compiled = Schema(schema)
    parser = Parser(schema=compiled)
    parser.feed(good)
    assert parser.close() is not None
    with pytest.raises(SchemaError) as info:
        loads(bad, schema=compiled)
    assert info.value.path == path
    if path:
        assert len(info.value.schema_path) > depth  # its place in the schema, whole


def test_deep_values_in_a_schema_are_compared_without_recursion() -> None:
    depth = 10_000
    deep: Any = 1
    for _ in range(depth):
        deep = [deep]
    doc = "[" * depth + "1" + "]" * depth
    assert loads(doc, schema={"enum": [deep]}) is not None  # (== would recurse)
    assert loads(doc, schema={"const": deep}) is not None
    with pytest.raises(SchemaError):
        loads(doc.replace("1", "2"), schema={"const": deep})
    twice = f"[{doc}, {doc}]"
    with pytest.raises(SchemaError) as info:
        loads(twice, schema={"uniqueItems": True})
    assert info.value.keyword == "uniqueItems"


def test_a_schema_that_holds_itself_compiles() -> None:
    tree: dict[str, Any] = {"type": "array"}
    tree["items"] = {"anyOf": [tree, {"type": "null"}]}
    assert loads("[[null], []]", schema=tree) == [[None], []]
    with pytest.raises(SchemaError) as info:
        loads("[[null], 1]", schema=tree)
    assert info.value.path == (1,)


def deep_text(depth: int, inner: str) -> str:
    """``inner`` (a schema's JSON text) wrapped in ``allOf`` ``depth`` times."""
    return '{"allOf": [' * depth + inner + "]}" * depth


def assert_one_call_breaks_its_schema(status: int, err: str) -> None:
    """The replay's end: exit status 1 and one line, the call's violation (no traceback)."""
    assert status == 1
    (line,) = err.splitlines()
    assert line.startswith("jsonsnap: 1 of 1 tool call is not fit to run: tool 'book_table'")
    assert "breaks its schema" in line and "at /seating" in line


def test_replay_reads_a_deep_schema_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    request = json.loads(
        (RESPONSES.parent / "schemas" / f"{RESPONSES.stem}.request.json").read_text()
    )
    (tool,) = [t for t in request["tools"] if t["name"] == "book_table"]
    path = tmp_path / "deep.json"
    path.write_text('{"book_table": ' + deep_text(10_000, json.dumps(tool["parameters"])) + "}")
    status = cli.main(["replay", str(RESPONSES), "--schema", str(path)])
    out, err = capsys.readouterr()
    assert_one_call_breaks_its_schema(status, err)
    assert sum(line.startswith("│ ✗ /seating: ") for line in out.splitlines()) == 1


def test_replay_checks_deep_tools_the_stream_repeats(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = RESPONSES.read_text("utf-8").split("\n")
    for i, line in enumerate(lines):
        if not line.startswith("data: ") or '"tools"' not in line:
            continue
        event = json.loads(line[6:])
        for tool in event["response"]["tools"]:
            if tool.get("name") == "book_table":
                parameters = json.dumps(tool["parameters"])
                tool["parameters"] = "@DEEP@"
        text = json.dumps(event).replace('"@DEEP@"', deep_text(10_000, parameters))
        lines[i] = "data: " + text
    path = tmp_path / "deep.sse"
    path.write_text("\n".join(lines), "utf-8")
    status = cli.main(["replay", str(path)])
    out, err = capsys.readouterr()
    assert_one_call_breaks_its_schema(status, err)
    assert sum(line.startswith("│ ✗ /seating: ") for line in out.splitlines()) == 1


@settings(max_examples=examples(30), deadline=None)
@given(kinds=st.lists(st.sampled_from(KINDS), min_size=1, max_size=6), depth=st.integers(1, 1500))
def test_any_mix_of_nesting_compiles_and_checks(kinds: list[str], depth: int) -> None:
    schema: Any = {"type": "integer"}
    for i in range(depth):
        kind = kinds[i % len(kinds)]
        schema = nested(kind, 1, schema)[0]
    compiled = Schema(schema)
    for doc in ("1", '"x"', "[1]", '{"a": 1}', "[[[1]]]", '{"a": {"a": "x"}}'):
        with contextlib.suppress(SchemaError):
            loads(doc, schema=compiled)


# --------------------------------------------------------------------------- huge numbers

HUGE = [
    ("1e999999999", {"type": "integer"}, True),
    ("1.5e-999999999", {"type": "integer"}, False),
    ("1e999999999", {"multipleOf": 3}, False),
    ("1e999999999", {"multipleOf": 2}, True),
    ("1e999999999", {"multipleOf": 0.5}, True),
    ("3e-999999999", {"multipleOf": 0.5}, False),
    ("0e999999999", {"multipleOf": 7}, True),
    ("1e999999999", {"maximum": 10**4000}, False),
    ("-1e999999999", {"minimum": -1e308}, False),
    ("1e999999999", {"exclusiveMinimum": 1e308}, True),
    ("-1e-999999999", {"exclusiveMaximum": 0}, True),
    ("1e999999999", {"enum": [1, 2.5]}, False),
    ("123e999999998", {"multipleOf": 41}, True),
]


@pytest.mark.parametrize(("doc", "schema", "valid"), HUGE)
def test_huge_decimal_numbers_are_decided_without_writing_them_out(
    doc: str, schema: dict[str, Any], valid: bool
) -> None:
    if valid:
        assert loads(doc, schema=schema, parse_float=Decimal) == Decimal(doc)
    else:
        with pytest.raises(SchemaError):
            loads(doc, schema=schema, parse_float=Decimal)


def test_long_integers_and_infinite_floats_are_decided() -> None:
    big = "1" + "0" * 4000
    with pytest.raises(SchemaError):
        loads(big, schema={"multipleOf": 7})
    assert loads(big, schema={"multipleOf": 0.5, "minimum": 10**3999}) == 10**4000
    # With the default float, 1e400 reads as inf: no integer, no multiple, above any maximum.
    for schema in ({"type": "integer"}, {"multipleOf": 2}, {"maximum": 10**400}):
        with pytest.raises(SchemaError):
            loads("1e400", schema=schema)
    assert loads("1e400", schema={"minimum": 10**400}) == math.inf


@settings(max_examples=examples(100), deadline=None)
@given(
    digits=st.integers(-(10**30), 10**30),
    exponent=st.integers(-400, 400),
    step=st.integers(1, 10**6) | st.sampled_from([0.5, 0.1, 0.25, 1e-5, 3.0, 1e20, 7e-300]),
)
def test_multiple_of_is_exact_on_decimals(digits: int, exponent: int, step: Any) -> None:
    value = Decimal(digits).scaleb(exponent)
    text = f"{digits}e{exponent}"
    expected = Fraction(digits) * Fraction(10) ** exponent % Fraction(repr(step)) == 0
    try:
        loads(text, schema={"multipleOf": step}, parse_float=Decimal)
        assert expected, (value, step)
    except SchemaError:
        assert not expected, (value, step)


# --------------------------------------------------------------------------- wrong schemas


@pytest.mark.parametrize(
    ("schema", "message"),
    [
        ({"properties": {1: {}}}, "keys at /properties are strings"),
        ({"patternProperties": {("a",): {}}}, "keys at /patternProperties are strings"),
        ({"multipleOf": 10**5000}, "more digits than Python writes"),
        ({"minimum": 10**5000}, "more digits than Python writes"),
        ({"maxLength": 10**5000}, "more digits than Python writes"),
        ({"const": [10**5000]}, "more digits than Python writes"),
        ({"allOf": [{}], "$ref": "#/allOf/" + "9" * 5000}, "leads nowhere"),
        ({"allOf": [{}], "$ref": "#/allOf/01"}, "leads nowhere"),
        ({"$ref": "#anchor"}, "begins with '/'"),
        ({"uniqueItems": 1}, "uniqueItems is true or false"),
        ({"nullable": "yes", "type": "string"}, "nullable is true or false"),
        ({"minimum": math.nan}, "finite number"),
        ({"maximum": math.inf}, "finite number"),
        ({"enum": 5}, "enum is a list"),
        ({"enum": [{1, 2}]}, "JSON values"),
        ({"const": {1: 2}}, "JSON values"),
        ({"type": [["string"]]}, "unknown type"),
        ({"items": 3}, "a schema is an object or a boolean"),
        ({"pattern": "a{99999999999}"}, "does not compile"),
    ],
)
def test_a_keyword_of_the_wrong_type_is_a_schema_definition_error(
    schema: dict[Any, Any], message: str
) -> None:
    with pytest.raises(SchemaDefinitionError, match=re.escape(message)):
        Schema(schema)
    with pytest.raises(SchemaDefinitionError):
        loads("1", schema=schema)


def test_a_huge_number_as_the_schema_is_refused() -> None:
    with pytest.raises(SchemaDefinitionError, match="an integer of"):
        Schema(10**5000)


KEYWORDS = [*sorted(jsonsnap._schema.compile.CHECKED), "$defs", "title", "format", 1]
odd_values = st.sampled_from(
    [math.nan, math.inf, -math.inf, (1, 2), frozenset({1, 2}), b"x", None, 1.5]
) | st.builds(lambda sign: sign * 10**5000, st.sampled_from([1, -1]))
json_ish: st.SearchStrategy[Any] = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 10)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from(["string", "integer", "#", "#/$defs/a", "#/allOf/0", "^a+$", "(a+)+"])
    | odd_values,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(KEYWORDS) | st.text(max_size=3), inner, max_size=4)
        | st.tuples(inner, inner)
    ),
    max_leaves=12,
)
hostile_schemas = st.dictionaries(st.sampled_from(KEYWORDS), json_ish, max_size=5)


@settings(max_examples=examples(100), deadline=None)
@given(schema=hostile_schemas | json_ish)
def test_only_our_errors_escape_the_compiler(schema: Any) -> None:
    try:
        compiled = Schema(schema, unknown="ignore")
    except SchemaDefinitionError:
        return
    for doc in ("1", '"aa"', "[1, 1]", '{"a": null}', "1e999"):
        with contextlib.suppress(SchemaError):
            loads(doc, schema=compiled, parse_float=Decimal)
    with contextlib.suppress(SchemaError, JSONDecodeError):
        loads("[", schema=compiled)
