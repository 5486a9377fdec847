"""The one JSON writer without recursion (``json_text``) against ``json.dumps``, and
``describe`` against the two descriptions it unifies."""

from __future__ import annotations

import enum
import json
import re
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jsonsnap._jsontext import describe, json_number, json_string, json_text

#: Text with lone surrogates (and whole pairs written as two of them) drawn often.
TEXT = st.one_of(
    st.text(),
    st.text(alphabet=st.characters(min_codepoint=0xD7F0, max_codepoint=0xE010)),
)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(-(2**3000), 2**3000),
    st.floats(allow_nan=False, allow_infinity=False),
    TEXT,
)
#: JSON values as Python holds them (tuples are arrays too), without NaN and infinities.
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner),
        st.lists(inner).map(tuple),
        st.dictionaries(TEXT, inner),
    ),
    max_leaves=40,
)
SURROGATE = re.compile("[\ud800-\udfff]")


def escaped(text: str) -> str:
    """``text`` with each lone surrogate written as a ``\\uXXXX`` escape."""
    return SURROGATE.sub(lambda m: f"\\u{ord(m[0]):04x}", text)


def compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


@given(VALUES)
def test_the_text_is_json_dumps_with_the_same_separators(value: Any) -> None:
    assert json_text(value, surrogates=False) == compact(value)
    spaced = json.dumps(value, ensure_ascii=False, allow_nan=False)
    assert json_text(value, comma=", ", colon=": ", surrogates=False) == spaced


@given(VALUES)
def test_lone_surrogates_are_escaped_so_the_text_is_utf8(value: Any) -> None:
    text = json_text(value)
    assert text == escaped(compact(value))
    assert text.encode("utf-8")
    assert json.loads(text) == json.loads(json.dumps(value))  # (where two halves are joined)


@given(TEXT)
def test_a_string_alone(text: str) -> None:
    assert json_string(text) == json_text(text) == escaped(json.dumps(text, ensure_ascii=False))


@given(
    VALUES,
    st.lists(st.tuples(st.booleans(), TEXT), min_size=1, max_size=60),
)
def test_deep_values_are_written_as_shallow_ones_are(
    inner: Any, levels: list[tuple[bool, str]]
) -> None:
    """A value wrapped in arrays and one-member objects: the wrappers' text around the inner
    value's (``json.dumps`` writes each wrapper alike)."""
    value, opens, closes = inner, [], []
    for is_object, key in reversed(levels):
        value = {key: value} if is_object else [value]
    for is_object, key in levels:
        opens.append("{" + json.dumps(key, ensure_ascii=False) + ":" if is_object else "[")
        closes.append("}" if is_object else "]")
    expected = "".join(opens) + compact(inner) + "".join(reversed(closes))
    assert json_text(value, surrogates=False) == expected == compact(value)


def test_a_hundred_thousand_levels() -> None:
    value: Any = "x"
    for level in range(100_000):
        value = {"k": value} if level % 2 else [value]
    text = json_text(value)
    assert text == '{"k":[' * 50_000 + '"x"' + "]}" * 50_000
    deep_list: Any = []
    for _ in range(100_000):
        deep_list = [deep_list, 1]
    assert json_text(deep_list, comma=", ") == "[" * 100_001 + "]" + ", 1]" * 100_000


class Color(enum.IntEnum):
    RED = 1


class Name(str):
    pass


class Ratio(float):
    pass


class Frozen(Mapping[str, Any]):
    """A mapping that is no dict."""

    def __init__(self, **items: Any) -> None:
        self._items = items

    def __getitem__(self, key: str) -> Any:
        return self._items[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)


