"""jsonsnap's schema checks against jsonschema's Draft202012Validator, on generated schemas.

The schemas are drawn from the keywords jsonsnap checks (type, enum, const, the string, number,
array and object keywords, allOf/anyOf/oneOf, boolean schemas, and ``$defs`` with ``$ref``,
recursive ones too), with values chosen where the two validators must agree: patterns from a
small set both read alike, ``multipleOf`` only of integers and powers of two (floats divide
exactly by them). The documents are drawn partly *from* the schema (an enum member, a string of
an allowed length, an object with its required keys...), with some noise, so that both verdicts
are common (:func:`test_both_verdicts_are_common` holds that on a fixed sample).

* the verdict after ``close()`` is jsonschema's, at every cut of :func:`chunkings`, and a valid
  document has no violation after any feed;
* the first violation of an invalid document has a ``path`` that exists in the document and a
  ``pos`` within the text; in raise mode it is raised by the feed whose fragment holds ``pos``
  or by a later call, never earlier (a violation cannot be known before its character is read).

jsonschema is not in the test dependency group: this module is skipped without it.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from decimal import Decimal
from fractions import Fraction
from typing import Any, Final

import pytest
from hypothesis import assume, event, given, settings
from hypothesis import strategies as st

import jsonsnap
from chunking import chunkings
from effort import examples
from schema_cases import MULTIPLES, cases

jsonschema = pytest.importorskip("jsonschema")


def _validator(schema: Any) -> Any:
    return jsonschema.Draft202012Validator(schema)


def _exists(document: Any, path: Sequence[str | int]) -> bool:
    node = document
    for step in path:
        in_object = isinstance(node, dict) and isinstance(step, str) and step in node
        in_array = isinstance(node, list) and type(step) is int and 0 <= step < len(node)
        if not (in_object or in_array):
            return False
        node = node[step]
    return True


# --------------------------------------------------------------------------- the properties


@settings(max_examples=examples(300, default=150))
@given(case=cases(), seed=st.integers(0, 2**16))
def test_verdict_is_jsonschemas(case: tuple[Any, str], seed: int) -> None:
    schema, text = case
    expected = _validator(schema).is_valid(json.loads(text))
    event("valid" if expected else "invalid")
    compiled = jsonsnap.Schema(schema, unknown="error")
    for label, fragments in chunkings(text, seed=seed, rounds=2):
        _check_verdict(compiled, fragments, "collect", expected, text, label)
        if label in ("whole", "1-char"):
            _check_verdict(compiled, fragments, "raise", expected, text, label)


def _check_verdict(
    schema: jsonsnap.Schema,
    fragments: Sequence[str],
    mode: str,
    expected: bool,
    text: str,
    label: str,
) -> None:
    """Feed ``fragments`` in ``mode``: the verdict is ``expected``, a valid document has no
    violation after any feed, and its value is json.loads'."""
    label = f"{label}, {mode}"
    parser = jsonsnap.Parser(schema=schema, on_violation=mode)
    try:
        for i, fragment in enumerate(fragments):
            parser.feed(fragment)
            if expected:
                assert parser.violations == [], (
                    f"{label}: false violation after fragment {i}: {parser.violations[0]}"
                )
        value = parser.close()
    except jsonsnap.SchemaError as exc:
        assert not expected, f"{label}: refused a valid document: {exc}"
    else:
        assert expected, f"{label}: accepted an invalid document"
        assert json.dumps(value) == json.dumps(json.loads(text)), label


@settings(max_examples=examples(200, default=100))
@given(case=cases(), seed=st.integers(0, 2**16))
def test_violation_is_reported_in_place_and_in_time(case: tuple[Any, str], seed: int) -> None:
    schema, text = case
    document = json.loads(text)
    assume(not _validator(schema).is_valid(document))
    compiled = jsonsnap.Schema(schema, unknown="error")
    collected = jsonsnap.Parser(schema=compiled, on_violation="collect")
    collected.feed(text)
    first = collected.violations[0] if collected.violations else None
    if first is None:  # the violation is only known at the end (a required key, maxItems...)
        with pytest.raises(jsonsnap.SchemaError) as info:
            collected.close()
        first = info.value
    assert _exists(document, first.path), f"{first.path} is not in {text}"
    assert 0 <= first.pos <= len(text), first.pos
    for label, fragments in chunkings(text, seed=seed, rounds=2):
        parser = jsonsnap.Parser(schema=compiled, on_violation="raise")
        read = 0
        try:
            for fragment in fragments:
                read += len(fragment)
                parser.feed(fragment)
            read = len(text) + 1  # close(): anything goes
            parser.close()
        except jsonsnap.SchemaError as exc:
            assert exc.pos < read, f"{label}: {exc} raised before char {exc.pos} was fed"
            assert 0 <= exc.pos <= len(text), label
            assert _exists(document, exc.path), f"{label}: {exc.path} is not in {text}"
        else:
            pytest.fail(f"{label}: no SchemaError for an invalid document")