def test_subclasses_and_other_mappings_are_written_as_json_dumps_writes_them() -> None:
    value = {
        Name("n"): Name("v\ud83d"),
        "c": Color.RED,
        "r": Ratio(0.5),
        "o": OrderedDict(a=()),
        "m": Frozen(b=[Frozen()], c=None),
    }
    expected = '{"n":"v\\ud83d","c":1,"r":0.5,"o":{"a":[]},"m":{"b":[{}],"c":null}}'
    assert json_text(value) == expected
    assert json_text({k: v for k, v in value.items() if k != "m"}) == escaped(
        compact({k: v for k, v in value.items() if k != "m"})
    )


def test_shared_containers_are_written_at_each_place() -> None:
    shared = [1, {"a": None}]
    assert json_text([shared, {"x": shared}, shared]) == compact([shared, {"x": shared}, shared])


def test_numbers() -> None:
    assert json_number(Color.RED) == "1" and json_number(-0.0) == "-0.0"
    assert json_number(1e300) == "1e+300" and json_number(2**70) == str(2**70)
    for bad in (float("nan"), float("inf"), float("-inf")):
        with pytest.raises(ValueError, match="is not a JSON number"):
            json_number(bad)
        with pytest.raises(ValueError, match="is not a JSON number"):
            json_text([bad])
    assert json_text([float("inf"), -float("inf"), float("nan")], nan="null", infinity="1e400") == (
        "[1e400,-1e400,null]"
    )
    assert json_number(float("nan"), nan="NaN") == "NaN"
    with pytest.raises(ValueError, match="is not a JSON number"):
        json_number(float("inf"), nan="null")  # no text for the infinities: refused
    with pytest.raises(ValueError):
        json_text(10**5000)  # more digits than int() writes
    with pytest.raises(TypeError, match=r"^an object is not JSON$"):
        json_text({"a": [object()]})
    with pytest.raises(TypeError, match=r"^a set is not JSON$"):
        json_text({1, 2})


def test_a_number_writer_of_the_callers() -> None:
    """``number`` writes every value that is not a string, null, a boolean or a container
    (``nan`` and ``infinity`` are then its own business) and refuses the rest its own way."""
    seen: list[Any] = []

    def number(value: Any) -> str:
        seen.append(value)
        if isinstance(value, float) and value.is_integer():
            return str(int(value))
        if isinstance(value, (int, float)):
            return repr(value)
        raise LookupError(describe(value))

    assert json_text([1.0, 2.5, "x", Name("y"), True, None, 7], number=number) == (
        '[1,2.5,"x","y",true,null,7]'
    )
    assert seen == [1.0, 2.5, 7]
    with pytest.raises(LookupError, match=r"^a bytes$"):
        json_text({"a": b""}, number=number)


def test_keys_that_are_not_strings() -> None:
    with pytest.raises(TypeError, match=r"^an object key is 1, not a string$"):
        json_text({1: 2})
    with pytest.raises(TypeError, match=r"^an object key is None, not a string$"):
        json_text([{"a": 1, None: 2}])
    with pytest.raises(KeyError, match=r"key 1\.5"):
        json_text({"a": {1.5: 0}}, bad_key=lambda key: KeyError(f"key {key!r}"))


def test_a_cycle_is_refused_at_any_depth() -> None:
    loop: list[Any] = []
    loop.append(loop)
    with pytest.raises(ValueError, match=r"^a container inside itself \(a cycle\) is not JSON$"):
        json_text(loop)
    top: dict[str, Any] = {}
    bottom = top
    for _ in range(3_000):
        bottom["a"] = {}
        bottom = bottom["a"]
    bottom["back"] = [top]
    with pytest.raises(RuntimeError, match="cycle"):
        json_text(top, cycle=lambda: RuntimeError("cycle"))
    bottom["back"] = [[]]  # no cycle any more: written
    assert json_text(top).endswith('{"back":[[]]}' + "}" * 3_000)