# Fails until the two multipleOf disagreements in REPORTED below are fixed in jsonsnap (KNOWN
# FAILURE, reported, not fixed here): it finds them within its default number of examples.
@settings(max_examples=examples(100))
@given(
    number=st.floats(allow_nan=False, allow_infinity=False)
    | st.integers()
    | st.builds(lambda m, e: float(f"{m}e{e}"), st.integers(1, 999), st.integers(15, 305)),
    step=st.sampled_from(MULTIPLES),
)
def test_multiple_of_at_any_magnitude(number: float, step: float) -> None:
    """multipleOf for numbers of any size, where jsonschema is exact: a float divides exactly by
    a power of two (or overflows, and jsonschema falls back to fractions), and a float or an
    int leaves an exact remainder by an int. The text says a decimal number and jsonschema
    reads the float it becomes: where the two differ (1e24 is not a multiple of 3, the float
    999999999999999983222784 is), either answer is defensible and no verdict is compared."""
    if isinstance(number, int) and isinstance(step, float):
        number = number % 10**300  # jsonschema divides it as a float: it must fit
    text = json.dumps(number)
    expected = _validator({"multipleOf": step}).is_valid(json.loads(text))
    assume(expected == (Fraction(Decimal(text)) % Fraction(step) == 0))
    event("multiple" if expected else "not a multiple")
    parser = jsonsnap.Parser(schema={"multipleOf": step}, on_violation="collect")
    parser.feed(text)
    try:
        parser.close()
    except jsonsnap.SchemaError:
        assert not expected, f"refused {text}, a multiple of {step}"
    else:
        assert expected, f"accepted {text}, not a multiple of {step}"


#: The disagreements these tests found, each as its smallest reproducer.
#:
#: Each was a bug in jsonsnap, now fixed; :func:`test_reported_disagreement` keeps them fixed.
#: The property tests above found them (and would again).
REPORTED: Final = (
    # uniqueItems is applied to an object's member values; it is an array keyword, and an
    # object passes it whatever its values (jsonsnap: "items are not unique").
    pytest.param({"uniqueItems": True}, '{"a": null, "b": null}', id="uniqueItems-on-an-object"),
    # A oneOf that fails because two of its alternatives match still counts as a match in an
    # enclosing oneOf (jsonsnap: "matches 2 of the alternatives of oneOf" at the root), where
    # only the outer oneOf's first alternative matches.
    pytest.param({"oneOf": [True, {"oneOf": [True, True]}]}, "null", id="oneOf-in-oneOf"),
    # multipleOf of a float whose quotient has more than 28 digits is decided on the float
    # quotient: 1e29 / 3 "is an integer", but 10**29 % 3 == 1 (and so for the float too).
    pytest.param({"multipleOf": 3}, "1e29", id="multipleOf-big-quotient"),
    # multipleOf of a float whose quotient overflows is refused: 9e307 / 0.5 is inf, but 9e307
    # is an integer, a multiple of 0.5.
    pytest.param({"multipleOf": 0.5}, "9e307", id="multipleOf-overflowing-quotient"),
)


@pytest.mark.parametrize(("schema", "text"), REPORTED)
def test_reported_disagreement(schema: Any, text: str) -> None:
    expected = _validator(schema).is_valid(json.loads(text))
    compiled = jsonsnap.Schema(schema, unknown="error")
    for label, fragments in chunkings(text):
        _check_verdict(compiled, fragments, "collect", expected, text, label)


def test_both_verdicts_are_common() -> None:
    """The generator is worth something only if it makes both verdicts often."""
    verdicts: Counter[bool] = Counter()

    @settings(max_examples=100, derandomize=True, database=None)
    @given(case=cases())
    def sample(case: tuple[Any, str]) -> None:
        schema, text = case
        verdicts[_validator(schema).is_valid(json.loads(text))] += 1

    sample()
    total = sum(verdicts.values())
    assert verdicts[True] >= total // 4 and verdicts[False] >= total // 4, verdicts