#: Values of every kind either description names differently.
ODD_VALUES = [
    "",
    "x" * 40,
    "y" * 41,
    "z" * 70,
    None,
    True,
    False,
    0,
    -(2**64),
    2**64,
    2**65,
    2**10_000,
    2**10_001,
    1.5,
    float("nan"),
    float("-inf"),
    Color.RED,
    Ratio(2.0),
    Name("n"),
    int,
    Frozen,
    object(),
    b"bytes",
    bytearray(b"x"),
    {1, 2},
    frozenset(),
    [],
    (1, 2),
    {"a": 1},
    OrderedDict(),
    Frozen(a=1),
    Exception("boom"),
    type("Item", (), {})(),
    type("Ox", (), {})(),
]


# --------------------------------------------------------------------------- the two it unifies
# The two descriptions ``describe`` replaced, as they were written (the errors' and the schema
# messages'), kept here as the reference its two styles are held to.


def describe_for_errors(value: object) -> str:
    if isinstance(value, str):
        return repr(value) if len(value) <= 40 else repr(value[:40]) + "..."
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return "a very large int"
    if value is None or isinstance(value, (bool, int, float)):
        return repr(value)
    if isinstance(value, type):
        return f"the class {value.__name__}"
    name = type(value).__name__
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"


def describe_for_schemas(value: Any, limit: int = 60) -> str:
    if isinstance(value, str):
        text = repr(value)
    elif value is None or isinstance(value, bool):
        text = {None: "null", True: "true", False: "false"}[value]
    elif isinstance(value, (dict, list, tuple)):
        return "an object" if isinstance(value, dict) else "an array"
    elif isinstance(value, int) and value.bit_length() > 10_000:
        text = f"an integer of {value.bit_length()} bits"
    elif isinstance(value, (set, frozenset)):
        return f"a {type(value).__name__}"
    else:
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


@pytest.mark.parametrize("value", ODD_VALUES, ids=lambda value: type(value).__name__)
def test_describe_says_what_both_descriptions_said(value: Any) -> None:
    assert describe(value) == describe_for_errors(value)
    assert describe(value, as_json=True) == describe_for_schemas(value)
    assert describe(value, as_json=True, limit=10) == describe_for_schemas(value, 10)


@given(st.one_of(VALUES, st.sets(st.integers()), st.binary()))
def test_describe_says_what_both_descriptions_said_of_any_value(value: Any) -> None:
    assert describe(value) == describe_for_errors(value)
    assert describe(value, as_json=True) == describe_for_schemas(value)
    assert describe(value, as_json=True, limit=30) == describe_for_schemas(value, 30)


#: What ``describe`` says, in each style: (value, as Python sees it, as JSON holds it, cut to 10).
DESCRIPTIONS: list[tuple[Any, str, str, str]] = [
    ("x" * 41, "'" + "x" * 40 + "'...", "'" + "x" * 41 + "'", "'xxxxxx..."),
    (None, "None", "null", "null"),
    (True, "True", "true", "true"),
    (2**65, "a very large int", "36893488147419103232", "3689348..."),
    (2**10_001, "a very large int", "an integer of 10002 bits", "an inte..."),
    (1.5, "1.5", "1.5", "1.5"),
    (Color.RED, "<Color.RED: 1>", "<Color.RED: 1>", "<Color...."),
    (int, "the class int", "<class 'int'>", "<class ..."),
    (b"bytes", "a bytes", "b'bytes'", "b'bytes'"),
    (frozenset(), "a frozenset", "a frozenset", "a frozenset"),
    ((1, 2), "a tuple", "an array", "an array"),
    (OrderedDict(), "an OrderedDict", "an object", "an object"),
    (Exception("boom"), "an Exception", "Exception('boom')", "Excepti..."),
]


@pytest.mark.parametrize(
    ("value", "python", "as_json", "cut"), DESCRIPTIONS, ids=[row[1] for row in DESCRIPTIONS]
)
def test_describe_in_both_styles(value: Any, python: str, as_json: str, cut: str) -> None:
    assert describe(value) == python
    assert describe(value, as_json=True) == as_json
    assert describe(value, as_json=True, limit=10) == cut
